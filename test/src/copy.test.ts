// COPY t [(cols)] FROM 'file' [WITH (...)] (src/engine/copy.ts): text and CSV formats, one tick per
// load through INSERT's path, malformed records in rivulet_rejected (line, byte offset, reason,
// record), max_rejected / ON_ERROR stop, streams, versioned tables, views, transactions,
// errors, chunk boundaries, and the CLI's NOTICE.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { copyReadChunk } from '../../src/connectors/copy-reader.js'
import { Engine } from '../../src/index.js'
import { rivuletError } from '../helpers/errors.js'

const dir = mkdtempSync(path.join(tmpdir(), 'rivulet-copy-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const defaultChunk = copyReadChunk.bytes
afterEach(() => {
  copyReadChunk.bytes = defaultChunk
})

let files = 0
/** Writes a fixture file; returns its absolute path. */
function file(content: string | Buffer, ext = 'csv'): string {
  const p = path.join(dir, `f${++files}.${ext}`)
  writeFileSync(p, content)
  return p
}

/** A SQL string literal. */
function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`
}

const error = rivuletError

function rejected(db: Engine, relation: string): unknown[][] {
  return db.query(`SELECT line, byte_offset, reason, record FROM rivulet_rejected WHERE relation = ${lit(relation)} ORDER BY line`).rows
}

describe('COPY FROM: formats', () => {
  it('reads CSV: header, quoted delimiters, doubled quotes, quoted newlines, "" vs empty (NULL)', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, a TEXT, b TEXT)')
    const f = file('k,a,b\n1,"x, y","say ""hi"""\n2,"",\n3,"two\nlines",plain\n4,a"b"c,"q"uo"ted"\n')
    const [r] = db.execute(`COPY t FROM ${lit(f)} WITH (FORMAT csv, HEADER)`)
    expect(r).toEqual({ command: 'COPY 4', rowCount: 4 })
    expect(db.query('SELECT k, a, b FROM t ORDER BY k').rows).toEqual([
      [1, 'x, y', 'say "hi"'],
      [2, '', null],
      [3, 'two\nlines', 'plain'],
      // a quote inside a field opens a quoted part, as in Postgres
      [4, 'abc', 'quoted'],
    ])
  })

  it('reads CSV with other delimiter, quote, escape and NULL; a quoted NULL marker is a string', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (a TEXT, b TEXT, c TEXT)')
    const f = file("'x;1';NA;'it\\'s \\\\ ok'\n'NA';'';plain\n")
    db.execute(`COPY t FROM ${lit(f)} WITH (FORMAT csv, DELIMITER ';', QUOTE '''', ESCAPE '\\', NULL 'NA')`)
    expect(db.query('SELECT a, b, c FROM t ORDER BY c').rows).toEqual([
      ['x;1', null, "it's \\ ok"],
      ['NA', '', 'plain'],
    ])
  })

  it('reads the text format: tabs, \\N, backslash escapes, CRLF, the end marker', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT, v TEXT)')
    const f = file('1\ta\\tb\\nc\\\\d\n2\t\\N\r\n3\t\n4\t\\x41\\x4a\\101\\7\\q\\\ttab\n\\.\n5\tignored\n', 'tsv')
    const [r] = db.execute(`COPY t FROM ${lit(f)}`)
    expect(r!.rowCount).toBe(4)
    expect(db.query('SELECT k, v FROM t ORDER BY k').rows).toEqual([
      [1, 'a\tb\nc\\d'],
      [2, null],
      [3, ''],
      [4, 'AJA\x07q\ttab'],
    ])
  })

  it('reads the text format with HEADER, another delimiter and NULL string; the old option spellings', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT, v TEXT)')
    const f = file('k|v\n1|-\n2|x\n', 'txt')
    db.execute(`COPY t FROM ${lit(f)} WITH (HEADER true, DELIMITER '|', NULL '-')`)
    db.execute(`COPY t FROM ${lit(f)} WITH DELIMITER '|' NULL AS 'x'`)
    expect(db.query('SELECT k, v FROM t ORDER BY k, v').rows).toEqual([
      [1, '-'],
      [1, null],
      [2, 'x'],
      [2, null],
    ])
    // the header line was data the second time: rejected
    expect(rejected(db, 't')).toEqual([[1, 0, 'column "k": invalid input syntax for type integer: "k"', 'k|v']])
  })

  it('converts with the input rules of casts from text', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (b BOOLEAN, s SMALLINT, n NUMERIC, r REAL, d DOUBLE PRECISION, day DATE, ts TIMESTAMP, iv INTERVAL)')
    const f = file(' yes , 12 ,1.50,1e3,-0.5,2024-02-29,2024-01-01 10:00:00.5,1 day 2 hours\n')
    db.execute(`COPY t FROM ${lit(f)} (FORMAT csv)`)
    const viaCast = db.query(
      "SELECT ' yes '::boolean, ' 12 '::smallint, '1.50'::numeric, '1e3'::real, '-0.5'::double precision, '2024-02-29'::date, '2024-01-01 10:00:00.5'::timestamp, '1 day 2 hours'::interval",
    ).rows
    expect(db.query('SELECT * FROM t').rows).toEqual(viaCast)
  })

  it('fills the columns not listed with their defaults (or NULL)', () => {
    const db = Engine.open()
    db.execute("CREATE TABLE t (k INT PRIMARY KEY, v TEXT DEFAULT 'dflt', n INT, w INT DEFAULT 2 * 21)")
    const f = file('5,1\n6,\n')
    db.execute(`COPY t (n, k) FROM ${lit(f)} WITH (FORMAT csv)`)
    expect(db.query('SELECT k, v, n, w FROM t').rows).toEqual([[1, 'dflt', 5, 42]])
    // the second record has a NULL key: rejected
    expect(rejected(db, 't')).toEqual([[2, 4, 'null value in column "k" of relation "t" violates not-null constraint', '6,']])
  })

  it('resolves a relative path against the working directory, and reports it as given', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT)')
    const rel = path.relative(process.cwd(), file('1\nx\n'))
    expect(path.isAbsolute(rel)).toBe(false)
    db.execute(`COPY t FROM ${lit(rel)}`)
    expect(db.query('SELECT source FROM rivulet_rejected').rows).toEqual([[rel]])
  })
})

describe('COPY FROM: rejected records', () => {
  function setup(): Engine {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v TEXT NOT NULL, n INT)')
    db.execute("INSERT INTO t VALUES (100, 'stored', 0)")
    return db
  }
  // every reason, with multi-byte characters before some records (offsets are in bytes)
  const lines = [
    '1,é€,10', // good
    '2,two', // too few fields
    '3,three,30,extra', // too many
    '4,four,x', // does not convert
    '5,,50', // NULL in a NOT NULL column
    '1,again,11', // key earlier in the file
    '100,old,0', // key stored already
    '6,"multi\nline",60', // good, two lines
    '7,"open,70', // unterminated quote: runs to the end of the file
    '8,eight,80',
  ]
  const content = lines.join('\n') + '\n'
  const offset = (prefix: string): number => Buffer.byteLength(content.slice(0, content.indexOf(prefix)))
  const expected = [
    [2, offset('2,two'), 'missing data for column "n"', '2,two'],
    [3, offset('3,three'), 'extra data after last expected column', '3,three,30,extra'],
    [4, offset('4,four'), 'column "n": invalid input syntax for type integer: "x"', '4,four,x'],
    [5, offset('5,,50'), 'null value in column "v" of relation "t" violates not-null constraint', '5,,50'],
    [6, offset('1,again'), 'duplicate key value violates unique constraint "t_pkey": Key (k)=(1) already exists.', '1,again,11'],
    [7, offset('100,old'), 'duplicate key value violates unique constraint "t_pkey": Key (k)=(100) already exists.', '100,old,0'],
    [10, offset('7,"open'), 'unterminated CSV quoted field', '7,"open,70\n8,eight,80'],
  ]

  it('records each bad record (line, byte offset, reason, record) and loads the rest', () => {
    const db = setup()
    const f = file(content)
    const [r] = db.execute(`COPY t FROM ${lit(f)} WITH (FORMAT csv)`)
    expect(r).toEqual({ command: 'COPY 2', rowCount: 2, notice: '7 records rejected: see rivulet_rejected' })
    expect(db.query('SELECT k, v, n FROM t ORDER BY k').rows).toEqual([
      [1, 'é€', 10],
      [6, 'multi\nline', 60],
      [100, 'stored', 0],
    ])
    expect(rejected(db, 't')).toEqual(expected)
    expect(db.query('SELECT DISTINCT relation, source FROM rivulet_rejected').rows).toEqual([['t', f]])
  })

  it('gives the same answer whatever the read chunk size (records straddling chunks)', () => {
    const f = file(content)
    for (const bytes of [1, 2, 3, 5, 8, 13, 64]) {
      copyReadChunk.bytes = bytes
      const db = setup()
      db.execute(`COPY t FROM ${lit(f)} WITH (FORMAT csv)`)
      expect(db.query('SELECT count(*) FROM t').rows, `chunk ${bytes}`).toEqual([[3]])
      expect(rejected(db, 't'), `chunk ${bytes}`).toEqual(expected)
    }
  })

  it('rejects bytes that are not UTF-8 (but keeps a real U+FFFD)', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT, v TEXT)')
    const f = file(Buffer.concat([Buffer.from('1,ok \uFFFD\n2,bad '), Buffer.from([0xc3, 0x28]), Buffer.from('\n3,fine\n')]))
    db.execute(`COPY t FROM ${lit(f)} WITH (FORMAT csv)`)
    expect(db.query('SELECT k, v FROM t ORDER BY k').rows).toEqual([
      [1, 'ok \uFFFD'],
      [3, 'fine'],
    ])
    expect(db.query('SELECT line, reason FROM rivulet_rejected').rows).toEqual([[2, 'column "v": invalid byte sequence for encoding "UTF8"']])
  })

  it('truncates the record text to 1000 characters', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT)')
    const f = file(`${'9'.repeat(3000)}x\n`)
    db.execute(`COPY t FROM ${lit(f)}`)
    const [[record]] = db.query('SELECT record FROM rivulet_rejected').rows as [[string]]
    expect(record).toBe('9'.repeat(1000))
  })

  it('max_rejected: more rejects fail the whole load; nothing is applied or recorded', () => {
    const db = setup()
    db.execute('CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM t')
    const f = file(content)
    const tick = db.tick
    const e = error(() => db.execute(`COPY t FROM ${lit(f)} WITH (FORMAT csv, max_rejected = 6)`))
    expect(e.code).toBe('22P04')
    expect(e.message).toBe('COPY t: more than max_rejected = 6 records rejected; nothing was loaded. The first, at line 2: missing data for column "n"')
    expect(db.tick).toBe(tick)
    expect(db.query('SELECT n FROM c').rows).toEqual([[1]])
    expect(db.query('SELECT count(*) FROM rivulet_rejected').rows).toEqual([[0]])
    // exactly at the limit: loads
    expect(db.execute(`COPY t FROM ${lit(f)} WITH (FORMAT csv, max_rejected = 7)`)[0]!.rowCount).toBe(2)
    expect(db.query('SELECT n FROM c').rows).toEqual([[3]])
  })

  it('max_rejected = 0 fails at the first bad record', () => {
    const db = setup()
    const e = error(() => db.execute(`COPY t FROM ${lit(file('9,nine,9\n10,ten,x\n'))} WITH (FORMAT csv, max_rejected 0)`))
    expect(e.code).toBe('22P04')
    expect(e.message).toContain('at line 2: column "n": invalid input syntax for type integer: "x"')
    expect(db.query('SELECT count(*) FROM t').rows).toEqual([[1]])
  })

  it('ON_ERROR stop: the first bad record fails the load with its own SQLSTATE, line and reason', () => {
    const db = setup()
    const conv = error(() => db.execute(`COPY t FROM ${lit(file('9,nine,9\n10,ten,x\n11,eleven\n'))} WITH (FORMAT csv, ON_ERROR stop)`))
    expect(conv.code).toBe('22P02')
    expect(conv.message).toBe('COPY t, line 2: column "n": invalid input syntax for type integer: "x"')
    expect(conv.detail).toBe('Record at byte offset 9: 10,ten,x')
    const fields = error(() => db.execute(`COPY t FROM ${lit(file('9,nine,9\n11,eleven\n'))} WITH (FORMAT csv, ON_ERROR stop)`))
    expect(fields.code).toBe('22P04')
    expect(fields.message).toBe('COPY t, line 2: missing data for column "n"')
    const dup = error(() => db.execute(`COPY t FROM ${lit(file('100,x,1\n'))} WITH (FORMAT csv, ON_ERROR 'stop')`))
    expect(dup.code).toBe('23505')
    expect(db.query('SELECT count(*) FROM t').rows).toEqual([[1]])
    expect(db.query('SELECT count(*) FROM rivulet_rejected').rows).toEqual([[0]])
    // ON_ERROR ignore is the default
    expect(db.execute(`COPY t FROM ${lit(file('9,nine,9\n10,ten,x\n'))} WITH (FORMAT csv, ON_ERROR ignore)`)[0]!.rowCount).toBe(1)
  })

  it('HEADER match checks the header against the columns', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT, v TEXT)')
    expect(db.execute(`COPY t FROM ${lit(file('k,v\n1,a\n'))} WITH (FORMAT csv, HEADER match)`)[0]!.rowCount).toBe(1)
    expect(db.execute(`COPY t (v, k) FROM ${lit(file('v,k\nb,2\n'))} WITH (FORMAT csv, HEADER match)`)[0]!.rowCount).toBe(1)
    const e = error(() => db.execute(`COPY t FROM ${lit(file('k,w\n1,a\n'))} WITH (FORMAT csv, HEADER match)`))
    expect([e.code, e.message]).toEqual(['22P04', 'column name mismatch in header line field 2: got "w", expected "v"'])
  })
})

describe('COPY FROM: ticks, views, streams, transactions', () => {
  it('is one tick: a view over the table changes once, with all the good rows', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, g TEXT)')
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n FROM t GROUP BY g')
    const batches: unknown[] = []
    db.subscribe('v', (b) => batches.push(b), { snapshot: false })
    const tick = db.tick
    db.execute(`COPY t FROM ${lit(file('1,a\n2,b\n3,a\nbad,a\n4,a\n'))} WITH (FORMAT csv)`)
    expect(db.tick).toBe(tick + 1)
    expect(batches).toEqual([
      {
        tick: tick + 1,
        columns: [
          { name: 'g', type: 'text' },
          { name: 'n', type: 'bigint' },
        ],
        changes: expect.arrayContaining([
          [['a', 3], 1],
          [['b', 1], 1],
        ]),
      },
    ])
    expect((batches[0] as { changes: unknown[] }).changes).toHaveLength(2)
  })

  it('makes rivulet_rejected readable from views, maintained as loads come in', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT)')
    db.execute('CREATE MATERIALIZED VIEW bad AS SELECT relation, count(*) AS n, max(line) AS last FROM rivulet_rejected GROUP BY relation')
    db.execute(`COPY t FROM ${lit(file('1\nx\n'))}`)
    expect(db.query('SELECT * FROM bad').rows).toEqual([['t', 1, 2]])
    db.execute(`COPY t FROM ${lit(file('y\n2\n3\nz\n'))}`)
    expect(db.query('SELECT * FROM bad').rows).toEqual([['t', 3, 4]])
    expect(db.relations().map((r) => r.name)).toEqual(['t', 'bad'])
  })

  it('inside BEGIN … ROLLBACK is undone with the rest (rejects included); COMMIT keeps it', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY)')
    db.execute('CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM t')
    const f = file('1\n2\nx\n')
    db.execute('BEGIN')
    db.execute('INSERT INTO t VALUES (2)')
    expect(db.execute(`COPY t FROM ${lit(f)}`)[0]!.rowCount).toBe(1)
    expect(db.query('SELECT k FROM t ORDER BY k').rows).toEqual([[1], [2]])
    expect(db.query('SELECT count(*) FROM rivulet_rejected').rows).toEqual([[2]])
    db.execute('ROLLBACK')
    expect(db.query('SELECT count(*) FROM t').rows).toEqual([[0]])
    expect(db.query('SELECT n FROM c').rows).toEqual([[0]])
    expect(db.query('SELECT count(*) FROM rivulet_rejected').rows).toEqual([[0]])
    db.execute('BEGIN')
    db.execute(`COPY t FROM ${lit(f)}`)
    db.execute('COMMIT')
    expect(db.query('SELECT n FROM c').rows).toEqual([[2]])
    // a failed COPY aborts the transaction block, as any error does
    db.execute('BEGIN')
    expect(error(() => db.execute(`COPY t FROM ${lit(f)} WITH (ON_ERROR stop)`)).code).toBe('23505')
    expect(error(() => db.execute('SELECT 1')).code).toBe('25P02')
    db.execute('ROLLBACK')
  })

  it('streams: late rows go to rivulet_late_events (not rejected), keys are not checked for them', () => {
    const db = Engine.open()
    db.execute("CREATE TABLE s (id INT PRIMARY KEY, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE) APPEND ONLY")
    db.execute("INSERT INTO s VALUES (1, '2024-01-01 00:10:00')")
    expect(db.watermark('s')).toBe('2024-01-01 00:09:00')
    const f = file('2,2024-01-01 00:12:00\n1,2024-01-01 00:01:00\n3,2024-01-01 00:09:00\n2,2024-01-01 00:13:00\n4,\n')
    const [r] = db.execute(`COPY s FROM ${lit(f)} WITH (FORMAT csv)`)
    expect(r!.rowCount).toBe(2)
    expect(db.query('SELECT id, ts FROM s ORDER BY id').rows).toEqual([
      [1, '2024-01-01 00:10:00'],
      [2, '2024-01-01 00:12:00'],
      [3, '2024-01-01 00:09:00'],
    ])
    expect(db.lateEvents('s')).toBe(1)
    expect(db.query('SELECT stream, row FROM rivulet_late_events').rows).toEqual([['s', '(1,"2024-01-01 00:01:00")']])
    expect(db.query('SELECT line, reason FROM rivulet_rejected ORDER BY line').rows).toEqual([
      [4, 'duplicate key value violates unique constraint "s_pkey": Key (id)=(2) already exists.'],
      [5, 'null value in column "ts" of relation "s" violates not-null constraint'],
    ])
    expect(db.watermark('s')).toBe('2024-01-01 00:11:00')
  })

  it('versioned tables: each row is a version; a key and version time twice is a duplicate', () => {
    const db = Engine.open()
    db.execute("CREATE TABLE r (cur TEXT PRIMARY KEY, rate INT, valid_from TIMESTAMP, WATERMARK FOR valid_from AS valid_from)")
    db.execute("INSERT INTO r VALUES ('eur', 1, '2024-01-01 00:00:00')")
    const f = file('eur,2,2024-01-01 00:05:00\nusd,7,2024-01-01 00:01:00\neur,3,2024-01-01 00:05:00\neur,9,2024-01-01 00:00:00\n')
    expect(db.execute(`COPY r FROM ${lit(f)} WITH (FORMAT csv)`)[0]!.rowCount).toBe(2)
    expect(db.query('SELECT cur, rate FROM r ORDER BY cur').rows).toEqual([
      ['eur', 2],
      ['usd', 7],
    ])
    expect(db.query('SELECT line, reason FROM rivulet_rejected ORDER BY line').rows).toEqual([
      [3, 'duplicate key value violates unique constraint "r_pkey": Key (cur, valid_from)=(eur, 2024-01-01 00:05:00) already has a version at that time.'],
      [4, 'duplicate key value violates unique constraint "r_pkey": Key (cur, valid_from)=(eur, 2024-01-01 00:00:00) already has a version at that time.'],
    ])
  })

  it('loads a larger file in chunks', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v TEXT, n NUMERIC)')
    db.execute('CREATE MATERIALIZED VIEW s AS SELECT count(*) AS c, sum(n) AS total FROM t')
    // good records span two lines (a quoted newline), bad ones one
    const rows: string[] = []
    const badLines: number[][] = []
    let line = 1
    for (let i = 0; i < 50_000; i++) {
      if (i % 10_000 === 7) {
        rows.push(`${i},"bad",x`)
        badLines.push([line])
        line += 1
      } else {
        rows.push(`${i},"v ""${i}"" \n",${i % 100}`)
        line += 2
      }
    }
    copyReadChunk.bytes = 4096
    const [r] = db.execute(`COPY t FROM ${lit(file(rows.join('\n')))} WITH (FORMAT csv)`)
    expect(r!.rowCount).toBe(49_995)
    expect(db.query('SELECT c FROM s').rows).toEqual([[49_995]])
    expect(db.query('SELECT line FROM rivulet_rejected ORDER BY line').rows).toEqual(badLines)
    expect(db.query('SELECT v FROM t WHERE k = 49999').rows).toEqual([['v "49999" \n']])
  })
})

describe('COPY: errors', () => {
  const db = Engine.open()
  db.execute('CREATE TABLE t (k INT, v TEXT)')
  db.execute('CREATE VIEW w AS SELECT k FROM t')
  const good = file('1,a\n')

  it('a missing file is 58P01 with the path as given; a directory is 42809', () => {
    const e = error(() => db.execute("COPY t FROM 'no/such/file.csv'"))
    expect([e.code, e.message]).toEqual(['58P01', 'could not open file "no/such/file.csv" for reading: No such file or directory'])
    const sub = path.join(dir, 'sub')
    mkdirSync(sub, { recursive: true })
    const d = error(() => db.execute(`COPY t FROM ${lit(sub)}`))
    expect([d.code, d.message]).toEqual(['42809', `"${sub}" is a directory`])
  })

  it('an unknown or repeated option is 42601 at the option; bad values are 22023 / 0A000', () => {
    const sql = `COPY t FROM ${lit(good)} WITH (FORMAT csv, colour 'red')`
    const e = error(() => db.execute(sql))
    expect(e.code).toBe('42601')
    expect(e.message).toMatch(/^option "colour" not recognized/)
    expect(e.position?.offset).toBe(sql.indexOf('colour'))
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (HEADER, HEADER false)`)).code).toBe('42601')
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (FORMAT csv, DELIMITER ';;')`)).code).toBe('0A000')
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (DELIMITER 'a')`)).message).toBe('COPY delimiter cannot be "a"')
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (FORMAT csv, DELIMITER '"')`)).message).toBe('COPY delimiter and quote must be different')
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (HEADER maybe)`)).code).toBe('22023')
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (FORMAT binary)`)).code).toBe('0A000')
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (ENCODING 'latin1')`)).code).toBe('0A000')
    expect(error(() => db.execute(`COPY t FROM ${lit(good)} (ESCAPE '\\')`)).code).toBe('0A000')
  })

  it('a view or a system relation cannot be loaded (42809); unknown columns are 42703', () => {
    expect(error(() => db.execute(`COPY w FROM ${lit(good)}`)).code).toBe('42809')
    expect(error(() => db.execute(`COPY rivulet_rejected FROM ${lit(good)}`)).code).toBe('42809')
    expect(error(() => db.execute(`COPY nope FROM ${lit(good)}`)).code).toBe('42P01')
    expect(error(() => db.execute(`COPY t (k, zz) FROM ${lit(good)}`)).code).toBe('42703')
    expect(error(() => db.execute(`COPY t (k, k) FROM ${lit(good)}`)).code).toBe('42701')
  })

  it('FROM STDIN and TO are for the server (0A000)', () => {
    const e = error(() => db.execute('COPY t FROM STDIN'))
    expect([e.code, e.message]).toEqual(['0A000', 'COPY FROM STDIN needs a client connection (use the server)'])
    expect(error(() => db.execute("COPY t TO '/tmp/x.csv'")).code).toBe('0A000')
    expect(error(() => db.execute('COPY (SELECT 1) TO STDOUT')).code).toBe('0A000')
  })

  it('nothing failed changed anything', () => {
    expect(db.query('SELECT count(*) FROM t').rows).toEqual([[0]])
  })
})

describe('COPY in the CLI', () => {
  it('prints the COPY tag, and a NOTICE on stderr when records were rejected', async () => {
    const f = file('1\nx\n2\n')
    let out = ''
    let err = ''
    const code = await main(['-c', `CREATE TABLE t (k INT); COPY t FROM ${lit(f)}; COPY t FROM ${lit(file('3\n'))}`], {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
    })
    expect(code).toBe(0)
    expect(out).toBe('CREATE TABLE\nCOPY 2\nCOPY 1\n')
    expect(err).toBe('NOTICE:  1 record rejected: see rivulet_rejected\n')
  })
})
