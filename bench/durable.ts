// `npm run bench -- durable [--events N] [--queries q0,q5,q7,w2] [--modes …] [--rounds N] [--quick]`:
// the cost of the durable log. Nexmark events through a query's view (or `w2`: the peers
// harness's W2 load, 100,000 auctions and then N bids into a join + GROUP BY view), in ticks of
// 1,000 events, in memory and with a data directory at both durability levels ('process':
// written to the OS per tick; 'power': fsynced per tick), side by side in one run (modes alternate within each round, the
// median of the rounds is reported, so the machine's noise hits all of them alike), and each
// tick's time: its p99 and the longest, where the checkpoints taken during the ingest show (one
// runs right after the tick that made it due, inside the same call). Then what the log costs
// at rest: bytes on disk per event; the checkpoint the close took (its duration,
// which is also the pause ticks see while one is taken, and its size); reopening from it, and
// reopening by replaying the whole log (the checkpoints deleted).

import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { Engine } from '../src/index.js'
import { internalsOf } from '../src/engine/engine.js'

export interface DurableOptions {
  readonly events: number
  readonly queries: readonly string[]
  readonly rounds: number
  readonly modes: readonly Mode[]
  readonly repoRoot: string
  /** This script (run again as a child that is killed: see crashChild). */
  readonly script: string
  /** Engine.open's maxReplay for the durable runs (undefined: its default). */
  readonly maxReplay: number | undefined
}

export type Mode = 'memory' | 'process' | 'power'
export const MODES: readonly Mode[] = ['memory', 'process', 'power']

function dirBytes(dir: string): number {
  let n = 0
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, f.name)
    n += f.isDirectory() ? dirBytes(p) : statSync(p).size
  }
  return n
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

/** The W2 load of the peers harness: 100,000 auctions, then `events` bids, in ticks of 1,000 rows. */
const W2_VIEW =
  'SELECT a.category AS category, COUNT(*) AS cnt, SUM(b.price) AS total FROM bids b JOIN auctions a ON b.auction = a.id GROUP BY a.category'
const W2_AUCTIONS = 100_000

function loadW2(db: Engine, events: number, timed: (f: () => void) => void = (f) => f()): void {
  db.execute('CREATE TABLE auctions (id INT PRIMARY KEY, seller INT, category INT)')
  db.execute('CREATE TABLE bids (id INT PRIMARY KEY, auction INT, bidder INT, price INT, ts BIGINT)')
  db.execute(`CREATE MATERIALIZED VIEW v AS ${W2_VIEW}`)
  let seed = 42
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed % n
  }
  for (let i = 0; i < W2_AUCTIONS; i += 1000) {
    const rows: number[][] = []
    for (let id = i; id < i + 1000; id++) rows.push([id, rand(10_000), rand(100)])
    db.insert('auctions', rows)
  }
  for (let i = 0; i < events; i += 1000) {
    const rows: number[][] = []
    for (let id = i; id < Math.min(events, i + 1000); id++) rows.push([id, rand(W2_AUCTIONS), rand(100_000), 1 + rand(100_000), 1_700_000_000_000 + id * 10])
    timed(() => db.insert('bids', rows))
  }
}

/** One ingest: `events` Nexmark events (or W2's bids) through the query's view, a tick per
 *  1,000; events/s, each tick's milliseconds (a checkpoint is taken between two ticks, inside
 *  the call that ran the first: it counts as that tick's pause) and the directory. */
/** What checkpoints taken during an ingest cost its ticks: the longest tick while one was in
 *  flight (it includes the slice written after it) and while none was, and the longest step of
 *  a checkpoint (fixing it at its point, a slice, its commit). */
interface CheckpointPauses {
  readonly inFlight: number
  readonly without: number
  readonly begin: number
  readonly slice: number
  readonly commit: number
}

function ingest(query: string, events: number, mode: Mode, maxReplay: number | undefined): { rate: number; ticks: number[]; pauses: CheckpointPauses; dir: string | undefined } {
  const dir = mode === 'memory' ? undefined : mkdtempSync(path.join(tmpdir(), 'rivulet-bench-durable-'))
  const db = Engine.open({ sources: 'manual', ...(dir !== undefined ? { dir, durability: mode as 'process' | 'power', ...(maxReplay !== undefined ? { maxReplay } : {}) } : {}) })
  const checkpoints = internalsOf(db).checkpoints
  const ticks: number[] = []
  let inFlight = 0
  let without = 0
  const timed = (f: () => void): void => {
    const during = checkpoints.inFlight
    const t = performance.now()
    f()
    const ms = performance.now() - t
    ticks.push(ms)
    if (during || checkpoints.inFlight) inFlight = Math.max(inFlight, ms)
    else without = Math.max(without, ms)
  }
  const t0 = performance.now()
  if (query === 'w2') {
    loadW2(db, events, timed)
  } else {
    db.execute(`CREATE SOURCE nx WITH (connector = 'nexmark', events = ${events}, batch = 1000)`)
    db.execute(`CREATE MATERIALIZED VIEW v AS ${query}`)
    for (let more = true; more; ) timed(() => (more = db.stepSource('nx', 1000) !== 0))
    ticks.pop()
  }
  const seconds = (performance.now() - t0) / 1000
  const pauses = { inFlight, without, ...checkpoints.longest }
  db.close()
  return { rate: (query === 'w2' ? events + W2_AUCTIONS : events) / seconds, ticks, pauses, dir }
}

function querySql(repoRoot: string, q: string): string {
  return q === 'w2' ? 'w2' : readFileSync(path.join(repoRoot, 'bench', 'nexmark', 'queries', `${q}.sql`), 'utf8').replace(/;\s*$/, '')
}

/** In a child process: ingests into a data directory (durability power, the default checkpoint
 *  interval and maxReplay) and kills itself with SIGKILL after `killAt` events, mid-run. */
export function crashChild(o: { dir: string; query: string; events: number; killAt: number; repoRoot: string }): void {
  const db = Engine.open({ dir: o.dir, sources: 'manual' })
  if (o.query === 'w2') loadW2(db, o.killAt)
  else {
    db.execute(`CREATE SOURCE nx WITH (connector = 'nexmark', events = ${o.events}, batch = 1000)`)
    db.execute(`CREATE MATERIALIZED VIEW v AS ${querySql(o.repoRoot, o.query)}`)
    db.stepSource('nx', o.killAt)
  }
  process.kill(process.pid, 'SIGKILL')
}

interface CrashRecovery {
  readonly seconds: number
  readonly records: number
  readonly checkpoints: number
  readonly checkpointMs: number
}

/** Kills an ingest of `events` events at 95% of them and times the recovery. */
function crashRecovery(o: DurableOptions, query: string): CrashRecovery {
  const dir = mkdtempSync(path.join(tmpdir(), 'rivulet-bench-crash-'))
  try {
    const killAt = Math.floor(o.events * 0.95 / 1000) * 1000
    const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', o.script, '_durable-crash', '--dir', dir, '--query', query, '--events', String(o.events), '--kill-at', String(killAt)], { encoding: 'utf8' })
    if (r.signal !== 'SIGKILL') throw new Error(`the crash child of ${query} was not killed: ${r.stderr}`)
    const t0 = performance.now()
    const db = Engine.open({ dir, sources: 'manual', checkpointInterval: 0 })
    const seconds = (performance.now() - t0) / 1000
    const rec = db.recovery!
    const cps = db.query('SELECT count(*), avg(millis) FROM rivulet_checkpoints').rows[0]!
    db.close()
    return { seconds, records: rec.records, checkpoints: Number(cps[0]), checkpointMs: Number(cps[1]) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function runDurable(o: DurableOptions): void {
  const rates = new Map<string, number[]>()
  const pauses = new Map<string, { p99: number; max: number }[]>()
  const checkpointPauses = new Map<string, CheckpointPauses[]>()
  const rest = new Map<string, { bytesPerEvent: number; checkpointMs: number; checkpointBytes: number; fromCheckpoint: number; fullReplay: number; records: number }>()
  // What the log costs at rest is measured on the strictest durable level run.
  const restMode: Mode | undefined = o.modes.includes('power') ? 'power' : o.modes.includes('process') ? 'process' : undefined
  for (const q of o.queries) {
    const sql = querySql(o.repoRoot, q)
    for (let r = 0; r < o.rounds; r++) {
      for (const mode of o.modes) {
        const { rate, ticks, pauses: cp, dir } = ingest(sql, o.events, mode, o.maxReplay)
        const key = `${q} ${mode}`
        rates.set(key, [...(rates.get(key) ?? []), rate])
        checkpointPauses.set(key, [...(checkpointPauses.get(key) ?? []), cp])
        const sorted = ticks.sort((a, b) => a - b)
        pauses.set(key, [...(pauses.get(key) ?? []), { p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0, max: sorted.at(-1) ?? 0 }])
        if (dir === undefined) continue
        if (mode === restMode && r === 0) {
          const file = path.join(dir, 'rivulet.db')
          const checkpoint = () => {
            const raw = new Database(file)
            try {
              // What the close's checkpoint wrote: its row and the state parts it added (a part
              // it reuses from an older checkpoint is on disk already).
              return raw
                .prepare('SELECT c.millis, length(c.body) + coalesce((SELECT sum(length) FROM state_part WHERE ckpt = c.id), 0) AS bytes FROM checkpoint c ORDER BY c.id DESC LIMIT 1')
                .get() as { millis: number; bytes: number }
            } finally {
              raw.close()
            }
          }
          const { millis, bytes: checkpointBytes } = checkpoint()
          const bytes = dirBytes(dir) - checkpointBytes
          const reopen = (): number => {
            const t0 = performance.now()
            const db = Engine.open({ dir, sources: 'manual' })
            const seconds = (performance.now() - t0) / 1000
            db.close()
            return seconds
          }
          const fromCheckpoint = reopen()
          const raw = new Database(file)
          raw.prepare('DELETE FROM checkpoint').run()
          raw.close()
          const t0 = performance.now()
          const db = Engine.open({ dir, sources: 'manual', checkpointInterval: 0 })
          const fullReplay = (performance.now() - t0) / 1000
          const records = db.recovery?.records ?? 0
          db.close()
          rest.set(q, { bytesPerEvent: bytes / o.events, checkpointMs: millis, checkpointBytes, fromCheckpoint, fullReplay, records })
        }
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }
  const f = (x: number) => Math.round(x).toLocaleString('en-US')
  const label: Record<Mode, string> = { memory: 'memory', process: 'durable, process', power: 'durable, power (fsync per tick)' }
  process.stdout.write(
    `ingest, events/s (median of ${o.rounds} rounds; ${o.events.toLocaleString('en-US')} events, ticks of 1,000); a ratio is the median (min–max) of each round's durable rate over the same round's in-memory rate, the runs next to each other:\n\n`,
  )
  const cols = o.modes.flatMap((m) => (m !== 'memory' && o.modes.includes('memory') ? [label[m], 'ratio'] : [label[m]]))
  process.stdout.write(`| query | ${cols.join(' | ')} |\n|---|${cols.map(() => '---:').join('|')}|\n`)
  for (const q of o.queries) {
    const rate = (m: Mode) => median(rates.get(`${q} ${m}`)!)
    const ratio = (m: Mode): string => {
      const memory = rates.get(`${q} memory`)!
      const paired = rates.get(`${q} ${m}`)!.map((r, i) => (100 * r) / memory[i]!)
      const pct = (x: number) => x.toFixed(0)
      return paired.length > 1 ? `${pct(median(paired))}% (${pct(Math.min(...paired))}–${pct(Math.max(...paired))})` : `${pct(paired[0]!)}%`
    }
    const cells = o.modes.flatMap((m) => (m !== 'memory' && o.modes.includes('memory') ? [f(rate(m)), ratio(m)] : [f(rate(m))]))
    process.stdout.write(`| ${q} | ${cells.join(' | ')} |\n`)
  }
  process.stdout.write(`\nticks of 1,000 events, p99 / longest (ms, median of the rounds; a checkpoint counts in the tick it follows):\n\n| query | ${o.modes.map((m) => label[m]).join(' | ')} |\n|---|${o.modes.map(() => '---:').join('|')}|\n`)
  for (const q of o.queries) {
    const cells = o.modes.map((m) => {
      const ps = pauses.get(`${q} ${m}`)!
      return `${median(ps.map((p) => p.p99)).toFixed(1)} / ${median(ps.map((p) => p.max)).toFixed(0)}`
    })
    process.stdout.write(`| ${q} | ${cells.join(' | ')} |\n`)
  }
  const durableModes = o.modes.filter((m) => m !== 'memory')
  if (durableModes.length > 0) {
    process.stdout.write(
      `\ncheckpoints during the ingest (taken in flight: fixed between two ticks, written a slice after each tick that follows), ms, median of the rounds: the longest tick while one was in flight / while none was; the longest step of one: fixing it / a slice / its commit:\n\n| query | ${durableModes.map((m) => `${label[m]}: ticks`).join(' | ')} | ${durableModes.map((m) => `${label[m]}: steps`).join(' | ')} |\n|---|${durableModes.map(() => '---:|---:').join('|')}|\n`,
    )
    for (const q of o.queries) {
      const of = (m: Mode, f: (p: CheckpointPauses) => number): string => median(checkpointPauses.get(`${q} ${m}`)!.map(f)).toFixed(0)
      const ticks = durableModes.map((m) => `${of(m, (p) => p.inFlight)} / ${of(m, (p) => p.without)}`)
      const steps = durableModes.map((m) => `${of(m, (p) => p.begin)} / ${of(m, (p) => p.slice)} / ${of(m, (p) => p.commit)}`)
      process.stdout.write(`| ${q} | ${ticks.join(' | ')} | ${steps.join(' | ')} |\n`)
    }
  }
  process.stdout.write(`\nrecovery after kill -9 at 95% of the events (durability power, default checkpointInterval and maxReplay), in a child process:\n\n| query | recovery | log records replayed | checkpoints kept | their mean duration |\n|---|---:|---:|---:|---:|\n`)
  for (const q of o.queries) {
    const c = crashRecovery(o, q)
    process.stdout.write(`| ${q} | ${c.seconds.toFixed(2)} s | ${c.records.toLocaleString('en-US')} | ${c.checkpoints} | ${c.checkpointMs.toFixed(0)} ms |\n`)
  }
  if (restMode === undefined) return
  process.stdout.write(`\nat rest (durability ${restMode}):\n\n| query | bytes on disk per event | checkpoint at close (taken whole) | checkpoint size | reopen from it | reopen replaying the whole log | log records |\n|---|---:|---:|---:|---:|---:|---:|\n`)
  for (const q of o.queries) {
    const r = rest.get(q)!
    process.stdout.write(`| ${q} | ${r.bytesPerEvent.toFixed(1)} | ${r.checkpointMs.toFixed(0)} ms | ${(r.checkpointBytes / 1e6).toFixed(1)} MB | ${r.fromCheckpoint.toFixed(2)} s | ${r.fullReplay.toFixed(2)} s | ${r.records.toLocaleString('en-US')} |\n`)
  }
}
