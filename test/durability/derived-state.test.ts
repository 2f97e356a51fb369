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
