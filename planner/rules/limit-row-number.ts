// limit-row-number: `WHERE rn <= N` (or `rn < N`, `rn = 1`) over ROW_NUMBER() OVER
// (PARTITION BY … ORDER BY …) becomes the TopK's limit, so only the first N rows of each
// partition are numbered and kept in the output; without it every row of a partition is
// numbered and a change near the top renumbers the whole partition.
//   Filter(rn <= N AND rest, TopK(row_number, no limit)) → Filter(rest, TopK(limit N))
// (push-down-filter brings the filter down to the TopK first.)

import type { ScalarExpr } from '../expr/scalar.js'
import type { LogicalPlan } from '../logical/plan.js'
import { conjoin, conjuncts, transformUp } from '../logical/tree.js'
import type { Rule } from './rule.js'

export const limitRowNumber: Rule = {
  name: 'limit-row-number',
  apply(plan) {
    let changed = false
    const out = transformUp(plan, (p): LogicalPlan | undefined => {
      if (p.kind !== 'filter' || p.input.kind !== 'topK') return undefined
      const t = p.input
      if (!t.rowNumber || t.limit !== undefined || t.offset !== 0) return undefined
      const rn = t.columns.length - 1
      let limit: number | undefined
      const rest: ScalarExpr[] = []
      for (const c of conjuncts(p.predicate)) {
        const n = bound(c, rn)
        if (n !== undefined && (limit === undefined || n < limit)) limit = n
        else if (n === undefined) rest.push(c)
      }
      if (limit === undefined) return undefined
      changed = true
      const topK: LogicalPlan = { ...t, limit }
      const r = conjoin(rest)
      return r ? { kind: 'filter', input: topK, predicate: r, columns: p.columns } : topK
    })
    return changed ? out : undefined
  },
}

/** The largest row number `c` lets through, when `c` is `#rn <= N`, `#rn < N`, `#rn = N`
 *  with N = 1 (or `N >= #rn` …). */
function bound(c: ScalarExpr, rn: number): number | undefined {
  if (c.kind !== 'call' || c.args.length !== 2) return undefined
  let [a, b] = c.args as [ScalarExpr, ScalarExpr]
  let op = c.fn
  if (b.kind === 'column' && a.kind === 'literal') {
    ;[a, b] = [b, a]
    op = ({ lt: 'gt', le: 'ge', gt: 'lt', ge: 'le', eq: 'eq' } as Record<string, string>)[op] ?? ''
  }
  if (a.kind !== 'column' || a.index !== rn || b.kind !== 'literal' || typeof b.value !== 'number') return undefined
  const n = b.value
  if (op === 'le') return Math.max(0, Math.floor(n))
  if (op === 'lt') return Math.max(0, Math.ceil(n) - 1)
  if (op === 'eq' && n === 1) return 1
  return undefined
}
