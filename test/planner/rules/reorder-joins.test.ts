// reorder-joins: a tree of inner joins with the filters on it is flattened into relations and
// conjuncts and rebuilt left-deep: start with the first relation, then always take a relation
// connected to the joined ones by an equality (else the next in FROM order), and put every
// conjunct at the first join where all its columns are present. A projection on top restores
// the original column order.
import { describe, expect, it } from 'vitest'
import { reorderJoins } from '../../../planner/rules/reorder-joins.js'
import { applyRule, applySql, bind, col, eq, filter, gt, join, lit, project, scan } from '../helpers.js'

const reorder = (sql: string) => applySql(reorderJoins, sql)

describe('reorder-joins fires', () => {
  it('joins a relation connected by an equality before an unconnected one', () => {
    // FROM a, b, c with a–c and b–c equalities: a ⋈ c first, then b; no a × b cross product
    expect(reorder('SELECT a.z, b.w FROM a, b, c WHERE a.x = c.x AND b.y = c.k')).toMatchInlineSnapshot(`
      "Project #2, #5
        Project #0, #1, #2, #5, #6, #7, #3, #4
          Join inner on (#6 = #4)
            Join inner on (#0 = #3)
              Scan a
              Scan c
            Scan b"
    `)
  })

  it('turns WHERE equalities of a two-table comma join into the join condition', () => {
    // the cross product with a filter on top becomes a keyed join
    expect(reorder('SELECT * FROM a, b WHERE a.x = b.x')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5
        Project #0, #1, #2, #3, #4, #5
          Join inner on (#0 = #3)
            Scan a
            Scan b"
    `)
  })

  it('puts a conjunct on the first relation below the joins, and one on a later relation into the ON that adds it', () => {
    // a.y > 1 only needs a: it filters a before any join; c.k < 5 is ready when c is joined
    // (lowering turns that one-sided ON conjunct into a filter on c)
    expect(reorder('SELECT * FROM a, c WHERE a.x = c.x AND a.y > 1 AND c.k < 5')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4
        Project #0, #1, #2, #3, #4
          Join inner on ((#0 = #3) AND (#4 < 5))
            Filter (#1 > 1)
              Scan a
            Scan c"
    `)
  })

  it('moves an ON condition of an explicit INNER JOIN chain to the join where its columns meet', () => {
    // a JOIN b ON true JOIN c ON a.x = c.x AND b.x = c.x: c is connected to a, so a ⋈ c first
    expect(reorder('SELECT a.x, b.w, c.k FROM a JOIN b ON true JOIN c ON a.x = c.x AND b.x = c.x')).toMatchInlineSnapshot(`
      "Project #0, #5, #7
        Project #0, #1, #2, #5, #6, #7, #3, #4
          Join inner on (#5 = #3)
            Join inner on (#0 = #3)
              Scan a
              Scan c
            Scan b"
    `)
  })

  it('keeps a non-equality between two relations as a join condition where both are present', () => {
    // a.y < d.v is no join key but is placed at the first join that has a and d
    expect(reorder('SELECT * FROM a, c, d WHERE a.x = c.x AND c.k = d.k AND a.y < d.v')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5, #6
        Project #0, #1, #2, #3, #4, #5, #6
          Join inner on ((#4 = #5) AND (#1 < #6))
            Join inner on (#0 = #3)
              Scan a
              Scan c
            Scan d"
    `)
  })

  it('treats an outer join as one relation of the inner join tree', () => {
    // (a LEFT JOIN b) is a unit; c joins it on an equality with a
    expect(reorder('SELECT * FROM a LEFT JOIN b ON a.x = b.x, c, d WHERE c.k = d.k AND d.v = a.y')).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5, #6, #7, #8, #9
        Project #0, #1, #2, #3, #4, #5, #8, #9, #6, #7
          Join inner on (#9 = #6)
            Join inner on (#7 = #1)
              Join left on (#0 = #3)
                Scan a
                Scan b
              Scan d
            Scan c"
    `)
  })

  it('places a constant conjunct on the first relation', () => {
    // a conjunct without columns is ready before any join
    const p = filter(join('inner', join('inner', scan('a'), scan('c')), scan('d')), gt(lit(1), lit(0)))
    expect(applyRule(reorderJoins, p)).toMatchInlineSnapshot(`
      "Project #0, #1, #2, #3, #4, #5, #6
        Join inner
          Join inner
            Filter (1 > 0)
              Scan a
            Scan c
          Scan d"
    `)
  })
})

describe('reorder-joins does not fire', () => {
  it('on a join that already has its conjunct at the lowest join', () => {
    // rebuilding would give the same tree (firing would make the optimizer loop)
    expect(reorder('SELECT * FROM a JOIN c ON a.x = c.x')).toBeUndefined()
  })

  it('on its own output (a second application changes nothing)', () => {
    // the rebuilt tree is left-deep with every conjunct in place
    const once = reorderJoins.apply(bind('SELECT a.z, b.w FROM a, b, c WHERE a.x = c.x AND b.y = c.k AND a.y > 1'))!
    expect(once).toBeDefined()
    expect(applyRule(reorderJoins, once)).toBeUndefined()
  })

  it('on a single relation with a filter', () => {
    // no join to reorder
    expect(reorder('SELECT x FROM a WHERE y > 1')).toBeUndefined()
  })

  it('on outer joins', () => {
    // only inner joins commute freely; a LEFT JOIN keeps its shape
    expect(reorder('SELECT * FROM a LEFT JOIN b ON a.x = b.x LEFT JOIN c ON b.y = c.k')).toBeUndefined()
  })

  it('on semi and anti joins', () => {
    // not inner joins
    expect(applyRule(reorderJoins, join('semi', scan('c'), scan('d'), eq(col(1), col(2))))).toBeUndefined()
  })

  it('on a join tree whose conjuncts hold subqueries', () => {
    // decorrelation comes first; the rule leaves such trees alone
    expect(reorder('SELECT * FROM a, c WHERE a.x = c.x AND a.y IN (SELECT v FROM d)')).toBeUndefined()
  })

  it('on a left-deep chain already in connected order', () => {
    // a ⋈ c ⋈ d on a.x = c.x, c.k = d.k: the greedy order is the FROM order
    const p = project(join('inner', join('inner', scan('a'), scan('c'), eq(col(0), col(3))), scan('d'), eq(col(4), col(5))), [col(2)])
    expect(applyRule(reorderJoins, p)).toBeUndefined()
  })
})
