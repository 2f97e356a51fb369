// Exact numbers against plain references: BIGINT operations against JS bigint arithmetic over
// the whole 64-bit range (compiled inline code and the library alike), NUMERIC arithmetic
// against exact rational arithmetic on bigints (value and display scale), and SUM / AVG in
// materialized views through inserts and deletes against sums recomputed with bigints.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError } from '../../grammar/index.js'
import {
  Numeric,
  numericAdd,
  numericCoef,
  numericCompare,
  numericDiv,
  numericMod,
  numericMul,
  numericOf,
  numericRound,
  numericSqrt,
  numericSub,
  numericText,
  type NumericValue,
  type ScalarExpr,
} from '../../planner/index.js'
import { compileScalar } from '../../src/sql-runtime/compile-scalar.js'
import { Engine } from '../../src/engine/engine.js'
import { FUNCTIONS } from '../../src/sql-runtime/functions.js'

const SEED = process.env.RIVULET_SEED === undefined ? undefined : Number(process.env.RIVULET_SEED)
const runs = (n: number) => ({ numRuns: n, ...(SEED !== undefined ? { seed: SEED } : {}) })

const MIN = -(2n ** 63n)
const MAX = 2n ** 63n - 1n
const SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** The canonical run-time form of a 64-bit integer. */
const int8 = (v: bigint): number | bigint => (v >= -SAFE && v <= SAFE ? Number(v) : v)

/** 64-bit integers, mostly near the interesting edges: 0, ±2^31, ±2^53, ±2^63. */
const edgy = fc.oneof(
  fc.bigInt({ min: MIN, max: MAX }),
  fc.bigInt({ min: -1000n, max: 1000n }),
  ...[2n ** 31n, 2n ** 53n, 2n ** 62n, 2n ** 63n].flatMap((e) => [fc.bigInt({ min: e - 3000n, max: e - 1n }), fc.bigInt({ min: -e, max: -e + 3000n })]),
)

/** The outcome of an operation: its value, or the SQLSTATE it raised. */
function outcome(f: () => unknown): unknown {
  try {
    return f()
  } catch (e) {
    if (e instanceof RivuletError) return `error ${e.code}`
    throw e
  }
}

function expected(exact: bigint | 'div0'): unknown {
  if (exact === 'div0') return 'error 22012'
  return exact < MIN || exact > MAX ? 'error 22003' : int8(exact)
}

const column = (index: number): ScalarExpr => ({ kind: 'column', index, type: 'bigint' })
const call = (fn: string, args: ScalarExpr[]): ScalarExpr => ({ kind: 'call', fn, args, type: 'bigint' })

describe('bigint is exact over 64 bits', () => {
  const ops: [string, (a: bigint, b: bigint) => bigint | 'div0'][] = [
    ['int8_add', (a, b) => a + b],
    ['int8_sub', (a, b) => a - b],
    ['int8_mul', (a, b) => a * b],
    ['int8_div', (a, b) => (b === 0n ? 'div0' : a / b)],
    ['int8_mod', (a, b) => (b === 0n ? 'div0' : a % b)],
  ]
  for (const [id, ref] of ops) {
    const compiled = compileScalar(call(id, [column(0), column(1)]))
    it(`${id}: the library and the compiled expression equal bigint arithmetic`, () => {
      fc.assert(
        fc.property(edgy, edgy, (a, b) => {
          const want = expected(ref(a, b))
          expect(outcome(() => FUNCTIONS[id]!(int8(a), int8(b)))).toEqual(want)
          expect(outcome(() => compiled([int8(a), int8(b)]))).toEqual(want)
        }),
        runs(3000),
      )
    })
  }
  it('negation, comparison and the text form', () => {
    const neg = compileScalar(call('int8_neg', [column(0)]))
    const lt = compileScalar({ kind: 'call', fn: 'lt', args: [column(0), column(1)], type: 'boolean' })
    const eq = compileScalar({ kind: 'call', fn: 'eq', args: [column(0), column(1)], type: 'boolean' })
    fc.assert(
      fc.property(edgy, edgy, (a, b) => {
        expect(outcome(() => neg([int8(a)]))).toEqual(expected(-a))
        expect(lt([int8(a), int8(b)])).toBe(a < b)
        expect(eq([int8(a), int8(b)])).toBe(a === b)
      }),
      runs(3000),
    )
  })
})

// ---- numeric against exact rationals

/** A decimal as (coefficient, scale). */
const decimal = fc.record({ coef: fc.oneof(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.bigInt({ min: -1000n, max: 1000n })), scale: fc.integer({ min: 0, max: 12 }) })

const value = (d: { coef: bigint; scale: number }): NumericValue => numericOf(d.coef, d.scale)

/** coefficient and scale of a (finite) result. */
function parts(v: NumericValue): { coef: bigint; scale: number } {
  if (typeof v === 'number') {
    expect(Number.isSafeInteger(v)).toBe(true)
    return { coef: BigInt(v), scale: 0 }
  }
  // the canonical form: a Numeric never holds what a number can, and its coefficient is a
  // number exactly when that is a safe integer
  const coef = numericCoef(v)
  expect(v.scale > 0 || coef > SAFE || coef < -SAFE).toBe(true)
  expect(typeof v.coef === 'number').toBe(coef >= -SAFE && coef <= SAFE)
  return { coef, scale: v.scale }
}

/** a/10^s − b/10^t as a sign. */
function compareExact(a: { coef: bigint; scale: number }, b: { coef: bigint; scale: number }): number {
  const s = Math.max(a.scale, b.scale)
  const x = a.coef * 10n ** BigInt(s - a.scale)
  const y = b.coef * 10n ** BigInt(s - b.scale)
  return x < y ? -1 : x > y ? 1 : 0
}

describe('numeric is exact', () => {
  it('+, −, × give the exact value at PostgreSQL’s scale', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const s = Math.max(a.scale, b.scale)
        const ca = a.coef * 10n ** BigInt(s - a.scale)
        const cb = b.coef * 10n ** BigInt(s - b.scale)
        expect(parts(numericAdd(value(a), value(b)))).toEqual({ coef: ca + cb, scale: s })
        expect(parts(numericSub(value(a), value(b)))).toEqual({ coef: ca - cb, scale: s })
        expect(parts(numericMul(value(a), value(b)))).toEqual({ coef: a.coef * b.coef, scale: a.scale + b.scale })
        expect(Math.sign(numericCompare(value(a), value(b)))).toBe(compareExact(a, b))
      }),
      runs(3000),
    )
  })
  it('÷ rounds the exact quotient half away from zero, with at least 16 significant digits', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        fc.pre(b.coef !== 0n)
        const q = parts(numericDiv(value(a), value(b)))
        expect(q.scale).toBeGreaterThanOrEqual(Math.max(a.scale, b.scale))
        // |a/b − q| ≤ ½ · 10^−scale: 2·|a·10^(scale) − q·b| ≤ |b| at a common denominator
        const n = a.coef * 10n ** BigInt(b.scale + q.scale)
        const d = b.coef * 10n ** BigInt(a.scale)
        const r = n - q.coef * d
        const abs = (x: bigint) => (x < 0n ? -x : x)
        expect(2n * abs(r) <= abs(d)).toBe(true)
        // a tie rounds away from zero
        if (2n * abs(r) === abs(d)) expect(abs(q.coef * d) > abs(n)).toBe(true)
        // 16 significant digits unless the quotient is exact with fewer
        if (r !== 0n && q.coef !== 0n) expect(abs(q.coef).toString().length).toBeGreaterThanOrEqual(16)
      }),
      runs(3000),
    )
  })
  it('% has the sign of the dividend and |r| < |b|', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        fc.pre(b.coef !== 0n)
        const r = parts(numericMod(value(a), value(b)))
        expect(r.scale).toBe(Math.max(a.scale, b.scale))
        const s = r.scale
        const ca = a.coef * 10n ** BigInt(s - a.scale)
        const cb = b.coef * 10n ** BigInt(s - b.scale)
        expect(r.coef).toBe(ca % cb)
      }),
      runs(2000),
    )
  })
  it('round and trunc to any scale', () => {
    fc.assert(
      fc.property(decimal, fc.integer({ min: -6, max: 14 }), (a, to) => {
        const r = parts(numericRound(value(a), to))
        const t = parts(numericRound(value(a), to, true))
        expect(r.scale).toBe(Math.max(to, 0))
        // |a − r| ≤ ½ · 10^−to, and trunc moves toward zero by less than 10^−to
        const unit = { coef: 1n, scale: Math.max(to, 0) }
        const diff = (x: { coef: bigint; scale: number }) => parts(numericSub(value(a), value(x)))
        const half = to >= 0 ? { coef: 5n, scale: to + 1 } : { coef: 5n * 10n ** BigInt(-to - 1), scale: 0 }
        const abs = (x: { coef: bigint; scale: number }) => ({ coef: x.coef < 0n ? -x.coef : x.coef, scale: x.scale })
        expect(compareExact(abs(diff(r)), half)).toBeLessThanOrEqual(0)
        const td = diff(t)
        expect(td.coef === 0n || td.coef < 0n === a.coef < 0n).toBe(true)
        if (to >= 0) expect(compareExact(abs(td), unit)).toBe(-1)
      }),
      runs(2000),
    )
  })
  it('sqrt is the correctly rounded root', () => {
    fc.assert(
      fc.property(decimal, (a) => {
        fc.pre(a.coef >= 0n)
        const r = parts(numericSqrt(value(a)))
        // (2r − 1)² ≤ 4a ≤ (2r + 1)² at scale 2·r.scale: the root is within half a unit
        const n = 4n * a.coef * 10n ** BigInt(2 * r.scale - a.scale)
        expect((2n * r.coef - 1n) ** 2n <= n || r.coef === 0n).toBe(true)
        expect(n <= (2n * r.coef + 1n) ** 2n).toBe(true)
      }),
      runs(1000),
    )
  })
  it('the text form is the decimal of coefficient and scale', () => {
    fc.assert(
      fc.property(decimal, (a) => {
        const text = numericText(value(a))
        const [whole, fraction = ''] = text.replace('-', '').split('.')
        expect(fraction.length).toBe(a.scale)
        expect(BigInt((a.coef < 0n ? '-' : '') + whole + fraction)).toBe(a.coef)
      }),
      runs(2000),
    )
  })
  it('equal values of different scales share a key, and differ in identity', () => {
    expect(new Numeric(250n, 2).hashKey).toBe(new Numeric(25n, 1).hashKey)
    expect(new Numeric(50n, 1).hashKey).toBe(5)
    expect(String(new Numeric(250n, 2))).not.toBe(String(new Numeric(25n, 1)))
  })
})

// ---- SUM and AVG in views

describe('SUM and AVG are exact in views', () => {
  const change = fc.record({ insert: fc.boolean(), value: edgy, group: fc.integer({ min: 0, max: 2 }) })
  it('over bigints near ±2^63, through inserts and deletes', () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 25 }), (changes) => {
        const db = Engine.open()
        db.execute('CREATE TABLE t (k INT PRIMARY KEY, g INT, v BIGINT)')
        db.execute('CREATE MATERIALIZED VIEW s AS SELECT g, sum(v) AS s, avg(v) AS a, count(*) AS n FROM t GROUP BY g')
        const live = new Map<number, { g: number; v: bigint }>()
        let next = 0
        for (const c of changes) {
          if (c.insert || live.size === 0) {
            live.set(next, { g: c.group, v: c.value })
            db.insert('t', [{ k: next++, g: c.group, v: c.value }])
          } else {
            const [k, row] = [...live.entries()][Number(c.value % BigInt(live.size) + BigInt(live.size)) % live.size]!
            live.delete(k)
            db.delete('t', [[k, row.g, row.v]])
          }
          const want = new Map<number, { s: bigint; n: number }>()
          for (const { g, v } of live.values()) {
            const w = want.get(g) ?? { s: 0n, n: 0 }
            w.s += v
            w.n++
            want.set(g, w)
          }
          const got = db.query('SELECT g, s, a, n FROM s').rows
          expect(got.length).toBe(want.size)
          for (const [g, s, a, n] of got) {
            const w = want.get(g as number)!
            expect(s).toBe(String(w.s))
            expect(n).toBe(w.n)
            // avg = s / n rounded half away from zero at the scale the text shows
            const text = a as string
            const scale = text.includes('.') ? text.split('.')[1]!.length : 0
            const q = BigInt(text.replace('.', ''))
            const num = w.s * 10n ** BigInt(scale)
            const d = BigInt(w.n)
            const r = num - q * d
            expect(2n * (r < 0n ? -r : r) <= d).toBe(true)
          }
        }
        db.close()
      }),
      runs(60),
    )
  })
  it('over numerics, with the largest scale of the values summed', () => {
    const numChange = fc.record({ insert: fc.boolean(), value: decimal, pick: fc.nat() })
    fc.assert(
      fc.property(fc.array(numChange, { minLength: 1, maxLength: 20 }), (changes) => {
        const db = Engine.open()
        db.execute('CREATE TABLE t (k INT PRIMARY KEY, v NUMERIC)')
        db.execute('CREATE MATERIALIZED VIEW s AS SELECT sum(v) AS s FROM t')
        const live = new Map<number, { coef: bigint; scale: number }>()
        let next = 0
        for (const c of changes) {
          if (c.insert || live.size === 0) {
            live.set(next, c.value)
            db.insert('t', [{ k: next++, v: numericText(value(c.value)) }])
          } else {
            const [k, v] = [...live.entries()][c.pick % live.size]!
            live.delete(k)
            db.delete('t', [[k, numericText(value(v))]])
          }
          const scale = Math.max(0, ...[...live.values()].map((v) => v.scale))
          let sum = 0n
          for (const v of live.values()) sum += v.coef * 10n ** BigInt(scale - v.scale)
          const want = live.size === 0 ? null : numericText(numericOf(sum, scale))
          expect(db.query('SELECT s FROM s').rows.map((r) => r[0])).toEqual(live.size === 0 ? [null] : [want])
        }
        db.close()
      }),
      runs(60),
    )
  })
})
