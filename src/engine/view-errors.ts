// Views in error: errors are data, writers are never hostage to views.
//
// A runtime error while maintaining a view (division by zero, an overflow, a failed cast, a
// scalar subquery with two rows) does not fail the write that caused it and blocks no other
// relation. The circuit isolates the operator that raised it (ivm/circuit.ts: the operator
// and everything downstream of it are undone to the last commit and skipped for the rest of
// the tick), the engine notes which views and sinks that cut off (`note`), and at commit
// `settle` decides their state:
//
// - a view or sink that failed is detached: its operators are released, it holds no state.
//   It is then rebuilt at once from its inputs as they are at the end of the tick (an error
//   on rows that the same tick removed again leaves no trace). If the rebuild raises too,
//   it is *in error*: reads (SELECT, SUBSCRIBE, EXPLAIN ANALYZE) raise the error with its
//   SQLSTATE and the view's name, and `rivulet_view_errors` lists it (view, code, message,
//   since tick);
// - a view or sink in error is rebuilt whenever something it reads changed in a tick (a
//   table, a stream, a system relation, through views; the clock, for temporal filters),
//   until a rebuild succeeds. Then it is exactly what a recompute gives: it was built as one;
// - a view that reads a view in error is in error too (its message says which one), and is
//   rebuilt when that one comes back;
// - subscribers of a view in error and the connector of a sink in error hold at the last
//   good tick (they get nothing) and, when the error clears, receive the difference between
//   that output and the new one, as that tick's change. For this the view keeps its last
//   good contents while it has subscribers; a sink, which keeps no copy of what it wrote,
//   recomputes it once when it goes into error, from its inputs as of the last commit.
//
// The healthy path pays for none of this: the circuit's isolation is a try/catch around each
// operator's step, and `settle` returns at once while nothing failed and nothing is in error.
// The error path costs a recompute of the view per tick that changes its inputs, while the
// view stays in error.
//
// Transactions: a failure inside BEGIN … COMMIT cuts the view off for the rest of the block
// (reads of it there raise the error); ROLLBACK or an aborted block ends the cut with
// everything else, since the cut operators were already undone to the last commit.

import { UTC, withTimeZone } from '../sql-runtime/time-zone.js'
import { allocationLimitError } from '../sql-runtime/text-limit.js'
import * as ivm from '../../ivm/index.js'
import type { OperatorFailure, Row } from '../../ivm/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import type { Column, DeltaPlan } from '../../planner/index.js'
import { render } from './render.js'

/** The system relation listing the views in error. */
export const VIEW_ERRORS = 'rivulet_view_errors'

export const VIEW_ERRORS_COLUMNS: readonly Column[] = [
  { name: 'view', type: 'text' },
  { name: 'code', type: 'text' },
  { name: 'message', type: 'text' },
  { name: 'since', type: 'bigint' },
]

/** In the set of relations a view depends on: the processing-time clock (temporal filters). */
export const CLOCK = '\u0000clock'

/** Why a view or sink is in error. */
export interface MaintenanceError {
  /** The SQLSTATE reads raise. */
  readonly code: string
  /** The error's own message ('division by zero'). */
  readonly message: string
  /** The tick since which it is in error (continuously; the message may change meanwhile). */
  readonly since: number
  /** 'materialized view "v1"' when the error is that view's, which this one reads. */
  readonly origin: string | undefined
  /** The output as of the last good tick, while someone must get the difference when the
   *  error clears (a view's subscribers, a sink's connector). */
  readonly lastGood: ivm.ZSet | undefined
}

/** What the engine maintains and can put in error: a view or a sink. */
export interface Maintained {
  readonly name: string
  readonly kind: 'view' | 'materialized view' | 'sink'
  /** The relations it reads directly. */
  readonly dependsOn: ReadonlySet<string>
  error: MaintenanceError | undefined
}

/** The message rivulet_view_errors shows and reads raise after the view's name. */
export function errorText(e: MaintenanceError): string {
  return e.origin === undefined ? e.message : `${e.message} (from ${e.origin})`
}

/** The error reading a view in error raises. */
export function readError(m: Maintained, e: MaintenanceError): RivuletError {
  return new RivuletError(e.code, `${m.kind} "${m.name}" is in error: ${errorText(e)}`, undefined, `in error since tick ${e.since}, until the input rows that cause the error are gone (rivulet_view_errors lists the views in error)`)
}

/** The error reading a view raises when its maintenance failed in the open transaction. */
function failingReadError(m: Maintained, e: RivuletError): RivuletError {
  return new RivuletError(e.code, `${m.kind} "${m.name}" is in error: ${e.message}`, undefined, 'its maintenance failed on the changes of this transaction')
}

/** Any error as a RivuletError (an unexpected one as an internal error). */
export function asRivuletError(e: unknown): RivuletError {
  if (e instanceof RivuletError) return e
  const limit = allocationLimitError(e)
  if (limit !== undefined) return limit
  return new RivuletError(SqlState.internalError, `internal error: ${e instanceof Error ? e.message : String(e)}`)
}

/** What `ViewErrors` needs from the engine. */
export interface ErrorHost<M extends Maintained> {
  /** Views, each after the views it reads, then sinks. */
  maintained(): Iterable<M>
  /** The view of that name, if it is one. */
  view(name: string): M | undefined
  /** The operator whose output is its result (a view's sink, a sink's output). */
  output(m: M): ivm.Operator
  /** Does anyone need the difference when its error clears (subscribers, a connector)? */
  wantsDifference(m: M): boolean
  /** Its output as of the last commit (asked before anything is detached). */
  lastGood(m: M): ivm.ZSet
  /** Drops its state: releases its operators. */
  detach(m: M): void
  /** Builds it again from its inputs as they are now; returns its output then. Throws
   *  (leaving it detached) when the data still raises. */
  rebuild(m: M): () => ivm.ZSet
  /** Replaces the change it hands on at this commit (undefined: none). */
  deliver(m: M, delta: ivm.ZSet | undefined): void
  /** What it depends on through views: tables, streams, system relations, CLOCK. */
  bases(m: M): ReadonlySet<string>
  /** Applies a change of rivulet_view_errors in the open tick (a step of the circuit). */
  applyErrorRows(delta: ivm.ZSet): void
}

/** Rounds of settling: a view reading rivulet_view_errors can fail on the rows the last
 *  round wrote; beyond this it waits for the next tick. */
const MAX_ROUNDS = 3

export class ViewErrors<M extends Maintained> {
  readonly #host: ErrorHost<M>
  /** Cut off by a failure in the open tick, with the error. */
  #failing = new Map<M, RivuletError>()
  /** Detached and in error. */
  readonly #inError = new Set<M>()
  /** Their rows in rivulet_view_errors (views only). */
  readonly #rows = new Map<M, Row>()

  constructor(host: ErrorHost<M>) {
    this.#host = host
  }

  /** Nothing failed in the open tick and nothing is in error. */
  get idle(): boolean {
    return this.#failing.size === 0 && this.#inError.size === 0
  }

  /** After a step: what the failures cut off is failing in this tick; what it had collected
   *  for its subscribers or connector in this tick is dropped. */
  note(failures: readonly OperatorFailure[]): void {
    for (const m of this.#host.maintained()) {
      if (m.error !== undefined || this.#failing.has(m)) continue
      const out = this.#host.output(m)
      const f = failures.find((x) => x.cut.has(out))
      if (f === undefined) continue
      this.#failing.set(m, asRivuletError(f.error))
      this.#host.deliver(m, undefined)
    }
  }

  /** The error reading `m` raises now, if any (in error, or failing in the open tick). */
  readError(m: M): RivuletError | undefined {
    if (m.error !== undefined) return readError(m, m.error)
    const f = this.#failing.get(m)
    return f === undefined ? undefined : failingReadError(m, f)
  }

  /** The open tick is rolled back: what failed in it is as it was. */
  rollback(): void {
    if (this.#failing.size !== 0) this.#failing = new Map()
  }

  /** `m` is dropped: its row in rivulet_view_errors goes (the change, to apply). */
  forget(m: M): ivm.ZSet {
    this.#failing.delete(m)
    this.#inError.delete(m)
    const delta = new ivm.ZSet()
    const row = this.#rows.get(m)
    if (row !== undefined) {
      delta.push(row, -1)
      this.#rows.delete(m)
    }
    return delta
  }

  /** At commit (`tick` is the one committing): detaches what failed, rebuilds what is due,
   *  and brings rivulet_view_errors up to date. `changed` says whether a relation (or
   *  CLOCK) changed in this tick. */
  settle(tick: number, changed: (relation: string) => boolean): void {
    if (this.idle) return
    const host = this.#host
    /** Outputs as of the last good tick of what failed in this tick (a later round's
     *  failure of a view rebuilt in an earlier one still owes its subscribers from there). */
    const lastGood = new Map<M, ivm.ZSet | undefined>()
    const rebuilt = new Set<string>()
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const failing = this.#failing
      this.#failing = new Map()
      if (round > 0 && failing.size === 0) break
      for (const m of failing.keys()) if (!lastGood.has(m)) lastGood.set(m, host.wantsDifference(m) ? safeLastGood(host, m) : undefined)
      for (const [m, e] of failing) {
        host.detach(m)
        m.error = { code: e.code, message: e.message, since: tick, origin: undefined, lastGood: lastGood.get(m) }
        this.#inError.add(m)
      }
      for (const m of host.maintained()) {
        const e = m.error
        if (e === undefined) continue
        const due = failing.has(m) || e.origin !== undefined || [...m.dependsOn].some((d) => rebuilt.has(d)) || [...host.bases(m)].some((b) => (round === 0 ? changed(b) : b === VIEW_ERRORS))
        if (!due) continue
        const broken = [...m.dependsOn].map((d) => host.view(d)).find((v) => v?.error !== undefined)
        if (broken !== undefined) {
          const be = broken.error!
          m.error = { code: be.code, message: be.message, since: e.since, origin: be.origin ?? `${broken.kind} "${broken.name}"`, lastGood: e.lastGood }
          continue
        }
        let now: () => ivm.ZSet
        try {
          now = host.rebuild(m)
        } catch (x) {
          const r = asRivuletError(x)
          m.error = { code: r.code, message: r.message, since: e.since, origin: undefined, lastGood: e.lastGood }
          continue
        }
        m.error = undefined
        this.#inError.delete(m)
        if (m.kind !== 'sink') rebuilt.add(m.name)
        if (e.lastGood !== undefined) host.deliver(m, difference(now(), e.lastGood))
      }
      const delta = this.#syncRows()
      if (delta.length === 0) break
      host.applyErrorRows(delta)
    }
  }

  /** Puts `m` back in error as a checkpoint saw it (its row is already in the restored
   *  rivulet_view_errors): its freshly built operators are released. */
  restore(m: M, error: MaintenanceError): void {
    this.#host.detach(m)
    m.error = error
    this.#inError.add(m)
    if (m.kind !== 'sink') this.#rows.set(m, [m.name, error.code, errorText(error), error.since])
  }

  /** The change that makes rivulet_view_errors list exactly the views in error. */
  #syncRows(): ivm.ZSet {
    const delta = new ivm.ZSet()
    for (const [m, row] of this.#rows) {
      if (m.error !== undefined) continue
      delta.push(row, -1)
      this.#rows.delete(m)
    }
    for (const m of this.#inError) {
      if (m.kind === 'sink' || m.error === undefined) continue
      const e = m.error
      const row: Row = [m.name, e.code, errorText(e), e.since]
      const old = this.#rows.get(m)
      if (old !== undefined && ivm.rowsEqual(old, row)) continue
      if (old !== undefined) delta.push(old, -1)
      delta.push(row, 1)
      this.#rows.set(m, row)
    }
    return delta
  }
}

/** now − before, consolidated. */
function difference(now: ivm.ZSet, before: ivm.ZSet): ivm.ZSet {
  const z = new ivm.ZSet()
  z.append(now)
  for (let i = 0; i < before.rows.length; i++) z.push(before.rows[i]!, -before.weights[i]!)
  return z.consolidate()
}

/** The last good output; should recomputing it fail (it was computed without error at the
 *  last commit), an empty one: the connector then gets the whole new output on recovery. */
function safeLastGood<M extends Maintained>(host: ErrorHost<M>, m: M): ivm.ZSet {
  try {
    return host.lastGood(m)
  } catch {
    return new ivm.ZSet()
  }
}

/** What a plan's result was at the last commit, computed afresh in a circuit of its own
 *  from its inputs as they were then (`contents`), at the watermarks and the time of then.
 *  For a sink going into error: what its connector has received. */
export function resultAsOfCommit(plan: DeltaPlan, inputs: { readonly contents: (relation: string, versions: boolean) => ivm.ZSet; readonly watermark: (sources: readonly string[]) => number; readonly now: number }): ivm.ZSet {
  const circuit = new ivm.Circuit()
  // in UTC, as the view was built (ddl.ts)
  const { output, fresh } = withTimeZone(UTC, () => render(plan, {
    circuit,
    arrangements: new Map(),
    source: (relation, versions) => circuit.add(new ivm.InputOperator(() => inputs.contents(relation, versions === true))),
    watermark: inputs.watermark,
    now: () => inputs.now,
  }))
  const sink = circuit.add(new ivm.IntegrateOperator(output))
  fresh.push(sink)
  circuit.backfill(fresh)
  circuit.advance(fresh)
  circuit.endStep()
  return sink.contents()
}
