// Which expressions depend on the session's TimeZone: the casts between timestamptz and local
// times or text, and the functions marked `zone` (PostgreSQL's STABLE timestamptz functions).
// The engine maintains views in UTC and refuses, in a session of another zone, a view that
// would then show other results than the session's own queries (src/engine/ddl.ts).

import { isZoneDependentCast, isZoneDependentFunction } from './functions.js'
import type { SqlType } from '../types.js'

/** True when some expression in `plan` (any plain data holding ScalarExprs: a logical or a
 *  delta plan) depends on the TimeZone. `namesZone` tells whether a constant text cast to
 *  timestamptz names its own zone ('2024-01-01 10:00+02'), which makes that cast independent. */
export function dependsOnTimeZone(plan: unknown, namesZone: (text: string) => boolean): boolean {
  const seen = new Set<unknown>()
  const walk = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return false
    seen.add(v)
    if (Array.isArray(v)) return v.some(walk)
    const o = v as Record<string, unknown>
    if (o.kind === 'call' && typeof o.fn === 'string' && isZoneDependentFunction(o.fn)) return true
    if (o.kind === 'cast' && typeof o.type === 'string') {
      const arg = o.arg as { kind?: string; type?: SqlType; value?: unknown } | undefined
      if (arg?.type !== undefined && isZoneDependentCast(arg.type, o.type as SqlType)) {
        const constantText = arg.kind === 'literal' && typeof arg.value === 'string'
        if (!(constantText && o.type === 'timestamptz' && namesZone(arg.value as string))) return true
      }
    }
    return Object.values(o).some(walk)
  }
  return walk(plan)
}
