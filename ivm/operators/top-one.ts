// TopOneOperator — the first row per partition of an input that only inserts: ORDER BY …
// LIMIT 1 per partition, or ROW_NUMBER() … = 1 (Nexmark q18's "latest bid of each bidder on
// each auction", the deduplication Flink runs as an operator of its own).
//
// Semantics:  as TopKOperator with limit 1 and offset 0 over an append-only input: per
//             partition, the least row by `compare`, ties broken by a total order on row
//             values (compareRows); with `rowNumber`, the row gets a last column = 1. Per step,
//             a partition whose least row changed emits −old +new.
// State kept: one row per partition. A row that is not the least can never become it (nothing
//             is ever deleted), so it is not kept: a partition costs a map entry and its row,
//             where TopKOperator keeps a sorted list per partition. A journal of the rows each
//             tick replaced undoes the tick on rollback.
//             Saved (checkpoint): the partitions' rows (keys are recomputed from them on load).
// Linear:     no.
// Retracts:   no: a deletion in the input is an error (the planner chooses this operator only
//             for append-only input).

import type { Circuit } from '../circuit.js'
import { compareRows, keyFunction, type RowKey } from '../key.js'
import { BaseOperator, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { numbered } from './top-k.js'

export class TopOneOperator extends BaseOperator {
  readonly name = 'TopOne'
  readonly partitionColumns: readonly number[]
  readonly compare: (a: Row, b: Row) => number
  readonly rowNumber: boolean
  readonly #cmp: (a: Row, b: Row) => number
  readonly #partOf: (row: Row) => RowKey
  readonly #best = new Map<RowKey, Row>()
  /** This tick's replacements, in order: the partition and the row it held before (undefined:
   *  none). */
  #undo: { key: RowKey; before: Row | undefined }[] = []

  constructor(input: Operator, partitionColumns: readonly number[], compare: (a: Row, b: Row) => number, options: { rowNumber?: boolean } = {}) {
    super([input])
    this.partitionColumns = partitionColumns.slice()
    this.compare = compare
    this.rowNumber = options.rowNumber === true
    this.#cmp = (a, b) => compare(a, b) || compareRows(a, b)
    this.#partOf = keyFunction(this.partitionColumns)
  }

  step(): void {
    const d = this.inputs[0]!.out
    const out = new ZSet()
    this.out = out
    const rows = d.rows
    if (rows.length === 0) return
    const ws = d.weights
    const best = this.#best
    const cmp = this.#cmp
    const partOf = this.#partOf
    // the row each changed partition held at the start of this step
    const changed = new Map<RowKey, Row | undefined>()
    for (let i = 0; i < rows.length; i++) {
      if (ws[i]! < 0) throw new Error(`${this.name}#${this.id}: the input was declared append-only but deletes a row`)
      const r = rows[i]!
      const k = partOf(r)
      const held = best.get(k)
      if (held !== undefined && cmp(r, held) >= 0) continue
      if (!changed.has(k)) changed.set(k, held)
      this.#undo.push({ key: k, before: held })
      best.set(k, r)
    }
    for (const [k, before] of changed) {
      if (before !== undefined) out.push(this.rowNumber ? numbered(before, 1) : before, -1)
      const now = best.get(k)!
      out.push(this.rowNumber ? numbered(now, 1) : now, 1)
    }
  }

  override commit(): void {
    this.#undo = []
  }

  override rollback(): void {
    const undo = this.#undo
    for (let i = undo.length - 1; i >= 0; i--) {
      const { key, before } = undo[i]!
      if (before === undefined) this.#best.delete(key)
      else this.#best.set(key, before)
    }
    this.#undo = []
  }

  /** Between ticks (nothing to undo): the held rows, shared. */
  saveState(): Row[] {
    return [...this.#best.values()]
  }

  loadState(state: unknown): void {
    const rows = state as Row[]
    const best = this.#best
    const partOf = this.#partOf
    best.clear()
    this.#undo = []
    for (let i = 0; i < rows.length; i++) best.set(partOf(rows[i]!), rows[i]!)
  }

  override stateSize(): number {
    return this.#best.size
  }

  override describeState(): string {
    return `partitions keyed by [${this.partitionColumns.map((c) => '#' + c).join(', ')}]: ${this.#best.size} partitions, one row each (append-only input)`
  }
}

export function topOne(circuit: Circuit, input: Operator, partitionColumns: readonly number[], compare: (a: Row, b: Row) => number, options: { rowNumber?: boolean } = {}): TopOneOperator {
  return circuit.add(new TopOneOperator(input, partitionColumns, compare, options))
}
