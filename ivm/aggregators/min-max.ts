// MIN / MAX under a comparator.
//
// Accumulator: { v, c } — the distinct non-null values sorted so that the extreme is LAST
//   (ascending for max, descending for min), with their weighted counts in c. Updates are a
//   binary search plus a splice (a memmove of the tail); inserting a new extreme is a push and
//   retracting the current extreme a pop, both O(1) after the search. Values comparing equal
//   (compare = 0) share one entry. The result is the last value with a positive count, or null.

import type { Aggregator } from './aggregator.js'

export interface MinMaxAcc {
  v: unknown[]
  c: number[]
}

/** Position of `value` in `v` sorted by `cmp`, or −(insertion point) − 1. */
export function searchSorted(v: readonly unknown[], value: unknown, cmp: (a: unknown, b: unknown) => number): number {
  let lo = 0
  let hi = v.length - 1
  // fast path: at or beyond the end (new extremes, retracting the extreme)
  if (hi >= 0) {
    const c = cmp(v[hi], value)
    if (c === 0) return hi
    if (c < 0) return -(hi + 1) - 1
    hi--
  }
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const c = cmp(v[mid], value)
    if (c < 0) lo = mid + 1
    else if (c > 0) hi = mid - 1
    else return mid
  }
  return -lo - 1
}

function makeExtreme(name: string, cmp: (a: unknown, b: unknown) => number): Aggregator<MinMaxAcc, unknown> {
  return {
    name,
    create: () => ({ v: [], c: [] }),
    add(acc, value, weight) {
      if (value === null || value === undefined || weight === 0) return acc
      const { v, c } = acc
      const i = searchSorted(v, value, cmp)
      if (i >= 0) {
        const n = c[i]! + weight
        if (n !== 0) c[i] = n
        else if (i === v.length - 1) {
          v.pop()
          c.pop()
        } else {
          v.splice(i, 1)
          c.splice(i, 1)
        }
      } else {
        const at = -i - 1
        if (at === v.length) {
          v.push(value)
          c.push(weight)
        } else {
          v.splice(at, 0, value)
          c.splice(at, 0, weight)
        }
      }
      return acc
    },
    result(acc) {
      const { v, c } = acc
      for (let i = v.length - 1; i >= 0; i--) if (c[i]! > 0) return v[i]
      return null
    },
  }
}

/** MAX under `compare` (negative when a < b). */
export function max<TValue = unknown>(compare: (a: TValue, b: TValue) => number): Aggregator<MinMaxAcc, TValue | null> {
  return makeExtreme('max', compare as (a: unknown, b: unknown) => number) as Aggregator<MinMaxAcc, TValue | null>
}

/** MIN under `compare` (negative when a < b). */
export function min<TValue = unknown>(compare: (a: TValue, b: TValue) => number): Aggregator<MinMaxAcc, TValue | null> {
  const c = compare as (a: unknown, b: unknown) => number
  return makeExtreme('min', (a, b) => c(b, a)) as Aggregator<MinMaxAcc, TValue | null>
}
