import fc from 'fast-check'
import { describe, it } from 'vitest'
import {
  addPartial, arrayAgg, avg, boolAnd, boolOr, compareRows, count, countDistinct, countRows, max, min, partialsValue, reduce, rowKey, stringAgg, sumFloat, sumInt,
  type AggregateSpec, type Row, type RowKey,
} from '../../../ivm/index.js'
import { checkAll, groupRows, smallValue, type Table } from './harness.js'

const row3 = fc.tuple(smallValue, fc.integer({ min: 0, max: 4 }), fc.oneof(fc.constant(null), fc.integer({ min: -3, max: 3 }))) as fc.Arbitrary<Row>
const num = (a: unknown, b: unknown): number => (a as number) - (b as number)

const specs: AggregateSpec[] = [
  { aggregator: countRows, arg: () => null },
  { aggregator: count, arg: (r) => r[2] },
  { aggregator: sumInt, arg: (r) => r[2] },
  { aggregator: sumFloat, arg: (r) => (r[2] === null ? null : (r[2] as number) * 0.1 + (r[1] as number) * 1e-17) },
  { aggregator: min(num), arg: (r) => r[2] },
  { aggregator: max(num), arg: (r) => r[2] },
  { aggregator: countDistinct, arg: (r) => r[2] },
  { aggregator: avg('int'), arg: (r) => r[2] },
  { aggregator: stringAgg((a, b) => (b[0] as number) - (a[0] as number)), arg: (r) => [r[2] === null ? null : String(r[2]), (r[1] as number) % 2 ? ';' : ',', [r[1]]] },
  { aggregator: boolOr, arg: (r) => (r[2] === null ? null : (r[2] as number) > 1) },
  { aggregator: countRows, arg: () => null, filter: (r) => (r[1] as number) > 2 },
]

function naiveAggs(rows: Row[]): unknown[] {
  const vals = rows.map((r) => r[2]).filter((v) => v !== null) as number[]
  const sorted = [...vals].sort((a, b) => a - b)
  const p: number[] = []
  for (const r of rows) if (r[2] !== null) addPartial(p, (r[2] as number) * 0.1 + (r[1] as number) * 1e-17)
  const entries = rows.filter((r) => r[2] !== null).map((r) => ({ v: String(r[2]), d: (r[1] as number) % 2 ? ';' : ',', o: r[1] as number }))
  entries.sort((a, b) => b.o - a.o || (a.v < b.v ? -1 : a.v > b.v ? 1 : 0) || (a.d < b.d ? -1 : a.d > b.d ? 1 : 0))
  let s: string | null = null
  for (const e of entries) s = s === null ? e.v : s + e.d + e.v
  const n = vals.length
  return [
    rows.length,
    n,
    n === 0 ? null : vals.reduce((a, b) => a + b, 0),
    n === 0 ? null : partialsValue(p),
    n === 0 ? null : sorted[0],
    n === 0 ? null : sorted[n - 1],
    new Set(vals).size,
    n === 0 ? null : vals.reduce((a, b) => a + b, 0) / n,
    s,
    n === 0 ? null : vals.some((v) => v > 1),
    rows.filter((r) => (r[1] as number) > 2).length,
  ]
}

function naiveReduce(t: Table, keyCols: number[], emitEmpty: boolean): Table {
  const groups = groupRows(t, keyCols)
  const res: Table = []
  for (const rows of groups) res.push([[...keyCols.map((c) => rows[0]![c]), ...naiveAggs(rows)], 1])
  if (emitEmpty && groups.length === 0) res.push([naiveAggs([]), 1])
  res.sort((a, b) => compareRows(a[0], b[0]))
  return res
}

// the aggregators the specs above leave out (array_agg, bool_and, avg over floats), so the
// restore check covers every accumulator kind
const keyText = (v: unknown): string => String(rowKey([v]))
const moreSpecs: AggregateSpec[] = [
  { aggregator: arrayAgg((a, b) => (b[0] as number) - (a[0] as number), (vs) => vs.join('/')), arg: (r) => [r[2], [r[1]]] },
  { aggregator: arrayAgg(undefined, (vs) => vs.join('/')), arg: (r) => [r[2]] },
  { aggregator: boolAnd, arg: (r) => (r[2] === null ? null : (r[2] as number) > -2) },
  { aggregator: avg('float'), arg: (r) => (r[2] === null ? null : (r[2] as number) * 0.1) },
]

function naiveMoreAggs(rows: Row[]): unknown[] {
  const byKey = (a: Row, b: Row): number => (keyText(a[2]) < keyText(b[2]) ? -1 : keyText(a[2]) > keyText(b[2]) ? 1 : 0)
  const ordered = [...rows].sort((a, b) => (b[1] as number) - (a[1] as number) || byKey(a, b))
  const unordered = [...rows].sort(byKey)
  const vals = rows.map((r) => r[2]).filter((v) => v !== null) as number[]
  const p: number[] = []
  for (const v of vals) addPartial(p, v * 0.1)
  return [
    rows.length === 0 ? null : ordered.map((r) => r[2]).join('/'),
    rows.length === 0 ? null : unordered.map((r) => r[2]).join('/'),
    vals.length === 0 ? null : vals.every((v) => v > -2),
    vals.length === 0 ? null : partialsValue(p) / vals.length,
  ]
}

function naiveMoreReduce(t: Table): Table {
  const res: Table = []
  for (const rows of groupRows(t, [0])) res.push([[rows[0]![0], ...naiveMoreAggs(rows)], 1])
  return res
}

describe('Reduce (oracle)', { timeout: 300_000 }, () => {
  it('grouped by one column, all aggregators', () =>
    checkAll({ inputs: 1, row: row3, build: (c, [i]) => reduce(c, i!, [0], specs), oracle: ([t]) => naiveReduce(t!, [0], false) }))
  it('grouped by two columns', () =>
    checkAll({ inputs: 1, row: row3, build: (c, [i]) => reduce(c, i!, [1, 0], specs.slice(0, 3)), oracle: ([t]) => naiveReduce(t!, [1, 0], false).map(([r, w]) => [[...r.slice(0, 5)], w]) }))
  it('grouped by one column, array_agg, bool_and, avg(float)', () =>
    checkAll({ inputs: 1, row: row3, build: (c, [i]) => reduce(c, i!, [0], moreSpecs), oracle: ([t]) => naiveMoreReduce(t!) }))
  it('global aggregate', () =>
    checkAll({ inputs: 1, row: row3, build: (c, [i]) => reduce(c, i!, [], specs), oracle: ([t]) => naiveReduce(t!, [], false) }))
  it('global aggregate with emitEmptyGroup', () =>
    checkAll({ inputs: 1, row: row3, build: (c, [i]) => reduce(c, i!, [], specs, { emitEmptyGroup: true }), oracle: ([t]) => naiveReduce(t!, [], true) }))
})
