// `npm run bench -- core`: the engine's core numbers, side by side with better-sqlite3.
//
//  1. GROUP BY view (COUNT/SUM/MIN/MAX over `rows` rows in `groups` groups): per-change
//     latency of single-row changes (1/3 insert, 1/3 delete, 1/3 update; 25% of the deletes /
//     updates hit their group's current MIN or MAX), apply-only and apply + read of the
//     changed group, against better-sqlite3 re-running the full GROUP BY after each change
//     (and, for scale, better-sqlite3 running the query restricted to the changed group).
//  2. inserts/s through a filter + project view, batches of 1000 (and a table with no view).
//  3. inserts/s through a two-table join + aggregate view, batches of 1000.
//  4. memory: heap bytes per row (after gc) with the rows arranged by a view, and RSS; each
//     configuration in a fresh child process so RSS is its own.

import { spawnSync } from 'node:child_process'
import Database from 'better-sqlite3'
import { Engine } from '../src/index.js'
import type { ResultValue } from '../src/index.js'
import { Rng, gc, gcSummary, int, mb, ms, nowMs, stats, table, trackGc, type Stats } from './lib.js'
import { formatSummary, startProfile, stopProfile, summarize } from './profile.js'

export interface CoreOptions {
  readonly rows: number
  readonly groups: number
  readonly changes: number
  readonly quick: boolean
  readonly seed: number
  /** Full recomputes timed on better-sqlite3. */
  readonly recomputes: number
  /** Only run these sections (default all): groupby, filter, join, memory. */
  readonly only: readonly string[] | undefined
  /** Write CPU profiles of the measured phases to this folder and print their hot spots. */
  readonly profile: string | undefined
}

function profiled<T>(o: CoreOptions, name: string, f: () => T): T {
  if (!o.profile) return f()
  startProfile()
  try {
    return f()
  } finally {
    stopProfile(`${o.profile}/core-${name}.cpuprofile`)
  }
}

type Row3 = [number, number, number]
type Change = { op: 'insert'; row: Row3 } | { op: 'delete'; row: Row3 } | { op: 'update'; old: Row3; row: Row3 }

const LOAD_BATCH = 10_000
const INSERT_BATCH = 1000
const V_RANGE = 1_000_000

// ------------------------------------------------------------------------------ 1. GROUP BY

const GROUPBY_VIEW = 'SELECT g, COUNT(*) AS cnt, SUM(v) AS sv, MIN(v) AS mn, MAX(v) AS mx FROM t GROUP BY g'

interface GroupByResult {
  loadMs: number
  changes: number
  hitExtreme: number
  apply: Stats
  applyRead: Stats
  read: Stats
  byOp: Record<string, Stats>
  sqliteLoadMs: number
  sqliteFull: Stats
  sqlitePoint: Stats
  verified: string
  gc: string
}

/** Live rows per group, for picking victims (random or the group's MIN/MAX holder). */
class GroupState {
  readonly gOf: Int32Array
  readonly vOf: Int32Array
  readonly members: number[][]
  readonly posInGroup: Int32Array
  readonly live: Int32Array
  readonly posLive: Int32Array
  nLive = 0
  nextId = 0

  constructor(cap: number, groups: number) {
    this.gOf = new Int32Array(cap)
    this.vOf = new Int32Array(cap)
    this.posInGroup = new Int32Array(cap).fill(-1)
    this.live = new Int32Array(cap)
    this.posLive = new Int32Array(cap).fill(-1)
    this.members = Array.from({ length: groups }, () => [])
  }
  add(id: number, g: number, v: number): void {
    this.gOf[id] = g
    this.vOf[id] = v
    const m = this.members[g]!
    this.posInGroup[id] = m.length
    m.push(id)
    this.posLive[id] = this.nLive
    this.live[this.nLive++] = id
  }
  remove(id: number): void {
    const m = this.members[this.gOf[id]!]!
    const i = this.posInGroup[id]!
    const last = m.pop()!
    if (last !== id) {
      m[i] = last
      this.posInGroup[last] = i
    }
    this.posInGroup[id] = -1
    const j = this.posLive[id]!
    const lastL = this.live[--this.nLive]!
    this.live[j] = lastL
    this.posLive[lastL] = j
    this.posLive[id] = -1
  }
  row(id: number): Row3 {
    return [id, this.gOf[id]!, this.vOf[id]!]
  }
  /** [g, count, sum, min, max] or null. */
  expected(g: number): number[] | null {
    const m = this.members[g]!
    if (m.length === 0) return null
    let s = 0
    let lo = Infinity
    let hi = -Infinity
    for (const id of m) {
      const v = this.vOf[id]!
      s += v
      if (v < lo) lo = v
      if (v > hi) hi = v
    }
    return [g, m.length, s, lo, hi]
  }
}

function genChanges(st: GroupState, rng: Rng, groups: number, count: number): { changes: Change[]; hitExtreme: number } {
  const changes: Change[] = []
  let hitExtreme = 0
  const victim = (): number => {
    if (rng.next() < 0.25) {
      for (;;) {
        const m = st.members[rng.int(groups)]!
        if (m.length === 0) continue
        const wantMax = rng.next() < 0.5
        let best = m[0]!
        for (const id of m) if (wantMax ? st.vOf[id]! > st.vOf[best]! : st.vOf[id]! < st.vOf[best]!) best = id
        hitExtreme++
        return best
      }
    }
    return st.live[rng.int(st.nLive)]!
  }
  for (let k = 0; k < count; k++) {
    const kind = k % 3
    if (kind === 0) {
      const id = st.nextId++
      st.add(id, rng.int(groups), 1 + rng.int(V_RANGE))
      changes.push({ op: 'insert', row: st.row(id) })
    } else if (kind === 1) {
      const id = victim()
      const old = st.row(id)
      st.remove(id)
      changes.push({ op: 'delete', row: old })
    } else {
      const id = victim()
      const old = st.row(id)
      st.remove(id)
      st.add(id, old[1], 1 + rng.int(V_RANGE))
      changes.push({ op: 'update', old, row: st.row(id) })
    }
  }
  return { changes, hitExtreme }
}

function applyRivulet(db: Engine, c: Change): void {
  switch (c.op) {
    case 'insert':
      db.insert('t', [c.row])
      return
    case 'delete':
      db.delete('t', [c.row])
      return
    case 'update':
      // one tick: the engine has no batch API yet; a transaction block commits once
      db.execute('BEGIN')
      db.delete('t', [c.old])
      db.insert('t', [c.row])
      db.execute('COMMIT')
  }
}

function sameRow(a: readonly ResultValue[] | undefined, b: readonly number[] | null): boolean {
  if (!a || !b) return !a && !b
  return a.length === b.length && a.every((x, i) => Number(x) === b[i])
}

async function groupBy(o: CoreOptions, log: (s: string) => void): Promise<GroupByResult> {
  const rng = new Rng(o.seed)
  const warm = o.quick ? 60 : 300
  const cap = o.rows + warm + o.changes + 1
  const st = new GroupState(cap, o.groups)
  for (let id = 0; id < o.rows; id++) st.add(id, rng.int(o.groups), 1 + rng.int(V_RANGE))
  st.nextId = o.rows

  // --- rivulet: view first, then stream the rows in
  const db = Engine.open()
  db.execute('CREATE TABLE t (id BIGINT PRIMARY KEY, g INTEGER NOT NULL, v INTEGER NOT NULL)')
  db.execute(`CREATE MATERIALIZED VIEW v AS ${GROUPBY_VIEW}`)
  let t0 = nowMs()
  for (let lo = 0; lo < o.rows; lo += LOAD_BATCH) {
    const hi = Math.min(o.rows, lo + LOAD_BATCH)
    const batch: Row3[] = []
    for (let id = lo; id < hi; id++) batch.push(st.row(id))
    db.insert('t', batch)
  }
  const loadMs = nowMs() - t0
  log(`  rivulet: loaded ${int(o.rows)} rows through the GROUP BY view in ${ms(loadMs)} ms`)

  // --- better-sqlite3: same rows, index on (g, v) (its best case for GROUP BY g / MIN / MAX)
  const lite = new Database(':memory:')
  lite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, g INTEGER NOT NULL, v INTEGER NOT NULL)')
  t0 = nowMs()
  const ins = lite.prepare('INSERT INTO t (id, g, v) VALUES (?, ?, ?)')
  lite.transaction(() => {
    for (let id = 0; id < o.rows; id++) ins.run(id, st.gOf[id]!, st.vOf[id]!)
  })()
  lite.exec('CREATE INDEX t_g_v ON t (g, v)')
  lite.exec('ANALYZE')
  const sqliteLoadMs = nowMs() - t0
  const del = lite.prepare('DELETE FROM t WHERE id = ?')
  const upd = lite.prepare('UPDATE t SET g = ?, v = ? WHERE id = ?')
  const full = lite.prepare(GROUPBY_VIEW).raw()
  const point = lite.prepare(`SELECT g, COUNT(*), SUM(v), MIN(v), MAX(v) FROM t WHERE g = ? GROUP BY g`).raw()
  const applyLite = (c: Change): void => {
    if (c.op === 'insert') ins.run(c.row[0], c.row[1], c.row[2])
    else if (c.op === 'delete') del.run(c.row[0])
    else upd.run(c.row[1], c.row[2], c.row[0])
  }

  // --- changes (generated against the JS mirror, which then serves as the oracle)
  const { changes, hitExtreme } = genChanges(st, rng, o.groups, warm + o.changes)
  const measured = changes.slice(warm)
  // the expected group rows after each change: replay on a second mirror would cost memory;
  // instead verify each read against the final mirror only when the group is not touched later
  const lastTouch = new Map<number, number>()
  changes.forEach((c, i) => lastTouch.set(c.row[1], i))

  // warm-up (untimed, same mix)
  for (let i = 0; i < warm; i++) {
    applyRivulet(db, changes[i]!)
    db.query(`SELECT g, cnt, sv, mn, mx FROM v WHERE g = ${changes[i]!.row[1]}`)
  }
  gc()
  const apply: number[] = []
  const applyRead: number[] = []
  const read: number[] = []
  const byOp: Record<string, number[]> = { insert: [], delete: [], update: [] }
  let checked = 0
  let bad = 0
  if (o.profile) startProfile()
  const gcTrack = trackGc()
  const starts: number[] = []
  const ends: number[] = []
  for (let i = 0; i < measured.length; i++) {
    const c = measured[i]!
    const g = c.row[1]
    const a = nowMs()
    applyRivulet(db, c)
    const b = nowMs()
    const res = db.query(`SELECT g, cnt, sv, mn, mx FROM v WHERE g = ${g}`)
    const e = nowMs()
    starts.push(a)
    ends.push(e)
    apply.push(b - a)
    read.push(e - b)
    applyRead.push(e - a)
    byOp[c.op]!.push(e - a)
    if (lastTouch.get(g) === warm + i) {
      checked++
      if (!sameRow(res.rows[0], st.expected(g))) bad++
    }
  }
  if (o.profile) stopProfile(`${o.profile}/core-groupby.cpuprofile`)
  const gcText = gcSummary(await gcTrack.stop(), starts, ends)
  // final full check of the view against the mirror
  const all = db.query('SELECT g, cnt, sv, mn, mx FROM v').rows
  let finalBad = 0
  let groupsLive = 0
  for (let g = 0; g < o.groups; g++) if (st.members[g]!.length > 0) groupsLive++
  if (all.length !== groupsLive) finalBad++
  for (const r of all) if (!sameRow(r, st.expected(Number(r[0])))) finalBad++

  // --- better-sqlite3 full recompute after each change (a few dozen: it is slow), then
  // the query restricted to the changed group for the rest
  lite.transaction(() => {
    for (let i = 0; i < warm; i++) applyLite(changes[i]!)
  })()
  for (let i = 0; i < 2; i++) full.all()
  const sqliteFull: number[] = []
  const sqlitePoint: number[] = []
  const k = Math.min(o.recomputes, measured.length)
  for (let i = 0; i < measured.length; i++) {
    const c = measured[i]!
    const a = nowMs()
    applyLite(c)
    if (i < k) full.all()
    else point.all(c.row[1])
    const e = nowMs()
    ;(i < k ? sqliteFull : sqlitePoint).push(e - a)
  }
  const liteAll = full.all() as number[][]
  let liteBad = liteAll.length !== groupsLive ? 1 : 0
  for (const r of liteAll) if (!sameRow(r, st.expected(r[0]!))) liteBad++
  lite.close()
  db.close()

  const verified = bad + finalBad + liteBad === 0 ? `ok (${checked} step reads + final view of ${int(all.length)} groups; sqlite final view)` : `MISMATCH: ${bad} step reads, ${finalBad} final rows, ${liteBad} sqlite rows`
  return {
    loadMs,
    changes: measured.length,
    hitExtreme,
    apply: stats(apply),
    applyRead: stats(applyRead),
    read: stats(read),
    byOp: Object.fromEntries(Object.entries(byOp).map(([k, v]) => [k, stats(v)])),
    sqliteLoadMs,
    sqliteFull: stats(sqliteFull),
    sqlitePoint: stats(sqlitePoint),
    verified,
    gc: gcText,
  }
}

// ------------------------------------------------------------------------------ 2./3. throughput

interface Throughput {
  rows: number
  ms: number
  perSec: number
  batch: Stats
  check: string
}

/** Inserts `rows` rows into `table` in batches of 1000 (rows built outside the timed call). */
function insertThroughput(db: Engine, table: string, rows: number, make: (id: number) => number[]): Throughput {
  const times: number[] = []
  for (let lo = 0; lo < rows; lo += INSERT_BATCH) {
    const hi = Math.min(rows, lo + INSERT_BATCH)
    const batch: number[][] = []
    for (let id = lo; id < hi; id++) batch.push(make(id))
    const a = nowMs()
    db.insert(table, batch)
    times.push(nowMs() - a)
  }
  const total = times.reduce((a, b) => a + b, 0)
  return { rows, ms: total, perSec: (rows / total) * 1000, batch: stats(times), check: '' }
}

function filterRow(rng: Rng): (id: number) => number[] {
  return (id) => [id, rng.int(1000), rng.int(1000), rng.int(21)]
}

function filterProject(o: CoreOptions, withView: boolean, rows: number): Throughput {
  const rng = new Rng(o.seed + 1)
  const db = Engine.open()
  db.execute('CREATE TABLE f (id BIGINT PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL, c INTEGER NOT NULL)')
  if (withView) db.execute('CREATE MATERIALIZED VIEW fv AS SELECT a, b * 2 AS b2 FROM f WHERE c > 10')
  let pass = 0
  const make = filterRow(rng)
  const r = insertThroughput(db, 'f', rows, (id) => {
    const row = make(id)
    if (row[3]! > 10) pass++
    return row
  })
  if (withView) {
    const n = Number(db.query('SELECT COUNT(*) FROM fv').rows[0]![0])
    r.check = n === pass ? `ok (${int(n)} rows pass)` : `MISMATCH: view has ${n} rows, expected ${pass}`
  } else r.check = ''
  db.close()
  return r
}

function joinAggregate(o: CoreOptions, rows: number): Throughput {
  const rng = new Rng(o.seed + 2)
  const db = Engine.open()
  const keys = o.groups
  const cats = 100
  db.execute('CREATE TABLE t2 (k BIGINT PRIMARY KEY, cat INTEGER NOT NULL)')
  db.execute('CREATE TABLE t1 (id BIGINT PRIMARY KEY, k INTEGER NOT NULL, v INTEGER NOT NULL)')
  const catOf = new Int32Array(keys)
  const dim: number[][] = []
  for (let k = 0; k < keys; k++) {
    catOf[k] = rng.int(cats)
    dim.push([k, catOf[k]!])
  }
  db.insert('t2', dim)
  db.execute('CREATE MATERIALIZED VIEW jv AS SELECT t2.cat, COUNT(*) AS cnt, SUM(t1.v) AS sv FROM t1 JOIN t2 ON t1.k = t2.k GROUP BY t2.cat')
  const cnt = new Float64Array(cats)
  const sum = new Float64Array(cats)
  const r = insertThroughput(db, 't1', rows, (id) => {
    // 5% of the rows have no partner in t2
    const k = rng.next() < 0.05 ? keys + rng.int(1000) : rng.int(keys)
    const v = rng.int(1000)
    if (k < keys) {
      cnt[catOf[k]!]!++
      sum[catOf[k]!]! += v
    }
    return [id, k, v]
  })
  let bad = 0
  for (const row of db.query('SELECT cat, cnt, sv FROM jv').rows) {
    const c = Number(row[0])
    if (Number(row[1]) !== cnt[c] || Number(row[2]) !== sum[c]) bad++
  }
  r.check = bad === 0 ? 'ok' : `MISMATCH in ${bad} categories`
  db.close()
  return r
}

// ------------------------------------------------------------------------------ 4. memory

export type MemoryKind = 'table' | 'groupby' | 'join' | 'filter'

export interface MemoryResult {
  kind: MemoryKind
  rows: number
  heapBase: number
  heap: number
  rssBase: number
  rss: number
  maxRss: number
  loadMs: number
}

/** Runs in a fresh child process (`run.js _mem KIND --rows N`). */
export function memoryChild(kind: MemoryKind, rows: number, groups: number, seed: number): MemoryResult {
  const rng = new Rng(seed)
  gc()
  const heapBase = process.memoryUsage().heapUsed
  const rssBase = process.memoryUsage().rss
  const db = Engine.open()
  db.execute('CREATE TABLE t (id BIGINT PRIMARY KEY, g INTEGER NOT NULL, v INTEGER NOT NULL)')
  if (kind === 'groupby') db.execute(`CREATE MATERIALIZED VIEW v AS ${GROUPBY_VIEW}`)
  if (kind === 'filter') db.execute('CREATE MATERIALIZED VIEW v AS SELECT g, v * 2 AS v2 FROM t WHERE v > 10')
  if (kind === 'join') {
    db.execute('CREATE TABLE d (k BIGINT PRIMARY KEY, cat INTEGER NOT NULL)')
    const dim: number[][] = []
    for (let k = 0; k < groups; k++) dim.push([k, rng.int(100)])
    db.insert('d', dim)
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT d.cat, COUNT(*) AS cnt, SUM(t.v) AS sv FROM t JOIN d ON t.g = d.k GROUP BY d.cat')
  }
  const t0 = nowMs()
  for (let lo = 0; lo < rows; lo += LOAD_BATCH) {
    const hi = Math.min(rows, lo + LOAD_BATCH)
    const batch: number[][] = []
    for (let id = lo; id < hi; id++) batch.push([id, rng.int(groups), 1 + rng.int(V_RANGE)])
    db.insert('t', batch)
  }
  const loadMs = nowMs() - t0
  gc()
  const mu = process.memoryUsage()
  const res: MemoryResult = { kind, rows, heapBase, heap: mu.heapUsed, rssBase, rss: mu.rss, maxRss: process.resourceUsage().maxRSS * 1024, loadMs }
  // keep db reachable until measured
  if (db.relations().length === 0) throw new Error('unreachable')
  return res
}

function memory(o: CoreOptions, script: string, kind: MemoryKind): MemoryResult {
  // --quick: in this process (child start-up costs more than the measurement; RSS is shared)
  if (o.quick) return memoryChild(kind, o.rows, o.groups, o.seed)
  const args = ['--expose-gc', '--max-old-space-size=16384', script, '_mem', kind, '--rows', String(o.rows), '--groups', String(o.groups), '--seed', String(o.seed)]
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 })
  if (r.status !== 0) throw new Error(`memory child ${kind} failed (${r.status}): ${r.stderr}`)
  const line = r.stdout.trim().split('\n').pop()!
  return JSON.parse(line) as MemoryResult
}

// ------------------------------------------------------------------------------ driver

export async function runCore(o: CoreOptions, script: string): Promise<void> {
  const log = (s: string): void => void process.stderr.write(s + '\n')
  const want = (s: string): boolean => !o.only || o.only.includes(s)
  const out: string[] = []

  if (want('groupby')) {
    log(`[1/4] GROUP BY view: ${int(o.rows)} rows, ${int(o.groups)} groups, ${int(o.changes)} changes ...`)
    const r = await groupBy(o, log)
    const ratio = r.sqliteFull.p50 / r.applyRead.p50
    out.push(`### 1. GROUP BY view, per-change latency (${int(o.rows)} rows, ${int(o.groups)} groups)`)
    out.push('')
    out.push(`\`${GROUPBY_VIEW}\`; ${int(r.changes)} measured single-row changes (1/3 insert, 1/3 delete, 1/3 update; ${int(r.hitExtreme)} of all ${int(r.changes + (o.quick ? 60 : 300))} generated changes hit a group's MIN/MAX), after a warm-up.`)
    out.push('')
    const row = (name: string, s: Stats): string[] => [name, int(s.n), ms(s.p50), ms(s.p99), ms(s.mean), ms(s.max)]
    out.push(
      table(
        ['per change', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'],
        [
          row('rivulet apply only', r.apply),
          row('rivulet read only (SELECT … FROM v WHERE g = ?)', r.read),
          row('rivulet apply + read', r.applyRead),
          row('  insert (apply + read)', r.byOp.insert!),
          row('  delete (apply + read)', r.byOp.delete!),
          row('  update (apply + read)', r.byOp.update!),
          row('sqlite apply + full GROUP BY recompute', r.sqliteFull),
          row('sqlite apply + GROUP BY WHERE g = ? (indexed)', r.sqlitePoint),
        ],
      ),
    )
    out.push('')
    out.push(`**speed-up at p50: ${ratio.toFixed(0)}x** (sqlite full recompute / rivulet apply + read; target >= 1000x); apply-only: ${(r.sqliteFull.p50 / r.apply.p50).toFixed(0)}x; vs sqlite indexed point query: ${(r.sqlitePoint.p50 / r.applyRead.p50).toFixed(2)}x`)
    out.push(`load: rivulet ${ms(r.loadMs)} ms (${int((o.rows / r.loadMs) * 1000)} rows/s through the view); sqlite ${ms(r.sqliteLoadMs)} ms incl. index. verification: ${r.verified}`)
    out.push(`GC during rivulet's measured changes: ${r.gc}`)
    out.push('')
  }

  if (want('filter') || want('join')) {
    const rows: string[][] = []
    const tp = (name: string, r: Throughput): string[] => [name, int(r.rows), int(r.perSec), ms(r.batch.p50), ms(r.batch.p99), r.check]
    if (want('filter')) {
      log(`[2/4] filter + project view: ${int(o.rows)} inserts in batches of ${INSERT_BATCH} ...`)
      filterProject(o, true, Math.min(Math.ceil(o.rows / 10), 50_000)) // warm-up
      gc()
      rows.push(tp('table only, no view', filterProject(o, false, o.rows)))
      gc()
      rows.push(tp('filter + project view', profiled(o, 'filter', () => filterProject(o, true, o.rows))))
      gc()
    }
    if (want('join')) {
      log(`[3/4] join + aggregate view: ${int(o.rows)} inserts in batches of ${INSERT_BATCH} ...`)
      joinAggregate(o, Math.min(Math.ceil(o.rows / 10), 50_000)) // warm-up
      gc()
      rows.push(tp('join + aggregate view', profiled(o, 'join', () => joinAggregate(o, o.rows))))
      gc()
    }
    out.push(`### 2./3. insert throughput (batches of ${INSERT_BATCH} via db.insert)`)
    out.push('')
    out.push('- filter + project: `SELECT a, b * 2 FROM f WHERE c > 10` (c uniform in 0..20: ~48% pass)')
    out.push(`- join + aggregate: \`SELECT t2.cat, COUNT(*), SUM(t1.v) FROM t1 JOIN t2 ON t1.k = t2.k GROUP BY t2.cat\` (t2: ${int(o.groups)} keys in 100 categories, loaded first; 5% of t1 rows unmatched)`)
    out.push('')
    out.push(table(['view', 'rows', 'inserts/s', 'batch p50 ms', 'batch p99 ms', 'check'], rows))
    out.push('')
  }

  if (want('memory')) {
    log(`[4/4] memory: ${int(o.rows)} rows, one child process per configuration ...`)
    const kinds: [MemoryKind, string][] = [
      ['table', 'table only (PK store), no view'],
      ['filter', 'table + filter/project view (view holds ~all rows)'],
      ['groupby', 'table + GROUP BY view (MIN/MAX keep per-group value lists)'],
      ['join', 'table + join/aggregate view (both join inputs arranged)'],
    ]
    const rows: string[][] = []
    for (const [k, name] of kinds) {
      const m = memory(o, script, k)
      rows.push([name, int(m.rows), ((m.heap - m.heapBase) / m.rows).toFixed(0), mb(m.heap - m.heapBase), mb(m.rss), mb(m.maxRss), mb(m.rssBase), int((m.rows / m.loadMs) * 1000)])
    }
    out.push('### 4. memory per row (heap after gc, minus the empty-engine baseline)')
    out.push('')
    if (o.quick) out.push('(--quick: measured in this process, so RSS columns are not per configuration)\n')
    out.push(table(['configuration', 'rows', 'heap B/row', 'heap MB', 'RSS MB', 'peak RSS MB', 'RSS base MB', 'load rows/s'], rows))
    out.push('')
  }
  if (o.profile) {
    out.push(`### CPU profiles of the measured phases (${o.profile}/core-*.cpuprofile)`)
    out.push('')
    out.push('```')
    for (const name of ['groupby', 'filter', 'join']) {
      const f = `${o.profile}/core-${name}.cpuprofile`
      try {
        out.push(formatSummary(name, summarize(f, 25), 12))
        out.push('')
      } catch {
        // section not run
      }
    }
    out.push('```')
  }
  process.stdout.write(out.join('\n') + '\n')
}
