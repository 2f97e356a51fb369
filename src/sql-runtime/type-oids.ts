// PostgreSQL's type OIDs for the engine's types, scalar and array: what the wire protocol's
// RowDescription and the catalog's pg_attribute.atttypid say a column is (node-postgres, for
// one, parses an array column into a JS array by its OID).

import type { ScalarTypeName, SqlTypeName } from '../types.js'

type ElementName = Exclude<ScalarTypeName, 'unknown'>

/** The OID of each scalar type and of its array type. */
const OIDS: Record<ElementName, readonly [scalar: number, array: number]> = {
  boolean: [16, 1000],
  smallint: [21, 1005],
  integer: [23, 1007],
  bigint: [20, 1016],
  real: [700, 1021],
  'double precision': [701, 1022],
  numeric: [1700, 1231],
  text: [25, 1009],
  character: [1042, 1014],
  date: [1082, 1182],
  timestamp: [1114, 1115],
  timestamptz: [1184, 1185],
  time: [1083, 1183],
  interval: [1186, 1187],
  uuid: [2950, 2951],
  bytea: [17, 1001],
  jsonb: [3802, 3807],
}

const UNKNOWN_OID = 705

export function typeOidOf(t: SqlTypeName): number {
  if (t === 'unknown') return UNKNOWN_OID
  if (t.endsWith('[]')) return OIDS[t.slice(0, -2) as ElementName][1]
  return OIDS[t as ElementName][0]
}

/** Every array type: its OID, its element type's OID, and its pg_type name ('_int4'). */
export function arrayTypeOids(): { oid: number; element: number; name: ElementName }[] {
  return Object.entries(OIDS).map(([name, [element, oid]]) => ({ oid, element, name: name as ElementName }))
}

/** The engine's types as pg_type rows: OID, name, length, category, format_type's name. */
export interface PgType {
  readonly oid: number
  readonly typname: string
  readonly typlen: number
  readonly typcategory: string
  readonly display: string
}

export const PG_TYPES: readonly PgType[] = [
  { oid: 16, typname: 'bool', typlen: 1, typcategory: 'B', display: 'boolean' },
  { oid: 17, typname: 'bytea', typlen: -1, typcategory: 'U', display: 'bytea' },
  { oid: 18, typname: 'char', typlen: 1, typcategory: 'Z', display: '"char"' },
  { oid: 19, typname: 'name', typlen: 64, typcategory: 'S', display: 'name' },
  { oid: 20, typname: 'int8', typlen: 8, typcategory: 'N', display: 'bigint' },
  { oid: 21, typname: 'int2', typlen: 2, typcategory: 'N', display: 'smallint' },
  { oid: 23, typname: 'int4', typlen: 4, typcategory: 'N', display: 'integer' },
  { oid: 25, typname: 'text', typlen: -1, typcategory: 'S', display: 'text' },
  { oid: 26, typname: 'oid', typlen: 4, typcategory: 'N', display: 'oid' },
  { oid: 194, typname: 'pg_node_tree', typlen: -1, typcategory: 'Z', display: 'pg_node_tree' },
  { oid: 700, typname: 'float4', typlen: 4, typcategory: 'N', display: 'real' },
  { oid: 701, typname: 'float8', typlen: 8, typcategory: 'N', display: 'double precision' },
  { oid: 705, typname: 'unknown', typlen: -2, typcategory: 'X', display: 'unknown' },
  { oid: 1042, typname: 'bpchar', typlen: -1, typcategory: 'S', display: 'character' },
  { oid: 1043, typname: 'varchar', typlen: -1, typcategory: 'S', display: 'character varying' },
  { oid: 1082, typname: 'date', typlen: 4, typcategory: 'D', display: 'date' },
  { oid: 1083, typname: 'time', typlen: 8, typcategory: 'D', display: 'time without time zone' },
  { oid: 1114, typname: 'timestamp', typlen: 8, typcategory: 'D', display: 'timestamp without time zone' },
  { oid: 1184, typname: 'timestamptz', typlen: 8, typcategory: 'D', display: 'timestamp with time zone' },
  { oid: 1186, typname: 'interval', typlen: 16, typcategory: 'T', display: 'interval' },
  { oid: 1700, typname: 'numeric', typlen: -1, typcategory: 'N', display: 'numeric' },
  { oid: 2205, typname: 'regclass', typlen: 4, typcategory: 'N', display: 'regclass' },
  { oid: 2950, typname: 'uuid', typlen: 16, typcategory: 'U', display: 'uuid' },
  { oid: 3802, typname: 'jsonb', typlen: -1, typcategory: 'U', display: 'jsonb' },
]
/** The array type of each element type above that the engine has (`_int4`, `integer[]`). */
export const PG_ARRAY_TYPES: readonly (PgType & { readonly typelem: number })[] = arrayTypeOids().flatMap((a) => {
  const e = PG_TYPES.find((t) => t.oid === a.element)
  return e ? [{ oid: a.oid, typname: `_${e.typname}`, typlen: -1, typcategory: 'A', display: `${e.display}[]`, typelem: e.oid }] : []
})
export const PG_TYPE_BY_OID = new Map([...PG_TYPES, ...PG_ARRAY_TYPES].map((t) => [t.oid, t]))

/** format_type(type oid, typmod), as PostgreSQL spells it. */
export function formatType(oid: number, typmod: number | null): string {
  const t = PG_TYPE_BY_OID.get(oid)
  if (!t) return '???'
  const mod = typmod ?? -1
  if (mod < 0) return t.display
  if (t.oid === 1700) return `numeric(${((mod - 4) >> 16) & 0xffff},${(mod - 4) & 0xffff})`
  if (t.oid === 1043 || t.oid === 1042) return `${t.display}(${mod - 4})`
  return t.display
}
