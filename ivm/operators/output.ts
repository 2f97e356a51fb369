// OutputOperator ('Output', also exported as InspectOperator) — calls a callback with every
// non-empty step delta of its input (subscribers, debugging).
//
// Semantics:  out = Δin; callback(Δin) when Δin ≠ 0
// State kept: none.
// Linear:     yes.
// Retracts:   yes (passes retractions to the callback).
//
// The callback runs during `circuit.step()`: it sees deltas of steps that may still be rolled
// back. Subscribers that need committed changes should buffer until the engine commits.

import type { Circuit } from '../circuit.js'
import { BaseOperator, type Operator } from '../operator.js'
import type { ZSet } from '../zset.js'

export class OutputOperator extends BaseOperator {
  readonly name = 'Output'
  readonly callback: (delta: ZSet) => void

  constructor(input: Operator, callback: (delta: ZSet) => void) {
    super([input])
    this.callback = callback
  }

  step(): void {
    const d = this.inputs[0]!.out
    this.out = d
    if (d.rows.length !== 0) this.callback(d)
  }
}

export { OutputOperator as InspectOperator }

export function output(circuit: Circuit, input: Operator, callback: (delta: ZSet) => void): OutputOperator {
  return circuit.add(new OutputOperator(input, callback))
}

export const inspect = output
