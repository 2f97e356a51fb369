// An arrangement's incremental checkpoints write a bucket that only grew since the part before
// as the rows appended (AppendedRows, Bucket.saved), not the whole bucket. fast-check: random
// inserts, retractions and weight changes over few keys (buckets grow, shrink, turn into a
// single row and back), with bases and deltas taken between them; every part goes through the
// columnar codec, the chain is merged (mergeKeyedParts) and loaded into a fresh arrangement,
// which must equal the live one key by key in map order, rows and weights in bucket order.
// The runs must also produce appended entries (else the fast path went untested).

import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Arrangement, Bucket } from '../../../ivm/operators/arrange.js'
import { isAppendedRows, mergeKeyedParts, type KeyedPart } from '../../../ivm/keyed-state.js'
import { decodeKeyedPart, encodeKeyedPart } from '../../../src/storage/part-codec.js'

const contents = (a: Arrangement) =>
  [...a.entries()].map(([k, s]) => [k, s instanceof Bucket ? { r: s.rows.slice(), w: s.weights.slice() } : s] as const)

const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant<'add'>('add'), key: fc.integer({ min: 0, max: 3 }), v: fc.integer({ min: 0, max: 7 }), w: fc.constantFrom(1, 1, 1, 2, -1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant<'save'>('save'), base: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant<'restart'>('restart') }) },
)

describe('arrangement checkpoints with appended rows', () => {
  it('a chain of bases and deltas (appends included) reloads to the live arrangement', () => {
    let appended = 0
    fc.assert(
      fc.property(fc.array(step, { maxLength: 150 }), (steps) => {
        let live = new Arrangement([0])
        let parts: KeyedPart[] = []
        let tracking = false
        const save = (base: boolean): void => {
          const part = live.saveKeyed(base || !tracking)
          if (base || !tracking) parts = []
          tracking = true
          for (const v of part.values) if (isAppendedRows(v)) appended++
          parts.push(decodeKeyedPart(encodeKeyedPart(part)))
        }
        const reload = (): Arrangement => {
          const fresh = new Arrangement([0])
          fresh.loadKeyed(mergeKeyedParts(parts).entries)
          return fresh
        }
        for (const s of steps) {
          if (s.op === 'add') live.apply([s.key, s.v], s.w)
          else if (s.op === 'save') save(s.base)
          else if (tracking) {
            // a recovery: from here on the reloaded one goes on (its marks from the load)
            save(false)
            const fresh = reload()
            expect(contents(fresh)).toEqual(contents(live))
            live = fresh
            parts = []
            tracking = false
            save(true)
          }
        }
        save(false)
        expect(contents(reload())).toEqual(contents(live))
      }),
      { numRuns: 3000 },
    )
    expect(appended).toBeGreaterThan(100)
  })
})
