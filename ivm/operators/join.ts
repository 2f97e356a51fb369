// JoinOperator — inner equi-join of two arrangements (an empty key list is a cross join).
//
// Semantics:  Δ(L ⋈ R) = ΔL ⋈ R_new + L_new ⋈ ΔR − ΔL ⋈ ΔR
//             Both arrangements are inputs of the join, so they have absorbed this step's
//             deltas (L_new, R_new) when the join steps; ΔL and ΔR are their `out`. The third
//             term removes the ΔL ⋈ ΔR pairs counted twice. Weights multiply: (l⋈r, wl·wr).
//             Rows with a NULL key column never match (checked on the probing delta row;
//             the row found under the same key then has NULLs in the same places).
// State kept: none (the arrangements hold it; a self-join reads one arrangement twice).
// Linear:     no (bilinear).
// Retracts:   yes.
//
// Cost: O(|ΔL| + |ΔR| + matches); the ΔL ⋈ ΔR correction only runs when both sides changed
// in the same step (nested loop for small deltas, a temporary hash index otherwise).

import type { Circuit } from '../circuit.js'
import { hasNull, type RowKey } from '../key.js'
import { BaseOperator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { Bucket, type ArrangeOperator, type Arrangement } from './arrange.js'

/** Emits delta ⋈ other (delta on the left when `deltaIsLeft`), scaled by `sign`. */
export function probeJoin(
  delta: ZSet,
  keyColumns: readonly number[],
  keyOf: (row: Row) => RowKey,
  other: Arrangement,
  combine: (l: Row, r: Row) => Row,
  deltaIsLeft: boolean,
  sign: number,
  out: ZSet,
): void {
  const rows = delta.rows
  const ws = delta.weights
  for (let i = 0; i < rows.length; i++) {
    const d = rows[i]!
    if (hasNull(d, keyColumns)) continue
    const s = other.get(keyOf(d))
    if (s === undefined) continue
    const w = ws[i]! * sign
    if (s instanceof Bucket) {
      const orows = s.rows
      const ows = s.weights
      if (deltaIsLeft) for (let j = 0; j < orows.length; j++) out.push(combine(d, orows[j]!), w * ows[j]!)
      else for (let j = 0; j < orows.length; j++) out.push(combine(orows[j]!, d), w * ows[j]!)
    } else out.push(deltaIsLeft ? combine(d, s) : combine(s, d), w)
  }
}

function sameKey(a: RowKey, b: RowKey): boolean {
  return a === b || (a !== a && b !== b)
}

/** Emits −(dl ⋈ dr) (the pairs both probes counted). */
export function subtractDeltaJoin(
  dl: ZSet,
  dr: ZSet,
  left: ArrangeOperator,
  right: ArrangeOperator,
  combine: (l: Row, r: Row) => Row,
  out: ZSet,
): void {
  const lrows = dl.rows
  const lws = dl.weights
  const rrows = dr.rows
  const rws = dr.weights
  const lcols = left.keyColumns
  const rcols = right.keyColumns
  const rkeys = new Array<RowKey | undefined>(rrows.length)
  for (let j = 0; j < rrows.length; j++) {
    const r = rrows[j]!
    rkeys[j] = hasNull(r, rcols) ? undefined : right.keyOf(r)
  }
  if (lrows.length * rrows.length <= 256) {
    for (let i = 0; i < lrows.length; i++) {
      const l = lrows[i]!
      if (hasNull(l, lcols)) continue
      const k = left.keyOf(l)
      const wl = lws[i]!
      for (let j = 0; j < rrows.length; j++) {
        const rk = rkeys[j]
        if (rk !== undefined && sameKey(rk, k)) out.push(combine(l, rrows[j]!), -wl * rws[j]!)
      }
    }
    return
  }
  const index = new Map<RowKey, number[]>()
  for (let j = 0; j < rrows.length; j++) {
    const rk = rkeys[j]
    if (rk === undefined) continue
    const at = index.get(rk)
    if (at === undefined) index.set(rk, [j])
    else at.push(j)
  }
  for (let i = 0; i < lrows.length; i++) {
    const l = lrows[i]!
    if (hasNull(l, lcols)) continue
    const at = index.get(left.keyOf(l))
    if (at === undefined) continue
    const wl = lws[i]!
    for (let t = 0; t < at.length; t++) {
      const j = at[t]!
      out.push(combine(l, rrows[j]!), -wl * rws[j]!)
    }
  }
}

/** Appends the change of the inner join L ⋈ R for this step to `out`. */
export function innerJoinDelta(left: ArrangeOperator, right: ArrangeOperator, combine: (l: Row, r: Row) => Row, out: ZSet): void {
  const dl = left.out
  const dr = right.out
  const hasL = dl.rows.length !== 0
  const hasR = dr.rows.length !== 0
  // L_old = ∅ ⇒ Δ = ΔL ⋈ R_new (and symmetrically): one probe instead of three passes
  if (hasL && hasR && left !== right) {
    if (left.emptyBefore) return probeJoin(dl, left.keyColumns, left.keyOf, right.arrangement, combine, true, 1, out)
    if (right.emptyBefore) return probeJoin(dr, right.keyColumns, right.keyOf, left.arrangement, combine, false, 1, out)
  }
  if (hasL) probeJoin(dl, left.keyColumns, left.keyOf, right.arrangement, combine, true, 1, out)
  if (hasR) probeJoin(dr, right.keyColumns, right.keyOf, left.arrangement, combine, false, 1, out)
  if (hasL && hasR) subtractDeltaJoin(dl, dr, left, right, combine, out)
}

export class JoinOperator extends BaseOperator {
  readonly name = 'Join'
  readonly left: ArrangeOperator
  readonly right: ArrangeOperator
  readonly combine: (l: Row, r: Row) => Row

  constructor(left: ArrangeOperator, right: ArrangeOperator, combine: (l: Row, r: Row) => Row) {
    super([left, right])
    if (left.keyColumns.length !== right.keyColumns.length) {
      throw new Error(`internal: join key arity mismatch (${left.keyColumns.length} vs ${right.keyColumns.length})`)
    }
    this.left = left
    this.right = right
    this.combine = combine
  }

  step(): void {
    const out = new ZSet()
    innerJoinDelta(this.left, this.right, this.combine, out)
    this.out = settle(this.left, this.right, out)
  }
}

/** When both inputs changed in one step (a self-join, a transaction touching both sides),
 *  the delta can hold entries that cancel (+r … −r); consolidating drops them, so operators
 *  downstream never evaluate expressions over rows that are not really in the output.
 *  (With one side changed, no entry cancels another and the delta is left as it is.) */
export function settle(left: ArrangeOperator, right: ArrangeOperator, out: ZSet): ZSet {
  return left.out.rows.length !== 0 && right.out.rows.length !== 0 ? out.consolidate() : out
}

export function join(circuit: Circuit, left: ArrangeOperator, right: ArrangeOperator, combine: (l: Row, r: Row) => Row): JoinOperator {
  return circuit.add(new JoinOperator(left, right, combine))
}
