// MapOperator — applies a row function to every row.
//
// Semantics:  out = { (fn(r), w) : (r, w) ∈ Δin }   (rows mapping to equal rows are not merged)
// State kept: none.
// Linear:     yes.
// Retracts:   yes (a retraction maps to a retraction).

import type { Circuit } from '../circuit.js'
import { LinearOperator, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'

export class MapOperator extends LinearOperator {
  readonly name = 'Map'
  readonly fn: (row: Row) => Row

  constructor(input: Operator, fn: (row: Row) => Row) {
    super(input)
    this.fn = fn
  }

  apply(delta: ZSet): ZSet {
    const src = delta.rows
    const n = src.length
    const fn = this.fn
    const rows = new Array<Row>(n)
    for (let i = 0; i < n; i++) rows[i] = fn(src[i]!)
    return new ZSet(rows, delta.weights.slice())
  }
}

export function map(circuit: Circuit, input: Operator, fn: (row: Row) => Row): MapOperator {
  return circuit.add(new MapOperator(input, fn))
}
