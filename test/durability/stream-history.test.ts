// A stream's history out of the heap (src/engine/stream-history.ts): with a few rows kept in
// memory, the rest read back from the log (data directory) or from the spill file (in
// memory), the stream answers exactly as a plain model of it — every row in arrival order,
// late rows left out, retention dropping from the front — in reads, in its size, in views
// built later (backfill), across transactions that roll back, and across reopening (after a
// clean close, from the checkpoint; after a crash, from the log). A checkpoint no longer holds
// the rows: its size does not grow with the stream's length.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { AppendLog } from '../../src/engine/stream-history.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : Math.floor(Math.random() * 2 ** 31)
const tempDir = tempDirs('history')

const EPOCH = Date.UTC(2024, 0, 1) * 1000
const RETENTION_S = 10
const ts = (s: number) => new Date((EPOCH / 1000) + s * 1000).toISOString().replace('T', ' ').replace('Z', '')

/** One step: a tick of rows (seconds, values), a rolled-back block, a new view, or a reopen. */
type Step =
  | { readonly kind: 'rows'; readonly rows: readonly (readonly [number, number])[] }
  | { readonly kind: 'rollback'; readonly rows: readonly (readonly [number, number])[] }
  | { readonly kind: 'view' }
  | { readonly kind: 'reopen'; readonly crash: boolean }

const rowsArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: -5, max: 5 })), { minLength: 1, maxLength: 7 })
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: rowsArb.map((rows) => ({ kind: 'rows' as const, rows })) },
  { weight: 1, arbitrary: rowsArb.map((rows) => ({ kind: 'rollback' as const, rows })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'view' as const }) },
  { weight: 1, arbitrary: fc.boolean().map((crash) => ({ kind: 'reopen' as const, crash })) },
)

/** The stream as a plain list: rows in arrival order; retention scans from the front at each
 *  tick's commit, over the rows committed before it. */
class Model {
  rows: [number, number][] = []
  all: [number, number][] = []
  watermark = -Infinity
  tick(rows: readonly (readonly [number, number])[], retention: boolean): void {
    const onTime = rows.filter(([s]) => s >= this.watermark)
    let wm = this.watermark
    for (const [s] of onTime) wm = Math.max(wm, s)
    this.watermark = wm
    if (retention) while (this.rows.length > 0 && this.rows[0]![0] < wm - RETENTION_S) this.rows.shift()
    for (const r of onTime) this.rows.push([r[0], r[1]])
    for (const r of onTime) this.all.push([r[0], r[1]])
  }
}

const DDL = [
  `CREATE STREAM kept (s INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (retention = '${RETENTION_S} seconds')`,
  'CREATE STREAM whole (s INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts)',
  'CREATE MATERIALIZED VIEW early AS SELECT count(*) AS n, sum(v) AS sv FROM whole',
]

const values = (rows: readonly (readonly [number, number])[]) => rows.map(([s, v]) => `(${s}, ${v}, '${ts(s)}')`).join(', ')
const sorted = (rows: readonly (readonly unknown[])[]) => rows.map((r) => JSON.stringify(r)).sort()

function check(db: Engine, kept: Model, whole: Model): void {
  const read = (stream: string) => sorted(db.query(`SELECT s, v FROM ${stream}`).rows)
  expect(read('kept'), 'kept').toEqual(sorted(kept.rows))
  expect(read('whole'), 'whole').toEqual(sorted(whole.rows))
  expect(db.stateSize('kept')).toBe(kept.rows.length)
  expect(db.stateSize('whole')).toBe(whole.rows.length)
  expect(db.query('SELECT n, sv FROM early').rows).toEqual([[whole.all.length, whole.all.length === 0 ? null : whole.all.reduce((a, r) => a + r[1], 0)]])
}

function runSteps(steps: readonly Step[], open: () => Engine, durable: boolean, tail: number): void {
  let db = open()
  for (const s of DDL) db.execute(s)
  const kept = new Model()
  const whole = new Model()
  // `later{i}` views backfill from what is kept of `kept` when created, then follow it: their
  // model is kept's rows at creation plus what arrived since (retention does not reach them)
  let views = 0
  const viewModels: Model[] = []
  for (const step of steps) {
    if (step.kind === 'rows') {
      db.execute(`INSERT INTO kept VALUES ${values(step.rows)}`)
      db.execute(`INSERT INTO whole VALUES ${values(step.rows)}`)
      kept.tick(step.rows, true)
      whole.tick(step.rows, false)
      for (const m of viewModels) m.tick(step.rows, false)
    } else if (step.kind === 'rollback') {
      db.execute('BEGIN')
      db.execute(`INSERT INTO kept VALUES ${values(step.rows)}`)
      db.execute(`INSERT INTO whole VALUES ${values(step.rows)}`)
      db.execute('ROLLBACK')
    } else if (step.kind === 'view') {
      db.execute(`CREATE MATERIALIZED VIEW later${views} AS SELECT count(*) AS n, sum(v) AS sv FROM kept`)
      const m = new Model()
      m.rows = kept.rows.map((r) => [r[0], r[1]])
      m.watermark = kept.watermark
      viewModels.push(m)
      views++
    } else if (durable) {
      if (step.crash) internalsOf(db).checkpoints.onCloseEnabled = false
      db.close()
      db = open()
    }
    check(db, kept, whole)
    for (let i = 0; i < views; i++) {
      const m = viewModels[i]!
      expect(db.query(`SELECT n, sv FROM later${i}`).rows, `later${i}`).toEqual([[m.rows.length, m.rows.length === 0 ? null : m.rows.reduce((a, r) => a + r[1], 0)]])
    }
  }
  // the history did leave the heap
  const history = (internalsOf(db).catalog.entries.get('whole') as { store: AppendLog }).store
  if (whole.all.length > 2 * tail + 7) expect(history.chunks).toBeGreaterThan(0)
  db.close()
}

describe('a stream history mostly out of the heap', () => {
  it('in memory, spilled to the temporary file, answers as the model (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (steps, tail) => {
        runSteps(steps, () => Engine.open({ historyInMemory: tail }), false, tail)
      }),
      { numRuns: 60, seed: SEED },
    )
  })

  it('with a data directory, read back from the log, across clean and crashed reopens (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 6 }), (steps, tail) => {
        const dir = tempDir()
        runSteps(steps, () => Engine.open({ dir, historyInMemory: tail, checkpointInterval: 0 }), true, tail)
      }),
      { numRuns: 25, seed: SEED },
    )
  })

  it('keeps only the newest rows in the heap; a checkpoint does not grow with the stream', () => {
    const dir = tempDir()
    const db = Engine.open({ dir, historyInMemory: 1000, checkpointInterval: 0 })
    db.execute("CREATE STREAM e (id INT, pad TEXT, ts TIMESTAMP, WATERMARK FOR ts AS ts)")
    db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM e')
    const insert = (from: number) => {
      const rows: string[] = []
      for (let i = from; i < from + 500; i++) rows.push(`(${i}, 'event ${i} with some padding text', '${ts(i)}')`)
      db.execute(`INSERT INTO e VALUES ${rows.join(', ')}`)
    }
    for (let i = 0; i < 20; i++) insert(i * 500)
    db.execute('CHECKPOINT')
    const small = Number(db.query('SELECT bytes FROM rivulet_checkpoints ORDER BY tick DESC LIMIT 1').rows[0]![0])
    for (let i = 20; i < 200; i++) insert(i * 500)
    db.execute('CHECKPOINT')
    const large = Number(db.query('SELECT bytes FROM rivulet_checkpoints ORDER BY tick DESC LIMIT 1').rows[0]![0])
    // 10× the events; the checkpoint grows by chunk entries (a few numbers per 1000 rows), not rows
    expect(large).toBeLessThan(20_000)
    expect(large - small).toBeLessThan(100 * 180)
    const store = internalsOf(db).catalog.entries.get('e') as { store: AppendLog }
    expect(store.store).toBeInstanceOf(AppendLog)
    expect(store.store.chunks).toBeGreaterThanOrEqual(99)
    db.execute('CREATE MATERIALIZED VIEW m AS SELECT count(*) AS c, max(id) AS top FROM e')
    expect(db.query('SELECT c, top FROM m').rows).toEqual([[100000, 99999]])
    expect(db.query('SELECT c FROM n').rows).toEqual([[100000]])
    db.close()
    const again = Engine.open({ dir, historyInMemory: 1000, checkpointInterval: 0 })
    expect(again.recovery).toMatchObject({ records: 0 })
    expect(again.query('SELECT count(*), min(id), max(id) FROM e').rows).toEqual([[100000, 0, 99999]])
    again.close()
  })

  it.each([false, true])('retention inside a tick, a compacted tail, then a burst (data directory: %s)', (durable) => {
    // each tick advances 10 s: retention drops 9 of the 10 seconds of the tick before, so the
    // tail is compacted with a tick partly dropped; a burst then moves that tail out of the heap
    const dir = durable ? tempDir() : undefined
    const open = () => Engine.open({ dir, historyInMemory: 3000, checkpointInterval: 0 })
    let db = open()
    db.execute(DDL[0]!)
    const kept = new Model()
    const tickOf = (i: number, perSecond: number) => {
      const rows: [number, number][] = []
      for (let sec = 10 * i; sec < 10 * i + 10; sec++) for (let k = 0; k < perSecond; k++) rows.push([sec, k % 7])
      return rows
    }
    const run = (rows: [number, number][]) => {
      db.execute(`INSERT INTO kept VALUES ${values(rows)}`)
      kept.tick(rows, true)
      expect(sorted(db.query('SELECT s, v FROM kept').rows)).toEqual(sorted(kept.rows))
      expect(db.stateSize('kept')).toBe(kept.rows.length)
    }
    for (let i = 0; i < 8; i++) run(tickOf(i, 100))
    run(tickOf(8, 300))
    run(tickOf(9, 100))
    const history = (internalsOf(db).catalog.entries.get('kept') as { store: AppendLog }).store
    expect(history.chunks).toBeGreaterThan(0)
    if (dir !== undefined) {
      db.close()
      db = open()
      expect(sorted(db.query('SELECT s, v FROM kept').rows)).toEqual(sorted(kept.rows))
      internalsOf(db).checkpoints.onCloseEnabled = false
      db.close()
      db = open()
      expect(sorted(db.query('SELECT s, v FROM kept').rows)).toEqual(sorted(kept.rows))
      run(tickOf(10, 100))
    }
    db.close()
  })

  it.each([false, true])('retention_bytes keeps the newest rows, chunk by chunk, the same across reopening (data directory: %s)', (durable) => {
    const ids = (db: Engine) => db.query('SELECT id FROM b ORDER BY id').rows.map((r) => r[0] as number)
    const drive = (reopen: boolean): number[] => {
      const dir = durable ? tempDir() : undefined
      const open = () => Engine.open({ dir, historyInMemory: 50, checkpointInterval: 0 })
      let db = open()
      db.execute("CREATE STREAM b (id INT, pad TEXT) WITH (retention_bytes = 20000)")
      let next = 0
      for (let t = 0; t < 40; t++) {
        const rows: string[] = []
        for (let i = 0; i < 10 + ((t * 7) % 30); i++, next++) rows.push(`(${next}, 'padding of the row number ${String(next).padStart(6, '0')}')`)
        db.execute(`INSERT INTO b VALUES ${rows.join(', ')}`)
        const kept = ids(db)
        // the newest rows, none missing in between
        expect(kept.at(-1)).toBe(next - 1)
        expect(kept.length).toBe(kept.at(-1)! - kept[0]! + 1)
        expect(kept.length * 100).toBeGreaterThanOrEqual(Math.min(20000, next * 40))
        expect(db.stateSize('b')).toBe(kept.length)
        if (t === 17) {
          if (dir !== undefined) db.execute('CHECKPOINT')
          db.execute(`INSERT INTO b VALUES (${next++}, 'after the checkpoint')`)
        }
        if (t === 25 && reopen) {
          // from the log after the checkpoint (ticks whose commits move chunks out), then from
          // the closing checkpoint
          internalsOf(db).checkpoints.onCloseEnabled = false
          db.close()
          db = open()
          db.close()
          db = open()
        }
      }
      const kept = ids(db)
      expect(kept.length).toBeLessThan(next)
      db.close()
      return kept
    }
    const straight = drive(false)
    if (durable) expect(drive(true)).toEqual(straight)
  })

  it('in memory, the spilled rows come back with every value type intact', () => {
    const db = Engine.open({ historyInMemory: 2 })
    db.execute('CREATE STREAM e (n NUMERIC(10, 2), i INTERVAL, a INT[], b BIGINT, t TEXT, f DOUBLE PRECISION)')
    const rows = ["(1.50, INTERVAL '1 day 2 hours', ARRAY[1, 2], 9007199254740993, 'x', -0.0)", "(NULL, NULL, NULL, NULL, NULL, 'NaN')", "(-3.25, INTERVAL '-5 minutes', ARRAY[]::INT[], -1, 'é', 1e300)"]
    for (const r of rows) db.execute(`INSERT INTO e VALUES ${r}`)
    const spilled = db.query('SELECT * FROM e').rows
    const plain = Engine.open()
    plain.execute('CREATE STREAM e (n NUMERIC(10, 2), i INTERVAL, a INT[], b BIGINT, t TEXT, f DOUBLE PRECISION)')
    for (const r of rows) plain.execute(`INSERT INTO e VALUES ${r}`)
    expect(spilled).toEqual(plain.query('SELECT * FROM e').rows)
    db.close()
  })
})
