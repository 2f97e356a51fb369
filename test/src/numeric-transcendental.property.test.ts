// exp, ln, log and power of NUMERIC values (binary fixed point over BigInt, src/fixed-point-
// math.ts) against decimal.js, a plain arbitrary-precision decimal library, asked for far more
// digits than the result keeps and rounded to the same scale the way PostgreSQL rounds (half
// away from zero to 8 more digits, then to the scale). The scale
// itself is PostgreSQL's (checked against PostgreSQL 15 in sqllogictest/test/types/
// numeric_transcendental.slt); here both sides use the scale the engine chose, so this proves
// the digits.

import { Decimal } from 'decimal.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { numericScale, numericText, parseNumericText, type NumericValue } from '../../planner/index.js'
import { NUMERIC_FUNCTIONS } from '../../src/sql-runtime/numeric-functions.js'

const SEED = process.env.RIVULET_SEED === undefined ? undefined : Number(process.env.RIVULET_SEED)
const runs = (n: number) => ({ numRuns: n, ...(SEED !== undefined ? { seed: SEED } : {}) })

type Unary = (x: NumericValue) => NumericValue
type Binary = (x: NumericValue, y: NumericValue) => NumericValue
const exp = NUMERIC_FUNCTIONS.exp_num as Unary
const ln = NUMERIC_FUNCTIONS.ln_num as Unary
const log = NUMERIC_FUNCTIONS.log_num_num as Binary
const power = NUMERIC_FUNCTIONS.num_pow as Binary
const sqrt = NUMERIC_FUNCTIONS.sqrt_num as Unary

/** decimal.js with `digits` significant digits. */
function decimals(digits: number): typeof Decimal {
  return Decimal.clone({ precision: digits, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -9e15, toExpPos: 9e15 })
}

/** The reference digits at the scale the engine chose. */
function reference(result: NumericValue, compute: (D: typeof Decimal) => Decimal): string {
  const scale = numericScale(result)
  // enough significant digits for the integer part, the scale and 30 guard digits
  const integerDigits = numericText(result).replace('-', '').split('.')[0]!.length
  const D = decimals(integerDigits + scale + 30)
  // rounded as PostgreSQL rounds: to 8 more digits, then to the scale
  const fine = compute(D).toFixed(scale + 8, Decimal.ROUND_HALF_UP)
  return numericText(parseNumericText(new D(fine).toFixed(scale, Decimal.ROUND_HALF_UP))!)
}

/** Decimal texts: mantissas of up to 12 digits, scales 0..12, some near 1. */
const decimalText = fc.oneof(
  fc.tuple(fc.bigInt({ min: 1n, max: 999_999_999_999n }), fc.integer({ min: 0, max: 12 })).map(([c, s]) => numericText(parseNumericText(`${c}e-${s}`)!)),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 3, max: 30 }), fc.boolean()).map(([d, k, below]) => (below ? `0.${'9'.repeat(k)}${d}` : `1.${'0'.repeat(k)}${d}`)),
)
const value = (text: string): NumericValue => parseNumericText(text)!

describe('NUMERIC exp, ln, log and power', () => {
  it('exp gives the reference digits', () => {
    fc.assert(
      fc.property(decimalText, fc.boolean(), fc.integer({ min: 0, max: 3 }), (t, negative, magnitude) => {
        const text = `${negative ? '-' : ''}${t}`
        const x = value(`${text}e${magnitude}`)
        if (Math.abs(Number(numericText(x))) >= 6000) return
        const result = exp(x)
        expect(numericText(result)).toBe(reference(result, (D) => new D(numericText(x)).exp()))
      }),
      runs(300),
    )
  })

  it('ln and log give the reference digits', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (a, b) => {
        const x = value(a)
        const base = value(b)
        const r = ln(x)
        expect(numericText(r)).toBe(reference(r, (D) => new D(a).ln()))
        if (Number(b) === 1) return
        const q = log(base, x)
        expect(numericText(q)).toBe(reference(q, (D) => new D(a).ln().div(new D(b).ln())))
      }),
      runs(300),
    )
  })

  it('power gives the reference digits, for integer and fractional exponents', () => {
    fc.assert(
      fc.property(decimalText, fc.oneof(decimalText, fc.integer({ min: -400, max: 400 }).map(String)), fc.boolean(), (a, b, negativeExponent) => {
        const x = value(a)
        const y = value(negativeExponent && !b.startsWith('-') ? `-${b}` : b)
        if (Math.abs(Number(numericText(y)) * Math.log(Number(a))) > 2000) return
        const r = power(x, y)
        expect(numericText(r)).toBe(reference(r, (D) => new D(a).pow(new D(numericText(y)))))
      }),
      runs(300),
    )
  })

  it('sqrt of values of up to thousands of digits gives the reference digits', () => {
    // the integer square root behind it once walked one by one from a double's estimate
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 40n }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 }), (c, zeros, scale) => {
        const x = value(numericText(parseNumericText(`${c}${'0'.repeat(zeros)}e-${scale}`)!))
        const r = sqrt(x)
        const scaleOf = numericScale(r)
        const D = decimals(numericText(r).split('.')[0]!.length + scaleOf + 30)
        // the square root is exact, so one rounding is PostgreSQL's too
        expect(numericText(r)).toBe(numericText(parseNumericText(new D(numericText(x)).sqrt().toFixed(scaleOf, Decimal.ROUND_HALF_UP))!))
      }),
      runs(100),
    )
  })

  it('keeps the exact digits of huge integer powers computed through logarithms', () => {
    // 3^70000 is too big to build exactly within the limit, so it goes through e^(n ln 3);
    // all its 33,398 digits and its rounding to 16 decimals must still be exact
    expect(numericText(power(value('3'), value('70000')))).toBe(`${3n ** 70000n}.${'0'.repeat(16)}`)
    expect(numericText(power(value('-3'), value('70001')))).toBe(`-${3n ** 70001n}.${'0'.repeat(16)}`)
  })
})
