// COPY's layouts (text and CSV) as PostgreSQL writes them: the FORMAT / HEADER / DELIMITER /
// NULL options of a COPY statement, and one record's fields escaped (text: backslash escapes,
// NULL as \N; CSV: a field with the delimiter, a quote, CR/LF or equal to the NULL text
// quoted, NULL unquoted). The server's COPY … TO STDOUT and the REPL's \copy … TO share them.
import type { CopyOption } from '../../grammar/index.js'

export interface CopyLayout {
  readonly csv: boolean
  readonly header: boolean
  readonly delimiter: string
  readonly null: string
}

/** The layout of a COPY's options, or a message for one it cannot take. `takes(name)` says
 *  whether the caller takes an option other than FORMAT and HEADER (DELIMITER, NULL, or one
 *  it hands on): undefined yes, a message no. */
export function readCopyLayout(options: readonly CopyOption[], takes: (option: string) => string | undefined): CopyLayout | string {
  let csv = false
  let header = false
  let delimiter: string | undefined
  let nullText: string | undefined
  for (const o of options) {
    const v = o.value?.text
    if (o.name === 'format') {
      const f = (v ?? '').toLowerCase()
      if (f === 'csv') csv = true
      else if (f !== 'text') return `COPY format "${f}" is not supported (text, csv)`
      continue
    }
    if (o.name === 'header') {
      header = v === undefined || ['true', 'on', '1', 'match'].includes(v.toLowerCase())
      continue
    }
    const refused = takes(o.name)
    if (refused !== undefined) return refused
    if (o.name === 'delimiter') delimiter = v
    else if (o.name === 'null') {
      if (v === undefined) return 'NULL requires a parameter'
      nullText = v
    }
  }
  if (delimiter !== undefined && (delimiter.length !== 1 || delimiter.charCodeAt(0) > 127)) return 'COPY delimiter must be a single one-byte character'
  return { csv, header, delimiter: delimiter ?? (csv ? ',' : '\t'), null: nullText ?? (csv ? '' : '\\N') }
}

const TEXT_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v' }

/** A value in COPY's text format: backslash, tab, newline and the other controls escaped. */
export function escapeCopyText(s: string): string {
  return /[\\\t\n\r\b\f\v]/.test(s) ? s.replace(/[\\\t\n\r\b\f\v]/g, (c) => TEXT_ESCAPES[c]!) : s
}

/** One record's field texts (null for NULL) in the layout, with its line end. */
export function copyRecord(values: readonly (string | null)[], layout: CopyLayout): string {
  const fields = values.map((t) => {
    if (t === null) return layout.null
    if (layout.csv) return t === layout.null || t.includes(layout.delimiter) || /["\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t
    const escaped = escapeCopyText(t)
    return layout.delimiter === '\t' ? escaped : escaped.split(layout.delimiter).join(`\\${layout.delimiter}`)
  })
  return `${fields.join(layout.delimiter)}\n`
}
