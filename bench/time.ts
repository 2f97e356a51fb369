// `npm run bench -- time`: event time at scale. A stream of bids (10,000 events per second of
// event time, out of order by up to 0.5 s, a hot set of auctions that moves every 2 s) goes
// through EMIT ON WINDOW CLOSE views over TUMBLE and SESSION windows, with a watermark
// (1 s delay) and a retention of 30 s on the stream. Every `report` events it prints the
// throughput of that stretch, the heap after a full GC, RSS, the view's operator state, the
// stream's stored rows and the rows the view has emitted: with the watermark freeing closed
// windows and sessions, state and heap stay flat however long the stream runs.
//
// Each view runs in its own child process (so heap and RSS are its own). The TUMBLE view is
// verified at the end against a plain-JS count of the accepted events per closed window.

import { spawnSync } from 'node:child_process'
import { Engine } from '../src/index.js'
import { Rng, gc, int, mb, nowMs, table } from './lib.js'

export interface TimeOptions {
  readonly events: number
  readonly batch: number
  readonly report: number
  readonly seed: number
}

const STREAM = `CREATE STREAM bids (auction INT, price INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (retention = '30 seconds')`

export const TIME_VIEWS = {
  tumble: `CREATE MATERIALIZED VIEW v AS
    SELECT window_end, count(*) AS auctions, sum(n) AS bids, max(top) AS top
    FROM (SELECT auction, window_end, count(*) AS n, max(price) AS top
          FROM TUMBLE(bids, ts, INTERVAL '10' SECOND) GROUP BY auction, window_end) per_auction
    GROUP BY window_end EMIT ON WINDOW CLOSE`,
  session: `CREATE MATERIALIZED VIEW v AS
    SELECT window_end, count(*) AS sessions, sum(n) AS bids, max(n) AS longest
    FROM TUMBLE((SELECT auction, window_end AS session_end, count(*) AS n
                 FROM SESSION(TABLE bids PARTITION BY auction, DESCRIPTOR(ts), INTERVAL '2' SECOND)
                 GROUP BY auction, window_start, window_end), session_end, INTERVAL '10' SECOND)
    GROUP BY window_end EMIT ON WINDOW CLOSE`,
} as const

export type TimeView = keyof typeof TIME_VIEWS

const START_MS = Date.UTC(2024, 0, 1)

/** The i-th event: 10 per ms of event time, jittered by up to ±500 ms; 1,000 auctions active
 *  per 2 s of event time, then the next 1,000 (so sessions end and windows close). */
function event(i: number, rng: Rng): [number, number, number] {
  const ms = Math.floor(i / 10)
  const block = Math.floor(ms / 2000)
  const auction = block * 1000 + rng.int(1000)
  const jitter = rng.int(1001) - 500
  return [auction, 1 + rng.int(10_000), START_MS + Math.max(0, ms + jitter)]
}

export interface TimeRow {
  readonly events: number
  readonly evPerSec: number
  readonly heapMb: number
  readonly rssMb: number
  readonly state: number
  readonly streamRows: number
  readonly viewRows: number
  readonly late: number
}

/** One view in this process; returns the report rows and the verification outcome. */
export function timeChild(view: TimeView, o: TimeOptions): { rows: TimeRow[]; verified: string; totalEvPerSec: number } {
  const db = Engine.open()
  db.execute(STREAM)
  db.execute(TIME_VIEWS[view])
  const rng = new Rng(o.seed)
  const rows: TimeRow[] = []
  // plain-JS watermark and per-window counts of accepted events (verification of TUMBLE)
  let wm = -Infinity
  const perWindow = new Map<number, number>()
  let late = 0
  let busy = 0
  let segBusy = 0
  for (let done = 0; done < o.events; ) {
    const n = Math.min(o.batch, o.events - done)
    const batch: [number, number, number][] = new Array(n)
    let maxTs = -Infinity
    for (let j = 0; j < n; j++) {
      const e = event(done + j, rng)
      batch[j] = e
      if (e[2] * 1000 < wm) late++
      else {
        if (e[2] > maxTs) maxTs = e[2]
        const end = Math.floor(e[2] / 10_000) * 10_000 + 10_000
        perWindow.set(end, (perWindow.get(end) ?? 0) + 1)
      }
    }
    const t0 = nowMs()
    db.insert('bids', batch)
    const dt = nowMs() - t0
    busy += dt
    segBusy += dt
    if (maxTs !== -Infinity) wm = Math.max(wm, (maxTs - 1000) * 1000)
    done += n
    if (done % o.report === 0 || done === o.events) {
      const segEvents = done % o.report === 0 ? o.report : done % o.report
      gc()
      const mem = process.memoryUsage()
      const viewRows = Number(db.query('SELECT count(*) FROM v').rows[0]![0])
      rows.push({
        events: done,
        evPerSec: segEvents / (segBusy / 1000),
        heapMb: mem.heapUsed,
        rssMb: mem.rss,
        // the view's own rows (its output) are not operator state
        state: db.stateSize('v') - viewRows,
        streamRows: db.stateSize('bids'),
        viewRows,
        late: db.lateEvents('bids'),
      })
      segBusy = 0
    }
  }
  let verified = 'not checked (sessions: see the tumble run)'
  if (view === 'tumble') {
    const got = new Map<number, number>()
    for (const r of db.query("SELECT (extract(epoch FROM window_end) * 1000)::bigint, bids FROM v").rows) got.set(Number(r[0]), Number(r[1]))
    let bad = 0
    let closed = 0
    for (const [end, count] of perWindow) {
      if (end * 1000 > wm) continue
      closed++
      if (got.get(end) !== count) bad++
    }
    if (got.size !== closed) bad++
    verified = bad === 0 && late === db.lateEvents('bids') ? `OK (${closed} closed windows, ${int(late)} late events match)` : `WRONG (${bad} windows differ; late ${late} vs ${db.lateEvents('bids')})`
  }
  return { rows, verified, totalEvPerSec: o.events / (busy / 1000) }
}

export function runTime(o: TimeOptions, script: string, views: readonly TimeView[]): void {
  for (const view of views) {
    process.stdout.write(`### ${view}\n\n\`\`\`sql\n${TIME_VIEWS[view].replace(/\n\s+/g, '\n  ')}\n\`\`\`\n\n`)
    const r = spawnSync(process.execPath, ['--expose-gc', script, '_time', view, '--events', String(o.events), '--batch', String(o.batch), '--report', String(o.report), '--seed', String(o.seed)], { encoding: 'utf8', maxBuffer: 64 << 20 })
    if (r.status !== 0) {
      process.stdout.write(`failed: ${r.stderr}\n`)
      continue
    }
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as ReturnType<typeof timeChild>
    process.stdout.write(
      table(
        ['events', 'events/s (stretch)', 'heap MB', 'RSS MB', 'operator state', 'stream rows kept', 'view rows', 'late'],
        out.rows.map((x) => [int(x.events), int(x.evPerSec), mb(x.heapMb), mb(x.rssMb), int(x.state), int(x.streamRows), int(x.viewRows), int(x.late)]),
      ) + '\n\n',
    )
    process.stdout.write(`${view}: ${int(out.totalEvPerSec)} events/s overall (insert calls only; the generator is outside the timing); verification: ${out.verified}\n\n`)
  }
}
