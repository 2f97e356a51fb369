// Z-sets: multisets of rows with integer weights. A delta (the change of one tick) is a Z-set;
// +1 is an insert, −1 a delete, an update is −old +new. Stored as two parallel arrays so a
// batch of n changes costs two arrays, not n tuples.

import { checkInterrupt, countRow, interruptHook, MAX_BATCH_ROWS } from './interrupt.js'
import { rowHash, rowsEqual } from './key.js'

/** A row is a fixed-arity array of values. ivm never looks inside values except through key
 *  encoding and the functions the planner hands it. */
export type Row = readonly unknown[]

/** [...l, ...r] in one allocation (joins' output rows). */
export function concatRows(l: Row, r: Row): Row {
  const n = l.length
  const m = r.length
  const o = new Array<unknown>(n + m)
  for (let i = 0; i < n; i++) o[i] = l[i]
  for (let j = 0; j < m; j++) o[n + j] = r[j]
  return o
}

export class ZSet {
  readonly rows: Row[]
  readonly weights: number[]

  constructor(rows: Row[] = [], weights: number[] = []) {
    this.rows = rows
    this.weights = weights
  }

  static empty(): ZSet {
    return new ZSet()
  }

  static of(pairs: readonly (readonly [Row, number])[]): ZSet {
    const z = new ZSet()
    for (const [r, w] of pairs) z.push(r, w)
    return z
  }

  get length(): number {
    return this.rows.length
  }

  isEmpty(): boolean {
    return this.rows.length === 0
  }

  push(row: Row, weight: number): void {
    countRow()
    if (this.rows.length >= MAX_BATCH_ROWS) interruptHook.overflow()
    this.rows.push(row)
    this.weights.push(weight)
  }

  /** Appends every entry of `other`, scaled by `scale`. */
  append(other: ZSet, scale = 1): void {
    const { rows, weights } = other
    for (let i = 0; i < rows.length; i++) {
      this.rows.push(rows[i]!)
      this.weights.push(weights[i]! * scale)
    }
  }

  negate(): ZSet {
    const w = new Array<number>(this.weights.length)
    for (let i = 0; i < w.length; i++) w[i] = -this.weights[i]!
    return new ZSet(this.rows.slice(), w)
  }

  /** Merges equal rows (by value) and drops zero weights. Keeps first-seen order. Rows are
   *  matched by a numeric row hash and `rowsEqual` (no key string per row). */
  consolidate(): ZSet {
    const n = this.rows.length
    if (n === 0) return this
    if (n === 1) return this.weights[0] === 0 ? new ZSet() : this
    // hash → position of the first row with it, or the positions when rows collide
    const index = new Map<number, number | number[]>()
    const rows: Row[] = []
    const weights: number[] = []
    for (let i = 0; i < n; i++) {
      if ((i & 8191) === 8191) checkInterrupt()
      const row = this.rows[i]!
      const h = rowHash(row)
      const at = index.get(h)
      let found = -1
      if (at !== undefined) {
        if (typeof at === 'number') {
          if (rowsEqual(rows[at]!, row)) found = at
        } else {
          for (let j = 0; j < at.length; j++) {
            if (rowsEqual(rows[at[j]!]!, row)) {
              found = at[j]!
              break
            }
          }
        }
      }
      if (found >= 0) {
        weights[found]! += this.weights[i]!
        continue
      }
      const pos = rows.length
      if (at === undefined) index.set(h, pos)
      else if (typeof at === 'number') index.set(h, [at, pos])
      else at.push(pos)
      rows.push(row)
      weights.push(this.weights[i]!)
    }
    const out = new ZSet()
    for (let i = 0; i < rows.length; i++) if (weights[i] !== 0) out.push(rows[i]!, weights[i]!)
    return out
  }

  /** [row, weight] pairs (tests, debugging, subscribers). */
  entries(): [Row, number][] {
    return this.rows.map((r, i) => [r, this.weights[i]!])
  }
}
