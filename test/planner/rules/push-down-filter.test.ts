// push-down-filter: WHERE conjuncts move towards the inputs: merged with filters below,
// substituted through projections, split over inner joins (one-sided conjuncts into the
// sides, the rest into ON), into the preserved side of outer joins, into union / distinct /
// sort inputs, and below aggregates when they only read group columns.
import { describe, expect, it } from 'vitest'
import { pushDownFilter } from '../../../planner/rules/push-down-filter.js'
import { and, applyRule, applySql, call, col, eq, filter, gt, join, lit, project, scan } from '../helpers.js'

const push = (sql: string) => applySql(pushDownFilter, sql)

describe('push-down-filter fires', () => {
  it('merges a filter into the filter below it', () => {
    // Filter(Filter(x)) is one filter with both conjuncts, the lower ones first
    const p = filter(filter(scan('c'), gt(col(0), lit(1))), gt(col(1), lit(2)))
    expect(applyRule(pushDownFilter, p)).toMatchInlineSnapshot(`
      "Filter ((#0 > 1) AND (#1 > 2))
        Scan c"
    `)
  })

  it('moves a filter below a projection, substituting the projected expressions', () => {
    // x1 > 5 over (x + 1 AS x1) is x + 1 > 5 over the scan
    expect(push('SELECT * FROM (SELECT x + 1 AS x1, y FROM a) s WHERE x1 > 5')).toMatchInlineSnapshot(`
      "Project #0, #1
        Project int4_add(#0, 1), #1
          Filter (int4_add(#0, 1) > 5)
            Scan a"
    `)
  })

  it('splits a filter over a comma join: one-sided conjuncts into the sides, the equality into ON', () => {
    // a.y > 1 only reads a, b.w = 'k' only reads b, a.x = b.x reads both
    expect(push("SELECT a.z FROM a, b WHERE a.x = b.x AND a.y > 1 AND b.w = 'k'")).toMatchInlineSnapshot(`
      "Project #2
        Join inner on (#0 = #3)
          Filter (#1 > 1)
            Scan a
          Filter (#2 = 'k'::text)
            Scan b"
    `)
  })

  it('adds two-sided conjuncts of an inner join to its existing ON condition', () => {
    // the non-equality a.y < b.y joins the ON equality; lowering keeps it as a residual
    expect(push('SELECT * FROM a JOIN b ON a.x = b.x WHERE a.y < b.y')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5
        Join inner on ((#0 = #3) AND (#1 < #4))
          Scan a
          Scan b"
    `)
  })

  it('pushes conjuncts on the preserved side of a LEFT JOIN into that side', () => {
    // a row of a that fails a.y > 1 is dropped either way; b.w IS NULL must stay above
    expect(push('SELECT * FROM a LEFT JOIN b ON a.x = b.x WHERE a.y > 1 AND b.w IS NULL')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5
        Filter (#5 IS NULL)
          Join left on (#0 = #3)
            Filter (#1 > 1)
              Scan a
            Scan b"
    `)
  })

  it('pushes conjuncts on the preserved side of a RIGHT JOIN into that side', () => {
    // mirror image of the LEFT JOIN case: b is preserved, a.z = 'q' stays above
    expect(push("SELECT * FROM a RIGHT JOIN b ON a.x = b.x WHERE b.y > 1 AND a.z = 'q'")).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5
        Filter (#2 = 'q'::text)
          Join right on (#0 = #3)
            Scan a
            Filter (#1 > 1)
              Scan b"
    `)
  })

  it('pushes conjuncts on the left side of a semi join into the left input', () => {
    // the semi join outputs left rows only, so the filter commutes with it
    const p = filter(join('semi', scan('c'), scan('d'), eq(col(1), col(2))), gt(col(0), lit(3)))
    expect(applyRule(pushDownFilter, p)).toMatchInlineSnapshot(`
      "Join semi on (#1 = #2)
        Filter (#0 > 3)
          Scan c
        Scan d"
    `)
  })

  it('pushes a filter into every input of a UNION ALL', () => {
    // a row passes the union filter exactly when it passes in its own input
    expect(push('SELECT * FROM (SELECT x, y FROM a UNION ALL SELECT x, k FROM c) u WHERE y > 1')).toMatchInlineSnapshot(`
      "Project #0, #1
        Union all
          Project #0, #1
            Filter (#1 > 1)
              Scan a
          Project #0, #1
            Filter (#1 > 1)
              Scan c"
    `)
  })

  it('pushes a filter below DISTINCT', () => {
    // filtering before or after removing duplicates keeps the same distinct rows
    expect(push('SELECT * FROM (SELECT DISTINCT x, y FROM a) s WHERE x > 1')).toMatchInlineSnapshot(`
      "Project #0, #1
        Distinct
          Project #0, #1
            Filter (#0 > 1)
              Scan a"
    `)
  })

  it('pushes HAVING conjuncts on group columns below the aggregate, and keeps the others', () => {
    // x > 1 removes whole groups (group column), count(*) > 2 needs the aggregate
    expect(push('SELECT x, count(*) FROM a GROUP BY x HAVING x > 1 AND count(*) > 2')).toMatchInlineSnapshot(`
      "Project #0, #1
        Filter (#2 > 2)
          Aggregate group=[#0] aggs=[count_rows(), count_rows()]
            Filter (#0 > 1)
              Scan a"
    `)
  })

  it('substitutes computed group keys when pushing below an aggregate', () => {
    // the group column is x + y, so the pushed conjunct reads x + y
    expect(push('SELECT * FROM (SELECT x + y AS s, max(z) AS m FROM a GROUP BY x + y) t WHERE s = 3')).toMatchInlineSnapshot(`
      "Project #0, #1
        Project #0, #1
          Aggregate group=[int4_add(#0, #1)] aggs=[max(#2)]
            Filter (int4_add(#0, #1) = 3)
              Scan a"
    `)
  })

  it('leaves a volatile conjunct where it is and pushes the others', () => {
    // random() must not be evaluated a different number of times (or per joined row)
    expect(push('SELECT a.x FROM a, c WHERE a.x = c.x AND random() < 0.5')).toMatchInlineSnapshot(`
      "Project #0
        Filter (random() < 0.5)
          Join inner on (#0 = #3)
            Scan a
            Scan c"
    `)
  })
})

describe('push-down-filter does not fire', () => {
  it('on a filter directly over a scan', () => {
    // nowhere further down to go
    expect(push('SELECT x FROM a WHERE y > 1')).toBeUndefined()
  })

  it('on a LEFT JOIN filter that reads the nullable side', () => {
    // b.w IS NULL also keeps the NULL-padded rows: below the join it would mean another thing
    expect(push('SELECT * FROM a LEFT JOIN b ON a.x = b.x WHERE b.w IS NULL')).toBeUndefined()
  })

  it('on a FULL JOIN', () => {
    // both sides are preserved; no conjunct can move below
    expect(push('SELECT * FROM a FULL JOIN b ON a.x = b.x WHERE a.y > 1')).toBeUndefined()
  })

  it('on HAVING over an aggregate value only', () => {
    // count(*) > 2 exists only above the aggregate
    expect(push('SELECT x, count(*) FROM a GROUP BY x HAVING count(*) > 2')).toBeUndefined()
  })

  it('on HAVING over a global aggregate', () => {
    // a global aggregate has one row even for empty input: filtering its input changes it
    expect(push('SELECT count(*) FROM a HAVING count(*) > 0')).toBeUndefined()
  })

  it('on a filter over a top-N (LIMIT)', () => {
    // filtering before the limit would let other rows into the top N
    expect(push('SELECT * FROM (SELECT x FROM a ORDER BY x LIMIT 3) s WHERE x > 1')).toBeUndefined()
  })

  it('on a filter over a projection with a volatile expression', () => {
    // substituting r would evaluate random() twice per row
    expect(push('SELECT * FROM (SELECT random() AS r, x FROM a) s WHERE x > 1')).toBeUndefined()
  })

  it('on a filter whose only conjunct is volatile', () => {
    // nothing movable
    expect(applyRule(pushDownFilter, filter(join('inner', scan('c'), scan('d')), call('lt', [call('random', [], 'double'), lit(0.5, 'double')])))).toBeUndefined()
  })

  it('on a filter whose conjuncts hold subqueries', () => {
    // decorrelation owns those; they stay where they are
    expect(push('SELECT x FROM (SELECT x FROM a) s WHERE EXISTS (SELECT 1 FROM c)')).toBeUndefined()
  })

  it('on a filter over VALUES', () => {
    // constant rows: nothing below
    expect(applyRule(pushDownFilter, filter({ kind: 'values', rows: [[lit(1)]], columns: [{ name: 'n', type: 'integer' }] }, gt(col(0), lit(0))))).toBeUndefined()
  })

  it('on a plan without filters', () => {
    // nothing to push
    expect(applyRule(pushDownFilter, project(join('inner', scan('c'), scan('d'), and(eq(col(1), col(2)))), [col(0)]))).toBeUndefined()
  })
})
