// Temporal filters: conjuncts of a WHERE that compare a row expression with NOW() (plus or
// minus a constant interval), as in `ts > NOW() - INTERVAL '1' HOUR`. They are rewritten into
// a validity interval of each row in processing time — `now < ts + 1 hour` — so the view is
// maintained as time passes (rows enter and leave with retractions), as Materialize does with
// mz_now(). Anything else that reads NOW() cannot be maintained and is refused in a view.

import { timeShiftSign } from '../expr/functions.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { visitExpr } from '../logical/tree.js'
import type { DeltaPlan } from './delta-plan.js'

/** A bound on processing time: the row is visible from `expr` (`now ≥ expr`, or `now > expr`
 *  when `strict`), or until it (`now < expr`, or `now ≤ expr` when `inclusive`). `moved` lists
 *  the interval constants moved from the NOW() side to the row side (they must be of fixed
 *  length for the rewrite to be exact). */
export interface TimeBound {
  readonly expr: ScalarExpr
  readonly edgeIncluded: boolean
  readonly moved: readonly ScalarExpr[]
}

export interface TemporalSplit {
  readonly rest: ScalarExpr[]
  readonly from: TimeBound[]
  readonly until: TimeBound[]
}

const NOW = 'now'
const FLIP: Record<string, string> = { gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' }

export function readsNow(e: ScalarExpr): boolean {
  let found = false
  visitExpr(e, (x) => {
    if (x.kind === 'call' && x.fn === NOW) found = true
  })
  return found
}

/** `now()`, `now() ± c`, `(now() ± c1) ± c2` with constant c: the constants, signed. */
function nowOffset(e: ScalarExpr): { sign: 1 | -1; c: ScalarExpr }[] | undefined {
  if (e.kind === 'call' && e.fn === NOW && e.args.length === 0) return []
  const sign = e.kind === 'call' && e.args.length === 2 && e.args[1]!.type === 'interval' ? timeShiftSign(e.fn) : undefined
  if (e.kind === 'call' && sign !== undefined) {
    const inner = nowOffset(e.args[0]!)
    const c = e.args[1]!
    if (inner === undefined || readsNow(c) || referencesRow(c)) return undefined
    return [...inner, { sign, c }]
  }
  return undefined
}

function referencesRow(e: ScalarExpr): boolean {
  let found = false
  visitExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'outerColumn' || x.kind === 'subquery') found = true
  })
  return found
}

/** Splits conjuncts into temporal bounds and the rest (which may still read NOW(): the caller
 *  refuses those in a view). */
export function splitTemporal(conjuncts: readonly ScalarExpr[]): TemporalSplit {
  const out: TemporalSplit = { rest: [], from: [], until: [] }
  for (const c of conjuncts) {
    if (c.kind !== 'call' || !(c.fn in FLIP) || c.args.length !== 2) {
      out.rest.push(c)
      continue
    }
    let [a, b] = c.args as [ScalarExpr, ScalarExpr]
    let fn = c.fn
    let offsets = nowOffset(b)
    if (offsets === undefined) {
      offsets = nowOffset(a)
      if (offsets !== undefined) {
        ;[a, b] = [b, a]
        fn = FLIP[fn]!
      }
    }
    if (offsets === undefined || readsNow(a) || (a.type !== 'timestamp' && a.type !== 'timestamptz')) {
      out.rest.push(c)
      continue
    }
    // a fn now ± c  ⇔  (a ∓ c) fn now
    // a view computes in UTC, where a timestamp is the timestamptz of its wall clock and
    // timestamptz arithmetic is timestamp arithmetic: `ts > NOW() - …` over a timestamp column
    // stays a timestamp bound
    if (a.kind === 'cast' && a.type === 'timestamptz' && a.arg.type === 'timestamp') a = a.arg
    const tz = a.type === 'timestamptz'
    let x = a
    for (const o of offsets) x = { kind: 'call', fn: o.sign === 1 ? (tz ? 'tstz_sub_interval' : 'ts_sub_interval') : tz ? 'tstz_add_interval' : 'ts_add_interval', args: [x, o.c], type: a.type }
    const moved = offsets.map((o) => o.c)
    // x > now ⇔ now < x;  x ≥ now ⇔ now ≤ x;  x < now ⇔ now > x;  x ≤ now ⇔ now ≥ x
    if (fn === 'gt') out.until.push({ expr: x, edgeIncluded: false, moved })
    else if (fn === 'ge') out.until.push({ expr: x, edgeIncluded: true, moved })
    else if (fn === 'lt') out.from.push({ expr: x, edgeIncluded: false, moved })
    else out.from.push({ expr: x, edgeIncluded: true, moved })
  }
  return out
}

/** Whether a delta plan reads the clock anywhere but in a temporal filter's bounds (which
 *  is what a view cannot maintain). Walks the plain data generically. */
export function readsClockOutsideTemporalFilters(p: DeltaPlan): boolean {
  const seen = new Set<unknown>()
  const walk = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return false
    seen.add(v)
    if (Array.isArray(v)) return v.some(walk)
    const o = v as Record<string, unknown>
    if (o.kind === 'call' && CLOCK_FUNCTIONS.has(o.fn as string)) return true
    for (const [k, x] of Object.entries(o)) {
      if (o.kind === 'temporalFilter' && (k === 'from' || k === 'until')) continue
      if (walk(x)) return true
    }
    return false
  }
  return walk(p)
}

const CLOCK_FUNCTIONS = new Set([NOW, 'current_date', 'age_now', 'clock_timestamp', 'localtimestamp', 'localtime'])
