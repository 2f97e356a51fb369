// time without time zone: microseconds since midnight, 0 … 24:00:00 (PostgreSQL allows
// '24:00:00'). Its text forms, and the arithmetic that wraps around midnight.

import { invalidSyntax, fieldOutOfRange } from './sql-errors.js'
import { clock, formatFraction, fractionMicros, pad, parseDateTime, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC } from './datetime.js'
import type { Interval } from './interval.js'
import { toLocal, type TimeZone } from './time-zone.js'

const TYPE_NAME = 'time without time zone'

const TIME_RE = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?\s*(am|pm)?\s*(?:z|utc|gmt|[+-]\d{1,2}(?::?\d{2}){0,2}|[a-z][a-z0-9_/+-]*)?$/

/** PostgreSQL's time input: 'HH:MM[:SS[.ffffff]]' (with AM/PM; a zone after it is ignored),
 *  a timestamp text (its time of day), 'allballs', 'now' (the time of day in `zone`). */
export function parseTime(text: string, zone: TimeZone): number {
  const s = text.trim().toLowerCase()
  if (s === 'allballs') return 0
  if (s === 'now') return timeOfTimestamp(toLocal(clock.nowMicros(), zone))
  const m = TIME_RE.exec(s)
  if (m === null) {
    // a date and a time: the time of day
    if (/^\d{1,7}[-/]|^[a-z]+\s|^\d{8}\s/.test(s)) return parseDateTime(text, TYPE_NAME).micros
    throw invalidSyntax(TYPE_NAME, text)
  }
  let h = +m[1]!
  const mi = +m[2]!
  const sec = m[3] === undefined ? 0 : +m[3]
  const fm = fractionMicros(m[4] ?? '')
  if (m[5] !== undefined) {
    if (h < 1 || h > 12) throw fieldOutOfRange(text)
    h = (h % 12) + (m[5] === 'pm' ? 12 : 0)
  }
  if (mi > 59 || sec > 60 || h > 24 || (h === 24 && (mi > 0 || sec > 0 || fm > 0))) throw fieldOutOfRange(text)
  const v = h * USECS_PER_HOUR + mi * USECS_PER_MINUTE + sec * USECS_PER_SEC + fm
  if (v > USECS_PER_DAY) throw fieldOutOfRange(text)
  return v
}

/** 'HH:MM:SS[.ffffff]', trailing fraction zeros dropped. */
export function formatTime(micros: number): string {
  let rem = micros
  const h = Math.floor(rem / USECS_PER_HOUR)
  rem -= h * USECS_PER_HOUR
  const mi = Math.floor(rem / USECS_PER_MINUTE)
  rem -= mi * USECS_PER_MINUTE
  const s = Math.floor(rem / USECS_PER_SEC)
  rem -= s * USECS_PER_SEC
  return `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${formatFraction(rem)}`
}

/** The time of day of a wall-clock timestamp. */
export function timeOfTimestamp(micros: number): number {
  return micros - Math.floor(micros / USECS_PER_DAY) * USECS_PER_DAY
}

/** time ± interval: the interval's time part (months and days are ignored, as PostgreSQL
 *  does), wrapped into one day. */
export function timeAddInterval(t: number, i: Interval, sign: 1 | -1): number {
  const r = (t + sign * i.micros) % USECS_PER_DAY
  return r < 0 ? r + USECS_PER_DAY : r
}
