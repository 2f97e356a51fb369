// ThresholdOperator — keeps the positive part of the integrated weights:
// EXCEPT ALL = threshold(A − B), INTERSECT ALL = A − threshold(A − B).
//
// Semantics:  out = Σ_{r ∈ Δin} (max(W_new(r), 0) − max(W_old(r), 0)) · r, with W = ∫Δin.
// State kept: the integral as an Arrangement keyed by rowHash (negative weights included).
// Linear:     no.
// Retracts:   yes.

import type { Circuit } from '../circuit.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import type { ChangeShares, KeyedEntries, KeyedPart, KeyedSnapshot } from '../keyed-state.js'
import type { RowKey } from '../key.js'
import { ZSet } from '../zset.js'
import { Arrangement, type ArrangementState } from './arrange.js'

export class ThresholdOperator extends BaseOperator {
  readonly name: string = 'Threshold'
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
      const dw = this.clip(now) - this.clip(before)
      if (dw !== 0) out.push(r, dw)
    }
  }

  /** The output weight of a row whose integrated weight is `w`. */
  protected readonly stateLabel: string = 'integrated rows'

  protected clip(w: number): number {
    return w > 0 ? w : 0
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((d) => this.#state.applyDelta(d, -1))
  }

  saveState(): ArrangementState {
    return this.#state.saveState()
  }

  loadState(state: unknown): void {
    this.#state.loadState(state as ArrangementState)
  }

  saveKeyed(all: boolean): KeyedPart {
    return this.#state.saveKeyed(all)
  }

  snapshotKeyed(all: boolean): KeyedSnapshot {
    return this.#state.snapshotKeyed(all)
  }

  changeShares(): ChangeShares {
    return this.#state.changeShares()
  }

  fuzzyBaseKeyed(): KeyedSnapshot {
    return this.#state.fuzzyBaseKeyed()
  }

  loadKeyed(_whole: unknown, entries: KeyedEntries): void {
    this.#state.loadKeyed(entries)
  }

  override stateSize(): number {
    return this.#state.size
  }

  override describeState(): string {
    return `${this.stateLabel}: ${this.#state.size}`
  }
}

export function threshold(circuit: Circuit, input: Operator): ThresholdOperator {
  return circuit.add(new ThresholdOperator(input))
}
