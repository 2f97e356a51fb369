// NegateOperator — flips every weight (the "minus" of EXCEPT ALL / INTERSECT ALL).
//
// Semantics:  out = −Δin
// State kept: none.
// Linear:     yes.
// Retracts:   yes (it turns inserts into retractions and back).

import type { Circuit } from '../circuit.js'
import { LinearOperator, type Operator } from '../operator.js'
import type { ZSet } from '../zset.js'

export class NegateOperator extends LinearOperator {
  readonly name = 'Negate'

  constructor(input: Operator) {
    super(input)
  }

  apply(delta: ZSet): ZSet {
    return delta.negate()
  }
}

export function negate(circuit: Circuit, input: Operator): NegateOperator {
  return circuit.add(new NegateOperator(input))
}
