// Watermark expiry through value indexes (Reduce, Arrange, EmitOnClose) against the scan-based
// operators they replaced (test/ivm/oracle/reference/): random steps over a few windows —
// inserts, retractions of held rows, late rows for windows already final, retractions of rows
// never inserted (negative groups that have no output row), NULL / NaN / text window values —
// interleaved with advances of the watermark, commits and rollbacks (the watermark is restored
// with the state). After every action both operators must have produced the same output and
// hold the same state. The keyed operators are also checkpointed by snapshots read in chunks
// while the actions go on (copy on write): each one's parts must load exactly the state it had
// at its point.

import fc from 'fast-check'
import { deserialize, serialize } from 'node:v8'
import { describe, expect, it } from 'vitest'
import { countRows, IntegrateOperator, max, mergeKeyedParts, min, sumInt, type KeyedChunk, type KeyedPart, type KeyedSnapshot, type Operator, type Row } from '../../../ivm/index.js'
import { ReduceOperator, type AggregateSpec } from '../../../ivm/operators/reduce.js'
import { ArrangeOperator } from '../../../ivm/operators/arrange.js'
import { EmitOnCloseOperator } from '../../../ivm/operators/emit-on-close.js'
import { Driver, norm } from '../helpers.js'
import { ScanReduceOperator } from './reference/scan-reduce.js'
import { ScanArrangeOperator } from './reference/scan-arrange.js'
import { OldEmitOnCloseOperator } from './reference/old-emit-on-close.js'
import { ZSet } from '../../../ivm/zset.js'

// rows: [k, window_end, value]
type Action =
  | { kind: 'step'; rows: { k: number; win: number; val: number; w: number; late: boolean; odd: number }[] }
  | { kind: 'advance'; by: number }
  | { kind: 'commit' }
  | { kind: 'rollback' }
  | { kind: 'snapshot' }
  | { kind: 'chunk'; max: number }

const WINDOWS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('step' as const),
      rows: fc.array(
        fc.record({
          k: fc.integer({ min: 0, max: 4 }),
          win: fc.integer({ min: 0, max: 4 }),
          val: fc.integer({ min: 0, max: 9 }),
          w: fc.integer({ min: -2, max: 3 }),
          late: fc.boolean(),
          odd: fc.integer({ min: 0, max: 30 }),
        }),
        { maxLength: 8 },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 25 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('commit' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('snapshot' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('chunk' as const), max: fc.integer({ min: 1, max: 3 }) }) },
)

interface Pair {
  a: Operator
  b: Operator
  check(): void
}

/** A driver step that records both operators' outputs: wraps tick so outputs are compared. */
function stepAndCompare(d: Driver, pair: Pair, delta: ZSet): void {
  const [oa, ob] = d.tick(delta, [pair.a, pair.b])
  expect(norm(oa!)).toEqual(norm(ob!))
  pair.check()
}

/** Runs the actions through a driver; `held` tracks the input integral so retractions mostly
 *  hit rows that exist (w < 0 on a fresh row retracts something never inserted). */
function runCompared(actions: Action[], build: (d: Driver, isFinal: (v: unknown) => boolean) => Pair, strict: boolean, odd: boolean): void {
  const d = new Driver()
  let wm = 0
  let committedWm = 0
  // text windows 'wI' (values of another kind, asked one by one) are final with WINDOWS[I]
  const isFinal = (v: unknown): boolean => {
    if (v === null || v === undefined) return false
    const x = typeof v === 'string' ? WINDOWS[Number(v.slice(1))]! : (v as number)
    return strict ? x < wm : x <= wm
  }
  const pair = build(d, isFinal)
  const held: Row[] = []
  let committedHeld: Row[] = []
  // checkpoints of pair.a by snapshots: the parts so far, and the one being read
  const parts: KeyedPart[] = []
  let open: { snap: KeyedSnapshot; chunks: KeyedChunk[]; atPoint: unknown } | null = null
  const readChunk = (max: number): void => {
    if (open === null) return
    const ch = open.snap.next(max)
    if (ch !== null) {
      open.chunks.push(deserialize(serialize(ch)) as KeyedChunk)
      return
    }
    const chunks = open.chunks
    parts.push({ whole: open.snap.whole, keys: chunks.flatMap((x) => x.keys), values: chunks.flatMap((x) => x.values), moved: open.snap.base ? null : chunks.flatMap((x) => x.moved!) })
    const fresh = build(new Driver(), isFinal).a
    const { whole, entries } = mergeKeyedParts(parts)
    fresh.loadKeyed!(whole, entries)
    expect(deserialize(serialize(fresh.saveState!())), 'a snapshot read while the actions went on').toEqual(open.atPoint)
    open = null
  }
  for (const act of actions) {
    if (act.kind === 'snapshot') {
      if (open !== null || pair.a.snapshotKeyed === undefined) continue
      d.commit()
      committedWm = wm
      committedHeld = held.slice()
      open = { atPoint: deserialize(serialize(pair.a.saveState!())), snap: pair.a.snapshotKeyed(parts.length === 0), chunks: [] }
      continue
    }
    if (act.kind === 'chunk') {
      readChunk(act.max)
      continue
    }
    if (act.kind === 'step') {
      const delta = new ZSet()
      for (const r of act.rows) {
        let row: Row
        if (r.w < 0 && held.length !== 0 && r.odd > 3) row = held[(r.k * 7 + r.win * 3 + r.val) % held.length]!
        else {
          let win: unknown = r.late ? WINDOWS[r.win]! : wm + WINDOWS[r.win]!
          if (odd && r.odd === 0) win = null
          else if (odd && r.odd === 1) win = NaN
          else if (odd && r.odd === 2) win = 'w' + r.win
          else if (r.odd === 3) win = -0
          row = [r.k, win, r.val]
        }
        if (r.w === 0) continue
        delta.push(row, r.w)
        if (r.w > 0) for (let i = 0; i < r.w; i++) held.push(row)
        else
          for (let i = 0; i < -r.w; i++) {
            const at = held.indexOf(row)
            if (at >= 0) held.splice(at, 1)
          }
      }
      if (delta.length !== 0) stepAndCompare(d, pair, delta)
    } else if (act.kind === 'advance') {
      wm += act.by
      d.circuit.advance()
      expect(norm(pair.a.out)).toEqual(norm(pair.b.out))
      d.circuit.endStep()
      pair.check()
    } else if (act.kind === 'commit') {
      d.commit()
      committedWm = wm
      committedHeld = held.slice()
    } else {
      d.circuit.rollback()
      wm = committedWm
      held.length = 0
      held.push(...committedHeld)
      pair.check()
    }
  }
  wm += 1000
  d.circuit.advance()
  expect(norm(pair.a.out)).toEqual(norm(pair.b.out))
  d.circuit.endStep()
  pair.check()
  while (open !== null) readChunk(Infinity)
}

const num = (a: unknown, b: unknown): number => (a as number) - (b as number)
const aggs = (): AggregateSpec[] => [
  { aggregator: countRows, arg: () => null },
  { aggregator: sumInt, arg: (r) => r[2] },
  { aggregator: max(num), arg: (r) => r[2] },
  { aggregator: min(num), arg: (r) => r[2] },
]

const reducePair = (keyColumns: number[], keyIndex: number) => (d: Driver, isFinal: (v: unknown) => boolean): Pair => {
  const a = d.circuit.add(new ReduceOperator(d.input, keyColumns, aggs(), { expire: { keyIndex, isFinal } }))
  const b = d.circuit.add(new ScanReduceOperator(d.input, keyColumns, aggs(), { expire: { keyIndex, isFinal } }))
  const va = d.circuit.add(new IntegrateOperator(a))
  const vb = d.circuit.add(new IntegrateOperator(b))
  return {
    a,
    b,
    check() {
      expect(a.stateSize()).toBe(b.stateSize())
      const rows = (r: { forEachOutput(fn: (row: Row) => void): void }): Row[] => {
        const out: Row[] = []
        r.forEachOutput((row) => out.push(row))
        return norm(ZSet.of(out.map((x) => [x, 1] as [Row, number]))).map(([x]) => x)
      }
      expect(rows(a)).toEqual(rows(b))
      expect(norm(va.contents())).toEqual(norm(vb.contents()))
      expect(a.describeState()).toBe(b.describeState())
    },
  }
}

const arrangePair = (keyColumns: number[], column: number) => (d: Driver, isFinal: (v: unknown) => boolean): Pair => {
  const a = d.circuit.add(new ArrangeOperator(d.input, keyColumns, { expire: { column, isFinal } }))
  const b = d.circuit.add(new ScanArrangeOperator(d.input, keyColumns, { expire: { column, isFinal } }))
  return {
    a,
    b,
    check() {
      expect(norm(a.snapshot())).toEqual(norm(b.snapshot()))
      expect(a.size).toBe(b.size)
      expect(a.arrangement.keyCount).toBe(b.arrangement.keyCount)
      expect(a.describeState()).toBe(b.describeState())
    },
  }
}

const emitPair = (column: number) => (d: Driver, isFinal: (v: unknown) => boolean): Pair => {
  const a = d.circuit.add(new EmitOnCloseOperator(d.input, { column, isFinal }))
  const b = d.circuit.add(new OldEmitOnCloseOperator(d.input, { column, isFinal }))
  return {
    a,
    b,
    check() {
      expect(a.stateSize()).toBe(b.stateSize())
      expect(a.describeState()).toBe(b.describeState())
    },
  }
}

const RUNS = 300

describe('expire indexes behave like the scans they replace', { timeout: 300_000 }, () => {
  for (const strict of [false, true]) {
    for (const odd of [false, true]) {
      const tag = `${strict ? 'strict' : 'inclusive'} finality${odd ? ', NULL / NaN / text windows' : ''}`
      it(`Reduce keyed by (k, window_end): ${tag}`, () => {
        fc.assert(fc.property(fc.array(actionArb, { maxLength: 40 }), (acts) => runCompared(acts, reducePair([0, 1], 1), strict, odd)), { numRuns: RUNS })
      })
      it(`Reduce keyed by (window_end) alone: ${tag}`, () => {
        fc.assert(fc.property(fc.array(actionArb, { maxLength: 40 }), (acts) => runCompared(acts, reducePair([1], 0), strict, odd)), { numRuns: RUNS })
      })
      it(`Arrange keyed by the expire column (window_end, k): ${tag}`, () => {
        fc.assert(fc.property(fc.array(actionArb, { maxLength: 40 }), (acts) => runCompared(acts, arrangePair([1, 0], 1), strict, odd)), { numRuns: RUNS })
      })
      it(`Arrange keyed without the expire column (k): ${tag}`, () => {
        fc.assert(fc.property(fc.array(actionArb, { maxLength: 40 }), (acts) => runCompared(acts, arrangePair([0], 1), strict, odd)), { numRuns: RUNS })
      })
      it(`EmitOnClose: ${tag}`, () => {
        fc.assert(fc.property(fc.array(actionArb, { maxLength: 40 }), (acts) => runCompared(acts, emitPair(1), strict, odd)), { numRuns: RUNS })
      })
    }
  }
})
