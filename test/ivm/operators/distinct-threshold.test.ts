import { describe, expect, it } from 'vitest'
import { concat, distinct, negate, threshold } from '../../../ivm/index.js'
import { del, Driver, expected, ins, zs } from '../helpers.js'

describe('Distinct', () => {
  it('emits +1 when a row first appears and −1 when its last copy goes', () => {
    const d = new Driver()
    const op = distinct(d.circuit, d.input)
    expect(d.step(zs([[1, 'a'], 2], [[2, 'b'], 1]), op)).toEqual(expected([[1, 'a'], 1], [[2, 'b'], 1]))
    expect(d.step(ins([1, 'a']), op)).toEqual([])
    expect(d.step(zs([[1, 'a'], -2]), op)).toEqual([])
    expect(d.step(del([1, 'a']), op)).toEqual(expected([[1, 'a'], -1]))
    expect(op.describeState()).toBe('distinct rows: 1')
  })
})

describe('Threshold', () => {
  it('EXCEPT ALL = threshold(A − B)', () => {
    const d = new Driver(2)
    const t = threshold(d.circuit, concat(d.circuit, [d.inputs[0]!, negate(d.circuit, d.inputs[1]!)]))
    expect(d.step([zs([['x'], 3]), zs([['x'], 1], [['y'], 1])], t)).toEqual(expected([['x'], 2]))
    expect(d.step([undefined, zs([['x'], 4])], t)).toEqual(expected([['x'], -2]))
    expect(d.step([ins(['y'], ['x']), undefined], t)).toEqual([])
    expect(d.step([zs([['x'], 3]), undefined], t)).toEqual(expected([['x'], 2]))
  })
})
