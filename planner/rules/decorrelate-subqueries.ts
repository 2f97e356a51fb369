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
// Anything else (correlation that is not an equality, correlation deeper than one level,
// IN outside a top-level conjunct) is reported as not supported.

import type { ScalarExpr } from '../expr/scalar.js'
import { col, lit, nullSafeKey } from '../expr/scalar.js'
import type { AggregateCall, Column, LogicalPlan } from '../logical/plan.js'
import { children, conjoin, conjuncts, exprChildren, hasSubquery, mapChildren, mapExpr, transformUp, visitExpr, withChildren } from '../logical/tree.js'
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
    case 'filter':
      return [p.predicate]
    case 'project':
      return p.exprs
    case 'join':
      return p.condition ? [p.condition] : []
    case 'aggregate':
      return [...p.groupBy, ...p.aggregates.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : [])])]
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

function planHasSubquery(p: LogicalPlan): boolean {
  if (nodeHasSubquery(p)) return true
  return children(p).some(planHasSubquery)
}

function rewriteNode(p: LogicalPlan): LogicalPlan | undefined {
  if (!nodeHasSubquery(p)) return undefined
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
    default:
      throw unsupported(`a subquery in ${p.kind === 'join' ? 'a JOIN condition' : p.kind === 'aggregate' ? 'an aggregate argument or GROUP BY' : 'this position'}`)
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
      current = semiAntiJoin(current, sq, negated)
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
  return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: x.index + by } : x))
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

function semiAntiJoin(input: LogicalPlan, sq: Extract<ScalarExpr, { kind: 'subquery' }>, anti: boolean): LogicalPlan {
  const nI = input.columns.length
  const columns = input.columns
  if (!outerRefs(sq.plan)) {
    const right = sq.plan
    if (sq.mode === 'exists') return { kind: 'join', joinType: anti ? 'anti' : 'semi', left: input, right, condition: undefined, nullAwareAnti: false, columns }
    const conds = sq.operands.map((o, i) => eq(o, col(nI + i, right.columns[i]!.type)))
    if (anti && conds.length > 1) throw unsupported('NOT IN with a row of several values')
    return { kind: 'join', joinType: anti ? 'anti' : 'semi', left: input, right, condition: conjoin(conds), nullAwareAnti: anti, columns }
  }
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
        const r = inAsValue(input, x)
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

function scalarJoin(input: LogicalPlan, sq: Extract<ScalarExpr, { kind: 'subquery' }>): { expr: ScalarExpr; input: LogicalPlan } {
  const nI = input.columns.length
  if (!outerRefs(sq.plan)) {
    // one row always: a global aggregate over the subquery
    const agg: AggregateCall = sq.mode === 'exists'
      ? { fn: 'count_rows', args: [], orderBy: [], filter: undefined, type: 'bigint' }
      : { fn: 'single_value', args: [col(0, sq.plan.columns[0]!.type)], orderBy: [], filter: undefined, type: sq.type }
    const g: LogicalPlan = { kind: 'aggregate', input: sq.plan, groupBy: [], aggregates: [agg], global: true, columns: [{ name: '__sub', type: agg.type }] }
    const joined: LogicalPlan = { kind: 'join', joinType: 'inner', left: input, right: g, condition: undefined, nullAwareAnti: false, columns: [...input.columns, ...g.columns] }
    const v = col(nI, agg.type)
    return { expr: sq.mode === 'exists' ? { kind: 'call', fn: 'gt', args: [v, lit(0, 'bigint')], type: 'boolean' } : v, input: joined }
  }
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
function inAsValue(input: LogicalPlan, sq: Extract<ScalarExpr, { kind: 'subquery' }>): { expr: ScalarExpr; input: LogicalPlan } {
  if (outerRefs(sq.plan)) throw unsupported('a correlated IN (subquery) outside a top-level WHERE condition')
  if (sq.operands.length !== 1) throw unsupported('IN with a row of several values outside a top-level WHERE condition')
  const operand = sq.operands[0]!
  const s = sq.plan
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
