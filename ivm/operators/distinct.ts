// DistinctOperator — set semantics: every row whose integrated weight is positive, once.
//
// Semantics:  out = Σ_{r ∈ Δin} ([W_new(r) > 0] − [W_old(r) > 0]) · r, with W = ∫Δin.
//             Only rows crossing 0 emit (a second copy of a row emits nothing).
// State kept: the integral as an Arrangement keyed by rowHash (one Map entry per distinct
//             row with a small-integer key: no per-row key strings; see ArrangeOperator).
// Linear:     no.
// Retracts:   yes (a row's last copy retracted → −1).

import type { Circuit } from '../circuit.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet } from '../zset.js'
import { Arrangement } from './arrange.js'

export class DistinctOperator extends BaseOperator {
  readonly name = 'Distinct'
  readonly #state = Arrangement.byRow()
  readonly #journal = new Journal<ZSet>()

  constructor(input: Operator) {
    super([input])
  }

  step(): void {
    const d = this.inputs[0]!.out
    const out = new ZSet()
    this.out = out
    if (d.rows.length === 0) return
    this.#journal.record(d)
    const rows = d.rows
    const ws = d.weights
    const st = this.#state
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      const w = ws[i]!
      const now = st.apply(r, w)
      const before = now - w
      if (before > 0 !== now > 0) out.push(r, now > 0 ? 1 : -1)
    }
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((d) => this.#state.applyDelta(d, -1))
  }

  override stateSize(): number {
    return this.#state.size
  }

  override describeState(): string {
    return `distinct rows: ${this.#state.size}`
  }
}

export function distinct(circuit: Circuit, input: Operator): DistinctOperator {
  return circuit.add(new DistinctOperator(input))
}
