// Keys and objects born while a checkpoint's snapshot or fuzzy base is being read, which the
// oracle harness's keyed-snapshot checks found mishandled:
// - Arrangement (copy on write): a snapshot copies a key's entry at its first change after the
//   point, and copying a bucket marks it written (its next part may hold only the rows appended
//   since). A key born after the point is not in the snapshot, so its changes must copy
//   nothing — a copy had marked the new bucket as written with its first row, the next delta
//   then wrote "rows appended after 1" for a key no part held, and merging the parts failed
//   (join oracle, seed -650634250).
// - ObjectChanges (an interval join's key sides): a fuzzy base reads the live maps, and an
//   object born after it began and deleted before the delta is not recorded as deleted (born in
//   the tracker's epoch); a base that had read it kept it (interval-join oracle, seed
//   -266753744).
import { describe, expect, it } from 'vitest'
import { Arrangement, drainSnapshot, mergeKeyedParts, ZSet } from '../../ivm/index.js'
import { fuzzyObjectBase, ObjectChanges, snapshotObjects, type TrackedObject } from '../../ivm/object-changes.js'

describe('snapshots and keys born while they are read', () => {
  it('a key born while a snapshot is open is written whole by the next delta', () => {
    const live = new Arrangement([0])
    const parts = []
    live.apply([0, 0], 1)
    parts.push(drainSnapshot(live.snapshotKeyed(true)))
    // key 0 leaves (a delta says so), and a delta listing only key 5 stays open while key 0
    // is born again and grows
    live.apply([0, 0], -1)
    parts.push(drainSnapshot(live.snapshotKeyed(false)))
    live.apply([5, 0], 1)
    const open = live.snapshotKeyed(false)
    live.apply([0, 0], 2)
    live.apply([0, 1], 1)
    parts.push(drainSnapshot(open))
    parts.push(drainSnapshot(live.snapshotKeyed(false)))
    const restored = new Arrangement([0])
    restored.loadKeyed(mergeKeyedParts(parts).entries)
    expect(restored.snapshot()).toEqual(live.snapshot())
    expect(restored.snapshot()).toEqual(new ZSet([[5, 0], [0, 0], [0, 1]], [1, 2, 1]))
  })

  it('a fuzzy base of objects leaves out one born after it began (the delta lists it, or its absence)', () => {
    interface Obj extends TrackedObject {
      readonly key: string
      readonly v: number
    }
    const make = (key: string, v: number): Obj => ({ key, v, born: 0, mark: 0, shot: 0, shotAt: 0 })
    const live = new Map<string, Obj>()
    let tracker = new ObjectChanges<Obj>((o) => live.get(o.key) === o, () => live.size)
    const put = (o: Obj): void => {
      tracker.inserted(o)
      live.set(o.key, o)
    }
    const remove = (o: Obj): void => {
      tracker.deleted(o)
      live.delete(o.key)
    }
    const a = make('a', 1)
    put(a)
    // the base begins, with a tracker of its own (as IntervalJoinOperator.fuzzyBaseKeyed)
    const t = (tracker = new ObjectChanges<Obj>((o) => live.get(o.key) === o, () => live.size))
    const base = fuzzyObjectBase([live], (o) => o.key, (o) => o.v, (o) => t.bornSinceTake(o))
    remove(a)
    const b = make('b', 2)
    put(b)
    const first = drainSnapshot(base)
    remove(b)
    const delta = drainSnapshot(snapshotObjects(t, null, t.take(), (o) => o.key, (o) => live.get(o.key), (o) => o.v))
    expect(mergeKeyedParts([first, delta]).entries).toEqual({ keys: [], values: [] })
  })
})
