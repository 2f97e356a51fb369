// IntegrateOperator ('Materialize') — the view sink: keeps the consolidated integral of its
// input so a view can be read (snapshot, point lookups) and new readers backfilled.
//
// Semantics:  out = Δin (passed through); state = ∫Δin.
// State kept: an Arrangement keyed by rowHash (default; one Map entry per distinct row with a
//             small-integer key, no key strings) or by `keyColumns` if given, plus one more
//             Arrangement per secondary index requested with `index()`. A view of a stream's
//             rows, projected, is left out of checkpoints and rebuilt from the stream's
//             history (refill), noting nothing.
// Linear:     yes (its output is its input); stateful.
// Retracts:   yes.

import type { Circuit } from '../circuit.js'
import { keyFunction, rowHash, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import type { ChangeShares, KeyedEntries, KeyedPart, KeyedSnapshot } from '../keyed-state.js'
import type { Row, ZSet } from '../zset.js'
import { Arrangement, type ArrangementState, type Bucket } from './arrange.js'

/** A secondary index of a materialized view (handle for `IntegrateOperator.lookup`). */
export class MaterializedIndex {
  readonly keyColumns: readonly number[]
  readonly arrangement: Arrangement
  readonly #keyOfValues: (values: readonly unknown[]) => RowKey

  constructor(arrangement: Arrangement) {
    this.arrangement = arrangement
    this.keyColumns = arrangement.keyColumns
    this.#keyOfValues = keyFunction(this.keyColumns.map((_, i) => i))
  }

  /** The key of the given key values (in keyColumns order). */
  keyOfValues(values: readonly unknown[]): RowKey {
    return this.#keyOfValues(values)
  }
}

export interface IntegrateOptions {
  /** Columns the primary index is keyed by (default: the row hash). Any choice is correct;
   *  keying by a unique column makes `index(thoseColumns)` free. */
  keyColumns?: readonly number[]
}

export class IntegrateOperator extends BaseOperator {
  readonly name = 'Materialize'
  readonly #state: Arrangement
  readonly #indexes: Arrangement[] = []
  readonly #journal = new Journal<ZSet>()

  constructor(input: Operator, options: IntegrateOptions = {}) {
    super([input])
    this.#state = options.keyColumns === undefined ? Arrangement.byRow() : new Arrangement(options.keyColumns)
  }

  step(): void {
    const d = this.inputs[0]!.out
    this.out = d
    if (d.rows.length === 0) return
    this.#journal.record(d)
    this.#state.applyDelta(d, 1)
    const idx = this.#indexes
    for (let i = 0; i < idx.length; i++) idx[i]!.applyDelta(d, 1)
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((d) => {
      this.#state.applyDelta(d, -1)
      const idx = this.#indexes
      for (let i = 0; i < idx.length; i++) idx[i]!.applyDelta(d, -1)
    })
  }

  /** Distinct rows held. */
  get size(): number {
    return this.#state.size
  }

  saveState(): ArrangementState {
    return this.#state.saveState()
  }

  /** Secondary indexes (made again by their CREATE INDEX on the fresh view) are refilled. */
  loadState(state: unknown): void {
    this.#state.loadState(state as ArrangementState)
    for (const idx of this.#indexes) idx.loadState(state as ArrangementState)
  }

  saveKeyed(all: boolean): KeyedPart {
    return this.#state.saveKeyed(all)
  }

  snapshotKeyed(all: boolean): KeyedSnapshot {
    return this.#state.snapshotKeyed(all)
  }

  changeShares(): ChangeShares {
    return this.#state.changeShares()
  }

  fuzzyBaseKeyed(): KeyedSnapshot {
    return this.#state.fuzzyBaseKeyed()
  }

  /** As loadState: secondary indexes are refilled from the rows. */
  loadKeyed(_whole: unknown, entries: KeyedEntries): void {
    this.#state.loadKeyed(entries)
    if (this.#indexes.length === 0) return
    const z = this.#state.snapshot()
    for (const idx of this.#indexes) idx.loadState({ rows: z.rows as Row[], weights: z.weights as number[] })
  }

  /** Derived state (src/engine/derived-state.ts): a view of a stream's rows, projected, holds
   *  a row per row of the stream's history, which the log holds already; checkpoints leave it
   *  out and recovery calls this with the history's rows, projected (see Arrangement.refill).
   *  Notes no changes, from here on too. */
  refill(parts: (add: (rows: ZSet) => void) => void, distinct: boolean): void {
    this.#state.refill(parts, distinct)
    if (this.#indexes.length === 0) return
    const z = this.#state.snapshot()
    for (const idx of this.#indexes) idx.loadState({ rows: z.rows as Row[], weights: z.weights as number[] })
  }

  /** Stops noting changed keys (checkpoints leave this state out: see refill). */
  untrack(): void {
    this.#state.untrack()
  }

  snapshot(): ZSet {
    return this.#state.snapshot()
  }

  /** The contents as of the last commit (the open tick's deltas taken back out). */
  committedSnapshot(): ZSet {
    const z = this.#state.snapshot()
    if (this.#journal.size === 0) return z
    this.#journal.forEach((d) => {
      for (let i = 0; i < d.rows.length; i++) z.push(d.rows[i]!, -d.weights[i]!)
    })
    return z.consolidate()
  }

  /** The view's contents (same as snapshot). */
  contents(): ZSet {
    return this.#state.snapshot()
  }

  /** Weight of a row in the view (0 when absent). */
  weightOf(row: Row): number {
    return this.#state.weightOfRow(row)
  }

  forEach(fn: (row: Row, weight: number) => void): void {
    this.#state.forEach(fn)
  }

  /** An index on `keyColumns`, built now and maintained from then on (reused if it exists). */
  index(keyColumns: readonly number[]): MaterializedIndex {
    const same = (a: readonly number[]): boolean => a.length === keyColumns.length && a.every((c, i) => c === keyColumns[i])
    if (this.#state.keyOf !== rowHash && same(this.#state.keyColumns)) return new MaterializedIndex(this.#state)
    let arr = this.#indexes.find((a) => same(a.keyColumns))
    if (arr === undefined) {
      arr = new Arrangement(keyColumns)
      this.#state.forEach((row, w) => arr!.apply(row, w))
      this.#indexes.push(arr)
    }
    return new MaterializedIndex(arr)
  }

  /** Rows whose index columns equal `key` (use `handle.keyOfValues([...])` to build it). */
  lookup(handle: MaterializedIndex, key: RowKey): Bucket | undefined {
    return handle.arrangement.lookup(key)
  }

  override stateSize(): number {
    let n = this.#state.size
    for (const a of this.#indexes) n += a.size
    return n
  }

  override describeState(): string {
    let s = this.#state.describe('view')
    for (const a of this.#indexes) s += '; ' + a.describe('index')
    return s
  }
}

export function integrate(circuit: Circuit, input: Operator, options: IntegrateOptions = {}): IntegrateOperator {
  return circuit.add(new IntegrateOperator(input, options))
}

export { integrate as materialize }
