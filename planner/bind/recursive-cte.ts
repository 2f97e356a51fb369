// WITH RECURSIVE, for a statement evaluated once: a recursive CTE `name AS (base UNION [ALL]
// step)` is computed by iteration — the base's rows, then the step's over the rows the last
// round added (the working table), until a round adds nothing (UNION: rows already there do
// not count) — and becomes a VALUES of its rows, so the rest of the query plans as usual. The
// rounds run through the host's `evaluate` (the engine runs each plan over the current data).
// A view cannot use it (the fixpoint is not maintained incrementally): 0A000 there.

import type * as ast from '../../grammar/index.js'
import { columnsKey, type RowKey } from '../../ivm/index.js'
import { lit } from '../expr/scalar.js'
import { planError, SqlState, unsupported, type ErrorContext } from '../errors.js'
import type { Column, LogicalPlan } from '../logical/plan.js'
import { castPlanColumns } from './bind-expr.js'

/** At most so many rounds, and so many rows in all (54000 past either). */
const MAX_ROUNDS = 100_000
const MAX_ROWS = 10_000_000

export interface BoundCte {
  readonly plan: LogicalPlan
  readonly columns: readonly Column[]
}

/** Whether a CTE's query reads the CTE itself (by an unqualified table name). */
export function isRecursive(cte: ast.Cte): boolean {
  let found = false
  const walk = (v: unknown): void => {
    if (found || typeof v !== 'object' || v === null) return
    if (Array.isArray(v)) return v.forEach(walk)
    const node = v as { kind?: unknown; name?: { parts?: unknown } }
    if (node.kind === 'table' && Array.isArray(node.name?.parts) && node.name.parts.length === 1 && node.name.parts[0] === cte.name) found = true
    for (const key in v) if (key !== 'span') walk((v as Record<string, unknown>)[key])
  }
  walk(cte.query.body)
  return found
}

/** Binds the part of a CTE's body as a query of its own. */
type BindBody = (body: ast.QueryBody, working: BoundCte | undefined) => BoundCte

export function evaluateRecursiveCte(cte: ast.Cte, bind: BindBody, evaluate: ((plan: LogicalPlan) => readonly (readonly unknown[])[]) | undefined, err: ErrorContext): BoundCte {
  if (evaluate === undefined) throw unsupported(err, 'WITH RECURSIVE here (it is computed when a SELECT or INSERT … SELECT runs; a view, sink, subscription or EXPLAIN would need it maintained)', cte.span)
  const body = cte.query.body
  if (body.kind !== 'setOp' || body.op !== 'union' || cte.query.orderBy.length > 0 || cte.query.limit !== undefined) {
    throw planError(err, '42P19', `recursive query "${cte.name}" does not have the form non-recursive-term UNION [ALL] recursive-term`, cte.span)
  }
  const base = bind(body.left, undefined)
  if (cte.columns.length > base.columns.length) throw planError(err, SqlState.invalidColumnReference, `table has ${base.columns.length} columns available but ${cte.columns.length} columns specified`, cte.span)
  const columns = base.columns.map((c, i) => ({ name: cte.columns[i] ?? c.name, type: c.type === 'unknown' ? 'text' : c.type }))
  const types = columns.map((c) => c.type)
  const all: (readonly unknown[])[] = []
  const seen = new Set<RowKey>()
  const keyColumns = columns.map((_, i) => i)
  const add = (rows: readonly (readonly unknown[])[]): (readonly unknown[])[] => {
    const fresh: (readonly unknown[])[] = []
    for (const r of rows) {
      if (!body.all) {
        const k = columnsKey(r, keyColumns)
        if (seen.has(k)) continue
        seen.add(k)
      }
      fresh.push(r)
    }
    all.push(...fresh)
    if (all.length > MAX_ROWS) throw planError(err, '54000', `recursive query "${cte.name}" produced more than ${MAX_ROWS} rows`, cte.span)
    return fresh
  }
  const values = (rows: readonly (readonly unknown[])[]): BoundCte => ({ plan: { kind: 'values', rows: rows.map((r) => r.map((v, i) => lit(v, types[i]!))), columns }, columns })
  let working = add(evaluate(castPlanColumns(base.plan, base.columns, types)))
  for (let round = 0; working.length > 0; round++) {
    if (round >= MAX_ROUNDS) throw planError(err, '54000', `recursive query "${cte.name}" did not end within ${MAX_ROUNDS} rounds`, cte.span)
    const step = bind(body.right, values(working))
    if (step.columns.length !== columns.length) throw planError(err, SqlState.syntaxError, `each UNION query must have the same number of columns`, cte.span)
    working = add(evaluate(castPlanColumns(step.plan, step.columns, types)))
  }
  return values(all)
}
