// ReduceOperator — GROUP BY key columns with aggregates.
//
// Semantics:  for every group g = rows with equal key columns and total weight count(g) > 0,
//             one output row [...key values, agg₁(g), …, aggₘ(g)]. Each aggregate folds
//             (arg(r), w) for the rows r of g passing its optional filter. Per step:
//             out = Σ_{g touched by Δin} (new row of g) − (previous row of g), where a group
//             whose results did not change emits nothing, and a group whose count drops to 0
//             only retracts its row (and is forgotten).
//             With `emitEmptyGroup` (no key columns: a global aggregate) the single row exists
//             even for empty input (COUNT → 0, SUM → null); it is emitted the first time the
//             operator steps, which `Circuit.backfill` guarantees (it steps every fresh op).
// State kept: Map<groupKey, Group{count, accumulators, last output row}>; accumulators are
//             plain data owned by the aggregators.
// Linear:     no (unless every aggregate is, which is not exploited).
// Retracts:   yes.
//
// Throwing user code (arg / filter) runs in a first pass over the delta that touches no
// state; only then is the delta journaled and absorbed. Rollback re-absorbs the negated
// journal and recomputes the output rows of the touched groups without emitting.

import type { Aggregator } from '../aggregators/aggregator.js'
import type { Circuit } from '../circuit.js'
import { keyFunction, valuesEqual, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'

export interface AggregateSpec {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  aggregator: Aggregator<any, any>
  arg: (row: Row) => unknown
  filter?: (row: Row) => boolean
}

export interface ReduceOptions {
  /** Global aggregate (no key columns): the row exists even when the input is empty. */
  emitEmptyGroup?: boolean
}

/** Marks a value excluded by an aggregate's filter. */
const SKIP: unique symbol = Symbol('skip')

class Group {
  readonly key: RowKey
  count = 0
  readonly accs: unknown[]
  /** The row last emitted (null when none is out). */
  out: Row | null = null
  /** A row of the current step (for the key values); non-null ⇔ in the touched list. */
  touched: Row | null = null

  constructor(key: RowKey, accs: unknown[]) {
    this.key = key
    this.accs = accs
  }
}

export class ReduceOperator extends BaseOperator {
  readonly name = 'Reduce'
  readonly keyColumns: readonly number[]
  readonly aggregates: readonly AggregateSpec[]
  readonly emitEmptyGroup: boolean
  readonly #keyOf: (row: Row) => RowKey
  readonly #groups = new Map<RowKey, Group>()
  /** Journal of absorbed deltas; null marks the step that emitted the empty-input row. */
  readonly #journal = new Journal<ZSet | null>()
  #initialized = false
  #touched: Group[] = []
  readonly #results: unknown[]

  constructor(input: Operator, keyColumns: readonly number[], aggregates: readonly AggregateSpec[], options: ReduceOptions = {}) {
    super([input])
    this.keyColumns = keyColumns.slice()
    this.aggregates = aggregates.slice()
    this.emitEmptyGroup = options.emitEmptyGroup === true
    if (this.emitEmptyGroup && this.keyColumns.length !== 0) throw new Error('internal: emitEmptyGroup needs zero key columns')
    this.#keyOf = keyFunction(this.keyColumns)
    this.#results = new Array<unknown>(aggregates.length)
  }

  step(): void {
    const d = this.inputs[0]!.out
    const n = d.rows.length
    const out = new ZSet()
    this.out = out
    if (n === 0 && this.#initialized) return
    // Pass 1: user code; no state touched.
    const keys = new Array<RowKey>(n)
    const vals = this.#extract(d, keys)
    // Pass 2: journal, then absorb.
    if (!this.#initialized && this.emitEmptyGroup) {
      this.#journal.record(null)
      this.#initialized = true
      this.#touch(this.#group(''), null)
    }
    this.#initialized = true
    if (n !== 0) {
      this.#journal.record(d)
      this.#absorb(d, keys, vals, 1)
    }
    // Pass 3: emit changed rows.
    this.#refresh(out)
  }

  #extract(d: ZSet, keys: RowKey[]): unknown[] {
    const rows = d.rows
    const n = rows.length
    const aggs = this.aggregates
    const m = aggs.length
    const keyOf = this.#keyOf
    const vals = new Array<unknown>(n * m)
    for (let i = 0; i < n; i++) {
      const r = rows[i]!
      keys[i] = keyOf(r)
      for (let j = 0; j < m; j++) {
        const a = aggs[j]!
        vals[i * m + j] = a.filter !== undefined && !a.filter(r) ? SKIP : a.arg(r)
      }
    }
    return vals
  }

  #group(key: RowKey): Group {
    let g = this.#groups.get(key)
    if (g === undefined) {
      const aggs = this.aggregates
      const accs = new Array<unknown>(aggs.length)
      for (let j = 0; j < aggs.length; j++) accs[j] = aggs[j]!.aggregator.create()
      g = new Group(key, accs)
      this.#groups.set(key, g)
    }
    return g
  }

  #touch(g: Group, row: Row | null): void {
    if (g.touched === null) {
      this.#touched.push(g)
      g.touched = row ?? EMPTY_ROW
    }
  }

  #absorb(d: ZSet, keys: readonly RowKey[], vals: readonly unknown[], sign: number): void {
    const rows = d.rows
    const ws = d.weights
    const aggs = this.aggregates
    const m = aggs.length
    for (let i = 0; i < rows.length; i++) {
      const w = ws[i]! * sign
      const g = this.#group(keys[i]!)
      if (g.touched === null) {
        this.#touched.push(g)
        g.touched = rows[i]!
      }
      g.count += w
      const accs = g.accs
      for (let j = 0; j < m; j++) {
        const v = vals[i * m + j]
        if (v !== SKIP) accs[j] = aggs[j]!.aggregator.add(accs[j], v, w)
      }
    }
  }

  /** Recomputes the rows of the touched groups; emits the changes to `out` unless null. */
  #refresh(out: ZSet | null): void {
    const touched = this.#touched
    const aggs = this.aggregates
    const m = aggs.length
    const nk = this.keyColumns.length
    const res = this.#results
    for (let t = 0; t < touched.length; t++) {
      const g = touched[t]!
      const row = g.touched!
      g.touched = null
      const keep = this.emitEmptyGroup ? this.#initialized : g.count > 0
      const old = g.out
      if (!keep) {
        if (old !== null) {
          out?.push(old, -1)
          g.out = null
        }
        if (g.count === 0 && !this.emitEmptyGroup) this.#groups.delete(g.key)
        continue
      }
      let same = old !== null
      for (let j = 0; j < m; j++) {
        const v = aggs[j]!.aggregator.result(g.accs[j])
        res[j] = v
        if (same && !valuesEqual(old![nk + j], v)) same = false
      }
      if (same) continue
      const next = new Array<unknown>(nk + m)
      if (old !== null) for (let c = 0; c < nk; c++) next[c] = old[c]
      else {
        const cols = this.keyColumns
        for (let c = 0; c < nk; c++) next[c] = row[cols[c]!]
      }
      for (let j = 0; j < m; j++) {
        next[nk + j] = res[j]
        res[j] = undefined
      }
      if (out !== null) {
        if (old !== null) out.push(old, -1)
        out.push(next, 1)
      }
      g.out = next
    }
    touched.length = 0
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    const global = this.emitEmptyGroup ? this.#groups.get('') : undefined
    this.#journal.undo((d) => {
      if (d === null) {
        this.#initialized = false
        return
      }
      const keys = new Array<RowKey>(d.rows.length)
      const vals = this.#extract(d, keys)
      this.#absorb(d, keys, vals, -1)
    })
    if (global !== undefined) this.#touch(global, null)
    this.#refresh(null)
  }

  /** Number of groups held. */
  get size(): number {
    return this.#groups.size
  }

  override stateSize(): number {
    return this.#groups.size
  }

  override describeState(): string {
    const names = this.aggregates.map((a) => a.aggregator.name).join(', ')
    return `groups keyed by [${this.keyColumns.map((c) => '#' + c).join(', ')}]: ${this.#groups.size} groups (${names})`
  }
}

const EMPTY_ROW: Row = []

export function reduce(
  circuit: Circuit,
  input: Operator,
  keyColumns: readonly number[],
  aggregates: readonly AggregateSpec[],
  options: ReduceOptions = {},
): ReduceOperator {
  return circuit.add(new ReduceOperator(input, keyColumns, aggregates, options))
}
