// The accumulators of the issue 21 aggregates (order statistics with numerics and intervals,
// mode's by-count index, HyperLogLog and DDSketch maps, exact bigint moments, bit counts)
// survive a checkpoint and a restart: the reopened view reads the same and, after further
// deletes and updates, equals the same query run ad hoc (a recompute).
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const tempDir = tempDirs('aggregate-states')

const QUERY = `SELECT g, var_samp(n) AS vn, stddev_pop(d) AS sd, bit_xor(b) AS bx, bit_and(i) AS ba,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY d) AS med, percentile_disc(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY n DESC) AS qs,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY iv) AS miv, mode() WITHIN GROUP (ORDER BY i) AS m,
  approx_count_distinct(i) AS acd, approx_percentile(0.9) WITHIN GROUP (ORDER BY d) AS ap
  FROM t GROUP BY g`

function rows(db: Engine, sql: string): string[] {
  return db.query(sql).rows.map((r) => JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort()
}

describe('issue 21 aggregates across a checkpoint', () => {
  it('restore, then go on like a recompute', () => {
    const dir = tempDir()
    let db = Engine.open({ dir, checkpointInterval: 0 })
    db.execute('CREATE TABLE t (id INT PRIMARY KEY, g INT, i INT, b BIGINT, n NUMERIC, d DOUBLE PRECISION, iv INTERVAL)')
    db.execute(`CREATE MATERIALIZED VIEW v AS ${QUERY}`)
    db.execute(`INSERT INTO t SELECT k, k % 3, k % 17, k::bigint * 1000000007, k / 7.0, k * 0.5, make_interval(0, 0, 0, k % 5, k % 24) FROM generate_series(1, 600) AS s(k)`)
    db.execute('DELETE FROM t WHERE id % 11 = 0')
    const before = rows(db, 'SELECT * FROM v')
    db.execute('CHECKPOINT')
    db.close()
    db = Engine.open({ dir, checkpointInterval: 0 })
    try {
      expect(rows(db, 'SELECT * FROM v')).toEqual(before)
      db.execute('DELETE FROM t WHERE id % 4 = 1')
      db.execute("UPDATE t SET i = i + 1, n = n * 2, iv = iv + interval '1 hour' WHERE g = 2")
      expect(rows(db, 'SELECT * FROM v')).toEqual(rows(db, QUERY))
      expect(rows(db, 'SELECT * FROM v')).not.toEqual(before)
    } finally {
      db.close()
    }
  })
})
