// Sources and sinks: the connectors at the edges of the engine.
//
// A source (`CREATE SOURCE name WITH (connector = '…', …)`) creates the streams it feeds and
// then produces their input in micro-batches; each micro-batch is one tick. The
// engine drives sources (src/engine/engine.ts): in the background, one batch per turn of the event
// loop, or by hand through `Engine.stepSource()`. Rows arrive in the engine's run-time
// representation (numbers for integers, µs for timestamps), so no conversion runs per row.
//
// A sink (`CREATE SINK name {FROM relation | AS query} WITH (connector = '…')`) maintains a
// query like a view but keeps no copy of its result: each committed tick's changes go to the
// connector. `blackhole` counts them and throws them away (what benchmarks write to).

import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState, type SourcePosition } from '../../grammar/index.js'
import { SqliteSink } from './sqlite-sink.js'
import { FileSink } from './file-sink.js'
import { SinkCounters } from './sink-counters.js'

/** A connector option as written in WITH (…): a number, a string, or a boolean. */
export type OptionValue = number | string | boolean | null

/** The options of a CREATE SOURCE / CREATE SINK, read one by one: every option must be
 *  consumed, so a misspelt one is an error rather than silently ignored. */
export class ConnectorOptions {
  readonly #values: Map<string, { value: OptionValue; at: number }>
  readonly #what: string
  readonly #positionOf: (at: number) => SourcePosition | undefined

  constructor(what: string, values: Map<string, { value: OptionValue; at: number }>, positionOf: (at: number) => SourcePosition | undefined) {
    this.#what = what
    this.#values = values
    this.#positionOf = positionOf
  }

  #take(name: string): { value: OptionValue; at: number } | undefined {
    const v = this.#values.get(name)
    this.#values.delete(name)
    return v
  }

  #invalid(at: number, message: string): RivuletError {
    return new RivuletError(SqlState.invalidParameterValue, message, this.#positionOf(at))
  }

  /** A number option in [min, max] (integer when asked); `fallback` when absent. */
  number(name: string, fallback: number, opts: { min?: number; max?: number; integer?: boolean; what?: string } = {}): number {
    const o = this.#take(name)
    if (o === undefined) return fallback
    const v = typeof o.value === 'string' ? Number(o.value) : o.value
    const { min = -Infinity, integer = false } = opts
    // an integer option is exact: at most 2^53 − 1
    const max = opts.max ?? (integer ? Number.MAX_SAFE_INTEGER : Infinity)
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
      const range = max === Infinity ? `${integer ? 'an integer' : 'a number'} ≥ ${min}` : `${integer ? 'an integer' : 'a number'} in [${min}, ${max}]`
      throw this.#invalid(o.at, `${this.#what} option "${name}" must be ${range}${opts.what ? ` (${opts.what})` : ''}, not ${JSON.stringify(o.value)}`)
    }
    return v
  }

  /** A text option; `fallback` when absent. */
  text(name: string, fallback: string | undefined): string | undefined {
    const o = this.#take(name)
    if (o === undefined) return fallback
    if (typeof o.value !== 'string') throw this.#invalid(o.at, `${this.#what} option "${name}" must be a string such as '…', not ${JSON.stringify(o.value)}`)
    return o.value
  }

  /** A boolean option (true/false, 'true'/'false'); `fallback` when absent. */
  boolean(name: string, fallback: boolean): boolean {
    const o = this.#take(name)
    if (o === undefined) return fallback
    if (typeof o.value === 'boolean') return o.value
    if (o.value === 'true' || o.value === 'false') return o.value === 'true'
    throw this.#invalid(o.at, `${this.#what} option "${name}" must be true or false, not ${JSON.stringify(o.value)}`)
  }

  /** Fails on the first option nobody took. */
  finish(known: readonly string[]): void {
    for (const [name, o] of this.#values) throw this.#invalid(o.at, `unrecognized ${this.#what} option "${name}" (known: ${known.join(', ')})`)
  }
}

/** One stream a source feeds: its CREATE STREAM statement and where its rows go. */
export interface SourceRelation {
  readonly name: string
  /** A CREATE STREAM statement (the engine runs it when the source is created). */
  readonly ddl: string
}

/** What a source connector implements. */
export interface SourceConnector {
  /** The streams it feeds, in the order of `next()`'s row arrays. */
  readonly relations: readonly SourceRelation[]
  /** Events produced so far. */
  readonly emitted: number
  /** Events it produces in all (Infinity: unbounded). */
  readonly total: number
  /** True once a bounded source has produced all its events. */
  readonly done: boolean
  /** Wall-clock pacing: at most this many events per second (Infinity: as fast as it goes). */
  readonly pace: number
  /** Events per micro-batch (one tick). */
  readonly batchSize: number
  /** Where it stands after its last batch, as plain data (numbers, strings, arrays, plain
   *  objects): the durable log records it with each batch, and `resume` goes back to it. */
  readonly offset: unknown
  /** Continues from an offset it gave (recovery: the next batch is the one after it). */
  resume(offset: unknown): void
  /** Produces up to `max` events as one micro-batch: rows per relation, in run-time
   *  representation. `processingTime` (µs) is the tick's processing time. Returns how many
   *  events it produced (0 when done). */
  next(max: number, processingTime: number, out: Row[][]): number
}

/** What a sink connector implements. */
export interface SinkConnector {
  /** One committed tick's changes (consolidated; weights +n inserts, −n retractions). A tick
   *  at or below the last one it wrote is a replay after a crash: it writes nothing. */
  write(tick: number, rows: readonly Row[], weights: readonly number[]): void
  /** Rows inserted and retracted so far (weights summed), and ticks written. */
  readonly stats: SinkStats
  /** Lets go of its target (DROP SINK, the engine's close). */
  close?(): void
}

/** Where a sink whose target cannot hold its own progress keeps it: the last tick it wrote and
 *  the target's length then (the data directory; in memory without one). */
export interface SinkProgressStore {
  get(id: string): { tick: number; bytes: number | null } | undefined
  set(id: string, tick: number, bytes: number | null): void
}

/** What a sink connector knows of the sink it serves. */
export interface SinkContext {
  readonly name: string
  /** Its identity across restarts: its name and the log position of its CREATE SINK, so a sink
   *  dropped and created again starts afresh. */
  readonly id: string
  /** The columns of its query: names and SQL types (run-time values convert by type). */
  readonly columns: readonly { readonly name: string; readonly type: string }[]
  /** The columns of the query's GROUP BY, when its result is one row per group (upsert's
   *  default key). */
  readonly groupKey: readonly number[] | undefined
  readonly progress: SinkProgressStore
}

export interface SinkStats {
  readonly inserted: number
  readonly retracted: number
  readonly ticks: number
  /** Set (by the engine) while the sink is in error: it holds at its last good tick and
   *  writes the difference when the error clears. */
  readonly error?: string
}

/** `connector = 'blackhole'`: counts what arrives and keeps none of it. */
export class BlackholeSink implements SinkConnector {
  readonly #counters = new SinkCounters()

  write(_tick: number, _rows: readonly Row[], weights: readonly number[]): void {
    this.#counters.count(weights)
  }

  get stats(): SinkStats {
    return this.#counters.stats
  }
}

export const SINK_CONNECTORS = ['blackhole', 'sqlite', 'file'] as const

/** The sink connector a CREATE SINK names. */
export function openSink(options: ConnectorOptions, connector: string | undefined, at: SourcePosition | undefined, context: SinkContext): SinkConnector {
  if (connector === 'blackhole') {
    options.finish(['connector', 'snapshot'])
    return new BlackholeSink()
  }
  if (connector === 'sqlite') return new SqliteSink(options, context, at)
  if (connector === 'file') return new FileSink(options, context, at)
  throw new RivuletError(SqlState.invalidParameterValue, connector === undefined ? `CREATE SINK needs WITH (connector = '…') (known: ${SINK_CONNECTORS.join(', ')})` : `unknown sink connector "${connector}" (known: ${SINK_CONNECTORS.join(', ')})`, at)
}
