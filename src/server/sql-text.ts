// Lexical helpers over SQL text for the server: a small tokenizer that knows Postgres's quoting
// ('…', E'…', $tag$…$tag$, "…", comments), so that the server can look at a statement's leading
// keywords, find `$n` parameters outside literals and replace them by safely quoted literals,
// and match parentheses — without a second SQL parser.

export type TokenKind = 'space' | 'comment' | 'string' | 'ident' | 'word' | 'param' | 'number' | 'punct'

export interface Token {
  readonly kind: TokenKind
  readonly start: number
  readonly end: number
  /** word: lower-cased; ident: the unquoted name; param: the number as text; else the text. */
  readonly value: string
}

const isIdentStart = (c: string): boolean => /[A-Za-z_\u0080-\uffff]/.test(c)
const isIdentChar = (c: string): boolean => /[A-Za-z0-9_$\u0080-\uffff]/.test(c)
const isDigit = (c: string): boolean => c >= '0' && c <= '9'

/** Tokenizes `text`. Unterminated quotes and comments run to the end (the engine reports them). */
export function tokenize(text: string): Token[] {
  const out: Token[] = []
  const n = text.length
  let i = 0
  const push = (kind: TokenKind, start: number, end: number, value = text.slice(start, end)): void => {
    out.push({ kind, start, end, value })
  }
  while (i < n) {
    const c = text[i]!
    const next = text[i + 1]
    const start = i
    if (/\s/.test(c)) {
      while (i < n && /\s/.test(text[i]!)) i++
      push('space', start, i)
    } else if (c === '-' && next === '-') {
      const eol = text.indexOf('\n', i)
      i = eol < 0 ? n : eol
      push('comment', start, i)
    } else if (c === '/' && next === '*') {
      let depth = 0
      while (i < n) {
        if (text[i] === '/' && text[i + 1] === '*') {
          depth++
          i += 2
        } else if (text[i] === '*' && text[i + 1] === '/') {
          depth--
          i += 2
          if (depth === 0) break
        } else i++
      }
      push('comment', start, i)
    } else if (c === "'" || ((c === 'E' || c === 'e' || c === 'B' || c === 'b' || c === 'X' || c === 'x' || c === 'N' || c === 'n') && next === "'")) {
      const escapes = c === 'E' || c === 'e'
      i = c === "'" ? i + 1 : i + 2
      while (i < n) {
        const d = text[i]!
        if (escapes && d === '\\') i += 2
        else if (d === "'") {
          if (text[i + 1] === "'") i += 2
          else {
            i++
            break
          }
        } else i++
      }
      push('string', start, Math.min(i, n))
    } else if ((c === 'U' || c === 'u') && next === '&' && (text[i + 2] === "'" || text[i + 2] === '"')) {
      const q = text[i + 2]!
      i += 3
      while (i < n) {
        if (text[i] === q) {
          if (text[i + 1] === q) i += 2
          else {
            i++
            break
          }
        } else i++
      }
      push(q === "'" ? 'string' : 'ident', start, Math.min(i, n))
    } else if (c === '"') {
      i++
      let name = ''
      while (i < n) {
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            name += '"'
            i += 2
          } else {
            i++
            break
          }
        } else name += text[i++]
      }
      push('ident', start, i, name)
    } else if (c === '$' && next !== undefined && isDigit(next)) {
      i++
      while (i < n && isDigit(text[i]!)) i++
      push('param', start, i, text.slice(start + 1, i))
    } else if (c === '$') {
      // dollar quote: $tag$ … $tag$ (tag: identifier characters without $)
      const m = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(text.slice(i, i + 64))
      if (m) {
        const tag = m[0]
        const close = text.indexOf(tag, i + tag.length)
        i = close < 0 ? n : close + tag.length
        push('string', start, i)
      } else {
        i++
        push('punct', start, i)
      }
    } else if (isIdentStart(c)) {
      while (i < n && isIdentChar(text[i]!)) i++
      push('word', start, i, text.slice(start, i).toLowerCase())
    } else if (isDigit(c) || (c === '.' && next !== undefined && isDigit(next))) {
      while (i < n && /[0-9.]/.test(text[i]!)) i++
      if ((text[i] === 'e' || text[i] === 'E') && /[0-9+-]/.test(text[i + 1] ?? '')) {
        i += 2
        while (i < n && isDigit(text[i]!)) i++
      }
      push('number', start, i)
    } else if (c === ':' && next === ':') {
      i += 2
      push('punct', start, i)
    } else {
      i++
      push('punct', start, i)
    }
  }
  return out
}

/** The tokens that carry meaning (no spaces or comments). */
export function significant(text: string): Token[] {
  return tokenize(text).filter((t) => t.kind !== 'space' && t.kind !== 'comment')
}

/** The leading keywords of a statement, lower-cased (words only; stops at the first token
 *  that is not a plain word). */
export function leadingWords(text: string, count: number): string[] {
  const out: string[] = []
  for (const t of significant(text)) {
    if (t.kind !== 'word' || out.length >= count) break
    out.push(t.value)
  }
  return out
}

/** Whether the text holds no statement (only spaces, comments and semicolons). */
export function isEmptyStatement(text: string): boolean {
  return significant(text).every((t) => t.kind === 'punct' && t.value === ';')
}

/** The highest `$n` used in the text (0 when none). */
export function maxParameter(text: string): number {
  let max = 0
  for (const t of tokenize(text)) if (t.kind === 'param') max = Math.max(max, Number(t.value))
  return max
}

/** Where a `$n` stands: after LIMIT/OFFSET/FETCH … a bare number is needed (the engine wants
 *  a constant there), elsewhere any expression. */
export type ParameterContext = 'count' | 'expression'

/** A text edit made by parameter substitution, to map error positions back. */
export interface Substitution {
  readonly from: number
  readonly to: number
  readonly newFrom: number
  readonly newTo: number
}

/** Replaces each `$n` outside literals, identifiers and comments by `literal(n, context)`;
 *  returns the new text and the edits made. */
export function substituteParameters(text: string, literal: (n: number, context: ParameterContext) => string): { text: string; edits: Substitution[] } {
  const tokens = tokenize(text)
  let out = ''
  let last = 0
  const edits: Substitution[] = []
  let prev: Token | undefined
  for (const t of tokens) {
    if (t.kind === 'param') {
      const ctx: ParameterContext = prev?.kind === 'word' && (prev.value === 'limit' || prev.value === 'offset' || prev.value === 'fetch' || prev.value === 'first' || prev.value === 'next') ? 'count' : 'expression'
      out += text.slice(last, t.start)
      const lit = literal(Number(t.value), ctx)
      edits.push({ from: t.start, to: t.end, newFrom: out.length, newTo: out.length + lit.length })
      out += lit
      last = t.end
    }
    if (t.kind !== 'space' && t.kind !== 'comment') prev = t
  }
  out += text.slice(last)
  return { text: out, edits }
}

/** Maps an offset in substituted text back to the original text. */
export function mapOffsetBack(offset: number, edits: readonly Substitution[]): number {
  let delta = 0
  for (const e of edits) {
    if (offset < e.newFrom) break
    if (offset < e.newTo) return e.from
    delta = e.to - e.newTo
  }
  return offset + delta
}

/** A string as a SQL literal ('…' with quotes doubled; standard_conforming_strings is on, so
 *  backslashes are plain characters). */
export function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`
}

export function quoteIdent(s: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`
}

/** The index of the parenthesis closing the one at `open` in the token list, or -1. */
export function closingParen(tokens: readonly Token[], open: number): number {
  let depth = 0
  for (let i = open; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.kind !== 'punct') continue
    if (t.value === '(') depth++
    else if (t.value === ')') {
      depth--
      if (depth === 0) return i
    }
  }
  return -1
}

/** The text of a string literal token ('…' or E'…' or $$…$$) without quotes, or undefined. */
export function stringValue(t: Token, text: string): string | undefined {
  if (t.kind !== 'string') return undefined
  const raw = text.slice(t.start, t.end)
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1).replace(/''/g, "'")
  if (raw.startsWith('$')) {
    const tag = /^\$[^$]*\$/.exec(raw)?.[0] ?? '$$'
    return raw.slice(tag.length, raw.length - tag.length)
  }
  if (/^[Ee]'/.test(raw) && raw.endsWith("'")) {
    return raw.slice(2, -1).replace(/''/g, "'").replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' })[c] ?? c)
  }
  return undefined
}

/** Number of Unicode code points in the first `offset` UTF-16 units of `text` (Postgres
 *  counts error positions in characters). */
export function codePointOffset(text: string, offset: number): number {
  let n = 0
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    n++
  }
  return n
}
