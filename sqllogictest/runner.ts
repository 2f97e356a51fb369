// Runs parsed sqllogictest records against an engine. One fresh engine per file. Modes:
//   batch  every query runs as an ad hoc SELECT
//   ivm    every query also lives as a materialized view `__slt_q<N>`, created as early as it
//          can be and maintained through every later statement, then read at the query's place
//   both   both of the above; the record passes only if both match
// With `churn` (ivm/both), a query that matched through its view then has a random half of the
// rows of the tables it reads deleted and re-inserted, the view checked against a recompute
// after each step.
// The exact rules are in sqllogictest/README.md.

import { extname } from 'node:path'
import type { ChangeBatch, ColumnInfo, QueryResult, RelationInfo, ResultValue, SqlTypeName, StatementResult, SubscribeOptions, Subscription } from '../src/index.js'
import { compareResult, hashValues, renderRows, sortedValues } from './compare.js'
import type { CompareOutcome, Flavour, FloatFormat, Layout, RenderOptions } from './compare.js'
import { loadSlt } from './parse.js'
import type { ErrorMatcher, QueryRecord, SltRecord, SortMode, StatementRecord } from './parse.js'

export type RunMode = 'batch' | 'ivm' | 'both'

/** The part of the engine API the runner uses (structural, so tests can pass a fake). */
export interface SltEngine {
  execute(sql: string): readonly StatementResult[]
  query(sql: string): QueryResult
  subscribe(view: string, callback: (batch: ChangeBatch) => void, options?: SubscribeOptions): Subscription
  relations(): readonly RelationInfo[]
  /** Inserts rows (values in column order) into a table; returns how many were inserted. */
  insert(table: string, rows: readonly (readonly ResultValue[])[]): number
  /** Deletes rows (values in column order); a bag table loses one copy per row listed. */
  delete(table: string, rows: readonly (readonly ResultValue[])[]): number
  readonly inTransaction: boolean
  close(): void
  /** Moves the engine's clock on by `ms` (for `sleep`); engines without one ignore sleeps. */
  advanceClock?(ms: number): void
}

export interface RunOptions {
  readonly mode: RunMode
  readonly openEngine: () => SltEngine
  /** Receives each output line (failures, and notes when verbose). */
  readonly report: (line: string) => void
  readonly verbose?: boolean
  /** Stop the file at its first failure. */
  readonly failFast?: boolean
  /** Run the file only up to (and including) the record that spans this line. */
  readonly stopAtLine?: number
  /** Engine names we answer to in skipif/onlyif (default: postgresql, rivulet). */
  readonly engineNames?: readonly string[]
  /** ivm/both: after a query matches through its view, delete and re-insert half of its tables' rows (see README). */
  readonly churn?: boolean
  /** Seed of the churn's random choices (default DEFAULT_CHURN_SEED). */
  readonly churnSeed?: number
}

/** Record counts. `skipped` = `condition` + `unsupported` + `notRun`. */
export interface Counts {
  passed: number
  failed: number
  skipped: number
  /** Skipped by the file's own skipif/onlyif, or after a halt that applies to us. */
  condition: number
  /** Skipped because the runner cannot run them (system, let, simple, copy, load, unknown directives). */
  unsupported: number
  /** Not run because --fail-fast stopped the file. */
  notRun: number
}

export function emptyCounts(): Counts {
  return { passed: 0, failed: 0, skipped: 0, condition: 0, unsupported: 0, notRun: 0 }
}

/** Adds `c` into `total`. */
export function addCounts(total: Counts, c: Counts): void {
  total.passed += c.passed
  total.failed += c.failed
  total.skipped += c.skipped
  total.condition += c.condition
  total.unsupported += c.unsupported
  total.notRun += c.notRun
}

/** Churn seed when none is given (RIVULET_SEED unset). */
export const DEFAULT_CHURN_SEED = 20240611
/** Churn in the file's own engine while at most this many other live helper views read the
 *  churned tables; beyond it, in a sandbox engine (each churn would otherwise update them all). */
export const CHURN_IN_PLACE_MAX_VIEWS = 32

/** Names the runner answers to in `skipif`/`onlyif`. */
export const ENGINE_NAMES: readonly string[] = ['postgresql', 'rivulet']

const MAX_SHOWN = 12

interface SqlError {
  readonly code: string | undefined
  readonly message: string
  /** False for non-RivuletError throwables (engine bugs: TypeError and the like). */
  readonly sql: boolean
}

function toSqlError(e: unknown): SqlError {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code
    const isSql = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)
    return { code: isSql ? code : undefined, message: e.message, sql: isSql }
  }
  return { code: undefined, message: String(e), sql: false }
}

function describeError(e: SqlError): string {
  return e.sql ? `${e.message} (${e.code})` : `internal error (not a RivuletError): ${e.message}`
}

/** Checks an error against a matcher; returns a failure description or undefined. */
export function matchError(err: SqlError, m: ErrorMatcher): string | undefined {
  if (!err.sql) return `expected an SQL error, got ${describeError(err)}`
  if (m.sqlstate !== undefined && err.code !== m.sqlstate) {
    return `expected SQLSTATE ${m.sqlstate}, got ${describeError(err)}`
  }
  if (m.exact !== undefined && m.exact !== '' && err.message.trim() !== m.exact) {
    return `expected error message ${JSON.stringify(m.exact)}, got ${JSON.stringify(err.message)}`
  }
  if (m.regex !== undefined) {
    let ok = err.message.includes(m.regex)
    if (!ok) {
      try {
        ok = new RegExp(m.regex).test(err.message)
      } catch {
        /* not a regex: substring only */
      }
    }
    if (!ok) return `expected error matching /${m.regex}/, got ${describeError(err)}`
  }
  return undefined
}

function firstLine(sql: string): string {
  const s = sql.trim().replace(/\s+/g, ' ')
  return s.length > 100 ? `${s.slice(0, 97)}...` : s
}

function shown(label: string, lines: readonly string[]): string[] {
  const out = [`  ${label}:`]
  for (const l of lines.slice(0, MAX_SHOWN)) out.push(`    ${l}`)
  if (lines.length > MAX_SHOWN) out.push(`    ... ${lines.length - MAX_SHOWN} more`)
  if (lines.length === 0) out.push('    (no rows)')
  return out
}

/** Positions of `;` outside quotes and comments. */
function topLevelSemicolons(sql: string): number[] {
  const out: number[] = []
  const n = sql.length
  let i = 0
  while (i < n) {
    const c = sql[i]!
    if (c === "'" || c === '"') {
      i++
      while (i < n) {
        if (sql[i] === c) {
          if (sql[i + 1] === c) i += 2
          else break
        } else i++
      }
      i++
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2)
      i = end < 0 ? n : end + 2
    } else {
      if (c === ';') out.push(i)
      i++
    }
  }
  return out
}

/** The query without trailing `;`, or undefined when it is not a single SELECT-shaped query. */
export function viewableQuery(sql: string): string | undefined {
  let s = sql.trim()
  const semis = topLevelSemicolons(s)
  if (semis.length > 0) {
    // Only trailing semicolons (followed by nothing but blanks and comments) are allowed.
    const first = semis[0]!
    const rest = s.slice(first).replace(/--[^\n]*|\/\*[\s\S]*?\*\/|[;\s]/g, '')
    if (rest !== '') return undefined
    s = s.slice(0, first).trimEnd()
  }
  const head = s.replace(/^(\s|\(|--[^\n]*\n|\/\*[\s\S]*?\*\/)+/, '')
  if (!/^(select|with|values|table)\b/i.test(head)) return undefined
  // Queries that depend on the clock cannot be compared across time.
  if (/\b(now|current_timestamp|current_date|current_time|localtimestamp|mz_now|proctime)\b/i.test(s)) return undefined
  // The system catalogs are computed when read (a view over them is refused): ad hoc only.
  if (/\b(pg_catalog|information_schema|pg_[a-z_]+|regclass)\b/i.test(s)) return undefined
  // WITH RECURSIVE is computed once, by a SELECT (a view of it is refused): ad hoc only.
  if (/\bwith\s+recursive\b/i.test(s)) return undefined
  return s
}

/** Statements after which names may resolve differently (or, after SET TIME ZONE, a query
 *  may mean other values): retry pending views. */
const NAME_CHANGE = /(^|;)\s*(create\s+(?!(unique\s+)?index\b)|drop\b|alter\b|commit\b|end\b|rollback\b|abort\b|set\s+((session|local)\s+)?(time\s+zone|timezone)\b)/i
/** The engine's refusal of a view that depends on the session's TimeZone (views are
 *  maintained in UTC): such a query is checked ad hoc only. */
const ZONE_DEPENDENT_VIEW = /cannot depend on the session's TimeZone/
/** Statements that may need our views out of the way (dependencies). */
const NEEDS_NO_VIEWS = /(^|;)\s*(drop\b|alter\b|create\s+or\s+replace\b)/i
/** Statements that create or drop relations (for delta subscriptions). */
const DDL = /(^|;)\s*(create|drop|alter)\b/i
/** View-creation errors worth retrying after a later DDL statement. */
const RETRYABLE = new Set(['42P01', '42703', '42704', '42883', '3F000'])

interface IvmView {
  readonly index: number
  readonly name: string
  readonly sql: string
  /** The identifiers of the query (a superset of the relation names it reads). */
  readonly names: ReadonlySet<string>
  /** The last record before the query that may change what one of its names resolves to
   *  (−1: none); the view is created right after it, so it is maintained through every data
   *  statement from there to the query. */
  settledAfter: number
  readonly ncols: number
  live: boolean
  /** Last creation error, when creation failed. */
  error: SqlError | undefined
}

interface DeltaState {
  stop: (() => void) | undefined
  error: string | undefined
  columns: readonly ColumnInfo[]
  acc: Map<string, { row: ResultValue[]; weight: number }>
}

interface QueryRun {
  readonly result?: QueryResult
  readonly error?: SqlError
}

interface ChurnFailure {
  readonly what: string
  readonly details: readonly string[]
}

/**
 * The identifiers of an SQL text: unquoted ones folded to lower case, quoted ones as written
 * (`""` unescaped). String literals and comments are skipped. Used to find what a query reads.
 */
export function sqlIdentifiers(sql: string): Set<string> {
  const out = new Set<string>()
  const n = sql.length
  let i = 0
  while (i < n) {
    const c = sql[i]!
    if (c === "'") {
      i++
      while (i < n) {
        if (sql[i] === "'") {
          if (sql[i + 1] === "'") i += 2
          else break
        } else i++
      }
      i++
    } else if (c === '"') {
      let id = ''
      i++
      while (i < n) {
        if (sql[i] === '"') {
          if (sql[i + 1] === '"') {
            id += '"'
            i += 2
          } else break
        } else id += sql[i++]
      }
      i++
      out.add(id)
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2)
      i = end < 0 ? n : end + 2
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const start = i
      while (i < n && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[i]!)) i++
      out.add(sql.slice(start, i).toLowerCase())
    } else if (c >= '0' && c <= '9') {
      while (i < n && /[A-Za-z0-9_.]/.test(sql[i]!)) i++
    } else i++
  }
  return out
}

const NAME = String.raw`("(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_$]*)(?:\s*\.\s*("(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_$]*))?`
const CREATE_RELATION = new RegExp(String.raw`^create\s+(?:or\s+replace\s+)?(?:temp\s+|temporary\s+)?(?:materialized\s+)?(?:table|view|stream|source|sink)\s+(?:if\s+not\s+exists\s+)?${NAME}`, 'i')
const DROP_RELATION = new RegExp(String.raw`^drop\s+(?:table|view|materialized\s+view|stream|source|sink)\s+(?:if\s+exists\s+)?([^;]*)$`, 'i')
const ALTER_RELATION = new RegExp(String.raw`^alter\s+(?:table|view|materialized\s+view|stream)\s+(?:if\s+exists\s+)?${NAME}(?:.*\brename\s+to\s+${NAME})?`, 'is')
// (DDL is refused inside transaction blocks, so ending one changes no names)
const NO_NAME_CHANGE = /^(create\s+(?:unique\s+)?index\b|drop\s+index\b|create\s+trigger\b|drop\s+trigger\b|reindex\b|commit\b|end\b|rollback\b|abort\b)/i

function identName(quotedOrBare: string): string {
  return quotedOrBare.startsWith('"') ? quotedOrBare.slice(1, -1).replace(/""/g, '"') : quotedOrBare.toLowerCase()
}

/**
 * The relation names a statement text may create, drop or alter (the last part of qualified
 * names), or undefined when it may change what any name resolves to (CASCADE, COMMIT, ALTER
 * forms we do not recognise, ...). Used to create a query's helper view as early as the names
 * it reads are settled.
 */
export function changedNames(sql: string): Set<string> | undefined {
  const out = new Set<string>()
  const cuts = [-1, ...topLevelSemicolons(sql), sql.length]
  for (let i = 0; i + 1 < cuts.length; i++) {
    const stmt = sql.slice(cuts[i]! + 1, cuts[i + 1]).replace(/--[^\n]*/g, ' ').trim()
    if (stmt === '' || !NAME_CHANGE.test(stmt)) continue
    if (NO_NAME_CHANGE.test(stmt)) continue
    let m = CREATE_RELATION.exec(stmt)
    if (m !== null) {
      out.add(identName(m[2] ?? m[1]!))
      continue
    }
    m = DROP_RELATION.exec(stmt)
    if (m !== null) {
      if (/\bcascade\b/i.test(m[1]!)) return undefined
      for (const part of m[1]!.replace(/\brestrict\b/i, '').split(',')) {
        const n = new RegExp(String.raw`^\s*${NAME}\s*$`).exec(part)
        if (n === null) return undefined
        out.add(identName(n[2] ?? n[1]!))
      }
      continue
    }
    m = ALTER_RELATION.exec(stmt)
    if (m !== null) {
      out.add(identName(m[2] ?? m[1]!))
      if (m[3] !== undefined) out.add(identName(m[4] ?? m[3]))
      continue
    }
    return undefined
  }
  return out
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** A relation name for `db.insert`/`db.delete`, which fold it unless it is in double quotes. */
function apiName(name: string): string {
  return name === name.toLowerCase() ? name : `"${name}"`
}

/** A small seeded PRNG (mulberry32): numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One PRNG seed per record, so a record's choice does not depend on the records before it. */
function mixSeed(seed: number, k: number): number {
  return (Math.imul((seed % 4294967296) >>> 0, 0x9e3779b1) ^ Math.imul(k + 1, 0x85ebca6b)) >>> 0
}

/** Elements of sorted `a` missing from sorted `b` and vice versa (as multisets). */
function multisetDiff(a: readonly string[], b: readonly string[]): { onlyA: string[]; onlyB: string[] } {
  const onlyA: string[] = []
  const onlyB: string[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) onlyA.push(a[i++]!)
    else if (i >= a.length || b[j]! < a[i]!) onlyB.push(b[j++]!)
    else {
      i++
      j++
    }
  }
  return { onlyA, onlyB }
}

/** Runs one file; failures go to options.report as `file:line: ...`. */
export async function runFile(path: string, options: RunOptions): Promise<Counts> {
  let records: SltRecord[]
  try {
    records = loadSlt(path)
  } catch (e) {
    options.report(`${path}:0: cannot read file: ${(e as Error).message}`)
    return { ...emptyCounts(), failed: 1 }
  }
  return runRecords(path, records, options)
}

/** Runs already parsed records (records may come from included files). */
export async function runRecords(path: string, records: readonly SltRecord[], options: RunOptions): Promise<Counts> {
  const run = new FileRun(path, records, options)
  return run.run()
}

function isCounted(r: SltRecord): boolean {
  return r.kind === 'statement' || r.kind === 'query' || r.kind === 'unsupported' || r.kind === 'invalid'
}

class FileRun {
  readonly #path: string
  readonly #records: readonly SltRecord[]
  readonly #opts: RunOptions
  readonly #names: ReadonlySet<string>
  readonly #counts: Counts = emptyCounts()
  #db: SltEngine | undefined
  // File state set by directives.
  #flavour: Flavour
  #floatFormat: FloatFormat
  #layout: Layout
  #defaultSort: SortMode = 'nosort'
  readonly #labels = new Map<string, string>()
  // ivm state
  readonly #ivm: boolean
  readonly #batch: boolean
  readonly #views = new Map<number, IvmView>()
  #viewColumnList = true
  /** Queries checked through a helper view / ad hoc only (for --verbose). */
  #viaView = 0
  #adHocOnly = 0
  // delta state
  readonly #deltaNames = new Set<string>()
  readonly #deltas = new Map<string, DeltaState>()

  constructor(path: string, records: readonly SltRecord[], opts: RunOptions) {
    this.#path = path
    this.#records = records
    this.#opts = opts
    this.#names = new Set((opts.engineNames ?? ENGINE_NAMES).map((n) => n.toLowerCase()))
    const classic = extname(path).toLowerCase() === '.test'
    this.#flavour = classic ? 'classic' : 'modern'
    this.#floatFormat = classic ? 'fixed3' : 'shortest'
    this.#layout = classic ? 'valuewise' : 'auto'
    this.#ivm = opts.mode !== 'batch'
    this.#batch = opts.mode !== 'ivm'
  }

  #applies(r: SltRecord): boolean {
    for (const c of r.conditions) {
      const mine = this.#names.has(c.engine)
      if (c.kind === 'skipif' && mine) return false
      if (c.kind === 'onlyif' && !mine) return false
    }
    return true
  }

  #note(line: string): void {
    if (this.#opts.verbose) this.#opts.report(line)
  }

  #skip(reason: 'condition' | 'unsupported' | 'notRun'): void {
    this.#counts.skipped++
    this.#counts[reason]++
  }

  #fail(r: SltRecord, what: string, details: readonly string[] = []): void {
    this.#counts.failed++
    this.#opts.report(`${r.file}:${r.line}: ${what}`)
    for (const d of details) this.#opts.report(d)
  }

  get #engine(): SltEngine {
    if (this.#db === undefined) throw new Error('engine is closed')
    return this.#db
  }

  async run(): Promise<Counts> {
    const records = this.#records
    // Pre-scan: views named in delta records, and the queries that become views in ivm mode.
    const nameChanges: { readonly index: number; readonly names: ReadonlySet<string> | undefined }[] = []
    let halted = false
    for (let k = 0; k < records.length; k++) {
      const r = records[k]!
      if (!this.#applies(r)) continue
      if (r.kind === 'halt') halted = true
      if (halted) break
      if (r.kind === 'statement' && NAME_CHANGE.test(r.sql)) nameChanges.push({ index: k, names: changedNames(r.sql) })
      if (r.kind !== 'query') continue
      if (r.delta !== undefined) this.#deltaNames.add(r.delta)
      else if (this.#ivm && r.error === undefined) {
        const sql = viewableQuery(r.sql)
        if (sql !== undefined) {
          const names = sqlIdentifiers(sql)
          let settledAfter = -1
          for (let j = nameChanges.length - 1; j >= 0; j--) {
            const c = nameChanges[j]!
            if (c.names === undefined || [...c.names].some((n) => names.has(n))) {
              settledAfter = c.index
              break
            }
          }
          this.#views.set(k, { index: k, name: `__slt_q${k}`, sql, names, settledAfter, ncols: r.types.length, live: false, error: undefined })
        }
      }
    }

    let k = 0
    try {
      this.#db = this.#opts.openEngine()
      if (this.#ivm) this.#createPendingViews(-1)
      halted = false
      for (; k < records.length; k++) {
        const r = records[k]!
        if (this.#opts.stopAtLine !== undefined && r.file === this.#path && r.startLine > this.#opts.stopAtLine) break
        if (halted || !this.#applies(r)) {
          if (isCounted(r)) this.#skip('condition')
          continue
        }
        const failedBefore = this.#counts.failed
        await this.#runRecord(k, r)
        if (r.kind === 'halt') halted = true
        if (this.#opts.failFast && this.#counts.failed > failedBefore) {
          for (k++; k < records.length; k++) if (isCounted(records[k]!)) this.#skip('notRun')
          break
        }
      }
    } catch (e) {
      // The runner itself (or the engine, badly) crashed: the rest of the file fails.
      const r = records[k]
      this.#opts.report(`${r?.file ?? this.#path}:${r?.line ?? 0}: runner crashed: ${(e as Error).stack ?? String(e)}`)
      let rest = 0
      for (; k < records.length; k++) if (isCounted(records[k]!)) rest++
      this.#counts.failed += Math.max(rest, 1)
    } finally {
      this.#close()
    }
    if (this.#ivm) this.#note(`${this.#path}: ivm: ${this.#viaView} queries checked through views, ${this.#adHocOnly} ad hoc only`)
    return this.#counts
  }

  #close(): void {
    for (const d of this.#deltas.values()) {
      try {
        d.stop?.()
      } catch {
        /* ignore */
      }
    }
    this.#deltas.clear()
    try {
      this.#db?.close()
    } catch {
      /* ignore */
    }
    this.#db = undefined
  }

  async #runRecord(k: number, r: SltRecord): Promise<void> {
    switch (r.kind) {
      case 'statement':
        this.#runStatement(k, r)
        return
      case 'query':
        if (r.delta !== undefined) await this.#runDelta(r)
        else this.#runQuery(k, r)
        return
      case 'halt':
        return
      case 'hash-threshold':
        // Results are compared by hash only where the expected block is a hash line, so the
        // threshold (classic default 8, sqllogictest-rs default 0) changes nothing here.
        return
      case 'mode':
        if (r.mode === 'standard') {
          this.#layout = 'valuewise'
          this.#floatFormat = 'fixed3'
        } else if (r.mode === 'cockroach') {
          this.#layout = 'rowwise'
          this.#floatFormat = 'shortest'
        }
        return
      case 'control': {
        const [what, value] = r.args
        if (what === 'resultmode' && (value === 'valuewise' || value === 'rowwise')) this.#layout = value
        else if (what === 'sortmode' && (value === 'nosort' || value === 'rowsort' || value === 'valuesort')) this.#defaultSort = value
        else if (what === 'floatformat' && (value === 'fixed3' || value === 'shortest')) this.#floatFormat = value
        else this.#note(`${r.file}:${r.line}: note: ignored control ${r.args.join(' ')}`)
        return
      }
      case 'sleep':
        this.#db?.advanceClock?.(r.ms)
        return
      case 'include':
      case 'ignored':
        return
      case 'unsupported':
        this.#skip('unsupported')
        this.#note(`${r.file}:${r.line}: skipped unsupported record '${r.directive}'`)
        return
      case 'invalid':
        this.#fail(r, r.message)
        return
    }
  }

  // -------------------------------------------------------------------------------------------
  // statements

  #exec(sql: string): { results?: readonly StatementResult[]; error?: SqlError } {
    try {
      return { results: this.#engine.execute(sql) }
    } catch (e) {
      return { error: toSqlError(e) }
    }
  }

  #runStatement(k: number, r: StatementRecord): void {
    const db = this.#engine
    const inTxBefore = db.inTransaction
    if (this.#ivm && NEEDS_NO_VIEWS.test(r.sql)) this.#dropLiveViews(changedNames(r.sql))
    let out = this.#exec(r.sql)
    if (out.error !== undefined && r.expect.kind !== 'error' && this.#ivm && !inTxBefore && this.#anyLiveView() && !/^\s*(commit|end)\b/i.test(r.sql)) {
      // Maybe one of our helper views made the statement fail: retry without them.
      const first = out.error
      this.#dropLiveViews()
      out = this.#exec(r.sql)
      if (out.error === undefined) {
        this.#note(`${r.file}:${r.line}: note: statement failed only while helper views existed: ${describeError(first)}`)
      }
    }
    const expect = r.expect
    if (out.error !== undefined) {
      if (expect.kind === 'error') {
        const bad = matchError(out.error, expect.error)
        if (bad === undefined) this.#counts.passed++
        else this.#fail(r, `statement error: ${bad}`, [`  sql: ${firstLine(r.sql)}`])
      } else {
        this.#fail(r, `statement failed: ${describeError(out.error)}`, [`  sql: ${firstLine(r.sql)}`])
      }
    } else if (expect.kind === 'error') {
      this.#fail(r, 'statement succeeded, expected an error', [`  sql: ${firstLine(r.sql)}`])
    } else if (expect.kind === 'count') {
      const results = out.results ?? []
      const got = results.length === 0 ? 0 : results[results.length - 1]!.rowCount
      if (got === expect.count) this.#counts.passed++
      else this.#fail(r, `statement count: expected ${expect.count}, got ${got}`, [`  sql: ${firstLine(r.sql)}`])
    } else {
      this.#counts.passed++
    }
    if (this.#deltaNames.size > 0 && DDL.test(r.sql)) this.#syncSubscriptions()
    if (this.#ivm && NAME_CHANGE.test(r.sql)) this.#createPendingViews(k)
  }

  // -------------------------------------------------------------------------------------------
  // queries

  #runAdHoc(sql: string): QueryRun {
    try {
      return { result: this.#engine.query(sql) }
    } catch (e) {
      return { error: toSqlError(e) }
    }
  }

  #render(result: QueryResult, letters: string, floatFormat: FloatFormat): string[][] {
    const opts: RenderOptions = { flavour: this.#flavour, floatFormat }
    return renderRows(
      result.rows,
      letters,
      result.columns.map((c) => c.type),
      opts,
    )
  }

  /** Compares a result with the record's expectation. Returns undefined on success. */
  #check(r: QueryRecord, result: QueryResult, sort: SortMode, expectedLines: readonly string[], checkNames: boolean): CompareOutcome {
    const ncols = result.columns.length
    if (r.types.length !== ncols && r.types.length > 0) {
      return { ok: false, reason: `expected ${r.types.length} columns (${r.types}), got ${ncols}`, expected: [], actual: result.columns.map((c) => `${c.name} ${c.type}`) }
    }
    let expected = expectedLines
    if (r.colnames && expected.length > 0) {
      const names = expected[0]!.trim().split(/\s+/).join(' ')
      expected = expected.slice(1)
      const got = result.columns.map((c) => c.name).join(' ')
      if (checkNames && names !== got) {
        return { ok: false, reason: 'column names differ', expected: [names], actual: [got] }
      }
    }
    if (r.multiline) {
      const act: string[] = []
      const rows = this.#render(result, r.types, this.#floatFormat)
      for (const row of rows) for (const v of row) act.push(...v.split('\n'))
      const exp = expected.map((l) => l.trimEnd())
      const a = act.map((l) => l.trimEnd())
      while (a.length > 0 && a[a.length - 1] === '') a.pop()
      while (exp.length > 0 && exp[exp.length - 1] === '') exp.pop()
      if (sort !== 'nosort') {
        exp.sort()
        a.sort()
      }
      const same = exp.length === a.length && exp.every((l, i) => l === a[i])
      return same ? { ok: true } : { ok: false, reason: 'result mismatch', expected: exp, actual: a }
    }
    const spec = { expected, ncols, sort, layout: this.#layout }
    const first = compareResult(this.#render(result, r.types, this.#floatFormat), spec)
    if (first.ok || !r.types.includes('R')) return first
    // R columns: accept the other float format too (%.3f vs shortest), see README.
    const other: FloatFormat = this.#floatFormat === 'fixed3' ? 'shortest' : 'fixed3'
    const second = compareResult(this.#render(result, r.types, other), spec)
    return second.ok ? second : first
  }

  #reportMismatch(r: QueryRecord, tag: string, out: CompareOutcome & { ok: false }): void {
    this.#fail(r, `query ${out.reason}${tag}`, [`  sql: ${firstLine(r.sql)}`, ...shown('expected', out.expected), ...shown('actual', out.actual)])
  }

  #checkLabel(r: QueryRecord, result: QueryResult, sort: SortMode): string | undefined {
    if (r.label === undefined) return undefined
    const values = sortedValues(this.#render(result, r.types, this.#floatFormat), sort)
    const hash = `${values.length}:${hashValues(values)}`
    const before = this.#labels.get(r.label)
    if (before === undefined) {
      this.#labels.set(r.label, hash)
      return undefined
    }
    return before === hash ? undefined : `label ${r.label}: result differs from an earlier query with the same label`
  }

  #runQuery(k: number, r: QueryRecord): void {
    const sort = r.sortMode ?? this.#defaultSort
    if (r.error !== undefined) {
      const out = this.#runAdHoc(r.sql)
      if (out.error === undefined) this.#fail(r, 'query succeeded, expected an error', [`  sql: ${firstLine(r.sql)}`])
      else {
        const bad = matchError(out.error, r.error)
        if (bad === undefined) this.#counts.passed++
        else this.#fail(r, `query error: ${bad}`, [`  sql: ${firstLine(r.sql)}`])
      }
      return
    }
    const view = this.#views.get(k)
    if (view !== undefined && !view.live && !this.#engine.inTransaction) this.#createView(view)
    const zoneDependent = view !== undefined && !view.live && view.error !== undefined && ZONE_DEPENDENT_VIEW.test(view.error.message)
    const useView = view !== undefined && !this.#engine.inTransaction && !zoneDependent
    if (useView) this.#viaView++
    else this.#adHocOnly++
    if (view !== undefined && !useView) this.#note(`${r.file}:${r.line}: note: ${zoneDependent ? 'depends on the TimeZone' : 'inside a transaction'}, checked ad hoc only`)
    let adHoc: QueryRun | undefined
    const failures: { tag: string; out: CompareOutcome & { ok: false } }[] = []
    let errorText: string | undefined

    if (this.#batch || !useView) {
      adHoc = this.#runAdHoc(r.sql)
      const tag = this.#ivm && useView ? ' [batch]' : ''
      if (adHoc.error !== undefined) {
        errorText = `query failed${tag}: ${describeError(adHoc.error)}`
      } else {
        const out = this.#check(r, adHoc.result!, sort, r.expected, true)
        if (!out.ok) failures.push({ tag, out })
        else {
          const bad = this.#checkLabel(r, adHoc.result!, sort)
          if (bad !== undefined) errorText = bad
        }
      }
    }

    if (useView && errorText === undefined) {
      const ivmErr = this.#checkView(r, view, sort, () => {
        adHoc ??= this.#runAdHoc(r.sql)
        return adHoc
      }, failures)
      if (ivmErr !== undefined) errorText = ivmErr
    }

    // Churn only a record that matched, through a live view, before the view is dropped.
    let churned: ChurnFailure | undefined
    if (this.#opts.churn && useView && view.live && errorText === undefined && failures.length === 0) churned = this.#churn(k, r, view, sort)

    // A view not read because the batch half already failed is not needed any more.
    if (view !== undefined && useView && this.#views.has(k)) this.#dropView(view)
    if (errorText !== undefined) this.#fail(r, errorText, [`  sql: ${firstLine(r.sql)}`])
    else if (failures.length > 0) {
      const f = failures[0]!
      const tag = failures.length > 1 ? ` [${failures.map((x) => x.tag.trim().replace(/^\[|\]$/g, '')).join(' and ')}]` : f.tag
      this.#reportMismatch(r, tag, f.out)
    } else if (churned !== undefined) this.#fail(r, `[churn] ${churned.what}`, [`  sql: ${firstLine(r.sql)}`, ...churned.details])
    else this.#counts.passed++
  }

  /** The ivm half of a query record; pushes mismatches, returns an error text. */
  #checkView(r: QueryRecord, view: IvmView, sort: SortMode, adHoc: () => QueryRun, failures: { tag: string; out: CompareOutcome & { ok: false } }[]): string | undefined {
    const tag = this.#batch ? ' [ivm]' : ''
    if (!view.live) this.#createView(view)
    if (!view.live) {
      const ah = adHoc()
      // Same failure ad hoc: report it once, as a query failure.
      if (ah.error !== undefined) return `query failed: ${describeError(ah.error)}`
      return `query${tag}: cannot create materialized view: ${describeError(view.error ?? { code: undefined, message: 'unknown', sql: false })}`
    }
    let res: QueryRun
    try {
      res = { result: this.#engine.query(`SELECT * FROM ${view.name}`) }
    } catch (e) {
      res = { error: toSqlError(e) }
    }
    // The view is dropped by #runQuery (after the churn, if any).
    if (res.error !== undefined) return `query${tag}: reading the view failed: ${describeError(res.error)}`
    const result = res.result!
    // Views have no row order: nosort compares as rowsort. A nosort hash cannot be re-sorted,
    // so then the view must equal the ad hoc result as a multiset instead.
    const isHash = r.expected.length === 1 && /values hashing to/.test(r.expected[0]!)
    if (sort === 'nosort' && isHash && result.rows.length > 1) {
      const ah = adHoc()
      if (ah.error !== undefined) return `query failed: ${describeError(ah.error)}`
      const mine = this.#render(result, r.types, this.#floatFormat).map((row) => row.join(' '))
      const theirs = this.#render(ah.result!, r.types, this.#floatFormat).map((row) => row.join(' '))
      const out = compareResult(mine.map((l) => [l]), { expected: theirs, ncols: 1, sort: 'rowsort', layout: 'rowwise' })
      if (!out.ok) failures.push({ tag: `${tag} (view vs ad hoc)`, out })
      else if (!this.#batch) {
        const out2 = this.#check(r, ah.result!, sort, r.expected, true)
        if (!out2.ok) failures.push({ tag, out: out2 })
      }
      return undefined
    }
    const out = this.#check(r, result, sort === 'nosort' ? 'rowsort' : sort, r.expected, false)
    if (!out.ok) failures.push({ tag, out })
    return undefined
  }

  // -------------------------------------------------------------------------------------------
  // churn (README: "Churn")

  /** Tables (kind 'table') that `sql` reads, directly or through views; and every relation
   *  it reads in an order that puts each after what it reads (for a sandbox copy). */
  #baseTables(sql: string): { tables: string[]; order: RelationInfo[] } {
    const byName = new Map<string, RelationInfo>()
    for (const rel of this.#engine.relations()) byName.set(rel.name, rel)
    const tables: string[] = []
    const order: RelationInfo[] = []
    const seen = new Set<string>()
    const visit = (text: string): void => {
      for (const id of sqlIdentifiers(text)) {
        const rel = byName.get(id)
        if (rel === undefined || seen.has(rel.name) || rel.name.startsWith('__slt_q')) continue
        seen.add(rel.name)
        if (rel.kind === 'table') {
          tables.push(rel.name)
          order.push(rel)
        } else if ((rel.kind === 'view' || rel.kind === 'materialized view') && rel.definition !== undefined) {
          visit(rel.definition)
          order.push(rel)
        }
      }
    }
    visit(sql)
    return { tables: tables.sort(), order }
  }

  /** Rendered rows of a result (one string per row), sorted; in the given float format. */
  #rowKeys(r: QueryRecord, result: QueryResult, floatFormat: FloatFormat): string[] {
    return this.#render(result, r.types, floatFormat)
      .map((row) => JSON.stringify(row))
      .sort()
  }

  /** Compares the view with a recompute as multisets of rendered rows; undefined when equal. */
  #sameRows(r: QueryRecord, viewResult: QueryResult, recompute: QueryResult): string[] | undefined {
    const a = this.#rowKeys(r, viewResult, this.#floatFormat)
    const b = this.#rowKeys(r, recompute, this.#floatFormat)
    if (a.length === b.length && a.every((x, i) => x === b[i])) return undefined
    if (r.types.includes('R')) {
      // As for results: R columns may match in the other float format (summation order).
      const other: FloatFormat = this.#floatFormat === 'fixed3' ? 'shortest' : 'fixed3'
      const a2 = this.#rowKeys(r, viewResult, other)
      const b2 = this.#rowKeys(r, recompute, other)
      if (a2.length === b2.length && a2.every((x, i) => x === b2[i])) return undefined
    }
    const { onlyA, onlyB } = multisetDiff(a, b)
    const fmt = (rows: string[]): string[] => rows.map((x) => (JSON.parse(x) as string[]).join(' '))
    return [`  view ${a.length} rows, recompute ${b.length} rows`, ...shown('only in the view', fmt(onlyA)), ...shown('only in the recompute', fmt(onlyB))]
  }

  /** After a query matched through `view`: delete a random half of its tables' rows, check,
   *  re-insert, check. In the file's engine, unless many other live helper views read those
   *  tables: then in a sandbox engine holding a copy of just what the query reads (README). */
  #churn(k: number, r: QueryRecord, view: IvmView, sort: SortMode): ChurnFailure | undefined {
    const main = this.#engine
    if (main.inTransaction) return undefined
    const seed = this.#opts.churnSeed ?? DEFAULT_CHURN_SEED
    const where = (step: string, what: string, details: string[] = []): ChurnFailure => ({
      what: `${step}: ${what} (seed ${seed}; RIVULET_SEED=${seed} replays)`,
      details,
    })
    let reads: { tables: string[]; order: RelationInfo[] }
    try {
      reads = this.#baseTables(view.sql)
    } catch (e) {
      return where('finding tables', describeError(toSqlError(e)))
    }
    const tables = reads.tables
    if (tables.length === 0) return undefined
    let others = 0
    const read = reads.order.map((rel) => rel.name)
    for (const v of this.#views.values()) if (v.live && v !== view && read.some((name) => v.names.has(name))) others++
    if (others <= CHURN_IN_PLACE_MAX_VIEWS) return this.#churnIn(main, k, r, view.name, view.sql, tables, sort, where)
    let sandbox: SltEngine | undefined
    try {
      sandbox = this.#opts.openEngine()
      for (const rel of reads.order) {
        if (rel.kind === 'table') {
          const cols = rel.columns.map((c) => `${quoteIdent(c.name)} ${c.type}`)
          if (rel.primaryKey.length > 0) cols.push(`PRIMARY KEY (${rel.primaryKey.map(quoteIdent).join(', ')})`)
          sandbox.execute(`CREATE TABLE ${quoteIdent(rel.name)} (${cols.join(', ')})`)
          const rows = main.query(`SELECT * FROM ${quoteIdent(rel.name)}`).rows
          if (rows.length > 0) sandbox.insert(apiName(rel.name), rows)
        } else sandbox.execute(`CREATE ${rel.kind === 'view' ? 'VIEW' : 'MATERIALIZED VIEW'} ${quoteIdent(rel.name)} AS ${rel.definition!}`)
      }
      const cols = this.#viewColumnList && view.ncols > 0 ? ` (${Array.from({ length: view.ncols }, (_, i) => `c${i + 1}`).join(', ')})` : ''
      sandbox.execute(`CREATE MATERIALIZED VIEW ${view.name}${cols} AS ${view.sql}`)
    } catch (e) {
      sandbox?.close()
      return where('copying what the query reads into a sandbox engine', describeError(toSqlError(e)))
    }
    try {
      return this.#churnIn(sandbox, k, r, view.name, view.sql, tables, sort, where)
    } finally {
      sandbox.close()
    }
  }

  #churnIn(db: SltEngine, k: number, r: QueryRecord, viewName: string, viewSql: string, tables: readonly string[], sort: SortMode, where: (step: string, what: string, details?: string[]) => ChurnFailure): ChurnFailure | undefined {
    const seed = this.#opts.churnSeed ?? DEFAULT_CHURN_SEED
    const rand = mulberry32(mixSeed(seed, k))
    const picks: { table: string; rows: ResultValue[][]; of: number }[] = []
    for (const t of tables) {
      let all: ResultValue[][]
      try {
        all = db.query(`SELECT * FROM ${quoteIdent(t)}`).rows
      } catch (e) {
        return where(`reading ${t}`, describeError(toSqlError(e)))
      }
      const n = Math.ceil(all.length / 2)
      const idx = all.map((_, i) => i)
      for (let i = 0; i < n; i++) {
        const j = i + Math.floor(rand() * (idx.length - i))
        const tmp = idx[i]!
        idx[i] = idx[j]!
        idx[j] = tmp
      }
      if (n > 0) picks.push({ table: t, rows: idx.slice(0, n).map((i) => all[i]!), of: all.length })
    }
    if (picks.length === 0) return undefined
    const what = picks.map((p) => `${p.rows.length} of ${p.of} rows of ${p.table}`).join(', ')
    const read = (): { view?: QueryResult; recompute?: QueryResult; error?: string } => {
      try {
        const v = db.query(`SELECT * FROM ${viewName}`)
        try {
          return { view: v, recompute: db.query(viewSql) }
        } catch (e) {
          return { error: `recompute failed: ${describeError(toSqlError(e))}` }
        }
      } catch (e) {
        return { error: `reading the view failed: ${describeError(toSqlError(e))}` }
      }
    }

    // (b) delete, (c) check
    let failure: ChurnFailure | undefined
    const deleted: { table: string; rows: ResultValue[][] }[] = []
    for (const p of picks) {
      try {
        const n = db.delete(apiName(p.table), p.rows)
        deleted.push(p)
        if (n !== p.rows.length) {
          failure = where(`deleting ${what}`, `delete from ${p.table} removed ${n} rows, expected ${p.rows.length}`)
          break
        }
      } catch (e) {
        failure = where(`deleting ${what}`, `delete from ${p.table} failed: ${describeError(toSqlError(e))}`)
        break
      }
    }
    if (failure === undefined) {
      const got = read()
      if (got.error !== undefined) failure = where(`after deleting ${what}`, got.error)
      else {
        const diff = this.#sameRows(r, got.view!, got.recompute!)
        if (diff !== undefined) failure = where(`after deleting ${what}`, 'view differs from recompute', diff)
      }
    }

    // (d) re-insert what was deleted (also after a failure, so later records see the file's data)
    for (const p of deleted) {
      try {
        const n = db.insert(apiName(p.table), p.rows)
        if (n !== p.rows.length && failure === undefined) failure = where(`re-inserting ${what}`, `insert into ${p.table} inserted ${n} rows, expected ${p.rows.length}`)
      } catch (e) {
        failure ??= where(`re-inserting ${what}`, `insert into ${p.table} failed: ${describeError(toSqlError(e))}`)
      }
    }
    if (failure !== undefined) return failure

    // (e) check against a recompute and the expected result
    const got = read()
    if (got.error !== undefined) return where(`after re-inserting ${what}`, got.error)
    const diff = this.#sameRows(r, got.view!, got.recompute!)
    if (diff !== undefined) return where(`after re-inserting ${what}`, 'view differs from recompute', diff)
    const isHash = r.expected.length === 1 && /values hashing to/.test(r.expected[0]!)
    // A nosort hash cannot be re-sorted: the recompute (equal to the view) is checked in its order.
    const out = sort === 'nosort' && isHash ? this.#check(r, got.recompute!, sort, r.expected, false) : this.#check(r, got.view!, sort === 'nosort' ? 'rowsort' : sort, r.expected, false)
    if (!out.ok) return where(`after re-inserting ${what}`, `view differs from the expected result: ${out.reason}`, [...shown('expected', out.expected), ...shown('actual', out.actual)])
    return undefined
  }

  // -------------------------------------------------------------------------------------------
  // ivm helper views

  #anyLiveView(): boolean {
    for (const v of this.#views.values()) if (v.live) return true
    return false
  }

  #createView(v: IvmView): void {
    const db = this.#engine
    if (db.inTransaction) return
    const attempt = (withColumns: boolean): SqlError | undefined => {
      const cols = withColumns && v.ncols > 0 ? ` (${Array.from({ length: v.ncols }, (_, i) => `c${i + 1}`).join(', ')})` : ''
      try {
        db.execute(`CREATE MATERIALIZED VIEW ${v.name}${cols} AS ${v.sql}`)
        return undefined
      } catch (e) {
        return toSqlError(e)
      }
    }
    let err = attempt(this.#viewColumnList)
    if (err !== undefined && this.#viewColumnList && (err.code === '42601' || err.code === '0A000')) {
      // Column lists keep duplicate output names apart; fall back if the engine rejects them.
      const plain = attempt(false)
      if (plain === undefined) {
        this.#viewColumnList = false
        this.#note(`${this.#path}: note: CREATE MATERIALIZED VIEW with a column list failed (${err.message}); using plain views`)
      }
      err = plain
    }
    v.live = err === undefined
    v.error = err
  }

  /** Tries to create the views of queries after record `after` that are not live yet and
   *  whose names are settled (no later statement before the query may change them). */
  #createPendingViews(after: number): void {
    if (this.#engine.inTransaction) return
    for (const v of this.#views.values()) {
      if (v.index <= after || v.live || v.settledAfter > after) continue
      if (v.error !== undefined && (v.error.code === undefined || !RETRYABLE.has(v.error.code))) continue
      this.#createView(v)
    }
  }

  #dropView(v: IvmView): void {
    if (v.live) {
      try {
        this.#engine.execute(`DROP MATERIALIZED VIEW ${v.name}`)
      } catch {
        /* ignore */
      }
    }
    v.live = false
    this.#views.delete(v.index)
  }

  /** Drops the live helper views that may read one of `names` (all of them when undefined);
   *  they become pending again (with a retryable state). */
  #dropLiveViews(names?: ReadonlySet<string>): void {
    for (const v of this.#views.values()) {
      if (!v.live) continue
      if (names !== undefined && ![...names].some((n) => v.names.has(n))) continue
      try {
        this.#engine.execute(`DROP MATERIALIZED VIEW ${v.name}`)
      } catch {
        /* ignore */
      }
      v.live = false
      v.error = undefined
    }
  }

  // -------------------------------------------------------------------------------------------
  // delta

  #syncSubscriptions(): void {
    let rels: readonly RelationInfo[]
    try {
      rels = this.#engine.relations()
    } catch (e) {
      this.#note(`${this.#path}: note: relations() failed: ${(e as Error).message}`)
      return
    }
    const present = new Set<string>()
    for (const rel of rels) {
      const name = rel.name.toLowerCase()
      if (!this.#deltaNames.has(name)) continue
      present.add(name)
      if (this.#deltas.has(name)) continue
      const st: DeltaState = { stop: undefined, error: undefined, columns: rel.columns, acc: new Map() }
      this.#deltas.set(name, st)
      try {
        st.stop = this.#engine.subscribe(
          rel.name,
          (batch) => {
            if (batch.columns.length > 0) st.columns = batch.columns
            for (const [row, diff] of batch.changes) {
              const key = JSON.stringify(row, bigintAsText)
              const e = st.acc.get(key)
              if (e === undefined) st.acc.set(key, { row, weight: diff })
              else {
                e.weight += diff
                if (e.weight === 0) st.acc.delete(key)
              }
            }
          },
          { snapshot: true },
        ).stop
      } catch (e) {
        st.error = describeError(toSqlError(e))
      }
    }
    for (const [name, st] of this.#deltas) {
      if (present.has(name)) continue
      try {
        st.stop?.()
      } catch {
        /* ignore */
      }
      this.#deltas.delete(name)
    }
  }

  async #runDelta(r: QueryRecord): Promise<void> {
    const name = r.delta!
    if (!this.#deltas.has(name)) this.#syncSubscriptions()
    // Let asynchronous deliveries land.
    await new Promise<void>((res) => setImmediate(res))
    const st = this.#deltas.get(name)
    if (st === undefined) {
      this.#fail(r, `delta: no relation named ${name}`)
      return
    }
    if (st.error !== undefined) {
      this.#fail(r, `delta: subscribe to ${name} failed: ${st.error}`)
      return
    }
    const rows: ResultValue[][] = []
    for (const { row, weight } of st.acc.values()) if (weight !== 0) rows.push([...row, weight])
    st.acc.clear()
    const columns: ColumnInfo[] = [...st.columns, { name: 'weight', type: 'bigint' as SqlTypeName }]
    const letters = r.types.length === st.columns.length ? `${r.types}I` : r.types
    const result: QueryResult = { columns, rows }
    const recordForCheck: QueryRecord = { ...r, types: letters }
    const out = this.#check(recordForCheck, result, 'rowsort', r.expected, false)
    if (out.ok) this.#counts.passed++
    else this.#fail(r, `delta ${name}: ${out.reason}`, [...shown('expected', out.expected), ...shown('actual', out.actual)])
  }
}

/** JSON.stringify replacer for row keys: a bigint (a 64-bit value beyond 2^53) as its digits. */
function bigintAsText(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v
}
