// Text forms, casts and API values: parseText / toText / formatOutput (the input and output
// function of every type, dispatching to datetime.ts, interval.ts, number-text.ts and
// array-text.ts), castValue (PostgreSQL's casts between the types: rounding, range
// checks, text round trips), the type modifiers VARCHAR(n)/CHAR(n)/NUMERIC(p,s)
// (applyTypeModifier), and the conversion of values to and from the API (toResultValue /
// fromInputValue). The orders of the types are value-order.ts. Representation per type: see
// planner/types.ts.
//
// Decisions (deviations from Postgres noted):
// - float → numeric keeps 15 (double) / 6 (real) significant digits, as PG's
//   float8_numeric/float4_numeric do. The API returns numeric values as their PG text
//   ('2.50'), as node-postgres does, so no digit is lost to a double.
// - bigint: the API returns a JS number within ±(2^53 − 1) and a JS bigint beyond.
// - API input (fromInputValue): JS numbers for date/timestamp/timestamptz columns are epoch
//   MILLISECONDS (JS Date convention; a date takes the UTC day, a timestamp the UTC wall
//   clock); numbers for interval columns are milliseconds; Date objects are accepted for
//   date/timestamp/timestamptz; a Uint8Array (a Buffer) for bytea.

import { RivuletError } from '../../grammar/errors.js'
import { INTEGER_BOUNDS, elementType, isArrayType, typeDisplayName } from '../../planner/types.js'
import type { ArrayType, SqlType, TypeModifier } from '../../planner/types.js'
import { ArrayValue } from '../../planner/array-value.js'
import { formatArray, parseArray } from './array-text.js'
import { Numeric, applyNumericTypmod, numericFromDouble, numericFromInteger, numericText, numericToDouble, numericToInteger, parseNumericText, type NumericValue } from '../../planner/numeric.js'
import { fitsInt8, int8Of, int8OutOfRange, type Int8 } from './int8.js'
import type { ResultValue } from '../types.js'
import { outOfRange, sqlError } from './sql-errors.js'
import { checkDate, checkTimestamp, formatDate, formatTimestamp, parseDate, parseTimestamp, USECS_PER_DAY } from './datetime.js'
import { Interval, parseInterval } from './interval.js'
import { formatFloat4, formatFloat8, parseBoolean, parseFloat4, parseFloat8, parseInteger, parseNumeric, rint } from './number-text.js'
import { trimPadding } from './value-order.js'
import { currentTimeZone, type TimeZone } from './time-zone.js'
import { formatTimestamptz, parseTimestamptz, timestampToTimestamptz, timestamptzToDate, timestamptzToTime, timestamptzToTimestamp } from './timestamptz.js'
import { formatTime, parseTime, timeOfTimestamp } from './time-of-day.js'
import { parseUuid } from './uuid.js'
import { byteaOf, parseBytea } from './bytea.js'
import { JsonbValue } from './jsonb-value.js'
import { parseJsonb } from './jsonb-parse.js'
import { jsonbCastSource, jsonbOfJs } from './jsonb-functions.js'

// Re-exported for the engine's modules, which import them from here.
export { clock } from './datetime.js'
export { Interval } from './interval.js'
export { compareFn } from './value-order.js'

// ---------------------------------------------------------------------------------- text output

/** PG output function text of a non-null value (booleans 't'/'f', as psql shows them). */
export function formatOutput(v: unknown, t: SqlType, zone: TimeZone = currentTimeZone()): string {
  if (t === 'boolean') return v ? 't' : 'f'
  return toText(v, t, zone)
}

/** An array's text: its elements by their output function (booleans t/f, as array_out). */
function arrayText(v: ArrayValue, t: ArrayType): string {
  const e = elementType(t)
  return formatArray(v, (x) => formatOutput(x, e))
}

/** Text of a non-null value as `CAST(v AS text)` gives it (booleans 'true'/'false'); a
 *  timestamptz in `zone`. */
export function toText(v: unknown, t: SqlType, zone: TimeZone = currentTimeZone()): string {
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
    case 'timestamptz':
      return formatTimestamptz(v as number, zone)
    case 'time':
      return formatTime(v as number)
    case 'interval':
    case 'jsonb':
      return (v as Interval | JsonbValue).toString()
    case 'uuid':
    case 'bytea':
      return v as string
  }
}

/** Parses text input for a type (the PG input function); a timestamptz without a zone of its
 *  own is read in `zone`. */
export function parseText(s: string, to: SqlType, zone: TimeZone = currentTimeZone()): unknown {
  if (isArrayType(to)) {
    const e = elementType(to)
    return parseArray(s, (x) => parseText(x, e, zone))
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
    case 'timestamptz':
      return parseTimestamptz(s, zone)
    case 'time':
      return parseTime(s, zone)
    case 'interval':
      return parseInterval(s)
    case 'uuid':
      return parseUuid(s)
    case 'bytea':
      return parseBytea(s)
    case 'jsonb':
      return parseJsonb(s)
  }
}

/** Text values never hold a NUL character (PostgreSQL's text cannot store one). */
export function checkText(s: string): string {
  if (s.indexOf('\u0000') >= 0) throw sqlError('22021', 'invalid byte sequence for encoding "UTF8": 0x00')
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
    if (n !== n) throw sqlError('0A000', `cannot convert NaN to ${to}`)
    if (n === Infinity || n === -Infinity) throw sqlError('0A000', `cannot convert infinity to ${to}`)
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
    if (from === 'numeric') throw sqlError('22003', `"${formatFloat8(x)}" is out of range for type real`)
    throw sqlError('22003', 'value out of range: overflow')
  }
  if (r === 0 && x !== 0) {
    if (from === 'numeric') throw sqlError('22003', `"${formatFloat8(x)}" is out of range for type real`)
    throw sqlError('22003', 'value out of range: underflow')
  }
  return r
}

/** A value of a numeric type as a double. */
function toDouble(v: unknown, from: SqlType): number {
  if (from === 'numeric') {
    const x = numericToDouble(v as NumericValue)
    // a finite decimal too large for a double
    if (!Number.isFinite(x) && v instanceof Numeric) throw sqlError('22003', `"${numericText(v)}" is out of range for type double precision`)
    return x
  }
  return typeof v === 'bigint' ? Number(v) : (v as number) + 0
}

function cannotCast(from: SqlType, to: SqlType): RivuletError {
  return sqlError('42846', `cannot cast type ${typeDisplayName(from)} to ${typeDisplayName(to)}`)
}

/** Casts a non-null run-time value between types with PG semantics (rounding, range checks,
 *  text parsing/formatting). `from` 'unknown' means v is the text of an untyped literal. The
 *  casts that involve timestamptz and a local time (text, timestamp, date, time) are in `zone`. */
export function castValue(v: unknown, from: SqlType, to: SqlType, zone: TimeZone = currentTimeZone()): unknown {
  if (from === to) return v
  // CHAR(n) → text drops the padding (trailing spaces never count in a CHAR)
  if (from === 'bpchar' && (to === 'text' || to === 'unknown')) return trimPadding(v as string)
  if (from === 'text' || from === 'unknown' || from === 'bpchar') return parseText(v as string, to, zone)
  if (to === 'text' || to === 'unknown') return toText(v, from, zone)
  // jsonb → a number or boolean it holds (PostgreSQL's jsonb_int4 and the like)
  if (from === 'jsonb' && (isNum(to) || to === 'boolean')) {
    const src = jsonbCastSource(v as JsonbValue, to, typeDisplayName(to))
    return castValue(src.value, src.type, to, zone)
  }
  if (isArrayType(to) && isArrayType(from)) {
    // element by element (int[] → bigint[], text[] → integer[], …)
    const a = elementType(from)
    const b = elementType(to)
    return new ArrayValue((v as ArrayValue).items.map((x) => (x === null ? null : castValue(x, a, b, zone))))
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
      if (from === 'timestamptz') return timestamptzToTimestamp(v as number, zone)
      break
    case 'timestamptz':
      if (from === 'date') return timestampToTimestamptz(checkTimestamp((v as number) * USECS_PER_DAY), zone)
      if (from === 'timestamp') return timestampToTimestamptz(v as number, zone)
      break
    case 'date':
      if (from === 'timestamp') return Math.floor((v as number) / USECS_PER_DAY)
      if (from === 'timestamptz') return timestamptzToDate(v as number, zone)
      break
    case 'time':
      if (from === 'timestamp') {
        if (!Number.isFinite(v as number)) break
        return timeOfTimestamp(v as number)
      }
      if (from === 'timestamptz') {
        if (!Number.isFinite(v as number)) break
        return timestamptzToTime(v as number, zone)
      }
      if (from === 'interval') return intervalToTime(v as Interval)
      break
    case 'interval':
      if (from === 'time') return new Interval(0, 0, v as number)
      break
    default:
      break
  }
  throw cannotCast(from, to)
}

/** interval → time: the interval's time part, wrapped into one day (months and days are
 *  dropped, as PostgreSQL does). */
function intervalToTime(i: Interval): number {
  const day = 86_400_000_000
  const r = i.micros % day
  return r < 0 ? r + day : r
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
    case 'timestamptz':
      return formatTimestamptz(v as number, currentTimeZone())
    case 'time':
      return formatTime(v as number)
    case 'interval':
    case 'jsonb':
      return (v as Interval | JsonbValue).toString()
    case 'uuid':
    case 'bytea':
      return v as string
  }
}

function badInput(v: unknown, t: SqlType): RivuletError {
  const shown = typeof v === 'string' ? `"${v}"` : typeof v === 'object' ? Object.prototype.toString.call(v) : String(v)
  return sqlError('42804', `cannot use JavaScript ${typeof v} value ${shown} as ${typeDisplayName(t)}`)
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
    case 'timestamptz':
      if (v instanceof Date) return msToMicros(v.getTime(), v, t)
      if (typeof v === 'number') return msToMicros(v, v, t)
      break
    case 'bytea':
      if (v instanceof Uint8Array) return byteaOf(v)
      break
    case 'interval':
      if (v instanceof Interval) return v
      if (typeof v === 'number' && Number.isFinite(v)) return new Interval(0, 0, Math.round(v * 1000) + 0)
      break
    case 'jsonb': {
      // a JS value as its JSON (a string is jsonb input text, as for every type)
      const j = jsonbOfJs(v)
      if (j !== undefined) return j
      break
    }
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
    if (!explicit && !/^ *$/.test(s.slice(cut.length))) throw sqlError('22001', `value too long for type ${type}(${n})`)
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
