// A snapshot in progress copies a key's entry at its first change after the point (copy on
// write), and copying a bucket marks it written: its next part may hold only the rows appended
// since. A key born after the point is not in the snapshot, so its changes must copy nothing —
// a copy had marked the new bucket as written with its first row, the next delta then wrote
// "rows appended after 1" for a key no part held, and merging the parts failed (found by the
// join oracle's keyed-snapshot check, seed -650634250).
import { describe, expect, it } from 'vitest'
import { Arrangement, drainSnapshot, mergeKeyedParts, ZSet } from '../../ivm/index.js'

describe('Arrangement snapshots', () => {
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
})
