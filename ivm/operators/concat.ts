// ConcatOperator ('Union') — UNION ALL of n inputs.
//
// Semantics:  out = Δin₁ + Δin₂ + … + Δinₙ   (concatenated, not consolidated: rows of different
//             inputs that cancel are left for the stateful readers, which absorb them exactly)
// State kept: none.
// Linear:     yes.
// Retracts:   yes.
//
// When only one input changed this step its delta is passed through without copying.

import type { Circuit } from '../circuit.js'
import { BaseOperator, type Operator } from '../operator.js'
import { ZSet } from '../zset.js'

export class ConcatOperator extends BaseOperator {
  readonly name = 'Union'

  constructor(inputs: readonly Operator[]) {
    super(inputs)
  }

  step(): void {
    const ins = this.inputs
    let only: ZSet | undefined
    let count = 0
    for (let i = 0; i < ins.length; i++) {
      const d = ins[i]!.out
      if (d.rows.length !== 0) {
        count++
        only = d
      }
    }
    if (count <= 1) {
      this.out = only ?? new ZSet()
      return
    }
    const out = new ZSet()
    for (let i = 0; i < ins.length; i++) {
      const d = ins[i]!.out
      if (d.rows.length !== 0) out.append(d)
    }
    this.out = out
  }
}

export function concat(circuit: Circuit, inputs: readonly Operator[]): ConcatOperator {
  return circuit.add(new ConcatOperator(inputs))
}
