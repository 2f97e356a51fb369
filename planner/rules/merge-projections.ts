// merge-projections: Project(Project(x)) → one Project with the inner expressions
// substituted, and an identity Project (same columns, same names) disappears. Fewer operators,
// fewer intermediate rows.

import type { LogicalPlan } from '../logical/plan.js'
import { exprChildren, hasSubquery, substituteColumns, transformUp } from '../logical/tree.js'
import type { ScalarExpr } from '../expr/scalar.js'
import type { Rule } from './rule.js'

export const mergeProjections: Rule = {
  name: 'merge-projections',
  apply(plan) {
    let changed = false
    const out = transformUp(plan, (p): LogicalPlan | undefined => {
      if (p.kind !== 'project') return undefined
      const input = p.input
      if (p.exprs.length === input.columns.length && p.exprs.every((e, i) => e.kind === 'column' && e.index === i) && p.columns.every((c, i) => c.name === input.columns[i]!.name)) {
        changed = true
        return input
      }
      if (input.kind !== 'project' || input.exprs.some(hasSubquery) || p.exprs.some(hasSubquery)) return undefined
      // inlining duplicates inner work when an inner non-column expression is used twice
      const uses = new Map<number, number>()
      for (const e of p.exprs) countUses(e, uses)
      if ([...uses].some(([i, n]) => n > 1 && input.exprs[i]!.kind !== 'column' && input.exprs[i]!.kind !== 'literal')) return undefined
      changed = true
      return { kind: 'project', input: input.input, exprs: p.exprs.map((e) => substituteColumns(e, input.exprs)), columns: p.columns }
    })
    return changed ? out : undefined
  },
}

function countUses(e: ScalarExpr, uses: Map<number, number>): void {
  if (e.kind === 'column') uses.set(e.index, (uses.get(e.index) ?? 0) + 1)
  for (const k of exprChildren(e)) countUses(k, uses)
}
