// Incremental checkpoints (src/engine/checkpoints.ts, ivm/keyed-state.ts): tables, arrangements,
// view contents and GROUP BY groups save a base once and then only the keys changed since the
// checkpoint before. A checkpoint after a small change is small; reopening from a chain of
// deltas (with new bases now and then) gives exactly a run that never stopped, map order
// included; a damaged delta falls back, loudly, to the checkpoint before it.
import path from 'node:path'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { tempDirs } from '../helpers/temp-dirs.js'
import { partsOf, replacePart } from '../helpers/state-parts.js'

const tempDir = tempDirs('incremental')

const SCHEMA = [
  'CREATE TABLE acct (id INT PRIMARY KEY, owner INT, balance INT)',
  'CREATE TABLE bag (v INT, w TEXT)',
  'CREATE MATERIALIZED VIEW by_owner AS SELECT owner, count(*) AS n, sum(balance) AS total, max(balance) AS top FROM acct GROUP BY owner',
  'CREATE MATERIALIZED VIEW owner_bag AS SELECT a.id, b.w FROM acct a JOIN bag b ON a.owner = b.v',
  'CREATE MATERIALIZED VIEW kinds AS SELECT DISTINCT w FROM bag',
]
const RELATIONS = ['acct', 'bag', 'by_owner', 'owner_bag', 'kinds']

function open(dir?: string): Engine {
  const db = Engine.open({ dir, checkpointInterval: 0, sources: 'manual' })
  for (const s of SCHEMA) db.execute(s.replace(/^CREATE (TABLE|MATERIALIZED VIEW) /, 'CREATE $1 IF NOT EXISTS '))
  return db
}

/** Every relation's rows in the order a scan returns them (map order, not sorted). */
function scans(db: Engine): Record<string, unknown[][]> {
  const out: Record<string, unknown[][]> = {}
  for (const r of RELATIONS) out[r] = db.query(`SELECT * FROM ${r}`).rows as unknown[][]
  return out
}

function crash(db: Engine): void {
  internalsOf(db).checkpoints.onCloseEnabled = false
  db.close()
}

function newestBytes(db: Engine): number {
  return Number(db.query('SELECT bytes FROM rivulet_checkpoints ORDER BY log_seq DESC LIMIT 1').rows[0]![0])
}

/** An engine on a fresh data directory and one in memory, and a way to run SQL on both. */
function durableAndInMemory(): { data: string; db: Engine; mem: Engine; both: (sql: string) => void } {
  const data = path.join(tempDir(), 'data')
  const db = open(data)
  const mem = open()
  const both = (sql: string): void => {
    db.execute(sql)
    mem.execute(sql)
  }
  return { data, db, mem, both }
}

/** A base file the rebase worker wrote (a checkpoint's own are c….bin). */
const WORKER_FILE = /^r\d+-\d+\.bin$/

/** The newest checkpoint of a closed directory: its id, and per owner its base (checkpoint, file). */
function newestBases(data: string): { id: number; bases: Map<string, { ckpt: number; file: string }> } {
  const file = new Database(path.join(data, 'rivulet.db'), { readonly: true })
  try {
    const newest = file.prepare('SELECT id, parts FROM checkpoint ORDER BY id DESC LIMIT 1').get() as { id: number; parts: string }
    const fileOf = file.prepare("SELECT file FROM state_part WHERE owner = ? AND ckpt = ? AND kind = 'base'")
    const bases = new Map((JSON.parse(newest.parts) as [string, number][]).map(([owner, ckpt]) => [owner, { ckpt, file: (fileOf.get(owner, ckpt) as { file: string }).file }]))
    return { id: newest.id, bases }
  } finally {
    file.close()
  }
}

/** Reopens the directory: no warnings, and every relation as in the in-memory twin (both closed). */
function reopensAs(data: string, mem: Engine): void {
  const back = open(data)
  expect(back.recovery!.warnings).toEqual([])
  expect(scans(back)).toEqual(scans(mem))
  back.close()
  mem.close()
}

describe('incremental checkpoints', () => {
  it('after a small change, a checkpoint writes the changed keys only, and reopens exactly', () => {
    const { data, db, mem, both } = durableAndInMemory()
    both(`INSERT INTO acct SELECT i, i % 500, i * 3 FROM generate_series(1, 20000) AS g(i)`)
    both(`INSERT INTO bag SELECT i % 700, 'w' || (i % 13) FROM generate_series(1, 3000) AS g(i)`)
    // a row of each table deleted: their joins' arrangements are saved from the first
    // checkpoint on (while a table has only had inserts they are left out, and rebuilt from
    // it: derived-state.test.ts)
    both('UPDATE acct SET balance = balance - 1 WHERE id = 1')
    both("INSERT INTO bag VALUES (-1, 'x')")
    both('DELETE FROM bag WHERE v = -1')
    db.execute('CHECKPOINT')
    const base = newestBytes(db)
    both('UPDATE acct SET balance = balance + 1 WHERE id <= 10')
    both('DELETE FROM acct WHERE id = 20000')
    both(`INSERT INTO bag VALUES (3, 'new')`)
    db.execute('CHECKPOINT')
    const delta = newestBytes(db)
    expect(delta).toBeLessThan(base / 50)
    both('UPDATE acct SET owner = 7 WHERE id = 11')
    crash(db)
    const back = open(data)
    expect(back.recovery!.checkpoint).not.toBeNull()
    expect(back.recovery!.records).toBe(1)
    expect(scans(back)).toEqual(scans(mem))
    back.close()
    mem.close()
  })

  it('a chain of deltas and new bases, reopened at random points, equals a run that never stopped (map order included)', () => {
    const change = fc.oneof(
      fc.tuple(fc.constant('upsert'), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 5 }), fc.integer({ min: -9, max: 9 })),
      fc.tuple(fc.constant('delete'), fc.integer({ min: 1, max: 40 }), fc.constant(0), fc.constant(0)),
      fc.tuple(fc.constant('bag'), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3 }), fc.constant(0)),
      fc.tuple(fc.constant('unbag'), fc.integer({ min: 0, max: 5 }), fc.constant(0), fc.constant(0)),
    )
    // per step: a batch of changes, then nothing / CHECKPOINT / a crash and reopen / a clean close
    const step = fc.tuple(fc.array(change, { minLength: 1, maxLength: 6 }), fc.constantFrom('none', 'checkpoint', 'checkpoint', 'crash', 'close'))
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => {
        const data = path.join(tempDir(), 'data')
        let db = open(data)
        const mem = open()
        for (const [changes, then] of steps) {
          for (const [kind, a, b, c] of changes) {
            const sql =
              kind === 'upsert'
                ? `INSERT INTO acct VALUES (${a}, ${b}, ${c}) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, balance = excluded.balance`
                : kind === 'delete'
                  ? `DELETE FROM acct WHERE id = ${a}`
                  : kind === 'bag'
                    ? `INSERT INTO bag VALUES (${a}, 'w${b}')`
                    : `DELETE FROM bag WHERE v = ${a}`
            db.execute(sql)
            mem.execute(sql)
          }
          if (then === 'checkpoint') db.execute('CHECKPOINT')
          else if (then === 'crash' || then === 'close') {
            if (then === 'crash') crash(db)
            else db.close()
            db = open(data)
            expect(db.recovery!.warnings).toEqual([])
            expect(scans(db)).toEqual(scans(mem))
          }
        }
        expect(scans(db)).toEqual(scans(mem))
        db.close()
        mem.close()
      }),
      { numRuns: 25 },
    )
  })

  it('an owner saves a new base once its deltas outweigh the last one, and the parts no checkpoint reads are deleted', () => {
    const data = path.join(tempDir(), 'data')
    const db = open(data)
    db.execute('INSERT INTO acct SELECT i, i % 5, i FROM generate_series(1, 50) AS g(i)')
    for (let round = 0; round < 12; round++) {
      db.execute(`UPDATE acct SET balance = balance + 1`)
      db.execute('CHECKPOINT')
    }
    db.close()
    const file = new Database(path.join(data, 'rivulet.db'), { readonly: true })
    try {
      const parts = file.prepare('SELECT owner, ckpt FROM state_part ORDER BY owner, ckpt').all() as { owner: string; ckpt: number }[]
      const kept = file.prepare('SELECT id, parts FROM checkpoint ORDER BY id').all() as { id: number; parts: string }[]
      // every round rewrites all 50 rows: a delta as big as the base, so a base every other time
      const newest = kept.at(-1)!
      const base = new Map(JSON.parse(newest.parts) as [string, number][]).get('store acct')!
      expect(newest.id - base).toBeLessThanOrEqual(1)
      expect(base).toBeGreaterThan(8)
      // exactly the parts the kept checkpoints read: per owner, from its base through each
      const needed = new Set<string>()
      for (const k of kept) for (const [owner, from] of JSON.parse(k.parts) as [string, number][]) for (let c = from; c <= k.id; c++) needed.add(`${owner}@${c}`)
      expect(parts.map((p) => `${p.owner}@${p.ckpt}`).sort()).toEqual([...needed].sort())
    } finally {
      file.close()
    }
  })

  it('a big base is rewritten by the worker thread, off the ticks: later checkpoints extend the new base, and reopen exactly', async () => {
    const { data, db, mem, both } = durableAndInMemory()
    internalsOf(db).checkpoints.workerRebaseBytes = 0
    both('INSERT INTO acct SELECT i, i % 7, i FROM generate_series(1, 300) AS g(i)')
    both(`INSERT INTO bag SELECT i % 9, 'w' || (i % 4) FROM generate_series(1, 60) AS g(i)`)
    db.execute('CHECKPOINT')
    for (let round = 0; round < 3; round++) {
      // half the keys: a delta (all of them would make the checkpoint save a base itself)
      both('UPDATE acct SET balance = balance + 1 WHERE id % 2 = 0')
      both(`DELETE FROM acct WHERE id = ${10 + round}`)
      both(`INSERT INTO acct VALUES (${1000 + round}, 1, 1)`)
      db.execute('CHECKPOINT')
      await internalsOf(db).checkpoints.rebasesDone()
    }
    both('UPDATE acct SET balance = 0 WHERE id = 5')
    db.execute('CHECKPOINT')
    both('UPDATE acct SET owner = 3 WHERE id = 6')
    crash(db)
    const { id, bases } = newestBases(data)
    // the base it reads was written by the worker (r…), not by a checkpoint (c…)
    expect(bases.get('store acct')!.file).toMatch(WORKER_FILE)
    expect(bases.get('store acct')!.ckpt).toBeLessThan(id)
    reopensAs(data, mem)
  })

  it('a state that only grows keeps writing deltas however heavy (its base stays good), where one that turned over writes bases', async () => {
    const { data, db, mem, both } = durableAndInMemory()
    internalsOf(db).checkpoints.workerRebaseBytes = 0
    both('INSERT INTO acct SELECT i, i % 7, i FROM generate_series(1, 4000) AS g(i)')
    db.execute('CHECKPOINT')
    // twice as many new keys as the table held: a delta twice as heavy as its base (the worker
    // is handed the base to rewrite), then the next checkpoint at once, before it is done
    both('INSERT INTO acct SELECT i, i % 7, i FROM generate_series(4001, 12000) AS g(i)')
    db.execute('CHECKPOINT')
    both('INSERT INTO acct VALUES (12001, 1, 1)')
    db.execute('CHECKPOINT')
    await internalsOf(db).checkpoints.rebasesDone()
    const basesOf = (owner: string): { ckpt: number; file: string }[] => {
      const file = new Database(path.join(data, 'rivulet.db'), { readonly: true })
      try {
        return file.prepare("SELECT ckpt, file FROM state_part WHERE owner = ? AND kind = 'base' ORDER BY ckpt").all(owner) as { ckpt: number; file: string }[]
      } finally {
        file.close()
      }
    }
    crash(db)
    // no checkpoint wrote the table's base again (the worker rewrote it, off the ticks)
    expect(basesOf('store acct').filter((b) => !WORKER_FILE.test(b.file))).toHaveLength(1)
    // then every key replaced by another, twice: each such checkpoint writes a base of its own
    const again = open(data)
    for (let round = 0; round < 2; round++) {
      for (const e of [again, mem]) {
        e.execute('DELETE FROM acct')
        e.execute(`INSERT INTO acct SELECT i, i % 7, i FROM generate_series(${100_000 * (round + 1)}, ${100_000 * (round + 1) + 31_999}) AS g(i)`)
      }
      again.execute('CHECKPOINT')
    }
    crash(again)
    expect(basesOf('store acct').filter((b) => !WORKER_FILE.test(b.file))).toHaveLength(3)
    reopensAs(data, mem)
  })

  it('a program that never yields to the event loop still gets the worker’s rewritten bases', () => {
    const { data, db, mem, both } = durableAndInMemory()
    const checkpoints = internalsOf(db).checkpoints
    checkpoints.workerRebaseBytes = 0
    both('INSERT INTO acct SELECT i, i % 7, i FROM generate_series(1, 300) AS g(i)')
    db.execute('CHECKPOINT')
    const pause = new Int32Array(new SharedArrayBuffer(4))
    // ticks and checkpoints back to back, never awaiting: the worker's replies are polled
    let rounds = 0
    const until = Date.now() + 20_000
    while (checkpoints.rebasesAdopted === 0) {
      if (Date.now() > until) expect.fail(`no rewritten base taken up after ${rounds} rounds without yielding`)
      both(`UPDATE acct SET balance = balance + 1 WHERE id <= ${rounds === 0 ? 300 : 10}`)
      db.execute('CHECKPOINT')
      Atomics.wait(pause, 0, 0, 5)
      rounds++
    }
    both('UPDATE acct SET owner = 3 WHERE id = 6')
    db.execute('CHECKPOINT')
    crash(db)
    // the newest checkpoint reads a base the worker wrote (r…) for one of its owners at least
    expect([...newestBases(data).bases.values()].filter((b) => WORKER_FILE.test(b.file))).not.toEqual([])
    reopensAs(data, mem)
  })

  it('a damaged delta is detected: recovery falls back to the checkpoint before it, loudly', () => {
    const { data, db, mem, both } = durableAndInMemory()
    both('INSERT INTO acct SELECT i, i % 5, i FROM generate_series(1, 500) AS g(i)')
    db.execute('CHECKPOINT')
    both('UPDATE acct SET balance = 0 WHERE id = 3')
    db.execute('CHECKPOINT')
    both('UPDATE acct SET balance = 1 WHERE id = 4')
    crash(db)
    const file = new Database(path.join(data, 'rivulet.db'))
    const newest = (file.prepare('SELECT max(id) AS id FROM checkpoint').get() as { id: number }).id
    const p = partsOf(file, data, newest).find((x) => x.owner === 'store acct')!
    const body = Buffer.from(p.body)
    body[body.length >> 1]! ^= 0xff
    replacePart(file, data, p, body, false)
    file.close()
    const back = open(data)
    expect(back.recovery!.warnings.join('\n')).toMatch(/damaged \(checksum mismatch in a part of store acct\)/)
    expect(back.recovery!.checkpoint).not.toBeNull()
    expect(scans(back)).toEqual(scans(mem))
    back.close()
    mem.close()
  })
})
