// Limits of one statement, checked where the operators call ivm's checkInterrupt (each
// operator step, each backfill or COPY chunk, every 8192 rows produced or consolidated):
// - a deadline (statement_timeout): 57014 "canceling statement due to statement timeout";
// - a cancel request (`cancelled()` true): 57014 "canceling statement due to user request";
// - a memory limit: when V8's heap in use (plus memory outside the heap, e.g. Buffers) has
//   passed it, 53200 "out of memory". The heap figure is read at most every 5 ms; over the
//   limit, a full garbage collection runs first (at most once a second) and the statement
//   fails only if the heap is still over. It bounds the process, not one statement.
// The error unwinds the statement like any other, and the engine rolls back its tick.

import v8 from 'node:v8'
import vm from 'node:vm'
import * as ivm from '../../ivm/index.js'
import { RivuletError } from '../../grammar/index.js'

export type { StatementLimits } from '../types.js'
import type { StatementLimits } from '../types.js'

// a batch past ivm's row cap is a statement error (54000), never the process's end
ivm.interruptHook.overflow = () => {
  throw new RivuletError('54000', `statement too large: one of its intermediate results passed ${ivm.MAX_BATCH_ROWS} rows`, undefined, 'A join without a selective condition multiplies rows; add one, or LIMIT the inputs.')
}

/** A memory limit that keeps the process clear of V8's own heap limit (which ends it). */
export function defaultMemoryLimit(): number {
  return Math.floor(v8.getHeapStatistics().heap_size_limit * 0.8)
}

export function timeoutError(): RivuletError {
  return new RivuletError('57014', 'canceling statement due to statement timeout')
}

export function cancelError(): RivuletError {
  return new RivuletError('57014', 'canceling statement due to user request')
}

v8.setFlagsFromString('--expose-gc')
/** A full garbage collection (V8's gc(), reached through a fresh context). */
const collect = vm.runInNewContext('gc') as () => void
let collectedAt = 0

/** Whether memory in use is over `limit` after collecting garbage (when not done lately). */
function overLimit(limit: number, now: number): boolean {
  if (memoryInUse() <= limit) return false
  if (now - collectedAt < 1000) return true
  collect()
  collectedAt = Date.now()
  return memoryInUse() > limit
}

/** Memory in use as the limit counts it. */
export function memoryInUse(): number {
  const h = v8.getHeapStatistics() as v8.HeapInfo & { external_memory?: number }
  return h.used_heap_size + (h.external_memory ?? 0)
}

export function outOfMemory(limit: number): RivuletError {
  return new RivuletError('53200', 'out of memory', undefined, `The server's memory in use (${mib(memoryInUse())}) passed its limit (--max-memory ${mib(limit)}); the statement was canceled and changed nothing.`)
}

function mib(n: number): string {
  return `${Math.round(n / (1 << 20))} MiB`
}

/** Runs `f` with `limits` checked at its batch boundaries (and once first), besides any
 *  limits already in force. */
export function withLimits<T>(limits: StatementLimits | undefined, f: () => T): T {
  if (limits === undefined || (limits.deadline === undefined && limits.cancelled === undefined && limits.maxMemoryBytes === undefined)) return f()
  const previous = ivm.interruptHook.check
  const { deadline, cancelled, maxMemoryBytes } = limits
  let heapReadAt = 0
  // nested limits (a FLUSH running a source step that has its own) hold together
  const check = (): void => {
    previous()
    if (cancelled?.()) throw cancelError()
    const now = Date.now()
    if (deadline !== undefined && now >= deadline) throw timeoutError()
    if (maxMemoryBytes !== undefined && now - heapReadAt >= 5) {
      heapReadAt = now
      if (overLimit(maxMemoryBytes, now)) {
        collectedAt = 0 // what the failed statement held is garbage now: the next check may collect
        throw outOfMemory(maxMemoryBytes)
      }
    }
  }
  ivm.interruptHook.check = check
  try {
    check()
    return f()
  } finally {
    ivm.interruptHook.check = previous
  }
}
