// The NUMERIC overloads of the function library (ids `num_*`, `*_num`; see planner/expr/
// functions.ts): arithmetic and rounding from planner/numeric.ts, and the transcendental
// functions — exp, ln, log and powers — to PostgreSQL's result scales and limits. The scales
// come from PostgreSQL's own estimates (16 significant digits, at least the inputs' scales);
// the digits come from binary fixed point over BigInt (src/sql-runtime/fixed-point-math.ts) at twenty decimal
// digits more than the result keeps, rounded as PostgreSQL rounds (toScale: to 8 digits more,
// then to the scale). Integer
// powers whose exact value is small enough to build are exact.

import { RivuletError, SqlState } from '../../grammar/index.js'
import {
  NUMERIC_MAX_DISPLAY_SCALE,
  NUMERIC_MIN_SIG_DIGITS,
  numericAbs,
  numericAdd,
  numericCeil,
  numericCoef,
  numericCompare,
  numericDiv,
  numericDivInteger,
  numericFloor,
  numericIsIntegral,
  numericMinScale,
  numericMod,
  numericMul,
  numericNeg,
  numericOf,
  numericRound,
  numericScale,
  numericSign,
  numericSqrt,
  numericSub,
  numericText,
  numericToDouble,
  numericToInteger,
  numericWithScale,
  overflowNumeric,
  pow10,
  type NumericValue,
} from '../../planner/index.js'
import { bitLength, expFixed, lnFixed, powerFloat, roundedDivide, scaleBinary, toScale } from './fixed-point-math.js'

function logError(message: string): RivuletError {
  return new RivuletError(SqlState.invalidArgumentForLogarithm, message)
}

function powerError(message: string): RivuletError {
  return new RivuletError(SqlState.invalidArgumentForPowerFunction, message)
}

/** PostgreSQL refuses exp and power results beyond e^(3 · NUMERIC_MAX_RESULT_SCALE). */
const MAX_NATURAL_LOG = 6000
/** Decimal digits computed beyond those a result keeps (see toScale's rounding). */
const GUARD_DIGITS = 20
const LOG2_10 = Math.log2(10)
const LOG10_E = 0.434294481903252

/** Clamps a chosen result scale as PostgreSQL does (at least `floor`, at most 1000). */
function clampScale(rscale: number, ...atLeast: number[]): number {
  return Math.min(Math.max(rscale, ...atLeast, 0), NUMERIC_MAX_DISPLAY_SCALE)
}

/** Fraction bits that hold `digits` decimal digits and the guard digits. */
function bitsFor(digits: number): number {
  return Math.ceil((Math.max(digits, 1) + GUARD_DIGITS) * LOG2_10) + 8
}

/** A finite numeric as fixed point with F fraction bits. */
function toFixed(v: NumericValue, fractionBits: number): bigint {
  return roundedDivide(numericCoef(v) << BigInt(fractionBits), pow10(numericScale(v)))
}

/** ln |v| as a double, for finite v ≠ 0 of any size (estimates only). */
function approximateLn(v: NumericValue): number {
  const c = numericCoef(v)
  const length = bitLength(c)
  const shift = Math.max(0, length - 60)
  const leading = Math.abs(Number(c >> BigInt(shift)))
  return Math.log(leading) + shift * Math.LN2 - numericScale(v) * Math.LN10
}

/** PostgreSQL's estimate of the decimal weight of ln(v) for v > 0 (estimate_ln_dweight). */
function lnWeight(v: NumericValue): number {
  const x = numericToDouble(v)
  if (x >= 0.9 && x <= 1.1) {
    // ln(1 + y) ≈ y: the weight of y = v − 1
    const y = numericSub(v, 1)
    if (numericSign(y) === 0) return 0
    const text = numericText(numericAbs(y))
    return decimalExponent(text)
  }
  const ln = approximateLn(v)
  if (!Number.isFinite(ln) || ln === 0) return 0
  return Math.trunc(Math.log10(Math.abs(ln)))
}

/** The decimal exponent of the leading digit of a positive decimal text ('0.0012' → −3). */
function decimalExponent(text: string): number {
  const point = text.indexOf('.')
  const whole = point < 0 ? text : text.slice(0, point)
  if (whole !== '0') return whole.length - 1
  const fraction = text.slice(point + 1)
  return -(fraction.search(/[1-9]/) + 1)
}

/** round(e^(X / 2^F) · 10^rscale) as a numeric of scale rscale, negated when `negative`. */
function expToScale(x: bigint, fractionBits: number, rscale: number, negative = false): NumericValue {
  const { mantissa, exponent } = expFixed(x, fractionBits)
  const coef = scaleBinary(mantissa, exponent - fractionBits, rscale)
  return numericOf(negative ? -coef : coef, rscale)
}

function numericExp(v: NumericValue): NumericValue {
  if (v !== v || v === Infinity) return v
  if (v === -Infinity) return 0
  const x = numericToDouble(v)
  // log10(e^x) = x · log10(e): about the decimal weight of the result
  const weight = x * LOG10_E
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - Math.trunc(Math.max(-NUMERIC_MAX_DISPLAY_SCALE, Math.min(NUMERIC_MAX_DISPLAY_SCALE, weight))), numericScale(v))
  if (Math.abs(x) >= MAX_NATURAL_LOG) {
    if (x > 0) throw overflowNumeric()
    return numericWithScale(0, rscale)
  }
  const fractionBits = bitsFor(Math.trunc(weight) + 1 + rscale)
  return expToScale(toFixed(v, fractionBits), fractionBits, rscale)
}

function checkLogArgument(v: NumericValue): void {
  const s = numericSign(v)
  if (s < 0) throw logError('cannot take logarithm of a negative number')
  if (s === 0) throw logError('cannot take logarithm of zero')
}

/** ln(v) · 2^F for a finite v > 0. */
function lnOf(v: NumericValue, fractionBits: number): bigint {
  return lnFixed(numericCoef(v), numericScale(v), fractionBits)
}

function numericLn(v: NumericValue): NumericValue {
  if (v === -Infinity) throw logError('cannot take logarithm of a negative number')
  if (v !== v || v === Infinity) return v
  checkLogArgument(v)
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - lnWeight(v), numericScale(v))
  const fractionBits = bitsFor(rscale)
  return numericOf(toScale(lnOf(v, fractionBits), 1n << BigInt(fractionBits), rscale), rscale)
}

/** log(base, v). */
function numericLog(base: NumericValue, v: NumericValue): NumericValue {
  if (base !== base || v !== v) return NaN
  if (typeof base === 'number' && !Number.isFinite(base)) {
    if (base < 0) throw logError('cannot take logarithm of a negative number')
    checkLogArgument(v)
    return v === Infinity ? NaN : 0
  }
  checkLogArgument(base)
  if (typeof v === 'number' && !Number.isFinite(v)) {
    if (v < 0) throw logError('cannot take logarithm of a negative number')
    return Infinity
  }
  checkLogArgument(v)
  if (numericCompare(base, 1) === 0) throw divisionByZero()
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - (lnWeight(v) - lnWeight(base)), numericScale(base), numericScale(v))
  // ln v / ln base: an error δ in each logarithm moves the quotient by δ·(1 + |q|)/|ln base|,
  // so a base near 1 (a small ln base) needs that many more bits: measured on a first try
  const wanted = bitsFor(rscale)
  let fractionBits = wanted + 16
  let lnBase: bigint
  let lnV: bigint
  for (;;) {
    lnBase = lnOf(base, fractionBits)
    lnV = lnOf(v, fractionBits)
    const baseBits = bitLength(lnBase) - fractionBits
    const quotientBits = Math.max(0, bitLength(lnV) - bitLength(lnBase)) + 1
    const needed = wanted + Math.max(0, -baseBits) + quotientBits + 8
    if (lnBase !== 0n && needed <= fractionBits) break
    fractionBits = lnBase === 0n ? fractionBits * 2 : needed
  }
  if (lnBase < 0n) {
    lnBase = -lnBase
    lnV = -lnV
  }
  return numericOf(toScale(lnV, lnBase, rscale), rscale)
}

function divisionByZero(): RivuletError {
  return new RivuletError(SqlState.divisionByZero, 'division by zero')
}

/** The largest exact integer power built as a bigint, in bits of its numerator or denominator. */
const EXACT_POWER_BITS = 1 << 17

/** a ^ n for an integer n (PostgreSQL's power_var_int): 16 decimals at least. */
function numericPowerInteger(a: NumericValue, n: number): NumericValue {
  const c = numericCoef(a)
  const s = numericScale(a)
  if (c === 0n) {
    if (n < 0) throw powerError('zero raised to a negative power is undefined')
    return n === 0 ? 1 : 0
  }
  const rscale = clampScale(Math.max(NUMERIC_MIN_SIG_DIGITS, s))
  if (n === 0) return numericOf(pow10(rscale), rscale)
  // the decimal weight of the result decides overflow and the digits to compute
  const weight = n * (approximateLn(a) / Math.LN10)
  if (weight > 131072) throw overflowNumeric()
  if (weight + 1 < -rscale - 1) return numericWithScale(0, rscale)
  const negative = c < 0n && n % 2 !== 0
  if (Math.abs(n) * Math.max(bitLength(c), s * LOG2_10) <= EXACT_POWER_BITS) {
    const e = BigInt(Math.abs(n))
    const num = c ** e
    const den = pow10(s * Math.abs(n))
    // a^n = num / den, or den / num for n < 0; then to rscale decimals
    if (n > 0) return numericOf(roundedDivide(num * pow10(rscale), den), rscale)
    return numericOf(num < 0n ? -roundedDivide(den * pow10(rscale), -num) : roundedDivide(den * pow10(rscale), num), rscale)
  }
  // too big to build exactly: binary floating point with the bits the result's digits need
  const { mantissa, exponent } = powerFloat(absolute(c), s, Math.abs(n), bitsFor(Math.max(0, Math.trunc(weight)) + 1 + rscale))
  const coef =
    n > 0
      ? scaleBinary(mantissa, exponent, rscale)
      : exponent <= 0
        ? toScale(1n << BigInt(-exponent), mantissa, rscale)
        : toScale(1n, mantissa << BigInt(exponent), rscale)
  return numericOf(negative ? -coef : coef, rscale)
}

function absolute(c: bigint): bigint {
  return c < 0n ? -c : c
}

/** |a|^b = e^(b · ln |a|) to rscale decimals (b an exact numeric), negated when `negative`. */
function powerByLogarithm(a: NumericValue, b: NumericValue, weight: number, rscale: number, negative: boolean): NumericValue {
  const fractionBits = bitsFor(Math.trunc(weight) + 1 + rscale)
  // b · ln a to F fraction bits needs ln a to F + log2 |b| bits
  const extra = Math.ceil(Math.log2(Math.abs(numericToDouble(b)) + 1)) + 8
  const lnA = lnOf(a, fractionBits + extra)
  const product = roundedDivide(lnA * numericCoef(b), pow10(numericScale(b))) >> BigInt(extra)
  return expToScale(product, fractionBits, rscale, negative)
}

/** a ^ b with PostgreSQL's rules for NaN, infinities, zero and negative bases. */
function numericPower(a: NumericValue, b: NumericValue): NumericValue {
  const sa = numericSign(a)
  const sb = numericSign(b)
  if (a !== a) return sb === 0 && b === b ? 1 : NaN
  if (b !== b) return numericCompare(a, 1) === 0 ? 1 : NaN
  if (sa === 0 && sb < 0) throw powerError('zero raised to a negative power is undefined')
  if (sa < 0 && !numericIsIntegral(b) && !(typeof b === 'number' && !Number.isFinite(b))) {
    throw powerError('a negative number raised to a non-integer power yields a complex result')
  }
  const infiniteA = typeof a === 'number' && !Number.isFinite(a)
  const infiniteB = typeof b === 'number' && !Number.isFinite(b)
  if (infiniteA || infiniteB) {
    if (!infiniteA && numericCompare(a, 1) === 0) return 1
    if (sb === 0) return 1
    if (sa === 0) return 0
    if (infiniteB) {
      if (!infiniteA && numericCompare(a, -1) === 0) return 1
      const absAboveOne = infiniteA || numericCompare(numericAbs(a), 1) > 0
      return absAboveOne === sb > 0 ? Infinity : 0
    }
    if (a === Infinity) return sb > 0 ? Infinity : 0
    // a = −Infinity, b finite
    if (sb < 0) return 0
    const odd = numericIsIntegral(b) && numericToInteger(b)! % 2n !== 0n
    return odd ? -Infinity : Infinity
  }
  const integral = numericIsIntegral(b)
  if (integral) {
    const n = numericToInteger(b)!
    if (n >= -2147483648n && n <= 2147483647n) return numericPowerInteger(a, Number(n))
  }
  if (sa === 0) return numericWithScale(0, clampScale(NUMERIC_MIN_SIG_DIGITS, numericScale(a), numericScale(b)))
  // a negative base has an integral exponent here: its parity gives the sign
  const negative = sa < 0 && numericToInteger(b)! % 2n !== 0n
  const lnResult = numericToDouble(b) * approximateLn(a)
  if (!Number.isFinite(lnResult) || Math.abs(lnResult) > MAX_NATURAL_LOG * 1.0033) {
    if (lnResult > 0) throw overflowNumeric()
    return numericWithScale(0, NUMERIC_MAX_DISPLAY_SCALE)
  }
  const weight = lnResult * LOG10_E
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - Math.trunc(weight), numericScale(a), numericScale(b))
  return powerByLogarithm(numericAbs(a), b, weight, rscale, negative)
}

type NumericFn = (...args: never[]) => unknown

export const NUMERIC_FUNCTIONS: Readonly<Record<string, NumericFn>> = {
  num_add: numericAdd,
  num_sub: numericSub,
  num_mul: numericMul,
  num_div: numericDiv,
  num_mod: numericMod,
  num_neg: numericNeg,
  num_pos: (a: NumericValue) => a,
  num_abs: numericAbs,
  num_pow: numericPower,
  div_num: numericDivInteger,
  ceil_num: numericCeil,
  floor_num: numericFloor,
  round_num: (x: NumericValue) => numericRound(x, 0),
  round_num_int: (x: NumericValue, s: number) => numericRound(x, s),
  trunc_num: (x: NumericValue) => numericRound(x, 0, true),
  trunc_num_int: (x: NumericValue, s: number) => numericRound(x, s, true),
  sign_num: numericSign,
  sqrt_num: numericSqrt,
  exp_num: numericExp,
  ln_num: numericLn,
  log10_num: (x: NumericValue) => numericLog(10, x),
  log_num_num: numericLog,
  scale: (x: NumericValue) => (typeof x === 'number' && !Number.isFinite(x) ? null : numericScale(x)),
  min_scale: (x: NumericValue) => (typeof x === 'number' && !Number.isFinite(x) ? null : numericMinScale(x)),
  trim_scale: (x: NumericValue) => numericWithScale(x, numericMinScale(x)),
}
