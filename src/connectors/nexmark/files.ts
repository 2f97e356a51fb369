// Writes a bounded Nexmark run to files: person, auction and bid as JSONL or CSV.
//
// Why: to load Nexmark data into other systems (Postgres, DuckDB, Flink, Feldera, …) or into
// the engine through COPY, and compare results on identical input. Timestamps are written as
// Postgres prints them ('2015-07-15 00:00:01.5', UTC, fraction zeros trimmed) so the text
// reads back as the same TIMESTAMP; bid.p_time (processing time) is not part of the data and
// is left out. Output is streamed with backpressure, so runs larger than memory are fine.
//
// Imports only the generator (and node built-ins).

import { once } from 'node:events'
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { NEXMARK_SCHEMAS, NexmarkGenerator, type NexmarkOptions } from './generator.js'
import { Numeric } from '../../../planner/index.js'

/** Events generated (and written) per batch. */
const EVENTS_PER_BATCH = 10_000

type RowKind = 'person' | 'auction' | 'bid'
const ROW_KINDS: readonly RowKind[] = ['person', 'auction', 'bid']

/** Generates `options.events` Nexmark events (must be finite) and writes them to
 *  `dir/person.<format>`, `dir/auction.<format>` and `dir/bid.<format>` (creating dir).
 *  JSONL: one object per line keyed by column name. CSV: a header line, then one record per
 *  line; a field is quoted (RFC 4180, `"` doubled) when it contains `,` `"` CR or LF, and an
 *  empty string is written `""` so that it stays distinct from NULL in Postgres' COPY.
 *  Returns the number of rows of each kind and the paths written. */
export async function writeNexmarkFiles(
  dir: string,
  options: NexmarkOptions & { format: 'jsonl' | 'csv' },
): Promise<{ person: number; auction: number; bid: number; files: string[] }> {
  const { format, ...generatorOptions } = options
  if (format !== 'jsonl' && format !== 'csv') throw new RangeError(`Nexmark file format must be 'jsonl' or 'csv', not ${String(format)}`)
  const generator = new NexmarkGenerator(generatorOptions)
  if (!Number.isFinite(generator.options.events)) throw new RangeError('writeNexmarkFiles needs a finite number of events')

  await mkdir(dir, { recursive: true })
  const timestamps = new TimestampFormatter()
  const outputs = ROW_KINDS.map((kind) => {
    const file = path.join(dir, `${kind}.${format}`)
    const stream = createWriteStream(file)
    stream.on('error', () => {}) // surfaced by write() / finished() below, never as an uncaught event
    const columns = NEXMARK_SCHEMAS[kind].filter((column) => column.name !== 'p_time')
    const formatRow = format === 'csv' ? csvRowFormatter(columns, timestamps) : jsonRowFormatter(columns, timestamps)
    return { kind, file, stream, formatRow, rows: 0 }
  })
  try {
    if (format === 'csv') {
      for (const output of outputs) {
        const header = NEXMARK_SCHEMAS[output.kind].filter((column) => column.name !== 'p_time').map((column) => column.name)
        await writeText(output.stream, header.join(',') + '\n')
      }
    }
    while (!generator.done) {
      const batch: Record<RowKind, unknown[][]> = { person: [], auction: [], bid: [] }
      generator.fill(EVENTS_PER_BATCH, batch)
      for (const output of outputs) {
        const rows = batch[output.kind]
        if (rows.length === 0) continue
        let text = ''
        for (const row of rows) text += output.formatRow(row)
        output.rows += rows.length
        await writeText(output.stream, text)
      }
    }
    for (const output of outputs) output.stream.end()
    await Promise.all(outputs.map((output) => finished(output.stream)))
  } catch (error) {
    for (const output of outputs) output.stream.destroy()
    throw error
  }
  const [person, auction, bid] = outputs.map((output) => output.rows) as [number, number, number]
  return { person, auction, bid, files: outputs.map((output) => output.file) }
}

/** Writes text, waiting for 'drain' when the stream's buffer is full; throws the stream's error. */
async function writeText(stream: WriteStream, text: string): Promise<void> {
  if (stream.errored) throw stream.errored
  if (!stream.write(text)) {
    if (stream.errored) throw stream.errored
    await once(stream, 'drain') // rejects if the stream errors meanwhile
  }
}

type Column = (typeof NEXMARK_SCHEMAS)[RowKind][number]

/** A row as one CSV record (with its newline). */
function csvRowFormatter(columns: readonly Column[], timestamps: TimestampFormatter): (row: readonly unknown[]) => string {
  const isTimestamp = columns.map((column) => column.type === 'timestamp')
  return (row) => {
    let line = ''
    for (let i = 0; i < columns.length; i++) {
      if (i > 0) line += ','
      const value = row[i]
      if (value === null || value === undefined) continue // NULL: an empty unquoted field
      if (isTimestamp[i]) line += timestamps.format(value as number)
      else if (typeof value === 'string') line += csvText(value)
      else line += String(value)
    }
    return line + '\n'
  }
}

/** A text field, quoted when it must be (or is empty). */
function csvText(text: string): string {
  if (text === '') return '""'
  if (!/[",\r\n]/.test(text)) return text
  return '"' + text.replace(/"/g, '""') + '"'
}

/** A row as one JSON object (with its newline), keys in column order. */
function jsonRowFormatter(columns: readonly Column[], timestamps: TimestampFormatter): (row: readonly unknown[]) => string {
  const keys = columns.map((column, i) => (i === 0 ? '{' : ',') + JSON.stringify(column.name) + ':')
  const isTimestamp = columns.map((column) => column.type === 'timestamp')
  return (row) => {
    let line = ''
    for (let i = 0; i < columns.length; i++) {
      const value = row[i]
      line += keys[i]!
      if (value === null || value === undefined) line += 'null'
      else if (isTimestamp[i]) line += '"' + timestamps.format(value as number) + '"'
      // exact numbers are written with every digit (JSON numbers have no size limit)
      else if (typeof value === 'bigint' || value instanceof Numeric) line += String(value)
      else line += JSON.stringify(value)
    }
    return line + '}\n'
  }
}

/** Epoch µs → 'YYYY-MM-DD HH:MM:SS[.ffffff]' in UTC with the fraction's trailing zeros
 *  trimmed, as Postgres prints a TIMESTAMP (years 1..9999). Remembers the last second's text,
 *  since consecutive events mostly share it. */
class TimestampFormatter {
  #second = NaN
  #secondText = ''

  format(micros: number): string {
    const second = Math.floor(micros / 1e6)
    const fraction = micros - second * 1e6
    if (second !== this.#second) {
      const iso = new Date(second * 1000).toISOString() // 'YYYY-MM-DDTHH:MM:SS.000Z'
      if (iso.length !== 24 || iso.startsWith('0000')) throw new RangeError(`timestamp ${micros} µs is outside years 1..9999`)
      this.#second = second
      this.#secondText = iso.slice(0, 10) + ' ' + iso.slice(11, 19)
    }
    if (fraction === 0) return this.#secondText
    return this.#secondText + '.' + String(fraction).padStart(6, '0').replace(/0+$/, '')
  }
}
