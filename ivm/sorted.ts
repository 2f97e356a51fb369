// Binary search over ascending arrays of numbers (times), shared by the operators that keep
// rows by time (sessions, time joins, temporal filters) and by version histories.

/** First index i in ascending `a` with a[i] ≥ x (a.length if none). */
export function lowerBound(a: readonly number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index i in ascending `a` with a[i] > x (a.length if none). */
export function upperBound(a: readonly number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}
