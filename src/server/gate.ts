// One engine, many sessions. The engine's sessions never wait for each other (see
// src/engine/transactions.ts): each connection has an engine session of its own, whose BEGIN …
// COMMIT is its own, and reads see the last committed tick. What is left to coordinate here:
// - a statement checks its cancellation before it starts (a CancelRequest ends it with 57014);
// - engine work that must not run re-entrantly (dropping the hidden view of an ended
//   subscription, which can end inside the engine's commit of another statement) is deferred
//   to the next turn of the event loop.

import type { Engine } from '../engine/index.js'
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
  readonly #deferred: (() => void)[] = []

  constructor(readonly engine: Engine) {}

  /** Throws when the operation was cancelled (sessions never wait for the engine). */
  ready(op: Cancellation): void {
    if (op.reason) throw op.reason
  }

  /** Runs `task` soon, never re-entrantly (a subscription may end inside the engine's commit
   *  of another statement). */
  whenFree(task: () => void): void {
    this.#deferred.push(task)
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      while (this.#deferred.length > 0) {
        const next = this.#deferred.shift()!
        try {
          next()
        } catch {
          // cleanup of an ended subscription failing (engine closed) must not stop the others
        }
      }
    })
  }

  #scheduled = false
}
