// SemiJoinOperator — the left rows whose key has at least one row (positive total weight) in
// the right arrangement; rows keep their left weights (EXISTS / IN without NULL subtleties).
//
// Semantics:  out = Δ{ (l, w) ∈ L : R[k(l)] > 0 }, where R[k] is the total right weight of key k.
//             Per step, with R_old[k] = R_new[k] − ΔR[k]:
//               – each ΔL row passes through iff its key matched in R_old;
//               – each key k whose match status flips with ΔR emits ±L_new[k]
//                 (+ when it starts matching, − when it stops).
//             (new − old of the filtered set; both arrangements are already NEW here.)
//             NULL keys never match.
// State kept: none (the two arrangements hold it).
// Linear:     no.
// Retracts:   yes.
//
// `matchFilterDelta` is shared with AntiJoin (unmatched rows) and OuterJoin (null-extension).

import type { Circuit } from '../circuit.js'
import { hasNull, type RowKey } from '../key.js'
import { BaseOperator } from '../operator.js'
import { settle } from './join.js'
import { ZSet, type Row } from '../zset.js'
import { Bucket, type ArrangeOperator } from './arrange.js'

/** Total ΔM weight per non-NULL key (null when ΔM is empty). */
export function deltaWeights(m: ArrangeOperator): Map<RowKey, number> | null {
  const d = m.out
  const rows = d.rows
  if (rows.length === 0) return null
  const ws = d.weights
  const cols = m.keyColumns
  const keyOf = m.keyOf
  const res = new Map<RowKey, number>()
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    if (hasNull(r, cols)) continue
    const k = keyOf(r)
    res.set(k, (res.get(k) ?? 0) + ws[i]!)
  }
  return res
}

/** Emits the rows of key k of arrangement p, scaled by sign, through wrap (or as is). */
export function emitKey(p: ArrangeOperator, k: RowKey, sign: number, wrap: ((row: Row) => Row) | null, out: ZSet): void {
  const s = p.arrangement.get(k)
  if (s === undefined) return
  if (s instanceof Bucket) {
    const rows = s.rows
    const ws = s.weights
    for (let i = 0; i < rows.length; i++) out.push(wrap === null ? rows[i]! : wrap(rows[i]!), sign * ws[i]!)
  } else out.push(wrap === null ? s : wrap(s), sign)
}

/**
 * Appends Δ{ (p, w) ∈ P : matched(p) = wantMatched } to `out`, where matched(p) ⇔ p's key is
 * not NULL and M holds a positive total weight under it. Rows are passed through `wrap`.
 */
export function matchFilterDelta(
  p: ArrangeOperator,
  m: ArrangeOperator,
  wantMatched: boolean,
  wrap: ((row: Row) => Row) | null,
  out: ZSet,
): void {
  const md = deltaWeights(m)
  const dp = p.out
  const prows = dp.rows
  if (prows.length !== 0) {
    const pws = dp.weights
    const cols = p.keyColumns
    const keyOf = p.keyOf
    const marr = m.arrangement
    for (let i = 0; i < prows.length; i++) {
      const r = prows[i]!
      let matchedOld: boolean
      if (hasNull(r, cols)) matchedOld = false
      else {
        const k = keyOf(r)
        let w = marr.weightOf(k)
        if (md !== null) w -= md.get(k) ?? 0
        matchedOld = w > 0
      }
      if (matchedOld === wantMatched) out.push(wrap === null ? r : wrap(r), pws[i]!)
    }
  }
  if (md === null) return
  const marr = m.arrangement
  for (const [k, dw] of md) {
    if (dw === 0) continue
    const wNew = marr.weightOf(k)
    const matchedNew = wNew > 0
    const matchedOld = wNew - dw > 0
    if (matchedNew === matchedOld) continue
    // passes now but not before → +P[k]; passed before but not now → −P[k]
    emitKey(p, k, matchedNew === wantMatched ? 1 : -1, wrap, out)
  }
}

export class SemiJoinOperator extends BaseOperator {
  readonly name = 'SemiJoin'
  readonly left: ArrangeOperator
  readonly right: ArrangeOperator

  constructor(left: ArrangeOperator, right: ArrangeOperator) {
    super([left, right])
    if (left.keyColumns.length !== right.keyColumns.length) throw new Error('internal: semi-join key arity mismatch')
    this.left = left
    this.right = right
  }

  step(): void {
    const out = new ZSet()
    matchFilterDelta(this.left, this.right, true, null, out)
    this.out = settle(this.left, this.right, out)
  }
}

export function semiJoin(circuit: Circuit, left: ArrangeOperator, right: ArrangeOperator): SemiJoinOperator {
  return circuit.add(new SemiJoinOperator(left, right))
}
