// NUMERIC values: exact decimals of arbitrary precision with a display scale, as PostgreSQL's
// numeric (15). At run time a NUMERIC value is one of
//   - a JS number: an integer of display scale 0 within ±(2^53 − 1), or NaN / ±Infinity — the
//     common case (integers widened to numeric, sums of integers, EXTRACT's whole fields), where
//     arithmetic and comparison stay on plain numbers;
//   - a `Numeric`: a coefficient and a scale ≥ 0, value = coef × 10^−scale, for every other
//     finite value. The scale is the display scale (2.50 has coef 250, scale 2). The coefficient
//     is a JS number while it is within ±(2^53 − 1) — Nexmark's 0.908 × price is — and a bigint
//     beyond.
// `numericOf` keeps both forms canonical: a value that fits a number never is a Numeric, and a
// coefficient that fits a number never is a bigint, so two integers of scale 0 are equal
// exactly when they are `===`. Equal values of different scales (2.5 and 2.50) are distinct
// objects; `hashKey` is their common identity for grouping and joins. Every operation takes
// the number path when its operands' coefficients are numbers and each intermediate result is
// a safe integer (then doubles compute it exactly), and redoes the work with bigints otherwise.
//
// The result scales are PostgreSQL's: + and − the larger scale, × the sum of scales, / at
// least 16 significant digits (select_div_scale), rounding half away from zero. Values are
// limited as PostgreSQL limits them: 131072 digits before the point, 16383 after.
// Arithmetic lives here (the planner binds literals to these values; src/ evaluates them); the
// transcendental functions (exp, ln, power with a fractional exponent) are in src/.

import { RivuletError, SqlState } from '../grammar/index.js'

const MAX_SAFE = Number.MAX_SAFE_INTEGER
const MAX_SAFE_BIG = BigInt(MAX_SAFE)
/** Digits before the decimal point PostgreSQL can store. */
const MAX_INTEGER_DIGITS = 131072
/** Display scale PostgreSQL can store. */
export const NUMERIC_MAX_SCALE = 16383
/** PostgreSQL's cap on the scale a function chooses for its result. */
export const NUMERIC_MAX_DISPLAY_SCALE = 1000
/** Significant digits division and the functions aim for (as float8 has). */
export const NUMERIC_MIN_SIG_DIGITS = 16

/** A coefficient: a JS number within ±(2^53 − 1), a bigint beyond. */
type Coef = number | bigint

export class Numeric {
  constructor(
    readonly coef: Coef,
    readonly scale: number,
  ) {}

  /** The identity of the value whatever its scale: a number for integers (the same key a
   *  canonical number has), else a string of the stripped decimal. */
  get hashKey(): number | string {
    let c = this.coef
    let s = this.scale
    if (typeof c === 'number') {
      while (s > 0 && c % 10 === 0) {
        c /= 10
        s--
      }
      return s === 0 ? c + 0 : `\u0000N${c}e${s}`
    }
    while (s > 0 && c % 10n === 0n) {
      c /= 10n
      s--
    }
    if (s === 0 && c >= -MAX_SAFE_BIG && c <= MAX_SAFE_BIG) return Number(c)
    return `\u0000N${c}e${s}`
  }

  toString(): string {
    return numericText(this)
  }
}

export type NumericValue = number | Numeric

export function isNumeric(v: unknown): v is Numeric {
  return v instanceof Numeric
}

export function overflowNumeric(): RivuletError {
  return new RivuletError(SqlState.numericValueOutOfRange, 'value overflows numeric format')
}

// ---------------------------------------------------------------------------------- powers of ten

const POW10: bigint[] = []
for (let i = 0, p = 1n; i <= 64; i++, p *= 10n) POW10.push(p)

export function pow10(k: number): bigint {
  return k < POW10.length ? POW10[k]! : 10n ** BigInt(k)
}

/** 10^k as a double, exact for k ≤ 22. */
const POW10_NUMBER = Array.from({ length: 23 }, (_, k) => 10 ** k)

function digitCount(c: Coef): number {
  if (typeof c === 'number') {
    const a = Math.abs(c)
    let n = 1
    while (n < 16 && a >= POW10_NUMBER[n]!) n++
    return n
  }
  if (c < 0n) c = -c
  return c.toString().length
}

function big(c: Coef): bigint {
  return typeof c === 'bigint' ? c : BigInt(c)
}

/** c × 10^k exactly, as a number when that is a safe integer. */
function timesPow10(c: Coef, k: number): Coef {
  if (k === 0) return c
  if (typeof c === 'number' && k <= 15) {
    const r = c * POW10_NUMBER[k]!
    if (Number.isSafeInteger(r)) return r
  }
  return big(c) * pow10(k)
}

// ---------------------------------------------------------------------------------- construction

/** The canonical value of coef × 10^−scale (scale ≥ 0), checked against the limits. */
export function numericOf(coef: Coef, scale: number): NumericValue {
  if (typeof coef === 'bigint') {
    if (coef >= -MAX_SAFE_BIG && coef <= MAX_SAFE_BIG) coef = Number(coef)
    else if (digitCount(coef) - scale > MAX_INTEGER_DIGITS) throw overflowNumeric()
  }
  if (scale === 0 && typeof coef === 'number') return coef + 0
  if (scale > NUMERIC_MAX_SCALE) throw overflowNumeric()
  return new Numeric(typeof coef === 'number' ? coef + 0 : coef, scale)
}

function coefOf(v: NumericValue): Coef {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new RivuletError(SqlState.internalError, `internal error: ${v} is not a canonical numeric value`)
    return v
  }
  return v.coef
}

function scaleOf(v: NumericValue): number {
  return typeof v === 'number' ? 0 : v.scale
}

function isSpecial(v: NumericValue): v is number {
  return typeof v === 'number' && !Number.isFinite(v)
}

/** The display scale of a value (0 for NaN and the infinities). */
export function numericScale(v: NumericValue): number {
  return scaleOf(v)
}

/** The coefficient of a finite value as a bigint (value = coef × 10^−scale). */
export function numericCoef(v: NumericValue): bigint {
  return big(coefOf(v))
}

/** An exact integer (number or bigint) as a numeric of scale 0. */
export function numericFromInteger(v: number | bigint): NumericValue {
  return typeof v === 'number' ? (Number.isSafeInteger(v) ? v + 0 : numericOf(BigInt(v), 0)) : numericOf(v, 0)
}

/** A double as PostgreSQL converts it (float8 → numeric): through its text with `digits`
 *  significant digits (15 for double, 6 for real), trailing zeros dropped. */
export function numericFromDouble(x: number, digits: number): NumericValue {
  if (!Number.isFinite(x)) return x
  if (x === 0) return 0
  let text = x.toPrecision(digits)
  // %g drops trailing zeros of the fraction
  const e = text.search(/e/i)
  let mantissa = e < 0 ? text : text.slice(0, e)
  const exponent = e < 0 ? '' : text.slice(e)
  if (mantissa.includes('.')) mantissa = mantissa.replace(/0+$/, '').replace(/\.$/, '')
  text = mantissa + exponent
  return parseNumericText(text)!
}

const NUMERIC_SYNTAX = /^\s*([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?\s*$/

/** 'NaN', 'Infinity', 'inf' and their signed forms (any case, blanks around), as numeric_in
 *  and float8in read them; undefined for any other text. */
export function parseSpecialNumber(text: string): number | undefined {
  switch (text.trim().toLowerCase()) {
    case 'nan':
      return NaN
    case 'infinity':
    case '+infinity':
    case 'inf':
    case '+inf':
      return Infinity
    case '-infinity':
    case '-inf':
      return -Infinity
    default:
      return undefined
  }
}

/** numeric_in: the value of a decimal text ('1.50', '-.5', '1e3', 'NaN', 'Infinity'), or
 *  undefined when it is not valid input. Overflow raises 22003. */
export function parseNumericText(text: string): NumericValue | undefined {
  const m = NUMERIC_SYNTAX.exec(text)
  if (m === null) return parseSpecialNumber(text)
  const whole = m[2] ?? ''
  const fraction = m[3] ?? m[4] ?? ''
  let exponent = 0
  if (m[5] !== undefined) {
    // PostgreSQL takes any exponent the result's digits fit (131072 before the point, 16383
    // after); one this large can only overflow, and must not build its power of ten
    exponent = Number(m[5])
    if (!(Math.abs(exponent) < 1073741823)) throw overflowNumeric()
  }
  const digits = (whole + fraction).replace(/^0+(?=\d)/, '')
  let scale = fraction.length - exponent
  if (scale > NUMERIC_MAX_SCALE) throw overflowNumeric()
  if (/^0*$/.test(digits)) return numericOf(0, Math.max(scale, 0))
  if (digits.length - scale > MAX_INTEGER_DIGITS) throw overflowNumeric()
  let coef: Coef = digits.length <= 15 ? Number(digits) : BigInt(digits)
  if (scale < 0) {
    coef = timesPow10(coef, -scale)
    scale = 0
  }
  if (m[1] === '-') coef = -coef
  return numericOf(coef, scale)
}

/** numeric_out: plain positional notation with the display scale, never an exponent. */
export function numericText(v: NumericValue): string {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN'
    if (v === Infinity) return 'Infinity'
    if (v === -Infinity) return '-Infinity'
    return String(v + 0)
  }
  const c = v.coef
  const neg = c < 0
  const digits = typeof c === 'number' ? String(neg ? -c : c) : (neg ? -c : c).toString()
  const s = v.scale
  let body: string
  if (s === 0) body = digits
  else if (digits.length > s) body = `${digits.slice(0, digits.length - s)}.${digits.slice(digits.length - s)}`
  else body = `0.${'0'.repeat(s - digits.length)}${digits}`
  return neg ? '-' + body : body
}

/** numeric → double precision: the correctly rounded double of the decimal. */
export function numericToDouble(v: NumericValue): number {
  if (typeof v === 'number') return v
  // a coefficient and a power of ten that are both exact doubles divide correctly rounded
  if (typeof v.coef === 'number' && v.scale <= 22) return v.coef / POW10_NUMBER[v.scale]!
  return Number(numericText(v))
}

/** Rounds to an integer, half away from zero (numeric → integer casts); undefined for NaN
 *  and the infinities. */
export function numericToInteger(v: NumericValue): bigint | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(v) : undefined
  return big(roundCoef(v.coef, v.scale, 0, false))
}

// ---------------------------------------------------------------------------------- comparison

/** Total order: NaN above everything and equal to itself, −Infinity < finite < Infinity. */
export function numericCompare(a: NumericValue, b: NumericValue): number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (a < b) return -1
    if (a > b) return 1
    if (a === b) return 0
    return a !== a ? (b !== b ? 0 : 1) : -1
  }
  if (isSpecial(a)) return a !== a ? 1 : a > 0 ? 1 : -1
  if (isSpecial(b)) return b !== b ? -1 : b > 0 ? -1 : 1
  const sa = scaleOf(a)
  const sb = scaleOf(b)
  const s = sa > sb ? sa : sb
  const x = timesPow10(coefOf(a), s - sa)
  const y = timesPow10(coefOf(b), s - sb)
  return x < y ? -1 : x > y ? 1 : 0
}

export function numericSign(v: NumericValue): number {
  if (typeof v === 'number') return v !== v ? NaN : v > 0 ? 1 : v < 0 ? -1 : 0
  return v.coef > 0 ? 1 : v.coef < 0 ? -1 : 0
}

// ---------------------------------------------------------------------------------- arithmetic

/** ca·10^(s−sa) ± cb·10^(s−sb) at scale s = max(sa, sb). */
function alignedSum(ca: Coef, sa: number, cb: Coef, sb: number, sign: 1 | -1): NumericValue {
  const s = sa > sb ? sa : sb
  const x = timesPow10(ca, s - sa)
  const y = timesPow10(cb, s - sb)
  if (typeof x === 'number' && typeof y === 'number') {
    const r = sign === 1 ? x + y : x - y
    if (Number.isSafeInteger(r)) return numericOf(r, s)
  }
  return numericOf(sign === 1 ? big(x) + big(y) : big(x) - big(y), s)
}

export function numericAdd(a: NumericValue, b: NumericValue): NumericValue {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b
    if (Number.isSafeInteger(r) || !Number.isFinite(a) || !Number.isFinite(b)) return r + 0
  } else if (isSpecial(a) || isSpecial(b)) {
    return specialSum(a, b, 1)
  }
  return alignedSum(coefOf(a), scaleOf(a), coefOf(b), scaleOf(b), 1)
}

export function numericSub(a: NumericValue, b: NumericValue): NumericValue {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b
    if (Number.isSafeInteger(r) || !Number.isFinite(a) || !Number.isFinite(b)) return r + 0
  } else if (isSpecial(a) || isSpecial(b)) {
    return specialSum(a, b, -1)
  }
  return alignedSum(coefOf(a), scaleOf(a), coefOf(b), scaleOf(b), -1)
}

/** a ± b when one of them is NaN or infinite (the finite one only counts for its sign). */
function specialSum(a: NumericValue, b: NumericValue, sign: 1 | -1): number {
  const x = typeof a === 'number' ? a : 0
  const y = typeof b === 'number' ? b : 0
  return sign === 1 ? x + y : x - y
}

export function numericMul(a: NumericValue, b: NumericValue): NumericValue {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b
    if (Number.isSafeInteger(r) || !Number.isFinite(a) || !Number.isFinite(b)) return r + 0
  } else if (isSpecial(a) || isSpecial(b)) {
    // Infinity × 0 is NaN; otherwise the signs multiply
    return numericSign(a) * numericSign(b) * Infinity
  }
  const ca = coefOf(a)
  const cb = coefOf(b)
  const s = scaleOf(a) + scaleOf(b)
  if (typeof ca === 'number' && typeof cb === 'number') {
    // a true product within ±(2^53 − 1) is exact; a larger one rounds to ≥ 2^53
    const r = ca * cb
    if (Number.isSafeInteger(r)) return numericOf(r, s)
  }
  return numericOf(big(ca) * big(cb), s)
}

function divisionByZero(): RivuletError {
  return new RivuletError(SqlState.divisionByZero, 'division by zero')
}

/** The weight (in base-10000 digits) and first base-10000 digit of a finite value, as
 *  PostgreSQL's digit arrays have them (zero: 0 and 0). */
function baseWeight(coef: Coef, scale: number): [number, number] {
  if (coef === 0 || coef === 0n) return [0, 0]
  const c = big(coef < 0 ? -coef : coef)
  const exp = digitCount(c) - 1 - scale // the value lies in [10^exp, 10^(exp+1))
  const weight = Math.floor(exp / 4)
  const shift = scale + 4 * weight
  const first = shift >= 0 ? c / pow10(shift) : c * pow10(-shift)
  return [weight, Number(first)]
}

/** select_div_scale: enough decimals for 16 significant digits, at least either scale. */
function divisionScale(ca: Coef, sa: number, cb: Coef, sb: number): number {
  const [w1, d1] = baseWeight(ca, sa)
  const [w2, d2] = baseWeight(cb, sb)
  let qweight = w1 - w2
  if (d1 <= d2) qweight--
  const rscale = Math.max(NUMERIC_MIN_SIG_DIGITS - qweight * 4, sa, sb, 0)
  return Math.min(rscale, NUMERIC_MAX_DISPLAY_SCALE)
}

/** n / d rounded half away from zero. */
function roundedQuotient(n: bigint, d: bigint): bigint {
  const q = n / d
  const r = n % d
  if (r === 0n) return q
  const twice = (r < 0n ? -r : r) * 2n
  if (twice < (d < 0n ? -d : d)) return q
  return (n < 0n) !== (d < 0n) ? q - 1n : q + 1n
}

export function numericDiv(a: NumericValue, b: NumericValue): NumericValue {
  if (isSpecial(a) || isSpecial(b)) {
    if (a !== a || b !== b) return NaN
    if (isSpecial(a)) {
      if (isSpecial(b)) return NaN
      const s = numericSign(b)
      if (s === 0) throw divisionByZero()
      return a * s
    }
    return 0 // finite / ±Infinity
  }
  const ca = coefOf(a)
  const cb = coefOf(b)
  if (cb === 0 || cb === 0n) throw divisionByZero()
  const sa = scaleOf(a)
  const sb = scaleOf(b)
  const rscale = divisionScale(ca, sa, cb, sb)
  // a/b · 10^rscale = ca · 10^(sb + rscale) / (cb · 10^sa)
  return numericOf(roundedQuotient(big(ca) * pow10(sb + rscale), big(cb) * pow10(sa)), rscale)
}

/** div(a, b): the integer part of a / b (truncated), scale 0. */
export function numericDivInteger(a: NumericValue, b: NumericValue): NumericValue {
  if (isSpecial(a) || isSpecial(b)) {
    if (a !== a || b !== b) return NaN
    if (isSpecial(a)) {
      if (isSpecial(b)) return NaN
      const s = numericSign(b)
      if (s === 0) throw divisionByZero()
      return a * s
    }
    return 0
  }
  const cb = coefOf(b)
  if (cb === 0 || cb === 0n) throw divisionByZero()
  return numericOf((big(coefOf(a)) * pow10(scaleOf(b))) / (big(cb) * pow10(scaleOf(a))), 0)
}

/** a % b: a − trunc(a / b) · b, the sign of a, at the larger scale. */
export function numericMod(a: NumericValue, b: NumericValue): NumericValue {
  if (typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b)) {
    if (b === 0) throw divisionByZero()
    return (a % b) + 0
  }
  if (isSpecial(a) || isSpecial(b)) {
    if (a !== a || b !== b) return NaN
    if (isSpecial(a)) {
      if (numericSign(b) === 0) throw divisionByZero()
      return NaN
    }
    return a // finite % ±Infinity
  }
  const cb = coefOf(b)
  if (cb === 0 || cb === 0n) throw divisionByZero()
  const sa = scaleOf(a)
  const sb = scaleOf(b)
  const s = Math.max(sa, sb)
  const x = timesPow10(coefOf(a), s - sa)
  const y = timesPow10(cb, s - sb)
  // % of exact doubles is exact
  if (typeof x === 'number' && typeof y === 'number') return numericOf((x % y) + 0, s)
  return numericOf(big(x) % big(y), s)
}

export function numericNeg(v: NumericValue): NumericValue {
  return typeof v === 'number' ? -v + 0 : new Numeric(typeof v.coef === 'number' ? -v.coef + 0 : -v.coef, v.scale)
}

export function numericAbs(v: NumericValue): NumericValue {
  return typeof v === 'number' ? Math.abs(v) : v.coef < 0 ? numericNeg(v) : v
}

// ---------------------------------------------------------------------------------- rounding

/** coef × 10^−scale rounded (half away from zero) or truncated to `to` decimals (to may be
 *  negative: tens, hundreds …), as a coefficient at scale max(to, 0). */
function roundCoef(coef: Coef, scale: number, to: number, truncate: boolean): Coef {
  if (to >= scale) return timesPow10(coef, to - scale)
  const k = scale - to
  let q: Coef
  if (typeof coef === 'number' && k <= 22) {
    // c / 10^k of a safe c truncates to the exact integer quotient; the remainder is exact
    const d = POW10_NUMBER[k]!
    const t = Math.trunc(coef / d)
    const r = coef - t * d
    q = truncate || 2 * Math.abs(r) < d ? t : t + Math.sign(coef)
  } else if (k > digitCount(coef)) {
    // the rounding digit is left of every digit: |value| < half a unit of the result
    q = 0
  } else {
    const d = pow10(k)
    q = truncate ? big(coef) / d : roundedQuotient(big(coef), d)
  }
  return to < 0 && q !== 0 && q !== 0n ? timesPow10(q, -to) : q
}

/** round(v, s) / trunc(v, s): PostgreSQL keeps s decimals in the display (none when s < 0). */
export function numericRound(v: NumericValue, s: number, truncate = false): NumericValue {
  if (isSpecial(v)) return v
  // PostgreSQL limits the requested scale to the digits a numeric can have on either side
  s = Math.max(-MAX_INTEGER_DIGITS, Math.min(NUMERIC_MAX_SCALE, s))
  return numericOf(roundCoef(coefOf(v), scaleOf(v), s, truncate), Math.max(s, 0))
}

export function numericCeil(v: NumericValue): NumericValue {
  if (typeof v === 'number') return v
  const t = roundCoef(v.coef, v.scale, 0, true)
  const exact = numericCompare(numericOf(t, 0), v) === 0
  return exact || v.coef < 0 ? numericOf(t, 0) : numericAdd(numericOf(t, 0), 1)
}

export function numericFloor(v: NumericValue): NumericValue {
  if (typeof v === 'number') return v
  const t = roundCoef(v.coef, v.scale, 0, true)
  const exact = numericCompare(numericOf(t, 0), v) === 0
  return exact || v.coef > 0 ? numericOf(t, 0) : numericSub(numericOf(t, 0), 1)
}

/** The least scale that represents the value exactly (min_scale). */
export function numericMinScale(v: NumericValue): number {
  if (typeof v === 'number') return 0
  let c = big(v.coef)
  let s = v.scale
  while (s > 0 && c % 10n === 0n) {
    c /= 10n
    s--
  }
  return s
}

/** The value at another display scale, exactly (the caller knows no digit is lost). */
export function numericWithScale(v: NumericValue, scale: number): NumericValue {
  if (isSpecial(v)) return v
  const c = coefOf(v)
  const s = scaleOf(v)
  return numericOf(scale >= s ? timesPow10(c, scale - s) : big(c) / pow10(s - scale), scale)
}

/** NUMERIC(precision, scale): rounds to the scale, then refuses values with more than
 *  precision − scale digits before the point (22003 "numeric field overflow"). */
export function applyNumericTypmod(v: NumericValue, precision: number, scale: number): NumericValue {
  if (v !== v) return v
  if (isSpecial(v)) throw new RivuletError(SqlState.numericValueOutOfRange, 'numeric field overflow', undefined, `A field with precision ${precision}, scale ${scale} cannot hold an infinite value.`)
  const rounded = roundCoef(coefOf(v), scaleOf(v), scale, false)
  const resultScale = Math.max(scale, 0)
  // the rounded value must be below 10^(precision − scale) in magnitude, its coefficient below
  // 10^(precision − scale + resultScale)
  const limitDigits = precision - scale
  const coefDigits = limitDigits + resultScale
  const fits = typeof rounded === 'number' && coefDigits <= 22 ? Math.abs(rounded) < POW10_NUMBER[coefDigits]! : rounded === 0 || rounded === 0n || digitCount(rounded) <= coefDigits
  if (!fits) {
    const bound = limitDigits > 0 ? `10^${limitDigits}` : '1'
    throw new RivuletError(SqlState.numericValueOutOfRange, 'numeric field overflow', undefined, `A field with precision ${precision}, scale ${scale} must round to an absolute value less than ${bound}.`)
  }
  return numericOf(rounded, resultScale)
}

// ---------------------------------------------------------------------------------- roots and powers

/** Integer square root (floor) of n ≥ 0. */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n
  if (n < 1n << 52n) {
    // exact in doubles: the rounded root is off by at most one
    let r = BigInt(Math.floor(Math.sqrt(Number(n))))
    while (r * r > n) r--
    while ((r + 1n) * (r + 1n) <= n) r++
    return r
  }
  // Newton's iteration from above converges to the floor and stops there; a power of two
  // above √n is a start that needs no trust in a double's estimate of a huge n
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1)
  for (;;) {
    const y = (x + n / x) >> 1n
    if (y >= x) return x
    x = y
  }
}

/** sqrt(v) to PostgreSQL's scale: 16 significant digits at least, the input's scale at least. */
export function numericSqrt(v: NumericValue): NumericValue {
  if (isSpecial(v)) {
    if (v === -Infinity) throw new RivuletError(SqlState.invalidArgumentForPowerFunction, 'cannot take square root of a negative number')
    return v
  }
  const c = big(coefOf(v))
  const s = scaleOf(v)
  if (c < 0n) throw new RivuletError(SqlState.invalidArgumentForPowerFunction, 'cannot take square root of a negative number')
  const [weight] = baseWeight(c, s)
  // PostgreSQL's estimate of the result's decimal weight (C division truncates toward zero)
  const sweight = Math.trunc(((weight + 1) * 4) / 2) - 1
  return numericSqrtAtScale(v, Math.min(Math.max(NUMERIC_MIN_SIG_DIGITS - sweight, s, 0), NUMERIC_MAX_DISPLAY_SCALE))
}

/** sqrt(v) of a finite v ≥ 0 rounded (half up) to `rscale` decimals (stddev takes the
 *  variance's scale). */
export function numericSqrtAtScale(v: NumericValue, rscale: number): NumericValue {
  const c = big(coefOf(v))
  const s = scaleOf(v)
  // round(sqrt(c / 10^s) · 10^rscale) = round(sqrt(N)) with N = c · 10^(2·rscale − s): k is
  // floor(sqrt(N)) (= isqrt(floor N)), and it rounds up when sqrt(N) ≥ k + ½, i.e. 4N ≥ (2k + 1)²
  const shift = 2 * rscale - s
  const k = isqrt(shift >= 0 ? c * pow10(shift) : c / pow10(-shift))
  const twice = 2n * k + 1n
  const up = shift >= 0 ? 4n * c * pow10(shift) >= twice * twice : 4n * c >= twice * twice * pow10(-shift)
  return numericOf(up ? k + 1n : k, rscale)
}

/** True when v is an integer (of any scale). */
export function numericIsIntegral(v: NumericValue): boolean {
  if (typeof v === 'number') return Number.isFinite(v)
  return big(v.coef) % pow10(v.scale) === 0n
}
