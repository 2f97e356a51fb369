// A checkpoint in flight (checkpoints.ts), written a slice at a time between ticks, in up to two
// phases:
// - before its point, the bases it writes read while ticks go on (fuzzy: ivm/keyed-state.ts,
//   fuzzyKeyedBase), each owner's entries as the slice finds them — no copy on write, and no
//   list of a big owner's keys at the point;
// - at its point, fixed between two ticks: the log position it covers, the relations' offsets,
//   the state saved whole, and a snapshot of each keyed owner (copy on write) — for an owner
//   whose fuzzy base was written, the delta since that base began, which makes it exact; then
//   those snapshots, written the same way.
// Each owner's part goes to the checkpoint's file in chunks (part-codec.ts), the parts one after
// another; a slice sizes its chunks to the time left in it, by the time a key of that owner took
// in the chunks before, and syncs the file every few megabytes, so that committing has little
// left to sync.
//
// State it keeps: its point once fixed, its body, the parts to write (the fuzzy bases', then
// the snapshots'), the bytes each took, where the writing stands, and the time spent on it.

import type * as ivm from '../../ivm/index.js'
import type { DataDirectory, PartsWriter } from '../storage/data-dir.js'
import { CHUNKED, framedChunk } from '../storage/part-codec.js'
import type { DerivedSides } from './derived-state.js'

/** A slice's first chunk of an owner, before it knows the time a key takes. */
const FIRST_CHUNK_KEYS = 32
/** Bytes of parts written since the last sync past which a slice syncs them. */
const SYNC_BYTES = 4 << 20

/** A keyed owner's part in a checkpoint in flight. */
export interface OwnerPart {
  readonly owner: string
  readonly target: object
  /** The checkpoint whose base it extends; null: it is a base. */
  readonly base: number | null
  /** A base read before the point (its delta at the point makes it exact). */
  readonly fuzzy: boolean
  readonly snap: ivm.KeyedSnapshot
}

/** Where a checkpoint was fixed. */
export interface CheckpointPoint {
  readonly tick: number
  /** The last log record it covers. */
  readonly seq: number
  /** Each relation's offset (JSON). */
  readonly offsets: string
  /** The oldest log record it needs. */
  readonly keepFrom: number
  /** When: the wall clock (ISO) and the engine's processing time (µs). */
  readonly takenAt: string
  readonly now: number
}

export class InFlight {
  /** Each part's bytes, by owner (fuzzy bases apart), once written (its start while being
   *  written). */
  readonly sizes = new Map<string, number>()
  readonly fuzzySizes = new Map<string, number>()
  /** Set when it is fixed: its point, the state saved whole, the snapshots (after the fuzzy
   *  bases in `parts`). */
  point: CheckpointPoint | undefined
  body: Buffer | undefined
  owners: readonly OwnerPart[] = []
  /** The interval-join sides its parts leave out (set when it is fixed). */
  derived: DerivedSides[] = []
  /** The parts to write, in order, the one being written, whether it has begun, and the
   *  milliseconds a key of it took so far (0: not known yet). */
  readonly #parts: OwnerPart[]
  #next = 0
  #begun = false
  #msPerKey = 0

  constructor(
    readonly dir: DataDirectory,
    readonly writer: PartsWriter,
    /** The fuzzy bases, written before the point (none: it is fixed at once). */
    readonly fuzzy: readonly OwnerPart[],
    /** Milliseconds spent on it so far (fixing it, its slices). */
    public workMs: number,
  ) {
    this.#parts = fuzzy.slice()
  }

  /** Fixed at this point: what it saves whole and the keyed owners' snapshots, written next. */
  fix(point: CheckpointPoint, body: Buffer, owners: readonly OwnerPart[]): void {
    this.point = point
    this.body = body
    this.owners = owners
    for (const o of owners) this.#parts.push(o)
  }

  /** Whether every part queued so far is written (before the point: every fuzzy base). */
  get written(): boolean {
    return this.#next >= this.#parts.length
  }

  /** Writes chunks for up to `ms` milliseconds (at least one chunk; `chunkKeys` keys at most
   *  each), until the parts queued so far are written; returns whether they are. Throws when a
   *  write fails. */
  write(ms: number, chunkKeys: number): boolean {
    const started = performance.now()
    const deadline = started + ms
    const parts = this.#parts
    try {
      while (this.#next < parts.length) {
        const o = parts[this.#next]!
        const sizes = o.fuzzy ? this.fuzzySizes : this.sizes
        const t = performance.now()
        const keys = ms === Infinity ? chunkKeys : Math.min(chunkKeys, this.#msPerKey === 0 ? FIRST_CHUNK_KEYS : Math.max(16, Math.floor((deadline - t) / this.#msPerKey)))
        const chunk = o.snap.next(keys)
        if (chunk === null && this.#begun) {
          this.writer.end()
          sizes.set(o.owner, this.writer.bytes - (sizes.get(o.owner) ?? 0))
          this.#next++
          this.#begun = false
          this.#msPerKey = 0
          continue
        }
        const first = !this.#begun
        if (first) {
          this.writer.begin(o.owner, o.base, o.fuzzy)
          sizes.set(o.owner, this.writer.bytes)
          this.writer.append(CHUNKED)
          this.#begun = true
        }
        // (an owner with nothing to write still writes one empty chunk: every checkpoint has a
        // part of every owner; its whole part goes in its first chunk)
        const c = chunk ?? { keys: [], values: [], moved: o.snap.base ? null : [] }
        for (const b of framedChunk({ whole: first ? o.snap.whole : null, keys: c.keys, values: c.values, moved: c.moved })) this.writer.append(b)
        const now = performance.now()
        const perKey = (now - t) / keys
        this.#msPerKey = this.#msPerKey === 0 ? perKey : 0.5 * this.#msPerKey + 0.5 * perKey
        if (now >= deadline) break
      }
      this.writer.syncPast(SYNC_BYTES)
    } finally {
      this.workMs += performance.now() - started
    }
    return this.written
  }

  /** The owners are released (their snapshots stop copying). */
  closeSnapshots(): void {
    for (const o of this.#parts) o.snap.close()
  }

  /** Given up: the owners released, its file deleted. */
  abort(): void {
    this.closeSnapshots()
    this.dir.abortCheckpoint(this.writer)
  }
}
