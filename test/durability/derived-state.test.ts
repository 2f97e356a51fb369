// Interval-join sides rebuilt from the log (src/engine/derived-state.ts): a side over a stream
// whose history keeps every row is left out of checkpoints and refilled on reopening from the
// history's chunks the watermarks have not freed. The checkpoint is then as small as the rest
// of the join's state, and reopening — after a clean close or a crash — gives what a run that
// never stopped gives, for inner joins, for the side an outer join does not preserve, and for
// Nexmark q7's shape (a stream joined with its own windows' maxima).
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import type { ChangeBatch } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { tempDirs } from '../helpers/temp-dirs.js'
import * as ivm from '../../ivm/index.js'

const tempDir = tempDirs('derived')

const EPOCH = Date.UTC(2024, 0, 1)
const ts = (ms: number): string => `'${new Date(EPOCH + ms).toISOString().replace('T', ' ').replace('Z', '')}'`

/** q7 over a stream with its whole history (derived) and over one with retention (saved). */
const q7 = (s: string): string =>
  `SELECT b.auction, b.price, b.ts FROM ${s} b JOIN (SELECT max(price) AS maxprice, window_end AS wend FROM TUMBLE(${s}, ts, INTERVAL '10' SECOND) GROUP BY window_start, window_end) m ` +
  `ON b.price = m.maxprice WHERE b.ts BETWEEN m.wend - INTERVAL '10' SECOND AND m.wend`
const SCHEMA = [
  "CREATE STREAM IF NOT EXISTS bid (auction INT, price INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)",
  "CREATE STREAM IF NOT EXISTS bid_r (auction INT, price INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (retention = '1 hour')",
  `CREATE MATERIALIZED VIEW IF NOT EXISTS q7 AS ${q7('bid')}`,
  `CREATE MATERIALIZED VIEW IF NOT EXISTS q7_r AS ${q7('bid_r')}`,
  "CREATE MATERIALIZED VIEW IF NOT EXISTS pairs AS SELECT a.auction, a.price AS x, b.price AS y FROM bid a JOIN bid b ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '3' SECOND",
  "CREATE MATERIALIZED VIEW IF NOT EXISTS outer_pairs AS SELECT a.auction, a.price AS x, b.price AS y FROM bid a LEFT JOIN bid b ON a.auction = b.auction AND b.ts BETWEEN a.ts + INTERVAL '1' SECOND AND a.ts + INTERVAL '4' SECOND",
]
const VIEWS = ['q7', 'q7_r', 'pairs', 'outer_pairs']

function open(dir?: string): Engine {
  // a few rows of history in memory: the rest are chunks read back from the log
  const db = Engine.open({ dir, checkpointInterval: 0, sources: 'manual', historyInMemory: 50 })
  for (const s of SCHEMA) db.execute(s)
  return db
}

function contents(db: Engine): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const v of VIEWS) out[v] = (db.query(`SELECT * FROM ${v}`).rows as unknown[][]).map((r) => JSON.stringify(r)).sort()
  return out
}

/** Ticks of bids, 20 per tick 100 ms of event time apart, a few out of order. */
function ingest(dbs: Engine[], from: number, ticks: number): void {
  let seed = from + 7
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  for (let t = from; t < from + ticks; t++) {
    const rows: string[] = []
    for (let i = 0; i < 20; i++) rows.push(`(${rand(100)}, ${rand(50)}, ${ts(t * 100 + i * 5 - rand(300))})`)
    for (const db of dbs) {
      db.execute(`INSERT INTO bid VALUES ${rows.join(', ')}`)
      db.execute(`INSERT INTO bid_r VALUES ${rows.join(', ')}`)
    }
  }
}

describe('interval-join sides rebuilt from the log', () => {
  it('are left out of checkpoints, and reopening after a clean close or a crash equals a run that never stopped', () => {
    const data = path.join(tempDir(), 'data')
    const db = open(data)
    const mem = open()
    ingest([db, mem], 0, 250)
    db.execute('CHECKPOINT')
    // the same join over the same rows: saved whole where the stream has retention, only its
    // windows' side where the history holds the bids
    const dir = internalsOf(db).log.dir!
    const c = dir.checkpoints().at(-1)!
    const bases = new Map(JSON.parse(c.parts!) as [string, number][])
    const bytesOf = (view: string): number => {
      let n = 0
      for (const [owner, base] of bases) if (owner.startsWith(`view ${view} `)) for (const b of dir.checkpointParts(c, owner, base)) n += b.length
      return n
    }
    expect(bytesOf('q7')).toBeLessThan(bytesOf('q7_r') / 4)
    ingest([db, mem], 250, 100)
    internalsOf(db).checkpoints.onCloseEnabled = false
    db.close()
    const back = open(data)
    expect(back.recovery!.warnings).toEqual([])
    expect(contents(back)).toEqual(contents(mem))
    // and it goes on alike: more bids, a checkpoint (a delta now), a clean close, a reopen
    ingest([back, mem], 350, 100)
    back.execute('CHECKPOINT')
    ingest([back, mem], 450, 40)
    back.close()
    const again = open(data)
    expect(again.recovery!.warnings).toEqual([])
    expect(contents(again)).toEqual(contents(mem))
    ingest([again, mem], 490, 40)
    expect(contents(again)).toEqual(contents(mem))
    again.close()
    mem.close()
  })
  it('SUBSCRIBE … SINCE a tick after a checkpoint that left a side out gives the live batches', () => {
    const dir = path.join(tempDir(), 'data')
    const db = open(dir)
    const live: ChangeBatch[] = []
    db.subscribe('pairs', (b) => live.push(b), { snapshot: false })
    for (let part = 0; part < 4; part++) {
      ingest([db], part * 60, 60)
      db.execute('CHECKPOINT')
    }
    const ticks = db.query('SELECT tick FROM rivulet_checkpoints ORDER BY tick').rows.map((r) => Number(r[0]))
    const since = ticks[1]! + 5
    const resumed: ChangeBatch[] = []
    db.subscribe('pairs', (b) => resumed.push(b), { since }).stop()
    expect(resumed.length).toBeGreaterThan(0)
    expect(resumed).toEqual(live.filter((b) => b.tick > since))
    db.close()
  })
})

// Arrangements of a table's rows as they are (the side of a join that reads a whole table)
// are left out too, and rebuilt from the table's store once it is loaded.
const TABLES = [
  'CREATE TABLE IF NOT EXISTS auctions (id INT PRIMARY KEY, category INT)',
  'CREATE TABLE IF NOT EXISTS bids (id INT PRIMARY KEY, auction INT, price INT)',
  // a bag: rows with counts
  'CREATE TABLE IF NOT EXISTS tags (auction INT, tag TEXT)',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS by_category AS SELECT a.category, count(*) AS n, sum(b.price) AS total FROM bids b JOIN auctions a ON b.auction = a.id GROUP BY a.category',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS tagged AS SELECT a.id, a.category, t.tag FROM auctions a JOIN tags t ON t.auction = a.id',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS unbid AS SELECT a.id, b.price FROM auctions a LEFT JOIN bids b ON b.auction = a.id AND b.price > 90',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS prices AS SELECT b.auction, array_agg(b.price ORDER BY b.price, b.id) AS ps FROM bids b JOIN auctions a ON b.auction = a.id WHERE a.category < 3 GROUP BY b.auction',
  // a projection before the arrangement makes rows equal: it holds them with their counts
  'CREATE MATERIALIZED VIEW IF NOT EXISTS bid_counts AS SELECT a.id, count(*) AS n FROM auctions a JOIN (SELECT auction FROM bids WHERE price > 10) b ON b.auction = a.id GROUP BY a.id',
]
const TABLE_VIEWS = ['by_category', 'tagged', 'unbid', 'prices', 'bid_counts']

function openTables(dir?: string, rebuild = true): Engine {
  const db = Engine.open({ dir, checkpointInterval: 0, sources: 'manual' })
  internalsOf(db).checkpoints.rebuildStates = rebuild
  for (const s of TABLES) db.execute(s)
  return db
}

function tableContents(db: Engine): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  // in scan order: rows of one join key come back in the order they had
  for (const v of TABLE_VIEWS) out[v] = (db.query(`SELECT * FROM ${v}`).rows as unknown[][]).map((r) => JSON.stringify(r))
  // and the arrangements as they hold them: distinct rows (equal ones added up) in keys
  for (const [name, op] of internalsOf(db).checkpoints.named()) if (op instanceof ivm.ArrangeOperator) out[name] = [op.arrangement.describe('rows')]
  return out
}

/** Ticks of inserts on the three tables, and with `deletes`, upserts and deletes. */
function changeTables(dbs: Engine[], from: number, ticks: number, deletes = true): void {
  let seed = from + 11
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  for (let t = from; t < from + ticks; t++) {
    const stmts = [
      deletes ? `INSERT INTO auctions VALUES (${rand(40)}, ${rand(5)}) ON CONFLICT (id) DO UPDATE SET category = excluded.category` : `INSERT INTO auctions VALUES (${t}, ${rand(5)})`,
      `INSERT INTO bids VALUES ${Array.from({ length: 8 }, (_, i) => `(${t * 8 + i}, ${rand(40)}, ${rand(100)})`).join(', ')}`,
      `INSERT INTO tags VALUES (${rand(40)}, 'tag${rand(3)}'), (${rand(40)}, 'tag${rand(3)}')`,
    ]
    if (deletes && t % 3 === 0) stmts.push(`DELETE FROM bids WHERE id % 17 = ${rand(17)}`, `UPDATE bids SET price = price + 1 WHERE auction = ${rand(40)}`)
    if (deletes && t % 5 === 0) stmts.push(`DELETE FROM tags WHERE auction = ${rand(40)}`, `DELETE FROM auctions WHERE id = ${rand(40)}`)
    for (const db of dbs) for (const s of stmts) db.execute(s)
  }
}

describe('arrangements of tables rebuilt from the tables', () => {
  it('are left out of checkpoints until a row is deleted; reopening after a clean close or a crash equals a run that never stopped', () => {
    const data = path.join(tempDir(), 'data')
    const db = openTables(data)
    const mem = openTables()
    changeTables([db, mem], 0, 120, false)
    db.execute('CHECKPOINT')
    const dir = internalsOf(db).log.dir!
    const owners = (d = dir): string[] => [...new Map(JSON.parse(d.checkpoints()[0]!.parts!) as [string, number][]).keys()]
    // the tables are saved, the joins' arrangements of them are not
    expect(owners()).toEqual(expect.arrayContaining(['store auctions', 'store bids', 'store tags']))
    expect(owners().filter((o) => o.startsWith('arrangement '))).toEqual([])
    changeTables([db, mem], 120, 60, false)
    internalsOf(db).checkpoints.onCloseEnabled = false
    db.close()
    const back = openTables(data)
    expect(back.recovery!.warnings).toEqual([])
    expect(tableContents(back)).toEqual(tableContents(mem))
    changeTables([back, mem], 180, 40, false)
    back.execute('CHECKPOINT')
    expect(owners(internalsOf(back).log.dir!).filter((o) => o.startsWith('arrangement '))).toEqual([])
    // deletes and updates: from the next checkpoint on, the arrangements are saved
    changeTables([back, mem], 220, 20)
    back.execute('CHECKPOINT')
    expect(owners(internalsOf(back).log.dir!).filter((o) => o.startsWith('arrangement ')).length).toBeGreaterThan(3)
    changeTables([back, mem], 240, 30)
    back.close()
    const again = openTables(data)
    expect(again.recovery!.warnings).toEqual([])
    expect(tableContents(again)).toEqual(tableContents(mem))
    changeTables([again, mem], 270, 40)
    expect(tableContents(again)).toEqual(tableContents(mem))
    again.close()
    mem.close()
  })
  it('a checkpoint that saved them (before layout 4) loads, and the next ones leave them out', () => {
    const data = path.join(tempDir(), 'data')
    const db = openTables(data, false)
    const mem = openTables()
    changeTables([db, mem], 0, 80, false)
    db.execute('CHECKPOINT')
    const dir = internalsOf(db).log.dir!
    expect([...new Map(JSON.parse(dir.checkpoints().at(-1)!.parts!) as [string, number][]).keys()].some((o) => o.startsWith('arrangement '))).toBe(true)
    changeTables([db, mem], 80, 20, false)
    internalsOf(db).checkpoints.onCloseEnabled = false
    db.close()
    const back = openTables(data)
    expect(tableContents(back)).toEqual(tableContents(mem))
    changeTables([back, mem], 100, 40, false)
    back.execute('CHECKPOINT')
    const dir2 = internalsOf(back).log.dir!
    expect([...new Map(JSON.parse(dir2.checkpoints()[0]!.parts!) as [string, number][]).keys()].filter((o) => o.startsWith('arrangement '))).toEqual([])
    changeTables([back, mem], 140, 20, false)
    internalsOf(back).checkpoints.onCloseEnabled = false
    back.close()
    const again = openTables(data)
    expect(again.recovery!.warnings).toEqual([])
    expect(tableContents(again)).toEqual(tableContents(mem))
    again.close()
    mem.close()
  })
})

// Views and arrangements of every row of a stream, projected, are left out and rebuilt from
// the stream's history (when it keeps every row); a filtered one, or one over a stream with a
// retention, is saved.
const STREAM_SCHEMA = [
  ...SCHEMA.slice(0, 2),
  'CREATE TABLE IF NOT EXISTS names (auction INT PRIMARY KEY, name TEXT)',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS everything AS SELECT * FROM bid',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS doubled AS SELECT auction, price * 2 AS p2 FROM bid',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS cheap AS SELECT * FROM bid WHERE price < 10',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS kept AS SELECT auction, price FROM bid_r',
  'CREATE MATERIALIZED VIEW IF NOT EXISTS named_bids AS SELECT b.auction, b.price, n.name FROM bid b JOIN names n ON b.auction = n.auction',
]
const STREAM_VIEWS = ['everything', 'doubled', 'cheap', 'kept', 'named_bids']

function openStreams(dir?: string): Engine {
  const db = Engine.open({ dir, checkpointInterval: 0, sources: 'manual', historyInMemory: 50 })
  for (const s of STREAM_SCHEMA) db.execute(s)
  return db
}

function streamContents(db: Engine): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const v of STREAM_VIEWS) out[v] = (db.query(`SELECT * FROM ${v}`).rows as unknown[][]).map((r) => JSON.stringify(r))
  for (const [name, op] of internalsOf(db).checkpoints.named()) if (op instanceof ivm.ArrangeOperator || op instanceof ivm.IntegrateOperator) out[name] = [op.describeState()]
  return out
}

function ingestNamed(dbs: Engine[], from: number, ticks: number): void {
  for (let t = from; t < from + ticks; t += 10) for (const db of dbs) db.execute(`INSERT INTO names VALUES (${t % 100}, 'n${t}'), (${(t * 7 + 3) % 100}, 'm${t}') ON CONFLICT (auction) DO NOTHING`)
  ingest(dbs, from, ticks)
}

describe("views and arrangements of a stream's rows rebuilt from its history", () => {
  it('are left out of checkpoints; reopening equals a run that never stopped, in the same order', () => {
    const data = path.join(tempDir(), 'data')
    const db = openStreams(data)
    const mem = openStreams()
    ingestNamed([db, mem], 0, 150)
    db.execute('CHECKPOINT')
    const dir = internalsOf(db).log.dir!
    const owners = [...new Map(JSON.parse(dir.checkpoints()[0]!.parts!) as [string, number][]).keys()]
    expect(owners.filter((o) => /^view (everything|doubled) /.test(o) || o.startsWith('arrangement '))).toEqual([])
    expect(owners.filter((o) => /^view (cheap|kept) /.test(o)).length).toBe(2)
    ingestNamed([db, mem], 150, 60)
    internalsOf(db).checkpoints.onCloseEnabled = false
    db.close()
    const back = openStreams(data)
    expect(back.recovery!.warnings).toEqual([])
    // a view of a stream scans in arrival order, after a reopen too
    expect(streamContents(back)).toEqual(streamContents(mem))
    ingestNamed([back, mem], 210, 60)
    back.execute('CHECKPOINT')
    ingestNamed([back, mem], 270, 30)
    back.close()
    const again = openStreams(data)
    expect(again.recovery!.warnings).toEqual([])
    expect(streamContents(again)).toEqual(streamContents(mem))
    ingestNamed([again, mem], 300, 30)
    expect(streamContents(again)).toEqual(streamContents(mem))
    again.close()
    mem.close()
  })
})
