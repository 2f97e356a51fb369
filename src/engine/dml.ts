// DML: INSERT (VALUES or a query; ON CONFLICT / REPLACE / OR IGNORE), UPDATE, DELETE, TRUNCATE, and the
// API's insert() / delete(): rows are computed, checked (NOT NULL, keys, streams take inserts
// only) and handed to the tick pipeline as one consolidated delta per statement.

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { QueryBinder, Scope, bindExpr, canAssignmentCast, coerce, typeDisplayName, visitExpr, withTypeModifier, hasSubquery, type Column, type LogicalPlan, type ScalarExpr, type SqlType, type TypeModifier } from '../../planner/index.js'
import { type TableEntry } from './catalog.js'
import { compileProjection, compileScalar, evaluateConstant, type RowFn } from '../sql-runtime/compile-scalar.js'
import type { InputRow, StatementResult } from '../types.js'
import { isSystemRelationName } from './system-catalog.js'
import { applyTypeModifier, castValue, fromInputValue, toResultValue } from '../sql-runtime/values.js'
import type { StatementContext } from './internals.js'
import { lastPart, foldName } from './names.js'
import type { EngineInternals } from './internals.js'

/** What an INSERT does with a row whose primary key is already stored (or proposed earlier
 *  in the same statement). */
type ConflictPolicy =
  /** plain INSERT: 23505 */
  | { readonly kind: 'error' }
  /** `ON CONFLICT DO NOTHING`, `INSERT OR IGNORE`: skip the row; SQLite's OR IGNORE
   *  (`sqlite`) also skips a row with NULL in a NOT NULL column */
  | { readonly kind: 'ignore'; readonly sqlite: boolean }
  /** `REPLACE`, `INSERT OR REPLACE`: the row replaces the stored one */
  | { readonly kind: 'replace' }
  /** `ON CONFLICT (key) DO UPDATE SET … [WHERE …]`: `set` holds one expression per table
   *  column and `where` the condition, both over the row [stored columns…, excluded columns…] */
  | { readonly kind: 'update'; readonly set: readonly ScalarExpr[]; readonly where: ScalarExpr | undefined }
/** An expression stored into column i of t: the assignment cast, then the column's type
 *  modifier. */
function assignTo(t: TableEntry, i: number, e: ScalarExpr, ctx: StatementContext, at: number): ScalarExpr {
  const c = t.columns[i]!
  return withTypeModifier(assignmentCast(e, c.type, c.name, ctx, at), t.modifiers?.[i], false)
}
/** Applies the type modifiers of a row's columns in place (API and COPY input). */
function applyModifiers(modifiers: readonly (TypeModifier | undefined)[], row: unknown[]): void {
  for (let i = 0; i < modifiers.length; i++) {
    const m = modifiers[i]
    if (m !== undefined && row[i] !== null) row[i] = applyTypeModifier(row[i], m, false)
  }
}
function assignmentCast(e: ScalarExpr, t: SqlType, column: string, ctx: StatementContext, at: number): ScalarExpr {
  if (e.type === t || e.type === 'unknown') return e.type === 'unknown' ? (e.kind === 'literal' && e.value === null ? { kind: 'literal', value: null, type: t } : { kind: 'cast', arg: e, type: t }) : e
  // PostgreSQL's assignment casts (numeric ↔ numeric, anything → text, timestamptz →
  // timestamp, …), and CHAR(n) read as its text
  if (canAssignmentCast(e.type, t) || (e.type === 'bpchar' && t !== 'unknown')) return { kind: 'cast', arg: e, type: t }
  throw new RivuletError(SqlState.datatypeMismatch, `column "${column}" is of type ${typeDisplayName(t)} but expression is of type ${typeDisplayName(e.type)}`, positionAt(ctx.text, at))
}
/** Value of a constant expression; literals and casts of literals skip code generation. */
function constantValue(e: ScalarExpr): unknown {
  if (e.kind === 'literal') return e.value
  if (e.kind === 'cast' && e.arg.kind === 'literal') return e.arg.value === null ? null : castValue(e.arg.value, e.arg.type === 'unknown' ? 'text' : e.arg.type, e.type)
  return evaluateConstant(e)
}

export class Dml {
  constructor(private readonly engine: EngineInternals) {}

  /** The NOT NULL column positions of each table (for checking source batches). */
  readonly notNullColumns = new WeakMap<TableEntry, readonly number[]>()

  insert(table: string, rows: readonly InputRow[]): number {
    this.engine.checkOpen()
    this.engine.sessions.checkNotAborted()
    this.engine.sessions.prepare()
    const t = this.table(foldName(table))
    return this.engine.statements.guarded(() =>
      this.engine.ticks.onClock(() => {
        const converted = rows.map((r) => this.convertInput(t, r))
        return this.engine.ticks.run(() => this.insertRows(t, converted, { text: '', serverFiles: false, stdin: undefined }))
      }),
    )
  }

  delete(table: string, rows: readonly InputRow[]): number {
    this.engine.checkOpen()
    this.engine.sessions.checkNotAborted()
    this.engine.sessions.prepare()
    const t = this.table(foldName(table))
    this.refuseStream(t, 'DELETE')
    const converted = rows.map((r) => this.convertInput(t, r))
    return this.engine.statements.guarded(() => this.engine.ticks.run(() => {
      const delta = new ivm.ZSet()
      const seen = new Set<ivm.RowKey>()
      for (const row of converted) {
        if (t.store.keyOf) {
          // a key listed twice is still one row to delete
          const k = t.store.keyOf(row)
          const existing = t.store.rows.get(k)
          if (existing && !seen.has(k)) {
            seen.add(k)
            delta.push(existing, -1)
          }
        } else if (t.store.rows.has(ivm.rowKey(row))) delta.push(row, -1)
      }
      const c = delta.consolidate()
      // a bag row deleted more often than it exists is deleted as often as it exists
      if (!t.store.keyOf) for (let i = 0; i < c.rows.length; i++) c.weights[i] = -Math.min(-c.weights[i]!, t.store.counts.get(ivm.rowKey(c.rows[i]!)) ?? 0)
      this.engine.ticks.applyDelta(t, c)
      return -c.weights.reduce((a, b) => a + b, 0)
    }))
  }

  // ------------------------------------------------------------------------- DML

  insertStatement(s: ast.InsertStmt, ctx: StatementContext): StatementResult {
    const t = this.tableNamed(s.table, ctx)
    if (s.returning) throw new RivuletError(SqlState.featureNotSupported, 'INSERT ... RETURNING is not supported yet', positionAt(ctx.text, s.span.start))
    // the conflict clause is checked and bound before any row is computed, as in Postgres
    const policy = this.conflictPolicy(s, t, ctx)
    const targetCols = s.columns
      ? s.columns.map((c) => {
          const i = t.columns.findIndex((x) => x.name === c)
          if (i < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${c}" of relation "${t.name}" does not exist`, positionAt(ctx.text, s.span.start))
          return i
        })
      : t.columns.map((_, i) => i)
    let rows: Row[]
    const src = s.source
    if (src.body.kind === 'values' && src.with.length === 0 && src.orderBy.length === 0 && !src.limit && !src.offset) {
      // VALUES rows are typed by their target columns (an untyped NULL or '2024-01-01'
      // literal takes the column's type), and evaluated without a dataflow.
      const exprCtx = this.engine.reads.exprCtx(new Scope([]), ctx, 'VALUES')
      rows = src.body.rows.map((r) => {
        if (r.length > targetCols.length) throw new RivuletError(SqlState.syntaxError, 'INSERT has more expressions than target columns', positionAt(ctx.text, r[targetCols.length]!.span.start))
        if (r.length < targetCols.length && s.columns) throw new RivuletError(SqlState.syntaxError, 'INSERT has more target columns than expressions', positionAt(ctx.text, src.body.span.start))
        const exprs = t.columns.map((_, i): ScalarExpr | undefined => {
          const at = targetCols.indexOf(i)
          if (at >= 0 && at < r.length) return assignTo(t, i, bindExpr(r[at]!, exprCtx), ctx, r[at]!.span.start)
          return t.defaults[i]
        })
        let subquery = false
        for (const e of exprs) if (e) visitExpr(e, (x) => void (x.kind === 'subquery' && (subquery = true)))
        // a row with a subquery is computed by the dataflow, as SELECT (SELECT …) is (the
        // constant path cannot: `VALUES ((SELECT 11))` was an internal error, "subquery
        // survived decorrelation")
        if (subquery) {
          const one: LogicalPlan = { kind: 'values', rows: [[]], columns: [] }
          const all = exprs.map((e, i): ScalarExpr => e ?? { kind: 'literal', value: null, type: t.columns[i]!.type })
          return this.engine.reads.evaluateOrdered({ kind: 'project', input: one, exprs: all, columns: t.columns }).rows[0]!
        }
        return exprs.map((e) => (e ? constantValue(e) : null))
      })
    } else {
      const { plan, columns } = this.engine.reads.bindQuery(src, ctx, true)
      if (columns.length > targetCols.length) throw new RivuletError(SqlState.syntaxError, 'INSERT has more expressions than target columns', positionAt(ctx.text, src.span.start))
      if (columns.length < targetCols.length && s.columns) throw new RivuletError(SqlState.syntaxError, 'INSERT has more target columns than expressions', positionAt(ctx.text, src.span.start))
      // project the source onto the table's columns: assignment casts, defaults, NULLs
      const exprs: ScalarExpr[] = t.columns.map((c, i) => {
        const at = targetCols.indexOf(i)
        if (at >= 0 && at < columns.length) return assignTo(t, i, { kind: 'column', index: at, type: columns[at]!.type }, ctx, src.span.start)
        return t.defaults[i] ?? { kind: 'literal', value: null, type: c.type }
      })
      const projected: LogicalPlan = { kind: 'project', input: plan, exprs, columns: t.columns }
      rows = this.engine.reads.evaluateOrdered(projected).rows
    }
    let n: number
    switch (policy.kind) {
      case 'error':
        n = this.insertRows(t, rows, ctx)
        break
      case 'ignore':
        n = this.insertRows(t, policy.sqlite ? rows.filter((r) => r.every((v, i) => v !== null || !t.notNull[i])) : rows, ctx, true)
        break
      case 'replace':
        n = this.replaceRows(t, rows)
        break
      case 'update':
        n = this.upsertRows(t, rows, policy)
        break
    }
    return { command: `INSERT 0 ${n}`, rowCount: n }
  }

  /** Checks the conflict clause of an INSERT against the table and binds ON CONFLICT DO
   *  UPDATE's expressions. */
  conflictPolicy(s: ast.InsertStmt, t: TableEntry, ctx: StatementContext): ConflictPolicy {
    const oc = s.onConflict
    if (s.or !== undefined) {
      if (oc) throw new RivuletError(SqlState.featureNotSupported, `${s.replaceInto ? 'REPLACE' : `INSERT OR ${s.or.toUpperCase()}`} cannot be combined with ON CONFLICT`, positionAt(ctx.text, oc.span.start))
      return s.or === 'replace' ? { kind: 'replace' } : { kind: 'ignore', sqlite: true }
    }
    if (!oc) return { kind: 'error' }
    const at = positionAt(ctx.text, oc.span.start)
    if (oc.target.length > 0) {
      for (const c of oc.target) if (!t.columns.some((x) => x.name === c)) throw new RivuletError(SqlState.undefinedColumn, `column "${c}" does not exist`, at)
      // the only unique constraint a table has is its primary key
      const pk = new Set(t.primaryKey.map((i) => t.columns[i]!.name))
      const target = new Set(oc.target)
      if (pk.size === 0 || target.size !== pk.size || [...target].some((c) => !pk.has(c))) throw new RivuletError(SqlState.invalidColumnReference, 'there is no unique or exclusion constraint matching the ON CONFLICT specification', at)
    } else if (oc.set) throw new RivuletError(SqlState.syntaxError, 'ON CONFLICT DO UPDATE requires inference specification or constraint name', at)
    if (!oc.set) return { kind: 'ignore', sqlite: false }
    // SET and WHERE see the stored row (`col`, `t.col`) and the proposed one (`excluded.col`,
    // only qualified: a bare name is the stored row's column, as in SQLite)
    const scope = new Scope([
      ...t.columns.map((c) => ({ table: t.name, name: c.name, type: c.type, hidden: false })),
      ...t.columns.map((c) => ({ table: 'excluded', name: c.name, type: c.type, hidden: true })),
    ])
    const exprCtx = this.engine.reads.exprCtx(scope, ctx, 'ON CONFLICT DO UPDATE')
    const set: ScalarExpr[] = t.columns.map((c, i) => ({ kind: 'column', index: i, type: c.type }))
    const assigned = new Set<string>()
    for (const a of oc.set) {
      const i = t.columns.findIndex((c) => c.name === a.column)
      if (i < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${a.column}" of relation "${t.name}" does not exist`, positionAt(ctx.text, a.span.start))
      if (assigned.has(a.column)) throw new RivuletError(SqlState.syntaxError, `multiple assignments to same column "${a.column}"`, positionAt(ctx.text, a.span.start))
      assigned.add(a.column)
      set[i] = assignTo(t, i, bindExpr(a.value, exprCtx), ctx, a.value.span.start)
    }
    const where = oc.where ? coerce(bindExpr(oc.where, { ...exprCtx, clause: 'WHERE' }), 'boolean', { err: ctx }, oc.where.span, 'argument of WHERE') : undefined
    return { kind: 'update', set, where }
  }

  /** REPLACE / INSERT OR REPLACE: a row whose key is stored replaces the stored row, in one
   *  delta (−old +new); of several rows for one key the last wins (SQLite applies them in
   *  order). A table without a primary key has no conflicts. SQLite puts a NOT NULL column's
   *  default in place of a NULL (and fails when there is none). */
  replaceRows(t: TableEntry, rows: readonly Row[]): number {
    const filled = rows.map((r) => r.map((v, i) => (v === null && t.notNull[i] && t.defaults[i] ? constantValue(t.defaults[i]!) : v)))
    const keyOf = t.store.keyOf
    if (!keyOf) return this.insertRows(t, filled, { text: '', serverFiles: false, stdin: undefined })
    const latest = new Map<ivm.RowKey, Row>()
    for (const row of filled) {
      this.checkNotNull(t, row)
      latest.set(keyOf(row), row)
    }
    const delta = new ivm.ZSet()
    for (const [k, row] of latest) {
      const old = t.store.rows.get(k)
      if (old) delta.push(old, -1)
      delta.push(row, 1)
    }
    this.applyUpsert(t, delta.consolidate(), 'INSERT OR REPLACE')
    return rows.length
  }

  /** INSERT … ON CONFLICT (key) DO UPDATE, row by row as Postgres does: a new key inserts the
   *  row; a stored key updates the stored row (unless WHERE says no); a key this statement
   *  already inserted or updated is error 21000. The update may change the key itself. */
  upsertRows(t: TableEntry, rows: readonly Row[], policy: Extract<ConflictPolicy, { kind: 'update' }>): number {
    const keyOf = t.store.keyOf!
    const update = this.upsertFunction(t, rows, policy)
    /** Keys this statement wrote: their row, or null for a key an update moved away from. */
    const written = new Map<ivm.RowKey, Row | null>()
    const current = (k: ivm.RowKey): Row | undefined => (written.has(k) ? (written.get(k) ?? undefined) : t.store.rows.get(k))
    let n = 0
    for (const row of rows) {
      this.checkNotNull(t, row)
      const k = keyOf(row)
      const stored = current(k)
      if (stored === undefined) {
        written.set(k, row)
        n++
        continue
      }
      if (written.has(k)) throw new RivuletError(SqlState.cardinalityViolation, 'ON CONFLICT DO UPDATE command cannot affect row a second time', undefined, 'Ensure that no rows proposed for insertion within the same command have duplicate constrained values.')
      const next = update(stored, row)
      if (next === undefined) continue // WHERE was not true: the row stays as it is
      this.checkNotNull(t, next)
      const nk = keyOf(next)
      if (nk !== k) {
        if (current(nk) !== undefined) {
          const pk = t.primaryKey.map((i) => t.columns[i]!.name).join(', ')
          const vals = t.primaryKey.map((i) => String(toResultValue(next[i], t.columns[i]!.type))).join(', ')
          throw new RivuletError(SqlState.uniqueViolation, `duplicate key value violates unique constraint "${t.name}_pkey"`, undefined, `Key (${pk})=(${vals}) already exists.`)
        }
        written.set(k, null)
      }
      written.set(nk, next)
      n++
    }
    const delta = new ivm.ZSet()
    for (const [k, row] of written) {
      const old = t.store.rows.get(k)
      if (old) delta.push(old, -1)
      if (row) delta.push(row, 1)
    }
    this.applyUpsert(t, delta.consolidate(), 'INSERT ... ON CONFLICT DO UPDATE')
    return n
  }

  /** (stored row, proposed row) → the updated row, or undefined when WHERE is not true.
   *  Expressions without subqueries are compiled and run per row; with subqueries they are
   *  evaluated up front through the dataflow for every (stored, proposed) pair the statement
   *  can meet (subqueries then read the tables as they were before the statement, as in
   *  Postgres). */
  upsertFunction(t: TableEntry, rows: readonly Row[], policy: Extract<ConflictPolicy, { kind: 'update' }>): (stored: Row, proposed: Row) => Row | undefined {
    const exprs = policy.where ? [...policy.set, policy.where] : policy.set
    let hasSubquery = false
    for (const e of exprs) visitExpr(e, (x) => {
      if (x.kind === 'subquery') hasSubquery = true
    })
    const width = t.columns.length
    if (!hasSubquery) {
      const project = compileProjection(policy.set)
      const where: RowFn | undefined = policy.where ? compileScalar(policy.where) : undefined
      return (stored, proposed) => {
        const both = [...stored, ...proposed]
        if (where && where(both) !== true) return undefined
        return project(both)
      }
    }
    const keyOf = t.store.keyOf!
    const pairs: Row[] = []
    const seen = new Set<ivm.RowKey>()
    for (const row of rows) {
      const stored = t.store.rows.get(keyOf(row))
      if (!stored) continue
      const pair = [...stored, ...row]
      const pk = ivm.rowKey(pair)
      if (seen.has(pk)) continue
      seen.add(pk)
      pairs.push(pair)
    }
    const results = new Map<ivm.RowKey, Row | undefined>()
    if (pairs.length > 0) {
      const columns: Column[] = [...t.columns, ...t.columns].map((c, i) => ({ name: `c${i}`, type: c.type }))
      const values: LogicalPlan = { kind: 'values', rows: pairs.map((p) => p.map((v, i): ScalarExpr => ({ kind: 'literal', value: v, type: columns[i]!.type }))), columns }
      const passThrough = columns.map((c, i): ScalarExpr => ({ kind: 'column', index: i, type: c.type }))
      const out: LogicalPlan = {
        kind: 'project',
        input: values,
        exprs: [...passThrough, ...policy.set, policy.where ?? { kind: 'literal', value: true, type: 'boolean' }],
        columns: [...columns, ...t.columns.map((c, i) => ({ name: `n${i}`, type: c.type })), { name: 'pass', type: 'boolean' }],
      }
      const z = this.engine.reads.evaluate(out)
      for (const r of z.rows) results.set(ivm.rowKey(r.slice(0, 2 * width)), r[3 * width] === true ? r.slice(2 * width, 3 * width) : undefined)
    }
    return (stored, proposed) => results.get(ivm.rowKey([...stored, ...proposed]))
  }

  /** Applies an upsert's consolidated delta; streams take inserts only, so an upsert that
   *  would replace a stream's row is refused. */
  applyUpsert(t: TableEntry, delta: ivm.ZSet, what: string): void {
    if (t.kind === 'stream' && delta.weights.some((w) => w < 0)) this.refuseStream(t, `${what} replacing a row`)
    if (t.watermark && !t.versions) {
      const onTime = new Set(this.engine.eventTime.acceptOnTime(t, delta.rows))
      const kept = new ivm.ZSet()
      for (let i = 0; i < delta.length; i++) if (onTime.has(delta.rows[i]!)) kept.push(delta.rows[i]!, delta.weights[i]!)
      this.engine.ticks.applyDelta(t, kept)
      return
    }
    this.engine.ticks.applyDelta(t, delta)
  }

  insertRows(t: TableEntry, all: readonly Row[], _ctx: StatementContext, skipConflicts = false): number {
    const delta = new ivm.ZSet()
    for (const row of all) this.checkNotNull(t, row)
    if (t.versions) return this.insertVersions(t, all, skipConflicts)
    const rows = this.engine.eventTime.acceptOnTime(t, all)
    if (t.store.keyOf) {
      const batch = new Set<ivm.RowKey>()
      for (const row of rows) {
        const k = t.store.keyOf(row)
        if (t.store.rows.has(k) || batch.has(k)) {
          if (skipConflicts) continue
          const pk = t.primaryKey.map((i) => t.columns[i]!.name).join(', ')
          const vals = t.primaryKey.map((i) => String(toResultValue(row[i], t.columns[i]!.type))).join(', ')
          throw new RivuletError(SqlState.uniqueViolation, `duplicate key value violates unique constraint "${t.name}_pkey"`, undefined, `Key (${pk})=(${vals}) already exists.`)
        }
        batch.add(k)
        delta.push(row, 1)
      }
      this.engine.ticks.applyDelta(t, delta)
      return delta.length
    }
    for (const row of rows) delta.push(row, 1)
    // a stream's input is inserts only: equal rows need no merging (operators take a row twice
    // as they take it with weight 2), and hashing every event would cost more than the rest
    this.engine.ticks.applyDelta(t, t.kind === 'stream' ? delta : delta.consolidate())
    return rows.length
  }

  /** INSERT into a versioned table: each row is a new version of its key; a live version
   *  with the same key and version time already there is a duplicate key. */
  insertVersions(t: TableEntry, rows: readonly Row[], skipConflicts: boolean): number {
    const vs = t.versions!
    const width = t.columns.length
    const seen = new Set<ivm.RowKey>()
    const versions: Row[] = []
    for (const row of rows) {
      const at = ivm.rowKey([vs.keyOf(row), row[vs.timeColumn]])
      const there = vs.at(vs.keyOf(row), row[vs.timeColumn] as number)
      if (seen.has(at) || (there !== undefined && there[width] === true)) {
        if (skipConflicts) continue
        const cols = [...t.primaryKey, vs.timeColumn]
        throw new RivuletError(SqlState.uniqueViolation, `duplicate key value violates unique constraint "${t.name}_pkey"`, undefined, `Key (${cols.map((i) => t.columns[i]!.name).join(', ')})=(${cols.map((i) => String(toResultValue(row[i], t.columns[i]!.type))).join(', ')}) already has a version at that time.`)
      }
      seen.add(at)
      versions.push([...row, true])
    }
    this.engine.eventTime.applyVersions(t, versions)
    return versions.length
  }

  checkNotNull(t: TableEntry, row: Row): void {
    for (let i = 0; i < row.length; i++) {
      if (row[i] === null && t.notNull[i]) throw new RivuletError(SqlState.notNullViolation, `null value in column "${t.columns[i]!.name}" of relation "${t.name}" violates not-null constraint`)
    }
  }

  /** #checkNotNull over a batch, reading only the NOT NULL columns. */
  checkNotNullRows(t: TableEntry, rows: readonly Row[]): void {
    let columns = this.notNullColumns.get(t)
    if (columns === undefined) {
      columns = t.notNull.flatMap((n, i) => (n ? [i] : []))
      this.notNullColumns.set(t, columns)
    }
    if (columns.length === 0) return
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!
      for (let k = 0; k < columns.length; k++) if (row[columns[k]!] === null) this.checkNotNull(t, row)
    }
  }

  updateStatement(s: ast.UpdateStmt, ctx: StatementContext): StatementResult {
    const t = this.tableNamed(s.table, ctx)
    this.refuseStream(t, 'UPDATE', ctx, s.span.start)
    if (s.from) throw new RivuletError(SqlState.featureNotSupported, 'UPDATE ... FROM is not supported yet', positionAt(ctx.text, s.from.span.start))
    const alias = s.alias ?? t.name
    const scope = new Scope(t.columns.map((c) => ({ table: alias, name: c.name, type: c.type, hidden: false })))
    const binder = new QueryBinder(this.engine.reads.bindingCatalog(ctx), ctx)
    const exprCtx = { ...this.engine.reads.exprCtx(scope, ctx, 'UPDATE'), bindSubquery: (q: ast.Query, outer: Scope) => binder.bindQuery(q, outer) }
    const newExprs: ScalarExpr[] = t.columns.map((c, i) => ({ kind: 'column', index: i, type: c.type }))
    for (const a of s.set) {
      const i = t.columns.findIndex((c) => c.name === a.column)
      if (i < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${a.column}" of relation "${t.name}" does not exist`, positionAt(ctx.text, a.span.start))
      newExprs[i] = assignTo(t, i, bindExpr(a.value, exprCtx), ctx, a.value.span.start)
    }
    let plan: LogicalPlan = { kind: 'scan', relation: t.name, columns: t.columns }
    if (s.where) plan = { kind: 'filter', input: plan, predicate: coerce(bindExpr(s.where, { ...exprCtx, clause: 'WHERE' }), 'boolean', { err: ctx }, s.where.span, 'argument of WHERE'), columns: t.columns }
    const width = t.columns.length
    const both: LogicalPlan = {
      kind: 'project',
      input: plan,
      exprs: [...t.columns.map((c, i): ScalarExpr => ({ kind: 'column', index: i, type: c.type })), ...newExprs],
      columns: [...t.columns, ...t.columns.map((c) => ({ name: `new_${c.name}`, type: c.type }))],
    }
    const result = this.engine.reads.evaluate(both)
    const delta = new ivm.ZSet()
    let n = 0
    for (let r = 0; r < result.rows.length; r++) {
      const row = result.rows[r]!
      const w = result.weights[r]!
      const oldRow = row.slice(0, width)
      const newRow = row.slice(width)
      this.checkNotNull(t, newRow)
      delta.push(oldRow, -w)
      delta.push(newRow, w)
      n += w
    }
    const c = delta.consolidate()
    if (t.store.keyOf) {
      // the table after the update must still have unique keys: only the keys the change
      // touches can collide (each holds one row now, or none), so only they are counted
      const after = new Map<ivm.RowKey, number>()
      for (let i = 0; i < c.rows.length; i++) {
        const k = t.store.keyOf(c.rows[i]!)
        after.set(k, (after.get(k) ?? (t.store.rows.has(k) ? 1 : 0)) + c.weights[i]!)
      }
      for (let i = 0; i < c.rows.length; i++) {
        const k = t.store.keyOf(c.rows[i]!)
        if ((after.get(k) ?? 0) > 1) {
          const pk = t.primaryKey.map((j) => t.columns[j]!.name).join(', ')
          const vals = t.primaryKey.map((j) => String(toResultValue(c.rows[i]![j], t.columns[j]!.type))).join(', ')
          throw new RivuletError(SqlState.uniqueViolation, `duplicate key value violates unique constraint "${t.name}_pkey"`, undefined, `Key (${pk})=(${vals}) already exists.`)
        }
      }
    }
    this.engine.ticks.applyDelta(t, c)
    return { command: `UPDATE ${n}`, rowCount: n }
  }

  deleteStatement(s: ast.DeleteStmt, ctx: StatementContext): StatementResult {
    const t = this.tableNamed(s.table, ctx)
    this.refuseStream(t, 'DELETE', ctx, s.span.start)
    let n = 0
    const delta = new ivm.ZSet()
    if (!s.where) {
      const snap = t.store.snapshot()
      for (let i = 0; i < snap.rows.length; i++) {
        delta.push(snap.rows[i]!, -snap.weights[i]!)
        n += snap.weights[i]!
      }
    } else {
      const alias = s.alias ?? t.name
      const scope = new Scope(t.columns.map((c) => ({ table: alias, name: c.name, type: c.type, hidden: false })))
      const binder = new QueryBinder(this.engine.reads.bindingCatalog(ctx), ctx)
      const exprCtx = { ...this.engine.reads.exprCtx(scope, ctx, 'WHERE'), bindSubquery: (q: ast.Query, outer: Scope) => binder.bindQuery(q, outer) }
      const pred = coerce(bindExpr(s.where, exprCtx), 'boolean', { err: ctx }, s.where.span, 'argument of WHERE')
      const plan: LogicalPlan = { kind: 'filter', input: { kind: 'scan', relation: t.name, columns: t.columns }, predicate: pred, columns: t.columns }
      const result = this.engine.reads.evaluate(plan)
      for (let i = 0; i < result.rows.length; i++) {
        delta.push(result.rows[i]!, -result.weights[i]!)
        n += result.weights[i]!
      }
    }
    this.engine.ticks.applyDelta(t, delta)
    return { command: `DELETE ${n}`, rowCount: n }
  }

  /** The table or stream a statement names (`[schema.]name`). */
  tableNamed(n: ast.Name, ctx: StatementContext): TableEntry {
    const key = this.engine.catalog.lookup(n.parts)
    if (this.engine.catalog.entries.has(key) || n.parts.length === 1) return this.table(key, ctx, n.span.start)
    const schema = n.parts[n.parts.length - 2]
    if (schema === 'pg_catalog' || schema === 'information_schema') throw new RivuletError('42501', `permission denied for table ${lastPart(n)}: system catalogs are read-only`, positionAt(ctx.text, n.span.start))
    throw new RivuletError(SqlState.undefinedTable, `relation "${n.parts.join('.')}" does not exist`, positionAt(ctx.text, n.span.start))
  }

  /** TRUNCATE: every row of each table goes, as one change (views see each row retracted). A
   *  stream is append-only: refused, as DELETE is. */
  truncateStatement(s: ast.TruncateStmt, ctx: StatementContext): StatementResult {
    const tables: TableEntry[] = []
    for (const n of s.tables) {
      const key = this.engine.catalog.schemaExists(n.parts) ? this.engine.catalog.lookup(n.parts) : undefined
      if (key === undefined) throw new RivuletError(SqlState.undefinedSchema, `schema "${n.parts[n.parts.length - 2]}" does not exist`, positionAt(ctx.text, n.span.start))
      const e = this.engine.catalog.entries.get(key)
      if (e === undefined) {
        if (n.parts.length === 1 && isSystemRelationName(key)) throw new RivuletError('42501', `permission denied for table ${key}: system catalogs are read-only`, positionAt(ctx.text, n.span.start))
        throw new RivuletError(SqlState.undefinedTable, `relation "${n.parts.join('.')}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      if (e.kind === 'system') throw new RivuletError('42501', `permission denied for table ${e.name}: it is written by the engine`, positionAt(ctx.text, n.span.start))
      if (e.kind !== 'table' && e.kind !== 'stream') throw new RivuletError(SqlState.wrongObjectType, `"${lastPart(n)}" is not a table`, positionAt(ctx.text, n.span.start))
      this.refuseStream(e, 'TRUNCATE', ctx, n.span.start)
      if (!tables.includes(e)) tables.push(e)
    }
    for (const t of tables) {
      const snap = t.store.snapshot()
      const delta = new ivm.ZSet()
      for (let i = 0; i < snap.rows.length; i++) delta.push(snap.rows[i]!, -snap.weights[i]!)
      this.engine.ticks.applyDelta(t, delta)
    }
    return { command: 'TRUNCATE TABLE', rowCount: 0 }
  }

  table(name: string, ctx?: StatementContext, at?: number): TableEntry {
    const e = this.engine.catalog.entries.get(name)
    // pg_catalog's relations are computed from the catalog: read-only
    if (!e && isSystemRelationName(name)) throw new RivuletError('42501', `permission denied for table ${name}: system catalogs are read-only`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
    if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${name}" does not exist`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
    if (e.kind !== 'table' && e.kind !== 'stream') throw new RivuletError(SqlState.wrongObjectType, `cannot change ${e.kind} "${name}"`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
    return e
  }

  refuseStream(t: TableEntry, what: string, ctx?: StatementContext, at?: number): void {
    if (t.kind === 'stream') throw new RivuletError(SqlState.featureNotSupported, `${what} is not allowed on append-only stream "${t.name}"; streams accept inserts only`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
  }

  convertInput(t: TableEntry, r: InputRow): Row {
    const out = new Array<unknown>(t.columns.length)
    if (Array.isArray(r)) {
      if (r.length !== t.columns.length) throw new RivuletError(SqlState.syntaxError, `row has ${r.length} values but table "${t.name}" has ${t.columns.length} columns`)
      for (let i = 0; i < out.length; i++) out[i] = fromInputValue(r[i], t.columns[i]!.type)
    } else {
      const o = r as Readonly<Record<string, unknown>>
      let known = 0
      for (let i = 0; i < out.length; i++) {
        const c = t.columns[i]!
        // own properties only: a column named "constructor" is not Object's
        const own = Object.hasOwn(o, c.name)
        const v = own ? o[c.name] : undefined
        if (own) known++
        out[i] = v === undefined ? (t.defaults[i] ? evaluateConstant(t.defaults[i]!) : null) : fromInputValue(v, c.type)
      }
      // a key that names no column is a typo, not something to drop silently
      let keys = 0
      for (const k in o) if (Object.hasOwn(o, k)) keys++
      if (keys !== known) {
        const unknown = Object.keys(o).find((k) => !t.columns.some((c) => c.name === k))!
        throw new RivuletError(SqlState.undefinedColumn, `column "${unknown}" of relation "${t.name}" does not exist`)
      }
    }
    if (t.modifiers) applyModifiers(t.modifiers, out)
    return out
  }
}
