// Public types of the engine API. Results carry JS values: numbers for smallint, integer,
// real and double precision; bigint as a number within ±(2^53 − 1) and a JS bigint beyond (so
// no 64-bit value is rounded); NUMERIC as its exact Postgres text ('2.50'), as node-postgres
// returns it; strings for text, booleans, null; DATE, TIME, TIMESTAMP, TIMESTAMPTZ (in the
// session's TimeZone), INTERVAL, UUID and BYTEA ('\x0102') values in their Postgres text form
// ('2024-01-01 10:00:00'), so results print and compare the same everywhere; JSONB as its
// PostgreSQL text ('{"a": 1}'), as node-postgres's text results have it.

import { elementType, isArrayType, type SqlType } from '../planner/index.js'

/** SQL type names of single values as the engine reports them (Postgres spelling). */
export type ScalarTypeName =
  | 'boolean'
  | 'smallint'
  | 'integer'
  | 'bigint'
  | 'real'
  | 'double precision'
  | 'numeric'
  | 'text'
  | 'character'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'time'
  | 'interval'
  | 'uuid'
  | 'bytea'
  | 'jsonb'
  | 'unknown'

/** SQL type names as the engine reports them: a scalar type, or an array of one
 *  ('integer[]', 'text[]'). */
export type SqlTypeName = ScalarTypeName | `${Exclude<ScalarTypeName, 'unknown'>}[]`

/** The reported name of a planner type. */
export function sqlTypeName(t: SqlType): SqlTypeName {
  if (isArrayType(t)) return `${sqlTypeName(elementType(t)) as Exclude<ScalarTypeName, 'unknown'>}[]`
  return t === 'double' ? 'double precision' : t === 'bpchar' ? 'character' : t
}

export interface ColumnInfo {
  readonly name: string
  readonly type: SqlTypeName
}

/** A value as the API returns it. */
export type ResultValue = number | bigint | string | boolean | null

export interface QueryResult {
  readonly columns: readonly ColumnInfo[]
  readonly rows: ResultValue[][]
}

/** The outcome of one statement. `command` is the Postgres command tag, e.g. 'SELECT 3',
 *  'INSERT 0 2', 'UPDATE 1', 'CREATE TABLE', 'BEGIN'. Statements that return rows (SELECT,
 *  EXPLAIN, SHOW) carry `columns` and `rows`. */
export interface StatementResult {
  readonly command: string
  readonly rowCount: number
  readonly columns?: readonly ColumnInfo[]
  readonly rows?: ResultValue[][]
  /** A notice for the user (psql prints it as `NOTICE:  …`), e.g. COPY's
   *  "3 records rejected: see rivulet_rejected". */
  readonly notice?: string
}

/** One tick's changes to a subscribed view: [row, diff] pairs, retractions with diff < 0. */
export interface ChangeBatch {
  readonly tick: number
  readonly columns: readonly ColumnInfo[]
  readonly changes: [ResultValue[], number][]
}

/** Where a subscriber's callback threw (`Engine.onError`). */
export interface SubscriberErrorContext {
  /** The view subscribed to (for SUBSCRIBE statements over a table or query, the hidden
   *  view behind it). */
  readonly view: string
  /** The tick whose batch the callback was given (it is committed all the same). */
  readonly tick: number
}

/** What subscribe() and subscribeStatement() return: the columns of the batches, and the
 *  function that ends the subscription (a second call does nothing). */
export interface Subscription {
  readonly columns: ColumnInfo[]
  stop(): void
}

export interface SubscribeOptions {
  /** Deliver the current contents as inserts first (default true). */
  readonly snapshot?: boolean
  /** Resume after tick n (a durable engine): every tick after n is delivered once, in order,
   *  read back from the log, then the live ticks follow; no snapshot. */
  readonly since?: number
}

export type RelationKind = 'table' | 'stream' | 'view' | 'materialized view' | 'system'

export interface RelationInfo {
  /** Its name; in a schema other than public, qualified: `schema.name`. */
  readonly name: string
  /** Its schema, when not public (CREATE SCHEMA). */
  readonly schema?: string
  readonly kind: RelationKind
  readonly columns: readonly ColumnInfo[]
  /** Primary key column names (tables), empty otherwise. */
  readonly primaryKey: readonly string[]
  /** The defining query text (views). */
  readonly definition?: string
  /** Columns declared NOT NULL (primary-key and event-time columns included). */
  readonly notNull: readonly string[]
  /** Column defaults, as written in CREATE TABLE, by column name. */
  readonly defaults: Readonly<Record<string, string>>
  /** Streams and versioned tables: `WATERMARK FOR column AS expression`, as written. */
  readonly watermark?: { readonly column: string; readonly expression: string }
  /** A versioned table (temporal joins read its version history). */
  readonly versioned?: boolean
  /** Columns declared with a type modifier, by name: their type as PostgreSQL spells it
   *  ('numeric(10,2)', 'character varying(20)', 'character(3)'). */
  readonly declaredTypes?: Readonly<Record<string, string>>
}

export interface EngineOptions {
  /** Data directory for durable state (created or reopened; SQLite files): every input is
   *  logged before its tick is acknowledged, and opening replays the log. Omitted = in memory. */
  readonly dir?: string
  /** With `dir`: 'power' (default) fsyncs each commit, so it survives power loss; 'process'
   *  survives a killed process only, for speed. `SET durability = …` changes it. */
  readonly durability?: 'power' | 'process'
  /** With `dir`: milliseconds between automatic checkpoints (default 10 000; 0: only on
   *  `CHECKPOINT` and on close). Recovery replays only the log after the newest checkpoint. */
  readonly checkpointInterval?: number
  /** With `dir`: a checkpoint is also taken once the ticks since the last one have done about
   *  this many milliseconds of work (default 500; 0: by the interval only), so recovery,
   *  which replays them at about their live cost, stays about that short under a heavy load.
   *  At most one checkpoint per ten times the last one's duration of work, so checkpoints
   *  never take more than about a tenth of the engine's time. */
  readonly maxReplay?: number
  /** With `dir`: milliseconds of processing time the log keeps behind the newest tick
   *  (default 3 600 000, an hour), so `SUBSCRIBE … WITH (SINCE = n)` resumes any tick within
   *  it; older records are truncated after a checkpoint unless a stream's retained history
   *  or a kept checkpoint still needs them. 0: keep only what recovery needs. */
  readonly logRetention?: number
  /** Hears the progress of long work while the engine opens (recovery: log records replayed)
   *  and later, as `Engine.onProgress` does. */
  readonly onProgress?: (p: ProgressEvent) => void
  /** Processing time for NOW() and temporal filters: epoch milliseconds (or a Date), read
   *  once per tick. Default: the wall clock. Inject one to make time-driven views
   *  deterministic in tests. */
  readonly clock?: () => number | Date
  /** How sources (CREATE SOURCE) run: 'background' (default) produces one micro-batch per
   *  turn of the event loop between statements; 'manual' only when `stepSource()` or FLUSH
   *  runs them (benchmarks, deterministic tests). */
  readonly sources?: 'background' | 'manual'
  /** Bytes of heap in use past which a statement fails with 53200 "out of memory" and changes
   *  nothing (checked at batch boundaries): one statement never takes the process down.
   *  Default: 80% of V8's heap limit; a statement's own `limits.maxMemoryBytes` comes first. */
  readonly maxMemoryBytes?: number
  /** Committed rows of each stream's history kept in memory (default 4 096). Older rows
   *  leave the heap: with `dir` they are read back from the log, without it from a temporary
   *  file with no name (gone with the process), when a new view or a read needs them. */
  readonly historyInMemory?: number
}

/** Per-call options of `Engine.execute`. */
/** Who runs a statement: what current_user, current_database(), pg_backend_pid() and
 *  current_setting() answer. */
export interface SessionIdentity {
  readonly user?: string
  readonly database?: string
  /** pg_backend_pid() */
  readonly pid?: number
  /** The session's settings by lower-case name (pg_settings, current_setting). */
  readonly settings?: ReadonlyMap<string, string>
  /** version()'s PostgreSQL version ('15.0 (rivulet)'). */
  readonly serverVersion?: string
}

export interface ExecuteOptions {
  /** Whether `COPY t FROM 'file'` may read files of this machine (default true; a server
   *  passes false for its clients unless started with --allow-server-files: 42501). */
  readonly serverFiles?: boolean
  /** The data of `COPY t FROM STDIN`, as a client sent it. */
  readonly stdin?: Buffer
  /** A deadline, a cancel request and a memory limit, checked at batch boundaries
   *  (57014, 53200); an interrupted statement changes nothing. */
  readonly limits?: StatementLimits
  /** Who runs the statement: current_user, current_database(), pg_settings, … (a server
   *  passes its connection's). */
  readonly session?: SessionIdentity
  /** With a data directory at durability 'power': the log's fsync of this call's commits is
   *  left to `syncLog()`, which serves every deferred commit before it with one fsync (group
   *  commit: the server awaits it before it acknowledges). Without `syncLog()` they are durable
   *  against a killed process only. */
  readonly deferSync?: boolean
}

/** Where a source stands (`Engine.sourceStatus`). */
export interface SourceStatus {
  readonly name: string
  /** Events produced so far. */
  readonly events: number
  /** A bounded source that has produced all its events. */
  readonly done: boolean
  /** The streams it feeds. */
  readonly streams: readonly string[]
  /** Why it stopped, if a micro-batch failed. */
  readonly error?: string
}

/** Rows for db.insert/db.delete: objects keyed by column name, or arrays in column order. */
export type InputRow = Readonly<Record<string, unknown>> | readonly unknown[]

/** Progress of long work inside one statement (`Engine.onProgress`): a COPY reports the bytes
 *  of its file read so far; a large view backfill the rows of its inputs delivered. */
export interface ProgressEvent {
  readonly task: 'copy' | 'backfill' | 'recovery'
  readonly relation: string
  readonly done: number
  readonly total: number
}

/** What opening a data directory did: the checkpoint it started from (null: the log's
 *  beginning), log records and ticks replayed, and how long it took. */
export interface RecoveryReport {
  readonly dir: string
  /** Tick of the checkpoint loaded (null: replayed from the start of the log). */
  readonly checkpoint: number | null
  /** Log records replayed after it. */
  readonly records: number
  readonly ticks: number
  readonly seconds: number
  /** Checkpoints found damaged or unusable, each with what recovery did instead. */
  readonly warnings: readonly string[]
}

/** Limits of one statement (src/sql-runtime/statement-limits.ts checks them). */
export interface StatementLimits {
  /** Epoch ms by which the statement must have ended. */
  readonly deadline?: number
  /** Polled at batch boundaries; true cancels the statement. */
  readonly cancelled?: () => boolean
  /** Bytes of heap (plus external memory) past which the statement fails. */
  readonly maxMemoryBytes?: number
}
