import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareRows, rowHash, rowKey, rowsEqual } from '../../ivm/index.js'

const value = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0, -0, NaN, Infinity, 0.5, 2 ** 40, -(2 ** 53)),
  fc.double(),
  fc.constantFrom('', 'a', 'b', '1', 'null'),
  fc.string({ maxLength: 4 }),
  fc.bigInt({ min: -3n, max: 3n }),
)
const row = fc.array(value, { maxLength: 3 })

describe('row equality, keys, hashes and order agree', () => {
  it('rowsEqual ⇔ rowKey equal ⇔ compareRows = 0; equal rows hash equally', () => {
    fc.assert(
      fc.property(row, row, (a, b) => {
        const eq = rowsEqual(a, b)
        expect(Object.is(rowKey(a), rowKey(b))).toBe(eq)
        expect(compareRows(a, b) === 0).toBe(eq)
        if (eq) expect(rowHash(a)).toBe(rowHash(b))
        expect(Math.sign(compareRows(a, b)) + Math.sign(compareRows(b, a))).toBe(0)
      }),
      { numRuns: 2000 },
    )
  })
  it('copies of a row are equal', () => {
    fc.assert(
      fc.property(row, (a) => {
        const b = a.map((v) => (typeof v === 'number' && v === 0 ? -v : v))
        expect(rowsEqual(a, b)).toBe(true)
        expect(rowHash(a)).toBe(rowHash(b))
      }),
    )
  })
})
