// PostgreSQL's type OIDs for the engine's types, scalar and array: what the wire protocol's
// RowDescription and the catalog's pg_attribute.atttypid say a column is (node-postgres, for
// one, parses an array column into a JS array by its OID).

import type { ScalarTypeName, SqlTypeName } from './types.js'

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
  interval: [1186, 1187],
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
