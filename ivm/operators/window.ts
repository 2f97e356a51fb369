// WindowOperator — window functions OVER (PARTITION BY … ORDER BY … [frame]).
//
// Semantics:  per partition p (rows with equal partition columns), order the integrated
//             multiset by `peers` (ORDER BY), ties broken by the whole row (compareRows), so
//             the result depends only on the multiset; a row of weight w fills w consecutive
//             positions. Output: one row per position = the input row, then the result of each
//             function at that position (ROW_NUMBER, RANK, DENSE_RANK, LAG/LEAD, FIRST/LAST/
//             NTH_VALUE and aggregates over ROWS / RANGE frames: ivm/window-frames.ts).
//             Per step and touched partition: the positions a change can alter are found in
//             the state before the step (deletions) and after it (insertions) — for LAG/LEAD
//             the neighbours within the offset, for a frame the rows whose frame covers the
//             changed row, for ROW_NUMBER/RANK/DENSE_RANK and running aggregates the rows from
//             it to the partition end — and kept as ranges of rows (by the total order). Then
//             out = results over those ranges after the step − results before it, so rows whose
//             results did not change cancel (the output is consolidated). A batch of at least
//             WHOLE_AT changes and a sixteenth of the partition (a backfill) recomputes the
//             partition whole instead of finding a range per change.
// State kept: per partition a ChunkedRows (distinct rows in total order with their counts,
//             ivm/chunked-rows.ts); for DENSE_RANK the number of peer groups; for aggregates
//             whose frame reaches a partition edge, the accumulator of the whole partition.
//             Output rows are not kept: the results before a step are recomputed from the
//             rows before it (the step's changes are taken out, then put back).
//             Saved (checkpoint): per partition its key, rows and counts, freed positions,
//             peer groups and totals.
// Linear:     no.
// Watermark:  with `freeing` (append-only input, ORDER BY the watermarked column first): at
//             each commit after the watermark moved, the rows it passed leave every
//             partition's front, but for those later rows may still read or whose results
//             may still change (WindowFreeing). Ranks count the freed positions and groups;
//             totals keep the freed rows' values. With `partitionFinal` (a PARTITION BY
//             column the watermark bounds, e.g. window_start), a partition it has passed is
//             freed whole. Without either, unbounded.
// Retracts:   yes.
//
// Cost per step and touched partition: O(log n + CHUNK_MAX + n / CHUNK_MAX) per changed row to
// place it and find its range, plus the affected rows and the frame rows they read.

import type { Circuit } from '../circuit.js'
import { ChunkedRows } from '../chunked-rows.js'
import { compareRows, keyFunction, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { FrameEvaluator, keepsTotal, PartitionPositions, reach, type PartitionView, type WindowFunction, type WindowOrder } from '../window-frames.js'
import { ZSet, type Row } from '../zset.js'

class Partition implements PartitionView {
  readonly key: RowKey
  /** A row of the partition (its PARTITION BY values), kept when every row is freed. */
  readonly sample: Row
  readonly rows = new ChunkedRows()
  positions = 0
  freed = 0
  groups = 0
  readonly totals: unknown[]
  /** This step's changes (rows and weights) while the step runs: as they came, then net
   *  (distinct, in order) once absorbed, with the ranges of rows they reached before. */
  changed: Row[] = []
  weights: number[] = []
  from: (Row | null)[] = []
  to: (Row | null)[] = []
  /** This step recomputes the whole partition (many changes for its size). */
  whole = false

  constructor(key: RowKey, sample: Row, functions: readonly WindowFunction[]) {
    this.key = key
    this.sample = sample
    this.totals = functions.map((f) => (keepsTotal(f) ? f.aggregator.create() : undefined))
  }
}

/** A WindowOperator's state as plain data: per partition its distinct rows in order and
 *  their counts (parallel), the positions freed before them, its peer groups and totals. */
export interface WindowState {
  readonly keys: RowKey[]
  readonly samples: Row[]
  readonly rows: Row[][]
  readonly counts: number[][]
  readonly freed: number[]
  readonly groups: number[]
  readonly totals: unknown[][]
}

/** Over an append-only input whose first ORDER BY value (ascending, NULLs last) a watermark
 *  bounds: rows the watermark has passed are freed, but for the last `rows` of them and those
 *  within `distance` of it, which later rows may still read or whose results may change
 *  (planner/lower/window-retention.ts decides both). */
export interface WindowFreeing {
  /** Will no later row have this ORDER BY value or a smaller one, at this watermark? */
  readonly isFinal: (v: unknown, watermark: number) => boolean
  /** The watermark as the tick that is ending leaves it (read in advance()). */
  readonly watermark: () => number
  readonly rows: number
  readonly distance: number
}

export interface WindowOptions {
  readonly partitionColumns: readonly number[]
  readonly order: WindowOrder
  readonly functions: readonly WindowFunction[]
  readonly freeing?: WindowFreeing | undefined
  /** A PARTITION BY value the watermark has passed (read in advance()): that partition gets
   *  no more changes, and is freed whole at commit. */
  readonly partitionFinal?: ((row: Row) => boolean) | undefined
}

export class WindowOperator extends BaseOperator {
  readonly name = 'Window'
  readonly partitionColumns: readonly number[]
  readonly functions: readonly WindowFunction[]
  readonly #order: WindowOrder
  /** The total order: ORDER BY, then the whole row. */
  readonly #cmp: (a: Row, b: Row) => number
  readonly #partOf: (row: Row) => RowKey
  readonly #parts = new Map<RowKey, Partition>()
  readonly #journal = new Journal<ZSet>()
  readonly #positions: PartitionPositions
  readonly #evaluator: FrameEvaluator
  readonly #countsGroups: boolean
  readonly #below: (r: Row, t: Row) => boolean
  readonly #atOrBelow: (r: Row, t: Row) => boolean
  readonly #freeing: WindowFreeing | undefined
  /** Rows whose ORDER BY value the watermark has passed (a prefix of every partition). */
  readonly #passed: (r: Row) => boolean
  /** Passed rows farther than the freeing distance below the watermark. */
  readonly #farPassed: (r: Row) => boolean
  /** The watermark rows were last freed at, and the one the ending tick moved it to. */
  #freedAt = -Infinity
  #movedTo = -Infinity
  readonly #partitionFinal: ((row: Row) => boolean) | undefined
  /** Partitions found final by advance(), freed at commit. */
  #finalParts: Partition[] = []
  /** Set with `freeing` or `partitionFinal` only, so the circuit calls it at the end of every
   *  tick whose watermarks moved. */
  readonly advance: (() => void) | undefined

  constructor(input: Operator, options: WindowOptions) {
    super([input])
    this.partitionColumns = options.partitionColumns.slice()
    this.functions = options.functions
    this.#order = options.order
    const peers = options.order.peers
    this.#cmp = (a, b) => peers(a, b) || compareRows(a, b)
    this.#partOf = keyFunction(this.partitionColumns)
    this.#positions = new PartitionPositions(options.order)
    this.#evaluator = new FrameEvaluator(options.functions, options.order)
    this.#countsGroups = options.functions.some((f) => f.kind === 'denseRank')
    const cmp = this.#cmp
    this.#below = (r, t) => cmp(r, t) < 0
    this.#atOrBelow = (r, t) => cmp(r, t) <= 0
    const freeing = options.freeing
    this.#freeing = freeing
    const value = options.order.value
    this.#passed = (r) => {
      const v = value(r)
      return v !== null && freeing !== undefined && freeing.isFinal(v, this.#movedTo)
    }
    const distance = freeing?.distance ?? 0
    this.#farPassed = (r) => {
      const v = value(r)
      return v !== null && freeing !== undefined && freeing.isFinal((v as number) + distance, this.#movedTo)
    }
    this.#partitionFinal = options.partitionFinal
    // the watermark the tick moved to is visible here; rows and partitions are freed at
    // commit, when no rollback can need them any more
    this.advance = freeing === undefined && options.partitionFinal === undefined ? undefined : () => this.#advance()
  }

  #advance(): void {
    if (this.#freeing !== undefined) this.#movedTo = Math.max(this.#movedTo, this.#freeing.watermark())
    const final = this.#partitionFinal
    if (final === undefined) return
    this.#finalParts = []
    for (const p of this.#parts.values()) if (final(p.sample)) this.#finalParts.push(p)
  }

  step(): void {
    const d = this.inputs[0]!.out
    this.out = new ZSet()
    const rows = d.rows
    if (rows.length === 0) return
    this.#journal.record(d)
    const touched: Partition[] = []
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      const k = this.#partOf(r)
      let p = this.#parts.get(k)
      if (p === undefined) {
        p = new Partition(k, r, this.functions)
        this.#parts.set(k, p)
      }
      if (p.changed.length === 0) touched.push(p)
      p.changed.push(r)
      p.weights.push(d.weights[i]!)
    }
    // the whole delta is absorbed before any result is computed (an aggregate's result may
    // raise): a rollback then undoes exactly the journaled delta
    for (const p of touched) this.#absorbChanges(p)
    const out = new ZSet()
    try {
      for (const p of touched) this.#emitChanges(p, out)
    } finally {
      for (const p of touched) {
        p.changed = []
        p.weights = []
        p.from = []
        p.to = []
        p.whole = false
        if (p.rows.size === 0 && p.freed === 0) this.#parts.delete(p.key)
      }
    }
    this.out = out.consolidate()
  }

  /** Nets a partition's changes, notes the rows they reach before the step, applies them. */
  #absorbChanges(p: Partition): void {
    const { rows, weights } = netChanges(p.changed, p.weights, this.#cmp)
    p.changed = rows
    p.weights = weights
    p.whole = this.#many(p, rows.length)
    if (!p.whole) this.#ranges(p, rows, p.from, p.to)
    for (let i = 0; i < rows.length; i++) this.#apply(p, rows[i]!, weights[i]!)
  }

  /** Emits the results a partition's (absorbed) changes alter: the reached rows' results
   *  after the step minus before it (the changes taken out for that, then put back). */
  #emitChanges(p: Partition, out: ZSet): void {
    const rows = p.changed
    const weights = p.weights
    if (rows.length === 0) return
    // many changes for the partition's size (a backfill, a first batch): the whole partition,
    // not a range per changed row
    if (!p.whole) p.whole = this.#many(p, rows.length)
    if (!p.whole) this.#ranges(p, rows, p.from, p.to)
    const merged: [Row | null, Row | null][] = p.whole ? [[null, null]] : mergeRanges(p.from, p.to, this.#cmp)
    for (let i = 0; i < rows.length; i++) this.#apply(p, rows[i]!, -weights[i]!)
    try {
      this.#emit(p, merged, -1, out)
    } finally {
      for (let i = 0; i < rows.length; i++) this.#apply(p, rows[i]!, weights[i]!)
    }
    this.#emit(p, merged, 1, out)
  }

  /** Are `changes` many for `p` (a batch, at least a sixteenth of its rows)? Then its results
   *  are recomputed whole rather than found per changed row. */
  #many(p: Partition, changes: number): boolean {
    return changes >= WHOLE_AT && changes * 16 >= p.positions
  }

  /** For each changed row present in `p`, the range of rows whose results it can alter. */
  #ranges(p: Partition, changed: readonly Row[], from: (Row | null)[], to: (Row | null)[]): void {
    const n = p.positions
    if (n === 0) return
    const at = this.#positions
    at.rows = p.rows
    for (const row of changed) {
      const a = p.rows.positionAfter(row, this.#below)
      const b = p.rows.positionAfter(row, this.#atOrBelow) - 1
      if (b < a) continue
      let lo = a
      let hi = b
      for (const f of this.functions) {
        const [l, h] = reach(f, row, a, b, n, at, this.#order)
        if (l < lo) lo = l
        if (h > hi) hi = h
      }
      from.push(lo === 0 ? null : p.rows.rowAt(lo))
      to.push(hi === n - 1 ? null : p.rows.rowAt(hi))
    }
  }

  /** out += sign · (the output rows of the positions holding rows in each range). */
  #emit(p: Partition, ranges: readonly [Row | null, Row | null][], sign: number, out: ZSet): void {
    const n = p.positions
    if (n === 0) return
    const width = this.functions.length
    for (const [lo, hi] of ranges) {
      const first = lo === null ? 0 : p.rows.positionAfter(lo, this.#below)
      const last = (hi === null ? n : p.rows.positionAfter(hi, this.#atOrBelow)) - 1
      if (first > last) continue
      const rows: Row[] = []
      const results: unknown[][] = []
      this.#evaluator.evaluate(p, first, last, rows, results)
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!
        const w = r.length
        const o = new Array<unknown>(w + width)
        for (let c = 0; c < w; c++) o[c] = r[c]
        for (let f = 0; f < width; f++) o[w + f] = results[f]![i]
        out.push(o, sign)
      }
    }
  }

  /** Adds `w` copies of `row` to `p`, keeping its positions, peer groups and totals. */
  #apply(p: Partition, row: Row, w: number): void {
    const now = p.rows.apply(row, w, this.#cmp)
    const before = now - w
    p.positions += (now > 0 ? now : 0) - (before > 0 ? before : 0)
    for (let k = 0; k < this.functions.length; k++) {
      const f = this.functions[k]!
      if (keepsTotal(f)) p.totals[k] = f.aggregator.add(p.totals[k], f.arg(row), w)
    }
    if (this.#countsGroups && (before > 0) !== (now > 0)) {
      // a row appears in or leaves the order: its peer group with it when it has no other row
      const at = this.#positions
      at.rows = p.rows
      const others = at.peerEdge(row, true) - at.peerEdge(row, false) - (now > 0 ? now : 0)
      if (others === 0) p.groups += now > 0 ? 1 : -1
    }
  }

  override commit(): void {
    this.#journal.commit()
    for (const p of this.#finalParts) if (this.#parts.get(p.key) === p) this.#parts.delete(p.key)
    this.#finalParts = []
    const freeing = this.#freeing
    if (freeing === undefined || this.#movedTo <= this.#freedAt) return
    // committed rows can no longer be retracted by a rollback: free what the watermark passed
    this.#freedAt = this.#movedTo
    for (const p of this.#parts.values()) this.#free(p, freeing)
  }

  #free(p: Partition, freeing: WindowFreeing): void {
    const passed = p.rows.positionAfter(null, this.#passed)
    const far = freeing.distance === 0 ? passed : p.rows.positionAfter(null, this.#farPassed)
    const cut = Math.min(passed - freeing.rows, far)
    if (cut <= 0) return
    const dropped = p.rows.dropFront(cut)
    p.freed += dropped
    p.positions -= dropped
  }

  override rollback(): void {
    this.#movedTo = this.#freedAt
    this.#finalParts = []
    this.#journal.undo((d) => {
      for (let i = 0; i < d.rows.length; i++) this.#absorb(d.rows[i]!, -d.weights[i]!)
    })
  }

  /** Applies one row change outside a step (rollback, load). */
  #absorb(row: Row, w: number): void {
    const k = this.#partOf(row)
    let p = this.#parts.get(k)
    if (p === undefined) {
      p = new Partition(k, row, this.functions)
      this.#parts.set(k, p)
    }
    this.#apply(p, row, w)
    if (p.rows.size === 0 && p.freed === 0) this.#parts.delete(k)
  }

  /** Between ticks (nothing journaled). */
  saveState(): WindowState {
    const state: WindowState = { keys: [], samples: [], rows: [], counts: [], freed: [], groups: [], totals: [] }
    for (const p of this.#parts.values()) {
      const pr: Row[] = []
      const pc: number[] = []
      for (const c of p.rows.chunks) {
        for (let i = 0; i < c.rows.length; i++) {
          pr.push(c.rows[i]!)
          pc.push(c.counts[i]!)
        }
      }
      state.keys.push(p.key)
      state.samples.push(p.sample)
      state.rows.push(pr)
      state.counts.push(pc)
      state.freed.push(p.freed)
      state.groups.push(p.groups)
      state.totals.push(p.totals)
    }
    return state
  }

  /** Rebuilds the partitions from their saved rows; groups and totals (which count freed
   *  rows) are taken as saved. */
  loadState(state: unknown): void {
    const s = state as WindowState
    this.#parts.clear()
    this.#journal.commit()
    for (let i = 0; i < s.rows.length; i++) {
      const rows = s.rows[i]!
      const key = s.keys[i]!
      const p = new Partition(key, s.samples[i]!, this.functions)
      for (let j = 0; j < rows.length; j++) p.rows.apply(rows[j]!, s.counts[i]![j]!, this.#cmp)
      p.positions = p.rows.positionCount()
      p.freed = s.freed[i]!
      p.groups = s.groups[i]!
      for (let k = 0; k < p.totals.length; k++) p.totals[k] = s.totals[i]![k]
      this.#parts.set(key, p)
    }
  }

  override stateSize(): number {
    let n = 0
    for (const p of this.#parts.values()) n += p.rows.size
    return n
  }

  override describeState(): string {
    const totals = this.functions.filter(keepsTotal).length
    let freed = 0
    for (const p of this.#parts.values()) freed += p.freed
    return `partitions keyed by [${this.partitionColumns.map((c) => '#' + c).join(', ')}]: ${this.#parts.size} partitions, ${this.stateSize()} rows${totals > 0 ? `, ${totals} running total${totals > 1 ? 's' : ''} per partition` : ''}${this.#freeing ? `, ${freed} passed by the watermark freed` : ''}`
  }
}

/** The fewest changes of one partition in one step that may recompute it whole. */
export const WHOLE_AT = 64

/** The changes as distinct rows in total order with their net weights (zeros dropped). */
function netChanges(rows: readonly Row[], weights: readonly number[], cmp: (a: Row, b: Row) => number): { rows: Row[]; weights: number[] } {
  const order = rows.map((_, i) => i).sort((a, b) => cmp(rows[a]!, rows[b]!))
  const outRows: Row[] = []
  const outWeights: number[] = []
  for (const i of order) {
    const last = outRows.length - 1
    if (last >= 0 && cmp(outRows[last]!, rows[i]!) === 0) outWeights[last]! += weights[i]!
    else {
      outRows.push(rows[i]!)
      outWeights.push(weights[i]!)
    }
  }
  let k = 0
  for (let i = 0; i < outRows.length; i++) {
    if (outWeights[i] === 0) continue
    outRows[k] = outRows[i]!
    outWeights[k++] = outWeights[i]!
  }
  outRows.length = k
  outWeights.length = k
  return { rows: outRows, weights: outWeights }
}

/** Overlapping ranges of rows merged (null: open to the edge), in order. */
function mergeRanges(from: readonly (Row | null)[], to: readonly (Row | null)[], cmp: (a: Row, b: Row) => number): [Row | null, Row | null][] {
  const order = from.map((_, i) => i).sort((a, b) => {
    const x = from[a] ?? null
    const y = from[b] ?? null
    return x === null ? (y === null ? 0 : -1) : y === null ? 1 : cmp(x, y)
  })
  const merged: [Row | null, Row | null][] = []
  for (const i of order) {
    const lo = from[i] ?? null
    const hi = to[i] ?? null
    const cur = merged[merged.length - 1]
    if (cur !== undefined && (cur[1] === null || lo === null || cmp(lo, cur[1]) <= 0)) {
      if (cur[1] !== null && (hi === null || cmp(hi, cur[1]) > 0)) cur[1] = hi
    } else merged.push([lo, hi])
  }
  return merged
}

export function window(circuit: Circuit, input: Operator, options: WindowOptions): WindowOperator {
  return circuit.add(new WindowOperator(input, options))
}
