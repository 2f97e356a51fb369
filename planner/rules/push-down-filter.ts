// push-down-filter: moves WHERE conjuncts as close to the inputs as they can go, so they run
// before joins and aggregates keep state, and so comma joins get their join keys:
//   Filter(Filter(x))           → one Filter
//   Filter(Project(x))          → Project(Filter(x)) with the projection substituted
//   Filter(Join inner/cross)    → one-sided conjuncts into the sides, the rest into ON
//   Filter(Join left/right)     → conjuncts on the preserved side into that side
//   Filter(Union / Distinct / Sort) → into the inputs
//   Filter(Aggregate)           → conjuncts on group columns only, below the aggregate
//   Filter(Unnest)              → conjuncts on the input's columns only, below the unnest (a
//                                 row it drops is never expanded: as in PostgreSQL, the WHERE
//                                 keeps `jsonb_each(payload)` from seeing a payload it rules out)
// Conjuncts with subqueries stay where they are (decorrelation runs first anyway).

import type { ScalarExpr } from '../expr/scalar.js'
import type { LogicalPlan } from '../logical/plan.js'
import { conjoin, conjuncts, hasSubquery, referencedColumns, remapColumns, substituteColumns, transformDown } from '../logical/tree.js'
import type { Rule } from './rule.js'

export const pushDownFilter: Rule = {
  name: 'push-down-filter',
  apply(plan) {
    let changed = false
    const out = transformDown(plan, (p) => {
      if (p.kind !== 'filter') return undefined
      const r = push(p.input, conjuncts(p.predicate))
      if (r) changed = true
      return r
    })
    return changed ? out : undefined
  },
}

function filter(input: LogicalPlan, preds: readonly ScalarExpr[]): LogicalPlan {
  const c = conjoin(preds)
  return c ? { kind: 'filter', input, predicate: c, columns: input.columns } : input
}

function push(input: LogicalPlan, preds: ScalarExpr[]): LogicalPlan | undefined {
  const movable = preds.filter((p) => !hasSubquery(p) && !isVolatile(p))
  const stay = preds.filter((p) => hasSubquery(p) || isVolatile(p))
  if (movable.length === 0) return undefined
  switch (input.kind) {
    case 'filter':
      return filter(input.input, [...conjuncts(input.predicate), ...preds])
    case 'project': {
      if (input.exprs.some((e) => hasSubquery(e) || isVolatile(e))) return undefined
      const below = movable.map((p) => substituteColumns(p, input.exprs))
      return filter({ ...input, input: filter(input.input, below) }, stay)
    }
    case 'join': {
      const nl = input.left.columns.length
      const left: ScalarExpr[] = []
      const right: ScalarExpr[] = []
      const on: ScalarExpr[] = []
      const keep: ScalarExpr[] = [...stay]
      const t = input.joinType
      for (const p of movable) {
        const refs = [...referencedColumns(p)]
        const usesL = refs.some((i) => i < nl)
        const usesR = refs.some((i) => i >= nl)
        if (!usesR && (t === 'inner' || t === 'left' || t === 'semi' || t === 'anti')) left.push(p)
        else if (!usesL && usesR && (t === 'inner' || t === 'right')) right.push(remapColumns(p, (i) => i - nl))
        else if (t === 'inner' && refs.length > 0) on.push(p)
        else keep.push(p)
      }
      if (left.length === 0 && right.length === 0 && on.length === 0) return undefined
      const condition = conjoin([...(input.condition ? conjuncts(input.condition) : []), ...on])
      const join: LogicalPlan = { ...input, left: filter(input.left, left), right: filter(input.right, right), condition }
      return filter(join, keep)
    }
    case 'union':
      return filter({ ...input, inputs: input.inputs.map((i) => filter(i, movable)) }, stay)
    case 'distinct':
    case 'sort':
      return filter({ ...input, input: filter(input.input, movable) }, stay)
    case 'aggregate': {
      const g = input.groupBy.length
      const below: ScalarExpr[] = []
      const keep: ScalarExpr[] = [...stay]
      for (const p of movable) {
        const refs = [...referencedColumns(p)]
        if (refs.length > 0 && refs.every((i) => i < g) && !input.global) below.push(substituteColumns(p, input.groupBy))
        else keep.push(p)
      }
      if (below.length === 0) return undefined
      return filter({ ...input, input: filter(input.input, below) }, keep)
    }
    case 'unnest': {
      const w = input.input.columns.length
      const below = movable.filter((p) => [...referencedColumns(p)].every((i) => i < w))
      if (below.length === 0) return undefined
      const keep = [...stay, ...movable.filter((p) => !below.includes(p))]
      return filter({ ...input, input: filter(input.input, below) }, keep)
    }
    default:
      return undefined
  }
}

const VOLATILE = new Set(['now', 'current_timestamp', 'localtimestamp', 'localtime', 'current_date', 'clock_timestamp', 'random', 'gen_random_uuid'])

function isVolatile(e: ScalarExpr): boolean {
  if (e.kind === 'call' && VOLATILE.has(e.fn)) return true
  switch (e.kind) {
    case 'call':
    case 'and':
    case 'or':
    case 'coalesce':
      return e.args.some(isVolatile)
    case 'not':
    case 'isNull':
    case 'cast':
      return isVolatile(e.arg)
    case 'case':
      return e.whens.some((w) => isVolatile(w.when) || isVolatile(w.then)) || isVolatile(e.else)
    case 'inList':
      return isVolatile(e.arg) || e.list.some(isVolatile)
    default:
      return false
  }
}
