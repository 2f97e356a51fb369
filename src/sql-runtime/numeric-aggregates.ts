// SUM and AVG with exact results, as PostgreSQL computes them:
//   sum(smallint | integer) → bigint, sum(bigint) → numeric, avg(any integer) → numeric:
//     the exact integer sum (ivm's sumInt accumulator: a number while safe, a bigint beyond);
//     a bigint sum outside the 64-bit range is 22003;
//   sum(numeric) → numeric: the exact decimal sum, shown at the largest display scale among the
//     values summed (PostgreSQL's numeric addition keeps the larger scale);
//   avg(integer | numeric) → numeric: sum / count with numeric division's result scale.
// Accumulators are plain data and retract exactly what they added, so a result depends only
// on the group's multiset of values (never on the order of inserts and deletes).

import * as ivm from '../../ivm/index.js'
import { numericCoef, numericDiv, numericFromInteger, numericOf, pow10, type Numeric, type NumericValue } from '../../planner/index.js'
import { int8Of } from './int8.js'

type IntSumAcc = ivm.IntSumAcc

/** The exact integer sum of an accumulator, as a bigint. */
function exactSum(acc: IntSumAcc): bigint {
  const s = acc.s
  return typeof s === 'bigint' ? s : BigInt(s)
}

/** sum(smallint | integer): a bigint, or 22003 beyond its range. */
export const sumToBigint: ivm.Aggregator<IntSumAcc, number | bigint | null> = {
  name: 'sumInt',
  create: ivm.sumInt.create,
  add: ivm.sumInt.add,
  result(acc) {
    if (acc.n === 0) return null
    return typeof acc.s === 'number' ? acc.s : int8Of(acc.s)
  },
}

/** sum(bigint): a numeric of scale 0. */
export const sumBigintToNumeric: ivm.Aggregator<IntSumAcc, NumericValue | null> = {
  name: 'sumInt',
  create: ivm.sumInt.create,
  add: ivm.sumInt.add,
  result: (acc) => (acc.n === 0 ? null : numericFromInteger(acc.s)),
}

/** avg(smallint | integer | bigint): the exact sum divided as numerics. */
export const avgIntegerToNumeric: ivm.Aggregator<IntSumAcc, NumericValue | null> = {
  name: 'avgInt',
  create: ivm.sumInt.create,
  add: ivm.sumInt.add,
  result: (acc) => (acc.n === 0 ? null : numericDiv(numericOf(exactSum(acc), 0), acc.n)),
}

/** An exact decimal sum: the integers (numbers) apart from the decimals, whose coefficients
 *  are kept at the largest scale seen; `scales[s]` counts the values of display scale s. */
export interface NumericSumAcc {
  /** Weighted count of the non-NULL values. */
  n: number
  /** The sum of the number-valued (integer) values. */
  ints: IntSumAcc
  /** The sum of the decimal values' coefficients at scale `scale`. */
  coef: bigint
  scale: number
  scales: number[]
  /** Weighted counts of NaN, +Infinity and −Infinity. */
  nan: number
  pinf: number
  ninf: number
}

function numericSumAdd(acc: NumericSumAcc, value: unknown, weight: number): NumericSumAcc {
  if (value === null || value === undefined) return acc
  acc.n += weight
  if (typeof value === 'number') {
    if (value !== value) acc.nan += weight
    else if (value === Infinity) acc.pinf += weight
    else if (value === -Infinity) acc.ninf += weight
    else ivm.sumInt.add(acc.ints, value, weight)
    return acc
  }
  const v = value as Numeric
  if (v.scale > acc.scale) {
    acc.coef *= pow10(v.scale - acc.scale)
    acc.scale = v.scale
  }
  acc.coef += numericCoef(v) * pow10(acc.scale - v.scale) * BigInt(weight)
  acc.scales[v.scale] = (acc.scales[v.scale] ?? 0) + weight
  return acc
}

function numericSumValue(acc: NumericSumAcc): NumericValue {
  if (acc.nan > 0 || (acc.pinf > 0 && acc.ninf > 0)) return NaN
  if (acc.pinf > 0) return Infinity
  if (acc.ninf > 0) return -Infinity
  let display = 0
  for (let s = acc.scales.length - 1; s > 0; s--) {
    if ((acc.scales[s] ?? 0) > 0) {
      display = s
      break
    }
  }
  const total = exactSum(acc.ints) * pow10(acc.scale) + acc.coef
  // the values present all have scale ≤ display, so the division is exact
  return numericOf(display >= acc.scale ? total * pow10(display - acc.scale) : total / pow10(acc.scale - display), display)
}

function createNumericSum(): NumericSumAcc {
  return { n: 0, ints: ivm.sumInt.create(), coef: 0n, scale: 0, scales: [], nan: 0, pinf: 0, ninf: 0 }
}

/** sum(numeric). */
export const sumNumeric: ivm.Aggregator<NumericSumAcc, NumericValue | null> = {
  name: 'sumNumeric',
  create: createNumericSum,
  add: numericSumAdd,
  result: (acc) => (acc.n === 0 ? null : numericSumValue(acc)),
}

/** avg(numeric). */
export const avgNumeric: ivm.Aggregator<NumericSumAcc, NumericValue | null> = {
  name: 'avgNumeric',
  create: createNumericSum,
  add: numericSumAdd,
  result: (acc) => (acc.n === 0 ? null : numericDiv(numericSumValue(acc), acc.n)),
}
