// SessionReduceOperator — GROUP BY (partition columns, window_start, window_end) with aggregates
// over SESSION(TABLE t PARTITION BY partition, DESCRIPTOR(ts), INTERVAL gap), fused.
//
// Semantics:  exactly Reduce(key, aggregates) ∘ SessionWindow(partitionBy, timeColumn, gap)
//             (see session-window.ts and reduce.ts): per partition p (rows with equal
//             partition columns), an event at time t covers [t, t + gap); a session is a
//             maximal union of overlapping covers (sorted times t1 ≤ t2 share a session iff
//             t2 < t1 + gap; rows whose time is NULL belong to none). Every session S with
//             count(S) = Σ weights > 0 has one output row: the `key` entries in order (a
//             partition column's value, SESSION_START = first time, SESSION_END = last time
//             + gap), then agg₁(S), …, aggₘ(S), each folding (arg(r), w) over the rows of S
//             passing its filter. Per step: out = Σ_{S changed} (new row of S) − (old row),
//             consolidated. The unfused pair re-annotates every row of a session whose bounds
//             change (O(session) per extending event); here:
//               - an event inside or extending one session adds (arg, w) to that session's
//                 accumulators: O(log n + aggregates), emits −old +new of that session;
//               - an event starting a session emits its row;
//               - an event bridging two sessions folds the smaller one's events into the
//                 larger one's accumulators (O(smaller)) and retracts both rows;
//               - a deletion adds (arg, −w) (the aggregator contract: a negative weight
//                 retracts exactly); a deletion removing the bridge of a session splits it:
//                 the smaller part is folded into a new session and subtracted from the old;
//               - a partition receiving ≥ bulkAbove rows in one step (backfill, bulk DML) is
//                 rebuilt in one pass instead: O(n + k log k) plus folding the sessions within
//                 reach of a changed time, not k splices of O(n).
//             Rows are absorbed in time order (the delta is sorted when it is not already),
//             so appends stay O(1) to place.
// State kept: per partition (Map partition key → Partition) the distinct times held, ascending,
//             with the rows at each time (one row and its weight, or a RowBucket when several
//             rows share a time), and the sessions, ascending (their starts in a parallel
//             number array for binary search), each with its bounds, count, accumulators (the
//             first two in fields, like ReduceOperator) and the row last emitted. With
//             `watermark` (given only when every later change, insert or delete, has a time
//             ≥ it), `advance()` frees every session with window_end ≤ watermark (its events
//             and accumulators; its row stays emitted), journaled so rollback restores it.
// Saved:      per partition (in Map order) its key, key row, times, rows per time (a row, or
//             a bucket's rows and weights) and sessions (bounds, count, accumulators as they
//             are, row last emitted); load rebuilds Partitions, Sessions and RowBuckets.
// Linear:     no.
// Retracts:   yes.
//
// Throwing user code (arg / filter) runs in a first pass over the delta that touches no state;
// only then is the delta journaled and absorbed. Rollback re-absorbs the negated journal
// (newest first, freed sessions restored first) and recomputes the touched sessions' rows
// without emitting.

import type { Circuit } from '../circuit.js'
import { keyFunction, rowsEqual, valuesEqual, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { lowerBound, upperBound } from '../sorted.js'
import { RowBucket } from '../row-bucket.js'
import { emitGroupRow, foldValues, SKIP, type AggregateSpec } from './reduce.js'

/** A `key` entry: the session's first time (window_start). */
export const SESSION_START = -1
/** A `key` entry: the session's last time + gap (window_end). */
export const SESSION_END = -2

export interface SessionReduceOptions {
  /** Partition columns of the input (rows with equal values here form independent sessions). */
  readonly partitionBy: readonly number[]
  /** Column holding the event time (a number, µs); NULL rows are dropped. */
  readonly timeColumn: number
  /** Session gap (µs), > 0. */
  readonly gap: number
  /** The output key, in output order: partition columns (input positions), SESSION_START and
   *  SESSION_END. Must name every partition column and both bounds. */
  readonly key: readonly number[]
  readonly aggregates: readonly AggregateSpec[]
  /** Current watermark: every later change (insert or delete) has a time ≥ it. */
  readonly watermark?: () => number
  /** A partition receiving at least this many rows in one step is rebuilt in one pass
   *  instead of row by row (default BULK_ABOVE; tests lower it to exercise that path). */
  readonly bulkAbove?: number
}

/** See SessionReduceOptions.bulkAbove. */
export const BULK_ABOVE = 64

/** Marks a value excluded by an aggregate's filter. */

class Session {
  /** First and last time of the session (window_start = start, window_end = last + gap). */
  start: number
  last: number
  /** Σ weights of its rows. */
  count = 0
  a0: unknown = undefined
  a1: unknown = undefined
  more: unknown[] | null = null
  /** The row last emitted (null when none is out). */
  out: Row | null = null
  /** In the touched list this step. */
  touched = false
  /** Merged away, emptied or freed: no longer in its partition. */
  dead = false
  readonly part: Partition

  constructor(part: Partition, start: number, last: number) {
    this.part = part
    this.start = start
    this.last = last
  }
}

class Partition {
  readonly key: RowKey
  /** A row of the partition (its partition column values). */
  readonly keyRow: Row
  /** Distinct times held, ascending. */
  times: number[] = []
  /** At times[i]: the only row there (weight ws[i]), or a bucket of rows (ws[i] unused). */
  vals: (Row | RowBucket)[] = []
  ws: number[] = []
  /** Sessions ascending; starts[i] = sessions[i].start. */
  starts: number[] = []
  sessions: Session[] = []

  constructor(key: RowKey, keyRow: Row) {
    this.key = key
    this.keyRow = keyRow
  }
}

/** The rows held at one time when several share it (a RowBucket's contents). */
interface TimeRowsState {
  readonly rows: Row[]
  readonly weights: number[]
}

/** One session of a checkpoint: its bounds, count, accumulators (in aggregate order) and the
 *  row last emitted. */
interface SessionState {
  readonly start: number
  readonly last: number
  readonly count: number
  readonly accs: unknown[]
  readonly out: Row | null
}

interface PartitionState {
  readonly key: RowKey
  readonly keyRow: Row
  readonly times: number[]
  /** At times[i]: the only row there (weight ws[i]) — an array — or a bucket's contents (a
   *  plain object: kept apart from a one-row time so the reloaded structure is the same). */
  readonly vals: (Row | TimeRowsState)[]
  readonly ws: number[]
  readonly sessions: SessionState[]
}

/** SessionReduceOperator's checkpoint (see saveState). */
export interface SessionReduceState {
  readonly partitions: PartitionState[]
}

/** A prefix of a partition freed by `advance()`, kept until commit so rollback can restore it. */
interface Freed {
  readonly key: RowKey
  readonly keyRow: Row
  readonly times: number[]
  readonly vals: (Row | RowBucket)[]
  readonly ws: number[]
  readonly starts: number[]
  readonly sessions: Session[]
  readonly entries: number
}

export class SessionReduceOperator extends BaseOperator {
  readonly name = 'SessionReduce'
  readonly partitionBy: readonly number[]
  readonly timeColumn: number
  readonly gap: number
  readonly key: readonly number[]
  readonly aggregates: readonly AggregateSpec[]
  readonly watermark: (() => number) | undefined
  readonly #partOf: (row: Row) => RowKey
  readonly #parts = new Map<RowKey, Partition>()
  readonly #journal = new Journal<ZSet | Freed>()
  /** Position of window_start / window_end in the output row. */
  readonly #startAt: number
  readonly #endAt: number
  readonly #results: unknown[]
  readonly #bulkAbove: number
  #touched: Session[] = []
  /** Rows of sessions that died this step (merged away or emptied), to retract. */
  #retired: Row[] = []
  /** This step's output may hold a row twice (merges, splits, deletions): consolidate. */
  #structural = false
  /** Distinct (row, time) entries held. */
  #size = 0
  #sessionCount = 0

  constructor(input: Operator, options: SessionReduceOptions) {
    super([input])
    if (!(options.gap > 0)) throw new Error(`SessionReduce: gap must be > 0, got ${String(options.gap)}`)
    this.partitionBy = options.partitionBy.slice()
    this.timeColumn = options.timeColumn
    this.gap = options.gap
    this.key = options.key.slice()
    this.aggregates = options.aggregates.slice()
    this.watermark = options.watermark
    this.#partOf = keyFunction(this.partitionBy)
    this.#startAt = this.key.indexOf(SESSION_START)
    this.#endAt = this.key.indexOf(SESSION_END)
    if (this.#startAt < 0 || this.#endAt < 0) throw new Error('internal: SessionReduce key must hold SESSION_START and SESSION_END')
    for (const c of this.key) if (c >= 0 && !this.partitionBy.includes(c)) throw new Error(`internal: SessionReduce key column #${c} is not a partition column`)
    for (const c of this.partitionBy) if (!this.key.includes(c)) throw new Error(`internal: SessionReduce key lacks partition column #${c}`)
    // merging and splitting sessions folds events out again: an insert-only aggregator cannot
    for (const a of this.aggregates) if (a.aggregator.insertOnly === true) throw new Error(`internal: SessionReduce cannot use the insert-only aggregator ${a.aggregator.name}`)
    this.#results = new Array<unknown>(this.aggregates.length)
    this.#bulkAbove = Math.max(1, options.bulkAbove ?? BULK_ABOVE)
  }

  step(): void {
    const d = this.inputs[0]!.out
    const out = new ZSet()
    this.out = out
    const rows = d.rows
    const n = rows.length
    if (n === 0) return
    // Pass 1: validation and user code; no state touched.
    const keys = new Array<RowKey>(n)
    const vals = this.#extract(d, keys)
    // Pass 2: journal, then absorb (in time order: appends stay appends).
    this.#journal.record(d)
    this.#absorb(d, keys, vals, 1)
    // Pass 3: emit the changed sessions' rows.
    this.#refresh(out)
    if (this.#structural) {
      this.#structural = false
      this.out = out.consolidate()
    }
  }

  /** Partition keys into `keys` (undefined: the row is skipped) and the aggregates' values,
   *  m per row. Throws (before any state changes) on a time that is not a number. */
  #extract(d: ZSet, keys: (RowKey | undefined)[]): unknown[] {
    const rows = d.rows
    const ws = d.weights
    const n = rows.length
    const aggs = this.aggregates
    const m = aggs.length
    const tc = this.timeColumn
    const partOf = this.#partOf
    const vals = new Array<unknown>(n * m)
    for (let i = 0; i < n; i++) {
      const r = rows[i]!
      const t = r[tc]
      if (ws[i] === 0 || t === null || t === undefined) {
        keys[i] = undefined
        continue
      }
      if (typeof t !== 'number' || t !== t) throw new Error(`SessionReduce: time column #${tc} must be a number, got ${String(t)}`)
      keys[i] = partOf(r)
      for (let j = 0; j < m; j++) {
        const a = aggs[j]!
        vals[i * m + j] = a.filter !== undefined && !a.filter(r) ? SKIP : a.arg(r)
      }
    }
    return vals
  }

  /** Absorbs sign · d in time order (appends stay appends). A partition receiving at least
   *  `bulkAbove` rows is rebuilt in one pass (#bulk) instead of row by row. */
  #absorb(d: ZSet, keys: readonly (RowKey | undefined)[], vals: readonly unknown[], sign: number): void {
    const rows = d.rows
    const ws = d.weights
    const tc = this.timeColumn
    const parts = this.#parts
    const m = this.aggregates.length
    if (sign < 0) this.#structural = true
    const order = timeOrder(d, keys, tc)
    const n = order !== undefined ? order.length : rows.length
    const bulkAbove = this.#bulkAbove
    let bulk: Map<RowKey, number[]> | undefined
    if (n >= bulkAbove) {
      const counts = new Map<RowKey, number>()
      for (let i = 0; i < rows.length; i++) {
        const k = keys[i]
        if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1)
      }
      for (const [k, c] of counts) if (c >= bulkAbove) (bulk ??= new Map()).set(k, [])
    }
    for (let x = 0; x < n; x++) {
      const i = order !== undefined ? order[x]! : x
      const k = keys[i]
      if (k === undefined) continue
      if (bulk !== undefined) {
        const list = bulk.get(k)
        if (list !== undefined) {
          list.push(i)
          continue
        }
      }
      const r = rows[i]!
      const w = ws[i]! * sign
      if (w < 0) this.#structural = true
      let p = parts.get(k)
      if (p === undefined) {
        p = new Partition(k, r)
        parts.set(k, p)
      }
      this.#event(p, r[tc] as number, r, w, vals, i * m)
      if (p.times.length === 0) parts.delete(k)
    }
    if (bulk === undefined) return
    for (const [k, list] of bulk) {
      let p = parts.get(k)
      if (p === undefined) {
        p = new Partition(k, rows[list[0]!]!)
        parts.set(k, p)
      }
      this.#bulk(p, d, list, sign)
      if (p.times.length === 0) parts.delete(k)
    }
  }

  /** Absorbs many rows of one partition (`idx`: their positions in d, by ascending time) in
   *  O(n + k + the affected sessions): the entries are merged into new arrays in one pass;
   *  the sessions holding an event at distance < gap from a changed time are dropped and the
   *  sessions over their events (and the changed ones) are formed and folded afresh; every
   *  other session is kept as it is. */
  #bulk(p: Partition, d: ZSet, idx: readonly number[], sign: number): void {
    this.#structural = true
    const rows = d.rows
    const dws = d.weights
    const tc = this.timeColumn
    const gap = this.gap
    const times = p.times
    const pv = p.vals
    const pw = p.ws
    const starts = p.starts
    const sessions = p.sessions
    const n = times.length
    const ns = sessions.length
    const k = idx.length
    // the sessions a changed time reaches (or lies in)
    const affected = new Uint8Array(ns)
    let prev = NaN
    for (let x = 0; x < k; x++) {
      const t = rows[idx[x]!]![tc] as number
      if (t === prev) continue
      prev = t
      const j = upperBound(starts, t)
      if (j > 0 && t < sessions[j - 1]!.last + gap) affected[j - 1] = 1
      if (j < ns && sessions[j]!.start < t + gap) affected[j] = 1
    }
    // merge the changes into new entry arrays; `changed`: new positions of changed times
    const nt: number[] = []
    const nv: (Row | RowBucket)[] = []
    const nw: number[] = []
    const changed: number[] = []
    let a = 0
    let x = 0
    while (x < k) {
      const t = rows[idx[x]!]![tc] as number
      while (a < n && times[a]! < t) {
        nt.push(times[a]!)
        nv.push(pv[a]!)
        nw.push(pw[a]!)
        a++
      }
      let v: Row | RowBucket | undefined
      let w = 0
      if (a < n && times[a] === t) {
        v = pv[a]!
        w = pw[a]!
        a++
      }
      do {
        const i = idx[x]!
        const r = rows[i]!
        const dw = dws[i]! * sign
        if (v === undefined) {
          v = r
          w = dw
          this.#size++
        } else if (v instanceof RowBucket) this.#size += v.add(r, dw)
        else if (rowsEqual(v, r)) {
          w += dw
          if (w === 0) {
            v = undefined
            this.#size--
          }
        } else {
          v = new RowBucket([v, r], [w, dw])
          this.#size++
        }
        x++
      } while (x < k && rows[idx[x]!]![tc] === t)
      if (v !== undefined && !(v instanceof RowBucket && v.size === 0)) {
        changed.push(nt.length)
        nt.push(t)
        nv.push(v)
        nw.push(w)
      }
    }
    for (; a < n; a++) {
      nt.push(times[a]!)
      nv.push(pv[a]!)
      nw.push(pw[a]!)
    }
    p.times = nt
    p.vals = nv
    p.ws = nw
    // dirty: changed entries and the remaining events of the affected sessions
    const dirty = new Uint8Array(nt.length)
    for (let c = 0; c < changed.length; c++) dirty[changed[c]!] = 1
    for (let o = 0; o < ns; o++) {
      if (affected[o] === 0) continue
      const s = sessions[o]!
      for (let i = lowerBound(nt, s.start); i < nt.length && nt[i]! <= s.last; i++) dirty[i] = 1
      this.#kill(s)
    }
    // sessions over the new entries: a run with a dirty entry is formed afresh, any other is
    // an unaffected session, unchanged
    const newStarts: number[] = []
    const newSessions: Session[] = []
    let o = 0
    for (let i = 0; i < nt.length; ) {
      let e = i
      let isDirty = dirty[i] === 1
      while (e + 1 < nt.length && nt[e + 1]! < nt[e]! + gap) {
        e++
        if (dirty[e] === 1) isDirty = true
      }
      let s: Session
      if (isDirty) {
        s = this.#newSession(p, nt[i]!, nt[e]!)
        this.#fold(s, p, i, e, 1)
        this.#touch(s)
      } else {
        while (affected[o] === 1) o++
        s = sessions[o++]!
        if (s.start !== nt[i] || s.last !== nt[e]) throw new Error('internal: SessionReduce lost track of a session')
      }
      newStarts.push(s.start)
      newSessions.push(s)
      i = e + 1
    }
    p.starts = newStarts
    p.sessions = newSessions
  }

  /** Absorbs one event (row at time t, weight w; its aggregate values at vals[base…]). */
  #event(p: Partition, t: number, row: Row, w: number, vals: readonly unknown[], base: number): void {
    const times = p.times
    const n = times.length
    let i: number
    if (n === 0 || times[n - 1]! < t) i = n
    else if (times[n - 1] === t) i = n - 1
    else i = lowerBound(times, t)
    const starts = p.starts
    const ns = starts.length
    if (i < n && times[i] === t) {
      // a time held already: its session's bounds stay unless the time disappears
      const si = ns === 0 || starts[ns - 1]! <= t ? ns - 1 : upperBound(starts, t) - 1
      const s = p.sessions[si]!
      foldValues(s, this.aggregates, vals, base, w)
      this.#touch(s)
      if (this.#put(p, i, row, w)) this.#removeTime(p, i, si)
      return
    }
    // a new time
    if (i === n) {
      times.push(t)
      p.vals.push(row)
      p.ws.push(w)
    } else {
      times.splice(i, 0, t)
      p.vals.splice(i, 0, row)
      p.ws.splice(i, 0, w)
    }
    this.#size++
    // j: the first session starting after t (no session starts at t: t was not held)
    const j = ns === 0 || starts[ns - 1]! < t ? ns : upperBound(starts, t)
    const gap = this.gap
    const sessions = p.sessions
    const left = j > 0 ? sessions[j - 1]! : undefined
    const right = j < ns ? sessions[j]! : undefined
    const joinLeft = left !== undefined && t < left.last + gap
    const joinRight = right !== undefined && right.start < t + gap
    let s: Session
    if (joinLeft && joinRight) s = this.#merge(p, j - 1)
    else if (joinLeft) {
      s = left!
      if (t > s.last) s.last = t
    } else if (joinRight) {
      s = right!
      s.start = t
      starts[j] = t
    } else {
      s = this.#newSession(p, t, t)
      if (j === ns) {
        starts.push(t)
        sessions.push(s)
      } else {
        starts.splice(j, 0, t)
        sessions.splice(j, 0, s)
      }
    }
    foldValues(s, this.aggregates, vals, base, w)
    this.#touch(s)
  }

  /** Adds (row, w) at the held time index i; returns whether the time is now empty (the
   *  caller removes it). */
  #put(p: Partition, i: number, row: Row, w: number): boolean {
    const v = p.vals[i]!
    if (v instanceof RowBucket) {
      this.#size += v.add(row, w)
      return v.size === 0
    }
    if (rowsEqual(v, row)) {
      const nw = p.ws[i]! + w
      if (nw === 0) {
        this.#size--
        return true
      }
      p.ws[i] = nw
      return false
    }
    p.vals[i] = new RowBucket([v, row], [p.ws[i]!, w])
    this.#size++
    return false
  }

  /** Removes the emptied time at index i, held by session si: the session shrinks, dies or
   *  splits in two. */
  #removeTime(p: Partition, i: number, si: number): void {
    const times = p.times
    const t = times[i]!
    if (i === times.length - 1) {
      times.pop()
      p.vals.pop()
      p.ws.pop()
    } else {
      times.splice(i, 1)
      p.vals.splice(i, 1)
      p.ws.splice(i, 1)
    }
    const s = p.sessions[si]!
    if (s.start === t && s.last === t) {
      p.starts.splice(si, 1)
      p.sessions.splice(si, 1)
      this.#kill(s)
    } else if (s.start === t) {
      s.start = times[i]!
      p.starts[si] = s.start
    } else if (s.last === t) s.last = times[i - 1]!
    else if (times[i]! - times[i - 1]! >= this.gap) this.#split(p, si, i)
  }

  /** Session si lost its bridge: times[lo … i−1] and times[i … hi] are now apart. The smaller
   *  part moves to a new session (folded) and is subtracted from the old one. */
  #split(p: Partition, si: number, i: number): void {
    this.#structural = true
    const times = p.times
    const s = p.sessions[si]!
    const lo = lowerBound(times, s.start)
    const hi = lowerBound(times, s.last)
    if (hi - i + 1 <= i - lo) {
      const n = this.#newSession(p, times[i]!, s.last)
      s.last = times[i - 1]!
      this.#fold(n, p, i, hi, 1)
      this.#fold(s, p, i, hi, -1)
      p.starts.splice(si + 1, 0, n.start)
      p.sessions.splice(si + 1, 0, n)
      this.#touch(n)
    } else {
      const n = this.#newSession(p, s.start, times[i - 1]!)
      s.start = times[i]!
      p.starts[si] = s.start
      this.#fold(n, p, lo, i - 1, 1)
      this.#fold(s, p, lo, i - 1, -1)
      p.starts.splice(si, 0, n.start)
      p.sessions.splice(si, 0, n)
      this.#touch(n)
    }
    this.#touch(s)
  }

  /** Sessions li and li + 1 are bridged (by a time already inserted between them): the larger
   *  absorbs the smaller's events. Returns the merged session. */
  #merge(p: Partition, li: number): Session {
    this.#structural = true
    const times = p.times
    const sessions = p.sessions
    const l = sessions[li]!
    const r = sessions[li + 1]!
    const llo = lowerBound(times, l.start)
    const lhi = lowerBound(times, l.last)
    const rlo = lowerBound(times, r.start)
    const rhi = lowerBound(times, r.last)
    if (lhi - llo >= rhi - rlo) {
      this.#fold(l, p, rlo, rhi, 1)
      l.last = r.last
      p.starts.splice(li + 1, 1)
      sessions.splice(li + 1, 1)
      this.#kill(r)
      return l
    }
    this.#fold(r, p, llo, lhi, 1)
    r.start = l.start
    p.starts.splice(li, 1)
    sessions.splice(li, 1)
    p.starts[li] = r.start
    this.#kill(l)
    return r
  }

  #newSession(p: Partition, start: number, last: number): Session {
    const s = new Session(p, start, last)
    const aggs = this.aggregates
    const m = aggs.length
    if (m > 0) s.a0 = aggs[0]!.aggregator.create()
    if (m > 1) s.a1 = aggs[1]!.aggregator.create()
    if (m > 2) {
      const more = new Array<unknown>(m - 2)
      for (let j = 2; j < m; j++) more[j - 2] = aggs[j]!.aggregator.create()
      s.more = more
    }
    this.#sessionCount++
    return s
  }

  /** A session left its partition (merged away or emptied): its row is retracted. */
  #kill(s: Session): void {
    this.#structural = true
    s.dead = true
    this.#sessionCount--
    if (s.out !== null) {
      this.#retired.push(s.out)
      s.out = null
    }
  }

  #touch(s: Session): void {
    if (!s.touched) {
      s.touched = true
      this.#touched.push(s)
    }
  }


  /** Adds one held row with weight w (its values computed again). */
  #addRow(s: Session, row: Row, w: number): void {
    s.count += w
    const aggs = this.aggregates
    for (let j = 0; j < aggs.length; j++) {
      const a = aggs[j]!
      if (a.filter !== undefined && !a.filter(row)) continue
      const v = a.arg(row)
      if (j === 0) s.a0 = a.aggregator.add(s.a0, v, w)
      else if (j === 1) s.a1 = a.aggregator.add(s.a1, v, w)
      else s.more![j - 2] = a.aggregator.add(s.more![j - 2], v, w)
    }
  }

  /** Adds sign · (the rows at times[lo … hi]) to the session's accumulators. */
  #fold(s: Session, p: Partition, lo: number, hi: number, sign: number): void {
    const vals = p.vals
    const ws = p.ws
    for (let i = lo; i <= hi; i++) {
      const v = vals[i]!
      if (v instanceof RowBucket) {
        const rows = v.rows
        const bw = v.weights
        for (let j = 0; j < rows.length; j++) this.#addRow(s, rows[j]!, sign * bw[j]!)
      } else this.#addRow(s, v, sign * ws[i]!)
    }
  }

  /** Recomputes the rows of the touched sessions; emits the changes to `out` unless null. */
  #refresh(out: ZSet | null): void {
    const retired = this.#retired
    if (out !== null) for (let i = 0; i < retired.length; i++) out.push(retired[i]!, -1)
    retired.length = 0
    const touched = this.#touched
    const aggs = this.aggregates
    const m = aggs.length
    const key = this.key
    const nk = key.length
    const res = this.#results
    const gap = this.gap
    const startAt = this.#startAt
    const endAt = this.#endAt
    for (let t = 0; t < touched.length; t++) {
      const s = touched[t]!
      s.touched = false
      if (s.dead) continue
      const old = s.out
      if (!(s.count > 0)) {
        if (old !== null) {
          out?.push(old, -1)
          s.out = null
        }
        continue
      }
      const end = s.last + gap
      let same = old !== null && old[startAt] === s.start && old[endAt] === end
      for (let j = 0; j < m; j++) {
        const v = aggs[j]!.aggregator.result(j === 0 ? s.a0 : j === 1 ? s.a1 : s.more![j - 2])
        res[j] = v
        if (same && !valuesEqual(old![nk + j], v)) same = false
      }
      if (same) continue
      const next = new Array<unknown>(nk + m)
      const keyRow = s.part.keyRow
      for (let c = 0; c < nk; c++) {
        const k = key[c]!
        next[c] = k === SESSION_START ? s.start : k === SESSION_END ? end : keyRow[k]
      }
      emitGroupRow(out, old, next, nk, res, m)
      s.out = next
    }
    touched.length = 0
  }

  /** Frees every session whose window_end ≤ watermark (a prefix of each partition), with its
   *  events and accumulators; its row stays emitted. Emits nothing; journaled until commit. */
  advance(): void {
    const watermark = this.watermark
    if (watermark === undefined) return
    const w = watermark()
    const gap = this.gap
    const parts = this.#parts
    for (const p of parts.values()) {
      const sessions = p.sessions
      const ns = sessions.length
      if (!(sessions[0]!.last + gap <= w)) continue
      let k = 1
      while (k < ns && sessions[k]!.last + gap <= w) k++
      let freed: Freed
      if (k === ns) {
        freed = { key: p.key, keyRow: p.keyRow, times: p.times, vals: p.vals, ws: p.ws, starts: p.starts, sessions, entries: entriesOf(p.vals) }
        parts.delete(p.key)
      } else {
        const cut = upperBound(p.times, sessions[k - 1]!.last)
        const vals = p.vals.splice(0, cut)
        freed = { key: p.key, keyRow: p.keyRow, times: p.times.splice(0, cut), vals, ws: p.ws.splice(0, cut), starts: p.starts.splice(0, k), sessions: sessions.splice(0, k), entries: entriesOf(vals) }
      }
      this.#size -= freed.entries
      this.#sessionCount -= k
      this.#journal.record(freed)
    }
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    const parts = this.#parts
    this.#journal.undo((entry) => {
      if (entry instanceof ZSet) {
        const keys = new Array<RowKey | undefined>(entry.rows.length)
        const vals = this.#extract(entry, keys)
        this.#absorb(entry, keys, vals, -1)
        return
      }
      // every later change is undone already: the partition holds only times after the prefix
      let p = parts.get(entry.key)
      if (p === undefined) {
        p = new Partition(entry.key, entry.keyRow)
        parts.set(entry.key, p)
      }
      p.times = entry.times.concat(p.times)
      p.vals = entry.vals.concat(p.vals)
      p.ws = entry.ws.concat(p.ws)
      p.starts = entry.starts.concat(p.starts)
      p.sessions = entry.sessions.concat(p.sessions)
      this.#size += entry.entries
      this.#sessionCount += entry.sessions.length
    })
    this.#refresh(null)
    this.#structural = false
  }

  /** Between ticks (nothing journaled, no session touched): every partition as plain data,
   *  sharing the live arrays, rows and accumulators (the caller serializes it before the next
   *  step). */
  saveState(): SessionReduceState {
    const m = this.aggregates.length
    const partitions: PartitionState[] = []
    for (const p of this.#parts.values()) {
      const vals = new Array<Row | TimeRowsState>(p.vals.length)
      for (let i = 0; i < vals.length; i++) {
        const v = p.vals[i]!
        vals[i] = v instanceof RowBucket ? { rows: v.rows, weights: v.weights } : v
      }
      const sessions = new Array<SessionState>(p.sessions.length)
      for (let i = 0; i < sessions.length; i++) {
        const x = p.sessions[i]!
        const accs = new Array<unknown>(m)
        for (let j = 0; j < m; j++) accs[j] = j === 0 ? x.a0 : j === 1 ? x.a1 : x.more![j - 2]
        sessions[i] = { start: x.start, last: x.last, count: x.count, accs, out: x.out }
      }
      partitions.push({ key: p.key, keyRow: p.keyRow, times: p.times, vals, ws: p.ws, sessions })
    }
    return { partitions }
  }

  /** Replaces everything (a backfilled fresh operator may hold sessions already) by the saved
   *  partitions, in their saved order; takes ownership of the deserialized arrays. The counts
   *  are recomputed from what was loaded. */
  loadState(state: unknown): void {
    const s = state as SessionReduceState
    const parts = this.#parts
    parts.clear()
    this.#journal.commit()
    this.#touched.length = 0
    this.#retired.length = 0
    this.#structural = false
    const m = this.aggregates.length
    let size = 0
    let count = 0
    for (const ps of s.partitions) {
      const p = new Partition(ps.key, ps.keyRow)
      p.times = ps.times
      p.ws = ps.ws
      const vals = new Array<Row | RowBucket>(ps.vals.length)
      for (let i = 0; i < vals.length; i++) {
        const v = ps.vals[i]!
        if (Array.isArray(v)) vals[i] = v as Row
        else {
          // rebuilt through add (rows are distinct) so a large bucket gets its key index
          const { rows, weights } = v as TimeRowsState
          const b = new RowBucket()
          for (let j = 0; j < rows.length; j++) b.add(rows[j]!, weights[j]!)
          vals[i] = b
        }
      }
      p.vals = vals
      size += entriesOf(vals)
      const n = ps.sessions.length
      for (let i = 0; i < n; i++) {
        const ss = ps.sessions[i]!
        const x = new Session(p, ss.start, ss.last)
        x.count = ss.count
        if (m > 0) x.a0 = ss.accs[0]
        if (m > 1) x.a1 = ss.accs[1]
        if (m > 2) x.more = ss.accs.slice(2)
        x.out = ss.out
        p.starts.push(ss.start)
        p.sessions.push(x)
      }
      count += n
      parts.set(ps.key, p)
    }
    this.#size = size
    this.#sessionCount = count
  }

  /** Number of sessions held. */
  get sessionCount(): number {
    return this.#sessionCount
  }

  override stateSize(): number {
    return this.#size
  }

  override describeState(): string {
    const by = this.partitionBy.length === 0 ? 'sessions' : `sessions per partition by (${this.partitionBy.map((c) => '#' + c).join(', ')})`
    const names = this.aggregates.map((a) => a.aggregator.name).join(', ')
    const freed = this.watermark === undefined ? '' : '; freed once watermark ≥ window_end'
    return `${by} on col #${this.timeColumn}, gap ${this.gap} µs: ${this.#sessionCount} sessions (${names}), ${this.#size} rows${freed}`
  }
}

/** The indices of the rows with a key, by ascending time (stable), or undefined when the
 *  delta is in time order already (the usual case for event times: no allocation). */
function timeOrder(d: ZSet, keys: readonly (RowKey | undefined)[], tc: number): number[] | undefined {
  const rows = d.rows
  let prev = -Infinity
  let i = 0
  for (; i < rows.length; i++) {
    if (keys[i] === undefined) continue
    const t = rows[i]![tc] as number
    if (t < prev) break
    prev = t
  }
  if (i === rows.length) return undefined
  const order: number[] = []
  for (let j = 0; j < rows.length; j++) if (keys[j] !== undefined) order.push(j)
  order.sort((a, b) => (rows[a]![tc] as number) - (rows[b]![tc] as number) || a - b)
  return order
}

function entriesOf(vals: readonly (Row | RowBucket)[]): number {
  let n = 0
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i]!
    n += v instanceof RowBucket ? v.size : 1
  }
  return n
}

export function sessionReduce(circuit: Circuit, input: Operator, options: SessionReduceOptions): SessionReduceOperator {
  return circuit.add(new SessionReduceOperator(input, options))
}
