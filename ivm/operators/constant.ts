// ConstantOperator — a fixed collection (VALUES lists, constant relations).
//
// Semantics:  out = rows at the step where the operator is created (backfill), 0 afterwards.
//             Its integral is always `rows`.
// State kept: the rows (shared, never copied). They are the plan's, not the data's: a
//             checkpoint saves nothing for them (the rebuilt plan has them again).
// Linear:     yes (no inputs).
// Retracts:   no.
//
// The circuit only steps operators without inputs during `backfill`, so the rows flow exactly
// once, into the operators created together with it; later readers get them via `snapshot()`.

import type { Circuit } from '../circuit.js'
import { BaseOperator } from '../operator.js'
import type { ZSet } from '../zset.js'

export class ConstantOperator extends BaseOperator {
  readonly name = 'Constant'
  readonly rows: ZSet

  constructor(rows: ZSet) {
    super([])
    this.rows = rows
  }

  step(): void {
    this.out = this.rows
  }

  snapshot(): ZSet {
    return this.rows
  }

  override stateSize(): number {
    return this.rows.length
  }

  saveState(): unknown {
    return null
  }

  loadState(): void {}

  override describeState(): string {
    return `constant: ${this.rows.length} rows`
  }
}

export function constant(circuit: Circuit, rows: ZSet): ConstantOperator {
  return circuit.add(new ConstantOperator(rows))
}
