// BIGINT at run time: exact 64-bit integers. A value is a JS number while it is within
// ±(2^53 − 1) and a JS bigint beyond (never a bigint inside that range), so the common case
// stays on numbers and two values are equal exactly when they are `===`; `<` and `>` compare a
// number with a bigint correctly. Every operation takes the number path when both operands
// are numbers and the result is a safe integer (then it is exact), and redoes the work in
// bigint arithmetic otherwise; results outside [−2^63, 2^63 − 1] are 22003 "bigint out of
// range", as in PostgreSQL.

import { RivuletError, SqlState } from '../../grammar/index.js'
import { INT8_MAX, INT8_MIN } from '../../planner/index.js'

export type Int8 = number | bigint

export { INT8_MAX, INT8_MIN }
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

export function int8OutOfRange(): RivuletError {
  return new RivuletError(SqlState.numericValueOutOfRange, 'bigint out of range')
}

/** The canonical form of an exact integer, checked against the 64-bit range. */
export function int8Of(v: bigint): Int8 {
  if (v >= -MAX_SAFE && v <= MAX_SAFE) return Number(v)
  if (v < INT8_MIN || v > INT8_MAX) throw int8OutOfRange()
  return v
}

/** True when v is an integer in the 64-bit range (a number that is an integer counts, even
 *  beyond 2^53: a double such as 2^60 is an exact integer). */
export function fitsInt8(v: number | bigint): boolean {
  if (typeof v === 'bigint') return v >= INT8_MIN && v <= INT8_MAX
  return Number.isInteger(v) && v >= -9223372036854775808 && v < 9223372036854775808
}

function big(v: Int8): bigint {
  return typeof v === 'bigint' ? v : BigInt(v)
}

export function int8Add(a: Int8, b: Int8): Int8 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b
    if (Number.isSafeInteger(r)) return r
  }
  return int8Of(big(a) + big(b))
}

export function int8Sub(a: Int8, b: Int8): Int8 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b
    if (Number.isSafeInteger(r)) return r
  }
  return int8Of(big(a) - big(b))
}

export function int8Mul(a: Int8, b: Int8): Int8 {
  if (typeof a === 'number' && typeof b === 'number') {
    // a true product within ±(2^53 − 1) is computed exactly; a larger one rounds to ≥ 2^53
    const r = a * b
    if (Number.isSafeInteger(r)) return r + 0
  }
  return int8Of(big(a) * big(b))
}

function divisionByZero(): RivuletError {
  return new RivuletError(SqlState.divisionByZero, 'division by zero')
}

/** Division truncating toward zero (−2^63 / −1 overflows). */
export function int8Div(a: Int8, b: Int8): Int8 {
  if (b === 0) throw divisionByZero()
  // for safe integers the double quotient truncates to the exact integer quotient
  if (typeof a === 'number' && typeof b === 'number') return Math.trunc(a / b) + 0
  return int8Of(big(a) / big(b))
}

/** Remainder with the sign of the dividend. */
export function int8Mod(a: Int8, b: Int8): Int8 {
  if (b === 0) throw divisionByZero()
  if (typeof a === 'number' && typeof b === 'number') return (a % b) + 0
  return int8Of(big(a) % big(b))
}

export function int8Neg(a: Int8): Int8 {
  return typeof a === 'number' ? -a + 0 : int8Of(-a)
}

export function int8Abs(a: Int8): Int8 {
  return typeof a === 'number' ? Math.abs(a) : int8Of(a < 0n ? -a : a)
}

/** Bitwise operations on the 64-bit two's complement value. */
export function int8Bitwise(op: 'and' | 'or' | 'xor', a: Int8, b: Int8): Int8 {
  const x = big(a)
  const y = big(b)
  return int8Of(op === 'and' ? x & y : op === 'or' ? x | y : x ^ y)
}

export function int8Not(a: Int8): Int8 {
  return int8Of(~big(a))
}

/** a << b / a >> b as C does on int64 (the shift count taken modulo 64, the result wrapped). */
export function int8Shift(a: Int8, b: number, left: boolean): Int8 {
  const s = BigInt(((b % 64) + 64) % 64)
  return int8Of(BigInt.asIntN(64, left ? big(a) << s : big(a) >> s))
}

/** The value of a decimal integer text ('  -42 '), exactly, or undefined if it is not one
 *  (range errors are the caller's). */
export function parseExactInteger(text: string): bigint | undefined {
  const t = text.trim()
  if (!/^[+-]?\d+$/.test(t)) return undefined
  return BigInt(t)
}
