// The statements the server handles itself, around the engine: transaction control (sessions
// share one engine, see gate.ts), SET / RESET / SHOW of session settings, cursors (DECLARE,
// FETCH, CLOSE), COPY … TO STDOUT and SUBSCRIBE, DEALLOCATE / DISCARD. Each is recognized by
// its leading keywords and parsed into a small command; everything else goes to the engine.

import { RivuletError } from '../../grammar/index.js'
import { parseInterval } from '../values.js'
import { closingParen, significant, stringValue, type Token } from './sql-text.js'

export type ServerCommand =
  | { readonly kind: 'begin' }
  | { readonly kind: 'commit' }
  | { readonly kind: 'rollback' }
  | { readonly kind: 'set'; readonly name: string; readonly value: string | undefined }
  | { readonly kind: 'setIgnored' }
  | { readonly kind: 'reset'; readonly name: string | undefined }
  | { readonly kind: 'show'; readonly name: string }
  | { readonly kind: 'declare'; readonly name: string; readonly query: string; readonly subscribe: boolean }
  | { readonly kind: 'fetch'; readonly name: string; readonly count: number; readonly timeoutMs: number | undefined }
  | { readonly kind: 'close'; readonly name: string | undefined }
  | { readonly kind: 'copyOut'; readonly query: string; readonly subscribe: boolean; readonly csv: boolean; readonly header: boolean }
  | { readonly kind: 'subscribe'; readonly query: string }
  | { readonly kind: 'deallocate'; readonly name: string | undefined }
  | { readonly kind: 'discard' }
  | { readonly kind: 'unlisten' }
  /** `COPY t FROM 'file'`: the engine runs it, but it reads the server's files. */
  | { readonly kind: 'copyFromFile' }

/** Whether a statement only reads (runs outside the engine's transaction). */
export function isReadOnly(words: readonly string[]): boolean {
  return ['select', 'values', 'with', 'table', 'show', 'explain'].includes(words[0] ?? '')
}

/** Whether a statement returns rows (its RowDescription comes from running it). */
export function returnsRows(words: readonly string[]): boolean {
  return isReadOnly(words)
}

const syntax = (message: string, t?: Token): RivuletError => new RivuletError('42601', message, t === undefined ? undefined : { line: 0, column: 0, offset: t.start })
const unsupported = (message: string): RivuletError => new RivuletError('0A000', message)

/** Recognizes a server-handled statement; undefined hands it to the engine. Throws
 *  RivuletError for a malformed or unsupported one. */
export function parseServerCommand(sql: string): ServerCommand | undefined {
  const tokens = significant(sql)
  while (tokens.length > 0 && tokens[tokens.length - 1]!.kind === 'punct' && tokens[tokens.length - 1]!.value === ';') tokens.pop()
  const w = (i: number): string | undefined => (tokens[i]?.kind === 'word' ? tokens[i]!.value : undefined)
  const first = w(0)
  switch (first) {
    case 'begin':
      return { kind: 'begin' }
    case 'start':
      if (w(1) === 'transaction') return { kind: 'begin' }
      return undefined
    case 'commit':
    case 'end':
      if (w(1) === 'prepared') throw unsupported('two-phase commit is not supported')
      return { kind: 'commit' }
    case 'abort':
      return { kind: 'rollback' }
    case 'rollback':
      if (tokens.some((t) => t.kind === 'word' && (t.value === 'to' || t.value === 'prepared'))) throw unsupported('savepoints are not supported')
      return { kind: 'rollback' }
    case 'savepoint':
    case 'release':
      throw unsupported('savepoints are not supported')
    case 'set':
      return parseSet(sql, tokens)
    case 'reset':
      return { kind: 'reset', name: w(1) === 'all' ? undefined : settingName(tokens.slice(1), sql) }
    case 'show':
      return parseShow(sql, tokens)
    case 'declare':
      return parseDeclare(sql, tokens)
    case 'fetch':
      return parseFetch(sql, tokens)
    case 'close':
      if (tokens.length !== 2) throw syntax('syntax error in CLOSE: expected CLOSE name | ALL', tokens[2])
      return { kind: 'close', name: w(1) === 'all' ? undefined : tokens[1]!.value }
    case 'copy':
      return parseCopy(sql, tokens)
    case 'subscribe':
      return { kind: 'subscribe', query: sql }
    case 'deallocate': {
      const rest = w(1) === 'prepare' ? tokens.slice(2) : tokens.slice(1)
      if (rest.length !== 1) throw syntax('syntax error in DEALLOCATE', rest[1])
      return { kind: 'deallocate', name: rest[0]!.kind === 'word' && rest[0]!.value === 'all' ? undefined : rest[0]!.value }
    }
    case 'discard':
      if (w(1) !== 'all') throw unsupported('only DISCARD ALL is supported')
      return { kind: 'discard' }
    case 'unlisten':
      return { kind: 'unlisten' }
    case 'listen':
    case 'notify':
      throw unsupported(`${first.toUpperCase()} is not supported`)
    case 'prepare':
    case 'execute':
      throw unsupported(`SQL-level ${first.toUpperCase()} is not supported; use the extended query protocol (Parse/Bind/Execute)`)
    default:
      return undefined
  }
}

/** A setting's name from `name` or `a.b` tokens. */
function settingName(tokens: readonly Token[], sql: string): string {
  if (tokens.length === 0) throw syntax('expected a setting name')
  let end = 1
  while (tokens[end]?.value === '.' && tokens[end + 1]) end += 2
  return sql.slice(tokens[0]!.start, tokens[end - 1]!.end).replace(/"/g, '').toLowerCase()
}

function parseSet(sql: string, tokens: Token[]): ServerCommand {
  let i = 1
  const w = (k: number): string | undefined => (tokens[k]?.kind === 'word' ? tokens[k]!.value : undefined)
  if (w(i) === 'session' && w(i + 1) === 'characteristics') return { kind: 'setIgnored' }
  if (w(i) === 'transaction') return { kind: 'setIgnored' }
  if (w(i) === 'session' || w(i) === 'local') i++
  if (w(i) === 'time' && w(i + 1) === 'zone') return { kind: 'set', name: 'timezone', value: valueText(sql, tokens.slice(i + 2)) }
  if (w(i) === 'names') return { kind: 'set', name: 'client_encoding', value: valueText(sql, tokens.slice(i + 1)) }
  if (w(i) === 'session' && w(i + 1) === 'authorization') return { kind: 'setIgnored' }
  if (w(i) === 'role') return { kind: 'setIgnored' }
  let end = i + 1
  while (tokens[end]?.value === '.' && tokens[end + 1]) end += 2
  const name = settingName(tokens.slice(i, end), sql)
  const sep = tokens[end]
  if (!sep || !(sep.value === '=' || (sep.kind === 'word' && sep.value === 'to'))) throw syntax(`syntax error at or near "${sep ? sql.slice(sep.start, sep.end) : 'end of input'}"`, sep)
  const rest = tokens.slice(end + 1)
  if (rest.length === 1 && rest[0]!.kind === 'word' && rest[0]!.value === 'default') return { kind: 'set', name, value: undefined }
  return { kind: 'set', name, value: valueText(sql, rest) }
}

/** A setting's value: string literals unquoted, other tokens as written, items joined by
 *  ', ' (as Postgres shows a list). */
function valueText(sql: string, tokens: readonly Token[]): string {
  if (tokens.length === 0) throw syntax('expected a value')
  const items: string[] = []
  let cur = ''
  for (const t of tokens) {
    if (t.kind === 'punct' && t.value === ',') {
      items.push(cur)
      cur = ''
      continue
    }
    cur += t.kind === 'string' ? (stringValue(t, sql) ?? '') : t.kind === 'ident' ? t.value : sql.slice(t.start, t.end)
  }
  items.push(cur)
  return items.join(', ')
}

/** SHOW TABLES / VIEWS / COLUMNS … are the engine's; SHOW <setting> is the session's. */
function parseShow(sql: string, tokens: Token[]): ServerCommand | undefined {
  const words = tokens.slice(1).map((t) => t.value)
  const engineShows = ['tables', 'views', 'streams', 'materialized', 'columns', 'sources', 'sinks', 'indexes']
  if (words.length === 0) throw syntax('syntax error at end of input')
  if (engineShows.includes(words[0]!)) return undefined
  if (words[0] === 'time' && words[1] === 'zone') return { kind: 'show', name: 'timezone' }
  if (words[0] === 'transaction' && words[1] === 'isolation') return { kind: 'show', name: 'transaction_isolation' }
  if (words[0] === 'session' && words[1] === 'authorization') return { kind: 'show', name: 'session_authorization' }
  return { kind: 'show', name: settingName(tokens.slice(1), sql) }
}

function parseDeclare(sql: string, tokens: Token[]): ServerCommand {
  const name = tokens[1]
  if (!name || (name.kind !== 'word' && name.kind !== 'ident')) throw syntax('syntax error in DECLARE: expected a cursor name', name)
  let i = 2
  while (tokens[i] && tokens[i]!.kind === 'word' && tokens[i]!.value !== 'cursor') {
    const v = tokens[i]!.value
    if (v === 'no' && tokens[i + 1]?.value === 'scroll') {
      i += 2
      continue
    }
    if (v === 'binary') throw unsupported('binary cursors are not supported')
    if (v === 'scroll') throw unsupported('scrollable cursors are not supported')
    if (!['insensitive', 'asensitive'].includes(v)) throw syntax(`syntax error at or near "${sql.slice(tokens[i]!.start, tokens[i]!.end)}"`, tokens[i])
    i++
  }
  if (tokens[i]?.value !== 'cursor') throw syntax('syntax error in DECLARE: expected CURSOR', tokens[i])
  i++
  if (tokens[i]?.value === 'with' && tokens[i + 1]?.value === 'hold') throw unsupported('WITH HOLD cursors are not supported')
  if (tokens[i]?.value === 'without' && tokens[i + 1]?.value === 'hold') i += 2
  if (tokens[i]?.value !== 'for' || !tokens[i + 1]) throw syntax('syntax error in DECLARE: expected FOR query', tokens[i])
  const body = tokens[i + 1]!
  const query = sql.slice(body.start, tokens[tokens.length - 1]!.end)
  return { kind: 'declare', name: name.value, query, subscribe: body.kind === 'word' && body.value === 'subscribe' }
}

/** FETCH [FORWARD | NEXT] [n | ALL | FORWARD n | FORWARD ALL] [FROM | IN] name [WITH (timeout = '1s')] */
function parseFetch(sql: string, tokens: Token[]): ServerCommand {
  let i = 1
  let count = 1
  const at = (k: number): Token | undefined => tokens[k]
  if (at(i)?.value === 'forward' || at(i)?.value === 'next') {
    i++
  } else if (at(i)?.value === 'backward' || at(i)?.value === 'prior' || at(i)?.value === 'absolute' || at(i)?.value === 'relative' || at(i)?.value === 'first' || at(i)?.value === 'last') {
    throw unsupported('cursors can only fetch forward')
  }
  const c = at(i)
  if (c?.kind === 'number') {
    count = Number(c.value)
    if (!Number.isInteger(count) || count < 0) throw syntax('FETCH count must be a non-negative integer', c)
    i++
  } else if (c?.kind === 'word' && c.value === 'all') {
    count = Infinity
    i++
  }
  if (at(i)?.value === 'from' || at(i)?.value === 'in') i++
  const name = at(i)
  if (!name || (name.kind !== 'word' && name.kind !== 'ident')) throw syntax('syntax error in FETCH: expected a cursor name', name)
  i++
  let timeoutMs: number | undefined
  if (at(i)?.value === 'with') {
    const open = i + 1
    if (at(open)?.value !== '(') throw syntax('syntax error in FETCH: expected WITH (option = value)', at(open))
    const close = closingParen(tokens, open)
    if (close < 0) throw syntax('syntax error in FETCH: unbalanced parentheses', at(open))
    const opt = tokens.slice(open + 1, close)
    if (opt[0]?.value !== 'timeout') throw new RivuletError('22023', `unrecognized FETCH option "${opt[0] ? sql.slice(opt[0].start, opt[0].end) : ''}" (known: TIMEOUT)`)
    const valueTok = opt[1]?.value === '=' ? opt[2] : opt[1]
    if (!valueTok) throw syntax('FETCH option TIMEOUT needs a value')
    timeoutMs = parseTimeout(valueTok.kind === 'string' ? (stringValue(valueTok, sql) ?? '') : valueTok.value)
    i = close + 1
  }
  if (i < tokens.length) throw syntax(`syntax error at or near "${sql.slice(tokens[i]!.start, tokens[i]!.end)}"`, tokens[i])
  return { kind: 'fetch', name: name.value, count, timeoutMs }
}

/** A FETCH timeout: an interval ('1s', '100ms', '1 second') or a number of seconds. */
export function parseTimeout(text: string): number {
  const t = text.trim()
  const short = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(t)
  if (short) {
    const n = Number(short[1])
    const unit = (short[2] ?? 's').toLowerCase()
    return Math.round(n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000))
  }
  try {
    const iv = parseInterval(t)
    const ms = iv.totalMicros() / 1000
    if (ms >= 0) return Math.round(ms)
  } catch {
    // reported below
  }
  throw new RivuletError('22023', `invalid value for FETCH option TIMEOUT: "${text}"`)
}

/** COPY (query) TO STDOUT [WITH (FORMAT text | csv, HEADER)] and COPY table [(cols)] TO STDOUT. */
function parseCopy(sql: string, tokens: Token[]): ServerCommand | undefined {
  let query: string
  let subscribe = false
  let i: number
  if (tokens[1]?.value === '(') {
    const close = closingParen(tokens, 1)
    if (close < 0) throw syntax('syntax error in COPY: unbalanced parentheses', tokens[1])
    const inner = tokens[2]
    if (!inner) throw syntax('syntax error in COPY: expected a query', tokens[1])
    query = sql.slice(inner.start, tokens[close - 1]!.end)
    subscribe = inner.kind === 'word' && inner.value === 'subscribe'
    i = close + 1
  } else {
    const name = tokens[1]
    if (!name || (name.kind !== 'word' && name.kind !== 'ident')) throw syntax('syntax error in COPY: expected a table or (query)', name)
    i = 2
    while (tokens[i]?.value === '.' && tokens[i + 1]) i += 2
    const table = sql.slice(name.start, tokens[i - 1]!.end)
    let columns = '*'
    if (tokens[i]?.value === '(') {
      const close = closingParen(tokens, i)
      if (close < 0) throw syntax('syntax error in COPY: unbalanced parentheses', tokens[i])
      columns = sql.slice(tokens[i + 1]!.start, tokens[close - 1]!.end)
      i = close + 1
    }
    if (tokens[i]?.value === 'from') {
      if (tokens[i + 1]?.value === 'stdin') throw unsupported('COPY FROM STDIN is not supported; use INSERT (or COPY FROM a file)')
      return { kind: 'copyFromFile' } // the engine's, when the server allows it
    }
    query = `SELECT ${columns} FROM ${table}`
  }
  if (tokens[i]?.value !== 'to') throw syntax(`syntax error in COPY: expected TO STDOUT`, tokens[i])
  if (tokens[i + 1]?.value !== 'stdout') throw unsupported('COPY TO a file is not supported; use COPY … TO STDOUT')
  i += 2
  let csv = false
  let header = false
  // options: WITH (FORMAT csv, HEADER [true]) or the old forms CSV / HEADER / WITH CSV HEADER
  const rest = tokens.slice(i).filter((t) => !(t.kind === 'punct' && (t.value === '(' || t.value === ')' || t.value === ',')))
  for (let k = 0; k < rest.length; k++) {
    const v = rest[k]!.kind === 'string' ? (stringValue(rest[k]!, sql) ?? '').toLowerCase() : rest[k]!.value
    if (v === 'with') continue
    if (v === 'format') {
      const f = rest[k + 1]
      const fv = f ? (f.kind === 'string' ? (stringValue(f, sql) ?? '') : f.value).toLowerCase() : ''
      if (fv === 'csv') csv = true
      else if (fv !== 'text') throw unsupported(`COPY format "${fv}" is not supported (text, csv)`)
      k++
    } else if (v === 'csv') csv = true
    else if (v === 'text') continue
    else if (v === 'header') {
      header = true
      const b = rest[k + 1]?.value
      if (b === 'true' || b === 'on' || b === '1') k++
      else if (b === 'false' || b === 'off' || b === '0') {
        header = false
        k++
      }
    } else if (v === 'binary') throw unsupported('COPY format "binary" is not supported (text, csv)')
    else throw unsupported(`COPY option "${v}" is not supported`)
  }
  return { kind: 'copyOut', query, subscribe, csv, header }
}
