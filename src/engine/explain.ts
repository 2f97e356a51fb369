// EXPLAIN (logical, optimized, delta plans; a view's live operators and state) and SHOW.

import * as ivm from '../../ivm/index.js'
import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { explainDelta, explainLogical, lower, lowerEmitOnWindowClose, optimize, typeDisplayName, type DeltaPlan, type OptimizeTrace } from '../../planner/index.js'
import { type ViewEntry } from './catalog.js'
import type { ColumnInfo, ResultValue, SqlTypeName, StatementResult } from '../types.js'
import { errorText } from './view-errors.js'
import type { StatementContext } from './internals.js'
import { lastPart, SEARCH_PATH } from './names.js'
import type { EngineInternals } from './internals.js'

/** The view's delta plan with the entries of state each stateful operator holds right now
 *  (no operator ids, so it reads the same in every run: for watching state stay bounded). */
function explainStateSizes(v: ViewEntry): string {
  const annotate = (p: DeltaPlan): string => {
    const op = v.operators.get(p)
    if (!op || op instanceof ivm.InputOperator || op.describeState() === '') return ''
    return `  [state: ${op.stateSize()}]`
  }
  return `Materialize  [rows: ${v.sink.stateSize()}]\n${explainDelta(v.plan, 1, annotate)}`
}
/** The view's delta plan with each operator's id (shared arrangements show the same id in
 *  every view that reads them) and the state it holds right now. */
function explainWithState(v: ViewEntry): string {
  const annotate = (p: DeltaPlan): string => {
    const op = v.operators.get(p)
    if (!op) return ''
    const state = op.describeState()
    return `  [op ${op.id}${state ? `: ${state}` : ''}]`
  }
  return `Materialize  [op ${v.sink.id}: ${v.sink.describeState()}]\n${explainDelta(v.plan, 1, annotate)}`
}

export class Explain {
  constructor(private readonly engine: EngineInternals) {}

  explain(s: ast.ExplainStmt, ctx: StatementContext): StatementResult {
    let text: string
    const inner = s.statement
    let query: ast.Query
    if (inner.kind === 'select') query = inner.query
    else if (inner.kind === 'createView') query = inner.query
    else throw new RivuletError(SqlState.featureNotSupported, `EXPLAIN of ${inner.kind} statements is not supported`, positionAt(ctx.text, inner.span.start))
    if (s.stage === 'view' || s.stage === 'analyze') {
      const from = query.body.kind === 'select' ? query.body.from : undefined
      const name = from?.kind === 'table' ? lastPart(from.name) : ''
      const v = from?.kind === 'table' ? this.engine.catalog.entries.get(this.engine.catalog.lookup(from.name.parts)) : undefined
      if (!v || (v.kind !== 'view' && v.kind !== 'materialized view')) throw new RivuletError(SqlState.undefinedTable, `materialized view "${name}" does not exist`)
      // a view in error has no live operators to show
      this.engine.reads.checkReadable(v)
      text = s.stage === 'analyze' ? explainStateSizes(v) : explainWithState(v)
    } else {
      const { plan } = this.engine.reads.bindQuery(query, ctx)
      const stage = s.stage ?? 'delta'
      if (stage === 'logical' || stage === 'raw') text = explainLogical(plan)
      else if (stage === 'optimized') {
        const trace: OptimizeTrace[] = []
        const opt = optimize(plan, undefined, s.verbose ? trace : undefined)
        text = s.verbose ? [explainLogical(plan), ...trace.map((t) => `-- after ${t.rule}\n${t.plan}`)].join('\n') : explainLogical(opt)
      } else {
        const optimized = optimize(plan)
        const lowerOptions = this.engine.reads.lowerOptions
        text = explainDelta(this.engine.reads.lowerAt(() => (query.emitOnWindowClose ? lowerEmitOnWindowClose(optimized, lowerOptions) : lower(optimized, lowerOptions)), ctx, query.span.start))
      }
    }
    const rows = text.split('\n').map((l) => [l] as ResultValue[])
    return { command: `EXPLAIN`, rowCount: rows.length, columns: [{ name: 'QUERY PLAN', type: 'text' }], rows }
  }

  show(s: ast.ShowStmt): StatementResult {
    const what = s.what.join(' ')
    const list = (kinds: string[]) => {
      const rows = [...this.engine.catalog.entries.values()].filter((e) => kinds.includes(e.kind)).map((e) => [e.name] as ResultValue[])
      rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))
      return { command: `SHOW`, rowCount: rows.length, columns: [{ name: 'name', type: 'text' as SqlTypeName }], rows }
    }
    switch (what) {
      case 'tables':
        return list(['table', 'stream'])
      case 'streams':
        return list(['stream'])
      case 'views':
        return list(['view', 'materialized view'])
      case 'materialized views':
        return list(['materialized view'])
      case 'checkpoints': {
        const rows = this.engine.checkpoints.rows().map((c) => [c.tick, c.log_seq, c.bytes, Math.round(c.millis * 10) / 10, c.taken_at, c.offsets] as ResultValue[])
        const columns: ColumnInfo[] = [
          { name: 'tick', type: 'bigint' },
          { name: 'log_seq', type: 'bigint' },
          { name: 'bytes', type: 'bigint' },
          { name: 'millis', type: 'double precision' as SqlTypeName },
          { name: 'taken_at', type: 'text' },
          { name: 'offsets', type: 'text' },
        ]
        return { command: 'SHOW', rowCount: rows.length, columns, rows }
      }
      case 'sources': {
        // a source's progress: events so far, whether a bounded one is done, and its streams
        const rows = [...this.engine.connectors.sources.values()].map((src) => [src.name, src.connector.emitted, src.connector.done, src.streams.map((t) => t.name).join(', '), src.error?.message ?? null] as ResultValue[])
        const columns: ColumnInfo[] = [
          { name: 'name', type: 'text' },
          { name: 'events', type: 'bigint' },
          { name: 'done', type: 'boolean' },
          { name: 'streams', type: 'text' },
          { name: 'error', type: 'text' },
        ]
        return { command: 'SHOW', rowCount: rows.length, columns, rows }
      }
      case 'sinks': {
        const rows = [...this.engine.connectors.sinks.values()].map((k) => [k.name, k.connector.stats.inserted, k.connector.stats.retracted, k.connector.stats.ticks, k.error ? errorText(k.error) : null] as ResultValue[])
        const columns: ColumnInfo[] = [
          { name: 'name', type: 'text' },
          { name: 'inserted', type: 'bigint' },
          { name: 'retracted', type: 'bigint' },
          { name: 'ticks', type: 'bigint' },
          { name: 'error', type: 'text' },
        ]
        return { command: 'SHOW', rowCount: rows.length, columns, rows }
      }
      case 'columns':
      case 'columns from': {
        const e = s.target ? this.engine.catalog.entries.get(this.engine.catalog.lookup(s.target.parts)) : undefined
        if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${s.target ? lastPart(s.target) : ''}" does not exist`)
        const rows = e.columns.map((c) => [c.name, typeDisplayName(c.type)] as ResultValue[])
        return { command: 'SHOW', rowCount: rows.length, columns: [{ name: 'name', type: 'text' }, { name: 'type', type: 'text' }], rows }
      }
      case 'time zone':
      case 'timezone':
        return { command: 'SHOW', rowCount: 1, columns: [{ name: 'TimeZone', type: 'text' }], rows: [[this.engine.sessions.current.timeZone.name]] }
      default:
        return { command: 'SHOW', rowCount: 1, columns: [{ name: s.what[0] ?? 'setting', type: 'text' }], rows: [[what === 'server_version' ? '15.0 (rivulet)' : what === 'search_path' ? SEARCH_PATH : '']] }
    }
  }
}
