// mergeKeyedParts (which looks up only the keys deltas changed) against the plain reference:
// applying a base and its deltas to a Map one entry at a time. Both must give the live map's
// entries in its iteration order, over random inserts, updates, deletes and re-inserts (and the
// list of inserted keys compacted after any number of them).
// Then the change shares that decide between a base and a delta: growth is not turnover.

import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { KeyChanges, mergeKeyedParts, saveKeyedPart, type KeyedPart, type RowKey } from '../../ivm/index.js'
import { ObjectChanges } from '../../ivm/object-changes.js'

function referenceMerge(parts: readonly KeyedPart[]): [RowKey, unknown][] {
  const m = new Map<RowKey, unknown>()
  for (const p of parts) {
    if (p.moved === null) m.clear()
    for (let i = 0; i < p.keys.length; i++) {
      const k = p.keys[i]!
      const v = p.values[i]
      if (v === undefined) m.delete(k)
      else {
        if (p.moved !== null && p.moved[i]) m.delete(k)
        m.set(k, v)
      }
    }
  }
  return [...m]
}

/** Steps over keys 0..maxKey (few keys: churn, many re-inserts between two saves). */
const steps = (maxKey: number) =>
  fc.array(
    fc.oneof(
      fc.record({ op: fc.constant<'set'>('set'), key: fc.integer({ min: 0, max: maxKey }), value: fc.integer() }),
      fc.record({ op: fc.constant<'delete'>('delete'), key: fc.integer({ min: 0, max: maxKey }) }),
      fc.record({ op: fc.constant<'save'>('save'), base: fc.boolean() }),
    ),
    { maxLength: 120 },
  )

describe('mergeKeyedParts', () => {
  it('equals applying the parts to a Map in order, and the live map', () => {
    fc.assert(
      // compacting the inserted keys after as few as 1 to 4 of them, or never in a run this short
      fc.property(fc.constantFrom(2, 8).chain(steps), fc.constantFrom(1, 2, 4, 65_536), (steps, compactAt) => {
        const live = new Map<RowKey, number>()
        let changes: KeyChanges | null = null
        let parts: KeyedPart[] = []
        const save = (base: boolean): void => {
          if (base || changes === null) {
            parts = [saveKeyedPart(parts.length, live, null, (v) => v)]
            changes = new KeyChanges((k) => live.has(k), () => live.size, compactAt)
          } else parts.push(saveKeyedPart(parts.length, live, changes.take(), (v) => v))
        }
        for (const s of steps) {
          if (s.op === 'save') save(s.base)
          else if (s.op === 'set') {
            if (live.has(s.key)) changes?.changed(s.key)
            else changes?.inserted(s.key)
            live.set(s.key, s.value)
          } else if (live.delete(s.key)) changes?.deleted(s.key)
        }
        save(false)
        const { whole, entries } = mergeKeyedParts(parts)
        const merged = entries.keys.map((k, i) => [k, entries.values[i]] as [RowKey, unknown])
        expect(merged).toEqual(referenceMerge(parts))
        expect(merged).toEqual([...live])
        expect(whole).toBe(parts.length - 1)
      }),
      { numRuns: 2000 },
    )
  })
})

// ObjectChanges (ivm/object-changes.ts): the same parts from marks on the map's values, over
// maps whose values are objects — a new object per insertion, in-place changes to it, and an
// object put back after its removal (as a rollback does) — against the same references.
describe('ObjectChanges', () => {
  interface Obj {
    key: RowKey
    value: number
    born: number
    mark: number
  }
  const objectSteps = (maxKey: number) =>
    fc.array(
      fc.oneof(
        fc.record({ op: fc.constant<'set'>('set'), key: fc.integer({ min: 0, max: maxKey }), value: fc.integer() }),
        fc.record({ op: fc.constant<'delete'>('delete'), key: fc.integer({ min: 0, max: maxKey }) }),
        fc.record({ op: fc.constant<'putBack'>('putBack') }),
        fc.record({ op: fc.constant<'save'>('save'), base: fc.boolean() }),
      ),
      { maxLength: 120 },
    )

  it('parts made from the marked objects merge to the live map, in its order', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 8).chain(objectSteps), fc.constantFrom(1, 2, 4, 65_536), (steps, compactAt) => {
        const live = new Map<RowKey, Obj>()
        let changes: ObjectChanges<Obj> | null = null
        let parts: KeyedPart[] = []
        // the last object removed since the last save (a rollback puts back what this tick removed)
        let removed: Obj | undefined
        const save = (base: boolean): void => {
          removed = undefined
          if (base || changes === null) {
            parts = [saveKeyedPart(parts.length, live, null, (o) => o.value)]
            changes = new ObjectChanges<Obj>((o) => live.get(o.key) === o, () => live.size, compactAt)
            return
          }
          const { changed, inserted } = changes.take()
          const keys: RowKey[] = []
          const values: unknown[] = []
          const moved: boolean[] = []
          for (const o of changed) {
            keys.push(o.key)
            values.push(live.get(o.key)?.value)
            moved.push(false)
          }
          for (const o of inserted) {
            if (live.get(o.key) !== o) continue
            keys.push(o.key)
            values.push(o.value)
            moved.push(true)
          }
          expect(new Set(changed).size, 'each changed object once').toBe(changed.length)
          expect(new Set(changed.map((o) => o.key)).size, 'each changed key once').toBe(changed.length)
          parts.push({ whole: parts.length, keys, values, moved })
        }
        for (const s of steps) {
          if (s.op === 'save') save(s.base)
          else if (s.op === 'set') {
            const o = live.get(s.key)
            if (o !== undefined) {
              o.value = s.value
              changes?.changed(o)
            } else {
              const fresh: Obj = { key: s.key, value: s.value, born: 0, mark: 0 }
              live.set(s.key, fresh)
              changes?.inserted(fresh)
            }
          } else if (s.op === 'delete') {
            const o = live.get(s.key)
            if (o !== undefined) {
              live.delete(s.key)
              changes?.deleted(o)
              removed = o
            }
          } else if (removed !== undefined && !live.has(removed.key)) {
            live.set(removed.key, removed)
            changes?.inserted(removed)
            removed = undefined
          }
        }
        save(false)
        const { whole, entries } = mergeKeyedParts(parts)
        const merged = entries.keys.map((k, i) => [k, entries.values[i]] as [RowKey, unknown])
        expect(merged).toEqual(referenceMerge(parts))
        expect(merged).toEqual([...live].map(([k, o]) => [k, o.value]))
        expect(whole).toBe(parts.length - 1)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('ChangeShares', () => {
  it('count every change in `changed`, and only what makes the last part wrong in `obsolete`', () => {
    const map = new Map<RowKey, number>()
    const changes = new KeyChanges((k) => map.has(k), () => map.size)
    for (let k = 0; k < 10; k++) {
      map.set(k, k)
      changes.inserted(k)
    }
    changes.take()
    // growth: new keys and rows appended to an entry leave the last part good
    for (let k = 10; k < 20; k++) {
      map.set(k, k)
      changes.inserted(k)
    }
    for (let k = 0; k < 10; k++) changes.changed(k, true)
    expect(changes.shares).toEqual({ changed: 1, obsolete: 0 })
    changes.take()
    // turnover: an entry rewritten and one deleted make it wrong
    changes.changed(0)
    changes.deleted(1)
    map.delete(1)
    expect(changes.shares.obsolete).toBeCloseTo(2 / 19)
    changes.take()
    expect(changes.shares).toEqual({ changed: 0, obsolete: 0 })
  })

  it('an object born and deleted between two takes was in no part: not obsolete', () => {
    interface Obj {
      born: number
      mark: number
      shot: number
      shotAt: number
    }
    const live = new Set<Obj>()
    const changes = new ObjectChanges<Obj>((o) => live.has(o), () => live.size)
    const old: Obj = { born: 0, mark: 0, shot: 0, shotAt: 0 }
    live.add(old)
    changes.inserted(old)
    changes.take()
    const fresh: Obj = { born: 0, mark: 0, shot: 0, shotAt: 0 }
    live.add(fresh)
    changes.inserted(fresh)
    changes.deleted(fresh)
    live.delete(fresh)
    expect(changes.shares.obsolete).toBe(0)
    changes.deleted(old)
    live.delete(old)
    expect(changes.shares.obsolete).toBe(1)
  })
})
