// The dataflow graph. Operators are added after their inputs, so insertion order is a
// topological order; one `step()` runs each operator whose inputs changed, once, in that order.
// A tick = sources receive their deltas, `step()`, readers take the sinks' `out`, `endStep()`.
// Operators are reference counted so views can share them and dropping a view frees only
// what no other view uses.
//
// Failure isolation: when `isolate` says an error an operator raised in `step()` or
// `advance()` belongs to the data (a division by zero, not a bug), the circuit does not let
// it fail the step. It cuts the operator off together with everything downstream of it (the
// cut), undoes what those operators absorbed since the last commit (each operator's journal
// is its own, so undoing a subset is exact) and skips them for the rest of the tick (they
// are quarantined); the step goes on for every other operator, which reads nothing from the
// cut. The owner of the circuit takes the failures (`takeFailures`) and either releases what
// was cut (then it is gone) or rolls the tick back (then the quarantine ends: the cut
// operators are already at the last commit, like everything else after a rollback).

import { checkInterrupt } from './interrupt.js'
import type { Operator } from './operator.js'
import { ZSet } from './zset.js'

/** An operator whose step raised an error the circuit isolated (see the file header). */
export interface OperatorFailure {
  readonly operator: Operator
  readonly error: unknown
  /** The operator and everything downstream of it, undone to the last commit and skipped
   *  until released or until the tick is rolled back. */
  readonly cut: ReadonlySet<Operator>
}

export class Circuit {
  /** Insertion order, which is a topological order (a Set: removal is O(1)). */
  #ops = new Set<Operator>()
  #refs = new Map<Operator, number>()
  /** Position in the topological order, for the work list of a large circuit. */
  #order = new Map<Operator, number>()
  #nextOrder = 0
  #consumers = new Map<Operator, Operator[]>()
  #sources = new Set<Operator>()
  /** Operators with `advance()` (watermark-driven), for the end-of-tick pass. */
  #advancing = new Set<Operator>()
  /** The operators in order, rebuilt lazily after adds and removals (small circuits only). */
  #list: Operator[] | null = null
  /** Operators stepped since the last commit: only their journals can hold anything. */
  #stepped = new Set<Operator>()
  /** Operators whose `out` may be non-empty in this step. */
  #emitted: Operator[] = []
  readonly #scanBelow: number
  /** Operators cut off by an isolated failure in the open tick (skipped by steps). */
  readonly #quarantined = new Set<Operator>()
  #failures: OperatorFailure[] = []
  /** Decides which errors raised by operators are isolated (undefined: none; every error
   *  fails the step, as during backfills). */
  isolate: ((error: unknown) => boolean) | undefined

  /** `scanBelow`: circuits with fewer operators step by scanning them all (cheaper than the
   *  work list when small); tests set 0 to exercise the work list. */
  constructor(options: { readonly scanBelow?: number } = {}) {
    this.#scanBelow = options.scanBelow ?? 256
  }

  /** Adds an operator (its inputs must already be in the circuit). Returns it. */
  add<TOp extends Operator>(op: TOp): TOp {
    for (const i of op.inputs) if (!this.#refs.has(i)) throw new Error(`internal: input ${i.name}#${i.id} of ${op.name}#${op.id} is not in the circuit`)
    this.#ops.add(op)
    this.#refs.set(op, 0)
    this.#order.set(op, this.#nextOrder++)
    this.#consumers.set(op, [])
    if (op.inputs.length === 0) this.#sources.add(op)
    if (op.advance !== undefined) this.#advancing.add(op)
    for (const i of op.inputs) {
      this.#refs.set(i, this.#refs.get(i)! + 1)
      const readers = this.#consumers.get(i)!
      if (!readers.includes(op)) readers.push(op)
    }
    this.#list = null
    return op
  }

  has(op: Operator): boolean {
    return this.#refs.has(op)
  }

  /** In the circuit and not cut off by a failure in the open tick: its state is current. */
  isLive(op: Operator): boolean {
    return this.#refs.has(op) && !this.#quarantined.has(op)
  }

  /** The failures isolated since the last call (their cuts stay quarantined). */
  takeFailures(): OperatorFailure[] {
    const f = this.#failures
    if (f.length !== 0) this.#failures = []
    return f
  }

  get hasFailures(): boolean {
    return this.#failures.length !== 0
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
    this.#ops.delete(op)
    this.#order.delete(op)
    this.#consumers.delete(op)
    this.#sources.delete(op)
    this.#advancing.delete(op)
    this.#quarantined.delete(op)
    this.#list = null
    for (const i of op.inputs) {
      const readers = this.#consumers.get(i)
      if (readers !== undefined) {
        const at = readers.indexOf(op)
        if (at >= 0) readers.splice(at, 1)
      }
      this.release(i)
    }
  }

  get operators(): readonly Operator[] {
    return this.#ordered()
  }

  #ordered(): Operator[] {
    return (this.#list ??= [...this.#ops])
  }

  /** Runs every operator with a non-empty input delta, once, in topological order. Cost is
   *  proportional to the operators reached, not the circuit: with thousands of views, a
   *  change to one table touches only what reads it. */
  step(): void {
    const emitted = this.#emitted
    for (const s of this.#sources) if (s.out.rows.length !== 0) emitted.push(s)
    if (this.#ops.size < this.#scanBelow) this.#stepAll()
    else this.#stepReached()
  }

  #stepAll(): void {
    const ops = this.#ordered()
    const quarantined = this.#quarantined
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!
      if (quarantined.size !== 0 && quarantined.has(op)) continue
      const ins = op.inputs
      for (let j = 0; j < ins.length; j++) {
        if (ins[j]!.out.rows.length !== 0) {
          this.#run(op)
          break
        }
      }
    }
  }

  #stepReached(): void {
    const order = this.#order
    const heap = new WorkList()
    const queued = new Set<Operator>()
    const quarantined = this.#quarantined
    const enqueueReaders = (op: Operator): void => {
      const readers = this.#consumers.get(op)
      if (readers === undefined) return
      for (let i = 0; i < readers.length; i++) {
        const r = readers[i]!
        if (queued.has(r) || (quarantined.size !== 0 && quarantined.has(r))) continue
        queued.add(r)
        heap.push(r, order.get(r)!)
      }
    }
    for (const s of this.#sources) if (s.out.rows.length !== 0) enqueueReaders(s)
    while (heap.size > 0) {
      const op = heap.pop()
      // queued before a failure upstream cut it off
      if (quarantined.size !== 0 && quarantined.has(op)) continue
      this.#run(op)
      if (op.out.rows.length !== 0) enqueueReaders(op)
    }
  }

  /** End of a tick, after the watermarks moved: calls `advance()` on every operator that has
   *  one (or on those in `only`), in topological order, and propagates what they emit like a
   *  step — an operator reached by such output steps first, then advances, so a chain of
   *  EMIT ON WINDOW CLOSE views settles in one pass. Returns whether anything was emitted.
   *  Failures are isolated only in the whole circuit's pass (not with `only`). */
  advance(only?: readonly Operator[]): boolean {
    const order = this.#order
    const heap = new WorkList()
    const queued = new Set<Operator>()
    const quarantined = this.#quarantined
    const enqueue = (op: Operator): void => {
      if (queued.has(op) || !order.has(op) || quarantined.has(op)) return
      queued.add(op)
      heap.push(op, order.get(op)!)
    }
    if (only !== undefined) {
      for (const op of only) if (op.advance !== undefined) enqueue(op)
    } else for (const op of this.#advancing) enqueue(op)
    const isolate = only === undefined ? this.isolate : undefined
    let emitted = false
    while (heap.size > 0) {
      const op = heap.pop()
      if (quarantined.size !== 0 && quarantined.has(op)) continue
      let fed = false
      for (const i of op.inputs) if (i.out.rows.length !== 0) fed = true
      this.#stepped.add(op)
      this.#emitted.push(op)
      try {
        if (fed) op.step()
        if (op.advance !== undefined) op.advance()
      } catch (e) {
        if (isolate === undefined || !isolate(e)) throw e
        this.#cut(op, e)
        continue
      }
      if (op.out.rows.length !== 0) {
        emitted = true
        const readers = this.#consumers.get(op)
        if (readers !== undefined) for (const r of readers) enqueue(r)
      }
    }
    return emitted
  }

  #run(op: Operator): void {
    checkInterrupt()
    this.#stepped.add(op)
    this.#emitted.push(op)
    const isolate = this.isolate
    if (isolate === undefined) return op.step()
    try {
      op.step()
    } catch (e) {
      if (!isolate(e)) throw e
      this.#cut(op, e)
    }
  }

  /** Cuts `op` and everything downstream of it out of the open tick: their state goes back
   *  to the last commit (newest first, as in rollback) and they are skipped from now on. */
  #cut(op: Operator, error: unknown): void {
    const cut = new Set<Operator>()
    const todo = [op]
    while (todo.length > 0) {
      const x = todo.pop()!
      if (cut.has(x)) continue
      cut.add(x)
      const readers = this.#consumers.get(x)
      if (readers !== undefined) for (const r of readers) todo.push(r)
    }
    const order = this.#order
    const undo = [...cut].filter((x) => this.#stepped.has(x)).sort((a, b) => (order.get(b) ?? -1) - (order.get(a) ?? -1))
    for (const x of undo) {
      x.rollback()
      this.#stepped.delete(x)
    }
    for (const x of cut) {
      if (x.out.rows.length !== 0) x.out = ZSet.empty()
      this.#quarantined.add(x)
    }
    this.#failures.push({ operator: op, error, cut })
  }

  /** Clears the output deltas of this step. */
  endStep(): void {
    const emitted = this.#emitted
    for (let i = 0; i < emitted.length; i++) {
      const op = emitted[i]!
      if (op.out.rows.length !== 0) op.out = ZSet.empty()
    }
    emitted.length = 0
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
   *  pass through the operators in between. `progress` hears (rows delivered, rows in all)
   *  after each chunk of a large backfill. */
  backfill(fresh: readonly Operator[], chunkRows = 2048, chunkThreshold = 262144, progress?: (done: number, total: number) => void): void {
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
    const order = this.#order
    const ordered = [...freshSet].filter((op) => order.has(op)).sort((a, b) => order.get(a)! - order.get(b)!)
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
      for (const op of ordered) {
        checkInterrupt()
        op.step()
      }
      clear()
      let delivered = 0
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
                checkInterrupt()
                op.step()
                break
              }
            }
          }
          clear()
          delivered += hi - lo
          progress?.(delivered, chunkable)
        }
      }
    } finally {
      clear()
    }
  }

  /** Commits only `ops` (fresh operators after an advance during backfill), leaving the
   *  open tick's other journals alone. */
  commitOnly(ops: readonly Operator[]): void {
    for (const op of ops) {
      if (!this.#stepped.has(op)) continue
      op.commit()
      this.#stepped.delete(op)
    }
  }

  commit(): void {
    for (const op of this.#stepped) op.commit()
    this.#stepped.clear()
  }

  /** Undoes every operator stepped since the last commit, newest first, and ends the
   *  quarantine of what failures cut off (undone when cut, so at the last commit too). */
  rollback(): void {
    const order = this.#order
    const stepped = [...this.#stepped].sort((a, b) => (order.get(b) ?? -1) - (order.get(a) ?? -1))
    for (const op of stepped) op.rollback()
    this.#stepped.clear()
    this.#quarantined.clear()
    this.#failures = []
    this.endStep()
    for (const s of this.#sources) if (s.out.rows.length !== 0) s.out = ZSet.empty()
  }
}

/** A binary min-heap of operators by topological position (keys in a parallel array, so a
 *  comparison is a number comparison). */
class WorkList {
  readonly #ops: Operator[] = []
  readonly #keys: number[] = []

  get size(): number {
    return this.#ops.length
  }

  push(op: Operator, key: number): void {
    const ops = this.#ops
    const keys = this.#keys
    let i = ops.length
    ops.push(op)
    keys.push(key)
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (keys[parent]! <= key) break
      ops[i] = ops[parent]!
      keys[i] = keys[parent]!
      i = parent
    }
    ops[i] = op
    keys[i] = key
  }

  pop(): Operator {
    const ops = this.#ops
    const keys = this.#keys
    const top = ops[0]!
    const last = ops.pop()!
    const key = keys.pop()!
    const n = ops.length
    if (n > 0) {
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        if (l >= n) break
        const r = l + 1
        const c = r < n && keys[r]! < keys[l]! ? r : l
        if (keys[c]! >= key) break
        ops[i] = ops[c]!
        keys[i] = keys[c]!
        i = c
      }
      ops[i] = last
      keys[i] = key
    }
    return top
  }
}
