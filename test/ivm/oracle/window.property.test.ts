// Window functions: the incremental output equals a naive per-partition recompute after every
// step, over random inserts and deletes with duplicate rows, tied ORDER BY values and NULLs.
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { expect } from 'vitest'
import { Circuit, compareRows, count, InputOperator, integrate, max, min, rowKey, sumInt, WHOLE_AT, window, ZSet, type Frame, type FrameBound, type Row, type RowKey, type WindowFunction, type WindowOrder } from '../../../ivm/index.js'
import { norm } from '../helpers.js'
import { checkAll, expand, type Table } from './harness.js'

// rows: [partition, order value (NULL sometimes), value]
const row = fc.tuple(fc.integer({ min: 0, max: 1 }), fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: fc.integer({ min: 0, max: 6 }) }), fc.integer({ min: 0, max: 3 })) as fc.Arbitrary<Row>

const compareOrder = (x: unknown, y: unknown): number => (x === y ? 0 : x === null ? 1 : y === null ? -1 : (x as number) - (y as number))
const asc: WindowOrder = { peers: (a, b) => compareOrder(a[1], b[1]), value: (r) => r[1], compareValues: compareOrder }
// DESC NULLS FIRST: the reverse of the above
const desc: WindowOrder = { peers: (a, b) => -compareOrder(a[1], b[1]), value: (r) => r[1], compareValues: (x, y) => -compareOrder(x, y) }

const val = (r: Row): unknown => r[2]
const fallback = (): unknown => -1
const rows = (n: number): FrameBound => ({ kind: 'rows', offset: n })
const range = (n: number, toward: -1 | 1, descending = false): FrameBound => ({ kind: 'value', toward, shift: (v, d) => (v as number) + (descending ? -d : d) * n })
const unbounded: FrameBound = { kind: 'unbounded' }
const peers: FrameBound = { kind: 'peers' }
const running: Frame = { start: unbounded, end: peers }

/** The naive result: per partition, positions in order, each function by its definition. */
function naive(t: Table, order: WindowOrder, fs: readonly WindowFunction[]): Table {
  const parts = new Map<RowKey, Row[]>()
  for (const r of expand(t)) {
    const k = rowKey([r[0]])
    const p = parts.get(k)
    if (p) p.push(r)
    else parts.set(k, [r])
  }
  const res: Table = []
  for (const rs of parts.values()) {
    rs.sort((a, b) => order.peers(a, b) || compareRows(a, b))
    const n = rs.length
    const isPeer = (i: number, j: number): boolean => order.peers(rs[i]!, rs[j]!) === 0
    const limit = (b: FrameBound, i: number, isStart: boolean): number => {
      switch (b.kind) {
        case 'unbounded':
          return isStart ? 0 : n - 1
        case 'rows':
          return i + b.offset
        case 'peers': {
          let j = i
          if (isStart) while (j > 0 && isPeer(j - 1, i)) j--
          else while (j < n - 1 && isPeer(j + 1, i)) j++
          return j
        }
        case 'value': {
          const v = order.value(rs[i]!)
          if (v === null) return limit(peers, i, isStart)
          const bound = b.shift(v, b.toward)
          const inside = (j: number): boolean => (isStart ? order.compareValues(order.value(rs[j]!), bound) >= 0 : order.compareValues(order.value(rs[j]!), bound) <= 0)
          if (isStart) {
            let j = 0
            while (j < n && !inside(j)) j++
            return j
          }
          let j = n - 1
          while (j >= 0 && !inside(j)) j--
          return j
        }
      }
    }
    for (let i = 0; i < n; i++) {
      const out: unknown[] = [...rs[i]!]
      for (const f of fs) {
        switch (f.kind) {
          case 'rowNumber':
            out.push(i + 1)
            break
          case 'rank': {
            let j = i
            while (j > 0 && isPeer(j - 1, i)) j--
            out.push(j + 1)
            break
          }
          case 'percentRank':
          case 'cumeDist': {
            let first = i
            while (first > 0 && isPeer(first - 1, i)) first--
            let last = i
            while (last < n - 1 && isPeer(last + 1, i)) last++
            out.push(f.kind === 'percentRank' ? (n > 1 ? first / (n - 1) : 0) : (last + 1) / n)
            break
          }
          case 'ntile': {
            // deal rows out: bucket b gets floor(n / k) rows, plus one for the first n % k
            let b = 1
            let left = i
            for (;;) {
              const size = Math.floor(n / f.n) + (b <= n % f.n ? 1 : 0)
              if (left < size) break
              left -= size
              b++
            }
            out.push(b)
            break
          }
          case 'denseRank': {
            let groups = 1
            for (let j = 1; j <= i; j++) if (!isPeer(j - 1, j)) groups++
            out.push(groups)
            break
          }
          case 'lag':
          case 'lead': {
            const p = f.kind === 'lag' ? i - f.offset : i + f.offset
            out.push(p >= 0 && p < n ? f.value(rs[p]!) : f.fallback(rs[i]!))
            break
          }
          default: {
            const s = Math.max(0, limit(f.frame.start, i, true))
            const e = Math.min(n - 1, limit(f.frame.end, i, false))
            if (f.kind === 'aggregate') {
              let acc = f.aggregator.create()
              for (let j = s; j <= e; j++) acc = f.aggregator.add(acc, f.arg(rs[j]!), 1)
              out.push(f.aggregator.result(acc))
            } else {
              const p = f.kind === 'firstValue' ? s : f.kind === 'lastValue' ? e : s + f.n - 1
              out.push(s <= e && p >= s && p <= e ? f.value(rs[p]!) : null)
            }
          }
        }
      }
      res.push([out, 1])
    }
  }
  return res
}

const agg = (aggregator: WindowFunction & { kind: 'aggregate' } extends { aggregator: infer A } ? A : never, frame: Frame): WindowFunction => ({ kind: 'aggregate', aggregator, arg: val, frame })

const cases: [string, WindowOrder, WindowFunction[]][] = [
  ['row_number, rank, dense_rank', asc, [{ kind: 'rowNumber' }, { kind: 'rank' }, { kind: 'denseRank' }]],
  ['rank, dense_rank DESC NULLS FIRST', desc, [{ kind: 'rank' }, { kind: 'denseRank' }]],
  ['percent_rank, cume_dist, ntile', asc, [{ kind: 'percentRank' }, { kind: 'cumeDist' }, { kind: 'ntile', n: 3 }, { kind: 'ntile', n: 1 }]],
  ['lag / lead with offsets and defaults', asc, [{ kind: 'lag', value: val, offset: 1, fallback }, { kind: 'lead', value: val, offset: 2, fallback }, { kind: 'lag', value: val, offset: 0, fallback }]],
  ['running sum and count (default frame)', asc, [agg(sumInt as never, running), agg(count as never, running)]],
  ['sum over ROWS 1 PRECEDING .. 1 FOLLOWING', asc, [agg(sumInt as never, { start: rows(-1), end: rows(1) })]],
  ['min / max over ROWS 2 PRECEDING .. CURRENT ROW', asc, [agg(min(compareOrder) as never, { start: rows(-2), end: rows(0) }), agg(max(compareOrder) as never, { start: rows(-2), end: rows(0) })]],
  ['sum over ROWS 1 FOLLOWING .. 2 FOLLOWING and 2 PRECEDING .. 1 PRECEDING', asc, [agg(sumInt as never, { start: rows(1), end: rows(2) }), agg(sumInt as never, { start: rows(-2), end: rows(-1) })]],
  ['sum over ROWS UNBOUNDED PRECEDING .. 1 PRECEDING and CURRENT ROW .. UNBOUNDED FOLLOWING', asc, [agg(sumInt as never, { start: unbounded, end: rows(-1) }), agg(sumInt as never, { start: rows(0), end: unbounded })]],
  ['count over the whole partition', asc, [agg(count as never, { start: unbounded, end: unbounded })]],
  ['sum over RANGE 2 PRECEDING .. CURRENT ROW (sliding)', asc, [agg(sumInt as never, { start: range(2, -1), end: peers })]],
  ['sum over RANGE 1 PRECEDING .. 1 FOLLOWING and 1 FOLLOWING .. 3 FOLLOWING', asc, [agg(sumInt as never, { start: range(1, -1), end: range(1, 1) }), agg(sumInt as never, { start: range(1, 1), end: range(3, 1) })]],
  ['sum over RANGE UNBOUNDED .. 1 PRECEDING, DESC', desc, [agg(sumInt as never, { start: unbounded, end: range(1, -1, true) })]],
  ['sum over RANGE CURRENT ROW .. UNBOUNDED FOLLOWING', asc, [agg(sumInt as never, { start: peers, end: unbounded })]],
  ['first / last / nth value (default frame and ROWS)', asc, [
    { kind: 'firstValue', value: val, frame: running },
    { kind: 'lastValue', value: val, frame: running },
    { kind: 'nthValue', value: val, n: 2, frame: running },
    { kind: 'firstValue', value: val, frame: { start: rows(-1), end: rows(1) } },
    { kind: 'lastValue', value: val, frame: { start: range(1, -1), end: unbounded } },
    { kind: 'nthValue', value: val, n: 2, frame: { start: unbounded, end: unbounded } },
  ]],
]

describe('Window (oracle)', { timeout: 300_000 }, () => {
  for (const [name, order, functions] of cases) {
    it(name, () =>
      checkAll({
        inputs: 1,
        row,
        build: (c, [i]) => window(c, i!, { partitionColumns: [0], order, functions }),
        oracle: ([t]) => naive(t!, order, functions),
      }))
  }
})

// Over an append-only input with a watermark on the ORDER BY value: rows the watermark passed
// are freed at commit but for what later rows may read or change (the retention the planner
// computes, planner/lower/window-retention.ts, here written out per case). Every row arrives at
// or after the watermark; some ticks roll back (nothing is freed, the state is restored).
const freeCases: [string, WindowFunction[], number, number][] = [
  ['ranks and running sum: nothing kept', [{ kind: 'rowNumber' }, { kind: 'rank' }, { kind: 'denseRank' }, agg(sumInt as never, running), agg(count as never, { start: unbounded, end: rows(-1) })], 1, 0],
  ['LAG 2 and LEAD 1: the last 3 kept', [{ kind: 'lag', value: val, offset: 2, fallback }, { kind: 'lead', value: val, offset: 1, fallback }], 3, 0],
  ['ROWS 2 PRECEDING .. 1 FOLLOWING, last_value', [agg(sumInt as never, { start: rows(-2), end: rows(1) }), { kind: 'lastValue', value: val, frame: { start: rows(-1), end: rows(0) } }], 3, 0],
  ['RANGE 2 PRECEDING .. 1 FOLLOWING: within 3 kept', [agg(sumInt as never, { start: range(2, -1), end: range(1, 1) }), agg(max(compareOrder) as never, { start: range(2, -1), end: peers })], 0, 3],
]

describe('Window freeing by the watermark (append-only input)', { timeout: 300_000 }, () => {
  for (const [name, functions, keepRows, distance] of freeCases) {
    it(name, () => {
      fc.assert(
        fc.property(
          fc.array(fc.record({ rows: fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.option(fc.integer({ min: 0, max: 3 }), { freq: 8, nil: null }), fc.integer({ min: 0, max: 3 })), { maxLength: 5 }), advanceBy: fc.integer({ min: 0, max: 3 }), rollback: fc.boolean() }), { minLength: 1, maxLength: 14 }),
          (ticks) => {
            let wm = 0
            const table: Row[] = []
            const circuit = new Circuit()
            const input = circuit.add(new InputOperator(() => ZSet.of(table.map((r) => [r, 1]))))
            const op = window(circuit, input, { partitionColumns: [0], order: asc, functions, freeing: { isFinal: (v, w) => (v as number) < w, watermark: () => wm, rows: keepRows, distance } })
            const sink = integrate(circuit, op)
            for (const t of ticks) {
              // at or after the watermark (a NULL time is never passed)
              const fresh: Row[] = t.rows.map(([p, dt, v]) => [p, dt === null ? null : wm + dt, v])
              if (fresh.length > 0) input.push(ZSet.of(fresh.map((r) => [r, 1])))
              circuit.step()
              circuit.endStep()
              const before = wm
              wm += t.advanceBy
              circuit.advance()
              circuit.endStep()
              if (t.rollback) {
                circuit.rollback()
                wm = before
              } else {
                circuit.commit()
                table.push(...fresh)
              }
              expect(norm(sink.contents())).toEqual(norm(ZSet.of(naive(table.map((r) => [r, 1]), asc, functions))))
            }
          },
        ),
        { numRuns: Number(process.env.ORACLE_RUNS ?? 100) },
      )
    })
  }
})

// Batches of WHOLE_AT or more changes for a partition recompute it whole: big random batches
// of inserts and deletes, every form at once, against the naive evaluation.
describe('Window with batches that recompute partitions whole', { timeout: 300_000 }, () => {
  it('equals the naive evaluation after every batch', () => {
    const functions = cases.flatMap(([, order, fs]) => (order === asc ? fs : []))
    // one partition and many distinct rows (still tied ORDER BY values), so a batch is
    // WHOLE_AT changes or more for it
    const one = fc.tuple(fc.constant(0), fc.option(fc.integer({ min: 0, max: 40 }), { freq: 8, nil: null }), fc.integer({ min: 0, max: 1000 })) as fc.Arbitrary<Row>
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(one, { minLength: WHOLE_AT, maxLength: 3 * WHOLE_AT }), fc.nat({ max: 2 * WHOLE_AT })), { minLength: 1, maxLength: 4 }), (batches) => {
        const table: Row[] = []
        const circuit = new Circuit()
        const input = circuit.add(new InputOperator(() => ZSet.of(table.map((r) => [r, 1]))))
        const sink = integrate(circuit, window(circuit, input, { partitionColumns: [0], order: asc, functions }))
        for (const [inserts, deletes] of batches) {
          const d = new ZSet()
          for (const r of inserts) d.push(r, 1)
          for (let i = 0; i < deletes && table.length > 0; i++) d.push(table.splice((i * 7) % table.length, 1)[0]!, -1)
          table.push(...inserts)
          input.push(d)
          circuit.step()
          circuit.endStep()
          circuit.commit()
          expect(norm(sink.contents())).toEqual(norm(ZSet.of(naive(table.map((r) => [r, 1]), asc, functions))))
        }
      }),
      { numRuns: Number(process.env.ORACLE_RUNS ?? 30) },
    )
  })
})
