// Property test of LookupJoin against a reference model: random interleavings of table changes
// and stream inserts (and, for a retracting left, stream deletes). The reference records the
// table at every step and computes each left row's output at its arrival; a deletion takes
// back the newest live units of the row (on the step's net change per row). The integral of
// the operator's `out` must equal the reference after every step; a rolled-back run must
// continue like a run that never had the rolled-back steps; a run restored from a checkpoint
// (every operator saved, serialized, loaded into a fresh circuit) must continue like the
// saving run, rollbacks over the restored state included.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { arrange, Circuit, InputOperator, rowKey, ZSet, type Row, type RowKey } from '../../../ivm/index.js'
import { lookupJoin, type LookupJoinOperator } from '../../../ivm/operators/lookup-join.js'
import { Accumulator, norm } from '../helpers.js'
import { restoreCircuit } from './harness.js'

interface Mode {
  readonly outer: boolean
  readonly appendOnly: boolean
  readonly residual: boolean
}

// table rows [k, v], stream rows [e, k]; k may be NULL
const key = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: fc.integer({ min: 0, max: 3 }) })
const tableRow = fc.tuple(key, fc.integer({ min: 0, max: 2 })) as fc.Arbitrary<Row>
const streamRow = fc.tuple(fc.integer({ min: 0, max: 3 }), key) as fc.Arbitrary<Row>

type Change =
  | { kind: 'tins'; row: Row; weight: number }
  | { kind: 'tdel'; pick: number; weight: number }
  | { kind: 'sins'; row: Row; weight: number }
  | { kind: 'sdel'; pick: number; weight: number }
type Step = Change[]

function stepsArb(mode: Mode, maxSteps: number): fc.Arbitrary<Step[]> {
  const weight = fc.integer({ min: 1, max: 2 })
  const kinds: fc.WeightedArbitrary<Change>[] = [
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('tins' as const), row: tableRow, weight }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('tdel' as const), pick: fc.nat(), weight }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('sins' as const), row: streamRow, weight }) },
  ]
  if (!mode.appendOnly) kinds.push({ weight: 2, arbitrary: fc.record({ kind: fc.constant('sdel' as const), pick: fc.nat(), weight }) })
  const change: fc.Arbitrary<Change> = fc.oneof(...kinds)
  return fc.array(fc.array(change, { minLength: 0, maxLength: 6 }), { minLength: 1, maxLength: maxSteps })
}

const cat = (l: Row, r: Row): Row => [...l, ...r]
const residualFn = (l: Row, r: Row): boolean => ((l[0] as number) + (r[1] as number)) % 3 !== 0

/** The reference: table contents, and per live left row its units (newest last), each with
 *  the output it emitted per unit at arrival. */
class Model {
  table = new Accumulator()
  stream = new Accumulator()
  units = new Map<RowKey, { count: number; emitted: [Row, number][] }[]>()
  integral = new Accumulator()

  constructor(readonly mode: Mode) {}

  clone(): Model {
    const m = new Model(this.mode)
    m.table.add(this.table.toZSet())
    m.stream.add(this.stream.toZSet())
    for (const [k, us] of this.units) m.units.set(k, us.map((u) => ({ count: u.count, emitted: u.emitted })))
    m.integral.add(this.integral.toZSet())
    return m
  }

  /** Turns the changes into the two deltas, against the running contents. */
  resolve(step: Step): { stream: ZSet; table: ZSet } {
    const stream = new ZSet()
    const table = new ZSet()
    for (const ch of step) {
      if (ch.kind === 'tins' || ch.kind === 'sins') {
        const [delta, acc] = ch.kind === 'tins' ? [table, this.table] : [stream, this.stream]
        delta.push(ch.row, ch.weight)
        acc.add(ZSet.of([[ch.row, ch.weight]]))
      } else {
        const [delta, acc] = ch.kind === 'tdel' ? [table, this.table] : [stream, this.stream]
        const rows = acc.entries()
        if (rows.length === 0) continue
        const [row, w] = rows[ch.pick % rows.length]!
        const dw = Math.min(w, ch.weight)
        delta.push(row, -dw)
        acc.add(ZSet.of([[row, -dw]]))
      }
    }
    return { stream, table }
  }

  /** What left row l emits per unit against the current table. */
  lookup(l: Row): [Row, number][] {
    const res: [Row, number][] = []
    if (l[1] !== null) {
      for (const [r, w] of this.table.entries()) {
        if (r[0] === l[1] && (!this.mode.residual || residualFn(l, r))) res.push([cat(l, r), w])
      }
    }
    if (this.mode.outer && res.length === 0) res.push([cat(l, [null, null]), 1])
    return res
  }

  /** The step's effect (this.table already holds the step's table changes). */
  apply(stream: ZSet): void {
    for (const [l, w] of norm(stream)) {
      const k = rowKey(l)
      const us = this.units.get(k) ?? []
      if (w > 0) {
        const emitted = this.lookup(l)
        us.push({ count: w, emitted })
        for (const [o, ow] of emitted) this.integral.add(ZSet.of([[o, ow * w]]))
      } else {
        let take = -w
        while (take > 0) {
          const u = us[us.length - 1]!
          const n = Math.min(take, u.count)
          for (const [o, ow] of u.emitted) this.integral.add(ZSet.of([[o, -ow * n]]))
          u.count -= n
          take -= n
          if (u.count === 0) us.pop()
        }
      }
      if (us.length === 0) this.units.delete(k)
      else this.units.set(k, us)
    }
  }
}

let runs = 0

class Run {
  readonly circuit = new Circuit({ scanBelow: runs++ % 2 === 0 ? 0 : undefined })
  readonly stream: InputOperator
  readonly table: InputOperator
  readonly op: LookupJoinOperator
  readonly outputs = new Accumulator()
  model: Model

  constructor(readonly mode: Mode) {
    this.model = new Model(mode)
    const m = () => this.model
    this.stream = this.circuit.add(new InputOperator(() => m().stream.toZSet()))
    this.table = this.circuit.add(new InputOperator(() => m().table.toZSet()))
    const arranged = arrange(this.circuit, this.table, [0])
    this.op = lookupJoin(this.circuit, this.stream, arranged, {
      leftKey: [1],
      outer: mode.outer,
      rightWidth: 2,
      leftAppendOnly: mode.appendOnly,
      ...(mode.residual ? { residual: residualFn } : {}),
    })
  }

  step(step: Step): [Row, number][] {
    const { stream, table } = this.model.resolve(step)
    if (stream.length !== 0) this.stream.push(stream)
    if (table.length !== 0) this.table.push(table)
    this.circuit.step()
    const out = this.op.out
    this.outputs.add(out)
    this.circuit.endStep()
    this.model.apply(stream)
    return norm(out)
  }

  check(): void {
    expect(this.outputs.entries()).toEqual(this.model.integral.entries())
    expect(this.op.stateSize()).toBe(this.mode.appendOnly ? 0 : this.model.units.size)
  }
}

const params = { numRuns: Number(process.env.ORACLE_RUNS ?? 100) }

const MODES: Mode[] = []
for (const appendOnly of [true, false]) for (const outer of [false, true]) for (const residual of [false, true]) MODES.push({ appendOnly, outer, residual })

function label(m: Mode): string {
  return `${m.appendOnly ? 'append-only' : 'retracting'} ${m.outer ? 'left' : 'inner'}${m.residual ? ' + residual' : ''}`
}

describe('LookupJoin (reference model)', { timeout: 300_000 }, () => {
  for (const mode of MODES) {
    it(`${label(mode)}: integral of out == reference after every step`, () =>
      fc.assert(
        fc.property(stepsArb(mode, 12), (steps) => {
          const run = new Run(mode)
          for (const s of steps) {
            run.step(s)
            run.check()
          }
        }),
        params,
      ))

    it(`${label(mode)}: a rolled-back run continues like one that never had the steps`, () =>
      fc.assert(
        fc.property(stepsArb(mode, 4), stepsArb(mode, 4), stepsArb(mode, 4), (a, b, c) => {
          const run = new Run(mode)
          const ref = new Run(mode)
          for (const s of a) {
            run.step(s)
            ref.step(s)
          }
          run.circuit.commit()
          const saved = run.model.clone()
          const savedOut = run.outputs.toZSet()
          for (const s of b) run.step(s)
          run.circuit.rollback()
          run.model = saved
          run.outputs.add(run.outputs.toZSet(), -1)
          run.outputs.add(savedOut)
          for (const s of c) {
            expect(run.step(s)).toEqual(ref.step(s))
            run.check()
          }
        }),
        params,
      ))

    it(`${label(mode)}: a restored run continues like the saving one (and rolls back like it)`, () =>
      fc.assert(
        fc.property(stepsArb(mode, 6), stepsArb(mode, 4), stepsArb(mode, 6), (a, b, c) => {
          const saving = new Run(mode)
          for (const s of a) saving.step(s)
          saving.circuit.commit()
          const restored = new Run(mode)
          restoreCircuit(saving.circuit, restored.circuit)
          restored.model = saving.model.clone()
          restored.outputs.add(saving.outputs.toZSet())
          restored.check()
          // a transaction rolled back on both: each returns to the restored state
          const savedModels = [saving.model.clone(), restored.model.clone()]
          const savedOuts = [saving.outputs.toZSet(), restored.outputs.toZSet()]
          for (const s of b) expect(restored.step(s)).toEqual(saving.step(s))
          ;[saving, restored].forEach((r, i) => {
            r.circuit.rollback()
            r.model = savedModels[i]!
            r.outputs.add(r.outputs.toZSet(), -1)
            r.outputs.add(savedOuts[i]!)
          })
          for (const s of c) {
            expect(restored.step(s)).toEqual(saving.step(s))
            restored.check()
          }
        }),
        params,
      ))
  }
})
