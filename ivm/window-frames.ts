// Window functions over one partition's ordered rows (ivm/chunked-rows.ts), for the Window
// operator: what each function reads (its frame), which rows a change can reach, and the
// evaluation of every function over a run of positions [from, to].
//
// Positions are 0-based in the partition's total order (ORDER BY, ties by the whole row); a
// row of count c fills c positions and gets one result per position. A frame is the closed
// position range [start, end] (empty when start > end):
// - `rows` bounds are offsets from the current position (ROWS n PRECEDING = −n);
// - `peers` is RANGE CURRENT ROW: the first (start) or last (end) row of the current row's
//   peer group (equal ORDER BY values);
// - `value` is RANGE n PRECEDING / FOLLOWING on the one ORDER BY value: the first (start) or
//   last (end) row whose value sorts within n of the current row's; a row whose value is NULL
//   takes its peers instead (as PostgreSQL: NULLs are only within range of NULLs);
// - `unbounded` is the partition's first (start) or last (end) row.
// Every bound is monotone in the position, which lets one pass slide a frame over a run.
//
// Aggregates over a frame that reaches a partition edge (UNBOUNDED, the default running frame)
// start from the partition's total (kept by the operator) and retract the rows outside the
// frame, walking from the edge the change reached anyway: the cost is the affected rows, not
// the prefix before them. The retracted rows are folded back afterwards.

import type { Aggregator } from './aggregators/aggregator.js'
import type { ChunkedRows } from './chunked-rows.js'
import type { Row } from './zset.js'

export type FrameBound =
  | { readonly kind: 'unbounded' }
  | { readonly kind: 'rows'; readonly offset: number }
  | { readonly kind: 'peers' }
  /** `shift(v, d)` is v moved by the bound's offset toward the partition start (d = −1) or
   *  end (d = +1) in sort order (ASC: v − n / v + n; DESC the reverse); `toward` is where this
   *  bound lies (PRECEDING −1, FOLLOWING +1). */
  | { readonly kind: 'value'; readonly toward: -1 | 1; readonly shift: (v: unknown, d: -1 | 1) => unknown }

export interface Frame {
  readonly start: FrameBound
  readonly end: FrameBound
}

export type WindowFunction =
  | { readonly kind: 'rowNumber' | 'rank' | 'denseRank' }
  /** Relative ranks, of the whole partition: (rank − 1) / (rows − 1), the share of rows up to
   *  the last peer, and the bucket of `n` nearly equal ones (the first buckets one larger). */
  | { readonly kind: 'percentRank' | 'cumeDist' }
  | { readonly kind: 'ntile'; readonly n: number }
  /** The value `offset` rows before (lag) / after (lead), else `fallback` of the current row. */
  | { readonly kind: 'lag' | 'lead'; readonly value: (row: Row) => unknown; readonly offset: number; readonly fallback: (row: Row) => unknown }
  /** The value of the frame's first / last / n-th row (NULL when the frame has none). */
  | { readonly kind: 'firstValue' | 'lastValue'; readonly value: (row: Row) => unknown; readonly frame: Frame }
  | { readonly kind: 'nthValue'; readonly value: (row: Row) => unknown; readonly n: number; readonly frame: Frame }
  | { readonly kind: 'aggregate'; readonly aggregator: Aggregator<unknown, unknown>; readonly arg: (row: Row) => unknown; readonly frame: Frame }

/** Does the function need the partition's total accumulator (an aggregate whose frame
 *  reaches a partition edge)? */
export function keepsTotal(f: WindowFunction): f is Extract<WindowFunction, { kind: 'aggregate' }> {
  return f.kind === 'aggregate' && (f.frame.start.kind === 'unbounded' || f.frame.end.kind === 'unbounded')
}

/** How rows sort within a partition. */
export interface WindowOrder {
  /** ORDER BY only: 0 for peers. */
  readonly peers: (a: Row, b: Row) => number
  /** RANGE offsets: the one ORDER BY value of a row, and how two values sort (NULLs where
   *  ORDER BY puts them). */
  readonly value: (row: Row) => unknown
  readonly compareValues: (a: unknown, b: unknown) => number
}

/** Searches a position range shares with the whole partition: first positions past a prefix. */
interface Positions {
  /** The first position whose row is not below `target`'s peer group (strict: not within or
   *  below it). */
  peerEdge(target: Row, strict: boolean): number
  /** The first position whose ORDER BY value sorts at or above `v` (strict: above). */
  valueEdge(v: unknown, strict: boolean): number
}

/** Position searches over a whole partition. */
export class PartitionPositions implements Positions {
  rows: ChunkedRows | null = null
  readonly #below: (r: Row, t: Row) => boolean
  readonly #within: (r: Row, t: Row) => boolean
  readonly #valueBelow: (r: Row, v: unknown) => boolean
  readonly #valueWithin: (r: Row, v: unknown) => boolean

  constructor(order: WindowOrder) {
    const { peers, value, compareValues } = order
    this.#below = (r, t) => peers(r, t) < 0
    this.#within = (r, t) => peers(r, t) <= 0
    this.#valueBelow = (r, v) => compareValues(value(r), v) < 0
    this.#valueWithin = (r, v) => compareValues(value(r), v) <= 0
  }

  peerEdge(target: Row, strict: boolean): number {
    return this.rows!.positionAfter(target, strict ? this.#within : this.#below)
  }

  valueEdge(v: unknown, strict: boolean): number {
    return this.rows!.positionAfter(v, strict ? this.#valueWithin : this.#valueBelow)
  }
}

/** The rows of positions [start, start + rows.length), with searches valid for answers in
 *  [start, start + rows.length] (the caller reads a wide enough slice). */
class Slice implements Positions {
  start = 0
  rows: Row[] = []
  /** The partition, for the odd position outside the slice (UNBOUNDED first / n-th value). */
  source: ChunkedRows | null = null
  #memoPos = -1
  #memoRow: Row | null = null

  constructor(private readonly order: WindowOrder) {}

  /** Points the slice at positions [start, …) of `source` (rows appended by the caller). */
  reset(source: ChunkedRows, start: number): void {
    this.source = source
    this.start = start
    this.rows.length = 0
    this.#memoPos = -1
    this.#memoRow = null
  }

  rowAt(p: number): Row {
    const i = p - this.start
    if (i >= 0 && i < this.rows.length) return this.rows[i]!
    if (p !== this.#memoPos) {
      this.#memoPos = p
      this.#memoRow = this.source!.rowAt(p)
    }
    return this.#memoRow!
  }

  peerEdge(target: Row, strict: boolean): number {
    const rows = this.rows
    const peers = this.order.peers
    let a = 0
    let b = rows.length
    while (a < b) {
      const mid = (a + b) >>> 1
      const c = peers(rows[mid]!, target)
      if (c < 0 || (strict && c === 0)) a = mid + 1
      else b = mid
    }
    return this.start + a
  }

  valueEdge(v: unknown, strict: boolean): number {
    const rows = this.rows
    const { value, compareValues } = this.order
    let a = 0
    let b = rows.length
    while (a < b) {
      const mid = (a + b) >>> 1
      const c = compareValues(value(rows[mid]!), v)
      if (c < 0 || (strict && c === 0)) a = mid + 1
      else b = mid
    }
    return this.start + a
  }
}

/** The first position of the frame of the row `row` at position `i` (may exceed the last). */
export function frameStart(b: FrameBound, i: number, row: Row, at: Positions, order: WindowOrder): number {
  switch (b.kind) {
    case 'unbounded':
      return 0
    case 'rows':
      return i + b.offset > 0 ? i + b.offset : 0
    case 'peers':
      return at.peerEdge(row, false)
    case 'value': {
      const v = order.value(row)
      return v === null ? at.peerEdge(row, false) : at.valueEdge(b.shift(v, b.toward), false)
    }
  }
}

/** The last position of the frame of the row at position `i` (may be −1) of `n` positions. */
export function frameEnd(b: FrameBound, i: number, row: Row, n: number, at: Positions, order: WindowOrder): number {
  switch (b.kind) {
    case 'unbounded':
      return n - 1
    case 'rows':
      return i + b.offset < n - 1 ? i + b.offset : n - 1
    case 'peers':
      return at.peerEdge(row, true) - 1
    case 'value': {
      const v = order.value(row)
      return (v === null ? at.peerEdge(row, true) : at.valueEdge(b.shift(v, b.toward), true)) - 1
    }
  }
}

/** The positions whose result a change of `row` (filling [a, b] of `n` positions) can alter
 *  through `f`, widened to include [a, b]: [lo, hi]. */
export function reach(f: WindowFunction, row: Row, a: number, b: number, n: number, at: Positions, order: WindowOrder): [number, number] {
  let lo = a
  let hi = b
  switch (f.kind) {
    case 'rowNumber':
    case 'rank':
    case 'denseRank':
      hi = n - 1
      break
    case 'percentRank':
    case 'cumeDist':
    case 'ntile':
      // they divide by the partition's size: every row
      lo = 0
      hi = n - 1
      break
    case 'lag':
      hi = b + f.offset
      break
    case 'lead':
      lo = a - f.offset
      break
    default: {
      // the rows whose frame holds the change: its end bound reaches back from it, its start
      // bound forward
      lo = Math.min(a, reachBack(f.frame.end, row, a, at, order))
      hi = Math.max(b, reachForward(f.frame.start, row, b, n, at, order))
    }
  }
  return [lo < 0 ? 0 : lo, hi > n - 1 ? n - 1 : hi]
}

/** The first position whose frame end (bound `e`) is at or after the changed row at `a`. */
function reachBack(e: FrameBound, row: Row, a: number, at: Positions, order: WindowOrder): number {
  switch (e.kind) {
    case 'unbounded':
      return 0
    case 'rows':
      return a - e.offset
    case 'peers':
      return at.peerEdge(row, false)
    case 'value': {
      const v = order.value(row)
      return v === null ? at.peerEdge(row, false) : at.valueEdge(e.shift(v, e.toward === 1 ? -1 : 1), false)
    }
  }
}

/** The last position whose frame start (bound `s`) is at or before the changed row at `b`. */
function reachForward(s: FrameBound, row: Row, b: number, n: number, at: Positions, order: WindowOrder): number {
  switch (s.kind) {
    case 'unbounded':
      return n - 1
    case 'rows':
      return b - s.offset
    case 'peers':
      return at.peerEdge(row, true) - 1
    case 'value': {
      const v = order.value(row)
      return (v === null ? at.peerEdge(row, true) : at.valueEdge(s.shift(v, s.toward === 1 ? -1 : 1), true)) - 1
    }
  }
}

/** What a partition offers an evaluation: its rows, its size in positions, the positions
 *  freed before them, its number of peer groups (DENSE_RANK, freed ones included) and the
 *  total accumulator of each function that keeps one (freed rows included). */
export interface PartitionView {
  readonly rows: ChunkedRows
  readonly positions: number
  /** Positions freed from the front (rows the watermark has passed): ranks count them. */
  readonly freed: number
  readonly groups: number
  readonly totals: unknown[]
}

/** Evaluates window functions over runs of positions, reusing its slice between runs. */
export class FrameEvaluator {
  readonly #functions: readonly WindowFunction[]
  readonly #order: WindowOrder
  readonly #whole: PartitionPositions
  readonly #slice: Slice

  constructor(functions: readonly WindowFunction[], order: WindowOrder) {
    this.#functions = functions
    this.#order = order
    this.#whole = new PartitionPositions(order)
    this.#slice = new Slice(order)
  }

  /** The results at positions [from, to] of `part`: results[f][i − from] for function f;
   *  the rows of those positions in `rows`. Positions reaching a partition edge are promised
   *  by the caller where a function walks from that edge (DENSE_RANK and aggregates with an
   *  UNBOUNDED start need to = positions − 1; UNBOUNDED end aggregates need from = 0). */
  evaluate(part: PartitionView, from: number, to: number, rows: Row[], results: unknown[][]): void {
    const fs = this.#functions
    const order = this.#order
    const whole = this.#whole
    whole.rows = part.rows
    const n = part.positions
    // the slice: every position some function reads for [from, to]
    let lo = from
    let hi = to
    const first = part.rows.rowAt(from)
    const last = to === from ? first : part.rows.rowAt(to)
    for (const f of fs) {
      switch (f.kind) {
        case 'rank':
          lo = Math.min(lo, whole.peerEdge(first, false))
          break
        case 'lag':
          lo = Math.min(lo, from - f.offset)
          break
        case 'lead':
          hi = Math.max(hi, to + f.offset)
          break
        case 'rowNumber':
        case 'denseRank':
        case 'percentRank':
        case 'cumeDist':
        case 'ntile':
          // they run over the whole partition (reach): the slice already holds it
          break
        default: {
          const { start, end } = f.frame
          const s0 = frameStart(start, from, first, whole, order)
          const e0 = frameEnd(end, from, first, n, whole, order)
          const e1 = frameEnd(end, to, last, n, whole, order)
          const s1 = frameStart(start, to, last, whole, order)
          // an aggregate walking from an edge reads what lies outside its frames up to it
          if (f.kind === 'aggregate' && start.kind === 'unbounded') lo = Math.min(lo, e0 + 1)
          else if (start.kind !== 'unbounded') lo = Math.min(lo, s0)
          if (f.kind === 'aggregate' && end.kind === 'unbounded' && start.kind !== 'unbounded') hi = Math.max(hi, s1 - 1)
          else if (end.kind !== 'unbounded') hi = Math.max(hi, e1)
        }
      }
    }
    lo = lo < 0 ? 0 : lo
    hi = hi > n - 1 ? n - 1 : hi
    const slice = this.#slice
    slice.reset(part.rows, lo)
    part.rows.expand(lo, hi + 1, slice.rows)
    for (let i = from; i <= to; i++) rows.push(slice.rows[i - lo]!)
    try {
      for (let k = 0; k < fs.length; k++) results.push(this.#one(fs[k]!, k, part, from, to, n))
    } finally {
      slice.rows.length = 0
      slice.source = null
    }
  }

  #one(f: WindowFunction, k: number, part: PartitionView, from: number, to: number, n: number): unknown[] {
    const slice = this.#slice
    const order = this.#order
    const out = new Array<unknown>(to - from + 1)
    switch (f.kind) {
      case 'rowNumber':
        for (let i = from; i <= to; i++) out[i - from] = part.freed + i + 1
        return out
      case 'rank': {
        let groupStart = slice.peerEdge(slice.rowAt(from), false)
        for (let i = from; i <= to; i++) {
          if (i > from && order.peers(slice.rowAt(i - 1), slice.rowAt(i)) !== 0) groupStart = i
          out[i - from] = part.freed + groupStart + 1
        }
        return out
      }
      case 'percentRank':
      case 'cumeDist': {
        // the run is the whole partition (reach): peer groups are all inside the slice
        const total = part.freed + n
        let groupStart = from
        for (let i = from; i <= to; i++) {
          if (i > from && order.peers(slice.rowAt(i - 1), slice.rowAt(i)) !== 0) groupStart = i
          if (f.kind === 'percentRank') out[i - from] = total > 1 ? (part.freed + groupStart) / (total - 1) : 0
          else out[i - from] = (part.freed + slice.peerEdge(slice.rowAt(i), true)) / total
        }
        return out
      }
      case 'ntile': {
        // n buckets of `size` rows, the first `extra` of them one row larger
        const total = part.freed + n
        const size = Math.floor(total / f.n)
        const extra = total % f.n
        const big = extra * (size + 1)
        for (let i = from; i <= to; i++) {
          const p = part.freed + i
          out[i - from] = p < big ? Math.floor(p / (size + 1)) + 1 : extra + Math.floor((p - big) / size) + 1
        }
        return out
      }
      case 'denseRank': {
        // from the last position (to = n − 1), whose rank is the number of groups
        let rank = part.groups
        for (let i = to; i >= from; i--) {
          out[i - from] = rank
          if (i > from && order.peers(slice.rowAt(i - 1), slice.rowAt(i)) !== 0) rank--
        }
        return out
      }
      case 'lag':
      case 'lead': {
        const d = f.kind === 'lag' ? -f.offset : f.offset
        for (let i = from; i <= to; i++) {
          const p = i + d
          out[i - from] = p >= 0 && p < n ? f.value(slice.rowAt(p)) : f.fallback(slice.rowAt(i))
        }
        return out
      }
      case 'firstValue':
      case 'lastValue':
      case 'nthValue': {
        const { start, end } = f.frame
        for (let i = from; i <= to; i++) {
          const row = slice.rowAt(i)
          const s = frameStart(start, i, row, slice, order)
          const e = frameEnd(end, i, row, n, slice, order)
          const p = f.kind === 'nthValue' ? s + f.n - 1 : f.kind === 'firstValue' ? s : e
          out[i - from] = s <= e && p <= e && p >= s ? f.value(slice.rowAt(p)) : null
        }
        return out
      }
      case 'aggregate':
        if (f.frame.start.kind === 'unbounded' && f.frame.end.kind === 'unbounded') out.fill(f.aggregator.result(part.totals[k]))
        else if (f.frame.start.kind === 'unbounded') this.#fromEnd(f, k, part, from, to, n, out)
        else if (f.frame.end.kind === 'unbounded') this.#fromStart(f, k, part, from, to, n, out)
        else this.#sliding(f, from, to, n, out)
        return out
    }
  }

  /** Frames [0, end(i)]: the total minus the rows after end(i), walking down from the last
   *  position (to = n − 1); the retracted rows are folded back at the end. */
  #fromEnd(f: Extract<WindowFunction, { kind: 'aggregate' }>, k: number, part: PartitionView, from: number, to: number, n: number, out: unknown[]): void {
    const slice = this.#slice
    const { aggregator, arg } = f
    let acc = part.totals[k]
    let held = n // the accumulator holds positions [0, held)
    try {
      for (let i = to; i >= from; i--) {
        const e = frameEnd(f.frame.end, i, slice.rowAt(i), n, slice, this.#order)
        while (held > e + 1 && held > 0) acc = aggregator.add(acc, arg(slice.rowAt(--held)), -1)
        out[i - from] = aggregator.result(acc)
      }
    } finally {
      while (held < n) acc = aggregator.add(acc, arg(slice.rowAt(held++)), 1)
      part.totals[k] = acc
    }
  }

  /** Frames [start(i), n − 1]: the total minus the rows before start(i), walking up from
   *  position 0 (from = 0); the retracted rows are folded back at the end. */
  #fromStart(f: Extract<WindowFunction, { kind: 'aggregate' }>, k: number, part: PartitionView, from: number, to: number, n: number, out: unknown[]): void {
    const slice = this.#slice
    const { aggregator, arg } = f
    let acc = part.totals[k]
    let dropped = 0 // the accumulator holds positions [dropped, n)
    try {
      for (let i = from; i <= to; i++) {
        const s = frameStart(f.frame.start, i, slice.rowAt(i), slice, this.#order)
        while (dropped < s && dropped < n) acc = aggregator.add(acc, arg(slice.rowAt(dropped++)), -1)
        out[i - from] = aggregator.result(acc)
      }
    } finally {
      while (dropped > 0) acc = aggregator.add(acc, arg(slice.rowAt(--dropped)), 1)
      part.totals[k] = acc
    }
  }

  /** Bounded frames: one accumulator slid over the run (both frame edges only move forward). */
  #sliding(f: Extract<WindowFunction, { kind: 'aggregate' }>, from: number, to: number, n: number, out: unknown[]): void {
    const slice = this.#slice
    const order = this.#order
    const { aggregator, arg } = f
    let acc = aggregator.create()
    let lo = 0 // the accumulator holds positions [lo, hi)
    let hi = 0
    for (let i = from; i <= to; i++) {
      const row = slice.rowAt(i)
      const s = frameStart(f.frame.start, i, row, slice, order)
      const e = frameEnd(f.frame.end, i, row, n, slice, order)
      const end = e + 1 > s ? e + 1 : s
      if (hi <= s) {
        if (hi > lo) acc = aggregator.create()
        lo = hi = s
      }
      while (hi < end) acc = aggregator.add(acc, arg(slice.rowAt(hi++)), 1)
      while (lo < s) acc = aggregator.add(acc, arg(slice.rowAt(lo++)), -1)
      out[i - from] = aggregator.result(acc)
    }
  }
}
