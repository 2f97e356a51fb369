// Statements: execute() parses a script (through the statement cache), runs each statement
// under the statement's limits and the engine's clock, and dispatches it by kind to the module
// that owns it, inside a tick when it writes. Also the late-event NOTICE of a statement and
// progress reporting (COPY, backfills).

import { parseTimeZoneSetting, setCurrentTimeZone, withTimeZone } from '../sql-runtime/time-zone.js'
import * as ivm from '../../ivm/index.js'
import { parse, printStatement, RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { StatementCache } from './statement-cache.js'
import { allocationLimitError } from '../sql-runtime/text-limit.js'
import { copyFrom } from './copy.js'
import { withLimits } from '../sql-runtime/statement-limits.js'
import type { ExecuteOptions, ProgressEvent, QueryResult, StatementResult } from '../types.js'
import type { StatementContext } from './internals.js'
import { checkSearchPath, lastPart, LATE_EVENTS } from './names.js'
import type { EngineInternals } from './internals.js'

/** The NOTICE of a statement that carried late events (nothing is silently lost). */
function lateNotice(counts: ReadonlyMap<string, number>): string {
  const parts = [...counts].map(([stream, n]) => `${n} late event${n === 1 ? '' : 's'} on stream "${stream}"`)
  return `${parts.join(', ')} not applied (event time below the watermark): see ${LATE_EVENTS}`
}

export class Statements {
  constructor(private readonly engine: EngineInternals) {}

  readonly cache = new StatementCache()
  /** Late events per stream of the statement running (for its NOTICE), when it had any. */
  lateInStatement: Map<string, number> | undefined

  execute(sql: string, options: ExecuteOptions = {}): StatementResult[] {
    this.engine.checkOpen()
    const limits = options.limits?.maxMemoryBytes !== undefined ? options.limits : { ...options.limits, maxMemoryBytes: this.engine.maxMemoryBytes }
    const log = this.engine.log
    // the session's TimeZone is the statements' (SET TIME ZONE changes both)
    const zone = this.engine.sessions.current.timeZone
    if (options.deferSync !== true || log.deferSync) return withTimeZone(zone, () => this.engine.ticks.onClock(() => withLimits(limits, () => this.executeScript(sql, options))))
    log.deferSync = true
    try {
      return withTimeZone(zone, () => this.engine.ticks.onClock(() => withLimits(limits, () => this.executeScript(sql, options))))
    } finally {
      log.deferSync = false
    }
  }

  executeScript(sql: string, options: ExecuteOptions): StatementResult[] {
    try {
      const { statements, fromTemplate } = this.cache.parse(sql)
      const results: StatementResult[] = []
      const ctx: StatementContext = { text: sql, serverFiles: options.serverFiles !== false, stdin: options.stdin, ...(options.session ? { session: options.session } : {}) }
      for (let i = 0; i < statements.length; i++) {
        try {
          results.push(this.run(statements[i]!.statement, ctx))
        } catch (e) {
          // a statement copied from a template carries the template's spans: re-run it from a
          // real parse so the error points into this text (the failure changed nothing)
          if (!fromTemplate || !(e instanceof RivuletError) || !e.position) throw e
          results.push(this.run(parse(sql)[i]!.statement, ctx))
        }
      }
      return results
    } catch (e) {
      // any error inside a transaction block aborts it, as in Postgres (syntax errors and
      // failed reads too): its changes are undone now, COMMIT will report ROLLBACK
      this.engine.sessions.abortBlock()
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

  readonly progressListeners = new Set<(p: ProgressEvent) => void>()

  onProgress(listener: (p: ProgressEvent) => void): () => void {
    this.progressListeners.add(listener)
    return () => void this.progressListeners.delete(listener)
  }

  progress(p: ProgressEvent): void {
    for (const l of this.progressListeners) {
      try {
        l(p)
      } catch {
        // a display must not fail the statement
      }
    }
  }

  /** Runs an API call under the engine's memory limit (execute has the statement's). */
  guarded<T>(f: () => T): T {
    return withLimits({ maxMemoryBytes: this.engine.maxMemoryBytes }, f)
  }

  close(): void {
    if (this.engine.closed) return
    this.engine.sessions.park()
    this.engine.checkpoints.onClose()
    this.engine.checkpoints.close()
    this.engine.closed = true
    for (const sink of this.engine.connectors.sinks.values()) sink.connector.close?.()
    this.engine.log.close()
    this.engine.connectors.clearSourceTimer()
    for (const src of this.engine.connectors.sources.values()) this.engine.connectors.settleWaiters(src, new RivuletError(SqlState.objectNotInPrerequisiteState, 'the engine was closed'))
  }

  // ------------------------------------------------------------------------- statements

  run(s: ast.Statement, ctx: StatementContext): StatementResult {
    if (!(s.kind === 'transaction' && s.action !== 'begin')) this.engine.sessions.checkNotAborted()
    // the tables as this session sees them (COMMIT and ROLLBACK see to it themselves)
    if (s.kind !== 'transaction' && s.kind !== 'set') this.engine.sessions.prepare()
    // late events this statement carries (not those of writes redone by #prepare)
    this.lateInStatement = undefined
    const result = this.engine.log.isDdl(s) ? this.engine.log.ddl(ctx.text.slice(s.span.start, s.span.end), () => this.runPrepared(s, ctx)) : this.runPrepared(s, ctx)
    const late = this.lateInStatement
    if (late === undefined) return result
    this.lateInStatement = undefined
    return { ...result, notice: result.notice === undefined ? lateNotice(late) : `${result.notice}\n${lateNotice(late)}` }
  }

  runPrepared(s: ast.Statement, ctx: StatementContext): StatementResult {
    switch (s.kind) {
      case 'transaction':
        return this.engine.sessions.transaction(s)
      case 'select':
        return this.engine.reads.select(s.query, ctx)
      case 'explain':
        return this.engine.explain.explain(s, ctx)
      case 'show':
        return this.engine.explain.show(s)
      case 'set':
        // the log's durability level is the engine's; other settings belong to sessions
        if (s.name === 'durability') this.engine.log.setDurability(s.value?.replace(/^'(.*)'$/, '$1') ?? 'power')
        if (s.name.toLowerCase() === 'timezone') {
          const zone = parseTimeZoneSetting(s.value)
          this.engine.sessions.current.timeZone = zone
          setCurrentTimeZone(zone)
        }
        if (s.name === 'search_path') checkSearchPath(s.value)
        return { command: 'SET', rowCount: 0 }
      case 'session':
        throw new RivuletError(SqlState.featureNotSupported, `${printStatement(s).split(' ')[0]} needs a client session: connect to rivulet serve`, positionAt(ctx.text, s.span.start))
      case 'flush':
        this.engine.sessions.refuseInTransaction('FLUSH', ctx, s.span.start)
        this.engine.connectors.drainBoundedSources()
        return { command: 'FLUSH', rowCount: 0 }
      case 'createSource':
        this.engine.sessions.refuseInTransaction('CREATE SOURCE', ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.connectors.createSource(s, ctx), false)
      case 'createSink':
        this.engine.sessions.refuseInTransaction('CREATE SINK', ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.connectors.createSink(s, ctx), false)
      case 'createIndex':
        this.engine.sessions.refuseInTransaction('CREATE INDEX', ctx, s.span.start)
        return this.engine.ddl.createIndex(s, ctx)
      case 'reindex':
        return this.engine.ddl.reindex(s, ctx)
      case 'checkpoint':
        this.engine.sessions.refuseInTransaction('CHECKPOINT', ctx, s.span.start)
        this.engine.checkpoints.take()
        return { command: 'CHECKPOINT', rowCount: 0 }
      case 'createTrigger':
        this.engine.sessions.refuseInTransaction('CREATE TRIGGER', ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.ddl.createTrigger(s, ctx), false)
      case 'subscribe':
        throw new RivuletError(SqlState.featureNotSupported, 'SUBSCRIBE streams changes: run it in the REPL or over the server, or call Engine.subscribeStatement() / Engine.subscribe()', positionAt(ctx.text, s.span.start))
      case 'createTable':
        this.engine.sessions.refuseInTransaction(s.stream && !s.appendOnly ? 'CREATE STREAM' : 'CREATE TABLE', ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.ddl.createTable(s, ctx), false)
      case 'createView':
        this.engine.sessions.refuseInTransaction(s.materialized ? 'CREATE MATERIALIZED VIEW' : 'CREATE VIEW', ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.ddl.createView(s, ctx), false)
      case 'drop':
        this.engine.sessions.refuseInTransaction(`DROP ${s.object.toUpperCase()}`, ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.ddl.drop(s, ctx), false)
      case 'createSchema':
        this.engine.sessions.refuseInTransaction('CREATE SCHEMA', ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.schemas.create(s, ctx), false)
      case 'alterTable':
        this.engine.sessions.refuseInTransaction('ALTER TABLE', ctx, s.span.start)
        return this.engine.ticks.run(() => this.engine.alterTable.alter(s, ctx), false)
      case 'truncate':
        return this.engine.ticks.run(() => this.engine.dml.truncateStatement(s, ctx))
      case 'insert':
        return this.engine.ticks.run(() => this.engine.dml.insertStatement(s, ctx))
      case 'update':
        return this.engine.ticks.run(() => this.engine.dml.updateStatement(s, ctx))
      case 'delete':
        return this.engine.ticks.run(() => this.engine.dml.deleteStatement(s, ctx))
      case 'copy':
        if (s.file !== undefined && !ctx.serverFiles) {
          throw new RivuletError('42501', "permission denied to COPY from a file: it reads the server's files", positionAt(ctx.text, s.span.start), 'Start the server with --allow-server-files to allow it, or use COPY … FROM STDIN (psql: \\copy).')
        }
        return this.engine.ticks.run(() =>
          copyFrom(s, ctx.text, {
            table: (name) => this.engine.dml.tableNamed(name, ctx),
            insert: (t, rows) => this.engine.dml.insertRows(t, rows, ctx),
            reject: (rows) => this.engine.ticks.applyDelta(this.engine.rejected, new ivm.ZSet(rows, rows.map(() => 1)).consolidate()),
            ...(this.progressListeners.size > 0 ? { progress: (done: number, total: number) => this.progress({ task: 'copy', relation: s.table ? lastPart(s.table) : '', done, total }) } : {}),
          }, ctx.stdin),
        )
    }
  }
}
