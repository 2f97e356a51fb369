import { describe, expect, it } from 'vitest'
import { Circuit, input, integrate, ZSet, type Row } from '../../../ivm/index.js'
import { intervalJoin, type IntervalJoinOperator, type IntervalJoinOptions } from '../../../ivm/operators/interval-join.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

// rows on both sides: [key, time, name]; output [...l, ...r]
const N: Row = [null, null, null]
const base: IntervalJoinOptions = {
  leftKey: [0],
  rightKey: [0],
  leftTime: 1,
  rightTime: 1,
  lower: -1,
  upper: 2,
  lowerInclusive: true,
  upperInclusive: true,
  kind: 'inner',
  leftWidth: 3,
  rightWidth: 3,
}

function setup(options: Partial<IntervalJoinOptions> = {}): { d: Driver; j: IntervalJoinOperator } {
  const d = new Driver(2)
  const j = intervalJoin(d.circuit, d.inputs[0]!, d.inputs[1]!, { ...base, ...options })
  return { d, j }
}

const L = (...rows: Row[]) => [ins(...rows), undefined]
const R = (...rows: Row[]) => [undefined, ins(...rows)]

describe('IntervalJoin', () => {
  it('matches r.t − l.t in [lower, upper] per key, incrementally from either side', () => {
    const { d, j } = setup()
    expect(d.step(L(['a', 10, 'l1'], ['b', 10, 'l2']), j)).toEqual([])
    expect(d.step(R(['a', 8, 'r0'], ['a', 9, 'r1'], ['a', 12, 'r2'], ['a', 13, 'r3'], ['b', 11, 'r4'], ['c', 10, 'r5']), j)).toEqual(
      expected([['a', 10, 'l1', 'a', 9, 'r1'], 1], [['a', 10, 'l1', 'a', 12, 'r2'], 1], [['b', 10, 'l2', 'b', 11, 'r4'], 1]),
    )
    // a left row arriving later probes the right rows in its band
    expect(d.step(L(['a', 11, 'l3']), j)).toEqual(expected([['a', 11, 'l3', 'a', 12, 'r2'], 1], [['a', 11, 'l3', 'a', 13, 'r3'], 1]))
    expect(j.stateSize()).toBe(9)
    // deletions retract exactly their pairs
    expect(d.step([undefined, del(['a', 12, 'r2'])], j)).toEqual(expected([['a', 10, 'l1', 'a', 12, 'r2'], -1], [['a', 11, 'l3', 'a', 12, 'r2'], -1]))
    expect(d.step([del(['a', 10, 'l1']), undefined], j)).toEqual(expected([['a', 10, 'l1', 'a', 9, 'r1'], -1]))
    expect(j.stateSize()).toBe(7)
  })

  it('exclusive bounds drop the band edges; inclusive keep them', () => {
    const rights = () => R(['k', 9, 'lo'], ['k', 10, 'mid'], ['k', 12, 'hi'])
    const cases: [boolean, boolean, string[]][] = [
      [true, true, ['lo', 'mid', 'hi']],
      [false, true, ['mid', 'hi']],
      [true, false, ['lo', 'mid']],
      [false, false, ['mid']],
    ]
    for (const [lowerInclusive, upperInclusive, names] of cases) {
      const { d, j } = setup({ lowerInclusive, upperInclusive })
      d.step(rights(), j)
      const got = d.step(L(['k', 10, 'l']), j)
      expect(got.map(([r]) => r[5])).toEqual(names)
      // and the same from the right side
      const o = setup({ lowerInclusive, upperInclusive })
      o.d.step(L(['k', 10, 'l']), o.j)
      expect(norm(o.d.tick(rights(), [o.j])[0]!).map(([r]) => r[5])).toEqual(names)
    }
  })

  it('one-sided bands: b.ts > a.ts, and b.ts ≤ a.ts + 1', () => {
    const after = setup({ lower: 0, lowerInclusive: false, upper: Infinity, upperInclusive: false })
    after.d.step(R(['k', 5, 'r5'], ['k', 6, 'r6'], ['k', 1e12, 'far']), after.j)
    expect(after.d.step(L(['k', 5, 'l']), after.j)).toEqual(expected([['k', 5, 'l', 'k', 6, 'r6'], 1], [['k', 5, 'l', 'k', 1e12, 'far'], 1]))
    const before = setup({ lower: -Infinity, lowerInclusive: false, upper: 1, upperInclusive: true })
    before.d.step(L(['k', 5, 'l']), before.j)
    expect(before.d.step(R(['k', -1e12, 'old'], ['k', 6, 'r6'], ['k', 7, 'r7']), before.j)).toEqual(
      expected([['k', 5, 'l', 'k', -1e12, 'old'], 1], [['k', 5, 'l', 'k', 6, 'r6'], 1]),
    )
    expect(before.j.describeState()).toBe('left and right rows by key and time (1 + 3); unbounded')
  })

  it('an empty key is a pure band join (NULL key columns do not matter then)', () => {
    const { d, j } = setup({ leftKey: [], rightKey: [] })
    d.step(L(['a', 10, 'l'], [null, 20, 'n']), j)
    expect(d.step(R(['z', 11, 'r'], [null, 21, 's']), j)).toEqual(expected([['a', 10, 'l', 'z', 11, 'r'], 1], [[null, 20, 'n', null, 21, 's'], 1]))
  })

  it('weights multiply; both sides changing in one step counts ΔL ⋈ ΔR once', () => {
    const { d, j } = setup()
    d.step([zs([['k', 0, 'l'], 2]), undefined], j)
    expect(d.step([zs([['k', 1, 'm'], 1]), zs([['k', 1, 'r'], 3])], j)).toEqual(expected([['k', 0, 'l', 'k', 1, 'r'], 6], [['k', 1, 'm', 'k', 1, 'r'], 3]))
    // an insert and a delete of matching rows in one step
    expect(d.step([zs([['k', 0, 'l'], -2], [['k', 2, 'n'], 1]), zs([['k', 1, 'r'], -1])], j)).toEqual(
      expected([['k', 0, 'l', 'k', 1, 'r'], -6], [['k', 1, 'm', 'k', 1, 'r'], -1], [['k', 2, 'n', 'k', 1, 'r'], 2]),
    )
    expect(j.stateSize()).toBe(3)
    // an unconsolidated batch that cancels emits nothing (not even entries that cancel) and leaves nothing behind
    expect(d.tick([zs([['k', 5, 'x'], 1], [['k', 5, 'x'], -1]), zs([['k', 5, 'y'], 1], [['k', 5, 'y'], -1])], [j])[0]!.length).toBe(0)
    expect(j.stateSize()).toBe(3)
  })

  it('left join: the null-extended row goes when the first match arrives and comes back with the last one gone', () => {
    const { d, j } = setup({ kind: 'left' })
    expect(d.step(L(['k', 10, 'l']), j)).toEqual(expected([['k', 10, 'l', ...N], 1]))
    expect(d.step(R(['k', 50, 'far']), j)).toEqual([])
    expect(d.step(R(['k', 11, 'r1']), j)).toEqual(expected([['k', 10, 'l', ...N], -1], [['k', 10, 'l', 'k', 11, 'r1'], 1]))
    expect(d.step(R(['k', 12, 'r2']), j)).toEqual(expected([['k', 10, 'l', 'k', 12, 'r2'], 1]))
    expect(d.step([undefined, del(['k', 11, 'r1'])], j)).toEqual(expected([['k', 10, 'l', 'k', 11, 'r1'], -1]))
    expect(d.step([undefined, del(['k', 12, 'r2'])], j)).toEqual(expected([['k', 10, 'l', 'k', 12, 'r2'], -1], [['k', 10, 'l', ...N], 1]))
    // a second copy of l is null-extended too; deleting l entirely retracts everything
    expect(d.step(L(['k', 10, 'l']), j)).toEqual(expected([['k', 10, 'l', ...N], 1]))
    expect(d.step([zs([['k', 10, 'l'], -2]), undefined], j)).toEqual(expected([['k', 10, 'l', ...N], -2]))
    expect(j.stateSize()).toBe(1)
  })

  it('right and full joins null-extend the other side; a matching pair arriving together emits no NULL row', () => {
    const right = setup({ kind: 'right' })
    expect(right.d.step(R(['k', 10, 'r']), right.j)).toEqual(expected([[...N, 'k', 10, 'r'], 1]))
    expect(right.d.step(L(['k', 9, 'l'], ['k', 0, 'x']), right.j)).toEqual(expected([[...N, 'k', 10, 'r'], -1], [['k', 9, 'l', 'k', 10, 'r'], 1]))
    const full = setup({ kind: 'full' })
    expect(full.d.step([ins(['k', 9, 'l'], ['k', 0, 'x']), ins(['k', 10, 'r'], ['q', 10, 's'])], full.j)).toEqual(
      expected([['k', 9, 'l', 'k', 10, 'r'], 1], [['k', 0, 'x', ...N], 1], [[...N, 'q', 10, 's'], 1]),
    )
    // deleting both sides of the only pair in one step: nothing null-extended is left behind
    expect(full.d.step([del(['k', 9, 'l']), del(['k', 10, 'r'])], full.j)).toEqual(expected([['k', 9, 'l', 'k', 10, 'r'], -1]))
  })

  it('residual conditions are part of the match (an outer row without a passing pair is unmatched)', () => {
    const { d, j } = setup({ kind: 'full', residual: (l, r) => l[2] !== 'no' && r[2] !== 'no' })
    expect(d.step([ins(['k', 10, 'no']), ins(['k', 10, 'r'])], j)).toEqual(expected([['k', 10, 'no', ...N], 1], [[...N, 'k', 10, 'r'], 1]))
    expect(d.step(L(['k', 10, 'yes']), j)).toEqual(expected([[...N, 'k', 10, 'r'], -1], [['k', 10, 'yes', 'k', 10, 'r'], 1]))
    expect(d.step(R(['k', 11, 'no']), j)).toEqual(expected([[...N, 'k', 11, 'no'], 1]))
  })

  it('rows with a NULL key or time match nothing; outer joins pass them through null-extended', () => {
    const inner = setup()
    inner.d.step(R(['k', 10, 'r'], [null, 10, 'n']), inner.j)
    expect(inner.d.step(L([null, 10, 'a'], ['k', null, 'b']), inner.j)).toEqual([])
    expect(inner.j.stateSize()).toBe(1)
    const full = setup({ kind: 'full' })
    full.d.step(R(['k', 10, 'r']), full.j)
    expect(full.d.step(L([null, 10, 'a'], ['k', undefined, 'b']), full.j)).toEqual(expected([[null, 10, 'a', ...N], 1], [['k', undefined, 'b', ...N], 1]))
    expect(full.d.step([del([null, 10, 'a']), ins([null, null, 'c'])], full.j)).toEqual(expected([[null, 10, 'a', ...N], -1], [[...N, null, null, 'c'], 1]))
    expect(full.j.stateSize()).toBe(1)
  })

  it('rejects non-numeric times and bad options before touching state', () => {
    const c = new Circuit()
    const i = input(c, () => new ZSet())
    expect(() => intervalJoin(c, i, i, { ...base, rightKey: [0, 1] })).toThrow(/arity/)
    expect(() => intervalJoin(c, i, i, { ...base, kind: 'left', finalOuter: true, leftWatermark: () => 0 })).toThrow(/finalOuter/)
    expect(() => intervalJoin(c, i, i, { ...base, lower: NaN })).toThrow(/bounds/)
    const { d, j } = setup({ kind: 'left' })
    d.step(L(['k', 1, 'x']), j)
    d.commit()
    const saved = d.saveTables()
    expect(() => d.step([ins(['k', 2, 'y'], ['k', 'later', 'z']), ins(['k', 1, 'r'])], j)).toThrow(/left time column #1/)
    d.rollback(saved)
    expect(j.stateSize()).toBe(1)
    expect(() => d.step(R(['k', Infinity, 'r']), j)).toThrow(/right time column #1 must be a finite number/)
  })

  it('a residual that throws leaves the state untouched; rollback restores everything', () => {
    let boom = false
    const { d, j } = setup({
      kind: 'full',
      residual: () => {
        if (boom) throw new Error('boom')
        return true
      },
    })
    const sink = integrate(d.circuit, j)
    d.tick([ins(['k', 10, 'l'], ['k', 30, 'm']), ins(['k', 11, 'r'])], [])
    d.commit()
    const saved = d.saveTables()
    boom = true
    expect(() => d.tick([ins(['k', 10, 'l2']), del(['k', 11, 'r'])], [])).toThrow(/boom/)
    d.rollback(saved)
    boom = false
    expect(j.stateSize()).toBe(3)
    // several committed-to-be-undone steps: deletes, new keys, status flips
    d.tick([del(['k', 10, 'l']), ins(['k', 12, 'r2'], ['z', 0, 'q'])], [])
    d.tick([ins(['k', 31, 'm2']), del(['k', 11, 'r'])], [])
    d.rollback(saved)
    expect(j.stateSize()).toBe(3)
    expect(norm(sink.contents())).toEqual(expected([['k', 10, 'l', 'k', 11, 'r'], 1], [['k', 30, 'm', ...N], 1]))
    // the next step behaves as if the rolled-back steps never happened
    expect(d.step([undefined, del(['k', 11, 'r'])], j)).toEqual(expected([['k', 10, 'l', 'k', 11, 'r'], -1], [['k', 10, 'l', ...N], 1]))
    expect(d.step(R(['k', 31, 'r3']), j)).toEqual(expected([['k', 30, 'm', ...N], -1], [['k', 30, 'm', 'k', 31, 'r3'], 1]))
  })

  it('advance() frees rows no later change can reach; output unchanged; rollback restores them', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ kind: 'left', leftWatermark: () => wl, rightWatermark: () => wr })
    // band [−1, 2] inclusive: l dead once l.t + 2 < wr; r dead once wl − 1 > r.t
    d.tick([ins(['k', 10, 'l1'], ['k', 20, 'l2'], ['q', 5, 'lq']), ins(['k', 11, 'r1'], ['k', 25, 'r2'])], [])
    d.commit()
    expect(j.stateSize()).toBe(5)
    expect(j.describeState()).toBe('left and right rows by key and time (3 + 2); freed below the watermarks')
    wl = 13
    wr = 13
    d.circuit.advance()
    // l1: 10 + 2 < 13 and 10 < 13: freed; lq (5) freed (its key empties); l2 stays.
    // r1: 13 − 1 > 11 and 11 < 13: freed; r2 stays
    expect(j.stateSize()).toBe(2)
    expect(j.out.isEmpty()).toBe(true)
    d.circuit.endStep()
    // rollback restores the freed rows (and keys)
    d.rollback(d.saveTables())
    wl = 0
    wr = 0
    expect(j.stateSize()).toBe(5)
    expect(d.step([del(['q', 5, 'lq']), undefined], j)).toEqual(expected([['q', 5, 'lq', ...N], -1]))
    d.commit()
    // boundaries: a left row with l.t + 2 = wr is still reachable by a right row at wr
    wl = 100
    wr = 12
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(3) // l1 kept (10 + 2 = 12 is not < 12: a right row at 12 matches it); r1 freed (99 > 11, 11 < 12)
    d.commit()
    expect(d.step(R(['k', 12, 'r12']), j)).toEqual(expected([['k', 10, 'l1', 'k', 12, 'r12'], 1]))
    d.commit()
    wr = 13
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(2) // l1 freed (12 < 13), r12 freed (99 > 12, 12 < 13); l2, r2 kept
    d.commit()
  })

  it('advance() frees a right row once no left row at or after wl can reach it (lower bound strictness)', () => {
    for (const [lowerInclusive, keptAt12] of [
      [true, 1],
      [false, 0],
    ] as const) {
      let wl = 0
      const { d, j } = setup({ lowerInclusive, leftWatermark: () => wl, rightWatermark: () => 100 })
      d.tick(R(['k', 11, 'r']), [])
      // a left row at 12 has 11 − 12 = −1 = lower: a match only when lower is inclusive
      wl = 12
      d.circuit.advance()
      expect(j.stateSize()).toBe(keptAt12)
      wl = 13
      d.circuit.advance()
      expect(j.stateSize()).toBe(0)
    }
  })

  it('advance() with an exclusive upper bound frees at equality; infinite bounds never free that side', () => {
    let wl = 100
    let wr = 0
    const ex = setup({ upperInclusive: false, leftWatermark: () => wl, rightWatermark: () => wr })
    ex.d.tick(L(['k', 10, 'l']), [])
    wr = 11
    ex.d.circuit.advance()
    expect(ex.j.stateSize()).toBe(1) // 10 + 2 > 11
    wr = 12
    ex.d.circuit.advance()
    expect(ex.j.stateSize()).toBe(0) // 10 + 2 ≤ 12 with r.t < l.t + 2 required
    const inf = setup({ upper: Infinity, lower: -Infinity, leftWatermark: () => wl, rightWatermark: () => wr })
    inf.d.tick([ins(['k', 10, 'l']), ins(['k', 10, 'r'])], [])
    wl = 1e15
    wr = 1e15
    inf.d.circuit.advance()
    expect(inf.j.stateSize()).toBe(2)
    expect(inf.j.describeState()).toBe('left and right rows by key and time (1 + 1); unbounded')
    const half = setup({ upper: Infinity, leftWatermark: () => wl, rightWatermark: () => wr })
    half.d.tick([ins(['k', 10, 'l']), ins(['k', 10, 'r'])], [])
    half.d.circuit.advance()
    expect(half.j.stateSize()).toBe(1)
    expect(half.j.describeState()).toBe('left and right rows by key and time (1 + 0); right freed below the watermarks, left unbounded')
    const none = setup()
    none.d.tick(L(['k', 10, 'l']), [])
    none.j.advance()
    expect(none.j.stateSize()).toBe(1)
    expect(none.j.describeState()).toBe('left and right rows by key and time (1 + 0); unbounded')
  })

  it('finalOuter: pairs at once, the NULL row once when no match can arrive, never when matched', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ kind: 'full', finalOuter: true, leftWatermark: () => wl, rightWatermark: () => wr })
    const sink = integrate(d.circuit, j)
    // nothing null-extended in step (only rows that can never match: NULL key)
    expect(d.step([ins(['k', 10, 'l1'], ['k', 20, 'l2'], [null, 1, 'n']), ins(['k', 11, 'r1'], ['k', 30, 'r2'])], j)).toEqual(
      expected([['k', 10, 'l1', 'k', 11, 'r1'], 1], [[null, 1, 'n', ...N], 1]),
    )
    d.commit()
    const at = (l: number, r: number): [Row, number][] => {
      wl = l
      wr = r
      d.circuit.advance()
      const out = norm(j.out)
      d.circuit.endStep()
      d.commit()
      return out
    }
    // l2 is dead once 20 + 2 < wr: not yet at wr = 22
    expect(at(5, 22)).toEqual([])
    expect(at(5, 23)).toEqual(expected([['k', 20, 'l2', ...N], 1]))
    // never again
    expect(at(6, 24)).toEqual([])
    // a late copy of the dead, null-extended l2 (20 ≥ wl: allowed) is null-extended at once
    expect(d.step(L(['k', 20, 'l2']), j)).toEqual(expected([['k', 20, 'l2', ...N], 1]))
    d.commit()
    expect(at(6, 24)).toEqual([])
    // a match that arrives in time suppresses the NULL row: r2 at 30 matched by a left row at 29
    expect(d.step(L(['k', 29, 'l3']), j)).toEqual(expected([['k', 29, 'l3', 'k', 30, 'r2'], 1]))
    d.commit()
    // r2 dead once wl − 1 > 30; l1 (matched) and r1 (matched) emit nothing
    expect(at(40, 40)).toEqual([])
    expect(j.stateSize()).toBe(0)
    expect(norm(sink.contents())).toEqual(
      expected([['k', 10, 'l1', 'k', 11, 'r1'], 1], [[null, 1, 'n', ...N], 1], [['k', 20, 'l2', ...N], 2], [['k', 29, 'l3', 'k', 30, 'r2'], 1]),
    )
  })

  it('finalOuter: rollback of an advance takes the NULL rows back and re-emits them later', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ kind: 'left', finalOuter: true, leftWatermark: () => wl, rightWatermark: () => wr })
    d.tick(L(['k', 10, 'l']), [])
    d.commit()
    const saved = d.saveTables()
    wl = 20
    wr = 20
    d.circuit.advance()
    expect(norm(j.out)).toEqual(expected([['k', 10, 'l', ...N], 1]))
    expect(j.stateSize()).toBe(0)
    d.circuit.endStep()
    d.rollback(saved)
    wl = 0
    wr = 0
    expect(j.stateSize()).toBe(1)
    // a match still arrives in time after the rollback: no NULL row at all
    expect(d.step(R(['k', 11, 'r']), j)).toEqual(expected([['k', 10, 'l', 'k', 11, 'r'], 1]))
    wl = 20
    wr = 20
    d.circuit.advance()
    expect(j.out.isEmpty()).toBe(true)
    d.circuit.endStep()
    d.commit()
    expect(j.stateSize()).toBe(0)
  })

  it('many rows at one time of one key (indexed bucket) and out-of-order inserts stay exact', () => {
    const { d, j } = setup({ kind: 'left' })
    const sink = integrate(d.circuit, j)
    const rows: Row[] = []
    for (let i = 0; i < 100; i++) rows.push(['k', 5, i])
    d.tick(L(...rows), [])
    d.tick(L(['k', 1, 'early'], ['k', 9, 'late'], ['k', 3, 'mid']), [])
    d.tick(R(['k', 5, 'r']), []) // matches l.t ∈ [3, 6]: the 100 rows and 'mid'
    expect(norm(sink.contents()).filter(([r]) => r[3] === 'k').length).toBe(101)
    d.tick([del(...rows.slice(0, 50)), undefined], [])
    expect(norm(sink.contents()).length).toBe(50 + 1 + 2)
    expect(j.stateSize()).toBe(50 + 3 + 1)
  })

  it('advance() visits only the key sides with something due: idle keys holding rows cost nothing', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ leftWatermark: () => wl, rightWatermark: () => wr })
    // 1,000 idle keys with a left and a right row at 500 (kept until the watermarks pass it)
    const idleL: Row[] = []
    const idleR: Row[] = []
    for (let k = 0; k < 1000; k++) {
      idleL.push([`k${k}`, 500, k])
      idleR.push([`k${k}`, 500, k])
    }
    d.tick([ins(...idleL), ins(...idleR)], [])
    d.circuit.advance()
    d.commit()
    expect(j.stateSize()).toBe(2000)
    const before = j.advanceVisits
    // key a: a left and a right row at t per round; once the watermarks pass t + 3 both are
    // dead (l: t + 2 < wr; r: wl − 1 > t) and a's two sides are the only ones visited
    for (let t = 10; t <= 100; t += 10) {
      d.tick([ins(['a', t, 'l']), ins(['a', t, 'r'])], [])
      wl = wr = t + 4
      d.circuit.advance()
      d.circuit.endStep()
      d.commit()
      expect(j.stateSize()).toBe(2000)
    }
    expect(j.advanceVisits - before).toBe(20)
    // the watermarks pass 500: every key is freed, each side visited once
    wl = wr = 600
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(0)
    expect(j.advanceVisits - before).toBe(2020)
    // rolled back: everything is held again and hinted again, so the same advance frees it all
    d.rollback(d.saveTables())
    wl = wr = 100
    expect(j.stateSize()).toBe(2000)
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(2000)
    wl = wr = 600
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(0)
    d.commit()
  })

  it('advance() after out-of-order inserts, retractions and rollbacks frees exactly the dead prefix', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ kind: 'full', leftWatermark: () => wl, rightWatermark: () => wr })
    const sink = integrate(d.circuit, j)
    // a key side first holds 50, then rows before it arrive (its first time goes down)
    d.tick(L(['k', 50, 'a']), [])
    d.commit()
    d.tick(L(['k', 20, 'b'], ['m', 30, 'c']), [])
    d.tick(R(['k', 19, 'r']), [])
    d.commit()
    wl = wr = 25
    d.circuit.advance()
    d.circuit.endStep()
    // left b (20 + 2 < 25) and right r (25 − 1 > 19) are freed; a and c stay
    expect(j.stateSize()).toBe(2)
    d.commit()
    // a transaction that inserts before the first time, advances, then rolls back
    const saved = d.saveTables()
    d.tick(L(['k', 26, 'x']), [])
    wl = wr = 60
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(0)
    d.rollback(saved)
    wl = wr = 25
    expect(j.stateSize()).toBe(2)
    // a retraction emptying a key side, then a new side for the same key, earlier
    d.tick([del(['m', 30, 'c']), undefined], [])
    d.tick(L(['m', 27, 'c2']), [])
    d.commit()
    wl = wr = 30
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(1) // c2 freed (27 < 30, 27 + 2 < 30): only a (50) is left
    d.commit()
    expect(norm(sink.contents())).toEqual(expected([['k', 20, 'b', 'k', 19, 'r'], 1], [['k', 50, 'a', ...N], 1], [['m', 27, 'c2', ...N], 1]))
  })

  it('stale free hints are dropped while the watermarks stand still; a rollback re-hints what it puts back', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ leftWatermark: () => wl, rightWatermark: () => wr })
    const kept: Row[] = []
    for (let k = 0; k < 10; k++) kept.push([`keep${k}`, 5, k])
    d.tick(L(...kept), [])
    d.commit()
    const saved = d.saveTables()
    // a transaction empties the kept keys, then churns through 3,000 short-lived keys
    d.tick([del(...kept), undefined], [])
    for (let k = 0; k < 3000; k += 100) {
      const rows: Row[] = []
      for (let i = k; i < k + 100; i++) rows.push([`tmp${i}`, 50, i])
      d.tick(L(...rows), [])
      d.tick([del(...rows), undefined], [])
    }
    expect(j.stateSize()).toBe(0)
    expect(j.hintsHeld).toBeLessThan(2 * 1024)
    d.rollback(saved)
    expect(j.stateSize()).toBe(10)
    // the kept rows are found by advance() again
    wl = wr = 100
    d.circuit.advance()
    d.circuit.endStep()
    expect(j.stateSize()).toBe(0)
    d.commit()
  })
})
