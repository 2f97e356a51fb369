// A checkpoint in flight (checkpoints.ts): fixed at a point between two ticks — the log
// position it covers, the relations' offsets, the state saved whole, a snapshot of each keyed
// owner (copy on write: ivm/keyed-state.ts) — and written a slice at a time between the ticks
// that follow. Each owner's part goes to the checkpoint's file in chunks (part-codec.ts), the
// parts one after another; a slice sizes its chunks to the time left in it, by the time a key
// of that owner took in the chunks before, and has the file synced off the main thread every few
// megabytes, so that committing has little left to sync.
//
// State it keeps: its point, its body, each owner's snapshot and the bytes its part took, where
// the writing stands, and the time spent on it.

import type * as ivm from '../../ivm/index.js'
import type { DataDirectory, PartsWriter } from '../storage/data-dir.js'
import { CHUNKED, framedChunk } from '../storage/part-codec.js'

/** A slice's first chunk of an owner, before it knows the time a key takes. */
const FIRST_CHUNK_KEYS = 32
/** Bytes of parts written since the last sync began past which a slice begins one (off the
 *  main thread). */
const SYNC_BYTES = 4 << 20

/** A keyed owner's part in a checkpoint in flight. */
export interface OwnerPart {
  readonly owner: string
  readonly target: object
  /** The checkpoint whose base it extends; null: it is a base. */
  readonly base: number | null
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
  /** Each owner's part's bytes, once written (its start while being written). */
  readonly sizes = new Map<string, number>()
  /** The owner being written, whether its part has begun, and the milliseconds a key of it
   *  took so far (0: not known yet). */
  #next = 0
  #begun = false
  #msPerKey = 0

  constructor(
    readonly dir: DataDirectory,
    readonly writer: PartsWriter,
    readonly point: CheckpointPoint,
    readonly body: Buffer,
    readonly owners: readonly OwnerPart[],
    /** Milliseconds spent on it so far (fixing it, its slices). */
    public workMs: number,
  ) {}

  /** Writes chunks for up to `ms` milliseconds (at least one chunk; `chunkKeys` keys at most
   *  each); returns whether every part is written. Throws when a write fails. */
  write(ms: number, chunkKeys: number): boolean {
    const started = performance.now()
    const deadline = started + ms
    try {
      while (this.#next < this.owners.length) {
        const o = this.owners[this.#next]!
        const t = performance.now()
        const keys = ms === Infinity ? chunkKeys : Math.min(chunkKeys, this.#msPerKey === 0 ? FIRST_CHUNK_KEYS : Math.max(16, Math.floor((deadline - t) / this.#msPerKey)))
        const chunk = o.snap.next(keys)
        if (chunk === null && this.#begun) {
          this.writer.end()
          this.sizes.set(o.owner, this.writer.bytes - (this.sizes.get(o.owner) ?? 0))
          this.#next++
          this.#begun = false
          this.#msPerKey = 0
          continue
        }
        const first = !this.#begun
        if (first) {
          this.writer.begin(o.owner, o.base)
          this.sizes.set(o.owner, this.writer.bytes)
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
    return this.#next >= this.owners.length
  }

  /** The owners are released (their snapshots stop copying). */
  closeSnapshots(): void {
    for (const o of this.owners) o.snap.close()
  }

  /** Given up: the owners released, its file deleted. */
  abort(): void {
    this.closeSnapshots()
    this.dir.abortCheckpoint(this.writer)
  }
}
