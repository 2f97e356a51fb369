// Names: identifiers as the API takes them, the engine's own relation names, column info.

import type * as ast from '../../grammar/index.js'
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