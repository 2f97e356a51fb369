// Checkpoints of the watermark-driven joins (IntervalJoin, AsofJoin): a circuit is driven with
// random changes on both sides at or after advancing watermarks (so advance() frees state, and
// with finalOuter emits null-extended rows), with commits and rollbacks; after a random commit
// every operator's state is saved, sent through a v8 serialization round trip and loaded into
// a fresh identical circuit (one that first ran unrelated input of its own, so loadState must
// replace, not merge). Both circuits then get the same input: the outputs of every step and
// every advance, and stateSize, must be equal throughout, a rollback right after the restore
// must bring both back to the checkpoint, and a final flush (watermarks past everything) must
// leave both with the same output integral and state.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Circuit, InputOperator, IntegrateOperator, integrate, ZSet, type Operator, type Row } from '../../../ivm/index.js'
import { intervalJoin, type IntervalJoinKind, type IntervalJoinOperator } from '../../../ivm/operators/interval-join.js'
import { asOfJoin, type AsOfJoinOperator, type AsOfJoinOptions } from '../../../ivm/operators/asof-join.js'
import { Accumulator, norm } from '../helpers.js'
import { restoreCircuit } from '../oracle/harness.js'

// rows: [key, time, payload] (AsofJoin right rows also [.., live])
const KEY = 0
const TIME = 1

/** Watermarks of one circuit, read by the operator through closures. */
interface Marks {
  wl: number
  wr: number
}

type Build = (c: Circuit, l: Operator, r: Operator, wm: Marks) => Operator

/** One change at or after its side's watermark: an insert at watermark + offset (NULL time if
 *  offset is null), or a delete of a row there. */
interface Change {
  readonly side: 0 | 1
  readonly del: boolean
  readonly key: number | null
  readonly offset: number | null
  readonly payload: number
  readonly live: boolean
  readonly pick: number
  readonly weight: number
}

interface Batch {
  readonly changes: Change[]
  /** How far the watermarks move after the changes. */
  readonly dl: number
  readonly dr: number
  /** Changes and the watermark move in one advance pass (the operator steps, then advances). */
  readonly together: boolean
}

interface Tx {
  readonly batches: Batch[]
  readonly rollback: boolean
}

const changeArb: fc.Arbitrary<Change> = fc.record({
  side: fc.constantFrom<0 | 1>(0, 1),
  del: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  key: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 8, arbitrary: fc.integer({ min: 0, max: 2 }) }),
  // at the watermark often: the boundary cases of freeing
  offset: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.constant(0) }, { weight: 8, arbitrary: fc.integer({ min: 0, max: 5 }) }),
  payload: fc.integer({ min: 0, max: 2 }),
  live: fc.boolean(),
  pick: fc.nat(),
  weight: fc.integer({ min: 1, max: 2 }),
})
const batchArb: fc.Arbitrary<Batch> = fc.record({
  changes: fc.array(changeArb, { minLength: 0, maxLength: 7 }),
  dl: fc.integer({ min: 0, max: 3 }),
  dr: fc.integer({ min: 0, max: 3 }),
  together: fc.boolean(),
})
const txArb: fc.Arbitrary<Tx> = fc.record({ batches: fc.array(batchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
const txsArb = (min: number, max: number) => fc.array(txArb, { minLength: min, maxLength: max })

function copy(a: Accumulator): Accumulator {
  const c = new Accumulator()
  c.add(a.toZSet())
  return c
}

function reset(a: Accumulator, to: Accumulator): void {
  a.add(a.toZSet(), -1)
  a.add(to.toZSet())
}

/** A circuit: two inputs, the join, an integrating sink on it. */
class Run {
  readonly circuit = new Circuit()
  readonly tables = [new Accumulator(), new Accumulator()]
  readonly inputs: InputOperator[]
  readonly op: Operator
  readonly sink: IntegrateOperator
  readonly wm: Marks = { wl: 0, wr: 0 }
  /** Integral of the join's output. */
  readonly outputs = new Accumulator()

  constructor(
    build: Build,
    readonly rightRow: (c: Change, t: number | null) => Row,
  ) {
    this.inputs = this.tables.map((t) => this.circuit.add(new InputOperator(() => t.toZSet())))
    this.op = build(this.circuit, this.inputs[0]!, this.inputs[1]!, this.wm)
    this.sink = integrate(this.circuit, this.op)
  }

  /** The batch's changes as per-side deltas against this run's tables (which it updates);
   *  deletes pick rows whose time is at or after the side's watermark (or NULL). */
  deltas(b: Batch): ZSet[] {
    const ds = [new ZSet(), new ZSet()]
    for (const ch of b.changes) {
      const t = this.tables[ch.side]!
      const wm = ch.side === 0 ? this.wm.wl : this.wm.wr
      if (ch.del) {
        const rows = t.entries().filter(([r]) => r[TIME] === null || (r[TIME] as number) >= wm)
        if (rows.length === 0) continue
        const [row, w] = rows[ch.pick % rows.length]!
        const dw = Math.min(w, ch.weight)
        ds[ch.side]!.push(row, -dw)
        t.add(ZSet.of([[row, -dw]]))
      } else {
        const time = ch.offset === null ? null : wm + ch.offset
        const row: Row = ch.side === 0 ? [ch.key, time, ch.payload] : this.rightRow(ch, time)
        ds[ch.side]!.push(row, ch.weight)
        t.add(ZSet.of([[row, ch.weight]]))
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

  /** Runs deltas already applied to the tables, moves the watermarks, advances; returns the
   *  outputs of the step and of the advance (one list when `together`). */
  run(ds: ZSet[], b: Batch): [Row, number][][] {
    for (let i = 0; i < 2; i++) if (ds[i]!.length !== 0) this.inputs[i]!.push(ds[i]!)
    if (b.together) {
      this.wm.wl += b.dl
      this.wm.wr += b.dr
      this.circuit.advance()
      const out = this.#collect()
      // (the circuit clears source deltas only after step(); in the engine such deltas come
      // from upstream operators reached during the advance pass)
      for (const i of this.inputs) i.out = ZSet.empty()
      return [out]
    }
    this.circuit.step()
    const stepped = this.#collect()
    this.wm.wl += b.dl
    this.wm.wr += b.dr
    this.circuit.advance()
    return [stepped, this.#collect()]
  }

  /** Runs a batch on its own (its deltas from its own tables). */
  batch(b: Batch): void {
    this.run(this.deltas(b), b)
  }

  save(): { tables: Accumulator[]; outputs: Accumulator; wl: number; wr: number } {
    return { tables: this.tables.map(copy), outputs: copy(this.outputs), wl: this.wm.wl, wr: this.wm.wr }
  }

  rollback(s: ReturnType<Run['save']>): void {
    this.circuit.rollback()
    for (let i = 0; i < 2; i++) reset(this.tables[i]!, s.tables[i]!)
    reset(this.outputs, s.outputs)
    this.wm.wl = s.wl
    this.wm.wr = s.wr
  }

  /** Rows with a key and a time (every row the join would hold without freeing). */
  storable(keyed: boolean): number {
    let n = 0
    for (const t of this.tables) for (const [r] of t.entries()) if (r[TIME] !== null && !(keyed && r[KEY] === null)) n++
    return n
  }
}

/** Makes `into` the twin of `from` at its last commit: operator states via restoreCircuit
 *  (v8 round trip), tables, watermarks and output integral copied. */
function restoreRun(from: Run, into: Run): void {
  restoreCircuit(from.circuit, into.circuit)
  for (let i = 0; i < 2; i++) reset(into.tables[i]!, from.tables[i]!)
  reset(into.outputs, from.outputs)
  into.wm.wl = from.wm.wl
  into.wm.wr = from.wm.wr
  expect(norm(into.sink.contents())).toEqual(norm(from.sink.contents()))
}

interface Stats {
  /** Restores where the saved state had already been freed below the rows stored. */
  freedBeforeSave: number
  /** Runs where, after the restore, freeing (or padding) happened in both. */
  freedAfter: number
}

/** The differential property: `before` on one circuit, checkpoint, `after` on both. */
function differential(build: Build, rightRow: Run['rightRow'], keyed: boolean, before: Tx[], junk: Batch[], after: Tx[], stats: Stats): void {
  const a = new Run(build, rightRow)
  for (const tx of before) {
    const saved = a.save()
    for (const b of tx.batches) a.batch(b)
    if (tx.rollback) a.rollback(saved)
    else a.circuit.commit()
  }
  a.circuit.commit()
  // the fresh circuit first holds state of its own: loadState must replace it (and its hints)
  const b = new Run(build, rightRow)
  for (const x of junk) b.batch(x)
  b.circuit.commit()
  restoreRun(a, b)
  expect(b.op.stateSize()).toBe(a.op.stateSize())
  expect(b.op.describeState()).toBe(a.op.describeState())
  if (a.op.stateSize() < a.storable(keyed)) stats.freedBeforeSave++
  const sizeAtSave = a.op.stateSize()
  let freed = false
  for (let t = 0; t < after.length; t++) {
    const tx = after[t]!
    const sa = a.save()
    const sb = b.save()
    for (const x of tx.batches) {
      const ds = a.deltas(x)
      b.tables[0]!.add(ds[0]!)
      b.tables[1]!.add(ds[1]!)
      const sizeBefore = a.op.stateSize()
      expect(b.run(ds, x)).toEqual(a.run(ds, x))
      expect(b.op.stateSize()).toBe(a.op.stateSize())
      if (a.op.stateSize() < sizeBefore) freed = true
    }
    // the first transaction after the restore is always rolled back: both return to the
    // checkpoint exactly
    if (t === 0 || tx.rollback) {
      a.rollback(sa)
      b.rollback(sb)
      if (t === 0) expect(a.op.stateSize()).toBe(sizeAtSave)
    } else {
      a.circuit.commit()
      b.circuit.commit()
    }
    expect(b.op.stateSize()).toBe(a.op.stateSize())
    expect(b.outputs.entries()).toEqual(a.outputs.entries())
  }
  // the watermarks pass everything: the same final output and state
  const flush: Batch = { changes: [], dl: 100, dr: 100, together: false }
  expect(b.run([new ZSet(), new ZSet()], flush)).toEqual(a.run([new ZSet(), new ZSet()], flush))
  expect(b.op.stateSize()).toBe(a.op.stateSize())
  a.circuit.commit()
  b.circuit.commit()
  expect(b.outputs.entries()).toEqual(a.outputs.entries())
  expect(norm(b.sink.contents())).toEqual(norm(a.sink.contents()))
  if (freed) stats.freedAfter++
}

const runs = (n: number) => ({ numRuns: Number(process.env.ORACLE_RUNS ?? n) })

describe('IntervalJoin checkpoints', { timeout: 120_000 }, () => {
  interface Cfg {
    kind: IntervalJoinKind
    lower: number
    upper: number
    lowerInclusive: boolean
    upperInclusive: boolean
    keyed: boolean
    residual: boolean
    finalOuter: boolean
  }
  const cfgArb: fc.Arbitrary<Cfg> = fc
    .record({
      kind: fc.constantFrom<IntervalJoinKind>('inner', 'left', 'right', 'full'),
      lower: fc.oneof({ weight: 1, arbitrary: fc.constant(-Infinity) }, { weight: 5, arbitrary: fc.integer({ min: -4, max: 2 }) }),
      upper: fc.oneof({ weight: 1, arbitrary: fc.constant(Infinity) }, { weight: 5, arbitrary: fc.integer({ min: -2, max: 4 }) }),
      lowerInclusive: fc.boolean(),
      upperInclusive: fc.boolean(),
      keyed: fc.boolean(),
      residual: fc.boolean(),
      finalOuter: fc.boolean(),
    })
    // (finalOuter null-extends only once rows are dead: a finite band)
    .map((c) => (c.finalOuter && (c.lower === -Infinity || c.upper === Infinity) ? { ...c, finalOuter: false } : c))
  const build =
    (c: Cfg): Build =>
    (circuit, l, r, wm) =>
      intervalJoin(circuit, l, r, {
        leftKey: c.keyed ? [KEY] : [],
        rightKey: c.keyed ? [KEY] : [],
        leftTime: TIME,
        rightTime: TIME,
        lower: c.lower,
        upper: c.upper,
        lowerInclusive: c.lowerInclusive,
        upperInclusive: c.upperInclusive,
        kind: c.kind,
        leftWidth: 3,
        rightWidth: 3,
        residual: c.residual ? (x, y) => ((x[2] as number) + (y[2] as number)) % 3 !== 0 : undefined,
        leftWatermark: () => wm.wl,
        rightWatermark: () => wm.wr,
        finalOuter: c.finalOuter,
      })
  const rightRow = (ch: Change, t: number | null): Row => [ch.key, t, ch.payload]

  it('a restored circuit continues exactly like the saving one (outputs, advances, stateSize, rollback)', () => {
    const stats: Stats = { freedBeforeSave: 0, freedAfter: 0 }
    fc.assert(
      fc.property(cfgArb, txsArb(1, 6), fc.array(batchArb, { maxLength: 3 }), txsArb(1, 6), (c, before, junk, after) =>
        differential(build(c), rightRow, c.keyed, before, junk, after, stats),
      ),
      runs(300),
    )
    // the workload does checkpoint freed state, and free (or pad) more after the restore
    expect(stats.freedBeforeSave).toBeGreaterThan(0)
    expect(stats.freedAfter).toBeGreaterThan(0)
  })

  it('saved state is plain data and survives a round trip; loading replaces a backfilled state', () => {
    const c: Cfg = { kind: 'full', lower: -1, upper: 2, lowerInclusive: true, upperInclusive: false, keyed: true, residual: false, finalOuter: true }
    const a = new Run(build(c), rightRow)
    const rows: Row[] = []
    // one time with more than 32 rows (a bucket with a row index), and a few keys
    for (let i = 0; i < 40; i++) rows.push([1, 5, i])
    rows.push([0, 3, 0], [2, 9, 1])
    a.inputs[0]!.push(ZSet.of(rows.map((r) => [r, 1] as [Row, number])))
    for (const r of rows) a.tables[0]!.add(ZSet.of([[r, 1]]))
    a.circuit.step()
    a.circuit.endStep()
    a.circuit.commit()
    const op = a.op as IntervalJoinOperator
    const saved = op.saveState()
    expect(JSON.stringify(saved)).toContain('"keys"')
    // a circuit whose join was attached late over non-empty inputs (backfilled), then loaded
    const b = new Run(build(c), rightRow)
    b.tables[1]!.add(ZSet.of([[[1, 4, 0], 1]]))
    b.circuit.backfill(b.circuit.operators.filter((o) => o.inputs.length !== 0))
    b.circuit.commit()
    expect(b.op.stateSize()).toBe(1)
    restoreRun(a, b)
    expect(b.op.stateSize()).toBe(42)
    // a row of the indexed bucket is found again: deleting it retracts exactly it
    const del = ZSet.of([[[1, 5, 7], -1]])
    const right = ZSet.of([[[1, 5, 0], 1]])
    for (const r of [a, b]) {
      r.tables[0]!.add(del)
      r.tables[1]!.add(right)
    }
    const x: Batch = { changes: [], dl: 0, dr: 0, together: false }
    expect(b.run([del, right], x)).toEqual(a.run([del, right], x))
    expect(b.op.stateSize()).toBe(a.op.stateSize())
  })
})

describe('AsofJoin checkpoints', { timeout: 120_000 }, () => {
  type Match = AsOfJoinOptions['match']
  interface Cfg {
    match: Match
    outer: boolean
    tombstones: boolean
    keyed: boolean
  }
  const cfgArb: fc.Arbitrary<Cfg> = fc.record({
    // '<=' / '<' never free, and are restored all the same
    match: fc.constantFrom<Match>('>=', '>', '>=', '>', '<=', '<'),
    outer: fc.boolean(),
    tombstones: fc.boolean(),
    keyed: fc.boolean(),
  })
  const build =
    (c: Cfg): Build =>
    (circuit, l, r, wm) =>
      asOfJoin(circuit, l, r, {
        leftKey: c.keyed ? [KEY] : [],
        rightKey: c.keyed ? [KEY] : [],
        leftTime: TIME,
        rightTime: TIME,
        match: c.match,
        outer: c.outer,
        rightWidth: 4,
        live: c.tombstones ? 3 : undefined,
        tieBreak: (x, y) => (y[2] as number) - (x[2] as number),
        leftWatermark: () => wm.wl,
        rightWatermark: () => wm.wr,
      })
  const rightRow = (ch: Change, t: number | null): Row => [ch.key, t, ch.payload, ch.live]

  it('a restored circuit continues exactly like the saving one (outputs, advances, stateSize, rollback)', () => {
    const stats: Stats = { freedBeforeSave: 0, freedAfter: 0 }
    fc.assert(
      fc.property(cfgArb, txsArb(1, 6), fc.array(batchArb, { maxLength: 3 }), txsArb(1, 6), (c, before, junk, after) =>
        differential(build(c), rightRow, c.keyed, before, junk, after, stats),
      ),
      runs(300),
    )
    expect(stats.freedBeforeSave).toBeGreaterThan(0)
    expect(stats.freedAfter).toBeGreaterThan(0)
  })

  it('buckets (ties at one time, one past 32 rows) and negated times survive the round trip', () => {
    for (const match of ['>=', '<'] as const) {
      const c: Cfg = { match, outer: true, tombstones: true, keyed: true }
      const a = new Run(build(c), rightRow)
      const right: [Row, number][] = []
      for (let i = 0; i < 40; i++) right.push([[1, 5, i % 3, i], 1])
      right.push([[1, 2, 0, true], 1], [[1, 8, 1, false], 1], [[2, 0, 0, true], 1])
      const left: [Row, number][] = [
        [[1, 6, 0], 1],
        [[1, 5, 1], 2],
        [[1, 3, 0], 1],
        [[2, 1, 0], -1],
      ]
      const dl = ZSet.of(left)
      const dr = ZSet.of(right)
      a.tables[0]!.add(dl)
      a.tables[1]!.add(dr)
      const x: Batch = { changes: [], dl: 0, dr: 0, together: false }
      a.run([dl, dr], x)
      a.circuit.commit()
      const b = new Run(build(c), rightRow)
      restoreRun(a, b)
      expect(b.op.stateSize()).toBe(47)
      expect((b.op as AsOfJoinOperator).saveState()).toEqual((a.op as AsOfJoinOperator).saveState())
      // deleting rows of the big bucket (the tie winner among them) re-matches the left rows
      const del = ZSet.of([
        [[1, 5, 2, 2], -1],
        [[1, 5, 2, 5], -1],
        [[1, 2, 0, true], -1],
      ])
      for (const r of [a, b]) r.tables[1]!.add(del)
      expect(b.run([new ZSet(), del], x)).toEqual(a.run([new ZSet(), del], x))
      expect(b.op.stateSize()).toBe(a.op.stateSize())
    }
  })
})
