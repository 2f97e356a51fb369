// Window functions through the engine: materialized views (some created before any data, some
// backfilled later) equal the ad hoc recompute of their query after every tick, over random
// INSERT / UPDATE / DELETE and transactions, with duplicate and tied ORDER BY values and NULLs.
// One property per window-function form. (The Window operator itself is checked against a
// naive evaluation in test/ivm/oracle/window.property.test.ts, expected values of PostgreSQL
// in sqllogictest/test/window.)
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'

const FORMS: [string, string][] = [
  ['LAG / LEAD', 'SELECT id, g, lag(v) OVER w AS a, lead(v, 2, -1) OVER w AS b, lag(o, 3) OVER w AS c FROM t WINDOW w AS (PARTITION BY g ORDER BY o, id)'],
  ['LAG / LEAD among tied ORDER BY values', 'SELECT id, lag(id) OVER (PARTITION BY g ORDER BY o) AS a, lead(v) OVER (ORDER BY o DESC) AS b FROM t'],
  ['PERCENT_RANK, CUME_DIST, NTILE', 'SELECT id, percent_rank() OVER w AS pr, cume_dist() OVER w AS cd, ntile(3) OVER (PARTITION BY g ORDER BY o, id) AS t3 FROM t WINDOW w AS (PARTITION BY g ORDER BY o)'],
  ['ROW_NUMBER, RANK, DENSE_RANK', 'SELECT id, row_number() OVER w AS rn, rank() OVER w AS r, dense_rank() OVER w AS dr, rank() OVER (ORDER BY v DESC) AS r2 FROM t WINDOW w AS (PARTITION BY g ORDER BY o)'],
  ['running aggregates (default frame)', 'SELECT id, sum(v) OVER w AS s, count(v) OVER w AS c, count(*) OVER w AS n, avg(v) OVER w AS a, min(v) OVER w AS lo, max(v) OVER w AS hi FROM t WINDOW w AS (PARTITION BY g ORDER BY o)'],
  ['ROWS frames', 'SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a, max(v) OVER (ORDER BY ts, id ROWS 2 PRECEDING) AS b, count(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS c, sum(o) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS d FROM t'],
  ['RANGE frames over a number', 'SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a, count(*) OVER (ORDER BY o DESC RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS b, min(v) OVER (ORDER BY o RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS c FROM t'],
  ['RANGE over a timestamp: the sliding window', "SELECT id, count(*) OVER w AS n, sum(v) OVER w AS s, max(v) OVER w AS hi FROM t WINDOW w AS (PARTITION BY g ORDER BY ts RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW)"],
  ['FIRST_VALUE, LAST_VALUE, NTH_VALUE', 'SELECT id, first_value(v) OVER w AS f, last_value(v) OVER w AS l, nth_value(v, 2) OVER w AS n2, first_value(id) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS f2, last_value(id) OVER (PARTITION BY g) AS l2 FROM t WINDOW w AS (PARTITION BY g ORDER BY o, id)'],
  ['STRING_AGG, ARRAY_AGG, BOOL_AND, BOOL_OR over frames', "SELECT id, string_agg(CAST(v AS TEXT), '/') OVER w AS s, array_agg(o) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a, bool_and(v > 0) OVER w AS ba, bool_or(o > 2) OVER (PARTITION BY g) AS bo FROM t WINDOW w AS (PARTITION BY g ORDER BY o, id)"],
  ['windows over a grouped query', 'SELECT g, sum(v) AS s, rank() OVER (ORDER BY sum(v) DESC NULLS LAST) AS r, sum(count(*)) OVER (ORDER BY g) AS running FROM t GROUP BY g'],
]

const id = fc.integer({ min: 1, max: 14 })
const g = fc.integer({ min: 0, max: 2 })
const o = fc.option(fc.integer({ min: 0, max: 4 }), { freq: 5, nil: null })
const minute = fc.integer({ min: 0, max: 40 })
const v = fc.option(fc.integer({ min: -2, max: 5 }), { freq: 5, nil: null })

const sqlValue = (x: number | null): string => (x === null ? 'NULL' : String(x))
const ts = (m: number): string => `'2026-01-01 ${String(10 + Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00'`

const stmt = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(id, g, o, minute, v).map(([i, gg, oo, m, vv]) => `INSERT INTO t VALUES (${i}, ${gg}, ${sqlValue(oo)}, ${ts(m)}, ${sqlValue(vv)}) ON CONFLICT (id) DO UPDATE SET g = excluded.g, o = excluded.o, ts = excluded.ts, v = excluded.v`) },
  { weight: 2, arbitrary: fc.tuple(id, o, v).map(([i, oo, vv]) => `UPDATE t SET o = ${sqlValue(oo)}, v = ${sqlValue(vv)} WHERE id = ${i}`) },
  { weight: 1, arbitrary: fc.tuple(id, minute).map(([i, m]) => `UPDATE t SET ts = ${ts(m)}, g = (g + 1) % 3 WHERE id = ${i}`) },
  { weight: 2, arbitrary: id.map((i) => `DELETE FROM t WHERE id = ${i}`) },
  { weight: 1, arbitrary: g.map((gg) => `DELETE FROM t WHERE g = ${gg} AND o IS NULL`) },
)
/** A tick: one statement, or a transaction of several. */
const tick = fc.oneof({ weight: 3, arbitrary: stmt.map((s) => [s]) }, { weight: 1, arbitrary: fc.array(stmt, { minLength: 2, maxLength: 4 }).map((ss) => ['BEGIN', ...ss, 'COMMIT']) })

function sorted(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map((r) => JSON.stringify(r, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x === undefined ? null : x))).sort()
}

/** Runs `count` ticks, creating the view `late` before tick `lateAt`; after each, the views
 *  `early` (and `late`) equal the ad hoc result of `query`. */
function runTicks(db: Engine, query: string, count: number, lateAt: number, tick: (i: number) => void): void {
  let late = false
  for (let i = 0; i < count; i++) {
    if (i === lateAt) {
      db.execute(`CREATE MATERIALIZED VIEW late AS ${query}`)
      late = true
    }
    tick(i)
    const expected = sorted(db.query(query).rows)
    expect(sorted(db.query('SELECT * FROM early').rows)).toEqual(expected)
    if (late) expect(sorted(db.query('SELECT * FROM late').rows)).toEqual(expected)
  }
}

describe('window functions in views = ad hoc recompute, after every tick', () => {
  for (const [name, query] of FORMS) {
    it(name, () => {
      fc.assert(
        fc.property(fc.array(tick, { minLength: 1, maxLength: 12 }), fc.nat({ max: 12 }), (ticks, lateAt) => {
          const db = Engine.open()
          try {
            db.execute('CREATE TABLE t (id INT PRIMARY KEY, g INT, o INT, ts TIMESTAMP, v INT)')
            db.execute(`CREATE MATERIALIZED VIEW early AS ${query}`)
            runTicks(db, query, ticks.length, lateAt, (i) => {
              for (const s of ticks[i]!) db.execute(s)
            })
          } finally {
            db.close()
          }
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) },
      )
    })
  }
})

// Over a stream with a watermark on the ORDER BY column, views free the rows the watermark has
// passed (EXPLAIN says bounded); they must still equal the recompute over the stream's history.
const STREAM_FORMS: [string, string][] = [
  ['ranks and running aggregates', 'SELECT id, row_number() OVER w AS rn, rank() OVER w AS r, dense_rank() OVER w AS dr, sum(v) OVER w AS s, count(*) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM s WINDOW w AS (PARTITION BY g ORDER BY ts)'],
  ['LAG / LEAD and ROWS frames', 'SELECT id, lag(v, 2) OVER w AS a, lead(v) OVER w AS b, sum(v) OVER (w ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS c FROM s WINDOW w AS (PARTITION BY g ORDER BY ts)'],
  ['ranks per closed TUMBLE window (partitions freed whole)', "SELECT window_start, g, n, rank() OVER w AS r, lag(g) OVER (w ORDER BY n, g) AS prev FROM (SELECT window_start, g, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '3' MINUTE) GROUP BY window_start, g) x WINDOW w AS (PARTITION BY window_start)"],
  ['the sliding window', "SELECT id, count(*) OVER w AS n, sum(v) OVER w AS t, max(v) OVER (PARTITION BY g ORDER BY ts RANGE BETWEEN INTERVAL '3' MINUTE PRECEDING AND INTERVAL '1' MINUTE FOLLOWING) AS m FROM s WINDOW w AS (PARTITION BY g ORDER BY ts RANGE BETWEEN INTERVAL '5' MINUTE PRECEDING AND CURRENT ROW)"],
]

const event = fc.tuple(g, fc.integer({ min: -3, max: 4 }), v)

describe('window functions over a stream, freed by the watermark = ad hoc recompute, after every tick', () => {
  for (const [name, query] of STREAM_FORMS) {
    it(name, () => {
      fc.assert(
        fc.property(fc.array(fc.array(event, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 14 }), fc.nat({ max: 14 }), (ticks, lateAt) => {
          const db = Engine.open()
          try {
            db.execute("CREATE STREAM s (id INT, g INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '2' MINUTE)")
            db.execute(`CREATE MATERIALIZED VIEW early AS ${query}`)
            expect(db.query('EXPLAIN MATERIALIZED VIEW early').rows.join('\n')).toContain('bounded: ')
            let nextId = 1
            runTicks(db, query, ticks.length, lateAt, (i) => {
              // event times wander around a clock that moves forward (a minute a tick): some
              // arrive late
              const values = ticks[i]!.map(([gg, dt, vv]) => `(${nextId++}, ${gg}, ${sqlValue(vv)}, ${ts(Math.max(0, i + dt))})`)
              db.execute(`INSERT INTO s VALUES ${values.join(', ')}`)
            })
          } finally {
            db.close()
          }
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) },
      )
    })
  }
})
