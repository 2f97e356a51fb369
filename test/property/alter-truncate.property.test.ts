// Property: views over tables that are truncated and altered (columns added with defaults,
// dropped, renamed; a drop of a column they read refused) between random upserts, deletes and
// bag inserts equal, after every statement, a recompute of their query over the tables as
// they are then. The views read the
// original columns only (a SELECT * view among them keeps the columns it was made with), so
// every ALTER leaves them standing and re-rendered over the rewritten rows.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || 60

type Op =
  | { kind: 'upsert'; k: number; g: number; v: number }
  | { kind: 'delete'; k: number }
  | { kind: 'bag'; g: number; x: number }
  | { kind: 'truncate'; tables: 't' | 'b' | 't, b' }
  | { kind: 'add'; dflt: number | null }
  | { kind: 'drop' }
  | { kind: 'rename' }
  | { kind: 'dropRead' }
  | { kind: 'block'; k: number; rollback: boolean }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('upsert' as const), k: fc.integer({ min: 1, max: 6 }), g: fc.integer({ min: 0, max: 2 }), v: fc.integer({ min: -5, max: 9 }) }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), k: fc.integer({ min: 1, max: 6 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('bag' as const), g: fc.integer({ min: 0, max: 2 }), x: fc.integer({ min: 0, max: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('truncate' as const), tables: fc.constantFrom('t' as const, 'b' as const, 't, b' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('add' as const), dflt: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }) }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'drop' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'rename' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'dropRead' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('block' as const), k: fc.integer({ min: 1, max: 6 }), rollback: fc.boolean() }), weight: 1 },
)

/** Each view and the query a recompute of it runs (the SELECT * view's columns as it was made). */
const VIEWS: Record<string, { create: string; recompute: string }> = {
  by_g: { create: 'SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g', recompute: 'SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g' },
  star: { create: 'SELECT * FROM t', recompute: 'SELECT k, g, v FROM t' },
  filtered: { create: 'SELECT k, v * 2 AS w FROM t WHERE v > 0', recompute: 'SELECT k, v * 2 AS w FROM t WHERE v > 0' },
  joined: { create: 'SELECT t.k, b.x FROM t JOIN b ON b.g = t.g', recompute: 'SELECT t.k, b.x FROM t JOIN b ON b.g = t.g' },
  bag_sums: { create: 'SELECT g, sum(x) AS s, count(*) AS n FROM b GROUP BY g', recompute: 'SELECT g, sum(x) AS s, count(*) AS n FROM b GROUP BY g' },
}

const sorted = (rows: readonly (readonly unknown[])[]) => rows.map((r) => JSON.stringify(r)).sort()

function run(ops: readonly Op[]): void {
  const db = Engine.open()
  db.execute('CREATE TABLE t (k INT PRIMARY KEY, g INT, v INT)')
  db.execute('CREATE TABLE b (g INT, x INT)')
  for (const [name, v] of Object.entries(VIEWS)) db.execute(`CREATE MATERIALIZED VIEW ${name} AS ${v.create}`)
  // the added columns of t, newest last (only they are dropped and renamed)
  const added: string[] = []
  let next = 0
  const log: string[] = []
  for (const op of ops) {
    let sql: string
    switch (op.kind) {
      case 'upsert':
        sql = `INSERT INTO t (k, g, v) VALUES (${op.k}, ${op.g}, ${op.v}) ON CONFLICT (k) DO UPDATE SET g = excluded.g, v = excluded.v`
        break
      case 'delete':
        sql = `DELETE FROM t WHERE k = ${op.k}`
        break
      case 'bag':
        sql = `INSERT INTO b VALUES (${op.g}, ${op.x})`
        break
      case 'truncate':
        sql = `TRUNCATE ${op.tables}`
        break
      case 'add': {
        const c = `c${next++}`
        added.push(c)
        sql = `ALTER TABLE t ADD COLUMN ${c} INT${op.dflt === null ? '' : ` DEFAULT ${op.dflt}`}`
        break
      }
      case 'drop':
        if (added.length === 0) continue
        sql = `ALTER TABLE t DROP COLUMN ${added.shift()!}`
        break
      case 'rename': {
        if (added.length === 0) continue
        const c = `c${next++}`
        sql = `ALTER TABLE t RENAME COLUMN ${added.pop()!} TO ${c}`
        added.push(c)
        break
      }
      case 'dropRead':
        // a column the views read: refused, and nothing changes
        sql = `ALTER TABLE t DROP COLUMN ${['k', 'g', 'v'][log.length % 3]}`
        break
      case 'block':
        sql = `BEGIN; TRUNCATE t; INSERT INTO t (k, g, v) VALUES (${op.k}, 1, 1); ${op.rollback ? 'ROLLBACK' : 'COMMIT'}`
        break
    }
    log.push(`${sql};`)
    if (op.kind === 'dropRead') expect(() => db.execute(sql)).toThrow(expect.objectContaining({ code: '2BP01' }))
    else db.execute(sql)
    for (const [name, v] of Object.entries(VIEWS)) {
      expect(sorted(db.query(`SELECT * FROM ${name}`).rows), `${name} after:\n${log.join('\n')}`).toEqual(sorted(db.query(v.recompute).rows))
    }
  }
  db.close()
}

describe('views over truncated and altered tables', () => {
  it('equal a recompute after every statement', () => {
    fc.assert(fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => run(ops)), { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) })
  })
})
