// A sorted multiset of rows in chunks, addressed by position: the ordered state of TopK and
// Window partitions. Rows are kept distinct with their counts (weights); a row of count c
// occupies c consecutive positions (a count ≤ 0, possible only inside a step, occupies none).
// Chunks hold ≤ CHUNK_MAX distinct rows and know how many positions they fill, so an update
// is a binary search over chunks, one inside a chunk and a splice of ≤ CHUNK_MAX entries (a
// change in a 1M-row partition never moves the whole partition), and a position is found by
// summing chunk sizes: O(rows / CHUNK_MAX).

import type { Row } from './zset.js'

/** Chunks are split above this many distinct rows. */
export const CHUNK_MAX = 512

export class Chunk {
  rows: Row[]
  counts: number[]
  /** Σ max(count, 0): positions occupied. */
  positions: number

  constructor(rows: Row[], counts: number[]) {
    this.rows = rows
    this.counts = counts
    let p = 0
    for (let i = 0; i < counts.length; i++) if (counts[i]! > 0) p += counts[i]!
    this.positions = p
  }
}

/** A run of positions read from a ChunkedRows: distinct rows in order with the positions
 *  they fill. */
export class RowRun {
  rows: Row[] = []
  counts: number[] = []
}

export class ChunkedRows {
  chunks: Chunk[] = []
  /** Distinct rows held. */
  size = 0

  /** Adds weight `w` to `row` (ordered by `cmp`, a total order); returns its new count. */
  apply(row: Row, w: number, cmp: (a: Row, b: Row) => number): number {
    const chunks = this.chunks
    if (chunks.length === 0) {
      chunks.push(new Chunk([row], [w]))
      this.size++
      return w
    }
    // first chunk whose last row ≥ row (else the last chunk)
    let lo = 0
    let hi = chunks.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const c = chunks[mid]!
      if (cmp(c.rows[c.rows.length - 1]!, row) < 0) lo = mid + 1
      else hi = mid
    }
    const ci = lo
    const chunk = chunks[ci]!
    const rows = chunk.rows
    const counts = chunk.counts
    let a = 0
    let b = rows.length - 1
    let found = -1
    while (a <= b) {
      const mid = (a + b) >>> 1
      const c = cmp(rows[mid]!, row)
      if (c < 0) a = mid + 1
      else if (c > 0) b = mid - 1
      else {
        found = mid
        break
      }
    }
    if (found >= 0) {
      const before = counts[found]!
      const now = before + w
      chunk.positions += (now > 0 ? now : 0) - (before > 0 ? before : 0)
      if (now !== 0) {
        counts[found] = now
        return now
      }
      rows.splice(found, 1)
      counts.splice(found, 1)
      this.size--
      if (rows.length === 0) chunks.splice(ci, 1)
      return 0
    }
    rows.splice(a, 0, row)
    counts.splice(a, 0, w)
    if (w > 0) chunk.positions += w
    this.size++
    if (rows.length > CHUNK_MAX) {
      const half = rows.length >>> 1
      const right = new Chunk(rows.slice(half), counts.slice(half))
      const left = new Chunk(rows.slice(0, half), counts.slice(0, half))
      chunks.splice(ci, 1, left, right)
    }
    return w
  }

  /** Drops every position from `to` on (append-only input: all counts are positive). */
  truncate(to: number): void {
    const chunks = this.chunks
    let pos = 0
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c]!
      if (pos + chunk.positions <= to) {
        pos += chunk.positions
        continue
      }
      // this chunk crosses `to`: keep its rows before it, the last one cut to fit
      const rows = chunk.rows
      const counts = chunk.counts
      let kept = 0
      let positions = 0
      while (kept < rows.length && pos < to) {
        const take = Math.min(counts[kept]!, to - pos)
        counts[kept] = take
        pos += take
        positions += take
        kept++
      }
      let dropped = rows.length - kept
      for (let d = c + 1; d < chunks.length; d++) dropped += chunks[d]!.rows.length
      rows.length = kept
      counts.length = kept
      chunk.positions = positions
      chunks.length = kept > 0 ? c + 1 : c
      this.size -= dropped
      return
    }
  }

  /** The position after the last row that `ties` finds equal to the row at `to` − 1 (`to`
   *  when there are not that many positions): where a run with ties ends. */
  tiedEnd(to: number, ties: (a: Row, b: Row) => number): number {
    const chunks = this.chunks
    let pos = 0
    let last: Row | undefined
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c]!
      if (last === undefined && pos + chunk.positions < to) {
        pos += chunk.positions
        continue
      }
      const rows = chunk.rows
      const counts = chunk.counts
      for (let i = 0; i < rows.length; i++) {
        const n = counts[i]!
        if (n <= 0) continue
        if (last === undefined) {
          pos += n
          if (pos >= to) last = rows[i]!
        } else if (ties(rows[i]!, last) === 0) pos += n
        else return pos
      }
    }
    return pos > to ? pos : to
  }

  /** Rows at positions [from, to), as distinct rows with the number of positions each fills.
   *  With `ties`, also every row after `to` that `ties` finds equal to the row at `to` − 1
   *  (they follow it: the order refines `ties`). */
  read(from: number, to: number, ties?: (a: Row, b: Row) => number): RowRun {
    const win = new RowRun()
    if (to <= from) return win
    const chunks = this.chunks
    let pos = 0
    /** The row at position to − 1, once passed (with ties). */
    let last: Row | undefined
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c]!
      if (pos + chunk.positions <= from) {
        pos += chunk.positions
        continue
      }
      const rows = chunk.rows
      const counts = chunk.counts
      for (let i = 0; i < rows.length; i++) {
        const n = counts[i]!
        if (n <= 0) continue
        if (last !== undefined) {
          if (ties!(rows[i]!, last) !== 0) return win
          win.rows.push(rows[i]!)
          win.counts.push(n)
          continue
        }
        const start = pos > from ? pos : from
        // the row at to − 1 fills all its positions when ties come along
        const end = pos + n < to || ties !== undefined ? pos + n : to
        if (end > start) {
          win.rows.push(rows[i]!)
          win.counts.push(end - start)
        }
        pos += n
        if (pos >= to) {
          if (ties === undefined) return win
          last = rows[i]!
        }
      }
    }
    return win
  }

  /** Positions filled (Σ max(count, 0)). */
  positionCount(): number {
    let n = 0
    const chunks = this.chunks
    for (let c = 0; c < chunks.length; c++) n += chunks[c]!.positions
    return n
  }

  /** The first position whose row is not `before` `target`, for a `before(row, target)` that
   *  holds on a prefix of the order (e.g. "sorts below target"); positionCount() if none. */
  positionAfter<T>(target: T, before: (row: Row, target: T) => boolean): number {
    const chunks = this.chunks
    let lo = 0
    let hi = chunks.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const c = chunks[mid]!
      if (before(c.rows[c.rows.length - 1]!, target)) lo = mid + 1
      else hi = mid
    }
    let pos = 0
    for (let c = 0; c < lo; c++) pos += chunks[c]!.positions
    if (lo === chunks.length) return pos
    const { rows, counts } = chunks[lo]!
    let a = 0
    let b = rows.length
    while (a < b) {
      const mid = (a + b) >>> 1
      if (before(rows[mid]!, target)) a = mid + 1
      else b = mid
    }
    for (let i = 0; i < a; i++) if (counts[i]! > 0) pos += counts[i]!
    return pos
  }

  /** The row at `pos` (0 ≤ pos < positionCount()). */
  rowAt(pos: number): Row {
    const chunks = this.chunks
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c]!
      if (pos >= chunk.positions) {
        pos -= chunk.positions
        continue
      }
      const { rows, counts } = chunk
      for (let i = 0; i < rows.length; i++) {
        const n = counts[i]!
        if (n <= 0) continue
        if (pos < n) return rows[i]!
        pos -= n
      }
    }
    throw new Error(`ChunkedRows: no row at position ${pos}`)
  }

  /** Drops the first rows while they fit in `n` positions (whole rows only); returns the
   *  positions dropped. */
  dropFront(n: number): number {
    const chunks = this.chunks
    let dropped = 0
    let c = 0
    while (c < chunks.length && dropped + chunks[c]!.positions <= n) {
      dropped += chunks[c]!.positions
      this.size -= chunks[c]!.rows.length
      c++
    }
    chunks.splice(0, c)
    const first = chunks[0]
    if (first === undefined) return dropped
    let k = 0
    while (k < first.rows.length && dropped + Math.max(first.counts[k]!, 0) <= n) {
      const m = Math.max(first.counts[k]!, 0)
      dropped += m
      first.positions -= m
      k++
    }
    if (k > 0) {
      first.rows.splice(0, k)
      first.counts.splice(0, k)
      this.size -= k
      if (first.rows.length === 0) chunks.splice(0, 1)
    }
    return dropped
  }

  /** Appends the row of every position in [from, to) to `into` (a row of count c c times). */
  expand(from: number, to: number, into: Row[]): void {
    const run = this.read(from, to)
    for (let i = 0; i < run.rows.length; i++) {
      const r = run.rows[i]!
      for (let k = run.counts[i]!; k > 0; k--) into.push(r)
    }
  }
}
