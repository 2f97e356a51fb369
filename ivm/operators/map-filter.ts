// MapFilterOperator ('Mfp') — a filter followed by a map, fused into one pass (the renderer
// uses it for WHERE + projection). Either part may be absent, or both may come as one
// function `filterMap` that returns the mapped row or undefined for a dropped row (so the
// two share work, such as a call that appears in both).
//
// Semantics:  out = { (fn(r), w) : (r, w) ∈ Δin, pred(r) }
// State kept: none.
// Linear:     yes.
// Retracts:   yes.

import type { Circuit } from '../circuit.js'
import { LinearOperator, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'

export class MapFilterOperator extends LinearOperator {
  readonly name = 'Mfp'
  readonly pred: ((row: Row) => boolean) | undefined
  readonly fn: ((row: Row) => Row) | undefined
  readonly filterMap: ((row: Row) => Row | undefined) | undefined

  constructor(
    input: Operator,
    pred: ((row: Row) => boolean) | undefined,
    fn: ((row: Row) => Row) | undefined,
    filterMap?: (row: Row) => Row | undefined,
  ) {
    super(input)
    this.pred = pred
    this.fn = fn
    this.filterMap = filterMap
  }

  apply(delta: ZSet): ZSet {
    const src = delta.rows
    const ws = delta.weights
    const n = src.length
    const filterMap = this.filterMap
    if (filterMap !== undefined) {
      const out = new ZSet()
      for (let i = 0; i < n; i++) {
        const r = filterMap(src[i]!)
        if (r !== undefined) out.push(r, ws[i]!)
      }
      return out
    }
    const pred = this.pred
    const fn = this.fn
    if (pred === undefined) {
      if (fn === undefined) return delta
      const rows = new Array<Row>(n)
      for (let i = 0; i < n; i++) rows[i] = fn(src[i]!)
      return new ZSet(rows, ws.slice())
    }
    const out = new ZSet()
    if (fn === undefined) {
      for (let i = 0; i < n; i++) {
        const r = src[i]!
        if (pred(r)) out.push(r, ws[i]!)
      }
    } else {
      for (let i = 0; i < n; i++) {
        const r = src[i]!
        if (pred(r)) out.push(fn(r), ws[i]!)
      }
    }
    return out
  }
}

export function mapFilter(
  circuit: Circuit,
  input: Operator,
  pred: ((row: Row) => boolean) | undefined,
  fn: ((row: Row) => Row) | undefined,
  filterMap?: (row: Row) => Row | undefined,
): MapFilterOperator {
  return circuit.add(new MapFilterOperator(input, pred, fn, filterMap))
}
