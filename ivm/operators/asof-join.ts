// AsOfJoinOperator — ASOF JOIN: each left row joins the one right row with the same key that is
// nearest in time in the direction of `match` (also the event-time temporal join on a versioned
// table: the version valid at the left row's time, where a deletion is a tombstone version).
//
// Semantics:  for (l, w) ∈ ∫left (w ≠ 0) with no NULL in its key and a non-NULL time, let
//             cand(l) = { r ∈ ∫right with weight > 0, same key, non-NULL time } (a right row of
//             weight 2 is one candidate) and m(l) = the candidate with the greatest time ≤ l.time
//             ('>='), < l.time ('>'), the least time ≥ l.time ('<='), > l.time ('<'); among
//             candidates with that time the first by `tieBreak` (then by compareRows, so the
//             choice is a total order). out = ([...l, ...m(l)], w) when m(l) exists and is not a
//             tombstone (m[live] === false); otherwise ([...l, ...NULLs], w) if `outer`, else
//             nothing. Left rows with a NULL key or time: NULL-extended if `outer`, else dropped;
//             right rows with a NULL key or time never match. Left weights are linear (like
//             Join / OuterJoin: a valid integral has weights > 0, where this is the batch
//             semantics exactly); right weights only decide presence (> 0).
//             '<=' / '<' are '>=' / '>' on negated times, so internally there are two cases:
//             inclusive (greatest rt ≤ x) and strict (greatest rt < x), x = the left time.
//             The delta, per step, is  out(L_old, R_new) − out(L_old, R_old)   (right part)
//                                    + out(L_new, R_new) − out(L_old, R_new)   (left part).
//             Right part, per key: let C = the distinct changed right times and P = the present
//             times (a time is present when it holds a candidate). A left time x matches the
//             first candidate at the greatest present time ≤ x (inclusive) / < x (strict), so
//             the left times split into segments starting at the times of P_old ∪ P_new ∪ C; a
//             segment starting at an unchanged time has the same candidates before and after,
//             and (since P_old \ C = P_new \ C) a changed time t starts the segment
//             [t, next) (inclusive) or (t, next] (strict), next = the least time > t of
//             P_new ∪ C. All left rows of that segment had the match M_old(t) = first at the
//             greatest old present time ≤ t and now have M_new(t); when the two differ (as
//             output: a tombstone and no match are the same) they retract [...l, ...M_old] and
//             emit [...l, ...M_new]. Left part: Δl joined with its match in R_new.
//             So a late right row revises exactly the left rows it now shadows, and deleting a
//             right row un-shadows the older one for the left rows of its segment.
// State kept: per key (keyFunction of the key columns), two timelines: the distinct left times
//             ascending with, per time, the left rows there and their weights, and likewise
//             the right rows. A time holding one row stores it inline (no wrapper); several
//             rows share a bucket (a key index once it holds more than BUCKET_SCAN rows). Matches
//             are not stored: they are found by binary search on the right times, except that
//             each key caches its last present right time and the match there (the match of
//             every later left time, so a left row after it reads no timeline).
//             Freeing (advance(), only for '>=' / '>' with both watermarks; '<=' / '<' keep
//             everything): let wl / wr be the watermarks — every later left / right change has
//             a time ≥ wl / ≥ wr. A right change at t ≥ wr only touches the left rows of t's
//             segment, x ≥ t (inclusive) / x > t (strict), so left rows with x < wr / x ≤ wr
//             have final output. They are forgotten once also x < wl (no later left change can
//             delete them: a deletion must find its row, or it would stay as a negative entry):
//             freed are x < min(wl, wr) (inclusive) / x < wl ∧ x ≤ wr (strict); their output
//             stays downstream. Kept left rows are then x ≥ min(wl, wr) / x ≥ wl ∨ x > wr.
//             A right candidate r at time t with next present time s > t is the match of the
//             left times in [t, s) (inclusive) / (t, s] (strict) only. If s < wr, that range and
//             the candidates at t are frozen: no right change can insert at a time in (t, s),
//             delete at s or change t (all < wr). Then r is needed only by a kept or future
//             (x ≥ wl) left row in its range — a later right change at t' ≥ wr > s reads old
//             matches only to re-emit the left rows of its own segment, x ≥ t', outside r's
//             range — and there is none when s ≤ wl (inclusive: [t, s) lies below
//             s ≤ min(wl, wr), where no left row is kept) / s < wl (strict: (t, s] lies below wl
//             and below wr). So with j = the last present time index with rt[j] < wr and
//             rt[j] ≤ wl (strict: rt[j] < wl), every right row at an index < j is forgotten (its
//             next present time is ≤ rt[j]); the rows at j are kept (they may match future left
//             rows). Tombstones: if the first candidate at j is a tombstone (frozen, as
//             rt[j] < wr), its rows are forgotten too: the left rows it matches are unmatched,
//             as they are with nothing older left, and no kept or future left row lies below
//             rt[j] (where they would now find nothing instead of an older row). So a deleted
//             key of a versioned table leaves no state. Keys with no rows left are deleted.
//             Forgetting emits nothing and is journaled (one flat record per advance()), so
//             rollback restores it.
//             Free hints: advance() does not scan the keys. Left rows of a key are due once its
//             first left time x passes the left bound (x < wl ∧ x < wr / x < wl ∧ x ≤ wr); its
//             right rows once its right trigger s passes the right bound (s < wr ∧ s ≤ wl /
//             s < wr ∧ s < wl), s = the first present time when older slots hold no candidate
//             or its match is a tombstone, else the next present time (both bounds are
//             downward closed in time). Two min-heaps of (time, key) hold, per key, one live
//             hint per side at a time ≤ its first left time / its trigger (Group.lh / rh; an
//             entry with another time, or of a deleted key, is stale and skipped). A step pushes
//             a hint when it lowers one (a left row before the key's hint; a right change,
//             after which the trigger is recomputed). advance() pops the due hints, frees their
//             keys and re-hints them exactly (so what stays is not due, and a key is visited
//             once); rollback re-hints every key an undo touched (stale hints stay, harmless).
//             Checkpoint (saveState): per key its two timelines (times, weights, and per slot
//             the row or a bucket's rows and weights); loadState rebuilds the groups, buckets
//             and exact free hints (the tail cache starts unknown).
// Linear:     no.
// Retracts:   yes.
//
// Cost per step: a left change is O(log v) to find its match (O(1) when its time is after
// the key's last right time) and O(1) to place when its time is at or after the key's last
// left time (else O(log n) plus the splice), v / n = right / left times of its key. A right
// change at t is O(log v + log n) plus the left rows of t's segment when its match changed
// (inherent: they all change output). Ties at one time cost a tieBreak scan of that time's
// rows. A change that lowers a key's hint pushes one (O(log h), h = hints held). advance() is
// O((keys with something due + stale hints passed) · log h + entries freed): idle keys, and
// keys whose rows are not due yet, are not visited.
//
// Journal and user code (tieBreak): old matches are read before anything changes; the right
// delta is journaled and absorbed before the new matches are read; the left delta's matches
// are read next (on R_new) and only then is it journaled and absorbed. So the journal holds
// exactly what was absorbed whenever tieBreak throws, and rollback (re-absorbing the negated
// deltas, newest first, and putting freed prefixes back) is exact.

import type { Circuit } from '../circuit.js'
import { compareRows, hasNull, keyFunction, rowsEqual, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { lowerBound, upperBound, sortByTime, TimeHeap } from '../sorted.js'
import { RowBucket } from '../row-bucket.js'

export interface AsOfJoinOptions {
  /** Equality columns of left rows (may be empty). */
  readonly leftKey: readonly number[]
  /** Equality columns of right rows (same arity as leftKey). */
  readonly rightKey: readonly number[]
  /** Column of the left time (a number, µs, or NULL). */
  readonly leftTime: number
  /** Column of the right time (a number, µs, or NULL). */
  readonly rightTime: number
  /** l.time OP r.time. '>=' : the match is the right row with the greatest time ≤ l.time; '>' : greatest time < l.time;
   *  '<=' : the least time ≥ l.time; '<' : the least time > l.time. */
  readonly match: '>=' | '>' | '<=' | '<'
  /** LEFT: a left row without a match outputs [...l, ...NULLs(rightWidth)]. */
  readonly outer: boolean
  readonly rightWidth: number
  /** Optional column of right rows: a right row whose value there is `false` is a tombstone. It takes part in
   *  choosing the match (it shadows older rows exactly like a real row) but when it IS the match the left row
   *  is unmatched (no output for inner, null-extended for outer). Used for versioned tables: a delete is a
   *  tombstone version. */
  readonly live?: number
  /** Orders right rows with the same key and the same time: the one ordering first is the match (deterministic ties). */
  readonly tieBreak: (a: Row, b: Row) => number
  /** Every later LEFT change (insert or delete) has time ≥ leftWatermark(). */
  readonly leftWatermark?: () => number
  /** Every later RIGHT change (insert or delete) has time ≥ rightWatermark(). */
  readonly rightWatermark?: () => number
}


/** The rows at one time: the row itself (its weight in the parallel weights array) or a RowBucket. */
type Slot = Row | RowBucket

/** One key's state: the left and right timelines (times ascending, distinct; slots and
 *  weights parallel to them; the weight of a Bucket slot is 0, and only of a Bucket slot: a
 *  row of weight 0 is removed — so the weight tells a slot's kind without reading it). */
class Group {
  readonly key: RowKey
  lt: number[] = []
  ls: Slot[] = []
  lw: number[] = []
  rt: number[] = []
  rs: Slot[] = []
  rw: number[] = []
  /** The time of this group's left free hint (Infinity: none): the left hint heap holds
   *  (lh, this), and lh ≤ the first left time (the least time at which a left row can be freed).
   *  Other entries of this group in the heap, with another time, are stale. */
  lh = Infinity
  /** Likewise for the right rows: rh ≤ the right trigger (see #triggerR). */
  rh = Infinity
  /** The last present right time (−Infinity: none) and its first candidate: the match of every
   *  left time after it (so most matches read no timeline). NaN: not known (any right change
   *  resets it; #tail computes it). */
  tailT = NaN
  tailM: Row | null = null
  /** Removed from the operator's map (a later row of the key makes a new group). */
  dead = false

  constructor(key: RowKey) {
    this.key = key
  }
}

/** What one `advance()` freed, kept until commit for rollback: per key, how many slots it took
 *  from the front of the left and of the right timeline, and those slots, all concatenated (left
 *  then right, key after key) — flat arrays with explicit lengths, reused after commit (reset),
 *  so freeing allocates nothing per key and, once the arrays have grown, nothing at all. */
class Freed {
  /** The keys (nk of them) and [left count, right count] per key. */
  readonly keys: RowKey[] = []
  readonly counts: number[] = []
  nk = 0
  /** The slots taken (ns of them) with their times and weights. */
  readonly times: number[] = []
  readonly slots: (Slot | null)[] = []
  readonly ws: number[] = []
  ns = 0
  /** Rows in the slots taken. */
  entries = 0

  addKey(key: RowKey, lc: number, rc: number): void {
    const k = this.nk++
    this.keys[k] = key
    this.counts[2 * k] = lc
    this.counts[2 * k + 1] = rc
  }

  /** Moves the first n slots of a timeline here (in place: no array is allocated). */
  take(times: number[], slots: Slot[], ws: number[], n: number): void {
    const ft = this.times
    const fs = this.slots
    const fw = this.ws
    let j = this.ns
    let entries = 0
    for (let i = 0; i < n; i++, j++) {
      const w = ws[i]!
      ft[j] = times[i]!
      fs[j] = slots[i]!
      fw[j] = w
      // (only a Bucket slot has weight 0: the slot itself is not read)
      entries += w !== 0 ? 1 : (slots[i] as RowBucket).size
    }
    this.ns = j
    this.entries += entries
    dropFront(times, n)
    dropFront(slots, n)
    dropFront(ws, n)
  }

  /** Empties it for reuse (drops the references to the slots and keys). */
  reset(): void {
    const fs = this.slots
    for (let j = 0; j < this.ns; j++) fs[j] = null
    const keys = this.keys
    for (let k = 0; k < this.nk; k++) keys[k] = null
    this.nk = this.ns = this.entries = 0
  }
}

/** Removes the first n entries (a plain loop: copyWithin is a slow generic builtin; pop, not
 *  a length store, for the usual few). */
function dropFront<T>(a: T[], n: number): void {
  if (n === 0) return
  const len = a.length
  if (n !== len) for (let i = n; i < len; i++) a[i - n] = a[i]!
  if (n <= 4) for (let i = 0; i < n; i++) a.pop()
  else a.length = len - n
}

/** An absorbed input delta (side 0 = left, 1 = right). */
class Absorbed {
  constructor(
    readonly side: 0 | 1,
    readonly delta: ZSet,
  ) {}
}

/** One key's share of a right delta, sorted by (internal) time; `changed` = its distinct times,
 *  `old` = the match at each changed time before the step. */
interface RightGroup {
  readonly key: RowKey
  times: number[]
  rows: Row[]
  weights: number[]
  changed: number[]
  old: (Row | null)[]
}

/** A slot in a checkpoint: the row itself (weight ≠ 0) or a bucket's rows (weight 0). */
type SavedSlot = Row | { readonly rows: Row[]; readonly weights: number[] }

/** What AsOfJoinOperator.saveState returns (plain data): the keys in map order with
 *  counts[2k] left and counts[2k + 1] right slots each; the slots flat (per key its left then
 *  its right timeline), with their internal times and slot weights (0 for a bucket). */
interface AsOfJoinState {
  readonly keys: RowKey[]
  readonly counts: number[]
  readonly times: number[]
  readonly slots: SavedSlot[]
  readonly weights: number[]
}

/** Appends a timeline to a checkpoint. */
function saveTimeline(s: AsOfJoinState, times: readonly number[], slots: readonly Slot[], ws: readonly number[]): void {
  for (let i = 0; i < times.length; i++) {
    const w = ws[i]!
    const slot = slots[i]!
    s.times.push(times[i]!)
    s.weights.push(w)
    s.slots.push(w !== 0 ? (slot as Row) : { rows: (slot as RowBucket).rows, weights: (slot as RowBucket).weights })
  }
}

/** Rebuilds slots [from, from + n) of a checkpoint as a timeline; returns the rows in it. */
function loadTimeline(s: AsOfJoinState, from: number, n: number, times: number[], slots: Slot[], ws: number[]): number {
  let entries = 0
  for (let i = from; i < from + n; i++) {
    const w = s.weights[i]!
    const saved = s.slots[i]!
    times.push(s.times[i]!)
    ws.push(w)
    if (w !== 0) {
      slots.push(saved as Row)
      entries++
    } else {
      // added one by one, so a large bucket gets its key index back
      const b = saved as { readonly rows: Row[]; readonly weights: number[] }
      const bucket = new RowBucket()
      for (let j = 0; j < b.rows.length; j++) bucket.add(b.rows[j]!, b.weights[j]!)
      slots.push(bucket)
      entries += bucket.size
    }
  }
  return entries
}

/** Adds (row, w) at time t to a timeline. Returns the change in entries held (+1, 0, −1). */
function addAt(times: number[], slots: Slot[], ws: number[], t: number, row: Row, w: number): number {
  const n = times.length
  const i = n === 0 || times[n - 1]! < t ? n : lowerBound(times, t)
  if (i < n && times[i] === t) {
    const s = slots[i]!
    if (s instanceof RowBucket) {
      const change = s.add(row, w)
      if (s.size === 0) removeAt(times, slots, ws, i)
      return change
    }
    if (rowsEqual(s, row)) {
      const nw = ws[i]! + w
      if (nw !== 0) {
        ws[i] = nw
        return 0
      }
      removeAt(times, slots, ws, i)
      return -1
    }
    slots[i] = new RowBucket([s, row], [ws[i]!, w])
    ws[i] = 0
    return 1
  }
  if (i === n) {
    times.push(t)
    slots.push(row)
    ws.push(w)
  } else {
    times.splice(i, 0, t)
    slots.splice(i, 0, row)
    ws.splice(i, 0, w)
  }
  return 1
}

function removeAt(times: number[], slots: Slot[], ws: number[], i: number): void {
  if (i === times.length - 1) {
    times.pop()
    slots.pop()
    ws.pop()
  } else {
    times.splice(i, 1)
    slots.splice(i, 1)
    ws.splice(i, 1)
  }
}

/** Whether slot i holds a candidate (a row of weight > 0). */
function present(slots: readonly Slot[], ws: readonly number[], i: number): boolean {
  const w = ws[i]!
  if (w !== 0) return w > 0
  const bw = (slots[i] as RowBucket).weights
  for (let j = 0; j < bw.length; j++) if (bw[j]! > 0) return true
  return false
}

function concat(l: Row, r: Row): Row {
  const nl = l.length
  const nr = r.length
  const a = new Array<unknown>(nl + nr)
  for (let i = 0; i < nl; i++) a[i] = l[i]
  for (let i = 0; i < nr; i++) a[nl + i] = r[i]
  return a
}

export class AsOfJoinOperator extends BaseOperator {
  readonly name = 'AsOfJoin'
  readonly leftKey: readonly number[]
  readonly rightKey: readonly number[]
  readonly leftTime: number
  readonly rightTime: number
  readonly match: '>=' | '>' | '<=' | '<'
  readonly outer: boolean
  readonly rightWidth: number
  /** Tombstone column (−1: none). */
  readonly live: number
  readonly #leftKeyOf: (row: Row) => RowKey
  readonly #rightKeyOf: (row: Row) => RowKey
  /** '<=' / '<': times are negated internally (then they are '>=' / '>'). */
  readonly #negate: boolean
  /** '>' / '<': the match is strictly before the (internal) left time. */
  readonly #strict: boolean
  /** tieBreak, then compareRows: a total order on the distinct rows of one time. */
  readonly #order: (a: Row, b: Row) => number
  readonly #nulls: Row
  readonly #leftWatermark: (() => number) | undefined
  readonly #rightWatermark: (() => number) | undefined
  /** advance() frees state ('>=' / '>' with both watermarks). */
  readonly #frees: boolean
  readonly #groups = new Map<RowKey, Group>()
  readonly #journal = new Journal<Absorbed | Freed>()
  /** Free hints (only kept when #frees): per group with left rows, (lh, group) — see Group. */
  readonly #leftHints = new TimeHeap<Group>()
  /** Per group whose right rows may become freeable, (rh, group). */
  readonly #rightHints = new TimeHeap<Group>()
  /** Groups advance() has examined so far. */
  #visits = 0
  /** The Freed entry of the running advance() (journaled when first needed). */
  #freed: Freed | null = null
  /** The Freed entries in the journal (the first #nJournaledFreed), and reset ones to reuse. */
  readonly #journaledFreed: (Freed | null)[] = []
  #nJournaledFreed = 0
  readonly #spareFreed: Freed[] = []
  /** Left + right rows held. */
  #size = 0

  constructor(left: Operator, right: Operator, options: AsOfJoinOptions) {
    super([left, right])
    if (options.leftKey.length !== options.rightKey.length) {
      throw new Error(`internal: asof join key arity mismatch (${options.leftKey.length} vs ${options.rightKey.length})`)
    }
    this.leftKey = options.leftKey.slice()
    this.rightKey = options.rightKey.slice()
    this.leftTime = options.leftTime
    this.rightTime = options.rightTime
    this.match = options.match
    this.outer = options.outer
    this.rightWidth = options.rightWidth
    this.live = options.live ?? -1
    this.#leftKeyOf = keyFunction(this.leftKey)
    this.#rightKeyOf = keyFunction(this.rightKey)
    this.#negate = options.match === '<=' || options.match === '<'
    this.#strict = options.match === '>' || options.match === '<'
    const tieBreak = options.tieBreak
    this.#order = (a, b) => tieBreak(a, b) || compareRows(a, b)
    this.#nulls = new Array<unknown>(options.rightWidth).fill(null)
    this.#leftWatermark = options.leftWatermark
    this.#rightWatermark = options.rightWatermark
    this.#frees = !this.#negate && options.leftWatermark !== undefined && options.rightWatermark !== undefined
  }

  get left(): Operator {
    return this.inputs[0]!
  }

  get right(): Operator {
    return this.inputs[1]!
  }

  step(): void {
    const dl = this.inputs[0]!.out
    const dr = this.inputs[1]!.out
    this.out = ZSet.empty()
    // 1. validate and key both deltas: nothing below throws for bad input after state changed
    const nl = dl.rows.length
    const lkeys: RowKey[] = nl === 0 ? [] : new Array<RowKey>(nl)
    // internal time of each left row; NaN when the row is kept nowhere (NULL key or time, w = 0)
    const ltimes: number[] = nl === 0 ? [] : new Array<number>(nl)
    let lheld = false
    if (nl !== 0) {
      const rows = dl.rows
      const ws = dl.weights
      const tc = this.leftTime
      const kc = this.leftKey
      const keyOf = this.#leftKeyOf
      const neg = this.#negate
      for (let i = 0; i < nl; i++) {
        const r = rows[i]!
        const t = r[tc]
        ltimes[i] = NaN
        if (t === null || t === undefined) continue
        if (typeof t !== 'number' || t !== t) throw new Error(`AsOfJoin: left time column #${tc} must be a number, got ${String(t)}`)
        if (ws[i] === 0 || hasNull(r, kc)) continue
        ltimes[i] = neg ? -t : t
        lkeys[i] = keyOf(r)
        lheld = true
      }
    }
    const rgroups = dr.rows.length === 0 ? null : this.#groupRight(dr)
    const out = new ZSet()
    const groups = this.#groups
    // 2. right part, over L_old: old matches (user code: nothing changed yet), absorb, compare
    if (rgroups !== null && rgroups.length !== 0) {
      for (let gi = 0; gi < rgroups.length; gi++) {
        const rg = rgroups[gi]!
        const g = groups.get(rg.key)
        const C = rg.changed
        for (let c = 0; c < C.length; c++) rg.old.push(g === undefined ? null : this.#matchAt(g, C[c]!, false))
      }
      this.#journal.record(new Absorbed(1, dr))
      for (let gi = 0; gi < rgroups.length; gi++) {
        const rg = rgroups[gi]!
        const g = this.#group(rg.key)
        const dT = rg.times
        const dR = rg.rows
        const dW = rg.weights
        let change = 0
        if (g.rt.length === 0 && dT.length === 1) {
          // (exact-size arrays: most keys hold one version, and a push would make room for 17)
          g.rt = [dT[0]!]
          g.rs = [dR[0]!]
          g.rw = [dW[0]!]
          change = 1
        } else for (let j = 0; j < dT.length; j++) change += addAt(g.rt, g.rs, g.rw, dT[j]!, dR[j]!, dW[j]!)
        g.tailT = NaN
        this.#size += change
        this.#settle(g)
        if (this.#frees && !g.dead) {
          const tr = this.#triggerR(g, false)
          if (tr < g.rh) this.#hintRight(tr, g)
        }
      }
      for (let gi = 0; gi < rgroups.length; gi++) {
        const rg = rgroups[gi]!
        const g = groups.get(rg.key)
        if (g !== undefined && g.lt.length !== 0) this.#emitRightChanges(g, rg, out)
      }
    }
    // 3. left part, over R_new: each changed left row with its match (user code), then absorb
    if (nl !== 0) {
      const rows = dl.rows
      const ws = dl.weights
      const outer = this.outer
      const strict = this.#strict
      let prevG: Group | undefined
      let prevT = NaN
      let prevM: Row | null = null
      // each row's group (when it had one), so absorbing does not look it up again
      const lgroups: (Group | undefined)[] = lheld ? new Array<Group | undefined>(nl) : []
      for (let i = 0; i < nl; i++) {
        const w = ws[i]!
        if (w === 0) continue
        const x = ltimes[i]!
        const l = rows[i]!
        if (x !== x) {
          if (outer) out.push(concat(l, this.#nulls), w)
          continue
        }
        const g = groups.get(lkeys[i]!)
        if (lheld) lgroups[i] = g
        let m: Row | null
        if (g === undefined) m = null
        else if (g === prevG && x === prevT) m = prevM
        else {
          m = this.#effective(this.#matchAt(g, x, strict))
          prevG = g
          prevT = x
          prevM = m
        }
        if (m !== null) out.push(concat(l, m), w)
        else if (outer) out.push(concat(l, this.#nulls), w)
      }
      if (lheld) {
        this.#journal.record(new Absorbed(0, dl))
        const frees = this.#frees
        let g: Group | undefined
        let change = 0
        for (let i = 0; i < nl; i++) {
          const x = ltimes[i]!
          if (x !== x) continue
          let gi = lgroups[i]
          // (none yet, or emptied by an earlier row of this delta: a new one)
          if (gi === undefined || gi.dead) gi = this.#group(lkeys[i]!)
          if (gi !== g) {
            if (g !== undefined) this.#settle(g)
            g = gi
          }
          if (g.lt.length === 0) {
            // (exact-size arrays: a key usually holds few left rows, and an emptied array has
            // released its store, so a push would allocate room for 17)
            g.lt = [x]
            g.ls = [rows[i]!]
            g.lw = [ws[i]!]
            change++
          } else change += addAt(g.lt, g.ls, g.lw, x, rows[i]!, ws[i]!)
          // (also for a deletion: one that finds no row stays as a negative entry)
          if (frees && x < g.lh) this.#hintLeft(x, g)
        }
        if (g !== undefined) this.#settle(g)
        this.#size += change
      }
    }
    this.out = out.consolidate()
  }

  /** Groups a right delta by key, sorted by internal time (validates every time first). */
  #groupRight(d: ZSet): RightGroup[] {
    const rows = d.rows
    const ws = d.weights
    const tc = this.rightTime
    const kc = this.rightKey
    const keyOf = this.#rightKeyOf
    const neg = this.#negate
    const byKey = new Map<RowKey, RightGroup>()
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      const t = r[tc]
      if (t === null || t === undefined) continue
      if (typeof t !== 'number' || t !== t) throw new Error(`AsOfJoin: right time column #${tc} must be a number, got ${String(t)}`)
      const w = ws[i]!
      if (w === 0 || hasNull(r, kc)) continue
      const k = keyOf(r)
      let g = byKey.get(k)
      if (g === undefined) {
        g = { key: k, times: [], rows: [], weights: [], changed: [], old: [] }
        byKey.set(k, g)
      }
      g.times.push(neg ? -t : t)
      g.rows.push(r)
      g.weights.push(w)
    }
    const res: RightGroup[] = []
    for (const g of byKey.values()) {
      sortByTime(g)
      const t = g.times
      for (let j = 0; j < t.length; j++) if (j === 0 || t[j] !== t[j - 1]) g.changed.push(t[j]!)
      res.push(g)
    }
    return res
  }

  /** The match of a left row at internal time x (inclusive: greatest present time ≤ x;
   *  strict: < x), or null. A tombstone is returned as such. */
  #matchAt(g: Group, x: number, strict: boolean): Row | null {
    let tt = g.tailT
    if (tt !== tt) tt = this.#tail(g)
    if (strict ? x > tt : x >= tt) return g.tailM
    // x before the last present time (or at it, strict)
    const rt = g.rt
    let i = (strict ? lowerBound(rt, x) : upperBound(rt, x)) - 1
    while (i >= 0 && !present(g.rs, g.rw, i)) i--
    return i < 0 ? null : this.#first(g.rs, g.rw, i)
  }

  /** Computes g.tailT / g.tailM (user code: tieBreak); returns tailT. */
  #tail(g: Group): number {
    const rs = g.rs
    const rw = g.rw
    let i = g.rt.length - 1
    while (i >= 0 && !present(rs, rw, i)) i--
    const m = i < 0 ? null : this.#first(rs, rw, i)
    const t = i < 0 ? -Infinity : g.rt[i]!
    g.tailM = m
    g.tailT = t
    return t
  }

  /** The first candidate of right slot i (by tieBreak), or null when it has none. */
  #first(slots: readonly Slot[], ws: readonly number[], i: number): Row | null {
    const s = slots[i]!
    const w = ws[i]!
    if (w !== 0) return w > 0 ? (s as Row) : null
    const rows = (s as RowBucket).rows
    const bw = (s as RowBucket).weights
    const order = this.#order
    let best: Row | null = null
    for (let j = 0; j < rows.length; j++) {
      if (!(bw[j]! > 0)) continue
      const r = rows[j]!
      if (best === null || order(r, best) < 0) best = r
    }
    return best
  }

  /** The row a match contributes to the output: null for none or a tombstone. */
  #effective(m: Row | null): Row | null {
    return m !== null && this.live >= 0 && m[this.live] === false ? null : m
  }

  /** Right part for one key (state already absorbed; left side still L_old). */
  #emitRightChanges(g: Group, rg: RightGroup, out: ZSet): void {
    const C = rg.changed
    const rt = g.rt
    const rs = g.rs
    const rw = g.rw
    const n = rt.length
    const strict = this.#strict
    const lt = g.lt
    for (let c = 0; c < C.length; c++) {
      const t = C[c]!
      const mOld = this.#effective(rg.old[c]!)
      const ub = upperBound(rt, t)
      let i = ub - 1
      while (i >= 0 && !present(rs, rw, i)) i--
      const mNew = i < 0 ? null : this.#effective(this.#first(rs, rw, i))
      if (mOld === mNew || (mOld !== null && mNew !== null && rowsEqual(mOld, mNew))) continue
      // the segment of t ends at the next present time or the next changed time
      let ni = ub
      while (ni < n && !present(rs, rw, ni)) ni++
      // (a flag, not an Infinity sentinel: a left time may be Infinity)
      let bounded = ni < n
      let end = bounded ? rt[ni]! : 0
      if (c + 1 < C.length && (!bounded || C[c + 1]! < end)) {
        end = C[c + 1]!
        bounded = true
      }
      for (let j = strict ? upperBound(lt, t) : lowerBound(lt, t); j < lt.length; j++) {
        const x = lt[j]!
        if (bounded && (strict ? x > end : x >= end)) break
        const s = g.ls[j]!
        if (s instanceof RowBucket) {
          const rows = s.rows
          const bw = s.weights
          for (let b = 0; b < rows.length; b++) {
            this.#emit(rows[b]!, -bw[b]!, mOld, out)
            this.#emit(rows[b]!, bw[b]!, mNew, out)
          }
        } else {
          this.#emit(s, -g.lw[j]!, mOld, out)
          this.#emit(s, g.lw[j]!, mNew, out)
        }
      }
    }
  }

  #emit(l: Row, w: number, m: Row | null, out: ZSet): void {
    if (m !== null) out.push(concat(l, m), w)
    else if (this.outer) out.push(concat(l, this.#nulls), w)
  }

  /** The key's group, created if needed. */
  #group(key: RowKey): Group {
    let g = this.#groups.get(key)
    if (g === undefined) {
      g = new Group(key)
      this.#groups.set(key, g)
    }
    return g
  }

  /** Deletes the key's group when it holds nothing. */
  #settle(g: Group): void {
    if (g.lt.length === 0 && g.rt.length === 0 && !g.dead) {
      g.dead = true
      this.#groups.delete(g.key)
    }
  }

  /** Re-absorbs an undone delta (negated). Same filtering as step(); no user code. */
  #unabsorb(e: Absorbed): void {
    const left = e.side === 0
    const tc = left ? this.leftTime : this.rightTime
    const kc = left ? this.leftKey : this.rightKey
    const keyOf = left ? this.#leftKeyOf : this.#rightKeyOf
    const neg = this.#negate
    const rows = e.delta.rows
    const ws = e.delta.weights
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      const w = ws[i]!
      const t = r[tc]
      if (w === 0 || t === null || t === undefined || hasNull(r, kc)) continue
      const x = neg ? -(t as number) : (t as number)
      const g = this.#group(keyOf(r))
      if (left) this.#size += addAt(g.lt, g.ls, g.lw, x, r, -w)
      else {
        this.#size += addAt(g.rt, g.rs, g.rw, x, r, -w)
        g.tailT = NaN
      }
      this.#settle(g)
      if (this.#frees && !g.dead) this.#rehint(g)
    }
  }

  /** Forgets the left and right rows that can no longer change any output (see the header);
   *  emits nothing; journaled until commit. Looks only at the groups whose free hint has come
   *  due (see the header), each at most once (its new hints are not due). */
  advance(): void {
    if (!this.#frees) return
    const wl = this.#leftWatermark!()
    const wr = this.#rightWatermark!()
    const strict = this.#strict
    this.#freed = null
    try {
      // left rows at x are freed once x < wl and x < wr ('>=') / x ≤ wr ('>')
      const L = this.#leftHints
      const lt = L.times
      const lg = L.items
      while (lt.length !== 0) {
        const h = lt[0]!
        if (!(h < wl && (strict ? h <= wr : h < wr))) break
        const g = lg[0]!
        if (g.dead || g.lh !== h) L.pop()
        else this.#visit(g, wl, wr, 0)
      }
      // right rows are freed once their trigger s < wr and s ≤ wl ('>=') / s < wl ('>')
      const R = this.#rightHints
      const rt = R.times
      const rg = R.items
      while (rt.length !== 0) {
        const h = rt[0]!
        if (!(h < wr && (strict ? h < wl : h <= wl))) break
        const g = rg[0]!
        if (g.dead || g.rh !== h) R.pop()
        else this.#visit(g, wl, wr, 1)
      }
    } finally {
      this.#freed = null
    }
  }

  /** Frees what is due in g, whose hint tops the left (side 0) or right hint heap, and replaces
   *  its hints by exact ones, which are not due (else the loop would find g again). When a
   *  tieBreak throws, the heaps are untouched: the hints still hold (g only lost rows). */
  #visit(g: Group, wl: number, wr: number, side: 0 | 1): void {
    this.#visits++
    // a side whose hint is not due has nothing to free (hint ≤ its time, the bounds are
    // downward closed): it is not read, and keeps its hint
    const strict = this.#strict
    const lh = g.lh
    const rh = g.rh
    const dueL = lh < wl && (strict ? lh <= wr : lh < wr)
    const dueR = rh < wr && (strict ? rh < wl : rh <= wl)
    this.#free(g, wl, wr, dueL, dueR)
    const dead = g.dead
    const tl = dead || !dueL ? lh : g.lt.length === 0 ? Infinity : g.lt[0]!
    const tr = dead || !dueR ? rh : this.#triggerR(g, true)
    if (side === 0) {
      this.#leftHints.pop()
      g.lh = Infinity
    } else {
      this.#rightHints.pop()
      g.rh = Infinity
    }
    if (dead) return
    if (tl !== g.lh) {
      g.lh = tl
      if (tl !== Infinity) this.#leftHints.push(tl, g)
    }
    if (tr !== g.rh) {
      g.rh = tr
      if (tr !== Infinity) this.#rightHints.push(tr, g)
    }
  }

  /** Frees g's left rows (when dueL) and right rows (when dueR) that are due (see the header). */
  #free(g: Group, wl: number, wr: number, dueL: boolean, dueR: boolean): void {
    const strict = this.#strict
    const lt = g.lt
    let lc = 0
    if (dueL && lt.length !== 0 && lt[0]! < wl && (strict ? lt[0]! <= wr : lt[0]! < wr)) {
      lc = strict ? Math.min(lowerBound(lt, wl), upperBound(lt, wr)) : lowerBound(lt, wl < wr ? wl : wr)
    }
    const rt = g.rt
    let rc = 0
    if (dueR && rt.length !== 0 && rt[0]! < wr && (strict ? rt[0]! < wl : rt[0]! <= wl)) {
      let j = Math.min(lowerBound(rt, wr), strict ? lowerBound(rt, wl) : upperBound(rt, wl)) - 1
      while (j >= 0 && !present(g.rs, g.rw, j)) j--
      if (j >= 0) {
        rc = j
        // a frozen tombstone with nothing older left matches like nothing at all
        if (this.#tombstoneAt(g.rs, g.rw, j, true)) rc = j + 1
      }
    }
    if (lc !== 0 || rc !== 0) {
      let freed = this.#freed
      if (freed === null) {
        freed = this.#freed = this.#spareFreed.pop() ?? new Freed()
        this.#journaledFreed[this.#nJournaledFreed++] = freed
        this.#journal.record(freed)
      }
      const before = freed.entries
      freed.addKey(g.key, lc, rc)
      freed.take(lt, g.ls, g.lw, lc)
      freed.take(rt, g.rs, g.rw, rc)
      if (rc !== 0) g.tailT = NaN
      this.#size -= freed.entries - before
      this.#settle(g)
    }
  }

  /** The right trigger of g: the least time s such that, once the right bound passes s, some
   *  right row of g is freed — the first present time if it is not the first slot or its match
   *  is a tombstone, else the next present time (Infinity if none). Exact with `exact` (may
   *  call tieBreak); without it, no user code and possibly earlier (a slot mixing live rows and
   *  tombstones counts as a tombstone), which is still a valid hint. */
  #triggerR(g: Group, exact: boolean): number {
    const rt = g.rt
    const rs = g.rs
    const rw = g.rw
    const n = rt.length
    let i = 0
    while (i < n && !present(rs, rw, i)) i++
    if (i >= n) return Infinity
    if (i !== 0 || this.#tombstoneAt(rs, rw, 0, exact)) return rt[i]!
    i++
    while (i < n && !present(rs, rw, i)) i++
    return i < n ? rt[i]! : Infinity
  }

  /** Whether the match of present right slot i is a tombstone. Without `exact` (no user code),
   *  a slot whose candidates mix live rows and tombstones answers true. */
  #tombstoneAt(slots: readonly Slot[], ws: readonly number[], i: number, exact: boolean): boolean {
    const live = this.live
    if (live < 0) return false
    const s = slots[i]!
    if (ws[i] !== 0) return (s as Row)[live] === false
    if (exact) return this.#first(slots, ws, i)![live] === false
    const rows = (s as RowBucket).rows
    const bw = (s as RowBucket).weights
    for (let j = 0; j < rows.length; j++) if (bw[j]! > 0 && rows[j]![live] === false) return true
    return false
  }

  #hintLeft(t: number, g: Group): void {
    g.lh = t
    this.#leftHints.push(t, g)
  }

  #hintRight(t: number, g: Group): void {
    g.rh = t
    this.#rightHints.push(t, g)
  }

  /** Restores the hints of a group whose state an undo changed (no user code). */
  #rehint(g: Group): void {
    if (g.lt.length !== 0 && g.lt[0]! < g.lh) this.#hintLeft(g.lt[0]!, g)
    const tr = this.#triggerR(g, false)
    if (tr < g.rh) this.#hintRight(tr, g)
  }

  /** How many groups advance() has examined so far (for tests: advance() is proportional to
   *  the groups with something due, not to the groups holding state). */
  get advanceVisits(): number {
    return this.#visits
  }

  override commit(): void {
    this.#journal.commit()
    this.#recycleFreed()
  }

  /** The journal let go of its Freed records: they are reset and kept for reuse (a few). */
  #recycleFreed(): void {
    const used = this.#journaledFreed
    for (let i = 0; i < this.#nJournaledFreed; i++) {
      const f = used[i]!
      used[i] = null
      if (this.#spareFreed.length < 4) {
        f.reset()
        this.#spareFreed.push(f)
      }
    }
    this.#nJournaledFreed = 0
  }

  override rollback(): void {
    this.#journal.undo((e) => {
      if (e instanceof Absorbed) this.#unabsorb(e)
      else {
        // every later change is undone already: each key holds only what followed its prefix
        let end = e.ns
        const slots = e.slots as Slot[]
        for (let q = e.nk - 1; q >= 0; q--) {
          const lc = e.counts[2 * q]!
          const rc = e.counts[2 * q + 1]!
          const mid = end - rc
          const start = mid - lc
          const g = this.#group(e.keys[q]!)
          g.lt = e.times.slice(start, mid).concat(g.lt)
          g.ls = slots.slice(start, mid).concat(g.ls)
          g.lw = e.ws.slice(start, mid).concat(g.lw)
          g.rt = e.times.slice(mid, end).concat(g.rt)
          g.rs = slots.slice(mid, end).concat(g.rs)
          g.rw = e.ws.slice(mid, end).concat(g.rw)
          if (mid !== end) g.tailT = NaN
          if (this.#frees) this.#rehint(g)
          end = start
        }
        this.#size += e.entries
      }
    })
    this.#recycleFreed()
  }

  /** The timelines of every key (as of the last commit: called between ticks, when the
   *  journal is empty); rows and bucket arrays are shared with the live state. */
  saveState(): AsOfJoinState {
    const s: AsOfJoinState = { keys: [], counts: [], times: [], slots: [], weights: [] }
    for (const g of this.#groups.values()) {
      s.keys.push(g.key)
      s.counts.push(g.lt.length, g.rt.length)
      saveTimeline(s, g.lt, g.ls, g.lw)
      saveTimeline(s, g.rt, g.rs, g.rw)
    }
    return s
  }

  /** Replaces the whole state (a backfilled fresh operator may hold rows) by a saved one. The
   *  hints are rebuilt as rollback makes them (#rehint: the first left time, the right trigger
   *  without user code), valid lower bounds; what advance() frees depends only on the rows and
   *  the watermarks (a due hint with nothing due frees nothing), so it frees the same rows as
   *  the saved operator. The journal is dropped (the loaded state is committed state). */
  loadState(state: unknown): void {
    const s = state as AsOfJoinState
    this.commit()
    this.#groups.clear()
    // (their groups belong to the replaced state)
    this.#leftHints.filter(() => false)
    this.#rightHints.filter(() => false)
    let size = 0
    let at = 0
    for (let k = 0; k < s.keys.length; k++) {
      const g = new Group(s.keys[k]!)
      const lc = s.counts[2 * k]!
      const rc = s.counts[2 * k + 1]!
      size += loadTimeline(s, at, lc, g.lt, g.ls, g.lw)
      at += lc
      size += loadTimeline(s, at, rc, g.rt, g.rs, g.rw)
      at += rc
      this.#groups.set(g.key, g)
      if (this.#frees) this.#rehint(g)
    }
    this.#size = size
  }

  override stateSize(): number {
    return this.#size
  }

  override describeState(): string {
    const cols = (c: readonly number[]): string => c.map((i) => '#' + i).join(', ')
    const l = this.leftKey.length === 0 ? `left rows by time #${this.leftTime}` : `left rows by key (${cols(this.leftKey)}) and time #${this.leftTime}`
    const r = this.rightKey.length === 0 ? `right rows by time #${this.rightTime}` : `right rows by key (${cols(this.rightKey)}) and time #${this.rightTime}`
    return `${l}, ${r}; ${this.#size} rows; ${this.#frees ? 'freed below the watermarks' : 'unbounded'}`
  }
}


export function asOfJoin(circuit: Circuit, left: Operator, right: Operator, options: AsOfJoinOptions): AsOfJoinOperator {
  return circuit.add(new AsOfJoinOperator(left, right, options))
}
