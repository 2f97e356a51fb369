// Event time: watermarks of streams and versioned tables, late events (split off on arrival,
// recorded in rivulet_late_events), retention of history, and the versions of a versioned
// table. The tick pipeline calls `retain` after its commit.

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import { type Column } from '../../planner/index.js'
import { isView, watermarksOf, type StreamWatermark, type TableEntry } from './catalog.js'
import { AppendLog } from './stream-history.js'
import { toResultValue } from '../sql-runtime/values.js'
import { foldName } from './names.js'
import type { EngineInternals } from './internals.js'

const EMPTY_ROW: Row = []
/** A row as Postgres prints a record: `(1,abc,"2024-01-01 00:00:00",)` (NULL is empty; a
 *  value with a comma, quote, parenthesis, backslash or space is double-quoted). */
export function recordText(row: Row, columns: readonly Column[]): string {
  const parts = row.map((v, i) => {
    if (v === null) return ''
    const text = String(toResultValue(v, columns[i]!.type))
    return text === '' || /[",()\\\s]/.test(text) ? `"${text.replace(/["\\]/g, (c) => c + c)}"` : text
  })
  return `(${parts.join(',')})`
}

export class EventTime {
  constructor(private readonly engine: EngineInternals) {}

  watermark(stream: string): string | null {
    this.engine.checkOpen()
    const e = this.engine.catalog.entries.get(foldName(stream))
    if (!e || isView(e) || e.kind !== 'stream') throw new RivuletError(SqlState.undefinedTable, `stream "${stream}" does not exist`)
    const w = e.watermark
    return w === undefined || w.current === -Infinity ? null : (toResultValue(w.current, e.columns[w.column]!.type) as string)
  }

  lateEvents(stream: string): number {
    this.engine.checkOpen()
    const e = this.engine.catalog.entries.get(foldName(stream))
    if (!e || isView(e) || e.kind !== 'stream') throw new RivuletError(SqlState.undefinedTable, `stream "${stream}" does not exist`)
    return e.watermark?.late ?? 0
  }

  /** Retention: after a committed tick, history older than watermark − retention leaves the
   *  stream's stored rows (in arrival order; a row is kept at least as long as asked). Views
   *  already hold what they derived from it; only later backfills and ad hoc reads see less. */
  retain(t: TableEntry, w: StreamWatermark): void {
    if (t.versions) return t.versions.prune(w.current - w.retention!)
    if (t.store instanceof AppendLog) {
      // the log is the history, in arrival order
      t.store.dropBefore(w.current - w.retention!)
      return
    }
    for (const r of w.tickRows) w.history.push(r)
    w.tickRows = []
    const cutoff = w.current - w.retention!
    const gone = new ivm.ZSet()
    const col = w.column
    while (w.head < w.history.length && (w.history[w.head]![col] as number) < cutoff) {
      gone.push(w.history[w.head]!, -1)
      w.history[w.head++] = EMPTY_ROW
    }
    if (gone.length === 0) return
    t.store.apply(gone.consolidate())
    t.store.commit()
    // compact the queue once its evicted prefix dominates
    if (w.head > 4096 && w.head * 2 > w.history.length) {
      w.history.splice(0, w.head)
      w.head = 0
    }
  }

  /** The watermark operators see: the minimum over `sources`. */
  watermarkOf(sources: readonly string[]): number {
    let min = Infinity
    for (const name of sources) {
      const e = this.engine.catalog.entries.get(name)
      const w = e && !isView(e) ? e.watermark : undefined
      if (w === undefined) return -Infinity
      const v = this.engine.ticks.watermarkPreview && w.pending > w.current ? w.pending : w.current
      if (v < min) min = v
    }
    return min
  }

  /** A change of a versioned table's visible rows as new versions: a key's new
   *  row is a version at its version time (replacing one at the same time); a key that only
   *  loses its row gets a deletion version at the row's version time, or at the watermark
   *  when that is later (a deletion ends the key's validity from now on in event time). */
  versionsOf(t: TableEntry, delta: ivm.ZSet): Row[] {
    const vs = t.versions!
    const width = t.columns.length
    const added = new Map<ivm.RowKey, Row>()
    const removed = new Map<ivm.RowKey, Row>()
    for (let i = 0; i < delta.length; i++) (delta.weights[i]! > 0 ? added : removed).set(vs.keyOf(delta.rows[i]!), delta.rows[i]!)
    const out: Row[] = []
    for (const row of added.values()) out.push([...row, true])
    for (const [k, old] of removed) {
      if (added.has(k)) continue
      const deletion = new Array<unknown>(width + 1).fill(null)
      for (const i of t.primaryKey) deletion[i] = old[i]
      deletion[vs.timeColumn] = Math.max(old[vs.timeColumn] as number, t.watermark!.current)
      deletion[width] = false
      out.push(deletion)
    }
    return out
  }

  /** Puts versions (history rows, in order) into a versioned table: a version below the
   *  watermark is late (recorded, not applied); the visible rows follow the latest version
   *  per key; both the visible rows and the history flow on in one step. */
  applyVersions(t: TableEntry, versions: readonly Row[]): void {
    this.engine.ticks.record({ op: 'versions', relation: t.name, rows: versions })
    const vs = t.versions!
    const w = t.watermark!
    const width = t.columns.length
    const history = new ivm.ZSet()
    const before = new Map<ivm.RowKey, Row | undefined>()
    let late: Row[] | undefined
    this.engine.ticks.streamsTouched.add(t)
    this.engine.ticks.touched.add(vs)
    for (const v of versions) {
      const live = v[width] === true
      if (live && (v[vs.timeColumn] as number) < w.current) {
        ;(late ??= []).push(v.slice(0, width))
        continue
      }
      const k = vs.keyOf(v)
      if (!before.has(k)) before.set(k, vs.latest(k))
      vs.put(v, history)
      if (live) {
        const c = w.candidate(v)
        if (typeof c === 'number' && c > w.pending) w.pending = c
      }
    }
    if (late !== undefined) this.recordLate(t, w, late)
    const visible = new ivm.ZSet()
    for (const [k, was] of before) {
      const now = vs.latest(k)
      if (now === was) continue
      const stored = t.store.rows.get(k)
      if (stored) visible.push(stored, -1)
      if (now && now[width] === true) visible.push(now.slice(0, width), 1)
    }
    if (history.length === 0) return
    this.engine.ticks.stageVersions(t, visible, history.consolidate())
    this.engine.ticks.apply()
  }

  /** Splits rows arriving at a stream into those applied and the late ones (event time below
   *  the watermark at the start of the tick), which are recorded in rivulet_late_events. The
   *  accepted rows raise the stream's pending watermark. */
  acceptOnTime(t: TableEntry, rows: readonly Row[]): readonly Row[] {
    const w = t.watermark
    if (w === undefined || rows.length === 0) return rows
    this.engine.ticks.streamsTouched.add(t)
    const column = w.column
    const current = w.current
    // the rows themselves unless some are late (then a copy from the first late one on)
    let onTime: Row[] | undefined
    let late: Row[] | undefined
    // a keyless stream's log is its own history; a keyed one tracks arrival order for retention
    const track = w.retention !== undefined && !(t.store instanceof AppendLog)
    // a candidate that grows with the event time is largest at the latest row: computed once
    const monotone = w.monotone
    let latest: Row | undefined
    let latestTs = -Infinity
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const ts = row[column] as number
      if (ts < current) {
        onTime ??= rows.slice(0, i)
        ;(late ??= []).push(row)
        continue
      }
      if (onTime !== undefined) onTime.push(row)
      if (track) w.tickRows.push(row)
      if (monotone) {
        if (ts > latestTs) {
          latestTs = ts
          latest = row
        }
      } else {
        const c = w.candidate(row)
        if (typeof c === 'number' && c > w.pending) w.pending = c
      }
    }
    if (latest !== undefined) {
      const c = w.candidate(latest)
      if (typeof c === 'number' && c > w.pending) w.pending = c
    }
    if (late !== undefined) {
      this.engine.ticks.record({ op: 'late', relation: t.name, rows: late })
      this.recordLate(t, w, late)
    }
    return onTime ?? rows
  }

  recordLate(t: TableEntry, w: StreamWatermark, rows: readonly Row[]): void {
    const counts = (this.engine.statements.lateInStatement ??= new Map())
    counts.set(t.name, (counts.get(t.name) ?? 0) + rows.length)
    const delta = new ivm.ZSet()
    const tick = this.engine.ticks.committed + 1
    for (const row of rows) {
      const seq = w.late + w.pendingLate + 1
      w.pendingLate++
      if (w.keep === 0) continue
      delta.push([t.name, seq, row[w.column], w.current, tick, recordText(row, t.columns)], 1)
    }
    if (w.keep !== undefined) {
      // keep the newest `keep` of this stream: drop the oldest beyond it
      const all: Row[] = []
      for (const r of this.engine.lateEventsTable.store.snapshot().rows) if (r[0] === t.name) all.push(r)
      const excess = all.length + delta.length - w.keep
      if (excess > 0) {
        all.sort((a, b) => (a[1] as number) - (b[1] as number))
        for (let i = 0; i < excess && i < all.length; i++) delta.push(all[i]!, -1)
        // rows of this very batch beyond the bound never enter
        if (excess > all.length) {
          const drop = excess - all.length
          const kept = new ivm.ZSet()
          let skipped = 0
          for (let i = 0; i < delta.length; i++) {
            if (delta.weights[i]! > 0 && skipped < drop) {
              skipped++
              continue
            }
            kept.push(delta.rows[i]!, delta.weights[i]!)
          }
          this.engine.ticks.applyDelta(this.engine.lateEventsTable, kept.consolidate())
          return
        }
      }
    }
    this.engine.ticks.applyDelta(this.engine.lateEventsTable, delta.consolidate())
  }

  readonly relationWatermarks = (relation: string) => {
    const e = this.engine.catalog.entries.get(relation)
    return e ? watermarksOf(e) : []
  }
}
