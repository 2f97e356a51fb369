// The interval type: the Interval class (months, days, microseconds, kept apart as PostgreSQL
// keeps them), its order, its text output (IntervalStyle postgres) and its input (PostgreSQL's
// verbose and SQL forms, ISO 8601, qualifiers like `INTERVAL '1' DAY TO HOUR`). Apart from the
// other types because its input grammar alone is as large as the rest of their text forms.
//
// Decisions (deviations from Postgres noted):
// - Interval identity vs equality: `toString()` is the canonical PG text ('1 day 02:00:00') and
//   is what ivm/key.ts hashes, so a row holding '1 day' and one holding '24:00:00' are distinct
//   rows (they print differently). PG *compares* them equal (1 day = 24 h, 1 month = 30 days);
//   `compareKey()` is a string equal exactly for PG-equal intervals — use it where PG equality
//   matters for grouping/joining/DISTINCT on interval values, and compareInterval for order.
// - INTERVAL 'v' UNIT with a fractional v for a coarse unit: when the binder spells the
//   qualifier into the text ("1.5 hour"), the plain reading wins (01:30:00; PG truncates to
//   01:00:00). Real qualifiers passed to parseInterval(text, unit, toUnit) truncate as PG.

import { sqlError, invalidSyntax } from './sql-errors.js'
import { formatFraction, pad, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC } from './datetime.js'

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
  if (n === undefined) throw sqlError('42601', `invalid interval qualifier "${u}"`)
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
    throw sqlError('22008', `interval field value out of range: "${text}"`)
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
        if (b > 59 || (m[4] !== undefined && +m[4] >= 60)) throw sqlError('22008', `interval field value out of range: "${text}"`)
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
