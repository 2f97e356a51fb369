// ReduceViewOperator ('Materialize (reads Reduce)') — the sink of a view whose plan ends in a
// GROUP BY: the view's contents are exactly the reduce's current output rows, one per group,
// so instead of integrating them into a second copy it reads the reduce's own state.
//
// Semantics:  out = Δin (passed through); contents = { g.out : g a group of the reduce }
//             = ∫Δin (the reduce emits −old +new per changed group).
// State kept: none of its own (the reduce's groups); a secondary index other than the group
//             key is an Arrangement maintained from Δin, as IntegrateOperator does.
//             Saved (checkpoint): with secondary indexes, the contents once (ArrangementState),
//             refilled into each index on load; without, nothing (null).
// Linear:     yes (its output is its input).
// Retracts:   yes.
//
// Only for a reduce without `expire` (a reduce that frees final groups would take them out of
// the view). Point reads by the group key cost one lookup in the reduce's map. The tick's
// deltas are journaled (references, no copy) for the contents as of the last commit.

import type { Circuit } from '../circuit.js'
import { rowsEqual, type RowKey } from '../key.js'
import { BaseOperator, Journal } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { Arrangement, Bucket, type ArrangementState } from './arrange.js'
import { MaterializedIndex } from './integrate.js'
import type { ReduceOperator } from './reduce.js'

export class ReduceViewOperator extends BaseOperator {
  readonly name = 'Materialize'
  readonly reduce: ReduceOperator
  /** The handle of the group-key index (its arrangement stays empty: lookups go to the reduce). */
  readonly #groupIndex: MaterializedIndex
  readonly #indexes: Arrangement[] = []
  readonly #journal = new Journal<ZSet>()

  constructor(reduce: ReduceOperator) {
    super([reduce])
    if (reduce.expires) throw new Error('internal: a reduce that frees groups cannot back a view')
    this.reduce = reduce
    this.#groupIndex = new MaterializedIndex(new Arrangement(reduce.keyColumns.map((_, i) => i)))
  }

  step(): void {
    const d = this.inputs[0]!.out
    this.out = d
    if (d.rows.length === 0) return
    this.#journal.record(d)
    for (const a of this.#indexes) a.applyDelta(d, 1)
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((d) => {
      for (const a of this.#indexes) a.applyDelta(d, -1)
    })
  }

  /** The contents (= every index's) only when there are indexes to refill: saved by this
   *  operator rather than read from the reduce at load, so the order operators load in does
   *  not matter. */
  saveState(): ArrangementState | null {
    if (this.#indexes.length === 0) return null
    const z = this.snapshot()
    return { rows: z.rows as Row[], weights: z.weights as number[] }
  }

  /** Indexes (made again by their CREATE INDEX on the fresh view) are refilled; an index the
   *  saving view did not have is built from the reduce (its input, loaded before it in circuit order). */
  loadState(state: unknown): void {
    this.#journal.commit()
    const s = state as ArrangementState | null
    for (const a of this.#indexes) {
      if (s !== null) a.loadState(s)
      else {
        a.clear()
        this.reduce.forEachOutput((row) => a.apply(row, 1))
      }
    }
  }

  get size(): number {
    let n = 0
    this.reduce.forEachOutput(() => n++)
    return n
  }

  snapshot(): ZSet {
    const z = new ZSet()
    this.reduce.forEachOutput((row) => z.push(row, 1))
    return z
  }

  contents(): ZSet {
    return this.snapshot()
  }

  /** The contents as of the last commit (the open tick's deltas taken back out). */
  committedSnapshot(): ZSet {
    const z = this.snapshot()
    if (this.#journal.size === 0) return z
    this.#journal.forEach((d) => {
      for (let i = 0; i < d.rows.length; i++) z.push(d.rows[i]!, -d.weights[i]!)
    })
    return z.consolidate()
  }

  weightOf(row: Row): number {
    const out = this.reduce.outputOf(this.#groupIndex.keyOfValues(row.slice(0, this.reduce.keyColumns.length)))
    return out !== null && rowsEqual(out, row) ? 1 : 0
  }

  forEach(fn: (row: Row, weight: number) => void): void {
    this.reduce.forEachOutput((row) => fn(row, 1))
  }

  /** An index on `keyColumns`: the group key is the reduce's own; others are built now and
   *  maintained from then on. */
  index(keyColumns: readonly number[]): MaterializedIndex {
    const same = (a: readonly number[]): boolean => a.length === keyColumns.length && a.every((c, i) => c === keyColumns[i])
    if (same(this.#groupIndex.keyColumns)) return this.#groupIndex
    let arr = this.#indexes.find((a) => same(a.keyColumns))
    if (arr === undefined) {
      arr = new Arrangement(keyColumns)
      this.reduce.forEachOutput((row) => arr!.apply(row, 1))
      this.#indexes.push(arr)
    }
    return new MaterializedIndex(arr)
  }

  lookup(handle: MaterializedIndex, key: RowKey): Bucket | undefined {
    if (handle !== this.#groupIndex) return handle.arrangement.lookup(key)
    const out = this.reduce.outputOf(key)
    return out === null ? undefined : new Bucket([out], [1], 1)
  }

  override stateSize(): number {
    let n = 0
    for (const a of this.#indexes) n += a.size
    return n
  }

  override describeState(): string {
    let s = `view: reads the groups of Reduce#${this.reduce.id}`
    for (const a of this.#indexes) s += '; ' + a.describe('index')
    return s
  }
}


export function reduceView(circuit: Circuit, reduce: ReduceOperator): ReduceViewOperator {
  return circuit.add(new ReduceViewOperator(reduce))
}
