// What the binder needs to know about named relations. Owned by the planner, implemented by
// src/engine/catalog.ts (DataFusion's ContextProvider idea).

import type { Column, LogicalPlan } from './logical/plan.js'
import type { ScalarExpr } from './expr/scalar.js'

export type CatalogRelationKind = 'table' | 'stream' | 'view' | 'materialized view' | 'system'

export interface CatalogRelation {
  readonly name: string
  readonly kind: CatalogRelationKind
  readonly columns: readonly Column[]
  /** Primary key column positions (tables); empty for bags, streams and views. */
  readonly primaryKey: readonly number[]
  /** Columns whose future changes a watermark bounds (a stream's event-time column; a
   *  view's window_end, …). Absent = none. */
  readonly watermarks?: readonly ColumnWatermark[]
  /** A versioned table (PRIMARY KEY and WATERMARK FOR a version-time column): that column.
   *  `FOR SYSTEM_TIME AS OF` joins read its version history. */
  readonly versionTime?: number
}

/** Column `column` of a relation is bounded by the watermark W = min over `sources` (streams)
 *  of their watermarks: every change (insert or retraction) that can still arrive has a value
 *  v with v + offset > W when `strict` (window_end: an event at t ≥ W only touches windows
 *  ending after t), or v + offset ≥ W otherwise (an event-time column). So a row whose value
 *  has v + offset ≤ W (strict) or v + offset < W is final. The offset (µs, absent = 0) is
 *  what the value lacks to be its close time: a window's size for window_start, the
 *  interval taken off for `window_end - INTERVAL '1' SECOND`. */
export interface ColumnWatermark {
  readonly column: number
  readonly sources: readonly string[]
  readonly strict: boolean
  readonly offset?: number
}

/** The bounds whose value is the bound itself (no offset): what operators that compare
 *  event times with a watermark directly (sessions, interval and as-of joins) can use. */
export function exactBounds(bounds: readonly ColumnWatermark[]): ColumnWatermark[] {
  return bounds.filter((w) => !w.offset)
}

/** A read-only relation of pg_catalog or information_schema: its rows as they are when a
 *  statement is bound (computed from the catalog; the planner reads them as constant rows). */
export interface SystemRelation {
  readonly name: string
  readonly columns: readonly Column[]
  readonly rows: readonly (readonly unknown[])[]
}

/** The object-identifier types that name catalog objects. */
export type RegType = 'regclass' | 'regnamespace' | 'regtype' | 'regproc' | 'regprocedure' | 'regrole'

export interface Catalog {
  /** A user relation by name, in `schema` when the name was qualified (undefined: looked up
   *  by the search path). Its `name` is how plans refer to it. */
  getRelation(name: string, schema?: string): CatalogRelation | undefined
  /** A system relation by schema and name; `schema` undefined = looked up by the search path
   *  (pg_catalog only: as in PostgreSQL, it is implicitly first, so its names win over a
   *  user relation of the same name). A host without it has no system relations. */
  systemRelation?(schema: string | undefined, name: string): SystemRelation | undefined
  /** Functions answered from the catalog or the session (current_user, version(),
   *  pg_get_viewdef(oid), …): the bound call, or undefined when `name` is not one of them. */
  systemFunction?(name: string, args: readonly ScalarExpr[]): ScalarExpr | undefined
  /** `'name'::regclass` (regnamespace, regtype, regproc, regrole): the OID of the object a
   *  (possibly qualified) name denotes, undefined when there is none. */
  objectOid?(type: RegType, name: string): number | undefined
  /** `x::regclass::text` (…): the object's name for an OID expression (as PostgreSQL prints a
   *  regclass), undefined when the host cannot name them. */
  objectName?(type: RegType, oid: ScalarExpr): ScalarExpr | undefined
  /** The fixed length in microseconds of a bound constant interval expression (window sizes);
   *  undefined when it is not constant or has months. A host without it cannot bind windows. */
  intervalMicros?(e: ScalarExpr): number | undefined
  /** The rows of an uncorrelated plan over the current data, for a statement evaluated once
   *  (a SELECT, not a view): what WITH RECURSIVE iterates with. Without it, WITH RECURSIVE is
   *  not supported (a view would need the fixpoint maintained). */
  evaluate?(plan: LogicalPlan): readonly (readonly unknown[])[]
}
