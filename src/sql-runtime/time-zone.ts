// Time zones: PostgreSQL's TimeZone setting (a tz database name, a fixed offset), the rules of a
// zone (its UTC offset at an instant, from Node's ICU through Intl), the conversion of a local
// wall-clock time to an instant (PostgreSQL's choice in a DST gap or overlap), and the session
// zone that timestamptz input and output read.
//
// The session zone: statements of a session run with its zone as `currentTimeZone()` (the
// engine sets it, src/engine/statements.ts); a compiled expression captures the zone it was
// compiled in (src/sql-runtime/compile-scalar.ts), so a view — compiled in UTC — never reads a
// session's zone.
//
// Decisions (deviations from PostgreSQL noted):
// - Zone rules are ICU's (Node's full ICU), PostgreSQL's are its own copy of the tz database:
//   they agree except for history ICU lacks. Instants beyond JS Date's range (±275760 years)
//   take the offset at the end of that range.
// - Zone abbreviations in input (EST, CEST, …): a fixed table of the common ones (PostgreSQL's
//   'Default' set has more).

import { sqlError } from './sql-errors.js'
import { USECS_PER_HOUR, USECS_PER_SEC } from './datetime.js'

/** A TimeZone: its name as SHOW TIME ZONE prints it, and either a tz database zone or a fixed
 *  offset (seconds east of Greenwich). */
export interface TimeZone {
  readonly name: string
  readonly iana?: string
  readonly fixedOffset?: number
}

export const UTC: TimeZone = { name: 'UTC', fixedOffset: 0 }

let current: TimeZone = UTC

/** The zone of the statement running now (the session's TimeZone). */
export function currentTimeZone(): TimeZone {
  return current
}

/** Makes `zone` the current zone from now on (SET TIME ZONE inside a statement list). */
export function setCurrentTimeZone(zone: TimeZone): void {
  current = zone
}

/** Runs `f` with `zone` as the current zone. */
export function withTimeZone<T>(zone: TimeZone, f: () => T): T {
  const saved = current
  current = zone
  try {
    return f()
  } finally {
    current = saved
  }
}

// ---------------------------------------------------------------------------------- zone rules

const formatters = new Map<string, Intl.DateTimeFormat>()
/** Offsets (seconds) of whole UTC hours in which a zone's offset does not change, by zone. */
const hourOffsets = new Map<string, Map<number, number>>()

function formatter(iana: string): Intl.DateTimeFormat {
  let f = formatters.get(iana)
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: iana, hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    formatters.set(iana, f)
  }
  return f
}

const MAX_MS = 8.64e15

/** The offset (seconds east) of a tz database zone at an instant (epoch milliseconds, whole
 *  seconds). */
function ianaOffsetAt(iana: string, ms: number): number {
  ms = Math.min(MAX_MS, Math.max(-MAX_MS, Math.floor(ms / 1000) * 1000))
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {}
  for (const p of formatter(iana).formatToParts(ms)) part[p.type] = p.value
  const year = Number(part.year)
  const local = new Date(0)
  local.setUTCFullYear(part.era === 'BC' || part.era === 'B' ? 1 - year : year, Number(part.month) - 1, Number(part.day))
  local.setUTCHours(Number(part.hour), Number(part.minute), Number(part.second), 0)
  return Math.round((local.getTime() - ms) / 1000)
}

/** The UTC offset (seconds east of Greenwich) of `zone` at the instant `micros`. */
export function offsetAt(zone: TimeZone, micros: number): number {
  if (zone.fixedOffset !== undefined) return zone.fixedOffset
  const iana = zone.iana!
  if (!Number.isFinite(micros)) return 0
  const hour = Math.floor(micros / USECS_PER_HOUR)
  let cache = hourOffsets.get(iana)
  if (cache === undefined) hourOffsets.set(iana, (cache = new Map()))
  const known = cache.get(hour)
  if (known !== undefined) return known
  const ms = Math.floor(micros / 1000)
  const at = ianaOffsetAt(iana, ms)
  // an hour with one offset throughout is remembered (most are; transitions are rare)
  const start = ianaOffsetAt(iana, hour * 3_600_000)
  const end = ianaOffsetAt(iana, hour * 3_600_000 + 3_599_000)
  if (start === end) {
    if (cache.size > 100_000) cache.clear()
    cache.set(hour, start)
  }
  return at
}

/** The wall-clock time (microseconds since the epoch, as if at UTC) of an instant in `zone`. */
export function toLocal(micros: number, zone: TimeZone): number {
  if (!Number.isFinite(micros)) return micros
  return micros + offsetAt(zone, micros) * USECS_PER_SEC
}

/** The instant of a wall-clock time in `zone`, as PostgreSQL's DetermineTimeZoneOffset: a time
 *  that does not exist (skipped by a spring-forward) takes the offset before the transition,
 *  a time that exists twice (a fall-back) the offset after it. */
export function fromLocal(local: number, zone: TimeZone): number {
  if (!Number.isFinite(local)) return local
  if (zone.fixedOffset !== undefined) return local - zone.fixedOffset * USECS_PER_SEC
  const window = 30 * USECS_PER_HOUR
  const before = offsetAt(zone, local - window)
  const after = offsetAt(zone, local + window)
  const asBefore = local - before * USECS_PER_SEC
  if (before === after) {
    // no transition near: one offset, unless the zone changed within the window after all
    const o = offsetAt(zone, asBefore)
    return o === before ? asBefore : local - o * USECS_PER_SEC
  }
  const asAfter = local - after * USECS_PER_SEC
  const validBefore = offsetAt(zone, asBefore) === before
  const validAfter = offsetAt(zone, asAfter) === after
  if (validBefore && !validAfter) return asBefore
  if (validAfter) return asAfter
  return asBefore
}

// ---------------------------------------------------------------------------------- names

/** Zones that are UTC at every instant. */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Etc/UCT', 'UCT', 'Etc/Universal', 'Universal', 'Etc/Zulu', 'Zulu', 'Etc/GMT0', 'GMT0', 'Etc/GMT+0', 'Etc/GMT-0', 'Etc/Greenwich', 'Greenwich'])

/** True when `zone` is UTC at every instant. */
export function isUtc(zone: TimeZone): boolean {
  return zone.fixedOffset === 0
}

let names: Map<string, string> | undefined

/** ICU's zone names by their lower-case spelling. */
function zoneNames(): Map<string, string> {
  return (names ??= new Map(Intl.supportedValuesOf('timeZone').map((n) => [n.toLowerCase(), n])))
}

/** The tz database zone named `name` (any letter case), or undefined. */
function ianaZone(name: string): TimeZone | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+/-]*$/.test(name)) return undefined
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
    // the name as written, in the database's letter case when we know it
    const lower = name.toLowerCase()
    // (ICU lists some zones by older names: 'Asia/Kolkata' is 'Asia/Calcutta' there)
    const shown = zoneNames().get(lower) ?? (resolved.toLowerCase() === lower ? resolved : name.includes('/') ? name.replace(/(^|[/_])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase()) : name)
    if (UTC_NAMES.has(resolved)) return { name: shown, fixedOffset: 0 }
    return { name: shown, iana: resolved }
  } catch {
    return undefined
  }
}

/** Common zone abbreviations in timestamp input, with their offsets (hours east). */
const ABBREVIATIONS: Readonly<Record<string, number>> = {
  utc: 0, gmt: 0, z: 0, ut: 0, zulu: 0,
  est: -5, edt: -4, cst: -6, cdt: -5, mst: -7, mdt: -6, pst: -8, pdt: -7, akst: -9, akdt: -8, hst: -10,
  ast: -4, adt: -3, nst: -3.5, ndt: -2.5,
  wet: 0, west: 1, bst: 1, cet: 1, cest: 2, met: 1, mest: 2, eet: 2, eest: 3, msk: 3,
  ist: 2, jst: 9, kst: 9, hkt: 8, awst: 8, acst: 9.5, acdt: 10.5, aest: 10, aedt: 11, nzst: 12, nzdt: 13,
}

/** A zone named in timestamptz input (after the time): an abbreviation, a tz database name,
 *  or undefined when there is none by that name. */
export function zoneInInput(name: string): TimeZone | undefined {
  const abbr = ABBREVIATIONS[name.toLowerCase()]
  if (abbr !== undefined) return { name, fixedOffset: abbr * 3600 }
  return ianaZone(name)
}

/** `±HH[:MM[:SS]]` / `±HHMM` offset text (as in timestamptz input) in seconds east, or
 *  undefined. */
export function parseOffset(text: string): number | undefined {
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(text)
  if (m === null) return undefined
  const h = +m[2]!
  const mi = m[3] === undefined ? 0 : +m[3]
  const s = m[4] === undefined ? 0 : +m[4]
  if (h > 15 || mi > 59 || s > 59) return undefined
  return (m[1] === '-' ? -1 : 1) * (h * 3600 + mi * 60 + s)
}

/** `+01`, `+05:30`, `+00:09:21` (PostgreSQL's output of an offset, seconds east). */
export function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+'
  let s = Math.abs(seconds)
  const h = Math.floor(s / 3600)
  s -= h * 3600
  const m = Math.floor(s / 60)
  s -= m * 60
  const two = (n: number) => (n < 10 ? '0' + n : String(n))
  return sign + two(h) + (m > 0 || s > 0 ? ':' + two(m) : '') + (s > 0 ? ':' + two(s) : '')
}

function invalidSetting(value: string): never {
  throw sqlError('22023', `invalid value for parameter "TimeZone": "${value}"`)
}

/** A fixed zone of `hours` east of Greenwich, named as PostgreSQL shows a numeric SET TIME
 *  ZONE: `<+02>-02`, `<+05:30>-05:30` (POSIX's sign is the opposite). */
function fixedZone(seconds: number): TimeZone {
  const east = formatOffset(seconds)
  const west = formatOffset(-seconds)
  return { name: `<${east}>${west}`, fixedOffset: seconds }
}

/** The zone a `SET TIME ZONE` / `SET timezone` value names (undefined: DEFAULT / LOCAL, which
 *  are UTC here): a tz database name ('Europe/Paris', 'UTC'), a number of hours east (`2`,
 *  `5.5`), `INTERVAL '+02:00'` (east), or a POSIX offset ('+02:00' or 'UTC+3' is west of
 *  Greenwich, as PostgreSQL reads it). */
export function parseTimeZoneSetting(value: string | undefined): TimeZone {
  if (value === undefined || value.toLowerCase() === 'local' || value.toLowerCase() === 'default') return UTC
  const v = value.trim()
  const interval = /^INTERVAL '(.*)'$/i.exec(v)
  if (interval !== null) {
    const o = parseOffset(/^[+-]/.test(interval[1]!) ? interval[1]! : '+' + interval[1]!)
    if (o === undefined) invalidSetting(value)
    return fixedZone(o)
  }
  if (/^\d+(\.\d+)?$/.test(v) || /^-\d+(\.\d+)?$/.test(v)) {
    const hours = Number(v)
    if (Math.abs(hours) > 15) invalidSetting(value)
    return fixedZone(Math.round(hours * 3600))
  }
  const posix = /^(?:[A-Za-z]{3,})?([+-]?\d{1,2}(?::\d{2}){0,2})$/.exec(v)
  if (posix !== null) {
    const text = /^[+-]/.test(posix[1]!) ? posix[1]! : '+' + posix[1]!
    const west = parseOffset(text)
    if (west === undefined) invalidSetting(value)
    return { name: v, fixedOffset: west === 0 ? 0 : -west }
  }
  const zone = ianaZone(v)
  if (zone === undefined) invalidSetting(value)
  return zone
}
