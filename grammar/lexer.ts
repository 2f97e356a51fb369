// The lexer: one chevrotain Lexer instance, plus the keyword pass that re-types identifier
// tokens whose (lower-cased) image is a keyword. See tokens.ts for why keywords are not lexer
// patterns.

import { Lexer, type IToken } from 'chevrotain'
import { RivuletError, SqlState, positionAt } from './errors.js'
import { Identifier, UnterminatedComment, keywordMap, lexerTokens } from './tokens.js'

const lexer = new Lexer(lexerTokens, {
  ensureOptimizations: true,
  positionTracking: 'onlyOffset',
  skipValidations: false,
})

const IDENT_IDX = Identifier.tokenTypeIdx as number
const UNTERMINATED_IDX = UnterminatedComment.tokenTypeIdx as number

/** Splits `sql` into tokens (comments and white space dropped). Throws RivuletError 42601. */
export function tokenize(sql: string): IToken[] {
  const result = lexer.tokenize(sql)
  if (result.errors.length > 0) {
    const err = result.errors[0]!
    throw lexError(sql, err.offset)
  }
  const tokens = result.tokens
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.tokenTypeIdx === UNTERMINATED_IDX) throw lexError(sql, t.startOffset)
    if (t.tokenTypeIdx === IDENT_IDX) {
      const k = keywordMap.get(t.image.toLowerCase())
      if (k !== undefined) {
        t.tokenType = k
        t.tokenTypeIdx = k.tokenTypeIdx as number
      }
    }
  }
  return tokens
}

function lexError(sql: string, offset: number): RivuletError {
  const c = sql[offset]
  let message: string
  if (c === "'" || ((c === 'e' || c === 'E') && sql[offset + 1] === "'")) {
    message = `unterminated quoted string at or near "${excerpt(sql, offset)}"`
  } else if (c === '"') {
    message = `unterminated quoted identifier at or near "${excerpt(sql, offset)}"`
  } else if (c === '/' && sql[offset + 1] === '*') {
    message = 'unterminated /* comment at or near "' + excerpt(sql, offset) + '"'
  } else {
    message = `syntax error at or near "${c ?? ''}"`
  }
  return new RivuletError(SqlState.syntaxError, message, positionAt(sql, offset))
}

function excerpt(sql: string, offset: number): string {
  const rest = sql.slice(offset)
  const firstLine = rest.split('\n', 1)[0] ?? ''
  return firstLine.length > 40 ? firstLine.slice(0, 40) + '…' : firstLine
}
