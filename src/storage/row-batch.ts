// Rows of one relation as columns, for the log's records and the spill file: per column the
// values in a typed array when they are all of one kind (32-bit integers, doubles, 64-bit
// bigints, booleans), texts as one string of their characters with their lengths, anything
// else (the value classes, mixed kinds) as values through codec.ts. V8's serializer then
// copies each typed array as bytes, where serializing the rows themselves tags and writes every
// value on its own (measured on W3's rows, two of them BIGINT: about half of a spilled tick's
// time in `serialize`). Exact: a double keeps −0, NaN and ±Infinity (only whole numbers that
// are not −0 go to 32 bits), a bigint outside 64 bits or a text of any code unit goes to the
// general column, texts are stored in Latin-1 when every code unit fits, else as UTF-16 code
// units (lone surrogates kept). NULLs are a byte per row beside the values.

import { encodeValue, decodeValue, isStorableValue } from './codec.js'

type Row = readonly unknown[]

type Column =
  | { readonly k: 'i32'; readonly v: Int32Array; readonly nulls?: Uint8Array }
  | { readonly k: 'f64'; readonly v: Float64Array; readonly nulls?: Uint8Array }
  | { readonly k: 'i64'; readonly v: BigInt64Array; readonly nulls?: Uint8Array }
  | { readonly k: 'bool'; readonly v: Uint8Array; readonly nulls?: Uint8Array }
  | { readonly k: 'text'; readonly lengths: Int32Array; readonly chars: Uint8Array; readonly latin1: boolean; readonly nulls?: Uint8Array }
  | { readonly k: 'any'; readonly v: unknown[] }

/** Rows as columns (rows of differing lengths: as rows, through codec.ts). */
export interface RowBatch {
  readonly n: number
  readonly columns: Column[] | null
  readonly rows?: unknown[][]
}

const NOT_LATIN1 = /[^\u0000-\u00ff]/

// Column kinds while encoding (NULL: no value seen yet).
const NULL = 0
const I32 = 1
const F64 = 2
const I64 = 3
const BOOL = 4
const TEXT = 5
const ANY = 6

const MIN_I64 = -(2n ** 63n)
const MAX_I64 = 2n ** 63n - 1n

function kindOfValue(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return (v | 0) === v && !(v === 0 && 1 / v < 0) ? I32 : F64
    case 'bigint':
      return v >= MIN_I64 && v <= MAX_I64 ? I64 : ANY
    case 'boolean':
      return BOOL
    case 'string':
      return TEXT
    default:
      return v === null || v === undefined ? NULL : ANY
  }
}

/** The kind of a column holding values of kinds a and b (a double among 32-bit integers makes
 *  the column doubles). */
function mergeKinds(a: number, b: number): number {
  if (a === b || b === NULL) return a
  if (a === NULL) return b
  if ((a === I32 && b === F64) || (a === F64 && b === I32)) return F64
  return ANY
}

type Filling = Int32Array | Float64Array | BigInt64Array | Uint8Array | unknown[]

/** Encodes the rows reading each row once (not once per column: a big batch's rows are
 *  scattered over the heap, and reading a row is most of the cost): the columns' kinds are
 *  guessed from the first row and checked on every value (a 32-bit integer column that meets a
 *  double becomes a double column, a column NULL in the first row must stay all NULL); if a
 *  guess fails, a first pass finds the kinds and a second fills the columns. */
export function encodeBatch(rows: readonly Row[]): RowBatch {
  return encode(rows, false)!
}

/** encodeBatch for rows not known to hold only SQL values: null when a value would not come
 *  back exactly (undefined, a plain object, a function: isStorableValue), found in the same
 *  pass that encodes — a checkpoint part's entries are taken for rows by their shape alone. */
export function encodeBatchExactly(rows: readonly Row[]): RowBatch | null {
  return encode(rows, true)
}

function encode(rows: readonly Row[], exact: boolean): RowBatch | null {
  const n = rows.length
  if (n === 0) return { n, columns: [] }
  const first = rows[0]!
  if (exact && !Array.isArray(first)) return null
  const width = first.length
  const guess = new Array<number>(width)
  for (let j = 0; j < width; j++) guess[j] = kindOfValue(first[j])
  const batch = fill(rows, guess, exact)
  if (batch !== null) return batch
  const kinds = new Array<number>(width).fill(NULL)
  for (let i = 0; i < n; i++) {
    const row = rows[i]!
    if (exact && !Array.isArray(row)) return null
    if (row.length !== width) {
      if (exact && !rows.every((r) => Array.isArray(r) && r.every(isStorableValue))) return null
      return { n, columns: null, rows: rows.map((r) => r.map((v) => encodeValue(v))) }
    }
    for (let j = 0; j < width; j++) {
      const k = kindOfValue(row[j])
      if (k !== NULL && k !== kinds[j]) kinds[j] = mergeKinds(kinds[j]!, k)
    }
  }
  return fill(rows, kinds, exact)
}

/** Fills columns of the given kinds (changed in place when a 32-bit column widens); null when a
 *  row's width or a value does not fit them (or, `exact`, is not isStorableValue). */
function fill(rows: readonly Row[], kinds: number[], exact: boolean): RowBatch | null {
  const n = rows.length
  const width = kinds.length
  const cols: Filling[] = []
  const nulls: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(width).fill(undefined)
  const texts: string[] = new Array<string>(width).fill('')
  for (let j = 0; j < width; j++) {
    const k = kinds[j]!
    cols.push(k === ANY || k === NULL ? new Array<unknown>(n) : k === I32 || k === TEXT ? new Int32Array(n) : k === F64 ? new Float64Array(n) : k === I64 ? new BigInt64Array(n) : new Uint8Array(n))
  }
  for (let i = 0; i < n; i++) {
    const row = rows[i]!
    if (row.length !== width || (exact && !Array.isArray(row))) return null
    for (let j = 0; j < width; j++) {
      const v = row[j]
      const k = kinds[j]
      if (k === ANY) {
        if (exact && !isStorableValue(v)) return null
        ;(cols[j] as unknown[])[i] = encodeValue(v ?? null)
        continue
      }
      if (k === NULL) {
        // a column guessed NULL from the first row holds only NULLs (else the kinds are found)
        if (v !== null && (v !== undefined || exact)) return null
        ;(cols[j] as unknown[])[i] = null
        continue
      }
      if (v === null || v === undefined) {
        if (v === undefined && exact) return null
        ;(nulls[j] ??= new Uint8Array(n))[i] = 1
        continue
      }
      switch (k) {
        case I32:
          if (typeof v !== 'number') return null
          if ((v | 0) !== v || (v === 0 && 1 / v < 0)) {
            // a double among 32-bit integers: the column is doubles
            cols[j] = Float64Array.from(cols[j] as Int32Array)
            kinds[j] = F64
          }
          ;(cols[j] as Int32Array | Float64Array)[i] = v
          break
        case F64:
          if (typeof v !== 'number') return null
          ;(cols[j] as Float64Array)[i] = v
          break
        case I64:
          if (typeof v !== 'bigint' || v < MIN_I64 || v > MAX_I64) return null
          ;(cols[j] as BigInt64Array)[i] = v
          break
        case BOOL:
          if (typeof v !== 'boolean') return null
          ;(cols[j] as Uint8Array)[i] = v ? 1 : 0
          break
        default:
          if (typeof v !== 'string') return null
          ;(cols[j] as Int32Array)[i] = v.length
          texts[j] += v
      }
    }
  }
  const columns: Column[] = []
  for (let j = 0; j < width; j++) {
    const base = nulls[j] === undefined ? {} : { nulls: nulls[j]! }
    switch (kinds[j]) {
      case I32:
        columns.push({ k: 'i32', v: cols[j] as Int32Array, ...base })
        break
      case F64:
        columns.push({ k: 'f64', v: cols[j] as Float64Array, ...base })
        break
      case I64:
        columns.push({ k: 'i64', v: cols[j] as BigInt64Array, ...base })
        break
      case BOOL:
        columns.push({ k: 'bool', v: cols[j] as Uint8Array, ...base })
        break
      case TEXT: {
        const all = texts[j]!
        const latin1 = !NOT_LATIN1.test(all)
        columns.push({ k: 'text', lengths: cols[j] as Int32Array, chars: Buffer.from(all, latin1 ? 'latin1' : 'utf16le'), latin1, ...base })
        break
      }
      default:
        columns.push({ k: 'any', v: cols[j] as unknown[] })
    }
  }
  return { n, columns }
}

/** A column's values as an indexable array (NULLs in place). */
function decodeColumn(c: Column, n: number): ArrayLike<unknown> {
  if (c.k === 'any') return c.v.map(decodeValue)
  let values: ArrayLike<unknown>
  if (c.k === 'text') {
    const bytes = Buffer.from(c.chars.buffer, c.chars.byteOffset, c.chars.byteLength)
    const all = bytes.toString(c.latin1 ? 'latin1' : 'utf16le')
    const out = new Array<string>(n)
    let at = 0
    for (let i = 0; i < n; i++) {
      const len = c.lengths[i]!
      out[i] = all.slice(at, at + len)
      at += len
    }
    values = out
  } else if (c.k === 'bool') {
    const out = new Array<boolean>(n)
    for (let i = 0; i < n; i++) out[i] = c.v[i] === 1
    values = out
  } else values = c.v
  const nulls = c.nulls
  if (nulls === undefined) return values
  const out = new Array<unknown>(n)
  for (let i = 0; i < n; i++) out[i] = nulls[i] === 1 ? null : values[i]
  return out
}

export function decodeBatch(b: RowBatch): Row[] {
  if (b.columns === null) return b.rows!.map((r) => r.map(decodeValue))
  const n = b.n
  const c = b.columns.map((col) => decodeColumn(col, n))
  const rows = new Array<Row>(n)
  // A row as an array literal of its exact width: V8 allocates it packed and at once, and
  // (allocation-site pretenuring) straight in the old generation once most such rows survive,
  // as a checkpoint's rows do, where a row grown by push is reallocated and copied.
  switch (c.length) {
    case 1:
      for (let i = 0; i < n; i++) rows[i] = [c[0]![i]]
      return rows
    case 2:
      for (let i = 0; i < n; i++) rows[i] = [c[0]![i], c[1]![i]]
      return rows
    case 3:
      for (let i = 0; i < n; i++) rows[i] = [c[0]![i], c[1]![i], c[2]![i]]
      return rows
    case 4:
      for (let i = 0; i < n; i++) rows[i] = [c[0]![i], c[1]![i], c[2]![i], c[3]![i]]
      return rows
    case 5:
      for (let i = 0; i < n; i++) rows[i] = [c[0]![i], c[1]![i], c[2]![i], c[3]![i], c[4]![i]]
      return rows
    case 6:
      for (let i = 0; i < n; i++) rows[i] = [c[0]![i], c[1]![i], c[2]![i], c[3]![i], c[4]![i], c[5]![i]]
      return rows
  }
  const width = c.length
  for (let i = 0; i < n; i++) {
    const row: unknown[] = []
    for (let j = 0; j < width; j++) row.push(c[j]![i])
    rows[i] = row
  }
  return rows
}
