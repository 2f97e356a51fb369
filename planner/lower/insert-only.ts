// Which delta plans only ever insert: every delta they emit, in every step, carries positive
// weights only. Aggregates over such an input may keep less state (MIN / MAX keep only the
// extreme, as nothing can retract it), so the judgement is strict and structural: a plan is
// insert-only only when it is built from the steps below, and anything else — a join (its
// other side can change), a temporal filter (rows expire), DISTINCT / EXCEPT / INTERSECT
// (threshold, negate), a reduce's output (a group's row is replaced), TopK, a session window
// (sessions merge), EMIT ON WINDOW CLOSE, the time joins, a future kind — is not.
//
//   input     a relation the catalog says only receives insertions (a stream or an APPEND
//             ONLY table: the engine refuses their DELETE, UPDATE and replacing upserts);
//             never a table, a view or a versioned table's history
//   constant  VALUES rows, each emitted once with weight 1
//   mfp       row by row: a row's weight passes unchanged, or the row is dropped
//   window    TUMBLE / HOP: each row mapped to its window(s), the weight unchanged
//   unnest    each row once per element, the weight unchanged
//   union     UNION ALL: the sum of insert-only deltas
//
// Freeing state once a watermark passes (a reduce dropping closed groups, retention of a
// stream's history) frees whole entries without emitting retractions, so it does not count.

import type { DeltaPlan } from './delta-plan.js'

/** Does `p` only ever emit insertions? `insertOnlyRelation` says whether a base relation only
 *  receives them (undefined: none does). */
export function insertOnlyPlan(p: DeltaPlan, insertOnlyRelation: ((relation: string) => boolean) | undefined): boolean {
  switch (p.kind) {
    case 'input':
      return p.versions !== true && insertOnlyRelation !== undefined && insertOnlyRelation(p.relation)
    case 'constant':
      return true
    case 'mfp':
    case 'unnest':
      return insertOnlyPlan(p.input, insertOnlyRelation)
    case 'window':
      return p.spec.kind !== 'session' && insertOnlyPlan(p.input, insertOnlyRelation)
    case 'union':
      return p.inputs.every((i) => insertOnlyPlan(i, insertOnlyRelation))
    default:
      return false
  }
}
