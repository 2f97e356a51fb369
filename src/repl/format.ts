// Rendering of values and results the way psql shows them (SPEC §1.1, §1.2): the Postgres text
// output form of each value, psql's aligned table format (and its expanded `\x` form), and
// command tags for statements that return no rows.
import type { ColumnInfo, ResultValue, SqlTypeName, StatementResult } from '../types.js'
import { formatValue } from '../sql-runtime/value-text.js'

// ---------------------------------------------------------------------------------------------
// Display width (psql counts screen columns: wide East Asian characters take two, combining
// marks none; tabs expand to the next multiple of 8; other control characters print escaped)
// ---------------------------------------------------------------------------------------------

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200f\u2060-\u2064\ufeff]$/u

const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f0],
  [0x23f3, 0x23f3], [0x25fd, 0x25fe], [0x2614, 0x2615], [0x2648, 0x2653], [0x267f, 0x267f],
  [0x2693, 0x2693], [0x26a1, 0x26a1], [0x26aa, 0x26ab], [0x26bd, 0x26be], [0x26c4, 0x26c5],
  [0x26ce, 0x26ce], [0x26d4, 0x26d4], [0x26ea, 0x26ea], [0x26f2, 0x26f3], [0x26f5, 0x26f5],
  [0x26fa, 0x26fa], [0x26fd, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b], [0x2728, 0x2728],
  [0x274c, 0x274c], [0x274e, 0x274e], [0x2753, 0x2755], [0x2757, 0x2757], [0x2795, 0x2797],
  [0x27b0, 0x27b0], [0x27bf, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b50], [0x2b55, 0x2b55],
  [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf],
  [0xa960, 0xa97f], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f],
  [0xff00, 0xff60], [0xffe0, 0xffe6], [0x16fe0, 0x16fe4], [0x17000, 0x18cff], [0x1b000, 0x1b2ff],
  [0x1f004, 0x1f004], [0x1f0cf, 0x1f0cf], [0x1f18e, 0x1f18e], [0x1f191, 0x1f19a],
  [0x1f200, 0x1f251], [0x1f300, 0x1f64f], [0x1f680, 0x1f6ff], [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff], [0x1fa70, 0x1faff], [0x20000, 0x2fffd], [0x30000, 0x3fffd],
]

/** Screen columns one code point takes (0, 1 or 2); control characters are handled apart. */
export function charWidth(cp: number): number {
  if (cp < 0x300) return 1
  if (ZERO_WIDTH.test(String.fromCodePoint(cp))) return 0
  let lo = 0
  let hi = WIDE_RANGES.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const r = WIDE_RANGES[mid]!
    if (cp < r[0]) hi = mid - 1
    else if (cp > r[1]) lo = mid + 1
    else return 2
  }
  return 1
}

interface Line {
  readonly text: string
  readonly width: number
}

/** Splits a cell into display lines the way psql's pg_wcsformat does: newlines break lines,
 *  tabs expand to the next multiple of 8, \r and other control characters print escaped. */
function cellLines(s: string): Line[] {
  const lines: Line[] = []
  let text = ''
  let width = 0
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (cp === 10) {
      lines.push({ text, width })
      text = ''
      width = 0
    } else if (cp === 9) {
      const n = 8 - (width % 8)
      text += ' '.repeat(n)
      width += n
    } else if (cp === 13) {
      text += '\\r'
      width += 2
    } else if (cp < 32 || cp === 127) {
      const esc = `\\x${cp.toString(16).toUpperCase().padStart(2, '0')}`
      text += esc
      width += esc.length
    } else {
      text += ch
      width += charWidth(cp)
    }
  }
  lines.push({ text, width })
  return lines
}

/** Display width of a string (the widest line if it has several). */
export function displayWidth(s: string): number {
  let w = 0
  for (const line of cellLines(s)) w = Math.max(w, line.width)
  return w
}

// ---------------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------------

const RIGHT_ALIGNED: ReadonlySet<SqlTypeName> = new Set<SqlTypeName>([
  'smallint',
  'integer',
  'bigint',
  'real',
  'double precision',
  'numeric',
])

/** True for the types psql right-aligns (the numeric ones). */
export function isRightAligned(type: SqlTypeName): boolean {
  return RIGHT_ALIGNED.has(type)
}

export interface FormatOptions {
  /** psql's `\x` expanded display: one `-[ RECORD n ]` block per row. */
  readonly expanded?: boolean
}

function footer(n: number): string {
  return n === 1 ? '(1 row)\n' : `(${n} rows)\n`
}

/** Rows in psql's aligned format (border 1), footer `(N rows)` and the blank line psql prints
 *  after it. Values are rendered with formatValue by column type. */
export function formatAligned(columns: readonly ColumnInfo[], rows: ResultValue[][], opts: FormatOptions = {}): string {
  const cells = rows.map((row) => columns.map((c, j) => cellLines(formatValue(row[j] ?? null, c.type))))
  const headers = columns.map((c) => cellLines(c.name))
  if (opts.expanded) return formatExpanded(headers, cells)

  const ncols = columns.length
  if (ncols === 0) return `--\n${footer(rows.length)}\n`
  const widths = headers.map((h, j) => {
    let w = maxWidth(h)
    for (const row of cells) w = Math.max(w, maxWidth(row[j]!))
    return w
  })
  const right = columns.map((c) => isRightAligned(c.type))
  let out = ''

  // Header: each name centered; a '+' after a line that continues; always a trailing space.
  const headerHeight = Math.max(...headers.map((h) => h.length))
  for (let k = 0; k < headerHeight; k++) {
    for (let j = 0; j < ncols; j++) {
      const h = headers[j]!
      const w = widths[j]!
      out += ' '
      const line = h[k]
      if (line) {
        const space = w - line.width
        out += ' '.repeat(space >> 1) + line.text + ' '.repeat((space + 1) >> 1)
      } else {
        out += ' '.repeat(w)
      }
      out += k < h.length - 1 ? '+' : ' '
      if (j < ncols - 1) out += '|'
    }
    out += '\n'
  }

  // Separator: -----+-----
  out += '-' + widths.map((w) => '-'.repeat(w)).join('-+-') + '-\n'

  // Rows: numbers right-aligned, the rest left-aligned; no trailing spaces on the last column
  // unless a '+' continuation mark follows.
  for (const row of cells) {
    const height = Math.max(...row.map((c) => c.length))
    for (let k = 0; k < height; k++) {
      for (let j = 0; j < ncols; j++) {
        const cell = row[j]!
        const w = widths[j]!
        const line = cell[k]
        const continues = k < cell.length - 1
        const last = j === ncols - 1
        out += ' '
        if (right[j]) {
          out += ' '.repeat(w - (line?.width ?? 0)) + (line?.text ?? '')
        } else {
          out += line?.text ?? ''
          if (!last || continues) out += ' '.repeat(w - (line?.width ?? 0))
        }
        if (continues) out += '+'
        else if (!last) out += ' '
        if (!last) out += '|'
      }
      out += '\n'
    }
  }
  return out + footer(rows.length) + '\n'
}

function maxWidth(lines: readonly Line[]): number {
  let w = 0
  for (const l of lines) w = Math.max(w, l.width)
  return w
}

/** psql's expanded display (`\x`, border 1). */
function formatExpanded(headers: readonly Line[][], cells: readonly Line[][][]): string {
  if (cells.length === 0) return `${footer(0)}\n`
  const hwidth = Math.max(0, ...headers.map(maxWidth))
  let dwidth = 0
  for (const row of cells) for (const c of row) dwidth = Math.max(dwidth, maxWidth(c))
  let out = ''
  cells.forEach((row, i) => {
    // -[ RECORD n ]-----+------ : dashes fill out to the width of the name and value columns.
    const label = `-[ RECORD ${i + 1} ]`
    let line = label
    let reclen = label.length
    if (reclen < hwidth) line += '-'.repeat(hwidth - reclen)
    reclen -= hwidth
    line += reclen-- <= 0 ? '-' : ''
    line += reclen-- <= 0 ? '+' : ''
    line += reclen-- <= 0 ? '-' : ''
    if (reclen < 0) reclen = 0
    if (reclen < dwidth) line += '-'.repeat(dwidth - reclen)
    out += line + '\n'
    row.forEach((value, j) => {
      const name = headers[j]!
      const height = Math.max(name.length, value.length)
      for (let k = 0; k < height; k++) {
        const n = name[k]
        if (n) out += n.text + ' '.repeat(hwidth - n.width) + (k < name.length - 1 ? '+' : ' ')
        else out += ' '.repeat(hwidth + 1)
        out += '|'
        const v = value[k]
        if (v) {
          out += ' ' + v.text
          if (k < value.length - 1) out += ' '.repeat(dwidth - v.width) + '+'
        }
        out += '\n'
      }
    })
  })
  return out + '\n'
}

/** One statement's output as psql prints it: a table for row-returning statements, else the
 *  command tag (`INSERT 0 2`, `CREATE TABLE`) on a line of its own. */
export function formatResult(r: StatementResult, opts: FormatOptions = {}): string {
  if (r.columns) return formatAligned(r.columns, r.rows ?? [], opts)
  return r.command ? `${r.command}\n` : ''
}

/** A statement's notice as psql prints it (on stderr): `NOTICE:  message`. */
export function formatNotice(message: string): string {
  return `NOTICE:  ${message}\n`
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

const DISPLAY_SIZE = 60 // psql: screen width limit for the LINE excerpt
const MIN_RIGHT_CUT = 10 // psql: keep this far away from the end of the excerpt

/** An error as psql prints it: `ERROR:  message`; when the error has a position in the query
 *  text, the `LINE n: …` excerpt and a caret under the position (libpq's reportErrorPosition,
 *  including its truncation of long lines with `...`); then `DETAIL:  …` if there is a detail.
 *  `position` is a 0-based character offset into `query`. */
export function formatError(message: string, query?: string, position?: number, detail?: string): string {
  let out = `ERROR:  ${message}\n`
  if (query !== undefined && position !== undefined) out += errorPosition(query, position)
  if (detail !== undefined) out += `DETAIL:  ${detail}\n`
  return out
}

function errorPosition(query: string, position: number): string {
  // Work on code points, as libpq works on characters.
  const loc = Array.from(query.slice(0, Math.max(0, position))).length
  const chars = Array.from(query).map((c) => (c === '\t' ? ' ' : c))
  const cno = chars.length
  if (position < 0 || loc > cno) return ''
  const scr: number[] = new Array<number>(cno + 1)
  let acc = 0
  let line = 1
  let ibeg = 0
  let iend = cno
  for (let i = 0; i < cno; i++) {
    scr[i] = acc
    const c = chars[i]!
    if (c === '\r' || c === '\n') {
      if (i < loc) {
        if (c === '\r' || i === 0 || chars[i - 1] !== '\r') line++
        ibeg = i + 1
      } else {
        iend = i
        break
      }
    }
    acc += Math.max(1, charWidth(c.codePointAt(0)!))
  }
  // scr[] is filled up to iend (where the loop stopped, or the end of the text).
  scr[iend] ??= acc
  const at = (i: number): number => scr[i] ?? acc
  let begTrunc = false
  let endTrunc = false
  if (at(iend) - at(ibeg) > DISPLAY_SIZE) {
    if (at(ibeg) + DISPLAY_SIZE >= at(loc) + MIN_RIGHT_CUT) {
      while (at(iend) - at(ibeg) > DISPLAY_SIZE) iend--
      endTrunc = true
    } else {
      while (at(loc) + MIN_RIGHT_CUT < at(iend)) {
        iend--
        endTrunc = true
      }
      while (at(iend) - at(ibeg) > DISPLAY_SIZE) {
        ibeg++
        begTrunc = true
      }
    }
  }
  const prefix = `LINE ${line}: ${begTrunc ? '...' : ''}`
  const excerpt = chars.slice(ibeg, iend).join('')
  const caret = ' '.repeat(prefix.length + at(loc) - at(ibeg)) + '^'
  return `${prefix}${excerpt}${endTrunc ? '...' : ''}\n${caret}\n`
}
