// SessionWindowOperator — SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL gap).
//
// Semantics:  per partition p (rows with equal partition columns), an event at time t covers
//             [t, t + gap); a session is a maximal union of overlapping covers. Covers that only
//             touch do not merge: sorted times t1 ≤ t2 are in one session iff t2 < t1 + gap.
//             Every row of a session is output followed by two extra columns
//             [window_start, window_end] = [min time, max time + gap]. Rows whose time is NULL
//             belong to no session and produce nothing. A session is a contiguous time range,
//             so session S = [s, l] holds exactly the rows with time in [s, l] (in[S]).
//             Per step and touched partition, let A_old / A_new be the sessions before / after
//             the step holding an event at distance < gap from a changed time (every other
//             session is the same before and after); sessions compare by bounds, ⊗S annotates
//             rows with S's bounds:
//               out =   Σ_{S ∈ A_old ∩ A_new} Δin[S] ⊗ S
//                     + Σ_{S ∈ A_new \ A_old} in_new[S] ⊗ S
//                     − Σ_{S ∈ A_old \ A_new} (in_new[S] − Δin[S]) ⊗ S      (in_old = in_new − Δin)
//             So a row added inside a session whose bounds stay emits only itself; an event
//             bridging two sessions retracts both and inserts the merged one; deleting the
//             bridge does the reverse.
// State kept: per partition a sorted array of the distinct times held and, per time, the rows at
//             that time with their weights (row key → [row, weight]). Sessions are not stored:
//             they are recomputed around the changed times by scanning neighbouring times.
//             With `watermark` (given only when every later change, insert or delete, has a
//             time ≥ it, as the planner's watermark bounds guarantee), `advance()` forgets every session
//             with window_end ≤ watermark — no later event (time ≥ watermark) can touch it.
//             Forgetting emits nothing and is journaled, so rollback restores it.
// Saved:      per partition its key, times and each time's rows and weights; load rebuilds
//             the Partitions and RowBuckets.
// Linear:     no.
// Retracts:   yes.
//
// Cost per step and touched partition: O(k log k + k log n) for k changed rows in a partition
// of n distinct times (an append after the last time is O(1) to place), plus the rows of the
// affected sessions whose bounds change (all of them are re-annotated, which is inherent).
// `advance()` is O(partitions + entries freed).

import type { Circuit } from '../circuit.js'
import { keyFunction, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { lowerBound, sortByTime } from '../sorted.js'
import { RowBucket } from '../row-bucket.js'

export interface SessionWindowOptions {
  /** Partition columns (rows with equal values here form independent sessions). */
  readonly partitionBy: readonly number[]
  /** Column holding the event time (a number, µs); NULL rows are dropped. */
  readonly timeColumn: number
  /** Session gap (µs), > 0. */
  readonly gap: number
  /** Current watermark: every later change (insert or delete) has a time ≥ it. */
  readonly watermark?: () => number
}

class Partition {
  readonly key: RowKey
  /** Distinct times held, ascending. */
  times: number[] = []
  /** buckets[i] = the rows at times[i] (never empty). */
  buckets: RowBucket[] = []

  constructor(key: RowKey) {
    this.key = key
  }
}

/** One partition of a checkpoint: rows[i] / weights[i] are the rows at times[i]. */
interface PartitionState {
  readonly key: RowKey
  readonly times: number[]
  readonly rows: Row[][]
  readonly weights: number[][]
}

/** SessionWindowOperator's checkpoint (see saveState). */
export interface SessionWindowState {
  readonly partitions: PartitionState[]
}

/** A prefix of a partition freed by `advance()`, kept until commit so rollback can restore it. */
interface Forgotten {
  readonly key: RowKey
  readonly times: number[]
  readonly buckets: RowBucket[]
  readonly entries: number
}

/** One partition's share of an input delta, sorted by time once grouped. */
interface Group {
  readonly key: RowKey
  times: number[]
  rows: Row[]
  weights: number[]
}

export class SessionWindowOperator extends BaseOperator {
  readonly name = 'SessionWindow'
  readonly partitionBy: readonly number[]
  readonly timeColumn: number
  readonly gap: number
  readonly watermark: (() => number) | undefined
  readonly #partOf: (row: Row) => RowKey
  readonly #parts = new Map<RowKey, Partition>()
  readonly #journal = new Journal<ZSet | Forgotten>()
  /** Distinct (row, time) entries held. */
  #size = 0

  constructor(input: Operator, options: SessionWindowOptions) {
    super([input])
    if (!(options.gap > 0)) throw new Error(`SessionWindow: gap must be > 0, got ${String(options.gap)}`)
    this.partitionBy = options.partitionBy.slice()
    this.timeColumn = options.timeColumn
    this.gap = options.gap
    this.watermark = options.watermark
    this.#partOf = keyFunction(this.partitionBy)
  }

  step(): void {
    const d = this.inputs[0]!.out
    this.out = ZSet.empty()
    const rows = d.rows
    if (rows.length === 0) return
    // group by partition first: this validates every time before any state changes
    const ws = d.weights
    const tc = this.timeColumn
    const partOf = this.#partOf
    const groups = new Map<RowKey, Group>()
    for (let i = 0; i < rows.length; i++) {
      const w = ws[i]!
      if (w === 0) continue
      const r = rows[i]!
      const t = r[tc]
      if (t === null || t === undefined) continue
      if (typeof t !== 'number' || t !== t) throw new Error(`SessionWindow: time column #${tc} must be a number, got ${String(t)}`)
      const k = partOf(r)
      let g = groups.get(k)
      if (g === undefined) {
        g = { key: k, times: [], rows: [], weights: [] }
        groups.set(k, g)
      }
      g.times.push(t)
      g.rows.push(r)
      g.weights.push(w)
    }
    if (groups.size === 0) return
    this.#journal.record(d)
    const out = new ZSet()
    for (const g of groups.values()) {
      sortByTime(g)
      this.#stepPartition(g, out)
    }
    this.out = out.consolidate()
  }

  #stepPartition(g: Group, out: ZSet): void {
    const parts = this.#parts
    let p = parts.get(g.key)
    if (p === undefined) {
      p = new Partition(g.key)
      parts.set(g.key, p)
    }
    const dT = g.times
    const dR = g.rows
    const dW = g.weights
    const changed: number[] = []
    for (let j = 0; j < dT.length; j++) if (j === 0 || dT[j] !== dT[j - 1]) changed.push(dT[j]!)
    const before = this.#sessions(p.times, changed)
    for (let j = 0; j < dT.length; j++) this.#apply(p, dT[j]!, dR[j]!, dW[j]!)
    const after = this.#sessions(p.times, changed)
    // both lists are ascending and disjoint: a merge walk matches sessions with equal bounds
    let i = 0
    let j = 0
    while (i < before.length || j < after.length) {
      if (i < before.length && j < after.length && before[i] === after[j] && before[i + 1] === after[j + 1]) {
        this.#emitDelta(g, before[i]!, before[i + 1]!, out)
        i += 2
        j += 2
      } else if (j >= after.length || (i < before.length && before[i]! <= after[j]!)) {
        // an old session that changed bounds: retract its old rows (= now − Δ)
        this.#emitRows(p, before[i]!, before[i + 1]!, -1, out)
        this.#emitDelta(g, before[i]!, before[i + 1]!, out)
        i += 2
      } else {
        this.#emitRows(p, after[j]!, after[j + 1]!, 1, out)
        j += 2
      }
    }
    if (p.times.length === 0) parts.delete(p.key)
  }

  /** Bounds [start, last, start, last, …] (ascending) of the sessions in `times` holding an event
   *  at distance < gap from one of `changed` (ascending). */
  #sessions(times: readonly number[], changed: readonly number[]): number[] {
    const gap = this.gap
    const n = times.length
    const res: number[] = []
    // every index ≤ covered is reported already; covered is always the last index of a session
    let covered = -1
    for (let c = 0; c < changed.length; c++) {
      const t = changed[c]!
      // first index > covered whose event reaches t: t < times[i] + gap
      let lo = covered + 1
      let hi = n
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (t < times[mid]! + gap) hi = mid
        else lo = mid + 1
      }
      if (lo >= n || !(times[lo]! < t + gap)) continue
      let s = lo
      while (s > covered + 1 && times[s]! < times[s - 1]! + gap) s--
      do {
        let e = s
        while (e + 1 < n && times[e + 1]! < times[e]! + gap) e++
        res.push(times[s]!, times[e]!)
        covered = e
        s = e + 1
      } while (s < n && times[s]! < t + gap)
    }
    return res
  }

  /** out += Δ rows with time in [start, last], annotated with the session's bounds. */
  #emitDelta(g: Group, start: number, last: number, out: ZSet): void {
    const dT = g.times
    const end = last + this.gap
    for (let j = lowerBound(dT, start); j < dT.length && dT[j]! <= last; j++) out.push(annotate(g.rows[j]!, start, end), g.weights[j]!)
  }

  /** out += sign · (rows held with time in [start, last]), annotated with the session's bounds. */
  #emitRows(p: Partition, start: number, last: number, sign: number, out: ZSet): void {
    const times = p.times
    const end = last + this.gap
    for (let i = lowerBound(times, start); i < times.length && times[i]! <= last; i++) {
      const b = p.buckets[i]!
      for (let j = 0; j < b.rows.length; j++) out.push(annotate(b.rows[j]!, start, end), sign * b.weights[j]!)
    }
  }

  #apply(p: Partition, t: number, row: Row, w: number): void {
    const times = p.times
    const n = times.length
    const i = n === 0 || times[n - 1]! < t ? n : lowerBound(times, t)
    let b: RowBucket
    if (i < n && times[i] === t) b = p.buckets[i]!
    else {
      b = new RowBucket()
      if (i === n) {
        times.push(t)
        p.buckets.push(b)
      } else {
        times.splice(i, 0, t)
        p.buckets.splice(i, 0, b)
      }
    }
    const change = b.add(row, w)
    this.#size += change
    if (change < 0 && b.size === 0) {
      times.splice(i, 1)
      p.buckets.splice(i, 1)
    }
  }

  /** Forgets every session whose window_end ≤ watermark (a prefix of each partition). Emits
   *  nothing; journaled until commit. */
  advance(): void {
    const watermark = this.watermark
    if (watermark === undefined) return
    const w = watermark()
    const gap = this.gap
    const parts = this.#parts
    for (const p of parts.values()) {
      const times = p.times
      const n = times.length
      if (!(times[0]! + gap <= w)) continue
      let cut = 0
      let s = 0
      scan: while (s < n) {
        let e = s
        for (;;) {
          if (!(times[e]! + gap <= w)) break scan
          if (e + 1 < n && times[e + 1]! < times[e]! + gap) e++
          else break
        }
        cut = e + 1
        s = cut
      }
      if (cut === 0) continue
      const freedTimes = times.splice(0, cut)
      const freedBuckets = p.buckets.splice(0, cut)
      let entries = 0
      for (let i = 0; i < freedBuckets.length; i++) entries += freedBuckets[i]!.size
      this.#size -= entries
      this.#journal.record({ key: p.key, times: freedTimes, buckets: freedBuckets, entries })
      if (times.length === 0) parts.delete(p.key)
    }
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    const parts = this.#parts
    const tc = this.timeColumn
    const partOf = this.#partOf
    const part = (k: RowKey): Partition => {
      let p = parts.get(k)
      if (p === undefined) {
        p = new Partition(k)
        parts.set(k, p)
      }
      return p
    }
    this.#journal.undo((entry) => {
      if (entry instanceof ZSet) {
        const rows = entry.rows
        for (let i = 0; i < rows.length; i++) {
          const w = entry.weights[i]!
          const r = rows[i]!
          const t = r[tc]
          if (w === 0 || t === null || t === undefined) continue
          const p = part(partOf(r))
          this.#apply(p, t as number, r, -w)
          if (p.times.length === 0) parts.delete(p.key)
        }
      } else {
        // every later change is undone already: the partition holds only times after the prefix
        const p = part(entry.key)
        p.times = entry.times.concat(p.times)
        p.buckets = entry.buckets.concat(p.buckets)
        this.#size += entry.entries
      }
    })
  }

  /** Between ticks (nothing journaled): every partition as plain data, sharing the live
   *  arrays and rows (the caller serializes it before the next step). */
  saveState(): SessionWindowState {
    const partitions: PartitionState[] = []
    for (const p of this.#parts.values()) {
      const bs = p.buckets
      const rows = new Array<Row[]>(bs.length)
      const weights = new Array<number[]>(bs.length)
      for (let i = 0; i < bs.length; i++) {
        rows[i] = bs[i]!.rows
        weights[i] = bs[i]!.weights
      }
      partitions.push({ key: p.key, times: p.times, rows, weights })
    }
    return { partitions }
  }

  /** Replaces everything (a backfilled fresh operator may hold rows already) by the saved
   *  partitions, in their saved order; takes ownership of the deserialized arrays. */
  loadState(state: unknown): void {
    const s = state as SessionWindowState
    const parts = this.#parts
    parts.clear()
    this.#journal.commit()
    let size = 0
    for (const ps of s.partitions) {
      const p = new Partition(ps.key)
      p.times = ps.times
      const buckets = new Array<RowBucket>(ps.rows.length)
      for (let i = 0; i < buckets.length; i++) {
        // rebuilt through add (rows are distinct) so a large bucket gets its key index
        const rows = ps.rows[i]!
        const ws = ps.weights[i]!
        const b = new RowBucket()
        for (let j = 0; j < rows.length; j++) b.add(rows[j]!, ws[j]!)
        size += b.size
        buckets[i] = b
      }
      p.buckets = buckets
      parts.set(ps.key, p)
    }
    this.#size = size
  }

  override stateSize(): number {
    return this.#size
  }

  override describeState(): string {
    const by = this.partitionBy.length === 0 ? 'sessions' : `sessions per partition by (${this.partitionBy.map((c) => '#' + c).join(', ')})`
    const freed = this.watermark === undefined ? '' : '; freed once watermark ≥ window_end'
    return `${by} on col #${this.timeColumn}, gap ${this.gap} µs; ${this.#size} rows${freed}`
  }
}


function annotate(row: Row, start: number, end: number): Row {
  const n = row.length
  const r = new Array<unknown>(n + 2)
  for (let i = 0; i < n; i++) r[i] = row[i]
  r[n] = start
  r[n + 1] = end
  return r
}

export function sessionWindow(circuit: Circuit, input: Operator, options: SessionWindowOptions): SessionWindowOperator {
  return circuit.add(new SessionWindowOperator(input, options))
}
