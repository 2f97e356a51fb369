// The NUMERIC overloads of the function library (ids `num_*`, `*_num`; see planner/expr/
// functions.ts): arithmetic and rounding from planner/numeric.ts, and the transcendental
// functions — exp, ln, log, and powers with a fractional exponent — to PostgreSQL's result
// scales. Those scales come from PostgreSQL's own estimates (16 significant digits, at least
// the inputs' scales); the digits are computed with decimal.js, a well-kept arbitrary-precision
// library whose exp/ln/pow are correctly rounded to the precision asked for, at ten digits more
// than the result keeps, then rounded half away from zero to the scale. (Integer powers and
// square roots are exact bigint arithmetic in planner/numeric.ts.)

import { Decimal } from 'decimal.js'
import { RivuletError, SqlState } from '../grammar/index.js'
import {
  NUMERIC_MAX_DISPLAY_SCALE,
  NUMERIC_MIN_SIG_DIGITS,
  numericAbs,
  numericAdd,
  numericCeil,
  numericCompare,
  numericDiv,
  numericDivInteger,
  numericFloor,
  numericIsIntegral,
  numericMinScale,
  numericMod,
  numericMul,
  numericNeg,
  numericPowerInteger,
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
  parseNumericText,
  type NumericValue,
} from '../planner/index.js'

function logError(message: string): RivuletError {
  return new RivuletError(SqlState.invalidArgumentForLogarithm, message)
}

function powerError(message: string): RivuletError {
  return new RivuletError(SqlState.invalidArgumentForPowerFunction, message)
}

/** Clamps a chosen result scale as PostgreSQL does (at least `floor`, at most 1000). */
function clampScale(rscale: number, ...atLeast: number[]): number {
  return Math.min(Math.max(rscale, ...atLeast, 0), NUMERIC_MAX_DISPLAY_SCALE)
}

/** decimal.js at enough precision for a result of about 10^weight with `rscale` decimals. */
function decimalFor(weight: number, rscale: number): typeof Decimal {
  const precision = Math.max(1, weight + 1) + Math.max(rscale, 0) + 10
  return Decimal.clone({ precision, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -9e15, toExpPos: 9e15, maxE: 9e15, minE: -9e15 })
}

/** A decimal.js value rounded half away from zero to `rscale` decimals, as a numeric. */
function fromDecimal(d: Decimal, rscale: number): NumericValue {
  if (!d.isFinite()) throw overflowNumeric()
  return parseNumericText(d.toFixed(rscale, Decimal.ROUND_HALF_UP))!
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
  // PostgreSQL reads the first two base-10000 digits; their double is as good here
  const ln = Math.log(x)
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

function toDecimal(D: typeof Decimal, v: NumericValue): Decimal {
  return new D(numericText(v))
}

function numericExp(v: NumericValue): NumericValue {
  if (v !== v || v === Infinity) return v
  if (v === -Infinity) return 0
  const x = numericToDouble(v)
  // log10(e^x) = x · log10(e): about the decimal weight of the result
  const weight = Math.max(-2000, Math.min(2000, x * 0.434294481903252))
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - Math.trunc(weight), numericScale(v))
  const D = decimalFor(Math.trunc(weight), rscale)
  // PostgreSQL's exp_var guard, before computing anything: |x| ≥ 3 · NUMERIC_MAX_RESULT_SCALE
  // overflows (or underflows to 0). Without it exp(2147483648::numeric) ran out of memory.
  if (Math.abs(x) >= 6000) {
    if (x > 0) throw overflowNumeric()
    return fromDecimal(new D(0), rscale)
  }
  return fromDecimal(toDecimal(D, v).exp(), rscale)
}

function checkLogArgument(v: NumericValue): void {
  const s = numericSign(v)
  if (s < 0) throw logError('cannot take logarithm of a negative number')
  if (s === 0) throw logError('cannot take logarithm of zero')
}

function numericLn(v: NumericValue): NumericValue {
  if (v === -Infinity) throw logError('cannot take logarithm of a negative number')
  if (v !== v || v === Infinity) return v
  checkLogArgument(v)
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - lnWeight(v), numericScale(v))
  const D = decimalFor(4, rscale)
  return fromDecimal(toDecimal(D, v).ln(), rscale)
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
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - (lnWeight(v) - lnWeight(base)), numericScale(base), numericScale(v))
  const D = decimalFor(8, rscale)
  const lnBase = toDecimal(D, base).ln()
  if (lnBase.isZero()) throw divisionByZero()
  return fromDecimal(toDecimal(D, v).ln().div(lnBase), rscale)
}

function divisionByZero(): RivuletError {
  return new RivuletError(SqlState.divisionByZero, 'division by zero')
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
  if (numericIsIntegral(b)) {
    const n = numericToInteger(b)!
    if (n >= -2147483648n && n <= 2147483647n) return numericPowerInteger(a, Number(n))
  }
  // a^b = exp(b · ln a): the decimal weight of the result decides the scale
  const weight = numericToDouble(b) * Math.log(numericToDouble(a)) * 0.434294481903252
  if (weight > 131072) throw overflowNumeric()
  const rscale = clampScale(NUMERIC_MIN_SIG_DIGITS - Math.trunc(Math.max(-2000, weight)), numericScale(a), numericScale(b))
  if (weight < -NUMERIC_MAX_DISPLAY_SCALE - 1) return numericWithScale(0, rscale)
  const D = decimalFor(Math.trunc(weight), rscale)
  return fromDecimal(toDecimal(D, a).pow(toDecimal(D, b)), rscale)
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
