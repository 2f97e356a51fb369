// A reference interpreter of bound, UNOPTIMIZED scalar expressions (planner ScalarExpr, as
// QueryBinder produces them), written to be obviously correct rather than fast. It shares
// nothing with src/sql-runtime/compile-scalar.ts: every call — including the comparison and arithmetic ids
// the compiler inlines (eq, lt, int4_add, int8_mul, ...) — goes to the library implementation
// FUNCTIONS[id] (src/sql-runtime/functions.ts), and every cast to castValue (src/sql-runtime/values.ts). Values are
// only passed around, never computed on here, so a change of run-time representation (exact
// BIGINT, decimal NUMERIC) needs no change here.
//
// The answer is the SET of acceptable outcomes (a value, or a RivuletError's SQLSTATE), since
// SQL does not fix every evaluation order:
//   - a strict call's arguments may be evaluated in any order, and evaluation may stop at the
//     first NULL (Postgres folds `f(NULL, x)` to NULL without evaluating x) or error: so an
//     erroring argument's error is acceptable, and so is NULL when some argument is NULL;
//   - a non-strict call (concat, greatest, ...) evaluates every argument; any argument's
//     error is acceptable;
//   - x IN (a, b, ...) may stop at the first match (and at a NULL x) or evaluate the whole
//     list first (Postgres builds an array of it): the lazy answer, and any element's error;
//   - CASE, COALESCE, AND and OR evaluate lazily in written order (rivulet documents this
//     order; the compiler reorders AND/OR only when no operand can raise), except that an
//     AND with an operand that is FALSE whatever the row is FALSE, and an OR with one that
//     is TRUE whatever the row TRUE, whatever the others would do: constant folding, as
//     PostgreSQL's planner does it too (see `constantly`).
// Errors that are not RivuletErrors, or internal errors (XX000), propagate as exceptions:
// they are bugs, never outcomes.

import { RivuletError } from '../../grammar/index.js'
import { isStrictFunction, isVolatileFunction, isZoneDependentFunction, visitExpr } from '../../planner/index.js'
import type { ScalarExpr, SqlType } from '../../planner/index.js'
import { FUNCTIONS } from '../../src/sql-runtime/functions.js'
import { castValue } from '../../src/sql-runtime/values.js'
import { currentTimeZone } from '../../src/sql-runtime/time-zone.js'

/** A value, or an error's SQLSTATE (an error outcome's `value` is undefined: no SQL value). */
export type Outcome = { readonly value: unknown; readonly error?: undefined } | { readonly error: string; readonly value?: undefined }

/** Stop enumerating when a node has more acceptable outcomes than this (pathological trees):
 *  the caller then skips the expression rather than compare against a partial set. */
const MAX_OUTCOMES = 64

export class TooManyOutcomes extends Error {}

export function isError(o: Outcome): o is { readonly error: string } {
  return o.error !== undefined
}

/** The acceptable outcomes of `e` over `row`. */
export function outcomes(e: ScalarExpr, row: readonly unknown[]): Outcome[] {
  return evaluate(e, row)
}

function value(v: unknown): Outcome {
  return { value: v }
}

/** Runs one library step; a RivuletError (not internal) becomes an error outcome. */
function attempt(f: () => unknown): Outcome {
  try {
    return value(f())
  } catch (err) {
    if (err instanceof RivuletError && err.code !== 'XX000') return { error: err.code }
    throw err
  }
}

/** Distinct outcomes (by value identity, NaN = NaN, errors by code). */
function distinct(list: readonly Outcome[]): Outcome[] {
  const out: Outcome[] = []
  for (const o of list) {
    if (!out.some((p) => sameOutcome(p, o))) out.push(o)
    if (out.length > MAX_OUTCOMES) throw new TooManyOutcomes()
  }
  return out
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (isError(a) || isError(b)) return isError(a) && isError(b) && a.error === b.error
  return Object.is(a.value, b.value) || a.value === b.value || (typeof a.value === 'object' && a.value !== null && String(a.value) === String(b.value))
}

/** All combinations of one outcome per list (their product). */
function product(lists: readonly Outcome[][]): Outcome[][] {
  let acc: Outcome[][] = [[]]
  for (const l of lists) {
    acc = acc.flatMap((prefix) => l.map((o) => [...prefix, o]))
    if (acc.length > MAX_OUTCOMES) throw new TooManyOutcomes()
  }
  return acc
}

function evaluate(e: ScalarExpr, row: readonly unknown[]): Outcome[] {
  switch (e.kind) {
    case 'column':
      return [value(row[e.index])]
    case 'literal':
      return [value(e.value)]
    case 'not':
      return evaluate(e.arg, row).map((o) => (isError(o) ? o : value(o.value === null ? null : !o.value)))
    case 'isNull':
      return distinct(evaluate(e.arg, row).map((o) => (isError(o) ? o : value(e.negated ? o.value !== null : o.value === null))))
    case 'and':
    case 'or': {
      const dominant = e.kind === 'or'
      const folded = e.args.some((a) => constantly(a, dominant, row)) ? [value(dominant)] : []
      return distinct([...logic(e.kind, e.args, 0, false, row), ...folded])
    }
    case 'case':
      return distinct(caseWhen(e, 0, row))
    case 'coalesce':
      return distinct(coalesce(e.args, 0, row))
    case 'cast':
      return distinct(evaluate(e.arg, row).map((o) => (isError(o) || o.value === null ? o : attempt(() => castValue(o.value, e.arg.type === 'unknown' ? 'text' : e.arg.type, e.type)))))
    case 'inList':
      return distinct(inList(e, row))
    case 'call':
      return distinct(call(e, row))
    case 'subquery':
    case 'outerColumn':
      throw new Error('reference: subqueries are not part of scalar expressions here')
  }
}

/** True when `e` may be folded to the boolean `b` before any row is read (see staticValue). */
function constantly(e: ScalarExpr, b: boolean, row: readonly unknown[]): boolean {
  const v = staticValue(e, row)
  return v !== undefined && v.value === b
}

/** The value `e` has whatever the row, as a constant folder can see it without reading a
 *  column: a part that reads no column is evaluated (when it has one outcome, a value), and
 *  NOT, AND, OR, IS NULL, COALESCE, CASE, calls and casts over such parts are decided as far
 *  as three-valued logic and laziness decide them (`FALSE AND c`, `COALESCE(1, c)`, a strict
 *  call of a NULL, a comparison of two folded CASEs). undefined when it depends on the row. */
function staticValue(e: ScalarExpr, row: readonly unknown[]): { value: unknown } | undefined {
  if (readsNoColumn(e)) return single(evaluate(e, row))
  switch (e.kind) {
    case 'not': {
      const v = staticValue(e.arg, row)
      return v === undefined ? undefined : { value: v.value === null ? null : !v.value }
    }
    case 'isNull': {
      const v = staticValue(e.arg, row)
      return v === undefined ? undefined : { value: (v.value === null) !== e.negated }
    }
    case 'and':
    case 'or': {
      const dominant = e.kind === 'or'
      const vs = e.args.map((a) => staticValue(a, row))
      if (vs.some((v) => v !== undefined && v.value === dominant)) return { value: dominant }
      if (vs.some((v) => v === undefined)) return undefined
      return { value: vs.some((v) => v!.value === null) ? null : !dominant }
    }
    case 'coalesce':
      for (const a of e.args) {
        const v = staticValue(a, row)
        if (v === undefined) return undefined
        if (v.value !== null) return v
      }
      return { value: null }
    case 'case':
      for (const w of e.whens) {
        const c = staticValue(w.when, row)
        if (c === undefined) return undefined
        if (c.value === true) return staticValue(w.then, row)
      }
      return staticValue(e.else, row)
    case 'call': {
      const vs = e.args.map((a) => staticValue(a, row))
      if (isStrictFunction(e.fn) && vs.some((v) => v?.value === null)) return { value: null }
      if (vs.some((v) => v === undefined) || isVolatileFunction(e.fn)) return undefined
      // a call of folded arguments: `CASE WHEN TRUE THEN 0 ... END <= -1`
      return single(evaluate({ ...e, args: e.args.map((a, i) => ({ kind: 'literal', value: vs[i]!.value, type: a.type })) }, row))
    }
    case 'cast': {
      const v = staticValue(e.arg, row)
      return v === undefined ? undefined : single(evaluate({ ...e, arg: { kind: 'literal', value: v.value, type: e.arg.type } }, row))
    }
    default:
      return undefined
  }
}

function single(os: readonly Outcome[]): { value: unknown } | undefined {
  return os.length === 1 && !isError(os[0]!) ? { value: os[0]!.value } : undefined
}

function readsNoColumn(e: ScalarExpr): boolean {
  let constant = true
  visitExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'outerColumn' || x.kind === 'subquery' || (x.kind === 'call' && isVolatileFunction(x.fn))) constant = false
  })
  return constant
}

/** AND / OR from operand `i` on, `sawNull` when an earlier operand was NULL. */
function logic(kind: 'and' | 'or', args: readonly ScalarExpr[], i: number, sawNull: boolean, row: readonly unknown[]): Outcome[] {
  if (i === args.length) return [value(sawNull ? null : kind === 'and')]
  const dominant = kind === 'or'
  return evaluate(args[i]!, row).flatMap((o) => {
    if (isError(o)) return [o]
    if (o.value === dominant) return [value(dominant)]
    return logic(kind, args, i + 1, sawNull || o.value === null, row)
  })
}

function caseWhen(e: Extract<ScalarExpr, { kind: 'case' }>, i: number, row: readonly unknown[]): Outcome[] {
  if (i === e.whens.length) return evaluate(e.else, row)
  const w = e.whens[i]!
  return evaluate(w.when, row).flatMap((o) => (isError(o) ? [o] : o.value === true ? evaluate(w.then, row) : caseWhen(e, i + 1, row)))
}

function coalesce(args: readonly ScalarExpr[], i: number, row: readonly unknown[]): Outcome[] {
  if (i === args.length) return [value(null)]
  return evaluate(args[i]!, row).flatMap((o) => (isError(o) || o.value !== null ? [o] : coalesce(args, i + 1, row)))
}

/** The library's equality of two non-NULL values of one type. */
function equal(a: unknown, b: unknown, t: SqlType): Outcome {
  return attempt(() => FUNCTIONS[t === 'interval' ? 'interval_eq' : 'eq']!(a, b))
}

function inList(e: Extract<ScalarExpr, { kind: 'inList' }>, row: readonly unknown[]): Outcome[] {
  // x IN () is FALSE and x NOT IN () is TRUE, whatever x
  if (e.list.length === 0) return [value(e.negated)]
  const negate = (o: Outcome): Outcome => (isError(o) || o.value === null || !e.negated ? o : value(!o.value))
  const elements = e.list.map((x) => evaluate(x, row))
  const eager = elements.flat().filter(isError)
  const lazy = evaluate(e.arg, row).flatMap((a) => {
    if (isError(a) || a.value === null) return [a.value === null ? value(null) : a]
    const scan = (i: number, sawNull: boolean): Outcome[] => {
      if (i === e.list.length) return [value(sawNull ? null : false)]
      return elements[i]!.flatMap((x) => {
        if (isError(x)) return [x]
        if (x.value === null) return scan(i + 1, true)
        const eq = equal(a.value, x.value, e.arg.type)
        if (isError(eq)) return [eq]
        return eq.value === true ? [value(true)] : scan(i + 1, sawNull)
      })
    }
    return scan(0, false)
  })
  // `x IN (c)` is `x = c` (as PostgreSQL parses it), a strict comparison that a constant
  // folder decides to NULL when c is NULL, without evaluating x
  const folded = e.list.length === 1 && staticValue(e.list[0]!, row)?.value === null ? [value(null)] : []
  return [...lazy.map(negate), ...eager, ...folded]
}

function call(e: Extract<ScalarExpr, { kind: 'call' }>, row: readonly unknown[]): Outcome[] {
  if (isVolatileFunction(e.fn)) throw new Error(`reference: volatile function ${e.fn} has no single answer`)
  const fn = FUNCTIONS[e.fn]
  if (fn === undefined) throw new Error(`reference: no library implementation of ${e.fn}`)
  const args = e.args.map((a) => evaluate(a, row))
  const strict = isStrictFunction(e.fn)
  // any argument's error is acceptable (order unspecified); for a strict call, so is NULL
  // when some argument is NULL (evaluation may stop there)
  const early: Outcome[] = args.flat().filter(isError)
  if (strict && args.some((l) => l.some((o) => !isError(o) && o.value === null))) early.push(value(null))
  const complete = product(args.map((l) => l.filter((o) => !isError(o)))).map((combo) => {
    const vs = combo.map((o) => o.value)
    if (strict && vs.some((v) => v === null)) return value(null)
    // a function of the TimeZone takes the session's as its last argument (compile-scalar.ts)
    return attempt(() => (isZoneDependentFunction(e.fn) ? fn(...vs, currentTimeZone()) : fn(...vs)))
  })
  return [...complete, ...early]
}
