import { describe, it } from 'vitest'
import { concat, filter, flatMap, map, mapFilter, negate, type Row } from '../../../ivm/index.js'
import { checkAll, kv, type Table } from './harness.js'

describe('linear operators (oracle)', { timeout: 300_000 }, () => {
  it('Map', () =>
    checkAll({ inputs: 1, row: kv, build: (c, [i]) => map(c, i!, (r) => [r[1]]), oracle: ([t]) => t!.map(([r, w]) => [[r[1]], w]) }))
  it('Filter', () =>
    checkAll({ inputs: 1, row: kv, build: (c, [i]) => filter(c, i!, (r) => r[0] === 1), oracle: ([t]) => t!.filter(([r]) => r[0] === 1) }))
  it('Mfp', () =>
    checkAll({
      inputs: 1,
      row: kv,
      build: (c, [i]) => mapFilter(c, i!, (r) => r[0] !== null, (r) => [r[0], (r[1] as number) % 2]),
      oracle: ([t]) => t!.filter(([r]) => r[0] !== null).map(([r, w]) => [[r[0], (r[1] as number) % 2], w]),
    }))
  it('FlatMap', () =>
    checkAll({
      inputs: 1,
      row: kv,
      build: (c, [i]) => flatMap(c, i!, (r, emit) => {
        for (let k = 0; k < (r[1] as number) % 3; k++) emit([r[0], k])
      }),
      oracle: ([t]) => {
        const res: Table = []
        for (const [r, w] of t!) for (let k = 0; k < (r[1] as number) % 3; k++) res.push([[r[0], k] as Row, w])
        return res
      },
    }))
  it('Negate + Union', () =>
    checkAll({
      inputs: 2,
      row: kv,
      build: (c, [a, b]) => concat(c, [a!, negate(c, b!), a!]),
      oracle: ([a, b]) => [...a!, ...b!.map(([r, w]) => [r, -w] as [Row, number]), ...a!],
    }))
})
