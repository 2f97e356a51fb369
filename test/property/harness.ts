// Runs one generated case against the engine: tables, views (created at chosen points, so some
// are backfilled), subscribers, then a sequence of ticks. After every tick it checks
//   (a) each view = the reference evaluation of its query over the current tables,
//   (b) each subscriber's integral (snapshot + every batch) = the view's contents,
//   (c) a failed statement / rolled-back transaction changed nothing (tables and views),
// and the tables themselves against a model that applies the DML independently (with the
// reference evaluator for WHERE and SET). Optionally mirrors everything into SQLite and
// compares each view with SQLite's answer to the same query.

import type Database from 'better-sqlite3'
import { RivuletError } from '../../grammar/index.js'
import { Engine } from '../../src/engine/engine.js'
import type { ChangeBatch, ResultValue } from '../../src/types.js'
import { Reference, multisetDiff, key, type Row } from '../reference/evaluate.js'
import { KNOWN_BUGS_FIXED, insertSql, rowValues, sqlLiteral, stmtSql, createTableSql, type Schema, type Stmt, type Tick, type OutType } from './gen.js'

export interface ViewDef {
  readonly name: string
  readonly sql: string
  readonly types: readonly OutType[]
  /** Number of ticks run before the view is created. */
  readonly createAt: number
  readonly materialized: boolean
  /** The query ends in ORDER BY over all its columns (ad hoc reads are compared in order). */
  readonly ordered?: boolean
}

export interface Case {
  readonly schema: Schema
  readonly views: readonly ViewDef[]
  readonly ticks: readonly Tick[]
}

export interface RunOptions {
  /** Compare views with the reference evaluator (and tables with the model). */
  readonly reference: boolean
  /** Mirror into this SQLite database and compare views with it. */
  readonly sqlite?: Database.Database
}

type Tables = Map<string, Row[]>

/** Counters over all cases run in this process (printed with RIVULET_STATS=1). */
export const STATS = { cases: 0, ticks: 0, failedTicks: 0, rolledBack: 0, viewChecks: 0, nonEmptyViewChecks: 0, viewRows: 0, tableRows: 0, tableChecks: 0 }

interface Resolved {
  readonly stmt: Stmt
  readonly sql: string
  /** Rows of an insertDup, resolved. */
  readonly rows?: readonly Row[]
}

class CaseFailure extends Error {}

interface Sub {
  readonly view: string
  readonly acc: Map<string, { row: ResultValue[]; n: number }>
  lastTick: number
  stop: () => void
}

export function runCase(c: Case, opts: RunOptions): void {
  const db = Engine.open()
  const log: string[] = []
  const fail = (msg: string): never => {
    throw new CaseFailure(`${msg}\n-- script so far:\n${log.join('\n')}`)
  }
  const sqlite = opts.sqlite
  const exec = (sql: string) => {
    log.push(`${sql};`)
    return db.execute(sql)
  }
  for (const t of c.schema.tables) {
    exec(createTableSql(t))
    sqlite?.exec(createTableSql(t, true))
  }
  const model: Tables = new Map(c.schema.tables.map((t) => [t.name, []]))
  const views: ViewDef[] = []
  const subs: Sub[] = []
  const viewSql = new Map<string, string>()

  const bindCache = new Map()
  const reference = (tables: Tables = model) => new Reference(db.relations(), tables, { viewSql, bindCache })

  const createViews = (tickNo: number) => {
    for (const v of c.views) {
      if (v.createAt !== tickNo) continue
      try {
        exec(`CREATE ${v.materialized ? 'MATERIALIZED ' : ''}VIEW ${v.name} AS ${v.sql}`)
      } catch (e) {
        fail(`CREATE VIEW failed: ${describe(e)}`)
      }
      sqlite?.exec(`CREATE VIEW ${v.name} AS ${v.sql}`)
      views.push(v)
      viewSql.set(v.name, v.sql)
      // one subscriber with the snapshot, one without (its integral starts from the contents
      // at subscription time)
      for (const snapshot of [true, false]) {
        const sub: Sub = { view: v.name, acc: new Map(), lastTick: snapshot ? -1 : db.tick, stop: () => {} }
        if (!snapshot) {
          for (const row of db.query(`SELECT * FROM ${v.name}`).rows) {
            const k = JSON.stringify(row)
            const e = sub.acc.get(k)
            if (e) e.n++
            else sub.acc.set(k, { row, n: 1 })
          }
        }
        let first = snapshot
        sub.stop = db.subscribe(
          v.name,
          (b: ChangeBatch) => {
            if (!first && b.tick <= sub.lastTick) fail(`subscriber of ${v.name}: tick ${b.tick} after ${sub.lastTick}`)
            first = false
            sub.lastTick = b.tick
            const seen = new Set<string>()
            for (const [row, diff] of b.changes) {
              const k = JSON.stringify(row)
              if (diff === 0) fail(`subscriber of ${v.name}: zero diff for ${k} at tick ${b.tick}`)
              if (seen.has(k)) fail(`subscriber of ${v.name}: batch of tick ${b.tick} not consolidated (${k} twice)`)
              seen.add(k)
              const e = sub.acc.get(k)
              if (e) e.n += diff
              else sub.acc.set(k, { row, n: diff })
            }
          },
          { snapshot },
        ).stop
        subs.push(sub)
      }
      check('after CREATE VIEW')
    }
  }

  /** Every table's and view's contents (rows as JSON, sorted). */
  type Snapshot = Map<string, string[]>
  let last: Snapshot = new Map()
  const read = (name: string, into: Snapshot) => {
    const rows = db.query(`SELECT * FROM ${name}`).rows
    into.set(name, sortedJson(rows))
    return rows
  }

  /** Checks the state after a tick; remembers it as the state before the next one. */
  const check = (when: string) => {
    const snap: Snapshot = new Map()
    STATS.viewChecks += views.length
    last = snap
    // tables = model
    for (const t of c.schema.tables) {
      const rows = read(t.name, snap)
      STATS.tableChecks++
      STATS.tableRows += rows.length
      const d = multisetDiff(rows, model.get(t.name)!, 0)
      if (d) fail(`${when}: table ${t.name} differs from the model\n  ${d}`)
    }
    const ref = opts.reference ? reference() : undefined
    for (const v of views) {
      const actual = read(v.name, snap)
      if (actual.length > 0) STATS.nonEmptyViewChecks++
      STATS.viewRows += actual.length
      if (ref) {
        let expected: ResultValue[][]
        try {
          expected = ref.query(v.sql).rows
        } catch (e) {
          return fail(`${when}: reference evaluation of ${v.name} failed: ${describe(e)}`)
        }
        const d = multisetDiff(actual, expected)
        if (d) fail(`${when}: view ${v.name} differs from the reference\n  ${d}`)
      }
      if (sqlite) {
        const rows = sqlite.prepare(v.sql).raw(true).all() as unknown[][]
        const d = multisetDiff(actual, rows)
        if (d) fail(`${when}: view ${v.name} differs from SQLite\n  ${d}`)
        // the same query read ad hoc (rendered, backfilled and released per read)
        const adhoc = db.query(v.sql).rows
        if (v.ordered) {
          if (adhoc.length !== rows.length || adhoc.some((r, i) => multisetDiff([r], [rows[i]!]) !== undefined)) {
            fail(`${when}: ad hoc ${v.sql}\n  gives rows in another order than SQLite\n  rivulet: ${JSON.stringify(adhoc)}\n  sqlite:  ${JSON.stringify(rows)}`)
          }
        } else {
          const d2 = multisetDiff(adhoc, rows)
          if (d2) fail(`${when}: ad hoc ${v.sql}\n  differs from SQLite\n  ${d2}`)
        }
      }
      for (const sub of subs.filter((s) => s.view === v.name)) {
        const integral: ResultValue[][] = []
        for (const { row, n } of sub.acc.values()) {
          if (n < 0) fail(`${when}: subscriber of ${v.name} has ${JSON.stringify(row)} with weight ${n}`)
          for (let i = 0; i < n; i++) integral.push(row)
        }
        const d = multisetDiff(integral, actual, 0)
        if (d) fail(`${when}: subscriber integral of ${v.name} differs from the view\n  ${d}`)
      }
    }
    if (sqlite) {
      for (const t of c.schema.tables) {
        const d = multisetDiff(db.query(`SELECT * FROM ${t.name}`).rows, sqlite.prepare(`SELECT * FROM ${t.name}`).raw(true).all() as unknown[][], 0)
        if (d) fail(`${when}: table ${t.name} differs from SQLite\n  ${d}`)
      }
    }
  }

  // ---------------------------------------------------------------- the model of the DML

  /** Resolves run-time picks of a statement against `state`. */
  const resolveStmt = (s: Stmt, state: Tables): Resolved => {
    if (s.kind !== 'insertDup') return { stmt: s, sql: stmtSql(c.schema, s) }
    const t = c.schema.tables[s.table]!
    const rows = state.get(t.name)!
    const row = rowValues(t, s.row)
    if (rows.length > 0) row[0] = rows[s.pick % rows.length]![0] as number | string | null
    return { stmt: s, sql: stmtSql(c.schema, s, [row]), rows: [row] }
  }

  /** Applies one statement to `state` (in place); returns the expected error code, if any. */
  const modelStmt = ({ stmt: s, rows: resolvedRows }: Resolved, state: Tables): string | undefined => {
    const t = c.schema.tables[s.table]!
    const rows = state.get(t.name)!
    const ref = reference(state)
    try {
      switch (s.kind) {
        case 'insert':
        case 'insertDup': {
          const stmtRows = resolvedRows ?? (s.kind === 'insert' ? s.rows.map((r) => rowValues(t, r)) : [])
          return modelInsert(t.pk, rows, stmtRows, s.kind === 'insert' && s.onConflictDoNothing === true)
        }
        case 'insertSelect':
          return modelInsert(t.pk, rows, ref.query(s.select).rows)
        case 'delete': {
          const gone = ref.query(`SELECT * FROM ${t.name}${s.where ? ` WHERE ${s.where}` : ''}`).rows
          for (const g of gone) removeOne(rows, g)
          return undefined
        }
        case 'update': {
          const exprs = t.columns.map((col, i) => s.sets.find(([ci]) => ci === i)?.[1] ?? `${t.name}.${col.name}`)
          const width = t.columns.length
          const res = ref.query(`SELECT ${t.columns.map((col) => `${t.name}.${col.name}`).join(', ')}, ${exprs.join(', ')} FROM ${t.name}${s.where ? ` WHERE ${s.where}` : ''}`).rows
          const after = [...rows]
          for (const r of res) {
            const newRow = r.slice(width)
            if (t.pk && newRow[0] === null) return '23502'
            removeOne(after, r.slice(0, width))
            after.push(newRow)
          }
          if (t.pk && new Set(after.map((r) => key([r[0]]))).size !== after.length) return '23505'
          rows.length = 0
          rows.push(...after)
          return undefined
        }
      }
    } catch (e) {
      if (e instanceof RivuletError || (e instanceof Error && 'code' in e)) return (e as { code: string }).code
      throw e
    }
  }

  const cloneTables = (m: Tables): Tables => new Map([...m].map(([k, v]) => [k, [...v]]))

  const runTick = (tick: Tick, no: number) => {
    const before = last
    let expectError: string | undefined
    let engineError: unknown
    let next = cloneTables(model)
    let changes = true
    const sqliteStmts: string[] = []
    const engineTry = (f: () => void) => {
      try {
        f()
      } catch (e) {
        if (!(e instanceof RivuletError)) fail(`tick ${no}: non-RivuletError thrown: ${describe(e)}`)
        if ((e as RivuletError).code === 'XX000') fail(`tick ${no}: internal error: ${describe(e)}`)
        engineError = e
      }
    }
    switch (tick.kind) {
      case 'stmt': {
        const r = resolveStmt(tick.stmt, next)
        expectError = modelStmt(r, next)
        sqliteStmts.push(r.sql)
        engineTry(() => exec(r.sql))
        break
      }
      case 'txn': {
        // statements after one the model expects to fail are not sent
        for (const s of tick.stmts) {
          const r = resolveStmt(s, next)
          sqliteStmts.push(r.sql)
          expectError = modelStmt(r, next)
          if (expectError) break
        }
        const sqls = sqliteStmts
        if (expectError || tick.end === 'rollback') changes = false
        const end = tick.end === 'commit' ? 'COMMIT' : 'ROLLBACK'
        if (tick.oneString) {
          engineTry(() => exec(['BEGIN', ...sqls, end].join('; ')))
        } else {
          engineTry(() => {
            exec('BEGIN')
            for (const sql of sqls) exec(sql)
            exec(end)
          })
        }
        if (engineError !== undefined) {
          if (!db.inTransaction) fail(`tick ${no}: a failed statement in a transaction block ended the block`)
          // the aborted block refuses further statements, then COMMIT/ROLLBACK ends it
          try {
            exec('SELECT 1')
            fail(`tick ${no}: an aborted transaction accepted a statement`)
          } catch (e) {
            if (!(e instanceof RivuletError) || e.code !== '25P02') fail(`tick ${no}: expected 25P02 in an aborted transaction, got ${describe(e)}`)
          }
          const r = exec(end)
          if (r[0]?.command !== 'ROLLBACK') fail(`tick ${no}: ${end} of an aborted transaction answered ${r[0]?.command}`)
        }
        break
      }
      case 'apiInsert': {
        const t = c.schema.tables[tick.table]!
        const rows = tick.rows.map((r) => rowValues(t, r))
        log.push(`-- db.insert('${t.name}', ${JSON.stringify(rows)})`)
        expectError = modelInsert(t.pk, next.get(t.name)!, rows)
        sqliteStmts.push(insertSql(t, rows))
        engineTry(() => db.insert(t.name, rows))
        break
      }
      case 'apiDelete': {
        const t = c.schema.tables[tick.table]!
        const current = next.get(t.name)!
        let rows = [...(current.length > 0 ? tick.picks.map((p) => [...current[p % current.length]!]) : []), ...tick.extra.map((r) => rowValues(t, r))]
        if (t.pk && !KNOWN_BUGS_FIXED.apiDeleteDuplicateKeys) rows = rows.filter((r, i) => rows.findIndex((x) => key([x[0]]) === key([r[0]])) === i)
        log.push(`-- db.delete('${t.name}', ${JSON.stringify(rows)})`)
        const cols = t.columns.map((col) => col.name)
        if (t.pk) {
          const keys = new Set(rows.map((r) => key([r[0]])))
          const remaining = current.filter((r) => !keys.has(key([r[0]])))
          for (const k of keys) {
            const r = current.find((x) => key([x[0]]) === k)
            if (r) sqliteStmts.push(`DELETE FROM ${t.name} WHERE ${cols[0]} = ${sqlLiteral(r[0])}`)
          }
          current.length = 0
          current.push(...remaining)
        } else {
          for (const r of rows) {
            if (removeOne(current, r)) sqliteStmts.push(`DELETE FROM ${t.name} WHERE rowid = (SELECT rowid FROM ${t.name} WHERE ${cols.map((n, i) => `${n} IS ${sqlLiteral(r[i])}`).join(' AND ')} LIMIT 1)`)
          }
        }
        engineTry(() => db.delete(t.name, rows))
        break
      }
    }
    if (opts.reference) {
      if ((engineError === undefined) !== (expectError === undefined)) {
        fail(`tick ${no}: engine ${engineError === undefined ? 'succeeded' : `failed (${describe(engineError)})`} but the model expected ${expectError === undefined ? 'success' : `error ${expectError}`}`)
      }
      if (engineError !== undefined && (engineError as RivuletError).code !== expectError) {
        fail(`tick ${no}: engine error ${describe(engineError)}, model expected ${expectError}`)
      }
    }
    if (sqlite) {
      // SQLite: run the same statements; the error verdict must agree
      let sqliteError: unknown
      if (tick.kind === 'stmt' || tick.kind === 'apiInsert') {
        try {
          for (const s of sqliteStmts) sqlite.exec(s)
        } catch (e) {
          sqliteError = e
        }
      } else if (tick.kind === 'txn') {
        sqlite.exec('BEGIN')
        try {
          for (const s of sqliteStmts) sqlite.exec(s)
        } catch (e) {
          sqliteError = e
        }
        sqlite.exec(sqliteError !== undefined || tick.end === 'rollback' ? 'ROLLBACK' : 'COMMIT')
      } else {
        for (const s of sqliteStmts) sqlite.exec(s)
      }
      if ((sqliteError === undefined) !== (engineError === undefined)) {
        fail(`tick ${no}: engine ${engineError === undefined ? 'succeeded' : `failed (${describe(engineError)})`} but SQLite ${sqliteError === undefined ? 'succeeded' : `failed (${describe(sqliteError)})`}`)
      }
    }
    STATS.ticks++
    if (engineError !== undefined) STATS.failedTicks++
    else if (!changes) STATS.rolledBack++
    if (engineError !== undefined || !changes) {
      const after = new Map<string, string[]>()
      for (const name of before.keys()) read(name, after)
      for (const [name, rows] of before) {
        const now = after.get(name)!
        if (rows.join('\n') !== now.join('\n')) fail(`tick ${no}: ${engineError !== undefined ? 'failed statement' : 'rolled back transaction'} changed ${name}\n  before: ${rows.join(' ')}\n  after:  ${now.join(' ')}`)
      }
    } else {
      for (const [k, v] of next) model.set(k, v)
    }
    check(`after tick ${no}`)
  }

  STATS.cases++
  try {
    check('at the start')
    createViews(0)
    for (let i = 0; i < c.ticks.length; i++) {
      runTick(c.ticks[i]!, i + 1)
      createViews(i + 1)
    }
  } finally {
    for (const s of subs) s.stop()
    db.close()
  }
}

// ---------------------------------------------------------------------------------- helpers

function modelInsert(pk: boolean, rows: Row[], newRows: readonly Row[], onConflictDoNothing = false): string | undefined {
  if (pk && newRows.some((r) => r[0] === null)) return '23502'
  const kept: Row[] = []
  if (pk) {
    const keys = new Set(rows.map((r) => key([r[0]])))
    for (const r of newRows) {
      const k = key([r[0]])
      if (keys.has(k)) {
        if (onConflictDoNothing) continue
        return '23505'
      }
      keys.add(k)
      kept.push(r)
    }
  } else kept.push(...newRows)
  rows.push(...kept)
  return undefined
}

function removeOne(rows: Row[], r: readonly unknown[]): boolean {
  const k = key(r)
  const i = rows.findIndex((x) => key(x) === k)
  if (i < 0) return false
  rows.splice(i, 1)
  return true
}


function sortedJson(rows: readonly unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort()
}

export function describe(e: unknown): string {
  if (e instanceof RivuletError) return `${e.code} ${e.message}`
  if (e instanceof Error) return `${e.constructor.name}: ${e.message}\n${e.stack?.split('\n').slice(1, 6).join('\n')}`
  return String(e)
}
