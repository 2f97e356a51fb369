// Canonical keys for rows and values: the single place where ivm decides that two rows are
// "the same row", and that two values are equal for grouping and joining. Map keys must be
// primitives for V8 to hash them cheaply, so a row becomes a string (or, for a one-value key,
// the value itself when it is a primitive).
//
// Values are JS primitives (null, boolean, number, string, bigint) or objects, keyed by
// `String(v)`, which must be canonical within their type (e.g. an interval class). Numbers: −0
// and 0 are the same key; NaN equals NaN (Map uses SameValueZero).
//
// Two notions, which differ only for an object with a `hashKey` (a decimal: 2.50 and 2.5 are
// equal in SQL but print differently):
//   - row identity (rowKey, rowsEqual, rowHash): the exact representation, so replacing 10
//     by 10.000 in a row is a change a view sees;
//   - equality for grouping and joining (valueKey, columnsKey, keyFunction): by `hashKey`, so
//     GROUP BY and joins treat 2.5 and 2.50 (and 5.0 and the number 5) as one value.

export type RowKey = string | number | boolean | null | bigint

/** A value with an identity of its own for grouping and joining (see the header). */
interface Keyed {
  readonly hashKey: number | string
}

function hashKeyOf(v: object): number | string | undefined {
  return (v as Partial<Keyed>).hashKey
}

/** Key of a single value for grouping and joining, usable directly as a Map key. */
export function valueKey(v: unknown): RowKey {
  switch (typeof v) {
    case 'number':
      return v === 0 ? 0 : v
    case 'string':
    case 'boolean':
    case 'bigint':
      return v
    default:
      if (v === null || v === undefined) return null
      return hashKeyOf(v as object) ?? '\u0000O' + String(v)
  }
}

/** Key of a single value's exact representation (row identity). */
function identityKey(v: unknown): RowKey {
  if (typeof v === 'object' && v !== null) return '\u0000O' + String(v)
  return valueKey(v)
}

/** A value's part of a composite row key (exact representation). */
function token(v: unknown): string {
  switch (typeof v) {
    case 'number':
      return v === 0 ? '0' : String(v)
    case 'string':
      return v.length + '"' + v
    case 'boolean':
      return v ? '\u0000T' : '\u0000F'
    case 'bigint':
      return 'b' + String(v)
    default:
      return v === null || v === undefined ? '\u0000N' : '\u0000O' + String(v).length + '"' + String(v)
  }
}

/** A value's part of a composite grouping key (objects by their hashKey, when they have one). */
function groupToken(v: unknown): string {
  if (typeof v === 'object' && v !== null) {
    const k = hashKeyOf(v)
    if (k !== undefined) return typeof k === 'number' ? token(k) : '\u0000K' + k.length + '"' + k
  }
  return token(v)
}

const PAIR_X = 2 ** 25
const PAIR_Y = 2 ** 26

/** Two integers of moderate size (|x| < 2^25, |y| < 2^26: ids, window numbers, counts) packed
 *  into one exact number — no string to build, and V8 hashes numbers cheaply — or undefined.
 *  Packed keys are distinct numbers, and a number never equals a string key. */
function packedPair(x: unknown, y: unknown): number | undefined {
  if (typeof x === 'number' && typeof y === 'number' && Number.isInteger(x) && Number.isInteger(y) && x >= -PAIR_X && x < PAIR_X && y >= -PAIR_Y && y < PAIR_Y) return (x + PAIR_X) * (2 * PAIR_Y) + (y + PAIR_Y)
  return undefined
}

/** Grouping key of two values (injective up to SQL equality). */
export function pairKey(x: unknown, y: unknown): RowKey {
  if (typeof x === 'object' && x !== null) x = hashKeyOf(x) ?? x
  if (typeof y === 'object' && y !== null) y = hashKeyOf(y) ?? y
  return packedPair(x, y) ?? groupToken(x) + '|' + groupToken(y)
}

/** Key of a whole row (all columns), its identity. Injective: distinct rows give distinct
 *  keys. */
export function rowKey(row: readonly unknown[]): RowKey {
  const n = row.length
  if (n === 1) return identityKey(row[0])
  if (n === 2) return packedPair(row[0], row[1]) ?? token(row[0]) + '|' + token(row[1])
  let s = token(row[0])
  for (let i = 1; i < n; i++) s += '|' + token(row[i])
  return s
}

/** Grouping key of the given columns of a row. */
export function columnsKey(row: readonly unknown[], columns: readonly number[]): RowKey {
  const n = columns.length
  if (n === 1) return valueKey(row[columns[0]!])
  if (n === 0) return ''
  if (n === 2) return pairKey(row[columns[0]!], row[columns[1]!])
  let s = groupToken(row[columns[0]!])
  for (let i = 1; i < n; i++) s += '|' + groupToken(row[columns[i]!])
  return s
}

/** A specialised grouping key function for a fixed column list (avoids the generic loop on
 *  hot paths). */
export function keyFunction(columns: readonly number[]): (row: readonly unknown[]) => RowKey {
  if (columns.length === 0) return () => ''
  if (columns.length === 1) {
    const c = columns[0]!
    return (row) => valueKey(row[c])
  }
  if (columns.length === 2) {
    const a = columns[0]!
    const b = columns[1]!
    return (row) => pairKey(row[a], row[b])
  }
  const cols = columns.slice()
  return (row) => columnsKey(row, cols)
}

/** True when any of the given columns is NULL (SQL equi-join keys never match NULL). */
export function hasNull(row: readonly unknown[], columns: readonly number[]): boolean {
  for (let i = 0; i < columns.length; i++) {
    const v = row[columns[i]!]
    if (v === null || v === undefined) return true
  }
  return false
}

/** Value identity consistent with `rowKey`: equal keys ⇔ equal values (−0 equals 0, NaN
 *  equals NaN, null equals undefined, objects compare by `String(v)`). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  const t = typeof a
  if (t !== typeof b) return (a === null || a === undefined) && (b === null || b === undefined)
  if (t === 'number') return a !== a && b !== b
  if (t === 'object') return a !== null && b !== null && String(a) === String(b)
  return false
}

/** Row equality consistent with `rowKey` (without building keys). */
export function rowsEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a === b) return true
  const n = a.length
  if (n !== b.length) return false
  for (let i = 0; i < n; i++) {
    const x = a[i]
    const y = b[i]
    if (x !== y && !valuesEqual(x, y)) return false
  }
  return true
}

function typeRank(v: unknown): number {
  switch (typeof v) {
    case 'boolean':
      return 1
    case 'number':
      return 2
    case 'bigint':
      return 3
    case 'string':
      return 4
    default:
      return v === null || v === undefined ? 0 : 5
  }
}

/** A total order on values, consistent with `valuesEqual` (0 ⇔ equal). Not a SQL order:
 *  it only makes results deterministic (tie-breaks). null < booleans < numbers (NaN first)
 *  < bigints < strings < objects (by `String(v)`). */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0
  const ra = typeRank(a)
  const rb = typeRank(b)
  if (ra !== rb) return ra - rb
  switch (ra) {
    case 0:
      return 0
    case 2: {
      const x = a as number
      const y = b as number
      if (x !== x) return y !== y ? 0 : -1
      if (y !== y) return 1
      return x < y ? -1 : x > y ? 1 : 0
    }
    case 5: {
      const x = String(a)
      const y = String(b)
      return x < y ? -1 : x > y ? 1 : 0
    }
    default:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0
  }
}

/** A total order on rows (column by column, then by length), consistent with `rowsEqual`. */
export function compareRows(a: readonly unknown[], b: readonly unknown[]): number {
  if (a === b) return 0
  const n = a.length < b.length ? a.length : b.length
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i])
    if (c !== 0) return c
  }
  return a.length - b.length
}

// ---- numeric row hashes (no allocation for primitives) ----

const hashF64 = new Float64Array(1)
const hashU32 = new Uint32Array(hashF64.buffer)

function mix(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x5bd1e995)
  return (h ^ (h >>> 15)) | 0
}

function hashString(h: number, s: string): number {
  h = mix(h, s.length)
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h | 0
}

/** Folds one value into a hash; equal values (valuesEqual) fold equally. */
export function hashValue(h: number, v: unknown): number {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v) return mix(h, v | 0)
      if (v !== v) return mix(h, 0x7ff80000)
      hashF64[0] = v
      return mix(mix(h ^ 0x2545f491, hashU32[0]!), hashU32[1]!)
    case 'string':
      return hashString(mix(h, 0x3c6ef372), v)
    case 'boolean':
      return mix(h, v ? 0x9e3779b9 : 0x7f4a7c15)
    case 'bigint':
      return hashString(mix(h, 0x1b873593), String(v))
    default:
      return v === null || v === undefined ? mix(h, 0x68e31da4) : hashString(mix(h, 0x0b4611a5), String(v))
  }
}

/** A 32-bit hash of a whole row, consistent with rowsEqual (equal rows hash equally).
 *  A small integer, so it is a cheap Map key; collisions must be resolved with rowsEqual. */
export function rowHash(row: readonly unknown[]): number {
  let h = row.length
  for (let i = 0; i < row.length; i++) h = hashValue(h, row[i])
  return h
}
