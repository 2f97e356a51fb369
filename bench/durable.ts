// `npm run bench -- durable [--events N] [--queries q0,q5,q7] [--rounds N] [--quick]`: the cost
// of the durable log. Nexmark events through a query's view, in ticks of 1,000 events, in memory
// and with a data directory at both durability levels ('process': written to the OS per tick;
// 'power': fsynced per tick), side by side in one run (modes alternate within each round, the
// median of the rounds is reported, so the machine's noise hits all of them alike). Then what
// the log costs at rest: bytes on disk per event; the checkpoint the close took (its duration,
// which is also the pause ticks see while one is taken, and its size); reopening from it, and
// reopening by replaying the whole log (the checkpoints deleted).

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { Engine } from '../src/index.js'

export interface DurableOptions {
  readonly events: number
  readonly queries: readonly string[]
  readonly rounds: number
  readonly repoRoot: string
}

type Mode = 'memory' | 'process' | 'power'
const MODES: readonly Mode[] = ['memory', 'process', 'power']

function dirBytes(dir: string): number {
  let n = 0
  for (const f of readdirSync(dir)) n += statSync(path.join(dir, f)).size
  return n
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

/** One ingest: `events` Nexmark events through the query's view; events/s and the directory. */
function ingest(query: string, events: number, mode: Mode): { rate: number; dir: string | undefined } {
  const dir = mode === 'memory' ? undefined : mkdtempSync(path.join(tmpdir(), 'rivulet-bench-durable-'))
  const db = Engine.open({ sources: 'manual', ...(dir !== undefined ? { dir, durability: mode as 'process' | 'power' } : {}) })
  db.execute(`CREATE SOURCE nx WITH (connector = 'nexmark', events = ${events}, batch = 1000)`)
  db.execute(`CREATE MATERIALIZED VIEW v AS ${query}`)
  const t0 = performance.now()
  db.stepSource('nx')
  const seconds = (performance.now() - t0) / 1000
  db.close()
  return { rate: events / seconds, dir }
}

export function runDurable(o: DurableOptions): void {
  const rates = new Map<string, number[]>()
  const rest = new Map<string, { bytesPerEvent: number; checkpointMs: number; checkpointBytes: number; fromCheckpoint: number; fullReplay: number; records: number }>()
  for (const q of o.queries) {
    const sql = readFileSync(path.join(o.repoRoot, 'bench', 'nexmark', 'queries', `${q}.sql`), 'utf8').replace(/;\s*$/, '')
    for (let r = 0; r < o.rounds; r++) {
      for (const mode of MODES) {
        const { rate, dir } = ingest(sql, o.events, mode)
        const key = `${q} ${mode}`
        rates.set(key, [...(rates.get(key) ?? []), rate])
        if (dir === undefined) continue
        if (mode === 'power' && r === 0) {
          const file = path.join(dir, 'rivulet.db')
          const checkpoint = () => {
            const raw = new Database(file)
            try {
              return raw.prepare('SELECT millis, length(body) AS bytes FROM checkpoint ORDER BY id DESC LIMIT 1').get() as { millis: number; bytes: number }
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
  process.stdout.write(`ingest, events/s (median of ${o.rounds} rounds; ${o.events.toLocaleString('en-US')} events, ticks of 1,000):\n\n`)
  process.stdout.write('| query | memory | durable, process | ratio | durable, power (fsync per tick) | ratio |\n|---|---:|---:|---:|---:|---:|\n')
  for (const q of o.queries) {
    const m = median(rates.get(`${q} memory`)!)
    const p = median(rates.get(`${q} process`)!)
    const w = median(rates.get(`${q} power`)!)
    const f = (x: number) => Math.round(x).toLocaleString('en-US')
    process.stdout.write(`| ${q} | ${f(m)} | ${f(p)} | ${((100 * p) / m).toFixed(0)}% | ${f(w)} | ${((100 * w) / m).toFixed(0)}% |\n`)
  }
  process.stdout.write('\nat rest (durability power):\n\n| query | log bytes per event | checkpoint at close (= tick pause) | checkpoint size | reopen from it | reopen replaying the whole log | log records |\n|---|---:|---:|---:|---:|---:|---:|\n')
  for (const q of o.queries) {
    const r = rest.get(q)!
    process.stdout.write(`| ${q} | ${r.bytesPerEvent.toFixed(1)} | ${r.checkpointMs.toFixed(0)} ms | ${(r.checkpointBytes / 1e6).toFixed(1)} MB | ${r.fromCheckpoint.toFixed(2)} s | ${r.fullReplay.toFixed(2)} s | ${r.records.toLocaleString('en-US')} |\n`)
  }
}
