// Public API of the SQL front end: SQL text → AST (parse) and AST → SQL text (print).

import type { IRecognitionException, IToken } from 'chevrotain'
import type { Expr, ParsedStatement } from './ast.js'
import { RivuletError, SqlState, positionAt } from './errors.js'
import { tokenize } from './lexer.js'
import { SqlParser } from './parser.js'

export * from './ast.js'
export { RivuletError, SqlState, positionAt, type SourcePosition } from './errors.js'
export { printStatement, printExpr, printQuery, printTypeName } from './print.js'

let parserInstance: SqlParser | undefined

/** The parser singleton (grammar analysis runs once, on first use). */
function parser(): SqlParser {
  if (parserInstance === undefined) parserInstance = new SqlParser()
  return parserInstance
}

/** Parses one or more `;`-separated statements (a trailing `;` is optional, empty statements
 *  are skipped). Throws RivuletError 42601 with a position on any syntax error. */
export function parse(sql: string): ParsedStatement[] {
  return run(sql, (p) => p.script())
}

/** Parses a single scalar expression. */
export function parseExpression(sql: string): Expr {
  return run(sql, (p) => p.standaloneExpr())
}

function run<T>(sql: string, entry: (p: SqlParser) => T): T {
  try {
    const tokens = tokenize(sql)
    const p = parser()
    p.sql = sql
    p.input = tokens
    const result = entry(p)
    if (p.errors.length > 0) throw syntaxError(sql, p.errors[0]!)
    return result
  } catch (e) {
    if (e instanceof RivuletError) throw e
    if (e instanceof RangeError) {
      // deep nesting exhausted the JS stack (Postgres: stack depth limit exceeded)
      throw new RivuletError('54001', 'statement is too deeply nested', undefined)
    }
    const message = e instanceof Error ? e.message : String(e)
    throw new RivuletError(SqlState.internalError, `internal parser error: ${message}`)
  } finally {
    const p = parserInstance
    if (p !== undefined) {
      p.nesting = 0
      p.sql = ''
      p.input = []
    }
  }
}

function syntaxError(sql: string, err: IRecognitionException): RivuletError {
  const token: IToken = err.token
  const offset = Number.isNaN(token.startOffset) || token.startOffset === undefined ? sql.length : token.startOffset
  return new RivuletError(SqlState.syntaxError, err.message, positionAt(sql, offset))
}

/** One token of the statement text as the parser sees it (comments and white space dropped). */
export interface SqlToken {
  /** The token type's name: `IntegerLiteral`, `DecimalLiteral`, `Identifier`, a keyword … */
  readonly type: string
  readonly image: string
  /** Half-open [start, end) offsets into the text. */
  readonly start: number
  readonly end: number
}

/** The parser's own token stream for `sql` (throws the parser's RivuletError 42601 on a lexical
 *  error), so callers that key or inspect statements never need a second tokenizer. */
export function lex(sql: string): SqlToken[] {
  return tokenize(sql).map((t) => ({ type: t.tokenType.name, image: t.image, start: t.startOffset, end: t.startOffset + t.image.length }))
}
