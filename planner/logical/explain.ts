// Deterministic indented printer for logical plans (EXPLAIN LOGICAL / OPTIMIZED, rule tests).

import { printScalar } from '../expr/print.js'
import type { FrameBoundSpec, FrameSpec, LogicalPlan, SortKey, TimeJoinNode, WindowFunctionCall, WindowSpec } from './plan.js'
import { children } from './tree.js'

export function printSortKeys(keys: readonly SortKey[]): string {
  return keys.map((k) => `${printScalar(k.expr)}${k.desc ? ' DESC' : ''}${k.nullsFirst !== k.desc ? (k.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ')
}

function line(p: LogicalPlan): string {
  switch (p.kind) {
    case 'scan':
      return `Scan ${p.relation}`
    case 'values':
      return `Values rows=${p.rows.length}`
    case 'filter':
      return `Filter ${printScalar(p.predicate)}`
    case 'project':
      return `Project ${p.exprs.map(printScalar).join(', ')}`
    case 'join':
      return `Join ${p.joinType}${p.nullAwareAnti ? ' null-aware' : ''}${p.condition ? ' on ' + printScalar(p.condition) : ''}`
    case 'aggregate':
      return `Aggregate${p.groupBy.length ? ' group=[' + p.groupBy.map(printScalar).join(', ') + ']' : ' global'} aggs=[${p.aggregates.map((a) => `${a.fn}(${a.args.map(printScalar).join(', ')})`).join(', ')}]`
    case 'distinct':
      return 'Distinct'
    case 'union':
      return p.groupingSets !== undefined ? `Union all of grouping sets ${p.groupingSets}` : 'Union all'
    case 'setOp':
      return `${p.op === 'except' ? 'Except' : 'Intersect'}${p.all ? ' all' : ''}`
    case 'topK':
      return `TopK${p.partitionBy.length ? ' partition=[' + p.partitionBy.map((i) => '#' + i).join(', ') + ']' : ''} order=[${printSortKeys(p.orderBy)}]${p.limit !== undefined ? ' limit=' + p.limit : ''}${p.offset ? ' offset=' + p.offset : ''}${p.withTies ? ' with_ties' : ''}${p.rowNumber ? ' row_number' : ''}`
    case 'sort':
      return `Sort ${printSortKeys(p.orderBy)}`
    case 'window':
      return `Window ${describeWindow(p.spec)} on #${p.timeColumn}`
    case 'over':
      return `Over ${describeOver(p)}`
    case 'unnest':
      return `Unnest${p.padded ? ' padded' : ''} ${printScalar(p.array)}`
    case 'timeJoin':
      return `TimeJoin ${describeTimeJoin(p)}`
  }
}

/** `temporal left keys=[#0 = #1] at #2 >= #4 where …`, as EXPLAIN prints a time join. */
export function describeTimeJoin(p: Pick<TimeJoinNode, 'mode' | 'outer' | 'leftKeys' | 'rightKeys' | 'leftTime' | 'rightTime' | 'match' | 'residual'>, rightOffset = 0): string {
  const keys = p.leftKeys.map((k, i) => `${printScalar(k)} = ${printScalar(p.rightKeys[i]!)}`).join(', ')
  const right = (e: string): string => (rightOffset ? `right.${e}` : e)
  const time = p.leftTime && p.rightTime ? ` at ${printScalar(p.leftTime)} ${p.match} ${right(printScalar(p.rightTime))}` : ''
  return `${p.mode}${p.outer ? ' left' : ''} keys=[${keys}]${time}${p.residual ? ' where ' + printScalar(p.residual) : ''}`
}

/** `partition=[#0] order=[#1] fns=[lag(#2, 1), sum(#2) rows 1 preceding..current row]`. */
export function describeOver(p: { readonly partitionBy: readonly number[]; readonly orderBy: readonly SortKey[]; readonly functions: readonly WindowFunctionCall[] }): string {
  const part = p.partitionBy.length ? `partition=[${p.partitionBy.map((i) => '#' + i).join(', ')}] ` : ''
  const order = p.orderBy.length ? `order=[${printSortKeys(p.orderBy)}] ` : ''
  // RANGE offsets over a timestamp are microseconds: printed as durations
  const timed = p.orderBy[0]?.expr.type === 'timestamp' || p.orderBy[0]?.expr.type === 'timestamptz'
  return `${part}${order}fns=[${p.functions.map((f) => describeWindowFunction(f, timed)).join(', ')}]`
}

function describeWindowFunction(w: WindowFunctionCall, timed: boolean): string {
  const args = w.args.map(printScalar)
  if (w.fn === 'lag' || w.fn === 'lead' || w.fn === 'nth_value' || w.fn === 'ntile') args.splice(1, 0, String(w.offset))
  const call = `${w.fn === 'count_rows' ? 'count(*)' : `${w.fn}(${args.join(', ')})`}`
  const framed = w.fn !== 'row_number' && w.fn !== 'rank' && w.fn !== 'dense_rank' && w.fn !== 'percent_rank' && w.fn !== 'cume_dist' && w.fn !== 'ntile' && w.fn !== 'lag' && w.fn !== 'lead'
  return framed ? `${call} ${describeFrame(w.frame, timed)}` : call
}

/** `rows 2 preceding..current row`, `range 10min preceding..current row` (`timed`: RANGE
 *  offsets are microseconds of a timestamp). */
export function describeFrame(f: FrameSpec, timed: boolean): string {
  return `${f.mode} ${frameBound(f.start, f.mode === 'range' && timed)}..${frameBound(f.end, f.mode === 'range' && timed)}`
}

function frameBound(b: FrameBoundSpec, timed: boolean): string {
  switch (b.kind) {
    case 'unboundedPreceding':
      return 'unbounded preceding'
    case 'unboundedFollowing':
      return 'unbounded following'
    case 'currentRow':
      return 'current row'
    case 'preceding':
    case 'following':
      return `${timed ? duration(b.offset) : b.offset} ${b.kind}`
  }
}

/** `tumble size=10s`, `hop slide=2s size=10s`, `session gap=30s partition=[#1]`. */
export function describeWindow(w: WindowSpec): string {
  switch (w.kind) {
    case 'tumble':
      return `tumble size=${duration(w.size)}${w.offset ? ' offset=' + duration(w.offset) : ''}`
    case 'hop':
      return `hop slide=${duration(w.slide)} size=${duration(w.size)}${w.offset ? ' offset=' + duration(w.offset) : ''}`
    case 'session':
      return `session gap=${duration(w.gap)}${w.partitionBy.length ? ' partition=[' + w.partitionBy.map((i) => '#' + i).join(', ') + ']' : ''}`
  }
}

/** A duration in µs as the largest exact unit: 10s, 5min, 1h, 2d, 1500ms, 7us. */
export function duration(us: number): string {
  const units: [number, string][] = [[86_400_000_000, 'd'], [3_600_000_000, 'h'], [60_000_000, 'min'], [1_000_000, 's'], [1000, 'ms']]
  for (const [n, u] of units) if (us !== 0 && us % n === 0) return `${us / n}${u}`
  return `${us}us`
}

export function explainLogical(p: LogicalPlan, indent = 0): string {
  const own = '  '.repeat(indent) + line(p)
  return [own, ...children(p).map((c) => explainLogical(c, indent + 1))].join('\n')
}
