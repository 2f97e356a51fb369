// limit-row-number: a filter `rn <= N` / `rn < N` / `rn = 1` sitting directly on a TopK that
// numbers rows (ROW_NUMBER() OVER …, no limit yet) becomes that TopK's limit.
import { describe, expect, it } from 'vitest'
import type { LogicalPlan, ScalarExpr } from '../../../planner/index.js'
import { limitRowNumber } from '../../../planner/rules/limit-row-number.js'
import { and, applyRule, call, col, filter, gt, lit, scan } from '../helpers.js'

/** TopK over `a` (x, y, z) numbering rows per x ordered by y; row number is column 3. */
function numbered(limit?: number): LogicalPlan {
  const input = scan('a')
  return {
    kind: 'topK',
    input,
    partitionBy: [0],
    orderBy: [{ expr: col(1), desc: false, nullsFirst: false }],
    limit,
    offset: 0,
    rowNumber: true,
    columns: [...input.columns, { name: 'row_number', type: 'bigint' }],
  }
}
const rn = col(3, 'bigint')
const n = (v: number): ScalarExpr => lit(v, 'bigint')

describe('limit-row-number fires', () => {
  it('on rn <= N', () => {
    // the first two rows of each partition are all the filter lets through
    expect(applyRule(limitRowNumber, filter(numbered(), call('le', [rn, n(2)])))).toMatchInlineSnapshot(`
      "TopK partition=[#0] order=[#1] limit=2 row_number
        Scan a"
    `)
  })

  it('on rn < N and on N > rn (operands swapped)', () => {
    // rn < 3 is rn <= 2; 3 > rn is the same condition written the other way round
    expect(applyRule(limitRowNumber, filter(numbered(), call('lt', [rn, n(3)])))).toContain('limit=2')
    expect(applyRule(limitRowNumber, filter(numbered(), call('gt', [n(3), rn])))).toContain('limit=2')
  })

  it('on rn = 1, keeping the other conjuncts as a filter', () => {
    // the top row per partition; x > 5 still has to be checked
    expect(applyRule(limitRowNumber, filter(numbered(), and(call('eq', [rn, n(1)]), gt(col(0), lit(5)))))).toMatchInlineSnapshot(`
      "Filter (#0 > 5)
        TopK partition=[#0] order=[#1] limit=1 row_number
          Scan a"
    `)
  })
})

describe('limit-row-number does not fire', () => {
  it('on rn >= N (keeps the tail of each partition, not a prefix)', () => {
    expect(applyRule(limitRowNumber, filter(numbered(), call('ge', [rn, n(2)])))).toBeUndefined()
  })

  it('on rn = 2 (a single position is not a prefix)', () => {
    expect(applyRule(limitRowNumber, filter(numbered(), call('eq', [rn, n(2)])))).toBeUndefined()
  })

  it('on a TopK that already has a limit', () => {
    expect(applyRule(limitRowNumber, filter(numbered(5), call('le', [rn, n(2)])))).toBeUndefined()
  })

  it('on a filter over another column of the TopK', () => {
    expect(applyRule(limitRowNumber, filter(numbered(), call('le', [col(1), lit(2)])))).toBeUndefined()
  })
})
