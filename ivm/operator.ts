// The operator contract. An operator reads the deltas its inputs produced in this step
// (`input.out`) and writes its own delta to `out`. Stateful operators keep a journal of the
// input deltas they absorbed since the last commit, so a failed tick or a rolled-back
// transaction can be undone exactly: every operator's state is a function of the input it
// absorbed, and absorbing the negated journal (newest first) restores it.
//
// Rules every operator follows:
// - `step()` is only called when at least one input has a non-empty `out` (or during backfill).
// - State is updated for the whole input delta before any code that may throw (user functions)
//   runs for this step, and the absorbed delta is journaled first, so `rollback()` is exact.
// - `out` is consolidated or at least free of rows with weight 0.
// - A stateful operator implements `saveState` / `loadState` (checkpoints), writing its state
//   as plain data (Maps, arrays, numbers, rows) and rebuilding its own structures on load.

import type { RowKey } from './key.js'
import type { ChangeShares, KeyedEntries, KeyedPart, KeyedSnapshot } from './keyed-state.js'
import { ZSet } from './zset.js'

export interface Operator {
  readonly id: number
  /** Operator kind as printed by EXPLAIN, e.g. 'Join', 'Reduce'. */
  readonly name: string
  readonly inputs: readonly Operator[]
  /** This step's output delta. Reset to empty by the circuit after every step. */
  out: ZSet
  step(): void
  /** The journal since the last commit becomes permanent. */
  commit(): void
  /** Undo every state change since the last commit (newest first). */
  rollback(): void
  /** Entries of state held (0 for stateless operators). */
  stateSize(): number
  /** One-line description of the state kept, for EXPLAIN (empty for stateless operators). */
  describeState(): string
  /** Operators whose state is the integral of their output (inputs, arrangements,
   *  materialized outputs) return it, so a reader attached later can be backfilled. */
  snapshot?(): ZSet
  /** Called by the circuit at the end of a tick after the watermarks moved; may free state
   *  (and, for some operators, emit output). */
  advance?(): void
  /** Stateful operators: their state as of the last commit, as plain data (arrays, plain
   *  objects, Maps, Sets, primitives and the values rows hold; no class instances of ivm's
   *  own, no functions), for a checkpoint. Called between ticks only (nothing journaled). It
   *  may share objects with the live state: the caller serializes it before the next step. */
  saveState?(): unknown
  /** Puts back what `saveState` returned (after a serialization round trip) into an operator
   *  built from the same plan on the same inputs — freshly built, possibly backfilled from
   *  empty inputs. It then behaves exactly as the saving operator would have: the same
   *  output for every later step, advance and rollback, and the same `stateSize()`. */
  loadState?(state: unknown): void
  /** Incremental checkpoints (ivm/keyed-state.ts): a stateful operator whose state is a map
   *  of keys saves a base and then only the keys changed since; loadKeyed takes their merge. */
  saveKeyed?(all: boolean): KeyedPart
  loadKeyed?(whole: unknown, entries: KeyedEntries): void
  /** The part saveKeyed(all) would give now, read in chunks while ticks go on (copy on write:
   *  see KeyedSnapshot); operators without it are saved at the snapshot point. */
  snapshotKeyed?(all: boolean): KeyedSnapshot
  /** A base read while ticks go on, exact with the delta taken after it (fuzzyKeyedBase). */
  fuzzyBaseKeyed?(): KeyedSnapshot
  /** How much of it changed since its last part (see KeyedCheckpoint). */
  changeShares?(): ChangeShares
}

let nextOperatorId = 1

/** Base with the bookkeeping shared by all operators. */
export abstract class BaseOperator implements Operator {
  readonly id: number
  abstract readonly name: string
  readonly inputs: readonly Operator[]
  out: ZSet = ZSet.empty()

  constructor(inputs: readonly Operator[]) {
    this.id = nextOperatorId++
    this.inputs = inputs
  }

  abstract step(): void
  commit(): void {}
  rollback(): void {}
  stateSize(): number {
    return 0
  }
  describeState(): string {
    return ''
  }
}

/** Base for stateless operators that map one input delta to one output delta. */
export abstract class LinearOperator extends BaseOperator {
  constructor(input: Operator) {
    super([input])
  }
  get input(): Operator {
    return this.inputs[0]!
  }
  step(): void {
    this.out = this.apply(this.inputs[0]!.out)
  }
  abstract apply(delta: ZSet): ZSet
}

/** Journal of absorbed deltas for stateful operators: `record` before absorbing,
 *  `undo(absorb)` re-absorbs negations newest first. */
export class Journal<T> {
  #entries: T[] = []
  record(entry: T): void {
    this.#entries.push(entry)
  }
  commit(): void {
    if (this.#entries.length !== 0) this.#entries.length = 0
  }
  undo(unapply: (entry: T) => void): void {
    for (let i = this.#entries.length - 1; i >= 0; i--) unapply(this.#entries[i]!)
    this.#entries.length = 0
  }
  get size(): number {
    return this.#entries.length
  }

  /** The entries since the last commit, oldest first. */
  forEach(fn: (entry: T) => void): void {
    for (let i = 0; i < this.#entries.length; i++) fn(this.#entries[i]!)
  }
}
