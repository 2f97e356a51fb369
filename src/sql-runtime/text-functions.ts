// The string functions and operators of the function library: LIKE/ILIKE, the regular
// expression functions (implemented in regex.ts), substring, position, trim, pad, split_part,
// replace, repeat, concat, initcap, translate, chr/ascii, md5, format_type, pg_size_pretty.
// Lengths and positions count code points, as PostgreSQL's do in UTF-8; results stay within
// the text size limit (text-limit.ts). One family of FUNCTIONS (functions.ts).
//
// Known deviation: lower/upper/initcap/ILIKE use full Unicode case mapping (PG depends on the
// database locale; under "C" it maps only ASCII).

import { createHash } from 'node:crypto'
import { type Int8 } from './int8.js'
import { regexIMatch, regexMatch, regexpCount, regexpInstr, regexpLike, regexpReplace, regexpReplaceAt, regexpSubstr, substringRegex, type PgRegex } from './regex.js'
import { compileLike, likeMatch } from './like.js'
import { MAX_TEXT_LENGTH, checkTextLength, requestedLengthTooLarge } from './text-limit.js'
import { formatType } from './type-oids.js'
import { sqlError } from './sql-errors.js'
type Fn = (...args: never[]) => unknown

/** pg_size_pretty(bigint) as PostgreSQL 15 prints it: bytes below 10 kB, then kB, MB, GB, TB
 *  and PB, each below 20 × 1024 − 1 of itself, rounded half away from zero. */
function sizePretty(n: Int8): string {
  const units = [
    { name: 'bytes', limit: 10n * 1024n, round: false, bits: 0 },
    { name: 'kB', limit: 20n * 1024n - 1n, round: true, bits: 10 },
    { name: 'MB', limit: 20n * 1024n - 1n, round: true, bits: 20 },
    { name: 'GB', limit: 20n * 1024n - 1n, round: true, bits: 30 },
    { name: 'TB', limit: 20n * 1024n - 1n, round: true, bits: 40 },
    { name: 'PB', limit: 20n * 1024n - 1n, round: true, bits: 50 },
  ]
  let size = BigInt(n)
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!
    const next = units[i + 1]
    const abs = size < 0n ? -size : size
    if (next === undefined || abs < u.limit) {
      if (u.round) size = (size + (size < 0n ? -1n : 1n)) / 2n
      return `${size} ${u.name}`
    }
    const shift = next.bits - u.bits - (next.round ? 1 : 0) + (u.round ? 1 : 0)
    size /= 1n << BigInt(shift)
  }
  return `${size} PB`
}

// ---------------------------------------------------------------------------------- LIKE

function likeTest(s: string, p: string, esc: string, ci: boolean): boolean {
  return likeMatch(s, compileLike(p, esc, ci))
}

function like(s: string, p: string, esc = '\\'): boolean {
  return likeTest(s, p, esc, false)
}
function ilike(s: string, p: string, esc = '\\'): boolean {
  return likeTest(s, p, esc, true)
}

// ---------------------------------------------------------------------------------- strings

const SURROGATE = /[\ud800-\udfff]/

function chars(s: string): string[] {
  return [...s]
}
function charLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xdc00 || c > 0xdfff) n++
  }
  return n
}
/** Code-point slice [start, end) (0-based, clamped). */
function cpSlice(s: string, start: number, end?: number): string {
  if (!SURROGATE.test(s)) return s.slice(Math.max(0, start), end === undefined ? undefined : Math.max(0, end))
  const cs = chars(s)
  return cs.slice(Math.max(0, start), end === undefined ? undefined : Math.max(0, end)).join('')
}

function substring(s: string, start: number, len?: number): string {
  if (len === undefined) return cpSlice(s, Math.max(start, 1) - 1)
  if (len < 0) throw sqlError('22011', 'negative substring length not allowed')
  const end = start + len // exclusive, 1-based
  if (end <= 1) return ''
  return cpSlice(s, Math.max(start, 1) - 1, end - 1)
}

function strpos(s: string, sub: string): number {
  const i = s.indexOf(sub)
  if (i < 0) return 0
  return charLength(s.slice(0, i)) + 1
}

function trimSet(s: string, set: string, left: boolean, right: boolean): string {
  if (set === ' ') {
    let a = 0
    let b = s.length
    if (left) while (a < b && s.charCodeAt(a) === 32) a++
    if (right) while (b > a && s.charCodeAt(b - 1) === 32) b--
    return s.slice(a, b)
  }
  const cs = chars(s)
  const st = new Set(chars(set))
  let a = 0
  let b = cs.length
  if (left) while (a < b && st.has(cs[a]!)) a++
  if (right) while (b > a && st.has(cs[b - 1]!)) b--
  return cs.slice(a, b).join('')
}

function pad(s: string, len: number, fill: string, left: boolean): string {
  if (len <= 0) return ''
  if (len > MAX_TEXT_LENGTH) throw requestedLengthTooLarge()
  const cs = chars(s)
  if (cs.length >= len || fill.length === 0) return cs.slice(0, len).join('')
  const fc = chars(fill)
  const need = len - cs.length
  // the padding's length in code units (an astral fill character is two), before building it
  const whole = Math.floor(need / fc.length)
  const rest = fc.slice(0, need % fc.length).join('')
  if (s.length + whole * fill.length + rest.length > MAX_TEXT_LENGTH) throw requestedLengthTooLarge()
  const p = fill.repeat(whole) + rest
  return left ? p + s : s + p
}

function leftFn(s: string, n: number): string {
  const len = charLength(s)
  return cpSlice(s, 0, n >= 0 ? n : Math.max(0, len + n))
}
function rightFn(s: string, n: number): string {
  const len = charLength(s)
  return cpSlice(s, n >= 0 ? Math.max(0, len - n) : Math.min(len, -n))
}

const lastSplit: { s: string | undefined; delim: string | undefined; bounds: number[] } = { s: undefined, delim: undefined, bounds: [] }

function splitPart(s: string, delim: string, n: number): string {
  if (n === 0) throw sqlError('22023', 'field position must not be zero')
  if (s === '') return ''
  if (delim === '') return n === 1 || n === -1 ? s : ''
  if (n > 0) {
    // the field bounds of the last string split: a row asking for several fields of one
    // string (Nexmark q22: three URL directories) scans it once
    if (s !== lastSplit.s || delim !== lastSplit.delim) {
      const bounds = lastSplit.bounds
      bounds.length = 0
      let start = 0
      for (;;) {
        const at = s.indexOf(delim, start)
        bounds.push(start, at < 0 ? s.length : at)
        if (at < 0) break
        start = at + delim.length
      }
      lastSplit.s = s
      lastSplit.delim = delim
    }
    const b = lastSplit.bounds
    return 2 * n <= b.length ? s.slice(b[2 * n - 2]!, b[2 * n - 1]!) : ''
  }
  const parts = s.split(delim)
  return parts[parts.length + n] ?? ''
}

/** The global regular expression of the last `from` string replaced. */
const lastReplace = { from: '', re: /(?:)/g }

/** replace(s, from, to): every occurrence of `from`, left to right. A global regular
 *  expression of the literal text takes V8's atom path, which searches natively and builds
 *  the result as one flat string (replaceAll builds a rope, which the next reader of the
 *  string, such as length() scanning for surrogates, must flatten again). */
function replaceText(s: string, from: string, to: string): string {
  if (from === '') return s
  if (to.length > from.length) {
    // the result's length before building it: only when the most matches could pass the limit
    const grow = to.length - from.length
    if (s.length + Math.floor(s.length / from.length) * grow > MAX_TEXT_LENGTH) {
      let count = 0
      for (let at = s.indexOf(from); at >= 0; at = s.indexOf(from, at + from.length)) count++
      checkTextLength(s.length, count * grow)
    }
  }
  if (from !== lastReplace.from) {
    lastReplace.re = new RegExp(from.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'), 'g')
    lastReplace.from = from
  }
  // `$` in a replacement string introduces patterns: `$$` is a literal one
  return s.replace(lastReplace.re, to.includes('$') ? to.replaceAll('$', '$$$$') : to)
}

function repeat(s: string, n: number): string {
  if (n <= 0 || s.length === 0) return ''
  if (s.length * n > MAX_TEXT_LENGTH) throw requestedLengthTooLarge()
  return s.repeat(n)
}

/** `s`, when within the text limit (for functions whose result length is known only once
 *  built, and at most a few times their input's). */
function withinTextLimit(s: string): string {
  checkTextLength(s.length)
  return s
}

/** `a || b`, refused past the text limit before V8 builds it. */
function textConcat(a: string, b: string): string {
  checkTextLength(a.length, b.length)
  return a + b
}

const ALNUM = /[\p{L}\p{N}]/u
function initcap(s: string): string {
  let out = ''
  let prevAlnum = false
  for (const c of s) {
    out += prevAlnum ? c.toLowerCase() : c.toUpperCase()
    prevAlnum = ALNUM.test(c)
  }
  return out
}

function translate(s: string, from: string, to: string): string {
  const f = chars(from)
  const t = chars(to)
  const map = new Map<string, string>()
  for (let i = 0; i < f.length; i++) if (!map.has(f[i]!)) map.set(f[i]!, t[i] ?? '')
  let out = ''
  for (const c of s) {
    const r = map.get(c)
    out += r === undefined ? c : r
  }
  return out
}

function chr(n: number): string {
  if (n < 0) throw sqlError('22023', 'character number must be positive')
  if (n === 0) throw sqlError('54000', 'null character not permitted')
  if (n > 0x10ffff) throw sqlError('54000', 'requested character too large for encoding: ' + n)
  if (n >= 0xd800 && n <= 0xdfff) throw sqlError('54000', 'requested character not valid for encoding: ' + n)
  return String.fromCodePoint(n)
}

function concatText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'boolean' ? (v ? 't' : 'f') : String(v)
}
function concat(...args: unknown[]): string {
  let s = ''
  for (const a of args) {
    if (a === null || a === undefined) continue
    const t = concatText(a)
    checkTextLength(s.length, t.length)
    s += t
  }
  return s
}
function concatWs(sep: unknown, ...args: unknown[]): string | null {
  if (sep === null || sep === undefined) return null
  let s = ''
  let first = true
  for (const a of args) {
    if (a === null || a === undefined) continue
    const t = concatText(a)
    checkTextLength(s.length, (first ? 0 : (sep as string).length) + t.length)
    if (!first) s += sep as string
    s += t
    first = false
  }
  return s
}

/** The string functions and operators (LIKE, regular expressions, padding, trimming, …). */
export const TEXT_FUNCTIONS: Readonly<Record<string, Fn>> = {
  text_concat: textConcat,
  like,
  ilike,
  like_escape: like,
  ilike_escape: ilike,
  regex_match: regexMatch,
  regex_imatch: regexIMatch,
  regex_nmatch: (s: string, p: string | PgRegex) => !regexMatch(s, p),
  regex_inmatch: (s: string, p: string | PgRegex) => !regexIMatch(s, p),

  length: charLength,
  octet_length: (s: string) => Buffer.byteLength(s, 'utf8'),
  bit_length: (s: string) => Buffer.byteLength(s, 'utf8') * 8,
  // case mapping can lengthen a text (upper('ß') is 'SS'): the result stays within the limit
  lower: (s: string) => withinTextLimit(s.toLowerCase()),
  upper: (s: string) => withinTextLimit(s.toUpperCase()),
  substring2: (s: string, a: number) => substring(s, a),
  substring3: substring,
  substring_regex: substringRegex,
  regexp_replace: regexpReplace,
  regexp_replace_at: regexpReplaceAt,
  regexp_like: regexpLike,
  regexp_count: regexpCount,
  regexp_substr: regexpSubstr,
  regexp_instr: regexpInstr,
  position: strpos, // POSITION(sub IN s) arrives as position(s, sub)
  strpos,
  replace: replaceText,
  btrim1: (s: string) => trimSet(s, ' ', true, true),
  btrim2: (s: string, set: string) => trimSet(s, set, true, true),
  ltrim1: (s: string) => trimSet(s, ' ', true, false),
  ltrim2: (s: string, set: string) => trimSet(s, set, true, false),
  rtrim1: (s: string) => trimSet(s, ' ', false, true),
  rtrim2: (s: string, set: string) => trimSet(s, set, false, true),
  lpad2: (s: string, n: number) => pad(s, n, ' ', true),
  lpad3: (s: string, n: number, f: string) => pad(s, n, f, true),
  rpad2: (s: string, n: number) => pad(s, n, ' ', false),
  rpad3: (s: string, n: number, f: string) => pad(s, n, f, false),
  left: leftFn,
  right: rightFn,
  split_part: splitPart,
  repeat,
  reverse: (s: string) => (SURROGATE.test(s) ? chars(s).reverse().join('') : s.split('').reverse().join('')),
  initcap: (s: string) => withinTextLimit(initcap(s)),
  starts_with: (s: string, p: string) => s.startsWith(p),
  md5: (s: string) => createHash('md5').update(s, 'utf8').digest('hex'),
  format_type: (oid: number | bigint | null, typmod: number | null) => (oid === null ? null : formatType(Number(oid), typmod)),
  ascii: (s: string) => s.codePointAt(0) ?? 0,
  pg_size_pretty: sizePretty,
  chr,
  translate: (s: string, from: string, to: string) => withinTextLimit(translate(s, from, to)),
  concat,
  concat_ws: concatWs,
}
