// The default rule list, in order. The optimizer applies the list repeatedly until a pass
// changes nothing (optimizer.ts).

import type { Rule } from './rule.js'
import { decorrelateSubqueries } from './decorrelate-subqueries.js'
import { foldConstants } from './fold-constants.js'
import { limitRowNumber } from './limit-row-number.js'
import { mergeProjections } from './merge-projections.js'
import { pruneColumns } from './prune-columns.js'
import { pushDownFilter } from './push-down-filter.js'
import { reorderJoins } from './reorder-joins.js'

export const DEFAULT_RULES: readonly Rule[] = [
  // first: every later rule and the lowering assume plans without subquery expressions
  decorrelateSubqueries,
  // before pushdown, so constant-true conjuncts vanish and constant-false filters empty early
  foldConstants,
  // before pushdown: rebuilds chains of inner joins so each join has an equality key
  reorderJoins,
  // turns WHERE equalities over comma joins into join conditions, which lowering keys on
  pushDownFilter,
  // after pushdown, which brings `rn <= N` down onto the TopK that numbers the rows
  limitRowNumber,
  // after pushdown, which leaves projections stacked over each other
  mergeProjections,
  // last: needs the final shape of projections and join conditions to know what is used
  pruneColumns,
]
