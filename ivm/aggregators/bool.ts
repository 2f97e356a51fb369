// BOOL_AND / BOOL_OR (EVERY / ANY): counts of true and false values; null when none.
// Accumulator: { t, f } weighted counts. Non-boolean values count by truthiness.

import type { Aggregator } from './aggregator.js'

export interface BoolAcc {
  t: number
  f: number
}

function addBool(acc: BoolAcc, value: unknown, weight: number): BoolAcc {
  if (value === null || value === undefined) return acc
  if (value) acc.t += weight
  else acc.f += weight
  return acc
}

export const boolAnd: Aggregator<BoolAcc, boolean | null> = {
  name: 'boolAnd',
  create: () => ({ t: 0, f: 0 }),
  add: addBool,
  result: (acc) => (acc.t + acc.f <= 0 ? null : acc.f <= 0),
}

export const boolOr: Aggregator<BoolAcc, boolean | null> = {
  name: 'boolOr',
  create: () => ({ t: 0, f: 0 }),
  add: addBool,
  result: (acc) => (acc.t + acc.f <= 0 ? null : acc.t > 0),
}
