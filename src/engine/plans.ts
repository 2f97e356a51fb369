// What the engine reads off a logical or delta plan: the relations it scans, whether it has a
// temporal filter, whether it reads the system catalog, the output columns that are GROUP BY keys.

import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import { deltaChildren, visitExpr, children, type DeltaPlan, type LogicalPlan, type ScalarExpr } from '../../planner/index.js'
import type { StatementContext } from './internals.js'

/** Views and sinks are kept up to date by the dataflow; the system relations are computed
 *  when read, and nothing tells a view when they change: such views are refused (0A000). */
export function refuseSystemRelations(plan: LogicalPlan, what: string, ctx: StatementContext, at: number): void {
  let found: string | undefined
  const walk = (p: LogicalPlan): void => {
    if (found) return
    if (p.kind === 'values' && p.systemRelation !== undefined) found = p.systemRelation
    for (const c of children(p)) walk(c)
    visitPlanExprs(p, walk)
  }
  walk(plan)
  if (found) throw new RivuletError(SqlState.featureNotSupported, `${what} cannot read the system catalog ${found}: it is computed when read, not maintained`, positionAt(ctx.text, at))
}
/** Calls `f` on the plans of the subqueries in `p`'s expressions (before decorrelation). */
function visitPlanExprs(p: LogicalPlan, f: (q: LogicalPlan) => void): void {
  const seen = (e: ScalarExpr): void =>
    visitExpr(e, (x) => {
      if (x.kind === 'subquery') f(x.plan)
    })
  for (const key of Object.keys(p) as (keyof LogicalPlan)[]) {
    const v: unknown = p[key]
    const exprs = Array.isArray(v) ? v : [v]
    for (const e of exprs) if (typeof e === 'object' && e !== null && typeof (e as { kind?: unknown }).kind === 'string' && isScalar(e)) seen(e as ScalarExpr)
  }
}
function isScalar(e: object): boolean {
  return 'type' in e && !('columns' in e)
}
export function hasTemporalFilter(p: DeltaPlan): boolean {
  return p.kind === 'temporalFilter' || deltaChildren(p).some(hasTemporalFilter)
}
export function scannedRelations(p: LogicalPlan): Set<string> {
  const out = new Set<string>()
  const walk = (x: LogicalPlan): void => {
    if (x.kind === 'scan') out.add(x.relation)
    const exprs: ScalarExpr[] = []
    switch (x.kind) {
      case 'filter':
        exprs.push(x.predicate)
        break
      case 'project':
        exprs.push(...x.exprs)
        break
      case 'join':
        if (x.condition) exprs.push(x.condition)
        break
      case 'timeJoin':
        if (x.residual) exprs.push(x.residual)
        break
    }
    for (const e of exprs) visitExpr(e, (y) => {
      if (y.kind === 'subquery') walk(y.plan)
    })
    switch (x.kind) {
      case 'scan':
      case 'values':
        break
      case 'join':
      case 'setOp':
      case 'timeJoin':
        walk(x.left)
        walk(x.right)
        break
      case 'union':
        x.inputs.forEach(walk)
        break
      default:
        walk(x.input)
    }
  }
  walk(p)
  return out
}

/** The output columns that are a query's GROUP BY keys, when its result is one row per group:
 *  through projections that pass the keys on and filters (HAVING); undefined otherwise. */
export function groupKeyColumns(plan: LogicalPlan): number[] | undefined {
  if (plan.kind === 'aggregate') return plan.global ? undefined : plan.groupBy.map((_, i) => i)
  if (plan.kind === 'filter') return groupKeyColumns(plan.input)
  if (plan.kind !== 'project') return undefined
  const inner = groupKeyColumns(plan.input)
  if (inner === undefined) return undefined
  const out: number[] = []
  for (const k of inner) {
    const at = plan.exprs.findIndex((e) => e.kind === 'column' && e.index === k)
    if (at < 0) return undefined
    out.push(at)
  }
  return out
}
