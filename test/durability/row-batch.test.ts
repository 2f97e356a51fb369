// Rows as columns (src/storage/row-batch.ts) come back exactly as they went in, through V8's
// serializer as the log and the spill file store them: every value kind, NULLs anywhere, −0,
// NaN, ±Infinity, bigints in and out of 64 bits, texts with any code unit (lone surrogates,
// Latin-1 and beyond), the value classes, mixed kinds in a column, and rows of differing
// lengths (fast-check against the plain rows).
import { deserialize, serialize } from 'node:v8'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeBatch, encodeBatch } from '../../src/storage/row-batch.js'
import { sameValue, sqlValue } from '../helpers/sql-values.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : Math.floor(Math.random() * 2 ** 31)

const value = sqlValue

/** A column of one kind mostly (what a relation's rows have), sometimes mixed. */
const columnOf = (n: number): fc.Arbitrary<unknown[]> =>
  fc.oneof(
    fc.array(value, { minLength: n, maxLength: n }),
    value.chain((v) => fc.array(fc.oneof(fc.constant(v), fc.constant(null), value.filter((x) => typeof x === typeof v)), { minLength: n, maxLength: n })),
  )

const rowsArb = fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 8 })).chain(([n, width]) =>
  fc.array(columnOf(n), { minLength: width, maxLength: width }).map((cols) => Array.from({ length: n }, (_, i) => cols.map((c) => c[i]))),
)

const roundTrip = (rows: unknown[][]) => decodeBatch(deserialize(serialize(encodeBatch(rows))) as ReturnType<typeof encodeBatch>)

const same = sameValue

function expectSameRows(got: readonly (readonly unknown[])[], want: readonly (readonly unknown[])[]): void {
  expect(got.length).toBe(want.length)
  for (let i = 0; i < want.length; i++) {
    expect(got[i]!.length).toBe(want[i]!.length)
    for (let j = 0; j < want[i]!.length; j++) if (!same(got[i]![j], want[i]![j])) expect.fail(`row ${i} column ${j}: ${String(got[i]![j])} for ${String(want[i]![j])}`)
  }
}

describe('row batches', () => {
  it('give back exactly the rows they were made of (fast-check)', () => {
    fc.assert(fc.property(rowsArb, (rows) => expectSameRows(roundTrip(rows), rows)), { numRuns: 400, seed: SEED })
  })

  it('keep rows of differing lengths, and the edge values of each kind', () => {
    const rows = [[1, 'a'], [2], [3, 'c', true]]
    expectSameRows(roundTrip(rows), rows)
    const edges = [[-0, 2 ** 63 - 1, 2n ** 63n - 1n, '\ud800', true], [NaN, Infinity, -(2n ** 63n), 'ÿ', false], [null, -Infinity, 2n ** 64n, null, null]]
    expectSameRows(roundTrip(edges), edges)
  })
})
