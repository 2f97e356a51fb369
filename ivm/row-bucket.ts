// The rows held at one time by the operators that keep rows by time (sessions, ASOF and
// temporal joins): parallel rows/weights arrays found by a linear `rowsEqual` scan (one or a
// few rows per time is the common case; no map per time), plus a key index once a time holds
// many rows.

import { rowKey, rowsEqual, type RowKey } from './key.js'
import type { Row } from './zset.js'

/** Above this many rows at one time, a bucket keeps a key index instead of scanning. */
const BUCKET_SCAN = 32

export class RowBucket {
  readonly rows: Row[]
  readonly weights: number[]
  #index: Map<RowKey, number> | null = null

  constructor(rows: Row[] = [], weights: number[] = []) {
    this.rows = rows
    this.weights = weights
  }

  get size(): number {
    return this.rows.length
  }

  #find(row: Row): number {
    const idx = this.#index
    if (idx !== null) return idx.get(rowKey(row)) ?? -1
    const rows = this.rows
    for (let i = 0; i < rows.length; i++) if (rowsEqual(rows[i]!, row)) return i
    return -1
  }

  /** Adds (row, w); returns +1 when a row entered, −1 when one left, 0 otherwise. */
  add(row: Row, w: number): number {
    const i = this.#find(row)
    if (i < 0) {
      const at = this.rows.length
      this.rows.push(row)
      this.weights.push(w)
      if (this.#index !== null) this.#index.set(rowKey(row), at)
      else if (at + 1 > BUCKET_SCAN) {
        const m = new Map<RowKey, number>()
        for (let j = 0; j <= at; j++) m.set(rowKey(this.rows[j]!), j)
        this.#index = m
      }
      return 1
    }
    const nw = this.weights[i]! + w
    if (nw !== 0) {
      this.weights[i] = nw
      return 0
    }
    // remove position i: swap with the last
    const last = this.rows.length - 1
    const idx = this.#index
    if (idx !== null) idx.delete(rowKey(this.rows[i]!))
    if (i !== last) {
      this.rows[i] = this.rows[last]!
      this.weights[i] = this.weights[last]!
      if (idx !== null) idx.set(rowKey(this.rows[i]!), i)
    }
    this.rows.pop()
    this.weights.pop()
    return -1
  }
}
