// The functions over timestamptz, time, uuid and bytea of the function library (the ids of
// planner/expr/functions.ts). Those the planner marks `zone` get the TimeZone they run in as
// their last argument (the compiler passes it): PostgreSQL's STABLE functions, which do
// calendar arithmetic, truncation and field extraction in the session's local time.

import { Interval } from './interval.js'
import { USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC, checkTimestamp, clock } from './datetime.js'
import { addMonths, age, dateBin, dateTrunc, extractTs, extractTsNumeric, makeTimestamp, tsSubTs } from './datetime-functions.js'
import { timestampSeries } from './series-functions.js'
import { toCharMemo } from './to-char.js'
import { fromLocal, offsetAt, parseOffset, parseTimeZoneSetting, toLocal, zoneInInput, type TimeZone } from './time-zone.js'
import { inLocalTime, timestamptzToDate } from './timestamptz.js'
import { timeAddInterval } from './time-of-day.js'
import { sqlError } from './sql-errors.js'
import { randomUuid } from './uuid.js'
import { byteaConcat, byteaDigest, byteaLength, byteaMd5, byteaSubstring, decode, encode, getByte } from './bytea.js'
import { numericOf } from '../../planner/index.js'

type Fn = (...args: never[]) => unknown

/** timestamptz + interval, as PostgreSQL's timestamptz_pl_interval: months, then days, in
 *  local time (so '1 day' keeps the wall-clock time across a DST change), then the time part
 *  as elapsed time. */
function tstzAddInterval(ts: number, iv: Interval, sign: 1 | -1, zone: TimeZone): number {
  if (!Number.isFinite(ts)) return ts
  let r = ts
  if (iv.months !== 0) r = inLocalTime(r, zone, (local) => addMonths(local, sign * iv.months))
  if (iv.days !== 0) r = inLocalTime(r, zone, (local) => local + sign * iv.days * USECS_PER_DAY)
  return checkTimestamp(r + sign * iv.micros)
}

const zoneArguments = new Map<string, TimeZone>()

/** The zone of AT TIME ZONE / timezone(zone, …) and of the zone arguments of date_trunc and
 *  make_timestamptz: a name, an abbreviation, or a POSIX offset ('+02' is west of Greenwich). */
function zoneArgument(text: string): TimeZone {
  let z = zoneArguments.get(text)
  if (z !== undefined) return z
  const t = text.trim()
  if (/^[+-]?\d/.test(t)) {
    const west = parseOffset(/^[+-]/.test(t) ? t : '+' + t)
    if (west === undefined) throw sqlError('22023', `time zone "${text}" not recognized`)
    z = { name: t, fixedOffset: -west }
  } else {
    z = zoneInInput(t)
    if (z === undefined) {
      try {
        z = parseTimeZoneSetting(t)
      } catch {
        throw sqlError('22023', `time zone "${text}" not recognized`)
      }
    }
  }
  if (zoneArguments.size > 1000) zoneArguments.clear()
  zoneArguments.set(text, z)
  return z
}

/** A zone of `interval` east of Greenwich (AT TIME ZONE INTERVAL '+02:00'). */
function intervalZone(iv: Interval): TimeZone {
  if (iv.months !== 0 || iv.days !== 0) throw sqlError('22023', `interval time zone "${iv.toString()}" must not include months or days`)
  return { name: iv.toString(), fixedOffset: iv.micros / USECS_PER_SEC }
}

/** EXTRACT / date_part of a timestamptz: its fields in local time; epoch of the instant;
 *  timezone, timezone_hour and timezone_minute of the offset. */
function extractTstz(field: string, ts: number, zone: TimeZone, numeric: boolean): unknown {
  const f = field.trim().toLowerCase()
  if (f === 'epoch') return numeric ? (Number.isFinite(ts) ? numericOf(BigInt(ts), 6) : ts) : Number.isFinite(ts) ? ts / USECS_PER_SEC : ts
  if (f === 'timezone' || f === 'timezone_hour' || f === 'timezone_minute') {
    if (!Number.isFinite(ts)) return null
    const o = offsetAt(zone, ts)
    return f === 'timezone' ? o : f === 'timezone_hour' ? Math.trunc(o / 3600) : Math.trunc((o % 3600) / 60)
  }
  const local = toLocal(ts, zone)
  return numeric ? extractTsNumeric(field, local, false) : extractTs(field, local, false, true)
}

function makeTime(h: number, mi: number, s: number): number {
  if (h < 0 || h > 24 || mi < 0 || mi > 59 || s < 0 || s > 60 || (h === 24 && (mi > 0 || s > 0)) || Number.isNaN(s)) {
    throw sqlError('22008', `time field value out of range: ${h}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}`)
  }
  return h * USECS_PER_HOUR + mi * USECS_PER_MINUTE + Math.round(s * USECS_PER_SEC)
}

/** date_part / EXTRACT of a time: the time fields (others are errors, as PostgreSQL). */
function extractTime(field: string, t: number, numeric: boolean): unknown {
  const f = field.trim().toLowerCase()
  switch (f) {
    case 'hour':
    case 'hours':
    case 'minute':
    case 'minutes':
    case 'min':
    case 'second':
    case 'seconds':
    case 'sec':
    case 'millisecond':
    case 'milliseconds':
    case 'ms':
    case 'microsecond':
    case 'microseconds':
    case 'us':
      return numeric ? extractTsNumeric(field, t, false) : extractTs(field, t, false, true)
    case 'epoch':
      return numeric ? numericOf(BigInt(t), 6) : t / USECS_PER_SEC
  }
  throw sqlError(['year', 'month', 'day', 'week', 'quarter', 'decade', 'century', 'millennium', 'dow', 'doy', 'isodow', 'isoyear', 'julian'].includes(f) ? '0A000' : '22023', `unit "${field}" ${['year', 'month', 'day', 'week', 'quarter', 'decade', 'century', 'millennium', 'dow', 'doy', 'isodow', 'isoyear', 'julian'].includes(f) ? 'not supported' : 'not recognized'} for type time without time zone`)
}

export const TIMESTAMPTZ_FUNCTIONS: Readonly<Record<string, Fn>> = {
  // timestamptz
  tstz_add_interval: (ts: number, iv: Interval, zone: TimeZone) => tstzAddInterval(ts, iv, 1, zone),
  interval_add_tstz: (iv: Interval, ts: number, zone: TimeZone) => tstzAddInterval(ts, iv, 1, zone),
  tstz_sub_interval: (ts: number, iv: Interval, zone: TimeZone) => tstzAddInterval(ts, iv, -1, zone),
  tstz_sub_tstz: tsSubTs,
  date_trunc_tstz: (unit: string, ts: number, zone: TimeZone) => inLocalTime(ts, zone, (local) => dateTrunc(unit, local)),
  date_trunc_tstz_at: (unit: string, ts: number, zone: string) => inLocalTime(ts, zoneArgument(zone), (local) => dateTrunc(unit, local)),
  date_part_tstz: (field: string, ts: number, zone: TimeZone) => extractTstz(field, ts, zone, false),
  extract_tstz: (field: string, ts: number, zone: TimeZone) => extractTstz(field, ts, zone, true),
  timezone_tstz: (zone: string, ts: number) => checkTimestamp(toLocal(ts, zoneArgument(zone))),
  timezone_ts: (zone: string, ts: number) => checkTimestamp(fromLocal(ts, zoneArgument(zone))),
  timezone_interval_tstz: (iv: Interval, ts: number) => checkTimestamp(toLocal(ts, intervalZone(iv))),
  timezone_interval_ts: (iv: Interval, ts: number) => checkTimestamp(fromLocal(ts, intervalZone(iv))),
  age_tstz: (a: number, b: number, zone: TimeZone) => age(toLocal(a, zone), toLocal(b, zone)),
  tstz_to_date: timestamptzToDate,
  isfinite_tstz: (x: number) => Number.isFinite(x),
  to_char_tstz: (ts: number, fmt: string, zone: TimeZone) => toCharMemo(toLocal(ts, zone), fmt),
  date_bin_tstz: dateBin,
  make_timestamptz: (y: number, mo: number, d: number, h: number, mi: number, s: number, zone: TimeZone) => checkTimestamp(fromLocal(makeTimestamp(y, mo, d, h, mi, s), zone)),
  make_timestamptz_at: (y: number, mo: number, d: number, h: number, mi: number, s: number, zone: string) => checkTimestamp(fromLocal(makeTimestamp(y, mo, d, h, mi, s), zoneArgument(zone))),
  localtimestamp: (zone: TimeZone) => toLocal(clock.nowMicros(), zone),
  localtime: (zone: TimeZone) => {
    const local = toLocal(clock.nowMicros(), zone)
    return local - Math.floor(local / USECS_PER_DAY) * USECS_PER_DAY
  },
  current_date: (zone: TimeZone) => Math.floor(toLocal(clock.nowMicros(), zone) / USECS_PER_DAY),
  generate_series_tstz: (a: number, b: number, step: Interval, zone: TimeZone) => timestampSeries(a, b, step, (ts, iv) => tstzAddInterval(ts, iv, 1, zone)),

  // time
  time_add_interval: (t: number, iv: Interval) => timeAddInterval(t, iv, 1),
  interval_add_time: (iv: Interval, t: number) => timeAddInterval(t, iv, 1),
  time_sub_interval: (t: number, iv: Interval) => timeAddInterval(t, iv, -1),
  time_sub_time: (a: number, b: number) => new Interval(0, 0, a - b + 0),
  date_add_time: (d: number, t: number) => checkTimestamp(d * USECS_PER_DAY + t),
  time_add_date: (t: number, d: number) => checkTimestamp(d * USECS_PER_DAY + t),
  date_part_time: (field: string, t: number) => extractTime(field, t, false),
  extract_time: (field: string, t: number) => extractTime(field, t, true),
  make_time: makeTime,

  // uuid
  gen_random_uuid: randomUuid,

  // bytea
  bytea_concat: byteaConcat,
  bytea_length: byteaLength,
  bytea_substring2: (v: string, start: number) => byteaSubstring(v, start),
  bytea_substring3: byteaSubstring,
  encode,
  decode,
  md5_bytea: byteaMd5,
  sha224: (v: string) => byteaDigest(v, 'sha224'),
  sha256: (v: string) => byteaDigest(v, 'sha256'),
  sha384: (v: string) => byteaDigest(v, 'sha384'),
  sha512: (v: string) => byteaDigest(v, 'sha512'),
  get_byte: getByte,
}
