// What a session does with one parsed statement. Every decision comes from the engine's parser
// (grammar/ parse and its AST): the statement's kind says whether the session runs it itself
// (transaction control, session settings, cursors, COPY … STDIN / STDOUT, SUBSCRIBE, prepared
// statement housekeeping) or hands it to the engine, and whether it only reads. Texts handed
// on (a cursor's query, a COPY's query) are slices of the statement at the spans the parser
// gave, so they are read again exactly as they were parsed.

import { RivuletError, type CopyOption, type ParsedStatement, type Statement, type WithOption } from '../../grammar/index.js'
import { parseInterval } from '../sql-runtime/interval.js'
import { readCopyLayout, type CopyLayout } from '../sql-runtime/copy-format.js'

/** Actions that run a text carry `at`, where that text starts in the query string (error
 *  positions inside it are reported from there); undefined for a text made here. */
export type SessionAction =
  | { readonly kind: 'begin' }
  | { readonly kind: 'commit' }
  | { readonly kind: 'rollback' }
  | { readonly kind: 'set'; readonly name: string; readonly value: string | undefined }
  /** SET TRANSACTION …, SET ROLE …: accepted, nothing to do */
  | { readonly kind: 'setIgnored' }
  | { readonly kind: 'reset'; readonly name: string | undefined }
  | { readonly kind: 'show'; readonly name: string }
  | { readonly kind: 'declare'; readonly name: string; readonly query: string; readonly at: number; readonly subscribe: boolean }
  | { readonly kind: 'fetch'; readonly name: string; readonly count: number; readonly timeoutMs: number | undefined }
  | { readonly kind: 'close'; readonly name: string | undefined }
  | { readonly kind: 'copyOut'; readonly query: string; readonly at: number | undefined; readonly subscribe: boolean; readonly format: CopyLayout }
  /** COPY t FROM STDIN: the engine loads what the client sends; `text` is the statement */
  | { readonly kind: 'copyIn'; readonly text: string; readonly at: number; readonly table: string; readonly columns: number | undefined; readonly format: CopyLayout }
  | { readonly kind: 'subscribe'; readonly query: string; readonly at: number }
  | { readonly kind: 'deallocate'; readonly name: string | undefined }
  | { readonly kind: 'discard' }
  | { readonly kind: 'unlisten' }
  /** Anything else: the engine runs `text`. `read`: it only reads (runs outside the engine's
   *  transaction and returns rows). */
  | { readonly kind: 'engine'; readonly text: string; readonly at: number; readonly read: boolean }

/** COPY data layout: text or CSV, with its delimiter and NULL marker. */

/** The engine's own SHOW forms (everything else SHOWs a session setting). */
const ENGINE_SHOWS = new Set(['tables', 'views', 'streams', 'materialized', 'columns', 'sources', 'sinks', 'indexes', 'create'])

/** Settings SET accepts and ignores (no effect here). */
const IGNORED_SETS = new Set(['transaction', 'session characteristics', 'role', 'session authorization'])

const unsupported = (message: string): RivuletError => new RivuletError('0A000', message)

/** What to do with `p`; throws RivuletError for a form the server does not support. */
export function sessionAction(p: ParsedStatement, sql: string): SessionAction {
  const s = p.statement
  const slice = (span: { start: number; end: number }): string => sql.slice(span.start, span.end)
  switch (s.kind) {
    case 'transaction':
      return { kind: s.action }
    case 'set':
      if (IGNORED_SETS.has(s.name)) return { kind: 'setIgnored' }
      // the durable log's level is the engine's, for every session
      if (s.name.toLowerCase() === 'durability') return { kind: 'engine', text: p.text, at: p.offset, read: false }
      return { kind: 'set', name: s.name.toLowerCase(), value: s.value }
    case 'show': {
      const what = s.what
      if (ENGINE_SHOWS.has(what[0] ?? '') || s.target !== undefined) return { kind: 'engine', text: p.text, at: p.offset, read: true }
      const joined = what.join(' ')
      const name = joined === 'time zone' ? 'timezone' : joined.startsWith('transaction isolation') ? 'transaction_isolation' : joined === 'session authorization' ? 'session_authorization' : what.join('.')
      return { kind: 'show', name }
    }
    case 'session': {
      const c = s.command
      switch (c.type) {
        case 'declare':
          return { kind: 'declare', name: c.name, query: slice(c.subscribe?.span ?? c.query!.span), at: (c.subscribe?.span ?? c.query!.span).start, subscribe: c.subscribe !== undefined }
        case 'fetch':
          return { kind: 'fetch', name: c.name, count: c.count ?? Infinity, timeoutMs: fetchTimeout(c.options) }
        case 'close':
          return { kind: 'close', name: c.name }
        case 'reset':
          return { kind: 'reset', name: c.name }
        case 'deallocate':
          return { kind: 'deallocate', name: c.name }
        case 'discard':
          return { kind: 'discard' }
        case 'unlisten':
          return { kind: 'unlisten' }
      }
      break
    }
    case 'subscribe':
      return { kind: 'subscribe', query: p.text, at: p.offset }
    case 'copy':
      return copyAction(s, p, slice)
    case 'select':
      return { kind: 'engine', text: p.text, at: p.offset, read: true }
    case 'explain':
      return { kind: 'engine', text: p.text, at: p.offset, read: true }
  }
  return { kind: 'engine', text: p.text, at: p.offset, read: false }
}

function copyAction(s: Extract<Statement, { kind: 'copy' }>, p: ParsedStatement, slice: (span: { start: number; end: number }) => string): SessionAction {
  // a file COPY is the engine's: it refuses it unless the server allows server files
  if (s.file !== undefined) return { kind: 'engine', text: p.text, at: p.offset, read: false }
  const format = copyFormat(s.options, s.direction)
  // the table as relations() names it: `schema.name` outside public
  const parts = s.table?.parts.slice(-2).filter((x, i, all) => !(i === 0 && all.length === 2 && x === 'public')) ?? []
  if (s.direction === 'from') return { kind: 'copyIn', text: p.text, at: p.offset, table: parts.join('.'), columns: s.columns?.length, format }
  if (s.subscribe !== undefined) return { kind: 'copyOut', query: slice(s.subscribe.span), at: s.subscribe.span.start, subscribe: true, format }
  if (s.query !== undefined) return { kind: 'copyOut', query: slice(s.query.span), at: s.query.span.start, subscribe: false, format }
  const table = s.table!.parts.map(quoteIdent).join('.')
  const columns = s.columns === undefined ? '*' : s.columns.map(quoteIdent).join(', ')
  return { kind: 'copyOut', query: `SELECT ${columns} FROM ${table}`, at: undefined, subscribe: false, format }
}

/** The layout options of COPY … STDIN / STDOUT (FROM STDIN hands the rest, e.g.
 *  max_rejected, to the engine with the statement). */
function copyFormat(options: readonly CopyOption[], direction: 'from' | 'to'): CopyLayout {
  const layout = readCopyLayout(options, (name) => (direction === 'to' ? `COPY option "${name}" is not supported with TO STDOUT (format, header)` : undefined))
  if (typeof layout === 'string') throw unsupported(layout)
  return layout
}

/** FETCH … WITH (timeout = '1s'): how long to wait for a subscription's changes. */
function fetchTimeout(options: readonly WithOption[]): number | undefined {
  let timeoutMs: number | undefined
  for (const o of options) {
    if (o.name !== 'timeout') throw new RivuletError('22023', `unrecognized FETCH option "${o.name}" (known: TIMEOUT)`)
    const v = o.value?.kind === 'literal' ? o.value.value : undefined
    const text = v === undefined ? undefined : v.type === 'string' ? v.value : v.type === 'integer' || v.type === 'decimal' ? v.text : undefined
    if (text === undefined) throw new RivuletError('22023', 'FETCH option TIMEOUT needs a value (an interval such as \'1s\')')
    timeoutMs = parseTimeout(String(text))
  }
  return timeoutMs
}

/** A timeout given as an interval ('1s', '100ms', '1 second') or a number of seconds. */
export function parseTimeout(text: string): number {
  const t = text.trim()
  const short = /^(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)?$/i.exec(t)
  if (short) {
    const n = Number(short[1])
    const unit = (short[2] ?? 's').toLowerCase()
    return Math.round(n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' || unit === 'min' ? 60_000 : 3_600_000))
  }
  try {
    const ms = parseInterval(t).totalMicros() / 1000
    if (ms >= 0) return Math.round(ms)
  } catch {
    // reported below
  }
  throw new RivuletError('22023', `invalid value for FETCH option TIMEOUT: "${text}"`)
}

/** A duration setting (statement_timeout, idle_in_transaction_session_timeout): a number of
 *  milliseconds, or a number with a unit (us, ms, s, min, h, d), as Postgres reads them. */
export function parseMilliseconds(text: string, name: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d)?\s*$/i.exec(text)
  if (!m) throw new RivuletError('22023', `invalid value for parameter "${name}": "${text}"`, undefined, 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".')
  const unit = (m[2] ?? 'ms').toLowerCase()
  const factor = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!
  const ms = Math.round(Number(m[1]) * factor)
  if (ms > 2 ** 31 - 1) throw new RivuletError('22023', `${text} is outside the valid range for parameter "${name}" (0 .. 2147483647)`)
  return ms
}

/** A name as a quoted identifier (the parser has folded it already; quoting keeps it as is). */
export function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`
}
