// The optimizer runs DEFAULT_RULES to a fixpoint. On tricky queries (comma joins of five
// tables with mixed predicates, nested subqueries, outer joins with filters, …) it must stop
// because nothing changes any more — not because it ran out of passes — without any rule
// undoing another (no plan seen twice), and with the output columns of the bound query.
import { describe, expect, it } from 'vitest'
import { DEFAULT_RULES, lower, optimize, visitExpr } from '../../planner/index.js'
import type { LogicalPlan, OptimizeTrace, Rule } from '../../planner/index.js'
import { RivuletError } from '../../grammar/index.js'
import { bind, col, project, scan, show } from './helpers.js'
import { children } from '../../planner/logical/tree.js'

const TRICKY: Record<string, string> = {
  'five-table comma join, mixed predicates':
    "SELECT a.z, b.w, e.q FROM a, b, c, d, e WHERE a.x = c.x AND b.y = c.k AND c.k = d.k AND d.v = e.v AND a.y > b.y AND e.q < 10 AND (a.z = 'x' OR b.w = 'y') AND true",
  'five-table comma join, first relation unconnected':
    'SELECT * FROM e, a, b, c, d WHERE a.x = b.x AND b.y = c.k AND c.k = d.k AND e.q > d.v',
  'five-table comma join without equalities':
    'SELECT a.x, e.q FROM a, b, c, d, e WHERE a.x < b.x AND b.y < c.k AND c.k <> d.k AND d.v >= e.v',
  'cross joins only': 'SELECT * FROM a, c, d',
  // one decorrelation pass per level: more levels than the 10 passes it used to get
  'scalar subqueries nested twenty deep': `SELECT ${'(SELECT '.repeat(20)}x FROM a${')'.repeat(20)}`,
  'join chain with constant predicates':
    'SELECT * FROM a JOIN b ON a.x = b.x AND true JOIN c ON (c.k = 1 OR false) AND b.y = c.x WHERE NOT NOT (a.y > 0)',
  'nested subqueries':
    'SELECT x FROM a WHERE x IN (SELECT k FROM c WHERE EXISTS (SELECT 1 FROM d WHERE d.k = c.k)) AND y > (SELECT avg(v) FROM d WHERE d.k IN (SELECT k FROM c))',
  'correlated subqueries in the select list over a join':
    'SELECT a.x, (SELECT count(*) FROM b WHERE b.x = a.x), (SELECT max(k) FROM c WHERE c.x = a.x) FROM a, d WHERE a.y = d.k',
  'EXISTS under OR and NOT IN':
    'SELECT z FROM a WHERE (EXISTS (SELECT 1 FROM b WHERE b.x = a.x) OR y > 5) AND x NOT IN (SELECT k FROM c)',
  'non-equality correlation':
    'SELECT x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.y < a.y AND b.x = a.x) AND NOT EXISTS (SELECT 1 FROM c WHERE c.k > a.x)',
  'outer joins with filters':
    'SELECT * FROM a LEFT JOIN b ON a.x = b.x AND b.y > 1 RIGHT JOIN c ON c.x = a.x WHERE c.k > 0 AND (b.w IS NULL OR a.y < 3)',
  'full join with filters on both sides':
    'SELECT * FROM a FULL JOIN b ON a.x = b.x AND a.y < b.y WHERE a.z IS NOT NULL OR b.w IS NOT NULL',
  'outer join inside a comma join':
    'SELECT a.z, d.v FROM a LEFT JOIN b ON a.x = b.x, c, d WHERE c.k = d.k AND d.v = a.y AND b.w IS NULL',
  'aggregate over a join, joined again':
    'SELECT s.g, s.n, c.k FROM (SELECT a.x AS g, count(*) AS n FROM a, b WHERE a.x = b.x GROUP BY a.x HAVING a.x > 0) s, c WHERE s.g = c.x AND s.n > 1',
  'union of filtered joins under a filter':
    'SELECT * FROM (SELECT a.x, b.y FROM a, b WHERE a.x = b.x UNION ALL SELECT c.x, d.v FROM c JOIN d ON c.k = d.k) u WHERE y > 2',
  'set operations and distinct':
    'SELECT x FROM a WHERE y > 0 EXCEPT SELECT x FROM (SELECT DISTINCT x, k FROM c) s WHERE k < 3 INTERSECT ALL SELECT k FROM d',
  'top-N and row_number over joins':
    'SELECT * FROM (SELECT a.x, b.w, ROW_NUMBER() OVER (PARTITION BY a.x ORDER BY b.y DESC) AS rn FROM a, b WHERE a.x = b.x) s WHERE rn <= 2 ORDER BY x LIMIT 5',
  'stacked derived tables':
    'SELECT q + 1 AS r FROM (SELECT p * 2 AS q FROM (SELECT x + y AS p, z FROM a WHERE z IS NOT NULL) s1 WHERE p > 0) s2 WHERE q < 100',
}

function hasSubquery(p: LogicalPlan): boolean {
  let found = false
  const exprs = p.kind === 'filter' ? [p.predicate] : p.kind === 'project' ? p.exprs : p.kind === 'join' && p.condition ? [p.condition] : []
  for (const e of exprs) visitExpr(e, (x) => void (x.kind === 'subquery' && (found = true)))
  return found || children(p).some(hasSubquery)
}

describe('optimize reaches a fixpoint on tricky queries', () => {
  for (const [name, sql] of Object.entries(TRICKY)) {
    it(name, () => {
      const bound = bind(sql)
      const trace: OptimizeTrace[] = []
      const out = optimize(bound, DEFAULT_RULES, trace)
      // a fixpoint: no rule changes the result any more (so it did not stop at maxPasses)
      for (const rule of DEFAULT_RULES) expect(rule.apply(out), `${rule.name} still fires`).toBeUndefined()
      // no rule undoes another, and no rule reports a change that changes nothing
      const seen = [show(bound), ...trace.map((t) => t.plan)]
      expect(new Set(seen).size, seen.join('\n----\n')).toBe(seen.length)
      // far below the default 10 passes × 6 rules (a rewrite or two per subquery level)
      expect(trace.length).toBeLessThan(20 + 2 * (sql.match(/\(SELECT/g)?.length ?? 0))
      // the same output columns, names and types
      expect(out.columns).toEqual(bound.columns)
      // the result is what lowering expects: no subquery expressions left
      expect(hasSubquery(out)).toBe(false)
      expect(() => lower(out)).not.toThrow()
      // more passes change nothing
      expect(show(optimize(bound, DEFAULT_RULES, undefined, 100))).toBe(show(out))
    })
  }
})

describe('optimize goldens', () => {
  it('five-table comma join: every join keyed, filters at their lowest join, columns pruned', () => {
    expect(show(optimize(bind(TRICKY['five-table comma join, mixed predicates']!)))).toMatchInlineSnapshot(`
      "Project #0, #1, #4
        Join inner on ((#2 = #3) AND (#4 < 10))
          Project #0, #2, #4
            Join inner on (#1 = #3)
              Project #1, #2, #5
                Join inner on ((#4 = #2) AND (#0 > #4) AND ((#1 = 'x'::text) OR (#5 = 'y'::text)))
                  Project #1, #2, #4
                    Join inner on (#0 = #3)
                      Scan a
                      Scan c
                  Scan b
              Scan d
          Scan e"
    `)
  })

  it('outer joins: filters stay above the side they would change', () => {
    expect(show(optimize(bind(TRICKY['outer joins with filters']!)))).toMatchInlineSnapshot(`
      "Filter ((#5 IS NULL) OR (#1 < 3))
        Join right on (#6 = #0)
          Join left on ((#0 = #3) AND (#4 > 1))
            Scan a
            Scan b
          Filter (#1 > 0)
            Scan c"
    `)
  })

  it('nested subqueries become semi joins and a cross join with a one-row aggregate', () => {
    expect(show(optimize(bind(TRICKY['nested subqueries']!)))).toMatchInlineSnapshot(`
      "Project #0
        Join inner on (#1::numeric > #2)
          Project #0, #1
            Join semi on (#0 = #3)
              Scan a
              Project #1
                Join semi on (#1 = #2)
                  Scan c
                  Scan d
          Aggregate global aggs=[single_value(#0)]
            Aggregate global aggs=[avg(#1)]
              Join semi on (#0 = #2)
                Scan d
                Project #1
                  Scan c"
    `)
  })
})

describe('optimize guards', () => {
  it('stops after maxPasses when rules keep undoing each other', () => {
    // two rules that flip a projection's column name back and forth never reach a fixpoint
    const rename = (from: string, to: string): Rule => ({
      name: `rename-${from}`,
      apply: (p) => (p.kind === 'project' && p.columns[0]!.name === from ? { ...p, columns: [{ ...p.columns[0]!, name: to }] } : undefined),
    })
    const trace: OptimizeTrace[] = []
    optimize(project(scan('c'), [col(0)], ['p']), [rename('p', 'q'), rename('q', 'p')], trace, 3)
    expect(trace.map((t) => t.rule)).toEqual(['rename-p', 'rename-q', 'rename-p', 'rename-q', 'rename-p', 'rename-q'])
  })

  it('refuses a rule that changes the output column types (internal error XX000)', () => {
    const widen: Rule = { name: 'widen', apply: (p) => (p.columns[0]!.type === 'integer' ? project(p, [{ kind: 'cast', arg: col(0), type: 'bigint' }]) : undefined) }
    let err: unknown
    try {
      optimize(scan('c'), [widen])
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(RivuletError)
    expect((err as RivuletError).code).toBe('XX000')
    expect((err as RivuletError).message).toMatch(/widen changed the output columns/)
  })
})
