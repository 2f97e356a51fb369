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
   *  Small backfills go in one step: every boundary delivers its whole contents and every
   *  fresh operator steps once, so a row filtered out by a semi/anti join or a later
   *  retraction is never seen by the operators after it. Large ones (more than
   *  `chunkThreshold` rows from table inputs and view sinks) bound peak memory: arrangements
   *  (whose readers consult their complete state) deliver everything in a first step, then
   *  every other boundary delivers its rows in chunks of `chunkRows`, one step each — plain
   *  incremental steps, so the final state is the same; rows that a later chunk retracts do
   *  pass through the operators in between. */
  backfill(fresh: readonly Operator[], chunkRows = 2048, chunkThreshold = 262144): void {
    const freshSet = new Set(fresh)
    const boundary = new Set<Operator>()
    for (const op of fresh) for (const i of op.inputs) if (!freshSet.has(i)) boundary.add(i)
    const snapshots = new Map<Operator, ZSet>()
    for (const b of boundary) {
      if (!b.snapshot) throw new Error(`internal: ${b.name}#${b.id} is shared but cannot snapshot`)
      snapshots.set(b, b.snapshot())
    }
    let chunkable = 0
    for (const b of boundary) if (!('arrangement' in b)) chunkable += snapshots.get(b)!.rows.length
    const big = chunkable > chunkThreshold
    // readers of an arrangement look at its state, which is already complete: feed it whole
    const whole = [...boundary].filter((b) => !big || 'arrangement' in b)
    const chunked = [...boundary].filter((b) => big && !('arrangement' in b))
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
      for (const b of whole) b.out = snapshots.get(b)!
      for (const op of ordered) op.step()
      clear()
      for (const b of chunked) {
        const all = snapshots.get(b)!
        snapshots.delete(b)
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
