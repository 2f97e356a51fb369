import { describe, expect, it } from 'vitest'
import { arrange, outerJoin, type OuterJoinKind, type Row } from '../../../ivm/index.js'
import { del, Driver, expected, ins } from '../helpers.js'

const cat = (l: Row, r: Row): Row => [...l, ...r]

function setup(kind: OuterJoinKind) {
  const d = new Driver(2)
  const l = arrange(d.circuit, d.inputs[0]!, [0])
  const r = arrange(d.circuit, d.inputs[1]!, [0])
  const j = outerJoin(d.circuit, l, r, cat, kind, 2, 2)
  return { d, j }
}

describe('OuterJoin', () => {
  it('left: null-extends unmatched rows, retracts them on the first match, restores on the last', () => {
    const { d, j } = setup('left')
    expect(d.step([ins([1, 'a']), undefined], j)).toEqual(expected([[1, 'a', null, null], 1]))
    expect(d.step([undefined, ins([1, 'x'])], j)).toEqual(expected([[1, 'a', null, null], -1], [[1, 'a', 1, 'x'], 1]))
    expect(d.step([undefined, ins([1, 'y'])], j)).toEqual(expected([[1, 'a', 1, 'y'], 1]))
    expect(d.step([undefined, del([1, 'x'])], j)).toEqual(expected([[1, 'a', 1, 'x'], -1]))
    expect(d.step([undefined, del([1, 'y'])], j)).toEqual(expected([[1, 'a', 1, 'y'], -1], [[1, 'a', null, null], 1]))
    expect(d.step([del([1, 'a']), undefined], j)).toEqual(expected([[1, 'a', null, null], -1]))
  })
  it('left: both sides in one step', () => {
    const { d, j } = setup('left')
    expect(d.step([ins([1, 'a'], [2, 'b']), ins([1, 'x'])], j)).toEqual(expected([[1, 'a', 1, 'x'], 1], [[2, 'b', null, null], 1]))
    expect(d.step([del([1, 'a']), del([1, 'x'])], j)).toEqual(expected([[1, 'a', 1, 'x'], -1]))
    expect(d.step([ins([1, 'c']), ins([2, 'y'])], j)).toEqual(
      expected([[1, 'c', null, null], 1], [[2, 'b', null, null], -1], [[2, 'b', 2, 'y'], 1]),
    )
  })
  it('NULL keys are unmatched but preserved', () => {
    const { d, j } = setup('full')
    expect(d.step([ins([null, 'a']), ins([null, 'x'])], j)).toEqual(
      expected([[null, 'a', null, null], 1], [[null, null, null, 'x'], 1]),
    )
  })
  it('right and full', () => {
    const r = setup('right')
    expect(r.d.step([ins([1, 'a']), ins([2, 'x'])], r.j)).toEqual(expected([[null, null, 2, 'x'], 1]))
    const f = setup('full')
    expect(f.d.step([ins([1, 'a']), ins([2, 'x'])], f.j)).toEqual(expected([[1, 'a', null, null], 1], [[null, null, 2, 'x'], 1]))
    expect(f.d.step([ins([2, 'b']), undefined], f.j)).toEqual(expected([[null, null, 2, 'x'], -1], [[2, 'b', 2, 'x'], 1]))
  })
})
