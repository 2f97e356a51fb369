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

export function optimize(plan: LogicalPlan, rules: readonly Rule[] = DEFAULT_RULES, trace?: OptimizeTrace[], maxPasses = 10): LogicalPlan {
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
