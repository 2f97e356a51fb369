// A rewrite rule: a pure function from a logical plan to an equivalent one, or undefined
// when it does not apply. `name` equals the file name and is printed by EXPLAIN VERBOSE.

import type { LogicalPlan } from '../logical/plan.js'

export interface Rule {
  readonly name: string
  apply(plan: LogicalPlan): LogicalPlan | undefined
}
