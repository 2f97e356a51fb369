// ReduceOperator — GROUP BY key columns with aggregates.
//
// Semantics:  for every group g = rows with equal key columns and total weight count(g) > 0,
//             one output row [...key values, agg₁(g), …, aggₘ(g)]. Each aggregate folds
//             (arg(r), w) for the rows r of g passing its optional filter. Per step:
//             out = Σ_{g touched by Δin} (new row of g) − (previous row of g), where a group
//             whose results did not change emits nothing, and a group whose count drops to 0
//             only retracts its row (and is forgotten).
//             With `emitEmptyGroup` (no key columns: a global aggregate) the single row exists
//             even for empty input (COUNT → 0, SUM → null); it is emitted the first time the
//             operator steps, which `Circuit.backfill` guarantees (it steps every fresh op).
// State kept: Map<groupKey, Group{count, accumulators, last output row}>; the first two
//             accumulators are fields of the group (one object per group plus what the
//             aggregators allocate); accumulators are plain data owned by the aggregators.
//             With `expire`, bounded: `advance()` (end of tick) drops every group whose key
//             a watermark has made final (no change can reach it any more). To find them
//             without visiting every group, groups are indexed by their expire key value:
//             Map value → ExpireBucket (the groups created with that value, in creation order;
//             an entry whose group has left the bucket — deleted at count 0 — is stale and
//             skipped, and a bucket compacts when stale entries dominate), plus the distinct
//             numeric values in an ascending array. Finality is downward closed in the value
//             (a watermark passed it), so advance() reads the values from the smallest while
//             they are final and visits only their groups; values of other kinds (NULL, NaN,
//             strings, objects: none with a watermark column) sit in a short list asked one
//             by one. A final value's bucket leaves the index once it holds no group (a group
//             without an output row — net count < 0 — stays, as before, until it has one).
//             Saved (checkpoint): parallel arrays of the groups' keys, counts, accumulators,
//             output rows and expire values, and the aggregators' names (accumulators of one
//             aggregator mean nothing to another); the expire index is rebuilt on load.
//             Incremental checkpoints (saveKeyed): once one has asked, the keys of the groups
//             changed since the last (ivm/keyed-state.ts); an entry is a group's count,
//             accumulators, output row and expire value.
//             With insert-only aggregators (Aggregator.insertOnly, e.g. append-only MIN /
//             MAX): for each group touched since the last commit, those aggregates'
//             accumulators as they were at the commit (what rollback puts back).
// Linear:     no (unless every aggregate is, which is not exploited).
// Retracts:   yes.
//
// Throwing user code (arg / filter) runs in a first pass over the delta that touches no
// state; only then is the delta journaled and absorbed. Rollback re-absorbs the negated
// journal and recomputes the output rows of the touched groups without emitting; it puts the
// groups an advance() dropped back first, re-indexed (groups it creates or deletes enter and
// leave the expire index as in a step).
// Insert-only aggregators cannot fold the negated journal: the first pass refuses a delta
// with a negative weight (an internal error: the planner judged a retracting input
// insert-only), and rollback skips them while re-absorbing, then puts back the accumulators
// they had at the last commit (their `add` never mutates one, so keeping it is enough).

import type { Aggregator } from '../aggregators/aggregator.js'
import type { Circuit } from '../circuit.js'
import { keyFunction, valuesEqual, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { ValueBuckets, type ValueBucket } from '../value-buckets.js'
import { ALL_CHANGED, KeyChanges, copyPlainData, type ChangeShares, fuzzyKeyedBase, saveKeyedPart, snapshotKeyedPart, type KeyedEntries, type KeyedPart, type KeyedSnapshot } from '../keyed-state.js'

export interface AggregateSpec {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  aggregator: Aggregator<any, any>
  arg: (row: Row) => unknown
  filter?: (row: Row) => boolean
}

export interface ReduceOptions {
  /** Global aggregate (no key columns): the row exists even when the input is empty. */
  emitEmptyGroup?: boolean
  /** Groups that can never change again (a watermark passed their key value at `keyIndex`,
   *  a position in the key columns) are dropped from state by `advance()`; their output row
   *  stays emitted. `isFinal` reads the current watermark; over numbers it must be downward
   *  closed (isFinal(x) and y < x imply isFinal(y)), as "the watermark passed x" is. */
  expire?: { readonly keyIndex: number; readonly isFinal: (keyValue: unknown) => boolean }
}

/** A ReduceOperator's state as plain data (see the header): one entry per group in each
 *  array, in the groups' map order. */
export interface ReduceState {
  readonly initialized: boolean
  readonly keys: RowKey[]
  readonly counts: number[]
  /** Each group's accumulators, one per aggregate (plain data, see Aggregator). */
  readonly accs: unknown[][]
  readonly outs: (Row | null)[]
  /** With expire: the expire key value each group is indexed under; null without. */
  readonly expireValues: unknown[] | null
  /** The aggregators' names, one per aggregate (absent in states saved before it existed,
   *  when no aggregator was insert-only). */
  readonly aggregators?: string[]
}

/** The part of a ReduceOperator's keyed checkpoint saved whole. */
interface ReduceWhole {
  readonly initialized: boolean
  readonly aggregators: string[]
}

/** A saved state that does not fit the operator loading it (another aggregator's
 *  accumulators): the caller falls back as for any unfitting checkpoint. */
export class StateMismatchError extends Error {}

/** Marks a value excluded by an aggregate's filter. */
export const SKIP: unique symbol = Symbol('skip')

/** What a reducing operator keeps per group: the row count, the first two accumulators in
 *  fields (no array per group for the common one- or two-aggregate case), the rest in `more`. */
export interface AccumulatorSlots {
  count: number
  a0: unknown
  a1: unknown
  more: unknown[] | null
}

/** Folds one row's extracted values `vals[base … base + aggs.length)` (SKIP where an
 *  aggregate's filter dropped the row) into the slots with weight w, and counts the row. */
export function foldValues(s: AccumulatorSlots, aggs: readonly AggregateSpec[], vals: readonly unknown[], base: number, w: number): void {
  s.count += w
  const m = aggs.length
  if (m > 0) {
    const v = vals[base]
    if (v !== SKIP) s.a0 = aggs[0]!.aggregator.add(s.a0, v, w)
  }
  if (m > 1) {
    const v = vals[base + 1]
    if (v !== SKIP) s.a1 = aggs[1]!.aggregator.add(s.a1, v, w)
  }
  for (let j = 2; j < m; j++) {
    const v = vals[base + j]
    if (v !== SKIP) s.more![j - 2] = aggs[j]!.aggregator.add(s.more![j - 2], v, w)
  }
}

/** Per-group state. The first two accumulators live in fields (no array per group for the
 *  common one- or two-aggregate reduce); further ones in `more`. */
class Group {
  count = 0
  a0: unknown = undefined
  a1: unknown = undefined
  more: unknown[] | null = null
  /** The row last emitted (null when none is out). */
  out: Row | null = null
  /** In the touched list this step. */
  touched = false
  /** With expire: the bucket holding this group's live index entry (null: none). */
  ex: ExpireBucket | null = null
}

/** The groups of one expire key value (see the header). */
class ExpireBucket implements ValueBucket {
  readonly value: unknown
  readonly vk: RowKey
  /** Entries: group keys and groups (parallel); an entry is live iff groups[i].ex === this. */
  keys: RowKey[] = []
  groups: Group[] = []
  /** Live entries. */
  live = 0
  constructor(value: unknown, vk: RowKey) {
    this.value = value
    this.vk = vk
  }
}

function getAcc(g: Group, j: number): unknown {
  return j === 0 ? g.a0 : j === 1 ? g.a1 : g.more![j - 2]
}

function setAcc(g: Group, j: number, acc: unknown): void {
  if (j === 0) g.a0 = acc
  else if (j === 1) g.a1 = acc
  else g.more![j - 2] = acc
}

/** Completes a group's new output row `next` (its key columns already set) with the `m`
 *  results in `res`, clearing `res` for the next group, and emits the row's change into
 *  `out` (none during a silent refresh): −old (when the group had a row), +next. */
export function emitGroupRow(out: ZSet | null, old: Row | null, next: unknown[], nk: number, res: unknown[], m: number): void {
  for (let j = 0; j < m; j++) {
    next[nk + j] = res[j]
    res[j] = undefined
  }
  if (out !== null) {
    if (old !== null) out.push(old, -1)
    out.push(next, 1)
  }
}

export class ReduceOperator extends BaseOperator {
  readonly name = 'Reduce'
  readonly keyColumns: readonly number[]
  readonly aggregates: readonly AggregateSpec[]
  readonly emitEmptyGroup: boolean
  readonly #keyOf: (row: Row) => RowKey
  readonly #groups = new Map<RowKey, Group>()
  /** Journal of absorbed deltas; null marks the step that emitted the empty-input row. */
  readonly #journal = new Journal<ZSet | null>()
  #initialized = false
  #touched: Group[] = []
  /** For each touched group, a row of this step (its key values). */
  #touchedRows: Row[] = []
  readonly #results: unknown[]
  readonly #expire: ReduceOptions['expire']
  /** Groups dropped by `advance()` since the last commit (restored by rollback). */
  #expired: [RowKey, Group][] = []
  /** With expire: the index of groups by expire key value (see the header). */
  #byValue = new ValueBuckets((value, vk) => new ExpireBucket(value, vk))
  /** Position of the expire value in input rows (keyColumns[expire.keyIndex]); −1 without. */
  readonly #expireColumn: number
  /** Positions of the insert-only aggregates (see the header); empty for most reduces. */
  readonly #insertOnly: readonly number[]
  /** For each group touched since the last commit, when there are insert-only aggregates:
   *  their accumulators (in #insertOnly order) as of the last commit. */
  #committedAccs = new Map<Group, unknown[]>()
  /** The groups changed since the last incremental checkpoint (null until one asks). */
  #changes: KeyChanges | null = null

  constructor(input: Operator, keyColumns: readonly number[], aggregates: readonly AggregateSpec[], options: ReduceOptions = {}) {
    super([input])
    this.keyColumns = keyColumns.slice()
    this.aggregates = aggregates.slice()
    this.emitEmptyGroup = options.emitEmptyGroup === true
    if (this.emitEmptyGroup && this.keyColumns.length !== 0) throw new Error('internal: emitEmptyGroup needs zero key columns')
    this.#keyOf = keyFunction(this.keyColumns)
    this.#results = new Array<unknown>(aggregates.length)
    this.#expire = options.expire
    const ki = options.expire?.keyIndex
    if (ki !== undefined && !(Number.isInteger(ki) && ki >= 0 && ki < this.keyColumns.length)) throw new Error(`internal: expire keyIndex ${ki} is not a key position`)
    this.#expireColumn = ki !== undefined ? this.keyColumns[ki]! : -1
    const insertOnly: number[] = []
    for (let j = 0; j < aggregates.length; j++) if (aggregates[j]!.aggregator.insertOnly === true) insertOnly.push(j)
    this.#insertOnly = insertOnly
  }

  /** Drops the groups a watermark has made final (see ReduceOptions.expire): visits the
   *  buckets of the final values only. */
  advance(): void {
    const expire = this.#expire
    if (expire === undefined) return
    this.#byValue.sweep(expire.isFinal, (b) => this.#expireBucket(b))
  }

  /** Drops the groups of a final value's bucket that have an output row; returns whether it
   *  still holds groups (else the index lets it go). */
  #expireBucket(b: ExpireBucket): boolean {
    const keys = b.keys
    const groups = b.groups
    let w = 0
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!
      if (g.ex !== b) continue
      const key = keys[i]!
      if (g.out === null) {
        keys[w] = key
        groups[w++] = g
        continue
      }
      // noted before the change (a checkpoint's snapshot may copy the group first)
      this.#changes?.deleted(key)
      g.ex = null
      this.#groups.delete(key)
      this.#expired.push([key, g])
    }
    keys.length = w
    groups.length = w
    b.live = w
    return w !== 0
  }

  /** Adds a live index entry for group g (key `key`) under expire value v. */
  #index(key: RowKey, g: Group, v: unknown): void {
    const b = this.#byValue.get(v)
    b.keys.push(key)
    b.groups.push(g)
    b.live++
    g.ex = b
  }

  /** Removes g's index entry (the group is deleted). */
  #unindex(g: Group): void {
    const b = g.ex
    if (b === null) return
    g.ex = null
    b.live--
    if (b.live === 0) {
      // the value leaves the index
      this.#byValue.delete(b)
      b.keys = []
      b.groups = []
    } else if (b.groups.length >= 32 && b.live * 2 < b.groups.length) {
      // compact: drop the stale entries
      const keys = b.keys
      const groups = b.groups
      let w = 0
      for (let i = 0; i < groups.length; i++) {
        if (groups[i]!.ex !== b) continue
        keys[w] = keys[i]!
        groups[w++] = groups[i]!
      }
      keys.length = w
      groups.length = w
    }
  }

  step(): void {
    const d = this.inputs[0]!.out
    const n = d.rows.length
    const out = new ZSet()
    this.out = out
    if (n === 0 && this.#initialized) return
    // Pass 1: user code; no state touched.
    if (this.#insertOnly.length !== 0) this.#refuseRetractions(d)
    const keys = new Array<RowKey>(n)
    const vals = this.#extract(d, keys)
    // Pass 2: journal, then absorb.
    if (!this.#initialized && this.emitEmptyGroup) {
      this.#journal.record(null)
      this.#initialized = true
      this.#touch(this.#group('', EMPTY_ROW), EMPTY_ROW)
    }
    this.#initialized = true
    if (n !== 0) {
      this.#journal.record(d)
      this.#absorb(d, keys, vals, 1)
    }
    // Pass 3: emit changed rows.
    this.#refresh(out)
  }

  /** Insert-only aggregates take no negative weight: a delta carrying one is refused whole,
   *  before any state changes (so the tick still rolls back exactly). */
  #refuseRetractions(d: ZSet): void {
    const ws = d.weights
    for (let i = 0; i < ws.length; i++) {
      if (ws[i]! < 0) {
        const names = this.#insertOnly.map((j) => this.aggregates[j]!.aggregator.name).join(', ')
        throw new Error(`internal: ${this.name}#${this.id} has insert-only aggregates (${names}) but its input retracts a row (weight ${ws[i]}); the planner judged the input insert-only`)
      }
    }
  }

  /** Keeps g's insert-only accumulators as of the last commit, the first time g is touched
   *  after it. */
  #keepCommitted(g: Group): void {
    if (this.#committedAccs.has(g)) return
    const io = this.#insertOnly
    const accs = new Array<unknown>(io.length)
    for (let k = 0; k < io.length; k++) accs[k] = getAcc(g, io[k]!)
    this.#committedAccs.set(g, accs)
  }

  #extract(d: ZSet, keys: RowKey[]): unknown[] {
    const rows = d.rows
    const n = rows.length
    const aggs = this.aggregates
    const m = aggs.length
    const keyOf = this.#keyOf
    const vals = new Array<unknown>(n * m)
    for (let i = 0; i < n; i++) {
      const r = rows[i]!
      keys[i] = keyOf(r)
      for (let j = 0; j < m; j++) {
        const a = aggs[j]!
        vals[i * m + j] = a.filter !== undefined && !a.filter(r) ? SKIP : a.arg(r)
      }
    }
    return vals
  }

  /** The group of `key` (of `row`), created (and indexed) if absent. */
  #group(key: RowKey, row: Row): Group {
    const g = this.#groups.get(key)
    return g !== undefined ? g : this.#create(key, row)
  }

  #create(key: RowKey, row: Row): Group {
    const aggs = this.aggregates
    const m = aggs.length
    const g = new Group()
    if (m > 0) g.a0 = aggs[0]!.aggregator.create()
    if (m > 1) g.a1 = aggs[1]!.aggregator.create()
    if (m > 2) {
      const more = new Array<unknown>(m - 2)
      for (let j = 2; j < m; j++) more[j - 2] = aggs[j]!.aggregator.create()
      g.more = more
    }
    this.#groups.set(key, g)
    this.#changes?.inserted(key)
    if (this.#expireColumn >= 0) this.#index(key, g, row[this.#expireColumn])
    return g
  }

  #touch(g: Group, row: Row): void {
    if (!g.touched) {
      g.touched = true
      this.#touched.push(g)
      this.#touchedRows.push(row)
    }
  }

  #absorb(d: ZSet, keys: readonly RowKey[], vals: readonly unknown[], sign: number): void {
    const rows = d.rows
    const ws = d.weights
    const aggs = this.aggregates
    const m = aggs.length
    const keepCommitted = sign > 0 && this.#insertOnly.length !== 0
    for (let i = 0; i < rows.length; i++) {
      const w = ws[i]! * sign
      const g = this.#group(keys[i]!, rows[i]!)
      if (keepCommitted) this.#keepCommitted(g)
      if (!g.touched) {
        this.#changes?.changed(keys[i]!)
        g.touched = true
        this.#touched.push(g)
        this.#touchedRows.push(rows[i]!)
      }
      foldValues(g, aggs, vals, i * m, w)
    }
  }

  /** Recomputes the rows of the touched groups; emits the changes to `out` unless null. */
  #refresh(out: ZSet | null): void {
    const touched = this.#touched
    const touchedRows = this.#touchedRows
    const aggs = this.aggregates
    const m = aggs.length
    const nk = this.keyColumns.length
    const res = this.#results
    for (let t = 0; t < touched.length; t++) {
      const g = touched[t]!
      const row = touchedRows[t]!
      g.touched = false
      const keep = this.emitEmptyGroup ? this.#initialized : g.count > 0
      const old = g.out
      if (!keep) {
        if (old !== null) {
          out?.push(old, -1)
          g.out = null
        }
        if (g.count === 0 && !this.emitEmptyGroup) {
          const key = this.#keyOf(row)
          this.#changes?.deleted(key)
          this.#groups.delete(key)
          if (g.ex !== null) this.#unindex(g)
        }
        continue
      }
      let same = old !== null
      for (let j = 0; j < m; j++) {
        const v = aggs[j]!.aggregator.result(getAcc(g, j))
        res[j] = v
        if (same && !valuesEqual(old![nk + j], v)) same = false
      }
      if (same) continue
      const next = new Array<unknown>(nk + m)
      if (old !== null) for (let c = 0; c < nk; c++) next[c] = old[c]
      else {
        const cols = this.keyColumns
        for (let c = 0; c < nk; c++) next[c] = row[cols[c]!]
      }
      emitGroupRow(out, old, next, nk, res, m)
      g.out = next
    }
    touched.length = 0
    touchedRows.length = 0
  }

  override commit(): void {
    this.#journal.commit()
    if (this.#expired.length !== 0) this.#expired = []
    if (this.#committedAccs.size !== 0) this.#committedAccs = new Map()
  }

  override rollback(): void {
    // groups expired at the end of the tick come back first; then the tick's input is undone
    const col = this.#expire !== undefined ? this.#expire.keyIndex : -1
    for (const [key, g] of this.#expired) {
      const cur = this.#groups.get(key)
      if (cur === undefined) this.#changes?.inserted(key)
      else this.#changes?.changed(key)
      if (cur !== undefined && cur !== g) this.#unindex(cur)
      this.#groups.set(key, g)
      this.#index(key, g, g.out![col])
    }
    this.#expired = []
    const global = this.emitEmptyGroup ? this.#groups.get('') : undefined
    this.#journal.undo((d) => {
      if (d === null) {
        this.#initialized = false
        return
      }
      const keys = new Array<RowKey>(d.rows.length)
      const vals = this.#extract(d, keys)
      // insert-only aggregates are not folded backwards: their committed accumulators return below
      const m = this.aggregates.length
      for (const j of this.#insertOnly) for (let i = 0; i < d.rows.length; i++) vals[i * m + j] = SKIP
      this.#absorb(d, keys, vals, -1)
    })
    const io = this.#insertOnly
    for (const [g, accs] of this.#committedAccs) {
      for (let k = 0; k < io.length; k++) setAcc(g, io[k]!, accs[k])
    }
    this.#committedAccs = new Map()
    if (global !== undefined) this.#touch(global, EMPTY_ROW)
    this.#refresh(null)
  }

  /** Between ticks (nothing journaled): the groups as they are, sharing the accumulators. */
  saveState(): ReduceState {
    const n = this.#groups.size
    const keys = new Array<RowKey>(n)
    const counts = new Array<number>(n)
    const accs = new Array<unknown[]>(n)
    const outs = new Array<Row | null>(n)
    const ki = this.#expire?.keyIndex
    const expireValues = ki !== undefined ? new Array<unknown>(n) : null
    const m = this.aggregates.length
    let i = 0
    for (const [key, g] of this.#groups) {
      keys[i] = key
      counts[i] = g.count
      const a = new Array<unknown>(m)
      for (let j = 0; j < m; j++) a[j] = getAcc(g, j)
      accs[i] = a
      outs[i] = g.out
      // every live group is indexed (ex set); the output row is a fallback that never runs
      if (expireValues !== null) expireValues[i] = g.ex !== null ? g.ex.value : (g.out?.[ki!] ?? null)
      i++
    }
    return { initialized: this.#initialized, keys, counts, accs, outs, expireValues, aggregators: this.aggregates.map((a) => a.aggregator.name) }
  }

  /** Replaces every group (a backfilled fresh operator may hold the empty-input row) and
   *  rebuilds the expire index, in the saved order, from the groups' expire values. */
  loadState(state: unknown): void {
    const s = state as ReduceState
    this.#startLoad(s.initialized, s.aggregators)
    for (let i = 0; i < s.keys.length; i++) this.#loadGroup(s.keys[i]!, s.counts[i]!, s.accs[i]!, s.outs[i]!, s.expireValues?.[i])
  }

  /** Incremental checkpoints: each group's entry is [count, accumulators, output row, expire
   *  value]; the whole part says whether the operator stepped and names the aggregators. */
  saveKeyed(all: boolean): KeyedPart {
    const whole: ReduceWhole = { initialized: this.#initialized, aggregators: this.aggregates.map((a) => a.aggregator.name) }
    const changes = all || this.#changes === null ? null : this.#changes.take()
    if (changes === null) this.#changes = new KeyChanges((k) => this.#groups.has(k), () => this.#groups.size)
    return saveKeyedPart(whole, this.#groups, changes, (g) => this.#groupEntry(g, false))
  }

  /** saveKeyed's part, fixed now and read in chunks while ticks go on (KeyedSnapshot): a
   *  group's pre-image copies its accumulators, which folding changes in place. */
  snapshotKeyed(all: boolean): KeyedSnapshot {
    const whole: ReduceWhole = { initialized: this.#initialized, aggregators: this.aggregates.map((a) => a.aggregator.name) }
    const changes = all || this.#changes === null ? null : this.#changes.take()
    if (changes === null) this.#changes = new KeyChanges((k) => this.#groups.has(k), () => this.#groups.size)
    return snapshotKeyedPart(whole, this.#groups, changes, this.#changes!, (g) => this.#groupEntry(g, false), (g) => this.#groupEntry(g, true))
  }

  changeShares(): ChangeShares {
    return this.#changes?.shares ?? ALL_CHANGED
  }

  /** A base read while ticks go on (fuzzyKeyedBase), recording changes afresh from here. */
  fuzzyBaseKeyed(): KeyedSnapshot {
    const whole: ReduceWhole = { initialized: this.#initialized, aggregators: this.aggregates.map((a) => a.aggregator.name) }
    this.#changes = new KeyChanges((k) => this.#groups.has(k), () => this.#groups.size)
    return fuzzyKeyedBase(whole, this.#groups, (g) => this.#groupEntry(g, false))
  }

  /** A group's entry in a part: [count, accumulators, output row, expire value]; `copy`: the
   *  accumulators copied (output rows are replaced, never changed in place). */
  #groupEntry(g: Group, copy: boolean): unknown {
    const m = this.aggregates.length
    const ki = this.#expire?.keyIndex
    const a = new Array<unknown>(m)
    for (let j = 0; j < m; j++) a[j] = copy ? copyPlainData(getAcc(g, j)) : getAcc(g, j)
    return [g.count, a, g.out, ki !== undefined ? (g.ex !== null ? g.ex.value : (g.out?.[ki] ?? null)) : null]
  }

  loadKeyed(whole: unknown, entries: KeyedEntries): void {
    const w = whole as ReduceWhole
    this.#startLoad(w.initialized, w.aggregators)
    const { keys, values } = entries
    for (let i = 0; i < keys.length; i++) {
      const [count, accs, out, ev] = values[i] as [number, unknown[], Row | null, unknown]
      this.#loadGroup(keys[i]!, count, accs, out, ev)
    }
    this.#changes = new KeyChanges((k) => this.#groups.has(k), () => this.#groups.size)
  }

  /** Empties the operator for a load, after checking the saved aggregators fit. */
  #startLoad(initialized: boolean, aggregators: string[] | undefined): void {
    const names = this.aggregates.map((a) => a.aggregator.name)
    // a state saved before names were kept holds no insert-only aggregator's accumulators
    const fits = aggregators !== undefined ? aggregators.length === names.length && aggregators.every((n, j) => n === names[j]) : this.#insertOnly.length === 0
    if (!fits) throw new StateMismatchError(`${this.name}#${this.id}: the saved state is of aggregators (${aggregators?.join(', ') ?? 'unnamed, none insert-only'}), not (${names.join(', ')})`)
    this.#changes?.settle()
    this.#groups.clear()
    this.#changes = null
    this.#byValue = new ValueBuckets((value, vk) => new ExpireBucket(value, vk))
    this.#expired = []
    this.#committedAccs = new Map()
    this.#touched.length = 0
    this.#touchedRows.length = 0
    this.#journal.commit()
    this.#initialized = initialized
  }

  #loadGroup(key: RowKey, count: number, a: unknown[], out: Row | null, expireValue: unknown): void {
    const m = this.aggregates.length
    const g = new Group()
    g.count = count
    if (m > 0) g.a0 = a[0]
    if (m > 1) g.a1 = a[1]
    if (m > 2) g.more = a.slice(2)
    g.out = out
    this.#groups.set(key, g)
    if (this.#expire !== undefined) this.#index(key, g, expireValue)
  }

  /** The current output row of every group (the integral of `out`), for a view reading this
   *  reduce's state instead of keeping a copy. Only exact without `expire`. */
  forEachOutput(fn: (row: Row) => void): void {
    for (const g of this.#groups.values()) if (g.out !== null) fn(g.out)
  }

  /** The output row of the group with this key (a key of the key values, as keyFunction
   *  over them builds it), or null. */
  outputOf(key: RowKey): Row | null {
    return this.#groups.get(key)?.out ?? null
  }

  get expires(): boolean {
    return this.#expire !== undefined
  }

  /** Number of groups held. */
  get size(): number {
    return this.#groups.size
  }

  override stateSize(): number {
    return this.#groups.size
  }

  override describeState(): string {
    const names = this.aggregates.map((a) => a.aggregator.name).join(', ')
    return `groups keyed by [${this.keyColumns.map((c) => '#' + c).join(', ')}]: ${this.#groups.size} groups (${names})${this.#expire ? `; freed once key #${this.#expire.keyIndex} is final` : ''}`
  }
}

const EMPTY_ROW: Row = []

export function reduce(
  circuit: Circuit,
  input: Operator,
  keyColumns: readonly number[],
  aggregates: readonly AggregateSpec[],
  options: ReduceOptions = {},
): ReduceOperator {
  return circuit.add(new ReduceOperator(input, keyColumns, aggregates, options))
}
