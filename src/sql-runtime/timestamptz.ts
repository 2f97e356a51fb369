// timestamp with time zone: an instant (microseconds since 1970-01-01 00:00:00 UTC), read and
// shown in a time zone (the session's TimeZone unless the text names one). Its text forms, its
// casts to and from timestamp, date and time, and the calendar arithmetic PostgreSQL does in
// local time (adding months or days keeps the wall-clock time across a DST change). The zone
// rules are time-zone.ts'.

import { sqlError } from './sql-errors.js'
import { checkTimestamp, clock, formatTimestamp, parseDateTime, USECS_PER_DAY, USECS_PER_SEC } from './datetime.js'
import { formatOffset, fromLocal, offsetAt, parseOffset, toLocal, zoneInInput, type TimeZone } from './time-zone.js'

const TYPE_NAME = 'timestamp with time zone'

/** The zone a timestamptz text names after its time (an offset or a name). */
function namedZone(zone: string): TimeZone {
  const offset = parseOffset(zone)
  if (offset !== undefined) return { name: zone, fixedOffset: offset }
  const z = zoneInInput(zone)
  if (z === undefined) throw sqlError('22023', `time zone "${zone}" not recognized`)
  return z
}

/** PostgreSQL's timestamptz input: a timestamp text, in the zone it names or else in `zone`;
 *  'infinity', 'epoch', 'now', 'today' (midnight in `zone`), 'tomorrow', 'yesterday'. */
export function parseTimestamptz(text: string, zone: TimeZone): number {
  const s = text.trim().toLowerCase()
  switch (s) {
    case 'infinity':
    case '+infinity':
      return Infinity
    case '-infinity':
      return -Infinity
    case 'epoch':
      return 0
    case 'now':
      return clock.nowMicros()
    case 'today':
    case 'tomorrow':
    case 'yesterday': {
      const today = Math.floor(toLocal(clock.nowMicros(), zone) / USECS_PER_DAY)
      return fromLocal((today + (s === 'today' ? 0 : s === 'tomorrow' ? 1 : -1)) * USECS_PER_DAY, zone)
    }
  }
  const p = parseDateTime(text, TYPE_NAME)
  const local = checkTimestamp(p.days * USECS_PER_DAY + p.micros)
  return checkTimestamp(fromLocal(local, p.zone === undefined ? zone : namedZone(p.zone)))
}

/** True when a timestamptz text names its own zone ('2024-01-01 10:00+02', '… Europe/Paris',
 *  'epoch', 'infinity'): then it means one instant in every session. */
export function textNamesZone(text: string): boolean {
  const s = text.trim().toLowerCase()
  if (s === 'epoch' || s === 'infinity' || s === '+infinity' || s === '-infinity') return true
  try {
    return parseDateTime(text, TYPE_NAME).zone !== undefined
  } catch {
    return false
  }
}

/** PostgreSQL's output of a timestamptz in `zone`: `2024-01-01 10:00:00+01`,
 *  `… 10:00:00.5+05:30`. */
export function formatTimestamptz(micros: number, zone: TimeZone): string {
  if (!Number.isFinite(micros)) return micros > 0 ? 'infinity' : '-infinity'
  const offset = offsetAt(zone, micros)
  const local = formatTimestamp(micros + offset * USECS_PER_SEC)
  return local.endsWith(' BC') ? `${local.slice(0, -3)}${formatOffset(offset)} BC` : local + formatOffset(offset)
}

/** timestamp → timestamptz: the wall-clock time read in `zone`. */
export function timestampToTimestamptz(local: number, zone: TimeZone): number {
  return checkTimestamp(fromLocal(local, zone))
}

/** timestamptz → timestamp: the wall-clock time in `zone`. */
export function timestamptzToTimestamp(micros: number, zone: TimeZone): number {
  return checkTimestamp(toLocal(micros, zone))
}

/** timestamptz → date: the date in `zone`. */
export function timestamptzToDate(micros: number, zone: TimeZone): number {
  if (!Number.isFinite(micros)) return micros
  return Math.floor(toLocal(micros, zone) / USECS_PER_DAY)
}

/** timestamptz → time: the time of day in `zone`. */
export function timestamptzToTime(micros: number, zone: TimeZone): number {
  const local = toLocal(micros, zone)
  return local - Math.floor(local / USECS_PER_DAY) * USECS_PER_DAY
}

/** Applies a function of local time (`date_trunc`, adding months or days) to an instant: in
 *  `zone`'s wall-clock time, then back to an instant (PostgreSQL's choice in a DST gap or
 *  overlap, see fromLocal). */
export function inLocalTime(micros: number, zone: TimeZone, f: (local: number) => number): number {
  if (!Number.isFinite(micros)) return micros
  return checkTimestamp(fromLocal(f(toLocal(micros, zone)), zone))
}
