// SQL types as the planner sees them, and how values of each type are held at run time:
//   boolean → JS boolean; smallint/integer/bigint → JS number (integral; bigint is exact and
//   checked within ±2^53, beyond that an overflow error); real/double/numeric → JS number;
//   text → string; date → number (days since 1970-01-01); timestamp → number (microseconds
//   since 1970-01-01 00:00:00); interval → an Interval object (months, days, microseconds).
//   NULL → null. 'unknown' is the type of an untyped NULL or string literal before coercion.

export type SqlType =
  | 'boolean'
  | 'smallint'
  | 'integer'
  | 'bigint'
  | 'real'
  | 'double'
  | 'numeric'
  | 'text'
  | 'date'
  | 'timestamp'
  | 'interval'
  | 'unknown'

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

/** Maps a grammar TypeName.name to an SqlType. */
export function typeFromName(name: string): SqlType | undefined {
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
    case 'interval':
      return name
    case 'varchar':
    case 'char':
      return 'text'
    case 'timestamptz':
      return 'timestamp'
    default:
      return undefined
  }
}

/** The Postgres spelling used in messages and result metadata. */
export function typeDisplayName(t: SqlType): string {
  switch (t) {
    case 'double':
      return 'double precision'
    case 'timestamp':
      return 'timestamp without time zone'
    default:
      return t
  }
}

/** Inclusive integer bounds per integer type (bigint limited to exactly representable). */
export const INTEGER_BOUNDS: Readonly<Record<'smallint' | 'integer' | 'bigint', readonly [number, number]>> = {
  smallint: [-32768, 32767],
  integer: [-2147483648, 2147483647],
  bigint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
}
