// Keyed state for incremental checkpoints: an operator whose state is a map of keys records
// which keys changed since a checkpoint last asked, so the next checkpoint writes only those
// entries, and a pause proportional to the change rather than to the state.
//
// A checkpoint of such an operator is a base (every key) followed by deltas (the keys changed
// since the previous checkpoint: their entries, or "gone"). Merging them in order must give
// back the map exactly, in its iteration order too (operators read their maps in order, and
// some outputs follow it). A JS Map keeps a key where it was when its value is replaced, and
// puts it last when it is inserted (again). So KeyChanges notes, per changed key, whether it was
// (re)inserted, and moves such a key to the end of its own order: merging sets replaced keys
// in place and deletes-then-sets inserted ones, which puts them last in the order they were
// last inserted — as in the live map.
//
// State kept: Map<key, inserted since the last take> in first-change order (inserted keys
// moved to the end).

import type { RowKey } from './key.js'

export class KeyChanges {
  #keys = new Map<RowKey, boolean>()

  /** The key was added to the map (it is now last in the map's order). */
  inserted(key: RowKey): void {
    const m = this.#keys
    m.delete(key)
    m.set(key, true)
  }

  /** The key's entry changed in place (its place in the map's order is kept). */
  changed(key: RowKey): void {
    if (!this.#keys.has(key)) this.#keys.set(key, false)
  }

  /** The key left the map. */
  deleted(key: RowKey): void {
    this.#keys.set(key, true)
  }

  get size(): number {
    return this.#keys.size
  }

  /** The keys changed since the last take (key → whether it was inserted), and forgets them. */
  take(): Map<RowKey, boolean> {
    const m = this.#keys
    this.#keys = new Map()
    return m
  }
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

/** Saves a part: every key of `entries` (a base, when `changes` is null) or the keys changed. */
export function saveKeyedPart<V>(whole: unknown, entries: ReadonlyMap<RowKey, V>, changes: Map<RowKey, boolean> | null, entryOf: (value: V, key: RowKey) => unknown): KeyedPart {
  if (changes === null) {
    const keys = new Array<RowKey>(entries.size)
    const values = new Array<unknown>(entries.size)
    let i = 0
    entries.forEach((v, k) => {
      keys[i] = k
      values[i++] = entryOf(v, k)
    })
    return { whole, keys, values, moved: null }
  }
  const keys = new Array<RowKey>(changes.size)
  const values = new Array<unknown>(changes.size)
  const moved = new Array<boolean>(changes.size)
  let i = 0
  changes.forEach((m, k) => {
    const v = entries.get(k)
    keys[i] = k
    values[i] = v === undefined ? undefined : entryOf(v, k)
    moved[i++] = m
  })
  return { whole, keys, values, moved }
}

/** Entries by key, in map order: `values[i]` is the entry of `keys[i]`. */
export interface KeyedEntries {
  readonly keys: readonly RowKey[]
  readonly values: readonly unknown[]
}

const GONE: unique symbol = Symbol('gone')

/** A key some delta changed: its newest entry (GONE once deleted), whether it was (re)inserted
 *  (then it follows the base's keys), and whether the pass over the base has placed it. */
interface LateEntry {
  value: unknown
  moved: boolean
  placed: boolean
}

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
        if (e !== undefined) e.value = GONE
        else late.set(k, { value: GONE, moved: false, placed: false })
      } else if (moved[i]) {
        late.delete(k)
        late.set(k, { value: v, moved: true, placed: false })
      } else if (e !== undefined) e.value = v
      else late.set(k, { value: v, moved: false, placed: false })
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
        if (e.value !== GONE) {
          keys.push(k)
          values.push(e.value)
        }
      }
    }
  }
  late.forEach((e, k) => {
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
   *  state (the caller serializes it before the next step). */
  saveKeyed(all: boolean): KeyedPart
  /** Puts back a merged checkpoint (see mergeKeyedParts) into a freshly built one, which then
   *  records changes from here (as after `saveKeyed(true)`). */
  loadKeyed(whole: unknown, entries: KeyedEntries): void
}
