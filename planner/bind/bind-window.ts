// Window functions in a select list: binding each `f(...) OVER (...)` — the named window it
// builds on, its function, arguments, result type and frame — and planning them once the
// select's FROM (and GROUP BY) is bound: the partition keys, sort keys and arguments are
// projected into columns, then one Over node per distinct (PARTITION BY, ORDER BY) appends
// its functions' results.

import type * as ast from '../../grammar/index.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { col, lit } from '../expr/scalar.js'
import type { Column, FrameBoundSpec, FrameSpec, LogicalPlan, SortKey, WindowAggregate, WindowFunctionCall } from '../logical/plan.js'
import { jsonReplacer, mapExpr } from '../logical/tree.js'
import { isIntegerType, isNumericType, typeDisplayName, type SqlType } from '../types.js'
import { planError, SqlState, unsupported, type ErrorContext } from '../errors.js'
import { aggregateSignature, bindExpr, coerce, WINDOW_PLACEHOLDER, type ExprContext, type WindowCollector } from './bind-expr.js'

/** A bound window call: its OVER keys (over the select's input) and the function. */
export interface BoundWindowCall {
  readonly partitionBy: readonly ScalarExpr[]
  readonly orderBy: readonly SortKey[]
  readonly call: WindowFunctionCall
}

/** The frame of a window without one: RANGE UNBOUNDED PRECEDING to CURRENT ROW (with ORDER
 *  BY, up to the last peer; without, the whole partition). */
const DEFAULT_FRAME: FrameSpec = { mode: 'range', start: { kind: 'unboundedPreceding' }, end: { kind: 'currentRow' } }

const RANKING = new Set(['row_number', 'rank', 'dense_rank'])
const WINDOW_AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max', 'string_agg', 'array_agg', 'bool_and', 'bool_or', 'every'])
const FRAME_AGGREGATES = new Set<string>(['count_rows', 'count', 'sum', 'avg', 'min', 'max', 'string_agg', 'array_agg', 'bool_and', 'bool_or'])

export class WindowBinder implements WindowCollector {
  readonly calls: BoundWindowCall[] = []
  readonly #named = new Map<string, ast.WindowSpec>()
  readonly #err: ErrorContext

  constructor(named: readonly ast.NamedWindow[] | undefined, err: ErrorContext) {
    this.#err = err
    // each named window may build on the ones before it only (as PostgreSQL), so none loops
    for (const w of named ?? []) {
      if (this.#named.has(w.name)) throw planError(err, SqlState.windowingError, `window "${w.name}" is already defined`, w.span)
      this.#named.set(w.name, this.#resolve(w.spec))
    }
  }

  bind(e: ast.FuncCall, name: string, ctx: ExprContext): ScalarExpr {
    const spec = this.#resolve(e.over!)
    if (e.distinct) throw unsupported(ctx.err, 'DISTINCT in a window function', e.span)
    if (e.filter) throw unsupported(ctx.err, 'FILTER in a window function', e.span)
    if (e.orderBy.length > 0) throw unsupported(ctx.err, 'ORDER BY inside a window function call', e.span)
    if (e.withinGroup !== undefined) throw unsupported(ctx.err, 'WITHIN GROUP in a window function (an ordered-set aggregate over a window)', e.span)
    // window calls do not nest; aggregates inside them are the grouped query's
    const wctx: ExprContext = { ...ctx, windows: undefined, clause: 'window functions' }
    const partitionBy = spec.partitionBy.map((p) => bindExpr(p, wctx))
    const orderBy: SortKey[] = spec.orderBy.map((o) => ({ expr: bindExpr(o.expr, wctx), desc: o.desc, nullsFirst: o.nullsFirst ?? o.desc }))
    const star = e.args.length === 1 && e.args[0]!.kind === 'star'
    const args = star ? [] : e.args.map((a) => bindExpr(a, wctx))
    const frame = spec.frame ? this.#frame(spec.frame, orderBy, ctx) : DEFAULT_FRAME
    const call = this.#function(e, name, args, star, frame, ctx)
    const index = this.calls.length
    this.calls.push({ partitionBy, orderBy, call })
    return { kind: 'call', fn: WINDOW_PLACEHOLDER, args: [lit(index, 'integer')], type: call.type }
  }

  /** The spec with its named base (`OVER w`, `OVER (w ORDER BY …)`; already resolved) filled
   *  in, as PostgreSQL:
   *  a copy may add ORDER BY and a frame, never override PARTITION BY or ORDER BY, and may not
   *  copy a window that has a frame. */
  #resolve(spec: ast.WindowSpec): ast.WindowSpec {
    if (spec.base === undefined) return spec
    const base = this.#named.get(spec.base)
    if (base === undefined) throw planError(this.#err, SqlState.undefinedObject, `window "${spec.base}" does not exist`, spec.span)
    const bare = spec.partitionBy.length === 0 && spec.orderBy.length === 0 && spec.frame === undefined
    if (bare) return base
    if (spec.partitionBy.length > 0) throw planError(this.#err, SqlState.windowingError, `cannot override PARTITION BY clause of window "${spec.base}"`, spec.span)
    if (spec.orderBy.length > 0 && base.orderBy.length > 0) throw planError(this.#err, SqlState.windowingError, `cannot override ORDER BY clause of window "${spec.base}"`, spec.span)
    if (base.frame !== undefined) throw planError(this.#err, SqlState.windowingError, `cannot copy window "${spec.base}" because it has a frame clause`, spec.span)
    return { partitionBy: base.partitionBy, orderBy: spec.orderBy.length > 0 ? spec.orderBy : base.orderBy, frame: spec.frame, span: spec.span }
  }

  #function(e: ast.FuncCall, name: string, args: ScalarExpr[], star: boolean, frame: FrameSpec, ctx: ExprContext): WindowFunctionCall {
    const signature = `${name}(${args.map((a) => typeDisplayName(a.type === 'unknown' ? 'text' : a.type)).join(', ')})`
    const noSuch = (): never => {
      throw planError(ctx.err, SqlState.undefinedFunction, `function ${signature} does not exist`, e.span)
    }
    if (RANKING.has(name)) {
      if (args.length > 0 || star) noSuch()
      return { fn: name as 'row_number' | 'rank' | 'dense_rank', args: [], offset: 0, frame, type: 'bigint' }
    }
    if (name === 'percent_rank' || name === 'cume_dist') {
      if (args.length > 0 || star) noSuch()
      return { fn: name, args: [], offset: 0, frame, type: 'double' }
    }
    if (name === 'ntile') {
      if (args.length !== 1) noSuch()
      const v = constantNumber(e.args[0]!)
      if (v === undefined || !Number.isInteger(v)) throw unsupported(ctx.err, 'an ntile argument other than an integer constant', e.span)
      if (v < 1) throw planError(ctx.err, SqlState.invalidArgumentForNtile, 'argument of ntile must be greater than zero', e.args[0]!.span)
      return { fn: 'ntile', args: [], offset: v, frame, type: 'integer' }
    }
    if (name === 'lag' || name === 'lead') {
      if (args.length < 1 || args.length > 3) noSuch()
      const type: SqlType = args[0]!.type === 'unknown' ? 'text' : args[0]!.type
      const offset = args.length > 1 ? this.#count(e.args[1]!, `the offset of ${name}`, 0) : 1
      const value = coerce(args[0]!, type, ctx, e.span)
      const fallback = args.length > 2 ? [coerce(args[2]!, type, ctx, e.args[2]!.span)] : []
      return { fn: name, args: [value, ...fallback], offset, frame, type }
    }
    if (name === 'first_value' || name === 'last_value' || name === 'nth_value') {
      if (args.length !== (name === 'nth_value' ? 2 : 1)) noSuch()
      const type: SqlType = args[0]!.type === 'unknown' ? 'text' : args[0]!.type
      const n = name === 'nth_value' ? this.#count(e.args[1]!, 'the n of nth_value', 1) : 0
      return { fn: name, args: [coerce(args[0]!, type, ctx, e.span)], offset: n, frame, type }
    }
    if (WINDOW_AGGREGATES.has(name) && e.name.length === 1) {
      const sig = aggregateSignature(name, args, star, false, ctx, e.span)
      if (!FRAME_AGGREGATES.has(sig.fn)) noSuch()
      if (sig.type === 'interval') throw unsupported(ctx.err, `${name} over intervals as a window function`, e.span)
      return { fn: sig.fn as WindowAggregate, args: sig.args, offset: 0, frame, type: sig.type }
    }
    throw unsupported(ctx.err, `window function ${name}`, e.span)
  }

  /** A constant integer argument (LAG's offset, NTH_VALUE's n) of at least `min`. */
  #count(e: ast.Expr, what: string, min: number): number {
    const v = constantNumber(e)
    if (v === undefined || !Number.isInteger(v)) throw unsupported(this.#err, `${what} other than an integer constant`, e.span)
    if (v < min) {
      if (min === 1) throw planError(this.#err, SqlState.invalidArgumentForNthValue, 'argument of nth_value must be greater than zero', e.span)
      throw unsupported(this.#err, `a negative ${what}`, e.span)
    }
    return v
  }

  /** The frame with its offsets as numbers (RANGE on a timestamp: microseconds). */
  #frame(f: ast.WindowFrame, orderBy: readonly SortKey[], ctx: ExprContext): FrameSpec {
    const err = this.#err
    const { start, end } = f
    if (start.kind === 'unboundedFollowing') throw planError(err, SqlState.windowingError, 'frame start cannot be UNBOUNDED FOLLOWING', start.span)
    if (end.kind === 'unboundedPreceding') throw planError(err, SqlState.windowingError, 'frame end cannot be UNBOUNDED PRECEDING', end.span)
    if (start.kind === 'currentRow' && end.kind === 'preceding') throw planError(err, SqlState.windowingError, 'frame starting from current row cannot have preceding rows', end.span)
    if (start.kind === 'following' && (end.kind === 'preceding' || end.kind === 'currentRow')) throw planError(err, SqlState.windowingError, 'frame starting from following row cannot have preceding rows', end.span)
    const bound = (b: ast.FrameBound, which: 'starting' | 'ending'): FrameBoundSpec => {
      if (b.kind !== 'preceding' && b.kind !== 'following') return { kind: b.kind }
      return { kind: b.kind, offset: f.mode === 'rows' ? this.#rowsOffset(b.offset, which) : this.#rangeOffset(b.offset, orderBy, ctx) }
    }
    return { mode: f.mode, start: bound(start, 'starting'), end: bound(end, 'ending') }
  }

  #rowsOffset(e: ast.Expr, which: string): number {
    const v = constantNumber(e)
    if (v === undefined || !Number.isInteger(v)) throw unsupported(this.#err, 'a ROWS frame offset other than an integer constant', e.span)
    if (v < 0) throw planError(this.#err, SqlState.invalidPrecedingOrFollowingSize, `frame ${which} offset must not be negative`, e.span)
    return v
  }

  /** RANGE n PRECEDING / FOLLOWING: a number for a numeric ORDER BY column, a constant
   *  interval of fixed length for a timestamp (as microseconds). */
  #rangeOffset(e: ast.Expr, orderBy: readonly SortKey[], ctx: ExprContext): number {
    if (orderBy.length !== 1) throw planError(this.#err, SqlState.windowingError, 'RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column', e.span)
    const t = orderBy[0]!.expr.type
    let v: number | undefined
    if (t === 'timestamp' || t === 'timestamptz') {
      const bound = bindExpr(e, { ...ctx, windows: undefined, aggregates: undefined, clause: 'a window frame' })
      v = bound.type === 'interval' ? ctx.catalog?.intervalMicros?.(bound) : undefined
      if (v === undefined) throw unsupported(this.#err, 'a RANGE offset over a timestamp other than a constant interval of fixed length', e.span)
    } else if (isNumericType(t) && t !== 'numeric') {
      v = constantNumber(e)
      if (v === undefined || (isIntegerType(t) && !Number.isInteger(v))) throw unsupported(this.#err, `a RANGE offset over ${typeDisplayName(t)} other than a numeric constant`, e.span)
    } else throw unsupported(this.#err, `RANGE with offset PRECEDING/FOLLOWING over ${typeDisplayName(t)}`, e.span)
    if (v < 0) throw planError(this.#err, SqlState.invalidPrecedingOrFollowingSize, `invalid preceding or following size in window function`, e.span)
    return v
  }
}

/** A numeric literal, possibly negated; undefined for anything else. */
function constantNumber(e: ast.Expr): number | undefined {
  if (e.kind === 'unary' && e.op === '-') {
    const v = constantNumber(e.operand)
    return v === undefined ? undefined : -v
  }
  if (e.kind === 'literal' && (e.value.type === 'integer' || e.value.type === 'decimal')) return Number(e.value.text)
  return undefined
}

/** Plans the window calls over `plan` (whose columns the select list reads): projects every
 *  key and argument into columns, appends one Over node per (PARTITION BY, ORDER BY), and
 *  returns the plan with a function that replaces each call's placeholder by its column. */
export function planWindows(plan: LogicalPlan, base: readonly Column[], calls: readonly BoundWindowCall[], resolve: (e: ScalarExpr) => ScalarExpr): { plan: LogicalPlan; replace: (e: ScalarExpr) => ScalarExpr } {
  // the projection: the input's columns, then each distinct expression a window reads
  const exprs: ScalarExpr[] = base.map((c, i) => col(i, c.type))
  const columns: Column[] = [...base]
  const keys = new Map<string, number>()
  const column = (e: ScalarExpr): ScalarExpr => {
    const r = resolve(e)
    if (r.kind === 'column' && r.index < base.length) return r
    const k = JSON.stringify(r, jsonReplacer)
    let at = keys.get(k)
    if (at === undefined) {
      at = exprs.length
      keys.set(k, at)
      exprs.push(r)
      columns.push({ name: `__window${at}`, type: r.type })
    }
    return col(at, r.type)
  }
  const bound = calls.map((c) => ({
    partitionBy: c.partitionBy.map((p) => (column(p) as Extract<ScalarExpr, { kind: 'column' }>).index),
    orderBy: c.orderBy.map((k) => ({ ...k, expr: column(k.expr) })),
    call: { ...c.call, args: c.call.args.map(column) },
  }))
  let out: LogicalPlan = exprs.length === base.length ? plan : { kind: 'project', input: plan, exprs, columns }
  // one Over per distinct window, in order of first use; each appends its results
  const at = new Array<number>(calls.length)
  const done = new Set<number>()
  for (let i = 0; i < bound.length; i++) {
    if (done.has(i)) continue
    const w = bound[i]!
    const same = bound.map((_, j) => j).filter((j) => !done.has(j) && sameWindow(bound[j]!, w))
    const width = out.columns.length
    const functions = same.map((j) => bound[j]!.call)
    same.forEach((j, n) => {
      at[j] = width + n
      done.add(j)
    })
    out = {
      kind: 'over',
      input: out,
      partitionBy: w.partitionBy,
      orderBy: w.orderBy,
      functions,
      columns: [...out.columns, ...functions.map((f, n) => ({ name: `__${f.fn}${width + n}`, type: f.type }))],
    }
  }
  const replace = (e: ScalarExpr): ScalarExpr => mapExpr(e, (x) => (x.kind === 'call' && x.fn === WINDOW_PLACEHOLDER ? col(at[(x.args[0] as { value: number }).value]!, x.type) : x))
  return { plan: out, replace }
}

function sameWindow(a: { partitionBy: readonly number[]; orderBy: readonly SortKey[] }, b: { partitionBy: readonly number[]; orderBy: readonly SortKey[] }): boolean {
  return JSON.stringify([a.partitionBy, a.orderBy], jsonReplacer) === JSON.stringify([b.partitionBy, b.orderBy], jsonReplacer)
}
