// A PostgreSQL 15 of the test's own (Debian's postgresql-15): initdb in a temporary directory,
// postgres on a free loopback port, stopped (and its directory removed) by `stop()`. As root
// (CI), it runs as the `postgres` user: initdb and postgres refuse to run as root.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

const BIN = '/usr/lib/postgresql/15/bin'

export interface TestPostgres {
  readonly port: number
  client(): Promise<pg.Client>
  stop(): Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

export function postgresAvailable(): boolean {
  return existsSync(join(BIN, 'initdb')) && existsSync(join(BIN, 'postgres'))
}

export async function startPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'rivulet-pg-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  // as root, the processes run as the postgres user (spawn's uid and gid, so signals reach
  // postgres itself)
  const user = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {}
  execFileSync(join(BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C'], { stdio: 'ignore', ...user })
  const port = await freePort()
  const proc: ChildProcess = spawn(join(BIN, 'postgres'), ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off'], { stdio: 'ignore', ...user })
  // ready when it accepts a connection
  const deadline = Date.now() + 30_000
  for (;;) {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' })
    try {
      await c.connect()
      await c.end()
      break
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return {
    port,
    async client() {
      const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' })
      await c.connect()
      return c
    },
    async stop() {
      const done = new Promise<void>((r) => proc.once('exit', () => r()))
      proc.kill('SIGINT')
      await done
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
