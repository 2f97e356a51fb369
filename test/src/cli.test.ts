// The rivulet command line, run in-process through main(argv, io) with captured output.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { runDemo } from '../../src/cli/demo.js'
import { splitStatements } from '../../src/sql-runtime/split.js'

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) })
  return { code, out, err }
}

const dir = mkdtempSync(join(tmpdir(), 'rivulet-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('--data DIR with -c and -f', () => {
  it('keeps tables and views across runs, and rivulet_log lists what the log holds', async () => {
    const data = join(dir, 'data')
    expect((await run('--data', data, '-c', 'CREATE TABLE t (k INT PRIMARY KEY, v TEXT)', '-c', "INSERT INTO t VALUES (1, 'one')")).code).toBe(0)
    const script = join(dir, 'more.sql')
    writeFileSync(script, "CREATE MATERIALIZED VIEW IF NOT EXISTS n AS SELECT count(*) AS c FROM t;\nINSERT INTO t VALUES (2, 'two');\n")
    expect((await run('--data', data, '-f', script)).code).toBe(0)
    const r = await run('--data', data, '-c', 'SELECT c FROM n', '-c', 'SELECT relation, rows FROM rivulet_log')
    expect(r.out).toBe(' c \n---\n 2\n(1 row)\n\n relation | rows \n----------+------\n t        |    2\n(1 row)\n\n')
    expect(r.err).toBe('')
  })
})

describe('splitStatements (psql statement boundaries)', () => {
  it('splits at ; outside quotes, comments and parentheses', () => {
    const script = [
      '-- leading comment',
      '',
      "SELECT 'a;b', \"c;d\", $$e;f$$, $x$g;h$x$ /* i; /* nested; */ j; */ FROM t; -- after",
      "INSERT INTO t VALUES (1, E'k\\';l');",
      '  -- comment before',
      'SELECT',
      '  2;;',
      'SELECT 3',
      '',
    ].join('\n')
    const stmts = splitStatements(script)
    expect(stmts.map((s) => s.text)).toEqual([
      "SELECT 'a;b', \"c;d\", $$e;f$$, $x$g;h$x$ /* i; /* nested; */ j; */ FROM t;",
      "INSERT INTO t VALUES (1, E'k\\';l');",
      'SELECT\n  2;',
      'SELECT 3',
    ])
    expect(stmts.map((s) => s.endLine)).toEqual([3, 4, 7, 8])
    expect(stmts.map((s) => s.terminated)).toEqual([true, true, true, false])
    for (const s of stmts) expect(script.slice(s.offset, s.offset + s.text.length)).toBe(s.text)
  })

  it('keeps a$b identifiers and does not treat $1 as a dollar quote', () => {
    expect(splitStatements('SELECT a$b FROM t; SELECT $1; SELECT 2').map((s) => s.text)).toEqual([
      'SELECT a$b FROM t;',
      'SELECT $1;',
      'SELECT 2',
    ])
  })

  it('drops empty statements and comment-only input', () => {
    expect(splitStatements(';; -- nothing\n/* here */ ;')).toEqual([])
  })
})

describe('rivulet command line (no engine needed)', () => {
  it('--version prints the package version', async () => {
    const r = await run('--version')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^\d+\.\d+\.\d+\n$/)
  })

  it('--help lists the commands and options', async () => {
    const r = await run('--help')
    expect(r.code).toBe(0)
    for (const word of ['-c, --command', '-f, --file', '--data', 'slt', 'demo', 'serve', 'bench']) expect(r.out).toContain(word)
  })

  // no arguments starts the REPL (test/repl covers it, in a terminal and with piped input)

  it('bench nexmark --generate writes the events as files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rivulet-nexmark-'))
    const r = await run('bench', 'nexmark', '--generate', dir, '--format', 'csv', '--events', '500')
    expect(r.code).toBe(0)
    expect(r.out).toContain('500 events: 10 person, 30 auction, 460 bid rows')
    const bids = readFileSync(join(dir, 'bid.csv'), 'utf8').trimEnd().split('\n')
    expect(bids[0]).toBe('auction,bidder,price,channel,url,date_time,extra')
    expect(bids.length).toBe(461)
    expect((await run('bench', 'nexmark', '--generate', dir, '--format', 'xml')).code).toBe(2)
    rmSync(dir, { recursive: true })
  })

  it('bench: unknown suites and queries are refused', async () => {
    const suite = await run('bench', 'tpch')
    expect(suite.code).toBe(2)
    expect(suite.err).toContain('unknown suite "tpch" (known: nexmark)')
    const query = await run('bench', 'nexmark', '--query', 'q99')
    expect(query.code).toBe(1)
    expect(query.err).toMatch(/unknown query "q99" \(known: q0, q1, .*q22\)/)
  })

  it('unknown options and commands fail', async () => {
    expect((await run('--nope')).code).not.toBe(0)
    expect((await run('nope')).code).not.toBe(0)
    expect((await run('demo', '--events', 'x')).code).not.toBe(0)
  })

  it('-f with a missing file fails', async () => {
    const r = await run('-f', join(dir, 'missing.sql'))
    expect(r.code).toBe(1)
    expect(r.err).toContain('missing.sql: No such file or directory')
  })
})

describe('rivulet -c / -f (psql output)', () => {
  it('-c prints command tags and aligned tables', async () => {
    const r = await run(
      '-c',
      "CREATE TABLE t (k INT PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'bb'); SELECT k, v, k * 10 AS big FROM t ORDER BY k",
    )
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.out).toBe('CREATE TABLE\nINSERT 0 2\n k | v  | big \n---+----+-----\n 1 | a  |  10\n 2 | bb |  20\n(2 rows)\n\n')
  })

  it('-c stops at the first error, after printing what ran before it', async () => {
    const r = await run('-c', 'CREATE TABLE t (k INT); SELEC 1; SELECT 2')
    expect(r.code).toBe(1)
    expect(r.out).toBe('CREATE TABLE\n')
    expect(r.err).toMatch(/^ERROR: {2}\S/)
    // The position is in the whole -c string, as psql sends it as one query.
    expect(r.err).toContain('\nLINE 1: CREATE TABLE t (k INT); SELEC 1; SELECT 2\n                                ^\n')
  })

  it('-c and -f run in command-line order on one engine; -x gives expanded output', async () => {
    const file = join(dir, 'script.sql')
    writeFileSync(file, "-- a script\nINSERT INTO t VALUES (1, 'x');\n\n/* done */\n")
    const r = await run('-x', '-c', 'CREATE TABLE t (k INT, v TEXT)', '-f', file, '-c', 'SELECT * FROM t')
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.out).toBe('CREATE TABLE\nINSERT 0 1\n-[ RECORD 1 ]\nk | 1\nv | x\n\n')
  })

  it('-f reports errors with file:line and the statement line like psql', async () => {
    const file = join(dir, 'bad.sql')
    writeFileSync(file, 'CREATE TABLE t (k INT);\n\nSELECT\n  k,\n  nosuch\nFROM t;\nSELECT 1;\n')
    const r = await run('-f', file)
    expect(r.code).toBe(1)
    expect(r.out).toBe('CREATE TABLE\n')
    expect(r.err).toContain(`rivulet:${file}:6: ERROR:  `)
    expect(r.err).toContain('nosuch')
    expect(r.err).toContain('\nLINE 3:   nosuch\n          ^\n')
  })

  it('a failing statement with no position prints the message and its DETAIL', async () => {
    const r = await run('-c', 'CREATE TABLE t (k INT PRIMARY KEY); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)')
    expect(r.code).toBe(1)
    expect(r.out).toBe('CREATE TABLE\nINSERT 0 1\n')
    expect(r.err).toBe('ERROR:  duplicate key value violates unique constraint "t_pkey"\nDETAIL:  Key (k)=(1) already exists.\n')
  })
})

describe('rivulet slt', () => {
  it('runs sqllogictest files through the runner and exits 1 on failures', async () => {
    const ok = join(dir, 'ok.slt')
    writeFileSync(ok, 'statement ok\nCREATE TABLE t (k INT)\n\nstatement ok\nINSERT INTO t VALUES (1), (2)\n\nquery I rowsort\nSELECT k FROM t\n----\n1\n2\n')
    const pass = await run('slt', '--mode', 'both', ok)
    expect(pass.code).toBe(0)
    expect(pass.out).toMatch(/\d+ passed, 0 failed, 0 skipped\n$/)
    const bad = join(dir, 'bad.slt')
    writeFileSync(bad, 'query I\nSELECT 1\n----\n2\n')
    const fail = await run('slt', bad)
    expect(fail.code).toBe(1)
    expect(fail.out).toMatch(/0 passed, 1 failed, 0 skipped\n$/)
  })

  it('passes options through to the runner (its own usage)', async () => {
    const r = await run('slt', '--help')
    expect(r.code).toBe(0)
    expect(r.out).toContain('usage: rivulet slt')
  })
})

describe('rivulet demo', () => {
  it('runs the Nexmark scenario deterministically: changes per report, then the final views', async () => {
    let first = ''
    await runDemo({ events: 100_000, report: 20_000, tty: false, out: (s) => (first += s) })
    let second = ''
    await runDemo({ events: 100_000, report: 20_000, tty: false, out: (s) => (second += s) })
    expect(second).toBe(first)
    expect(first).toContain('-- after 20,000 events, watermark 2015-07-14 23:59:57.9999')
    expect(first).toContain('-- after 100,000 events')
    expect(first).not.toContain('-- after 120,000 events')
    expect(first).toMatch(/\n {2}hot_items\n {4}\+ \(/)
    expect(first).toMatch(/\n {4}- \(/) // retractions are shown
    expect(first).toMatch(/\n {2}top_sessions\n {4}\+ \(/) // sessions closed (2 s gap, 10 s of auction time)
    expect(first).toContain('\nfinal contents:\n\n')
    for (const view of ['hot_items', 'top_sessions', 'category_prices']) expect(first).toContain(`\n${view}: `)
    expect(first).toMatch(/ category \| auctions \| avg_price_usd \n/)
    expect(first).toMatch(/\(5 rows\)\n\n$/)
  })

  it('redraws in place on a terminal', async () => {
    let out = ''
    await runDemo({ events: 6000, tty: true, pace: 1e9, out: (s) => (out += s) })
    expect(out.split('\x1b[H\x1b[J').length).toBe(4) // a frame per 2,000 events
    expect(out).toContain('Nexmark: 6,000 of 6,000 events')
    expect(out).toMatch(/done: 6,000 events in/)
  })

  it('rivulet demo --events N (piped)', async () => {
    const r = await run('demo', '--events', '5000', '--report', '5000')
    expect(r.code).toBe(0)
    expect(r.out).toContain('-- after 5,000 events')
    expect(r.out).not.toContain('-- after 10,000 events')
    expect((await run('demo', '--events', 'x')).code).not.toBe(0)
  })
})
