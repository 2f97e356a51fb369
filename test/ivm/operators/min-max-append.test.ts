// Append-only MIN / MAX (ivm/aggregators/min-max-append.ts) and how ReduceOperator carries
// insert-only aggregators: the accumulator is the extreme itself; a retraction is refused
// before any state changes; rollback puts back the accumulators of the last commit; a saved
// state only loads into a reduce with the same aggregators. The differential property runs a
// reduce with the retractable MIN / MAX and one with the append-only ones on the same
// insert-only input (with commits, rollbacks and checkpoint round trips) and requires
// identical outputs at every step.
import { deserialize, serialize } from 'node:v8'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendOnlyMax, appendOnlyMin, countRows, max, min, reduce, StateMismatchError, sumInt, ZSet, type AggregateSpec, type Row } from '../../../ivm/index.js'
import { Accumulator, Driver, expected, ins, norm, zs } from '../helpers.js'

type Cmp = (a: unknown, b: unknown) => number

const num: Cmp = (a, b) => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0)
const text: Cmp = (a, b) => ((a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0)
/** Values that compare equal without being identical: { v, tag } ordered by v only. */
interface Tagged {
  readonly v: number
  readonly tag: string
}
const tagged: Cmp = (a, b) => num((a as Tagged).v, (b as Tagged).v)

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const NUM_RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || undefined
const params = (numRuns: number) => ({ numRuns: NUM_RUNS ?? numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) })

describe('append-only MIN / MAX aggregators', () => {
  it('keep the extreme itself, skip NULLs, and keep the first of equal values', () => {
    const mx = appendOnlyMax(tagged)
    const mn = appendOnlyMin(tagged)
    let a = mx.create()
    let b = mn.create()
    expect(mx.result(a)).toBe(null)
    for (const [v, w] of [[{ v: 3, tag: 'x' }, 1], [null, 1], [{ v: 5, tag: 'first' }, 2], [{ v: 5, tag: 'second' }, 1], [{ v: 1, tag: 'low' }, 1], [{ v: 1, tag: 'low2' }, 0]] as [Tagged | null, number][]) {
      a = mx.add(a, v, w)
      b = mn.add(b, v, w)
    }
    expect(mx.result(a)).toEqual({ v: 5, tag: 'first' })
    expect(mn.result(b)).toEqual({ v: 1, tag: 'low' })
    expect(mx.name).toBe('max (append-only)')
    expect(mx.insertOnly).toBe(true)
  })
  it('refuse a negative weight with an internal error, NULL or not', () => {
    const mx = appendOnlyMax(num)
    expect(() => mx.add(7, 7, -1)).toThrow(/internal: append-only max received a retraction/)
    expect(() => mx.add(7, null, -1)).toThrow(/internal/)
  })
})

describe('Reduce with insert-only aggregators', () => {
  const specs = (): AggregateSpec[] => [
    { aggregator: countRows, arg: () => null },
    { aggregator: appendOnlyMax(num), arg: (row) => row[1] },
    { aggregator: appendOnlyMin(num), arg: (row) => row[1] },
  ]
  it('refuses a delta that retracts before touching any state', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [0], specs())
    d.step(ins(['a', 5], ['b', 1]), r)
    d.commit()
    const before = r.saveState()
    expect(() => d.step(zs([['a', 9], 1], [['a', 5], -1]), r)).toThrow(/Reduce#\d+ has insert-only aggregates \(max \(append-only\), min \(append-only\)\) but its input retracts/)
    d.circuit.endStep()
    expect(r.saveState()).toEqual(before)
  })
  it('rolls back to the accumulators of the last commit, over several steps', () => {
    const d = new Driver()
    const r = reduce(d.circuit, d.input, [0], specs())
    d.step(ins(['a', 5], ['b', 1]), r)
    d.commit()
    const saved = d.saveTables()
    expect(d.step(ins(['a', 50], ['c', 3]), r)).toEqual(expected([['a', 1, 5, 5], -1], [['a', 2, 50, 5], 1], [['c', 1, 3, 3], 1]))
    expect(d.step(ins(['a', -50], ['b', 0]), r)).toEqual(expected([['a', 2, 50, 5], -1], [['a', 3, 50, -50], 1], [['b', 1, 1, 1], -1], [['b', 2, 1, 0], 1]))
    d.rollback(saved)
    const rows: Row[] = []
    r.forEachOutput((row) => rows.push(row))
    expect(norm(ZSet.of(rows.map((row) => [row, 1] as [Row, number])))).toEqual(expected([['a', 1, 5, 5], 1], [['b', 1, 1, 1], 1]))
    expect(r.size).toBe(2)
    // and goes on from there
    expect(d.step(ins(['a', 6]), r)).toEqual(expected([['a', 1, 5, 5], -1], [['a', 2, 6, 5], 1]))
  })
  it('loads only a state saved with the same aggregators', () => {
    const d = new Driver()
    const appendOnly = reduce(d.circuit, d.input, [0], specs())
    const retractable = reduce(d.circuit, d.input, [0], [{ aggregator: countRows, arg: () => null }, { aggregator: max(num), arg: (row) => row[1] }, { aggregator: min(num), arg: (row) => row[1] }])
    const plain = reduce(d.circuit, d.input, [0], [{ aggregator: sumInt, arg: (row) => row[1] }])
    d.tick(ins(['a', 5]), [])
    d.commit()
    expect(() => appendOnly.loadState(retractable.saveState())).toThrow(StateMismatchError)
    expect(() => retractable.loadState(appendOnly.saveState())).toThrow(StateMismatchError)
    // a state saved before the names were kept: fine without insert-only aggregators only
    const { aggregators: _names, ...old } = plain.saveState()
    expect(() => plain.loadState(old)).not.toThrow()
    const { aggregators: _names2, ...oldAppend } = appendOnly.saveState()
    expect(() => appendOnly.loadState(oldAppend)).toThrow(StateMismatchError)
    appendOnly.loadState(deserialize(serialize(appendOnly.saveState())))
    expect(appendOnly.size).toBe(1)
  })
})

// ------------------------------------------------------------------ differential property

type Action = { readonly kind: 'step'; readonly rows: readonly [number, unknown, number][] } | { readonly kind: 'commit' } | { readonly kind: 'rollback' } | { readonly kind: 'checkpoint' }

interface Domain {
  readonly cmp: Cmp
  readonly value: fc.Arbitrary<unknown>
}

const DOMAINS: Record<string, Domain> = {
  ints: { cmp: num, value: fc.oneof(fc.integer({ min: -20, max: 20 }), fc.constant(null)) },
  doubles: { cmp: num, value: fc.oneof(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.constantFrom(0, -0, 1e-300, null)) },
  text: { cmp: text, value: fc.oneof(fc.string({ maxLength: 3 }), fc.constant(null)) },
  tagged: { cmp: tagged, value: fc.oneof(fc.record({ v: fc.integer({ min: 0, max: 5 }), tag: fc.constantFrom('p', 'q', 'r') }).map((t): Tagged => ({ v: t.v, tag: t.tag })), fc.constant(null)) },
}

function actions(value: fc.Arbitrary<unknown>): fc.Arbitrary<Action[]> {
  const row = fc.tuple(fc.integer({ min: 0, max: 4 }), value, fc.integer({ min: 1, max: 3 }))
  const action: fc.Arbitrary<Action> = fc.oneof(
    { weight: 6, arbitrary: fc.array(row, { maxLength: 8 }).map((rows): Action => ({ kind: 'step', rows })) },
    { weight: 2, arbitrary: fc.constant<Action>({ kind: 'commit' }) },
    { weight: 1, arbitrary: fc.constant<Action>({ kind: 'rollback' }) },
    { weight: 1, arbitrary: fc.constant<Action>({ kind: 'checkpoint' }) },
  )
  return fc.array(action, { maxLength: 30 })
}

describe('append-only vs retractable MIN / MAX (differential)', () => {
  for (const [name, domain] of Object.entries(DOMAINS)) {
    it(`give identical outputs over insert-only input: ${name}`, () => {
      fc.assert(
        fc.property(actions(domain.value), fc.boolean(), (script, global) => {
          const d = new Driver()
          const key = global ? [] : [0]
          const options = { emitEmptyGroup: global }
          const aggs = (mn: typeof min, mx: typeof max): AggregateSpec[] => [
            { aggregator: mx(domain.cmp), arg: (row) => row[1] },
            { aggregator: countRows, arg: () => null },
            { aggregator: mn(domain.cmp), arg: (row) => row[1] },
            { aggregator: mx(domain.cmp), arg: (row) => row[1], filter: (row) => (row[0] as number) % 2 === 0 },
          ]
          const retractable = reduce(d.circuit, d.input, key, aggs(min, max), options)
          const appendOnly = reduce(d.circuit, d.input, key, aggs(appendOnlyMin, appendOnlyMax), options)
          const outA = new Accumulator()
          const outB = new Accumulator()
          let committedA = new Accumulator()
          let committedB = new Accumulator()
          let saved = d.saveTables()
          const copy = (a: Accumulator): Accumulator => {
            const c = new Accumulator()
            c.add(a.toZSet())
            return c
          }
          d.tick(new ZSet(), [])
          d.commit()
          for (const a of script) {
            if (a.kind === 'step') {
              const delta = ZSet.of(a.rows.map(([k, v, w]) => [[k, v], w] as [Row, number]))
              const [da, db] = d.tick(delta, [retractable, appendOnly])
              expect(norm(db!)).toEqual(norm(da!))
              outA.add(da!)
              outB.add(db!)
            } else if (a.kind === 'commit') {
              d.commit()
              saved = d.saveTables()
              committedA = copy(outA)
              committedB = copy(outB)
            } else if (a.kind === 'rollback') {
              d.rollback(saved)
              outA.add(outA.toZSet(), -1)
              outA.add(committedA.toZSet())
              outB.add(outB.toZSet(), -1)
              outB.add(committedB.toZSet())
            } else {
              d.commit()
              saved = d.saveTables()
              committedA = copy(outA)
              committedB = copy(outB)
              appendOnly.loadState(deserialize(serialize(appendOnly.saveState())))
              retractable.loadState(deserialize(serialize(retractable.saveState())))
            }
            const current = (r: typeof retractable): [Row, number][] => {
              const rows: [Row, number][] = []
              r.forEachOutput((row) => rows.push([row, 1]))
              return norm(ZSet.of(rows))
            }
            expect(current(appendOnly)).toEqual(current(retractable))
            expect(current(appendOnly)).toEqual(outB.entries())
          }
        }),
        params(150),
      )
    })
  }
})
