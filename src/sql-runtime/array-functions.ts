// Implementations of the array overloads of planner/expr/functions.ts (resolveArrayFunction):
// comparisons, the ARRAY[] constructor, subscripts, `op ANY / ALL (array)`, concatenation and
// the array functions of PostgreSQL 15. Values are ArrayValues (planner/array-value.ts) of
// run-time element values; the binder has cast both sides to one array type, so elements
// compare by their JS kind.

import { ArrayValue, EMPTY_ARRAY } from '../../planner/index.js'
import { compareArrays, compareScalars, equalScalars } from './value-order.js'
import { checkTextLength } from './text-limit.js'

const compareElements = compareScalars
const sameElement = equalScalars

/** PostgreSQL's array order over elements of one type. */
const arrayOrder = compareArrays(compareElements) as (a: ArrayValue, b: ArrayValue) => number

/** `x op e` for non-null x and e. */
function compares(op: string, x: unknown, e: unknown): boolean {
  switch (op) {
    case '=':
      return sameElement(x, e)
    case '<>':
      return !sameElement(x, e)
    case '<':
      return compareElements(x, e) < 0
    case '<=':
      return compareElements(x, e) <= 0
    case '>':
      return compareElements(x, e) > 0
    default:
      return compareElements(x, e) >= 0
  }
}

/** `x op ANY (a)`: true if some element satisfies it, else NULL if a NULL was involved. */
function arrayAny(op: string, x: unknown, a: ArrayValue | null): boolean | null {
  if (a === null) return null
  if (a.items.length === 0) return false
  if (x === null) return null
  let unknown = false
  for (const e of a.items) {
    if (e === null) unknown = true
    else if (compares(op, x, e)) return true
  }
  return unknown ? null : false
}

/** `x op ALL (a)`: false if some element fails it, else NULL if a NULL was involved. */
function arrayAll(op: string, x: unknown, a: ArrayValue | null): boolean | null {
  if (a === null) return null
  if (a.items.length === 0) return true
  if (x === null) return null
  let unknown = false
  for (const e of a.items) {
    if (e === null) unknown = true
    else if (!compares(op, x, e)) return false
  }
  return unknown ? null : true
}

function notDistinct(a: unknown, b: unknown): boolean {
  return a === null || b === null ? a === b : sameElement(a, b)
}

function joined(parts: readonly string[], sep: string): string {
  let n = 0
  for (const p of parts) {
    checkTextLength(n, p.length + sep.length)
    n += p.length + sep.length
  }
  return parts.join(sep)
}

/** string_to_array(s, delimiter [, null string]) as PostgreSQL 15. */
function stringToArray(s: string | null, d: string | null, nullString: string | null = null): ArrayValue | null {
  if (s === null) return null
  if (s === '') return EMPTY_ARRAY
  const parts = d === null ? Array.from(s) : d === '' ? [s] : s.split(d)
  return new ArrayValue(nullString === null ? parts : parts.map((p) => (p === nullString ? null : p)))
}

type Fn = (...args: never[]) => unknown

export const ARRAY_FUNCTIONS: Readonly<Record<string, Fn>> = {
  array_eq: (a: ArrayValue, b: ArrayValue) => arrayOrder(a, b) === 0,
  array_ne: (a: ArrayValue, b: ArrayValue) => arrayOrder(a, b) !== 0,
  array_lt: (a: ArrayValue, b: ArrayValue) => arrayOrder(a, b) < 0,
  array_le: (a: ArrayValue, b: ArrayValue) => arrayOrder(a, b) <= 0,
  array_gt: (a: ArrayValue, b: ArrayValue) => arrayOrder(a, b) > 0,
  array_ge: (a: ArrayValue, b: ArrayValue) => arrayOrder(a, b) >= 0,
  array_construct: (...items: unknown[]) => new ArrayValue(items),
  array_subscript: (a: ArrayValue, i: number) => (i >= 1 && i <= a.items.length ? (a.items[i - 1] ?? null) : null),
  array_any: arrayAny,
  array_all: arrayAll,
  array_cat: (a: ArrayValue | null, b: ArrayValue | null) => (a === null ? b : b === null ? a : new ArrayValue([...a.items, ...b.items])),
  array_append: (a: ArrayValue | null, x: unknown) => new ArrayValue(a === null ? [x] : [...a.items, x]),
  array_prepend: (x: unknown, a: ArrayValue | null) => new ArrayValue(a === null ? [x] : [x, ...a.items]),
  array_length: (a: ArrayValue, d: number) => (d === 1 && a.items.length > 0 ? a.items.length : null),
  array_lower: (a: ArrayValue, d: number) => (d === 1 && a.items.length > 0 ? 1 : null),
  array_upper: (a: ArrayValue, d: number) => (d === 1 && a.items.length > 0 ? a.items.length : null),
  cardinality: (a: ArrayValue) => a.items.length,
  array_to_string: (a: ArrayValue, sep: string) => joined(a.items.filter((x): x is string => x !== null), sep),
  array_to_string_null: (a: ArrayValue | null, sep: string | null, nul: string | null) =>
    a === null || sep === null ? null : joined(a.items.map((x) => (x === null ? nul : x)).filter((x): x is string => x !== null) as string[], sep),
  array_position: (a: ArrayValue | null, x: unknown) => {
    if (a === null) return null
    const i = a.items.findIndex((e) => notDistinct(e, x))
    return i < 0 ? null : i + 1
  },
  array_remove: (a: ArrayValue | null, x: unknown) => (a === null ? null : new ArrayValue(a.items.filter((e) => !notDistinct(e, x)))),
  string_to_array: (s: string | null, d: string | null) => stringToArray(s, d),
  string_to_array_null: stringToArray,
}

