// FlatMapOperator — each row produces zero or more rows (table functions, HOP windows, …).
//
// Semantics:  out = { (o, w) : (r, w) ∈ Δin, o ∈ fn(r) }   (each emitted row keeps r's weight)
// State kept: none.
// Linear:     yes.
// Retracts:   yes.
//
// `fn` calls `emit` once per output row; `emit` is one closure per operator, not per row.

import type { Circuit } from '../circuit.js'
import { LinearOperator, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'

export class FlatMapOperator extends LinearOperator {
  readonly name = 'FlatMap'
  readonly fn: (row: Row, emit: (out: Row) => void) => void
  #target: ZSet = new ZSet()
  #weight = 0
  readonly #emit: (out: Row) => void

  constructor(input: Operator, fn: (row: Row, emit: (out: Row) => void) => void) {
    super(input)
    this.fn = fn
    this.#emit = (row: Row): void => {
      this.#target.push(row, this.#weight)
    }
  }

  apply(delta: ZSet): ZSet {
    const src = delta.rows
    const ws = delta.weights
    const n = src.length
    const fn = this.fn
    const emit = this.#emit
    const out = new ZSet()
    this.#target = out
    for (let i = 0; i < n; i++) {
      this.#weight = ws[i]!
      fn(src[i]!, emit)
    }
    this.#target = new ZSet()
    return out
  }
}

export function flatMap(circuit: Circuit, input: Operator, fn: (row: Row, emit: (out: Row) => void) => void): FlatMapOperator {
  return circuit.add(new FlatMapOperator(input, fn))
}
