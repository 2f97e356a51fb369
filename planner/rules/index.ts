// The default rule list, in order. Each rule runs to a fixpoint over the whole plan before
// the next; the whole list repeats until nothing changes (optimizer.ts).

import type { Rule } from './rule.js'

export const DEFAULT_RULES: readonly Rule[] = []
