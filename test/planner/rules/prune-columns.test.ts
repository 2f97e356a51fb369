// prune-columns: a Project or an Aggregate over a Join narrows each join input to the columns
// the consumer and the join condition read (semi/anti joins: only the right input), so the
// join's arrangements hold fewer columns. Bare scans stay whole: an arrangement of a scan
// shares the table's row objects, a narrowing projection would copy them.
import { describe, expect, it } from 'vitest'
import { pruneColumns } from '../../../planner/rules/prune-columns.js'
import { mergeProjections } from '../../../planner/rules/merge-projections.js'
import { applyRule, applySql, bind, col, eq, filter, gt, join, lit, project, scan } from '../helpers.js'

const prune = (sql: string) => applySql(pruneColumns, sql)
/** After merge-projections (a derived table's projection over its aggregate folds into ours). */
const merged = (sql: string) => applyRule(pruneColumns, mergeProjections.apply(bind(sql))!)
/** A scan with a filter on top: not a bare scan, so it can be narrowed. */
const filtered = (name: string) => filter(scan(name), gt(col(0), lit(0)))

describe('prune-columns fires', () => {
  it('drops the aggregates a projection does not read', () => {
    // only count(*) is read: sum(y) is never computed
    expect(merged('SELECT x, c FROM (SELECT x, sum(y) AS s, count(*) AS c FROM a GROUP BY x) t')).toMatchInlineSnapshot(`
      "Project #0, #1
        Aggregate group=[#0] aggs=[count_rows()]
          Scan a"
    `)
  })

  it('keeps one plain count in a global aggregate none of whose aggregates is read', () => {
    // CASE WHEN false … is folded away elsewhere; here the projection reads no aggregate
    expect(merged('SELECT 1 FROM (SELECT sum(x / 0) AS s FROM a) t')).toMatchInlineSnapshot(`
      "Project 1
        Aggregate global aggs=[count_rows()]
          Scan a"
    `)
  })

  it('narrows both (filtered) inputs of an inner join under a projection', () => {
    // a.z and b.w are never read; x is read by the condition, y by the projection
    expect(prune('SELECT a.y, b.y FROM (SELECT * FROM a WHERE x > 0) a JOIN (SELECT * FROM b WHERE x > 0) b ON a.x = b.x')).toMatchInlineSnapshot(`
      "Project #1, #3
        Join inner on (#0 = #2)
          Project #0, #1
            Project #0, #1, #2
              Filter (#0 > 0)
                Scan a
          Project #0, #1
            Project #0, #1, #2
              Filter (#0 > 0)
                Scan b"
    `)
  })

  it('narrows the inputs of a join under an aggregate (group keys, arguments, FILTER)', () => {
    // the aggregate reads a.x (group), b.y (argument) and a.y (FILTER); z and w go
    expect(prune('SELECT a.x, sum(b.y) FILTER (WHERE a.y > 0) FROM (SELECT * FROM a WHERE x > 0) a JOIN (SELECT * FROM b WHERE x > 0) b ON a.x = b.x GROUP BY a.x')).toMatchInlineSnapshot(`
      "Project #0, #1
        Aggregate group=[#0] aggs=[sum(#3)]
          Join inner on (#0 = #2)
            Project #0, #1
              Project #0, #1, #2
                Filter (#0 > 0)
                  Scan a
            Project #0, #1
              Project #0, #1, #2
                Filter (#0 > 0)
                  Scan b"
    `)
  })

  it('narrows one side and leaves a bare scan on the other side whole', () => {
    // the filtered a loses z; the scan of d keeps all its columns
    expect(applyRule(pruneColumns, project(join('inner', filtered('a'), scan('d'), eq(col(0), col(3))), [col(1), col(4)]))).toMatchInlineSnapshot(`
      "Project #1, #3
        Join inner on (#0 = #2)
          Project #0, #1
            Filter (#0 > 0)
              Scan a
          Scan d"
    `)
  })

  it('narrows the right side of a cross join to no columns (it only contributes multiplicity)', () => {
    // every row of c still pairs with every row of a
    expect(applyRule(pruneColumns, project(join('inner', filtered('a'), filtered('c')), [col(0)]))).toMatchInlineSnapshot(`
      "Project #0
        Join inner
          Project #0
            Filter (#0 > 0)
              Scan a
          Project 
            Filter (#0 > 0)
              Scan c"
    `)
  })

  it('narrows only the right input of a semi join', () => {
    // a semi join outputs all left columns, so the left side keeps them; the right keeps its key
    const p = project(join('semi', filtered('a'), filtered('b'), eq(col(0), col(3))), [col(2)], ['z'])
    expect(applyRule(pruneColumns, p)).toMatchInlineSnapshot(`
      "Project #2
        Join semi on (#0 = #3)
          Filter (#0 > 0)
            Scan a
          Project #0
            Filter (#0 > 0)
              Scan b"
    `)
  })

  it('narrows a join that is the input of a join (top-down: the new projection is a consumer too)', () => {
    // the projection narrows the outer join, whose new left projection narrows the inner join
    const inner = join('inner', filtered('a'), filtered('c'), eq(col(0), col(3)))
    const outer = join('inner', inner, filtered('d'), eq(col(4), col(5)))
    expect(applyRule(pruneColumns, project(outer, [col(2), col(6)]))).toMatchInlineSnapshot(`
      "Project #0, #3
        Join inner on (#1 = #2)
          Project #1, #3
            Join inner on (#0 = #2)
              Project #0, #2
                Filter (#0 > 0)
                  Scan a
              Filter (#0 > 0)
                Scan c
          Filter (#0 > 0)
            Scan d"
    `)
  })
})

describe('prune-columns does not fire', () => {
  it('when both join inputs are bare scans', () => {
    // the arrangements share the tables' rows; narrowing would copy them
    expect(prune('SELECT a.y, b.y FROM a JOIN b ON a.x = b.x')).toBeUndefined()
  })

  it('when the consumer and the condition read every column', () => {
    // nothing to drop
    expect(applyRule(pruneColumns, project(join('inner', filtered('c'), filtered('d'), eq(col(1), col(2))), [col(0), col(1), col(3)]))).toBeUndefined()
  })

  it('on a join without a Project or Aggregate on top', () => {
    // a Filter is not a consumer that decides the output columns
    const p = filter(join('inner', filtered('a'), filtered('d'), eq(col(1), col(3))), gt(col(0), lit(1)))
    expect(applyRule(pruneColumns, p)).toBeUndefined()
  })

  it('on a projection over a scan', () => {
    // only join inputs are narrowed
    expect(prune('SELECT x FROM a')).toBeUndefined()
  })

  it('on a semi join whose right side has only the key', () => {
    // the left side is never narrowed; the right has nothing else to drop
    const p = project(join('semi', filtered('a'), project(filtered('c'), [col(0)], ['x']), eq(col(0), col(3))), [col(2)], ['z'])
    expect(applyRule(pruneColumns, p)).toBeUndefined()
  })

  it('when the consumer holds a subquery', () => {
    // its column uses are not known before decorrelation
    expect(prune('SELECT a.x, (SELECT max(k) FROM d) FROM (SELECT * FROM a WHERE y > 0) a JOIN (SELECT * FROM c WHERE k > 0) c ON a.x = c.x')).toBeUndefined()
  })
})
