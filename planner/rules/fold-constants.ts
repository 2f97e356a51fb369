// fold-constants: simplifies three-valued logic with constant operands, so filters like
// `WHERE 1 = 1 AND x > 2` or a CASE with a constant condition cost nothing per row:
//   AND/OR with TRUE/FALSE/NULL operands, NOT of a constant, IS [NOT] NULL of a literal,
//   comparisons of two number/text/boolean literals (`1 = 1`), a comparison with NULL,
//   CASE branches with constant conditions, COALESCE with a leading non-NULL literal,
//   a strict function or operator with a NULL literal argument (`x / 0 = NULL` is NULL
//   without evaluating `x / 0`, as Postgres's eval_const_expressions does),
//   Filter(TRUE) → its input, Filter(FALSE/NULL) → no rows.
// As PostgreSQL's eval_const_expressions: CASE drops WHEN arms that are constant FALSE/NULL
// and ends at the first constant TRUE one; COALESCE drops NULL constants and everything after
// the first non-NULL one; a cast of NULL is NULL; `x [NOT] IN (NULL)` is `x = NULL` (NULL);
// NOT over an AND/OR tree holding a NULL constant is pushed down (De Morgan, as negate_clause).
// And as its canonicalize_qual, in a qual (WHERE, HAVING, a JOIN's ON — not a select list), a
// NULL constant anywhere in the AND/OR tree from the top is FALSE: `x > 0 AND NULL`,
// `a BETWEEN NULL AND b` (`a >= NULL AND a <= b`) and `NOT (NULL OR x)` are FALSE without
// evaluating x, `x OR NULL` is x. A join whose ON is FALSE: inner / semi → no rows, anti →
// its left input, left / right → the preserved side padded with NULLs.
// Null-aware anti joins (NOT IN) keep comparisons with NULL in their condition: the join
// implements their NULL semantics.
// Arithmetic and casts on literals are evaluated once when the expression is compiled
// (src/sql-runtime/compile-scalar.ts), where the function implementations live; they are not folded here.

import type { ScalarExpr } from '../expr/scalar.js'
import { isStrictFunction, isVolatileFunction } from '../expr/functions.js'
import { col, lit } from '../expr/scalar.js'
import type { LogicalPlan } from '../logical/plan.js'
import { exprChildren, mapExpr, transformUp, visitExpr } from '../logical/tree.js'
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
          const folded = fold(p.predicate)
          const pred = qualOf(folded)
          if (pred !== folded) changed = true
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
          const c = p.nullAwareAnti ? fold(p.condition, true) : qualOf(fold(p.condition))
          if (c.kind === 'literal' && c.value === false && !p.nullAwareAnti) {
            const r = falseJoin(p)
            if (r) {
              changed = true
              return r
            }
          }
          if (c === p.condition) return undefined
          changed = true
          return { ...p, condition: c.kind === 'literal' && c.value === true ? undefined : c }
        }
        default:
          return undefined
      }
    })
    return changed ? out : undefined
  },
}

/** Evaluates an expression that reads no column (the engine registers its compiler here:
 *  the function library lives outside the planner); undefined when it raises or when no
 *  evaluator is registered. Only row-constant conditions of CASE arms and of quals are
 *  evaluated (as eval_const_expressions folds every immutable call on constants), so an arm
 *  behind a constant FALSE condition is dropped before anything in it runs. */
let evaluator: ((e: ScalarExpr) => { value: unknown } | undefined) | undefined

export function setConstantEvaluator(f: typeof evaluator): void {
  evaluator = f
}

/** A boolean that reads no column, calls nothing volatile and holds no subquery, as a
 *  literal (itself when it cannot be evaluated). */
function constantCondition(e: ScalarExpr): ScalarExpr {
  if (e.kind === 'literal' || evaluator === undefined) return e
  let constant = true
  visitExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'outerColumn' || x.kind === 'subquery' || (x.kind === 'call' && isVolatileFunction(x.fn))) constant = false
  })
  if (!constant) return e
  const r = evaluator(e)
  return r === undefined || (r.value !== null && typeof r.value !== 'boolean') ? e : lit(r.value, 'boolean')
}

/** A qual: NULL is FALSE through the AND/OR tree from the top (PostgreSQL's
 *  canonicalize_qual). Returns `e` itself when nothing changes. */
function qualOf(e0: ScalarExpr): ScalarExpr {
  const e = constantCondition(e0)
  if (isLit(e, null)) return lit(false, 'boolean')
  if (e !== e0) return e
  if (e.kind !== 'and' && e.kind !== 'or') return e
  const args = e.args.map(qualOf)
  if (args.every((a, i) => a === e.args[i])) return e
  return foldNode({ ...e, args })
}

/** A join whose ON condition is FALSE (undefined: left as it is). */
function falseJoin(p: Extract<LogicalPlan, { kind: 'join' }>): LogicalPlan | undefined {
  const nulls = (cs: readonly { type: ScalarExpr['type'] }[]) => cs.map((c) => lit(null, c.type))
  const cols = (cs: readonly { type: ScalarExpr['type'] }[]) => cs.map((c, i) => col(i, c.type))
  switch (p.joinType) {
    case 'inner':
    case 'semi':
      return { kind: 'values', rows: [], columns: p.columns }
    case 'anti':
      return p.left
    case 'left':
      return { kind: 'project', input: p.left, exprs: [...cols(p.left.columns), ...nulls(p.right.columns)], columns: p.columns }
    case 'right':
      return { kind: 'project', input: p.right, exprs: [...nulls(p.left.columns), ...cols(p.right.columns)], columns: p.columns }
    default:
      return undefined
  }
}

/** NOT e, pushed through AND/OR (De Morgan) and double negations. */
function negate(e: ScalarExpr): ScalarExpr {
  if (e.kind === 'literal' && (e.value === null || typeof e.value === 'boolean')) return lit(e.value === null ? null : !e.value, 'boolean')
  if (e.kind === 'not') return e.arg
  if (e.kind === 'and' || e.kind === 'or') return foldNode({ kind: e.kind === 'and' ? 'or' : 'and', args: e.args.map(negate), type: 'boolean' })
  return { kind: 'not', arg: e, type: 'boolean' }
}

/** Whether an AND/OR (under NOTs) tree holds a NULL constant. */
function nullInBoolTree(e: ScalarExpr): boolean {
  if (isLit(e, null)) return true
  if (e.kind === 'and' || e.kind === 'or') return e.args.some(nullInBoolTree)
  if (e.kind === 'not') return nullInBoolTree(e.arg)
  return false
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
      if ((e.arg.kind === 'and' || e.arg.kind === 'or') && nullInBoolTree(e.arg)) return negate(e.arg)
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
      const conds = e.whens.map((w) => constantCondition(w.when))
      let whens = e.whens.map((w, i) => (conds[i] === w.when ? w : { when: conds[i]!, then: w.then })).filter((w) => !(w.when.kind === 'literal' && w.when.value !== true))
      // the first constant TRUE arm is the ELSE: later arms are unreachable
      const t = whens.findIndex((w) => isLit(w.when, true))
      const otherwise = t >= 0 ? whens[t]!.then : e.else
      if (t >= 0) whens = whens.slice(0, t)
      if (whens.length === 0) return otherwise
      return whens.length === e.whens.length && otherwise === e.else && whens.every((w, i) => w === e.whens[i]) ? e : { ...e, whens, else: otherwise }
    }
    case 'coalesce': {
      // NULL constants dropped; nothing after the first non-NULL constant is reached
      let args = e.args.filter((a) => !isLit(a, null))
      const k = args.findIndex((a) => a.kind === 'literal')
      if (k >= 0) args = args.slice(0, k + 1)
      if (args.length === 0) return lit(null, e.type)
      if (args.length === 1 && args[0]!.type === e.type) return args[0]!
      return args.length === e.args.length ? e : { ...e, args }
    }
    case 'cast':
      if (isLit(e.arg, null)) return lit(null, e.type)
      return e
    case 'inList':
      if (e.list.length === 1 && isLit(e.list[0]!, null)) return lit(null, 'boolean')
      return e
    default:
      return e
  }
}
