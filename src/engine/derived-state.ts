// State that checkpoints leave out because the log holds it already: a side of an interval
// join whose input is a stream holds exactly the stream's rows the watermarks have not freed
// (ivm/operators/interval-join.ts, "Derived sides"), and the stream's history keeps every row
// in the log. Writing that side again at every checkpoint costs as much as the rows it holds
// — for a join over the last minutes of a busy stream, every row of those minutes, again and
// again, as the watermarks turn the side over — while rebuilding it on recovery reads only the
// history's chunks whose newest event time the watermarks have not freed.
//
// A side is derived when its input is the stream's own Input, its time column is the stream's
// event-time column (so a chunk's newest time bounds every row of it), and the history keeps
// every row (no `retention` and no `retention_bytes`: nothing the side may hold was dropped).
// These are fixed for the operator's life, so every checkpoint of it derives the same sides;
// the checkpoint records them (EngineState.derived) and recovery refills them once every store
// and operator is loaded.
//
// An arrangement of a table's rows (an Arrange whose input is the table's own Input, or
// deterministic filters and projections of it: the side of a join that reads a table) holds
// exactly those rows of the table's store, which the checkpoint saves already; on W2 (a join of a million bids to their
// auctions) it doubled what every checkpoint wrote. It is left out too, and rebuilt from the
// store once the store is loaded (a plain table only: not a stream, whose history a retention
// may cut, nor a versioned table, whose input carries only its visible rows).
//
// State it keeps: none (the decisions are recomputed from the catalog at each checkpoint).

import * as ivm from '../../ivm/index.js'
import { isVolatileFunction, visitExpr, type DeltaPlan, type ScalarExpr } from '../../planner/index.js'
import { isView, TableStore } from './catalog.js'
import { AppendLog } from './stream-history.js'
import type { EngineInternals } from './internals.js'

/** An interval join's derived sides by checkpoint owner name: [name, left, right]. */
export type DerivedSides = [name: string, left: boolean, right: boolean]

/** The history a join side can be rebuilt from, if it can be. */
function historyOf(engine: EngineInternals, join: ivm.IntervalJoinOperator, isLeft: boolean): AppendLog | undefined {
  if (!join.canDerive(isLeft)) return undefined
  const input = join.inputs[isLeft ? 0 : 1]!
  for (const e of engine.catalog.entries.values()) {
    if (isView(e) || e.input !== input) continue
    const h = e.store
    const time = isLeft ? join.leftTime : join.rightTime
    if (!(h instanceof AppendLog) || !h.dropsByTimeOnly || h.timeColumn !== time || e.watermark === undefined || e.watermark.retention !== undefined) return undefined
    return h
  }
  return undefined
}

/** Tells each interval join among the named operators which sides checkpoints leave out, and
 *  returns them (joins deriving none are not listed). Called before a checkpoint's parts are
 *  read. */
export function deriveJoinSides(engine: EngineInternals, named: readonly [string, ivm.Operator][]): DerivedSides[] {
  const derived: DerivedSides[] = []
  for (const [name, op] of named) {
    if (!(op instanceof ivm.IntervalJoinOperator)) continue
    const left = historyOf(engine, op, true) !== undefined
    const right = historyOf(engine, op, false) !== undefined
    op.deriveSides(left, right)
    if (left || right) derived.push([name, left, right])
  }
  return derived
}

/** The derived sides of one owner as a short signature ('' when none), so a checkpoint
 *  extends a base only with deltas that leave out the same sides. */
export function derivedSignature(derived: readonly DerivedSides[], name: string): string {
  const d = derived.find((x) => x[0] === name)
  return d === undefined ? '' : (d[1] ? 'L' : '') + (d[2] ? 'R' : '')
}

/** After a checkpoint's stores and operators are loaded: rebuilds the sides it left out from
 *  their streams' histories (as the checkpoint saved them), and tells the joins to go on
 *  leaving them out. Returns the rows read. */
export function refillJoinSides(engine: EngineInternals, named: readonly [string, ivm.Operator][], derived: readonly DerivedSides[], mismatch: (why: string) => Error): number {
  const ops = new Map(named)
  let read = 0
  for (const [name, left, right] of derived) {
    const op = ops.get(name)
    if (!(op instanceof ivm.IntervalJoinOperator)) throw mismatch(`the checkpoint left out sides of ${name}, which is not an interval join here`)
    if ((left && !op.canDerive(true)) || (right && !op.canDerive(false))) throw mismatch(`the checkpoint left out a side of ${name} that keeps more than its input's rows here`)
    // first: the rows refilled are then not noted as changes since the checkpoint
    op.deriveSides(left, right)
    for (const isLeft of [true, false]) {
      if (!(isLeft ? left : right)) continue
      const history = historyOf(engine, op, isLeft)
      if (history === undefined) throw mismatch(`the checkpoint left out the ${isLeft ? 'left' : 'right'} side of ${name}, which cannot be rebuilt here`)
      const rows = history.committedRowsWhere((newest) => op.freed(isLeft, newest))
      read += rows.rows.length
      op.refill(isLeft, rows)
    }
  }
  return read
}

/** How an arrangement is rebuilt from a table: the store and the stateless filters and
 *  projections between the table's Input and the arrangement, lowest first. */
interface TableSource {
  readonly store: TableStore
  readonly chain: readonly ivm.MapFilterOperator[]
}

/** The plan node each Mfp operator of the maintained views and sinks came from. */
function mfpPlans(engine: EngineInternals): Map<ivm.Operator, DeltaPlan> {
  const plans = new Map<ivm.Operator, DeltaPlan>()
  for (const m of engine.ddl.maintained()) for (const [plan, op] of m.operators) if (op instanceof ivm.MapFilterOperator) plans.set(op, plan)
  return plans
}

/** Whether an Mfp plan gives the same rows each time it runs (no random(), now(), …). */
function deterministic(plan: DeltaPlan | undefined): boolean {
  if (plan === undefined || plan.kind !== 'mfp') return false
  let ok = true
  const check = (e: ScalarExpr): void =>
    visitExpr(e, (x) => {
      if ((x.kind === 'call' && isVolatileFunction(x.fn)) || x.kind === 'subquery') ok = false
    })
  if (plan.predicate !== undefined) check(plan.predicate)
  for (const e of plan.projection ?? []) check(e)
  return ok
}

/** Where an arrangement can be rebuilt from: a plain table's rows, when the arrangement holds
 *  them as they are or through deterministic filters and projections (nothing expires). */
function tableOf(engine: EngineInternals, op: ivm.Operator, plans: () => Map<ivm.Operator, DeltaPlan>): TableSource | undefined {
  if (!(op instanceof ivm.ArrangeOperator) || op.expires) return undefined
  const chain: ivm.MapFilterOperator[] = []
  let input = op.inputs[0]!
  while (input instanceof ivm.MapFilterOperator) {
    if (!deterministic(plans().get(input))) return undefined
    chain.unshift(input)
    input = input.inputs[0]!
  }
  for (const e of engine.catalog.entries.values()) {
    if (isView(e) || e.input !== input) continue
    return e.kind === 'table' && e.versions === undefined && Object.getPrototypeOf(e.store) === TableStore.prototype ? { store: e.store, chain } : undefined
  }
  return undefined
}

/** The arrangements among the named operators that checkpoints leave out, rebuilt from their
 *  tables' stores (see the header), by name. They stop noting changes (one loaded from an
 *  earlier release's checkpoint had begun to). */
export function derivedArrangements(engine: EngineInternals, named: readonly [string, ivm.Operator][]): Map<string, ivm.ArrangeOperator> {
  const derived = new Map<string, ivm.ArrangeOperator>()
  let plans: Map<ivm.Operator, DeltaPlan> | undefined
  const lazyPlans = (): Map<ivm.Operator, DeltaPlan> => (plans ??= mfpPlans(engine))
  for (const [name, op] of named) {
    if (tableOf(engine, op, lazyPlans) === undefined) continue
    const arrange = op as ivm.ArrangeOperator
    arrange.untrack()
    derived.set(name, arrange)
  }
  return derived
}

/** After a checkpoint's stores are loaded: rebuilds the arrangements it left out from their
 *  tables' rows. Returns the rows put back. */
export function refillArrangements(engine: EngineInternals, named: readonly [string, ivm.Operator][], left: readonly string[], mismatch: (why: string) => Error): number {
  const ops = new Map(named)
  const plans = mfpPlans(engine)
  let rows = 0
  for (const name of left) {
    const op = ops.get(name)
    const source = op === undefined ? undefined : tableOf(engine, op, () => plans)
    if (source === undefined) throw mismatch(`the checkpoint left out ${name}, which is not an arrangement of a table's rows here`)
    let z = source.store.snapshot()
    // a projection may make rows equal, which the arrangement then adds up
    let distinct = true
    for (const mfp of source.chain) {
      z = mfp.apply(z)
      if (mfp.fn !== undefined || mfp.filterMap !== undefined) distinct = false
    }
    ;(op as ivm.ArrangeOperator).refill(z, distinct)
    rows += z.rows.length
  }
  return rows
}
