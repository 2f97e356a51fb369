// The date, timestamp and interval functions of the function library: arithmetic (month
// steps clamp to the month's end, as PostgreSQL's), interval multiplication and division with
// PostgreSQL's carries, justify_*, date_trunc, date_part/EXTRACT, to_timestamp, date_bin,
// make_*, age, now. One family of FUNCTIONS (functions.ts); to_char is to-char.ts, the value
// types themselves datetime.ts and interval.ts.

import { RivuletError } from '../../grammar/errors.js'
import { Interval, normalizeUnit } from './interval.js'
import { USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC, checkDate, checkTimestamp, civilFromDays, clock, daysFromCivil, daysInMonth } from './datetime.js'
import { rint } from './number-text.js'
import { numericAdd, numericDiv, numericOf, type NumericValue } from '../../planner/index.js'
import { divByZero, sqlError } from './sql-errors.js'
type Fn = (...args: never[]) => unknown

// ---------------------------------------------------------------------------------- date/time

export function addMonths(ts: number, months: number): number {
  const days = Math.floor(ts / USECS_PER_DAY)
  const tod = ts - days * USECS_PER_DAY
  const [y, m, d] = civilFromDays(days)
  const total = y * 12 + (m - 1) + months
  const ny = Math.floor(total / 12)
  const nm = total - ny * 12 + 1
  const nd = Math.min(d, daysInMonth(ny, nm))
  return daysFromCivil(ny, nm, nd) * USECS_PER_DAY + tod
}

export function tsAddInterval(ts: number, iv: Interval): number {
  if (!Number.isFinite(ts)) return ts
  let r = ts
  if (iv.months !== 0) r = addMonths(r, iv.months)
  if (iv.days !== 0) r += iv.days * USECS_PER_DAY
  r += iv.micros
  return checkTimestamp(r)
}
/** ts − iv, as ts + (−iv) without building the negated interval (a stream's watermark
 *  `ts - INTERVAL '4' SECOND` runs it for every event). */
export function tsSubInterval(ts: number, iv: Interval): number {
  if (!Number.isFinite(ts)) return ts
  let r = ts
  if (iv.months !== 0) r = addMonths(r, -iv.months)
  if (iv.days !== 0) r -= iv.days * USECS_PER_DAY
  r -= iv.micros
  return checkTimestamp(r)
}
function dateToTs(d: number): number {
  return Number.isFinite(d) ? checkTimestamp(d * USECS_PER_DAY) : d
}
export function tsSubTs(a: number, b: number): Interval {
  if (!Number.isFinite(a) || !Number.isFinite(b)) throw sqlError('22008', 'cannot subtract infinite timestamps')
  const diff = a - b
  const days = Math.trunc(diff / USECS_PER_DAY)
  return new Interval(0, days + 0, diff - days * USECS_PER_DAY + 0)
}
function dateAddInt(d: number, n: number): number {
  if (!Number.isFinite(d)) return d
  return checkDate(d + n)
}
function dateSubDate(a: number, b: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b)) throw sqlError('22008', 'cannot subtract infinite dates')
  return a - b
}

function checkInterval(months: number, days: number, micros: number): Interval {
  if (
    !Number.isFinite(micros) ||
    Math.abs(months) > 2147483647 ||
    Math.abs(days) > 2147483647 ||
    Math.abs(micros) > Number.MAX_SAFE_INTEGER * 1024
  ) {
    throw sqlError('22008', 'interval out of range')
  }
  return new Interval(months + 0, days + 0, micros + 0)
}

const tsround = (x: number): number => rint(x * 1e6) / 1e6

/** PG interval_mul: fractional months cascade to days, fractional days to seconds. */
function intervalMul(iv: Interval, f: number): Interval {
  if (Number.isNaN(f)) throw sqlError('22008', 'interval out of range')
  const mD = iv.months * f
  let months = Math.trunc(mD)
  const dD = iv.days * f
  let days = Math.trunc(dD)
  if (!Number.isFinite(mD) || !Number.isFinite(dD) || Math.abs(mD) > 2147483647 || Math.abs(dD) > 2147483647) {
    throw sqlError('22008', 'interval out of range')
  }
  const monthRemainderDays = tsround((mD - months) * 30)
  let secRemainder = tsround((dD - days + monthRemainderDays - Math.trunc(monthRemainderDays)) * 86400)
  if (Math.abs(secRemainder) >= 86400) {
    days += Math.trunc(secRemainder / 86400)
    secRemainder -= Math.trunc(secRemainder / 86400) * 86400
  }
  days += Math.trunc(monthRemainderDays)
  const micros = rint(iv.micros * f + secRemainder * USECS_PER_SEC)
  months += 0
  return checkInterval(months, days, micros)
}

/** lo + (hi − lo) · f, as PostgreSQL's interval_lerp (percentile_cont over intervals). */
export function intervalLerp(lo: Interval, hi: Interval, f: number): Interval {
  const step = intervalMul(checkInterval(hi.months - lo.months, hi.days - lo.days, hi.micros - lo.micros), f)
  return checkInterval(lo.months + step.months, lo.days + step.days, lo.micros + step.micros)
}

function intervalDiv(iv: Interval, f: number): Interval {
  if (f === 0) throw divByZero()
  if (Number.isNaN(f)) throw sqlError('22008', 'interval out of range')
  let months = Math.trunc(iv.months / f)
  let days = Math.trunc(iv.days / f)
  const monthRemainderDays = tsround((iv.months / f - months) * 30)
  let secRemainder = tsround((iv.days / f - days + monthRemainderDays - Math.trunc(monthRemainderDays)) * 86400)
  if (Math.abs(secRemainder) >= 86400) {
    days += Math.trunc(secRemainder / 86400)
    secRemainder -= Math.trunc(secRemainder / 86400) * 86400
  }
  days += Math.trunc(monthRemainderDays)
  const micros = rint(iv.micros / f + secRemainder * USECS_PER_SEC)
  months += 0
  return checkInterval(months, days, micros)
}

function justifyHours(iv: Interval): Interval {
  const whole = Math.trunc(iv.micros / USECS_PER_DAY)
  let time = iv.micros - whole * USECS_PER_DAY
  let day = iv.days + whole
  if (day > 0 && time < 0) {
    time += USECS_PER_DAY
    day--
  } else if (day < 0 && time > 0) {
    time -= USECS_PER_DAY
    day++
  }
  return checkInterval(iv.months, day, time)
}
function justifyDays(iv: Interval): Interval {
  const whole = Math.trunc(iv.days / 30)
  let day = iv.days - whole * 30
  let month = iv.months + whole
  if (month > 0 && day < 0) {
    day += 30
    month--
  } else if (month < 0 && day > 0) {
    day -= 30
    month++
  }
  return checkInterval(month, day, iv.micros)
}
function justifyInterval(iv: Interval): Interval {
  const wholeDay = Math.trunc(iv.micros / USECS_PER_DAY)
  let time = iv.micros - wholeDay * USECS_PER_DAY
  let day = iv.days + wholeDay
  const wholeMonth = Math.trunc(day / 30)
  day -= wholeMonth * 30
  let month = iv.months + wholeMonth
  if (month > 0 && (day < 0 || (day === 0 && time < 0))) {
    day += 30
    month--
  } else if (month < 0 && (day > 0 || (day === 0 && time > 0))) {
    day -= 30
    month++
  }
  if (day > 0 && time < 0) {
    time += USECS_PER_DAY
    day--
  } else if (day < 0 && time > 0) {
    time -= USECS_PER_DAY
    day++
  }
  return checkInterval(month, day, time)
}

// Field names accepted by date_trunc / date_part / extract.
type Field =
  | 'microsecond' | 'millisecond' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter'
  | 'year' | 'decade' | 'century' | 'millennium' | 'dow' | 'isodow' | 'doy' | 'epoch' | 'isoyear'
  | 'julian' | 'timezone' | 'timezone_hour' | 'timezone_minute'

/** The last field name parsed and its result: a unit is nearly always a constant, so a row
 *  asking again for `EXTRACT(HOUR …)` finds it by a pointer comparison. */
const lastField = { name: '', typeDesc: '', field: 'hour' as Field }

function fieldOf(name: string, typeDesc: string): Field {
  if (name === lastField.name && typeDesc === lastField.typeDesc) return lastField.field
  const field = parseField(name, typeDesc)
  lastField.name = name
  lastField.typeDesc = typeDesc
  lastField.field = field
  return field
}

function parseField(name: string, typeDesc: string): Field {
  const n = name.trim().toLowerCase()
  const u = normalizeUnit(n)
  if (u !== undefined) return u
  switch (n) {
    case 'quarter':
    case 'qtr':
      return 'quarter'
    case 'dow':
    case 'isodow':
    case 'doy':
    case 'epoch':
    case 'isoyear':
    case 'julian':
    case 'timezone':
    case 'timezone_hour':
    case 'timezone_minute':
      return n
    case 'j':
      return 'julian'
  }
  throw sqlError('22023', `unit "${name}" not recognized for type ${typeDesc}`)
}
function notSupported(name: string, typeDesc: string): RivuletError {
  return sqlError('0A000', `unit "${name}" not supported for type ${typeDesc}`)
}

const TS_DESC = 'timestamp without time zone'

interface Tm {
  y: number
  m: number
  d: number
  days: number
  tod: number // micros since midnight
}
export function tmOf(ts: number): Tm {
  const days = Math.floor(ts / USECS_PER_DAY)
  const [y, m, d] = civilFromDays(days)
  return { y, m, d, days, tod: ts - days * USECS_PER_DAY }
}

/** ISO 8601 week-numbering year and week of a day number. */
export function isoWeek(days: number): [number, number] {
  const dow = ((((days + 3) % 7) + 7) % 7) + 1 // 1 = Monday (1970-01-01 was a Thursday)
  const thursday = days - dow + 4
  const [ty] = civilFromDays(thursday)
  const jan1 = daysFromCivil(ty, 1, 1)
  return [ty, Math.floor((thursday - jan1) / 7) + 1]
}

export function dateTrunc(field: string, ts: number): number {
  const f = fieldOf(field, TS_DESC)
  if (!Number.isFinite(ts)) return ts
  const t = tmOf(ts)
  const ymd = (y: number, m: number, d: number) => daysFromCivil(y, m, d) * USECS_PER_DAY
  switch (f) {
    case 'microsecond':
      return ts
    case 'millisecond':
      return Math.floor(ts / 1000) * 1000
    case 'second':
      return Math.floor(ts / USECS_PER_SEC) * USECS_PER_SEC
    case 'minute':
      return Math.floor(ts / USECS_PER_MINUTE) * USECS_PER_MINUTE
    case 'hour':
      return Math.floor(ts / USECS_PER_HOUR) * USECS_PER_HOUR
    case 'day':
      return t.days * USECS_PER_DAY
    case 'week': {
      const dow = (((t.days + 3) % 7) + 7) % 7 // 0 = Monday
      return checkTimestamp((t.days - dow) * USECS_PER_DAY)
    }
    case 'month':
      return ymd(t.y, t.m, 1)
    case 'quarter':
      return ymd(t.y, Math.floor((t.m - 1) / 3) * 3 + 1, 1)
    case 'year':
      return ymd(t.y, 1, 1)
    case 'decade':
      return checkTimestamp(ymd(Math.floor(t.y / 10) * 10, 1, 1))
    case 'century':
      return checkTimestamp(ymd(t.y > 0 ? Math.floor((t.y + 99) / 100) * 100 - 99 : Math.floor(t.y / 100) * 100, 1, 1))
    case 'millennium':
      return checkTimestamp(ymd(t.y > 0 ? Math.floor((t.y + 999) / 1000) * 1000 - 999 : Math.floor(t.y / 1000) * 1000, 1, 1))
    default:
      throw notSupported(field, TS_DESC)
  }
}

function intervalParts(iv: Interval): { year: number; mon: number; day: number; hour: number; min: number; sec: number; usec: number } {
  const year = Math.trunc(iv.months / 12)
  const mon = iv.months - year * 12
  let t = iv.micros
  const hour = Math.trunc(t / USECS_PER_HOUR)
  t -= hour * USECS_PER_HOUR
  const min = Math.trunc(t / USECS_PER_MINUTE)
  t -= min * USECS_PER_MINUTE
  const sec = Math.trunc(t / USECS_PER_SEC)
  const usec = t - sec * USECS_PER_SEC
  return { year, mon, day: iv.days, hour, min, sec, usec }
}

function dateTruncInterval(field: string, iv: Interval): Interval {
  const f = fieldOf(field, 'interval')
  const p = intervalParts(iv)
  const time = (h: number, mi: number, s: number, us: number) => h * USECS_PER_HOUR + mi * USECS_PER_MINUTE + s * USECS_PER_SEC + us
  switch (f) {
    case 'millennium':
      return new Interval(Math.trunc(p.year / 1000) * 1000 * 12, 0, 0)
    case 'century':
      return new Interval(Math.trunc(p.year / 100) * 100 * 12, 0, 0)
    case 'decade':
      return new Interval(Math.trunc(p.year / 10) * 10 * 12, 0, 0)
    case 'year':
      return new Interval(p.year * 12, 0, 0)
    case 'quarter':
      return new Interval(p.year * 12 + Math.trunc(p.mon / 3) * 3, 0, 0)
    case 'month':
      return new Interval(iv.months, 0, 0)
    case 'day':
      return new Interval(iv.months, iv.days, 0)
    case 'hour':
      return new Interval(iv.months, iv.days, time(p.hour, 0, 0, 0))
    case 'minute':
      return new Interval(iv.months, iv.days, time(p.hour, p.min, 0, 0))
    case 'second':
      return new Interval(iv.months, iv.days, time(p.hour, p.min, p.sec, 0))
    case 'millisecond':
      return new Interval(iv.months, iv.days, time(p.hour, p.min, p.sec, Math.trunc(p.usec / 1000) * 1000))
    case 'microsecond':
      return iv
    default:
      throw notSupported(field, 'interval')
  }
}

/** date_part/extract on a timestamp (`isDate`: the value is a date and time fields are errors;
 *  `float`: date_part's double precision formulas, which round like PG's C code). */
export function extractTs(field: string, ts: number, isDate: boolean, float = false): number | null {
  const desc = isDate ? 'date' : TS_DESC
  const f = fieldOf(field, desc)
  if (isDate && (f === 'microsecond' || f === 'millisecond' || f === 'second' || f === 'minute' || f === 'hour' || f.startsWith('timezone'))) {
    throw notSupported(field, desc)
  }
  if (!Number.isFinite(ts)) {
    switch (f) {
      case 'epoch':
      case 'year':
      case 'decade':
      case 'century':
      case 'millennium':
      case 'julian':
      case 'isoyear':
        return ts
      default:
        return null
    }
  }
  if (!float && !isDate) {
    // the time-of-day fields need no calendar
    const tod = ts - Math.floor(ts / USECS_PER_DAY) * USECS_PER_DAY
    if (f === 'hour') return Math.floor(tod / USECS_PER_HOUR)
    if (f === 'minute') return Math.floor(tod / USECS_PER_MINUTE) % 60
  }
  const t = tmOf(ts)
  const bcYear = t.y > 0 ? t.y : t.y - 1 // PG reports 1 BC as -1
  if (float) {
    const sec = Math.floor((t.tod % USECS_PER_MINUTE) / USECS_PER_SEC)
    const fsec = (t.tod % USECS_PER_SEC) + 0
    switch (f) {
      case 'millisecond':
        return sec * 1000 + fsec / 1000
      case 'second':
        return sec + fsec / 1000000
      case 'julian': {
        const h = Math.floor(t.tod / USECS_PER_HOUR)
        const mi = Math.floor(t.tod / USECS_PER_MINUTE) % 60
        return t.days + 2440588 + ((h * 60 + mi) * 60 + sec + fsec / 1000000) / 86400
      }
      default:
        break
    }
  }
  switch (f) {
    case 'microsecond':
      return (t.tod % USECS_PER_MINUTE) + 0
    case 'millisecond':
      return (t.tod % USECS_PER_MINUTE) / 1000
    case 'second':
      return (t.tod % USECS_PER_MINUTE) / USECS_PER_SEC
    case 'minute':
      return Math.floor(t.tod / USECS_PER_MINUTE) % 60
    case 'hour':
      return Math.floor(t.tod / USECS_PER_HOUR)
    case 'day':
      return t.d
    case 'month':
      return t.m
    case 'quarter':
      return Math.floor((t.m - 1) / 3) + 1
    case 'year':
      return bcYear
    case 'decade':
      return bcYear >= 0 ? Math.floor(bcYear / 10) : -Math.floor((8 - (bcYear - 1)) / 10)
    case 'century':
      return bcYear > 0 ? Math.floor((bcYear + 99) / 100) : -Math.floor((99 - (bcYear - 1)) / 100)
    case 'millennium':
      return bcYear > 0 ? Math.floor((bcYear + 999) / 1000) : -Math.floor((999 - (bcYear - 1)) / 1000)
    case 'dow':
      return (((t.days + 4) % 7) + 7) % 7
    case 'isodow':
      return ((((t.days + 3) % 7) + 7) % 7) + 1
    case 'doy':
      return t.days - daysFromCivil(t.y, 1, 1) + 1
    case 'week':
      return isoWeek(t.days)[1]
    case 'isoyear': {
      const iy = isoWeek(t.days)[0]
      return iy > 0 ? iy : iy - 1
    }
    case 'julian':
      return t.days + 2440588 + (isDate ? 0 : t.tod / USECS_PER_DAY)
    case 'epoch':
      return isDate ? t.days * 86400 : ts / USECS_PER_SEC
    case 'timezone':
    case 'timezone_hour':
    case 'timezone_minute':
      throw notSupported(field, desc)
    default:
      throw notSupported(field, desc)
  }
}

function extractInterval(field: string, iv: Interval): number {
  return extractIntervalRaw(field, iv) + 0
}

/** EXTRACT's numeric result (PG 14+): the fractional fields are exact decimals of a fixed
 *  scale — seconds and epochs in microseconds (scale 6), milliseconds at scale 3 — and the
 *  Julian day of a timestamp is the day plus the fraction of it, by numeric division. */
export function extractTsNumeric(field: string, ts: number, isDate: boolean): NumericValue | null {
  if (!Number.isFinite(ts) || isDate) return extractTs(field, ts, isDate)
  const f = fieldOf(field, TS_DESC)
  const tod = ts - Math.floor(ts / USECS_PER_DAY) * USECS_PER_DAY
  switch (f) {
    case 'second':
      return numericOf(BigInt(tod % USECS_PER_MINUTE), 6)
    case 'millisecond':
      return numericOf(BigInt(tod % USECS_PER_MINUTE), 3)
    case 'epoch':
      return numericOf(BigInt(ts), 6)
    case 'julian':
      return numericAdd(Math.floor(ts / USECS_PER_DAY) + 2440588, numericDiv(tod, USECS_PER_DAY))
    default:
      return extractTs(field, ts, false)
  }
}

function extractIntervalNumeric(field: string, iv: Interval): NumericValue {
  const f = fieldOf(field, 'interval')
  const micros = BigInt(iv.micros)
  switch (f) {
    case 'second':
    case 'millisecond': {
      // the seconds of the time part, with its fraction
      const minute = BigInt(USECS_PER_MINUTE)
      return numericOf(micros % minute, f === 'second' ? 6 : 3)
    }
    case 'epoch': {
      // PG counts a year as 365.25 days and a month as 30 (in quarter days, to stay integral)
      const years = Math.trunc(iv.months / 12)
      const quarterDays = 1461 * years + 120 * (iv.months - years * 12) + 4 * iv.days
      return numericOf(BigInt(quarterDays) * 21600n * 1000000n + micros, 6)
    }
    default:
      return extractIntervalRaw(field, iv) + 0
  }
}
function extractIntervalRaw(field: string, iv: Interval): number {
  const f = fieldOf(field, 'interval')
  const p = intervalParts(iv)
  switch (f) {
    case 'microsecond':
      return p.sec * USECS_PER_SEC + p.usec
    case 'millisecond':
      return p.sec * 1000 + p.usec / 1000
    case 'second':
      return p.sec + p.usec / USECS_PER_SEC
    case 'minute':
      return p.min
    case 'hour':
      return p.hour
    case 'day':
      return p.day
    case 'month':
      return p.mon
    case 'quarter':
      return Math.trunc(p.mon / 3) + 1
    case 'year':
      return p.year
    case 'decade':
      return Math.trunc(p.year / 10)
    case 'century':
      return Math.trunc(p.year / 100)
    case 'millennium':
      return Math.trunc(p.year / 1000)
    case 'epoch':
      return iv.micros / USECS_PER_SEC + p.year * 365.25 * 86400 + p.mon * 30 * 86400 + iv.days * 86400
    default:
      throw notSupported(field, 'interval')
  }
}

function toTimestamp(x: number): number {
  if (Number.isNaN(x)) throw sqlError('22008', 'timestamp cannot be NaN')
  if (!Number.isFinite(x)) return x
  const r = rint(x * USECS_PER_SEC)
  try {
    return checkTimestamp(r)
  } catch {
    throw sqlError('22008', `timestamp out of range: "${x}"`)
  }
}

export function dateBin(stride: Interval, source: number, origin: number): number {
  // PG: an infinite source is its own bin (before the stride is checked)
  if (!Number.isFinite(source)) return source
  if (!Number.isFinite(origin)) throw sqlError('22008', 'origin out of range')
  if (stride.months !== 0) throw sqlError('0A000', 'timestamps cannot be binned into intervals containing months or years')
  const s = stride.days * USECS_PER_DAY + stride.micros
  if (s <= 0) throw sqlError('22008', 'stride must be greater than zero') // PG's code for it
  const diff = source - origin
  let delta = diff - (diff % s)
  if (diff < 0 && diff % s !== 0) delta -= s
  return checkTimestamp(origin + delta)
}

function makeDate(y: number, m: number, d: number): number {
  const bad = () => sqlError('22008', `date field value out of range: ${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`)
  if (y === 0) throw bad()
  const ay = y < 0 ? y + 1 : y
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(ay, m)) throw bad()
  return checkDate(daysFromCivil(ay, m, d))
}

export function makeTimestamp(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const days = makeDate(y, mo, d)
  if (h < 0 || h > 24 || mi < 0 || mi > 59 || s < 0 || s > 60 || (h === 24 && (mi > 0 || s > 0)) || Number.isNaN(s)) {
    throw sqlError('22008', `time field value out of range: ${h}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}`)
  }
  return checkTimestamp(days * USECS_PER_DAY + h * USECS_PER_HOUR + mi * USECS_PER_MINUTE + rint(s * USECS_PER_SEC))
}

function makeInterval(years = 0, months = 0, weeks = 0, days = 0, hours = 0, mins = 0, secs = 0): Interval {
  if (!Number.isFinite(secs)) throw sqlError('22008', 'interval out of range')
  return checkInterval(years * 12 + months, weeks * 7 + days, hours * USECS_PER_HOUR + mins * USECS_PER_MINUTE + rint(secs * USECS_PER_SEC))
}

/** PG timestamp age(): symbolic years/months/days difference. */
export function age(a: number, b: number): Interval {
  if (!Number.isFinite(a) || !Number.isFinite(b)) throw sqlError('22008', 'interval out of range')
  const t1 = tmOf(a)
  const t2 = tmOf(b)
  const neg = a < b
  const s = neg ? -1 : 1
  let usec = s * (t1.tod - t2.tod)
  let day = s * (t1.d - t2.d)
  let mon = s * (t1.m - t2.m)
  let year = s * (t1.y - t2.y)
  // usec carries hours/minutes/seconds at once
  while (usec < 0) {
    usec += USECS_PER_DAY
    day--
  }
  while (day < 0) {
    const ref = neg ? t1 : t2
    day += daysInMonth(ref.y, ref.m)
    mon--
  }
  while (mon < 0) {
    mon += 12
    year--
  }
  return checkInterval(s * (year * 12 + mon), s * day, s * usec)
}

/** Date, timestamp and interval arithmetic, extraction, truncation and construction. */
export const DATETIME_FUNCTIONS: Readonly<Record<string, Fn>> = {
  date_add_int: dateAddInt,
  int_add_date: (n: number, d: number) => dateAddInt(d, n),
  date_sub_int: (d: number, n: number) => dateAddInt(d, -n),
  date_sub_date: dateSubDate,
  date_add_interval: (d: number, iv: Interval) => tsAddInterval(dateToTs(d), iv),
  interval_add_date: (iv: Interval, d: number) => tsAddInterval(dateToTs(d), iv),
  date_sub_interval: (d: number, iv: Interval) => tsSubInterval(dateToTs(d), iv),
  ts_add_interval: tsAddInterval,
  interval_add_ts: (iv: Interval, ts: number) => tsAddInterval(ts, iv),
  ts_sub_interval: tsSubInterval,
  ts_sub_ts: tsSubTs,
  interval_add: (a: Interval, b: Interval) => checkInterval(a.months + b.months, a.days + b.days, a.micros + b.micros),
  interval_sub: (a: Interval, b: Interval) => checkInterval(a.months - b.months, a.days - b.days, a.micros - b.micros),
  interval_neg: (a: Interval) => checkInterval(-a.months, -a.days, -a.micros),
  interval_mul: intervalMul,
  float8_mul_interval: (f: number, iv: Interval) => intervalMul(iv, f),
  interval_div: intervalDiv,

  now: () => clock.nowMicros(),
  clock_timestamp: () => clock.nowMicros(),
  date_trunc_ts: dateTrunc,
  date_trunc_interval: dateTruncInterval,
  date_part_ts: (f: string, ts: number) => extractTs(f, ts, false, true),
  date_part_interval: extractInterval,
  extract_ts: (f: string, ts: number) => extractTsNumeric(f, ts, false),
  extract_date: (f: string, d: number) => extractTsNumeric(f, Number.isFinite(d) ? d * USECS_PER_DAY : d, true),
  extract_interval: extractIntervalNumeric,
  to_timestamp: toTimestamp,
  date_bin: dateBin,
  make_date: makeDate,
  make_timestamp: makeTimestamp,
  make_interval: makeInterval,
  justify_days: justifyDays,
  justify_hours: justifyHours,
  justify_interval: justifyInterval,
  age,
  age_now: (ts: number) => age(Math.floor(clock.nowMicros() / USECS_PER_DAY) * USECS_PER_DAY, ts),
  ts_to_date: (ts: number) => (Number.isFinite(ts) ? Math.floor(ts / USECS_PER_DAY) : ts),
  isfinite_ts: (x: number) => Number.isFinite(x),
  isfinite_date: (x: number) => Number.isFinite(x),
  isfinite_interval: () => true,
}
