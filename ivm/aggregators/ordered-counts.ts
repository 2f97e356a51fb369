// A counted, ordered multiset with rank / select: the state of the ordered-set aggregates
// (percentile_cont, percentile_disc, mode), and the aggregator shape the percentiles share.
//
// The distinct values, sorted by `compare`, each with its weighted count, are cut into
// consecutive chunks (parallel value / count arrays of at most CHUNK_MAX entries, never
// empty), and each chunk's total count is kept beside it. An update binary-searches the chunk
// (by the chunks' last values), then inside it, and splices that chunk only:
// O(log n + CHUNK_MAX). select(rank) walks the chunk totals, then one chunk:
// O(n / CHUNK_MAX + CHUNK_MAX), never a sort. A chunk past CHUNK_MAX splits in two; a chunk
// shrinking below CHUNK_MAX / 4 merges with a neighbour when they fit in one (so the chunk
// count stays near n / CHUNK_MAX whatever the order of inserts and deletes).
// Values comparing equal (compare = 0) share one entry (the first one inserted represents
// them); an entry leaves when its count reaches 0. Plain data (arrays, a plain object), so a
// checkpoint can write it.

import type { Aggregator } from './aggregator.js'
import { chunkOf, searchSorted } from './min-max.js'

/** Most entries a chunk holds. */
export const ORDERED_CHUNK_MAX = 512

export interface OrderedCounts {
  /** Chunks of distinct values; their concatenation is sorted by the comparator. */
  v: unknown[][]
  /** Their counts, chunk by chunk. */
  c: number[][]
  /** Each chunk's total count. */
  t: number[]
  /** The total count (Σ t). */
  n: number
}

export function createOrderedCounts(): OrderedCounts {
  return { v: [], c: [], t: [], n: 0 }
}

function sumOf(c: readonly number[]): number {
  let s = 0
  for (let i = 0; i < c.length; i++) s += c[i]!
  return s
}

/** Adds `weight` copies of `value`; returns the value's count after the change. */
export function orderedAdd(acc: OrderedCounts, value: unknown, weight: number, cmp: (a: unknown, b: unknown) => number): number {
  const cv = acc.v
  const cc = acc.c
  acc.n += weight
  if (cv.length === 0) {
    cv.push([value])
    cc.push([weight])
    acc.t.push(weight)
    return weight
  }
  const k = chunkOf(cv, value, cmp)
  const v = cv[k]!
  const c = cc[k]!
  acc.t[k]! += weight
  const i = searchSorted(v, value, cmp)
  if (i >= 0) {
    const now = c[i]! + weight
    if (now !== 0) {
      c[i] = now
      return now
    }
    v.splice(i, 1)
    c.splice(i, 1)
    if (v.length === 0) {
      cv.splice(k, 1)
      cc.splice(k, 1)
      acc.t.splice(k, 1)
    } else if (v.length < ORDERED_CHUNK_MAX >>> 2) mergeSmall(acc, k)
    return 0
  }
  const at = -i - 1
  v.splice(at, 0, value)
  c.splice(at, 0, weight)
  if (v.length > ORDERED_CHUNK_MAX) {
    const h = v.length >>> 1
    const tail = c.splice(h)
    cv.splice(k + 1, 0, v.splice(h))
    cc.splice(k + 1, 0, tail)
    const moved = sumOf(tail)
    acc.t[k]! -= moved
    acc.t.splice(k + 1, 0, moved)
  }
  return weight
}

/** Merges chunk k with its smaller neighbour when both fit in one chunk. */
function mergeSmall(acc: OrderedCounts, k: number): void {
  const cv = acc.v
  const prev = k > 0 ? cv[k - 1]!.length : Infinity
  const next = k + 1 < cv.length ? cv[k + 1]!.length : Infinity
  const j = prev <= next ? k - 1 : k
  if ((prev <= next ? prev : next) + cv[k]!.length > ORDERED_CHUNK_MAX) return
  const av = cv[j]!
  const ac = acc.c[j]!
  const bv = cv[j + 1]!
  const bc = acc.c[j + 1]!
  for (let i = 0; i < bv.length; i++) {
    av.push(bv[i])
    ac.push(bc[i]!)
  }
  acc.t[j]! += acc.t[j + 1]!
  cv.splice(j + 1, 1)
  acc.c.splice(j + 1, 1)
  acc.t.splice(j + 1, 1)
}

/** The value at 0-based `rank` among all copies (0 ≤ rank < n), in the comparator's order. */
export function orderedSelect(acc: OrderedCounts, rank: number): unknown {
  const t = acc.t
  let k = 0
  while (k < t.length - 1 && rank >= t[k]!) rank -= t[k++]!
  const v = acc.v[k]!
  const c = acc.c[k]!
  let i = 0
  while (i < v.length - 1 && rank >= c[i]!) rank -= c[i++]!
  return v[i]
}

/** The count of `value` (0 when absent). */
export function orderedCount(acc: OrderedCounts, value: unknown, cmp: (a: unknown, b: unknown) => number): number {
  if (acc.v.length === 0) return 0
  const k = chunkOf(acc.v, value, cmp)
  const i = searchSorted(acc.v[k]!, value, cmp)
  return i >= 0 ? acc.c[k]![i]! : 0
}

/** An ordered-set aggregate over OrderedCounts: `pick` answers one fraction from a non-empty
 *  multiset; `asArray` builds the array form's result (one element per fraction), null for the
 *  single-fraction form (the result is then the one value). Null for a group without values. */
export function orderedSetAggregate(
  name: string,
  compare: (a: unknown, b: unknown) => number,
  fractions: readonly (number | null)[],
  asArray: ((values: unknown[]) => unknown) | null,
  pick: (acc: OrderedCounts, fraction: number) => unknown,
): Aggregator<OrderedCounts, unknown> {
  const answer = (acc: OrderedCounts, f: number | null): unknown => (f === null ? null : pick(acc, f))
  return {
    name,
    create: createOrderedCounts,
    add(acc, value, weight) {
      if (value === null || value === undefined || weight === 0) return acc
      orderedAdd(acc, value, weight, compare)
      return acc
    },
    result(acc) {
      if (acc.n <= 0) return null
      if (asArray === null) return answer(acc, fractions[0] ?? null)
      return asArray(fractions.map((f) => answer(acc, f)))
    },
  }
}
