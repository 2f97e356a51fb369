// What a client can do before it has authenticated: send a small startup packet and small
// password messages, nothing more (a larger message or a pile of them ends the connection at
// once, without buffering it); connect only while the server has room (--max-connections,
// 53300); guess passwords only at a throttled pace. And the server's own password never
// appears on its command line. Throughout, an authenticated client keeps getting answers.

import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'

const PASSWORD = 'correct horse'
let engine: Engine
let server: RunningServer
let witness: pg.Client

beforeAll(async () => {
  engine = Engine.open()
  server = await startServer({ engine, port: 0, password: PASSWORD, maxConnections: 6, authFailureDelayMs: 100 })
  witness = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'witness', password: PASSWORD })
  await witness.connect()
  await witness.query('SELECT 1') // the parser's first use builds it
})

afterAll(async () => {
  await witness.end()
  await server.close()
  engine.close()
})

/** The witness still answers, within 500 ms. */
async function witnessAnswers(): Promise<void> {
  const t = Date.now()
  const r = await witness.query('SELECT 41 + 1 AS n')
  expect(r.rows).toEqual([{ n: 42 }])
  expect(Date.now() - t).toBeLessThan(500)
}

function i32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

function startupPacket(user: string): Buffer {
  const body = Buffer.concat([i32(196608), Buffer.from(`user\0${user}\0database\0db\0\0`)])
  return Buffer.concat([i32(body.length + 4), body])
}

/** Sends `bytes` on a fresh connection; resolves with what the server sent until it closed
 *  the connection, and how long that took. */
function exchange(bytes: readonly Buffer[], timeoutMs = 5000): Promise<{ received: Buffer; ms: number; closed: boolean }> {
  return new Promise((resolve) => {
    const start = Date.now()
    const chunks: Buffer[] = []
    const s: Socket = connect(server.port, '127.0.0.1', () => {
      for (const b of bytes) s.write(b)
    })
    const done = (closed: boolean): void => {
      clearTimeout(timer)
      s.destroy()
      resolve({ received: Buffer.concat(chunks), ms: Date.now() - start, closed })
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    s.on('data', (d: Buffer) => chunks.push(d))
    s.on('close', () => done(true))
    s.on('error', () => undefined)
  })
}

/** The SQLSTATE of the first ErrorResponse in `b`. */
function errorCode(b: Buffer): string | undefined {
  for (let i = 0; i + 5 <= b.length; ) {
    const type = String.fromCharCode(b[i]!)
    const len = b.readInt32BE(i + 1)
    if (type === 'E') {
      const fields = b.subarray(i + 5, i + 1 + len).toString('utf8').split('\0')
      return fields.find((f) => f.startsWith('C'))?.slice(1)
    }
    i += 1 + len
  }
  return undefined
}

async function login(password: string, user = 'guesser'): Promise<string | undefined> {
  const c = new pg.Client({ host: '127.0.0.1', port: server.port, user, password, connectionTimeoutMillis: 10_000 })
  c.on('error', () => undefined)
  try {
    await c.connect()
    await c.end()
    return undefined
  } catch (e) {
    return (e as { code?: string }).code ?? String(e)
  }
}

describe('before authentication', () => {
  it('refuses a startup packet above 10 000 bytes at once', async () => {
    const r = await exchange([i32(20_000), i32(196608)])
    expect(r.closed).toBe(true)
    expect(errorCode(r.received)).toBe('08P01')
    expect(r.ms).toBeLessThan(1000)
    await witnessAnswers()
  })

  it('refuses a password message announced as 64 MiB from its header, without waiting for it', async () => {
    const header = Buffer.concat([Buffer.from('p'), i32(64 * 1024 * 1024)])
    const r = await exchange([startupPacket('big'), header])
    expect(r.closed).toBe(true)
    expect(errorCode(r.received.subarray(r.received.indexOf('E'.charCodeAt(0))))).toBe('08P01')
    expect(r.ms).toBeLessThan(1000)
    await witnessAnswers()
  })

  it('refuses a pile of small messages sent before authentication', async () => {
    const small = Buffer.concat([Buffer.from('p'), i32(8), Buffer.from('abc\0')])
    const r = await exchange([startupPacket('pile'), ...Array.from({ length: 50 }, () => small)])
    expect(r.closed).toBe(true)
    await witnessAnswers()
  })

  it('refuses connections past --max-connections with 53300, and takes them again when one leaves', async () => {
    const held: pg.Client[] = []
    try {
      // the witness is one; five more fill the server
      for (let i = 0; i < 5; i++) {
        const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: `u${i}`, password: PASSWORD })
        await c.connect()
        held.push(c)
      }
      const extra = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'extra', password: PASSWORD })
      extra.on('error', () => undefined)
      const err = await extra.connect().then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      )
      expect(err?.code).toBe('53300')
      expect(err?.message).toBe('sorry, too many clients already')
      await witnessAnswers()
      await held.pop()!.end()
      await new Promise((r) => setTimeout(r, 50))
      expect(await login(PASSWORD, 'again')).toBeUndefined()
    } finally {
      for (const c of held) await c.end()
    }
  })

  it('spaces password guesses from one address: each failure doubles the wait, parallel guesses queue', async () => {
    const t0 = Date.now()
    for (let i = 0; i < 4; i++) expect(await login('wrong')).toBe('28P01')
    // waits of 0, 100, 200 and 400 ms before the four checks
    expect(Date.now() - t0).toBeGreaterThanOrEqual(650)
    const t1 = Date.now()
    const parallel = await Promise.all(Array.from({ length: 3 }, () => login('wrong')))
    expect(parallel).toEqual(['28P01', '28P01', '28P01'])
    // the three checks do not run together: 800 + 1600 + 3200 ms at least between them (capped)
    expect(Date.now() - t1).toBeGreaterThanOrEqual(2400)
    await witnessAnswers()
    // the right password still gets in (after its turn) and clears the record
    expect(await login(PASSWORD)).toBeUndefined()
    const t2 = Date.now()
    expect(await login(PASSWORD)).toBeUndefined()
    expect(Date.now() - t2).toBeLessThan(500)
  }, 30_000)
})

describe('rivulet serve and its password', () => {
  const cli = fileURLToPath(new URL('../../dist/src/cli/cli.js', import.meta.url))
  const run = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string }> =>
    new Promise((resolve) =>
      execFile(process.execPath, [cli, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env }, timeout: 10_000 }, (err, _out, stderr) => resolve({ code: err ? Number((err as { code?: number }).code) : 0, stderr })),
    )

  it('refuses --password on the command line, saying where the password goes instead', async () => {
    const r = await run(['--password', 'visible-in-ps'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--password is not accepted: a password on the command line is visible .*--password-file.*RIVULET_PASSWORD/)
  })

  for (const how of ['file', 'env'] as const) {
    it(`takes the password from ${how === 'file' ? '--password-file' : 'RIVULET_PASSWORD'}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rivulet-pw-'))
      const file = join(dir, 'pw')
      writeFileSync(file, 'from a file\n', { mode: 0o600 })
      const args = how === 'file' ? ['--password-file', file] : []
      const env = how === 'env' ? { RIVULET_PASSWORD: 'from the env' } : {}
      const password = how === 'file' ? 'from a file' : 'from the env'
      const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
      try {
        const port = await new Promise<number>((resolve, reject) => {
          let out = ''
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString()
            const m = /listening on .*:(\d+)/.exec(out)
            if (m) resolve(Number(m[1]))
          })
          child.on('exit', () => reject(new Error('exited')))
        })
        const good = new pg.Client({ host: '127.0.0.1', port, user: 'u', password })
        await good.connect()
        await good.end()
        const bad = new pg.Client({ host: '127.0.0.1', port, user: 'u', password: 'nope' })
        bad.on('error', () => undefined)
        expect(await bad.connect().then(() => 'ok', (e: { code?: string }) => e.code)).toBe('28P01')
      } finally {
        child.kill('SIGTERM')
      }
    })
  }
})
