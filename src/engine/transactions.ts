// Sessions and their transaction blocks. Many sessions (the server's connections, the library's
// `db.session()`) share one engine, and none of them ever waits for another:
//
// - A read sees the last committed tick; a statement outside a block is a tick of its own.
// - A block's writes are the engine's open tick, but only while the block's session is the
//   one running. When another session needs the engine (to read the committed state, to commit
//   a tick of its own, or for its own block), the open block is *parked*: its tick is rolled
//   back — so nobody else ever sees it or joins it — and the block keeps the list of its
//   writes. When its session runs again, the block is *resumed*: each write is done again, in
//   order, in a new open tick, and must have exactly the effect it had the first time (the same
//   rows into and out of each table). A write whose effect changed because another session
//   committed in between (the same primary key updated, a key taken, a row deleted) means the
//   block cannot be serialized after that commit: it fails with 40001 and is aborted, and the
//   commit that came first stands. COMMIT makes the open tick a tick, once.
// - A block that is never interleaved pays nothing: its tick simply stays open between its
//   statements. Parking costs a rollback, resuming costs redoing the block's writes.
// - NOW() inside a block is the block's start (as in PostgreSQL), also when its writes are
//   redone, so a write that reads the clock has the same effect again.
//
// This module holds the session state and the effect comparison; the engine (src/engine/engine.ts)
// parks and resumes.

import * as ivm from '../../ivm/index.js'
import type { ExecuteOptions, InputRow, QueryResult, StatementResult } from '../types.js'
import { UTC, type TimeZone } from '../sql-runtime/time-zone.js'

/** What a session asks of the engine (the engine implements it). */
export interface SessionHost {
  executeAs(session: EngineSession, sql: string, options: ExecuteOptions): StatementResult[]
  insertAs(session: EngineSession, table: string, rows: readonly InputRow[]): number
  deleteAs(session: EngineSession, table: string, rows: readonly InputRow[]): number
  closeSession(session: EngineSession): void
  syncLog(): Promise<void>
}

/** The effect of one write: per table, the consolidated rows it put in (+) and took out (−). */
export type WriteEffect = ReadonlyMap<string, ivm.ZSet>

/** A write of an open block: how to do it again, and what it did. */
export interface BlockWrite {
  readonly redo: () => void
  readonly effect: WriteEffect
}

/** Collects the changes a write stages, table by table. */
export class EffectRecorder {
  readonly #deltas = new Map<string, ivm.ZSet>()

  record(table: string, delta: ivm.ZSet): void {
    let z = this.#deltas.get(table)
    if (z === undefined) this.#deltas.set(table, (z = new ivm.ZSet()))
    z.append(delta)
  }

  finish(): WriteEffect {
    const out = new Map<string, ivm.ZSet>()
    for (const [t, z] of this.#deltas) {
      const c = z.consolidate()
      if (c.length > 0) out.set(t, c)
    }
    return out
  }
}

/** True when two effects put the same rows into and out of the same tables. */
export function sameEffect(a: WriteEffect, b: WriteEffect): boolean {
  if (a.size !== b.size) return false
  for (const [t, za] of a) {
    const zb = b.get(t)
    if (zb === undefined || za.length !== zb.length) return false
    const weights = new Map<ivm.RowKey, number>()
    for (let i = 0; i < za.length; i++) {
      const k = ivm.rowKey(za.rows[i]!)
      weights.set(k, (weights.get(k) ?? 0) + za.weights[i]!)
    }
    for (let i = 0; i < zb.length; i++) {
      const k = ivm.rowKey(zb.rows[i]!)
      const w = (weights.get(k) ?? 0) - zb.weights[i]!
      if (w === 0) weights.delete(k)
      else weights.set(k, w)
    }
    if (weights.size > 0) return false
  }
  return true
}

/** One session: its own transaction block. Statements run synchronously, one at a time; a
 *  session never waits for another. */
export class EngineSession {
  /** 'none' outside a block; 'open' inside BEGIN … COMMIT; 'aborted' after an error in one
   *  (every statement but COMMIT / ROLLBACK is 25P02 until the block ends). */
  block: 'none' | 'open' | 'aborted' = 'none'
  /** The writes of the open block, in order. */
  writes: BlockWrite[] = []
  /** The block's processing time (µs), fixed at its first write. */
  now: number | undefined
  /** The session's TimeZone (SET TIME ZONE): timestamptz text in and out, and the zone of
   *  its queries' local-time arithmetic. */
  timeZone: TimeZone = UTC
  #closed = false

  constructor(readonly host: SessionHost) {}

  /** Runs SQL as this session (its BEGIN / COMMIT / ROLLBACK are its own). */
  execute(sql: string, options: ExecuteOptions = {}): StatementResult[] {
    return this.host.executeAs(this, sql, options)
  }

  /** The engine's `syncLog()`: resolves when every commit so far is durable (group commit). */
  syncLog(): Promise<void> {
    return this.host.syncLog()
  }

  query(sql: string): QueryResult {
    const results = this.execute(sql)
    const last = results[results.length - 1]
    return { columns: last?.columns ?? [], rows: last?.rows ?? [] }
  }

  insert(table: string, rows: readonly InputRow[]): number {
    return this.host.insertAs(this, table, rows)
  }

  delete(table: string, rows: readonly InputRow[]): number {
    return this.host.deleteAs(this, table, rows)
  }

  /** Inside BEGIN … COMMIT (also after an error in the block, until it ends). */
  get inTransaction(): boolean {
    return this.block !== 'none'
  }

  /** Ends the session: an open block is rolled back. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.host.closeSession(this)
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Forgets the block (after COMMIT, ROLLBACK or an abort has dealt with the engine). */
  reset(state: 'none' | 'aborted'): void {
    this.block = state
    this.writes = []
    this.now = undefined
  }
}
