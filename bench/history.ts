// `npm run bench -- history`: what a stream's history costs, W3's shape (an APPEND ONLY table of
// bids inserted 1,000 rows a tick, a window view `SELECT auction, ts/10000, count(*),
// max(price) … GROUP BY auction, ts/10000`), side by side in one run, each way in a process of
// its own (so each peak RSS is its own):
//   heap      every row of the history in the heap (historyInMemory beyond the stream's length)
//   spilled   the default: the newest rows in memory, the rest in the nameless spill file
//   durable   a data directory at durability 'process': the rest read back from the log
//   none      WITH (history = false): nothing kept (the floor: the view's own state)
// Events as the peers harness makes them: 10,000 auctions, 10,000 events per second of event
// time (ts in ms), so 10 windows of 10 s per 1M events and about 100,000 groups.
// Reports events/s, the insert's p50 / p99 / max, the heap after a GC and the peak RSS.

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Engine } from '../src/index.js'
import { Rng, int, mb, table } from './lib.js'

export const HISTORY_MODES = ['heap', 'spilled', 'durable', 'none'] as const
export type HistoryMode = (typeof HISTORY_MODES)[number]

export interface HistoryResult {
  readonly mode: HistoryMode
  readonly events: number
  readonly evPerSec: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly heap: number
  readonly maxRss: number
  readonly viewState: number
}

/** One way, in this process. */
export function historyChild(mode: HistoryMode, events: number, seed: number): HistoryResult {
  const dir = mode === 'durable' ? mkdtempSync(path.join(tmpdir(), 'rivulet-bench-history-')) : undefined
  try {
    const db = Engine.open({ ...(dir !== undefined ? { dir, durability: 'process' as const, checkpointInterval: 0 } : {}), ...(mode === 'heap' ? { historyInMemory: events + 1 } : {}) })
    db.execute(`CREATE TABLE bids (id BIGINT NOT NULL, auction INT, bidder INT, price INT, ts BIGINT) APPEND ONLY${mode === 'none' ? ' WITH (history = false)' : ''}`)
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT auction, ts / 10000 AS win, count(*) AS n, max(price) AS top FROM bids GROUP BY auction, ts / 10000')
    const rng = new Rng(seed)
    const times: number[] = []
    const t0 = performance.now()
    for (let lo = 0; lo < events; lo += 1000) {
      const rows: unknown[][] = []
      for (let i = lo; i < Math.min(events, lo + 1000); i++) rows.push([i, rng.int(10_000), rng.int(5_000), rng.int(100_000), Math.floor(i / 10)])
      const s = performance.now()
      db.insert('bids', rows)
      times.push(performance.now() - s)
    }
    const seconds = (performance.now() - t0) / 1000
    times.sort((a, b) => a - b)
    ;(globalThis as { gc?: () => void }).gc?.()
    const result: HistoryResult = {
      mode,
      events,
      evPerSec: events / seconds,
      p50: times[times.length >> 1]!,
      p99: times[Math.floor(times.length * 0.99)]!,
      max: times[times.length - 1]!,
      heap: process.memoryUsage().heapUsed,
      maxRss: process.resourceUsage().maxRSS * 1024,
      viewState: db.stateSize('v'),
    }
    db.close()
    return result
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}

export function runHistory(o: { events: number; seed: number; modes: readonly HistoryMode[] }, script: string): void {
  const results: HistoryResult[] = []
  for (const mode of o.modes) {
    const r = spawnSync(process.execPath, ['--expose-gc', script, '_history', mode, '--events', String(o.events), '--seed', String(o.seed)], { encoding: 'utf8', maxBuffer: 1 << 24 })
    if (r.status !== 0) throw new Error(`history ${mode}: ${r.stderr}`)
    results.push(JSON.parse(r.stdout.trim().split('\n').at(-1)!) as HistoryResult)
  }
  process.stdout.write(`W3's shape, ${int(o.events)} events in ticks of 1,000:\n\n`)
  process.stdout.write(
    table(
      ['history', 'events/s', 'insert p50 ms', 'p99 ms', 'max ms', 'heap after GC MB', 'peak RSS MB', 'view state rows'],
      results.map((x) => [x.mode, int(x.evPerSec), x.p50.toFixed(3), x.p99.toFixed(3), x.max.toFixed(1), mb(x.heap), mb(x.maxRss), int(x.viewState)]),
    ),
  )
}
