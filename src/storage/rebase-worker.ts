// The worker thread that rewrites an incremental checkpoint's base off the main thread: it
// reads an owner's base and the deltas after it from DIR/parts, merges them (exactly as
// recovery does, ivm/keyed-state.ts), and writes the merged state as a new base file, fsynced.
// It never touches the engine's heap or its SQLite database: the main thread records the new
// base (DataDirectory.addBase) when the reply comes, so ticks never wait for a rewrite.
// The parts are decoded and the new base encoded by the part codec, as the checkpoint does.

import path from 'node:path'
import { parentPort, workerData, type MessagePort } from 'node:worker_threads'
import { mergeKeyedParts, type KeyedPart } from '../../ivm/keyed-state.js'
import { checksum } from './codec.js'
import { decodeKeyedPart, encodeKeyedPart } from './part-codec.js'
import { readPart, writeDurably, type PartPlace } from './data-dir.js'

/** A rewrite asked of the worker. */
export interface RebaseJob {
  readonly job: number
  readonly partsDir: string
  readonly places: readonly PartPlace[]
  /** The checkpoint whose state the new base is (the last part's). */
  readonly ckpt: number
  readonly file: string
}

export type RebaseReply = { readonly job: number; readonly place: PartPlace } | { readonly job: number; readonly error: string }

function rebase(j: RebaseJob): PartPlace {
  const parts = j.places.map((p) => {
    const body = readPart(j.partsDir, p)
    if (body === null || checksum(p.ckpt, body) !== p.crc >>> 0) throw new Error(`part of checkpoint ${p.ckpt} in ${p.file} is missing or damaged`)
    return decodeKeyedPart(body)
  })
  const { whole, entries } = mergeKeyedParts(parts)
  const base: KeyedPart = { whole, keys: entries.keys, values: entries.values, moved: null }
  const body = encodeKeyedPart(base)
  writeDurably(path.join(j.partsDir, j.file), [body])
  return { ckpt: j.ckpt, file: j.file, offset: 0, length: body.length, crc: checksum(j.ckpt, body) }
}

// replies go on the port the main thread polls (rebaser.ts)
const replies = (workerData as { replies: MessagePort } | null)?.replies

parentPort?.on('message', (j: RebaseJob) => {
  let reply: RebaseReply
  try {
    reply = { job: j.job, place: rebase(j) }
  } catch (e) {
    reply = { job: j.job, error: e instanceof Error ? e.message : String(e) }
  }
  replies!.postMessage(reply)
})
