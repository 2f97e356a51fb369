// Window functions across a checkpoint: views over a table (updates and deletes) and over a
// stream (rows freed by the watermark, ranks and totals counting them) restored from a
// checkpoint plus the log after it equal a run that never stopped, and both go on alike.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const tempDir = tempDirs('window-checkpoint')

const SCHEMA = [
  'CREATE TABLE t (id INT PRIMARY KEY, g INT, o INT, v INT)',
  "CREATE STREAM s (g INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)",
  'CREATE MATERIALIZED VIEW ranked AS SELECT id, rank() OVER w AS r, dense_rank() OVER w AS dr, lag(v) OVER w AS prev, sum(v) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s3 FROM t WINDOW w AS (PARTITION BY g ORDER BY o, id)',
  'CREATE MATERIALIZED VIEW running AS SELECT g, ts, v, row_number() OVER w AS rn, lag(v) OVER w AS prev, sum(v) OVER w AS total FROM s WINDOW w AS (PARTITION BY g ORDER BY ts, v)',
  "CREATE MATERIALIZED VIEW sliding AS SELECT g, ts, count(*) OVER w AS n, max(v) OVER w AS hi FROM s WINDOW w AS (PARTITION BY g ORDER BY ts RANGE BETWEEN INTERVAL '5' MINUTE PRECEDING AND CURRENT ROW)",
]

/** Step i: a table change and two stream events, one minute apart per step. */
function step(db: Engine, i: number): void {
  const id = (i * 7) % 23
  if (i % 5 === 4) db.execute(`DELETE FROM t WHERE id = ${(i * 3) % 23}`)
  else db.execute(`INSERT INTO t VALUES (${id}, ${i % 3}, ${i % 4}, ${i}) ON CONFLICT (id) DO UPDATE SET o = excluded.o, v = excluded.v`)
  const ts = (m: number): string => `'2026-01-01 ${String(10 + Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00'`
  db.execute(`INSERT INTO s VALUES (${i % 2}, ${i % 5}, ${ts(i)}), (${(i + 1) % 2}, ${i % 3}, ${ts(i)})`)
}

function contents(db: Engine): string[][] {
  return ['ranked', 'running', 'sliding'].map((v) => db.query(`SELECT * FROM ${v}`).rows.map((r) => JSON.stringify(r, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))).sort())
}

describe('window functions across checkpoints', () => {
  it('restore + the log after it == a run that never stopped, and both go on alike', () => {
    const data = path.join(tempDir(), 'data')
    let db = Engine.open({ dir: data, checkpointInterval: 0 })
    const ref = Engine.open()
    for (const s of SCHEMA) {
      db.execute(s)
      ref.execute(s)
    }
    for (let i = 0; i < 30; i++) {
      step(db, i)
      step(ref, i)
    }
    db.execute('CHECKPOINT')
    for (let i = 30; i < 45; i++) {
      step(db, i)
      step(ref, i)
    }
    db.close()
    db = Engine.open({ dir: data, checkpointInterval: 0 })
    // restored from the checkpoint the close took (the operators' saved state), not replayed
    expect(db.recovery!.checkpoint).toBeGreaterThan(0)
    expect(db.recovery!.records).toBe(0)
    expect(contents(db)).toEqual(contents(ref))
    for (let i = 45; i < 70; i++) {
      step(db, i)
      step(ref, i)
    }
    expect(contents(db)).toEqual(contents(ref))
    // the stream views hold a few rows per partition, not the stream
    const plan = db.query('EXPLAIN ANALYZE MATERIALIZED VIEW running').rows.join('\n')
    expect(plan).toMatch(/bounded: rows are freed/)
    const held = Number(/\[state: (\d+)\]/.exec(plan)![1])
    expect(held).toBeLessThanOrEqual(6)
    db.close()
    ref.close()
  })
})
