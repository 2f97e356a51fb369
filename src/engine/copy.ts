// COPY table [(col, …)] FROM 'file' [WITH (…)]: loads a file in Postgres' text or CSV
// format as one tick, through the same path as INSERT (the engine's hooks), and puts every
// malformed record in the system relation rivulet_rejected instead of failing the load.
//
// - The file is read as records by src/connectors/copy-reader.ts (which also parses the WITH
//   options); only the rows themselves are what the load keeps.
// - Values are converted with the text input functions of SQL casts (values.ts parseText), so
//   `5`, `2024-01-01 10:00`, `1 day` read in COPY exactly as '…'::type reads them.
// - Rejected (not applied, one row each in rivulet_rejected): a wrong number of fields, a value
//   that does not convert (or is not valid UTF-8), NULL in a NOT NULL column, a primary key
//   already stored or earlier in the file (the first one wins), an unterminated CSV quote at
//   the end of the file. Late stream events are not rejects: they go to rivulet_late_events as
//   for INSERT.
// - Deliberate choice: the default is to go on past bad records (Postgres stops at the first
//   one). `ON_ERROR stop` gives Postgres' behaviour (the first bad record fails the load);
//   `ON_ERROR ignore` is the default; `max_rejected = N` fails the load when more than N
//   records are rejected. A failed load applies nothing (rejects included).

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import path from 'node:path'
import type { Row } from '../../ivm/index.js'
import * as ivm from '../../ivm/index.js'
import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import type { Column } from '../../planner/index.js'
import type { TableEntry } from './catalog.js'
import { evaluateConstant } from '../sql-runtime/compile-scalar.js'
import type { StatementResult } from '../types.js'
import { applyTypeModifier, parseText, toResultValue } from '../sql-runtime/values.js'
import { RecordReader, bufferSource, copyOptions, openReader, type CopyOptions } from '../connectors/copy-reader.js'

/** The system relation of rejected COPY records. */
export const REJECTED = 'rivulet_rejected'

export const REJECTED_COLUMNS: readonly Column[] = [
  { name: 'relation', type: 'text' },
  { name: 'source', type: 'text' },
  { name: 'line', type: 'bigint' },
  { name: 'byte_offset', type: 'bigint' },
  { name: 'reason', type: 'text' },
  { name: 'record', type: 'text' },
]


/** What COPY needs of the engine. */
export interface CopyHooks {
  /** The table to load, by (folded) name: 42P01 when missing, 42809 for a view. */
  readonly table: (name: ast.Name) => TableEntry
  /** Applies rows as INSERT does (late events, versions) in the open tick; returns how many
   *  went in. The rows are checked here first: no NOT NULL or key error remains. */
  readonly insert: (t: TableEntry, rows: Row[]) => number
  /** Adds rows of rivulet_rejected in the open tick. */
  readonly reject: (rows: Row[]) => void
  /** Called after each chunk read: bytes read so far and the file's size. */
  readonly progress?: (done: number, total: number) => void
}

const BAD_COPY_FILE_FORMAT = '22P04'

/** Runs a COPY statement (the engine calls it inside a tick). `stdin`: the data of
 *  `COPY … FROM STDIN`, which a client session collected. */
export function copyFrom(s: ast.CopyStmt, sql: string, hooks: CopyHooks, stdin?: Buffer): StatementResult {
  if (s.direction === 'to') throw new RivuletError(SqlState.featureNotSupported, 'COPY TO is not supported here: use COPY … TO STDOUT over a client connection (rivulet serve)', positionAt(sql, s.span.start))
  if (s.file === undefined && stdin === undefined) throw new RivuletError(SqlState.featureNotSupported, 'COPY FROM STDIN needs a client connection (use the server)', positionAt(sql, s.span.start))
  const opts = copyOptions(s.options, sql)
  const t = hooks.table(s.table!)
  const targets = targetColumns(s, t, sql)
  const source = s.file ?? 'STDIN'
  const loader = new Loader(t, targets, opts, source)
  const reader = s.file === undefined ? new RecordReader(bufferSource(stdin!), opts, undefined) : openReader(s.file, opts, hooks.progress)
  try {
    loader.run(reader)
  } finally {
    reader.close()
  }
  const n = loader.good.length > 0 ? hooks.insert(t, loader.good) : 0
  const rejected = loader.rejected.length
  if (rejected > 0) hooks.reject(loader.rejected)
  const result: StatementResult = { command: `COPY ${n}`, rowCount: n }
  return rejected === 0 ? result : { ...result, notice: `${rejected} record${rejected === 1 ? '' : 's'} rejected: see ${REJECTED}` }
}

/** The table columns the file's fields go to, in field order. */
function targetColumns(s: ast.CopyStmt, t: TableEntry, sql: string): number[] {
  if (s.columns === undefined) return t.columns.map((_, i) => i)
  const at = positionAt(sql, s.table!.span.start)
  const seen = new Set<string>()
  return s.columns.map((c) => {
    const i = t.columns.findIndex((x) => x.name === c)
    if (i < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${c}" of relation "${t.name}" does not exist`, at)
    if (seen.has(c)) throw new RivuletError(SqlState.duplicateColumn, `column "${c}" specified more than once`, at)
    seen.add(c)
    return i
  })
}

// ---------------------------------------------------------------------------------- loading

/** Checks and converts records into rows; collects the rejected ones. */
class Loader {
  readonly good: Row[] = []
  readonly rejected: Row[] = []
  readonly #t: TableEntry
  readonly #targets: readonly number[]
  readonly #opts: CopyOptions
  readonly #source: string
  /** Row template: defaults (evaluated once per load) for the columns not in the file. */
  readonly #template: unknown[]
  readonly #keys = new Set<ivm.RowKey>()
  #first: { line: number; reason: string } | undefined

  constructor(t: TableEntry, targets: readonly number[], opts: CopyOptions, source: string) {
    this.#t = t
    this.#targets = targets
    this.#opts = opts
    this.#source = source
    this.#template = t.columns.map((_, i) => (!targets.includes(i) && t.defaults[i] ? evaluateConstant(t.defaults[i]!) : null))
  }

  run(reader: RecordReader): void {
    let header = this.#opts.header !== false
    for (let rec = reader.next(); rec !== undefined; rec = reader.next()) {
      if (header) {
        header = false
        if (this.#opts.header === 'match') this.#matchHeader(rec)
        continue
      }
      const problem = this.#load(rec)
      if (problem !== undefined) this.#reject(rec, problem.code, problem.reason)
    }
  }

  /** Converts and checks one record; keeps the row or says why not. */
  #load(rec: RecordReader): { code: string; reason: string } | undefined {
    const t = this.#t
    if (rec.unterminated) return { code: BAD_COPY_FILE_FORMAT, reason: 'unterminated CSV quoted field' }
    const targets = this.#targets
    const n = rec.fieldCount
    if (n > targets.length) return { code: BAD_COPY_FILE_FORMAT, reason: 'extra data after last expected column' }
    if (n < targets.length) return { code: BAD_COPY_FILE_FORMAT, reason: `missing data for column "${t.columns[targets[n]!]!.name}"` }
    const row = this.#template.slice()
    for (let f = 0; f < n; f++) {
      const i = targets[f]!
      const c = t.columns[i]!
      try {
        const text = rec.field(f)
        const v = text === null ? null : parseText(text, c.type)
        const m = t.modifiers?.[i]
        row[i] = v === null || m === undefined ? v : applyTypeModifier(v, m, false)
      } catch (e) {
        if (!(e instanceof RivuletError)) throw e
        return { code: e.code, reason: `column "${c.name}": ${e.message}` }
      }
    }
    for (let i = 0; i < row.length; i++) {
      if (row[i] === null && t.notNull[i]) return { code: SqlState.notNullViolation, reason: `null value in column "${t.columns[i]!.name}" of relation "${t.name}" violates not-null constraint` }
    }
    const duplicate = this.#duplicate(row)
    if (duplicate !== undefined) return { code: SqlState.uniqueViolation, reason: duplicate }
    this.good.push(row)
    return undefined
  }

  /** A primary key stored already or earlier in the file (for a versioned table: a key and
   *  version time), as INSERT would refuse it; late stream events are left to INSERT (they
   *  are recorded as late, not checked for keys). */
  #duplicate(row: Row): string | undefined {
    const t = this.#t
    const vs = t.versions
    if (vs) {
      const time = row[vs.timeColumn] as number
      const key = vs.keyOf(row)
      const k = ivm.rowKey([key, time])
      const there = vs.at(key, time)
      if (!this.#keys.has(k) && !(there !== undefined && there[t.columns.length] === true)) {
        this.#keys.add(k)
        return undefined
      }
      const cols = [...t.primaryKey, vs.timeColumn]
      return `duplicate key value violates unique constraint "${t.name}_pkey": Key (${cols.map((i) => t.columns[i]!.name).join(', ')})=(${cols.map((i) => String(toResultValue(row[i], t.columns[i]!.type))).join(', ')}) already has a version at that time.`
    }
    const keyOf = t.store.keyOf
    if (!keyOf) return undefined
    const w = t.watermark
    if (w !== undefined && (row[w.column] as number) < w.current) return undefined
    const k = keyOf(row)
    if (!this.#keys.has(k) && !t.store.rows.has(k)) {
      this.#keys.add(k)
      return undefined
    }
    const pk = t.primaryKey
    return `duplicate key value violates unique constraint "${t.name}_pkey": Key (${pk.map((i) => t.columns[i]!.name).join(', ')})=(${pk.map((i) => String(toResultValue(row[i], t.columns[i]!.type))).join(', ')}) already exists.`
  }

  #reject(rec: RecordReader, code: string, reason: string): void {
    const t = this.#t
    const record = rec.text()
    if (this.#opts.stop) {
      throw new RivuletError(code, `COPY ${t.name}, line ${rec.line}: ${reason}`, undefined, `Record at byte offset ${rec.offset}: ${record}`)
    }
    this.#first ??= { line: rec.line, reason }
    this.rejected.push([t.name, this.#source, rec.line, rec.offset, reason, record])
    const max = this.#opts.maxRejected
    if (max !== undefined && this.rejected.length > max) {
      throw new RivuletError(BAD_COPY_FILE_FORMAT, `COPY ${t.name}: more than max_rejected = ${max} record${max === 1 ? '' : 's'} rejected; nothing was loaded. The first, at line ${this.#first.line}: ${this.#first.reason}`)
    }
  }

  /** HEADER match: the header's fields must be the target columns' names, in order. */
  #matchHeader(rec: RecordReader): void {
    const t = this.#t
    if (rec.unterminated || rec.fieldCount !== this.#targets.length) {
      throw new RivuletError(BAD_COPY_FILE_FORMAT, `wrong number of fields in header line: got ${rec.unterminated ? 'an unterminated quoted field' : rec.fieldCount}, expected ${this.#targets.length}`)
    }
    for (let f = 0; f < rec.fieldCount; f++) {
      const want = t.columns[this.#targets[f]!]!.name
      const got = rec.field(f)
      if (got !== want) throw new RivuletError(BAD_COPY_FILE_FORMAT, `column name mismatch in header line field ${f + 1}: got ${got === null ? 'null value' : `"${got}"`}, expected "${want}"`)
    }
  }
}

// ---------------------------------------------------------------------------------- reading
