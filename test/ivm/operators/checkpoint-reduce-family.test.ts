// Checkpoints of the reduce family: the watermark- and time-driven operators (Reduce with
// expire, EmitOnClose, TemporalFilter) and ReduceView with a secondary index, run as twins:
// one circuit steps through random input with an advancing watermark / clock, saves every
// operator's state at a random commit, and a fresh identical circuit loads it (through a v8
// serialization round trip); from then on both get the same input and must emit the same
// output at every step and advance, keep the same stateSize, and roll back alike. Also: every
// aggregator's accumulator survives a v8 round trip and keeps working (including those of
// src/sql-runtime/numeric-aggregates.ts and MIN/MAX in their chunked form).

import fc from 'fast-check'
import { deserialize, serialize } from 'node:v8'
import { describe, expect, it } from 'vitest'
import {
  arrayAgg, avg, boolAnd, boolOr, compareRows, count, countDistinct, countRows, EmitOnCloseOperator, IntegrateOperator, max, min, ReduceOperator,
  ReduceViewOperator, stringAgg, sumFloat, sumInt, TemporalFilterOperator, ZSet, type Aggregator, type Circuit, type Operator, type Row,
} from '../../../ivm/index.js'
import { numericOf } from '../../../planner/index.js'
import { avgIntegerToNumeric, avgNumeric, sumBigintToNumeric, sumNumeric, sumToBigint } from '../../../src/sql-runtime/numeric-aggregates.js'
import { restoreCircuit } from '../oracle/harness.js'
import { Driver, norm } from '../helpers.js'

const runs = { numRuns: Number(process.env.ORACLE_RUNS ?? 100) }

/** The watermark / processing time a twin's operators read (each twin has its own). */
interface Clock {
  t: number
}

interface Case {
  /** Generated input rows (small domains: keys collide, windows close). */
  row: fc.Arbitrary<Row>
  /** Builds the operators on the input; returns those whose outputs are compared. */
  build: (c: Circuit, input: Operator, clock: Clock) => Operator[]
}

type Change = { kind: 'ins'; row: Row; weight: number } | { kind: 'del'; pick: number; weight: number }
interface Tick {
  changes: Change[]
  /** How far the clock moves before the tick. */
  dt: number
  /** The tick is rolled back instead of committed. */
  rollback: boolean
}

function ticksArb(c: Case): fc.Arbitrary<Tick[]> {
  const change: fc.Arbitrary<Change> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('ins' as const), row: c.row, weight: fc.integer({ min: 1, max: 2 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('del' as const), pick: fc.nat(), weight: fc.integer({ min: 1, max: 2 }) }) },
  )
  const tick = fc.record({ changes: fc.array(change, { maxLength: 6 }), dt: fc.integer({ min: 0, max: 2 }), rollback: fc.boolean() }).map((t) => ({ ...t, rollback: t.rollback && t.dt % 2 === 0 }))
  return fc.array(tick, { minLength: 1, maxLength: 12 })
}

class Twin {
  readonly d = new Driver()
  readonly clock: Clock = { t: 0 }
  readonly watched: Operator[]

  constructor(c: Case) {
    const before = new Set(this.d.circuit.operators)
    this.watched = c.build(this.d.circuit, this.d.input, this.clock)
    // as the engine builds a plan: fresh operators backfilled (from empty inputs here)
    this.d.circuit.backfill(this.d.circuit.operators.filter((o) => !before.has(o)))
    this.d.commit()
  }

  /** One tick (the clock moved to `t`): the step's and the advance's outputs, normalized,
   *  then each watched operator's stateSize; committed or rolled back. */
  tick(delta: ZSet, t: number, rollback: boolean): unknown[] {
    this.clock.t = t
    const saved = this.d.saveTables()
    const res: unknown[] = this.d.tick(delta, this.watched).map((z) => norm(z))
    this.d.circuit.advance()
    for (const op of this.watched) res.push(norm(op.out))
    this.d.circuit.endStep()
    for (const op of this.watched) res.push(op.stateSize())
    if (rollback) this.d.rollback(saved)
    else this.d.commit()
    for (const op of this.watched) res.push(op.stateSize())
    return res
  }
}

/** The input delta of a tick's changes against the current table (deletes pick existing rows). */
function resolve(changes: readonly Change[], twin: Twin): ZSet {
  const d = new ZSet()
  const rows = twin.d.tables[0]!.entries()
  const left = new Map<number, number>()
  for (const ch of changes) {
    if (ch.kind === 'ins') {
      d.push(ch.row, ch.weight)
      continue
    }
    if (rows.length === 0) continue
    const i = ch.pick % rows.length
    const w = left.get(i) ?? rows[i]![1]
    const dw = Math.min(w, ch.weight)
    if (dw <= 0) continue
    left.set(i, w - dw)
    d.push(rows[i]![0], -dw)
  }
  return d
}

/** Ticks A on one twin, commit, restore into a fresh twin, then ticks B on both (plus a tick
 *  rolled back right after the restore): identical outputs and state sizes throughout. */
function checkTwins(c: Case): void {
  fc.assert(
    fc.property(ticksArb(c), ticksArb(c), fc.array(fc.record({ kind: fc.constant('ins' as const), row: c.row, weight: fc.integer({ min: 1, max: 2 }) }), { minLength: 1, maxLength: 4 }), (a, b, undone) => {
      const saving = new Twin(c)
      let t = 0
      for (const tk of a) {
        t += tk.dt
        saving.tick(resolve(tk.changes, saving), t, tk.rollback)
      }
      saving.d.commit()
      const restored = new Twin(c)
      restored.clock.t = t
      restoreCircuit(saving.d.circuit, restored.d.circuit)
      restored.d.tables[0]!.add(saving.d.tables[0]!.toZSet())
      // a rollback straight after the restore goes back to the loaded state
      const first = resolve(undone, saving)
      expect(restored.tick(first, t + 1, true)).toEqual(saving.tick(first, t + 1, true))
      for (const tk of b) {
        t += tk.dt
        const delta = resolve(tk.changes, saving)
        expect(restored.tick(delta, t, tk.rollback)).toEqual(saving.tick(delta, t, tk.rollback))
      }
      // operator ids differ between the circuits
      const described = (op: Operator): string => op.describeState().replace(/Reduce#\d+/g, 'Reduce')
      for (let i = 0; i < saving.watched.length; i++) expect(described(restored.watched[i]!)).toBe(described(saving.watched[i]!))
    }),
    runs,
  )
}

const final = (clock: Clock) => (v: unknown) => v !== null && (v as number) <= clock.t
const key = fc.integer({ min: 0, max: 2 })
const win = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: fc.integer({ min: 0, max: 12 }) })
const val = fc.oneof(fc.constant(null), fc.integer({ min: -3, max: 3 }))
const rowKWV = fc.tuple(key, win, val) as fc.Arbitrary<Row>
const num = (a: unknown, b: unknown): number => (a as number) - (b as number)

describe('checkpoint: watermark- and time-driven operators', { timeout: 300_000 }, () => {
  it('Reduce with expire (groups dropped by advance, re-indexed on load)', () =>
    checkTwins({
      row: rowKWV,
      build: (c, input, clock) => {
        const r = c.add(
          new ReduceOperator(
            input,
            [0, 1],
            [
              { aggregator: countRows, arg: () => null },
              { aggregator: sumInt, arg: (row) => row[2] },
              { aggregator: max(num), arg: (row) => row[2] },
              { aggregator: countDistinct, arg: (row) => row[2] },
            ],
            { expire: { keyIndex: 1, isFinal: final(clock) } },
          ),
        )
        return [r, c.add(new IntegrateOperator(r))]
      },
    }))

  it('Reduce with expire on the first key column, one aggregate', () =>
    checkTwins({
      row: rowKWV,
      build: (c, input, clock) => [c.add(new ReduceOperator(input, [1], [{ aggregator: min(num), arg: (row) => row[2] }], { expire: { keyIndex: 0, isFinal: final(clock) } }))],
    }))

  it('EmitOnClose', () =>
    checkTwins({ row: rowKWV, build: (c, input, clock) => [c.add(new EmitOnCloseOperator(input, { column: 1, isFinal: final(clock) }))] }))

  it('Reduce with expire feeding EmitOnClose (a windowed aggregate emitted on close)', () =>
    checkTwins({
      row: rowKWV,
      build: (c, input, clock) => {
        const r = c.add(new ReduceOperator(input, [1, 0], [{ aggregator: sumInt, arg: (row) => row[2] }], { expire: { keyIndex: 0, isFinal: final(clock) } }))
        return [r, c.add(new EmitOnCloseOperator(r, { column: 0, isFinal: final(clock) }))]
      },
    }))

  it('TemporalFilter (rows enter at from, leave at until)', () =>
    checkTwins({
      row: fc.tuple(key, win, fc.integer({ min: 0, max: 4 })) as fc.Arbitrary<Row>,
      build: (c, input, clock) => [
        c.add(
          new TemporalFilterOperator(input, {
            from: (row) => (row[1] === null ? null : (row[1] as number)),
            until: (row) => (row[1] === null ? null : (row[1] as number) + (row[2] as number)),
            now: () => clock.t,
          }),
        ),
      ],
    }))

  it('TemporalFilter with an upper bound only', () =>
    checkTwins({
      row: rowKWV,
      build: (c, input, clock) => [c.add(new TemporalFilterOperator(input, { until: (row) => (row[1] === null ? null : (row[1] as number) + 3), now: () => clock.t }))],
    }))

  it('ReduceView with a secondary index (refilled on load)', () =>
    checkTwins({
      row: rowKWV,
      build: (c, input) => {
        const r = c.add(new ReduceOperator(input, [0, 1], [{ aggregator: countRows, arg: () => null }, { aggregator: sumInt, arg: (row) => row[2] }]))
        const v = c.add(new ReduceViewOperator(r))
        v.index([2])
        return [r, v]
      },
    }))

  it('global aggregate with emitEmptyGroup: the backfilled row of the fresh operator is replaced', () =>
    checkTwins({ row: rowKWV, build: (c, input) => [c.add(new ReduceOperator(input, [], [{ aggregator: countRows, arg: () => null }, { aggregator: sumInt, arg: (row) => row[2] }], { emitEmptyGroup: true }))] }))

  it('ReduceView lookups through a restored secondary index', () => {
    const twin = new Twin({
      row: rowKWV,
      build: (c, input) => {
        const r = c.add(new ReduceOperator(input, [0, 1], [{ aggregator: countRows, arg: () => null }]))
        const v = c.add(new ReduceViewOperator(r))
        v.index([2])
        return [v]
      },
    })
    twin.tick(ZSet.of([[['a', 1, 0], 1], [['a', 1, 0], 1], [['b', 2, 0], 1], [['c', 3, 0], 1]]), 0, false)
    const into = new Twin({
      row: rowKWV,
      build: (c, input) => {
        const r = c.add(new ReduceOperator(input, [0, 1], [{ aggregator: countRows, arg: () => null }]))
        return [c.add(new ReduceViewOperator(r))]
      },
    })
    const v = into.watched[0] as ReduceViewOperator
    const byCount = v.index([2])
    restoreCircuit(twin.d.circuit, into.d.circuit)
    const ones = v.lookup(byCount, byCount.keyOfValues([1]))!
    expect(norm(new ZSet(ones.rows.slice(), ones.weights.slice()))).toEqual(norm(ZSet.of([[['b', 2, 1], 1], [['c', 3, 1], 1]])))
    expect(v.stateSize()).toBe(3)
  })
})

// ---- accumulators ----

/** What a result is compared by (Numeric values by their text). */
function shown(v: unknown): unknown {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? String(v) : v
}

/** Folds ops[0, cut) into an accumulator, round-trips it through v8, then folds the rest
 *  into both copies: the same result after every op. */
function checkAccumulator<A, R>(agg: Aggregator<A, R>, ops: readonly [unknown, number][], cut: number): void {
  let acc = agg.create()
  for (let i = 0; i < cut; i++) acc = agg.add(acc, ops[i]![0], ops[i]![1])
  let copy = deserialize(serialize(acc)) as A
  expect(shown(agg.result(copy))).toEqual(shown(agg.result(acc)))
  for (let i = cut; i < ops.length; i++) {
    acc = agg.add(acc, ops[i]![0], ops[i]![1])
    copy = agg.add(copy, ops[i]![0], ops[i]![1])
    expect(shown(agg.result(copy))).toEqual(shown(agg.result(acc)))
  }
}

/** Ops over values from `value`: inserts, and retractions of values inserted before (so the
 *  multisets stay valid). */
function opsArb(value: fc.Arbitrary<unknown>, maxLength = 40): fc.Arbitrary<[unknown, number][]> {
  return fc.array(fc.tuple(value, fc.integer({ min: 1, max: 3 }), fc.boolean()), { maxLength }).map((xs) => {
    const ops: [unknown, number][] = []
    const live: [unknown, number][] = []
    for (const [v, w, retract] of xs) {
      if (retract && live.length > 0) {
        const e = live[w % live.length]!
        ops.push([e[0], -1])
        if (--e[1] === 0) live.splice(live.indexOf(e), 1)
      } else {
        ops.push([v, w])
        live.push([v, w])
      }
    }
    return ops
  })
}

function checkAgg<A, R>(agg: Aggregator<A, R>, value: fc.Arbitrary<unknown>): void {
  fc.assert(
    fc.property(opsArb(value), fc.nat(), (ops, at) => checkAccumulator(agg, ops, ops.length === 0 ? 0 : at % (ops.length + 1))),
    runs,
  )
}

const small = fc.oneof(fc.constant(null), fc.integer({ min: -5, max: 5 }))
const orderCmp = (a: readonly unknown[], b: readonly unknown[]): number => compareRows(a as Row, b as Row)

describe('checkpoint: accumulators survive a v8 round trip and keep working', { timeout: 300_000 }, () => {
  it('count, countRows, sumInt (bigints too), sumFloat, avg', () => {
    checkAgg(countRows, small)
    checkAgg(count, small)
    checkAgg(sumInt, fc.oneof(small, fc.constant(2 ** 53 - 1), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n })))
    checkAgg(sumFloat, fc.oneof(fc.constant(null), fc.double({ noNaN: false }), fc.constant(Infinity), fc.constant(-0)))
    checkAgg(avg('int'), small)
    checkAgg(avg('float'), fc.oneof(fc.constant(null), fc.double({ min: -1e6, max: 1e6, noNaN: true })))
  })

  it('min, max, distinct, bool, string_agg, array_agg', () => {
    checkAgg(min(num), small)
    checkAgg(max((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)), fc.oneof(fc.constant(null), fc.string({ maxLength: 2 })))
    checkAgg(countDistinct, small)
    checkAgg(boolAnd, fc.oneof(fc.constant(null), fc.boolean()))
    checkAgg(boolOr, fc.oneof(fc.constant(null), fc.boolean()))
    checkAgg(stringAgg(), fc.tuple(fc.oneof(fc.constant(null), fc.string({ maxLength: 2 })), fc.constantFrom(',', ';')))
    checkAgg(stringAgg(orderCmp), fc.tuple(fc.string({ maxLength: 2 }), fc.constant(','), fc.tuple(small)))
    checkAgg(arrayAgg(undefined, (vs) => vs), fc.tuple(small))
    checkAgg(arrayAgg(orderCmp, (vs) => vs), fc.tuple(small, fc.tuple(small)))
  })

  it('MIN / MAX in chunked form (past CHUNK_ABOVE distinct values), then flat again', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(Array.from({ length: 1500 }, (_, i) => i), { minLength: 1400 }), fc.nat(), (values, at) => {
        const ops: [unknown, number][] = values.map((v) => [v, 1])
        for (const v of values.slice(0, values.length - 40)) ops.push([v, -1])
        for (const agg of [min(num), max(num)]) checkAccumulator(agg, ops, at % ops.length)
      }),
      { numRuns: 10 },
    )
  })

  it('the numeric aggregates of src/sql-runtime (bigint coefficients, sparse scale counts)', () => {
    const ints = fc.oneof(fc.constant(null), fc.integer({ min: -1000, max: 1000 }))
    const decimal = fc.oneof(
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity) },
      { weight: 3, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
      { weight: 5, arbitrary: fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.constantFrom(1, 3, 7)).map(([c, s]) => numericOf(c, s)) },
    )
    checkAgg(sumToBigint, ints)
    checkAgg(sumBigintToNumeric, fc.oneof(ints, fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n })))
    checkAgg(avgIntegerToNumeric, ints)
    checkAgg(sumNumeric, decimal)
    checkAgg(avgNumeric, decimal)
  })
})
