// Checkpoints of the session operators under an advancing watermark: a circuit is driven by
// random transactions (inserts and deletes at or after the watermark, the watermark moving
// and advance() freeing closed sessions, commits and rollbacks); after a random transaction
// its state moves (saveState → v8 round trip → loadState, via restoreCircuit) into a freshly
// built twin — sometimes one that ran other input first, which loading must replace — and
// both continue with the same input: every step's and every advance's output, and every
// operator's stateSize, must be equal. Right after the restore one transaction is run and
// rolled back on both, so rollback over restored state is exercised too.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  Circuit,
  compareValues,
  countDistinct,
  countRows,
  InputOperator,
  integrate,
  max,
  min,
  SESSION_END,
  SESSION_START,
  sessionReduce,
  sessionWindow,
  sumInt,
  ZSet,
  type AggregateSpec,
  type Operator,
  type Row,
} from '../../../ivm/index.js'
import { Accumulator, norm } from '../helpers.js'
import { restoreCircuit } from '../oracle/harness.js'

const TIME = 1

// rows are [partition, time, value]
const AGGS: AggregateSpec[] = [
  { aggregator: countRows, arg: () => null },
  { aggregator: sumInt, arg: (r) => r[2] },
  { aggregator: max(compareValues), arg: (r) => r[2], filter: (r) => r[2] !== null && (r[2] as number) > 1 },
  { aggregator: countDistinct, arg: (r) => r[2] },
  { aggregator: min(compareValues), arg: (r) => r[2] },
]

/** Builds the operators under test on the input; returns the ones whose output is compared. */
type Build = (c: Circuit, input: InputOperator, watermark: () => number) => Operator[]

/** The watermark both twins read (they are stepped in lockstep). */
interface Clock {
  wm: number
}

class Twin {
  readonly circuit: Circuit
  readonly table = new Accumulator()
  readonly input: InputOperator
  readonly watch: Operator[]

  constructor(build: Build, clock: Clock, scanBelow: number | undefined) {
    this.circuit = new Circuit({ scanBelow })
    this.input = this.circuit.add(new InputOperator(() => this.table.toZSet()))
    this.watch = build(this.circuit, this.input, () => clock.wm)
    for (const o of this.watch) integrate(this.circuit, o)
  }

  /** One step with delta d; the watched operators' outputs. */
  step(d: ZSet): [Row, number][][] {
    this.table.add(d)
    if (d.length !== 0) this.input.push(d)
    this.circuit.step()
    const outs = this.watch.map((o) => norm(o.out))
    this.circuit.endStep()
    return outs
  }

  /** The end-of-tick pass; the watched operators' outputs. */
  advance(): [Row, number][][] {
    this.circuit.advance()
    const outs = this.watch.map((o) => norm(o.out))
    this.circuit.endStep()
    return outs
  }

  sizes(): number[] {
    return this.circuit.operators.map((o) => o.stateSize())
  }

  describe(): string[] {
    return this.circuit.operators.map((o) => o.describeState())
  }

  copyTable(): Accumulator {
    const a = new Accumulator()
    a.add(this.table.toZSet())
    return a
  }

  rollback(saved: Accumulator): void {
    this.circuit.rollback()
    this.table.add(this.table.toZSet(), -1)
    this.table.add(saved.toZSet())
  }
}

type Change = { kind: 'ins'; p: number | null; off: number | null; v: number | null; w: number } | { kind: 'del'; pick: number; w: number }
interface Batch {
  changes: Change[]
  advanceBy: number
}
interface Tx {
  batches: Batch[]
  rollback: boolean
}

const small = (max: number) => fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: fc.integer({ min: 0, max }) })
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('ins' as const), p: small(2), off: small(15), v: small(4), w: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('del' as const), pick: fc.nat(), w: fc.integer({ min: 1, max: 2 }) }) },
)
const batchArb: fc.Arbitrary<Batch> = fc.record({ changes: fc.array(changeArb, { maxLength: 6 }), advanceBy: fc.integer({ min: 0, max: 8 }) })
const txArb: fc.Arbitrary<Tx> = fc.record({ batches: fc.array(batchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })

/** The delta of a batch against `table` at watermark wm: inserts at wm + off (NULL time
 *  allowed), deletes of held rows whose time is NULL or ≥ wm (the watermark's promise). */
function resolve(b: Batch, table: Accumulator, wm: number): ZSet {
  const d = new ZSet()
  const held = new Accumulator()
  held.add(table.toZSet())
  for (const ch of b.changes) {
    if (ch.kind === 'ins') {
      const r: Row = [ch.p, ch.off === null ? null : wm + ch.off, ch.v]
      d.push(r, ch.w)
      held.add(ZSet.of([[r, ch.w]]))
      continue
    }
    const rows = held.entries().filter(([r]) => r[TIME] === null || (r[TIME] as number) >= wm)
    if (rows.length === 0) continue
    const [r, w] = rows[ch.pick % rows.length]!
    const dw = Math.min(w, ch.w)
    d.push(r, -dw)
    held.add(ZSet.of([[r, -dw]]))
  }
  return d
}

const runs = (n: number) => ({ numRuns: Number(process.env.ORACLE_RUNS ?? n) })

/** Runs `txs` on a circuit, restores into a fresh twin after transaction `at` (the twin first
 *  runs `dirty` on its own when given), then continues both in lockstep. */
function differential(build: Build, txs: Tx[], at: number, dirty: Tx | null, scan: boolean): void {
  const clock: Clock = { wm: 0 }
  const scanBelow = scan ? 0 : undefined
  const a = new Twin(build, clock, scanBelow)
  const runTx = (twins: Twin[], tx: Tx, forceRollback = false): void => {
    const saved = twins.map((t) => t.copyTable())
    const savedWm = clock.wm
    for (const b of tx.batches) {
      const d = resolve(b, twins[0]!.table, clock.wm)
      const outs = twins.map((t) => t.step(d))
      for (const o of outs) expect(o).toEqual(outs[0])
      clock.wm += b.advanceBy
      const adv = twins.map((t) => t.advance())
      for (const o of adv) expect(o).toEqual(adv[0])
      const sizes = twins.map((t) => t.sizes())
      for (const s of sizes) expect(s).toEqual(sizes[0])
    }
    if (tx.rollback || forceRollback) {
      twins.forEach((t, i) => t.rollback(saved[i]!))
      clock.wm = savedWm
    } else for (const t of twins) t.circuit.commit()
    const sizes = twins.map((t) => t.sizes())
    for (const s of sizes) expect(s).toEqual(sizes[0])
  }
  const cut = at % (txs.length + 1)
  for (let i = 0; i < cut; i++) runTx([a], txs[i]!)
  // the twin: freshly built (and, with `dirty`, holding other committed state to replace)
  const b = new Twin(build, clock, scan ? undefined : 0)
  if (dirty !== null) {
    const wm = clock.wm
    runTx([b], { batches: dirty.batches, rollback: false })
    clock.wm = wm
  }
  restoreCircuit(a.circuit, b.circuit)
  b.table.add(b.table.toZSet(), -1)
  b.table.add(a.table.toZSet())
  expect(b.sizes()).toEqual(a.sizes())
  expect(b.describe()).toEqual(a.describe())
  const rest = txs.slice(cut)
  // rollback right after the restore: both go back to the restored state
  if (rest.length > 0) runTx([a, b], rest[0]!, true)
  for (const tx of rest) runTx([a, b], tx)
  expect(b.describe()).toEqual(a.describe())
}

const gapArb = fc.constantFrom(1, 3, 5)
const txsArb = fc.array(txArb, { minLength: 1, maxLength: 8 })
const dirtyArb = fc.option(txArb, { nil: null })

describe('checkpoints of session operators under an advancing watermark', { timeout: 300_000 }, () => {
  it('SessionReduce: a restored twin continues exactly like the saving circuit', () => {
    fc.assert(
      fc.property(gapArb, fc.constantFrom(2, 64), txsArb, fc.nat(), dirtyArb, fc.boolean(), (gap, bulkAbove, txs, at, dirty, scan) => {
        const build: Build = (c, i, wm) => [sessionReduce(c, i, { partitionBy: [0], timeColumn: TIME, gap, key: [0, SESSION_START, SESSION_END], aggregates: AGGS, watermark: wm, bulkAbove })]
        differential(build, txs, at, dirty, scan)
      }),
      runs(300),
    )
  })

  it('SessionReduce without partitions or aggregates beyond count', () => {
    fc.assert(
      fc.property(gapArb, txsArb, fc.nat(), dirtyArb, (gap, txs, at, dirty) => {
        const build: Build = (c, i, wm) => [
          sessionReduce(c, i, { partitionBy: [], timeColumn: TIME, gap, key: [SESSION_END, SESSION_START], aggregates: [AGGS[0]!], watermark: wm }),
          sessionReduce(c, i, { partitionBy: [0], timeColumn: TIME, gap, key: [SESSION_START, 0, SESSION_END], aggregates: [], watermark: wm, bulkAbove: 1 }),
        ]
        differential(build, txs, at, dirty, false)
      }),
      runs(200),
    )
  })

  it('SessionWindow: a restored twin continues exactly like the saving circuit', () => {
    fc.assert(
      fc.property(gapArb, txsArb, fc.nat(), dirtyArb, fc.boolean(), (gap, txs, at, dirty, scan) => {
        const build: Build = (c, i, wm) => [
          sessionWindow(c, i, { partitionBy: [0], timeColumn: TIME, gap, watermark: wm }),
          sessionWindow(c, i, { partitionBy: [], timeColumn: TIME, gap: gap + 1 }),
        ]
        differential(build, txs, at, dirty, scan)
      }),
      runs(300),
    )
  })

  it('many rows at one time (large RowBuckets) survive the round trip', () => {
    // 40 distinct rows at one time: past the bucket's scan threshold, so it holds a key index
    const many = (t: number, sign: number) => ZSet.of(Array.from({ length: 40 }, (_, k) => [['a', t, k], sign] as [Row, number]))
    for (const bulkAbove of [1, 64]) {
      const clock: Clock = { wm: 0 }
      const build: Build = (c, i, wm) => [
        sessionReduce(c, i, { partitionBy: [0], timeColumn: TIME, gap: 5, key: [0, SESSION_START, SESSION_END], aggregates: AGGS, watermark: wm, bulkAbove }),
        sessionWindow(c, i, { partitionBy: [0], timeColumn: TIME, gap: 5, watermark: wm }),
      ]
      const a = new Twin(build, clock, undefined)
      a.step(many(10, 1))
      a.step(many(12, 1))
      a.circuit.commit()
      const b = new Twin(build, clock, undefined)
      restoreCircuit(a.circuit, b.circuit)
      b.table.add(a.table.toZSet())
      const half = ZSet.of(Array.from({ length: 20 }, (_, k) => [['a', 10, k * 2], -1] as [Row, number]))
      for (const d of [half, many(12, -1), many(30, 1)]) {
        expect(b.step(d)).toEqual(a.step(d))
        expect(b.sizes()).toEqual(a.sizes())
      }
      clock.wm = 100
      expect(b.advance()).toEqual(a.advance())
      expect(b.sizes()).toEqual(a.sizes())
      expect(b.watch.map((o) => o.stateSize())).toEqual([0, 0])
    }
  })
})
