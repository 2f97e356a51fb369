// COPY with the client's data: psql's \copy FROM (COPY … FROM STDIN, text and CSV, with the
// same reject semantics as a file COPY: bad records in rivulet_rejected and a NOTICE) and
// \copy TO (COPY table / (query) TO STDOUT, text and CSV).

import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'

let engine: Engine
let server: RunningServer
const dir = mkdtempSync(join(tmpdir(), 'rivulet-copy-'))

beforeAll(async () => {
  engine = Engine.open()
  server = await startServer({ engine, port: 0 })
})

afterAll(async () => {
  await server.close()
  engine.close()
})

function psql(...commands: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('psql', ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'copier', '-d', 'db', '-X', '-w', ...commands.flatMap((c) => ['-c', c])], { env: { ...process.env, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr }),
    )
  })
}

describe('COPY with the client', () => {
  it('\\copy FROM loads text and CSV through COPY FROM STDIN; rejected records go to rivulet_rejected with a NOTICE', async () => {
    const tsv = join(dir, 'in.tsv')
    const csv = join(dir, 'in.csv')
    writeFileSync(tsv, '1\tann\n2\t\\N\nx\tbad\n')
    writeFileSync(csv, 'id,name\n3,"c, d"\n4,eve\n')
    const r = await psql('CREATE TABLE p (id INT, name TEXT)', `\\copy p from '${tsv}'`, `\\copy p from '${csv}' with (format csv, header)`)
    expect(r.stdout).toBe('CREATE TABLE\nCOPY 2\nCOPY 2\n')
    expect(r.stderr).toBe('NOTICE:  1 record rejected: see rivulet_rejected\n')
    expect(engine.query('SELECT id, name FROM p ORDER BY id').rows).toEqual([
      [1, 'ann'],
      [2, null],
      [3, 'c, d'],
      [4, 'eve'],
    ])
    expect(engine.query("SELECT source, line, reason FROM rivulet_rejected WHERE relation = 'p'").rows).toEqual([['STDIN', 3, 'column "id": invalid input syntax for type integer: "x"']])
  })

  it('\\copy TO writes a table and a query in text and CSV through COPY … TO STDOUT', async () => {
    const out = join(dir, 'out.csv')
    const txt = join(dir, 'out.txt')
    const r = await psql(`\\copy p to '${out}' with (format csv, header)`, `\\copy (SELECT name FROM p WHERE id < 3 ORDER BY id) to '${txt}'`)
    expect(r.stderr).toBe('')
    expect(readFileSync(out, 'utf8')).toBe('id,name\n1,ann\n2,\n3,"c, d"\n4,eve\n')
    expect(readFileSync(txt, 'utf8')).toBe('ann\n\\N\n')
  })

  it('\\copy into and out of a table of another schema; search_path names public only', async () => {
    const tsv = join(dir, 'schema.tsv')
    const out = join(dir, 'schema-out.txt')
    writeFileSync(tsv, '5\tfive\n')
    const r = await psql('CREATE SCHEMA s', 'CREATE TABLE s.p (id INT, name TEXT)', `\\copy s.p from '${tsv}'`, `\\copy s.p to '${out}'`, 'SET search_path = public', 'SHOW search_path')
    expect(r.stdout).toBe('CREATE SCHEMA\nCREATE TABLE\nCOPY 1\nCOPY 1\nSET\n search_path \n-------------\n public\n(1 row)\n\n')
    expect(readFileSync(out, 'utf8')).toBe('5\tfive\n')
    expect(engine.query('SELECT id, name FROM s.p').rows).toEqual([[5, 'five']])
    const refused = await psql('SET search_path = s, public')
    expect(refused.stderr).toContain('search_path cannot be set to s, public')
  })

  it('a COPY FROM STDIN into a missing table fails before asking for data', async () => {
    const r = await psql(`\\copy nosuch from '${join(dir, 'in.tsv')}'`)
    expect(r.stderr).toContain('relation "nosuch" does not exist')
  })
})
