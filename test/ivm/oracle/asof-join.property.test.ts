// AsOfJoin against a from-scratch reference: for every left row, scan all right rows for the
// nearest one in time with the same key. Checked after every step for all four match kinds,
// inner and outer, with and without tombstones and keys, with rollbacks interleaved, through
// the shared harness (incremental, rollback, backfill), and with watermarks: changes respect
// the watermark contract and advance() must never change the output (compared with a run that
// never frees), and once both watermarks pass every time only the live latest versions remain.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Circuit, compareRows, InputOperator, rowKey, valuesEqual, ZSet, type Row } from '../../../ivm/index.js'
import { asOfJoin, type AsOfJoinOperator, type AsOfJoinOptions } from '../../../ivm/operators/asof-join.js'
import { Accumulator, norm } from '../helpers.js'
import { checkAll, checkRestore, type Table } from './harness.js'

// left rows [key, time, payload]; right rows [key, time, payload, live]
const TIME = 1
const LIVE = 3
const RIGHT_WIDTH = 4
type Match = AsOfJoinOptions['match']

interface Cfg {
  readonly match: Match
  readonly outer: boolean
  readonly tombstones: boolean
  readonly key: number[]
}

/** Ties: the greater payload first (deliberately not compareRows order); equal payloads fall
 *  back to compareRows in the operator, so the reference does the same. */
const tieBreak = (a: Row, b: Row): number => (b[2] as number) - (a[2] as number)
const order = (a: Row, b: Row): number => tieBreak(a, b) || compareRows(a, b)

function options(cfg: Cfg, watermarks?: { left: () => number; right: () => number }): AsOfJoinOptions {
  return {
    leftKey: cfg.key,
    rightKey: cfg.key,
    leftTime: TIME,
    rightTime: TIME,
    match: cfg.match,
    outer: cfg.outer,
    rightWidth: RIGHT_WIDTH,
    live: cfg.tombstones ? LIVE : undefined,
    tieBreak,
    leftWatermark: watermarks?.left,
    rightWatermark: watermarks?.right,
  }
}

const isNull = (v: unknown): boolean => v === null || v === undefined

/** The reference: batch semantics on consolidated tables. */
function naiveAsOf(L: Table, R: Table, cfg: Cfg): Table {
  const nulls = new Array<unknown>(RIGHT_WIDTH).fill(null)
  const res: Table = []
  const later = cfg.match === '<=' || cfg.match === '<'
  for (const [l, w] of L) {
    if (w <= 0) continue
    const lt = l[TIME]
    if (isNull(lt) || cfg.key.some((c) => isNull(l[c]))) {
      if (cfg.outer) res.push([[...l, ...nulls], w])
      continue
    }
    const x = lt as number
    let best: Row | null = null
    for (const [r, rw] of R) {
      if (rw <= 0 || isNull(r[TIME]) || cfg.key.some((c) => isNull(r[c]) || !valuesEqual(r[c], l[c]))) continue
      const t = r[TIME] as number
      const ok = cfg.match === '>=' ? t <= x : cfg.match === '>' ? t < x : cfg.match === '<=' ? t >= x : t > x
      if (!ok) continue
      if (best === null) best = r
      else {
        const bt = best[TIME] as number
        if ((later ? t < bt : t > bt) || (t === bt && order(r, best) < 0)) best = r
      }
    }
    if (best !== null && !(cfg.tombstones && best[LIVE] === false)) res.push([[...l, ...best], w])
    else if (cfg.outer) res.push([[...l, ...nulls], w])
  }
  return res
}

function want(L: Table, R: Table, cfg: Cfg): [Row, number][] {
  return norm(ZSet.of(naiveAsOf(L, R, cfg)))
}

describe('AsOfJoin reference (guards the oracle itself)', () => {
  it('picks the nearest time, ties by tieBreak, tombstones shadow', () => {
    const L: Table = [
      [[1, 5, 0], 1],
      [[1, 1, 0], 2],
      [[null, 5, 0], 1],
    ]
    const R: Table = [
      [[1, 2, 0, true], 1],
      [[1, 4, 0, true], 1],
      [[1, 4, 1, true], 1],
      [[1, 7, 0, false], 1],
    ]
    const ge = { match: '>=' as const, outer: true, tombstones: true, key: [0] }
    expect(want(L, R, ge)).toEqual(
      norm(
        ZSet.of([
          [[1, 5, 0, 1, 4, 1, true], 1],
          [[1, 1, 0, null, null, null, null], 2],
          [[null, 5, 0, null, null, null, null], 1],
        ]),
      ),
    )
    expect(want(L, R, { ...ge, match: '<=' })).toEqual(
      norm(
        ZSet.of([
          [[1, 5, 0, null, null, null, null], 1],
          [[1, 1, 0, 1, 2, 0, true], 2],
          [[null, 5, 0, null, null, null, null], 1],
        ]),
      ),
    )
    expect(want(L, R, { ...ge, match: '<=', tombstones: false, outer: false })).toEqual(
      norm(
        ZSet.of([
          [[1, 5, 0, 1, 7, 0, false], 1],
          [[1, 1, 0, 1, 2, 0, true], 2],
        ]),
      ),
    )
  })
})

// ---- random workloads ----

const keyValue = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 8, arbitrary: fc.integer({ min: 0, max: 2 }) })
const timeValue = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 10, arbitrary: fc.integer({ min: 0, max: 8 }) })
const payload = fc.integer({ min: 0, max: 2 })
const leftRow = fc.tuple(keyValue, timeValue, payload) as fc.Arbitrary<Row>
const rightRow = fc.tuple(keyValue, timeValue, payload, fc.boolean()) as fc.Arbitrary<Row>
const cfgArb: fc.Arbitrary<Cfg> = fc.record({
  match: fc.constantFrom<Match>('>=', '>', '<=', '<'),
  outer: fc.boolean(),
  tombstones: fc.boolean(),
  key: fc.constantFrom<number[]>([0], [0], []),
})

type Change = { side: 0 | 1; kind: 'ins'; row: Row; weight: number } | { side: 0 | 1; kind: 'del'; pick: number; weight: number }
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ side: fc.constant(0 as const), kind: fc.constant('ins' as const), row: leftRow, weight: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ side: fc.constant(1 as const), kind: fc.constant('ins' as const), row: rightRow, weight: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ side: fc.constantFrom<0 | 1>(0, 1), kind: fc.constant('del' as const), pick: fc.nat(), weight: fc.integer({ min: 1, max: 2 }) }) },
)
const stepArb = fc.array(changeArb, { minLength: 0, maxLength: 8 })

/** Turns changes into one (unconsolidated) delta per side against the tables, which it updates. */
function resolve(step: Change[], tables: Accumulator[]): ZSet[] {
  const ds = [new ZSet(), new ZSet()]
  for (const ch of step) {
    const t = tables[ch.side]!
    if (ch.kind === 'ins') {
      ds[ch.side]!.push(ch.row, ch.weight)
      t.add(ZSet.of([[ch.row, ch.weight]]))
    } else {
      const rows = t.entries()
      if (rows.length === 0) continue
      const [row, w] = rows[ch.pick % rows.length]!
      const dw = Math.min(w, ch.weight)
      ds[ch.side]!.push(row, -dw)
      t.add(ZSet.of([[row, -dw]]))
    }
  }
  return ds
}

function copy(a: Accumulator): Accumulator {
  const c = new Accumulator()
  c.add(a.toZSet())
  return c
}

class Run {
  readonly circuit: Circuit
  readonly tables = [new Accumulator(), new Accumulator()]
  readonly outputs = new Accumulator()
  readonly inputs: InputOperator[]
  readonly op: AsOfJoinOperator

  constructor(
    readonly cfg: Cfg,
    watermarks?: { left: () => number; right: () => number },
    scanBelow?: number,
  ) {
    this.circuit = new Circuit({ scanBelow })
    this.inputs = this.tables.map((t) => this.circuit.add(new InputOperator(() => t.toZSet())))
    this.op = asOfJoin(this.circuit, this.inputs[0]!, this.inputs[1]!, options(cfg, watermarks))
  }

  /** Pushes deltas (already applied to `tables` by the caller), steps, returns the output. */
  push(ds: ZSet[]): [Row, number][] {
    for (let i = 0; i < 2; i++) if (ds[i]!.length !== 0) this.inputs[i]!.push(ds[i]!)
    this.circuit.step()
    const out = this.op.out
    // consolidated: no zero weights, no repeated rows
    expect(out.weights.every((w) => w !== 0)).toBe(true)
    expect(new Set(out.rows.map(rowKey)).size).toBe(out.rows.length)
    this.outputs.add(out)
    this.circuit.endStep()
    return norm(out)
  }

  want(): [Row, number][] {
    return want(this.tables[0]!.entries(), this.tables[1]!.entries(), this.cfg)
  }

  /** Rows the operator must hold without freeing: rows with a non-NULL key and time. */
  held(): number {
    let n = 0
    for (const t of this.tables) for (const [r] of t.entries()) if (!isNull(r[TIME]) && !this.cfg.key.some((c) => isNull(r[c]))) n++
    return n
  }

  rollBack(saved: Accumulator[], savedOut: Accumulator): void {
    this.circuit.rollback()
    for (let i = 0; i < 2; i++) {
      const t = this.tables[i]!
      t.add(t.toZSet(), -1)
      t.add(saved[i]!.toZSet())
    }
    this.outputs.add(this.outputs.toZSet(), -1)
    this.outputs.add(savedOut.toZSet())
  }
}

const runs = (n: number) => ({ numRuns: Number(process.env.ORACLE_RUNS ?? n) })

describe('AsOfJoin (oracle)', { timeout: 120_000 }, () => {
  it('output integral equals the reference after every step', () => {
    fc.assert(
      fc.property(cfgArb, fc.array(stepArb, { minLength: 1, maxLength: 12 }), fc.boolean(), (cfg, steps, scan) => {
        const run = new Run(cfg, undefined, scan ? 0 : undefined)
        for (const s of steps) {
          run.push(resolve(s, run.tables))
          run.circuit.commit()
          expect(run.outputs.entries()).toEqual(run.want())
          expect(run.op.stateSize()).toBe(run.held())
        }
      }),
      runs(600),
    )
  })

  it('rollbacks interleaved: a rolled-back transaction leaves no trace', () => {
    const txArb = fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    fc.assert(
      fc.property(cfgArb, fc.array(txArb, { minLength: 1, maxLength: 8 }), (cfg, txs) => {
        const run = new Run(cfg)
        const ref = new Run(cfg)
        for (const tx of txs) {
          const saved = run.tables.map(copy)
          const savedOut = copy(run.outputs)
          for (const s of tx.steps) {
            const ds = resolve(s, run.tables)
            const out = run.push(ds)
            if (!tx.rollback) {
              ref.tables[0]!.add(ds[0]!)
              ref.tables[1]!.add(ds[1]!)
              expect(out).toEqual(ref.push(ds))
            }
          }
          if (tx.rollback) run.rollBack(saved, savedOut)
          else {
            run.circuit.commit()
            ref.circuit.commit()
          }
          expect(run.op.stateSize()).toBe(ref.op.stateSize())
          expect(run.op.stateSize()).toBe(run.held())
          expect(run.outputs.entries()).toEqual(run.want())
          expect(run.outputs.entries()).toEqual(ref.outputs.entries())
        }
      }),
      runs(300),
    )
  })

  it('watermarks: advance() frees state without changing the output; rollback restores it', () => {
    const txArb = fc.record({ batches: fc.array(wmBatchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    let freedSome = 0
    fc.assert(
      fc.property(wmCfgArb, fc.array(txArb, { minLength: 1, maxLength: 8 }), (cfg, txs) => {
        let wl = 0
        let wr = 0
        const run = new Run(cfg, { left: () => wl, right: () => wr })
        // the same changes, never freeing
        const ref = new Run(cfg)
        for (const tx of txs) {
          const saved = run.tables.map(copy)
          const savedOut = copy(run.outputs)
          const savedRef = ref.tables.map(copy)
          const savedRefOut = copy(ref.outputs)
          const savedWm = [wl, wr]
          for (const b of tx.batches) {
            const ds = wmDeltas(b, run.tables, wl, wr)
            ref.tables[0]!.add(ds[0]!)
            ref.tables[1]!.add(ds[1]!)
            expect(run.push(ds)).toEqual(ref.push(ds))
            wl += b.leftBy
            wr += b.rightBy
            // through the circuit, so the advance belongs to the open transaction
            expect(run.circuit.advance()).toBe(false)
            run.circuit.endStep()
            expect(run.outputs.entries()).toEqual(run.want())
            expect(run.op.stateSize()).toBe(heldAfterFreeing(run.tables[0]!.entries(), run.tables[1]!.entries(), cfg, wl, wr))
            if (run.op.stateSize() < ref.op.stateSize()) freedSome++
          }
          if (tx.rollback) {
            run.rollBack(saved, savedOut)
            ref.rollBack(savedRef, savedRefOut)
            ;[wl, wr] = savedWm as [number, number]
          } else {
            run.circuit.commit()
            ref.circuit.commit()
          }
          expect(run.outputs.entries()).toEqual(run.want())
          expect(run.op.stateSize()).toBe(heldAfterFreeing(run.tables[0]!.entries(), run.tables[1]!.entries(), cfg, wl, wr))
        }
        // both watermarks past every time: no left rows stay, and per key only the latest
        // right time's rows, if the match there is live
        const before = run.op.stateSize()
        wl = wr = 1000
        expect(run.circuit.advance()).toBe(false)
        expect(run.op.stateSize()).toBe(latestLive(run.tables[1]!.entries(), cfg))
        // and a rollback brings everything back
        run.circuit.rollback()
        expect(run.op.stateSize()).toBe(before)
      }),
      runs(400),
    )
    // the workload does exercise freeing mid-run (not only in the final flush)
    expect(freedSome).toBeGreaterThan(0)
  })

  it('watermarks with rollbacks: a rolled-back transaction (steps and advances) leaves no trace, and freeing resumes', () => {
    // `run` runs every transaction, `clean` only the committed ones (replayed batch by batch,
    // with the same watermarks and advances): after every transaction both hold the same
    // state and output, and exactly what the watermarks allow
    const txArb = fc.record({ batches: fc.array(wmBatchArb, { minLength: 1, maxLength: 3 }), rollback: fc.boolean() })
    let restored = 0
    fc.assert(
      fc.property(wmCfgArb, fc.array(txArb, { minLength: 1, maxLength: 10 }), (cfg, txs) => {
        let wl = 0
        let wr = 0
        let cwl = 0
        let cwr = 0
        const run = new Run(cfg, { left: () => wl, right: () => wr })
        const clean = new Run(cfg, { left: () => cwl, right: () => cwr })
        for (const tx of txs) {
          const saved = run.tables.map(copy)
          const savedOut = copy(run.outputs)
          const savedWm = [wl, wr] as const
          const sizeBefore = run.op.stateSize()
          const done: { ds: ZSet[]; wl: number; wr: number }[] = []
          for (const b of tx.batches) {
            const ds = wmDeltas(b, run.tables, wl, wr)
            run.push(ds)
            wl += b.leftBy
            wr += b.rightBy
            expect(run.circuit.advance()).toBe(false)
            run.circuit.endStep()
            done.push({ ds, wl, wr })
          }
          if (tx.rollback) {
            const sizeAfter = run.op.stateSize()
            run.rollBack(saved, savedOut)
            ;[wl, wr] = savedWm
            expect(run.op.stateSize()).toBe(sizeBefore)
            if (sizeAfter < sizeBefore) restored++
          } else {
            run.circuit.commit()
            for (const { ds, wl: l, wr: r } of done) {
              clean.tables[0]!.add(ds[0]!)
              clean.tables[1]!.add(ds[1]!)
              clean.push(ds)
              cwl = l
              cwr = r
              clean.circuit.advance()
              clean.circuit.endStep()
            }
            clean.circuit.commit()
          }
          expect(run.op.stateSize()).toBe(clean.op.stateSize())
          expect(run.outputs.entries()).toEqual(clean.outputs.entries())
          expect(run.outputs.entries()).toEqual(run.want())
          expect(run.op.stateSize()).toBe(heldAfterFreeing(run.tables[0]!.entries(), run.tables[1]!.entries(), cfg, wl, wr))
        }
        // freeing resumes after the rollbacks: both watermarks past every time
        wl = wr = cwl = cwr = 1000
        run.circuit.advance()
        run.circuit.commit()
        clean.circuit.advance()
        clean.circuit.commit()
        expect(run.op.stateSize()).toBe(latestLive(run.tables[1]!.entries(), cfg))
        expect(run.op.stateSize()).toBe(clean.op.stateSize())
      }),
      runs(400),
    )
    // rolled-back advances that had freed something do occur
    expect(restored).toBeGreaterThan(0)
  })

  // the shared harness: incremental, rollback (A, B, rollback, C) and backfill
  const harnessCfgs: Cfg[] = [
    { match: '>=', outer: true, tombstones: true, key: [0] },
    { match: '<', outer: false, tombstones: true, key: [0] },
    { match: '>', outer: true, tombstones: false, key: [] },
  ]
  for (const cfg of harnessCfgs) {
    it(`harness checks, ${cfg.match} ${cfg.outer ? 'outer' : 'inner'}${cfg.tombstones ? ' with tombstones' : ''}`, () =>
      checkAll({
        inputs: 2,
        row: [leftRow, rightRow],
        build: (c, [l, r]) => asOfJoin(c, l!, r!, options(cfg)),
        oracle: ([L, R]) => naiveAsOf(L!, R!, cfg),
      }))
  }
  // checkpoints (checkAll above includes checkRestore) for the remaining match kind
  it('harness restore, <= inner, no key', () => {
    const cfg: Cfg = { match: '<=', outer: false, tombstones: false, key: [] }
    checkRestore({
      inputs: 2,
      row: [leftRow, rightRow],
      build: (c, [l, r]) => asOfJoin(c, l!, r!, options(cfg)),
      oracle: ([L, R]) => naiveAsOf(L!, R!, cfg),
    })
  })
})

/** Changes at or after the watermarks (inserts, and deletes of rows there), then the
 *  watermarks advance by leftBy / rightBy. */
const wmBatchArb = fc.record({
  changes: fc.array(
    fc.record({
      side: fc.constantFrom<0 | 1>(0, 0, 1),
      del: fc.boolean(),
      key: keyValue,
      // exactly at the watermark often: the boundary cases of freeing
      offset: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4 })),
      payload,
      live: fc.boolean(),
      pick: fc.nat(),
      weight: fc.integer({ min: 1, max: 2 }),
    }),
    { minLength: 0, maxLength: 6 },
  ),
  leftBy: fc.integer({ min: 0, max: 3 }),
  rightBy: fc.integer({ min: 0, max: 3 }),
})
type WmBatch = typeof wmBatchArb extends fc.Arbitrary<infer T> ? T : never

const wmCfgArb: fc.Arbitrary<Cfg> = fc.record({
  match: fc.constantFrom<Match>('>=', '>'),
  outer: fc.boolean(),
  tombstones: fc.boolean(),
  key: fc.constantFrom<number[]>([0], [0], []),
})

/** One delta per side for a batch at watermarks (wl, wr), applied to `tables`. */
function wmDeltas(b: WmBatch, tables: Accumulator[], wl: number, wr: number): ZSet[] {
  const ds = [new ZSet(), new ZSet()]
  for (const ch of b.changes) {
    const side = ch.side
    const t = tables[side]!
    const wm = side === 0 ? wl : wr
    if (ch.del) {
      const rows = t.entries().filter(([r]) => (r[TIME] as number) >= wm)
      if (rows.length === 0) continue
      const [row, w] = rows[ch.pick % rows.length]!
      const dw = Math.min(w, ch.weight)
      ds[side]!.push(row, -dw)
      t.add(ZSet.of([[row, -dw]]))
    } else {
      const row: Row = side === 0 ? [ch.key, wm + ch.offset, ch.payload] : [ch.key, wm + ch.offset, ch.payload, ch.live]
      ds[side]!.push(row, ch.weight)
      t.add(ZSet.of([[row, ch.weight]]))
    }
  }
  return ds
}

/** What the operator holds after advance() at watermarks (wl, wr), '>=' / '>' only, restated
 *  from the tables (see the operator's header): left rows unless x < min(wl, wr) ('>=') /
 *  x < wl ∧ x ≤ wr ('>'); per key, with j = the last right time < wr and ≤ wl ('>=') / < wl
 *  ('>'), right rows at times after j, and at j unless its first row is a tombstone. */
function heldAfterFreeing(L: Table, R: Table, cfg: Cfg, wl: number, wr: number): number {
  const strict = cfg.match === '>'
  const stored = (r: Row): boolean => !isNull(r[TIME]) && !cfg.key.some((c) => isNull(r[c]))
  let n = 0
  for (const [l] of L) {
    if (!stored(l)) continue
    const x = l[TIME] as number
    const freed = strict ? x < wl && x <= wr : x < Math.min(wl, wr)
    if (!freed) n++
  }
  const byKey = new Map<unknown, Map<number, Row[]>>()
  for (const [r] of R) {
    if (!stored(r)) continue
    const k = cfg.key.length === 0 ? '' : rowKey(cfg.key.map((c) => r[c]))
    const times = byKey.get(k) ?? new Map<number, Row[]>()
    byKey.set(k, times)
    const t = r[TIME] as number
    times.set(t, [...(times.get(t) ?? []), r])
  }
  for (const times of byKey.values()) {
    const ts = [...times.keys()].sort((a, b) => a - b)
    let j = -1
    for (let i = 0; i < ts.length; i++) if (ts[i]! < wr && (strict ? ts[i]! < wl : ts[i]! <= wl)) j = i
    for (let i = Math.max(j, 0); i < ts.length; i++) {
      const rows = times.get(ts[i]!)!
      if (i === j && cfg.tombstones && [...rows].sort(order)[0]![LIVE] === false) continue
      n += rows.length
    }
  }
  return n
}

/** Right rows held once everything is final: per key, the rows at the latest time when the
 *  first of them is live (tombstoned keys and older versions are gone). */
function latestLive(R: Table, cfg: Cfg): number {
  const byKey = new Map<unknown, Row[]>()
  for (const [r] of R) {
    if (cfg.key.some((c) => isNull(r[c]))) continue
    const k = cfg.key.length === 0 ? '' : rowKey(cfg.key.map((c) => r[c]))
    const list = byKey.get(k) ?? []
    byKey.set(k, list)
    list.push(r)
  }
  let n = 0
  for (const rows of byKey.values()) {
    const last = Math.max(...rows.map((r) => r[TIME] as number))
    const at = rows.filter((r) => r[TIME] === last).sort(order)
    if (!(cfg.tombstones && at[0]![LIVE] === false)) n += at.length
  }
  return n
}
