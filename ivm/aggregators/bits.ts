// BIT_AND / BIT_OR / BIT_XOR over integers (two's complement, 32 or 64 bits wide): per bit
// position, how many of the group's non-null values have that bit set. A bit of the result is
// set when every value has it (and), any value has it (or), an odd number do (xor); null when
// the group has no non-null value. Counting bits rather than folding values is what makes a
// deletion exact: an AND or an OR cannot be undone from its result alone.
//
// Accumulator: { n: weighted count of the non-null values, c: 64 weighted counts, c[i] of
// the values with bit i set }. Values are numbers (any safe integer) or bigints (64-bit
// values beyond 2^53); a 64-bit result is a number while it is a safe integer, a bigint
// beyond; a 32-bit result is always a number.

import type { Aggregator } from './aggregator.js'

export interface BitsAcc {
  n: number
  c: number[]
}

const TWO32 = 4294967296

function addBits(acc: BitsAcc, value: unknown, weight: number): BitsAcc {
  if (value === null || value === undefined) return acc
  let lo: number
  let hi: number
  if (typeof value === 'bigint') {
    lo = Number(BigInt.asUintN(32, value))
    hi = Number(BigInt.asUintN(32, value >> 32n))
  } else {
    const v = value as number
    lo = v >>> 0 // v mod 2^32 (exact for any safe integer)
    hi = Math.floor(v / TWO32) >>> 0
  }
  acc.n += weight
  const c = acc.c
  for (let i = 0; lo !== 0; i++, lo >>>= 1) if (lo & 1) c[i]! += weight
  for (let i = 32; hi !== 0; i++, hi >>>= 1) if (hi & 1) c[i]! += weight
  return acc
}

function makeBits(name: string, bitSet: (count: number, n: number) => boolean, width: 32 | 64): Aggregator<BitsAcc, number | bigint | null> {
  return {
    name,
    create: () => ({ n: 0, c: new Array<number>(64).fill(0) }),
    add: addBits,
    result(acc) {
      const n = acc.n
      if (n <= 0) return null
      const c = acc.c
      let lo = 0
      for (let i = 31; i >= 0; i--) lo = (lo << 1) | (bitSet(c[i]!, n) ? 1 : 0)
      if (width === 32) return lo
      let hi = 0
      for (let i = 63; i >= 32; i--) hi = (hi << 1) | (bitSet(c[i]!, n) ? 1 : 0)
      // hi is the signed high word; the value is hi · 2^32 + (lo as unsigned)
      const r = hi * TWO32 + (lo >>> 0)
      return Number.isSafeInteger(r) ? r : (BigInt(hi) << 32n) | BigInt(lo >>> 0)
    },
  }
}

/** BIT_AND over `width`-bit integers. */
export function bitAnd(width: 32 | 64): Aggregator<BitsAcc, number | bigint | null> {
  return makeBits('bitAnd', (k, n) => k === n, width)
}

/** BIT_OR over `width`-bit integers. */
export function bitOr(width: 32 | 64): Aggregator<BitsAcc, number | bigint | null> {
  return makeBits('bitOr', (k) => k > 0, width)
}

/** BIT_XOR over `width`-bit integers. */
export function bitXor(width: 32 | 64): Aggregator<BitsAcc, number | bigint | null> {
  return makeBits('bitXor', (k) => (k & 1) === 1, width)
}
