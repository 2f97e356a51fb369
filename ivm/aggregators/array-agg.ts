// ARRAY_AGG(value ORDER BY …): the group's values, NULLs included, as one list.
//
// The aggregate's `arg` returns [value, orderKeys]. The list is in the order of `compareOrder`
// over the order keys, ties (and calls without ORDER BY) broken by the value's exact key, so
// the result is a function of the multiset; `finish` turns the list into the caller's value
// (an SQL array); null when the group is empty.
//
// Accumulator: parallel sorted arrays of distinct entries (value, its key, order keys) with
// weighted counts (weighted-entries.ts); updates are a binary search and a splice. The result is rebuilt in O(n)
// whenever the group changes.

import type { Aggregator } from './aggregator.js'
import { rowKey } from '../key.js'
import { updateWeighted } from './weighted-entries.js'

export interface ArrayAggAcc {
  v: unknown[]
  k: string[]
  o: (readonly unknown[])[]
  c: number[]
}

const NO_KEYS: readonly unknown[] = []

export function arrayAgg<R>(compareOrder: ((a: readonly unknown[], b: readonly unknown[]) => number) | undefined, finish: (values: unknown[]) => R): Aggregator<ArrayAggAcc, R | null> {
  const cmpEntry = (acc: ArrayAggAcc, i: number, k: string, o: readonly unknown[]): number => {
    if (compareOrder !== undefined) {
      const c = compareOrder(acc.o[i]!, o)
      if (c !== 0) return c
    }
    const ki = acc.k[i]!
    return ki < k ? -1 : ki > k ? 1 : 0
  }
  return {
    name: 'arrayAgg',
    create: () => ({ v: [], k: [], o: [], c: [] }),
    add(acc, arg, weight) {
      if (weight === 0) return acc
      const t = arg as readonly unknown[]
      const v = t[0] ?? null
      const o = compareOrder !== undefined ? ((t[1] as readonly unknown[] | undefined) ?? NO_KEYS) : NO_KEYS
      const k = String(rowKey([v]))
      updateWeighted([acc.v, acc.k, acc.o], acc.c, (i) => cmpEntry(acc, i, k, o), [v, k, o], weight)
      return acc
    },
    result(acc) {
      if (acc.v.length === 0) return null
      const out: unknown[] = []
      for (let i = 0; i < acc.v.length; i++) for (let n = acc.c[i]!; n > 0; n--) out.push(acc.v[i])
      return out.length === 0 ? null : finish(out)
    },
  }
}
