import { describe, expect, it } from 'vitest'
import {
  compareValues,
  countRows,
  max,
  reduce,
  rowKey,
  SESSION_END,
  SESSION_START,
  sessionReduce,
  sessionWindow,
  sumInt,
  type AggregateSpec,
  type Operator,
  type SessionReduceOperator,
} from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

// input rows are [partition, time, value]; output rows are [partition, window_start,
// window_end, count(*), sum(value), max(value) filter (where value > 0)]
const aggs: AggregateSpec[] = [
  { aggregator: countRows, arg: () => null },
  { aggregator: sumInt, arg: (r) => r[2] },
  { aggregator: max(compareValues), arg: (r) => r[2], filter: (r) => (r[2] as number) > 0 },
]

function setup(gap = 10, watermark?: () => number): { d: Driver; s: SessionReduceOperator } {
  const d = new Driver()
  const s = sessionReduce(d.circuit, d.input, { partitionBy: [0], timeColumn: 1, gap, key: [0, SESSION_START, SESSION_END], aggregates: aggs, watermark })
  return { d, s }
}

/** One step; checks the output is consolidated (no zero weights, no row twice). */
function step(d: Driver, s: Operator, delta: Parameters<Driver['step']>[0]) {
  const out = d.tick(delta, [s])[0]!
  expect(out.weights.every((w) => w !== 0)).toBe(true)
  expect(new Set(out.rows.map(rowKey)).size).toBe(out.rows.length)
  return norm(out)
}

describe('SessionReduce', () => {
  it('a first event starts a session: one row', () => {
    const { d, s } = setup()
    expect(step(d, s, ins(['a', 5, 3]))).toEqual(expected([['a', 5, 15, 1, 3, 3], 1]))
    expect(s.stateSize()).toBe(1)
    expect(s.sessionCount).toBe(1)
  })

  it('appending inside the gap extends the session: −old +new, nothing else', () => {
    const { d, s } = setup()
    step(d, s, ins(['a', 5, 3], ['b', 5, 1]))
    expect(step(d, s, ins(['a', 14, 4]))).toEqual(expected([['a', 5, 15, 1, 3, 3], -1], [['a', 5, 24, 2, 7, 4], 1]))
    // touching (t = last + gap) starts a new session
    expect(step(d, s, ins(['a', 24, 1]))).toEqual(expected([['a', 24, 34, 1, 1, 1], 1]))
    expect(s.sessionCount).toBe(3)
  })

  it('an event before a session extends it at the start', () => {
    const { d, s } = setup()
    step(d, s, ins(['a', 20, 3]))
    expect(step(d, s, ins(['a', 11, 2]))).toEqual(expected([['a', 20, 30, 1, 3, 3], -1], [['a', 11, 30, 2, 5, 3], 1]))
    // 1 touches 11 (1 + gap = 11): a separate session
    expect(step(d, s, ins(['a', 1, -5]))).toEqual(expected([['a', 1, 11, 1, -5, null], 1]))
  })

  it('an event inside a session keeps its bounds and updates the aggregates', () => {
    const { d, s } = setup()
    step(d, s, ins(['a', 0, 1], ['a', 8, 2]))
    expect(step(d, s, ins(['a', 4, 9]))).toEqual(expected([['a', 0, 18, 2, 3, 2], -1], [['a', 0, 18, 3, 12, 9], 1]))
    // the same time again, another row
    expect(step(d, s, ins(['a', 4, 1]))).toEqual(expected([['a', 0, 18, 3, 12, 9], -1], [['a', 0, 18, 4, 13, 9], 1]))
    expect(s.stateSize()).toBe(4)
  })

  it('a bridging event merges two sessions; deleting it splits them again', () => {
    const { d, s } = setup()
    step(d, s, ins(['a', 0, 1], ['a', 16, 2], ['a', 20, 3]))
    expect(step(d, s, ins(['a', 8, 4]))).toEqual(expected([['a', 0, 10, 1, 1, 1], -1], [['a', 16, 30, 2, 5, 3], -1], [['a', 0, 30, 4, 10, 4], 1]))
    expect(s.sessionCount).toBe(1)
    expect(step(d, s, del(['a', 8, 4]))).toEqual(expected([['a', 0, 30, 4, 10, 4], -1], [['a', 0, 10, 1, 1, 1], 1], [['a', 16, 30, 2, 5, 3], 1]))
    expect(s.sessionCount).toBe(2)
    expect(s.stateSize()).toBe(3)
    // and a merge where the left session is the larger one
    step(d, s, ins(['a', 2, 1], ['a', 3, 1], ['a', 4, 1]))
    expect(step(d, s, ins(['a', 10, 0]))).toEqual(expected([['a', 0, 14, 4, 4, 1], -1], [['a', 16, 30, 2, 5, 3], -1], [['a', 0, 30, 7, 9, 3], 1]))
    // a split where the right part is the smaller one (above: the left one)
    step(d, s, ins(['a', 22, 1], ['a', 23, 1]))
    expect(step(d, s, zs([['a', 16, 2], -1], [['a', 10, 0], -1]))).toEqual(
      expected([['a', 0, 33, 9, 11, 3], -1], [['a', 0, 14, 4, 4, 1], 1], [['a', 20, 33, 3, 5, 3], 1]),
    )
  })

  it('deleting the first or last event shrinks the session; the only one removes it', () => {
    const { d, s } = setup()
    step(d, s, ins(['a', 0, 1], ['a', 5, 2], ['a', 9, 3]))
    expect(step(d, s, del(['a', 0, 1]))).toEqual(expected([['a', 0, 19, 3, 6, 3], -1], [['a', 5, 19, 2, 5, 3], 1]))
    expect(step(d, s, del(['a', 9, 3]))).toEqual(expected([['a', 5, 19, 2, 5, 3], -1], [['a', 5, 15, 1, 2, 2], 1]))
    expect(step(d, s, del(['a', 5, 2]))).toEqual(expected([['a', 5, 15, 1, 2, 2], -1]))
    expect(s.stateSize()).toBe(0)
    expect(s.sessionCount).toBe(0)
  })

  it('weights > 1 and duplicates count; a deletion of one copy keeps the time', () => {
    const { d, s } = setup()
    expect(step(d, s, zs([['a', 0, 2], 2], [['a', 3, 1], 1], [['a', 3, 1], 1]))).toEqual(expected([['a', 0, 13, 4, 6, 2], 1]))
    expect(s.stateSize()).toBe(2)
    expect(step(d, s, zs([['a', 3, 1], -1]))).toEqual(expected([['a', 0, 13, 4, 6, 2], -1], [['a', 0, 13, 3, 5, 2], 1]))
    expect(step(d, s, zs([['a', 0, 2], -2]))).toEqual(expected([['a', 0, 13, 3, 5, 2], -1], [['a', 3, 13, 1, 1, 1], 1]))
  })

  it('a step that merges and splits back leaves no +r −r pair in its output', () => {
    const { d, s } = setup()
    step(d, s, ins(['a', 0, 1], ['a', 16, 2]))
    // insert the bridge and delete it again in one (unconsolidated) delta
    expect(step(d, s, zs([['a', 8, 5], 1], [['a', 8, 5], -1]))).toEqual([])
    // an update that keeps the result: nothing
    expect(step(d, s, zs([['a', 16, 2], -1], [['a', 16, 2], 1]))).toEqual([])
  })

  it('NULL times belong to no session; partitions are independent; NULL partitions group', () => {
    const { d, s } = setup()
    expect(step(d, s, ins(['a', null, 1], [null, 0, 1], [null, 5, 2], ['b', 5, 1]))).toEqual(expected([[null, 0, 15, 2, 3, 2], 1], [['b', 5, 15, 1, 1, 1], 1]))
    expect(() => step(d, s, ins(['a', 'x', 1]))).toThrow(/time column/)
  })

  it('output column order follows the key; partition by several columns', () => {
    const d = new Driver()
    const s = sessionReduce(d.circuit, d.input, { partitionBy: [2, 0], timeColumn: 1, gap: 10, key: [SESSION_END, 0, SESSION_START, 2], aggregates: [aggs[0]!] })
    expect(step(d, s, ins(['a', 0, 1], ['a', 5, 2], ['a', 7, 1]))).toEqual(expected([[17, 'a', 0, 1, 2], 1], [[15, 'a', 5, 2, 1], 1]))
  })

  it('rollback restores sessions, accumulators and the rows out (merges and splits undone)', () => {
    const { d, s } = setup()
    step(d, s, ins(['a', 0, 1], ['a', 16, 2], ['b', 0, 1]))
    d.commit()
    const saved = d.saveTables()
    step(d, s, ins(['a', 8, 4], ['a', 30, 1], ['b', 50, 1]))
    step(d, s, del(['a', 0, 1]))
    d.rollback(saved)
    expect(s.stateSize()).toBe(3)
    expect(s.sessionCount).toBe(3)
    // continues as if the rolled-back steps never happened
    expect(step(d, s, ins(['a', 5, 1]))).toEqual(expected([['a', 0, 10, 1, 1, 1], -1], [['a', 0, 15, 2, 2, 1], 1]))
    expect(step(d, s, ins(['a', 10, 1]))).toEqual(expected([['a', 0, 15, 2, 2, 1], -1], [['a', 16, 26, 1, 2, 2], -1], [['a', 0, 26, 4, 5, 2], 1]))
  })

  it('watermark: advance() frees closed sessions (rows stay out); rollback restores them', () => {
    let wm = -Infinity
    const { d, s } = setup(10, () => wm)
    const advance = () => {
      d.circuit.advance()
      const out = norm(s.out)
      d.circuit.endStep()
      return out
    }
    step(d, s, ins(['a', 0, 1], ['a', 5, 2], ['a', 30, 1], ['b', 2, 1]))
    d.commit()
    // ['a', 0..5] ends at 15 and ['b', 2] at 12: both final at 15; ['a', 30] ends at 40
    wm = 15
    expect(advance()).toEqual([])
    expect(s.stateSize()).toBe(1)
    expect(s.sessionCount).toBe(1)
    d.circuit.rollback()
    expect(s.stateSize()).toBe(4)
    expect(s.sessionCount).toBe(3)
    advance()
    d.commit()
    expect(s.stateSize()).toBe(1)
    // later events (time ≥ watermark) see only the open session
    expect(step(d, s, ins(['a', 25, 1]))).toEqual(expected([['a', 30, 40, 1, 1, 1], -1], [['a', 25, 40, 2, 2, 1], 1]))
    expect(step(d, s, ins(['b', 15, 7]))).toEqual(expected([['b', 15, 25, 1, 7, 7], 1]))
    d.commit()
    // a step, then every session of every partition freed; rollback undoes both
    const saved = d.saveTables()
    step(d, s, ins(['a', 45, 1]))
    wm = 100
    advance()
    expect(s.stateSize()).toBe(0)
    expect(s.sessionCount).toBe(0)
    d.rollback(saved)
    wm = 15
    expect(s.stateSize()).toBe(3)
    expect(s.sessionCount).toBe(2)
    expect(step(d, s, ins(['a', 35, 1]))).toEqual(expected([['a', 25, 40, 2, 2, 1], -1], [['a', 25, 45, 3, 3, 1], 1]))
    expect(step(d, s, del(['b', 15, 7]))).toEqual(expected([['b', 15, 25, 1, 7, 7], -1]))
  })

  it('a partition receiving many rows in one step is rebuilt in one pass: same output', () => {
    const rowByRow = setup()
    const d = new Driver()
    const bulk = sessionReduce(d.circuit, d.input, { partitionBy: [0], timeColumn: 1, gap: 10, key: [0, SESSION_START, SESSION_END], aggregates: aggs, bulkAbove: 3 })
    const steps = [
      ins(['a', 0, 1], ['a', 16, 2], ['a', 40, 3], ['a', 60, 1], ['b', 0, 1]),
      // bridges 0–16 (merge), extends 40 at the start, a new session at 100, b row by row
      ins(['a', 8, 4], ['a', 35, 1], ['a', 100, 2], ['b', 5, 5]),
      // splits 0–16 again, deletes 60 (its session goes), duplicates at 100
      zs([['a', 8, 4], -1], [['a', 60, 1], -1], [['a', 100, 2], 2], [['a', 100, 3], 1]),
    ]
    for (const delta of steps) expect(step(d, bulk, delta)).toEqual(step(rowByRow.d, rowByRow.s, delta))
    expect(bulk.stateSize()).toBe(rowByRow.s.stateSize())
    expect(bulk.sessionCount).toBe(rowByRow.s.sessionCount)
    expect(bulk.sessionCount).toBe(5)
  })

  it('equals Reduce over SessionWindow on a sequence with merges, splits and weights', () => {
    const d = new Driver()
    const fused = sessionReduce(d.circuit, d.input, { partitionBy: [0], timeColumn: 1, gap: 4, key: [0, SESSION_START, SESSION_END], aggregates: aggs })
    const win = sessionWindow(d.circuit, d.input, { partitionBy: [0], timeColumn: 1, gap: 4 })
    const unfused = reduce(d.circuit, win, [0, 3, 4], aggs)
    const deltas = [
      ins(['a', 0, 1], ['a', 2, 1], ['a', 10, 5], ['b', 1, 1]),
      ins(['a', 6, 2]),
      zs([['a', 6, 2], -1], [['a', 3, 1], 2]),
      del(['a', 2, 1], ['a', 10, 5]),
      ins(['a', 7, 3], ['a', 11, 1], ['a', 9, 0]),
      del(['a', 9, 0]),
    ]
    for (const delta of deltas) {
      const [f, u] = d.tick(delta, [fused, unfused])
      expect(norm(f!)).toEqual(norm(u!))
    }
  })
})
