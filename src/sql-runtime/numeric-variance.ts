// VAR_SAMP / VAR_POP / STDDEV_SAMP / STDDEV_POP (and VARIANCE, STDDEV) over integers and
// numerics → numeric, exactly as PostgreSQL computes them.
//
// Accumulator: { n: weighted count of the non-null values, s1, s2: the exact Σx and Σx² as
//   bigint coefficients at scale `scale` and 2·scale (the largest scale seen; a larger one
//   rescales them), scales[s]: weighted count of the values of display scale s, nonFinite:
//   weighted count of NaN and ±Infinity }. Exact integers in both directions, so a deletion
//   leaves exactly what a recompute builds.
// Result (numeric_stddev_internal): with d the largest display scale among the values
//   present, Σx at scale d and Σx² at 2d, the numerator n·Σx² − (Σx)² at scale 2d (exact),
//   divided by n(n − 1) (samp) or n² (pop) at numeric division's scale; a stddev is the square
//   root at that same scale. 0 when the numerator is not positive; null without values (and,
//   for the samples, with one); NaN when a NaN or an infinity is among the values.

import type * as ivm from '../../ivm/index.js'
import { isNumeric, numericCoef, numericDiv, numericOf, numericScale, numericSqrtAtScale, pow10, type NumericValue } from '../../planner/index.js'

export interface NumericMomentsAcc {
  n: number
  s1: bigint
  s2: bigint
  scale: number
  scales: number[]
  nonFinite: number
}

function addMoments(acc: NumericMomentsAcc, value: unknown, weight: number): NumericMomentsAcc {
  if (value === null || value === undefined) return acc
  acc.n += weight
  let coef: bigint
  let scale = 0
  if (typeof value === 'bigint') coef = value
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      acc.nonFinite += weight
      return acc
    }
    coef = BigInt(value)
  } else if (isNumeric(value)) {
    coef = numericCoef(value)
    scale = numericScale(value)
  } else return acc
  if (scale > acc.scale) {
    const up = pow10(scale - acc.scale)
    acc.s1 *= up
    acc.s2 *= up * up
    acc.scale = scale
  }
  const w = BigInt(weight)
  const x = scale === acc.scale ? coef : coef * pow10(acc.scale - scale)
  acc.s1 += x * w
  acc.s2 += x * x * w
  acc.scales[scale] = (acc.scales[scale] ?? 0) + weight
  return acc
}

/** The variance, and the scale its square root is taken at. */
function varianceOf(acc: NumericMomentsAcc, sample: boolean): NumericValue {
  let d = 0
  for (let s = acc.scales.length - 1; s > 0; s--) {
    if ((acc.scales[s] ?? 0) > 0) {
      d = s
      break
    }
  }
  // every value present has scale ≤ d, so the sums divide exactly
  const down = pow10(acc.scale - d)
  const sumX = acc.s1 / down
  const sumX2 = acc.s2 / (down * down)
  const n = BigInt(acc.n)
  const numerator = n * sumX2 - sumX * sumX
  if (numerator <= 0n) return 0
  return numericDiv(numericOf(numerator, 2 * d), numericOf(sample ? n * (n - 1n) : n * n, 0))
}

function makeNumericVariance(name: string, sample: boolean, root: boolean): ivm.Aggregator<NumericMomentsAcc, NumericValue | null> {
  return {
    name,
    create: () => ({ n: 0, s1: 0n, s2: 0n, scale: 0, scales: [], nonFinite: 0 }),
    add: addMoments,
    result(acc) {
      if (acc.n <= 0 || (sample && acc.n === 1)) return null
      if (acc.nonFinite > 0) return NaN
      const v = varianceOf(acc, sample)
      return root && v !== 0 ? numericSqrtAtScale(v, numericScale(v)) : v
    },
  }
}

export const varSampNumeric = makeNumericVariance('varSampNumeric', true, false)
export const varPopNumeric = makeNumericVariance('varPopNumeric', false, false)
export const stddevSampNumeric = makeNumericVariance('stddevSampNumeric', true, true)
export const stddevPopNumeric = makeNumericVariance('stddevPopNumeric', false, true)
