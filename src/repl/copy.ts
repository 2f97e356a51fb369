// `\copy`: COPY with the file on the client's side, as psql does it. The rest of the line is
// read by the one parser as `COPY <rest>` (so it takes exactly COPY's forms and options):
//   \copy t [(cols)] FROM 'file' [WITH (…)]   the file is read here and the engine runs
//                                             `COPY t [(cols)] FROM STDIN [WITH (…)]` on it
//   \copy t [(cols)] | (query) TO 'file' [WITH (…)]
//                                             the rows are read here (a SELECT through the
//                                             engine) and written to the file in COPY's text
//                                             or CSV format (the engine has no COPY TO)
// STDIN / STDOUT / PROGRAM are not offered: the REPL's input is the terminal.
import { readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { parse, printStatement, type CopyOption, type CopyStmt } from '../../grammar/index.js'
import type { Engine } from '../engine/index.js'
import { formatValue } from '../sql-runtime/value-text.js'
import type { ColumnInfo, ResultValue, StatementResult } from '../types.js'

/** What a `\copy` did: the statement's results (printed like any), or a message of psql's
 *  form for stderr (`\copy: …`, `FILE: No such file or directory`). An error of the statement
 *  itself is thrown (a RivuletError, with `sql` for its position). */
export type ClientCopyResult = { readonly results: StatementResult[] } | { readonly message: string }

export class ClientCopyError extends Error {
  constructor(
    readonly error: unknown,
    /** The statement the error's position refers to. */
    readonly sql: string,
  ) {
    super(error instanceof Error ? error.message : String(error))
  }
}

const fileError = (file: string, e: unknown): string => {
  const code = (e as NodeJS.ErrnoException).code
  const reason = code === 'ENOENT' ? 'No such file or directory' : code === 'EISDIR' ? 'Is a directory' : code === 'EACCES' ? 'Permission denied' : e instanceof Error ? e.message : String(e)
  return `${file}: ${reason}\n`
}

/** Runs `\copy REST` against `engine`; relative file names are taken from `cwd`. */
export function clientCopy(engine: Engine, rest: string, cwd: string = process.cwd()): ClientCopyResult {
  const args = rest.trim().replace(/;\s*$/, '')
  if (args === '') return { message: '\\copy: arguments required\n' }
  const sql = `COPY ${args}`
  let stmt: CopyStmt
  try {
    const parsed = parse(sql)
    const s = parsed[0]?.statement
    if (parsed.length !== 1 || s?.kind !== 'copy') return { message: `\\copy: parse error at "${args}"\n` }
    stmt = s
  } catch (e) {
    throw new ClientCopyError(e, sql)
  }
  if (stmt.file === undefined) return { message: `\\copy: name a file: \\copy … ${stmt.direction === 'from' ? "FROM 'file'" : "TO 'file'"} (STDIN and STDOUT are the terminal here)\n` }
  const file = stmt.file
  const expanded = file === '~' ? homedir() : file.startsWith('~/') ? homedir() + file.slice(1) : file
  const path = resolve(cwd, expanded)
  if (stmt.direction === 'from') {
    let data: Buffer
    try {
      data = readFileSync(path)
    } catch (e) {
      return { message: fileError(file, e) }
    }
    const text = printStatement({ ...stmt, file: undefined })
    try {
      return { results: engine.execute(text, { stdin: data }) }
    } catch (e) {
      throw new ClientCopyError(e, text)
    }
  }
  if (stmt.subscribe !== undefined) return { message: '\\copy: (SUBSCRIBE …) TO a file is not supported: a subscription never ends (use SUBSCRIBE, or COPY (SUBSCRIBE …) TO STDOUT through rivulet serve)\n' }
  const format = outputFormat(stmt.options)
  if (typeof format === 'string') return { message: `\\copy: ${format}\n` }
  const query = stmt.query !== undefined ? sql.slice(stmt.query.span.start, stmt.query.span.end) : `SELECT ${stmt.columns === undefined ? '*' : stmt.columns.map(quoteIdent).join(', ')} FROM ${stmt.table!.parts.map(quoteIdent).join('.')}`
  let result: StatementResult | undefined
  try {
    result = engine.execute(query)[0]
  } catch (e) {
    throw new ClientCopyError(e, query)
  }
  const columns = result?.columns ?? []
  const rows = result?.rows ?? []
  let out = format.header ? line(columns.map((c) => c.name), format) : ''
  for (const row of rows) out += line(row.map((v, j) => text(v, columns[j])), format)
  try {
    writeFileSync(path, out)
  } catch (e) {
    return { message: fileError(file, e) }
  }
  return { results: [{ command: `COPY ${rows.length}`, rowCount: rows.length }] }
}

interface OutputFormat {
  readonly csv: boolean
  readonly header: boolean
  readonly delimiter: string
  readonly null: string
}

/** FORMAT, HEADER, DELIMITER and NULL of a COPY … TO (a message for anything else). */
function outputFormat(options: readonly CopyOption[]): OutputFormat | string {
  let csv = false
  let header = false
  let delimiter: string | undefined
  let nullText: string | undefined
  for (const o of options) {
    const v = o.value?.text
    switch (o.name) {
      case 'format': {
        const f = (v ?? '').toLowerCase()
        if (f === 'csv') csv = true
        else if (f !== 'text') return `COPY format "${f}" is not supported (text, csv)`
        break
      }
      case 'header':
        header = v === undefined || ['true', 'on', '1'].includes(v.toLowerCase())
        break
      case 'delimiter':
        if (v === undefined || v.length !== 1) return 'COPY delimiter must be a single one-byte character'
        delimiter = v
        break
      case 'null':
        if (v === undefined) return 'NULL requires a parameter'
        nullText = v
        break
      default:
        return `COPY option "${o.name}" is not supported with TO (format, header, delimiter, null)`
    }
  }
  return { csv, header, delimiter: delimiter ?? (csv ? ',' : '\t'), null: nullText ?? (csv ? '' : '\\N') }
}

function text(v: ResultValue | undefined, c: ColumnInfo | undefined): string | null {
  return v === null || v === undefined ? null : formatValue(v, c?.type ?? 'text')
}

/** One record in COPY's text format (backslash escapes, NULL as \N) or CSV (values with the
 *  delimiter, a quote, CR/LF, or equal to the NULL text quoted; NULL unquoted). */
function line(values: readonly (string | null)[], f: OutputFormat): string {
  const fields = values.map((t) => {
    if (t === null) return f.null
    if (f.csv) return t === f.null || t.includes(f.delimiter) || /["\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t
    return t.replace(/[\\\t\n\r\b\f\v]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v' })[c]!).split(f.delimiter).join(`\\${f.delimiter}`)
  })
  return `${fields.join(f.delimiter)}\n`
}

function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`
}
