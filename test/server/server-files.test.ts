// Without --allow-server-files no client can make the server read its files, however a file
// COPY is wrapped: comments ended by \r or \n, nested block comments, quotes, E-strings,
// dollar quotes, identifiers with `;` in them, several statements in one query string, the
// extended protocol, psql -c and -f. Each variant is refused with 42501 and nothing is
// loaded; the decision is the engine parser's (the engine itself refuses the file COPY), so
// no second reading of the text can disagree with the one that runs it.

import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'

let engine: Engine
let server: RunningServer
let allowed: RunningServer
let client: pg.Client
const dir = mkdtempSync(join(tmpdir(), 'rivulet-files-'))
const secret = join(dir, 'secret.txt')
writeFileSync(secret, 'top secret line\nanother\n')

beforeAll(async () => {
  engine = Engine.open()
  engine.execute('CREATE TABLE p (line TEXT)')
  server = await startServer({ engine, port: 0 })
  allowed = await startServer({ engine, port: 0, allowServerFiles: true })
  client = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'mallory', database: 'db' })
  await client.connect()
})

afterAll(async () => {
  await client.end()
  await server.close()
  await allowed.close()
  engine.close()
})

const f = `'${secret}'`

/** Ways of hiding `COPY p FROM 'file'` in a query string. */
const SMUGGLED: readonly string[] = [
  `COPY p FROM ${f}`,
  `copy p from ${f} with (format csv)`,
  `COPY p FROM ${f} CSV HEADER`,
  `COPY p (line) FROM E'${secret}'`,
  `SELECT 1 --\r; COPY p FROM ${f}`,
  `SELECT 1 --\n; COPY p FROM ${f}`,
  `SELECT 1 -- comment ends at CR\r;COPY p FROM ${f} -- and this one at LF\n`,
  `/* comment */ COPY p FROM ${f}`,
  `/* outer /* nested */ still a comment */ COPY p FROM ${f}`,
  `SELECT 'it''s'; COPY p FROM ${f}`,
  `SELECT E'\\''; COPY p FROM ${f}`,
  `SELECT E'\\\\'; COPY p FROM ${f}`,
  `SELECT $$;$$; COPY p FROM ${f}`,
  `SELECT $tag$ $$ ; $tag$; COPY p FROM ${f}`,
  `SELECT 1 AS "a;b"; COPY p FROM ${f}`,
  `SELECT 1; COPY p FROM ${f}; SELECT 2`,
  `SELECT 1;;; COPY\tp\nFROM\r${f}`,
  `BEGIN; COPY p FROM ${f}; COMMIT`,
  `EXPLAIN SELECT 1; COPY p FROM ${f}`,
]

async function sqlstateOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run()
    return undefined
  } catch (e) {
    return (e as { code?: string }).code
  }
}

function loaded(): number {
  return engine.query('SELECT count(*) FROM p').rows[0]![0] as number
}

function psql(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('psql', ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'mallory', '-d', 'db', '-X', '-w', '-v', 'ON_ERROR_STOP=1', ...args], { env: { ...process.env, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stderr })
    })
  })
}

describe('a file COPY without --allow-server-files', () => {
  it.each(SMUGGLED.map((s) => [JSON.stringify(s), s]))('simple protocol: %s is refused with 42501', async (_label, sql) => {
    expect(await sqlstateOf(() => client.query(sql))).toBe('42501')
    await client.query('ROLLBACK') // leaves a block the variant may have opened
    expect(loaded()).toBe(0)
  })

  it('extended protocol (Parse/Bind/Execute, named and unnamed) is refused with 42501', async () => {
    expect(await sqlstateOf(() => client.query({ text: `COPY p FROM ${f}`, values: [] }))).toBe('42501')
    expect(await sqlstateOf(() => client.query({ name: 'smuggle', text: `/* x */ COPY p FROM ${f}` }))).toBe('42501')
    expect(await sqlstateOf(() => client.query({ text: `COPY p FROM ${f} -- $1`, values: ['x'] }))).not.toBeUndefined()
    expect(loaded()).toBe(0)
  })

  it('a parameter cannot become a file name: the value is bound as a literal, never as text', async () => {
    // a parameter is not accepted as COPY's file name at all (a syntax error), whatever its value
    expect(await sqlstateOf(() => client.query({ text: 'COPY p FROM $1', values: [secret] }))).toBe('42601')
    // a value that looks like SQL stays a value
    const r = await client.query({ text: 'SELECT $1::text AS v', values: [`x'; COPY p FROM ${f}; --`] })
    expect(r.rows).toEqual([{ v: `x'; COPY p FROM ${f}; --` }])
    expect(loaded()).toBe(0)
  })

  it('psql -c and -f are refused with 42501', async () => {
    const c = await psql(['-c', `SELECT 1 --\r; COPY p FROM ${f}`])
    expect(c.code).not.toBe(0)
    expect(c.stderr).toMatch(/permission denied to COPY from a file/)
    const script = join(dir, 'smuggle.sql')
    writeFileSync(script, `SELECT 1; /* ; */ COPY p FROM ${f};\n`)
    const s = await psql(['-f', script])
    expect(s.stderr).toMatch(/permission denied to COPY from a file/)
    expect(loaded()).toBe(0)
  })

  it('the same COPY loads the file on a server started with allowServerFiles', async () => {
    const c = new pg.Client({ host: '127.0.0.1', port: allowed.port, user: 'admin', database: 'db' })
    await c.connect()
    try {
      await c.query(`SELECT 1 --\r; COPY p FROM ${f}`)
      expect(loaded()).toBe(2)
      await c.query('DELETE FROM p')
    } finally {
      await c.end()
    }
  })
})
