// COUNT(*) and COUNT(expr).
//   countRows: Σ w over all rows (the value is ignored).
//   count:     Σ w over rows whose value is not null.
// Accumulator: a number. Linear (a sum of weights).

import type { Aggregator } from './aggregator.js'

export const countRows: Aggregator<number, number> = {
  name: 'countRows',
  create: () => 0,
  add: (acc, _value, weight) => acc + weight,
  result: (acc) => acc,
}

export const count: Aggregator<number, number> = {
  name: 'count',
  create: () => 0,
  add: (acc, value, weight) => (value === null || value === undefined ? acc : acc + weight),
  result: (acc) => acc,
}
