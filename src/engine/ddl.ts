// DDL: CREATE TABLE / STREAM (columns, keys, defaults, watermark and stream options), CREATE
// [MATERIALIZED] VIEW (bind, optimize, lower, render into the circuit and backfill), indexes,
// triggers, DROP (with CASCADE), and what the view-error machinery needs of views and sinks
// (detach, rebuild, their result as of the last commit).

import * as ivm from '../../ivm/index.js'
import { printQuery, RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { Scope, bindExpr, coerce, dependsOnTimeZone, timeShiftSign, lower, lowerEmitOnWindowClose, readsClockOutsideTemporalFilters, optimize, watermarkColumns, typeDisplayName, typeFromName, typeModifierOf, unknownTypeError, visitExpr, withTypeModifier, type Column, type DeltaPlan, type ScalarExpr, type TypeModifier } from '../../planner/index.js'
import { NoHistory, TableStore, VersionStore, isView, type Entry, type StreamWatermark, type TableEntry, type ViewEntry } from './catalog.js'
import { AppendLog } from './stream-history.js'
import { compileScalar, evaluateConstant, isRowConstant } from '../sql-runtime/compile-scalar.js'
import { render } from './render.js'
import type { StatementResult } from '../types.js'
import { CLOCK, resultAsOfCommit } from './view-errors.js'
import { isSystemRelationName } from './system-catalog.js'
import type { StatementContext, RenderAt } from './internals.js'
import type { SinkEntry } from './sources-and-sinks.js'
import { groupKeyColumns, refuseSystemRelations, hasTemporalFilter, scannedRelations } from './plans.js'
import { lastPart } from './names.js'
import { isUtc, UTC, withTimeZone } from '../sql-runtime/time-zone.js'
import { textNamesZone } from '../sql-runtime/timestamptz.js'
import type { EngineInternals } from './internals.js'

/** A trigger (SQLite's CREATE TRIGGER). Only triggers whose body cannot change anything
 *  (SELECT statements, whose results SQLite discards) are accepted, so none needs to run. */
interface TriggerEntry {
  readonly name: string
  readonly table: string
}

/** The statement's name for messages, e.g. `INSERT`, `CREATE TABLE`. */
function statementName(s: ast.Statement): string {
  switch (s.kind) {
    case 'createTable':
      return s.stream && !s.appendOnly ? 'CREATE STREAM' : 'CREATE TABLE'
    case 'createView':
      return s.materialized ? 'CREATE MATERIALIZED VIEW' : 'CREATE VIEW'
    case 'createIndex':
      return 'CREATE INDEX'
    case 'createTrigger':
      return 'CREATE TRIGGER'
    case 'drop':
      return `DROP ${s.object.toUpperCase()}`
    case 'transaction':
      return s.action.toUpperCase()
    default:
      return s.kind.toUpperCase()
  }
}
/** The first call of SQLite's RAISE() in an AST (it aborts the statement that fired the
 *  trigger, so a SELECT calling it is not free of effects). */
function findRaise(node: unknown): ast.FuncCall | undefined {
  if (node === null || typeof node !== 'object') return undefined
  if (Array.isArray(node)) {
    for (const x of node) {
      const f = findRaise(x)
      if (f) return f
    }
    return undefined
  }
  const o = node as { readonly kind?: unknown }
  if (o.kind === 'func') {
    const call = node as ast.FuncCall
    if (call.name[call.name.length - 1] === 'raise') return call
  }
  for (const v of Object.values(node)) {
    const f = findRaise(v)
    if (f) return f
  }
  return undefined
}
/** A view ending in GROUP BY has one row per group: its contents are keyed by the group
 *  columns (a point read by group needs no second index, and the key is cheaper than a hash
 *  of the whole row). */
function sinkOptions(plan: DeltaPlan): ivm.IntegrateOptions {
  const reduce = plan.kind === 'emitOnClose' ? plan.input : plan
  // a group's row is unique by its key: the view keys its copy by it (no row hash)
  if ((reduce.kind !== 'reduce' && reduce.kind !== 'sessionReduce') || reduce.key.length === 0) return {}
  return { keyColumns: reduce.key.map((_, i) => i) }
}
/** True when `e` (a watermark expression) never decreases as column `column` grows: the
 *  column itself, or it plus or minus a constant interval (adding months clamps the day,
 *  which keeps the order). */
function growsWith(e: ScalarExpr, column: number): boolean {
  if (e.kind === 'column') return e.index === column
  if (e.kind !== 'call') return false
  const [a, b] = e.args
  if (timeShiftSign(e.fn) !== undefined && e.fn !== 'interval_add_ts' && e.fn !== 'interval_add_tstz') return a !== undefined && b !== undefined && growsWith(a, column) && isRowConstant(b)
  if (e.fn === 'interval_add_ts' || e.fn === 'interval_add_tstz') return a !== undefined && b !== undefined && growsWith(b, column) && isRowConstant(a)
  return false
}

export class Ddl {
  constructor(private readonly engine: EngineInternals) {}

  /** Index name → table (indexes never change results; kept for DROP INDEX). */
  readonly indexes = new Map<string, string>()
  /** Trigger name → trigger (dropped with their table). */
  readonly triggers = new Map<string, TriggerEntry>()

  // ------------------------------------------------------------------------- DDL

  createTable(s: ast.CreateTableStmt, ctx: StatementContext): StatementResult {
    const name = this.engine.schemas.createKey(s.name, ctx)
    if (this.engine.catalog.entries.has(name)) {
      if (s.ifNotExists) return { command: 'CREATE TABLE', rowCount: 0 }
      throw new RivuletError(SqlState.duplicateTable, `relation "${lastPart(s.name)}" already exists`, positionAt(ctx.text, s.name.span.start))
    }
    if (s.asQuery) throw new RivuletError(SqlState.featureNotSupported, 'CREATE TABLE AS is not supported yet', positionAt(ctx.text, s.span.start))
    const columns: Column[] = []
    const modifiers: (TypeModifier | undefined)[] = []
    const seen = new Set<string>()
    for (const c of s.columns) {
      if (seen.has(c.name)) throw new RivuletError(SqlState.duplicateColumn, `column "${c.name}" specified more than once`, positionAt(ctx.text, c.span.start))
      seen.add(c.name)
      const t = typeFromName(c.type.name, c.type.arrayDimensions)
      if (!t) throw new RivuletError(unknownTypeError(c.type.name).code, unknownTypeError(c.type.name).message, positionAt(ctx.text, c.type.span.start))
      columns.push({ name: c.name, type: t })
      modifiers.push(typeModifierOf(c.type, t, { text: ctx.text }))
    }
    const pkNames = s.primaryKey ?? s.columns.filter((c) => c.primaryKey).map((c) => c.name)
    if ((s.primaryKey && s.columns.some((c) => c.primaryKey)) || s.columns.filter((c) => c.primaryKey).length > 1) throw new RivuletError('42P16', `multiple primary keys for table "${name}" are not allowed`, positionAt(ctx.text, s.span.start))
    const primaryKey = pkNames.map((n) => {
      const i = columns.findIndex((c) => c.name === n)
      if (i < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${n}" named in key does not exist`, positionAt(ctx.text, s.span.start))
      return i
    })
    const stream = s.stream || s.appendOnly
    const notNull = columns.map((_, i) => s.columns[i]!.notNull || primaryKey.includes(i))
    const scope = new Scope([])
    const defaults = s.columns.map((c, i) => (c.default ? withTypeModifier(coerce(bindExpr(c.default, this.engine.reads.constantExprCtx(scope, ctx, 'DEFAULT')), columns[i]!.type, { err: ctx }, c.default.span), modifiers[i], false) : undefined))
    const history = this.historyOption(s, stream && primaryKey.length === 0, ctx)
    const tombstones = this.tombstoneOption(history.rest, stream, primaryKey.length > 0, ctx)
    const watermark = this.streamOptions(tombstones.rest, stream, primaryKey.length > 0, columns, notNull, ctx)
    const store = stream && primaryKey.length === 0 ? (history.keep ? new AppendLog(name, watermark?.column, this.engine.log, history.maxBytes) : new NoHistory()) : new TableStore(primaryKey)
    const input = this.engine.circuit.add(new ivm.InputOperator(() => store.snapshot()))
    this.engine.circuit.retain(input)
    // a table with a primary key and a version time keeps its version history
    const versions = watermark && !stream ? new VersionStore(primaryKey, watermark.column, watermark.retention !== undefined) : undefined
    const versionInput = versions ? this.engine.circuit.add(new ivm.InputOperator(() => versions.snapshot())) : undefined
    if (versionInput) this.engine.circuit.retain(versionInput)
    const text = (span: { start: number; end: number } | undefined): string | undefined => (span && ctx.text ? ctx.text.slice(span.start, span.end) : undefined)
    const source = { defaults: s.columns.map((c) => text(c.default?.span)), watermark: text(s.watermark?.expr.span) }
    const entry: TableEntry = { kind: stream ? 'stream' : 'table', name, columns, primaryKey, notNull, defaults, store, input, source, ...(modifiers.some((m) => m !== undefined) ? { modifiers } : {}), ...(watermark ? { watermark } : {}), ...(versions ? { versions, versionInput } : {}), ...(tombstones.retention !== undefined ? { tombstoneRetention: tombstones.retention } : {}) }
    this.engine.catalog.add(entry)
    return { command: s.stream && !s.appendOnly ? 'CREATE STREAM' : 'CREATE TABLE', rowCount: 0 }
  }

  /** A stream's WATERMARK clause and WITH options. Marks the event-time column NOT
   *  NULL (an event without a time cannot be placed in a window or judged late). */
  /** `WITH (history = false)` on a keyless stream: keep none of its events (see NoHistory);
   *  `WITH (retention_bytes = n)`: keep its newest history of at least n bytes (as the log
   *  holds it), dropping older rows chunk by chunk (see stream-history.ts). */
  historyOption(s: ast.CreateTableStmt, keylessStream: boolean, ctx: StatementContext): { keep: boolean; maxBytes: number | undefined; rest: ast.CreateTableStmt } {
    const o = s.with.find((x) => x.name === 'history')
    const b = s.with.find((x) => x.name === 'retention_bytes')
    const rest = { ...s, with: s.with.filter((x) => x !== o && x !== b) }
    let maxBytes: number | undefined
    if (b !== undefined) {
      const at = positionAt(ctx.text, b.span.start)
      if (!keylessStream) throw new RivuletError(SqlState.invalidParameterValue, 'retention_bytes is for streams without a primary key', at)
      const v = b.value === undefined ? undefined : evaluateConstant(bindExpr(b.value, this.engine.reads.constantExprCtx(new Scope([]), ctx, 'WITH')))
      const n = typeof v === 'number' || typeof v === 'bigint' ? Number(v) : NaN
      if (!Number.isSafeInteger(n) || n < 0) throw new RivuletError(SqlState.invalidParameterValue, 'retention_bytes must be a non-negative integer (bytes of the newest history a stream keeps)', at)
      maxBytes = n
    }
    if (o === undefined) return { keep: true, maxBytes, rest }
    const at = positionAt(ctx.text, o.span.start)
    if (!keylessStream) throw new RivuletError(SqlState.invalidParameterValue, 'history = false is for streams without a primary key', at)
    const v = o.value === undefined ? true : evaluateConstant(bindExpr(o.value, this.engine.reads.constantExprCtx(new Scope([]), ctx, 'WITH')))
    const keep = v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined
    if (keep === undefined) throw new RivuletError(SqlState.invalidParameterValue, `stream option "history" must be true or false, not ${JSON.stringify(v)}`, at)
    if (!keep && (s.with.some((x) => x.name === 'retention') || b !== undefined)) throw new RivuletError(SqlState.invalidParameterValue, 'a stream with history = false keeps nothing to retain: give retention or history = false, not both', at)
    return { keep, maxBytes, rest }
  }

  /** `WITH (tombstone_retention = '1 hour')` on a table with a primary key: how long its deleted
   *  keys stay in rivulet_tombstones (µs; 0 or absent: none kept). */
  tombstoneOption(s: ast.CreateTableStmt, stream: boolean, keyed: boolean, ctx: StatementContext): { retention: number | undefined; rest: ast.CreateTableStmt } {
    const o = s.with.find((x) => x.name === 'tombstone_retention')
    if (o === undefined) return { retention: undefined, rest: s }
    const at = positionAt(ctx.text, o.span.start)
    if (stream || !keyed) throw new RivuletError(SqlState.invalidParameterValue, `tombstone_retention is for tables with a primary key (${stream ? 'a stream deletes nothing' : 'a table without one has no key to keep a tombstone of'})`, at)
    const bound = o.value && bindExpr(o.value, this.engine.reads.constantExprCtx(new Scope([]), ctx, 'WITH'))
    const us = bound && this.engine.catalog.intervalMicros(bound.type === 'unknown' ? coerce(bound, 'interval', { err: ctx }, o.value!.span) : bound)
    if (us === undefined || us < 0) throw new RivuletError(SqlState.invalidParameterValue, "tombstone_retention must be a fixed-length interval such as '1 hour' (days, hours, minutes, seconds)", at)
    return { retention: us > 0 ? us : undefined, rest: { ...s, with: s.with.filter((x) => x !== o) } }
  }

  streamOptions(s: ast.CreateTableStmt, stream: boolean, keyed: boolean, columns: readonly Column[], notNull: boolean[], ctx: StatementContext): StreamWatermark | undefined {
    let keep: number | undefined
    let retention: number | undefined
    for (const o of s.with) {
      if (o.name === 'late_events_kept' && (stream || keyed)) {
        const v = o.value && o.value.kind === 'literal' && o.value.value.type !== 'null' ? Number((o.value.value as { text?: unknown }).text) : NaN
        if (!Number.isInteger(v) || v < 0) throw new RivuletError(SqlState.invalidParameterValue, 'late_events_kept must be a non-negative integer (how many late events of this stream rivulet_late_events keeps)', positionAt(ctx.text, o.span.start))
        keep = v
      } else if (o.name === 'retention' && (stream || keyed) && o.value) {
        const bound = bindExpr(o.value, this.engine.reads.constantExprCtx(new Scope([]), ctx, 'WITH'))
        const us = this.engine.catalog.intervalMicros(bound.type === 'unknown' ? coerce(bound, 'interval', { err: ctx }, o.value.span) : bound)
        if (us === undefined || us < 0) throw new RivuletError(SqlState.invalidParameterValue, "retention must be a fixed-length interval such as '1 hour' (days, hours, minutes, seconds)", positionAt(ctx.text, o.span.start))
        retention = us
      } else throw new RivuletError(SqlState.invalidParameterValue, `unrecognized ${stream ? 'stream' : 'table'} option "${o.name}"${stream ? ' (known: late_events_kept, retention, retention_bytes, history)' : keyed ? ' (known: tombstone_retention; with WATERMARK FOR: late_events_kept, retention)' : ' (known: tombstone_retention, for a table with a primary key)'}`, positionAt(ctx.text, o.span.start))
    }
    const def = s.watermark
    if (!def) {
      if (keep !== undefined || retention !== undefined) throw new RivuletError(SqlState.invalidParameterValue, `${keep !== undefined ? 'late_events_kept' : 'retention'} needs a WATERMARK FOR clause (${keep !== undefined ? 'without a watermark no event is late' : 'retention counts back from the watermark'})`, positionAt(ctx.text, s.span.start))
      return undefined
    }
    if (!stream && !keyed) throw new RivuletError('42P16', 'WATERMARK FOR on a table needs a PRIMARY KEY (a versioned table, read by temporal joins) or APPEND ONLY (a stream)', positionAt(ctx.text, def.span.start))
    const column = columns.findIndex((c) => c.name === def.column)
    if (column < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${def.column}" named in WATERMARK FOR does not exist`, positionAt(ctx.text, def.span.start))
    const timeType = columns[column]!.type
    if (timeType !== 'timestamp' && timeType !== 'timestamptz') throw new RivuletError(SqlState.datatypeMismatch, `the WATERMARK FOR column "${def.column}" must be of type timestamp or timestamptz, not ${typeDisplayName(timeType)}`, positionAt(ctx.text, def.span.start))
    const scope = new Scope(columns.map((c) => ({ table: undefined, name: c.name, type: c.type, hidden: false })))
    const bound = bindExpr(def.expr, this.engine.reads.constantExprCtx(scope, ctx, 'WATERMARK'))
    let other = false
    visitExpr(bound, (x) => {
      if ((x.kind === 'column' && x.index !== column) || x.kind === 'subquery') other = true
    })
    if (other || bound.type !== timeType) throw new RivuletError(SqlState.datatypeMismatch, `the WATERMARK expression must be a timestamp computed from "${def.column}" alone, such as ${def.column} - INTERVAL '5' SECOND`, positionAt(ctx.text, def.expr.span.start))
    notNull[column] = true
    // compiled in UTC, as views are: a stream's watermarks never depend on a session's zone
    return { column, candidate: withTimeZone(UTC, () => compileScalar(bound)), monotone: growsWith(bound, column), current: -Infinity, pending: -Infinity, late: 0, pendingLate: 0, keep, retention, tickRows: [], history: [], head: 0 }
  }

  createView(s: ast.CreateViewStmt, ctx: StatementContext): StatementResult {
    const name = this.engine.schemas.createKey(s.name, ctx)
    const tag = s.materialized ? 'CREATE MATERIALIZED VIEW' : 'CREATE VIEW'
    const existing = this.engine.catalog.entries.get(name)
    if (existing) {
      if (s.ifNotExists) return { command: tag, rowCount: 0 }
      if (!s.orReplace || (existing.kind !== 'view' && existing.kind !== 'materialized view')) throw new RivuletError(SqlState.duplicateTable, `relation "${lastPart(s.name)}" already exists`, positionAt(ctx.text, s.name.span.start))
      if (this.engine.catalog.dependents(name).length > 0) throw new RivuletError(SqlState.dependentObjectsStillExist, `cannot replace view "${name}" because other views depend on it`, positionAt(ctx.text, s.name.span.start))
      this.dropEntry(existing)
    }
    const { plan: logical, columns: bound } = this.engine.reads.bindQuery(s.query, ctx)
    refuseSystemRelations(logical, 'a view', ctx, s.query.span.start)
    this.refuseZoneDependence(logical, 'a view', ctx, s.query.span.start)
    if (s.columns.length > bound.length) throw new RivuletError(SqlState.syntaxError, 'CREATE VIEW specifies more column names than columns', positionAt(ctx.text, s.span.start))
    const columns = bound.map((c, i) => ({ name: s.columns[i] ?? c.name, type: c.type }))
    const seen = new Set<string>()
    for (const c of columns) {
      if (seen.has(c.name)) throw new RivuletError(SqlState.duplicateColumn, `column "${c.name}" specified more than once`, positionAt(ctx.text, s.query.span.start))
      seen.add(c.name)
    }
    const optimized = optimize(logical)
    const lowerOptions = this.engine.reads.lowerOptions
    const plan = s.query.emitOnWindowClose ? this.engine.reads.lowerAt(() => lowerEmitOnWindowClose(optimized, lowerOptions), ctx, s.query.span.start) : lower(optimized, lowerOptions)
    // an EMIT ON WINDOW CLOSE view changes only when windows close: no column of it is a
    // watermark-bounded input to others beyond the one it waits on
    const watermarks = watermarkColumns(optimized, this.engine.eventTime.relationWatermarks, this.engine.reads.lowerOptions.intervalMicros)
    if (readsClockOutsideTemporalFilters(plan)) throw new RivuletError(SqlState.featureNotSupported, 'a view cannot be maintained over NOW() (or CURRENT_DATE) except in a temporal filter: a WHERE conjunct comparing a timestamp of the row with NOW() ± a constant interval, such as ts > NOW() - INTERVAL \'1\' HOUR', positionAt(ctx.text, s.query.span.start))
    // over data that already raises, the CREATE fails, as in PostgreSQL
    const { sink, operators, owned } = this.buildView(plan, name, (f) => this.engine.reads.lowerAt(f, ctx, s.query.span.start))
    const entry: ViewEntry = {
      kind: s.materialized ? 'materialized view' : 'view',
      name,
      columns,
      definition: printQuery(s.query),
      plan,
      sink,
      operators,
      owned,
      dependsOn: scannedRelations(logical),
      subscribers: new Set(),
      pending: new ivm.ZSet(),
      watermarks,
      groupKey: groupKeyColumns(logical),
      error: undefined,
    }
    this.engine.catalog.add(entry)
    if (hasTemporalFilter(plan)) this.engine.temporalViews.add(entry)
    return { command: tag, rowCount: 0 }
  }

  /** Views and sinks are maintained in UTC (their expressions are compiled in it, whichever
   *  session's write maintains them). In a session of another TimeZone, a view whose result
   *  depends on the zone would show other values than the same query run ad hoc: refused. */
  refuseZoneDependence(logical: unknown, what: string, ctx: StatementContext, at: number): void {
    const zone = this.engine.sessions.current.timeZone
    if (isUtc(zone) || !dependsOnTimeZone(logical, textNamesZone)) return
    throw new RivuletError(SqlState.featureNotSupported, `${what} cannot depend on the session's TimeZone ("${zone.name}"): views and sinks are maintained in UTC`, positionAt(ctx.text, at), `Convert with AT TIME ZONE in the query (ts AT TIME ZONE '${zone.name}'), or create it in a session whose TimeZone is UTC.`)
  }

  /** Renders a view's plan into the circuit and fills it from what it reads, as if it had
   *  always existed; windows already closed are emitted. Throws, leaving nothing behind,
   *  when that raises. */
  buildView(plan: DeltaPlan, name: string, renderAt: RenderAt = (f) => f()): { sink: ivm.IntegrateOperator | ivm.ReduceViewOperator; operators: Map<DeltaPlan, ivm.Operator>; owned: ivm.Operator[] } {
    return withTimeZone(UTC, () => this.#buildView(plan, name, renderAt))
  }

  #buildView(plan: DeltaPlan, name: string, renderAt: RenderAt): { sink: ivm.IntegrateOperator | ivm.ReduceViewOperator; operators: Map<DeltaPlan, ivm.Operator>; owned: ivm.Operator[] } {
    const { output, fresh, operators } = renderAt(() => render(plan, this.engine.reads.renderContext()))
    // a view ending in GROUP BY reads the reduce's groups instead of keeping a second copy
    const sink = this.engine.circuit.add(output instanceof ivm.ReduceOperator && !output.expires && output.keyColumns.length > 0 ? new ivm.ReduceViewOperator(output) : new ivm.IntegrateOperator(output, sinkOptions(plan)))
    fresh.push(sink)
    this.engine.circuit.retain(sink)
    try {
      this.engine.circuit.backfill(fresh, undefined, undefined, this.engine.statements.progressListeners.size > 0 ? (done, total) => this.engine.statements.progress({ task: 'backfill', relation: name, done, total }) : undefined)
      // windows already closed at creation are emitted now (EMIT ON WINDOW CLOSE)
      this.engine.circuit.advance(fresh)
      this.engine.circuit.endStep()
      this.engine.circuit.commitOnly(fresh)
    } catch (e) {
      this.engine.circuit.endStep()
      this.engine.circuit.release(sink)
      this.dropDeadArrangements()
      throw e
    }
    return { sink, operators, owned: fresh }
  }

  /** Renders a sink's plan into the circuit; returns its output operator and what it
   *  emitted while being filled (its result now). Throws, leaving nothing behind. */
  buildSink(plan: DeltaPlan, deliver: () => SinkEntry | undefined, renderAt: RenderAt = (f) => f()): { output: ivm.OutputOperator; operators: Map<DeltaPlan, ivm.Operator>; owned: ivm.Operator[]; initial: ivm.ZSet } {
    return withTimeZone(UTC, () => this.#buildSink(plan, deliver, renderAt))
  }

  #buildSink(plan: DeltaPlan, deliver: () => SinkEntry | undefined, renderAt: RenderAt): { output: ivm.OutputOperator; operators: Map<DeltaPlan, ivm.Operator>; owned: ivm.Operator[]; initial: ivm.ZSet } {
    const { output, fresh, operators } = renderAt(() => render(plan, this.engine.reads.renderContext()))
    // the backfill's output is the first batch; later ticks' changes collect on the entry
    // until their commit
    const initial = new ivm.ZSet()
    const out = this.engine.circuit.add(
      new ivm.OutputOperator(output, (d) => {
        const entry = deliver()
        ;(entry === undefined ? initial : entry.pending).append(d)
      }),
    )
    fresh.push(out)
    this.engine.circuit.retain(out)
    try {
      this.engine.circuit.backfill(fresh)
      this.engine.circuit.advance(fresh)
      this.engine.circuit.endStep()
      this.engine.circuit.commitOnly(fresh)
    } catch (e) {
      this.engine.circuit.endStep()
      this.engine.circuit.release(out)
      this.dropDeadArrangements()
      throw e
    }
    return { output: out, operators, owned: fresh, initial }
  }

  /** Views, each after those it reads (the catalog's order: a view is created after what
   *  it reads, and one that others read cannot be replaced), then sinks. */
  *maintained(): Iterable<ViewEntry | SinkEntry> {
    for (const e of this.engine.catalog.entries.values()) if (isView(e)) yield e
    yield* this.engine.connectors.sinks.values()
  }

  /** A view or sink leaves the circuit (it is in error: it holds no state). */
  detach(m: ViewEntry | SinkEntry): void {
    if (m.kind === 'sink') {
      if (this.engine.circuit.has(m.output)) this.engine.circuit.release(m.output)
      m.pending = new ivm.ZSet()
    } else {
      if (this.engine.circuit.has(m.sink)) this.engine.circuit.release(m.sink)
      m.sink = this.engine.detachedSink
      m.pending = new ivm.ZSet()
    }
    m.operators = new Map()
    m.owned = []
    this.dropDeadArrangements()
  }

  /** A view or sink in error built again from its inputs as they are now (at the watermarks
   *  this tick ends with); its output then. */
  rebuild(m: ViewEntry | SinkEntry): () => ivm.ZSet {
    const preview = this.engine.ticks.watermarkPreview
    this.engine.ticks.watermarkPreview = true
    try {
      if (m.kind === 'sink') {
        let ready = false
        const built = this.buildSink(m.plan, () => (ready ? m : undefined))
        ready = true
        m.output = built.output
        m.operators = built.operators
        m.owned = built.owned
        return () => built.initial
      }
      const built = this.buildView(m.plan, m.name)
      m.sink = built.sink
      m.operators = built.operators
      m.owned = built.owned
      return () => built.sink.contents()
    } finally {
      this.engine.ticks.watermarkPreview = preview
    }
  }

  /** What a sink's connector has received: its plan over its inputs as of the last commit,
   *  at the watermarks and the clock of then. */
  sinkResultAsOfCommit(sink: SinkEntry): ivm.ZSet {
    return resultAsOfCommit(sink.plan, {
      contents: (relation, versions) => {
        const e = this.engine.catalog.entries.get(relation)
        if (!e) return new ivm.ZSet()
        if (isView(e)) return e.error ? (e.error.lastGood ?? new ivm.ZSet()) : e.sink.committedSnapshot()
        return versions && e.versions ? e.versions.committedSnapshot() : e.store.committedSnapshot()
      },
      watermark: (sources) => {
        let min = Infinity
        for (const name of sources) {
          const e = this.engine.catalog.entries.get(name)
          const w = e && !isView(e) ? e.watermark : undefined
          if (w === undefined) return -Infinity
          if (w.current < min) min = w.current
        }
        return min
      },
      now: this.engine.ticks.clockBeforeTick ?? this.engine.ticks.advancedTo,
    })
  }

  /** The relations a view or sink depends on through views (CLOCK for a temporal filter
   *  anywhere on the way): when one changes, a rebuild may succeed. */
  bases(m: ViewEntry | SinkEntry): ReadonlySet<string> {
    const known = this.basesOf.get(m)
    if (known !== undefined) return known
    const out = new Set<string>()
    if (hasTemporalFilter(m.plan)) out.add(CLOCK)
    for (const d of m.dependsOn) {
      const e = this.engine.catalog.entries.get(d)
      if (e && isView(e)) for (const b of this.bases(e)) out.add(b)
      else out.add(d)
    }
    this.basesOf.set(m, out)
    return out
  }

  readonly basesOf = new WeakMap<ViewEntry | SinkEntry, ReadonlySet<string>>()

  /** Drops cache entries of arrangements that left the circuit. */
  dropDeadArrangements(): void {
    for (const [k, op] of this.engine.arrangements) if (!this.engine.circuit.has(op)) this.engine.arrangements.delete(k)
  }

  createIndex(s: ast.CreateIndexStmt, ctx: StatementContext): StatementResult {
    // Indexes never change results; arrangements are chosen by the planner. Validate the names.
    const t = this.engine.catalog.entries.get(this.engine.catalog.lookup(s.table.parts))
    if (!t) throw new RivuletError(SqlState.undefinedTable, `relation "${s.table.parts.join('.')}" does not exist`, positionAt(ctx.text, s.table.span.start))
    if (s.name !== undefined) {
      const existing = this.indexes.get(s.name)
      if (existing !== undefined || this.engine.catalog.entries.has(s.name)) {
        if (s.ifNotExists) return { command: 'CREATE INDEX', rowCount: 0 }
        throw new RivuletError(SqlState.duplicateTable, `relation "${s.name}" already exists`, positionAt(ctx.text, s.span.start))
      }
      this.indexes.set(s.name, t.name)
    }
    return { command: 'CREATE INDEX', rowCount: 0 }
  }

  reindex(s: ast.ReindexStmt, ctx: StatementContext): StatementResult {
    // Indexes never change a result and hold no state of their own: rebuilding one is a
    // no-op, but the name must be there. Codes and messages as Postgres gives them for
    // REINDEX INDEX / TABLE; SQLite's bare `REINDEX name` takes an index or a table.
    const result = { command: 'REINDEX', rowCount: 0 }
    if (s.name === undefined) return result
    const name = lastPart(s.name)
    const at = positionAt(ctx.text, s.name.span.start)
    const isIndex = this.indexes.has(name)
    const e = this.engine.catalog.entries.get(this.engine.catalog.lookup(s.name.parts))
    switch (s.object) {
      case 'index':
        if (isIndex) return result
        if (e) throw new RivuletError(SqlState.wrongObjectType, `"${name}" is not an index`, at)
        throw new RivuletError(SqlState.undefinedTable, `relation "${name}" does not exist`, at)
      case 'table':
        if (e && e.kind !== 'view') return result
        if (e || isIndex) throw new RivuletError(SqlState.wrongObjectType, `"${name}" is not a table or materialized view`, at)
        throw new RivuletError(SqlState.undefinedTable, `relation "${name}" does not exist`, at)
      case undefined:
        if (isIndex || e) return result
        throw new RivuletError(SqlState.undefinedObject, `unable to identify the object to be reindexed: no index or table named "${name}"`, at)
    }
  }

  createTrigger(s: ast.CreateTriggerStmt, ctx: StatementContext): StatementResult {
    const result = { command: 'CREATE TRIGGER', rowCount: 0 }
    const tableName = lastPart(s.table)
    const tableAt = positionAt(ctx.text, s.table.span.start)
    const e = this.engine.catalog.entries.get(this.engine.catalog.lookup(s.table.parts))
    if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${s.table.parts.join('.')}" does not exist`, tableAt)
    const name = lastPart(s.name)
    if (this.triggers.has(name)) {
      if (s.ifNotExists) return result
      throw new RivuletError(SqlState.duplicateObject, `trigger "${name}" already exists`, positionAt(ctx.text, s.name.span.start))
    }
    if (isView(e)) {
      // SQLite: BEFORE/AFTER triggers only on tables; INSTEAD OF triggers on views would turn
      // writes to the view into the body's actions, which this engine cannot run
      if (s.timing === 'instead of') throw new RivuletError(SqlState.featureNotSupported, 'INSTEAD OF triggers are not supported', positionAt(ctx.text, s.span.start))
      throw new RivuletError(SqlState.wrongObjectType, `cannot create ${(s.timing ?? 'before').toUpperCase()} trigger on view "${tableName}"`, tableAt)
    }
    if (s.timing === 'instead of') throw new RivuletError(SqlState.wrongObjectType, `cannot create INSTEAD OF trigger on table "${tableName}"`, tableAt)
    for (const c of s.columns) {
      if (!e.columns.some((x) => x.name === c)) throw new RivuletError(SqlState.undefinedColumn, `column "${c}" of relation "${tableName}" does not exist`, positionAt(ctx.text, s.span.start))
    }
    // The body runs for every row the event touches. SELECT statements there have no effect
    // (SQLite discards their results), so such a trigger needs no running; anything else
    // would change data, and a trigger that is accepted but never runs would be a lie.
    for (const b of s.body) {
      if (b.kind !== 'select') throw new RivuletError(SqlState.featureNotSupported, `triggers that modify data are not supported: a trigger body may only hold SELECT statements, found ${statementName(b)}`, positionAt(ctx.text, b.span.start))
    }
    for (const part of [s.when, ...s.body]) {
      const raise = findRaise(part)
      if (raise) throw new RivuletError(SqlState.featureNotSupported, 'triggers that modify data are not supported: RAISE() in a trigger is not supported', positionAt(ctx.text, raise.span.start))
    }
    this.triggers.set(name, { name, table: e.name })
    return result
  }

  drop(s: ast.DropStmt, ctx: StatementContext): StatementResult {
    const tag = `DROP ${s.object.toUpperCase()}`
    if (s.object === 'trigger') {
      for (const n of s.names) {
        const name = lastPart(n)
        if (!this.triggers.has(name) && !s.ifExists) throw new RivuletError(SqlState.undefinedObject, `trigger "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      for (const n of s.names) this.triggers.delete(lastPart(n))
      return { command: tag, rowCount: 0 }
    }
    if (s.object === 'index') {
      for (const n of s.names) {
        const name = lastPart(n)
        if (!this.indexes.delete(name) && !s.ifExists) throw new RivuletError(SqlState.undefinedObject, `index "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      return { command: tag, rowCount: 0 }
    }
    if (s.object === 'source' || s.object === 'sink') return this.engine.connectors.dropSourceOrSink(s, ctx)
    if (s.object === 'schema') return this.engine.schemas.drop(s, ctx)
    for (const n of s.names) {
      const name = lastPart(n)
      const wantView = s.object === 'view' || s.object === 'materialized view'
      const schema = n.parts.length > 1 ? n.parts[n.parts.length - 2] : undefined
      if ((schema === undefined && !this.engine.catalog.entries.has(name) && isSystemRelationName(name)) || schema === 'pg_catalog' || schema === 'information_schema') throw new RivuletError('42501', `permission denied: "${n.parts.join('.')}" is a system catalog`, positionAt(ctx.text, n.span.start))
      const key = this.engine.schemas.existingKey(n, ctx, s.ifExists)
      const e = key === undefined ? undefined : this.engine.catalog.entries.get(key)
      if (!e) {
        if (s.ifExists) continue
        throw new RivuletError(SqlState.undefinedTable, `${wantView ? 'view' : s.object === 'stream' ? 'stream' : 'table'} "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      const isView = e.kind === 'view' || e.kind === 'materialized view'
      if (wantView !== isView || (s.object === 'materialized view' && e.kind !== 'materialized view') || (s.object === 'view' && e.kind !== 'view')) {
        throw new RivuletError(SqlState.wrongObjectType, `"${name}" is not a ${s.object}`, positionAt(ctx.text, n.span.start))
      }
      this.dropCascade(e, s.cascade, ctx, n.span.start)
    }
    return { command: tag, rowCount: 0 }
  }

  dropCascade(e: Entry, cascade: boolean, ctx: StatementContext, at: number): void {
    const deps = this.engine.catalog.dependents(e.name)
    const sinks = [...this.engine.connectors.sinks.values()].filter((k) => k.dependsOn.has(e.name))
    if ((deps.length > 0 || sinks.length > 0) && !cascade) {
      const what = [...(deps.length > 0 ? [`view ${deps.map((d) => d.name).join(', ')}`] : []), ...(sinks.length > 0 ? [`sink ${sinks.map((k) => k.name).join(', ')}`] : [])].join('; ')
      throw new RivuletError(SqlState.dependentObjectsStillExist, `cannot drop ${e.kind} ${e.name} because other objects depend on it (${what}); use DROP ... CASCADE`, positionAt(ctx.text, at))
    }
    for (const k of sinks) this.engine.connectors.dropSink(k)
    for (const d of deps) if (this.engine.catalog.entries.has(d.name)) this.dropCascade(d, true, ctx, at)
    this.dropEntry(e)
  }

  dropEntry(e: Entry): void {
    this.engine.catalog.remove(e)
    if (isView(e)) this.engine.temporalViews.delete(e)
    for (const [i, t] of this.indexes) if (t === e.name) this.indexes.delete(i)
    for (const [n, t] of this.triggers) if (t.table === e.name) this.triggers.delete(n)
    if (!isView(e)) return this.engine.circuit.release(e.input)
    // a view in error holds nothing in the circuit; its row in rivulet_view_errors goes
    if (this.engine.circuit.has(e.sink)) this.engine.circuit.release(e.sink)
    const gone = this.engine.errors.forget(e)
    if (gone.length > 0) this.engine.ticks.applyDelta(this.engine.viewErrors, gone)
  }
}
