// The REPL commands of issue 18 driven with plain strings (src/repl/session.ts): psql's
// help / quit / exit words, \echo, \set / \unset and :variables, \conninfo, \l, \h, \copy,
// the SUBSCRIBE header printed again as values widen, and the demo's frames and change lines.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from '../../grammar/index.js'
import { abbreviate, fitFrame, runDemo } from '../../src/cli/demo.js'
import { Engine } from '../../src/engine/engine.js'
import { scan } from '../../src/repl/buffer.js'
import { SHORT_HELP, helpText, parseMeta } from '../../src/repl/meta.js'
import { ReplSession, type SessionOptions } from '../../src/repl/session.js'
import { SQL_HELP_COMMANDS, sqlHelp } from '../../src/repl/sql-help.js'

const dir = mkdtempSync(join(tmpdir(), 'rivulet-repl-commands-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function harness(opts: Partial<SessionOptions> = {}, engine = Engine.open()) {
  let out = ''
  let err = ''
  let screen = ''
  const session = new ReplSession({ engine, out: (s) => ((out += s), (screen += s)), err: (s) => ((err += s), (screen += s)), interactive: true, ...opts })
  return {
    session,
    engine,
    out: () => out,
    err: () => err,
    reset: () => void (out = err = ''),
    /** Feeds lines; returns what they printed (stdout and stderr as a terminal shows them). */
    async feed(...lines: string[]): Promise<string> {
      const before = screen.length
      for (const l of lines) await session.feedLine(l)
      return screen.slice(before)
    },
  }
}

describe('help, quit and exit at the prompt (psql 15 mainloop.c)', () => {
  it('help on an empty buffer prints the short help; quit / exit (optionally with ;) leave', async () => {
    const h = harness()
    expect(await h.feed('help')).toBe(SHORT_HELP)
    expect(SHORT_HELP).toBe(
      'You are using rivulet, the command-line interface to rivulet.\n' +
        'Type:  \\h for help with SQL commands\n' +
        '       \\? for help with rivulet commands\n' +
        '       \\g or terminate with semicolon to execute query\n' +
        '       \\q to quit\n',
    )
    expect(await h.feed('HELP ;  ')).toBe(SHORT_HELP)
    for (const word of ['quit', 'exit', 'QUIT;', 'exit ; ', 'Quit\t']) expect(await harness().session.feedLine(word)).toBe('quit')
  })

  it('with something in the buffer they only say how, and the line is part of the statement', async () => {
    const h = harness()
    await h.feed('SELECT 1 AS a')
    expect(await h.feed('quit')).toBe('Use \\q to quit.\n')
    expect(h.session.buffer).toBe('SELECT 1 AS a\nquit')
    expect(await h.feed('help')).toBe('Use \\? for help or press control-C to clear the input buffer.\n')
    h.session.interrupt()
    // inside parentheses: still \q; inside a quoted string or a comment: control-D
    await h.feed('SELECT (1')
    expect(await h.session.feedLine('exit')).toBe('continue')
    expect(h.out()).toMatch(/Use \\q to quit\.\n$/)
    h.session.interrupt()
    await h.feed("SELECT 'abc")
    expect(await h.feed('quit')).toBe('Use control-D to quit.\n')
    expect(await h.session.feedLine('\\q')).toBe('continue') // text inside the string
    expect(h.out()).toMatch(/Use control-D to quit\.\n$/)
    expect(h.session.prompt()).toBe("rivulet'> ")
    h.session.interrupt()
    await h.feed('/* note')
    expect(await h.feed('quit;')).toBe('Use control-D to quit.\n')
  })

  it('only the word alone at the start of the line: indented or followed by more, it is SQL', async () => {
    const h = harness()
    expect(await h.session.feedLine(' quit')).toBe('continue')
    expect(h.session.prompt()).toBe('rivulet-> ')
    h.session.interrupt()
    expect(await h.session.feedLine('quit now')).toBe('continue')
    expect(await h.session.feedLine('helpme')).toBe('continue')
    expect(h.out()).toBe('')
  })

  it('piped input and \\i files: just SQL (a syntax error), no quitting', async () => {
    const piped = harness({ interactive: false })
    expect(await piped.session.feedLine('quit')).toBe('continue')
    await piped.session.feedLine('help;')
    expect(piped.out()).toBe('')
    expect(piped.err()).toBe('ERROR:  syntax error at or near "quit"\nLINE 1: quit\n        ^\n')
    const file = join(dir, 'words.sql')
    writeFileSync(file, 'quit;\nSELECT 2 AS two;\n')
    const h = harness()
    expect(await h.session.feedLine(`\\i ${file}`)).toBe('continue')
    expect(h.err()).toMatch(/^rivulet:\S+words\.sql:1: ERROR: /)
    expect(h.out()).toBe(' two \n-----\n   2\n(1 row)\n\n')
  })
})

describe('\\echo and \\set', () => {
  it('\\echo joins its arguments read with psql quoting; -n leaves out the newline', async () => {
    const h = harness()
    expect(await h.feed('\\echo hello   world')).toBe('hello world\n')
    expect(await h.feed("\\echo 'two  spaces' \"kept quotes\" it''s 'it''s' 'tab\\there' 'a'b")).toBe("two  spaces \"kept quotes\" its it's tab\there ab\n")
    expect(await h.feed('\\echo -n no newline', '\\echo')).toBe('no newline\n')
    expect(await h.feed("\\echo '\\101\\x42\\n'")).toBe('AB\n\n')
  })

  it('\\set lists, sets (values joined), \\unset removes; :name, :\'name\', :"name" in \\echo', async () => {
    const h = harness()
    expect(await h.feed('\\set')).toBe('')
    expect(await h.feed('\\set a 1 2 3', '\\set empty', "\\set q 'it''s'", '\\set')).toBe("a = '123'\nempty = ''\nq = 'it's'\n")
    expect(await h.feed("\\echo :a :'a' :\"q\" :'q' ':a' :nope")).toBe("123 '123' \"it's\" 'it''s' :a :nope\n")
    expect(await h.feed('\\unset a', '\\echo :a')).toBe(':a\n')
    expect(await h.feed('\\unset')).toBe('\\unset: missing required argument\n')
    expect(await h.feed('\\set "a b" 1')).toBe('invalid variable name: ""a b""\n')
  })

  it('variables in SQL outside quotes and comments, through the query buffer scanner', async () => {
    const h = harness()
    await h.feed('\\set n 42', "\\set who 'O''Brien'", "\\set col 'Mixed Col'", "\\set path 'C:\\\\dir'", '\\set text int')
    expect(await h.feed('SELECT :n AS x, :\'who\' AS who, 1 AS :"col";')).toBe(' x  |   who   | Mixed Col \n----+---------+-----------\n 42 | O\'Brien |         1\n(1 row)\n\n')
    // not inside strings, identifiers or comments; `::` is a cast; unknown names stay
    expect(await h.feed("SELECT ':n' AS s, 5::text AS t /* :n */, \":n\" FROM (SELECT 1 AS \":n\") AS q;")).toBe(' s  | t | :n \n----+---+----\n :n | 5 |  1\n(1 row)\n\n')
    expect(await h.feed("SELECT :'path' AS p;")).toBe('   p    \n--------\n C:\\dir\n(1 row)\n\n')
    expect(await h.feed('SELECT :nope;')).toMatch(/^ERROR: /)
    // a value is lexed as part of the statement (a `;` in it ends the statement); it may name
    // other variables, not itself
    await h.feed("\\set two '2 AS b; SELECT :n AS c, :two AS d'")
    expect(await h.feed('SELECT 1 AS a, :two;')).toBe(' a | b \n---+---\n 1 | 2\n(1 row)\n\n' + 'ERROR:  Expected an expression, found ":"\nLINE 1: SELECT 42 AS c, :two AS d;\n                        ^\n')
  })

  it('scan() without variables leaves the text alone and reports the interpolated text with them', () => {
    expect(scan('SELECT :x').text).toBe('SELECT :x')
    const vars = new Map([
      ['x', 'ab'],
      ['y', "it's"],
    ])
    expect(scan('SELECT :x, :\'y\', :"y", \':x\'', undefined, vars).text).toBe('SELECT ab, \'it\'\'s\', "it\'s", \':x\'')
    // a value is lexed with the statement (psql pushes it onto its lexer): its quote opens a string
    expect(scan('SELECT :y', undefined, vars).state.mode).toBe('single')
  })

  it('parseMeta: psql argument quoting, and the rest of the line for whole-line commands', () => {
    expect(parseMeta("echo 'a b'c \"d e\"")).toEqual({ name: 'echo', args: ['a bc', '"d e"'], rest: " 'a b'c \"d e\"" })
    expect(parseMeta('set x :y', new Map([['y', 'v']])).args).toEqual(['x', 'v'])
    expect(parseMeta("copy t FROM 'f.csv' WITH (FORMAT csv)").rest).toBe(" t FROM 'f.csv' WITH (FORMAT csv)")
  })
})

describe('\\conninfo, \\l, \\?', () => {
  it('\\conninfo says what the REPL is connected to', async () => {
    expect(await harness().feed('\\conninfo')).toBe('You are connected to the embedded rivulet engine (in memory).\n')
    expect(await harness({ dataDir: '/srv/riv' }).feed('\\conninfo')).toBe('You are connected to the embedded rivulet engine (data directory "/srv/riv").\n')
  })

  it('\\l lists the one database with psql 15\'s columns', async () => {
    expect(await harness().feed('\\l')).toBe(
      [
        `${' '.repeat(41)}List of databases`,
        '  Name   |  Owner  | Encoding | Collate | Ctype | ICU Locale | Locale Provider | Access privileges ',
        '---------+---------+----------+---------+-------+------------+-----------------+-------------------',
        ' rivulet | rivulet | UTF8     | C       | C     |            | libc            | ',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('\\? lists the new commands', () => {
    const help = helpText('off', false)
    for (const c of ['\\h [NAME]', '\\copy ...', '\\echo [-n] [STRING]', '\\set [NAME [VALUE]]', '\\unset NAME', '\\conninfo', '\\l ', 'quit / exit']) expect(help).toContain(c)
  })
})

describe('\\h', () => {
  it('no argument: the commands in columns (psql layout), to the terminal width', async () => {
    const list = await harness({ columns: () => 80 }).feed('\\h')
    expect(list.startsWith(`Available help:\n  ABORT${' '.repeat(20)}CREATE VIEW${' '.repeat(14)}FLUSH\n  BEGIN`)).toBe(true)
    expect(list.endsWith('\n\n')).toBe(true)
    for (const c of SQL_HELP_COMMANDS) expect(list).toContain(c)
    for (const line of list.split('\n')) expect(line.length).toBeLessThanOrEqual(80)
    expect(sqlHelp('', 40).split('\n')[1]).toBe('  ABORT')
  })

  it('a command: Command, Description, Syntax; prefixes and first words as psql looks them up', () => {
    expect(sqlHelp('delete')).toBe('Command:     DELETE\nDescription: delete rows of a table\nSyntax:\nDELETE FROM table_name [ [ AS ] alias ]\n    [ WHERE condition ]\n\n')
    expect(sqlHelp('create materialized view').split('\n').slice(0, 3)).toEqual(['Command:     CREATE MATERIALIZED VIEW', 'Description: define a new materialized view, maintained incrementally', 'Syntax:'])
    const names = (s: string): string[] => s.match(/^Command: +(.*)$/gm)!.map((l) => l.replace(/^Command: +/, ''))
    expect(names(sqlHelp('drop'))).toEqual(['DROP INDEX', 'DROP MATERIALIZED VIEW', 'DROP SINK', 'DROP SOURCE', 'DROP STREAM', 'DROP TABLE', 'DROP TRIGGER', 'DROP VIEW'])
    expect(names(sqlHelp('create s'))).toEqual(['CREATE SINK', 'CREATE SOURCE', 'CREATE STREAM'])
    expect(names(sqlHelp('create view x'))).toEqual(['CREATE VIEW'])
    expect(names(sqlHelp('begin work'))).toEqual(['BEGIN'])
    expect(names(sqlHelp('select;'))).toEqual(['SELECT'])
    expect(names(sqlHelp('*')).length).toBe(SQL_HELP_COMMANDS.length)
    expect(sqlHelp('vacuum')).toBe('No help available for "vacuum".\nTry \\h with no arguments to see available help.\n')
  })

  it('every command in \\h is one the parser takes (an example of each parses to its kind)', () => {
    const examples: Record<string, string> = {
      ABORT: 'ABORT WORK',
      BEGIN: 'BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE',
      CHECKPOINT: 'CHECKPOINT',
      COMMIT: 'COMMIT',
      COPY: "COPY t (a, b) FROM 'f.csv' WITH (FORMAT csv, HEADER, MAX_REJECTED = 3)",
      'CREATE INDEX': 'CREATE UNIQUE INDEX IF NOT EXISTS i ON t USING btree (a DESC NULLS LAST, (a + 1))',
      'CREATE MATERIALIZED VIEW': 'CREATE OR REPLACE MATERIALIZED VIEW IF NOT EXISTS v (x) AS SELECT 1',
      'CREATE SINK': "CREATE SINK IF NOT EXISTS k FROM v WITH (connector = 'blackhole')",
      'CREATE SOURCE': "CREATE SOURCE s WITH (connector = 'nexmark', events = 10, seed = 1)",
      'CREATE STREAM': "CREATE STREAM s (ts TIMESTAMP NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (retention = '1 minute')",
      'CREATE TABLE': "CREATE TABLE IF NOT EXISTS t (a INT CONSTRAINT c NOT NULL DEFAULT 1 UNIQUE, b TEXT, CONSTRAINT pk PRIMARY KEY (a)) APPEND ONLY WITH (history = false)",
      'CREATE TRIGGER': 'CREATE TRIGGER tr AFTER UPDATE OF a ON t FOR EACH ROW WHEN 1 = 1 BEGIN SELECT 1; END',
      'CREATE VIEW': 'CREATE VIEW v AS SELECT 1',
      DELETE: 'DELETE FROM t AS x WHERE x.a = 1',
      'DROP INDEX': 'DROP INDEX IF EXISTS i, j CASCADE',
      'DROP MATERIALIZED VIEW': 'DROP MATERIALIZED VIEW v RESTRICT',
      'DROP SINK': 'DROP SINK k',
      'DROP SOURCE': 'DROP SOURCE s',
      'DROP STREAM': 'DROP STREAM s',
      'DROP TABLE': 'DROP TABLE t',
      'DROP TRIGGER': 'DROP TRIGGER tr',
      'DROP VIEW': 'DROP VIEW v',
      END: 'END TRANSACTION',
      EXPLAIN: 'EXPLAIN VERBOSE PHYSICAL PLAN FOR SELECT 1',
      FLUSH: 'FLUSH',
      INSERT: 'INSERT OR IGNORE INTO t (a) VALUES (1), (2) ON CONFLICT (a) DO UPDATE SET a = 2 WHERE a > 0 RETURNING a AS x',
      REINDEX: 'REINDEX TABLE t',
      ROLLBACK: 'ROLLBACK WORK',
      SELECT: "WITH RECURSIVE c (n) AS (SELECT 1) SELECT DISTINCT ON (a) a AS x FROM t FOR SYSTEM_TIME AS OF NOW() AS y (a) NATURAL LEFT OUTER JOIN u ASOF LEFT JOIN w ON true CROSS JOIN HOP(TABLE b, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND) WHERE a > 0 GROUP BY a HAVING count(*) > 1 UNION ALL SELECT 1 ORDER BY 1 DESC NULLS FIRST OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY EMIT ON WINDOW CLOSE",
      SET: 'SET SESSION statement_timeout TO DEFAULT',
      SHOW: 'SHOW MATERIALIZED VIEWS',
      'START TRANSACTION': 'START TRANSACTION READ ONLY',
      SUBSCRIBE: 'SUBSCRIBE TO (SELECT 1) WITH (SNAPSHOT = false)',
      UPDATE: 'UPDATE t AS x SET a = 1, b = 2 FROM u WHERE x.a = u.a',
      VALUES: 'VALUES (1, 2), (3, 4) ORDER BY 1 LIMIT ALL OFFSET 1',
      WITH: 'WITH c AS (SELECT 1) SELECT * FROM c',
    }
    expect(Object.keys(examples).sort()).toEqual([...SQL_HELP_COMMANDS].sort())
    for (const [cmd, sql] of Object.entries(examples)) {
      expect(() => parse(sql), cmd).not.toThrow()
      expect(sqlHelp(cmd).startsWith(`Command:     ${cmd}\n`)).toBe(true)
    }
  })
})

describe('\\copy', () => {
  it('FROM a local file: COPY … FROM STDIN through the engine (options, columns, rejects)', async () => {
    const csv = join(dir, 'in.csv')
    writeFileSync(csv, 'k,v\n1,one\n2,"two, too"\nx,bad\n')
    const h = harness()
    await h.feed('CREATE TABLE t (k INT PRIMARY KEY, v TEXT);')
    h.reset()
    expect(await h.feed(`\\copy t FROM '${csv}' WITH (FORMAT csv, HEADER)`)).toBe('NOTICE:  1 record rejected: see rivulet_rejected\nCOPY 2\n')
    expect(await h.feed('SELECT * FROM t ORDER BY k;')).toBe(' k |    v     \n---+----------\n 1 | one\n 2 | two, too\n(2 rows)\n\n')
    const tsv = join(dir, 'in.tsv')
    writeFileSync(tsv, '7\n')
    expect(await h.feed(`\\copy t (k) from '${tsv}'`)).toBe('COPY 1\n')
    expect(await h.feed("\\copy t FROM 'no-such-file.csv'")).toBe('no-such-file.csv: No such file or directory\n')
  })

  it('TO a local file: a table or a query, text or CSV; the file holds what COPY TO STDOUT sends', async () => {
    const h = harness()
    await h.feed("CREATE TABLE t (k INT, v TEXT); INSERT INTO t VALUES (1, 'a\tb'), (2, NULL), (3, 'x,\"y\"');")
    const text = join(dir, 'out.txt')
    expect(await h.feed(`\\copy t TO '${text}'`)).toBe('COPY 3\n')
    expect(readFileSync(text, 'utf8')).toBe('1\ta\\tb\n2\t\\N\n3\tx,"y"\n')
    const csv = join(dir, 'out.csv')
    expect(await h.feed(`\\copy (SELECT k, v FROM t WHERE k > 1 ORDER BY k) TO '${csv}' WITH (FORMAT csv, HEADER)`)).toBe('COPY 2\n')
    expect(readFileSync(csv, 'utf8')).toBe('k,v\n2,\n3,"x,""y"""\n')
    expect(await h.feed(`\\copy t (v) TO '${csv}' (FORMAT csv, NULL 'none')`)).toBe('COPY 3\n')
    expect(readFileSync(csv, 'utf8')).toBe('a\tb\nnone\n"x,""y"""\n')
  })

  it('refusals and errors: no arguments, STDIN/STDOUT, SUBSCRIBE, bad options, SQL errors with a caret', async () => {
    const h = harness()
    await h.feed('CREATE TABLE t (k INT);')
    writeFileSync(join(dir, 'in.tsv'), '7\n')
    h.reset()
    expect(await h.feed('\\copy')).toBe('\\copy: arguments required\n')
    expect(await h.feed('\\copy t FROM STDIN')).toMatch(/^\\copy: name a file/)
    expect(await h.feed("\\copy (SUBSCRIBE t) TO 'x'")).toMatch(/^\\copy: \(SUBSCRIBE …\) TO a file is not supported/)
    expect(await h.feed(`\\copy t TO '${join(dir, 'x')}' (QUOTE '"')`)).toBe('\\copy: COPY option "quote" is not supported with TO (format, header, delimiter, null)\n')
    expect(await h.feed(`\\copy nope FROM '${join(dir, 'in.tsv')}'`)).toMatch(/^ERROR: {2}relation "nope" does not exist\n/)
    expect(await h.feed('\\copy t FROM data.csv')).toMatch(/^ERROR: {2}.*\nLINE 1: COPY t FROM data\.csv\n/)
    expect(await h.feed(`\\copy (SELECT nope) TO '${join(dir, 'x')}'`)).toMatch(/^ERROR: {2}column "nope" does not exist\nLINE 1: SELECT nope\n {15}\^\n$/)
  })
})

describe('SUBSCRIBE: the header is printed again when values widen', () => {
  it('a wider value: header and separator at the new widths, before the rows that need them', async () => {
    const h = harness({ refreshMs: 1000 })
    await h.feed("CREATE TABLE t (k INT, v TEXT); INSERT INTO t VALUES (1, 'aa');")
    h.reset()
    const running = h.session.feedLine('SUBSCRIBE t;')
    h.engine.execute("INSERT INTO t VALUES (2, 'bb')") // no wider: no new header
    h.engine.execute("INSERT INTO t VALUES (30, 'a much wider value'), (4, 'c')")
    h.engine.execute("INSERT INTO t VALUES (5, 'd')")
    h.session.interrupt()
    await running
    expect(h.out()).toBe(
      [
        ' tick | diff | k | v  ',
        '------+------+---+----',
        '    1 |    1 | 1 | aa',
        '    2 |    1 | 2 | bb',
        ' tick | diff | k  |         v          ',
        '------+------+----+--------------------',
        '    3 |    1 | 30 | a much wider value',
        '    3 |    1 |  4 | c',
        '    4 |    1 |  5 | d',
        '(5 rows)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('an empty snapshot: the first changes widen the header of the names', async () => {
    const h = harness({ interactive: true })
    await h.feed('CREATE TABLE t (name TEXT);')
    h.reset()
    const running = h.session.feedLine('SUBSCRIBE t;')
    h.engine.execute("INSERT INTO t VALUES ('abcdefgh')")
    h.session.interrupt()
    await running
    expect(h.out()).toBe(' tick | diff | name \n------+------+------\n tick | diff |   name   \n------+------+----------\n    1 |    1 | abcdefgh\n(1 row)\n\n')
  })
})

describe('demo frames and change lines', () => {
  it('abbreviate cuts to a width with …', () => {
    expect(abbreviate('short', 10)).toBe('short')
    expect(abbreviate('a longer text', 8)).toBe('a longe…')
    expect(abbreviate('日本語テキスト', 7)).toBe('日本語…')
  })

  it('fitFrame: never more lines than the terminal (less one for the cursor), rows left out counted', () => {
    const view = (n: number) => ({ title: 'v: a view', head: [' k ', '---'], rows: Array.from({ length: n }, (_, i) => ` ${i}`) })
    const frame = fitFrame(['status'], [view(10), view(10), view(2)], 24, 80).split('\n').slice(0, -1)
    expect(frame.length).toBe(23)
    expect(frame.filter((l) => l.startsWith('… '))).toEqual(['… 7 more', '… 7 more'])
    expect(fitFrame(['status'], [view(1)], 24, 80)).toBe('status\n\nv: a view\n k \n---\n 0\n')
    expect(fitFrame(['status', 's2'], [view(5), view(5), view(5)], 6, 80).split('\n').length - 1).toBe(5)
    for (const l of fitFrame(['x'.repeat(100)], [view(3)], 24, 40).split('\n')) expect(l.length).toBeLessThanOrEqual(40)
  })

  it('on a terminal: every frame fits 80×24 (and a small 40×12); piped: changes with column names', async () => {
    for (const [rows, columns] of [
      [24, 80],
      [12, 40],
    ] as const) {
      let out = ''
      await runDemo({ events: 6000, tty: true, pace: 1e9, size: () => ({ rows, columns }), out: (s) => (out += s) })
      const frames = out.split('\x1b[H\x1b[J').slice(1)
      expect(frames.length).toBe(3)
      for (const f of frames) {
        const lines = f.replace(/done: .*\n$/, '').split('\n').slice(0, -1)
        expect(lines.length).toBeLessThanOrEqual(rows - 1)
        for (const l of lines) expect([...l].length).toBeLessThanOrEqual(columns)
      }
      expect(frames[2]).toMatch(/done: 6,000 events in/)
    }
    let piped = ''
    await runDemo({ events: 20_000, report: 10_000, tty: false, out: (s) => (piped += s) })
    expect(piped).toMatch(/\n {4}\+ \(window_end=2015-07-1\d \d\d:\d\d:\d\d, auction=\d+, bids=\d+\)\n/)
    expect(piped).toMatch(/\n {4}- \(window_end=/)
    expect(piped).toMatch(/\n {4}\+ \(category=\d+, auctions=\d+, avg_price_usd=[\d.]+\)\n/)
  })
})
