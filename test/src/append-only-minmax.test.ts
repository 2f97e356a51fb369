// MIN / MAX over insert-only inputs keep only the extreme (ivm/aggregators/min-max-append.ts,
// chosen by planner/lower/insert-only.ts). Here, through the engine:
// - the property: random insert-only batches into a STREAM and an APPEND ONLY table (NULLs,
//   INT, DOUBLE PRECISION, TEXT, TIMESTAMP, NUMERIC; auto-committed, in committed blocks, in
//   rolled-back blocks, through db.insert) keep every view equal, after every tick, to its
//   query recomputed ad hoc and to the same view over mutable tables holding the same rows
//   (which keeps the retractable MIN / MAX): the append-only and the retractable form agree;
// - which plans get the append-only form: EXPLAIN marks it `[append-only]`, and every input
//   that can retract (a mutable table, joins, temporal filters, DISTINCT, set operations,
//   outer joins, subqueries, top-k, a reduce's output, a view) keeps the retractable form.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import type { ResultValue } from '../../src/index.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const NUM_RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || undefined
const params = (numRuns: number) => ({ numRuns: NUM_RUNS ?? numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) })

const COLUMNS = '(g INT, i INT, d DOUBLE PRECISION, t TEXT, ts TIMESTAMP, n NUMERIC)'

/** The view queries over a source `$S` (and `$A`, a second one, for UNION ALL). */
const QUERIES: readonly string[] = [
  'SELECT g, MIN(i) AS i0, MAX(i) AS i1, MIN(d) AS d0, MAX(d) AS d1, MIN(t) AS t0, MAX(t) AS t1, MIN(ts) AS ts0, MAX(ts) AS ts1, MIN(n) AS n0, MAX(n) AS n1, COUNT(*) FROM $S GROUP BY g',
  'SELECT MIN(t) AS t0, MAX(n) AS n1, MAX(ts) FILTER (WHERE i > 0) AS ts1, MIN(d) AS d0 FROM $S',
  "SELECT window_start, g, MAX(d) AS d1, MIN(t) AS t0, MAX(n) AS n1 FROM TUMBLE($S, ts, INTERVAL '1' MINUTE) GROUP BY window_start, g",
  'SELECT g, MAX(x) AS x1, MIN(x) AS x0 FROM (SELECT g, i AS x FROM $S WHERE d > 0 UNION ALL SELECT g, i * 2 FROM $A) AS u GROUP BY g',
  'SELECT g % 2 AS parity, MAX(t || \'!\') AS t1, MIN(n * 2) AS n0 FROM $A WHERE ts IS NOT NULL GROUP BY g % 2 HAVING COUNT(*) > 1',
]

type Value = number | string | null
/** One row as SQL literals in COLUMNS order. */
type Literals = readonly string[]

const lit = (v: Value): string => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v}'`)

const rowArb: fc.Arbitrary<Literals> = fc
  .tuple(
    fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }),
    fc.option(fc.integer({ min: -50, max: 50 }), { freq: 4 }),
    fc.option(fc.oneof(fc.integer({ min: -40, max: 40 }).map((k) => k / 4), fc.constantFrom(1e300, -1e-300, 123456.789)), { freq: 4 }),
    fc.option(fc.constantFrom('', 'a', 'A', 'ab', 'b', 'zz', 'é', 'a b'), { freq: 4 }),
    fc.option(fc.integer({ min: 0, max: 300 }), { freq: 4 }),
    // equal NUMERIC values in different forms (1.5, 1.50) compare equal
    fc.option(fc.constantFrom('0', '1.5', '1.50', '-2.25', '100', '0.001', '99999999999999999999.5'), { freq: 4 }),
  )
  .map(([g, i, d, t, s, n]) => [lit(g), lit(i), d === null ? 'NULL' : `CAST(${d} AS DOUBLE PRECISION)`, lit(t), s === null ? 'NULL' : `TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '${s}' SECOND`, n === null ? 'NULL' : `CAST('${n}' AS NUMERIC)`])

type Tick =
  | { readonly kind: 'insert'; readonly into: 's' | 'a'; readonly rows: readonly Literals[] }
  | { readonly kind: 'block'; readonly commit: boolean; readonly s: readonly Literals[]; readonly a: readonly Literals[] }

const tickArb: fc.Arbitrary<Tick> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), into: fc.constantFrom('s' as const, 'a' as const), rows: fc.array(rowArb, { minLength: 1, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('block' as const), commit: fc.boolean(), s: fc.array(rowArb, { maxLength: 4 }), a: fc.array(rowArb, { maxLength: 4 }) }) },
)

const canonical = (rows: readonly (readonly ResultValue[])[]): string[] => rows.map((r) => JSON.stringify(r)).sort()

const insertSql = (table: string, rows: readonly Literals[]): string => `INSERT INTO ${table} VALUES ${rows.map((r) => `(${r.join(', ')})`).join(', ')}`

describe('append-only MIN / MAX through the engine (property)', () => {
  it('every view = its recompute = the same view over mutable tables, after every tick', () => {
    fc.assert(
      fc.property(fc.array(tickArb, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 2 }), (ticks, createAt) => {
        const db = Engine.open()
        db.execute(`CREATE STREAM s ${COLUMNS}`)
        db.execute(`CREATE TABLE a ${COLUMNS} APPEND ONLY`)
        // the mutable twins: the same rows, the retractable MIN / MAX
        db.execute(`CREATE TABLE ms ${COLUMNS}`)
        db.execute(`CREATE TABLE ma ${COLUMNS}`)
        const views: { name: string; sql: string; twin: string }[] = []
        const createViews = (): void => {
          QUERIES.forEach((q, k) => {
            const sql = q.replaceAll('$S', 's').replaceAll('$A', 'a')
            db.execute(`CREATE MATERIALIZED VIEW v${k} AS ${sql}`)
            db.execute(`CREATE MATERIALIZED VIEW m${k} AS ${q.replaceAll('$S', 'ms').replaceAll('$A', 'ma')}`)
            const plan = db.query(`EXPLAIN MATERIALIZED VIEW v${k}`).rows.map((r) => String(r[0])).join('\n')
            expect(plan, `v${k}`).toContain('[append-only]')
            expect(db.query(`EXPLAIN MATERIALIZED VIEW m${k}`).rows.map((r) => String(r[0])).join('\n')).not.toContain('[append-only]')
            views.push({ name: `v${k}`, sql, twin: `m${k}` })
          })
        }
        const check = (when: string): void => {
          for (const v of views) {
            const got = canonical(db.query(`SELECT * FROM ${v.name}`).rows)
            expect(got, `${v.name} vs recompute ${when}`).toEqual(canonical(db.query(v.sql).rows))
            expect(got, `${v.name} vs ${v.twin} ${when}`).toEqual(canonical(db.query(`SELECT * FROM ${v.twin}`).rows))
          }
        }
        ticks.forEach((tick, n) => {
          if (n === createAt) createViews()
          if (tick.kind === 'insert') {
            db.execute(insertSql(tick.into, tick.rows))
            db.execute(insertSql(tick.into === 's' ? 'ms' : 'ma', tick.rows))
          } else {
            db.execute('BEGIN')
            if (tick.s.length > 0) db.execute(`${insertSql('s', tick.s)}; ${insertSql('ms', tick.s)}`)
            if (tick.a.length > 0) db.execute(`${insertSql('a', tick.a)}; ${insertSql('ma', tick.a)}`)
            // inside the block the views already see its rows
            check(`inside block ${n}`)
            db.execute(tick.commit ? 'COMMIT' : 'ROLLBACK')
          }
          check(`after tick ${n} (${tick.kind})`)
        })
        if (views.length === 0) {
          createViews()
          check('after a backfill')
        }
        db.close()
      }),
      params(40),
    )
  })
})

/** The EXPLAIN text of a query. */
function plan(db: Engine, sql: string): string {
  return db
    .query(`EXPLAIN ${sql}`)
    .rows.map((r) => String(r[0]))
    .join('\n')
}

function engine(): Engine {
  const db = Engine.open({ clock: () => Date.UTC(2024, 0, 1, 12) })
  db.execute(`CREATE STREAM s ${COLUMNS}`)
  db.execute(`CREATE STREAM s2 ${COLUMNS}`)
  db.execute(`CREATE TABLE a ${COLUMNS} APPEND ONLY`)
  db.execute(`CREATE TABLE ks (id INT PRIMARY KEY, g INT, i INT) APPEND ONLY`)
  db.execute(`CREATE TABLE m ${COLUMNS}`)
  db.execute(`CREATE TABLE k (id INT PRIMARY KEY, g INT, i INT)`)
  db.execute(`CREATE STREAM ws (g INT, i INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)`)
  db.execute('CREATE MATERIALIZED VIEW sv AS SELECT g, i FROM s')
  return db
}

describe('which MIN / MAX are planned append-only', () => {
  const positive: [string, string][] = [
    ['a stream', 'SELECT g, MAX(i) FROM s GROUP BY g'],
    ['an APPEND ONLY table', 'SELECT g, MIN(t) FROM a GROUP BY g'],
    ['an APPEND ONLY table with a key (replacing upserts are refused)', 'SELECT g, MIN(i) FROM ks GROUP BY g'],
    ['a global aggregate', 'SELECT MIN(i), MAX(n) FROM s'],
    ['filters and projections', 'SELECT g * 2, MAX(i + 1) FROM s WHERE d > 0 AND t IS NOT NULL GROUP BY g * 2'],
    ['TUMBLE', "SELECT window_start, MAX(i) FROM TUMBLE(s, ts, INTERVAL '1' MINUTE) GROUP BY window_start"],
    ['HOP', "SELECT window_start, MIN(i) FROM HOP(ws, ts, INTERVAL '1' SECOND, INTERVAL '3' SECOND) GROUP BY window_start"],
    ['UNION ALL of insert-only inputs', 'SELECT g, MAX(i) FROM (SELECT g, i FROM s UNION ALL SELECT g, i FROM a UNION ALL VALUES (1, 2)) AS u GROUP BY g'],
  ]
  for (const [what, sql] of positive) {
    it(`over ${what}`, () => {
      const db = engine()
      expect(plan(db, sql)).toMatch(/(max|min)\(.*\) \[append-only\]/)
      db.close()
    })
  }
  const negative: [string, string][] = [
    ['a mutable table', 'SELECT g, MAX(i) FROM m GROUP BY g'],
    ['a table with a primary key (an UPDATE is −old +new)', 'SELECT g, MAX(i) FROM k GROUP BY g'],
    ['a stream joined with a table', 'SELECT s.g, MAX(s.i) FROM s JOIN m ON m.g = s.g GROUP BY s.g'],
    ['a stream joined with a stream', 'SELECT s.g, MAX(s.i) FROM s JOIN s2 ON s2.g = s.g GROUP BY s.g'],
    ['a stream left-joined with a table', 'SELECT s.g, MAX(m.i) FROM s LEFT JOIN m ON m.g = s.g GROUP BY s.g'],
    ['a temporal filter (rows expire)', "SELECT g, MAX(i) FROM s WHERE ts > now() - INTERVAL '1' HOUR GROUP BY g"],
    ['DISTINCT', 'SELECT g, MAX(i) FROM (SELECT DISTINCT g, i FROM s) AS d GROUP BY g'],
    ['EXCEPT', 'SELECT g, MAX(i) FROM (SELECT g, i FROM s EXCEPT SELECT g, i FROM a) AS e GROUP BY g'],
    ['INTERSECT ALL', 'SELECT g, MAX(i) FROM (SELECT g, i FROM s INTERSECT ALL SELECT g, i FROM a) AS e GROUP BY g'],
    ['a semi join (IN subquery)', 'SELECT g, MAX(i) FROM s WHERE g IN (SELECT g FROM m) GROUP BY g'],
    ['an anti join over a stream (NOT EXISTS)', 'SELECT g, MAX(i) FROM s WHERE NOT EXISTS (SELECT 1 FROM s2 WHERE s2.g = s.g) GROUP BY g'],
    ['a top-k', 'SELECT g, MAX(i) FROM (SELECT g, i FROM s ORDER BY i LIMIT 3) AS t GROUP BY g'],
    ['a view over a stream', 'SELECT g, MAX(i) FROM sv GROUP BY g'],
    ['UNION ALL with a mutable table', 'SELECT g, MAX(i) FROM (SELECT g, i FROM s UNION ALL SELECT g, i FROM m) AS u GROUP BY g'],
    ['a session window', "SELECT window_start, MAX(i) FROM SESSION(ws, ts, INTERVAL '5' SECOND) GROUP BY window_start, window_end"],
  ]
  for (const [what, sql] of negative) {
    it(`not over ${what}`, () => {
      const db = engine()
      const text = plan(db, sql)
      expect(text).not.toContain('[append-only]')
      db.close()
    })
  }
  it("a reduce's output is not insert-only, though the inner reduce over a stream is", () => {
    const db = engine()
    const lines = plan(db, 'SELECT MAX(top) FROM (SELECT g, MAX(i) AS top FROM s GROUP BY g) AS t').split('\n')
    expect(lines[0]).toMatch(/^Reduce key=\[\] aggs=\[max\(#1\)\]/)
    expect(lines[1]).toMatch(/max\(#\d+\) \[append-only\]/)
    db.close()
  })
  it('a keyed APPEND ONLY table refuses every write that would retract', () => {
    const db = engine()
    db.execute('CREATE MATERIALIZED VIEW kv AS SELECT g, MAX(i), MIN(i) FROM ks GROUP BY g')
    db.execute('INSERT INTO ks VALUES (1, 1, 10), (2, 1, 20)')
    expect(() => db.execute('INSERT INTO ks VALUES (1, 1, 5) ON CONFLICT (id) DO UPDATE SET i = 5')).toThrow(/not allowed on append-only stream/)
    expect(() => db.execute('UPDATE ks SET i = 0')).toThrow(/not allowed on append-only stream/)
    expect(() => db.execute('DELETE FROM ks')).toThrow(/not allowed on append-only stream/)
    expect(() => db.delete('ks', [[2, 1, 20]])).toThrow(/not allowed on append-only stream/)
    expect(() => db.execute('INSERT INTO ks VALUES (2, 1, 99)')).toThrow(/duplicate key/)
    expect(db.query('SELECT * FROM kv').rows).toEqual([[1, 20, 10]])
    db.close()
  })
})

describe('a top-k over a stream behind a temporal filter', () => {
  it('is not planned append-only (its rows expire), and time passing does not fail the tick', () => {
    let now = Date.UTC(2024, 0, 1, 12)
    const db = Engine.open({ clock: () => now })
    db.execute(`CREATE STREAM s ${COLUMNS}`)
    const sql = "SELECT i FROM s WHERE ts > now() - INTERVAL '1' HOUR ORDER BY i DESC LIMIT 1"
    expect(plan(db, sql)).not.toContain('append-only')
    db.execute(`CREATE MATERIALIZED VIEW top AS ${sql}`)
    db.execute("INSERT INTO s (i, ts) VALUES (5, TIMESTAMP '2024-01-01 11:30:00'), (3, TIMESTAMP '2024-01-01 11:50:00')")
    expect(db.query('SELECT * FROM top').rows).toEqual([[5]])
    now += 40 * 60 * 1000
    db.refresh()
    expect(db.query('SELECT * FROM top').rows).toEqual([[3]])
    db.close()
  })
})
