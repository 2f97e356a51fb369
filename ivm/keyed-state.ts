// Keyed state for incremental checkpoints: an operator whose state is a map of keys records
// which keys changed since a checkpoint last asked, so the next checkpoint writes only those
// entries, and a pause proportional to the change rather than to the state.
//
// A checkpoint of such an operator is a base (every key) followed by deltas (the keys changed
// since the previous checkpoint: their entries, or "gone"). Merging them in order must give
// back the map exactly, in its iteration order too (operators read their maps in order, and
// some outputs follow it). A JS Map keeps a key where it was when its value is replaced, and
// puts it last when it is inserted (again). So a delta marks the (re)inserted keys as moved,
// in the order they were inserted: merging sets replaced keys in place and deletes-then-sets
// moved ones, which puts them last in the order they were last inserted — as in the live map.
//
// Recording a change must cost next to nothing: it runs for every row a tick changes. A key
// changed in place or deleted goes into a Set (a hot key, changed by every tick, costs one
// lookup); a key inserted is appended to a list — most changes of an ingest are inserts of new
// keys, and an append costs a fraction of a Map insert and its rehashing. The part lists the
// changed keys first (not moved: their place is the one they had), then the inserted ones in
// order with `moved` set; the merge moves a moved key to the end each time it meets it, so a key
// inserted twice ends where its last insertion put it, as in the live map. An inserted key
// absent when the part is saved is left out (if it was in the base, its deletion is in the Set).
//
// State kept: the Set of keys changed or deleted, and the list of keys inserted, since the last
// take; the list is compacted (keys no longer present dropped, repeats merged) once it outgrows
// twice the owner's map, so churn on a few keys cannot grow it without bound.
//
// A checkpoint need not write its part between two ticks: a KeyedSnapshot fixes the part at a
// point between ticks (the "snapshot point") and hands it out in chunks while ticks go on, so a
// checkpoint's pause is a chunk, not the change since the last one. Copy on write makes that
// exact: while a snapshot holds the tracker, the first change of a key after the point copies
// the key's entry as it was (its "pre-image", `detach`) before the change is made, and the
// chunks read a key's pre-image when it has one, else the live entry (unchanged since the
// point). So every owner calls changed() and deleted() BEFORE it changes or removes the key's
// value (inserted() may come before or after: the key was absent). A key absent at the point
// needs a pre-image only if the part lists it (it was deleted since the part before): such a
// key is among the taken changed keys, which inserted() checks. Without a snapshot the hooks
// cost one more null test.

import type { RowKey } from './key.js'

/** The changes a take() hands over. */
export interface TakenChanges {
  readonly changed: ReadonlySet<RowKey>
  readonly inserted: readonly RowKey[]
}

const COMPACT_AT_LEAST = 65_536

/** How much of an owner changed since its last part, as shares of its keys now: `changed`
 *  counts every change noted (repeats and insertions too: 1 or more is about all of them),
 *  `obsolete` the changes that made a key's entry in the last part wrong (deleted, or changed
 *  other than by rows appended) — what tells a state that turned over (a window's rows freed,
 *  a join side's keys gone, a table updated whole) from one that grew, whose last part stays
 *  good. */
export interface ChangeShares {
  readonly changed: number
  readonly obsolete: number
}

/** What an owner that records no changes yet reports: a part now would be a base anyway. */
export const ALL_CHANGED: ChangeShares = { changed: Infinity, obsolete: Infinity }

/** What a snapshot in progress asks of its owner's tracker (see the header). */
interface SnapshotHold {
  /** Pre-images: per key changed since the snapshot point, its entry then (undefined: absent). */
  readonly before: Map<RowKey, unknown>
  /** Keys that may be absent at the point and still listed: the taken changed keys (a delta),
   *  none for a base (it lists the keys present at the point only). */
  readonly absentListed: ReadonlySet<RowKey> | null
  /** Keys inserted since the point that the snapshot does not list (absent at the point and
   *  not listed absent): nothing of theirs is written, so their later changes copy nothing —
   *  a copy would also mark a bucket as written (the entries' detach), which it was not. */
  readonly born: Set<RowKey>
  /** The entry of the key's value now, sharing nothing a later change may alter. */
  readonly detach: (key: RowKey) => unknown
  /** Copies the pre-image of every key not handed out yet (KeyedSnapshot.settle). */
  readonly settle: () => void
}

export class KeyChanges {
  #changed = new Set<RowKey>()
  #inserted: RowKey[] = []
  #obsolete = 0
  #limit: number
  /** The snapshot reading the owner, if one is in progress. */
  #hold: SnapshotHold | null = null

  /** `present` and `ownerSize` read the owner's map (for compacting the inserted keys, which
   *  happens past `compactAtLeast` of them at the soonest: tests lower it). */
  constructor(
    private readonly present: (key: RowKey) => boolean,
    private readonly ownerSize: () => number,
    private readonly compactAtLeast = COMPACT_AT_LEAST,
  ) {
    this.#limit = compactAtLeast
  }

  /** The key was added to the map (it is now last in the map's order, or is about to be). */
  inserted(key: RowKey): void {
    const h = this.#hold
    if (h !== null && !h.before.has(key)) {
      if (h.absentListed !== null && h.absentListed.has(key)) h.before.set(key, undefined)
      else h.born.add(key)
    }
    const list = this.#inserted
    list.push(key)
    if (list.length > this.#limit) this.#compact()
  }

  /** The key's entry is about to change in place (its place in the map's order is kept);
   *  `appended`: only by rows added after the ones it has (see ChangeShares). */
  changed(key: RowKey, appended = false): void {
    const h = this.#hold
    if (h !== null && !h.before.has(key) && !h.born.has(key)) h.before.set(key, h.detach(key))
    this.#changed.add(key)
    if (!appended) this.#obsolete++
  }

  /** The key is about to leave the map. */
  deleted(key: RowKey): void {
    const h = this.#hold
    if (h !== null && !h.before.has(key) && !h.born.has(key)) h.before.set(key, h.detach(key))
    this.#changed.add(key)
    this.#obsolete++
  }

  /** At most this many keys changed (an inserted key may be counted more than once). */
  get size(): number {
    return this.#changed.size + this.#inserted.length
  }

  /** How much of the owner changed since the last take (see ChangeShares). */
  get shares(): ChangeShares {
    const keys = Math.max(1, this.ownerSize())
    return { changed: this.size / keys, obsolete: this.#obsolete / keys }
  }

  /** The keys changed since the last take, and forgets them. */
  take(): TakenChanges {
    const taken = { changed: this.#changed, inserted: this.#inserted }
    this.#changed = new Set()
    this.#inserted = []
    this.#obsolete = 0
    this.#limit = this.compactAtLeast
    return taken
  }

  /** A snapshot starts reading the owner (one at a time). */
  hold(h: SnapshotHold): void {
    if (this.#hold !== null && this.#hold !== h) throw new Error('internal: a second snapshot of one owner while the first is in progress')
    this.#hold = h
  }

  /** The snapshot is done with the owner. */
  release(h: SnapshotHold): void {
    if (this.#hold === h) this.#hold = null
  }

  /** The owner is about to be reset (cleared, loaded): a snapshot in progress copies what it
   *  has yet to hand out first. */
  settle(): void {
    this.#hold?.settle()
  }

  /** Keeps each present key once, at its last insertion (the key just appended is kept as is:
   *  an owner may note an insert just before making it). */
  #compact(): void {
    this.#limit = Math.max(this.compactAtLeast, 2 * this.ownerSize())
    const list = this.#inserted
    if (list.length <= this.#limit) return
    const last = new Map<RowKey, number>()
    for (let i = 0; i < list.length; i++) last.set(list[i]!, i)
    const kept: RowKey[] = []
    for (let i = 0; i < list.length; i++) {
      const k = list[i]!
      if (last.get(k) === i && (i === list.length - 1 || this.present(k))) kept.push(k)
    }
    this.#inserted = kept
    this.#limit = Math.max(this.compactAtLeast, 2 * this.ownerSize(), 2 * kept.length)
  }
}

/** Each change in the order a part lists it: the changed keys (not moved), then the inserted
 *  ones (moved). */
export function forEachChange(changes: TakenChanges, f: (key: RowKey, moved: boolean) => void): void {
  changes.changed.forEach((k) => f(k, false))
  const inserted = changes.inserted
  for (let i = 0; i < inserted.length; i++) f(inserted[i]!, true)
}

/** A keyed state's checkpoint part: the small part saved whole, and entries by key. In a
 *  base, every key with `moved` null; in a delta, the changed keys, with `undefined` for a key
 *  that is gone and `moved[i]` for a key (re)inserted since the previous part. */
export interface KeyedPart {
  readonly whole: unknown
  readonly keys: readonly RowKey[]
  readonly values: readonly unknown[]
  readonly moved: readonly boolean[] | null
}

/** A delta's entry that says "the rows before, then these": rows appended to the key's entry in
 *  the part before (a row, or a bucket {r, w}) which held `after` rows — an arrangement's bucket
 *  that only grew since, so a checkpoint writes what was added rather than the whole bucket. */
export interface AppendedRows {
  readonly after: number
  readonly r: readonly (readonly unknown[])[]
  readonly w: readonly number[]
}

/** Whether a part's entry is an AppendedRows (its exact shape: no other owner's entry has it). */
export function isAppendedRows(v: unknown): v is AppendedRows {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const a = v as Partial<AppendedRows>
  return typeof a.after === 'number' && Array.isArray(a.r) && Array.isArray(a.w) && Object.keys(v).length === 3
}

/** The entry `a` extends, with its rows appended (a new entry: the one before is not changed). */
function appendRows(before: unknown, a: AppendedRows, key: RowKey): unknown {
  const rows = Array.isArray(before) ? [before] : (before as { r?: unknown[] } | null)?.r
  const weights = Array.isArray(before) ? [1] : (before as { w?: number[] } | null)?.w
  if (!Array.isArray(rows) || !Array.isArray(weights) || rows.length !== a.after) {
    throw new Error(`a checkpoint part appends rows to the ${a.after} rows of key ${String(key)}, which holds ${Array.isArray(rows) ? rows.length : 'no rows'}`)
  }
  return { r: rows.concat(a.r), w: weights.concat(a.w) }
}

/** Saves a part: every key of `entries` (a base, when `changes` is null) or the keys changed;
 *  `entryOf`'s `inPlace` says the key had an entry in the part before and keeps its place (it
 *  may then return AppendedRows). */
export function saveKeyedPart<V>(whole: unknown, entries: ReadonlyMap<RowKey, V>, changes: TakenChanges | null, entryOf: (value: V, key: RowKey, inPlace: boolean) => unknown): KeyedPart {
  if (changes === null) {
    const keys = new Array<RowKey>(entries.size)
    const values = new Array<unknown>(entries.size)
    let i = 0
    entries.forEach((v, k) => {
      keys[i] = k
      values[i++] = entryOf(v, k, false)
    })
    return { whole, keys, values, moved: null }
  }
  const keys: RowKey[] = []
  const values: unknown[] = []
  const moved: boolean[] = []
  forEachChange(changes, (k, m) => {
    const v = entries.get(k)
    // an inserted key gone since: its deletion, if it mattered, is among the changed keys
    if (m && v === undefined) return
    keys.push(k)
    values.push(v === undefined ? undefined : entryOf(v, k, !m))
    moved.push(m)
  })
  return { whole, keys, values, moved }
}

/** A chunk of a part a snapshot hands out: its entries go on from the chunk before. */
export interface KeyedChunk {
  readonly keys: readonly RowKey[]
  readonly values: readonly unknown[]
  /** null in a base (see KeyedPart.moved). */
  readonly moved: readonly boolean[] | null
}

/** A part fixed at a point between ticks and read in chunks while ticks go on (see the header):
 *  the chunks, in order, concatenated, are the part saveKeyedPart would have made at that point. */
export interface KeyedSnapshot {
  /** The part's small part saved whole (taken at the point). */
  readonly whole: unknown
  /** Whether the part is a base. */
  readonly base: boolean
  /** The next chunk, of at most `max` keys considered, or null once every key was handed out
   *  (the snapshot then releases its owner). A chunk may share objects with the live state:
   *  encode it before the next tick. */
  next(max: number): KeyedChunk | null
  /** Copies the pre-image of every key not handed out yet (the owner is about to be reset, or
   *  the caller wants the rest without a later tick's help). */
  settle(): void
  /** Gives up: the owner is released (what it noted for the next part stays). */
  close(): void
}

/** A snapshot of a map of keys at this point: every key (`changes` null) or the changed ones.
 *  `tracker` records the owner's changes from here (it is held until the snapshot is done);
 *  `entryOf` as for saveKeyedPart; `detach` the entry of a key's value now, as entryOf(value,
 *  key, false) would give it but sharing nothing a later change may alter. */
export function snapshotKeyedPart<V>(
  whole: unknown,
  entries: ReadonlyMap<RowKey, V>,
  changes: TakenChanges | null,
  tracker: KeyChanges,
  entryOf: (value: V, key: RowKey, inPlace: boolean) => unknown,
  detach: (value: V, key: RowKey) => unknown,
): KeyedSnapshot {
  return new MapSnapshot(whole, entries, changes, tracker, entryOf, detach)
}

class MapSnapshot<V> implements KeyedSnapshot {
  readonly base: boolean
  /** The keys to hand out, in order: a base's keys in map order, or a delta's changed keys,
   *  then (from #firstMoved on) its inserted ones. */
  readonly #keys: readonly RowKey[]
  readonly #firstMoved: number
  #at = 0
  readonly #hold: SnapshotHold
  #released = false

  constructor(
    readonly whole: unknown,
    private readonly entries: ReadonlyMap<RowKey, V>,
    changes: TakenChanges | null,
    private readonly tracker: KeyChanges,
    private readonly entryOf: (value: V, key: RowKey, inPlace: boolean) => unknown,
    detach: (value: V, key: RowKey) => unknown,
  ) {
    this.base = changes === null
    if (changes === null) {
      this.#keys = Array.from(entries.keys())
      this.#firstMoved = this.#keys.length
    } else {
      const changed = Array.from(changes.changed)
      this.#firstMoved = changed.length
      this.#keys = changes.inserted.length === 0 ? changed : changed.concat(changes.inserted)
    }
    this.#hold = {
      before: new Map(),
      absentListed: changes === null ? null : changes.changed,
      born: new Set(),
      detach: (key) => {
        const v = entries.get(key)
        return v === undefined ? undefined : detach(v, key)
      },
      settle: () => this.settle(),
    }
    if (this.#keys.length > 0) tracker.hold(this.#hold)
    else this.#released = true
  }

  next(max: number): KeyedChunk | null {
    const keysAll = this.#keys
    if (this.#at >= keysAll.length) {
      this.close()
      return null
    }
    const before = this.#hold.before
    const entries = this.entries
    const keys: RowKey[] = []
    const values: unknown[] = []
    const moved: boolean[] | null = this.base ? null : []
    const end = Math.min(keysAll.length, this.#at + Math.max(1, max))
    for (let i = this.#at; i < end; i++) {
      const k = keysAll[i]!
      const m = i >= this.#firstMoved
      let entry: unknown
      if (before.size !== 0 && before.has(k)) entry = before.get(k)
      else {
        const v = entries.get(k)
        entry = v === undefined ? undefined : this.entryOf(v, k, !this.base && !m)
      }
      // an inserted key gone since: its deletion, if it mattered, is among the changed keys
      if (m && entry === undefined) continue
      keys.push(k)
      values.push(entry)
      moved?.push(m)
    }
    this.#at = end
    if (end >= keysAll.length) this.close()
    return { keys, values, moved }
  }

  settle(): void {
    const before = this.#hold.before
    const keysAll = this.#keys
    for (let i = this.#at; i < keysAll.length; i++) {
      const k = keysAll[i]!
      if (!before.has(k)) before.set(k, this.#hold.detach(k))
    }
  }

  close(): void {
    if (this.#released) return
    this.#released = true
    this.tracker.release(this.#hold)
  }
}

/** A copy of plain data (arrays, plain objects, Maps, Sets) down to what it holds of anything
 *  else (numbers, strings, the engine's immutable value classes), which is shared: a pre-image
 *  of an operator's entry whose parts change in place (an aggregate's accumulator). */
export function copyPlainData(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length)
    for (let i = 0; i < v.length; i++) out[i] = copyPlainData(v[i])
    return out
  }
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>()
    v.forEach((x, k) => out.set(k, copyPlainData(x)))
    return out
  }
  if (v instanceof Set) return new Set(v)
  const proto = Object.getPrototypeOf(v) as unknown
  if (proto !== Object.prototype && proto !== null) return v
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v)) out[k] = copyPlainData((v as Record<string, unknown>)[k])
  return out
}

/** A base read while ticks go on (a "fuzzy" base): each key's entry as the chunk that reads it
 *  finds it, in the map's order, every key present when it began read at least once. Exact only
 *  with the delta a snapshot takes afterwards from `tracker`, a tracker started when this base
 *  began: every key changed since is in that delta — its entry at the delta's point, gone, or
 *  moved — and the keys no change touched are read as they are at that point. A key deleted and
 *  inserted again after it was read is read twice (the delta moves it, which drops both). So a
 *  checkpoint writes a big owner's base before its point, without a copy on write or a list of
 *  its keys. */
export function fuzzyKeyedBase<V>(whole: unknown, entries: ReadonlyMap<RowKey, V>, entryOf: (value: V, key: RowKey, inPlace: boolean) => unknown): KeyedSnapshot {
  // the map's entries in its order, live: a key inserted meanwhile comes after every key there
  // at the start, so reading as many as there were then reads all of those still there
  const it = entries.entries()
  let left = entries.size
  return {
    whole,
    base: true,
    next(max: number): KeyedChunk | null {
      if (left <= 0) return null
      const keys: RowKey[] = []
      const values: unknown[] = []
      for (let n = Math.min(left, Math.max(1, max)); n > 0; n--) {
        const r = it.next()
        if (r.done === true) {
          left = 0
          break
        }
        left--
        const [k, v] = r.value
        keys.push(k)
        values.push(entryOf(v, k, false))
      }
      return { keys, values, moved: null }
    },
    settle: () => {},
    close: () => {
      left = 0
    },
  }
}

/** Every chunk of a snapshot at once, as one part (what saveKeyedPart gives at its point). */
export function drainSnapshot(s: KeyedSnapshot): KeyedPart {
  const keys: RowKey[] = []
  const values: unknown[] = []
  const moved: boolean[] | null = s.base ? null : []
  for (let c = s.next(Infinity); c !== null; c = s.next(Infinity)) {
    for (let i = 0; i < c.keys.length; i++) {
      keys.push(c.keys[i]!)
      values.push(c.values[i])
      moved?.push(c.moved![i]!)
    }
  }
  return { whole: s.whole, keys, values, moved }
}

/** Entries by key, in map order: `values[i]` is the entry of `keys[i]`. */
export interface KeyedEntries {
  readonly keys: readonly RowKey[]
  readonly values: readonly unknown[]
}

const GONE: unique symbol = Symbol('gone')

/** A key some delta changed: its newest entry (GONE once deleted), whether it was (re)inserted
 *  (then it follows the base's keys), and whether the pass over the base has placed it.
 *  `appends`: rows appended to the base's entry, which the pass over the base resolves (the
 *  value is then BASE). */
interface LateEntry {
  value: unknown
  moved: boolean
  placed: boolean
  appends?: AppendedRows[]
}

const BASE: unique symbol = Symbol('base')

/** Folds a base and its deltas, in order, into each key's entry in map order (and the newest
 *  whole part) — what applying them to a Map one by one gives, without building that Map: only
 *  the keys the deltas changed are looked up, and a base alone is returned as it is. */
export function mergeKeyedParts(parts: readonly KeyedPart[]): { whole: unknown; entries: KeyedEntries } {
  let head: KeyedPart | null = null
  let whole: unknown = undefined
  const late = new Map<RowKey, LateEntry>()
  for (const p of parts) {
    whole = p.whole
    const { keys, values, moved } = p
    if (moved === null) {
      head = p
      late.clear()
      continue
    }
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!
      const v = values[i]
      const e = late.get(k)
      if (v === undefined) {
        if (e !== undefined) {
          e.value = GONE
          e.appends = undefined
        } else late.set(k, { value: GONE, moved: false, placed: false })
      } else if (moved[i]) {
        late.delete(k)
        late.set(k, { value: v, moved: true, placed: false })
      } else if (isAppendedRows(v)) {
        // on the key's newest entry: a delta's, or the base's (found by the pass over it)
        if (e === undefined) late.set(k, { value: BASE, moved: false, placed: false, appends: [v] })
        else if (e.value === BASE) e.appends!.push(v)
        else e.value = appendRows(e.value === GONE ? undefined : e.value, v, k)
      } else if (e !== undefined) {
        e.value = v
        e.appends = undefined
      } else late.set(k, { value: v, moved: false, placed: false })
    }
  }
  if (late.size === 0) return { whole, entries: head === null ? { keys: [], values: [] } : { keys: head.keys, values: head.values } }
  const keys: RowKey[] = []
  const values: unknown[] = []
  if (head !== null) {
    const hk = head.keys
    const hv = head.values
    for (let i = 0; i < hk.length; i++) {
      const k = hk[i]!
      const e = late.get(k)
      if (e === undefined) {
        keys.push(k)
        values.push(hv[i])
      } else if (!e.moved) {
        e.placed = true
        if (e.value === BASE) {
          let value: unknown = hv[i]
          for (const a of e.appends!) value = appendRows(value, a, k)
          e.value = value
        }
        if (e.value !== GONE) {
          keys.push(k)
          values.push(e.value)
        }
      }
    }
  }
  late.forEach((e, k) => {
    if (e.value === BASE && !e.placed) throw new Error(`a checkpoint part appends rows to key ${String(k)}, which its base does not hold`)
    if (e.placed || e.value === GONE) return
    keys.push(k)
    values.push(e.value)
  })
  return { whole, entries: { keys, values } }
}

/** An operator (or store) whose checkpoints can be incremental. */
export interface KeyedCheckpoint {
  /** Its state as a part: every key (`all`), which also starts recording changes, or the keys
   *  changed since the previous call. Between ticks only; may share objects with the live
   *  state (the caller serializes it before the next step). The plain form of snapshotKeyed,
   *  which the tests hold it to. */
  saveKeyed(all: boolean): KeyedPart
  /** Puts back a merged checkpoint (see mergeKeyedParts) into a freshly built one, which then
   *  records changes from here (as after `saveKeyed(true)`). */
  loadKeyed(whole: unknown, entries: KeyedEntries): void
  /** The part saveKeyed(all) would give now, fixed here and read in chunks while ticks go on
   *  (see KeyedSnapshot); until it is done, no saveKeyed or second snapshot. */
  snapshotKeyed(all: boolean): KeyedSnapshot
  /** A base read while ticks go on, made exact by the delta a snapshotKeyed(false) takes once it
   *  is read (see fuzzyKeyedBase); it starts recording changes afresh. */
  fuzzyBaseKeyed(): KeyedSnapshot
  /** How much of it changed since the last part (ChangeShares): a state that changed about all
   *  its keys, or turned over, costs no more as a base than as a delta, and a base spares
   *  recovery and the base rewrite the merge. */
  changeShares?(): ChangeShares
}
