// The engine's parts as its modules see each other: the shared state (catalog, circuit, the
// system relations, view errors, clock) and one instance of each module. The Engine facade
// owns one of these; modules reach each other through it (`this.engine.ticks.run(…)`), never
// through the facade.

import * as ivm from '../../ivm/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import { type Column } from '../../planner/index.js'
import { EngineCatalog, TableStore, isView, type TableEntry, type ViewEntry } from './catalog.js'
import { render } from './render.js'
import { REJECTED, REJECTED_COLUMNS } from './copy.js'
import { defaultMemoryLimit } from '../sql-runtime/statement-limits.js'
import type { SessionIdentity, EngineOptions } from '../types.js'
import { VIEW_ERRORS, VIEW_ERRORS_COLUMNS, ViewErrors } from './view-errors.js'
import type { SinkEntry } from './sources-and-sinks.js'
import { LATE_EVENTS } from './names.js'
import { TickPipeline } from './tick.js'
import { Sessions } from './sessions.js'
import { Statements } from './statements.js'
import { Ddl } from './ddl.js'
import { AlterTable } from './alter-table.js'
import { Schemas } from './schemas.js'
import { Dml } from './dml.js'
import { EventTime } from './event-time.js'
import { Reads } from './reads.js'
import { Explain } from './explain.js'
import { SourcesAndSinks } from './sources-and-sinks.js'
import { Subscriptions } from './subscriptions.js'
import { DurableLog } from './durable-log.js'
import { Checkpoints } from './checkpoints.js'
import { TOMBSTONE_COLUMNS, TOMBSTONES, Tombstones } from './tombstones.js'

export interface StatementContext {
  readonly text: string
  /** false: a file COPY is refused (42501) */
  readonly serverFiles: boolean
  readonly stdin: Buffer | undefined
  /** Who runs it (current_user, …); absent = the engine API's defaults. */
  readonly session?: SessionIdentity
}
/** Runs a render (giving its errors a statement position, when there is one). */
export type RenderAt = <T>(render: () => T) => T

export class EngineInternals {
  readonly ticks = new TickPipeline(this)
  readonly sessions = new Sessions(this)
  readonly statements = new Statements(this)
  readonly ddl = new Ddl(this)
  readonly alterTable = new AlterTable(this)
  readonly schemas = new Schemas(this)
  readonly dml = new Dml(this)
  readonly eventTime = new EventTime(this)
  readonly reads = new Reads(this)
  readonly explain = new Explain(this)
  readonly connectors = new SourcesAndSinks(this)
  readonly subscriptions = new Subscriptions(this)
  readonly log = new DurableLog(this)
  readonly checkpoints = new Checkpoints(this)
  readonly tombstones = new Tombstones(this)

  readonly catalog = new EngineCatalog()
  readonly circuit = new ivm.Circuit()
  readonly arrangements = new Map<string, ivm.ArrangeOperator>()
  closed = false
  /** A shadow engine (SUBSCRIBE … SINCE replays the log into one): it writes no sinks. */
  shadow = false
  /** rivulet_late_events: late events, queryable and usable in views. */
  readonly lateEventsTable: TableEntry
  /** rivulet_rejected: records COPY could not load (copy.ts). */
  readonly rejected: TableEntry
  /** rivulet_view_errors: the views in error (view-errors.ts). */
  readonly viewErrors: TableEntry
  /** rivulet_tombstones: deleted keys of tables with a tombstone_retention (tombstones.ts). */
  readonly tombstonesTable: TableEntry
  readonly errors: ViewErrors<ViewEntry | SinkEntry>
  /** What a view in error holds as its sink: empty, outside the circuit. */
  readonly detachedSink = new ivm.IntegrateOperator(new ivm.InputOperator(() => new ivm.ZSet()))
  /** Processing time source (epoch ms) and the open tick's reading of it (µs). */
  readonly clock: () => number | Date
  /** Views with a temporal filter: time passing changes them. */
  readonly temporalViews = new Set<ViewEntry>()

  /** The heap a statement may leave in use (EngineOptions.maxMemoryBytes). */
  readonly maxMemoryBytes: number

  checkOpen(): void {
    if (this.closed) throw new RivuletError(SqlState.objectNotInPrerequisiteState, 'engine is closed')
  }

  /** `retry`: recovery starts again skipping checkpoints it could not use (durable-log.ts). */
  constructor(options: EngineOptions = {}, retry?: { readonly skip: number; readonly warnings: readonly string[] }) {
    this.clock = options.clock ?? (() => this.ticks.wall() / 1000)
    this.connectors.sourceDriving = options.sources ?? 'background'
    this.maxMemoryBytes = options.maxMemoryBytes ?? defaultMemoryLimit()
    if (options.historyInMemory !== undefined) this.log.tailRows = Math.max(1, options.historyInMemory)
    const columns: Column[] = [
      { name: 'stream', type: 'text' },
      { name: 'seq', type: 'bigint' },
      { name: 'event_time', type: 'timestamp' },
      { name: 'watermark', type: 'timestamp' },
      { name: 'tick', type: 'bigint' },
      { name: 'row', type: 'text' },
    ]
    this.lateEventsTable = this.#systemTable(LATE_EVENTS, columns, [])
    this.rejected = this.#systemTable(REJECTED, REJECTED_COLUMNS, [])
    this.viewErrors = this.#systemTable(VIEW_ERRORS, VIEW_ERRORS_COLUMNS, [0])
    this.tombstonesTable = this.#systemTable(TOMBSTONES, TOMBSTONE_COLUMNS, [0, 1])
    // errors raised by the data (RivuletErrors) put views in error; anything else is a bug
    // and fails the tick
    this.circuit.isolate = (e) => e instanceof RivuletError
    this.errors = new ViewErrors<ViewEntry | SinkEntry>({
      maintained: () => this.ddl.maintained(),
      view: (name) => {
        const e = this.catalog.entries.get(name)
        return e && isView(e) ? e : undefined
      },
      output: (m) => (m.kind === 'sink' ? m.output : m.sink),
      wantsDifference: (m) => m.kind === 'sink' || m.subscribers.size > 0,
      lastGood: (m) => (m.kind === 'sink' ? this.ddl.sinkResultAsOfCommit(m) : m.sink.contents()),
      detach: (m) => this.ddl.detach(m),
      rebuild: (m) => this.ddl.rebuild(m),
      deliver: (m, delta) => {
        m.pending = delta ?? new ivm.ZSet()
      },
      bases: (m) => this.ddl.bases(m),
      applyErrorRows: (delta) => this.ticks.applyDelta(this.viewErrors, delta),
    })
    if (options.dir !== undefined) {
      const listener = options.onProgress
      if (options.checkpointInterval !== undefined) this.checkpoints.intervalMs = options.checkpointInterval
      if (options.maxReplay !== undefined) this.checkpoints.maxReplayMs = Math.max(0, options.maxReplay)
      if (options.logRetention !== undefined) this.checkpoints.logRetentionMs = Math.max(0, options.logRetention)
      this.log.open(options.dir, options.durability, listener && ((done, total) => listener({ task: 'recovery', relation: '', done, total })), retry)
    }
  }

  /** A relation the engine writes and users read (and views read): its store, in the catalog. */
  #systemTable(name: string, columns: readonly Column[], primaryKey: number[]): TableEntry {
    const store = new TableStore(primaryKey)
    const input = this.circuit.add(new ivm.InputOperator(() => store.snapshot()))
    this.circuit.retain(input)
    const e: TableEntry = { kind: 'system', name, columns, primaryKey, notNull: columns.map(() => false), defaults: columns.map(() => undefined), store, input }
    this.catalog.add(e)
    return e
  }
}
