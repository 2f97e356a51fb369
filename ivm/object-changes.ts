// Change tracking for incremental checkpoints (see keyed-state.ts) of a map whose values are
// objects of the operator's own, which churn: most are inserted and deleted again between two
// checkpoints (an interval join's key sides, freed as the watermark passes them). KeyChanges
// records every deletion in a Set of keys, so churn costs a Set insert per key and a Set as
// large as the keys that came and went; here the marks are on the objects instead:
//   born  the take-epoch in which the object was first inserted (0: before tracking, or not
//         yet): an object deleted in the epoch it was born in was in no checkpoint's map, and
//         its deletion is not recorded at all;
//   mark  the epoch in which it was last recorded as changed, so each object is listed once.
// A deletion or an in-place change of an object that may be in the last checkpoint's map puts
// the object in the changed list; an insertion appends it to the inserted list (moved, in
// order, as KeyChanges does). The part is then made from the map as it is at the take: a
// changed object's key with whatever the map holds for it now (nothing: gone), an inserted one
// only while it is still the map's value for its key.
//
// A snapshot (see keyed-state.ts: copy on write) holds the tracker while its chunks are read:
// the first change of an object after the snapshot point, which the owner notes BEFORE making
// it, copies the entry of the object's key as it was, when the object is its map's value (an
// object that is not was not its key's value at the point either: that value, untouched since,
// is read live); an insertion marks the key as absent at the point unless it has a pre-image
// (a key's side inserted after the point had no side then, or one removed since, copied then).
//
// State kept: the two lists since the last take (the inserted one compacted past twice the
// owner's size: dead objects dropped, repeats merged), and two numbers on every object.

import type { ChangeShares, KeyedChunk, KeyedSnapshot } from './keyed-state.js'

/** The marks ObjectChanges keeps on an object (its owner initialises them to 0). */
export interface TrackedObject {
  born: number
  mark: number
  /** The snapshot whose inserted objects it is among, and its last place there (see
   *  ObjectSnapshot: a change after that place needs no pre-image). */
  shot: number
  shotAt: number
}

/** The objects a take() hands over. */
export interface TakenObjects<T> {
  /** Objects that may be in the last checkpoint's map and changed or left since (each once). */
  readonly changed: readonly T[]
  /** Objects inserted since, in order (an object may repeat; a dead one may be listed). */
  readonly inserted: readonly T[]
}

const COMPACT_AT_LEAST = 65_536

/** Epochs are unique across every tracker, so a mark of another (an earlier tracker of the
 *  same owner) never equals the current epoch. */
let epochs = 0

/** A key's pre-image in a snapshot: the object that was its map's value at the point and its
 *  entry then, or none (obj null, entry undefined). */
interface PreImage<T> {
  readonly obj: T | null
  readonly entry: unknown
}

/** What a snapshot in progress asks of its owner's tracker (see the header). */
interface ObjectHold<T> {
  readonly before: Map<string, PreImage<T>>
  /** The key of an object in a part. */
  readonly keyOf: (value: T) => string
  /** A fresh entry of an object now, sharing nothing a later change alters. */
  readonly detach: (value: T) => unknown
  readonly settle: () => void
  /** Whether the snapshot may still read the entry of this object (its map's value now). */
  readonly mayRead: (value: T) => boolean
  /** Whether the snapshot may still read a key absent at its point. */
  readonly mayReadAbsent: () => boolean
}

const NO_PRE_IMAGE: PreImage<never> = { obj: null, entry: undefined }

export class ObjectChanges<T extends TrackedObject> {
  #epoch = ++epochs
  #changed: T[] = []
  #inserted: T[] = []
  #obsolete = 0
  #limit: number
  #hold: ObjectHold<T> | null = null

  /** `live` says whether an object is its map's value for its key now; `ownerSize` is the
   *  map's size (for compacting; tests lower `compactAtLeast`). */
  constructor(
    private readonly live: (value: T) => boolean,
    private readonly ownerSize: () => number,
    private readonly compactAtLeast = COMPACT_AT_LEAST,
  ) {
    this.#limit = compactAtLeast
  }

  /** The object was put in the map (last in its order). */
  inserted(value: T): void {
    const h = this.#hold
    if (h !== null && h.mayReadAbsent()) {
      const k = h.keyOf(value)
      if (!h.before.has(k)) h.before.set(k, NO_PRE_IMAGE)
    }
    if (value.born === 0) {
      // new: no checkpoint's map has it, and its changes until the take are in its entry
      value.born = this.#epoch
      value.mark = this.#epoch
    }
    // (an object put back — a rollback — keeps its marks: its removal was recorded)
    const list = this.#inserted
    list.push(value)
    if (list.length > this.#limit) this.#compact()
  }

  /** The object's entry is about to change in place. */
  changed(value: T): void {
    if (value.mark === this.#epoch) return
    value.mark = this.#epoch
    this.#changed.push(value)
    // first change since the take (the mark): a snapshot copies it if it is its map's value
    const h = this.#hold
    if (h !== null && h.mayRead(value) && this.live(value)) {
      const k = h.keyOf(value)
      if (!h.before.has(k)) h.before.set(k, { obj: value, entry: h.detach(value) })
    }
  }

  /** The object is about to leave the map. */
  deleted(value: T): void {
    if (value.born === this.#epoch) return
    this.#obsolete++
    this.changed(value)
  }

  /** Whether the object was first inserted since the last take (a fuzzy base begun then
   *  leaves it to the delta: see fuzzyObjectBase). */
  bornSinceTake(value: T): boolean {
    return value.born === this.#epoch
  }

  /** At most this many objects changed. */
  get size(): number {
    return this.#changed.length + this.#inserted.length
  }

  /** How much of the owner changed since the last take (see ChangeShares). */
  get shares(): ChangeShares {
    const keys = Math.max(1, this.ownerSize())
    return { changed: this.size / keys, obsolete: this.#obsolete / keys }
  }

  /** The objects changed since the last take, and forgets them. */
  take(): TakenObjects<T> {
    const taken = { changed: this.#changed, inserted: this.#inserted }
    this.#epoch = ++epochs
    this.#changed = []
    this.#inserted = []
    this.#obsolete = 0
    this.#limit = this.compactAtLeast
    return taken
  }

  /** A snapshot starts reading the owner (one at a time). */
  hold(h: ObjectHold<T>): void {
    if (this.#hold !== null && this.#hold !== h) throw new Error('internal: a second snapshot of one owner while the first is in progress')
    this.#hold = h
  }

  release(h: ObjectHold<T>): void {
    if (this.#hold === h) this.#hold = null
  }

  /** The owner is about to be reset: a snapshot in progress copies what it has left first. */
  settle(): void {
    this.#hold?.settle()
  }

  /** Keeps each live object once, at its last insertion (the one just appended as it is: an
   *  owner may note an insert just before making it). */
  #compact(): void {
    this.#limit = Math.max(this.compactAtLeast, 2 * this.ownerSize())
    const list = this.#inserted
    if (list.length <= this.#limit) return
    const seen = new Set<T>()
    const kept: T[] = []
    for (let i = list.length - 1; i >= 0; i--) {
      const v = list[i]!
      if (seen.has(v) || (i !== list.length - 1 && !this.live(v))) continue
      seen.add(v)
      kept.push(v)
    }
    kept.reverse()
    this.#inserted = kept
    this.#limit = Math.max(this.compactAtLeast, 2 * this.ownerSize(), 2 * kept.length)
  }
}

/** A keyed part of a map of objects (see keyed-state.ts: KeyedSnapshot) fixed at this point: a
 *  base of `all` (the objects in the maps now, in order), or the objects `taken` from the
 *  tracker (which holds on from here). `valueOf` reads the map's value for an object's key now,
 *  `live` whether an object is it, `entryOf` an object's entry (for a snapshot: fresh, sharing
 *  nothing its later changes alter). Objects born after the point are never asked about. */
export function snapshotObjects<T extends TrackedObject>(
  tracker: ObjectChanges<T>,
  all: readonly T[] | null,
  taken: TakenObjects<T> | null,
  keyOf: (value: T) => string,
  valueOf: (value: T) => T | undefined,
  entryOf: (value: T) => unknown,
): KeyedSnapshot {
  return new ObjectSnapshot(tracker, all, taken, keyOf, valueOf, entryOf)
}

/** Numbers snapshots (TrackedObject.shot). */
let shots = 0

class ObjectSnapshot<T extends TrackedObject> implements KeyedSnapshot {
  readonly whole = null
  readonly base: boolean
  /** Objects to hand out: a base's, or a delta's changed ones then (from #firstMoved) its
   *  inserted ones. */
  readonly #objects: readonly T[]
  readonly #firstMoved: number
  #at = 0
  readonly #hold: ObjectHold<T>
  #released = false

  constructor(
    private readonly tracker: ObjectChanges<T>,
    all: readonly T[] | null,
    taken: TakenObjects<T> | null,
    private readonly keyOf: (value: T) => string,
    private readonly valueOf: (value: T) => T | undefined,
    private readonly entryOf: (value: T) => unknown,
  ) {
    this.base = all !== null
    if (all !== null) {
      this.#objects = all
      this.#firstMoved = all.length
    } else {
      this.#objects = taken!.inserted.length === 0 ? taken!.changed : taken!.changed.concat(taken!.inserted)
      this.#firstMoved = taken!.changed.length
    }
    // each inserted object's last place (one pass; a change of it after that place needs no
    // pre-image: every place that reads its entry is written)
    const id = ++shots
    const objects = this.#objects
    const base = this.base
    for (let i = objects.length - 1; i >= (base ? 0 : this.#firstMoved); i--) {
      const o = objects[i]!
      if (o.shot === id) continue
      o.shot = id
      o.shotAt = i
    }
    this.#hold = {
      before: new Map(),
      keyOf,
      detach: entryOf,
      settle: () => this.settle(),
      // a changed object's place reads its key's value at the point, whichever object that
      // is: until they are all written, any; then an inserted one, until its last place
      // (a base's objects are its map's values at the point, each read by its own place)
      mayRead: (value) => (!base && this.#at < this.#firstMoved) || (value.shot === id && value.shotAt >= this.#at),
      // (an inserted object's place reads only itself: a key absent at the point is read by a
      // changed object's place only, and by none in a base)
      mayReadAbsent: () => !base && this.#at < this.#firstMoved,
    }
    if (objects.length > 0) tracker.hold(this.#hold)
    else this.#released = true
  }

  next(max: number): KeyedChunk | null {
    const objects = this.#objects
    if (this.#at >= objects.length) {
      this.close()
      return null
    }
    const before = this.#hold.before
    const keys: string[] = []
    const values: unknown[] = []
    const moved: boolean[] | null = this.base ? null : []
    const end = Math.min(objects.length, this.#at + Math.max(1, max))
    for (let i = this.#at; i < end; i++) {
      const o = objects[i]!
      const k = this.keyOf(o)
      const pre = before.size !== 0 ? before.get(k) : undefined
      if (this.base) {
        // every object of a base was its map's value at the point
        keys.push(k)
        values.push(pre !== undefined ? pre.entry : this.entryOf(o))
      } else if (i < this.#firstMoved) {
        // a changed object's key as its map had it at the point (nothing: gone)
        let entry: unknown
        if (pre !== undefined) entry = pre.entry
        else {
          const now = this.valueOf(o)
          entry = now === undefined ? undefined : this.entryOf(now)
        }
        keys.push(k)
        values.push(entry)
        moved!.push(false)
      } else {
        // an inserted object, if it was still its map's value at the point
        if (pre !== undefined ? pre.obj !== o : this.valueOf(o) !== o) continue
        keys.push(k)
        values.push(pre !== undefined ? pre.entry : this.entryOf(o))
        moved!.push(true)
      }
    }
    this.#at = end
    if (end >= objects.length) this.close()
    return { keys, values, moved }
  }

  settle(): void {
    const before = this.#hold.before
    const objects = this.#objects
    for (let i = this.#at; i < objects.length; i++) {
      const o = objects[i]!
      const k = this.keyOf(o)
      if (before.has(k)) continue
      const now = this.valueOf(o)
      before.set(k, now === undefined ? NO_PRE_IMAGE : { obj: now, entry: this.entryOf(now) })
    }
  }

  close(): void {
    if (this.#released) return
    this.#released = true
    this.tracker.release(this.#hold)
  }
}

/** A base of maps of objects read while ticks go on (see fuzzyKeyedBase): each object's entry
 *  as the chunk that reads it finds it, the maps one after the other, each read up to as many
 *  objects as it held when this began. Exact with the delta a snapshot of `tracker` — a tracker
 *  started when this began — takes afterwards. An object `bornSince` this began is left out:
 *  the delta lists it if it is still there, and its deletion in the tracker's first epoch is
 *  not recorded (so a base that had read it would keep it). */
export function fuzzyObjectBase<T>(maps: readonly ReadonlyMap<unknown, T>[], keyOf: (value: T) => string, entryOf: (value: T) => unknown, bornSince: (value: T) => boolean): KeyedSnapshot {
  const its = maps.map((m) => ({ it: m.values(), left: m.size }))
  let at = 0
  return {
    whole: null,
    base: true,
    next(max: number): KeyedChunk | null {
      while (at < its.length && its[at]!.left <= 0) at++
      if (at >= its.length) return null
      const keys: string[] = []
      const values: unknown[] = []
      for (let n = Math.max(1, max); n > 0 && at < its.length; ) {
        const cur = its[at]!
        if (cur.left <= 0) {
          at++
          continue
        }
        const r = cur.it.next()
        if (r.done === true) {
          cur.left = 0
          continue
        }
        cur.left--
        if (bornSince(r.value)) continue
        n--
        keys.push(keyOf(r.value))
        values.push(entryOf(r.value))
      }
      return { keys, values, moved: null }
    },
    settle: () => {},
    close: () => {
      at = its.length
    },
  }
}
