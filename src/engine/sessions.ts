// Sessions and transaction blocks: which session's call runs now, whose open block's writes are
// the engine's open tick, parking another session's block (rolled back, its writes kept) and
// resuming it (its writes redone, 40001 when one no longer does what it did), BEGIN / COMMIT /
// ROLLBACK. transactions.ts holds the session objects and the effect records.

import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { EffectRecorder, EngineSession, sameEffect, type SessionHost } from './transactions.js'
import type { StatementResult } from '../types.js'
import type { StatementContext } from './internals.js'
import type { EngineInternals } from './internals.js'
import { withTimeZone } from '../sql-runtime/time-zone.js'

export class Sessions {
  constructor(private readonly engine: EngineInternals) {}

  /** Sessions (see transactions.ts): the one whose call runs now, the one whose block's writes
   *  are the open tick, the default one (db.execute and friends), and the engine's own (source
   *  batches, SUBSCRIBE's hidden views), which never opens a block. */
  readonly host: SessionHost = {
    executeAs: (session, sql, options) => this.as(session, () => this.engine.statements.execute(sql, options)),
    syncLog: () => this.engine.log.sync(),
    insertAs: (session, table, rows) => this.as(session, () => this.engine.dml.insert(table, rows)),
    deleteAs: (session, table, rows) => this.as(session, () => this.engine.dml.delete(table, rows)),
    closeSession: (session) => this.closeSession(session),
  }
  readonly defaultSession = new EngineSession(this.host)
  readonly internal = new EngineSession(this.host)
  current: EngineSession = this.defaultSession
  open: EngineSession | undefined
  /** Collects what a block's write stages (undefined outside one). */
  recorder: EffectRecorder | undefined

  get inTransaction(): boolean {
    return this.current.block !== 'none'
  }

  session(): EngineSession {
    this.engine.checkOpen()
    return new EngineSession(this.host)
  }

  /** Runs `f` as `session` (the engine's entry points act for the current session). */
  as<T>(session: EngineSession, f: () => T): T {
    if (session.closed) throw new RivuletError(SqlState.objectNotInPrerequisiteState, 'session is closed')
    const saved = this.current
    this.current = session
    try {
      return withTimeZone(session.timeZone, f)
    } finally {
      this.current = saved
    }
  }

  /** Makes the engine's open tick the current session's: another session's open block is
   *  parked (rolled back, its writes kept), and the current session's own block, if parked
   *  and it has writes, is resumed (its writes redone; 40001 when one no longer does what it
   *  did). Called before anything reads or writes tables. */
  prepare(): void {
    const me = this.current
    if (this.open !== undefined && this.open !== me) this.park()
    if (me.block === 'open' && me.writes.length > 0 && this.open !== me) this.resume(me)
  }

  /** Rolls back the open block's tick; its session keeps its writes to redo. */
  park(): void {
    if (this.open === undefined) return
    this.engine.ticks.rollback()
    this.open = undefined
  }

  resume(me: EngineSession): void {
    this.open = me
    for (const w of me.writes) {
      const recorder = new EffectRecorder()
      this.recorder = recorder
      this.engine.ticks.tickNow = me.now
      let same: boolean
      try {
        w.redo()
        same = sameEffect(recorder.finish(), w.effect)
      } catch (e) {
        if (!(e instanceof RivuletError)) throw e
        same = false
      } finally {
        this.recorder = undefined
      }
      if (!same) {
        this.engine.ticks.rollback()
        this.open = undefined
        me.reset('aborted')
        throw new RivuletError('40001', 'could not serialize access due to concurrent update', undefined, 'Another session committed a change to rows this transaction wrote; the transaction was rolled back. Retry it.')
      }
    }
  }

  /** An error inside the current session's block aborts it: what it wrote is undone now. */
  abortBlock(): void {
    const me = this.current
    if (me.block !== 'open') return
    if (this.open === me) {
      this.engine.ticks.rollback()
      this.open = undefined
    }
    me.reset('aborted')
  }

  closeSession(session: EngineSession): void {
    if (this.open === session) {
      this.engine.ticks.rollback()
      this.open = undefined
    }
    session.reset('none')
  }

  /** DDL runs outside transaction blocks (as in Materialize): a view created from
   *  uncommitted rows, or a table dropped under them, could not be rolled back. */
  refuseInTransaction(what: string, ctx: StatementContext, at: number): void {
    if (this.current.block !== 'none') throw new RivuletError(SqlState.activeSqlTransaction, `${what} cannot run inside a transaction block`, positionAt(ctx.text, at))
  }

  transaction(s: ast.TransactionStmt): StatementResult {
    const me = this.current
    switch (s.action) {
      case 'begin':
        if (me.block === 'none') me.block = 'open' // else Postgres warns and goes on
        return { command: 'BEGIN', rowCount: 0 }
      case 'commit': {
        if (me.block === 'none') return { command: 'COMMIT', rowCount: 0 }
        if (me.block === 'aborted') {
          me.reset('none')
          return { command: 'ROLLBACK', rowCount: 0 }
        }
        if (me.writes.length > 0) {
          // a failed resume (40001) has aborted the block; the error ends it as a ROLLBACK
          try {
            this.prepare()
          } catch (e) {
            me.reset('none')
            throw e
          }
          try {
            this.engine.ticks.commit()
          } catch (e) {
            // the tick rolled back: the block is over, as a failed COMMIT ends it in Postgres
            me.reset('none')
            throw e
          } finally {
            this.open = undefined
          }
        }
        me.reset('none')
        return { command: 'COMMIT', rowCount: 0 }
      }
      case 'rollback':
        if (this.open === me) {
          this.engine.ticks.rollback()
          this.open = undefined
        }
        me.reset('none')
        return { command: 'ROLLBACK', rowCount: 0 }
    }
  }

  checkNotAborted(): void {
    if (this.current.block === 'aborted') throw new RivuletError('25P02', 'current transaction is aborted, commands ignored until end of transaction block')
  }
}
