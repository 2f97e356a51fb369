// The server against the real psql (15): statements and their aligned output, errors with
// LINE and caret, scripts (-f), the describe commands (\d, \dt, \dv, \dm, \d NAME, \df, \dT,
// \ds, \di, \du, \dp), array columns, password authentication (SCRAM-SHA-256, MD5, cleartext), COPY (SUBSCRIBE …) TO
// STDOUT streamed to a psql child process and stopped with Ctrl-C (a CancelRequest), and
// `rivulet serve` itself.
// psql runs as a child process (asynchronously: the server lives in this process).

import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

function psql(port: number, args: readonly string[], password?: string): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, PGCONNECT_TIMEOUT: '5', PGPASSWORD: password ?? '', PGAPPNAME: 'vitest' }
    execFile('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d', 'db', '-X', '-w', '-v', 'ON_ERROR_STOP=1', ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

const c = (...sql: string[]): string[] => sql.flatMap((s) => ['-c', s])

let engine: Engine
let server: RunningServer

beforeAll(async () => {
  engine = Engine.open()
  server = await startServer({ engine, port: 0 })
})

afterAll(async () => {
  await server.close()
  engine.close()
})

describe('psql', () => {
  it('runs DDL, INSERT and SELECT, printed in aligned format', async () => {
    const r = await psql(
      server.port,
      c(
        'CREATE TABLE orders (id INT PRIMARY KEY, customer TEXT, amount NUMERIC, placed TIMESTAMP)',
        "INSERT INTO orders VALUES (1, 'ann', 10.5, '2024-01-01 10:00:00'), (2, 'bob', 3, '2024-01-02 11:30:00'), (3, 'ann', 7.25, NULL)",
        'CREATE MATERIALIZED VIEW totals AS SELECT customer, sum(amount) AS total, count(*) AS n FROM orders GROUP BY customer',
        'CREATE VIEW big AS SELECT id, amount FROM orders WHERE amount > 5',
        'CREATE STREAM clicks (ad INT, ts TIMESTAMP)',
        'SELECT * FROM totals ORDER BY customer',
        'SELECT id, customer, placed, amount > 5 AS big FROM orders ORDER BY id',
      ),
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(
      [
        'CREATE TABLE',
        'INSERT 0 3',
        'CREATE MATERIALIZED VIEW',
        'CREATE VIEW',
        'CREATE STREAM',
        ' customer | total | n ',
        '----------+-------+---',
        ' ann      | 17.75 | 2',
        ' bob      |     3 | 1',
        '(2 rows)',
        '',
        ' id | customer |       placed        | big ',
        '----+----------+---------------------+-----',
        '  1 | ann      | 2024-01-01 10:00:00 | t',
        '  2 | bob      | 2024-01-02 11:30:00 | f',
        '  3 | ann      |                     | t',
        '(3 rows)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('prints an error with LINE and a caret under the position, and exits 1', async () => {
    const r = await psql(server.port, c('SELECT customer, nosuch FROM orders'))
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(['ERROR:  column "nosuch" does not exist', 'LINE 1: SELECT customer, nosuch FROM orders', '                         ^', ''].join('\n'))
  })

  it('runs a script with -f, one statement at a time, stopping at the first error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rivulet-psql-'))
    const file = join(dir, 'script.sql')
    writeFileSync(file, "CREATE TABLE notes (k INT PRIMARY KEY, body TEXT);\nINSERT INTO notes VALUES (1, 'it''s'), (2, E'back\\\\slash');\nSELECT * FROM notes ORDER BY k;\nSELECT 1/0;\nSELECT 'not reached';\n")
    const r = await psql(server.port, ['-f', file])
    expect(r.code).toBe(3) // psql: a script stopped by ON_ERROR_STOP
    expect(r.stdout).toBe(['CREATE TABLE', 'INSERT 0 2', ' k |    body    ', '---+------------', " 1 | it's", ' 2 | back\\slash', '(2 rows)', '', ''].join('\n'))
    expect(r.stderr).toBe(`psql:${file}:4: ERROR:  division by zero\n`)
  })

  // psql's own queries over the engine's pg_catalog; it names a relation's type from
  // pg_class.relkind, where a stream is a table ('r')
  it('lists relations with \\d, \\dt, \\dv, \\dm', async () => {
    const r = await psql(server.port, c('\\d', '\\dt', '\\dv', '\\dm'))
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(
      [
        '               List of relations',
        ' Schema |  Name  |       Type        |  Owner  ',
        '--------+--------+-------------------+---------',
        ' public | big    | view              | rivulet',
        ' public | clicks | table             | rivulet',
        ' public | notes  | table             | rivulet',
        ' public | orders | table             | rivulet',
        ' public | totals | materialized view | rivulet',
        '(5 rows)',
        '',
        '         List of relations',
        ' Schema |  Name  | Type  |  Owner  ',
        '--------+--------+-------+---------',
        ' public | clicks | table | rivulet',
        ' public | notes  | table | rivulet',
        ' public | orders | table | rivulet',
        '(3 rows)',
        '',
        '       List of relations',
        ' Schema | Name | Type |  Owner  ',
        '--------+------+------+---------',
        ' public | big  | view | rivulet',
        '(1 row)',
        '',
        '               List of relations',
        ' Schema |  Name  |       Type        |  Owner  ',
        '--------+--------+-------------------+---------',
        ' public | totals | materialized view | rivulet',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('lists databases with \\l and schemas with \\dn (psql\'s queries over pg_database and pg_namespace)', async () => {
    const r = await psql(server.port, c('\\l', '\\dn'))
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(
      [
        '                                       List of databases',
        ' Name |  Owner  | Encoding | Collate | Ctype | ICU Locale | Locale Provider | Access privileges ',
        '------+---------+----------+---------+-------+------------+-----------------+-------------------',
        ' db   | rivulet | UTF8     | C       | C     |            | libc            | ',
        '(1 row)',
        '',
        ' List of schemas',
        '  Name  |  Owner  ',
        '--------+---------',
        ' public | rivulet',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('describes a table, a materialized view and a view with \\d NAME', async () => {
    const r = await psql(server.port, c('\\d orders', '\\d totals', '\\d+ big', '\\dt ord*', '\\d nosuch'))
    expect(r.stdout).toBe(
      [
        '                          Table "public.orders"',
        '  Column  |            Type             | Collation | Nullable | Default ',
        '----------+-----------------------------+-----------+----------+---------',
        ' id       | integer                     |           | not null | ',
        ' customer | text                        |           |          | ',
        ' amount   | numeric                     |           |          | ',
        ' placed   | timestamp without time zone |           |          | ',
        'Indexes:',
        '    "orders_pkey" PRIMARY KEY, btree (id)',
        '',
        '          Materialized view "public.totals"',
        '  Column  |  Type   | Collation | Nullable | Default ',
        '----------+---------+-----------+----------+---------',
        ' customer | text    |           |          | ',
        ' total    | numeric |           |          | ',
        ' n        | bigint  |           |          | ',
        '',
        '                             View "public.big"',
        ' Column |  Type   | Collation | Nullable | Default | Storage  | Description ',
        '--------+---------+-----------+----------+---------+----------+-------------',
        ' id     | integer |           |          |         | plain    | ',
        ' amount | numeric |           |          |         | extended | ',
        'View definition:',
        ' SELECT id, amount FROM orders WHERE amount > 5;',
        '',
        '         List of relations',
        ' Schema |  Name  | Type  |  Owner  ',
        '--------+--------+-------+---------',
        ' public | orders | table | rivulet',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    )
    expect(r.stderr).toBe('Did not find any relation named "nosuch".\n')
  })

  // a stream is listed as a table (PostgreSQL has no streams) and described as one
  it('describes a stream with \\d NAME', async () => {
    const r = await psql(server.port, c('\\d clicks'))
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(
      [
        '                         Table "public.clicks"',
        ' Column |            Type             | Collation | Nullable | Default ',
        '--------+-----------------------------+-----------+----------+---------',
        ' ad     | integer                     |           |          | ',
        ' ts     | timestamp without time zone |           |          | ',
        '',
        '',
      ].join('\n'),
    )
  })

  it('shows array columns, and lists roles (\\du) and privileges (\\dp): psql\'s ARRAY(SELECT …) queries run on the engine', async () => {
    const r = await psql(
      server.port,
      c("CREATE TABLE docs (id INT PRIMARY KEY, tags TEXT[], scores INT[])", "INSERT INTO docs VALUES (1, '{a,\"b c\"}', ARRAY[1,2]), (2, NULL, '{}')", 'SELECT * FROM docs ORDER BY id', '\\d docs', '\\du', '\\dp docs'),
    )
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(
      [
        'CREATE TABLE',
        'INSERT 0 2',
        ' id |   tags    | scores ',
        '----+-----------+--------',
        '  1 | {a,"b c"} | {1,2}',
        '  2 |           | {}',
        '(2 rows)',
        '',
        '                 Table "public.docs"',
        ' Column |   Type    | Collation | Nullable | Default ',
        '--------+-----------+-----------+----------+---------',
        ' id     | integer   |           | not null | ',
        ' tags   | text[]    |           |          | ',
        ' scores | integer[] |           |          | ',
        'Indexes:',
        '    "docs_pkey" PRIMARY KEY, btree (id)',
        '',
        '                             List of roles',
        ' Role name |                  Attributes                   | Member of ',
        '-----------+-----------------------------------------------+-----------',
        ' rivulet   | Superuser, Create role, Create DB, Bypass RLS | {}',
        ' tester    | Superuser, Create role, Create DB, Bypass RLS | {}',
        '',
        '                            Access privileges',
        ' Schema | Name | Type  | Access privileges | Column privileges | Policies ',
        '--------+------+-------+-------------------+-------------------+----------',
        ' public | docs | table |                   |                   | ',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('the + variants (sizes: 0 bytes, the data is in memory) and \\db', async () => {
    engine.execute('CREATE TABLE sized (k INT PRIMARY KEY)')
    const r = await psql(server.port, c('\\dt+ sized', '\\db'))
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(
      [
        '                                   List of relations',
        ' Schema | Name  | Type  |  Owner  | Persistence | Access method |  Size   | Description ',
        '--------+-------+-------+---------+-------------+---------------+---------+-------------',
        ' public | sized | table | rivulet | permanent   | heap          | 0 bytes | ',
        '(1 row)',
        '',
        '       List of tablespaces',
        '    Name    |  Owner  | Location ',
        '------------+---------+----------',
        ' pg_default | rivulet | ',
        ' pg_global  | rivulet | ',
        '(2 rows)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('shows NOT NULL columns and defaults in \\d NAME', async () => {
    engine.execute("CREATE TABLE accounts (id INT, owner TEXT NOT NULL, balance NUMERIC DEFAULT 0, kind TEXT DEFAULT 'basic', PRIMARY KEY (id))")
    const r = await psql(server.port, c('\\d accounts'))
    expect(r.stdout).toBe(
      [
        '              Table "public.accounts"',
        ' Column  |  Type   | Collation | Nullable | Default ',
        '---------+---------+-----------+----------+---------',
        ' id      | integer |           | not null | ',
        ' owner   | text    |           | not null | ',
        ' balance | numeric |           |          | 0',
        " kind    | text    |           |          | 'basic'",
        'Indexes:',
        '    "accounts_pkey" PRIMARY KEY, btree (id)',
        '',
        '',
      ].join('\n'),
    )
  })

  it('streams COPY (SUBSCRIBE …) TO STDOUT until Ctrl-C, which cancels it (57014)', async () => {
    engine.execute('CREATE TABLE feed (k INT PRIMARY KEY, v TEXT)')
    engine.execute("INSERT INTO feed VALUES (1, 'first')")
    // stdbuf: psql writes COPY data through stdio, fully buffered on a pipe
    const child = spawn('stdbuf', ['-oL', 'psql', '-h', '127.0.0.1', '-p', String(server.port), '-U', 'tester', '-X', '-c', 'COPY (SUBSCRIBE feed) TO STDOUT'], { env: { ...process.env, PGCONNECT_TIMEOUT: '5' } })
    const lines = collectLines(child)
    try {
      expect(await lines.waitFor(1)).toEqual([expect.stringMatching(/^\d+\t1\t1\tfirst$/)])
      const other = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'writer' })
      await other.connect()
      await other.query('INSERT INTO feed VALUES ($1, $2)', [2, 'from pg'])
      await other.query("UPDATE feed SET v = 'changed' WHERE k = 1")
      await other.end()
      const got = await lines.waitFor(4)
      expect(got.slice(1).map((l) => l.split('\t').slice(1).join(' ')).sort()).toEqual(['-1 1 first', '1 1 changed', '1 2 from pg'])
      child.kill('SIGINT') // psql sends a CancelRequest
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect(lines.stderr()).toContain('ERROR:  canceling statement due to user request')
      expect(code).toBe(1)
      await new Promise((r) => setTimeout(r, 50))
      expect(engine.query('SHOW VIEWS').rows.map((r) => r[0])).not.toContainEqual(expect.stringMatching(/^__rivulet_subscribe_/))
    } finally {
      child.kill('SIGKILL')
    }
  })
})

// \\df, \\dT, \\ds and \\di: psql's queries over pg_proc, pg_type, pg_class and pg_index, with
// pg_function_is_visible, pg_type_is_visible, pg_get_function_result and
// pg_get_function_arguments (a server of its own: the listing is of exactly one table)
describe('psql \\df, \\dT, \\ds, \\di', () => {
  it('lists no user functions, types or sequences, and the primary key\'s index', async () => {
    const eng = Engine.open()
    const srv = await startServer({ engine: eng, port: 0 })
    try {
      eng.execute('CREATE TABLE t (id INT PRIMARY KEY, v TEXT)')
      eng.execute('CREATE VIEW tv AS SELECT id FROM t')
      const r = await psql(srv.port, c('\\df', '\\dT', '\\di', '\\df pg_catalog.pg_*_is_visible'))
      expect(r.stderr).toBe('')
      expect(r.stdout).toBe(
        [
          '                       List of functions',
          ' Schema | Name | Result data type | Argument data types | Type ',
          '--------+------+------------------+---------------------+------',
          '(0 rows)',
          '',
          '     List of data types',
          ' Schema | Name | Description ',
          '--------+------+-------------',
          '(0 rows)',
          '',
          '             List of relations',
          ' Schema |  Name  | Type  |  Owner  | Table ',
          '--------+--------+-------+---------+-------',
          ' public | t_pkey | index | rivulet | t',
          '(1 row)',
          '',
          '                                  List of functions',
          '   Schema   |          Name          | Result data type | Argument data types | Type ',
          '------------+------------------------+------------------+---------------------+------',
          ' pg_catalog | pg_function_is_visible | boolean          | oid                 | func',
          ' pg_catalog | pg_table_is_visible    | boolean          | oid                 | func',
          ' pg_catalog | pg_type_is_visible     | boolean          | oid                 | func',
          '(3 rows)',
          '',
          '',
        ].join('\n'),
      )
      // no sequences: psql says so on stderr, as PostgreSQL's does for an empty listing
      const seq = await psql(srv.port, c('\\ds'))
      expect(seq.code).toBe(0)
      expect(seq.stdout).toBe('')
      expect(seq.stderr).toBe('Did not find any relations.\n')
    } finally {
      await srv.close()
      eng.close()
    }
  })
})

describe('password authentication', () => {
  for (const auth of ['scram-sha-256', 'md5', 'password'] as const) {
    it(`${auth}: the right password connects, a wrong one fails with 28P01`, async () => {
      const eng = Engine.open()
      const srv = await startServer({ engine: eng, port: 0, password: 'sekret pass', auth })
      try {
        const ok = await psql(srv.port, c('SELECT current_user'), 'sekret pass')
        expect(ok.stderr).toBe('')
        expect(ok.stdout).toBe(' current_user \n--------------\n tester\n(1 row)\n\n')
        const bad = await psql(srv.port, c('SELECT 1'), 'wrong')
        expect(bad.code).toBe(2)
        expect(bad.stderr).toContain('FATAL:  password authentication failed for user "tester"')
        const none = await psql(srv.port, c('SELECT 1'))
        expect(none.code).toBe(2)
        // node-postgres too
        const client = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'app', password: 'sekret pass' })
        await client.connect()
        expect((await client.query('SELECT 1 AS x')).rows).toEqual([{ x: 1 }])
        await client.end()
        const wrong = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'app', password: 'nope' })
        await expect(wrong.connect()).rejects.toMatchObject({ code: '28P01' })
      } finally {
        await srv.close()
        eng.close()
      }
    })
  }
})

describe('rivulet serve', () => {
  it('prints its port, serves psql, and shuts down on SIGTERM', async () => {
    const cli = fileURLToPath(new URL('../../dist/src/cli/cli.js', import.meta.url))
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines = collectLines(child)
    try {
      const [first] = await lines.waitFor(1)
      const m = /^rivulet: listening on 127\.0\.0\.1:(\d+)$/.exec(first!)
      expect(m).not.toBeNull()
      const port = Number(m![1])
      const r = await psql(port, c('CREATE TABLE t (k INT)', 'INSERT INTO t VALUES (1), (2)', 'SELECT sum(k) FROM t'))
      expect(r.stdout).toBe('CREATE TABLE\nINSERT 0 2\n sum \n-----\n   3\n(1 row)\n\n')
      // a connected client is told, and the server exits 0
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'u' })
      await client.connect()
      const ended = new Promise<Error>((resolve) => client.on('error', resolve))
      child.kill('SIGTERM')
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect(code).toBe(0)
      expect((await ended).message).toMatch(/terminating connection due to administrator command|Connection terminated/)
      expect(lines.all()).toContain('rivulet: shutting down')
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('--data DIR: what psql was told is committed survives kill -9 of the server; SUBSCRIBE … SINCE resumes', async () => {
    const cli = fileURLToPath(new URL('../../dist/src/cli/cli.js', import.meta.url))
    const data = mkdtempSync(join(tmpdir(), 'rivulet-serve-data-'))
    const start = async () => {
      const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'] })
      const lines = collectLines(child)
      const [first] = await lines.waitFor(1)
      return { child, lines, port: Number(/^rivulet: listening on 127\.0\.0\.1:(\d+)$/.exec(first!)![1]) }
    }
    let server = await start()
    try {
      const r = await psql(server.port, c('CREATE TABLE t (k INT PRIMARY KEY)', 'CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM t', 'INSERT INTO t VALUES (1), (2)', 'INSERT INTO t VALUES (3)'))
      expect(r.stdout).toBe('CREATE TABLE\nCREATE MATERIALIZED VIEW\nINSERT 0 2\nINSERT 0 1\n')
      server.child.kill('SIGKILL')
      await new Promise((resolve) => server.child.on('close', resolve))
      server = await start()
      const again = await psql(server.port, c('SELECT c FROM n'))
      expect(again.stdout).toBe(' c \n---\n 3\n(1 row)\n\n')
      expect(server.lines.stderr()).toMatch(/rivulet serve: data directory .*: replayed 4 log records \(2 ticks\) from the start of the log in/)
      // a subscriber that saw tick 1 resumes after it, over the wire
      const resumed = await psql(server.port, c("BEGIN; DECLARE f CURSOR FOR SUBSCRIBE t WITH (SINCE = 1); FETCH ALL f WITH (timeout = '0s'); COMMIT"))
      expect(resumed.stdout).toBe('BEGIN\nDECLARE CURSOR\n tick | diff | k \n------+------+---\n    2 |    1 | 3\n(1 row)\n\nCOMMIT\n')
    } finally {
      server.child.kill('SIGKILL')
    }
  })

  it('refuses --auth without a password', async () => {
    const cli = fileURLToPath(new URL('../../dist/src/cli/cli.js', import.meta.url))
    const r = await new Promise<Run>((resolve) =>
      execFile(process.execPath, [cli, 'serve', '--port', '0', '--auth', 'md5'], (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr })),
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('--auth needs a password')
  })
})

/** Collects a child's stdout lines; waitFor(n) resolves once n lines arrived. */
function collectLines(child: ChildProcess): { waitFor(n: number, ms?: number): Promise<string[]>; all(): string[]; stderr(): string } {
  const lines: string[] = []
  let partial = ''
  let err = ''
  const waiters: (() => void)[] = []
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (d: string) => {
    partial += d
    const parts = partial.split('\n')
    partial = parts.pop()!
    lines.push(...parts)
    for (const w of waiters.splice(0)) w()
  })
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (d: string) => (err += d))
  return {
    async waitFor(n, ms = 10_000) {
      const deadline = Date.now() + ms
      while (lines.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} lines, got ${JSON.stringify(lines)}; stderr: ${err}`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 100)
        })
      }
      return lines.slice(0, n)
    },
    all: () => [...lines],
    stderr: () => err,
  }
}
