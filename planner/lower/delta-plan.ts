// The delta plan: the operators a view runs, as plain data. Every stateful operator names
// the arrangement (index) it keeps or reads; `src/engine/render.ts` turns this into ivm operators,
// sharing identical arrangements between views.

import type { AggregateCall, AsOfMatch, Column, SortKey, WindowFunctionCall, WindowSpec } from '../logical/plan.js'
import type { ColumnWatermark } from '../catalog.js'
import type { TimeBound } from './temporal.js'
import type { WindowRetention } from './window-retention.js'
import type { ScalarExpr } from '../expr/scalar.js'

export type DeltaPlan =
  | InputDelta
  | ConstantDelta
  | MfpDelta
  | ArrangeDelta
  | JoinDelta
  | ReduceDelta
  | SessionReduceDelta
  | DistinctDelta
  | ThresholdDelta
  | NegateDelta
  | UnionDelta
  | TopKDelta
  | OverDelta
  | WindowDelta
  | UnnestDelta
  | EmitOnCloseDelta
  | TemporalFilterDelta
  | AsOfJoinDelta
  | LookupJoinDelta
  | IntervalJoinDelta

/** Changes of a table, stream or materialized view. With `versions`, the version history
 *  of a versioned table instead: its columns plus `__live` (false for a deletion). */
export interface InputDelta {
  readonly kind: 'input'
  readonly relation: string
  readonly versions?: true
  readonly columns: readonly Column[]
}

/** Constant rows (emitted once, when the view is created). */
export interface ConstantDelta {
  readonly kind: 'constant'
  readonly rows: readonly (readonly ScalarExpr[])[]
  readonly columns: readonly Column[]
}

/** Map-filter-project: keep rows where `predicate` holds, then compute `projection`.
 *  Linear, stateless. */
export interface MfpDelta {
  readonly kind: 'mfp'
  readonly input: DeltaPlan
  readonly predicate: ScalarExpr | undefined
  readonly projection: readonly ScalarExpr[] | undefined
  readonly columns: readonly Column[]
}

/** Index of the input's integral by key columns. Shared by every reader with the same
 *  input and key. */
export interface ArrangeDelta {
  readonly kind: 'arrange'
  readonly input: DeltaPlan
  readonly key: readonly number[]
  /** A key column whose rows the reader no longer needs once the watermark passes them
   *  (an inner join on event time whose other side can no longer produce the value). Such
   *  an arrangement is private to its reader. */
  readonly freeBy?: ColumnWatermark
  readonly columns: readonly Column[]
}

/** Equi-join of two arrangements on their keys. inner/left/right/full output left ++ right
 *  columns; semi/anti output the left columns. */
export interface JoinDelta {
  readonly kind: 'join'
  readonly joinType: 'inner' | 'left' | 'right' | 'full' | 'semi' | 'anti'
  readonly nullAware: boolean
  readonly left: ArrangeDelta
  readonly right: ArrangeDelta
  /** Columns of each side that belong to the output (key helper columns are dropped). */
  readonly leftWidth: number
  readonly rightWidth: number
  readonly columns: readonly Column[]
}

/** Grouped aggregation keyed by the input's first `keyWidth`… no: by `key` columns. Output
 *  = key columns then aggregate results. State: per-group accumulators. */
export interface ReduceDelta {
  readonly kind: 'reduce'
  readonly input: DeltaPlan
  readonly key: readonly number[]
  readonly aggregates: readonly AggregateCall[]
  readonly emitEmptyGroup: boolean
  /** A watermark-bounded output key column: a group is dropped from state once final. */
  readonly freeBy?: ColumnWatermark | undefined
  /** The input only ever inserts (insert-only.ts): MIN and MAX keep only the extreme, not
   *  every value with its count. */
  readonly insertOnlyInput?: true
  readonly columns: readonly Column[]
}

/** GROUP BY (the partition columns, window_start, window_end) over SESSION, fused into one
 *  operator: the session window's input goes in, the Reduce's rows come out (key columns in
 *  `key` order, then the aggregates). An event that extends a session updates that session's
 *  accumulators instead of re-annotating every row of it. State: per partition the events by
 *  time and per session the accumulators. */
export interface SessionReduceDelta {
  readonly kind: 'sessionReduce'
  /** The session window's input. */
  readonly input: DeltaPlan
  readonly spec: Extract<WindowSpec, { kind: 'session' }>
  readonly timeColumn: number
  /** Over the window's columns: the input's columns (each a partition column), then
   *  window_start (= the input's width) and window_end (= width + 1). */
  readonly key: readonly number[]
  /** Over the input's columns. */
  readonly aggregates: readonly AggregateCall[]
  /** The watermark bounding the time column, if any: sessions it has passed are freed. */
  readonly freeBy: ColumnWatermark | undefined
  readonly columns: readonly Column[]
}

export interface DistinctDelta {
  readonly kind: 'distinct'
  readonly input: DeltaPlan
  readonly columns: readonly Column[]
}

/** Keeps max(weight, 0) of each row's integrated weight (EXCEPT/INTERSECT). */
export interface ThresholdDelta {
  readonly kind: 'threshold'
  readonly input: DeltaPlan
  readonly columns: readonly Column[]
}

export interface NegateDelta {
  readonly kind: 'negate'
  readonly input: DeltaPlan
  readonly columns: readonly Column[]
}

export interface UnionDelta {
  readonly kind: 'union'
  readonly inputs: readonly DeltaPlan[]
  readonly columns: readonly Column[]
  /** The grouping sets whose aggregates these inputs are (GROUP BY GROUPING SETS / ROLLUP /
   *  CUBE), for EXPLAIN. */
  readonly groupingSets?: string
}

/** Per-partition ORDER BY … LIMIT/OFFSET, optionally appending ROW_NUMBER. */
export interface TopKDelta {
  readonly kind: 'topK'
  readonly input: DeltaPlan
  readonly partitionBy: readonly number[]
  readonly orderBy: readonly SortKey[]
  readonly limit: number | undefined
  readonly offset: number
  readonly rowNumber: boolean
  /** FETCH FIRST n ROWS WITH TIES: the rows tied in `orderBy` with the last within the limit
   *  come too (append-only: partitions keep those ties as well). */
  readonly withTies: boolean
  /** The input only inserts (a stream through row-wise steps) and there is a limit: a row
   *  pushed past offset + limit can never come back, so each partition keeps only its first
   *  offset + limit rows. */
  readonly appendOnly: boolean
  readonly columns: readonly Column[]
}

/** Window functions OVER (PARTITION BY, ORDER BY): the input row, then one column per
 *  function. State: per partition its rows in order (and, for aggregates whose frame reaches a
 *  partition edge, the partition's total). */
export interface OverDelta {
  readonly kind: 'over'
  readonly input: DeltaPlan
  readonly partitionBy: readonly number[]
  readonly orderBy: readonly SortKey[]
  readonly functions: readonly WindowFunctionCall[]
  /** Append-only input whose first ORDER BY column (ascending, NULLs last) this watermark
   *  bounds: passed rows are freed but for `retention`. */
  readonly freeBy?: ColumnWatermark | undefined
  readonly retention?: WindowRetention | undefined
  /** A PARTITION BY column a watermark bounds: a partition it has passed can no longer
   *  change and is freed whole. */
  readonly partitionFreeBy?: ColumnWatermark | undefined
  readonly columns: readonly Column[]
}

/** TUMBLE / HOP (stateless: a map / flat-map) and SESSION (per-partition sessions). */
export interface WindowDelta {
  readonly kind: 'window'
  readonly input: DeltaPlan
  readonly spec: WindowSpec
  readonly timeColumn: number
  /** The watermark bounding the time column, if any: sessions it has passed are freed. */
  readonly freeBy: ColumnWatermark | undefined
  readonly columns: readonly Column[]
}

/** unnest(array): each input row once per element, the element appended (stateless: a
 *  flat-map); `padded`: a row with no element once, with NULL. */
export interface UnnestDelta {
  readonly kind: 'unnest'
  readonly input: DeltaPlan
  readonly array: ScalarExpr
  readonly padded?: boolean
  readonly columns: readonly Column[]
}

/** EMIT ON WINDOW CLOSE: holds changes until the watermark makes `column` final, then
 *  emits them once. State: the pending rows. */
export interface EmitOnCloseDelta {
  readonly kind: 'emitOnClose'
  readonly input: DeltaPlan
  readonly column: number
  readonly strict: boolean
  readonly sources: readonly string[]
  /** µs the column's value lacks to be its close time (window_start: the window's size). */
  readonly offset?: number
  readonly columns: readonly Column[]
}

/** A filter on processing time: each row is visible while NOW() is within its bounds
 *  (`from`: now ≥ expr, or > when the edge is excluded; `until`: now < expr, or ≤ when the
 *  edge is included). State: the changes scheduled for later times. */
export interface TemporalFilterDelta {
  readonly kind: 'temporalFilter'
  readonly input: DeltaPlan
  readonly from: readonly TimeBound[]
  readonly until: readonly TimeBound[]
  readonly columns: readonly Column[]
}

/** ASOF JOIN and event-time temporal joins: each left row joins the one right row with
 *  equal keys nearest in time (`match`); rows whose `live` column is false are deletions
 *  (versions that match nothing). Output = left ++ right columns. State: both sides' rows
 *  by key and time, freed below the watermarks when both times are bounded. */
export interface AsOfJoinDelta {
  readonly kind: 'asofJoin'
  readonly left: DeltaPlan
  readonly right: DeltaPlan
  readonly leftKey: readonly number[]
  readonly rightKey: readonly number[]
  readonly leftTime: number
  readonly rightTime: number
  readonly match: AsOfMatch
  readonly outer: boolean
  readonly live: number | undefined
  readonly leftBound: ColumnWatermark | undefined
  readonly rightBound: ColumnWatermark | undefined
  readonly columns: readonly Column[]
}

/** Processing-time lookup (`FOR SYSTEM_TIME AS OF PROCTIME()`): each left row joins the
 *  right arrangement as it is when the row arrives; right changes emit nothing. State:
 *  none for append-only input, else what each left row emitted. */
export interface LookupJoinDelta {
  readonly kind: 'lookupJoin'
  readonly left: DeltaPlan
  readonly right: ArrangeDelta
  readonly leftKey: readonly number[]
  readonly outer: boolean
  readonly leftAppendOnly: boolean
  /** Over left ++ right columns. */
  readonly residual: ScalarExpr | undefined
  readonly columns: readonly Column[]
}

/** Interval join between streams: pairs with equal keys and lower ⊲ r.time − l.time ⊲
 *  upper. State: both sides' rows by key and time, freed once the other side's watermark
 *  is past their band. */
export interface IntervalJoinDelta {
  readonly kind: 'intervalJoin'
  readonly joinType: 'inner' | 'left' | 'right' | 'full'
  readonly left: DeltaPlan
  readonly right: DeltaPlan
  readonly leftKey: readonly number[]
  readonly rightKey: readonly number[]
  readonly leftTime: number
  readonly rightTime: number
  readonly lower: number
  readonly upper: number
  readonly lowerInclusive: boolean
  readonly upperInclusive: boolean
  /** Over left ++ right columns. */
  readonly residual: ScalarExpr | undefined
  readonly leftBound: ColumnWatermark
  readonly rightBound: ColumnWatermark
  /** EMIT ON WINDOW CLOSE: null-extended rows only once no match can arrive. */
  readonly finalOuter: boolean
  readonly columns: readonly Column[]
}

export function deltaChildren(p: DeltaPlan): readonly DeltaPlan[] {
  switch (p.kind) {
    case 'input':
    case 'constant':
      return []
    case 'join':
    case 'asofJoin':
    case 'lookupJoin':
    case 'intervalJoin':
      return [p.left, p.right]
    case 'union':
      return p.inputs
    default:
      return [p.input]
  }
}
