// TableStore (src/catalog.ts) against a plain Map model: sequences of ticks, each a few
// consolidated deltas (inserts, deletes, updates that keep the key, key changes, bulk loads)
// ending in commit or rollback. After every step the store must hold exactly the model's rows
// (values compared with Object.is: -0, NaN, NULL, strings, booleans and numbers at the edge of
// the exact integer range keep their identity), and a keyed store must have allocated exactly
// the slots a model of its free list predicts (vacated slots are reused after the commit, and
// a rollback gives back every slot written since it). Small segments put many segment
// boundaries under test; one case loads past the real segment size.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as ivm from '../../ivm/index.js'
import { TableStore } from '../../src/catalog.js'

type Row = unknown[]

const WIDTH = 4

/** Values of every kind a column may meet, in one column. */
const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double(),
  fc.constantFrom(-0, NaN, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53, 1e15 + 0.5, 0.1),
  fc.string({ maxLength: 4 }),
  fc.boolean(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
)

/** Key columns and how the n-th fresh key looks in them. */
type KeyShape = 'int' | 'text' | 'pair'
const keyShapes: Record<KeyShape, { primaryKey: readonly number[]; key: (n: number) => Row }> = {
  int: { primaryKey: [0], key: (n) => [n] },
  text: { primaryKey: [0], key: (n) => [`k${n}`] },
  // a two-column key of mixed types, in columns 2 and 0
  pair: { primaryKey: [2, 0], key: (n) => [n % 3 === 0 ? null : `p${n % 5}`, undefined, n] },
}

/** One change of a delta: its kind and where it points; concrete rows are made at run time
 *  from the model (a delete or update picks a stored key by index). */
type Change =
  | { kind: 'insert'; values: unknown[] }
  | { kind: 'delete'; pick: number }
  | { kind: 'update'; pick: number; values: unknown[] }
  | { kind: 'rekey'; pick: number; values: unknown[] }
  | { kind: 'bulk'; n: number; value: unknown }

interface Tick {
  deltas: Change[][]
  end: 'commit' | 'rollback'
}

const valuesArb = fc.array(valueArb, { minLength: WIDTH, maxLength: WIDTH })
const changeArb = (bulkMax: number): fc.Arbitrary<Change> =>
  fc.oneof(
    { weight: 4, arbitrary: valuesArb.map((values): Change => ({ kind: 'insert', values })) },
    { weight: 3, arbitrary: fc.nat().map((pick): Change => ({ kind: 'delete', pick })) },
    { weight: 3, arbitrary: fc.tuple(fc.nat(), valuesArb).map(([pick, values]): Change => ({ kind: 'update', pick, values })) },
    { weight: 1, arbitrary: fc.tuple(fc.nat(), valuesArb).map(([pick, values]): Change => ({ kind: 'rekey', pick, values })) },
    { weight: bulkMax > 0 ? 1 : 0, arbitrary: fc.tuple(fc.integer({ min: 1, max: Math.max(1, bulkMax) }), valueArb).map(([n, value]): Change => ({ kind: 'bulk', n, value })) },
  )
const tickArb = (bulkMax: number): fc.Arbitrary<Tick> =>
  fc.record({
    deltas: fc.array(fc.array(changeArb(bulkMax), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }),
    end: fc.constantFrom<'commit' | 'rollback'>('commit', 'commit', 'rollback'),
  })

function same(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]))
}

function show(r: readonly unknown[] | undefined): string {
  return r === undefined ? 'undefined' : `[${r.map((v) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : typeof v === 'string' ? JSON.stringify(v) : String(v))).join(', ')}]`
}

/** The model of a keyed store: its rows, and its slots (how many were ever allocated and not
 *  rolled back, and how many of them are free), at the last commit and now. */
class Model {
  committed = new Map<ivm.RowKey, Row>()
  rows = new Map<ivm.RowKey, Row>()
  end = 0
  free = 0
  #endAtCommit = 0
  #freeAtCommit = 0
  #vacated = 0

  write(): void {
    if (this.free > 0) this.free--
    else this.end++
  }
  vacate(): void {
    this.#vacated++
  }
  commit(): void {
    this.committed = new Map(this.rows)
    this.free += this.#vacated
    this.#vacated = 0
    this.#endAtCommit = this.end
    this.#freeAtCommit = this.free
  }
  rollback(): void {
    this.rows = new Map(this.committed)
    this.#vacated = 0
    this.end = this.#endAtCommit
    this.free = this.#freeAtCommit
  }
}

function check(store: TableStore, model: Model, keyOf: (r: readonly unknown[]) => ivm.RowKey, absent: readonly ivm.RowKey[], where: string): void {
  const fail = (msg: string): never => {
    throw new Error(`${where}: ${msg}`)
  }
  if (store.size !== model.rows.size) fail(`size ${store.size}, model ${model.rows.size}`)
  for (const [k, row] of model.rows) {
    const got = store.get(k)
    if (!same(got, row)) fail(`get(${String(k)}) = ${show(got)}, model ${show(row)}`)
    if (!store.has(k) || store.countOf(k) !== 1) fail(`has/countOf(${String(k)}) wrong`)
  }
  for (const k of absent) {
    if (model.rows.has(k)) continue
    if (store.get(k) !== undefined || store.has(k) || store.countOf(k) !== 0) fail(`absent key ${String(k)} found`)
  }
  const keys = [...store.keys()]
  if (keys.length !== model.rows.size || keys.some((k) => !model.rows.has(k))) fail('keys() differ')
  const snap = store.snapshot()
  if (snap.rows.length !== model.rows.size) fail(`snapshot has ${snap.rows.length} rows, model ${model.rows.size}`)
  const seen = new Set<ivm.RowKey>()
  for (let i = 0; i < snap.rows.length; i++) {
    const r = snap.rows[i]!
    const k = keyOf(r)
    if (snap.weights[i] !== 1 || seen.has(k) || !same(r, model.rows.get(k))) fail(`snapshot row ${show(r)} (weight ${snap.weights[i]})`)
    seen.add(k)
  }
  if (store.slotCount !== model.end) fail(`${store.slotCount} slots, model ${model.end}`)
}

function runKeyed(shape: KeyShape, segmentBits: number, ticks: readonly Tick[]): void {
  const { primaryKey, key } = keyShapes[shape]
  const keyOf = ivm.keyFunction(primaryKey)
  const store = new TableStore(primaryKey, WIDTH, segmentBits)
  const model = new Model()
  let next = 0
  /** A row with the given values and the n-th fresh key in the key columns. */
  const withKey = (values: readonly unknown[], keyRow: Row): Row => values.map((v, i) => (primaryKey.includes(i) ? keyRow[i] : v))
  const absent: ivm.RowKey[] = [keyOf(withKey([0, 0, 0, 0], key(-1))), keyOf(withKey([0, 0, 0, 0], key(-2)))]
  check(store, model, keyOf, absent, 'empty')
  ticks.forEach((tick, t) => {
    tick.deltas.forEach((changes, d) => {
      const delta = new ivm.ZSet()
      const touched = new Set<ivm.RowKey>()
      const stored = [...model.rows.keys()]
      /** A stored key not touched yet by this delta, or undefined. */
      const pick = (p: number): ivm.RowKey | undefined => {
        for (let i = 0; i < stored.length; i++) {
          const k = stored[(p + i) % stored.length]!
          if (!touched.has(k)) return k
        }
        return undefined
      }
      const insert = (row: Row): void => {
        delta.push(row, 1)
        model.rows.set(keyOf(row), row)
        model.write()
      }
      for (const c of changes) {
        if (c.kind === 'insert' || c.kind === 'bulk') {
          const n = c.kind === 'bulk' ? c.n : 1
          for (let i = 0; i < n; i++) {
            const row = withKey(c.kind === 'bulk' ? [c.value, i, c.value, -i] : c.values, key(next++))
            touched.add(keyOf(row))
            insert(row)
          }
          continue
        }
        const k = pick(c.pick)
        if (k === undefined) continue
        touched.add(k)
        const old = model.rows.get(k)!
        delta.push(old, -1)
        model.rows.delete(k)
        model.vacate()
        if (c.kind === 'update') insert(withKey(c.values, old.map((v, i) => (primaryKey.includes(i) ? v : undefined))))
        else if (c.kind === 'rekey') {
          const row = withKey(c.values, key(next++))
          touched.add(keyOf(row))
          insert(row)
        }
      }
      store.apply(delta)
      check(store, model, keyOf, [...absent, ...touched], `tick ${t} delta ${d}`)
    })
    if (tick.end === 'commit') {
      store.commit()
      model.commit()
    } else {
      store.rollback()
      model.rollback()
    }
    check(store, model, keyOf, absent, `tick ${t} after ${tick.end}`)
  })
}

describe('TableStore with a primary key', () => {
  for (const shape of Object.keys(keyShapes) as KeyShape[]) {
    it(`matches a Map model under inserts, deletes, updates, rollbacks (${shape} key, segments of 4)`, () => {
      fc.assert(fc.property(fc.array(tickArb(12), { minLength: 1, maxLength: 12 }), (ticks) => runKeyed(shape, 2, ticks)), { numRuns: 300 })
    })
  }

  it('matches the model across real-size segments (bulk loads, rollbacks past a segment)', () => {
    fc.assert(fc.property(fc.array(tickArb(6000), { minLength: 2, maxLength: 6 }), (ticks) => runKeyed('int', 13, ticks)), { numRuns: 15 })
  })

  it('reuses the slot of a replaced row once the tick commits; a rollback frees new slots', () => {
    const store = new TableStore([0], 3, 2)
    const z = (...pairs: [Row, number][]) => ivm.ZSet.of(pairs)
    store.apply(z([[1, 'a', 1.5], 1], [[2, 'b', 2.5], 1]))
    store.commit()
    expect(store.slotCount).toBe(2)
    for (let i = 0; i < 10; i++) {
      // an update: −old +new with the same key, committed
      store.apply(z([[1, 'a', 1.5 + i], -1], [[1, 'a', 2.5 + i], 1]))
      store.commit()
    }
    expect(store.slotCount).toBe(3) // one spare slot, reused by every update
    expect(store.get(1)).toEqual([1, 'a', 11.5])
    // rows handed out are fresh: mutating one changes nothing
    const r = store.get(2)! as unknown[]
    r[1] = 'changed'
    expect(store.get(2)).toEqual([2, 'b', 2.5])
    expect(store.get(2)).not.toBe(store.get(2))
    // a rolled-back tick that deleted, updated and inserted leaves rows and slots as they were
    store.apply(z([[2, 'b', 2.5], -1], [[1, 'a', 11.5], -1], [[1, null, -0], 1], [[3, 'c', NaN], 1], [[4, 2n ** 60n, 2 ** 53], 1]))
    expect(store.slotCount).toBe(5)
    store.rollback()
    expect(store.slotCount).toBe(3)
    expect(store.snapshot().rows.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [1, 'a', 11.5],
      [2, 'b', 2.5],
    ])
    // deletes free their slots at commit; later inserts take them before growing
    store.apply(z([[1, 'a', 11.5], -1], [[2, 'b', 2.5], -1]))
    store.commit()
    expect(store.size).toBe(0)
    store.apply(z([[5, 'e', 5], 1], [[6, 'f', 6], 1], [[7, 'g', 7], 1], [[8, 'h', 8], 1]))
    store.commit()
    expect(store.slotCount).toBe(4)
  })
})

describe('TableStore without a primary key (a bag)', () => {
  it('matches a count model under inserts, deletes and rollbacks', () => {
    const rowArb = fc.tuple(fc.constantFrom<unknown>(1, 2, 'x', null, 0, -0), fc.constantFrom<unknown>(true, 0.5, 'y'))
    const tickArb = fc.record({
      deltas: fc.array(fc.array(fc.tuple(rowArb, fc.integer({ min: -3, max: 3 })), { maxLength: 6 }), { minLength: 1, maxLength: 3 }),
      end: fc.constantFrom('commit', 'rollback'),
    })
    fc.assert(
      fc.property(fc.array(tickArb, { minLength: 1, maxLength: 10 }), (ticks) => {
        const store = new TableStore([], 2)
        let committed = new Map<ivm.RowKey, [Row, number]>()
        let counts = new Map(committed)
        const checkBag = (): void => {
          let total = 0
          for (const [k, [row, n]] of counts) {
            total += n
            expect(store.countOf(k)).toBe(n)
            expect(store.has(k)).toBe(true)
            expect(same(store.get(k), row)).toBe(true)
          }
          expect(store.size).toBe(total)
          expect(new Set(store.keys())).toEqual(new Set(counts.keys()))
          const snap = store.snapshot()
          expect(snap.rows.length).toBe(counts.size)
          for (let i = 0; i < snap.rows.length; i++) expect(counts.get(ivm.rowKey(snap.rows[i]!))?.[1]).toBe(snap.weights[i])
        }
        for (const tick of ticks) {
          for (const changes of tick.deltas) {
            // a valid consolidated delta: one entry per row, never below zero copies
            const byKey = new Map<ivm.RowKey, [Row, number]>()
            for (const [row, w] of changes) {
              const k = ivm.rowKey(row)
              const have = counts.get(k)?.[1] ?? 0
              const prev = byKey.get(k)?.[1] ?? 0
              byKey.set(k, [row, Math.max(-have, prev + w)])
            }
            const delta = new ivm.ZSet()
            for (const [k, [row, w]] of byKey) {
              if (w === 0) continue
              delta.push(row, w)
              const n = (counts.get(k)?.[1] ?? 0) + w
              // the stored row is the last one written (0 and -0 make one row key)
              if (n > 0) counts.set(k, [row, n])
              else counts.delete(k)
            }
            store.apply(delta)
            checkBag()
          }
          if (tick.end === 'commit') {
            store.commit()
            committed = new Map(counts)
          } else {
            store.rollback()
            counts = new Map(committed)
          }
          checkBag()
        }
      }),
      { numRuns: 300 },
    )
  })
})
