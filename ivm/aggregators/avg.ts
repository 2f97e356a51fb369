// AVG: sum / count of the non-null values; null when there are none.
//   avg('int'):   the sum is kept exactly as in sumInt (integer inputs), divided once.
//   avg('float'): the sum is kept as exact partials as in sumFloat, rounded, then divided.
// Accumulators are those of sumInt / sumFloat (n is the count).

import type { Aggregator } from './aggregator.js'
import { floatSumAdd, floatSumValue, intSumAdd, intSumValue, type FloatSumAcc, type IntSumAcc } from './sum.js'

export const avgInt: Aggregator<IntSumAcc, number | null> = {
  name: 'avgInt',
  create: () => ({ n: 0, s: 0, nb: 0 }),
  add: intSumAdd,
  result: (acc) => (acc.n === 0 ? null : Number(intSumValue(acc)) / acc.n),
}

export const avgFloat: Aggregator<FloatSumAcc, number | null> = {
  name: 'avgFloat',
  create: () => ({ n: 0, p: [], pinf: 0, ninf: 0, nan: 0 }),
  add: floatSumAdd,
  result: (acc) => (acc.n === 0 ? null : floatSumValue(acc) / acc.n),
}

export function avg(kind: 'int'): Aggregator<IntSumAcc, number | null>
export function avg(kind?: 'float'): Aggregator<FloatSumAcc, number | null>
export function avg(kind?: 'int' | 'float'): Aggregator<IntSumAcc, number | null> | Aggregator<FloatSumAcc, number | null>
export function avg(kind: 'int' | 'float' = 'float'): Aggregator<IntSumAcc, number | null> | Aggregator<FloatSumAcc, number | null> {
  return kind === 'int' ? avgInt : avgFloat
}
