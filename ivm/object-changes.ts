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
// State kept: the two lists since the last take (the inserted one compacted past twice the
// owner's size: dead objects dropped, repeats merged), and two numbers on every object.

/** The marks ObjectChanges keeps on an object (its owner initialises both to 0). */
export interface TrackedObject {
  born: number
  mark: number
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

export class ObjectChanges<T extends TrackedObject> {
  #epoch = ++epochs
  #changed: T[] = []
  #inserted: T[] = []
  #limit: number

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

  /** The object's entry changed in place. */
  changed(value: T): void {
    if (value.mark === this.#epoch) return
    value.mark = this.#epoch
    this.#changed.push(value)
  }

  /** The object left the map. */
  deleted(value: T): void {
    if (value.born === this.#epoch) return
    this.changed(value)
  }

  /** At most this many objects changed. */
  get size(): number {
    return this.#changed.length + this.#inserted.length
  }

  /** The objects changed since the last take, and forgets them. */
  take(): TakenObjects<T> {
    const taken = { changed: this.#changed, inserted: this.#inserted }
    this.#epoch = ++epochs
    this.#changed = []
    this.#inserted = []
    this.#limit = this.compactAtLeast
    return taken
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
