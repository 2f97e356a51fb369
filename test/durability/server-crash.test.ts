// `rivulet serve --data DIR` killed with SIGKILL while concurrent clients write (auto-committed
// INSERTs and BEGIN … COMMIT blocks, acknowledged through group commit): after each restart
// every write a client was told had committed is there, and nothing else is but, per client,
// the one write in flight when the server died.
//   RIVULET_SERVER_KILLS=n (default 3)
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { describe, expect, it } from 'vitest'

const cli = fileURLToPath(new URL('../../dist/src/cli/cli.js', import.meta.url))
const KILLS = Number(process.env.RIVULET_SERVER_KILLS ?? 3)
const CLIENTS = 6

/** A server on the directory: its process, its port, and its exit (awaited after the kill). */
function start(dir: string): Promise<{ child: ChildProcess; port: number; exited: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    const exited = new Promise<void>((r) => child.once('exit', () => r()))
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out)
      if (m) resolve({ child, port: Number(m[1]), exited })
    })
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${out}`)))
  })
}

describe('rivulet serve --data under SIGKILL', () => {
  it(`loses no acknowledged write of concurrent sessions (${KILLS} kills)`, { timeout: 60_000 + KILLS * 15_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rivulet-serve-crash-'))
    // per client: the writes acknowledged, and the one in flight (if any) when the server died
    const acknowledged = Array.from({ length: CLIENTS }, () => new Set<number>())
    const inFlight = Array.from({ length: CLIENTS }, () => new Set<number>())
    let next = 0
    try {
      for (let life = 0; life <= KILLS; life++) {
        const server = await start(dir)
        const setup = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'u' })
        await setup.connect()
        await setup.query('CREATE TABLE IF NOT EXISTS w (client INT, n INT, PRIMARY KEY (client, n))')
        // what survived: every acknowledged write, and of the rest only writes in flight
        const rows = (await setup.query('SELECT client, n FROM w')).rows as { client: number; n: number }[]
        await setup.end()
        const present = Array.from({ length: CLIENTS }, () => new Set<number>())
        for (const r of rows) present[r.client]!.add(r.n)
        for (let c = 0; c < CLIENTS; c++) {
          for (const n of acknowledged[c]!) expect(present[c]!.has(n), `life ${life}: client ${c} write ${n} was acknowledged`).toBe(true)
          for (const n of present[c]!) expect(acknowledged[c]!.has(n) || inFlight[c]!.has(n), `life ${life}: client ${c} write ${n} was never sent`).toBe(true)
          // a write that was in flight and survived counts as done from now on
          for (const n of present[c]!) acknowledged[c]!.add(n)
          inFlight[c]!.clear()
        }
        if (life === KILLS) {
          server.child.kill('SIGKILL')
          await server.exited
          break
        }
        let stopped = false
        const writers = Array.from({ length: CLIENTS }, async (_, c) => {
          const client = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'u' })
          client.on('error', () => undefined)
          try {
            await client.connect()
            while (!stopped) {
              const n = next++
              inFlight[c]!.add(n)
              await client.query(n % 3 === 0 ? `BEGIN; INSERT INTO w VALUES (${c}, ${n}); COMMIT` : `INSERT INTO w VALUES (${c}, ${n})`)
              inFlight[c]!.delete(n)
              acknowledged[c]!.add(n)
            }
          } catch {
            // the server died under it
          }
        })
        await new Promise((r) => setTimeout(r, 300 + Math.random() * 700))
        server.child.kill('SIGKILL')
        stopped = true
        await Promise.all(writers)
        await server.exited
      }
      const total = acknowledged.reduce((n, s) => n + s.size, 0)
      console.log(`serve --data under SIGKILL: ${KILLS} kills, ${total} writes of ${CLIENTS} concurrent sessions, none lost`)
      expect(total).toBeGreaterThan(KILLS * CLIENTS)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
