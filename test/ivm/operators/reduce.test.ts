import { describe, expect, it } from 'vitest'
import { count, countDistinct, countRows, integrate, max, min, reduce, sumFloat, sumInt, type Row } from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

const num = (a: unknown, b: unknown): number => (a as number) - (b as number)

describe('Reduce', () => {
  it('groups, emits one row per group and updates it as −old +new', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [0], [
      { aggregator: countRows, arg: () => null },
      { aggregator: sumInt, arg: (row) => row[1] },
    ])
    expect(d.step(ins(['a', 1], ['a', 2], ['b', 5]), r)).toEqual(expected([['a', 2, 3], 1], [['b', 1, 5], 1]))
    expect(d.step(ins(['a', 10]), r)).toEqual(expected([['a', 2, 3], -1], [['a', 3, 13], 1]))
    expect(d.step(del(['b', 5]), r)).toEqual(expected([['b', 1, 5], -1]))
    expect(r.size).toBe(1)
    expect(r.describeState()).toBe('groups keyed by [#0]: 1 groups (countRows, sumInt)')
  })
  it('emits nothing when the results do not change', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [0], [{ aggregator: max(num), arg: (row) => row[1] }])
    d.step(ins(['a', 5]), r)
    expect(d.step(ins(['a', 3]), r)).toEqual([])
    expect(d.step(del(['a', 3]), r)).toEqual([])
    expect(d.step(del(['a', 5]), r)).toEqual(expected([['a', 5], -1]))
  })
  it('ignores nulls except in countRows; SUM of only nulls is null', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [], [
      { aggregator: countRows, arg: () => null },
      { aggregator: count, arg: (row) => row[0] },
      { aggregator: sumInt, arg: (row) => row[0] },
      { aggregator: min(num), arg: (row) => row[0] },
    ])
    expect(d.step(ins([null], [null]), r)).toEqual(expected([[2, 0, null, null], 1]))
    expect(d.step(ins([4]), r)).toEqual(expected([[2, 0, null, null], -1], [[3, 1, 4, 4], 1]))
  })
  it('applies per-aggregate filters', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [0], [
      { aggregator: countRows, arg: () => null, filter: (row) => (row[1] as number) > 1 },
      { aggregator: countRows, arg: () => null },
    ])
    expect(d.step(ins(['a', 1], ['a', 2]), r)).toEqual(expected([['a', 1, 2], 1]))
  })
  it('multi-column keys and weights > 1', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [1, 0], [{ aggregator: countDistinct, arg: (row) => row[2] }, { aggregator: countRows, arg: () => 0 }])
    expect(d.step(zs([['x', 1, 'p'], 3], [['x', 1, 'q'], 1]), r)).toEqual(expected([[1, 'x', 2, 4], 1]))
  })
  it('emitEmptyGroup: the global row exists for empty input, from backfill on', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [], [
      { aggregator: countRows, arg: () => null },
      { aggregator: sumFloat, arg: (row) => row[0] },
    ], { emitEmptyGroup: true })
    const sink = integrate(d.circuit, r)
    d.circuit.backfill([r, sink])
    expect(norm(sink.contents())).toEqual(expected([[0, null], 1]))
    expect(d.step(ins([1.5]), r)).toEqual(expected([[0, null], -1], [[1, 1.5], 1]))
    expect(d.step(del([1.5]), r)).toEqual(expected([[1, 1.5], -1], [[0, null], 1]))
  })
  it('emitEmptyGroup without backfill: the first step emits the row and rollback undoes it', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [], [{ aggregator: countRows, arg: () => null }], { emitEmptyGroup: true })
    const saved = d.saveTables()
    d.tick(ins([1]), [])
    d.rollback(saved)
    expect(d.step(ins([1], [2]), r)).toEqual(expected([[2], 1]))
  })
  it('a throwing arg leaves the state untouched; rollback restores the committed state', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [0], [{ aggregator: sumInt, arg: (row: Row) => {
      if (row[1] === 'boom') throw new Error('boom')
      return row[1]
    } }])
    d.tick(ins(['a', 1]), [])
    d.commit()
    const saved = d.saveTables()
    d.tick(ins(['a', 2]), [])
    expect(() => d.tick(ins(['a', 'boom'], ['b', 3]), [])).toThrow('boom')
    d.rollback(saved)
    expect(d.step(ins(['a', 5]), r)).toEqual(expected([['a', 1], -1], [['a', 6], 1]))
  })
})
