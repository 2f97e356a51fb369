// Mutations of valid statement texts, at the parser's token boundaries (grammar's `lex`): what
// a fuzzer of the statement path (parser, statement cache, binder, engine) feeds in.

import fc from 'fast-check'
import { lex, type SqlToken } from '../../grammar/index.js'

/** Numeric texts a literal may be replaced with: plain values of every kind, and texts that
 *  look numeric to a careless scanner but lex to several tokens (or none). */
export const NUMBER_TEXTS = [
  '0', '1', '2', '7', '42', '007', '2147483647', '2147483648', '9223372036854775807', '9223372036854775808',
  '99999999999999999999999999', '1.5', '10.5', '19.99', '.5', '5.', '0.0', '1e5', '1E-3', '2.5e+10', '1e400',
  '1.2.3', '19.99.5', '1..2', '1e', '1e+', '1.e5', '0x10', '1_000', '-5', '- 5', '+3', '1.5.', '1e5.5', '12abc', '$1',
]

/** Plain numeric values (what a warm-up sibling statement holds). */
export const PLAIN_NUMBERS = ['1', '2', '3', '17', '100', '2147483648', '9223372036854775808', '1.5', '2.25', '.5', '1e5', '3E2']

export function tokensOf(sql: string): SqlToken[] {
  try {
    return lex(sql)
  } catch {
    return []
  }
}

/** `sql` with the numeric tokens at `indexes` (token indexes) replaced by `texts`. */
export function replaceNumbers(sql: string, pick: (i: number) => string): string {
  const nums = tokensOf(sql).filter((t) => t.type === 'IntegerLiteral' || t.type === 'DecimalLiteral')
  let out = ''
  let last = 0
  nums.forEach((t, i) => {
    out += sql.slice(last, t.start) + pick(i)
    last = t.end
  })
  return out + sql.slice(last)
}

export type Mutation =
  | { kind: 'numbers'; texts: string[] }
  | { kind: 'truncate'; at: number }
  | { kind: 'delete'; at: number }
  | { kind: 'repeat'; at: number; times: number }
  | { kind: 'swap'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'replace'; at: number; text: string }
  | { kind: 'huge'; at: number; digits: number }
  | { kind: 'nest'; depth: number; select: boolean }
  | { kind: 'unicode'; at: number; text: string }
  | { kind: 'nul'; at: number }
  | { kind: 'whitespace'; at: number; text: string }

const INSERTABLE = [
  '(', ')', ',', ';', '.', '*', '+', '-', '::', '=', "'", '"', '$$', '/*', '--', 'SELECT', 'FROM', 'WHERE', 'NULL', 'NOT',
  'AND', 'OR', 'IN', 'ORDER BY', 'GROUP BY', 'LIMIT', 'OVER', 'AS', 'CASE', 'END', 'VALUES', 'INTERVAL', 'CAST', 'numeric(1000, 2)',
  'k', 't', 'nosuch', '1', '1.2.3', "'x'", '$1', '[', ']', 'E\'\\', 'U&\'\\', "ARRAY[", '||', '%', '^',
]
const UNICODE = ['é', 'ß', '\u0301', '😀', '\ud800', '\ufeff', '\u2028', '中文', 'Ω', '\u00a0', '\uffff', 'ǅ']

export function mutationArb(): fc.Arbitrary<Mutation> {
  const at = fc.nat(10_000)
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.constantFrom(...NUMBER_TEXTS), { minLength: 1, maxLength: 12 }).map((texts) => ({ kind: 'numbers' as const, texts })) },
    { weight: 3, arbitrary: at.map((a) => ({ kind: 'truncate' as const, at: a })) },
    { weight: 3, arbitrary: at.map((a) => ({ kind: 'delete' as const, at: a })) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), at, times: fc.integer({ min: 2, max: 4 }) }) },
    { weight: 2, arbitrary: at.map((a) => ({ kind: 'swap' as const, at: a })) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('insert' as const), at, text: fc.constantFrom(...INSERTABLE) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace' as const), at, text: fc.constantFrom(...INSERTABLE) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge' as const), at, digits: fc.constantFrom(30, 400, 5000, 100_000) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('nest' as const), depth: fc.constantFrom(5, 15, 48, 50, 97, 99, 500, 10_000), select: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('unicode' as const), at, text: fc.constantFrom(...UNICODE) }) },
    { weight: 1, arbitrary: at.map((a) => ({ kind: 'nul' as const, at: a })) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('whitespace' as const), at, text: fc.constantFrom(' ', '  ', '\n', '\t', ' /* c */ ', ' -- c\n') }) },
  )
}

/** Applies `m` to `sql`, at token boundaries (`at` is taken modulo the token count). */
export function mutate(sql: string, m: Mutation): string {
  if (m.kind === 'numbers') return replaceNumbers(sql, (i) => m.texts[i % m.texts.length]!)
  if (m.kind === 'nest') {
    // a numeric token (or a new SELECT) wrapped in parentheses or scalar subqueries
    const t = tokensOf(sql).find((x) => x.type === 'IntegerLiteral' || x.type === 'DecimalLiteral')
    const open = m.select ? '(SELECT ' : '('
    const body = open.repeat(m.depth) + (t?.image ?? '1') + ')'.repeat(m.depth)
    return t === undefined ? `SELECT ${body}` : sql.slice(0, t.start) + body + sql.slice(t.end)
  }
  const tokens = tokensOf(sql)
  if (tokens.length === 0) return sql
  const i = m.at % tokens.length
  const t = tokens[i]!
  switch (m.kind) {
    case 'truncate':
      return sql.slice(0, t.start)
    case 'delete':
      return sql.slice(0, t.start) + sql.slice(t.end)
    case 'repeat':
      return sql.slice(0, t.end) + (' ' + t.image).repeat(m.times - 1) + sql.slice(t.end)
    case 'swap': {
      const u = tokens[i + 1]
      if (u === undefined) return sql.slice(0, t.start) + sql.slice(t.end) + ' ' + t.image
      return sql.slice(0, t.start) + u.image + sql.slice(t.end, u.start) + t.image + sql.slice(u.end)
    }
    case 'insert':
      return sql.slice(0, t.start) + m.text + ' ' + sql.slice(t.start)
    case 'replace':
      return sql.slice(0, t.start) + m.text + sql.slice(t.end)
    case 'huge':
      return sql.slice(0, t.start) + '9'.repeat(m.digits) + (m.digits % 2 === 0 ? '.5' : '') + sql.slice(t.end)
    case 'unicode':
      return sql.slice(0, t.end) + m.text + sql.slice(t.end)
    case 'nul':
      return sql.slice(0, t.end) + '\u0000' + sql.slice(t.end)
    case 'whitespace':
      return sql.slice(0, t.end) + m.text + sql.slice(t.end)
  }
}
