// What the binder needs to know about named relations. Owned by the planner, implemented by
// src/catalog.ts (DataFusion's ContextProvider idea).

import type { Column } from './logical/plan.js'
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
 *  > W when `strict` (window_end: an event at t ≥ W only touches windows ending after t), or
 *  ≥ W otherwise (an event-time column). So a row whose value v has v ≤ W (strict) or v < W
 *  is final. */
export interface ColumnWatermark {
  readonly column: number
  readonly sources: readonly string[]
  readonly strict: boolean
}

export interface Catalog {
  getRelation(name: string): CatalogRelation | undefined
  /** The fixed length in microseconds of a bound constant interval expression (window sizes);
   *  undefined when it is not constant or has months. A host without it cannot bind windows. */
  intervalMicros?(e: ScalarExpr): number | undefined
}
