// Engine.open({ dir }) (src/engine/durable-log.ts, src/storage/): every kind of input survives a
// close and reopen exactly (tables with upserts, deletes and bags, streams with late events,
// versioned tables, COPY with rejected records, insert()/delete(), blocks, every value type, a
// source resuming from its offset), IF NOT EXISTS for every object kind, rivulet_log, the two
// durability levels, the directory lock, the format version and the fixture written by an
// earlier release, damage (a flipped byte, a torn tail), and sinks written once.
import { appendFileSync, cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { rivuletError } from '../helpers/errors.js'
import { internalsOf } from '../../src/engine/engine.js'
import { LOG_DIR } from '../../src/storage/data-dir.js'
import { HEADER_BYTES } from '../../src/storage/log-segments.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const tempDir = tempDirs('durable')

const error = rivuletError

/** Closes without the closing checkpoint: the directory as a crash leaves it (log only). */
function crashClose(db: Engine): void {
  internalsOf(db).checkpoints.onCloseEnabled = false
  db.close()
}

/** The `k` of each line of a file sink's JSON lines. */
const keysOf = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { k: number }).k)

/** A durable engine with a table t and a sink of it into `target`: data dir, target, engine. */
function withSink(connector: 'file' | 'sqlite', options = ''): { data: string; target: string; db: Engine } {
  const dir = tempDir()
  const data = path.join(dir, 'data')
  const target = path.join(dir, connector === 'file' ? 'out.jsonl' : 'out.db')
  const db = Engine.open({ dir: data })
  db.execute('CREATE TABLE t (k INT)')
  db.execute(`CREATE SINK s FROM t WITH (connector = '${connector}', path = '${target}'${options})`)
  db.execute('INSERT INTO t VALUES (1)')
  return { data, target, db }
}

const all = (db: Engine, relation: string) => db.query(`SELECT * FROM ${relation}`).rows.map((r) => JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).sort()

/** Every input kind, run on `db` (a table, a bag, a stream with late events, a versioned table
 *  and a temporal join, COPY with a rejected record, the API, a block, every value type). */
function workload(db: Engine, csv: string): void {
  db.execute(`CREATE TABLE t (k INT PRIMARY KEY, v TEXT, n NUMERIC(10, 2), i INTERVAL, a INT[], b BIGINT, f DOUBLE PRECISION, ok BOOLEAN, d DATE)`)
  db.execute('CREATE TABLE bag (x INT)')
  db.execute("CREATE STREAM s (id INT, cur TEXT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)")
  db.execute("CREATE TABLE rates (cur TEXT PRIMARY KEY, rate INT, at TIMESTAMP, WATERMARK FOR at AS at - INTERVAL '1' SECOND)")
  db.execute('CREATE MATERIALIZED VIEW totals AS SELECT ok, count(*) AS c, sum(n) AS sn, sum(b) AS sb FROM t GROUP BY ok')
  db.execute("CREATE MATERIALIZED VIEW win AS SELECT window_start, count(*) AS c FROM TUMBLE(s, ts, INTERVAL '10' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE")
  db.execute('CREATE MATERIALIZED VIEW priced AS SELECT s.id, r.rate FROM s JOIN rates FOR SYSTEM_TIME AS OF s.ts AS r ON s.cur = r.cur')
  db.execute("INSERT INTO t VALUES (1, 'a', 1.5, '1 day 02:00', ARRAY[1, 2], 9007199254740993, 0.1, true, '2024-02-29'), (2, 'b', -2.25, '3 mons', '{}', -1, 'NaN', false, '1999-12-31')")
  db.execute("INSERT INTO t VALUES (1, 'z', 9, '1 sec', NULL, 5, -0.0, NULL, NULL) ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = excluded.n")
  db.execute('UPDATE t SET b = b * 2 WHERE k = 2')
  db.execute('INSERT INTO bag VALUES (1), (1), (2)')
  db.execute('DELETE FROM bag WHERE x = 2')
  db.execute("INSERT INTO rates VALUES ('eur', 10, '2024-01-01 00:00:00'), ('usd', 20, '2024-01-01 00:00:00')")
  db.execute("INSERT INTO rates VALUES ('eur', 11, '2024-01-01 00:00:20') ON CONFLICT (cur) DO UPDATE SET rate = excluded.rate, at = excluded.at")
  db.execute("INSERT INTO s VALUES (1, 'eur', '2024-01-01 00:00:01'), (2, 'usd', '2024-01-01 00:00:30'), (3, 'eur', '2024-01-01 00:00:25')")
  db.execute("INSERT INTO s VALUES (4, 'eur', '2024-01-01 00:00:02')") // late
  db.execute("BEGIN; INSERT INTO t VALUES (3, 'c', 3, '0', NULL, 3, 3, true, '2024-01-01'); DELETE FROM t WHERE k = 2; INSERT INTO s VALUES (5, 'usd', '2024-01-01 00:00:45'); COMMIT")
  db.insert('t', [{ k: 4, v: 'api', n: '4.44', ok: true }])
  db.delete('t', [{ k: 3 }])
  db.execute(`COPY bag FROM '${csv}' WITH (FORMAT csv)`)
}

const RELATIONS = ['t', 'bag', 's', 'rates', 'totals', 'win', 'priced', 'rivulet_late_events', 'rivulet_rejected']

describe('Engine.open({ dir })', () => {
  it.each(['the whole log (a crash: no closing checkpoint)', 'the checkpoint a clean close took'])('every kind of input survives close and reopen, from %s, and the state equals an in-memory run', (from) => {
    const crash = from.startsWith('the whole log')
    const dir = tempDir()
    const csv = path.join(dir, 'in.csv')
    writeFileSync(csv, '7\n8\nnot a number\n9\n')
    const mem = Engine.open()
    workload(mem, csv)
    const db = Engine.open({ dir: path.join(dir, 'data') })
    workload(db, csv)
    // COPY's rows are in the log: the file is not read again
    rmSync(csv)
    const tick = db.tick
    if (crash) crashClose(db)
    else db.close()
    const again = Engine.open({ dir: path.join(dir, 'data') })
    for (const r of RELATIONS) expect(all(again, r), r).toEqual(all(mem, r))
    expect(again.tick).toBe(tick)
    expect(again.tick).toBe(mem.tick)
    expect(again.watermark('s')).toBe(mem.watermark('s'))
    expect(again.lateEvents('s')).toBe(1)
    expect(again.recovery).toMatchObject(crash ? { checkpoint: null, ticks: tick } : { checkpoint: tick, records: 0, warnings: [] })
    const progress: unknown[] = []
    Engine.open({ dir: path.join(dir, 'data2'), onProgress: (p) => progress.push(p) }).close()
    expect(progress).toEqual([])
    // and it goes on from there
    again.execute("INSERT INTO s VALUES (6, 'eur', '2024-01-01 00:01:00')")
    mem.execute("INSERT INTO s VALUES (6, 'eur', '2024-01-01 00:01:00')")
    expect(all(again, 'win')).toEqual(all(mem, 'win'))
    crashClose(again)
    // recovery reports its progress while it runs (the records after the checkpoint, if any)
    const seen: { task: string; done: number; total: number }[] = []
    const third = Engine.open({ dir: path.join(dir, 'data'), onProgress: (p) => seen.push(p) })
    expect(seen.at(-1)).toEqual({ task: 'recovery', relation: '', done: third.recovery!.records, total: third.recovery!.records })
    expect(all(third, 'win')).toEqual(all(mem, 'win'))
    third.close()
  })

  it('time-driven views replay with the processing time each tick had; views in error stay in error', () => {
    const dir = tempDir()
    let now = Date.UTC(2024, 0, 1, 12)
    const run = (db: Engine) => {
      db.execute('CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMP, d INT)')
      db.execute("CREATE MATERIALIZED VIEW recent AS SELECT id FROM ev WHERE ts > NOW() - INTERVAL '1' HOUR")
      db.execute('CREATE MATERIALIZED VIEW ratio AS SELECT id, 10 / d AS r FROM ev')
      db.execute("INSERT INTO ev VALUES (1, '2024-01-01 11:30:00', 1), (2, '2024-01-01 11:50:00', 0)")
      now += 45 * 60_000 // 12:45: row 1 has left the window
      db.refresh()
      db.execute("INSERT INTO ev VALUES (3, '2024-01-01 12:40:00', 5)")
    }
    const mem = Engine.open({ clock: () => now })
    run(mem)
    const memTick = mem.tick
    now = Date.UTC(2024, 0, 1, 12)
    const db = Engine.open({ dir, clock: () => now })
    run(db)
    db.close()
    // reopened much later: the replay uses the logged times, not the clock
    now = Date.UTC(2030, 0, 1)
    const again = Engine.open({ dir, clock: () => now })
    expect(again.tick).toBe(memTick)
    expect(all(again, 'recent')).toEqual(all(mem, 'recent'))
    expect(all(again, 'rivulet_view_errors')).toEqual(all(mem, 'rivulet_view_errors'))
    expect(error(() => again.query('SELECT * FROM ratio')).code).toBe('22012')
    again.close()
  })

  it('a source resumes from its committed offset', () => {
    const dir = tempDir()
    const sql = "CREATE SOURCE IF NOT EXISTS nx WITH (connector = 'nexmark', events = 5000, batch = 500)"
    const view = 'CREATE MATERIALIZED VIEW IF NOT EXISTS per_auction AS SELECT auction, count(*) AS c, max(price) AS m FROM bid GROUP BY auction'
    const mem = Engine.open({ sources: 'manual' })
    mem.execute(sql)
    mem.execute(view)
    mem.stepSource('nx')
    let db = Engine.open({ dir, sources: 'manual' })
    db.execute(sql)
    db.execute(view)
    db.stepSource('nx', 2000)
    db.close()
    db = Engine.open({ dir, sources: 'manual' })
    db.execute(sql)
    db.execute(view)
    expect(db.sourceStatus('nx').events).toBe(2000)
    db.stepSource('nx')
    expect(db.sourceStatus('nx')).toMatchObject({ events: 5000, done: true })
    for (const r of ['per_auction', 'person', 'auction']) expect(all(db, r), r).toEqual(all(mem, r))
    db.close()
  })

  it('CREATE … IF NOT EXISTS works for every object kind, so a program declares its schema at start', () => {
    const dir = tempDir()
    const out = path.join(dir, 'out.db')
    const schema = [
      'CREATE TABLE IF NOT EXISTS t (k INT PRIMARY KEY, v INT)',
      'CREATE STREAM IF NOT EXISTS s (x INT, ts TIMESTAMP)',
      'CREATE TABLE IF NOT EXISTS s2 (x INT) APPEND ONLY',
      'CREATE VIEW IF NOT EXISTS v AS SELECT k FROM t',
      'CREATE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT v, count(*) AS c FROM t GROUP BY v',
      'CREATE INDEX IF NOT EXISTS t_v ON t (v)',
      "CREATE SOURCE IF NOT EXISTS nx WITH (connector = 'nexmark', events = 10)",
      `CREATE SINK IF NOT EXISTS out FROM mv WITH (connector = 'sqlite', path = '${out}', table = 'mv', mode = 'upsert')`,
    ]
    for (let start = 0; start < 3; start++) {
      const db = Engine.open({ dir: path.join(dir, 'data'), sources: 'manual' })
      for (const s of schema) db.execute(s)
      db.execute(`INSERT INTO t VALUES (${start}, 1)`)
      db.close()
    }
    const db = Engine.open({ dir: path.join(dir, 'data') })
    expect(db.query('SELECT v, c FROM mv').rows).toEqual([[1, 3]])
    db.close()
    const target = new Database(out, { readonly: true })
    expect(target.prepare('SELECT v, c FROM mv').raw().all()).toEqual([[1, 3]])
    target.close()
  })

  it('rivulet_log lists each relation with its offsets, rows and bytes', () => {
    const db = Engine.open({ dir: tempDir() })
    db.execute('CREATE TABLE t (k INT PRIMARY KEY)')
    db.execute("CREATE STREAM s (ts TIMESTAMP, WATERMARK FOR ts AS ts)")
    db.execute('INSERT INTO t VALUES (1), (2)')
    db.execute('DELETE FROM t WHERE k = 1')
    db.execute("INSERT INTO s VALUES ('2024-01-01 00:00:10'), ('2024-01-01 00:00:00')")
    const rows = db.query('SELECT relation, first_offset, last_offset, rows, bytes > 0 FROM rivulet_log ORDER BY relation').rows
    expect(rows).toEqual([
      ['s', 0, 1, 2, true],
      ['t', 0, 2, 3, true],
    ])
    db.close()
    expect(Engine.open().query('SELECT count(*) FROM rivulet_log').rows).toEqual([[0]])
  })

  it('durability: power by default, process on request (option or SET); a bad level is refused', () => {
    const dir = tempDir()
    const db = Engine.open({ dir, durability: 'process' })
    const synchronous = () => (internalsOf(db).log.dir as unknown as { durability: string }).durability
    expect(synchronous()).toBe('process')
    db.execute("SET durability = 'power'")
    expect(synchronous()).toBe('power')
    expect(error(() => db.execute("SET durability = 'sometimes'")).code).toBe('22023')
    db.close()
  })

  it('a directory open in one engine cannot be opened by another', () => {
    const dir = tempDir()
    const db = Engine.open({ dir })
    const e = error(() => Engine.open({ dir }))
    expect(e.message).toMatch(/in use by another process/)
    db.close()
    Engine.open({ dir }).close()
  })

  it('refuses a directory of a newer format, and opens the one an earlier release wrote', () => {
    const dir = tempDir()
    Engine.open({ dir }).close()
    const meta = new Database(path.join(dir, 'rivulet.db'))
    meta.prepare("UPDATE meta SET value = '99' WHERE key = 'format_version'").run()
    meta.close()
    expect(error(() => Engine.open({ dir })).message).toMatch(/format version 99/)

    // test/fixtures/data-dir-v<N>: one written by the release of each format (v1: the log;
    // v2: column batches, a checkpoint, the log truncated behind it, stream history in the
    // log), by test/fixtures/write-data-dir.mjs; every one opens, and goes on being written
    const fixtures = readdirSync(path.join(here, '..', 'fixtures')).filter((f) => /^data-dir-v\d+$/.test(f))
    expect(fixtures.length).toBeGreaterThanOrEqual(2)
    const sortedRows = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))).sort()
    for (const fixture of fixtures) {
      const copy = path.join(tempDir(), fixture)
      cpSync(path.join(here, '..', 'fixtures', fixture), copy, { recursive: true })
      const old = Engine.open({ dir: copy, sources: 'manual' })
      const expected = JSON.parse(readFileSync(path.join(here, '..', 'fixtures', `${fixture}.expected.json`), 'utf8')) as Record<string, unknown[][]>
      for (const [relation, rows] of Object.entries(expected)) expect(sortedRows(old.query(`SELECT * FROM ${relation}`).rows), `${fixture} ${relation}`).toEqual(sortedRows(rows))
      old.execute("INSERT INTO acct VALUES (9, 'zoe', 1.00, NULL, NULL)")
      old.close()
      const again = Engine.open({ dir: copy, sources: 'manual' })
      expect(again.query('SELECT count(*) FROM acct WHERE id = 9').rows, fixture).toEqual([[1]])
      again.close()
    }
  })

  /** The log's one segment file and where its records are (offset, seq, body length). */
  const segment = (dir: string): { file: string; records: { offset: number; seq: number; length: number }[] } => {
    const files = readdirSync(path.join(dir, LOG_DIR)).filter((f) => f.endsWith('.seg'))
    expect(files).toHaveLength(1)
    const file = path.join(dir, LOG_DIR, files[0]!)
    const bytes = readFileSync(file)
    const records: { offset: number; seq: number; length: number }[] = []
    for (let at = 0; at < bytes.length; at += HEADER_BYTES + bytes.readUInt32LE(at + 4)) records.push({ offset: at, seq: bytes.readDoubleLE(at + 16), length: bytes.readUInt32LE(at + 4) })
    return { file, records }
  }

  it.each(['first', 'last'] as const)('a flipped byte in the %s record of the log is detected and reported: never a silent fresh start', (which) => {
    const dir = tempDir()
    const db = Engine.open({ dir })
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v TEXT)')
    db.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
    db.execute("INSERT INTO t VALUES (3, 'three')")
    crashClose(db)
    const { file, records } = segment(dir)
    expect(records).toHaveLength(2)
    const rec = which === 'first' ? records[0]! : records[1]!
    const bytes = readFileSync(file)
    bytes[rec.offset + HEADER_BYTES + rec.length - 2] ^= 0x10
    writeFileSync(file, bytes)
    const e = error(() => Engine.open({ dir }))
    expect(e.code).toBe('XX001')
    expect(e.message).toMatch(new RegExp(`log record ${rec.seq} .* is damaged`))
  })

  it.each([
    ['cut inside its body', (file: string, last: { offset: number }) => truncateSync(file, last.offset + HEADER_BYTES + 3)],
    ['cut inside its header', (file: string, last: { offset: number }) => truncateSync(file, last.offset + 10)],
    ['zeros after the last record (a power loss)', (file: string) => appendFileSync(file, Buffer.alloc(4096))],
  ])('a torn last record (%s) is cut off, reported, and every earlier tick is there', (_, tear) => {
    const dir = tempDir()
    const db = Engine.open({ dir })
    db.execute('CREATE TABLE t (k INT PRIMARY KEY)')
    for (let k = 1; k <= 20; k++) db.execute(`INSERT INTO t VALUES (${k})`)
    crashClose(db)
    const { file, records } = segment(dir)
    tear(file, records.at(-1)!)
    const again = Engine.open({ dir })
    expect(again.recovery!.warnings.join('\n')).toMatch(/cut off a torn last record of the log/)
    const keys = again.query('SELECT k FROM t ORDER BY k').rows.map((r) => r[0] as number)
    expect(keys.length).toBeGreaterThanOrEqual(19)
    expect(keys).toEqual(keys.map((_, i) => i + 1))
    // and it goes on from there
    again.execute('INSERT INTO t VALUES (100)')
    crashClose(again)
    const third = Engine.open({ dir })
    expect(third.recovery!.warnings).toEqual([])
    expect(third.query('SELECT count(*) FROM t').rows).toEqual([[keys.length + 1]])
    third.close()
  })

  it('a directory of format 4 keeps its tick records in SQLite: replayed merged with the new ones in segments', () => {
    const dir = path.join(tempDir(), 'v4')
    cpSync(path.join(here, '..', 'fixtures', 'data-dir-v4'), dir, { recursive: true })
    const db = Engine.open({ dir, sources: 'manual', checkpointInterval: 0 })
    expect(db.recovery!.records).toBeGreaterThan(0) // ticks after its checkpoint, in SQLite
    db.execute("INSERT INTO acct VALUES (9, 'zoe', 1.00, NULL, NULL)")
    const expected = db.query('SELECT id, owner FROM acct ORDER BY id').rows
    crashClose(db)
    const again = Engine.open({ dir, sources: 'manual' })
    expect(again.query('SELECT id, owner FROM acct ORDER BY id').rows).toEqual(expected)
    again.close()
  })

  it('a failed append fails the statement and changes nothing; what was acknowledged survives', () => {
    const dir = tempDir()
    const db = Engine.open({ dir })
    db.execute('CREATE TABLE t (k INT PRIMARY KEY)')
    db.execute('CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM t')
    db.execute('INSERT INTO t VALUES (1)')
    const storage = internalsOf(db).log.dir!
    storage.beforeWrite = () => {
      throw new Error('disk full')
    }
    expect(error(() => db.execute('INSERT INTO t VALUES (2)')).message).toMatch(/disk full/)
    expect(() => db.insert('t', [{ k: 3 }])).toThrow(/disk full/)
    expect(db.query('SELECT n FROM c').rows).toEqual([[1]])
    // a DDL whose append fails: the engine stops writing until reopened
    expect(() => db.execute('CREATE TABLE u (x INT)')).toThrow(/disk full/)
    storage.beforeWrite = undefined
    expect(error(() => db.execute('INSERT INTO t VALUES (4)')).message).toMatch(/stopped writing/)
    db.close()
    const again = Engine.open({ dir })
    expect(again.query('SELECT k FROM t').rows).toEqual([[1]])
    again.close()
  })
})

describe('SUBSCRIBE … WITH (SINCE = n)', () => {
  it('delivers every tick after n once, read back from the log, then the live ticks', () => {
    const dir = tempDir()
    let db = Engine.open({ dir })
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, g INT)')
    db.execute('CREATE MATERIALIZED VIEW per_g AS SELECT g, count(*) AS n FROM t GROUP BY g')
    const seen: { tick: number; changes: unknown }[] = []
    db.subscribe('per_g', (b) => seen.push({ tick: b.tick, changes: b.changes }), { snapshot: false })
    for (let k = 1; k <= 6; k++) db.execute(`INSERT INTO t VALUES (${k}, ${k % 2})`)
    db.execute('DELETE FROM t WHERE k = 2')
    db.close()
    db = Engine.open({ dir })
    const since = seen[2]!.tick
    const resumed: { tick: number; changes: unknown }[] = []
    const sub = db.subscribe('per_g', (b) => resumed.push({ tick: b.tick, changes: b.changes }), { since })
    expect(resumed).toEqual(seen.slice(3))
    db.execute('INSERT INTO t VALUES (9, 1)')
    expect(resumed.map((b) => b.tick)).toEqual([...seen.slice(3).map((b) => b.tick), db.tick])
    sub.stop()
    // the statement, over a query: the same ticks
    const viaQuery: number[] = []
    const q = db.subscribeStatement(`SUBSCRIBE (SELECT g, count(*) AS n FROM t GROUP BY g) WITH (SINCE = ${since})`, (b) => viaQuery.push(b.tick))
    expect(viaQuery).toEqual(resumed.map((b) => b.tick))
    q.stop()
    expect(error(() => db.subscribe('per_g', () => undefined, { since: db.tick + 1 })).code).toBe('22023')
    db.close()
    // its hidden view is the subscriber's, not the schema's: a reopened engine has none
    db = Engine.open({ dir })
    expect(db.relations().map((r) => r.name).sort()).toEqual(['per_g', 't'])
    db.close()
    expect(error(() => Engine.open().subscribeStatement('SUBSCRIBE (SELECT 1) WITH (SINCE = 0)', () => undefined)).code).toBe('55000')
  })
})

describe('effectively-once sinks', () => {
  it('sqlite changes and upsert, file changes and debezium: values as the engine returns them', () => {
    const dir = tempDir()
    const db = Engine.open({ dir: path.join(dir, 'data') })
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, g TEXT, n NUMERIC, at TIMESTAMP, ok BOOLEAN)')
    db.execute('CREATE MATERIALIZED VIEW per_g AS SELECT g, count(*) AS c, sum(n) AS s FROM t GROUP BY g')
    const db1 = path.join(dir, 'out.db')
    db.execute(`CREATE SINK changes FROM t WITH (connector = 'sqlite', path = '${db1}', table = 'changes')`)
    db.execute(`CREATE SINK upsert FROM per_g WITH (connector = 'sqlite', path = '${db1}', table = 'per_g', mode = 'upsert')`)
    db.execute(`CREATE SINK lines FROM t WITH (connector = 'file', path = '${dir}/t.jsonl')`)
    db.execute(`CREATE SINK dbz FROM t WITH (connector = 'file', path = '${dir}/t.dbz.jsonl', format = 'debezium')`)
    db.execute("INSERT INTO t VALUES (1, 'a', 1.50, '2024-01-01 10:00:00', true), (2, 'a', 2, NULL, false)")
    db.execute("UPDATE t SET g = 'b' WHERE k = 2")
    const tick = db.tick
    db.close()
    const out = new Database(db1, { readonly: true })
    expect(out.prepare('SELECT * FROM changes ORDER BY tick, diff, k').raw().all()).toEqual([
      [1, 'a', '1.50', '2024-01-01 10:00:00', 1, tick - 1, 1],
      [2, 'a', '2', null, 0, tick - 1, 1],
      [2, 'a', '2', null, 0, tick, -1],
      [2, 'b', '2', null, 0, tick, 1],
    ])
    expect(out.prepare('SELECT * FROM per_g ORDER BY g').raw().all()).toEqual([
      ['a', 1, '1.50'],
      ['b', 1, '2'],
    ])
    out.close()
    const lines = readFileSync(path.join(dir, 't.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines[0]).toEqual({ k: 1, g: 'a', n: '1.50', at: '2024-01-01 10:00:00', ok: true, tick: tick - 1, diff: 1 })
    expect(lines).toHaveLength(4)
    const dbz = readFileSync(path.join(dir, 't.dbz.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(dbz.map((d) => d.op).sort()).toEqual(['c', 'c', 'c', 'd'])
    expect(dbz.find((d) => d.op === 'd')).toMatchObject({ before: { k: 2, g: 'a' }, after: null, source: { connector: 'rivulet', sink: 'dbz', tick } })
  })

  it('a sink whose target fails stops there, says why, and catches up when the directory is reopened', () => {
    const { data, target: file, db: first } = withSink('file')
    let db = first
    const storage = internalsOf(db).log.dir!
    storage.beforeWrite = (what) => {
      if (what === 'sink progress') throw new Error('disk full')
    }
    db.execute('INSERT INTO t VALUES (2)')
    storage.beforeWrite = undefined
    db.execute('INSERT INTO t VALUES (3)')
    expect(db.sinkStatus('s').error).toMatch(/stopped at tick 2: .*disk full; reopen the data directory/)
    db.close()
    db = Engine.open({ dir: data })
    db.close()
    expect(keysOf(file)).toEqual([1, 2, 3])
  })

  it('a partly written last tick of a file sink is cut on reopening, and written again once', () => {
    const { data, target: file, db: first } = withSink('file')
    let db = first
    db.execute('INSERT INTO t VALUES (2)')
    db.close()
    const good = readFileSync(file, 'utf8')
    appendFileSync(file, '{"k": 3, "tick": 3, "di')
    db = Engine.open({ dir: data })
    expect(readFileSync(file, 'utf8')).toBe(good)
    db.execute('INSERT INTO t VALUES (3)')
    db.close()
    expect(keysOf(file)).toEqual([1, 2, 3])
  })

  it('a tick whose sink write did not happen before a crash is written on recovery; a dropped sink starts afresh', () => {
    const { data, target: out, db: first } = withSink('sqlite', ", table = 'c'")
    let db = first
    // the sink's target loses its last transaction (as if the crash came between the log's
    // append and the sink's write): replay writes that tick, once
    const target = new Database(out)
    target.prepare('DELETE FROM c WHERE k = 1').run()
    target.prepare('UPDATE _rivulet_sink_progress SET tick = tick - 1').run()
    target.close()
    crashClose(db)
    db = Engine.open({ dir: data })
    db.execute('DROP SINK s')
    db.execute(`CREATE SINK s FROM t WITH (connector = 'sqlite', path = '${out}', table = 'c2')`)
    db.execute('INSERT INTO t VALUES (2)')
    db.close()
    db = Engine.open({ dir: data })
    db.close()
    const check = new Database(out, { readonly: true })
    expect(check.prepare('SELECT k, diff FROM c').raw().all()).toEqual([[1, 1]])
    expect(check.prepare('SELECT k, diff FROM c2 ORDER BY k').raw().all()).toEqual([
      [1, 1],
      [2, 1],
    ])
    check.close()
  })
})
