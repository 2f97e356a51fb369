// mergeKeyedParts (which looks up only the keys deltas changed) against the plain reference:
// applying a base and its deltas to a Map one entry at a time. Both must give the live map's
// entries in its iteration order, over random inserts, updates, deletes and re-inserts.

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

const step = fc.oneof(
  fc.record({ op: fc.constant<'set'>('set'), key: fc.integer({ min: 0, max: 8 }), value: fc.integer() }),
  fc.record({ op: fc.constant<'delete'>('delete'), key: fc.integer({ min: 0, max: 8 }) }),
  fc.record({ op: fc.constant<'save'>('save'), base: fc.boolean() }),
)

describe('mergeKeyedParts', () => {
  it('equals applying the parts to a Map in order, and the live map', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), (steps) => {
        const live = new Map<RowKey, number>()
        let changes: KeyChanges | null = null
        let parts: KeyedPart[] = []
        const save = (base: boolean): void => {
          if (base || changes === null) {
            parts = [saveKeyedPart(parts.length, live, null, (v) => v)]
            changes = new KeyChanges()
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
