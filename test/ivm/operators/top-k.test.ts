import { describe, expect, it } from 'vitest'
import { CHUNK_MAX, integrate, topK, topOne, type Row } from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

const byCol1 = (a: Row, b: Row): number => (a[1] as number) - (b[1] as number)

describe('TopK', { timeout: 120_000 }, () => {
  it('keeps the top rows per partition and moves the window on changes', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [0], byCol1, 2, 0)
    expect(d.step(ins(['a', 5], ['a', 3], ['a', 9], ['b', 1]), t)).toEqual(expected([['a', 3], 1], [['a', 5], 1], [['b', 1], 1]))
    // insertion beyond the window: nothing
    expect(d.step(ins(['a', 10]), t)).toEqual([])
    // insertion into the window pushes the last one out
    expect(d.step(ins(['a', 1]), t)).toEqual(expected([['a', 1], 1], [['a', 5], -1]))
    // deleting a window row pulls the next one in
    expect(d.step(del(['a', 1]), t)).toEqual(expected([['a', 1], -1], [['a', 5], 1]))
    expect(t.describeState()).toBe('partitions keyed by [#0]: 2 partitions, 5 rows (limit 2 offset 0)')
  })
  it('duplicates occupy several positions; offset', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [], byCol1, 2, 1)
    expect(d.step(zs([['x', 1], 2], [['y', 2], 3]), t)).toEqual(expected([['x', 1], 1], [['y', 2], 1]))
    expect(d.step(ins(['z', 0]), t)).toEqual(expected([['x', 1], 1], [['y', 2], -1]))
  })
  it('ties are broken by row values, deterministically', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [], () => 0, 1, 0)
    expect(d.step(ins(['b'], ['a'], ['c']), t)).toEqual(expected([['a'], 1]))
  })
  it('rowNumber renumbers rows whose position changes', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [], byCol1, 3, 0, { rowNumber: true })
    expect(d.step(ins(['a', 10], ['b', 20]), t)).toEqual(expected([['a', 10, 1], 1], [['b', 20, 2], 1]))
    expect(d.step(ins(['c', 5]), t)).toEqual(
      expected([['c', 5, 1], 1], [['a', 10, 1], -1], [['a', 10, 2], 1], [['b', 20, 2], -1], [['b', 20, 3], 1]),
    )
    expect(d.step(ins(['d', 30]), t)).toEqual([])
    expect(d.step(del(['b', 20]), t)).toEqual(expected([['b', 20, 3], -1], [['d', 30, 3], 1]))
  })
  it('no limit: offset only', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [], byCol1, undefined, 1)
    const sink = integrate(d.circuit, t)
    d.tick(ins(['a', 1], ['b', 2], ['c', 3]), [])
    expect(norm(sink.contents())).toEqual(expected([['b', 2], 1], [['c', 3], 1]))
    d.tick(ins(['z', 0]), [])
    expect(norm(sink.contents())).toEqual(expected([['a', 1], 1], [['b', 2], 1], [['c', 3], 1]))
    d.tick(del(['a', 1], ['z', 0]), [])
    expect(norm(sink.contents())).toEqual(expected([['c', 3], 1]))
  })
  it('big partitions: chunked, correct window after many inserts and deletes', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [], byCol1, 3, 2)
    const sink = integrate(d.circuit, t)
    const n = CHUNK_MAX * 6
    const rows: Row[] = []
    for (let i = 0; i < n; i++) rows.push(['r', (i * 7919) % n])
    d.tick(ins(...rows), [])
    expect(norm(sink.contents())).toEqual(expected([['r', 2], 1], [['r', 3], 1], [['r', 4], 1]))
    for (let i = 0; i < 3; i++) d.tick(del(['r', i]), [])
    expect(norm(sink.contents())).toEqual(expected([['r', 5], 1], [['r', 6], 1], [['r', 7], 1]))
    d.tick(ins(['r', 0.5]), [])
    expect(norm(sink.contents())).toEqual(expected([['r', 4], 1], [['r', 5], 1], [['r', 6], 1]))
    for (let i = 3; i < n; i++) d.tick(del(['r', i]), [])
    expect(norm(sink.contents())).toEqual([])
    expect(t.stateSize()).toBe(1)
  })
  it('rollback restores the partitions', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [], byCol1, 1, 0)
    d.tick(ins(['a', 5]), [])
    d.commit()
    const saved = d.saveTables()
    d.tick(ins(['b', 1]), [])
    d.rollback(saved)
    expect(d.step(ins(['c', 3]), t)).toEqual(expected([['a', 5], -1], [['c', 3], 1]))
  })

  it('append-only input: each partition keeps offset + limit positions after a commit, not before', () => {
    const d = new Driver()
    const t = topK(d.circuit, d.input, [0], byCol1, 2, 1, { appendOnly: true })
    const rows = Array.from({ length: 2000 }, (_, i): Row => [i % 3, (i * 7919) % 1000])
    d.step(ins(...rows), t)
    // the open tick holds everything (a rollback retracts it row by row)
    expect(t.stateSize()).toBe(2000)
    d.commit()
    expect(t.stateSize()).toBe(9)
    // duplicates count as positions: the last row kept may be cut to fit
    d.step(ins([0, -1], [0, -1], [0, -1], [0, -1]), t)
    d.commit()
    expect(t.stateSize()).toBe(7)
    expect(t.describeState()).toBe('partitions keyed by [#0]: 3 partitions, 7 rows (limit 2 offset 1, append-only: the first 3 kept)')
    expect(() => d.step(del([0, -1]), t)).toThrow(/append-only but deletes a row/)
  })

  it('TopOne: one row per partition, replaced only by a lesser row; rollback restores it', () => {
    const d = new Driver()
    const t = topOne(d.circuit, d.input, [0], byCol1, { rowNumber: true })
    expect(d.step(ins(['a', 5], ['a', 3], ['b', 1], ['a', 4]), t)).toEqual(expected([['a', 3, 1], 1], [['b', 1, 1], 1]))
    d.commit()
    expect(d.step(ins(['a', 9], ['b', 1]), t)).toEqual([])
    d.commit()
    const saved = d.saveTables()
    expect(d.step(ins(['a', 2], ['c', 7]), t)).toEqual(expected([['a', 3, 1], -1], [['a', 2, 1], 1], [['c', 7, 1], 1]))
    d.rollback(saved)
    expect(t.stateSize()).toBe(2)
    expect(d.step(ins(['a', 1]), t)).toEqual(expected([['a', 3, 1], -1], [['a', 1, 1], 1]))
    expect(t.describeState()).toBe('partitions keyed by [#0]: 2 partitions, one row each (append-only input)')
    expect(() => d.step(del(['a', 1]), t)).toThrow(/append-only but deletes a row/)
  })
})

