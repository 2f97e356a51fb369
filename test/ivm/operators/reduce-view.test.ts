// ReduceViewOperator: a GROUP BY view reads the reduce's groups (no second copy): contents,
// point lookups by the group key, secondary indexes kept from the deltas (and rolled back),
// snapshots for readers attached later.

import { describe, expect, it } from 'vitest'
import { ReduceOperator, ReduceViewOperator, ZSet, countRows, sumInt } from '../../../ivm/index.js'
import { Driver, del, expected, ins, norm } from '../helpers.js'

function setup() {
  const d = new Driver()
  const r = d.circuit.add(new ReduceOperator(d.input, [0, 1], [{ aggregator: countRows, arg: () => null }, { aggregator: sumInt, arg: (row) => row[2] }]))
  const v = d.circuit.add(new ReduceViewOperator(r))
  return { d, r, v }
}

describe('ReduceViewOperator', () => {
  it('holds exactly the groups of its reduce, with point reads by the group key', () => {
    const { d, v } = setup()
    d.step(ins(['a', 1, 5], ['a', 1, 7], ['b', 2, 1]), v)
    d.commit()
    expect(norm(v.contents())).toEqual(expected([['a', 1, 2, 12], 1], [['b', 2, 1, 1], 1]))
    const byGroup = v.index([0, 1])
    expect(v.lookup(byGroup, byGroup.keyOfValues(['a', 1]))?.rows).toEqual([['a', 1, 2, 12]])
    expect(v.lookup(byGroup, byGroup.keyOfValues(['a', 2]))).toBeUndefined()
    expect(v.weightOf(['a', 1, 2, 12])).toBe(1)
    expect(v.weightOf(['a', 1, 2, 13])).toBe(0)
    d.step(del(['b', 2, 1]), v)
    d.commit()
    expect(norm(v.snapshot())).toEqual(expected([['a', 1, 2, 12], 1]))
    expect(v.stateSize()).toBe(0)
  })

  it('keeps a secondary index from the deltas and rolls it back with the tick', () => {
    const { d, v } = setup()
    d.step(ins(['a', 1, 5], ['b', 1, 7]), v)
    d.commit()
    const bySecond = v.index([1])
    const k = bySecond.keyOfValues([1])
    const b = v.lookup(bySecond, k)!
    expect(norm(new ZSet(b.rows.slice(), b.weights.slice()))).toEqual(expected([['a', 1, 1, 5], 1], [['b', 1, 1, 7], 1]))
    d.step(ins(['a', 1, 1]), v)
    d.circuit.rollback()
    expect(v.lookup(bySecond, k)!.rows.length).toBe(2)
    expect(norm(v.contents())).toEqual(expected([['a', 1, 1, 5], 1], [['b', 1, 1, 7], 1]))
  })

  it('refuses a reduce that frees final groups', () => {
    const d = new Driver()
    const r = d.circuit.add(new ReduceOperator(d.input, [0], [{ aggregator: countRows, arg: () => null }], { expire: { keyIndex: 0, isFinal: () => true } }))
    expect(() => new ReduceViewOperator(r)).toThrow(/frees groups/)
  })
})
