// Subscriptions: subscribe(view) and subscribeStatement(SUBSCRIBE …), which maintains a table,
// stream or query through a hidden view of its own. Batches are delivered by the tick
// pipeline's publish stage.

import { parse, RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import { isView } from './catalog.js'
import type { ChangeBatch, SubscribeOptions, Subscription } from '../types.js'
import { lastPart, HIDDEN_PREFIX, quoteIdentifier, foldName, columnInfo } from './names.js'
import { EngineInternals } from './internals.js'
import type { DataDirectory } from '../storage/data-dir.js'

export class Subscriptions {
  constructor(private readonly engine: EngineInternals) {}

  subscribe(view: string, callback: (batch: ChangeBatch) => void, options: SubscribeOptions = {}): Subscription {
    this.engine.checkOpen()
    const v = this.engine.catalog.entries.get(foldName(view))
    if (!v || (v.kind !== 'view' && v.kind !== 'materialized view')) throw new RivuletError(SqlState.undefinedTable, `view "${view}" does not exist`)
    // the snapshot is the last committed tick (or the current session's own block)
    this.engine.sessions.prepare()
    this.engine.reads.checkReadable(v)
    if (options.since !== undefined) {
      const name = v.name
      this.replaySince(options.since, (shadow) => {
        if (!shadow.catalog.entries.has(name)) throw new RivuletError(SqlState.undefinedTable, `view "${name}" did not exist at tick ${options.since}`)
        return name
      }, callback)
    }
    const sub = { callback }
    if (options.snapshot !== false && options.since === undefined) {
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
    let since: number | undefined
    for (const o of s.with) {
      const v = o.value
      const literal = v?.kind === 'literal' ? v.value : undefined
      if (o.name === 'since') {
        const n = literal?.type === 'integer' ? Number(literal.text) : NaN
        if (!Number.isSafeInteger(n) || n < 0) throw new RivuletError(SqlState.invalidParameterValue, 'SUBSCRIBE option SINCE needs a tick number (SINCE = n)', positionAt(sql, o.span.start))
        since = n
        continue
      }
      const flag = v === undefined ? true : literal?.type === 'boolean' ? literal.value : v.kind === 'column' && v.parts.length === 1 ? v.parts[0] : undefined
      if (o.name !== 'snapshot' || (flag !== true && flag !== false && flag !== 'true' && flag !== 'false')) throw new RivuletError(SqlState.invalidParameterValue, `unrecognized SUBSCRIBE option "${o.name}"${o.name === 'snapshot' ? ' value (expected true or false)' : ' (known: SNAPSHOT, SINCE)'}`, positionAt(sql, o.span.start))
      snapshot = flag === true || flag === 'true'
    }
    let name: string
    let hidden: string | undefined
    const target = s.target ? this.engine.catalog.entries.get(this.engine.catalog.lookup(s.target.parts)) : undefined
    if (s.target && !target) throw new RivuletError(SqlState.undefinedTable, `relation "${s.target.parts.join('.')}" does not exist`, positionAt(sql, s.target.span.start))
    if (target && isView(target)) name = target.name
    else {
      const query = s.query ? sql.slice(s.query.span.start, s.query.span.end) : `SELECT * FROM ${s.target!.parts.map(quoteIdentifier).join('.')}`
      hidden = `${HIDDEN_PREFIX}${++this.hiddenViews}`
      // the hidden view is the engine's, outside any block of the caller's, and not the
      // schema's: the log does not keep it
      const create = `CREATE MATERIALIZED VIEW ${hidden} AS ${query}`
      this.engine.sessions.as(this.engine.sessions.internal, () => this.engine.log.unlogged(() => this.engine.statements.execute(create)))
      name = hidden
      if (since !== undefined) {
        const at = since
        try {
          this.replaySince(at, (shadow) => {
            shadow.statements.execute(create)
            return hidden!
          }, callback)
        } catch (e) {
          this.dropHidden(hidden)
          throw e
        }
        since = undefined
        snapshot = false
      }
    }
    const columns = columnInfo(this.engine.catalog.entries.get(name)!.columns)
    let stop: () => void
    try {
      stop = this.subscribe(name, callback, since !== undefined ? { since } : { snapshot }).stop
    } catch (e) {
      if (hidden) this.dropHidden(hidden)
      throw e
    }
    let stopped = false
    return {
      columns,
      stop: () => {
        if (stopped) return
        stopped = true
        stop()
        if (hidden && !this.engine.closed && this.engine.catalog.entries.has(hidden)) this.dropHidden(hidden)
      },
    }
  }

  dropHidden(name: string): void {
    this.engine.sessions.as(this.engine.sessions.internal, () => this.engine.log.unlogged(() => this.engine.statements.execute(`DROP MATERIALIZED VIEW ${name}`)))
  }

  /** SINCE = n: the ticks after n, read back from the log. A shadow engine (in memory, no
   *  sinks) is brought to tick n — from the newest checkpoint at or before n and the log after
   *  it, or from the start of the log while it is whole — `setup` names the view to follow
   *  there, and the replay of the rest delivers each later tick's changes to `callback`, as
   *  they were; the caller then follows the live view from the current tick on. A tick before
   *  the oldest checkpoint of a truncated log is no longer retained (22023). */
  replaySince(since: number, setup: (shadow: EngineInternals) => string, callback: (batch: ChangeBatch) => void): void {
    const dir = this.engine.log.dir
    if (dir === undefined) throw new RivuletError(SqlState.objectNotInPrerequisiteState, 'SUBSCRIBE … WITH (SINCE = n) needs a durable engine (a data directory): the ticks after n are read back from its log')
    if (!Number.isSafeInteger(since) || since < 0 || since > this.engine.ticks.committed) throw new RivuletError(SqlState.invalidParameterValue, `SINCE = ${since} is not a committed tick (the last is ${this.engine.ticks.committed})`)
    const shadow = new EngineInternals({ sources: 'manual' })
    shadow.shadow = true
    shadow.log.historyDir = dir
    try {
      let last = this.#restoreShadow(shadow, dir, since)
      shadow.log.replayRecords(dir.records(last), (r) => {
        if (r.tick > since) return false
        last = r.seq
        return true
      })
      const name = setup(shadow)
      const sub = shadow.subscriptions.subscribe(name, callback, { snapshot: false })
      shadow.log.replayRecords(dir.records(last), () => true)
      sub.stop()
    } finally {
      shadow.statements.close()
    }
  }

  /** Loads into `shadow` the newest readable checkpoint at or before tick `since`; returns the
   *  last log record it covers (0: none, the log is replayed from its start). */
  #restoreShadow(shadow: EngineInternals, dir: DataDirectory, since: number): number {
    for (const c of dir.checkpoints()) {
      if (c.tick > since) continue
      let state: ReturnType<EngineInternals['checkpoints']['read']>
      try {
        state = shadow.checkpoints.read(c, dir)
      } catch {
        continue // damaged or of another layout: an older one, or the whole log, serves
      }
      shadow.log.restoring = true
      try {
        shadow.log.replayRecords(dir.ddlRecords(c.seq), () => true, true)
        shadow.checkpoints.load(state)
      } finally {
        shadow.log.restoring = false
      }
      return c.seq
    }
    if (dir.logStart > 1) {
      const oldest = dir.checkpoints().at(-1)
      throw new RivuletError(SqlState.invalidParameterValue, `SINCE = ${since} is older than the log retains: it resumes from tick ${oldest?.tick ?? this.engine.ticks.committed} on (the log is truncated behind its checkpoints)`)
    }
    return 0
  }

  hiddenViews = 0
}
