// PERCENTILE_CONT(f) WITHIN GROUP (ORDER BY x): the value at fractional 0-based rank
// f · (n − 1), interpolated linearly between the two values around it:
// lo + (hi − lo) · (f · (n − 1) − ⌊f · (n − 1)⌋), computed as PostgreSQL does so a double
// result is the same to the last bit; null when the group has no non-null value. With several
// fractions (the array form) one result per fraction, in the fractions' order (a null fraction
// gives a null element). `interpolate` does the arithmetic of the value type (doubles,
// intervals).
//
// Accumulator: the group's non-null values as an OrderedCounts (a counted, ordered multiset
// with rank / select, see ordered-counts.ts): an insert or a delete is O(log n + chunk), the
// result two selects per fraction, never a sort.

import type { Aggregator } from './aggregator.js'
import { createOrderedCounts, orderedAdd, orderedSelect, type OrderedCounts } from './ordered-counts.js'

/** `fractions` are in [0, 1] (the caller checked); `asArray` builds the array form's result,
 *  null for the single-fraction form. */
export function percentileCont(
  compare: (a: unknown, b: unknown) => number,
  interpolate: (lo: unknown, hi: unknown, fraction: number) => unknown,
  fractions: readonly (number | null)[],
  asArray: ((values: unknown[]) => unknown) | null,
): Aggregator<OrderedCounts, unknown> {
  const pick = (acc: OrderedCounts, f: number | null): unknown => {
    if (f === null) return null
    const pos = f * (acc.n - 1)
    const first = Math.floor(pos)
    const second = Math.ceil(pos)
    const lo = orderedSelect(acc, first)
    return first === second ? lo : interpolate(lo, orderedSelect(acc, second), pos - first)
  }
  return {
    name: 'percentileCont',
    create: createOrderedCounts,
    add(acc, value, weight) {
      if (value === null || value === undefined || weight === 0) return acc
      orderedAdd(acc, value, weight, compare)
      return acc
    },
    result(acc) {
      if (acc.n <= 0) return null
      if (asArray === null) return pick(acc, fractions[0] ?? null)
      return asArray(fractions.map((f) => pick(acc, f)))
    },
  }
}

/** Linear interpolation of doubles, as PostgreSQL's float8_lerp. */
export function interpolateDouble(lo: unknown, hi: unknown, fraction: number): number {
  const a = lo as number
  return a + ((hi as number) - a) * fraction
}
