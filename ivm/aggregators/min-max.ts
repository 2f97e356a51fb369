// MIN / MAX under a comparator.
//
// Accumulator: the distinct non-null values sorted so that the extreme is LAST (ascending for
//   max, descending for min), each with its weighted count. Values comparing equal
//   (compare = 0) share one entry; an entry leaves when its count reaches 0. The result is the
//   last value with a positive count, or null (counts are normally positive, so that is the
//   last value).
//   - Flat (at most CHUNK_ABOVE distinct values, the usual case): { v, c } — the values and
//     their counts in two parallel arrays. An update is a binary search plus a splice (a
//     memmove of the tail); inserting a new extreme is a push, retracting it a pop.
//   - Chunked (beyond CHUNK_ABOVE distinct values): `big` holds the same sorted sequence cut
//     into consecutive chunks (parallel value / count arrays of at most CHUNK_MAX entries, never
//     empty), and v, c are empty. An update binary-searches the chunk (by the chunks' last
//     values), then inside it, and splices that chunk only: O(log n + CHUNK_MAX) instead of the
//     O(n) memmove of one big array. A chunk past CHUNK_MAX splits in two (a new extreme past a
//     full last chunk starts a new chunk); a chunk shrinking below CHUNK_MAX / 4 merges with a
//     neighbour when they fit in one; at FLAT_AT distinct values or fewer the chunks are joined
//     back into the flat arrays (hysteresis: a group hovering around one size does not flip).
//   Only `compare` is used (no hashing), so any value kind it orders works (numbers, strings,
//   booleans, interval objects whose equal values may differ in representation).
//   The accumulator is plain data (arrays and plain objects).

import type { Aggregator } from './aggregator.js'

/** Above this many distinct values a flat accumulator becomes chunked. */
export const CHUNK_ABOVE = 128
/** Most entries a chunk holds. */
export const CHUNK_MAX = 512
/** A chunked accumulator holding this many distinct values or fewer becomes flat again. */
export const FLAT_AT = 64

export interface MinMaxAcc {
  /** Flat: the distinct values, sorted with the extreme last (empty while chunked). */
  v: unknown[]
  /** Flat: their counts (parallel to v). */
  c: number[]
  /** Chunked: the sorted sequence in chunks; null while flat. */
  big: MinMaxChunks | null
}

export interface MinMaxChunks {
  /** Chunks of values; the concatenation is sorted with the extreme last. */
  v: unknown[][]
  /** Their counts (parallel chunk by chunk). */
  c: number[][]
  /** Distinct values held (Σ chunk lengths). */
  n: number
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

/** Adds (value, weight) to sorted parallel arrays; returns the change in distinct values (−1, 0, 1). */
function addSorted(v: unknown[], c: number[], value: unknown, weight: number, cmp: (a: unknown, b: unknown) => number): number {
  const i = searchSorted(v, value, cmp)
  if (i >= 0) {
    const n = c[i]! + weight
    if (n !== 0) {
      c[i] = n
      return 0
    }
    if (i === v.length - 1) {
      v.pop()
      c.pop()
    } else {
      v.splice(i, 1)
      c.splice(i, 1)
    }
    return -1
  }
  const at = -i - 1
  if (at === v.length) {
    v.push(value)
    c.push(weight)
  } else {
    v.splice(at, 0, value)
    c.splice(at, 0, weight)
  }
  return 1
}

/** Cuts flat sorted arrays into chunks of half the maximum (room to grow on both sides). */
function toChunks(v: unknown[], c: number[]): MinMaxChunks {
  const cv: unknown[][] = []
  const cc: number[][] = []
  const size = CHUNK_MAX >>> 1
  for (let i = 0; i < v.length; i += size) {
    cv.push(v.slice(i, i + size))
    cc.push(c.slice(i, i + size))
  }
  return { v: cv, c: cc, n: v.length }
}

/** Index of the chunk where `value` belongs: the first chunk whose last value is ≥ value, or
 *  the last chunk (value beyond every chunk). */
export function chunkOf(cv: readonly unknown[][], value: unknown, cmp: (a: unknown, b: unknown) => number): number {
  let hi = cv.length - 1
  // fast path: the last chunk (new extremes, retracting the extreme)
  if (cmp(cv[hi]![0], value) <= 0) return hi
  hi--
  let lo = 0
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const ch = cv[mid]!
    if (cmp(ch[ch.length - 1], value) < 0) lo = mid + 1
    else hi = mid - 1
  }
  return lo
}

function addChunked(acc: MinMaxAcc, big: MinMaxChunks, value: unknown, weight: number, cmp: (a: unknown, b: unknown) => number): void {
  const cv = big.v
  const cc = big.c
  const k = chunkOf(cv, value, cmp)
  const v = cv[k]!
  const c = cc[k]!
  if (k === cv.length - 1 && v.length >= CHUNK_MAX && cmp(v[v.length - 1], value) < 0) {
    // a new extreme past a full last chunk: start a new one (ascending loads fill chunks)
    cv.push([value])
    cc.push([weight])
    big.n++
    return
  }
  const d = addSorted(v, c, value, weight, cmp)
  if (d === 0) return
  big.n += d
  if (d > 0) {
    if (v.length > CHUNK_MAX) {
      const h = v.length >>> 1
      cv.splice(k + 1, 0, v.splice(h))
      cc.splice(k + 1, 0, c.splice(h))
    }
    return
  }
  if (big.n <= FLAT_AT) {
    // small again: back to the flat arrays
    const fv: unknown[] = []
    const fc: number[] = []
    for (let j = 0; j < cv.length; j++) {
      const xv = cv[j]!
      const xc = cc[j]!
      for (let i = 0; i < xv.length; i++) {
        fv.push(xv[i])
        fc.push(xc[i]!)
      }
    }
    acc.v = fv
    acc.c = fc
    acc.big = null
    return
  }
  if (v.length === 0) {
    cv.splice(k, 1)
    cc.splice(k, 1)
    return
  }
  if (v.length < CHUNK_MAX >>> 2) {
    // merge with the smaller neighbour when both fit in one chunk
    const prev = k > 0 ? cv[k - 1]!.length : Infinity
    const next = k + 1 < cv.length ? cv[k + 1]!.length : Infinity
    const j = prev <= next ? k - 1 : k
    if ((prev <= next ? prev : next) + v.length <= CHUNK_MAX) {
      const av = cv[j]!
      const ac = cc[j]!
      const bv = cv[j + 1]!
      const bc = cc[j + 1]!
      for (let i = 0; i < bv.length; i++) {
        av.push(bv[i])
        ac.push(bc[i]!)
      }
      cv.splice(j + 1, 1)
      cc.splice(j + 1, 1)
    }
  }
}

function makeExtreme(name: string, cmp: (a: unknown, b: unknown) => number): Aggregator<MinMaxAcc, unknown> {
  return {
    name,
    create: (): MinMaxAcc => ({ v: [], c: [], big: null }),
    add(acc, value, weight) {
      if (value === null || value === undefined || weight === 0) return acc
      const big = acc.big
      if (big !== null) addChunked(acc, big, value, weight, cmp)
      else if (addSorted(acc.v, acc.c, value, weight, cmp) > 0 && acc.v.length > CHUNK_ABOVE) {
        acc.big = toChunks(acc.v, acc.c)
        acc.v = []
        acc.c = []
      }
      return acc
    },
    result(acc) {
      const big = acc.big
      if (big === null) {
        const { v, c } = acc
        for (let i = v.length - 1; i >= 0; i--) if (c[i]! > 0) return v[i]
        return null
      }
      const cv = big.v
      const cc = big.c
      for (let k = cv.length - 1; k >= 0; k--) {
        const v = cv[k]!
        const c = cc[k]!
        for (let i = v.length - 1; i >= 0; i--) if (c[i]! > 0) return v[i]
      }
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
