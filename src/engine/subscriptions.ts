// Subscriptions: subscribe(view) and subscribeStatement(SUBSCRIBE …), which maintains a table,
// stream or query through a hidden view of its own. Batches are delivered by the tick
// pipeline's publish stage.

import { parse, RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import { isView } from './catalog.js'
import type { ChangeBatch, SubscribeOptions, Subscription } from '../types.js'
import { lastPart, HIDDEN_PREFIX, quoteIdentifier, foldName, columnInfo } from './names.js'
import type { EngineInternals } from './internals.js'

export class Subscriptions {
  constructor(private readonly engine: EngineInternals) {}

  subscribe(view: string, callback: (batch: ChangeBatch) => void, options: SubscribeOptions = {}): Subscription {
    this.engine.checkOpen()
    const v = this.engine.catalog.entries.get(foldName(view))
    if (!v || (v.kind !== 'view' && v.kind !== 'materialized view')) throw new RivuletError(SqlState.undefinedTable, `view "${view}" does not exist`)
    // the snapshot is the last committed tick (or the current session's own block)
    this.engine.sessions.prepare()
    this.engine.reads.checkReadable(v)
    const sub = { callback }
    if (options.snapshot !== false) {
      const changes = this.engine.reads.resultChanges(v.sink.contents(), v.columns)
      callback({ tick: this.engine.ticks.committed, columns: columnInfo(v.columns), changes })
    }
    v.subscribers.add(sub)
    if (this.engine.catalog.entries.get(v.name) === v) this.engine.catalog.subscribed.add(v)
    return {
      columns: columnInfo(v.columns),
      stop: () => {
        v.subscribers.delete(sub)
        if (v.subscribers.size === 0) this.engine.catalog.subscribed.delete(v)
      },
    }
  }

  subscribeStatement(sql: string, callback: (batch: ChangeBatch) => void): Subscription {
    this.engine.checkOpen()
    this.engine.sessions.checkNotAborted()
    const parsed = parse(sql)
    const s = parsed.length === 1 ? parsed[0]!.statement : undefined
    if (!s || s.kind !== 'subscribe') throw new RivuletError(SqlState.syntaxError, 'expected one SUBSCRIBE statement')
    let snapshot = true
    for (const o of s.with) {
      const v = o.value
      const literal = v?.kind === 'literal' ? v.value : undefined
      const flag = v === undefined ? true : literal?.type === 'boolean' ? literal.value : v.kind === 'column' && v.parts.length === 1 ? v.parts[0] : undefined
      if (o.name !== 'snapshot' || (flag !== true && flag !== false && flag !== 'true' && flag !== 'false')) throw new RivuletError(SqlState.invalidParameterValue, `unrecognized SUBSCRIBE option "${o.name}"${o.name === 'snapshot' ? ' value (expected true or false)' : ' (known: SNAPSHOT)'}`, positionAt(sql, o.span.start))
      snapshot = flag === true || flag === 'true'
    }
    let name: string
    let hidden: string | undefined
    const target = s.target ? this.engine.catalog.entries.get(lastPart(s.target)) : undefined
    if (s.target && !target) throw new RivuletError(SqlState.undefinedTable, `relation "${s.target.parts.join('.')}" does not exist`, positionAt(sql, s.target.span.start))
    if (target && isView(target)) name = target.name
    else {
      const query = s.query ? sql.slice(s.query.span.start, s.query.span.end) : `SELECT * FROM ${quoteIdentifier(target!.name)}`
      hidden = `${HIDDEN_PREFIX}${++this.hiddenViews}`
      // the hidden view is the engine's, outside any block of the caller's
      this.engine.sessions.as(this.engine.sessions.internal, () => this.engine.statements.execute(`CREATE MATERIALIZED VIEW ${hidden} AS ${query}`))
      name = hidden
    }
    const columns = columnInfo(this.engine.catalog.entries.get(name)!.columns)
    let stop: () => void
    try {
      stop = this.subscribe(name, callback, { snapshot }).stop
    } catch (e) {
      if (hidden) this.engine.sessions.as(this.engine.sessions.internal, () => this.engine.statements.execute(`DROP MATERIALIZED VIEW ${hidden}`))
      throw e
    }
    let stopped = false
    return {
      columns,
      stop: () => {
        if (stopped) return
        stopped = true
        stop()
        if (hidden && !this.engine.closed && this.engine.catalog.entries.has(hidden)) this.engine.sessions.as(this.engine.sessions.internal, () => this.engine.statements.execute(`DROP MATERIALIZED VIEW ${hidden}`))
      },
    }
  }

  hiddenViews = 0
}
