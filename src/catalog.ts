// The engine's catalog: tables (with their stored rows) and views (with their dataflow
// sink), implementing the planner's Catalog interface.

import * as ivm from '../ivm/index.js'
import type { Row } from '../ivm/index.js'
import type { Catalog, CatalogRelation, CatalogRelationKind, Column, DeltaPlan } from '../planner/index.js'
import type { ChangeBatch } from './types.js'

/** An empty array of unboxed doubles, made once at load. Column arrays are copies of it (or
 *  of a template filled from it), never fresh literals: V8 lets a literal's allocation site
 *  learn from its arrays, so once one column met a string, every later literal would start
 *  out generic. V8 never moves an array back from doubles to small integers, so the numbers
 *  written later stay unboxed without a transition copy. */
const EMPTY_DOUBLES: readonly unknown[] = (() => {
  const a: unknown[] = [0.5]
  a.length = 0
  return a
})()

const segmentTemplates = new Map<number, readonly unknown[]>()

/** A whole segment column of `size` unboxed doubles (copied from a template per size). */
function segmentColumn(size: number): unknown[] {
  let t = segmentTemplates.get(size)
  if (t === undefined) {
    const a = EMPTY_DOUBLES.slice()
    for (let i = 0; i < size; i++) a.push(0.5)
    segmentTemplates.set(size, (t = a))
  }
  return t.slice()
}

/** Stored rows of a table.
 *
 *  Primary-keyed tables map key → slot and keep the values column by column in segments:
 *  slot `s` of column `c` is `segments[s >> bits][c][s & mask]`. A stored row costs a Map
 *  entry and one array element per column instead of an array of its own, and a segment
 *  column that only holds numbers is an array of unboxed doubles (one that meets any other
 *  value becomes a generic array, in that segment only). The first segment grows as rows
 *  come, so small tables stay small; later ones are allocated whole, so a growing table never
 *  copies its columns (8192 slots: 64 KiB a column, an ordinary heap object). Rows are
 *  materialized on demand (`get`, `snapshot`): each one handed out is a fresh array the store
 *  does not keep, so callers may not rely on its identity.
 *
 *  Slots vacated in a tick (deleted rows, and the old row of an update: −old +new with one
 *  key) keep their values until the tick commits, so `rollback` only has to put keys back
 *  onto their old slots and give back the slots written since; at commit the vacated slots
 *  join a free list, which writes take before growing the columns.
 *
 *  Bags (tables without a primary key) map row key → row and row key → count. */
export class TableStore {
  readonly keyOf: ((row: Row) => ivm.RowKey) | undefined
  readonly #width: number
  readonly #bits: number
  readonly #mask: number
  // primary-keyed tables
  readonly #slots = new Map<ivm.RowKey, number>()
  /** segment → column → values. */
  readonly #segments: unknown[][][] = []
  /** segment → column → true while that array has only held numbers (unboxed doubles). */
  readonly #numeric: boolean[][] = []
  /** Slots allocated (in use, vacated or free): the next new slot. */
  #end = 0
  /** Free slots (vacated before the last commit), taken from the end. */
  readonly #free: number[] = []
  // bags
  readonly #bagRows = new Map<ivm.RowKey, Row>()
  readonly #counts = new Map<ivm.RowKey, number>()
  /** Changes since the last commit, newest last, as parallel arrays (no array per change:
   *  a bulk load journals a million of them): the key, and for keyed tables its previous
   *  slot (−1 for none), for bags its previous row and count. */
  #journalKeys: ivm.RowKey[] = []
  #journalSlots: number[] = []
  #journalRows: (Row | undefined)[] = []
  #journalCounts: number[] = []
  /** Keyed tables, since the last commit: slots vacated (free from the commit on) and slots
   *  taken from the free list (free again on rollback); `#end` at the last commit. */
  #vacated: number[] = []
  #taken: number[] = []
  #committedEnd = 0

  /** `width`: the number of columns. `segmentBits`: log2 of the slots per segment (tests
   *  use small segments). */
  constructor(primaryKey: readonly number[], width: number, segmentBits = 13) {
    this.keyOf = primaryKey.length > 0 ? ivm.keyFunction(primaryKey) : undefined
    this.#width = width
    this.#bits = segmentBits
    this.#mask = (1 << segmentBits) - 1
  }

  /** Number of stored rows (a bag row counts as often as it is stored). */
  get size(): number {
    if (this.keyOf) return this.#slots.size
    let n = 0
    for (const c of this.#counts.values()) n += c
    return n
  }

  /** Slots a keyed table has allocated: its rows, plus slots vacated or free for reuse. */
  get slotCount(): number {
    return this.#end
  }

  /** The stored row with key `k` (`keyOf(row)` for keyed tables, `rowKey(row)` for bags),
   *  or undefined. A keyed table's row is a fresh array, a bag's the stored one; neither may
   *  be mutated. */
  get(k: ivm.RowKey): Row | undefined {
    if (!this.keyOf) return this.#bagRows.get(k)
    const s = this.#slots.get(k)
    return s === undefined ? undefined : this.#row(s)
  }

  /** True when a row with key `k` is stored. */
  has(k: ivm.RowKey): boolean {
    return this.keyOf ? this.#slots.has(k) : this.#counts.has(k)
  }

  /** How often the row with key `k` is stored (0 or 1 in a keyed table). */
  countOf(k: ivm.RowKey): number {
    if (this.keyOf) return this.#slots.has(k) ? 1 : 0
    return this.#counts.get(k) ?? 0
  }

  /** The keys of the stored rows (each once). */
  keys(): IterableIterator<ivm.RowKey> {
    return this.keyOf ? this.#slots.keys() : this.#counts.keys()
  }

  #row(s: number): Row {
    const segment = this.#segments[s >> this.#bits]!
    const j = s & this.#mask
    // array literals for the common widths (exact size, packed): a snapshot of a million
    // rows materializes ~20% faster than through `new Array(n)` and a loop
    switch (this.#width) {
      case 1:
        return [segment[0]![j]]
      case 2:
        return [segment[0]![j], segment[1]![j]]
      case 3:
        return [segment[0]![j], segment[1]![j], segment[2]![j]]
      case 4:
        return [segment[0]![j], segment[1]![j], segment[2]![j], segment[3]![j]]
      case 5:
        return [segment[0]![j], segment[1]![j], segment[2]![j], segment[3]![j], segment[4]![j]]
      case 6:
        return [segment[0]![j], segment[1]![j], segment[2]![j], segment[3]![j], segment[4]![j], segment[5]![j]]
      default: {
        const n = this.#width
        const row = new Array<unknown>(n)
        for (let c = 0; c < n; c++) row[c] = segment[c]![j]
        return row
      }
    }
  }

  /** Writes `row` into a free slot: a committed free one, else a new one at the end. */
  #write(row: Row): number {
    const n = this.#width
    if (row.length !== n) throw new Error(`internal: a row of ${row.length} values for a table of ${n} columns`)
    let s: number
    if (this.#free.length > 0) {
      s = this.#free.pop()!
      this.#taken.push(s)
    } else {
      s = this.#end++
      const seg = s >> this.#bits
      if (seg === this.#segments.length) {
        const columns: unknown[][] = []
        for (let c = 0; c < n; c++) columns.push(seg === 0 ? EMPTY_DOUBLES.slice() : segmentColumn(this.#mask + 1))
        this.#segments.push(columns)
        this.#numeric.push(new Array<boolean>(n).fill(true))
      }
    }
    const segment = this.#segments[s >> this.#bits]!
    const numeric = this.#numeric[s >> this.#bits]!
    const j = s & this.#mask
    // Three store sites, by the kind of array they see: V8's store cache turns every double
    // array that reaches a site which has also seen generic arrays into a generic one, so
    // double columns are only ever written through a site of their own.
    for (let c = 0; c < n; c++) {
      const col = segment[c]!
      const v = row[c]
      if (numeric[c]) {
        if (typeof v === 'number') {
          if (j < col.length) col[j] = v
          else col.push(v) // the first segment, growing
        } else {
          numeric[c] = false // this value makes the array generic
          if (j < col.length) col[j] = v
          else col.push(v)
        }
      } else if (j < col.length) col[j] = v
      else col.push(v)
    }
    return s
  }

  /** Drops the values of slot `s` that are not numbers, so a free slot holds no reference
   *  (a number stays: writing null would make an unboxed double column generic). */
  #clear(s: number): void {
    const segment = this.#segments[s >> this.#bits]!
    const j = s & this.#mask
    for (let c = 0; c < segment.length; c++) {
      const col = segment[c]!
      if (j < col.length && typeof col[j] !== 'number') col[j] = null
    }
  }

  /** Applies a consolidated delta (validated by the caller). */
  apply(delta: ivm.ZSet): void {
    const { rows, weights } = delta
    const keyOf = this.keyOf
    if (keyOf) {
      const slots = this.#slots
      // deletes first so an update (−old +new with the same key) lands as the new row
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < rows.length; i++) {
          const w = weights[i]!
          if ((pass === 0) !== (w < 0)) continue
          const row = rows[i]!
          const k = keyOf(row)
          const prev = slots.get(k)
          this.#journalKeys.push(k)
          this.#journalSlots.push(prev ?? -1)
          if (prev !== undefined) this.#vacated.push(prev)
          if (w < 0) slots.delete(k)
          else slots.set(k, this.#write(row))
        }
      }
      return
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const k = ivm.rowKey(row)
      const before = this.#counts.get(k) ?? 0
      this.#journalKeys.push(k)
      this.#journalRows.push(this.#bagRows.get(k))
      this.#journalCounts.push(before)
      const after = before + weights[i]!
      if (after <= 0) {
        this.#counts.delete(k)
        this.#bagRows.delete(k)
      } else {
        this.#counts.set(k, after)
        this.#bagRows.set(k, row)
      }
    }
  }

  commit(): void {
    if (this.#vacated.length > 0) {
      for (const s of this.#vacated) {
        this.#clear(s)
        this.#free.push(s)
      }
      this.#vacated = []
    }
    if (this.#taken.length > 0) this.#taken = []
    this.#committedEnd = this.#end
    this.#journalKeys = []
    this.#journalSlots = []
    this.#journalRows = []
    this.#journalCounts = []
  }

  rollback(): void {
    const keys = this.#journalKeys
    if (this.keyOf) {
      // keys back onto their old slots, whose values were left alone since the commit
      const slots = this.#slots
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!
        const prev = this.#journalSlots[i]!
        if (prev < 0) slots.delete(k)
        else slots.set(k, prev)
      }
      // slots taken from the free list are free again; new ones are forgotten
      for (let i = this.#taken.length - 1; i >= 0; i--) {
        const s = this.#taken[i]!
        this.#clear(s)
        this.#free.push(s)
      }
      const end = this.#committedEnd
      if (this.#end > end) {
        const segments = this.#segments
        segments.length = (end + this.#mask) >> this.#bits
        this.#numeric.length = segments.length
        if ((end & this.#mask) !== 0) {
          // the segment holding the committed end keeps its used part only
          if (end >> this.#bits === 0) for (const col of segments[0]!) col.length = end
          else for (let s = end, last = Math.min(this.#end, segments.length << this.#bits); s < last; s++) this.#clear(s)
        }
        this.#end = end
      }
      this.#vacated = []
    } else {
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!
        const row = this.#journalRows[i]
        if (row === undefined) this.#bagRows.delete(k)
        else this.#bagRows.set(k, row)
        const count = this.#journalCounts[i]!
        if (count > 0) this.#counts.set(k, count)
        else this.#counts.delete(k)
      }
    }
    this.commit()
  }

  snapshot(): ivm.ZSet {
    // sized up front (a million pushes leave a trail of outgrown backing stores), and
    // forEach, not for…of (an iterator allocates a result object per entry)
    let i = 0
    if (this.keyOf) {
      const n = this.#slots.size
      const rows = new Array<Row>(n)
      const weights = new Array<number>(n).fill(1)
      this.#slots.forEach((s) => {
        rows[i++] = this.#row(s)
      })
      return new ivm.ZSet(rows, weights)
    }
    const n = this.#bagRows.size
    const rows = new Array<Row>(n)
    const weights = new Array<number>(n)
    const counts = this.#counts
    this.#bagRows.forEach((r, k) => {
      rows[i] = r
      weights[i++] = counts.get(k)!
    })
    return new ivm.ZSet(rows, weights)
  }
}

export interface TableEntry {
  readonly kind: 'table' | 'stream'
  readonly name: string
  readonly columns: readonly Column[]
  readonly primaryKey: readonly number[]
  readonly notNull: readonly boolean[]
  readonly defaults: readonly (import('../planner/index.js').ScalarExpr | undefined)[]
  readonly store: TableStore
  readonly input: ivm.InputOperator
}

export interface Subscriber {
  readonly callback: (batch: ChangeBatch) => void
}

export interface ViewEntry {
  readonly kind: 'view' | 'materialized view'
  readonly name: string
  readonly columns: readonly Column[]
  readonly definition: string
  readonly plan: DeltaPlan
  readonly sink: ivm.IntegrateOperator
  /** The operator each node of `plan` became (shared arrangements included). */
  readonly operators: ReadonlyMap<DeltaPlan, ivm.Operator>
  /** Relations the view reads (for DROP dependency checks). */
  readonly dependsOn: ReadonlySet<string>
  readonly subscribers: Set<Subscriber>
  /** Changes of the open tick, delivered to subscribers at commit. */
  pending: ivm.ZSet
}

export type Entry = TableEntry | ViewEntry

export function isView(e: Entry): e is ViewEntry {
  return e.kind === 'view' || e.kind === 'materialized view'
}

export class EngineCatalog implements Catalog {
  /** Every relation by name. Change it only through `add` and `remove`. */
  readonly entries: ReadonlyMap<string, Entry> = new Map<string, Entry>()
  /** Relation name → the views that read it (kept so DROP is not a scan of the catalog). */
  readonly #readers = new Map<string, Set<ViewEntry>>()
  /** Views with subscribers: the only ones whose changes are collected during a tick. */
  readonly subscribed = new Set<ViewEntry>()

  add(e: Entry): void {
    ;(this.entries as Map<string, Entry>).set(e.name, e)
    if (!isView(e)) return
    if (e.subscribers.size > 0) this.subscribed.add(e)
    for (const d of e.dependsOn) {
      let s = this.#readers.get(d)
      if (s === undefined) this.#readers.set(d, (s = new Set()))
      s.add(e)
    }
  }

  remove(e: Entry): void {
    ;(this.entries as Map<string, Entry>).delete(e.name)
    if (!isView(e)) return
    this.subscribed.delete(e)
    for (const d of e.dependsOn) {
      const s = this.#readers.get(d)
      s?.delete(e)
      if (s?.size === 0) this.#readers.delete(d)
    }
  }

  getRelation(name: string): CatalogRelation | undefined {
    const e = this.entries.get(name)
    if (!e) return undefined
    return { name: e.name, kind: e.kind as CatalogRelationKind, columns: e.columns, primaryKey: e.kind === 'table' || e.kind === 'stream' ? e.primaryKey : [] }
  }

  dependents(name: string): ViewEntry[] {
    return [...(this.#readers.get(name) ?? [])]
  }
}
