// The aggregator contract used by ReduceOperator. An aggregator folds weighted values into a
// per-group accumulator; a negative weight retracts exactly what a positive one added, so the
// result is a function of the group's multiset of values (never of the insertion order).
//
// - `value` was extracted by the aggregate's `arg` function; null/undefined values are ignored
//   by every aggregator except countRows.
// - `add` may mutate the accumulator in place and return it, or return a new one (numbers).
// - Accumulators are plain data (numbers, arrays, plain objects, Maps) so a checkpoint can
//   serialize them later. `add` and `result` must not throw, with one exception: an
//   insert-only aggregator (`insertOnly`) throws on a negative weight, an internal error
//   (the planner used it over an input that retracts) that ReduceOperator raises itself
//   before touching any state.

export interface Aggregator<TAcc, TOut> {
  /** Short name for EXPLAIN / describeState. */
  readonly name: string
  create(): TAcc
  add(acc: TAcc, value: unknown, weight: number): TAcc
  result(acc: TAcc): TOut
  /** Set on an aggregator that folds insertions only: it keeps too little to undo one (MIN /
   *  MAX holding just the extreme), so a negative weight is refused, never folded. Its `add`
   *  never mutates an accumulator in place (it returns the new one), which lets the reduce
   *  undo a tick by putting back the accumulator it held at the last commit instead of
   *  folding the negated journal. */
  readonly insertOnly?: true
}
