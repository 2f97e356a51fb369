// Postgres type OIDs for the engine's column types, and the encoding of values in DataRows:
// the text format (what `psql` and `pg` use) for every type, the binary format for the types
// where it is a fixed-width number or UTF-8 text (others fall back to text, and the
// RowDescription says so).

import { formatValue } from '../sql-runtime/value-text.js'
import type { ColumnInfo, ResultValue, SqlTypeName } from '../types.js'
import type { FieldDescription } from './protocol.js'
import { arrayTypeOids, typeOidOf } from '../sql-runtime/type-oids.js'

export const OID = {
  bool: 16,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  char: 18,
  float4: 700,
  float8: 701,
  unknown: 705,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  time: 1083,
  interval: 1186,
  numeric: 1700,
  uuid: 2950,
  bytea: 17,
  jsonb: 3802,
} as const

/** A result column as the server describes it: the engine's type (for formatting values) and,
 *  for catalog answers, a Postgres type of its own (oid, name, "char"). */
export interface Field extends ColumnInfo {
  readonly oid?: number
}

/** The byte size of each fixed-width type (RowDescription's typlen; −1: variable). */
const SIZES: Partial<Record<SqlTypeName, number>> = {
  boolean: 1,
  smallint: 2,
  integer: 4,
  bigint: 8,
  real: 4,
  'double precision': 8,
  date: 4,
  timestamp: 8,
  timestamptz: 8,
  time: 8,
  interval: 16,
  uuid: 16,
}

export function typeOid(f: Field): number {
  return f.oid ?? (f.type === 'unknown' ? OID.text : typeOidOf(f.type))
}

/** Whether values of this field can be sent in binary. */
function binaryCapable(f: Field): boolean {
  switch (typeOid(f)) {
    case OID.bool:
    case OID.int2:
    case OID.int4:
    case OID.int8:
    case OID.float4:
    case OID.float8:
    case OID.text:
    case OID.varchar:
    case OID.name:
    case OID.oid:
      return true
    default:
      return false
  }
}

/** Result format per column from Bind's format codes (none = all text, one = all columns,
 *  else one per column); a binary request for a type without a binary encoder here is
 *  answered in text. */
export function resultFormats(fields: readonly Field[], codes: readonly number[]): number[] {
  return fields.map((f, i) => {
    const code = codes.length === 0 ? 0 : codes.length === 1 ? codes[0]! : (codes[i] ?? 0)
    return code === 1 && binaryCapable(f) ? 1 : 0
  })
}

export function describeFields(fields: readonly Field[], formats: readonly number[] = []): FieldDescription[] {
  return fields.map((f, i) => ({ name: f.name, typeOid: typeOid(f), typeSize: f.oid === undefined ? (SIZES[f.type] ?? -1) : f.oid === OID.oid ? 4 : -1, format: formats[i] ?? 0 }))
}

/** The Postgres text form of a value (NULL → null). */
export function textValue(v: ResultValue, f: Field): string | null {
  if (v === null) return null
  return formatValue(v, f.type)
}

/** Encodes one value for a DataRow. */
export function encodeValue(v: ResultValue, f: Field, format: number): Buffer | null {
  if (v === null) return null
  if (format === 1) {
    switch (typeOid(f)) {
      case OID.bool:
        return Buffer.from([v === true || v === 't' || (typeof v === 'number' && v !== 0) ? 1 : 0])
      case OID.int2: {
        const b = Buffer.allocUnsafe(2)
        b.writeInt16BE(Number(v))
        return b
      }
      case OID.int4: {
        const b = Buffer.allocUnsafe(4)
        b.writeInt32BE(Number(v))
        return b
      }
      case OID.oid: {
        const b = Buffer.allocUnsafe(4)
        b.writeUInt32BE(Number(v))
        return b
      }
      case OID.int8: {
        const b = Buffer.allocUnsafe(8)
        b.writeBigInt64BE(typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))))
        return b
      }
      case OID.float4: {
        const b = Buffer.allocUnsafe(4)
        b.writeFloatBE(Number(v))
        return b
      }
      case OID.float8: {
        const b = Buffer.allocUnsafe(8)
        b.writeDoubleBE(Number(v))
        return b
      }
    }
  }
  return Buffer.from(formatValue(v, f.type), 'utf8')
}

/** The engine's type name for a parameter type OID (used in `'…'::type` literals), or
 *  undefined for an untyped (unknown) parameter. */
export function castNameForOid(oid: number): string | undefined {
  switch (oid) {
    case OID.bool:
      return 'boolean'
    case OID.int2:
      return 'smallint'
    case OID.int4:
      return 'integer'
    case OID.int8:
    case OID.oid:
      return 'bigint'
    case OID.float4:
      return 'real'
    case OID.float8:
      return 'double precision'
    case OID.numeric:
      return 'numeric'
    case OID.text:
    case OID.varchar:
    case OID.name:
    case OID.char:
    case 1042: // bpchar
      return 'text'
    case OID.date:
      return 'date'
    case OID.timestamp:
      return 'timestamp'
    case OID.timestamptz:
      return 'timestamptz'
    case OID.time:
      return 'time'
    case OID.interval:
      return 'interval'
    case OID.uuid:
      return 'uuid'
    case OID.bytea:
      return 'bytea'
    case OID.jsonb:
      return 'jsonb'
    default: {
      const a = ARRAY_ELEMENT.get(oid)
      return a === undefined ? undefined : `${a === 'character' ? 'text' : a}[]`
    }
  }
}

const ARRAY_ELEMENT = new Map(arrayTypeOids().map((a) => [a.oid, a.name]))

/** Decodes a binary-format parameter of a known fixed-width type into its text form. */
export function decodeBinaryParameter(b: Buffer, oid: number): string | undefined {
  switch (oid) {
    case OID.bool:
      return b.length === 1 ? (b[0] ? 'true' : 'false') : undefined
    case OID.int2:
      return b.length === 2 ? String(b.readInt16BE(0)) : undefined
    case OID.int4:
      return b.length === 4 ? String(b.readInt32BE(0)) : undefined
    case OID.oid:
      return b.length === 4 ? String(b.readUInt32BE(0)) : undefined
    case OID.int8:
      return b.length === 8 ? b.readBigInt64BE(0).toString() : undefined
    case OID.float4:
      return b.length === 4 ? floatText(b.readFloatBE(0)) : undefined
    case OID.float8:
      return b.length === 8 ? floatText(b.readDoubleBE(0)) : undefined
    case OID.text:
    case OID.varchar:
    case OID.name:
    case OID.unknown:
    case 0:
      return b.toString('utf8')
    default:
      return undefined
  }
}

function floatText(x: number): string {
  return Number.isNaN(x) ? 'NaN' : x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : String(x)
}

/** Postgres's display name of a column type (format_type), for psql's \d. */
export function formatTypeName(t: SqlTypeName): string {
  switch (t) {
    case 'timestamp':
      return 'timestamp without time zone'
    case 'timestamptz':
      return 'timestamp with time zone'
    case 'time':
      return 'time without time zone'
    case 'unknown':
      return 'text'
    default:
      return t
  }
}
