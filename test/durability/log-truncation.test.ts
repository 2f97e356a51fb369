// The log truncated behind its checkpoints (src/storage/data-dir.ts writeCheckpoint): after a
// checkpoint, the records before the oldest one a kept checkpoint needs are gone (DDL kept),
// except those a stream's history still reads rows from — retention lets those go too; the
// directory then reopens from either kept checkpoint exactly as a run that never stopped, a
// directory whose checkpoints are all damaged refuses to open rather than start from what is
// left, rivulet_log shows what is kept, and SUBSCRIBE … SINCE resumes from a checkpoint within
// what is retained and refuses a tick before it.
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import type { ChangeBatch } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { LOG_DIR } from '../../src/storage/data-dir.js'
import { LogSegments } from '../../src/storage/log-segments.js'
import { rivuletError } from '../helpers/errors.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const tempDir = tempDirs('truncate')

const ts = (s: number) => new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString().replace('T', ' ').replace('Z', '')
const all = (db: Engine, relation: string) => db.query(`SELECT * FROM ${relation}`).rows.map((r) => JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort()
const RELATIONS = ['t', 'kept', 'whole', 'per_k', 'counts', 'rivulet_late_events']

function schema(db: Engine): void {
  db.execute('CREATE TABLE t (k INT PRIMARY KEY, v INT)')
  db.execute("CREATE STREAM kept (k INT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (retention = '20 seconds')")
  db.execute('CREATE STREAM whole (k INT, ts TIMESTAMP, WATERMARK FOR ts AS ts)')
  db.execute('CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k')
  db.execute('CREATE MATERIALIZED VIEW counts AS SELECT (SELECT count(*) FROM kept) AS kept, (SELECT count(*) FROM whole) AS whole')
}

/** Step `i`: an upsert, a delete now and then, a row into each stream (a late one now and then). */
function step(db: Engine, i: number): void {
  db.execute(`INSERT INTO t VALUES (${i % 7}, ${i}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`)
  if (i % 5 === 4) db.execute(`DELETE FROM t WHERE k = ${(i * 3) % 7}`)
  const at = i % 9 === 8 ? i - 30 : i
  db.execute(`INSERT INTO kept VALUES (${i}, '${ts(at)}')`)
  db.execute(`INSERT INTO whole VALUES (${i}, '${ts(at)}')`)
}

/** The records on disk: the DDL in SQLite, the ticks in the segment files. */
function records(dir: string): { ticks: number; ddl: number; first: number } {
  const raw = new Database(path.join(dir, 'rivulet.db'), { readonly: true })
  try {
    const { ddl } = raw.prepare("SELECT count(*) AS ddl FROM log WHERE kind = 'ddl'").get() as { ddl: number }
    const ticks = [...new LogSegments(path.join(dir, LOG_DIR)).records(0, Number.MAX_SAFE_INTEGER)].filter((r) => r.kind === 'tick')
    return { ticks: ticks.length, ddl, first: ticks[0]?.seq ?? 0 }
  } finally {
    raw.close()
  }
}

const open = (dir: string, logRetention = 0) => Engine.open({ dir, checkpointInterval: 0, historyInMemory: 8, logRetention })
function crashClose(db: Engine): void {
  internalsOf(db).checkpoints.onCloseEnabled = false
  db.close()
}

/** `count` steps on a durable engine (checkpointed where `checkpointAt` says) and on an
 *  in-memory one beside it; the durable one is left open. */
function alongside(count: number, checkpointAt: (i: number) => boolean): { dir: string; mem: Engine; db: Engine } {
  const dir = tempDir()
  const mem = Engine.open({ historyInMemory: 8 })
  const db = open(dir)
  schema(db)
  schema(mem)
  for (let i = 0; i < count; i++) {
    step(db, i)
    step(mem, i)
    if (checkpointAt(i)) db.execute('CHECKPOINT')
  }
  return { dir, mem, db }
}

describe('the log truncated behind its checkpoints', () => {
  it('drops what no kept checkpoint needs; reopens equal to a run that never stopped; rivulet_log shows what is kept', () => {
    const { dir, mem, db } = alongside(60, (i) => i % 20 === 19)
    const log = db.query('SELECT relation, first_offset, last_offset, rows FROM rivulet_log ORDER BY relation').rows
    crashClose(db)
    const kept = records(dir)
    expect(kept.ddl).toBe(5)
    // the stream without retention reads its history from the start, so its records stay; the
    // table's are in the checkpoints: but records are shared, so only retention frees them
    expect(kept.ticks).toBeGreaterThan(0)
    const again = open(dir)
    expect(again.recovery).toMatchObject({ checkpoint: again.recovery!.checkpoint, warnings: [] })
    for (const r of RELATIONS) expect(all(again, r), r).toEqual(all(mem, r))
    // a stream keeps from its first retained row; the table from the oldest checkpoint on
    const byName = new Map(log.map((r) => [r[0] as string, r]))
    expect(byName.get('whole')![1]).toBe(0)
    expect(Number(byName.get('kept')![1])).toBeGreaterThan(0)
    expect(Number(byName.get('t')![1])).toBeGreaterThan(0)
    for (let i = 60; i < 70; i++) {
      step(again, i)
      step(mem, i)
    }
    for (const r of RELATIONS) expect(all(again, r), r).toEqual(all(mem, r))
    again.close()
  })

  it('numbers records after what it truncated, also when the log then ends with DDL', () => {
    const dir = tempDir()
    let db = open(dir)
    db.execute('CREATE TABLE IF NOT EXISTS t (k INT PRIMARY KEY, v INT)')
    for (let k = 1; k <= 4; k++) db.execute(`INSERT INTO t VALUES (${k}, ${k})`)
    db.close() // its checkpoint truncates every tick before it: the log ends with the DDL
    db = open(dir)
    db.execute('CREATE TABLE IF NOT EXISTS t (k INT PRIMARY KEY, v INT)')
    db.execute('INSERT INTO t VALUES (5, 5)')
    crashClose(db)
    db = open(dir)
    expect(db.query('SELECT k FROM t ORDER BY k').rows).toEqual([[1], [2], [3], [4], [5]])
    db.close()
  })

  it('lets records go once no stream reads them: with retention only, the log stays bounded', () => {
    const dir = tempDir()
    const db = open(dir)
    db.execute("CREATE STREAM kept (k INT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (retention = '20 seconds')")
    db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM kept')
    for (let i = 0; i < 200; i++) {
      db.execute(`INSERT INTO kept VALUES (${i}, '${ts(i)}')`)
      if (i % 25 === 24) db.execute('CHECKPOINT')
    }
    expect(db.query('SELECT n FROM n').rows).toEqual([[200]])
    const kept = db.query('SELECT count(*) FROM kept').rows[0]![0] as number
    crashClose(db)
    const log = records(dir)
    // about retention + two checkpoint intervals of ticks, not 200
    expect(log.ticks).toBeLessThan(100)
    expect(log.first).toBeGreaterThan(100)
    const again = open(dir)
    expect(again.query('SELECT count(*) FROM kept').rows).toEqual([[kept]])
    expect(again.query('SELECT n FROM n').rows).toEqual([[200]])
    again.execute('CREATE MATERIALIZED VIEW later AS SELECT count(*) AS n, min(k) AS lo FROM kept')
    expect(again.query('SELECT n, lo FROM later').rows).toEqual([[kept, 200 - kept]])
    again.close()
  })

  it('falls back to the older checkpoint after truncation; with both damaged it refuses to open', () => {
    const { dir, mem, db } = alongside(45, (i) => i === 14 || i === 29)
    crashClose(db)
    const damage = (which: 'newest' | 'all') => {
      const raw = new Database(path.join(dir, 'rivulet.db'))
      const rows = raw.prepare('SELECT id, body FROM checkpoint ORDER BY id DESC').all() as { id: number; body: Buffer }[]
      for (const r of which === 'newest' ? rows.slice(0, 1) : rows) {
        // a byte of its own each time (flipping one twice would mend it)
        r.body[Math.floor(r.body.length / (which === 'newest' ? 2 : 3))] ^= 0x40
        raw.prepare('UPDATE checkpoint SET body = ? WHERE id = ?').run(r.body, r.id)
      }
      raw.close()
    }
    damage('newest')
    const again = open(dir)
    expect(again.recovery!.warnings.join('\n')).toMatch(/damaged.*recovering from the checkpoint before it/)
    for (const r of RELATIONS) expect(all(again, r), r).toEqual(all(mem, r))
    crashClose(again)
    damage('all')
    const e = rivuletError(() => open(dir))
    expect(e.code).toBe('XX001')
    expect(e.message).toMatch(/cannot be recovered: its log was truncated before record \d+/)
  })

  it('SUBSCRIBE … SINCE resumes from a checkpoint within what is kept, and refuses a tick before it', () => {
    const dir = tempDir()
    const db = open(dir)
    db.execute("CREATE STREAM kept (k INT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (retention = '5 seconds')")
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v INT)')
    db.execute('CREATE MATERIALIZED VIEW per_k AS SELECT k % 3 AS g, count(*) AS n FROM kept GROUP BY k % 3')
    const live: ChangeBatch[] = []
    db.subscribe('per_k', (b) => live.push(b), { snapshot: false })
    for (let i = 0; i < 60; i++) {
      db.execute(`INSERT INTO kept VALUES (${i}, '${ts(i)}')`)
      db.execute(`INSERT INTO t VALUES (${i % 4}, ${i}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`)
      if (i % 15 === 14) db.execute('CHECKPOINT')
    }
    const oldest = db.query('SELECT min(tick) FROM rivulet_checkpoints').rows[0]![0] as number
    const since = oldest + 3
    const resumed: ChangeBatch[] = []
    const sub = db.subscribe('per_k', (b) => resumed.push(b), { since })
    sub.stop()
    expect(resumed).toEqual(live.filter((b) => b.tick > since))
    const e = rivuletError(() => db.subscribe('per_k', () => {}, { since: 2 }))
    expect(e.code).toBe('22023')
    expect(e.message).toMatch(/older than the log retains: it resumes from tick \d+ on/)
    db.close()
  })
})
