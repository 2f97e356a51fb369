// Prints scalar expressions for EXPLAIN: columns by position (#0), calls by overload id.

import type { ScalarExpr } from './scalar.js'
import { isArrayValue } from '../array-value.js'

const INFIX: Record<string, string> = { eq: '=', ne: '<>', lt: '<', le: '<=', gt: '>', ge: '>=' }

function printValue(v: unknown): string {
  if (v === null) return 'NULL'
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`
  if (isArrayValue(v)) return `ARRAY[${v.items.map(printValue).join(', ')}]`
  return String(v)
}

export function printScalar(e: ScalarExpr): string {
  switch (e.kind) {
    case 'column':
      return `#${e.index}`
    case 'outerColumn':
      return `outer(${e.depth})#${e.index}`
    case 'literal':
      return printValue(e.value)
    case 'call': {
      const op = INFIX[e.fn]
      if (op && e.args.length === 2) return `(${printScalar(e.args[0]!)} ${op} ${printScalar(e.args[1]!)})`
      return `${e.fn}(${e.args.map(printScalar).join(', ')})`
    }
    case 'and':
    case 'or':
      return `(${e.args.map(printScalar).join(` ${e.kind.toUpperCase()} `)})`
    case 'not':
      return `NOT ${printScalar(e.arg)}`
    case 'isNull':
      return `(${printScalar(e.arg)} IS ${e.negated ? 'NOT ' : ''}NULL)`
    case 'case':
      return `CASE ${e.whens.map((w) => `WHEN ${printScalar(w.when)} THEN ${printScalar(w.then)}`).join(' ')} ELSE ${printScalar(e.else)} END`
    case 'cast':
      return `${printScalar(e.arg)}::${e.type}`
    case 'coalesce':
      return `coalesce(${e.args.map(printScalar).join(', ')})`
    case 'inList':
      return `(${printScalar(e.arg)} ${e.negated ? 'NOT IN' : 'IN'} (${e.list.map(printScalar).join(', ')}))`
    case 'subquery':
      return `${e.mode}(subquery${e.operands.length ? ': ' + e.operands.map(printScalar).join(', ') : ''})`
  }
}
