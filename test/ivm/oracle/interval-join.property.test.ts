// IntervalJoin against a naive nested-loop reference over the input integrals: random inserts
// and deletes on both sides (unconsolidated batches), small key/time domains, all four kinds,
// random bands (inclusive/exclusive, one-sided) and residuals; checked after every step, with
// rollbacks interleaved. Watermark variant: changes respect the watermark contract and the
// watermarks advance; freeing must never change the output, and the state held must be exactly
// the rows the freeing rule keeps. finalOuter variant: pairs at once, null-extended rows once
// dead; the integral equals the batch result once the watermarks pass everything. In both, the
// incremental checkpoints taken between some transactions (a base, then deltas), merged and
// loaded into a fresh operator, give exactly the state saved whole.

import { deserialize, serialize } from 'node:v8'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Circuit, InputOperator, mergeKeyedParts, rowKey, ZSet, type KeyedChunk, type KeyedPart, type KeyedSnapshot, type Row } from '../../../ivm/index.js'
import { intervalJoin, type IntervalJoinKind, type IntervalJoinOperator, type IntervalJoinOptions } from '../../../ivm/operators/interval-join.js'
import { Accumulator, norm } from '../helpers.js'
import { checkAll, checkRestore, type OracleCase, type Table } from './harness.js'

// rows on both sides: [key, time, value]
const KEY = 0
const TIME = 1
const WIDTH = 3

interface Band {
  lower: number
  upper: number
  lowerInclusive: boolean
  upperInclusive: boolean
}

interface Cfg {
  kind: IntervalJoinKind
  band: Band
  keyed: boolean
  residual: ((l: Row, r: Row) => boolean) | undefined
}

const RESIDUALS: (((l: Row, r: Row) => boolean) | undefined)[] = [
  undefined,
  (l, r) => ((l[2] as number) + (r[2] as number)) % 3 !== 0,
  (l, r) => (l[2] as number) <= (r[2] as number),
]

function matches(c: Cfg, l: Row, r: Row): boolean {
  if (c.keyed && (l[KEY] === null || r[KEY] === null || l[KEY] !== r[KEY])) return false
  const lt = l[TIME]
  const rt = r[TIME]
  if (lt === null || rt === null) return false
  const d = (rt as number) - (lt as number)
  const { lower, upper, lowerInclusive, upperInclusive } = c.band
  if (!(lowerInclusive ? lower <= d : lower < d)) return false
  if (!(upperInclusive ? d <= upper : d < upper)) return false
  return c.residual === undefined || c.residual(l, r)
}

const nulls: Row = new Array<unknown>(WIDTH).fill(null)
const preservesLeft = (k: IntervalJoinKind) => k === 'left' || k === 'full'
const preservesRight = (k: IntervalJoinKind) => k === 'right' || k === 'full'

/** Batch semantics (multiplicities); `final` (finalOuter at watermarks wl, wr): a row with
 *  a key and time is null-extended only once no row at or after the other watermark can match
 *  it on time. */
function naive(c: Cfg, L: Table, R: Table, final?: { wl: number; wr: number }): Table {
  const res: Table = []
  const leftFinal = (l: Row): boolean => {
    if (final === undefined || l[TIME] === null || (c.keyed && l[KEY] === null)) return true
    const d = final.wr - (l[TIME] as number) // the smallest r.time − l.time still possible
    return !(c.band.upperInclusive ? d <= c.band.upper : d < c.band.upper)
  }
  const rightFinal = (r: Row): boolean => {
    if (final === undefined || r[TIME] === null || (c.keyed && r[KEY] === null)) return true
    const d = (r[TIME] as number) - final.wl // the largest r.time − l.time still possible
    return !(c.band.lowerInclusive ? c.band.lower <= d : c.band.lower < d)
  }
  for (const [l, wl] of L) {
    let m = 0
    for (const [r, wr] of R) {
      if (!matches(c, l, r)) continue
      res.push([[...l, ...r], wl * wr])
      m += wr
    }
    if (preservesLeft(c.kind) && m <= 0 && leftFinal(l)) res.push([[...l, ...nulls], wl])
  }
  if (preservesRight(c.kind)) {
    for (const [r, wr] of R) {
      let m = 0
      for (const [l, wl] of L) if (matches(c, l, r)) m += wl
      if (m <= 0 && rightFinal(r)) res.push([[...nulls, ...r], wr])
    }
  }
  return res
}

function want(c: Cfg, L: Accumulator, R: Accumulator, final?: { wl: number; wr: number }): [Row, number][] {
  return norm(ZSet.of(naive(c, L.entries(), R.entries(), final)))
}

/** Distinct rows the operator should hold: key and time present, not freeable at (wl, wr). */
function held(c: Cfg, t: Accumulator, left: boolean, wm?: { wl: number; wr: number }): number {
  let n = 0
  for (const [r] of t.entries()) {
    if (r[TIME] === null || (c.keyed && r[KEY] === null)) continue
    const time = r[TIME] as number
    if (wm !== undefined) {
      if (left) {
        const d = wm.wr - time
        const dead = !(c.band.upperInclusive ? d <= c.band.upper : d < c.band.upper)
        if (time < wm.wl && dead) continue
      } else {
        const d = time - wm.wl
        const dead = !(c.band.lowerInclusive ? c.band.lower <= d : c.band.lower < d)
        if (time < wm.wr && dead) continue
      }
    }
    n++
  }
  return n
}

// ---- arbitraries ----

const keyArb = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: fc.integer({ min: 0, max: 2 }) })
const timeArb = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 10, arbitrary: fc.integer({ min: 0, max: 8 }) })
const rowArb = fc.tuple(keyArb, timeArb, fc.integer({ min: 0, max: 2 })) as fc.Arbitrary<Row>
const kindArb = fc.constantFrom<IntervalJoinKind>('inner', 'left', 'right', 'full')
const bandArb: fc.Arbitrary<Band> = fc.record({
  lower: fc.oneof({ weight: 1, arbitrary: fc.constant(-Infinity) }, { weight: 4, arbitrary: fc.integer({ min: -4, max: 2 }) }),
  upper: fc.oneof({ weight: 1, arbitrary: fc.constant(Infinity) }, { weight: 4, arbitrary: fc.integer({ min: -2, max: 4 }) }),
  lowerInclusive: fc.boolean(),
  upperInclusive: fc.boolean(),
})
const finiteBandArb: fc.Arbitrary<Band> = fc.record({
  lower: fc.integer({ min: -4, max: 2 }),
  upper: fc.integer({ min: -2, max: 4 }),
  lowerInclusive: fc.boolean(),
  upperInclusive: fc.boolean(),
})
const cfgArb = (band: fc.Arbitrary<Band>): fc.Arbitrary<Cfg> =>
  fc.record({ kind: kindArb, band, keyed: fc.boolean(), residual: fc.constantFrom(...RESIDUALS) })

type Change = { kind: 'ins'; side: number; row: Row; weight: number } | { kind: 'del'; side: number; pick: number; weight: number }
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('ins' as const), side: fc.integer({ min: 0, max: 1 }), row: rowArb, weight: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('del' as const), side: fc.integer({ min: 0, max: 1 }), pick: fc.nat(), weight: fc.integer({ min: 1, max: 2 }) }) },
)
const stepArb = fc.array(changeArb, { minLength: 0, maxLength: 8 })

function copy(a: Accumulator): Accumulator {
  const c = new Accumulator()
  c.add(a.toZSet())
  return c
}

function restore(a: Accumulator, saved: Accumulator): void {
  a.add(a.toZSet(), -1)
  a.add(saved.toZSet())
}

class Run {
  readonly circuit: Circuit
  readonly tables = [new Accumulator(), new Accumulator()]
  readonly outputs = new Accumulator()
  readonly inputs: InputOperator[]
  readonly op: IntervalJoinOperator
  wl = -Infinity
  wr = -Infinity

  constructor(c: Cfg, extra: Partial<IntervalJoinOptions> = {}, scanBelow?: number) {
    this.circuit = new Circuit({ scanBelow })
    this.inputs = this.tables.map((t) => this.circuit.add(new InputOperator(() => t.toZSet())))
    this.op = intervalJoin(this.circuit, this.inputs[0]!, this.inputs[1]!, {
      leftKey: c.keyed ? [KEY] : [],
      rightKey: c.keyed ? [KEY] : [],
      leftTime: TIME,
      rightTime: TIME,
      ...c.band,
      kind: c.kind,
      leftWidth: WIDTH,
      rightWidth: WIDTH,
      residual: c.residual,
      ...extra,
    })
  }

  /** Turns changes into per-side deltas against the tables (which it updates); deletes pick
   *  only rows `deletable` allows. */
  resolve(step: Change[], deletable: (row: Row, side: number) => boolean = () => true): ZSet[] {
    const ds = [new ZSet(), new ZSet()]
    for (const ch of step) {
      const t = this.tables[ch.side]!
      if (ch.kind === 'ins') {
        ds[ch.side]!.push(ch.row, ch.weight)
        t.add(ZSet.of([[ch.row, ch.weight]]))
      } else {
        const rows = t.entries().filter(([r]) => deletable(r, ch.side))
        if (rows.length === 0) continue
        const [row, w] = rows[ch.pick % rows.length]!
        const dw = Math.min(w, ch.weight)
        ds[ch.side]!.push(row, -dw)
        t.add(ZSet.of([[row, -dw]]))
      }
    }
    return ds
  }

  #collect(): [Row, number][] {
    const out = this.op.out
    expect(out.weights.every((w) => w !== 0)).toBe(true)
    this.outputs.add(out)
    this.circuit.endStep()
    return norm(out)
  }

  /** Pushes deltas already applied to the tables, steps; returns the output. */
  push(ds: ZSet[]): [Row, number][] {
    for (let i = 0; i < 2; i++) if (ds[i]!.length !== 0) this.inputs[i]!.push(ds[i]!)
    this.circuit.step()
    // both sides changed: entries that cancel (ΔL ⋈ ΔR against the probes) are consolidated away
    if (ds[0]!.length !== 0 && ds[1]!.length !== 0) expect(new Set(this.op.out.rows.map(rowKey)).size).toBe(this.op.out.rows.length)
    return this.#collect()
  }

  /** Moves the watermarks and advances (end of tick); returns what advance emitted. */
  advance(): [Row, number][] {
    this.circuit.advance()
    return this.#collect()
  }

  /** Deltas and the watermark move in one advance pass (the operator steps, then advances). */
  pushAndAdvance(ds: ZSet[]): [Row, number][] {
    for (let i = 0; i < 2; i++) if (ds[i]!.length !== 0) this.inputs[i]!.push(ds[i]!)
    this.circuit.advance()
    const out = this.#collect()
    // (the circuit clears source deltas only after step(); in the engine such deltas come
    // from upstream operators reached during the advance pass)
    for (const i of this.inputs) i.out = ZSet.empty()
    return out
  }

  save(): { tables: Accumulator[]; outputs: Accumulator; wl: number; wr: number } {
    return { tables: this.tables.map(copy), outputs: copy(this.outputs), wl: this.wl, wr: this.wr }
  }

  rollback(s: ReturnType<Run['save']>): void {
    this.circuit.rollback()
    restore(this.tables[0]!, s.tables[0]!)
    restore(this.tables[1]!, s.tables[1]!)
    restore(this.outputs, s.outputs)
    this.wl = s.wl
    this.wr = s.wr
  }
}

const runs = (n: number) => ({ numRuns: Number(process.env.ORACLE_RUNS ?? n) })

describe('IntervalJoin reference (guards the oracle itself)', () => {
  it('band, keys, NULLs, outer rows, finality', () => {
    const c: Cfg = { kind: 'full', band: { lower: -1, upper: 2, lowerInclusive: true, upperInclusive: false }, keyed: true, residual: undefined }
    const L: Table = [
      [[0, 5, 0], 1],
      [[0, null, 0], 1],
      [[null, 5, 0], 2],
    ]
    const R: Table = [
      [[0, 4, 1], 1], // 4 − 5 = −1: inclusive lower, matches
      [[0, 7, 1], 1], // 2: exclusive upper, no
      [[1, 5, 1], 1], // other key
    ]
    expect(norm(ZSet.of(naive(c, L, R)))).toEqual(
      norm(
        ZSet.of([
          [[0, 5, 0, 0, 4, 1], 1],
          [[0, null, 0, null, null, null], 1],
          [[null, 5, 0, null, null, null], 2],
          [[null, null, null, 0, 7, 1], 1],
          [[null, null, null, 1, 5, 1], 1],
        ]),
      ),
    )
    // right row at 7 is final once no left time ≥ wl gives 7 − l.t ≥ −1, i.e. wl > 8
    expect(naive(c, L, R, { wl: 8, wr: 100 }).some(([r]) => r[4] === 7)).toBe(false)
    expect(naive(c, L, R, { wl: 9, wr: 100 }).some(([r]) => r[4] === 7)).toBe(true)
  })
})

describe('IntervalJoin (oracle)', { timeout: 120_000 }, () => {
  it('output integral equals the nested-loop reference after every step', () => {
    fc.assert(
      fc.property(cfgArb(bandArb), fc.array(stepArb, { minLength: 1, maxLength: 10 }), fc.boolean(), (c, steps, scan) => {
        const run = new Run(c, {}, scan ? 0 : undefined)
        for (const s of steps) {
          run.push(run.resolve(s))
          run.circuit.commit()
          expect(run.outputs.entries()).toEqual(want(c, run.tables[0]!, run.tables[1]!))
          expect(run.op.stateSize()).toBe(held(c, run.tables[0]!, true) + held(c, run.tables[1]!, false))
        }
      }),
      runs(300),
    )
  })

  it('rollbacks interleaved: a rolled-back transaction leaves no trace', () => {
    const txArb = fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    fc.assert(
      fc.property(cfgArb(bandArb), fc.array(txArb, { minLength: 1, maxLength: 6 }), (c, txs) => {
        const run = new Run(c)
        const ref = new Run(c)
        for (const tx of txs) {
          const saved = run.save()
          for (const s of tx.steps) {
            const ds = run.resolve(s)
            const out = run.push(ds)
            if (!tx.rollback) {
              ref.tables[0]!.add(ds[0]!)
              ref.tables[1]!.add(ds[1]!)
              expect(out).toEqual(ref.push(ds))
            }
          }
          if (tx.rollback) run.rollback(saved)
          else {
            run.circuit.commit()
            ref.circuit.commit()
          }
          expect(run.op.stateSize()).toBe(ref.op.stateSize())
          expect(run.outputs.entries()).toEqual(want(c, run.tables[0]!, run.tables[1]!))
        }
      }),
      runs(200),
    )
  })

  /** Watermark workloads: every change (insert or delete) on a side has time ≥ its watermark
   *  (NULL times any time); the watermarks move by 0..3 per batch. */
  const wmBatchArb = fc.record({
    changes: fc.array(
      fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant('ins' as const),
            side: fc.integer({ min: 0, max: 1 }),
            key: keyArb,
            offset: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 10, arbitrary: fc.integer({ min: 0, max: 6 }) }),
            value: fc.integer({ min: 0, max: 2 }),
            weight: fc.integer({ min: 1, max: 2 }),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('del' as const), side: fc.integer({ min: 0, max: 1 }), pick: fc.nat(), weight: fc.integer({ min: 1, max: 2 }) }) },
      ),
      { minLength: 0, maxLength: 6 },
    ),
    dl: fc.integer({ min: 0, max: 3 }),
    dr: fc.integer({ min: 0, max: 3 }),
    together: fc.boolean(),
  })
  type WmBatch = typeof wmBatchArb extends fc.Arbitrary<infer T> ? T : never

  /** Resolves a batch against the run's tables and watermarks (deletes only where allowed). */
  function wmDeltas(run: Run, b: WmBatch, deletes: boolean): ZSet[] {
    const changes: Change[] = []
    for (const ch of b.changes) {
      if (ch.kind === 'ins') {
        const base = ch.side === 0 ? run.wl : run.wr
        changes.push({ kind: 'ins', side: ch.side, row: [ch.key, ch.offset === null ? null : base + ch.offset, ch.value], weight: ch.weight })
      } else if (deletes) changes.push(ch)
    }
    return run.resolve(changes, (r, side) => r[TIME] === null || (r[TIME] as number) >= (side === 0 ? run.wl : run.wr))
  }

  /** One batch: deltas, then the watermarks move and the operator advances (in the same
   *  advance pass when `together`). */
  function wmBatch(run: Run, b: WmBatch, deletes: boolean): void {
    const ds = wmDeltas(run, b, deletes)
    if (b.together) {
      run.wl += b.dl
      run.wr += b.dr
      run.pushAndAdvance(ds)
    } else {
      run.push(ds)
      run.wl += b.dl
      run.wr += b.dr
      run.advance()
    }
  }

  /** The keyed parts so far, merged into a fresh operator, hold exactly what `run`'s holds. */
  function expectKeyedRestore(c: Cfg, finalOuter: boolean, run: Run, parts: KeyedPart[]): void {
    const fresh = wmRun(c, finalOuter)
    const { whole, entries } = mergeKeyedParts(parts)
    fresh.op.loadKeyed(whole, entries)
    expect(deserialize(serialize(fresh.op.saveState()))).toEqual(deserialize(serialize(run.op.saveState())))
    expect(fresh.op.stateSize()).toBe(run.op.stateSize())
  }

  const keyedPart = (run: Run, all: boolean): KeyedPart => deserialize(serialize(run.op.saveKeyed(all))) as KeyedPart

  /** A snapshot being read while batches go on (copy on write): its chunks so far and the
   *  operator's state at its point. */
  interface OpenSnapshot {
    readonly snap: KeyedSnapshot
    readonly chunks: KeyedChunk[]
    readonly atPoint: unknown
  }

  function beginSnapshot(run: Run): OpenSnapshot {
    run.circuit.commit()
    return { atPoint: deserialize(serialize(run.op.saveState())), snap: run.op.snapshotKeyed(false), chunks: [] }
  }

  /** Reads the next chunk; once the snapshot is done, its part joins `parts` and the merged
   *  parts must load exactly the state at its point. Returns the snapshot still open, if any. */
  function readSnapshot(c: Cfg, finalOuter: boolean, open: OpenSnapshot | null, max: number, parts: KeyedPart[]): OpenSnapshot | null {
    if (open === null) return null
    const ch = open.snap.next(max)
    if (ch !== null) {
      open.chunks.push(deserialize(serialize(ch)) as KeyedChunk)
      return open
    }
    parts.push({ whole: open.snap.whole, keys: open.chunks.flatMap((x) => x.keys), values: open.chunks.flatMap((x) => x.values), moved: open.chunks.flatMap((x) => x.moved!) })
    const fresh = wmRun(c, finalOuter)
    const { whole, entries } = mergeKeyedParts(parts)
    fresh.op.loadKeyed(whole, entries)
    expect(deserialize(serialize(fresh.op.saveState())), 'a snapshot read while batches went on').toEqual(open.atPoint)
    return null
  }

  function wmRun(c: Cfg, finalOuter: boolean): Run {
    const run: Run = new Run(c, { leftWatermark: () => run.wl, rightWatermark: () => run.wr, finalOuter })
    run.wl = 0
    run.wr = 0
    return run
  }

  it('watermarks: freeing never changes the output; exactly the dead rows are freed; rollback restores', () => {
    const txArb = fc.record({ batches: fc.array(wmBatchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean(), checkpoint: fc.boolean(), snapshot: fc.boolean() })
    fc.assert(
      fc.property(cfgArb(bandArb), fc.array(txArb, { minLength: 1, maxLength: 8 }), (c, txs) => {
        const run = wmRun(c, false)
        const wm = () => ({ wl: run.wl, wr: run.wr })
        const parts = [keyedPart(run, true)]
        let open: OpenSnapshot | null = null
        for (const tx of txs) {
          const saved = run.save()
          for (const b of tx.batches) {
            wmBatch(run, b, true)
            expect(run.outputs.entries()).toEqual(want(c, run.tables[0]!, run.tables[1]!))
            expect(run.op.stateSize()).toBe(held(c, run.tables[0]!, true, wm()) + held(c, run.tables[1]!, false, wm()))
          }
          if (tx.rollback) run.rollback(saved)
          else run.circuit.commit()
          expect(run.outputs.entries()).toEqual(want(c, run.tables[0]!, run.tables[1]!))
          expect(run.op.stateSize()).toBe(held(c, run.tables[0]!, true, wm()) + held(c, run.tables[1]!, false, wm()))
          open = readSnapshot(c, false, open, tx.batches.length, parts)
          if (tx.checkpoint && open === null) {
            if (tx.snapshot) open = beginSnapshot(run)
            else {
              parts.push(keyedPart(run, false))
              expectKeyedRestore(c, false, run, parts)
            }
          }
        }
        while (open !== null) open = readSnapshot(c, false, open, Infinity, parts)
        parts.push(keyedPart(run, false))
        expectKeyedRestore(c, false, run, parts)
      }),
      runs(300),
    )
  })

  it('finalOuter: pairs at once, null-extended rows exactly when final; batch result once the watermarks pass everything', () => {
    const txArb = fc.record({ batches: fc.array(wmBatchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean(), checkpoint: fc.boolean(), snapshot: fc.boolean() })
    fc.assert(
      fc.property(cfgArb(finiteBandArb), fc.array(txArb, { minLength: 1, maxLength: 8 }), fc.boolean(), (c, txs, deletes) => {
        const run = wmRun(c, true)
        const wm = () => ({ wl: run.wl, wr: run.wr })
        const parts = [keyedPart(run, true)]
        let open: OpenSnapshot | null = null
        for (const tx of txs) {
          const saved = run.save()
          for (const b of tx.batches) {
            const before = copy(run.outputs)
            wmBatch(run, b, deletes)
            if (!deletes) {
              // append-only input: append-only output
              const delta = copy(run.outputs)
              delta.add(before.toZSet(), -1)
              expect(delta.entries().every(([, w]) => w > 0)).toBe(true)
            }
            expect(run.outputs.entries()).toEqual(want(c, run.tables[0]!, run.tables[1]!, wm()))
          }
          if (tx.rollback) run.rollback(saved)
          else run.circuit.commit()
          expect(run.outputs.entries()).toEqual(want(c, run.tables[0]!, run.tables[1]!, wm()))
          open = readSnapshot(c, true, open, tx.batches.length, parts)
          if (tx.checkpoint && open === null) {
            if (tx.snapshot) open = beginSnapshot(run)
            else {
              parts.push(keyedPart(run, false))
              expectKeyedRestore(c, true, run, parts)
            }
          }
        }
        while (open !== null) open = readSnapshot(c, true, open, Infinity, parts)
        // the watermarks pass everything: the batch result, and nothing is held any more
        run.wl += 100
        run.wr += 100
        run.advance()
        expect(run.outputs.entries()).toEqual(want(c, run.tables[0]!, run.tables[1]!))
        expect(run.op.stateSize()).toBe(0)
      }),
      runs(300),
    )
  })

  it('per-step outputs with watermarks equal those of a run without (default mode)', () => {
    fc.assert(
      fc.property(cfgArb(bandArb), fc.array(wmBatchArb, { minLength: 1, maxLength: 10 }), (c, batches) => {
        const run = wmRun(c, false)
        const plain = new Run(c)
        for (const b of batches) {
          const ds = wmDeltas(run, b, true)
          plain.tables[0]!.add(ds[0]!)
          plain.tables[1]!.add(ds[1]!)
          expect(run.push(ds)).toEqual(plain.push(ds))
          run.wl += b.dl
          run.wr += b.dr
          expect(run.advance()).toEqual([])
          run.circuit.commit()
        }
      }),
      runs(200),
    )
  })

  // the shared harness: incremental, rollback (A, B, rollback, C) and backfill
  const harnessCase = (c: Cfg): OracleCase => ({
    inputs: 2,
    row: rowArb,
    build: (circuit, [l, r]) =>
      intervalJoin(circuit, l!, r!, {
        leftKey: c.keyed ? [KEY] : [],
        rightKey: c.keyed ? [KEY] : [],
        leftTime: TIME,
        rightTime: TIME,
        ...c.band,
        kind: c.kind,
        leftWidth: WIDTH,
        rightWidth: WIDTH,
        residual: c.residual,
      }),
    oracle: ([L, R]) => naive(c, L!, R!),
  })
  it('harness checks, full join, band [−2, 3), keyed, residual', () =>
    checkAll(harnessCase({ kind: 'full', band: { lower: -2, upper: 3, lowerInclusive: true, upperInclusive: false }, keyed: true, residual: RESIDUALS[1] })))
  it('harness checks, left join, one-sided band r.t > l.t, no key', () =>
    checkAll(harnessCase({ kind: 'left', band: { lower: 0, upper: Infinity, lowerInclusive: false, upperInclusive: false }, keyed: false, residual: undefined })))
  // checkpoints (checkAll above includes checkRestore): the other kinds and bound shapes
  it('harness restore, inner join, band (−1, 1], keyed', () =>
    checkRestore(harnessCase({ kind: 'inner', band: { lower: -1, upper: 1, lowerInclusive: false, upperInclusive: true }, keyed: true, residual: undefined })))
  it('harness restore, right join, band (−∞, 2], keyed, residual', () =>
    checkRestore(harnessCase({ kind: 'right', band: { lower: -Infinity, upper: 2, lowerInclusive: false, upperInclusive: true }, keyed: true, residual: RESIDUALS[2] })))
})
