// The connectors the engine drives: sources (micro-batches, each a tick of its own; background
// or manual driving, pacing, FLUSH) and sinks (a maintained query whose committed changes go to
// a connector). The connectors themselves are in src/connectors/; they see the engine only
// through the SourceConnector / SinkConnector interfaces.

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { parse, RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { Scope, bindExpr, lower, lowerEmitOnWindowClose, readsClockOutsideTemporalFilters, optimize, type DeltaPlan } from '../../planner/index.js'
import { isView, type TableEntry } from './catalog.js'
import { evaluateConstant } from '../sql-runtime/compile-scalar.js'
import { allocationLimitError } from '../sql-runtime/text-limit.js'
import { ConnectorOptions, openSink, type OptionValue, type SinkConnector, type SinkContext, type SinkStats, type SourceConnector } from '../connectors/sources.js'
import { NexmarkSource } from '../connectors/nexmark/source.js'
import type { SourceStatus, StatementResult } from '../types.js'
import { errorText, type MaintenanceError } from './view-errors.js'
import type { StatementContext } from './internals.js'
import { groupKeyColumns, refuseSystemRelations, scannedRelations } from './plans.js'
import { lastPart, quoteIdentifier, foldName } from './names.js'
import type { EngineInternals } from './internals.js'

/** A source: its connector and the streams it feeds. */
interface SourceEntry {
  readonly name: string
  readonly connector: SourceConnector
  readonly streams: readonly TableEntry[]
  /** Wall-clock ms when it started (pacing counts from here). */
  startedAt: number
  /** Set when a batch failed: the source stops, and says why in sourceStatus(). */
  error: RivuletError | undefined
  readonly waiters: { resolve: () => void; reject: (e: unknown) => void }[]
}
/** A sink: a maintained query whose committed changes go to a connector, not to a view. */
export interface SinkEntry {
  readonly kind: 'sink'
  readonly name: string
  readonly connector: SinkConnector
  /** Replaced when a relation it reads changes shape (ALTER TABLE: alter-table.ts). */
  plan: DeltaPlan
  /** Its last operator (replaced when it is rebuilt after an error). */
  output: ivm.OutputOperator
  /** The operators its plan became (for stateSize; empty while in error). */
  operators: ReadonlyMap<DeltaPlan, ivm.Operator>
  /** The operators its render created, in order (what a checkpoint saves for it). */
  owned: readonly ivm.Operator[]
  readonly dependsOn: Set<string>
  /** Changes of the open tick, written to the connector at commit. */
  pending: ivm.ZSet
  /** Set while it is in error: it writes nothing until the error clears. */
  error: MaintenanceError | undefined
  /** Set when its target failed a write: it writes nothing more in this engine's life. */
  writeError?: string
}

export class SourcesAndSinks {
  constructor(private readonly engine: EngineInternals) {}

  readonly sources = new Map<string, SourceEntry>()
  readonly sinks = new Map<string, SinkEntry>()
  /** 'background': sources run between statements on the event loop; 'manual': only when
   *  stepSource() (or FLUSH) runs them. */
  sourceDriving: 'background' | 'manual' = 'background'
  sourceTimer: ReturnType<typeof setImmediate> | ReturnType<typeof setTimeout> | undefined

  stepSource(name: string, maxEvents = Infinity): number {
    this.engine.checkOpen()
    this.engine.sessions.checkNotAborted()
    const src = this.source(foldName(name))
    if (this.engine.sessions.current.block !== 'none') throw new RivuletError(SqlState.activeSqlTransaction, 'a source cannot run inside a transaction block: each of its micro-batches is a tick of its own')
    if (maxEvents === Infinity && !Number.isFinite(src.connector.total)) throw new RivuletError(SqlState.invalidParameterValue, `source "${src.name}" is unbounded: give stepSource() a number of events`)
    let n = 0
    while (n < maxEvents && !src.connector.done && src.error === undefined) {
      const got = this.engine.statements.guarded(() => this.sourceBatch(src, Math.min(src.connector.batchSize, maxEvents - n)))
      if (got === 0) break
      n += got
    }
    if (src.connector.done) this.settleWaiters(src)
    return n
  }

  sourceStatus(name: string): SourceStatus {
    this.engine.checkOpen()
    const src = this.source(foldName(name))
    return { name: src.name, events: src.connector.emitted, done: src.connector.done, streams: src.streams.map((t) => t.name), ...(src.error ? { error: src.error.message } : {}) }
  }

  sourceDone(name: string): Promise<void> {
    this.engine.checkOpen()
    const src = this.source(foldName(name))
    if (src.connector.done) return Promise.resolve()
    if (src.error) return Promise.reject(src.error)
    const p = new Promise<void>((resolve, reject) => src.waiters.push({ resolve, reject }))
    // someone waits: the driving timer must keep the process alive now
    this.clearSourceTimer()
    this.scheduleSources()
    return p
  }

  sinkStatus(name: string): SinkStats {
    this.engine.checkOpen()
    const sink = this.sinks.get(foldName(name))
    if (!sink) throw new RivuletError(SqlState.undefinedObject, `sink "${name}" does not exist`)
    // in error, a sink holds at its last good tick: it says why
    if (sink.writeError !== undefined) return { ...sink.connector.stats, error: sink.writeError }
    return sink.error ? { ...sink.connector.stats, error: errorText(sink.error) } : sink.connector.stats
  }

  source(name: string): SourceEntry {
    const src = this.sources.get(name)
    if (!src) throw new RivuletError(SqlState.undefinedObject, `source "${name}" does not exist`)
    return src
  }

  /** One micro-batch of a source as one tick. A view whose expression raises goes into error
   *  and the batch commits for the rest; a batch that fails otherwise (a NOT NULL column
   *  without a value, memory) changes nothing, and the source stops and reports the error. */
  sourceBatch(src: SourceEntry, max: number): number {
    const out: Row[][] = src.streams.map(() => [])
    try {
      // a micro-batch is a tick of its own: never part of a session's block
      this.engine.sessions.park()
      return this.engine.sessions.as(this.engine.sessions.internal, () => this.engine.ticks.onClock(() =>
        this.engine.ticks.run(() => {
          const n = src.connector.next(max, this.engine.ticks.now(), out)
          this.engine.ticks.insertSourceRows(src.streams, out)
          this.engine.ticks.record({ op: 'source', source: src.name, offset: src.connector.offset })
          return n
        }),
      ))
    } catch (e) {
      src.error = e instanceof RivuletError ? e : (allocationLimitError(e) ?? new RivuletError(SqlState.internalError, String(e instanceof Error ? e.message : e)))
      this.settleWaiters(src, src.error)
      throw src.error
    }
  }

  /** Replay: a source's position as its logged batch left it (pacing counts on from there). */
  resumeSource(name: string, offset: unknown): void {
    const src = this.source(name)
    src.connector.resume(offset)
    if (src.connector.pace !== Infinity) src.startedAt = Date.now() - (src.connector.emitted * 1000) / src.connector.pace
  }

  settleWaiters(src: SourceEntry, error?: unknown): void {
    for (const w of src.waiters.splice(0)) error === undefined ? w.resolve() : w.reject(error)
  }

  clearSourceTimer(): void {
    if (this.sourceTimer === undefined) return
    clearImmediate(this.sourceTimer as ReturnType<typeof setImmediate>)
    clearTimeout(this.sourceTimer as ReturnType<typeof setTimeout>)
    this.sourceTimer = undefined
  }

  /** Background driving: one batch of each running source per turn of the event loop, so
   *  statements (the REPL's, the server's) interleave with the source's ticks. The timer
   *  keeps the process alive only while someone awaits sourceDone(). */
  scheduleSources(): void {
    if (this.sourceTimer !== undefined || this.engine.closed || this.sourceDriving === 'manual') return
    let wait = Infinity
    let awaited = false
    for (const src of this.sources.values()) {
      if (src.connector.done || src.error) continue
      if (src.waiters.length > 0) awaited = true
      wait = Math.min(wait, this.sourceDelay(src))
    }
    if (wait === Infinity) return
    const timer = wait <= 0 ? setImmediate(() => this.runSources()) : setTimeout(() => this.runSources(), Math.ceil(wait))
    if (!awaited) timer.unref()
    this.sourceTimer = timer
  }

  /** Milliseconds until a paced source may produce its next event (0: now). */
  sourceDelay(src: SourceEntry): number {
    const pace = src.connector.pace
    if (pace === Infinity) return 0
    const due = src.startedAt + (src.connector.emitted * 1000) / pace
    return Math.max(0, due - Date.now())
  }

  runSources(): void {
    this.sourceTimer = undefined
    if (this.engine.closed) return
    for (const src of this.sources.values()) {
      if (src.connector.done || src.error) continue
      let allowed = src.connector.batchSize
      if (src.connector.pace !== Infinity) allowed = Math.min(allowed, Math.floor(((Date.now() - src.startedAt) * src.connector.pace) / 1000) - src.connector.emitted + 1)
      if (allowed <= 0) continue
      try {
        this.engine.statements.guarded(() => this.sourceBatch(src, allowed))
      } catch {
        // recorded on the source (sourceStatus, sourceDone); the others go on
      }
      if (src.connector.done) this.settleWaiters(src)
    }
    this.scheduleSources()
  }

  /** FLUSH: every bounded source runs to its end now, so what follows sees all its events. */
  drainBoundedSources(): void {
    for (const src of this.sources.values()) {
      if (src.connector.done || src.error || !Number.isFinite(src.connector.total)) continue
      this.stepSource(src.name)
    }
  }

  createSource(s: ast.CreateSourceStmt, ctx: StatementContext): StatementResult {
    const name = lastPart(s.name)
    const result = { command: 'CREATE SOURCE', rowCount: 0 }
    if (this.sources.has(name)) {
      if (s.ifNotExists) return result
      throw new RivuletError(SqlState.duplicateObject, `source "${name}" already exists`, positionAt(ctx.text, s.name.span.start))
    }
    const options = this.connectorOptions('source', s.with, ctx)
    const connectorName = options.text('connector', undefined)
    let connector: SourceConnector
    if (connectorName === 'nexmark') connector = new NexmarkSource(options)
    else throw new RivuletError(SqlState.invalidParameterValue, connectorName === undefined ? "CREATE SOURCE needs WITH (connector = '…') (known: nexmark)" : `unknown source connector "${connectorName}" (known: nexmark)`, positionAt(ctx.text, s.span.start))
    for (const r of connector.relations) {
      if (this.engine.catalog.entries.has(r.name)) throw new RivuletError(SqlState.duplicateTable, `source "${name}" feeds a stream "${r.name}", and a relation of that name already exists`, positionAt(ctx.text, s.name.span.start))
    }
    for (const r of connector.relations) this.engine.statements.run(parse(r.ddl)[0]!.statement, { text: r.ddl, serverFiles: false, stdin: undefined })
    const streams = connector.relations.map((r) => this.engine.catalog.entries.get(r.name) as TableEntry)
    this.sources.set(name, { name, connector, streams, startedAt: Date.now(), error: undefined, waiters: [] })
    this.scheduleSources()
    return result
  }

  /** WITH (…) options of a connector, evaluated as constants. */
  connectorOptions(what: string, opts: readonly ast.WithOption[], ctx: StatementContext): ConnectorOptions {
    const values = new Map<string, { value: OptionValue; at: number }>()
    for (const o of opts) {
      let value: OptionValue = true
      if (o.value !== undefined) {
        const bound = bindExpr(o.value, this.engine.reads.constantExprCtx(new Scope([]), ctx, 'WITH'))
        const v = evaluateConstant(bound)
        value = typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v === null ? v : String(v)
      }
      values.set(o.name, { value, at: o.span.start })
    }
    return new ConnectorOptions(what, values, (at) => positionAt(ctx.text, at))
  }

  createSink(s: ast.CreateSinkStmt, ctx: StatementContext): StatementResult {
    const name = lastPart(s.name)
    const result = { command: 'CREATE SINK', rowCount: 0 }
    if (this.sinks.has(name)) {
      if (s.ifNotExists) return result
      throw new RivuletError(SqlState.duplicateObject, `sink "${name}" already exists`, positionAt(ctx.text, s.name.span.start))
    }
    // a shadow engine replays the log for a subscriber: sinks were written by the real one
    if (this.engine.shadow) return result
    const options = this.connectorOptions('sink', s.with, ctx)
    const connectorName = options.text('connector', undefined)
    const snapshot = options.boolean('snapshot', true)
    let query = s.query
    // the output columns that are GROUP BY keys (the view's own, for FROM a view: what it was
    // created with, whatever its tables became since)
    let viewKey: { key: readonly number[] | undefined } | undefined
    if (query === undefined) {
      const from = this.engine.catalog.lookup(s.from!.parts)
      const e = this.engine.catalog.entries.get(from)
      if (e === undefined) throw new RivuletError(SqlState.undefinedTable, `relation "${s.from!.parts.join('.')}" does not exist`, positionAt(ctx.text, s.from!.span.start))
      query = (parse(`SELECT * FROM ${s.from!.parts.map(quoteIdentifier).join('.')}`)[0]!.statement as ast.SelectStmt).query
      if (isView(e)) viewKey = { key: e.groupKey }
    }
    const { plan: logical } = this.engine.reads.bindQuery(query, ctx)
    refuseSystemRelations(logical, 'a sink', ctx, query.span.start)
    this.engine.ddl.refuseZoneDependence(logical, 'a sink', ctx, query.span.start)
    const groupKey = viewKey !== undefined ? viewKey.key : s.query !== undefined ? groupKeyColumns(logical) : undefined
    const context: SinkContext = { name, id: this.engine.log.sinkIdentity(name), columns: logical.columns.map((c) => ({ name: c.name, type: c.type })), groupKey, progress: this.engine.log.sinkProgress }
    const connector = openSink(options, connectorName, positionAt(ctx.text, s.span.start), context)
    const optimized = optimize(logical)
    const lowerOptions = this.engine.reads.lowerOptions
    const at = s.query?.span.start ?? s.span.start
    const plan = query.emitOnWindowClose ? this.engine.reads.lowerAt(() => lowerEmitOnWindowClose(optimized, lowerOptions), ctx, at) : lower(optimized, lowerOptions)
    if (readsClockOutsideTemporalFilters(plan)) throw new RivuletError(SqlState.featureNotSupported, 'a sink cannot be maintained over NOW() (or CURRENT_DATE) except in a temporal filter', positionAt(ctx.text, at))
    let entry: SinkEntry | undefined
    const { output: out, operators, owned, initial } = this.engine.ddl.buildSink(plan, () => entry, (f) => this.engine.reads.lowerAt(f, ctx, at))
    entry = { kind: 'sink', name, connector, plan, output: out, operators, owned, dependsOn: scannedRelations(logical), pending: new ivm.ZSet(), error: undefined }
    const first = initial.consolidate()
    // rebuilding before a checkpoint: the sink wrote its snapshot when it was created
    if (snapshot && first.length > 0 && !this.engine.log.restoring) connector.write(this.engine.ticks.committed, first.rows, first.weights)
    this.sinks.set(name, entry)
    return result
  }

  /** Commit: each sink writes its tick's changes. */
  writeSinks(): void {
    for (const sink of this.sinks.values()) {
      if (sink.pending.length === 0) continue
      // only retractions can cancel: an insert-only tick goes out as it is
      const delta = sink.pending.weights.some((w) => w < 0) ? sink.pending.consolidate() : sink.pending
      sink.pending = new ivm.ZSet()
      if (delta.length === 0 || sink.writeError !== undefined) continue
      try {
        sink.connector.write(this.engine.ticks.committed, delta.rows, delta.weights)
      } catch (e) {
        // the tick is committed (and logged): a sink whose target fails stops there, says why
        // in sinkStatus, and on reopening the data directory the replay writes every tick
        // after its progress, once
        sink.writeError = `stopped at tick ${this.engine.ticks.committed}: ${e instanceof Error ? e.message : String(e)}${this.engine.log.dir ? '; reopen the data directory to resume it' : ''}`
      }
    }
  }

  dropSourceOrSink(s: ast.DropStmt, ctx: StatementContext): StatementResult {
    const tag = `DROP ${s.object.toUpperCase()}`
    for (const n of s.names) {
      const name = lastPart(n)
      if (s.object === 'sink') {
        const sink = this.sinks.get(name)
        if (!sink) {
          if (s.ifExists) continue
          throw new RivuletError(SqlState.undefinedObject, `sink "${name}" does not exist`, positionAt(ctx.text, n.span.start))
        }
        this.dropSink(sink)
        continue
      }
      const src = this.sources.get(name)
      if (!src) {
        if (s.ifExists) continue
        throw new RivuletError(SqlState.undefinedObject, `source "${name}" does not exist`, positionAt(ctx.text, n.span.start))
      }
      // its streams go with it: what reads them needs CASCADE
      for (const t of src.streams) if (this.engine.catalog.entries.get(t.name) === t) this.engine.ddl.dropCascade(t, s.cascade, ctx, n.span.start)
      this.sources.delete(name)
      this.settleWaiters(src, new RivuletError(SqlState.objectNotInPrerequisiteState, `source "${name}" was dropped`))
    }
    return { command: tag, rowCount: 0 }
  }

  dropSink(sink: SinkEntry): void {
    this.sinks.delete(sink.name)
    sink.connector.close?.()
    this.engine.errors.forget(sink)
    if (this.engine.circuit.has(sink.output)) this.engine.circuit.release(sink.output)
  }
}
