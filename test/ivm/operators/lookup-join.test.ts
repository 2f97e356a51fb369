import { describe, expect, it } from 'vitest'
import { arrange, type Row } from '../../../ivm/index.js'
import { lookupJoin, type LookupJoinOptions } from '../../../ivm/operators/lookup-join.js'
import { del, Driver, expected, ins, zs } from '../helpers.js'

// input 0: the stream [event, id]; input 1: the table [id, name], arranged on id.
function setup(options: Partial<LookupJoinOptions> = {}) {
  const d = new Driver(2)
  const table = arrange(d.circuit, d.inputs[1]!, [0])
  const j = lookupJoin(d.circuit, d.inputs[0]!, table, { leftKey: [1], outer: false, rightWidth: 2, leftAppendOnly: true, ...options })
  return { d, table, j }
}

describe('LookupJoin', () => {
  it('joins a stream row with the table as it is when the row arrives', () => {
    const { d, j } = setup()
    expect(d.step([undefined, ins([1, 'a'], [2, 'b'])], j)).toEqual([])
    expect(d.step([ins(['e1', 1], ['e2', 2], ['e3', 3])], j)).toEqual(expected([['e1', 1, 1, 'a'], 1], [['e2', 2, 2, 'b'], 1]))
    // weights multiply
    expect(d.step([zs([['e4', 1], 2]), undefined], j)).toEqual(expected([['e4', 1, 1, 'a'], 2]))
    expect(d.step([undefined, zs([[1, 'a2'], 3])], j)).toEqual([])
    expect(d.step([ins(['e5', 1])], j)).toEqual(expected([['e5', 1, 1, 'a'], 1], [['e5', 1, 1, 'a2'], 3]))
    expect(j.stateSize()).toBe(0)
    expect(j.describeState()).toBe('')
    expect(j.name).toBe('LookupJoin')
  })

  it('never revises earlier output when the table changes later', () => {
    const { d, j } = setup()
    d.tick([undefined, ins([1, 'a'])], [])
    expect(d.step([ins(['e1', 1], ['e2', 2])], j)).toEqual(expected([['e1', 1, 1, 'a'], 1]))
    // update, delete, insert of the table: no output at all
    expect(d.step([undefined, zs([[1, 'a'], -1], [[1, 'A'], 1])], j)).toEqual([])
    expect(d.step([undefined, ins([2, 'b'])], j)).toEqual([])
    expect(d.step([undefined, del([1, 'A'])], j)).toEqual([])
    // later stream rows see the new state
    expect(d.step([ins(['e3', 1], ['e4', 2])], j)).toEqual(expected([['e4', 2, 2, 'b'], 1]))
  })

  it('sees a table change of the same step', () => {
    const { d, j } = setup()
    d.tick([undefined, ins([1, 'old'])], [])
    expect(d.step([ins(['e1', 1], ['e2', 2]), zs([[1, 'old'], -1], [[1, 'new'], 1], [[2, 'b'], 1])], j)).toEqual(
      expected([['e1', 1, 1, 'new'], 1], [['e2', 2, 2, 'b'], 1]),
    )
  })

  it('null-extends unmatched rows for LEFT and does not revise them', () => {
    const { d, j } = setup({ outer: true })
    expect(d.step([ins(['e1', 1])], j)).toEqual(expected([['e1', 1, null, null], 1]))
    expect(d.step([undefined, ins([1, 'a'])], j)).toEqual([])
    expect(d.step([zs([['e2', 1], 2], [['e3', 9], 1])], j)).toEqual(expected([['e2', 1, 1, 'a'], 2], [['e3', 9, null, null], 1]))
    expect(d.step([undefined, del([1, 'a'])], j)).toEqual([])
  })

  it('applies the residual condition (part of the match for LEFT)', () => {
    const residual = (l: Row, r: Row) => (r[1] as string) !== 'skip' && l[0] !== 'none'
    const inner = setup({ residual })
    inner.d.tick([undefined, ins([1, 'a'], [1, 'skip'], [2, 'skip'])], [])
    expect(inner.d.step([ins(['e1', 1], ['e2', 2], ['none', 1])], inner.j)).toEqual(expected([['e1', 1, 1, 'a'], 1]))
    const outer = setup({ residual, outer: true })
    outer.d.tick([undefined, ins([1, 'a'], [1, 'skip'], [2, 'skip'])], [])
    expect(outer.d.step([ins(['e1', 1], ['e2', 2], ['none', 1])], outer.j)).toEqual(
      expected([['e1', 1, 1, 'a'], 1], [['e2', 2, null, null], 1], [['none', 1, null, null], 1]),
    )
  })

  it('never matches NULL keys', () => {
    const d = new Driver(2)
    const table = arrange(d.circuit, d.inputs[1]!, [0, 1])
    const j = lookupJoin(d.circuit, d.inputs[0]!, table, { leftKey: [0, 1], outer: true, rightWidth: 3, leftAppendOnly: true })
    d.tick([undefined, ins([null, 1, 'n1'], [1, null, 'n2'], [1, 1, 'x'])], [])
    expect(d.step([ins([null, 1], [1, null], [1, 1])], j)).toEqual(
      expected([[null, 1, null, null, null], 1], [[1, null, null, null, null], 1], [[1, 1, 1, 1, 'x'], 1]),
    )
  })

  it('uses the bucket path for many rows under one key', () => {
    const { d, j } = setup()
    const rows = Array.from({ length: 40 }, (_, i) => [7, 'r' + i] as Row)
    d.tick([undefined, ins(...rows)], [])
    const out = d.step([ins(['e', 7])], j)
    expect(out.length).toBe(40)
    expect(out.every(([r, w]) => w === 1 && r[0] === 'e' && r[2] === 7)).toBe(true)
  })

  it('with a retracting left, a deletion retracts what the row emitted even after the table changed', () => {
    const { d, j } = setup({ leftAppendOnly: false, outer: true })
    d.tick([undefined, ins([1, 'a'])], [])
    expect(d.step([ins(['e1', 1], ['e2', 2])], j)).toEqual(expected([['e1', 1, 1, 'a'], 1], [['e2', 2, null, null], 1]))
    expect(j.stateSize()).toBe(2)
    expect(j.describeState()).toBe('emitted rows per left row (to retract them): 2 left rows')
    d.tick([undefined, zs([[1, 'a'], -1], [[1, 'b'], 1], [[2, 'x'], 1])], [])
    // a fresh lookup would give e1⋈b and e2⋈x: the deletions retract what was emitted instead
    expect(d.step([del(['e1', 1], ['e2', 2])], j)).toEqual(expected([['e1', 1, 1, 'a'], -1], [['e2', 2, null, null], -1]))
    expect(j.stateSize()).toBe(0)
  })

  it('with a retracting left, retracts the newest units of a row first', () => {
    const { d, j } = setup({ leftAppendOnly: false })
    d.tick([undefined, ins([1, 'a'])], [])
    expect(d.step([zs([['e', 1], 2]), undefined], j)).toEqual(expected([['e', 1, 1, 'a'], 2]))
    d.tick([undefined, zs([[1, 'a'], -1], [[1, 'b'], 1], [[1, 'c'], 1])], [])
    expect(d.step([ins(['e', 1])], j)).toEqual(expected([['e', 1, 1, 'b'], 1], [['e', 1, 1, 'c'], 1]))
    expect(j.stateSize()).toBe(1)
    // two units: the newest (b, c), then one of the two older (a)
    expect(d.step([zs([['e', 1], -2]), undefined], j)).toEqual(expected([['e', 1, 1, 'b'], -1], [['e', 1, 1, 'c'], -1], [['e', 1, 1, 'a'], -1]))
    expect(d.step([del(['e', 1])], j)).toEqual(expected([['e', 1, 1, 'a'], -1]))
    expect(j.stateSize()).toBe(0)
  })

  it('with a retracting left, an insert and a delete of a row in one step cancel (order does not matter)', () => {
    const { d, j } = setup({ leftAppendOnly: false })
    d.tick([undefined, ins([1, 'a'])], [])
    d.tick([ins(['e', 1])], [])
    d.tick([undefined, zs([[1, 'a'], -1], [[1, 'b'], 1])], [])
    // −e then +e in one delta: nets to nothing (the remembered e⋈a stays)
    expect(d.step([zs([['e', 1], -1], [['e', 1], 1])], j)).toEqual([])
    expect(d.step([zs([['e', 1], 1], [['e', 1], -1])], j)).toEqual([])
    expect(d.step([del(['e', 1])], j)).toEqual(expected([['e', 1, 1, 'a'], -1]))
  })

  it('rolls back a step (state and output), then continues', () => {
    const { d, j } = setup({ leftAppendOnly: false })
    d.tick([ins(['e1', 1]), ins([1, 'a'])], [])
    d.commit()
    const saved = d.saveTables()
    // uncommitted: a table change, an insertion and a deletion of the stream
    expect(d.step([zs([['e1', 1], -1], [['e2', 1], 1]), zs([[1, 'a'], -1], [[1, 'b'], 1])], j)).toEqual(
      expected([['e1', 1, 1, 'a'], -1], [['e2', 1, 1, 'b'], 1]),
    )
    expect(d.step([del(['e2', 1])], j)).toEqual(expected([['e2', 1, 1, 'b'], -1]))
    d.rollback(saved)
    expect(j.stateSize()).toBe(1)
    // e1 is remembered with what it emitted at its arrival; the table is back to 'a'
    expect(d.step([ins(['e3', 1]), undefined], j)).toEqual(expected([['e3', 1, 1, 'a'], 1]))
    expect(d.step([undefined, zs([[1, 'a'], -1], [[1, 'c'], 1])], j)).toEqual([])
    expect(d.step([del(['e1', 1], ['e3', 1])], j)).toEqual(expected([['e1', 1, 1, 'a'], -1], [['e3', 1, 1, 'a'], -1]))
    expect(j.stateSize()).toBe(0)
  })

  it('rolls back a step whose residual threw, touching no state', () => {
    const residual = (l: Row, r: Row) => {
      if (l[0] === 'boom') throw new Error('user error')
      return r[1] !== 'no'
    }
    const { d, j } = setup({ leftAppendOnly: false, residual })
    d.tick([ins(['e1', 1]), ins([1, 'a'])], [])
    d.commit()
    const saved = d.saveTables()
    expect(() => d.tick([zs([['e1', 1], -1], [['e2', 1], 1], [['boom', 1], 1])], [j])).toThrow('user error')
    d.rollback(saved)
    expect(j.stateSize()).toBe(1)
    expect(d.step([del(['e1', 1])], j)).toEqual(expected([['e1', 1, 1, 'a'], -1]))
  })

  it('throws, naming the operator, on a deletion from an append-only left', () => {
    const { d, j } = setup()
    d.tick([ins(['e1', 1]), ins([1, 'a'])], [])
    expect(() => d.tick([del(['e1', 1])], [])).toThrow(new RegExp(`^LookupJoin#${j.id}: .*append-only`))
  })

  it('throws on the deletion of a row a retracting left never inserted', () => {
    const { d, j } = setup({ leftAppendOnly: false })
    d.tick([ins(['e1', 1]), ins([1, 'a'])], [])
    expect(() => d.tick([zs([['e1', 1], -2])], [])).toThrow(`LookupJoin#${j.id}`)
  })

  it('rejects a key arity mismatch', () => {
    const d = new Driver(2)
    const table = arrange(d.circuit, d.inputs[1]!, [0])
    expect(() => lookupJoin(d.circuit, d.inputs[0]!, table, { leftKey: [0, 1], outer: false, rightWidth: 2, leftAppendOnly: true })).toThrow(/arity/)
  })
})
