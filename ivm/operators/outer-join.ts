// OuterJoinOperator — left / right / full outer equi-join of two arrangements.
//
// Semantics:  L ⟕ R = (L ⋈ R) + { (combine(l, NULLᵣ), w) : (l, w) ∈ L, l unmatched in R }
//             (and symmetrically for the right side with combine(NULLₗ, r)), where a row is
//             unmatched when its key has a NULL or the other side's total weight under the key
//             is ≤ 0. The delta is the inner join delta (see JoinOperator) plus the delta of
//             the unmatched set (see SemiJoin's matchFilterDelta): ΔL rows are null-extended
//             iff unmatched before this step's ΔR; a key that gains its first match retracts
//             its null-extended rows, one that loses its last match re-inserts them.
// State kept: none (the two arrangements hold it; the all-NULL pad rows are allocated once).
// Linear:     no.
// Retracts:   yes.

import type { Circuit } from '../circuit.js'
import { BaseOperator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import type { ArrangeOperator } from './arrange.js'
import { innerJoinDelta, settle } from './join.js'
import { matchFilterDelta } from './semi-join.js'

export type OuterJoinKind = 'left' | 'right' | 'full'

export class OuterJoinOperator extends BaseOperator {
  readonly name = 'OuterJoin'
  readonly left: ArrangeOperator
  readonly right: ArrangeOperator
  readonly combine: (l: Row, r: Row) => Row
  readonly kind: OuterJoinKind
  readonly leftWidth: number
  readonly rightWidth: number
  readonly #padLeft: ((l: Row) => Row) | null
  readonly #padRight: ((r: Row) => Row) | null

  constructor(
    left: ArrangeOperator,
    right: ArrangeOperator,
    combine: (l: Row, r: Row) => Row,
    kind: OuterJoinKind,
    leftWidth: number,
    rightWidth: number,
  ) {
    super([left, right])
    if (left.keyColumns.length !== right.keyColumns.length) throw new Error('internal: outer join key arity mismatch')
    this.left = left
    this.right = right
    this.combine = combine
    this.kind = kind
    this.leftWidth = leftWidth
    this.rightWidth = rightWidth
    const nullLeft: Row = new Array<unknown>(leftWidth).fill(null)
    const nullRight: Row = new Array<unknown>(rightWidth).fill(null)
    // preserved left rows: combine(l, NULLs); preserved right rows: combine(NULLs, r)
    this.#padLeft = kind === 'right' ? null : (l: Row): Row => combine(l, nullRight)
    this.#padRight = kind === 'left' ? null : (r: Row): Row => combine(nullLeft, r)
  }

  step(): void {
    const out = new ZSet()
    innerJoinDelta(this.left, this.right, this.combine, out)
    if (this.#padLeft !== null) matchFilterDelta(this.left, this.right, false, this.#padLeft, out)
    if (this.#padRight !== null) matchFilterDelta(this.right, this.left, false, this.#padRight, out)
    this.out = settle(this.left, this.right, out)
  }
}

export function outerJoin(
  circuit: Circuit,
  left: ArrangeOperator,
  right: ArrangeOperator,
  combine: (l: Row, r: Row) => Row,
  kind: OuterJoinKind,
  leftWidth: number,
  rightWidth: number,
): OuterJoinOperator {
  return circuit.add(new OuterJoinOperator(left, right, combine, kind, leftWidth, rightWidth))
}
