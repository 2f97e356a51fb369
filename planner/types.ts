// SQL types as the planner sees them, and how values of each type are held at run time:
//   boolean → JS boolean; smallint/integer → JS number (integral); bigint → an exact 64-bit
//   integer: a JS number within ±(2^53 − 1), a JS bigint beyond (src/sql-runtime/int8.ts); real/double →
//   JS number; numeric → an exact decimal: a JS number for integers of scale 0 within
//   ±(2^53 − 1) and for NaN / ±Infinity, a `Numeric` (coefficient and display scale) otherwise
//   (planner/numeric.ts); text → string; bpchar (CHAR(n)) → string, padded with spaces to n,
//   whose trailing spaces never count (comparisons and the cast to text drop them); date → number (days since 1970-01-01); timestamp →
//   number (microseconds since 1970-01-01 00:00:00); timestamptz → number (microseconds since
//   1970-01-01 00:00:00 UTC: an instant, shown in the session's TimeZone); time → number
//   (microseconds since midnight); uuid → string (its canonical text: lower-case, hyphenated,
//   so string order is PostgreSQL's bytewise order); bytea → string (its hex output text
//   '\x0102…', lower-case, so string order is bytewise order); interval → an Interval object (months,
//   days, microseconds); jsonb → a JsonbValue, a parsed and normalized JSON tree
//   (src/sql-runtime/jsonb-value.ts); an array (`integer[]`, one dimension, lower bound 1) → an ArrayValue
//   of its elements' values (planner/array-value.ts). NULL → null. 'unknown' is the type of an
//   untyped NULL or string literal before coercion.

/** The types of single values (every type but the arrays). */
export type ScalarType =
  | 'boolean'
  | 'smallint'
  | 'integer'
  | 'bigint'
  | 'real'
  | 'double'
  | 'numeric'
  | 'text'
  | 'bpchar'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'time'
  | 'interval'
  | 'uuid'
  | 'bytea'
  | 'jsonb'
  | 'unknown'

/** An array of elements of a scalar type (PostgreSQL's `integer[]`; arrays of arrays are
 *  one type with more dimensions there, and not supported here). */
export type ArrayType = `${Exclude<ScalarType, 'unknown'>}[]`

export type SqlType = ScalarType | ArrayType

export function isArrayType(t: SqlType): t is ArrayType {
  return t.endsWith('[]')
}

/** The element type of an array type. */
export function elementType(t: ArrayType): Exclude<ScalarType, 'unknown'> {
  return t.slice(0, -2) as Exclude<ScalarType, 'unknown'>
}

/** The array type of an element type ('unknown' elements are text, as PostgreSQL types an
 *  array of untyped literals). */
export function arrayOf(t: ScalarType): ArrayType {
  return `${t === 'unknown' ? 'text' : t}[]`
}

export const NUMERIC_TYPES: readonly SqlType[] = ['smallint', 'integer', 'bigint', 'numeric', 'real', 'double']

export function isNumericType(t: SqlType): boolean {
  return t === 'smallint' || t === 'integer' || t === 'bigint' || t === 'numeric' || t === 'real' || t === 'double'
}

export function isIntegerType(t: SqlType): boolean {
  return t === 'smallint' || t === 'integer' || t === 'bigint'
}

export function isFloatType(t: SqlType): boolean {
  return t === 'real' || t === 'double'
}

/** Numeric promotion order (Postgres implicit casts): the wider of two numeric types. */
const NUMERIC_RANK: Partial<Record<SqlType, number>> = { smallint: 1, integer: 2, bigint: 3, numeric: 4, real: 5, double: 6 }

export function widerNumeric(a: SqlType, b: SqlType): SqlType {
  return (NUMERIC_RANK[a] ?? 0) >= (NUMERIC_RANK[b] ?? 0) ? a : b
}

/** Maps a grammar TypeName.name (and its array dimensions) to an SqlType. */
export function typeFromName(name: string, arrayDimensions = 0): SqlType | undefined {
  const t = scalarTypeFromName(name)
  if (t === undefined || arrayDimensions === 0) return t
  return arrayOf(t)
}

function scalarTypeFromName(name: string): ScalarType | undefined {
  switch (name) {
    case 'boolean':
    case 'smallint':
    case 'integer':
    case 'bigint':
    case 'real':
    case 'double':
    case 'numeric':
    case 'text':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
    case 'interval':
    case 'uuid':
    case 'bytea':
    case 'jsonb':
      return name
    case 'varchar':
      return 'text'
    case 'char':
      return 'bpchar'
    default:
      return undefined
  }
}

/** The error for a type name typeFromName does not know: 42704 "does not exist", except for
 *  `json`, which is refused with a pointer to jsonb (the one JSON type here: json's text
 *  would keep its spacing, key order and duplicate keys, which a jsonb does not). */
export function unknownTypeError(name: string): { readonly code: string; readonly message: string } {
  if (name === 'json') return { code: '0A000', message: 'type json is not supported: use jsonb' }
  return { code: '42704', message: `type "${name}" does not exist` }
}

/** The Postgres spelling used in messages and result metadata. */
export function typeDisplayName(t: SqlType): string {
  if (isArrayType(t)) return `${typeDisplayName(elementType(t))}[]`
  switch (t) {
    case 'double':
      return 'double precision'
    case 'bpchar':
      return 'character'
    case 'timestamp':
      return 'timestamp without time zone'
    case 'timestamptz':
      return 'timestamp with time zone'
    case 'time':
      return 'time without time zone'
    default:
      return t
  }
}

/** Inclusive bounds of the integer types held as JS numbers (bigint's are src/sql-runtime/int8.ts'). */
export const INTEGER_BOUNDS: Readonly<Record<'smallint' | 'integer', readonly [number, number]>> = {
  smallint: [-32768, 32767],
  integer: [-2147483648, 2147483647],
}

/** The bigint range, as bigints (a value beyond ±(2^53 − 1) is held as a JS bigint). */
export const INT8_MIN = -(2n ** 63n)
export const INT8_MAX = 2n ** 63n - 1n

/** A column's or a cast's type modifier: NUMERIC(p, s) rounds to s decimals and allows
 *  p − s digits before the point; VARCHAR(n) and CHAR(n) allow n characters (CHAR pads). */
export type TypeModifier =
  | { readonly kind: 'numeric'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'varchar'; readonly length: number }
  | { readonly kind: 'char'; readonly length: number }

/** The type's name with its modifier, as PostgreSQL's format_type prints it. */
export function typeWithModifier(t: SqlType, m: TypeModifier | undefined): string {
  if (m === undefined) return typeDisplayName(t)
  switch (m.kind) {
    case 'numeric':
      return `numeric(${m.precision},${m.scale})`
    case 'varchar':
      return `character varying(${m.length})`
    case 'char':
      return `character(${m.length})`
  }
}
