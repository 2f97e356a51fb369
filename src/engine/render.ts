// DeltaPlan → ivm operators: the only place operators are instantiated. Scalar expressions
// are compiled here, once per operator. Arrangements are shared: a fingerprint of the
// arrangement's plan (plain data) finds an existing operator with the same input and key.

import * as ivm from '../../ivm/index.js'
import type { Operator, Row } from '../../ivm/index.js'
import type { AggregateCall, DeltaPlan, FrameBoundSpec, ScalarExpr, SortKey, SqlType, TimeBound, WindowFunctionCall } from '../../planner/index.js'
import { createHash } from 'node:crypto'
import { ArrayValue, dependsOnTimeZone, jsonReplacer } from '../../planner/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import { compileFilterProjection, compileJoinProjection, compilePredicate, compileProjection, compileScalar, evaluateConstant } from '../sql-runtime/compile-scalar.js'
import { compareFn, Interval } from '../sql-runtime/values.js'
import { MAX_TEXT_LENGTH, textOutOfMemory } from '../sql-runtime/text-limit.js'
import { avgIntegerToNumeric, avgNumeric, sumBigintToNumeric, sumNumeric, sumToBigint } from '../sql-runtime/numeric-aggregates.js'
import { stddevPopNumeric, stddevSampNumeric, varPopNumeric, varSampNumeric } from '../sql-runtime/numeric-variance.js'
import { intervalLerp } from '../sql-runtime/datetime-functions.js'
import { currentTimeZone, isUtc } from '../sql-runtime/time-zone.js'
import { textNamesZone } from '../sql-runtime/timestamptz.js'
import { jsonbArrayOf, objectAggPair, objectOfPairs } from '../sql-runtime/jsonb-functions.js'

export interface RenderContext {
  readonly circuit: ivm.Circuit
  /** The operator that produces the changes of a named relation (table input or view sink);
   *  with `versions`, of a versioned table's version history. */
  readonly source: (relation: string, versions?: boolean) => Operator
  /** Shared arrangements by fingerprint. */
  readonly arrangements: Map<string, ivm.ArrangeOperator>
  /** The current watermark of a set of streams (their minimum; -Infinity before any event). */
  readonly watermark: (sources: readonly string[]) => number
  /** Processing time (µs) of the open tick, for temporal filters. */
  readonly now: () => number
}

export interface Rendered {
  readonly output: Operator
  /** Operators created by this render (to backfill). */
  readonly fresh: Operator[]
  /** The operator each plan node became (for EXPLAIN with live state). */
  readonly operators: Map<DeltaPlan, Operator>
}

export function render(plan: DeltaPlan, ctx: RenderContext): Rendered {
  const fresh: Operator[] = []
  const add = <TOp extends Operator>(op: TOp): TOp => {
    ctx.circuit.add(op)
    fresh.push(op)
    return op
  }
  const operators = new Map<DeltaPlan, Operator>()
  const go = (p: DeltaPlan): Operator => {
    const op = build(p)
    operators.set(p, op)
    return op
  }
  const build = (p: DeltaPlan): Operator => {
    switch (p.kind) {
      case 'input':
        return ctx.source(p.relation, p.versions)
      case 'constant': {
        const z = new ivm.ZSet()
        // a literal is its value (compiling one per cell made a system relation's thousands
        // of rows cost more than the query over them)
        for (const r of p.rows) z.push(r.map((e) => (e.kind === 'literal' ? e.value : evaluateConstant(e))), 1)
        return add(new ivm.ConstantOperator(z))
      }
      case 'mfp': {
        // an inner join whose only reader is a plain projection computes the projected row
        // directly from the two sides (no concatenated row per match)
        const j = p.input
        if (j.kind === 'join' && j.joinType === 'inner' && p.predicate === undefined && p.projection !== undefined && !operators.has(j)) {
          const op = add(new ivm.JoinOperator(arrangeShared(j.left), arrangeShared(j.right), compileJoinProjection(p.projection, j.leftWidth)))
          operators.set(j, op)
          return op
        }
        const input = go(p.input)
        if (p.predicate && p.projection) return add(new ivm.MapFilterOperator(input, undefined, undefined, compileFilterProjection(p.predicate, p.projection)))
        return add(new ivm.MapFilterOperator(input, p.predicate ? compilePredicate(p.predicate) : undefined, p.projection ? compileProjection(p.projection) : undefined))
      }
      case 'arrange':
        return arrangeShared(p)
      case 'join': {
        const l = arrangeShared(p.left)
        const r = arrangeShared(p.right)
        switch (p.joinType) {
          case 'inner':
            return add(new ivm.JoinOperator(l, r, combiner(p.leftWidth, p.rightWidth)))
          case 'left':
          case 'right':
          case 'full':
            return add(new ivm.OuterJoinOperator(l, r, combiner(p.leftWidth, p.rightWidth), p.joinType, p.left.columns.length, p.right.columns.length))
          case 'semi':
          case 'anti': {
            const op = p.joinType === 'semi' ? add(new ivm.SemiJoinOperator(l, r)) : add(new ivm.AntiJoinOperator(l, r, { nullAware: p.nullAware }))
            if (p.left.columns.length === p.leftWidth) return op
            return add(new ivm.MapFilterOperator(op, undefined, combiner(p.leftWidth, 0) as unknown as (row: Row) => Row))
          }
        }
        break
      }
      case 'reduce': {
        const input = go(p.input)
        const specs = p.aggregates.map((a) => aggregateSpec(a, p.insertOnlyInput === true))
        const expire = p.freeBy ? { keyIndex: p.freeBy.column, isFinal: finality(p.freeBy) } : undefined
        return add(new ivm.ReduceOperator(input, p.key, specs, { emitEmptyGroup: p.emitEmptyGroup, ...(expire ? { expire } : {}) }))
      }
      case 'sessionReduce': {
        const input = go(p.input)
        const width = p.input.columns.length
        const freeBy = p.freeBy
        return add(
          new ivm.SessionReduceOperator(input, {
            partitionBy: p.spec.partitionBy,
            timeColumn: p.timeColumn,
            gap: p.spec.gap,
            key: p.key.map((k) => (k === width ? ivm.SESSION_START : k === width + 1 ? ivm.SESSION_END : k)),
            aggregates: p.aggregates.map((a) => aggregateSpec(a)),
            ...(freeBy ? { watermark: () => ctx.watermark(freeBy.sources) } : {}),
          }),
        )
      }
      case 'unnest': {
        const array = compileScalar(p.array)
        const padded = p.padded === true
        return add(
          new ivm.FlatMapOperator(go(p.input), (row, emit) => {
            const a = array(row) as ArrayValue | null
            if (a === null || a.items.length === 0) {
              if (padded) emit([...row, null])
              return
            }
            for (const item of a.items) {
              const out = row.slice()
              out.push(item)
              emit(out)
            }
          }),
        )
      }
      case 'window': {
        const input = go(p.input)
        const t = p.timeColumn
        const spec = p.spec
        switch (spec.kind) {
          case 'tumble': {
            const { size, offset } = spec
            return add(
              new ivm.MapFilterOperator(
                input,
                (row: Row) => row[t] !== null,
                (row: Row) => {
                  const start = Math.floor(((row[t] as number) - offset) / size) * size + offset
                  const out = row.slice()
                  out.push(start, start + size)
                  return out
                },
              ),
            )
          }
          case 'hop': {
            const { slide, size, offset } = spec
            return add(
              new ivm.FlatMapOperator(input, (row, emit) => {
                const ts = row[t]
                if (ts === null) return
                const last = Math.floor(((ts as number) - offset) / slide) * slide + offset
                let first = last
                while (first - slide + size > (ts as number)) first -= slide
                for (let start = first; start <= last; start += slide) {
                  // with size < slide some rows fall between windows
                  if (start + size <= (ts as number)) continue
                  const out = row.slice()
                  out.push(start, start + size)
                  emit(out)
                }
              }),
            )
          }
          case 'session': {
            const freeBy = p.freeBy
            return add(
              new ivm.SessionWindowOperator(input, {
                partitionBy: spec.partitionBy,
                timeColumn: t,
                gap: spec.gap,
                ...(freeBy ? { watermark: () => ctx.watermark(freeBy.sources) } : {}),
              }),
            )
          }
        }
        break
      }
      case 'temporalFilter': {
        const bound = (b: TimeBound, shift: number): ((row: Row) => number | null) => {
          for (const m of b.moved) {
            const v = evaluateConstant(m)
            if (!(v instanceof Interval) || v.months !== 0) throw new RivuletError(SqlState.featureNotSupported, 'the interval of a temporal filter (NOW() ± interval) must be of fixed length (days, hours, minutes, seconds; not months or years)')
          }
          const f = compileScalar(b.expr)
          return (row) => {
            const v = f(row)
            return v === null ? null : (v as number) + shift
          }
        }
        // from: now ≥ x (edge included) or now > x, i.e. now ≥ x + 1 µs; until: now < x, or now ≤ x
        const froms = p.from.map((b) => bound(b, b.edgeIncluded ? 0 : 1))
        const untils = p.until.map((b) => bound(b, b.edgeIncluded ? 1 : 0))
        const combine = (fs: ((row: Row) => number | null)[], pick: (a: number, b: number) => number) =>
          fs.length === 0
            ? undefined
            : (row: Row): number | null => {
                let acc: number | null = null
                for (const f of fs) {
                  const v = f(row)
                  if (v === null) return null
                  acc = acc === null ? v : pick(acc, v)
                }
                return acc
              }
        const from = combine(froms, Math.max)
        const until = combine(untils, Math.min)
        return add(new ivm.TemporalFilterOperator(go(p.input), { ...(from ? { from } : {}), ...(until ? { until } : {}), now: ctx.now }))
      }
      case 'asofJoin': {
        const l = go(p.left)
        const r = go(p.right)
        const lb = p.leftBound
        const rb = p.rightBound
        const types = p.right.columns.map((c) => c.type)
        return add(
          new ivm.AsOfJoinOperator(l, r, {
            leftKey: p.leftKey,
            rightKey: p.rightKey,
            leftTime: p.leftTime,
            rightTime: p.rightTime,
            match: p.match,
            outer: p.outer,
            rightWidth: p.right.columns.length,
            ...(p.live !== undefined ? { live: p.live } : {}),
            tieBreak: rowComparator(types.map((type, i) => ({ expr: { kind: 'column', index: i, type }, desc: false, nullsFirst: false }))),
            ...(lb && rb ? { leftWatermark: () => ctx.watermark(lb.sources), rightWatermark: () => ctx.watermark(rb.sources) } : {}),
          }),
        )
      }
      case 'lookupJoin': {
        const l = go(p.left)
        const r = arrangeShared(p.right)
        const lw = p.left.columns.length
        return add(
          new ivm.LookupJoinOperator(l, r, {
            leftKey: p.leftKey,
            outer: p.outer,
            rightWidth: p.right.columns.length,
            leftAppendOnly: p.leftAppendOnly,
            ...(p.residual ? { residual: pairPredicate(p.residual, lw) } : {}),
          }),
        )
      }
      case 'intervalJoin': {
        const l = go(p.left)
        const r = go(p.right)
        const lb = p.leftBound
        const rb = p.rightBound
        return add(
          new ivm.IntervalJoinOperator(l, r, {
            leftKey: p.leftKey,
            rightKey: p.rightKey,
            leftTime: p.leftTime,
            rightTime: p.rightTime,
            lower: p.lower,
            upper: p.upper,
            lowerInclusive: p.lowerInclusive,
            upperInclusive: p.upperInclusive,
            kind: p.joinType,
            leftWidth: p.left.columns.length,
            rightWidth: p.right.columns.length,
            ...(p.residual ? { residual: pairPredicate(p.residual, p.left.columns.length) } : {}),
            leftWatermark: () => ctx.watermark(lb.sources),
            rightWatermark: () => ctx.watermark(rb.sources),
            finalOuter: p.finalOuter,
          }),
        )
      }
      case 'emitOnClose':
        return add(new ivm.EmitOnCloseOperator(go(p.input), { column: p.column, isFinal: finality(p) }))
      case 'distinct':
        return add(new ivm.DistinctOperator(go(p.input)))
      case 'threshold':
        return add(new ivm.ThresholdOperator(go(p.input)))
      case 'negate':
        return add(new ivm.NegateOperator(go(p.input)))
      case 'union':
        return add(new ivm.ConcatOperator(p.inputs.map(go)))
      case 'over': {
        const pf = p.partitionFreeBy
        const options: ivm.WindowOptions = { ...windowOptions(p), partitionFinal: pf === undefined ? undefined : ((isFinal, c) => (row: Row) => isFinal(row[c]))(finality(pf), pf.column) }
        const freeBy = p.freeBy
        const retention = p.retention
        if (freeBy === undefined || retention === undefined) return add(new ivm.WindowOperator(go(p.input), options))
        const isFinal = freeBy.strict ? (v: unknown, w: number) => (v as number) <= w : (v: unknown, w: number) => (v as number) < w
        const freeing: ivm.WindowFreeing = { isFinal, watermark: () => ctx.watermark(freeBy.sources), rows: retention.rows, distance: retention.distance }
        return add(new ivm.WindowOperator(go(p.input), { ...options, freeing }))
      }
      case 'topK': {
        const input = go(p.input)
        // the first row per partition of a stream needs only that row (a deduplication)
        if (p.appendOnly && p.limit === 1 && p.offset === 0 && !p.withTies) return add(new ivm.TopOneOperator(input, p.partitionBy, rowComparator(p.orderBy), { rowNumber: p.rowNumber }))
        return add(new ivm.TopKOperator(input, p.partitionBy, rowComparator(p.orderBy), p.limit, p.offset, { rowNumber: p.rowNumber, appendOnly: p.appendOnly, withTies: p.withTies }))
      }
    }
    throw new RivuletError(SqlState.internalError, `internal error: cannot render ${(p as DeltaPlan).kind}`)
  }
  /** Is a value of a watermark-bounded column final at the current watermark? (Its close
   *  time is the value plus the bound's offset: window_start + size.) */
  const finality = (w: { readonly sources: readonly string[]; readonly strict: boolean; readonly offset?: number }): ((v: unknown) => boolean) => {
    const sources = w.sources
    const offset = w.offset ?? 0
    if (offset !== 0) return w.strict ? (v) => v !== null && (v as number) + offset <= ctx.watermark(sources) : (v) => v !== null && (v as number) + offset < ctx.watermark(sources)
    return w.strict ? (v) => v !== null && (v as number) <= ctx.watermark(sources) : (v) => v !== null && (v as number) < ctx.watermark(sources)
  }
  const arrangeShared = (p: Extract<DeltaPlan, { kind: 'arrange' }>): ivm.ArrangeOperator => {
    if (p.freeBy) {
      // forgets rows its join no longer needs: private, never shared
      const op = add(new ivm.ArrangeOperator(go(p.input), p.key, { expire: { column: p.freeBy.column, isFinal: finality(p.freeBy) } }))
      operators.set(p, op)
      return op
    }
    // an arrangement computed in another TimeZone (a view's, in UTC) is not this one
    const zone = currentTimeZone()
    const fp = isUtc(zone) || !dependsOnTimeZone(p, textNamesZone) ? fingerprint(p) : `${fingerprint(p)} in ${zone.name}`
    const existing = ctx.arrangements.get(fp)
    // one cut off by a failure in the open tick is behind: build a fresh one
    if (existing && ctx.circuit.isLive(existing)) {
      operators.set(p, existing)
      return existing
    }
    const op = add(new ivm.ArrangeOperator(go(p.input), p.key))
    ctx.arrangements.set(fp, op)
    operators.set(p, op)
    return op
  }
  try {
    return { output: go(plan), fresh, operators }
  } catch (err) {
    // a render that fails (a VALUES row that raises, an expression that does not compile)
    // takes back what it added: a shared arrangement left behind, never backfilled, would
    // be found by the next query and answer it from no rows. Readers come after what they
    // read, so releasing in reverse frees each operator once nothing reads it.
    for (let i = fresh.length - 1; i >= 0; i--) if (ctx.circuit.has(fresh[i]!)) ctx.circuit.release(fresh[i]!)
    for (const [k, op] of ctx.arrangements) if (!ctx.circuit.has(op)) ctx.arrangements.delete(k)
    throw err
  }
}

const FINGERPRINTS = new WeakMap<DeltaPlan, string>()

/** string_agg's results stay within the one text limit (54000 "out of memory", as PostgreSQL's
 *  StringInfo says past 1 GB). */
const STRING_AGG_LIMIT: ivm.StringAggLimit = { maxLength: MAX_TEXT_LENGTH, tooLong: textOutOfMemory }

/** A structural fingerprint of a delta plan: equal plans (same shape, expressions and
 *  inputs) share one, so views can share arrangements. Children enter by their own
 *  (memoized) fingerprint, so deep plans cost linear time, not a serialization per level. */
function fingerprint(p: DeltaPlan): string {
  let fp = FINGERPRINTS.get(p)
  if (fp !== undefined) return fp
  const shallow: Record<string, unknown> = { ...p }
  if ('input' in p) shallow.input = fingerprint(p.input)
  if ('left' in p) shallow.left = fingerprint(p.left)
  if ('right' in p) shallow.right = fingerprint(p.right)
  if ('inputs' in p) shallow.inputs = p.inputs.map(fingerprint)
  const json = JSON.stringify(shallow, jsonReplacer)
  fp = json.length <= 64 ? json : createHash('sha256').update(json).digest('base64')
  FINGERPRINTS.set(p, fp)
  return fp
}

/** A condition over left ++ right columns as a predicate on the pair (l, r). */
function pairPredicate(e: Parameters<typeof compilePredicate>[0], leftWidth: number): (l: Row, r: Row) => boolean {
  const f = compilePredicate(e)
  const both = new Array<unknown>()
  return (l, r) => {
    both.length = 0
    for (let i = 0; i < leftWidth; i++) both.push(l[i])
    for (let i = 0; i < r.length; i++) both.push(r[i])
    return f(both)
  }
}

/** (l, r) → [l[0..lw), r[0..rw)] as straight-line code. */
function combiner(lw: number, rw: number): (l: Row, r: Row) => Row {
  const parts: string[] = []
  for (let i = 0; i < lw; i++) parts.push(`l[${i}]`)
  for (let i = 0; i < rw; i++) parts.push(`r[${i}]`)
  return new Function('l', 'r', `return [${parts.join(', ')}]`) as (l: Row, r: Row) => Row
}

/** ORDER BY keys → a total order on rows (NULL placement per key). */
export function rowComparator(keys: readonly SortKey[]): (a: Row, b: Row) => number {
  const parts = keys.map((k) => {
    const get = k.expr.kind === 'column' ? ((i: number) => (row: Row) => row[i])(k.expr.index) : compileScalar(k.expr)
    return { get, cmp: compareFn(k.expr.type), desc: k.desc, nullsFirst: k.nullsFirst }
  })
  return (a, b) => {
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!
      const x = p.get(a)
      const y = p.get(b)
      if (x === y) continue
      if (x === null) {
        if (y === null) continue
        return p.nullsFirst ? -1 : 1
      }
      if (y === null) return p.nullsFirst ? 1 : -1
      const c = p.cmp(x, y)
      if (c !== 0) return p.desc ? -c : c
    }
    return 0
  }
}

/** The Window operator's order and functions for an Over node. */
function windowOptions(p: Extract<DeltaPlan, { kind: 'over' }>): ivm.WindowOptions {
  const peers = rowComparator(p.orderBy)
  // RANGE offsets read the one ORDER BY value (the binder allows them only then)
  const key = p.orderBy[0]
  const value = key === undefined ? () => null : valueOf(key.expr)
  const cmp = key === undefined ? compareFn('integer') : compareFn(key.expr.type)
  const desc = key?.desc === true
  const nullsFirst = key?.nullsFirst === true
  const compareValues = (x: unknown, y: unknown): number => {
    if (x === y) return 0
    if (x === null) return y === null ? 0 : nullsFirst ? -1 : 1
    if (y === null) return nullsFirst ? 1 : -1
    const c = cmp(x, y)
    return desc ? -c : c
  }
  const order: ivm.WindowOrder = { peers, value, compareValues }
  const functions = p.functions.map((f) => windowFunction(f, desc, p.orderBy))
  return { partitionColumns: p.partitionBy, order, functions }
}

function windowFunction(f: WindowFunctionCall, desc: boolean, windowOrder: readonly SortKey[]): ivm.WindowFunction {
  const frame: ivm.Frame = { start: frameBound(f.frame.mode, f.frame.start, desc), end: frameBound(f.frame.mode, f.frame.end, desc) }
  switch (f.fn) {
    case 'row_number':
      return { kind: 'rowNumber' }
    case 'rank':
      return { kind: 'rank' }
    case 'dense_rank':
      return { kind: 'denseRank' }
    case 'percent_rank':
      return { kind: 'percentRank' }
    case 'cume_dist':
      return { kind: 'cumeDist' }
    case 'ntile':
      return { kind: 'ntile', n: f.offset }
    case 'lag':
    case 'lead':
      return { kind: f.fn, value: valueOf(f.args[0]!), offset: f.offset, fallback: f.args[1] ? valueOf(f.args[1]) : () => null }
    case 'first_value':
      return { kind: 'firstValue', value: valueOf(f.args[0]!), frame }
    case 'last_value':
      return { kind: 'lastValue', value: valueOf(f.args[0]!), frame }
    case 'nth_value':
      return { kind: 'nthValue', value: valueOf(f.args[0]!), n: f.offset, frame }
    default: {
      // STRING_AGG / ARRAY_AGG list a frame's values in the window's order
      const orderBy = f.fn === 'string_agg' || f.fn === 'array_agg' ? windowOrder : []
      const { aggregator, arg } = aggregateSpec({ fn: f.fn, args: f.args, orderBy, filter: undefined, type: f.type })
      return { kind: 'aggregate', aggregator, arg, frame }
    }
  }
}

/** A frame bound for the Window operator: RANGE offsets move an ORDER BY value (a number, a
 *  bigint or a timestamp's microseconds) in sort order, so DESC moves the other way. */
function frameBound(mode: 'rows' | 'range', b: FrameBoundSpec, desc: boolean): ivm.FrameBound {
  switch (b.kind) {
    case 'unboundedPreceding':
    case 'unboundedFollowing':
      return { kind: 'unbounded' }
    case 'currentRow':
      return mode === 'rows' ? { kind: 'rows', offset: 0 } : { kind: 'peers' }
    case 'preceding':
    case 'following': {
      const toward = b.kind === 'preceding' ? -1 : 1
      if (mode === 'rows') return { kind: 'rows', offset: toward * b.offset }
      const n = b.offset
      const big = BigInt(Number.isInteger(n) ? n : 0)
      const sign = desc ? -1 : 1
      const shift = (v: unknown, d: -1 | 1): unknown => (typeof v === 'bigint' ? v + BigInt(sign * d) * big : (v as number) + sign * d * n)
      return { kind: 'value', toward, shift }
    }
  }
}

/** Reads a column, or computes an expression, of a row. */
function valueOf(e: ScalarExpr): (row: Row) => unknown {
  return e.kind === 'column' ? ((i: number) => (row: Row) => row[i])(e.index) : compileScalar(e)
}

/** The aggregator of a call; `insertOnlyInput`: its input never retracts (MIN / MAX then keep
 *  only the extreme). */
function aggregateSpec(a: AggregateCall, insertOnlyInput = false): ivm.AggregateSpec {
  const arg0 = a.args[0]
  const argFn = arg0 ? (arg0.kind === 'column' ? ((i: number) => (row: Row) => row[i])(arg0.index) : compileScalar(arg0)) : () => null
  const filter = a.filter ? compilePredicate(a.filter) : undefined
  const inType: SqlType = arg0?.type ?? 'bigint'
  const intInput = inType === 'smallint' || inType === 'integer' || inType === 'bigint'
  let aggregator: ivm.Aggregator<unknown, unknown>
  switch (a.fn) {
    case 'count_rows':
      aggregator = ivm.countRows as ivm.Aggregator<unknown, unknown>
      break
    case 'count':
      aggregator = ivm.count as ivm.Aggregator<unknown, unknown>
      break
    case 'count_distinct':
      aggregator = ivm.countDistinct as ivm.Aggregator<unknown, unknown>
      break
    case 'sum':
    case 'sum_distinct': {
      const base = (inType === 'bigint' ? sumBigintToNumeric : intInput ? sumToBigint : inType === 'numeric' ? sumNumeric : ivm.sumFloat) as ivm.Aggregator<unknown, unknown>
      aggregator = a.fn === 'sum_distinct' ? (ivm.distinctOf(base) as ivm.Aggregator<unknown, unknown>) : base
      break
    }
    case 'avg':
    case 'avg_distinct': {
      const base = (intInput ? avgIntegerToNumeric : inType === 'numeric' ? avgNumeric : ivm.avg('float')) as ivm.Aggregator<unknown, unknown>
      aggregator = a.fn === 'avg_distinct' ? (ivm.distinctOf(base) as ivm.Aggregator<unknown, unknown>) : base
      break
    }
    case 'min':
      aggregator = (insertOnlyInput ? ivm.appendOnlyMin(compareFn(a.type)) : ivm.min(compareFn(a.type))) as ivm.Aggregator<unknown, unknown>
      break
    case 'max':
      aggregator = (insertOnlyInput ? ivm.appendOnlyMax(compareFn(a.type)) : ivm.max(compareFn(a.type))) as ivm.Aggregator<unknown, unknown>
      break
    case 'bool_and':
      aggregator = ivm.boolAnd as ivm.Aggregator<unknown, unknown>
      break
    case 'bool_or':
      aggregator = ivm.boolOr as ivm.Aggregator<unknown, unknown>
      break
    case 'string_agg': {
      const value = compileScalar(a.args[0]!)
      const delim = compileScalar(a.args[1]!)
      const orderGets = a.orderBy.map((k) => compileScalar(k.expr))
      const cmp = a.orderBy.length > 0 ? rowComparator(a.orderBy.map((k, i) => ({ ...k, expr: { kind: 'column', index: i, type: k.expr.type } }))) : undefined
      aggregator = ivm.stringAgg(cmp, STRING_AGG_LIMIT) as ivm.Aggregator<unknown, unknown>
      if (a.distinct) aggregator = ivm.distinctOf(aggregator, (t) => ivm.rowKey([(t as unknown[])[0], (t as unknown[])[1], ...((t as unknown[][])[2] ?? [])])) as ivm.Aggregator<unknown, unknown>
      return { aggregator, arg: (row) => [value(row), delim(row), orderGets.map((g) => g(row))], filter }
    }
    case 'array_agg': {
      const value = compileScalar(a.args[0]!)
      const orderGets = a.orderBy.map((k) => compileScalar(k.expr))
      const cmp = a.orderBy.length > 0 ? rowComparator(a.orderBy.map((k, i) => ({ ...k, expr: { kind: 'column', index: i, type: k.expr.type } }))) : undefined
      aggregator = ivm.arrayAgg(cmp, (values) => new ArrayValue(values)) as ivm.Aggregator<unknown, unknown>
      return { aggregator, arg: (row) => [value(row), orderGets.map((g) => g(row))], filter }
    }
    case 'jsonb_agg':
    case 'jsonb_object_agg': {
      // array_agg's accumulator over jsonb values (jsonb_object_agg's: [key, value] pairs)
      const [first, second] = a.args.map((x) => compileScalar(x))
      const keyType = a.args[0]!.type
      const value = a.fn === 'jsonb_agg' ? first! : (row: Row) => objectAggPair(first!(row), keyType, second!(row), 'jsonb')
      const orderGets = a.orderBy.map((k) => compileScalar(k.expr))
      const cmp = a.orderBy.length > 0 ? rowComparator(a.orderBy.map((k, i) => ({ ...k, expr: { kind: 'column', index: i, type: k.expr.type } }))) : undefined
      aggregator = ivm.arrayAgg(cmp, a.fn === 'jsonb_agg' ? jsonbArrayOf : objectOfPairs) as ivm.Aggregator<unknown, unknown>
      return { aggregator, arg: (row) => [value(row), orderGets.map((g) => g(row))], filter }
    }
    case 'var_samp':
    case 'var_pop':
    case 'stddev_samp':
    case 'stddev_pop':
      aggregator = (a.type === 'double' ? VARIANCE_FLOAT : VARIANCE_NUMERIC)[a.fn] as ivm.Aggregator<unknown, unknown>
      break
    case 'bit_and':
    case 'bit_or':
    case 'bit_xor': {
      const width = inType === 'bigint' ? 64 : 32
      aggregator = (a.fn === 'bit_and' ? ivm.bitAnd(width) : a.fn === 'bit_or' ? ivm.bitOr(width) : ivm.bitXor(width)) as ivm.Aggregator<unknown, unknown>
      break
    }
    case 'approx_count_distinct':
      aggregator = ivm.approxCountDistinct as ivm.Aggregator<unknown, unknown>
      break
    case 'percentile_cont':
    case 'percentile_disc':
    case 'mode':
    case 'approx_percentile':
      return orderedSetSpec(a, filter)
    case 'single_value':
      aggregator = singleValue
      break
  }
  if (a.distinct) aggregator = ivm.distinctOf(aggregator)
  return { aggregator, arg: argFn, filter }
}

const VARIANCE_FLOAT = { var_samp: ivm.varSampFloat, var_pop: ivm.varPopFloat, stddev_samp: ivm.stddevSampFloat, stddev_pop: ivm.stddevPopFloat }
const VARIANCE_NUMERIC = { var_samp: varSampNumeric, var_pop: varPopNumeric, stddev_samp: stddevSampNumeric, stddev_pop: stddevPopNumeric }

/** An ordered-set aggregate: the value is its WITHIN GROUP key, the direct arguments are
 *  constants evaluated here, once (a fraction outside [0, 1] is an error, as in PostgreSQL,
 *  though raised when the view is created rather than when a group is read). */
function orderedSetSpec(a: AggregateCall, filter: ((row: Row) => boolean) | undefined): ivm.AggregateSpec {
  const key = a.orderBy[0]!
  const arg = key.expr.kind === 'column' ? ((i: number) => (row: Row) => row[i])(key.expr.index) : compileScalar(key.expr)
  const ascending = compareFn(key.expr.type)
  const cmp = key.desc ? (x: unknown, y: unknown) => ascending(y, x) : ascending
  const direct = a.args.map((d) => evaluateConstant(d))
  const fractionOf = (v: unknown): number | null => {
    if (v === null) return null
    const f = v as number
    if (!(f >= 0 && f <= 1)) throw new RivuletError(SqlState.numericValueOutOfRange, `percentile value ${f} is not between 0 and 1`)
    return f
  }
  const arrayForm = direct[0] instanceof ArrayValue
  const fractions = arrayForm ? (direct[0] as ArrayValue).items.map(fractionOf) : [fractionOf(direct[0] ?? null)]
  const asArray = arrayForm ? (values: unknown[]) => new ArrayValue(values) : null
  let aggregator: ivm.Aggregator<unknown, unknown>
  switch (a.fn) {
    case 'percentile_cont': {
      const interpolate = key.expr.type === 'interval' ? (lo: unknown, hi: unknown, f: number) => intervalLerp(lo as Interval, hi as Interval, f) : ivm.interpolateDouble
      aggregator = ivm.percentileCont(cmp, interpolate, fractions, asArray) as ivm.Aggregator<unknown, unknown>
      break
    }
    case 'percentile_disc':
      aggregator = ivm.percentileDisc(cmp, fractions, asArray) as ivm.Aggregator<unknown, unknown>
      break
    case 'mode':
      aggregator = ivm.mode(cmp) as ivm.Aggregator<unknown, unknown>
      break
    default: {
      const relativeError = (direct[1] ?? 0.01) as number | null
      if (relativeError === null || !(relativeError > 0 && relativeError < 1)) throw new RivuletError(SqlState.numericValueOutOfRange, `relative error ${relativeError} is not between 0 and 1 (exclusive)`)
      const q = fractions[0] ?? null
      aggregator = (q === null ? nullAggregate : ivm.approxPercentile(q, relativeError, key.desc)) as ivm.Aggregator<unknown, unknown>
    }
  }
  return { aggregator, arg, filter }
}

/** An aggregate whose result is null whatever the rows (approx_percentile(NULL)). */
const nullAggregate: ivm.Aggregator<null, null> = { name: 'null', create: () => null, add: (acc) => acc, result: () => null }

interface SingleValueAcc {
  /** Non-null values by key with their weights, and the weight of NULL values. */
  readonly values: Map<ivm.RowKey, [unknown, number]>
  rows: number
}

/** The value of a scalar subquery: its only row's value, NULL without rows, and an error
 *  (as in Postgres) when a key has more than one row. */
const singleValue: ivm.Aggregator<SingleValueAcc, unknown> = {
  name: 'singleValue',
  create: () => ({ values: new Map(), rows: 0 }),
  add(acc, value, weight) {
    acc.rows += weight
    if (value === null || value === undefined) return acc
    const k = ivm.valueKey(value)
    const e = acc.values.get(k)
    if (e) {
      e[1] += weight
      if (e[1] === 0) acc.values.delete(k)
    } else acc.values.set(k, [value, weight])
    return acc
  },
  result(acc) {
    if (acc.rows > 1) throw new RivuletError(SqlState.cardinalityViolation, 'more than one row returned by a subquery used as an expression')
    for (const [v] of acc.values.values()) return v
    return null
  },
}
