// TLS with a certificate made here by openssl: psql with sslmode=require and node-postgres
// with `ssl: { rejectUnauthorized }` (trusting the test certificate, and refusing it when it
// is not trusted); a server without TLS answers 'N' and sslmode=require fails. And
// idle_in_transaction_session_timeout closes a session idle inside a block (25P03), which
// rolls the block back and frees the engine for the others.

import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'

const dir = mkdtempSync(join(tmpdir(), 'rivulet-tls-'))
const certFile = join(dir, 'server.crt')
const keyFile = join(dir, 'server.key')
let engine: Engine
let server: RunningServer
let plain: RunningServer
let cert: Buffer

beforeAll(async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' })
  cert = readFileSync(certFile)
  engine = Engine.open()
  server = await startServer({ engine, port: 0, tls: { cert, key: readFileSync(keyFile) } })
  plain = await startServer({ engine, port: 0 })
})

afterAll(async () => {
  await server.close()
  await plain.close()
  engine.close()
})

function psql(port: number, sslmode: string, sql: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('psql', [`host=127.0.0.1 port=${port} user=tls dbname=db sslmode=${sslmode}`, '-X', '-w', '-c', sql], { env: { ...process.env, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr }),
    )
  })
}

describe('TLS', () => {
  it('psql with sslmode=require connects over TLS', async () => {
    const r = await psql(server.port, 'require', '\\conninfo')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/SSL connection \(protocol: TLSv1\.[23]/)
    const q = await psql(server.port, 'require', 'SELECT 40 + 2 AS n')
    expect(q.stdout).toContain('42')
  })

  it('node-postgres with ssl: trusting the test certificate, and refusing it when not trusted', async () => {
    const trusted = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'tls', ssl: { ca: cert, rejectUnauthorized: true, servername: 'localhost' } })
    await trusted.connect()
    expect((await trusted.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    await trusted.end()
    const untrusted = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'tls', ssl: { rejectUnauthorized: true } })
    untrusted.on('error', () => undefined)
    await expect(untrusted.connect()).rejects.toThrow(/self[- ]signed|certificate/)
    const lax = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'tls', ssl: { rejectUnauthorized: false } })
    await lax.connect()
    expect((await lax.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }])
    await lax.end()
  })

  it('a server without TLS answers N: sslmode=require fails, prefer goes on in the clear', async () => {
    const r = await psql(plain.port, 'require', 'SELECT 1')
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/does not support SSL/)
    expect((await psql(plain.port, 'prefer', 'SELECT 1')).code).toBe(0)
  })
})

describe('idle_in_transaction_session_timeout', () => {
  it('closes a session idle in a block with 25P03; its writes roll back and others go on', async () => {
    engine.execute('CREATE TABLE idle_t (x INT)')
    const c = new pg.Client({ host: '127.0.0.1', port: plain.port, user: 'idler' })
    const errors: { code?: string; message?: string }[] = []
    c.on('error', (e: { code?: string; message?: string }) => errors.push(e))
    await c.connect()
    await c.query("SET idle_in_transaction_session_timeout = '200ms'")
    await c.query('BEGIN')
    await c.query('INSERT INTO idle_t VALUES (1)')
    await new Promise((r) => setTimeout(r, 500))
    expect(errors[0]?.code).toBe('25P03')
    expect(errors[0]?.message).toBe('terminating connection due to idle-in-transaction timeout')
    const other = new pg.Client({ host: '127.0.0.1', port: plain.port, user: 'other' })
    await other.connect()
    expect((await other.query('SELECT count(*)::int AS n FROM idle_t')).rows).toEqual([{ n: 0 }])
    await other.query('INSERT INTO idle_t VALUES (2)') // the engine is free
    await other.end()
  })
})
