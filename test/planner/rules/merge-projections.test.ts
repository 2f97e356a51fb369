// merge-projections: Project(Project(x)) becomes one Project with the inner expressions
// substituted, unless an inner computed expression would be evaluated twice; a Project that
// passes its input through unchanged (same columns, same names) disappears.
import { describe, expect, it } from 'vitest'
import { mergeProjections } from '../../../planner/rules/merge-projections.js'
import { applyRule, applySql, call, col, filter, gt, lit, project, scan } from '../helpers.js'

const merge = (sql: string) => applySql(mergeProjections, sql)
const add = (l: ReturnType<typeof col>, r: ReturnType<typeof col>) => call('int4_add', [l, r], 'integer')

describe('merge-projections fires', () => {
  it('substitutes an inner projection into the outer one', () => {
    // x1 + 1 over (x + 1 AS x1) is (x + 1) + 1 over the scan
    expect(merge('SELECT x1 + 1 AS x2 FROM (SELECT x + 1 AS x1, y FROM a) s')).toMatchInlineSnapshot(`
      "Project int4_add(int4_add(#0, 1), 1)
        Scan a"
    `)
  })

  it('removes an identity projection (same columns in the same order, same names)', () => {
    // SELECT * over a derived table is a pass-through
    const p = project(scan('c'), [col(0), col(1)], ['x', 'k'])
    expect(applyRule(mergeProjections, p)).toMatchInlineSnapshot(`"Scan c"`)
  })

  it('merges when an inner plain column is used twice', () => {
    // duplicating a column reference costs nothing
    const inner = project(scan('a'), [col(1), add(col(0), lit(1))])
    expect(applyRule(mergeProjections, project(inner, [col(0), col(0), col(1)]))).toMatchInlineSnapshot(`
      "Project #1, #1, int4_add(#0, 1)
        Scan a"
    `)
  })

  it('merges when an inner literal is used twice', () => {
    // a literal is as cheap as a column
    const inner = project(scan('c'), [col(0), lit(5)])
    expect(applyRule(mergeProjections, project(inner, [add(col(1), col(1)), col(0)]))).toMatchInlineSnapshot(`
      "Project int4_add(5, 5), #0
        Scan c"
    `)
  })

  it('merges a chain of three projections bottom-up', () => {
    // each merge happens once per pass; bottom-up, all three become one
    const p = project(project(project(scan('c'), [add(col(0), col(1)), col(1)]), [col(1), col(0)]), [col(1)])
    expect(applyRule(mergeProjections, p)).toMatchInlineSnapshot(`
      "Project int4_add(#0, #1)
        Scan c"
    `)
  })
})

describe('merge-projections does not fire', () => {
  it('when an inner computed expression is used twice by the outer projection', () => {
    // x1 * x1 would evaluate x + 1 twice per row
    expect(merge('SELECT x1 * x1 AS sq FROM (SELECT x + 1 AS x1 FROM a) s')).toBeUndefined()
  })

  it('on a projection that renames columns', () => {
    // same positions but other names: the names are part of the output
    expect(applyRule(mergeProjections, project(scan('c'), [col(0), col(1)], ['x', 'kk']))).toBeUndefined()
  })

  it('on a projection that reorders or drops columns over a non-projection', () => {
    // not an identity, and there is no inner projection to merge with
    expect(applyRule(mergeProjections, project(filter(scan('a'), gt(col(0), lit(0))), [col(1), col(0)], ['y', 'x']))).toBeUndefined()
  })

  it('on projections holding subqueries', () => {
    // decorrelation rewrites those first; merging would move the subquery
    expect(merge('SELECT s.v FROM (SELECT (SELECT max(k) FROM c) AS v, x FROM a) s')).toBeUndefined()
  })

  it('on a plan without projections', () => {
    // nothing to merge
    expect(applyRule(mergeProjections, filter(scan('c'), gt(col(0), lit(1))))).toBeUndefined()
  })
})
