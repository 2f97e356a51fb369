// The bytes of a log record: SQL values in rows (numbers, bigints, text, booleans, NULL, and the
// engine's value classes NUMERIC, INTERVAL, JSONB and arrays) through V8's structured serializer,
// which keeps numbers, bigints and strings exactly (−0, NaN and ±Infinity included) and is the
// fastest exact encoder Node has. Class instances lose their prototype there, so each of the
// value classes becomes a tagged plain object first (a jsonb its text, exact: numbers keep their
// scale), and back on decoding. A row without
// class instances — the common case — is passed as it is, without a copy.

import { serialize, deserialize } from 'node:v8'
import { crc32 } from 'node:zlib'
import { Numeric } from '../../planner/numeric.js'
import { ArrayValue } from '../../planner/array-value.js'
import { Interval } from '../sql-runtime/interval.js'
import { JsonbValue } from '../sql-runtime/jsonb-value.js'
import { parseStoredJsonb } from '../sql-runtime/jsonb-parse.js'

type Row = readonly unknown[]

/** A value class as the serializer sees it. */
type Tagged = { readonly $n: [number | bigint, number] } | { readonly $i: [number, number, number] } | { readonly $a: unknown[] } | { readonly $j: string }

/** Whether a row may hold the value and come back with it exactly: NULL, a number, text, a
 *  boolean, a bigint or one of the value classes (not undefined, which would come back NULL). */
export function isStorableValue(v: unknown): boolean {
  const t = typeof v
  if (t === 'object') return v === null || v instanceof Numeric || v instanceof Interval || v instanceof ArrayValue || v instanceof JsonbValue
  return t === 'number' || t === 'string' || t === 'boolean' || t === 'bigint'
}

export function encodeValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (v instanceof Numeric) return { $n: [v.coef, v.scale] }
  if (v instanceof Interval) return { $i: [v.months, v.days, v.micros] }
  if (v instanceof ArrayValue) return { $a: v.items.map(encodeValue) }
  if (v instanceof JsonbValue) return { $j: v.toString() }
  throw new Error(`the log cannot store a value of class ${(v as object).constructor?.name ?? 'Object'}`)
}

export function decodeValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  const t = v as Tagged
  if ('$n' in t) return new Numeric(t.$n[0], t.$n[1])
  if ('$i' in t) return new Interval(t.$i[0], t.$i[1], t.$i[2])
  if ('$a' in t) return new ArrayValue(t.$a.map(decodeValue))
  if ('$j' in t) return parseStoredJsonb(t.$j)
  throw new Error('a log record holds a value of unknown shape')
}

function hasObjects(row: Row): boolean {
  for (let i = 0; i < row.length; i++) {
    const v = row[i]
    if (v !== null && typeof v === 'object') return true
  }
  return false
}

/** Rows as the serializer can keep them (the same array when no value is a class instance). */
export function encodeRows(rows: readonly Row[]): Row[] {
  let out: Row[] | undefined
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    if (!hasObjects(row)) {
      if (out !== undefined) out.push(row)
      continue
    }
    out ??= rows.slice(0, i)
    out.push(row.map(encodeValue))
  }
  return out ?? (rows as Row[])
}

export function decodeRows(rows: Row[]): Row[] {
  for (let i = 0; i < rows.length; i++) if (hasObjects(rows[i]!)) rows[i] = rows[i]!.map(decodeValue)
  return rows
}

export function encodeBody(body: unknown): Buffer {
  return serialize(body)
}

export function decodeBody<T>(bytes: Buffer): T {
  return deserialize(bytes) as T
}

/** CRC-32 of a record's bytes with its sequence number, so a record moved, copied or flipped
 *  is caught. */
export function checksum(seq: number, bytes: Buffer): number {
  return crc32(bytes, seq >>> 0)
}
