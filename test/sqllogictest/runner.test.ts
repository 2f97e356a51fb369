import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseSlt } from '../../sqllogictest/parse.js'
import { CHURN_IN_PLACE_MAX_VIEWS, DEFAULT_CHURN_SEED, changedNames, runFile, runRecords, sqlIdentifiers, viewableQuery } from '../../sqllogictest/runner.js'
import type { RunMode, RunOptions, SltEngine } from '../../sqllogictest/runner.js'
import { runSltCli } from '../../sqllogictest/cli.js'
import type { ChangeBatch, QueryResult, RelationInfo, ResultValue, StatementResult, SubscribeOptions, Subscription } from '../../src/types.js'
import { SqliteEngine } from './sqlite-engine.js'

async function run(text: string, mode: RunMode = 'batch', extra: Partial<RunOptions> = {}, file = 'x.slt') {
  const lines: string[] = []
  const engines: SqliteEngine[] = []
  const all = await runRecords(file, parseSlt(text, file), {
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
  const counts = { passed: all.passed, failed: all.failed, skipped: all.skipped }
  return { counts, all, lines, log: engines[0]?.log ?? [] }
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
    const { counts, all } = await run(`
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
    expect(all).toMatchObject({ condition: 4, unsupported: 0, notRun: 0 })
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
    expect(counts).toEqual({ passed: 0, failed: 2, skipped: 0, condition: 0, unsupported: 0, notRun: 0 })
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
      // q6 does not read u: it stays through DROP TABLE u
      'DROP TABLE u',
      'DROP MATERIALIZED VIEW __slt_q6',
    ])
    expect(created.length).toBe(2)
  })

  it('creates a view after the last statement that changes a name it reads, and only drops views that read a dropped name', async () => {
    const { counts, lines, log } = await run(
      `
statement ok
CREATE TABLE t (a INTEGER)

statement ok
CREATE TABLE u (b INTEGER)

statement ok
INSERT INTO t VALUES (1)

query I nosort
SELECT a FROM t
----
1

statement ok
DROP TABLE t

statement ok
CREATE TABLE t (a INTEGER)

statement ok
INSERT INTO t VALUES (2)

statement ok
INSERT INTO u VALUES (5)

query I nosort
SELECT a FROM t
----
2

query I nosort
SELECT b FROM u
----
5
`,
      'ivm',
    )
    expect(lines).toEqual([])
    expect(counts.failed).toBe(0)
    expect(log).toEqual([
      'CREATE TABLE t (a INTEGER)',
      'CREATE MATERIALIZED VIEW __slt_q3 (c1) AS SELECT a FROM t',
      'CREATE TABLE u (b INTEGER)',
      // u is not changed again before q9: its view exists from here, through every statement
      'CREATE MATERIALIZED VIEW __slt_q9 (c1) AS SELECT b FROM u',
      'INSERT INTO t VALUES (1)',
      'DROP MATERIALIZED VIEW __slt_q3',
      'DROP TABLE t',
      'CREATE TABLE t (a INTEGER)',
      // q8 reads the second t, so it is created after that t exists, not over the first one
      'CREATE MATERIALIZED VIEW __slt_q8 (c1) AS SELECT a FROM t',
      'INSERT INTO t VALUES (2)',
      'INSERT INTO u VALUES (5)',
      'DROP MATERIALIZED VIEW __slt_q8',
      'DROP MATERIALIZED VIEW __slt_q9',
    ])
  })

  it('knows which names a statement changes', () => {
    expect(changedNames('CREATE TABLE IF NOT EXISTS "Mixed" (a INT)')).toEqual(new Set(['Mixed']))
    expect(changedNames('DROP TABLE IF EXISTS t1, s.T2')).toEqual(new Set(['t1', 't2']))
    expect(changedNames('CREATE OR REPLACE MATERIALIZED VIEW v AS SELECT 1; DROP VIEW w')).toEqual(new Set(['v', 'w']))
    expect(changedNames('ALTER TABLE a RENAME TO b')).toEqual(new Set(['a', 'b']))
    expect(changedNames('CREATE INDEX i ON t (a)')).toEqual(new Set())
    expect(changedNames('COMMIT')).toEqual(new Set())
    expect(changedNames('DROP TABLE t CASCADE')).toBeUndefined()
    expect(changedNames('CREATE FUNCTION f() RETURNS int')).toBeUndefined()
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

const SELECT1 = fileURLToPath(new URL('../../sqllogictest/sqlite/select1.test', import.meta.url))

describe('the SQLite corpus on SQLite itself', () => {
  it.skipIf(!existsSync(SELECT1))('passes select1.test (hashes, value-wise results, nosort)', async () => {
    const lines: string[] = []
    const counts = await runFile(SELECT1, { mode: 'batch', openEngine: () => new SqliteEngine(), report: (l) => lines.push(l), engineNames: ['sqlite'] })
    expect(lines.slice(0, 10)).toEqual([])
    expect(counts.failed).toBe(0)
    expect(counts.passed).toBeGreaterThan(1000)
  })
})

describe('skip reasons and --summary', () => {
  const SKIPS = `
statement ok
CREATE TABLE t (a INTEGER)

skipif postgresql
statement ok
NOT SQL

onlyif mysql
query I
NOT SQL EITHER
----
1

system ok
echo hi

let $x
SELECT 1

frobnicate the widgets

onlyif mysql
system ok
echo conditioned away first

onlyif mysql
halt

query I
SELECT count(*) FROM t
----
0

skipif mysql
halt

statement ok
NOT RUN

query I
NOT RUN EITHER
----
1
`

  it('counts skips by reason: condition (skipif/onlyif/halt) and unsupported (system, let, unknown)', async () => {
    const { all, lines } = await run(SKIPS)
    expect(lines).toEqual([])
    expect(all).toEqual({ passed: 2, failed: 0, skipped: 8, condition: 5, unsupported: 3, notRun: 0 })
  })

  it('counts records after --fail-fast stops a file as not run', async () => {
    const { all } = await run('query I\nSELECT 1\n----\n2\n\nquery I\nSELECT 1\n----\n1\n\nonlyif mysql\nquery I\nSELECT 1\n----\n1\n', 'batch', { failFast: true })
    expect(all).toEqual({ passed: 0, failed: 1, skipped: 2, condition: 0, unsupported: 0, notRun: 2 })
  })

  it('prints one line per file, a total line, and keeps the classic last line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slt-sum-'))
    writeFileSync(join(dir, 'a.slt'), SKIPS)
    writeFileSync(join(dir, 'b.test'), 'query I\nSELECT 1\n----\n2\n\nsystem ok\nls\n')
    const out: string[] = []
    const code = await runSltCli(['--summary', '--mode', 'both', dir], { out: (l) => out.push(l), err: (l) => out.push(l), openEngine: () => new SqliteEngine() })
    expect(code).toBe(1)
    const fileLines = out.filter((l) => /: \d+ passed/.test(l) && !l.startsWith('total:'))
    expect(fileLines.length).toBe(2)
    expect(fileLines[0]).toMatch(new RegExp(`^${join(dir, 'a.slt').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 2 passed, 0 failed, 8 skipped \\(5 by condition, 3 unsupported\\), \\d+\\.\\d\\d s$`))
    expect(fileLines[1]).toMatch(/b\.test: 0 passed, 1 failed, 1 skipped \(0 by condition, 1 unsupported\), \d+\.\d\d s$/)
    expect(out[out.length - 2]).toMatch(/^total: 2 passed, 1 failed, 9 skipped \(5 by condition, 4 unsupported\), \d+\.\d\d s, \d+ records\/s \(mode both\)$/)
    expect(out[out.length - 1]).toBe('2 passed, 1 failed, 9 skipped')
    // per-file lines come after that file's failures
    expect(out.findIndex((l) => l.includes('b.test:1:'))).toBeLessThan(out.indexOf(fileLines[1]!))
    // without --summary: no summary lines
    const plain: string[] = []
    await runSltCli([dir], { out: (l) => plain.push(l), err: (l) => plain.push(l), openEngine: () => new SqliteEngine() })
    expect(plain.filter((l) => / s$|^total:/.test(l))).toEqual([])
    expect(plain[plain.length - 1]).toBe('2 passed, 1 failed, 9 skipped')
  })
})

/**
 * A SQLite stand-in whose materialized views are real snapshots, refreshed after every
 * statement and after insert()/delete() — except the kind of change it is told to ignore,
 * which makes it a broken engine (its views stop reflecting deletes or inserts).
 */
class SnapshotEngine implements SltEngine {
  readonly inner = new SqliteEngine()
  readonly calls: { op: 'insert' | 'delete'; table: string; rows: ResultValue[][] }[] = []
  readonly #snap = new Map<string, QueryResult>()
  readonly #ignore: 'delete' | 'insert' | 'none'

  constructor(ignore: 'delete' | 'insert' | 'none') {
    this.#ignore = ignore
  }

  get inTransaction(): boolean {
    return this.inner.inTransaction
  }

  #refresh(): void {
    for (const name of this.#snap.keys()) this.#snap.set(name, this.inner.query(`SELECT * FROM ${name}`))
  }

  execute(sql: string): readonly StatementResult[] {
    const res = this.inner.execute(sql)
    const created = /^\s*CREATE\s+MATERIALIZED\s+VIEW\s+(\w+)/i.exec(sql)
    if (created !== null) this.#snap.set(created[1]!.toLowerCase(), { columns: [], rows: [] })
    const dropped = /^\s*DROP\s+MATERIALIZED\s+VIEW\s+(\w+)/i.exec(sql)
    if (dropped !== null) this.#snap.delete(dropped[1]!.toLowerCase())
    this.#refresh()
    return res
  }

  query(sql: string): QueryResult {
    const m = /^\s*SELECT \* FROM (\w+)\s*$/i.exec(sql)
    const snap = m === null ? undefined : this.#snap.get(m[1]!.toLowerCase())
    return snap ?? this.inner.query(sql)
  }

  insert(table: string, rows: readonly (readonly ResultValue[])[]): number {
    this.calls.push({ op: 'insert', table, rows: rows.map((r) => [...r]) })
    const n = this.inner.insert(table, rows)
    if (this.#ignore !== 'insert') this.#refresh()
    return n
  }

  delete(table: string, rows: readonly (readonly ResultValue[])[]): number {
    this.calls.push({ op: 'delete', table, rows: rows.map((r) => [...r]) })
    const n = this.inner.delete(table, rows)
    if (this.#ignore !== 'delete') this.#refresh()
    return n
  }

  subscribe(view: string, callback: (batch: ChangeBatch) => void, options?: SubscribeOptions): Subscription {
    return this.inner.subscribe(view, callback, options)
  }

  relations(): readonly RelationInfo[] {
    return this.inner.relations()
  }

  close(): void {
    this.inner.close()
  }
}

const CHURN = `
statement ok
CREATE TABLE t (a INTEGER, b TEXT)

statement ok
CREATE TABLE u (a INTEGER, c INTEGER)

statement ok
CREATE TABLE other (z INTEGER)

statement ok
INSERT INTO t VALUES (1, 'x'), (2, 'y'), (2, 'y'), (3, NULL), (4, 'w'), (5, 'v')

statement ok
INSERT INTO u VALUES (1, 10), (2, 20), (3, 30), (3, 30)

statement ok
INSERT INTO other VALUES (7), (8)

statement ok
CREATE VIEW tv AS SELECT a, b FROM "t" WHERE a > 1

query IT rowsort
SELECT a, b FROM t
----
1 x
2 y
2 y
3 NULL
4 w
5 v

query II rowsort
SELECT count(*), sum(c) FROM t JOIN u ON t.a = u.a -- other is not read
----
5 110

query IT rowsort
SELECT * FROM tv WHERE b <> 'nothing' /* mentions other */
----
2 y
2 y
4 w
5 v

query I nosort
SELECT a FROM t ORDER BY a DESC
----
6 values hashing to ${createHash('md5').update('5\n4\n3\n2\n2\n1\n').digest('hex')}

query III rowsort
SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM u), (SELECT count(*) FROM other)
----
6 4 2
`

async function runChurn(engine: SnapshotEngine, seed?: number, mode: RunMode = 'ivm', text = CHURN) {
  const lines: string[] = []
  const all = await runRecords('c.slt', parseSlt(text, 'c.slt'), {
    mode,
    openEngine: () => engine,
    report: (l) => lines.push(l),
    churn: true,
    ...(seed === undefined ? {} : { churnSeed: seed }),
  })
  return { all, lines }
}

describe('--churn', () => {
  it('finds identifiers outside strings and comments', () => {
    expect([...sqlIdentifiers(`SELECT "My""T".x, 'no''t' FROM T1 -- other\n JOIN "u" /* v */ ON 1e5 = 2`)].sort()).toEqual(['My"T', 'from', 'join', 'on', 'select', 't1', 'u', 'x'].sort())
  })

  it('passes on a correct engine, deletes a random half of each table read, and restores the rows', async () => {
    for (const mode of ['ivm', 'both'] as const) {
      const engine = new SnapshotEngine('none')
      const { all, lines } = await runChurn(engine, undefined, mode)
      expect(lines).toEqual([])
      expect(all).toMatchObject({ passed: 12, failed: 0, skipped: 0 })
      const deletes = engine.calls.filter((c) => c.op === 'delete')
      const inserts = engine.calls.filter((c) => c.op === 'insert')
      // q1: t; q2: t and u (not other); q3: t through the view tv; q4: t; q5: t, u, other
      expect(deletes.map((c) => c.table)).toEqual(['t', 't', 'u', 't', 't', 'other', 't', 'u'])
      expect(deletes.map((c) => c.rows.length)).toEqual([3, 3, 2, 3, 3, 1, 3, 2])
      // every deleted row is re-inserted, as deleted
      expect(inserts).toEqual(deletes.map((c) => ({ ...c, op: 'insert' })))
    }
  })

  it('passes a quoted mixed-case table name to insert/delete in double quotes', async () => {
    const engine = new SnapshotEngine('none')
    const { all, lines } = await runChurn(engine, undefined, 'ivm', 'statement ok\nCREATE TABLE "Up" (x INTEGER)\n\nstatement ok\nINSERT INTO "Up" VALUES (1), (2)\n\nquery I rowsort\nSELECT x FROM "Up"\n----\n1\n2\n')
    expect(lines).toEqual([])
    expect(all).toMatchObject({ passed: 3, failed: 0 })
    expect(engine.calls.map((c) => `${c.op} ${c.table} ${c.rows.length}`)).toEqual(['delete "Up" 1', 'insert "Up" 1'])
  })

  it('is reproducible for a seed and varies with it', async () => {
    const picks = async (seed?: number): Promise<string> => {
      const engine = new SnapshotEngine('none')
      await runChurn(engine, seed)
      return JSON.stringify(engine.calls.filter((c) => c.op === 'delete'))
    }
    expect(await picks(7)).toBe(await picks(7))
    expect(await picks()).toBe(await picks(DEFAULT_CHURN_SEED))
    const seen = new Set<string>()
    for (const seed of [1, 2, 3, 4]) seen.add(await picks(seed))
    expect(seen.size).toBeGreaterThan(1)
  })

  it('detects an engine whose views stop reflecting deletes', async () => {
    const engine = new SnapshotEngine('delete')
    // Without --churn, this broken engine passes everything...
    const plain: string[] = []
    const ok = await runRecords('c.slt', parseSlt(CHURN, 'c.slt'), { mode: 'ivm', openEngine: () => new SnapshotEngine('delete'), report: (l) => plain.push(l) })
    expect(plain).toEqual([])
    expect(ok.failed).toBe(0)
    // ... with --churn every query fails at the check after the delete.
    const { all, lines } = await runChurn(engine, 99)
    expect(all).toMatchObject({ passed: 7, failed: 5 })
    const heads = lines.filter((l) => l.startsWith('c.slt:'))
    expect(heads.length).toBe(5)
    expect(heads[0]).toMatch(/^c\.slt:\d+: \[churn\] after deleting 3 of 6 rows of t: view differs from recompute \(seed 99; RIVULET_SEED=99 replays\)$/)
    expect(lines).toContain('  view 6 rows, recompute 3 rows')
    expect(heads[1]).toMatch(/after deleting 3 of 6 rows of t, 2 of 4 rows of u: view differs from recompute/)
    // the rows came back: the last query sees the full tables in the ad hoc recompute
    expect(engine.calls.filter((c) => c.op === 'insert').length).toBe(engine.calls.filter((c) => c.op === 'delete').length)
  })

  it('detects an engine whose views stop reflecting inserts (after the re-insert)', async () => {
    const { all, lines } = await runChurn(new SnapshotEngine('insert'))
    expect(all).toMatchObject({ passed: 7, failed: 5 })
    expect(lines.filter((l) => l.startsWith('c.slt:'))[0]).toMatch(/\[churn\] after re-inserting 3 of 6 rows of t: view differs from recompute \(seed \d+;/)
  })

  it('churns in a sandbox copy when many other live views read the tables, and still catches a broken engine', async () => {
    const n = CHURN_IN_PLACE_MAX_VIEWS + 8
    let text = 'statement ok\nCREATE TABLE t (a INTEGER, b TEXT)\n\nstatement ok\nCREATE VIEW tv AS SELECT a FROM t WHERE a > 0\n\nstatement ok\nINSERT INTO t VALUES (1, \'x\'), (2, \'y\'), (3, \'z\'), (4, \'w\')\n'
    for (let i = 0; i < n; i++) text += `\nquery I rowsort\nSELECT a + ${i} FROM tv\n----\n${[1, 2, 3, 4].map((a) => a + i).join('\n')}\n`
    for (const ignore of ['none', 'delete'] as const) {
      const opened: SnapshotEngine[] = []
      const lines: string[] = []
      const all = await runRecords('s.slt', parseSlt(text, 's.slt'), {
        mode: 'ivm',
        openEngine: () => {
          const e = new SnapshotEngine(ignore)
          opened.push(e)
          return e
        },
        report: (l) => lines.push(l),
        churn: true,
      })
      // the first queries have more than the limit of other live views: a sandbox each
      const sandboxes = opened.slice(1)
      expect(sandboxes.length).toBe(n - CHURN_IN_PLACE_MAX_VIEWS - 1)
      // a sandbox holds a full copy of t (seeded with one insert), then deletes and re-inserts half
      for (const sb of sandboxes) expect(sb.calls.map((c) => `${c.op} ${c.table} ${c.rows.length}`)).toEqual(['insert t 4', 'delete t 2', 'insert t 2'])
      if (ignore === 'none') {
        expect(lines).toEqual([])
        expect(all).toMatchObject({ passed: n + 3, failed: 0 })
      } else {
        expect(all).toMatchObject({ passed: 3, failed: n })
        expect(lines.filter((l) => l.startsWith('s.slt:'))[0]).toMatch(/\[churn\] after deleting 2 of 4 rows of t: view differs from recompute/)
      }
    }
  })

  it('skips records inside a transaction and queries that are not helper views', async () => {
    const engine = new SnapshotEngine('delete')
    const { all, lines } = await runChurn(
      engine,
      undefined,
      'both',
      `
statement ok
CREATE TABLE t (a INTEGER)

statement ok
INSERT INTO t VALUES (1), (2)

statement ok
BEGIN

query I rowsort
SELECT a FROM t
----
1
2

statement ok
COMMIT

query I rowsort
SELECT a FROM t WHERE 'now' <> '' -- mentions the clock: not viewable
----
1
2
`,
    )
    expect(lines).toEqual([])
    expect(all).toMatchObject({ passed: 6, failed: 0 })
    expect(engine.calls).toEqual([])
  })

  it('needs --mode ivm or both, and an integer RIVULET_SEED', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slt-churn-'))
    writeFileSync(join(dir, 'a.test'), 'statement ok\nCREATE TABLE t (a INTEGER)\n\nstatement ok\nINSERT INTO t VALUES (1), (2)\n\nquery I rowsort\nSELECT a FROM t\n----\n1\n2\n')
    const err: string[] = []
    const io = { out: () => {}, err: (l: string) => err.push(l), openEngine: () => new SnapshotEngine('delete') }
    expect(await runSltCli(['--churn', dir], io)).toBe(2)
    expect(err[0]).toMatch(/--churn needs --mode ivm or --mode both/)
    expect(await runSltCli(['--churn', '--mode', 'ivm', dir], { ...io, env: { RIVULET_SEED: 'abc' } })).toBe(2)
    const out: string[] = []
    expect(await runSltCli(['--churn', '--mode', 'ivm', dir], { ...io, out: (l) => out.push(l), env: { RIVULET_SEED: '123' } })).toBe(1)
    expect(out[0]).toMatch(/a\.test:7: \[churn\] after deleting 1 of 2 rows of t: view differs from recompute \(seed 123; RIVULET_SEED=123 replays\)/)
    expect(await runSltCli(['--mode', 'ivm', dir], { ...io, out: () => {} })).toBe(0)
  })
})
