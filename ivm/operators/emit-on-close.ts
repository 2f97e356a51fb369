// EmitOnCloseOperator — EMIT ON WINDOW CLOSE: a row is emitted once, when it is final.
//
// Semantics:  pending P = Σ Δin not yet emitted (consolidated). A row r is final once
//             `isFinal(r[column])` (the watermark has passed its window_end: nothing can
//             change it any more). step(): P += Δin, out = ∅.  advance() (end of tick, after
//             the watermarks moved): out = { (r, w) ∈ P : final(r) }, P −= out. So the
//             output is append-only: each final row appears once, with its net weight; a row
//             inserted and retracted before its window closed never appears.
// State kept: the pending rows, keyed by row (Map row key → [row, weight]), and grouped by
//             their `column` value so advance() visits only closed values (sorted list of
//             distinct values). Bounded: a row leaves state when emitted.
//             Saved (checkpoint): the pending rows and weights (parallel arrays); the buckets
//             and sorted values are rebuilt from them on load.
// Linear:     no (it delays).
// Retracts:   input retractions cancel pending rows; a retraction of a row already emitted
//             (impossible when the watermark bound holds) would be emitted as is.

import type { Circuit } from '../circuit.js'
import { compareValues, rowKey, valueKey, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'

export interface EmitOnCloseOptions {
  /** The column whose value decides finality (window_end). */
  readonly column: number
  /** Reads the current watermark: is a row with this column value final? */
  readonly isFinal: (value: unknown) => boolean
}

type Entry = { row: Row; weight: number }

/** An EmitOnCloseOperator's pending rows as plain data (parallel arrays). */
export interface EmitOnCloseState {
  readonly rows: Row[]
  readonly weights: number[]
}

export class EmitOnCloseOperator extends BaseOperator {
  readonly name = 'EmitOnClose'
  readonly column: number
  readonly #isFinal: (value: unknown) => boolean
  /** Pending rows by their column value (the value's key), then by row key. */
  readonly #byValue = new Map<RowKey, { value: unknown; rows: Map<RowKey, Entry> }>()
  /** Distinct pending column values, sorted ascending (NULL never closes: kept out). */
  #values: unknown[] = []
  #rows = 0
  readonly #journal = new Journal<{ delta: ZSet; emitted: boolean }>()

  constructor(input: Operator, options: EmitOnCloseOptions) {
    super([input])
    this.column = options.column
    this.#isFinal = options.isFinal
  }

  step(): void {
    const d = this.inputs[0]!.out
    this.out = ZSet.empty()
    if (d.rows.length === 0) return
    this.#journal.record({ delta: d, emitted: false })
    this.#absorb(d, 1)
  }

  advance(): void {
    const values = this.#values
    let closed = 0
    while (closed < values.length && this.#isFinal(values[closed])) closed++
    if (closed === 0) return
    const emitted = new ZSet()
    // the closed values' buckets leave whole (what absorbing −emitted would do, row by row)
    for (let i = 0; i < closed; i++) {
      const k = valueKey(values[i])
      const bucket = this.#byValue.get(k)!
      for (const e of bucket.rows.values()) emitted.push(e.row, e.weight)
      this.#rows -= bucket.rows.size
      this.#byValue.delete(k)
    }
    values.splice(0, closed)
    this.#journal.record({ delta: emitted, emitted: true })
    // appended: a step in the same pass may already have set `out`
    if (this.out.rows.length === 0) this.out = emitted
    else {
      const merged = new ZSet(this.out.rows.slice(), this.out.weights.slice())
      merged.append(emitted)
      this.out = merged
    }
  }

  #absorb(d: ZSet, sign: number): void {
    const col = this.column
    for (let i = 0; i < d.rows.length; i++) {
      const row = d.rows[i]!
      const w = d.weights[i]! * sign
      const v = row[col]
      const vk = valueKey(v)
      let bucket = this.#byValue.get(vk)
      if (bucket === undefined) {
        bucket = { value: v, rows: new Map() }
        this.#byValue.set(vk, bucket)
        this.#insertValue(v)
      }
      const rk = rowKey(row)
      const e = bucket.rows.get(rk)
      if (e === undefined) {
        bucket.rows.set(rk, { row, weight: w })
        this.#rows++
      } else {
        e.weight += w
        if (e.weight === 0) {
          bucket.rows.delete(rk)
          this.#rows--
        }
      }
      if (bucket.rows.size === 0) {
        this.#byValue.delete(vk)
        this.#removeValue(v)
      }
    }
  }

  #insertValue(v: unknown): void {
    if (v === null || v === undefined) return
    const values = this.#values
    // window ends mostly arrive in order: check the end first
    if (values.length === 0 || compareValues(values[values.length - 1], v) < 0) values.push(v)
    else values.splice(lowerBound(values, v), 0, v)
  }

  #removeValue(v: unknown): void {
    if (v === null || v === undefined) return
    this.#values.splice(lowerBound(this.#values, v), 1)
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((e) => this.#absorb(e.delta, e.emitted ? 1 : -1))
  }

  /** Between ticks (nothing journaled): the pending rows, shared. */
  saveState(): EmitOnCloseState {
    const rows: Row[] = []
    const weights: number[] = []
    for (const b of this.#byValue.values()) {
      for (const e of b.rows.values()) {
        rows.push(e.row)
        weights.push(e.weight)
      }
    }
    return { rows, weights }
  }

  loadState(state: unknown): void {
    const s = state as EmitOnCloseState
    this.#byValue.clear()
    this.#values = []
    this.#rows = 0
    this.#journal.commit()
    this.#absorb(new ZSet(s.rows, s.weights), 1)
  }

  override stateSize(): number {
    return this.#rows
  }

  override describeState(): string {
    return `rows waiting for their window to close: ${this.#rows} (${this.#values.length} distinct #${this.column} values); freed when emitted`
  }
}

/** First position in sorted `values` not below `v`. */
function lowerBound(values: readonly unknown[], v: unknown): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (compareValues(values[mid], v) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function emitOnClose(circuit: Circuit, input: Operator, options: EmitOnCloseOptions): EmitOnCloseOperator {
  return circuit.add(new EmitOnCloseOperator(input, options))
}
