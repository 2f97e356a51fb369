// mergeKeyedParts (which looks up only the keys deltas changed) against the plain reference:
// applying a base and its deltas to a Map one entry at a time. Both must give the live map's
// entries in its iteration order, over random inserts, updates, deletes and re-inserts (and the
// list of inserted keys compacted after any number of them).

import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { KeyChanges, mergeKeyedParts, saveKeyedPart, type KeyedPart, type RowKey } from '../../ivm/index.js'

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
