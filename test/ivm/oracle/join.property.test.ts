import { describe, it } from 'vitest'
import { arrange, join, valuesEqual, type Row } from '../../../ivm/index.js'
import { checkAll, kv, type Table } from './harness.js'

const cat = (l: Row, r: Row): Row => [...l, ...r]

export function naiveJoin(l: Table, r: Table, lk: number[], rk: number[]): Table {
  const res: Table = []
  for (const [a, wa] of l)
    for (const [b, wb] of r) {
      let ok = true
      for (let i = 0; i < lk.length; i++) {
        const x = a[lk[i]!]
        const y = b[rk[i]!]
        if (x === null || y === null || !valuesEqual(x, y)) ok = false
      }
      if (ok) res.push([cat(a, b), wa * wb])
    }
  return res
}

describe('Join (oracle)', { timeout: 300_000 }, () => {
  it('equi-join on one column', () =>
    checkAll({
      inputs: 2,
      row: kv,
      pre: (c, [a, b]) => [arrange(c, a!, [0]), arrange(c, b!, [0])],
      build: (c, [l, r]) => join(c, l as never, r as never, cat),
      oracle: ([a, b]) => naiveJoin(a!, b!, [0], [0]),
    }))
  it('two key columns, crossed', () =>
    checkAll({
      inputs: 2,
      row: kv,
      pre: (c, [a, b]) => [arrange(c, a!, [0, 1]), arrange(c, b!, [1, 0])],
      build: (c, [l, r]) => join(c, l as never, r as never, cat),
      oracle: ([a, b]) => naiveJoin(a!, b!, [0, 1], [1, 0]),
    }))
  it('self-join', () =>
    checkAll({
      inputs: 1,
      row: kv,
      pre: (c, [a]) => [arrange(c, a!, [0])],
      build: (c, [l]) => join(c, l as never, l as never, cat),
      oracle: ([a]) => naiveJoin(a!, a!, [0], [0]),
    }))
  it('cross join', () =>
    checkAll({
      inputs: 2,
      row: kv,
      pre: (c, [a, b]) => [arrange(c, a!, []), arrange(c, b!, [])],
      build: (c, [l, r]) => join(c, l as never, r as never, cat),
      oracle: ([a, b]) => naiveJoin(a!, b!, [], []),
    }))
})
