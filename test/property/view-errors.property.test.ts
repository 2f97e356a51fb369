// Property: views that can raise (a division by a sum, by a difference of two rows of a join,
// a cast of text, an overflow, through views over views) under random inserts, deletes and
// updates, also in transaction blocks that commit or roll back and through db.insert /
// db.delete: after every tick each view is in error exactly when a recompute of its query
// raises (with the same SQLSTATE), and otherwise equals the recompute; rivulet_view_errors
// lists exactly the views in error; no write fails because of a view; a subscriber's
// integral equals the view whenever it can be read; a sink's net output equals the view it
// reads.

import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import type { ChangeBatch } from '../../src/index.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const NUM_RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || undefined
/** How often each view was read in error and readable (RIVULET_STATS=1 prints it). */
const STATS = new Map<string, { inError: number; readable: number }>()
if (process.env.RIVULET_STATS) afterAll(() => console.log(Object.fromEntries(STATS)))

/** Each view raises one SQLSTATE at most (so a view and its recompute raise the same one).
 *  `sql` is the definition; `recompute` the same query over the base table only. */
interface ViewCase {
  readonly name: string
  readonly sql: string
  readonly recompute: string
}

const G_INV = 'SELECT g, 60 / sum(v) AS r FROM t GROUP BY g'
const TOTAL_INV = 'SELECT 600 / (sum(v) + 2) AS r FROM t'
const VIEWS: readonly ViewCase[] = [
  { name: 'g_inv', sql: G_INV, recompute: G_INV },
  { name: 'total_inv', sql: TOTAL_INV, recompute: TOTAL_INV },
  { name: 'parsed', sql: 'SELECT k, s::INT AS n FROM t WHERE g <> 2', recompute: 'SELECT k, s::INT AS n FROM t WHERE g <> 2' },
  { name: 'per_row', sql: 'SELECT k, 12 / (v - 1) AS q FROM t', recompute: 'SELECT k, 12 / (v - 1) AS q FROM t' },
  { name: 'pairs', sql: 'SELECT a.k, b.k AS k2, 100 / (a.v - b.v) AS d FROM t a JOIN t b ON a.g = b.g AND a.k < b.k', recompute: 'SELECT a.k, b.k AS k2, 100 / (a.v - b.v) AS d FROM t a JOIN t b ON a.g = b.g AND a.k < b.k' },
  { name: 'same_pairs', sql: 'SELECT a.k, b.k AS k2 FROM t a JOIN t b ON a.g = b.g AND a.k < b.k', recompute: 'SELECT a.k, b.k AS k2 FROM t a JOIN t b ON a.g = b.g AND a.k < b.k' },
  { name: 'scaled', sql: 'SELECT k, v * 1000000000 AS x FROM t', recompute: 'SELECT k, v * 1000000000 AS x FROM t' },
  { name: 'counts', sql: 'SELECT g, count(*) AS n FROM t GROUP BY g', recompute: 'SELECT g, count(*) AS n FROM t GROUP BY g' },
  // views over views: the error of the one read, or their own
  { name: 'g_next', sql: 'SELECT g, r + 1 AS r1 FROM g_inv', recompute: `SELECT g, r + 1 AS r1 FROM (${G_INV}) x` },
  { name: 'crossed', sql: 'SELECT g_inv.g, g_inv.r, total_inv.r AS t FROM g_inv, total_inv', recompute: `SELECT x.g, x.r, y.r AS t FROM (${G_INV}) x, (${TOTAL_INV}) y` },
  { name: 'of_inv', sql: 'SELECT g, 10 / (r - 20) AS z FROM g_inv', recompute: `SELECT g, 10 / (r - 20) AS z FROM (${G_INV}) x` },
]

type Row = { readonly k: number; readonly g: number; readonly v: number; readonly s: string }
type Op =
  | { readonly kind: 'insert'; readonly rows: readonly Row[] }
  | { readonly kind: 'delete'; readonly k: number }
  | { readonly kind: 'update'; readonly k: number; readonly v: number }
  | { readonly kind: 'apiInsert'; readonly rows: readonly Row[] }
  | { readonly kind: 'apiDelete'; readonly ks: readonly number[] }
  | { readonly kind: 'block'; readonly ops: readonly Op[]; readonly commit: boolean }

const rowArb: fc.Arbitrary<Row> = fc.record({ k: fc.integer({ min: 0, max: 7 }), g: fc.integer({ min: 0, max: 2 }), v: fc.integer({ min: -3, max: 3 }), s: fc.constantFrom('1', '2', '-3', 'x') })
const simpleOp: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.array(rowArb, { minLength: 1, maxLength: 3 }).map((rows): Op => ({ kind: 'insert', rows })), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 7 }).map((k): Op => ({ kind: 'delete', k })), weight: 3 },
  { arbitrary: fc.record({ k: fc.integer({ min: 0, max: 7 }), v: fc.integer({ min: -3, max: 3 }) }).map(({ k, v }): Op => ({ kind: 'update', k, v })), weight: 3 },
  { arbitrary: fc.array(rowArb, { minLength: 1, maxLength: 3 }).map((rows): Op => ({ kind: 'apiInsert', rows })), weight: 1 },
  { arbitrary: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 3 }).map((ks): Op => ({ kind: 'apiDelete', ks })), weight: 1 },
)
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: simpleOp, weight: 6 },
  { arbitrary: fc.record({ ops: fc.array(simpleOp, { minLength: 1, maxLength: 4 }), commit: fc.boolean() }).map(({ ops, commit }): Op => ({ kind: 'block', ops, commit })), weight: 1 },
)

/** Runs an op; a duplicate key (23505) is the only failure a write may have. Returns
 *  whether it failed (in a block, that aborts the block). */
function apply(db: Engine, op: Op): boolean {
  const values = (rows: readonly Row[]) => rows.map((r) => `(${r.k}, ${r.g}, ${r.v}, '${r.s}')`).join(', ')
  const run = (f: () => unknown): boolean => {
    try {
      f()
      return false
    } catch (e) {
      expect((e as { code?: string }).code, `${JSON.stringify(op)}: ${(e as Error).message}`).toBe('23505')
      return true
    }
  }
  switch (op.kind) {
    case 'insert':
      return run(() => db.execute(`INSERT INTO t VALUES ${values(op.rows)}`))
    case 'delete':
      return run(() => db.execute(`DELETE FROM t WHERE k = ${op.k}`))
    case 'update':
      return run(() => db.execute(`UPDATE t SET v = ${op.v} WHERE k = ${op.k}`))
    case 'apiInsert':
      return run(() => db.insert('t', op.rows))
    case 'apiDelete':
      return run(() => db.delete('t', op.ks.map((k) => ({ k }))))
    case 'block': {
      db.execute('BEGIN')
      // statements after a failure would only be refused (25P02): the block is aborted
      for (const o of op.ops) if (o.kind !== 'block' && o.kind !== 'apiInsert' && o.kind !== 'apiDelete' && apply(db, o)) break
      db.execute(op.commit ? 'COMMIT' : 'ROLLBACK')
      return false
    }
  }
}

/** Rows as sorted JSON, or the SQLSTATE the read raises. */
function read(db: Engine, sql: string): string[] | { code: string } {
  try {
    return db
      .query(sql)
      .rows.map((r) => JSON.stringify(r))
      .sort()
  } catch (e) {
    return { code: (e as { code: string }).code }
  }
}

function integral(batches: readonly ChangeBatch[]): string[] {
  const w = new Map<string, number>()
  for (const b of batches) for (const [row, d] of b.changes) w.set(JSON.stringify(row), (w.get(JSON.stringify(row)) ?? 0) + d)
  const out: string[] = []
  for (const [k, n] of w) for (let i = 0; i < n; i++) out.push(k)
  return out.sort()
}

describe('views that can raise, under random changes', () => {
  it('are in error exactly when a recompute raises, and equal it otherwise, after every tick', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), (ops) => {
        const db = Engine.open()
        db.execute('CREATE TABLE t (k INT PRIMARY KEY, g INT, v INT, s TEXT)')
        const subscribed = new Map<string, ChangeBatch[]>()
        for (const v of VIEWS) {
          db.execute(`CREATE MATERIALIZED VIEW ${v.name} AS ${v.sql}`)
          const got: ChangeBatch[] = []
          db.subscribe(v.name, (b) => got.push(b))
          subscribed.set(v.name, got)
        }
        db.execute("CREATE SINK pairs_out FROM pairs WITH (connector = 'blackhole'); CREATE SINK inv_out AS SELECT g, r * 2 AS r2 FROM g_inv WITH (connector = 'blackhole')")
        for (const op of ops) {
          apply(db, op)
          const when = JSON.stringify(op)
          const inError: string[] = []
          for (const v of VIEWS) {
            const now = read(db, `SELECT * FROM ${v.name}`)
            expect(now, `${v.name} after ${when}`).toEqual(read(db, v.recompute))
            const stat = STATS.get(v.name) ?? { inError: 0, readable: 0 }
            STATS.set(v.name, stat)
            if (Array.isArray(now)) {
              stat.readable++
              expect(integral(subscribed.get(v.name)!), `subscriber of ${v.name} after ${when}`).toEqual(now)
            } else {
              stat.inError++
              inError.push(v.name)
            }
          }
          expect(read(db, 'SELECT view FROM rivulet_view_errors'), `rivulet_view_errors after ${when}`).toEqual(inError.map((n) => JSON.stringify([n])).sort())
          const pairs = read(db, 'SELECT * FROM pairs')
          const sink = db.sinkStatus('pairs_out')
          if (Array.isArray(pairs)) expect(sink.inserted - sink.retracted, `pairs_out after ${when}`).toBe(pairs.length)
          else expect(sink.error).toBeDefined()
          const inv = read(db, 'SELECT * FROM g_inv')
          const invSink = db.sinkStatus('inv_out')
          if (Array.isArray(inv)) expect(invSink.inserted - invSink.retracted, `inv_out after ${when}`).toBe(inv.length)
        }
        db.close()
      }),
      { numRuns: NUM_RUNS ?? 60, ...(SEED !== undefined ? { seed: SEED } : {}) },
    )
  }, 300_000)
})
