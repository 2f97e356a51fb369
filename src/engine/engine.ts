// Engine: the public entry point (the embedded library). A facade: each call is handed to the
// module that owns it (internals.ts wires them together):
//   statements.ts  execute / query: parse (statement cache), run each statement by kind
//   tick.ts        the tick pipeline every write goes through: stage → seal → apply →
//                  advance watermarks → commit → publish, and rollback
//   sessions.ts    sessions and BEGIN … COMMIT blocks (transactions.ts has their records)
//   ddl.ts         CREATE / DROP of tables, streams, views, indexes, triggers
//   schemas.ts     CREATE / DROP SCHEMA, what a qualified name means in DDL
//   alter-table.ts ALTER TABLE (a new store, the readers rendered again)
//   dml.ts         INSERT (upserts), UPDATE, DELETE, TRUNCATE, insert() / delete()
//   event-time.ts  watermarks, late events, retention, versioned tables
//   tombstones.ts  rivulet_tombstones: the keys deleted from tables with a tombstone_retention
//   reads.ts       SELECT (ad hoc dataflows, point reads), binding, relations()
//   explain.ts     EXPLAIN and SHOW
//   sources-and-sinks.ts  the connectors the engine drives
//   subscriptions.ts      subscribe / subscribeStatement (SINCE = n: replayed from the log)
//   durable-log.ts        with a data directory: each tick's input appended at its seal, DDL
//                         appended when it succeeded, the log replayed on open
// Guarantees kept across them: a failed statement changes nothing (the tick rolls back; inside
// a block the block aborts, as in Postgres); a runtime error maintaining a view fails no
// statement (the view goes into error, view-errors.ts); a subscriber that throws changes
// nothing (its error goes to onError listeners, or is rethrown outside the engine's call).

import { EngineSession } from './transactions.js'
import { type SinkStats } from '../connectors/sources.js'
import type { RecoveryReport, ChangeBatch, EngineOptions, ExecuteOptions, InputRow, ProgressEvent, QueryResult, RelationInfo, SourceStatus, StatementResult, SubscribeOptions, SubscriberErrorContext, Subscription } from '../types.js'
import { EngineInternals } from './internals.js'
import { RetryRecovery } from './durable-log.js'

export class Engine {
  readonly #engine: EngineInternals

  static open(options: EngineOptions = {}): Engine {
    return new Engine(options)
  }

  /** Lets processing time pass without input: reads the clock and applies what time changes
   *  (temporal filters: rows entering and leaving views), as one tick. Returns whether any
   *  view changed. (The REPL and server call it periodically.) */
  refresh(): boolean {
    return this.#engine.ticks.refresh()
  }

  /** The watermark of a stream as a timestamp text, or null before its first event
   *  (or for a stream without WATERMARK). */
  watermark(stream: string): string | null {
    return this.#engine.eventTime.watermark(stream)
  }

  /** Entries of state a view's operators hold (groups, arranged rows, pending windows, …;
   *  shared arrangements counted for each view using them), and rows stored for a table or
   *  stream (for a versioned table: the versions in its history); a sink's operators' state
   *  likewise. For watching memory stay
   *  bounded. */
  stateSize(relation: string): number {
    return this.#engine.reads.stateSize(relation)
  }

  /** How many late events a stream has counted, including those no longer kept. */
  lateEvents(stream: string): number {
    return this.#engine.eventTime.lateEvents(stream)
  }

  get inTransaction(): boolean {
    return this.#engine.sessions.inTransaction
  }

  /** A new session on this engine: its own BEGIN … COMMIT, which never waits for another
   *  session's and never sees its uncommitted writes (see transactions.ts). */
  session(): EngineSession {
    return this.#engine.sessions.session()
  }

  /** What opening the data directory replayed (undefined in memory). */
  get recovery(): RecoveryReport | undefined {
    return this.#engine.log.recovery
  }

  /** The data directory, when durable. */
  get dataDirectory(): string | undefined {
    return this.#engine.log.dir?.dir
  }

  /** Number of committed ticks so far. */
  get tick(): number {
    return this.#engine.ticks.committed
  }

  /** Runs a script of SQL statements, one result each. Each auto-committed statement is one
   *  tick; a failing one throws and changes nothing (inside BEGIN … COMMIT it aborts the
   *  block). `options`: server-file access for COPY, stdin for COPY FROM STDIN, limits. */
  execute(sql: string, options: ExecuteOptions = {}): StatementResult[] {
    return this.#engine.statements.execute(sql, options)
  }

  /** Resolves when every commit so far is as durable as the data directory's level says: the
   *  fsync that `execute(…, { deferSync: true })` left, one for all of them (group commit). */
  syncLog(): Promise<void> {
    return this.#engine.log.sync()
  }

  /** The rows of the last statement of `sql` (its columns and rows, as execute() gives them). */
  query(sql: string): QueryResult {
    return this.#engine.statements.query(sql)
  }

  /** Follows a view: the callback gets its contents as one batch of inserts (unless
   *  `snapshot: false`), then each committed tick's consolidated changes to it. */
  subscribe(view: string, callback: (batch: ChangeBatch) => void, options: SubscribeOptions = {}): Subscription {
    return this.#engine.subscriptions.subscribe(view, callback, options)
  }

  /** `SUBSCRIBE [TO] name | (query) [WITH (SNAPSHOT = false)]` as a statement: the
   *  callback gets the current contents as one batch of inserts (unless SNAPSHOT = false),
   *  then every tick's changes. A table, stream or query is maintained by a hidden view of
   *  its own, dropped by `stop()`. */
  subscribeStatement(sql: string, callback: (batch: ChangeBatch) => void): Subscription {
    return this.#engine.subscriptions.subscribeStatement(sql, callback)
  }

  /** Listens to the progress of long work inside statements (a COPY's bytes read), e.g. for a
   *  progress bar; returns the function that stops listening. Listeners run synchronously,
   *  inside the statement; one that throws is ignored. */
  onProgress(listener: (p: ProgressEvent) => void): () => void {
    return this.#engine.statements.onProgress(listener)
  }

  /** Listens to errors thrown by subscribers' callbacks (`subscribe`, `subscribeStatement`):
   *  such an error changes nothing — the tick is committed and every other subscriber gets
   *  its batch — and is handed to these listeners with the view and tick. Without any
   *  listener it is rethrown outside the engine's call (an uncaught exception, like an
   *  'error' event nobody listens to). Returns the function that stops listening. */
  onError(listener: (error: unknown, context: SubscriberErrorContext) => void): () => void {
    return this.#engine.ticks.onError(listener)
  }

  insert(table: string, rows: readonly InputRow[]): number {
    return this.#engine.dml.insert(table, rows)
  }

  delete(table: string, rows: readonly InputRow[]): number {
    return this.#engine.dml.delete(table, rows)
  }

  /** A relation's OID (pg_class.oid): given when it is created, stable while it exists. */
  relationOid(name: string): number {
    return this.#engine.reads.relationOid(name)
  }

  relations(): RelationInfo[] {
    return this.#engine.reads.relations()
  }

  close(): void {
    this.#engine.statements.close()
  }

  // ------------------------------------------------------------------------- sources and sinks

  /** Runs a source by hand: micro-batches (one tick each) until `maxEvents` events or the
   *  end of a bounded source. Returns the number of events produced. */
  stepSource(name: string, maxEvents = Infinity): number {
    return this.#engine.connectors.stepSource(name, maxEvents)
  }

  /** How far a source has come. */
  sourceStatus(name: string): SourceStatus {
    return this.#engine.connectors.sourceStatus(name)
  }

  /** Resolves when a bounded source has produced all its events (rejects if it fails). */
  sourceDone(name: string): Promise<void> {
    return this.#engine.connectors.sourceDone(name)
  }

  /** What a sink has written: rows inserted and retracted, ticks. */
  sinkStatus(name: string): SinkStats {
    return this.#engine.connectors.sinkStatus(name)
  }

  constructor(options: EngineOptions = {}) {
    let engine: EngineInternals | undefined
    let retry: RetryRecovery | undefined
    // a checkpoint that does not fit the plans is skipped: the engine is built again (bounded:
    // each retry skips one more checkpoint, and only two are kept)
    while (engine === undefined) {
      try {
        engine = new EngineInternals(options, retry)
      } catch (e) {
        if (!(e instanceof RetryRecovery)) throw e
        retry = e
      }
    }
    this.#engine = engine
    if (options.onProgress) this.#engine.statements.onProgress(options.onProgress)
    INTERNALS.set(this, this.#engine)
  }
}

const INTERNALS = new WeakMap<Engine, EngineInternals>()

/** The engine's parts behind a facade, for the engine's own rooms (the durable log attaches at
 *  the tick pipeline's seal) and for tests. Not part of the package's API. */
export function internalsOf(engine: Engine): EngineInternals {
  return INTERNALS.get(engine)!
}
