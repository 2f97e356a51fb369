// Watermark-driven operators and Circuit.advance(): EmitOnClose emits rows once final and
// frees them; Reduce with `expire` drops final groups; both undo exactly on rollback; a chain
// of advancing operators settles in one advance() pass.

import { describe, expect, it } from 'vitest'
import { ArrangeOperator, EmitOnCloseOperator, IntegrateOperator, ReduceOperator, countRows, type Operator } from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

/** A watermark the test moves by hand; rows with column value ≤ it are final. */
function mark(): { w: number; isFinal: (v: unknown) => boolean } {
  const m = { w: -Infinity, isFinal: (v: unknown) => v !== null && (v as number) <= m.w }
  return m
}

function advance(d: Driver, watch: Operator) {
  d.circuit.advance()
  const out = norm(watch.out)
  d.circuit.endStep()
  return out
}

describe('EmitOnClose', () => {
  it('holds rows until final, emits each once with its net weight, then frees it', () => {
    const d = new Driver()
    const m = mark()
    const e = d.circuit.add(new EmitOnCloseOperator(d.input, { column: 1, isFinal: m.isFinal }))
    expect(d.step(ins(['a', 10], ['b', 20], ['c', 10]), e)).toEqual([])
    expect(d.step(zs([['c', 10], -1], [['a', 10], 1]), e)).toEqual([])
    expect(e.stateSize()).toBe(2)
    expect(advance(d, e)).toEqual([]) // nothing final yet
    m.w = 10
    expect(advance(d, e)).toEqual(expected([['a', 10], 2]))
    expect(e.stateSize()).toBe(1)
    expect(advance(d, e)).toEqual([]) // emitted once only
    m.w = 25
    expect(advance(d, e)).toEqual(expected([['b', 20], 1]))
    expect(e.stateSize()).toBe(0)
    expect(e.describeState()).toBe('rows waiting for their window to close: 0 (0 distinct #1 values); freed when emitted')
  })

  it('rolls back an advance: the rows are pending again', () => {
    const d = new Driver()
    const m = mark()
    const e = d.circuit.add(new EmitOnCloseOperator(d.input, { column: 1, isFinal: m.isFinal }))
    d.step(ins(['a', 10], ['b', 30]), e)
    d.commit()
    m.w = 10
    expect(advance(d, e)).toEqual(expected([['a', 10], 1]))
    d.circuit.rollback()
    expect(e.stateSize()).toBe(2)
    expect(advance(d, e)).toEqual(expected([['a', 10], 1]))
  })
})

describe('Reduce with expire', () => {
  it('drops groups whose key is final; their rows stay emitted downstream', () => {
    const d = new Driver()
    const m = mark()
    const r = d.circuit.add(new ReduceOperator(d.input, [0], [{ aggregator: countRows, arg: () => null }], { expire: { keyIndex: 0, isFinal: m.isFinal } }))
    const view = d.circuit.add(new IntegrateOperator(r))
    d.step(ins([10], [10], [20]), r)
    d.commit()
    expect(r.stateSize()).toBe(2)
    m.w = 15
    expect(advance(d, r)).toEqual([])
    expect(r.stateSize()).toBe(1)
    d.commit()
    expect(norm(view.contents())).toEqual(expected([[10, 2], 1], [[20, 1], 1]))
    // rollback of an advance restores the dropped groups exactly
    m.w = 25
    advance(d, r)
    expect(r.stateSize()).toBe(0)
    d.circuit.rollback()
    expect(r.stateSize()).toBe(1)
    expect(d.step(ins([20]), r)).toEqual(expected([[20, 1], -1], [[20, 2], 1]))
  })
})

describe('expire indexes: advance() looks at final windows only', () => {
  /** A mark that counts its calls. */
  function counted(): { w: number; calls: number; isFinal: (v: unknown) => boolean } {
    const m = { w: -Infinity, calls: 0, isFinal: (v: unknown) => (m.calls++, v !== null && (v as number) <= m.w) }
    return m
  }

  it('Reduce asks isFinal once per distinct window (not per group); rollback re-indexes', () => {
    const d = new Driver()
    const m = counted()
    const r = d.circuit.add(new ReduceOperator(d.input, [0, 1], [{ aggregator: countRows, arg: () => null }], { expire: { keyIndex: 1, isFinal: m.isFinal } }))
    const rows: [string, number][] = []
    for (let k = 0; k < 500; k++) rows.push([`k${k}`, 10], [`k${k}`, 20], [`k${k}`, 30])
    d.step(ins(...rows), r)
    d.commit()
    expect(r.stateSize()).toBe(1500)
    m.w = 15
    m.calls = 0
    advance(d, r)
    expect(r.stateSize()).toBe(1000)
    expect(m.calls).toBe(2) // 10 (final), 20 (not)
    m.calls = 0
    advance(d, r)
    expect(m.calls).toBe(1)
    // rollback of the advance: the groups of 10 are back, and found again by the next advance
    d.circuit.rollback()
    expect(r.stateSize()).toBe(1500)
    m.w = 25
    advance(d, r)
    expect(r.stateSize()).toBe(500)
    d.commit()
    // a rolled-back step that emptied a window's groups: they come back with their index entry
    d.step(del(['k1', 30], ['k2', 30]), r)
    expect(r.stateSize()).toBe(498)
    d.circuit.rollback()
    m.w = 35
    advance(d, r)
    expect(r.stateSize()).toBe(0)
  })

  it('Reduce keeps a final group without an output row (net count < 0) until it has one', () => {
    const d = new Driver()
    const m = mark()
    const r = d.circuit.add(new ReduceOperator(d.input, [0], [{ aggregator: countRows, arg: () => null }], { expire: { keyIndex: 0, isFinal: m.isFinal } }))
    const view = d.circuit.add(new IntegrateOperator(r))
    expect(d.step(zs([[10], -1], [[20], 1]), r)).toEqual(expected([[20, 1], 1]))
    m.w = 30
    advance(d, r)
    expect(r.stateSize()).toBe(1) // 10 stays (count −1, no row); 20 is dropped
    expect(d.step(zs([[10], 2]), r)).toEqual(expected([[10, 1], 1]))
    advance(d, r)
    expect(r.stateSize()).toBe(0)
    d.commit()
    expect(norm(view.contents())).toEqual(expected([[10, 1], 1], [[20, 1], 1]))
  })

  it('Arrange forgets the final rows reading only the keys of final values; rollback restores them', () => {
    const d = new Driver()
    const m = counted()
    // keyed by [0]: rows of one key span several windows (column 1)
    const a = d.circuit.add(new ArrangeOperator(d.input, [0], { expire: { column: 1, isFinal: m.isFinal } }))
    const rows: [string, number][] = []
    for (let k = 0; k < 300; k++) rows.push([`k${k}`, 100])
    rows.push(['x', 10], ['x', 20], ['x', 30], ['y', 20])
    d.tick(ins(...rows), [])
    d.commit()
    m.w = 20
    m.calls = 0
    d.circuit.advance()
    d.circuit.endStep()
    expect(norm(a.snapshot())).toEqual(expected(...(rows.filter(([, w]) => w > 20).map((r) => [r, 1]) as [[string, number], number][])))
    // the values 10, 20 (final) and 30 (not), then the rows of x read under 10 and 20
    expect(m.calls).toBeLessThan(10)
    d.circuit.rollback()
    expect(a.size).toBe(304)
    m.w = 30
    d.circuit.advance()
    d.circuit.endStep()
    expect(a.size).toBe(300)
    d.commit()
  })
})

describe('Circuit.advance', () => {
  it('feeds what one advancing operator emits through the next in the same pass', () => {
    const d = new Driver()
    const m = mark()
    const first = d.circuit.add(new EmitOnCloseOperator(d.input, { column: 0, isFinal: m.isFinal }))
    const second = d.circuit.add(new EmitOnCloseOperator(first, { column: 0, isFinal: m.isFinal }))
    const view = d.circuit.add(new IntegrateOperator(second))
    d.step(ins([1], [5]), second)
    m.w = 3
    d.circuit.advance()
    d.circuit.endStep()
    d.commit()
    expect(norm(view.contents())).toEqual(expected([[1], 1]))
    expect(first.stateSize() + second.stateSize()).toBe(1)
  })
})
