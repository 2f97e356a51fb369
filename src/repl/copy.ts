// `\copy`: COPY with the file on the client's side, as psql does it. The rest of the line is
// read by the one parser as `COPY <rest>` (so it takes exactly COPY's forms and options):
//   \copy t [(cols)] FROM 'file' [WITH (…)]   the file is read here and the engine runs
//                                             `COPY t [(cols)] FROM STDIN [WITH (…)]` on it
//   \copy t [(cols)] | (query) TO 'file' [WITH (…)]
//                                             the rows are read here (a SELECT through the
//                                             engine) and written to the file in COPY's text
//                                             or CSV format (the engine has no COPY TO)
// STDIN / STDOUT / PROGRAM are not offered: the REPL's input is the terminal.
import { copyRecord, readCopyLayout } from '../sql-runtime/copy-format.js'
import { readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { parse, printStatement, type CopyStmt } from '../../grammar/index.js'
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
  const format = readCopyLayout(stmt.options, (name) => (name === 'delimiter' || name === 'null' ? undefined : `COPY option "${name}" is not supported with TO (format, header, delimiter, null)`))
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
  let out = format.header ? copyRecord(columns.map((c) => c.name), format) : ''
  for (const row of rows) out += copyRecord(row.map((v, j) => text(v, columns[j])), format)
  try {
    writeFileSync(path, out)
  } catch (e) {
    return { message: fileError(file, e) }
  }
  return { results: [{ command: `COPY ${rows.length}`, rowCount: rows.length }] }
}

function text(v: ResultValue | undefined, c: ColumnInfo | undefined): string | null {
  return v === null || v === undefined ? null : formatValue(v, c?.type ?? 'text')
}

function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`
}
