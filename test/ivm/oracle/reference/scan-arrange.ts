// REFERENCE ONLY (tests): the scan-based ArrangeOperator as it was before its expire index — advance()
// visits every row. The differential test (expire-index.property.test.ts) checks that the indexed
// operator behaves exactly like it.

import { Arrangement, type Bucket, type Slot } from '../../../../ivm/operators/arrange.js'
import type { RowKey } from '../../../../ivm/key.js'
import { BaseOperator, Journal, type Operator } from '../../../../ivm/operator.js'
import { ZSet, type Row } from '../../../../ivm/zset.js'

interface ArrangeOptions {
  /** Rows whose key column `column` is final are forgotten at the end of a tick: the
   *  planner gives this only when no later reader needs them (an inner join whose other side
   *  can no longer produce that key value, because its watermark is past it). */
  readonly expire?: { readonly column: number; readonly isFinal: (value: unknown) => boolean }
}

export class ScanArrangeOperator extends BaseOperator {
  readonly name = 'Arrange'
  readonly arrangement: Arrangement
  readonly keyColumns: readonly number[]
  readonly keyOf: (row: Row) => RowKey
  readonly #journal = new Journal<ZSet>()
  /** Whether the arrangement was empty before the delta of its latest step (lets a join
   *  compute ΔL ⋈ R_new alone when L had no rows before, e.g. while backfilling). */
  emptyBefore = true

  /** See ArrangeOptions.expire. */
  readonly #expire: ArrangeOptions['expire']

  constructor(input: Operator, keyColumns: readonly number[], options: ArrangeOptions = {}) {
    super([input])
    this.arrangement = new Arrangement(keyColumns)
    this.keyColumns = this.arrangement.keyColumns
    this.keyOf = this.arrangement.keyOf
    this.#expire = options.expire
    // only an expiring arrangement takes part in the circuit's end-of-tick pass
    if (options.expire) this.advance = () => this.#forgetFinal()
  }

  /** Set only with `expire`: the circuit calls it at the end of a tick. */
  advance?: () => void

  /** Forgets the keys whose `expire` column is final (see ArrangeOptions.expire). Emits
   *  nothing; journaled, so rollback restores them. */
  #forgetFinal(): void {
    const expire = this.#expire
    if (expire === undefined || this.arrangement.size === 0) return
    const gone = new ZSet()
    const col = expire.column
    this.arrangement.forEach((row, weight) => {
      if (expire.isFinal(row[col])) gone.push(row, weight)
    })
    if (gone.length === 0) return
    this.arrangement.applyDelta(gone, -1)
    // the journal undoes an entry by absorbing it negated: record the negation of removing
    this.#journal.record(gone.negate())
  }

  get expires(): boolean {
    return this.#expire !== undefined
  }

  step(): void {
    const d = this.inputs[0]!.out
    this.out = d
    if (d.rows.length === 0) return
    this.emptyBefore = this.arrangement.size === 0
    this.#journal.record(d)
    this.arrangement.applyDelta(d, 1)
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((d) => this.arrangement.applyDelta(d, -1))
  }

  /** Distinct rows held. */
  get size(): number {
    return this.arrangement.size
  }

  get(key: RowKey): Slot | undefined {
    return this.arrangement.get(key)
  }

  lookup(key: RowKey): Bucket | undefined {
    return this.arrangement.lookup(key)
  }

  weightOf(key: RowKey): number {
    return this.arrangement.weightOf(key)
  }

  forEach(fn: (row: Row, weight: number, key: RowKey) => void): void {
    this.arrangement.forEach(fn)
  }

  forEachIn(key: RowKey, fn: (row: Row, weight: number) => void): void {
    this.arrangement.forEachIn(key, fn)
  }

  snapshot(): ZSet {
    return this.arrangement.snapshot()
  }

  override stateSize(): number {
    return this.arrangement.size
  }

  override describeState(): string {
    return this.arrangement.describe('arrangement') + (this.#expire ? `; rows freed once #${this.#expire.column} is final` : '')
  }
}

