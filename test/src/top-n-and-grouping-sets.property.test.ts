// DISTINCT ON, FETCH FIRST … WITH TIES and GROUPING SETS / ROLLUP / CUBE through the engine
// (the property): random ticks of inserts, deletes and updates over a bag with few distinct
// values (so rows tie in ORDER BY, repeat, and move between groups and across the WITH TIES
// boundary), auto-committed, in committed blocks and in rolled-back blocks, keep every view
// equal, after every tick, to its query recomputed ad hoc; the same over a stream (inserts
// only), where DISTINCT ON keeps one row per partition. Views are created at a random tick,
// so some are backfilled from rows already there.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import type { ResultValue } from '../../src/index.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const NUM_RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || undefined
const params = (numRuns: number) => ({ numRuns: NUM_RUNS ?? numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) })

/** View queries over `$T` (g, v, w): partitions g, ORDER BY values v that tie, payload w. */
const QUERIES: readonly string[] = [
  // DISTINCT ON: ties in ORDER BY (v) broken by the whole row
  'SELECT DISTINCT ON (g) g, v, w FROM $T ORDER BY g, v DESC',
  'SELECT DISTINCT ON (g, v) w FROM $T ORDER BY v, g, w',
  'SELECT DISTINCT ON (g) g, w FROM $T',
  'SELECT DISTINCT ON (g % 2) g, v FROM $T ORDER BY g % 2, v NULLS FIRST',
  // WITH TIES: the boundary's ties come and go together
  'SELECT g, v, w FROM $T ORDER BY v FETCH FIRST 2 ROWS WITH TIES',
  'SELECT g, v FROM $T ORDER BY v DESC, g OFFSET 1 ROWS FETCH FIRST 1 ROW WITH TIES',
  'SELECT g, count(*) AS n FROM $T GROUP BY g ORDER BY count(*) DESC FETCH FIRST 1 ROW WITH TIES',
  // grouping sets
  'SELECT g, v, count(*) AS n, sum(w) AS s, grouping(g, v) AS b FROM $T GROUP BY ROLLUP (g, v)',
  'SELECT g, v, max(w) AS m FROM $T GROUP BY CUBE (g, v)',
  'SELECT g, v, count(w) AS n FROM $T GROUP BY GROUPING SETS ((g, v), (v), ()) HAVING count(*) > 1',
  'SELECT g, v, w, count(*) AS n FROM $T GROUP BY g, ROLLUP (v, w)',
]

type Value = number | null
type Row = readonly [Value, Value, Value]

const value = (max: number): fc.Arbitrary<Value> => fc.option(fc.integer({ min: 0, max }), { freq: 6 })
const rowArb: fc.Arbitrary<Row> = fc.tuple(value(2), value(3), value(3))

const lit = (v: Value): string => (v === null ? 'NULL' : String(v))
const where = (col: string, v: Value): string => (v === null ? `${col} IS NULL` : `${col} = ${v}`)

type Change =
  | { readonly kind: 'insert'; readonly rows: readonly Row[] }
  | { readonly kind: 'delete'; readonly g: Value; readonly v: Value }
  | { readonly kind: 'update'; readonly g: Value; readonly v: Value; readonly w: Value }

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), rows: fc.array(rowArb, { minLength: 1, maxLength: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), g: value(2), v: value(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('update' as const), g: value(2), v: value(3), w: value(3) }) },
)

type Tick = { readonly kind: 'change'; readonly change: Change } | { readonly kind: 'block'; readonly commit: boolean; readonly changes: readonly Change[] }

const tickArb: fc.Arbitrary<Tick> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('change' as const), change: changeArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('block' as const), commit: fc.boolean(), changes: fc.array(changeArb, { maxLength: 3 }) }) },
)

const canonical = (rows: readonly (readonly ResultValue[])[]): string[] => rows.map((r) => JSON.stringify(r)).sort()

/** The statements of a change to table `t`; a stream takes only the inserts. */
function statements(c: Change, t: string, insertOnly: boolean): string[] {
  switch (c.kind) {
    case 'insert':
      return [`INSERT INTO ${t} VALUES ${c.rows.map((r) => `(${r.map(lit).join(', ')})`).join(', ')}`]
    case 'delete':
      return insertOnly ? [] : [`DELETE FROM ${t} WHERE ${where('g', c.g)} AND ${where('v', c.v)}`]
    case 'update':
      // moves rows to another group and across the ORDER BY boundary
      return insertOnly ? [] : [`UPDATE ${t} SET v = ${lit(c.v)}, w = ${lit(c.w)} WHERE ${where('g', c.g)}`]
  }
}

function run(ticks: readonly Tick[], createAt: number, source: 'table' | 'stream'): void {
  const db = Engine.open()
  db.execute(`CREATE ${source === 'table' ? 'TABLE' : 'STREAM'} t (g INT, v INT, w INT)`)
  const insertOnly = source === 'stream'
  const views: { name: string; sql: string }[] = []
  const createViews = (): void => {
    QUERIES.forEach((q, k) => {
      const sql = q.replaceAll('$T', 't')
      db.execute(`CREATE MATERIALIZED VIEW v${k} AS ${sql}`)
      views.push({ name: `v${k}`, sql })
    })
  }
  const check = (when: string): void => {
    for (const v of views) expect(canonical(db.query(`SELECT * FROM ${v.name}`).rows), `${v.name} (${v.sql}) ${when}`).toEqual(canonical(db.query(v.sql).rows))
  }
  ticks.forEach((tick, n) => {
    if (n === createAt) createViews()
    if (tick.kind === 'change') {
      for (const s of statements(tick.change, 't', insertOnly)) db.execute(s)
    } else {
      db.execute('BEGIN')
      for (const c of tick.changes) for (const s of statements(c, 't', insertOnly)) db.execute(s)
      check(`inside block ${n}`)
      db.execute(tick.commit ? 'COMMIT' : 'ROLLBACK')
    }
    check(`after tick ${n}`)
  })
  if (views.length === 0) {
    createViews()
    check('after a backfill')
  }
  db.close()
}

describe('DISTINCT ON, WITH TIES and grouping sets through the engine (property)', () => {
  for (const source of ['table', 'stream'] as const) {
    it(`every view = its recompute after every tick, over a ${source}`, () => {
      fc.assert(
        fc.property(fc.array(tickArb, { minLength: 1, maxLength: 10 }), fc.integer({ min: 0, max: 3 }), (ticks, createAt) => run(ticks, createAt, source)),
        params(30),
      )
    })
  }
})
