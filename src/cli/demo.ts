// `rivulet demo`: the main job on its embedded default. The Nexmark generator (an online
// auction: people, auctions, bids) feeds three live views:
//   hot_items         the 3 auctions with most bids in each 10 s window sliding every 2 s (HOP)
//   top_sessions      the 5 bidding sessions (2 s gap, SESSION) with the highest bid, final
//                     once each session closes (EMIT ON WINDOW CLOSE)
//   category_prices   the average winning price per category (the bids made while an auction
//                     was open, a time-range join, then an aggregate of an aggregate)
// On a terminal the views are redrawn in place as the events flow, each frame fitted to the
// terminal (process.stdout.rows × columns, default 80×24: rows cut with "… N more", wide cells
// and lines abbreviated with "…"); piped, each view's changes are printed every --report events
// as `+ (column=value, …)` / `- (…)` (retractions included), then the final contents. The run
// is bounded (--events) and deterministic for a seed.

import { Engine } from '../engine/index.js'
import { charWidth, displayWidth, formatAligned, isRightAligned } from '../repl/format.js'
import { formatValue } from '../sql-runtime/value-text.js'
import type { ChangeBatch, ColumnInfo, ResultValue } from '../types.js'

export interface DemoOptions {
  /** Events to generate (default 200,000: 20 s of auction time). */
  readonly events?: number
  /** Wall-clock events per second at most (default: 40,000 on a terminal, unpaced when piped). */
  readonly pace?: number
  /** Generator seed (default 0): the same seed prints the same run. */
  readonly seed?: number
  /** Piped output: print the changes every this many events (default 50,000). */
  readonly report?: number
  /** Redraw in place (default: stdout is a terminal). */
  readonly tty?: boolean
  /** The terminal's size for the redrawn frames (default process.stdout.rows / columns, else
   *  24 × 80); read again for every frame, so a resized terminal is followed. */
  readonly size?: () => { readonly rows: number; readonly columns: number }
  /** Where output goes (default stdout). */
  readonly out?: (s: string) => void
}

interface DemoView {
  readonly name: string
  readonly sql: string
  /** How the live display orders it. */
  readonly show: string
  readonly caption: string
}

const HOT_ITEMS_SQL = `SELECT window_end, auction, num AS bids FROM (
  SELECT auction, num, window_end,
    ROW_NUMBER() OVER (PARTITION BY window_end ORDER BY num DESC, auction) AS rn
  FROM (
    SELECT auction, COUNT(*) AS num, window_end
    FROM HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND)
    GROUP BY auction, window_start, window_end
  ) AS counts
) AS ranked
WHERE rn <= 3`

const SESSIONS_SQL = `SELECT bidder, MAX(price) AS top_bid, COUNT(*) AS bids, window_start, window_end
FROM SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '2' SECOND)
GROUP BY bidder, window_start, window_end
EMIT ON WINDOW CLOSE`

const VIEWS: readonly DemoView[] = [
  {
    name: 'hot_items',
    sql: HOT_ITEMS_SQL,
    show: 'SELECT * FROM hot_items WHERE window_end > (SELECT MAX(window_end) FROM hot_items) - INTERVAL \'4\' SECOND ORDER BY window_end DESC, bids DESC, auction',
    caption: 'hot items: the 3 auctions with most bids per 10 s window (sliding every 2 s), latest windows',
  },
  {
    name: 'top_sessions',
    sql: 'SELECT bidder, top_bid, bids, window_start, window_end FROM sessions ORDER BY top_bid DESC, bidder LIMIT 5',
    show: 'SELECT * FROM top_sessions ORDER BY top_bid DESC, bidder',
    caption: 'top sessions: the highest bids of closed bidding sessions (2 s gap)',
  },
  {
    name: 'category_prices',
    sql: `SELECT Q.category, COUNT(*) AS auctions, ROUND(AVG(Q.final) / 100.0, 2) AS avg_price_usd
FROM (
  SELECT MAX(B.price) AS final, A.category
  FROM auction AS A, bid AS B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
  GROUP BY A.id, A.category
) AS Q
GROUP BY Q.category`,
    show: 'SELECT * FROM category_prices ORDER BY category',
    caption: 'average winning price per category (bids made while the auction was open)',
  },
]

/** A changed row with its column names: `(window_end=2015-07-15 00:00:02, auction=1000, …)`. */
function tuple(row: readonly ResultValue[], columns: readonly ColumnInfo[]): string {
  return `(${row.map((v, j) => `${columns[j]?.name ?? `column${j + 1}`}=${v === null ? 'NULL' : formatValue(v, columns[j]?.type ?? 'unknown')}`).join(', ')})`
}

/** `s` cut to `width` screen columns, ending in `…` when cut. */
export function abbreviate(s: string, width: number): string {
  if (displayWidth(s) <= width) return s
  let out = ''
  let w = 0
  for (const ch of s) {
    const cw = charWidth(ch.codePointAt(0)!)
    if (w + cw > width - 1) break
    out += ch
    w += cw
  }
  return `${out}…`
}

/** Widest cell shown in a frame (wider ones are abbreviated). */
const MAX_CELL = 24

interface FrameView {
  readonly title: string
  /** The table's header and separator lines. */
  readonly head: readonly string[]
  /** Its row lines. */
  readonly rows: readonly string[]
}

/** One redrawn frame: the status lines, then each view (title, header, as many rows as fit,
 *  `… N more` for the rest), never more than `rows - 1` lines (the cursor stays on the
 *  screen) nor wider than `columns`. */
export function fitFrame(status: readonly string[], views: readonly FrameView[], rows: number, columns: number): string {
  const budget = Math.max(1, rows - 1)
  const fixed = status.length + views.reduce((n, v) => n + 1 + 1 + v.head.length, 0)
  let spare = budget - fixed
  const shown = views.map(() => 0)
  // rows handed out one view at a time, so that every view shows some
  for (let progress = true; spare > 0 && progress; ) {
    progress = false
    views.forEach((v, k) => {
      if (spare > 0 && shown[k]! < v.rows.length) {
        shown[k]!++
        spare--
        progress = true
      }
    })
  }
  const lines = [...status]
  views.forEach((v, k) => {
    lines.push('', v.title, ...v.head)
    let n = shown[k]!
    const more = v.rows.length - n
    if (more > 0 && n > 0) n-- // the last row's place says how many are left out
    lines.push(...v.rows.slice(0, n))
    if (more > 0) lines.push(`… ${v.rows.length - n} more`)
  })
  return lines.slice(0, budget).map((l) => `${abbreviate(l, columns)}\n`).join('')
}

/** Sums changes per row over several ticks; retractions first: `- (…)` then `+ (…)`. */
function renderChanges(batches: readonly ChangeBatch[]): string[] {
  const net = new Map<string, { diff: number; text: string }>()
  for (const batch of batches) {
    for (const [row, diff] of batch.changes) {
      const key = JSON.stringify(row)
      const entry = net.get(key)
      if (entry) entry.diff += diff
      else net.set(key, { diff, text: tuple(row, batch.columns) })
    }
  }
  const changes = [...net.values()].filter((c) => c.diff !== 0)
  changes.sort((a, b) => Math.sign(a.diff) - Math.sign(b.diff))
  return changes.map((c) => `${c.diff < 0 ? '-' : '+'} ${c.text}${Math.abs(c.diff) > 1 ? ` ×${Math.abs(c.diff)}` : ''}`)
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export async function runDemo(options: DemoOptions = {}): Promise<void> {
  const out = options.out ?? ((s: string) => void process.stdout.write(s))
  const tty = options.tty ?? (options.out === undefined && process.stdout.isTTY === true)
  const events = options.events ?? 200_000
  const pace = options.pace ?? (tty ? 40_000 : Infinity)
  const report = options.report ?? 50_000
  const db = Engine.open({ sources: 'manual' })
  try {
    db.execute(`CREATE SOURCE nexmark WITH (connector = 'nexmark', events = ${events}, seed = ${options.seed ?? 0}, retention = '30 seconds')`)
    db.execute(`CREATE MATERIALIZED VIEW sessions AS ${SESSIONS_SQL}`)
    for (const v of VIEWS) db.execute(`CREATE MATERIALIZED VIEW ${v.name} AS ${v.sql}`)
    const pending = new Map<string, ChangeBatch[]>(VIEWS.map((v) => [v.name, []]))
    if (!tty) for (const v of VIEWS) db.subscribe(v.name, (b) => pending.get(v.name)!.push(b), { snapshot: false })

    const table = (v: DemoView): string => {
      const r = db.query(v.show)
      return `${v.name}: ${v.caption}\n${formatAligned(r.columns, r.rows).trimEnd()}\n`
    }
    const size = options.size ?? (() => ({ rows: process.stdout.rows || 24, columns: process.stdout.columns || 80 }))
    const frame = (done: number, seconds: number): string => {
      const status = [
        `Nexmark: ${done.toLocaleString('en-US')} of ${events.toLocaleString('en-US')} events · ${Math.round(done / Math.max(seconds, 1e-3)).toLocaleString('en-US')} events/s`,
        `auction time ${db.watermark('bid') ?? '-'} (watermark)`,
      ]
      const views = VIEWS.map((v): FrameView => {
        const r = db.query(v.show)
        // numbers as they are (right-aligned); other values as their text, abbreviated
        const columns = r.columns.map((c): ColumnInfo => (isRightAligned(c.type) ? c : { name: c.name, type: 'text' }))
        const cells = r.rows.map((row) => row.map((x, j) => (x === null || isRightAligned(r.columns[j]!.type) ? x : abbreviate(formatValue(x, r.columns[j]!.type), MAX_CELL))))
        const lines = formatAligned(columns, cells).replace(/\(\d+ rows?\)\n\n$/, '').trimEnd().split('\n')
        return { title: `${v.name}: ${v.caption}`, head: lines.slice(0, 2), rows: lines.slice(2) }
      })
      const { rows, columns } = size()
      return fitFrame(status, views, Math.max(4, rows), Math.max(20, columns))
    }
    if (!tty) {
      out(`rivulet demo: the Nexmark auction generator (${events.toLocaleString('en-US')} events, seed ${options.seed ?? 0}) feeding three views; their changes every ${report.toLocaleString('en-US')} events\n`)
      for (const v of VIEWS) out(`  ${v.name}: ${v.caption}\n`)
    }
    const t0 = performance.now()
    const chunk = tty ? 2000 : report
    let done = 0
    while (done < events) {
      done += db.stepSource('nexmark', Math.min(chunk, events - done))
      const seconds = (performance.now() - t0) / 1000
      if (tty) {
        out(`\x1b[H\x1b[J${frame(done, seconds)}`)
        const ahead = done / pace - (performance.now() - t0) / 1000
        if (ahead > 0) await sleep(ahead * 1000)
      } else {
        out(`\n-- after ${done.toLocaleString('en-US')} events, watermark ${db.watermark('bid') ?? '-'}\n`)
        for (const v of VIEWS) {
          const lines = renderChanges(pending.get(v.name)!)
          pending.set(v.name, [])
          if (lines.length > 0) out(`  ${v.name}\n${lines.map((l) => `    ${l}\n`).join('')}`)
        }
      }
    }
    if (!tty) {
      out(`\nfinal contents:\n\n`)
      for (const v of VIEWS) out(`${table(v)}\n`)
    } else out(`done: ${events.toLocaleString('en-US')} events in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
  } finally {
    db.close()
  }
}
