// Interrupting a running statement. The operators call checkInterrupt() at batch boundaries
// (each operator step, each backfill chunk) and every few thousand rows they produce or
// consolidate; what it checks is installed by the engine (src/sql-runtime/statement-limits.ts: the
// statement's deadline, a cancel request, the memory limit), which throws a RivuletError to
// end the statement. The error unwinds like any other statement error: the engine rolls the
// tick back, so an interrupted statement changes nothing.

/** The check the engine installs (a no-op outside a statement with limits), and what a
 *  batch that would pass MAX_BATCH_ROWS raises (the engine installs a RivuletError). */
export const interruptHook: { check: () => void; overflow: () => never } = {
  check: () => undefined,
  overflow: () => {
    throw new RangeError(`a batch of more than ${MAX_BATCH_ROWS} rows`)
  },
}

/** Most rows one batch may hold: V8 cannot grow an array much past 2^27 elements and ends
 *  the process when asked to, so a statement whose intermediate result would be that large
 *  fails before. */
export const MAX_BATCH_ROWS = 1 << 26

let rows = 0

/** A batch boundary: runs the installed check. */
export function checkInterrupt(): void {
  interruptHook.check()
}

/** One row produced: runs the check every 8192 rows. */
export function countRow(): void {
  if ((++rows & 8191) === 0) interruptHook.check()
}
