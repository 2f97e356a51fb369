import { describe, expect, it } from 'vitest'
import { Circuit, input, integrate, type Row } from '../../../ivm/index.js'
import { asOfJoin, AsOfJoinOperator, type AsOfJoinOptions } from '../../../ivm/operators/asof-join.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

// left rows [key, time, payload]; right rows [key, time, value, live]; output = left ++ right
const N = [null, null, null, null] as const
const base: AsOfJoinOptions = {
  leftKey: [0],
  rightKey: [0],
  leftTime: 1,
  rightTime: 1,
  match: '>=',
  outer: false,
  rightWidth: 4,
  // ties: the greater value first
  tieBreak: (a, b) => (b[2] as number) - (a[2] as number),
}

function setup(options: Partial<AsOfJoinOptions> = {}): { d: Driver; j: AsOfJoinOperator } {
  const d = new Driver(2)
  const j = asOfJoin(d.circuit, d.inputs[0]!, d.inputs[1]!, { ...base, ...options })
  return { d, j }
}

/** Left rows at the given times (payload = time), key 'a'. */
function lefts(...times: number[]): Row[] {
  return times.map((t) => ['a', t, t])
}

const r10: Row = ['a', 10, 1, true]
const r20: Row = ['a', 20, 2, true]

describe('AsOfJoin', () => {
  it('each match kind picks the nearest right row in its direction', () => {
    const want: Record<AsOfJoinOptions['match'], (Row | null)[]> = {
      // left times 5, 10, 15, 20, 25
      '>=': [null, r10, r10, r20, r20],
      '>': [null, null, r10, r10, r20],
      '<=': [r10, r10, r20, r20, null],
      '<': [r10, r20, r20, null, null],
    }
    for (const match of ['>=', '>', '<=', '<'] as const) {
      const times = [5, 10, 15, 20, 25]
      const pairs = times.flatMap((t, i) => (want[match][i] ? [[[...lefts(t)[0]!, ...want[match][i]!], 1] as [Row, number]] : []))
      // right first, then left
      const a = setup({ match })
      a.d.step([undefined, ins(r10, r20)], a.j)
      expect(a.d.step([ins(...lefts(...times))], a.j)).toEqual(expected(...pairs))
      // left first, then right: the same integral
      const b = setup({ match })
      expect(b.d.step([ins(...lefts(...times))], b.j)).toEqual([])
      expect(b.d.step([undefined, ins(r10, r20)], b.j)).toEqual(expected(...pairs))
      // both in one step
      const c = setup({ match })
      expect(c.d.step([ins(...lefts(...times)), ins(r10, r20)], c.j)).toEqual(expected(...pairs))
      expect(c.j.stateSize()).toBe(7)
    }
  })

  it('ties at one time are resolved by tieBreak; deleting the first lets the next one match', () => {
    const { d, j } = setup()
    const lo: Row = ['a', 10, 1, true]
    const mid: Row = ['a', 10, 5, true]
    const hi: Row = ['a', 10, 9, true]
    expect(d.step([ins(...lefts(12)), ins(lo, hi)], j)).toEqual(expected([['a', 12, 12, ...hi], 1]))
    // a row that orders after the current first changes nothing
    expect(d.step([undefined, ins(mid)], j)).toEqual([])
    expect(d.step([undefined, del(hi)], j)).toEqual(expected([['a', 12, 12, ...hi], -1], [['a', 12, 12, ...mid], 1]))
    // the same for '<' (ties among the least later time)
    const later = setup({ match: '<' })
    expect(later.d.step([ins(...lefts(8)), ins(lo, mid, hi, r20)], later.j)).toEqual(expected([['a', 8, 8, ...hi], 1]))
    // rows tieBreak calls equal fall back to compareRows (a total order): false < true
    const t = setup({ tieBreak: () => 0 })
    expect(t.d.step([ins(...lefts(12)), ins(['a', 10, 1, true], ['a', 10, 1, false])], t.j)).toEqual(expected([['a', 12, 12, 'a', 10, 1, false], 1]))
  })

  it('a late right row revises exactly the left rows it now shadows', () => {
    const { d, j } = setup()
    d.step([ins(...lefts(15, 18, 30)), ins(r10, ['a', 25, 3, true])], j)
    expect(d.step([undefined, ins(['a', 16, 4, true])], j)).toEqual(
      expected([['a', 18, 18, ...r10], -1], [['a', 18, 18, 'a', 16, 4, true], 1]),
    )
    // deleting it un-shadows the older row again
    expect(d.step([undefined, del(['a', 16, 4, true])], j)).toEqual(
      expected([['a', 18, 18, 'a', 16, 4, true], -1], [['a', 18, 18, ...r10], 1]),
    )
    // deleting the oldest leaves its left rows unmatched (inner: retracted)
    expect(d.step([undefined, del(r10)], j)).toEqual(expected([['a', 15, 15, ...r10], -1], [['a', 18, 18, ...r10], -1]))
    expect(j.stateSize()).toBe(4)
  })

  it('several right changes of one key in one step (segments between changed times)', () => {
    const { d, j } = setup()
    d.step([ins(...lefts(1, 5, 11, 15, 21, 25)), ins(r10, r20)], j)
    // replace 10 by 12 and delete 20: 11 loses its match, 15 moves to 12, 21/25 fall back to 12
    expect(d.step([undefined, zs([r10, -1], [['a', 12, 7, true], 1], [r20, -1])], j)).toEqual(
      expected(
        [['a', 11, 11, ...r10], -1],
        [['a', 15, 15, ...r10], -1],
        [['a', 15, 15, 'a', 12, 7, true], 1],
        [['a', 21, 21, ...r20], -1],
        [['a', 21, 21, 'a', 12, 7, true], 1],
        [['a', 25, 25, ...r20], -1],
        [['a', 25, 25, 'a', 12, 7, true], 1],
      ),
    )
    // an insert and delete of the same row in one step cancel
    expect(d.step([undefined, zs([['a', 14, 0, true], 1], [['a', 14, 0, true], -1])], j)).toEqual([])
  })

  it('tombstones shadow older versions and match nothing (inner) / NULLs (outer)', () => {
    const tomb: Row = ['a', 20, 0, false]
    for (const outer of [false, true]) {
      const { d, j } = setup({ live: 3, outer })
      const out = d.step([ins(...lefts(15, 25)), ins(r10, tomb)], j)
      expect(out).toEqual(outer ? expected([['a', 15, 15, ...r10], 1], [['a', 25, 25, ...N], 1]) : expected([['a', 15, 15, ...r10], 1]))
      // deleting the tombstone: 25 falls back to r10
      expect(d.step([undefined, del(tomb)], j)).toEqual(
        outer ? expected([['a', 25, 25, ...N], -1], [['a', 25, 25, ...r10], 1]) : expected([['a', 25, 25, ...r10], 1]),
      )
      // a tombstone between: both left rows after it lose r10
      expect(d.step([undefined, ins(['a', 12, 0, false])], j)).toEqual(
        outer
          ? expected([['a', 15, 15, ...r10], -1], [['a', 25, 25, ...r10], -1], [['a', 15, 15, ...N], 1], [['a', 25, 25, ...N], 1])
          : expected([['a', 15, 15, ...r10], -1], [['a', 25, 25, ...r10], -1]),
      )
      // replacing one tombstone by another changes nothing visible
      expect(d.step([undefined, zs([['a', 12, 0, false], -1], [['a', 13, 0, false], 1])], j)).toEqual([])
      // without `live`, the same rows are plain matches
      const plain = setup({ outer })
      expect(plain.d.step([ins(...lefts(25)), ins(r10, tomb)], plain.j)).toEqual(expected([['a', 25, 25, ...tomb], 1]))
    }
  })

  it('outer: NULL-extended until a match arrives, and again when it leaves', () => {
    const { d, j } = setup({ outer: true })
    expect(d.step([ins(...lefts(5))], j)).toEqual(expected([['a', 5, 5, ...N], 1]))
    expect(d.step([undefined, ins(['a', 3, 1, true])], j)).toEqual(expected([['a', 5, 5, ...N], -1], [['a', 5, 5, 'a', 3, 1, true], 1]))
    // a right row after the left time does not match '>='
    expect(d.step([undefined, ins(['a', 6, 1, true])], j)).toEqual([])
    expect(d.step([undefined, del(['a', 3, 1, true])], j)).toEqual(expected([['a', 5, 5, 'a', 3, 1, true], -1], [['a', 5, 5, ...N], 1]))
    // deleting the left row retracts its NULL-extended row; duplicates carry their weight
    expect(d.step([zs([['a', 5, 5], 2])], j)).toEqual(expected([['a', 5, 5, ...N], 2]))
    expect(d.step([zs([['a', 5, 5], -3])], j)).toEqual(expected([['a', 5, 5, ...N], -3]))
    expect(j.stateSize()).toBe(1)
  })

  it('NULL keys and times: left rows are dropped (inner) or NULL-extended (outer); right rows never match', () => {
    for (const outer of [false, true]) {
      const { d, j } = setup({ outer })
      const out = d.step(
        [ins([null, 15, 1], ['a', null, 2], [undefined, 16, 3], ['a', 15, 4]), ins([null, 10, 0, true], ['a', null, 0, true], ['b', 10, 0, true])],
        j,
      )
      expect(out).toEqual(
        outer
          ? expected([[null, 15, 1, ...N], 1], [['a', null, 2, ...N], 1], [[undefined, 16, 3, ...N], 1], [['a', 15, 4, ...N], 1])
          : [],
      )
      // only rows with a key and a time are held
      expect(j.stateSize()).toBe(2)
      expect(d.step([del([null, 15, 1]), del([null, 10, 0, true], ['a', null, 0, true])], j)).toEqual(outer ? expected([[null, 15, 1, ...N], -1]) : [])
      expect(j.stateSize()).toBe(2)
    }
  })

  it('infinite times are ordinary times', () => {
    const ge = setup()
    ge.d.step([ins(['a', Infinity, 0])], ge.j)
    expect(ge.d.step([undefined, ins(r10)], ge.j)).toEqual(expected([['a', Infinity, 0, ...r10], 1]))
    expect(ge.d.step([undefined, ins(['a', Infinity, 1, true])], ge.j)).toEqual(
      expected([['a', Infinity, 0, ...r10], -1], [['a', Infinity, 0, 'a', Infinity, 1, true], 1]),
    )
    const le = setup({ match: '<=' })
    le.d.step([ins(['a', -Infinity, 0])], le.j)
    expect(le.d.step([undefined, ins(r10)], le.j)).toEqual(expected([['a', -Infinity, 0, ...r10], 1]))
  })

  it('an empty key list joins every left row with the nearest right row overall', () => {
    const { d, j } = setup({ leftKey: [], rightKey: [] })
    expect(d.step([ins(['x', 15, 0], ['y', 25, 0]), ins(r10, ['b', 20, 0, true])], j)).toEqual(
      expected([['x', 15, 0, ...r10], 1], [['y', 25, 0, 'b', 20, 0, true], 1]),
    )
  })

  it('a right row whose integral weight is ≤ 0 is no candidate (and no segment boundary)', () => {
    const { d, j } = setup()
    d.step([ins(...lefts(7)), zs([['a', 2, 1, true], 1], [['a', 5, 1, true], -1])], j)
    expect(d.step([ins(...lefts(6))], j)).toEqual(expected([['a', 6, 6, 'a', 2, 1, true], 1]))
    // a new row at 4: its segment runs past the weight −1 row at 5 (6 and 7 both change)
    expect(d.step([undefined, ins(['a', 4, 1, true])], j)).toEqual(
      expected([['a', 6, 6, 'a', 2, 1, true], -1], [['a', 7, 7, 'a', 2, 1, true], -1], [['a', 6, 6, 'a', 4, 1, true], 1], [['a', 7, 7, 'a', 4, 1, true], 1]),
    )
    // bringing the row at 5 to weight 1 makes it a candidate
    expect(d.step([undefined, zs([['a', 5, 1, true], 2])], j)).toEqual(
      expected([['a', 6, 6, 'a', 4, 1, true], -1], [['a', 7, 7, 'a', 4, 1, true], -1], [['a', 6, 6, 'a', 5, 1, true], 1], [['a', 7, 7, 'a', 5, 1, true], 1]),
    )
  })

  it('a right change only touches its segment of a long left side', () => {
    const { d, j } = setup()
    const sink = integrate(d.circuit, j)
    const times: number[] = []
    for (let i = 0; i < 1000; i++) times.push(i * 2)
    d.tick([ins(...lefts(...times)), ins(['a', 0, 0, true], ['a', 1000, 0, true])], [])
    expect(norm(sink.contents()).length).toBe(1000)
    // a version at 501 takes over left rows 502 … 998 (249 rows), nothing else
    const out = d.step([undefined, ins(['a', 501, 1, true])], j)
    expect(out.length).toBe(2 * 249)
    // out-of-order left inserts in between are placed and matched
    expect(d.step([ins(['a', 503, 'odd'])], j)).toEqual(expected([['a', 503, 'odd', 'a', 501, 1, true], 1]))
    expect(j.stateSize()).toBe(1004)
  })

  it('rejects non-numeric times before touching state, and mismatched key arity', () => {
    const c = new Circuit()
    const i = input(c, () => null as never)
    expect(() => asOfJoin(c, i, i, { ...base, leftKey: [0, 2] })).toThrow(/arity/)
    const { d, j } = setup()
    d.step([ins(...lefts(1)), ins(r10)], j)
    d.commit()
    const saved = d.saveTables()
    expect(() => d.step([ins(...lefts(2), ['a', 'noon', 0]), ins(r20)], j)).toThrow(/left time column #1/)
    expect(j.stateSize()).toBe(2)
    d.rollback(saved)
    expect(() => d.step([ins(...lefts(30)), ins(r20, ['a', NaN, 0, true])], j)).toThrow(/right time column #1/)
    expect(j.stateSize()).toBe(2)
    d.rollback(saved)
    expect(d.step([ins(...lefts(30))], j)).toEqual(expected([['a', 30, 30, ...r10], 1]))
  })

  it('rollback restores the state; the continued run equals one without the rolled-back steps', () => {
    const run = (withRolledBack: boolean): { out: [Row, number][]; size: number } => {
      const { d, j } = setup({ outer: true, live: 3 })
      const sink = integrate(d.circuit, j)
      d.tick([ins(...lefts(15, 25)), ins(r10, r20)], [])
      d.commit()
      if (withRolledBack) {
        const saved = d.saveTables()
        d.tick([ins(...lefts(12)), ins(['a', 11, 0, false])], [])
        d.tick([del(...lefts(25)), del(r10)], [])
        d.rollback(saved)
        expect(j.stateSize()).toBe(4)
      }
      const out = d.step([ins(...lefts(22)), ins(['a', 21, 5, true])], j)
      d.commit()
      expect(norm(sink.contents())).toEqual(
        expected([['a', 15, 15, ...r10], 1], [['a', 25, 25, 'a', 21, 5, true], 1], [['a', 22, 22, 'a', 21, 5, true], 1]),
      )
      return { out, size: j.stateSize() }
    }
    expect(run(true)).toEqual(run(false))
  })

  it('advance() frees left and right rows below the watermarks, emits nothing; rollback restores', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ live: 3, leftWatermark: () => wl, rightWatermark: () => wr })
    const sink = integrate(d.circuit, j)
    // key a: versions 10, 20, 30; key b: version 5, tombstone 8
    d.tick([ins(...lefts(12, 22, 32), ['b', 9, 0]), ins(r10, r20, ['a', 30, 3, true], ['b', 5, 0, true], ['b', 8, 0, false])], [])
    d.commit()
    expect(j.stateSize()).toBe(9)
    expect(j.describeState()).toBe('left rows by key (#0) and time #1, right rows by key (#0) and time #1; 9 rows; freed below the watermarks')
    wl = 21
    wr = 25
    expect(d.circuit.advance()).toBe(false)
    d.circuit.endStep()
    // left: 12 and 9 (< min(wl, wr) = 21) go; right a: 10 goes (its successor 20 ≤ wl, < wr),
    // 20 stays (future left rows ≥ 21 may match it); b: 5 goes, the tombstone at 8 goes too
    expect(j.stateSize()).toBe(4)
    // rollback of the advance restores everything
    d.circuit.rollback()
    expect(j.stateSize()).toBe(9)
    d.circuit.advance()
    d.commit()
    expect(j.stateSize()).toBe(4)
    // later changes (≥ the watermarks) still behave: a left row at 21 matches 20; a version at
    // 26 shadows no left row (32 matches 30); one at 31 revises the left row at 32
    expect(d.step([ins(...lefts(21))], j)).toEqual(expected([['a', 21, 21, ...r20], 1]))
    expect(d.step([undefined, ins(['a', 26, 6, true])], j)).toEqual([])
    expect(d.step([undefined, ins(['a', 31, 7, true])], j)).toEqual(expected([['a', 32, 32, 'a', 30, 3, true], -1], [['a', 32, 32, 'a', 31, 7, true], 1]))
    d.commit()
    // the key b is gone entirely: a new left row for it finds nothing
    expect(d.step([ins(['b', 30, 1])], j)).toEqual([])
    expect(norm(sink.contents())).toEqual(
      expected(
        [['a', 12, 12, ...r10], 1],
        [['a', 22, 22, ...r20], 1],
        [['a', 32, 32, 'a', 31, 7, true], 1],
        [['a', 21, 21, ...r20], 1],
      ),
    )
    // everything final: per key only the latest live version is left
    wl = wr = 100
    d.circuit.advance()
    d.commit()
    expect(j.stateSize()).toBe(1)
  })

  it("'>' vs '>=': a left row at exactly the right watermark is final only for '>'", () => {
    for (const match of ['>', '>='] as const) {
      const { d, j } = setup({ match, leftWatermark: () => 25, rightWatermark: () => 20 })
      d.tick([ins(...lefts(20)), ins(r10)], [])
      d.circuit.advance()
      d.commit()
      // '>': a later right change (time ≥ 20) only affects left rows after it; '>=': one at 20 matches it
      expect(j.stateSize()).toBe(match === '>' ? 1 : 2)
    }
  })

  it("'>' keeps the version a future left row at the left watermark needs", () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ match: '>', leftWatermark: () => wl, rightWatermark: () => wr })
    d.tick([ins(...lefts(20)), ins(r10, r20)], [])
    d.commit()
    wl = 20
    wr = 21
    d.circuit.advance()
    d.commit()
    // the left row at 20 = wl stays (a later left change may delete it); r10 is what a left row
    // at 20 matches, so it stays although its successor 20 < wr
    expect(j.stateSize()).toBe(3)
    expect(d.step([ins(['a', 20, 'late'])], j)).toEqual(expected([['a', 20, 'late', ...r10], 1]))
    wl = 21
    d.circuit.advance()
    d.commit()
    // left rows at 20 (< wl, ≤ wr) and r10 (successor 20 < wl, < wr) go; r20 stays
    expect(j.stateSize()).toBe(1)
  })

  it('advance() visits only the keys with something due: idle keys holding rows cost nothing', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ live: 3, leftWatermark: () => wl, rightWatermark: () => wr })
    // 1,000 idle keys, each with a version at 0 and a left row at 500 (kept until both
    // watermarks pass 500): the old advance() looked at all of them every time
    const idleL: Row[] = []
    const idleR: Row[] = []
    for (let k = 0; k < 1000; k++) {
      idleL.push([`k${k}`, 500, k])
      idleR.push([`k${k}`, 0, k, true])
    }
    d.tick([ins(...idleL), ins(...idleR)], [])
    d.circuit.advance()
    d.commit()
    expect(j.stateSize()).toBe(2000)
    const before = j.advanceVisits
    // key a: every round a new version at t and a left row at t + 1; then both watermarks pass
    // t + 1, so the left row and the previous version are due — a is the only key visited,
    // once per advance (its left and right rows together)
    for (let t = 10; t <= 100; t += 10) {
      d.tick([ins(['a', t + 1, t]), ins(['a', t, t, true])], [])
      wl = wr = t + 5
      d.circuit.advance()
      d.commit()
      expect(j.stateSize()).toBe(2001)
    }
    expect(j.advanceVisits - before).toBe(10)
    // an advance with nothing due visits nothing
    d.circuit.advance()
    d.commit()
    expect(j.advanceVisits - before).toBe(10)
    // past 500 the idle keys' left rows are due: each key once; their lone versions stay
    wl = wr = 1000
    d.circuit.advance()
    d.commit()
    expect(j.advanceVisits - before).toBe(1010)
    expect(j.stateSize()).toBe(1001)
  })

  it('a free that comes due again after a rollback of its advance is not lost', () => {
    let wl = 0
    let wr = 0
    const { d, j } = setup({ live: 3, leftWatermark: () => wl, rightWatermark: () => wr })
    d.tick([ins(...lefts(12, 32)), ins(r10, r20, ['a', 30, 3, true])], [])
    d.commit()
    wl = wr = 25
    d.circuit.advance()
    d.circuit.endStep()
    // 12 and r10 freed; rolled back, then the watermarks move back (the tick never happened)
    expect(j.stateSize()).toBe(3)
    d.circuit.rollback()
    expect(j.stateSize()).toBe(5)
    wl = wr = 15
    d.circuit.advance()
    d.commit()
    // 12 (< 15) goes; r10 stays (its successor 20 is not ≤ 15)
    expect(j.stateSize()).toBe(4)
    wl = wr = 40
    d.circuit.advance()
    d.commit()
    expect(j.stateSize()).toBe(1)
  })

  it('a tieBreak that throws inside advance() loses no hint: after rollback the next advance frees as usual', () => {
    let wl = 0
    let wr = 0
    let boom = false
    const tieBreak = (a: Row, b: Row): number => {
      if (boom) throw new Error('boom')
      return (b[2] as number) - (a[2] as number)
    }
    const { d, j } = setup({ live: 3, tieBreak, leftWatermark: () => wl, rightWatermark: () => wr })
    // key a: r10 and two tied versions at 20 (whether the match at 20 is a tombstone asks
    // tieBreak); key b: a left row at 5, freed first
    d.tick([ins(['b', 5, 0]), ins(r10, ['a', 20, 1, true], ['a', 20, 2, true])], [])
    d.commit()
    expect(j.stateSize()).toBe(4)
    wl = wr = 30
    boom = true
    expect(() => d.circuit.advance()).toThrow(/boom/)
    d.circuit.rollback()
    expect(j.stateSize()).toBe(4)
    boom = false
    d.circuit.advance()
    d.commit()
    // b's left row (5 < 30) and r10 (its successor 20 < 30) go; the tied versions stay
    expect(j.stateSize()).toBe(2)
    expect(d.step([ins(['a', 40, 'x'])], j)).toEqual(expected([['a', 40, 'x', 'a', 20, 2, true], 1]))
  })

  it("'<=' / '<' keep everything (state unbounded); advance without watermarks is a no-op", () => {
    const { d, j } = setup({ match: '<=', leftWatermark: () => 100, rightWatermark: () => 100 })
    d.step([ins(...lefts(5)), ins(r10, r20)], j)
    j.advance()
    expect(j.stateSize()).toBe(3)
    expect(j.describeState()).toBe('left rows by key (#0) and time #1, right rows by key (#0) and time #1; 3 rows; unbounded')
    const n = setup({ leftKey: [], rightKey: [] })
    n.d.step([ins(...lefts(5)), ins(r10)], n.j)
    n.j.advance()
    expect(n.j.stateSize()).toBe(2)
    expect(n.j.describeState()).toBe('left rows by time #1, right rows by time #1; 2 rows; unbounded')
    expect(n.j).toBeInstanceOf(AsOfJoinOperator)
    expect(n.j.name).toBe('AsOfJoin')
  })
})
