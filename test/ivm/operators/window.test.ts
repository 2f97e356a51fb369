import { describe, expect, it } from 'vitest'
import { sumInt, window, type FrameBound, type Row, type WindowFunction, type WindowOrder } from '../../../ivm/index.js'
import { del, Driver, expected, ins } from '../helpers.js'

// rows: [partition, time, value]
const byTime: WindowOrder = {
  peers: (a, b) => (a[1] as number) - (b[1] as number),
  value: (r) => r[1],
  compareValues: (x, y) => (x as number) - (y as number),
}

/** A value reader that counts its calls: the work an evaluation does, row by row. */
function counted(): { read: (r: Row) => unknown; calls: () => number } {
  let n = 0
  return {
    read: (r) => {
      n++
      return r[2]
    },
    calls: () => n,
  }
}

const N = 20_000

/** One partition of N rows at times 0, 10, 20, … with value = time. */
function filled(fn: (read: (r: Row) => unknown) => WindowFunction): { d: Driver; w: ReturnType<typeof window>; calls: () => number } {
  const d = new Driver()
  const c = counted()
  const w = window(d.circuit, d.input, { partitionColumns: [0], order: byTime, functions: [fn(c.read)] })
  const rows: Row[] = []
  for (let i = 0; i < N; i++) rows.push(['p', i * 10, i * 10])
  d.step(ins(...rows), w)
  return { d, w, calls: c.calls }
}

describe('Window', { timeout: 120_000 }, () => {
  it('LAG: a change re-emits only the rows it is the neighbour of', () => {
    const d = new Driver()
    const w = window(d.circuit, d.input, { partitionColumns: [0], order: byTime, functions: [{ kind: 'lag', value: (r) => r[2], offset: 1, fallback: () => null }] })
    expect(d.step(ins(['a', 1, 'x'], ['a', 3, 'y'], ['b', 2, 'z']), w)).toEqual(expected([['a', 1, 'x', null], 1], [['a', 3, 'y', 'x'], 1], [['b', 2, 'z', null], 1]))
    // in between: the new row and its successor
    expect(d.step(ins(['a', 2, 'n']), w)).toEqual(expected([['a', 2, 'n', 'x'], 1], [['a', 3, 'y', 'x'], -1], [['a', 3, 'y', 'n'], 1]))
    expect(d.step(del(['a', 1, 'x']), w)).toEqual(expected([['a', 1, 'x', null], -1], [['a', 2, 'n', 'x'], -1], [['a', 2, 'n', null], 1]))
    expect(w.describeState()).toBe('partitions keyed by [#0]: 2 partitions, 3 rows')
  })

  it('a LAG change in a large partition reads a handful of rows, not the partition', () => {
    const { d, w, calls } = filled((read) => ({ kind: 'lag', value: read, offset: 2, fallback: () => null }))
    const before = calls()
    const out = d.step(ins(['p', 10_005, 1]), w)
    expect(out.length).toBe(5) // the new row, and its two successors retracted and re-inserted
    expect(calls() - before).toBeLessThan(20)
  })

  it('a sliding RANGE frame reads only the rows within range of the change', () => {
    const range = (n: number, toward: -1 | 1): FrameBound => ({ kind: 'value', toward, shift: (v, dir) => (v as number) + dir * n })
    const { d, w, calls } = filled((read) => ({ kind: 'aggregate', aggregator: sumInt as never, arg: read, frame: { start: range(50, -1), end: { kind: 'peers' } } }))
    const before = calls()
    d.step(del(['p', 100_000, 100_000]), w)
    // rows at times 100000 … 100050 change; each reads its ≤ 6-row frame
    expect(calls() - before).toBeLessThan(100)
  })

  it('a running sum appended at the end reads the new row, not the prefix', () => {
    const { d, w, calls } = filled((read) => ({ kind: 'aggregate', aggregator: sumInt as never, arg: read, frame: { start: { kind: 'unbounded' }, end: { kind: 'peers' } } }))
    const before = calls()
    const out = d.step(ins(['p', N * 10, 7]), w)
    expect(out).toEqual(expected([['p', N * 10, 7, ((N - 1) * N * 10) / 2 + 7], 1]))
    expect(calls() - before).toBeLessThan(20)
  })

  it('frees a partition whole once it is final, at commit (a rollback keeps it)', () => {
    const d = new Driver()
    let closed = -1
    const w = window(d.circuit, d.input, { partitionColumns: [0], order: byTime, functions: [{ kind: 'rank' }], partitionFinal: (r) => (r[0] as number) <= closed })
    d.step(ins([0, 1, 'a'], [0, 2, 'b'], [1, 1, 'c']), w)
    d.circuit.commit()
    closed = 0
    d.circuit.advance()
    d.circuit.rollback()
    expect(w.stateSize()).toBe(3)
    d.circuit.advance()
    d.circuit.commit()
    expect(w.stateSize()).toBe(1)
    expect(w.describeState()).toBe('partitions keyed by [#0]: 1 partitions, 1 rows')
  })
})
