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

import { encodeValue, decodeValue } from './codec.js'

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

/** The kind every non-NULL value of column `j` has, or 'any'. */
function kindOf(rows: readonly Row[], j: number): Column['k'] | 'null' {
  let kind: Column['k'] | 'null' = 'null'
  for (let i = 0; i < rows.length; i++) {
    const v = rows[i]![j]
    if (v === null || v === undefined) continue
    let k: Column['k']
    switch (typeof v) {
      case 'number':
        k = (v | 0) === v && !(v === 0 && 1 / v < 0) ? 'i32' : 'f64'
        // a double among 32-bit integers makes the column doubles
        if ((kind === 'i32' && k === 'f64') || (kind === 'f64' && k === 'i32')) {
          kind = 'f64'
          continue
        }
        break
      case 'bigint':
        k = BigInt.asIntN(64, v) === v ? 'i64' : 'any'
        break
      case 'boolean':
        k = 'bool'
        break
      case 'string':
        k = 'text'
        break
      default:
        return 'any'
    }
    if (k === 'any') return 'any'
    if (kind === 'null') kind = k
    else if (kind !== k) return 'any'
  }
  return kind
}

function nullsOf(rows: readonly Row[], j: number): Uint8Array | undefined {
  let nulls: Uint8Array | undefined
  for (let i = 0; i < rows.length; i++) {
    const v = rows[i]![j]
    if (v === null || v === undefined) (nulls ??= new Uint8Array(rows.length))[i] = 1
  }
  return nulls
}

function encodeColumn(rows: readonly Row[], j: number): Column {
  const n = rows.length
  const kind = kindOf(rows, j)
  if (kind === 'any' || kind === 'null') {
    const v = new Array<unknown>(n)
    for (let i = 0; i < n; i++) v[i] = encodeValue(rows[i]![j] ?? null)
    return { k: 'any', v }
  }
  const nulls = nullsOf(rows, j)
  const base = nulls === undefined ? {} : { nulls }
  switch (kind) {
    case 'i32': {
      const v = new Int32Array(n)
      for (let i = 0; i < n; i++) v[i] = (rows[i]![j] as number | null) ?? 0
      return { k: 'i32', v, ...base }
    }
    case 'f64': {
      const v = new Float64Array(n)
      for (let i = 0; i < n; i++) v[i] = (rows[i]![j] as number | null) ?? 0
      return { k: 'f64', v, ...base }
    }
    case 'i64': {
      const v = new BigInt64Array(n)
      for (let i = 0; i < n; i++) v[i] = (rows[i]![j] as bigint | null) ?? 0n
      return { k: 'i64', v, ...base }
    }
    case 'bool': {
      const v = new Uint8Array(n)
      for (let i = 0; i < n; i++) v[i] = rows[i]![j] === true ? 1 : 0
      return { k: 'bool', v, ...base }
    }
    case 'text': {
      const lengths = new Int32Array(n)
      let all = ''
      for (let i = 0; i < n; i++) {
        const s = (rows[i]![j] as string | null) ?? ''
        lengths[i] = s.length
        all += s
      }
      const latin1 = !NOT_LATIN1.test(all)
      return { k: 'text', lengths, chars: Buffer.from(all, latin1 ? 'latin1' : 'utf16le'), latin1, ...base }
    }
  }
}

export function encodeBatch(rows: readonly Row[]): RowBatch {
  const n = rows.length
  if (n === 0) return { n, columns: [] }
  const width = rows[0]!.length
  for (let i = 1; i < n; i++) if (rows[i]!.length !== width) return { n, columns: null, rows: rows.map((r) => r.map((v) => encodeValue(v))) }
  const columns: Column[] = []
  for (let j = 0; j < width; j++) columns.push(encodeColumn(rows, j))
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
  const columns = b.columns.map((c) => decodeColumn(c, n))
  const width = columns.length
  const rows = new Array<Row>(n)
  for (let i = 0; i < n; i++) {
    const row: unknown[] = []
    for (let j = 0; j < width; j++) row.push(columns[j]![i])
    rows[i] = row
  }
  return rows
}
