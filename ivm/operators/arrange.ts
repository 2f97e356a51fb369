// ArrangeOperator — the consolidated integral of its input, indexed by key columns. Joins,
// semi/anti joins and outer joins read arrangements; several readers share one.
//
// Semantics:  out = Δin (passed through as is — not re-consolidated: every reader of `out`
//             is bilinear or integrating, so unconsolidated deltas are still exact);
//             state = ∫Δin, grouped by keyOf(row).
// State kept: Map<RowKey, Row | Bucket>: a key holding exactly one row with weight 1 maps to
//             the row itself (no wrapper — the common case for primary keys costs one Map
//             entry); otherwise to a Bucket of parallel rows/weights arrays. Inside a bucket
//             rows are found by a linear `rowsEqual` scan, and once it holds more than
//             INDEX_THRESHOLD rows by a lazily built Map<rowHash, position> (numeric row
//             hashes: no key strings).
//             Once a checkpoint has asked (saveKeyed), the keys changed since the last one
//             (ivm/keyed-state.ts), so the next saves only those — and of a bucket that only
//             grew since, only the rows appended (Bucket.saved: its length then). An
//             arrangement of a table's rows (maybe filtered and projected) is left out of
//             checkpoints instead and rebuilt from the table's store (refill), noting nothing.
// Linear:     no (stateful), but its output is its input.
// Retracts:   yes; zero-weight rows are dropped, empty keys deleted.
//
// The index structure `Arrangement` is also used by Integrate, Distinct and Threshold, keyed
// there by `rowHash` (a consolidated multiset whose buckets only hold hash collisions).
// Rows with NULL key columns are stored (outer/anti joins need them); joins skip them.
//
// With `expire` (an arrangement private to an inner join), advance() forgets the rows whose
// expire column is final. To find them without visiting every row, the keys are indexed by
// the expire values of the rows added under them: Map value → the set of keys that received a
// row with that value (a superset: a key whose rows left stays listed, harmless), plus the
// distinct numeric values in an ascending array. Finality is downward closed in the value (a
// watermark passed it), so advance() reads the values from the smallest while they are final
// and scans only the listed keys' rows (taking every final row there), then drops those values
// from the index; values of other kinds (NaN, strings, objects: none with a watermark column)
// sit in a short list asked one by one; NULL is never final and is not indexed. Rollback
// re-indexes the rows of every delta it undoes (a superset again).

import type { Circuit } from '../circuit.js'
import { keyFunction, rowHash, rowsEqual, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { ValueBuckets, type ValueBucket } from '../value-buckets.js'
import { ALL_CHANGED, fuzzyKeyedBase, KeyChanges, type ChangeShares, saveKeyedPart, snapshotKeyedPart, type KeyedEntries, type KeyedPart, type KeyedSnapshot } from '../keyed-state.js'

/** Above this many rows a bucket keeps a rowKey → position index instead of scanning. */
export const INDEX_THRESHOLD = 16

/** The rows of one key: parallel rows/weights arrays plus their total weight. */
export class Bucket {
  readonly rows: Row[]
  readonly weights: number[]
  /** Sum of the weights. */
  total: number
  /** Incremental checkpoints: how many rows the bucket had when a checkpoint part last wrote
   *  it, its first rows unchanged since (only rows appended after them, or removed from among
   *  those), so the next part may write just the appended ones; −1: written whole next. */
  saved = -1
  /** rowHash → position (an array of positions when rows of the bucket collide). */
  #index: Map<number, number | number[]> | null = null

  constructor(rows: Row[], weights: number[], total: number) {
    this.rows = rows
    this.weights = weights
    this.total = total
  }

  get length(): number {
    return this.rows.length
  }

  /** Position of a row equal to `row`, or −1. */
  find(row: Row): number {
    const rows = this.rows
    const idx = this.#index
    if (idx !== null) {
      const at = idx.get(rowHash(row))
      if (at === undefined) return -1
      if (typeof at === 'number') return rowsEqual(rows[at]!, row) ? at : -1
      for (let i = 0; i < at.length; i++) if (rowsEqual(rows[at[i]!]!, row)) return at[i]!
      return -1
    }
    for (let i = 0; i < rows.length; i++) if (rowsEqual(rows[i]!, row)) return i
    return -1
  }

  add(row: Row, weight: number): void {
    const i = this.rows.length
    this.rows.push(row)
    this.weights.push(weight)
    this.total += weight
    const idx = this.#index
    if (idx !== null) indexAdd(idx, rowHash(row), i)
    else if (i + 1 > INDEX_THRESHOLD) {
      const m = new Map<number, number | number[]>()
      const rows = this.rows
      for (let j = 0; j < rows.length; j++) indexAdd(m, rowHash(rows[j]!), j)
      this.#index = m
    }
  }

  /** Removes position i (swap with last). */
  removeAt(i: number): void {
    if (i < this.saved) this.saved = -1
    const rows = this.rows
    const ws = this.weights
    const last = rows.length - 1
    const idx = this.#index
    if (idx !== null) {
      indexRemove(idx, rowHash(rows[i]!), i)
      if (i !== last) {
        const h = rowHash(rows[last]!)
        indexRemove(idx, h, last)
        indexAdd(idx, h, i)
      }
    }
    if (i !== last) {
      rows[i] = rows[last]!
      ws[i] = ws[last]!
    }
    rows.pop()
    ws.pop()
    if (idx !== null && rows.length <= INDEX_THRESHOLD / 2) this.#index = null
  }
}

function indexAdd(idx: Map<number, number | number[]>, h: number, pos: number): void {
  const at = idx.get(h)
  if (at === undefined) idx.set(h, pos)
  else if (typeof at === 'number') idx.set(h, [at, pos])
  else at.push(pos)
}

function indexRemove(idx: Map<number, number | number[]>, h: number, pos: number): void {
  const at = idx.get(h)
  if (at === undefined) return
  if (typeof at === 'number') {
    if (at === pos) idx.delete(h)
    return
  }
  const k = at.indexOf(pos)
  if (k < 0) return
  at[k] = at[at.length - 1]!
  at.pop()
  if (at.length === 1) idx.set(h, at[0]!)
}

/** What a key maps to: the row itself (one row, weight 1) or a Bucket. */
export type Slot = Row | Bucket

/** Number of rows, row i and weight i of a slot (for code that reads both shapes). */
export function slotLength(s: Slot): number {
  return s instanceof Bucket ? s.rows.length : 1
}

/** Total weight held under a slot (0 for undefined). */
export function slotWeight(s: Slot | undefined): number {
  return s === undefined ? 0 : s instanceof Bucket ? s.total : 1
}

/** An arrangement's contents as plain data: parallel rows and weights. */
export interface ArrangementState {
  readonly rows: Row[]
  readonly weights: number[]
}

/** A bucket's entry in a keyed checkpoint part (a single row is saved as itself). */
interface BucketEntry {
  readonly r: Row[]
  readonly w: number[]
}

/** A slot's entry in a part; a bucket that only grew since the part before wrote it (and kept
 *  its place: `inPlace`) as the rows appended (AppendedRows). Marks what the part holds. */
function slotEntry(s: Slot, _key: RowKey, inPlace: boolean): unknown {
  if (!(s instanceof Bucket)) return s
  const saved = s.saved
  s.saved = s.rows.length
  if (inPlace && saved > 0 && saved < s.rows.length) return { after: saved, r: s.rows.slice(saved), w: s.weights.slice(saved) }
  return { r: s.rows, w: s.weights }
}

/** A slot's entry as it is now, for a snapshot's copy on write: a bucket's arrays copied (its
 *  rows are never changed in place), and marked written whole, as slotEntry(s, k, false) does. */
function detachSlot(s: Slot): unknown {
  if (!(s instanceof Bucket)) return s
  s.saved = s.rows.length
  return { r: s.rows.slice(), w: s.weights.slice() }
}

/** A multiset of rows indexed by a key function: the state of arrangements and sinks. */
export class Arrangement {
  readonly keyColumns: readonly number[]
  readonly keyOf: (row: Row) => RowKey
  readonly #map = new Map<RowKey, Slot>()
  /** The keys changed since the last incremental checkpoint (null until one asks). */
  #changes: KeyChanges | null = null
  #rows = 0
  #total = 0

  /** Keyed by the given columns; or, with `keyOf`, by that function (e.g. `rowHash`, which
   *  makes every bucket hold only rows whose hashes collide). */
  constructor(keyColumns: readonly number[], keyOf?: (row: Row) => RowKey) {
    this.keyColumns = keyColumns.slice()
    this.keyOf = keyOf ?? keyFunction(this.keyColumns)
    this.#byHash = keyOf === rowHash
  }

  /** An arrangement keyed by the hash of the whole row (a consolidated multiset). */
  static byRow(): Arrangement {
    return new Arrangement([], rowHash)
  }

  readonly #byHash: boolean

  /** Distinct rows held. */
  get size(): number {
    return this.#rows
  }

  /** Distinct keys held. */
  get keyCount(): number {
    return this.#map.size
  }

  /** Sum of all weights. */
  get totalWeight(): number {
    return this.#total
  }

  /** The slot of a key (internal fast path: a Row when it is the key's only row, weight 1). */
  get(key: RowKey): Slot | undefined {
    return this.#map.get(key)
  }

  /** Total weight under a key. */
  weightOf(key: RowKey): number {
    const s = this.#map.get(key)
    return s === undefined ? 0 : s instanceof Bucket ? s.total : 1
  }

  /** The rows of a key as a Bucket (a fresh one-row bucket when the key holds a single row). */
  lookup(key: RowKey): Bucket | undefined {
    const s = this.#map.get(key)
    if (s === undefined || s instanceof Bucket) return s
    return new Bucket([s], [1], 1)
  }

  /** Weight of the given row (0 when absent). */
  weightOfRow(row: Row, key: RowKey = this.keyOf(row)): number {
    const s = this.#map.get(key)
    if (s === undefined) return 0
    if (!(s instanceof Bucket)) return rowsEqual(s, row) ? 1 : 0
    const i = s.find(row)
    return i < 0 ? 0 : s.weights[i]!
  }

  /** Adds (row, weight); returns the row's new weight. */
  apply(row: Row, weight: number, key: RowKey = this.keyOf(row)): number {
    if (weight === 0) return this.weightOfRow(row, key)
    const map = this.#map
    this.#total += weight
    const s = map.get(key)
    const changes = this.#changes
    if (s === undefined) {
      map.set(key, weight === 1 ? row : new Bucket([row], [weight], weight))
      changes?.inserted(key)
      this.#rows++
      return weight
    }
    if (!(s instanceof Bucket)) {
      if (rowsEqual(s, row)) {
        const nw = 1 + weight
        // the change noted before it is made (a checkpoint's snapshot may copy the slot first)
        if (nw === 0) {
          changes?.deleted(key)
          map.delete(key)
          this.#rows--
        } else {
          changes?.changed(key)
          map.set(key, new Bucket([s], [nw], nw))
        }
        return nw
      }
      changes?.changed(key, true)
      map.set(key, new Bucket([s, row], [1, weight], 1 + weight))
      this.#rows++
      return weight
    }
    const i = s.find(row)
    changes?.changed(key, i < 0)
    if (i < 0) {
      s.add(row, weight)
      this.#rows++
      return weight
    }
    const nw = s.weights[i]! + weight
    s.total += weight
    if (nw !== 0) {
      if (i < s.saved) s.saved = -1
      s.weights[i] = nw
      if (nw === 1 && s.rows.length === 1) map.set(key, s.rows[0]!)
      return nw
    }
    s.removeAt(i)
    this.#rows--
    if (s.rows.length === 0) {
      changes?.deleted(key)
      map.delete(key)
    } else if (s.rows.length === 1 && s.weights[0] === 1) map.set(key, s.rows[0]!)
    return 0
  }

  /** Absorbs a delta, scaled by `sign` (±1). */
  applyDelta(delta: ZSet, sign: number): void {
    const rows = delta.rows
    const ws = delta.weights
    const keyOf = this.keyOf
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      this.apply(r, ws[i]! * sign, keyOf(r))
    }
  }

  /** Calls fn for every (row, weight). */
  forEach(fn: (row: Row, weight: number, key: RowKey) => void): void {
    for (const [k, s] of this.#map) {
      if (s instanceof Bucket) {
        const rows = s.rows
        const ws = s.weights
        for (let i = 0; i < rows.length; i++) fn(rows[i]!, ws[i]!, k)
      } else fn(s, 1, k)
    }
  }

  /** Calls fn for every (row, weight) under one key. */
  forEachIn(key: RowKey, fn: (row: Row, weight: number) => void): void {
    const s = this.#map.get(key)
    if (s === undefined) return
    if (s instanceof Bucket) {
      const rows = s.rows
      const ws = s.weights
      for (let i = 0; i < rows.length; i++) fn(rows[i]!, ws[i]!)
    } else fn(s, 1)
  }

  /** Iterates the keys and their slots. */
  entries(): IterableIterator<[RowKey, Slot]> {
    return this.#map.entries()
  }

  /** The whole contents as a Z-set. */
  snapshot(): ZSet {
    const rows: Row[] = []
    const weights: number[] = []
    for (const s of this.#map.values()) {
      if (s instanceof Bucket) {
        const rs = s.rows
        const ws = s.weights
        for (let i = 0; i < rs.length; i++) {
          rows.push(rs[i]!)
          weights.push(ws[i]!)
        }
      } else {
        rows.push(s)
        weights.push(1)
      }
    }
    return new ZSet(rows, weights)
  }

  /** The contents as plain data (for an operator's saveState). */
  saveState(): ArrangementState {
    const z = this.snapshot()
    return { rows: z.rows as Row[], weights: z.weights as number[] }
  }

  /** Replaces the contents by what `saveState` returned. */
  loadState(state: ArrangementState): void {
    this.clear()
    const { rows, weights } = state
    const keyOf = this.keyOf
    for (let i = 0; i < rows.length; i++) this.apply(rows[i]!, weights[i]!, keyOf(rows[i]!))
  }

  /** Incremental checkpoints: every key (which starts recording changed keys), or the keys
   *  changed since the last call. An entry is the key's row, or {r, w} for a bucket. */
  saveKeyed(all: boolean, whole: unknown = null): KeyedPart {
    if (all || this.#changes === null) {
      this.#changes = new KeyChanges((k) => this.#map.has(k), () => this.#map.size)
      return saveKeyedPart(whole, this.#map, null, slotEntry)
    }
    return saveKeyedPart(whole, this.#map, this.#changes.take(), slotEntry)
  }

  /** saveKeyed's part, fixed now and read in chunks while ticks go on (KeyedSnapshot). */
  snapshotKeyed(all: boolean, whole: unknown = null): KeyedSnapshot {
    if (all || this.#changes === null) {
      this.#changes = new KeyChanges((k) => this.#map.has(k), () => this.#map.size)
      return snapshotKeyedPart(whole, this.#map, null, this.#changes, slotEntry, detachSlot)
    }
    return snapshotKeyedPart(whole, this.#map, this.#changes.take(), this.#changes, slotEntry, detachSlot)
  }

  changeShares(): ChangeShares {
    return this.#changes?.shares ?? ALL_CHANGED
  }

  /** A base read while ticks go on (fuzzyKeyedBase), recording changes afresh from here. */
  fuzzyBaseKeyed(whole: unknown = null): KeyedSnapshot {
    this.#changes = new KeyChanges((k) => this.#map.has(k), () => this.#map.size)
    return fuzzyKeyedBase(whole, this.#map, slotEntry)
  }

  /** Replaces the contents by merged keyed parts (see saveKeyed), recording changes from here. */
  loadKeyed(entries: KeyedEntries): void {
    this.clear()
    const { keys, values } = entries
    const map = this.#map
    for (let i = 0; i < keys.length; i++) {
      const e = values[i]
      if (Array.isArray(e)) {
        // a key's only row, weight 1: set as it is (the keys of a part are distinct)
        map.set(keys[i]!, e as Row)
        this.#rows++
        this.#total++
      } else {
        const b = e as BucketEntry
        for (let j = 0; j < b.r.length; j++) this.apply(b.r[j]!, b.w[j]!, keys[i]!)
        const s = map.get(keys[i]!)
        if (s instanceof Bucket) s.saved = s.rows.length
      }
    }
    this.#changes = new KeyChanges((k) => this.#map.has(k), () => this.#map.size)
  }

  /** Replaces the contents by the rows `parts` hands over (state rebuilt from where it came
   *  from: ArrangeOperator.refill), noting no changes. With `distinct` no row equals another
   *  (a table's rows, each with its count) and none is looked for; else equal rows add up.
   *  Rows of one key come in the order handed over. */
  refill(parts: (add: (rows: ZSet) => void) => void, distinct: boolean): void {
    this.clear()
    parts((z) => (distinct ? this.#addDistinct(z) : this.applyDelta(z, 1)))
  }

  #addDistinct(z: ZSet): void {
    const map = this.#map
    const keyOf = this.keyOf
    const { rows, weights } = z
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const w = weights[i]!
      const key = keyOf(row)
      const s = map.get(key)
      if (s === undefined) map.set(key, w === 1 ? row : new Bucket([row], [w], w))
      else if (s instanceof Bucket) s.add(row, w)
      else map.set(key, new Bucket([s, row], [1, w], 1 + w))
      this.#total += w
    }
    this.#rows += rows.length
  }

  /** Stops noting changed keys: checkpoints leave this state out (ArrangeOperator.refill). */
  untrack(): void {
    this.#changes?.settle()
    this.#changes = null
  }

  clear(): void {
    this.#changes?.settle()
    this.#changes = null
    this.#map.clear()
    this.#rows = 0
    this.#total = 0
  }

  describe(what: string): string {
    if (this.#byHash) return `${what}: ${this.#rows} rows`
    return `${what} keyed by [${this.keyColumns.map((c) => '#' + c).join(', ')}]: ${this.#rows} rows in ${this.#map.size} keys`
  }
}

export interface ArrangeOptions {
  /** Rows whose key column `column` is final are forgotten at the end of a tick: the
   *  planner gives this only when no later reader needs them (an inner join whose other side
   *  can no longer produce that key value, because its watermark is past it). `isFinal` reads
   *  the current watermark; NULL is never final, and over numbers it must be downward closed
   *  (isFinal(x) and y < x imply isFinal(y)), as "the watermark passed x" is. */
  readonly expire?: { readonly column: number; readonly isFinal: (value: unknown) => boolean }
}

/** The keys that received rows with one expire value (see the header). */
class ExpireBucket implements ValueBucket {
  readonly value: unknown
  readonly vk: RowKey
  readonly keys = new Set<RowKey>()
  /** The key added last (skips the Set for runs of rows under one key). */
  last: RowKey | undefined = undefined
  constructor(value: unknown, vk: RowKey) {
    this.value = value
    this.vk = vk
  }
}

export class ArrangeOperator extends BaseOperator {
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
  /** With expire: keys by expire value (see the header). */
  readonly #byValue = new ValueBuckets((value, vk) => new ExpireBucket(value, vk))

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
    if (expire === undefined) return
    const gone = new ZSet()
    this.#byValue.sweep(expire.isFinal, (b) => {
      this.#forgetBucket(b, gone)
      return false
    })
    if (gone.length === 0) return
    // the journal undoes an entry by absorbing it negated: record the negation of removing
    this.#journal.record(gone.negate())
  }

  /** Forgets the final rows under the keys of a final value's bucket (into `gone`). */
  #forgetBucket(b: ExpireBucket, gone: ZSet): void {
    const expire = this.#expire!
    const col = expire.column
    const arr = this.arrangement
    const value = b.value
    for (const key of b.keys) {
      const s = arr.get(key)
      if (s === undefined) continue
      if (!(s instanceof Bucket)) {
        const v = s[col]
        if (v === value || expire.isFinal(v)) {
          arr.apply(s, -1, key)
          gone.push(s, 1)
        }
        continue
      }
      // collect first: removing reorders the bucket
      const rows = s.rows
      const ws = s.weights
      const start = gone.length
      for (let i = 0; i < rows.length; i++) {
        const v = rows[i]![col]
        if (v === value || expire.isFinal(v)) gone.push(rows[i]!, ws[i]!)
      }
      const gr = gone.rows
      const gw = gone.weights
      for (let i = start; i < gr.length; i++) arr.apply(gr[i]!, -gw[i]!, key)
    }
  }

  /** Indexes key under the expire value v (NULL is never final: not indexed). */
  #index(key: RowKey, v: unknown): void {
    if (v === null || v === undefined) return
    const b = this.#byValue.get(v)
    if (key !== b.last) {
      b.keys.add(key)
      b.last = key
    }
  }

  /** Indexes the keys of a delta's rows. */
  #indexDelta(d: ZSet): void {
    const col = this.#expire!.column
    const rows = d.rows
    const keyOf = this.keyOf
    for (let i = 0; i < rows.length; i++) this.#index(keyOf(rows[i]!), rows[i]![col])
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
    const expire = this.#expire
    if (expire === undefined) {
      this.arrangement.applyDelta(d, 1)
      return
    }
    const rows = d.rows
    const ws = d.weights
    const keyOf = this.keyOf
    const col = expire.column
    const arr = this.arrangement
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      const k = keyOf(r)
      this.#index(k, r[col])
      arr.apply(r, ws[i]!, k)
    }
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((d) => {
      this.arrangement.applyDelta(d, -1)
      // rows put back (forgotten ones, retracted ones) need their keys indexed again
      if (this.#expire !== undefined) this.#indexDelta(d)
    })
  }

  /** Distinct rows held. */
  get size(): number {
    return this.arrangement.size
  }

  saveState(): ArrangementState {
    return this.arrangement.saveState()
  }

  /** The expire index is rebuilt from the rows (a superset of the saved one's live entries,
   *  which is all it needs to be). */
  loadState(state: unknown): void {
    const s = state as ArrangementState
    this.arrangement.loadState(s)
    this.emptyBefore = this.arrangement.size === 0
    if (this.#expire !== undefined) this.#indexDelta(new ZSet(s.rows, s.weights))
  }

  saveKeyed(all: boolean): KeyedPart {
    return this.arrangement.saveKeyed(all)
  }

  snapshotKeyed(all: boolean): KeyedSnapshot {
    return this.arrangement.snapshotKeyed(all)
  }

  changeShares(): ChangeShares {
    return this.arrangement.changeShares()
  }

  fuzzyBaseKeyed(): KeyedSnapshot {
    return this.arrangement.fuzzyBaseKeyed()
  }

  loadKeyed(_whole: unknown, entries: KeyedEntries): void {
    this.arrangement.loadKeyed(entries)
    this.emptyBefore = this.arrangement.size === 0
    if (this.#expire !== undefined) this.#indexDelta(this.arrangement.snapshot())
  }

  /** Derived state (src/engine/derived-state.ts): an arrangement of a table's rows (maybe
   *  filtered and projected), or of every row of a stream's history, holds what the
   *  checkpoint saves already (the table) or the log holds (the history); checkpoints leave
   *  it out and recovery calls this with those rows, once they are loaded (`distinct`: see
   *  Arrangement.refill). Notes no changes, from here on too. */
  refill(parts: (add: (rows: ZSet) => void) => void, distinct: boolean): void {
    this.arrangement.refill(parts, distinct)
    this.emptyBefore = this.arrangement.size === 0
  }

  /** Stops noting changed keys (checkpoints leave this state out: see refill). */
  untrack(): void {
    this.arrangement.untrack()
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

export function arrange(circuit: Circuit, input: Operator, keyColumns: readonly number[], options: ArrangeOptions = {}): ArrangeOperator {
  return circuit.add(new ArrangeOperator(input, keyColumns, options))
}
