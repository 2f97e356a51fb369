// AntiJoinOperator — the left rows whose key has no row (total weight ≤ 0) in the right
// arrangement; rows keep their left weights.
//
// Semantics (NOT EXISTS):  out = Δ{ (l, w) ∈ L : l's key is NULL or R[k(l)] ≤ 0 }
//             computed like SemiJoin (ΔL rows pass iff unmatched in R_old; keys whose match
//             status flips emit ±L_new[k]). NULL-key left rows always pass.
// Semantics (nullAware, NOT IN; one key column):
//             l passes ⇔ R is empty  ∨  (k(l) ≠ NULL ∧ R[k(l)] ≤ 0 ∧ R has no NULL-key row).
//             When neither "R is empty" nor "R has a NULL key" changes in a step, the per-key
//             rule above applies; when one of them flips, every left row may flip, and the
//             output is recomputed for all of L: Σ_{L_new} w·(pass_new − pass_old) + Σ_{ΔL} w·pass_old.
// State kept: none (the two arrangements hold it).
// Linear:     no.
// Retracts:   yes.

import type { Circuit } from '../circuit.js'
import { hasNull, type RowKey } from '../key.js'
import { BaseOperator } from '../operator.js'
import { settle } from './join.js'
import { ZSet, type Row } from '../zset.js'
import type { ArrangeOperator } from './arrange.js'
import { deltaWeights, emitKey, matchFilterDelta } from './semi-join.js'

export interface AntiJoinOptions {
  /** SQL NOT IN semantics (a NULL on the right side makes every comparison unknown). */
  nullAware?: boolean
}

export class AntiJoinOperator extends BaseOperator {
  readonly name = 'AntiJoin'
  readonly left: ArrangeOperator
  readonly right: ArrangeOperator
  readonly nullAware: boolean

  constructor(left: ArrangeOperator, right: ArrangeOperator, options: AntiJoinOptions = {}) {
    super([left, right])
    if (left.keyColumns.length !== right.keyColumns.length) throw new Error('internal: anti-join key arity mismatch')
    this.left = left
    this.right = right
    this.nullAware = options.nullAware === true
    if (this.nullAware && left.keyColumns.length !== 1) throw new Error('internal: null-aware anti-join needs exactly one key column')
  }

  step(): void {
    const out = new ZSet()
    if (this.nullAware) this.#stepNullAware(out)
    else matchFilterDelta(this.left, this.right, false, null, out)
    this.out = settle(this.left, this.right, out)
  }

  #stepNullAware(out: ZSet): void {
    const l = this.left
    const r = this.right
    const rarr = r.arrangement
    // Global facts about R, new and old.
    const dr = r.out
    let dTotal = 0
    let dNull = 0
    const rcol = r.keyColumns[0]!
    for (let i = 0; i < dr.rows.length; i++) {
      const w = dr.weights[i]!
      dTotal += w
      const v = dr.rows[i]![rcol]
      if (v === null || v === undefined) dNull += w
    }
    const totalNew = rarr.totalWeight
    const nullNew = rarr.weightOf(null)
    const emptyNew = totalNew <= 0
    const emptyOld = totalNew - dTotal <= 0
    const nullsNew = nullNew > 0
    const nullsOld = nullNew - dNull > 0
    const md = deltaWeights(r)
    const lcols = l.keyColumns
    const keyOf = l.keyOf
    const passes = (row: Row, k: RowKey, rw: number, empty: boolean, nulls: boolean): boolean =>
      empty || (!hasNull(row, lcols) && rw <= 0 && !nulls)

    if (emptyNew !== emptyOld || nullsNew !== nullsOld) {
      l.arrangement.forEach((row, w, k) => {
        const nullKey = hasNull(row, lcols)
        const rw = nullKey ? 0 : rarr.weightOf(k)
        const rwOld = md === null || nullKey ? rw : rw - (md.get(k) ?? 0)
        const pn = passes(row, k, rw, emptyNew, nullsNew) ? 1 : 0
        const po = passes(row, k, rwOld, emptyOld, nullsOld) ? 1 : 0
        if (pn !== po) out.push(row, w * (pn - po))
      })
      const dl = l.out
      for (let i = 0; i < dl.rows.length; i++) {
        const row = dl.rows[i]!
        const nullKey = hasNull(row, lcols)
        const k = nullKey ? null : keyOf(row)
        const rwOld = nullKey ? 0 : rarr.weightOf(k) - (md?.get(k) ?? 0)
        if (passes(row, k, rwOld, emptyOld, nullsOld)) out.push(row, dl.weights[i]!)
      }
      return
    }
    // Globals unchanged: the per-key rule.
    const dl = l.out
    for (let i = 0; i < dl.rows.length; i++) {
      const row = dl.rows[i]!
      const nullKey = hasNull(row, lcols)
      const k = nullKey ? null : keyOf(row)
      const rwOld = nullKey ? 0 : rarr.weightOf(k) - (md?.get(k) ?? 0)
      if (passes(row, k, rwOld, emptyOld, nullsOld)) out.push(row, dl.weights[i]!)
    }
    if (md === null || emptyNew || nullsNew) return // no non-NULL key can change status
    for (const [k, dw] of md) {
      if (dw === 0) continue
      const wNew = rarr.weightOf(k)
      const unNew = wNew <= 0
      const unOld = wNew - dw <= 0
      if (unNew !== unOld) emitKey(l, k, unNew ? 1 : -1, null, out)
    }
  }
}

export function antiJoin(circuit: Circuit, left: ArrangeOperator, right: ArrangeOperator, options: AntiJoinOptions = {}): AntiJoinOperator {
  return circuit.add(new AntiJoinOperator(left, right, options))
}
