// `$n` parameters of the extended query protocol. The parser finds them (ParamExpr nodes, with
// the span of their token); binding replaces each such span by a quoted literal of the value
// the client sent, so the statement the engine runs is the parsed one with constants in place
// of its parameters. Nothing else of the text is touched: a `$1` inside a string, an identifier
// or a comment is no parameter, because the parser did not make it one.

import type { ParsedStatement } from '../../grammar/index.js'

/** Where a parameter stands in the statement text. `count`: it is a LIMIT / OFFSET / FETCH
 *  count, where the engine wants a plain number. */
export interface ParameterSite {
  readonly index: number
  readonly start: number
  readonly end: number
  readonly count: boolean
}

/** A text edit made by binding, to map error positions back to the client's text. */
export interface Substitution {
  readonly from: number
  readonly to: number
  readonly newFrom: number
  readonly newTo: number
}

type Node = { readonly [key: string]: unknown }

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null
}

/** The parameters of the parsed statements, in text order. */
export function parameterSites(statements: readonly ParsedStatement[]): ParameterSite[] {
  const sites: ParameterSite[] = []
  const counts = new Set<unknown>()
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x)
      return
    }
    if (!isNode(v)) return
    if (v.kind === 'query') {
      if (v.limit !== undefined) counts.add(v.limit)
      if (v.offset !== undefined) counts.add(v.offset)
    }
    if (v.kind === 'param' && typeof v.index === 'number' && isNode(v.span)) {
      sites.push({ index: v.index, start: Number(v.span.start), end: Number(v.span.end), count: counts.has(v) })
      return
    }
    for (const key in v) if (key !== 'span') walk(v[key])
  }
  for (const p of statements) walk(p.statement)
  return sites.sort((a, b) => a.start - b.start)
}

/** Replaces each parameter site by `literal(index, count)`. */
export function bindParameters(text: string, sites: readonly ParameterSite[], literal: (index: number, count: boolean) => string): { text: string; edits: Substitution[] } {
  let out = ''
  let last = 0
  const edits: Substitution[] = []
  for (const s of sites) {
    out += text.slice(last, s.start)
    const lit = literal(s.index, s.count)
    edits.push({ from: s.start, to: s.end, newFrom: out.length, newTo: out.length + lit.length })
    out += lit
    last = s.end
  }
  out += text.slice(last)
  return { text: out, edits }
}

/** Maps an offset in bound text back to the original text. */
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
