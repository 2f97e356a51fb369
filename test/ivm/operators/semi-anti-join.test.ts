import { describe, expect, it } from 'vitest'
import { antiJoin, arrange, semiJoin } from '../../../ivm/index.js'
import { del, Driver, expected, ins, zs } from '../helpers.js'

function setup() {
  const d = new Driver(2)
  const l = arrange(d.circuit, d.inputs[0]!, [0])
  const r = arrange(d.circuit, d.inputs[1]!, [0])
  return { d, l, r }
}

describe('SemiJoin', () => {
  it('passes left rows with a match, with their weights', () => {
    const { d, l, r } = setup()
    const s = semiJoin(d.circuit, l, r)
    expect(d.step([zs([[1, 'a'], 2], [[2, 'b'], 1], [[null, 'n'], 1]), ins([1], [1], [null])], s)).toEqual(expected([[1, 'a'], 2]))
    expect(d.step([undefined, del([1])], s)).toEqual([])
    expect(d.step([undefined, del([1])], s)).toEqual(expected([[1, 'a'], -2]))
    expect(d.step([undefined, ins([2])], s)).toEqual(expected([[2, 'b'], 1]))
    expect(d.step([ins([2, 'c']), del([2])], s)).toEqual(expected([[2, 'b'], -1]))
  })
})

describe('AntiJoin', () => {
  it('NOT EXISTS: passes unmatched rows, NULL keys always', () => {
    const { d, l, r } = setup()
    const a = antiJoin(d.circuit, l, r)
    expect(d.step([ins([1, 'a'], [2, 'b'], [null, 'n']), ins([1])], a)).toEqual(expected([[2, 'b'], 1], [[null, 'n'], 1]))
    expect(d.step([undefined, ins([null])], a)).toEqual([])
    expect(d.step([undefined, del([1])], a)).toEqual(expected([[1, 'a'], 1]))
    expect(d.step([undefined, ins([2])], a)).toEqual(expected([[2, 'b'], -1]))
  })
  it('NOT IN (nullAware): a NULL on the right blocks everything, empty right passes everything', () => {
    const { d, l, r } = setup()
    const a = antiJoin(d.circuit, l, r, { nullAware: true })
    // right empty: everything passes, NULL keys too
    expect(d.step([ins([1, 'a'], [2, 'b'], [null, 'n']), undefined], a)).toEqual(
      expected([[1, 'a'], 1], [[2, 'b'], 1], [[null, 'n'], 1]),
    )
    // right = {1}: 1 and NULL drop out
    expect(d.step([undefined, ins([1])], a)).toEqual(expected([[1, 'a'], -1], [[null, 'n'], -1]))
    // right gains a NULL: nothing passes
    expect(d.step([undefined, ins([null])], a)).toEqual(expected([[2, 'b'], -1]))
    expect(d.step([ins([3, 'c']), undefined], a)).toEqual([])
    // NULL leaves: 2 and 3 pass again
    expect(d.step([undefined, del([null])], a)).toEqual(expected([[2, 'b'], 1], [[3, 'c'], 1]))
    // right becomes empty: all pass
    expect(d.step([undefined, del([1])], a)).toEqual(expected([[1, 'a'], 1], [[null, 'n'], 1]))
    // right non-empty again in the same step as a left change
    expect(d.step([ins([4, 'd']), ins([4])], a)).toEqual(expected([[null, 'n'], -1]))
  })
})
