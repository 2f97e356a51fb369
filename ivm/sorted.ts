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

/** Sorts parallel times / rows / weights arrays by time, stably; a no-op (one pass) when they
 *  are already in order, the usual case for event times. */
export function sortByTime<T>(g: { times: number[]; rows: T[]; weights: number[] }): void {
  const t = g.times
  let sorted = true
  for (let i = 1; i < t.length; i++) {
    if (t[i]! < t[i - 1]!) {
      sorted = false
      break
    }
  }
  if (sorted) return
  const order = t.map((_, i) => i).sort((a, b) => (t[a]! < t[b]! ? -1 : t[a]! > t[b]! ? 1 : a - b))
  const rows = g.rows
  const ws = g.weights
  g.times = order.map((i) => t[i]!)
  g.rows = order.map((i) => rows[i]!)
  g.weights = order.map((i) => ws[i]!)
}
