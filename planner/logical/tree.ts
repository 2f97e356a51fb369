// Generic traversal of logical plans and scalar expressions, so rules don't hand-write
// recursion.

import type { LogicalPlan } from './plan.js'
import type { ScalarExpr } from '../expr/scalar.js'

export function children(p: LogicalPlan): readonly LogicalPlan[] {
  switch (p.kind) {
    case 'scan':
    case 'values':
      return []
    case 'filter':
    case 'project':
    case 'aggregate':
    case 'distinct':
    case 'topK':
    case 'sort':
    case 'window':
    case 'over':
    case 'unnest':
      return [p.input]
    case 'join':
    case 'setOp':
    case 'timeJoin':
      return [p.left, p.right]
    case 'union':
      return p.inputs
  }
}

export function withChildren(p: LogicalPlan, cs: readonly LogicalPlan[]): LogicalPlan {
  switch (p.kind) {
    case 'scan':
    case 'values':
      return p
    case 'filter':
    case 'project':
    case 'aggregate':
    case 'distinct':
    case 'topK':
    case 'sort':
    case 'window':
    case 'over':
    case 'unnest':
      return cs[0] === p.input ? p : { ...p, input: cs[0]! }
    case 'join':
    case 'setOp':
    case 'timeJoin':
      return cs[0] === p.left && cs[1] === p.right ? p : { ...p, left: cs[0]!, right: cs[1]! }
    case 'union':
      return cs.every((c, i) => c === p.inputs[i]) ? p : { ...p, inputs: cs }
  }
}

/** Rewrites bottom-up: `f` sees each node after its children were rewritten. */
export function transformUp(p: LogicalPlan, f: (p: LogicalPlan) => LogicalPlan | undefined): LogicalPlan {
  const cs = children(p)
  const next = cs.length === 0 ? p : withChildren(p, cs.map((c) => transformUp(c, f)))
  return f(next) ?? next
}

/** Rewrites top-down: `f` sees a node before its children; children of the result are visited. */
export function transformDown(p: LogicalPlan, f: (p: LogicalPlan) => LogicalPlan | undefined): LogicalPlan {
  const next = f(p) ?? p
  const cs = children(next)
  return cs.length === 0 ? next : withChildren(next, cs.map((c) => transformDown(c, f)))
}

// ------------------------------------------------------------------------ expressions

export function exprChildren(e: ScalarExpr): readonly ScalarExpr[] {
  switch (e.kind) {
    case 'column':
    case 'literal':
    case 'outerColumn':
      return []
    case 'call':
    case 'and':
    case 'or':
    case 'coalesce':
      return e.args
    case 'not':
    case 'isNull':
    case 'cast':
      return [e.arg]
    case 'case':
      return [...e.whens.flatMap((w) => [w.when, w.then]), e.else]
    case 'inList':
      return [e.arg, ...e.list]
    case 'subquery':
      return e.operands
  }
}

/** Rebuilds `e` bottom-up with `f` applied to every node (children first). */
export function mapExpr(e: ScalarExpr, f: (e: ScalarExpr) => ScalarExpr): ScalarExpr {
  const m = (x: ScalarExpr) => mapExpr(x, f)
  let next: ScalarExpr
  switch (e.kind) {
    case 'column':
    case 'literal':
    case 'outerColumn':
      next = e
      break
    case 'call':
      next = { ...e, args: e.args.map(m) }
      break
    case 'and':
    case 'or':
      next = { ...e, args: e.args.map(m) }
      break
    case 'coalesce':
      next = { ...e, args: e.args.map(m) }
      break
    case 'not':
    case 'isNull':
    case 'cast':
      next = { ...e, arg: m(e.arg) } as ScalarExpr
      break
    case 'case':
      next = { ...e, whens: e.whens.map((w) => ({ when: m(w.when), then: m(w.then) })), else: m(e.else) }
      break
    case 'inList':
      next = { ...e, arg: m(e.arg), list: e.list.map(m) }
      break
    case 'subquery':
      next = { ...e, operands: e.operands.map(m) }
      break
  }
  return f(next)
}

/** Rebuilds one node with `f` applied to its direct children (for top-down rewrites that
 *  decide per node whether to descend). Leaves and subqueries are returned as they are. */
export function mapChildren(x: ScalarExpr, f: (e: ScalarExpr) => ScalarExpr): ScalarExpr {
  switch (x.kind) {
    case 'call':
    case 'and':
    case 'or':
    case 'coalesce':
      return { ...x, args: x.args.map(f) } as ScalarExpr
    case 'not':
    case 'isNull':
    case 'cast':
      return { ...x, arg: f(x.arg) } as ScalarExpr
    case 'case':
      return { ...x, whens: x.whens.map((w) => ({ when: f(w.when), then: f(w.then) })), else: f(x.else) }
    case 'inList':
      return { ...x, arg: f(x.arg), list: x.list.map(f) }
    default:
      return x
  }
}

/** Calls `f` on every node of `e` (pre-order). Does not descend into subquery plans. */
export function visitExpr(e: ScalarExpr, f: (e: ScalarExpr) => void): void {
  f(e)
  for (const c of exprChildren(e)) visitExpr(c, f)
}

/** Input column positions referenced by `e`. */
export function referencedColumns(e: ScalarExpr, into: Set<number> = new Set()): Set<number> {
  visitExpr(e, (x) => {
    if (x.kind === 'column') into.add(x.index)
  })
  return into
}

/** Renumbers column references: new index = map(old index). */
export function remapColumns(e: ScalarExpr, map: (i: number) => number): ScalarExpr {
  return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: map(x.index) } : x))
}

/** Replaces column references with expressions (inlining a projection). */
export function substituteColumns(e: ScalarExpr, exprs: readonly ScalarExpr[]): ScalarExpr {
  return mapExpr(e, (x) => (x.kind === 'column' ? exprs[x.index]! : x))
}

/** True when `e` holds a subquery (not decorrelated yet). */
export function hasSubquery(e: ScalarExpr): boolean {
  let found = false
  visitExpr(e, (x) => {
    if (x.kind === 'subquery') found = true
  })
  return found
}

/** Splits a predicate into its AND-ed conjuncts. */
export function conjuncts(e: ScalarExpr): ScalarExpr[] {
  if (e.kind === 'and') return e.args.flatMap(conjuncts)
  if (e.kind === 'literal' && e.value === true) return []
  return [e]
}

export function conjoin(es: readonly ScalarExpr[]): ScalarExpr | undefined {
  if (es.length === 0) return undefined
  if (es.length === 1) return es[0]
  return { kind: 'and', args: es, type: 'boolean' }
}

/** Deterministic structural equality (plans are plain data). */
export function sameExpr(a: ScalarExpr, b: ScalarExpr): boolean {
  return JSON.stringify(a, jsonReplacer) === JSON.stringify(b, jsonReplacer)
}

/** JSON replacer that keeps plan fingerprints stable for non-JSON run-time values. */
export function jsonReplacer(_k: string, v: unknown): unknown {
  if (typeof v === 'number' && !Number.isFinite(v)) return `__num:${v}`
  if (typeof v === 'bigint') return `__big:${v}`
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype) return `__obj:${String(v)}`
  return v
}

/** Rewrites every expression held by a plan node (not its children). */
export function mapNodeExprs(p: LogicalPlan, f: (e: ScalarExpr) => ScalarExpr): LogicalPlan {
  switch (p.kind) {
    case 'scan':
    case 'distinct':
    case 'union':
    case 'setOp':
    case 'window':
      return p
    case 'values':
      return { ...p, rows: p.rows.map((r) => r.map(f)) }
    case 'filter':
      return { ...p, predicate: f(p.predicate) }
    case 'unnest':
      return { ...p, array: f(p.array) }
    case 'project':
      return { ...p, exprs: p.exprs.map(f) }
    case 'join':
      return p.condition ? { ...p, condition: f(p.condition) } : p
    case 'timeJoin':
      return {
        ...p,
        leftKeys: p.leftKeys.map(f),
        rightKeys: p.rightKeys.map(f),
        leftTime: p.leftTime ? f(p.leftTime) : undefined,
        rightTime: p.rightTime ? f(p.rightTime) : undefined,
        residual: p.residual ? f(p.residual) : undefined,
      }
    case 'aggregate':
      return { ...p, groupBy: p.groupBy.map(f), aggregates: p.aggregates.map((a) => ({ ...a, args: a.args.map(f), filter: a.filter ? f(a.filter) : undefined, orderBy: a.orderBy.map((k) => ({ ...k, expr: f(k.expr) })) })) }
    case 'topK':
    case 'sort':
      return { ...p, orderBy: p.orderBy.map((k) => ({ ...k, expr: f(k.expr) })) }
    case 'over':
      return { ...p, orderBy: p.orderBy.map((k) => ({ ...k, expr: f(k.expr) })), functions: p.functions.map((w) => ({ ...w, args: w.args.map(f) })) }
  }
}

/** Rewrites the references a subquery plan makes to the query `depth` levels out (1 = the
 *  query that contains the subquery expression), including from subqueries nested in it. */
export function mapOuterRefs(p: LogicalPlan, depth: number, f: (e: Extract<ScalarExpr, { kind: 'outerColumn' }>) => ScalarExpr): LogicalPlan {
  return transformUp(p, (node) =>
    mapNodeExprs(node, (e) =>
      mapExpr(e, (x) => {
        if (x.kind === 'outerColumn' && x.depth === depth) return f(x)
        if (x.kind === 'subquery') return { ...x, plan: mapOuterRefs(x.plan, depth + 1, f) }
        return x
      }),
    ),
  )
}
