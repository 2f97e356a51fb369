// Which output columns of a plan a watermark bounds (watermarks flow through
// operators). A column is bounded when every change that can still reach the plan's output
// has a value at or above (strictly above, for window ends) the minimum watermark of some
// streams — so rows below it are final. This decides where EMIT ON WINDOW CLOSE can emit and
// which state a watermark frees.
//
// Rules (each keeps only what it can prove):
//   scan             the relation's own bounds (a stream's event-time column; a view's, as
//                    computed when it was created)
//   filter, sort, distinct   unchanged
//   project          a plain column reference keeps its input's bound; so does the column
//                    plus or minus a constant interval, its offset moved by the interval
//   window           the input's bounds, plus window_end strictly above the time column's
//                    watermark (an event at t ≥ W only touches windows ending after t) and,
//                    for TUMBLE and HOP, window_start likewise with the window's size as
//                    offset (its window closes at window_start + size)
//   aggregate        a GROUP BY expression keeps its bound as a projection does (a group
//                    only changes through input rows with that value)
//   inner/semi join  an equi-key pair bounded on both sides keeps the bound on both output
//                    columns, with the sources of both (a change from either side matches
//                    rows with equal keys)
//   union            a column bounded in every input, with all their sources
//   top-N            a PARTITION BY column keeps its bound (ranks change within a partition)
//   anything else    nothing (outer joins, set operations, an unpartitioned top-N can revise
//                    old rows)

import { timeShiftSign } from '../expr/functions.js'
import type { ColumnWatermark } from '../catalog.js'
import type { LogicalPlan } from '../logical/plan.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { conjuncts } from '../logical/tree.js'

export type RelationWatermarks = (relation: string) => readonly ColumnWatermark[]

/** The length in µs of a constant interval expression of fixed length, else undefined. */
export type IntervalMicros = (e: ScalarExpr) => number | undefined

/** `interval` lets `#c ± constant interval` keep the bound of `#c` (without it, only plain
 *  column references do). */
export function watermarkColumns(p: LogicalPlan, relation: RelationWatermarks, interval?: IntervalMicros): ColumnWatermark[] {
  switch (p.kind) {
    case 'scan':
      return [...relation(p.relation)]
    case 'values':
    case 'setOp':
      return []
    case 'topK': {
      // a change only re-ranks its own partition: PARTITION BY columns keep their bounds, and
      // so do the columns a projection below copies from the same input column as one of them
      // (the binder copies `PARTITION BY window_end` into a column of its own)
      const inner = watermarkColumns(p.input, relation, interval)
      const kept = inner.filter((x) => p.partitionBy.includes(x.column))
      const input = p.input
      if (input.kind !== 'project') return kept
      const out = [...kept]
      for (const k of kept) {
        const e = input.exprs[k.column]!
        if (e.kind !== 'column') continue
        input.exprs.forEach((x, i) => {
          if (x.kind === 'column' && x.index === e.index && !out.some((o) => o.column === i)) out.push({ ...k, column: i })
        })
      }
      return out
    }
    case 'over':
      // a change only alters results within its own partition
      return watermarkColumns(p.input, relation, interval).filter((x) => p.partitionBy.includes(x.column))
    case 'filter':
    case 'sort':
    case 'distinct':
    case 'unnest':
      return watermarkColumns(p.input, relation, interval)
    case 'project':
      return passThrough(p.exprs, watermarkColumns(p.input, relation, interval), interval)
    case 'window': {
      const inner = watermarkColumns(p.input, relation, interval)
      const time = inner.find((x) => x.column === p.timeColumn)
      if (!time) return inner
      const offset = time.offset ?? 0
      const end: ColumnWatermark = { column: p.columns.length - 1, sources: time.sources, strict: true, ...(offset ? { offset } : {}) }
      // a session's start can move back and forth as events merge sessions: only its end is bounded
      if (p.spec.kind === 'session') return [...inner, end]
      return [...inner, { column: p.columns.length - 2, sources: time.sources, strict: true, offset: offset + p.spec.size }, end]
    }
    case 'aggregate':
      return passThrough(p.groupBy, watermarkColumns(p.input, relation, interval), interval)
    case 'join': {
      if ((p.joinType !== 'inner' && p.joinType !== 'semi') || !p.condition) return []
      const nl = p.left.columns.length
      const left = watermarkColumns(p.left, relation, interval)
      const right = watermarkColumns(p.right, relation, interval)
      const out: ColumnWatermark[] = []
      for (const c of conjuncts(p.condition)) {
        if (c.kind !== 'call' || c.fn !== 'eq' || c.args[0]!.kind !== 'column' || c.args[1]!.kind !== 'column') continue
        let a = c.args[0]!.index
        let b = c.args[1]!.index
        if (a >= nl) [a, b] = [b, a]
        if (a >= nl || b < nl) continue
        const wl = left.find((x) => x.column === a)
        const wr = right.find((x) => x.column === b - nl)
        if (!wl || !wr) continue
        const offset = Math.max(wl.offset ?? 0, wr.offset ?? 0)
        const merged = { sources: [...new Set([...wl.sources, ...wr.sources])], strict: wl.strict && wr.strict, ...(offset ? { offset } : {}) }
        out.push({ column: a, ...merged })
        if (p.joinType === 'inner') out.push({ column: b, ...merged })
      }
      return out
    }
    case 'timeJoin': {
      // left changes keep the left bounds; a right change re-matches only left rows whose time
      // is at or after the right time (for '>=' / '>'), so the left time column stays bounded
      // by both watermarks. A lookup never revises: only left changes reach the output.
      const left = watermarkColumns(p.left, relation, interval)
      if (p.mode === 'lookup') return left
      if (p.match !== '>=' && p.match !== '>') return []
      const lt = p.leftTime?.kind === 'column' ? left.find((w) => w.column === (p.leftTime as { index: number }).index && !w.offset) : undefined
      if (!lt || p.rightTime?.kind !== 'column') return []
      const rightSources = p.mode === 'temporal' ? versionedSources(p.right) : watermarkColumns(p.right, relation, interval).find((w) => w.column === (p.rightTime as { index: number }).index && !w.offset)?.sources
      if (!rightSources) return []
      return [{ column: lt.column, sources: [...new Set([...lt.sources, ...rightSources])], strict: false }]
    }
    case 'union': {
      const all = p.inputs.map((i) => watermarkColumns(i, relation, interval))
      const out: ColumnWatermark[] = []
      for (const w of all[0] ?? []) {
        const others = all.slice(1).map((ws) => ws.find((x) => x.column === w.column))
        if (others.some((o) => o === undefined)) continue
        const offset = Math.max(w.offset ?? 0, ...others.map((o) => o!.offset ?? 0))
        out.push({ column: w.column, sources: [...new Set([...w.sources, ...others.flatMap((o) => o!.sources)])], strict: w.strict && others.every((o) => o!.strict), ...(offset ? { offset } : {}) })
      }
      return out
    }
  }
}

/** The versioned table a temporal join's right side scans: its watermark bounds the version
 *  history. */
function versionedSources(p: LogicalPlan): string[] | undefined {
  if (p.kind === 'scan') return [p.relation]
  if (p.kind === 'project') return versionedSources(p.input)
  return undefined
}

/** Output column i keeps the bound of input column c when expression i is `#c`, or `#c`
 *  plus or minus a constant interval of fixed length k (then its value is off by k: the
 *  offset moves by −k or +k). */
function passThrough(exprs: readonly ScalarExpr[], inner: readonly ColumnWatermark[], interval: IntervalMicros | undefined): ColumnWatermark[] {
  const out: ColumnWatermark[] = []
  exprs.forEach((e, i) => {
    const moved = shifted(e, interval)
    if (moved === undefined) return
    const w = inner.find((x) => x.column === moved.column)
    if (!w) return
    const offset = (w.offset ?? 0) - moved.by
    out.push({ column: i, sources: w.sources, strict: w.strict, ...(offset ? { offset } : {}) })
  })
  return out
}

/** `#c` (by 0), `#c + k` / `k + #c` (by k) or `#c - k` (by −k) for a constant interval k. */
function shifted(e: ScalarExpr, interval: IntervalMicros | undefined): { column: number; by: number } | undefined {
  if (e.kind === 'column') return { column: e.index, by: 0 }
  if (e.kind !== 'call' || interval === undefined || e.args.length !== 2) return undefined
  const [a, b] = e.args as [ScalarExpr, ScalarExpr]
  const sign = timeShiftSign(e.fn)
  if (sign === undefined) return undefined
  const intervalFirst = e.fn === 'interval_add_ts' || e.fn === 'interval_add_tstz'
  const col = intervalFirst ? b : a
  const k = interval(intervalFirst ? a : b)
  if (col.kind !== 'column' || k === undefined) return undefined
  return { column: col.index, by: sign * k }
}

/** The column EMIT ON WINDOW CLOSE waits on: a bounded column named window_end, else the
 *  first strictly bounded one, else the first bounded one. */
export function emitColumn(p: LogicalPlan, bounds: readonly ColumnWatermark[]): ColumnWatermark | undefined {
  return bounds.find((w) => p.columns[w.column]?.name === 'window_end') ?? freeingBound(bounds)
}

/** The bound to free state by: a strict one without offset (window_end) reads best in
 *  EXPLAIN, then any strict one, then any. */
export function freeingBound(bounds: readonly ColumnWatermark[]): ColumnWatermark | undefined {
  return bounds.find((w) => w.strict && !w.offset) ?? bounds.find((w) => w.strict) ?? bounds[0]
}
