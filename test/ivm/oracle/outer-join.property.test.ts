import { describe, it } from 'vitest'
import { arrange, outerJoin, valuesEqual, type OuterJoinKind, type Row } from '../../../ivm/index.js'
import { checkAll, kv, type Table } from './harness.js'

const cat = (l: Row, r: Row): Row => [...l, ...r]

function matches(a: Row, b: Row): boolean {
  return a[0] !== null && b[0] !== null && valuesEqual(a[0], b[0])
}

function naiveOuter(l: Table, r: Table, kind: OuterJoinKind): Table {
  const res: Table = []
  for (const [a, wa] of l) for (const [b, wb] of r) if (matches(a, b)) res.push([cat(a, b), wa * wb])
  if (kind !== 'right') for (const [a, wa] of l) if (!r.some(([b]) => matches(a, b))) res.push([cat(a, [null, null]), wa])
  if (kind !== 'left') for (const [b, wb] of r) if (!l.some(([a]) => matches(a, b))) res.push([cat([null, null], b), wb])
  return res
}

describe('OuterJoin (oracle)', { timeout: 300_000 }, () => {
  for (const kind of ['left', 'right', 'full'] as const) {
    it(kind, () =>
      checkAll({
        inputs: 2,
        row: kv,
        pre: (c, [a, b]) => [arrange(c, a!, [0]), arrange(c, b!, [0])],
        build: (c, [l, r]) => outerJoin(c, l as never, r as never, cat, kind, 2, 2),
        oracle: ([a, b]) => naiveOuter(a!, b!, kind),
      }))
  }
  it('self full outer join', () =>
    checkAll({
      inputs: 1,
      row: kv,
      pre: (c, [a]) => [arrange(c, a!, [0])],
      build: (c, [l]) => outerJoin(c, l as never, l as never, cat, 'full', 2, 2),
      oracle: ([a]) => naiveOuter(a!, a!, 'full'),
    }))
})
