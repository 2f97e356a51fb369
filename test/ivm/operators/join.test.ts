import { describe, expect, it } from 'vitest'
import { arrange, join, type Row } from '../../../ivm/index.js'
import { del, Driver, expected, ins, zs } from '../helpers.js'

const cat = (l: Row, r: Row): Row => [...l, ...r]

describe('Join', () => {
  it('joins on key columns incrementally from both sides', () => {
    const d = new Driver(2)
    const l = arrange(d.circuit, d.inputs[0]!, [0])
    const r = arrange(d.circuit, d.inputs[1]!, [0])
    const j = join(d.circuit, l, r, cat)
    expect(d.step([ins([1, 'a'], [2, 'b']), undefined], j)).toEqual([])
    expect(d.step([undefined, ins([1, 'x'], [1, 'y'])], j)).toEqual(expected([[1, 'a', 1, 'x'], 1], [[1, 'a', 1, 'y'], 1]))
    expect(d.step([del([1, 'a']), ins([2, 'z'])], j)).toEqual(
      expected([[1, 'a', 1, 'x'], -1], [[1, 'a', 1, 'y'], -1], [[2, 'b', 2, 'z'], 1]),
    )
  })
  it('counts ΔL ⋈ ΔR once when both sides change in one step', () => {
    const d = new Driver(2)
    const l = arrange(d.circuit, d.inputs[0]!, [0])
    const r = arrange(d.circuit, d.inputs[1]!, [0])
    const j = join(d.circuit, l, r, cat)
    expect(d.step([zs([[1, 'a'], 2]), zs([[1, 'x'], 3])], j)).toEqual(expected([[1, 'a', 1, 'x'], 6]))
    // many rows both sides (hash-index path)
    const left = ins(...Array.from({ length: 30 }, (_, i) => [10 + (i % 5), 'l' + i] as Row))
    const right = ins(...Array.from({ length: 30 }, (_, i) => [10 + (i % 5), 'r' + i] as Row))
    const out = d.step([left, right], j)
    expect(out.length).toBe(5 * 6 * 6)
    expect(out.every(([, w]) => w === 1)).toBe(true)
  })
  it('never matches NULL keys', () => {
    const d = new Driver(2)
    const l = arrange(d.circuit, d.inputs[0]!, [0, 1])
    const r = arrange(d.circuit, d.inputs[1]!, [0, 1])
    const j = join(d.circuit, l, r, cat)
    expect(d.step([ins([null, 1], [1, 1], [1, null]), ins([null, 1], [1, 1], [1, null])], j)).toEqual(expected([[1, 1, 1, 1], 1]))
  })
  it('supports self-joins on one arrangement', () => {
    const d = new Driver()
    const a = arrange(d.circuit, d.input, [0])
    const j = join(d.circuit, a, a, (x, y) => [x[1], y[1]])
    expect(d.step(ins([1, 'a'], [1, 'b']), j)).toEqual(
      expected([['a', 'a'], 1], [['a', 'b'], 1], [['b', 'a'], 1], [['b', 'b'], 1]),
    )
    expect(d.step(del([1, 'a']), j)).toEqual(expected([['a', 'a'], -1], [['a', 'b'], -1], [['b', 'a'], -1]))
  })
  it('cross joins with an empty key list', () => {
    const d = new Driver(2)
    const l = arrange(d.circuit, d.inputs[0]!, [])
    const r = arrange(d.circuit, d.inputs[1]!, [])
    const j = join(d.circuit, l, r, cat)
    expect(d.step([ins([1], [2]), ins(['a'])], j)).toEqual(expected([[1, 'a'], 1], [[2, 'a'], 1]))
  })
  it('rolls back with its arrangements', () => {
    const d = new Driver(2)
    const l = arrange(d.circuit, d.inputs[0]!, [0])
    const r = arrange(d.circuit, d.inputs[1]!, [0])
    const j = join(d.circuit, l, r, cat)
    d.tick([ins([1, 'a']), undefined], [])
    d.commit()
    const saved = d.saveTables()
    d.tick([ins([1, 'b']), ins([1, 'x'])], [])
    d.rollback(saved)
    expect(d.step([undefined, ins([1, 'y'])], j)).toEqual(expected([[1, 'a', 1, 'y'], 1]))
  })
})
