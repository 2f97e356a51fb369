// A data directory (`Engine.open({ dir })`, `--data DIR`): the log's tick records in segment
// files (DIR/log, log-segments.ts), and one SQLite database, `rivulet.db`, in WAL mode, holding
//   meta           the format version and who wrote the directory
//   log            the DDL records (kept whole when the log is truncated: recovery replays them
//                  to rebuild the circuit), and a directory of format 4 or older's tick records
//                  until truncation drops them: seq, kind, the tick it committed as, its
//                  processing time (µs), its body (codec.ts) and a CRC-32 of body and seq
//   sink_progress  per sink, the last tick it wrote and the bytes of its target then (file sinks)
//   checkpoint     the checkpoints kept: what they cover, the state saved whole, and which parts
//                  of state_part they are made of
//   state_part     incremental checkpoints' parts: per owner (an operator or a table), a base
//                  (every key) or a delta (the keys changed since the checkpoint before), by the
//                  checkpoint it belongs to, and where its bytes are: a file of DIR/parts (one
//                  per checkpoint, plus one per base rewritten off the main thread); a
//                  checkpoint reads, per owner, its base and every delta after it up to its own.
//                  A part's file is written and fsynced before the row naming it commits; files
//                  no row names (a crash between the two, or parts no checkpoint reads any more)
//                  are deleted.
// Records are numbered in one sequence across both stores and read back merged in its order.
// Appends are synchronous: when `append` returns the record is written to the OS (a segment's
// write(2), or SQLite with `synchronous = NORMAL`: it survives a killed process), and with
// durability 'power' its file is fsynced too (it survives power loss) — at once, or, for a
// deferred append, by the next `sync()`, which one fsync serves for every append before it: the
// server's group commit (concurrent sessions' commits wait for one fsync, not one each). A torn
// last record is cut off on the next open (by log-segments.ts, or SQLite's own rollback of its
// WAL), and the CRC catches damage (a flipped byte in a record).
// The directory is locked while open (exclusive locking mode): a second process fails clearly.

import { closeSync, fdatasyncSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from 'node:fs'
import path from 'node:path'
import { crc32 } from 'node:zlib'
import Database from 'better-sqlite3'
import { RivuletError, SqlState } from '../../grammar/index.js'
import { checksum } from './codec.js'
import { LogSegments } from './log-segments.js'

/** The layout this release writes. A later release opens every earlier version.
 *  1: the log, sink progress, checkpoints. 2: tick records may hold rows as column batches,
 *  checkpoints name the oldest record they need (`keep_from`), and the log is truncated
 *  behind the checkpoints kept (`log_start`) — so a release of format 1 must not open it. A
 *  directory of format 1 becomes format 2 when opened. 3: checkpoints may be incremental
 *  (`state_part`, `checkpoint.parts`). 4: a keyed part may be columnar (part-codec.ts). 5: tick
 *  records are in segment files (log-segments.ts), the `log` table keeps DDL (and an older
 *  directory's ticks until they are truncated). 6: a keyed part may be written in chunks (a
 *  checkpoint written while ticks go on: part-codec.ts). An older directory becomes the
 *  current format when opened: nothing is moved. */
export const FORMAT_VERSION = 6
/** DIR/log: the segment files of the log's tick records. */
export const LOG_DIR = 'log'
export const DATABASE_FILE = 'rivulet.db'

export type Durability = 'power' | 'process'

/** A checkpoint as listed (rivulet_checkpoints); its body is read only to restore. */
export interface StoredCheckpoint {
  readonly id: number
  readonly tick: number
  /** The last log record it covers. */
  readonly seq: number
  readonly taken_at: string
  /** Per relation, the next log offset (JSON). */
  readonly offsets: string
  readonly bytes: number
  readonly millis: number
  /** Its incremental parts (JSON [owner, base checkpoint id][]), or null: all in its body. */
  readonly parts: string | null
}

/** A part of an incremental checkpoint, as written: its owner's base is this checkpoint
 *  (`base` null) or an earlier one whose parts up to this one it extends. */
export interface CheckpointPart {
  readonly owner: string
  readonly base: number | null
  readonly body: Buffer
}

/** Where a stored part's bytes are (a file of DIR/parts), with the checkpoint it belongs to. */
export interface PartPlace {
  readonly ckpt: number
  readonly file: string
  readonly offset: number
  readonly length: number
  readonly crc: number
}

/** The directory of the parts' files. */
export const PARTS_DIR = 'parts'

/** Writes `chunks` to a new file (replacing one of that name) and fsyncs it and its directory. */
export function writeDurably(file: string, chunks: readonly Buffer[]): void {
  const fd = openSync(file, 'w')
  try {
    for (const c of chunks) {
      let at = 0
      while (at < c.length) at += writeSync(fd, c, at, c.length - at)
    }
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  const dirFd = openSync(path.dirname(file), 'r')
  try {
    fsyncSync(dirFd)
  } finally {
    closeSync(dirFd)
  }
}

/** Where a checkpoint's part was written in its file. */
interface WrittenPart {
  readonly owner: string
  /** The checkpoint whose base it extends (null: it is a base); `fuzzy`: a base read while
   *  ticks went on, exact with the delta of its checkpoint written after it. */
  readonly base: number | null
  readonly fuzzy: boolean
  readonly offset: number
  length: number
  crc: number
}

/** Writes a checkpoint's parts into its file one after another, each as it is made (a part in
 *  pieces: begin, append…, end), syncing every few megabytes as it goes (`syncPast`), so that
 *  committing has little left to sync. (Off the main thread, a sync's completion is seen only
 *  on a turn of the event loop, which a program running ticks back to back never gives: its
 *  commit then synced everything.) The file is created at the first byte. */
export class PartsWriter {
  #fd: number | undefined
  #at = 0
  #synced = 0
  #current: WrittenPart | undefined
  readonly #parts: WrittenPart[] = []

  constructor(
    readonly id: number,
    readonly file: string,
  ) {}

  /** Bytes written so far. */
  get bytes(): number {
    return this.#at
  }

  begin(owner: string, base: number | null, fuzzy = false): void {
    if (this.#current !== undefined) throw new Error('internal: a checkpoint part begun inside another')
    this.#current = { owner, base, fuzzy, offset: this.#at, length: 0, crc: this.id >>> 0 }
  }

  append(bytes: Buffer): void {
    const p = this.#current
    if (p === undefined) throw new Error('internal: checkpoint bytes outside a part')
    this.#fd ??= openSync(this.file, 'w')
    let at = 0
    while (at < bytes.length) at += writeSync(this.#fd, bytes, at, bytes.length - at)
    p.crc = crc32(bytes, p.crc)
    p.length += bytes.length
    this.#at += bytes.length
  }

  end(): void {
    if (this.#current === undefined) throw new Error('internal: no checkpoint part to end')
    this.#parts.push(this.#current)
    this.#current = undefined
  }

  /** Syncs once more than `bytes` were written since the last sync. */
  syncPast(bytes: number): void {
    if (this.#fd === undefined || this.#at - this.#synced <= bytes) return
    fdatasyncSync(this.#fd)
    this.#synced = this.#at
  }

  /** Syncs the file (and its directory) and closes it; returns where each part is. */
  finish(): readonly WrittenPart[] {
    if (this.#current !== undefined) throw new Error('internal: a checkpoint committed inside a part')
    if (this.#fd !== undefined) {
      if (this.#synced !== this.#at) fdatasyncSync(this.#fd)
      this.close()
      const dirFd = openSync(path.dirname(this.file), 'r')
      try {
        fsyncSync(dirFd)
      } finally {
        closeSync(dirFd)
      }
    }
    return this.#parts
  }

  close(): void {
    if (this.#fd === undefined) return
    try {
      closeSync(this.#fd)
    } catch {
      // closing a file given up
    }
    this.#fd = undefined
  }
}

/** Reads a part's bytes (null when its file is gone or short). */
export function readPart(partsDir: string, p: PartPlace): Buffer | null {
  let fd: number
  try {
    fd = openSync(path.join(partsDir, p.file), 'r')
  } catch {
    return null
  }
  try {
    const buf = Buffer.allocUnsafe(p.length)
    let at = 0
    while (at < p.length) {
      const n = readSync(fd, buf, at, p.length - at, p.offset + at)
      if (n === 0) return null
      at += n
    }
    return buf
  } finally {
    closeSync(fd)
  }
}

/** Checkpoints always kept: the newest, and the one before it to fall back to if it is damaged. */
const CHECKPOINTS_KEPT = 2
/** With a log retention R, one checkpoint is kept per R / ANCHORS_PER_RETENTION of processing
 *  time back to R ago, so a tick within R has a checkpoint at or before it (SINCE resumes from
 *  it) at the cost of a few more checkpoints. */
const ANCHORS_PER_RETENTION = 4

/** A record as stored. */
export interface StoredRecord {
  readonly seq: number
  readonly kind: string
  readonly tick: number
  readonly now: number
  readonly body: Buffer
}

interface RawRecord extends StoredRecord {
  readonly crc: number
}

export class DataDirectory {
  readonly dir: string
  readonly #db: Database.Database
  readonly #append: Database.Statement<[number, string, number, number, Buffer, number]>
  readonly #setProgress: Database.Statement<[string, number, number | null]>
  readonly #getProgress: Database.Statement<[string], { tick: number; bytes: number | null }>
  readonly #segments: LogSegments
  #nextSeq: number
  #durability: Durability = 'power'
  /** Bytes of the log (SQLite's record bodies, the segment files). */
  bytes = 0
  /** Fault injection for tests: called before each write; a throw is that write failing. */
  beforeWrite: ((what: 'append' | 'sink progress' | 'checkpoint') => void) | undefined

  private constructor(dir: string, db: Database.Database) {
    this.dir = dir
    this.#db = db
    this.#append = db.prepare('INSERT INTO log (seq, kind, tick, now, body, crc) VALUES (?, ?, ?, ?, ?, ?)')
    this.#setProgress = db.prepare('INSERT INTO sink_progress (sink, tick, bytes) VALUES (?, ?, ?) ON CONFLICT (sink) DO UPDATE SET tick = excluded.tick, bytes = excluded.bytes')
    this.#getProgress = db.prepare('SELECT tick, bytes FROM sink_progress WHERE sink = ?')
    const last = db.prepare('SELECT max(seq) AS seq, coalesce(sum(length(body)), 0) AS bytes FROM log').get() as { seq: number | null; bytes: number }
    const start = db.prepare("SELECT value FROM meta WHERE key = 'log_start'").get() as { value: string } | undefined
    this.#logStart = start === undefined ? 1 : Number(start.value)
    const covered = db.prepare('SELECT max(seq) AS seq FROM checkpoint').get() as { seq: number | null }
    this.#segments = new LogSegments(path.join(dir, LOG_DIR))
    // a truncated log may end below what was truncated or checkpointed (its last records were
    // DDL): a sequence number is never given twice
    this.#nextSeq = Math.max(last.seq ?? 0, this.#segments.lastSeq, covered.seq ?? 0, this.#logStart - 1) + 1
    this.bytes = last.bytes + this.#segments.bytes
    this.partsDir = path.join(dir, PARTS_DIR)
    mkdirSync(this.partsDir, { recursive: true })
    // parts of a base rewrite no checkpoint came to read, and files of a crash before their rows
    db.transaction(() => this.#forgetParts())()
    const named = new Set((db.prepare('SELECT DISTINCT file FROM state_part').all() as { file: string }[]).map((r) => r.file))
    for (const f of readdirSync(this.partsDir)) if (!named.has(f)) unlinkSync(path.join(this.partsDir, f))
  }

  /** DIR/parts: the files of the checkpoints' parts. */
  readonly partsDir: string
  /** Files a base rewrite is reading: deleted only once it is done (see `unpin`). */
  readonly #pinned = new Map<string, number>()
  /** Files no row names any more but a rewrite still reads. */
  readonly #unlinkLater = new Set<string>()

  #unlink(files: Iterable<string>): void {
    for (const f of files) {
      if (this.#pinned.has(f)) {
        this.#unlinkLater.add(f)
        continue
      }
      try {
        unlinkSync(path.join(this.partsDir, f))
      } catch {
        // already gone
      }
    }
  }

  /** Keeps the files of these parts while a base rewrite reads them. */
  pin(parts: readonly PartPlace[]): void {
    for (const p of parts) this.#pinned.set(p.file, (this.#pinned.get(p.file) ?? 0) + 1)
  }

  unpin(parts: readonly PartPlace[]): void {
    const done: string[] = []
    for (const p of parts) {
      const n = (this.#pinned.get(p.file) ?? 1) - 1
      if (n > 0) this.#pinned.set(p.file, n)
      else {
        this.#pinned.delete(p.file)
        if (this.#unlinkLater.delete(p.file)) done.push(p.file)
      }
    }
    this.#unlink(done)
  }

  #logStart: number

  /** The first record of the log that is not DDL still kept: records before it (but the DDL)
   *  were truncated behind the checkpoints (1: the log is whole). */
  get logStart(): number {
    return this.#logStart
  }

  /** Creates or reopens the directory; fails if another process has it open, or if a newer
   *  release wrote it. */
  static open(dir: string): DataDirectory {
    const full = path.resolve(dir)
    let db: Database.Database
    try {
      mkdirSync(full, { recursive: true })
      db = new Database(path.join(full, DATABASE_FILE), { timeout: 0 })
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `cannot open data directory "${dir}": ${(e as Error).message}`)
    }
    try {
      db.pragma('locking_mode = EXCLUSIVE')
      // a tick's record is tens to hundreds of KB: large pages write it in fewer frames (only a
      // new database takes it), and the WAL is folded into the database every 256 MB rather
      // than every 4 MB (measured: 0.83 → 0.44 ms per 190 KB append)
      db.pragma('page_size = 65536')
      db.pragma('journal_mode = WAL')
      db.pragma('wal_autocheckpoint = 4096')
      // durability 'power' fsyncs the WAL itself after each commit (see `append`)
      db.pragma('synchronous = NORMAL')
      // takes the lock now, so a second opener fails here rather than at its first write
      db.exec('BEGIN IMMEDIATE')
      db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, tick INTEGER NOT NULL, now INTEGER NOT NULL, body BLOB NOT NULL, crc INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS sink_progress (sink TEXT PRIMARY KEY, tick INTEGER NOT NULL, bytes INTEGER);
        CREATE TABLE IF NOT EXISTS checkpoint (id INTEGER PRIMARY KEY, tick INTEGER NOT NULL, seq INTEGER NOT NULL, taken_at TEXT NOT NULL, offsets TEXT NOT NULL, millis REAL NOT NULL, body BLOB NOT NULL, crc INTEGER NOT NULL, keep_from INTEGER, now INTEGER, parts TEXT);
        CREATE TABLE IF NOT EXISTS state_part (owner TEXT NOT NULL, ckpt INTEGER NOT NULL, kind TEXT NOT NULL, file TEXT NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL, crc INTEGER NOT NULL, UNIQUE (owner, ckpt, kind))`)
      const version = db.prepare("SELECT value FROM meta WHERE key = 'format_version'").get() as { value: string } | undefined
      if (version === undefined) {
        db.prepare("INSERT INTO meta (key, value) VALUES ('format_version', ?), ('created_at', ?)").run(String(FORMAT_VERSION), new Date().toISOString())
      } else if (!(Number(version.value) >= 1 && Number(version.value) <= FORMAT_VERSION)) {
        throw new RivuletError(SqlState.objectNotInPrerequisiteState, `data directory "${dir}" has format version ${version.value}; this release reads versions 1 to ${FORMAT_VERSION}`)
      } else if (Number(version.value) < FORMAT_VERSION) {
        // format 1 → 2: checkpoints of format 1 name no oldest record (NULL: they need the log
        // from its start, so nothing is truncated behind them). 2 → 3: their state is all in
        // their body (parts NULL). 3 → 4: parts of format 3 decode as they are
        const columns = db.prepare('PRAGMA table_info(checkpoint)').all() as { name: string }[]
        if (!columns.some((c) => c.name === 'keep_from')) db.exec('ALTER TABLE checkpoint ADD COLUMN keep_from INTEGER')
        if (!columns.some((c) => c.name === 'now')) db.exec('ALTER TABLE checkpoint ADD COLUMN now INTEGER')
        if (!columns.some((c) => c.name === 'parts')) db.exec('ALTER TABLE checkpoint ADD COLUMN parts TEXT')
        db.prepare("UPDATE meta SET value = ? WHERE key = 'format_version'").run(String(FORMAT_VERSION))
      }
      db.exec('COMMIT')
    } catch (e) {
      db.close()
      if (e instanceof RivuletError) throw e
      const busy = (e as { code?: string }).code === 'SQLITE_BUSY'
      throw new RivuletError(SqlState.ioError, busy ? `data directory "${dir}" is in use by another process` : `cannot open data directory "${dir}": ${(e as Error).message}`)
    }
    return new DataDirectory(full, db)
  }

  get durability(): Durability {
    return this.#durability
  }

  set durability(level: Durability) {
    this.#durability = level
    this.#segments.syncOnRoll = level === 'power'
  }

  /** Set when an fsync failed: the record is written but may not be on disk, so whether the
   *  tick survives is unknown; nothing more is appended (reopen to find out, as PostgreSQL
   *  stops on a failed fsync). */
  broken: RivuletError | undefined

  #breakOn(e: unknown): never {
    this.broken = new RivuletError(SqlState.ioError, `could not fsync the log in "${this.dir}": ${e instanceof Error ? e.message : String(e)}; the last commit may or may not survive: reopen the data directory`)
    throw this.broken
  }

  /** Bytes of a torn last record cut off the log on open (0: none). */
  get tornBytes(): number {
    return this.#segments.tornBytes
  }

  /** fsyncs done (of the log's files), for tests of group commit. */
  syncs = 0
  /** True when a deferred append to SQLite waits for `sync()` (a segment's: `#segments.unsynced`). */
  #unsynced = false
  #syncing = false
  readonly #syncWaiters: { resolve: () => void; reject: (e: unknown) => void }[] = []
  #walFd: number | undefined

  #wal(): number {
    return (this.#walFd ??= openSync(path.join(this.dir, `${DATABASE_FILE}-wal`), 'r'))
  }

  /** fsyncs SQLite's WAL and the segment appended to since the last fsync. */
  #fsync(): void {
    this.#segments.syncNow()
    fsyncSync(this.#wal())
    // it covers the deferred appends before it too
    this.#unsynced = false
    this.syncs++
  }

  /** Resolves when every append before it is fsynced (durability 'power'): one fsync, run off
   *  the main thread, serves all the appends before it began; those after wait for the next. */
  sync(): Promise<void> {
    if (!this.#unsynced && !this.#segments.unsynced && this.#syncWaiters.length === 0 && !this.#syncing) return Promise.resolve()
    return new Promise((resolve, reject) => {
      this.#syncWaiters.push({ resolve, reject })
      this.#startSync()
    })
  }

  #startSync(): void {
    if (this.#syncing || this.#syncWaiters.length === 0) return
    const batch = this.#syncWaiters.splice(0)
    if (!this.#unsynced && !this.#segments.unsynced) {
      for (const w of batch) w.resolve()
      return
    }
    const wal = this.#unsynced
    this.#unsynced = false
    this.#syncing = true
    // the segment first, then SQLite's WAL (a DDL record there may follow deferred ticks)
    const done = (err: Error | null): void => {
      this.#syncing = false
      this.syncs++
      if (err) {
        try {
          this.#breakOn(err)
        } catch (broken) {
          for (const w of batch) w.reject(broken)
        }
      } else for (const w of batch) w.resolve()
      this.#startSync()
    }
    this.#segments.sync((err) => {
      if (err !== null || !wal) done(err)
      else fsync(this.#wal(), done)
    })
  }

  /** The sequence number the next record gets. */
  get nextSeq(): number {
    return this.#nextSeq
  }

  /** Appends one record, durable when this returns — or, `deferred`, once `sync()` resolves. */
  append(kind: string, tick: number, now: number, body: Buffer, deferred = false): number {
    const seq = this.#nextSeq
    if (this.broken) throw this.broken
    // DDL in SQLite (kept whole by truncation), the rest in the segments
    const ddl = kind === 'ddl'
    try {
      this.beforeWrite?.('append')
      if (ddl) this.#append.run(seq, kind, tick, now, body, checksum(seq, body))
      else this.#segments.append(seq, kind, tick, now, body)
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `could not write to the log in "${this.dir}": ${(e as Error).message}`)
    }
    if (this.#durability === 'power') {
      if (deferred) this.#unsynced ||= ddl
      else {
        try {
          this.#fsync()
        } catch (e) {
          this.#breakOn(e)
        }
      }
    }
    this.#nextSeq++
    this.bytes += body.length
    return seq
  }

  /** The records after `afterSeq` (through `uptoSeq`), in order: SQLite's and the segments'
   *  merged (a segment's records before `logStart`, which truncation drops only with their whole
   *  file, left out); a record whose checksum fails is an error (XX001). */
  *records(afterSeq = 0, uptoSeq = Number.MAX_SAFE_INTEGER): Generator<StoredRecord> {
    const stored = this.#stored(afterSeq, uptoSeq)
    const segments = this.#segments.records(Math.max(afterSeq, this.#logStart - 1), uptoSeq)
    let a = stored.next()
    let b = segments.next()
    while (!a.done || !b.done) {
      if (b.done || (!a.done && a.value.seq < b.value.seq)) {
        yield a.value as StoredRecord
        a = stored.next()
      } else {
        yield b.value
        b = segments.next()
      }
    }
  }

  /** SQLite's records after `afterSeq` through `uptoSeq`, read in pages, so the connection is
   *  free between them (replay writes sink progress). */
  *#stored(afterSeq: number, uptoSeq: number): Generator<StoredRecord> {
    const page = this.#db.prepare('SELECT seq, kind, tick, now, body, crc FROM log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 512')
    let after = afterSeq
    for (;;) {
      const rows = page.all(after, uptoSeq) as RawRecord[]
      if (rows.length === 0) return
      for (const r of rows) {
        if (checksum(r.seq, r.body) !== r.crc >>> 0) throw new RivuletError(SqlState.dataCorrupted, `log record ${r.seq} in "${this.dir}" is damaged (checksum mismatch): refusing to open rather than lose what follows it`)
        yield r
      }
      after = rows[rows.length - 1]!.seq
    }
  }

  /** Stores a checkpoint (atomically: one SQLite transaction, fsynced before it returns),
   *  forgets the ones no longer kept, and truncates the log behind the ones kept.
   *  Kept: the CHECKPOINTS_KEPT newest and, with a log retention (`retention`, µs of processing
   *  time; 0: none), the first of each stretch of R / ANCHORS_PER_RETENTION back to the one
   *  before R ago. Truncated: every record but DDL (recovery replays the DDL to rebuild the
   *  circuit a checkpoint fills) before both the oldest record a kept checkpoint needs (its
   *  `keepFrom`: the record after it, or an earlier one a stream's history reads) and the first
   *  record within the retention. */
  writeCheckpoint(c: Omit<StoredCheckpoint, 'id' | 'bytes' | 'parts'>, body: Buffer, parts: readonly CheckpointPart[], keepFrom: number, now: number, retention: number): number {
    const w = this.beginCheckpoint()
    try {
      this.fixPoint()
      for (const p of parts) {
        w.begin(p.owner, p.base)
        w.append(p.body)
        w.end()
      }
    } catch (e) {
      this.abortCheckpoint(w)
      throw new RivuletError(SqlState.ioError, `could not write a checkpoint to "${this.dir}": ${(e as Error).message}`)
    }
    return this.commitCheckpoint(w, c, body, keepFrom, now, retention)
  }

  /** Starts a checkpoint: its id, and a PartsWriter for its parts' file. Nothing names it
   *  until commitCheckpoint. */
  beginCheckpoint(): PartsWriter {
    if (this.broken) throw this.broken
    try {
      const id = (this.#db.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM checkpoint').get() as { id: number }).id
      return new PartsWriter(id, path.join(this.partsDir, `c${id}.bin`))
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `could not write a checkpoint to "${this.dir}": ${(e as Error).message}`)
    }
  }

  /** The checkpoint begun covers the records so far: they are made durable (durability
   *  'power'), and the next ones go to a segment of their own (truncation deletes whole
   *  segments). */
  fixPoint(): void {
    if (this.broken) throw this.broken
    try {
      if (this.#durability === 'power') this.#segments.syncNow()
      this.#segments.roll(this.#nextSeq)
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `could not write a checkpoint to "${this.dir}": ${(e as Error).message}`)
    }
  }

  /** A checkpoint begun and not committed is given up: its file goes. */
  abortCheckpoint(w: PartsWriter): void {
    w.close()
    this.#unlink([path.basename(w.file)])
  }

  /** Records the checkpoint whose parts `w` wrote, with its body: the parts' bytes are made
   *  durable first (a row never names bytes that are not on disk), then one SQLite transaction
   *  adds it, drops the checkpoints no longer kept and truncates the log behind the oldest.
   *  `fuzzyKept` says which owners' fuzzy bases stand (see partPlaces). */
  commitCheckpoint(w: PartsWriter, c: Omit<StoredCheckpoint, 'id' | 'bytes' | 'parts'>, body: Buffer, keepFrom: number, now: number, retention: number, fuzzyKept: (owner: string) => boolean = () => true): number {
    if (this.broken) {
      this.abortCheckpoint(w)
      throw this.broken
    }
    const id = w.id
    let committed = false
    try {
      this.beforeWrite?.('checkpoint')
      const db = this.#db
      // (a fuzzy base whose owner went, or was replaced, before the point is no one's)
      const parts = w.finish().filter((p) => !p.fuzzy || fuzzyKept(p.owner))
      let forgotten: string[] = []
      const { truncated } = db.transaction(() => {
        const list = JSON.stringify([...new Map(parts.map((p) => [p.owner, p.base ?? id]))])
        db.prepare('INSERT INTO checkpoint (id, tick, seq, taken_at, offsets, millis, body, crc, keep_from, now, parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(id, c.tick, c.seq, c.taken_at, c.offsets, c.millis, body, checksum(c.seq, body), keepFrom, now, list)
        const part = db.prepare('INSERT OR REPLACE INTO state_part (owner, ckpt, kind, file, offset, length, crc) VALUES (?, ?, ?, ?, ?, ?, ?)')
        const file = path.basename(w.file)
        for (const p of parts) part.run(p.owner, id, p.fuzzy ? 'fuzzy' : p.base === null ? 'base' : 'delta', file, p.offset, p.length, p.crc)
        const all = db.prepare('SELECT id, coalesce(now, 0) AS now FROM checkpoint ORDER BY id DESC').all() as { id: number; now: number }[]
        const drop = all.slice(CHECKPOINTS_KEPT)
        if (retention > 0) {
          const stretch = retention / ANCHORS_PER_RETENTION
          const oldestStretch = Math.floor((now - retention) / stretch) - 1
          const firstOf = new Map<number, number>()
          for (const k of all) {
            const at = Math.floor(k.now / stretch)
            if (at >= oldestStretch) firstOf.set(at, k.id) // oldest last: the first in its stretch wins
          }
          const anchors = new Set(firstOf.values())
          for (let i = drop.length - 1; i >= 0; i--) if (anchors.has(drop[i]!.id)) drop.splice(i, 1)
        }
        const forget = db.prepare('DELETE FROM checkpoint WHERE id = ?')
        for (const k of drop) forget.run(k.id)
        forgotten = this.#forgetParts()
        const kept = db.prepare('SELECT min(coalesce(keep_from, 1)) AS start FROM checkpoint').get() as { start: number }
        const start = retention > 0 ? Math.min(kept.start, this.#firstRecordAt(now - retention)) : kept.start
        if (start <= this.#logStart) return { truncated: undefined }
        const gone = db.prepare("SELECT coalesce(sum(length(body)), 0) AS bytes FROM log WHERE seq < ? AND kind <> 'ddl'").get(start) as { bytes: number }
        db.prepare("DELETE FROM log WHERE seq < ? AND kind <> 'ddl'").run(start)
        db.prepare("INSERT INTO meta (key, value) VALUES ('log_start', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(start))
        return { truncated: { start, bytes: gone.bytes } }
      })()
      committed = true
      // the checkpoint durable before the segments it lets go are deleted; with durability
      // 'process' that is SQLite's WAL alone (the log's records are not fsynced at that level,
      // and syncing a second of ingest here would be the checkpoint's longest pause)
      if (this.#durability === 'power') this.#fsync()
      else fsyncSync(this.#wal())
      if (truncated !== undefined) {
        this.#logStart = truncated.start
        this.bytes -= truncated.bytes + this.#segments.dropBefore(truncated.start)
      }
      this.#unlink(forgotten)
      return id
    } catch (e) {
      // a committed checkpoint keeps its file, whatever failed after
      if (!committed) this.abortCheckpoint(w)
      throw new RivuletError(SqlState.ioError, `could not write a checkpoint to "${this.dir}": ${(e as Error).message}`)
    }
  }

  /** Deletes the parts no kept checkpoint reads — a checkpoint reads, per owner, the base at
   *  the owner's base checkpoint and the deltas after it through itself (a few hundred rows
   *  at most: owners × checkpoints) — and returns the files no part is in any more. */
  #forgetParts(): string[] {
    const db = this.#db
    const needed = new Map<string, [number, number][]>()
    for (const k of db.prepare('SELECT id, parts FROM checkpoint WHERE parts IS NOT NULL').all() as { id: number; parts: string }[]) {
      for (const [owner, base] of JSON.parse(k.parts) as [string, number][]) {
        let ranges = needed.get(owner)
        if (ranges === undefined) needed.set(owner, (ranges = []))
        ranges.push([base, k.id])
      }
    }
    const forget = db.prepare('DELETE FROM state_part WHERE owner = ? AND ckpt = ? AND kind = ?')
    const files = new Set<string>()
    for (const p of db.prepare('SELECT owner, ckpt, kind, file FROM state_part').all() as { owner: string; ckpt: number; kind: string; file: string }[]) {
      const ranges = needed.get(p.owner)
      const read = ranges !== undefined && ranges.some(([base, to]) => (p.kind === 'delta' ? p.ckpt >= base && p.ckpt <= to : p.ckpt === base))
      if (!read) {
        forget.run(p.owner, p.ckpt, p.kind)
        files.add(p.file)
      }
    }
    if (files.size === 0) return []
    const still = new Set((db.prepare('SELECT DISTINCT file FROM state_part').all() as { file: string }[]).map((r) => r.file))
    return [...files].filter((f) => !still.has(f))
  }

  /** Where the parts of `owner` a checkpoint reads are: the base at `base`, then the deltas
   *  after it through the checkpoint, oldest first (XX001 when one is missing). */
  partPlaces(c: StoredCheckpoint, owner: string, base: number): PartPlace[] {
    // the base, then a delta of every checkpoint after it through c. A base read while ticks
    // went on (kind 'fuzzy') is exact only with the delta of its own checkpoint, which follows
    // it; one the worker rewrote at that checkpoint (kind 'base') is exact, and preferred.
    const rows = this.#db.prepare("SELECT ckpt, kind, file, offset, length, crc FROM state_part WHERE owner = ? AND ((kind IN ('base', 'fuzzy') AND ckpt = ?) OR (kind = 'delta' AND ckpt >= ? AND ckpt <= ?)) ORDER BY ckpt, kind").all(owner, base, base, c.id) as (PartPlace & { kind: string })[]
    const head = rows.find((r) => r.kind === 'base') ?? rows.find((r) => r.kind === 'fuzzy')
    const deltas = rows.filter((r) => r.kind === 'delta' && (r.ckpt > base || head?.kind === 'fuzzy'))
    const places = head === undefined ? [] : [head, ...deltas]
    if (head === undefined || places.at(-1)!.ckpt !== c.id || deltas.length !== c.id - base + (head.kind === 'fuzzy' ? 1 : 0)) throw new RivuletError(SqlState.dataCorrupted, `checkpoint at tick ${c.tick} in "${this.dir}" is damaged (a part of ${owner} is missing)`)
    return places.map(({ ckpt, file, offset, length, crc }) => ({ ckpt, file, offset, length, crc }))
  }

  /** The bytes of those parts (XX001 when one is missing or damaged). */
  checkpointParts(c: StoredCheckpoint, owner: string, base: number): Buffer[] {
    return this.partPlaces(c, owner, base).map((p) => {
      const body = readPart(this.partsDir, p)
      if (body === null) throw new RivuletError(SqlState.dataCorrupted, `checkpoint at tick ${c.tick} in "${this.dir}" is damaged (a part of ${owner} is missing from ${PARTS_DIR}/${p.file})`)
      if (checksum(p.ckpt, body) !== p.crc >>> 0) throw new RivuletError(SqlState.dataCorrupted, `checkpoint at tick ${c.tick} in "${this.dir}" is damaged (checksum mismatch in a part of ${owner})`)
      return body
    })
  }

  /** Records a base rewritten off the main thread (its file written and fsynced): `owner`'s
   *  state at checkpoint `ckpt`, which later checkpoints may take as their base. */
  addBase(owner: string, place: PartPlace): void {
    if (this.broken) throw this.broken
    this.#db.prepare("INSERT OR REPLACE INTO state_part (owner, ckpt, kind, file, offset, length, crc) VALUES (?, ?, 'base', ?, ?, ?, ?)").run(owner, place.ckpt, place.file, place.offset, place.length, place.crc)
  }

  /** The first record whose processing time is at or after `micros` (records are in time
   *  order): the first of SQLite's (a binary search over seq, a point query per step) and the
   *  segments' (their index). */
  #firstRecordAt(micros: number): number {
    return Math.min(this.#firstStoredAt(micros), this.#segments.firstAt(micros, this.#logStart) ?? this.#nextSeq)
  }

  #firstStoredAt(micros: number): number {
    const at = this.#db.prepare('SELECT seq, now FROM log WHERE seq >= ? ORDER BY seq LIMIT 1')
    let lo = this.#logStart
    let hi = this.#nextSeq
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2)
      const r = at.get(mid) as { seq: number; now: number } | undefined
      if (r === undefined || r.now >= micros) hi = mid
      else lo = r.seq + 1
    }
    return lo
  }

  /** The checkpoints kept, newest first (without their bodies). */
  checkpoints(): StoredCheckpoint[] {
    return this.#db.prepare("SELECT id, tick, seq, taken_at, offsets, length(body) + (SELECT coalesce(sum(p.length), 0) FROM state_part p WHERE p.ckpt = checkpoint.id AND p.file = 'c' || checkpoint.id || '.bin') AS bytes, millis, parts FROM checkpoint ORDER BY id DESC").all() as StoredCheckpoint[]
  }

  /** A checkpoint's body, or an error (XX001) when its checksum fails. */
  checkpointBody(c: StoredCheckpoint): Buffer {
    const r = this.#db.prepare('SELECT body, crc FROM checkpoint WHERE id = ?').get(c.id) as { body: Buffer; crc: number } | undefined
    if (r === undefined) throw new RivuletError(SqlState.dataCorrupted, `checkpoint ${c.id} in "${this.dir}" is gone`)
    if (checksum(c.seq, r.body) !== r.crc >>> 0) throw new RivuletError(SqlState.dataCorrupted, `checkpoint at tick ${c.tick} in "${this.dir}" is damaged (checksum mismatch)`)
    return r.body
  }

  /** The DDL records up to `seq`, in order (checked like `records`). */
  *ddlRecords(uptoSeq: number): Generator<StoredRecord> {
    for (const r of this.#db.prepare("SELECT seq, kind, tick, now, body, crc FROM log WHERE kind = 'ddl' AND seq <= ? ORDER BY seq").all(uptoSeq) as RawRecord[]) {
      if (checksum(r.seq, r.body) !== r.crc >>> 0) throw new RivuletError(SqlState.dataCorrupted, `log record ${r.seq} in "${this.dir}" is damaged (checksum mismatch): refusing to open rather than lose what follows it`)
      yield r
    }
  }

  sinkProgress(sink: string): { tick: number; bytes: number | null } | undefined {
    return this.#getProgress.get(sink)
  }

  setSinkProgress(sink: string, tick: number, bytes: number | null): void {
    this.beforeWrite?.('sink progress')
    this.#setProgress.run(sink, tick, bytes)
  }

  close(): void {
    this.#segments.close()
    if (this.#walFd !== undefined) closeSync(this.#walFd)
    this.#walFd = undefined
    if (this.#db.open) this.#db.close()
  }
}
