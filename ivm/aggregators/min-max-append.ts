// MIN / MAX over insertions only, under a comparator: the planner picks it instead of
// min-max.ts when the aggregate's input can never retract (a stream or APPEND ONLY table
// through row-wise steps), so a group never needs the value after its extreme.
//
// Accumulator: the extreme non-null value folded so far, itself (null before the first one).
//   Among values comparing equal (compare = 0) the first one folded stays, as min-max.ts keeps
//   the first representation of an equal value, so both give identical results. The
//   accumulator is plain data (a value rows hold) and is never mutated: `add` returns the
//   new extreme, which is what the reduce's rollback relies on (see Aggregator.insertOnly).
// A negative weight is a planner bug (the input was judged insert-only but retracts): `add`
// throws an internal error rather than give a wrong answer.

import type { Aggregator } from './aggregator.js'

/** The extreme folded so far, or null (no non-null value yet). */
export type AppendExtremeAcc = unknown

function makeAppendExtreme(name: string, cmp: (a: unknown, b: unknown) => number): Aggregator<AppendExtremeAcc, unknown> {
  return {
    name: `${name} (append-only)`,
    insertOnly: true,
    create: (): AppendExtremeAcc => null,
    add(acc, value, weight) {
      if (weight < 0) throw new Error(`internal: append-only ${name} received a retraction (weight ${weight}); its input was planned as insert-only`)
      if (value === null || value === undefined || weight === 0) return acc
      // the extreme is last in cmp's order; an equal value keeps the first one folded
      return acc === null || cmp(acc, value) < 0 ? value : acc
    },
    result: (acc) => acc,
  }
}

/** MAX over insertions only, under `compare` (negative when a < b). */
export function appendOnlyMax<TValue = unknown>(compare: (a: TValue, b: TValue) => number): Aggregator<AppendExtremeAcc, TValue | null> {
  return makeAppendExtreme('max', compare as (a: unknown, b: unknown) => number) as Aggregator<AppendExtremeAcc, TValue | null>
}

/** MIN over insertions only, under `compare` (negative when a < b). */
export function appendOnlyMin<TValue = unknown>(compare: (a: TValue, b: TValue) => number): Aggregator<AppendExtremeAcc, TValue | null> {
  const c = compare as (a: unknown, b: unknown) => number
  return makeAppendExtreme('min', (a, b) => c(b, a)) as Aggregator<AppendExtremeAcc, TValue | null>
}
