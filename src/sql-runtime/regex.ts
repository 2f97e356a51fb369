// PostgreSQL regular expressions (the ARE flavour of `~`, substring(s FROM pattern),
// regexp_replace, regexp_like, regexp_count, regexp_substr, regexp_instr) on top of JS RegExp.
//
// A pattern is translated once into JS RegExp source (regex-translate.ts) and cached by
// (pattern, compile flags); calls whose pattern is a constant get the compiled regex as a
// constant argument instead (src/sql-runtime/compile-scalar.ts, REGEX_CALLS), so the per-row path is a
// `lastIndex` reset and one `test`/`exec`, with no allocation for `~`.
//
// The translation itself, and what of PostgreSQL's syntax it covers: regex-translate.ts.
//
// Known deviations: matching is JS's backtracking (Perl-like) search, not PG's
// longest/shortest-match engine: an alternation takes the first alternative that matches
// (`substring('ab' FROM 'a|ab')` is 'a', PG says 'ab'), and a non-greedy quantifier is
// non-greedy locally rather than making the whole RE prefer the shortest match. The `b`
// (basic RE) flag is not supported; `e` is treated as ARE. Character classes use Unicode
// properties (PG depends on the database locale).

import { RivuletError } from '../../grammar/errors.js'
import { guardedExec, matchPlan, regexFor, type MatchPlan } from './regex-guard.js'
import { checkTextLength } from './text-limit.js'
import { sqlError } from './sql-errors.js'
import { CFLAGS, EXPANDED, ICASE, invalid, isDigit, NLANCH, NLSTOP, QUOTE, translate } from './regex-translate.js'

/** Not a compile flag: the `g` option of a flags argument. */
const GLOB = 32

const flagCache = new Map<string, number>()

/** PG parse_re_flags: a flags argument → compile flags plus GLOB. Cached (no allocation per
 *  row); an unknown letter is 22023 'invalid regular expression option: "z"'. */
function flagBits(flags: string): number {
  const cached = flagCache.get(flags)
  if (cached !== undefined) return cached
  let f = 0
  for (const ch of flags) {
    switch (ch) {
      case 'g':
        f |= GLOB
        break
      case 'b':
        throw sqlError('0A000', 'basic regular expressions (option "b") are not supported')
      case 'c':
        f &= ~ICASE
        break
      case 'e': // plain EREs: treated as AREs
        break
      case 'i':
        f |= ICASE
        break
      case 'm':
      case 'n':
        f |= NLSTOP | NLANCH
        break
      case 'p':
        f = (f | NLSTOP) & ~NLANCH
        break
      case 'q':
        f |= QUOTE
        break
      case 's':
        f &= ~(NLSTOP | NLANCH)
        break
      case 't':
        f &= ~EXPANDED
        break
      case 'w':
        f = (f & ~NLSTOP) | NLANCH
        break
      case 'x':
        f |= EXPANDED
        break
      default:
        throw sqlError('22023', `invalid regular expression option: "${ch}"`)
    }
  }
  if (flagCache.size >= 1000) flagCache.clear()
  flagCache.set(flags, f)
  return f
}

function noGlobal(f: number, fname: string): void {
  if (f & GLOB) throw sqlError('22023', `${fname}() does not support the "global" option`)
}

// ---------------------------------------------------------------------------------- compile

/** A compiled pattern. `re` has the flags `gsu` (+ `i`): callers set `lastIndex` first. */
export interface PgRegex {
  readonly re: RegExp
  /** Number of capturing groups (PG re_nsub). */
  readonly nsub: number
  /** Same source with the `d` flag (group positions), made on first use by regexp_instr. */
  indices: RegExp | undefined
  /** How matches are bounded in time (regex-guard.ts). */
  readonly plan: MatchPlan
}

/** `re` (the pattern's RegExp or its `d` variant) executed on `s` from UTF-16 index `from`,
 *  on the linear engine or under the time budget when the pattern could backtrack. */
function execAt(r: PgRegex, re: RegExp, s: string, from: number): RegExpExecArray | null {
  const run = re === r.re ? regexFor(re, r.plan, s) : r.plan.guarded ? undefined : re
  if (run === undefined) return guardedExec(re, s, from)
  run.lastIndex = from
  return run.exec(s)
}

const caches: (Map<string, PgRegex> | undefined)[] = []

/** The compiled form of `pattern` under compile flags `cflags`, from the cache when seen
 *  before. Invalid patterns raise 2201B. */
export function compileRegex(pattern: string, cflags: number): PgRegex {
  let cache = caches[cflags]
  if (cache === undefined) caches[cflags] = cache = new Map()
  let r = cache.get(pattern)
  if (r !== undefined) return r
  // (embedded options such as (?i) may change the case flag)
  const { source, nsub, icase } = translate(pattern, cflags)
  let re: RegExp
  try {
    re = new RegExp(source, icase ? 'gisu' : 'gsu')
  } catch (e) {
    // the translation only emits valid source; anything left is reported, not crashed on
    throw invalid((e as Error).message.replace(/^Invalid regular expression: /, ''))
  }
  r = { re, nsub, indices: undefined, plan: matchPlan(source, icase) }
  if (cache.size >= 1000) cache.clear()
  cache.set(pattern, r)
  return r
}

// ---------------------------------------------------------------------------------- helpers

const SURROGATE = /[\ud800-\udfff]/

/** UTF-16 index of the code point at 0-based code point index `k` (clamped to the end). */
function unitOf(s: string, k: number): number {
  if (k <= 0) return 0
  if (!SURROGATE.test(s)) return Math.min(k, s.length)
  let u = 0
  for (let j = 0; j < k && u < s.length; j++) {
    const c = s.charCodeAt(u)
    u += c >= 0xd800 && c <= 0xdbff && u + 1 < s.length ? 2 : 1
  }
  return u
}

/** 0-based code point index of UTF-16 index `u`. */
function codePointOf(s: string, u: number): number {
  if (!SURROGATE.test(s)) return u
  let k = 0
  for (let j = 0; j < u; j++) {
    const c = s.charCodeAt(j)
    if (c < 0xdc00 || c > 0xdfff) k++
  }
  return k
}

function charLength(s: string): number {
  return codePointOf(s, s.length)
}

/** The UTF-16 index one code point after `u`. */
function nextChar(s: string, u: number): number {
  const c = s.charCodeAt(u)
  return c >= 0xd800 && c <= 0xdbff && u + 1 < s.length ? u + 2 : u + 1
}

function regex(p: string | PgRegex, cflags: number): PgRegex {
  return typeof p === 'string' ? compileRegex(p, cflags) : p
}

function test(r: PgRegex, s: string): boolean {
  return execAt(r, r.re, s, 0) !== null
}

function checkPositive(name: string, v: number, allowZero = false): void {
  if (v < 0 || (v === 0 && !allowZero)) throw sqlError('22023', `invalid value for parameter "${name}": ${v}`)
}

/** All matches from code point `start` (0-based), PG setup_regexp_matches with glob and
 *  no degenerate-match skipping; stops after `limit` matches. */
function matches(r: PgRegex, s: string, start: number, limit: number, withIndices: boolean): RegExpExecArray[] {
  const found: RegExpExecArray[] = []
  if (start > charLength(s)) return found
  let re = r.re
  if (withIndices) re = r.indices ??= new RegExp(r.re.source, r.re.flags + 'd')
  let from = unitOf(s, start)
  while (found.length < limit && from <= s.length) {
    const m = execAt(r, re, s, from)
    if (m === null) break
    found.push(m)
    const end = m.index + m[0].length
    from = end === m.index ? nextChar(s, end) : end
  }
  return found
}

// ---------------------------------------------------------------------------------- functions

/** text ~ pattern (textregexeq) and friends; `p` is a pattern or a compiled constant. */
export function regexMatch(s: string, p: string | PgRegex): boolean {
  return test(regex(p, 0), s)
}
export function regexIMatch(s: string, p: string | PgRegex): boolean {
  return test(regex(p, ICASE), s)
}

/** substring(s FROM pattern): the first parenthesized subexpression's match if the pattern
 *  has one (NULL when it did not take part), else the whole match; NULL without a match. */
export function substringRegex(s: string, p: string | PgRegex): string | null {
  const r = regex(p, 0)
  const m = execAt(r, r.re, s, 0)
  if (m === null) return null
  return r.nsub > 0 ? (m[1] ?? null) : m[0]
}

/** regexp_replace(source, pattern, replacement [, flags]). */
export function regexpReplace(s: string, p: string | PgRegex, repl: string, flags?: string): string {
  let f = 0
  if (flags !== undefined) {
    const c = flags.charCodeAt(0)
    if (c >= 48 && c <= 57) throw sqlError('22023', `invalid regular expression option: "${String.fromCodePoint(flags.codePointAt(0)!)}"`)
    f = flagBits(flags)
  }
  return replace(s, regex(p, f & CFLAGS), repl, 0, f & GLOB ? 0 : 1)
}

/** regexp_replace(source, pattern, replacement, start [, N [, flags]]) (PG 15). */
export function regexpReplaceAt(s: string, p: string | PgRegex, repl: string, start: number, n?: number, flags?: string): string {
  checkPositive('start', start)
  if (n !== undefined) checkPositive('n', n, true)
  const f = flags === undefined ? 0 : flagBits(flags)
  return replace(s, regex(p, f & CFLAGS), repl, start - 1, n ?? (f & GLOB ? 0 : 1))
}

/** PG replace_text_regexp: replaces the n'th match (0: all) at or after code point `start`. */
function replace(s: string, r: PgRegex, repl: string, start: number, n: number): string {
  if (start > charLength(s)) return s
  const re = r.re
  const escapes = repl.includes('\\')
  let out = ''
  let pos = 0 // UTF-16 index of the first character not yet copied
  let from = unitOf(s, start)
  let count = 0
  while (from <= s.length) {
    const m = execAt(r, re, s, from)
    if (m === null) break
    const so = m.index
    const eo = so + m[0].length
    count++
    if (n > 0 && count !== n) {
      from = so === eo ? nextChar(s, eo) : eo
      continue
    }
    const piece = escapes ? expandReplacement(repl, m) : repl
    // the result so far, what comes before this match and its replacement: within the text limit
    checkTextLength(out.length, so - pos + piece.length)
    out += s.slice(pos, so)
    out += piece
    pos = eo
    if (n > 0) break
    from = so === eo ? nextChar(s, eo) : eo
  }
  checkTextLength(out.length, s.length - pos)
  return out + s.slice(pos)
}

/** The replacement with \1…\9 (that group's match, empty when it did not take part), \&
 *  (the whole match) and \\ (one backslash); any other backslash is copied. */
function expandReplacement(repl: string, m: RegExpExecArray): string {
  let out = ''
  let p = 0
  for (;;) {
    const k = repl.indexOf('\\', p)
    if (k < 0) return out + repl.slice(p)
    out += repl.slice(p, k)
    p = k + 1
    if (p >= repl.length) return out + '\\'
    const c = repl.charCodeAt(p)
    if (c >= 49 && c <= 57) {
      out += m[c - 48] ?? ''
      p++
    } else if (c === 38) {
      out += m[0]
      p++
    } else if (c === 92) {
      out += '\\'
      p++
    } else {
      out += '\\'
    }
  }
}

/** regexp_like(string, pattern [, flags]). */
export function regexpLike(s: string, p: string | PgRegex, flags?: string): boolean {
  const f = flags === undefined ? 0 : flagBits(flags)
  noGlobal(f, 'regexp_like')
  return test(regex(p, f & CFLAGS), s)
}

/** regexp_count(string, pattern [, start [, flags]]). */
export function regexpCount(s: string, p: string | PgRegex, start = 1, flags?: string): number {
  checkPositive('start', start)
  const f = flags === undefined ? 0 : flagBits(flags)
  noGlobal(f, 'regexp_count')
  const r = regex(p, f & CFLAGS)
  if (start - 1 > charLength(s)) return 0
  const re = r.re
  let from = unitOf(s, start - 1)
  let count = 0
  while (from <= s.length) {
    const m = execAt(r, re, s, from)
    if (m === null) break
    count++
    const end = m.index + m[0].length
    from = end === m.index ? nextChar(s, end) : end
  }
  return count
}

/** regexp_substr(string, pattern [, start [, N [, flags [, subexpr]]]]). */
export function regexpSubstr(s: string, p: string | PgRegex, start = 1, n = 1, flags?: string, subexpr = 0): string | null {
  checkPositive('start', start)
  checkPositive('n', n)
  checkPositive('subexpr', subexpr, true)
  const f = flags === undefined ? 0 : flagBits(flags)
  noGlobal(f, 'regexp_substr')
  const r = regex(p, f & CFLAGS)
  const found = matches(r, s, start - 1, n, false)
  if (n > found.length) return null
  const m = found[n - 1]!
  if (subexpr === 0 || (r.nsub === 0 && subexpr === 1)) return m[0]
  if (subexpr > Math.max(r.nsub, 1)) return null
  return m[subexpr] ?? null
}

/** regexp_instr(string, pattern [, start [, N [, endoption [, flags [, subexpr]]]]]). */
export function regexpInstr(s: string, p: string | PgRegex, start = 1, n = 1, endoption = 0, flags?: string, subexpr = 0): number {
  checkPositive('start', start)
  checkPositive('n', n)
  if (endoption !== 0 && endoption !== 1) throw sqlError('22023', `invalid value for parameter "endoption": ${endoption}`)
  checkPositive('subexpr', subexpr, true)
  const f = flags === undefined ? 0 : flagBits(flags)
  noGlobal(f, 'regexp_instr')
  const r = regex(p, f & CFLAGS)
  const groups = subexpr > 0 && r.nsub > 0
  const found = matches(r, s, start - 1, n, groups)
  if (n > found.length) return 0
  if (subexpr > Math.max(r.nsub, 1)) return 0
  const m = found[n - 1]!
  let so: number
  let eo: number
  if (groups) {
    const span = m.indices![subexpr]
    if (span === undefined) return 0
    ;[so, eo] = span
  } else {
    so = m.index
    eo = so + m[0].length
  }
  return codePointOf(s, endoption === 1 ? eo : so) + 1
}

// ---------------------------------------------------------------------------------- constants

/** Overload ids whose argument 1 is a pattern, with the compile flags they add and where
 *  their flags argument is (by argument count). src/sql-runtime/compile-scalar.ts passes a constant
 *  pattern compiled (prepareRegex) instead of the text. */
export const REGEX_CALLS: Readonly<Record<string, { readonly cflags: number; readonly flagsArg: (nargs: number) => number | undefined }>> = {
  regex_match: { cflags: 0, flagsArg: () => undefined },
  regex_imatch: { cflags: ICASE, flagsArg: () => undefined },
  regex_nmatch: { cflags: 0, flagsArg: () => undefined },
  regex_inmatch: { cflags: ICASE, flagsArg: () => undefined },
  substring_regex: { cflags: 0, flagsArg: () => undefined },
  regexp_replace: { cflags: 0, flagsArg: (k) => (k === 4 ? 3 : undefined) },
  regexp_replace_at: { cflags: 0, flagsArg: (k) => (k === 6 ? 5 : undefined) },
  regexp_like: { cflags: 0, flagsArg: (k) => (k === 3 ? 2 : undefined) },
  regexp_count: { cflags: 0, flagsArg: (k) => (k === 4 ? 3 : undefined) },
  regexp_substr: { cflags: 0, flagsArg: (k) => (k >= 5 ? 4 : undefined) },
  regexp_instr: { cflags: 0, flagsArg: (k) => (k >= 6 ? 5 : undefined) },
}

/** The compiled form of a constant pattern for a call of `fn` with constant flags `flags`
 *  (undefined: none), or undefined when the pattern or flags are invalid: the call then
 *  compiles at run time and raises the error if and when it is evaluated, as PG does. */
export function prepareRegex(fn: string, pattern: string, flags: string | undefined): PgRegex | undefined {
  const call = REGEX_CALLS[fn]
  if (call === undefined) return undefined
  try {
    let f = flags === undefined ? 0 : flagBits(flags)
    if (fn === 'regexp_replace' && flags !== undefined && isDigit(flags.charCodeAt(0))) return undefined
    f &= CFLAGS
    return compileRegex(pattern, f | call.cflags)
  } catch (e) {
    if (e instanceof RivuletError) return undefined
    throw e
  }
}
