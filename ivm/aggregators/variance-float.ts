// VAR_SAMP / VAR_POP / STDDEV_SAMP / STDDEV_POP over floats, from exact sums.
//
// Accumulator: { n: weighted count of the non-null values, s1, s2: Shewchuk partials whose
//   exact sums are Σx and Σx² (each x² is added exactly as the two doubles of Dekker's
//   two-product), nonFinite: weighted count of NaN and ±Infinity values }. Nothing is rounded
//   while values come and go, so a deletion leaves exactly the state a recompute builds, and
//   the result depends only on the group's multiset of values.
// Result: the numerator n·Σx² − (Σx)² is formed exactly (bigint arithmetic on the partials'
//   binary expansions), divided by n(n − 1) (samp) or n² (pop) and rounded once to a double;
//   the standard deviations are its square root. So the variance is the correctly rounded
//   exact one (PostgreSQL's Youngs–Cramer update rounds along the way; both agree whenever its
//   steps are exact, and otherwise differ in the last bits at most). Null without values (and,
//   for the samples, with one value); NaN when a NaN or an infinity is among the values.
//   (Values beyond ±1.3e154, whose squares overflow a double, are not handled.)

import type { Aggregator } from './aggregator.js'
import { addScaled } from './sum.js'

export interface VarianceFloatAcc {
  n: number
  s1: number[]
  s2: number[]
  nonFinite: number
}

const SPLITTER = 134217729 // 2^27 + 1

function addSquare(p: number[], v: number, weight: number): void {
  // v² = sq + err exactly (Dekker's two-product), each term times the weight exactly
  const sq = v * v
  const c = SPLITTER * v
  const hi = c - (c - v)
  const lo = v - hi
  const err = hi * hi - sq + 2 * hi * lo + lo * lo
  addScaled(p, sq, weight)
  if (err !== 0) addScaled(p, err, weight)
}

const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)

/** A finite double as mantissa · 2^exponent (integers). */
function decompose(x: number): [bigint, number] {
  f64[0] = x
  const hiWord = u32[1]!
  const biased = (hiWord >>> 20) & 0x7ff
  const top = hiWord & 0xfffff
  let m = (BigInt(top) << 32n) | BigInt(u32[0]!)
  let e: number
  if (biased === 0) e = -1074
  else {
    m |= 1n << 52n
    e = biased - 1075
  }
  return [x < 0 ? -m : m, e]
}

/** The exact sum of partials as an integer and a common exponent (value = int · 2^exp). */
function exactSum(p: readonly number[]): [bigint, number] {
  if (p.length === 0) return [0n, 0]
  const parts = p.map(decompose)
  let e = Infinity
  for (const [, pe] of parts) if (pe < e) e = pe
  let s = 0n
  for (const [m, pe] of parts) s += m << BigInt(pe - e)
  return [s, e]
}

function bitLength(b: bigint): number {
  return b === 0n ? 0 : b.toString(2).length
}

/** num · 2^exp / den (num ≥ 0, den > 0) rounded to the nearest double. */
function ratioToDouble(num: bigint, exp: number, den: bigint): number {
  if (num === 0n) return 0
  // a quotient of at least 64 bits, its last bit sticky (set when the division is inexact),
  // rounds correctly to 53 bits in one step
  const shift = Math.max(0, 66 - (bitLength(num) - bitLength(den)))
  const scaled = num << BigInt(shift)
  let q = scaled / den
  if (q * den !== scaled) q |= 1n
  // times 2^(exp − shift), in steps no power of two of which under- or overflows
  let x = Number(q)
  let k = exp - shift
  while (k < -1000) {
    x *= 2 ** -1000
    k += 1000
  }
  while (k > 1000) {
    x *= 2 ** 1000
    k -= 1000
  }
  return x * 2 ** k
}

function varianceOf(acc: VarianceFloatAcc, sample: boolean): number {
  const n = BigInt(acc.n)
  const [a, ea] = exactSum(acc.s1) // Σx = a · 2^ea
  const [b, eb] = exactSum(acc.s2) // Σx² = b · 2^eb
  // n·Σx² − (Σx)² at the common exponent e
  const e = Math.min(eb, 2 * ea)
  const num = ((n * b) << BigInt(eb - e)) - ((a * a) << BigInt(2 * ea - e))
  if (num <= 0n) return 0
  return ratioToDouble(num, e, sample ? n * (n - 1n) : n * n)
}

function makeVariance(name: string, sample: boolean, root: boolean): Aggregator<VarianceFloatAcc, number | null> {
  return {
    name,
    create: () => ({ n: 0, s1: [], s2: [], nonFinite: 0 }),
    add(acc, value, weight) {
      if (value === null || value === undefined) return acc
      const v = typeof value === 'number' ? value : Number(value)
      acc.n += weight
      if (v - v !== 0) {
        acc.nonFinite += weight
        return acc
      }
      addScaled(acc.s1, v, weight)
      addSquare(acc.s2, v, weight)
      return acc
    },
    result(acc) {
      if (acc.n <= 0 || (sample && acc.n === 1)) return null
      if (acc.nonFinite > 0) return NaN
      const v = varianceOf(acc, sample)
      return root ? Math.sqrt(v) : v
    },
  }
}

export const varSampFloat = makeVariance('varSampFloat', true, false)
export const varPopFloat = makeVariance('varPopFloat', false, false)
export const stddevSampFloat = makeVariance('stddevSampFloat', true, true)
export const stddevPopFloat = makeVariance('stddevPopFloat', false, true)
