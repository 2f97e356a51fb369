// `rivulet bench nexmark`: each Nexmark query in a process of its own, fed by the built-in
// generator in the same thread (generation counts, as in the Flink suite), written to a
// blackhole sink. Reports events/s, CPU per event, peak heap and RSS, operator state, heap
// after GC along the run (is memory flat?), and the generator alone as the ceiling.
// `--verify` instead runs each query as a materialized view on a small run and compares it
// with a from-scratch evaluation of the same SQL at several points.

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { Engine } from '../engine/index.js'
import { formatAligned } from '../repl/format.js'
import type { ResultValue } from '../types.js'
import { NexmarkGenerator } from '../connectors/nexmark/generator.js'
import { nexmarkQueries, setUpQuery, type NexmarkQuery } from './nexmark-queries.js'

export interface NexmarkBenchOptions {
  /** Queries to run (default all). */
  readonly queries?: readonly string[]
  readonly events?: number
  /** Events per second of event time (default 10,000: 10M events span 1,000 s). */
  readonly rate?: number
  /** Events per tick. */
  readonly batch?: number
  /** Write the results here as JSON. */
  readonly json?: string
  readonly verify?: boolean
  readonly out?: (s: string) => void
}

/** One query's measurement (also the JSON written). */
export interface QueryResultRow {
  readonly query: string
  readonly events: number
  readonly seconds: number
  readonly eventsPerSecond: number
  /** Process CPU (all threads, GC included) per event, µs. */
  readonly cpuMicrosPerEvent: number
  /** Events per CPU-second (the per-core rate). */
  readonly eventsPerCpuSecond: number
  readonly peakHeapMB: number
  readonly peakRssMB: number
  /** Operator state entries at the end. */
  readonly state: number
  /** Heap after a full GC at each tenth of the run (MB). */
  readonly heapAfterGcMB: readonly number[]
  /** Rows the sink received (inserts, retractions). */
  readonly sinkInserted: number
  readonly sinkRetracted: number
  /** The generator alone in the same child, timed in slices interleaved with the query's run
   *  (the same events, in the same batches): the query's "% of gen" compares with it, so a
   *  machine that slows down for a while slows both sides of the ratio. */
  readonly generatorEventsPerSecond?: number
  /** The query's rate over the generator's, tenth by tenth (each tenth of the query against
   *  the generator over the same events right after it), the median of the ten: a slow minute
   *  of the host moves a pair or two, not the median. "% of gen" shows it. */
  readonly generatorShareMedian?: number
  readonly error?: string
}

/** Flink's published per-core rates (the GUIDE_V1 and GUIDE_V2 tables of
 *  github.com/nexmark/nexmark), K events/s per core. */
export const FLINK_PER_CORE: Readonly<Record<string, { v1?: number; v2?: number }>> = {
  q0: { v1: 155.0, v2: 378 }, q1: { v1: 157.9, v2: 396 }, q2: { v1: 175.2, v2: 414 }, q3: { v1: 152.1, v2: 219 },
  q4: { v1: 34.3, v2: 28.2 }, q5: { v1: 22.1, v2: 74.5 }, q6: {}, q7: { v1: 12.3, v2: 22.9 }, q8: { v1: 146.1, v2: 162 },
  q9: { v1: 14.2, v2: 13.8 }, q10: { v1: 57.8, v2: 133 }, q11: { v1: 39.7, v2: 46.1 }, q12: { v1: 75.7, v2: 194 },
  q13: { v1: 130.7, v2: 188 }, q14: { v1: 161.2, v2: 259 }, q15: { v1: 72.4, v2: 168 }, q16: { v1: 18.7, v2: 45.2 },
  q17: { v1: 116.8, v2: 161 }, q18: { v1: 53.7, v2: 65.4 }, q19: { v1: 44.0, v2: 42.7 }, q20: { v1: 19.0, v2: 17.8 },
  q21: { v1: 98.5, v2: 147 }, q22: { v1: 130.0, v2: 211 },
}

export const STATELESS_QUERIES = ['q0', 'q1', 'q2', 'q10', 'q14', 'q21', 'q22']

const MB = 1024 * 1024
/** The built CLI the children run (from the TS sources under a test runner: dist's). */
function cliPath(): string {
  const beside = fileURLToPath(new URL('./cli.js', import.meta.url))
  return fs.existsSync(beside) ? beside : fileURLToPath(new URL('../../dist/src/cli/cli.js', import.meta.url))
}

/** The source statement of a run. In a measured run the streams keep no history (as Flink's
 *  and RisingWave's sources keep none): every query reads them through its own state. */
export function sourceStatement(events: number, rate: number, batch: number, history: boolean): string {
  return `CREATE SOURCE nexmark WITH (connector = 'nexmark', events = ${events}, rate = ${rate}, batch = ${batch}${history ? '' : ', history = false'})`
}

/** Child process: one query, measured. Prints its QueryResultRow as JSON on stdout. */
export function measureQuery(q: NexmarkQuery, events: number, rate: number, batch: number): QueryResultRow {
  const gc = (globalThis as { gc?: () => void }).gc
  // warm-up: the JIT settles on a throwaway engine first, as the Flink suite warms its JVM
  const warm = runQuery(q, Math.min(200_000, Math.max(10_000, Math.floor(events / 20))), rate, batch, () => undefined)
  warm.db.close()
  gc?.()
  const heapAfterGc: number[] = []
  let peakHeap = 0
  let paused = 0
  // the generator alone, timed in slices between the query's tenths (outside its time): a
  // shared machine that slows down for a minute slows both alike, so their ratio holds
  const generator = new NexmarkGenerator({ events, rate })
  const generated = { person: [] as unknown[][], auction: [] as unknown[][], bid: [] as unknown[][] }
  let generatorMillis = 0
  const generateSlice = (n: number): void => {
    const g0 = performance.now()
    for (let left = n; left > 0 && !generator.done; ) {
      generated.person.length = 0
      generated.auction.length = 0
      generated.bid.length = 0
      left -= generator.fill(Math.min(batch, left), generated, 0)
    }
    const took = performance.now() - g0
    generatorMillis += took
    paused += took
  }
  const checkpoints = 10
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  let nextCheckpoint = events / checkpoints
  // the query's time since the last checkpoint, paired with the generator's over its events
  let tenthStart = t0
  const shares: number[] = []
  const { db, sink } = runQuery(q, events, rate, batch, (_db, done) => {
    const h = process.memoryUsage().heapUsed
    if (h > peakHeap) peakHeap = h
    if (done >= nextCheckpoint || done >= events) {
      const queryMillis = performance.now() - tenthStart
      while (nextCheckpoint <= done) nextCheckpoint += events / checkpoints
      if (gc) {
        const p0 = performance.now()
        gc()
        heapAfterGc.push(round(process.memoryUsage().heapUsed / MB, 1))
        paused += performance.now() - p0
      }
      const before = generatorMillis
      generateSlice(Math.min(done, events) - generator.position)
      // the same events both ways: the rates' ratio is the times' inverse ratio
      if (queryMillis > 0 && generatorMillis > before) shares.push((generatorMillis - before) / queryMillis)
      tenthStart = performance.now()
    }
  })
  const generatorEventsPerSecond = generatorMillis > 0 ? Math.round(generator.position / (generatorMillis / 1000)) : undefined
  const seconds = (performance.now() - t0 - paused) / 1000
  const cpu = process.cpuUsage(cpu0)
  const cpuMicros = cpu.user + cpu.system - paused * 1000
  const stats = db.sinkStatus(sink)
  const state = db.stateSize(sink)
  db.close()
  return {
    query: q.name,
    events,
    seconds: round(seconds, 3),
    eventsPerSecond: Math.round(events / seconds),
    cpuMicrosPerEvent: round(cpuMicros / events, 3),
    eventsPerCpuSecond: Math.round(events / (cpuMicros / 1e6)),
    peakHeapMB: round(peakHeap / MB, 1),
    peakRssMB: round(process.resourceUsage().maxRSS / 1024, 1),
    state,
    heapAfterGcMB: heapAfterGc,
    sinkInserted: stats.inserted,
    sinkRetracted: stats.retracted,
    generatorEventsPerSecond,
    ...(shares.length > 0 ? { generatorShareMedian: round(median(shares), 3) } : {}),
  }
}

function median(xs: readonly number[]): number {
  const s = xs.slice().sort((a, b) => a - b)
  const m = s.length >>> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** A query over `events` generated events into a blackhole sink; `sample` runs every
 *  64 ticks or so with the events done so far. */
function runQuery(q: NexmarkQuery, events: number, rate: number, batch: number, sample: (db: Engine, done: number) => void): { db: Engine; sink: string } {
  const db = Engine.open({ sources: 'manual' })
  db.execute(sourceStatement(events, rate, batch, false))
  setUpQuery(db, q)
  db.execute(`CREATE SINK ${q.name} AS ${q.select} WITH (connector = 'blackhole')`)
  // samples every 64 ticks, or every 1/20 of a short run
  const step = Math.max(batch, Math.min(batch * 64, Math.floor(events / 20)))
  for (let done = 0; done < events; ) {
    done += db.stepSource('nexmark', Math.min(step, events - done))
    sample(db, done)
  }
  return { db, sink: q.name }
}

/** The generator alone over `events` events in batches of `batch` (after a warm-up). */
function timeGenerator(events: number, rate: number, batch: number): { seconds: number; cpuMicros: number } {
  const run = (n: number): void => {
    const g = new NexmarkGenerator({ events: n, rate })
    const out = { person: [] as unknown[][], auction: [] as unknown[][], bid: [] as unknown[][] }
    while (!g.done) {
      out.person.length = 0
      out.auction.length = 0
      out.bid.length = 0
      g.fill(batch, out, 0)
    }
  }
  run(Math.min(200_000, events))
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  run(events)
  const seconds = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  return { seconds, cpuMicros: cpu.user + cpu.system }
}

/** Child process: the generator alone, in the same batches (the ceiling of every query). */
export function measureGenerator(events: number, rate: number, batch: number): QueryResultRow {
  const { seconds, cpuMicros } = timeGenerator(events, rate, batch)
  const mem = process.memoryUsage()
  return {
    query: 'generator',
    events,
    seconds: round(seconds, 3),
    eventsPerSecond: Math.round(events / seconds),
    cpuMicrosPerEvent: round(cpuMicros / events, 3),
    eventsPerCpuSecond: Math.round(events / (cpuMicros / 1e6)),
    peakHeapMB: round(mem.heapUsed / MB, 1),
    peakRssMB: round(process.resourceUsage().maxRSS / 1024, 1),
    state: 0,
    heapAfterGcMB: [],
    sinkInserted: 0,
    sinkRetracted: 0,
  }
}

function round(x: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

/** Runs a child (`rivulet bench nexmark --child NAME …`) and parses its JSON line. */
function child(name: string, events: number, rate: number, batch: number): Promise<QueryResultRow> {
  return new Promise((resolve) => {
    const args = ['--expose-gc', '--max-old-space-size=8192', cliPath(), 'bench', 'nexmark', '--child', name, '--events', String(events), '--rate', String(rate), '--batch', String(batch)]
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => (out += d.toString()))
    p.stderr.on('data', (d: Buffer) => (err += d.toString()))
    p.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? ''
      try {
        if (code !== 0) throw new Error(err.trim().split('\n').slice(-3).join(' ') || `exit ${code}`)
        resolve(JSON.parse(line) as QueryResultRow)
      } catch (e) {
        resolve({ query: name, events, seconds: 0, eventsPerSecond: 0, cpuMicrosPerEvent: 0, eventsPerCpuSecond: 0, peakHeapMB: 0, peakRssMB: 0, state: 0, heapAfterGcMB: [], sinkInserted: 0, sinkRetracted: 0, error: e instanceof Error ? e.message : String(e) })
      }
    })
  })
}

/** Is the heap after GC flat over the run? Compares the last checkpoint with the second
 *  (the first may still hold warm-up garbage): within 10% or 8 MB. */
export function heapFlat(r: QueryResultRow): boolean | undefined {
  const h = r.heapAfterGcMB
  if (h.length < 3) return undefined
  const base = h[1]!
  const last = h[h.length - 1]!
  return last - base <= Math.max(8, base * 0.1)
}

const THOUSANDS = (n: number): string => n.toLocaleString('en-US')

/** A query's rate as a percentage of the generator's: the median of its tenths' pairs when it
 *  has them, else over its whole run. */
function percentOfGenerator(r: QueryResultRow, generatorRate: number | undefined): string {
  if (r.query === 'generator') return ''
  if (r.generatorShareMedian !== undefined) return `${Math.round(100 * r.generatorShareMedian)}%`
  const base = r.generatorEventsPerSecond ?? generatorRate
  return base ? `${Math.round((100 * r.eventsPerSecond) / base)}%` : ''
}

/** The results as a psql-style table. */
export function resultsTable(rows: readonly QueryResultRow[], generatorRate: number | undefined): string {
  const columns = ['query', 'events/s', 'ev/CPU-s', 'µs CPU/ev', '% of gen', 'Flink v1/core', 'peak heap MB', 'peak RSS MB', 'state', 'heap flat']
  const body: ResultValue[][] = rows.map((r) => {
    if (r.error !== undefined) return [r.query, 'error', r.error.slice(0, 60), null, null, null, null, null, null, null]
    const flink = FLINK_PER_CORE[r.query]?.v1
    const flat = heapFlat(r)
    return [
      r.query,
      THOUSANDS(r.eventsPerSecond),
      THOUSANDS(r.eventsPerCpuSecond),
      r.cpuMicrosPerEvent.toFixed(2),
      percentOfGenerator(r, generatorRate),
      flink === undefined ? '' : `${THOUSANDS(Math.round(flink * 1000))} (${(r.eventsPerSecond / (flink * 1000)).toFixed(1)}x)`,
      r.peakHeapMB.toFixed(0),
      r.peakRssMB.toFixed(0),
      THOUSANDS(r.state),
      flat === undefined ? '' : flat ? 'yes' : `no (${r.heapAfterGcMB[1]} → ${r.heapAfterGcMB[r.heapAfterGcMB.length - 1]})`,
    ]
  })
  return formatAligned(
    columns.map((name) => ({ name, type: 'text' })),
    body,
  )
}

export async function runNexmarkBench(options: NexmarkBenchOptions): Promise<number> {
  const out = options.out ?? ((s: string) => process.stdout.write(s))
  const all = nexmarkQueries()
  const wanted = options.queries ?? all.map((q) => q.name)
  for (const w of wanted) if (!all.some((q) => q.name === w)) throw new Error(`unknown query "${w}" (known: ${all.map((q) => q.name).join(', ')})`)
  const rate = options.rate ?? 10_000
  const batch = options.batch ?? 1000
  if (options.verify) {
    const { verifyQueries } = await import('./nexmark-verify.js')
    return verifyQueries(all.filter((q) => wanted.includes(q.name)), { events: options.events ?? 50_000, rate, batch, out })
  }
  const events = options.events ?? 10_000_000
  out(`Nexmark: ${THOUSANDS(events)} events at ${THOUSANDS(rate)} events/s of event time, ${batch} events a tick, one process per query\n`)
  out(`machine: ${os.cpus()[0]?.model ?? 'unknown CPU'} ×${os.cpus().length}, Node ${process.version}\n\n`)
  const results: QueryResultRow[] = []
  const gen = await child('generator', events, rate, batch)
  results.push(gen)
  out(`generator alone: ${THOUSANDS(gen.eventsPerSecond)} events/s\n`)
  for (const name of wanted) {
    const r = await child(name, events, rate, batch)
    results.push(r)
    out(r.error === undefined ? `${name}: ${THOUSANDS(r.eventsPerSecond)} events/s\n` : `${name}: error: ${r.error}\n`)
  }
  out(`\n${resultsTable(results, gen.eventsPerSecond || undefined)}\n`)
  const json = options.json ?? 'nexmark-results.json'
  fs.writeFileSync(json, JSON.stringify({ events, rate, batch, machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version }, at: new Date().toISOString(), results }, null, 2) + '\n')
  out(`written: ${json}\n`)
  return results.some((r) => r.error !== undefined) ? 1 : 0
}

/** The child side of `--child NAME`. */
export function runNexmarkChild(name: string, events: number, rate: number, batch: number): void {
  const r = name === 'generator' ? measureGenerator(events, rate, batch) : measureQuery(nexmarkQueries().find((q) => q.name === name)!, events, rate, batch)
  process.stdout.write(JSON.stringify(r) + '\n')
}
