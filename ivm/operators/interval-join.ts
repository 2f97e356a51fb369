// IntervalJoinOperator — interval (time-band) equi-join, inner or outer:
// `a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL '1' MINUTE AND a.ts + INTERVAL '1' HOUR`.
//
// Semantics:  l ~ r (l matches r) ⇔ k(l) = k(r) with no NULL in either key, both times non-NULL,
//             l.t + lower ⊲ r.t ⊲ l.t + upper (⊲ is ≤ when that side is inclusive, else <;
//             this is lower ⊲ r.t − l.t ⊲ upper, written with one addition per bound so every
//             test below uses the very same floating-point values), and residual(l, r).
//             With m(l) = Σ_{r ~ l} R(r) (the matches of l, counted with weights) and
//             symmetrically m(r) = Σ_{l ~ r} L(l):
//               L ⋈ R = Σ_{l ~ r} ([...l, ...r], L(l)·R(r))
//               outer = L ⋈ R + Σ_{l ∈ L, m(l) ≤ 0} ([...l, ...NULLᵣ], L(l))     (left, full)
//                             + Σ_{r ∈ R, m(r) ≤ 0} ([...NULLₗ, ...r], R(r))     (right, full)
//             (a row with a NULL key or time matches nothing, so it is null-extended as is).
//             Per step, with L, R, m the state before it:
//               out = ΔL ⋈ R + L ⋈ ΔR + ΔL ⋈ ΔR                          (= new − old pairs)
//                   + Σ_{l touched} (L′(l)·[m′(l) ≤ 0] − L(l)·[m(l) ≤ 0]) ⊗ NULLᵣ  (+ right)
//             where m′(l) = m(l) + Σ_{δr ∈ ΔR, δr ~ l} ΔR(δr) for l ∈ L, and for a new row
//             m′(l) = Σ_{r ∈ R, r ~ l} R(r) + Σ_{δr ~ l} ΔR(δr); l is touched when it is in ΔL
//             or some δr matches it (every other row keeps both terms). So a first match
//             retracts the null-extended row, losing the last one re-inserts it.
//             `finalOuter` (EMIT ON WINDOW CLOSE): pairs are emitted as above, but the
//             null-extended row of l is emitted in advance() once l is dead (no right row that
//             can still arrive matches it, see below), with weight L(l)·[m(l) ≤ 0] — m(l) is
//             final by then. `pad(l)` remembers what was emitted; a later change of a dead l
//             (possible while l.t ≥ wl) emits the difference at once. Rows with a NULL key or
//             time are final at once and null-extended in step(). Once the watermarks pass
//             every row, the integral equals the batch result above.
//
// State kept: per side, Map key → sorted array of the distinct times held, and per time a
//             bucket of entries (distinct rows: row, weight, and for a preserved side of an
//             outer join the match count m and, with finalOuter, the pad weight emitted). One
//             entry object per distinct row; a bucket past 32 rows keeps a row-key index.
//             Rows with a NULL key or time are not kept (they never match).
//             Checkpoint (saveState): per side, the key sides in map order with their times and
//             per time the entries (row, weight, m, pad) in bucket order; loadState rebuilds the
//             sides, buckets (and their indexes) and one exact free hint per key side.
//             Incremental (saveKeyed): each key side is an entry, keyed by its side and key
//             (partKey); once a checkpoint has asked, every change to a side's entries, and its
//             joining or leaving its map, is noted on the side itself (object-changes.ts: a
//             side that came and went between two checkpoints costs nothing), so the next part
//             holds only those sides.
//             Derived sides (deriveSides): a side that keeps no match counts or pads and that
//             the watermarks free holds exactly the input rows advance() has not freed, so a
//             checkpoint may leave it out when its input's history is kept (a stream's, in the
//             log): refill() rebuilds it from that history after loadKeyed. Its changes are
//             then not noted, and no snapshot copies its key sides.
//
// Freeing:    with both watermarks (every later left change, insert or delete, has time ≥ wl;
//             right: ≥ wr; watermarks never decrease, except when a rollback restores them with
//             the state), advance() forgets
//               left l  iff  l.t < wl  and  deadL(l.t) := (l.t + upper < wr, or ≤ when upper is
//                                                          exclusive)
//               right r iff  r.t < wr  and  deadR(r.t) := (wl + lower > r.t, or ≥ when lower is
//                                                          exclusive)
//             Both tests are monotone in the time, so each side of a key frees a prefix.
//             Proof (left; right mirrored). (i) No later change is l itself: it would have
//             time l.t < wl. (ii) No later right change δr matches l: δr.t ≥ wr, and deadL says
//             wr ⊲ l.t + upper fails, hence δr.t ⊲ l.t + upper fails (rounding of a sum is
//             monotone, and the same sum is used by the match test). For deadR: δl.t ≥ wl gives
//             δl.t + lower ≥ wl + lower, so δl.t + lower ⊲ r.t fails. (iii) A step reads a held
//             left entry only (a) as a partner of a ΔR row (L ⋈ ΔR, m′ of a new right row):
//             excluded by (ii); (b) when l is touched (its own change, or a ΔR row matching it):
//             excluded by (i), (ii). So l is never read again and its outputs (pairs, and its
//             null-extended row, whose status m(l) ≤ 0 is settled) never change. (iv) A kept
//             row never needs a forgotten partner: m is stored as a number, and a row l′ that
//             can still change has l′.t ≥ wl, so any r ~ l′ fails deadR(r.t) (l′ is a possible
//             later left change matching r) and is kept; the same holds for every row a later
//             ΔL can bring. With finalOuter the pads of dead rows are emitted before they are
//             forgotten (freeable ⊂ dead). An infinite bound (upper = +∞ for the left side,
//             lower = −∞ for the right) keeps that side forever. (Inner joins could forget a
//             dead l with l.t ≥ wl; the rule stays the same so that a forgotten row is never
//             seen again.) Forgetting emits nothing and is journaled, so rollback restores it.
//             Free hints: advance() does not scan the keys. Both tests are downward closed in
//             the time, so a key side has something to free (t < own watermark ∧ dead(t)) or,
//             with finalOuter, to pad (dead(t)) only if its first time does. Per side a
//             min-heap of (time, key side) holds one live hint per key side at a time ≤ its
//             first time (KeySide.hint; entries with another time, or of a side no longer in
//             its map, are stale and skipped). A step pushes a hint when it lowers a side's
//             first time (a new side, or a row before its first time); advance() pops the due
//             hints, visits those sides (pads, frees their dead prefix) and re-hints them at
//             their new first time, which is not due (with finalOuter, a side still holding
//             dead rows — times ≥ its own watermark — is re-hinted after the loop, so it is
//             visited once per advance() while it holds them, as before). Rollback re-hints
//             every side whose first time it lowered (re-inserted rows, freed prefixes put
//             back). Stale hints are skipped when popped, and dropped at once when they make
//             up most of a heap (keys coming and going while the watermarks stand still). A
//             side that is never freed (infinite bound, or no watermarks) keeps no hints.
//
// Linear:     no (bilinear).
// Retracts:   yes (default); with finalOuter the output is append-only for append-only input.
//
// Rollback:   user code (`residual`) and time validation run in a first pass that only reads
//             state and builds the pair output; the second pass updates state and journals,
//             per touched entry, its weight, matches and pad before the step (a removed entry
//             is re-inserted, a created one removed), and per advance() the freed prefixes and
//             the pad changes. So rollback() restores the state exactly.
//
// Cost per step: O(|Δ| log n + candidate pairs in the band (residual evaluated on each) +
// touched rows), n the rows of the key on the other side; an insert in time order is O(1)
// to place, an out-of-order one splices. When both sides change in one step the output is
// consolidated (the probes can produce entries that cancel), as in JoinOperator.
// A step lowering a side's first time pushes a hint (O(log h), h = hints held).
// advance(): O((key sides with something due + stale hints passed) · log h + rows freed),
// plus, with finalOuter, the dead rows still held (only rows with time ≥ their own watermark);
// idle keys are not visited.

import type { Circuit } from '../circuit.js'
import { hasNull, keyFunction, rowKey, rowsEqual, type RowKey } from '../key.js'
import { ALL_CHANGED, type ChangeShares, type KeyedEntries, type KeyedPart, type KeyedSnapshot } from '../keyed-state.js'
import { fuzzyObjectBase, ObjectChanges, snapshotObjects } from '../object-changes.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { concatRows, ZSet, type Row } from '../zset.js'
import { lowerBound, sortByTime, TimeHeap } from '../sorted.js'

export type IntervalJoinKind = 'inner' | 'left' | 'right' | 'full'

export interface IntervalJoinOptions {
  /** Equality columns (may be empty = pure band join). */
  readonly leftKey: readonly number[]
  readonly rightKey: readonly number[]
  /** Column holding a number (µs) or null. */
  readonly leftTime: number
  readonly rightTime: number
  /** The band: a pair matches iff lower ⊲ r.time − l.time ⊲ upper, where ⊲ is ≤ when inclusive else <.
   *  lower may be -Infinity or upper +Infinity (one-sided bands, e.g. `b.ts > a.ts`). */
  readonly lower: number
  readonly upper: number
  readonly lowerInclusive: boolean
  readonly upperInclusive: boolean
  readonly kind: IntervalJoinKind
  readonly leftWidth: number
  readonly rightWidth: number
  /** Extra ON conditions evaluated on a candidate pair (part of the match for outer joins). May throw (user code). */
  readonly residual?: (l: Row, r: Row) => boolean
  /** Every later LEFT change (insert or delete) has time ≥ leftWatermark(). */
  readonly leftWatermark?: () => number
  readonly rightWatermark?: () => number
  /** Emit null-extended (outer) rows only once no match can arrive any more (needs both watermarks). */
  readonly finalOuter?: boolean
}

/** One distinct row held on one side. */
class Entry {
  readonly row: Row
  readonly time: number
  readonly side: KeySide
  weight = 0
  /** Σ weights of the matching rows on the other side (preserved sides of outer joins). */
  matches = 0
  /** finalOuter: weight of the null-extended row emitted so far. */
  pad = 0
  /** Position in its bucket (valid while in it). */
  pos = 0
  /** In its bucket (false once removed at weight 0; a freed entry stays true). */
  live = false
  /** Step stamp of the last touch, and the values before that step. */
  stamp = 0
  w0 = 0
  m0 = 0
  p0 = 0

  constructor(row: Row, time: number, side: KeySide) {
    this.row = row
    this.time = time
    this.side = side
  }
}

/** Above this many rows at one time, a bucket keeps a key index instead of scanning. */
const BUCKET_SCAN = 32

/** The entries held at one time of one key (order irrelevant; swap-remove). */
class Bucket {
  readonly entries: Entry[] = []
  #index: Map<RowKey, Entry> | null = null

  find(row: Row): Entry | undefined {
    const idx = this.#index
    if (idx !== null) return idx.get(rowKey(row))
    const es = this.entries
    for (let i = 0; i < es.length; i++) if (rowsEqual(es[i]!.row, row)) return es[i]
    return undefined
  }

  add(e: Entry): void {
    const es = this.entries
    e.pos = es.length
    es.push(e)
    if (this.#index !== null) this.#index.set(rowKey(e.row), e)
    else if (es.length > BUCKET_SCAN) {
      const m = new Map<RowKey, Entry>()
      for (let i = 0; i < es.length; i++) m.set(rowKey(es[i]!.row), es[i]!)
      this.#index = m
    }
  }

  remove(e: Entry): void {
    const es = this.entries
    const last = es.length - 1
    if (e.pos !== last) {
      const moved = es[last]!
      es[e.pos] = moved
      moved.pos = e.pos
    }
    es.pop()
    if (this.#index !== null) this.#index.delete(rowKey(e.row))
  }
}

/** One side's rows under one key, by time. */
class KeySide {
  readonly key: RowKey
  readonly left: boolean
  /** Its key in incremental checkpoints (see partKey), made when first needed. */
  pk: string | undefined = undefined
  /** ObjectChanges' marks (incremental checkpoints). */
  born = 0
  mark = 0
  shot = 0
  shotAt = 0
  /** Distinct times held, ascending. */
  times: number[] = []
  /** buckets[i] = the entries at times[i] (never empty). */
  buckets: Bucket[] = []
  /** The time of this side's live free hint (Infinity: none): its side's hint heap holds
   *  (hint, this) and hint ≤ times[0]. Heap entries of this side with another time are stale. */
  hint = Infinity

  constructor(key: RowKey, left: boolean) {
    this.key = key
    this.left = left
  }
}

/** Free hints of one side: (time, key side). */
type HintHeap = TimeHeap<KeySide>

/** Undo record of a step: the entries touched and their [weight, matches, pad] before it. */
class StepUndo {
  readonly entries: Entry[]
  readonly old: number[]
  constructor(entries: Entry[], old: number[]) {
    this.entries = entries
    this.old = old
  }
}

/** A prefix of a key side freed by advance(). */
interface Freed {
  readonly side: KeySide
  readonly times: number[]
  readonly buckets: Bucket[]
  readonly entries: number
}

/** Undo record of an advance(): pads emitted (with their previous values), prefixes freed. */
class AdvanceUndo {
  readonly pads: Entry[] = []
  readonly oldPads: number[] = []
  readonly freed: Freed[] = []
}

/** One side's share of a step's delta under one key, sorted by time. */
class SideDelta {
  rows: Row[] = []
  times: number[] = []
  weights: number[] = []
  /** Preserved side: m′ of the row if it is new (matches in the other side's old state + delta). */
  base: number[] | null = null
}

class Group {
  readonly key: RowKey
  l: SideDelta | null = null
  r: SideDelta | null = null
  constructor(key: RowKey) {
    this.key = key
  }
}

/** Pending match-count changes of held entries (entry, Δm). */
class MatchChanges {
  readonly entries: Entry[] = []
  readonly deltas: number[] = []
}

/** One side's rows in a checkpoint (plain data, see saveState): the key sides in map order,
 *  nTimes[k] distinct times each (all concatenated in `times`), sizes[i] entries at times[i],
 *  and the entries flat in that order (bucket order within a time). */
interface SideState {
  readonly keys: RowKey[]
  readonly nTimes: number[]
  readonly times: number[]
  readonly sizes: number[]
  readonly rows: Row[]
  readonly weights: number[]
  readonly matches: number[]
  readonly pads: number[]
}

/** A key side in an incremental checkpoint: its entries' rows and weights, in time and bucket
 *  order (the times and buckets follow from the rows' time column), and their match counts and
 *  pads when any is not 0 (outer joins) — without them it has the shape of an arrangement's
 *  bucket, which the part codec stores in columns. Its key is in its part key. */
interface KeySideEntry {
  readonly r: Row[]
  readonly w: number[]
  readonly m?: number[]
  readonly p?: number[]
}

/** A key side's key in incremental checkpoints: one string per side and key (the key's type,
 *  then its text, which gives a number back exactly), so both sides' maps share one part. */
function partKey(ks: KeySide): string {
  if (ks.pk !== undefined) return ks.pk
  const k = ks.key
  const tag = k === null ? 'z' : typeof k === 'number' ? 'n' : typeof k === 'string' ? 's' : typeof k === 'bigint' ? 'i' : 'b'
  return (ks.pk = (ks.left ? 'L' : 'R') + tag + String(k))
}

function keyOfPartKey(pk: string): { left: boolean; key: RowKey } {
  const text = pk.slice(2)
  const key = pk[1] === 'z' ? null : pk[1] === 'n' ? Number(text) : pk[1] === 's' ? text : pk[1] === 'i' ? BigInt(text) : text === 'true'
  return { left: pk[0] === 'L', key }
}

/** What IntervalJoinOperator.saveState returns. */
interface IntervalJoinState {
  readonly left: SideState
  readonly right: SideState
}

function emptySide(): SideState {
  return { keys: [], nTimes: [], times: [], sizes: [], rows: [], weights: [], matches: [], pads: [] }
}

/** First index i in ascending `a` with a[i] > x (strict) or a[i] ≥ x (a.length if none). */
function firstAbove(a: readonly number[], x: number, strict: boolean): number {
  let lo = 0
  let hi = a.length
  if (strict) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (a[mid]! > x) hi = mid
      else lo = mid + 1
    }
  } else {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (a[mid]! >= x) hi = mid
      else lo = mid + 1
    }
  }
  return lo
}

/** First index i in ascending left times `a` with rt ⊲ a[i] + upper (holds from there on). */
function firstUpperHolds(a: readonly number[], rt: number, upper: number, inclusive: boolean): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const h = a[mid]! + upper
    if (inclusive ? rt <= h : rt < h) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** First index i in ascending left times `a` where a[i] + lower ⊲ rt fails (fails from there on). */
function firstLowerFails(a: readonly number[], rt: number, lower: number, inclusive: boolean): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const l = a[mid]! + lower
    if (inclusive ? l <= rt : l < rt) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class IntervalJoinOperator extends BaseOperator {
  readonly name = 'IntervalJoin'
  readonly left: Operator
  readonly right: Operator
  readonly leftKey: readonly number[]
  readonly rightKey: readonly number[]
  readonly leftTime: number
  readonly rightTime: number
  readonly lower: number
  readonly upper: number
  readonly lowerInclusive: boolean
  readonly upperInclusive: boolean
  readonly kind: IntervalJoinKind
  readonly leftWidth: number
  readonly rightWidth: number
  readonly finalOuter: boolean
  readonly #residual: ((l: Row, r: Row) => boolean) | undefined
  readonly #leftWatermark: (() => number) | undefined
  readonly #rightWatermark: (() => number) | undefined
  readonly #leftKeyOf: (row: Row) => RowKey
  readonly #rightKeyOf: (row: Row) => RowKey
  readonly #preserveLeft: boolean
  readonly #preserveRight: boolean
  readonly #nullLeft: Row
  readonly #nullRight: Row
  readonly #left = new Map<RowKey, KeySide>()
  readonly #right = new Map<RowKey, KeySide>()
  readonly #journal = new Journal<StepUndo | AdvanceUndo>()
  /** Key sides changed since the last saveKeyed (null until one asked). */
  #changes: ObjectChanges<KeySide> | null = null
  /** Sides checkpoints leave out, rebuilt from their input's history instead (see the
   *  header: Derived sides). */
  #derivedLeft = false
  #derivedRight = false
  #leftRows = 0
  #rightRows = 0
  #stamp = 0
  /** Free hints of the left / right key sides (null: that side is never freed — no
   *  watermarks, or an infinite bound on that side). See the header. */
  readonly #leftHints: HintHeap | null
  readonly #rightHints: HintHeap | null
  /** Key sides advance() has examined (for tests: proportional to the keys with something
   *  due, not to the keys held). */
  #visits = 0

  constructor(left: Operator, right: Operator, options: IntervalJoinOptions) {
    super([left, right])
    if (options.leftKey.length !== options.rightKey.length) {
      throw new Error(`internal: interval join key arity mismatch (${options.leftKey.length} vs ${options.rightKey.length})`)
    }
    if (options.lower !== options.lower || options.upper !== options.upper) throw new Error('IntervalJoin: band bounds must be numbers')
    const hasWatermarks = options.leftWatermark !== undefined && options.rightWatermark !== undefined
    if (options.finalOuter === true && !hasWatermarks) throw new Error('IntervalJoin: finalOuter needs both watermarks')
    this.left = left
    this.right = right
    this.leftKey = options.leftKey.slice()
    this.rightKey = options.rightKey.slice()
    this.leftTime = options.leftTime
    this.rightTime = options.rightTime
    this.lower = options.lower
    this.upper = options.upper
    this.lowerInclusive = options.lowerInclusive
    this.upperInclusive = options.upperInclusive
    this.kind = options.kind
    this.leftWidth = options.leftWidth
    this.rightWidth = options.rightWidth
    this.finalOuter = options.finalOuter === true
    this.#residual = options.residual
    this.#leftWatermark = options.leftWatermark
    this.#rightWatermark = options.rightWatermark
    this.#leftKeyOf = keyFunction(this.leftKey)
    this.#rightKeyOf = keyFunction(this.rightKey)
    this.#preserveLeft = options.kind === 'left' || options.kind === 'full'
    this.#preserveRight = options.kind === 'right' || options.kind === 'full'
    this.#nullLeft = new Array<unknown>(options.leftWidth).fill(null)
    this.#nullRight = new Array<unknown>(options.rightWidth).fill(null)
    this.#leftHints = hasWatermarks && options.upper !== Infinity ? new TimeHeap<KeySide>() : null
    this.#rightHints = hasWatermarks && options.lower !== -Infinity ? new TimeHeap<KeySide>() : null
  }

  step(): void {
    this.out = ZSet.empty()
    const dl = this.inputs[0]!.out
    const dr = this.inputs[1]!.out
    const hasL = dl.rows.length !== 0
    const hasR = dr.rows.length !== 0
    if (!hasL && !hasR) return
    const out = new ZSet()
    // pass 1 (may throw: time validation, residual): reads state, builds the pair output
    const groups = new Map<RowKey, Group>()
    if (hasL) this.#group(dl, true, groups, out)
    if (hasR) this.#group(dr, false, groups, out)
    const ml = this.#preserveLeft && hasR ? new MatchChanges() : null
    const mr = this.#preserveRight && hasL ? new MatchChanges() : null
    for (const g of groups.values()) this.#probe(g, out, ml, mr)
    // pass 2 (no user code): update the state, journal, null-extended rows
    const stamp = ++this.#stamp
    const touched: Entry[] = []
    for (const g of groups.values()) {
      if (g.l !== null) this.#absorb(g.key, g.l, true, stamp, touched)
      if (g.r !== null) this.#absorb(g.key, g.r, false, stamp, touched)
    }
    if (ml !== null) this.#applyMatches(ml, stamp, touched)
    if (mr !== null) this.#applyMatches(mr, stamp, touched)
    if (touched.length !== 0) {
      const old = new Array<number>(touched.length * 3)
      const finalOuter = this.finalOuter
      for (let i = 0; i < touched.length; i++) {
        const e = touched[i]!
        old[3 * i] = e.w0
        old[3 * i + 1] = e.m0
        old[3 * i + 2] = e.p0
        if (e.side.left ? this.#preserveLeft : this.#preserveRight) {
          if (!finalOuter) {
            const before = e.w0 !== 0 && e.m0 <= 0 ? e.w0 : 0
            const after = e.weight !== 0 && e.matches <= 0 ? e.weight : 0
            if (after !== before) out.push(this.#pad(e), after - before)
          } else if (e.pad !== 0) {
            // dead and null-extended already: m is final, follow the weight
            const target = e.matches <= 0 ? e.weight : 0
            if (target !== e.pad) {
              out.push(this.#pad(e), target - e.pad)
              e.pad = target
            }
          }
        }
        if (e.weight === 0 && e.live) this.#remove(e)
      }
      this.#journal.record(new StepUndo(touched, old))
    }
    this.out = hasL && hasR ? out.consolidate() : out
  }

  /** Groups a delta by key (validating times); rows with a NULL key or time never match: a
   *  preserved side null-extends them at once. */
  #group(d: ZSet, isLeft: boolean, groups: Map<RowKey, Group>, out: ZSet): void {
    const rows = d.rows
    const ws = d.weights
    const tc = isLeft ? this.leftTime : this.rightTime
    const cols = isLeft ? this.leftKey : this.rightKey
    const keyOf = isLeft ? this.#leftKeyOf : this.#rightKeyOf
    const preserve = isLeft ? this.#preserveLeft : this.#preserveRight
    for (let i = 0; i < rows.length; i++) {
      const w = ws[i]!
      if (w === 0) continue
      const r = rows[i]!
      const t = r[tc]
      if (t === null || t === undefined || hasNull(r, cols)) {
        if (preserve) out.push(isLeft ? concatRows(r, this.#nullRight) : concatRows(this.#nullLeft, r), w)
        continue
      }
      if (typeof t !== 'number' || !Number.isFinite(t)) {
        throw new Error(`IntervalJoin: ${isLeft ? 'left' : 'right'} time column #${tc} must be a finite number, got ${String(t)}`)
      }
      const k = keyOf(r)
      let g = groups.get(k)
      if (g === undefined) {
        g = new Group(k)
        groups.set(k, g)
      }
      let sd = isLeft ? g.l : g.r
      if (sd === null) {
        sd = new SideDelta()
        if (isLeft) g.l = sd
        else g.r = sd
      }
      sd.rows.push(r)
      sd.times.push(t)
      sd.weights.push(w)
    }
    for (const g of groups.values()) {
      const sd = isLeft ? g.l : g.r
      if (sd === null) continue
      sortByTime(sd)
      if (preserve && sd.base === null) sd.base = new Array<number>(sd.rows.length).fill(0)
    }
  }

  /** Pass 1 for one key: out += ΔL ⋈ R + L ⋈ ΔR + ΔL ⋈ ΔR (old state), the match counts of
   *  possibly new delta rows (base), and the match-count changes of held entries. */
  #probe(g: Group, out: ZSet, ml: MatchChanges | null, mr: MatchChanges | null): void {
    const lk = this.#left.get(g.key)
    const rk = this.#right.get(g.key)
    const residual = this.#residual
    const lower = this.lower
    const upper = this.upper
    const loIn = this.lowerInclusive
    const upIn = this.upperInclusive
    const gl = g.l
    const gr = g.r
    if (gl !== null && (rk !== undefined || gr !== null)) {
      const lrows = gl.rows
      const lts = gl.times
      const lws = gl.weights
      const lbase = gl.base
      for (let i = 0; i < lrows.length; i++) {
        const l = lrows[i]!
        const w = lws[i]!
        const lo = lts[i]! + lower
        const hi = lts[i]! + upper
        let m = 0
        if (rk !== undefined) {
          // ΔL ⋈ R: right times in (lo, hi) with the band's inclusivity
          const times = rk.times
          const buckets = rk.buckets
          const end = firstAbove(times, hi, upIn)
          for (let b = firstAbove(times, lo, !loIn); b < end; b++) {
            const es = buckets[b]!.entries
            for (let x = 0; x < es.length; x++) {
              const e = es[x]!
              if (residual !== undefined && !residual(l, e.row)) continue
              out.push(concatRows(l, e.row), w * e.weight)
              m += e.weight
              if (mr !== null) {
                mr.entries.push(e)
                mr.deltas.push(w)
              }
            }
          }
        }
        if (gr !== null) {
          // ΔL ⋈ ΔR
          const rrows = gr.rows
          const rws = gr.weights
          const rbase = gr.base
          const times = gr.times
          const end = firstAbove(times, hi, upIn)
          for (let j = firstAbove(times, lo, !loIn); j < end; j++) {
            const r = rrows[j]!
            if (residual !== undefined && !residual(l, r)) continue
            out.push(concatRows(l, r), w * rws[j]!)
            m += rws[j]!
            if (rbase !== null) rbase[j]! += w
          }
        }
        if (lbase !== null) lbase[i] = m
      }
    }
    if (gr !== null && lk !== undefined) {
      // L ⋈ ΔR: left times t with t + lower ⊲ r.t ⊲ t + upper
      const rrows = gr.rows
      const rts = gr.times
      const rws = gr.weights
      const rbase = gr.base
      const times = lk.times
      const buckets = lk.buckets
      for (let j = 0; j < rrows.length; j++) {
        const r = rrows[j]!
        const w = rws[j]!
        const rt = rts[j]!
        const end = firstLowerFails(times, rt, lower, loIn)
        for (let b = firstUpperHolds(times, rt, upper, upIn); b < end; b++) {
          const es = buckets[b]!.entries
          for (let x = 0; x < es.length; x++) {
            const e = es[x]!
            if (residual !== undefined && !residual(e.row, r)) continue
            out.push(concatRows(e.row, r), e.weight * w)
            if (rbase !== null) rbase[j]! += e.weight
            if (ml !== null) {
              ml.entries.push(e)
              ml.deltas.push(w)
            }
          }
        }
      }
    }
  }

  /** Pass 2: adds a side delta to the key's entries (creating new ones with m = base). */
  #absorb(key: RowKey, d: SideDelta, isLeft: boolean, stamp: number, touched: Entry[]): void {
    const map = isLeft ? this.#left : this.#right
    let ks = map.get(key)
    if (ks === undefined) {
      ks = new KeySide(key, isLeft)
      map.set(key, ks)
      this.#tracker(ks)?.inserted(ks)
    } else this.#tracker(ks)?.changed(ks)
    const rows = d.rows
    const ts = d.times
    const ws = d.weights
    const base = d.base
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const t = ts[i]!
      const times = ks.times
      const n = times.length
      const at = n === 0 || times[n - 1]! < t ? n : lowerBound(times, t)
      let bucket: Bucket
      let e: Entry | undefined
      if (at < n && times[at] === t) {
        bucket = ks.buckets[at]!
        e = bucket.find(row)
      } else {
        bucket = new Bucket()
        if (at === n) {
          times.push(t)
          ks.buckets.push(bucket)
        } else {
          times.splice(at, 0, t)
          ks.buckets.splice(at, 0, bucket)
        }
      }
      if (e === undefined) {
        // new (a repeat of the row later in this delta finds it and adds no base)
        e = new Entry(row, t, ks)
        e.stamp = stamp
        e.matches = base !== null ? base[i]! : 0
        e.live = true
        bucket.add(e)
        if (isLeft) this.#leftRows++
        else this.#rightRows++
        touched.push(e)
      } else if (e.stamp !== stamp) {
        e.stamp = stamp
        e.w0 = e.weight
        e.m0 = e.matches
        e.p0 = e.pad
        touched.push(e)
      }
      e.weight += ws[i]!
    }
    this.#rehint(ks)
  }

  #applyMatches(mc: MatchChanges, stamp: number, touched: Entry[]): void {
    const es = mc.entries
    const ds = mc.deltas
    for (let i = 0; i < es.length; i++) {
      const e = es[i]!
      if (e.stamp !== stamp) {
        e.stamp = stamp
        e.w0 = e.weight
        e.m0 = e.matches
        e.p0 = e.pad
        touched.push(e)
      }
      // noted before the change (a checkpoint's snapshot may copy the key side first)
      this.#tracker(e.side)?.changed(e.side)
      e.matches += ds[i]!
    }
  }

  #pad(e: Entry): Row {
    return e.side.left ? concatRows(e.row, this.#nullRight) : concatRows(this.#nullLeft, e.row)
  }

  /** Takes a live entry out of its bucket (and its key side out of the map when empty). */
  #remove(e: Entry): void {
    const ks = e.side
    this.#tracker(ks)?.changed(ks)
    const times = ks.times
    const at = lowerBound(times, e.time)
    const bucket = ks.buckets[at]!
    bucket.remove(e)
    e.live = false
    if (ks.left) this.#leftRows--
    else this.#rightRows--
    if (bucket.entries.length === 0) {
      times.splice(at, 1)
      ks.buckets.splice(at, 1)
      if (times.length === 0) {
        const map = ks.left ? this.#left : this.#right
        if (map.get(ks.key) === ks) {
          this.#tracker(ks)?.deleted(ks)
          map.delete(ks.key)
        }
      }
    }
  }

  /** Puts a removed entry back (rollback). */
  #reinsert(e: Entry): void {
    const ks = this.#attach(e.side)
    const times = ks.times
    const n = times.length
    const at = n === 0 || times[n - 1]! < e.time ? n : lowerBound(times, e.time)
    let bucket: Bucket
    if (at < n && times[at] === e.time) bucket = ks.buckets[at]!
    else {
      bucket = new Bucket()
      times.splice(at, 0, e.time)
      ks.buckets.splice(at, 0, bucket)
    }
    bucket.add(e)
    e.live = true
    if (ks.left) this.#leftRows++
    else this.#rightRows++
    this.#rehint(ks)
  }

  /** Keeps the hint invariant (hint ≤ first time, and in the heap) of a key side whose first
   *  time may have gone down (an insert before it, or a rollback putting rows back). */
  #rehint(ks: KeySide): void {
    const times = ks.times
    if (times.length === 0 || !(times[0]! < ks.hint)) return
    const heap = ks.left ? this.#leftHints : this.#rightHints
    if (heap === null) return
    ks.hint = times[0]!
    heap.push(ks.hint, ks)
    const map = ks.left ? this.#left : this.#right
    if (heap.size > 2 * map.size + 1024) {
      // mostly stale hints (keys that came and went while the watermarks stood still): drop
      // them; a side not in its map now loses its hint (a rollback re-attaching it re-hints)
      heap.filter((t, s) => {
        if (s.hint !== t) return false
        if (map.get(s.key) === s) return true
        s.hint = Infinity
        return false
      })
    }
  }

  /** Makes sure a key side is in its map (rollback: newest-first undo finds the map as it was
   *  right after the undone change, where the side was either present or emptied and dropped). */
  #attach(ks: KeySide): KeySide {
    const map = ks.left ? this.#left : this.#right
    if (!map.has(ks.key)) {
      map.set(ks.key, ks)
      this.#tracker(ks)?.inserted(ks)
    } else this.#tracker(ks)?.changed(ks)
    return ks
  }

  /** Left rows dead: no right change with time ≥ wr can match a left row at time t. */
  #deadLeft(t: number, wr: number): boolean {
    const h = t + this.upper
    return this.upperInclusive ? h < wr : h <= wr
  }

  /** Right rows dead: no left change with time ≥ wl can match a right row at time t. */
  #deadRight(t: number, wl: number): boolean {
    const l = wl + this.lower
    return this.lowerInclusive ? l > t : l >= t
  }

  /** End of tick: with finalOuter, null-extends the dead unmatched rows; then forgets the rows
   *  that can neither change nor match any more (see the header). Journaled. */
  advance(): void {
    const lwf = this.#leftWatermark
    const rwf = this.#rightWatermark
    if (lwf === undefined || rwf === undefined) return
    const wl = lwf()
    const wr = rwf()
    const undo = new AdvanceUndo()
    const emitted = new ZSet()
    this.#advanceSide(true, wl, wr, undo, emitted)
    this.#advanceSide(false, wl, wr, undo, emitted)
    if (undo.pads.length !== 0 || undo.freed.length !== 0) this.#journal.record(undo)
    if (emitted.rows.length === 0) return
    // appended: a step in the same pass may already have set `out`
    if (this.out.rows.length === 0) this.out = emitted
    else {
      const merged = new ZSet(this.out.rows.slice(), this.out.weights.slice())
      merged.append(emitted)
      this.out = merged
    }
  }

  /** Visits the key sides of one side whose free hint is due: emits the pads of their dead
   *  rows (finalOuter) and frees their dead prefix; re-hints them exactly. */
  #advanceSide(isLeft: boolean, wl: number, wr: number, undo: AdvanceUndo, emitted: ZSet): void {
    const heap = isLeft ? this.#leftHints : this.#rightHints
    if (heap === null) return
    const map = isLeft ? this.#left : this.#right
    const own = isLeft ? wl : wr
    const other = isLeft ? wr : wl
    const pads = this.finalOuter && (isLeft ? this.#preserveLeft : this.#preserveRight)
    const ht = heap.times
    const hs = heap.items
    /** Key sides still holding dead rows after their visit (pads): due again next advance(). */
    let again: KeySide[] | null = null
    while (ht.length !== 0) {
      const h = ht[0]!
      const dead = isLeft ? this.#deadLeft(h, other) : this.#deadRight(h, other)
      // due: something at or after h may be freed (h < own, dead) or padded (dead)
      if (!dead || (!pads && !(h < own))) break
      const ks = hs[0]!
      heap.pop()
      if (ks.hint !== h) continue // stale: the side has another live hint
      ks.hint = Infinity
      if (map.get(ks.key) !== ks) continue // the side was dropped (a rollback re-hints it)
      this.#visits++
      this.#visitSide(ks, isLeft, own, other, pads, undo, emitted)
      const times = ks.times
      if (times.length === 0) continue
      const t0 = times[0]!
      if (pads && (isLeft ? this.#deadLeft(t0, other) : this.#deadRight(t0, other))) (again ??= []).push(ks)
      else {
        // not due (the visit freed every due time), so the loop does not find it again
        ks.hint = t0
        heap.push(t0, ks)
      }
    }
    if (again !== null) {
      for (const ks of again) {
        ks.hint = ks.times[0]!
        heap.push(ks.hint, ks)
      }
    }
  }

  #visitSide(ks: KeySide, isLeft: boolean, own: number, other: number, pads: boolean, undo: AdvanceUndo, emitted: ZSet): void {
    const times = ks.times
    const n = times.length
    if (!(isLeft ? this.#deadLeft(times[0]!, other) : this.#deadRight(times[0]!, other))) return
    if (pads) {
      for (let b = 0; b < n && (isLeft ? this.#deadLeft(times[b]!, other) : this.#deadRight(times[b]!, other)); b++) {
        const es = ks.buckets[b]!.entries
        for (let x = 0; x < es.length; x++) {
          const e = es[x]!
          const target = e.matches <= 0 ? e.weight : 0
          if (target === e.pad) continue
          undo.pads.push(e)
          undo.oldPads.push(e.pad)
          emitted.push(this.#pad(e), target - e.pad)
          this.#tracker(ks)?.changed(ks)
          e.pad = target
        }
      }
    }
    let cut = 0
    while (cut < n && times[cut]! < own && (isLeft ? this.#deadLeft(times[cut]!, other) : this.#deadRight(times[cut]!, other))) cut++
    if (cut === 0) return
    this.#tracker(ks)?.changed(ks)
    const freedTimes = times.splice(0, cut)
    const freedBuckets = ks.buckets.splice(0, cut)
    let entries = 0
    for (let i = 0; i < freedBuckets.length; i++) entries += freedBuckets[i]!.entries.length
    if (isLeft) this.#leftRows -= entries
    else this.#rightRows -= entries
    undo.freed.push({ side: ks, times: freedTimes, buckets: freedBuckets, entries })
    if (times.length === 0) {
      this.#tracker(ks)?.deleted(ks)
      ;(isLeft ? this.#left : this.#right).delete(ks.key)
    }
  }

  /** How many key sides advance() has examined so far. */
  get advanceVisits(): number {
    return this.#visits
  }

  /** Free hints held, stale ones included (for tests: bounded by the key sides held). */
  get hintsHeld(): number {
    return (this.#leftHints?.size ?? 0) + (this.#rightHints?.size ?? 0)
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((u) => {
      if (u instanceof StepUndo) {
        const es = u.entries
        const old = u.old
        for (let i = es.length - 1; i >= 0; i--) {
          const e = es[i]!
          const w0 = old[3 * i]!
          this.#tracker(e.side)?.changed(e.side)
          if (w0 === 0) {
            if (e.live) this.#remove(e)
          } else if (!e.live) this.#reinsert(e)
          e.weight = w0
          e.matches = old[3 * i + 1]!
          e.pad = old[3 * i + 2]!
        }
      } else {
        for (let i = u.freed.length - 1; i >= 0; i--) {
          const f = u.freed[i]!
          // every later change is undone already: the side holds only times after the prefix
          const ks = this.#attach(f.side)
          ks.times = f.times.concat(ks.times)
          ks.buckets = f.buckets.concat(ks.buckets)
          if (ks.left) this.#leftRows += f.entries
          else this.#rightRows += f.entries
          this.#rehint(ks)
        }
        for (let i = u.pads.length - 1; i >= 0; i--) {
          const e = u.pads[i]!
          this.#tracker(e.side)?.changed(e.side)
          e.pad = u.oldPads[i]!
        }
      }
    })
  }

  /** Whether a side can be left out of checkpoints and rebuilt from its input's history: it
   *  keeps no match counts or pads (it is not preserved by an outer join) and the watermarks
   *  free it, so what it holds is every input row the watermarks have not freed. */
  canDerive(isLeft: boolean): boolean {
    return !(isLeft ? this.#preserveLeft : this.#preserveRight) && (isLeft ? this.#leftHints : this.#rightHints) !== null
  }

  /** Which sides checkpoints leave out from now on (saveKeyed, snapshotKeyed, fuzzyBaseKeyed;
   *  loadKeyed then loads the other side only, and refill() rebuilds these). After a change
   *  the caller's next part must be a base: the notes since the last part no longer match.
   *  Called between ticks, with no snapshot in flight. */
  deriveSides(left: boolean, right: boolean): void {
    if ((left && !this.canDerive(true)) || (right && !this.canDerive(false))) throw new Error('IntervalJoin: a preserved or unbounded side cannot be derived')
    this.#derivedLeft = left
    this.#derivedRight = right
  }

  /** Whether advance() would have freed a row of this side at time t, with the watermarks as
   *  they are now (the test is downward closed in t: a history chunk whose newest time is
   *  freed holds nothing the side keeps). */
  freed(isLeft: boolean, t: number): boolean {
    const lwf = this.#leftWatermark
    const rwf = this.#rightWatermark
    if (lwf === undefined || rwf === undefined) return false
    return this.#freedAt(isLeft, t, lwf(), rwf())
  }

  #freedAt(isLeft: boolean, t: number, wl: number, wr: number): boolean {
    return isLeft ? t < wl && this.#deadLeft(t, wr) : t < wr && this.#deadRight(t, wl)
  }

  /** Rebuilds a derived side after loadKeyed: `history` is every row its input has had (or at
   *  least every one advance() has not freed), in arrival order; the side takes those the
   *  watermarks have not freed, as step() and advance() would have left them. Emits nothing
   *  and journals nothing (the state is committed state). */
  refill(isLeft: boolean, history: ZSet): void {
    const tc = isLeft ? this.leftTime : this.rightTime
    const cols = isLeft ? this.leftKey : this.rightKey
    const keyOf = isLeft ? this.#leftKeyOf : this.#rightKeyOf
    const rows = history.rows
    const weights = history.weights
    const wl = this.#leftWatermark?.() ?? -Infinity
    const wr = this.#rightWatermark?.() ?? -Infinity
    // one row at a time, in arrival order (mostly time order: appended at its key's end)
    const one = new SideDelta()
    const stamp = ++this.#stamp
    const touched: Entry[] = []
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const t = row[tc]
      // (a row with a NULL key or time never entered the side; its time was checked then)
      if (typeof t !== 'number' || this.#freedAt(isLeft, t, wl, wr) || hasNull(row, cols)) continue
      const k = keyOf(row)
      one.rows[0] = row
      one.times[0] = t
      one.weights[0] = weights[i]!
      this.#absorb(k, one, isLeft, stamp, touched)
    }
    for (let i = 0; i < touched.length; i++) if (touched[i]!.weight === 0 && touched[i]!.live) this.#remove(touched[i]!)
  }

  /** The tracker noting a key side's changes: none for a derived side. */
  #tracker(ks: KeySide): ObjectChanges<KeySide> | null {
    return (ks.left ? this.#derivedLeft : this.#derivedRight) ? null : this.#changes
  }

  /** The maps checkpoints save (a derived side's is left out). */
  #savedMaps(): Map<RowKey, KeySide>[] {
    const maps: Map<RowKey, KeySide>[] = []
    if (!this.#derivedLeft) maps.push(this.#left)
    if (!this.#derivedRight) maps.push(this.#right)
    return maps
  }

  /** The held rows of both sides (as of the last commit: called between ticks, when the
   *  journal is empty). Entry objects are flattened into parallel arrays; rows are shared. */
  saveState(): IntervalJoinState {
    return { left: this.#saveSide(this.#left), right: this.#saveSide(this.#right) }
  }

  #saveSide(map: Map<RowKey, KeySide>): SideState {
    const s = emptySide()
    for (const ks of map.values()) {
      s.keys.push(ks.key)
      s.nTimes.push(ks.times.length)
      for (let b = 0; b < ks.times.length; b++) {
        const es = ks.buckets[b]!.entries
        s.times.push(ks.times[b]!)
        s.sizes.push(es.length)
        for (let x = 0; x < es.length; x++) {
          const e = es[x]!
          s.rows.push(e.row)
          s.weights.push(e.weight)
          s.matches.push(e.matches)
          s.pads.push(e.pad)
        }
      }
    }
    return s
  }

  /** Replaces the whole state (a backfilled fresh operator may hold rows) by a saved one. The
   *  free hints are rebuilt one per key side at its first time: the saved operator's hints are
   *  ≤ that, and a hint that is due earlier only leads to a visit that finds nothing, so
   *  advance() frees and pads exactly the same rows. The journal is dropped (the loaded state
   *  is committed state). */
  loadState(state: unknown): void {
    const s = state as IntervalJoinState
    this.#journal.commit()
    this.#changes?.settle()
    this.#changes = null
    this.#leftRows = this.#loadSide(s.left, true)
    this.#rightRows = this.#loadSide(s.right, false)
  }

  /** Incremental checkpoints: every key side of both sides (a base, which starts noting
   *  changes), or the sides changed since the last call. */
  saveKeyed(all: boolean): KeyedPart {
    if (all || this.#changes === null) {
      this.#changes = this.#newChanges()
      const keys: string[] = []
      const values: KeySideEntry[] = []
      for (const map of this.#savedMaps()) {
        for (const ks of map.values()) {
          keys.push(partKey(ks))
          values.push(this.#keySideEntry(ks))
        }
      }
      return { whole: null, keys, values, moved: null }
    }
    const keys: string[] = []
    const values: (KeySideEntry | undefined)[] = []
    const moved: boolean[] = []
    const { changed, inserted } = this.#changes.take()
    // a changed side's key as its map has it now (nothing: gone), then the sides inserted
    // that are still their map's (an inserted side gone since: its removal, if it mattered, is
    // among the changed ones)
    for (let i = 0; i < changed.length; i++) {
      const ks = changed[i]!
      const now = (ks.left ? this.#left : this.#right).get(ks.key)
      keys.push(partKey(ks))
      values.push(now === undefined ? undefined : this.#keySideEntry(now))
      moved.push(false)
    }
    for (let i = 0; i < inserted.length; i++) {
      const ks = inserted[i]!
      if (!this.#isLive(ks)) continue
      keys.push(partKey(ks))
      values.push(this.#keySideEntry(ks))
      moved.push(true)
    }
    return { whole: null, keys, values, moved }
  }

  /** saveKeyed's part, fixed now and read in chunks while ticks go on (KeyedSnapshot): a key
   *  side's entry is a copy of its entries' fields already. */
  snapshotKeyed(all: boolean): KeyedSnapshot {
    const valueOf = (ks: KeySide): KeySide | undefined => (ks.left ? this.#left : this.#right).get(ks.key)
    const entryOf = (ks: KeySide): KeySideEntry => this.#keySideEntry(ks)
    if (all || this.#changes === null) {
      this.#changes = this.#newChanges()
      const sides = this.#savedMaps().flatMap((m) => [...m.values()])
      return snapshotObjects(this.#changes, sides, null, partKey, valueOf, entryOf)
    }
    return snapshotObjects(this.#changes, null, this.#changes.take(), partKey, valueOf, entryOf)
  }

  changeShares(): ChangeShares {
    return this.#changes?.shares ?? ALL_CHANGED
  }

  /** A base read while ticks go on (fuzzyObjectBase), recording changes afresh from here. */
  fuzzyBaseKeyed(): KeyedSnapshot {
    const changes = (this.#changes = this.#newChanges())
    return fuzzyObjectBase(this.#savedMaps(), partKey, (ks) => this.#keySideEntry(ks), (ks) => changes.bornSinceTake(ks))
  }

  #isLive(ks: KeySide): boolean {
    return (ks.left ? this.#left : this.#right).get(ks.key) === ks
  }

  #newChanges(): ObjectChanges<KeySide> {
    return new ObjectChanges<KeySide>(
      (ks) => this.#isLive(ks),
      () => (this.#derivedLeft ? 0 : this.#left.size) + (this.#derivedRight ? 0 : this.#right.size),
    )
  }

  #keySideEntry(ks: KeySide): KeySideEntry {
    // sized up front, and match counts and pads only when one is not 0 (an inner join's never)
    const buckets = ks.buckets
    let n = 0
    let counted = false
    for (let b = 0; b < buckets.length; b++) {
      const es = buckets[b]!.entries
      n += es.length
      if (!counted) for (let x = 0; x < es.length; x++) if (es[x]!.matches !== 0 || es[x]!.pad !== 0) counted = true
    }
    const r = new Array<Row>(n)
    const w = new Array<number>(n)
    const m = counted ? new Array<number>(n) : null
    const p = counted ? new Array<number>(n) : null
    let i = 0
    for (let b = 0; b < buckets.length; b++) {
      const es = buckets[b]!.entries
      for (let x = 0; x < es.length; x++, i++) {
        const en = es[x]!
        r[i] = en.row
        w[i] = en.weight
        if (m !== null) {
          m[i] = en.matches
          p![i] = en.pad
        }
      }
    }
    return m !== null ? { r, w, m, p: p! } : { r, w }
  }

  /** Puts back merged keyed parts (both sides' key sides in their maps' orders). */
  loadKeyed(_whole: unknown, entries: KeyedEntries): void {
    const sides = { left: emptySide(), right: emptySide() }
    for (let i = 0; i < entries.keys.length; i++) {
      const e = entries.values[i] as KeySideEntry
      const { left, key } = keyOfPartKey(entries.keys[i] as string)
      const s = left ? sides.left : sides.right
      const tc = left ? this.leftTime : this.rightTime
      s.keys.push(key)
      const before = s.times.length
      for (let j = 0; j < e.r.length; j++) {
        const row = e.r[j]!
        const t = row[tc] as number
        // a bucket per distinct time: its rows are consecutive (times ascend)
        if (s.times.length === before || s.times[s.times.length - 1] !== t) {
          s.times.push(t)
          s.sizes.push(0)
        }
        s.sizes[s.sizes.length - 1]!++
        s.rows.push(row)
        s.weights.push(e.w[j]!)
        s.matches.push(e.m?.[j] ?? 0)
        s.pads.push(e.p?.[j] ?? 0)
      }
      s.nTimes.push(s.times.length - before)
    }
    this.loadState(sides)
    this.#changes = this.#newChanges()
  }

  /** Rebuilds one side's map and hint heap; returns the entries loaded. */
  #loadSide(s: SideState, isLeft: boolean): number {
    const map = isLeft ? this.#left : this.#right
    const heap = isLeft ? this.#leftHints : this.#rightHints
    map.clear()
    // (the heap's key sides belong to the replaced state)
    if (heap !== null) heap.filter(() => false)
    const tc = isLeft ? this.leftTime : this.rightTime
    let ti = 0
    let ei = 0
    for (let k = 0; k < s.keys.length; k++) {
      const ks = new KeySide(s.keys[k]!, isLeft)
      const nt = s.nTimes[k]!
      for (let b = 0; b < nt; b++, ti++) {
        const bucket = new Bucket()
        const n = s.sizes[ti]!
        for (let x = 0; x < n; x++, ei++) {
          const row = s.rows[ei]!
          // (the time as step() took it: the row's time column, validated when it came in)
          const e = new Entry(row, row[tc] as number, ks)
          e.weight = s.weights[ei]!
          e.matches = s.matches[ei]!
          e.pad = s.pads[ei]!
          e.live = true
          bucket.add(e)
        }
        ks.times.push(s.times[ti]!)
        ks.buckets.push(bucket)
      }
      map.set(ks.key, ks)
      this.#rehint(ks)
    }
    return ei
  }

  override stateSize(): number {
    return this.#leftRows + this.#rightRows
  }

  override describeState(): string {
    const wm = this.#leftWatermark !== undefined && this.#rightWatermark !== undefined
    const freeL = wm && this.upper !== Infinity
    const freeR = wm && this.lower !== -Infinity
    const how = freeL && freeR ? 'freed below the watermarks' : freeL ? 'left freed below the watermarks, right unbounded' : freeR ? 'right freed below the watermarks, left unbounded' : 'unbounded'
    return `left and right rows by key and time (${this.#leftRows} + ${this.#rightRows}); ${how}`
  }
}

export function intervalJoin(circuit: Circuit, left: Operator, right: Operator, options: IntervalJoinOptions): IntervalJoinOperator {
  return circuit.add(new IntervalJoinOperator(left, right, options))
}
