// SQL values as the engine holds them, for codec tests: every kind and its edge values
// (−0, NaN, ±Infinity, bigints in and out of 64 bits, texts with any code unit, the value
// classes), and equality as the engine means it.
import fc from 'fast-check'
import { Numeric } from '../../planner/numeric.js'
import { ArrayValue } from '../../planner/array-value.js'
import { Interval } from '../../src/sql-runtime/interval.js'

export const sqlValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, NaN, Infinity, -Infinity, 2 ** 31, -(2 ** 31)),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.boolean(),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\ud800', 'a\udfffb', 'é', '日本', ''),
  fc.tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 6 })).map(([c, s]) => new Numeric(c, s)),
  fc.tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: -40, max: 40 }), fc.integer()).map(([m, d, us]) => new Interval(m, d, us)),
  fc.array(fc.oneof(fc.integer(), fc.constant(null)), { maxLength: 3 }).map((items) => new ArrayValue(items)),
)

/** Values equal as the engine means it: Object.is for primitives, fields for the classes. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Numeric) return b instanceof Numeric && a.coef === b.coef && a.scale === b.scale
  if (a instanceof Interval) return b instanceof Interval && a.months === b.months && a.days === b.days && a.micros === b.micros
  if (a instanceof ArrayValue) return b instanceof ArrayValue && a.items.length === b.items.length && a.items.every((x, i) => sameValue(x, b.items[i]))
  return Object.is(a, b)
}
