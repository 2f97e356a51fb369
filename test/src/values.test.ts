// Value parsing/formatting, casts and API conversion. Expected strings were produced by
// PostgreSQL 15 (DateStyle ISO, IntervalStyle postgres, extra_float_digits default).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError } from '../../grammar/errors.js'
import { Interval, compareInterval, formatInterval, parseInterval } from '../../src/sql-runtime/interval.js'
import { castValue, formatOutput, fromInputValue, toResultValue, toText } from '../../src/sql-runtime/values.js'
import { clock, daysFromCivil, civilFromDays, formatDate, formatTimestamp, parseDate, parseTimestamp } from '../../src/sql-runtime/datetime.js'
import { compareFn, compareText, sortKeyCompare } from '../../src/sql-runtime/value-order.js'
import { formatFloat4, formatFloat8 } from '../../src/sql-runtime/number-text.js'

function sqlError(f: () => unknown): { code: string; message: string } {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(RivuletError)
    return { code: (e as RivuletError).code, message: (e as RivuletError).message }
  }
  throw new Error('expected an error')
}

const ts = (s: string) => formatTimestamp(parseTimestamp(s))
const iv = (s: string, u?: string, to?: string) => parseInterval(s, u, to).toString()

describe('calendar', () => {
  it('days from civil and back', () => {
    expect(daysFromCivil(1970, 1, 1)).toBe(0)
    expect(daysFromCivil(2024, 1, 1)).toBe(19723)
    expect(civilFromDays(19723)).toEqual([2024, 1, 1])
    expect(civilFromDays(-1)).toEqual([1969, 12, 31])
    fc.assert(fc.property(fc.integer({ min: -3_000_000, max: 3_000_000 }), (d) => {
      const [y, m, dd] = civilFromDays(d)
      return daysFromCivil(y, m, dd) === d
    }))
  })
})

describe('timestamps', () => {
  it('parses PG input forms', () => {
    expect(ts('2024-01-01')).toBe('2024-01-01 00:00:00')
    expect(ts('2024-01-01 10:00')).toBe('2024-01-01 10:00:00')
    expect(ts('2024-01-01T10:00:00Z')).toBe('2024-01-01 10:00:00')
    expect(ts('2024-01-01 10:00:00+05')).toBe('2024-01-01 10:00:00') // zone ignored, as PG
    expect(ts('2024-01-01T10:00:00+05:30')).toBe('2024-01-01 10:00:00')
    expect(ts('2024-01-01 10:00:00 UTC')).toBe('2024-01-01 10:00:00')
    expect(ts('2024-01-01 10:00:00.500')).toBe('2024-01-01 10:00:00.5')
    expect(ts('2024-01-01 10:00:00.1234567')).toBe('2024-01-01 10:00:00.123457')
    expect(ts('1999-12-31 23:59:59.9999999')).toBe('2000-01-01 00:00:00')
    expect(ts('2024-01-01 24:00:00')).toBe('2024-01-02 00:00:00')
    expect(ts('2024-01-01 23:59:60')).toBe('2024-01-02 00:00:00')
    expect(ts('  2024-1-5  ')).toBe('2024-01-05 00:00:00')
    expect(ts('Jan 5 2024')).toBe('2024-01-05 00:00:00')
    expect(ts('5 Jan 2024')).toBe('2024-01-05 00:00:00')
    expect(ts('January 5, 2024')).toBe('2024-01-05 00:00:00')
    expect(ts('01/05/2024')).toBe('2024-01-05 00:00:00')
    expect(ts('20240105')).toBe('2024-01-05 00:00:00')
    expect(ts('epoch')).toBe('1970-01-01 00:00:00')
    expect(ts('infinity')).toBe('infinity')
    expect(ts('-infinity')).toBe('-infinity')
    expect(ts('0001-01-01 BC')).toBe('0001-01-01 00:00:00 BC')
  })
  it('rejects bad input with PG errors', () => {
    expect(sqlError(() => parseTimestamp('abc'))).toEqual({ code: '22007', message: 'invalid input syntax for type timestamp: "abc"' })
    expect(sqlError(() => parseTimestamp(''))).toEqual({ code: '22007', message: 'invalid input syntax for type timestamp: ""' })
    expect(sqlError(() => parseTimestamp('2024-13-01'))).toEqual({ code: '22008', message: 'date/time field value out of range: "2024-13-01"' })
    expect(sqlError(() => parseTimestamp('2023-02-29')).code).toBe('22008')
    expect(sqlError(() => parseTimestamp('2024-01-01 25:00')).code).toBe('22008')
    expect(sqlError(() => parseDate('2024-02-30'))).toEqual({ code: '22008', message: 'date/time field value out of range: "2024-02-30"' })
  })
  it('formats like PG: fraction only when non-zero, trailing zeros trimmed', () => {
    expect(formatTimestamp(0)).toBe('1970-01-01 00:00:00')
    expect(formatTimestamp(-1)).toBe('1969-12-31 23:59:59.999999')
    expect(formatTimestamp(1704103200_000000)).toBe('2024-01-01 10:00:00')
    expect(formatTimestamp(1704103200_120000)).toBe('2024-01-01 10:00:00.12')
    expect(formatTimestamp(Infinity)).toBe('infinity')
  })
  it('round-trips format(parse(format(x)))', () => {
    fc.assert(fc.property(fc.integer({ min: -9_000_000_000_000_000, max: 9_000_000_000_000_000 }), (x) => {
      const s = formatTimestamp(x)
      return parseTimestamp(s) === x && formatTimestamp(parseTimestamp(s)) === s
    }), { numRuns: 2000 })
  })
  it('now/today use the replaceable clock', () => {
    const saved = clock.nowMicros
    clock.nowMicros = () => 1704103200_000000
    try {
      expect(ts('now')).toBe('2024-01-01 10:00:00')
      expect(formatDate(parseDate('today'))).toBe('2024-01-01')
      expect(formatDate(parseDate('tomorrow'))).toBe('2024-01-02')
    } finally {
      clock.nowMicros = saved
    }
  })
})

describe('dates', () => {
  it('parse and format', () => {
    expect(parseDate('2024-01-01')).toBe(19723)
    expect(formatDate(parseDate('2024-01-01 10:00:00'))).toBe('2024-01-01')
    expect(formatDate(parseDate('0001-01-01') - 1)).toBe('0001-12-31 BC')
    expect(formatDate(parseDate('0001-01-01 BC'))).toBe('0001-01-01 BC')
    expect(formatDate(-Infinity)).toBe('-infinity')
    expect(sqlError(() => parseDate('x'))).toEqual({ code: '22007', message: 'invalid input syntax for type date: "x"' })
  })
  it('round-trips', () => {
    fc.assert(fc.property(fc.integer({ min: -2_000_000, max: 2_900_000 }), (d) => parseDate(formatDate(d)) === d))
  })
})

describe('intervals', () => {
  it('formats like PG (IntervalStyle postgres)', () => {
    expect(new Interval(0, 1, 2 * 3600e6).toString()).toBe('1 day 02:00:00')
    expect(new Interval(0, 0, 5e6).toString()).toBe('00:00:05')
    expect(new Interval(14, 0, 0).toString()).toBe('1 year 2 mons')
    expect(new Interval(0, 0, -1e6).toString()).toBe('-00:00:01')
    expect(new Interval(0, 0, 0).toString()).toBe('00:00:00')
    expect(new Interval(-14, 0, 0).toString()).toBe('-1 years -2 mons')
    expect(new Interval(0, -1, 2 * 3600e6).toString()).toBe('-1 days +02:00:00')
    expect(new Interval(0, 1, -3600e6).toString()).toBe('1 day -01:00:00')
    expect(new Interval(0, 0, 25 * 3600e6).toString()).toBe('25:00:00')
    expect(new Interval(0, 14, 1000).toString()).toBe('14 days 00:00:00.001')
    expect(formatInterval(new Interval(1, 1, 0))).toBe('1 mon 1 day')
  })
  it('parses PG input forms', () => {
    expect(iv('1 hour')).toBe('01:00:00')
    expect(iv('1 day 2 hours')).toBe('1 day 02:00:00')
    expect(iv('01:30:00')).toBe('01:30:00')
    expect(iv('01:30')).toBe('01:30:00')
    expect(iv('1 year 2 months')).toBe('1 year 2 mons')
    expect(iv('-5 minutes')).toBe('-00:05:00')
    expect(iv('1.5 seconds')).toBe('00:00:01.5')
    expect(iv('1.5 days')).toBe('1 day 12:00:00')
    expect(iv('1.5 months')).toBe('1 mon 15 days')
    expect(iv('1.5 years')).toBe('1 year 6 mons')
    expect(iv('-1 day 2 hours')).toBe('-1 days +02:00:00')
    expect(iv('1 day -1 hour')).toBe('1 day -01:00:00')
    expect(iv('5')).toBe('00:00:05')
    expect(iv('PT5S')).toBe('00:00:05')
    expect(iv('P1Y2M3DT4H5M6.5S')).toBe('1 year 2 mons 3 days 04:05:06.5')
    expect(iv('@ 1 hour ago')).toBe('-01:00:00')
    expect(iv('1-2')).toBe('1 year 2 mons')
    expect(iv('1 week')).toBe('7 days')
    expect(iv('1 week 2 days')).toBe('9 days')
    expect(iv('2 weeks 1 ms')).toBe('14 days 00:00:00.001')
    expect(iv('1 second 500 ms')).toBe('00:00:01.5')
    expect(iv('1 day 1')).toBe('1 day 00:00:01')
    expect(iv('1 day 01:00:00')).toBe('1 day 01:00:00')
  })
  it('applies the SQL qualifier (INTERVAL \'5\' SECOND, DAY TO HOUR …)', () => {
    expect(iv('5', 'second')).toBe('00:00:05')
    expect(iv('5', 'minute')).toBe('00:05:00')
    expect(iv('5', 'day')).toBe('5 days')
    expect(iv('5', 'month')).toBe('5 mons')
    expect(iv('5', 'year')).toBe('5 years')
    expect(iv('01:30', 'minute', 'second')).toBe('00:01:30')
    expect(iv('1 day 2 hours 3 minutes', 'day', 'hour')).toBe('1 day 02:00:00')
    expect(iv('1.5', 'hour')).toBe('01:00:00') // PG truncates to the qualifier's precision
    expect(iv('1 2', 'day', 'hour')).toBe('1 day 02:00:00')
    expect(iv('1 day 2 hours', 'day')).toBe('1 day')
  })
  it('rejects bad input', () => {
    expect(sqlError(() => parseInterval('abc'))).toEqual({ code: '22007', message: 'invalid input syntax for type interval: "abc"' })
    expect(sqlError(() => parseInterval('1 day 2 days')).code).toBe('22007')
    expect(sqlError(() => parseInterval('1 hour 01:00:00')).code).toBe('22007')
    expect(sqlError(() => parseInterval('1 2 3')).code).toBe('22007')
    expect(sqlError(() => parseInterval('')).code).toBe('22007')
    expect(sqlError(() => parseInterval('1 fortnight')).code).toBe('22007')
  })
  it('equality follows PG comparison, text keeps the representation', () => {
    const day = parseInterval('1 day')
    const h24 = parseInterval('24 hours')
    expect(day.toString()).not.toBe(h24.toString())
    expect(day.compareKey()).toBe(h24.compareKey())
    expect(compareInterval(day, h24)).toBe(0)
    expect(parseInterval('1 mon').equals(parseInterval('30 days'))).toBe(true)
    expect(compareInterval(parseInterval('1 year'), parseInterval('360 days'))).toBe(0) // 12 × 30
    expect(compareInterval(parseInterval('1 year'), parseInterval('361 days'))).toBe(-1)
    expect(compareInterval(parseInterval('-1 day'), parseInterval('-23 hours'))).toBe(-1)
    expect(parseInterval('1 day -1 hour').compareKey()).toBe(parseInterval('23 hours').compareKey())
  })
  it('round-trips format(parse(format(x)))', () => {
    const arb = fc.tuple(
      fc.integer({ min: -100_000, max: 100_000 }),
      fc.integer({ min: -100_000, max: 100_000 }),
      fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
    )
    fc.assert(fc.property(arb, ([m, d, u]) => {
      const s = new Interval(m, d, u).toString()
      const p = parseInterval(s)
      return p.toString() === s && p.months === m && p.days === d && p.micros === u
    }), { numRuns: 2000 })
  })
})

describe('numbers: text output', () => {
  it('float8 uses shortest digits and PG exponent rules', () => {
    expect(formatFloat8(1e15)).toBe('1e+15')
    expect(formatFloat8(1e14)).toBe('100000000000000')
    expect(formatFloat8(0.0001)).toBe('0.0001')
    expect(formatFloat8(0.00001)).toBe('1e-05')
    expect(formatFloat8(123456789012345678)).toBe('1.2345678901234568e+17')
    expect(formatFloat8(1e100)).toBe('1e+100')
    expect(formatFloat8(1.5e-7)).toBe('1.5e-07')
    expect(formatFloat8(-18557901925036592)).toBe('-1.8557901925036592e+16') // not JS's boundary pick
    expect(formatFloat8(0.1 + 0.2)).toBe('0.30000000000000004')
    expect(formatFloat8(-0)).toBe('-0')
    expect(formatFloat8(NaN)).toBe('NaN')
    expect(formatFloat8(-Infinity)).toBe('-Infinity')
  })
  it('real uses float4 shortest digits (exponent from 1e+06)', () => {
    const f = (x: number) => formatFloat4(Math.fround(x))
    expect(f(1234567)).toBe('1.234567e+06')
    expect(f(123456)).toBe('123456')
    expect(f(1e6)).toBe('1e+06')
    expect(f(0.1)).toBe('0.1')
    expect(f(1e-5)).toBe('1e-05')
    expect(f(3.4e38)).toBe('3.4e+38')
    expect(f(12345678)).toBe('1.2345678e+07')
    expect(f(2226601.3642018232)).toBe('2.2266012e+06') // ties to even like Ryu
    expect(f(-438235.1363182133)).toBe('-438235.12')
  })
  it('numeric prints positional notation with its display scale', () => {
    const text = (s: string) => toText(castValue(s, 'text', 'numeric'), 'numeric')
    expect(text('1e20')).toBe('100000000000000000000')
    expect(text('1e-7')).toBe('0.0000001')
    expect(text('-1.50')).toBe('-1.50')
    expect(text('2.3e22')).toBe('23000000000000000000000')
    expect(text('0.000')).toBe('0.000')
    expect(text('-.5')).toBe('-0.5')
  })
  it('float8 text round-trips exactly', () => {
    fc.assert(fc.property(fc.double({ noNaN: true }), (x) => Object.is(Number(formatFloat8(x).replace('Infinity', 'Infinity')), x)), { numRuns: 3000 })
  })
  it('float4 text round-trips through fround', () => {
    fc.assert(fc.property(fc.float({ noNaN: true }), (x) => Object.is(Math.fround(Number(formatFloat4(x))), x)), { numRuns: 3000 })
  })
})

describe('casts', () => {
  it('float → int rounds half to even; numeric → int half away from zero (PG)', () => {
    expect(castValue(2.5, 'double', 'integer')).toBe(2)
    expect(castValue(3.5, 'double', 'integer')).toBe(4)
    expect(castValue(-2.5, 'double', 'integer')).toBe(-2)
    expect(castValue(0.5, 'double', 'integer')).toBe(0)
    expect(castValue(Math.fround(2.5), 'real', 'integer')).toBe(2)
    const n = (s: string) => castValue(s, 'text', 'numeric')
    expect(castValue(n('2.5'), 'numeric', 'integer')).toBe(3)
    expect(castValue(n('-2.5'), 'numeric', 'integer')).toBe(-3)
    expect(castValue(n('32767.4'), 'numeric', 'smallint')).toBe(32767)
    expect(castValue(n('9223372036854775807.4'), 'numeric', 'bigint')).toBe(9223372036854775807n)
  })
  it('range checks', () => {
    expect(sqlError(() => castValue(2147483647.5, 'double', 'integer'))).toEqual({ code: '22003', message: 'integer out of range' })
    expect(sqlError(() => castValue(32767.5, 'double', 'smallint'))).toEqual({ code: '22003', message: 'smallint out of range' })
    expect(sqlError(() => castValue(1e10, 'bigint', 'integer')).message).toBe('integer out of range')
    expect(sqlError(() => castValue(2 ** 63, 'double', 'bigint')).message).toBe('bigint out of range')
    expect(castValue(-(2 ** 63), 'double', 'bigint')).toBe(-(2n ** 63n))
    expect(sqlError(() => castValue(1e300, 'double', 'bigint')).message).toBe('bigint out of range')
    expect(sqlError(() => castValue(NaN, 'double', 'integer')).message).toBe('integer out of range')
    expect(sqlError(() => castValue(1e39, 'double', 'real'))).toEqual({ code: '22003', message: 'value out of range: overflow' })
    expect(sqlError(() => castValue(1e-50, 'double', 'real')).message).toBe('value out of range: underflow')
  })
  it('text → numbers', () => {
    expect(castValue(' 12 ', 'text', 'integer')).toBe(12)
    expect(castValue('+5', 'unknown', 'integer')).toBe(5)
    expect(Object.is(castValue('-0', 'text', 'integer'), 0)).toBe(true)
    expect(sqlError(() => castValue('1.5', 'text', 'integer'))).toEqual({ code: '22P02', message: 'invalid input syntax for type integer: "1.5"' })
    expect(sqlError(() => castValue('abc', 'text', 'bigint')).message).toBe('invalid input syntax for type bigint: "abc"')
    expect(sqlError(() => castValue('99999999999', 'text', 'integer'))).toEqual({ code: '22003', message: 'value "99999999999" is out of range for type integer' })
    expect(castValue('1e5', 'text', 'double')).toBe(100000)
    expect(castValue('-inf', 'text', 'double')).toBe(-Infinity)
    expect(castValue('NaN', 'text', 'numeric')).toBeNaN()
    expect(toText(castValue('.5', 'text', 'numeric'), 'numeric')).toBe('0.5')
    expect(castValue('9223372036854775807', 'text', 'bigint')).toBe(9223372036854775807n)
    expect(castValue('-9007199254740991', 'text', 'bigint')).toBe(-9007199254740991)
    expect(sqlError(() => castValue('9223372036854775808', 'text', 'bigint'))).toEqual({ code: '22003', message: 'value "9223372036854775808" is out of range for type bigint' })
    expect(sqlError(() => castValue('1e400', 'text', 'double'))).toEqual({ code: '22003', message: '"1e400" is out of range for type double precision' })
    expect(sqlError(() => castValue('1e-400', 'text', 'double')).code).toBe('22003')
    expect(sqlError(() => castValue('1e39', 'text', 'real')).message).toBe('"1e39" is out of range for type real')
    expect(sqlError(() => castValue('x', 'text', 'numeric')).message).toBe('invalid input syntax for type numeric: "x"')
    expect(sqlError(() => castValue('x', 'text', 'double')).message).toBe('invalid input syntax for type double precision: "x"')
  })
  it('text ↔ boolean', () => {
    for (const t of ['t', 'true', 'TRUE', 'yes', 'y', 'on', '1', ' t ', 'tr', 'ye']) expect(castValue(t, 'text', 'boolean'), t).toBe(true)
    for (const f of ['f', 'false', 'no', 'n', 'off', '0', 'of']) expect(castValue(f, 'text', 'boolean'), f).toBe(false)
    for (const bad of ['o', 'x', '', 'truex']) {
      expect(sqlError(() => castValue(bad, 'text', 'boolean'))).toEqual({ code: '22P02', message: `invalid input syntax for type boolean: "${bad}"` })
    }
    expect(castValue(true, 'boolean', 'text')).toBe('true')
    expect(formatOutput(true, 'boolean')).toBe('t')
  })
  it('bool ↔ int, date ↔ timestamp, anything → text', () => {
    expect(castValue(true, 'boolean', 'integer')).toBe(1)
    expect(castValue(0, 'integer', 'boolean')).toBe(false)
    expect(castValue(-3, 'integer', 'boolean')).toBe(true)
    expect(sqlError(() => castValue(1, 'bigint', 'boolean'))).toEqual({ code: '42846', message: 'cannot cast type bigint to boolean' })
    expect(castValue(19723, 'date', 'timestamp')).toBe(19723 * 86400e6)
    expect(castValue(19723 * 86400e6 + 5, 'timestamp', 'date')).toBe(19723)
    expect(castValue(-1, 'timestamp', 'date')).toBe(-1)
    expect(castValue(19723, 'date', 'text')).toBe('2024-01-01')
    expect(castValue(1.5, 'double', 'text')).toBe('1.5')
    expect(castValue(1e15, 'double', 'text')).toBe('1e+15')
    expect(castValue(Math.fround(0.1), 'real', 'text')).toBe('0.1')
    expect(castValue(new Interval(0, 1, 0), 'interval', 'text')).toBe('1 day')
    expect(castValue('1 day', 'text', 'interval')).toEqual(new Interval(0, 1, 0))
  })
  it('float → numeric goes through 15 (double) / 6 (real) significant digits like PG', () => {
    const text = (v: unknown) => toText(v, 'numeric')
    expect(text(castValue(0.1 + 0.2, 'double', 'numeric'))).toBe('0.3')
    expect(text(castValue(Math.fround(0.1), 'real', 'numeric'))).toBe('0.1')
    expect(castValue(Math.fround(0.1), 'real', 'double')).toBe(Math.fround(0.1))
    expect(text(castValue(123456789.123456789, 'double', 'numeric'))).toBe('123456789.123457')
    expect(text(castValue(1e20, 'double', 'numeric'))).toBe('100000000000000000000')
    expect(text(castValue(1.5e-5, 'double', 'numeric'))).toBe('0.000015')
  })
})

describe('API values', () => {
  it('toResultValue', () => {
    expect(toResultValue(null, 'integer')).toBeNull()
    expect(toResultValue(Math.fround(0.1), 'real')).toBe(0.1)
    expect(toResultValue(19723, 'date')).toBe('2024-01-01')
    expect(toResultValue(1704103200_500000, 'timestamp')).toBe('2024-01-01 10:00:00.5')
    expect(toResultValue(new Interval(0, 0, 90e6), 'interval')).toBe('00:01:30')
    expect(toResultValue(true, 'boolean')).toBe(true)
    expect(toResultValue(castValue('1.50', 'text', 'numeric'), 'numeric')).toBe('1.50')
    expect(toResultValue(7, 'numeric')).toBe('7')
    expect(toResultValue(2n ** 60n, 'bigint')).toBe(2n ** 60n)
  })
  it('fromInputValue', () => {
    expect(fromInputValue(undefined, 'integer')).toBeNull()
    expect(fromInputValue(5, 'integer')).toBe(5)
    expect(fromInputValue('5', 'smallint')).toBe(5)
    expect(fromInputValue(5n, 'bigint')).toBe(5)
    expect(fromInputValue(2.5, 'integer')).toBe(2)
    expect(sqlError(() => fromInputValue(2 ** 31, 'integer'))).toEqual({ code: '22003', message: 'integer out of range' })
    expect(fromInputValue(2n ** 60n, 'bigint')).toBe(2n ** 60n)
    expect(fromInputValue(2 ** 60, 'bigint')).toBe(2n ** 60n)
    expect(sqlError(() => fromInputValue(2n ** 63n, 'bigint')).code).toBe('22003')
    expect(toText(fromInputValue(0.1, 'numeric'), 'numeric')).toBe('0.1')
    expect(toText(fromInputValue('1.250', 'numeric'), 'numeric')).toBe('1.250')
    expect(sqlError(() => fromInputValue('a\u0000b', 'text'))).toEqual({ code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0x00' })
    expect(fromInputValue(0.1, 'real')).toBe(Math.fround(0.1))
    expect(fromInputValue('2024-01-01 10:00:00', 'timestamp')).toBe(1704103200_000000)
    expect(fromInputValue(1704103200_000, 'timestamp')).toBe(1704103200_000000) // epoch ms
    expect(fromInputValue(new Date(Date.UTC(2024, 0, 1, 10)), 'timestamp')).toBe(1704103200_000000)
    expect(fromInputValue(new Date(Date.UTC(2024, 0, 1, 10)), 'date')).toBe(19723)
    expect(fromInputValue('2024-01-01', 'date')).toBe(19723)
    expect(fromInputValue('1 hour', 'interval')).toEqual(new Interval(0, 0, 3600e6))
    expect(fromInputValue(1500, 'interval')).toEqual(new Interval(0, 0, 1.5e6))
    expect(fromInputValue('yes', 'boolean')).toBe(true)
    expect(fromInputValue(42, 'text')).toBe('42')
    expect(sqlError(() => fromInputValue({}, 'integer')).code).toBe('42804')
    expect(sqlError(() => fromInputValue(true, 'date')).code).toBe('42804')
    expect(sqlError(() => fromInputValue('x', 'integer')).code).toBe('22P02')
  })
})

describe('ordering', () => {
  it('numbers: NaN sorts last, like PG', () => {
    const c = compareFn('double')
    expect([3, NaN, -Infinity, 1, Infinity].sort(c as (a: number, b: number) => number)).toEqual([-Infinity, 1, 3, Infinity, NaN])
    expect(c(NaN, NaN)).toBe(0)
    expect(c(-0, 0)).toBe(0)
  })
  it('text compares code points (C collation)', () => {
    expect(compareText('a', 'b')).toBe(-1)
    expect(compareText('B', 'a')).toBe(-1)
    expect(compareText('ab', 'a')).toBe(1)
    expect(compareText('\uffff', '😀')).toBe(-1) // UTF-16 order would say the opposite
    expect(compareText('😀', '\ue000')).toBe(1)
  })
  it('booleans and intervals', () => {
    expect(compareFn('boolean')(false, true)).toBe(-1)
    expect(compareFn('interval')(parseInterval('25 hours'), parseInterval('1 day'))).toBe(1)
  })
  it('sortKeyCompare places NULLs like PG defaults', () => {
    const asc = sortKeyCompare('integer', false)
    expect([3, null, 1].sort(asc)).toEqual([1, 3, null])
    const desc = sortKeyCompare('integer', true)
    expect([3, null, 1].sort(desc)).toEqual([null, 3, 1])
    const ascNullsFirst = sortKeyCompare('integer', false, true)
    expect([3, null, 1].sort(ascNullsFirst)).toEqual([null, 1, 3])
  })
})

describe('interval qualifier spelled in the text (binder: "v unit [to unit2]")', () => {
  it('decodes the qualifier', () => {
    expect(iv('5 second')).toBe('00:00:05')
    expect(iv('1 day to hour')).toBe('01:00:00') // PG: INTERVAL '1' DAY TO HOUR
    expect(iv('1 year to month')).toBe('1 mon')
    expect(iv('5 minute to second')).toBe('00:00:05')
    expect(iv('1:30 hour to minute')).toBe('01:30:00')
    expect(iv('1 2 day to hour')).toBe('1 day 02:00:00')
    expect(iv('01:30 minute to second')).toBe('00:01:30')
    expect(iv('1 day 2 hours 3 minutes day to hour')).toBe('1 day 02:00:00')
    expect(iv('1 day 2 hours day')).toBe('1 day')
    expect(iv('1 year 2 months year to month')).toBe('1 year 2 mons')
    expect(iv('1.5 hour')).toBe('01:30:00') // plain text wins when it parses (PG's INTERVAL '1.5' HOUR truncates)
    expect(sqlError(() => parseInterval('abc second')).message).toBe('invalid input syntax for type interval: "abc"')
  })
})
