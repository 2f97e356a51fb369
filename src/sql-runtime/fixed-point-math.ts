// exp and ln to any precision, in binary fixed point over BigInt: a real x is held as the
// integer X = x · 2^F for a chosen number F of fraction bits. NUMERIC's transcendental
// functions (src/sql-runtime/numeric-functions.ts) need results of up to a few thousand significant digits
// (PostgreSQL allows e^6000, about 10^2606) in milliseconds, as PostgreSQL gives them; a
// decimal library's series at that precision take seconds, and V8's BigInt multiplies big
// operands with sub-quadratic algorithms, so the work here is a few hundred multiplications.
//
// Errors: every routine returns a value within a few units of 2^-F (absolute for ln, relative
// for exp); callers ask for F with ~40 bits to spare and round once at the end.

/** ln 2, ln 10 at the most fraction bits asked for so far (shifted down for fewer). */
let ln2Cache: { bits: number; value: bigint } = { bits: 0, value: 0n }
let ln10Cache: { bits: number; value: bigint } = { bits: 0, value: 0n }

const GUARD = 32

/** atanh(1/q) · 2^F for an integer q ≥ 2: Σ 1 / ((2i+1) · q^(2i+1)), divisions by small integers only. */
function atanhOfReciprocal(q: bigint, fractionBits: number): bigint {
  const bits = BigInt(fractionBits + GUARD)
  const q2 = q * q
  let power = (1n << bits) / q
  let sum = power
  for (let k = 3n; power !== 0n; k += 2n) {
    power /= q2
    sum += power / k
  }
  return sum >> BigInt(GUARD)
}

function shiftedDown(cache: { bits: number; value: bigint }, fractionBits: number): bigint {
  return cache.value >> BigInt(cache.bits - fractionBits)
}

/** ln 2 · 2^F (= 2 · atanh(1/3)). */
export function ln2Fixed(fractionBits: number): bigint {
  if (ln2Cache.bits < fractionBits) {
    const bits = Math.max(fractionBits, ln2Cache.bits * 2)
    ln2Cache = { bits, value: 2n * atanhOfReciprocal(3n, bits) }
  }
  return shiftedDown(ln2Cache, fractionBits)
}

/** ln 10 · 2^F (= 3 ln 2 + ln 1.25, and ln 1.25 = 2 · atanh(1/9)). */
export function ln10Fixed(fractionBits: number): bigint {
  if (ln10Cache.bits < fractionBits) {
    const bits = Math.max(fractionBits, ln10Cache.bits * 2)
    ln10Cache = { bits, value: 3n * ln2Fixed(bits) + 2n * atanhOfReciprocal(9n, bits) }
  }
  return shiftedDown(ln10Cache, fractionBits)
}

/** Number of bits of |n| (0 for 0). */
export function bitLength(n: bigint): number {
  if (n < 0n) n = -n
  if (n === 0n) return 0
  const s = n.toString(16)
  return (s.length - 1) * 4 + (32 - Math.clz32(parseInt(s[0]!, 16)))
}

/** e^x as m · 2^(exponent − F) with m ≥ 2^(F−1): x = X / 2^F, relative error ~2^-F. */
export function expFixed(x: bigint, fractionBits: number): { mantissa: bigint; exponent: number } {
  // e^x = 2^n · e^r with n = round(x / ln 2), |r| ≤ ln(2)/2; then e^r = (e^(r/2^k))^(2^k),
  // a short Taylor series at r/2^k squared k times. k ≈ √F balances the two.
  const k = Math.ceil(Math.sqrt(fractionBits))
  const work = fractionBits + k + GUARD
  const bits = BigInt(work)
  const xw = x << BigInt(work - fractionBits)
  const n0 = Number(x >> BigInt(fractionBits)) / Math.LN2
  const magnitude = Math.ceil(Math.log2(Math.abs(n0) + 2))
  const ln2 = ln2Fixed(work + magnitude) >> BigInt(magnitude)
  let n = BigInt(Math.round(n0))
  let r = xw - n * ln2
  // the double estimate of n can be off by one for huge x
  while (r > ln2 >> 1n) { r -= ln2; n += 1n }
  while (r < -(ln2 >> 1n)) { r += ln2; n -= 1n }
  const y = r >> BigInt(k)
  const one = 1n << bits
  let sum = one
  let term = one
  for (let i = 1n; term !== 0n; i++) {
    term = ((term * y) >> bits) / i
    sum += term
  }
  for (let i = 0; i < k; i++) sum = (sum * sum) >> bits
  // sum = e^r · 2^work
  return { mantissa: sum >> BigInt(work - fractionBits), exponent: Number(n) }
}

/** ln(c / 10^s) · 2^F for c > 0, absolute error ~2^-F. */
export function lnFixed(c: bigint, s: number, fractionBits: number): bigint {
  // c = m · 2^L with m in [1/2, 1): ln(c/10^s) = ln m + L ln 2 − s ln 10; ln m by Newton's
  // iteration y ← y + m·e^(−y) − 1, which doubles the correct bits each step, so all steps but
  // the last run at a fraction of the final precision.
  const length = bitLength(c)
  const guardBits = Math.ceil(Math.log2(Math.abs(length) + Math.abs(s) + 2)) + 8
  const work = fractionBits + guardBits
  const precisions: number[] = []
  for (let p = work; p > 48; p = Math.ceil(p / 2) + 8) precisions.unshift(p)
  const m = (shift: number): bigint => (length <= shift ? c << BigInt(shift - length) : c >> BigInt(length - shift))
  const leading = Number(m(53)) / 2 ** 53
  let bits = 48
  let y = BigInt(Math.round(Math.log(leading) * 2 ** bits))
  for (const p of precisions) {
    y <<= BigInt(p - bits)
    bits = p
    const e = expFixed(-y, p)
    // m · e^(−y) · 2^p
    const product = (m(p) * e.mantissa) >> BigInt(p)
    const scaled = e.exponent >= 0 ? product << BigInt(e.exponent) : product >> BigInt(-e.exponent)
    y += scaled - (1n << BigInt(p))
  }
  if (precisions.length === 0) y <<= BigInt(work - bits)
  const total = y + BigInt(length) * ln2Fixed(work) - BigInt(s) * ln10Fixed(work)
  return total >> BigInt(guardBits)
}

/** (c / 10^s)^n for c > 0 and n ≥ 1 as m · 2^e, relative error ~2^-bits: binary floating
 *  point with `bits` bits and guard bits for the 2·log2(n) roundings of square-and-multiply. */
export function powerFloat(c: bigint, s: number, n: number, bits: number): { mantissa: bigint; exponent: number } {
  const work = bits + 2 * Math.ceil(Math.log2(n + 1)) + GUARD
  const normalize = (m: bigint, e: number): [bigint, number] => {
    const excess = bitLength(m) - work
    return excess > 0 ? [m >> BigInt(excess), e + excess] : [m, e]
  }
  let base: [bigint, number]
  if (s === 0) base = normalize(c, 0)
  else {
    const d = 10n ** BigInt(s)
    const shift = Math.max(0, work + bitLength(d) - bitLength(c))
    base = normalize((c << BigInt(shift)) / d, -shift)
  }
  let result: [bigint, number] = [1n, 0]
  for (let bit = 31 - Math.clz32(n); bit >= 0; bit--) {
    result = normalize(result[0] * result[0], 2 * result[1])
    if ((n >>> bit) & 1) result = normalize(result[0] * base[0], result[1] + base[1])
  }
  return { mantissa: result[0], exponent: result[1] }
}

/** round(n / d) half away from zero, d > 0. */
export function roundedDivide(n: bigint, d: bigint): bigint {
  const q = n / d
  const twice = 2n * (n - q * d)
  if (twice >= d) return q + 1n
  if (-twice >= d) return q - 1n
  return q
}

/** Decimal digits a result is first rounded to beyond its scale (see toScale). */
export const ROUNDING_GUARD_DIGITS = 8

/** round(n / d) to `scale` decimals the way PostgreSQL's numeric functions do: first to
 *  scale + 8 digits, then to scale, both half away from zero. A result whose digits beyond
 *  scale + 8 are all but zero (ln(1 + 10^-16) = 10^-16 − 5·10^-33 + …) so lands on the
 *  decimal tie its exact value is next to, as PostgreSQL's computations do; computed to twelve
 *  digits more than that (src/sql-runtime/numeric-functions.ts), the first rounding is of an approximation well inside its error. */
export function toScale(n: bigint, d: bigint, scale: number): bigint {
  const guard = 10n ** BigInt(ROUNDING_GUARD_DIGITS)
  const ten = 10n ** BigInt(Math.abs(scale))
  const fine = scale >= 0 ? roundedDivide(n * ten * guard, d) : roundedDivide(n * guard, d * ten)
  return roundedDivide(fine, guard)
}

/** The same for m · 2^e with m ≥ 0. */
export function scaleBinary(m: bigint, e: number, scale: number): bigint {
  return e >= 0 ? toScale(m << BigInt(e), 1n, scale) : toScale(m, 1n << BigInt(-e), scale)
}
