// A parse cache. Rule: it may only ever return what a full parse of the same text would.
//
// Exact texts are remembered as they are. Beyond that, statements that differ only in the value
// of plain numeric literals (`… WHERE k IN (17, 42)` and `… IN (5, 9)`) share one parse, the
// *template*: the second is the first AST with its literal texts swapped in and its spans moved
// to the second text (a copy costs microseconds, a parse tens of them).
//
// The key comes from the parser's own lexer (grammar's `lex`), never from a scanner of our own:
// an earlier hand-written scanner read `19.99.5` as one number, so `VALUES (3, 19.99.5)` reused
// the template of `VALUES (2, 10.5)` and was accepted although the parser refuses it. With the
// real tokens, `19.99.5` is DecimalLiteral `19.99` + DecimalLiteral `.5`: a different stream,
// a different key, a fresh parse, the parser's error. Lexing is cheap; parsing is what we save.
//
// A numeric token is a placeholder in the key together with its *kind* (int4-, int8- or
// numeric-sized integer; decimal with or without exponent) so a substitution never hands the
// binder a literal it would type differently. Only numeric tokens the parser turned into a
// plain value literal node are substituted; every other numeric token (typmods such as
// NUMERIC(10,2), FETCH counts, COPY options, …) and every literal where the number means more
// than a value (ORDER BY / GROUP BY / DISTINCT ON ordinals, LIMIT, OFFSET) must have exactly
// the template's image, or the lookup misses and the text is parsed fresh.

import { lex, parse, type ParsedStatement, type SqlToken } from '../../grammar/index.js'

interface Template {
  readonly statements: readonly ParsedStatement[]
  /** Where a span offset of the template goes: token index * 2 (+ 1 for the token's end), by
   *  the offset as a token start and as a token end. */
  readonly startAt: ReadonlyMap<number, number>
  readonly endAt: ReadonlyMap<number, number>
  /** Token index of each substitutable literal, by the literal's start offset. */
  readonly slots: ReadonlyMap<number, number>
  /** Numeric tokens that are not substitutable: their index and the image they must have. */
  readonly fixed: readonly { readonly index: number; readonly image: string }[]
}

export interface CachedParse {
  readonly statements: ParsedStatement[]
  /** True when the statements were copied from a template. Their spans are moved to this text,
   *  so errors point into it; the engine still re-parses on an error, to be doubly sure. */
  readonly fromTemplate: boolean
}

/** Templates kept per key (texts of a key that differ in their fixed numbers). */
const MAX_TEMPLATES_PER_KEY = 4

const INT4_MAX = '2147483647'
const INT8_MAX = '9223372036854775807'

/** `a <= b` for digit strings without leading zeros. */
function digitsAtMost(a: string, b: string): boolean {
  return a.length < b.length || (a.length === b.length && a <= b)
}

/** The kind of a numeric token: what the binder would type it as (see bindLiteral). */
function numericKind(t: SqlToken): string | undefined {
  if (t.type === 'IntegerLiteral') {
    const digits = t.image.replace(/^0+(?=\d)/, '')
    return digitsAtMost(digits, INT4_MAX) ? 'i4' : digitsAtMost(digits, INT8_MAX) ? 'i8' : 'in'
  }
  if (t.type === 'DecimalLiteral') return t.image.includes('e') || t.image.includes('E') ? 'de' : 'd'
  return undefined
}

/** The cache key: every token's type and image, numeric literals as `?kind`. Length-prefixed
 *  images so no image can forge a token boundary. */
function keyOf(tokens: readonly SqlToken[]): string {
  let key = ''
  for (const t of tokens) {
    const kind = numericKind(t)
    key += kind !== undefined ? `?${kind} ` : `${t.type}:${t.image.length}:${t.image} `
  }
  return key
}

type Node = Record<string, unknown>

function isNode(x: unknown): x is Node {
  return x !== null && typeof x === 'object'
}

/** Start offsets of the plain numeric literal nodes, and of those whose number means more than
 *  its value (they must stay as written). */
function literalStarts(node: unknown, plain: Set<number>, meaningful: Set<number>, inMeaningful: boolean): void {
  if (!isNode(node)) return
  if (Array.isArray(node)) {
    for (const x of node) literalStarts(x, plain, meaningful, inMeaningful)
    return
  }
  if (node.kind === 'literal') {
    const v = node.value as { type?: string } | undefined
    const span = node.span as { start: number; end: number }
    if (v?.type === 'integer' || v?.type === 'decimal') (inMeaningful ? meaningful : plain).add(span.start)
    return
  }
  for (const k in node) {
    if (k === 'span') continue
    // ordinals (ORDER BY 1, GROUP BY 1, DISTINCT ON (1)) and row counts: keyed as written
    const m = inMeaningful || k === 'orderBy' || k === 'groupBy' || k === 'distinctOn' || k === 'limit' || (k === 'offset' && isNode(node[k]))
    literalStarts(node[k], plain, meaningful, m)
  }
}

/** Every span offset in `node` is a token boundary of the template (so it can be moved). */
function spansMappable(node: unknown, starts: ReadonlyMap<number, number>, ends: ReadonlyMap<number, number>): boolean {
  if (!isNode(node)) return true
  if (Array.isArray(node)) return node.every((x) => spansMappable(x, starts, ends))
  for (const k in node) {
    const v = node[k]
    if (k === 'span' && isNode(v)) {
      const s = v as { start: number; end: number }
      if (!starts.has(s.start) && !ends.has(s.start)) return false
      if (s.end !== s.start && !ends.has(s.end) && !starts.has(s.end)) return false
    } else if (!spansMappable(v, starts, ends)) return false
  }
  return true
}

function makeTemplate(statements: readonly ParsedStatement[], tokens: readonly SqlToken[]): Template | null {
  const plain = new Set<number>()
  const meaningful = new Set<number>()
  literalStarts(statements, plain, meaningful, false)
  const slots = new Map<number, number>()
  const fixed: { index: number; image: string }[] = []
  // where each template offset goes: token index * 2, + 1 for the token's end
  const startAt = new Map<number, number>()
  const endAt = new Map<number, number>()
  tokens.forEach((t, index) => {
    startAt.set(t.start, index * 2)
    endAt.set(t.end, index * 2 + 1)
    if (numericKind(t) === undefined) return
    if (plain.has(t.start) && !meaningful.has(t.start)) slots.set(t.start, index)
    else fixed.push({ index, image: t.image })
  })
  const ok = statements.every((p) => startAt.has(p.offset) && endAt.has(p.offset + p.text.length) && spansMappable(p.statement, startAt, endAt))
  // nothing to substitute, or a span we could not move: exact texts only
  return ok && slots.size > 0 ? { statements, startAt, endAt, slots, fixed } : null
}

/** The template's statements for `sql` (whose tokens match the template's key). */
function instantiate(t: Template, sql: string, tokens: readonly SqlToken[]): ParsedStatement[] | undefined {
  for (const f of t.fixed) if (tokens[f.index]!.image !== f.image) return undefined
  const at = (code: number): number => {
    const tok = tokens[code >> 1]!
    return code & 1 ? tok.end : tok.start
  }
  const mapStart = (o: number): number => at(t.startAt.get(o) ?? t.endAt.get(o)!)
  const mapEnd = (o: number): number => at(t.endAt.get(o) ?? t.startAt.get(o)!)
  const copy = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node
    if (Array.isArray(node)) return node.map(copy)
    const o = node as Node
    const out: Node = {}
    for (const k in o) {
      const v = o[k]
      if (k === 'span') {
        const s = v as { start: number; end: number }
        const start = mapStart(s.start)
        // a zero-length span (a literal the parser made up, such as SUBSTRING's FROM 1) sits at a token start
        out[k] = { start, end: s.end === s.start ? start : mapEnd(s.end) }
      } else out[k] = copy(v)
    }
    if (o.kind === 'literal') {
      const index = t.slots.get((o.span as { start: number }).start)
      const value = o.value as { type: string }
      if (index !== undefined && (value.type === 'integer' || value.type === 'decimal')) out.value = { type: value.type, text: tokens[index]!.image }
    }
    return out
  }
  return t.statements.map((p) => {
    const offset = mapStart(p.offset)
    return { statement: copy(p.statement) as ParsedStatement['statement'], text: sql.slice(offset, mapEnd(p.offset + p.text.length)), offset }
  })
}

export class StatementCache {
  readonly #exact = new Map<string, ParsedStatement[]>()
  /** By key: the templates seen (a few: texts of one key may differ in their fixed numbers,
   *  `ORDER BY 1` / `ORDER BY 2`), or null when the key's statements cannot be templates. */
  readonly #templates = new Map<string, Template[] | null>()
  readonly #limit: number

  constructor(limit = 1000) {
    this.#limit = limit
  }

  /** Parses `sql` (throws RivuletError on syntax errors), reusing earlier parses. */
  parse(sql: string): CachedParse {
    const exact = this.#exact.get(sql)
    if (exact) return { statements: exact, fromTemplate: false }
    const tokens = lex(sql)
    const key = keyOf(tokens)
    const known = this.#templates.get(key)
    for (const t of known ?? []) {
      const statements = instantiate(t, sql, tokens)
      if (statements) return { statements, fromTemplate: true }
    }
    const statements = parse(sql)
    this.#remember(this.#exact, sql, statements)
    if (known !== null) {
      const t = makeTemplate(statements, tokens)
      // a miss on fixed numbers (another ORDER BY ordinal, say) adds a template, up to a few
      if (t === null) this.#remember(this.#templates, key, null)
      else if (known === undefined) this.#remember(this.#templates, key, [t])
      else {
        if (known.length >= MAX_TEMPLATES_PER_KEY) known.shift()
        known.push(t)
      }
    }
    return { statements, fromTemplate: false }
  }

  #remember<TValue>(m: Map<string, TValue>, k: string, v: TValue): void {
    if (m.size >= this.#limit) m.clear()
    m.set(k, v)
  }
}
