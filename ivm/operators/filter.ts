// FilterOperator — keeps the rows satisfying a predicate.
//
// Semantics:  out = { (r, w) ∈ Δin : pred(r) }
// State kept: none.
// Linear:     yes.
// Retracts:   yes.

import type { Circuit } from '../circuit.js'
import { LinearOperator, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'

export class FilterOperator extends LinearOperator {
  readonly name = 'Filter'
  readonly pred: (row: Row) => boolean

  constructor(input: Operator, pred: (row: Row) => boolean) {
    super(input)
    this.pred = pred
  }

  apply(delta: ZSet): ZSet {
    const src = delta.rows
    const ws = delta.weights
    const n = src.length
    const pred = this.pred
    const out = new ZSet()
    for (let i = 0; i < n; i++) {
      const r = src[i]!
      if (pred(r)) out.push(r, ws[i]!)
    }
    return out
  }
}

export function filter(circuit: Circuit, input: Operator, pred: (row: Row) => boolean): FilterOperator {
  return circuit.add(new FilterOperator(input, pred))
}
