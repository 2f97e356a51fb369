// APPROX_COUNT_DISTINCT(x): a HyperLogLog estimate of the number of distinct non-null values,
// made retractable. 0 for a group without values.
//
// Sketch: m = 2^12 = 4096 registers. A value's canonical key (valueKey, so equal values of
// different representations count once) is hashed to 32 bits (murmur-finalized): its top 12
// bits pick the register, the leading zeros of a second bijection of it give ρ = clz + 1
// (1 … 33). With 32 hash bits, collisions between distinct values start to lower the
// estimate beyond about 10^8 distinct values. A register's value is the largest ρ
// among the values it holds. Plain HyperLogLog keeps only that maximum and so cannot forget a
// value; here each register keeps a weighted count per ρ, so a deletion can lower its maximum
// and the sketch after any inserts and deletes is exactly the one the surviving multiset
// builds (the estimate is a function of the distinct values present, like a recompute's).
// Estimate: E = α_m · m² / Σ_j 2^(−M_j), with linear counting m · ln(m / V) while E ≤ 2.5 m
// and V registers are empty. Standard error 1.04 / √m ≈ 1.6 %: about 997 estimates in 1,000
// are within 5 % of the exact count (3σ), practically all within 8 % (5σ), and much closer
// below a few thousand distinct values, where linear counting is nearly exact.
//
// Accumulator (sparse, so a small group stays small): { counts: Map<register · 64 + ρ,
//   weighted count>, top: Map<register, its largest ρ with a positive count>, hist: hist[r] =
//   how many registers have top r (1 … 33), so the estimate is O(33), not O(m) }.

import { hashValue, valueKey } from '../key.js'
import type { Aggregator } from './aggregator.js'

const P = 12
const M = 1 << P
const ALPHA = 0.7213 / (1 + 1.079 / M)

export interface HyperLogLogAcc {
  counts: Map<number, number>
  top: Map<number, number>
  hist: number[]
}

/** Murmur3's 32-bit finalizer: every input bit affects every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)

/** A well-mixed 32-bit hash of a value key. hashValue combines a double's two words with one
 *  multiply each, too little for HyperLogLog (decimals such as i / 10 then crowd registers),
 *  so a fractional number's words go through the full finalizer each. */
function hash32(key: unknown): number {
  if (typeof key === 'number' && (key | 0) !== key) {
    f64[0] = key
    return fmix32(u32[0]! ^ fmix32(u32[1]! ^ 0x2d358dcc))
  }
  return fmix32(hashValue(0x2d358dcc, key))
}

function setTop(acc: HyperLogLogAcc, register: number, from: number, to: number): void {
  if (from > 0) acc.hist[from]!--
  if (to > 0) {
    acc.hist[to]!++
    acc.top.set(register, to)
  } else acc.top.delete(register)
}

export const approxCountDistinct: Aggregator<HyperLogLogAcc, number> = {
  name: 'approxCountDistinct',
  create: () => ({ counts: new Map(), top: new Map(), hist: new Array<number>(34).fill(0) }),
  add(acc, value, weight) {
    if (value === null || value === undefined || weight === 0) return acc
    const h = hash32(valueKey(value))
    const register = h >>> (32 - P)
    // a second bijection of the same hash: its leading zeros look independent of the top bits
    const rho = Math.clz32(fmix32(Math.imul(h, 0x9e3779b1) ^ 0x6a09e667)) + 1
    const slot = register * 64 + rho
    const before = acc.counts.get(slot) ?? 0
    const now = before + weight
    if (now === 0) acc.counts.delete(slot)
    else acc.counts.set(slot, now)
    const top = acc.top.get(register) ?? 0
    if (now > 0 && rho > top) setTop(acc, register, top, rho)
    else if (before > 0 && now <= 0 && rho === top) {
      let r = rho - 1
      while (r > 0 && (acc.counts.get(register * 64 + r) ?? 0) <= 0) r--
      setTop(acc, register, top, r)
    }
    return acc
  },
  result(acc) {
    const hist = acc.hist
    let empty = M
    let z = 0
    for (let r = 1; r < hist.length; r++) {
      const k = hist[r]!
      empty -= k
      z += k * 2 ** -r
    }
    if (empty === M) return 0
    z += empty
    const e = (ALPHA * M * M) / z
    return Math.round(e <= 2.5 * M && empty > 0 ? M * Math.log(M / empty) : e)
  },
}
