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
import { orderedSelect, orderedSetAggregate, type OrderedCounts } from './ordered-counts.js'

/** `fractions` are in [0, 1] (the caller checked); `asArray` builds the array form's result,
 *  null for the single-fraction form. */
export function percentileCont(
  compare: (a: unknown, b: unknown) => number,
  interpolate: (lo: unknown, hi: unknown, fraction: number) => unknown,
  fractions: readonly (number | null)[],
  asArray: ((values: unknown[]) => unknown) | null,
): Aggregator<OrderedCounts, unknown> {
  return orderedSetAggregate('percentileCont', compare, fractions, asArray, (acc, f) => {
    const pos = f * (acc.n - 1)
    const first = Math.floor(pos)
    const second = Math.ceil(pos)
    const lo = orderedSelect(acc, first)
    return first === second ? lo : interpolate(lo, orderedSelect(acc, second), pos - first)
  })
}

/** Linear interpolation of doubles, as PostgreSQL's float8_lerp. */
export function interpolateDouble(lo: unknown, hi: unknown, fraction: number): number {
  const a = lo as number
  return a + ((hi as number) - a) * fraction
}
