// The percentile part of `npm run bench -- windows`: the median per group of a table kept by a
// materialized view under updates, against recomputing it by sorting.
//
// A table of `rows` rows (id, g = id mod `groups`, v a random integer below 1,000,000) and
//   CREATE MATERIALIZED VIEW m AS SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) …
// Each tick gives 1,000 random rows a new v (a BEGIN block deleting the old rows and inserting
// the new ones: one tick). Timed per tick, side by side:
//   view       the tick itself: the table and the view's ordered multisets maintained
//   read       reading the whole view (every group's median) after it
//   JS sort    the baseline a recompute needs at least: for each group the tick changed, its
//              values gathered from a plain array and sorted (Float64Array.sort), the median
//              interpolated as percentile_cont does
//   ad hoc     the same query as an ad hoc SELECT (rivulet's own recompute of every group),
//              every few ticks (it takes long)
// Verified as it runs: after every tick the view's median of each changed group equals the JS
// sort's; each ad hoc SELECT equals the whole view; at the end every group is checked.

import { Engine } from '../src/index.js'
import { Rng, gc, int, mb, ms, nowMs, stats, table, type Stats } from './lib.js'

const TICK = 1000
const QUERY = `SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS median FROM t GROUP BY g`

export interface PercentileResult {
  readonly rows: number
  readonly groups: number
  readonly ticks: number
  readonly loadRowsPerSec: number
  readonly heap: number
  readonly changedGroups: number
  readonly view: Stats
  readonly read: Stats
  readonly jsSort: Stats
  readonly adhoc: Stats
  readonly verified: string
}

/** percentile_cont(0.5) of sorted values: between ranks ⌊(n−1)/2⌋ and ⌈(n−1)/2⌉. */
function median(sorted: Float64Array): number | null {
  const n = sorted.length
  if (n === 0) return null
  const pos = 0.5 * (n - 1)
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

/** The JS recompute of one group: its values gathered (ids g, g + groups, …) and sorted. */
function sortGroup(values: Int32Array, groups: number, g: number): number | null {
  const n = Math.ceil((values.length - g) / groups)
  const a = new Float64Array(Math.max(0, n))
  for (let id = g, i = 0; id < values.length; id += groups) a[i++] = values[id]!
  a.sort()
  return median(a)
}

function medians(rows: readonly (readonly unknown[])[]): Map<number, number | null> {
  const m = new Map<number, number | null>()
  for (const r of rows) m.set(Number(r[0]), r[1] === null ? null : Number(r[1]))
  return m
}

export function percentileChild(o: { rows: number; groups: number; ticks: number; recomputes: number; seed: number }): PercentileResult {
  const rng = new Rng(o.seed)
  const db = Engine.open()
  db.execute('CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT)')
  db.execute(`CREATE MATERIALIZED VIEW m AS ${QUERY}`)
  const values = new Int32Array(o.rows)
  const t0 = nowMs()
  for (let lo = 0; lo < o.rows; lo += 10_000) {
    const batch: [number, number, number][] = []
    for (let id = lo; id < Math.min(o.rows, lo + 10_000); id++) {
      values[id] = rng.int(1_000_000)
      batch.push([id, id % o.groups, values[id]!])
    }
    db.insert('t', batch)
  }
  const loadRowsPerSec = o.rows / ((nowMs() - t0) / 1000)
  gc()
  const heap = process.memoryUsage().heapUsed
  const recomputeEvery = Math.max(1, Math.floor(o.ticks / Math.max(1, o.recomputes)))
  const viewMs: number[] = []
  const readMs: number[] = []
  const sortMs: number[] = []
  const adhocMs: number[] = []
  let changedGroups = 0
  let wrong = ''
  for (let tick = 1; tick <= o.ticks && wrong === ''; tick++) {
    const ids = new Set<number>()
    while (ids.size < Math.min(TICK, o.rows)) ids.add(rng.int(o.rows))
    const before: [number, number, number][] = []
    const after: [number, number, number][] = []
    for (const id of ids) {
      before.push([id, id % o.groups, values[id]!])
      values[id] = rng.int(1_000_000)
      after.push([id, id % o.groups, values[id]!])
    }
    let s = nowMs()
    db.execute('BEGIN')
    db.delete('t', before)
    db.insert('t', after)
    db.execute('COMMIT')
    viewMs.push(nowMs() - s)
    s = nowMs()
    const view = medians(db.query('SELECT g, median FROM m').rows)
    readMs.push(nowMs() - s)
    s = nowMs()
    const changed = new Set<number>()
    for (const id of ids) changed.add(id % o.groups)
    const expected = new Map<number, number | null>()
    for (const g of changed) expected.set(g, sortGroup(values, o.groups, g))
    sortMs.push(nowMs() - s)
    changedGroups += changed.size
    for (const [g, x] of expected) if (view.get(g) !== x) wrong = `WRONG after tick ${tick}: group ${g} view ${view.get(g)} vs sorted ${x}`
    if (tick % recomputeEvery === 0 && wrong === '') {
      s = nowMs()
      const adhoc = medians(db.query(QUERY).rows)
      adhocMs.push(nowMs() - s)
      if (adhoc.size !== view.size) wrong = `WRONG after tick ${tick}: ad hoc ${adhoc.size} groups, view ${view.size}`
      for (const [g, x] of adhoc) if (view.get(g) !== x) wrong = `WRONG after tick ${tick}: group ${g} view ${view.get(g)} vs ad hoc ${x}`
    }
  }
  if (wrong === '') {
    const view = medians(db.query('SELECT g, median FROM m').rows)
    for (let g = 0; g < o.groups; g++) if (view.get(g) !== sortGroup(values, o.groups, g)) wrong = `WRONG at the end: group ${g}`
  }
  const verified = wrong || `OK (each tick's changed groups against the sort, ${adhocMs.length} ad hoc SELECTs against the view, every group at the end)`
  return { rows: o.rows, groups: o.groups, ticks: o.ticks, loadRowsPerSec, heap, changedGroups: changedGroups / o.ticks, view: stats(viewMs), read: stats(readMs), jsSort: stats(sortMs), adhoc: stats(adhocMs), verified }
}

export function formatPercentiles(r: PercentileResult): string {
  const row = (name: string, x: Stats, baseline: boolean): string[] => [name, String(x.n), ms(x.p50), ms(x.p99), ms(x.max), baseline ? `${(x.p50 / r.view.p50).toFixed(1)}×` : '']
  return (
    `### percentile\n\n\`\`\`sql\nCREATE TABLE t (id INT PRIMARY KEY, g INT, v INT);\nCREATE MATERIALIZED VIEW m AS ${QUERY}\n\`\`\`\n\n` +
    `${int(r.rows)} rows in ${int(r.groups)} groups (loaded at ${int(r.loadRowsPerSec)} rows/s; heap after GC ${mb(r.heap)} MB); ` +
    `${int(r.ticks)} ticks of ${int(TICK)} updates, ${int(r.changedGroups)} groups changed per tick on average\n\n` +
    table(
      ['per tick', 'ticks', 'p50 ms', 'p99 ms', 'max ms', 'p50 vs the view'],
      [
        row('view maintained (the update tick)', r.view, false),
        row('read every median from the view', r.read, false),
        row('JS: sort each changed group', r.jsSort, true),
        row('ad hoc SELECT (recompute all groups)', r.adhoc, true),
      ],
    ) +
    `\n\nverification: ${r.verified}\n\n`
  )
}
