import fc from 'fast-check'
import { describe, it } from 'vitest'
import { compareRows, rowKey, topK, topOne, type Row, type RowKey } from '../../../ivm/index.js'
import { checkAll, expand, kv, smallValue, type Table } from './harness.js'

const byV = (a: Row, b: Row): number => (a[1] as number) - (b[1] as number)

/** [partition, value, payload]: few values, so rows tie in `byV` but differ as rows. */
const kvp = fc.tuple(smallValue, fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 })) as fc.Arbitrary<Row>

function naiveTopK(t: Table, part: number[], limit: number | undefined, offset: number, rowNumber: boolean, withTies = false): Table {
  const parts = new Map<RowKey, Row[]>()
  for (const r of expand(t)) {
    const k = rowKey(part.map((c) => r[c]))
    const p = parts.get(k)
    if (p) p.push(r)
    else parts.set(k, [r])
  }
  const res: Table = []
  for (const rows of parts.values()) {
    rows.sort((a, b) => byV(a, b) || compareRows(a, b))
    let end = limit === undefined ? rows.length : offset + limit
    // with ties: the rows after the window equal in byV to its last row come too
    if (withTies && end > offset) while (end < rows.length && byV(rows[end]!, rows[end - 1]!) === 0) end++
    for (let i = offset; i < Math.min(end, rows.length); i++) res.push([rowNumber ? [...rows[i]!, i + 1] : rows[i]!, 1])
  }
  return res
}

describe('TopK (oracle)', { timeout: 300_000 }, () => {
  const cases: [string, number[], number | undefined, number, boolean][] = [
    ['limit 2', [0], 2, 0, false],
    ['limit 2 offset 1', [0], 2, 1, false],
    ['offset 1, no limit', [0], undefined, 1, false],
    ['no partition, limit 3', [], 3, 0, false],
    ['row numbers, limit 3', [0], 3, 0, true],
    ['row numbers, offset 1 limit 2', [], 2, 1, true],
    ['row numbers, no limit', [0], undefined, 0, true],
  ]
  for (const [name, part, limit, offset, rn] of cases) {
    it(name, () =>
      checkAll({
        inputs: 1,
        row: kv,
        build: (c, [i]) => topK(c, i!, part, byV, limit, offset, { rowNumber: rn }),
        oracle: ([t]) => naiveTopK(t!, part, limit, offset, rn),
      }))
    // the same over an input that only inserts, each step committed: partitions are cut to
    // offset + limit positions at every commit
    it(`${name}, append-only`, () =>
      checkAll({
        inputs: 1,
        row: kv,
        appendOnly: true,
        build: (c, [i]) => topK(c, i!, part, byV, limit, offset, { rowNumber: rn, appendOnly: true }),
        oracle: ([t]) => naiveTopK(t!, part, limit, offset, rn),
      }))
  }

  // FETCH FIRST n ROWS WITH TIES (the window's last row brings every row tied with it in
  // byV) and DISTINCT ON (the first row per partition, ties broken by the whole row), over
  // rows that tie in byV without being equal
  const tied: [string, number[], number, number, boolean][] = [
    ['with ties, limit 2', [], 2, 0, true],
    ['with ties, limit 1 per partition', [0], 1, 0, true],
    ['with ties, offset 1 limit 2', [], 2, 1, true],
    ['with ties, limit 0', [], 0, 0, true],
    ['DISTINCT ON: first per partition, ties broken by the row', [0], 1, 0, false],
  ]
  for (const [name, part, limit, offset, withTies] of tied) {
    it(name, () =>
      checkAll({
        inputs: 1,
        row: kvp,
        build: (c, [i]) => topK(c, i!, part, byV, limit, offset, { withTies }),
        oracle: ([t]) => naiveTopK(t!, part, limit, offset, false, withTies),
      }))
    // append-only input, each step committed: partitions are cut after the ties of the row at
    // offset + limit − 1
    it(`${name}, append-only`, () =>
      checkAll({
        inputs: 1,
        row: kvp,
        appendOnly: true,
        build: (c, [i]) => topK(c, i!, part, byV, limit, offset, { withTies, appendOnly: true }),
        oracle: ([t]) => naiveTopK(t!, part, limit, offset, false, withTies),
      }))
  }

  // the first row per partition of an insert-only input: one row kept per partition
  const firsts: [string, number[], boolean][] = [
    ['TopOne: first per partition', [0], false],
    ['TopOne: first overall, numbered', [], true],
    ['TopOne: first per partition, numbered', [0], true],
  ]
  for (const [name, part, rn] of firsts) {
    it(name, () =>
      checkAll({
        inputs: 1,
        row: kv,
        appendOnly: true,
        build: (c, [i]) => topOne(c, i!, part, byV, { rowNumber: rn }),
        oracle: ([t]) => naiveTopK(t!, part, 1, 0, rn),
      }))
  }
})

