// fold-constants: three-valued logic with constant operands is simplified in Filter, Project
// and Join expressions; Filter(TRUE) disappears and Filter(FALSE/NULL) becomes an empty Values.
import { describe, expect, it } from 'vitest'
import { foldConstants } from '../../../planner/rules/fold-constants.js'
import { applyRule, applySql, col, filter, join, lit, project, scan } from '../helpers.js'

const fold = (sql: string) => applySql(foldConstants, sql)

describe('fold-constants fires', () => {
  it('evaluates a row-constant CASE condition and drops the arm it makes unreachable (with the engine evaluator)', async () => {
    // CASE -59 WHEN 55 * -56 + 95 …: the comparison is FALSE, so only the ELSE is left
    await import('../../../src/sql-runtime/compile-scalar.js')
    expect(fold('SELECT CASE -59 WHEN 55 * -56 + 95 THEN x / 0 ELSE y END FROM a')).toMatchInlineSnapshot(`
      "Project #1
        Scan a"
    `)
  })

  it('ends a CASE at its first constant TRUE arm (the ELSE from there on)', () => {
    // as eval_const_expressions: the arms after WHEN TRUE are unreachable
    expect(fold("SELECT CASE WHEN x > 1 THEN 'a' WHEN true THEN 'b' WHEN y > 1 THEN 'c' END FROM a")).toMatchInlineSnapshot(`
      "Project CASE WHEN (#0 > 1) THEN 'a'::text ELSE 'b'::text END
        Scan a"
    `)
  })

  it('treats a NULL conjunct of a WHERE clause as FALSE (a qual, as canonicalize_qual)', () => {
    // NULL AND p is NULL or FALSE: a row is kept by neither, so p is never evaluated
    expect(fold('SELECT x FROM a WHERE x / 0 > 1 AND NULL')).toMatchInlineSnapshot(`
      "Project #0
        Values rows=0"
    `)
  })

  it('folds a BETWEEN with a NULL bound to FALSE in a qual', () => {
    // x BETWEEN NULL AND y = x >= NULL AND x <= y = NULL AND x <= y: FALSE in a WHERE clause
    expect(fold('SELECT x FROM a WHERE x + 1 BETWEEN NULL AND y')).toMatchInlineSnapshot(`
      "Project #0
        Values rows=0"
    `)
  })

  it('drops a NULL disjunct of a qual (x OR NULL keeps the rows x keeps)', () => {
    // in a qual NULL and FALSE keep the same rows, through the whole AND/OR tree
    expect(fold('SELECT x FROM a WHERE (y > 2 OR NULL) AND z IS NOT NULL')).toMatchInlineSnapshot(`
      "Project #0
        Filter ((#1 > 2) AND (#2 IS NOT NULL))
          Scan a"
    `)
  })

  it('pushes NOT over an AND/OR tree holding NULL (De Morgan), then folds the qual', () => {
    // NOT (NULL OR p) = NULL AND NOT p: FALSE in a qual
    expect(fold('SELECT x FROM a WHERE NOT (NULL OR y / 0 > 1)')).toMatchInlineSnapshot(`
      "Project #0
        Values rows=0"
    `)
  })

  it('folds a cast of NULL, a one-NULL IN list and COALESCE after a constant', () => {
    // CAST(NULL AS INT) + y > 1 is NULL; x IN (NULL) is x = NULL; COALESCE stops at 1
    expect(fold('SELECT x IN (NULL), COALESCE(x, NULL, 1, y) FROM a WHERE CAST(NULL AS INT) + y > 1 OR x > 0')).toMatchInlineSnapshot(`
      "Project NULL, coalesce(#0, 1)
        Filter (#0 > 0)
          Scan a"
    `)
  })

  it('turns a LEFT JOIN whose ON is NULL into its left side padded with NULLs', () => {
    // ON is a qual too: NULL AND p matches no row
    expect(fold('SELECT a.x, c.k FROM a LEFT JOIN c ON NULL AND a.x / 0 = c.x')).toMatchInlineSnapshot(`
      "Project #0, #4
        Project #0, #1, #2, NULL, NULL
          Scan a"
    `)
  })

  it('turns an INNER JOIN whose ON folds to FALSE into no rows', () => {
    // a.x + c.x > NULL is NULL
    expect(fold('SELECT a.x FROM a JOIN c ON a.x + c.x > NULL')).toMatchInlineSnapshot(`
      "Project #0
        Values rows=0"
    `)
  })

  it('drops a TRUE conjunct and keeps the rest of the WHERE clause', () => {
    // AND with a TRUE operand is the other operand
    expect(fold('SELECT x FROM a WHERE true AND y > 2')).toMatchInlineSnapshot(`
      "Project #0
        Filter (#1 > 2)
          Scan a"
    `)
  })

  it('removes a Filter whose predicate folds to TRUE', () => {
    // Filter(TRUE) keeps every row: its input is the result
    expect(fold('SELECT x FROM a WHERE y > 2 OR true')).toMatchInlineSnapshot(`
      "Project #0
        Scan a"
    `)
  })

  it('turns a Filter that folds to FALSE into an empty Values', () => {
    // AND with a FALSE operand is FALSE whatever the other operand is
    expect(fold('SELECT x FROM a WHERE y > 2 AND false')).toMatchInlineSnapshot(`
      "Project #0
        Values rows=0"
    `)
  })

  it('folds a strict operator with a NULL argument without evaluating the other one', () => {
    // (x / 0) = NULL is NULL for every row, so the division by zero never runs (as in Postgres)
    expect(fold('SELECT x FROM a WHERE x / 0 = NULL')).toMatchInlineSnapshot(`
      "Project #0
        Values rows=0"
    `)
  })

  it('turns a Filter that folds to NULL into an empty Values', () => {
    // WHERE keeps rows where the predicate is TRUE; NULL AND NULL is NULL
    expect(fold('SELECT x FROM a WHERE NULL AND NULL')).toMatchInlineSnapshot(`
      "Project #0
        Values rows=0"
    `)
  })

  it('keeps a NULL operand of AND that is not decided outside a qual (x AND NULL is NULL or FALSE)', () => {
    // only the FALSE operand is removed from OR; NULL stays because it matters in a select list
    expect(fold('SELECT (y > 2 OR false OR NULL) AND z IS NOT NULL FROM a')).toMatchInlineSnapshot(`
      "Project (((#1 > 2) OR NULL) AND (#2 IS NOT NULL))
        Scan a"
    `)
  })

  it('folds NOT of a constant and a double negation', () => {
    // NOT TRUE is FALSE, so the OR keeps only its other operand; NOT NOT p is p
    expect(fold('SELECT x FROM a WHERE NOT true OR NOT NOT (y > 1)')).toMatchInlineSnapshot(`
      "Project #0
        Filter (#1 > 1)
          Scan a"
    `)
  })

  it('folds IS [NOT] NULL of a literal', () => {
    // NULL IS NULL is TRUE and 1 IS NULL is FALSE in the select list
    expect(fold('SELECT NULL IS NULL, 1 IS NULL, x FROM a')).toMatchInlineSnapshot(`
      "Project true, false, #0
        Scan a"
    `)
  })

  it('drops CASE branches whose condition is a constant other than TRUE, and takes a leading TRUE branch', () => {
    // WHEN FALSE / WHEN NULL never match; a first WHEN TRUE always does
    expect(fold("SELECT CASE WHEN false THEN 'f' WHEN NULL THEN 'n' WHEN x > 1 THEN 'big' ELSE 'small' END, CASE WHEN true THEN y ELSE 0 END FROM a")).toMatchInlineSnapshot(`
      "Project CASE WHEN (#0 > 1) THEN 'big'::text ELSE 'small'::text END, #1
        Scan a"
    `)
  })

  it('takes the ELSE of a CASE whose every condition is constant and not TRUE', () => {
    // no branch can match
    expect(fold('SELECT CASE WHEN false THEN x WHEN NULL THEN y END FROM a')).toMatchInlineSnapshot(`
      "Project NULL
        Scan a"
    `)
  })

  it('folds COALESCE with a leading non-NULL literal and drops NULL literals before the last argument', () => {
    // COALESCE(7, …) is 7; COALESCE(NULL, x, NULL, y) is COALESCE(x, y)
    expect(fold('SELECT COALESCE(7, x), COALESCE(NULL, x, NULL, y) FROM a')).toMatchInlineSnapshot(`
      "Project 7, coalesce(#0, #1)
        Scan a"
    `)
  })

  it('removes a join condition that folds to TRUE (a cross join)', () => {
    // ON TRUE has no condition left
    expect(fold('SELECT * FROM a JOIN b ON true OR a.x = b.x')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5
        Join inner
          Scan a
          Scan b"
    `)
  })

  it('simplifies a join condition and keeps the equality', () => {
    // the TRUE conjunct goes, the equality stays for lowering to key on
    expect(fold('SELECT * FROM a LEFT JOIN b ON a.x = b.x AND true')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5
        Join left on (#0 = #3)
          Scan a
          Scan b"
    `)
  })

  it('folds below other nodes, bottom-up', () => {
    // the FALSE filter under the aggregate empties its input; the aggregate stays (a global
    // aggregate still has one row)
    expect(fold('SELECT count(*) FROM (SELECT x FROM a WHERE false) s')).toMatchInlineSnapshot(`
      "Project #0
        Aggregate global aggs=[count_rows()]
          Project #0
            Values rows=0"
    `)
  })

  it('keeps the type of the expression it replaces (the branch was coerced to the CASE type)', () => {
    // CASE WHEN TRUE THEN 1 ELSE 2.5 END is numeric; its folded value is the numeric 1
    // (applyRule checks that every projected expression keeps its column's type)
    expect(fold('SELECT CASE WHEN true THEN 1 ELSE 2.5 END FROM a')).toMatchInlineSnapshot(`
      "Project 1
        Scan a"
    `)
  })

  it('works on hand-built plans (Filter(NOT NULL) → no rows)', () => {
    // NOT NULL is NULL: no row passes
    const p = filter(scan('c'), { kind: 'not', arg: lit(null, 'boolean'), type: 'boolean' })
    expect(applyRule(foldConstants, p)).toMatchInlineSnapshot(`"Values rows=0"`)
  })
})

describe('fold-constants does not fire', () => {
  it('on expressions without constant logic', () => {
    // nothing to simplify: the rule reports no change (so the optimizer can stop)
    expect(fold('SELECT x + 1 FROM a WHERE y > 2 AND z IS NULL')).toBeUndefined()
  })

  it('on arithmetic of literals', () => {
    // 1 + 2 is evaluated when the expression is compiled, not by this rule
    expect(fold('SELECT 1 + 2 FROM a')).toBeUndefined()
  })

  it('folds a comparison of two literals', () => {
    // 1 = 1 is TRUE, so the filter disappears; 1 = 2 empties the relation
    expect(fold('SELECT x FROM a WHERE 1 = 1')).toBeDefined()
    expect(fold('SELECT x FROM a WHERE 1 = 1 AND x > 2')).toBeDefined()
  })

  it('on AND with a NULL operand next to a column outside a qual (NULL AND p is NULL or FALSE)', () => {
    // in a select list the NULL cannot be dropped and the result is not constant
    expect(fold('SELECT NULL AND y > 2 FROM a')).toBeUndefined()
  })

  it('on COALESCE whose first argument is not a literal', () => {
    // COALESCE(x, 0) depends on x; a trailing literal is the default, not foldable
    expect(fold('SELECT COALESCE(x, 0) FROM a')).toBeUndefined()
  })

  it('on CASE whose conditions are not constant', () => {
    // nothing is known before the rows arrive
    expect(fold("SELECT CASE WHEN x > 1 THEN 'a' WHEN y > 1 THEN 'b' END FROM a")).toBeUndefined()
  })

  it('on a join without a condition (a cross join)', () => {
    // nothing to fold
    expect(applyRule(foldConstants, join('inner', scan('a'), scan('c')))).toBeUndefined()
  })

  it('on IS NULL of a column', () => {
    // only literals have a known NULL-ness
    expect(applyRule(foldConstants, project(scan('c'), [{ kind: 'isNull', arg: col(0), negated: false, type: 'boolean' }]))).toBeUndefined()
  })
})
