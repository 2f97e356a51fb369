import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseSlt } from '../../sqllogictest/parse.js'
import { runFile, runRecords, viewableQuery } from '../../sqllogictest/runner.js'
import type { RunMode, RunOptions } from '../../sqllogictest/runner.js'
import { runSltCli } from '../../sqllogictest/cli.js'
import { SqliteEngine } from './sqlite-engine.js'

async function run(text: string, mode: RunMode = 'batch', extra: Partial<RunOptions> = {}, file = 'x.slt') {
  const lines: string[] = []
  const engines: SqliteEngine[] = []
  const counts = await runRecords(file, parseSlt(text, file), {
    mode,
    openEngine: () => {
      const e = new SqliteEngine()
      engines.push(e)
      return e
    },
    report: (l) => lines.push(l),
    engineNames: ['postgresql'],
    ...extra,
  })
  return { counts, lines, log: engines[0]?.log ?? [] }
}

const BASIC = `
statement ok
CREATE TABLE t (a INTEGER, b TEXT)

statement ok
INSERT INTO t VALUES (1, 'x'), (2, 'y'), (10, NULL)

query IT rowsort
SELECT a, b FROM t
----
1 x
10 NULL
2 y

query IT rowsort
SELECT a, b FROM t
----
1
x
2
y
10
NULL

query I valuesort
SELECT a FROM t
----
10
2
1

statement count 1
DELETE FROM t WHERE a = 10

query I
SELECT count(*) FROM t
----
2
`

describe('runner (on a SQLite stand-in engine)', () => {
  it('passes a correct file in every mode', async () => {
    for (const mode of ['batch', 'ivm', 'both'] as const) {
      const { counts, lines } = await run(BASIC, mode)
      expect(lines).toEqual([])
      expect(counts).toEqual({ passed: 7, failed: 0, skipped: 0 })
    }
  })

  it('reports failures with file:line and expected vs actual', async () => {
    const { counts, lines } = await run(`statement ok\nCREATE TABLE t (a INTEGER)\n\nstatement ok\nINSERT INTO t VALUES (1)\n\nquery I\nSELECT a FROM t\n----\n2\n`)
    expect(counts).toEqual({ passed: 2, failed: 1, skipped: 0 })
    expect(lines[0]).toBe('x.slt:7: query result mismatch')
    expect(lines).toContain('    2')
    expect(lines).toContain('    1')
  })

  it('tags which half fails in both mode', async () => {
    const { lines } = await run(`statement ok\nCREATE TABLE t (a INTEGER)\n\nquery I\nSELECT a FROM t\n----\n5\n`, 'both')
    expect(lines[0]).toBe('x.slt:4: query expected 1 rows, got 0 [batch and ivm]')
  })

  it('applies skipif/onlyif (stacked, case-insensitive) and halt', async () => {
    const { counts } = await run(`
skipif PostgreSQL
statement ok
THIS IS NOT SQL

onlyif mysql
statement ok
NOT SQL EITHER

skipif mysql
onlyif postgresql
statement ok
SELECT 1

onlyif sqlite
halt

statement ok
SELECT 2

skipif mysql # comment
halt

statement ok
NOT RUN

query I
NOT RUN EITHER
`)
    expect(counts).toEqual({ passed: 2, failed: 0, skipped: 4 })
  })

  it('matches statement errors by regex, SQLSTATE and exact message', async () => {
    const { counts, lines } = await run(`
statement ok
CREATE TABLE t (k INTEGER PRIMARY KEY)

statement ok
INSERT INTO t VALUES (1)

statement error (23505)
INSERT INTO t VALUES (1)

statement error UNIQUE constraint
INSERT INTO t VALUES (1)

statement error (42P01)
INSERT INTO t VALUES (1)

statement error
SELECT * FROM nope
----
no such table: nope

statement error
SELECT 1

query error no such
SELECT * FROM nope

query I
SELECT count(*) FROM t
----
1
`)
    expect(counts).toEqual({ passed: 7, failed: 2, skipped: 0 })
    expect(lines.filter((l) => l.startsWith('x.slt'))).toEqual([
      'x.slt:14: statement error: expected SQLSTATE 42P01, got UNIQUE constraint failed: t.k (23505)',
      'x.slt:22: statement succeeded, expected an error',
    ])
  })

  it('counts a crash in opening the engine as failures', async () => {
    const lines: string[] = []
    const counts = await runRecords('x.slt', parseSlt('statement ok\nSELECT 1\n\nstatement ok\nSELECT 2\n'), {
      mode: 'batch',
      openEngine: () => {
        throw new Error('boom')
      },
      report: (l) => lines.push(l),
    })
    expect(counts).toEqual({ passed: 0, failed: 2, skipped: 0 })
    expect(lines[0]).toMatch(/runner crashed: Error: boom/)
  })

  it('creates ivm views as soon as their tables exist and drops them after the check', async () => {
    const { counts, lines, log } = await run(
      `
statement ok
CREATE TABLE t (a INTEGER)

statement ok
INSERT INTO t VALUES (1)

statement ok
CREATE TABLE u (b INTEGER)

statement ok
INSERT INTO u VALUES (1), (2)

query II rowsort
SELECT a, b FROM t, u
----
1 1
1 2

statement ok
DROP TABLE u

query I nosort
SELECT a FROM t ORDER BY a
----
1
`,
      'ivm',
    )
    expect(lines).toEqual([])
    expect(counts).toEqual({ passed: 7, failed: 0, skipped: 0 })
    const created = log.filter((s) => s.startsWith('CREATE MATERIALIZED VIEW'))
    // q6 (table t) right after CREATE TABLE t; q4 (tables t and u) right after CREATE TABLE u
    expect(log).toEqual([
      'CREATE TABLE t (a INTEGER)',
      'CREATE MATERIALIZED VIEW __slt_q6 (c1) AS SELECT a FROM t ORDER BY a',
      'INSERT INTO t VALUES (1)',
      'CREATE TABLE u (b INTEGER)',
      'CREATE MATERIALIZED VIEW __slt_q4 (c1, c2) AS SELECT a, b FROM t, u',
      'INSERT INTO u VALUES (1), (2)',
      'DROP MATERIALIZED VIEW __slt_q4',
      // q6 makes way for DROP TABLE and comes back right after it
      'DROP MATERIALIZED VIEW __slt_q6',
      'DROP TABLE u',
      'CREATE MATERIALIZED VIEW __slt_q6 (c1) AS SELECT a FROM t ORDER BY a',
      'DROP MATERIALIZED VIEW __slt_q6',
    ])
    expect(created.length).toBe(3)
  })

  it('checks a nosort hash in ivm mode against the ad hoc result', async () => {
    const text = `statement ok\nCREATE TABLE t (a INTEGER)\n\nstatement ok\nINSERT INTO t VALUES (3), (1), (2)\n\nquery I nosort\nSELECT a FROM t ORDER BY a DESC\n----\n3 values hashing to ${createHash('md5').update('3\n2\n1\n').digest('hex')}\n`
    for (const mode of ['ivm', 'both'] as const) {
      const { counts, lines } = await run(text, mode, {}, 'x.test')
      expect(lines).toEqual([])
      expect(counts).toEqual({ passed: 3, failed: 0, skipped: 0 })
    }
  })

  it('reports delta changes with weights since the last check', async () => {
    const { counts, lines } = await run(`
statement ok
CREATE TABLE t (k INTEGER, v INTEGER)

statement ok
INSERT INTO t VALUES (1, 10)

statement ok
CREATE VIEW s AS SELECT k, SUM(v) AS total FROM t GROUP BY k

statement ok
INSERT INTO t VALUES (1, 5)

query II delta s
----
1 15 1

statement ok
DELETE FROM t WHERE v = 5

statement ok
INSERT INTO t VALUES (2, 7)

query III delta s
----
2 7 1
1 15 -1
1 10 1

query II delta s
----

query II delta nope
----
`)
    expect(lines).toEqual(['x.slt:33: delta: no relation named nope'])
    expect(counts).toEqual({ passed: 9, failed: 1, skipped: 0 })
  })

  it('renders classic files with %.3f and accepts the other float form', async () => {
    const text = `
query R
SELECT 1.0/3
----
0.333

query R
SELECT 2.5
----
2.5
`
    expect((await run(text, 'batch', {}, 'x.test')).counts).toEqual({ passed: 2, failed: 0, skipped: 0 })
    expect((await run(text, 'batch', {}, 'x.slt')).counts).toEqual({ passed: 2, failed: 0, skipped: 0 })
  })

  it('checks labels against earlier results', async () => {
    const { counts } = await run(`
query I rowsort label-1
SELECT 1 UNION SELECT 2
----
1
2

query I rowsort label-1
SELECT 3
----
3
`)
    expect(counts).toEqual({ passed: 1, failed: 1, skipped: 0 })
  })

  it('finds only SELECT-shaped queries viewable', () => {
    expect(viewableQuery('SELECT 1;')).toBe('SELECT 1')
    expect(viewableQuery('  (select 1) union (select 2)')).toBe('(select 1) union (select 2)')
    expect(viewableQuery('WITH x AS (SELECT 1) SELECT * FROM x')).toBeDefined()
    expect(viewableQuery('EXPLAIN SELECT 1')).toBeUndefined()
    expect(viewableQuery('SELECT 1; SELECT 2')).toBeUndefined()
    expect(viewableQuery('SELECT now()')).toBeUndefined()
    expect(viewableQuery("SELECT '--x;' AS a -- trailing\n;")).toBe("SELECT '--x;' AS a -- trailing")
    expect(viewableQuery('/* c */ SELECT 1 ; -- done')).toBe('/* c */ SELECT 1')
    expect(viewableQuery("SELECT 'a'';b'; SELECT 2")).toBeUndefined()
  })
})

describe('runSltCli', () => {
  it('walks folders, prints the summary last and returns the exit code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slt-cli-'))
    writeFileSync(join(dir, 'a.slt'), 'query I\nSELECT 1\n----\n1\n')
    writeFileSync(join(dir, 'b.test'), 'query I\nSELECT 1\n----\n2\n')
    writeFileSync(join(dir, 'c.slt.part'), 'query I\nSELECT 1\n----\n3\n')
    const out: string[] = []
    const code = await runSltCli(['--mode', 'both', dir], { out: (l) => out.push(l), err: (l) => out.push(l), openEngine: () => new SqliteEngine() })
    expect(code).toBe(1)
    expect(out[out.length - 1]).toBe('1 passed, 1 failed, 0 skipped')
    expect(out[0]).toBe(`${join(dir, 'b.test')}:1: query result mismatch [batch and ivm]`)
    const ok: string[] = []
    expect(await runSltCli(['slt', join(dir, 'a.slt')], { out: (l) => ok.push(l), openEngine: () => new SqliteEngine() })).toBe(0)
    expect(ok).toEqual(['1 passed, 0 failed, 0 skipped'])
    expect(await runSltCli(['--mode', 'bogus', dir], { out: () => {}, err: () => {} })).toBe(2)
  })

  it('runs up to a line with PATH:LINE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slt-cli-'))
    writeFileSync(join(dir, 'a.slt'), 'query I\nSELECT 1\n----\n1\n\nquery I\nSELECT 1\n----\n5\n')
    const out: string[] = []
    expect(await runSltCli([`${join(dir, 'a.slt')}:2`], { out: (l) => out.push(l), openEngine: () => new SqliteEngine() })).toBe(0)
    expect(out).toEqual(['1 passed, 0 failed, 0 skipped'])
  })
})

const SELECT1 = '/work/shared/sqllogictest/sqlite/select1.test'

describe('the SQLite corpus on SQLite itself', () => {
  it.skipIf(!existsSync(SELECT1))('passes select1.test (hashes, value-wise results, nosort)', async () => {
    const lines: string[] = []
    const counts = await runFile(SELECT1, { mode: 'batch', openEngine: () => new SqliteEngine(), report: (l) => lines.push(l), engineNames: ['sqlite'] })
    expect(lines.slice(0, 10)).toEqual([])
    expect(counts.failed).toBe(0)
    expect(counts.passed).toBeGreaterThan(1000)
  })
})
