// APPROX_PERCENTILE(q [, α]) WITHIN GROUP (ORDER BY x [DESC]): a DDSketch estimate of the
// value of 0-based rank ⌊q · (n − 1)⌋ among the group's non-null values in that order, within
// relative error α (default 0.01): |estimate − exact| ≤ α · |exact|. Null for a group without
// values.
//
// Sketch: with γ = (1 + α) / (1 − α), a positive x falls in bucket i = ⌈log_γ x⌉, which
// covers (γ^(i−1), γ^i] and is answered by 2γ^i / (γ + 1), within α of every value it covers;
// negative values go to a mirror store by |x|; values below 1e−300 in magnitude count as zero,
// ±Infinity and NaN in their own counts (NaN sorts above everything, as in PostgreSQL).
// Buckets hold counts, so a deletion decrements exactly what its insertion incremented: the
// sketch after any inserts and deletes is the one the surviving multiset builds.
//
// Accumulator: { pos, neg: sorted bucket indices with parallel weighted counts (a binary
//   search and a splice per update), zero, ninf, pinf, nan: counts, n: the total }. The number
//   of buckets is bounded by the values' range, not their count: log_γ(max / min) (about 1,200
//   for 1e−6 … 1e6 at α = 1 %). A quantile walks the buckets once.

import type { Aggregator } from './aggregator.js'
import { updateWeighted } from './weighted-entries.js'

const MIN_MAGNITUDE = 1e-300

export interface DDSketchAcc {
  pos: { i: number[]; c: number[] }
  neg: { i: number[]; c: number[] }
  zero: number
  ninf: number
  pinf: number
  nan: number
  n: number
}

function addBucket(store: { i: number[]; c: number[] }, index: number, weight: number): void {
  const keys = store.i
  updateWeighted([keys], store.c, (j) => keys[j]! - index, [index], weight)
}

/** `fraction` is in [0, 1] and `relativeError` in (0, 1) (the caller checked); `descending`:
 *  ranks count from the largest value (WITHIN GROUP (ORDER BY x DESC)). */
export function approxPercentile(fraction: number, relativeError = 0.01, descending = false): Aggregator<DDSketchAcc, number | null> {
  const gamma = (1 + relativeError) / (1 - relativeError)
  const lnGamma = Math.log(gamma)
  const bucketOf = (x: number): number => Math.ceil(Math.log(x) / lnGamma)
  const valueOf = (i: number): number => (2 * gamma ** i) / (gamma + 1)
  return {
    name: 'approxPercentile',
    create: () => ({ pos: { i: [], c: [] }, neg: { i: [], c: [] }, zero: 0, ninf: 0, pinf: 0, nan: 0, n: 0 }),
    add(acc, value, weight) {
      if (value === null || value === undefined || weight === 0) return acc
      const x = typeof value === 'number' ? value : Number(value)
      acc.n += weight
      if (x !== x) acc.nan += weight
      else if (x === Infinity) acc.pinf += weight
      else if (x === -Infinity) acc.ninf += weight
      else if (x > MIN_MAGNITUDE) addBucket(acc.pos, bucketOf(x), weight)
      else if (x < -MIN_MAGNITUDE) addBucket(acc.neg, bucketOf(-x), weight)
      else acc.zero += weight
      return acc
    },
    result(acc) {
      if (acc.n <= 0) return null
      const rank = Math.floor(fraction * (acc.n - 1))
      let rest = descending ? acc.n - 1 - rank : rank // copies still to pass, from the smallest
      if ((rest -= acc.ninf) < 0) return -Infinity
      const neg = acc.neg
      for (let j = neg.i.length - 1; j >= 0; j--) if ((rest -= neg.c[j]!) < 0) return -valueOf(neg.i[j]!)
      if ((rest -= acc.zero) < 0) return 0
      const pos = acc.pos
      for (let j = 0; j < pos.i.length; j++) if ((rest -= pos.c[j]!) < 0) return valueOf(pos.i[j]!)
      if ((rest -= acc.pinf) < 0) return Infinity
      return NaN
    },
  }
}
