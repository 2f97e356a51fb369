// A parse cache keyed by the statement text with its numeric literals taken out, so
// `SELECT … WHERE k IN (17, 42)` and `… IN (5, 9)` share one parse: the second is the first
// AST with the literal texts swapped in (a copy costs microseconds, a parse tens of them).
// Spans in a copied AST point into the text it was first parsed from, so callers that hit an
// error on a copy re-parse the real text (`fresh`) to report the right position.

import { parse, type ParsedStatement } from '../grammar/index.js'

interface Template {
  readonly statements: ParsedStatement[]
  /** Offsets (into the template's own text) of its numeric literals, in text order. */
  readonly offsets: readonly number[]
}

export interface CachedParse {
  readonly statements: ParsedStatement[]
  /** True when the statements came from a template (spans belong to another text). */
  readonly fromTemplate: boolean
}

/** A character of an identifier or keyword: [A-Za-z0-9_$] or anything beyond ASCII. */
function isIdentCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c >= 0x80
}

/** Splits out numeric literals: the text with each replaced by `?`, and the literals. */
export function normalize(sql: string): { key: string; literals: string[]; offsets: number[] } {
  let key = ''
  const literals: string[] = []
  const offsets: number[] = []
  let i = 0
  let last = 0
  const n = sql.length
  while (i < n) {
    const c = sql[i]!
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1)
      if (end < 0) break
      i = end + 1
      continue
    }
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i)
      i = end < 0 ? n : end
      continue
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2)
      i = end < 0 ? n : end + 2
      continue
    }
    if (isIdentCode(sql.charCodeAt(i)) && !(c >= '0' && c <= '9')) {
      while (i < n && isIdentCode(sql.charCodeAt(i))) i++
      continue
    }
    const digitStart = (c >= '0' && c <= '9') || (c === '.' && sql[i + 1]! >= '0' && sql[i + 1]! <= '9')
    if (digitStart && !(i > 0 && isIdentCode(sql.charCodeAt(i - 1)))) {
      let j = i
      while (j < n && ((sql[j]! >= '0' && sql[j]! <= '9') || sql[j] === '.')) j++
      if (j < n && (sql[j] === 'e' || sql[j] === 'E')) {
        let k = j + 1
        if (sql[k] === '+' || sql[k] === '-') k++
        if (k < n && sql[k]! >= '0' && sql[k]! <= '9') {
          while (k < n && sql[k]! >= '0' && sql[k]! <= '9') k++
          j = k
        }
      }
      if (j < n && isIdentCode(sql.charCodeAt(j))) {
        // e.g. `1abc`: not a plain literal; leave it to the parser
        i = j
        continue
      }
      key += sql.slice(last, i) + '?'
      literals.push(sql.slice(i, j))
      offsets.push(i)
      last = j
      i = j
      continue
    }
    i++
  }
  key += sql.slice(last)
  return { key, literals, offsets }
}

/** Numeric literal offsets of a parsed AST (in text order). */
function literalOffsets(node: unknown, out: number[]): void {
  if (node === null || typeof node !== 'object') return
  if (Array.isArray(node)) {
    for (const x of node) literalOffsets(x, out)
    return
  }
  const o = node as Record<string, unknown>
  if (o.kind === 'literal') {
    const v = o.value as { type?: string } | undefined
    if (v && (v.type === 'integer' || v.type === 'decimal')) out.push((o.span as { start: number }).start)
    return
  }
  for (const k in o) if (k !== 'span') literalOffsets(o[k], out)
}

/** Copies `node`, replacing the literal whose span starts at offsets[i] with literals[i]. */
function instantiate(node: unknown, at: ReadonlyMap<number, string>): unknown {
  if (node === null || typeof node !== 'object') return node
  if (Array.isArray(node)) return node.map((x) => instantiate(x, at))
  const o = node as Record<string, unknown>
  if (o.kind === 'literal') {
    const v = o.value as { type?: string }
    const start = (o.span as { start: number }).start
    const text = at.get(start)
    if (text !== undefined && (v.type === 'integer' || v.type === 'decimal')) {
      const isInt = /^[0-9]+$/.test(text)
      return { ...o, value: isInt ? { type: 'integer', text } : { type: 'decimal', text } }
    }
    return o
  }
  const copy: Record<string, unknown> = {}
  for (const k in o) copy[k] = k === 'span' ? o[k] : instantiate(o[k], at)
  return copy
}

export class StatementCache {
  readonly #exact = new Map<string, ParsedStatement[]>()
  readonly #templates = new Map<string, Template | null>()
  readonly #limit: number

  constructor(limit = 1000) {
    this.#limit = limit
  }

  /** Parses `sql` (throws RivuletError on syntax errors), reusing earlier parses. */
  parse(sql: string): CachedParse {
    const exact = this.#exact.get(sql)
    if (exact) return { statements: exact, fromTemplate: false }
    const { key, literals, offsets } = normalize(sql)
    const t = literals.length > 0 ? this.#templates.get(key) : undefined
    if (t) {
      const at = new Map<number, string>()
      t.offsets.forEach((off, i) => at.set(off, literals[i]!))
      return { statements: instantiate(t.statements, at) as ParsedStatement[], fromTemplate: true }
    }
    const statements = parse(sql)
    this.#remember(this.#exact, sql, statements)
    if (literals.length > 0 && t === undefined) {
      const found: number[] = []
      literalOffsets(statements, found)
      found.sort((a, b) => a - b)
      // only when every scanned literal is a literal node of the AST (and nothing else is)
      const ok = found.length === offsets.length && found.every((f, i) => f === offsets[i])
      this.#remember(this.#templates, key, ok ? { statements, offsets } : null)
    }
    return { statements, fromTemplate: false }
  }

  #remember<TValue>(m: Map<string, TValue>, k: string, v: TValue): void {
    if (m.size >= this.#limit) m.clear()
    m.set(k, v)
  }
}
