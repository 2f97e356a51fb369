// `npm run bench -- windows`: window functions over a stream, and percentiles kept per group.
//
//   lag         LAG and LEAD per key over a stream of events (a sink, so the view's output is
//               not stored: what stays in the heap is the window operator's state)
//   range       a 10-minute sliding sum per key: RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING
//   percentile  percentile_cont(0.5) per group of a table under updates, against a full sort
//               (bench/percentiles.ts)
//
// The stream: 1,000 keys, 100 events per second of event time (`rate`; a 10-minute frame then
// holds about 60 rows per key), inserted in ticks of 1,000 events; 1% of the events are out of
// order, up to 4 s earlier than the ones before, within the watermark's 5 s delay, so none is
// dropped as late. (A materialized view would store every output row, 10M of them; the sink
// only counts them.) Over an append-only input whose
// ORDER BY column a watermark bounds, the Over operator frees the rows the watermark has passed
// but for those a later row may still read (EXPLAIN: `bounded: rows are freed once …`), so its
// state and the heap stay flat however long the stream runs. Every `report` events the child
// prints the throughput of that stretch, the heap after a full GC, RSS, the operator's state
// and the rows the stream keeps (retention 30 s).
//
// Before the measured run each child checks the query on a prefix: a materialized view of it
// over the same events must equal the query run ad hoc (a recompute over the stream's whole
// history), every quarter of the prefix and at its end; the prefix spans more than the frame,
// so rows are freed while it runs. At the end of the measured run the sink must have received,
// net of retractions, one row per event.
//
// Each part runs in its own child process, so its heap and RSS are its own.

import { spawnSync } from 'node:child_process'
import { Engine } from '../src/index.js'
import { Rng, gc, int, mb, ms, nowMs, stats, table } from './lib.js'
import { formatPercentiles, type PercentileResult } from './percentiles.js'

export interface WindowsOptions {
  readonly events: number
  readonly verify: number
  readonly keys: number
  /** Events per second of event time. */
  readonly rate: number
  readonly report: number
  readonly seed: number
}

const STREAM = `CREATE STREAM ev (k INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)`
const RETENTION = ` WITH (retention = '30 seconds')`

export const WINDOW_QUERIES = {
  lag: `SELECT k, ts, v, lag(v) OVER w AS prev, lead(v) OVER w AS next FROM ev WINDOW w AS (PARTITION BY k ORDER BY ts)`,
  range: `SELECT k, ts, v, sum(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) AS last_10_min FROM ev`,
} as const

export type WindowQuery = keyof typeof WINDOW_QUERIES
export const WINDOWS_PARTS = ['lag', 'range', 'percentile'] as const
export type WindowsPart = (typeof WINDOWS_PARTS)[number]

const START_MS = Date.UTC(2024, 0, 1)
const BATCH = 1000

/** The i-th event: a key, a value, and its time (1 / rate s after the one before; 1% up to 4 s
 *  earlier, which the 5 s watermark delay still accepts). */
function event(i: number, rng: Rng, keys: number, rate: number): [number, number, number] {
  const nominal = START_MS + Math.floor((i * 1000) / rate)
  const ts = rng.next() < 0.01 ? Math.max(START_MS, nominal - rng.int(4000)) : nominal
  return [rng.int(keys), rng.int(1000), ts]
}

function* ticks(events: number, o: WindowsOptions): Generator<[number, number, number][]> {
  const rng = new Rng(o.seed)
  for (let done = 0; done < events; done += BATCH) {
    const n = Math.min(BATCH, events - done)
    const batch: [number, number, number][] = new Array(n)
    for (let j = 0; j < n; j++) batch[j] = event(done + j, rng, o.keys, o.rate)
    yield batch
  }
}

function rowKeys(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map((r) => r.map(String).join('|')).sort()
}

/** The query as a materialized view over the first `events` events, compared with the same
 *  query run ad hoc every quarter of the way and at the end. Returns the outcome and the
 *  view's EXPLAIN line for its Over operator (with what it has freed). */
function verifyPrefix(query: WindowQuery, events: number, o: WindowsOptions): { verified: string; explain: string } {
  const db = Engine.open()
  db.execute(STREAM) // no retention: the ad hoc query needs the whole history
  db.execute(`CREATE MATERIALIZED VIEW v AS ${WINDOW_QUERIES[query]}`)
  const checkEvery = Math.max(BATCH, Math.ceil(events / 4 / BATCH) * BATCH)
  let done = 0
  let checks = 0
  let rows = 0
  for (const batch of ticks(events, o)) {
    db.insert('ev', batch)
    done += batch.length
    if (done % checkEvery !== 0 && done !== events) continue
    const view = rowKeys(db.query('SELECT * FROM v').rows)
    const adhoc = rowKeys(db.query(WINDOW_QUERIES[query]).rows)
    checks++
    rows = adhoc.length
    if (view.length !== adhoc.length || view.some((r, i) => r !== adhoc[i])) {
      const i = view.findIndex((r, j) => r !== adhoc[j])
      return { verified: `WRONG after ${int(done)} events: view ${int(view.length)} rows, ad hoc ${int(adhoc.length)}; first difference ${view[i]} vs ${adhoc[i]}`, explain: '' }
    }
  }
  const explain = db
    .query('EXPLAIN MATERIALIZED VIEW v')
    .rows.map((r) => String(r[0]))
    .find((l) => l.includes('Over '))!
    .trim()
  return { verified: `OK (view = ad hoc query at ${checks} points of a ${int(events)}-event prefix, ${int(rows)} rows at the end; ${int(db.lateEvents('ev'))} late)`, explain }
}

export interface WindowsRow {
  readonly events: number
  readonly evPerSec: number
  readonly heap: number
  readonly rss: number
  readonly state: number
  readonly streamRows: number
}

export interface WindowsResult {
  readonly rows: WindowsRow[]
  readonly verified: string
  readonly explain: string
  readonly sinkCheck: string
  readonly evPerSec: number
  readonly tickP50: number
  readonly tickP99: number
  readonly tickMax: number
  readonly late: number
}

/** One window query in this process: verified on a prefix, then measured through a sink. */
export function windowsChild(query: WindowQuery, o: WindowsOptions): WindowsResult {
  const { verified, explain } = verifyPrefix(query, Math.min(o.verify, o.events), o)
  gc()
  const db = Engine.open()
  db.execute(STREAM + RETENTION)
  db.execute(`CREATE SINK s AS ${WINDOW_QUERIES[query]} WITH (connector = 'blackhole')`)
  const rows: WindowsRow[] = []
  const tickMs: number[] = []
  let done = 0
  let segBusy = 0
  for (const batch of ticks(o.events, o)) {
    const t0 = nowMs()
    db.insert('ev', batch)
    const dt = nowMs() - t0
    tickMs.push(dt)
    segBusy += dt
    done += batch.length
    if (done % o.report === 0 || done === o.events) {
      const segEvents = done % o.report === 0 ? o.report : done % o.report
      gc()
      const mem = process.memoryUsage()
      rows.push({ events: done, evPerSec: segEvents / (segBusy / 1000), heap: mem.heapUsed, rss: mem.rss, state: db.stateSize('s'), streamRows: db.stateSize('ev') })
      segBusy = 0
    }
  }
  const late = db.lateEvents('ev')
  const sink = db.sinkStatus('s')
  const net = sink.inserted - sink.retracted
  const sinkCheck = net === o.events - late ? `OK (${int(sink.inserted)} rows in, ${int(sink.retracted)} retracted: one per event)` : `WRONG (${int(net)} rows net for ${int(o.events - late)} events)`
  const t = stats(tickMs)
  return { rows, verified, explain, sinkCheck, evPerSec: o.events / (tickMs.reduce((a, b) => a + b, 0) / 1000), tickP50: t.p50, tickP99: t.p99, tickMax: t.max, late }
}

function child(script: string, args: readonly string[]): string | undefined {
  const r = spawnSync(process.execPath, ['--expose-gc', script, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.status !== 0) {
    process.stdout.write(`failed: ${r.stderr}\n\n`)
    process.exitCode = 1
    return undefined
  }
  return r.stdout.trim().split('\n').pop()!
}

export interface PercentileOptions {
  readonly rows: number
  readonly groups: number
  readonly ticks: number
  readonly recomputes: number
}

export function runWindows(o: WindowsOptions, p: PercentileOptions, script: string, parts: readonly WindowsPart[]): void {
  const common = ['--seed', String(o.seed)]
  for (const part of parts) {
    if (part === 'percentile') {
      const out = child(script, ['_windows', part, '--rows', String(p.rows), '--groups', String(p.groups), '--ticks', String(p.ticks), '--recomputes', String(p.recomputes), ...common])
      if (out !== undefined) process.stdout.write(formatPercentiles(JSON.parse(out) as PercentileResult))
      continue
    }
    process.stdout.write(`### ${part}\n\n\`\`\`sql\n${STREAM}${RETENTION};\nCREATE SINK s AS ${WINDOW_QUERIES[part]} WITH (connector = 'blackhole')\n\`\`\`\n\n`)
    const out = child(script, ['_windows', part, '--events', String(o.events), '--verify', String(o.verify), '--keys', String(o.keys), '--rate', String(o.rate), '--report', String(o.report), ...common])
    if (out === undefined) continue
    const r = JSON.parse(out) as WindowsResult
    process.stdout.write(`EXPLAIN (of the prefix's view): \`${r.explain}\`\n\n`)
    process.stdout.write(
      table(
        ['events', 'events/s (stretch)', 'heap MB after GC', 'RSS MB', 'operator state', 'stream rows kept'],
        r.rows.map((x) => [int(x.events), int(x.evPerSec), mb(x.heap), mb(x.rss), int(x.state), int(x.streamRows)]),
      ) + '\n\n',
    )
    // the first sample is taken while the frame still fills (and the JIT warms up)
    const later = r.rows.slice(1).map((x) => x.heap)
    const heap = later.length > 0 ? `heap after GC from ${int(r.rows[1]!.events)} events to the end: ${mb(Math.min(...later))}–${mb(Math.max(...later))} MB` : `heap after GC ${mb(r.rows[0]!.heap)} MB`
    process.stdout.write(
      `${part}: ${int(r.evPerSec)} events/s overall (insert calls only); tick of ${int(BATCH)} events p50 ${ms(r.tickP50)} ms, p99 ${ms(r.tickP99)} ms, longest ${ms(r.tickMax)} ms; ${heap}; ${int(r.late)} late\n` +
        `verification: ${r.verified}; sink: ${r.sinkCheck}\n\n`,
    )
  }
}
