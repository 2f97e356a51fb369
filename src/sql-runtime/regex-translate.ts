// The translation of a PostgreSQL ARE (advanced regular expression) into JS RegExp source,
// with the compile flags it depends on and PostgreSQL's compile error messages. Apart from
// regex.ts (the SQL functions and the caches) because the translator is one large pure
// function: pattern text and flags in, source out.
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

import { RivuletError } from '../../grammar/errors.js'
import { sqlError } from './sql-errors.js'

// ---------------------------------------------------------------------------------- flags

/** Compile flags (a subset of PG's cflags), the index of the pattern caches. */
export const ICASE = 1
export const NLSTOP = 2 // `.` and [^…] do not match a newline
export const NLANCH = 4 // ^ and $ also match at newlines
export const EXPANDED = 8
export const QUOTE = 16
export const CFLAGS = 31

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

export function invalid(message: string): RivuletError {
  return sqlError('2201B', `invalid regular expression: ${message}`)
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
export const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 48 && c <= 57
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
export function translate(pattern: string, cflags0: number): { source: string; nsub: number; icase: boolean } {
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
          throw sqlError('0A000', 'basic regular expressions (option "b") are not supported')
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
