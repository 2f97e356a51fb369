// The wire protocol byte by byte, from raw sockets: startup (SSL/GSS refusal, protocol
// versions, ParameterStatus), simple and extended query flows, error fields, binary results,
// sessions sharing the engine's transaction, subscription buffers that a client does not read,
// and fuzzing with malformed, truncated and oversized messages — after which the server must
// still answer, with no exception escaping.

import { connect, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { parse } from '../../grammar/index.js'
import { parseTimeout, sessionAction } from '../../src/server/commands.js'
import { bindParameters, mapOffsetBack, parameterSites } from '../../src/server/parameters.js'

// ------------------------------------------------------------------ a raw protocol client

interface Msg {
  readonly type: string
  readonly body: Buffer
}

function frame(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts)
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
const cstr = (s: string): Buffer => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])])
const i16 = (n: number): Buffer => {
  const b = Buffer.alloc(2)
  b.writeInt16BE(n)
  return b
}
const i32 = (n: number): Buffer => {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

const fe = {
  startup(params: Record<string, string>, version = 196608): Buffer {
    const body = Buffer.concat([i32(version), ...Object.entries(params).flatMap(([k, v]) => [cstr(k), cstr(v)]), Buffer.from([0])])
    return Buffer.concat([i32(body.length + 4), body])
  },
  code: (code: number, ...rest: number[]): Buffer => Buffer.concat([i32(8 + 4 * rest.length), i32(code), ...rest.map(i32)]),
  query: (sql: string): Buffer => frame('Q', cstr(sql)),
  parse: (name: string, sql: string, types: number[] = []): Buffer => frame('P', cstr(name), cstr(sql), i16(types.length), ...types.map(i32)),
  bind(portal: string, stmt: string, params: (string | Buffer | null)[], resultFormats: number[] = [], paramFormats: number[] = []): Buffer {
    const vals = params.map((p) => (p === null ? i32(-1) : Buffer.concat([i32(Buffer.byteLength(p)), typeof p === 'string' ? Buffer.from(p, 'utf8') : p])))
    return frame('B', cstr(portal), cstr(stmt), i16(paramFormats.length), ...paramFormats.map(i16), i16(params.length), ...vals, i16(resultFormats.length), ...resultFormats.map(i16))
  },
  describe: (kind: 'S' | 'P', name: string): Buffer => frame('D', Buffer.from(kind), cstr(name)),
  execute: (portal: string, limit = 0): Buffer => frame('E', cstr(portal), i32(limit)),
  close: (kind: 'S' | 'P', name: string): Buffer => frame('C', Buffer.from(kind), cstr(name)),
  sync: (): Buffer => frame('S'),
  flush: (): Buffer => frame('H'),
  terminate: (): Buffer => frame('X'),
}

class Raw {
  readonly socket: Socket
  #buf = Buffer.alloc(0)
  #waiters: (() => void)[] = []
  closed = false
  /** Bytes received before any message framing (the 'N' answers to SSL/GSS requests). */
  constructor(socket: Socket) {
    this.socket = socket
    socket.on('data', (d: Buffer) => {
      this.#buf = Buffer.concat([this.#buf, d])
      this.#wake()
    })
    socket.on('close', () => {
      this.closed = true
      this.#wake()
    })
    socket.on('error', () => undefined)
  }

  static open(port: number): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new Raw(s)))
      s.once('error', reject)
    })
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w()
  }

  async #wait(ms: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('timed out waiting for the server')), ms)
      this.#waiters.push(() => {
        clearTimeout(t)
        resolve()
      })
    })
  }

  send(b: Buffer): void {
    this.socket.write(b)
  }

  async byte(ms = 5000): Promise<string> {
    while (this.#buf.length < 1) {
      if (this.closed) throw new Error('closed')
      await this.#wait(ms)
    }
    const c = String.fromCharCode(this.#buf[0]!)
    this.#buf = this.#buf.subarray(1)
    return c
  }

  async next(ms = 5000): Promise<Msg> {
    for (;;) {
      if (this.#buf.length >= 5) {
        const len = this.#buf.readInt32BE(1)
        if (this.#buf.length >= len + 1) {
          const m = { type: String.fromCharCode(this.#buf[0]!), body: this.#buf.subarray(5, len + 1) }
          this.#buf = this.#buf.subarray(len + 1)
          return m
        }
      }
      if (this.closed) throw new Error('closed')
      await this.#wait(ms)
    }
  }

  /** Messages up to and including ReadyForQuery. */
  async untilReady(ms = 5000): Promise<Msg[]> {
    const out: Msg[] = []
    for (;;) {
      const m = await this.next(ms)
      out.push(m)
      if (m.type === 'Z') return out
    }
  }

  async start(params: Record<string, string> = { user: 'tester', database: 'db' }): Promise<Msg[]> {
    this.send(fe.startup(params))
    return this.untilReady()
  }

  async simple(sql: string): Promise<Msg[]> {
    this.send(fe.query(sql))
    return this.untilReady()
  }

  end(): void {
    this.socket.destroy()
  }
}

/** The fields of an ErrorResponse / NoticeResponse. */
function errorFields(m: Msg): Record<string, string> {
  const out: Record<string, string> = {}
  let i = 0
  while (i < m.body.length && m.body[i] !== 0) {
    const code = String.fromCharCode(m.body[i]!)
    const end = m.body.indexOf(0, i + 1)
    out[code] = m.body.subarray(i + 1, end).toString('utf8')
    i = end + 1
  }
  return out
}

/** DataRow values as text (null for NULL). */
function dataRow(m: Msg): (string | null)[] {
  const n = m.body.readInt16BE(0)
  const out: (string | null)[] = []
  let pos = 2
  for (let k = 0; k < n; k++) {
    const len = m.body.readInt32BE(pos)
    pos += 4
    if (len < 0) out.push(null)
    else {
      out.push(m.body.subarray(pos, pos + len).toString('utf8'))
      pos += len
    }
  }
  return out
}

function rowDescription(m: Msg): { name: string; oid: number; format: number }[] {
  const n = m.body.readInt16BE(0)
  const out = []
  let pos = 2
  for (let k = 0; k < n; k++) {
    const end = m.body.indexOf(0, pos)
    const name = m.body.subarray(pos, end).toString('utf8')
    pos = end + 1
    out.push({ name, oid: m.body.readInt32BE(pos + 6), format: m.body.readInt16BE(pos + 16) })
    pos += 18
  }
  return out
}

const types = (ms: readonly Msg[]): string => ms.map((m) => m.type).join('')
const tag = (m: Msg): string => m.body.subarray(0, m.body.length - 1).toString('utf8')
const status = (ms: readonly Msg[]): string => String.fromCharCode(ms[ms.length - 1]!.body[0]!)
const rows = (ms: readonly Msg[]): (string | null)[][] => ms.filter((m) => m.type === 'D').map(dataRow)

// ------------------------------------------------------------------ server per test file

let engine: Engine
let server: RunningServer
const clients: Raw[] = []
const uncaught: unknown[] = []
const onUncaught = (e: unknown): void => void uncaught.push(e)

async function client(): Promise<Raw> {
  const c = await Raw.open(server.port)
  clients.push(c)
  return c
}

beforeAll(async () => {
  process.on('uncaughtException', onUncaught)
  process.on('unhandledRejection', onUncaught)
  engine = Engine.open()
  server = await startServer({ engine, port: 0, subscriptionBufferBytes: 256 * 1024, maxMessageBytes: 1024 * 1024 })
})

afterAll(async () => {
  await server.close()
  engine.close()
  process.off('uncaughtException', onUncaught)
  process.off('unhandledRejection', onUncaught)
})

beforeEach(() => {
  engine.execute('DROP TABLE IF EXISTS t CASCADE')
  engine.execute('CREATE TABLE t (k INT PRIMARY KEY, v TEXT)')
})

afterEach(() => {
  for (const c of clients.splice(0)) c.end()
  expect(uncaught).toEqual([])
})

// ------------------------------------------------------------------ tests

describe('startup', () => {
  it('refuses SSL and GSS encryption with N, then starts in the clear with the ParameterStatus set', async () => {
    const c = await client()
    c.send(fe.code(80877103))
    expect(await c.byte()).toBe('N')
    c.send(fe.code(80877104))
    expect(await c.byte()).toBe('N')
    const ms = await c.start({ user: 'alice', database: 'shop', application_name: 'wire-test' })
    expect(ms[0]!.type).toBe('R')
    expect(ms[0]!.body.readInt32BE(0)).toBe(0) // AuthenticationOk (trust)
    const params = Object.fromEntries(
      ms
        .filter((m) => m.type === 'S')
        .map((m) => {
          const [k, v] = m.body.toString('utf8').split('\0')
          return [k!, v!]
        }),
    )
    expect(params).toMatchObject({
      server_version: '15.0 (rivulet)',
      server_encoding: 'UTF8',
      client_encoding: 'UTF8',
      DateStyle: 'ISO, MDY',
      integer_datetimes: 'on',
      standard_conforming_strings: 'on',
      TimeZone: 'UTC',
      application_name: 'wire-test',
      session_authorization: 'alice',
    })
    expect(types(ms).endsWith('KZ')).toBe(true)
    expect(status(ms)).toBe('I')
    const r = await c.simple('SELECT current_user, current_database()')
    expect(rows(r)).toEqual([['alice', 'shop']])
  })

  it('negotiates a newer 3.x minor version down to 3.0 and refuses other majors', async () => {
    const c = await client()
    c.send(fe.startup({ user: 'u', '_pq_.future': 'x' }, (3 << 16) | 2))
    const ms = await c.untilReady()
    expect(ms[0]!.type).toBe('v')
    expect(ms[0]!.body.readInt32BE(0)).toBe(0)
    expect(ms[0]!.body.readInt32BE(4)).toBe(1)
    const old = await client()
    old.send(fe.startup({ user: 'u' }, 2 << 16))
    const e = await old.next()
    expect(e.type).toBe('E')
    expect(errorFields(e)).toMatchObject({ S: 'FATAL', C: '0A000' })
  })

  it('requires a user name', async () => {
    const c = await client()
    c.send(fe.startup({ database: 'x' }))
    expect(errorFields(await c.next())).toMatchObject({ S: 'FATAL', C: '28000' })
  })
})

describe('simple query', () => {
  it('answers each statement of a multi-statement query; an error stops the rest', async () => {
    const c = await client()
    await c.start()
    const ms = await c.simple("INSERT INTO t VALUES (1, 'a'); SELECT k, v FROM t; SELECT nosuch FROM t; INSERT INTO t VALUES (2, 'b')")
    expect(types(ms)).toBe('CTDCEZ')
    expect(tag(ms[0]!)).toBe('INSERT 0 1')
    expect(rowDescription(ms[1]!)).toEqual([
      { name: 'k', oid: 23, format: 0 },
      { name: 'v', oid: 25, format: 0 },
    ])
    expect(tag(ms[3]!)).toBe('SELECT 1')
    // P: 1-based character position in the whole query string
    const sql = "INSERT INTO t VALUES (1, 'a'); SELECT k, v FROM t; SELECT nosuch FROM t; INSERT INTO t VALUES (2, 'b')"
    expect(errorFields(ms[4]!)).toMatchObject({ S: 'ERROR', V: 'ERROR', C: '42703', M: 'column "nosuch" does not exist', P: String(sql.indexOf('nosuch') + 1) })
    expect(engine.query('SELECT count(*) FROM t').rows).toEqual([[1]])
  })

  it('counts the error position in characters, not bytes', async () => {
    const c = await client()
    await c.start()
    const sql = "SELECT 'é☃😀', nosuch FROM t"
    const ms = await c.simple(sql)
    expect(errorFields(ms[0]!).P).toBe(String([...sql.slice(0, sql.indexOf('nosuch'))].length + 1))
  })

  it('sends EmptyQueryResponse for an empty query', async () => {
    const c = await client()
    await c.start()
    expect(types(await c.simple(''))).toBe('IZ')
    expect(types(await c.simple(' ; -- nothing\n'))).toBe('IZ')
  })

  it('formats values as Postgres text: booleans t/f, floats, NULL, timestamps', async () => {
    const c = await client()
    await c.start()
    const ms = await c.simple("SELECT true AS b, 1.5::float8 AS f, 'NaN'::float8 AS n, 'Infinity'::float8 AS i, NULL::int AS z, '2024-01-02 03:04:05'::timestamp AS ts, 9007199254740991::bigint AS big")
    expect(rows(ms)).toEqual([['t', '1.5', 'NaN', 'Infinity', null, '2024-01-02 03:04:05', '9007199254740991']])
    expect(rowDescription(ms[0]!).map((f) => f.oid)).toEqual([16, 701, 701, 701, 23, 1114, 20])
  })

  it('answers driver probes and session settings', async () => {
    const c = await client()
    await c.start()
    expect(rows(await c.simple('SELECT version()'))[0]![0]).toMatch(/^PostgreSQL 15\.0 \(rivulet\)/)
    expect(rows(await c.simple('SHOW server_version'))).toEqual([['15.0 (rivulet)']])
    expect(rows(await c.simple('SHOW transaction_isolation'))).toEqual([['read committed']])
    expect(rows(await c.simple('SELECT current_schema()'))).toEqual([['public']])
    const set = await c.simple("SET application_name = 'renamed'")
    expect(types(set)).toBe('CSZ') // ParameterStatus for a reported setting, before ReadyForQuery
    expect(rows(await c.simple('SHOW application_name'))).toEqual([['renamed']])
    expect(errorFields((await c.simple('SHOW no_such_setting'))[0]!).C).toBe('42704')
    expect(rows(await c.simple('SHOW TABLES'))).toEqual([['t']])
  })
})

describe('extended query', () => {
  it('Parse/Bind/Describe/Execute with a row limit: PortalSuspended, then the rest', async () => {
    engine.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    const c = await client()
    await c.start()
    c.send(Buffer.concat([fe.parse('s1', 'SELECT k, v FROM t WHERE k >= $1 ORDER BY k', [23]), fe.describe('S', 's1'), fe.bind('', 's1', ['1']), fe.describe('P', ''), fe.execute('', 2), fe.execute('', 2), fe.sync()]))
    const ms = await c.untilReady()
    expect(types(ms)).toBe('1tT2TDDsDCZ')
    const pd = ms[1]!
    expect(pd.body.readInt16BE(0)).toBe(1)
    expect(pd.body.readInt32BE(2)).toBe(23)
    expect(rows(ms)).toEqual([
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'c'],
    ])
    expect(tag(ms[9]!)).toBe('SELECT 1')
    // the named statement is reused with another parameter
    c.send(Buffer.concat([fe.bind('p2', 's1', ['3']), fe.execute('p2'), fe.close('P', 'p2'), fe.sync()]))
    const again = await c.untilReady()
    expect(types(again)).toBe('2DC3Z')
    expect(rows(again)).toEqual([['3', 'c']])
  })

  it('substitutes parameters as quoted literals: quotes, NULL, injection attempts', async () => {
    const c = await client()
    await c.start()
    const evil = "x'); DROP TABLE t; --"
    c.send(Buffer.concat([fe.parse('', 'INSERT INTO t VALUES ($1, $2)'), fe.bind('', '', ['7', evil]), fe.execute(''), fe.parse('', 'INSERT INTO t VALUES ($1, $2)'), fe.bind('', '', ['8', null]), fe.execute(''), fe.sync()]))
    expect(types(await c.untilReady())).toBe('12C12CZ')
    expect(engine.query('SELECT k, v FROM t ORDER BY k').rows).toEqual([
      [7, evil],
      [8, null],
    ])
    // $1 inside a string literal or a comment is not a parameter
    c.send(Buffer.concat([fe.parse('', "SELECT '$1' AS a, $1 AS b -- $2"), fe.bind('', '', ["it's"]), fe.execute(''), fe.sync()]))
    expect(rows(await c.untilReady())).toEqual([['$1', "it's"]])
  })

  it('DML describes as NoData; an error skips everything up to Sync', async () => {
    const c = await client()
    await c.start()
    c.send(Buffer.concat([fe.parse('', 'INSERT INTO t VALUES ($1, $2)'), fe.describe('S', ''), fe.sync()]))
    expect(types(await c.untilReady())).toBe('1tnZ')
    c.send(Buffer.concat([fe.parse('', 'SELECT nosuch FROM t WHERE k = $1'), fe.bind('', '', ['1']), fe.execute(''), fe.parse('', 'SELECT 1'), fe.bind('', '', []), fe.execute(''), fe.sync()]))
    const ms = await c.untilReady()
    expect(types(ms)).toBe('12EZ')
    expect(errorFields(ms[2]!)).toMatchObject({ C: '42703', P: '8' })
    // the session goes on
    expect(rows(await c.simple('SELECT 2'))).toEqual([['2']])
  })

  it('sends binary results when asked for types with a binary form', async () => {
    engine.execute("INSERT INTO t VALUES (258, 'héllo')")
    const c = await client()
    await c.start()
    c.send(Buffer.concat([fe.parse('', 'SELECT k, v, 1.5::numeric AS n FROM t'), fe.bind('', '', [], [1]), fe.describe('P', ''), fe.execute(''), fe.sync()]))
    const ms = await c.untilReady()
    expect(rowDescription(ms[2]!).map((f) => f.format)).toEqual([1, 1, 0]) // numeric stays text
    const d = ms.find((m) => m.type === 'D')!
    expect(d.body.readInt32BE(2)).toBe(4)
    expect(d.body.readInt32BE(6)).toBe(258)
    expect(d.body.subarray(14, 20).toString('utf8')).toBe('héllo')
  })

  it('accepts binary int parameters and refuses unknown binary formats', async () => {
    const c = await client()
    await c.start()
    c.send(Buffer.concat([fe.parse('', 'SELECT $1::int + 1 AS x', [23]), fe.bind('', '', [i32(41)], [], [1]), fe.execute(''), fe.sync()]))
    expect(rows(await c.untilReady())).toEqual([['42']])
    c.send(Buffer.concat([fe.parse('', 'SELECT $1 AS x', [1082]), fe.bind('', '', [i32(1)], [], [1]), fe.execute(''), fe.sync()]))
    expect(errorFields((await c.untilReady()).find((m) => m.type === 'E')!).C).toBe('22P03')
  })

  it('refuses a Parse of several statements and unknown statement names', async () => {
    const c = await client()
    await c.start()
    c.send(Buffer.concat([fe.parse('', 'SELECT 1; SELECT 2'), fe.sync()]))
    expect(errorFields((await c.untilReady())[0]!).C).toBe('42601')
    c.send(Buffer.concat([fe.bind('', 'nope', []), fe.sync()]))
    expect(errorFields((await c.untilReady())[0]!).C).toBe('26000')
  })
})

describe('sessions sharing the engine', () => {
  it("another session never waits for an open write transaction: it reads the last commit, then sees the commit", async () => {
    const a = await client()
    const b = await client()
    await a.start()
    await b.start()
    expect(status(await a.simple('BEGIN'))).toBe('T')
    expect(status(await a.simple("INSERT INTO t VALUES (1, 'a')"))).toBe('T')
    // B does not see A's uncommitted row, and is answered at once
    expect(rows(await b.simple('SELECT count(*) FROM t'))).toEqual([['0']])
    expect(status(await b.simple("INSERT INTO t VALUES (2, 'b')"))).toBe('I')
    // A's block still sees its own row (and B's committed one)
    expect(rows(await a.simple('SELECT count(*) FROM t'))).toEqual([['2']])
    expect(status(await a.simple('COMMIT'))).toBe('I')
    expect(rows(await b.simple('SELECT count(*) FROM t'))).toEqual([['2']])
  })

  it('the later of two conflicting transactions fails at COMMIT with 40001 and changes nothing', async () => {
    const a = await client()
    const b = await client()
    await a.start()
    await b.start()
    await a.simple("INSERT INTO t VALUES (1, 'a')")
    await a.simple('BEGIN')
    await b.simple('BEGIN')
    await a.simple("UPDATE t SET v = 'from a' WHERE k = 1")
    await b.simple("UPDATE t SET v = 'from b' WHERE k = 1")
    expect(status(await a.simple('COMMIT'))).toBe('I')
    const commit = await b.simple('COMMIT')
    expect(errorFields(commit[0]!).C).toBe('40001')
    expect(status(commit)).toBe('I')
    expect(engine.query('SELECT v FROM t').rows).toEqual([['from a']])
  })

  it('a disconnect inside a transaction rolls it back and frees the engine', async () => {
    const a = await client()
    await a.start()
    await a.simple('BEGIN')
    await a.simple("INSERT INTO t VALUES (1, 'a')")
    a.end()
    const b = await client()
    await b.start()
    expect(rows(await b.simple('SELECT count(*) FROM t'))).toEqual([['0']])
    expect(engine.inTransaction).toBe(false)
  })

  it('an error inside a block aborts it (E) until ROLLBACK; COMMIT then reports ROLLBACK', async () => {
    const c = await client()
    await c.start()
    await c.simple('BEGIN')
    await c.simple("INSERT INTO t VALUES (1, 'a')")
    const err = await c.simple('SELECT nosuch FROM t')
    expect(status(err)).toBe('E')
    const ignored = await c.simple('SELECT 1')
    expect(errorFields(ignored[0]!).C).toBe('25P02')
    const commit = await c.simple('COMMIT')
    expect(tag(commit[0]!)).toBe('ROLLBACK')
    expect(status(commit)).toBe('I')
    expect(engine.query('SELECT count(*) FROM t').rows).toEqual([[0]])
  })
})

describe('subscriptions', () => {
  it('streams COPY (SUBSCRIBE …) TO STDOUT; a disconnect stops it and drops its hidden view', async () => {
    engine.execute("INSERT INTO t VALUES (1, 'a\tb')")
    const c = await client()
    await c.start()
    c.send(fe.query('COPY (SUBSCRIBE t) TO STDOUT'))
    const h = await c.next()
    expect(h.type).toBe('H')
    expect(h.body.readInt16BE(1)).toBe(4) // tick, diff, k, v
    const first = await c.next()
    expect(first.type).toBe('d')
    expect(first.body.toString('utf8')).toMatch(/^\d+\t1\t1\ta\\tb\n$/)
    engine.execute("INSERT INTO t VALUES (2, NULL)")
    expect((await c.next()).body.toString('utf8')).toMatch(/^\d+\t1\t2\t\\N\n$/)
    expect(engine.query('SHOW VIEWS').rows.some((r) => String(r[0]).startsWith('__rivulet_subscribe_'))).toBe(true)
    c.end()
    await new Promise((r) => setTimeout(r, 100))
    expect(engine.query('SHOW VIEWS').rows).toEqual([])
  })

  it("ends a COPY subscription whose client does not read, instead of buffering without bound", async () => {
    const c = await client()
    await c.start()
    c.send(fe.query('COPY (SUBSCRIBE t) TO STDOUT'))
    expect((await c.next()).type).toBe('H')
    c.socket.pause() // the client stops reading
    const big = 'x'.repeat(1000)
    for (let batch = 0; batch < 40; batch++) {
      const values = Array.from({ length: 500 }, (_, i) => `(${batch * 500 + i}, '${big}')`).join(',')
      engine.execute(`INSERT INTO t VALUES ${values}`)
      await new Promise((r) => setImmediate(r))
    }
    // 20 MB of changes for a 256 KB buffer: the subscription is ended, memory stays bounded
    await new Promise((r) => setTimeout(r, 200))
    expect(engine.query('SHOW VIEWS').rows).toEqual([])
    c.socket.resume()
    let m: Msg
    do m = await c.next()
    while (m.type === 'd')
    expect(m.type).toBe('E')
    expect(errorFields(m).C).toBe('54000')
    expect((await c.next()).type).toBe('Z')
    // the session goes on
    expect(rows(await c.simple('SELECT 1'))).toEqual([['1']])
  })

  it('ends a cursor subscription whose client does not FETCH, with 54000 at the next FETCH', async () => {
    const c = await client()
    await c.start()
    await c.simple('BEGIN')
    expect(tag((await c.simple('DECLARE cur CURSOR FOR SUBSCRIBE t'))[0]!)).toBe('DECLARE CURSOR')
    const big = 'y'.repeat(1000)
    for (let batch = 0; batch < 4; batch++) engine.execute(`INSERT INTO t VALUES ${Array.from({ length: 100 }, (_, i) => `(${batch * 100 + i}, '${big}')`).join(',')}`)
    const r = await c.simple('FETCH ALL cur')
    expect(errorFields(r[0]!).C).toBe('54000')
    expect(status(r)).toBe('E')
    await c.simple('ROLLBACK')
    await new Promise((res) => setTimeout(res, 50))
    expect(engine.query('SHOW VIEWS').rows).toEqual([])
  })

  it('FETCH waits for rows without a timeout, returns none after one, and can be cancelled', async () => {
    const c = await client()
    const key = (await c.start()).find((m) => m.type === 'K')!
    await c.simple('BEGIN')
    await c.simple('DECLARE cur CURSOR FOR SUBSCRIBE t WITH (SNAPSHOT = false)')
    const empty = await c.simple("FETCH ALL cur WITH (timeout = '50ms')")
    expect(types(empty)).toBe('TCZ')
    expect(tag(empty[1]!)).toBe('FETCH 0')
    c.send(fe.query('FETCH 10 cur'))
    const waiting = c.untilReady()
    await new Promise((r) => setTimeout(r, 100))
    engine.execute("INSERT INTO t VALUES (5, 'e')")
    const got = await waiting
    expect(rows(got).map((r) => r.slice(1))).toEqual([['1', '5', 'e']])
    expect(rowDescription(got[0]!).map((f) => f.name)).toEqual(['tick', 'diff', 'k', 'v'])
    c.send(fe.query('FETCH cur'))
    const pending = c.untilReady()
    await new Promise((r) => setTimeout(r, 50))
    const cancel = await client()
    cancel.send(fe.code(80877102, key.body.readInt32BE(0), key.body.readInt32BE(4)))
    expect(errorFields((await pending)[0]!).C).toBe('57014')
    await c.simple('ROLLBACK')
  })

  it('refuses DECLARE outside a transaction block', async () => {
    const c = await client()
    await c.start()
    expect(errorFields((await c.simple('DECLARE cur CURSOR FOR SUBSCRIBE t'))[0]!).C).toBe('25P01')
  })
})

describe('robustness', () => {
  async function stillServes(): Promise<void> {
    const c = await client()
    await c.start()
    expect(rows(await c.simple('SELECT 42'))).toEqual([['42']])
  }

  it('closes on a length above the cap (54000) and on an invalid startup length', async () => {
    const c = await client()
    await c.start()
    c.send(Buffer.concat([Buffer.from('Q'), i32(64 * 1024 * 1024)]))
    const e = await c.next()
    expect(errorFields(e)).toMatchObject({ S: 'FATAL', C: '54000' })
    const bad = await client()
    bad.send(i32(3))
    expect(errorFields(await bad.next())).toMatchObject({ S: 'FATAL', C: '08P01' })
    await stillServes()
  })

  it('closes on an unknown message type with 08P01', async () => {
    const c = await client()
    await c.start()
    c.send(frame('~', Buffer.from('junk')))
    expect(errorFields(await c.next())).toMatchObject({ S: 'FATAL', C: '08P01' })
    await stillServes()
  })

  it('reports a malformed message body and goes on', async () => {
    const c = await client()
    await c.start()
    c.send(frame('Q', Buffer.from('no terminator')))
    const ms = await c.untilReady()
    expect(errorFields(ms[0]!).C).toBe('08P01')
    c.send(frame('Q', Buffer.from([0xff, 0xfe, 0])))
    expect(errorFields((await c.untilReady())[0]!).C).toBe('22021')
    await stillServes()
  })

  it('survives random bytes, truncated messages and abrupt disconnects', async () => {
    let seed = 12345
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const junk = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => rand(256)))
    const valid = [fe.query('SELECT 1'), fe.parse('', 'SELECT $1'), fe.bind('', '', ['1']), fe.describe('P', ''), fe.execute('', 1), fe.sync(), fe.query('COPY (SUBSCRIBE t) TO STDOUT'), fe.query('BEGIN'), fe.query("INSERT INTO t VALUES (1, 'x')")]
    for (let round = 0; round < 60; round++) {
      const c = await client()
      const mode = round % 4
      if (mode === 0) c.send(junk(1 + rand(64))) // garbage instead of a startup packet
      else {
        c.send(fe.startup({ user: 'fuzz' }))
        if (mode === 1) c.send(junk(1 + rand(200))) // garbage after startup
        else if (mode === 2) {
          // valid messages with random bytes flipped, then cut anywhere
          const msg = Buffer.from(valid[rand(valid.length)]!)
          for (let k = 0; k < 3; k++) msg[rand(msg.length)] = rand(256)
          c.send(msg.subarray(0, 1 + rand(msg.length)))
        } else {
          // a few valid messages, the last truncated
          const seq = Buffer.concat(Array.from({ length: 1 + rand(4) }, () => valid[rand(valid.length)]!))
          c.send(seq.subarray(0, rand(seq.length)))
        }
      }
      await new Promise((r) => setTimeout(r, rand(3) === 0 ? 20 : 1))
      c.end()
    }
    await new Promise((r) => setTimeout(r, 200))
    await stillServes()
    expect(engine.inTransaction).toBe(false)
    expect(engine.query('SHOW VIEWS').rows).toEqual([])
    expect(uncaught).toEqual([])
  })

  it('handles many sessions at once', async () => {
    const cs = await Promise.all(Array.from({ length: 20 }, () => client()))
    await Promise.all(cs.map((c) => c.start()))
    await Promise.all(cs.map((c, i) => c.simple(`INSERT INTO t VALUES (${i}, 'c${i}')`)))
    expect(engine.query('SELECT count(*) FROM t').rows).toEqual([[20]])
  })
})

describe('statements as the parser reads them', () => {
  const action = (sql: string) => sessionAction(parse(sql)[0]!, sql)
  it('finds parameters only where the parser makes them: not in literals, identifiers or comments', () => {
    const sql = `SELECT $1, '$2', "$3", E'\\' $5', /* $6 */ a$7, $8 -- $9`
    expect(parameterSites(parse(sql)).map((p) => p.index)).toEqual([1, 8])
    const src = 'SELECT $1 + nosuch LIMIT $2'
    const { text, edits } = bindParameters(src, parameterSites(parse(src)), (n, count) => (count ? '5' : `'long value ${n}'`))
    expect(text).toBe("SELECT 'long value 1' + nosuch LIMIT 5")
    expect(mapOffsetBack(text.indexOf('nosuch'), edits)).toBe(src.indexOf('nosuch'))
  })

  it('decides what the session does from the parsed statement', () => {
    expect(action("FETCH 10 FROM c WITH (timeout = '1s')")).toEqual({ kind: 'fetch', name: 'c', count: 10, timeoutMs: 1000 })
    expect(action('FETCH ALL c')).toEqual({ kind: 'fetch', name: 'c', count: Infinity, timeoutMs: undefined })
    expect(action('declare "C" no scroll cursor for subscribe v')).toMatchObject({ kind: 'declare', name: 'C', query: 'subscribe v', subscribe: true })
    expect(action('COPY (SUBSCRIBE (SELECT 1)) TO STDOUT WITH (FORMAT csv, HEADER)')).toMatchObject({ kind: 'copyOut', query: 'SUBSCRIBE (SELECT 1)', subscribe: true, format: { csv: true, header: true } })
    expect(action('copy t (a, b) to stdout')).toMatchObject({ kind: 'copyOut', query: 'SELECT "a", "b" FROM "t"', subscribe: false })
    expect(action("SET search_path TO 'public', other")).toEqual({ kind: 'set', name: 'search_path', value: 'public, other' })
    expect(action('START TRANSACTION ISOLATION LEVEL SERIALIZABLE')).toEqual({ kind: 'begin' })
    expect(action('SELECT 1')).toEqual({ kind: 'engine', text: 'SELECT 1', at: 0, read: true })
    expect(action("COPY t FROM '/etc/passwd'")).toMatchObject({ kind: 'engine', read: false })
    expect(() => action('ROLLBACK TO SAVEPOINT a')).toThrow(/savepoints/)
    expect(parseTimeout('250ms')).toBe(250)
    expect(parseTimeout('1 minute')).toBe(60_000)
  })
})
