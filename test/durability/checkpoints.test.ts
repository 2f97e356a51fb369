// Checkpoints (src/engine/checkpoints.ts): restoring the newest checkpoint and replaying the log
// after it gives exactly what a run that never stopped has — every table, stream, view, late
// event and sink — and goes on identically; a damaged newest checkpoint falls back, loudly, to
// the one before it, and a checkpoint that does not fit the rebuilt plans to an older one or
// the start of the log; a view in error stays in error across one; a clean close checkpoints; CHECKPOINT, SHOW CHECKPOINTS and
// rivulet_checkpoints; automatic checkpoints by interval and by work (maxReplay).
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { decodeState, encodeState } from '../../src/storage/state-codec.js'
import { decodeKeyedPart, encodeKeyedPart } from '../../src/storage/part-codec.js'
import { checksum } from '../../src/storage/codec.js'
import { rivuletError } from '../helpers/errors.js'
// @ts-expect-error plain JS module shared with the crash campaign's worker
import { CLOCK, RELATIONS, runStep, schema, steps } from './workload.mjs'
import { tempDirs } from '../helpers/temp-dirs.js'
import { partsOf, replacePart } from '../helpers/state-parts.js'

const tempDir = tempDirs('checkpoint')

const SEED = 20261202
const ALL: string[] = steps(SEED, 120)

function open(data: string): Engine {
  return Engine.open({ dir: data, clock: CLOCK, sources: 'manual', checkpointInterval: 0 })
}

function declare(db: Engine, out: string): void {
  mkdirSync(out, { recursive: true })
  for (const s of schema(out) as string[]) db.execute(s)
}

function run(db: Engine, from: number, to: number): void {
  for (let i = from; i <= to; i++) runStep(db, i, ALL[i - 1]!)
}

function contents(db: Engine): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const r of RELATIONS as string[]) out[r] = db.query(`SELECT * FROM ${r}`).rows.map((row) => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort()
  return out
}

function sinkRows(out: string): string[] {
  const db = new Database(path.join(out, 'sink.db'), { readonly: true })
  try {
    return (db.prepare('SELECT * FROM by_owner').all() as unknown[]).map((r) => JSON.stringify(r)).sort()
  } finally {
    db.close()
  }
}

/** The same steps in memory, never stopped. */
function reference(to: number): { db: Engine; out: string } {
  const out = path.join(tempDir(), 'out')
  const db = Engine.open({ clock: CLOCK, sources: 'manual' })
  declare(db, out)
  run(db, 1, to)
  return { db, out }
}

/** Flips a byte in the body of the checkpoint `nth` newest (0: the newest). */
function damageCheckpoint(data: string, nth: number): void {
  const db = new Database(path.join(data, 'rivulet.db'))
  try {
    const c = (db.prepare('SELECT id, body FROM checkpoint ORDER BY id DESC').all() as { id: number; body: Buffer }[])[nth]!
    c.body[Math.floor(c.body.length / 2)]! ^= 0xff
    db.prepare('UPDATE checkpoint SET body = ? WHERE id = ?').run(c.body, c.id)
  } finally {
    db.close()
  }
}

/** A directory with steps 1–50 of the workload, checkpointed after step 30 and at the close. */
function checkpointedTwice(): string {
  const dir = tempDir()
  const data = path.join(dir, 'data')
  const db = open(data)
  declare(db, path.join(dir, 'out'))
  run(db, 1, 30)
  db.execute('CHECKPOINT')
  run(db, 31, 50)
  db.close()
  return data
}

describe('checkpoints', () => {
  it('restore + the log after it == a run that never stopped, and both go on alike', () => {
    const dir = tempDir()
    const data = path.join(dir, 'data')
    const out = path.join(dir, 'out')
    let db = open(data)
    declare(db, out)
    run(db, 1, 40)
    db.execute('CHECKPOINT')
    const first = db.query('SELECT tick FROM rivulet_checkpoints').rows[0]![0]
    run(db, 41, 80)
    db.close()
    // the close checkpointed; damaged, recovery falls back to the first and replays 41..80
    damageCheckpoint(data, 0)
    db = open(data)
    expect(db.recovery!.checkpoint).toBe(Number(first))
    expect(db.recovery!.records).toBeGreaterThan(40)
    expect(db.recovery!.warnings).toHaveLength(1)
    expect(db.recovery!.warnings[0]).toMatch(/damaged.*the checkpoint before it/)
    const ref = reference(80)
    expect(contents(db)).toEqual(contents(ref.db))
    declare(db, out)
    run(db, 81, 120)
    run(ref.db, 81, 120)
    expect(contents(db)).toEqual(contents(ref.db))
    expect(sinkRows(out)).toEqual(sinkRows(ref.out))
    db.close()
    ref.db.close()
  })

  it('a clean close checkpoints: reopening replays nothing and state is whole', () => {
    const dir = tempDir()
    const data = path.join(dir, 'data')
    let db = open(data)
    declare(db, path.join(dir, 'out'))
    run(db, 1, 60)
    const before = contents(db)
    db.close()
    db = open(data)
    expect(db.recovery!.records).toBe(0)
    expect(db.recovery!.checkpoint).not.toBeNull()
    expect(contents(db)).toEqual(before)
    const shown = db.query('SHOW CHECKPOINTS')
    expect(shown.rows).toHaveLength(1)
    db.close()
  })

  it('two damaged checkpoints: the whole log, two warnings, nothing lost', () => {
    const data = checkpointedTwice()
    damageCheckpoint(data, 0)
    damageCheckpoint(data, 1)
    const db = open(data)
    expect(db.recovery!.checkpoint).toBeNull()
    expect(db.recovery!.warnings).toHaveLength(2)
    expect(contents(db)).toEqual(contents(reference(50).db))
    db.close()
  })

  it('a checkpoint that does not fit the rebuilt plans is skipped, loudly', () => {
    const data = checkpointedTwice()
    // the newest loses one operator's state, as a release rendering a plan differently would
    const file = new Database(path.join(data, 'rivulet.db'))
    const c = file.prepare('SELECT id, seq, body FROM checkpoint ORDER BY id DESC LIMIT 1').get() as { id: number; seq: number; body: Buffer }
    const state = decodeState(c.body) as { operators: unknown[] }
    state.operators.pop()
    const body = encodeState(state)
    file.prepare('UPDATE checkpoint SET body = ?, crc = ? WHERE id = ?').run(body, checksum(c.seq, body), c.id)
    file.close()
    const db = open(data)
    expect(db.recovery!.warnings.join('\n')).toMatch(/does not fit/)
    expect(db.recovery!.checkpoint).not.toBeNull()
    expect(contents(db)).toEqual(contents(reference(50).db))
    db.close()
  })

  it('a Reduce state saved without aggregator names (before append-only MIN / MAX) does not fit one that has them', () => {
    const data = checkpointedTwice()
    // bids_per_auction's max(price) over a stream is append-only now; an older release saved
    // the retractable form's accumulators, without the names
    const file = new Database(path.join(data, 'rivulet.db'))
    // a Reduce's state is saved by keys (state_part); what names its aggregators is the whole
    // part of its newest part
    const c = file.prepare('SELECT id FROM checkpoint ORDER BY id DESC LIMIT 1').get() as { id: number }
    let stripped = 0
    for (const p of partsOf(file, data, c.id)) {
      const part = decodeKeyedPart(p.body)
      const whole = part.whole as { aggregators?: string[] } | null
      if (!whole?.aggregators?.some((n) => n.includes('append-only'))) continue
      delete whole.aggregators
      stripped++
      replacePart(file, data, p, encodeKeyedPart(part))
    }
    expect(stripped).toBeGreaterThan(0)
    file.close()
    const db = open(data)
    expect(db.recovery!.warnings.join('\n')).toMatch(/does not fit/)
    expect(db.recovery!.checkpoint).not.toBeNull()
    expect(contents(db)).toEqual(contents(reference(50).db))
    db.close()
  })

  it('a view in error is checkpointed in error, reopens in error and recovers as in memory', () => {
    const data = path.join(tempDir(), 'data')
    const run = (db: Engine, part: 1 | 2) => {
      if (part === 1) {
        db.execute('CREATE TABLE ev (id INT PRIMARY KEY, d INT)')
        db.execute('CREATE MATERIALIZED VIEW ratio AS SELECT id, 10 / d AS r FROM ev')
        db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM ev')
        db.execute('INSERT INTO ev VALUES (1, 1), (2, 0), (3, 5)')
      } else {
        db.execute('INSERT INTO ev VALUES (4, 2)')
        db.execute('DELETE FROM ev WHERE id = 2')
      }
    }
    const mem = Engine.open()
    run(mem, 1)
    let db = open(data)
    run(db, 1)
    db.execute('CHECKPOINT')
    db.close()
    db = open(data)
    expect(db.recovery).toMatchObject({ records: 0, warnings: [] })
    expect(rivuletError(() => db.query('SELECT * FROM ratio'))).toMatchObject({ code: '22012' })
    expect(db.query('SELECT view, code, since FROM rivulet_view_errors').rows).toEqual(mem.query('SELECT view, code, since FROM rivulet_view_errors').rows)
    run(db, 2)
    run(mem, 2)
    for (const r of ['ratio', 'n', 'rivulet_view_errors']) expect(db.query(`SELECT * FROM ${r} ORDER BY 1`).rows, r).toEqual(mem.query(`SELECT * FROM ${r} ORDER BY 1`).rows)
    db.close()
  })

  it('rivulet_checkpoints lists the tick, log position, offsets, size and duration', () => {
    const data = path.join(tempDir(), 'data')
    const db = open(data)
    db.execute('CREATE TABLE t (k INT PRIMARY KEY)')
    db.execute('INSERT INTO t VALUES (1), (2)')
    db.execute('CHECKPOINT')
    const [row] = db.query('SELECT tick, log_seq, offsets, bytes > 0, millis >= 0 FROM rivulet_checkpoints').rows
    expect(row).toEqual([1n, 2n, '{"t":2}', true, true].map((v) => (typeof v === 'bigint' ? Number(v) : v)))
    db.close()
  })

  it('CHECKPOINT needs a data directory and is refused inside a transaction block', () => {
    const mem = Engine.open()
    expect(rivuletError(() => mem.execute('CHECKPOINT'))).toMatchObject({ code: '55000' })
    const db = open(path.join(tempDir(), 'data'))
    db.execute('BEGIN')
    expect(rivuletError(() => db.execute('CHECKPOINT'))).toMatchObject({ code: '25001' })
    db.execute('ROLLBACK')
    db.close()
  })

  it('checkpoints are taken by interval after ticks', async () => {
    const data = path.join(tempDir(), 'data')
    const db = Engine.open({ dir: data, checkpointInterval: 1 })
    db.execute('CREATE TABLE t (k INT)')
    db.execute('INSERT INTO t VALUES (1)')
    await new Promise((r) => setTimeout(r, 5))
    db.execute('INSERT INTO t VALUES (2)')
    await new Promise((r) => setImmediate(r))
    expect(db.query('SELECT count(*) FROM rivulet_checkpoints').rows[0]![0]).toBeGreaterThan(0)
    db.close()
  })

  it('checkpoints are taken after maxReplay of work, also by a program that never yields, and bound what recovery replays', () => {
    const data = path.join(tempDir(), 'data')
    const load = (db: Engine, from: number) => {
      for (let i = from; i < from + 4000; i += 20) db.insert('t', Array.from({ length: 20 }, (_, j) => [i + j, (i + j) % 7]))
    }
    // an hour's interval: only the work can make them due; the loop never returns to the event loop
    const db = Engine.open({ dir: data, checkpointInterval: 3_600_000, maxReplay: 1e-6, sources: 'manual' })
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, g INT)')
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n FROM t GROUP BY g')
    load(db, 0)
    // at most one per ten times the last one's duration of work, so fewer than one per tick
    const taken = Number(db.query('SELECT count(*) FROM rivulet_checkpoints').rows[0]![0])
    expect(taken).toBeGreaterThan(0)
    const want = db.query('SELECT * FROM v ORDER BY g').rows
    internalsOf(db).checkpoints.onCloseEnabled = false
    db.close()
    const again = Engine.open({ dir: data, checkpointInterval: 0, sources: 'manual' })
    expect(again.recovery!.checkpoint).not.toBeNull()
    expect(again.recovery!.ticks).toBeLessThan(200)
    expect(again.query('SELECT * FROM v ORDER BY g').rows).toEqual(want)
    again.close()
    // maxReplay 0: by the interval only
    const idle = Engine.open({ dir: path.join(tempDir(), 'data'), checkpointInterval: 3_600_000, maxReplay: 0, sources: 'manual' })
    idle.execute('CREATE TABLE t (k INT PRIMARY KEY, g INT)')
    load(idle, 0)
    expect(idle.query('SELECT count(*) FROM rivulet_checkpoints').rows[0]![0]).toBe(0)
    idle.close()
  })
})
