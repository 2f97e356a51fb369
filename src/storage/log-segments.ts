// The log's tick records in segment files: DIR/log/<seq of its first record, 16 digits>.seg,
// each a run of records appended in sequence order, a new segment begun at 64 MB and at each
// checkpoint (so the log is truncated by deleting whole files behind the checkpoints kept).
// A record is a 40-byte header — magic, body length, CRC-32 (of the header's last 28 bytes and
// the body), kind, seq, tick, processing time (µs) — and its body. An append is one write(2)
// of header and body: against an SQLite row (a B-tree insert, the blob over overflow pages, a
// WAL frame per page, then the same pages copied again into the database file by SQLite's WAL
// checkpoint) a 160 KB record is written in about a seventh of the time, and written once.
//
// Only the last segment can end in a torn record (a segment is begun after its predecessor's
// last complete write): on open its tail is scanned, and a record cut short — or, after a power
// loss, one whose bytes are all zero — is cut off. Nothing there was acknowledged: an append is
// acknowledged after its write returns (and, with durability 'power', its fdatasync). A complete
// record whose checksum fails anywhere else is damage, reported when it is read.
//
// State kept: per segment its first seq and, once it is read or appended to, an index of its
// records (seq, offset, length, processing time): four numbers per record.

import { closeSync, fdatasync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync, writeSync, writevSync } from 'node:fs'
import path from 'node:path'
import { crc32 } from 'node:zlib'
import { RivuletError, SqlState } from '../../grammar/index.js'

export const HEADER_BYTES = 40
const MAGIC = 0x4c565952 // "RYVL" read as little-endian bytes
/** A segment past this many bytes is followed by a new one. */
export const SEGMENT_BYTES = 64 * 1024 * 1024
const KINDS = ['tick', 'ddl'] as const

/** A record as read back. */
export interface SegmentRecord {
  readonly seq: number
  readonly kind: string
  readonly tick: number
  readonly now: number
  readonly body: Buffer
}

interface Segment {
  readonly first: number
  readonly file: string
  /** The records' seq, offset, body length and processing time (null: not scanned yet). */
  index: { seqs: number[]; offsets: number[]; lengths: number[]; nows: number[] } | null
  size: number
}

const name = (first: number): string => `${String(first).padStart(16, '0')}.seg`

function checksumOf(header: Buffer, body: Buffer): number {
  return crc32(body, crc32(header.subarray(12, HEADER_BYTES)))
}

function readFully(fd: number, buf: Buffer, position: number): number {
  let at = 0
  while (at < buf.length) {
    const n = readSync(fd, buf, at, buf.length - at, position + at)
    if (n === 0) break
    at += n
  }
  return at
}

export class LogSegments {
  readonly dir: string
  readonly #segments: Segment[] = []
  /** The last segment, open for appending (undefined: none yet). */
  #fd: number | undefined
  /** Files of earlier segments still to be closed once an fdatasync in flight is done. */
  #retired: number[] = []
  #syncing = false
  /** Appended to since the last fdatasync. */
  unsynced = false
  /** The last record's seq (0: none). */
  lastSeq = 0
  /** Bytes in the segment files. */
  bytes = 0
  /** Bytes of a torn last record cut off on open (0: none). */
  readonly tornBytes: number = 0

  constructor(dir: string) {
    this.dir = dir
    mkdirSync(dir, { recursive: true })
    for (const f of readdirSync(dir).sort()) {
      if (!/^\d{16}\.seg$/.test(f)) continue
      this.#segments.push({ first: Number(f.slice(0, 16)), file: f, index: null, size: statSync(path.join(dir, f)).size })
    }
    const last = this.#segments.at(-1)
    if (last !== undefined) {
      this.#fd = openSync(path.join(dir, last.file), 'r+')
      const end = this.#scan(last, this.#fd, true)
      if (end < last.size) {
        ftruncateSync(this.#fd, end)
        this.tornBytes = last.size - end
        last.size = end
      }
      const seqs = last.index!.seqs
      // an empty last segment: the one before it ends at most at its first seq
      this.lastSeq = seqs.length > 0 ? seqs[seqs.length - 1]! : last.first - 1
    }
    for (const s of this.#segments) this.bytes += s.size
  }

  /** Indexes a segment's records by reading their headers; returns where its complete records
   *  end. `tail`: the last segment, whose end may be torn (else a short record is damage). */
  #scan(s: Segment, fd: number, tail: boolean): number {
    const index = { seqs: [] as number[], offsets: [] as number[], lengths: [] as number[], nows: [] as number[] }
    const header = Buffer.allocUnsafe(HEADER_BYTES)
    let at = 0
    while (at < s.size) {
      const got = readFully(fd, header, at)
      const length = header.readUInt32LE(4)
      if (got < HEADER_BYTES || at + HEADER_BYTES + length > s.size || header.readUInt32LE(0) !== MAGIC) {
        if (tail && this.#tornFrom(fd, at, s.size)) break
        throw new RivuletError(SqlState.dataCorrupted, `the log segment ${s.file} in "${this.dir}" is damaged at byte ${at}: refusing to open rather than lose what follows it`)
      }
      index.seqs.push(header.readDoubleLE(16))
      index.offsets.push(at)
      index.lengths.push(length)
      index.nows.push(header.readDoubleLE(32))
      at += HEADER_BYTES + length
    }
    s.index = index
    if (tail && index.seqs.length > 0) {
      // a power loss can leave the last record's length written and its bytes zero
      const i = index.seqs.length - 1
      const body = Buffer.allocUnsafe(index.lengths[i]!)
      readFully(fd, header, index.offsets[i]!)
      readFully(fd, body, index.offsets[i]! + HEADER_BYTES)
      if (checksumOf(header, body) !== header.readUInt32LE(8) && body.every((b) => b === 0)) {
        const end = index.offsets[i]!
        for (const a of Object.values(index)) a.pop()
        return end
      }
    }
    return at
  }

  /** True when the bytes from `at` are a torn write: short of a header, or a header whose
   *  record runs past the end, or all zero. */
  #tornFrom(fd: number, at: number, size: number): boolean {
    const rest = Buffer.allocUnsafe(size - at)
    readFully(fd, rest, at)
    if (rest.length < HEADER_BYTES) return true
    if (rest.readUInt32LE(0) === MAGIC && HEADER_BYTES + rest.readUInt32LE(4) > rest.length) return true
    return rest.every((b) => b === 0)
  }

  #indexOf(s: Segment): NonNullable<Segment['index']> {
    if (s.index !== null) return s.index
    const fd = openSync(path.join(this.dir, s.file), 'r')
    try {
      this.#scan(s, fd, false)
    } finally {
      closeSync(fd)
    }
    return s.index!
  }

  /** Appends a record (written to the OS when this returns; `unsynced` until `syncNow`/`sync`). */
  append(seq: number, kind: string, tick: number, now: number, body: Buffer): void {
    const code = KINDS.indexOf(kind as (typeof KINDS)[number]) + 1
    if (code === 0) throw new Error(`unknown log record kind ${kind}`)
    let last = this.#segments.at(-1)
    if (last === undefined || last.size >= SEGMENT_BYTES) last = this.#begin(seq)
    const header = Buffer.allocUnsafe(HEADER_BYTES)
    header.writeUInt32LE(MAGIC, 0)
    header.writeUInt32LE(body.length, 4)
    header.writeUInt32LE(code, 12)
    header.writeDoubleLE(seq, 16)
    header.writeDoubleLE(tick, 24)
    header.writeDoubleLE(now, 32)
    header.writeUInt32LE(checksumOf(header, body), 8)
    const fd = this.#fd!
    const at = last.size
    const total = HEADER_BYTES + body.length
    try {
      let done = writevSync(fd, [header, body], at)
      while (done < total) {
        const chunk = done < HEADER_BYTES ? header.subarray(done) : body.subarray(done - HEADER_BYTES)
        done += writeSync(fd, chunk, 0, chunk.length, at + done)
      }
    } catch (e) {
      // what part of the record got written would read as damage after the next append
      try {
        ftruncateSync(fd, at)
      } catch {
        // the next open cuts it off as a torn tail
      }
      throw e
    }
    const index = this.#indexOf(last)
    index.seqs.push(seq)
    index.offsets.push(at)
    index.lengths.push(body.length)
    index.nows.push(now)
    last.size += total
    this.bytes += total
    this.lastSeq = seq
    this.unsynced = true
  }

  /** Whether a new segment makes the one before it and its own directory entry durable at once
   *  (durability 'power': a power loss cannot lose the file under records fsynced into it).
   *  Without, they are noted and made durable by the next syncNow or sync (after SET durability
   *  = 'power'), so a segment roll costs no fsync of the records of a second of ingest. */
  syncOnRoll = true
  /** Segments retired with records not yet fsynced, and whether the directory is, while
   *  syncOnRoll is off. */
  readonly #unsyncedFiles = new Set<string>()
  #unsyncedDir = false

  /** Starts a new segment whose first record will be `seq`. */
  #begin(seq: number): Segment {
    const previous = this.#fd
    if (previous !== undefined) {
      if (this.unsynced) {
        if (this.syncOnRoll) fdatasyncSync(previous)
        else this.#unsyncedFiles.add(this.#segments.at(-1)!.file)
      }
      this.unsynced = false
      if (this.#syncing) this.#retired.push(previous)
      else closeSync(previous)
    }
    const s: Segment = { first: seq, file: name(seq), index: { seqs: [], offsets: [], lengths: [], nows: [] }, size: 0 }
    this.#fd = openSync(path.join(this.dir, s.file), 'w+')
    if (this.syncOnRoll) this.#syncDir()
    else this.#unsyncedDir = true
    this.#segments.push(s)
    return s
  }

  #syncDir(): void {
    const dirFd = openSync(this.dir, 'r')
    try {
      fsyncSync(dirFd)
    } finally {
      closeSync(dirFd)
    }
    this.#unsyncedDir = false
  }

  /** Makes the segments retired unsynced durable (see syncOnRoll). */
  #syncRetired(): void {
    for (const file of this.#unsyncedFiles) {
      let fd: number
      try {
        fd = openSync(path.join(this.dir, file), 'r+')
      } catch {
        continue // truncated away meanwhile
      }
      try {
        fdatasyncSync(fd)
      } finally {
        closeSync(fd)
      }
    }
    this.#unsyncedFiles.clear()
    if (this.#unsyncedDir) this.#syncDir()
  }

  /** Ends the current segment (if it has records): the next append begins one at `nextSeq`. */
  roll(nextSeq: number): void {
    const last = this.#segments.at(-1)
    if (last !== undefined && last.size > 0) this.#begin(nextSeq)
  }

  /** fdatasyncs what was appended, now. */
  syncNow(): void {
    if (this.#unsyncedFiles.size > 0 || this.#unsyncedDir) this.#syncRetired()
    if (!this.unsynced || this.#fd === undefined) return
    fdatasyncSync(this.#fd)
    this.unsynced = false
  }

  /** fdatasyncs what was appended, off the main thread; `done` when it is on disk. */
  sync(done: (err: Error | null) => void): void {
    if (this.#unsyncedFiles.size > 0 || this.#unsyncedDir) {
      try {
        this.#syncRetired()
      } catch (e) {
        done(e as Error)
        return
      }
    }
    if (!this.unsynced || this.#fd === undefined) {
      done(null)
      return
    }
    this.unsynced = false
    this.#syncing = true
    fdatasync(this.#fd, (err) => {
      this.#syncing = false
      for (const fd of this.#retired.splice(0)) closeSync(fd)
      done(err)
    })
  }

  /** Deletes the segments whose records all precede `seq` (never the last); the bytes freed. */
  dropBefore(seq: number): number {
    let freed = 0
    while (this.#segments.length > 1 && this.#segments[1]!.first <= seq) {
      const s = this.#segments.shift()!
      this.#unsyncedFiles.delete(s.file)
      try {
        unlinkSync(path.join(this.dir, s.file))
      } catch {
        // already gone
      }
      freed += s.size
    }
    this.bytes -= freed
    return freed
  }

  /** The records with after < seq ≤ upto, in order (a damaged one is an error, XX001). */
  *records(after: number, upto: number): Generator<SegmentRecord> {
    const segs = this.#segments
    // the last segment whose first record is at or before after + 1
    let i = segs.length - 1
    if (i < 0) return
    while (i > 0 && segs[i]!.first > after + 1) i--
    for (; i < segs.length; i++) {
      const s = segs[i]!
      if (s.first > upto) return
      const index = this.#indexOf(s)
      const { seqs } = index
      let r = 0
      while (r < seqs.length && seqs[r]! <= after) r++
      if (r === seqs.length) continue
      const fd = openSync(path.join(this.dir, s.file), 'r')
      try {
        for (; r < seqs.length && seqs[r]! <= upto; r++) {
          const buf = Buffer.allocUnsafe(HEADER_BYTES + index.lengths[r]!)
          const got = readFully(fd, buf, index.offsets[r]!)
          const header = buf.subarray(0, HEADER_BYTES)
          const body = buf.subarray(HEADER_BYTES)
          if (got < buf.length || header.readUInt32LE(0) !== MAGIC || checksumOf(header, body) !== header.readUInt32LE(8)) {
            throw new RivuletError(SqlState.dataCorrupted, `log record ${seqs[r]} in "${path.dirname(this.dir)}" is damaged (checksum mismatch): refusing to open rather than lose what follows it`)
          }
          yield { seq: seqs[r]!, kind: KINDS[header.readUInt32LE(12) - 1] ?? 'unknown', tick: header.readDoubleLE(24), now: header.readDoubleLE(32), body }
        }
      } finally {
        closeSync(fd)
      }
    }
  }

  /** The first record at or after `from` whose processing time is at or after `micros`
   *  (records are in time order), or undefined. */
  firstAt(micros: number, from: number): number | undefined {
    const segs = this.#segments
    for (let i = 0; i < segs.length; i++) {
      if (i + 1 < segs.length && segs[i + 1]!.first <= from) continue
      const { seqs, nows } = this.#indexOf(segs[i]!)
      for (let r = 0; r < seqs.length; r++) if (seqs[r]! >= from && nows[r]! >= micros) return seqs[r]
    }
    return undefined
  }

  close(): void {
    for (const fd of this.#retired.splice(0)) closeSync(fd)
    if (this.#fd !== undefined) closeSync(this.#fd)
    this.#fd = undefined
  }
}
