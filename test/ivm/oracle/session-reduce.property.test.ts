// SessionReduce (GROUP BY partition, window_start, window_end over SESSION, fused) against
// independent references:
// - ivm level: a from-scratch JS reference (sort each partition, sweep into sessions, fold
//   the aggregates) through the shared oracle harness (incremental, rollback, backfill, restore), and
//   step-by-step equality with the unfused pair Reduce ∘ SessionWindow on the same input,
//   with rollbacks interleaved and a watermark freeing closed sessions;
// - engine level: views over a TABLE (inserts, updates, deletes that split sessions, ROLLBACK)
//   and over a STREAM with a watermark (out-of-order and late events, EMIT ON WINDOW CLOSE),
//   checked after every statement against a plain-JS reference and against the same query
//   in a shape the planner does not fuse.

import { numericDiv, numericText } from '../../../planner/index.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  Circuit,
  compareValues,
  countDistinct,
  countRows,
  InputOperator,
  max,
  min,
  reduce,
  rowKey,
  SESSION_END,
  SESSION_START,
  sessionReduce,
  sessionWindow,
  sumInt,
  ZSet,
  type AggregateSpec,
  type Operator,
  type Row,
  type SessionReduceOperator,
} from '../../../ivm/index.js'
import { Engine } from '../../../src/index.js'
import type { ResultValue } from '../../../src/index.js'
import { Accumulator, norm } from '../helpers.js'
import { checkAll, type Table } from './harness.js'

const TIME = 1
const runs = (n: number) => ({ numRuns: Number(process.env.ORACLE_RUNS ?? n) })

// ------------------------------------------------------------------------- ivm level

// rows are [partition, time, value, partition2]; aggregates: count(*), sum(value),
// max(value) FILTER (WHERE value > 1), count(DISTINCT value), min(value)
const AGGS: AggregateSpec[] = [
  { aggregator: countRows, arg: () => null },
  { aggregator: sumInt, arg: (r) => r[2] },
  { aggregator: max(compareValues), arg: (r) => r[2], filter: (r) => r[2] !== null && (r[2] as number) > 1 },
  { aggregator: countDistinct, arg: (r) => r[2] },
  { aggregator: min(compareValues), arg: (r) => r[2] },
]

function foldRef(rows: readonly Row[]): unknown[] {
  const vs = rows.map((r) => r[2] as number | null).filter((v): v is number => v !== null)
  const f = vs.filter((v) => v > 1)
  return [rows.length, vs.length ? vs.reduce((a, b) => a + b, 0) : null, f.length ? Math.max(...f) : null, new Set(vs).size, vs.length ? Math.min(...vs) : null]
}

interface RefSession {
  readonly rows: Row[]
  readonly start: number
  readonly end: number
}

/** Sessions per partition from scratch: sort, sweep (rows repeated by weight). */
function sessionsOf(t: Table, part: readonly number[], gap: number): RefSession[] {
  const parts = new Map<unknown, Row[]>()
  for (const [r, w] of t) {
    if (r[TIME] === null || r[TIME] === undefined) continue
    const k = rowKey(part.map((c) => r[c]))
    const list = parts.get(k) ?? []
    parts.set(k, list)
    for (let i = 0; i < w; i++) list.push(r)
  }
  const res: RefSession[] = []
  for (const rows of parts.values()) {
    rows.sort((a, b) => (a[TIME] as number) - (b[TIME] as number))
    let session: Row[] = []
    const flush = (): void => {
      if (session.length === 0) return
      res.push({ rows: session, start: session[0]![TIME] as number, end: (session[session.length - 1]![TIME] as number) + gap })
      session = []
    }
    for (const r of rows) {
      if (session.length > 0 && !((r[TIME] as number) < (session[session.length - 1]![TIME] as number) + gap)) flush()
      session.push(r)
    }
    flush()
  }
  return res
}

/** The reference: one row per session: the `key` entries (a partition column,
 *  SESSION_START, SESSION_END), then the aggregates. */
function naive(t: Table, part: readonly number[], gap: number, key: readonly number[]): Table {
  return sessionsOf(t, part, gap).map((s) => [[...key.map((c) => (c === SESSION_START ? s.start : c === SESSION_END ? s.end : s.rows[0]![c])), ...foldRef(s.rows)], 1])
}

/** Distinct rows held in sessions still open at watermark wm (window_end > wm). */
function openEntries(t: Table, part: readonly number[], gap: number, wm: number): number {
  const open = new Set<unknown>()
  for (const s of sessionsOf(t, part, gap)) if (s.end > wm) for (const r of s.rows) open.add(rowKey(r))
  return open.size
}

const partValue = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: fc.integer({ min: 0, max: 2 }) })
const timeValue = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 12, arbitrary: fc.integer({ min: 0, max: 40 }) })
const valueArb = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: fc.integer({ min: 0, max: 4 }) })
const rowArb = fc.tuple(partValue, timeValue, valueArb, fc.integer({ min: 0, max: 1 })) as fc.Arbitrary<Row>

interface Shape {
  readonly part: number[]
  /** Output key over [input columns, SESSION_START, SESSION_END]. */
  readonly key: number[]
}
const SHAPES: Shape[] = [
  { part: [0], key: [0, SESSION_START, SESSION_END] },
  { part: [], key: [SESSION_END, SESSION_START] },
  { part: [0, 3], key: [SESSION_START, 3, SESSION_END, 0] },
]
const shapeArb = fc.constantFrom(...SHAPES)
const gapArb = fc.integer({ min: 1, max: 8 })
/** 1 and 2 send (nearly) every partition through the one-pass rebuild, 64 none. */
const bulkArb = fc.constantFrom(1, 2, 3, 64)

type Change = { kind: 'ins'; row: Row; weight: number } | { kind: 'del'; pick: number; weight: number }
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('ins' as const), row: rowArb, weight: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('del' as const), pick: fc.nat(), weight: fc.integer({ min: 1, max: 2 }) }) },
)
const stepArb = fc.array(changeArb, { minLength: 0, maxLength: 8 })

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

/** The fused operator and the unfused pair on one input. */
class Pair {
  readonly circuit: Circuit
  readonly table = new Accumulator()
  readonly outputs = new Accumulator()
  readonly input: InputOperator
  readonly fused: SessionReduceOperator
  readonly unfused: Operator

  constructor(readonly shape: Shape, readonly gap: number, bulkAbove: number, watermark?: () => number, scanBelow?: number) {
    this.circuit = new Circuit({ scanBelow })
    this.input = this.circuit.add(new InputOperator(() => this.table.toZSet()))
    this.fused = sessionReduce(this.circuit, this.input, { partitionBy: shape.part, timeColumn: TIME, gap, key: shape.key, aggregates: AGGS, watermark, bulkAbove })
    const win = sessionWindow(this.circuit, this.input, { partitionBy: shape.part, timeColumn: TIME, gap, watermark })
    // the window's output: the 4 input columns, then window_start (#4) and window_end (#5)
    const key = shape.key.map((c) => (c === SESSION_START ? 4 : c === SESSION_END ? 5 : c))
    const endAt = shape.key.indexOf(SESSION_END)
    this.unfused = reduce(this.circuit, win, key, AGGS, watermark ? { expire: { keyIndex: endAt, isFinal: (v) => (v as number) <= watermark() } } : {})
  }

  /** Pushes a delta (already applied to `table`), steps; both outputs must be equal and
   *  consolidated. */
  push(d: ZSet): void {
    if (d.length !== 0) this.input.push(d)
    this.circuit.step()
    const out = this.fused.out
    expect(out.weights.every((w) => w !== 0)).toBe(true)
    expect(new Set(out.rows.map(rowKey)).size).toBe(out.rows.length)
    expect(norm(out)).toEqual(norm(this.unfused.out))
    this.outputs.add(out)
    this.circuit.endStep()
  }

  want(): [Row, number][] {
    return norm(ZSet.of(naive(this.table.entries(), this.shape.part, this.gap, this.shape.key)))
  }

  /** Distinct (row, time) entries of the table with a time (what the operator holds without
   *  a watermark). */
  entries(): number {
    return this.table.entries().filter(([r]) => r[TIME] !== null).length
  }
}

describe('SessionReduce reference (guards the oracle itself)', () => {
  it('touching covers are separate sessions; weights repeat rows', () => {
    const t: Table = [
      [['a', 0, 1, 0], 1],
      [['a', 10, 2, 0], 1],
      [['a', 19, 3, 0], 2],
      [['a', null, 4, 0], 1],
      [['b', 5, null, 0], 1],
    ]
    expect(norm(ZSet.of(naive(t, [0], 10, [0, SESSION_START, SESSION_END])))).toEqual(
      norm(
        ZSet.of([
          [['a', 0, 10, 1, 1, null, 1, 1], 1],
          [['a', 10, 29, 3, 8, 3, 2, 2], 1],
          [['b', 5, 15, 1, null, null, 0, null], 1],
        ]),
      ),
    )
  })
})

describe('SessionReduce (oracle, ivm level)', { timeout: 300_000 }, () => {
  it('equals the unfused pair and the reference after every step', () => {
    fc.assert(
      fc.property(gapArb, shapeArb, bulkArb, fc.array(stepArb, { minLength: 1, maxLength: 12 }), fc.boolean(), (gap, shape, bulk, steps, scan) => {
        const run = new Pair(shape, gap, bulk, undefined, scan ? 0 : undefined)
        for (const s of steps) {
          run.push(resolve(s, run.table))
          run.circuit.commit()
          expect(run.outputs.entries()).toEqual(run.want())
          expect(run.fused.stateSize()).toBe(run.entries())
        }
      }),
      runs(1000),
    )
  })

  it('rollbacks interleaved: a rolled-back transaction leaves no trace', () => {
    const txArb = fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    fc.assert(
      fc.property(gapArb, shapeArb, bulkArb, fc.array(txArb, { minLength: 1, maxLength: 8 }), (gap, shape, bulk, txs) => {
        const run = new Pair(shape, gap, bulk)
        for (const tx of txs) {
          const saved = copy(run.table)
          const savedOut = copy(run.outputs)
          for (const s of tx.steps) run.push(resolve(s, run.table))
          if (tx.rollback) {
            run.circuit.rollback()
            run.table.add(run.table.toZSet(), -1)
            run.table.add(saved.toZSet())
            run.outputs.add(run.outputs.toZSet(), -1)
            run.outputs.add(savedOut.toZSet())
          } else run.circuit.commit()
          expect(run.fused.stateSize()).toBe(run.entries())
          expect(run.outputs.entries()).toEqual(run.want())
        }
        // one more step after the last transaction: the restored state steps on correctly
        run.push(resolve([{ kind: 'ins', row: ['a', 20, 1, 0], weight: 1 }, { kind: 'del', pick: 3, weight: 1 }], run.table))
        expect(run.outputs.entries()).toEqual(run.want())
      }),
      runs(500),
    )
  })

  it('watermark: closed sessions are freed, outputs stay equal, rollback restores freed sessions', () => {
    const batchArb = fc.record({
      rows: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 15 }), valueArb, fc.integer({ min: 1, max: 2 })), { minLength: 1, maxLength: 6 }),
      // deletes of held rows at or after the watermark (a table feeding SESSION may delete)
      dels: fc.array(fc.nat(), { maxLength: 2 }),
      advanceBy: fc.integer({ min: 0, max: 10 }),
    })
    const txArb = fc.record({ batches: fc.array(batchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    fc.assert(
      fc.property(gapArb, bulkArb, fc.array(txArb, { minLength: 1, maxLength: 8 }), (gap, bulk, txs) => {
        const shape = SHAPES[0]!
        let wm = 0
        const run = new Pair(shape, gap, bulk, () => wm)
        const open = () => openEntries(run.table.entries(), shape.part, gap, wm)
        for (const tx of txs) {
          const saved = copy(run.table)
          const savedOut = copy(run.outputs)
          const savedWm = wm
          for (const b of tx.batches) {
            const d = ZSet.of(b.rows.map(([p, off, v, w]) => [[p, wm + off, v, 0], w] as [Row, number]))
            const held = run.table.entries().filter(([r]) => (r[TIME] as number) >= wm)
            for (const pick of b.dels) {
              if (held.length === 0) break
              const [r] = held.splice(pick % held.length, 1)[0]!
              d.push(r, -1)
            }
            run.table.add(d)
            run.push(d)
            wm += b.advanceBy
            run.circuit.advance()
            run.circuit.endStep()
            expect(run.outputs.entries()).toEqual(run.want())
            expect(run.fused.stateSize()).toBe(open())
          }
          if (tx.rollback) {
            run.circuit.rollback()
            run.table.add(run.table.toZSet(), -1)
            run.table.add(saved.toZSet())
            run.outputs.add(run.outputs.toZSet(), -1)
            run.outputs.add(savedOut.toZSet())
            wm = savedWm
          } else run.circuit.commit()
          expect(run.fused.stateSize()).toBe(open())
        }
      }),
      runs(300),
    )
  })

  for (const [i, shape] of SHAPES.entries()) {
    for (const bulkAbove of [2, 64]) {
      it(`harness checks (incremental, rollback, backfill, restore), shape ${i}, bulkAbove ${bulkAbove}`, () =>
        checkAll({
          inputs: 1,
          row: rowArb,
          build: (c, [inp]) => sessionReduce(c, inp!, { partitionBy: shape.part, timeColumn: TIME, gap: 3, key: shape.key, aggregates: AGGS, bulkAbove }),
          oracle: ([t]) => naive(t!, shape.part, 3, shape.key),
        }))
    }
  }
})

// ------------------------------------------------------------------------- engine level

const BASE = Date.UTC(2024, 0, 1)
const SEC = 1000

function tsText(ms: number): string {
  const iso = new Date(ms).toISOString()
  const frac = iso.slice(20, 23).replace(/0+$/, '')
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? '.' + frac : ''}`
}
const tsLit = (ms: number) => `TIMESTAMP '${tsText(ms)}'`

interface Ev {
  readonly id: number
  readonly k: number
  readonly j: number
  readonly v: number | null
  /** ms since the epoch */
  readonly t: number
}

/** GROUP BY the partition, window_start, window_end of SESSION(… PARTITION BY part …, gap):
 *  [...partition values, window_start, window_end, count(*), sum(v), min(v), max(v), avg(v),
 *  count(DISTINCT v), count(*) FILTER (WHERE v > 4)] — the column order of SQL_AGGS. */
function reference(events: readonly Ev[], part: (e: Ev) => number[], gapSec: number): Row[] {
  const gap = gapSec * SEC
  const byPart = new Map<string, Ev[]>()
  for (const e of events) {
    const k = JSON.stringify(part(e))
    const list = byPart.get(k) ?? []
    byPart.set(k, list)
    list.push(e)
  }
  const out: Row[] = []
  for (const list of byPart.values()) {
    list.sort((a, b) => a.t - b.t)
    let members: Ev[] = []
    const close = () => {
      if (members.length === 0) return
      const vs = members.map((m) => m.v).filter((v): v is number => v !== null)
      const sum = vs.reduce((a, b) => a + b, 0)
      out.push([
        ...part(members[0]!),
        tsText(members[0]!.t),
        tsText(members[members.length - 1]!.t + gap),
        members.length,
        vs.length ? sum : null,
        vs.length ? Math.min(...vs) : null,
        vs.length ? Math.max(...vs) : null,
        // avg of integers is numeric: PostgreSQL's division of the exact sum
        vs.length ? numericText(numericDiv(sum, vs.length)) : null,
        new Set(vs).size,
        members.filter((m) => m.v !== null && m.v > 4).length,
      ])
      members = []
    }
    for (const e of list) {
      if (members.length > 0 && !(e.t < members[members.length - 1]!.t + gap)) close()
      members.push(e)
    }
    close()
  }
  return out
}

const SQL_AGGS = 'count(*) AS n, sum(v) AS sv, min(v) AS mn, max(v) AS mx, avg(v) AS av, count(DISTINCT v) AS dv, count(*) FILTER (WHERE v > 4) AS big'
/** The same query in a shape the planner does not fuse: count(window_end) = count(*) reads a
 *  window column. */
const unfusedOf = (sql: string) => sql.replace('count(*) AS n', 'count(window_end) AS n')

function text(rows: readonly (readonly ResultValue[])[] | readonly Row[]): string[] {
  return rows.map((r) => JSON.stringify(r.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v)))).sort()
}

function same(what: string, actual: readonly (readonly ResultValue[])[], expected: readonly Row[], log: readonly string[]): void {
  const a = text(actual)
  const e = text(expected)
  if (JSON.stringify(a) !== JSON.stringify(e)) {
    throw new Error(`${what} differs\n  actual:   ${a.join(' ')}\n  expected: ${e.join(' ')}\n-- script:\n${log.join('\n')}`)
  }
}

interface EngineView {
  readonly name: string
  readonly sql: string
  readonly part: (e: Ev) => number[]
  /** Partition columns in the output (window_end is column nPart + 1). */
  readonly nPart: number
}

function engineViews(gap: number, from: string, eowc = false): EngineView[] {
  const suffix = eowc ? ' EMIT ON WINDOW CLOSE' : ''
  return [
    {
      name: 'by_k',
      sql: `SELECT k, window_start, window_end, ${SQL_AGGS} FROM SESSION(TABLE ${from} PARTITION BY k, DESCRIPTOR(ts), INTERVAL '${gap}' SECOND) GROUP BY k, window_start, window_end${suffix}`,
      part: (e) => [e.k],
      nPart: 1,
    },
    {
      // several partition columns, the key in another order than the partition
      name: 'by_jk',
      sql: `SELECT j, k, window_start, window_end, ${SQL_AGGS} FROM SESSION(TABLE ${from} PARTITION BY (k, j), DESCRIPTOR(ts), INTERVAL '${gap}' SECOND) GROUP BY window_end, j, window_start, k${suffix}`,
      part: (e) => [e.j, e.k],
      nPart: 2,
    },
    {
      name: 'whole',
      sql: `SELECT window_start, window_end, ${SQL_AGGS} FROM SESSION(TABLE ${from}, DESCRIPTOR(ts), INTERVAL '${gap}' SECOND) GROUP BY window_start, window_end${suffix}`,
      part: () => [],
      nPart: 0,
    },
  ]
}

/** The state size EXPLAIN ANALYZE reports for the line of a view's plan containing `what`. */
function stateOf(db: Engine, view: string, what: string): number {
  const line = db.query(`EXPLAIN ANALYZE MATERIALIZED VIEW ${view}`).rows.map(String).find((l) => l.includes(what))
  const m = line ? /\[state: (\d+)\]/.exec(line) : null
  if (!m) throw new Error(`no state for ${what} in ${view}`)
  return Number(m[1])
}

function explain(db: Engine, sql: string): string {
  return db.query(`EXPLAIN ${sql}`).rows.join('\n')
}

type TOp =
  | { readonly kind: 'upsert'; readonly id: number; readonly k: number; readonly j: number; readonly v: number | null; readonly s: number }
  | { readonly kind: 'delete'; readonly id: number }
  | { readonly kind: 'deleteRange'; readonly lo: number; readonly len: number }
  | { readonly kind: 'shift'; readonly k: number; readonly d: number }

const ID = fc.integer({ min: 0, max: 14 })
const tOpArb: fc.Arbitrary<TOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('upsert' as const), id: ID, k: fc.integer({ min: 0, max: 1 }), j: fc.integer({ min: 0, max: 1 }), v: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null, freq: 6 }), s: fc.integer({ min: 0, max: 30 }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: ID }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRange' as const), lo: fc.integer({ min: 0, max: 30 }), len: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('shift' as const), k: fc.integer({ min: 0, max: 1 }), d: fc.integer({ min: -3, max: 3 }) }) },
)

function applyTableOp(op: TOp, rows: readonly Ev[]): { sql: string; after: Ev[] } {
  const T = (s: number) => BASE + s * SEC
  switch (op.kind) {
    case 'upsert': {
      const e: Ev = { id: op.id, k: op.k, j: op.j, v: op.v, t: T(op.s) }
      if (rows.some((r) => r.id === op.id)) {
        return { sql: `UPDATE r SET k = ${op.k}, j = ${op.j}, v = ${op.v ?? 'NULL'}, ts = ${tsLit(e.t)} WHERE id = ${op.id}`, after: rows.map((r) => (r.id === op.id ? e : r)) }
      }
      return { sql: `INSERT INTO r VALUES (${op.id}, ${op.k}, ${op.j}, ${op.v ?? 'NULL'}, ${tsLit(e.t)})`, after: [...rows, e] }
    }
    case 'delete':
      return { sql: `DELETE FROM r WHERE id = ${op.id}`, after: rows.filter((r) => r.id !== op.id) }
    case 'deleteRange':
      return {
        sql: `DELETE FROM r WHERE ts >= ${tsLit(T(op.lo))} AND ts < ${tsLit(T(op.lo + op.len))}`,
        after: rows.filter((r) => !(r.t >= T(op.lo) && r.t < T(op.lo + op.len))),
      }
    case 'shift':
      return {
        sql: `UPDATE r SET ts = ts + INTERVAL '${op.d}' SECOND WHERE k = ${op.k}`,
        after: rows.map((r) => (r.k === op.k ? { ...r, t: r.t + op.d * SEC } : r)),
      }
  }
}

describe('SessionReduce through the engine (fused views = reference = unfused query)', { timeout: 300_000 }, () => {
  it('the planner fuses exactly the queries it should', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE r (id INT PRIMARY KEY, k INT, j INT, v INT, ts TIMESTAMP)')
    for (const v of engineViews(3, 'r')) {
      expect(explain(db, v.sql)).toContain('SessionReduce')
      expect(explain(db, v.sql)).not.toContain('Window session')
      expect(explain(db, unfusedOf(v.sql))).toContain('Window session')
      expect(explain(db, unfusedOf(v.sql))).not.toContain('SessionReduce')
    }
    // not the whole key, or an aggregate of a window column: the unfused plan
    expect(explain(db, `SELECT k, window_end, count(*) FROM SESSION(TABLE r PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND) GROUP BY k, window_end`)).not.toContain('SessionReduce')
    expect(explain(db, `SELECT window_start, window_end, count(*) FROM SESSION(TABLE r PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND) GROUP BY window_start, window_end`)).not.toContain('SessionReduce')
    expect(explain(db, `SELECT k, j, window_start, window_end, count(*) FROM SESSION(TABLE r PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND) GROUP BY k, j, window_start, window_end`)).not.toContain('SessionReduce')
    // through a subquery that only picks columns
    expect(explain(db, `SELECT k, ws, we, sum(v) FROM (SELECT v, window_end AS we, k, window_start AS ws FROM SESSION(TABLE r PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) x GROUP BY k, ws, we`)).toContain('SessionReduce')
  })

  it('tables: inserts, updates, deletes (sessions merge and split), ROLLBACK', () => {
    const groupArb = fc.record({ mode: fc.constantFrom<'auto' | 'commit' | 'rollback'>('auto', 'auto', 'commit', 'rollback'), ops: fc.array(tOpArb, { minLength: 1, maxLength: 4 }) })
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(tOpArb, { maxLength: 10 }), fc.array(groupArb, { minLength: 1, maxLength: 8 }), (gap, initial, groups) => {
        const db = Engine.open()
        const log: string[] = []
        const exec = (sql: string) => {
          log.push(`${sql};`)
          db.execute(sql)
        }
        exec('CREATE TABLE r (id INT PRIMARY KEY, k INT, j INT, v INT, ts TIMESTAMP)')
        let rows: Ev[] = []
        for (const op of initial) {
          const { sql, after } = applyTableOp(op, rows)
          exec(sql)
          rows = after
        }
        const views = engineViews(gap, 'r')
        for (const v of views) {
          exec(`CREATE MATERIALIZED VIEW ${v.name} AS ${v.sql}`)
          exec(`CREATE MATERIALIZED VIEW ${v.name}_u AS ${unfusedOf(v.sql)}`)
        }
        const check = (when: string) => {
          for (const v of views) {
            const want = reference(rows, v.part, gap)
            same(`${when}: view ${v.name}`, db.query(`SELECT * FROM ${v.name}`).rows, want, log)
            same(`${when}: unfused view ${v.name}_u`, db.query(`SELECT * FROM ${v.name}_u`).rows, want, log)
            same(`${when}: ad hoc ${v.name}`, db.query(v.sql).rows, want, log)
          }
        }
        check('after creating the views')
        for (const g of groups) {
          if (g.mode === 'auto') {
            for (const op of g.ops) {
              const { sql, after } = applyTableOp(op, rows)
              exec(sql)
              rows = after
              check(`after ${sql}`)
            }
            continue
          }
          exec('BEGIN')
          let inTx = rows
          for (const op of g.ops) {
            const { sql, after } = applyTableOp(op, inTx)
            exec(sql)
            inTx = after
          }
          exec(g.mode === 'commit' ? 'COMMIT' : 'ROLLBACK')
          if (g.mode === 'commit') rows = inTx
          check(`after ${g.mode.toUpperCase()}`)
        }
      }),
      runs(150),
    )
  })

  it('streams: out-of-order and late events, the watermark frees sessions, EMIT ON WINDOW CLOSE', () => {
    const evArb = fc.record({ k: fc.integer({ min: 0, max: 1 }), j: fc.integer({ min: 0, max: 1 }), v: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null, freq: 6 }), s: fc.integer({ min: -6, max: 8 }) })
    const stmtArb = fc.record({ mode: fc.constantFrom<'auto' | 'rollback'>('auto', 'auto', 'auto', 'rollback'), events: fc.array(evArb, { minLength: 1, maxLength: 5 }), advance: fc.integer({ min: 0, max: 6 }) })
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 4 }), fc.array(stmtArb, { minLength: 1, maxLength: 14 }), (gap, delay, stmts) => {
        const db = Engine.open()
        const log: string[] = []
        const exec = (sql: string) => {
          log.push(`${sql};`)
          db.execute(sql)
        }
        exec(`CREATE STREAM s (k INT, j INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '${delay}' SECOND)`)
        const views = engineViews(gap, 's')
        const closed = engineViews(gap, 's', true)
        for (const v of views) {
          exec(`CREATE MATERIALIZED VIEW ${v.name} AS ${v.sql}`)
          exec(`CREATE MATERIALIZED VIEW ${v.name}_u AS ${unfusedOf(v.sql)}`)
        }
        for (const v of closed) exec(`CREATE MATERIALIZED VIEW ${v.name}_e AS ${v.sql}`)
        // the model: accepted events and the watermark (late iff ts < W at the start of the tick)
        let w = -Infinity
        const accepted: Ev[] = []
        let clock = 0
        let id = 0
        for (const st of stmts) {
          // event time roughly follows the statements, with jitter (out of order, sometimes late)
          clock += st.advance
          const evs: Ev[] = st.events.map((e) => ({ id: id++, k: e.k, j: e.j, v: e.v, t: BASE + (20 + clock + e.s) * SEC }))
          const sql = `INSERT INTO s VALUES ${evs.map((e) => `(${e.k}, ${e.j}, ${e.v ?? 'NULL'}, ${tsLit(e.t)})`).join(', ')}`
          if (st.mode === 'rollback') {
            exec('BEGIN')
            exec(sql)
            exec('ROLLBACK')
          } else {
            exec(sql)
            const ok = evs.filter((e) => !(e.t < w))
            accepted.push(...ok)
            for (const e of ok) w = Math.max(w, e.t - delay * SEC)
          }
          for (const v of views) {
            const want = reference(accepted, v.part, gap)
            same(`view ${v.name}`, db.query(`SELECT * FROM ${v.name}`).rows, want, log)
            same(`unfused view ${v.name}_u`, db.query(`SELECT * FROM ${v.name}_u`).rows, want, log)
          }
          for (const v of closed) {
            const want = reference(accepted, v.part, gap).filter((r) => Date.parse((r[v.nPart + 1] as string).replace(' ', 'T') + 'Z') <= w)
            same(`EMIT ON WINDOW CLOSE view ${v.name}_e`, db.query(`SELECT * FROM ${v.name}_e`).rows, want, log)
          }
        }
        // the watermark freed in the fused views what it freed in the unfused session windows
        for (const v of views) {
          expect(stateOf(db, v.name, 'SessionReduce')).toBe(stateOf(db, `${v.name}_u`, 'Window session'))
        }
      }),
      runs(150),
    )
  })
})
