// Oracle harness: random delta sequences (inserts, deletes of existing rows, unconsolidated
// batches) are run through a circuit step by step; after every step the integral of the
// operator's outputs must equal a naive recompute of the batch semantics on the integral of
// the inputs. Also checks rollback (a rolled-back run continues exactly like a run that never
// had the rolled-back steps), backfill (an operator attached later ends up equal) and restore
// (a fresh circuit that loads every operator's saved state, through a serialization round
// trip, continues exactly like the one that saved it), also from incremental checkpoints (a
// keyed operator's base and deltas, merged).

import fc from 'fast-check'
import { deserialize, serialize } from 'node:v8'
import { expect } from 'vitest'
import { Circuit, integrate, InputOperator, mergeKeyedParts, rowKey, ZSet, type RowKey, type KeyedChunk, type KeyedPart, type KeyedSnapshot, type Operator, type Row } from '../../../ivm/index.js'
import { Accumulator, norm } from '../helpers.js'

/** A consolidated table: [row, weight > 0][]. */
export type Table = [Row, number][]

export interface OracleCase {
  /** Number of inputs. */
  inputs: number
  /** Row generator per input (small domains so keys collide). */
  row: fc.Arbitrary<Row> | fc.Arbitrary<Row>[]
  /** Shared operators built on the inputs before any data (default: the inputs). */
  pre?: (c: Circuit, inputs: InputOperator[]) => Operator[]
  /** The operator under test, built on the `pre` operators. */
  build: (c: Circuit, pre: Operator[]) => Operator
  /** Batch semantics on the consolidated input tables. */
  oracle: (tables: Table[]) => Table
  /** Inputs only insert (an operator in append-only mode), and each step is committed (as
   *  the engine commits ticks; a rollback test still leaves its rolled-back steps open). */
  appendOnly?: boolean
}

/** One change: insert a generated row, or delete an existing one (picked by index). */
type Change = { kind: 'ins'; input: number; row: Row; weight: number } | { kind: 'del'; input: number; pick: number; weight: number }
type Step = Change[]

function changeArb(c: OracleCase): fc.Arbitrary<Change> {
  const rowArbs = Array.isArray(c.row) ? c.row : Array.from({ length: c.inputs }, () => c.row as fc.Arbitrary<Row>)
  const input = fc.integer({ min: 0, max: c.inputs - 1 })
  const insert = input.chain((i) => fc.record({ kind: fc.constant('ins' as const), input: fc.constant(i), row: rowArbs[i]!, weight: fc.integer({ min: 1, max: 2 }) }))
  if (c.appendOnly) return insert
  return fc.oneof({ weight: 3, arbitrary: insert }, { weight: 2, arbitrary: fc.record({ kind: fc.constant('del' as const), input, pick: fc.nat(), weight: fc.integer({ min: 1, max: 2 }) }) })
}

export function stepsArb(c: OracleCase, maxSteps = 8): fc.Arbitrary<Step[]> {
  return fc.array(fc.array(changeArb(c), { minLength: 0, maxLength: 6 }), { minLength: 1, maxLength: maxSteps })
}

/** Turns changes into per-input deltas against the running tables (which it updates). */
function resolve(step: Step, tables: Accumulator[]): ZSet[] {
  const deltas = tables.map(() => new ZSet())
  for (const ch of step) {
    const t = tables[ch.input]!
    if (ch.kind === 'ins') {
      deltas[ch.input]!.push(ch.row, ch.weight)
      t.add(ZSet.of([[ch.row, ch.weight]]))
    } else {
      const rows = t.entries()
      if (rows.length === 0) continue
      const [row, w] = rows[ch.pick % rows.length]!
      const dw = Math.min(w, ch.weight)
      deltas[ch.input]!.push(row, -dw)
      t.add(ZSet.of([[row, -dw]]))
    }
  }
  return deltas
}

let runs = 0

class Run {
  // every other run steps through the circuit's work list instead of scanning all operators
  readonly circuit = new Circuit({ scanBelow: runs++ % 2 === 0 ? 0 : undefined })
  readonly inputs: InputOperator[] = []
  readonly tables: Accumulator[] = []
  readonly pre: Operator[]
  op: Operator | undefined
  sink: Operator | undefined
  readonly outputs = new Accumulator()

  constructor(readonly c: OracleCase, attach: boolean) {
    for (let i = 0; i < c.inputs; i++) {
      const t = new Accumulator()
      this.tables.push(t)
      this.inputs.push(this.circuit.add(new InputOperator(() => t.toZSet())))
    }
    this.pre = c.pre ? c.pre(this.circuit, this.inputs) : this.inputs
    if (attach) this.attach()
  }

  /** Builds the operator (plus a sink) and backfills it. */
  attach(): void {
    const before = new Set(this.circuit.operators)
    this.op = this.c.build(this.circuit, this.pre)
    this.sink = integrate(this.circuit, this.op)
    const fresh = this.circuit.operators.filter((o) => !before.has(o))
    this.circuit.backfill(fresh)
    // the sink absorbed the backfill output
    this.outputs.add((this.sink as ReturnType<typeof integrate>).contents())
  }

  /** Runs one step (and commits it in append-only cases, unless `open`); returns the
   *  operator's output (normalized). */
  step(step: Step, open = false): [Row, number][] {
    const deltas = resolve(step, this.tables)
    for (let i = 0; i < deltas.length; i++) if (deltas[i]!.length !== 0) this.inputs[i]!.push(deltas[i]!)
    this.circuit.step()
    const out = this.op ? this.op.out : new ZSet()
    this.outputs.add(out)
    this.circuit.endStep()
    if (this.c.appendOnly && !open) this.circuit.commit()
    return norm(out)
  }

  check(): void {
    const tables = this.tables.map((t) => t.entries())
    const want = norm(ZSet.of(this.c.oracle(tables)))
    expect(this.outputs.entries()).toEqual(want)
    const sink = this.sink as ReturnType<typeof integrate> | undefined
    if (sink) expect(norm(sink.contents())).toEqual(want)
  }

  /** Makes `into` (a fresh run of the same case) this run's twin: same tables, outputs and
   *  operator states (each saved, serialized, deserialized and loaded). Commits first: a
   *  checkpoint is taken between ticks. */
  restoreInto(into: Run): void {
    this.circuit.commit()
    restoreCircuit(this.circuit, into.circuit)
    for (let i = 0; i < this.tables.length; i++) into.tables[i]!.add(this.tables[i]!.toZSet())
    into.outputs.add(into.outputs.toZSet(), -1)
    into.outputs.add(this.outputs.toZSet())
  }

  saveTables(): Accumulator[] {
    return this.tables.map((t) => {
      const a = new Accumulator()
      a.add(t.toZSet())
      return a
    })
  }

  rollback(saved: Accumulator[], savedOutputs: Accumulator): void {
    this.circuit.rollback()
    for (let i = 0; i < saved.length; i++) {
      const t = this.tables[i]!
      t.add(t.toZSet(), -1)
      t.add(saved[i]!.toZSet())
    }
    this.outputs.add(this.outputs.toZSet(), -1)
    this.outputs.add(savedOutputs.toZSet())
  }
}

const params = { numRuns: Number(process.env.ORACLE_RUNS ?? 100) }

/** Incremental output integral == oracle after every step. */
export function checkIncremental(c: OracleCase): void {
  fc.assert(
    fc.property(stepsArb(c, 10), (steps) => {
      const run = new Run(c, true)
      run.check()
      for (const s of steps) {
        run.step(s)
        run.check()
      }
    }),
    params,
  )
}

/** Steps A (committed), steps B, rollback, steps C: outputs of C equal a run of A then C. */
export function checkRollback(c: OracleCase): void {
  fc.assert(
    fc.property(stepsArb(c, 4), stepsArb(c, 4), stepsArb(c, 4), (a, b, cc) => {
      const run = new Run(c, true)
      const ref = new Run(c, true)
      for (const s of a) {
        run.step(s)
        ref.step(s)
      }
      run.circuit.commit()
      const saved = run.saveTables()
      const savedOut = new Accumulator()
      savedOut.add(run.outputs.toZSet())
      for (const s of b) run.step(s, true)
      run.rollback(saved, savedOut)
      for (const s of cc) {
        expect(run.step(s)).toEqual(ref.step(s))
        run.check()
      }
    }),
    params,
  )
}

/** An operator attached after steps A (backfilled) behaves like one that existed all along. */
export function checkBackfill(c: OracleCase): void {
  fc.assert(
    fc.property(stepsArb(c, 5), stepsArb(c, 5), (a, b) => {
      const late = new Run(c, false)
      const early = new Run(c, true)
      for (const s of a) {
        late.step(s)
        early.step(s)
      }
      late.attach()
      late.check()
      for (const s of b) {
        late.step(s)
        early.step(s)
        late.check()
      }
      expect(late.outputs.entries()).toEqual(early.outputs.entries())
    }),
    params,
  )
}

/** Copies every operator's state from one circuit into another built the same way (operators
 *  matched by position); fails for a stateful operator that cannot save its state. */
export function restoreCircuit(from: Circuit, into: Circuit): void {
  const a = from.operators
  const b = into.operators
  expect(b.map((o) => o.name)).toEqual(a.map((o) => o.name))
  for (let i = 0; i < a.length; i++) {
    const op = a[i]!
    if (op.saveState === undefined) {
      expect(op.stateSize(), `${op.name} keeps state but has no saveState`).toBe(0)
      continue
    }
    b[i]!.loadState!(deserialize(serialize(op.saveState())))
    expect(b[i]!.stateSize()).toBe(op.stateSize())
  }
}

/** Steps A, then the state moves to a fresh circuit (see Run.restoreInto); steps B run on
 *  both: the same outputs, and the restored one still matches the oracle. */
export function checkRestore(c: OracleCase): void {
  fc.assert(
    fc.property(stepsArb(c, 6), stepsArb(c, 6), (a, b) => {
      const saving = new Run(c, true)
      for (const s of a) saving.step(s)
      const restored = new Run(c, true)
      saving.restoreInto(restored)
      restored.check()
      for (const s of b) {
        expect(restored.step(s)).toEqual(saving.step(s))
        restored.check()
      }
    }),
    params,
  )
}

/** All the checks. */
export function checkAll(c: OracleCase): void {
  checkIncremental(c)
  checkRollback(c)
  checkBackfill(c)
  checkRestore(c)
  checkKeyedRestore(c)
  checkKeyedSnapshot(c)
}

/** Incremental checkpoints: every keyed operator saves a base, then deltas between some of the
 *  steps (other steps are rolled back); the merged parts, loaded into a fresh circuit, give
 *  exactly the saved state (saveState, in its order) and the same outputs after. */
export function checkKeyedRestore(c: OracleCase): void {
  fc.assert(
    fc.property(stepsArb(c, 8), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 8, maxLength: 8 }), stepsArb(c, 4), (a, how, b) => {
      const saving = new Run(c, true)
      const ops = saving.circuit.operators
      const parts = new Map<number, KeyedPart[]>()
      const save = (all: boolean): void => {
        saving.circuit.commit()
        ops.forEach((op, i) => {
          if (op.saveKeyed === undefined) return
          const list = parts.get(i) ?? []
          if (all) list.length = 0
          list.push(deserialize(serialize(op.saveKeyed(all))) as KeyedPart)
          parts.set(i, list)
        })
      }
      save(true)
      for (let i = 0; i < a.length; i++) {
        if (how[i] === 2) {
          saving.circuit.commit()
          const saved = saving.saveTables()
          const savedOut = new Accumulator()
          savedOut.add(saving.outputs.toZSet())
          saving.step(a[i]!, true)
          saving.rollback(saved, savedOut)
        } else {
          saving.step(a[i]!)
          if (how[i] === 1) save(false)
        }
      }
      save(false)
      const restored = new Run(c, true)
      saving.restoreInto(restored)
      const into = restored.circuit.operators
      for (const [i, list] of parts) {
        const { whole, entries } = mergeKeyedParts(list)
        into[i]!.loadKeyed!(whole, entries)
        expect(deserialize(serialize(into[i]!.saveState!())), `${ops[i]!.name} from its keyed parts`).toEqual(deserialize(serialize(ops[i]!.saveState!())))
        expect(into[i]!.stateSize()).toBe(ops[i]!.stateSize())
      }
      restored.check()
      for (const s of b) {
        expect(restored.step(s)).toEqual(saving.step(s))
        restored.check()
      }
    }),
    params,
  )
}

/** What a snapshot of one operator has handed out so far, and its state at the point (a
 *  fuzzy base has no point: the delta snapshot taken once it is read has). */
interface OpenSnapshot {
  readonly op: number
  readonly snap: KeyedSnapshot
  readonly chunks: KeyedChunk[]
  readonly atPoint: unknown
  readonly fuzzy: boolean
}

/** Incremental checkpoints read while steps go on (copy on write): each keyed operator's parts
 *  are snapshots taken at some points and handed out in chunks of random sizes between later
 *  steps (and rolled-back steps, and settles); each part, merged with the ones before it, loads
 *  exactly the state the operator had at its point, and the last chain, loaded into a fresh
 *  circuit, continues exactly like the running one. Some bases are fuzzy — read while steps go
 *  on, no point of their own — and exact with the delta snapshot taken right after them. */
export function checkKeyedSnapshot(c: OracleCase): void {
  const action = fc.oneof(
    { weight: 4, arbitrary: fc.constant('step' as const) },
    { weight: 2, arbitrary: fc.constant('snapshot' as const) },
    { weight: 1, arbitrary: fc.constant('fuzzy' as const) },
    { weight: 1, arbitrary: fc.constant('rollback' as const) },
    { weight: 1, arbitrary: fc.constant('settle' as const) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 4 }) },
  )
  fc.assert(
    fc.property(stepsArb(c, 10), fc.array(action, { minLength: 10, maxLength: 20 }), stepsArb(c, 3), (a, actions, b) => {
      const saving = new Run(c, true)
      const ops = saving.circuit.operators
      if (!ops.some((op) => op.snapshotKeyed !== undefined)) return
      const parts = new Map<number, KeyedPart[]>()
      let open: OpenSnapshot[] = []
      const restoredOp = (i: number, list: KeyedPart[]): Operator => {
        const restored = new Run(c, true)
        saving.restoreInto(restored)
        const into = restored.circuit.operators[i]!
        const { whole, entries } = mergeKeyedParts(list)
        into.loadKeyed!(whole, entries)
        return into
      }
      const part = (o: OpenSnapshot): KeyedPart => {
        const keys: unknown[] = []
        const values: unknown[] = []
        const moved: boolean[] | null = o.snap.base ? null : []
        for (const ch of o.chunks) {
          keys.push(...ch.keys)
          values.push(...ch.values)
          if (moved !== null) moved.push(...ch.moved!)
        }
        return deserialize(serialize({ whole: o.snap.whole, keys, values, moved })) as KeyedPart
      }
      const finish = (o: OpenSnapshot): void => {
        const list = parts.get(o.op) ?? []
        if (o.snap.base) list.length = 0
        list.push(part(o))
        parts.set(o.op, list)
        const into = restoredOp(o.op, list)
        expect(deserialize(serialize(into.saveState!())), `${ops[o.op]!.name} from a snapshot`).toEqual(o.atPoint)
      }
      // hands out a chunk of each open snapshot (serialized at once: it may share live objects)
      const read = (max: number): void => {
        const still: OpenSnapshot[] = []
        for (const o of open) {
          const ch = o.snap.next(max)
          if (ch === null && o.fuzzy) {
            // the fuzzy base is read: the delta since it began, at this point, makes it exact
            parts.set(o.op, [part(o)])
            saving.circuit.commit()
            const op = ops[o.op]!
            still.push({ op: o.op, atPoint: deserialize(serialize(op.saveState!())), snap: op.snapshotKeyed!(false), chunks: [], fuzzy: false })
          } else if (ch === null) finish(o)
          else {
            o.chunks.push(deserialize(serialize(ch)) as KeyedChunk)
            still.push(o)
          }
        }
        open = still
      }
      const snapshot = (fuzzy = false): void => {
        if (open.length !== 0) return
        saving.circuit.commit()
        ops.forEach((op, i) => {
          if (op.snapshotKeyed === undefined) return
          if (fuzzy && op.fuzzyBaseKeyed !== undefined) open.push({ op: i, snap: op.fuzzyBaseKeyed(), chunks: [], atPoint: undefined, fuzzy: true })
          else open.push({ op: i, snap: op.snapshotKeyed(!parts.has(i)), chunks: [], atPoint: deserialize(serialize(op.saveState!())), fuzzy: false })
        })
      }
      snapshot()
      let next = 0
      for (const act of actions) {
        if (act === 'snapshot') snapshot()
        else if (act === 'fuzzy') snapshot(true)
        else if (act === 'settle') open.forEach((o) => o.snap.settle())
        else if (typeof act === 'number') read(act)
        else if (next < a.length) {
          const s = a[next++]!
          if (act === 'rollback') {
            saving.circuit.commit()
            const saved = saving.saveTables()
            const savedOut = new Accumulator()
            savedOut.add(saving.outputs.toZSet())
            saving.step(s, true)
            saving.rollback(saved, savedOut)
          } else saving.step(s)
        }
      }
      while (open.length !== 0) read(Infinity)
      snapshot()
      while (open.length !== 0) read(Infinity)
      const restored = new Run(c, true)
      saving.restoreInto(restored)
      const into = restored.circuit.operators
      for (const [i, list] of parts) {
        const { whole, entries } = mergeKeyedParts(list)
        into[i]!.loadKeyed!(whole, entries)
        expect(into[i]!.stateSize()).toBe(ops[i]!.stateSize())
      }
      restored.check()
      for (const s of b) {
        expect(restored.step(s)).toEqual(saving.step(s))
        restored.check()
      }
    }),
    params,
  )
}

/** Expands a table into a list of rows (weight copies). */
/** The rows of a table (expanded by weight) grouped by the values of `keyCols`, in first-seen
 *  order. */
export function groupRows(t: Table, keyCols: readonly number[]): Row[][] {
  const groups = new Map<RowKey, Row[]>()
  for (const r of expand(t)) {
    const k = rowKey(keyCols.map((c) => r[c]))
    const g = groups.get(k)
    if (g) g.push(r)
    else groups.set(k, [r])
  }
  return [...groups.values()]
}

export function expand(t: Table): Row[] {
  const res: Row[] = []
  for (const [r, w] of t) for (let i = 0; i < w; i++) res.push(r)
  return res
}

/** Small-domain row arbitraries. */
export const smallValue = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: fc.integer({ min: 0, max: 3 }) })
export const kv = fc.tuple(smallValue, fc.integer({ min: 0, max: 4 })) as fc.Arbitrary<Row>
