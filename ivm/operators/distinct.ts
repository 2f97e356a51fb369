// DistinctOperator — set semantics: every row whose integrated weight is positive, once.
//
// Semantics:  out = Σ_{r ∈ Δin} ([W_new(r) > 0] − [W_old(r) > 0]) · r, with W = ∫Δin.
//             Only rows crossing 0 emit (a second copy of a row emits nothing).
// State kept: the integral, as ThresholdOperator keeps it (whose step, journal and state
//             this reuses); only the output weight differs: 1 instead of W.
// Linear:     no.
// Retracts:   yes (a row's last copy retracted → −1).

import type { Circuit } from '../circuit.js'
import type { Operator } from '../operator.js'
import { ThresholdOperator } from './threshold.js'

export class DistinctOperator extends ThresholdOperator {
  override readonly name: string = 'Distinct'
  protected override readonly stateLabel: string = 'distinct rows'

  constructor(input: Operator) {
    super(input)
  }

  protected override clip(w: number): number {
    return w > 0 ? 1 : 0
  }
}

export function distinct(circuit: Circuit, input: Operator): DistinctOperator {
  return circuit.add(new DistinctOperator(input))
}
