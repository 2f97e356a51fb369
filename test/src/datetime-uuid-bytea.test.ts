// The text forms of timestamptz, time, uuid and bytea (src/sql-runtime/timestamptz.ts,
// time-of-day.ts, uuid.ts, bytea.ts), the TimeZone setting and zone rules (time-zone.ts), the
// session TimeZone through the engine (SET / SHOW TIME ZONE per session, views in UTC) and
// across the wire (type OIDs, ParameterStatus). Expected values are PostgreSQL 15's.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { startServer } from '../../src/server/index.js'
import { formatTimestamptz, parseTimestamptz } from '../../src/sql-runtime/timestamptz.js'
import { formatOffset, fromLocal, parseTimeZoneSetting, toLocal, UTC } from '../../src/sql-runtime/time-zone.js'
import { formatTime, parseTime } from '../../src/sql-runtime/time-of-day.js'
import { parseUuid } from '../../src/sql-runtime/uuid.js'
import { decode, encode, parseBytea } from '../../src/sql-runtime/bytea.js'
import { parseTimestamp } from '../../src/sql-runtime/datetime.js'
import { rivuletError } from '../helpers/errors.js'

const paris = parseTimeZoneSetting('Europe/Paris')
const kolkata = parseTimeZoneSetting('asia/kolkata')
const ts = (s: string) => parseTimestamp(s)
const sqlError = (f: () => unknown) => {
  const e = rivuletError(f)
  return { code: e.code, message: e.message }
}

describe('TimeZone settings', () => {
  it('names zones as PostgreSQL shows them', () => {
    expect(paris.name).toBe('Europe/Paris')
    expect(kolkata.name).toBe('Asia/Kolkata')
    expect(parseTimeZoneSetting(undefined)).toBe(UTC)
    expect(parseTimeZoneSetting('UTC').fixedOffset).toBe(0)
    expect(parseTimeZoneSetting('2')).toEqual({ name: '<+02>-02', fixedOffset: 7200 })
    expect(parseTimeZoneSetting('5.5')).toEqual({ name: '<+05:30>-05:30', fixedOffset: 19800 })
    expect(parseTimeZoneSetting("INTERVAL '-08:00'")).toEqual({ name: '<-08>+08', fixedOffset: -28800 })
    // a POSIX offset counts west of Greenwich
    expect(parseTimeZoneSetting('+02:00')).toEqual({ name: '+02:00', fixedOffset: -7200 })
    expect(sqlError(() => parseTimeZoneSetting('Mars/Olympus_Mons'))).toEqual({ code: '22023', message: 'invalid value for parameter "TimeZone": "Mars/Olympus_Mons"' })
  })

  it('prints offsets as PostgreSQL does', () => {
    expect([formatOffset(3600), formatOffset(-19800), formatOffset(561), formatOffset(0)]).toEqual(['+01', '-05:30', '+00:09:21', '+00'])
  })

  it('reads a local time in a DST gap with the offset before it, in an overlap with the offset after it', () => {
    const gap = fromLocal(ts('2024-03-31 02:30'), paris)
    expect(formatTimestamptz(gap, paris)).toBe('2024-03-31 03:30:00+02')
    const overlap = fromLocal(ts('2024-10-27 02:30'), paris)
    expect(formatTimestamptz(overlap, paris)).toBe('2024-10-27 02:30:00+01')
    expect(toLocal(overlap, paris)).toBe(ts('2024-10-27 02:30'))
  })
})

describe('timestamptz text', () => {
  it('reads offsets, zone names and abbreviations, else the session zone', () => {
    expect(formatTimestamptz(parseTimestamptz('2024-01-01 10:00:00.5+05:30', UTC), UTC)).toBe('2024-01-01 04:30:00.5+00')
    expect(formatTimestamptz(parseTimestamptz('2024-07-01 12:00 Europe/Paris', UTC), UTC)).toBe('2024-07-01 10:00:00+00')
    expect(formatTimestamptz(parseTimestamptz('2024-06-01 12:00 PST', UTC), UTC)).toBe('2024-06-01 20:00:00+00')
    expect(formatTimestamptz(parseTimestamptz('2024-07-01T12:00:00Z', paris), paris)).toBe('2024-07-01 14:00:00+02')
    expect(formatTimestamptz(parseTimestamptz('2024-01-01 10:00', kolkata), kolkata)).toBe('2024-01-01 10:00:00+05:30')
    expect(formatTimestamptz(parseTimestamptz('1900-01-01', paris), paris)).toBe('1900-01-01 00:00:00+00:09:21')
    expect(formatTimestamptz(parseTimestamptz('infinity', paris), paris)).toBe('infinity')
    expect(sqlError(() => parseTimestamptz('2024-01-01 10:00 Mars/Base', UTC))).toEqual({ code: '22023', message: 'time zone "mars/base" not recognized' })
    expect(sqlError(() => parseTimestamptz('soon', UTC)).code).toBe('22007')
  })
})

describe('time text', () => {
  it('reads and prints times of day', () => {
    expect(formatTime(parseTime('12:34:56.789', UTC))).toBe('12:34:56.789')
    expect(formatTime(parseTime('2:30 pm', UTC))).toBe('14:30:00')
    expect(formatTime(parseTime('24:00', UTC))).toBe('24:00:00')
    expect(formatTime(parseTime('2024-01-01 01:02:03', UTC))).toBe('01:02:03')
    expect(formatTime(parseTime('allballs', UTC))).toBe('00:00:00')
    expect(sqlError(() => parseTime('25:00', UTC)).code).toBe('22008')
  })
})

describe('uuid text', () => {
  it('reads the forms PostgreSQL accepts and prints lower case with hyphens', () => {
    const u = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
    for (const s of ['A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}', 'a0eebc999c0b4ef8bb6d6bb9bd380a11', 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11']) expect(parseUuid(s)).toBe(u)
    for (const s of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', '-a0eebc999c0b4ef8bb6d6bb9bd380a11', 'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11', '{a0eebc999c0b4ef8bb6d6bb9bd380a11', 'a0eebc999c0b4ef8bb6d6bb9bd380a1g']) {
      expect(sqlError(() => parseUuid(s))).toEqual({ code: '22P02', message: `invalid input syntax for type uuid: "${s}"` })
    }
  })
})

describe('bytea text', () => {
  it('reads hex and escape input and prints hex', () => {
    expect(parseBytea('\\xDEADbeef')).toBe('\\xdeadbeef')
    expect(parseBytea('\\x 01 02')).toBe('\\x0102')
    expect(parseBytea('a\\000b\\\\c')).toBe('\\x6100625c63')
    expect(parseBytea('é')).toBe('\\xc3a9')
    expect(parseBytea('')).toBe('\\x')
    expect(sqlError(() => parseBytea('\\x012'))).toEqual({ code: '22023', message: 'invalid hexadecimal data: odd number of digits' })
    expect(sqlError(() => parseBytea('\\x0g'))).toEqual({ code: '22023', message: 'invalid hexadecimal digit: "g"' })
    expect(sqlError(() => parseBytea('\\9')).code).toBe('22P02')
  })

  it('encodes and decodes hex, base64 and escape', () => {
    const b = parseBytea('\\x00415c80ff')
    expect(encode(b, 'hex')).toBe('00415c80ff')
    expect(encode(b, 'escape')).toBe('\\000A\\\\\\200\\377')
    expect(decode(encode(b, 'escape'), 'escape')).toBe(b)
    expect(decode(encode(b, 'base64'), 'base64')).toBe(b)
    expect(encode(parseBytea('\\x' + 'ab'.repeat(60)), 'base64').split('\n').map((l) => l.length)).toEqual([76, 4])
  })
})

describe('the session TimeZone', () => {
  it('is per session; views are maintained in UTC and refused when they would depend on another zone', () => {
    const db = Engine.open()
    db.execute("CREATE TABLE t (at TIMESTAMPTZ); INSERT INTO t VALUES ('2024-01-01 23:30+00')")
    const other = db.session()
    other.execute("SET TIME ZONE 'Asia/Tokyo'")
    expect(other.query('SHOW TIME ZONE').rows).toEqual([['Asia/Tokyo']])
    expect(db.query('SHOW TIME ZONE').rows).toEqual([['UTC']])
    expect(other.query('SELECT at, at::date FROM t').rows).toEqual([['2024-01-02 08:30:00+09', '2024-01-02']])
    expect(db.query('SELECT at, at::date FROM t').rows).toEqual([['2024-01-01 23:30:00+00', '2024-01-01']])
    // a view in a UTC session: its dates are UTC's, whoever writes or reads
    db.execute('CREATE MATERIALIZED VIEW days AS SELECT at, at::date AS d FROM t')
    other.execute("INSERT INTO t VALUES ('2024-01-02 00:30+09')")
    expect(other.query('SELECT * FROM days ORDER BY at').rows).toEqual([['2024-01-02 00:30:00+09', '2024-01-01'], ['2024-01-02 08:30:00+09', '2024-01-01']])
    expect(() => other.execute('CREATE MATERIALIZED VIEW local_days AS SELECT at::date AS d FROM t')).toThrow(/cannot depend on the session's TimeZone/)
    // an explicit zone is no dependence
    other.execute("CREATE MATERIALIZED VIEW tokyo_days AS SELECT (at AT TIME ZONE 'Asia/Tokyo')::date AS d, at FROM t WHERE at > '2024-01-01 00:00+00'")
    expect(db.query('SELECT d FROM tokyo_days ORDER BY d').rows).toEqual([['2024-01-02'], ['2024-01-02']])
    // a join on a zone-dependent key: the view's arrangement (UTC) is not the ad hoc one's
    db.execute("CREATE TABLE cal (d DATE, label TEXT); INSERT INTO cal VALUES ('2024-01-01', 'first'), ('2024-01-02', 'second')")
    const join = 'SELECT t.at, cal.label FROM t JOIN cal ON t.at::date = cal.d'
    db.execute(`CREATE MATERIALIZED VIEW labelled AS ${join}`)
    expect(db.query('SELECT label FROM labelled').rows).toEqual([['first'], ['first']])
    expect(other.query(`${join} ORDER BY t.at`).rows).toEqual([['2024-01-02 00:30:00+09', 'second'], ['2024-01-02 08:30:00+09', 'second']])
    db.close()
  })

  it('travels over the wire: type OIDs, SET / SHOW, ParameterStatus', async () => {
    const engine = Engine.open()
    const server = await startServer({ engine, port: 0 })
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'app', database: 'db' })
    const statuses: string[] = []
    c.on('error', () => undefined)
    await c.connect()
    ;(c as unknown as { connection: { on(e: string, f: (m: { parameterName: string; parameterValue: string }) => void): void } }).connection.on('parameterStatus', (m) => {
      if (m.parameterName === 'TimeZone') statuses.push(m.parameterValue)
    })
    try {
      await c.query("SET TIME ZONE 'Europe/Paris'")
      expect(statuses).toEqual(['Europe/Paris'])
      expect((await c.query('SHOW TIME ZONE')).rows).toEqual([{ TimeZone: 'Europe/Paris' }])
      const r = await c.query("SELECT timestamptz '2024-07-01 12:00+00' AS tz, time '10:00' AS t, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, '\\x0102'::bytea AS b")
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([1184, 1083, 2950, 17])
      expect(r.rows[0].t).toBe('10:00:00')
      expect(r.rows[0].u).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')
      expect(r.rows[0].tz).toEqual(new Date('2024-07-01T12:00:00Z'))
      expect(r.rows[0].b).toEqual(Buffer.from([1, 2]))
      const text = await c.query({ text: "SELECT timestamptz '2024-07-01 12:00+00'::text AS s", rowMode: 'array' })
      expect(text.rows).toEqual([['2024-07-01 14:00:00+02']])
      await expect(c.query("SET TIME ZONE 'Nowhere/Land'")).rejects.toMatchObject({ code: '22023' })
    } finally {
      await c.end()
      await server.close()
      engine.close()
    }
  })

  it('COPY reads and writes the text forms (psql \\copy, in the session zone)', async () => {
    const engine = Engine.open()
    const server = await startServer({ engine, port: 0 })
    const dir = mkdtempSync(join(tmpdir(), 'rivulet-types-copy-'))
    const input = join(dir, 'in.tsv')
    const output = join(dir, 'out.tsv')
    writeFileSync(input, '2024-01-01 10:00:00+00\t12:00\tA0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11\t\\\\x00ff\n2024-07-01 10:00\t\\N\t\\N\ta\\\\000b\n')
    const commands = ["SET TIME ZONE 'Europe/Paris'", 'CREATE TABLE c (at TIMESTAMPTZ, tm TIME, u UUID, b BYTEA)', `\\copy c from '${input}'`, `\\copy c to '${output}'`]
    const r = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile('psql', ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'copier', '-d', 'db', '-X', '-w', ...commands.flatMap((c) => ['-c', c])], { env: { ...process.env, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000 }, (_err, stdout, stderr) => resolve({ stdout, stderr })),
    )
    try {
      expect(r.stderr).toBe('')
      expect(readFileSync(output, 'utf8')).toBe('2024-01-01 11:00:00+01\t12:00:00\ta0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\t\\\\x00ff\n2024-07-01 10:00:00+02\t\\N\t\\N\t\\\\x610062\n')
      expect(engine.query('SELECT at, b FROM c ORDER BY at').rows).toEqual([['2024-01-01 10:00:00+00', '\\x00ff'], ['2024-07-01 08:00:00+00', '\\x610062']])
    } finally {
      await server.close()
      engine.close()
    }
  })
})
