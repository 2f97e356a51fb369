// `rivulet bench nexmark --verify`: each query as a materialized view over a small generated
// run, compared at several points with a from-scratch evaluation of the same SQL over
// everything the streams hold (they keep their history here). A blackhole sink of the same
// query runs beside it: its inserts minus retractions must equal the view's row count.

import { Engine } from '../engine/index.js'
import type { ResultValue } from '../types.js'
import { sourceStatement } from './nexmark-bench.js'
import { setUpQuery, type NexmarkQuery } from './nexmark-queries.js'

export interface VerifyOptions {
  readonly events: number
  readonly rate: number
  readonly batch: number
  /** Comparisons per query (evenly spaced; the last at the end of the run). */
  readonly checkpoints?: number
  readonly out: (s: string) => void
}

export interface VerifyResult {
  readonly query: string
  readonly ok: boolean
  /** Rows of the view at each checkpoint (a check over empty results proves little). */
  readonly rows: readonly number[]
  readonly problem?: string
}

/** A row as comparable text: floats to 12 significant digits (a sum may be added up in
 *  another order), everything else as rendered. */
function rowText(row: readonly ResultValue[]): string {
  return JSON.stringify(row.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : typeof v === 'bigint' ? String(v) : v)))
}

function multiset(rows: readonly (readonly ResultValue[])[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const r of rows) {
    const k = rowText(r)
    m.set(k, (m.get(k) ?? 0) + 1)
  }
  return m
}

/** The first difference between two multisets of rows, or undefined. */
export function firstDifference(view: readonly (readonly ResultValue[])[], batch: readonly (readonly ResultValue[])[]): string | undefined {
  const a = multiset(view)
  const b = multiset(batch)
  for (const [k, n] of a) if (b.get(k) !== n) return `view has ${n}× ${k}, the recompute ${b.get(k) ?? 0}×`
  for (const [k, n] of b) if (!a.has(k)) return `the recompute has ${n}× ${k}, the view none`
  return undefined
}

export function verifyQuery(q: NexmarkQuery, o: VerifyOptions): VerifyResult {
  // processing time moves 1 ms a tick: q12 and q13 come out the same on every run
  let ms = Date.UTC(2015, 6, 15)
  const db = Engine.open({ sources: 'manual', clock: () => (ms += 1) })
  try {
    db.execute(sourceStatement(o.events, o.rate, o.batch, true))
    setUpQuery(db, q)
    db.execute(`CREATE MATERIALIZED VIEW ${q.name} AS ${q.select}`)
    db.execute(`CREATE SINK ${q.name}_sink AS ${q.select} WITH (connector = 'blackhole')`)
    const checkpoints = o.checkpoints ?? 4
    const rows: number[] = []
    for (let c = 1; c <= checkpoints; c++) {
      const upTo = Math.round((o.events * c) / checkpoints)
      db.stepSource('nexmark', upTo - db.sourceStatus('nexmark').events)
      const view = db.query(`SELECT * FROM ${q.name}`).rows
      const batch = db.query(q.select).rows
      rows.push(view.length)
      const diff = firstDifference(view, batch)
      if (diff !== undefined) return { query: q.name, ok: false, rows, problem: `after ${upTo} events: ${diff}` }
      const sink = db.sinkStatus(`${q.name}_sink`)
      if (sink.inserted - sink.retracted !== view.length) return { query: q.name, ok: false, rows, problem: `after ${upTo} events: the sink holds ${sink.inserted - sink.retracted} rows net, the view ${view.length}` }
    }
    return { query: q.name, ok: true, rows }
  } catch (e) {
    return { query: q.name, ok: false, rows: [], problem: e instanceof Error ? e.message : String(e) }
  } finally {
    db.close()
  }
}

export function verifyQueries(queries: readonly NexmarkQuery[], o: VerifyOptions): number {
  o.out(`Nexmark --verify: ${o.events.toLocaleString('en-US')} events at ${o.rate.toLocaleString('en-US')} events/s of event time; each query's view against a recompute at ${o.checkpoints ?? 4} points\n`)
  let failed = 0
  for (const q of queries) {
    const r = verifyQuery(q, o)
    if (!r.ok) failed++
    o.out(`${r.ok ? 'ok  ' : 'FAIL'} ${q.name.padEnd(4)} rows ${r.rows.join(' → ') || '-'}${r.problem ? `  ${r.problem}` : ''}\n`)
  }
  o.out(`${queries.length - failed} passed, ${failed} failed\n`)
  return failed > 0 ? 1 : 0
}
