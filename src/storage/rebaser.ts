// The main thread's side of base rewrites (rebase-worker.ts): one worker thread per data
// directory, started at the first rewrite, unref'd (it never keeps a process alive), ended
// when the directory closes. A rewrite in flight pins the files it reads, so a checkpoint
// dropping their parts meanwhile deletes them only once it is done. Replies come on a port of
// their own, so a program that runs ticks back to back without yielding to the event loop
// still gets them: the checkpoints poll it (poll) between ticks.

import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import type { DataDirectory, PartPlace } from './data-dir.js'
import type { RebaseJob, RebaseReply } from './rebase-worker.js'

export class Rebaser {
  readonly #dir: DataDirectory
  #worker: Worker | undefined
  #replies: MessagePort | undefined
  #nextJob = 1
  readonly #pending = new Map<number, { places: readonly PartPlace[]; done: (place: PartPlace | Error) => void }>()
  #idle: (() => void)[] = []

  constructor(dir: DataDirectory) {
    this.#dir = dir
  }

  /** Merges the parts (a base and the deltas after it) into a new base of checkpoint `ckpt`;
   *  `done` gets where it is, or the error (nothing is recorded either way). */
  rebase(places: readonly PartPlace[], ckpt: number, tag: string, done: (place: PartPlace | Error) => void): void {
    const job = this.#nextJob++
    this.#dir.pin(places)
    this.#pending.set(job, { places, done })
    const message: RebaseJob = { job, partsDir: this.#dir.partsDir, places, ckpt, file: `r${ckpt}-${tag}.bin` }
    this.#start().postMessage(message)
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker
    // built, the worker is beside this file; run from the TypeScript sources (the tests), the
    // build's copy serves (`npm test` builds first)
    const here = import.meta.url
    const { port1, port2 } = new MessageChannel()
    const w = new Worker(here.endsWith('.ts') ? new URL('../../dist/src/storage/rebase-worker.js', here) : new URL('./rebase-worker.js', here), {
      workerData: { replies: port2 },
      transferList: [port2],
    })
    w.unref()
    port1.on('message', (r: RebaseReply) => this.#reply(r))
    port1.unref()
    this.#replies = port1
    w.on('error', (e) => {
      // the worker died: every rewrite in flight failed (the deltas are still there)
      this.#worker = undefined
      this.#replies?.close()
      this.#replies = undefined
      for (const [job, p] of this.#pending) {
        this.#pending.delete(job)
        this.#dir.unpin(p.places)
        p.done(e instanceof Error ? e : new Error(String(e)))
      }
      for (const f of this.#idle.splice(0)) f()
    })
    this.#worker = w
    return w
  }

  #reply(r: RebaseReply): void {
    const p = this.#pending.get(r.job)
    if (p === undefined) return
    this.#pending.delete(r.job)
    this.#dir.unpin(p.places)
    p.done('error' in r ? new Error(r.error) : r.place)
    if (this.#pending.size === 0) for (const f of this.#idle.splice(0)) f()
  }

  /** Hands over the rewrites done since (their `done` runs now, not at the next turn of the
   *  event loop). */
  poll(): void {
    const port = this.#replies
    if (port === undefined || this.#pending.size === 0) return
    for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) this.#reply(m.message as RebaseReply)
  }

  /** Resolves once no rewrite is in flight (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  close(): void {
    void this.#worker?.terminate()
    this.#worker = undefined
    this.#replies?.close()
    this.#replies = undefined
    this.#pending.clear()
    for (const f of this.#idle.splice(0)) f()
  }
}
