// Lowering of the joins whose match depends on time:
//   - TimeJoin nodes (ASOF JOIN, FOR SYSTEM_TIME AS OF l.ts, FOR SYSTEM_TIME AS OF PROCTIME())
//     become an AsOfJoin or a LookupJoin step;
//   - an ordinary join between two streams whose condition bounds the distance of their event
//     times (`b.ts BETWEEN a.ts - X AND a.ts + Y`) becomes an IntervalJoin step, whose state
//     the watermarks free.
// Key and time expressions that are not plain columns are computed into extra columns first;
// a final projection drops them (and a temporal join's `__live` column).

import { timeShiftSign } from '../expr/functions.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { col, lit } from '../expr/scalar.js'
import type { Column, JoinNode, LogicalPlan, TimeJoinNode } from '../logical/plan.js'
import { conjoin, conjuncts, referencedColumns, remapColumns } from '../logical/tree.js'
import { exactBounds, type ColumnWatermark } from '../catalog.js'
import type { DeltaPlan } from './delta-plan.js'
import { arrange, lower, mfp, withExprColumns, type LowerOptions } from './lower.js'
import { watermarkColumns } from './watermarks.js'
import { splitTemporal } from './temporal.js'

/** The relation a plan scans when it is a scan under renaming projections. */
function scannedRelation(p: LogicalPlan): string | undefined {
  if (p.kind === 'scan') return p.relation
  if (p.kind === 'project' && p.exprs.every((e, i) => e.kind === 'column' && e.index === i)) return scannedRelation(p.input)
  return undefined
}

/** Does the plan only ever insert (its inputs are streams, through row-wise steps)? */
export function appendOnly(p: LogicalPlan, opts: LowerOptions): boolean {
  switch (p.kind) {
    case 'scan':
      return opts.isAppendOnly?.(p.relation) ?? false
    case 'filter': {
      // a filter on NOW() becomes a TemporalFilter, whose rows leave (are retracted) as time passes
      const split = splitTemporal(conjuncts(p.predicate))
      return split.from.length === 0 && split.until.length === 0 && appendOnly(p.input, opts)
    }
    case 'project':
    case 'unnest':
      return appendOnly(p.input, opts)
    case 'window':
      return p.spec.kind !== 'session' && appendOnly(p.input, opts)
    case 'union':
      return p.inputs.every((i) => appendOnly(i, opts))
    default:
      return false
  }
}

function boundOf(p: LogicalPlan, e: ScalarExpr | undefined, opts: LowerOptions): ColumnWatermark | undefined {
  if (!e || e.kind !== 'column' || !opts.watermarks) return undefined
  return exactBounds(watermarkColumns(p, opts.watermarks)).find((w) => w.column === e.index)
}

/** Output of a join step over left′ ++ right′ (sides widened by computed columns) → the
 *  logical left ++ right columns. With `residual` (over left ++ right): inner joins drop rows
 *  where it is not true; outer ones null the right columns there instead. */
function finish(join: DeltaPlan, nl: number, leftWidth: number, nr: number, columns: readonly Column[], residual: ScalarExpr | undefined, outer: boolean): DeltaPlan {
  const at = (i: number): number => (i < nl ? i : i - nl + leftWidth)
  const res = residual ? remapColumns(residual, at) : undefined
  const exprs: ScalarExpr[] = columns.map((c, i) => col(at(i), c.type))
  const identity = leftWidth === nl && join.columns.length === nl + nr
  if (!res) return identity ? { ...join, columns } as DeltaPlan : mfp(join, undefined, exprs, columns)
  if (!outer) return mfp(join, res, identity ? undefined : exprs, columns)
  // the one candidate failed the rest of ON: the left row is unmatched
  const nulled = exprs.map((e, i) => (i < nl ? e : { kind: 'case' as const, whens: [{ when: res, then: e }], else: lit(null, e.type), type: e.type }))
  return mfp(join, undefined, nulled, columns)
}

export function lowerTimeJoin(p: TimeJoinNode, opts: LowerOptions): DeltaPlan {
  const nl = p.left.columns.length
  const nr = p.right.columns.length
  const left = lower(p.left, opts)
  if (p.mode === 'lookup') {
    const l = withExprColumns(left, p.leftKeys)
    const r = arrange(lower(p.right, opts), p.rightKeys)
    const lw = l.plan.columns.length
    const residual = p.residual ? remapColumns(p.residual, (i) => (i < nl ? i : i - nl + lw)) : undefined
    const join: DeltaPlan = { kind: 'lookupJoin', left: l.plan, right: r, leftKey: l.cols, outer: p.outer, leftAppendOnly: appendOnly(p.left, opts), residual, columns: [...l.plan.columns, ...r.columns] }
    return finish(join, nl, lw, nr, p.columns, undefined, p.outer)
  }
  let right: DeltaPlan
  let live: number | undefined
  let rightBound: ColumnWatermark | undefined
  if (p.mode === 'temporal') {
    // the version history: every version, deletions included, with its version time
    const relation = scannedRelation(p.right)!
    right = { kind: 'input', relation, versions: true, columns: [...p.right.columns, { name: '__live', type: 'boolean' }] }
    live = nr
    rightBound = p.rightTime?.kind === 'column' && opts.watermarks ? { column: p.rightTime.index, sources: [relation], strict: false } : undefined
  } else {
    right = lower(p.right, opts)
    rightBound = boundOf(p.right, p.rightTime, opts)
  }
  const l = withExprColumns(left, [...p.leftKeys, p.leftTime!])
  const r = withExprColumns(right, [...p.rightKeys, p.rightTime!])
  const lw = l.plan.columns.length
  const leftBound = boundOf(p.left, p.leftTime, opts)
  const join: DeltaPlan = {
    kind: 'asofJoin',
    left: l.plan,
    right: r.plan,
    leftKey: l.cols.slice(0, -1),
    rightKey: r.cols.slice(0, -1),
    leftTime: l.cols[l.cols.length - 1]!,
    rightTime: r.cols[r.cols.length - 1]!,
    match: p.match,
    outer: p.outer,
    live,
    leftBound: leftBound && p.leftTime?.kind === 'column' ? { ...leftBound, column: l.cols[l.cols.length - 1]! } : undefined,
    rightBound: rightBound ? { ...rightBound, column: r.cols[r.cols.length - 1]! } : undefined,
    columns: [...l.plan.columns, ...r.plan.columns],
  }
  return finish(join, nl, lw, nr, p.columns, p.residual, p.outer)
}

// ------------------------------------------------------------------------ interval joins

/** `column ± constant interval` as [column, offset µs]. */
function linear(e: ScalarExpr, opts: LowerOptions): [number, number] | undefined {
  if (e.kind === 'column') return [e.index, 0]
  const sign = e.kind === 'call' && e.args[1]?.type === 'interval' ? timeShiftSign(e.fn) : undefined
  if (e.kind === 'call' && sign !== undefined && e.args[0]!.kind === 'column') {
    const us = opts.intervalMicros?.(e.args[1]!)
    if (us === undefined) return undefined
    return [e.args[0]!.index, sign * us]
  }
  return undefined
}

interface Band {
  leftTime: number
  rightTime: number
  lower: number
  upper: number
  lowerInclusive: boolean
  upperInclusive: boolean
}

/** An ordinary join of two streams whose condition bounds r.time − l.time becomes an
 *  IntervalJoin (undefined when it does not apply). */
export function lowerIntervalJoin(p: JoinNode, opts: LowerOptions): DeltaPlan | undefined {
  if (!p.condition || !opts.watermarks || !opts.intervalMicros) return undefined
  if (p.joinType !== 'inner' && p.joinType !== 'left' && p.joinType !== 'right' && p.joinType !== 'full') return undefined
  const nl = p.left.columns.length
  const nr = p.right.columns.length
  const leftBounds = exactBounds(watermarkColumns(p.left, opts.watermarks))
  const rightBounds = exactBounds(watermarkColumns(p.right, opts.watermarks))
  let band: Band | undefined
  const rest: ScalarExpr[] = []
  for (const c of conjuncts(p.condition)) {
    const op = c.kind === 'call' && c.args.length === 2 ? c.fn : undefined
    if (c.kind === 'call' && (op === 'ge' || op === 'gt' || op === 'le' || op === 'lt')) {
      const x = linear(c.args[0]!, opts)
      const y = linear(c.args[1]!, opts)
      if (x && y && (x[0] < nl) !== (y[0] < nl)) {
        // x − y op 0  ⇒  r − l op′ bound
        const rightFirst = x[0] >= nl
        const [lc, rc] = rightFirst ? [y[0], x[0] - nl] : [x[0], y[0] - nl]
        const bound = rightFirst ? y[1] - x[1] : x[1] - y[1]
        const dir = rightFirst ? op : ({ ge: 'le', gt: 'lt', le: 'ge', lt: 'gt' } as const)[op]
        if (leftBounds.some((w) => w.column === lc) && rightBounds.some((w) => w.column === rc) && (!band || (band.leftTime === lc && band.rightTime === rc))) {
          band ??= { leftTime: lc, rightTime: rc, lower: -Infinity, upper: Infinity, lowerInclusive: true, upperInclusive: true }
          if (dir === 'ge' || dir === 'gt') {
            if (bound > band.lower || (bound === band.lower && dir === 'gt')) {
              band.lower = bound
              band.lowerInclusive = dir === 'ge'
            }
          } else if (bound < band.upper || (bound === band.upper && dir === 'lt')) {
            band.upper = bound
            band.upperInclusive = dir === 'le'
          }
          continue
        }
      }
    }
    rest.push(c)
  }
  if (!band) return undefined
  // equalities between the two sides are the key; everything else is checked per pair
  const leftKeys: ScalarExpr[] = []
  const rightKeys: ScalarExpr[] = []
  const residual: ScalarExpr[] = []
  for (const c of rest) {
    if (c.kind === 'call' && c.fn === 'eq' && c.args.length === 2) {
      const a = referencedColumns(c.args[0]!)
      const b = referencedColumns(c.args[1]!)
      const side = (s: Set<number>): 'l' | 'r' | undefined => (s.size === 0 ? undefined : [...s].every((i) => i < nl) ? 'l' : [...s].every((i) => i >= nl) ? 'r' : undefined)
      const sa = side(a)
      const sb = side(b)
      if (sa && sb && sa !== sb) {
        const [le, re] = sa === 'l' ? [c.args[0]!, c.args[1]!] : [c.args[1]!, c.args[0]!]
        leftKeys.push(le)
        rightKeys.push(remapColumns(re, (i) => i - nl))
        continue
      }
    }
    residual.push(c)
  }
  const l = withExprColumns(lower(p.left, opts), leftKeys)
  const r = withExprColumns(lower(p.right, opts), rightKeys)
  const lw = l.plan.columns.length
  const res = conjoin(residual)
  const leftBound = leftBounds.find((w) => w.column === band!.leftTime)!
  const rightBound = rightBounds.find((w) => w.column === band!.rightTime)!
  const join: DeltaPlan = {
    kind: 'intervalJoin',
    joinType: p.joinType,
    left: l.plan,
    right: r.plan,
    leftKey: l.cols,
    rightKey: r.cols,
    leftTime: band.leftTime,
    rightTime: band.rightTime,
    lower: band.lower,
    upper: band.upper,
    lowerInclusive: band.lowerInclusive,
    upperInclusive: band.upperInclusive,
    residual: res ? remapColumns(res, (i) => (i < nl ? i : i - nl + lw)) : undefined,
    leftBound,
    rightBound,
    finalOuter: opts.finalOuter === true && appendOnly(p.left, opts) && appendOnly(p.right, opts),
    columns: [...l.plan.columns, ...r.plan.columns],
  }
  return finish(join, nl, lw, nr, p.columns, undefined, false)
}
