import { describe, expect, it } from 'vitest'
import { concat, constant, filter, flatMap, integrate, map, mapFilter, negate, output, ZSet, type Row } from '../../../ivm/index.js'
import { del, Driver, expected, ins, norm, zs } from '../helpers.js'

describe('Input', () => {
  it('passes pushed deltas through and concatenates several pushes', () => {
    const d = new Driver()
    const a = zs([[1], 1])
    d.input.push(a)
    d.input.push(zs([[2], 2]))
    expect(a.length).toBe(1) // the caller's delta is not mutated
    expect(norm(d.input.out)).toEqual(expected([[1], 1], [[2], 2]))
    d.circuit.step()
    d.circuit.endStep()
    expect(d.input.out.length).toBe(0)
    d.input.push(zs([[3], 1]))
    expect(norm(d.input.out)).toEqual(expected([[3], 1]))
  })
  it('snapshot delegates to the callback', () => {
    const d = new Driver()
    d.tick(ins([1], [2]), [])
    expect(norm(d.input.snapshot())).toEqual(expected([[1], 1], [[2], 1]))
  })
})

describe('Map', () => {
  it('maps rows and keeps weights', () => {
    const d = new Driver()
    const m = map(d.circuit, d.input, (r) => [r[0], (r[1] as number) * 10])
    expect(d.step(zs([[1, 2], 1], [[2, 3], -1]), m)).toEqual(expected([[1, 20], 1], [[2, 30], -1]))
  })
})

describe('Filter', () => {
  it('keeps matching rows, retractions included', () => {
    const d = new Driver()
    const f = filter(d.circuit, d.input, (r) => (r[0] as number) > 1)
    expect(d.step(ins([1], [2], [3]), f)).toEqual(expected([[2], 1], [[3], 1]))
    expect(d.step(del([1], [3]), f)).toEqual(expected([[3], -1]))
  })
})

describe('FlatMap', () => {
  it('emits each output with the input weight', () => {
    const d = new Driver()
    const fm = flatMap(d.circuit, d.input, (r, emit) => {
      for (let i = 0; i < (r[0] as number); i++) emit([r[0], i])
    })
    expect(d.step(zs([[2], 3], [[0], 1]), fm)).toEqual(expected([[2, 0], 3], [[2, 1], 3]))
    expect(d.step(del([2]), fm)).toEqual(expected([[2, 0], -1], [[2, 1], -1]))
  })
})

describe('Mfp', () => {
  it('filters then maps in one pass', () => {
    const d = new Driver()
    const op = mapFilter(d.circuit, d.input, (r) => r[0] !== null, (r) => [r[1]])
    expect(op.name).toBe('Mfp')
    expect(d.step(ins([1, 'a'], [null, 'b']), op)).toEqual(expected([['a'], 1]))
  })
  it('works with only one part', () => {
    const d = new Driver()
    const p = mapFilter(d.circuit, d.input, (r) => r[0] === 1, undefined)
    const m = mapFilter(d.circuit, d.input, undefined, (r) => [r[0], r[0]])
    const id = mapFilter(d.circuit, d.input, undefined, undefined)
    const [a, b, c] = d.tick(ins([1], [2]), [p, m, id])
    expect(norm(a!)).toEqual(expected([[1], 1]))
    expect(norm(b!)).toEqual(expected([[1, 1], 1], [[2, 2], 1]))
    expect(norm(c!)).toEqual(expected([[1], 1], [[2], 1]))
  })
})

describe('Negate and Union', () => {
  it('negates weights', () => {
    const d = new Driver()
    const n = negate(d.circuit, d.input)
    expect(d.step(zs([[1], 2], [[2], -1]), n)).toEqual(expected([[1], -2], [[2], 1]))
  })
  it('union-all concatenates n inputs; a single changed input passes through', () => {
    const d = new Driver(3)
    const u = concat(d.circuit, d.inputs)
    expect(u.name).toBe('Union')
    expect(d.step([ins([1]), ins([1], [2]), undefined], u)).toEqual(expected([[1], 2], [[2], 1]))
    expect(d.step([undefined, undefined, del([5])], u)).toEqual(expected([[5], -1]))
    // A − A cancels after consolidation
    const e = new Driver()
    const u2 = concat(e.circuit, [e.input, negate(e.circuit, e.input)])
    expect(e.step(ins([1]), u2)).toEqual([])
  })
})

describe('Constant', () => {
  it('emits its rows only at backfill; snapshot returns them', () => {
    const d = new Driver()
    const rows = ins(['a'], ['b'])
    const c = constant(d.circuit, rows)
    const sink = integrate(d.circuit, c)
    d.circuit.backfill([c, sink])
    expect(norm(sink.contents())).toEqual(expected([['a'], 1], [['b'], 1]))
    d.tick(ins([1]), [])
    expect(norm(sink.contents())).toEqual(expected([['a'], 1], [['b'], 1]))
    expect(norm(c.snapshot())).toEqual(expected([['a'], 1], [['b'], 1]))
  })
})

describe('Output', () => {
  it('calls back with non-empty deltas only', () => {
    const d = new Driver()
    const seen: [Row, number][][] = []
    const f = filter(d.circuit, d.input, (r) => r[0] === 1)
    output(d.circuit, f, (z: ZSet) => seen.push(norm(z)))
    d.tick(ins([1]), [])
    d.tick(ins([2]), [])
    d.tick(del([1]), [])
    expect(seen).toEqual([expected([[1], 1]), expected([[1], -1])])
  })
})
