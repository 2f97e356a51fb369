// The REPL's view of its query buffer, as psql's lexer sees it: where a backslash command starts
// on a line (a `\` outside quotes and comments), and the lexical state at the end of the text —
// inside a '…' string, a "…" identifier, a $tag$…$tag$ body, a /* comment */, parentheses —
// which picks the continuation prompt (`rivulet'> `, `rivulet(> `, …). Statement boundaries are
// split.ts's business (the same rules as -c/-f); this only has to agree with it on quoting.

export type LexMode = 'normal' | 'single' | 'single-e' | 'double' | 'dollar' | 'comment'

export interface LexState {
  readonly mode: LexMode
  /** The open dollar quote's tag (`$$`, `$fn$`) in mode 'dollar'. */
  readonly dollarTag: string
  /** Nesting depth of block comments in mode 'comment'. */
  readonly commentDepth: number
  /** Open parentheses of the current statement. */
  readonly parens: number
  /** The current statement has begun (a token or a block comment was seen since the last `;`). */
  readonly content: boolean
}

export const INITIAL_STATE: LexState = { mode: 'normal', dollarTag: '', commentDepth: 0, parens: 0, content: false }

const isIdentStart = (c: string): boolean => /[A-Za-z_\u0080-\uffff]/.test(c)
const isIdentChar = (c: string): boolean => /[A-Za-z0-9_$\u0080-\uffff]/.test(c)
const DOLLAR_TAG = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/

export interface ScanResult {
  readonly state: LexState
  /** Offset of the first `\` outside quotes and comments (a meta-command), or -1. The state is
   *  the state just before it. */
  readonly backslash: number
  /** A `;` ended a statement (outside quotes, comments and parentheses). */
  readonly terminated: boolean
  /** The text with psql variables interpolated (`text` itself without `vars`); `backslash`
   *  is an offset into it. */
  readonly text: string
}

/** psql's variables (`\set`), as scan() interpolates them: `:name` by its value, `:'name'` as
 *  a string literal, `:"name"` as a quoted identifier. */
export type Variables = ReadonlyMap<string, string>

const VARIABLE = /^:(?:'([A-Za-z0-9_\u0080-\uffff]+)'|"([A-Za-z0-9_\u0080-\uffff]+)"|([A-Za-z0-9_\u0080-\uffff]+))/

/** A string literal as psql's :'name' (PQescapeLiteral) writes it: quotes doubled; with
 *  backslashes doubled too, as ` E'…'`. */
export function quoteLiteral(s: string): string {
  const body = s.replace(/'/g, "''")
  return s.includes('\\') ? ` E'${body.replace(/\\/g, '\\\\')}'` : `'${body}'`
}

/** A quoted identifier as psql's :"name" (PQescapeIdentifier) writes it. */
export function quoteIdentifier(s: string): string {
  return `"${s.replace(/"/g, '""')}"`
}

/** Scans `text` starting in `from`; stops at the first backslash command. With `vars`, the
 *  variables named outside quotes and comments are replaced by their values as psql's lexer
 *  does (a value is lexed as part of the text and may name other variables, not itself; `::`
 *  is a cast; names that are not set stay as written). */
export function scan(input: string, from: LexState = INITIAL_STATE, vars?: Variables): ScanResult {
  let { mode, dollarTag, commentDepth, parens, content } = from
  let text = input
  let n = text.length
  let i = 0
  let terminated = false
  /** The variables whose values are being scanned (name, end offset): a value may name other
   *  variables but not itself (psql skips a recursive expansion). */
  let active: { readonly name: string; readonly end: number }[] = []
  const result = (backslash: number): ScanResult => ({ state: { mode, dollarTag, commentDepth, parens, content }, backslash, terminated, text })
  while (i < n) {
    const c = text[i]!
    const next = text[i + 1]
    switch (mode) {
      case 'single':
      case 'double': {
        const quote = mode === 'single' ? "'" : '"'
        if (c === quote) {
          if (next === quote) i += 2
          else {
            mode = 'normal'
            i++
          }
        } else i++
        continue
      }
      case 'single-e':
        if (c === '\\') i += 2
        else if (c === "'") {
          if (next === "'") i += 2
          else {
            mode = 'normal'
            i++
          }
        } else i++
        continue
      case 'dollar': {
        const close = text.indexOf(dollarTag, i)
        if (close < 0) i = n
        else {
          i = close + dollarTag.length
          mode = 'normal'
          dollarTag = ''
        }
        continue
      }
      case 'comment':
        if (c === '/' && next === '*') {
          commentDepth++
          i += 2
        } else if (c === '*' && next === '/') {
          commentDepth--
          i += 2
          if (commentDepth === 0) mode = 'normal'
        } else i++
        continue
      case 'normal':
        break
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++
      continue
    }
    if (c === '-' && next === '-') {
      const eol = text.indexOf('\n', i)
      i = eol < 0 ? n : eol
      continue
    }
    if (c === '/' && next === '*') {
      mode = 'comment'
      commentDepth = 1
      content = true
      i += 2
      continue
    }
    if (c === '\\') return result(i)
    if (c === ':' && vars !== undefined && vars.size > 0) {
      if (next === ':') {
        content = true
        i += 2
        continue
      }
      const m = VARIABLE.exec(text.slice(i, i + 200))
      const name = m ? (m[1] ?? m[2] ?? m[3]!) : ''
      active = active.filter((a) => a.end > i)
      const value = m && !active.some((a) => a.name === name) ? vars.get(name) : undefined
      if (m && value !== undefined) {
        const replacement = m[1] !== undefined ? quoteLiteral(value) : m[2] !== undefined ? quoteIdentifier(value) : value
        text = text.slice(0, i) + replacement + text.slice(i + m[0].length)
        n = text.length
        const delta = replacement.length - m[0].length
        active = [...active.map((a) => ({ name: a.name, end: a.end + delta })), { name, end: i + replacement.length }]
        continue
      }
    }
    if (c === ';' && parens === 0) {
      content = false
      terminated = true
      i++
      continue
    }
    content = true
    if (c === '(') parens++
    else if (c === ')') parens = Math.max(0, parens - 1)
    else if (c === "'") {
      const prev = i > 0 ? text[i - 1]! : ''
      const escapes = (prev === 'E' || prev === 'e') && !(i > 1 && isIdentChar(text[i - 2]!))
      mode = escapes ? 'single-e' : 'single'
    } else if (c === '"') mode = 'double'
    else if (c === '$') {
      const m = DOLLAR_TAG.exec(text.slice(i, i + 200))
      if (m) {
        mode = 'dollar'
        dollarTag = m[0]
        i += m[0].length
        continue
      }
    } else if (isIdentStart(c)) {
      // the whole identifier, so that `$` inside it (a$b) is not read as a dollar quote
      let j = i + 1
      while (j < n && isIdentChar(text[j]!)) j++
      i = j
      continue
    }
    i++
  }
  return result(-1)
}

/** psql's `%R` for a continuation line: `-` in a statement, `'` `"` `$` inside quotes, `*` in a
 *  comment, `(` inside parentheses. */
export function promptChar(state: LexState): string {
  switch (state.mode) {
    case 'single':
    case 'single-e':
      return "'"
    case 'double':
      return '"'
    case 'dollar':
      return '$'
    case 'comment':
      return '*'
    case 'normal':
      return state.parens > 0 ? '(' : '-'
  }
}
