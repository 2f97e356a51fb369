import { describe, it } from 'vitest'
import { arrange, concat, distinct, integrate, negate, rowKey, threshold, type Row } from '../../../ivm/index.js'
import { checkAll, kv, type Table } from './harness.js'

describe('Distinct / Threshold / Arrange / Materialize (oracle)', { timeout: 300_000 }, () => {
  it('Distinct', () =>
    checkAll({ inputs: 1, row: kv, build: (c, [i]) => distinct(c, i!), oracle: ([t]) => t!.map(([r]) => [r, 1]) }))
  it('Distinct of a projection (many copies)', () =>
    checkAll({
      inputs: 1,
      row: kv,
      build: (c, [i]) => distinct(c, concat(c, [i!])),
      oracle: ([t]) => t!.map(([r]) => [r, 1]),
    }))
  it('Threshold(A − B) = EXCEPT ALL', () =>
    checkAll({
      inputs: 2,
      row: kv,
      build: (c, [a, b]) => threshold(c, concat(c, [a!, negate(c, b!)])),
      oracle: ([a, b]) => {
        const m = new Map<unknown, [Row, number]>()
        for (const [r, w] of a!) m.set(rowKey(r), [r, w])
        for (const [r, w] of b!) {
          const e = m.get(rowKey(r))
          if (e) e[1] -= w
        }
        return [...m.values()].filter(([, w]) => w > 0) as Table
      },
    }))
  it('Arrange (pass-through) + Materialize keyed by a low-cardinality column', () =>
    checkAll({
      inputs: 1,
      row: kv,
      build: (c, [i]) => integrate(c, arrange(c, i!, [1]), { keyColumns: [0] }),
      oracle: ([t]) => t!,
    }))
})
