// One engine, many sessions. The engine is synchronous, so statements of different sessions
// never interleave; what needs coordinating is its transaction, which is global: while one
// session has a write transaction open in the engine, every other session's statement would
// see (and join) its uncommitted changes. The gate makes that transaction a lock:
// - a session's BEGIN is only remembered; the engine's BEGIN is issued at the session's first
//   statement in the block that is not a plain read, and from then on the session owns the gate
//   until COMMIT / ROLLBACK (or an error, or a disconnect, which roll back);
// - any other session's statement waits for the gate (FIFO wake-up), at most `lockTimeoutMs`,
//   then fails with 55P03; a CancelRequest ends the wait with 57014;
// - engine work that must not run inside someone's transaction (dropping the hidden view of an
//   ended subscription) is deferred until the gate is free (and never runs re-entrantly).

import type { Engine } from '../engine.js'
import { RivuletError } from '../../grammar/index.js'

/** A cancellable operation: a CancelRequest (or the connection closing) rejects whatever the
 *  operation is waiting for. */
export class Cancellation {
  readonly #handlers = new Set<(e: Error) => void>()
  #reason: Error | undefined

  get reason(): Error | undefined {
    return this.#reason
  }

  cancel(reason: Error): void {
    if (this.#reason) return
    this.#reason = reason
    for (const h of [...this.#handlers]) h(reason)
    this.#handlers.clear()
  }

  /** Calls `h` on cancellation (at once when already cancelled); returns an unsubscriber. */
  on(h: (e: Error) => void): () => void {
    if (this.#reason) {
      h(this.#reason)
      return () => undefined
    }
    this.#handlers.add(h)
    return () => void this.#handlers.delete(h)
  }
}

export function cancelledError(): RivuletError {
  return new RivuletError('57014', 'canceling statement due to user request')
}

export class EngineGate {
  #owner: object | undefined
  readonly #waiters = new Set<() => void>()
  readonly #deferred: (() => void)[] = []

  constructor(
    readonly engine: Engine,
    readonly lockTimeoutMs: number,
  ) {}

  /** The session holding the engine's transaction, if any. */
  get owner(): object | undefined {
    return this.#owner
  }

  /** Resolves once `session` may use the engine: nobody else holds its transaction. */
  async ready(session: object, op: Cancellation): Promise<void> {
    if (op.reason) throw op.reason
    if (this.#owner === undefined || this.#owner === session) return
    const deadline = Date.now() + this.lockTimeoutMs
    while (this.#owner !== undefined && this.#owner !== session) {
      if (op.reason) throw op.reason
      const left = deadline - Date.now()
      if (left <= 0) throw new RivuletError('55P03', `another session has a transaction open; waited ${formatMs(this.lockTimeoutMs)} for it to end`, undefined, 'The engine has one transaction at a time: statements of other sessions wait until it commits or rolls back.')
      await new Promise<void>((resolve, reject) => {
        let unCancel = (): void => undefined
        const done = (): void => {
          clearTimeout(timer)
          this.#waiters.delete(wake)
          unCancel()
        }
        const wake = (): void => {
          done()
          resolve()
        }
        const timer = setTimeout(wake, left)
        this.#waiters.add(wake)
        unCancel = op.on((e) => {
          done()
          reject(e)
        })
      })
    }
  }

  /** Marks `session` as the owner of the engine's (just begun) transaction. */
  take(session: object): void {
    if (this.#owner !== undefined && this.#owner !== session) throw new Error('engine transaction already owned by another session')
    this.#owner = session
  }

  /** Ends `session`'s ownership (after its COMMIT or ROLLBACK): runs deferred work, wakes the
   *  waiting sessions (in arrival order; the first to begin a transaction owns the gate
   *  again, the others go back to waiting). */
  release(session: object): void {
    if (this.#owner !== session) return
    this.#owner = undefined
    this.#runDeferred()
    for (const wake of [...this.#waiters]) wake()
  }

  /** Runs `task` soon (never re-entrantly: a subscription may end inside the engine's commit
   *  of another statement), once no transaction is open. */
  whenFree(task: () => void): void {
    this.#deferred.push(task)
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#runDeferred()
    })
  }

  #scheduled = false

  #runDeferred(): void {
    while (this.#deferred.length > 0 && this.#owner === undefined) {
      const task = this.#deferred.shift()!
      try {
        task()
      } catch {
        // cleanup of an ended subscription failing (engine closed) must not stop the others
      }
    }
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`
}
