// fold-constants: simplifies three-valued logic with constant operands, so filters like
// `WHERE 1 = 1 AND x > 2` or a CASE with a constant condition cost nothing per row:
//   AND/OR with TRUE/FALSE/NULL operands, NOT of a constant, IS [NOT] NULL of a literal,
//   comparisons of two number/text/boolean literals (`1 = 1`), a comparison with NULL,
//   CASE branches with constant conditions, COALESCE with a leading non-NULL literal,
//   a strict function or operator with a NULL literal argument (`x / 0 = NULL` is NULL
//   without evaluating `x / 0`, as Postgres's eval_const_expressions does),
//   Filter(TRUE) → its input, Filter(FALSE/NULL) → no rows.
// Arithmetic and casts on literals are evaluated once when the expression is compiled
// (src/compile-scalar.ts), where the function implementations live; they are not folded here.

import type { ScalarExpr } from '../expr/scalar.js'
import { isStrictFunction } from '../expr/functions.js'
import { lit } from '../expr/scalar.js'
import type { LogicalPlan } from '../logical/plan.js'
import { exprChildren, mapExpr, transformUp } from '../logical/tree.js'
import type { Rule } from './rule.js'

export const foldConstants: Rule = {
  name: 'fold-constants',
  apply(plan) {
    let changed = false
    const fold = (e: ScalarExpr, inJoin = false): ScalarExpr => {
      const node = inJoin ? foldJoinNode : foldNode
      if (!foldable(e, node)) return e
      const f = mapExpr(e, node)
      changed = true
      return f
    }
    const out = transformUp(plan, (p): LogicalPlan | undefined => {
      switch (p.kind) {
        case 'filter': {
          const pred = fold(p.predicate)
          if (pred.kind === 'literal' && pred.value === true) {
            changed = true
            return p.input
          }
          if (pred.kind === 'literal') {
            changed = true
            return { kind: 'values', rows: [], columns: p.columns }
          }
          return pred === p.predicate ? undefined : { ...p, predicate: pred }
        }
        case 'project': {
          const exprs = p.exprs.map((e) => fold(e))
          return exprs.every((e, i) => e === p.exprs[i]) ? undefined : { ...p, exprs }
        }
        case 'join': {
          if (!p.condition) return undefined
          const c = fold(p.condition, true)
          if (c === p.condition) return undefined
          return { ...p, condition: c.kind === 'literal' && c.value === true ? undefined : c }
        }
        default:
          return undefined
      }
    })
    return changed ? out : undefined
  },
}

/** True when some node of `e` would fold (checked first, so unchanged plans stay the same
 *  objects and the optimizer sees no change). */
function foldable(e: ScalarExpr, node: (e: ScalarExpr) => ScalarExpr): boolean {
  if (node(e) !== e) return true
  return exprChildren(e).some((c) => foldable(c, node))
}

/** Join conditions keep comparisons with NULL: they are the keys of semi and anti joins
 *  (`NULL IN (subquery)`), whose NULL handling the join itself implements. */
function foldJoinNode(e: ScalarExpr): ScalarExpr {
  if (e.kind === 'call' && e.args.some((a) => isLit(a, null))) return e
  return foldNode(e)
}

const COMPARE: Record<string, (a: number | string, b: number | string) => boolean> = {
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  lt: (a, b) => a < b,
  le: (a, b) => a <= b,
  gt: (a, b) => a > b,
  ge: (a, b) => a >= b,
}

const SURROGATE = /[\ud800-\udfff]/

function isLit(e: ScalarExpr, v: unknown): boolean {
  return e.kind === 'literal' && e.value === v
}

function foldNode(e: ScalarExpr): ScalarExpr {
  switch (e.kind) {
    case 'and':
    case 'or': {
      const dom = e.kind === 'and' ? false : true
      if (e.args.some((a) => isLit(a, dom))) return lit(dom, 'boolean')
      const args = e.args.filter((a) => !isLit(a, !dom))
      if (args.length === 0) return lit(!dom, 'boolean')
      if (args.every((a) => isLit(a, null))) return lit(null, 'boolean')
      if (args.length === 1) return args[0]!
      return args.length === e.args.length ? e : { ...e, args }
    }
    case 'not':
      if (e.arg.kind === 'literal' && (typeof e.arg.value === 'boolean' || e.arg.value === null)) return lit(e.arg.value === null ? null : !e.arg.value, 'boolean')
      if (e.arg.kind === 'not') return e.arg.arg
      return e
    case 'isNull':
      if (e.arg.kind === 'literal') return lit((e.arg.value === null) !== e.negated, 'boolean')
      return e
    case 'call': {
      if (e.args.some((a) => isLit(a, null)) && isStrictFunction(e.fn)) return lit(null, e.type)
      const cmp = COMPARE[e.fn]
      if (!cmp || e.args.length !== 2) return e
      const [a, b] = e.args as [ScalarExpr, ScalarExpr]
      if (a.kind !== 'literal' || b.kind !== 'literal') return e
      if (a.value === null || b.value === null) return lit(null, 'boolean')
      const t = typeof a.value
      // floats: NaN orders above everything in SQL, so leave those to the run time
      if (t !== typeof b.value || (t !== 'string' && t !== 'boolean' && !(t === 'number' && Number.isFinite(a.value) && Number.isFinite(b.value)))) return e
      if (a.type !== b.type) return e
      // JS orders strings by UTF-16 code unit, SQL by code point: they agree without surrogates
      if (t === 'string' && e.fn !== 'eq' && e.fn !== 'ne' && (SURROGATE.test(a.value as string) || SURROGATE.test(b.value as string))) return e
      return lit(cmp(a.value as number, b.value as number), 'boolean')
    }
    case 'case': {
      const whens = e.whens.filter((w) => !(w.when.kind === 'literal' && w.when.value !== true))
      if (whens.length > 0 && isLit(whens[0]!.when, true)) return whens[0]!.then
      if (whens.length === 0) return e.else
      return whens.length === e.whens.length ? e : { ...e, whens }
    }
    case 'coalesce': {
      const args = e.args.filter((a, i) => !(isLit(a, null) && i < e.args.length - 1))
      if (args[0]?.kind === 'literal' && args[0].value !== null) return args[0]
      if (args.length === 1) return args[0]!
      return args.length === e.args.length ? e : { ...e, args }
    }
    default:
      return e
  }
}
