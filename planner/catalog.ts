// What the binder needs to know about named relations. Owned by the planner, implemented by
// src/catalog.ts (DataFusion's ContextProvider idea).

import type { Column } from './logical/plan.js'

export type CatalogRelationKind = 'table' | 'stream' | 'view' | 'materialized view' | 'system'

export interface CatalogRelation {
  readonly name: string
  readonly kind: CatalogRelationKind
  readonly columns: readonly Column[]
  /** Primary key column positions (tables); empty for bags, streams and views. */
  readonly primaryKey: readonly number[]
}

export interface Catalog {
  getRelation(name: string): CatalogRelation | undefined
}
