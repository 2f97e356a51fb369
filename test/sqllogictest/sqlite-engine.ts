// A stand-in engine over SQLite (better-sqlite3) with the shape the slt runner needs, so the
// runner can be tested without rivulet's engine. Materialized views become plain SQLite views;
// subscriptions are emulated by re-reading the view after every statement and emitting the
// difference. Errors carry a SQLSTATE-like code.

import Database from 'better-sqlite3'
import type { ChangeBatch, ColumnInfo, QueryResult, RelationInfo, ResultValue, SqlTypeName, StatementResult, SubscribeOptions } from '../../src/types.js'
import type { SltEngine } from '../../sqllogictest/runner.js'

class SqlError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
  }
}

function mapError(e: unknown): SqlError {
  const msg = (e as Error).message ?? String(e)
  if (/no such table|no such view/i.test(msg)) return new SqlError('42P01', msg)
  if (/no such column/i.test(msg)) return new SqlError('42703', msg)
  if (/UNIQUE constraint/i.test(msg)) return new SqlError('23505', msg)
  if (/syntax error|incomplete input/i.test(msg)) return new SqlError('42601', msg)
  if (/already exists/i.test(msg)) return new SqlError('42P07', msg)
  return new SqlError('XX000', msg)
}

function typeOf(decl: string | null): SqlTypeName {
  if (decl === null) return 'unknown'
  const d = decl.toUpperCase()
  if (d.includes('INT')) return 'integer'
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return 'double precision'
  if (d.includes('BOOL')) return 'boolean'
  return 'text'
}

function bindable(v: ResultValue): number | string | null {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v
}

function rewrite(sql: string): string {
  return sql.replace(/\bMATERIALIZED\s+VIEW\b/gi, 'VIEW')
}

interface Sub {
  readonly view: string
  readonly cb: (b: ChangeBatch) => void
  last: Map<string, { row: ResultValue[]; n: number }>
}

export class SqliteEngine implements SltEngine {
  readonly db = new Database(':memory:')
  readonly log: string[] = []
  #subs = new Set<Sub>()
  #tick = 0

  static open(): SqliteEngine {
    return new SqliteEngine()
  }

  get inTransaction(): boolean {
    return this.db.inTransaction
  }

  execute(sql: string): StatementResult[] {
    let changes = 0
    try {
      const s = rewrite(sql)
      const stmt = this.db.prepare(s)
      if (stmt.reader) stmt.all()
      else changes = stmt.run().changes
      // SQLite resolves a view's names only when it is used; check them now, as Postgres does.
      const view = /^\s*CREATE\s+(?:MATERIALIZED\s+)?VIEW\s+(\w+)/i.exec(sql)
      if (view !== null) {
        try {
          this.db.prepare(`SELECT * FROM ${view[1]} LIMIT 0`).all()
        } catch (e) {
          this.db.prepare(`DROP VIEW ${view[1]}`).run()
          throw e
        }
      }
    } catch (e) {
      throw mapError(e)
    }
    this.log.push(sql)
    this.#tick++
    if (!this.db.inTransaction) this.#publish()
    return [{ command: 'OK', rowCount: changes }]
  }

  query(sql: string): QueryResult {
    try {
      const stmt = this.db.prepare(rewrite(sql))
      const columns: ColumnInfo[] = stmt.columns().map((c) => ({ name: c.name, type: typeOf(c.type) }))
      const rows = stmt.raw().all() as ResultValue[][]
      return { columns, rows }
    } catch (e) {
      throw mapError(e)
    }
  }

  #read(view: string): Map<string, { row: ResultValue[]; n: number }> {
    const out = new Map<string, { row: ResultValue[]; n: number }>()
    for (const row of this.query(`SELECT * FROM ${view}`).rows) {
      const k = JSON.stringify(row)
      const e = out.get(k)
      if (e) e.n++
      else out.set(k, { row, n: 1 })
    }
    return out
  }

  #publish(): void {
    for (const s of this.#subs) {
      let now: Map<string, { row: ResultValue[]; n: number }>
      try {
        now = this.#read(s.view)
      } catch {
        continue
      }
      const changes: [ResultValue[], number][] = []
      for (const [k, e] of now) {
        const d = e.n - (s.last.get(k)?.n ?? 0)
        if (d !== 0) changes.push([e.row, d])
      }
      for (const [k, e] of s.last) if (!now.has(k)) changes.push([e.row, -e.n])
      s.last = now
      if (changes.length > 0) s.cb({ tick: this.#tick, columns: [], changes })
    }
  }

  subscribe(view: string, cb: (batch: ChangeBatch) => void, options: SubscribeOptions = {}): () => void {
    const sub: Sub = { view, cb, last: new Map() }
    const now = this.#read(view)
    if (options.snapshot !== false) {
      const changes: [ResultValue[], number][] = [...now.values()].map((e) => [e.row, e.n])
      if (changes.length > 0) cb({ tick: this.#tick, columns: [], changes })
    }
    sub.last = now
    this.#subs.add(sub)
    return () => this.#subs.delete(sub)
  }

  relations(): RelationInfo[] {
    const rows = this.db.prepare("SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view')").all() as { name: string; type: string; sql: string }[]
    return rows.map((r) => ({
      name: r.name,
      kind: r.type === 'view' ? 'view' : 'table',
      columns: this.query(`SELECT * FROM "${r.name}" LIMIT 0`).columns,
      primaryKey: [],
      ...(r.type === 'view' ? { definition: r.sql.replace(/^[\s\S]*?\bAS\b/i, '') } : {}),
    }))
  }

  #columnNames(table: string): string[] {
    // Like Engine.insert/delete: a name in double quotes is taken as is.
    table = table.replace(/^"(.*)"$/, '$1')
    return (this.db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name)
  }

  #afterChange(): void {
    this.#tick++
    if (!this.db.inTransaction) this.#publish()
  }

  /** Inserts rows given in column order (like Engine.insert). */
  insert(table: string, rows: readonly (readonly ResultValue[])[]): number {
    const cols = this.#columnNames(table)
    if (cols.length === 0) throw new SqlError('42P01', `no such table: ${table}`)
    table = table.replace(/^"(.*)"$/, '$1')
    const stmt = this.db.prepare(`INSERT INTO "${table}" VALUES (${cols.map(() => '?').join(', ')})`)
    let n = 0
    for (const row of rows) n += stmt.run(...row.map(bindable)).changes
    this.#afterChange()
    return n
  }

  /** Deletes rows given in column order; one copy per row listed (tables here are bags). */
  delete(table: string, rows: readonly (readonly ResultValue[])[]): number {
    const cols = this.#columnNames(table)
    if (cols.length === 0) throw new SqlError('42P01', `no such table: ${table}`)
    table = table.replace(/^"(.*)"$/, '$1')
    const match = cols.map((c) => `"${c}" IS ?`).join(' AND ')
    const stmt = this.db.prepare(`DELETE FROM "${table}" WHERE rowid = (SELECT rowid FROM "${table}" WHERE ${match} LIMIT 1)`)
    let n = 0
    for (const row of rows) n += stmt.run(...row.map(bindable)).changes
    this.#afterChange()
    return n
  }

  close(): void {
    this.db.close()
  }
}
