// Checkpoints of a durable engine: its whole state — every store, watermark and late-event
// count, every operator's state, the OIDs, each source's offset and the log offsets — written
// atomically with the log position it covers (`seq`). Reopening loads the newest good one and
// replays only the log after it.
//
// How the state finds its operators again: the circuit is rebuilt by running the log's DDL up
// to the checkpoint on empty stores (cheap: no data flows), which renders every view and sink
// exactly as before, then each operator loads its saved state (ivm's saveState / loadState).
// An operator is named by who made it — shared arrangements by their plan fingerprint, every
// other operator by its view or sink and its position among that one's own operators — so
// operators of SUBSCRIBE's hidden views, of ad-hoc queries or of dropped views never shift
// the names of the rest. A checkpoint that does not match what the DDL rebuilt (a release
// that renders a plan differently) is not used: recovery falls back to an older one or to the
// start of the log, and says so.
//
// Checkpoints are incremental where the state is a map of keys (tables, arrangements, view
// contents, GROUP BY groups: ivm/keyed-state.ts): such an owner saves a base with every key
// once, then in each later checkpoint only the keys changed since the one before (a delta),
// so a checkpoint's pause follows the change, not the state. A checkpoint reads per owner its
// base and the deltas after it; once an owner's deltas outweigh its base (or are many), it
// saves a new base. Other operators (windows, as-of joins) and streams' histories are saved
// whole each time.
//
// A checkpoint does not stop the ticks for the time it takes. It is fixed at a point between
// two ticks — the log position it covers, every relation's offset, the state saved whole, and
// a snapshot of each keyed owner (copy on write: ivm/keyed-state.ts) — and its parts are then
// encoded and written a slice at a time (`sliceMs`) between the ticks that follow: after each
// statement's or source batch's tick, and on turns of the event loop while nothing runs. Once
// every part is written (and synced as it went), one SQLite transaction names it. CHECKPOINT
// and a clean close finish the one in flight and take theirs at once. A crash before the
// commit leaves a file nothing names (deleted at the next open) and the previous checkpoints.
// A view or sink in error
// holds no operators: the checkpoint records its error, and loading puts it back in error. It
// is refused while a sink has stopped on a failed write — what the sink still has to write is
// only in the log before the checkpoint — and while an operator holds state it has no
// saveState for (no operator of this release).
//
// State it keeps: the last offset each source logged, when the last checkpoint was taken, per
// keyed owner which checkpoint holds its base and how much its deltas since weigh, and the
// checkpoint in flight, if one is.

import * as ivm from '../../ivm/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import type { DataDirectory, StoredCheckpoint } from '../storage/data-dir.js'
import { decodeState, encodeState } from '../storage/state-codec.js'
import { decodeKeyedPart } from '../storage/part-codec.js'
import { InFlight, type OwnerPart } from './checkpoint-in-flight.js'
import { Rebaser } from '../storage/rebaser.js'
import { isView, type StreamWatermark } from './catalog.js'
import { HIDDEN_PREFIX } from './names.js'
import { AppendLog } from './stream-history.js'
import type { EngineInternals } from './internals.js'
import type { RelationLog } from './durable-log.js'
import type { CheckpointRow } from './system-catalog-tables.js'
import { deriveJoinSides, derivedSignature, derivedStates, refillStates, refillJoinSides, type DerivedSides } from './derived-state.js'

/** Version of the checkpoint body's layout (independent of the data directory's). 1: all
 *  state in the body; 2: keyed owners' state in parts (`keyed`); 3: interval-join sides left
 *  out, rebuilt from streams' histories (`derived`: derived-state.ts); 4: arrangements of
 *  tables' rows and views and arrangements of streams' rows left out, rebuilt from the tables
 *  and histories (`rebuilt`). All are read; a release that reads up to 3 refuses a 4 rather
 *  than load a join or view without its state. */
const STATE_VERSION = 4

/** An owner saves a new base once its deltas since the last weigh more than the base, or
 *  after this many of them (each is read on recovery). */
const MAX_DELTAS = 1000
/** A base of at least this many bytes is rewritten by the worker thread, off the ticks' path;
 *  a smaller one by the checkpoint itself (it costs less than the trip). */
const WORKER_REBASE_BYTES = 1 << 20
/** Deltas this many times heavier than their base (the worker failing or behind) make the
 *  checkpoint itself save a base after all. */
const DELTAS_PER_BASE_AT_MOST = 4
/** An owner whose noted changes are this share of its keys or more saves a base, as does one
 *  whose last delta weighed as much as its base, of at least this many bytes, and whose
 *  obsolete entries since are this share of its keys (see churned). */
const CHURNED_SHARE = 1.5
const CHURNED_BYTES = 64 * 1024
const TURNED_OVER_SHARE = 0.5
/** Milliseconds of a checkpoint's writing between two ticks (see the header). */
const SLICE_MS = 15
/** Keys a chunk of a part holds at most (a chunk is encoded in one go). */
const CHUNK_KEYS = 4096

/** What the checkpoints so far saved of a keyed owner (see the header). */
interface KeyedTrack {
  /** The operator or store saved (a view dropped and created again is another one). */
  readonly target: object
  /** The id of the checkpoint holding its base. */
  readonly base: number
  readonly baseBytes: number
  /** The deltas' bytes, summed. */
  readonly deltaBytes: number
  /** The deltas since the base: [checkpoint id, bytes] (a rewrite of the base at one of them
   *  keeps the ones after it). */
  readonly sizes: readonly [number, number][]
  /** The sides its parts leave out (derivedSignature): a delta extends only a base that left
   *  out the same. */
  readonly derived: string
}

/** Something whose state checkpoints save by keys: a keyed operator or a table's store. */
interface KeyedOwner {
  readonly name: string
  readonly kind: string
  readonly target: ivm.KeyedCheckpoint
}

/** A keyed owner as a checkpoint read it: its parts merged. */
interface MergedOwner {
  readonly kind: string
  readonly whole: unknown
  readonly entries: ivm.KeyedEntries
  readonly base: number
  readonly baseBytes: number
  readonly deltaBytes: number
  readonly sizes: [number, number][]
  readonly derived: string
}

/** A checkpoint's body: plain data (src/storage/state-codec.ts). */
interface EngineState {
  readonly version: number
  readonly tick: number
  readonly advancedTo: number
  readonly stores: [string, StoreState][]
  /** [name, operator kind, state] */
  readonly operators: [string, string, unknown][]
  readonly relations: [string, RelationLog][]
  readonly sources: [string, unknown][]
  readonly oids: Map<string, number>
  /** Views and sinks in error: ['view v' | 'sink s', error (last good output as rows, weights)]. */
  readonly errors: [string, SavedError][]
  /** Version 2: the owners saved in parts, [name, kind] (their state is not in `stores` or
   *  `operators`). */
  readonly keyed?: [string, string][]
  /** Version 3: interval-join sides its parts leave out, rebuilt on load (derived-state.ts). */
  readonly derived?: DerivedSides[]
  /** Version 4: the operators whose state it leaves out, rebuilt on load from tables and
   *  streams' histories (derived-state.ts), by name. */
  readonly rebuilt?: string[]
  /** Filled by `read`, not stored: the keyed owners' merged parts. */
  merged?: Map<string, MergedOwner>
}

interface SavedError {
  readonly code: string
  readonly message: string
  readonly since: number
  readonly origin: string | undefined
  readonly lastGood: { rows: ivm.Row[]; weights: number[] } | undefined
}

interface StoreState {
  readonly store: unknown
  /** Layout 4: TableStore.deletedAny (absent before: taken as true). */
  readonly deletedAny?: boolean
  readonly versions: unknown
  readonly watermark: { current: number; pending: number; late: number; pendingLate: number; history: unknown[] } | null
}

/** Thrown while restoring when a checkpoint does not fit the rebuilt circuit. */
export class CheckpointMismatch extends Error {}


export class Checkpoints {
  constructor(private readonly engine: EngineInternals) {}

  /** The offset each source logged last (what a checkpoint stores for it). */
  readonly sourceOffsets = new Map<string, unknown>()
  /** Milliseconds between checkpoints (`checkpointInterval`); 0: only CHECKPOINT and close. */
  intervalMs = 10_000
  /** Milliseconds of tick work after which a checkpoint is due before the interval has passed
   *  (`maxReplay`; 0: none): it bounds what recovery replays. */
  maxReplayMs = 500
  /** Tick work since the newest checkpoint (ms), and how long that checkpoint took. */
  #workMs = 0
  #lastMillis = 0
  /** Processing time the log keeps behind the newest tick (`logRetention`, ms; 0: only what
   *  recovery needs), with checkpoints spread over it for SUBSCRIBE … SINCE. */
  logRetentionMs = 3_600_000
  /** The last log record the newest checkpoint covers (so an idle engine takes no new ones;
   *  a DDL statement since then is news too). */
  lastSeq = -1
  #lastAt = performance.now()
  /** The turn of the event loop that begins a due checkpoint, if one is scheduled. */
  #scheduled: NodeJS.Immediate | undefined
  /** Whether close() checkpoints (tests turn it off to leave a directory as a crash would). */
  onCloseEnabled = true
  /** Per keyed owner, what the checkpoints so far hold of it (see the header). */
  readonly #keyed = new Map<string, KeyedTrack>()
  /** Rewrites bases off the main thread (one worker per data directory). */
  #rebaser: Rebaser | undefined
  /** Owners whose base the worker is rewriting. */
  readonly #rebasing = new Set<string>()
  /** Names the files of base rewrites apart. */
  #nextRebase = 1
  /** Bases at least this big are rewritten by the worker (tests lower it). */
  workerRebaseBytes = WORKER_REBASE_BYTES
  /** How many of the worker's rewritten bases the checkpoints have taken up (tests). */
  rebasesAdopted = 0

  /** The operators a checkpoint saves, by name (see the header). */
  named(): [string, ivm.Operator][] {
    const named: [string, ivm.Operator][] = []
    const shared = new Set<ivm.Operator>(this.engine.arrangements.values())
    for (const [fingerprint, op] of this.engine.arrangements) if (this.engine.circuit.has(op)) named.push(['arrangement ' + fingerprint, op])
    for (const m of this.engine.ddl.maintained()) {
      if (m.name.startsWith(HIDDEN_PREFIX)) continue
      let i = 0
      for (const op of m.owned) if (!shared.has(op)) named.push([`${m.kind === 'sink' ? 'sink' : 'view'} ${m.name} #${i++}`, op])
    }
    return named
  }

  /** Why a checkpoint cannot be taken now, if it cannot. */
  refusal(): string | undefined {
    for (const m of this.engine.ddl.maintained()) {
      if (m.name.startsWith(HIDDEN_PREFIX)) continue
      if (m.kind === 'sink' && m.writeError !== undefined) return `sink "${m.name}" ${m.writeError}`
    }
    for (const [name, op] of this.named()) if (op.saveState === undefined && op.stateSize() > 0) return `operator ${name} (${op.name}) holds state it cannot save`
    return undefined
  }

  /** Takes a checkpoint now (between ticks), finishing the one in flight first; returns its
   *  row. */
  take(): CheckpointRow {
    const dir = this.engine.log.dir
    if (dir === undefined) throw new RivuletError(SqlState.objectNotInPrerequisiteState, 'CHECKPOINT needs a data directory (Engine.open({ dir }) or --data DIR)')
    this.#finishInFlight()
    const f = this.#begin(false)
    this.#write(f, Infinity)
    return this.#commit(f)
  }

  /** Milliseconds of a checkpoint's writing between two ticks (tests lower it). */
  sliceMs = SLICE_MS
  /** Keys per chunk (tests lower it so parts come in many chunks). */
  chunkKeys = CHUNK_KEYS
  /** Whether a checkpoint in flight writes its bases before its point, read while ticks go on
   *  (tests turn it off, for bases by copy on write). */
  fuzzyBases = true
  /** The longest pause each step of the checkpoints taken automatically made so far, in
   *  milliseconds: fixing one at its point, a slice of its writing, its commit (benchmarks). */
  readonly longest = { begin: 0, slice: 0, commit: 0 }
  /** The checkpoint in flight, if any. */
  #inFlight: InFlight | undefined
  /** The turn of the event loop that writes the next slice, if one is scheduled (cleared on
   *  close: a pending one would keep the closed engine's state alive). */
  #pumping: NodeJS.Immediate | undefined

  /** Whether a checkpoint is in flight (tests, benchmarks). */
  get inFlight(): boolean {
    return this.#inFlight !== undefined
  }

  /** Starts a checkpoint: its file, and with `fuzzy` the bases it writes read before its
   *  point (see checkpoint-in-flight.ts); without, it is fixed at once. */
  #begin(fuzzy: boolean): InFlight {
    const engine = this.engine
    const dir = engine.log.dir!
    engine.log.checkWritable()
    const why = this.refusal()
    if (why !== undefined) throw new RivuletError(SqlState.objectNotInPrerequisiteState, `cannot take a checkpoint while ${why}`)
    const started = performance.now()
    // a base the worker has rewritten since serves this checkpoint already
    this.#rebaser?.poll()
    const writer = dir.beginCheckpoint()
    const parts: OwnerPart[] = []
    if (fuzzy) {
      const derived = deriveJoinSides(engine, this.named())
      for (const o of this.#keyedOwners()) {
        if (this.#deltaOf(o, derived) !== undefined) continue
        parts.push({ owner: o.name, target: o.target, base: null, fuzzy: true, snap: o.target.fuzzyBaseKeyed() })
      }
    }
    const f = new InFlight(dir, writer, parts, performance.now() - started)
    if (parts.length === 0) this.#fix(f)
    return f
  }

  /** The base an owner's next part extends (a delta), or undefined (a base). */
  #deltaOf(o: KeyedOwner, derived: readonly DerivedSides[]): number | undefined {
    const t = this.#keyed.get(o.name)
    if (t === undefined || t.target !== o.target || t.derived !== derivedSignature(derived, o.name)) return undefined
    // a big base is rewritten by the worker; the checkpoint saves one itself for a small owner,
    // or when the worker fails or falls far behind; an owner that changed about every key
    // since saves a base: no bigger than the delta, and nothing for recovery or the worker to
    // merge
    const limit = t.baseBytes >= this.workerRebaseBytes ? DELTAS_PER_BASE_AT_MOST * t.baseBytes : t.baseBytes
    return t.sizes.length < MAX_DELTAS && t.deltaBytes <= limit && !churned(o.target, t) ? t.base : undefined
  }

  /** Fixes the checkpoint here, between two ticks: its point, the state saved whole, and each
   *  keyed owner's snapshot — the delta since its fuzzy base began, for an owner that has one. */
  #fix(f: InFlight): void {
    const started = performance.now()
    const engine = this.engine
    const dir = f.dir
    const owners: OwnerPart[] = []
    let body: Buffer
    try {
      dir.fixPoint()
      const derived = deriveJoinSides(engine, this.named())
      f.derived = derived
      const keyedOwners = this.#keyedOwners()
      const fuzzy = new Map(f.fuzzy.map((p) => [p.owner, p]))
      for (const o of keyedOwners) {
        const fz = fuzzy.get(o.name)
        if (fz !== undefined && fz.target === o.target) {
          owners.push({ owner: o.name, target: o.target, base: f.writer.id, fuzzy: false, snap: o.target.snapshotKeyed(false) })
          continue
        }
        const base = this.#deltaOf(o, derived)
        owners.push({ owner: o.name, target: o.target, base: base ?? null, fuzzy: false, snap: o.target.snapshotKeyed(base === undefined) })
      }
      body = encodeState(this.#wholeState(keyedOwners, derived))
    } catch (e) {
      for (const o of owners) o.snap.close()
      this.#abort(f)
      throw e
    }
    const seq = dir.nextSeq - 1
    const clock = engine.clock()
    f.fix(
      {
        tick: engine.ticks.committed,
        seq,
        offsets: JSON.stringify(Object.fromEntries([...engine.log.relations].map(([name, r]) => [name, r.next]))),
        keepFrom: this.keepFrom(seq),
        takenAt: new Date().toISOString(),
        now: Math.round((clock instanceof Date ? clock.getTime() : clock) * 1000),
      },
      body,
      owners,
    )
    const ms = performance.now() - started
    f.workMs += ms
    this.longest.begin = Math.max(this.longest.begin, ms)
    // what recovery replays after a crash is the work since this point
    this.#lastAt = performance.now()
    this.#workMs = 0
  }

  /** Writes slices of the parts for up to `ms` milliseconds, fixing the checkpoint once its
   *  fuzzy bases are written (a failure gives it up); returns whether every part is written. */
  #write(f: InFlight, ms: number): boolean {
    try {
      if (f.write(ms, this.chunkKeys) && f.point === undefined) {
        this.#fix(f)
        return false
      }
      return f.point !== undefined && f.written
    } catch (e) {
      this.#abort(f)
      throw e
    }
  }

  /** Names the written checkpoint: its row, the log truncated behind what is kept. */
  #commit(f: InFlight): CheckpointRow {
    const started = performance.now()
    this.#inFlight = undefined
    const point = f.point!
    const body = f.body!
    const taken_at = point.takenAt
    const { tick, seq, offsets } = point
    // the fuzzy bases of owners gone, or replaced, before the point are not the owners' bases
    const based = new Set(f.owners.filter((o) => o.base === f.writer.id).map((o) => o.owner))
    let id: number
    try {
      id = f.dir.commitCheckpoint(f.writer, { tick, seq, taken_at, offsets, millis: f.workMs }, body, point.keepFrom, point.now, this.logRetentionMs * 1000, (owner) => based.has(owner))
    } catch (e) {
      f.closeSnapshots()
      this.#keyed.clear()
      throw e
    }
    const keyed = new Map<string, KeyedTrack>()
    let bytes = body.length
    for (const o of f.owners) {
      const size = f.sizes.get(o.owner) ?? 0
      bytes += size
      const t = this.#keyed.get(o.owner)
      const derived = derivedSignature(f.derived, o.owner)
      if (o.base === id) {
        // a fuzzy base, and its delta
        const baseBytes = f.fuzzySizes.get(o.owner) ?? 0
        bytes += baseBytes
        keyed.set(o.owner, { target: o.target, base: id, baseBytes, deltaBytes: size, sizes: [[id, size]], derived })
      } else keyed.set(o.owner, o.base === null || t === undefined ? { target: o.target, base: id, baseBytes: size, deltaBytes: 0, sizes: [], derived } : { ...t, deltaBytes: t.deltaBytes + size, sizes: [...t.sizes, [id, size]] })
    }
    this.#keyed.clear()
    for (const [k, t] of keyed) this.#keyed.set(k, t)
    const millis = f.workMs + performance.now() - started
    this.#startRebases(f.dir, { id, tick, seq, taken_at, offsets, bytes, millis, parts: null })
    this.#lastMillis = millis
    this.lastSeq = seq
    return { tick, log_seq: seq, offsets, bytes, millis, taken_at }
  }

  /** Gives up the checkpoint in flight: its file goes, and the next checkpoint saves bases
   *  (the owners' changes since the last one were taken). */
  #abort(f: InFlight): void {
    if (this.#inFlight === f) this.#inFlight = undefined
    f.abort()
    this.#keyed.clear()
  }

  /** Writes what is left of the checkpoint in flight and commits it (CHECKPOINT, close). */
  #finishInFlight(): void {
    const f = this.#inFlight
    if (f === undefined) return
    while (!this.#write(f, Infinity));
    this.#commit(f)
  }

  /** Writes a slice of the checkpoint in flight, and commits it once it is written; a failure
   *  gives it up quietly (the log holds everything it would have). */
  #slice(): void {
    const f = this.#inFlight
    if (f === undefined) return
    if (this.engine.closed || this.engine.log.dir !== f.dir || this.engine.log.failed || f.dir.broken) {
      this.#abort(f)
      return
    }
    try {
      const started = performance.now()
      const written = this.#write(f, this.sliceMs)
      const wrote = performance.now()
      this.longest.slice = Math.max(this.longest.slice, wrote - started)
      if (written) {
        this.#commit(f)
        this.longest.commit = Math.max(this.longest.commit, performance.now() - wrote)
      }
    } catch {
      if (this.#inFlight === f) this.#abort(f)
    }
  }

  /** Slices of the checkpoint in flight on turns of the event loop (while nothing runs). */
  #pump(): void {
    if (this.#pumping !== undefined || this.#inFlight === undefined) return
    this.#pumping = setImmediate(() => {
      this.#pumping = undefined
      this.#slice()
      this.#pump()
    }).unref()
  }

  /** The oldest log record a checkpoint covering record `seq` needs: the one after it, or the
   *  first one a stream's history still reads rows from. */
  keepFrom(seq: number): number {
    let from = seq + 1
    for (const e of this.engine.catalog.entries.values()) {
      if (isView(e) || !(e.store instanceof AppendLog)) continue
      const oldest = e.store.oldestLogSeq
      if (oldest !== undefined && oldest < from) from = oldest
    }
    return from
  }

  /** Whether a checkpoint is due: the interval has passed, or the ticks since the last one did
   *  `maxReplay` of work (and ten times the last checkpoint's duration, so checkpoints stay a
   *  small share of the engine's time). */
  #due(): boolean {
    if (this.intervalMs <= 0) return false
    if (performance.now() - this.#lastAt >= this.intervalMs) return true
    return this.maxReplayMs > 0 && this.#workMs >= Math.max(this.maxReplayMs, 10 * this.#lastMillis)
  }

  /** After a committed tick: begins a checkpoint once one is due (soon after, off the tick's
   *  own stack; skipped quietly while one would be refused). */
  afterTick(): void {
    if (this.#scheduled !== undefined || this.#inFlight !== undefined || !this.#due()) return
    this.#scheduled = setImmediate(() => {
      this.#scheduled = undefined
      this.#beginIfDue()
    }).unref()
  }

  /** After a statement's or a source batch's tick, outside every other tick (`ms`: the work it
   *  did): the checkpoint in flight gets a slice, or a due one begins now, so a program that
   *  runs ticks back to back without yielding to the event loop gets its checkpoints too. */
  afterRun(ms: number): void {
    const log = this.engine.log
    if (log.dir === undefined || log.replaying) return
    this.#workMs += ms
    if (this.#rebasing.size > 0) this.#rebaser?.poll()
    // inside a DDL statement its record is not in the log yet: a checkpoint fixed here (begun,
    // or in flight and fixed by this slice) would hold its effect but not its record
    if (log.ddlDepth > 0) return
    if (this.#inFlight !== undefined) {
      this.#slice()
      return
    }
    if (this.#due()) this.#beginIfDue()
  }

  /** Begins a checkpoint in flight now, unless one is (tests: the campaigns interleave them
   *  with their steps); whether it did. */
  beginNow(): boolean {
    if (this.#inFlight !== undefined || this.engine.log.dir === undefined || this.engine.log.ddlDepth > 0) return false
    this.#inFlight = this.#begin(this.fuzzyBases)
    this.#pump()
    return true
  }

  #beginIfDue(): void {
    if (this.#inFlight !== undefined || this.engine.closed || this.engine.log.dir === undefined || this.engine.log.dir.nextSeq - 1 === this.lastSeq || !this.#due()) return
    if (this.refusal() !== undefined || this.engine.log.failed || this.engine.log.dir.broken) {
      this.#lastAt = performance.now()
      this.#workMs = 0
      return
    }
    try {
      const started = performance.now()
      this.#inFlight = this.#begin(this.fuzzyBases)
      this.longest.begin = Math.max(this.longest.begin, performance.now() - started)
    } catch {
      // the log holds everything the checkpoint would have; the next one is due after as much
      // time and work again
      this.#lastAt = performance.now()
      this.#workMs = 0
      return
    }
    this.#slice()
    this.#pump()
  }

  /** On clean close: the checkpoint in flight finished, then one more if anything happened
   *  since. */
  onClose(): void {
    const dir = this.engine.log.dir
    if (dir === undefined || !this.onCloseEnabled || this.refusal() !== undefined || this.engine.log.failed || dir.broken) return
    try {
      this.#finishInFlight()
      if (dir.nextSeq - 1 === this.lastSeq) return
      this.take()
    } catch {
      // closing still closes: the log holds everything a checkpoint would
    }
  }

  rows(): CheckpointRow[] {
    const dir = this.engine.log.dir
    if (dir === undefined) return []
    return dir.checkpoints().map((c) => ({ tick: c.tick, log_seq: c.seq, offsets: c.offsets, bytes: c.bytes, millis: c.millis, taken_at: c.taken_at }))
  }

  /** Hands the worker the big owners whose deltas now outweigh their base: it merges them
   *  into a base of checkpoint `c` (just written); when it is done, later checkpoints extend
   *  that base instead (the deltas after `c` are kept). */
  #startRebases(dir: DataDirectory, c: StoredCheckpoint): void {
    for (const [owner, t] of this.#keyed) {
      if (t.sizes.length === 0 || t.deltaBytes <= t.baseBytes || t.baseBytes < this.workerRebaseBytes || this.#rebasing.has(owner)) continue
      let places
      try {
        places = dir.partPlaces(c, owner, t.base)
      } catch {
        continue
      }
      this.#rebasing.add(owner)
      this.#rebaser ??= new Rebaser(dir)
      this.#rebaser.rebase(places, c.id, String(this.#nextRebase++), (place) => {
        this.#rebasing.delete(owner)
        const now = this.#keyed.get(owner)
        // the owner saved a base of its own meanwhile (or was replaced): this one is not needed
        if (place instanceof Error || this.engine.closed || this.engine.log.dir !== dir || now === undefined || now.target !== t.target || now.base !== t.base) return
        try {
          dir.addBase(owner, place)
        } catch {
          return // the deltas still serve
        }
        this.rebasesAdopted++
        const sizes = now.sizes.filter(([ckpt]) => ckpt > c.id)
        this.#keyed.set(owner, { target: now.target, base: c.id, baseBytes: place.length, deltaBytes: sizes.reduce((n, [, b]) => n + b, 0), sizes, derived: now.derived })
      })
    }
  }

  /** Resolves once the worker has no base rewrite in flight (tests, benchmarks). */
  rebasesDone(): Promise<void> {
    return this.#rebaser?.idle() ?? Promise.resolve()
  }

  /** The data directory closes: the worker ends (a rewrite in flight is dropped; its file is
   *  deleted when the directory is next opened). */
  close(): void {
    // a checkpoint still in flight (close without one, a failure) is given up, as a crash would
    if (this.#inFlight !== undefined) this.#abort(this.#inFlight)
    clearImmediate(this.#pumping)
    clearImmediate(this.#scheduled)
    this.#pumping = this.#scheduled = undefined
    this.#rebaser?.close()
    this.#rebaser = undefined
    this.#rebasing.clear()
  }

  /** The owners checkpoints save by keys: tables' stores and keyed operators. */
  /** Whether checkpoints leave out the states rebuilt from tables and streams' histories
   *  (tests turn it off, to write checkpoints as a release before layout 4 did). */
  rebuildStates = true

  /** The operators whose state checkpoints leave out, by name (derived-state.ts). */
  #rebuilt(named: readonly [string, ivm.Operator][]): Map<string, ivm.Operator> {
    return this.rebuildStates ? derivedStates(this.engine, named) : new Map()
  }

  #keyedOwners(): KeyedOwner[] {
    const owners: KeyedOwner[] = []
    for (const e of this.engine.catalog.entries.values()) if (!isView(e) && e.store.keyed) owners.push({ name: 'store ' + e.name, kind: 'store', target: e.store })
    const named = this.named()
    const rebuilt = this.#rebuilt(named)
    for (const [name, op] of named) if (op.snapshotKeyed !== undefined && op.loadKeyed !== undefined && !rebuilt.has(name)) owners.push({ name, kind: op.name, target: op as ivm.Operator & ivm.KeyedCheckpoint })
    return owners
  }

  /** The state saved whole: everything but the keyed owners' parts (encoded at the point: it
   *  may share objects with the live state). */
  #wholeState(keyedOwners: readonly KeyedOwner[], derived: DerivedSides[]): EngineState {
    const engine = this.engine
    const keyedTargets = new Set<object>(keyedOwners.map((o) => o.target))
    const stores: [string, StoreState][] = []
    for (const e of engine.catalog.entries.values()) {
      if (isView(e)) continue
      stores.push([e.name, { store: keyedTargets.has(e.store) ? null : e.store.saveState(), deletedAny: e.store.deletedAny, versions: e.versions?.saveState() ?? null, watermark: e.watermark ? saveWatermark(e.watermark) : null }])
    }
    const operators: [string, string, unknown][] = []
    const named = this.named()
    const rebuilt = this.#rebuilt(named)
    for (const [name, op] of named) {
      if (keyedTargets.has(op) || rebuilt.has(name)) continue
      if (op.saveState !== undefined) operators.push([name, op.name, op.saveState()])
      else if (op.stateSize() > 0) throw new RivuletError(SqlState.internalError, `internal: operator ${op.name} keeps state but cannot save it`)
    }
    return {
      version: STATE_VERSION,
      tick: engine.ticks.committed,
      advancedTo: engine.ticks.advancedTo,
      stores,
      operators,
      relations: [...engine.log.relations].map(([name, r]) => [name, { ...r }]),
      sources: [...this.sourceOffsets],
      oids: engine.catalog.saveOids(),
      errors: [...engine.ddl.maintained()].filter((m) => m.error !== undefined && !m.name.startsWith(HIDDEN_PREFIX)).map((m) => {
        const e = m.error!
        return [`${m.kind === 'sink' ? 'sink' : 'view'} ${m.name}`, { code: e.code, message: e.message, since: e.since, origin: e.origin, lastGood: e.lastGood && { rows: e.lastGood.rows as ivm.Row[], weights: e.lastGood.weights as number[] } }]
      }),
      keyed: keyedOwners.map((o) => [o.name, o.kind]),
      derived,
      rebuilt: [...rebuilt.keys()],
    }
  }

  /** Decodes a checkpoint's body and merges its keyed owners' parts (XX001 when damaged). */
  read(c: StoredCheckpoint, dir: DataDirectory = this.engine.log.dir!): EngineState {
    const state = decodeState(dir.checkpointBody(c)) as EngineState
    if (!(state.version >= 1 && state.version <= STATE_VERSION)) throw new CheckpointMismatch(`checkpoint at tick ${c.tick} has layout version ${state.version}; this release reads 1 to ${STATE_VERSION}`)
    const bases = new Map<string, number>(c.parts === null ? [] : (JSON.parse(c.parts) as [string, number][]))
    const merged = new Map<string, MergedOwner>()
    for (const [name, kind] of state.keyed ?? []) {
      const base = bases.get(name)
      if (base === undefined) throw new RivuletError(SqlState.dataCorrupted, `checkpoint at tick ${c.tick} in "${dir.dir}" is damaged (it lists no parts of ${name})`)
      const bodies = dir.checkpointParts(c, name, base)
      const { whole, entries } = ivm.mergeKeyedParts(bodies.map(decodeKeyedPart))
      const sizes: [number, number][] = bodies.slice(1).map((b, i) => [base + 1 + i, b.length])
      merged.set(name, { kind, whole, entries, base, baseBytes: bodies[0]!.length, deltaBytes: sizes.reduce((n, [, b]) => n + b, 0), sizes, derived: derivedSignature(state.derived ?? [], name) })
    }
    state.merged = merged
    return state
  }

  /** Loads a checkpoint's state (as `read` returned it) into the engine whose circuit the DDL
   *  up to it rebuilt. With `track` (the newest checkpoint, loaded by recovery), the next
   *  checkpoint extends its keyed owners' parts with deltas; else it saves bases. */
  load(state: EngineState, track = false): void {
    const engine = this.engine
    const merged = state.merged ?? new Map<string, MergedOwner>()
    const loaded = new Map<string, object>()
    const loadKeyed = (name: string, kind: string, target: ivm.KeyedCheckpoint): void => {
      const m = merged.get(name)!
      if (m.kind !== kind) throw new CheckpointMismatch(`the checkpoint's state for ${name} is of a ${m.kind}, not a ${kind}`)
      try {
        target.loadKeyed(m.whole, m.entries)
      } catch (e) {
        if (e instanceof ivm.StateMismatchError) throw new CheckpointMismatch(`the checkpoint's state for operator ${name} does not fit it: ${e.message}`)
        throw e
      }
      loaded.set(name, target)
    }
    for (const [name, s] of state.stores) {
      const e = engine.catalog.entries.get(name)
      if (e === undefined || isView(e)) throw new CheckpointMismatch(`the checkpoint holds relation "${name}", which its log's DDL does not create`)
      if (merged.has('store ' + name)) {
        if (!e.store.keyed) throw new CheckpointMismatch(`the checkpoint saved relation "${name}" by keys, which its store does not take`)
        loadKeyed('store ' + name, 'store', e.store)
      } else e.store.loadState(s.store)
      e.store.deletedAny = s.deletedAny ?? true
      if (e.versions && s.versions !== null) e.versions.loadState(s.versions)
      if (e.watermark && s.watermark !== null) loadWatermark(e.watermark, s.watermark)
    }
    // in error first: their operators are released, so they have none to load
    const maintained = new Map([...engine.ddl.maintained()].map((m) => [`${m.kind === 'sink' ? 'sink' : 'view'} ${m.name}`, m]))
    for (const [name, e] of state.errors) {
      const m = maintained.get(name)
      if (m === undefined) throw new CheckpointMismatch(`the checkpoint has "${name}" in error, which its log's DDL does not create`)
      engine.errors.restore(m, { ...e, lastGood: e.lastGood && new ivm.ZSet(e.lastGood.rows, e.lastGood.weights) })
    }
    const saved = new Map(state.operators.map(([name, kind, st]) => [name, { kind, st }]))
    const left = new Set(state.rebuilt ?? [])
    const named = this.named()
    for (const [name, op] of named) {
      if (left.has(name)) continue
      if (merged.has(name)) {
        if (op.loadKeyed === undefined) throw new CheckpointMismatch(`operator ${name} (${op.name}) cannot load a keyed checkpoint`)
        loadKeyed(name, op.name, op as ivm.Operator & ivm.KeyedCheckpoint)
        continue
      }
      const s = saved.get(name)
      if (op.loadState === undefined) {
        if (op.stateSize() > 0) throw new CheckpointMismatch(`operator ${name} keeps state but cannot load it`)
        continue
      }
      if (s === undefined || s.kind !== op.name) throw new CheckpointMismatch(`the checkpoint has no state for operator ${name} (${op.name})`)
      try {
        op.loadState(s.st)
      } catch (e) {
        // saved by a release whose plan used other aggregators: as unfitting as a missing state
        if (e instanceof ivm.StateMismatchError) throw new CheckpointMismatch(`the checkpoint's state for operator ${name} does not fit it: ${e.message}`)
        throw e
      }
    }
    engine.ticks.committed = state.tick
    engine.ticks.advancedTo = state.advancedTo
    engine.log.relations.clear()
    for (const [name, r] of state.relations) engine.log.relations.set(name, { ...r })
    for (const [source, offset] of state.sources) {
      this.sourceOffsets.set(source, offset)
      engine.connectors.resumeSource(source, offset)
    }
    engine.catalog.loadOids(state.oids)
    for (const name of merged.keys()) if (!loaded.has(name)) throw new CheckpointMismatch(`the checkpoint holds state for ${name}, which its log's DDL does not create`)
    // the state left out: from the tables' rows, the streams' histories and watermarks just loaded
    refillStates(engine, named, [...left], (why) => new CheckpointMismatch(why))
    refillJoinSides(engine, named, state.derived ?? [], (why) => new CheckpointMismatch(why))
    // an earlier release's checkpoint saved arrangements that are left out from here on
    const rebuilt = this.#rebuilt(named)
    this.#keyed.clear()
    if (track) for (const [name, target] of loaded) {
      if (rebuilt.has(name)) continue
      const m = merged.get(name)!
      this.#keyed.set(name, { target, base: m.base, baseBytes: m.baseBytes, deltaBytes: m.deltaBytes, sizes: m.sizes, derived: m.derived })
    }
  }
}

/** Whether an owner changed about every key since its last part: by the changes it noted (a
 *  key updated counts once or twice, one replaced by another twice), or by its last delta,
 *  which weighed as much as its base, in a state that turned over (half its keys deleted or
 *  changed other than by appended rows since: ChangeShares.obsolete). A state that grew (a
 *  table's new rows, rows appended to a join's buckets) has deltas as heavy as its base too,
 *  but its base stays good: rewriting it would write every old row again at each checkpoint
 *  while it grows. */
function churned(target: ivm.KeyedCheckpoint, t: KeyedTrack): boolean {
  const shares = target.changeShares?.()
  if (shares === undefined) return false
  if (shares.changed >= CHURNED_SHARE) return true
  const last = t.sizes.at(-1)
  return shares.obsolete >= TURNED_OVER_SHARE && last !== undefined && last[1] >= t.baseBytes && last[1] >= CHURNED_BYTES
}

function saveWatermark(w: StreamWatermark): StoreState['watermark'] {
  return { current: w.current, pending: w.pending, late: w.late, pendingLate: w.pendingLate, history: w.history.slice(w.head) }
}

function loadWatermark(w: StreamWatermark, s: NonNullable<StoreState['watermark']>): void {
  w.current = s.current
  w.pending = s.pending
  w.late = s.late
  w.pendingLate = s.pendingLate
  const history = w.history as unknown[]
  history.length = 0
  for (let i = 0; i < s.history.length; i++) history.push(s.history[i])
  w.head = 0
}

