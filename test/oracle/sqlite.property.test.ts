// SQLite as an independent oracle: the same generated DDL / DML goes to rivulet and to an
// in-memory SQLite database (better-sqlite3); after every tick each materialized view must
// equal SQLite's answer to the same query (multiset; numbers with a relative tolerance), the
// same query read ad hoc too (in order when it ends in ORDER BY over every column), and every
// statement must fail in rivulet exactly when it fails in SQLite.
//
// Generated SQL stays where SQLite and Postgres agree: INT and TEXT columns with small
// domains (no overflow), no division, no boolean outputs (SQLite has 0/1), explicit NULLS
// FIRST/LAST, no INTERSECT ALL / EXCEPT ALL (SQLite has neither), keys only updated to
// literals (SQLite checks uniqueness row by row). RIGHT and FULL JOIN need SQLite ≥ 3.39.

import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { ALL_FEATURES, initialLoadArb, queryArb, schemaArb, tickArb, withView, type Features, type QueryKind } from '../property/gen.js'
import { STATS, runCase, type Case, type ViewDef } from '../property/harness.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
if (process.env.RIVULET_STATS) afterAll(() => console.log(STATS))
const NUM_RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || undefined

const sqliteVersion = (() => {
  const db = new Database(':memory:')
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v
  } finally {
    db.close()
  }
})()
const [major, minor] = sqliteVersion.split('.').map(Number) as [number, number]
const outerJoins = major > 3 || (major === 3 && minor >= 39)

const ORACLE: Features = { ...ALL_FEATURES, oracle: true, outerJoins }

function caseArb(f: Features, maxTicks: number): fc.Arbitrary<Case> {
  return schemaArb.chain((schema) =>
    queryArb(schema, f).chain((q) =>
      fc
        .record({
          vAt: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 1 }),
          w: fc.option(queryArb(withView(schema, 'v', q.types), f, { first: 'v', budget: 0 }), { nil: undefined, freq: 4 }),
          wAt: fc.integer({ min: 0, max: 4 }),
          initial: initialLoadArb(schema),
          ticks: fc.array(tickArb(schema, { oracle: true, subqueries: f.dmlSubqueries, pkArithmetic: false, runtimeErrors: false }), { minLength: 1, maxLength: maxTicks }),
        })
        .map(({ vAt, w, wAt, initial, ticks: later }): Case => {
          const ticks = [...initial, ...later]
          const views: ViewDef[] = [{ name: 'v', sql: q.sql, types: q.types, createAt: vAt, materialized: true, ordered: q.ordered ?? false }]
          if (w) views.push({ name: 'w', sql: w.sql, types: w.types, createAt: Math.max(vAt, wAt), materialized: true, ordered: w.ordered ?? false })
          return { schema, views: views.filter((x) => x.createAt <= ticks.length), ticks }
        }),
    ),
  )
}

function check(kinds: readonly QueryKind[] | undefined, numRuns: number, maxTicks = 10) {
  fc.assert(
    fc.property(caseArb({ ...ORACLE, kinds }, maxTicks), (c) => {
      const sqlite = new Database(':memory:')
      try {
        // the mixed run also checks the reference evaluator (so reference = SQLite there too)
        runCase(c, { reference: kinds === undefined, sqlite })
      } finally {
        sqlite.close()
      }
    }),
    { numRuns: NUM_RUNS ?? numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) },
  )
}

describe(`rivulet = SQLite ${sqliteVersion} after every tick`, () => {
  it('has RIGHT / FULL JOIN (SQLite >= 3.39)', () => expect(outerJoins).toBe(true))
  it('select / project / filter / joins', () => check(['spj'], 220))
  it('aggregates, GROUP BY, HAVING', () => check(['agg'], 220))
  it('set operations', () => check(['setop', 'agg'], 150))
  it('ORDER BY ... LIMIT (top-N)', () => check(['topn', 'agg'], 180))
  it('ROW_NUMBER() OVER (...) <= k', () => check(['rownumber'], 150))
  it('derived tables and CTEs', () => check(['derived', 'cte', 'spj', 'agg'], 150))
  it('everything mixed', () => check(undefined, 300))
})
