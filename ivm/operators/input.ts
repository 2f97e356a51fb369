// InputOperator — a source: the engine pushes each tick's change of a table (or any external
// collection) into it.
//
// Semantics:  out = Σ push(δ) of this step (concatenated; the pushed deltas are the change).
// State kept: none (the engine owns the table storage; `snapshot()` asks it for the contents).
// Linear:     yes (identity on what is pushed).
// Retracts:   yes, whatever is pushed.
//
// `push` takes ownership of the delta: do not mutate it afterwards. Deltas must be free of
// zero weights (they need not be consolidated).

import type { Circuit } from '../circuit.js'
import { BaseOperator } from '../operator.js'
import { ZSet } from '../zset.js'

export class InputOperator extends BaseOperator {
  readonly name = 'Input'
  readonly #snapshot: () => ZSet

  constructor(snapshot: () => ZSet) {
    super([])
    this.#snapshot = snapshot
  }

  /** Adds `delta` to this step's output (call before `circuit.step()`). */
  push(delta: ZSet): void {
    if (delta.rows.length === 0) return
    if (this.out.rows.length === 0) {
      this.out = delta
      return
    }
    // `out` is a delta we own (pushed earlier this step): copy it once before appending so a
    // caller's ZSet is never mutated.
    if (this.out !== this.#owned) {
      const own = new ZSet()
      own.append(this.out)
      this.out = own
      this.#owned = own
    }
    this.out.append(delta)
  }

  #owned: ZSet | null = null

  step(): void {
    // Sources are never stepped by the circuit (no inputs) except in backfill, where their
    // pending output must not be touched.
  }

  snapshot(): ZSet {
    return this.#snapshot()
  }
}

export function input(circuit: Circuit, snapshot: () => ZSet): InputOperator {
  return circuit.add(new InputOperator(snapshot))
}
