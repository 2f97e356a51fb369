// A temporary file for rows the engine keeps out of its heap: an in-memory engine's stream
// history past its newest rows (with a data directory those rows are read back from the log
// instead). Opened at first use in the OS's temporary directory and unlinked at once, so the
// file has no name: nothing is left behind when the process ends, even by kill -9, and its
// space is freed when the engine closes it (or, for an engine never closed, when the engine is
// garbage-collected).
//
// A chunk is written once, as one serialized batch of columns (row-batch.ts), and read back whole; the file
// only grows while the engine lives (retention drops chunks from the engine's index, not from
// the file: the space is the price of not rewriting it).

import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { RivuletError, SqlState } from '../../grammar/index.js'
import { decodeBody, encodeBody } from './codec.js'
import { decodeBatch, encodeBatch, type RowBatch } from './row-batch.js'

type Row = readonly unknown[]

/** Where a chunk is in the file. */
export interface SpilledChunk {
  readonly offset: number
  readonly bytes: number
}

/** Closes the file of a spill file nobody closed once it is garbage. */
const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd)
  } catch {
    // already closed
  }
})

export class SpillFile {
  #fd: number | undefined
  #end = 0

  /** Bytes written so far. */
  get bytes(): number {
    return this.#end
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd
    const dir = mkdtempSync(path.join(tmpdir(), 'rivulet-'))
    const file = path.join(dir, 'history')
    const fd = openSync(file, 'w+', 0o600)
    unlinkSync(file)
    rmdirSync(dir)
    unclosed.register(this, fd, this)
    return (this.#fd = fd)
  }

  /** Appends rows and their weights as one chunk. */
  write(rows: readonly Row[], weights: readonly number[]): SpilledChunk {
    // a stream's rows nearly always have weight 1: then only their count is kept
    let ones = true
    for (let i = 0; i < weights.length && ones; i++) ones = weights[i] === 1
    const body = encodeBody({ batch: encodeBatch(rows), weights: ones ? null : weights })
    const fd = this.#open()
    let done = 0
    while (done < body.length) done += writeSync(fd, body, done, body.length - done, this.#end + done)
    const chunk = { offset: this.#end, bytes: body.length }
    this.#end += body.length
    return chunk
  }

  read(chunk: SpilledChunk): { rows: Row[]; weights: number[] } {
    if (this.#fd === undefined) throw new RivuletError(SqlState.internalError, 'a spilled chunk is read from a spill file that was never written')
    const buf = Buffer.allocUnsafe(chunk.bytes)
    let done = 0
    while (done < chunk.bytes) {
      const n = readSync(this.#fd, buf, done, chunk.bytes - done, chunk.offset + done)
      if (n === 0) throw new RivuletError(SqlState.ioError, 'the spill file of stream history ended early')
      done += n
    }
    const body = decodeBody<{ batch: RowBatch; weights: number[] | null }>(buf)
    return { rows: decodeBatch(body.batch), weights: body.weights ?? new Array<number>(body.batch.n).fill(1) }
  }

  close(): void {
    if (this.#fd === undefined) return
    unclosed.unregister(this)
    closeSync(this.#fd)
    this.#fd = undefined
    this.#end = 0
  }
}
