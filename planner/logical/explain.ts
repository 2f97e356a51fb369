// Deterministic indented printer for logical plans (EXPLAIN LOGICAL / OPTIMIZED, rule tests).

import { printScalar } from '../expr/print.js'
import type { LogicalPlan, SortKey } from './plan.js'
import { children } from './tree.js'

export function printSortKeys(keys: readonly SortKey[]): string {
  return keys.map((k) => `${printScalar(k.expr)}${k.desc ? ' DESC' : ''}${k.nullsFirst !== k.desc ? (k.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ')
}

function line(p: LogicalPlan): string {
  switch (p.kind) {
    case 'scan':
      return `Scan ${p.relation}`
    case 'values':
      return `Values rows=${p.rows.length}`
    case 'filter':
      return `Filter ${printScalar(p.predicate)}`
    case 'project':
      return `Project ${p.exprs.map(printScalar).join(', ')}`
    case 'join':
      return `Join ${p.joinType}${p.nullAwareAnti ? ' null-aware' : ''}${p.condition ? ' on ' + printScalar(p.condition) : ''}`
    case 'aggregate':
      return `Aggregate${p.groupBy.length ? ' group=[' + p.groupBy.map(printScalar).join(', ') + ']' : ' global'} aggs=[${p.aggregates.map((a) => `${a.fn}(${a.args.map(printScalar).join(', ')})`).join(', ')}]`
    case 'distinct':
      return 'Distinct'
    case 'union':
      return 'Union all'
    case 'setOp':
      return `${p.op === 'except' ? 'Except' : 'Intersect'}${p.all ? ' all' : ''}`
    case 'topK':
      return `TopK${p.partitionBy.length ? ' partition=[' + p.partitionBy.map((i) => '#' + i).join(', ') + ']' : ''} order=[${printSortKeys(p.orderBy)}]${p.limit !== undefined ? ' limit=' + p.limit : ''}${p.offset ? ' offset=' + p.offset : ''}${p.rowNumber ? ' row_number' : ''}`
    case 'sort':
      return `Sort ${printSortKeys(p.orderBy)}`
  }
}

export function explainLogical(p: LogicalPlan, indent = 0): string {
  const own = '  '.repeat(indent) + line(p)
  return [own, ...children(p).map((c) => explainLogical(c, indent + 1))].join('\n')
}
