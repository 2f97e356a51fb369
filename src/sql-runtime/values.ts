// Run-time values: the Interval class, text input/output of every type (Postgres formats),
// casts, API conversion (toResultValue / fromInputValue) and total orders (compareFn).
// Representation per type: see planner/types.ts.
//
// Decisions (deviations from Postgres noted):
// - Interval identity vs equality: `toString()` is the canonical PG text ('1 day 02:00:00') and
//   is what ivm/key.ts hashes, so a row holding '1 day' and one holding '24:00:00' are distinct
//   rows (they print differently). PG *compares* them equal (1 day = 24 h, 1 month = 30 days);
//   `compareKey()` is a string equal exactly for PG-equal intervals — use it where PG equality
//   matters for grouping/joining/DISTINCT on interval values, and compareInterval for order.
// - numeric is exact with PG's display scale (planner/numeric.ts); float → numeric keeps 15
//   (double) / 6 (real) significant digits, as PG's float8_numeric/float4_numeric do. The API
//   returns numeric values as their PG text ('2.50'), as node-postgres does, so no digit is
//   lost to a double.
// - bigint is exact over the 64-bit range (src/sql-runtime/int8.ts); the API returns a JS number within
//   ±(2^53 − 1) and a JS bigint beyond.
// - timestamps are microseconds in a double: exact within ±2^53 µs (years 1685..2255);
//   outside that (PG allows 4713 BC..294276 AD) precision degrades to ~1 ms at the extremes.
// - Accepted date input: ISO (YYYY-MM-DD, also with '/'), YYYYMMDD, MM/DD/YYYY (DateStyle
//   MDY), 'Mon DD YYYY', 'DD Mon YYYY', 'YYYY-Mon-DD', BC/AD, infinity, epoch, now/today/
//   tomorrow/yesterday. Not: Julian 'J2451187', 'YYYY.DDD', compact 'YYYYMMDD HHMMSS' times.
// - INTERVAL 'v' UNIT with a fractional v for a coarse unit: when the binder spells the
//   qualifier into the text ("1.5 hour"), the plain reading wins (01:30:00; PG truncates to
//   01:00:00). Real qualifiers passed to parseInterval(text, unit, toUnit) truncate as PG.
// - timestamp input ignores any time zone suffix (Z, +05:00, UTC), as PG does for
//   timestamp without time zone. 'now'/'today'/'tomorrow'/'yesterday' read the wall clock.
// - API input (fromInputValue): JS numbers for date/timestamp columns are epoch MILLISECONDS
//   (JS Date convention; a date takes the UTC day); numbers for interval columns are
//   milliseconds; Date objects are accepted for date/timestamp.

import { RivuletError } from '../../grammar/errors.js'
import { INTEGER_BOUNDS, elementType, isArrayType, typeDisplayName } from '../../planner/types.js'
import type { ArrayType, SqlType, TypeModifier } from '../../planner/types.js'
import { ArrayValue } from '../../planner/array-value.js'
import { formatArray, parseArray } from './array-text.js'
import {
  Numeric,
  applyNumericTypmod,
  numericCompare,
  numericFromDouble,
  numericFromInteger,
  numericText,
  numericToDouble,
  numericToInteger,
  parseNumericText,
  type NumericValue,
} from '../../planner/numeric.js'
import { fitsInt8, int8Of, int8OutOfRange, parseExactInteger, type Int8 } from './int8.js'
import type { ResultValue } from '../types.js'

export const USECS_PER_SEC = 1_000_000
export const USECS_PER_MINUTE = 60_000_000
export const USECS_PER_HOUR = 3_600_000_000
export const USECS_PER_DAY = 86_400_000_000

// ---------------------------------------------------------------------------------- errors

function err(code: string, message: string): RivuletError {
  return new RivuletError(code, message)
}
export function invalidSyntax(type: string, text: string): RivuletError {
  const code = type === 'timestamp' || type === 'date' || type === 'interval' ? '22007' : '22P02'
  return err(code, `invalid input syntax for type ${type}: "${text}"`)
}
function fieldOutOfRange(text: string): RivuletError {
  return err('22008', `date/time field value out of range: "${text}"`)
}
export function outOfRange(type: 'smallint' | 'integer' | 'bigint'): RivuletError {
  return err('22003', `${type} out of range`)
}

// ---------------------------------------------------------------------------------- Interval

/** A Postgres interval: months, days and microseconds, kept separately (as PG does). */
export class Interval {
  #text: string | undefined
  constructor(
    readonly months: number,
    readonly days: number,
    readonly micros: number,
  ) {}
  /** Canonical Postgres text output (IntervalStyle postgres); also the hashing key. */
  toString(): string {
    return (this.#text ??= formatInterval(this))
  }
  /** A key equal exactly for intervals Postgres considers equal ('1 day' = '24:00:00',
   *  '1 mon' = '30 days'). */
  compareKey(): string {
    const [d, u] = normalizedSpan(this)
    return d + ':' + u
  }
  equals(o: Interval): boolean {
    return compareInterval(this, o) === 0
  }
  /** Approximate total length in microseconds (1 month = 30 days). */
  totalMicros(): number {
    return (this.months * 30 + this.days) * USECS_PER_DAY + this.micros
  }
  toJSON(): string {
    return this.toString()
  }
  static readonly ZERO = new Interval(0, 0, 0)
}

/** (days, micros in [0, 1 day)) with 1 month = 30 days: PG's interval comparison span. */
function normalizedSpan(iv: Interval): [number, number] {
  const extra = Math.floor(iv.micros / USECS_PER_DAY)
  return [iv.months * 30 + iv.days + extra, iv.micros - extra * USECS_PER_DAY]
}

export function compareInterval(a: Interval, b: Interval): number {
  const [ad, au] = normalizedSpan(a)
  const [bd, bu] = normalizedSpan(b)
  return ad !== bd ? (ad < bd ? -1 : 1) : au !== bu ? (au < bu ? -1 : 1) : 0
}

// ---------------------------------------------------------------------------------- calendar

/** Days since 1970-01-01 of a proleptic Gregorian date (astronomical year: 0 = 1 BC). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (m + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/** [year, month 1-12, day 1-31] of a day number (astronomical year). */
export function civilFromDays(z: number): [number, number, number] {
  z += 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const y = yoe + era * 400
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  return [m <= 2 ? y + 1 : y, m, d]
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
}

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31
}

// PG limits: dates 4714-11-24 BC .. 5874897-12-31, timestamps 4714-11-24 BC .. 294276-12-31.
const MIN_DATE = daysFromCivil(-4713, 11, 24)
const MAX_DATE = daysFromCivil(5874897, 12, 31)
const MIN_TS = MIN_DATE * USECS_PER_DAY
const END_TS = (daysFromCivil(294276, 12, 31) + 1) * USECS_PER_DAY // exclusive

export function checkDate(days: number): number {
  if (Number.isFinite(days) && (days < MIN_DATE || days > MAX_DATE)) throw err('22008', 'date out of range')
  return days
}
export function checkTimestamp(micros: number): number {
  if (Number.isFinite(micros) && (micros < MIN_TS || micros >= END_TS)) throw err('22008', 'timestamp out of range')
  if (Number.isNaN(micros)) throw err('22008', 'timestamp out of range')
  return micros
}

// ---------------------------------------------------------------------------------- clock

/** The wall clock used by now()/current_date and 'now'/'today' input; replaceable in tests. */
export const clock = {
  /** Current time in microseconds since the epoch. */
  nowMicros: (): number => Date.now() * 1000,
}

// ---------------------------------------------------------------------------------- date/time text

function pad(n: number, w: number): string {
  const s = String(n)
  return s.length >= w ? s : '0'.repeat(w - s.length) + s
}

const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? '0' + i : String(i)))

function formatYmd(days: number): [string, boolean] {
  const [y, m, d] = civilFromDays(days)
  const bc = y <= 0
  const yy = bc ? 1 - y : y
  return [`${yy >= 1000 ? String(yy) : pad(yy, 4)}-${TWO[m]}-${TWO[d]}`, bc]
}

let lastDay = NaN
let lastDayText = ''
let lastDayBc = false

/** 'YYYY-MM-DD' (PG DateStyle ISO), 'YYYY-MM-DD BC' before year 1, 'infinity'. */
export function formatDate(days: number): string {
  if (!Number.isFinite(days)) return days > 0 ? 'infinity' : '-infinity'
  const [s, bc] = formatYmd(days)
  return bc ? s + ' BC' : s
}

function formatFraction(micros: number): string {
  if (micros === 0) return ''
  let s = pad(micros, 6)
  let end = s.length
  while (s.charCodeAt(end - 1) === 48) end--
  s = s.slice(0, end)
  return '.' + s
}

/** 'YYYY-MM-DD HH:MM:SS[.ffffff]' with trailing fraction zeros trimmed, as PG prints. */
export function formatTimestamp(micros: number): string {
  if (!Number.isFinite(micros)) return micros > 0 ? 'infinity' : '-infinity'
  const days = Math.floor(micros / USECS_PER_DAY)
  let rem = Math.round(micros - days * USECS_PER_DAY)
  if (days !== lastDay) {
    // consecutive timestamps mostly share their day: cache its text
    const [ds, bc] = formatYmd(days)
    lastDay = days
    lastDayText = ds
    lastDayBc = bc
  }
  const h = Math.floor(rem / USECS_PER_HOUR)
  rem -= h * USECS_PER_HOUR
  const mi = Math.floor(rem / USECS_PER_MINUTE)
  rem -= mi * USECS_PER_MINUTE
  const s = Math.floor(rem / USECS_PER_SEC)
  rem -= s * USECS_PER_SEC
  const t = lastDayText + ' ' + TWO[h] + ':' + TWO[mi] + ':' + TWO[s] + (rem === 0 ? '' : formatFraction(rem))
  return lastDayBc ? t + ' BC' : t
}

/** PG interval output, IntervalStyle 'postgres': '1 year 2 mons 3 days 04:05:06.5',
 *  '-1 days +02:00:00', '00:00:00'. */
export function formatInterval(iv: Interval): string {
  const year = Math.trunc(iv.months / 12)
  const mon = iv.months - year * 12
  let out = ''
  let isZero = true
  let isBefore = false
  const part = (v: number, unit: string): void => {
    if (v === 0) return
    out += `${isZero ? '' : ' '}${isBefore && v > 0 ? '+' : ''}${v} ${unit}${v !== 1 ? 's' : ''}`
    isBefore = v < 0
    isZero = false
  }
  part(year, 'year')
  part(mon, 'mon')
  part(iv.days, 'day')
  const t = iv.micros
  if (isZero || t !== 0) {
    const minus = t < 0
    let a = Math.abs(t)
    const h = Math.floor(a / USECS_PER_HOUR)
    a -= h * USECS_PER_HOUR
    const mi = Math.floor(a / USECS_PER_MINUTE)
    a -= mi * USECS_PER_MINUTE
    const s = Math.floor(a / USECS_PER_SEC)
    a -= s * USECS_PER_SEC
    out += `${isZero ? '' : ' '}${minus ? '-' : isBefore ? '+' : ''}${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${formatFraction(Math.round(a))}`
  }
  return out
}

const MONTH_NAMES: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11,
  november: 11, dec: 12, december: 12,
}

const DATE_RES: readonly [RegExp, (m: RegExpExecArray) => [number, number, number] | undefined][] = [
  // ISO: 2024-01-05, 2024/01/05
  [/^(\d{1,7})[-/](\d{1,2})[-/](\d{1,2})/, (m) => [+m[1]!, +m[2]!, +m[3]!]],
  // 20240105
  [/^(\d{4})(\d{2})(\d{2})(?!\d)/, (m) => [+m[1]!, +m[2]!, +m[3]!]],
  // MDY: 01/05/2024, 1-5-2024
  [/^(\d{1,2})[-/](\d{1,2})[-/](\d{4,7})/, (m) => [+m[3]!, +m[1]!, +m[2]!]],
  // 2024-Jan-05
  [/^(\d{1,7})-([a-z]+)-(\d{1,2})/, (m) => mon(m[2]!, (mo) => [+m[1]!, mo, +m[3]!])],
  // Jan 5 2024, January 5, 2024
  [/^([a-z]+)\.?\s*(\d{1,2}),?\s+(\d{1,7})/, (m) => mon(m[1]!, (mo) => [+m[3]!, mo, +m[2]!])],
  // 5 Jan 2024, 05-Jan-2024
  [/^(\d{1,2})[\s-]*([a-z]+)\.?[\s-]*(\d{1,7})/, (m) => mon(m[2]!, (mo) => [+m[3]!, mo, +m[1]!])],
]

function mon(name: string, f: (m: number) => [number, number, number]): [number, number, number] | undefined {
  const m = MONTH_NAMES[name]
  return m === undefined ? undefined : f(m)
}

const TIME_RE =
  /^(?:[\st]+(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?)?\s*(z|utc|gmt|[+-]\d{1,2}(?::?\d{2}){0,2})?\s*(bc|ad)?\s*$/

interface ParsedDateTime {
  readonly days: number
  readonly micros: number // time of day, may be a full day for 24:00:00
}

function special(s: string, typeName: 'date' | 'timestamp'): number | undefined {
  switch (s) {
    case 'infinity':
    case '+infinity':
      return Infinity
    case '-infinity':
      return -Infinity
    case 'epoch':
      return 0
    case 'now': {
      const n = clock.nowMicros()
      return typeName === 'date' ? Math.floor(n / USECS_PER_DAY) : n
    }
    case 'today':
    case 'tomorrow':
    case 'yesterday': {
      const d = Math.floor(clock.nowMicros() / USECS_PER_DAY) + (s === 'today' ? 0 : s === 'tomorrow' ? 1 : -1)
      return typeName === 'date' ? d : d * USECS_PER_DAY
    }
    default:
      return undefined
  }
}

function parseDateTime(text: string, typeName: 'date' | 'timestamp'): ParsedDateTime {
  const s = text.trim().toLowerCase()
  for (const [re, f] of DATE_RES) {
    const m = re.exec(s)
    if (m === null) continue
    const ymd = f(m)
    if (ymd === undefined) continue
    const tm = TIME_RE.exec(s.slice(m[0].length))
    if (tm === null) continue
    let [y, mo, d] = ymd
    if (tm[6] === 'bc') {
      if (y === 0) throw fieldOutOfRange(text)
      y = 1 - y
    } else if (y === 0) throw fieldOutOfRange(text)
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) throw fieldOutOfRange(text)
    let micros = 0
    if (tm[1] !== undefined) {
      const h = +tm[1]
      const mi = +tm[2]!
      const sec = tm[3] === undefined ? 0 : +tm[3]
      const frac = tm[4] ?? ''
      let fm = 0
      if (frac.length > 0) {
        fm = Number((frac + '000000').slice(0, 6))
        if (frac.length > 6 && frac.charCodeAt(6) >= 53) fm++
      }
      if (mi > 59 || sec > 60 || h > 24 || (h === 24 && (mi > 0 || sec > 0 || fm > 0))) throw fieldOutOfRange(text)
      micros = h * USECS_PER_HOUR + mi * USECS_PER_MINUTE + sec * USECS_PER_SEC + fm
    } else if (tm[5] !== undefined && /^[+-]/.test(tm[5])) {
      // a bare "-05" after a date is not a zone; treat as garbage
      throw invalidSyntax(typeName, text)
    }
    return { days: daysFromCivil(y, mo, d), micros }
  }
  throw invalidSyntax(typeName, text)
}

/** Parses PG date input: ISO 'YYYY-MM-DD' (optionally with a time, ignored), 'YYYYMMDD',
 *  'MM/DD/YYYY', 'Mon DD YYYY', 'DD Mon YYYY', 'BC' suffix, 'infinity', 'epoch', 'today'. */
export function parseDate(text: string): number {
  const sp = special(text.trim().toLowerCase(), 'date')
  if (sp !== undefined) return sp
  const p = parseDateTime(text, 'date')
  return checkDate(p.days)
}

/** Parses PG timestamp input: 'YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]]' plus any zone suffix
 *  (ignored), other date forms as parseDate, 'infinity', 'epoch', 'now'. Fractions beyond
 *  microseconds are rounded. */
const CANONICAL_TS = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?$/

export function parseTimestamp(text: string): number {
  // fast path for the canonical output form
  const c = CANONICAL_TS.exec(text)
  if (c !== null) {
    const y = +c[1]!
    const mo = +c[2]!
    const d = +c[3]!
    const h = +c[4]!
    const mi = +c[5]!
    const sec = +c[6]!
    if (y > 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) && h < 24 && mi < 60 && sec < 60) {
      const f = c[7]
      const fm = f === undefined ? 0 : +(f + '000000'.slice(f.length))
      return daysFromCivil(y, mo, d) * USECS_PER_DAY + h * USECS_PER_HOUR + mi * USECS_PER_MINUTE + sec * USECS_PER_SEC + fm
    }
  }
  const sp = special(text.trim().toLowerCase(), 'timestamp')
  if (sp !== undefined) return sp
  const p = parseDateTime(text, 'timestamp')
  return checkTimestamp(p.days * USECS_PER_DAY + p.micros)
}

// ---------------------------------------------------------------------------------- interval input

type IvUnit = 'microsecond' | 'millisecond' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year' | 'decade' | 'century' | 'millennium'

const UNIT_NAMES: Record<string, IvUnit> = {}
for (const [u, names] of [
  ['microsecond', 'microsecond microseconds microsecon us usec usecs'],
  ['millisecond', 'millisecond milliseconds millisecon ms msec msecs'],
  ['second', 'second seconds s sec secs'],
  ['minute', 'minute minutes m min mins'],
  ['hour', 'hour hours h hr hrs'],
  ['day', 'day days d'],
  ['week', 'week weeks w'],
  ['month', 'month months mon mons'],
  ['year', 'year years y yr yrs'],
  ['decade', 'decade decades dec decs'],
  ['century', 'century centuries c cent'],
  ['millennium', 'millennium millennia mil mils'],
] as const) {
  for (const n of names.split(' ')) UNIT_NAMES[n] = u
}

/** Canonical unit of a date/time field or interval unit name ('hours' → 'hour', 'mon' →
 *  'month', 'us' → 'microsecond'); undefined when unknown. */
export function normalizeUnit(name: string): IvUnit | undefined {
  return UNIT_NAMES[name.trim().toLowerCase()]
}
export type { IvUnit }

class IvAcc {
  months = 0
  days = 0
  micros = 0
  add(unit: IvUnit, v: number): void {
    const ip = Math.trunc(v)
    const fp = v - ip
    switch (unit) {
      case 'microsecond':
        this.micros += v
        break
      case 'millisecond':
        this.micros += v * 1000
        break
      case 'second':
        this.micros += v * USECS_PER_SEC
        break
      case 'minute':
        this.micros += v * USECS_PER_MINUTE
        break
      case 'hour':
        this.micros += v * USECS_PER_HOUR
        break
      case 'day':
        this.days += ip
        this.micros += fp * USECS_PER_DAY
        break
      case 'week':
        this.fractDays(v * 7)
        break
      case 'month':
        this.months += ip
        this.fractDays(fp * 30)
        break
      case 'year':
        this.months += ip * 12 + Math.round(fp * 12)
        break
      case 'decade':
        this.months += ip * 120 + Math.round(fp * 120)
        break
      case 'century':
        this.months += ip * 1200 + Math.round(fp * 1200)
        break
      case 'millennium':
        this.months += ip * 12000 + Math.round(fp * 12000)
        break
    }
  }
  private fractDays(d: number): void {
    const ip = Math.trunc(d)
    this.days += ip
    this.micros += (d - ip) * USECS_PER_DAY
  }
}

function qualifierUnit(u: string | undefined): IvUnit | undefined {
  if (u === undefined) return undefined
  const n = UNIT_NAMES[u.toLowerCase()]
  if (n === undefined) throw err('42601', `invalid interval qualifier "${u}"`)
  return n
}

/** Parses PG interval input: '1 day 2 hours', '-5 minutes', '1.5 seconds', '01:30:00',
 *  '1 02:00:00', '1 year 2 months', '1-2' (years-months), '@ 1 hour ago', ISO 8601 'P1DT2H',
 *  a bare number (seconds, or `unit`). `unit`/`toUnit` are the SQL qualifier of
 *  `INTERVAL '…' unit [TO toUnit]`: they pick the unit of bare numbers and truncate lower fields. */
export function parseInterval(text: string, unit?: string, toUnit?: string): Interval {
  if (unit === undefined && toUnit === undefined) {
    // The binder spells `INTERVAL 'v' unit [TO unit2]` as the text "v unit [to unit2]".
    const m = QUALIFIED_RE.exec(text)
    if (m !== null) {
      if (m[3] !== undefined) return parseIntervalCore(m[1]!, m[2]!, m[3])
      try {
        return parseIntervalCore(text)
      } catch (plainError) {
        // not valid as plain text ('1 day 2 hours day'): read the last word as the qualifier;
        // if that fails too, report the reading in which the word was a unit ('1 day 1 day')
        try {
          return parseIntervalCore(m[1]!, m[2]!)
        } catch (e) {
          throw /\d$/.test(m[1]!) ? plainError : e
        }
      }
    }
  }
  return parseIntervalCore(text, unit, toUnit)
}

const QUALIFIED_RE = /^\s*(.*?\S)\s+(year|month|day|hour|minute|second)(?:\s+to\s+(month|day|hour|minute|second))?\s*$/i

function parseIntervalCore(text: string, unit?: string, toUnit?: string): Interval {
  const hi = qualifierUnit(unit)
  const lo = qualifierUnit(toUnit) ?? hi
  const s = text.trim().toLowerCase()
  const acc = new IvAcc()
  if (s.startsWith('p')) parseIso8601(s, text, acc)
  else parsePgInterval(s, text, acc, lo, hi)
  let months = acc.months
  let days = acc.days
  let micros = Math.round(acc.micros)
  // qualifier truncation (PG AdjustIntervalForTypmod)
  switch (lo) {
    case 'year':
      months = Math.trunc(months / 12) * 12
      days = 0
      micros = 0
      break
    case 'month':
      days = 0
      micros = 0
      break
    case 'day':
      micros = 0
      break
    case 'hour':
      micros = Math.trunc(micros / USECS_PER_HOUR) * USECS_PER_HOUR
      break
    case 'minute':
      micros = Math.trunc(micros / USECS_PER_MINUTE) * USECS_PER_MINUTE
      break
    default:
      break
  }
  if (!Number.isFinite(micros) || !Number.isFinite(days) || !Number.isFinite(months) || Math.abs(months) > 2147483647 || Math.abs(days) > 2147483647) {
    throw err('22008', `interval field value out of range: "${text}"`)
  }
  return new Interval(months + 0, days + 0, micros + 0)
}

function parseIso8601(s: string, text: string, acc: IvAcc): void {
  const m = /^p(?:([-+]?[\d.]+)y)?(?:([-+]?[\d.]+)m)?(?:([-+]?[\d.]+)w)?(?:([-+]?[\d.]+)d)?(?:t(?:([-+]?[\d.]+)h)?(?:([-+]?[\d.]+)m)?(?:([-+]?[\d.]+)s)?)?$/.exec(s)
  if (m === null || s === 'p' || s.endsWith('t')) throw invalidSyntax('interval', text)
  const units: IvUnit[] = ['year', 'month', 'week', 'day', 'hour', 'minute', 'second']
  for (let i = 0; i < units.length; i++) {
    const v = m[i + 1]
    if (v === undefined) continue
    const n = Number(v)
    if (!Number.isFinite(n)) throw invalidSyntax('interval', text)
    acc.add(units[i]!, n)
  }
}

const NUM_UNIT_RE = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))([a-z]*)$/
const TIME_TOKEN_RE = /^([+-])?(\d+):(\d+)(?::(\d+(?:\.\d*)?))?$/
const MINSEC_TOKEN_RE = /^([+-])?(\d+):(\d+\.\d*)$/
const YM_TOKEN_RE = /^([+-])?(\d+)-(\d+)$/

function parsePgInterval(s: string, text: string, acc: IvAcc, lo: IvUnit | undefined, hi: IvUnit | undefined): void {
  let tokens = s.split(/\s+/).filter((t) => t.length > 0)
  if (tokens[0] === '@') tokens = tokens.slice(1)
  else if (tokens[0]?.startsWith('@')) tokens[0] = tokens[0].slice(1)
  let ago = false
  if (tokens.length > 0 && tokens[tokens.length - 1] === 'ago') {
    ago = true
    tokens.pop()
  }
  if (tokens.length === 0) throw invalidSyntax('interval', text)
  const bad = () => invalidSyntax('interval', text)
  // each field may be given once (PG's fmask): '1 day 2 days' and '1 hour 01:00' are errors
  const seen = new Set<string>()
  const mark = (...units: string[]) => {
    for (const u of units) {
      if (seen.has(u)) throw bad()
      seen.add(u)
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!
    let m: RegExpExecArray | null
    if ((m = MINSEC_TOKEN_RE.exec(tok)) !== null) {
      mark('hour', 'minute', 'second')
      const sign = m[1] === '-' ? -1 : 1
      acc.add('minute', sign * +m[2]!)
      acc.add('second', sign * +m[3]!)
      continue
    }
    if ((m = TIME_TOKEN_RE.exec(tok)) !== null) {
      mark('hour', 'minute', 'second')
      const sign = m[1] === '-' ? -1 : 1
      const a = +m[2]!
      const b = +m[3]!
      if (m[4] === undefined && (lo === 'second' && hi === 'minute')) {
        // MINUTE TO SECOND: 'mm:ss'
        acc.add('minute', sign * a)
        acc.add('second', sign * b)
      } else {
        if (b > 59 || (m[4] !== undefined && +m[4] >= 60)) throw err('22008', `interval field value out of range: "${text}"`)
        acc.add('hour', sign * a)
        acc.add('minute', sign * b)
        if (m[4] !== undefined) acc.add('second', sign * Number(m[4]))
      }
      continue
    }
    if ((m = YM_TOKEN_RE.exec(tok)) !== null) {
      mark('year', 'month')
      const sign = m[1] === '-' ? -1 : 1
      acc.add('year', sign * +m[2]!)
      acc.add('month', sign * +m[3]!)
      continue
    }
    if ((m = NUM_UNIT_RE.exec(tok)) !== null) {
      const v = Number(m[1])
      if (!Number.isFinite(v)) throw bad()
      let unitWord = m[2]!
      if (unitWord === '') {
        const next = tokens[i + 1]
        if (next !== undefined && /^[a-z]+$/.test(next)) {
          unitWord = next
          i++
        }
      }
      let u: IvUnit | undefined
      if (unitWord === '') {
        // a bare number: days when more fields follow, else the qualifier's unit (or seconds)
        u = i + 1 < tokens.length ? 'day' : (lo ?? 'second')
      } else {
        u = UNIT_NAMES[unitWord]
        if (u === undefined) throw bad()
      }
      mark(u)
      acc.add(u, v)
      continue
    }
    throw bad()
  }
  if (ago) {
    acc.months = -acc.months
    acc.days = -acc.days
    acc.micros = -acc.micros
  }
}

// ---------------------------------------------------------------------------------- numbers: text

const F64 = new DataView(new ArrayBuffer(8))

/** x = M·2^E exactly; `lowerCloser`: the gap below x is half the gap above (x a power of 2). */
function decompose(x: number, float4: boolean): [bigint, number, boolean] {
  if (float4) {
    F64.setFloat32(0, x)
    const bits = F64.getUint32(0)
    const exp = (bits >>> 23) & 0xff
    const frac = bits & 0x7fffff
    if (exp === 0) return [BigInt(frac), -149, false]
    return [BigInt(frac + 0x800000), exp - 150, frac === 0 && exp > 1]
  }
  F64.setFloat64(0, x)
  const bits = F64.getBigUint64(0)
  const exp = Number((bits >> 52n) & 0x7ffn)
  const frac = bits & 0xfffffffffffffn
  if (exp === 0) return [frac, -1074, false]
  return [frac + 0x10000000000000n, exp - 1075, frac === 0n && exp > 1]
}

/** (c − x) for c = digits·10^k, scaled by a positive factor that depends only on x and k
 *  (so results for one x and k compare exactly), plus the scaled rounding-interval bounds. */
function exactDiff(digits: string, k: number, x: number, float4: boolean): [bigint, bigint, bigint] {
  const [m, e, lowerCloser] = decompose(x, float4)
  const s2 = Math.max(0, 2 - e) // scale by 2^s2 · 10^s10 so everything is an integer
  const s10 = Math.max(0, -k)
  const pow2 = (n: number): bigint => 1n << BigInt(n)
  const scale = (v: bigint, e2: number): bigint => v * pow2(e2 + s2) * 10n ** BigInt(s10)
  const c = BigInt(digits) * 10n ** BigInt(k + s10) * pow2(s2)
  const xv = scale(m, e)
  const hi = scale(2n * m + 1n, e - 1) - xv
  const lo = (lowerCloser ? scale(4n * m - 1n, e - 2) : scale(2n * m - 1n, e - 1)) - xv
  return [c - xv, lo, hi]
}

/** The p-significant-digit decimal closest to a (ties → even last digit), if it lies strictly
 *  inside a's rounding interval (PG's Ryu excludes the bounds; JS's shortest may not). */
function digitsAt(a: number, p: number, float4: boolean): [string, number] | undefined {
  const t = a.toExponential(p - 1)
  const i = t.indexOf('e')
  let d = t.slice(0, i).replace('.', '')
  let e = Number(t.slice(i + 1))
  const k = e - p + 1
  const [diff, lo, hi] = exactDiff(d, k, a, float4)
  if (diff > 0n && d.charCodeAt(d.length - 1) % 2 === 1) {
    // toExponential rounds half up: on an exact tie prefer the even neighbour below
    const below = (BigInt(d) - 1n).toString()
    if (below.length === d.length) {
      const [d2] = exactDiff(below, k, a, float4)
      if (d2 === -diff) d = below
    }
  }
  const [fd] = exactDiff(d, k, a, float4)
  if (fd > lo && fd < hi) return [d, e]
  void e
  return undefined
}

/** Shortest digits and decimal exponent of a finite non-zero double/float4, as PG's
 *  Ryu-based float8out/float4out produce them. */
function shortestDigits(x: number, float4: boolean, loose = false): [string, number, boolean] {
  const neg = x < 0
  const a = Math.abs(x)
  if (!float4) {
    const t = a.toExponential()
    const i = t.indexOf('e')
    const d = t.slice(0, i).replace('.', '')
    const e = Number(t.slice(i + 1))
    // JS's shortest may sit exactly on a rounding bound, which is possible only when a ≥ 2^53
    if (loose || a < 9007199254740992) return [d, e, neg]
    for (let p = d.length; p <= 17; p++) {
      const r = digitsAt(a, p, false)
      if (r !== undefined) return [stripZeros(r[0]), r[1], neg]
    }
    return [d, e, neg]
  }
  // below 2^22 no ≤ 9-digit decimal can sit exactly on a rounding bound (the bound's odd
  // numerator has 25 bits), so only last-digit ties need the exact check
  const boundsPossible = a >= 4194304
  // round-tripping is monotonic in the precision: binary-search the smallest that does
  let lo = 1
  let hi = 9
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (Math.fround(Number(a.toExponential(mid - 1))) === a) hi = mid
    else lo = mid + 1
  }
  for (let p = lo; p <= 9; p++) {
    const t = a.toExponential(p - 1)
    // cheap filter: if the nearest p-digit decimal does not even round-trip, none is inside
    if (Math.fround(Number(t)) !== a) continue
    if (!boundsPossible) {
      // a tie needs a to be a (p+1)-digit decimal ending in 5
      const t2 = a.toExponential(p)
      if (t2.charCodeAt(t2.indexOf('e') - 1) !== 53) {
        const i = t.indexOf('e')
        return [stripZeros(t.slice(0, i).replace('.', '')), Number(t.slice(i + 1)), neg]
      }
    }
    const r = digitsAt(a, p, true)
    if (r !== undefined) return [stripZeros(r[0]), r[1], neg]
  }
  const t = a.toExponential(8)
  return [stripZeros(t.slice(0, t.indexOf('e')).replace('.', '')), Number(t.slice(t.indexOf('e') + 1)), neg]
}

function stripZeros(d: string): string {
  let end = d.length
  while (end > 1 && d.charCodeAt(end - 1) === 48) end--
  return d.slice(0, end)
}

function placeDigits(digits: string, exp: number): string {
  // value = 0.d1d2d3... * 10^(exp+1)
  const n = digits.length
  if (exp < 0) return '0.' + '0'.repeat(-exp - 1) + digits
  if (exp + 1 >= n) return digits + '0'.repeat(exp + 1 - n)
  return digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1)
}

function formatFloat(x: number, float4: boolean): string {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return 'Infinity'
  if (x === -Infinity) return '-Infinity'
  if (x === 0) return Object.is(x, -0) ? '-0' : '0'
  // JS prints the same shortest digits positionally in this range
  if (!float4) {
    const a = x < 0 ? -x : x
    if (a >= 1e-4 && a < 1e15) return String(x)
  }
  const [digits, exp, neg] = shortestDigits(x, float4)
  let body: string
  if (exp < -4 || exp >= (float4 ? 6 : 15)) {
    const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits
    const ae = Math.abs(exp)
    body = `${mant}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' + ae : ae}`
  } else {
    body = placeDigits(digits, exp)
  }
  return neg ? '-' + body : body
}

/** PG float8out: shortest exact digits, exponent form when exp < -4 or >= 15 ('1e+15'). */
export function formatFloat8(x: number): string {
  return formatFloat(x, false)
}

/** PG float4out: shortest digits that round-trip through float4; exponent when exp >= 6. */
export function formatFloat4(x: number): string {
  return formatFloat(x, true)
}

const INT_RE = /^\s*[+-]?\d+\s*$/
const DEC_RE = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?\s*$/i

export function parseInteger(text: string, type: 'smallint' | 'integer' | 'bigint'): Int8 {
  if (!INT_RE.test(text)) throw invalidSyntax(type, text)
  const v = Number(text.trim())
  if (type === 'bigint') {
    if (Number.isSafeInteger(v)) return v + 0
    const exact = parseExactInteger(text)!
    if (!fitsInt8(exact)) throw err('22003', `value "${text}" is out of range for type bigint`)
    return int8Of(exact)
  }
  const [lo, hi] = INTEGER_BOUNDS[type]
  if (!(v >= lo && v <= hi)) throw err('22003', `value "${text}" is out of range for type ${type}`)
  return v + 0
}

function specialFloat(t: string): number | undefined {
  switch (t.trim().toLowerCase()) {
    case 'nan':
      return NaN
    case 'infinity':
    case '+infinity':
    case 'inf':
    case '+inf':
      return Infinity
    case '-infinity':
    case '-inf':
      return -Infinity
    default:
      return undefined
  }
}

export function parseFloat8(text: string): number {
  const sp = specialFloat(text)
  if (sp !== undefined) return sp
  if (!DEC_RE.test(text)) throw invalidSyntax('double precision', text)
  const v = Number(text.trim())
  if (!Number.isFinite(v) || (v === 0 && /[1-9]/.test(mantissaOf(text)))) {
    throw err('22003', `"${text}" is out of range for type double precision`)
  }
  return v
}

export function parseFloat4(text: string): number {
  const sp = specialFloat(text)
  if (sp !== undefined) return sp
  if (!DEC_RE.test(text)) throw invalidSyntax('real', text)
  const d = Number(text.trim())
  const v = Math.fround(d)
  if (!Number.isFinite(v) || (v === 0 && /[1-9]/.test(mantissaOf(text)))) {
    throw err('22003', `"${text}" is out of range for type real`)
  }
  return v
}

function mantissaOf(text: string): string {
  const t = text.trim()
  const e = t.search(/e/i)
  return e < 0 ? t : t.slice(0, e)
}

export function parseNumeric(text: string): NumericValue {
  const v = parseNumericText(text)
  if (v === undefined) throw invalidSyntax('numeric', text)
  return v
}

export function parseBoolean(text: string): boolean {
  const t = text.trim().toLowerCase()
  if (t.length > 0) {
    if ('true'.startsWith(t) || 'yes'.startsWith(t) || t === 'on' || t === '1') return true
    if ('false'.startsWith(t) || 'no'.startsWith(t) || (t.length >= 2 && 'off'.startsWith(t)) || t === '0') return false
  }
  throw invalidSyntax('boolean', text)
}

// ---------------------------------------------------------------------------------- rounding

/** Round half to even (C rint), as PG float → integer casts and round(double). */
export function rint(x: number): number {
  if (!Number.isFinite(x)) return x
  const f = Math.floor(x)
  const d = x - f
  if (d < 0.5) return f + 0
  if (d > 0.5) return f + 1
  return f % 2 === 0 ? f + 0 : f + 1
}

// ---------------------------------------------------------------------------------- text output

/** PG output function text of a non-null value (booleans 't'/'f', as psql shows them). */
export function formatOutput(v: unknown, t: SqlType): string {
  if (t === 'boolean') return v ? 't' : 'f'
  return toText(v, t)
}

/** An array's text: its elements by their output function (booleans t/f, as array_out). */
function arrayText(v: ArrayValue, t: ArrayType): string {
  const e = elementType(t)
  return formatArray(v, (x) => formatOutput(x, e))
}

/** Text of a non-null value as `CAST(v AS text)` gives it (booleans 'true'/'false'). */
export function toText(v: unknown, t: SqlType): string {
  if (isArrayType(t)) return arrayText(v as ArrayValue, t)
  switch (t) {
    case 'text':
    case 'bpchar':
    case 'unknown':
      return v as string
    case 'boolean':
      return v ? 'true' : 'false'
    case 'smallint':
    case 'integer':
    case 'bigint':
      return typeof v === 'bigint' ? String(v) : String((v as number) + 0)
    case 'real':
      return formatFloat4(v as number)
    case 'double':
      return formatFloat8(v as number)
    case 'numeric':
      return numericText(v as NumericValue)
    case 'date':
      return formatDate(v as number)
    case 'timestamp':
      return formatTimestamp(v as number)
    case 'interval':
      return (v as Interval).toString()
  }
}

/** Parses text input for a type (the PG input function). */
export function parseText(s: string, to: SqlType): unknown {
  if (isArrayType(to)) {
    const e = elementType(to)
    return parseArray(s, (x) => parseText(x, e))
  }
  switch (to) {
    case 'text':
    case 'bpchar':
    case 'unknown':
      return checkText(s)
    case 'boolean':
      return parseBoolean(s)
    case 'smallint':
    case 'integer':
    case 'bigint':
      return parseInteger(s, to)
    case 'real':
      return parseFloat4(s)
    case 'double':
      return parseFloat8(s)
    case 'numeric':
      return parseNumeric(s)
    case 'date':
      return parseDate(s)
    case 'timestamp':
      return parseTimestamp(s)
    case 'interval':
      return parseInterval(s)
  }
}

/** Text values never hold a NUL character (PostgreSQL's text cannot store one). */
export function checkText(s: string): string {
  if (s.indexOf('\u0000') >= 0) throw err('22021', 'invalid byte sequence for encoding "UTF8": 0x00')
  return s
}

// ---------------------------------------------------------------------------------- casts

type IntegerType = 'smallint' | 'integer' | 'bigint'

/** A number of a numeric type as an integer type (rounding as PG: floats half to even,
 *  numeric half away from zero), range-checked. */
function toInteger(v: unknown, from: SqlType, to: IntegerType): Int8 {
  let exact: bigint | number
  if (from === 'numeric') {
    const n = v as NumericValue
    if (n !== n) throw err('0A000', `cannot convert NaN to ${to}`)
    if (n === Infinity || n === -Infinity) throw err('0A000', `cannot convert infinity to ${to}`)
    exact = typeof n === 'number' ? n : numericToInteger(n)!
  } else if (from === 'real' || from === 'double') {
    const r = rint(v as number)
    // NaN and the infinities fail the range checks below
    if (!Number.isFinite(r)) throw outOfRange(to)
    exact = Number.isSafeInteger(r) ? r : fitsInt8(r) ? BigInt(r) : Infinity
  } else {
    exact = v as Int8
  }
  if (to === 'bigint') {
    if (typeof exact === 'number') {
      if (Number.isSafeInteger(exact)) return exact + 0
      throw outOfRange(to)
    }
    if (!fitsInt8(exact)) throw outOfRange(to)
    return int8Of(exact)
  }
  const [lo, hi] = INTEGER_BOUNDS[to]
  if (!(exact >= lo && exact <= hi)) throw outOfRange(to)
  return Number(exact) + 0
}

function toReal(x: number, from: SqlType): number {
  const r = Math.fround(x)
  if (Number.isFinite(x) && !Number.isFinite(r)) {
    if (from === 'numeric') throw err('22003', `"${formatFloat8(x)}" is out of range for type real`)
    throw err('22003', 'value out of range: overflow')
  }
  if (r === 0 && x !== 0) {
    if (from === 'numeric') throw err('22003', `"${formatFloat8(x)}" is out of range for type real`)
    throw err('22003', 'value out of range: underflow')
  }
  return r
}

/** A value of a numeric type as a double. */
function toDouble(v: unknown, from: SqlType): number {
  if (from === 'numeric') {
    const x = numericToDouble(v as NumericValue)
    // a finite decimal too large for a double
    if (!Number.isFinite(x) && v instanceof Numeric) throw err('22003', `"${numericText(v)}" is out of range for type double precision`)
    return x
  }
  return typeof v === 'bigint' ? Number(v) : (v as number) + 0
}

function cannotCast(from: SqlType, to: SqlType): RivuletError {
  return err('42846', `cannot cast type ${typeDisplayName(from)} to ${typeDisplayName(to)}`)
}

/** Casts a non-null run-time value between types with PG semantics (rounding, range checks,
 *  text parsing/formatting). `from` 'unknown' means v is the text of an untyped literal. */
export function castValue(v: unknown, from: SqlType, to: SqlType): unknown {
  if (from === to) return v
  // CHAR(n) → text drops the padding (trailing spaces never count in a CHAR)
  if (from === 'bpchar' && (to === 'text' || to === 'unknown')) return trimPadding(v as string)
  if (from === 'text' || from === 'unknown' || from === 'bpchar') return parseText(v as string, to)
  if (to === 'text' || to === 'unknown') return toText(v, from)
  if (isArrayType(to) && isArrayType(from)) {
    // element by element (int[] → bigint[], text[] → integer[], …)
    const a = elementType(from)
    const b = elementType(to)
    return new ArrayValue((v as ArrayValue).items.map((x) => (x === null ? null : castValue(x, a, b))))
  }
  if (isArrayType(to) || isArrayType(from)) throw cannotCast(from, to)
  switch (to) {
    case 'smallint':
    case 'integer':
    case 'bigint':
      if (from === 'boolean') {
        if (to !== 'integer') throw cannotCast(from, to)
        return v ? 1 : 0
      }
      if (isNum(from)) return toInteger(v, from, to)
      break
    case 'real':
      if (isNum(from)) return toReal(toDouble(v, from), from)
      break
    case 'double':
      if (isNum(from)) return toDouble(v, from)
      break
    case 'numeric':
      // PG converts floats to numeric through their text with FLT_DIG / DBL_DIG digits
      if (from === 'real') return numericFromDouble(v as number, 6)
      if (from === 'double') return numericFromDouble(v as number, 15)
      if (isNum(from)) return numericFromInteger(v as Int8)
      break
    case 'boolean':
      if (from === 'integer') return v !== 0
      break
    case 'timestamp':
      if (from === 'date') return checkTimestamp((v as number) * USECS_PER_DAY)
      break
    case 'date':
      if (from === 'timestamp') return Math.floor((v as number) / USECS_PER_DAY)
      break
    default:
      break
  }
  throw cannotCast(from, to)
}

function isNum(t: SqlType): boolean {
  return t === 'smallint' || t === 'integer' || t === 'bigint' || t === 'numeric' || t === 'real' || t === 'double'
}

// ---------------------------------------------------------------------------------- API values

/** A value as the API returns it: integers as numbers (bigint beyond ±(2^53 − 1) as a JS
 *  bigint), numeric as its PG text (exact, with its scale), real as its shortest float4
 *  decimal (so 0.1::real → 0.1), text/boolean as is, date/timestamp/interval as PG text. */
export function toResultValue(v: unknown, t: SqlType): ResultValue {
  if (v === null || v === undefined) return null
  // an array as its PostgreSQL text ('{1,2,NULL}'), as the other non-JS types are
  if (isArrayType(t)) return arrayText(v as ArrayValue, t)
  switch (t) {
    case 'real': {
      const x = v as number
      return Number.isFinite(x) && x !== 0 ? Number(formatFloat4(x)) : x
    }
    case 'smallint':
    case 'integer':
    case 'double':
      return (v as number) + 0
    case 'bigint':
      return typeof v === 'bigint' ? v : (v as number) + 0
    case 'numeric':
      return numericText(v as NumericValue)
    case 'boolean':
      return v as boolean
    case 'text':
    case 'bpchar':
    case 'unknown':
      return v as string
    case 'date':
      return formatDate(v as number)
    case 'timestamp':
      return formatTimestamp(v as number)
    case 'interval':
      return (v as Interval).toString()
  }
}

function badInput(v: unknown, t: SqlType): RivuletError {
  const shown = typeof v === 'string' ? `"${v}"` : typeof v === 'object' ? Object.prototype.toString.call(v) : String(v)
  return err('42804', `cannot use JavaScript ${typeof v} value ${shown} as ${typeDisplayName(t)}`)
}

/** Converts an API input value (db.insert) to the run-time representation of `t`, validating
 *  type and range. Accepts null/undefined (→ null), JS numbers, strings (parsed as PG input),
 *  booleans, bigints, Date (date/timestamp), Interval. Numbers for date/timestamp are epoch
 *  milliseconds; numbers for interval are milliseconds. A number for a numeric column is the
 *  decimal its shortest text spells (0.1 → 0.1). */
export function fromInputValue(v: unknown, t: SqlType): unknown {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return parseText(v, t)
  if (isArrayType(t)) {
    // a JS array of element values (or an ArrayValue)
    if (v instanceof ArrayValue) return v
    if (!Array.isArray(v)) throw badInput(v, t)
    const e = elementType(t)
    return new ArrayValue(v.map((x: unknown) => {
      if (Array.isArray(x)) throw new RivuletError('0A000', 'multidimensional arrays are not supported')
      return fromInputValue(x, e)
    }))
  }
  switch (t) {
    case 'boolean':
      if (typeof v === 'boolean') return v
      if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1
      break
    case 'smallint':
    case 'integer':
    case 'bigint': {
      if (typeof v === 'boolean') return v ? 1 : 0
      if (typeof v === 'bigint') {
        if (!fitsInt8(v)) throw outOfRange(t)
        return toInteger(int8Of(v), 'bigint', t)
      }
      if (typeof v !== 'number') break
      if (!Number.isInteger(v) && Number.isFinite(v)) return toInteger(v, 'double', t)
      if (t === 'bigint' && !Number.isSafeInteger(v)) {
        // an integral double beyond 2^53 is an exact integer
        if (!fitsInt8(v)) throw int8OutOfRange()
        return int8Of(BigInt(v))
      }
      return toInteger(v, 'integer', t)
    }
    case 'real':
      if (typeof v === 'number') return toReal(v, 'double')
      if (typeof v === 'bigint') return Math.fround(Number(v))
      break
    case 'double':
      if (typeof v === 'number') return v + 0
      if (typeof v === 'bigint') return Number(v)
      break
    case 'numeric':
      if (typeof v === 'number') return Number.isSafeInteger(v) || !Number.isFinite(v) ? v + 0 : parseNumericText(formatFloat8(v))!
      if (typeof v === 'bigint') return numericFromInteger(v)
      if (v instanceof Numeric) return v
      break
    case 'text':
    case 'bpchar':
    case 'unknown':
      if (typeof v === 'number') return formatFloat8(v)
      if (typeof v === 'boolean' || typeof v === 'bigint') return String(v)
      break
    case 'date':
      if (v instanceof Date) return msToDays(v.getTime(), v, t)
      if (typeof v === 'number') return msToDays(v, v, t)
      break
    case 'timestamp':
      if (v instanceof Date) return msToMicros(v.getTime(), v, t)
      if (typeof v === 'number') return msToMicros(v, v, t)
      break
    case 'interval':
      if (v instanceof Interval) return v
      if (typeof v === 'number' && Number.isFinite(v)) return new Interval(0, 0, Math.round(v * 1000) + 0)
      break
  }
  throw badInput(v, t)
}

function msToDays(ms: number, orig: unknown, t: SqlType): number {
  if (Number.isNaN(ms)) throw badInput(orig, t)
  if (!Number.isFinite(ms)) return ms
  return checkDate(Math.floor(ms / 86_400_000))
}

function msToMicros(ms: number, orig: unknown, t: SqlType): number {
  if (Number.isNaN(ms)) throw badInput(orig, t)
  if (!Number.isFinite(ms)) return ms
  return checkTimestamp(Math.round(ms * 1000) + 0)
}

// ---------------------------------------------------------------------------------- ordering

/** Compares strings by Unicode code point (PG "C" collation on UTF-8). */
export function compareText(a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x !== y) {
      // surrogates (astral code points) sort above U+E000..U+FFFF
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000
      }
      return x < y ? -1 : 1
    }
  }
  return a.length < b.length ? -1 : 1
}

// ---------------------------------------------------------------------------------- type modifiers

/** The first n characters (code points) of s, or undefined when s has at most n. */
function firstCharacters(s: string, n: number): string | undefined {
  if (s.length <= n) return undefined
  let i = 0
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i)
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1
    if (i >= s.length) return undefined
  }
  return s.slice(0, i)
}

function characterCount(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xdc00 || c > 0xdfff) n++
  }
  return n
}

/** VARCHAR(n) / CHAR(n): a longer text is cut to n characters by an explicit cast, and when
 *  only spaces are cut; otherwise it is 22001. CHAR pads with spaces to n. */
function fitLength(s: string, n: number, explicit: boolean, type: 'character varying' | 'character'): string {
  const cut = firstCharacters(s, n)
  let out = s
  if (cut !== undefined) {
    if (!explicit && !/^ *$/.test(s.slice(cut.length))) throw err('22001', `value too long for type ${type}(${n})`)
    out = cut
  }
  if (type === 'character') {
    const missing = n - characterCount(out)
    if (missing > 0) out += ' '.repeat(missing)
  }
  return out
}

/** Applies a column's or a cast's type modifier to a non-null value of its base type. */
export function applyTypeModifier(v: unknown, m: TypeModifier, explicit: boolean): unknown {
  switch (m.kind) {
    case 'numeric':
      return applyNumericTypmod(v as NumericValue, m.precision, m.scale)
    case 'varchar':
      return fitLength(v as string, m.length, explicit, 'character varying')
    case 'char':
      return fitLength(v as string, m.length, explicit, 'character')
  }
}

/** A CHAR(n) value without its padding. */
export function trimPadding(s: string): string {
  let end = s.length
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--
  return end === s.length ? s : s.slice(0, end)
}

/** CHAR(n) order: as text, trailing spaces ignored. */
export function compareBpchar(a: string, b: string): number {
  return compareText(trimPadding(a), trimPadding(b))
}

/** Numbers (and bigint-valued bigints, which `<` compares with numbers exactly): numeric
 *  order, NaN above everything (PG), -0 = 0. */
export function compareNumber(a: number, b: number): number {
  if (a < b) return -1
  if (a > b) return 1
  if (a === b) return 0
  const an = a !== a
  const bn = b !== b
  return an === bn ? 0 : an ? 1 : -1
}

function compareBool(a: boolean, b: boolean): number {
  return a === b ? 0 : a ? 1 : -1
}

/** Total order on non-null values of type t (ORDER BY, MIN/MAX, greatest/least). */
export function compareFn(t: SqlType): (a: unknown, b: unknown) => number {
  if (isArrayType(t)) return compareArrays(compareFn(elementType(t)))
  switch (t) {
    case 'text':
    case 'unknown':
      return compareText as (a: unknown, b: unknown) => number
    case 'boolean':
      return compareBool as (a: unknown, b: unknown) => number
    case 'interval':
      return compareInterval as (a: unknown, b: unknown) => number
    case 'numeric':
      return numericCompare as (a: unknown, b: unknown) => number
    case 'bpchar':
      return compareBpchar as (a: unknown, b: unknown) => number
    default:
      return compareNumber as (a: unknown, b: unknown) => number
  }
}

/** PostgreSQL's array order (btarraycmp): element by element, a NULL element equal to another
 *  NULL and after every value; then the shorter array first. */
export function compareArrays(element: (a: unknown, b: unknown) => number): (a: unknown, b: unknown) => number {
  return (x, y) => {
    const a = (x as ArrayValue).items
    const b = (y as ArrayValue).items
    const n = Math.min(a.length, b.length)
    for (let i = 0; i < n; i++) {
      const p = a[i]
      const q = b[i]
      if (p === null || q === null) {
        if (p === q) continue
        return p === null ? 1 : -1
      }
      const c = element(p, q)
      if (c !== 0) return c < 0 ? -1 : 1
    }
    return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
  }
}

/** Comparator for a sort key including NULL placement (PG default: NULLS LAST for ASC,
 *  NULLS FIRST for DESC when nullsFirst is undefined). */
export function sortKeyCompare(t: SqlType, desc: boolean, nullsFirst?: boolean): (a: unknown, b: unknown) => number {
  const cmp = compareFn(t)
  const nf = nullsFirst ?? desc
  return (a, b) => {
    const an = a === null || a === undefined
    const bn = b === null || b === undefined
    if (an || bn) return an && bn ? 0 : an === nf ? -1 : 1
    const c = cmp(a, b)
    return desc ? -c : c
  }
}

/** Compares two non-null values of possibly different run-time kinds (used by greatest/least
 *  where the type is implied by the values). */
export function compareAny(a: unknown, b: unknown): number {
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return compareNumber(a as number, b as number)
  if (a instanceof Numeric || b instanceof Numeric) return numericCompare(a as NumericValue, b as NumericValue)
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b)
  if (typeof a === 'boolean' && typeof b === 'boolean') return compareBool(a, b)
  if (a instanceof Interval && b instanceof Interval) return compareInterval(a, b)
  throw err('XX000', 'cannot compare values of different types')
}

/** Two non-null values of one type, ordered as SQL orders them (the fast cases first). */
export function compareScalars(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b !== 'object') return compareNumber(a, b as number)
  if (typeof a === 'string') return compareText(a, b as string)
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1
  return compareAny(a, b)
}

/** SQL equality of two non-null values of one type (NaN = NaN; 2.5 = 2.50; '1 day' = '24:00:00'). */
export function equalScalars(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b) || ((a instanceof Interval || a instanceof Numeric || b instanceof Numeric) && compareScalars(a, b) === 0)
}
