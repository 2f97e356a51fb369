// DISTINCT aggregates: `distinctOf(inner)` feeds `inner` each distinct non-null value once
// (weight +1 when its count becomes positive, −1 when it drops to zero), so
// COUNT(DISTINCT x) = distinctOf(count), SUM(DISTINCT x) = distinctOf(sumInt | sumFloat), …
//
// Accumulator: { m: Map<valueKey, weighted count>, a: the inner accumulator }.

import { valueKey, type RowKey } from '../key.js'
import type { Aggregator } from './aggregator.js'
import { count } from './count.js'

export interface DistinctAcc<TAcc> {
  m: Map<RowKey, number>
  a: TAcc
}

/** `keyOf` decides which values are the same (default: valueKey). */
export function distinctOf<TAcc, TOut>(inner: Aggregator<TAcc, TOut>, keyOf: (value: unknown) => RowKey = valueKey): Aggregator<DistinctAcc<TAcc>, TOut> {
  return {
    name: inner.name + 'Distinct',
    create: () => ({ m: new Map(), a: inner.create() }),
    add(acc, value, weight) {
      if (value === null || value === undefined || weight === 0) return acc
      const k = keyOf(value)
      const m = acc.m
      const old = m.get(k) ?? 0
      const now = old + weight
      if (now === 0) m.delete(k)
      else m.set(k, now)
      if (old <= 0 && now > 0) acc.a = inner.add(acc.a, value, 1)
      else if (old > 0 && now <= 0) acc.a = inner.add(acc.a, value, -1)
      return acc
    },
    result: (acc) => inner.result(acc.a),
  }
}

/** COUNT(DISTINCT x). */
export const countDistinct: Aggregator<DistinctAcc<number>, number> = distinctOf(count)
