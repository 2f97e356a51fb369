import { describe, expect, it } from 'vitest'
import { arrange, Arrangement, Bucket, INDEX_THRESHOLD, integrate, slotWeight } from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

describe('Arrangement', () => {
  it('stores a lone weight-1 row directly and buckets otherwise', () => {
    const a = new Arrangement([0])
    a.apply([1, 'x'], 1)
    expect(Array.isArray(a.get(1))).toBe(true)
    a.apply([1, 'y'], 1)
    expect(a.get(1)).toBeInstanceOf(Bucket)
    expect(a.weightOf(1)).toBe(2)
    a.apply([1, 'x'], -1)
    expect(Array.isArray(a.get(1))).toBe(true) // collapsed back
    a.apply([1, 'y'], 1)
    expect(a.get(1)).toBeInstanceOf(Bucket)
    expect(a.weightOfRow([1, 'y'])).toBe(2)
    a.apply([1, 'y'], -2)
    expect(a.get(1)).toBeUndefined()
    expect(a.size).toBe(0)
    expect(a.keyCount).toBe(0)
    expect(a.totalWeight).toBe(0)
  })
  it('indexes large buckets and stays consistent under removals', () => {
    const a = new Arrangement([0])
    const n = INDEX_THRESHOLD * 3
    for (let i = 0; i < n; i++) a.apply(['k', i], 1)
    for (let i = 0; i < n; i += 2) a.apply(['k', i], -1)
    expect(a.size).toBe(n / 2)
    for (let i = 0; i < n; i++) expect(a.weightOfRow(['k', i])).toBe(i % 2)
    expect(slotWeight(a.get('k'))).toBe(n / 2)
    for (let i = 1; i < n; i += 2) a.apply(['k', i], -1)
    expect(a.get('k')).toBeUndefined()
  })
  it('treats -0/0 and NaN/NaN as equal values', () => {
    const a = new Arrangement([0])
    a.apply([0, NaN], 1)
    a.apply([-0, NaN], 1)
    expect(a.size).toBe(1)
    expect(a.weightOfRow([0, NaN])).toBe(2)
  })
  it('lookup returns a bucket for single rows too', () => {
    const a = new Arrangement([1])
    a.apply(['r', 5], 1)
    const b = a.lookup(5)!
    expect(b.rows).toEqual([['r', 5]])
    expect(b.weights).toEqual([1])
    expect(a.lookup(6)).toBeUndefined()
  })
})

describe('ArrangeOperator', () => {
  it('passes its input through and keeps the integral by key', () => {
    const d = new Driver()
    const ar = arrange(d.circuit, d.input, [1])
    expect(d.step(ins([1, 'a'], [2, 'a'], [3, 'b']), ar)).toEqual(expected([[1, 'a'], 1], [[2, 'a'], 1], [[3, 'b'], 1]))
    expect(ar.size).toBe(3)
    expect(ar.describeState()).toBe('arrangement keyed by [#1]: 3 rows in 2 keys')
    d.step(del([1, 'a']), ar)
    expect(ar.lookup('a')!.rows).toEqual([[2, 'a']])
    expect(norm(ar.snapshot())).toEqual(expected([[2, 'a'], 1], [[3, 'b'], 1]))
    const seen: unknown[] = []
    ar.forEach((r, w) => seen.push([r, w]))
    expect(seen.length).toBe(2)
  })
  it('rolls back to the last commit', () => {
    const d = new Driver()
    const ar = arrange(d.circuit, d.input, [0])
    d.tick(ins([1], [2]), [])
    d.commit()
    d.tick(zs([[1], -1], [[3], 2]), [])
    d.circuit.rollback()
    expect(norm(ar.snapshot())).toEqual(expected([[1], 1], [[2], 1]))
  })
  it('can be backfilled from an existing input', () => {
    const d = new Driver()
    d.tick(ins([1], [2]), [])
    const ar = arrange(d.circuit, d.input, [0])
    const sink = integrate(d.circuit, ar)
    d.circuit.backfill([ar, sink])
    expect(ar.size).toBe(2)
    expect(norm(sink.contents())).toEqual(expected([[1], 1], [[2], 1]))
  })
})
