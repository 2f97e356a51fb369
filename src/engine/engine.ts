// Engine: the public entry point (SPEC §1.3). Owns the catalog, the dataflow circuit and the
// tick/transaction machinery:
// - every auto-committed statement, BEGIN … COMMIT block and insert()/delete() call is one
//   tick; views are updated as the tick's deltas flow through the circuit and subscribers get
//   the tick's consolidated changes at commit;
// - a failed statement rolls back every table and operator to the start of the tick (inside
//   a transaction block the whole transaction is aborted, as in Postgres);
// - a runtime error while maintaining a view fails no statement: the view goes into error
//   and the tick commits for everything else (src/engine/view-errors.ts);
// - a subscriber's callback that throws changes nothing either: its error goes to the
//   onError listeners (or, without one, is rethrown outside the engine's call);
// - ad hoc SELECTs are rendered with the same operators, backfilled, read and released.

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { parse, printQuery, printStatement, RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import {
  QueryBinder,
  Scope,
  bindExpr,
  coerce,
  explainDelta,
  explainLogical,
  jsonReplacer,
  lower,
  lowerEmitOnWindowClose,
  readsClockOutsideTemporalFilters,
  deltaChildren,
  optimize,
  watermarkColumns,
  typeDisplayName,
  typeFromName,
  typeModifierOf,
  typeWithModifier,
  visitExpr,
  withTypeModifier,
  hasSubquery,
  children,
  type Catalog,
  type Column,
  type DeltaPlan,
  type LogicalPlan,
  type LowerOptions,
  type OptimizeTrace,
  type ScalarExpr,
  type SortKey,
  type SqlType,
  type TypeModifier,
} from '../../planner/index.js'
import { AppendLog, EngineCatalog, NoHistory, TableStore, VersionStore, isView, watermarksOf, type Entry, type StreamWatermark, type TableEntry, type ViewEntry } from './catalog.js'
import { compileProjection, compileScalar, evaluateConstant, isRowConstant, neverRaises, type RowFn } from '../sql-runtime/compile-scalar.js'
import { render, rowComparator } from './render.js'
import { StatementCache } from './statement-cache.js'
import { allocationLimitError } from '../sql-runtime/text-limit.js'
import { EffectRecorder, EngineSession, sameEffect, type SessionHost } from './transactions.js'
import { copyFrom, REJECTED, REJECTED_COLUMNS } from './copy.js'
import { defaultMemoryLimit, withLimits } from '../sql-runtime/statement-limits.js'
import { ConnectorOptions, openSink, type OptionValue, type SinkConnector, type SinkStats, type SourceConnector } from '../connectors/sources.js'
import { NexmarkSource } from '../connectors/nexmark/source.js'
import type { SessionIdentity, ChangeBatch, ColumnInfo, EngineOptions, ExecuteOptions, InputRow, ProgressEvent, QueryResult, RelationInfo, ResultValue, SourceStatus, SqlTypeName, StatementResult, SubscribeOptions, SubscriberErrorContext } from '../types.js'
import { sqlTypeName } from '../types.js'
import { CLOCK, VIEW_ERRORS, VIEW_ERRORS_COLUMNS, ViewErrors, errorText, resultAsOfCommit, type MaintenanceError } from './view-errors.js'
import { isSystemRelationName, withSystemCatalog } from './system-catalog.js'
import { applyTypeModifier, castValue, clock as wallClock, fromInputValue, toResultValue } from '../sql-runtime/values.js'

interface StatementContext {
  readonly text: string
  /** false: a file COPY is refused (42501) */
  readonly serverFiles: boolean
  readonly stdin: Buffer | undefined
  /** Who runs it (current_user, …); absent = the engine API's defaults. */
  readonly session?: SessionIdentity
}

/** Runs a render (giving its errors a statement position, when there is one). */
type RenderAt = <T>(render: () => T) => T

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

/** A source: its connector and the streams it feeds (SPEC §1.1; src/connectors/sources.ts). */
interface SourceEntry {
  readonly name: string
  readonly connector: SourceConnector
  readonly streams: readonly TableEntry[]
  /** Wall-clock ms when it started (pacing counts from here). */
  readonly startedAt: number
  /** Set when a batch failed: the source stops, and says why in sourceStatus(). */
  error: RivuletError | undefined
  readonly waiters: { resolve: () => void; reject: (e: unknown) => void }[]
}

/** A sink: a maintained query whose committed changes go to a connector, not to a view. */
interface SinkEntry {
  readonly kind: 'sink'
  readonly name: string
  readonly connector: SinkConnector
  readonly plan: DeltaPlan
  /** Its last operator (replaced when it is rebuilt after an error). */
  output: ivm.OutputOperator
  /** The operators its plan became (for stateSize; empty while in error). */
  operators: ReadonlyMap<DeltaPlan, ivm.Operator>
  readonly dependsOn: ReadonlySet<string>
  /** Changes of the open tick, written to the connector at commit. */
  pending: ivm.ZSet
  /** Set while it is in error: it writes nothing until the error clears. */
  error: MaintenanceError | undefined
}

/** A trigger (SQLite's CREATE TRIGGER). Only triggers whose body cannot change anything
 *  (SELECT statements, whose results SQLite discards) are accepted, so none needs to run. */
interface TriggerEntry {
  readonly name: string
  readonly table: string
}

export class Engine {
  readonly #catalog = new EngineCatalog()
  readonly #circuit = new ivm.Circuit()
  readonly #arrangements = new Map<string, ivm.ArrangeOperator>()
  /** Tables written in the open tick (their stores journal until commit). */
  readonly #touched = new Set<TableStore | VersionStore>()
  #tick = 0
  #closed = false
  /** Sessions (see transactions.ts): the one whose call runs now, the one whose block's writes
   *  are the open tick, the default one (db.execute and friends), and the engine's own (source
   *  batches, SUBSCRIBE's hidden views), which never opens a block. */
  readonly #host: SessionHost = {
    executeAs: (session, sql, options) => this.#as(session, () => this.execute(sql, options)),
    insertAs: (session, table, rows) => this.#as(session, () => this.insert(table, rows)),
    deleteAs: (session, table, rows) => this.#as(session, () => this.delete(table, rows)),
    closeSession: (session) => this.#closeSession(session),
  }
  readonly #defaultSession = new EngineSession(this.#host)
  readonly #internal = new EngineSession(this.#host)
  #current: EngineSession = this.#defaultSession
  #open: EngineSession | undefined
  /** Collects what a block's write stages (undefined outside one). */
  #recorder: EffectRecorder | undefined
  readonly #statements = new StatementCache()
  /** Index name → table (indexes never change results; kept for DROP INDEX). */
  readonly #indexes = new Map<string, string>()
  /** Trigger name → trigger (dropped with their table). */
  readonly #triggers = new Map<string, TriggerEntry>()
  /** Streams that received rows (or late events) in the open tick. */
  readonly #streamsTouched = new Set<TableEntry>()
  /** The NOT NULL column positions of each table (for checking source batches). */
  readonly #notNullColumns = new WeakMap<TableEntry, readonly number[]>()
  /** Late events per stream of the statement running (for its NOTICE), when it had any. */
  #lateInStatement: Map<string, number> | undefined
  /** rivulet_late_events (SPEC §2): late events, queryable and usable in views. */
  readonly #lateEvents: TableEntry
  /** rivulet_rejected: records COPY could not load (copy.ts). */
  readonly #rejected: TableEntry
  /** rivulet_view_errors: the views in error (view-errors.ts). */
  readonly #viewErrors: TableEntry
  readonly #errors: ViewErrors<ViewEntry | SinkEntry>
  /** Relations changed in the open tick (what views in error are rebuilt on). */
  readonly #changed = new Set<string>()
  /** What a view in error holds as its sink: empty, outside the circuit. */
  readonly #detachedSink = new ivm.IntegrateOperator(new ivm.InputOperator(() => new ivm.ZSet()))
  readonly #errorListeners = new Set<(error: unknown, context: SubscriberErrorContext) => void>()
  /** Processing time source (epoch ms) and the open tick's reading of it (µs). */
  readonly #clock: () => number | Date
  #tickNow: number | undefined
  /** Views with a temporal filter: time passing changes them. */
  readonly #temporalViews = new Set<ViewEntry>()
  /** Processing time up to which time-driven operators have been advanced (µs). */
  #advancedTo = -Infinity
  readonly #sources = new Map<string, SourceEntry>()
  readonly #sinks = new Map<string, SinkEntry>()
  /** 'background': sources run between statements on the event loop; 'manual': only when
   *  stepSource() (or FLUSH) runs them. */
  readonly #sourceDriving: 'background' | 'manual'
  #sourceTimer: ReturnType<typeof setImmediate> | ReturnType<typeof setTimeout> | undefined

  static open(options: EngineOptions = {}): Engine {
    return new Engine(options)
  }

  constructor(options: EngineOptions = {}) {
    if (options.dir !== undefined) throw new RivuletError(SqlState.featureNotSupported, 'durable mode (--data DIR) arrives with the durability issue; run in memory for now')
    this.#clock = options.clock ?? (() => this.#wall() / 1000)
    this.#sourceDriving = options.sources ?? 'background'
    this.#maxMemoryBytes = options.maxMemoryBytes ?? defaultMemoryLimit()
    const columns: Column[] = [
      { name: 'stream', type: 'text' },
      { name: 'seq', type: 'bigint' },
      { name: 'event_time', type: 'timestamp' },
      { name: 'watermark', type: 'timestamp' },
      { name: 'tick', type: 'bigint' },
      { name: 'row', type: 'text' },
    ]
    const store = new TableStore([])
    const input = this.#circuit.add(new ivm.InputOperator(() => store.snapshot()))
    this.#circuit.retain(input)
    this.#lateEvents = { kind: 'system', name: LATE_EVENTS, columns, primaryKey: [], notNull: columns.map(() => false), defaults: columns.map(() => undefined), store, input }
    this.#catalog.add(this.#lateEvents)
    const rejectedStore = new TableStore([])
    const rejectedInput = this.#circuit.add(new ivm.InputOperator(() => rejectedStore.snapshot()))
    this.#circuit.retain(rejectedInput)
    this.#rejected = { kind: 'system', name: REJECTED, columns: REJECTED_COLUMNS, primaryKey: [], notNull: REJECTED_COLUMNS.map(() => false), defaults: REJECTED_COLUMNS.map(() => undefined), store: rejectedStore, input: rejectedInput }
    this.#catalog.add(this.#rejected)
    const errorsStore = new TableStore([0])
    const errorsInput = this.#circuit.add(new ivm.InputOperator(() => errorsStore.snapshot()))
    this.#circuit.retain(errorsInput)
    this.#viewErrors = { kind: 'system', name: VIEW_ERRORS, columns: VIEW_ERRORS_COLUMNS, primaryKey: [0], notNull: VIEW_ERRORS_COLUMNS.map(() => false), defaults: VIEW_ERRORS_COLUMNS.map(() => undefined), store: errorsStore, input: errorsInput }
    this.#catalog.add(this.#viewErrors)
    // errors raised by the data (RivuletErrors) put views in error; anything else is a bug
    // and fails the tick
    this.#circuit.isolate = (e) => e instanceof RivuletError
    this.#errors = new ViewErrors<ViewEntry | SinkEntry>({
      maintained: () => this.#maintained(),
      view: (name) => {
        const e = this.#catalog.entries.get(name)
        return e && isView(e) ? e : undefined
      },
      output: (m) => (m.kind === 'sink' ? m.output : m.sink),
      wantsDifference: (m) => m.kind === 'sink' || m.subscribers.size > 0,
      lastGood: (m) => (m.kind === 'sink' ? this.#sinkResultAsOfCommit(m) : m.sink.contents()),
      detach: (m) => this.#detach(m),
      rebuild: (m) => this.#rebuild(m),
      deliver: (m, delta) => {
        m.pending = delta ?? new ivm.ZSet()
      },
      bases: (m) => this.#bases(m),
      applyErrorRows: (delta) => this.#applyDelta(this.#viewErrors, delta),
    })
  }

  /** Lets processing time pass without input: reads the clock and applies what time changes
   *  (temporal filters: rows entering and leaving views), as one tick. Returns whether any
   *  view changed. (The REPL and server call it periodically.) */
  refresh(): boolean {
    this.#checkOpen()
    this.#checkNotAborted()
    if (this.#current.block !== 'none') return false
    this.#park()
    const before = this.#tick
    this.#onClock(() => this.#inTick(() => undefined))
    return this.#tick !== before
  }

  /** The open tick's processing time in µs (read from the clock once per tick; a clock that
   *  steps back holds time still for the views). */
  #now(): number {
    if (this.#tickNow === undefined) {
      const c = this.#clock()
      const ms = c instanceof Date ? c.getTime() : c
      this.#tickNow = Math.max(Math.round(ms * 1000), this.#advancedTo)
    }
    return this.#tickNow
  }

  /** The watermark of a stream (SPEC §2) as a timestamp text, or null before its first event
   *  (or for a stream without WATERMARK). */
  watermark(stream: string): string | null {
    this.#checkOpen()
    const e = this.#catalog.entries.get(foldName(stream))
    if (!e || isView(e) || e.kind !== 'stream') throw new RivuletError(SqlState.undefinedTable, `stream "${stream}" does not exist`)
    const w = e.watermark
    return w === undefined || w.current === -Infinity ? null : (toResultValue(w.current, 'timestamp') as string)
  }

  /** Entries of state a view's operators hold (groups, arranged rows, pending windows, …;
   *  shared arrangements counted for each view using them), and rows stored for a table or
   *  stream (for a versioned table: the versions in its history); a sink's operators' state
   *  likewise. For watching memory stay
   *  bounded. */
  stateSize(relation: string): number {
    this.#checkOpen()
    const e = this.#catalog.entries.get(foldName(relation)) ?? this.#sinks.get(foldName(relation))
    if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${relation}" does not exist`)
    if (!('operators' in e)) return e.versions ? e.versions.size : e.store.size
    const own = 'sink' in e ? e.sink : undefined
    let n = 0
    for (const op of new Set(e.operators.values())) if (!(op instanceof ivm.InputOperator) && !(op instanceof ivm.IntegrateOperator && op !== own)) n += op.stateSize()
    return n
  }

  /** How many late events a stream has counted (SPEC §2), including those no longer kept. */
  lateEvents(stream: string): number {
    this.#checkOpen()
    const e = this.#catalog.entries.get(foldName(stream))
    if (!e || isView(e) || e.kind !== 'stream') throw new RivuletError(SqlState.undefinedTable, `stream "${stream}" does not exist`)
    return e.watermark?.late ?? 0
  }

  get inTransaction(): boolean {
    return this.#current.block !== 'none'
  }

  /** A new session on this engine: its own BEGIN … COMMIT, which never waits for another
   *  session's and never sees its uncommitted writes (see transactions.ts). */
  session(): EngineSession {
    this.#checkOpen()
    return new EngineSession(this.#host)
  }

  /** Runs `f` as `session` (the engine's entry points act for the current session). */
  #as<T>(session: EngineSession, f: () => T): T {
    if (session.closed) throw new RivuletError(SqlState.objectNotInPrerequisiteState, 'session is closed')
    const saved = this.#current
    this.#current = session
    try {
      return f()
    } finally {
      this.#current = saved
    }
  }

  /** Makes the engine's open tick the current session's: another session's open block is
   *  parked (rolled back, its writes kept), and the current session's own block, if parked
   *  and it has writes, is resumed (its writes redone; 40001 when one no longer does what it
   *  did). Called before anything reads or writes tables. */
  #prepare(): void {
    const me = this.#current
    if (this.#open !== undefined && this.#open !== me) this.#park()
    if (me.block === 'open' && me.writes.length > 0 && this.#open !== me) this.#resume(me)
  }

  /** Rolls back the open block's tick; its session keeps its writes to redo. */
  #park(): void {
    if (this.#open === undefined) return
    this.#rollbackTick()
    this.#open = undefined
  }

  #resume(me: EngineSession): void {
    this.#open = me
    for (const w of me.writes) {
      const recorder = new EffectRecorder()
      this.#recorder = recorder
      this.#tickNow = me.now
      let same: boolean
      try {
        w.redo()
        same = sameEffect(recorder.finish(), w.effect)
      } catch (e) {
        if (!(e instanceof RivuletError)) throw e
        same = false
      } finally {
        this.#recorder = undefined
      }
      if (!same) {
        this.#rollbackTick()
        this.#open = undefined
        me.reset('aborted')
        throw new RivuletError('40001', 'could not serialize access due to concurrent update', undefined, 'Another session committed a change to rows this transaction wrote; the transaction was rolled back. Retry it.')
      }
    }
  }

  /** An error inside the current session's block aborts it: what it wrote is undone now. */
  #abortBlock(): void {
    const me = this.#current
    if (me.block !== 'open') return
    if (this.#open === me) {
      this.#rollbackTick()
      this.#open = undefined
    }
    me.reset('aborted')
  }

  #closeSession(session: EngineSession): void {
    if (this.#open === session) {
      this.#rollbackTick()
      this.#open = undefined
    }
    session.reset('none')
  }

  /** Number of committed ticks so far. */
  get tick(): number {
    return this.#tick
  }

  // ------------------------------------------------------------------------- public API

  execute(sql: string, options: ExecuteOptions = {}): StatementResult[] {
    this.#checkOpen()
    const limits = options.limits?.maxMemoryBytes !== undefined ? options.limits : { ...options.limits, maxMemoryBytes: this.#maxMemoryBytes }
    return this.#onClock(() => withLimits(limits, () => this.#execute(sql, options)))
  }

  /** The heap a statement may leave in use (EngineOptions.maxMemoryBytes). */
  readonly #maxMemoryBytes: number

  /** Runs `f` with NOW(), CURRENT_DATE and 'now' reading this engine's tick time. */
  #onClock<T>(f: () => T): T {
    if (this.#onClockDepth > 0) return f()
    const saved = wallClock.nowMicros
    this.#wall = saved
    wallClock.nowMicros = () => this.#now()
    this.#onClockDepth++
    try {
      return f()
    } finally {
      this.#onClockDepth--
      wallClock.nowMicros = saved
    }
  }

  #onClockDepth = 0
  /** The process clock as it was outside #onClock (what the default engine clock reads). */
  #wall: () => number = wallClock.nowMicros

  #execute(sql: string, options: ExecuteOptions): StatementResult[] {
    try {
      const { statements, fromTemplate } = this.#statements.parse(sql)
      const results: StatementResult[] = []
      const ctx: StatementContext = { text: sql, serverFiles: options.serverFiles !== false, stdin: options.stdin, ...(options.session ? { session: options.session } : {}) }
      for (let i = 0; i < statements.length; i++) {
        try {
          results.push(this.#run(statements[i]!.statement, ctx))
        } catch (e) {
          // a statement copied from a template carries the template's spans: re-run it from a
          // real parse so the error points into this text (the failure changed nothing)
          if (!fromTemplate || !(e instanceof RivuletError) || !e.position) throw e
          results.push(this.#run(parse(sql)[i]!.statement, ctx))
        }
      }
      return results
    } catch (e) {
      // any error inside a transaction block aborts it, as in Postgres (syntax errors and
      // failed reads too): its changes are undone now, COMMIT will report ROLLBACK
      this.#abortBlock()
      // a statement nested or chained deeper than the planner's recursion can take
      // (a RangeError for a too-large string or array is a value past the text limit instead)
      if (e instanceof RangeError) throw allocationLimitError(e) ?? new RivuletError('54001', 'statement is too complex (nested or chained too deeply)')
      throw e
    }
  }

  query(sql: string): QueryResult {
    const results = this.execute(sql)
    const last = results[results.length - 1]
    return { columns: last?.columns ?? [], rows: last?.rows ?? [] }
  }

  subscribe(view: string, callback: (batch: ChangeBatch) => void, options: SubscribeOptions = {}): () => void {
    this.#checkOpen()
    const v = this.#catalog.entries.get(foldName(view))
    if (!v || (v.kind !== 'view' && v.kind !== 'materialized view')) throw new RivuletError(SqlState.undefinedTable, `view "${view}" does not exist`)
    // the snapshot is the last committed tick (or the current session's own block)
    this.#prepare()
    this.#checkReadable(v)
    const sub = { callback }
    if (options.snapshot !== false) {
      const changes = this.#resultChanges(v.sink.contents(), v.columns)
      callback({ tick: this.#tick, columns: columnInfo(v.columns), changes })
    }
    v.subscribers.add(sub)
    if (this.#catalog.entries.get(v.name) === v) this.#catalog.subscribed.add(v)
    return () => {
      v.subscribers.delete(sub)
      if (v.subscribers.size === 0) this.#catalog.subscribed.delete(v)
    }
  }

  /** `SUBSCRIBE [TO] name | (query) [WITH (SNAPSHOT = false)]` as a statement (SPEC §4): the
   *  callback gets the current contents as one batch of inserts (unless SNAPSHOT = false),
   *  then every tick's changes. A table, stream or query is maintained by a hidden view of
   *  its own, dropped by `stop()`. Returns the columns and the stop function. */
  subscribeStatement(sql: string, callback: (batch: ChangeBatch) => void): { columns: ColumnInfo[]; stop: () => void } {
    this.#checkOpen()
    this.#checkNotAborted()
    const parsed = parse(sql)
    const s = parsed.length === 1 ? parsed[0]!.statement : undefined
    if (!s || s.kind !== 'subscribe') throw new RivuletError(SqlState.syntaxError, 'expected one SUBSCRIBE statement')
    let snapshot = true
    for (const o of s.with) {
      const v = o.value
      const literal = v?.kind === 'literal' ? v.value : undefined
      const flag = v === undefined ? true : literal?.type === 'boolean' ? literal.value : v.kind === 'column' && v.parts.length === 1 ? v.parts[0] : undefined
      if (o.name !== 'snapshot' || (flag !== true && flag !== false && flag !== 'true' && flag !== 'false')) throw new RivuletError(SqlState.invalidParameterValue, `unrecognized SUBSCRIBE option "${o.name}"${o.name === 'snapshot' ? ' value (expected true or false)' : ' (known: SNAPSHOT)'}`, positionAt(sql, o.span.start))
      snapshot = flag === true || flag === 'true'
    }
    let name: string
    let hidden: string | undefined
    const target = s.target ? this.#catalog.entries.get(lastPart(s.target)) : undefined
    if (s.target && !target) throw new RivuletError(SqlState.undefinedTable, `relation "${s.target.parts.join('.')}" does not exist`, positionAt(sql, s.target.span.start))
    if (target && isView(target)) name = target.name
    else {
      const query = s.query ? sql.slice(s.query.span.start, s.query.span.end) : `SELECT * FROM ${quoteIdentifier(target!.name)}`
      hidden = `${HIDDEN_PREFIX}${++this.#hiddenViews}`
      // the hidden view is the engine's, outside any block of the caller's
      this.#as(this.#internal, () => this.execute(`CREATE MATERIALIZED VIEW ${hidden} AS ${query}`))
      name = hidden
    }
    const columns = columnInfo(this.#catalog.entries.get(name)!.columns)
    let stop: () => void
    try {
      stop = this.subscribe(name, callback, { snapshot })
    } catch (e) {
      if (hidden) this.#as(this.#internal, () => this.execute(`DROP MATERIALIZED VIEW ${hidden}`))
      throw e
    }
    let stopped = false
    return {
      columns,
      stop: () => {
        if (stopped) return
        stopped = true
        stop()
        if (hidden && !this.#closed && this.#catalog.entries.has(hidden)) this.#as(this.#internal, () => this.execute(`DROP MATERIALIZED VIEW ${hidden}`))
      },
    }
  }

  #hiddenViews = 0

  readonly #progressListeners = new Set<(p: ProgressEvent) => void>()

  /** Listens to the progress of long work inside statements (a COPY's bytes read), e.g. for a
   *  progress bar; returns the function that stops listening. Listeners run synchronously,
   *  inside the statement; one that throws is ignored. */
  onProgress(listener: (p: ProgressEvent) => void): () => void {
    this.#progressListeners.add(listener)
    return () => void this.#progressListeners.delete(listener)
  }

  /** Listens to errors thrown by subscribers' callbacks (`subscribe`, `subscribeStatement`):
   *  such an error changes nothing — the tick is committed and every other subscriber gets
   *  its batch — and is handed to these listeners with the view and tick. Without any
   *  listener it is rethrown outside the engine's call (an uncaught exception, like an
   *  'error' event nobody listens to). Returns the function that stops listening. */
  onError(listener: (error: unknown, context: SubscriberErrorContext) => void): () => void {
    this.#errorListeners.add(listener)
    return () => void this.#errorListeners.delete(listener)
  }

  #progress(p: ProgressEvent): void {
    for (const l of this.#progressListeners) {
      try {
        l(p)
      } catch {
        // a display must not fail the statement
      }
    }
  }

  /** Runs an API call under the engine's memory limit (execute has the statement's). */
  #guarded<T>(f: () => T): T {
    return withLimits({ maxMemoryBytes: this.#maxMemoryBytes }, f)
  }

  insert(table: string, rows: readonly InputRow[]): number {
    this.#checkOpen()
    this.#checkNotAborted()
    this.#prepare()
    const t = this.#table(foldName(table))
    return this.#guarded(() =>
      this.#onClock(() => {
        const converted = rows.map((r) => this.#convertInput(t, r))
        return this.#inTick(() => this.#insertRows(t, converted, { text: '', serverFiles: false, stdin: undefined }))
      }),
    )
  }

  delete(table: string, rows: readonly InputRow[]): number {
    this.#checkOpen()
    this.#checkNotAborted()
    this.#prepare()
    const t = this.#table(foldName(table))
    this.#refuseStream(t, 'DELETE')
    const converted = rows.map((r) => this.#convertInput(t, r))
    return this.#guarded(() => this.#inTick(() => {
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
      this.#applyDelta(t, c)
      return -c.weights.reduce((a, b) => a + b, 0)
    }))
  }

  /** A relation's OID (pg_class.oid): given when it is created, stable while it exists. */
  relationOid(name: string): number {
    return this.#catalog.oidOf(name)
  }

  relations(): RelationInfo[] {
    const out: RelationInfo[] = []
    for (const e of this.#catalog.entries.values()) {
      // system relations (rivulet_late_events) are read by name, not listed; nor are the
      // hidden views behind SUBSCRIBE statements
      if (e.kind === 'system' || e.name.startsWith(HIDDEN_PREFIX)) continue
      out.push({
        name: e.name,
        kind: e.kind,
        columns: columnInfo(e.columns),
        primaryKey: e.kind === 'table' || e.kind === 'stream' ? e.primaryKey.map((i) => e.columns[i]!.name) : [],
        ...(e.kind === 'view' || e.kind === 'materialized view' ? { definition: e.definition } : {}),
        ...relationDetails(e),
      })
    }
    return out
  }

  close(): void {
    this.#park()
    this.#closed = true
    this.#clearSourceTimer()
    for (const src of this.#sources.values()) this.#settleWaiters(src, new RivuletError(SqlState.objectNotInPrerequisiteState, 'the engine was closed'))
  }

  // ------------------------------------------------------------------------- sources and sinks

  /** Runs a source by hand: micro-batches (one tick each) until `maxEvents` events or the
   *  end of a bounded source. Returns the number of events produced. */
  stepSource(name: string, maxEvents = Infinity): number {
    this.#checkOpen()
    this.#checkNotAborted()
    const src = this.#source(foldName(name))
    if (this.#current.block !== 'none') throw new RivuletError(SqlState.activeSqlTransaction, 'a source cannot run inside a transaction block: each of its micro-batches is a tick of its own')
    if (maxEvents === Infinity && !Number.isFinite(src.connector.total)) throw new RivuletError(SqlState.invalidParameterValue, `source "${src.name}" is unbounded: give stepSource() a number of events`)
    let n = 0
    while (n < maxEvents && !src.connector.done && src.error === undefined) {
      const got = this.#guarded(() => this.#sourceBatch(src, Math.min(src.connector.batchSize, maxEvents - n)))
      if (got === 0) break
      n += got
    }
    if (src.connector.done) this.#settleWaiters(src)
    return n
  }

  /** How far a source has come. */
  sourceStatus(name: string): SourceStatus {
    this.#checkOpen()
    const src = this.#source(foldName(name))
    return { name: src.name, events: src.connector.emitted, done: src.connector.done, streams: src.streams.map((t) => t.name), ...(src.error ? { error: src.error.message } : {}) }
  }

  /** Resolves when a bounded source has produced all its events (rejects if it fails). */
  sourceDone(name: string): Promise<void> {
    this.#checkOpen()
    const src = this.#source(foldName(name))
    if (src.connector.done) return Promise.resolve()
    if (src.error) return Promise.reject(src.error)
    const p = new Promise<void>((resolve, reject) => src.waiters.push({ resolve, reject }))
    // someone waits: the driving timer must keep the process alive now
    this.#clearSourceTimer()
    this.#scheduleSources()
    return p
  }

  /** What a sink has written: rows inserted and retracted, ticks. */
  sinkStatus(name: string): SinkStats {
    this.#checkOpen()
    const sink = this.#sinks.get(foldName(name))
    if (!sink) throw new RivuletError(SqlState.undefinedObject, `sink "${name}" does not exist`)
    // in error, a sink holds at its last good tick: it says why
    return sink.error ? { ...sink.connector.stats, error: errorText(sink.error) } : sink.connector.stats
  }

  #source(name: string): SourceEntry {
    const src = this.#sources.get(name)
    if (!src) throw new RivuletError(SqlState.undefinedObject, `source "${name}" does not exist`)
    return src
  }

  /** One micro-batch of a source as one tick. A batch that fails (a view's expression
   *  raising an error, say) changes nothing; the source stops and reports the error. */
  #sourceBatch(src: SourceEntry, max: number): number {
    const out: Row[][] = src.streams.map(() => [])
    try {
      // a micro-batch is a tick of its own: never part of a session's block
      this.#park()
      return this.#as(this.#internal, () => this.#onClock(() =>
        this.#inTick(() => {
          const n = src.connector.next(max, this.#now(), out)
          this.#insertSourceRows(src.streams, out)
          return n
        }),
      ))
    } catch (e) {
      src.error = e instanceof RivuletError ? e : (allocationLimitError(e) ?? new RivuletError(SqlState.internalError, String(e instanceof Error ? e.message : e)))
      this.#settleWaiters(src, src.error)
      throw src.error
    }
  }

  #settleWaiters(src: SourceEntry, error?: unknown): void {
    for (const w of src.waiters.splice(0)) error === undefined ? w.resolve() : w.reject(error)
  }

  #clearSourceTimer(): void {
    if (this.#sourceTimer === undefined) return
    clearImmediate(this.#sourceTimer as ReturnType<typeof setImmediate>)
    clearTimeout(this.#sourceTimer as ReturnType<typeof setTimeout>)
    this.#sourceTimer = undefined
  }

  /** Background driving: one batch of each running source per turn of the event loop, so
   *  statements (the REPL's, the server's) interleave with the source's ticks. The timer
   *  keeps the process alive only while someone awaits sourceDone(). */
  #scheduleSources(): void {
    if (this.#sourceTimer !== undefined || this.#closed || this.#sourceDriving === 'manual') return
    let wait = Infinity
    let awaited = false
    for (const src of this.#sources.values()) {
      if (src.connector.done || src.error) continue
      if (src.waiters.length > 0) awaited = true
      wait = Math.min(wait, this.#sourceDelay(src))
    }
    if (wait === Infinity) return
    const timer = wait <= 0 ? setImmediate(() => this.#runSources()) : setTimeout(() => this.#runSources(), Math.ceil(wait))
    if (!awaited) timer.unref()
    this.#sourceTimer = timer
  }

  /** Milliseconds until a paced source may produce its next event (0: now). */
  #sourceDelay(src: SourceEntry): number {
    const pace = src.connector.pace
    if (pace === Infinity) return 0
    const due = src.startedAt + (src.connector.emitted * 1000) / pace
    return Math.max(0, due - Date.now())
  }

  #runSources(): void {
    this.#sourceTimer = undefined
    if (this.#closed) return
    for (const src of this.#sources.values()) {
      if (src.connector.done || src.error) continue
      let allowed = src.connector.batchSize
      if (src.connector.pace !== Infinity) allowed = Math.min(allowed, Math.floor(((Date.now() - src.startedAt) * src.connector.pace) / 1000) - src.connector.emitted + 1)
      if (allowed <= 0) continue
      try {
        this.#guarded(() => this.#sourceBatch(src, allowed))
      } catch {
        // recorded on the source (sourceStatus, sourceDone); the others go on
      }
      if (src.connector.done) this.#settleWaiters(src)
    }
    this.#scheduleSources()
  }

  /** FLUSH: every bounded source runs to its end now, so what follows sees all its events. */
  #drainBoundedSources(): void {
    for (const src of this.#sources.values()) {
      if (src.connector.done || src.error || !Number.isFinite(src.connector.total)) continue
      this.stepSource(src.name)
    }
  }

  #createSource(s: ast.CreateSourceStmt, ctx: StatementContext): StatementResult {
    const name = lastPart(s.name)
    const result = { command: 'CREATE SOURCE', rowCount: 0 }
    if (this.#sources.has(name)) {
      if (s.ifNotExists) return result
      throw new RivuletError(SqlState.duplicateObject, `source "${name}" already exists`, positionAt(ctx.text, s.name.span.start))
    }
    const options = this.#connectorOptions('source', s.with, ctx)
    const connectorName = options.text('connector', undefined)
    let connector: SourceConnector
    if (connectorName === 'nexmark') connector = new NexmarkSource(options)
    else throw new RivuletError(SqlState.invalidParameterValue, connectorName === undefined ? "CREATE SOURCE needs WITH (connector = '…') (known: nexmark)" : `unknown source connector "${connectorName}" (known: nexmark)`, positionAt(ctx.text, s.span.start))
    for (const r of connector.relations) {
      if (this.#catalog.entries.has(r.name)) throw new RivuletError(SqlState.duplicateTable, `source "${name}" feeds a stream "${r.name}", and a relation of that name already exists`, positionAt(ctx.text, s.name.span.start))
    }
    for (const r of connector.relations) this.#run(parse(r.ddl)[0]!.statement, { text: r.ddl, serverFiles: false, stdin: undefined })
    const streams = connector.relations.map((r) => this.#catalog.entries.get(r.name) as TableEntry)
    this.#sources.set(name, { name, connector, streams, startedAt: Date.now(), error: undefined, waiters: [] })
    this.#scheduleSources()
    return result
  }

  /** WITH (…) options of a connector, evaluated as constants. */
  #connectorOptions(what: string, opts: readonly ast.WithOption[], ctx: StatementContext): ConnectorOptions {
    const values = new Map<string, { value: OptionValue; at: number }>()
    for (const o of opts) {
      let value: OptionValue = true
      if (o.value !== undefined) {
        const bound = bindExpr(o.value, this.#constantExprCtx(new Scope([]), ctx, 'WITH'))
        const v = evaluateConstant(bound)
        value = typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v === null ? v : String(v)
      }
      values.set(o.name, { value, at: o.span.start })
    }
    return new ConnectorOptions(what, values, (at) => positionAt(ctx.text, at))
  }

  #createSink(s: ast.CreateSinkStmt, ctx: StatementContext): StatementResult {
    const name = lastPart(s.name)
    const result = { command: 'CREATE SINK', rowCount: 0 }
    if (this.#sinks.has(name)) {
      if (s.ifNotExists) return result
      throw new RivuletError(SqlState.duplicateObject, `sink "${name}" already exists`, positionAt(ctx.text, s.name.span.start))
    }
    const options = this.#connectorOptions('sink', s.with, ctx)
    const connectorName = options.text('connector', undefined)
    const snapshot = options.boolean('snapshot', true)
    const connector = openSink(options, connectorName, positionAt(ctx.text, s.span.start))
    let query = s.query
    if (query === undefined) {
      const from = lastPart(s.from!)
      if (!this.#catalog.entries.has(from)) throw new RivuletError(SqlState.undefinedTable, `relation "${from}" does not exist`, positionAt(ctx.text, s.from!.span.start))
      query = (parse(`SELECT * FROM ${quoteIdentifier(from)}`)[0]!.statement as ast.SelectStmt).query
    }
    const { plan: logical } = this.#bindQuery(query, ctx)
    refuseSystemRelations(logical, 'a sink', ctx, query.span.start)
    const optimized = optimize(logical)
    const lowerOptions = this.#lowerOptions
    const at = s.query?.span.start ?? s.span.start
    const plan = query.emitOnWindowClose ? this.#lowerAt(() => lowerEmitOnWindowClose(optimized, lowerOptions), ctx, at) : lower(optimized, lowerOptions)
    if (readsClockOutsideTemporalFilters(plan)) throw new RivuletError(SqlState.featureNotSupported, 'a sink cannot be maintained over NOW() (or CURRENT_DATE) except in a temporal filter', positionAt(ctx.text, at))
    let entry: SinkEntry | undefined
    const { output: out, operators, initial } = this.#buildSink(plan, () => entry, (f) => this.#lowerAt(f, ctx, at))
    entry = { kind: 'sink', name, connector, plan, output: out, operators, dependsOn: scannedRelations(logical), pending: new ivm.ZSet(), error: undefined }
    const first = initial.consolidate()
    if (snapshot && first.length > 0) connector.write(this.#tick, first.rows, first.weights)
    this.#sinks.set(name, entry)
    return result
  }

  /** Commit: each sink writes its tick's changes. */
  #writeSinks(): void {
    for (const sink of this.#sinks.values()) {
      if (sink.pending.length === 0) continue
      // only retractions can cancel: an insert-only tick goes out as it is
      const delta = sink.pending.weights.some((w) => w < 0) ? sink.pending.consolidate() : sink.pending
      sink.pending = new ivm.ZSet()
      if (delta.length > 0) sink.connector.write(this.#tick, delta.rows, delta.weights)
    }
  }

  #dropSourceOrSink(s: ast.DropStmt, ctx: StatementContext): StatementResult {
    const tag = `DROP ${s.object.toUpperCase()}`
    for (const n of s.names) {
      const name = lastPart(n)
      if (s.object === 'sink') {
        const sink = this.#sinks.get(name)
        if (!sink) {
          if (s.ifExists) continue
          throw new RivuletError(SqlState.undefinedObject, `sink "${name}" does not exist`, positionAt(ctx.text, n.span.start))
        }
        this.#dropSink(sink)
        continue
      }
      const src = this.#sources.get(name)
      if (!src) {
        if (s.ifExists) continue
        throw new RivuletError(SqlState.undefinedObject, `source "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      // its streams go with it: what reads them needs CASCADE
      for (const t of src.streams) if (this.#catalog.entries.get(t.name) === t) this.#dropCascade(t, s.cascade, ctx, n.span.start)
      this.#sources.delete(name)
      this.#settleWaiters(src, new RivuletError(SqlState.objectNotInPrerequisiteState, `source "${name}" was dropped`))
    }
    return { command: tag, rowCount: 0 }
  }

  #dropSink(sink: SinkEntry): void {
    this.#sinks.delete(sink.name)
    this.#errors.forget(sink)
    if (this.#circuit.has(sink.output)) this.#circuit.release(sink.output)
  }

  // ------------------------------------------------------------------------- statements

  #run(s: ast.Statement, ctx: StatementContext): StatementResult {
    if (!(s.kind === 'transaction' && s.action !== 'begin')) this.#checkNotAborted()
    // the tables as this session sees them (COMMIT and ROLLBACK see to it themselves)
    if (s.kind !== 'transaction' && s.kind !== 'set') this.#prepare()
    // late events this statement carries (not those of writes redone by #prepare)
    this.#lateInStatement = undefined
    const result = this.#runPrepared(s, ctx)
    const late = this.#lateInStatement
    if (late === undefined) return result
    this.#lateInStatement = undefined
    return { ...result, notice: result.notice === undefined ? lateNotice(late) : `${result.notice}\n${lateNotice(late)}` }
  }

  #runPrepared(s: ast.Statement, ctx: StatementContext): StatementResult {
    switch (s.kind) {
      case 'transaction':
        return this.#transaction(s)
      case 'select':
        return this.#select(s.query, ctx)
      case 'explain':
        return this.#explain(s, ctx)
      case 'show':
        return this.#show(s)
      case 'set':
        return { command: 'SET', rowCount: 0 }
      case 'session':
        throw new RivuletError(SqlState.featureNotSupported, `${printStatement(s).split(' ')[0]} needs a client session: connect to rivulet serve`, positionAt(ctx.text, s.span.start))
      case 'flush':
        this.#refuseInTransaction('FLUSH', ctx, s.span.start)
        this.#drainBoundedSources()
        return { command: 'FLUSH', rowCount: 0 }
      case 'createSource':
        this.#refuseInTransaction('CREATE SOURCE', ctx, s.span.start)
        return this.#inTick(() => this.#createSource(s, ctx), false)
      case 'createSink':
        this.#refuseInTransaction('CREATE SINK', ctx, s.span.start)
        return this.#inTick(() => this.#createSink(s, ctx), false)
      case 'createIndex':
        this.#refuseInTransaction('CREATE INDEX', ctx, s.span.start)
        return this.#createIndex(s, ctx)
      case 'reindex':
        return this.#reindex(s, ctx)
      case 'createTrigger':
        this.#refuseInTransaction('CREATE TRIGGER', ctx, s.span.start)
        return this.#inTick(() => this.#createTrigger(s, ctx), false)
      case 'subscribe':
        throw new RivuletError(SqlState.featureNotSupported, 'SUBSCRIBE streams changes: run it in the REPL or over the server, or call Engine.subscribeStatement() / Engine.subscribe()', positionAt(ctx.text, s.span.start))
      case 'createTable':
        this.#refuseInTransaction(s.stream && !s.appendOnly ? 'CREATE STREAM' : 'CREATE TABLE', ctx, s.span.start)
        return this.#inTick(() => this.#createTable(s, ctx), false)
      case 'createView':
        this.#refuseInTransaction(s.materialized ? 'CREATE MATERIALIZED VIEW' : 'CREATE VIEW', ctx, s.span.start)
        return this.#inTick(() => this.#createView(s, ctx), false)
      case 'drop':
        this.#refuseInTransaction(`DROP ${s.object.toUpperCase()}`, ctx, s.span.start)
        return this.#inTick(() => this.#drop(s, ctx), false)
      case 'insert':
        return this.#inTick(() => this.#insert(s, ctx))
      case 'update':
        return this.#inTick(() => this.#update(s, ctx))
      case 'delete':
        return this.#inTick(() => this.#deleteStmt(s, ctx))
      case 'copy':
        if (s.file !== undefined && !ctx.serverFiles) {
          throw new RivuletError('42501', "permission denied to COPY from a file: it reads the server's files", positionAt(ctx.text, s.span.start), 'Start the server with --allow-server-files to allow it, or use COPY … FROM STDIN (psql: \\copy).')
        }
        return this.#inTick(() =>
          copyFrom(s, ctx.text, {
            table: (name, at) => this.#table(name, ctx, at),
            insert: (t, rows) => this.#insertRows(t, rows, ctx),
            reject: (rows) => this.#applyDelta(this.#rejected, new ivm.ZSet(rows, rows.map(() => 1)).consolidate()),
            ...(this.#progressListeners.size > 0 ? { progress: (done: number, total: number) => this.#progress({ task: 'copy', relation: s.table ? lastPart(s.table) : '', done, total }) } : {}),
          }, ctx.stdin),
        )
    }
  }

  /** DDL runs outside transaction blocks (as in Materialize): a view created from
   *  uncommitted rows, or a table dropped under them, could not be rolled back. */
  #refuseInTransaction(what: string, ctx: StatementContext, at: number): void {
    if (this.#current.block !== 'none') throw new RivuletError(SqlState.activeSqlTransaction, `${what} cannot run inside a transaction block`, positionAt(ctx.text, at))
  }

  #transaction(s: ast.TransactionStmt): StatementResult {
    const me = this.#current
    switch (s.action) {
      case 'begin':
        if (me.block === 'none') me.block = 'open' // else Postgres warns and goes on
        return { command: 'BEGIN', rowCount: 0 }
      case 'commit': {
        if (me.block === 'none') return { command: 'COMMIT', rowCount: 0 }
        if (me.block === 'aborted') {
          me.reset('none')
          return { command: 'ROLLBACK', rowCount: 0 }
        }
        if (me.writes.length > 0) {
          // a failed resume (40001) has aborted the block; the error ends it as a ROLLBACK
          try {
            this.#prepare()
          } catch (e) {
            me.reset('none')
            throw e
          }
          try {
            this.#commitTick()
          } catch (e) {
            // the tick rolled back: the block is over, as a failed COMMIT ends it in Postgres
            me.reset('none')
            throw e
          } finally {
            this.#open = undefined
          }
        }
        me.reset('none')
        return { command: 'COMMIT', rowCount: 0 }
      }
      case 'rollback':
        if (this.#open === me) {
          this.#rollbackTick()
          this.#open = undefined
        }
        me.reset('none')
        return { command: 'ROLLBACK', rowCount: 0 }
    }
  }

  /** Runs `f` as a tick (committed at once), or, inside the current session's block, as one of
   *  the block's writes (recorded with its effect, so it can be redone; see transactions.ts).
   *  On error the tick rolls back, or the block aborts. DDL (`dml = false`) is refused inside
   *  blocks before it gets here. */
  #inTick<T>(f: () => T, dml = true): T {
    const me = this.#current
    if (me.block === 'open' && dml) return this.#blockWrite(me, f)
    try {
      const r = f()
      if (dml) this.#commitTick()
      else this.#commitSilently()
      return r
    } catch (e) {
      this.#rollbackTick()
      throw e
    }
  }

  #blockWrite<T>(me: EngineSession, f: () => T): T {
    this.#open = me
    // NOW() in a block is the block's start, also when its writes are redone
    if (me.now === undefined) me.now = this.#now()
    else this.#tickNow = me.now
    const recorder = new EffectRecorder()
    this.#recorder = recorder
    try {
      const r = f()
      me.writes.push({ redo: f, effect: recorder.finish() })
      return r
    } catch (e) {
      this.#abortBlock()
      throw e
    } finally {
      this.#recorder = undefined
    }
  }

  #commitTick(): void {
    // the tick's time is the clock at its commit: time-driven views end the tick as of then
    if (this.#tickNow !== undefined) {
      this.#tickNow = undefined
      this.#now()
    }
    const clockBefore = this.#advancedTo
    const advanced = this.#advanceWatermarks()
    if (!this.#errors.idle) this.#settleErrors(clockBefore)
    this.#changed.clear()
    this.#circuit.commit()
    for (const t of this.#streamsTouched) {
      const w = t.watermark!
      if (w.pending > w.current) w.current = w.pending
      w.pending = -Infinity
      w.late += w.pendingLate
      w.pendingLate = 0
      if (w.retention !== undefined) this.#retain(t, w)
    }
    this.#streamsTouched.clear()
    for (const t of this.#touched) t.commit()
    const hadChanges = this.#touched.size > 0 || advanced
    this.#touched.clear()
    this.#tickNow = undefined
    if (hadChanges) this.#tick++
    if (this.#sinks.size > 0) this.#writeSinks()
    for (const e of this.#catalog.subscribed) {
      if (e.pending.length === 0) continue
      const delta = e.pending.consolidate()
      e.pending = new ivm.ZSet()
      if (delta.length === 0 || e.subscribers.size === 0) continue
      const batch: ChangeBatch = { tick: this.#tick, columns: columnInfo(e.columns), changes: this.#resultChanges(delta, e.columns) }
      for (const s of e.subscribers) {
        try {
          s.callback(batch)
        } catch (error) {
          // the tick is committed and the other subscribers get their batch all the same
          this.#reportSubscriberError(error, { view: e.name, tick: this.#tick })
        }
      }
    }
  }

  /** A subscriber's callback threw: the onError listeners hear of it; without any, it is
   *  rethrown outside the engine's call (an uncaught exception, as an 'error' event nobody
   *  listens to), so it is never lost and never fails the write. */
  #reportSubscriberError(error: unknown, context: SubscriberErrorContext): void {
    if (this.#errorListeners.size === 0) {
      queueMicrotask(() => {
        throw error
      })
      return
    }
    for (const l of this.#errorListeners) {
      try {
        l(error, context)
      } catch {
        // a listener that throws must not fail the tick either
      }
    }
  }

  /** Commit's part for views and sinks that failed in this tick or are in error: detached,
   *  rebuilt when due, listed in rivulet_view_errors (see view-errors.ts). The rebuilt views
   *  see the watermarks as they are after this tick, as its advance did. */
  #settleErrors(clockBefore: number): void {
    this.#clockBeforeTick = clockBefore
    try {
      this.#errors.settle(this.#tick + 1, (r) => (r === CLOCK ? this.#advancedTo > clockBefore : this.#changed.has(r)))
    } finally {
      this.#clockBeforeTick = undefined
    }
  }

  /** The clock the views were last advanced to before the open tick's commit (what a sink's
   *  last good output was computed at). */
  #clockBeforeTick: number | undefined

  #commitSilently(): void {
    // a DDL tick that changed a relation (a dropped view leaves rivulet_view_errors) commits
    // as a tick of its own
    if (this.#touched.size > 0) return this.#commitTick()
    this.#tickNow = undefined
    this.#circuit.commit()
    for (const t of this.#touched) t.commit()
    this.#touched.clear()
  }

  /** End of a tick: streams whose watermark moves let watermark-driven operators emit
   *  (EMIT ON WINDOW CLOSE) and free state, within this tick. The new watermarks are visible
   *  to them already; the tick still rolls back as a whole if this fails. */
  #advanceWatermarks(): boolean {
    let moved = false
    for (const t of this.#streamsTouched) if (t.watermark!.pending > t.watermark!.current) moved = true
    if (this.#temporalViews.size > 0 && this.#now() > this.#advancedTo) moved = true
    if (!moved) return false
    this.#watermarkPreview = true
    try {
      const emitted = this.#circuit.advance()
      if (this.#temporalViews.size > 0) this.#advancedTo = this.#now()
      if (this.#circuit.hasFailures) this.#errors.note(this.#circuit.takeFailures())
      for (const e of this.#catalog.subscribed) if (e.sink.out.length > 0) e.pending.append(e.sink.out)
      return emitted
    } catch (e) {
      this.#rollbackTick()
      throw e
    } finally {
      this.#watermarkPreview = false
      this.#circuit.endStep()
    }
  }

  /** True while #advanceWatermarks runs: watermarks read as they will be after the tick. */
  #watermarkPreview = false

  /** Retention: after a committed tick, history older than watermark − retention leaves the
   *  stream's stored rows (in arrival order; a row is kept at least as long as asked). Views
   *  already hold what they derived from it; only later backfills and ad hoc reads see less. */
  #retain(t: TableEntry, w: StreamWatermark): void {
    if (t.versions) return t.versions.prune(w.current - w.retention!)
    if (t.store instanceof AppendLog) {
      // the log is the history, in arrival order
      const cutoff = w.current - w.retention!
      const col = w.column
      t.store.dropOldest((row) => (row[col] as number) < cutoff)
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
  #watermarkOf(sources: readonly string[]): number {
    let min = Infinity
    for (const name of sources) {
      const e = this.#catalog.entries.get(name)
      const w = e && !isView(e) ? e.watermark : undefined
      if (w === undefined) return -Infinity
      const v = this.#watermarkPreview && w.pending > w.current ? w.pending : w.current
      if (v < min) min = v
    }
    return min
  }

  #rollbackTick(): void {
    this.#tickNow = undefined
    this.#errors.rollback()
    this.#changed.clear()
    for (const t of this.#streamsTouched) {
      t.watermark!.tickRows = []
      t.watermark!.pending = -Infinity
      t.watermark!.pendingLate = 0
    }
    this.#streamsTouched.clear()
    this.#circuit.rollback()
    for (const t of this.#touched) t.rollback()
    this.#touched.clear()
    for (const e of this.#catalog.subscribed) if (e.pending.length !== 0) e.pending = new ivm.ZSet()
    for (const sink of this.#sinks.values()) if (sink.pending.length !== 0) sink.pending = new ivm.ZSet()
  }

  /** Applies a validated, consolidated delta to a table and runs the circuit. */
  #applyDelta(t: TableEntry, delta: ivm.ZSet): void {
    if (delta.length === 0) return
    if (t.versions) return this.#applyVersions(t, this.#versionsOf(t, delta))
    this.#stage(t, delta)
    this.#step()
  }

  /** Stores a delta and hands it to the table's input, without running the circuit yet. */
  #stage(t: TableEntry, delta: ivm.ZSet): void {
    this.#recorder?.record(t.name, delta)
    this.#touched.add(t.store)
    this.#changed.add(t.name)
    t.store.apply(delta)
    t.input.push(delta)
  }

  /** Runs the circuit over what was staged: every operator steps once for all of it. */
  #step(): void {
    try {
      this.#circuit.step()
      // a view whose maintenance raised is cut off for this tick, the rest goes on
      if (this.#circuit.hasFailures) this.#errors.note(this.#circuit.takeFailures())
      for (const e of this.#catalog.subscribed) if (e.sink.out.length > 0) e.pending.append(e.sink.out)
    } finally {
      this.#circuit.endStep()
    }
  }

  /** A source's micro-batch: rows for each of its streams (keyless streams, the engine's
   *  representation), staged together and run through the circuit in one step, so each
   *  operator handles the tick's changes of all of them at once. */
  #insertSourceRows(streams: readonly TableEntry[], rows: readonly Row[][]): void {
    let staged = false
    for (let i = 0; i < streams.length; i++) {
      const t = streams[i]!
      const batch = rows[i]!
      if (batch.length === 0) continue
      this.#checkNotNullRows(t, batch)
      const onTime = this.#acceptOnTime(t, batch)
      if (onTime.length === 0) continue
      const weights = new Array<number>(onTime.length).fill(1)
      this.#stage(t, new ivm.ZSet(onTime as Row[], weights))
      staged = true
    }
    if (staged) this.#step()
  }

  /** A change of a versioned table's visible rows as new versions (SPEC §3.3): a key's new
   *  row is a version at its version time (replacing one at the same time); a key that only
   *  loses its row gets a deletion version at the row's version time, or at the watermark
   *  when that is later (a deletion ends the key's validity from now on in event time). */
  #versionsOf(t: TableEntry, delta: ivm.ZSet): Row[] {
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
  #applyVersions(t: TableEntry, versions: readonly Row[]): void {
    const vs = t.versions!
    const w = t.watermark!
    const width = t.columns.length
    const history = new ivm.ZSet()
    const before = new Map<ivm.RowKey, Row | undefined>()
    let late: Row[] | undefined
    this.#streamsTouched.add(t)
    this.#touched.add(vs)
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
    if (late !== undefined) this.#recordLate(t, w, late)
    const visible = new ivm.ZSet()
    for (const [k, was] of before) {
      const now = vs.latest(k)
      if (now === was) continue
      const stored = t.store.rows.get(k)
      if (stored) visible.push(stored, -1)
      if (now && now[width] === true) visible.push(now.slice(0, width), 1)
    }
    if (history.length === 0) return
    this.#recorder?.record(t.name, visible)
    this.#recorder?.record(`${t.name} versions`, history)
    this.#touched.add(t.store)
    this.#changed.add(t.name)
    t.store.apply(visible)
    if (visible.length > 0) t.input.push(visible)
    t.versionInput!.push(history.consolidate())
    this.#step()
  }

  // ------------------------------------------------------------------------- DDL

  #createTable(s: ast.CreateTableStmt, ctx: StatementContext): StatementResult {
    const name = lastPart(s.name)
    if (this.#catalog.entries.has(name)) {
      if (s.ifNotExists) return { command: 'CREATE TABLE', rowCount: 0 }
      throw new RivuletError(SqlState.duplicateTable, `relation "${name}" already exists`, positionAt(ctx.text, s.name.span.start))
    }
    if (s.asQuery) throw new RivuletError(SqlState.featureNotSupported, 'CREATE TABLE AS is not supported yet', positionAt(ctx.text, s.span.start))
    const columns: Column[] = []
    const modifiers: (TypeModifier | undefined)[] = []
    const seen = new Set<string>()
    for (const c of s.columns) {
      if (seen.has(c.name)) throw new RivuletError(SqlState.duplicateColumn, `column "${c.name}" specified more than once`, positionAt(ctx.text, c.span.start))
      seen.add(c.name)
      const t = typeFromName(c.type.name, c.type.arrayDimensions)
      if (!t) throw new RivuletError(SqlState.undefinedObject, `type "${c.type.name}" does not exist`, positionAt(ctx.text, c.type.span.start))
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
    const defaults = s.columns.map((c, i) => (c.default ? withTypeModifier(coerce(bindExpr(c.default, this.#constantExprCtx(scope, ctx, 'DEFAULT')), columns[i]!.type, { err: ctx }, c.default.span), modifiers[i], false) : undefined))
    const history = this.#historyOption(s, stream && primaryKey.length === 0, ctx)
    const watermark = this.#streamOptions(history.rest, stream, primaryKey.length > 0, columns, notNull, ctx)
    const store = stream && primaryKey.length === 0 ? (history.keep ? new AppendLog() : new NoHistory()) : new TableStore(primaryKey)
    const input = this.#circuit.add(new ivm.InputOperator(() => store.snapshot()))
    this.#circuit.retain(input)
    // a table with a primary key and a version time keeps its version history
    const versions = watermark && !stream ? new VersionStore(primaryKey, watermark.column, watermark.retention !== undefined) : undefined
    const versionInput = versions ? this.#circuit.add(new ivm.InputOperator(() => versions.snapshot())) : undefined
    if (versionInput) this.#circuit.retain(versionInput)
    const text = (span: { start: number; end: number } | undefined): string | undefined => (span && ctx.text ? ctx.text.slice(span.start, span.end) : undefined)
    const source = { defaults: s.columns.map((c) => text(c.default?.span)), watermark: text(s.watermark?.expr.span) }
    const entry: TableEntry = { kind: stream ? 'stream' : 'table', name, columns, primaryKey, notNull, defaults, store, input, source, ...(modifiers.some((m) => m !== undefined) ? { modifiers } : {}), ...(watermark ? { watermark } : {}), ...(versions ? { versions, versionInput } : {}) }
    this.#catalog.add(entry)
    return { command: s.stream && !s.appendOnly ? 'CREATE STREAM' : 'CREATE TABLE', rowCount: 0 }
  }

  /** A stream's WATERMARK clause and WITH options (SPEC §2). Marks the event-time column NOT
   *  NULL (an event without a time cannot be placed in a window or judged late). */
  /** `WITH (history = false)` on a keyless stream: keep none of its events (see NoHistory). */
  #historyOption(s: ast.CreateTableStmt, keylessStream: boolean, ctx: StatementContext): { keep: boolean; rest: ast.CreateTableStmt } {
    const o = s.with.find((x) => x.name === 'history')
    if (o === undefined) return { keep: true, rest: s }
    const at = positionAt(ctx.text, o.span.start)
    if (!keylessStream) throw new RivuletError(SqlState.invalidParameterValue, 'history = false is for streams without a primary key', at)
    const v = o.value === undefined ? true : evaluateConstant(bindExpr(o.value, this.#constantExprCtx(new Scope([]), ctx, 'WITH')))
    const keep = v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined
    if (keep === undefined) throw new RivuletError(SqlState.invalidParameterValue, `stream option "history" must be true or false, not ${JSON.stringify(v)}`, at)
    if (!keep && s.with.some((x) => x.name === 'retention')) throw new RivuletError(SqlState.invalidParameterValue, 'a stream with history = false keeps nothing to retain: give retention or history = false, not both', at)
    return { keep, rest: { ...s, with: s.with.filter((x) => x !== o) } }
  }

  #streamOptions(s: ast.CreateTableStmt, stream: boolean, keyed: boolean, columns: readonly Column[], notNull: boolean[], ctx: StatementContext): StreamWatermark | undefined {
    let keep: number | undefined
    let retention: number | undefined
    for (const o of s.with) {
      if (o.name === 'late_events_kept' && (stream || keyed)) {
        const v = o.value && o.value.kind === 'literal' && o.value.value.type !== 'null' ? Number((o.value.value as { text?: unknown }).text) : NaN
        if (!Number.isInteger(v) || v < 0) throw new RivuletError(SqlState.invalidParameterValue, 'late_events_kept must be a non-negative integer (how many late events of this stream rivulet_late_events keeps)', positionAt(ctx.text, o.span.start))
        keep = v
      } else if (o.name === 'retention' && (stream || keyed) && o.value) {
        const bound = bindExpr(o.value, this.#constantExprCtx(new Scope([]), ctx, 'WITH'))
        const us = this.#catalog.intervalMicros(bound.type === 'unknown' ? coerce(bound, 'interval', { err: ctx }, o.value.span) : bound)
        if (us === undefined || us < 0) throw new RivuletError(SqlState.invalidParameterValue, "retention must be a fixed-length interval such as '1 hour' (days, hours, minutes, seconds)", positionAt(ctx.text, o.span.start))
        retention = us
      } else throw new RivuletError(SqlState.invalidParameterValue, `unrecognized ${stream ? 'stream' : 'table'} option "${o.name}"${stream || keyed ? ' (known: late_events_kept, retention, history)' : ''}`, positionAt(ctx.text, o.span.start))
    }
    const def = s.watermark
    if (!def) {
      if (keep !== undefined || retention !== undefined) throw new RivuletError(SqlState.invalidParameterValue, `${keep !== undefined ? 'late_events_kept' : 'retention'} needs a WATERMARK FOR clause (${keep !== undefined ? 'without a watermark no event is late' : 'retention counts back from the watermark'})`, positionAt(ctx.text, s.span.start))
      return undefined
    }
    if (!stream && !keyed) throw new RivuletError('42P16', 'WATERMARK FOR on a table needs a PRIMARY KEY (a versioned table, read by temporal joins) or APPEND ONLY (a stream)', positionAt(ctx.text, def.span.start))
    const column = columns.findIndex((c) => c.name === def.column)
    if (column < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${def.column}" named in WATERMARK FOR does not exist`, positionAt(ctx.text, def.span.start))
    if (columns[column]!.type !== 'timestamp') throw new RivuletError(SqlState.datatypeMismatch, `the WATERMARK FOR column "${def.column}" must be of type timestamp, not ${typeDisplayName(columns[column]!.type)}`, positionAt(ctx.text, def.span.start))
    const scope = new Scope(columns.map((c) => ({ table: undefined, name: c.name, type: c.type, hidden: false })))
    const bound = bindExpr(def.expr, this.#constantExprCtx(scope, ctx, 'WATERMARK'))
    let other = false
    visitExpr(bound, (x) => {
      if ((x.kind === 'column' && x.index !== column) || x.kind === 'subquery') other = true
    })
    if (other || bound.type !== 'timestamp') throw new RivuletError(SqlState.datatypeMismatch, `the WATERMARK expression must be a timestamp computed from "${def.column}" alone, such as ${def.column} - INTERVAL '5' SECOND`, positionAt(ctx.text, def.expr.span.start))
    notNull[column] = true
    return { column, candidate: compileScalar(bound), monotone: growsWith(bound, column), current: -Infinity, pending: -Infinity, late: 0, pendingLate: 0, keep, retention, tickRows: [], history: [], head: 0 }
  }

  /** Splits rows arriving at a stream into those applied and the late ones (event time below
   *  the watermark at the start of the tick), which are recorded in rivulet_late_events. The
   *  accepted rows raise the stream's pending watermark. */
  #acceptOnTime(t: TableEntry, rows: readonly Row[]): readonly Row[] {
    const w = t.watermark
    if (w === undefined || rows.length === 0) return rows
    this.#streamsTouched.add(t)
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
    if (late !== undefined) this.#recordLate(t, w, late)
    return onTime ?? rows
  }

  #recordLate(t: TableEntry, w: StreamWatermark, rows: readonly Row[]): void {
    const counts = (this.#lateInStatement ??= new Map())
    counts.set(t.name, (counts.get(t.name) ?? 0) + rows.length)
    const delta = new ivm.ZSet()
    const tick = this.#tick + 1
    for (const row of rows) {
      const seq = w.late + w.pendingLate + 1
      w.pendingLate++
      if (w.keep === 0) continue
      delta.push([t.name, seq, row[w.column], w.current, tick, recordText(row, t.columns)], 1)
    }
    if (w.keep !== undefined) {
      // keep the newest `keep` of this stream: drop the oldest beyond it
      const all: Row[] = []
      for (const r of this.#lateEvents.store.snapshot().rows) if (r[0] === t.name) all.push(r)
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
          this.#applyDelta(this.#lateEvents, kept.consolidate())
          return
        }
      }
    }
    this.#applyDelta(this.#lateEvents, delta.consolidate())
  }

  #createView(s: ast.CreateViewStmt, ctx: StatementContext): StatementResult {
    const name = lastPart(s.name)
    const tag = s.materialized ? 'CREATE MATERIALIZED VIEW' : 'CREATE VIEW'
    const existing = this.#catalog.entries.get(name)
    if (existing) {
      if (s.ifNotExists) return { command: tag, rowCount: 0 }
      if (!s.orReplace || (existing.kind !== 'view' && existing.kind !== 'materialized view')) throw new RivuletError(SqlState.duplicateTable, `relation "${name}" already exists`, positionAt(ctx.text, s.name.span.start))
      if (this.#catalog.dependents(name).length > 0) throw new RivuletError(SqlState.dependentObjectsStillExist, `cannot replace view "${name}" because other views depend on it`, positionAt(ctx.text, s.name.span.start))
      this.#dropEntry(existing)
    }
    const { plan: logical, columns: bound } = this.#bindQuery(s.query, ctx)
    refuseSystemRelations(logical, 'a view', ctx, s.query.span.start)
    if (s.columns.length > bound.length) throw new RivuletError(SqlState.syntaxError, 'CREATE VIEW specifies more column names than columns', positionAt(ctx.text, s.span.start))
    const columns = bound.map((c, i) => ({ name: s.columns[i] ?? c.name, type: c.type }))
    const seen = new Set<string>()
    for (const c of columns) {
      if (seen.has(c.name)) throw new RivuletError(SqlState.duplicateColumn, `column "${c.name}" specified more than once`, positionAt(ctx.text, s.query.span.start))
      seen.add(c.name)
    }
    const optimized = optimize(logical)
    const lowerOptions = this.#lowerOptions
    const plan = s.query.emitOnWindowClose ? this.#lowerAt(() => lowerEmitOnWindowClose(optimized, lowerOptions), ctx, s.query.span.start) : lower(optimized, lowerOptions)
    // an EMIT ON WINDOW CLOSE view changes only when windows close: no column of it is a
    // watermark-bounded input to others beyond the one it waits on
    const watermarks = watermarkColumns(optimized, this.#relationWatermarks, this.#lowerOptions.intervalMicros)
    if (readsClockOutsideTemporalFilters(plan)) throw new RivuletError(SqlState.featureNotSupported, 'a view cannot be maintained over NOW() (or CURRENT_DATE) except in a temporal filter: a WHERE conjunct comparing a timestamp of the row with NOW() ± a constant interval, such as ts > NOW() - INTERVAL \'1\' HOUR', positionAt(ctx.text, s.query.span.start))
    // over data that already raises, the CREATE fails, as in PostgreSQL
    const { sink, operators } = this.#buildView(plan, name, (f) => this.#lowerAt(f, ctx, s.query.span.start))
    const entry: ViewEntry = {
      kind: s.materialized ? 'materialized view' : 'view',
      name,
      columns,
      definition: printQuery(s.query),
      plan,
      sink,
      operators,
      dependsOn: scannedRelations(logical),
      subscribers: new Set(),
      pending: new ivm.ZSet(),
      watermarks,
      error: undefined,
    }
    this.#catalog.add(entry)
    if (hasTemporalFilter(plan)) this.#temporalViews.add(entry)
    return { command: tag, rowCount: 0 }
  }

  /** Renders a view's plan into the circuit and fills it from what it reads, as if it had
   *  always existed; windows already closed are emitted. Throws, leaving nothing behind,
   *  when that raises. */
  #buildView(plan: DeltaPlan, name: string, renderAt: RenderAt = (f) => f()): { sink: ivm.IntegrateOperator | ivm.ReduceViewOperator; operators: Map<DeltaPlan, ivm.Operator> } {
    const { output, fresh, operators } = renderAt(() => render(plan, this.#renderContext()))
    // a view ending in GROUP BY reads the reduce's groups instead of keeping a second copy
    const sink = this.#circuit.add(output instanceof ivm.ReduceOperator && !output.expires && output.keyColumns.length > 0 ? new ivm.ReduceViewOperator(output) : new ivm.IntegrateOperator(output, sinkOptions(plan)))
    fresh.push(sink)
    this.#circuit.retain(sink)
    try {
      this.#circuit.backfill(fresh, undefined, undefined, this.#progressListeners.size > 0 ? (done, total) => this.#progress({ task: 'backfill', relation: name, done, total }) : undefined)
      // windows already closed at creation are emitted now (EMIT ON WINDOW CLOSE)
      this.#circuit.advance(fresh)
      this.#circuit.endStep()
      this.#circuit.commitOnly(fresh)
    } catch (e) {
      this.#circuit.endStep()
      this.#circuit.release(sink)
      this.#dropDeadArrangements()
      throw e
    }
    return { sink, operators }
  }

  /** Renders a sink's plan into the circuit; returns its output operator and what it
   *  emitted while being filled (its result now). Throws, leaving nothing behind. */
  #buildSink(plan: DeltaPlan, deliver: () => SinkEntry | undefined, renderAt: RenderAt = (f) => f()): { output: ivm.OutputOperator; operators: Map<DeltaPlan, ivm.Operator>; initial: ivm.ZSet } {
    const { output, fresh, operators } = renderAt(() => render(plan, this.#renderContext()))
    // the backfill's output is the first batch; later ticks' changes collect on the entry
    // until their commit
    const initial = new ivm.ZSet()
    const out = this.#circuit.add(
      new ivm.OutputOperator(output, (d) => {
        const entry = deliver()
        ;(entry === undefined ? initial : entry.pending).append(d)
      }),
    )
    fresh.push(out)
    this.#circuit.retain(out)
    try {
      this.#circuit.backfill(fresh)
      this.#circuit.advance(fresh)
      this.#circuit.endStep()
      this.#circuit.commitOnly(fresh)
    } catch (e) {
      this.#circuit.endStep()
      this.#circuit.release(out)
      this.#dropDeadArrangements()
      throw e
    }
    return { output: out, operators, initial }
  }

  /** Views, each after those it reads (the catalog's order: a view is created after what
   *  it reads, and one that others read cannot be replaced), then sinks. */
  *#maintained(): Iterable<ViewEntry | SinkEntry> {
    for (const e of this.#catalog.entries.values()) if (isView(e)) yield e
    yield* this.#sinks.values()
  }

  /** A view or sink leaves the circuit (it is in error: it holds no state). */
  #detach(m: ViewEntry | SinkEntry): void {
    if (m.kind === 'sink') {
      if (this.#circuit.has(m.output)) this.#circuit.release(m.output)
      m.pending = new ivm.ZSet()
    } else {
      if (this.#circuit.has(m.sink)) this.#circuit.release(m.sink)
      m.sink = this.#detachedSink
      m.pending = new ivm.ZSet()
    }
    m.operators = new Map()
    this.#dropDeadArrangements()
  }

  /** A view or sink in error built again from its inputs as they are now (at the watermarks
   *  this tick ends with); its output then. */
  #rebuild(m: ViewEntry | SinkEntry): () => ivm.ZSet {
    const preview = this.#watermarkPreview
    this.#watermarkPreview = true
    try {
      if (m.kind === 'sink') {
        let ready = false
        const built = this.#buildSink(m.plan, () => (ready ? m : undefined))
        ready = true
        m.output = built.output
        m.operators = built.operators
        return () => built.initial
      }
      const built = this.#buildView(m.plan, m.name)
      m.sink = built.sink
      m.operators = built.operators
      return () => built.sink.contents()
    } finally {
      this.#watermarkPreview = preview
    }
  }

  /** What a sink's connector has received: its plan over its inputs as of the last commit,
   *  at the watermarks and the clock of then. */
  #sinkResultAsOfCommit(sink: SinkEntry): ivm.ZSet {
    return resultAsOfCommit(sink.plan, {
      contents: (relation, versions) => {
        const e = this.#catalog.entries.get(relation)
        if (!e) return new ivm.ZSet()
        if (isView(e)) return e.error ? (e.error.lastGood ?? new ivm.ZSet()) : e.sink.committedSnapshot()
        return versions && e.versions ? e.versions.committedSnapshot() : e.store.committedSnapshot()
      },
      watermark: (sources) => {
        let min = Infinity
        for (const name of sources) {
          const e = this.#catalog.entries.get(name)
          const w = e && !isView(e) ? e.watermark : undefined
          if (w === undefined) return -Infinity
          if (w.current < min) min = w.current
        }
        return min
      },
      now: this.#clockBeforeTick ?? this.#advancedTo,
    })
  }

  /** The relations a view or sink depends on through views (CLOCK for a temporal filter
   *  anywhere on the way): when one changes, a rebuild may succeed. */
  #bases(m: ViewEntry | SinkEntry): ReadonlySet<string> {
    const known = this.#basesOf.get(m)
    if (known !== undefined) return known
    const out = new Set<string>()
    if (hasTemporalFilter(m.plan)) out.add(CLOCK)
    for (const d of m.dependsOn) {
      const e = this.#catalog.entries.get(d)
      if (e && isView(e)) for (const b of this.#bases(e)) out.add(b)
      else out.add(d)
    }
    this.#basesOf.set(m, out)
    return out
  }

  readonly #basesOf = new WeakMap<ViewEntry | SinkEntry, ReadonlySet<string>>()

  /** Drops cache entries of arrangements that left the circuit. */
  #dropDeadArrangements(): void {
    for (const [k, op] of this.#arrangements) if (!this.#circuit.has(op)) this.#arrangements.delete(k)
  }

  #createIndex(s: ast.CreateIndexStmt, ctx: StatementContext): StatementResult {
    // Indexes never change results; arrangements are chosen by the planner. Validate the names.
    const t = this.#catalog.entries.get(lastPart(s.table))
    if (!t) throw new RivuletError(SqlState.undefinedTable, `relation "${lastPart(s.table)}" does not exist`, positionAt(ctx.text, s.table.span.start))
    if (s.name !== undefined) {
      const existing = this.#indexes.get(s.name)
      if (existing !== undefined || this.#catalog.entries.has(s.name)) {
        if (s.ifNotExists) return { command: 'CREATE INDEX', rowCount: 0 }
        throw new RivuletError(SqlState.duplicateTable, `relation "${s.name}" already exists`, positionAt(ctx.text, s.span.start))
      }
      this.#indexes.set(s.name, t.name)
    }
    return { command: 'CREATE INDEX', rowCount: 0 }
  }

  #reindex(s: ast.ReindexStmt, ctx: StatementContext): StatementResult {
    // Indexes never change a result and hold no state of their own: rebuilding one is a
    // no-op, but the name must be there. Codes and messages as Postgres gives them for
    // REINDEX INDEX / TABLE; SQLite's bare `REINDEX name` takes an index or a table.
    const result = { command: 'REINDEX', rowCount: 0 }
    if (s.name === undefined) return result
    const name = lastPart(s.name)
    const at = positionAt(ctx.text, s.name.span.start)
    const isIndex = this.#indexes.has(name)
    const e = this.#catalog.entries.get(name)
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

  #createTrigger(s: ast.CreateTriggerStmt, ctx: StatementContext): StatementResult {
    const result = { command: 'CREATE TRIGGER', rowCount: 0 }
    const tableName = lastPart(s.table)
    const tableAt = positionAt(ctx.text, s.table.span.start)
    const e = this.#catalog.entries.get(tableName)
    if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${tableName}" does not exist`, tableAt)
    const name = lastPart(s.name)
    if (this.#triggers.has(name)) {
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
    this.#triggers.set(name, { name, table: e.name })
    return result
  }

  #drop(s: ast.DropStmt, ctx: StatementContext): StatementResult {
    const tag = `DROP ${s.object.toUpperCase()}`
    if (s.object === 'trigger') {
      for (const n of s.names) {
        const name = lastPart(n)
        if (!this.#triggers.has(name) && !s.ifExists) throw new RivuletError(SqlState.undefinedObject, `trigger "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      for (const n of s.names) this.#triggers.delete(lastPart(n))
      return { command: tag, rowCount: 0 }
    }
    if (s.object === 'index') {
      for (const n of s.names) {
        const name = lastPart(n)
        if (!this.#indexes.delete(name) && !s.ifExists) throw new RivuletError(SqlState.undefinedObject, `index "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      return { command: tag, rowCount: 0 }
    }
    if (s.object === 'source' || s.object === 'sink') return this.#dropSourceOrSink(s, ctx)
    for (const n of s.names) {
      const name = lastPart(n)
      const e = this.#catalog.entries.get(name)
      const wantView = s.object === 'view' || s.object === 'materialized view'
      const schema = n.parts.length > 1 ? n.parts[n.parts.length - 2] : undefined
      if ((!e && isSystemRelationName(name)) || schema === 'pg_catalog' || schema === 'information_schema') throw new RivuletError('42501', `permission denied: "${n.parts.join('.')}" is a system catalog`, positionAt(ctx.text, n.span.start))
      if (!e) {
        if (s.ifExists) continue
        throw new RivuletError(SqlState.undefinedTable, `${wantView ? 'view' : s.object === 'stream' ? 'stream' : 'table'} "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      const isView = e.kind === 'view' || e.kind === 'materialized view'
      if (wantView !== isView || (s.object === 'materialized view' && e.kind !== 'materialized view') || (s.object === 'view' && e.kind !== 'view')) {
        throw new RivuletError(SqlState.wrongObjectType, `"${name}" is not a ${s.object}`, positionAt(ctx.text, n.span.start))
      }
      this.#dropCascade(e, s.cascade, ctx, n.span.start)
    }
    return { command: tag, rowCount: 0 }
  }

  #dropCascade(e: Entry, cascade: boolean, ctx: StatementContext, at: number): void {
    const deps = this.#catalog.dependents(e.name)
    const sinks = [...this.#sinks.values()].filter((k) => k.dependsOn.has(e.name))
    if ((deps.length > 0 || sinks.length > 0) && !cascade) {
      const what = [...(deps.length > 0 ? [`view ${deps.map((d) => d.name).join(', ')}`] : []), ...(sinks.length > 0 ? [`sink ${sinks.map((k) => k.name).join(', ')}`] : [])].join('; ')
      throw new RivuletError(SqlState.dependentObjectsStillExist, `cannot drop ${e.kind} ${e.name} because other objects depend on it (${what}); use DROP ... CASCADE`, positionAt(ctx.text, at))
    }
    for (const k of sinks) this.#dropSink(k)
    for (const d of deps) if (this.#catalog.entries.has(d.name)) this.#dropCascade(d, true, ctx, at)
    this.#dropEntry(e)
  }

  #dropEntry(e: Entry): void {
    this.#catalog.remove(e)
    if (isView(e)) this.#temporalViews.delete(e)
    for (const [i, t] of this.#indexes) if (t === e.name) this.#indexes.delete(i)
    for (const [n, t] of this.#triggers) if (t.table === e.name) this.#triggers.delete(n)
    if (!isView(e)) return this.#circuit.release(e.input)
    // a view in error holds nothing in the circuit; its row in rivulet_view_errors goes
    if (this.#circuit.has(e.sink)) this.#circuit.release(e.sink)
    const gone = this.#errors.forget(e)
    if (gone.length > 0) this.#applyDelta(this.#viewErrors, gone)
  }

  // ------------------------------------------------------------------------- DML

  #insert(s: ast.InsertStmt, ctx: StatementContext): StatementResult {
    const t = this.#table(lastPart(s.table), ctx, s.table.span.start)
    if (s.returning) throw new RivuletError(SqlState.featureNotSupported, 'INSERT ... RETURNING is not supported yet', positionAt(ctx.text, s.span.start))
    // the conflict clause is checked and bound before any row is computed, as in Postgres
    const policy = this.#conflictPolicy(s, t, ctx)
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
      const exprCtx = this.#exprCtx(new Scope([]), ctx, 'VALUES')
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
          return this.#evaluateOrdered({ kind: 'project', input: one, exprs: all, columns: t.columns }).rows[0]!
        }
        return exprs.map((e) => (e ? constantValue(e) : null))
      })
    } else {
      const { plan, columns } = this.#bindQuery(src, ctx, true)
      if (columns.length > targetCols.length) throw new RivuletError(SqlState.syntaxError, 'INSERT has more expressions than target columns', positionAt(ctx.text, src.span.start))
      if (columns.length < targetCols.length && s.columns) throw new RivuletError(SqlState.syntaxError, 'INSERT has more target columns than expressions', positionAt(ctx.text, src.span.start))
      // project the source onto the table's columns: assignment casts, defaults, NULLs
      const exprs: ScalarExpr[] = t.columns.map((c, i) => {
        const at = targetCols.indexOf(i)
        if (at >= 0 && at < columns.length) return assignTo(t, i, { kind: 'column', index: at, type: columns[at]!.type }, ctx, src.span.start)
        return t.defaults[i] ?? { kind: 'literal', value: null, type: c.type }
      })
      const projected: LogicalPlan = { kind: 'project', input: plan, exprs, columns: t.columns }
      rows = this.#evaluateOrdered(projected).rows
    }
    let n: number
    switch (policy.kind) {
      case 'error':
        n = this.#insertRows(t, rows, ctx)
        break
      case 'ignore':
        n = this.#insertRows(t, policy.sqlite ? rows.filter((r) => r.every((v, i) => v !== null || !t.notNull[i])) : rows, ctx, true)
        break
      case 'replace':
        n = this.#replaceRows(t, rows)
        break
      case 'update':
        n = this.#upsertRows(t, rows, policy)
        break
    }
    return { command: `INSERT 0 ${n}`, rowCount: n }
  }

  /** Checks the conflict clause of an INSERT against the table and binds ON CONFLICT DO
   *  UPDATE's expressions. */
  #conflictPolicy(s: ast.InsertStmt, t: TableEntry, ctx: StatementContext): ConflictPolicy {
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
    const exprCtx = this.#exprCtx(scope, ctx, 'ON CONFLICT DO UPDATE')
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
  #replaceRows(t: TableEntry, rows: readonly Row[]): number {
    const filled = rows.map((r) => r.map((v, i) => (v === null && t.notNull[i] && t.defaults[i] ? constantValue(t.defaults[i]!) : v)))
    const keyOf = t.store.keyOf
    if (!keyOf) return this.#insertRows(t, filled, { text: '', serverFiles: false, stdin: undefined })
    const latest = new Map<ivm.RowKey, Row>()
    for (const row of filled) {
      this.#checkNotNull(t, row)
      latest.set(keyOf(row), row)
    }
    const delta = new ivm.ZSet()
    for (const [k, row] of latest) {
      const old = t.store.rows.get(k)
      if (old) delta.push(old, -1)
      delta.push(row, 1)
    }
    this.#applyUpsert(t, delta.consolidate(), 'INSERT OR REPLACE')
    return rows.length
  }

  /** INSERT … ON CONFLICT (key) DO UPDATE, row by row as Postgres does: a new key inserts the
   *  row; a stored key updates the stored row (unless WHERE says no); a key this statement
   *  already inserted or updated is error 21000. The update may change the key itself. */
  #upsertRows(t: TableEntry, rows: readonly Row[], policy: Extract<ConflictPolicy, { kind: 'update' }>): number {
    const keyOf = t.store.keyOf!
    const update = this.#upsertFunction(t, rows, policy)
    /** Keys this statement wrote: their row, or null for a key an update moved away from. */
    const written = new Map<ivm.RowKey, Row | null>()
    const current = (k: ivm.RowKey): Row | undefined => (written.has(k) ? (written.get(k) ?? undefined) : t.store.rows.get(k))
    let n = 0
    for (const row of rows) {
      this.#checkNotNull(t, row)
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
      this.#checkNotNull(t, next)
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
    this.#applyUpsert(t, delta.consolidate(), 'INSERT ... ON CONFLICT DO UPDATE')
    return n
  }

  /** (stored row, proposed row) → the updated row, or undefined when WHERE is not true.
   *  Expressions without subqueries are compiled and run per row; with subqueries they are
   *  evaluated up front through the dataflow for every (stored, proposed) pair the statement
   *  can meet (subqueries then read the tables as they were before the statement, as in
   *  Postgres). */
  #upsertFunction(t: TableEntry, rows: readonly Row[], policy: Extract<ConflictPolicy, { kind: 'update' }>): (stored: Row, proposed: Row) => Row | undefined {
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
      const z = this.#evaluate(out)
      for (const r of z.rows) results.set(ivm.rowKey(r.slice(0, 2 * width)), r[3 * width] === true ? r.slice(2 * width, 3 * width) : undefined)
    }
    return (stored, proposed) => results.get(ivm.rowKey([...stored, ...proposed]))
  }

  /** Applies an upsert's consolidated delta; streams take inserts only, so an upsert that
   *  would replace a stream's row is refused. */
  #applyUpsert(t: TableEntry, delta: ivm.ZSet, what: string): void {
    if (t.kind === 'stream' && delta.weights.some((w) => w < 0)) this.#refuseStream(t, `${what} replacing a row`)
    if (t.watermark && !t.versions) {
      const onTime = new Set(this.#acceptOnTime(t, delta.rows))
      const kept = new ivm.ZSet()
      for (let i = 0; i < delta.length; i++) if (onTime.has(delta.rows[i]!)) kept.push(delta.rows[i]!, delta.weights[i]!)
      this.#applyDelta(t, kept)
      return
    }
    this.#applyDelta(t, delta)
  }

  #insertRows(t: TableEntry, all: readonly Row[], _ctx: StatementContext, skipConflicts = false): number {
    const delta = new ivm.ZSet()
    for (const row of all) this.#checkNotNull(t, row)
    if (t.versions) return this.#insertVersions(t, all, skipConflicts)
    const rows = this.#acceptOnTime(t, all)
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
      this.#applyDelta(t, delta)
      return delta.length
    }
    for (const row of rows) delta.push(row, 1)
    // a stream's input is inserts only: equal rows need no merging (operators take a row twice
    // as they take it with weight 2), and hashing every event would cost more than the rest
    this.#applyDelta(t, t.kind === 'stream' ? delta : delta.consolidate())
    return rows.length
  }

  /** INSERT into a versioned table: each row is a new version of its key; a live version
   *  with the same key and version time already there is a duplicate key. */
  #insertVersions(t: TableEntry, rows: readonly Row[], skipConflicts: boolean): number {
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
    this.#applyVersions(t, versions)
    return versions.length
  }

  #checkNotNull(t: TableEntry, row: Row): void {
    for (let i = 0; i < row.length; i++) {
      if (row[i] === null && t.notNull[i]) throw new RivuletError(SqlState.notNullViolation, `null value in column "${t.columns[i]!.name}" of relation "${t.name}" violates not-null constraint`)
    }
  }

  /** #checkNotNull over a batch, reading only the NOT NULL columns. */
  #checkNotNullRows(t: TableEntry, rows: readonly Row[]): void {
    let columns = this.#notNullColumns.get(t)
    if (columns === undefined) {
      columns = t.notNull.flatMap((n, i) => (n ? [i] : []))
      this.#notNullColumns.set(t, columns)
    }
    if (columns.length === 0) return
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!
      for (let k = 0; k < columns.length; k++) if (row[columns[k]!] === null) this.#checkNotNull(t, row)
    }
  }

  #update(s: ast.UpdateStmt, ctx: StatementContext): StatementResult {
    const t = this.#table(lastPart(s.table), ctx, s.table.span.start)
    this.#refuseStream(t, 'UPDATE', ctx, s.span.start)
    if (s.from) throw new RivuletError(SqlState.featureNotSupported, 'UPDATE ... FROM is not supported yet', positionAt(ctx.text, s.from.span.start))
    const alias = s.alias ?? t.name
    const scope = new Scope(t.columns.map((c) => ({ table: alias, name: c.name, type: c.type, hidden: false })))
    const binder = new QueryBinder(this.#bindingCatalog(ctx), ctx)
    const exprCtx = { ...this.#exprCtx(scope, ctx, 'UPDATE'), bindSubquery: (q: ast.Query, outer: Scope) => binder.bindQuery(q, outer) }
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
    const result = this.#evaluate(both)
    const delta = new ivm.ZSet()
    let n = 0
    for (let r = 0; r < result.rows.length; r++) {
      const row = result.rows[r]!
      const w = result.weights[r]!
      const oldRow = row.slice(0, width)
      const newRow = row.slice(width)
      this.#checkNotNull(t, newRow)
      delta.push(oldRow, -w)
      delta.push(newRow, w)
      n += w
    }
    const c = delta.consolidate()
    if (t.store.keyOf) {
      // the table after the update must still have unique keys
      const after = new Map<ivm.RowKey, number>()
      for (const k of t.store.rows.keys()) after.set(k, 1)
      for (let i = 0; i < c.rows.length; i++) {
        const k = t.store.keyOf(c.rows[i]!)
        after.set(k, (after.get(k) ?? 0) + c.weights[i]!)
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
    this.#applyDelta(t, c)
    return { command: `UPDATE ${n}`, rowCount: n }
  }

  #deleteStmt(s: ast.DeleteStmt, ctx: StatementContext): StatementResult {
    const t = this.#table(lastPart(s.table), ctx, s.table.span.start)
    this.#refuseStream(t, 'DELETE', ctx, s.span.start)
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
      const binder = new QueryBinder(this.#bindingCatalog(ctx), ctx)
      const exprCtx = { ...this.#exprCtx(scope, ctx, 'WHERE'), bindSubquery: (q: ast.Query, outer: Scope) => binder.bindQuery(q, outer) }
      const pred = coerce(bindExpr(s.where, exprCtx), 'boolean', { err: ctx }, s.where.span, 'argument of WHERE')
      const plan: LogicalPlan = { kind: 'filter', input: { kind: 'scan', relation: t.name, columns: t.columns }, predicate: pred, columns: t.columns }
      const result = this.#evaluate(plan)
      for (let i = 0; i < result.rows.length; i++) {
        delta.push(result.rows[i]!, -result.weights[i]!)
        n += result.weights[i]!
      }
    }
    this.#applyDelta(t, delta)
    return { command: `DELETE ${n}`, rowCount: n }
  }

  // ------------------------------------------------------------------------- reads

  #select(q: ast.Query, ctx: StatementContext): StatementResult {
    const { plan, columns } = this.#bindQuery(q, ctx, true)
    // an EMIT ON WINDOW CLOSE that no watermark can serve is refused at the query's position
    if (q.emitOnWindowClose) this.#lowerAt(() => lowerEmitOnWindowClose(optimize(plan), this.#lowerOptions), ctx, q.span.start)
    const { rows } = this.#evaluateOrdered(plan, q.emitOnWindowClose)
    const out = rows.map((r) => r.map((v, i) => toResultValue(v, columns[i]!.type)))
    return { command: `SELECT ${out.length}`, rowCount: out.length, columns: columnInfo(columns), rows: out }
  }

  /** Evaluates a plan with the dataflow operators; rows in presentation order when the plan
   *  ends in ORDER BY. */
  #evaluateOrdered(plan: LogicalPlan, emitOnWindowClose = false): { rows: Row[] } {
    // Peel the presentation order: [project of leading columns] over sort/topK.
    let proj: number | undefined
    let inner = plan
    if (inner.kind === 'project' && (inner.input.kind === 'sort' || inner.input.kind === 'topK') && inner.exprs.every((e, i) => e.kind === 'column' && e.index === i)) {
      proj = inner.exprs.length
      inner = inner.input
    }
    const order: readonly SortKey[] = inner.kind === 'sort' || (inner.kind === 'topK' && inner.partitionBy.length === 0 && !inner.rowNumber) ? inner.orderBy : []
    const result = this.#evaluate(inner.kind === 'sort' ? inner.input : inner, emitOnWindowClose)
    const rows: Row[] = []
    for (let i = 0; i < result.rows.length; i++) for (let w = result.weights[i]!; w > 0; w--) rows.push(result.rows[i]!)
    if (order.length > 0) rows.sort(rowComparator(order))
    return { rows: proj === undefined ? rows : rows.map((r) => r.slice(0, proj)) }
  }

  /** Renders `plan` into the circuit, backfills it, reads the result and releases it. */
  #evaluate(plan: LogicalPlan, emitOnWindowClose = false): ivm.ZSet {
    // a point read as bound (`SELECT … FROM view WHERE key IN (…)`) needs no rewriting: the
    // rules would cost more than the lookup
    const direct = this.#pointRead(plan)
    if (direct) return direct
    const optimized = optimize(plan)
    const point = this.#pointRead(optimized)
    if (point) return point
    const lowerOptions = this.#lowerOptions
    const delta = emitOnWindowClose ? lowerEmitOnWindowClose(optimized, lowerOptions) : lower(optimized, lowerOptions)
    const { output, fresh } = render(delta, this.#renderContext())
    const sink = this.#circuit.add(new ivm.IntegrateOperator(output))
    fresh.push(sink)
    this.#circuit.retain(sink)
    try {
      this.#circuit.backfill(fresh)
      // EMIT ON WINDOW CLOSE read ad hoc: the windows closed at the current watermark
      if (emitOnWindowClose) {
        this.#circuit.advance(fresh)
        this.#circuit.endStep()
        this.#circuit.commitOnly(fresh)
      }
      return sink.contents()
    } finally {
      this.#circuit.release(sink)
      // fresh operators nobody else reads were released transitively; drop dead cache entries
      this.#dropDeadArrangements()
    }
  }

  /** Answers `[Project] Filter(view, key = c | key IN (…))` and `view ⋉ VALUES` on key
   *  columns from an index of the view (built on first use, then maintained), instead of
   *  running the view's whole contents through a filter. Undefined when the plan has
   *  another shape. */
  #pointRead(plan: LogicalPlan): ivm.ZSet | undefined {
    let projection: readonly ScalarExpr[] | undefined
    let p = plan
    if (p.kind === 'project') {
      projection = p.exprs
      p = p.input
    }
    // the plan is read as bound: a subquery (not decorrelated yet) goes the general way
    if (projection?.some(hasSubquery) || (p.kind === 'filter' && hasSubquery(p.predicate))) return undefined
    let view: ViewEntry | undefined
    let columns: number[] = []
    let keys: unknown[][] = []
    if (p.kind === 'filter' && p.input.kind === 'scan') {
      const v = this.#catalog.entries.get(p.input.relation)
      if (!v) return undefined
      if (!isView(v)) return this.#primaryKeyRead(v, p.predicate, projection)
      this.#checkReadable(v)
      const conj = p.predicate.kind === 'and' ? p.predicate.args : [p.predicate]
      const byColumn = new Map<number, unknown[]>()
      for (const c of conj) {
        if (c.kind === 'call' && c.fn === 'eq' && c.args[0]!.kind === 'column' && c.args[1]!.kind === 'literal') byColumn.set(c.args[0]!.index, [c.args[1]!.value])
        else if (c.kind === 'call' && c.fn === 'eq' && c.args[1]!.kind === 'column' && c.args[0]!.kind === 'literal') byColumn.set(c.args[1]!.index, [c.args[0]!.value])
        else if (c.kind === 'inList' && !c.negated && c.arg.kind === 'column' && c.list.every((x) => x.kind === 'literal')) byColumn.set(c.arg.index, c.list.map((x) => (x as { value: unknown }).value))
        else return undefined
        if (byColumn.size !== conj.indexOf(c) + 1) return undefined // the same column twice
      }
      view = v
      columns = [...byColumn.keys()]
      const lists = columns.map((col) => byColumn.get(col)!)
      keys = lists.reduce<unknown[][]>((acc, list) => acc.flatMap((k) => list.map((x) => [...k, x])), [[]])
    } else if (p.kind === 'join' && p.joinType === 'semi' && p.left.kind === 'scan' && p.right.kind === 'values' && p.condition) {
      const v = this.#catalog.entries.get(p.left.relation)
      if (!v || !isView(v)) return undefined
      this.#checkReadable(v)
      const nl = p.left.columns.length
      const conj = p.condition.kind === 'and' ? p.condition.args : [p.condition]
      const pairs: [number, number][] = []
      for (const c of conj) {
        if (c.kind !== 'call' || c.fn !== 'eq' || c.args[0]!.kind !== 'column' || c.args[1]!.kind !== 'column') return undefined
        const a = c.args[0]!.index
        const b = c.args[1]!.index
        if (a < nl && b >= nl) pairs.push([a, b - nl])
        else if (b < nl && a >= nl) pairs.push([b, a - nl])
        else return undefined
      }
      if (p.right.rows.some((r) => r.some((e) => e.kind !== 'literal'))) return undefined
      view = v
      columns = pairs.map(([a]) => a)
      keys = p.right.rows.map((r) => pairs.map(([, b]) => (r[b] as { value: unknown }).value))
    } else return undefined
    if (keys.some((k) => k.some((x) => x === null))) return undefined
    const index = view.sink.index(columns)
    const out = new ivm.ZSet()
    const seen = new Set<ivm.RowKey>()
    const project = projection ? this.#compiledProjection(projection) : undefined
    for (const k of keys) {
      const key = index.keyOfValues(k)
      if (seen.has(key)) continue
      seen.add(key)
      const b = view.sink.lookup(index, key)
      if (!b) continue
      for (let i = 0; i < b.rows.length; i++) out.push(project ? project(b.rows[i]!) : b.rows[i]!, b.weights[i]!)
    }
    return out
  }

  /** `SELECT … FROM t WHERE pk = literal [AND …]` (or `pk IN (literals)`) on a table with a
   *  primary key: the rows are looked up by key instead of scanned. Undefined when the
   *  predicate is not exactly equalities (or IN lists) on every key column. */
  #primaryKeyRead(t: TableEntry, predicate: ScalarExpr, projection: readonly ScalarExpr[] | undefined): ivm.ZSet | undefined {
    const keyOf = t.store.keyOf
    if (keyOf === undefined || t.store instanceof AppendLog) return undefined
    const conj = predicate.kind === 'and' ? predicate.args : [predicate]
    if (conj.length !== t.primaryKey.length) return undefined
    const lists = new Map<number, unknown[]>()
    /** The value of a constant expression (a literal, or a cast of one: `'5'::int4` as a
     *  driver sends a parameter), or NO_VALUE. */
    const constant = (e: ScalarExpr): unknown => {
      if (e.kind === 'literal') return e.value
      if (e.kind !== 'cast' || e.arg.kind !== 'literal') return NO_VALUE
      try {
        return evaluateConstant(e)
      } catch {
        return NO_VALUE
      }
    }
    for (const c of conj) {
      let column: number | undefined
      let values: unknown[] | undefined
      if (c.kind === 'call' && c.fn === 'eq' && c.args[0]!.kind === 'column' && constant(c.args[1]!) !== NO_VALUE) [column, values] = [c.args[0]!.index, [constant(c.args[1]!)]]
      else if (c.kind === 'call' && c.fn === 'eq' && c.args[1]!.kind === 'column' && constant(c.args[0]!) !== NO_VALUE) [column, values] = [c.args[1]!.index, [constant(c.args[0]!)]]
      else if (c.kind === 'inList' && !c.negated && c.arg.kind === 'column' && c.list.every((x) => constant(x) !== NO_VALUE)) [column, values] = [c.arg.index, c.list.map(constant)]
      // a literal of another type than the column (compared after a cast) is scanned
      if (column === undefined || !t.primaryKey.includes(column) || lists.has(column) || c.kind === 'call' && c.args.some((a) => a.type !== t.columns[column!]!.type)) return undefined
      if (c.kind === 'inList' && (c.arg.type !== t.columns[column]!.type || c.list.some((x) => x.type !== c.arg.type))) return undefined
      lists.set(column, values!)
    }
    const out = new ivm.ZSet()
    const project = projection ? this.#compiledProjection(projection) : undefined
    const probe = new Array<unknown>(t.columns.length).fill(null)
    const seen = new Set<ivm.RowKey>()
    const visit = (i: number): void => {
      if (i === t.primaryKey.length) {
        const k = keyOf(probe)
        if (seen.has(k)) return
        seen.add(k)
        const row = t.store.rows.get(k)
        if (row !== undefined) out.push(project ? project(row) : row, 1)
        return
      }
      const col = t.primaryKey[i]!
      for (const v of lists.get(col)!) {
        if (v === null) continue
        probe[col] = v
        visit(i + 1)
      }
    }
    visit(0)
    return out
  }

  readonly #projections = new Map<string, (row: Row) => Row>()

  #compiledProjection(exprs: readonly ScalarExpr[]): (row: Row) => Row {
    // a projection of plain columns (a point read's SELECT list) is keyed by their positions
    const k = exprs.every((e) => e.kind === 'column') ? exprs.map((e) => (e as { index: number }).index).join(',') : JSON.stringify(exprs, jsonReplacer)
    let f = this.#projections.get(k)
    if (!f) {
      if (this.#projections.size > 256) this.#projections.clear()
      f = compileProjection(exprs)
      this.#projections.set(k, f)
    }
    return f
  }

  #explain(s: ast.ExplainStmt, ctx: StatementContext): StatementResult {
    let text: string
    const inner = s.statement
    let query: ast.Query
    if (inner.kind === 'select') query = inner.query
    else if (inner.kind === 'createView') query = inner.query
    else throw new RivuletError(SqlState.featureNotSupported, `EXPLAIN of ${inner.kind} statements is not supported`, positionAt(ctx.text, inner.span.start))
    if (s.stage === 'view' || s.stage === 'analyze') {
      const from = query.body.kind === 'select' ? query.body.from : undefined
      const name = from?.kind === 'table' ? lastPart(from.name) : ''
      const v = this.#catalog.entries.get(name)
      if (!v || (v.kind !== 'view' && v.kind !== 'materialized view')) throw new RivuletError(SqlState.undefinedTable, `materialized view "${name}" does not exist`)
      // a view in error has no live operators to show
      this.#checkReadable(v)
      text = s.stage === 'analyze' ? explainStateSizes(v) : explainWithState(v)
    } else {
      const { plan } = this.#bindQuery(query, ctx)
      const stage = s.stage ?? 'delta'
      if (stage === 'logical' || stage === 'raw') text = explainLogical(plan)
      else if (stage === 'optimized') {
        const trace: OptimizeTrace[] = []
        const opt = optimize(plan, undefined, s.verbose ? trace : undefined)
        text = s.verbose ? [explainLogical(plan), ...trace.map((t) => `-- after ${t.rule}\n${t.plan}`)].join('\n') : explainLogical(opt)
      } else {
        const optimized = optimize(plan)
        const lowerOptions = this.#lowerOptions
        text = explainDelta(this.#lowerAt(() => (query.emitOnWindowClose ? lowerEmitOnWindowClose(optimized, lowerOptions) : lower(optimized, lowerOptions)), ctx, query.span.start))
      }
    }
    const rows = text.split('\n').map((l) => [l] as ResultValue[])
    return { command: `EXPLAIN`, rowCount: rows.length, columns: [{ name: 'QUERY PLAN', type: 'text' }], rows }
  }

  #show(s: ast.ShowStmt): StatementResult {
    const what = s.what.join(' ')
    const list = (kinds: string[]) => {
      const rows = [...this.#catalog.entries.values()].filter((e) => kinds.includes(e.kind)).map((e) => [e.name] as ResultValue[])
      rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))
      return { command: `SHOW`, rowCount: rows.length, columns: [{ name: 'name', type: 'text' as SqlTypeName }], rows }
    }
    switch (what) {
      case 'tables':
        return list(['table', 'stream'])
      case 'streams':
        return list(['stream'])
      case 'views':
        return list(['view', 'materialized view'])
      case 'materialized views':
        return list(['materialized view'])
      case 'sources': {
        // a source's progress: events so far, whether a bounded one is done, and its streams
        const rows = [...this.#sources.values()].map((src) => [src.name, src.connector.emitted, src.connector.done, src.streams.map((t) => t.name).join(', '), src.error?.message ?? null] as ResultValue[])
        const columns: ColumnInfo[] = [
          { name: 'name', type: 'text' },
          { name: 'events', type: 'bigint' },
          { name: 'done', type: 'boolean' },
          { name: 'streams', type: 'text' },
          { name: 'error', type: 'text' },
        ]
        return { command: 'SHOW', rowCount: rows.length, columns, rows }
      }
      case 'sinks': {
        const rows = [...this.#sinks.values()].map((k) => [k.name, k.connector.stats.inserted, k.connector.stats.retracted, k.connector.stats.ticks, k.error ? errorText(k.error) : null] as ResultValue[])
        const columns: ColumnInfo[] = [
          { name: 'name', type: 'text' },
          { name: 'inserted', type: 'bigint' },
          { name: 'retracted', type: 'bigint' },
          { name: 'ticks', type: 'bigint' },
          { name: 'error', type: 'text' },
        ]
        return { command: 'SHOW', rowCount: rows.length, columns, rows }
      }
      case 'columns':
      case 'columns from': {
        const e = s.target ? this.#catalog.entries.get(lastPart(s.target)) : undefined
        if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${s.target ? lastPart(s.target) : ''}" does not exist`)
        const rows = e.columns.map((c) => [c.name, typeDisplayName(c.type)] as ResultValue[])
        return { command: 'SHOW', rowCount: rows.length, columns: [{ name: 'name', type: 'text' }, { name: 'type', type: 'text' }], rows }
      }
      default:
        return { command: 'SHOW', rowCount: 1, columns: [{ name: s.what[0] ?? 'setting', type: 'text' }], rows: [[what === 'server_version' ? '15.0 (rivulet)' : '']] }
    }
  }

  // ------------------------------------------------------------------------- helpers

  /** `once`: the statement reads the query once (a SELECT, INSERT … SELECT), so WITH
   *  RECURSIVE can be computed while binding; a view's query is maintained, and cannot. */
  #bindQuery(q: ast.Query, ctx: StatementContext, once = false): { plan: LogicalPlan; columns: readonly Column[] } {
    const catalog = this.#bindingCatalog(ctx)
    const binder = new QueryBinder(once ? { ...catalog, evaluate: (plan) => this.#evaluateOrdered(plan).rows } : catalog, ctx)
    return binder.bindQuery(q, undefined)
  }

  #exprCtx(scope: Scope, ctx: StatementContext, clause: string) {
    const catalog = this.#bindingCatalog(ctx)
    const binder = new QueryBinder(catalog, ctx)
    return { err: ctx, scope, clause, catalog, bindSubquery: (q: ast.Query, outer: Scope) => binder.bindQuery(q, outer) }
  }

  /** The catalog a statement is bound against: the engine's relations, and the system
   *  relations and functions of pg_catalog / information_schema over them. */
  #bindingCatalog(ctx: StatementContext): Catalog {
    const catalog = this.#catalog
    return withSystemCatalog(catalog, { relations: () => this.relations(), oidOf: (key) => catalog.oidOf(key), identity: ctx.session ?? {} })
  }

  /** The context of an expression evaluated once, as a constant (a DEFAULT, a WITH option, a
   *  WATERMARK bound): no subqueries, as in PostgreSQL ("cannot use subquery in DEFAULT
   *  expression", 0A000). The constant evaluators cannot run one: `DEFAULT (SELECT 1)` and
   *  `WITH (events = (SELECT 2000))` were internal errors. */
  #constantExprCtx(scope: Scope, ctx: StatementContext, clause: 'DEFAULT' | 'WITH' | 'WATERMARK') {
    const what = clause === 'WITH' ? 'a WITH option' : `${clause} expression`
    return {
      ...this.#exprCtx(scope, ctx, clause),
      bindSubquery: (q: ast.Query): never => {
        throw new RivuletError(SqlState.featureNotSupported, `cannot use subquery in ${what}`, positionAt(ctx.text, q.span.start))
      },
    }
  }

  #renderContext() {
    return {
      circuit: this.#circuit,
      arrangements: this.#arrangements,
      source: (relation: string, versions?: boolean): ivm.Operator => {
        const e = this.#catalog.entries.get(relation)
        if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${relation}" does not exist`)
        if (versions) {
          if (isView(e) || !e.versionInput) throw new RivuletError(SqlState.internalError, `internal error: "${relation}" has no version history`)
          return e.versionInput
        }
        if (!isView(e)) return e.input
        this.#checkReadable(e)
        return e.sink
      },
      watermark: (sources: readonly string[]) => this.#watermarkOf(sources),
      now: () => this.#now(),
    }
  }

  readonly #lowerOptions: LowerOptions = {
    watermarks: (relation) => this.#relationWatermarks(relation),
    intervalMicros: (e) => this.#catalog.intervalMicros(e),
    isAppendOnly: (relation) => this.#catalog.entries.get(relation)?.kind === 'stream',
    neverRaises,
  }

  /** Reading a view in error (or failing in the open tick) raises its error. */
  #checkReadable(v: ViewEntry): void {
    const e = this.#errors.readError(v)
    if (e !== undefined) throw e
  }

  readonly #relationWatermarks = (relation: string) => {
    const e = this.#catalog.entries.get(relation)
    return e ? watermarksOf(e) : []
  }

  /** Runs a lowering step, giving its error the statement's position. */
  #lowerAt<T>(f: () => T, ctx: StatementContext, at: number): T {
    try {
      return f()
    } catch (e) {
      if (e instanceof RivuletError && !e.position) throw new RivuletError(e.code, e.message, positionAt(ctx.text, at))
      throw e
    }
  }

  #table(name: string, ctx?: StatementContext, at?: number): TableEntry {
    const e = this.#catalog.entries.get(name)
    // pg_catalog's relations are computed from the catalog: read-only
    if (!e && isSystemRelationName(name)) throw new RivuletError('42501', `permission denied for table ${name}: system catalogs are read-only`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
    if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${name}" does not exist`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
    if (e.kind !== 'table' && e.kind !== 'stream') throw new RivuletError(SqlState.wrongObjectType, `cannot change ${e.kind} "${name}"`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
    return e
  }

  #refuseStream(t: TableEntry, what: string, ctx?: StatementContext, at?: number): void {
    if (t.kind === 'stream') throw new RivuletError(SqlState.featureNotSupported, `${what} is not allowed on append-only stream "${t.name}"; streams accept inserts only`, ctx && at !== undefined ? positionAt(ctx.text, at) : undefined)
  }

  #convertInput(t: TableEntry, r: InputRow): Row {
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

  #resultChanges(z: ivm.ZSet, columns: readonly Column[]): [ResultValue[], number][] {
    const out: [ResultValue[], number][] = []
    for (let i = 0; i < z.rows.length; i++) out.push([z.rows[i]!.map((v, j) => toResultValue(v, columns[j]!.type)), z.weights[i]!])
    return out
  }

  #checkNotAborted(): void {
    if (this.#current.block === 'aborted') throw new RivuletError('25P02', 'current transaction is aborted, commands ignored until end of transaction block')
  }

  #checkOpen(): void {
    if (this.#closed) throw new RivuletError(SqlState.objectNotInPrerequisiteState, 'engine is closed')
  }
}

// ---------------------------------------------------------------------------------- helpers

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

/** Views and sinks are kept up to date by the dataflow; the system relations are computed
 *  when read, and nothing tells a view when they change: such views are refused (0A000). */
function refuseSystemRelations(plan: LogicalPlan, what: string, ctx: StatementContext, at: number): void {
  let found: string | undefined
  const walk = (p: LogicalPlan): void => {
    if (found) return
    if (p.kind === 'values' && p.systemRelation !== undefined) found = p.systemRelation
    for (const c of children(p)) walk(c)
    visitPlanExprs(p, walk)
  }
  walk(plan)
  if (found) throw new RivuletError(SqlState.featureNotSupported, `${what} cannot read the system catalog ${found}: it is computed when read, not maintained`, positionAt(ctx.text, at))
}

/** Calls `f` on the plans of the subqueries in `p`'s expressions (before decorrelation). */
function visitPlanExprs(p: LogicalPlan, f: (q: LogicalPlan) => void): void {
  const seen = (e: ScalarExpr): void =>
    visitExpr(e, (x) => {
      if (x.kind === 'subquery') f(x.plan)
    })
  for (const key of Object.keys(p) as (keyof LogicalPlan)[]) {
    const v: unknown = p[key]
    const exprs = Array.isArray(v) ? v : [v]
    for (const e of exprs) if (typeof e === 'object' && e !== null && typeof (e as { kind?: unknown }).kind === 'string' && isScalar(e)) seen(e as ScalarExpr)
  }
}

function isScalar(e: object): boolean {
  return 'type' in e && !('columns' in e)
}

function lastPart(n: ast.Name): string {
  return n.parts[n.parts.length - 1]!
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

function hasTemporalFilter(p: DeltaPlan): boolean {
  return p.kind === 'temporalFilter' || deltaChildren(p).some(hasTemporalFilter)
}

const EMPTY_ROW: Row = []

/** NOT NULL columns, defaults and watermark of a table or stream, as relations() lists them. */
function relationDetails(e: Entry): Pick<RelationInfo, 'notNull' | 'defaults' | 'watermark' | 'versioned' | 'declaredTypes'> {
  if (isView(e)) return { notNull: [], defaults: {} }
  const defaults: Record<string, string> = {}
  e.source?.defaults.forEach((d, i) => {
    if (d !== undefined) defaults[e.columns[i]!.name] = d
  })
  const w = e.watermark
  return {
    notNull: e.columns.filter((_, i) => e.notNull[i]).map((c) => c.name),
    defaults,
    ...(w ? { watermark: { column: e.columns[w.column]!.name, expression: e.source?.watermark ?? e.columns[w.column]!.name } } : {}),
    ...(e.versions ? { versioned: true } : {}),
    ...(e.modifiers ? { declaredTypes: Object.fromEntries(e.columns.flatMap((c, i) => (e.modifiers![i] ? [[c.name, typeWithModifier(c.type, e.modifiers![i])]] : []))) } : {}),
  }
}

/** "Not a constant" for the primary-key read (NULL is a constant). */
const NO_VALUE = Symbol('no value')

/** Names of the hidden views behind SUBSCRIBE statements (not listed by relations()). */
const HIDDEN_PREFIX = '__rivulet_subscribe_'

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** The system relation of late events (SPEC §2). */
const LATE_EVENTS = 'rivulet_late_events'

/** The NOTICE of a statement that carried late events (SPEC §2: nothing is silently lost). */
function lateNotice(counts: ReadonlyMap<string, number>): string {
  const parts = [...counts].map(([stream, n]) => `${n} late event${n === 1 ? '' : 's'} on stream "${stream}"`)
  return `${parts.join(', ')} not applied (event time below the watermark): see ${LATE_EVENTS}`
}

/** A row as Postgres prints a record: `(1,abc,"2024-01-01 00:00:00",)` (NULL is empty; a
 *  value with a comma, quote, parenthesis, backslash or space is double-quoted). */
function recordText(row: Row, columns: readonly Column[]): string {
  const parts = row.map((v, i) => {
    if (v === null) return ''
    const text = String(toResultValue(v, columns[i]!.type))
    return text === '' || /[",()\\\s]/.test(text) ? `"${text.replace(/["\\]/g, (c) => c + c)}"` : text
  })
  return `(${parts.join(',')})`
}

function foldName(name: string): string {
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name.toLowerCase()
}

function columnInfo(columns: readonly Column[]): ColumnInfo[] {
  return columns.map((c) => ({ name: c.name, type: sqlTypeName(c.type) }))
}

/** An expression stored into column i of t: the assignment cast, then the column's type
 *  modifier. */
function assignTo(t: TableEntry, i: number, e: ScalarExpr, ctx: StatementContext, at: number): ScalarExpr {
  const c = t.columns[i]!
  return withTypeModifier(assignmentCast(e, c.type, c.name, ctx, at), t.modifiers?.[i], false)
}

/** Applies the type modifiers of a row's columns in place (API and COPY input). */
export function applyModifiers(modifiers: readonly (TypeModifier | undefined)[], row: unknown[]): void {
  for (let i = 0; i < modifiers.length; i++) {
    const m = modifiers[i]
    if (m !== undefined && row[i] !== null) row[i] = applyTypeModifier(row[i], m, false)
  }
}

function assignmentCast(e: ScalarExpr, t: SqlType, column: string, ctx: StatementContext, at: number): ScalarExpr {
  if (e.type === t || e.type === 'unknown') return e.type === 'unknown' ? (e.kind === 'literal' && e.value === null ? { kind: 'literal', value: null, type: t } : { kind: 'cast', arg: e, type: t }) : e
  // assignment casts: numeric ↔ numeric, anything → text
  const numeric = (x: SqlType) => x === 'smallint' || x === 'integer' || x === 'bigint' || x === 'numeric' || x === 'real' || x === 'double'
  if ((numeric(e.type) && numeric(t)) || t === 'text' || t === 'bpchar' || (e.type === 'bpchar' && t !== 'unknown') || (e.type === 'date' && t === 'timestamp') || (e.type === 'timestamp' && t === 'date')) return { kind: 'cast', arg: e, type: t }
  throw new RivuletError(SqlState.datatypeMismatch, `column "${column}" is of type ${typeDisplayName(t)} but expression is of type ${typeDisplayName(e.type)}`, positionAt(ctx.text, at))
}

/** Value of a constant expression; literals and casts of literals skip code generation. */
function constantValue(e: ScalarExpr): unknown {
  if (e.kind === 'literal') return e.value
  if (e.kind === 'cast' && e.arg.kind === 'literal') return e.arg.value === null ? null : castValue(e.arg.value, e.arg.type === 'unknown' ? 'text' : e.arg.type, e.type)
  return evaluateConstant(e)
}

function scannedRelations(p: LogicalPlan): Set<string> {
  const out = new Set<string>()
  const walk = (x: LogicalPlan): void => {
    if (x.kind === 'scan') out.add(x.relation)
    const exprs: ScalarExpr[] = []
    switch (x.kind) {
      case 'filter':
        exprs.push(x.predicate)
        break
      case 'project':
        exprs.push(...x.exprs)
        break
      case 'join':
        if (x.condition) exprs.push(x.condition)
        break
      case 'timeJoin':
        if (x.residual) exprs.push(x.residual)
        break
    }
    for (const e of exprs) visitExpr(e, (y) => {
      if (y.kind === 'subquery') walk(y.plan)
    })
    switch (x.kind) {
      case 'scan':
      case 'values':
        break
      case 'join':
      case 'setOp':
      case 'timeJoin':
        walk(x.left)
        walk(x.right)
        break
      case 'union':
        x.inputs.forEach(walk)
        break
      default:
        walk(x.input)
    }
  }
  walk(p)
  return out
}

/** The view's delta plan with the entries of state each stateful operator holds right now
 *  (no operator ids, so it reads the same in every run: for watching state stay bounded). */
function explainStateSizes(v: ViewEntry): string {
  const annotate = (p: DeltaPlan): string => {
    const op = v.operators.get(p)
    if (!op || op instanceof ivm.InputOperator || op.describeState() === '') return ''
    return `  [state: ${op.stateSize()}]`
  }
  return `Materialize  [rows: ${v.sink.stateSize()}]\n${explainDelta(v.plan, 1, annotate)}`
}

/** The view's delta plan with each operator's id (shared arrangements show the same id in
 *  every view that reads them) and the state it holds right now. */
function explainWithState(v: ViewEntry): string {
  const annotate = (p: DeltaPlan): string => {
    const op = v.operators.get(p)
    if (!op) return ''
    const state = op.describeState()
    return `  [op ${op.id}${state ? `: ${state}` : ''}]`
  }
  return `Materialize  [op ${v.sink.id}: ${v.sink.describeState()}]\n${explainDelta(v.plan, 1, annotate)}`
}


/** True when `e` (a watermark expression) never decreases as column `column` grows: the
 *  column itself, or it plus or minus a constant interval (adding months clamps the day,
 *  which keeps the order). */
function growsWith(e: ScalarExpr, column: number): boolean {
  if (e.kind === 'column') return e.index === column
  if (e.kind !== 'call') return false
  const [a, b] = e.args
  if (e.fn === 'ts_add_interval' || e.fn === 'ts_sub_interval') return a !== undefined && b !== undefined && growsWith(a, column) && isRowConstant(b)
  if (e.fn === 'interval_add_ts') return a !== undefined && b !== undefined && growsWith(b, column) && isRowConstant(a)
  return false
}
