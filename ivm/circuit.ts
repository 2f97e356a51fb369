// The dataflow graph. Operators are added after their inputs, so insertion order is a
// topological order; one `step()` runs each operator whose inputs changed, once, in that order.
// A tick = sources receive their deltas, `step()`, readers take the sinks' `out`, `endStep()`.
// Operators are reference counted so views can share them and dropping a view frees only
// what no other view uses.

import type { Operator } from './operator.js'
import { ZSet } from './zset.js'

export class Circuit {
  #ops: Operator[] = []
  #refs = new Map<Operator, number>()
  #dirty = false

  /** Adds an operator (its inputs must already be in the circuit). Returns it. */
  add<TOp extends Operator>(op: TOp): TOp {
    for (const i of op.inputs) if (!this.#refs.has(i)) throw new Error(`internal: input ${i.name}#${i.id} of ${op.name}#${op.id} is not in the circuit`)
    this.#ops.push(op)
    this.#refs.set(op, 0)
    for (const i of op.inputs) this.#refs.set(i, this.#refs.get(i)! + 1)
    return op
  }

  has(op: Operator): boolean {
    return this.#refs.has(op)
  }

  /** Adds an external reference (a view holding on to its output operator). */
  retain(op: Operator): void {
    this.#refs.set(op, (this.#refs.get(op) ?? 0) + 1)
  }

  /** Drops an external reference; operators nobody reads any more are removed, transitively. */
  release(op: Operator): void {
    const left = (this.#refs.get(op) ?? 1) - 1
    this.#refs.set(op, left)
    if (left > 0) return
    this.#refs.delete(op)
    this.#ops = this.#ops.filter((o) => o !== op)
    for (const i of op.inputs) this.release(i)
  }

  get operators(): readonly Operator[] {
    return this.#ops
  }

  /** Runs every operator with a non-empty input delta, in topological order. */
  step(): void {
    this.#dirty = true
    const ops = this.#ops
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!
      const ins = op.inputs
      let changed = false
      for (let j = 0; j < ins.length; j++) {
        if (ins[j]!.out.rows.length !== 0) {
          changed = true
          break
        }
      }
      if (changed) op.step()
    }
  }

  /** Clears every operator's output delta (end of a step). */
  endStep(): void {
    if (!this.#dirty) return
    for (const op of this.#ops) if (op.out.rows.length !== 0) op.out = ZSet.empty()
    this.#dirty = false
  }

  /** Feeds newly added operators the full contents of the existing operators they read
   *  (which must offer `snapshot()`), as if they had existed all along. Only `fresh` run.
   *
   *  First round: boundaries whose state readers consult directly (arrangements) deliver
   *  their whole contents at once, and every fresh operator steps once (constants, global
   *  aggregates over empty input). Then every other boundary (table inputs, view sinks)
   *  delivers its contents in chunks of `chunkRows`, each one step — plain incremental
   *  steps, so the result is the same, and peak memory is bounded by a chunk's work. */
  backfill(fresh: readonly Operator[], chunkRows = 2048): void {
    const freshSet = new Set(fresh)
    const boundary = new Set<Operator>()
    for (const op of fresh) for (const i of op.inputs) if (!freshSet.has(i)) boundary.add(i)
    // readers of an arrangement look at its state, which is already complete: feed it whole
    const whole = [...boundary].filter((b) => 'arrangement' in b)
    const chunked = [...boundary].filter((b) => !('arrangement' in b))
    const ordered = this.#ops.filter((op) => freshSet.has(op))
    // fresh operators commit after every round: their journals would otherwise hold every
    // chunk until the end (a failed backfill discards the fresh operators, never rolls back)
    const clear = () => {
      for (const b of boundary) b.out = ZSet.empty()
      for (const op of ordered) {
        op.out = ZSet.empty()
        op.commit()
      }
    }
    try {
      for (const b of boundary) if (!b.snapshot) throw new Error(`internal: ${b.name}#${b.id} is shared but cannot snapshot`)
      for (const b of whole) b.out = b.snapshot!()
      for (const op of ordered) op.step()
      clear()
      for (const b of chunked) {
        const all = b.snapshot!()
        for (let lo = 0; lo < all.rows.length; lo += chunkRows) {
          const hi = Math.min(all.rows.length, lo + chunkRows)
          b.out = lo === 0 && hi === all.rows.length ? all : new ZSet(all.rows.slice(lo, hi), all.weights.slice(lo, hi))
          for (const op of ordered) {
            const ins = op.inputs
            for (let j = 0; j < ins.length; j++) {
              if (ins[j]!.out.rows.length !== 0) {
                op.step()
                break
              }
            }
          }
          clear()
        }
      }
    } finally {
      clear()
    }
  }

  commit(): void {
    for (const op of this.#ops) op.commit()
  }

  rollback(): void {
    for (let i = this.#ops.length - 1; i >= 0; i--) this.#ops[i]!.rollback()
    this.endStep()
    for (const op of this.#ops) op.out = ZSet.empty()
  }
}
