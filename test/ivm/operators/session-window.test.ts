import { describe, expect, it } from 'vitest'
import { Circuit, input, integrate, sessionWindow, SessionWindowOperator, type Row } from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

// rows are [partition, time, payload]; output rows append [window_start, window_end]
const opts = { partitionBy: [0], timeColumn: 1, gap: 10 } as const

function setup(gap = 10, watermark?: () => number): { d: Driver; s: SessionWindowOperator } {
  const d = new Driver()
  const s = sessionWindow(d.circuit, d.input, { ...opts, gap, watermark })
  return { d, s }
}

describe('SessionWindow', () => {
  it('a single event is a session [t, t + gap)', () => {
    const { d, s } = setup()
    expect(d.step(ins(['a', 5, 'x']), s)).toEqual(expected([['a', 5, 'x', 5, 15], 1]))
    expect(s.stateSize()).toBe(1)
  })

  it('two events within the gap merge (in one batch and incrementally)', () => {
    const one = setup()
    expect(one.d.step(ins(['a', 5, 'x'], ['a', 14, 'y']), one.s)).toEqual(expected([['a', 5, 'x', 5, 24], 1], [['a', 14, 'y', 5, 24], 1]))
    const inc = setup()
    inc.d.step(ins(['a', 5, 'x']), inc.s)
    expect(inc.d.step(ins(['a', 14, 'y']), inc.s)).toEqual(
      expected([['a', 5, 'x', 5, 15], -1], [['a', 5, 'x', 5, 24], 1], [['a', 14, 'y', 5, 24], 1]),
    )
  })

  it('covers that only touch (t2 = t1 + gap) do not merge; one µs less does', () => {
    const { d, s } = setup()
    d.step(ins(['a', 5, 'x']), s)
    expect(d.step(ins(['a', 15, 'y']), s)).toEqual(expected([['a', 15, 'y', 15, 25], 1]))
    // and to the left: 15 − gap = 5 … an event at −5 touches 5 without merging
    expect(d.step(ins(['a', -5, 'z']), s)).toEqual(expected([['a', -5, 'z', -5, 5], 1]))
    const near = setup()
    near.d.step(ins(['a', 5, 'x']), near.s)
    expect(near.d.step(ins(['a', 14, 'y']), near.s)).toEqual(
      expected([['a', 5, 'x', 5, 15], -1], [['a', 5, 'x', 5, 24], 1], [['a', 14, 'y', 5, 24], 1]),
    )
  })

  it('a row added inside a session whose bounds stay emits only itself', () => {
    const { d, s } = setup()
    d.step(ins(['a', 5, 'x'], ['a', 14, 'y']), s)
    expect(d.step(ins(['a', 10, 'z']), s)).toEqual(expected([['a', 10, 'z', 5, 24], 1]))
    expect(d.step(ins(['a', 5, 'w']), s)).toEqual(expected([['a', 5, 'w', 5, 24], 1]))
    expect(d.step(del(['a', 10, 'z']), s)).toEqual(expected([['a', 10, 'z', 5, 24], -1]))
  })

  it('a bridging event merges two sessions; deleting it splits them again', () => {
    const { d, s } = setup()
    expect(d.step(ins(['a', 0, 'x'], ['a', 16, 'y']), s)).toEqual(expected([['a', 0, 'x', 0, 10], 1], [['a', 16, 'y', 16, 26], 1]))
    expect(d.step(ins(['a', 8, 'b']), s)).toEqual(
      expected(
        [['a', 0, 'x', 0, 10], -1],
        [['a', 16, 'y', 16, 26], -1],
        [['a', 0, 'x', 0, 26], 1],
        [['a', 8, 'b', 0, 26], 1],
        [['a', 16, 'y', 0, 26], 1],
      ),
    )
    expect(d.step(del(['a', 8, 'b']), s)).toEqual(
      expected(
        [['a', 0, 'x', 0, 26], -1],
        [['a', 8, 'b', 0, 26], -1],
        [['a', 16, 'y', 0, 26], -1],
        [['a', 0, 'x', 0, 10], 1],
        [['a', 16, 'y', 16, 26], 1],
      ),
    )
    expect(s.stateSize()).toBe(2)
  })

  it('a session far from the change emits nothing', () => {
    const { d, s } = setup()
    d.step(ins(['a', 0, 'x'], ['a', 100, 'y'], ['a', 200, 'z']), s)
    expect(d.step(ins(['a', 105, 'q']), s)).toEqual(
      expected([['a', 100, 'y', 100, 110], -1], [['a', 100, 'y', 100, 115], 1], [['a', 105, 'q', 100, 115], 1]),
    )
  })

  it('partitions are independent', () => {
    const { d, s } = setup()
    expect(d.step(ins(['a', 0, 'x'], ['b', 5, 'y']), s)).toEqual(expected([['a', 0, 'x', 0, 10], 1], [['b', 5, 'y', 5, 15], 1]))
    expect(d.step(ins(['b', 3, 'z']), s)).toEqual(expected([['b', 5, 'y', 5, 15], -1], [['b', 3, 'z', 3, 15], 1], [['b', 5, 'y', 3, 15], 1]))
    // several partition columns, compared like other operators' keys (0 and −0 are equal)
    const d2 = new Driver()
    const s2 = sessionWindow(d2.circuit, d2.input, { partitionBy: [0, 2], timeColumn: 1, gap: 10 })
    expect(d2.step(ins(['a', 0, 1], ['a', 5, 2], [0, 0, 1], [-0, 5, 1]), s2)).toEqual(
      expected([['a', 0, 1, 0, 10], 1], [['a', 5, 2, 5, 15], 1], [[0, 0, 1, 0, 15], 1], [[-0, 5, 1, 0, 15], 1]),
    )
  })

  it('duplicate rows carry their weight; deleting one copy', () => {
    const { d, s } = setup()
    expect(d.step(zs([['a', 5, 'x'], 2]), s)).toEqual(expected([['a', 5, 'x', 5, 15], 2]))
    expect(d.step(ins(['a', 12, 'y']), s)).toEqual(
      expected([['a', 5, 'x', 5, 15], -2], [['a', 5, 'x', 5, 22], 2], [['a', 12, 'y', 5, 22], 1]),
    )
    expect(d.step(del(['a', 5, 'x']), s)).toEqual(expected([['a', 5, 'x', 5, 22], -1]))
    expect(s.stateSize()).toBe(2)
    expect(d.step(del(['a', 5, 'x']), s)).toEqual(
      expected([['a', 5, 'x', 5, 22], -1], [['a', 12, 'y', 5, 22], -1], [['a', 12, 'y', 12, 22], 1]),
    )
    expect(s.stateSize()).toBe(1)
  })

  it('an unconsolidated batch that cancels emits nothing', () => {
    const { d, s } = setup()
    d.step(ins(['a', 0, 'x']), s)
    expect(d.step(zs([['a', 5, 'y'], -1], [['a', 5, 'y'], 1], [['a', 50, 'z'], 1], [['a', 50, 'z'], -1]), s)).toEqual([])
    expect(s.stateSize()).toBe(1)
  })

  it('rows with a NULL time are dropped', () => {
    const { d, s } = setup()
    expect(d.step(ins(['a', null, 'x'], ['a', undefined, 'y']), s)).toEqual([])
    expect(s.stateSize()).toBe(0)
    expect(d.step(ins(['a', 3, 'x'], ['a', null, 'z']), s)).toEqual(expected([['a', 3, 'x', 3, 13], 1]))
    expect(d.step(del(['a', null, 'x']), s)).toEqual([])
    expect(s.stateSize()).toBe(1)
  })

  it('rejects a gap ≤ 0 and non-numeric times (before touching state)', () => {
    const c = new Circuit()
    const i = input(c, () => null as never)
    expect(() => sessionWindow(c, i, { ...opts, gap: 0 })).toThrow(/gap/)
    expect(() => sessionWindow(c, i, { ...opts, gap: -1 })).toThrow(/gap/)
    expect(() => sessionWindow(c, i, { ...opts, gap: NaN })).toThrow(/gap/)
    const { d, s } = setup()
    d.step(ins(['a', 1, 'x']), s)
    d.commit()
    expect(() => d.step(ins(['a', 2, 'y'], ['a', 'later', 'z']), s)).toThrow(/time column #1/)
    expect(s.stateSize()).toBe(1)
  })

  it('rollback after a step restores the state exactly', () => {
    const { d, s } = setup()
    const sink = integrate(d.circuit, s)
    d.tick(ins(['a', 0, 'x'], ['a', 16, 'y'], ['b', 0, 'q']), [])
    d.commit()
    const saved = d.saveTables()
    // merge, delete, new partition: all rolled back
    d.tick(ins(['a', 8, 'b'], ['c', 1, 'n']), [])
    d.tick(del(['b', 0, 'q']), [])
    d.rollback(saved)
    expect(s.stateSize()).toBe(3)
    expect(norm(sink.contents())).toEqual(expected([['a', 0, 'x', 0, 10], 1], [['a', 16, 'y', 16, 26], 1], [['b', 0, 'q', 0, 10], 1]))
    // the next step behaves as if the rolled-back steps never happened
    expect(d.step(ins(['a', 20, 'z'], ['b', 9, 'r']), s)).toEqual(
      expected(
        [['a', 16, 'y', 16, 26], -1],
        [['a', 16, 'y', 16, 30], 1],
        [['a', 20, 'z', 16, 30], 1],
        [['b', 0, 'q', 0, 10], -1],
        [['b', 0, 'q', 0, 19], 1],
        [['b', 9, 'r', 0, 19], 1],
      ),
    )
  })

  it('advance() forgets closed sessions without output; rollback restores them', () => {
    let wm = 0
    const { d, s } = setup(10, () => wm)
    d.tick(ins(['a', 0, 'x'], ['a', 5, 'y'], ['a', 30, 'z'], ['b', 2, 'q']), [])
    d.commit()
    expect(s.stateSize()).toBe(4)
    wm = 15 // 'a' [0, 15) closes (window_end ≤ watermark); 'b' [2, 12) closes; 'a' [30, 40) stays
    s.advance()
    expect(s.stateSize()).toBe(1)
    expect(s.out.isEmpty()).toBe(true)
    // rollback of the advance restores the sessions exactly
    s.rollback()
    expect(s.stateSize()).toBe(4)
    // so a (late, for this test) event still merges with them
    expect(d.step(ins(['a', 14, 'w']), s)).toEqual(
      expected(
        [['a', 0, 'x', 0, 15], -1],
        [['a', 5, 'y', 0, 15], -1],
        [['a', 0, 'x', 0, 24], 1],
        [['a', 5, 'y', 0, 24], 1],
        [['a', 14, 'w', 0, 24], 1],
      ),
    )
    d.commit()
    // a session ending exactly at the watermark is closed; one ending after it is not
    wm = 24
    s.advance()
    expect(s.stateSize()).toBe(1)
    s.commit()
    s.rollback() // nothing left to undo after commit
    expect(s.stateSize()).toBe(1)
    expect(s.describeState()).toBe('sessions per partition by (#0) on col #1, gap 10 µs; 1 rows; freed once watermark ≥ window_end')
    // later events extend the open session as usual
    expect(d.step(ins(['a', 35, 'v']), s)).toEqual(expected([['a', 30, 'z', 30, 40], -1], [['a', 30, 'z', 30, 45], 1], [['a', 35, 'v', 30, 45], 1]))
    // advance within a tick is rolled back by the circuit with the step
    d.commit()
    const saved = d.saveTables()
    d.tick(ins(['b', 50, 'p']), [])
    wm = 50
    s.advance()
    expect(s.stateSize()).toBe(1)
    d.rollback(saved)
    wm = 24
    expect(s.stateSize()).toBe(2)
  })

  it('advance() without a watermark is a no-op', () => {
    const { d, s } = setup()
    d.step(ins(['a', 0, 'x']), s)
    s.advance()
    expect(s.stateSize()).toBe(1)
  })

  it('describeState', () => {
    const { d, s } = setup(10)
    d.step(ins(['a', 0, 'x'], ['a', 0, 'y'], ['b', 1, 'x']), s)
    expect(s.describeState()).toBe('sessions per partition by (#0) on col #1, gap 10 µs; 3 rows')
    const d2 = new Driver()
    const s2 = sessionWindow(d2.circuit, d2.input, { partitionBy: [], timeColumn: 2, gap: 5 })
    expect(s2.describeState()).toBe('sessions on col #2, gap 5 µs; 0 rows')
    const s3 = sessionWindow(d2.circuit, d2.input, { partitionBy: [0, 2], timeColumn: 1, gap: 5, watermark: () => 0 })
    expect(s3.describeState()).toBe('sessions per partition by (#0, #2) on col #1, gap 5 µs; 0 rows; freed once watermark ≥ window_end')
  })

  it('many appends to one partition stay sorted (out-of-order inserts in between)', () => {
    const { d, s } = setup(3)
    const sink = integrate(d.circuit, s)
    const rows: Row[] = []
    for (let i = 0; i < 200; i++) rows.push(['a', i * 5, i])
    d.tick(ins(...rows), [])
    d.tick(ins(['a', 2, 'mid']), []) // 0 and 2 merge (2 < 3); 5 touches 2 + 3 → separate
    expect(norm(sink.contents()).slice(0, 3)).toEqual(expected([['a', 0, 0, 0, 5], 1], [['a', 2, 'mid', 0, 5], 1], [['a', 5, 1, 5, 8], 1]))
    expect(norm(sink.contents()).length).toBe(201)
  })
})
