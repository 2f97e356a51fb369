// `npm run bench -- joins`: an event-time temporal join at scale. A stream of orders (10,000
// per second of event time, out of order by up to 0.5 s) is converted by the rate valid at
// each order's time, from a versioned table of 100,000 currencies of which 100 get a new
// version with every 1,000 orders. The view sums the converted value per 10-second window and
// emits each window once, when it closes (EMIT ON WINDOW CLOSE). Both watermarks advance with
// the data, so the join forgets orders once no version can still revise them and versions
// once a newer one is valid for every order still to come; the stream and the versioned table
// keep 30 s of history (retention). Every `report` orders it prints the throughput of that
// stretch, heap after a full GC, RSS, the view's operator state and the versions kept.
//
// Runs in a child process (its own heap and RSS). Verified at the end against a plain-JS
// evaluation of the same join and windows over the same events.

import { spawnSync } from 'node:child_process'
import { Engine } from '../src/index.js'
import { Rng, gc, int, mb, nowMs, table } from './lib.js'

export interface JoinsOptions {
  readonly events: number
  readonly batch: number
  readonly report: number
  readonly keys: number
  readonly seed: number
}

const DDL = [
  `CREATE STREAM orders (id BIGINT, cur INT, amount INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (retention = '30 seconds')`,
  `CREATE TABLE rates (cur INT PRIMARY KEY, rate INT, valid_from TIMESTAMP, WATERMARK FOR valid_from AS valid_from - INTERVAL '1' SECOND) WITH (retention = '30 seconds')`,
]

export const JOINS_VIEW = `CREATE MATERIALIZED VIEW v AS
  SELECT window_end, count(*) AS orders, sum(amount * rate) AS value
  FROM TUMBLE((SELECT o.ts, o.amount, r.rate FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur), ts, INTERVAL '10' SECOND)
  GROUP BY window_end EMIT ON WINDOW CLOSE`

const START_MS = Date.UTC(2024, 0, 1)

export interface JoinsRow {
  readonly events: number
  readonly evPerSec: number
  readonly heapMb: number
  readonly rssMb: number
  readonly state: number
  readonly versions: number
  readonly viewRows: number
}

/** Plain-JS reference: per currency its versions [time ms, rate] ascending; the accepted
 *  orders wait per window until the window is final (both watermarks at or past its end: no
 *  version can revise them any more), then are priced. Versions superseded before the oldest
 *  open window are dropped. */
class Reference {
  readonly versions = new Map<number, number[]>()
  readonly pending = new Map<number, number[]>()
  readonly closed = new Map<number, [number, number]>()
  #floor = -Infinity

  put(cur: number, ms: number, rate: number): void {
    let v = this.versions.get(cur)
    if (v === undefined) this.versions.set(cur, (v = []))
    v.push(ms, rate)
    let keepFrom = 0
    for (let i = 0; i < v.length; i += 2) if (v[i]! <= this.#floor) keepFrom = i
    if (keepFrom > 0) v.splice(0, keepFrom)
  }

  order(cur: number, ms: number, amount: number): void {
    const end = Math.floor(ms / 10_000) * 10_000 + 10_000
    let p = this.pending.get(end)
    if (p === undefined) this.pending.set(end, (p = []))
    p.push(cur, ms, amount)
  }

  /** Prices the windows ending at or before `watermark`. */
  close(watermark: number): void {
    for (const [end, p] of this.pending) {
      if (end > watermark) continue
      const w: [number, number] = [0, 0]
      for (let i = 0; i < p.length; i += 3) {
        const v = this.versions.get(p[i]!)
        let rate: number | undefined
        if (v) for (let j = 0; j < v.length && v[j]! <= p[i + 1]!; j += 2) rate = v[j + 1]
        if (rate === undefined) continue
        w[0]++
        w[1] += p[i + 2]! * rate
      }
      if (w[0] > 0) this.closed.set(end, w)
      this.pending.delete(end)
      this.#floor = Math.max(this.#floor, end)
    }
  }
}

export function joinsChild(o: JoinsOptions): { rows: JoinsRow[]; verified: string; totalEvPerSec: number } {
  const db = Engine.open()
  for (const s of DDL) db.execute(s)
  db.execute(JOINS_VIEW)
  const rng = new Rng(o.seed)
  const ref = new Reference()
  // every currency's first version, at the start
  const initial: [number, number, number][] = []
  for (let c = 0; c < o.keys; c++) {
    const rate = 1 + rng.int(100)
    initial.push([c, rate, START_MS])
    ref.put(c, START_MS, rate)
  }
  db.insert('rates', initial)
  const rows: JoinsRow[] = []
  let orderWm = -Infinity
  let rateWm = -Infinity
  let busy = 0
  let segBusy = 0
  for (let done = 0; done < o.events; ) {
    const n = Math.min(o.batch, o.events - done)
    const batchMs = START_MS + Math.floor(done / 10) + 1
    // new versions first (at the batch's time), then the orders
    const updates: [number, number, number][] = []
    for (let j = 0; j < 100; j++) updates.push([rng.int(o.keys), 1 + rng.int(100), batchMs])
    const orders: [number, number, number, number][] = new Array(n)
    let maxTs = -Infinity
    for (let j = 0; j < n; j++) {
      const i = done + j
      const ms = Math.max(START_MS, START_MS + Math.floor(i / 10) + rng.int(1001) - 500)
      orders[j] = [i, rng.int(o.keys), 1 + rng.int(1000), ms]
      if (ms > maxTs) maxTs = ms
    }
    const t0 = nowMs()
    // one version per currency and time: the last update of a currency in a batch wins
    const latest = new Map<number, [number, number, number]>()
    for (const u of updates) latest.set(u[0], u)
    db.insert('rates', [...latest.values()])
    db.insert('orders', orders)
    const dt = nowMs() - t0
    busy += dt
    segBusy += dt
    for (const u of latest.values()) ref.put(u[0], u[2], u[1])
    rateWm = Math.max(rateWm, batchMs - 1000)
    for (const r of orders) if (r[3] >= orderWm) ref.order(r[1], r[3], r[2])
    if (maxTs > orderWm + 1000) orderWm = maxTs - 1000
    ref.close(Math.min(orderWm, rateWm))
    done += n
    if (done % o.report === 0 || done === o.events) {
      const segEvents = done % o.report === 0 ? o.report : done % o.report
      gc()
      const mem = process.memoryUsage()
      const viewRows = Number(db.query('SELECT count(*) FROM v').rows[0]![0])
      rows.push({ events: done, evPerSec: segEvents / (segBusy / 1000), heapMb: mem.heapUsed, rssMb: mem.rss, state: db.stateSize('v') - viewRows, versions: db.stateSize('rates'), viewRows })
      segBusy = 0
    }
  }
  const got = new Map<number, [number, number]>()
  for (const r of db.query('SELECT (extract(epoch FROM window_end) * 1000)::bigint, orders, value FROM v').rows) got.set(Number(r[0]), [Number(r[1]), Number(r[2])])
  let bad = 0
  let closed = 0
  for (const [end, [count, value]] of ref.closed) {
    closed++
    const g = got.get(end)
    if (!g || g[0] !== count || g[1] !== value) bad++
  }
  if (got.size !== closed) bad++
  const verified = bad === 0 ? `OK (${closed} closed windows: counts and sums match)` : `WRONG (${bad} windows differ; ${got.size} emitted, ${closed} expected)`
  return { rows, verified, totalEvPerSec: o.events / (busy / 1000) }
}

export function runJoins(o: JoinsOptions, script: string): void {
  process.stdout.write(`### temporal join\n\n\`\`\`sql\n${[...DDL, JOINS_VIEW].map((s) => s.replace(/\n\s+/g, '\n  ')).join(';\n')}\n\`\`\`\n\n`)
  const r = spawnSync(process.execPath, ['--expose-gc', script, '_joins', '--events', String(o.events), '--batch', String(o.batch), '--report', String(o.report), '--keys', String(o.keys), '--seed', String(o.seed)], { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.status !== 0) {
    process.stdout.write(`failed: ${r.stderr}\n`)
    return
  }
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as ReturnType<typeof joinsChild>
  process.stdout.write(
    table(
      ['orders', 'orders/s (stretch)', 'heap MB', 'RSS MB', 'operator state', 'versions kept', 'view rows'],
      out.rows.map((x) => [int(x.events), int(x.evPerSec), mb(x.heapMb), mb(x.rssMb), int(x.state), int(x.versions), int(x.viewRows)]),
    ) + '\n\n',
  )
  process.stdout.write(`temporal join: ${int(out.totalEvPerSec)} orders/s overall (insert calls for orders and rate versions; the generator and the reference are outside the timing); verification: ${out.verified}\n\n`)
}
