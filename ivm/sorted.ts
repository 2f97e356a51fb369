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

/** A binary min-heap of (time, item) entries in parallel arrays (no object per entry): the
 *  free hints of the time joins, which pop only the keys a watermark has made due. */
export class TimeHeap<T> {
  readonly times: number[] = []
  readonly items: T[] = []

  get size(): number {
    return this.times.length
  }

  push(t: number, item: T): void {
    const times = this.times
    const items = this.items
    let i = times.length
    times.push(t)
    items.push(item)
    while (i > 0) {
      const p = (i - 1) >> 1
      const pt = times[p]!
      if (pt <= t) break
      times[i] = pt
      items[i] = items[p]!
      i = p
    }
    times[i] = t
    items[i] = item
  }

  /** Removes the least entry (times[0], items[0]). */
  pop(): void {
    const times = this.times
    const items = this.items
    const t = times.pop()!
    const item = items.pop()!
    const n = times.length
    if (n === 0) return
    this.#siftDown(0, t, item, n)
  }

  /** Keeps the entries `keep` accepts and restores the heap order (Floyd: O(n)). */
  filter(keep: (t: number, item: T) => boolean): void {
    const times = this.times
    const items = this.items
    let w = 0
    for (let i = 0; i < times.length; i++) {
      const t = times[i]!
      const item = items[i]!
      if (!keep(t, item)) continue
      times[w] = t
      items[w++] = item
    }
    times.length = w
    items.length = w
    for (let i = (w >> 1) - 1; i >= 0; i--) this.#siftDown(i, times[i]!, items[i]!, w)
  }

  /** Puts (t, item) at position i or below, among the first n entries. */
  #siftDown(i: number, t: number, item: T, n: number): void {
    const times = this.times
    const items = this.items
    for (;;) {
      let c = 2 * i + 1
      if (c >= n) break
      if (c + 1 < n && times[c + 1]! < times[c]!) c++
      const ct = times[c]!
      if (ct >= t) break
      times[i] = ct
      items[i] = items[c]!
      i = c
    }
    times[i] = t
    items[i] = item
  }
}
