// Numbers and booleans as text: the shortest round-trip digits of float8out/float4out
// (exactly, over BigInt), and the input functions of the integer, floating-point, numeric and
// boolean types; also rint (round half to even), which the float → integer casts and
// round(double) share. Apart from values.ts because the float digit search is a self-contained
// algorithm that value-text.ts uses too.
//
// numeric is exact with PG's display scale (planner/numeric.ts); bigint is exact over the
// 64-bit range (src/sql-runtime/int8.ts).

import { INTEGER_BOUNDS } from '../../planner/types.js'
import { parseNumericText, parseSpecialNumber, type NumericValue } from '../../planner/numeric.js'
import { fitsInt8, int8Of, parseExactInteger, type Int8 } from './int8.js'
import { sqlError, invalidSyntax } from './sql-errors.js'

// ---------------------------------------------------------------------------------- numbers: text

const F64 = new DataView(new ArrayBuffer(8))

/** x = M·2^E exactly; `lowerCloser`: the gap below x is half the gap above (x a power of 2). */
function decompose(x: number, float4: boolean): [bigint, number, boolean] {
  if (float4) {
    F64.setFloat32(0, x)
    const bits = F64.getUint32(0)
    const exp = (bits >>> 23) & 0xff
    const frac = bits & 0x7fffff
    if (exp === 0) return [BigInt(frac), -149, false]
    return [BigInt(frac + 0x800000), exp - 150, frac === 0 && exp > 1]
  }
  F64.setFloat64(0, x)
  const bits = F64.getBigUint64(0)
  const exp = Number((bits >> 52n) & 0x7ffn)
  const frac = bits & 0xfffffffffffffn
  if (exp === 0) return [frac, -1074, false]
  return [frac + 0x10000000000000n, exp - 1075, frac === 0n && exp > 1]
}

/** (c − x) for c = digits·10^k, scaled by a positive factor that depends only on x and k
 *  (so results for one x and k compare exactly), plus the scaled rounding-interval bounds. */
function exactDiff(digits: string, k: number, x: number, float4: boolean): [bigint, bigint, bigint] {
  const [m, e, lowerCloser] = decompose(x, float4)
  const s2 = Math.max(0, 2 - e) // scale by 2^s2 · 10^s10 so everything is an integer
  const s10 = Math.max(0, -k)
  const pow2 = (n: number): bigint => 1n << BigInt(n)
  const scale = (v: bigint, e2: number): bigint => v * pow2(e2 + s2) * 10n ** BigInt(s10)
  const c = BigInt(digits) * 10n ** BigInt(k + s10) * pow2(s2)
  const xv = scale(m, e)
  const hi = scale(2n * m + 1n, e - 1) - xv
  const lo = (lowerCloser ? scale(4n * m - 1n, e - 2) : scale(2n * m - 1n, e - 1)) - xv
  return [c - xv, lo, hi]
}

/** The p-significant-digit decimal closest to a (ties → even last digit), if it lies strictly
 *  inside a's rounding interval (PG's Ryu excludes the bounds; JS's shortest may not). */
function digitsAt(a: number, p: number, float4: boolean): [string, number] | undefined {
  const t = a.toExponential(p - 1)
  const i = t.indexOf('e')
  let d = t.slice(0, i).replace('.', '')
  let e = Number(t.slice(i + 1))
  const k = e - p + 1
  const [diff, lo, hi] = exactDiff(d, k, a, float4)
  if (diff > 0n && d.charCodeAt(d.length - 1) % 2 === 1) {
    // toExponential rounds half up: on an exact tie prefer the even neighbour below
    const below = (BigInt(d) - 1n).toString()
    if (below.length === d.length) {
      const [d2] = exactDiff(below, k, a, float4)
      if (d2 === -diff) d = below
    }
  }
  const [fd] = exactDiff(d, k, a, float4)
  if (fd > lo && fd < hi) return [d, e]
  void e
  return undefined
}

/** Shortest digits and decimal exponent of a finite non-zero double/float4, as PG's
 *  Ryu-based float8out/float4out produce them. */
function shortestDigits(x: number, float4: boolean, loose = false): [string, number, boolean] {
  const neg = x < 0
  const a = Math.abs(x)
  if (!float4) {
    const t = a.toExponential()
    const i = t.indexOf('e')
    const d = t.slice(0, i).replace('.', '')
    const e = Number(t.slice(i + 1))
    // JS's shortest may sit exactly on a rounding bound, which is possible only when a ≥ 2^53
    if (loose || a < 9007199254740992) return [d, e, neg]
    for (let p = d.length; p <= 17; p++) {
      const r = digitsAt(a, p, false)
      if (r !== undefined) return [stripZeros(r[0]), r[1], neg]
    }
    return [d, e, neg]
  }
  // below 2^22 no ≤ 9-digit decimal can sit exactly on a rounding bound (the bound's odd
  // numerator has 25 bits), so only last-digit ties need the exact check
  const boundsPossible = a >= 4194304
  // round-tripping is monotonic in the precision: binary-search the smallest that does
  let lo = 1
  let hi = 9
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (Math.fround(Number(a.toExponential(mid - 1))) === a) hi = mid
    else lo = mid + 1
  }
  for (let p = lo; p <= 9; p++) {
    const t = a.toExponential(p - 1)
    // cheap filter: if the nearest p-digit decimal does not even round-trip, none is inside
    if (Math.fround(Number(t)) !== a) continue
    if (!boundsPossible) {
      // a tie needs a to be a (p+1)-digit decimal ending in 5
      const t2 = a.toExponential(p)
      if (t2.charCodeAt(t2.indexOf('e') - 1) !== 53) {
        const i = t.indexOf('e')
        return [stripZeros(t.slice(0, i).replace('.', '')), Number(t.slice(i + 1)), neg]
      }
    }
    const r = digitsAt(a, p, true)
    if (r !== undefined) return [stripZeros(r[0]), r[1], neg]
  }
  const t = a.toExponential(8)
  return [stripZeros(t.slice(0, t.indexOf('e')).replace('.', '')), Number(t.slice(t.indexOf('e') + 1)), neg]
}

function stripZeros(d: string): string {
  let end = d.length
  while (end > 1 && d.charCodeAt(end - 1) === 48) end--
  return d.slice(0, end)
}

function placeDigits(digits: string, exp: number): string {
  // value = 0.d1d2d3... * 10^(exp+1)
  const n = digits.length
  if (exp < 0) return '0.' + '0'.repeat(-exp - 1) + digits
  if (exp + 1 >= n) return digits + '0'.repeat(exp + 1 - n)
  return digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1)
}

function formatFloat(x: number, float4: boolean): string {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return 'Infinity'
  if (x === -Infinity) return '-Infinity'
  if (x === 0) return Object.is(x, -0) ? '-0' : '0'
  // JS prints the same shortest digits positionally in this range
  if (!float4) {
    const a = x < 0 ? -x : x
    if (a >= 1e-4 && a < 1e15) return String(x)
  }
  const [digits, exp, neg] = shortestDigits(x, float4)
  let body: string
  if (exp < -4 || exp >= (float4 ? 6 : 15)) {
    const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits
    const ae = Math.abs(exp)
    body = `${mant}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' + ae : ae}`
  } else {
    body = placeDigits(digits, exp)
  }
  return neg ? '-' + body : body
}

/** PG float8out: shortest exact digits, exponent form when exp < -4 or >= 15 ('1e+15'). */
export function formatFloat8(x: number): string {
  return formatFloat(x, false)
}

/** PG float4out: shortest digits that round-trip through float4; exponent when exp >= 6. */
export function formatFloat4(x: number): string {
  return formatFloat(x, true)
}

const INT_RE = /^\s*[+-]?\d+\s*$/
const DEC_RE = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?\s*$/i

export function parseInteger(text: string, type: 'smallint' | 'integer' | 'bigint'): Int8 {
  if (!INT_RE.test(text)) throw invalidSyntax(type, text)
  const v = Number(text.trim())
  if (type === 'bigint') {
    if (Number.isSafeInteger(v)) return v + 0
    const exact = parseExactInteger(text)!
    if (!fitsInt8(exact)) throw sqlError('22003', `value "${text}" is out of range for type bigint`)
    return int8Of(exact)
  }
  const [lo, hi] = INTEGER_BOUNDS[type]
  if (!(v >= lo && v <= hi)) throw sqlError('22003', `value "${text}" is out of range for type ${type}`)
  return v + 0
}

export function parseFloat8(text: string): number {
  const sp = parseSpecialNumber(text)
  if (sp !== undefined) return sp
  if (!DEC_RE.test(text)) throw invalidSyntax('double precision', text)
  const v = Number(text.trim())
  if (!Number.isFinite(v) || (v === 0 && /[1-9]/.test(mantissaOf(text)))) {
    throw sqlError('22003', `"${text}" is out of range for type double precision`)
  }
  return v
}

export function parseFloat4(text: string): number {
  const sp = parseSpecialNumber(text)
  if (sp !== undefined) return sp
  if (!DEC_RE.test(text)) throw invalidSyntax('real', text)
  const d = Number(text.trim())
  const v = Math.fround(d)
  if (!Number.isFinite(v) || (v === 0 && /[1-9]/.test(mantissaOf(text)))) {
    throw sqlError('22003', `"${text}" is out of range for type real`)
  }
  return v
}

function mantissaOf(text: string): string {
  const t = text.trim()
  const e = t.search(/e/i)
  return e < 0 ? t : t.slice(0, e)
}

export function parseNumeric(text: string): NumericValue {
  const v = parseNumericText(text)
  if (v === undefined) throw invalidSyntax('numeric', text)
  return v
}

export function parseBoolean(text: string): boolean {
  const t = text.trim().toLowerCase()
  if (t.length > 0) {
    if ('true'.startsWith(t) || 'yes'.startsWith(t) || t === 'on' || t === '1') return true
    if ('false'.startsWith(t) || 'no'.startsWith(t) || (t.length >= 2 && 'off'.startsWith(t)) || t === '0') return false
  }
  throw invalidSyntax('boolean', text)
}

// ---------------------------------------------------------------------------------- rounding

/** Round half to even (C rint), as PG float → integer casts and round(double). */
export function rint(x: number): number {
  if (!Number.isFinite(x)) return x
  const f = Math.floor(x)
  const d = x - f
  if (d < 0.5) return f + 0
  if (d > 0.5) return f + 1
  return f % 2 === 0 ? f + 0 : f + 1
}
