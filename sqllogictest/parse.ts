// sqllogictest record parser. Reads the classic SQLite format plus the sqllogictest-rs,
// Materialize and rivulet extensions (see sqllogictest/README.md). Parsing is pure
// (`parseSlt`); `loadSlt` adds file access and expands `include` records.

import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'

export type SortMode = 'nosort' | 'rowsort' | 'valuesort'

export interface Condition {
  readonly kind: 'skipif' | 'onlyif'
  readonly engine: string
}

/** What a failing statement/query must look like. All fields absent = any error passes. */
export interface ErrorMatcher {
  /** Regex (or, when it does not compile or does not match, literal substring) of the message. */
  readonly regex?: string
  /** SQLSTATE, from `error (XXXXX)` or `error pgcode XXXXX`. */
  readonly sqlstate?: string
  /** Exact message, from the multi-line `----` form. */
  readonly exact?: string
}

export type StatementExpect =
  | { readonly kind: 'ok' }
  | { readonly kind: 'count'; readonly count: number }
  | { readonly kind: 'error'; readonly error: ErrorMatcher }

interface RecordBase {
  /** File the record comes from (the included file for included records). */
  readonly file: string
  /** 1-based line of the `statement`/`query`/directive line. */
  readonly line: number
  /** 1-based line where the record starts (first condition line) and ends. */
  readonly startLine: number
  readonly endLine: number
  readonly conditions: readonly Condition[]
}

export interface StatementRecord extends RecordBase {
  readonly kind: 'statement'
  readonly sql: string
  readonly expect: StatementExpect
}

export interface QueryRecord extends RecordBase {
  readonly kind: 'query'
  readonly sql: string
  /** Type letters, one per column ('' for `query error`). */
  readonly types: string
  /** Undefined when the record names none (the file's default applies). */
  readonly sortMode: SortMode | undefined
  readonly label: string | undefined
  /** `colnames`: the first expected line holds the column names. */
  readonly colnames: boolean
  /** `multiline`: expected text runs to a line `EOF`, compared line by line. */
  readonly multiline: boolean
  /** `delta <view>`: rivulet extension, the changes of a view since the last check. */
  readonly delta: string | undefined
  /** Set for `query error ...`. */
  readonly error: ErrorMatcher | undefined
  /** Expected lines after `----`; empty when there is no `----`. */
  readonly expected: readonly string[]
  /** Line number of the first expected line (for messages). */
  readonly expectedLine: number
}

export interface HaltRecord extends RecordBase {
  readonly kind: 'halt'
}

export interface HashThresholdRecord extends RecordBase {
  readonly kind: 'hash-threshold'
  readonly value: number
}

/** `control resultmode|sortmode|substitution ...` */
export interface ControlRecord extends RecordBase {
  readonly kind: 'control'
  readonly args: readonly string[]
}

/** Materialize's `mode standard|cockroach`. */
export interface ModeRecord extends RecordBase {
  readonly kind: 'mode'
  readonly mode: string
}

export interface IncludeRecord extends RecordBase {
  readonly kind: 'include'
  readonly pattern: string
}

/** `sleep <duration>` (`500ms`, `2s`, `1h30m`): the engine's clock moves on by that much
 *  at once (no waiting: everything here is synchronous, so what a sleep can change is
 *  time-driven views). */
export interface SleepRecord extends RecordBase {
  readonly kind: 'sleep'
  readonly ms: number
}

/** Accepted and ignored: subtest, user, kv-batch-size, reset-server, connection (and a
 *  sleep whose duration we cannot read). */
export interface IgnoredRecord extends RecordBase {
  readonly kind: 'ignored'
  readonly directive: string
}

/** Record kinds we cannot run (system, let, simple, copy, ..., unknown directives): counted as skipped. */
export interface UnsupportedRecord extends RecordBase {
  readonly kind: 'unsupported'
  readonly directive: string
}

/** Malformed record or failed include: counted as failed. */
export interface InvalidRecord extends RecordBase {
  readonly kind: 'invalid'
  readonly message: string
}

export type SltRecord =
  | StatementRecord
  | QueryRecord
  | HaltRecord
  | HashThresholdRecord
  | ControlRecord
  | ModeRecord
  | IncludeRecord
  | IgnoredRecord
  | SleepRecord
  | UnsupportedRecord
  | InvalidRecord

const IGNORED = new Set(['sleep', 'subtest', 'user', 'kv-batch-size', 'reset-server', 'connection'])
const UNSUPPORTED = new Set(['system', 'let', 'simple', 'copy', 'load', 'statement-retry'])

function isBlank(line: string): boolean {
  return line.trim() === ''
}

function isComment(line: string): boolean {
  return line.trimStart().startsWith('#')
}

/** `500ms`, `2s`, `1h30m`, `1 day` → milliseconds (undefined when not a duration). */
export function parseDuration(text: string): number | undefined {
  const units: Readonly<Record<string, number>> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000, hour: 3_600_000, hours: 3_600_000, d: 86_400_000, day: 86_400_000, days: 86_400_000 }
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('').replace(/\s+/g, '') !== text.replace(/\s+/g, '')) return undefined
  let ms = 0
  for (const [, n, unit] of parts) {
    const u = units[unit!.toLowerCase()]
    if (u === undefined) return undefined
    ms += Number(n) * u
  }
  return ms
}

/** Drops a trailing `# comment` from a directive line (not used where the rest is a regex). */
function stripTrailingComment(line: string): string {
  const m = /(^|\s)#/.exec(line)
  return (m === null ? line : line.slice(0, m.index)).trim()
}

function words(line: string): string[] {
  const t = line.trim()
  return t === '' ? [] : t.split(/\s+/)
}

/** Parses the text after `error` in `statement error ...` / `query error ...`. */
export function parseErrorMatcher(rest: string): ErrorMatcher {
  const text = rest.trim()
  if (text === '') return {}
  const paren = /^\(([0-9A-Za-z]{5})\)$/.exec(text)
  if (paren !== null) return { sqlstate: paren[1]!.toUpperCase() }
  const pg = /^pgcode\s+([0-9A-Za-z]{5})(?:\s+(.*))?$/.exec(text)
  if (pg !== null) {
    const regex = pg[2]?.trim()
    return regex ? { sqlstate: pg[1]!.toUpperCase(), regex } : { sqlstate: pg[1]!.toUpperCase() }
  }
  return { regex: text }
}

/** Parses one file's text into records. Includes are left as `include` records. */
export function parseSlt(text: string, file = '<input>'): SltRecord[] {
  const lines = text.split('\n')
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k]!
    if (l.endsWith('\r')) lines[k] = l.slice(0, -1)
  }
  const n = lines.length
  const records: SltRecord[] = []
  let i = 0

  /** Collects non-comment lines from i until a blank line, a `----` line (when stopAtDashes) or EOF. */
  const collectUntilBlank = (stopAtDashes: boolean): { body: string[]; dashes: boolean } => {
    const body: string[] = []
    while (i < n) {
      const l = lines[i]!
      if (isBlank(l)) break
      if (stopAtDashes && l.trim() === '----') {
        i++
        return { body, dashes: true }
      }
      if (!isComment(l)) body.push(l)
      i++
    }
    return { body, dashes: false }
  }

  while (i < n) {
    const first = lines[i]!
    if (isBlank(first) || isComment(first)) {
      i++
      continue
    }
    const startLine = i + 1
    const conditions: Condition[] = []
    let line = i + 1
    let head = stripTrailingComment(lines[i]!)
    let w = words(head)
    // Conditions (and `connection` lines, which we ignore) stack in front of the record.
    for (;;) {
      const kw = (w[0] ?? '').toLowerCase()
      if (kw === 'skipif' || kw === 'onlyif') {
        conditions.push({ kind: kw, engine: (w[1] ?? '').toLowerCase() })
      } else if (kw === 'connection' && w.length === 2 && i + 1 < n && !isBlank(lines[i + 1]!)) {
        // `connection name` in front of a statement: single session, ignore the line.
      } else {
        break
      }
      i++
      while (i < n && isComment(lines[i]!)) i++
      if (i >= n || isBlank(lines[i]!)) {
        w = []
        break
      }
      line = i + 1
      head = stripTrailingComment(lines[i]!)
      w = words(head)
    }
    if (w.length === 0) {
      // Dangling conditions: nothing to apply them to.
      continue
    }
    const kw = w[0]!.toLowerCase()
    const base = (endLine: number): RecordBase => ({ file, line, startLine, endLine, conditions })
    const rawHead = lines[i]!.trim()
    i++

    if (kw === 'statement') {
      const what = (w[1] ?? '').toLowerCase()
      let expect: StatementExpect
      let invalid: string | undefined
      if (what === 'ok') expect = { kind: 'ok' }
      else if (what === 'count') {
        const c = Number(w[2])
        if (!Number.isInteger(c)) invalid = `bad statement count: ${rawHead}`
        expect = { kind: 'count', count: c }
      } else if (what === 'error') {
        expect = { kind: 'error', error: parseErrorMatcher(rawHead.replace(/^statement\s+error/i, '')) }
      } else {
        invalid = `unknown statement kind: ${rawHead}`
        expect = { kind: 'ok' }
      }
      const { body, dashes } = collectUntilBlank(true)
      if (dashes) {
        const { body: msg } = collectUntilBlank(false)
        if (expect.kind === 'error') {
          expect = { kind: 'error', error: { ...expect.error, exact: msg.join('\n').trim() } }
          // The sqllogictest-rs form ends with two blank lines: swallow the second one.
          if (i < n && isBlank(lines[i]!)) i++
        }
      }
      if (invalid !== undefined) records.push({ ...base(i), kind: 'invalid', message: invalid })
      else if (body.length === 0) records.push({ ...base(i), kind: 'invalid', message: 'statement without SQL' })
      else records.push({ ...base(i), kind: 'statement', sql: body.join('\n'), expect })
      continue
    }

    if (kw === 'query') {
      let types = ''
      let sortMode: SortMode | undefined
      let label: string | undefined
      let colnames = false
      let multiline = false
      let delta: string | undefined
      let error: ErrorMatcher | undefined
      if ((w[1] ?? '').toLowerCase() === 'error') {
        error = parseErrorMatcher(rawHead.replace(/^query\s+error/i, ''))
      } else {
        types = w[1] ?? ''
        // Options: whitespace- and comma-separated; unknown words become the label.
        const opts = w.slice(2).flatMap((o) => o.split(',')).filter((o) => o !== '')
        for (let k = 0; k < opts.length; k++) {
          const o = opts[k]!
          const lo = o.toLowerCase()
          if (lo === 'nosort' || lo === 'rowsort' || lo === 'valuesort') sortMode = lo
          else if (lo.startsWith('partialsort')) sortMode = 'rowsort'
          else if (lo === 'colnames') colnames = true
          else if (lo === 'multiline') multiline = true
          else if (lo === 'delta') {
            delta = opts[k + 1]
            k++
          } else if (lo === 'retry') {
            // `retry N backoff DUR`: nothing here is timing dependent.
            k += opts[k + 2]?.toLowerCase() === 'backoff' ? 3 : 1
          } else if (lo === 'error') {
            error = parseErrorMatcher(opts.slice(k + 1).join(' '))
            break
          } else if (label === undefined) label = o
        }
      }
      const { body, dashes } = collectUntilBlank(true)
      const expected: string[] = []
      const expectedLine = i + 1
      if (dashes) {
        if (multiline) {
          while (i < n && lines[i]!.trim() !== 'EOF') expected.push(lines[i++]!)
          if (i < n) i++
        } else {
          const { body: exp } = collectUntilBlank(false)
          expected.push(...exp)
        }
        if (error !== undefined) {
          if (i < n && isBlank(lines[i]!)) i++
        }
      }
      if (error !== undefined && dashes) {
        error = { ...error, exact: expected.join('\n').trim() }
      }
      if (delta === undefined && body.length === 0) {
        records.push({ ...base(i), kind: 'invalid', message: 'query without SQL' })
      } else if (delta !== undefined && delta === '') {
        records.push({ ...base(i), kind: 'invalid', message: 'delta without a view name' })
      } else {
        records.push({
          ...base(i),
          kind: 'query',
          sql: body.join('\n'),
          types,
          sortMode,
          label,
          colnames,
          multiline,
          delta: delta?.toLowerCase(),
          error,
          expected: error !== undefined ? [] : expected,
          expectedLine,
        })
      }
      continue
    }

    // One-line directives. Anything else on following lines of the record is ignored.
    const rest = (): void => {
      collectUntilBlank(false)
    }
    if (kw === 'halt') {
      records.push({ ...base(i), kind: 'halt' })
      rest()
    } else if (kw === 'hash-threshold') {
      const v = Number(w[1])
      if (Number.isInteger(v) && v >= 0) records.push({ ...base(i), kind: 'hash-threshold', value: v })
      else records.push({ ...base(i), kind: 'invalid', message: `bad hash-threshold: ${rawHead}` })
      rest()
    } else if (kw === 'control') {
      records.push({ ...base(i), kind: 'control', args: w.slice(1).map((a) => a.toLowerCase()) })
      rest()
    } else if (kw === 'mode') {
      records.push({ ...base(i), kind: 'mode', mode: (w[1] ?? '').toLowerCase() })
      rest()
    } else if (kw === 'include') {
      records.push({ ...base(i), kind: 'include', pattern: head.replace(/^include\s+/i, '').trim() })
      rest()
    } else if (kw === 'sleep' && parseDuration(w.slice(1).join('')) !== undefined) {
      records.push({ ...base(i), kind: 'sleep', ms: parseDuration(w.slice(1).join(''))! })
      rest()
    } else if (IGNORED.has(kw)) {
      records.push({ ...base(i), kind: 'ignored', directive: kw })
      rest()
    } else {
      rest()
      // Known ones we cannot run (system, let, ...) and unknown directives: counted as skipped
      // (reason "unsupported", so they show in the summary).
      records.push({ ...base(i), kind: 'unsupported', directive: UNSUPPORTED.has(kw) ? kw : rawHead })
    }
  }
  return records
}

function globToRegExp(segment: string): RegExp {
  let re = ''
  for (const ch of segment) {
    if (ch === '*') re += '[^/]*'
    else if (ch === '?') re += '[^/]'
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

function hasMagic(s: string): boolean {
  return /[*?]/.test(s)
}

/** Expands a glob (`*`, `?`, `**`) relative to `base`; returns sorted absolute paths of files. */
export function expandGlob(pattern: string, base: string): string[] {
  const abs = resolve(base, pattern)
  if (!hasMagic(pattern)) {
    try {
      return statSync(abs).isFile() ? [abs] : []
    } catch {
      return []
    }
  }
  const root = abs.startsWith(sep) ? sep : ''
  const parts = abs.split(sep).filter((p) => p !== '')
  const out: string[] = []
  const walk = (dir: string, k: number): void => {
    if (k === parts.length) {
      try {
        if (statSync(dir).isFile()) out.push(dir)
      } catch {
        /* vanished */
      }
      return
    }
    const part = parts[k]!
    if (part === '**') {
      walk(dir, k + 1)
      for (const e of safeReaddir(dir)) {
        const p = join(dir, e)
        if (isDir(p)) walk(p, k)
      }
      return
    }
    if (!hasMagic(part)) {
      walk(join(dir, part), k + 1)
      return
    }
    const re = globToRegExp(part)
    for (const e of safeReaddir(dir)) if (re.test(e)) walk(join(dir, e), k + 1)
  }
  walk(root, 0)
  return [...new Set(out)].sort()
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort()
  } catch {
    return []
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

const MAX_INCLUDE_DEPTH = 16

/** Reads a file and expands its `include` records (recursively) into one flat record list. */
export function loadSlt(path: string, depth = 0): SltRecord[] {
  const text = readFileSync(path, 'utf8')
  const records = parseSlt(text, path)
  if (!records.some((r) => r.kind === 'include')) return records
  const out: SltRecord[] = []
  for (const r of records) {
    if (r.kind !== 'include') {
      out.push(r)
      continue
    }
    if (depth >= MAX_INCLUDE_DEPTH) {
      out.push({ ...r, kind: 'invalid', message: `include nested too deeply: ${r.pattern}` })
      continue
    }
    const files = expandGlob(r.pattern, dirname(path))
    if (files.length === 0) {
      out.push({ ...r, kind: 'invalid', message: `include matches no file: ${r.pattern}` })
      continue
    }
    for (const f of files) {
      try {
        out.push(...loadSlt(f, depth + 1))
      } catch (e) {
        out.push({ ...r, kind: 'invalid', message: `cannot include ${f}: ${(e as Error).message}` })
      }
    }
  }
  return out
}
