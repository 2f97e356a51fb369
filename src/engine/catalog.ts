// The engine's catalog: tables (with their stored rows) and views (with their dataflow
// sink), implementing the planner's Catalog interface.

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import type { Catalog, CatalogRelation, CatalogRelationKind, Column, ColumnWatermark, DeltaPlan, ScalarExpr, TypeModifier } from '../../planner/index.js'
import { visitExpr } from '../../planner/index.js'
import { evaluateConstant } from '../sql-runtime/compile-scalar.js'
import { Interval } from '../sql-runtime/values.js'
import type { ChangeBatch } from '../types.js'
import type { MaintenanceError } from './view-errors.js'

/** Stored rows of a table. Primary-keyed tables map key → row; bags map row → count. */
export class TableStore {
  readonly keyOf: ((row: Row) => ivm.RowKey) | undefined
  readonly rows = new Map<ivm.RowKey, Row>()
  readonly counts = new Map<ivm.RowKey, number>()
  /** Changes since the last commit, newest last, as parallel arrays (no array per change:
   *  a bulk load journals a million of them): key, previous row or undefined, and for bags
   *  the previous count. */
  #journalKeys: ivm.RowKey[] = []
  #journalRows: (Row | undefined)[] = []
  #journalCounts: number[] = []
  /** The keys changed since the last incremental checkpoint (null until one asks). */
  #changes: ivm.KeyChanges | null = null
  /** Whether a row was ever deleted (an update deletes the old row): until then the rows are
   *  in the order they arrived in, which an arrangement rebuilt from them keeps
   *  (src/engine/derived-state.ts). A checkpoint saves it; unknown counts as deleted. */
  deletedAny = false

  constructor(primaryKey: readonly number[]) {
    this.keyOf = primaryKey.length > 0 ? ivm.keyFunction(primaryKey) : undefined
  }

  get size(): number {
    let n = 0
    if (this.keyOf) return this.rows.size
    for (const c of this.counts.values()) n += c
    return n
  }

  /** Applies a consolidated delta (validated by the caller). */
  apply(delta: ivm.ZSet): void {
    const { rows, weights } = delta
    if (this.keyOf) {
      // deletes first so an update (−old +new with the same key) lands as the new row
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < rows.length; i++) {
          const w = weights[i]!
          if ((pass === 0) !== (w < 0)) continue
          const row = rows[i]!
          const k = this.keyOf(row)
          const before = this.rows.get(k)
          this.#journalKeys.push(k)
          this.#journalRows.push(before)
          // changes are noted before they are made (a checkpoint's snapshot may copy the row)
          if (w < 0) {
            this.#changes?.deleted(k)
            this.rows.delete(k)
            this.deletedAny = true
          } else {
            if (before === undefined) this.#changes?.inserted(k)
            else this.#changes?.changed(k)
            this.rows.set(k, row)
          }
        }
      }
      return
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const k = ivm.rowKey(row)
      const before = this.counts.get(k) ?? 0
      this.#journalKeys.push(k)
      this.#journalRows.push(this.rows.get(k))
      this.#journalCounts.push(before)
      const after = before + weights[i]!
      if (after <= 0) {
        this.#changes?.deleted(k)
        this.counts.delete(k)
        this.rows.delete(k)
        this.deletedAny = true
      } else {
        if (before === 0) this.#changes?.inserted(k)
        else this.#changes?.changed(k)
        this.counts.set(k, after)
        this.rows.set(k, row)
      }
    }
  }

  commit(): void {
    this.#journalKeys = []
    this.#journalRows = []
    this.#journalCounts = []
  }

  rollback(): void {
    const keys = this.#journalKeys
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!
      const row = this.#journalRows[i]
      const changes = this.#changes
      if (row === undefined) {
        changes?.deleted(k)
        this.rows.delete(k)
      } else {
        if (changes !== null) {
          if (this.rows.has(k)) changes.changed(k)
          else changes.inserted(k)
        }
        this.rows.set(k, row)
      }
      if (!this.keyOf) {
        const count = this.#journalCounts[i]!
        if (count > 0) this.counts.set(k, count)
        else this.counts.delete(k)
      }
    }
    this.commit()
  }

  /** Per key the open tick changed (keyed stores): its row when the tick began and now
   *  (undefined: absent). */
  *netChanges(): Generator<[ivm.RowKey, Row | undefined, Row | undefined]> {
    const keys = this.#journalKeys
    const seen = new Set<ivm.RowKey>()
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!
      if (seen.has(k)) continue
      seen.add(k)
      yield [k, this.#journalRows[i], this.rows.get(k)]
    }
  }

  /** The contents as of the last commit: the open tick's changes undone on a copy (for a
   *  sink going into error: what it had written). */
  committedSnapshot(): ivm.ZSet {
    const keys = this.#journalKeys
    if (keys.length === 0) return this.snapshot()
    const rows = new Map(this.rows)
    const counts = this.keyOf ? undefined : new Map(this.counts)
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!
      const row = this.#journalRows[i]
      if (row === undefined) rows.delete(k)
      else rows.set(k, row)
      if (counts) {
        const count = this.#journalCounts[i]!
        if (count > 0) counts.set(k, count)
        else counts.delete(k)
      }
    }
    const z = new ivm.ZSet()
    rows.forEach((r, k) => z.push(r, counts ? counts.get(k)! : 1))
    return z
  }

  /** The committed contents as plain data, for a checkpoint (taken between ticks). */
  saveState(): unknown {
    return { rows: this.rows, counts: this.counts }
  }

  loadState(state: unknown): void {
    const s = state as { rows: Map<ivm.RowKey, Row>; counts: Map<ivm.RowKey, number> }
    this.#changes?.settle()
    this.rows.clear()
    this.counts.clear()
    this.#changes = null
    s.rows.forEach((r, k) => this.rows.set(k, r))
    s.counts.forEach((c, k) => this.counts.set(k, c))
    this.commit()
  }

  /** Whether checkpoints save it by keys (incremental); a subclass with other state says no. */
  get keyed(): boolean {
    return true
  }

  /** Incremental checkpoints (ivm/keyed-state.ts): a key's entry is its row, or for a bag
   *  [row, count]. */
  saveKeyed(all: boolean): ivm.KeyedPart {
    const changes = all || this.#changes === null ? null : this.#changes.take()
    if (changes === null) this.#changes = new ivm.KeyChanges((k) => this.rows.has(k), () => this.rows.size)
    const counts = this.keyOf ? undefined : this.counts
    return ivm.saveKeyedPart(null, this.rows, changes, counts === undefined ? (r) => r : (r, k) => [r, counts.get(k)])
  }

  /** saveKeyed's part, fixed now and read in chunks while ticks go on (a row is never changed
   *  in place, so a key's pre-image is its row; a bag's count is copied). */
  snapshotKeyed(all: boolean): ivm.KeyedSnapshot {
    const changes = all || this.#changes === null ? null : this.#changes.take()
    if (changes === null) this.#changes = new ivm.KeyChanges((k) => this.rows.has(k), () => this.rows.size)
    const counts = this.keyOf ? undefined : this.counts
    const entryOf = counts === undefined ? (r: Row) => r : (r: Row, k: ivm.RowKey) => [r, counts.get(k)]
    return ivm.snapshotKeyedPart(null, this.rows, changes, this.#changes!, entryOf, entryOf)
  }

  changeShares(): ivm.ChangeShares {
    return this.#changes?.shares ?? ivm.ALL_CHANGED
  }

  /** A base read while ticks go on (fuzzyKeyedBase), recording changes afresh from here. */
  fuzzyBaseKeyed(): ivm.KeyedSnapshot {
    this.#changes = new ivm.KeyChanges((k) => this.rows.has(k), () => this.rows.size)
    const counts = this.keyOf ? undefined : this.counts
    return ivm.fuzzyKeyedBase(null, this.rows, counts === undefined ? (r: Row) => r : (r: Row, k: ivm.RowKey) => [r, counts.get(k)])
  }

  loadKeyed(_whole: unknown, entries: ivm.KeyedEntries): void {
    this.#changes?.settle()
    this.rows.clear()
    this.counts.clear()
    const { keys, values } = entries
    if (this.keyOf) for (let i = 0; i < keys.length; i++) this.rows.set(keys[i]!, values[i] as Row)
    else {
      for (let i = 0; i < keys.length; i++) {
        const [r, c] = values[i] as [Row, number]
        this.rows.set(keys[i]!, r)
        this.counts.set(keys[i]!, c)
      }
    }
    this.commit()
    this.#changes = new ivm.KeyChanges((k) => this.rows.has(k), () => this.rows.size)
  }

  snapshot(): ivm.ZSet {
    // sized up front: a million pushes would leave a trail of outgrown backing stores
    const n = this.rows.size
    const rows = new Array<Row>(n)
    const weights = new Array<number>(n)
    let i = 0
    // forEach, not for…of: a snapshot runs once over a million entries, often before the
    // loop is optimized, and every iterator step would allocate a result object
    if (this.keyOf) {
      this.rows.forEach((r) => {
        rows[i] = r
        weights[i++] = 1
      })
    } else {
      const counts = this.counts
      this.rows.forEach((r, k) => {
        rows[i] = r
        weights[i++] = counts.get(k)!
      })
    }
    return new ivm.ZSet(rows, weights)
  }

}

/** A stream declared `WITH (history = false)`: its events flow to the views that exist when
 *  they arrive and are not stored (as a RisingWave or Flink source keeps nothing). Reads and
 *  later views see an empty stream. */
export class NoHistory extends TableStore {
  constructor() {
    super([])
  }

  override get size(): number {
    return 0
  }

  override apply(): void {}

  override saveState(): unknown {
    return null
  }

  override loadState(): void {}

  override get keyed(): boolean {
    return false
  }

  override commit(): void {}

  override rollback(): void {}

  override snapshot(): ivm.ZSet {
    return new ivm.ZSet()
  }

  override committedSnapshot(): ivm.ZSet {
    return new ivm.ZSet()
  }
}

/** One key's versions, sorted by version time: history rows `[...columns, live]`. */
interface KeyVersions {
  readonly times: number[]
  readonly rows: Row[]
}

/** The version history of a versioned table: per primary key, every version by
 *  its version time. A version is a history row: the table's columns plus `live` — false for
 *  a deletion, which hides older versions from then on. The table's visible rows (its
 *  TableStore) are, per key, the version with the greatest version time, when live. */
export class VersionStore {
  readonly keyOf: (row: Row) => ivm.RowKey
  readonly timeColumn: number
  readonly #byKey = new Map<ivm.RowKey, KeyVersions>()
  #size = 0
  /** (key, time, history row before) per change since the last commit, newest last. */
  #journal: [ivm.RowKey, number, Row | undefined][] = []

  /** With retention: the keys of the versions put, in arrival order (`#head` = first not yet
   *  pruned), so pruning visits only keys that gained versions. */
  readonly #arrivals: { keys: ivm.RowKey[]; times: number[] } | undefined
  #head = 0

  constructor(primaryKey: readonly number[], timeColumn: number, retained: boolean) {
    this.keyOf = ivm.keyFunction(primaryKey)
    this.timeColumn = timeColumn
    this.#arrivals = retained ? { keys: [], times: [] } : undefined
  }

  /** Retention (after a committed tick): drops the versions a later version at or before
   *  `cutoff` supersedes — no event at or after the cutoff can read them — and a key whose
   *  only version left is a deletion at or before the cutoff. Not journaled: it runs after
   *  commit, and views keep what they derived. */
  prune(cutoff: number): void {
    const a = this.#arrivals
    if (a === undefined) return
    while (this.#head < a.keys.length && a.times[this.#head]! < cutoff) {
      const key = a.keys[this.#head++]!
      const v = this.#byKey.get(key)
      if (v === undefined) continue
      const j = ivm.lowerBound(v.times, cutoff + 1) - 1
      if (j > 0) {
        v.times.splice(0, j)
        v.rows.splice(0, j)
        this.#size -= j
      }
      if (v.times.length === 1 && v.times[0]! <= cutoff && v.rows[0]![v.rows[0]!.length - 1] === false) {
        this.#byKey.delete(key)
        this.#size--
      }
    }
    if (this.#head > 4096 && this.#head * 2 > a.keys.length) {
      a.keys.splice(0, this.#head)
      a.times.splice(0, this.#head)
      this.#head = 0
    }
  }

  get size(): number {
    return this.#size
  }

  /** The committed history as plain data, for a checkpoint (taken between ticks). */
  saveState(): unknown {
    const a = this.#arrivals
    return { byKey: this.#byKey, size: this.#size, arrivals: a === undefined ? null : { keys: a.keys.slice(this.#head), times: a.times.slice(this.#head) } }
  }

  loadState(state: unknown): void {
    const s = state as { byKey: Map<ivm.RowKey, KeyVersions>; size: number; arrivals: { keys: ivm.RowKey[]; times: number[] } | null }
    this.#byKey.clear()
    s.byKey.forEach((v, k) => this.#byKey.set(k, v))
    this.#size = s.size
    this.#journal = []
    this.#head = 0
    if (this.#arrivals !== undefined && s.arrivals !== null) {
      this.#arrivals.keys = s.arrivals.keys
      this.#arrivals.times = s.arrivals.times
    }
  }

  /** The history row of `key` at `time`, if any. */
  at(key: ivm.RowKey, time: number): Row | undefined {
    const v = this.#byKey.get(key)
    if (v === undefined) return undefined
    const i = ivm.lowerBound(v.times, time)
    return i < v.times.length && v.times[i] === time ? v.rows[i] : undefined
  }

  /** The history row with the greatest version time for `key`. */
  latest(key: ivm.RowKey): Row | undefined {
    const v = this.#byKey.get(key)
    return v === undefined ? undefined : v.rows[v.rows.length - 1]
  }

  /** Puts `row` (a history row) at its key and version time; pushes the history change
   *  (−previous, +row) into `delta`. */
  put(row: Row, delta: ivm.ZSet): void {
    const key = this.keyOf(row)
    const time = row[this.timeColumn] as number
    let v = this.#byKey.get(key)
    if (v === undefined) this.#byKey.set(key, (v = { times: [], rows: [] }))
    const i = ivm.lowerBound(v.times, time)
    let previous: Row | undefined
    if (i < v.times.length && v.times[i] === time) {
      previous = v.rows[i]
      v.rows[i] = row
      delta.push(previous!, -1)
    } else {
      v.times.splice(i, 0, time)
      v.rows.splice(i, 0, row)
      this.#size++
    }
    delta.push(row, 1)
    this.#journal.push([key, time, previous])
    if (this.#arrivals !== undefined) {
      this.#arrivals.keys.push(key)
      this.#arrivals.times.push(time)
    }
  }

  commit(): void {
    if (this.#journal.length !== 0) this.#journal = []
  }

  rollback(): void {
    const j = this.#journal
    // the arrivals of the rolled-back puts go too (puts are journaled one to one)
    if (this.#arrivals !== undefined) {
      this.#arrivals.keys.length -= j.length
      this.#arrivals.times.length -= j.length
    }
    for (let n = j.length - 1; n >= 0; n--) {
      const [key, time, previous] = j[n]!
      const v = this.#byKey.get(key)!
      const i = ivm.lowerBound(v.times, time)
      if (previous !== undefined) v.rows[i] = previous
      else {
        v.times.splice(i, 1)
        v.rows.splice(i, 1)
        this.#size--
        if (v.times.length === 0) this.#byKey.delete(key)
      }
    }
    this.#journal = []
  }

  snapshot(): ivm.ZSet {
    const z = new ivm.ZSet()
    this.#byKey.forEach((v) => {
      for (const r of v.rows) z.push(r, 1)
    })
    return z
  }

  /** The history as of the last commit (the open tick's puts undone on copies of the keys
   *  they touched). */
  committedSnapshot(): ivm.ZSet {
    if (this.#journal.length === 0) return this.snapshot()
    const copies = new Map<ivm.RowKey, KeyVersions>()
    for (let n = this.#journal.length - 1; n >= 0; n--) {
      const [key, time, previous] = this.#journal[n]!
      let v = copies.get(key)
      if (v === undefined) {
        const now = this.#byKey.get(key)!
        copies.set(key, (v = { times: now.times.slice(), rows: now.rows.slice() }))
      }
      const i = ivm.lowerBound(v.times, time)
      if (previous !== undefined) v.rows[i] = previous
      else {
        v.times.splice(i, 1)
        v.rows.splice(i, 1)
      }
    }
    const z = new ivm.ZSet()
    this.#byKey.forEach((v, key) => {
      for (const r of (copies.get(key) ?? v).rows) z.push(r, 1)
    })
    return z
  }
}


/** A stream's event time: `WATERMARK FOR column AS expr`. */
export interface StreamWatermark {
  readonly column: number
  /** The watermark candidate of a row (`expr`, e.g. ts - 5 s). */
  readonly candidate: (row: Row) => unknown
  /** The candidate never decreases as the event time grows (`ts`, `ts - INTERVAL '5'
   *  SECOND`): a batch's largest comes from its latest row. */
  readonly monotone: boolean
  /** The watermark, committed: moves at the end of a tick, never backwards. */
  current: number
  /** Largest candidate of the rows accepted in the open tick. */
  pending: number
  /** Late events ever counted (committed), and in the open tick. */
  late: number
  pendingLate: number
  /** `WITH (late_events_kept = N)`: rows kept in rivulet_late_events for this stream. */
  readonly keep: number | undefined
  /** `WITH (retention = '1 hour')` in µs: history older than watermark − retention is
   *  dropped from the stream's stored rows (views are not affected). */
  readonly retention: number | undefined
  /** Rows accepted in the open tick (retention only). */
  tickRows: Row[]
  /** Stored rows in arrival order, for eviction (retention only); `head` = first still kept. */
  readonly history: Row[]
  head: number
}

export interface TableEntry {
  /** 'system': rivulet_late_events, rivulet_rejected, rivulet_tombstones (read-only to users,
   *  written by the engine). */
  readonly kind: 'table' | 'stream' | 'system'
  readonly name: string
  readonly columns: readonly Column[]
  readonly primaryKey: readonly number[]
  readonly notNull: readonly boolean[]
  readonly defaults: readonly (import('../../planner/index.js').ScalarExpr | undefined)[]
  /** Declared type modifiers (NUMERIC(p, s), VARCHAR(n), CHAR(n)) by column, if any. */
  readonly modifiers?: readonly (TypeModifier | undefined)[]
  readonly store: TableStore
  readonly input: ivm.InputOperator
  readonly watermark?: StreamWatermark
  /** A versioned table (PRIMARY KEY and WATERMARK FOR its version time): the version history
   *  and the input that carries its changes (read by temporal joins). */
  readonly versions?: VersionStore
  readonly versionInput?: ivm.InputOperator
  /** `WITH (tombstone_retention = '1 hour')` in µs: deleted keys are kept that long in
   *  rivulet_tombstones (tombstones.ts). */
  readonly tombstoneRetention?: number
  /** Column defaults and the watermark expression as written in CREATE (for \d). */
  readonly source?: { readonly defaults: readonly (string | undefined)[]; readonly watermark: string | undefined }
}

export interface Subscriber {
  readonly callback: (batch: ChangeBatch) => void
}

export interface ViewEntry {
  readonly kind: 'view' | 'materialized view'
  readonly name: string
  readonly columns: readonly Column[]
  readonly definition: string
  /** Replaced when a relation it reads changes shape (ALTER TABLE: alter-table.ts). */
  plan: DeltaPlan
  /** The view's contents: an integral of its output, or the groups of its final Reduce.
   *  Replaced when the view is rebuilt after an error; while it is in error, an empty
   *  stand-in outside the circuit. */
  sink: ivm.IntegrateOperator | ivm.ReduceViewOperator
  /** The operator each node of `plan` became (shared arrangements included; empty while
   *  the view is in error). */
  operators: ReadonlyMap<DeltaPlan, ivm.Operator>
  /** The operators its render created, in order (what a checkpoint saves for it; shared
   *  arrangements among them are saved by fingerprint instead). Empty while in error. */
  owned: readonly ivm.Operator[]
  /** Set while the view is in error (src/engine/view-errors.ts): it holds no state then. */
  error: MaintenanceError | undefined
  /** Relations the view reads (for DROP dependency checks; ALTER TABLE … RENAME TO renames
   *  one through EngineCatalog.renameReads). */
  readonly dependsOn: Set<string>
  readonly subscribers: Set<Subscriber>
  /** Changes of the open tick, delivered to subscribers at commit. */
  pending: ivm.ZSet
  /** The output columns that are its GROUP BY keys when it has one row per group (what a sink
   *  FROM it keys its rows by), as bound at CREATE. */
  readonly groupKey: readonly number[] | undefined
  /** Output columns a watermark bounds (for views reading this one). */
  readonly watermarks: readonly ColumnWatermark[]
}

export type Entry = TableEntry | ViewEntry

/** The columns of a relation a watermark bounds: a stream's event time; a view's, as
 *  derived when it was created. */
export function watermarksOf(e: Entry): readonly ColumnWatermark[] {
  if (isView(e)) return e.watermarks
  // a versioned table's visible rows change at any version time (a new version retracts the
  // previous one); only its version history is bounded
  if (e.versions) return []
  return e.watermark ? [{ column: e.watermark.column, sources: [e.name], strict: false }] : []
}

/** The catalog key of relation `name` of schema `schema` (see EngineCatalog.schemas). */
export function relationKey(schema: string, name: string): string {
  return schema === 'public' ? name : `${schema}.${name}`
}

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
  /** Tables with a tombstone_retention (the only ones a tick's commit looks at for them). */
  readonly withTombstones = new Set<TableEntry>()

  /** Schemas made by CREATE SCHEMA. `public` always exists and is not listed; pg_catalog and
   *  information_schema are the system's. A relation of schema s is stored under the key
   *  `s.name`, one of public under its bare name (relationKey), so what a release before
   *  schemas logged names the same relations. */
  readonly schemas = new Set<string>()

  /** OIDs (pg_class.oid, …) by relation name, or by a key of another object: given the
   *  first time asked (at CREATE for relations) and kept, so they are stable. */
  readonly #oids = new Map<string, number>()

  /** The OIDs given so far, for a checkpoint. */
  saveOids(): Map<string, number> {
    return this.#oids
  }

  loadOids(oids: Map<string, number>): void {
    oids.forEach((oid, key) => this.#oids.set(key, oid))
  }

  /** A renamed relation keeps its OIDs (its own, its primary key's index and constraint). */
  renameOid(from: string, to: string): void {
    for (const [a, b] of [[from, to], [`\u0000index ${from}`, `\u0000index ${to}`], [`\u0000constraint ${from}`, `\u0000constraint ${to}`]] as const) {
      const oid = this.#oids.get(a)
      if (oid === undefined) continue
      this.#oids.delete(a)
      this.#oids.set(b, oid)
    }
  }

  oidOf(key: string): number {
    let oid = this.#oids.get(key)
    if (oid === undefined) this.#oids.set(key, (oid = 16384 + this.#oids.size))
    return oid
  }

  add(e: Entry): void {
    ;(this.entries as Map<string, Entry>).set(e.name, e)
    this.oidOf(e.name)
    if (!isView(e)) {
      if (e.tombstoneRetention !== undefined) this.withTombstones.add(e)
      return
    }
    if (e.subscribers.size > 0) this.subscribed.add(e)
    for (const d of e.dependsOn) {
      let s = this.#readers.get(d)
      if (s === undefined) this.#readers.set(d, (s = new Set()))
      s.add(e)
    }
  }

  remove(e: Entry): void {
    ;(this.entries as Map<string, Entry>).delete(e.name)
    if (!isView(e)) {
      this.withTombstones.delete(e)
      return
    }
    this.subscribed.delete(e)
    for (const d of e.dependsOn) {
      const s = this.#readers.get(d)
      s?.delete(e)
      if (s?.size === 0) this.#readers.delete(d)
    }
  }

  /** The key of a relation named by its schema (undefined: the search path, i.e. public)
   *  and name; undefined when the schema does not exist (nothing is named in it). */
  keyOf(schema: string | undefined, name: string): string | undefined {
    // a quoted "s.x" in public is not schema s's x (no public relation can have that name)
    if (schema === undefined || schema === 'public') return name.includes('.') && this.splitKey(name).schema !== 'public' ? undefined : name
    return this.schemas.has(schema) ? relationKey(schema, name) : undefined
  }

  /** The key a relation name, qualified or not (`[db.]schema.name`), looks up: in a schema
   *  that does not exist, a key nothing has. */
  lookup(parts: readonly string[]): string {
    const n = parts.length
    return this.keyOf(n > 1 ? parts[n - 2] : undefined, parts[n - 1]!) ?? `\u0000${parts.join('.')}`
  }

  /** Whether the schema of a qualified name exists (an unqualified one's, public, does). */
  schemaExists(parts: readonly string[]): boolean {
    const schema = parts.length > 1 ? parts[parts.length - 2]! : 'public'
    return schema === 'public' || this.schemas.has(schema)
  }

  /** The schema and bare name of a relation's key. */
  splitKey(key: string): { schema: string; name: string } {
    const dot = key.indexOf('.')
    if (dot > 0) {
      for (const s of this.schemas) if (key.length > s.length + 1 && key.startsWith(s) && key[s.length] === '.') return { schema: s, name: key.slice(s.length + 1) }
    }
    return { schema: 'public', name: key }
  }

  getRelation(name: string, schema?: string): CatalogRelation | undefined {
    const key = this.keyOf(schema, name)
    const e = key === undefined ? undefined : this.entries.get(key)
    if (!e) return undefined
    return { name: e.name, kind: e.kind as CatalogRelationKind, columns: e.columns, primaryKey: isView(e) ? [] : e.primaryKey, watermarks: watermarksOf(e), ...(!isView(e) && e.versions ? { versionTime: e.versions.timeColumn } : {}) }
  }

  intervalMicros(e: ScalarExpr): number | undefined {
    let constant = true
    visitExpr(e, (x) => {
      if (x.kind === 'column' || x.kind === 'outerColumn' || x.kind === 'subquery') constant = false
    })
    if (!constant) return undefined
    const v = evaluateConstant(e)
    if (!(v instanceof Interval) || v.months !== 0) return undefined
    return v.days * 86_400_000_000 + v.micros
  }

  /** A relation was renamed: the views reading it read it under its new name. */
  renameReads(from: string, to: string): void {
    const readers = this.#readers.get(from)
    if (readers === undefined) return
    this.#readers.delete(from)
    this.#readers.set(to, readers)
    for (const v of readers) {
      v.dependsOn.delete(from)
      v.dependsOn.add(to)
    }
  }

  dependents(name: string): ViewEntry[] {
    return [...(this.#readers.get(name) ?? [])]
  }
}
