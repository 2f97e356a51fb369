// STRING_AGG(value, delimiter ORDER BY …).
//
// The aggregate's `arg` returns [value, delimiter, orderKeys?] (or null); null values are
// ignored. The result joins the values in order (the optional `compareOrder` over the order
// keys, then the value, then the delimiter, so it is a function of the multiset), putting
// between two values the delimiter of the later one (as Postgres does); null when empty.
//
// Accumulator: parallel sorted arrays of distinct entries (value, delimiter, order keys) with
// weighted counts (weighted-entries.ts); updates are a binary search and a splice. The result is rebuilt in O(n)
// whenever the group changes.

import type { Aggregator } from './aggregator.js'
import { updateWeighted } from './weighted-entries.js'

export interface StringAggAcc {
  v: string[]
  d: string[]
  o: (readonly unknown[] | null)[]
  c: number[]
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The caller's bound on a result's length (ivm knows no SQL errors: `tooLong` makes the
 *  caller's). Checked before each append, so a too-long result is refused before V8 is asked
 *  to build it (past ~2^29 code units it throws an opaque RangeError). */
export interface StringAggLimit {
  readonly maxLength: number
  readonly tooLong: (have: number, more: number) => Error
}

export function stringAgg(
  compareOrder?: (a: readonly unknown[], b: readonly unknown[]) => number,
  limit?: StringAggLimit,
): Aggregator<StringAggAcc, string | null> {
  const max = limit?.maxLength ?? Infinity
  const cmpEntry = (acc: StringAggAcc, i: number, v: string, d: string, o: readonly unknown[] | null): number => {
    if (compareOrder !== undefined) {
      const oa = acc.o[i] ?? []
      const c = compareOrder(oa, o ?? [])
      if (c !== 0) return c
    }
    return cmpStr(acc.v[i]!, v) || cmpStr(acc.d[i]!, d)
  }
  return {
    name: 'stringAgg',
    create: () => ({ v: [], d: [], o: [], c: [] }),
    add(acc, arg, weight) {
      if (arg === null || arg === undefined || weight === 0) return acc
      const t = arg as readonly unknown[]
      const raw = t[0]
      if (raw === null || raw === undefined) return acc
      const v = typeof raw === 'string' ? raw : String(raw)
      const dr = t[1]
      const d = dr === null || dr === undefined ? '' : typeof dr === 'string' ? dr : String(dr)
      const o = compareOrder !== undefined ? ((t[2] as readonly unknown[] | undefined) ?? null) : null
      updateWeighted([acc.v, acc.d, acc.o], acc.c, (i) => cmpEntry(acc, i, v, d, o), [v, d, o], weight)
      return acc
    },
    result(acc) {
      let s: string | null = null
      const { v, d, c } = acc
      for (let i = 0; i < v.length; i++) {
        for (let k = c[i]!; k > 0; k--) {
          const more = s === null ? v[i]!.length : d[i]!.length + v[i]!.length
          if ((s?.length ?? 0) + more > max) throw limit!.tooLong(s?.length ?? 0, more)
          s = s === null ? v[i]! : s + d[i]! + v[i]!
        }
      }
      return s
    },
  }
}
