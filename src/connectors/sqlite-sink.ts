// `CREATE SINK s FROM v WITH (connector = 'sqlite', path = 'out.db', table = 't'
//   [, mode = 'changes' | 'upsert'] [, key = 'a,b'])`: a view's changes into a SQLite table.
//   changes  one row per change: the view's columns, then `tick` (BIGINT) and `diff` (+1 / −1)
//   upsert   exactly the view's rows, keyed by `key` (default: the view's GROUP BY columns)
// Effectively-once: each tick is written in one transaction of the target database together
// with the sink's progress (its last tick, in `_rivulet_sink_progress`), so a tick the engine
// replays after a crash is written once: if its transaction committed, the progress says so and
// it is skipped; if not, nothing of it is there. Values are written as the engine returns them
// (numbers as numbers, BIGINT as an integer, NUMERIC, timestamps and intervals as PostgreSQL's
// text, booleans as 1 / 0). State it keeps: the open target database and its last tick.

import path from 'node:path'
import Database from 'better-sqlite3'
import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState, type SourcePosition } from '../../grammar/index.js'
import { toResultValue } from '../sql-runtime/values.js'
import type { ConnectorOptions, SinkConnector, SinkContext, SinkStats } from './sources.js'
import { SinkCounters } from './sink-counters.js'

export const SQLITE_SINK_OPTIONS = ['connector', 'snapshot', 'path', 'table', 'mode', 'key'] as const

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

/** SQLite's column affinity for a column of type `t`. */
function affinity(t: string): string {
  if (t === 'smallint' || t === 'integer' || t === 'bigint' || t === 'boolean') return 'INTEGER'
  if (t === 'real' || t === 'double') return 'REAL'
  return 'TEXT'
}

export class SqliteSink implements SinkConnector {
  readonly #db: Database.Database
  readonly #context: SinkContext
  readonly #mode: 'changes' | 'upsert'
  readonly #insert: Database.Statement
  readonly #delete: Database.Statement | undefined
  readonly #progress: Database.Statement<[string, number]>
  #lastTick: number
  readonly #counters = new SinkCounters()

  constructor(options: ConnectorOptions, context: SinkContext, at: SourcePosition | undefined) {
    const file = options.text('path', undefined)
    const table = options.text('table', undefined)
    const mode = options.text('mode', 'changes')
    const keyText = options.text('key', undefined)
    options.finish(SQLITE_SINK_OPTIONS)
    if (file === undefined || table === undefined) throw new RivuletError(SqlState.invalidParameterValue, "a sqlite sink needs WITH (path = '…', table = '…')", at)
    if (mode !== 'changes' && mode !== 'upsert') throw new RivuletError(SqlState.invalidParameterValue, `sqlite sink option "mode" must be 'changes' or 'upsert', not '${mode}'`, at)
    this.#mode = mode
    this.#context = context
    const names = context.columns.map((c) => c.name)
    let key: number[] = []
    if (mode === 'upsert') {
      if (keyText !== undefined) {
        key = keyText.split(',').map((k) => {
          const i = names.indexOf(k.trim().toLowerCase())
          if (i < 0) throw new RivuletError(SqlState.undefinedColumn, `sqlite sink key column "${k.trim()}" is not a column of the sink's query (${names.join(', ')})`, at)
          return i
        })
      } else if (context.groupKey !== undefined && context.groupKey.length > 0) key = [...context.groupKey]
      else throw new RivuletError(SqlState.invalidParameterValue, "an upsert sink over a query without GROUP BY needs WITH (key = 'column, …')", at)
    }
    try {
      this.#db = new Database(path.resolve(file))
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `cannot open sqlite sink database "${file}": ${(e as Error).message}`, at)
    }
    try {
      this.#db.pragma('journal_mode = WAL')
      this.#db.pragma('synchronous = FULL')
      const cols = context.columns.map((c) => `${quote(c.name)} ${affinity(c.type)}`)
      if (mode === 'changes') cols.push('"tick" INTEGER NOT NULL', '"diff" INTEGER NOT NULL')
      else cols.push(`PRIMARY KEY (${key.map((i) => quote(names[i]!)).join(', ')})`)
      this.#db.exec(`CREATE TABLE IF NOT EXISTS ${quote(table)} (${cols.join(', ')});
        CREATE TABLE IF NOT EXISTS _rivulet_sink_progress (sink TEXT PRIMARY KEY, tick INTEGER NOT NULL)`)
      const all = names.map(quote)
      if (mode === 'changes') this.#insert = this.#db.prepare(`INSERT INTO ${quote(table)} (${[...all, '"tick"', '"diff"'].join(', ')}) VALUES (${[...all, 0, 0].map(() => '?').join(', ')})`)
      else {
        this.#insert = this.#db.prepare(`INSERT OR REPLACE INTO ${quote(table)} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})`)
        this.#delete = this.#db.prepare(`DELETE FROM ${quote(table)} WHERE ${key.map((i) => `${quote(names[i]!)} IS ?`).join(' AND ')}`)
        this.#keyColumns = key
      }
      this.#progress = this.#db.prepare('INSERT INTO _rivulet_sink_progress (sink, tick) VALUES (?, ?) ON CONFLICT (sink) DO UPDATE SET tick = excluded.tick')
      const last = this.#db.prepare('SELECT tick FROM _rivulet_sink_progress WHERE sink = ?').get(context.id) as { tick: number } | undefined
      this.#lastTick = last?.tick ?? -1
    } catch (e) {
      this.#db.close()
      if (e instanceof RivuletError) throw e
      throw new RivuletError(SqlState.ioError, `sqlite sink "${file}": ${(e as Error).message}`, at)
    }
  }

  #keyColumns: number[] = []

  #values(row: Row): unknown[] {
    const out = new Array<unknown>(row.length)
    for (let i = 0; i < row.length; i++) {
      const v = toResultValue(row[i], this.#context.columns[i]!.type as never)
      out[i] = typeof v === 'boolean' ? (v ? 1 : 0) : v
    }
    return out
  }

  write(tick: number, rows: readonly Row[], weights: readonly number[]): void {
    // written before a crash, replayed after it: already there, with its progress
    if (tick <= this.#lastTick) return
    const run = this.#db.transaction(() => {
      if (this.#mode === 'changes') {
        for (let i = 0; i < rows.length; i++) {
          const w = weights[i]!
          const values = this.#values(rows[i]!)
          for (let n = Math.abs(w); n > 0; n--) this.#insert.run(...values, tick, Math.sign(w))
        }
      } else {
        // retractions first: an update is −old +new under the same key
        for (let i = 0; i < rows.length; i++) if (weights[i]! < 0) this.#delete!.run(...this.#keyColumns.map((k) => this.#values(rows[i]!)[k]))
        for (let i = 0; i < rows.length; i++) if (weights[i]! > 0) this.#insert.run(...this.#values(rows[i]!))
      }
      this.#progress.run(this.#context.id, tick)
    })
    try {
      run()
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `sqlite sink could not write tick ${tick}: ${(e as Error).message}`)
    }
    this.#lastTick = tick
    this.#counters.count(weights)
  }

  get stats(): SinkStats {
    return this.#counters.stats
  }

  close(): void {
    if (this.#db.open) this.#db.close()
  }
}
