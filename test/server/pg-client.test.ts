// The server against node-postgres (`pg`), the way applications use it: parameterized queries
// (extended protocol, values as text), prepared statements reused, concurrent clients and
// transactions (ReadyForQuery status I/T/E as pg tracks it), subscriptions through
// DECLARE CURSOR + FETCH, and cancelling a waiting FETCH with a CancelRequest.

import { connect } from 'node:net'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'

let engine: Engine
let server: RunningServer
const open: pg.Client[] = []

async function client(user = 'app'): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: server.port, user, database: 'db' })
  c.on('error', () => undefined)
  await c.connect()
  open.push(c)
  return c
}

/** Sends a CancelRequest for `c`'s session, as psql does on Ctrl-C. */
function cancel(c: pg.Client): Promise<void> {
  const { processID, secretKey } = c as unknown as { processID: number; secretKey: number }
  return new Promise((resolve, reject) => {
    const s = connect(server.port, '127.0.0.1', () => {
      const b = Buffer.alloc(16)
      b.writeInt32BE(16, 0)
      b.writeInt32BE(80877102, 4)
      b.writeInt32BE(processID, 8)
      b.writeInt32BE(secretKey, 12)
      s.end(b)
    })
    s.on('close', () => resolve())
    s.on('error', reject)
  })
}

beforeAll(async () => {
  engine = Engine.open()
  server = await startServer({ engine, port: 0 })
})

afterAll(async () => {
  await server.close()
  engine.close()
})

beforeEach(() => {
  engine.execute('DROP TABLE IF EXISTS people CASCADE')
  engine.execute('CREATE TABLE people (id INT PRIMARY KEY, name TEXT, score DOUBLE PRECISION, active BOOLEAN, born DATE)')
})

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.end().catch(() => undefined)))
})

describe('pg client', () => {
  it('runs parameterized queries: quotes, backslashes, unicode, NULLs, numbers, booleans', async () => {
    const c = await client()
    const people: [number, string | null, number | null, boolean | null, string | null][] = [
      [1, "O'Brien", 1.5, true, '1990-05-17'],
      [2, 'back\\slash "quoted" -- not a comment; DROP TABLE people', -0.25, false, null],
      [3, 'Zoë 😀 ☃', null, null, '2000-02-29'],
      [4, null, 1e-7, true, null],
    ]
    for (const p of people) expect((await c.query('INSERT INTO people VALUES ($1, $2, $3, $4, $5)', p)).rowCount).toBe(1)
    const r = await c.query("SELECT id, name, score, active, born::text AS born FROM people WHERE id >= $1 AND (name <> $2 OR name IS NULL) ORDER BY id", [1, 'nobody'])
    expect(r.rows.map((x) => [x.id, x.name, x.score, x.active, x.born])).toEqual(people)
    expect(r.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
      ['id', 23],
      ['name', 25],
      ['score', 701],
      ['active', 16],
      ['born', 25],
    ])
    expect((await c.query('SELECT name FROM people WHERE name = $1', ["O'Brien"])).rows).toEqual([{ name: "O'Brien" }])
    expect((await c.query('SELECT count(*)::int AS n FROM people WHERE score > $1', [0])).rows).toEqual([{ n: 2 }])
    expect((await c.query('SELECT $1::int * 2 AS x, $2::text AS y', [21, null])).rows).toEqual([{ x: 42, y: null }])
    const bad = await c.query('SELECT nosuch FROM people WHERE id = $1', [1]).catch((e: unknown) => e)
    expect(bad).toMatchObject({ code: '42703', position: '8' })
  })

  it('arrays: typed by their OIDs (node-postgres parses them), parameters as arrays', async () => {
    const c = await client()
    const r = await c.query("SELECT ARRAY[1, 2, NULL] AS i, '{a,\"b c\"}'::text[] AS t, ARRAY[1.5]::numeric[] AS n, '{}'::int[] AS e")
    expect(r.fields.map((f) => f.dataTypeID)).toEqual([1007, 1009, 1231, 1007])
    expect(r.rows).toEqual([{ i: [1, 2, null], t: ['a', 'b c'], n: [1.5], e: [] }])
    const any = await c.query('SELECT x FROM unnest($1::int[]) AS x WHERE x = ANY ($2) ORDER BY x', [[3, 1, 2], [2, 3]])
    expect(any.rows).toEqual([{ x: 2 }, { x: 3 }])
  })

  it('jsonb: typed by its OID 3802 (node-postgres parses it), parameters as JSON text', async () => {
    const c = await client()
    const r = await c.query(`SELECT '{"b": [1, 2.50], "a": null}'::jsonb AS j, jsonb_agg(x ORDER BY x) AS a FROM (VALUES (1), (2)) v(x)`)
    expect(r.fields.map((f) => f.dataTypeID)).toEqual([3802, 3802])
    expect(r.rows).toEqual([{ j: { a: null, b: [1, 2.5] }, a: [1, 2] }])
    await c.query('CREATE TABLE docs (k INT PRIMARY KEY, body JSONB)')
    await c.query('INSERT INTO docs VALUES ($1, $2)', [1, { tags: ['x'], n: 3 }])
    const back = await c.query(`SELECT body->'tags'->>0 AS tag, body FROM docs WHERE body @> $1::jsonb`, ['{"n": 3}'])
    expect(back.rows).toEqual([{ tag: 'x', body: { n: 3, tags: ['x'] } }])
  })

  it('reuses named prepared statements', async () => {
    const c = await client()
    for (let i = 0; i < 50; i++) await c.query({ name: 'ins', text: 'INSERT INTO people (id, name) VALUES ($1, $2)', values: [i, `p${i}`] })
    for (let i = 0; i < 50; i += 7) expect((await c.query({ name: 'get', text: 'SELECT name FROM people WHERE id = $1', values: [i] })).rows).toEqual([{ name: `p${i}` }])
    expect((await c.query('SELECT count(*)::int AS n FROM people')).rows).toEqual([{ n: 50 }])
  })

  it('serves several clients at once on one engine', async () => {
    const cs = await Promise.all(Array.from({ length: 8 }, (_, i) => client(`user${i}`)))
    await Promise.all(cs.map(async (c, k) => {
      for (let i = 0; i < 25; i++) await c.query('INSERT INTO people (id, name) VALUES ($1, $2)', [k * 100 + i, `c${k}`])
    }))
    const counts = await Promise.all(cs.map((c, k) => c.query('SELECT count(*)::int AS n FROM people WHERE name = $1', [`c${k}`])))
    expect(counts.map((r) => r.rows[0].n)).toEqual(Array(8).fill(25))
  })

  it('tracks transactions: BEGIN (T), an error (E), ROLLBACK / COMMIT (I)', async () => {
    const c = await client()
    const other = await client('other')
    expect(c.getTransactionStatus()).toBe('I')
    await c.query('BEGIN')
    expect(c.getTransactionStatus()).toBe('T')
    await c.query("INSERT INTO people (id, name) VALUES (1, 'kept')")
    await c.query('COMMIT')
    expect(c.getTransactionStatus()).toBe('I')
    await c.query('BEGIN')
    await c.query("INSERT INTO people (id, name) VALUES (2, 'undone')")
    await c.query('ROLLBACK')
    await c.query('BEGIN')
    await c.query("INSERT INTO people (id, name) VALUES (3, 'aborted')")
    await expect(c.query('INSERT INTO people (id, name) VALUES (1, $1)', ['duplicate'])).rejects.toMatchObject({ code: '23505' })
    expect(c.getTransactionStatus()).toBe('E')
    await expect(c.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' })
    const end = await c.query('COMMIT')
    expect(end.command).toBe('ROLLBACK')
    expect(c.getTransactionStatus()).toBe('I')
    expect((await other.query('SELECT id, name FROM people ORDER BY id')).rows).toEqual([{ id: 1, name: 'kept' }])
    // DDL is refused inside a block (the engine's rule, as in Materialize)
    await c.query('BEGIN')
    await expect(c.query('CREATE TABLE x (a INT)')).rejects.toMatchObject({ code: '25001' })
    await c.query('ROLLBACK')
  })

  it('serializes concurrent write transactions of different clients', async () => {
    const [a, b] = await Promise.all([client('a'), client('b')])
    const run = async (c: pg.Client, base: number): Promise<void> => {
      await c.query('BEGIN')
      for (let i = 0; i < 5; i++) {
        await c.query('INSERT INTO people (id, name) VALUES ($1, $2)', [base + i, 'tx'])
        await new Promise((r) => setTimeout(r, 5))
      }
      await c.query('COMMIT')
    }
    await Promise.all([run(a, 0), run(b, 100)])
    expect((await a.query('SELECT count(*)::int AS n FROM people')).rows).toEqual([{ n: 10 }])
  })

  it('subscribes through DECLARE CURSOR FOR SUBSCRIBE and FETCH', async () => {
    engine.execute("INSERT INTO people (id, name, score) VALUES (1, 'ann', 10)")
    engine.execute('CREATE MATERIALIZED VIEW scores AS SELECT name, sum(score) AS total FROM people GROUP BY name')
    const sub = await client('subscriber')
    const writer = await client('writer')
    await sub.query('BEGIN')
    await sub.query('DECLARE c CURSOR FOR SUBSCRIBE scores')
    const snapshot = await sub.query('FETCH ALL c')
    expect(snapshot.fields.map((f) => f.name)).toEqual(['tick', 'diff', 'name', 'total'])
    expect(snapshot.rows.map((r) => [r.diff, r.name, r.total])).toEqual([['1', 'ann', 10]])
    // FETCH without a timeout waits for the next change, made by another client meanwhile
    const waiting = sub.query('FETCH ALL c')
    await new Promise((r) => setTimeout(r, 50))
    await writer.query('INSERT INTO people (id, name, score) VALUES ($1, $2, $3)', [2, 'ann', 5])
    const change = await waiting
    expect(change.rows.map((r) => [r.diff, r.name, r.total]).sort()).toEqual([
      ['-1', 'ann', 10],
      ['1', 'ann', 15],
    ])
    expect(Number(change.rows[0].tick)).toBeGreaterThan(Number(snapshot.rows[0].tick))
    // with a timeout and nothing new: no rows
    expect((await sub.query("FETCH ALL c WITH (timeout = '100ms')")).rows).toEqual([])
    expect((await sub.query('CLOSE c')).command).toBe('CLOSE')
    await expect(sub.query('FETCH ALL c')).rejects.toMatchObject({ code: '34000' })
    await sub.query('ROLLBACK')
    engine.execute('DROP MATERIALIZED VIEW scores')
  })

  it('cancels a FETCH waiting for rows (57014)', async () => {
    const sub = await client('subscriber')
    await sub.query('BEGIN')
    await sub.query('DECLARE c CURSOR FOR SUBSCRIBE people WITH (SNAPSHOT = false)')
    const waiting = sub.query('FETCH c').catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 100))
    await cancel(sub)
    expect(await waiting).toMatchObject({ code: '57014', message: 'canceling statement due to user request' })
    expect(sub.getTransactionStatus()).toBe('E')
    await sub.query('ROLLBACK')
    expect((await sub.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
  })

  it('a plain cursor over a SELECT fetches in chunks', async () => {
    const c = await client()
    for (let i = 0; i < 5; i++) await c.query('INSERT INTO people (id) VALUES ($1)', [i])
    await c.query('BEGIN')
    await c.query('DECLARE cur NO SCROLL CURSOR FOR SELECT id FROM people ORDER BY id')
    expect((await c.query('FETCH FORWARD 2 FROM cur')).rows).toEqual([{ id: 0 }, { id: 1 }])
    expect((await c.query('FETCH ALL FROM cur')).rows).toEqual([{ id: 2 }, { id: 3 }, { id: 4 }])
    await c.query('COMMIT')
  })
})

describe("COPY t FROM 'file' over the server", () => {
  it('is refused unless the server allows reading its files; then rejected records come back as a NOTICE', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const file = join(mkdtempSync(join(tmpdir(), 'rivulet-copy-')), 'people.csv')
    writeFileSync(file, "1,ann,1.5,true,2000-01-01\nx,bad,1,true,2000-01-01\n")
    const c = await client()
    await expect(c.query(`COPY people FROM '${file}' WITH (FORMAT csv)`)).rejects.toMatchObject({ code: '42501' })
    expect((await c.query('SELECT count(*) AS n FROM people')).rows).toEqual([{ n: '0' }])
    const allowing = await startServer({ engine, port: 0, allowServerFiles: true })
    const d = new pg.Client({ host: '127.0.0.1', port: allowing.port, user: 'app', database: 'db' })
    const notices: string[] = []
    d.on('notice', (n) => notices.push(n.message ?? ''))
    await d.connect()
    try {
      const r = await d.query(`COPY people FROM '${file}' WITH (FORMAT csv)`)
      expect(r.command).toBe('COPY')
      expect(r.rowCount).toBe(1)
      expect(notices).toEqual(['1 record rejected: see rivulet_rejected'])
      expect((await d.query('SELECT name FROM people')).rows).toEqual([{ name: 'ann' }])
    } finally {
      await d.end()
      await allowing.close()
    }
  })
})

describe('late events over the server', () => {
  it('come back as a NOTICE with the count, as psql shows it', async () => {
    engine.execute('DROP TABLE IF EXISTS clicks CASCADE')
    engine.execute("CREATE STREAM clicks (ts TIMESTAMP, n INT, WATERMARK FOR ts AS ts)")
    const c = await client()
    const notices: string[] = []
    c.on('notice', (n) => notices.push(n.message ?? ''))
    await c.query("INSERT INTO clicks VALUES ('2024-01-01 10:00:00', 1)")
    const r = await c.query("INSERT INTO clicks VALUES ('2024-01-01 09:59:59', 2), ('2024-01-01 10:00:00', 3)")
    expect(r.rowCount).toBe(1)
    expect(notices).toEqual(['1 late event on stream "clicks" not applied (event time below the watermark): see rivulet_late_events'])
    engine.execute('DROP TABLE clicks')
  })
})

describe('catalog names in data', () => {
  it('a catalog name in a string literal or a parameter does not change the result', async () => {
    const c = await client()
    await c.query('CREATE TABLE notes (note TEXT)')
    await c.query("INSERT INTO notes VALUES ('pg_catalog.pg_proc'), ('plain')")
    expect((await c.query("SELECT note FROM notes WHERE note <> 'pg_catalog.pg_proc'")).rows).toEqual([{ note: 'plain' }])
    expect((await c.query("SELECT count(*)::int AS n FROM notes WHERE note LIKE '%pg_roles%' OR note = 'information_schema.tables'")).rows).toEqual([{ n: 0 }])
    expect((await c.query({ text: 'SELECT note FROM notes WHERE note = $1', values: ['pg_catalog.pg_proc'] })).rows).toEqual([{ note: 'pg_catalog.pg_proc' }])
    expect((await c.query("SELECT 'pg_catalog.pg_proc' AS note")).rows).toEqual([{ note: 'pg_catalog.pg_proc' }])
    await c.query('DROP TABLE notes')
  })

  it('pg_catalog and information_schema are relations the planner queries', async () => {
    const c = await client()
    // real rows, not an empty stand-in
    const types = await c.query("SELECT oid::int AS oid, typname FROM pg_catalog.pg_type WHERE typname IN ('int4', 'text') ORDER BY oid")
    expect(types.rows).toEqual([{ oid: 23, typname: 'int4' }, { oid: 25, typname: 'text' }])
    expect(types.fields.map((f) => f.name)).toEqual(['oid', 'typname'])
    expect((await c.query("SELECT count(*)::int AS n FROM pg_catalog.pg_class WHERE relname = 'people'")).rows).toEqual([{ n: 1 }])
    // the kind of query introspection tools (kysely, drizzle) send
    const cols = await c.query(
      `SELECT c.column_name, c.data_type, c.is_nullable, c.column_default, c.ordinal_position
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE t.table_schema = $1 AND t.table_type = 'BASE TABLE' AND t.table_name = $2
        ORDER BY c.ordinal_position`,
      ['public', 'people'],
    )
    expect(cols.rows.map((r: { column_name: string; data_type: string; is_nullable: string }) => [r.column_name, r.data_type, r.is_nullable])).toEqual([
      ['id', 'integer', 'NO'],
      ['name', 'text', 'YES'],
      ['score', 'double precision', 'YES'],
      ['active', 'boolean', 'YES'],
      ['born', 'date', 'YES'],
    ])
    const attrs = await c.query(
      `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
              coalesce(i.indisprimary, false) AS pk
         FROM pg_catalog.pg_attribute a
         JOIN pg_catalog.pg_class cl ON cl.oid = a.attrelid
         JOIN pg_catalog.pg_namespace n ON n.oid = cl.relnamespace
         LEFT JOIN pg_catalog.pg_index i ON i.indrelid = cl.oid AND a.attnum = ANY (i.indkey)
        WHERE n.nspname = 'public' AND cl.relname = 'people' AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
    )
    expect(attrs.rows[0]).toEqual({ attname: 'id', type: 'integer', attnotnull: true, pk: true })
    expect(attrs.rows[2]).toEqual({ attname: 'score', type: 'double precision', attnotnull: false, pk: false })
    const keys = await c.query("SELECT column_name FROM information_schema.key_column_usage WHERE table_name = 'people' AND constraint_name = 'people_pkey'")
    expect(keys.rows).toEqual([{ column_name: 'id' }])
    expect((await c.query('SELECT current_user AS u, current_database() AS d')).rows).toEqual([{ u: 'app', d: 'db' }])
    // read-only
    await expect(c.query("INSERT INTO pg_catalog.pg_class (relname) VALUES ('x')")).rejects.toMatchObject({ code: '42501' })
  })
})
