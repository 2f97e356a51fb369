// The tick pipeline: the one place where a tick begins, becomes durable and ends. Every write
// path — an auto-committed statement, a BEGIN … COMMIT block's commit, insert()/delete(),
// COPY, a source's micro-batch — runs inside `run` and ends in `commit` or `rollback`:
//   stage     a relation's input changes are stored (journaled until commit) and handed to
//             its input operator (`stage`, `applyDelta`, `insertSourceRows`)
//   apply     the circuit steps over what was staged: every view and sink (`apply`); a
//             tick's statements stage and apply in turn
//   advance   watermarks move, windows close, time-driven views advance (`advanceWatermarks`)
//   seal      the tick's input is complete (`seal`): the seam where the durable log appends
//             it, write-ahead, before anything is committed (`onSeal` listens)
//   commit    views in error settle, stores and operators commit, the tick number advances
//   publish   sinks and subscribers receive the tick's consolidated changes (`publish`)
//   rollback  any failure before commit: every store, operator and watermark back to the
//             tick's start, so a failed statement changes nothing.
// State it keeps: the stores and streams touched in the open tick, the tick's input (for the
// seal), the tick's processing time, and the count of committed ticks.

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { TableStore, VersionStore, type TableEntry } from './catalog.js'
import { EffectRecorder, EngineSession } from './transactions.js'
import type { ChangeBatch, SubscriberErrorContext } from '../types.js'
import { CLOCK } from './view-errors.js'
import { clock as wallClock } from '../sql-runtime/values.js'
import { columnInfo } from './names.js'
import type { EngineInternals } from './internals.js'

/** One piece of a tick's input, as the durable log records it (durable-log.ts): rows entering
 *  a relation's store (weights +1 insert, −1 delete), late events split off a stream, new
 *  versions of a versioned table, a source's position after its batch. */
export type LogOp =
  | { readonly op: 'rows'; readonly relation: string; readonly delta: ivm.ZSet }
  | { readonly op: 'late' | 'versions'; readonly relation: string; readonly rows: readonly Row[] }
  | { readonly op: 'source'; readonly source: string; readonly offset: unknown }

/** A tick at its seal: the number it commits as, its processing time (µs), and its input. */
export interface SealedTick {
  readonly tick: number
  readonly now: number
  readonly ops: readonly LogOp[]
}

export class TickPipeline {
  constructor(private readonly engine: EngineInternals) {}

  /** Tables written in the open tick (their stores journal until commit). */
  readonly touched = new Set<TableStore | VersionStore>()
  committed = 0
  /** Streams that received rows (or late events) in the open tick. */
  readonly streamsTouched = new Set<TableEntry>()
  /** Relations changed in the open tick (what views in error are rebuilt on). */
  readonly changed = new Set<string>()
  readonly errorListeners = new Set<(error: unknown, context: SubscriberErrorContext) => void>()
  tickNow: number | undefined
  /** While the log replays: the processing time the replayed record had. */
  replayNow: number | undefined
  /** Processing time up to which time-driven operators have been advanced (µs). */
  advancedTo = -Infinity

  refresh(): boolean {
    this.engine.checkOpen()
    this.engine.sessions.checkNotAborted()
    if (this.engine.sessions.current.block !== 'none') return false
    this.engine.sessions.park()
    const before = this.committed
    this.onClock(() => this.run(() => undefined))
    return this.committed !== before
  }

  /** The open tick's processing time in µs (read from the clock once per tick; a clock that
   *  steps back holds time still for the views). */
  now(): number {
    if (this.tickNow === undefined) {
      if (this.replayNow !== undefined) return (this.tickNow = this.replayNow)
      const c = this.engine.clock()
      const ms = c instanceof Date ? c.getTime() : c
      this.tickNow = Math.max(Math.round(ms * 1000), this.advancedTo)
    }
    return this.tickNow
  }

  /** Runs `f` with NOW(), CURRENT_DATE and 'now' reading this engine's tick time. */
  onClock<T>(f: () => T): T {
    if (this.onClockDepth > 0) return f()
    const saved = wallClock.nowMicros
    this.wall = saved
    wallClock.nowMicros = () => this.now()
    this.onClockDepth++
    try {
      return f()
    } finally {
      this.onClockDepth--
      wallClock.nowMicros = saved
    }
  }

  onClockDepth = 0
  /** The process clock as it was outside #onClock (what the default engine clock reads). */
  wall: () => number = wallClock.nowMicros

  onError(listener: (error: unknown, context: SubscriberErrorContext) => void): () => void {
    this.errorListeners.add(listener)
    return () => void this.errorListeners.delete(listener)
  }

  /** Runs `f` as a tick (committed at once), or, inside the current session's block, as one of
   *  the block's writes (recorded with its effect, so it can be redone; see transactions.ts).
   *  On error the tick rolls back, or the block aborts. DDL (`dml = false`) is refused inside
   *  blocks before it gets here. */
  run<T>(f: () => T, dml = true): T {
    const me = this.engine.sessions.current
    if (me.block === 'open' && dml) return this.blockWrite(me, f)
    const outermost = this.#runDepth === 0
    const started = outermost ? performance.now() : 0
    this.#runDepth++
    let r: T
    try {
      r = f()
      if (dml) this.commit()
      else this.commitSilently()
    } catch (e) {
      this.rollback()
      throw e
    } finally {
      this.#runDepth--
    }
    // between ticks: a checkpoint that is due is taken here (see Checkpoints.afterRun)
    if (outermost) this.engine.checkpoints.afterRun(performance.now() - started)
    return r
  }

  /** Ticks running (a subscriber's statement runs inside the tick that notified it). */
  #runDepth = 0

  blockWrite<T>(me: EngineSession, f: () => T): T {
    this.engine.sessions.open = me
    // NOW() in a block is the block's start, also when its writes are redone
    if (me.now === undefined) me.now = this.now()
    else this.tickNow = me.now
    const recorder = new EffectRecorder()
    this.engine.sessions.recorder = recorder
    try {
      const r = f()
      me.writes.push({ redo: f, effect: recorder.finish() })
      return r
    } catch (e) {
      this.engine.sessions.abortBlock()
      throw e
    } finally {
      this.engine.sessions.recorder = undefined
    }
  }

  /** Ends the open tick: advance watermarks → seal → commit → publish. Throws (the tick rolled
   *  back) when advancing or sealing fails; after the commit stage nothing can undo it. */
  commit(): void {
    // the tick's time is the clock at its commit: time-driven views end the tick as of then
    if (this.tickNow !== undefined) {
      this.tickNow = undefined
      this.now()
    }
    this.engine.tombstones.atCommit(this.now())
    const clockBefore = this.advancedTo
    const advanced = this.advanceWatermarks()
    this.seal(advanced)
    if (!this.engine.errors.idle) this.settleErrors(clockBefore)
    this.commitStores(advanced)
    this.publish()
  }

  /** The seal: the tick's input is complete and its watermarks have advanced. Its statements
   *  stage and apply in turn (a later statement of a block reads what an earlier one did), so
   *  only here is all of it known; nothing of it is visible yet, and nothing is committed. The
   *  durable log appends it here, write-ahead; a listener that throws rolls the tick back. A
   *  tick that only lets time pass (`advanced`) is sealed too: it is a tick of its own. */
  seal(advanced: boolean): void {
    if (this.touched.size === 0 && !advanced) return
    const ops = this.ops
    this.ops = []
    this.sealed = true
    const tick: SealedTick = { tick: this.committed + 1, now: this.now(), ops }
    try {
      for (const l of this.sealListeners) l(tick)
    } catch (e) {
      this.rollback()
      throw e
    }
  }

  /** Listens to sealed ticks (the durable log's seam); returns the function that stops it. */
  onSeal(listener: (tick: SealedTick) => void): () => void {
    this.sealListeners.add(listener)
    return () => void this.sealListeners.delete(listener)
  }

  readonly sealListeners = new Set<(tick: SealedTick) => void>()
  /** The open tick's input, in the order staged (kept only while someone listens to seals). */
  ops: LogOp[] = []
  /** True after the seal: what is staged then (view errors' rows) is derived, not input. */
  sealed = false

  /** Records a piece of the open tick's input for the seal. */
  record(op: LogOp): void {
    if (this.sealListeners.size > 0 && !this.sealed && !this.engine.log.replaying) this.ops.push(op)
  }

  /** The commit stage: operators and stores keep what the tick did, watermarks take their new
   *  values (retention frees history below them), and the tick number advances when the tick
   *  changed anything. */
  commitStores(advanced: boolean): void {
    this.changed.clear()
    this.engine.circuit.commit()
    for (const t of this.streamsTouched) {
      const w = t.watermark!
      if (w.pending > w.current) w.current = w.pending
      w.pending = -Infinity
      w.late += w.pendingLate
      w.pendingLate = 0
      if (w.retention !== undefined) this.engine.eventTime.retain(t, w)
    }
    this.streamsTouched.clear()
    for (const t of this.touched) t.commit()
    const hadChanges = this.touched.size > 0 || advanced
    this.touched.clear()
    this.tickNow = undefined
    this.sealed = false
    if (hadChanges) this.committed++
  }

  /** The publish stage: each sink writes the tick's changes, each subscriber gets its batch. A
   *  subscriber that throws changes nothing (reportSubscriberError). */
  publish(): void {
    if (this.engine.connectors.sinks.size > 0) this.engine.connectors.writeSinks()
    for (const e of this.engine.catalog.subscribed) {
      if (e.pending.length === 0) continue
      const delta = e.pending.consolidate()
      e.pending = new ivm.ZSet()
      if (delta.length === 0 || e.subscribers.size === 0) continue
      const batch: ChangeBatch = { tick: this.committed, columns: columnInfo(e.columns), changes: this.engine.reads.resultChanges(delta, e.columns) }
      for (const s of e.subscribers) {
        try {
          s.callback(batch)
        } catch (error) {
          // the tick is committed and the other subscribers get their batch all the same
          this.reportSubscriberError(error, { view: e.name, tick: this.committed })
        }
      }
    }
  }

  /** A subscriber's callback threw: the onError listeners hear of it; without any, it is
   *  rethrown outside the engine's call (an uncaught exception, as an 'error' event nobody
   *  listens to), so it is never lost and never fails the write. */
  reportSubscriberError(error: unknown, context: SubscriberErrorContext): void {
    if (this.errorListeners.size === 0) {
      queueMicrotask(() => {
        throw error
      })
      return
    }
    for (const l of this.errorListeners) {
      try {
        l(error, context)
      } catch {
        // a listener that throws must not fail the tick either
      }
    }
  }

  /** Commit's part for views and sinks that failed in this tick or are in error: detached,
   *  rebuilt when due, listed in rivulet_view_errors (see view-errors.ts). The rebuilt views
   *  see the watermarks as they are after this tick, as its advance did. */
  settleErrors(clockBefore: number): void {
    this.clockBeforeTick = clockBefore
    try {
      this.engine.errors.settle(this.committed + 1, (r) => (r === CLOCK ? this.advancedTo > clockBefore : this.changed.has(r)))
    } finally {
      this.clockBeforeTick = undefined
    }
  }

  /** The clock the views were last advanced to before the open tick's commit (what a sink's
   *  last good output was computed at). */
  clockBeforeTick: number | undefined

  commitSilently(): void {
    // a DDL tick that changed a relation (a dropped view leaves rivulet_view_errors) commits
    // as a tick of its own
    if (this.touched.size > 0) return this.commit()
    this.tickNow = undefined
    this.ops = []
    this.engine.circuit.commit()
    for (const t of this.touched) t.commit()
    this.touched.clear()
  }

  /** End of a tick: streams whose watermark moves let watermark-driven operators emit
   *  (EMIT ON WINDOW CLOSE) and free state, within this tick. The new watermarks are visible
   *  to them already; the tick still rolls back as a whole if this fails. */
  advanceWatermarks(): boolean {
    let moved = false
    for (const t of this.streamsTouched) if (t.watermark!.pending > t.watermark!.current) moved = true
    if (this.engine.temporalViews.size > 0 && this.now() > this.advancedTo) moved = true
    if (!moved) return false
    this.watermarkPreview = true
    try {
      const emitted = this.engine.circuit.advance()
      if (this.engine.temporalViews.size > 0) this.advancedTo = this.now()
      if (this.engine.circuit.hasFailures) this.engine.errors.note(this.engine.circuit.takeFailures())
      for (const e of this.engine.catalog.subscribed) if (e.sink.out.length > 0) e.pending.append(e.sink.out)
      return emitted
    } catch (e) {
      this.rollback()
      throw e
    } finally {
      this.watermarkPreview = false
      this.engine.circuit.endStep()
    }
  }

  /** True while #advanceWatermarks runs: watermarks read as they will be after the tick. */
  watermarkPreview = false

  rollback(): void {
    this.tickNow = undefined
    this.engine.tombstones.rollback()
    this.ops = []
    this.sealed = false
    this.engine.errors.rollback()
    this.changed.clear()
    for (const t of this.streamsTouched) {
      t.watermark!.tickRows = []
      t.watermark!.pending = -Infinity
      t.watermark!.pendingLate = 0
    }
    this.streamsTouched.clear()
    this.engine.circuit.rollback()
    for (const t of this.touched) t.rollback()
    this.touched.clear()
    for (const e of this.engine.catalog.subscribed) if (e.pending.length !== 0) e.pending = new ivm.ZSet()
    for (const sink of this.engine.connectors.sinks.values()) if (sink.pending.length !== 0) sink.pending = new ivm.ZSet()
  }

  /** Applies a validated, consolidated delta to a table and runs the circuit. */
  applyDelta(t: TableEntry, delta: ivm.ZSet): void {
    if (delta.length === 0) return
    if (t.versions) return this.engine.eventTime.applyVersions(t, this.engine.eventTime.versionsOf(t, delta))
    this.stage(t, delta)
    this.apply()
  }

  /** Stores a delta and hands it to the table's input, without running the circuit yet. */
  stage(t: TableEntry, delta: ivm.ZSet): void {
    this.engine.sessions.recorder?.record(t.name, delta)
    // rivulet_late_events and rivulet_view_errors are derived: replay makes them again
    if (t !== this.engine.lateEventsTable && t !== this.engine.viewErrors) this.record({ op: 'rows', relation: t.name, delta })
    this.touched.add(t.store)
    this.changed.add(t.name)
    t.store.apply(delta)
    t.input.push(delta)
  }

  /** Stages and applies a delta of a relation the engine derives from the tick (rivulet_tombstones):
   *  not recorded for the log or a block, since replaying the tick derives it again. */
  stageDerived(t: TableEntry, delta: ivm.ZSet): void {
    this.touched.add(t.store)
    this.changed.add(t.name)
    t.store.apply(delta)
    t.input.push(delta)
    this.apply()
  }

  /** A versioned table's change: its visible rows and the new versions of its history, staged
   *  together so both flow on in the same step. */
  stageVersions(t: TableEntry, visible: ivm.ZSet, history: ivm.ZSet): void {
    const recorder = this.engine.sessions.recorder
    recorder?.record(t.name, visible)
    recorder?.record(`${t.name} versions`, history)
    this.touched.add(t.versions!)
    this.touched.add(t.store)
    this.changed.add(t.name)
    t.store.apply(visible)
    if (visible.length > 0) t.input.push(visible)
    t.versionInput!.push(history)
  }

  /** Runs the circuit over what was staged: every operator steps once for all of it. */
  apply(): void {
    try {
      this.engine.circuit.step()
      // a view whose maintenance raised is cut off for this tick, the rest goes on
      if (this.engine.circuit.hasFailures) this.engine.errors.note(this.engine.circuit.takeFailures())
      for (const e of this.engine.catalog.subscribed) if (e.sink.out.length > 0) e.pending.append(e.sink.out)
    } finally {
      this.engine.circuit.endStep()
    }
  }

  /** A source's micro-batch: rows for each of its streams (keyless streams, the engine's
   *  representation), staged together and run through the circuit in one step, so each
   *  operator handles the tick's changes of all of them at once. */
  insertSourceRows(streams: readonly TableEntry[], rows: readonly Row[][]): void {
    let staged = false
    for (let i = 0; i < streams.length; i++) {
      const t = streams[i]!
      const batch = rows[i]!
      if (batch.length === 0) continue
      this.engine.dml.checkNotNullRows(t, batch)
      const onTime = this.engine.eventTime.acceptOnTime(t, batch)
      if (onTime.length === 0) continue
      const weights = new Array<number>(onTime.length).fill(1)
      this.stage(t, new ivm.ZSet(onTime as Row[], weights))
      staged = true
    }
    if (staged) this.apply()
  }
}
