// Incremental == recompute for the aggregators of issue 21 (variance, bit_*, the ordered-set
// aggregates, the approximate ones): random ticks of inserts and deletes, with duplicates,
// through a grouped Reduce; after every tick each group's row must equal a naive computation
// on the group's current multiset (exact aggregators) or the aggregator folded afresh over it
// (a recompute: the sketches and the exactly rounded float variance), which is what "a
// deletion gives exactly what a recompute gives" means. checkAll also covers rollback,
// backfill and checkpoint restore of these accumulators.

import fc from 'fast-check'
import { describe, it } from 'vitest'
import {
  approxCountDistinct, approxPercentile, bitAnd, bitOr, bitXor, compareRows, interpolateDouble, mode, percentileCont, percentileDisc, reduce,
  stddevPopFloat, varSampFloat, type Aggregator, type AggregateSpec, type Row,
} from '../../../ivm/index.js'
import { stddevSampNumeric, varPopNumeric } from '../../../src/sql-runtime/numeric-variance.js'
import { numericOf } from '../../../planner/index.js'
import { checkAll, groupRows, smallValue, type Table } from './harness.js'

// [group, id, value]: values repeat within a group (duplicates), NULLs are ignored
const row = fc.tuple(smallValue, fc.integer({ min: 0, max: 4 }), fc.oneof(fc.constant(null), fc.integer({ min: -3, max: 3 }))) as fc.Arbitrary<Row>
const num = (a: unknown, b: unknown): number => (a as number) - (b as number)
const desc = (a: unknown, b: unknown): number => (b as number) - (a as number)
const joined = (vs: unknown[]): string => vs.map(String).join('/')

/** A wide 64-bit value from a small one and the id: negative ones, beyond 2^53, and small. */
const wide = (v: number, id: number): number | bigint => (id === 4 ? BigInt(v) * 2n ** 60n + 5n : v * 2 ** 33 + id)
/** A float whose squares are not exact sums. */
const fuzzy = (v: number, id: number): number => v * 0.1 + id * 1e-3
/** A numeric of scale 0 … 2. */
const decimal = (v: number, id: number) => numericOf(v * 100 + id, id % 3)

interface Case {
  spec: AggregateSpec
  /** The expected result over the group's non-null values [value, id][] (sorted by value, id). */
  naive: (vals: [number, number][]) => unknown
}

/** The aggregator folded afresh over the group's multiset: a recompute. */
function recompute(agg: Aggregator<unknown, unknown>, arg: (v: number, id: number) => unknown): (vals: [number, number][]) => unknown {
  return (vals) => {
    let acc = agg.create()
    for (const [v, id] of vals) acc = agg.add(acc, arg(v, id), 1)
    return agg.result(acc)
  }
}

/** The numeric results as text: a checkpoint round trip (v8 serialization, as the harness
 *  does) keeps plain data only, and a Numeric in a saved output row would come back as a plain
 *  object (the engine's checkpoints encode numerics themselves). */
function asText<TAcc>(agg: Aggregator<TAcc, unknown>): Aggregator<unknown, unknown> {
  return { name: agg.name, create: agg.create, add: agg.add, result: (acc) => String(agg.result(acc as TAcc)) } as Aggregator<unknown, unknown>
}

function spec(agg: Aggregator<unknown, unknown>, arg: (v: number, id: number) => unknown): AggregateSpec {
  return { aggregator: agg, arg: (r) => (r[2] === null ? null : arg(r[2] as number, r[1] as number)) }
}

function exactCase(agg: Aggregator<unknown, unknown>, arg: (v: number, id: number) => unknown, naive: (vals: [number, number][]) => unknown): Case {
  return { spec: spec(agg, arg), naive }
}

function recomputeCase(agg: Aggregator<unknown, unknown>, arg: (v: number, id: number) => unknown): Case {
  return { spec: spec(agg, arg), naive: recompute(agg, arg) }
}

const bigOf = (x: number | bigint): bigint => BigInt.asIntN(64, BigInt(x))
const asResult = (b: bigint): number | bigint => (b >= -(2n ** 53n) + 1n && b <= 2n ** 53n - 1n ? Number(b) : b)
const foldBits = (vals: [number, number][], f: (a: bigint, b: bigint) => bigint): unknown => (vals.length === 0 ? null : asResult(vals.map(([v, id]) => bigOf(wide(v, id))).reduce(f)))
const sortedValues = (vals: [number, number][], cmp: (a: unknown, b: unknown) => number): number[] => vals.map(([v]) => v).sort(cmp)

function naiveCont(vals: [number, number][], f: number | null, cmp: (a: unknown, b: unknown) => number): unknown {
  if (f === null) return null
  const s = sortedValues(vals, cmp)
  const pos = f * (s.length - 1)
  const lo = s[Math.floor(pos)]!
  return Math.floor(pos) === Math.ceil(pos) ? lo : lo + (s[Math.ceil(pos)]! - lo) * (pos - Math.floor(pos))
}

function naiveMode(vals: [number, number][]): unknown {
  const counts = new Map<number, number>()
  for (const [v] of vals) counts.set(v, (counts.get(v) ?? 0) + 1)
  let best: number | null = null
  for (const [v, c] of [...counts].sort((a, b) => a[0] - b[0])) if (best === null || c > counts.get(best)!) best = v
  return best
}

const cases: Case[] = [
  recomputeCase(varSampFloat as Aggregator<unknown, unknown>, fuzzy),
  recomputeCase(stddevPopFloat as Aggregator<unknown, unknown>, fuzzy),
  recomputeCase(asText(varPopNumeric), decimal),
  recomputeCase(asText(stddevSampNumeric), decimal),
  exactCase(bitAnd(64) as Aggregator<unknown, unknown>, wide, (vals) => foldBits(vals, (a, b) => a & b)),
  exactCase(bitOr(64) as Aggregator<unknown, unknown>, wide, (vals) => foldBits(vals, (a, b) => a | b)),
  exactCase(bitXor(32) as Aggregator<unknown, unknown>, (v, id) => v * 1000 - id, (vals) => (vals.length === 0 ? null : vals.map(([v, id]) => v * 1000 - id).reduce((a, b) => a ^ b))),
  exactCase(percentileDisc(num, [0.5], null), (v) => v, (vals) => (vals.length === 0 ? null : sortedValues(vals, num)[Math.max(Math.ceil(0.5 * vals.length) - 1, 0)])),
  exactCase(percentileDisc(desc, [0.2, null, 1], joined), (v) => v, (vals) => {
    if (vals.length === 0) return null
    const s = sortedValues(vals, desc)
    return joined([s[Math.max(Math.ceil(0.2 * s.length) - 1, 0)], null, s[s.length - 1]])
  }),
  exactCase(percentileCont(num, interpolateDouble, [0.3], null), (v) => v, (vals) => (vals.length === 0 ? null : naiveCont(vals, 0.3, num))),
  exactCase(percentileCont(desc, interpolateDouble, [0.75, 0, null], joined), (v) => v, (vals) => (vals.length === 0 ? null : joined([naiveCont(vals, 0.75, desc), naiveCont(vals, 0, desc), null]))),
  exactCase(mode(num), (v) => v, naiveMode),
  // seven values land in seven registers: linear counting is exact here
  exactCase(approxCountDistinct as Aggregator<unknown, unknown>, (v) => v, (vals) => new Set(vals.map(([v]) => v)).size),
  recomputeCase(approxPercentile(0.5) as Aggregator<unknown, unknown>, fuzzy),
  recomputeCase(approxPercentile(0.9, 0.05) as Aggregator<unknown, unknown>, (v, id) => v * 10 + id),
]

function naiveReduce(t: Table): Table {
  const res: Table = []
  for (const rows of groupRows(t, [0])) {
    const vals = rows.filter((r) => r[2] !== null).map((r) => [r[2] as number, r[1] as number] as [number, number])
    vals.sort((a, b) => a[0] - b[0] || a[1] - b[1])
    res.push([[rows[0]![0], ...cases.map((c) => c.naive(vals))], 1])
  }
  return res.sort((a, b) => compareRows(a[0], b[0]))
}

describe('issue 21 aggregators in a Reduce (oracle)', { timeout: 300_000 }, () => {
  it('incremental == recompute after every tick, and rollback / backfill / restore', () =>
    checkAll({ inputs: 1, row, build: (c, [i]) => reduce(c, i!, [0], cases.map((x) => x.spec)), oracle: ([t]) => naiveReduce(t!) }))
})
