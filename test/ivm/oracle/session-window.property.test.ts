// SessionWindow against a from-scratch reference: sort each partition's rows by time, sweep to
// form sessions, annotate. Checked after every step, with random gaps and partitionings, with
// rollbacks interleaved, and with a watermark freeing closed sessions (append-only input).

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Circuit, InputOperator, rowKey, sessionWindow, ZSet, type Row, type SessionWindowOperator } from '../../../ivm/index.js'
import { Accumulator, norm } from '../helpers.js'
import { checkAll, type Table } from './harness.js'

const TIME = 1

/** The reference: rows [partition, time, payload] (any weights ≥ 0), partition by `part`. */
function naiveSessions(t: Table, part: number[], gap: number): Table {
  const parts = new Map<string, Row[]>()
  for (const [r, w] of t) {
    if (r[TIME] === null || r[TIME] === undefined) continue
    const k = JSON.stringify(part.map((c) => r[c] ?? null))
    const list = parts.get(k) ?? []
    parts.set(k, list)
    for (let i = 0; i < w; i++) list.push(r)
  }
  const res: Table = []
  for (const rows of parts.values()) {
    rows.sort((a, b) => (a[TIME] as number) - (b[TIME] as number))
    let session: Row[] = []
    let start = 0
    let last = 0
    const flush = (): void => {
      for (const r of session) res.push([[...r, start, last + gap], 1])
      session = []
    }
    for (const r of rows) {
      const time = r[TIME] as number
      if (session.length > 0 && time < last + gap) {
        session.push(r)
        last = time
      } else {
        flush()
        session.push(r)
        start = time
        last = time
      }
    }
    flush()
  }
  return res
}

/** Distinct rows of the sessions still open at watermark `wm` (window_end > wm). */
function openEntries(t: Table, part: number[], gap: number, wm: number): number {
  const open = new Set<unknown>()
  for (const [r] of naiveSessions(t, part, gap)) if ((r[r.length - 1] as number) > wm) open.add(rowKey(r.slice(0, -2)))
  return open.size
}

function want(t: Table, part: number[], gap: number): [Row, number][] {
  return norm(ZSet.of(naiveSessions(t, part, gap)))
}

/** Rolls the circuit back and resets the test's own integrals to their saved state. */
function rollBack(run: Run, saved: ReturnType<typeof copy>, savedOut: ReturnType<typeof copy>): void {
  run.circuit.rollback()
  run.table.add(run.table.toZSet(), -1)
  run.table.add(saved.toZSet())
  run.outputs.add(run.outputs.toZSet(), -1)
  run.outputs.add(savedOut.toZSet())
}

describe('SessionWindow reference (guards the oracle itself)', () => {
  it('touching covers are separate sessions, overlapping ones merge', () => {
    const t: Table = [
      [['a', 0, 1], 1],
      [['a', 10, 2], 1], // touches 0 + 10: separate
      [['a', 19, 3], 2], // 19 < 20: merges with 10
      [['b', 0, 1], 1],
      [['a', null, 4], 1],
    ]
    expect(want(t, [0], 10)).toEqual(
      norm(
        ZSet.of([
          [['a', 0, 1, 0, 10], 1],
          [['a', 10, 2, 10, 29], 1],
          [['a', 19, 3, 10, 29], 2],
          [['b', 0, 1, 0, 10], 1],
        ]),
      ),
    )
    expect(openEntries(t, [0], 10, 10)).toBe(2)
  })
})

// ---- random workloads ----

const partValue = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: fc.integer({ min: 0, max: 2 }) })
const timeValue = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 12, arbitrary: fc.integer({ min: 0, max: 40 }) })
const rowArb = fc.tuple(partValue, timeValue, fc.integer({ min: 0, max: 3 })) as fc.Arbitrary<Row>

type Change = { kind: 'ins'; row: Row; weight: number } | { kind: 'del'; pick: number; weight: number }
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('ins' as const), row: rowArb, weight: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('del' as const), pick: fc.nat(), weight: fc.integer({ min: 1, max: 2 }) }) },
)
const stepArb = fc.array(changeArb, { minLength: 0, maxLength: 8 })
const gapArb = fc.integer({ min: 1, max: 8 })
const partArb = fc.constantFrom<number[]>([0], [], [0, 2])

/** Turns changes into one (unconsolidated) delta against `table`, which it updates. */
function resolve(step: Change[], table: Accumulator): ZSet {
  const d = new ZSet()
  for (const ch of step) {
    if (ch.kind === 'ins') {
      d.push(ch.row, ch.weight)
      table.add(ZSet.of([[ch.row, ch.weight]]))
    } else {
      const rows = table.entries()
      if (rows.length === 0) continue
      const [row, w] = rows[ch.pick % rows.length]!
      const dw = Math.min(w, ch.weight)
      d.push(row, -dw)
      table.add(ZSet.of([[row, -dw]]))
    }
  }
  return d
}

function copy(a: Accumulator): Accumulator {
  const c = new Accumulator()
  c.add(a.toZSet())
  return c
}

class Run {
  readonly circuit: Circuit
  readonly table = new Accumulator()
  readonly outputs = new Accumulator()
  readonly input: InputOperator
  readonly op: SessionWindowOperator

  constructor(part: number[], gap: number, watermark?: () => number, scanBelow?: number) {
    this.circuit = new Circuit({ scanBelow })
    this.input = this.circuit.add(new InputOperator(() => this.table.toZSet()))
    this.op = sessionWindow(this.circuit, this.input, { partitionBy: part, timeColumn: TIME, gap, watermark })
  }

  /** Pushes a delta (already applied to `table` by the caller), steps, returns the output. */
  push(d: ZSet): [Row, number][] {
    if (d.length !== 0) this.input.push(d)
    this.circuit.step()
    const out = this.op.out
    // consolidated: no zero weights, no repeated rows
    expect(out.weights.every((w) => w !== 0)).toBe(true)
    expect(new Set(out.rows.map(rowKey)).size).toBe(out.rows.length)
    this.outputs.add(out)
    this.circuit.endStep()
    return norm(out)
  }

  entries(): number {
    return this.table.entries().filter(([r]) => r[TIME] !== null).length
  }
}

const runs = (n: number) => ({ numRuns: Number(process.env.ORACLE_RUNS ?? n) })

describe('SessionWindow (oracle)', { timeout: 120_000 }, () => {
  it('output integral equals the reference after every step', () => {
    fc.assert(
      fc.property(gapArb, partArb, fc.array(stepArb, { minLength: 1, maxLength: 12 }), fc.boolean(), (gap, part, steps, scan) => {
        const run = new Run(part, gap, undefined, scan ? 0 : undefined)
        for (const s of steps) {
          run.push(resolve(s, run.table))
          run.circuit.commit()
          expect(run.outputs.entries()).toEqual(want(run.table.entries(), part, gap))
          expect(run.op.stateSize()).toBe(run.entries())
        }
      }),
      runs(1000),
    )
  })

  it('rollbacks interleaved: state after a rollback equals state as if the steps never came', () => {
    const txArb = fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    fc.assert(
      fc.property(gapArb, partArb, fc.array(txArb, { minLength: 1, maxLength: 8 }), (gap, part, txs) => {
        const run = new Run(part, gap)
        const ref = new Run(part, gap)
        for (const tx of txs) {
          const saved = copy(run.table)
          const savedOut = copy(run.outputs)
          for (const s of tx.steps) {
            const d = resolve(s, run.table)
            const out = run.push(d)
            if (!tx.rollback) {
              ref.table.add(d)
              expect(out).toEqual(ref.push(d))
            }
          }
          if (tx.rollback) {
            rollBack(run, saved, savedOut)
          } else {
            run.circuit.commit()
            ref.circuit.commit()
          }
          expect(run.op.stateSize()).toBe(ref.op.stateSize())
          expect(run.op.stateSize()).toBe(run.entries())
          expect(run.outputs.entries()).toEqual(want(run.table.entries(), part, gap))
          expect(run.outputs.entries()).toEqual(ref.outputs.entries())
        }
      }),
      runs(500),
    )
  })

  it('watermark: advance() frees exactly the closed sessions, output stays correct, rollback restores', () => {
    const batchArb = fc.record({
      rows: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 2 })), {
        minLength: 1,
        maxLength: 6,
      }),
      advanceBy: fc.integer({ min: 0, max: 10 }),
    })
    const txArb = fc.record({ batches: fc.array(batchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    fc.assert(
      fc.property(gapArb, fc.array(txArb, { minLength: 1, maxLength: 8 }), (gap, txs) => {
        const part = [0]
        let wm = 0
        const run = new Run(part, gap, () => wm)
        for (const tx of txs) {
          const saved = copy(run.table)
          const savedOut = copy(run.outputs)
          const savedWm = wm
          for (const b of tx.batches) {
            // append-only: every event is at or after the watermark
            const d = ZSet.of(b.rows.map(([p, off, v, w]) => [[p, wm + off, v], w] as [Row, number]))
            run.table.add(d)
            run.push(d)
            wm += b.advanceBy
            run.op.advance()
            expect(run.outputs.entries()).toEqual(want(run.table.entries(), part, gap))
            expect(run.op.stateSize()).toBe(openEntries(run.table.entries(), part, gap, wm))
          }
          if (tx.rollback) {
            rollBack(run, saved, savedOut)
            wm = savedWm
          } else run.circuit.commit()
          expect(run.op.stateSize()).toBe(openEntries(run.table.entries(), part, gap, wm))
        }
      }),
      runs(500),
    )
  })

  // the shared harness: incremental, rollback (A, B, rollback, C), backfill and restore
  it('harness checks, gap 3', () =>
    checkAll({
      inputs: 1,
      row: rowArb,
      build: (c, [i]) => sessionWindow(c, i!, { partitionBy: [0], timeColumn: TIME, gap: 3 }),
      oracle: ([t]) => naiveSessions(t!, [0], 3),
    }))
})
