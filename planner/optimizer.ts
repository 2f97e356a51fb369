// Runs the rewrite rules to a fixpoint: the list is applied repeatedly until a full pass
// changes nothing (or maxPasses). After each rule the output columns must be unchanged.

import type { LogicalPlan } from './logical/plan.js'
import { explainLogical } from './logical/explain.js'
import { DEFAULT_RULES } from './rules/index.js'
import type { Rule } from './rules/rule.js'
import { RivuletError, SqlState } from './errors.js'

export interface OptimizeTrace {
  readonly rule: string
  readonly plan: string
}

/** Subquery expressions anywhere in `plan`: decorrelation takes one pass per nesting level.
 *  Each object once: bound plans share subtrees (an operand reused by an expansion), and a
 *  walk of the tree they unfold to can be exponential. */
function countSubqueries(node: unknown, seen = new Set<object>()): number {
  if (node === null || typeof node !== 'object' || seen.has(node)) return 0
  seen.add(node)
  if (Array.isArray(node)) return node.reduce((n: number, x) => n + countSubqueries(x, seen), 0)
  let n = (node as { kind?: unknown }).kind === 'subquery' ? 1 : 0
  for (const v of Object.values(node)) n += countSubqueries(v, seen)
  return n
}

export function optimize(plan: LogicalPlan, rules: readonly Rule[] = DEFAULT_RULES, trace?: OptimizeTrace[], maxPasses?: number): LogicalPlan {
  // 10 passes, plus one per subquery: SELECT (SELECT (SELECT … 1)) twenty deep used to stop
  // with subqueries left (an internal error at lowering: "subquery survived decorrelation")
  maxPasses ??= 10 + countSubqueries(plan)
  let current = plan
  const types = plan.columns.map((c) => c.type).join(',')
  for (let pass = 0; pass < maxPasses; pass++) {
    let changed = false
    for (const rule of rules) {
      const next = rule.apply(current)
      if (next === undefined || next === current) continue
      if (next.columns.map((c) => c.type).join(',') !== types) throw new RivuletError(SqlState.internalError, `internal error: rule ${rule.name} changed the output columns`)
      current = next
      changed = true
      trace?.push({ rule: rule.name, plan: explainLogical(current) })
    }
    if (!changed) break
  }
  return current
}
