// The engine's side of the durable log (`Engine.open({ dir })`): what each tick records, when it
// is appended, and replay on open.
//
// What is recorded is the tick's *input* at the level where the engine has decided it — rows as
// they enter a relation's store (after upserts, key checks and triggers resolved them), late
// events as they were split off, a versioned table's new versions, a source's position after
// its batch — in the order the tick staged them, and every DDL statement's text once it has
// succeeded. Everything else is derived: views, sinks, watermarks, rivulet_late_events,
// rivulet_view_errors. So replaying the records through the same primitives, with each tick's
// processing time, rebuilds exactly the state a run that never stopped has (the views are
// deterministic functions of their input, watermarks come from data only).
//
// Write-ahead: a tick is appended at its seal (tick.ts), after its input is complete and before
// anything is committed or published; if the append fails the tick rolls back and the
// statement fails. A DDL statement is appended when it has succeeded, before it returns; if that
// append fails the engine stops accepting statements (its state is ahead of its log).
//
// State it keeps: the data directory, per-relation offsets (rows appended so far), and while
// replaying, the record being replayed.

import { randomUUID } from 'node:crypto'
import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { DataDirectory, type Durability, type StoredCheckpoint, type StoredRecord } from '../storage/data-dir.js'
import { decodeBody, decodeRows, encodeBody } from '../storage/codec.js'
import { decodeBatch, encodeBatch, type RowBatch } from '../storage/row-batch.js'
import { isView, type TableEntry } from './catalog.js'
import type { RecoveryReport } from '../types.js'
import type { SinkProgressStore } from '../connectors/sources.js'
import type { LogOp, SealedTick } from './tick.js'
import type { LogRelationRow } from './system-catalog-tables.js'
import type { EngineInternals } from './internals.js'
import { CheckpointMismatch } from './checkpoints.js'
import { AppendLog, type HistoryPlace } from './stream-history.js'
import { SpillFile } from '../storage/spill-file.js'

/** Committed rows a stream keeps in memory before they move to the log or the spill file: a
 *  few ticks' worth, so most rows leave the heap before a scavenge would promote them (bench
 *  history, W3's shape: peak RSS 171 MB with 4,096, 243 MB with 16,384, 325 MB keeping all). */
const DEFAULT_TAIL_ROWS = 4096

/** Recovery could not use a checkpoint it had started loading: the engine is rebuilt from
 *  scratch skipping it (Engine's constructor does that). */
export class RetryRecovery extends Error {
  constructor(readonly skip: number, readonly warnings: readonly string[]) {
    super(warnings[warnings.length - 1])
  }
}

/** What opening a data directory did, in one line. */
export function recoveryLine(r: RecoveryReport): string {
  const warnings = r.warnings.map((w) => `\nwarning: ${w}`).join('')
  if (r.records === 0 && r.checkpoint === null) return `data directory ${r.dir}: empty log, nothing to replay${warnings}`
  if (r.records === 0) return `data directory ${r.dir}: loaded the checkpoint at tick ${r.checkpoint}, nothing after it to replay, in ${r.seconds.toFixed(2)} s${warnings}`
  const from = r.checkpoint === null ? 'the start of the log' : `checkpoint at tick ${r.checkpoint}`
  return `data directory ${r.dir}: replayed ${r.records} log record${r.records === 1 ? '' : 's'} (${r.ticks} tick${r.ticks === 1 ? '' : 's'}) from ${from} in ${r.seconds.toFixed(2)} s${warnings}`
}

/** A log op as stored: rows as a batch of columns (row-batch.ts; records of the first
 *  release hold them as rows through codec.ts), weights left out when all are 1. */
type StoredOp =
  | ({ readonly op: 'rows'; readonly relation: string; readonly weights: number[] | null } & StoredRows)
  | ({ readonly op: 'late' | 'versions'; readonly relation: string } & StoredRows)
  | { readonly op: 'source'; readonly source: string; readonly offset: unknown }

type StoredRows = { readonly batch: RowBatch } | { readonly rows: Row[] }

function storedRows(o: StoredRows): Row[] {
  return 'batch' in o ? (decodeBatch(o.batch) as Row[]) : decodeRows(o.rows)
}

function allOnes(weights: readonly number[]): boolean {
  for (let i = 0; i < weights.length; i++) if (weights[i] !== 1) return false
  return true
}

/** Per relation: the offset of the next row in the log, and bytes of its records. */
export interface RelationLog {
  next: number
  bytes: number
}

/** Statement kinds that change the catalog: logged as text, replayed by running them again. */
const DDL_KINDS = new Set<ast.Statement['kind']>(['createTable', 'createView', 'createIndex', 'createSource', 'createSink', 'createTrigger', 'drop', 'createSchema', 'alterTable'])

export class DurableLog implements HistoryPlace {
  constructor(private readonly engine: EngineInternals) {}

  /** Committed rows each stream keeps in memory; older ones are read back from the log, or
   *  from the spill file without a data directory (stream-history.ts). */
  tailRows = DEFAULT_TAIL_ROWS
  readonly spill = new SpillFile()
  /** The last tick record appended: its tick and seq (seqOfOpenTick). */
  #lastTick: { tick: number; seq: number } | undefined
  /** The kind of the record being replayed. */
  #replayingKind = ''

  seqOfOpenTick(): number | undefined {
    if (this.dir === undefined) return undefined
    if (this.replaying) return this.#replayingKind === 'tick' ? this.replayingSeq : undefined
    const t = this.#lastTick
    return t !== undefined && t.tick === this.engine.ticks.committed + 1 ? t.seq : undefined
  }

  /** Where streams read their history from: the data directory, or for a shadow engine
   *  (SUBSCRIBE … SINCE) the directory of the engine it replays. */
  historyDir: DataDirectory | undefined

  loggedBytes(relation: string): number {
    return this.relations.get(relation)?.bytes ?? 0
  }

  readLogged(relation: string, firstSeq: number, lastSeq: number): { rows: Row[]; weights: number[] } {
    const dir = this.dir ?? this.historyDir
    if (dir === undefined) throw new RivuletError(SqlState.internalError, `stream "${relation}" reads history from a log that is closed`)
    const rows: Row[] = []
    const weights: number[] = []
    for (const r of dir.records(firstSeq - 1, lastSeq)) {
      if (r.kind !== 'tick') continue
      for (const o of decodeBody<StoredOp[]>(r.body)) {
        if (o.op !== 'rows' || o.relation !== relation) continue
        const decoded = storedRows(o)
        for (let i = 0; i < decoded.length; i++) {
          rows.push(decoded[i]!)
          weights.push(o.weights === null ? 1 : o.weights[i]!)
        }
      }
    }
    return { rows, weights }
  }

  dir: DataDirectory | undefined
  /** True while replaying: nothing is appended, ticks take their recorded time. */
  replaying = false
  /** Set while a statement runs whose appends wait for `sync()` (the server's group commit). */
  deferSync = false
  /** Depth of DDL statements running (a CREATE SOURCE runs its CREATE STREAMs inside). */
  ddlDepth = 0
  /** Set when a DDL's append failed: its state is ahead of its log, so nothing more runs. */
  failed: RivuletError | undefined
  readonly relations = new Map<string, RelationLog>()
  recovery: RecoveryReport | undefined
  /** The sequence number of the record being replayed. */
  replayingSeq = 0
  /** True while the DDL before a checkpoint is replayed on empty stores (the circuit is
   *  rebuilt; the checkpoint then fills it): sinks write no snapshot then. */
  restoring = false
  /** Sink progress without a data directory (nothing to recover then). */
  readonly #memoryProgress = new Map<string, { tick: number; bytes: number | null }>()

  /** A sink's identity across restarts: its name and the log position of its CREATE SINK
   *  (the same when the log replays it); in memory, unique to this engine. */
  sinkIdentity(name: string): string {
    if (this.dir === undefined) return `${name}@${randomUUID()}`
    return `${name}@${this.replaying ? this.replayingSeq : this.dir.nextSeq}`
  }

  get sinkProgress(): SinkProgressStore {
    const dir = this.dir
    if (dir === undefined) return { get: (id) => this.#memoryProgress.get(id), set: (id, tick, bytes) => void this.#memoryProgress.set(id, { tick, bytes }) }
    return { get: (id) => dir.sinkProgress(id), set: (id, tick, bytes) => dir.setSinkProgress(id, tick, bytes) }
  }

  /** Opens the data directory and replays its log. */
  open(path: string, durability: Durability | undefined, progress: ((done: number, total: number) => void) | undefined, retry: { readonly skip: number; readonly warnings: readonly string[] } = { skip: 0, warnings: [] }): void {
    const dir = DataDirectory.open(path)
    this.dir = dir
    try {
      this.replay(dir, progress, retry)
    } catch (e) {
      for (const sink of this.engine.connectors.sinks.values()) sink.connector.close?.()
      dir.close()
      this.dir = undefined
      throw e
    }
    dir.durability = durability ?? 'power'
    this.engine.ticks.onSeal((tick) => this.appendTick(tick))
  }

  setDurability(level: string): void {
    if (level !== 'power' && level !== 'process') throw new RivuletError(SqlState.invalidParameterValue, `invalid value for parameter "durability": "${level}" (known: power, process)`)
    if (this.dir) this.dir.durability = level
  }

  isDdl(s: ast.Statement): boolean {
    return DDL_KINDS.has(s.kind)
  }

  /** Runs a DDL statement and appends its text once it succeeded. */
  ddl<T>(text: string, run: () => T): T {
    if (this.dir === undefined || this.replaying || this.ddlDepth > 0) return run()
    this.checkWritable()
    this.ddlDepth++
    let result: T
    try {
      result = run()
    } finally {
      this.ddlDepth--
    }
    try {
      this.dir.append('ddl', this.engine.ticks.committed, this.engine.ticks.now(), encodeBody({ sql: text }), this.deferSync)
    } catch (e) {
      this.failed = e instanceof RivuletError ? e : new RivuletError(SqlState.ioError, String(e))
      throw this.failed
    }
    return result
  }

  checkWritable(): void {
    if (this.dir?.broken) throw this.dir.broken
    if (this.failed) throw new RivuletError(SqlState.ioError, `the engine stopped writing after a failed append to its log: ${this.failed.message}; reopen the data directory`)
  }

  appendTick(tick: SealedTick): void {
    const dir = this.dir
    if (dir === undefined || this.replaying || this.ddlDepth > 0) return
    this.checkWritable()
    const ops: StoredOp[] = []
    let rows = 0
    for (const o of tick.ops) {
      if (o.op === 'rows') ops.push({ op: 'rows', relation: o.relation, batch: encodeBatch(o.delta.rows), weights: allOnes(o.delta.weights) ? null : (o.delta.weights as number[]) })
      else if (o.op === 'source') ops.push(o)
      else ops.push({ op: o.op, relation: o.relation, batch: encodeBatch(o.rows) })
      if (o.op !== 'source') rows += o.op === 'rows' ? o.delta.length : o.rows.length
    }
    const body = encodeBody(ops)
    const seq = dir.append('tick', tick.tick, tick.now, body, this.deferSync)
    this.#lastTick = { tick: tick.tick, seq }
    this.count(tick.ops, rows, body.length)
    for (const o of tick.ops) if (o.op === 'source') this.engine.checkpoints.sourceOffsets.set(o.source, o.offset)
    this.engine.checkpoints.afterTick()
  }

  /** Per-relation offsets and bytes (bytes shared among a record's relations by rows). A late
   *  event is not a row of its stream: it has its own sequence in rivulet_late_events. */
  count(ops: readonly (LogOp | StoredOp)[], rows: number, bytes: number): void {
    for (const o of ops) {
      if (o.op === 'source' || o.op === 'late') continue
      const n = 'delta' in o ? o.delta.length : 'batch' in o ? o.batch.n : o.rows.length
      let r = this.relations.get(o.relation)
      if (r === undefined) this.relations.set(o.relation, (r = { next: 0, bytes: 0 }))
      r.next += n
      r.bytes += rows === 0 ? 0 : Math.round((bytes * n) / rows)
    }
  }

  /** Loads the newest usable checkpoint (after skipping `retry.skip` of them), then replays
   *  the log after it. */
  replay(dir: DataDirectory, progress: ((done: number, total: number) => void) | undefined, retry: { readonly skip: number; readonly warnings: readonly string[] }): void {
    const started = performance.now()
    const warnings = [...retry.warnings]
    if (dir.tornBytes > 0 && retry.skip === 0) warnings.push(`cut off a torn last record of the log (${dir.tornBytes} bytes: a write a crash interrupted, never acknowledged)`)
    const checkpoints = dir.checkpoints()
    let from: StoredCheckpoint | undefined
    let state: ReturnType<EngineInternals['checkpoints']['read']> | undefined
    let index = retry.skip
    for (; index < checkpoints.length; index++) {
      const c = checkpoints[index]!
      try {
        state = this.engine.checkpoints.read(c)
        from = c
        break
      } catch (e) {
        if (!(e instanceof CheckpointMismatch) && !(e instanceof RivuletError && e.code === SqlState.dataCorrupted)) throw e
        warnings.push(`${e.message}: recovering from ${index + 1 < checkpoints.length ? 'the checkpoint before it' : 'the start of the log'}`)
      }
    }
    let afterSeq = 0
    if (from !== undefined && state !== undefined) {
      this.restoring = true
      try {
        this.replayRecords(dir.ddlRecords(from.seq), () => true, true)
        // only the newest checkpoint's parts are extended: a newer damaged one's are not read
        this.engine.checkpoints.load(state, index === 0)
        this.engine.checkpoints.lastSeq = from.seq
      } catch (e) {
        if (!(e instanceof CheckpointMismatch)) throw e
        throw new RetryRecovery(index + 1, [...warnings, `checkpoint at tick ${from.tick} does not fit this release's plans (${e.message}): recovering from ${index + 1 < checkpoints.length ? 'the checkpoint before it' : 'the start of the log'}`])
      } finally {
        this.restoring = false
      }
      afterSeq = from.seq
    } else if (dir.logStart > 1) {
      // the records before logStart went with checkpoints that are all unusable now: starting
      // from what is left would be a silent loss, so nothing opens
      throw new RivuletError(SqlState.dataCorrupted, `data directory "${dir.dir}" cannot be recovered: its log was truncated before record ${dir.logStart} behind checkpoints, and none of them can be used${warnings.length > 0 ? ` (${warnings.join('; ')})` : ''}`)
    }
    const total = dir.nextSeq - 1 - afterSeq
    let records = 0
    let ticks = 0
    this.replayRecords(dir.records(afterSeq), (r) => {
      records++
      if (r.kind === 'tick') ticks++
      if (progress !== undefined && (records % 1000 === 0 || records === total)) progress(records, total)
      return true
    })
    this.recovery = { dir: dir.dir, checkpoint: from?.tick ?? null, records, ticks, seconds: (performance.now() - started) / 1000, warnings }
  }

  /** Replays records into this engine, in order, while `next` (asked before each) says so.
   *  `ddlOnly`: the records are the DDL before a checkpoint, each run at its own tick. */
  replayRecords(records: Iterable<StoredRecord>, next: (r: StoredRecord) => boolean, ddlOnly = false): void {
    this.replaying = true
    try {
      for (const r of records) {
        if (!next(r)) return
        if (ddlOnly) this.engine.ticks.committed = r.tick
        this.engine.ticks.replayNow = r.now
        this.replayingSeq = r.seq
        this.#replayingKind = r.kind
        try {
          if (r.kind === 'ddl') this.replayDdl(decodeBody<{ sql: string }>(r.body).sql)
          else if (r.kind === 'tick') this.replayTick(decodeBody<StoredOp[]>(r.body), r.body.length)
          else throw new RivuletError(SqlState.dataCorrupted, `log record ${r.seq} has an unknown kind "${r.kind}"`)
        } catch (e) {
          const why = e instanceof Error ? e.message : String(e)
          throw new RivuletError(e instanceof RivuletError && e.code === SqlState.dataCorrupted ? e.code : SqlState.internalError, `recovery failed at log record ${r.seq} (tick ${r.tick}): ${why}`)
        }
        if (this.engine.ticks.committed !== r.tick) throw new RivuletError(SqlState.internalError, `recovery diverged at log record ${r.seq}: it committed tick ${this.engine.ticks.committed}, the log says ${r.tick}`)
      }
    } finally {
      this.replaying = false
      this.engine.ticks.replayNow = undefined
    }
  }

  /** Runs `f` without logging what it does (a SUBSCRIBE's hidden view is the session's, not
   *  the schema's: it is not replayed). */
  unlogged<T>(f: () => T): T {
    this.ddlDepth++
    try {
      return f()
    } finally {
      this.ddlDepth--
    }
  }

  replayDdl(sql: string): void {
    this.engine.sessions.as(this.engine.sessions.internal, () => this.engine.statements.execute(sql))
  }

  replayTick(ops: StoredOp[], bytes: number): void {
    // counted first, as appendTick does before the tick commits: a stream's history reads its
    // bytes at the commit (retention_bytes), so the replay must see the same
    let rows = 0
    for (const o of ops) if (o.op !== 'source') rows += 'batch' in o ? o.batch.n : o.rows.length
    this.count(ops, rows, bytes)
    const engine = this.engine
    engine.sessions.as(engine.sessions.internal, () => engine.ticks.onClock(() =>
      engine.ticks.run(() => {
        for (const o of ops) {
          if (o.op === 'source') {
            engine.connectors.resumeSource(o.source, o.offset)
            engine.checkpoints.sourceOffsets.set(o.source, o.offset)
            continue
          }
          const t = this.relation(o.relation)
          const decoded = storedRows(o)
          if (o.op === 'late') {
            engine.ticks.streamsTouched.add(t)
            engine.eventTime.recordLate(t, t.watermark!, decoded)
          } else if (o.op === 'versions') engine.eventTime.applyVersions(t, decoded)
          else if (o.op === 'rows') {
            if (t.watermark && !t.versions && engine.eventTime.acceptOnTime(t, decoded).length !== decoded.length) throw new Error(`rows of "${t.name}" are late on replay that were on time when logged`)
            engine.ticks.stage(t, new ivm.ZSet(decoded, o.weights ?? new Array<number>(decoded.length).fill(1)))
            engine.ticks.apply()
          }
        }
      }),
    ))
  }

  relation(name: string): TableEntry {
    const e = this.engine.catalog.entries.get(name)
    if (e === undefined || isView(e)) throw new Error(`the log names relation "${name}", which does not exist at this point`)
    return e
  }

  /** Resolves when every append so far is as durable as the level says (group commit). */
  sync(): Promise<void> {
    return this.dir?.sync() ?? Promise.resolve()
  }

  /** rivulet_log's rows: per relation, offsets of its first and last row kept, rows and
   *  bytes. A stream keeps from its history's first row (retention moves it); every other
   *  relation is compacted into the checkpoints once the log is truncated behind them, so it
   *  keeps from its offset at the oldest checkpoint kept. */
  rows(): LogRelationRow[] {
    const dir = this.dir
    const oldest = dir !== undefined && dir.logStart > 1 ? dir.checkpoints().at(-1) : undefined
    const compacted = oldest === undefined ? {} : (JSON.parse(oldest.offsets) as Record<string, number>)
    return [...this.relations].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([relation, r]) => {
      const e = this.engine.catalog.entries.get(relation)
      const history = e !== undefined && !isView(e) && e.store instanceof AppendLog ? e.store : undefined
      const first = Math.min(r.next, history !== undefined ? r.next - history.retainedRows : (compacted[relation] ?? 0))
      const rows = r.next - first
      return { relation, first_offset: first, last_offset: r.next - 1, rows, bytes: r.next === 0 ? 0 : Math.round((r.bytes * rows) / r.next) }
    })
  }

  close(): void {
    this.dir?.close()
    this.dir = undefined
    this.spill.close()
  }
}
