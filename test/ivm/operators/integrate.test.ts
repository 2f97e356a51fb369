import { describe, expect, it } from 'vitest'
import { integrate } from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

describe('Materialize', () => {
  it('keeps the integral and passes deltas through', () => {
    const d = new Driver()
    const m = integrate(d.circuit, d.input)
    expect(m.name).toBe('Materialize')
    expect(d.step(zs([[1, 'a'], 1], [[1, 'b'], 2]), m)).toEqual(expected([[1, 'a'], 1], [[1, 'b'], 2]))
    d.tick(del([1, 'a']), [])
    expect(norm(m.contents())).toEqual(expected([[1, 'b'], 2]))
    expect(m.size).toBe(1)
    expect(m.weightOf([1, 'b'])).toBe(2)
  })
  it('maintains secondary indexes for point lookups', () => {
    const d = new Driver()
    const m = integrate(d.circuit, d.input)
    d.tick(ins([1, 'a'], [2, 'a'], [3, 'b']), [])
    const idx = m.index([1])
    expect(m.lookup(idx, idx.keyOfValues(['a']))!.rows.length).toBe(2)
    d.tick(ins([4, 'b']), [])
    d.commit()
    d.tick(del([3, 'b']), [])
    expect(m.lookup(idx, 'b')!.rows).toEqual([[4, 'b']])
    d.circuit.rollback()
    expect(m.lookup(idx, 'b')!.rows.length).toBe(2)
    expect(m.describeState()).toBe('view: 4 rows; index keyed by [#1]: 4 rows in 2 keys')
    const pk = m.index([0])
    expect(m.lookup(pk, 4)!.rows).toEqual([[4, 'b']])
    const keyed = integrate(d.circuit, d.input, { keyColumns: [0] })
    d.tick(ins([7, 'c']), [])
    expect(keyed.lookup(keyed.index([0]), 7)!.rows).toEqual([[7, 'c']])
  })
})
