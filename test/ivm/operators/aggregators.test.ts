import { describe, expect, it } from 'vitest'
import {
  addPartial, avg, boolAnd, boolOr, count, countDistinct, countRows, distinctOf, max, min, partialsValue, stringAgg, sumFloat, sumInt,
  type Aggregator,
} from '../../../ivm/index.js'

function fold<TAcc, TOut>(agg: Aggregator<TAcc, TOut>, pairs: [unknown, number][]): TOut {
  let acc = agg.create()
  for (const [v, w] of pairs) acc = agg.add(acc, v, w)
  return agg.result(acc)
}

const num = (a: number, b: number): number => a - b

describe('aggregators', { timeout: 120_000 }, () => {
  it('countRows / count', () => {
    expect(fold(countRows, [[null, 1], [1, 2], [2, -1]])).toBe(2)
    expect(fold(count, [[null, 1], [1, 2], [2, -1]])).toBe(1)
  })
  it('sumInt: exact, null when empty, beyond 2^53, bigint inputs', () => {
    expect(fold(sumInt, [])).toBe(null)
    expect(fold(sumInt, [[null, 1]])).toBe(null)
    expect(fold(sumInt, [[3, 2], [4, 1], [3, -1]])).toBe(7)
    expect(fold(sumInt, [[5, 1], [5, -1]])).toBe(null)
    expect(fold(sumInt, [[5, 1], [-5, 1]])).toBe(0)
    const big = Number.MAX_SAFE_INTEGER
    expect(fold(sumInt, [[big, 1], [big, 1], [big, -1], [1, 1]])).toBe(big + 1)
    expect(fold(sumInt, [[big, 3], [big, -3], [2, 1]])).toBe(2)
    expect(fold(sumInt, [[10n, 2], [5n, 1]])).toBe(25n)
  })
  it('sumFloat: correctly rounded regardless of order', () => {
    expect(fold(sumFloat, [[0.1, 1], [0.2, 1], [0.3, 1]])).toBe(0.6)
    expect(fold(sumFloat, [[1e100, 1], [1, 1], [1e100, -1]])).toBe(1)
    expect(fold(sumFloat, [[0.1, 3]])).toBe(fold(sumFloat, [[0.1, 1], [0.1, 1], [0.1, 1]])) // two-product path = repeated adds
    expect(fold(sumFloat, [[0.1, 7], [0.1, -4]])).toBe(fold(sumFloat, [[0.1, 1], [0.1, 1], [0.1, 1]]))
    expect(fold(sumFloat, [[0.1, 10]])).toBe(1)
    expect(fold(sumFloat, [[Infinity, 1], [1, 1]])).toBe(Infinity)
    expect(fold(sumFloat, [[Infinity, 1], [-Infinity, 1]])).toBeNaN()
    expect(fold(sumFloat, [[Infinity, 1], [Infinity, -1], [2, 1]])).toBe(2)
    expect(fold(sumFloat, [])).toBe(null)
    const p: number[] = []
    for (const x of [1e16, 1, -1e16, 1]) addPartial(p, x)
    expect(partialsValue(p)).toBe(2)
  })
  it('avg', () => {
    expect(fold(avg('int'), [[1, 1], [2, 1]])).toBe(1.5)
    expect(fold(avg('float'), [[0.1, 1], [0.2, 1], [0.3, 1]])).toBe(0.6 / 3)
    expect(fold(avg(), [[null, 1]])).toBe(null)
  })
  it('min / max: retracting the extreme', () => {
    const mx = max<number>(num)
    const mn = min<number>(num)
    expect(fold(mx, [[3, 1], [9, 1], [5, 1], [9, -1]])).toBe(5)
    expect(fold(mn, [[3, 1], [9, 1], [1, 2], [1, -1]])).toBe(1)
    expect(fold(mn, [[3, 1], [3, -1]])).toBe(null)
    // large group
    let acc = mx.create()
    const n = 20000
    for (let i = 0; i < n; i++) acc = mx.add(acc, (i * 7919) % n, 1)
    for (let i = n - 1; i >= 10; i--) {
      expect(mx.result(acc)).toBe(i)
      acc = mx.add(acc, i, -1)
    }
    expect(mx.result(acc)).toBe(9)
  })
  it('countDistinct / distinctOf(sumInt)', () => {
    expect(fold(countDistinct, [[1, 1], [1, 1], [2, 1], [null, 1]])).toBe(2)
    expect(fold(countDistinct, [[1, 2], [1, -1], [2, 1], [2, -1]])).toBe(1)
    expect(fold(distinctOf(sumInt), [[5, 3], [7, 1], [7, -1], [1, 1]])).toBe(6)
  })
  it('stringAgg: ordered by order keys, then value; delimiter of the later value', () => {
    const agg = stringAgg((a, b) => (a[0] as number) - (b[0] as number))
    expect(fold(agg, [[['b', ',', [2]], 1], [['a', ';', [1]], 1], [['c', '-', [3]], 1]])).toBe('a,b-c')
    expect(fold(agg, [[['b', ',', [2]], 1], [['b', ',', [2]], -1]])).toBe(null)
    expect(fold(stringAgg(), [[['y', ',', []], 2], [['x', ',', []], 1], [[null, ',', []], 1]])).toBe('x,y,y')
  })
  it('boolAnd / boolOr', () => {
    expect(fold(boolAnd, [[true, 1], [false, 1]])).toBe(false)
    expect(fold(boolAnd, [[true, 1], [false, 1], [false, -1]])).toBe(true)
    expect(fold(boolOr, [[false, 1], [true, 1]])).toBe(true)
    expect(fold(boolOr, [[null, 1]])).toBe(null)
  })
})
