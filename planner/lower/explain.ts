// Prints a delta plan as an indented tree, one operator a line, with the state each
// stateful operator keeps (EXPLAIN / EXPLAIN MATERIALIZED VIEW).

import { printScalar } from '../expr/print.js'
import { describeOver, describeWindow, duration, printSortKeys } from '../logical/explain.js'
import type { DeltaPlan } from './delta-plan.js'
import type { AggregateFunction } from '../logical/plan.js'
import { deltaChildren } from './delta-plan.js'

function keys(k: readonly number[]): string {
  return `[${k.map((i) => '#' + i).join(', ')}]`
}

export function deltaLine(p: DeltaPlan): string {
  switch (p.kind) {
    case 'input':
      return `Input ${p.relation}${p.versions ? ' versions' : ''}`
    case 'constant':
      return `Constant rows=${p.rows.length}`
    case 'mfp': {
      const parts: string[] = []
      if (p.predicate) parts.push(`filter=${printScalar(p.predicate)}`)
      if (p.projection) parts.push(`map=[${p.projection.map(printScalar).join(', ')}]`)
      return `Mfp ${parts.join(' ')}`
    }
    case 'arrange':
      return `Arrange key=${keys(p.key)}  // state: arrangement of input rows by ${keys(p.key)}; ${p.freeBy ? `bounded: a row is freed once ${watermarkText(p.freeBy.sources)} ${p.freeBy.strict ? '≥' : '>'} its #${p.freeBy.column}${offsetText(p.freeBy.offset)}` : 'unbounded'}`
    case 'join':
      return `Join ${p.joinType}${p.nullAware ? ' null-aware' : ''} on left${keys(p.left.key)} = right${keys(p.right.key)}  // state: reads both arrangements`
    case 'reduce':
      return `Reduce key=${keys(p.key)} aggs=[${p.aggregates.map((a) => `${a.fn}(${a.args.map(printScalar).join(', ')})${p.insertOnlyInput && isExtreme(a.fn) ? ' [append-only]' : ''}`).join(', ')}]  // state: accumulators per group; ${p.freeBy ? `bounded: a group is freed once ${watermarkText(p.freeBy.sources)} ${p.freeBy.strict ? '≥' : '>'} its ${p.columns[p.freeBy.column]?.name ?? '#' + p.freeBy.column}${offsetText(p.freeBy.offset)}` : p.key.length === 0 ? 'bounded: one group' : 'unbounded'}`
    case 'sessionReduce': {
      const width = p.input.columns.length
      const keyText = p.key.map((k) => (k === width ? 'window_start' : k === width + 1 ? 'window_end' : '#' + k)).join(', ')
      return `SessionReduce ${describeWindow(p.spec).replace(/^session /, '')} on #${p.timeColumn} key=[${keyText}] aggs=[${p.aggregates.map((a) => `${a.fn}(${a.args.map(printScalar).join(', ')})`).join(', ')}]  // state: events and accumulators per session; ${p.freeBy ? `bounded: a session is freed once ${watermarkText(p.freeBy.sources)} ≥ its window_end` : 'unbounded'}`
    }
    case 'distinct':
      return 'Distinct  // state: weight per row; unbounded'
    case 'threshold':
      return 'Threshold  // state: weight per row; unbounded'
    case 'negate':
      return 'Negate'
    case 'union':
      return p.groupingSets !== undefined ? `Union of grouping sets ${p.groupingSets}  // state: none (one Reduce per set below keeps its own)` : 'Union'
    case 'topK':
      return `TopK${p.partitionBy.length ? ' partition=' + keys(p.partitionBy) : ''} order=[${printSortKeys(p.orderBy)}]${p.limit !== undefined ? ' limit=' + p.limit : ''}${p.offset ? ' offset=' + p.offset : ''}${p.withTies ? ' with_ties' : ''}${p.rowNumber ? ' row_number' : ''}  // state: ${!p.appendOnly ? 'ordered rows per partition; unbounded' : p.withTies ? `the first ${p.offset + p.limit!} rows per partition and their ties (append-only input)` : p.offset + p.limit! === 1 ? 'one row per partition (append-only input)' : `the first ${p.offset + p.limit!} rows per partition (append-only input)`}`
    case 'over': {
      const totals = p.functions.filter((f) => isWindowAggregate(f.fn) && (f.frame.start.kind === 'unboundedPreceding' || f.frame.end.kind === 'unboundedFollowing')).length
      const kept = p.retention === undefined ? '' : [p.retention.rows > 0 ? `the last ${p.retention.rows}` : '', p.retention.distance > 0 ? `those within ${(p.columns[p.freeBy!.column]?.type === 'timestamp' || p.columns[p.freeBy!.column]?.type === 'timestamptz') ? duration(p.retention.distance) : p.retention.distance} of it` : ''].filter((x) => x).join(' and ')
      const pf = p.partitionFreeBy
      const rowsFreed = p.freeBy ? `rows are freed once ${watermarkText(p.freeBy.sources)} passes their #${p.freeBy.column}${kept ? ` (but for ${kept})` : ''}` : ''
      const partsFreed = pf ? `a partition is freed once ${watermarkText(pf.sources)} ${pf.strict ? '≥' : '>'} its #${pf.column}${offsetText(pf.offset)}` : ''
      const bound = rowsFreed || partsFreed ? `bounded: ${[rowsFreed, partsFreed].filter((x) => x).join('; ')}` : 'unbounded (not freed: the input retracts, or no watermark bounds the first ORDER BY column or a PARTITION BY column)'
      return `Over ${describeOver(p)}  // state: rows per partition in order${totals > 0 ? `, ${totals} partition total${totals > 1 ? 's' : ''} (frames reaching a partition edge)` : ''}; a change recomputes only the rows it reaches; ${bound}`
    }
    case 'unnest':
      return `Unnest${p.padded ? ' padded' : ''} ${printScalar(p.array)}`
    case 'window':
      if (p.spec.kind !== 'session') return `Window ${describeWindow(p.spec)} on #${p.timeColumn}`
      return `Window ${describeWindow(p.spec)} on #${p.timeColumn}  // state: events per partition; ${p.freeBy ? `bounded: a session is freed once ${watermarkText(p.freeBy.sources)} ≥ its window_end` : 'unbounded'}`
    case 'temporalFilter': {
      const b = [...p.from.map((f) => `now ${f.edgeIncluded ? '>=' : '>'} ${printScalar(f.expr)}`), ...p.until.map((u) => `now ${u.edgeIncluded ? '<=' : '<'} ${printScalar(u.expr)}`)]
      return `TemporalFilter ${b.join(' and ')}  // state: changes scheduled for later times; bounded: a row leaves state once its last change is due`
    }
    case 'asofJoin': {
      const keysText = p.leftKey.map((k, i) => `left#${k} = right#${p.rightKey[i]}`).join(', ')
      const freed = (p.match === '>=' || p.match === '>') && p.leftBound && p.rightBound
      const kind = p.live !== undefined ? 'TemporalJoin' : 'AsOfJoin'
      return `${kind}${p.outer ? ' left' : ''} keys=[${keysText}] at left#${p.leftTime} ${p.match} right#${p.rightTime}  // state: both sides' rows by key and time; ${freed ? `bounded: left rows freed once ${watermarkText(p.rightBound!.sources)} passes them, right rows once a newer one is below ${watermarkText([...new Set([...p.leftBound!.sources, ...p.rightBound!.sources])])}` : 'unbounded'}`
    }
    case 'lookupJoin':
      return `LookupJoin${p.outer ? ' left' : ''} on left${keys(p.leftKey)} = right${keys(p.right.key)}${p.residual ? ' where ' + printScalar(p.residual) : ''}  // state: ${p.leftAppendOnly ? 'none (reads the arrangement as rows arrive)' : 'the rows each left row emitted; unbounded'}`
    case 'intervalJoin': {
      const keysText = p.leftKey.map((k, i) => `left#${k} = right#${p.rightKey[i]}`).join(', ')
      const lo = p.lower === -Infinity ? '' : `${p.lower}us ${p.lowerInclusive ? '<=' : '<'} `
      const hi = p.upper === Infinity ? '' : ` ${p.upperInclusive ? '<=' : '<'} ${p.upper}us`
      const bounded = p.lower !== -Infinity || p.upper !== Infinity
      return `IntervalJoin ${p.joinType} keys=[${keysText}] band=${lo}right#${p.rightTime} - left#${p.leftTime}${hi}${p.residual ? ' where ' + printScalar(p.residual) : ''}${p.finalOuter && p.joinType !== 'inner' ? ' null-extended once final' : ''}  // state: both sides' rows by key and time; ${bounded ? `bounded: a row is freed once the other side's watermark (${watermarkText(p.rightBound.sources)}, ${watermarkText(p.leftBound.sources)}) is past its band` : 'unbounded'}`
    }
    case 'emitOnClose':
      return `EmitOnWindowClose on ${p.columns[p.column]?.name ?? '#' + p.column}  // state: rows not yet final; bounded: emitted and freed once ${watermarkText(p.sources)} ${p.strict ? '≥' : '>'} ${p.columns[p.column]?.name ?? '#' + p.column}${offsetText(p.offset)}`
  }
}

/** Aggregates among window functions (the ones that may keep a partition total). */
function isWindowAggregate(fn: string): boolean {
  return fn !== 'row_number' && fn !== 'rank' && fn !== 'dense_rank' && fn !== 'percent_rank' && fn !== 'cume_dist' && fn !== 'ntile' && fn !== 'lag' && fn !== 'lead' && fn !== 'first_value' && fn !== 'last_value' && fn !== 'nth_value'
}

/** MIN / MAX: over an insert-only input they keep only the extreme (EXPLAIN says so). */
function isExtreme(fn: AggregateFunction): boolean {
  return fn === 'min' || fn === 'max'
}

/** ` + 10s` for a bound's offset (what the column lacks to be its close time). */
function offsetText(us: number | undefined): string {
  if (!us) return ''
  const sign = us > 0 ? '+' : '-'
  const a = Math.abs(us)
  return ` ${sign} ${a % 1_000_000 === 0 ? `${a / 1_000_000}s` : `${a}us`}`
}

function watermarkText(sources: readonly string[]): string {
  return sources.length === 1 ? `watermark(${sources[0]})` : `min(${sources.map((s) => `watermark(${s})`).join(', ')})`
}

/** `annotate` may add live facts per node (operator id, state size) after the line. */
export function explainDelta(p: DeltaPlan, indent = 0, annotate?: (p: DeltaPlan) => string): string {
  const own = '  '.repeat(indent) + deltaLine(p) + (annotate ? annotate(p) : '')
  return [own, ...deltaChildren(p).map((c) => explainDelta(c, indent + 1, annotate))].join('\n')
}
