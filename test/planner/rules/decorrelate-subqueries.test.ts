// decorrelate-subqueries: every subquery expression becomes joins. Top-level WHERE
// [NOT] EXISTS / [NOT] IN become semi / anti joins (NOT IN: null-aware); scalar subqueries
// become a join with the subquery grouped by its correlation keys (uncorrelated: a cross join
// with a one-row global aggregate); EXISTS elsewhere is a count > 0 over such a join; IN as a
// value is a three-valued CASE over a left join and row counts. Correlation must be through
// the subquery's WHERE; non-equality correlation goes through the DISTINCT domain of the
// outer values.
import { describe, expect, it } from 'vitest'
import { decorrelateSubqueries } from '../../../planner/rules/decorrelate-subqueries.js'
import { RivuletError } from '../../../grammar/index.js'
import { applyRule, applySql, bind, col, eq, join, project, scan } from '../helpers.js'

const decorrelate = (sql: string) => applySql(decorrelateSubqueries, sql)

/** The SQLSTATE and message a refused query throws. */
function refusal(sql: string): string {
  try {
    decorrelateSubqueries.apply(bind(sql))
  } catch (e) {
    if (e instanceof RivuletError) return `${e.code} ${e.message}`
    throw e
  }
  return 'no error'
}

describe('decorrelate-subqueries fires', () => {
  it('turns an uncorrelated EXISTS into a semi join without condition', () => {
    // any row of c makes every row of a qualify
    expect(decorrelate('SELECT x FROM a WHERE EXISTS (SELECT 1 FROM c)')).toMatchInlineSnapshot(`
      "Project #0
        Join semi
          Scan a
          Project 1
            Scan c"
    `)
  })

  it('turns a correlated EXISTS into a semi join keyed on the correlation equality', () => {
    // b.x = a.x: outer column on one side, inner on the other, so it is a join key
    expect(decorrelate('SELECT x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.x = a.x AND b.y > 0)')).toMatchInlineSnapshot(`
      "Project #0
        Join semi on (#0 = #3)
          Scan a
          Filter (#1 > 0)
            Scan b"
    `)
  })

  it('turns a correlated NOT EXISTS into an anti join', () => {
    // rows of a with no matching b row
    expect(decorrelate('SELECT x FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE a.x = b.x)')).toMatchInlineSnapshot(`
      "Project #0
        Join anti on (#0 = #3)
          Scan a
          Scan b"
    `)
  })

  it('turns IN (subquery) into a semi join on operand = column', () => {
    // x IN (SELECT k FROM c) as a top-level conjunct: keep a rows that match
    expect(decorrelate('SELECT z FROM a WHERE y > 0 AND x IN (SELECT k FROM c)')).toMatchInlineSnapshot(`
      "Project #2
        Filter (#1 > 0)
          Join semi on (#0 = #3)
            Scan a
            Project #1
              Scan c"
    `)
  })

  it('turns NOT IN (subquery) into a null-aware anti join', () => {
    // a NULL in the subquery makes NOT IN NULL for every row: null-aware semantics
    expect(decorrelate('SELECT z FROM a WHERE x NOT IN (SELECT k FROM c)')).toMatchInlineSnapshot(`
      "Project #2
        Join anti null-aware on (#0 = #3)
          Scan a
          Project #1
            Scan c"
    `)
  })

  it('turns a correlated IN into a semi join on the correlation key and the IN value', () => {
    // the subquery rows are extended with the projected value, compared with the operand
    expect(decorrelate('SELECT z FROM a WHERE y IN (SELECT b.y FROM b WHERE b.x = a.x)')).toMatchInlineSnapshot(`
      "Project #2
        Join semi on ((#0 = #3) AND (#1 = #6))
          Scan a
          Project #0, #1, #2, #1
            Scan b"
    `)
  })

  it('routes a non-equality correlation through the distinct domain of the outer values', () => {
    // b.y < a.y is no join key: b is joined with DISTINCT a.y, keyed by a NULL-safe key
    expect(decorrelate('SELECT x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.y < a.y)')).toMatchInlineSnapshot(`
      "Project #0
        Join semi on (__null_safe_key(#1) = __null_safe_key(#6))
          Scan a
          Join inner on (#1 < #3)
            Scan b
            Distinct
              Project #1
                Scan a"
    `)
  })

  it('turns an uncorrelated scalar subquery into a cross join with a one-row single_value aggregate', () => {
    // single_value fails at run time when the subquery has more than one row
    expect(decorrelate('SELECT x, (SELECT k FROM c) FROM a')).toMatchInlineSnapshot(`
      "Project #0, #3
        Join inner
          Scan a
          Aggregate global aggs=[single_value(#0)]
            Project #1
              Scan c"
    `)
  })

  it('turns a correlated COUNT subquery into a left join with COUNT grouped by the key, NULL → 0', () => {
    // a row of a without b rows has no group: its count is 0, not NULL
    expect(decorrelate('SELECT x, (SELECT count(*) FROM b WHERE b.x = a.x) FROM a')).toMatchInlineSnapshot(`
      "Project #0, coalesce(#4, 0)
        Join left on (#0 = #3)
          Scan a
          Aggregate group=[#0] aggs=[count_rows()]
            Scan b"
    `)
  })

  it('keeps other aggregates of a correlated scalar subquery NULL for missing groups', () => {
    // max over no rows is NULL, so no COALESCE; the projection above the aggregate is applied
    expect(decorrelate('SELECT x, (SELECT max(b.y) + 1 FROM b WHERE b.x = a.x) FROM a')).toMatchInlineSnapshot(`
      "Project #0, int4_add(#4, 1)
        Join left on (#0 = #3)
          Scan a
          Aggregate group=[#0] aggs=[max(#1)]
            Scan b"
    `)
  })

  it('turns a correlated plain scalar subquery into single_value per key', () => {
    // at most one row per key, else an error at run time
    expect(decorrelate('SELECT x, (SELECT w FROM b WHERE b.x = a.x) FROM a')).toMatchInlineSnapshot(`
      "Project #0, #4
        Join left on (#0 = #3)
          Scan a
          Aggregate group=[#0] aggs=[single_value(#2)]
            Scan b"
    `)
  })

  it('turns a scalar subquery inside a WHERE comparison into a join below the filter', () => {
    // the filter compares with the joined column, and a projection drops it again
    expect(decorrelate('SELECT x FROM a WHERE y > (SELECT max(k) FROM c)')).toMatchInlineSnapshot(`
      "Project #0
        Project #0, #1, #2
          Filter (#1 > #3)
            Join inner
              Scan a
              Aggregate global aggs=[single_value(#0)]
                Project #0
                  Aggregate global aggs=[max(#1)]
                    Scan c"
    `)
  })

  it('turns EXISTS under OR into COALESCE(count, 0) > 0 over a grouped left join', () => {
    // not a top-level conjunct, so no semi join: it becomes a boolean value per row
    expect(decorrelate('SELECT x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.x = a.x) OR y > 5')).toMatchInlineSnapshot(`
      "Project #0
        Project #0, #1, #2
          Filter ((coalesce(#4, 0) > 0) OR (#1 > 5))
            Join left on (#0 = #3)
              Scan a
              Aggregate group=[#0] aggs=[count_rows()]
                Scan b"
    `)
  })

  it('turns IN as a value into a three-valued CASE over a left join and row counts', () => {
    // TRUE on a match, FALSE for an empty subquery, NULL for a NULL operand or a NULL in the
    // subquery, else FALSE
    expect(decorrelate('SELECT x, x IN (SELECT k FROM c) FROM a')).toMatchInlineSnapshot(`
      "Project #0, CASE WHEN (#3 IS NOT NULL) THEN true WHEN (#4 = 0) THEN false WHEN ((#0 IS NULL) OR (#4 > #5)) THEN NULL ELSE false END
        Join inner
          Join left on (#0 = #3)
            Scan a
            Distinct
              Project #0
                Filter (#0 IS NOT NULL)
                  Project #1
                    Scan c
          Aggregate global aggs=[count_rows(), count(#0)]
            Project #1
              Scan c"
    `)
  })

  it('decorrelates subqueries below other nodes (a derived table)', () => {
    // transformUp reaches the filter inside the FROM clause
    expect(decorrelate('SELECT s.x FROM (SELECT x FROM a WHERE EXISTS (SELECT 1 FROM c WHERE c.x = a.x)) s')).toMatchInlineSnapshot(`
      "Project #0
        Project #0
          Join semi on (#0 = #3)
            Scan a
            Scan c"
    `)
  })
})

describe('decorrelate-subqueries does not fire', () => {
  it('on a plan without subqueries', () => {
    // nothing to rewrite
    expect(decorrelate('SELECT a.x FROM a JOIN c ON a.x = c.x WHERE a.y IN (1, 2)')).toBeUndefined()
  })

  it('on a plan that was already decorrelated', () => {
    // the semi join it produced holds no subquery expression
    const once = decorrelateSubqueries.apply(bind('SELECT x FROM a WHERE x IN (SELECT k FROM c)'))!
    expect(applyRule(decorrelateSubqueries, once)).toBeUndefined()
  })

  it('on hand-built joins (semi joins are already the decorrelated form)', () => {
    // plain joins, no subquery expressions
    expect(applyRule(decorrelateSubqueries, project(join('semi', scan('c'), scan('d'), eq(col(1), col(2))), [col(0)]))).toBeUndefined()
  })
})

describe('decorrelate-subqueries through the domain of the outer values', () => {
  it('a correlated NOT IN: FALSE of the three-valued IN per outer row', () => {
    // per D value: the DISTINCT non-NULL values (match) and the row / non-NULL counts (NULL or empty)
    expect(decorrelate('SELECT x FROM a WHERE x NOT IN (SELECT b.x FROM b WHERE b.y = a.y)')).toMatchInlineSnapshot(`
      "Project #0
        Project #0, #1, #2
          Filter NOT CASE WHEN (#4 IS NOT NULL) THEN true WHEN (coalesce(#6, 0) = 0) THEN false WHEN ((#0 IS NULL) OR (coalesce(#6, 0) > coalesce(#7, 0))) THEN NULL ELSE false END
            Join left on (__null_safe_key(#1) = #5)
              Join left on ((__null_safe_key(#1) = #3) AND (#0 = #4))
                Scan a
                Distinct
                  Project __null_safe_key(#1), #0
                    Filter (#0 IS NOT NULL)
                      Project #0, #3
                        Filter (#1 = #3)
                          Join inner
                            Scan b
                            Distinct
                              Project #1
                                Scan a
              Aggregate group=[__null_safe_key(#1)] aggs=[count_rows(), count(#0)]
                Project #0, #3
                  Filter (#1 = #3)
                    Join inner
                      Scan b
                      Distinct
                        Project #1
                          Scan a"
    `)
  })

  it('correlation outside the subquery WHERE clause', () => {
    // the outer column is in the select list of the subquery: a GROUP BY also groups by D
    expect(decorrelate('SELECT x FROM a WHERE EXISTS (SELECT a.y FROM b GROUP BY a.y)')).toMatchInlineSnapshot(`
      "Project #0
        Join semi on (__null_safe_key(#1) = __null_safe_key(#4))
          Scan a
          Project #0, #1
            Project #0, #1
              Aggregate group=[#3, #3] aggs=[]
                Join inner
                  Scan b
                  Distinct
                    Project #1
                      Scan a"
    `)
  })

  it('a subquery nested in a correlated condition (correlation two levels out)', () => {
    // the middle subquery's WHERE holds a subquery that reads a, two queries out: D is pushed
    // into the middle one, whose own nested subquery then reads D's column one level out
    expect(decorrelate('SELECT x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.x = a.x))')).toMatchInlineSnapshot(`
      "Project #0
        Join semi on (__null_safe_key(#0) = __null_safe_key(#4))
          Scan a
          Project 1, #3
            Join semi on (#3 = #4)
              Join inner
                Scan b
                Distinct
                  Project #0
                    Scan a
              Scan c"
    `)
  })

  it('a correlated global aggregate keeps its one row per outer value (D LEFT JOIN input)', () => {
    // COUNT over no rows is 0: every aggregate is filtered on the matched marker
    expect(decorrelate('SELECT (SELECT count(*) + 1 FROM b WHERE b.x = a.x AND EXISTS (SELECT 1 FROM c WHERE c.k = b.y)) FROM a')).toMatchInlineSnapshot(`
      "Project int8_add(coalesce(#4, 0), 1)
        Join left on (#0 = #3)
          Scan a
          Aggregate group=[#0] aggs=[count_rows()]
            Join semi on (#1 = #4)
              Scan b
              Scan c"
    `)
  })

  it('uncorrelated scalar subqueries nested to any depth in one pass', () => {
    // the optimizer's pass limit no longer bounds the depth
    let q = 'SELECT 1'
    for (let i = 0; i < 15; i++) q = `SELECT (${q}) + 1`
    const once = decorrelateSubqueries.apply(bind(q))!
    expect(JSON.stringify(once)).not.toContain('"subquery"')
  })
})

describe('decorrelate-subqueries refuses (0A000) what it cannot rewrite', () => {
  it('a correlated subquery over a FULL JOIN', () => {
    // D cannot be pushed into both sides of a FULL JOIN and keep one value per row
    expect(refusal('SELECT (SELECT count(*) FROM b FULL JOIN c ON b.x = c.x AND c.k = a.y) FROM a')).toMatchInlineSnapshot(`"0A000 a correlated subquery with FULL JOIN is not supported yet"`)
  })
})
