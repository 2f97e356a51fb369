// TemporalFilterOperator — a filter on processing time (`WHERE ts > NOW() - INTERVAL '1' HOUR`).
//
// Semantics:  each row r has a validity interval [from(r), until(r)) in processing time
//             (µs); the output at time t is { (r, w) ∈ ∫in : from(r) ≤ t < until(r) }. A NULL
//             bound makes the row never visible (the comparison is not true). Per step at
//             time t:  out = { (r, w) ∈ Δin : from(r) ≤ t < until(r) }, and the row's future
//             changes are scheduled: +w at from(r) if from(r) > t, −w at until(r) if
//             until(r) > max(t, from(r)).  advance() at time t′: out = every scheduled change
//             with time ≤ t′ (consolidated), which leaves state. So rows enter and leave
//             the view as time passes, with retractions, exactly as a recompute at t′ would.
// State kept: the scheduled changes, by time (Map time → Map row key → [row, weight]) with the
//             distinct times sorted; a row leaves state once its last change is due. Bounded
//             by the rows still due to enter or leave.
//             Saved (checkpoint): the changes as parallel arrays (time, row, weight), put
//             back one by one on load.
// Linear:     yes in the input (for a fixed time); time makes it stateful.
// Retracts:   yes.

import type { Circuit } from '../circuit.js'
import { rowKey, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { lowerBound } from '../sorted.js'

export interface TemporalFilterOptions {
  /** When the row becomes visible (µs), null = never; undefined function = always was. */
  readonly from?: (row: Row) => number | null
  /** When the row stops being visible (µs, exclusive), null = never visible. */
  readonly until?: (row: Row) => number | null
  /** The current processing time (µs); constant within a tick. */
  readonly now: () => number
}

type Change = { row: Row; weight: number }

/** A TemporalFilterOperator's scheduled changes as plain data (parallel arrays). */
export interface TemporalFilterState {
  readonly times: number[]
  readonly rows: Row[]
  readonly weights: number[]
}

export class TemporalFilterOperator extends BaseOperator {
  readonly name = 'TemporalFilter'
  readonly #from: ((row: Row) => number | null) | undefined
  readonly #until: ((row: Row) => number | null) | undefined
  readonly #now: () => number
  readonly #byTime = new Map<number, Map<RowKey, Change>>()
  /** Distinct scheduled times, ascending. */
  #times: number[] = []
  #entries = 0
  /** Scheduled (time, row, weight) added (+) or removed (−) since the last commit. */
  readonly #journal = new Journal<{ time: number; row: Row; weight: number }[]>()

  constructor(input: Operator, options: TemporalFilterOptions) {
    super([input])
    this.#from = options.from
    this.#until = options.until
    this.#now = options.now
  }

  step(): void {
    const d = this.inputs[0]!.out
    const out = new ZSet()
    this.out = out
    const n = d.rows.length
    if (n === 0) return
    const now = this.#now()
    // user code first (bounds may throw): nothing is scheduled before it all ran
    const froms = new Array<number | null>(n)
    const untils = new Array<number | null>(n)
    for (let i = 0; i < n; i++) {
      const r = d.rows[i]!
      froms[i] = this.#from ? this.#from(r) : -Infinity
      untils[i] = this.#until ? this.#until(r) : Infinity
    }
    const scheduled: { time: number; row: Row; weight: number }[] = []
    for (let i = 0; i < n; i++) {
      const f = froms[i]!
      const u = untils[i]!
      if (f === null || u === null || f >= u) continue
      const row = d.rows[i]!
      const w = d.weights[i]!
      if (f <= now && now < u) out.push(row, w)
      if (f > now) scheduled.push({ time: f, row, weight: w })
      if (u > now && u !== Infinity) scheduled.push({ time: u, row, weight: -w })
    }
    if (scheduled.length === 0) return
    this.#journal.record(scheduled)
    for (const s of scheduled) this.#schedule(s.time, s.row, s.weight)
  }

  advance(): void {
    const now = this.#now()
    const times = this.#times
    let due = 0
    while (due < times.length && times[due]! <= now) due++
    if (due === 0) return
    const emitted = new ZSet()
    const removed: { time: number; row: Row; weight: number }[] = []
    for (let i = 0; i < due; i++) {
      const t = times[i]!
      for (const c of this.#byTime.get(t)!.values()) {
        emitted.push(c.row, c.weight)
        removed.push({ time: t, row: c.row, weight: -c.weight })
      }
    }
    this.#journal.record(removed)
    for (const s of removed) this.#schedule(s.time, s.row, s.weight)
    const merged = this.out.rows.length === 0 ? emitted : new ZSet(this.out.rows.slice(), this.out.weights.slice())
    if (merged !== emitted) merged.append(emitted)
    this.out = merged.consolidate()
  }

  /** Adds `weight` to the change scheduled for `row` at `time` (0 removes it). */
  #schedule(time: number, row: Row, weight: number): void {
    let at = this.#byTime.get(time)
    if (at === undefined) {
      at = new Map()
      this.#byTime.set(time, at)
      this.#insertTime(time)
    }
    const k = rowKey(row)
    const c = at.get(k)
    if (c === undefined) {
      at.set(k, { row, weight })
      this.#entries++
    } else {
      c.weight += weight
      if (c.weight === 0) {
        at.delete(k)
        this.#entries--
      }
    }
    if (at.size === 0) {
      this.#byTime.delete(time)
      this.#removeTime(time)
    }
  }

  #insertTime(t: number): void {
    const times = this.#times
    if (times.length === 0 || times[times.length - 1]! < t) {
      times.push(t)
      return
    }
    times.splice(lowerBound(times, t), 0, t)
  }

  #removeTime(t: number): void {
    this.#times.splice(lowerBound(this.#times, t), 1)
  }

  override commit(): void {
    this.#journal.commit()
  }

  override rollback(): void {
    this.#journal.undo((entries) => {
      for (const s of entries) this.#schedule(s.time, s.row, -s.weight)
    })
  }

  /** Between ticks (nothing journaled): the scheduled changes, rows shared. */
  saveState(): TemporalFilterState {
    const times: number[] = []
    const rows: Row[] = []
    const weights: number[] = []
    for (const t of this.#times) {
      for (const c of this.#byTime.get(t)!.values()) {
        times.push(t)
        rows.push(c.row)
        weights.push(c.weight)
      }
    }
    return { times, rows, weights }
  }

  loadState(state: unknown): void {
    const s = state as TemporalFilterState
    this.#byTime.clear()
    this.#times = []
    this.#entries = 0
    this.#journal.commit()
    for (let i = 0; i < s.times.length; i++) this.#schedule(s.times[i]!, s.rows[i]!, s.weights[i]!)
  }

  override stateSize(): number {
    return this.#entries
  }

  override describeState(): string {
    return `changes scheduled in processing time: ${this.#entries} (${this.#times.length} distinct times)`
  }
}

export function temporalFilter(circuit: Circuit, input: Operator, options: TemporalFilterOptions): TemporalFilterOperator {
  return circuit.add(new TemporalFilterOperator(input, options))
}
