// `CREATE SINK s FROM v WITH (connector = 'file', path = 'out.jsonl' [, format = 'changes' |
// 'debezium'])`: a view's changes as JSON lines.
//   changes   {"col": value, …, "tick": n, "diff": 1 | -1}, one line per change
//   debezium  {"before": …, "after": …, "op": "c" | "d", "source": {"connector": "rivulet",
//             "sink": name, "tick": n}}: an insert has `after`, a retraction `before`
// Effectively-once: a tick's lines are written and fsynced, then the sink's progress (the tick
// and the file's length after it) is stored where the engine keeps it (the data directory). On
// reopening, the file is cut back to the length of the last tick in the progress, so a partly
// written last tick disappears, and the engine's replay writes the ticks after it once. The sink
// owns its file: a new sink starts it empty. State it keeps: the open file, its length and its
// last tick.

import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs'
import path from 'node:path'
import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState, type SourcePosition } from '../../grammar/index.js'
import { toResultValue } from '../sql-runtime/values.js'
import type { ConnectorOptions, SinkConnector, SinkContext, SinkStats } from './sources.js'
import { SinkCounters } from './sink-counters.js'

export const FILE_SINK_OPTIONS = ['connector', 'snapshot', 'path', 'format'] as const

/** A JSON value for a result value (a BIGINT beyond 2^53 as its digits, exactly). */
function json(v: unknown): unknown {
  return typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v
}

export class FileSink implements SinkConnector {
  readonly #fd: number
  readonly #context: SinkContext
  readonly #format: 'changes' | 'debezium'
  #bytes: number
  #lastTick: number
  readonly #counters = new SinkCounters()

  constructor(options: ConnectorOptions, context: SinkContext, at: SourcePosition | undefined) {
    const file = options.text('path', undefined)
    const format = options.text('format', 'changes')
    options.finish(FILE_SINK_OPTIONS)
    if (file === undefined) throw new RivuletError(SqlState.invalidParameterValue, "a file sink needs WITH (path = '…')", at)
    if (format !== 'changes' && format !== 'debezium') throw new RivuletError(SqlState.invalidParameterValue, `file sink option "format" must be 'changes' or 'debezium', not '${format}'`, at)
    this.#format = format
    this.#context = context
    const progress = context.progress.get(context.id)
    this.#lastTick = progress?.tick ?? -1
    this.#bytes = progress?.bytes ?? 0
    try {
      this.#fd = openSync(path.resolve(file), 'a+')
      // what is past the last recorded tick was never confirmed: cut it
      ftruncateSync(this.#fd, this.#bytes)
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `cannot open file sink "${file}": ${(e as Error).message}`, at)
    }
  }

  #object(row: Row): Record<string, unknown> {
    const o: Record<string, unknown> = {}
    const columns = this.#context.columns
    for (let i = 0; i < columns.length; i++) o[columns[i]!.name] = json(toResultValue(row[i], columns[i]!.type as never))
    return o
  }

  write(tick: number, rows: readonly Row[], weights: readonly number[]): void {
    if (tick <= this.#lastTick) return
    let text = ''
    for (let i = 0; i < rows.length; i++) {
      const w = weights[i]!
      let line: string
      if (this.#format === 'changes') line = JSON.stringify({ ...this.#object(rows[i]!), tick, diff: Math.sign(w) })
      else {
        const values = this.#object(rows[i]!)
        line = JSON.stringify({ before: w < 0 ? values : null, after: w > 0 ? values : null, op: w > 0 ? 'c' : 'd', source: { connector: 'rivulet', sink: this.#context.name, tick } })
      }
      for (let n = Math.abs(w); n > 0; n--) text += line + '\n'
    }
    const bytes = Buffer.from(text)
    try {
      writeSync(this.#fd, bytes, 0, bytes.length, this.#bytes)
      fsyncSync(this.#fd)
    } catch (e) {
      throw new RivuletError(SqlState.ioError, `file sink could not write tick ${tick}: ${(e as Error).message}`)
    }
    this.#bytes += bytes.length
    this.#lastTick = tick
    this.#context.progress.set(this.#context.id, tick, this.#bytes)
    this.#counters.count(weights)
  }

  get stats(): SinkStats {
    return this.#counters.stats
  }

  close(): void {
    closeSync(this.#fd)
  }
}
