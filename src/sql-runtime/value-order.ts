// How SQL orders and equates values: compareFn (the total order of a type, for ORDER BY,
// MIN/MAX, greatest/least), compareText (code point order, PG's "C" collation), CHAR(n)
// order (trailing spaces ignored), arrays (btarraycmp), sort keys with NULL placement, and
// compareScalars/equalScalars for two values of one type (2.5 = 2.50; '1 day' = '24:00:00'),
// jsonb's order being jsonb-order.ts'.
// Apart because the operators, the functions and the engine's rendering all need only this.

import { elementType, isArrayType } from '../../planner/types.js'
import type { SqlType } from '../../planner/types.js'
import { ArrayValue } from '../../planner/array-value.js'
import { Numeric, numericCompare, type NumericValue } from '../../planner/numeric.js'
import { sqlError } from './sql-errors.js'
import { compareInterval, Interval } from './interval.js'
import { JsonbValue } from './jsonb-value.js'
import { compareJsonb } from './jsonb-order.js'

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
    case 'uuid':
    case 'bytea':
      return compareText as (a: unknown, b: unknown) => number
    case 'boolean':
      return compareBool as (a: unknown, b: unknown) => number
    case 'interval':
      return compareInterval as (a: unknown, b: unknown) => number
    case 'numeric':
      return numericCompare as (a: unknown, b: unknown) => number
    case 'bpchar':
      return compareBpchar as (a: unknown, b: unknown) => number
    case 'jsonb':
      return compareJsonb as (a: unknown, b: unknown) => number
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
  if (a instanceof JsonbValue && b instanceof JsonbValue) return compareJsonb(a, b)
  throw sqlError('XX000', 'cannot compare values of different types')
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
  if (a instanceof JsonbValue) return b instanceof JsonbValue && a.hashKey === b.hashKey
  return a === b || (a !== a && b !== b) || ((a instanceof Interval || a instanceof Numeric || b instanceof Numeric) && compareScalars(a, b) === 0)
}
