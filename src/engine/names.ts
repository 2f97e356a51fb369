// Names: identifiers as the API takes them, the engine's own relation names, column info.

import type * as ast from '../../grammar/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import { type Column } from '../../planner/index.js'
import type { ColumnInfo } from '../types.js'
import { sqlTypeName } from '../types.js'

export function lastPart(n: ast.Name): string {
  return n.parts[n.parts.length - 1]!
}
/** Names of the hidden views behind SUBSCRIBE statements (not listed by relations()). */
export const HIDDEN_PREFIX = '__rivulet_subscribe_'
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
/** The system relation of late events. */
export const LATE_EVENTS = 'rivulet_late_events'
export function foldName(name: string): string {
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name.toLowerCase()
}
export function columnInfo(columns: readonly Column[]): ColumnInfo[] {
  return columns.map((c) => ({ name: c.name, type: sqlTypeName(c.type) }))
}
/** search_path as rivulet has it: unqualified names are public's (after pg_catalog's). */
export const SEARCH_PATH = '"$user", public'

/** `SET search_path = …`: a path naming only "$user", public and pg_catalog (or nothing, as
 *  pg_dump sets it before qualifying every name) is accepted and changes nothing; another
 *  schema is named qualified instead. (A path is not kept per session: the log replays DDL
 *  without one.) */
export function checkSearchPath(value: string | undefined): void {
  if (value === undefined) return
  const entries = value.split(',').map((v) => v.trim().replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1')).filter((v) => v !== '')
  if (entries.every((v) => v === '$user' || v === 'public' || v === 'pg_catalog')) return
  throw new RivuletError(SqlState.featureNotSupported, `search_path cannot be set to ${value}: unqualified names always resolve in public (and pg_catalog); name a relation of another schema qualified, as schema.name`)
}
