// prune-columns (projection pruning): a join keeps both inputs in arrangements, so every
// column it does not need costs memory per row (except for bare table scans, whose row
// objects the arrangement shares with the table). When a Project or an Aggregate reads a Join,
// each join input is narrowed to the columns the consumer and the join condition use.
//   Project(exprs, Join(L, R, cond))   → Project(exprs', Join(Project(L, used), Project(R, used), cond'))
//   Aggregate(…, Join(L, R, cond))     → likewise
// semi/anti joins output only L, so only R is narrowed by the condition.
// A Project over an Aggregate drops the aggregates it does not read (as PostgreSQL computes
// only the aggregates its target list and HAVING still hold after constant folding: in
// `CASE WHEN <constant FALSE> THEN avg(1 / 0) END` the average is never computed); a global
// aggregate keeps one count so it still has its one row.

import type { ScalarExpr } from '../expr/scalar.js'
import { col } from '../expr/scalar.js'
import type { AggregateCall, JoinNode, LogicalPlan } from '../logical/plan.js'
import { hasSubquery, referencedColumns, remapColumns, transformDown } from '../logical/tree.js'
import type { Rule } from './rule.js'

export const pruneColumns: Rule = {
  name: 'prune-columns',
  apply(plan) {
    let changed = false
    const out = transformDown(plan, (p) => {
      if (p.kind === 'project' && p.input.kind === 'aggregate') {
        const r = unusedAggregates(p, p.input)
        if (r) changed = true
        return r
      }
      if ((p.kind !== 'project' && p.kind !== 'aggregate') || p.input.kind !== 'join') return undefined
      const exprs = consumerExprs(p)
      if (exprs.some(hasSubquery)) return undefined
      const used = new Set<number>()
      for (const e of exprs) referencedColumns(e, used)
      const r = narrowJoin(p.input, used)
      if (!r) return undefined
      changed = true
      return withRemapped(p, r.join, r.map)
    })
    return changed ? out : undefined
  },
}

function unusedAggregates(p: Extract<LogicalPlan, { kind: 'project' }>, a: Extract<LogicalPlan, { kind: 'aggregate' }>): LogicalPlan | undefined {
  if (p.exprs.some(hasSubquery)) return undefined
  const used = new Set<number>()
  for (const e of p.exprs) referencedColumns(e, used)
  const ng = a.groupBy.length
  const keep = a.aggregates.map((_, i) => i).filter((i) => used.has(ng + i))
  if (keep.length === a.aggregates.length) return undefined
  let aggregates = keep.map((i) => a.aggregates[i]!)
  let aggColumns = keep.map((i) => a.columns[ng + i]!)
  if (aggregates.length === 0 && a.global) {
    // one row all the same: a plain count, which cannot raise
    if (a.aggregates.length === 1 && a.aggregates[0]!.fn === 'count_rows' && !a.aggregates[0]!.filter) return undefined
    aggregates = [{ fn: 'count_rows', args: [], orderBy: [], filter: undefined, type: 'bigint' }]
    aggColumns = [{ name: '__rows', type: 'bigint' }]
  }
  const map = new Map<number, number>()
  for (let i = 0; i < ng; i++) map.set(i, i)
  keep.forEach((old, i) => map.set(ng + old, ng + i))
  const input: LogicalPlan = { ...a, aggregates, columns: [...a.columns.slice(0, ng), ...aggColumns] }
  return { ...p, input, exprs: p.exprs.map((e) => remapColumns(e, (i) => map.get(i)!)) }
}

function consumerExprs(p: LogicalPlan): ScalarExpr[] {
  if (p.kind === 'project') return [...p.exprs]
  if (p.kind === 'aggregate') return [...p.groupBy, ...p.aggregates.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : []), ...a.orderBy.map((k) => k.expr)])]
  return []
}

function withRemapped(p: LogicalPlan, input: LogicalPlan, map: Map<number, number>): LogicalPlan {
  const f = (e: ScalarExpr) => remapColumns(e, (i) => map.get(i)!)
  if (p.kind === 'project') return { ...p, input, exprs: p.exprs.map(f) }
  if (p.kind === 'aggregate') {
    const aggregates: AggregateCall[] = p.aggregates.map((a) => ({ ...a, args: a.args.map(f), filter: a.filter ? f(a.filter) : undefined, orderBy: a.orderBy.map((k) => ({ ...k, expr: f(k.expr) })) }))
    return { ...p, input, groupBy: p.groupBy.map(f), aggregates }
  }
  return p
}

function narrowJoin(j: JoinNode, used: Set<number>): { join: JoinNode; map: Map<number, number> } | undefined {
  const nl = j.left.columns.length
  const nr = j.right.columns.length
  const need = new Set(used)
  if (j.condition) {
    if (hasSubquery(j.condition)) return undefined
    referencedColumns(j.condition, need)
  }
  const semi = j.joinType === 'semi' || j.joinType === 'anti'
  // A bare scan is not narrowed: the table keeps its rows anyway, and an arrangement of the
  // scan shares those row objects, while a narrowing projection would copy every row.
  const keepL = semi || j.left.kind === 'scan' ? [...Array(nl).keys()] : [...Array(nl).keys()].filter((i) => need.has(i))
  const keepR = j.right.kind === 'scan' ? [...Array(nr).keys()] : [...Array(nr).keys()].filter((i) => need.has(nl + i))
  if (keepL.length === nl && keepR.length === nr) return undefined
  const side = (p: LogicalPlan, keep: number[]): LogicalPlan =>
    keep.length === p.columns.length ? p : { kind: 'project', input: p, exprs: keep.map((i) => col(i, p.columns[i]!.type)), columns: keep.map((i) => p.columns[i]!) }
  const map = new Map<number, number>()
  keepL.forEach((old, i) => map.set(old, i))
  keepR.forEach((old, i) => map.set(nl + old, keepL.length + i))
  const left = side(j.left, keepL)
  const right = side(j.right, keepR)
  const condition = j.condition ? remapColumns(j.condition, (i) => map.get(i)!) : undefined
  const columns = semi ? left.columns : [...left.columns, ...right.columns]
  return { join: { ...j, left, right, condition, columns }, map }
}
