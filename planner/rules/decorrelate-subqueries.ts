// decorrelate-subqueries: replaces every subquery expression with joins, so the delta plan
// only has operators that maintain incrementally.
//
// - `[NOT] EXISTS (S)` and `x [NOT] IN (S)` as top-level WHERE conjuncts become semi / anti
//   joins (NOT IN is a null-aware anti join). A correlated S must be
//   [Project] Filter(X, outer = inner AND …) over an uncorrelated X: the correlation
//   equalities become the join keys.
// - A scalar subquery becomes a LEFT JOIN with S grouped by its correlation keys (an
//   aggregate S keeps its aggregates, COUNT coalesced to 0 for groups that do not exist;
//   a plain S gets a single_value aggregate that fails when a key has more than one row).
//   An uncorrelated scalar subquery is a cross join with its one-row global aggregate.
// - EXISTS elsewhere (under OR, in a select list) becomes COALESCE(count, 0) > 0 over the
//   same grouped left join.
// - Subqueries nested in subqueries are decorrelated from the outside in, in one pass, at any
//   depth: a subquery whose plan holds further subqueries, or whose correlation is not in the
//   shape above, goes through the domain of the outer values it uses: D = DISTINCT(those
//   outer columns), pushed down through the subquery's operators (filters and projections
//   carry D's columns, a GROUP BY also groups by them, a global aggregate becomes
//   D LEFT JOIN input grouped by D, joins push D into the sides that use it, matched on D) so
//   that every outer reference — also from deeper subqueries — reads D's columns; the result
//   is uncorrelated (its own nested subqueries are then decorrelated the same way) and joins
//   the outer query on a NULL-safe key of D.
// Anything else (a correlated LIMIT with a row number, a window, FULL JOIN, a correlated
// null-aware NOT IN inside a subquery) is reported as not supported.

import type { ScalarExpr } from '../expr/scalar.js'
import { col, lit, nullSafeKey } from '../expr/scalar.js'
import type { AggregateCall, Column, LogicalPlan } from '../logical/plan.js'
import { children, conjoin, conjuncts, exprChildren, hasSubquery, mapChildren, mapExpr, mapOuterRefs, transformUp, visitExpr, withChildren } from '../logical/tree.js'
import { RivuletError, SqlState } from '../errors.js'
import type { Rule } from './rule.js'

export const decorrelateSubqueries: Rule = {
  name: 'decorrelate-subqueries',
  apply(plan) {
    if (!planHasSubquery(plan)) return undefined
    return transformUp(plan, rewriteNode)
  },
}

function unsupported(what: string): RivuletError {
  return new RivuletError(SqlState.featureNotSupported, `${what} is not supported yet`)
}

function nodeExprs(p: LogicalPlan): readonly ScalarExpr[] {
  switch (p.kind) {
    case 'values':
      return p.rows.flat()
    case 'topK':
    case 'sort':
      return p.orderBy.map((k) => k.expr)
    case 'timeJoin':
      return [...p.leftKeys, ...p.rightKeys, ...(p.leftTime ? [p.leftTime] : []), ...(p.rightTime ? [p.rightTime] : []), ...(p.residual ? [p.residual] : [])]
    case 'filter':
      return [p.predicate]
    case 'unnest':
      return [p.array]
    case 'project':
      return p.exprs
    case 'join':
      return p.condition ? [p.condition] : []
    case 'aggregate':
      return [...p.groupBy, ...p.aggregates.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : []), ...a.orderBy.map((k) => k.expr)])]
    default:
      return []
  }
}

/** Whether a node's own expressions hold a subquery (VALUES rows checked in place: a read
 *  with a 1,000-row VALUES list runs this on every optimizer pass). */
function nodeHasSubquery(p: LogicalPlan): boolean {
  if (p.kind === 'values') return p.rows.some((r) => r.some(hasSubquery))
  return nodeExprs(p).some(hasSubquery)
}

/** Decorrelates every subquery of a plan that references no enclosing query. */
function decorrelatePlan(p: LogicalPlan): LogicalPlan {
  return planHasSubquery(p) ? transformUp(p, rewriteNode) : p
}

function planHasSubquery(p: LogicalPlan): boolean {
  if (nodeHasSubquery(p)) return true
  return children(p).some(planHasSubquery)
}

/** The input of the node being rewritten: the domain of outer values is taken from it, not
 *  from the input grown by the joins of the node's earlier subqueries (whose columns it
 *  starts with), so several subqueries in one node do not nest copies of each other. */
let domainBase: LogicalPlan | undefined

function rewriteNode(p: LogicalPlan): LogicalPlan | undefined {
  if (!nodeHasSubquery(p)) return undefined
  const saved = domainBase
  domainBase = p.kind === 'filter' || p.kind === 'project' ? p.input : undefined
  try {
    return rewriteNodeIn(p)
  } finally {
    domainBase = saved
  }
}

function rewriteNodeIn(p: LogicalPlan): LogicalPlan | undefined {
  switch (p.kind) {
    case 'filter':
      return rewriteFilter(p.input, p.predicate, p.columns)
    case 'project': {
      let input = p.input
      const exprs = p.exprs.map((e) => {
        const r = replaceSubqueries(e, input)
        input = r.input
        return r.expr
      })
      return { kind: 'project', input, exprs, columns: p.columns }
    }
    case 'aggregate': {
      // the expressions holding subqueries are computed by a projection below the aggregate
      const iw = p.input.columns.length
      const extra: ScalarExpr[] = []
      const lift = (e: ScalarExpr): ScalarExpr => {
        if (!hasSubquery(e)) return e
        extra.push(e)
        return col(iw + extra.length - 1, e.type)
      }
      const groupBy = p.groupBy.map(lift)
      const aggregates = p.aggregates.map((a) => ({ ...a, args: a.args.map(lift), filter: a.filter ? lift(a.filter) : undefined, orderBy: a.orderBy.map((k) => ({ ...k, expr: lift(k.expr) })) }))
      const proj: LogicalPlan = { kind: 'project', input: p.input, exprs: [...p.input.columns.map((c, i) => col(i, c.type)), ...extra], columns: [...p.input.columns, ...extra.map((e, i) => ({ name: `__arg${i}`, type: e.type }))] }
      return { ...p, input: rewriteNode(proj) ?? proj, groupBy, aggregates }
    }
    case 'join': {
      // an inner join's conjuncts with subqueries become a filter above it
      if (p.joinType !== 'inner' || !p.condition) throw unsupported(`a subquery in the condition of a ${p.joinType.toUpperCase()} JOIN`)
      const cs = conjuncts(p.condition)
      const keep = cs.filter((c) => !hasSubquery(c))
      const j: LogicalPlan = { ...p, condition: conjoin(keep) }
      domainBase = j
      return rewriteFilter(j, conjoin(cs.filter(hasSubquery))!, p.columns)
    }
    default:
      throw unsupported(`a subquery in ${p.kind === 'values' ? 'VALUES' : p.kind === 'topK' || p.kind === 'sort' ? 'ORDER BY' : 'this position'}`)
  }
}

function rewriteFilter(input: LogicalPlan, predicate: ScalarExpr, columns: readonly Column[]): LogicalPlan {
  const width = input.columns.length
  let current = input
  const rest: ScalarExpr[] = []
  for (const c of conjuncts(predicate)) {
    const negated = c.kind === 'not' && c.arg.kind === 'subquery'
    const sq = c.kind === 'subquery' ? c : negated && c.kind === 'not' ? c.arg : undefined
    if (sq && sq.kind === 'subquery' && (sq.mode === 'exists' || sq.mode === 'in')) {
      const r = replaceInOperands(sq, current)
      current = semiAntiJoin(r.input, r.sq, negated)
      continue
    }
    if (!hasSubquery(c)) {
      rest.push(c)
      continue
    }
    const r = replaceSubqueries(c, current)
    current = r.input
    rest.push(r.expr)
  }
  const cond = conjoin(rest)
  let out: LogicalPlan = cond ? { kind: 'filter', input: current, predicate: cond, columns: current.columns } : current
  if (out.columns.length !== width) out = { kind: 'project', input: out, exprs: columns.map((c, i) => col(i, c.type)), columns }
  return out
}

/** Outer column references (depth 1) in a subquery plan; deeper ones are refused. */
function outerRefs(p: LogicalPlan): boolean {
  let found = false
  const visit = (q: LogicalPlan, depth: number): void => {
    for (const e of nodeExprs(q)) {
      visitExpr(e, (x) => {
        if (x.kind === 'outerColumn') {
          if (x.depth === depth) found = true
          else if (x.depth > depth) throw unsupported('a subquery correlated with a query more than one level out')
        }
        if (x.kind === 'subquery') visit(x.plan, depth + 1)
      })
    }
    for (const c of children(q)) visit(c, depth)
  }
  visit(p, 1)
  return found
}

interface Correlation {
  /** Uncorrelated base of the subquery (below its correlated filter). */
  readonly base: LogicalPlan
  /** Equalities outer expr (over the outer row) = inner expr (over base columns). */
  readonly outer: ScalarExpr[]
  readonly inner: ScalarExpr[]
  /** Nodes above the correlated filter, outermost first: projections, a global aggregate, HAVING. */
  readonly above: LogicalPlan[]
}

/** Pulls the correlated conjuncts out of `s`: s = above… ∘ Filter(base, corr ∧ rest).
 *  Equalities outer = inner become join keys directly. Any other correlated condition
 *  goes through the domain of the outer values: D = DISTINCT(the outer columns it uses),
 *  base' = base ⋈ D on the correlated conditions (base columns first, so the nodes above
 *  still read the same positions), keyed by a NULL-safe encoding of the D columns. */
function pullCorrelation(s: LogicalPlan, input: LogicalPlan): Correlation {
  const above: LogicalPlan[] = []
  let node = s
  for (;;) {
    if (node.kind === 'filter' && nodeExprs(node).some(hasOuter)) break
    if ((node.kind === 'project' || node.kind === 'filter' || node.kind === 'aggregate') && !nodeExprs(node).some(hasOuter) && outerRefs(node.input)) {
      above.push(node)
      node = node.input
      continue
    }
    throw unsupported('this form of correlated subquery (correlation outside its WHERE clause)')
  }
  const f = node as Extract<LogicalPlan, { kind: 'filter' }>
  if (outerRefs(f.input)) throw unsupported('a correlated subquery with correlation below its WHERE clause')
  const outer: ScalarExpr[] = []
  const inner: ScalarExpr[] = []
  const rest: ScalarExpr[] = []
  const general: ScalarExpr[] = []
  for (const c of conjuncts(f.predicate)) {
    if (!hasOuter(c)) {
      rest.push(c)
      continue
    }
    if (c.kind === 'call' && c.fn === 'eq') {
      const [a, b] = c.args as [ScalarExpr, ScalarExpr]
      if (onlyOuter(a) && onlyInner(b)) {
        outer.push(toOuterRow(a))
        inner.push(b)
        continue
      }
      if (onlyOuter(b) && onlyInner(a)) {
        outer.push(toOuterRow(b))
        inner.push(a)
        continue
      }
    }
    general.push(c)
  }
  const restPred = conjoin(rest)
  const base: LogicalPlan = restPred ? { kind: 'filter', input: f.input, predicate: restPred, columns: f.input.columns } : f.input
  if (general.length === 0) return { base, outer, inner, above }
  // domain path: every correlated conjunct (equalities too) becomes a join condition with D
  const used = new Set<number>()
  for (const c of general) visitExpr(c, (x) => {
    if (x.kind === 'outerColumn') used.add(x.index)
  })
  // the equalities' outer sides were already rewritten to outer-row columns
  for (const o of outer) visitExpr(o, (x) => {
    if (x.kind === 'column') used.add(x.index)
  })
  const dCols = [...used].sort((a, b) => a - b)
  const nb = base.columns.length
  const dPos = new Map(dCols.map((c, i) => [c, nb + i]))
  const domainProject: LogicalPlan = { kind: 'project', input, exprs: dCols.map((i) => col(i, input.columns[i]!.type)), columns: dCols.map((i, k) => ({ name: `__outer${k}`, type: input.columns[i]!.type })) }
  const domain: LogicalPlan = { kind: 'distinct', input: domainProject, columns: domainProject.columns }
  const toJoined = (e: ScalarExpr): ScalarExpr => mapExpr(e, (x) => (x.kind === 'outerColumn' ? col(dPos.get(x.index)!, x.type) : x))
  const conds = [
    ...outer.map((o, i) => eq(mapExpr(o, (x) => (x.kind === 'column' ? col(dPos.get(x.index)!, x.type) : x)), inner[i]!)),
    ...general.map(toJoined),
  ]
  const joined: LogicalPlan = { kind: 'join', joinType: 'inner', left: base, right: domain, condition: conjoin(conds), nullAwareAnti: false, columns: [...base.columns, ...domain.columns] }
  const key = nullSafeKey
  return {
    base: joined,
    outer: [key(dCols.map((i) => col(i, input.columns[i]!.type)))],
    inner: [key(dCols.map((i, k) => col(nb + k, input.columns[i]!.type)))],
    above,
  }
}

function hasOuter(e: ScalarExpr): boolean {
  let found = false
  visitExpr(e, (x) => {
    if (x.kind === 'outerColumn') found = true
    if (x.kind === 'subquery') throw unsupported('a subquery nested in a correlated condition')
  })
  return found
}

function onlyOuter(e: ScalarExpr): boolean {
  let ok = true
  let any = false
  visitExpr(e, (x) => {
    if (x.kind === 'column') ok = false
    if (x.kind === 'outerColumn') {
      any = true
      if (x.depth !== 1) ok = false
    }
  })
  return ok && any
}

function onlyInner(e: ScalarExpr): boolean {
  let ok = true
  visitExpr(e, (x) => {
    if (x.kind === 'outerColumn' || x.kind === 'subquery') ok = false
  })
  return ok
}

/** outerColumn(depth 1, i) → column i of the outer row. */
function toOuterRow(e: ScalarExpr): ScalarExpr {
  return mapExpr(e, (x) => (x.kind === 'outerColumn' ? col(x.index, x.type) : x))
}

function shift(e: ScalarExpr, by: number): ScalarExpr {
  return remapRow(e, (i) => i + by)
}

/** Renumbers the references `e` makes to its node's input row: its columns, and the outer
 *  references to that row from the subqueries nested in `e` (depth 1 in the subquery, 2 in
 *  one nested in it, …). A rewrite that moves the row's columns (D's columns put before them,
 *  a join side moved right) must move both: the nested subqueries are only decorrelated
 *  later, over the new row, and would otherwise read whatever column now sits at the old
 *  position (another column of the row, or one of D's). */
function remapRow(e: ScalarExpr, map: (i: number) => number): ScalarExpr {
  return mapExpr(e, (x) => {
    if (x.kind === 'column') return { ...x, index: map(x.index) }
    if (x.kind === 'subquery') return { ...x, plan: mapOuterRefs(x.plan, 1, (r) => ({ ...r, index: map(r.index) })) }
    return x
  })
}

function eq(a: ScalarExpr, b: ScalarExpr): ScalarExpr {
  return { kind: 'call', fn: 'eq', args: [a, b], type: 'boolean' }
}

/** Applies the projections/filters recorded above the correlated filter (uncorrelated
 *  subqueries only use this path when `above` has no aggregate). */
function reapply(base: LogicalPlan, above: readonly LogicalPlan[]): LogicalPlan {
  let p = base
  for (let i = above.length - 1; i >= 0; i--) p = withChildren(above[i]!, [p])
  return p
}

type Subquery = Extract<ScalarExpr, { kind: 'subquery' }>

function isUnsupported(e: unknown): boolean {
  return e instanceof RivuletError && e.code === SqlState.featureNotSupported
}

/** Whether a subquery plan references an enclosing query (from any depth inside it). */
function correlated(p: LogicalPlan, depth = 1): boolean {
  const inExpr = (e: ScalarExpr): boolean => {
    let found = false
    visitExpr(e, (x) => {
      if (x.kind === 'outerColumn' && x.depth >= depth) found = true
      if (x.kind === 'subquery' && correlated(x.plan, depth + 1)) found = true
    })
    return found
  }
  return nodeExprs(p).some(inExpr) || children(p).some((c) => correlated(c, depth))
}

/** The fast shapes first (correlation in the subquery's WHERE, nothing nested), else the
 *  domain of the outer values. */
function viaFastPath<T>(sq0: Subquery, fast: (sq: Subquery) => T, general: (sq: Subquery) => T): T {
  let sq = sq0
  // nested subqueries that only read this one's rows first (inside out): what is left is
  // often the fast shape, and the domain path has less to carry
  if (planHasSubquery(sq.plan) && !nestedReachOut(sq.plan)) sq = { ...sq, plan: transformUp(sq.plan, rewriteNode) }
  if (!planHasSubquery(sq.plan)) {
    try {
      return fast(sq)
    } catch (e) {
      if (!isUnsupported(e)) throw e
    }
  }
  return general(sq)
}

/** Whether a subquery nested in `p` reads a query enclosing `p`. */
function nestedReachOut(p: LogicalPlan): boolean {
  let found = false
  const visit = (q: LogicalPlan): void => {
    for (const e of nodeExprs(q)) visitExpr(e, (x) => {
      if (x.kind === 'subquery' && correlated(x.plan, 2)) found = true
    })
    if (!found) children(q).forEach(visit)
  }
  visit(p)
  return found
}

/** Operators of a plan as a tree (shared subplans counted each time they are used, as the
 *  lowering instantiates them). */
const TREE_SIZE = new WeakMap<LogicalPlan, number>()
function treeSize(p: LogicalPlan): number {
  let n = TREE_SIZE.get(p)
  if (n === undefined) {
    n = 1 + children(p).reduce((s, c) => s + treeSize(c), 0)
    TREE_SIZE.set(p, n)
  }
  return n
}

/** Past this many operators a decorrelated subquery is refused: each level of nested
 *  correlation through the domain path uses the outer input twice (D and the join), so the
 *  operator count can double per level. */
const MAX_DECORRELATED_SIZE = 12000

/** Replaces subqueries in an IN's left operands with joins added to `input`. */
function replaceInOperands(sq: Subquery, input0: LogicalPlan): { sq: Subquery; input: LogicalPlan } {
  if (!sq.operands.some(hasSubquery)) return { sq, input: input0 }
  let input = input0
  const operands = sq.operands.map((o) => {
    const r = replaceSubqueries(o, input)
    input = r.input
    return r.expr
  })
  return { sq: { ...sq, operands }, input }
}

function semiAntiJoin(input: LogicalPlan, sq: Subquery, anti: boolean): LogicalPlan {
  if (!correlated(sq.plan)) return uncorrelatedSemiAnti(input, { ...sq, plan: decorrelatePlan(sq.plan) }, anti)
  return viaFastPath(sq, (q) => correlatedSemiAnti(input, q, anti), (q) => domainSemiAnti(input, q, anti))
}

function uncorrelatedSemiAnti(input: LogicalPlan, sq: Subquery, anti: boolean): LogicalPlan {
  const nI = input.columns.length
  const columns = input.columns
  {
    const right = sq.plan
    if (sq.mode === 'exists') return { kind: 'join', joinType: anti ? 'anti' : 'semi', left: input, right, condition: undefined, nullAwareAnti: false, columns }
    const conds = sq.operands.map((o, i) => eq(o, col(nI + i, right.columns[i]!.type)))
    if (anti && conds.length > 1) throw unsupported('NOT IN with a row of several values')
    return { kind: 'join', joinType: anti ? 'anti' : 'semi', left: input, right, condition: conjoin(conds), nullAwareAnti: anti, columns }
  }
}

function correlatedSemiAnti(input: LogicalPlan, sq: Subquery, anti: boolean): LogicalPlan {
  const nI = input.columns.length
  const columns = input.columns
  const c = pullCorrelation(sq.plan, input)
  if (c.above.some((n) => n.kind === 'aggregate')) throw unsupported('EXISTS / IN over a correlated aggregate subquery')
  // rows of the subquery before its final projection: base columns; the IN operand compares
  // with the projection's first output, re-expressed over the base
  const conds: ScalarExpr[] = c.outer.map((o, i) => eq(o, shift(c.inner[i]!, nI)))
  let right = c.base
  if (sq.mode === 'in') {
    if (anti) throw unsupported('a correlated NOT IN subquery (use NOT EXISTS)')
    const projected = reapply(c.base, c.above)
    // join on the base, extended with the projected columns
    const width = c.base.columns.length
    const ext: LogicalPlan = {
      kind: 'project',
      input: projected === c.base ? c.base : c.base,
      exprs: [...c.base.columns.map((cc, i) => col(i, cc.type)), ...projectionOver(c.above, c.base)],
      columns: [...c.base.columns, ...projected.columns.map((cc, i) => ({ name: `__in${i}`, type: cc.type }))],
    }
    right = ext
    sq.operands.forEach((o, i) => conds.push(eq(o, col(nI + width + i, projected.columns[i]!.type))))
  }
  return { kind: 'join', joinType: anti ? 'anti' : 'semi', left: input, right, condition: conjoin(conds), nullAwareAnti: false, columns }
}

/** The final projection of a plain correlated subquery, expressed over its base columns. */
function projectionOver(above: readonly LogicalPlan[], base: LogicalPlan): ScalarExpr[] {
  let exprs: ScalarExpr[] = base.columns.map((c, i) => col(i, c.type))
  for (let i = above.length - 1; i >= 0; i--) {
    const n = above[i]!
    if (n.kind === 'project') exprs = n.exprs.map((e) => mapExpr(e, (x) => (x.kind === 'column' ? exprs[x.index]! : x)))
    else if (n.kind === 'filter') throw unsupported('a filter above the correlated WHERE clause of an IN subquery')
  }
  return exprs
}

/** Replaces scalar / EXISTS subqueries inside `e` with columns of joins added to `input`. */
function replaceSubqueries(e: ScalarExpr, input0: LogicalPlan): { expr: ScalarExpr; input: LogicalPlan } {
  let input = input0
  const walk = (x: ScalarExpr): ScalarExpr => {
    if (x.kind === 'subquery') {
      if (x.mode === 'in') {
        const o = replaceInOperands(x, input)
        input = o.input
        const r = inAsValue(input, o.sq)
        input = r.input
        return r.expr
      }
      const r = scalarJoin(input, x)
      input = r.input
      return r.expr
    }
    if (exprChildren(x).length === 0) return x
    return mapChildren(x, walk)
  }
  const expr = walk(e)
  return { expr, input }
}


const EMPTY_VALUE: Partial<Record<AggregateCall['fn'], unknown>> = { count_rows: 0, count: 0, count_distinct: 0 }

function scalarJoin(input: LogicalPlan, sq0: Subquery): { expr: ScalarExpr; input: LogicalPlan } {
  const nI = input.columns.length
  if (!correlated(sq0.plan)) {
    const sq = { ...sq0, plan: decorrelatePlan(sq0.plan) }
    // one row always: a global aggregate over the subquery
    const agg: AggregateCall = sq.mode === 'exists'
      ? { fn: 'count_rows', args: [], orderBy: [], filter: undefined, type: 'bigint' }
      : { fn: 'single_value', args: [col(0, sq.plan.columns[0]!.type)], orderBy: [], filter: undefined, type: sq.type }
    const g: LogicalPlan = { kind: 'aggregate', input: sq.plan, groupBy: [], aggregates: [agg], global: true, columns: [{ name: '__sub', type: agg.type }] }
    const joined: LogicalPlan = { kind: 'join', joinType: 'inner', left: input, right: g, condition: undefined, nullAwareAnti: false, columns: [...input.columns, ...g.columns] }
    const v = col(nI, agg.type)
    return { expr: sq.mode === 'exists' ? { kind: 'call', fn: 'gt', args: [v, lit(0, 'bigint')], type: 'boolean' } : v, input: joined }
  }
  return viaFastPath(sq0, (q) => correlatedScalarJoin(input, q), (q) => domainScalarJoin(input, q))
}

function correlatedScalarJoin(input: LogicalPlan, sq: Subquery): { expr: ScalarExpr; input: LogicalPlan } {
  const nI = input.columns.length
  const c = pullCorrelation(sq.plan, input)
  const m = c.inner.length
  const keyCols: Column[] = c.inner.map((e, i) => ({ name: `__key${i}`, type: e.type }))
  let grouped: LogicalPlan
  let value: ScalarExpr
  const aggIndex = c.above.findIndex((n) => n.kind === 'aggregate')
  if (sq.mode === 'exists' || aggIndex < 0) {
    // plain subquery: count (EXISTS) or single_value of its projected value, per key
    const agg: AggregateCall = sq.mode === 'exists'
      ? { fn: 'count_rows', args: [], orderBy: [], filter: undefined, type: 'bigint' }
      : { fn: 'single_value', args: [projectionOver(c.above, c.base)[0]!], orderBy: [], filter: undefined, type: sq.type }
    grouped = { kind: 'aggregate', input: c.base, groupBy: c.inner, aggregates: [agg], global: false, columns: [...keyCols, { name: '__sub', type: agg.type }] }
    const v = col(nI + m, agg.type)
    value = sq.mode === 'exists' ? { kind: 'call', fn: 'gt', args: [{ kind: 'coalesce', args: [v, lit(0, 'bigint')], type: 'bigint' }, lit(0, 'bigint')], type: 'boolean' } : v
  } else {
    // aggregate subquery: group its aggregate by the correlation keys
    const aggNode = c.above[aggIndex] as Extract<LogicalPlan, { kind: 'aggregate' }>
    if (aggNode.groupBy.length > 0) throw unsupported('a correlated scalar subquery with GROUP BY')
    const between = c.above.slice(aggIndex + 1)
    if (between.length > 0) throw unsupported('a correlated scalar subquery with a filter below its aggregate')
    const outerNodes = c.above.slice(0, aggIndex)
    if (outerNodes.some((n) => n.kind !== 'project')) throw unsupported('a correlated scalar subquery with HAVING')
    grouped = { kind: 'aggregate', input: c.base, groupBy: c.inner, aggregates: aggNode.aggregates, global: false, columns: [...keyCols, ...aggNode.columns] }
    // the projections above the aggregate, over (outer ++ keys ++ aggregates), with COUNTs
    // of missing groups coalesced to 0
    let exprs: ScalarExpr[] = aggNode.aggregates.map((a, i) => {
      const ref = col(nI + m + i, a.type)
      const empty = EMPTY_VALUE[a.fn]
      return empty === undefined ? ref : { kind: 'coalesce', args: [ref, lit(empty, a.type)], type: a.type }
    })
    for (let i = outerNodes.length - 1; i >= 0; i--) {
      const n = outerNodes[i] as Extract<LogicalPlan, { kind: 'project' }>
      const cur = exprs
      exprs = n.exprs.map((e) => mapExpr(e, (x) => (x.kind === 'column' ? cur[x.index]! : x)))
    }
    value = exprs[0]!
  }
  const cond = conjoin(c.outer.map((o, i) => eq(o, col(nI + i, c.inner[i]!.type))))
  const joined: LogicalPlan = { kind: 'join', joinType: 'left', left: input, right: grouped, condition: cond, nullAwareAnti: false, columns: [...input.columns, ...grouped.columns] }
  return { expr: value, input: joined }
}

/** `x IN (S)` as a three-valued value (outside a top-level WHERE conjunct), S uncorrelated:
 *  TRUE when x matches a value of S; else FALSE when S is empty; else NULL when x is NULL or
 *  S holds a NULL; else FALSE. Left join with DISTINCT non-NULL values of S for the match,
 *  cross join with S's row and non-NULL counts for the rest. */
function inAsValue(input: LogicalPlan, sq: Subquery): { expr: ScalarExpr; input: LogicalPlan } {
  if (sq.operands.length !== 1) throw unsupported('IN with a row of several values outside a top-level WHERE condition')
  if (correlated(sq.plan)) return viaFastPath(sq, (q) => domainInAsValue(input, q), (q) => domainInAsValue(input, q))
  const operand = sq.operands[0]!
  const s = decorrelatePlan(sq.plan)
  const c0 = s.columns[0]!
  const nonNull: LogicalPlan = { kind: 'filter', input: s, predicate: { kind: 'isNull', arg: col(0, c0.type), negated: true, type: 'boolean' }, columns: s.columns }
  const values: LogicalPlan = { kind: 'distinct', input: { kind: 'project', input: nonNull, exprs: [col(0, c0.type)], columns: [c0] }, columns: [c0] }
  const nI = input.columns.length
  const matched: LogicalPlan = { kind: 'join', joinType: 'left', left: input, right: values, condition: eq(operand, col(nI, c0.type)), nullAwareAnti: false, columns: [...input.columns, c0] }
  const stats: LogicalPlan = {
    kind: 'aggregate',
    input: s,
    groupBy: [],
    aggregates: [
      { fn: 'count_rows', args: [], orderBy: [], filter: undefined, type: 'bigint' },
      { fn: 'count', args: [col(0, c0.type)], orderBy: [], filter: undefined, type: 'bigint' },
    ],
    global: true,
    columns: [{ name: '__rows', type: 'bigint' }, { name: '__nonnull', type: 'bigint' }],
  }
  const joined: LogicalPlan = { kind: 'join', joinType: 'inner', left: matched, right: stats, condition: undefined, nullAwareAnti: false, columns: [...matched.columns, ...stats.columns] }
  const rows = col(nI + 1, 'bigint')
  const nonnull = col(nI + 2, 'bigint')
  const expr: ScalarExpr = {
    kind: 'case',
    whens: [
      { when: { kind: 'isNull', arg: col(nI, c0.type), negated: true, type: 'boolean' }, then: lit(true, 'boolean') },
      { when: eq(rows, lit(0, 'bigint')), then: lit(false, 'boolean') },
      { when: { kind: 'or', args: [{ kind: 'isNull', arg: operand, negated: false, type: 'boolean' }, { kind: 'call', fn: 'gt', args: [rows, nonnull], type: 'boolean' }], type: 'boolean' }, then: lit(null, 'boolean') },
    ],
    else: lit(false, 'boolean'),
    type: 'boolean',
  }
  return { expr, input: joined }
}

// ------------------------------------------------------------- the domain of outer values

/** D = DISTINCT(the outer columns a subquery uses, from any depth inside it). */
interface Domain {
  /** Outer-row column positions, ascending; D's column j is outer column qIdx[j]. */
  readonly qIdx: readonly number[]
  readonly pos: ReadonlyMap<number, number>
  readonly plan: LogicalPlan
  readonly columns: readonly Column[]
}

function domainOf(sub: LogicalPlan, input: LogicalPlan): Domain {
  const used = new Set<number>()
  const collect = (p: LogicalPlan, depth: number): void => {
    for (const e of nodeExprs(p)) visitExpr(e, (x) => {
      if (x.kind === 'outerColumn' && x.depth === depth) used.add(x.index)
      if (x.kind === 'subquery') collect(x.plan, depth + 1)
    })
    for (const c of children(p)) collect(c, depth)
  }
  collect(sub, 1)
  const qIdx = [...used].sort((a, b) => a - b)
  const columns = qIdx.map((i, k) => ({ name: `__outer${k}`, type: input.columns[i]!.type }))
  const proj: LogicalPlan = { kind: 'project', input, exprs: qIdx.map((i) => col(i, input.columns[i]!.type)), columns }
  return { qIdx, pos: new Map(qIdx.map((q, j) => [q, j])), plan: { kind: 'distinct', input: proj, columns }, columns }
}

/** Whether a plan (at nesting `depth` below the subquery's top) reads the outer query. */
function readsOuter(p: LogicalPlan, depth = 1): boolean {
  return nodeExprs(p).some((e) => exprReadsOuter(e, depth)) || children(p).some((c) => readsOuter(c, depth))
}

function exprReadsOuter(e: ScalarExpr, depth = 1): boolean {
  let found = false
  visitExpr(e, (x) => {
    if (x.kind === 'outerColumn' && x.depth === depth) found = true
    if (x.kind === 'subquery' && readsOuter(x.plan, depth + 1)) found = true
  })
  return found
}

/** An expression of a subquery node whose input row has D's columns at `off`…: outer
 *  references read them (from nested subqueries: one level less far out). */
function substOuter(e: ScalarExpr, off: number, d: Domain): ScalarExpr {
  return mapExpr(e, (x) => {
    if (x.kind === 'outerColumn' && x.depth === 1) return col(off + d.pos.get(x.index)!, x.type)
    if (x.kind === 'subquery') return { ...x, plan: mapOuterRefs(x.plan, 2, (r) => ({ kind: 'outerColumn', depth: r.depth - 1, index: off + d.pos.get(r.index)!, type: r.type })) }
    return x
  })
}

function dCols(off: number, d: Domain): ScalarExpr[] {
  return d.columns.map((c, j) => col(off + j, c.type))
}

function project(input: LogicalPlan, exprs: readonly ScalarExpr[], columns: readonly Column[]): LogicalPlan {
  return { kind: 'project', input, exprs, columns }
}

function cross(left: LogicalPlan, right: LogicalPlan): LogicalPlan {
  return { kind: 'join', joinType: 'inner', left, right, condition: undefined, nullAwareAnti: false, columns: [...left.columns, ...right.columns] }
}

/** `p` evaluated once per row of D: p's columns, then D's, with every outer reference
 *  reading D's columns. */
function pushDomain(p: LogicalPlan, d: Domain): LogicalPlan {
  if (!readsOuter(p)) return cross(p, d.plan)
  const nD = d.columns.length
  const outCols = [...p.columns, ...d.columns]
  switch (p.kind) {
    case 'filter': {
      const input = pushDomain(p.input, d)
      return { kind: 'filter', input, predicate: substOuter(p.predicate, p.input.columns.length, d), columns: input.columns }
    }
    case 'project': {
      const iw = p.input.columns.length
      const input = pushDomain(p.input, d)
      return project(input, [...p.exprs.map((e) => substOuter(e, iw, d)), ...dCols(iw, d)], outCols)
    }
    case 'unnest': {
      // the element after the input's and D's columns: moved back before D's
      const iw = p.input.columns.length
      const input = pushDomain(p.input, d)
      const elem = p.columns[iw]!
      const u: LogicalPlan = { kind: 'unnest', input, array: substOuter(p.array, iw, d), columns: [...input.columns, elem], ...(p.padded ? { padded: true } : {}) }
      return project(u, [...p.input.columns.map((c, i) => col(i, c.type)), col(iw + nD, elem.type), ...dCols(iw, d)], outCols)
    }
    case 'sort': {
      const iw = p.input.columns.length
      const input = pushDomain(p.input, d)
      return { kind: 'sort', input, orderBy: p.orderBy.map((k) => ({ ...k, expr: substOuter(k.expr, iw, d) })), columns: input.columns }
    }
    case 'topK': {
      if (p.rowNumber) throw unsupported('a correlated subquery with ROW_NUMBER()')
      const iw = p.input.columns.length
      const input = pushDomain(p.input, d)
      return { ...p, input, partitionBy: [...p.partitionBy, ...d.columns.map((_, j) => iw + j)], orderBy: p.orderBy.map((k) => ({ ...k, expr: substOuter(k.expr, iw, d) })), columns: input.columns }
    }
    case 'distinct': {
      const input = pushDomain(p.input, d)
      return { kind: 'distinct', input, columns: input.columns }
    }
    case 'union':
      return { kind: 'union', inputs: p.inputs.map((i) => pushDomain(i, d)), columns: outCols }
    case 'setOp':
      return { ...p, left: pushDomain(p.left, d), right: pushDomain(p.right, d), columns: outCols }
    case 'values': {
      // one projection of D per row
      const rows = p.rows.map((r) => project(d.plan, [...r.map((e) => substOuter(e, 0, d)), ...dCols(0, d)], outCols))
      return rows.length === 1 ? rows[0]! : { kind: 'union', inputs: rows, columns: outCols }
    }
    case 'aggregate': {
      const iw = p.input.columns.length
      const input = pushDomain(p.input, d)
      const ng = p.groupBy.length
      const aggCols = p.columns.slice(ng)
      if (!p.global) {
        const sub = (e: ScalarExpr) => substOuter(e, iw, d)
        const agg: LogicalPlan = {
          kind: 'aggregate',
          input,
          groupBy: [...p.groupBy.map(sub), ...dCols(iw, d)],
          aggregates: p.aggregates.map((a) => ({ ...a, args: a.args.map(sub), filter: a.filter ? sub(a.filter) : undefined, orderBy: a.orderBy.map((k) => ({ ...k, expr: sub(k.expr) })) })),
          global: false,
          columns: [...p.columns.slice(0, ng), ...d.columns, ...aggCols],
        }
        const exprs = [...p.columns.slice(0, ng).map((c, i) => col(i, c.type)), ...aggCols.map((c, i) => col(ng + nD + i, c.type)), ...dCols(ng, d)]
        return project(agg, exprs, outCols)
      }
      // one row per D value even where the input has none: D LEFT JOIN (input, marker),
      // every aggregate filtered on the marker
      const marked = project(input, [...input.columns.map((c, i) => col(i, c.type)), lit(true, 'boolean')], [...input.columns, { name: '__matched', type: 'boolean' }])
      const lj: LogicalPlan = {
        kind: 'join',
        joinType: 'left',
        left: d.plan,
        right: marked,
        condition: eq(nullSafeKey(dCols(0, d)), nullSafeKey(dCols(nD + iw, d))),
        nullAwareAnti: false,
        columns: [...d.columns, ...marked.columns],
      }
      const m = col(nD + iw + nD, 'boolean')
      // the input's columns now come after D's: shifted (for nested subqueries too) before
      // the outer references are turned into D's columns at 0…
      const sub = (e: ScalarExpr) => substOuter(shift(e, nD), 0, d)
      const agg: LogicalPlan = {
        kind: 'aggregate',
        input: lj,
        groupBy: dCols(0, d),
        aggregates: p.aggregates.map((a) => ({ ...a, args: a.args.map(sub), filter: a.filter ? { kind: 'and', args: [sub(a.filter), m], type: 'boolean' } : m, orderBy: a.orderBy.map((k) => ({ ...k, expr: sub(k.expr) })) })),
        global: false,
        columns: [...d.columns, ...aggCols],
      }
      return project(agg, [...aggCols.map((c, i) => col(nD + i, c.type)), ...dCols(0, d)], outCols)
    }
    case 'join': {
      const t = p.joinType
      if (t === 'full') throw unsupported('a correlated subquery with FULL JOIN')
      const lr = readsOuter(p.left)
      const rr = readsOuter(p.right)
      if (p.nullAwareAnti && rr) throw unsupported('a correlated NOT IN nested in a correlated subquery')
      const pushL = t !== 'right' || lr
      const pushR = t === 'right' || rr
      const nl = p.left.columns.length
      const nr = p.right.columns.length
      const left = pushL ? pushDomain(p.left, d) : p.left
      const right = pushR ? pushDomain(p.right, d) : p.right
      const nl2 = left.columns.length
      const dAt = pushL ? nl : nl2 + nr
      const conds: ScalarExpr[] = []
      // the right side's columns move from nl to nl2 (after D's when the left side carries
      // them), for the condition's subqueries too
      if (p.condition) conds.push(substOuter(remapRow(p.condition, (i) => (i >= nl ? i - nl + nl2 : i)), dAt, d))
      if (pushL && pushR) conds.push(eq(nullSafeKey(dCols(nl, d)), nullSafeKey(dCols(nl2 + nr, d))))
      const j: LogicalPlan = { kind: 'join', joinType: t, left, right, condition: conjoin(conds), nullAwareAnti: p.nullAwareAnti, columns: t === 'semi' || t === 'anti' ? left.columns : [...left.columns, ...right.columns] }
      if (t === 'semi' || t === 'anti') return j
      const from = t === 'right' ? nl2 + nr : dAt
      return project(j, [...p.left.columns.map((c, i) => col(i, c.type)), ...p.right.columns.map((c, i) => col(nl2 + i, c.type)), ...dCols(from, d)], outCols)
    }
    default:
      throw unsupported(`a correlated subquery over ${p.kind === 'window' ? 'a window function table' : p.kind === 'over' ? 'window functions' : 'a time join'}`)
  }
}

/** The subquery per D value, uncorrelated and decorrelated inside: its columns, then D's. */
function domainSubquery(sq: Subquery, input: LogicalPlan): { d: Domain; s: LogicalPlan; outerKey: ScalarExpr; innerKey: (off: number) => ScalarExpr } {
  const base = domainBase !== undefined && domainBase.columns.length <= input.columns.length ? domainBase : input
  const d = domainOf(sq.plan, base)
  const s = decorrelatePlan(pushDomain(sq.plan, d))
  if (treeSize(s) + treeSize(input) > MAX_DECORRELATED_SIZE) throw unsupported(`correlated subqueries nested this deeply (over ${MAX_DECORRELATED_SIZE} operators once decorrelated)`)
  const ns = sq.plan.columns.length
  return {
    d,
    s,
    outerKey: nullSafeKey(d.qIdx.map((i) => col(i, input.columns[i]!.type))),
    innerKey: (off) => nullSafeKey(dCols(off + ns, d)),
  }
}

function domainSemiAnti(input: LogicalPlan, sq: Subquery, anti: boolean): LogicalPlan {
  if (anti && sq.mode === 'in') {
    // NOT IN: keep the rows whose IN is FALSE
    if (sq.operands.length !== 1) throw unsupported('a correlated NOT IN with a row of several values')
    const r = domainInAsValue(input, sq)
    return { kind: 'filter', input: r.input, predicate: { kind: 'not', arg: r.expr, type: 'boolean' }, columns: r.input.columns }
  }
  const nI = input.columns.length
  const { s, outerKey, innerKey } = domainSubquery(sq, input)
  const conds = [eq(outerKey, innerKey(nI))]
  if (sq.mode === 'in') sq.operands.forEach((o, i) => conds.push(eq(o, col(nI + i, s.columns[i]!.type))))
  return { kind: 'join', joinType: anti ? 'anti' : 'semi', left: input, right: s, condition: conjoin(conds), nullAwareAnti: false, columns: input.columns }
}

function domainScalarJoin(input: LogicalPlan, sq: Subquery): { expr: ScalarExpr; input: LogicalPlan } {
  const nI = input.columns.length
  const { s, outerKey, innerKey } = domainSubquery(sq, input)
  const agg: AggregateCall = sq.mode === 'exists'
    ? { fn: 'count_rows', args: [], orderBy: [], filter: undefined, type: 'bigint' }
    : { fn: 'single_value', args: [col(0, s.columns[0]!.type)], orderBy: [], filter: undefined, type: sq.type }
  const grouped: LogicalPlan = { kind: 'aggregate', input: s, groupBy: [innerKey(0)], aggregates: [agg], global: false, columns: [{ name: '__key0', type: 'text' }, { name: '__sub', type: agg.type }] }
  const joined: LogicalPlan = { kind: 'join', joinType: 'left', left: input, right: grouped, condition: eq(outerKey, col(nI, 'text')), nullAwareAnti: false, columns: [...input.columns, ...grouped.columns] }
  const v = col(nI + 1, agg.type)
  const expr: ScalarExpr = sq.mode === 'exists' ? { kind: 'call', fn: 'gt', args: [{ kind: 'coalesce', args: [v, lit(0, 'bigint')], type: 'bigint' }, lit(0, 'bigint')], type: 'boolean' } : v
  return { expr, input: joined }
}

/** Correlated `x IN (S)` as a three-valued value: inAsValue's CASE, per D value. */
function domainInAsValue(input: LogicalPlan, sq: Subquery): { expr: ScalarExpr; input: LogicalPlan } {
  const nI = input.columns.length
  const { s, outerKey, innerKey } = domainSubquery(sq, input)
  const operand = sq.operands[0]!
  const c0 = s.columns[0]!
  const nonNull: LogicalPlan = { kind: 'filter', input: s, predicate: { kind: 'isNull', arg: col(0, c0.type), negated: true, type: 'boolean' }, columns: s.columns }
  const kv: Column[] = [{ name: '__key0', type: 'text' }, c0]
  const values: LogicalPlan = { kind: 'distinct', input: project(nonNull, [innerKey(0), col(0, c0.type)], kv), columns: kv }
  const matched: LogicalPlan = { kind: 'join', joinType: 'left', left: input, right: values, condition: conjoin([eq(outerKey, col(nI, 'text')), eq(operand, col(nI + 1, c0.type))]), nullAwareAnti: false, columns: [...input.columns, ...kv] }
  const stats: LogicalPlan = {
    kind: 'aggregate',
    input: s,
    groupBy: [innerKey(0)],
    aggregates: [
      { fn: 'count_rows', args: [], orderBy: [], filter: undefined, type: 'bigint' },
      { fn: 'count', args: [col(0, c0.type)], orderBy: [], filter: undefined, type: 'bigint' },
    ],
    global: false,
    columns: [{ name: '__key1', type: 'text' }, { name: '__rows', type: 'bigint' }, { name: '__nonnull', type: 'bigint' }],
  }
  const joined: LogicalPlan = { kind: 'join', joinType: 'left', left: matched, right: stats, condition: eq(outerKey, col(nI + 2, 'text')), nullAwareAnti: false, columns: [...matched.columns, ...stats.columns] }
  const rows: ScalarExpr = { kind: 'coalesce', args: [col(nI + 3, 'bigint'), lit(0, 'bigint')], type: 'bigint' }
  const nonnull: ScalarExpr = { kind: 'coalesce', args: [col(nI + 4, 'bigint'), lit(0, 'bigint')], type: 'bigint' }
  const expr: ScalarExpr = {
    kind: 'case',
    whens: [
      { when: { kind: 'isNull', arg: col(nI + 1, c0.type), negated: true, type: 'boolean' }, then: lit(true, 'boolean') },
      { when: eq(rows, lit(0, 'bigint')), then: lit(false, 'boolean') },
      { when: { kind: 'or', args: [{ kind: 'isNull', arg: operand, negated: false, type: 'boolean' }, { kind: 'call', fn: 'gt', args: [rows, nonnull], type: 'boolean' }], type: 'boolean' }, then: lit(null, 'boolean') },
    ],
    else: lit(false, 'boolean'),
    type: 'boolean',
  }
  return { expr, input: joined }
}
