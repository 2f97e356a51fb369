// Property: materialized views over timestamptz, time, uuid and bytea (GROUP BY each, min/max,
// DISTINCT, a join on bytea, top-N by bytea, date_trunc and ::date of a timestamptz) equal a
// recompute of their query after every tick of random upserts and deletes — written by a
// session whose TimeZone changes between ticks, since views are maintained in UTC whoever
// writes (the recompute runs in a UTC session).

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || 60

interface Row {
  readonly k: number
  readonly at: string | null
  readonly tm: string | null
  readonly u: string | null
  readonly b: string | null
}

type Change = { kind: 'upsert'; row: Row } | { kind: 'delete'; k: number }

const atArb = fc.option(fc.constantFrom('2024-03-30 23:30+00', '2024-03-31 02:30', '2024-03-31 01:59:59.5+00', '2024-10-27 02:30', '2024-10-27 00:30:00+00', '2024-01-01 00:00 Asia/Tokyo'), { nil: null, freq: 6 })
const tmArb = fc.option(fc.constantFrom('00:00', '08:00', '08:00:00.000001', '23:59:59.999999', '24:00'), { nil: null, freq: 6 })
const uArb = fc.option(fc.constantFrom('00000000-0000-0000-0000-000000000001', '{00000000-0000-0000-0000-000000000001}', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', 'a0eebc999c0b4ef8bb6d6bb9bd380a11'), { nil: null, freq: 6 })
const bArb = fc.option(fc.constantFrom('\\x', '\\x00', '\\x0001', '\\xff', 'ab', '\\x6162'), { nil: null, freq: 6 })
const rowArb: fc.Arbitrary<Row> = fc.record({ k: fc.integer({ min: 1, max: 6 }), at: atArb, tm: tmArb, u: uArb, b: bArb })
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { arbitrary: rowArb.map((row): Change => ({ kind: 'upsert', row })), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 6 }).map((k): Change => ({ kind: 'delete', k })), weight: 1 },
)
const zoneArb = fc.constantFrom('UTC', 'Europe/Paris', 'Asia/Kolkata', 'America/New_York')

const VIEWS: Record<string, string> = {
  by_day: 'SELECT at::date AS d, date_trunc(\'hour\', at) AS h, count(*) AS n FROM t GROUP BY at::date, date_trunc(\'hour\', at)',
  by_u: 'SELECT u, count(*) AS n, min(at) AS first, max(tm) AS latest FROM t GROUP BY u',
  by_b: 'SELECT b, count(*) AS n, min(tm) AS tm FROM t GROUP BY b',
  distinct_tm: 'SELECT DISTINCT tm FROM t',
  pairs: 'SELECT x.k AS a, y.k AS b FROM t x JOIN t y ON x.b = y.b AND x.k < y.k',
  top_b: 'SELECT k, b FROM t ORDER BY b DESC NULLS LAST, k LIMIT 3',
  shifted: "SELECT k, at + interval '1 day' AS next, tm + interval '90 minutes' AS later FROM t",
}

const sortRows = (rows: unknown[][]): unknown[][] => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
const lit = (v: string | null) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`)

describe('views over timestamptz, time, uuid and bytea = recompute, after every tick', () => {
  it('GROUP BY, min/max, DISTINCT, joins, top-N, local-time arithmetic, written from sessions of any zone', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(zoneArb, fc.array(changeArb, { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 8 }), (ticks) => {
        const db = new Engine()
        try {
          db.execute('CREATE TABLE t (k INT PRIMARY KEY, at TIMESTAMPTZ, tm TIME, u UUID, b BYTEA)')
          for (const [name, sql] of Object.entries(VIEWS)) db.execute(`CREATE MATERIALIZED VIEW ${name} AS ${sql}`)
          const writer = db.session()
          for (const [zone, changes] of ticks) {
            writer.execute(`SET TIME ZONE '${zone}'`)
            writer.execute('BEGIN')
            for (const c of changes) {
              if (c.kind === 'delete') writer.execute(`DELETE FROM t WHERE k = ${c.k}`)
              else {
                const r = c.row
                writer.execute(`INSERT INTO t VALUES (${r.k}, ${lit(r.at)}, ${lit(r.tm)}, ${lit(r.u)}, ${lit(r.b)}) ON CONFLICT (k) DO UPDATE SET at = excluded.at, tm = excluded.tm, u = excluded.u, b = excluded.b`)
              }
            }
            writer.execute('COMMIT')
            for (const [name, sql] of Object.entries(VIEWS)) {
              const view = sortRows(db.execute(`SELECT * FROM ${name}`)[0]!.rows!)
              const recompute = sortRows(db.execute(sql)[0]!.rows!)
              expect(view, `${name} vs recompute`).toEqual(recompute)
            }
          }
        } finally {
          db.close()
        }
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    )
  })
})
