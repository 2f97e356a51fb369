// The REPL core (src/repl/session.ts and friends) driven with plain strings: prompts, statement
// boundaries, psql output, errors with carets, transaction prompts, meta-commands, \i,
// SUBSCRIBE, completion. No terminal involved (see pty.test.ts for the real binary).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { copyReadChunk } from '../../src/connectors/copy-reader.js'
import { Engine } from '../../src/engine/engine.js'
import { scan, promptChar } from '../../src/repl/buffer.js'
import { complete } from '../../src/repl/complete.js'
import { parseMeta } from '../../src/repl/meta.js'
import { ProgressBar, formatDuration } from '../../src/repl/progress.js'
import { ReplSession, formatTiming, type SessionOptions } from '../../src/repl/session.js'

const dir = mkdtempSync(join(tmpdir(), 'rivulet-repl-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Harness {
  session: ReplSession
  engine: Engine
  /** stdout and stderr interleaved, as a terminal shows them */
  screen(): string
  out(): string
  err(): string
  reset(): void
  /** Feeds lines (each awaited) and returns what they printed. */
  feed(...lines: string[]): Promise<string>
}

function harness(opts: Partial<SessionOptions> = {}, engine = Engine.open()): Harness {
  let screen = ''
  let out = ''
  let err = ''
  const session = new ReplSession({
    engine,
    out: (s) => {
      out += s
      screen += s
    },
    err: (s) => {
      err += s
      screen += s
    },
    interactive: true,
    ...opts,
  })
  return {
    session,
    engine,
    screen: () => screen,
    out: () => out,
    err: () => err,
    reset: () => {
      screen = out = err = ''
    },
    async feed(...lines) {
      const before = screen.length
      for (const l of lines) await session.feedLine(l)
      return screen.slice(before)
    },
  }
}

/** What `rivulet -c SQL` prints (the REPL must print the same). */
async function viaDashC(sql: string): Promise<{ out: string; err: string }> {
  let out = ''
  let err = ''
  await main(['-c', sql], { stdout: (s) => (out += s), stderr: (s) => (err += s) })
  return { out, err }
}

describe('query buffer and prompts', () => {
  it('psql prompts: =, - while a statement continues, and the quote / comment / paren kinds', async () => {
    const h = harness()
    const s = h.session
    expect(s.prompt()).toBe('rivulet=> ')
    await h.feed('SELECT')
    expect(s.prompt()).toBe('rivulet-> ')
    await h.feed("  'abc")
    expect(s.prompt()).toBe("rivulet'> ")
    await h.feed("def', (1")
    expect(s.prompt()).toBe('rivulet(> ')
    await h.feed('  + /* note')
    expect(s.prompt()).toBe('rivulet*> ')
    await h.feed('*/ ), "col')
    expect(s.prompt()).toBe('rivulet"> ')
    await h.feed('umn", $x$ body')
    expect(s.prompt()).toBe('rivulet$> ')
    expect(h.screen()).toBe('')
    await h.feed('$x$;')
    expect(s.prompt()).toBe('rivulet=> ')
    // the statement ran (the `(1 + )` on line 5 is its syntax error; the dollar quote is fine)
    expect(h.err()).toMatch(/^ERROR: {2}Expected an expression, found "\)"\nLINE 5: \*\/ \), "col\n {11}\^\n$/)
  })

  it('blank and comment-only lines do nothing; several statements on one line run in order', async () => {
    const h = harness()
    expect(await h.feed('', '   ', '-- just a comment', '\t')).toBe('')
    expect(h.session.prompt()).toBe('rivulet=> ')
    const printed = await h.feed("CREATE TABLE t (k INT PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b'); SELECT * FROM t ORDER BY k;")
    const expected = await viaDashC("CREATE TABLE t (k INT PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b'); SELECT * FROM t ORDER BY k;")
    expect(printed).toBe(expected.out)
    expect(printed).toBe('CREATE TABLE\nINSERT 0 2\n k | v \n---+---\n 1 | a\n 2 | b\n(2 rows)\n\n')
  })

  it('a statement over several lines runs at its ;, and the rest of the line starts the next one', async () => {
    const h = harness()
    expect(await h.feed('SELECT 1 AS a,')).toBe('')
    expect(await h.feed('  2 AS b; SELECT')).toBe(' a | b \n---+---\n 1 | 2\n(1 row)\n\n')
    expect(h.session.prompt()).toBe('rivulet-> ')
    expect(await h.feed("'x;y' AS c;")).toBe('  c  \n-----\n x;y\n(1 row)\n\n')
  })

  it('a CREATE TRIGGER body holds the statement open past its inner ; (as -c/-f split it)', async () => {
    const h = harness()
    await h.feed('CREATE TABLE t (k INT);', 'CREATE TRIGGER tr AFTER INSERT ON t BEGIN', '  SELECT 1;')
    expect(h.out()).toBe('CREATE TABLE\n')
    expect(h.session.prompt()).toBe('rivulet-> ')
    expect(await h.feed('END;')).toBe('CREATE TRIGGER\n')
    expect(h.session.prompt()).toBe('rivulet=> ')
  })

  it('a statement of many lines costs linear time (20,000-line INSERT through \\i)', async () => {
    const file = join(dir, 'long.sql')
    const rows = Array.from({ length: 20_000 }, (_, i) => `  (${i}, 'v${i}')${i < 19_999 ? ',' : ';'}`)
    writeFileSync(file, ['CREATE TABLE t (k INT, v TEXT);', 'INSERT INTO t VALUES', ...rows, 'SELECT count(*) AS n FROM t;'].join('\n'))
    const h = harness()
    const start = performance.now()
    await h.feed(`\\i ${file}`)
    expect(h.err()).toBe('')
    expect(h.out()).toBe('CREATE TABLE\nINSERT 0 20000\n   n   \n-------\n 20000\n(1 row)\n\n')
    expect(performance.now() - start).toBeLessThan(15_000)
  })

  it('errors: ERROR, the LINE excerpt and a caret under the offending token; the session goes on', async () => {
    const h = harness()
    await h.feed('CREATE TABLE t (k INT);', 'SELECT k,', '  nope', 'FROM t;')
    expect(h.err()).toBe('ERROR:  column "nope" does not exist\nLINE 2:   nope\n          ^\n')
    expect(h.session.prompt()).toBe('rivulet=> ')
    h.reset()
    await h.feed('SELECT 1 +;')
    const viaC = await viaDashC('SELECT 1 +;')
    expect(h.err()).toBe(viaC.err)
    expect(h.err()).toMatch(/^ERROR: {2}.*\nLINE 1: SELECT 1 \+;\n {18}\^\n$/)
    h.reset()
    expect(await h.feed('SELECT 2;')).toBe(' ?column? \n----------\n        2\n(1 row)\n\n')
  })

  it('transaction blocks: * inside, ! after an error, 25P02 until ROLLBACK', async () => {
    const h = harness()
    await h.feed('CREATE TABLE t (k INT PRIMARY KEY);', 'BEGIN;')
    expect(h.session.prompt()).toBe('rivulet=*> ')
    await h.feed('INSERT INTO t VALUES (1);', 'INSERT INTO t VALUES (1);')
    expect(h.err()).toContain('ERROR:  duplicate key value violates unique constraint')
    expect(h.session.prompt()).toBe('rivulet=!> ')
    h.reset()
    await h.feed('SELECT')
    expect(h.session.prompt()).toBe('rivulet-!> ')
    await h.feed('1;')
    expect(h.err()).toBe('ERROR:  current transaction is aborted, commands ignored until end of transaction block\n')
    expect(await h.feed('ROLLBACK;')).toBe('ROLLBACK\n')
    expect(h.session.prompt()).toBe('rivulet=> ')
    expect(await h.feed('SELECT count(*) AS n FROM t;')).toBe(' n \n---\n 0\n(1 row)\n\n')
  })

  it('interrupt (Ctrl-C) clears the query buffer', async () => {
    const h = harness()
    await h.feed('SELECT 1,')
    expect(h.session.interrupt()).toBe(false)
    expect(h.session.prompt()).toBe('rivulet=> ')
    expect(await h.feed('SELECT 3;')).toContain('        3\n')
  })

  it('end of input: piped input runs a last statement without ;, a terminal (Ctrl-D) drops it', async () => {
    const piped = harness({ interactive: false })
    await piped.feed('SELECT 7 AS x')
    expect(piped.screen()).toBe('')
    await piped.session.endOfInput()
    expect(piped.screen()).toBe(' x \n---\n 7\n(1 row)\n\n')
    const tty = harness()
    await tty.feed('SELECT 7 AS x')
    await tty.session.endOfInput()
    expect(tty.screen()).toBe('')
  })
})

describe('meta-commands', () => {
  it('\\x toggles expanded display (and on/off/auto), as psql words it', async () => {
    const h = harness({ columns: () => 20 })
    expect(await h.feed('\\x')).toBe('Expanded display is on.\n')
    expect(await h.feed("SELECT 1 AS a, 'x' AS b;")).toBe('-[ RECORD 1 ]\na | 1\nb | x\n\n')
    expect(await h.feed('\\x')).toBe('Expanded display is off.\n')
    expect(await h.feed('\\x on', '\\x off')).toBe('Expanded display is on.\nExpanded display is off.\n')
    expect(await h.feed('\\x auto')).toBe('Expanded display is used automatically.\n')
    // wider than the 20-column terminal: expanded; narrow: aligned
    expect(await h.feed("SELECT 'a long value here' AS a, 'another one' AS b;")).toBe('-[ RECORD 1 ]--------\na | a long value here\nb | another one\n\n')
    expect(await h.feed('SELECT 1 AS a;')).toBe(' a \n---\n 1\n(1 row)\n\n')
    await h.feed('\\x maybe')
    expect(h.err()).toBe('unrecognized value "maybe" for "\\x": Boolean expected\n')
  })

  it('\\timing prints psql\'s Time: line after each statement (errors too)', async () => {
    let t = 0
    const h = harness({ now: () => (t += 2.5) })
    expect(await h.feed('\\timing')).toBe('Timing is on.\n')
    expect(await h.feed('SELECT 1 AS a;')).toBe(' a \n---\n 1\n(1 row)\n\nTime: 2.500 ms\n')
    expect(await h.feed('SELECT nope;')).toMatch(/^ERROR: .*\n(.*\n)*Time: 2\.500 ms\n$/)
    expect(await h.feed('\\timing off')).toBe('Timing is off.\n')
    expect(await h.feed('SELECT 1 AS a;')).not.toContain('Time:')
    expect(formatTiming(0.1234)).toBe('Time: 0.123 ms\n')
    expect(formatTiming(1105.59)).toBe('Time: 1105.590 ms (00:01.106)\n')
    expect(formatTiming(3_723_004)).toBe('Time: 3723004.000 ms (01:02:03.004)\n')
  })

  it('unknown commands: invalid command \\foo', async () => {
    const h = harness()
    await h.feed('\\foo')
    expect(h.err()).toBe('invalid command \\foo\nTry \\? for help.\n')
  })

  it('\\? lists the commands with the current settings', async () => {
    const h = harness()
    const help = await h.feed('\\?')
    for (const c of ['\\d ', '\\dt', '\\dv', '\\dm', '\\timing', '\\x', '\\i FILE', '\\?', '\\q', 'SUBSCRIBE']) expect(help).toContain(c)
    expect(help).toContain('toggle expanded output (currently off)')
  })

  it('\\q quits (also mid-line after statements)', async () => {
    const h = harness()
    expect(await h.session.feedLine('SELECT 1; \\q')).toBe('quit')
    expect(h.out()).toContain('(1 row)')
  })

  it('a backslash command mid-statement runs and leaves the buffer; \\p shows it, \\r clears it, \\g runs it', async () => {
    const h = harness()
    expect(await h.feed('SELECT 5 AS five \\x')).toBe('Expanded display is on.\n')
    expect(h.session.buffer).toBe('SELECT 5 AS five ')
    expect(await h.feed('\\p')).toBe('SELECT 5 AS five \n')
    expect(await h.feed('\\g')).toBe('-[ RECORD 1 ]\nfive | 5\n\n')
    expect(await h.feed('\\g')).toBe('-[ RECORD 1 ]\nfive | 5\n\n') // the previous query again
    await h.feed('SELECT 6')
    expect(await h.feed('\\r')).toBe('Query buffer reset (cleared).\n')
    expect(await h.feed('\\p')).toBe('Query buffer is empty.\n')
  })

  it('\\d lists relations like psql; \\dt \\ds \\dv \\dm filter by kind', async () => {
    const h = harness()
    await h.feed('\\d')
    expect(h.out()).toBe('')
    expect(h.err()).toBe('Did not find any relations.\n')
    await h.feed(
      'CREATE TABLE orders (id INT PRIMARY KEY, amount INT NOT NULL, note TEXT DEFAULT \'none\');',
      "CREATE STREAM clicks (id INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND);",
      'CREATE VIEW big AS SELECT id FROM orders WHERE amount > 10;',
      'CREATE MATERIALIZED VIEW total AS SELECT sum(amount) AS s FROM orders;',
    )
    h.reset()
    expect(await h.feed('\\d')).toBe(
      [
        '               List of relations',
        ' Schema |  Name  |       Type        |  Owner  ',
        '--------+--------+-------------------+---------',
        ' public | big    | view              | rivulet',
        ' public | clicks | stream            | rivulet',
        ' public | orders | table             | rivulet',
        ' public | total  | materialized view | rivulet',
        '(4 rows)',
        '',
        '',
      ].join('\n'),
    )
    expect(await h.feed('\\dt')).toBe('         List of relations\n Schema |  Name  | Type  |  Owner  \n--------+--------+-------+---------\n public | orders | table | rivulet\n(1 row)\n\n')
    expect(await h.feed('\\ds')).toContain(' public | clicks | stream | rivulet\n(1 row)')
    expect(await h.feed('\\dv')).toContain(' public | big  | view | rivulet\n(1 row)')
    expect(await h.feed('\\dm')).toContain(' public | total | materialized view | rivulet\n(1 row)')
    expect(await h.feed('\\dt o*')).toContain('orders')
    h.reset()
    await h.feed('\\dt x*')
    expect(h.out()).toBe('')
    expect(h.err()).toBe('Did not find any relation named "x*".\n')
  })

  it('\\d NAME: columns, then key (tables), watermark (streams), definition (views), state size (materialized views)', async () => {
    const h = harness()
    await h.feed(
      'CREATE TABLE orders (id INT PRIMARY KEY, amount INT NOT NULL, note TEXT DEFAULT \'none\');',
      "CREATE STREAM clicks (id INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND);",
      'CREATE VIEW big AS SELECT id FROM orders WHERE amount > 10;',
      'CREATE MATERIALIZED VIEW total AS SELECT sum(amount) AS s FROM orders;',
      'INSERT INTO orders VALUES (1, 5, NULL), (2, 50, NULL);',
    )
    h.reset()
    expect(await h.feed('\\d orders')).toBe(
      [
        '               Table "public.orders"',
        ' Column |  Type   | Collation | Nullable | Default ',
        '--------+---------+-----------+----------+---------',
        ' id     | integer |           | not null | ',
        ' amount | integer |           | not null | ',
        " note   | text    |           |          | 'none'",
        'Indexes:',
        '    "orders_pkey" PRIMARY KEY (id)',
        '',
        '',
      ].join('\n'),
    )
    expect(await h.feed('\\d clicks')).toBe(
      [
        '                        Stream "public.clicks"',
        ' Column |            Type             | Collation | Nullable | Default ',
        '--------+-----------------------------+-----------+----------+---------',
        ' id     | integer                     |           |          | ',
        ' ts     | timestamp without time zone |           | not null | ',
        "Watermark: ts AS ts - INTERVAL '5' SECOND",
        'Current watermark: (none: no event yet)',
        '',
        '',
      ].join('\n'),
    )
    await h.feed("INSERT INTO clicks VALUES (1, '2024-01-01 10:00:00');")
    expect(await h.feed('\\d clicks')).toContain('Current watermark: 2024-01-01 09:59:55\n')
    expect(await h.feed('\\d big')).toBe(
      [
        '                 View "public.big"',
        ' Column |  Type   | Collation | Nullable | Default ',
        '--------+---------+-----------+----------+---------',
        ' id     | integer |           |          | ',
        'View definition:',
        ` ${h.engine.relations().find((r) => r.name === 'big')!.definition};`,
        '',
        '',
      ].join('\n'),
    )
    const total = await h.feed('\\d total')
    expect(total).toContain('\n'.concat(' '.repeat(9), 'Materialized view "public.total"\n').slice(1))
    expect(total).toMatch(/View definition:\n SELECT .*sum\(amount\).*;\nState size: \d+ entr(y|ies)\n\n$/)
    expect(total).toContain(`State size: ${h.engine.stateSize('total')} `)
    h.reset()
    await h.feed('\\d nosuch')
    expect(h.out()).toBe('')
    expect(h.err()).toBe('Did not find any relation named "nosuch".\n')
    // patterns: several matches, each described
    expect((await h.feed('\\d *o*')).match(/^ +.+ "public\.\w+"$/gm)).toEqual(['               Table "public.orders"', '         Materialized view "public.total"'])
  })

  it('\\i runs a file: results, errors as rivulet:FILE:LINE:, meta-commands, a last statement without ;', async () => {
    const file = join(dir, 'script.sql')
    writeFileSync(file, ['CREATE TABLE t (k INT);', 'INSERT INTO t', '  VALUES (1), (2);', 'SELECT nope', '  FROM t;', '\\x', 'SELECT count(*) AS n FROM t', ''].join('\n'))
    const h = harness()
    await h.feed(`\\i ${file}`)
    expect(h.out()).toBe('CREATE TABLE\nINSERT 0 2\nExpanded display is on.\n-[ RECORD 1 ]\nn | 2\n\n')
    expect(h.err()).toBe(`rivulet:${file}:5: ERROR:  column "nope" does not exist\nLINE 1: SELECT nope\n               ^\n`)
    h.reset()
    await h.feed('\\i /no/such/file.sql')
    expect(h.err()).toBe('/no/such/file.sql: No such file or directory\n')
    const quits = join(dir, 'quits.sql')
    writeFileSync(quits, 'SELECT 1;\n\\q\nSELECT 2;\n')
    expect(await harness().session.feedLine(`\\i ${quits}`)).toBe('quit')
  })

  it('\\i shows a progress bar on a terminal (statements done / total), none when piped', async () => {
    const file = join(dir, 'many.sql')
    writeFileSync(file, ['CREATE TABLE t (k INT);', ...Array.from({ length: 40 }, (_, i) => `INSERT INTO t VALUES (${i});`)].join('\n'))
    let t = 0
    const tty = harness({ tty: true, progressDelayMs: 0, now: () => (t += 50) })
    await tty.feed(`\\i ${file}`)
    expect(tty.out()).toMatch(/\r\x1b\[K\\i \S+many\.sql \[#*\.*\] +\d+\/41 statements +\d+%/)
    expect(tty.out().endsWith('INSERT 0 1\n') || tty.out().endsWith('\r\x1b[K')).toBe(true) // the bar is erased at the end
    expect(tty.out().split('INSERT 0 1\n').length - 1).toBe(40) // every result still printed
    const piped = harness({ tty: false, progressDelayMs: 0, now: () => (t += 50) })
    await piped.feed(`\\i ${file}`)
    expect(piped.out()).not.toContain('\r')
    expect(piped.out()).toBe(`CREATE TABLE\n${'INSERT 0 1\n'.repeat(40)}`)
  })
})

describe('COPY progress', () => {
  it('a COPY of a file shows a bar of the bytes read on a terminal, erased at the end; none when piped', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rivulet-repl-copy-')), 'rows.csv')
    writeFileSync(file, Array.from({ length: 20000 }, (_, i) => `${i},row number ${i}`).join('\n') + '\n')
    const saved = copyReadChunk.bytes
    copyReadChunk.bytes = 16 * 1024
    try {
      let t = 0
      const tty = harness({ tty: true, progressDelayMs: 0, now: () => (t += 200) })
      await tty.feed('CREATE TABLE r (k INT PRIMARY KEY, v TEXT);', `COPY r FROM '${file}' WITH (FORMAT csv);`)
      expect(tty.out()).toMatch(/\r\x1b\[KCOPY r \[#*\.*\] +\d+\/\d+ KiB +\d+%/)
      expect(tty.out().endsWith('\r\x1b[KCOPY 20000\n')).toBe(true)
      const piped = harness({ tty: false, progressDelayMs: 0, now: () => (t += 200) })
      await piped.feed('CREATE TABLE r (k INT PRIMARY KEY, v TEXT);', `COPY r FROM '${file}' WITH (FORMAT csv);`)
      expect(piped.out()).toBe('CREATE TABLE\nCOPY 20000\n')
    } finally {
      copyReadChunk.bytes = saved
    }
  })
})

describe('backfill progress', () => {
  it('a view over a large table shows the input rows delivered while it backfills, on a terminal only', async () => {
    let t = 0
    const engine = Engine.open()
    engine.execute('CREATE TABLE big (k INT PRIMARY KEY, g INT)')
    engine.insert('big', Array.from({ length: 300_000 }, (_, i) => [i, i % 7]))
    const tty = harness({ tty: true, progressDelayMs: 0, now: () => (t += 200) }, engine)
    await tty.feed('CREATE MATERIALIZED VIEW per_g AS SELECT g, count(*) AS n FROM big GROUP BY g;')
    expect(tty.out()).toMatch(/\r\x1b\[Kbackfill per_g \[#*\.*\] +\d+\/300000 rows +\d+%/)
    expect(tty.out().endsWith('\r\x1b[KCREATE MATERIALIZED VIEW\n')).toBe(true)
    const piped = harness({ tty: false, progressDelayMs: 0, now: () => (t += 200) }, engine)
    await piped.feed('CREATE MATERIALIZED VIEW per_g2 AS SELECT g, count(*) AS n FROM big GROUP BY g;')
    expect(piped.out()).toBe('CREATE MATERIALIZED VIEW\n')
  })
})

describe('SUBSCRIBE', () => {
  it('prints the snapshot, then changes as they happen, until interrupted; the session goes on', async () => {
    let now = Date.UTC(2024, 0, 1, 12, 0, 0)
    const engine = Engine.open({ clock: () => now })
    const h = harness({ refreshMs: 10 }, engine)
    await h.feed(
      'CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMP);',
      "CREATE MATERIALIZED VIEW recent AS SELECT id FROM ev WHERE ts > NOW() - INTERVAL '1' MINUTE;",
      "INSERT INTO ev VALUES (1, '2024-01-01 11:59:30'), (2, '2024-01-01 11:58:00');",
    )
    h.reset()
    const running = h.session.feedLine('SUBSCRIBE recent;')
    expect(h.session.streaming).toBe(true)
    expect(engine.tick).toBe(1)
    expect(h.out()).toBe(' tick | diff | id \n------+------+----\n    1 |    1 |  1\n')
    engine.execute("INSERT INTO ev VALUES (3, '2024-01-01 12:00:00')") // a change from elsewhere
    expect(h.out()).toContain('    2 |    1 |  3\n')
    now += 45_000 // event 1 leaves the last minute: the periodic refresh retracts it
    await new Promise((r) => setTimeout(r, 80))
    expect(h.out()).toMatch(/ +\d+ \| +-1 \| +1\n$/)
    expect(h.session.interrupt()).toBe(true)
    expect(await running).toBe('continue')
    expect(h.session.streaming).toBe(false)
    expect(h.out()).toMatch(/\(3 rows\)\n\n$/)
    // a query subscription (a hidden view, dropped by stop()); the session continues
    const second = h.session.feedLine('SUBSCRIBE (SELECT id FROM ev);')
    expect(h.session.streaming).toBe(true)
    expect(h.out()).toMatch(/ tick \| diff \| id \n------\+------\+----\n( +3 \| +1 \| +[123]\n){3}$/)
    h.session.interrupt()
    await second
    expect(h.engine.relations().map((r) => r.name).sort()).toEqual(['ev', 'recent'])
    expect(await h.feed('SELECT count(*) AS n FROM recent;')).toBe(' n \n---\n 1\n(1 row)\n\n')
  })

  it('with piped input it prints the current rows and returns; errors are reported like any statement', async () => {
    const h = harness({ interactive: false })
    await h.feed("CREATE TABLE t (k INT, v TEXT); INSERT INTO t VALUES (1, 'a'), (22, 'bb');")
    h.reset()
    expect(await h.feed('SUBSCRIBE t;')).toBe(' tick | diff | k  | v  \n------+------+----+----\n    1 |    1 |  1 | a\n    1 |    1 | 22 | bb\n(2 rows)\n\n')
    h.reset()
    await h.feed('SUBSCRIBE nope;')
    expect(h.err()).toBe('ERROR:  relation "nope" does not exist\nLINE 1: SUBSCRIBE nope;\n                  ^\n')
    // inside a transaction block the prompt follows whether the engine aborted the block
    await h.feed('BEGIN;', 'SUBSCRIBE nope;')
    expect(h.session.prompt()).toBe('rivulet=*> ')
    // a query subscription's hidden view belongs to the engine, not to the block: it runs
    await h.feed('SUBSCRIBE (SELECT k FROM t);')
    expect(h.out()).toContain('(2 rows)')
    expect(h.session.prompt()).toBe('rivulet=*> ')
    await h.feed('SELECT nope FROM t;')
    expect(h.session.prompt()).toBe('rivulet=!> ')
    await h.feed('ROLLBACK;')
    expect(h.session.prompt()).toBe('rivulet=> ')
  })
})

describe('completion', () => {
  const db = Engine.open()
  db.execute("CREATE TABLE orders (order_id INT PRIMARY KEY, amount INT); CREATE TABLE other (x INT); CREATE MATERIALIZED VIEW totals AS SELECT sum(amount) AS s FROM orders")
  const rels = db.relations()

  it('keywords at the start, in the case typed (psql preserve-upper)', () => {
    expect(complete('SEL', '', rels)).toEqual([['SELECT '], 'SEL'])
    expect(complete('sel', '', rels)).toEqual([['select '], 'sel'])
    expect(complete('', '', rels)[0]).toContain('SUBSCRIBE')
    expect(complete('CREATE MAT', '', rels)).toEqual([['CREATE MATERIALIZED VIEW '.slice(7)], 'MAT'])
    expect(complete('insert ', '', rels)).toEqual([['INTO '], '']) // nothing typed: upper case
    expect(complete('insert i', '', rels)).toEqual([['into '], 'i'])
  })

  it('relation names after FROM / JOIN / SUBSCRIBE / \\d, column names in clauses', () => {
    expect(complete('SELECT * FROM ord', '', rels)).toEqual([['orders '], 'ord'])
    expect(complete('SELECT * FROM o', '', rels)).toEqual([['orders', 'other'], 'o'])
    expect(complete('FROM orders JOIN to', 'SELECT *', rels)).toEqual([['totals '], 'to'])
    expect(complete('SUBSCRIBE tot', '', rels)).toEqual([['totals '], 'tot'])
    expect(complete('\\d or', '', rels)).toEqual([['orders '], 'or'])
    expect(complete('\\dm ', '', rels)).toEqual([['totals '], ''])
    expect(complete('SELECT * FROM orders WHERE amo', '', rels)).toEqual([['amount '], 'amo'])
    expect(complete('SELECT * FROM orders WHERE ord', '', rels)).toEqual([['order by', 'order_id'], 'ord'])
    expect(complete('SELECT * FROM other WHERE ', '', rels)[0]).toContain('x') // only the columns of the relations named
    expect(complete('SELECT * FROM other WHERE ', '', rels)[0]).not.toContain('amount')
    expect(complete('SELECT o.am', '', rels)[0]).toEqual([]) // alias unknown until FROM is typed
    expect(complete('WHERE o.am', 'SELECT * FROM orders o', rels)).toEqual([['o.amount '], 'o.am'])
    expect(complete('DROP TABLE o', '', rels)).toEqual([['orders', 'other'], 'o'])
    expect(complete('DROP MATERIALIZED VIEW ', '', rels)).toEqual([['totals '], ''])
  })

  it('meta-commands after a backslash', () => {
    expect(complete('\\ti', '', rels)).toEqual([['\\timing '], '\\ti'])
    expect(complete('\\d', '', rels)[0]).toEqual(['\\d', '\\dm', '\\ds', '\\dt', '\\dv'])
    expect(complete('\\x a', '', rels)).toEqual([['auto '], 'a'])
  })
})

describe('pieces', () => {
  it('scan finds backslash commands outside quotes and tracks the lexical state', () => {
    expect(scan("SELECT '\\x' \\x").backslash).toBe(12)
    expect(scan("SELECT E'\\'' \\x").backslash).toBe(13)
    expect(scan('SELECT 1; /* \\x */ \\d').backslash).toBe(19)
    expect(promptChar(scan('SELECT ((').state)).toBe('(')
    expect(scan('SELECT 1;').state.content).toBe(false)
    expect(scan('SELECT a$b$ FROM t').state.mode).toBe('normal')
  })

  it('parseMeta splits the command and its arguments', () => {
    expect(parseMeta('d+ orders')).toMatchObject({ name: 'd+', args: ['orders'] })
    expect(parseMeta("i 'my file.sql'")).toMatchObject({ name: 'i', args: ['my file.sql'] })
    expect(parseMeta('?')).toMatchObject({ name: '?', args: [] })
    expect(parseMeta('d "Mixed Case"')).toMatchObject({ name: 'd', args: ['"Mixed Case"'] })
  })

  it('the progress bar waits, throttles, and prints output above itself', () => {
    let t = 0
    let screen = ''
    const bar = new ProgressBar((s) => (screen += s), 100, { enabled: true, unit: 'statements', label: 'load', columns: 80, now: () => t })
    bar.update(1)
    expect(screen).toBe('') // not before 300 ms
    t = 400
    bar.update(50)
    expect(screen).toBe('\r\x1b[Kload [###################...................]   50/100 statements   50%  ETA 0s')
    t = 450
    bar.update(60)
    expect(screen.split('\r\x1b[K').length).toBe(2) // throttled
    bar.print('INSERT 0 1\n')
    expect(screen.endsWith('\r\x1b[KINSERT 0 1\nload [###################...................]   50/100 statements   50%  ETA 0s')).toBe(true)
    bar.clear()
    expect(screen.endsWith('\r\x1b[K')).toBe(true)
    expect(formatDuration(65_000)).toBe('1m05s')
    const off = new ProgressBar((s) => (screen += s), 10, { enabled: false, unit: 'x', now: () => 1e9 })
    const before = screen
    off.update(5)
    expect(screen).toBe(before)
  })
})

describe('EXPLAIN at a terminal', () => {
  it('puts the annotations of a line wider than the terminal on lines of their own; piped, lines stay whole', async () => {
    const setup = ['CREATE TABLE t (k int PRIMARY KEY, g int);', 'CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n FROM t GROUP BY g;']
    const tty = harness({ tty: true, columns: () => 60 })
    await tty.feed(...setup)
    const shown = (await tty.feed('EXPLAIN MATERIALIZED VIEW v;')).split('\n')
    expect(shown.some((l) => /^ {3,}\[op \d+: groups keyed by/.test(l))).toBe(true)
    const piped = harness({ tty: false })
    await piped.feed(...setup)
    const whole = (await piped.feed('EXPLAIN MATERIALIZED VIEW v;')).split('\n')
    expect(whole.some((l) => /Reduce .*\[op \d+: groups keyed by/.test(l))).toBe(true)
  })
})
