import { describe, it } from 'vitest'
import { antiJoin, arrange, semiJoin, valuesEqual, type Row } from '../../../ivm/index.js'
import { checkAll, kv, type Table } from './harness.js'

const has = (r: Table, v: unknown): boolean => v !== null && r.some(([b]) => b[0] !== null && valuesEqual(b[0], v))

describe('SemiJoin / AntiJoin (oracle)', { timeout: 300_000 }, () => {
  it('SemiJoin', () =>
    checkAll({
      inputs: 2,
      row: kv,
      pre: (c, [a, b]) => [arrange(c, a!, [0]), arrange(c, b!, [0])],
      build: (c, [l, r]) => semiJoin(c, l as never, r as never),
      oracle: ([a, b]) => a!.filter(([row]) => has(b!, row[0])),
    }))
  it('AntiJoin (NOT EXISTS)', () =>
    checkAll({
      inputs: 2,
      row: kv,
      pre: (c, [a, b]) => [arrange(c, a!, [0]), arrange(c, b!, [0])],
      build: (c, [l, r]) => antiJoin(c, l as never, r as never),
      oracle: ([a, b]) => a!.filter(([row]) => !has(b!, row[0])),
    }))
  it('AntiJoin (NOT IN, null-aware)', () =>
    checkAll({
      inputs: 2,
      row: kv,
      pre: (c, [a, b]) => [arrange(c, a!, [0]), arrange(c, b!, [0])],
      build: (c, [l, r]) => antiJoin(c, l as never, r as never, { nullAware: true }),
      oracle: ([a, b]) => {
        const empty = b!.length === 0
        const nulls = b!.some(([row]) => row[0] === null)
        return a!.filter(([row]: [Row, number]) => empty || (row[0] !== null && !has(b!, row[0]) && !nulls))
      },
    }))
  it('self semi join', () =>
    checkAll({
      inputs: 1,
      row: kv,
      pre: (c, [a]) => [arrange(c, a!, [0])],
      build: (c, [l]) => semiJoin(c, l as never, l as never),
      oracle: ([a]) => a!.filter(([row]) => has(a!, row[0])),
    }))
})
