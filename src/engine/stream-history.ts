// A keyless stream's stored rows (its history): append-only, in arrival order, and mostly out
// of the heap. The newest rows (the tail, up to `tailRows` committed ones) are kept in memory;
// when the tail grows past that, its committed rows become a chunk whose rows live elsewhere:
//   - with a data directory, in the log itself — the tick records that appended them hold
//     them already, so nothing is written: the chunk is the range of log records to read;
//   - without one (or for rows of a tick the log did not record), in the engine's spill file,
//     a temporary file with no name (src/storage/spill-file.ts).
// A read of the whole history (a new view's backfill, SELECT, a checkpoint of the spill file's
// chunks) reads the chunks back; ingest and views never do. The heap then holds per chunk a few
// numbers, so it is bounded by what the views keep, not by the stream's length.
//
// Retention (watermark − retention) drops rows from the front while they are older than the
// cutoff, among the rows committed before the tick that moved it (what a scan at each tick's
// commit does: with a cutoff that only grows, the front it ends at is the first row at or past
// the latest cutoff, or the first row of a later tick). A chunk wholly behind the front is
// dropped at once (from its newest event time, kept per chunk); the front inside a chunk is
// found only when the chunk is read (a read of `size` or of the rows), so ticks never read
// chunks back.
//
// State it keeps: the chunks (start offset, rows, weight, first and newest event time, where),
// the tail's rows and weights, and per committed tail tick the log record that holds it.

import type * as ivm from '../../ivm/index.js'
import { ZSet, type Row } from '../../ivm/index.js'
import { TableStore } from './catalog.js'
import type { SpilledChunk, SpillFile } from '../storage/spill-file.js'

/** What a stream's history needs from the engine to keep rows out of the heap. */
export interface HistoryPlace {
  /** Committed rows kept in memory per stream before they move out. */
  readonly tailRows: number
  /** The sequence number of the open tick's log record, when the log holds this tick's input
   *  (a data directory, and a tick that was logged); otherwise undefined. */
  seqOfOpenTick(): number | undefined
  /** Bytes of the log's records `relation` has had so far (its share of shared records). */
  loggedBytes(relation: string): number
  /** The rows `relation` received in the log records `firstSeq` to `lastSeq`, in order. */
  readLogged(relation: string, firstSeq: number, lastSeq: number): { rows: Row[]; weights: number[] }
  /** The spill file (opened at first write). */
  readonly spill: SpillFile
}

/** Where a chunk's rows are: a range of log records (after `lead` rows of the range that are
 *  not the chunk's), the spill file, or the heap (loaded from a checkpoint). */
type Place =
  | { readonly log: readonly [firstSeq: number, lastSeq: number]; readonly lead: number }
  | { readonly file: SpilledChunk }
  | { readonly rows: Row[]; readonly weights: number[] }

interface Chunk {
  /** Offset of its first row in the stream (rows appended before it). */
  readonly start: number
  readonly count: number
  /** Sum of its rows' weights. */
  readonly weight: number
  readonly firstTs: number
  readonly maxTs: number
  /** Bytes of its rows as stored (in the log: the stream's share of the records). */
  readonly bytes: number
  readonly place: Place
}

/** A tick's committed tail rows and the log record holding them (undefined: not logged). */
interface TailTick {
  readonly seq: number | undefined
  readonly count: number
}

/** Saved state (a checkpoint): chunks, with spill-file chunks' rows inline, and the tail. */
interface SavedHistory {
  readonly chunks: Chunk[]
  readonly skip: number
  readonly skipWeight: number
  readonly cutoff: number
  readonly limit: number
  readonly tail: SavedTail
  /** The stream's log bytes when its last chunk was made (chunks' bytes are differences). */
  readonly logged: number
}

/** The tail as saved: its ticks' log records (read back on load), or its rows when a tick of
 *  it was not logged. */
interface SavedTail {
  readonly start: number
  readonly head: number
  readonly lead: number
  readonly ticks: TailTick[]
  readonly rows?: Row[]
  readonly weights?: number[]
}

const EMPTY: Row = []

export class AppendLog extends TableStore {
  /** The stream's name in the log's records. */
  readonly #relation: string
  /** The event-time column (its watermark's), or undefined: chunks then carry no times. */
  readonly #timeColumn: number | undefined
  readonly #place: HistoryPlace | undefined
  /** `retention_bytes`: the newest chunks holding at least this many bytes are kept. */
  readonly #maxBytes: number | undefined
  /** Bytes of the kept chunks, and the stream's log bytes when the last chunk was made. */
  #chunkBytes = 0
  #loggedAtLastChunk = 0

  #chunks: Chunk[] = []
  /** First chunk still kept. */
  #chunkHead = 0
  /** Rows of the first kept chunk behind the retention front, when known (undefined: found on
   *  the next read), and their weight. */
  #skip: number | undefined = 0
  #skipWeight = 0
  /** The latest retention: the cutoff, and the stream offset of the rows it applied to. */
  #cutoff = -Infinity
  #limit = 0

  #rows: Row[] = []
  #weights: number[] = []
  /** Stream offset of the tail's first row. */
  #tailStart = 0
  /** First tail row still kept (retention drops rows from the front once no chunk is left). */
  #head = 0
  /** Tail length at the last commit: rollback truncates to it. */
  #committed = 0
  #tailTicks: TailTick[] = []
  /** Weight of the rows kept (those behind an unknown `#skip` included), now and at commit. */
  #size = 0
  #committedSize = 0

  /** `place` undefined: everything stays in memory. */
  constructor(relation = '', timeColumn?: number, place?: HistoryPlace, maxBytes?: number) {
    super([])
    this.#relation = relation
    this.#timeColumn = timeColumn
    this.#place = place
    this.#maxBytes = maxBytes
  }

  override get size(): number {
    this.#resolveSkip()
    return this.#size
  }

  /** Chunks out of the heap (for tests and EXPLAIN-like reports). */
  get chunks(): number {
    return this.#chunks.length - this.#chunkHead
  }

  /** Appends the delta's rows (a stream's deltas are inserts only). */
  override apply(delta: ivm.ZSet): void {
    const { rows, weights } = delta
    for (let i = 0; i < rows.length; i++) {
      const w = weights[i]!
      if (w <= 0) throw new Error('internal: an append-only log takes inserts only')
      this.#rows.push(rows[i]!)
      this.#weights.push(w)
      this.#size += w
    }
  }

  override commit(): void {
    const added = this.#rows.length - this.#committed
    if (added > 0) this.#tailTicks.push({ seq: this.#place?.seqOfOpenTick(), count: added })
    this.#committed = this.#rows.length
    this.#committedSize = this.#size
    if (this.#place !== undefined && this.#committed - this.#head >= this.#place.tailRows) this.#moveTailOut()
    if (this.#maxBytes !== undefined) this.#dropOverBytes(this.#maxBytes)
  }

  /** retention_bytes: drops the oldest chunk while the chunks after it hold `max` bytes. */
  #dropOverBytes(max: number): void {
    while (this.#chunkHead < this.#chunks.length - 1 && this.#chunkBytes - this.#chunks[this.#chunkHead]!.bytes >= max) this.#dropHeadChunk()
  }

  #dropHeadChunk(): void {
    const c = this.#chunks[this.#chunkHead]!
    this.#drop(c.weight - this.#skipWeight)
    this.#chunkBytes -= c.bytes
    this.#chunks[this.#chunkHead++] = undefined as unknown as Chunk
    this.#skip = 0
    this.#skipWeight = 0
  }

  override rollback(): void {
    this.#rows.length = this.#committed
    this.#weights.length = this.#committed
    this.#size = this.#committedSize
  }

  override snapshot(): ivm.ZSet {
    return this.#read(this.#rows.length)
  }

  override committedSnapshot(): ivm.ZSet {
    return this.#read(this.#committed)
  }

  /** The event-time column whose times chunks carry (undefined: none). */
  get timeColumn(): number | undefined {
    return this.#timeColumn
  }

  /** Whether rows leave it only by retention on its time column (no `retention_bytes`). */
  get dropsByTimeOnly(): boolean {
    return this.#maxBytes === undefined
  }

  /** The committed rows kept, but for the chunks whose newest time `skip` says to pass by
   *  (unread): an operator rebuilding its state reads only what it can still hold. */
  committedRowsWhere(skip: (newestTime: number) => boolean): ivm.ZSet {
    this.#resolveSkip()
    const rows: Row[] = []
    const weights: number[] = []
    for (let i = this.#chunkHead; i < this.#chunks.length; i++) {
      const c = this.#chunks[i]!
      if (skip(c.maxTs)) continue
      const part = this.#rowsOf(c)
      for (let j = i === this.#chunkHead ? this.#skip! : 0; j < part.rows.length; j++) {
        rows.push(part.rows[j]!)
        weights.push(part.weights[j]!)
      }
    }
    for (let j = this.#head; j < this.#committed; j++) {
      rows.push(this.#rows[j]!)
      weights.push(this.#weights[j]!)
    }
    return new ZSet(rows, weights)
  }

  /** Calls `each` with the committed rows kept, a chunk at a time and then the newest rows (an
   *  operator rebuilding its state from every row, without holding them all at once). */
  forEachCommitted(each: (rows: ivm.ZSet) => void): void {
    this.#resolveSkip()
    for (let i = this.#chunkHead; i < this.#chunks.length; i++) {
      const part = this.#rowsOf(this.#chunks[i]!)
      const from = i === this.#chunkHead ? this.#skip! : 0
      each(from === 0 ? new ZSet(part.rows, part.weights) : new ZSet(part.rows.slice(from), part.weights.slice(from)))
    }
    each(new ZSet(this.#rows.slice(this.#head, this.#committed), this.#weights.slice(this.#head, this.#committed)))
  }

  /** Stream offset of the first row kept (rivulet_log's first offset). */
  get firstOffset(): number {
    this.#resolveSkip()
    const c = this.#chunks[this.#chunkHead]
    return c !== undefined ? c.start + this.#skip! : this.#tailStart + this.#head
  }

  /** Rows kept (committed ones; a row of weight 2 counts once, as the log holds it). */
  get retainedRows(): number {
    return this.#tailStart + this.#committed - this.firstOffset
  }

  /** The oldest log record a kept chunk reads (the log must keep it), or undefined. */
  get oldestLogSeq(): number | undefined {
    for (let i = this.#chunkHead; i < this.#chunks.length; i++) {
      const p = this.#chunks[i]!.place
      if ('log' in p) return p.log[0]
    }
    for (const t of this.#tailTicks) if (t.seq !== undefined) return t.seq
    return undefined
  }

  /** Retention: drops committed rows from the front while they are older than `cutoff` (the
   *  rows of the open tick stay until the next one). */
  dropBefore(cutoff: number): void {
    const col = this.#timeColumn
    if (col === undefined) return
    this.#cutoff = cutoff
    this.#limit = this.#tailStart + this.#committed
    while (this.#chunkHead < this.#chunks.length) {
      const c = this.#chunks[this.#chunkHead]!
      if (c.start + c.count > this.#limit || c.maxTs >= cutoff) break
      this.#dropHeadChunk()
    }
    if (this.#chunkHead < this.#chunks.length) {
      // the front is inside this chunk, unless its first row is already past the cutoff
      if (this.#chunks[this.#chunkHead]!.firstTs < cutoff) this.#unresolve()
    } else {
      const rows = this.#rows
      while (this.#head < this.#committed && (rows[this.#head]![col] as number) < cutoff) {
        this.#drop(this.#weights[this.#head]!)
        rows[this.#head] = EMPTY
        this.#head++
      }
      if (this.#head > 4096 && this.#head * 2 > rows.length) this.#compactTail()
    }
    if (this.#chunkHead > 64 && this.#chunkHead * 2 > this.#chunks.length) {
      this.#chunks.splice(0, this.#chunkHead)
      this.#chunkHead = 0
    }
  }

  #drop(weight: number): void {
    this.#size -= weight
    this.#committedSize -= weight
  }

  override get keyed(): boolean {
    return false
  }

  override saveState(): unknown {
    this.#resolveSkip()
    const chunks: Chunk[] = []
    for (let i = this.#chunkHead; i < this.#chunks.length; i++) {
      const c = this.#chunks[i]!
      chunks.push('file' in c.place ? { ...c, place: this.#place!.spill.read(c.place.file) } : c)
    }
    // the tail as its log records when they hold it (read back on load), else its rows
    const ticks = this.#tailTicks
    const logged = ticks.every((t) => t.seq !== undefined)
    const tail: SavedTail = {
      start: this.#tailStart,
      head: this.#head,
      lead: this.#tailLead,
      ticks: ticks.map((t) => ({ ...t })),
      ...(logged ? {} : { rows: this.#rows.slice(0, this.#committed), weights: this.#weights.slice(0, this.#committed) }),
    }
    const saved: SavedHistory = { chunks, skip: this.#skip!, skipWeight: this.#skipWeight, cutoff: this.#cutoff, limit: this.#limit, tail, logged: this.#loggedAtLastChunk }
    return saved
  }

  override loadState(state: unknown): void {
    // a checkpoint of the first release kept the rows themselves: they become the tail
    if (Array.isArray((state as { rows?: unknown }).rows)) {
      const s = state as { rows: Row[]; weights: number[] }
      return this.#load({ chunks: [], skip: 0, skipWeight: 0, cutoff: -Infinity, limit: 0, tail: { start: 0, head: 0, lead: 0, ticks: [{ seq: undefined, count: s.rows.length }], rows: s.rows, weights: s.weights }, logged: 0 })
    }
    this.#load(state as SavedHistory)
  }

  /** Puts back the state `saveState` took, the tail in memory again (from its log records), so
   *  the history goes on exactly as it would have (the same chunks, the same drops). */
  #load(s: SavedHistory): void {
    this.#chunks = s.chunks
    this.#chunkHead = 0
    this.#skip = s.skip
    this.#skipWeight = s.skipWeight
    this.#cutoff = s.cutoff
    this.#limit = s.limit
    const t = s.tail
    let rows: Row[]
    let weights: number[]
    if (t.rows !== undefined) {
      rows = t.rows
      weights = t.weights!
    } else if (t.ticks.length === 0) {
      rows = []
      weights = []
    } else {
      const all = this.#place!.readLogged(this.#relation, t.ticks[0]!.seq!, t.ticks[t.ticks.length - 1]!.seq!)
      let logged = -t.lead
      for (const tick of t.ticks) logged += tick.count
      if (all.rows.length - t.lead !== logged) throw new Error(`internal: the log holds ${all.rows.length - t.lead} rows of the tail of stream "${this.#relation}", its checkpoint ${logged}`)
      rows = all.rows.slice(t.lead)
      weights = all.weights.slice(t.lead)
    }
    for (let i = 0; i < t.head; i++) rows[i] = EMPTY
    this.#rows = rows
    this.#weights = weights
    this.#tailStart = t.start
    this.#head = t.head
    this.#committed = rows.length
    this.#tailTicks = t.ticks.map((x) => ({ ...x }))
    this.#tailLead = t.lead
    let size = 0
    let bytes = 0
    for (const c of s.chunks) {
      size += c.weight
      bytes += c.bytes ?? 0
    }
    for (let i = t.head; i < weights.length; i++) size += weights[i]!
    size -= s.skipWeight
    this.#chunkBytes = bytes
    this.#loggedAtLastChunk = s.logged
    this.#size = this.#committedSize = size
  }

  /** The rows kept, through tail row `end` (exclusive). */
  #read(end: number): ZSet {
    this.#resolveSkip()
    if (this.#chunkHead === this.#chunks.length) return new ZSet(this.#rows.slice(this.#head, end), this.#weights.slice(this.#head, end))
    const rows: Row[] = []
    const weights: number[] = []
    for (let i = this.#chunkHead; i < this.#chunks.length; i++) {
      const part = this.#rowsOf(this.#chunks[i]!)
      for (let j = i === this.#chunkHead ? this.#skip! : 0; j < part.rows.length; j++) {
        rows.push(part.rows[j]!)
        weights.push(part.weights[j]!)
      }
    }
    for (let j = this.#head; j < end; j++) {
      rows.push(this.#rows[j]!)
      weights.push(this.#weights[j]!)
    }
    return new ZSet(rows, weights)
  }

  #rowsOf(c: Chunk): { rows: Row[]; weights: number[] } {
    const p = c.place
    if ('rows' in p) return p
    if ('file' in p) return this.#place!.spill.read(p.file)
    const all = this.#place!.readLogged(this.#relation, p.log[0], p.log[1])
    if (all.rows.length !== p.lead + c.count) throw new Error(`internal: the log holds ${all.rows.length - p.lead} rows of stream "${this.#relation}" in records ${p.log[0]}–${p.log[1]}, its history ${c.count}`)
    return p.lead === 0 ? all : { rows: all.rows.slice(p.lead), weights: all.weights.slice(p.lead) }
  }

  /** Finds the retention front inside the first kept chunk (reads it). */
  #resolveSkip(): void {
    if (this.#skip !== undefined) return
    const c = this.#chunks[this.#chunkHead]!
    const { rows, weights } = this.#rowsOf(c)
    const col = this.#timeColumn!
    let i = 0
    let w = 0
    while (i < rows.length && c.start + i < this.#limit && (rows[i]![col] as number) < this.#cutoff) w += weights[i++]!
    this.#skip = i
    this.#skipWeight = w
    this.#drop(w)
  }

  /** Forgets the front inside the first chunk (a new cutoff): rows it skipped count again
   *  until it is found anew. */
  #unresolve(): void {
    if (this.#skip === undefined) return
    this.#size += this.#skipWeight
    this.#committedSize += this.#skipWeight
    this.#skip = undefined
    this.#skipWeight = 0
  }

  /** The committed tail's rows as a chunk: in the log when every tick of it was logged; else
   *  in the spill file. */
  #tailChunk(): Chunk {
    const from = this.#head
    const to = this.#committed
    const start = this.#tailStart + from
    const ticks = this.#tailTicks
    if (ticks.length > 0 && ticks.every((t) => t.seq !== undefined)) {
      const bytes = this.#place!.loggedBytes(this.#relation) - this.#loggedAtLastChunk
      return this.#chunkOf(this.#rows, this.#weights, from, to, start, { log: [ticks[0]!.seq!, ticks[ticks.length - 1]!.seq!], lead: this.#tailLead + from }, bytes)
    }
    const whole = from === 0 && to === this.#rows.length
    const rows = whole ? this.#rows : this.#rows.slice(from, to)
    const weights = whole ? this.#weights : this.#weights.slice(from, to)
    const file = this.#place!.spill.write(rows, weights)
    return this.#chunkOf(rows, weights, 0, rows.length, start, { file }, file.bytes)
  }

  /** A chunk of rows `from`–`to` of `rows`, at stream offset `start`. */
  #chunkOf(rows: readonly Row[], weights: readonly number[], from: number, to: number, start: number, place: Place, bytes: number): Chunk {
    let weight = 0
    for (let i = from; i < to; i++) weight += weights[i]!
    let firstTs = -Infinity
    let maxTs = Infinity
    const col = this.#timeColumn
    if (col !== undefined && to > from) {
      firstTs = rows[from]![col] as number
      maxTs = -Infinity
      for (let i = from; i < to; i++) {
        const ts = rows[i]![col] as number
        if (ts > maxTs) maxTs = ts
      }
    }
    return { start, count: to - from, weight, firstTs, maxTs, bytes, place }
  }

  /** The committed tail becomes a chunk out of the heap (commit: nothing is uncommitted). */
  #moveTailOut(): void {
    let chunk: Chunk
    try {
      chunk = this.#tailChunk()
    } catch {
      // the spill file cannot be written (a full disk): the rows stay in memory
      return
    }
    if (this.#chunkHead === this.#chunks.length) {
      this.#skip = 0
      this.#skipWeight = 0
    }
    this.#chunks.push(chunk)
    this.#chunkBytes += chunk.bytes
    if (this.#place !== undefined) this.#loggedAtLastChunk = this.#place.loggedBytes(this.#relation)
    this.#tailStart += this.#committed
    this.#rows = []
    this.#weights = []
    this.#head = 0
    this.#committed = 0
    this.#tailTicks = []
    this.#tailLead = 0
  }

  #compactTail(): void {
    const head = this.#head
    this.#rows.splice(0, head)
    this.#weights.splice(0, head)
    this.#committed -= head
    this.#tailStart += head
    this.#head = 0
    // the dropped rows were the first of the tail's ticks: a tick still partly kept is read
    // back from its log record skipping them (`#tailLead`)
    let before = this.#tailLead + head
    const ticks = this.#tailTicks
    while (ticks.length > 0 && ticks[0]!.count <= before) before -= ticks.shift()!.count
    this.#tailLead = before
  }

  /** Rows of the first tail tick's log record that come before the tail's first row. */
  #tailLead = 0
}
