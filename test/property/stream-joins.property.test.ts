// Property tests for the joins whose match depends on event time: temporal
// joins (FOR SYSTEM_TIME AS OF) against a versioned table, ASOF joins, interval joins and
// window joins between streams, driving the real engine. The reference is a deliberately
// naive batch evaluation in this file (no engine code): it simulates the watermarks to split
// arrivals into accepted and late events (and a versioned table's changes into versions), then
// recomputes every view from scratch after every tick.
//
// Contract under test:
// - a stream's (or versioned table's) watermark W starts at -infinity; at the end of each tick
//   (an auto-committed statement, a BEGIN … COMMIT block, a db.insert / db.delete call)
//   W := max(W, max(ts - D) over the rows accepted in it); a row is late iff ts < W as of the
//   START of its tick; late rows are not applied and each is a row of rivulet_late_events
//   (stream, seq 1, 2, … per stream, event_time, the watermark it missed, tick, record text);
//   a statement that changes nothing (no row, no late event) counts no tick (db.tick);
// - versioned table `rates (cur PRIMARY KEY, rate, valid_from, WATERMARK FOR valid_from …)`:
//   per key, versions by valid_from. INSERT = a live version at its valid_from (23505 when a
//   live version with that key and time exists, or twice in one statement; a deletion there is
//   replaced); UPDATE acts on the visible row (the latest version, when live) and puts a live
//   version at the new row's valid_from (replacing one at that time); DELETE puts a deletion at
//   max(row's valid_from, W at the start of the tick). A live version below W (start of the
//   tick) is late. `SELECT * FROM rates` = per key the latest version, when live;
// - temporal join: an accepted order joins the version of its key with the greatest
//   valid_from <= o.ts, when live (LEFT: NULLs otherwise; further ON conditions check it);
//   its result for an order is final once both watermarks passed it (EMIT ON WINDOW CLOSE);
// - ASOF join: per left row the right row with equal keys and the nearest time in the
//   direction of the inequality; ties in time go to the least row (column order);
// - interval / window joins: ordinary SQL (inner / left / right / full) join semantics over the
//   accepted rows; EMIT ON WINDOW CLOSE: exactly the windows with window_end <= the minimum of
//   the two watermarks, each appended once (subscribers see inserts only);
// - watermarks free state without changing results: in long runs of 2,000 events with times
//   increasing, db.stateSize of the join views stays far below the number of events.

import fc from 'fast-check'
import { afterAll, describe, it } from 'vitest'
import { Engine } from '../../src/index.js'
import type { ChangeBatch, ResultValue } from '../../src/index.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const NUM_RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || undefined
/** `max`: a cap on RIVULET_PROPERTY_RUNS for the slow properties. */
const params = (numRuns: number, max = Infinity) => ({ numRuns: Math.min(NUM_RUNS ?? numRuns, max), ...(SEED !== undefined ? { seed: SEED } : {}) })

/** Counters over all cases run in this process (printed with RIVULET_STATS=1): how much each
 *  view and each kind of event was exercised. */
const STATS = {
  cases: 0,
  ticks: 0,
  lateRows: 0,
  duplicateVersionErrors: 0,
  deletionsReplaced: 0,
  deletionsAtWatermark: 0,
  asofTies: 0,
  /** view → [checks, checks with rows, rows, rows with a NULL] */
  views: {} as Record<string, [number, number, number, number]>,
}
if (process.env.RIVULET_STATS) afterAll(() => console.log(JSON.stringify(STATS, null, 1)))

// ------------------------------------------------------------------------------ time values

/** 2024-01-01 10:00:00 UTC (ms); event times are whole seconds around it. */
const BASE = Date.UTC(2024, 0, 1, 10)
const SEC = 1000
const T = (s: number) => BASE + s * SEC

/** Postgres text of a timestamp (ms since the epoch): fractional seconds only when nonzero. */
function tsText(ms: number): string {
  const iso = new Date(ms).toISOString()
  const frac = iso.slice(20, 23).replace(/0+$/, '')
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? '.' + frac : ''}`
}
const tsLit = (ms: number | null) => (ms === null ? 'NULL' : `TIMESTAMP '${tsText(ms)}'`)
const tsOrNull = (ms: number | null) => (ms === null ? null : tsText(ms))
/** `col` shifted by `sec` seconds, as SQL. */
const plus = (col: string, sec: number) => (sec === 0 ? col : sec > 0 ? `${col} + INTERVAL '${sec}' SECOND` : `${col} - INTERVAL '${-sec}' SECOND`)
/** Start of the TUMBLE window of `size` s containing `t` (aligned to the epoch). */
const tumbleStart = (t: number, size: number) => Math.floor(t / (size * SEC)) * size * SEC
const textLit = (s: string | null) => (s === null ? 'NULL' : `'${s}'`)

// ------------------------------------------------------------------------------ harness

type Row = ResultValue[]

class CaseFailure extends Error {}

function sortedJson(rows: readonly unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort()
}

/** Postgres record text of a row (as rivulet_late_events.row shows it). */
function recordText(values: readonly (string | number | null)[]): string {
  return `(${values.map((v) => (v === null ? '' : typeof v === 'number' ? String(v) : v === '' || /[\s,()"\\]/.test(v) ? `"${v.replace(/["\\]/g, '\\$&')}"` : v)).join(',')})`
}

/** One engine and the script run on it (printed with every failure). */
class Run {
  readonly db = Engine.open()
  readonly log: string[] = []

  /** The script so far (its last 400 lines for the long runs). */
  script(): string {
    const tail = this.log.slice(-400)
    return `-- script${tail.length < this.log.length ? ` (the last ${tail.length} of ${this.log.length} lines)` : ''}:\n${tail.join('\n')}`
  }

  exec(sql: string): void {
    this.log.push(`${sql};`)
    this.db.execute(sql)
  }

  api(desc: string, f: () => void): void {
    this.log.push(`-- ${desc}`)
    f()
  }

  /** A statement (or API call) that must fail with SQLSTATE `code`. */
  fails(desc: string, code: string, f: () => void): void {
    this.log.push(`${desc}; -- must fail with ${code}`)
    try {
      f()
    } catch (e) {
      const got = (e as { code?: string }).code
      if (got === code) return
      throw new CaseFailure(`${desc}: failed with ${got} (${(e as Error).message}), expected ${code}\n${this.script()}`)
    }
    throw new CaseFailure(`${desc}: succeeded, expected error ${code}\n${this.script()}`)
  }

  rows(sql: string): Row[] {
    return this.db.query(sql).rows
  }

  /** Compares two multisets of rows; a difference fails with both sides and the script. */
  compare(what: string, actual: readonly Row[], expected: readonly Row[]): void {
    const a = sortedJson(actual)
    const e = sortedJson(expected)
    if (a.length === e.length && a.every((x, i) => x === e[i])) return
    const missing = e.filter((x) => !a.includes(x))
    const extra = a.filter((x) => !e.includes(x))
    throw new CaseFailure(
      `${what} differs from the reference\n  missing: ${missing.join(' ')}\n  extra:   ${extra.join(' ')}\n  actual:   ${a.join(' ')}\n  expected: ${e.join(' ')}\n${this.script()}`,
    )
  }

  same(what: string, actual: unknown, expected: unknown): void {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      throw new CaseFailure(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}\n${this.script()}`)
    }
  }
}

// ------------------------------------------------------------------------------ watermarks

/** A watermarked input (stream or versioned table) as the reference sees it. */
interface Src {
  readonly name: string
  /** delay D in seconds */
  readonly delay: number
  /** watermark (ms), -Infinity before the first accepted row */
  w: number
  /** the watermark as of the start of the open tick */
  w0: number
  /** max(ts - D) over the rows accepted in the open tick */
  pending: number
  /** its rivulet_late_events rows */
  late: Row[]
}

const newSrc = (name: string, delay: number): Src => ({ name, delay, w: -Infinity, w0: -Infinity, pending: -Infinity, late: [] })

/** A row at `t` arriving in tick `tick`: late (recorded) or accepted (the watermark will move). */
function offer(s: Src, t: number, text: string, tick: number): boolean {
  if (t < s.w0) {
    STATS.lateRows++
    s.late.push([s.name, s.late.length + 1, tsText(t), tsText(s.w0), tick, text])
    return false
  }
  s.pending = Math.max(s.pending, t - s.delay * SEC)
  return true
}

const wmText = (s: Src) => (s.w === -Infinity ? null : tsText(s.w))

/** rivulet_late_events rows with the late versions of one multi-key statement (UPDATE / DELETE
 *  of several keys: their order is the engine's) renumbered in a canonical order: per
 *  versioned table and tick, the same seq numbers go to the rows sorted by content. Stream
 *  rows keep their seq (arrival order). */
function canonicalLate(rows: readonly Row[]): Row[] {
  const groups = new Map<string, Row[]>()
  const out: Row[] = []
  for (const r of rows) {
    if (r[0] !== 'rates') out.push(r)
    else {
      const k = `${r[0]}@${r[4]}`
      groups.set(k, [...(groups.get(k) ?? []), r])
    }
  }
  for (const g of groups.values()) {
    const seqs = g.map((r) => r[1] as number).sort((a, b) => a - b)
    const sorted = [...g].sort((a, b) => (JSON.stringify(a.slice(2)) < JSON.stringify(b.slice(2)) ? -1 : 1))
    sorted.forEach((r, i) => out.push([r[0]!, seqs[i]!, ...r.slice(2)]))
  }
  return out
}

// ------------------------------------------------------------------------------ tick driver

type Mode = 'auto' | 'commit' | 'rollback'

/** `auto`: every statement is its own tick; `commit` / `rollback`: one BEGIN block. `now`:
 *  the group's nominal event time (s), which its rows' times jitter around. */
interface Group<S> {
  readonly mode: Mode
  readonly now: number
  readonly stmts: readonly S[]
}

/** What a statement did: a change (a tick), no change (the engine counts no tick for it: no
 *  row, no late event, no watermark move), nothing at all (not run), or an expected error (the step leaves the state as it was). */
type Outcome = 'tick' | 'none' | 'skip' | 'error'

interface State {
  /** committed ticks */
  tick: number
}

interface View<St> {
  readonly name: string
  readonly sql: string
  readonly eowc?: boolean
  /** subscribe to it and check its changes are inserts only (EMIT ON WINDOW CLOSE) */
  readonly appendOnly?: boolean
  readonly expected: (st: St) => Row[]
}

interface Driver<St extends State, S> {
  readonly run: Run
  state: St
  readonly sources: (st: St) => Src[]
  /** Runs `s` on the engine and applies it to `st` (the tick being run is st.tick + 1). */
  readonly step: (st: St, s: S, now: number, inTxn: boolean) => Outcome
  /** Checks the inputs (tables, streams, late events) against `st`. */
  readonly checkInputs: (st: St, when: string) => void
  readonly views: readonly View<St>[]
  readonly createAt: readonly number[]
}

/** Runs the groups, checking every live view after every tick (and after every rollback or
 *  failed statement); views are created at their `createAt` group (backfilled). At the end the
 *  views' queries are also read ad hoc (default emit only). */
interface DriveOptions {
  /** check after every `every`-th group or auto-committed statement only (and at the end) */
  readonly every?: number
  /** called after every group or auto-committed statement, with how many ran so far */
  readonly after?: (n: number) => void
}

function drive<St extends State, S>(d: Driver<St, S>, groups: readonly Group<S>[], opts: DriveOptions = {}): void {
  const { run } = d
  const live: View<St>[] = []
  const subs: { view: View<St>; acc: Map<string, number>; stop: () => void }[] = []
  let subFailure: string | undefined

  const check = (when: string) => {
    const w = `${when} (tick ${d.state.tick})`
    if (subFailure !== undefined) throw new CaseFailure(`${w}: ${subFailure}\n${run.script()}`)
    run.same(`${w}: db.tick`, run.db.tick, d.state.tick)
    d.checkInputs(d.state, w)
    run.compare(`${w}: rivulet_late_events`, canonicalLate(run.rows('SELECT * FROM rivulet_late_events')), canonicalLate(d.sources(d.state).flatMap((s) => s.late)))
    for (const v of live) {
      const expected = v.expected(d.state)
      run.compare(`${w}: view ${v.name} = ${v.sql}`, run.rows(`SELECT * FROM ${v.name}`), expected)
      const s = (STATS.views[v.name] ??= [0, 0, 0, 0])
      s[0]++
      if (expected.length > 0) s[1]++
      s[2] += expected.length
      s[3] += expected.filter((r) => r.includes(null)).length
    }
    for (const sub of subs) {
      const integral: Row[] = []
      for (const [k, n] of sub.acc) for (let i = 0; i < n; i++) integral.push(JSON.parse(k) as Row)
      run.compare(`${w}: union of the changes delivered to a subscriber of ${sub.view.name}`, integral, sub.view.expected(d.state))
    }
  }

  const createViews = (at: number) => {
    let created = false
    d.views.forEach((v, i) => {
      if ((d.createAt[i] ?? 0) !== at) return
      created = true
      run.exec(`CREATE MATERIALIZED VIEW ${v.name} AS ${v.sql}`)
      live.push(v)
      if (!v.appendOnly) return
      const acc = new Map<string, number>()
      for (const r of run.rows(`SELECT * FROM ${v.name}`)) acc.set(JSON.stringify(r), (acc.get(JSON.stringify(r)) ?? 0) + 1)
      const { stop } = run.db.subscribe(
        v.name,
        (b: ChangeBatch) => {
          if (b.tick !== d.state.tick + 1) subFailure ??= `subscriber of ${v.name}: batch for tick ${b.tick} while running tick ${d.state.tick + 1}`
          for (const [row, diff] of b.changes) {
            const k = JSON.stringify(row)
            if (diff <= 0) subFailure ??= `subscriber of EMIT ON WINDOW CLOSE view ${v.name} got ${k} with diff ${diff} at tick ${b.tick} (only inserts expected)`
            acc.set(k, (acc.get(k) ?? 0) + diff)
          }
        },
        { snapshot: false },
      )
      subs.push({ view: v, acc, stop })
    })
    if (created) check(`after creating views (group ${at})`)
  }

  const startTick = () => {
    for (const s of d.sources(d.state)) {
      s.w0 = s.w
      s.pending = -Infinity
    }
  }
  const endTick = (changed: boolean) => {
    for (const s of d.sources(d.state)) s.w = Math.max(s.w, s.pending)
    if (changed) d.state.tick++
    if (changed) STATS.ticks++
  }

  STATS.cases++
  let n = 0
  const ran = (when: string) => {
    n++
    opts.after?.(n)
    if (n % (opts.every ?? 1) === 0) check(when)
  }
  try {
    createViews(0)
    groups.forEach((g, gi) => {
      if (g.mode === 'auto') {
        for (const s of g.stmts) {
          startTick()
          // (a statement expected to fail leaves the state as it was)
          const out = d.step(d.state, s, g.now, false)
          if (out === 'skip') continue
          if (out !== 'error') endTick(out === 'tick')
          ran(`after ${run.log[run.log.length - 1]}`)
        }
      } else {
        const saved = structuredClone(d.state)
        run.exec('BEGIN')
        startTick()
        let changed = false
        for (const s of g.stmts) if (d.step(d.state, s, g.now, true) === 'tick') changed = true
        if (g.mode === 'commit') {
          run.exec('COMMIT')
          endTick(changed)
        } else {
          // nothing applied: no rows, no late events, no watermark move, no tick
          run.exec('ROLLBACK')
          d.state = saved
        }
        ran(`after ${g.mode.toUpperCase()}`)
      }
      createViews(gi + 1)
    })
    if (n % (opts.every ?? 1) !== 0) check('at the end')
    for (const v of live) if (!v.eowc) run.compare(`ad hoc ${v.sql}`, run.rows(v.sql), v.expected(d.state))
  } finally {
    for (const s of subs) s.stop()
  }
}

const modeArb = fc.oneof(
  { arbitrary: fc.constant<Mode>('auto'), weight: 5 },
  { arbitrary: fc.constant<Mode>('commit'), weight: 3 },
  { arbitrary: fc.constant<Mode>('rollback'), weight: 1 },
)
const viaArb = fc.oneof({ arbitrary: fc.constant<'sql' | 'api'>('sql'), weight: 3 }, { arbitrary: fc.constant<'sql' | 'api'>('api'), weight: 1 })

/** Seconds relative to a group's `now`: mostly near it (out of order), sometimes far behind
 *  (late for any watermark that has moved). */
const jitterArb = fc.oneof({ arbitrary: fc.integer({ min: -6, max: 3 }), weight: 8 }, { arbitrary: fc.integer({ min: -40, max: -15 }), weight: 1 })

/** Groups whose `now` advances by `step` seconds per group. */
function groupsArb<S>(stmt: fc.Arbitrary<S>, maxGroups: number, maxStmts = 4): fc.Arbitrary<Group<S>[]> {
  return fc
    .tuple(fc.integer({ min: 1, max: 3 }), fc.array(fc.record({ mode: modeArb, stmts: fc.array(stmt, { minLength: 1, maxLength: maxStmts }) }), { minLength: 1, maxLength: maxGroups }))
    .map(([step, gs]) => gs.map((g, i) => ({ ...g, now: i * step })))
}

const createAtArb = (n: number, maxGroups: number) =>
  fc.array(fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: maxGroups }), weight: 1 }), { minLength: n, maxLength: n })

// ------------------------------------------------------------------------------ temporal join

const CURS = ['EUR', 'USD', 'GBP'] as const

interface Order {
  readonly id: number
  readonly cur: string
  readonly t: number
}

/** One version of a key: live, or a deletion. */
interface Version {
  readonly rate: number | null
  readonly t: number
  readonly live: boolean
}

interface TjState extends State {
  readonly orders: Src & { rows: Order[] }
  /** the version history: per key, its versions (one per time) */
  readonly rates: Src & { hist: Record<string, Version[]> }
}

type TjStmt =
  | { readonly kind: 'orders'; readonly via: 'sql' | 'api'; readonly rows: readonly { cur: number; j: number }[] }
  | { readonly kind: 'rins'; readonly via: 'sql' | 'api'; readonly rows: readonly { cur: number; rate: number | null; j: number }[] }
  /** an INSERT at an existing version's key and time (23505 if live, replaces a deletion) */
  | { readonly kind: 'rdup'; readonly pick: number; readonly rate: number }
  /** UPDATE … SET rate [, valid_from = now + j] WHERE cur = … */
  | { readonly kind: 'rupd'; readonly cur: number; readonly rate: number | null | 'inc'; readonly j: number | undefined }
  | { readonly kind: 'rdel'; readonly cur: number; readonly via: 'sql' | 'api' }
  /** UPDATE rates SET rate = rate + 1 (every key) */
  | { readonly kind: 'rupdAll' }
  /** DELETE FROM rates WHERE rate >= min */
  | { readonly kind: 'rdelWhere'; readonly min: number }

interface TjCase {
  readonly delayO: number
  readonly delayR: number
  readonly groups: readonly Group<TjStmt>[]
  readonly createAt: readonly number[]
}

const rateArb = fc.option(fc.integer({ min: 1, max: 9 }), { nil: null, freq: 10 })
const curArb = fc.integer({ min: 0, max: 2 })

const tjStmtArb: fc.Arbitrary<TjStmt> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('orders' as const), via: viaArb, rows: fc.array(fc.record({ cur: curArb, j: jitterArb }), { minLength: 1, maxLength: 4 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('rins' as const), via: viaArb, rows: fc.array(fc.record({ cur: curArb, rate: rateArb, j: jitterArb }), { minLength: 1, maxLength: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('rdup' as const), pick: fc.nat(20), rate: fc.integer({ min: 1, max: 9 }) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('rupd' as const),
      cur: curArb,
      rate: fc.oneof({ arbitrary: rateArb, weight: 4 }, { arbitrary: fc.constant('inc' as const), weight: 1 }),
      j: fc.option(jitterArb, { nil: undefined, freq: 2 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('rdel' as const), cur: curArb, via: viaArb }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('rupdAll' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('rdelWhere' as const), min: fc.integer({ min: 1, max: 9 }) }), weight: 1 },
)

const TJ_MAX_GROUPS = 14
const tjCaseArb: fc.Arbitrary<TjCase> = fc.record({
  delayO: fc.integer({ min: 0, max: 5 }),
  delayR: fc.integer({ min: 0, max: 5 }),
  groups: groupsArb(tjStmtArb, TJ_MAX_GROUPS),
  createAt: createAtArb(5, TJ_MAX_GROUPS),
})

function latest(st: TjState, cur: string): Version | undefined {
  let best: Version | undefined
  for (const v of st.rates.hist[cur] ?? []) if (!best || v.t > best.t) best = v
  return best
}

/** The version of `cur` valid at `t`: the greatest valid_from <= t, when live. */
function validAt(st: TjState, cur: string, t: number): Version | undefined {
  let best: Version | undefined
  for (const v of st.rates.hist[cur] ?? []) if (v.t <= t && (!best || v.t > best.t)) best = v
  return best?.live ? best : undefined
}

function putVersion(st: TjState, cur: string, v: Version): void {
  st.rates.hist[cur] = [...(st.rates.hist[cur] ?? []).filter((x) => x.t !== v.t), v]
}

const liveAt = (st: TjState, cur: string, t: number) => (st.rates.hist[cur] ?? []).some((v) => v.t === t && v.live)

function tjViews(): View<TjState>[] {
  const left = (st: TjState, f: (o: Order, v: Version | undefined) => Row) => st.orders.rows.map((o) => f(o, validAt(st, o.cur, o.t)))
  return [
    {
      name: 'tj',
      sql: 'SELECT o.id, o.cur, r.rate, r.valid_from FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur',
      expected: (st) =>
        st.orders.rows.flatMap((o) => {
          const v = validAt(st, o.cur, o.t)
          return v ? [[o.id, o.cur, v.rate, tsText(v.t)]] : []
        }),
    },
    {
      name: 'tjl',
      sql: 'SELECT o.id, r.rate, r.valid_from FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts r ON r.cur = o.cur',
      expected: (st) => left(st, (o, v) => [o.id, v ? v.rate : null, v ? tsText(v.t) : null]),
    },
    {
      // a further ON condition checks the version found (failing: no match)
      name: 'tjc',
      sql: 'SELECT o.id, o.ts, r.rate FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur AND r.rate > 4',
      expected: (st) => left(st, (o, v) => [o.id, tsText(o.t), v && v.rate !== null && v.rate > 4 ? v.rate : null]),
    },
    {
      name: 'tja',
      sql: 'SELECT o.cur, count(*) AS n, count(r.rate) AS m, sum(r.rate) AS s FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur GROUP BY o.cur',
      expected: (st) =>
        CURS.flatMap((cur) => {
          const os = st.orders.rows.filter((o) => o.cur === cur)
          if (os.length === 0) return []
          const rates = os.map((o) => validAt(st, cur, o.t)?.rate ?? null).filter((r): r is number => r !== null)
          return [[cur, os.length, rates.length, rates.length > 0 ? rates.reduce((a, b) => a + b, 0) : null]]
        }),
    },
    {
      // the watermark through the join: an order's result is final once both watermarks
      // passed it (a new version may still revise orders below the orders' watermark alone)
      name: 'tje',
      sql: 'WITH j AS (SELECT o.cur, o.ts, r.rate FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur) SELECT cur, window_start, window_end, count(*) AS n, count(rate) AS m, max(rate) AS mx FROM TUMBLE(j, ts, INTERVAL \'5\' SECOND) GROUP BY cur, window_start, window_end EMIT ON WINDOW CLOSE',
      eowc: true,
      appendOnly: true,
      expected: (st) => {
        const closed = Math.min(st.orders.w, st.rates.w)
        const g = new Map<string, { row: Row; n: number; rates: number[] }>()
        for (const o of st.orders.rows) {
          const ws = tumbleStart(o.t, 5)
          if (ws + 5 * SEC > closed) continue
          const k = `${o.cur}@${ws}`
          const e = g.get(k) ?? { row: [o.cur, tsText(ws), tsText(ws + 5 * SEC)], n: 0, rates: [] }
          e.n++
          const rate = validAt(st, o.cur, o.t)?.rate ?? null
          if (rate !== null) e.rates.push(rate)
          g.set(k, e)
        }
        return [...g.values()].map((e) => [...e.row, e.n, e.rates.length, e.rates.length > 0 ? Math.max(...e.rates) : null])
      },
    },
  ]
}

function runTemporalCase(c: TjCase, views: View<TjState>[] = tjViews(), opts: { drive?: DriveOptions; run?: Run } = {}): void {
  const run = opts.run ?? new Run()
  run.exec(`CREATE STREAM orders (id INT, cur TEXT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '${c.delayO}' SECOND)`)
  run.exec(`CREATE TABLE rates (cur TEXT PRIMARY KEY, rate INT, valid_from TIMESTAMP, WATERMARK FOR valid_from AS valid_from - INTERVAL '${c.delayR}' SECOND)`)
  let nextId = 1
  const rateText = (cur: string, rate: number | null, t: number) => recordText([cur, rate, tsText(t)])

  const step = (st: TjState, s: TjStmt, now: number, inTxn: boolean): Outcome => {
    const tick = st.tick + 1
    const db = run.db
    switch (s.kind) {
      case 'orders': {
        const rows: Order[] = s.rows.map((r) => ({ id: nextId++, cur: CURS[r.cur]!, t: T(now + r.j) }))
        const sql = `INSERT INTO orders VALUES ${rows.map((o) => `(${o.id}, '${o.cur}', ${tsLit(o.t)})`).join(', ')}`
        if (s.via === 'sql') run.exec(sql)
        else run.api(`db.insert('orders', …) = ${sql}`, () => db.insert('orders', rows.map((o) => [o.id, o.cur, new Date(o.t)])))
        for (const o of rows) if (offer(st.orders, o.t, recordText([o.id, o.cur, tsText(o.t)]), tick)) st.orders.rows.push(o)
        return 'tick'
      }
      case 'rins':
      case 'rdup': {
        let rows: { cur: string; rate: number | null; t: number }[]
        if (s.kind === 'rdup') {
          // at a live version's time: 23505; at a deletion's time: replaces it (unless late)
          const all = CURS.flatMap((cur) => (st.rates.hist[cur] ?? []).map((v) => ({ cur, t: v.t }))).sort((a, b) => a.cur.localeCompare(b.cur) || a.t - b.t)
          if (all.length === 0) return 'skip'
          const { cur, t } = all[s.pick % all.length]!
          rows = [{ cur, rate: s.rate, t }]
        } else rows = s.rows.map((r) => ({ cur: CURS[r.cur]!, rate: r.rate, t: T(now + r.j) }))
        // conflicts: a live version at the same key and time, or the same key and time twice
        const seen = new Set<string>()
        const clash = (r: { cur: string; t: number }) => {
          const k = `${r.cur}@${r.t}`
          const c = seen.has(k) || liveAt(st, r.cur, r.t)
          seen.add(k)
          return c
        }
        const sqlOf = (rs: typeof rows) => `INSERT INTO rates VALUES ${rs.map((r) => `('${r.cur}', ${r.rate ?? 'NULL'}, ${tsLit(r.t)})`).join(', ')}`
        const viaApi = s.kind === 'rins' && s.via === 'api'
        const exec = (rs: typeof rows) => () => (viaApi ? db.insert('rates', rs.map((r) => [r.cur, r.rate, new Date(r.t)])) : db.execute(sqlOf(rs)))
        if (inTxn) {
          // keep the transaction alive: drop the rows that would fail
          rows = rows.filter((r) => !clash(r))
          if (rows.length === 0) return 'skip'
        } else if (rows.map(clash).some((c) => c)) {
          run.fails(viaApi ? `db.insert('rates', …) = ${sqlOf(rows)}` : sqlOf(rows), '23505', exec(rows))
          STATS.duplicateVersionErrors++
          return 'error'
        }
        if (viaApi) run.api(`db.insert('rates', …) = ${sqlOf(rows)}`, exec(rows))
        else run.exec(sqlOf(rows))
        for (const r of rows) {
          if (!offer(st.rates, r.t, rateText(r.cur, r.rate, r.t), tick)) continue
          if ((st.rates.hist[r.cur] ?? []).some((v) => v.t === r.t)) STATS.deletionsReplaced++
          putVersion(st, r.cur, { rate: r.rate, t: r.t, live: true })
        }
        return 'tick'
      }
      case 'rupd': {
        const cur = CURS[s.cur]!
        const newT = s.j === undefined ? undefined : T(now + s.j)
        const set = s.rate === 'inc' ? 'rate + 1' : String(s.rate ?? 'NULL')
        run.exec(`UPDATE rates SET rate = ${set}${newT !== undefined ? `, valid_from = ${tsLit(newT)}` : ''} WHERE cur = '${cur}'`)
        const vis = latest(st, cur)
        if (!vis?.live) return 'none' // no visible row: matches nothing
        const rate = s.rate === 'inc' ? (vis.rate === null ? null : vis.rate + 1) : s.rate
        const t = newT ?? vis.t
        if (t === vis.t && rate === vis.rate) return 'none' // the same row: no change
        if (offer(st.rates, t, rateText(cur, rate, t), tick)) putVersion(st, cur, { rate, t, live: true })
        return 'tick'
      }
      case 'rdel': {
        const cur = CURS[s.cur]!
        const vis = latest(st, cur)
        if (s.via === 'api' && vis?.live) {
          run.api(`db.delete('rates', [['${cur}', ${vis.rate}, '${tsText(vis.t)}']])`, () => db.delete('rates', [[cur, vis.rate, new Date(vis.t)]]))
        } else run.exec(`DELETE FROM rates WHERE cur = '${cur}'`)
        if (!vis?.live) return 'none'
        // a deletion at the row's time, or the watermark (start of the tick) when later
        if (st.rates.w0 > vis.t) STATS.deletionsAtWatermark++
        putVersion(st, cur, { rate: null, t: Math.max(vis.t, st.rates.w0), live: false })
        return 'tick'
      }
      case 'rupdAll': {
        // every visible row gets a version at its own time (late when that is below W)
        run.exec('UPDATE rates SET rate = rate + 1')
        let changed = false
        for (const cur of CURS) {
          const vis = latest(st, cur)
          if (!vis?.live || vis.rate === null) continue
          changed = true
          if (offer(st.rates, vis.t, rateText(cur, vis.rate + 1, vis.t), tick)) putVersion(st, cur, { rate: vis.rate + 1, t: vis.t, live: true })
        }
        return changed ? 'tick' : 'none'
      }
      case 'rdelWhere': {
        run.exec(`DELETE FROM rates WHERE rate >= ${s.min}`)
        let changed = false
        for (const cur of CURS) {
          const vis = latest(st, cur)
          if (!vis?.live || vis.rate === null || vis.rate < s.min) continue
          changed = true
          putVersion(st, cur, { rate: null, t: Math.max(vis.t, st.rates.w0), live: false })
        }
        return changed ? 'tick' : 'none'
      }
    }
  }

  const checkInputs = (st: TjState, w: string) => {
    run.compare(`${w}: stream orders`, run.rows('SELECT * FROM orders'), st.orders.rows.map((o) => [o.id, o.cur, tsText(o.t)]))
    run.same(`${w}: db.watermark('orders')`, run.db.watermark('orders'), wmText(st.orders))
    run.compare(
      `${w}: SELECT * FROM rates (the latest version per key, when live)`,
      run.rows('SELECT * FROM rates'),
      CURS.flatMap((cur) => {
        const v = latest(st, cur)
        return v?.live ? [[cur, v.rate, tsText(v.t)]] : []
      }),
    )
  }

  drive<TjState, TjStmt>(
    {
      run,
      state: { tick: run.db.tick, orders: { ...newSrc('orders', c.delayO), rows: [] }, rates: { ...newSrc('rates', c.delayR), hist: {} } },
      sources: (st) => [st.orders, st.rates],
      step,
      checkInputs,
      views,
      createAt: c.createAt,
    },
    c.groups,
    opts.drive,
  )
}

// ------------------------------------------------------------------------------ ASOF join

const SYMS = ['A', 'B'] as const

interface Trade {
  readonly id: number
  readonly sym: string | null
  readonly t: number | null
  readonly px: number
}

interface Quote {
  readonly sym: string | null
  readonly t: number | null
  readonly bid: number
  readonly qid: number
}

interface AsState extends State {
  trades: Trade[]
  quotes: Quote[]
}

/** sym index (null: NULL), time in s (null: NULL) */
type Sym = number | null
type Sec = number | null

type AsStmt =
  | { readonly kind: 'tins'; readonly via: 'sql' | 'api'; readonly rows: readonly { sym: Sym; s: Sec; px: number }[] }
  | { readonly kind: 'tupd'; readonly pick: number; readonly sym: Sym | undefined; readonly s: Sec }
  | { readonly kind: 'tdel'; readonly pick: number; readonly via: 'sql' | 'api' }
  | { readonly kind: 'qins'; readonly via: 'sql' | 'api'; readonly rows: readonly { sym: Sym; s: Sec; bid: number }[] }
  | { readonly kind: 'qdel'; readonly pick: number; readonly via: 'sql' | 'api' }
  | { readonly kind: 'qupd'; readonly pick: number; readonly s: Sec | undefined; readonly bid: number | undefined }
  | { readonly kind: 'qdelRange'; readonly sym: number; readonly s: number }
  | { readonly kind: 'qshift'; readonly sym: number; readonly d: number }

// dense times and bids: ties in time (and in bid) are common
const symArb = fc.option(fc.integer({ min: 0, max: 1 }), { nil: null, freq: 12 })
const secArb = fc.option(fc.integer({ min: 0, max: 12 }), { nil: null, freq: 12 })
const bidArb = fc.integer({ min: 0, max: 4 })
const asStmtArb: fc.Arbitrary<AsStmt> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('tins' as const), via: viaArb, rows: fc.array(fc.record({ sym: symArb, s: secArb, px: fc.integer({ min: 0, max: 9 }) }), { minLength: 1, maxLength: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('tupd' as const), pick: fc.nat(20), sym: fc.option(symArb, { nil: undefined }), s: secArb }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('tdel' as const), pick: fc.nat(20), via: viaArb }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('qins' as const), via: viaArb, rows: fc.array(fc.record({ sym: symArb, s: secArb, bid: bidArb }), { minLength: 1, maxLength: 4 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('qdel' as const), pick: fc.nat(20), via: viaArb }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('qupd' as const), pick: fc.nat(20), s: fc.option(secArb, { nil: undefined }), bid: fc.option(bidArb, { nil: undefined }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('qdelRange' as const), sym: fc.integer({ min: 0, max: 1 }), s: fc.integer({ min: 0, max: 12 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('qshift' as const), sym: fc.integer({ min: 0, max: 1 }), d: fc.constantFrom(-2, -1, 1, 2) }), weight: 1 },
)

interface AsCase {
  readonly groups: readonly Group<AsStmt>[]
  readonly createAt: readonly number[]
}

const AS_MAX_GROUPS = 10
const asCaseArb: fc.Arbitrary<AsCase> = fc.record({
  groups: fc.array(fc.record({ mode: modeArb, now: fc.constant(0), stmts: fc.array(asStmtArb, { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: AS_MAX_GROUPS }),
  createAt: createAtArb(6, AS_MAX_GROUPS),
})

type Dir = '>=' | '>' | '<=' | '<'

/** The quote a trade joins: equal sym, nearest time in the direction `t.ts dir q.ts`; ties in
 *  time → the least row (sym, ts equal: bid, then qid). */
function asofMatch(st: AsState, tr: Trade, dir: Dir): Quote | undefined {
  if (tr.sym === null || tr.t === null) return undefined
  const tt = tr.t
  const ok = (qt: number) => (dir === '>=' ? tt >= qt : dir === '>' ? tt > qt : dir === '<=' ? tt <= qt : tt < qt)
  const backward = dir === '>=' || dir === '>'
  let best: Quote | undefined
  for (const q of st.quotes) {
    if (q.sym !== tr.sym || q.t === null || !ok(q.t)) continue
    if (!best) best = q
    else if (q.t !== best.t) {
      if (backward ? q.t > best.t! : q.t < best.t!) best = q
    } else {
      STATS.asofTies++
      if (q.bid < best.bid || (q.bid === best.bid && q.qid < best.qid)) best = q
    }
  }
  return best
}

function asViews(): View<AsState>[] {
  return [
    {
      name: 'af_ge',
      sql: 'SELECT t.id, q.bid, q.qid FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts',
      expected: (st) => st.trades.flatMap((t) => {
        const q = asofMatch(st, t, '>=')
        return q ? [[t.id, q.bid, q.qid]] : []
      }),
    },
    {
      name: 'af_gt_l',
      sql: 'SELECT t.id, q.bid, q.qid, q.ts FROM trades t ASOF LEFT JOIN quotes q ON q.sym = t.sym AND q.ts < t.ts',
      expected: (st) => st.trades.map((t) => {
        const q = asofMatch(st, t, '>')
        return [t.id, q?.bid ?? null, q?.qid ?? null, q ? tsOrNull(q.t) : null]
      }),
    },
    {
      name: 'af_le_l',
      sql: 'SELECT t.id, t.ts, q.qid, q.ts AS qts FROM trades t ASOF LEFT JOIN quotes q ON t.sym = q.sym AND t.ts <= q.ts',
      expected: (st) => st.trades.map((t) => {
        const q = asofMatch(st, t, '<=')
        return [t.id, tsOrNull(t.t), q?.qid ?? null, q ? tsOrNull(q.t) : null]
      }),
    },
    {
      name: 'af_lt',
      sql: 'SELECT t.id, t.px, q.bid, q.qid FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND q.ts > t.ts',
      expected: (st) => st.trades.flatMap((t) => {
        const q = asofMatch(st, t, '<')
        return q ? [[t.id, t.px, q.bid, q.qid]] : []
      }),
    },
    {
      name: 'af_agg',
      sql: 'SELECT t.sym, count(*) AS n, count(q.qid) AS m, sum(q.bid) AS s FROM trades t ASOF LEFT JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts GROUP BY t.sym',
      expected: (st) => {
        const groups = new Map<string | null, Trade[]>()
        for (const t of st.trades) groups.set(t.sym, [...(groups.get(t.sym) ?? []), t])
        return [...groups].map(([sym, ts]) => {
          const bids = ts.map((t) => asofMatch(st, t, '>=')?.bid).filter((b): b is number => b !== undefined)
          return [sym, ts.length, bids.length, bids.length > 0 ? bids.reduce((a, b) => a + b, 0) : null]
        })
      },
    },
    {
      // a projection of the ASOF join read by a second view
      name: 'af_chain',
      sql: 'SELECT q.qid, count(*) AS n FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND t.ts > q.ts GROUP BY q.qid',
      expected: (st) => {
        const n = new Map<number, number>()
        for (const t of st.trades) {
          const q = asofMatch(st, t, '>')
          if (q) n.set(q.qid, (n.get(q.qid) ?? 0) + 1)
        }
        return [...n].map(([qid, c]) => [qid, c])
      },
    },
  ]
}

function runAsofCase(c: AsCase): void {
  const run = new Run()
  run.exec('CREATE TABLE trades (id INT PRIMARY KEY, sym TEXT, ts TIMESTAMP, px INT)')
  run.exec('CREATE TABLE quotes (sym TEXT, ts TIMESTAMP, bid INT, qid INT)')
  let nextId = 1
  let nextQid = 1
  const db = run.db
  const symOf = (s: Sym) => (s === null ? null : SYMS[s]!)
  const tOf = (s: Sec) => (s === null ? null : T(s))
  const dateOf = (t: number | null) => (t === null ? null : new Date(t))
  const tradeSql = (t: Trade) => `(${t.id}, ${textLit(t.sym)}, ${tsLit(t.t)}, ${t.px})`
  const quoteSql = (q: Quote) => `(${textLit(q.sym)}, ${tsLit(q.t)}, ${q.bid}, ${q.qid})`
  const quoteVals = (q: Quote) => [q.sym, dateOf(q.t), q.bid, q.qid]
  const byId = <X>(xs: readonly X[], id: (x: X) => number) => [...xs].sort((a, b) => id(a) - id(b))

  const step = (st: AsState, s: AsStmt): Outcome => {
    switch (s.kind) {
      case 'tins': {
        const rows = s.rows.map((r): Trade => ({ id: nextId++, sym: symOf(r.sym), t: tOf(r.s), px: r.px }))
        const sql = `INSERT INTO trades VALUES ${rows.map(tradeSql).join(', ')}`
        if (s.via === 'sql') run.exec(sql)
        else run.api(`db.insert('trades', …) = ${sql}`, () => db.insert('trades', rows.map((t) => [t.id, t.sym, dateOf(t.t), t.px])))
        st.trades.push(...rows)
        return 'tick'
      }
      case 'tupd': {
        if (st.trades.length === 0) return 'skip'
        const old = byId(st.trades, (t) => t.id)[s.pick % st.trades.length]!
        const now: Trade = { ...old, t: tOf(s.s), ...(s.sym !== undefined ? { sym: symOf(s.sym) } : {}) }
        run.exec(`UPDATE trades SET ts = ${tsLit(now.t)}${s.sym !== undefined ? `, sym = ${textLit(now.sym)}` : ''} WHERE id = ${old.id}`)
        st.trades = st.trades.map((t) => (t.id === old.id ? now : t))
        return now.t === old.t && now.sym === old.sym ? 'none' : 'tick'
      }
      case 'tdel': {
        if (st.trades.length === 0) return 'skip'
        const old = byId(st.trades, (t) => t.id)[s.pick % st.trades.length]!
        if (s.via === 'sql') run.exec(`DELETE FROM trades WHERE id = ${old.id}`)
        else run.api(`db.delete('trades', [${tradeSql(old)}])`, () => db.delete('trades', [[old.id, old.sym, dateOf(old.t), old.px]]))
        st.trades = st.trades.filter((t) => t.id !== old.id)
        return 'tick'
      }
      case 'qins': {
        const rows = s.rows.map((r): Quote => ({ sym: symOf(r.sym), t: tOf(r.s), bid: r.bid, qid: nextQid++ }))
        const sql = `INSERT INTO quotes VALUES ${rows.map(quoteSql).join(', ')}`
        if (s.via === 'sql') run.exec(sql)
        else run.api(`db.insert('quotes', …) = ${sql}`, () => db.insert('quotes', rows.map(quoteVals)))
        st.quotes.push(...rows)
        return 'tick'
      }
      case 'qdel': {
        if (st.quotes.length === 0) return 'skip'
        const old = byId(st.quotes, (q) => q.qid)[s.pick % st.quotes.length]!
        if (s.via === 'sql') run.exec(`DELETE FROM quotes WHERE qid = ${old.qid}`)
        else run.api(`db.delete('quotes', [${quoteSql(old)}])`, () => db.delete('quotes', [quoteVals(old)]))
        st.quotes = st.quotes.filter((q) => q.qid !== old.qid)
        return 'tick'
      }
      case 'qupd': {
        if (st.quotes.length === 0) return 'skip'
        const old = byId(st.quotes, (q) => q.qid)[s.pick % st.quotes.length]!
        const now: Quote = { ...old, ...(s.s !== undefined ? { t: tOf(s.s) } : {}), ...(s.bid !== undefined ? { bid: s.bid } : {}) }
        const sets = [...(s.s !== undefined ? [`ts = ${tsLit(now.t)}`] : []), ...(s.bid !== undefined ? [`bid = ${now.bid}`] : [])]
        run.exec(`UPDATE quotes SET ${sets.length > 0 ? sets.join(', ') : 'bid = bid'} WHERE qid = ${old.qid}`)
        st.quotes = st.quotes.map((q) => (q.qid === old.qid ? now : q))
        return now.t === old.t && now.bid === old.bid ? 'none' : 'tick'
      }
      case 'qdelRange': {
        const sym = SYMS[s.sym]!
        run.exec(`DELETE FROM quotes WHERE sym = '${sym}' AND ts <= ${tsLit(T(s.s))}`)
        const before = st.quotes.length
        st.quotes = st.quotes.filter((q) => !(q.sym === sym && q.t !== null && q.t <= T(s.s)))
        return st.quotes.length < before ? 'tick' : 'none'
      }
      case 'qshift': {
        const sym = SYMS[s.sym]!
        run.exec(`UPDATE quotes SET ts = ${plus('ts', s.d)} WHERE sym = '${sym}'`)
        const moved = st.quotes.some((q) => q.sym === sym && q.t !== null)
        st.quotes = st.quotes.map((q) => (q.sym === sym && q.t !== null ? { ...q, t: q.t + s.d * SEC } : q))
        return moved ? 'tick' : 'none'
      }
    }
  }

  drive<AsState, AsStmt>(
    {
      run,
      state: { tick: run.db.tick, trades: [], quotes: [] },
      sources: () => [],
      step: (st, s) => step(st, s),
      checkInputs: (st, w) => {
        run.compare(`${w}: table trades`, run.rows('SELECT * FROM trades'), st.trades.map((t) => [t.id, t.sym, tsOrNull(t.t), t.px]))
        run.compare(`${w}: table quotes`, run.rows('SELECT * FROM quotes'), st.quotes.map((q) => [q.sym, tsOrNull(q.t), q.bid, q.qid]))
      },
      views: asViews(),
      createAt: c.createAt,
    },
    c.groups,
  )
}

// ------------------------------------------------------------------------------ two streams

/** A row of stream a or b: key (NULL rarely), a run-wide unique value, event time. */
interface Ev {
  readonly k: number | null
  readonly v: number
  readonly t: number
}

interface AbState extends State {
  readonly a: Src & { rows: Ev[] }
  readonly b: Src & { rows: Ev[] }
}

interface AbStmt {
  readonly stream: 'a' | 'b'
  readonly via: 'sql' | 'api'
  readonly rows: readonly { k: number | null; j: number }[]
}

interface AbCase {
  readonly delayA: number
  readonly delayB: number
  /** interval band: lo <= b.ts - a.ts <= hi (s) */
  readonly lo: number
  readonly hi: number
  /** window join: tumble size (s) */
  readonly size: number
  readonly groups: readonly Group<AbStmt>[]
  readonly createAt: readonly number[]
}

const abStmtArb: fc.Arbitrary<AbStmt> = fc.record({
  stream: fc.constantFrom<'a' | 'b'>('a', 'b'),
  via: viaArb,
  rows: fc.array(fc.record({ k: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null, freq: 15 }), j: jitterArb }), { minLength: 1, maxLength: 4 }),
})

const AB_MAX_GROUPS = 12
const abCaseArb: fc.Arbitrary<AbCase> = fc
  .record({
    delayA: fc.integer({ min: 0, max: 5 }),
    delayB: fc.integer({ min: 0, max: 5 }),
    lo: fc.integer({ min: -6, max: 3 }),
    width: fc.integer({ min: 0, max: 8 }),
    size: fc.constantFrom(10, 10, 3, 5, 7),
    groups: groupsArb(abStmtArb, AB_MAX_GROUPS),
    createAt: createAtArb(7, AB_MAX_GROUPS),
  })
  .map(({ lo, width, ...rest }) => ({ ...rest, lo, hi: lo + width }))

/** Outer join of `ls` and `rs` on `on`: matched pairs, then (left / full) unmatched left rows
 *  with `null` as the right, and (right / full) unmatched right rows with `null` as the left. */
function outerJoin<L, R>(ls: readonly L[], rs: readonly R[], on: (l: L, r: R) => boolean, kind: 'inner' | 'left' | 'right' | 'full'): [L | null, R | null][] {
  const out: [L | null, R | null][] = []
  const rMatched = new Set<R>()
  for (const l of ls) {
    let any = false
    for (const r of rs) {
      if (!on(l, r)) continue
      any = true
      rMatched.add(r)
      out.push([l, r])
    }
    if (!any && (kind === 'left' || kind === 'full')) out.push([l, null])
  }
  if (kind === 'right' || kind === 'full') for (const r of rs) if (!rMatched.has(r)) out.push([null, r])
  return out
}

const sameKey = (x: Ev, y: Ev) => x.k !== null && y.k !== null && x.k === y.k

function intervalViews(c: AbCase): View<AbState>[] {
  const { lo, hi } = c
  const between = (x: Ev, y: Ev) => sameKey(x, y) && y.t - x.t >= lo * SEC && y.t - x.t <= hi * SEC
  const halfOpen = (x: Ev, y: Ev) => sameKey(x, y) && y.t - x.t >= lo * SEC && y.t - x.t < hi * SEC
  const v = (e: Ev | null) => (e ? e.v : null)
  return [
    {
      name: 'ij',
      sql: `SELECT a.k, a.v, a.ts, b.v AS bv, b.ts AS bts FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN ${plus('a.ts', lo)} AND ${plus('a.ts', hi)}`,
      expected: (st) => outerJoin(st.a.rows, st.b.rows, between, 'inner').map(([x, y]) => [x!.k, x!.v, tsText(x!.t), y!.v, tsText(y!.t)]),
    },
    {
      name: 'ijl',
      sql: `SELECT a.v, a.ts, b.v AS bv FROM a LEFT JOIN b ON a.k = b.k AND b.ts >= ${plus('a.ts', lo)} AND b.ts < ${plus('a.ts', hi)}`,
      expected: (st) => outerJoin(st.a.rows, st.b.rows, halfOpen, 'left').map(([x, y]) => [x!.v, tsText(x!.t), v(y)]),
    },
    {
      // the same half-open band written from b's side, RIGHT JOIN
      name: 'ijr',
      sql: `SELECT a.v AS av, b.k, b.v FROM a RIGHT JOIN b ON b.k = a.k AND a.ts > ${plus('b.ts', -hi)} AND a.ts <= ${plus('b.ts', -lo)}`,
      expected: (st) => outerJoin(st.a.rows, st.b.rows, halfOpen, 'right').map(([x, y]) => [v(x), y!.k, y!.v]),
    },
    {
      name: 'ijf',
      sql: `SELECT a.v AS av, b.v AS bv, b.ts AS bts FROM a FULL JOIN b ON a.k = b.k AND b.ts BETWEEN ${plus('a.ts', lo)} AND ${plus('a.ts', hi)}`,
      expected: (st) => outerJoin(st.a.rows, st.b.rows, between, 'full').map(([x, y]) => [v(x), v(y), y ? tsText(y.t) : null]),
    },
    {
      // a band without keys
      name: 'ijn',
      sql: `SELECT a.v AS av, b.v AS bv FROM a FULL JOIN b ON b.ts > a.ts - INTERVAL '2' SECOND AND b.ts < a.ts + INTERVAL '2' SECOND`,
      expected: (st) => outerJoin(st.a.rows, st.b.rows, (x, y) => Math.abs(y.t - x.t) < 2 * SEC, 'full').map(([x, y]) => [v(x), v(y)]),
    },
    {
      name: 'ija',
      sql: `SELECT a.k, count(*) AS n, count(b.v) AS m, max(b.v) AS mx FROM a LEFT JOIN b ON a.k = b.k AND b.ts BETWEEN ${plus('a.ts', lo)} AND ${plus('a.ts', hi)} GROUP BY a.k`,
      expected: (st) => {
        const g = new Map<number | null, [number, number, number | null]>()
        for (const [x, y] of outerJoin(st.a.rows, st.b.rows, between, 'left')) {
          const [n, m, mx] = g.get(x!.k) ?? [0, 0, null]
          g.set(x!.k, [n + 1, m + (y ? 1 : 0), y ? Math.max(mx ?? -Infinity, y.v) : mx])
        }
        return [...g].map(([k, r]) => [k, ...r])
      },
    },
    {
      // a view on both sides of the same band with a filter on one input
      name: 'ijw',
      sql: `SELECT a.v AS av, b.v AS bv FROM a LEFT JOIN b ON a.k = b.k AND b.ts BETWEEN ${plus('a.ts', lo)} AND ${plus('a.ts', hi)} WHERE a.k <> 1`,
      expected: (st) => outerJoin(st.a.rows.filter((x) => x.k !== null && x.k !== 1), st.b.rows, between, 'left').map(([x, y]) => [x!.v, v(y)]),
    },
  ]
}

function windowViews(c: AbCase): View<AbState>[] {
  const N = c.size
  const iv = (n: number) => `INTERVAL '${n}' SECOND`
  const on = (n: number) => (x: Ev, y: Ev) => sameKey(x, y) && tumbleStart(x.t, n) === tumbleStart(y.t, n)
  const closedBy = (st: AbState) => Math.min(st.a.w, st.b.w)
  const pairs = (st: AbState, n: number, eowc: boolean) =>
    outerJoin(st.a.rows, st.b.rows, on(n), 'inner')
      .map(([x, y]) => ({ x: x!, y: y!, ws: tumbleStart(x!.t, n), we: tumbleStart(x!.t, n) + n * SEC }))
      .filter((p) => !eowc || p.we <= closedBy(st))
  const agg = (ps: ReturnType<typeof pairs>, key: (p: ReturnType<typeof pairs>[number]) => Row) => {
    const g = new Map<string, { key: Row; n: number; s: number }>()
    for (const p of ps) {
      const k = JSON.stringify(key(p))
      const e = g.get(k) ?? { key: key(p), n: 0, s: 0 }
      e.n++
      e.s += p.y.v
      g.set(k, e)
    }
    return [...g.values()].map((e) => [...e.key, e.n, e.s])
  }
  const j10 = `TUMBLE(a, ts, ${iv(10)}) x JOIN TUMBLE(b, ts, ${iv(10)}) y ON x.k = y.k AND x.window_start = y.window_start AND x.window_end = y.window_end`
  const jN = `TUMBLE(TABLE a, DESCRIPTOR(ts), ${iv(N)}) x JOIN TUMBLE(TABLE b, DESCRIPTOR(ts), ${iv(N)}) y ON x.k = y.k AND x.window_start = y.window_start AND x.window_end = y.window_end`
  return [
    {
      name: 'wj',
      sql: `SELECT x.k, x.v, y.v AS yv, x.window_start, x.window_end FROM ${j10}`,
      expected: (st) => pairs(st, 10, false).map((p) => [p.x.k, p.x.v, p.y.v, tsText(p.ws), tsText(p.we)]),
    },
    {
      name: 'wja',
      sql: `SELECT x.k, x.window_start, count(*) AS n, sum(y.v) AS s FROM ${jN} GROUP BY x.k, x.window_start`,
      expected: (st) => agg(pairs(st, N, false), (p) => [p.x.k, tsText(p.ws)]),
    },
    {
      // joined on window_end alone
      name: 'wje',
      sql: `SELECT x.v, y.v AS yv, y.window_end FROM TUMBLE(a, ts, ${iv(N)}) x JOIN TUMBLE(b, ts, ${iv(N)}) y ON x.k = y.k AND x.window_end = y.window_end`,
      expected: (st) => pairs(st, N, false).map((p) => [p.x.v, p.y.v, tsText(p.we)]),
    },
    {
      name: 'we',
      sql: `SELECT x.k, x.v, y.v AS yv, x.window_start, x.window_end FROM ${j10} EMIT ON WINDOW CLOSE`,
      eowc: true,
      appendOnly: true,
      expected: (st) => pairs(st, 10, true).map((p) => [p.x.k, p.x.v, p.y.v, tsText(p.ws), tsText(p.we)]),
    },
    {
      name: 'wea',
      sql: `SELECT x.k, x.window_end, count(*) AS n, sum(y.v) AS s FROM ${jN} GROUP BY x.k, x.window_end EMIT ON WINDOW CLOSE`,
      eowc: true,
      appendOnly: true,
      expected: (st) => agg(pairs(st, N, true), (p) => [p.x.k, tsText(p.we)]),
    },
  ]
}

function runTwoStreamCase(c: AbCase, views: View<AbState>[]): void {
  const run = new Run()
  run.exec(`CREATE STREAM a (k INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '${c.delayA}' SECOND)`)
  run.exec(`CREATE STREAM b (k INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '${c.delayB}' SECOND)`)
  let nextV = 1
  drive<AbState, AbStmt>(
    {
      run,
      state: { tick: run.db.tick, a: { ...newSrc('a', c.delayA), rows: [] }, b: { ...newSrc('b', c.delayB), rows: [] } },
      sources: (st) => [st.a, st.b],
      step: (st, s, now) => {
        const rows = s.rows.map((r): Ev => ({ k: r.k, v: nextV++, t: T(now + r.j) }))
        const sql = `INSERT INTO ${s.stream} VALUES ${rows.map((e) => `(${e.k ?? 'NULL'}, ${e.v}, ${tsLit(e.t)})`).join(', ')}`
        if (s.via === 'sql') run.exec(sql)
        else run.api(`db.insert('${s.stream}', …) = ${sql}`, () => run.db.insert(s.stream, rows.map((e) => [e.k, e.v, e.t])))
        const src = st[s.stream]
        for (const e of rows) if (offer(src, e.t, recordText([e.k, e.v, tsText(e.t)]), st.tick + 1)) src.rows.push(e)
        return 'tick'
      },
      checkInputs: (st, w) => {
        for (const s of [st.a, st.b]) {
          run.compare(`${w}: stream ${s.name}`, run.rows(`SELECT * FROM ${s.name}`), s.rows.map((e) => [e.k, e.v, tsText(e.t)]))
          run.same(`${w}: db.watermark('${s.name}')`, run.db.watermark(s.name), wmText(s))
        }
      },
      views,
      createAt: c.createAt,
    },
    c.groups,
  )
}

// ------------------------------------------------------------------------------ bounded state

/** A small deterministic PRNG (mulberry32): the long runs draw their events from a seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

interface BoundedCase {
  readonly delayA: number
  readonly delayB: number
  readonly lo: number
  readonly seed: number
}

/** A long append-only run (times increase, with a little disorder): every view equals the
 *  reference at checkpoints, and the state the watermarks leave is far below the input. */
function runBoundedCase(c: BoundedCase): void {
  const EVENTS = 2000
  const LIMIT = 200
  const { lo } = c
  const hi = lo + 10
  const run = new Run()
  run.exec(`CREATE STREAM a (k INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '${c.delayA}' SECOND)`)
  run.exec(`CREATE STREAM b (k INT, v INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '${c.delayB}' SECOND)`)
  const band = `a.k = b.k AND b.ts BETWEEN ${plus('a.ts', lo)} AND ${plus('a.ts', hi)}`
  const inBand = (x: Ev, y: Ev) => sameKey(x, y) && y.t - x.t >= lo * SEC && y.t - x.t <= hi * SEC
  const win = `TUMBLE(a, ts, INTERVAL '10' SECOND) x JOIN TUMBLE(b, ts, INTERVAL '10' SECOND) y ON x.k = y.k AND x.window_start = y.window_start AND x.window_end = y.window_end`
  const st: AbState = { tick: 0, a: { ...newSrc('a', c.delayA), rows: [] }, b: { ...newSrc('b', c.delayB), rows: [] } }
  const byKey = <X>(xs: readonly X[], key: (x: X) => number | null, f: (xs: X[]) => Row): Row[] => {
    const g = new Map<number | null, X[]>()
    for (const x of xs) g.set(key(x), [...(g.get(key(x)) ?? []), x])
    return [...g].map(([k, v]) => [k, ...f(v)])
  }
  const views: { name: string; sql: string; expected: () => Row[] }[] = [
    {
      name: 'bi',
      sql: `SELECT a.k, count(*) AS n, sum(b.v) AS s FROM a JOIN b ON ${band} GROUP BY a.k`,
      expected: () => byKey(outerJoin(st.a.rows, st.b.rows, inBand, 'inner'), ([x]) => x!.k, (ps) => [ps.length, ps.reduce((s, [, y]) => s + y!.v, 0)]),
    },
    {
      name: 'bl',
      sql: `SELECT a.k, count(*) AS n, count(b.v) AS m FROM a LEFT JOIN b ON ${band} GROUP BY a.k`,
      expected: () => byKey(outerJoin(st.a.rows, st.b.rows, inBand, 'left'), ([x]) => x!.k, (ps) => [ps.length, ps.filter(([, y]) => y).length]),
    },
    {
      name: 'bf',
      sql: `SELECT count(*) AS n, count(a.v) AS na, count(b.v) AS nb FROM a FULL JOIN b ON ${band}`,
      expected: () => {
        const ps = outerJoin(st.a.rows, st.b.rows, inBand, 'full')
        return [[ps.length, ps.filter(([x]) => x).length, ps.filter(([, y]) => y).length]]
      },
    },
    {
      name: 'bw',
      sql: `SELECT x.k, count(*) AS n FROM ${win} GROUP BY x.k`,
      expected: () => byKey(outerJoin(st.a.rows, st.b.rows, (x, y) => sameKey(x, y) && tumbleStart(x.t, 10) === tumbleStart(y.t, 10), 'inner'), ([x]) => x!.k, (ps) => [ps.length]),
    },
  ]
  for (const v of views) run.exec(`CREATE MATERIALIZED VIEW ${v.name} AS ${v.sql}`)
  const rand = mulberry32(c.seed)
  const checkpoint = (when: string) => {
    for (const v of views) run.compare(`${when}: view ${v.name} = ${v.sql}`, run.rows(`SELECT * FROM ${v.name}`), v.expected())
    run.compare(`${when}: rivulet_late_events`, run.rows('SELECT * FROM rivulet_late_events'), [...st.a.late, ...st.b.late])
  }
  let sent = 0
  let nextSize = 100
  let nextCheckpoint = 500
  let v = 1
  while (sent < EVENTS) {
    // a tick: one to three rows of one stream, 2 events per second overall, up to 3 s behind
    const name = rand() < 0.5 ? 'a' : 'b'
    const n = 1 + Math.floor(rand() * 3)
    const rows: Ev[] = []
    for (let i = 0; i < n; i++) rows.push({ k: Math.floor(rand() * 3), v: v++, t: T(Math.floor((sent + i) / 2) - Math.floor(rand() * 4)) })
    sent += n
    run.api(`db.insert('${name}', …) = INSERT INTO ${name} VALUES ${rows.map((e) => `(${e.k}, ${e.v}, ${tsLit(e.t)})`).join(', ')}`, () => run.db.insert(name, rows.map((e) => [e.k, e.v, new Date(e.t)])))
    const src = st[name]
    for (const s of [st.a, st.b]) {
      s.w0 = s.w
      s.pending = -Infinity
    }
    for (const e of rows) if (offer(src, e.t, recordText([e.k, e.v, tsText(e.t)]), run.db.tick)) src.rows.push(e)
    for (const s of [st.a, st.b]) s.w = Math.max(s.w, s.pending)
    if (sent >= nextSize) {
      nextSize += 100
      for (const v of views) {
        const size = run.db.stateSize(v.name)
        if (size > LIMIT) throw new CaseFailure(`after ${sent} events: db.stateSize('${v.name}') = ${size} > ${LIMIT} (${v.sql})\n${run.script()}`)
      }
    }
    if (sent >= nextCheckpoint) {
      nextCheckpoint += 500
      checkpoint(`after ${sent} events`)
    }
  }
  checkpoint(`after all ${sent} events`)
  for (const v of views) {
    const size = run.db.stateSize(v.name)
    if (size * 10 > sent) throw new CaseFailure(`db.stateSize('${v.name}') = ${size} after ${sent} events (${v.sql})`)
  }
}

/** The temporal join in a long run (times increase with a little disorder; versions inserted,
 *  updated and deleted, some late): its views equal the reference every 250 ticks, and the
 *  join's state stays bounded although the orders and versions keep coming. */
function runBoundedTemporal(c: { delayO: number; delayR: number; seed: number }): void {
  const EVENTS = 2000
  const LIMIT = 200
  const rand = mulberry32(c.seed)
  const groups: Group<TjStmt>[] = []
  for (let i = 0; i < EVENTS; i++) {
    const r = rand()
    const cur = Math.floor(rand() * 3)
    const rate = 1 + Math.floor(rand() * 9)
    const j = -Math.floor(rand() * 4)
    const stmt: TjStmt =
      r < 0.6
        ? { kind: 'orders', via: rand() < 0.8 ? 'api' : 'sql', rows: [{ cur, j }] }
        : r < 0.85
          ? { kind: 'rins', via: 'api', rows: [{ cur, rate, j }] }
          : r < 0.95
            ? { kind: 'rupd', cur, rate, j: rand() < 0.5 ? undefined : j }
            : { kind: 'rdel', cur, via: 'sql' }
    groups.push({ mode: 'auto', now: Math.floor(i / 2), stmts: [stmt] })
  }
  const run = new Run()
  const views = tjViews().filter((v) => v.name === 'tja' || v.name === 'tje')
  const bounded = ['tja']
  const sizes = () => {
    for (const name of bounded) {
      const size = run.db.stateSize(name)
      if (size > LIMIT) throw new CaseFailure(`db.stateSize('${name}') = ${size} > ${LIMIT}\n${run.script()}`)
    }
  }
  runTemporalCase({ delayO: c.delayO, delayR: c.delayR, groups, createAt: views.map(() => 0) }, views, {
    run,
    drive: { every: 250, after: (n) => (n % 100 === 0 ? sizes() : undefined) },
  })
  for (const name of bounded) {
    const size = run.db.stateSize(name)
    if (size * 10 > EVENTS) throw new CaseFailure(`db.stateSize('${name}') = ${size} after ${EVENTS} ticks`)
  }
}

// ------------------------------------------------------------------------------ properties

describe('stream joins = a naive batch reference over the accepted events, after every tick', () => {
  it('temporal join (FOR SYSTEM_TIME AS OF) against a versioned table: versions, late versions and orders, UPDATE / DELETE', () => {
    fc.assert(
      fc.property(tjCaseArb, (c) => runTemporalCase(c)),
      params(300),
    )
  })

  it('ASOF [LEFT] JOIN (>=, >, <=, <) over tables, inserts / updates / deletes on both sides, ties to the least row', () => {
    fc.assert(
      fc.property(asCaseArb, (c) => runAsofCase(c)),
      params(300),
    )
  })

  it('interval joins between streams (inner / left / right / full, BETWEEN and half-open bands)', () => {
    fc.assert(
      fc.property(abCaseArb, (c) => runTwoStreamCase(c, intervalViews(c))),
      params(250),
    )
  })

  it('window joins between TUMBLE-windowed streams, with and without EMIT ON WINDOW CLOSE', () => {
    fc.assert(
      fc.property(abCaseArb, (c) => runTwoStreamCase(c, windowViews(c))),
      params(250),
    )
  })

  it('temporal join: watermarks keep the state bounded in a long run', () => {
    fc.assert(
      fc.property(fc.record({ delayO: fc.integer({ min: 0, max: 3 }), delayR: fc.integer({ min: 0, max: 3 }), seed: fc.integer() }), (c) => runBoundedTemporal(c)),
      params(3, 10),
    )
  })

  it('interval / window joins: watermarks keep the state bounded in a long append-only run', () => {
    fc.assert(
      fc.property(
        fc.record({ delayA: fc.integer({ min: 0, max: 3 }), delayB: fc.integer({ min: 0, max: 3 }), lo: fc.integer({ min: -10, max: 0 }), seed: fc.integer() }),
        (c) => runBoundedCase(c),
      ),
      params(3, 10),
    )
  })
})
