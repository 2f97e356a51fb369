// The logical plan: what a query computes, as plain immutable data (no closures, no runtime
// objects), so EXPLAIN can print it and rules can rewrite it. Every node lists its output
// columns; expressions reference the node's input columns by position (for joins: left
// columns first, then right).

import type { SqlType } from '../types.js'
import type { ScalarExpr } from '../expr/scalar.js'

export interface Column {
  readonly name: string
  readonly type: SqlType
}

export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'semi' | 'anti'

export interface SortKey {
  readonly expr: ScalarExpr
  readonly desc: boolean
  readonly nullsFirst: boolean
}

export type AggregateFunction =
  | 'count_rows'
  | 'count'
  | 'sum'
  | 'avg'
  | 'min'
  | 'max'
  | 'count_distinct'
  | 'sum_distinct'
  | 'avg_distinct'
  | 'string_agg'
  | 'array_agg'
  | 'jsonb_agg'
  | 'jsonb_object_agg'
  | 'bool_and'
  | 'bool_or'
  | 'var_samp'
  | 'var_pop'
  | 'stddev_samp'
  | 'stddev_pop'
  | 'bit_and'
  | 'bit_or'
  | 'bit_xor'
  | 'approx_count_distinct'
  | 'percentile_cont'
  | 'percentile_disc'
  | 'mode'
  | 'approx_percentile'
  | 'single_value'

export interface AggregateCall {
  readonly fn: AggregateFunction
  /** Arguments over the aggregate's input row (empty for count_rows). For string_agg:
   *  [value, delimiter]. jsonb_agg: [the value as jsonb]; jsonb_object_agg: [key, value as
   *  jsonb]. For the ordered-set aggregates (percentile_cont, percentile_disc,
   *  mode, approx_percentile): the direct arguments, constants (the fraction or an array of
   *  fractions; approx_percentile's optional relative error). */
  readonly args: readonly ScalarExpr[]
  /** ORDER BY inside the call (string_agg, array_agg, jsonb_agg, jsonb_object_agg); WITHIN GROUP (ORDER BY x) of an
   *  ordered-set aggregate: its one key is the aggregated value. */
  readonly orderBy: readonly SortKey[]
  readonly filter: ScalarExpr | undefined
  /** STRING_AGG(DISTINCT …): each distinct (value, delimiter) once; for the aggregates whose
   *  result depends on multiplicities (var_*, stddev_*, bit_xor): each distinct value once. */
  readonly distinct?: boolean
  readonly type: SqlType
}

export type LogicalPlan =
  | ScanNode
  | ValuesNode
  | FilterNode
  | ProjectNode
  | JoinNode
  | AggregateNode
  | DistinctNode
  | UnionNode
  | SetOpNode
  | TopKNode
  | SortNode
  | WindowNode
  | OverNode
  | TimeJoinNode
  | UnnestNode

/** Reads a table, stream or view by name. */
export interface ScanNode {
  readonly kind: 'scan'
  readonly relation: string
  readonly columns: readonly Column[]
}

/** Constant rows (VALUES, or the one empty row of a SELECT without FROM). */
export interface ValuesNode {
  readonly kind: 'values'
  readonly rows: readonly (readonly ScalarExpr[])[]
  readonly columns: readonly Column[]
  /** Rows of a system relation (pg_catalog.…) as of binding: what a view cannot keep up to
   *  date, so the engine refuses views over them. */
  readonly systemRelation?: string
}

export interface FilterNode {
  readonly kind: 'filter'
  readonly input: LogicalPlan
  readonly predicate: ScalarExpr
  readonly columns: readonly Column[]
}

export interface ProjectNode {
  readonly kind: 'project'
  readonly input: LogicalPlan
  readonly exprs: readonly ScalarExpr[]
  readonly columns: readonly Column[]
}

/** Joins. semi/anti output only the left columns; `nullAwareAnti` gives NOT IN semantics
 *  for a single equi-key. */
export interface JoinNode {
  readonly kind: 'join'
  readonly joinType: JoinType
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  /** Over left ++ right columns; undefined = cross product. */
  readonly condition: ScalarExpr | undefined
  readonly nullAwareAnti: boolean
  readonly columns: readonly Column[]
}

/** GROUP BY: output = group expressions, then aggregates. `global` (no GROUP BY) always has
 *  exactly one output row. */
export interface AggregateNode {
  readonly kind: 'aggregate'
  readonly input: LogicalPlan
  readonly groupBy: readonly ScalarExpr[]
  readonly aggregates: readonly AggregateCall[]
  readonly global: boolean
  readonly columns: readonly Column[]
}

export interface DistinctNode {
  readonly kind: 'distinct'
  readonly input: LogicalPlan
  readonly columns: readonly Column[]
}

/** UNION ALL of n inputs with the same column types. */
export interface UnionNode {
  readonly kind: 'union'
  readonly inputs: readonly LogicalPlan[]
  readonly columns: readonly Column[]
  /** GROUP BY GROUPING SETS / ROLLUP / CUBE: one input per grouping set, which this lists
   *  (for EXPLAIN, as `(a, b), (a), ()`). */
  readonly groupingSets?: string
}

/** INTERSECT / EXCEPT [ALL] (UNION DISTINCT is Distinct over Union). */
export interface SetOpNode {
  readonly kind: 'setOp'
  readonly op: 'intersect' | 'except'
  readonly all: boolean
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  readonly columns: readonly Column[]
}

/** ORDER BY … LIMIT/OFFSET, optionally per partition (ROW_NUMBER() … <= N, DISTINCT ON). With
 *  `rowNumber`, a last column holds the 1-based position within the partition. With
 *  `withTies` (FETCH FIRST n ROWS WITH TIES), the rows after the limit that are equal in
 *  `orderBy` to the last row within it come too. */
export interface TopKNode {
  readonly kind: 'topK'
  readonly input: LogicalPlan
  readonly partitionBy: readonly number[]
  readonly orderBy: readonly SortKey[]
  readonly limit: number | undefined
  readonly offset: number
  readonly rowNumber: boolean
  readonly withTies: boolean
  readonly columns: readonly Column[]
}

/** ORDER BY without LIMIT: only meaningful for an ad hoc read's presentation order; a
 *  maintained view is a set and drops it. */
export interface SortNode {
  readonly kind: 'sort'
  readonly input: LogicalPlan
  readonly orderBy: readonly SortKey[]
  readonly columns: readonly Column[]
}

/** How a window table function assigns rows to windows. Durations are microseconds. */
export type WindowSpec =
  | { readonly kind: 'tumble'; readonly size: number; readonly offset: number }
  | { readonly kind: 'hop'; readonly slide: number; readonly size: number; readonly offset: number }
  | { readonly kind: 'session'; readonly gap: number; readonly partitionBy: readonly number[] }

/** TUMBLE / HOP / SESSION: output = input columns, then `window_start`, `window_end` (the
 *  time column's type). Each input row appears once per window it falls in (HOP: several;
 *  rows with a NULL time: none). Windows are half-open [start, end). */
export interface WindowNode {
  readonly kind: 'window'
  readonly input: LogicalPlan
  readonly spec: WindowSpec
  /** The time column (DESCRIPTOR) of the input. */
  readonly timeColumn: number
  readonly columns: readonly Column[]
}

/** A window function's frame bound. `offset`: ROWS, a count of rows; RANGE, a distance in the
 *  ORDER BY column's unit (microseconds for a timestamp). */
export type FrameBoundSpec =
  | { readonly kind: 'unboundedPreceding' | 'currentRow' | 'unboundedFollowing' }
  | { readonly kind: 'preceding' | 'following'; readonly offset: number }

export interface FrameSpec {
  readonly mode: 'rows' | 'range'
  readonly start: FrameBoundSpec
  readonly end: FrameBoundSpec
}

export type WindowFunctionName = 'row_number' | 'rank' | 'dense_rank' | 'percent_rank' | 'cume_dist' | 'ntile' | 'lag' | 'lead' | 'first_value' | 'last_value' | 'nth_value' | WindowAggregate

/** The aggregates that work over a frame (their accumulators retract exactly). */
export type WindowAggregate = 'count_rows' | 'count' | 'sum' | 'avg' | 'min' | 'max' | 'string_agg' | 'array_agg' | 'bool_and' | 'bool_or'

/** One window function of an Over node. `args` are input columns: LAG/LEAD (value, default),
 *  FIRST/LAST/NTH_VALUE and aggregates (value); `offset` is LAG/LEAD's offset, NTH_VALUE's
 *  n and NTILE's number of buckets. Functions without a frame (ranks, LAG/LEAD) carry the default one. */
export interface WindowFunctionCall {
  readonly fn: WindowFunctionName
  readonly args: readonly ScalarExpr[]
  readonly offset: number
  readonly frame: FrameSpec
  readonly type: SqlType
}

/** Window functions OVER one (PARTITION BY, ORDER BY): output = the input columns, then one
 *  column per function. Partition and sort keys and arguments are input columns (the binder
 *  projects expressions first); peers of ORDER BY are ordered by the whole row, so ROW_NUMBER
 *  and LAG among peers do not depend on arrival order. */
export interface OverNode {
  readonly kind: 'over'
  readonly input: LogicalPlan
  readonly partitionBy: readonly number[]
  readonly orderBy: readonly SortKey[]
  readonly functions: readonly WindowFunctionCall[]
  readonly columns: readonly Column[]
}

/** How a time join picks its one right row: `l.time OP r.time`. '>=': the right row with the
 *  greatest time at or before the left row's; '>': strictly before; '<=' / '<': the least
 *  time at or after / strictly after. */
export type AsOfMatch = '>=' | '>' | '<=' | '<'

/** Joins whose match depends on time, not only on a condition. Output = left ++
 *  right columns; `outer` null-extends left rows without a match (LEFT).
 *  - `asof`: ASOF JOIN: among the right rows with equal keys, the one nearest in time in the
 *    direction of `match` (ties: the least row).
 *  - `temporal`: `FOR SYSTEM_TIME AS OF l.ts` on a versioned table (`right` is its scan): the
 *    version valid at the left row's time (an asof '>=' over the table's version history,
 *    where a deletion is a version that matches nothing). Revised when versions arrive late.
 *  - `lookup`: `FOR SYSTEM_TIME AS OF PROCTIME()`: the right rows as they are when the left
 *    row arrives; never revised.
 *  `residual` (over left ++ right) decides whether the picked row matches: a temporal or asof
 *  candidate that fails it leaves the left row unmatched; for lookup it filters candidates. */
export interface TimeJoinNode {
  readonly kind: 'timeJoin'
  readonly mode: 'asof' | 'temporal' | 'lookup'
  readonly outer: boolean
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  /** Equi-keys: leftKeys[i] (over left columns) = rightKeys[i] (over right columns). */
  readonly leftKeys: readonly ScalarExpr[]
  readonly rightKeys: readonly ScalarExpr[]
  /** asof / temporal: the time of each side (temporal: the version-time column). */
  readonly leftTime: ScalarExpr | undefined
  readonly rightTime: ScalarExpr | undefined
  readonly match: AsOfMatch
  readonly residual: ScalarExpr | undefined
  readonly columns: readonly Column[]
}

/** `unnest(array)` in FROM: each input row once per element of `array` (an expression over
 *  the input row), the element appended as the last column; a NULL or empty array gives no
 *  rows, or, `padded` (LEFT JOIN LATERAL … ON TRUE), the row once with NULL. Standalone, its
 *  input is one empty row; beside another FROM item it reads that item's rows (a function in
 *  FROM is implicitly LATERAL). */
export interface UnnestNode {
  readonly kind: 'unnest'
  readonly input: LogicalPlan
  readonly array: ScalarExpr
  readonly padded?: boolean
  readonly columns: readonly Column[]
}
