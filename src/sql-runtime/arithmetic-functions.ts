// The arithmetic of the function library: the smallint, integer and bigint operators (range
// checked as PostgreSQL does, shifts as C shifts), the double precision and real operators
// (overflow and underflow errors), integer powers computed exactly, and the double precision
// math functions (sqrt, exp, ln, log10, trigonometry, degrees/radians). One family of
// FUNCTIONS (functions.ts); the NUMERIC overloads are numeric-functions.ts.
//
// Known deviation: exp/ln/log/sqrt/trig and non-integer powers use JS Math (V8's fdlibm port),
// which can differ from glibc in the last bit (ln(3) prints 1.0986122886681096, PG …098).
// Integer powers (|n| ≤ 64) are computed exactly and correctly rounded.

import { INTEGER_BOUNDS } from '../../planner/types.js'
import { rint } from './number-text.js'
import { int8Abs, int8Add, int8Bitwise, int8Div, int8Mod, int8Mul, int8Neg, int8Not, int8Shift, int8Sub, type Int8 } from './int8.js'
import { divByZero, sqlError, overflow, underflow } from './sql-errors.js'
type Fn = (...args: never[]) => unknown

// ---------------------------------------------------------------------------------- integers

type IntType = 'smallint' | 'integer'

function intOps(t: IntType, tag: string): Record<string, Fn> {
  const [lo, hi] = INTEGER_BOUNDS[t]
  const msg = `${t} out of range`
  const chk = (r: number): number => {
    if (r < lo || r > hi) throw sqlError('22003', msg)
    return r
  }
  return {
    [`${tag}_add`]: (a: number, b: number) => chk(a + b),
    [`${tag}_sub`]: (a: number, b: number) => chk(a - b),
    // |true product| < 2^62: a product beyond the bounds rounds to beyond them too
    [`${tag}_mul`]: (a: number, b: number) => chk(a * b) + 0,
    [`${tag}_div`]: (a: number, b: number) => {
      if (b === 0) throw divByZero()
      return chk(Math.trunc(a / b)) + 0
    },
    [`${tag}_mod`]: (a: number, b: number) => {
      if (b === 0) throw divByZero()
      return (a % b) + 0
    },
    [`${tag}_neg`]: (a: number) => chk(-a) + 0,
    [`${tag}_pos`]: (a: number) => a,
    [`${tag}_abs`]: (a: number) => chk(Math.abs(a)),
    [`${tag}_and`]: (a: number, b: number) => a & b,
    [`${tag}_or`]: (a: number, b: number) => a | b,
    [`${tag}_xor`]: (a: number, b: number) => a ^ b,
    [`${tag}_not`]: (a: number) => ~a,
    [`${tag}_shl`]: (a: number, b: number) => shift(a, b, true, t),
    [`${tag}_shr`]: (a: number, b: number) => shift(a, b, false, t),
  }
}

/** PG shifts are C's: a smallint is shifted as a 32-bit int and truncated back to 16 bits,
 *  and the count is taken modulo 32, as the processor's shift instruction does:
 *  `1::int2 << 31` is 0, `1 << 33` is 2 (JS's << and >> on int32 do exactly this; bigint
 *  shifts are src/sql-runtime/int8.ts'). */
function shift(a: number, b: number, left: boolean, t: IntType): number {
  const r = left ? a << b : a >> b
  return t === 'smallint' ? (r << 16) >> 16 : r
}

const INT8_FUNCTIONS: Record<string, Fn> = {
  int8_add: int8Add,
  int8_sub: int8Sub,
  int8_mul: int8Mul,
  int8_div: int8Div,
  int8_mod: int8Mod,
  int8_neg: int8Neg,
  int8_pos: (a: Int8) => a,
  int8_abs: int8Abs,
  int8_and: (a: Int8, b: Int8) => int8Bitwise('and', a, b),
  int8_or: (a: Int8, b: Int8) => int8Bitwise('or', a, b),
  int8_xor: (a: Int8, b: Int8) => int8Bitwise('xor', a, b),
  int8_not: int8Not,
  int8_shl: (a: Int8, b: number) => int8Shift(a, b, true),
  int8_shr: (a: Int8, b: number) => int8Shift(a, b, false),
}

// ---------------------------------------------------------------------------------- floats

function f8add(a: number, b: number): number {
  const r = a + b
  if ((r === Infinity || r === -Infinity) && Number.isFinite(a) && Number.isFinite(b)) throw overflow()
  return r
}
function f8sub(a: number, b: number): number {
  const r = a - b
  if ((r === Infinity || r === -Infinity) && Number.isFinite(a) && Number.isFinite(b)) throw overflow()
  return r
}
function f8mul(a: number, b: number): number {
  const r = a * b
  if ((r === Infinity || r === -Infinity) && Number.isFinite(a) && Number.isFinite(b)) throw overflow()
  if (r === 0 && a !== 0 && b !== 0) throw underflow()
  return r
}
function f8div(a: number, b: number): number {
  if (b === 0 && a === a) throw divByZero()
  const r = a / b
  if ((r === Infinity || r === -Infinity) && Number.isFinite(a)) throw overflow()
  if (r === 0 && a !== 0 && Number.isFinite(b)) throw underflow()
  return r
}
const f4 = (f: (a: number, b: number) => number) => (a: number, b: number) => {
  const r = Math.fround(f(a, b))
  if ((r === Infinity || r === -Infinity) && Number.isFinite(a) && Number.isFinite(b)) throw overflow()
  return r
}

function pow(a: number, b: number): number {
  if (a === 0 && b < 0) throw sqlError('2201F', 'zero raised to a negative power is undefined')
  if (a < 0 && Number.isFinite(b) && !Number.isInteger(b)) {
    throw sqlError('2201F', 'a negative number raised to a non-integer power yields a complex result')
  }
  // C pow(): 1^y = 1 and x^0 = 1 even for NaN, (-1)^±inf = 1
  if (a === 1 || b === 0) return 1
  if (a === -1 && !Number.isFinite(b) && b === b) return 1
  const r = Number.isInteger(b) && Math.abs(b) <= 64 && Number.isFinite(a) && a !== 0 ? intPow(a, b) : Math.pow(a, b)
  if ((r === Infinity || r === -Infinity) && Number.isFinite(a) && Number.isFinite(b)) throw overflow()
  if (r === 0 && a !== 0 && Number.isFinite(a) && Number.isFinite(b)) throw underflow()
  return r
}

const POW_VIEW = new DataView(new ArrayBuffer(8))

/** a^n for an integer |n| ≤ 64, correctly rounded like glibc's pow (V8's Math.pow is not). */
function intPow(a: number, n: number): number {
  POW_VIEW.setFloat64(0, Math.abs(a))
  const bits = POW_VIEW.getBigUint64(0)
  const ex = Number((bits >> 52n) & 0x7ffn)
  const frac = bits & 0xfffffffffffffn
  const m = ex === 0 ? frac : frac | 0x10000000000000n
  const e = ex === 0 ? -1074 : ex - 1075
  const sign = a < 0 && n % 2 !== 0 ? -1 : 1
  const k = Math.abs(n)
  const p = m ** BigInt(k) // |a|^k = p · 2^(e·k)
  let num: bigint
  let den: bigint
  let e2: number
  if (n >= 0) {
    num = p
    den = 1n
    e2 = e * k
  } else {
    num = 1n
    den = p
    e2 = -e * k
  }
  return sign * ratioToDouble(num, den, e2)
}

/** Correctly rounded (half even) num/den · 2^e2 for positive BigInts. */
function ratioToDouble(num: bigint, den: bigint, e2: number): number {
  // scale so the quotient has 54..55 significant bits
  const shift = 55 - (num.toString(2).length - den.toString(2).length)
  const n2 = shift >= 0 ? num << BigInt(shift) : num
  const d2 = shift >= 0 ? den : den << BigInt(-shift)
  let q = n2 / d2
  const sticky = n2 % d2 !== 0n
  let exp = e2 - shift
  // reduce q to 53 bits with round-half-even using the dropped bits and the sticky remainder
  const len = q.toString(2).length
  // subnormal results keep fewer bits
  const drop = Math.max(len - 53, -1074 - exp)
  if (drop > 0) {
    const dropped = q & ((1n << BigInt(drop)) - 1n)
    q >>= BigInt(drop)
    exp += drop
    const half = 1n << BigInt(drop - 1)
    if (dropped > half || (dropped === half && (sticky || (q & 1n) === 1n))) q += 1n
  }
  // q < 2^54 and exact as a double; scale in two exact steps to avoid intermediate overflow
  let r = Number(q)
  while (exp > 0) {
    const s = Math.min(exp, 1000)
    r *= 2 ** s
    exp -= s
  }
  while (exp < 0) {
    const s = Math.max(exp, -1000)
    r *= 2 ** s
    exp -= s
  }
  return r
}

/** PG's sin/cos/tan raise for an infinite argument (NaN stays NaN). */
function finiteAngle(x: number): number {
  if (x === Infinity || x === -Infinity) throw sqlError('22003', 'input is out of range')
  return x
}

const RADIANS_PER_DEGREE = Math.PI / 180

// ---------------------------------------------------------------------------------- math

function sqrt(x: number): number {
  if (x < 0) throw sqlError('2201F', 'cannot take square root of a negative number')
  return Math.sqrt(x)
}
function logCheck(x: number): void {
  if (x === 0) throw sqlError('2201E', 'cannot take logarithm of zero')
  if (x < 0) throw sqlError('2201E', 'cannot take logarithm of a negative number')
}
function ln(x: number): number {
  logCheck(x)
  return Math.log(x)
}
function log10(x: number): number {
  logCheck(x)
  return Math.log10(x)
}
function expF8(x: number): number {
  const r = Math.exp(x)
  if (r === Infinity && Number.isFinite(x)) throw overflow()
  if (r === 0 && Number.isFinite(x)) throw underflow()
  return r
}
function roundF8(x: number): number {
  const r = rint(x)
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r
}

/** The integer, bigint and floating-point operators and the double precision math functions. */
export const ARITHMETIC_FUNCTIONS: Readonly<Record<string, Fn>> = {
  ...intOps('smallint', 'int2'),
  ...intOps('integer', 'int4'),
  ...INT8_FUNCTIONS,

  float8_add: f8add,
  float8_sub: f8sub,
  float8_mul: f8mul,
  float8_div: f8div,
  float8_neg: (a: number) => -a,
  float8_pos: (a: number) => a,
  float8_abs: (a: number) => Math.abs(a),
  float8_pow: pow,
  float4_add: f4(f8add),
  float4_sub: f4(f8sub),
  float4_mul: (a: number, b: number) => {
    const r = Math.fround(a * b)
    if ((r === Infinity || r === -Infinity) && Number.isFinite(a) && Number.isFinite(b)) throw overflow()
    if (r === 0 && a !== 0 && b !== 0) throw underflow()
    return r
  },
  float4_div: (a: number, b: number) => {
    if (b === 0 && a === a) throw divByZero()
    const r = Math.fround(a / b)
    if ((r === Infinity || r === -Infinity) && Number.isFinite(a)) throw overflow()
    if (r === 0 && a !== 0 && Number.isFinite(b)) throw underflow()
    return r
  },
  float4_neg: (a: number) => -a,
  float4_pos: (a: number) => a,
  float4_abs: (a: number) => Math.abs(a),

  ceil_float8: Math.ceil,
  floor_float8: Math.floor,
  round_float8: roundF8,
  trunc_float8: Math.trunc,
  // PG: sign(NaN) is 0 for double precision (NaN for numeric)
  sign_float8: (x: number) => (x > 0 ? 1 : x < 0 ? -1 : 0),
  sqrt_float8: sqrt,
  cbrt: Math.cbrt,
  exp_float8: expF8,
  ln_float8: ln,
  log10_float8: log10,
  pi: () => Math.PI,
  random: () => Math.random(),
  sin: (x: number) => Math.sin(finiteAngle(x)),
  cos: (x: number) => Math.cos(finiteAngle(x)),
  tan: (x: number) => Math.tan(finiteAngle(x)),
  asin: (x: number) => {
    if (x < -1 || x > 1) throw sqlError('22003', 'input is out of range')
    return Math.asin(x)
  },
  acos: (x: number) => {
    if (x < -1 || x > 1) throw sqlError('22003', 'input is out of range')
    return Math.acos(x)
  },
  atan: Math.atan,
  atan2: Math.atan2,
  // as PG computes them (float8_div(x, RADIANS_PER_DEGREE), float8_mul(x, ...), with their
  // overflow and underflow errors): (x * π) / 180 differs in the last bit (radians(pi()))
  degrees: (x: number) => f8div(x, RADIANS_PER_DEGREE),
  radians: (x: number) => f8mul(x, RADIANS_PER_DEGREE),
}
