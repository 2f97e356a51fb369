// SUM over integers (exact) and over floats (exactly rounded, order independent).
//
// sumInt: accumulator { n: weighted count of non-null values, s: the exact sum (a number while
//   it is a safe integer, a bigint beyond), nb: weighted count of bigint values }. The result
//   is null when n = 0, a bigint when bigint values contributed, a number otherwise.
// sumFloat: accumulator { n, p: Shewchuk partials (non-overlapping, increasing magnitude; their
//   exact sum is the exact sum of all weighted values), pinf/ninf/nan: weighted counts of the
//   non-finite values }. The result is the correctly rounded exact sum (Python's math.fsum),
//   so it does not depend on the order of inserts and deletes; null when n = 0. value·weight
//   is formed exactly with Dekker's two-product. (Partial sums beyond ±1.8e308 are not
//   handled: such inputs give ±Infinity/NaN partials.)

import type { Aggregator } from './aggregator.js'

export interface IntSumAcc {
  n: number
  s: number | bigint
  nb: number
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER

export function intSumAdd(acc: IntSumAcc, value: unknown, weight: number): IntSumAcc {
  if (value === null || value === undefined) return acc
  acc.n += weight
  if (typeof value === 'bigint') {
    acc.nb += weight
    const s = acc.s
    acc.s = norm((typeof s === 'bigint' ? s : Number.isInteger(s) ? BigInt(s) : BigInt(Math.trunc(s))) + value * BigInt(weight))
    return acc
  }
  const v = value as number
  const x = v * weight
  const s = acc.s
  if (typeof s === 'number') {
    const t = s + x
    if ((t <= MAX_SAFE && t >= -MAX_SAFE && x <= MAX_SAFE && x >= -MAX_SAFE) || !Number.isInteger(v) || !Number.isInteger(t)) {
      acc.s = t
      return acc
    }
    acc.s = norm(BigInt(s) + BigInt(v) * BigInt(weight))
    return acc
  }
  if (!Number.isInteger(v)) {
    acc.s = Number(s) + x
    return acc
  }
  acc.s = norm(s + BigInt(v) * BigInt(weight))
  return acc
}

/** Canonical form: a number while the sum is a safe integer. */
function norm(b: bigint): number | bigint {
  return b >= -MAX_SAFE_BIG && b <= MAX_SAFE_BIG ? Number(b) : b
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER)

export function intSumValue(acc: IntSumAcc): number | bigint {
  const s = acc.s
  if (acc.nb > 0) return typeof s === 'bigint' ? s : BigInt(s)
  return typeof s === 'bigint' ? Number(s) : s
}

export const sumInt: Aggregator<IntSumAcc, number | bigint | null> = {
  name: 'sumInt',
  create: () => ({ n: 0, s: 0, nb: 0 }),
  add: intSumAdd,
  result: (acc) => (acc.n === 0 ? null : intSumValue(acc)),
}

// ---- exact float summation ----

export interface FloatSumAcc {
  n: number
  p: number[]
  pinf: number
  ninf: number
  nan: number
}

/** Adds x to the partials exactly (Shewchuk's grow-expansion, zero partials dropped). */
export function addPartial(p: number[], x: number): void {
  let i = 0
  for (let j = 0; j < p.length; j++) {
    let y = p[j]!
    if (Math.abs(x) < Math.abs(y)) {
      const t = x
      x = y
      y = t
    }
    const hi = x + y
    const lo = y - (hi - x)
    if (lo !== 0) p[i++] = lo
    x = hi
  }
  if (x !== 0) p[i++] = x
  p.length = i
}

/** The correctly rounded value of the exact sum of the partials (math.fsum's last step). */
export function partialsValue(p: readonly number[]): number {
  let n = p.length
  if (n === 0) return 0
  let hi = p[--n]!
  let lo = 0
  while (n > 0) {
    const x = hi
    const y = p[--n]!
    hi = x + y
    const yr = hi - x
    lo = y - yr
    if (lo !== 0) break
  }
  if (n > 0 && ((lo < 0 && p[n - 1]! < 0) || (lo > 0 && p[n - 1]! > 0))) {
    const y = lo * 2
    const x = hi + y
    const yr = x - hi
    if (y === yr) hi = x
  }
  return hi
}

const SPLITTER = 134217729 // 2^27 + 1

/** Adds value·weight to the partials exactly (two-product for |weight| ≠ 1). */
export function addScaled(p: number[], v: number, w: number): void {
  if (w === 1) return addPartial(p, v)
  if (w === -1) return addPartial(p, -v)
  const prod = v * w
  let c = SPLITTER * v
  const vh = c - (c - v)
  const vl = v - vh
  c = SPLITTER * w
  const wh = c - (c - w)
  const wl = w - wh
  const err = vh * wh - prod + vh * wl + vl * wh + vl * wl
  addPartial(p, prod)
  if (err !== 0) addPartial(p, err)
}

export function floatSumAdd(acc: FloatSumAcc, value: unknown, weight: number): FloatSumAcc {
  if (value === null || value === undefined) return acc
  const v = typeof value === 'number' ? value : Number(value)
  acc.n += weight
  if (v - v !== 0) {
    // ±Infinity or NaN
    if (v !== v) acc.nan += weight
    else if (v > 0) acc.pinf += weight
    else acc.ninf += weight
    return acc
  }
  addScaled(acc.p, v, weight)
  return acc
}

export function floatSumValue(acc: FloatSumAcc): number {
  if (acc.nan > 0 || (acc.pinf > 0 && acc.ninf > 0)) return NaN
  if (acc.pinf > 0) return Infinity
  if (acc.ninf > 0) return -Infinity
  return partialsValue(acc.p)
}

export const sumFloat: Aggregator<FloatSumAcc, number | null> = {
  name: 'sumFloat',
  create: () => ({ n: 0, p: [], pinf: 0, ninf: 0, nan: 0 }),
  add: floatSumAdd,
  result: (acc) => (acc.n === 0 ? null : floatSumValue(acc)),
}
