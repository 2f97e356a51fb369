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
// Other states hold exactly rows saved elsewhere, and are rebuilt from there on recovery too:
// - an arrangement of a table's rows (an Arrange whose input is the table's own Input, or
//   deterministic filters and projections of it: the side of a join that reads a table) holds
//   those rows of the table's store, which the checkpoint saves already. On W2 (a join of a
//   million bids to their auctions) it doubled what every checkpoint wrote. Plain tables only
//   (a versioned table's input carries only its visible rows), and only while no row of the
//   table was ever deleted or updated: until then the store holds the rows in the order they
//   arrived in, which is the order the arrangement holds them in (rows of one join key, which
//   the join's output follows, so a view's scan order and a sink's lines come out as in a run
//   that never stopped). The first delete makes the next checkpoint save the arrangement (a
//   base), and every one after it.
// - an arrangement or a view of every row of a stream (its Input, or deterministic projections
//   of it; no filter, which would make recovery read the whole history to put back a part of
//   it) holds a row per row of the stream's history, which the log holds already, when the
//   history keeps every row (no retention). On Nexmark q0 (a view of every bid) each
//   checkpoint wrote each bid again. A view of a table is saved as it was: a scan follows its
//   rows' order, that of its changes, which the table's order is not.
// The checkpoint lists them (EngineState.rebuilt): each checkpoint leaves out or saves whole.
//
// State it keeps: none (the decisions are recomputed from the catalog at each checkpoint).

import * as ivm from '../../ivm/index.js'
import { isVolatileFunction, visitExpr, type DeltaPlan, type ScalarExpr } from '../../planner/index.js'
import { isView, TableStore, type TableEntry } from './catalog.js'
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

/** An operator whose state checkpoints may leave out: it integrates its input. */
type Rebuilt = ivm.ArrangeOperator | ivm.IntegrateOperator

/** Where such a state is rebuilt from: the rows (handed over a part at a time) and the
 *  stateless filters and projections between them and the operator, lowest first. */
interface RowSource {
  readonly parts: (each: (rows: ivm.ZSet) => void) => void
  /** The rows are distinct once filtered and projected (a table's, each with its count, not
   *  projected: a projection may make rows equal, which the state then adds up). */
  readonly distinct: boolean
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

/** Where an operator's state can be rebuilt from, if it can be (see the header):
 *  - an arrangement (nothing expiring) of a plain table's rows, through deterministic filters
 *    and projections, while no row of the table was ever deleted: from the table's store;
 *  - an arrangement or a view of every row of a stream whose history keeps every row, through
 *    deterministic projections (no filter: it would read the whole history to put back a
 *    part of it): from the history. A view of a table is saved (its rows' order, which scans
 *    follow, is its changes', not the table's). */
function sourceOf(op: ivm.Operator, inputs: ReadonlyMap<ivm.Operator, TableEntry>, plans: () => Map<ivm.Operator, DeltaPlan>): RowSource | undefined {
  const arrange = op instanceof ivm.ArrangeOperator
  if (!(arrange ? !(op as ivm.ArrangeOperator).expires : op instanceof ivm.IntegrateOperator)) return undefined
  const chain: ivm.MapFilterOperator[] = []
  let input = op.inputs[0]!
  while (input instanceof ivm.MapFilterOperator) {
    if (!deterministic(plans().get(input))) return undefined
    chain.unshift(input)
    input = input.inputs[0]!
  }
  const projected = chain.some((m) => m.fn !== undefined || m.filterMap !== undefined)
  const e = inputs.get(input)
  if (e === undefined) return undefined
  const store = e.store
  const proto = Object.getPrototypeOf(store) as object
  if (e.kind === 'table' && arrange && e.versions === undefined && proto === TableStore.prototype && !store.deletedAny) return { parts: (each) => each(store.snapshot()), distinct: !projected, chain }
  const whole = e.kind === 'stream' && proto === AppendLog.prototype && (store as AppendLog).dropsByTimeOnly && e.watermark?.retention === undefined
  if (whole && chain.every((m) => m.pred === undefined && m.filterMap === undefined)) return { parts: (each) => (store as AppendLog).forEachCommitted(each), distinct: false, chain }
  return undefined
}

/** The tables and streams by their Input operator. */
function inputsOf(engine: EngineInternals): Map<ivm.Operator, TableEntry> {
  const inputs = new Map<ivm.Operator, TableEntry>()
  for (const e of engine.catalog.entries.values()) if (!isView(e)) inputs.set(e.input, e)
  return inputs
}

/** The operators among the named ones whose state checkpoints leave out, rebuilt from tables'
 *  stores and streams' histories (see the header), by name. They stop noting changes (one
 *  loaded from an earlier release's checkpoint had begun to). */
export function derivedStates(engine: EngineInternals, named: readonly [string, ivm.Operator][]): Map<string, Rebuilt> {
  const derived = new Map<string, Rebuilt>()
  let plans: Map<ivm.Operator, DeltaPlan> | undefined
  const lazyPlans = (): Map<ivm.Operator, DeltaPlan> => (plans ??= mfpPlans(engine))
  const inputs = inputsOf(engine)
  for (const [name, op] of named) {
    if (sourceOf(op, inputs, lazyPlans) === undefined) continue
    const rebuilt = op as Rebuilt
    rebuilt.untrack()
    derived.set(name, rebuilt)
  }
  return derived
}

/** After a checkpoint's stores are loaded: rebuilds the states it left out from the tables'
 *  rows and the streams' histories, filtered and projected again. */
export function refillStates(engine: EngineInternals, named: readonly [string, ivm.Operator][], left: readonly string[], mismatch: (why: string) => Error): void {
  const ops = new Map(named)
  const plans = mfpPlans(engine)
  const inputs = inputsOf(engine)
  for (const name of left) {
    const op = ops.get(name)
    const source = op === undefined ? undefined : sourceOf(op, inputs, () => plans)
    if (source === undefined) throw mismatch(`the checkpoint left out the state of ${name}, which cannot be rebuilt here`)
    const { parts, chain } = source
    ;(op as Rebuilt).refill((add) =>
      parts((z) => {
        for (const m of chain) z = m.apply(z)
        add(z)
      }), source.distinct)
  }
}
