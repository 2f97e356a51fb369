// Dates and timestamps: the proleptic Gregorian calendar (day numbers), PostgreSQL's range
// limits, the wall clock, and their text forms in and out (DateStyle ISO). A date is a day
// number since 1970-01-01, a timestamp microseconds since then (see planner/types.ts); apart
// from values.ts because the date/time functions and the interval code build on it alone.
//
// Decisions (deviations from Postgres noted):
// - timestamps are microseconds in a double: exact within ±2^53 µs (years 1685..2255);
//   outside that (PG allows 4713 BC..294276 AD) precision degrades to ~1 ms at the extremes.
// - Accepted date input: ISO (YYYY-MM-DD, also with '/'), YYYYMMDD, MM/DD/YYYY (DateStyle
//   MDY), 'Mon DD YYYY', 'DD Mon YYYY', 'YYYY-Mon-DD', BC/AD, infinity, epoch, now/today/
//   tomorrow/yesterday. Not: Julian 'J2451187', 'YYYY.DDD', compact 'YYYYMMDD HHMMSS' times.
// - timestamp input ignores any time zone suffix (Z, +05:00, UTC, Europe/Paris), as PG does for
//   timestamp without time zone (a zone name is not checked). 'now'/'today'/'tomorrow'/'yesterday' read the wall clock.

import { sqlError, fieldOutOfRange, invalidSyntax } from './sql-errors.js'

export const USECS_PER_SEC = 1_000_000
export const USECS_PER_MINUTE = 60_000_000
export const USECS_PER_HOUR = 3_600_000_000
export const USECS_PER_DAY = 86_400_000_000

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

/** The microseconds of a fraction of a second's digits ('5' → 500000), rounded half up at the
 *  seventh digit, as PostgreSQL reads them. */
export function fractionMicros(frac: string): number {
  if (frac.length === 0) return 0
  const fm = Number((frac + '000000').slice(0, 6))
  return frac.length > 6 && frac.charCodeAt(6) >= 53 ? fm + 1 : fm
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
  if (Number.isFinite(days) && (days < MIN_DATE || days > MAX_DATE)) throw sqlError('22008', 'date out of range')
  return days
}
export function checkTimestamp(micros: number): number {
  if (Number.isFinite(micros) && (micros < MIN_TS || micros >= END_TS)) throw sqlError('22008', 'timestamp out of range')
  if (Number.isNaN(micros)) throw sqlError('22008', 'timestamp out of range')
  return micros
}

// ---------------------------------------------------------------------------------- clock

/** The wall clock used by now()/current_date and 'now'/'today' input; replaceable in tests. */
export const clock = {
  /** Current time in microseconds since the epoch. */
  nowMicros: (): number => Date.now() * 1000,
}

// ---------------------------------------------------------------------------------- date/time text

export function pad(n: number, w: number): string {
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

export function formatFraction(micros: number): string {
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
  /^(?:[\st]+(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?)?\s*(z|utc|gmt|[+-]\d{1,2}(?::?\d{2}){0,2}|(?!(?:bc|ad)\s*$)[a-z][a-z0-9_/+-]*)?\s*(bc|ad)?\s*$/

export interface ParsedDateTime {
  readonly days: number
  readonly micros: number // time of day, may be a full day for 24:00:00
  /** The zone written after the time (lower-cased), if any: an offset or a name. */
  readonly zone?: string
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

export function parseDateTime(text: string, typeName: string): ParsedDateTime {
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
      const fm = fractionMicros(tm[4] ?? '')
      if (mi > 59 || sec > 60 || h > 24 || (h === 24 && (mi > 0 || sec > 0 || fm > 0))) throw fieldOutOfRange(text)
      micros = h * USECS_PER_HOUR + mi * USECS_PER_MINUTE + sec * USECS_PER_SEC + fm
    } else if (tm[5] !== undefined && /^[+-]/.test(tm[5])) {
      // a bare "-05" after a date is not a zone; treat as garbage
      throw invalidSyntax(typeName, text)
    }
    return tm[5] === undefined ? { days: daysFromCivil(y, mo, d), micros } : { days: daysFromCivil(y, mo, d), micros, zone: tm[5] }
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
