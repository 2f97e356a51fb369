// The listening socket lives on a worker thread, so that a CancelRequest is seen while the
// engine keeps the main thread busy with a long statement (the engine is synchronous: while
// it runs, the main thread reads no socket). The worker accepts every client connection and
// looks at its first packet:
// - a CancelRequest (16 bytes: length, 80877102, pid, key) is written into a ring in shared
//   memory, which the running statement polls at its batch boundaries (see drain()), and
//   posted to the main thread for statements that wait (for a lock, for a FETCH);
// - anything else is relayed, byte for byte and with back-pressure both ways, to the main
//   thread's server on a Unix socket in a private directory, after one line naming the
//   client's address (for the password throttle).
// The worker holds nothing but sockets; it knows nothing of the protocol beyond that packet.

import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'

const RING = 64

/** The worker's code (plain JS: it runs from a string, with node's modules only). */
const WORKER = String.raw`
const { parentPort, workerData } = require('node:worker_threads')
const net = require('node:net')
const { host, port, path, shared } = workerData
const ring = new Int32Array(shared)
const RING = ${RING}
const server = net.createServer((client) => {
  client.on('error', () => client.destroy())
  let head = Buffer.alloc(0)
  const first = (chunk) => {
    head = Buffer.concat([head, chunk])
    // a packet of another length is no CancelRequest: relay it as soon as that is known
    if (head.length < 4 || (head.length < 8 && head.readInt32BE(0) === 16)) return
    client.off('data', first)
    client.pause()
    if (head.length >= 8 && head.readInt32BE(0) === 16 && head.readInt32BE(4) === 80877102) {
      const finish = () => {
        if (head.length < 16) return
        const pid = head.readInt32BE(8)
        const key = head.readInt32BE(12)
        const seq = Atomics.load(ring, 0)
        const slot = 1 + (seq % RING) * 2
        Atomics.store(ring, slot, pid)
        Atomics.store(ring, slot + 1, key)
        Atomics.store(ring, 0, seq + 1)
        parentPort.postMessage({ cancel: true })
        client.destroy()
      }
      if (head.length >= 16) return finish()
      client.on('data', (c) => { head = Buffer.concat([head, c]); finish() })
      client.resume()
      return
    }
    const inner = net.connect(path, () => {
      inner.write((client.remoteAddress || '') + '\n')
      inner.write(head)
      client.pipe(inner)
      inner.pipe(client)
      client.resume()
    })
    // the server's last words (a FATAL message) must reach the client before it is closed
    const finish = () => {
      client.end()
      setTimeout(() => client.destroy(), 5000).unref()
    }
    inner.on('error', finish)
    inner.on('close', finish)
    client.on('close', () => inner.destroy())
  }
  client.on('data', first)
})
server.on('error', (e) => parentPort.postMessage({ error: String(e && e.message || e) }))
server.listen(port, host, () => parentPort.postMessage({ listening: server.address().port }))
parentPort.on('message', (m) => { if (m === 'close') server.close(() => process.exit(0)) })
`

export interface Relay {
  readonly port: number
  /** Handles the cancel requests that arrived since the last call (cheap when none did). */
  drain(): void
  close(): Promise<void>
}

/** Starts the worker listening on host:port; `onConnection` gets each relayed client (with
 *  its address), `onCancel` each CancelRequest (pid, key). */
export async function startRelay(host: string, port: number, onConnection: (socket: Socket, address: string) => void, onCancel: (pid: number, key: number) => void): Promise<Relay> {
  const dir = mkdtempSync(join(tmpdir(), 'rivulet-'))
  const path = join(dir, 'server.sock')
  const inner: Server = createServer((socket) => {
    // the first line is the client's address, written by the worker
    let head = ''
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('latin1')
      const nl = text.indexOf('\n')
      if (nl < 0) {
        head += text
        if (head.length > 100) socket.destroy()
        return
      }
      socket.off('data', onData)
      const rest = chunk.subarray(nl + 1)
      socket.pause()
      if (rest.length > 0) socket.unshift(rest)
      onConnection(socket, head + text.slice(0, nl))
      socket.resume()
    }
    socket.on('data', onData)
    socket.on('error', () => socket.destroy())
  })
  inner.on('error', () => undefined)
  await new Promise<void>((resolve, reject) => {
    inner.once('error', reject)
    inner.listen(path, () => resolve())
  })
  const shared = new SharedArrayBuffer(4 * (1 + 2 * RING))
  const ring = new Int32Array(shared)
  let read = 0
  const drain = (): void => {
    const seq = Atomics.load(ring, 0)
    if (seq === read) return
    if (seq - read > RING) read = seq - RING // the oldest were overwritten
    for (; read < seq; read++) {
      const slot = 1 + (read % RING) * 2
      onCancel(Atomics.load(ring, slot), Atomics.load(ring, slot + 1))
    }
  }
  const worker = new Worker(WORKER, { eval: true, workerData: { host, port, path, shared } })
  worker.unref()
  const listening = await new Promise<number>((resolve, reject) => {
    worker.on('message', (m: { listening?: number; error?: string; cancel?: boolean }) => {
      if (m.listening !== undefined) resolve(m.listening)
      else if (m.error !== undefined) reject(new Error(m.error))
      else if (m.cancel) drain()
    })
    worker.once('error', reject)
  }).catch(async (e: unknown) => {
    await worker.terminate()
    inner.close()
    rmSync(dir, { recursive: true, force: true })
    throw e
  })
  return {
    port: listening,
    drain,
    async close() {
      worker.postMessage('close')
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => void worker.terminate().then(() => resolve()), 1000)
        worker.once('exit', () => {
          clearTimeout(t)
          resolve()
        })
      })
      await new Promise<void>((resolve) => inner.close(() => resolve()))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
