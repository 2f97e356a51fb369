// MODE() WITHIN GROUP (ORDER BY x): the most frequent non-null value; among equally frequent
// ones the first in the group's order (as PostgreSQL, which keeps the first it meets while
// reading the sorted values); null when there is none.
//
// Accumulator: { set: the values with their counts as an OrderedCounts (ordered-counts.ts),
//   byCount: count → the values having exactly that count, as a MIN accumulator (min-max.ts)
//   under the same order }. An update moves one value from its old count's set to its new
//   one: O(log n). The result is the first value of the largest count's set; finding the
//   largest count visits the distinct counts, of which a group of n values has fewer than
//   √(2n) (they sum to at most n).

import type { Aggregator } from './aggregator.js'
import { min, type MinMaxAcc } from './min-max.js'
import { createOrderedCounts, orderedAdd, type OrderedCounts } from './ordered-counts.js'

export interface ModeAcc {
  set: OrderedCounts
  byCount: Map<number, MinMaxAcc>
}

export function mode(compare: (a: unknown, b: unknown) => number): Aggregator<ModeAcc, unknown> {
  const first = min(compare)
  return {
    name: 'mode',
    create: () => ({ set: createOrderedCounts(), byCount: new Map() }),
    add(acc, value, weight) {
      if (value === null || value === undefined || weight === 0) return acc
      const now = orderedAdd(acc.set, value, weight, compare)
      const before = now - weight
      const byCount = acc.byCount
      if (before > 0) {
        const s = byCount.get(before)!
        first.add(s, value, -1)
        if (s.v.length === 0 && s.big === null) byCount.delete(before)
      }
      if (now > 0) {
        let s = byCount.get(now)
        if (s === undefined) byCount.set(now, (s = first.create()))
        first.add(s, value, 1)
      }
      return acc
    },
    result(acc) {
      let top = 0
      for (const k of acc.byCount.keys()) if (k > top) top = k
      return top === 0 ? null : first.result(acc.byCount.get(top)!)
    },
  }
}
