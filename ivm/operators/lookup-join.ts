// LookupJoinOperator — processing-time lookup join (`JOIN t FOR SYSTEM_TIME AS OF PROCTIME()`):
// each left row is joined with the right table as it is when the row arrives, and the result
// is never revised when the table changes later.
//
// Semantics:  with R_t the right arrangement's state after step t (it is an input, so it has
//             already absorbed this step's ΔR: a same-step table change is seen), and
//             E_t(l) = { (l ++ r, wr) : (r, wr) ∈ R_t[k(l)], residual(l, r) }
//                    + { (l ++ NULLᵣ, 1) : outer, and Σ wr over E_t(l) ≤ 0 }
//             (a NULL in k(l) matches nothing):
//               out_t = Σ_{(l, w) ∈ ΔL, w > 0} w · E_t(l)            (ΔR alone emits nothing)
//                     − Σ_{(l, w) ∈ ΔL, w < 0} the −w newest remembered units of E_{t'}(l),
//             where a unit of l inserted at step t' remembers the E_{t'}(l) it emitted, so a
//             deletion retracts exactly what was emitted for it, not a fresh lookup. Left
//             deltas with deletions are consolidated first (the output depends on ΔL as a
//             Z-set, not on the order of its entries). Deleting more units of l than are
//             remembered, or any deletion when `leftAppendOnly`, throws (contract violation).
// State kept: none when `leftAppendOnly` (a stream: the right arrangement holds the table).
//             Otherwise Map<rowKey(l), Emitted | Emitted[]>: per left row, its live units in
//             arrival order, each with the output rows it emitted (shared with the emitted
//             delta, not copied) and its multiplicity. Journaled per step (insertions as keys
//             to pop, deletions as the units popped / partially taken), so rollback is exact.
// Saved:      that Map only (the right arrangement is saved by its owner), each unit as a
//             plain object; load rebuilds the Emitted units.
// Linear:     in ΔL for a fixed right state (append-only mode); stateful otherwise.
// Retracts:   only when the left input does (retractions of earlier emissions); never
//             because of the right side.
//
// Cost: O(|ΔL| + matches) per step; ΔR costs nothing here (the operator is stepped and
// returns). Non-append-only mode adds one consolidation of ΔL (only when it holds a
// deletion) and one rowKey per ΔL row. The user `residual` runs in a first pass that touches
// no state; the state is then journaled and updated.

import type { Circuit } from '../circuit.js'
import { hasNull, keyFunction, rowKey, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { concatRows, ZSet, type Row } from '../zset.js'
import { Bucket, type ArrangeOperator, type Arrangement } from './arrange.js'

export interface LookupJoinOptions {
  /** Left columns compared with the right arrangement's key columns. */
  readonly leftKey: readonly number[]
  /** LEFT join: a left row without match emits [...l, ...NULLs(rightWidth)]. */
  readonly outer: boolean
  readonly rightWidth: number
  /** True when the left input only ever inserts (a stream): no state is kept at all. */
  readonly leftAppendOnly: boolean
  /** Extra ON conditions on a candidate pair (part of the match for outer). May throw (user code). */
  readonly residual?: (l: Row, r: Row) => boolean
}

/** Units of one left row inserted in one step, with what they emitted per unit. */
class Emitted {
  /** Live units (left multiplicity). */
  count: number
  /** The single output row (when exactly one), else null. */
  row: Row | null
  /** Its weight per unit. */
  weight: number
  /** The output rows and weights per unit, when more than one (else null). */
  rows: Row[] | null
  weights: number[] | null

  constructor(count: number, row: Row | null, weight: number, rows: Row[] | null, weights: number[] | null) {
    this.count = count
    this.row = row
    this.weight = weight
    this.rows = rows
    this.weights = weights
  }

  /** Pushes the emitted rows scaled by `units` (negative to retract). */
  emit(units: number, out: ZSet): void {
    if (this.row !== null) out.push(this.row, this.weight * units)
    else if (this.rows !== null) {
      const rows = this.rows
      const ws = this.weights!
      for (let i = 0; i < rows.length; i++) out.push(rows[i]!, ws[i]! * units)
    }
  }
}

/** One Emitted unit of a checkpoint (its fields as plain data). */
interface EmittedState {
  readonly count: number
  readonly row: Row | null
  readonly weight: number
  readonly rows: Row[] | null
  readonly weights: number[] | null
}

/** LookupJoinOperator's checkpoint: rowKey(l) → its live units, oldest first (empty when
 *  append-only). */
export type LookupJoinState = Map<RowKey, EmittedState[]>

/** Undo record of one step: keys whose newest units were pushed, and deletions. */
interface StepUndo {
  readonly pushed: RowKey[]
  readonly taken: TakeUndo[]
}

/** A deletion at `key`: `popped` whole units (in pop order, newest first), then `taken` units
 *  from `partial` (which stayed, newest). */
interface TakeUndo {
  readonly key: RowKey
  readonly popped: Emitted[]
  readonly partial: Emitted | null
  readonly taken: number
}


export class LookupJoinOperator extends BaseOperator {
  readonly name = 'LookupJoin'
  readonly left: Operator
  readonly right: ArrangeOperator
  readonly leftKey: readonly number[]
  readonly outer: boolean
  readonly rightWidth: number
  readonly leftAppendOnly: boolean
  readonly #arrangement: Arrangement
  readonly #keyOf: (row: Row) => RowKey
  readonly #residual: ((l: Row, r: Row) => boolean) | undefined
  readonly #nulls: Row
  /** rowKey(l) → live units of l, oldest first (unused when append-only). */
  readonly #state = new Map<RowKey, Emitted | Emitted[]>()
  readonly #journal = new Journal<StepUndo>()

  constructor(left: Operator, right: ArrangeOperator, options: LookupJoinOptions) {
    super([left, right])
    if (options.leftKey.length !== right.keyColumns.length) {
      throw new Error(`internal: lookup join key arity mismatch (${options.leftKey.length} vs ${right.keyColumns.length})`)
    }
    this.left = left
    this.right = right
    this.leftKey = options.leftKey.slice()
    this.outer = options.outer
    this.rightWidth = options.rightWidth
    this.leftAppendOnly = options.leftAppendOnly
    this.#arrangement = right.arrangement
    this.#keyOf = keyFunction(this.leftKey)
    this.#residual = options.residual
    this.#nulls = new Array<unknown>(options.rightWidth).fill(null)
  }

  step(): void {
    const d = this.left.out
    if (d.rows.length === 0) {
      // only the table changed: nothing is revised
      if (this.out.rows.length !== 0) this.out = ZSet.empty()
      return
    }
    const out = new ZSet()
    if (this.leftAppendOnly) {
      const rows = d.rows
      const ws = d.weights
      for (let i = 0; i < rows.length; i++) {
        const w = ws[i]!
        if (w > 0) this.#probe(rows[i]!, w, out)
        else if (w < 0) throw new Error(`${this.name}#${this.id}: the left input was declared append-only but deletes a row`)
      }
    } else this.#stepRetracting(d, out)
    this.out = out
  }

  /** Emits w · E(l) against the right arrangement's current state. */
  #probe(l: Row, w: number, out: ZSet): void {
    let matched = 0
    if (!hasNull(l, this.leftKey)) {
      const s = this.#arrangement.get(this.#keyOf(l))
      if (s !== undefined) {
        const residual = this.#residual
        if (s instanceof Bucket) {
          const rrows = s.rows
          const rws = s.weights
          for (let j = 0; j < rrows.length; j++) {
            const r = rrows[j]!
            if (residual !== undefined && !residual(l, r)) continue
            out.push(concatRows(l, r), w * rws[j]!)
            matched += rws[j]!
          }
        } else if (residual === undefined || residual(l, s)) {
          out.push(concatRows(l, s), w)
          matched = 1
        }
      }
    }
    if (this.outer && matched <= 0) out.push(concatRows(l, this.#nulls), w)
  }

  #stepRetracting(delta: ZSet, out: ZSet): void {
    let hasDelete = false
    for (let i = 0; i < delta.weights.length; i++) {
      if (delta.weights[i]! < 0) {
        hasDelete = true
        break
      }
    }
    // with a deletion, one entry per row, so the result does not depend on the entry order
    const d = hasDelete ? delta.consolidate() : delta
    const rows = d.rows
    const ws = d.weights
    const n = rows.length
    // pass 1 (may throw, touches no state): lookups for insertions, checks for deletions
    const keys = new Array<RowKey>(n)
    const made = new Array<Emitted | null>(n)
    for (let i = 0; i < n; i++) {
      const l = rows[i]!
      const w = ws[i]!
      const k = rowKey(l)
      keys[i] = k
      if (w > 0) {
        const start = out.rows.length
        this.#probe(l, w, out)
        made[i] = this.#remember(out, start, w)
      } else {
        made[i] = null
        if (this.#liveUnits(k) < -w) throw new Error(`${this.name}#${this.id}: the left input deletes a row it never inserted`)
      }
    }
    // pass 2: journal, then update the state
    const undo: StepUndo = { pushed: [], taken: [] }
    this.#journal.record(undo)
    for (let i = 0; i < n; i++) {
      const e = made[i]!
      if (e !== null) {
        undo.pushed.push(keys[i]!)
        this.#push(keys[i]!, e)
      } else if (ws[i]! < 0) undo.taken.push(this.#take(keys[i]!, -ws[i]!, out))
    }
  }

  /** The units just emitted into out[start..] for w units of a left row. */
  #remember(out: ZSet, start: number, w: number): Emitted {
    const end = out.rows.length
    if (end === start) return new Emitted(w, null, 0, null, null)
    if (end === start + 1) return new Emitted(w, out.rows[start]!, out.weights[start]! / w, null, null)
    const ows = out.weights
    const unit = new Array<number>(end - start)
    for (let j = start; j < end; j++) unit[j - start] = ows[j]! / w
    return new Emitted(w, null, 0, out.rows.slice(start, end), unit)
  }

  #liveUnits(k: RowKey): number {
    const s = this.#state.get(k)
    if (s === undefined) return 0
    if (s instanceof Emitted) return s.count
    let c = 0
    for (let i = 0; i < s.length; i++) c += s[i]!.count
    return c
  }

  /** Appends units to key k (newest). */
  #push(k: RowKey, e: Emitted): void {
    const state = this.#state
    const s = state.get(k)
    if (s === undefined) state.set(k, e)
    else if (s instanceof Emitted) state.set(k, [s, e])
    else s.push(e)
  }

  /** Removes the newest units of key k. */
  #pop(k: RowKey): Emitted {
    const state = this.#state
    const s = state.get(k)!
    if (s instanceof Emitted) {
      state.delete(k)
      return s
    }
    const e = s.pop()!
    if (s.length === 1) state.set(k, s[0]!)
    return e
  }

  /** Retracts the `units` newest units of key k into out; returns how to undo it. */
  #take(k: RowKey, units: number, out: ZSet): TakeUndo {
    const popped: Emitted[] = []
    let left = units
    for (;;) {
      const s = this.#state.get(k)!
      const newest = s instanceof Emitted ? s : s[s.length - 1]!
      if (newest.count > left) {
        newest.emit(-left, out)
        newest.count -= left
        return { key: k, popped, partial: newest, taken: left }
      }
      newest.emit(-newest.count, out)
      left -= newest.count
      popped.push(this.#pop(k))
      if (left === 0) return { key: k, popped, partial: null, taken: 0 }
    }
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((u) => {
      for (let i = u.taken.length - 1; i >= 0; i--) {
        const t = u.taken[i]!
        if (t.partial !== null) t.partial.count += t.taken
        for (let j = t.popped.length - 1; j >= 0; j--) this.#push(t.key, t.popped[j]!)
      }
      for (let i = u.pushed.length - 1; i >= 0; i--) this.#pop(u.pushed[i]!)
    })
  }

  /** Between ticks (nothing journaled): the remembered units per left row, sharing their
   *  output rows (the caller serializes it before the next step). */
  saveState(): LookupJoinState {
    const res: LookupJoinState = new Map()
    const save = (e: Emitted): EmittedState => ({ count: e.count, row: e.row, weight: e.weight, rows: e.rows, weights: e.weights })
    for (const [k, s] of this.#state) res.set(k, s instanceof Emitted ? [save(s)] : s.map(save))
    return res
  }

  /** Replaces the remembered units (in the saved key order) by the saved ones. */
  loadState(state: unknown): void {
    const s = state as LookupJoinState
    const st = this.#state
    st.clear()
    this.#journal.commit()
    const load = (e: EmittedState): Emitted => new Emitted(e.count, e.row, e.weight, e.rows, e.weights)
    // a key with one unit maps to it directly, as #push leaves it
    for (const [k, units] of s) st.set(k, units.length === 1 ? load(units[0]!) : units.map(load))
  }

  override stateSize(): number {
    return this.#state.size
  }

  override describeState(): string {
    if (this.leftAppendOnly) return ''
    return `emitted rows per left row (to retract them): ${this.#state.size} left rows`
  }
}

export function lookupJoin(circuit: Circuit, left: Operator, right: ArrangeOperator, options: LookupJoinOptions): LookupJoinOperator {
  return circuit.add(new LookupJoinOperator(left, right, options))
}
