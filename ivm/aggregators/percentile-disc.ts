// PERCENTILE_DISC(f) WITHIN GROUP (ORDER BY x): the first value, in the group's order, whose
// position (1-based) reaches f · n: the value of 0-based rank max(⌈f · n⌉ − 1, 0); null when
// the group has no non-null value. With several fractions (the array form) one result per
// fraction, in the fractions' order (a null fraction gives a null element).
//
// Accumulator: the group's non-null values as an OrderedCounts (a counted, ordered multiset
// with rank / select, see ordered-counts.ts), so an insert or a delete is O(log n + chunk)
// and the result a select per fraction, never a sort.

import type { Aggregator } from './aggregator.js'
import { orderedSelect, orderedSetAggregate, type OrderedCounts } from './ordered-counts.js'

/** `fractions` are in [0, 1] (the caller checked); `asArray` builds the array form's result,
 *  null for the single-fraction form (the result is then the one value). */
export function percentileDisc(compare: (a: unknown, b: unknown) => number, fractions: readonly (number | null)[], asArray: ((values: unknown[]) => unknown) | null): Aggregator<OrderedCounts, unknown> {
  return orderedSetAggregate('percentileDisc', compare, fractions, asArray, (acc, f) => orderedSelect(acc, Math.max(Math.ceil(f * acc.n) - 1, 0)))
}
