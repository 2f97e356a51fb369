// PostgreSQL regular expressions (the ARE flavour of `~`, substring(s FROM pattern),
// regexp_replace, regexp_like, regexp_count, regexp_substr, regexp_instr) on top of JS RegExp.
//
// A pattern is translated once into JS RegExp source (translate below) and cached by
// (pattern, compile flags); calls whose pattern is a constant get the compiled regex as a
// constant argument instead (src/sql-runtime/compile-scalar.ts, REGEX_CALLS), so the per-row path is a
// `lastIndex` reset and one `test`/`exec`, with no allocation for `~`.
//
// What the translation covers (PostgreSQL 15 docs §9.7.3):
// - embedded options `(?bcegimnpqstwx)` at the start, the directors `***:` and `***=`;
//   flags arguments: g (where allowed), i c, n m (newline-sensitive), p w s, x (expanded:
//   white space and #-comments ignored), q (literal), t, e (accepted, treated as ARE);
// - bracket expressions with PG's rules (`]` first is literal, `-` first/last is literal),
//   `[[:alpha:]]` … classes (alnum alpha ascii blank cntrl digit graph lower print punct space
//   upper word xdigit; with `i`, upper/lower mean alpha), `[[.c.]]`, `[[=c=]]`;
// - escapes: \a \b (backspace!) \B (backslash) \cX \e \f \n \r \t \v \uXXXX \UXXXXXXXX \xHH…
//   \0 octal, \d \s \w \D \S \W, \A \Z, \m \M \y \Y and [[:<:]] [[:>:]] (word boundaries with
//   PG's word characters: letters, digits, underscore), back references \1…;
// - `.` and `[^…]` match a newline unless newline-sensitive; `^`/`$` anchor at the string
//   ends only, or also at newlines when newline-sensitive;
// - (?:…) (?=…) (?!…) (?<=…) (?<!…) (?#…), greedy and non-greedy quantifiers, bounds
//   {m} {m,} {m,n} (≤ 255), a `{` not followed by a digit is a literal;
// - PG's compile errors, as SQLSTATE 2201B "invalid regular expression: <PG's message>".
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

// ---------------------------------------------------------------------------------- flags

/** Compile flags (a subset of PG's cflags), the index of the pattern caches. */
export const ICASE = 1
const NLSTOP = 2 // `.` and [^…] do not match a newline
const NLANCH = 4 // ^ and $ also match at newlines
const EXPANDED = 8
const QUOTE = 16
const CFLAGS = 31
/** Not a compile flag: the `g` option of a flags argument. */
const GLOB = 32

function sqlErr(code: string, message: string): RivuletError {
  return new RivuletError(code, message)
}

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
        throw sqlErr('0A000', 'basic regular expressions (option "b") are not supported')
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
        throw sqlErr('22023', `invalid regular expression option: "${ch}"`)
    }
  }
  if (flagCache.size >= 1000) flagCache.clear()
  flagCache.set(flags, f)
  return f
}

function noGlobal(f: number, fname: string): void {
  if (f & GLOB) throw sqlErr('22023', `${fname}() does not support the "global" option`)
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

const MSG = {
  BADPAT: 'invalid regexp (reg version 0.8)',
  ECOLLATE: 'invalid collating element',
  ECTYPE: 'invalid character class',
  EESCAPE: 'invalid escape \\ sequence',
  ESUBREG: 'invalid backreference number',
  EBRACK: 'brackets [] not balanced',
  EPAREN: 'parentheses () not balanced',
  EBRACE: 'braces {} not balanced',
  BADBR: 'invalid repetition count(s)',
  ERANGE: 'invalid character range',
  BADRPT: 'quantifier operand invalid',
  BADOPT: 'invalid embedded option',
} as const

function invalid(message: string): RivuletError {
  return sqlErr('2201B', `invalid regular expression: ${message}`)
}

/** PG's word characters (for \w, \m, \M, \y, \Y): letters, digits, underscore. */
const WORD = '\\p{L}\\p{Nd}_'
const W = `[${WORD}]`
const WORD_START = `(?<!${W})(?=${W})`
const WORD_END = `(?<=${W})(?!${W})`
const WORD_BOUNDARY = `(?:${WORD_START}|${WORD_END})`
const NOT_WORD_BOUNDARY = `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`

/** Contents of a JS class (u mode) for each PG character class name. */
const CLASSES: Record<string, string> = {
  alnum: '\\p{L}\\p{Nd}',
  alpha: '\\p{L}',
  ascii: '\\u{0}-\\u{7f}',
  blank: '\\u{20}\\u{9}',
  cntrl: '\\p{Cc}',
  digit: '0-9',
  graph: '\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}',
  lower: '\\p{Ll}',
  print: '\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}\\p{Zs}',
  punct: '\\p{P}\\p{S}',
  space: '\\s',
  upper: '\\p{Lu}',
  word: WORD,
  xdigit: '0-9A-Fa-f',
}

const C = (ch: string): number => ch.charCodeAt(0)
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 48 && c <= 57
const isAsciiAlpha = (c: number | undefined): boolean => c !== undefined && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122))
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13)

/** A code point as JS regex source that is literal both inside and outside a class. */
function lit(c: number): string {
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c > 127 && (c < 0xd800 || c > 0xdfff))) return String.fromCodePoint(c)
  return `\\u{${c.toString(16)}}`
}

type Escape =
  | { readonly kind: 'char'; readonly c: number }
  | { readonly kind: 'class'; readonly out: string; readonly inside: string | undefined }
  | { readonly kind: 'constraint'; readonly out: string }
  | { readonly kind: 'backref'; readonly n: number }

const enum Last {
  None, // start, after ( or |: a quantifier here has no operand
  Atom,
  Quantified,
  Constraint,
}

/** Translates a PG ARE into JS RegExp source (for the flags `gsu`[i]). */
function translate(pattern: string, cflags0: number): { source: string; nsub: number; icase: boolean } {
  const cp: number[] = []
  for (const ch of pattern) cp.push(ch.codePointAt(0)!)
  const n = cp.length
  let i = 0
  let cflags = cflags0

  // directors and embedded options (regc_lex.c prefixes)
  if (!(cflags & QUOTE) && n >= 4 && cp[0] === 42 && cp[1] === 42 && cp[2] === 42) {
    switch (cp[3]) {
      case C('?'):
        throw invalid(MSG.BADPAT)
      case C('='):
        cflags = (cflags | QUOTE) & ~(EXPANDED | NLSTOP | NLANCH)
        i = 4
        break
      case C(':'):
        i = 4
        break
      default:
        throw invalid(MSG.BADRPT)
    }
  }
  if (!(cflags & QUOTE) && i + 2 < n && cp[i] === C('(') && cp[i + 1] === C('?') && isAsciiAlpha(cp[i + 2])) {
    i += 2
    for (; i < n && isAsciiAlpha(cp[i]); i++) {
      switch (String.fromCharCode(cp[i]!)) {
        case 'b':
          throw sqlErr('0A000', 'basic regular expressions (option "b") are not supported')
        case 'c':
          cflags &= ~ICASE
          break
        case 'e':
          break
        case 'i':
          cflags |= ICASE
          break
        case 'm':
        case 'n':
          cflags |= NLSTOP | NLANCH
          break
        case 'p':
          cflags = (cflags | NLSTOP) & ~NLANCH
          break
        case 'q':
          cflags |= QUOTE
          break
        case 's':
          cflags &= ~(NLSTOP | NLANCH)
          break
        case 't':
          cflags &= ~EXPANDED
          break
        case 'w':
          cflags = (cflags & ~NLSTOP) | NLANCH
          break
        case 'x':
          cflags |= EXPANDED
          break
        default:
          throw invalid(MSG.BADOPT)
      }
    }
    if (cp[i] !== C(')')) throw invalid(MSG.BADOPT)
    i++
  }
  if (cflags & QUOTE) {
    let source = ''
    for (; i < n; i++) source += lit(cp[i]!)
    return { source, nsub: 0, icase: (cflags & ICASE) !== 0 }
  }
  const icase = (cflags & ICASE) !== 0
  const nlstop = (cflags & NLSTOP) !== 0
  const nlanch = (cflags & NLANCH) !== 0
  const expanded = (cflags & EXPANDED) !== 0

  let out = ''
  let groups = 0 // capturing groups opened so far
  const closed: boolean[] = [] // closed[k]: group k+1 is complete (back references need that)
  const stack: { lookaround: boolean; group: number }[] = []
  let lookaround = 0
  let last = Last.None

  const skip = (): void => {
    for (;;) {
      while (i < n && isSpace(cp[i]!)) i++
      if (i < n && cp[i] === C('#')) {
        while (i < n && cp[i] !== 10) i++
      } else break
    }
  }

  /** Digits in `base` (min..max of them) at i, PG lexdigits; undefined when too few. */
  const digits = (base: number, min: number, max: number): number | undefined => {
    let v = 0
    let len = 0
    for (; len < max && i < n; len++) {
      const c = cp[i]!
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1
      if (d < 0 || d >= base) break
      v = v * base + d
      i++
    }
    return len < min ? undefined : v
  }

  /** An ARE escape; the backslash is consumed and i is at the escaped character. */
  const escape = (): Escape => {
    const c = cp[i++]!
    if (!(isDigit(c) || isAsciiAlpha(c))) return { kind: 'char', c }
    switch (String.fromCharCode(c)) {
      case 'a':
        return { kind: 'char', c: 7 }
      case 'A':
        return { kind: 'constraint', out: '^' }
      case 'b':
        return { kind: 'char', c: 8 }
      case 'B':
        return { kind: 'char', c: 92 }
      case 'c':
        if (i >= n) throw invalid(MSG.EESCAPE)
        return { kind: 'char', c: cp[i++]! & 31 }
      case 'd':
        return { kind: 'class', out: '\\d', inside: '0-9' }
      case 'D':
        return { kind: 'class', out: '\\D', inside: undefined }
      case 'e':
        return { kind: 'char', c: 27 }
      case 'f':
        return { kind: 'char', c: 12 }
      case 'm':
        return { kind: 'constraint', out: WORD_START }
      case 'M':
        return { kind: 'constraint', out: WORD_END }
      case 'n':
        return { kind: 'char', c: 10 }
      case 'r':
        return { kind: 'char', c: 13 }
      case 's':
        return { kind: 'class', out: '\\s', inside: '\\s' }
      case 'S':
        return { kind: 'class', out: '\\S', inside: undefined }
      case 't':
        return { kind: 'char', c: 9 }
      case 'u':
      case 'U': {
        const v = digits(16, c === C('u') ? 4 : 8, c === C('u') ? 4 : 8)
        if (v === undefined || v > 0x10ffff) throw invalid(MSG.EESCAPE)
        return { kind: 'char', c: v }
      }
      case 'v':
        return { kind: 'char', c: 11 }
      case 'w':
        return { kind: 'class', out: W, inside: WORD }
      case 'W':
        return { kind: 'class', out: `[^${WORD}]`, inside: undefined }
      case 'x': {
        const v = digits(16, 1, 255)
        if (v === undefined || v > 0x10ffff) throw invalid(MSG.EESCAPE)
        return { kind: 'char', c: v }
      }
      case 'y':
        return { kind: 'constraint', out: WORD_BOUNDARY }
      case 'Y':
        return { kind: 'constraint', out: NOT_WORD_BOUNDARY }
      case 'Z':
        return { kind: 'constraint', out: '$' }
      case '0':
        i--
        return octal()
      default: {
        if (!isDigit(c)) throw invalid(MSG.EESCAPE)
        // \1 … : a back reference if one digit, or if the number names an existing group;
        // otherwise an octal escape (PG's "ugly heuristic")
        const save = i
        i--
        const v = digits(10, 1, 255)!
        if (i === save || (v > 0 && v <= groups)) return { kind: 'backref', n: v }
        i = save - 1
        return octal()
      }
    }
  }
  const octal = (): Escape => {
    const start = i
    let v = digits(8, 1, 3)
    if (v === undefined) throw invalid(MSG.EESCAPE)
    if (v > 0xff) {
      i = start + 2
      v >>= 3
    }
    return { kind: 'char', c: v }
  }

  /** A bracket expression; the `[` is consumed. Returns a JS class. */
  const bracket = (): string => {
    let negated = false
    if (cp[i] === C('^')) {
      negated = true
      i++
    }
    let body = ''
    let first = true
    for (;;) {
      if (i >= n) throw invalid(MSG.EBRACK)
      const c = cp[i++]!
      if (c === C(']') && !first) break
      let start: { char: number } | { set: string }
      if (c === C('[') && (cp[i] === C('.') || cp[i] === C('=') || cp[i] === C(':'))) {
        const kind = cp[i++]!
        const name = bracketName(kind)
        if (kind === C(':')) {
          const k = icase && (name === 'upper' || name === 'lower') ? 'alpha' : name
          const cls = Object.hasOwn(CLASSES, k) ? CLASSES[k] : undefined
          if (cls === undefined) throw invalid(MSG.ECTYPE)
          start = { set: cls }
        } else {
          const chars = [...name]
          if (chars.length !== 1) throw invalid(MSG.ECOLLATE)
          const ch = chars[0]!.codePointAt(0)!
          start = kind === C('.') ? { char: ch } : { set: lit(ch) }
        }
      } else if (c === C('\\')) {
        if (i >= n) throw invalid(MSG.EESCAPE)
        const e = escape()
        if (e.kind === 'char') start = { char: e.c }
        else if (e.kind === 'class' && e.inside !== undefined) start = { set: e.inside }
        else throw invalid(MSG.EESCAPE)
      } else if (c === C('-') && !first && cp[i] !== C(']')) {
        throw invalid(MSG.ERANGE)
      } else {
        start = { char: c }
      }
      first = false
      if (cp[i] === C('-') && i + 1 < n && cp[i + 1] !== C(']')) {
        i++
        if (!('char' in start)) throw invalid(MSG.ERANGE)
        let end: number
        const c2 = cp[i++]!
        if (c2 === C('[') && cp[i] === C('.')) {
          i++
          const chars = [...bracketName(C('.'))]
          if (chars.length !== 1) throw invalid(MSG.ECOLLATE)
          end = chars[0]!.codePointAt(0)!
        } else if (c2 === C('[') && (cp[i] === C('=') || cp[i] === C(':'))) {
          throw invalid(MSG.ERANGE)
        } else if (c2 === C('\\')) {
          if (i >= n) throw invalid(MSG.EESCAPE)
          const e = escape()
          if (e.kind !== 'char') throw invalid(e.kind === 'class' && e.inside !== undefined ? MSG.ERANGE : MSG.EESCAPE)
          end = e.c
        } else {
          end = c2
        }
        if (start.char > end) throw invalid(MSG.ERANGE)
        body += `${lit(start.char)}-${lit(end)}`
      } else {
        body += 'char' in start ? lit(start.char) : start.set
      }
    }
    if (negated) return `[^${body}${nlstop ? '\\n' : ''}]`
    return `[${body}]`
  }
  /** The name in `[.name.]`, `[=name=]`, `[:name:]` (opening consumed; `kind` is . = :). */
  const bracketName = (kind: number): string => {
    let name = ''
    for (;;) {
      if (i >= n) throw invalid(MSG.EBRACK)
      if (cp[i] === kind && cp[i + 1] === C(']')) {
        i += 2
        return name
      }
      name += String.fromCodePoint(cp[i++]!)
    }
  }

  const quantifier = (q: string): void => {
    if (last !== Last.Atom) throw invalid(MSG.BADRPT)
    out += q
    if (cp[i] === C('?')) {
      out += '?'
      i++
    }
    last = Last.Quantified
  }

  /** `{m}`, `{m,}`, `{m,n}`: the `{` is consumed and a digit follows. */
  const bound = (): void => {
    const num = (): number => {
      let v = 0
      let len = 0
      while (i < n && isDigit(cp[i]) && v <= 255) {
        v = v * 10 + (cp[i++]! - 48)
        len++
      }
      if (len === 0) throw invalid(i >= n ? MSG.EBRACE : MSG.BADBR)
      if (v > 255) throw invalid(MSG.BADBR)
      return v
    }
    const ws = (): void => {
      if (expanded) skip()
    }
    ws()
    const m = num()
    let text = `${m}`
    ws()
    if (cp[i] === C(',')) {
      i++
      ws()
      if (isDigit(cp[i])) {
        const mx = num()
        if (m > mx) throw invalid(MSG.BADBR)
        text += `,${mx}`
      } else {
        text += ','
      }
      ws()
    }
    if (i >= n) throw invalid(MSG.EBRACE)
    if (cp[i] !== C('}')) throw invalid(MSG.BADBR)
    i++
    quantifier(`{${text}}`)
  }

  while (i < n) {
    if (expanded) {
      skip()
      if (i >= n) break
    }
    const c = cp[i++]!
    switch (c) {
      case C('|'):
        out += '|'
        last = Last.None
        break
      case C('*'):
      case C('+'):
      case C('?'):
        quantifier(String.fromCharCode(c))
        break
      case C('{'): {
        if (expanded) skip()
        if (isDigit(cp[i])) bound()
        else {
          out += lit(c)
          last = Last.Atom
        }
        break
      }
      case C('('): {
        if (cp[i] === C('?')) {
          i++
          if (i >= n) throw invalid(MSG.BADRPT)
          const k = cp[i++]!
          if (k === C('#')) {
            while (i < n && cp[i] !== C(')')) i++
            if (i < n) i++
            break
          }
          let open: string
          let look = true
          if (k === C(':')) {
            open = '(?:'
            look = false
          } else if (k === C('=')) open = '(?='
          else if (k === C('!')) open = '(?!'
          else if (k === C('<') && (cp[i] === C('=') || cp[i] === C('!'))) open = cp[i++] === C('=') ? '(?<=' : '(?<!'
          else throw invalid(MSG.BADRPT)
          out += open
          stack.push({ lookaround: look, group: 0 })
          if (look) lookaround++
        } else if (lookaround > 0) {
          // parentheses inside a lookaround never capture in PG
          out += '(?:'
          stack.push({ lookaround: false, group: 0 })
        } else {
          out += '('
          stack.push({ lookaround: false, group: ++groups })
          closed.push(false)
        }
        last = Last.None
        break
      }
      case C(')'): {
        const top = stack.pop()
        if (top === undefined) throw invalid(MSG.EPAREN)
        out += ')'
        if (top.group > 0) closed[top.group - 1] = true
        if (top.lookaround) lookaround--
        last = top.lookaround ? Last.Constraint : Last.Atom
        break
      }
      case C('['): {
        // [[:<:]] and [[:>:]] are the word start / end constraints
        if (cp[i] === C('[') && cp[i + 1] === C(':') && (cp[i + 2] === C('<') || cp[i + 2] === C('>')) && cp[i + 3] === C(':') && cp[i + 4] === C(']') && cp[i + 5] === C(']')) {
          out += cp[i + 2] === C('<') ? WORD_START : WORD_END
          i += 6
          last = Last.Constraint
        } else {
          out += bracket()
          last = Last.Atom
        }
        break
      }
      case C('.'):
        out += nlstop ? '[^\\n]' : '.'
        last = Last.Atom
        break
      case C('^'):
        out += nlanch ? '(?<![^\\n])' : '^'
        last = Last.Constraint
        break
      case C('$'):
        out += nlanch ? '(?![^\\n])' : '$'
        last = Last.Constraint
        break
      case C('\\'): {
        if (i >= n) throw invalid(MSG.EESCAPE)
        const e = escape()
        switch (e.kind) {
          case 'char':
            out += lit(e.c)
            last = Last.Atom
            break
          case 'class':
            out += e.out
            last = Last.Atom
            break
          case 'constraint':
            out += e.out
            last = Last.Constraint
            break
          case 'backref':
            if (lookaround > 0 || e.n > groups || !closed[e.n - 1]) throw invalid(MSG.ESUBREG)
            out += `(?:\\${e.n})`
            last = Last.Atom
            break
        }
        break
      }
      default:
        out += lit(c)
        last = Last.Atom
    }
  }
  if (stack.length > 0) throw invalid(MSG.EPAREN)
  return { source: out, nsub: groups, icase }
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
  if (v < 0 || (v === 0 && !allowZero)) throw sqlErr('22023', `invalid value for parameter "${name}": ${v}`)
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
    if (c >= 48 && c <= 57) throw sqlErr('22023', `invalid regular expression option: "${String.fromCodePoint(flags.codePointAt(0)!)}"`)
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
  if (endoption !== 0 && endoption !== 1) throw sqlErr('22023', `invalid value for parameter "endoption": ${endoption}`)
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
