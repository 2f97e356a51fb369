// LogicalPlan → DeltaPlan. Linear nodes (filter, project, union) become map-filter-project
// steps; joins split their condition into equi-keys (arranged on each side) and a residual
// filter; set operations become negate + union + threshold/distinct; ORDER BY without LIMIT
// vanishes (a maintained view is a set; ad hoc reads sort at presentation).

import type { ScalarExpr } from '../expr/scalar.js'
import { col, lit, nullSafeKey } from '../expr/scalar.js'
import type { AggregateNode, Column, JoinNode, LogicalPlan, OverNode } from '../logical/plan.js'
import { conjoin, conjuncts, referencedColumns, remapColumns, substituteColumns } from '../logical/tree.js'
import { RivuletError, SqlState } from '../errors.js'
import { isIntegerType } from '../types.js'
import type { ArrangeDelta, DeltaPlan, SessionReduceDelta } from './delta-plan.js'
import { emitColumn, freeingBound, watermarkColumns, type RelationWatermarks } from './watermarks.js'
import { exactBounds, type ColumnWatermark } from '../catalog.js'
import { windowRetention, type WindowRetention } from './window-retention.js'
import { splitTemporal } from './temporal.js'
import { appendOnly, lowerIntervalJoin, lowerTimeJoin } from './time-joins.js'
import { insertOnlyPlan } from './insert-only.js'

export function lower(p: LogicalPlan, opts: LowerOptions = {}): DeltaPlan {
  switch (p.kind) {
    case 'scan':
      return { kind: 'input', relation: p.relation, columns: p.columns }
    case 'values':
      return { kind: 'constant', rows: p.rows, columns: p.columns }
    case 'filter': {
      const input = lower(p.input, opts)
      const split = splitTemporal(conjuncts(p.predicate))
      if (split.from.length === 0 && split.until.length === 0) return mfp(input, p.predicate, undefined, p.columns)
      // row-only conjuncts first, then the time bounds over what is left
      const rest = conjoin(split.rest)
      const filtered = rest ? mfp(input, rest, undefined, p.columns) : input
      return { kind: 'temporalFilter', input: filtered, from: split.from, until: split.until, columns: p.columns }
    }
    case 'project': {
      const input = lower(p.input, opts)
      if (isIdentity(p.exprs, input.columns.length)) return input.columns.every((c, i) => c.name === p.columns[i]?.name) ? input : withColumns(input, p.columns)
      return mfp(input, undefined, p.exprs, p.columns)
    }
    case 'join':
      return lowerJoin(p, opts)
    case 'aggregate': {
      const session = lowerSessionAggregate(p, opts)
      if (session) return session
      // Reduce keys on input columns: compute group expressions and aggregate arguments first.
      let input = lower(p.input, opts)
      let groupBy = p.groupBy
      let aggregates = p.aggregates
      // over an inner join, keep only the columns the aggregate reads: the join then builds
      // narrow rows (join and projection fuse), not the concatenation of both sides
      if (input.kind === 'join' && input.joinType === 'inner') {
        const used = new Set<number>()
        for (const g of groupBy) referencedColumns(g, used)
        for (const a of aggregates) {
          for (const e of a.args) referencedColumns(e, used)
          if (a.filter) referencedColumns(a.filter, used)
          for (const k of a.orderBy) referencedColumns(k.expr, used)
        }
        if (used.size < input.columns.length) {
          const keep = [...used].sort((x, y) => x - y)
          const at = new Map(keep.map((c, i) => [c, i]))
          const f = (e: ScalarExpr): ScalarExpr => remapColumns(e, (i) => at.get(i)!)
          const cols = input.columns
          input = mfp(input, undefined, keep.map((c) => col(c, cols[c]!.type)), keep.map((c) => cols[c]!))
          groupBy = groupBy.map(f)
          aggregates = aggregates.map((a) => ({ ...a, args: a.args.map(f), filter: a.filter ? f(a.filter) : undefined, orderBy: a.orderBy.map((k) => ({ ...k, expr: f(k.expr) })) }))
        }
      }
      const { plan: pre, cols: groupCols } = withExprColumns(input, groupBy, '__group')
      // a group whose key the watermark has passed can never change again: its state is freed
      const bounds = opts.watermarks ? watermarkColumns(p, opts.watermarks, opts.intervalMicros) : []
      const expire = freeingBound(bounds)
      const insertOnly = insertOnlyPlan(pre, opts.isAppendOnly)
      return { kind: 'reduce', input: pre, key: groupCols, aggregates, emitEmptyGroup: p.global, freeBy: expire, ...(insertOnly ? { insertOnlyInput: true as const } : {}), columns: p.columns }
    }
    case 'distinct':
      return { kind: 'distinct', input: lower(p.input, opts), columns: p.columns }
    case 'union':
      return { kind: 'union', inputs: p.inputs.map((i) => lower(i, opts)), columns: p.columns, ...(p.groupingSets !== undefined ? { groupingSets: p.groupingSets } : {}) }
    case 'setOp': {
      const l = lower(p.left, opts)
      const r = lower(p.right, opts)
      const cols = p.columns
      if (p.all) {
        // EXCEPT ALL = max(a − b, 0); INTERSECT ALL = min(a, b) = a − max(a − b, 0)
        const diff: DeltaPlan = { kind: 'threshold', input: { kind: 'union', inputs: [l, { kind: 'negate', input: r, columns: cols }], columns: cols }, columns: cols }
        if (p.op === 'except') return diff
        return { kind: 'union', inputs: [l, { kind: 'negate', input: diff, columns: cols }], columns: cols }
      }
      const dl: DeltaPlan = { kind: 'distinct', input: l, columns: cols }
      const dr: DeltaPlan = { kind: 'distinct', input: r, columns: cols }
      const diff: DeltaPlan = { kind: 'threshold', input: { kind: 'union', inputs: [dl, { kind: 'negate', input: dr, columns: cols }], columns: cols }, columns: cols }
      if (p.op === 'except') return diff
      return { kind: 'union', inputs: [dl, { kind: 'negate', input: diff, columns: cols }], columns: cols }
    }
    case 'topK':
      return {
        kind: 'topK',
        input: lower(p.input, opts),
        partitionBy: p.partitionBy,
        orderBy: p.orderBy,
        limit: p.limit,
        offset: p.offset,
        rowNumber: p.rowNumber,
        withTies: p.withTies,
        appendOnly: p.limit !== undefined && appendOnly(p.input, opts),
        columns: p.columns,
      }
    case 'over': {
      const input = lower(p.input, opts)
      const freeing = overFreeing(p, opts)
      // a partition the watermark has passed (a closed window_start) gets no more changes
      const bounds = opts.watermarks ? watermarkColumns(p.input, opts.watermarks, opts.intervalMicros) : []
      const partitionFreeBy = freeingBound(bounds.filter((w) => p.partitionBy.includes(w.column)))
      return { kind: 'over', input, partitionBy: p.partitionBy, orderBy: p.orderBy, functions: p.functions, ...freeing, ...(partitionFreeBy ? { partitionFreeBy } : {}), columns: p.columns }
    }
    case 'sort':
      return lower(p.input, opts)
    case 'timeJoin':
      return lowerTimeJoin(p, opts)
    case 'unnest':
      return { kind: 'unnest', input: lower(p.input, opts), array: p.array, columns: p.columns, ...(p.padded ? { padded: true } : {}) }
    case 'window': {
      // sessions the watermark has passed can never change again: their state is freed
      const time = opts.watermarks ? exactBounds(watermarkColumns(p.input, opts.watermarks)).find((w) => w.column === p.timeColumn) : undefined
      return { kind: 'window', input: lower(p.input, opts), spec: p.spec, timeColumn: p.timeColumn, freeBy: time, columns: p.columns }
    }
  }
}

/** Window functions over an append-only input ordered first by a column a watermark bounds
 *  (ascending, NULLs last): new rows arrive after every row the watermark passed, which can
 *  then be freed but for what window-retention.ts keeps. */
function overFreeing(p: OverNode, opts: LowerOptions): { freeBy: ColumnWatermark; retention: WindowRetention } | undefined {
  const key = p.orderBy[0]
  if (!opts.watermarks || key === undefined || key.desc || key.nullsFirst || key.expr.kind !== 'column') return undefined
  const column = key.expr.index
  const freeBy = exactBounds(watermarkColumns(p.input, opts.watermarks, opts.intervalMicros)).find((w) => w.column === column)
  const retention = windowRetention(p.functions)
  if (freeBy === undefined || retention === undefined || !appendOnly(p.input, opts)) return undefined
  return { freeBy, retention }
}

/** GROUP BY exactly (the partition columns, window_start, window_end) of a SESSION window —
 *  directly over it or through projections that only pick columns — with aggregates that
 *  read only the window's input columns: one SessionReduce instead of Reduce over the
 *  session window (which re-annotates a whole session whenever an event extends it). */
function lowerSessionAggregate(p: AggregateNode, opts: LowerOptions): SessionReduceDelta | undefined {
  if (p.global) return undefined
  // aggregate input column → window column, through column-picking projections
  let pick: number[] | undefined
  let node = p.input
  while (node.kind === 'project') {
    const exprs = node.exprs
    if (!exprs.every((e) => e.kind === 'column')) return undefined
    const idx = exprs.map((e) => (e as Extract<ScalarExpr, { kind: 'column' }>).index)
    pick = pick ? pick.map((i) => idx[i]!) : idx
    node = node.input
  }
  if (node.kind !== 'window' || node.spec.kind !== 'session') return undefined
  const win = node
  const spec = node.spec
  const width = win.input.columns.length
  const toWindow = (i: number): number => (pick ? pick[i]! : i)
  const key: number[] = []
  for (const g of p.groupBy) {
    if (g.kind !== 'column') return undefined
    const c = toWindow(g.index)
    if (c < width && !spec.partitionBy.includes(c)) return undefined
    key.push(c)
  }
  if (!key.includes(width) || !key.includes(width + 1) || !spec.partitionBy.every((c) => key.includes(c))) return undefined
  const remap = (e: ScalarExpr): ScalarExpr => (pick ? remapColumns(e, toWindow) : e)
  const aggregates = p.aggregates.map((a) => ({ ...a, args: a.args.map(remap), filter: a.filter ? remap(a.filter) : undefined, orderBy: a.orderBy.map((k) => ({ ...k, expr: remap(k.expr) })) }))
  const used = new Set<number>()
  for (const a of aggregates) {
    for (const e of a.args) referencedColumns(e, used)
    if (a.filter) referencedColumns(a.filter, used)
    for (const k of a.orderBy) referencedColumns(k.expr, used)
  }
  for (const c of used) if (c >= width) return undefined
  const freeBy = opts.watermarks ? exactBounds(watermarkColumns(win.input, opts.watermarks)).find((w) => w.column === win.timeColumn) : undefined
  return { kind: 'sessionReduce', input: lower(win.input, opts), spec, timeColumn: win.timeColumn, key, aggregates, freeBy, columns: p.columns }
}

export interface LowerOptions {
  /** Watermark bounds of the relations scanned; without it nothing is bounded. */
  readonly watermarks?: RelationWatermarks
  /** The length in µs of a constant interval expression (undefined: not constant, or has
   *  months); needed to recognize interval joins. */
  readonly intervalMicros?: (e: ScalarExpr) => number | undefined
  /** Does a base relation only receive insertions (a stream or an APPEND ONLY table)? */
  readonly isAppendOnly?: (relation: string) => boolean
  /** EMIT ON WINDOW CLOSE over an interval join: outer rows only once final. */
  readonly finalOuter?: boolean
  /** Can evaluating the expression never raise an error? (Undefined: assume it can.) */
  readonly neverRaises?: (e: ScalarExpr) => boolean
}

/** Lowers a query whose output is emitted only once final (EMIT ON WINDOW CLOSE): the rows
 *  wait in an EmitOnClose step until the watermark passes their window_end (or what their
 *  window closes at, for window_start and shifted bounds). Refused when no output column is
 *  bounded by a watermark.
 *
 *  A window's row is evaluated when it closes: the select list and HAVING over the final
 *  aggregate (the top Mfp) run after the EmitOnClose step, on the rows it emits, so a value
 *  of a window still open (a sum that is 0 for a while) never raises. Conjuncts that cannot
 *  raise still filter before it, so the waiting rows are no more than before. */
export function lowerEmitOnWindowClose(p: LogicalPlan, opts: LowerOptions = {}): DeltaPlan {
  const on = emitColumn(p, opts.watermarks ? watermarkColumns(p, opts.watermarks, opts.intervalMicros) : [])
  if (!on) {
    // an interval join of streams is final as it goes when it emits its null-extended rows
    // only once no match can arrive: pairs of append-only inputs are never retracted
    const final = lower(p, { ...opts, finalOuter: true })
    let top: DeltaPlan = final
    while (top.kind === 'mfp') top = top.input
    if (top.kind === 'intervalJoin' && top.finalOuter) return final
  }
  if (!on) throw new RivuletError(SqlState.featureNotSupported, 'EMIT ON WINDOW CLOSE needs an output column that a watermark bounds, such as window_end or window_start of a TUMBLE or HOP window, or window_end of a SESSION window, over a stream declared with WATERMARK FOR (selected or grouped by)')
  const emit = (input: DeltaPlan, column: number): DeltaPlan => ({ kind: 'emitOnClose', input, column, strict: on.strict, sources: on.sources, ...(on.offset ? { offset: on.offset } : {}), columns: input.columns })
  const plan = lower(p, opts)
  if (plan.kind !== 'mfp') return emit(plan, on.column)
  // the emit column, read below the Mfp: a column it passes through
  const projected = plan.projection === undefined ? { kind: 'column' as const, index: on.column } : plan.projection[on.column]
  if (projected?.kind !== 'column') return emit(plan, on.column)
  const safe = opts.neverRaises ?? (() => false)
  const conj = plan.predicate ? conjuncts(plan.predicate) : []
  const early = conj.filter(safe)
  const late = conj.filter((c) => !safe(c))
  if (late.length === 0 && (plan.projection ?? []).every(safe)) return emit(plan, on.column)
  const below = early.length > 0 ? mfp(plan.input, conjoin(early), undefined, plan.input.columns) : plan.input
  return { kind: 'mfp', input: emit(below, projected.index), predicate: conjoin(late), projection: plan.projection, columns: plan.columns }
}

function isIdentity(exprs: readonly ScalarExpr[], width: number): boolean {
  return exprs.length === width && exprs.every((e, i) => e.kind === 'column' && e.index === i)
}

function withColumns(p: DeltaPlan, columns: readonly Column[]): DeltaPlan {
  return { ...p, columns } as DeltaPlan
}

/** Builds a map-filter-project, fusing with an mfp input when possible. */
export function mfp(input: DeltaPlan, predicate: ScalarExpr | undefined, projection: readonly ScalarExpr[] | undefined, columns: readonly Column[]): DeltaPlan {
  if (input.kind === 'mfp') {
    if (predicate === undefined && projection !== undefined) {
      // project over mfp: compose the projections
      const inner = input.projection
      const composed = inner ? projection.map((e) => substituteColumns(e, inner)) : projection
      return { kind: 'mfp', input: input.input, predicate: input.predicate, projection: composed, columns }
    }
    if (predicate !== undefined && input.projection === undefined) {
      return { kind: 'mfp', input: input.input, predicate: conjoin([...(input.predicate ? conjuncts(input.predicate) : []), ...conjuncts(predicate)]), projection, columns }
    }
  }
  return { kind: 'mfp', input, predicate, projection, columns }
}

interface KeyPlan {
  readonly left: ScalarExpr[]
  readonly right: ScalarExpr[]
  readonly residual: ScalarExpr[]
  readonly leftOnly: ScalarExpr[]
  readonly rightOnly: ScalarExpr[]
}

/** Splits a join condition into equi-key pairs, one-sided conjuncts and the rest. */
function splitCondition(cond: ScalarExpr | undefined, nl: number): KeyPlan {
  const out: KeyPlan = { left: [], right: [], residual: [], leftOnly: [], rightOnly: [] }
  if (!cond) return out
  for (const c of conjuncts(cond)) {
    const refs = referencedColumns(c)
    const usesLeft = [...refs].some((i) => i < nl)
    const usesRight = [...refs].some((i) => i >= nl)
    if (c.kind === 'call' && c.fn === 'eq' && c.args.length === 2) {
      const a = c.args[0]!
      const b = c.args[1]!
      const ra = referencedColumns(a)
      const rb = referencedColumns(b)
      // a constant side pairs with a one-sided other side as a (constant) key, so
      // `5 = s.x` still gives a NOT IN anti join its key
      const aRight = ra.size > 0 && [...ra].every((i) => i >= nl)
      const bRight = rb.size > 0 && [...rb].every((i) => i >= nl)
      const aLeft = ra.size > 0 ? [...ra].every((i) => i < nl) : bRight
      const bLeft = rb.size > 0 ? [...rb].every((i) => i < nl) : aRight
      if (aLeft && bRight) {
        out.left.push(a)
        out.right.push(remapColumns(b, (i) => i - nl))
        continue
      }
      if (aRight && bLeft) {
        out.left.push(b)
        out.right.push(remapColumns(a, (i) => i - nl))
        continue
      }
    }
    if (usesLeft && !usesRight) out.leftOnly.push(c)
    else if (usesRight && !usesLeft) out.rightOnly.push(remapColumns(c, (i) => i - nl))
    else out.residual.push(c)
  }
  return out
}

function lowerJoin(p: JoinNode, opts: LowerOptions): DeltaPlan {
  const interval = lowerIntervalJoin(p, opts)
  if (interval) return interval
  let left = lower(p.left, opts)
  let right = lower(p.right, opts)
  const nl = left.columns.length
  const nr = right.columns.length
  const split = splitCondition(p.condition, nl)
  const t = p.joinType
  const leftKeys = split.left.map(withoutWidening)
  const rightKeys = split.right.map(withoutWidening)
  const post: ScalarExpr[] = []
  // One-sided conjuncts: filter the side whose rows may be dropped; on a preserved side they
  // decide matching, so they become part of the key (TRUE when they hold, NULL otherwise —
  // NULL keys never match).
  const leftPreserved = t === 'left' || t === 'full' || t === 'anti'
  const rightPreserved = t === 'right' || t === 'full'
  if (split.leftOnly.length > 0) {
    if (!leftPreserved) left = mfp(left, conjoin(split.leftOnly), undefined, left.columns)
    else {
      leftKeys.push({ kind: 'case', whens: [{ when: conjoin(split.leftOnly)!, then: lit(true, 'boolean') }], else: lit(null, 'boolean'), type: 'boolean' })
      rightKeys.push(lit(true, 'boolean'))
    }
  }
  if (split.rightOnly.length > 0) {
    if (!rightPreserved) right = mfp(right, conjoin(split.rightOnly), undefined, right.columns)
    else {
      rightKeys.push({ kind: 'case', whens: [{ when: conjoin(split.rightOnly)!, then: lit(true, 'boolean') }], else: lit(null, 'boolean'), type: 'boolean' })
      leftKeys.push(lit(true, 'boolean'))
    }
  }
  if (split.residual.length > 0 && (t === 'left' || t === 'right' || t === 'full')) return lower(outerThetaJoin(p), opts)
  if (split.residual.length > 0) {
    if (t !== 'inner') throw new RivuletError(SqlState.featureNotSupported, `${t === 'semi' || t === 'anti' ? 'a correlated subquery whose correlation is not an equality' : t.toUpperCase() + ' JOIN'} with a condition that is not an equality between the two sides is not supported yet`)
    post.push(...split.residual)
  }
  let la = arrange(left, leftKeys)
  let ra = arrange(right, rightKeys)
  if (t === 'inner' && opts.watermarks) [la, ra] = freeByWatermarks(p, la, ra, leftKeys, rightKeys, opts.watermarks)
  const columns = t === 'semi' || t === 'anti' ? left.columns : [...left.columns, ...right.columns]
  const join: DeltaPlan = {
    kind: 'join',
    joinType: t,
    nullAware: p.nullAwareAnti,
    left: la,
    right: ra,
    leftWidth: nl,
    rightWidth: nr,
    columns,
  }
  return post.length > 0 ? mfp(join, conjoin(post), undefined, columns) : join
}

/** An inner equi-join on a pair of key columns that watermarks bound on both sides (window
 *  joins on window_end, joins on event time): a left row whose key value the right side's
 *  watermark has passed can never be matched again (every later right change has a value at
 *  or above it), so the left arrangement forgets it, and symmetrically. */
function freeByWatermarks(p: JoinNode, la: ArrangeDelta, ra: ArrangeDelta, leftKeys: readonly ScalarExpr[], rightKeys: readonly ScalarExpr[], watermarks: RelationWatermarks): [ArrangeDelta, ArrangeDelta] {
  const lb = watermarkColumns(p.left, watermarks)
  const rb = watermarkColumns(p.right, watermarks)
  // a key bounded without offset on both sides first (window_end rather than window_start)
  for (const exact of [true, false]) {
    for (let i = 0; i < leftKeys.length; i++) {
      const lk = leftKeys[i]!
      const rk = rightKeys[i]!
      if (lk.kind !== 'column' || rk.kind !== 'column') continue
      const wl = lb.find((w) => w.column === lk.index && (!exact || !w.offset))
      const wr = rb.find((w) => w.column === rk.index && (!exact || !w.offset))
      if (!wl || !wr) continue
      return [
        { ...la, freeBy: { column: la.key[i]!, sources: wr.sources, strict: wr.strict, ...(wr.offset ? { offset: wr.offset } : {}) } },
        { ...ra, freeBy: { column: ra.key[i]!, sources: wl.sources, strict: wl.strict, ...(wl.offset ? { offset: wl.offset } : {}) } },
      ]
    }
  }
  return [la, ra]
}

/** `input` with `exprs` available as columns: plain column references stay, the others are
 *  computed into appended columns named `prefix` + n. Returns the plan and each expression's
 *  column. */
export function withExprColumns(input: DeltaPlan, exprs: readonly ScalarExpr[], prefix = '__key'): { plan: DeltaPlan; cols: number[] } {
  const width = input.columns.length
  const cols: number[] = []
  const extra: ScalarExpr[] = []
  for (const e of exprs) {
    if (e.kind === 'column') cols.push(e.index)
    else {
      cols.push(width + extra.length)
      extra.push(e)
    }
  }
  if (extra.length === 0) return { plan: input, cols }
  const columns = [...input.columns, ...extra.map((e, i) => ({ name: `${prefix}${i}`, type: e.type }))]
  return { plan: mfp(input, undefined, [...input.columns.map((c, i) => col(i, c.type)), ...extra], columns), cols }
}

/** A join key without the integer widenings the binder adds to compare INTEGER with BIGINT
 *  (`b.auction::bigint = a.id`): every integer type holds the same run-time number, so the
 *  key is equal either way, and a bare column keeps the arrangement on the input's own row
 *  objects instead of a copy of every row with the cast appended. */
function withoutWidening(e: ScalarExpr): ScalarExpr {
  while (e.kind === 'cast' && isIntegerType(e.arg.type) && isIntegerType(e.type) && INTEGER_WIDTH[e.type]! >= INTEGER_WIDTH[e.arg.type]!) e = e.arg
  return e
}
const INTEGER_WIDTH: Readonly<Record<string, number>> = { smallint: 2, integer: 4, bigint: 8 }

/** Arranges `input` by key expressions, appending computed key columns when needed. */
export function arrange(input: DeltaPlan, keys: readonly ScalarExpr[]): ArrangeDelta {
  const { plan, cols } = withExprColumns(input, keys)
  return { kind: 'arrange', input: plan, key: cols, columns: plan.columns }
}

/** An outer join whose condition is not only equalities: the inner join J, plus the rows of
 *  each preserved side that appear in no row of J (anti join on a NULL-safe key of the whole
 *  row, so duplicates and NULLs are matched exactly), padded with NULLs. */
function outerThetaJoin(p: JoinNode): LogicalPlan {
  const nl = p.left.columns.length
  const nr = p.right.columns.length
  const inner: LogicalPlan = { ...p, joinType: 'inner' }
  const parts: LogicalPlan[] = [inner]
  const side = (keep: LogicalPlan, offset: number, width: number, leftSide: boolean): LogicalPlan => {
    const cols = keep.columns
    const matchedSide: LogicalPlan = { kind: 'project', input: inner, exprs: cols.map((c, i) => col(offset + i, c.type)), columns: cols }
    // (a side pruned to no columns has only empty rows: all equal, so no key is needed)
    const cond: ScalarExpr | undefined = cols.length === 0 ? undefined : {
      kind: 'call',
      fn: 'eq',
      args: [nullSafeKey(cols.map((c, i) => col(i, c.type))), nullSafeKey(cols.map((c, i) => col(width + i, c.type)))],
      type: 'boolean',
    }
    const unmatched: LogicalPlan = { kind: 'join', joinType: 'anti', left: keep, right: matchedSide, condition: cond, nullAwareAnti: false, columns: cols }
    const pad = (cs: readonly Column[]) => cs.map((c) => lit(null, c.type))
    const exprs = leftSide ? [...cols.map((c, i) => col(i, c.type)), ...pad(p.right.columns)] : [...pad(p.left.columns), ...cols.map((c, i) => col(i, c.type))]
    return { kind: 'project', input: unmatched, exprs, columns: p.columns }
  }
  if (p.joinType === 'left' || p.joinType === 'full') parts.push(side(p.left, 0, nl, true))
  if (p.joinType === 'right' || p.joinType === 'full') parts.push(side(p.right, nl, nr, false))
  return { kind: 'union', inputs: parts, columns: p.columns }
}
