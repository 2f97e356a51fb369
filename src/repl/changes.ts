// SUBSCRIBE's output at the REPL: a psql-style table that grows a line per change,
// `tick | diff | columns…`. The header is printed with the widths of the first batch (the
// snapshot); when a later batch holds a wider value the header and its separator are printed
// again, with the new widths, before that batch's rows, so the columns stay aligned below it.
import { displayWidth, isRightAligned } from './format.js'
import { formatValue } from '../sql-runtime/value-text.js'
import type { ChangeBatch, ColumnInfo } from '../types.js'

export class ChangePrinter {
  readonly #write: (s: string) => void
  #columns: ColumnInfo[] | undefined
  #widths: number[] = []
  #rows = 0

  constructor(write: (s: string) => void) {
    this.#write = write
  }

  /** The header, once (widths from the names and the rows of `first`). */
  header(columns: readonly ColumnInfo[], first: readonly (readonly string[])[]): void {
    if (this.#columns) return
    this.#columns = [{ name: 'tick', type: 'bigint' }, { name: 'diff', type: 'bigint' }, ...columns]
    this.#widths = this.#columns.map((c, j) => Math.max(displayWidth(c.name), ...first.map((r) => displayWidth(r[j]!))))
    this.#printHeader()
  }

  #printHeader(): void {
    const names = this.#columns!.map((c, j) => {
      const w = this.#widths[j]!
      const space = w - displayWidth(c.name)
      return ' '.repeat(space >> 1) + c.name + ' '.repeat((space + 1) >> 1)
    })
    this.#write(` ${names.join(' | ')} \n-${this.#widths.map((w) => '-'.repeat(w)).join('-+-')}-\n`)
  }

  batch(b: ChangeBatch): void {
    const cells = b.changes.map(([row, diff]) => [String(b.tick), String(diff), ...b.columns.map((c, j) => cellText(formatValue(row[j] ?? null, c.type)))])
    this.header(b.columns, cells)
    const columns = this.#columns!
    // wider values than the header was drawn for: the header again, at the new widths
    let wider = false
    for (const row of cells) {
      row.forEach((v, j) => {
        const w = displayWidth(v)
        if (w > (this.#widths[j] ?? 0)) {
          this.#widths[j] = w
          wider = true
        }
      })
    }
    if (wider) this.#printHeader()
    let out = ''
    for (const row of cells) {
      this.#rows++
      const parts = row.map((v, j) => {
        const pad = ' '.repeat(this.#widths[j]! - displayWidth(v))
        if (isRightAligned(columns[j]!.type)) return pad + v
        return j === row.length - 1 ? v : v + pad
      })
      out += ` ${parts.join(' | ')}\n`
    }
    if (out) this.#write(out)
  }

  footer(): string {
    return this.#rows === 1 ? '(1 row)\n\n' : `(${this.#rows} rows)\n\n`
  }
}

/** A value on one line: newlines and other control characters shown escaped. */
function cellText(s: string): string {
  return s.replace(/[\x00-\x1f\x7f]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`))
}
