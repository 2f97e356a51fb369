// The SQL grammar: a chevrotain EmbeddedActionsParser that builds the AST (ast.ts) directly.
//
// Notes for readers:
// - Every DSL call uses the indexed lower-case API (`consume(i, …)`, `subrule(i, …)`, …): an
//   index must be unique per method kind (and token type / subrule) within one rule. The engine's
//   parser skips chevrotain's grammar validations for start-up time, so a duplicate would go
//   unnoticed there; test/grammar/parse.test.ts builds a validating instance to catch it.
// - Rule bodies also run once during chevrotain's grammar recording (performSelfAnalysis), where
//   CONSUME returns a dummy token and SUBRULE/OR return a frozen dummy object. Code that looks
//   *into* a sub-result therefore runs inside `this.ACTION(…)` (skipped while recording) or in a
//   GATE (not evaluated while recording). Grammar structure never depends on values.
// - Expressions use precedence climbing (`exprBP(minPrec)`) rather than one rule per level, with
//   Postgres' precedences (lowest → highest):
//     1 OR · 2 AND · 3 NOT · 4 IS … · 5 comparison · 6 [NOT] BETWEEN/IN/LIKE/ILIKE ·
//     7 other operators (|| & | # << >> ~ ~* !~ !~*) · 8 + - · 9 * / % · 10 ^ · 11 unary + - ~ · 12 ::
//   print.ts uses the same table (exported as `Prec`).
// - Spans are half-open offsets into the whole input given to parse().

import {
  EmbeddedActionsParser,
  EOF,
  tokenMatcher,
  type IOrAlt,
  type IParserErrorMessageProvider,
  type IToken,
  type OrMethodOpts,
  type TokenType,
} from 'chevrotain'
import type * as A from './ast.js'
import { RivuletError, SqlState, positionAt } from './errors.js'
import * as T from './tokens.js'

// ---------------------------------------------------------------------------------- precedence

/** Nesting levels (expressions and queries, each level counting one) a statement may have. A
 *  parenthesis costs the parser ~3.7 KB of JS stack, a subquery level ~6 KB (two levels):
 *  100 keeps the deepest text at under half of Node's default stack, also when cold. */
export const MAX_NESTING = 100

export const Prec = {
  or: 1,
  and: 2,
  not: 3,
  is: 4,
  cmp: 5,
  like: 6,
  other: 7,
  add: 8,
  mul: 9,
  exp: 10,
  unary: 11,
  cast: 12,
  primary: 13,
} as const

const infixPrecByIdx = new Map<number, number>()
function setPrec(types: TokenType[], p: number): void {
  for (const t of types) infixPrecByIdx.set(t.tokenTypeIdx as number, p)
}
setPrec([T.OR], Prec.or)
setPrec([T.AND], Prec.and)
setPrec([T.IS], Prec.is)
setPrec([T.Equals, T.NotEqual, T.BangEqual, T.Less, T.Greater, T.LessEq, T.GreaterEq], Prec.cmp)
setPrec([T.BETWEEN, T.IN, T.LIKE, T.ILIKE], Prec.like)
setPrec([T.Concat, T.Ampersand, T.Pipe, T.Hash, T.ShiftLeft, T.ShiftRight, T.Tilde, T.TildeStar, T.BangTilde, T.BangTildeStar], Prec.other)
setPrec([T.Arrow, T.ArrowText, T.HashArrow, T.HashArrowText, T.HashMinus, T.AtGreater, T.LessAt, T.Question, T.QuestionPipe, T.QuestionAmp], Prec.other)
setPrec([T.Plus, T.Minus], Prec.add)
setPrec([T.Star, T.Slash, T.Percent], Prec.mul)
setPrec([T.Caret], Prec.exp)
setPrec([T.ColonColon], Prec.cast)
setPrec([T.LBracket], Prec.primary)

const NOT_IDX = T.NOT.tokenTypeIdx as number
const IDENT_IDX = T.Identifier.tokenTypeIdx as number
const QIDENT_IDX = T.QuotedIdentifier.tokenTypeIdx as number
const LPAREN_IDX = T.LParen.tokenTypeIdx as number
const NULL_IDX = T.NULL.tokenTypeIdx as number
const TIME_IDX = T.TIME.tokenTypeIdx as number
const notFollowers = new Set([T.BETWEEN, T.IN, T.LIKE, T.ILIKE].map((t) => t.tokenTypeIdx as number))

function infixPrec(t1: IToken, t2: IToken): number {
  const idx = t1.tokenTypeIdx
  if (idx === NOT_IDX) {
    if (t2.tokenTypeIdx === NULL_IDX) return Prec.is // SQLite's postfix `x NOT NULL`
    return notFollowers.has(t2.tokenTypeIdx) ? Prec.like : -1
  }
  // `OPERATOR(schema.op)` and `COLLATE name`: words, not keywords (both are rare; as plain
  // identifiers they stay usable as names), recognized here by the token after them
  if (idx === IDENT_IDX) {
    const w = word(t1)
    if (w === 'operator' && t2.tokenTypeIdx === LPAREN_IDX) return Prec.other
    if (w === 'collate' && (t2.tokenTypeIdx === IDENT_IDX || t2.tokenTypeIdx === QIDENT_IDX)) return Prec.unary
    // `x AT TIME ZONE z` binds tighter than ^ and looser than a unary minus (as PostgreSQL)
    if (w === 'at' && t2.tokenTypeIdx === TIME_IDX) return Prec.exp + 0.5
  }
  return infixPrecByIdx.get(idx) ?? -1
}

// ---------------------------------------------------------------------------------- token helpers

const idxOf = (t: TokenType): number => t.tokenTypeIdx as number
const IDENT = idxOf(T.Identifier)
const QIDENT = idxOf(T.QuotedIdentifier)

function isIdentLike(t: IToken): boolean {
  return t.tokenTypeIdx === IDENT || t.tokenTypeIdx === QIDENT || tokenMatcher(t, T.NonReserved)
}
function is(t: IToken, type: TokenType): boolean {
  return t.tokenTypeIdx === type.tokenTypeIdx
}
function isQueryStart(t: IToken): boolean {
  return is(t, T.SELECT) || is(t, T.WITH) || is(t, T.VALUES)
}
const queryContinuations = [T.UNION, T.INTERSECT, T.EXCEPT, T.ORDER, T.LIMIT, T.OFFSET, T.FETCH, T.EMIT]
function isQueryContinuation(t: IToken): boolean {
  return queryContinuations.some((c) => is(t, c))
}
function isString(t: IToken): boolean {
  return is(t, T.StringLiteral) || is(t, T.EString) || is(t, T.DollarString)
}
/** Statements of a client session (sessionStmt), by their first word. */
const SESSION_WORDS = new Set(['declare', 'reset', 'deallocate', 'discard', 'unlisten', 'savepoint', 'release', 'prepare', 'execute', 'listen', 'notify'])
function isSessionStart(t: IToken): boolean {
  return is(t, T.FETCH) || is(t, T.CLOSE) || (is(t, T.Identifier) && SESSION_WORDS.has(word(t)))
}
/** Words that start a transaction mode after BEGIN (ISOLATION LEVEL …, READ ONLY, NOT
 *  DEFERRABLE). */
const TRANSACTION_MODE_WORDS = new Set(['isolation', 'read', 'not', 'deferrable'])
/** `SET <word> …` forms that are not `SET name = value`. */
const SET_PHRASES = new Set(['transaction', 'characteristics', 'role', 'authorization'])
/** Words that may not be a bare (AS-less) alias because they continue the statement. */
const notBareAlias = [T.EMIT, T.SET, T.WINDOW]
/** `ASOF JOIN` / `ASOF LEFT [OUTER] JOIN` ahead. */
function isAsofJoin(t1: IToken, t2: IToken, t3: IToken): boolean {
  if (word(t1) !== 'asof' || !is(t1, T.Identifier)) return false
  return is(t2, T.JOIN) || (is(t2, T.LEFT) && (is(t3, T.JOIN) || is(t3, T.OUTER)))
}

function canStartAlias(t: IToken): boolean {
  if (is(t, T.AS)) return true
  return isIdentLike(t) && !notBareAlias.some((c) => is(t, c))
}
/** Lower-cased image. Tolerates the dummy result OR returns while recording the grammar. */
/** Interval units in the plural, accepted as Flink writes them (`INTERVAL '10' MINUTES`). */
const PLURAL_UNITS = new Set(['years', 'months', 'days', 'hours', 'minutes', 'seconds'])

/** A plain word that is not a keyword here (ALTER, TRUNCATE, SCHEMA, COLUMN, …: they mean
 *  something only where the grammar asks for them, and stay ordinary identifiers elsewhere). */
function isWord(t: IToken, w: string): boolean {
  return is(t, T.Identifier) && word(t) === w
}

function word(t: IToken): string {
  const image: unknown = t.image
  return typeof image === 'string' ? image.toLowerCase() : ''
}

function fold(image: string): string {
  return image.toLowerCase()
}

function unquoteIdent(image: string): string {
  return image.slice(1, -1).replace(/""/g, '"')
}

function unquoteString(image: string): string {
  return image.slice(1, -1).replace(/''/g, "'")
}

/** Decodes an `E'…'` literal (Postgres escape string syntax). */
function unescapeEString(image: string): string {
  const body = image.slice(2, -1)
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c === "'" && body[i + 1] === "'") {
      out += "'"
      i++
    } else if (c === '\\' && i + 1 < body.length) {
      const n = body[++i]!
      switch (n) {
        case 'b':
          out += '\b'
          break
        case 'f':
          out += '\f'
          break
        case 'n':
          out += '\n'
          break
        case 'r':
          out += '\r'
          break
        case 't':
          out += '\t'
          break
        case 'x': {
          const m = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1))
          if (m) {
            out += String.fromCharCode(parseInt(m[0], 16))
            i += m[0].length
          } else out += 'x'
          break
        }
        case 'u':
        case 'U': {
          const len = n === 'u' ? 4 : 8
          const hex = body.slice(i + 1, i + 1 + len)
          if (hex.length === len && /^[0-9a-fA-F]+$/.test(hex)) {
            out += String.fromCodePoint(parseInt(hex, 16))
            i += len
          } else out += n
          break
        }
        default:
          if (n >= '0' && n <= '7') {
            const m = /^[0-7]{1,3}/.exec(body.slice(i))!
            out += String.fromCharCode(parseInt(m[0], 8))
            i += m[0].length - 1
          } else out += n
      }
    } else out += c
  }
  return out
}

function stringValue(tok: IToken): string {
  const image: unknown = tok.image
  if (typeof image !== 'string') return '' // grammar recording
  const c = image.charCodeAt(0)
  if (c === 36 /* $ */) {
    const tag = image.indexOf('$', 1) + 1
    return image.slice(tag, image.length - tag)
  }
  return c === 39 /* ' */ ? unquoteString(image) : unescapeEString(image)
}

// ---------------------------------------------------------------------------------- types

/** Normalizes a type name as written (words lower-cased) to the canonical TypeName.name. */
export function normalizeTypeName(name: string, args: readonly number[]): { name: string; args: readonly number[] } {
  switch (name) {
    case 'bool':
    case 'boolean':
      return { name: 'boolean', args }
    case 'int2':
    case 'smallint':
      return { name: 'smallint', args }
    case 'int':
    case 'int4':
    case 'integer':
      return { name: 'integer', args }
    case 'int8':
    case 'bigint':
    case 'signed':
    case 'unsigned':
    case 'signed integer':
    case 'unsigned integer':
      return { name: 'bigint', args: [] }
    case 'real':
    case 'float4':
      return { name: 'real', args }
    case 'float':
      // FLOAT(p): p <= 24 is REAL, otherwise DOUBLE PRECISION (as Postgres)
      return args.length > 0 && args[0]! <= 24 ? { name: 'real', args: [] } : { name: 'double', args: [] }
    case 'double':
    case 'double precision':
    case 'float8':
      return { name: 'double', args }
    case 'numeric':
    case 'decimal':
      return { name: 'numeric', args }
    case 'text':
    case 'string':
      return { name: 'text', args }
    case 'varchar':
    case 'character varying':
    case 'char varying':
      return { name: 'varchar', args }
    case 'char':
    case 'character':
    case 'bpchar':
      return { name: 'char', args }
    case 'timestamp':
    case 'timestamp without time zone':
      return { name: 'timestamp', args }
    case 'timestamptz':
    case 'timestamp with time zone':
      return { name: 'timestamptz', args }
    case 'time':
    case 'time without time zone':
      return { name: 'time', args }
    default:
      return { name, args }
  }
}

// ---------------------------------------------------------------------------------- error messages

const ruleDescriptions: Record<string, string> = {
  expr: 'an expression',
  exprBP: 'an expression',
  prefixExpr: 'an expression',
  primary: 'an expression',
  wordPrimary: 'an expression',
  parenBody: 'an expression',
  tableFunctionArg: 'an expression',
  setValue: 'a value',
  selectItem: 'an expression',
  ident: 'an identifier',
  label: 'an identifier',
  qualifiedName: 'a name',
  typeName: 'a type name',
  statement: 'a statement',
  explainStmt: 'a statement',
  queryPrimary: 'SELECT, VALUES or a parenthesized query',
  query: 'a query',
  tablePrimary: 'a table name, subquery or table function',
  tableElement: 'a column definition',
  intervalUnit: 'an interval unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND)',
  copyFile: "a file name ('…'), STDIN or STDOUT",
  copyString: 'a string literal',
  copyOptionValue: 'an option value',
  copyLegacyOption: 'a COPY option',
}

function found(t: IToken | undefined): string {
  if (t === undefined || t.tokenType === EOF) return 'end of input'
  return `"${t.image}"`
}

function tokenDescription(t: TokenType): string {
  if (t === T.Identifier || t === T.NonReserved || t === T.QuotedIdentifier) return 'an identifier'
  return t.LABEL ?? t.name
}

function describePaths(paths: TokenType[][]): string | undefined {
  const firsts: string[] = []
  for (const p of paths) {
    const f = p[0]
    if (f === undefined) continue
    const d = tokenDescription(f)
    if (!firsts.includes(d)) firsts.push(d)
  }
  if (firsts.length === 0 || firsts.length > 9) return undefined
  if (firsts.length === 1) return firsts[0]
  return `one of ${firsts.join(', ')}`
}

function genericMessage(t: IToken | undefined): string {
  if (t === undefined || t.tokenType === EOF) return 'syntax error at end of input'
  return `syntax error at or near "${t.image}"`
}

const errorMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual }) {
    return `Expected ${tokenDescription(expected)}, found ${found(actual)}`
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return genericMessage(firstRedundant)
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
    // a word that starts no statement (a misspelt keyword): Postgres's plain syntax error
    if (ruleName === 'statement' && actual[0] !== undefined && is(actual[0], T.Identifier)) return genericMessage(actual[0])
    const what = ruleDescriptions[ruleName] ?? describePaths(expectedPathsPerAlt.flat())
    return what === undefined ? genericMessage(actual[0]) : `Expected ${what}, found ${found(actual[0])}`
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, ruleName, customUserDescription }) {
    const what = customUserDescription ?? ruleDescriptions[ruleName] ?? describePaths(expectedIterationPaths)
    return what === undefined ? genericMessage(actual[0]) : `Expected ${what}, found ${found(actual[0])}`
  },
}

// ---------------------------------------------------------------------------------- AST helpers

type ParenBody =
  | { readonly query: A.Query; readonly exprs?: undefined; readonly span: A.Span }
  | { readonly query?: undefined; readonly exprs: A.Expr[]; readonly span: A.Span }

function spanStart(n: { readonly span: A.Span } | undefined): number {
  return n?.span?.start ?? NaN
}

function func(name: string[], args: A.Expr[], span: A.Span): A.FuncCall {
  return { kind: 'func', name, args, distinct: false, orderBy: [], filter: undefined, over: undefined, span }
}

function isPlainValues(q: A.Query): boolean {
  return (
    q.body.kind === 'values' &&
    q.with.length === 0 &&
    q.orderBy.length === 0 &&
    q.limit === undefined &&
    q.offset === undefined &&
    !q.emitOnWindowClose
  )
}

interface TableBody {
  columns: A.ColumnDef[]
  primaryKey: string[] | undefined
  watermark: A.WatermarkDef | undefined
}

type TableElement =
  | { readonly kind: 'column'; readonly def: A.ColumnDef }
  | { readonly kind: 'pk'; readonly columns: string[]; readonly span: A.Span }
  | { readonly kind: 'watermark'; readonly def: A.WatermarkDef }

// ---------------------------------------------------------------------------------- the parser

export class SqlParser extends EmbeddedActionsParser {
  /** The whole input being parsed (for statement text and positions in semantic errors). */
  sql = ''

  /** `validate` runs chevrotain's grammar validations (ambiguities, left recursion…); they
   *  cost start-up time, so the engine's singleton skips them and a test runs them. */
  constructor(options: { validate?: boolean } = {}) {
    super(T.allTokens, {
      recoveryEnabled: false,
      maxLookahead: 3,
      errorMessageProvider,
      skipValidations: options.validate !== true,
    })
    this.performSelfAnalysis()
  }

  private start(): number {
    return this.LA(1).startOffset
  }
  /** Span from `start` to the end of the last consumed token. */
  private sp(start: number): A.Span {
    const t = this.LA(0)
    return { start, end: t.startOffset + t.image.length }
  }
  /** How deeply the expressions and queries being parsed nest (exprBP and query levels). */
  nesting = 0
  /** One more level of nesting: past MAX_NESTING, 54001 at the token where it happens. A
   *  fixed limit, so whether a text parses never depends on how much JS stack the caller
   *  left (running out of stack, at ~250 parentheses or ~140 nested subqueries when the
   *  parser's code is still cold, depended on that: the same text could parse in one call and
   *  not in another, and a cache could then accept what a fresh parse refused). */
  private enterNesting(): void {
    if (++this.nesting > MAX_NESTING && !this.RECORDING_PHASE) {
      const t = this.LA(1)
      const offset = Number.isNaN(t.startOffset) || t.startOffset === undefined ? this.sql.length : t.startOffset
      this.fail('54001', 'statement is too deeply nested', offset)
    }
  }
  private fail(code: string, message: string, offset: number): never {
    throw new RivuletError(code, message, positionAt(this.sql, offset))
  }

  // ================================================================================ script

  script = this.RULE('script', (): A.ParsedStatement[] => {
    const out: A.ParsedStatement[] = []
    this.many(0, () => this.consume(0, T.Semicolon))
    this.option(0, () => {
      out.push(this.subrule(0, this.parsedStatement))
      this.many(1, () => {
        this.consume(1, T.Semicolon)
        this.option(1, () => out.push(this.subrule(1, this.parsedStatement)))
      })
    })
    return out
  })

  parsedStatement = this.RULE('parsedStatement', (): A.ParsedStatement => {
    const start = this.start()
    const statement = this.subrule(0, this.statement)
    const end = this.sp(start).end
    return { statement, text: this.sql.slice(start, end), offset: start }
  })

  standaloneExpr = this.RULE('standaloneExpr', (): A.Expr => this.subrule(0, this.expr))

  statement = this.RULE('statement', (): A.Statement =>
    this.or(0, [
      { ALT: () => this.subrule(0, this.selectStmt) },
      { ALT: () => this.subrule(1, this.insertStmt) },
      { ALT: () => this.subrule(2, this.updateStmt) },
      { ALT: () => this.subrule(3, this.deleteStmt) },
      { ALT: () => this.subrule(4, this.createStmt) },
      { ALT: () => this.subrule(5, this.dropStmt) },
      { ALT: () => this.subrule(6, this.transactionStmt) },
      { ALT: () => this.subrule(7, this.explainStmt) },
      { ALT: () => this.subrule(8, this.showStmt) },
      { ALT: () => this.subrule(9, this.setStmt) },
      { ALT: () => this.subrule(10, this.flushStmt) },
      { ALT: () => this.subrule(11, this.subscribeStmt) },
      { ALT: () => this.subrule(12, this.reindexStmt) },
      { ALT: () => this.subrule(13, this.copyStmt) },
      { ALT: () => this.subrule(15, this.checkpointStmt) },
      { GATE: () => isWord(this.LA(1), 'alter'), ALT: () => this.subrule(16, this.alterTableStmt) },
      { GATE: () => isWord(this.LA(1), 'truncate'), ALT: () => this.subrule(17, this.truncateStmt) },
      { GATE: () => isSessionStart(this.LA(1)), ALT: () => this.subrule(14, this.sessionStmt) },
    ]),
  )

  selectStmt = this.RULE('selectStmt', (): A.SelectStmt => {
    const start = this.start()
    const query = this.subrule(0, this.query)
    return { kind: 'select', query, span: this.sp(start) }
  })

  // ================================================================================ names

  ident = this.RULE('ident', (): string =>
    this.or(0, [
      { ALT: () => fold(this.consume(0, T.Identifier).image) },
      {
        ALT: () => {
          const t = this.consume(1, T.QuotedIdentifier)
          const s = unquoteIdent(t.image)
          if (s === '') this.ACTION(() => this.fail(SqlState.syntaxError, 'zero-length delimited identifier', t.startOffset))
          return s
        },
      },
      { ALT: () => fold(this.consume(2, T.NonReserved).image) },
    ]),
  )

  /** Any identifier or keyword (Postgres ColLabel). */
  label = this.RULE('label', (): string =>
    this.or(0, [
      { ALT: () => fold(this.consume(0, T.Identifier).image) },
      { ALT: () => unquoteIdent(this.consume(1, T.QuotedIdentifier).image) },
      { ALT: () => fold(this.consume(2, T.Keyword).image) },
    ]),
  )

  qualifiedName = this.RULE('qualifiedName', (): A.Name => {
    const start = this.start()
    const parts = [this.subrule(0, this.ident)]
    this.many(0, () => {
      this.consume(0, T.Dot)
      parts.push(this.subrule(1, this.label))
    })
    return { parts, span: this.sp(start) }
  })

  parenIdentList = this.RULE('parenIdentList', (): string[] => {
    this.consume(0, T.LParen)
    const out = [this.subrule(0, this.ident)]
    this.many(0, () => {
      this.consume(1, T.Comma)
      out.push(this.subrule(1, this.ident))
    })
    this.consume(2, T.RParen)
    return out
  })

  exprList = this.RULE('exprList', (): A.Expr[] => {
    const out = [this.subrule(0, this.expr)]
    this.many(0, () => {
      this.consume(0, T.Comma)
      out.push(this.subrule(1, this.expr))
    })
    return out
  })

  // ================================================================================ types

  typeName = this.RULE('typeName', (): A.TypeName => {
    const start = this.start()
    let first = this.subrule(0, this.ident)
    // pg_catalog.oid, pg_catalog.text (psql writes its casts so): every type is pg_catalog's
    this.option(5, {
      GATE: () => first === 'pg_catalog' && is(this.LA(1), T.Dot),
      DEF: () => {
        this.consume(12, T.Dot)
        first = this.subrule(1, this.ident)
      },
    })
    let words = first
    this.option(0, {
      GATE: () => first === 'double' && word(this.LA(1)) === 'precision',
      DEF: () => {
        this.consume(0, T.Identifier)
        words = 'double precision'
      },
    })
    this.option(1, {
      GATE: () => (first === 'character' || first === 'char') && word(this.LA(1)) === 'varying',
      DEF: () => {
        this.consume(1, T.Identifier)
        words = 'character varying'
      },
    })
    this.option(2, {
      GATE: () => (first === 'signed' || first === 'unsigned') && ['int', 'integer'].includes(word(this.LA(1))),
      DEF: () => {
        this.consume(2, T.Identifier)
      },
    })
    const args: number[] = []
    this.option(3, () => {
      this.consume(3, T.LParen)
      // NUMERIC(p, -s): PostgreSQL 15 allows a negative scale
      let sign = this.option(20, () => this.consume(20, T.Minus)) === undefined ? 1 : -1
      args.push(sign * Number(this.consume(4, T.IntegerLiteral).image))
      this.many(0, () => {
        this.consume(5, T.Comma)
        sign = this.option(21, () => this.consume(21, T.Minus)) === undefined ? 1 : -1
        args.push(sign * Number(this.consume(6, T.IntegerLiteral).image))
      })
      this.consume(7, T.RParen)
    })
    this.option(4, {
      GATE: () =>
        (first === 'timestamp' || first === 'time') &&
        (is(this.LA(1), T.WITH) || is(this.LA(1), T.WITHOUT)) &&
        is(this.LA(2), T.TIME),
      DEF: () => {
        const tz = this.or(0, [
          { ALT: () => (this.consume(8, T.WITH), true) },
          { ALT: () => (this.consume(9, T.WITHOUT), false) },
        ])
        this.consume(10, T.TIME)
        this.consume(11, T.ZONE)
        words = `${first} ${tz ? 'with' : 'without'} time zone`
      },
    })
    // integer[], text[][], int[3] (a size is accepted and, as in PostgreSQL, not enforced)
    let arrayDimensions = 0
    this.many(1, () => {
      this.consume(13, T.LBracket)
      this.option(6, () => this.consume(14, T.IntegerLiteral))
      this.consume(15, T.RBracket)
      arrayDimensions++
    })
    return this.ACTION(() => {
      const n = normalizeTypeName(words, args)
      return arrayDimensions > 0 ? { name: n.name, args: n.args, arrayDimensions, span: this.sp(start) } : { name: n.name, args: n.args, span: this.sp(start) }
    })
  })

  // ================================================================================ expressions

  expr = this.RULE('expr', (): A.Expr => this.subrule(0, this.exprBP, { ARGS: [0] }))

  exprBP = this.RULE('exprBP', (minPrec: number): A.Expr => {
    try {
      this.enterNesting()
      const start = this.start()
      let left = this.subrule(0, this.prefixExpr)
      this.many(0, {
        GATE: () => infixPrec(this.LA(1), this.LA(2)) >= minPrec,
        DEF: () => {
          this.infixLeft = left
          this.infixStart = start
          left = this.or(0, this.infixAlts)
        },
      })
      return left
    } finally {
      this.nesting--
    }
  })

  // Alternative arrays are built once (chevrotain's performance guide: "cache arrays of
  // alternatives"), so they cannot close over rule locals: the infix alternatives read the
  // left operand from these fields, set right before the OR and read first thing in each ALT.
  private infixLeft: A.Expr | undefined
  private infixStart = 0

  private readonly cmpOps: IOrAlt<A.BinaryOp>[] = [
    { ALT: () => (this.consume(2, T.Equals), '=') },
    { ALT: () => (this.consume(3, T.NotEqual), '<>') },
    { ALT: () => (this.consume(4, T.BangEqual), '<>') },
    { ALT: () => (this.consume(5, T.Less), '<') },
    { ALT: () => (this.consume(6, T.Greater), '>') },
    { ALT: () => (this.consume(7, T.LessEq), '<=') },
    { ALT: () => (this.consume(8, T.GreaterEq), '>=') },
  ]
  private readonly otherOps: IOrAlt<A.BinaryOp>[] = [
    { ALT: () => (this.consume(9, T.Concat), '||') },
    { ALT: () => (this.consume(10, T.Ampersand), '&') },
    { ALT: () => (this.consume(11, T.Pipe), '|') },
    { ALT: () => (this.consume(12, T.Hash), '#') },
    { ALT: () => (this.consume(13, T.ShiftLeft), '<<') },
    { ALT: () => (this.consume(14, T.ShiftRight), '>>') },
    // binary `~` (regex match); a `~` in prefix position is bitwise NOT (unaryOps)
    { ALT: () => (this.consume(22, T.Tilde), '~') },
    { ALT: () => (this.consume(23, T.TildeStar), '~*') },
    { ALT: () => (this.consume(24, T.BangTilde), '!~') },
    { ALT: () => (this.consume(25, T.BangTildeStar), '!~*') },
    // jsonb
    { ALT: () => (this.consume(29, T.Arrow), '->') },
    { ALT: () => (this.consume(30, T.ArrowText), '->>') },
    { ALT: () => (this.consume(31, T.HashArrow), '#>') },
    { ALT: () => (this.consume(32, T.HashArrowText), '#>>') },
    { ALT: () => (this.consume(33, T.HashMinus), '#-') },
    { ALT: () => (this.consume(34, T.AtGreater), '@>') },
    { ALT: () => (this.consume(35, T.LessAt), '<@') },
    { ALT: () => (this.consume(36, T.Question), '?') },
    { ALT: () => (this.consume(37, T.QuestionPipe), '?|') },
    { ALT: () => (this.consume(38, T.QuestionAmp), '?&') },
  ]
  private readonly addOps: IOrAlt<A.BinaryOp>[] = [
    { ALT: () => (this.consume(15, T.Plus), '+') },
    { ALT: () => (this.consume(16, T.Minus), '-') },
  ]
  private readonly mulOps: IOrAlt<A.BinaryOp>[] = [
    { ALT: () => (this.consume(17, T.Star), '*') },
    { ALT: () => (this.consume(18, T.Slash), '/') },
    { ALT: () => (this.consume(19, T.Percent), '%') },
  ]

  /** One infix operator and its right operand, applied to `infixLeft` (see exprBP). */
  private binaryAlt(ops: IOrAlt<A.BinaryOp>[], orIdx: number, subIdx: number, prec: number): IOrAlt<A.Expr> {
    return {
      ALT: () => {
        const left = this.infixLeft!
        const start = this.infixStart
        const op = this.or(orIdx, ops)
        const right = this.subrule(subIdx, this.exprBP, { ARGS: [prec + 1] })
        return this.binary(op, left, right, start)
      },
    }
  }

  private readonly infixAlts: IOrAlt<A.Expr>[] = [
    {
      ALT: () => {
        const left = this.infixLeft!
        const start = this.infixStart
        this.consume(0, T.OR)
        const right = this.subrule(1, this.exprBP, { ARGS: [Prec.or + 1] })
        return this.binary('or', left, right, start)
      },
    },
    {
      ALT: () => {
        const left = this.infixLeft!
        const start = this.infixStart
        this.consume(1, T.AND)
        const right = this.subrule(2, this.exprBP, { ARGS: [Prec.and + 1] })
        return this.binary('and', left, right, start)
      },
    },
    { ALT: () => this.subrule(3, this.isTail, { ARGS: [this.infixLeft!, this.infixStart] }) },
    {
      ALT: (): A.Expr => {
        const left = this.infixLeft!
        const start = this.infixStart
        const op = this.or(1, this.cmpOps)
        return this.or(5, [
          {
            // x op ANY | SOME | ALL ( array | subquery )
            GATE: () => (is(this.LA(1), T.ALL) || word(this.LA(1)) === 'any' || word(this.LA(1)) === 'some') && is(this.LA(2), T.LParen),
            ALT: () => this.subrule(12, this.quantifiedTail, { ARGS: [op, left, start] }),
          },
          { ALT: () => this.binary(op, left, this.subrule(4, this.exprBP, { ARGS: [Prec.cmp + 1] }), start) },
        ])
      },
    },
    { ALT: () => this.subrule(5, this.predicateTail, { ARGS: [this.infixLeft!, this.infixStart] }) },
    this.binaryAlt(this.otherOps, 2, 6, Prec.other),
    this.binaryAlt(this.addOps, 3, 7, Prec.add),
    this.binaryAlt(this.mulOps, 4, 8, Prec.mul),
    {
      ALT: () => {
        const left = this.infixLeft!
        const start = this.infixStart
        this.consume(20, T.Caret)
        const right = this.subrule(9, this.exprBP, { ARGS: [Prec.exp + 1] })
        return this.binary('^', left, right, start)
      },
    },
    { ALT: () => this.subrule(11, this.wordInfix, { ARGS: [this.infixLeft!, this.infixStart] }) },
    {
      ALT: (): A.Expr => {
        const left = this.infixLeft!
        const start = this.infixStart
        this.consume(21, T.ColonColon)
        const type = this.subrule(10, this.typeName)
        return { kind: 'cast', operand: left, type, shorthand: true, span: this.sp(start) }
      },
    },
    {
      ALT: (): A.Expr => {
        const operand = this.infixLeft!
        const start = this.infixStart
        this.consume(26, T.LBracket)
        const index = this.subrule(13, this.expr)
        const colon = this.option(7, () => this.consume(27, T.Colon))
        if (colon !== undefined) this.ACTION(() => this.fail(SqlState.featureNotSupported, 'array slices (a[i:j]) are not supported', colon.startOffset))
        this.consume(28, T.RBracket)
        return { kind: 'subscript', operand, index, span: this.sp(start) }
      },
    },
  ]

  /** After `x op`: `ANY | SOME | ALL ( array | subquery )`. */
  quantifiedTail = this.RULE('quantifiedTail', (op: A.BinaryOp, operand: A.Expr, start: number): A.Expr => {
    const q = this.or(0, [{ ALT: () => this.consume(0, T.ALL) }, { ALT: () => this.consume(1, T.Identifier) }])
    const body = this.subrule(0, this.parenBody)
    return this.ACTION((): A.Expr => {
      const quantifier = word(q) === 'all' ? 'all' : 'any'
      if (op !== '=' && op !== '<>' && op !== '<' && op !== '>' && op !== '<=' && op !== '>=') this.fail(SqlState.syntaxError, `syntax error at or near "${q.image}"`, q.startOffset)
      const span = this.sp(start)
      if (body.query !== undefined) return { kind: 'quantified', op, quantifier, operand, array: undefined, query: body.query, span }
      if (body.exprs.length !== 1) this.fail(SqlState.syntaxError, `syntax error at or near ","`, body.span.start)
      const only = body.exprs[0]!
      // `x = ANY ((SELECT …))` is a subquery, as in Postgres
      if (only.kind === 'subquery') return { kind: 'quantified', op, quantifier, operand, array: undefined, query: only.query, span }
      return { kind: 'quantified', op, quantifier, operand, array: only, query: undefined, span }
    })
  })

  /** After `operand`: `OPERATOR([pg_catalog.]op) right` — an operator named explicitly, as
   *  psql's describe queries write them (every operator here is pg_catalog's, so the schema
   *  is checked and dropped) — or `COLLATE name`, accepted for the default collations (the
   *  only ones there are: text compares by code point, as PostgreSQL's "C") and dropped. */
  wordInfix = this.RULE('wordInfix', (operand: A.Expr, start: number): A.Expr => {
    const w = this.consume(0, T.Identifier)
    return this.or(0, [
      {
        ALT: (): A.Expr => {
          this.consume(1, T.LParen)
          this.option(0, () => {
            const schema = this.subrule(0, this.ident)
            this.consume(2, T.Dot)
            if (schema !== 'pg_catalog') this.ACTION(() => this.fail(SqlState.undefinedFunction, `schema "${schema}" has no operators (they are pg_catalog's)`, w.startOffset))
          })
          const op = this.or(1, [
            { ALT: () => (this.consume(3, T.Equals), '=' as const) },
            { ALT: () => (this.consume(4, T.NotEqual), '<>' as const) },
            { ALT: () => (this.consume(5, T.Less), '<' as const) },
            { ALT: () => (this.consume(6, T.Greater), '>' as const) },
            { ALT: () => (this.consume(7, T.LessEq), '<=' as const) },
            { ALT: () => (this.consume(8, T.GreaterEq), '>=' as const) },
            { ALT: () => (this.consume(9, T.Concat), '||' as const) },
            { ALT: () => (this.consume(10, T.Tilde), '~' as const) },
            { ALT: () => (this.consume(11, T.TildeStar), '~*' as const) },
            { ALT: () => (this.consume(12, T.BangTilde), '!~' as const) },
            { ALT: () => (this.consume(13, T.BangTildeStar), '!~*' as const) },
            { ALT: () => (this.consume(14, T.Plus), '+' as const) },
            { ALT: () => (this.consume(15, T.Minus), '-' as const) },
            { ALT: () => (this.consume(16, T.Star), '*' as const) },
            { ALT: () => (this.consume(17, T.Slash), '/' as const) },
            { ALT: () => (this.consume(18, T.Percent), '%' as const) },
          ])
          this.consume(19, T.RParen)
          if (word(w) !== 'operator') this.ACTION(() => this.fail(SqlState.syntaxError, `syntax error at or near "${w.image}"`, w.startOffset))
          const right = this.subrule(1, this.exprBP, { ARGS: [Prec.other + 1] })
          return this.binary(op, operand, right, start)
        },
      },
      {
        // `x AT TIME ZONE z`: PostgreSQL's timezone(z, x)
        GATE: () => is(this.LA(1), T.TIME),
        ALT: (): A.Expr => {
          this.consume(20, T.TIME)
          this.consume(21, T.ZONE)
          const zone = this.subrule(3, this.exprBP, { ARGS: [Prec.unary] })
          if (word(w) !== 'at') this.ACTION(() => this.fail(SqlState.syntaxError, `syntax error at or near "${w.image}"`, w.startOffset))
          return { kind: 'func', name: ['timezone'], args: [zone, operand], distinct: false, orderBy: [], filter: undefined, over: undefined, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.Expr => {
          const name = this.subrule(2, this.qualifiedName)
          this.ACTION(() => {
            const parts = name.parts
            const last = parts[parts.length - 1]!
            const known = (parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog')) && (last === 'default' || last === 'C' || last === 'POSIX' || last === 'ucs_basic')
            if (word(w) !== 'collate') this.fail(SqlState.syntaxError, `syntax error at or near "${w.image}"`, w.startOffset)
            if (!known) this.fail('42704', `collation "${parts.join('.')}" does not exist (the default collation, "C", is the only one)`, name.span.start)
          })
          return operand
        },
      },
    ])
  })

  private binary(op: A.BinaryOp, left: A.Expr, right: A.Expr, start: number): A.BinaryExpr {
    return { kind: 'binary', op, left, right, span: this.sp(start) }
  }

  /** `IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM x` after `operand`. */
  isTail = this.RULE('isTail', (operand: A.Expr, start: number): A.Expr => {
    this.consume(0, T.IS)
    let negated = false
    this.option(0, () => {
      this.consume(1, T.NOT)
      negated = true
    })
    return this.or(0, [
      { ALT: () => (this.consume(2, T.NULL), this.isExpr(operand, 'null', negated, start)) },
      { ALT: () => (this.consume(3, T.TRUE), this.isExpr(operand, 'true', negated, start)) },
      { ALT: () => (this.consume(4, T.FALSE), this.isExpr(operand, 'false', negated, start)) },
      { ALT: () => (this.consume(5, T.UNKNOWN), this.isExpr(operand, 'unknown', negated, start)) },
      {
        ALT: () => {
          this.consume(6, T.DISTINCT)
          this.consume(7, T.FROM)
          const right = this.subrule(0, this.exprBP, { ARGS: [Prec.is + 1] })
          return this.binary(negated ? 'is not distinct from' : 'is distinct from', operand, right, start)
        },
      },
    ])
  })

  private isExpr(operand: A.Expr, test: A.IsExpr['test'], negated: boolean, start: number): A.IsExpr {
    return { kind: 'is', operand, test, negated, span: this.sp(start) }
  }

  /** `[NOT] BETWEEN … | [NOT] IN (…) | [NOT] [I]LIKE …` after `operand` (and `NOT NULL`). */
  predicateTail = this.RULE('predicateTail', (operand: A.Expr, start: number): A.Expr => {
    let negated = false
    this.option(0, () => {
      this.consume(0, T.NOT)
      negated = true
    })
    return this.or(0, {
      MAX_LOOKAHEAD: 1,
      DEF: [
        {
          // SQLite's postfix `x NOT NULL` (its sqllogictest files use it) = `x IS NOT NULL`
          GATE: () => negated,
          ALT: (): A.Expr => {
            this.consume(11, T.NULL)
            return { kind: 'is', operand, test: 'null', negated: true, span: this.sp(start) }
          },
        },
        {
          ALT: (): A.Expr => {
            this.consume(1, T.BETWEEN)
            let symmetric = false
            this.option(1, () => {
              this.consume(2, T.SYMMETRIC)
              symmetric = true
            })
            const low = this.subrule(0, this.exprBP, { ARGS: [Prec.like + 1] })
            this.consume(3, T.AND)
            const high = this.subrule(1, this.exprBP, { ARGS: [Prec.like + 1] })
            return { kind: 'between', operand, low, high, negated, symmetric, span: this.sp(start) }
          },
        },
        {
          // `x IN ()` (SQLite; its sqllogictest files use it): an empty list, always false
          GATE: () => is(this.LA(2), T.LParen) && is(this.LA(3), T.RParen),
          ALT: (): A.Expr => {
            this.consume(8, T.IN)
            this.consume(9, T.LParen)
            this.consume(10, T.RParen)
            return { kind: 'inList', operand, list: [], negated, span: this.sp(start) }
          },
        },
        {
          ALT: (): A.Expr => {
            this.consume(4, T.IN)
            const body = this.subrule(2, this.parenBody)
            return this.ACTION((): A.Expr => {
              const span = this.sp(start)
              if (body.query !== undefined) return { kind: 'inSubquery', operand, query: body.query, negated, span }
              const only = body.exprs[0]!
              if (body.exprs.length === 1 && only.kind === 'subquery') {
                // `x IN ((SELECT …))` is an IN-subquery, as in Postgres (select_with_parens)
                return { kind: 'inSubquery', operand, query: only.query, negated, span }
              }
              return { kind: 'inList', operand, list: body.exprs, negated, span }
            })
          },
        },
        {
          ALT: (): A.Expr => {
            const caseInsensitive = this.or(1, [
              { ALT: () => (this.consume(5, T.LIKE), false) },
              { ALT: () => (this.consume(6, T.ILIKE), true) },
            ])
            const pattern = this.subrule(3, this.exprBP, { ARGS: [Prec.like + 1] })
            let escape: A.Expr | undefined
            this.option(2, () => {
              this.consume(7, T.ESCAPE)
              escape = this.subrule(4, this.exprBP, { ARGS: [Prec.like + 1] })
            })
            return { kind: 'like', operand, pattern, escape, negated, caseInsensitive, span: this.sp(start) }
          },
        },
      ],
    })
  })

  prefixExpr = this.RULE('prefixExpr', (): A.Expr => this.or(0, this.prefixAlts))

  private readonly unaryOps: IOrAlt<A.UnaryOp>[] = [
    { ALT: () => (this.consume(1, T.Minus), '-') },
    { ALT: () => (this.consume(2, T.Plus), '+') },
    { ALT: () => (this.consume(3, T.Tilde), '~') },
  ]

  private readonly prefixAlts: IOrAlt<A.Expr>[] = [
    {
      ALT: (): A.Expr => {
        const start = this.start()
        this.consume(0, T.NOT)
        const operand = this.subrule(0, this.exprBP, { ARGS: [Prec.is] })
        return { kind: 'unary', op: 'not', operand, span: this.sp(start) }
      },
    },
    {
      ALT: (): A.Expr => {
        const start = this.start()
        const op = this.or(1, this.unaryOps)
        const operand = this.subrule(1, this.exprBP, { ARGS: [Prec.unary] })
        return { kind: 'unary', op, operand, span: this.sp(start) }
      },
    },
    { ALT: () => this.subrule(2, this.primary) },
  ]

  primary = this.RULE('primary', (): A.Expr => this.or(0, this.primaryOr))

  private lit(value: A.LiteralValue): A.LiteralExpr {
    const t = this.LA(0)
    return { kind: 'literal', value, span: { start: t.startOffset, end: t.startOffset + t.image.length } }
  }

  /** Primary alternatives: LL(1), no gates (so chevrotain dispatches on a token map). */
  private readonly primaryOr: OrMethodOpts<A.Expr> = {
    MAX_LOOKAHEAD: 1,
    DEF: [
      { ALT: () => this.lit({ type: 'integer', text: this.consume(0, T.IntegerLiteral).image }) },
      { ALT: () => this.lit({ type: 'decimal', text: this.consume(1, T.DecimalLiteral).image }) },
      { ALT: () => this.lit({ type: 'string', value: stringValue(this.consume(2, T.StringLiteral)) }) },
      { ALT: () => this.lit({ type: 'string', value: unescapeEString(this.consume(3, T.EString).image) }) },
      { ALT: () => (this.consume(4, T.TRUE), this.lit({ type: 'boolean', value: true })) },
      { ALT: () => (this.consume(5, T.FALSE), this.lit({ type: 'boolean', value: false })) },
      { ALT: () => (this.consume(6, T.NULL), this.lit({ type: 'null' })) },
      {
        ALT: (): A.Expr => {
          const start = this.start()
          const t = this.consume(7, T.Param)
          return { kind: 'param', index: Number(t.image.slice(1)), span: this.sp(start) }
        },
      },
      {
        ALT: (): A.Expr => {
          const body = this.subrule(0, this.parenBody)
          return this.ACTION((): A.Expr => {
            if (body.query !== undefined) return { kind: 'subquery', query: body.query, span: body.span }
            if (body.exprs.length === 1) return body.exprs[0]!
            return { kind: 'row', items: body.exprs, explicit: false, span: body.span }
          })
        },
      },
      { ALT: () => this.subrule(1, this.caseExpr) },
      {
        ALT: (): A.Expr => {
          const start = this.start()
          this.consume(8, T.CAST)
          this.consume(9, T.LParen)
          const operand = this.subrule(2, this.expr)
          this.consume(10, T.AS)
          const type = this.subrule(3, this.typeName)
          this.consume(11, T.RParen)
          return { kind: 'cast', operand, type, shorthand: false, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.Expr => {
          const start = this.start()
          this.consume(12, T.EXISTS)
          this.consume(13, T.LParen)
          const query = this.subrule(4, this.query)
          this.consume(14, T.RParen)
          return { kind: 'exists', query, span: this.sp(start) }
        },
      },
      { ALT: () => this.subrule(5, this.wordPrimary) },
      {
        ALT: (): A.Expr => {
          const start = this.start()
          const t = this.or(2, [
            { ALT: () => this.consume(20, T.CURRENT_DATE) },
            { ALT: () => this.consume(21, T.CURRENT_TIMESTAMP) },
            { ALT: () => this.consume(22, T.CURRENT_TIME) },
            { ALT: () => this.consume(23, T.LOCALTIMESTAMP) },
            { ALT: () => this.consume(24, T.LOCALTIME) },
          ])
          return func([word(t)], [], this.sp(start))
        },
      },
      {
        ALT: (): A.Expr => {
          const start = this.start()
          const t = this.or(3, [{ ALT: () => this.consume(25, T.LEFT) }, { ALT: () => this.consume(26, T.RIGHT) }])
          return this.subrule(12, this.funcCallRest, { ARGS: [[word(t)], start] })
        },
      },
    ],
  }

  /** Primaries that start with an identifier or non-reserved keyword. What the word means is
   *  decided by the gates (on the following tokens) and the order of the alternatives. */
  wordPrimary = this.RULE('wordPrimary', (): A.Expr => this.or(0, this.wordPrimaryOr))

  private readonly wordPrimaryOr: OrMethodOpts<A.Expr> = {
    IGNORE_AMBIGUITIES: true,
    MAX_LOOKAHEAD: 1,
    DEF: [
        { GATE: () => is(this.LA(2), T.LParen), ALT: () => this.subrule(5, this.extractExpr) },
        { GATE: () => is(this.LA(2), T.LParen), ALT: () => this.subrule(6, this.positionExpr) },
        { GATE: () => is(this.LA(2), T.LParen), ALT: () => this.subrule(7, this.substringExpr) },
        { GATE: () => is(this.LA(2), T.LParen), ALT: () => this.subrule(8, this.trimExpr) },
        {
          GATE: () => is(this.LA(2), T.LParen),
          ALT: (): A.Expr => {
            const start = this.start()
            this.consume(15, T.ROW)
            this.consume(16, T.LParen)
            let items: A.Expr[] = []
            this.option(0, () => {
              items = this.subrule(9, this.exprList)
            })
            this.consume(17, T.RParen)
            return { kind: 'row', items, explicit: true, span: this.sp(start) }
          },
        },
        {
          GATE: () => {
            const t = this.LA(2)
            return isString(t) || is(t, T.IntegerLiteral)
          },
          ALT: () => this.subrule(10, this.intervalExpr),
        },
        {
          GATE: () => {
            const t1 = this.LA(1)
            if (isString(this.LA(2))) return true
            const w1 = word(t1)
            if (w1 === 'double') return word(this.LA(2)) === 'precision' && isString(this.LA(3))
            // TIMESTAMP WITH TIME ZONE '…'
            return (
              (w1 === 'timestamp' || w1 === 'time') &&
              (is(this.LA(2), T.WITH) || is(this.LA(2), T.WITHOUT)) &&
              is(this.LA(3), T.TIME) &&
              is(this.LA(4), T.ZONE) &&
              isString(this.LA(5))
            )
          },
          ALT: (): A.Expr => {
            const start = this.start()
            const type = this.subrule(11, this.typeName)
            const value = stringValue(
              this.or(1, [{ ALT: () => this.consume(18, T.StringLiteral) }, { ALT: () => this.consume(19, T.EString) }]),
            )
            return { kind: 'typedLiteral', type, value, span: this.sp(start) }
          },
        },
        {
          GATE: () => word(this.LA(1)) === 'array' && (is(this.LA(2), T.LBracket) || (is(this.LA(2), T.LParen) && isQueryStart(this.LA(3)))),
          ALT: () => this.subrule(14, this.arrayExpr),
        },
        { ALT: () => this.subrule(13, this.columnOrCall) },
    ],
  }

  /** `ARRAY[a, b, …]` (items may be bracketed lists: `ARRAY[[1, 2], [3, 4]]`) or
   *  `ARRAY(SELECT …)`. */
  arrayExpr = this.RULE('arrayExpr', (): A.Expr => {
    const start = this.start()
    this.consume(0, T.Identifier)
    return this.or(0, [
      {
        ALT: (): A.Expr => {
          this.consume(1, T.LParen)
          const query = this.subrule(0, this.query)
          this.consume(2, T.RParen)
          return { kind: 'arraySubquery', query, span: this.sp(start) }
        },
      },
      { ALT: () => this.subrule(1, this.arrayItems, { ARGS: [start] }) },
    ])
  })

  /** An element of ARRAY[…]: an expression, or a bracketed list (a dimension more). */
  arrayItem = this.RULE('arrayItem', (): A.Expr =>
    this.or(0, [{ ALT: () => this.subrule(0, this.arrayItems, { ARGS: [this.start()] }) }, { ALT: () => this.subrule(1, this.expr) }]),
  )

  /** `[item, …]` after ARRAY, where an item is an expression or a bracketed list. */
  arrayItems = this.RULE('arrayItems', (start: number): A.ArrayExpr => {
    try {
      this.enterNesting()
      this.consume(0, T.LBracket)
      const items: A.Expr[] = []
      this.option(0, () => {
        items.push(this.subrule(0, this.arrayItem))
        this.many(0, () => {
          this.consume(1, T.Comma)
          items.push(this.subrule(1, this.arrayItem))
        })
      })
      this.consume(2, T.RBracket)
      return { kind: 'array', items, span: this.sp(start) }
    } finally {
      this.nesting--
    }
  })

  /** `( query )`, `( expr )` or `( expr, … )`; see ParenBody. The caller decides what it is. */
  parenBody = this.RULE('parenBody', (): ParenBody => {
    const start = this.start()
    this.consume(0, T.LParen)
    const result = this.or(0, {
      MAX_LOOKAHEAD: 1,
      DEF: [
        {
          GATE: () => isQueryStart(this.LA(1)),
          ALT: (): ParenBody => ({ query: this.subrule(0, this.query), span: { start: NaN, end: NaN } }),
        },
        {
          ALT: (): ParenBody => {
            const first = this.subrule(1, this.expr)
            const exprs = [first]
            this.many(0, () => {
              this.consume(1, T.Comma)
              exprs.push(this.subrule(2, this.expr))
            })
            let query: A.Query | undefined
            // `((SELECT …) UNION …)`: the first operand was parsed as a scalar subquery; continue
            // as a query whose first set-operation operand is that parenthesized query.
            this.option(0, {
              GATE: () => exprs.length === 1 && first.kind === 'subquery' && isQueryContinuation(this.LA(1)),
              DEF: () => {
                const nested: A.NestedQueryBody = {
                  kind: 'nested',
                  query: (first as A.SubqueryExpr).query,
                  span: first.span,
                }
                query = this.subrule(3, this.queryRest, { ARGS: [nested, spanStart(first), [], false] })
              },
            })
            return query !== undefined ? { query, span: { start: NaN, end: NaN } } : { exprs, span: { start: NaN, end: NaN } }
          },
        },
      ],
    })
    this.consume(2, T.RParen)
    return { ...result, span: this.sp(start) } as ParenBody
  })

  caseExpr = this.RULE('caseExpr', (): A.CaseExpr => {
    const start = this.start()
    this.consume(0, T.CASE)
    let operand: A.Expr | undefined
    this.option(0, () => {
      operand = this.subrule(0, this.expr)
    })
    const whens: { when: A.Expr; then: A.Expr }[] = []
    this.atLeastOne(0, () => {
      this.consume(1, T.WHEN)
      const when = this.subrule(1, this.expr)
      this.consume(2, T.THEN)
      const then = this.subrule(2, this.expr)
      whens.push({ when, then })
    })
    let elseExpr: A.Expr | undefined
    this.option(1, () => {
      this.consume(3, T.ELSE)
      elseExpr = this.subrule(3, this.expr)
    })
    this.consume(4, T.END)
    return { kind: 'case', operand, whens, else: elseExpr, span: this.sp(start) }
  })

  extractExpr = this.RULE('extractExpr', (): A.ExtractExpr => {
    const start = this.start()
    this.consume(0, T.EXTRACT)
    this.consume(1, T.LParen)
    const field = this.or(0, [
      { ALT: () => this.subrule(0, this.label) },
      { ALT: () => stringValue(this.consume(2, T.StringLiteral)).toLowerCase() },
    ])
    this.consume(3, T.FROM)
    const operand = this.subrule(1, this.expr)
    this.consume(4, T.RParen)
    return { kind: 'extract', field, operand, span: this.sp(start) }
  })

  /** `POSITION(needle IN haystack)` → position(haystack, needle), Postgres' argument order
   *  (the same as strpos). `position(a, b)` is accepted as a plain call. */
  positionExpr = this.RULE('positionExpr', (): A.Expr => {
    const start = this.start()
    this.consume(0, T.POSITION)
    this.consume(1, T.LParen)
    const first = this.subrule(0, this.exprBP, { ARGS: [Prec.other] })
    const args = this.or(0, [
      {
        ALT: () => {
          this.consume(2, T.IN)
          const haystack = this.subrule(1, this.expr)
          return [haystack, first]
        },
      },
      {
        ALT: () => {
          const out = [first]
          this.many(0, () => {
            this.consume(3, T.Comma)
            out.push(this.subrule(2, this.expr))
          })
          return out
        },
      },
    ])
    this.consume(4, T.RParen)
    return func(['position'], args, this.sp(start))
  })

  /** `SUBSTRING(s FROM a [FOR b])` → substring(s, a[, b]); `SUBSTRING(s FOR b)` →
   *  substring(s, 1, b) (as Postgres); `substring(s, a, b)` is accepted as a plain call. */
  substringExpr = this.RULE('substringExpr', (): A.Expr => {
    const start = this.start()
    this.consume(0, T.SUBSTRING)
    this.consume(1, T.LParen)
    const s = this.subrule(0, this.expr)
    const args = this.or(0, [
      {
        ALT: () => {
          this.consume(2, T.FROM)
          const out = [s, this.subrule(1, this.expr)]
          this.option(0, () => {
            this.consume(3, T.FOR)
            out.push(this.subrule(2, this.expr))
          })
          return out
        },
      },
      {
        ALT: () => {
          const forTok = this.consume(4, T.FOR)
          const len = this.subrule(3, this.expr)
          const one: A.LiteralExpr = {
            kind: 'literal',
            value: { type: 'integer', text: '1' },
            span: { start: forTok.startOffset, end: forTok.startOffset },
          }
          return [s, one, len]
        },
      },
      {
        ALT: () => {
          const out = [s]
          this.many(0, () => {
            this.consume(5, T.Comma)
            out.push(this.subrule(4, this.expr))
          })
          return out
        },
      },
    ])
    this.consume(6, T.RParen)
    return func(['substring'], args, this.sp(start))
  })

  /** `TRIM([LEADING|TRAILING|BOTH] [chars] FROM s)` → ltrim/rtrim/btrim(s[, chars]);
   *  `TRIM(s[, chars])` → btrim(s[, chars]). */
  trimExpr = this.RULE('trimExpr', (): A.Expr => {
    const start = this.start()
    this.consume(0, T.TRIM)
    this.consume(1, T.LParen)
    let name = 'btrim'
    this.option(0, () => {
      name = this.or(0, [
        { ALT: () => (this.consume(2, T.LEADING), 'ltrim') },
        { ALT: () => (this.consume(3, T.TRAILING), 'rtrim') },
        { ALT: () => (this.consume(4, T.BOTH), 'btrim') },
      ])
    })
    const args = this.or(1, [
      {
        ALT: () => {
          this.consume(5, T.FROM)
          return this.subrule(0, this.exprList)
        },
      },
      {
        ALT: () => {
          const first = this.subrule(1, this.expr)
          return this.or(2, [
            {
              ALT: () => {
                this.consume(6, T.FROM)
                const rest = this.subrule(2, this.exprList)
                return this.ACTION(() => [...rest, first])
              },
            },
            {
              ALT: () => {
                const out = [first]
                this.many(0, () => {
                  this.consume(7, T.Comma)
                  out.push(this.subrule(3, this.expr))
                })
                return out
              },
            },
          ])
        },
      },
    ])
    this.consume(8, T.RParen)
    return func([name], args, this.sp(start))
  })

  intervalExpr = this.RULE('intervalExpr', (): A.IntervalExpr => {
    const start = this.start()
    this.consume(0, T.INTERVAL)
    const value = this.or(0, [
      { ALT: () => stringValue(this.consume(1, T.StringLiteral)) },
      { ALT: () => stringValue(this.consume(2, T.EString)) },
      { ALT: () => this.consume(3, T.IntegerLiteral).image },
    ])
    let unit: string | undefined
    let toUnit: string | undefined
    this.option(0, {
      // a plural unit (Flink's `INTERVAL '10' MINUTES`) is a plain identifier otherwise
      GATE: () => !is(this.LA(1), T.Identifier) || PLURAL_UNITS.has(word(this.LA(1))),
      DEF: () => {
        unit = this.subrule(0, this.intervalUnit)
      },
    })
    this.option(1, {
      GATE: () => unit !== undefined,
      DEF: () => {
        this.consume(4, T.TO)
        toUnit = this.subrule(1, this.intervalUnit)
      },
    })
    return { kind: 'interval', value, unit, toUnit, span: this.sp(start) }
  })

  intervalUnit = this.RULE('intervalUnit', (): string =>
    word(
      this.or(0, [
        { ALT: () => this.consume(0, T.YEAR) },
        { ALT: () => this.consume(1, T.MONTH) },
        { ALT: () => this.consume(2, T.DAY) },
        { ALT: () => this.consume(3, T.HOUR) },
        { ALT: () => this.consume(4, T.MINUTE) },
        { ALT: () => this.consume(5, T.SECOND) },
        { GATE: () => PLURAL_UNITS.has(word(this.LA(1))), ALT: () => this.consume(6, T.Identifier) },
      ]),
    ).replace(/s$/, ''),
  )

  /** `a`, `t.a`, `t.*`, `f(…)`, `s.f(…)`. */
  columnOrCall = this.RULE('columnOrCall', (): A.Expr => {
    const start = this.start()
    const parts = [this.subrule(0, this.ident)]
    this.many(0, {
      MAX_LOOKAHEAD: 1,
      GATE: () => !is(this.LA(2), T.Star),
      DEF: () => {
        this.consume(0, T.Dot)
        parts.push(this.subrule(1, this.label))
      },
    })
    let result: A.Expr | undefined
    this.option(0, () => {
      this.consume(1, T.Dot)
      this.consume(2, T.Star)
      result = { kind: 'star', qualifier: parts, span: this.sp(start) }
    })
    this.option(1, {
      GATE: () => result === undefined,
      DEF: () => {
        result = this.subrule(2, this.funcCallRest, { ARGS: [parts, start] })
      },
    })
    return result ?? { kind: 'column', parts, span: this.sp(start) }
  })

  /** The argument list and trailing FILTER / OVER of a function call named `name`. */
  funcCallRest = this.RULE('funcCallRest', (name: string[], start: number): A.FuncCall => {
    this.consume(0, T.LParen)
    const args: A.Expr[] = []
    let distinct = false
    let orderBy: A.OrderItem[] = []
    this.option(0, {
      DEF: () => {
        const t = this.consume(1, T.Star)
        args.push({ kind: 'star', qualifier: undefined, span: { start: t.startOffset, end: t.startOffset + 1 } })
      },
    })
    this.option(1, {
      GATE: () => args.length === 0,
      DEF: () => {
        this.option(2, () => {
          this.or(0, [
            { ALT: () => (this.consume(2, T.DISTINCT), (distinct = true)) },
            { ALT: () => this.consume(3, T.ALL) },
          ])
        })
        args.push(this.subrule(0, this.expr))
        this.many(0, () => {
          this.consume(4, T.Comma)
          args.push(this.subrule(1, this.expr))
        })
        this.option(3, () => {
          this.consume(5, T.ORDER)
          this.consume(6, T.BY)
          orderBy = this.subrule(2, this.orderList)
        })
      },
    })
    this.consume(7, T.RParen)
    let withinGroup: A.OrderItem[] | undefined
    this.option(6, {
      GATE: () => is(this.LA(2), T.GROUP),
      DEF: () => {
        this.consume(13, T.WITHIN)
        this.consume(14, T.GROUP)
        this.consume(15, T.LParen)
        this.consume(16, T.ORDER)
        this.consume(17, T.BY)
        withinGroup = this.subrule(5, this.orderList)
        this.consume(18, T.RParen)
      },
    })
    let filter: A.Expr | undefined
    this.option(4, {
      GATE: () => is(this.LA(2), T.LParen),
      DEF: () => {
        this.consume(8, T.FILTER)
        this.consume(9, T.LParen)
        this.consume(10, T.WHERE)
        filter = this.subrule(3, this.expr)
        this.consume(11, T.RParen)
      },
    })
    let over: A.WindowSpec | undefined
    this.option(5, {
      GATE: () => is(this.LA(2), T.LParen) || isIdentLike(this.LA(2)),
      DEF: () => {
        const overAt = this.consume(12, T.OVER).startOffset
        this.or(1, [
          { ALT: () => (over = this.subrule(4, this.windowSpec)) },
          {
            ALT: () => {
              const name = this.subrule(5, this.ident)
              over = { base: name, partitionBy: [], orderBy: [], frame: undefined, span: this.sp(overAt) }
            },
          },
        ])
      },
    })
    return { kind: 'func', name, args, distinct, orderBy, filter, over, span: this.sp(start), ...(withinGroup ? { withinGroup } : {}) }
  })

  windowSpec = this.RULE('windowSpec', (): A.WindowSpec => {
    const start = this.start()
    this.consume(0, T.LParen)
    let base: string | undefined
    this.option(2, {
      GATE: () => isIdentLike(this.LA(1)) && !is(this.LA(1), T.PARTITION) && !is(this.LA(1), T.ORDER) && !is(this.LA(1), T.ROWS) && !is(this.LA(1), T.RANGE),
      DEF: () => {
        base = this.subrule(2, this.ident)
      },
    })
    let partitionBy: A.Expr[] = []
    let orderBy: A.OrderItem[] = []
    this.option(0, () => {
      this.consume(1, T.PARTITION)
      this.consume(2, T.BY)
      partitionBy = this.subrule(0, this.exprList)
    })
    this.option(1, () => {
      this.consume(3, T.ORDER)
      this.consume(4, T.BY)
      orderBy = this.subrule(1, this.orderList)
    })
    let frame: A.WindowFrame | undefined
    this.option(3, () => {
      frame = this.subrule(3, this.windowFrame)
    })
    this.consume(5, T.RParen)
    return { base, partitionBy, orderBy, frame, span: this.sp(start) }
  })

  /** `ROWS | RANGE BETWEEN bound AND bound`, or one bound (the frame then ends at CURRENT ROW). */
  windowFrame = this.RULE('windowFrame', (): A.WindowFrame => {
    const start = this.start()
    const mode = this.or(0, [{ ALT: () => (this.consume(0, T.ROWS), 'rows' as const) }, { ALT: () => (this.consume(1, T.RANGE), 'range' as const) }])
    return this.or(1, [
      {
        ALT: (): A.WindowFrame => {
          this.consume(2, T.BETWEEN)
          const from = this.subrule(0, this.frameBound)
          this.consume(3, T.AND)
          const to = this.subrule(1, this.frameBound)
          return { mode, start: from, end: to, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.WindowFrame => {
          const from = this.subrule(2, this.frameBound)
          return { mode, start: from, end: { kind: 'currentRow', span: from.span }, span: this.sp(start) }
        },
      },
    ])
  })

  /** `UNBOUNDED PRECEDING | UNBOUNDED FOLLOWING | CURRENT ROW | offset PRECEDING | offset FOLLOWING`. */
  frameBound = this.RULE('frameBound', (): A.FrameBound => {
    const start = this.start()
    return this.or(0, {
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          GATE: () => is(this.LA(1), T.UNBOUNDED) && (is(this.LA(2), T.PRECEDING) || is(this.LA(2), T.FOLLOWING)),
          ALT: (): A.FrameBound => {
            this.consume(0, T.UNBOUNDED)
            const kind = this.or(1, [{ ALT: () => (this.consume(1, T.PRECEDING), 'unboundedPreceding' as const) }, { ALT: () => (this.consume(2, T.FOLLOWING), 'unboundedFollowing' as const) }])
            return { kind, span: this.sp(start) }
          },
        },
        {
          GATE: () => is(this.LA(1), T.CURRENT) && is(this.LA(2), T.ROW),
          ALT: (): A.FrameBound => {
            this.consume(3, T.CURRENT)
            this.consume(4, T.ROW)
            return { kind: 'currentRow', span: this.sp(start) }
          },
        },
        {
          ALT: (): A.FrameBound => {
            const offset = this.subrule(0, this.exprBP, { ARGS: [Prec.not] })
            const kind = this.or(2, [{ ALT: () => (this.consume(5, T.PRECEDING), 'preceding' as const) }, { ALT: () => (this.consume(6, T.FOLLOWING), 'following' as const) }])
            return { kind, offset, span: this.sp(start) }
          },
        },
      ],
    })
  })

  orderList = this.RULE('orderList', (): A.OrderItem[] => {
    const out = [this.subrule(0, this.orderItem)]
    this.many(0, () => {
      this.consume(0, T.Comma)
      out.push(this.subrule(1, this.orderItem))
    })
    return out
  })

  orderItem = this.RULE('orderItem', (): A.OrderItem => {
    const start = this.start()
    const expr = this.subrule(0, this.expr)
    let desc = false
    let nullsFirst: boolean | undefined
    this.option(0, () => {
      this.or(0, [
        { ALT: () => this.consume(0, T.ASC) },
        { ALT: () => (this.consume(1, T.DESC), (desc = true)) },
      ])
    })
    this.option(1, () => {
      this.consume(2, T.NULLS)
      nullsFirst = this.or(1, [
        { ALT: () => (this.consume(3, T.FIRST), true) },
        { ALT: () => (this.consume(4, T.LAST), false) },
      ])
    })
    return { expr, desc, nullsFirst, span: this.sp(start) }
  })

  // ================================================================================ queries

  query = this.RULE('query', (): A.Query => {
    try {
      this.enterNesting()
      const start = this.start()
      const ctes: A.Cte[] = []
      let recursive = false
      this.option(0, () => {
        this.consume(0, T.WITH)
        this.option(1, {
          GATE: () => isIdentLike(this.LA(2)),
          DEF: () => {
            this.consume(1, T.RECURSIVE)
            recursive = true
          },
        })
        ctes.push(this.subrule(0, this.cte))
        this.many(0, () => {
          this.consume(2, T.Comma)
          ctes.push(this.subrule(1, this.cte))
        })
      })
      const first = this.subrule(1, this.queryPrimary)
      return this.subrule(2, this.queryRest, { ARGS: [first, start, ctes, recursive] })
    } finally {
      this.nesting--
    }
  })

  /** Everything after the first set-operation operand of a query. */
  queryRest = this.RULE('queryRest', (first: A.QueryBody, start: number, ctes: A.Cte[], recursive: boolean): A.Query => {
    const body = this.subrule(0, this.setOpTail, { ARGS: [first] })
    let orderBy: A.OrderItem[] = []
    this.option(0, () => {
      this.consume(0, T.ORDER)
      this.consume(1, T.BY)
      orderBy = this.subrule(1, this.orderList)
    })
    let limit: A.Expr | undefined
    let withTies = false
    let offset: A.Expr | undefined
    let limitSeen = false
    this.option(1, {
      MAX_LOOKAHEAD: 1,
      DEF: () => {
        const l = this.subrule(2, this.limitClause)
        limit = l.value
        withTies = l.withTies
        limitSeen = true
      },
    })
    this.option(2, () => {
      this.consume(2, T.OFFSET)
      offset = this.subrule(3, this.expr)
      this.option(3, () => {
        this.or(0, [{ ALT: () => this.consume(3, T.ROW) }, { ALT: () => this.consume(4, T.ROWS) }])
      })
    })
    this.option(4, {
      MAX_LOOKAHEAD: 1,
      GATE: () => !limitSeen,
      DEF: () => {
        const l = this.subrule(4, this.limitClause)
        limit = l.value
        withTies = l.withTies
      },
    })
    let emitOnWindowClose = false
    this.option(5, () => {
      this.consume(5, T.EMIT)
      this.consume(6, T.ON)
      this.consume(7, T.WINDOW)
      this.consume(8, T.CLOSE)
      emitOnWindowClose = true
    })
    return {
      kind: 'query',
      with: ctes,
      recursive,
      body,
      orderBy,
      limit,
      withTies,
      offset,
      emitOnWindowClose,
      span: this.sp(start),
    }
  })

  /** `LIMIT n | LIMIT ALL | FETCH {FIRST|NEXT} [n] {ROW|ROWS} {ONLY | WITH TIES}`; value
   *  undefined = no limit. */
  limitClause = this.RULE('limitClause', (): { value: A.Expr | undefined; withTies: boolean } =>
    this.or(0, [
      {
        ALT: () => {
          this.consume(0, T.LIMIT)
          return this.or(1, [
            { ALT: () => (this.consume(1, T.ALL), { value: undefined, withTies: false }) },
            { ALT: () => ({ value: this.subrule(0, this.expr), withTies: false }) },
          ])
        },
      },
      {
        ALT: () => {
          const fetch = this.consume(2, T.FETCH)
          this.or(2, [{ ALT: () => this.consume(3, T.FIRST) }, { ALT: () => this.consume(4, T.NEXT) }])
          let value: A.Expr | undefined
          this.option(0, {
            MAX_LOOKAHEAD: 1,
            GATE: () => !is(this.LA(1), T.ROW) && !is(this.LA(1), T.ROWS),
            DEF: () => {
              value = this.subrule(1, this.expr)
            },
          })
          this.or(3, [{ ALT: () => this.consume(5, T.ROW) }, { ALT: () => this.consume(6, T.ROWS) }])
          const withTies = this.or(4, [
            { ALT: () => (this.consume(7, T.ONLY), false) },
            { ALT: () => (this.consume(8, T.WITH), this.consume(9, T.TIES), true) },
          ])
          if (value === undefined) {
            value = { kind: 'literal', value: { type: 'integer', text: '1' }, span: this.sp(fetch.startOffset) }
          }
          return { value, withTies }
        },
      },
    ]),
  )

  cte = this.RULE('cte', (): A.Cte => {
    const start = this.start()
    const name = this.subrule(0, this.ident)
    let columns: string[] = []
    this.option(0, () => {
      columns = this.subrule(1, this.parenIdentList)
    })
    this.consume(0, T.AS)
    this.option(1, () => {
      this.option(2, () => this.consume(1, T.NOT))
      this.consume(2, T.MATERIALIZED)
    })
    this.consume(3, T.LParen)
    const query = this.subrule(2, this.query)
    this.consume(4, T.RParen)
    return { name, columns, query, span: this.sp(start) }
  })

  /** UNION / EXCEPT (left-assoc) over INTERSECT terms, starting from an already parsed operand. */
  setOpTail = this.RULE('setOpTail', (first: A.QueryBody): A.QueryBody => {
    const start = spanStart(first)
    let left = this.subrule(0, this.intersectTail, { ARGS: [first] })
    this.many(0, () => {
      const op = this.or(0, [
        { ALT: (): A.SetOp => (this.consume(0, T.UNION), 'union') },
        { ALT: (): A.SetOp => (this.consume(1, T.EXCEPT), 'except') },
      ])
      const all = this.subrule(1, this.setQuantifier)
      const primary = this.subrule(2, this.queryPrimary)
      const right = this.subrule(3, this.intersectTail, { ARGS: [primary] })
      left = { kind: 'setOp', op, all, left, right, span: this.sp(start) }
    })
    return left
  })

  intersectTail = this.RULE('intersectTail', (first: A.QueryBody): A.QueryBody => {
    const start = spanStart(first)
    let left = first
    this.many(0, () => {
      this.consume(0, T.INTERSECT)
      const all = this.subrule(0, this.setQuantifier)
      const right = this.subrule(1, this.queryPrimary)
      left = { kind: 'setOp', op: 'intersect', all, left, right, span: this.sp(start) }
    })
    return left
  })

  setQuantifier = this.RULE('setQuantifier', (): boolean => {
    let all = false
    this.option(0, () => {
      this.or(0, [
        { ALT: () => (this.consume(0, T.ALL), (all = true)) },
        { ALT: () => this.consume(1, T.DISTINCT) },
      ])
    })
    return all
  })

  queryPrimary = this.RULE('queryPrimary', (): A.QueryBody =>
    this.or(0, [
      { ALT: () => this.subrule(0, this.selectBody) },
      { ALT: () => this.subrule(1, this.valuesBody) },
      {
        ALT: (): A.QueryBody => {
          const start = this.start()
          this.consume(0, T.LParen)
          const query = this.subrule(2, this.query)
          this.consume(1, T.RParen)
          return { kind: 'nested', query, span: this.sp(start) }
        },
      },
    ]),
  )

  valuesBody = this.RULE('valuesBody', (): A.ValuesBody => {
    const start = this.start()
    this.consume(0, T.VALUES)
    const rows = [this.subrule(0, this.valuesRow)]
    this.many(0, () => {
      this.consume(1, T.Comma)
      rows.push(this.subrule(1, this.valuesRow))
    })
    return { kind: 'values', rows, span: this.sp(start) }
  })

  valuesRow = this.RULE('valuesRow', (): A.Expr[] => {
    this.consume(0, T.LParen)
    const items = this.subrule(0, this.exprList)
    this.consume(1, T.RParen)
    return items
  })

  selectBody = this.RULE('selectBody', (): A.SelectBody => {
    const start = this.start()
    this.consume(0, T.SELECT)
    let distinct = false
    let distinctOn: A.Expr[] | undefined
    this.option(0, () => {
      this.or(0, [
        { ALT: () => this.consume(1, T.ALL) },
        {
          ALT: () => {
            this.consume(2, T.DISTINCT)
            distinct = true
            this.option(1, () => {
              this.consume(3, T.ON)
              this.consume(4, T.LParen)
              distinctOn = this.subrule(0, this.exprList)
              this.consume(5, T.RParen)
            })
          },
        },
      ])
    })
    const items = this.subrule(1, this.selectList)
    let from: A.TableRef | undefined
    this.option(2, () => {
      this.consume(6, T.FROM)
      from = this.subrule(2, this.fromList)
    })
    let where: A.Expr | undefined
    this.option(3, () => {
      this.consume(7, T.WHERE)
      where = this.subrule(3, this.expr)
    })
    let groupBy: A.GroupByItem[] = []
    let groupByDistinct = false
    this.option(4, () => {
      this.consume(8, T.GROUP)
      this.consume(9, T.BY)
      this.option(10, () => {
        this.or(10, [
          { ALT: () => (this.consume(10, T.DISTINCT), (groupByDistinct = true)) },
          { ALT: () => this.consume(11, T.ALL) },
        ])
      })
      groupBy = this.subrule(4, this.groupByList)
    })
    let having: A.Expr | undefined
    this.option(5, () => {
      this.consume(10, T.HAVING)
      having = this.subrule(5, this.expr)
    })
    let windows: A.NamedWindow[] | undefined
    this.option(6, () => {
      this.consume(11, T.WINDOW)
      const list = [this.subrule(6, this.namedWindow)]
      this.many(0, () => {
        this.consume(12, T.Comma)
        list.push(this.subrule(7, this.namedWindow))
      })
      windows = list
    })
    return { kind: 'select', distinct, distinctOn, items, from, where, groupBy, ...(groupByDistinct ? { groupByDistinct } : {}), having, ...(windows ? { windows } : {}), span: this.sp(start) }
  })

  /** `name AS (window spec)` in a WINDOW clause. */
  namedWindow = this.RULE('namedWindow', (): A.NamedWindow => {
    const start = this.start()
    const name = this.subrule(0, this.ident)
    this.consume(0, T.AS)
    const spec = this.subrule(1, this.windowSpec)
    return { name, spec, span: this.sp(start) }
  })

  /** GROUP BY's items, `()`, `ROLLUP (…)`, `CUBE (…)` and `GROUPING SETS (…)` among them. */
  groupByList = this.RULE('groupByList', (): A.GroupByItem[] => {
    const out = [this.subrule(0, this.groupByItem)]
    this.many(0, () => {
      this.consume(0, T.Comma)
      out.push(this.subrule(1, this.groupByItem))
    })
    return out
  })

  /** ROLLUP, CUBE and GROUPING are not keywords: the words mean grouping sets only here, and
   *  only before their parenthesis (`rollup(x)` elsewhere is a call). */
  groupByItem = this.RULE('groupByItem', (): A.GroupByItem => this.or(0, this.groupByItemOr))

  private readonly groupByItemOr: OrMethodOpts<A.GroupByItem> = {
    IGNORE_AMBIGUITIES: true,
    MAX_LOOKAHEAD: 1,
    DEF: [
      {
        // `()`: the empty grouping set, an implicit row of no expressions
        GATE: () => is(this.LA(2), T.RParen),
        ALT: (): A.GroupByItem => {
          const start = this.start()
          this.consume(0, T.LParen)
          this.consume(1, T.RParen)
          return { kind: 'row', items: [], explicit: false, span: this.sp(start) }
        },
      },
      {
        GATE: () => is(this.LA(1), T.Identifier) && (word(this.LA(1)) === 'rollup' || word(this.LA(1)) === 'cube') && is(this.LA(2), T.LParen),
        ALT: (): A.GroupByItem => {
          const start = this.start()
          const form = word(this.consume(2, T.Identifier)) === 'rollup' ? 'rollup' : 'cube'
          this.consume(3, T.LParen)
          const elements = this.subrule(0, this.exprList)
          this.consume(4, T.RParen)
          return { kind: 'groupingSets', form, elements, span: this.sp(start) }
        },
      },
      {
        GATE: () => is(this.LA(1), T.Identifier) && word(this.LA(1)) === 'grouping' && is(this.LA(2), T.Identifier) && word(this.LA(2)) === 'sets',
        ALT: (): A.GroupByItem => {
          const start = this.start()
          this.consume(5, T.Identifier)
          this.consume(6, T.Identifier)
          this.consume(7, T.LParen)
          const elements = this.subrule(1, this.groupByList)
          this.consume(8, T.RParen)
          return { kind: 'groupingSets', form: 'sets', elements, span: this.sp(start) }
        },
      },
      { ALT: (): A.GroupByItem => this.subrule(2, this.expr) },
    ],
  }

  selectList = this.RULE('selectList', (): A.SelectItem[] => {
    const out = [this.subrule(0, this.selectItem)]
    this.many(0, () => {
      this.consume(0, T.Comma)
      out.push(this.subrule(1, this.selectItem))
    })
    return out
  })

  selectItem = this.RULE('selectItem', (): A.SelectItem => {
    const start = this.start()
    return this.or(0, [
      {
        ALT: (): A.SelectItem => {
          const t = this.consume(0, T.Star)
          const span = this.sp(start)
          return { expr: { kind: 'star', qualifier: undefined, span: { start: t.startOffset, end: span.end } }, alias: undefined, span }
        },
      },
      {
        ALT: (): A.SelectItem => {
          const expr = this.subrule(0, this.expr)
          let alias: string | undefined
          this.option(0, {
            GATE: () => canStartAlias(this.LA(1)),
            DEF: () => {
              alias = this.or(1, [
                {
                  ALT: () => {
                    this.consume(1, T.AS)
                    return this.subrule(1, this.label)
                  },
                },
                { ALT: () => this.subrule(2, this.ident) },
              ])
            },
          })
          return { expr, alias, span: this.sp(start) }
        },
      },
    ])
  })

  // ================================================================================ FROM

  fromList = this.RULE('fromList', (): A.TableRef => {
    const start = this.start()
    let left = this.subrule(0, this.tableRef)
    this.many(0, () => {
      this.consume(0, T.Comma)
      const right = this.subrule(1, this.tableRef)
      left = {
        kind: 'join',
        type: 'cross',
        left,
        right,
        on: undefined,
        using: undefined,
        natural: false,
        comma: true,
        span: this.sp(start),
      }
    })
    return left
  })

  tableRef = this.RULE('tableRef', (): A.TableRef => {
    const start = this.start()
    let left = this.subrule(0, this.tablePrimary)
    this.many(0, {
      // a word continues the FROM item only as ASOF JOIN
      GATE: () => !is(this.LA(1), T.Identifier) || isAsofJoin(this.LA(1), this.LA(2), this.LA(3)),
      DEF: () => {
        left = this.subrule(1, this.joinTail, { ARGS: [left, start] })
      },
    })
    return left
  })

  joinTail = this.RULE('joinTail', (left: A.TableRef, start: number): A.JoinTableRef => {
    const join = (
      type: A.JoinType,
      right: A.TableRef,
      natural: boolean,
      qual: { on?: A.Expr; using?: string[] },
    ): A.JoinTableRef => ({
      kind: 'join',
      type,
      left,
      right,
      on: qual.on,
      using: qual.using,
      natural,
      comma: false,
      span: this.sp(start),
    })
    return this.or(0, [
      {
        ALT: () => {
          this.consume(0, T.CROSS)
          this.consume(1, T.JOIN)
          const right = this.subrule(0, this.tablePrimary)
          return join('cross', right, false, {})
        },
      },
      {
        ALT: () => {
          this.consume(2, T.NATURAL)
          let type: A.JoinType = 'inner'
          this.option(0, () => {
            type = this.subrule(1, this.joinType)
          })
          this.consume(3, T.JOIN)
          const right = this.subrule(2, this.tablePrimary)
          return join(type, right, true, {})
        },
      },
      {
        // ASOF [LEFT] JOIN (DuckDB, RisingWave): `asof` is not a keyword, so a gate tells it
        // from a table alias
        GATE: () => isAsofJoin(this.LA(1), this.LA(2), this.LA(3)),
        ALT: () => {
          this.consume(7, T.Identifier)
          let type: A.JoinType = 'asof'
          this.option(3, () => {
            this.consume(8, T.LEFT)
            this.option(4, () => this.consume(9, T.OUTER))
            type = 'asof left'
          })
          this.consume(10, T.JOIN)
          const right = this.subrule(7, this.tablePrimary)
          this.consume(11, T.ON)
          return join(type, right, false, { on: this.subrule(8, this.expr) })
        },
      },
      {
        ALT: () => {
          let type: A.JoinType = 'inner'
          this.option(1, () => {
            type = this.subrule(3, this.joinType)
          })
          this.consume(4, T.JOIN)
          const right = this.subrule(4, this.tablePrimary)
          const qual = this.or(1, [
            {
              ALT: () => {
                this.consume(5, T.ON)
                return { on: this.subrule(5, this.expr) }
              },
            },
            {
              ALT: () => {
                this.consume(6, T.USING)
                return { using: this.subrule(6, this.parenIdentList) }
              },
            },
          ])
          return join(type, right, false, qual)
        },
      },
    ])
  })

  joinType = this.RULE('joinType', (): A.JoinType =>
    this.or(0, [
      { ALT: (): A.JoinType => (this.consume(0, T.INNER), 'inner') },
      {
        ALT: (): A.JoinType => {
          this.consume(1, T.LEFT)
          this.option(0, () => this.consume(2, T.OUTER))
          return 'left'
        },
      },
      {
        ALT: (): A.JoinType => {
          this.consume(3, T.RIGHT)
          this.option(1, () => this.consume(4, T.OUTER))
          return 'right'
        },
      },
      {
        ALT: (): A.JoinType => {
          this.consume(5, T.FULL)
          this.option(2, () => this.consume(6, T.OUTER))
          return 'full'
        },
      },
    ]),
  )

  /** Succeeds iff the input starts with `( query )` — used to tell `((SELECT …) UNION …) t`
   *  from `((SELECT …) s JOIN t ON …)` in FROM. */
  parenQueryProbe = this.RULE('parenQueryProbe', (): void => {
    this.consume(0, T.LParen)
    this.subrule(0, this.query)
    this.consume(1, T.RParen)
  })

  tablePrimary = this.RULE('tablePrimary', (): A.TableRef => {
    const start = this.start()
    return this.or(0, {
      IGNORE_AMBIGUITIES: true,
      MAX_LOOKAHEAD: 1,
      DEF: [
        {
          GATE: () => {
            if (!is(this.LA(1), T.LParen)) return false
            const t2 = this.LA(2)
            if (isQueryStart(t2)) return true
            return is(t2, T.LParen) && this.BACKTRACK(this.parenQueryProbe).call(this)
          },
          ALT: (): A.TableRef => {
            this.consume(0, T.LParen)
            const query = this.subrule(0, this.query)
            this.consume(1, T.RParen)
            const alias = this.subrule(1, this.optTableAlias)
            return this.ACTION((): A.TableRef => {
              const span = this.sp(start)
              if (isPlainValues(query)) return { kind: 'values', values: query.body as A.ValuesBody, alias, span }
              return { kind: 'subquery', query, alias, lateral: false, span }
            })
          },
        },
        {
          ALT: (): A.TableRef => {
            this.consume(2, T.LParen)
            const inner = this.subrule(2, this.fromList)
            this.consume(3, T.RParen)
            return inner
          },
        },
        {
          ALT: (): A.TableRef => {
            this.consume(4, T.LATERAL)
            return this.or(3, [
              {
                ALT: (): A.TableRef => {
                  this.consume(5, T.LParen)
                  const query = this.subrule(3, this.query)
                  this.consume(6, T.RParen)
                  const alias = this.subrule(4, this.optTableAlias)
                  return { kind: 'subquery', query, alias, lateral: true, span: this.sp(start) }
                },
              },
              {
                // `LATERAL f(…)`: functions in FROM may always refer to earlier FROM items (as in
                // Postgres), so the word adds nothing and is dropped
                ALT: (): A.TableRef => {
                  const name = this.subrule(14, this.qualifiedName)
                  const fn = this.subrule(15, this.tableFunctionRest, { ARGS: [name, start] })
                  const alias = this.subrule(16, this.optTableAlias)
                  return { ...fn, alias, span: this.sp(start) }
                },
              },
            ])
          },
        },
        {
          // Flink style `TABLE(TUMBLE(…))`: the wrapper is dropped
          ALT: (): A.TableRef => {
            this.consume(7, T.TABLE)
            this.consume(8, T.LParen)
            const name = this.subrule(5, this.qualifiedName)
            const fn = this.subrule(6, this.tableFunctionRest, { ARGS: [name, start] })
            this.consume(9, T.RParen)
            const alias = this.subrule(7, this.optTableAlias)
            return { ...fn, alias, span: this.sp(start) }
          },
        },
        {
          ALT: (): A.TableRef => {
            const name = this.subrule(8, this.qualifiedName)
            return this.or(1, [
              {
                GATE: () => is(this.LA(1), T.LParen),
                ALT: (): A.TableRef => {
                  const fn = this.subrule(9, this.tableFunctionRest, { ARGS: [name, start] })
                  const alias = this.subrule(10, this.optTableAlias)
                  return { ...fn, alias, span: this.sp(start) }
                },
              },
              {
                ALT: (): A.TableRef => {
                  let asOf: A.Expr | undefined
                  this.option(0, () => {
                    this.consume(10, T.FOR)
                    this.consume(11, T.SYSTEM_TIME)
                    this.consume(12, T.AS)
                    this.consume(13, T.OF)
                    asOf = this.subrule(11, this.expr)
                  })
                  const alias = this.subrule(12, this.optTableAlias)
                  // SQLite's `NOT INDEXED` / `INDEXED BY i` (used by its sqllogictest files):
                  // index hints never change a result, so they are accepted and dropped
                  this.option(1, {
                    GATE: () =>
                      (is(this.LA(1), T.NOT) && word(this.LA(2)) === 'indexed') ||
                      (word(this.LA(1)) === 'indexed' && is(this.LA(2), T.BY)),
                    DEF: () => {
                      this.or(2, [
                        {
                          ALT: () => {
                            this.consume(14, T.NOT)
                            this.consume(15, T.Identifier)
                          },
                        },
                        {
                          ALT: () => {
                            this.consume(16, T.Identifier)
                            this.consume(17, T.BY)
                            this.subrule(13, this.ident)
                          },
                        },
                      ])
                    },
                  })
                  return { kind: 'table', name, alias, asOf, span: this.sp(start) }
                },
              },
            ])
          },
        },
      ],
    })
  })

  tableFunctionRest = this.RULE('tableFunctionRest', (name: A.Name, start: number): A.FunctionTableRef => {
    this.consume(0, T.LParen)
    const args: A.TableFunctionArg[] = []
    this.option(0, () => {
      args.push(this.subrule(0, this.tableFunctionArg))
      this.many(0, () => {
        this.consume(1, T.Comma)
        args.push(this.subrule(1, this.tableFunctionArg))
      })
    })
    this.consume(2, T.RParen)
    return { kind: 'function', name: name?.parts, args, alias: undefined, span: this.sp(start) }
  })

  tableFunctionArg = this.RULE('tableFunctionArg', (): A.TableFunctionArg => {
    const start = this.start()
    return this.or(0, {
      IGNORE_AMBIGUITIES: true,
      MAX_LOOKAHEAD: 1,
      DEF: [
        {
          ALT: (): A.TableFunctionArg => {
            this.consume(0, T.TABLE)
            const name = this.subrule(0, this.qualifiedName)
            // `PARTITION BY k` or `PARTITION BY (k1, k2)`: a bare list would swallow the
            // following arguments
            let partitionBy: A.Expr[] = []
            this.option(0, () => {
              this.consume(1, T.PARTITION)
              this.consume(2, T.BY)
              const key = this.subrule(1, this.expr)
              partitionBy = this.ACTION(() => (key.kind === 'row' && !key.explicit ? [...key.items] : [key]))
            })
            return { kind: 'table', name, partitionBy, span: this.sp(start) }
          },
        },
        {
          GATE: () => is(this.LA(2), T.LParen),
          ALT: (): A.TableFunctionArg => {
            this.consume(3, T.DESCRIPTOR)
            const columns = this.subrule(2, this.parenIdentList)
            return { kind: 'descriptor', columns, span: this.sp(start) }
          },
        },
        { ALT: (): A.TableFunctionArg => ({ kind: 'expr', expr: this.subrule(3, this.expr) }) },
      ],
    })
  })

  /** `[AS] name [(col, …)]`, or nothing. A bare name must not be a word that continues the
   *  statement (see notBareAlias). */
  optTableAlias = this.RULE('optTableAlias', (): A.TableAlias | undefined => {
    let alias: A.TableAlias | undefined
    this.option(0, {
      GATE: () => canStartAlias(this.LA(1)) && !isAsofJoin(this.LA(1), this.LA(2), this.LA(3)),
      DEF: () => {
        this.option(1, () => this.consume(0, T.AS))
        const name = this.subrule(0, this.ident)
        let columns: string[] = []
        this.option(2, () => {
          columns = this.subrule(1, this.parenIdentList)
        })
        alias = { name, columns }
      },
    })
    return alias
  })

  /** `[AS] name` (UPDATE / DELETE target alias). */
  optSimpleAlias = this.RULE('optSimpleAlias', (): string | undefined => {
    let alias: string | undefined
    this.option(0, {
      GATE: () => canStartAlias(this.LA(1)),
      DEF: () => {
        this.option(1, () => this.consume(0, T.AS))
        alias = this.subrule(0, this.ident)
      },
    })
    return alias
  })

  // ================================================================================ DML

  /** `INSERT [OR REPLACE | OR IGNORE] INTO …` and SQLite's `REPLACE INTO …`. */
  insertStmt = this.RULE('insertStmt', (): A.InsertStmt => {
    const start = this.start()
    let or: A.InsertStmt['or']
    let replaceInto = false
    this.or(1, [
      {
        ALT: () => {
          this.consume(0, T.INSERT)
          this.option(5, () => {
            this.consume(10, T.OR)
            or = this.or(2, [
              { ALT: () => (this.consume(11, T.REPLACE), 'replace' as const) },
              { ALT: () => (this.consume(12, T.IGNORE), 'ignore' as const) },
            ])
          })
        },
      },
      {
        ALT: () => {
          this.consume(13, T.REPLACE)
          or = 'replace'
          replaceInto = true
        },
      },
    ])
    this.consume(1, T.INTO)
    const table = this.subrule(0, this.qualifiedName)
    let columns: string[] | undefined
    this.option(0, {
      GATE: () => isIdentLike(this.LA(2)),
      DEF: () => {
        columns = this.subrule(1, this.parenIdentList)
      },
    })
    const source = this.subrule(2, this.query)
    let onConflict: A.OnConflict | undefined
    this.option(1, () => {
      const ocStart = this.start()
      this.consume(2, T.ON)
      this.consume(3, T.CONFLICT)
      let target: string[] = []
      this.option(2, () => {
        target = this.subrule(3, this.parenIdentList)
      })
      this.consume(4, T.DO)
      onConflict = this.or(0, [
        {
          ALT: (): A.OnConflict => {
            this.consume(5, T.NOTHING)
            return { target, set: undefined, where: undefined, span: this.sp(ocStart) }
          },
        },
        {
          ALT: (): A.OnConflict => {
            this.consume(6, T.UPDATE)
            this.consume(7, T.SET)
            const set = this.subrule(4, this.assignments)
            let where: A.Expr | undefined
            this.option(3, () => {
              this.consume(8, T.WHERE)
              where = this.subrule(5, this.expr)
            })
            return { target, set, where, span: this.sp(ocStart) }
          },
        },
      ])
    })
    let returning: A.SelectItem[] | undefined
    this.option(4, () => {
      this.consume(9, T.RETURNING)
      returning = this.subrule(6, this.selectList)
    })
    return { kind: 'insert', or, replaceInto, table, columns, source, onConflict, returning, span: this.sp(start) }
  })

  assignments = this.RULE('assignments', (): A.Assignment[] => {
    const out = [this.subrule(0, this.assignment)]
    this.many(0, () => {
      this.consume(0, T.Comma)
      out.push(this.subrule(1, this.assignment))
    })
    return out
  })

  assignment = this.RULE('assignment', (): A.Assignment => {
    const start = this.start()
    const column = this.subrule(0, this.ident)
    this.consume(0, T.Equals)
    const value = this.subrule(1, this.expr)
    return { column, value, span: this.sp(start) }
  })

  updateStmt = this.RULE('updateStmt', (): A.UpdateStmt => {
    const start = this.start()
    this.consume(0, T.UPDATE)
    const table = this.subrule(0, this.qualifiedName)
    const alias = this.subrule(1, this.optSimpleAlias)
    this.consume(1, T.SET)
    const set = this.subrule(2, this.assignments)
    let from: A.TableRef | undefined
    this.option(0, () => {
      this.consume(2, T.FROM)
      from = this.subrule(3, this.fromList)
    })
    let where: A.Expr | undefined
    this.option(1, () => {
      this.consume(3, T.WHERE)
      where = this.subrule(4, this.expr)
    })
    return { kind: 'update', table, alias, set, from, where, span: this.sp(start) }
  })

  deleteStmt = this.RULE('deleteStmt', (): A.DeleteStmt => {
    const start = this.start()
    this.consume(0, T.DELETE)
    this.consume(1, T.FROM)
    const table = this.subrule(0, this.qualifiedName)
    const alias = this.subrule(1, this.optSimpleAlias)
    let where: A.Expr | undefined
    this.option(0, () => {
      this.consume(2, T.WHERE)
      where = this.subrule(2, this.expr)
    })
    return { kind: 'delete', table, alias, where, span: this.sp(start) }
  })

  // ================================================================================ DDL

  ifNotExists = this.RULE('ifNotExists', (): boolean => {
    let yes = false
    this.option(0, {
      GATE: () => is(this.LA(2), T.NOT),
      DEF: () => {
        this.consume(0, T.IF)
        this.consume(1, T.NOT)
        this.consume(2, T.EXISTS)
        yes = true
      },
    })
    return yes
  })

  ifExists = this.RULE('ifExists', (): boolean => {
    let yes = false
    this.option(0, {
      GATE: () => is(this.LA(2), T.EXISTS),
      DEF: () => {
        this.consume(0, T.IF)
        this.consume(1, T.EXISTS)
        yes = true
      },
    })
    return yes
  })

  createStmt = this.RULE('createStmt', (): A.Statement => {
    const start = this.start()
    this.consume(0, T.CREATE)
    return this.or(0, [
      { ALT: () => this.subrule(0, this.createTableRest, { ARGS: [start] }) },
      { ALT: () => this.subrule(1, this.createViewRest, { ARGS: [start] }) },
      { ALT: () => this.subrule(2, this.createIndexRest, { ARGS: [start] }) },
      { ALT: () => this.subrule(3, this.createTriggerRest, { ARGS: [start] }) },
      { ALT: () => this.subrule(4, this.createSourceRest, { ARGS: [start] }) },
      { ALT: () => this.subrule(5, this.createSinkRest, { ARGS: [start] }) },
      { ALT: () => this.subrule(6, this.createSchemaRest, { ARGS: [start] }) },
    ])
  })

  createSchemaRest = this.RULE('createSchemaRest', (start: number): A.CreateSchemaStmt => {
    this.consume(0, T.SCHEMA)
    const ifNotExists = this.subrule(0, this.ifNotExists)
    const name = this.subrule(1, this.ident)
    return { kind: 'createSchema', name, ifNotExists, span: this.sp(start) }
  })

  createSourceRest = this.RULE('createSourceRest', (start: number): A.CreateSourceStmt => {
    this.consume(0, T.SOURCE)
    const ifNotExists = this.subrule(0, this.ifNotExists)
    const name = this.subrule(1, this.qualifiedName)
    this.consume(1, T.WITH)
    const withOptions = this.subrule(2, this.withOptionList)
    return { kind: 'createSource', name, ifNotExists, with: withOptions, span: this.sp(start) }
  })

  createSinkRest = this.RULE('createSinkRest', (start: number): A.CreateSinkStmt => {
    this.consume(0, T.SINK)
    const ifNotExists = this.subrule(0, this.ifNotExists)
    const name = this.subrule(1, this.qualifiedName)
    let from: A.Name | undefined
    let query: A.Query | undefined
    this.or(0, [
      {
        ALT: () => {
          this.consume(1, T.FROM)
          from = this.subrule(2, this.qualifiedName)
        },
      },
      {
        ALT: () => {
          this.consume(2, T.AS)
          query = this.subrule(3, this.query)
        },
      },
    ])
    this.consume(3, T.WITH)
    const withOptions = this.subrule(4, this.withOptionList)
    return { kind: 'createSink', name, ifNotExists, from, query, with: withOptions, span: this.sp(start) }
  })

  createTableRest = this.RULE('createTableRest', (start: number): A.CreateTableStmt => {
    let stream = this.or(0, [
      { ALT: () => (this.consume(0, T.TABLE), false) },
      { ALT: () => (this.consume(1, T.STREAM), true) },
    ])
    const ifNotExists = this.subrule(0, this.ifNotExists)
    const name = this.subrule(1, this.qualifiedName)
    const body: TableBody = { columns: [], primaryKey: undefined, watermark: undefined }
    this.option(0, () => {
      this.consume(2, T.LParen)
      this.option(1, () => {
        this.addTableElement(name, body, this.subrule(2, this.tableElement))
        this.many(0, () => {
          this.consume(3, T.Comma)
          this.addTableElement(name, body, this.subrule(3, this.tableElement))
        })
      })
      this.consume(4, T.RParen)
    })
    let appendOnly = false
    this.option(2, () => {
      this.consume(5, T.APPEND)
      this.consume(6, T.ONLY)
      appendOnly = true
      stream = true
    })
    let withOptions: A.WithOption[] = []
    this.option(3, () => {
      this.consume(7, T.WITH)
      withOptions = this.subrule(4, this.withOptionList)
    })
    let asQuery: A.Query | undefined
    this.option(4, () => {
      this.consume(8, T.AS)
      asQuery = this.subrule(5, this.query)
    })
    return {
      kind: 'createTable',
      name,
      columns: body.columns,
      primaryKey: body.primaryKey,
      watermark: body.watermark,
      stream,
      appendOnly,
      ifNotExists,
      with: withOptions,
      asQuery,
      span: this.sp(start),
    }
  })

  private addTableElement(name: A.Name, body: TableBody, el: TableElement): void {
    this.ACTION(() => {
      switch (el.kind) {
        case 'column':
          body.columns.push(el.def)
          break
        case 'pk':
          if (body.primaryKey !== undefined) {
            const table = name.parts[name.parts.length - 1] ?? ''
            this.fail('42P16', `multiple primary keys for table "${table}" are not allowed`, el.span.start)
          }
          body.primaryKey = el.columns
          break
        case 'watermark':
          if (body.watermark !== undefined) {
            this.fail(SqlState.syntaxError, 'multiple WATERMARK definitions are not allowed', el.def.span.start)
          }
          body.watermark = el.def
          break
      }
    })
  }

  tableElement = this.RULE('tableElement', (): TableElement => {
    const start = this.start()
    return this.or(0, {
      IGNORE_AMBIGUITIES: true,
      MAX_LOOKAHEAD: 1,
      DEF: [
        {
          ALT: (): TableElement => {
            this.option(0, () => {
              this.consume(0, T.CONSTRAINT)
              this.subrule(0, this.ident)
            })
            this.consume(1, T.PRIMARY)
            this.consume(2, T.KEY)
            const columns = this.subrule(1, this.parenIdentList)
            return { kind: 'pk', columns, span: this.sp(start) }
          },
        },
        {
          GATE: () => is(this.LA(2), T.FOR),
          ALT: (): TableElement => {
            this.consume(3, T.WATERMARK)
            this.consume(4, T.FOR)
            const column = this.subrule(2, this.ident)
            this.consume(5, T.AS)
            const expr = this.subrule(3, this.expr)
            return { kind: 'watermark', def: { column, expr, span: this.sp(start) } }
          },
        },
        { ALT: (): TableElement => ({ kind: 'column', def: this.subrule(4, this.columnDef) }) },
      ],
    })
  })

  columnDef = this.RULE('columnDef', (): A.ColumnDef => {
    const start = this.start()
    const name = this.subrule(0, this.ident)
    const type = this.subrule(1, this.typeName)
    let notNull = false
    let primaryKey = false
    let unique = false
    let dflt: A.Expr | undefined
    this.many(0, () => {
      this.or(0, [
        {
          ALT: () => {
            this.consume(0, T.PRIMARY)
            this.consume(1, T.KEY)
            primaryKey = true
          },
        },
        {
          ALT: () => {
            this.consume(2, T.NOT)
            this.consume(3, T.NULL)
            notNull = true
          },
        },
        {
          ALT: () => {
            this.consume(4, T.NULL)
            notNull = false
          },
        },
        { ALT: () => (this.consume(5, T.UNIQUE), (unique = true)) },
        {
          ALT: () => {
            this.consume(6, T.DEFAULT)
            dflt = this.subrule(2, this.exprBP, { ARGS: [Prec.other] })
          },
        },
        {
          ALT: () => {
            this.consume(7, T.CONSTRAINT)
            this.subrule(3, this.ident)
          },
        },
      ])
    })
    return { name, type, notNull, primaryKey, unique, default: dflt, span: this.sp(start) }
  })

  withOptionList = this.RULE('withOptionList', (): A.WithOption[] => {
    this.consume(0, T.LParen)
    const out = [this.subrule(0, this.withOption)]
    this.many(0, () => {
      this.consume(1, T.Comma)
      out.push(this.subrule(1, this.withOption))
    })
    this.consume(2, T.RParen)
    return out
  })

  withOption = this.RULE('withOption', (): A.WithOption => {
    const start = this.start()
    const name = this.or(0, [
      {
        ALT: () => {
          const parts = [this.subrule(0, this.label)]
          this.many(0, () => {
            this.consume(0, T.Dot)
            parts.push(this.subrule(1, this.label))
          })
          return parts.join('.')
        },
      },
      { ALT: () => stringValue(this.consume(1, T.StringLiteral)) },
    ])
    let value: A.Expr | undefined
    this.option(0, () => {
      this.consume(2, T.Equals)
      value = this.subrule(2, this.expr)
    })
    return { name, value, span: this.sp(start) }
  })

  createViewRest = this.RULE('createViewRest', (start: number): A.CreateViewStmt => {
    let orReplace = false
    this.option(0, () => {
      this.consume(0, T.OR)
      this.consume(1, T.REPLACE)
      orReplace = true
    })
    let materialized = false
    this.option(1, () => {
      this.consume(2, T.MATERIALIZED)
      materialized = true
    })
    this.consume(3, T.VIEW)
    const ifNotExists = this.subrule(0, this.ifNotExists)
    const name = this.subrule(1, this.qualifiedName)
    let columns: string[] = []
    this.option(2, () => {
      columns = this.subrule(2, this.parenIdentList)
    })
    this.consume(4, T.AS)
    const query = this.subrule(3, this.query)
    return { kind: 'createView', name, columns, materialized, orReplace, ifNotExists, query, span: this.sp(start) }
  })

  createIndexRest = this.RULE('createIndexRest', (start: number): A.CreateIndexStmt =>
    this.or(0, [
      {
        ALT: (): A.CreateIndexStmt => {
          this.consume(0, T.DEFAULT)
          this.consume(1, T.INDEX)
          this.consume(2, T.ON)
          const table = this.subrule(0, this.qualifiedName)
          return {
            kind: 'createIndex',
            name: undefined,
            table,
            columns: [],
            unique: false,
            ifNotExists: false,
            span: this.sp(start),
          }
        },
      },
      {
        ALT: (): A.CreateIndexStmt => {
          let unique = false
          this.option(0, () => {
            this.consume(3, T.UNIQUE)
            unique = true
          })
          this.consume(4, T.INDEX)
          const ifNotExists = this.subrule(1, this.ifNotExists)
          let name: string | undefined
          this.option(1, () => {
            name = this.subrule(2, this.ident)
          })
          this.consume(5, T.ON)
          const table = this.subrule(3, this.qualifiedName)
          this.option(2, () => {
            this.consume(6, T.USING)
            this.subrule(4, this.ident)
          })
          let columns: A.Expr[] = []
          this.option(3, () => {
            this.consume(7, T.LParen)
            columns = [this.subrule(5, this.indexItem)]
            this.many(0, () => {
              this.consume(8, T.Comma)
              columns.push(this.subrule(6, this.indexItem))
            })
            this.consume(9, T.RParen)
          })
          return { kind: 'createIndex', name, table, columns, unique, ifNotExists, span: this.sp(start) }
        },
      },
    ]),
  )

  /** SQLite's trigger: `TRIGGER [IF NOT EXISTS] name [BEFORE | AFTER | INSTEAD OF]
   *  {INSERT | UPDATE [OF col, …] | DELETE} ON table [FOR EACH ROW] [WHEN expr]
   *  BEGIN stmt; [stmt; …] END`. The body's statements are parsed with the statement rule
   *  (the engine decides which it accepts); a statement there cannot start with END, which
   *  closes the body. */
  createTriggerRest = this.RULE('createTriggerRest', (start: number): A.CreateTriggerStmt => {
    this.consume(0, T.TRIGGER)
    const ifNotExists = this.subrule(0, this.ifNotExists)
    const name = this.subrule(1, this.qualifiedName)
    let timing: A.CreateTriggerStmt['timing']
    this.option(0, () => {
      timing = this.or(0, [
        { ALT: () => (this.consume(1, T.BEFORE), 'before' as const) },
        { ALT: () => (this.consume(2, T.AFTER), 'after' as const) },
        {
          ALT: () => {
            this.consume(3, T.INSTEAD)
            this.consume(4, T.OF)
            return 'instead of' as const
          },
        },
      ])
    })
    const columns: string[] = []
    const event = this.or(1, [
      { ALT: () => (this.consume(5, T.INSERT), 'insert' as const) },
      { ALT: () => (this.consume(6, T.DELETE), 'delete' as const) },
      {
        ALT: () => {
          this.consume(7, T.UPDATE)
          this.option(1, () => {
            this.consume(8, T.OF)
            columns.push(this.subrule(2, this.ident))
            this.many(0, () => {
              this.consume(9, T.Comma)
              columns.push(this.subrule(3, this.ident))
            })
          })
          return 'update' as const
        },
      },
    ])
    this.consume(10, T.ON)
    const table = this.subrule(4, this.qualifiedName)
    let forEachRow = false
    this.option(2, () => {
      this.consume(11, T.FOR)
      this.consume(12, T.EACH)
      this.consume(13, T.ROW)
      forEachRow = true
    })
    let when: A.Expr | undefined
    this.option(3, () => {
      this.consume(14, T.WHEN)
      when = this.subrule(5, this.expr)
    })
    this.consume(15, T.BEGIN)
    const body: A.Statement[] = []
    this.many(1, {
      GATE: () => !is(this.LA(1), T.END),
      DEF: () => {
        this.option(4, () => body.push(this.subrule(6, this.statement)))
        this.consume(16, T.Semicolon)
      },
    })
    const end = this.consume(17, T.END)
    this.ACTION(() => {
      if (body.length === 0) this.fail(SqlState.syntaxError, 'syntax error at or near "END": a trigger body needs at least one statement', end.startOffset)
    })
    return { kind: 'createTrigger', name, ifNotExists, timing, event, columns, table, forEachRow, when, body, span: this.sp(start) }
  })

  /** An index key; ASC/DESC and NULLS FIRST/LAST are accepted and dropped (an index never
   *  changes a result). */
  indexItem = this.RULE('indexItem', (): A.Expr => this.subrule(0, this.orderItem).expr)

  dropStmt = this.RULE('dropStmt', (): A.DropStmt => {
    const start = this.start()
    this.consume(0, T.DROP)
    const object = this.or(0, [
      { ALT: (): A.DropObjectKind => (this.consume(1, T.TABLE), 'table') },
      { ALT: (): A.DropObjectKind => (this.consume(2, T.STREAM), 'stream') },
      { ALT: (): A.DropObjectKind => (this.consume(3, T.VIEW), 'view') },
      {
        ALT: (): A.DropObjectKind => {
          this.consume(4, T.MATERIALIZED)
          this.consume(5, T.VIEW)
          return 'materialized view'
        },
      },
      { ALT: (): A.DropObjectKind => (this.consume(6, T.INDEX), 'index') },
      { ALT: (): A.DropObjectKind => (this.consume(7, T.SOURCE), 'source') },
      { ALT: (): A.DropObjectKind => (this.consume(8, T.SINK), 'sink') },
      { ALT: (): A.DropObjectKind => (this.consume(12, T.TRIGGER), 'trigger') },
      { ALT: (): A.DropObjectKind => (this.consume(13, T.SCHEMA), 'schema') },
    ])
    const ifExists = this.subrule(0, this.ifExists)
    const names = [this.subrule(1, this.qualifiedName)]
    this.many(0, () => {
      this.consume(9, T.Comma)
      names.push(this.subrule(2, this.qualifiedName))
    })
    let cascade = false
    this.option(0, () => {
      this.or(1, [
        { ALT: () => (this.consume(10, T.CASCADE), (cascade = true)) },
        { ALT: () => this.consume(11, T.RESTRICT) },
      ])
    })
    return { kind: 'drop', object, names, ifExists, cascade, span: this.sp(start) }
  })

  /** `CASCADE | RESTRICT`, optional: true for CASCADE. */
  dropBehavior = this.RULE('dropBehavior', (): boolean => {
    let cascade = false
    this.option(0, () => {
      this.or(0, [
        { ALT: () => (this.consume(0, T.CASCADE), (cascade = true)) },
        { ALT: () => this.consume(1, T.RESTRICT) },
      ])
    })
    return cascade
  })

  alterTableStmt = this.RULE('alterTableStmt', (): A.AlterTableStmt => {
    const start = this.start()
    this.consume(0, T.Identifier) // ALTER
    this.consume(1, T.TABLE)
    const ifExists = this.subrule(0, this.ifExists)
    this.option(0, () => this.consume(2, T.ONLY))
    const table = this.subrule(1, this.qualifiedName)
    const actions = this.or(0, [
      {
        GATE: () => isWord(this.LA(1), 'rename'),
        ALT: () => [this.subrule(2, this.renameAction)],
      },
      {
        ALT: () => {
          const out = [this.subrule(3, this.alterColumnAction)]
          this.many(0, () => {
            this.consume(3, T.Comma)
            out.push(this.subrule(4, this.alterColumnAction))
          })
          return out
        },
      },
    ])
    return { kind: 'alterTable', table, ifExists, actions, span: this.sp(start) }
  })

  renameAction = this.RULE('renameAction', (): A.AlterTableAction => {
    const start = this.start()
    this.consume(0, T.Identifier) // RENAME
    return this.or(0, [
      {
        ALT: (): A.AlterTableAction => {
          this.consume(1, T.TO)
          const to = this.subrule(0, this.ident)
          return { kind: 'renameTable', to, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.AlterTableAction => {
          this.option(0, { GATE: () => isWord(this.LA(1), 'column') && !is(this.LA(2), T.TO), DEF: () => this.consume(2, T.Identifier) })
          const column = this.subrule(1, this.ident)
          this.consume(3, T.TO)
          const to = this.subrule(2, this.ident)
          return { kind: 'renameColumn', column, to, span: this.sp(start) }
        },
      },
    ])
  })

  /** `ADD [COLUMN] …` or `DROP [COLUMN] …`. */
  alterColumnAction = this.RULE('alterColumnAction', (): A.AlterTableAction => {
    const start = this.start()
    // COLUMN is optional: `ADD column int` adds a column named "column"
    const optColumn = (idx: number): void => {
      this.option(idx, { GATE: () => isWord(this.LA(1), 'column') && (is(this.LA(2), T.Identifier) || is(this.LA(2), T.QuotedIdentifier) || tokenMatcher(this.LA(2), T.NonReserved)), DEF: () => this.consume(idx, T.Identifier) })
    }
    return this.or(0, [
      {
        GATE: () => isWord(this.LA(1), 'add'),
        ALT: (): A.AlterTableAction => {
          this.consume(0, T.Identifier)
          optColumn(1)
          const ifNotExists = this.subrule(0, this.ifNotExists)
          const column = this.subrule(1, this.columnDef)
          return { kind: 'addColumn', column, ifNotExists, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.AlterTableAction => {
          this.consume(3, T.DROP)
          optColumn(4)
          const ifExists = this.subrule(2, this.ifExists)
          const column = this.subrule(3, this.ident)
          const cascade = this.subrule(4, this.dropBehavior)
          return { kind: 'dropColumn', column, ifExists, cascade, span: this.sp(start) }
        },
      },
    ])
  })

  truncateStmt = this.RULE('truncateStmt', (): A.TruncateStmt => {
    const start = this.start()
    this.consume(0, T.Identifier) // TRUNCATE
    this.option(0, () => this.consume(1, T.TABLE))
    this.option(1, () => this.consume(2, T.ONLY))
    const tables = [this.subrule(0, this.qualifiedName)]
    this.many(0, () => {
      this.consume(3, T.Comma)
      tables.push(this.subrule(1, this.qualifiedName))
    })
    // CONTINUE IDENTITY (the default) or RESTART IDENTITY: there are no sequences to restart
    this.option(2, {
      GATE: () => (isWord(this.LA(1), 'continue') || isWord(this.LA(1), 'restart')) && isWord(this.LA(2), 'identity'),
      DEF: () => {
        this.consume(4, T.Identifier)
        this.consume(5, T.Identifier)
      },
    })
    this.subrule(2, this.dropBehavior)
    return { kind: 'truncate', tables, span: this.sp(start) }
  })

  // ================================================================================ other

  transactionStmt = this.RULE('transactionStmt', (): A.TransactionStmt => {
    const start = this.start()
    const optWork = (idx: number): void => {
      this.option(idx, () => {
        this.or(idx + 10, [
          { ALT: () => this.consume(idx + 20, T.WORK) },
          { ALT: () => this.consume(idx + 30, T.TRANSACTION) },
        ])
      })
    }
    const action = this.or(0, [
      {
        ALT: () => {
          this.consume(0, T.BEGIN)
          optWork(1)
          this.subrule(0, this.transactionModes)
          return 'begin' as const
        },
      },
      {
        ALT: () => {
          this.consume(1, T.START)
          this.consume(2, T.TRANSACTION)
          this.subrule(1, this.transactionModes)
          return 'begin' as const
        },
      },
      {
        ALT: () => {
          this.consume(3, T.COMMIT)
          this.subrule(2, this.refuseTwoPhase)
          optWork(2)
          return 'commit' as const
        },
      },
      {
        ALT: () => {
          this.consume(4, T.END)
          optWork(3)
          return 'commit' as const
        },
      },
      {
        ALT: () => {
          this.consume(5, T.ROLLBACK)
          this.subrule(3, this.refuseTwoPhase)
          optWork(4)
          this.option(6, () => {
            const to = this.consume(7, T.TO)
            this.ACTION(() => this.fail(SqlState.featureNotSupported, 'savepoints are not supported', to.startOffset))
          })
          return 'rollback' as const
        },
      },
      {
        ALT: () => {
          this.consume(6, T.ABORT)
          optWork(5)
          return 'rollback' as const
        },
      },
    ])
    return { kind: 'transaction', action, span: this.sp(start) }
  })

  /** `ISOLATION LEVEL …`, `READ ONLY | WRITE`, `[NOT] DEFERRABLE` after BEGIN: accepted (one
   *  transaction runs at a time in the engine, which is stricter than any of them). */
  transactionModes = this.RULE('transactionModes', (): void => {
    this.ACTION(() => {
      if (TRANSACTION_MODE_WORDS.has(word(this.LA(1)))) this.restOfStatement()
    })
  })

  /** Skips the tokens up to the end of the statement (the `;` or the end of input) and returns
   *  their words, lower-cased and space-separated: for statements whose words are accepted and
   *  have no effect here. (Grammar recording never runs it: call it inside ACTION.) */
  private restOfStatement(): string {
    const words: string[] = []
    while (!is(this.LA(1), T.Semicolon) && this.LA(1).tokenType !== EOF) {
      words.push(this.LA(1).image.toLowerCase())
      this.SKIP_TOKEN()
    }
    return words.join(' ').replace(/ ,/g, ',')
  }

  /** COMMIT PREPARED / ROLLBACK PREPARED: two-phase commit is refused. */
  refuseTwoPhase = this.RULE('refuseTwoPhase', (): void => {
    this.option(0, {
      GATE: () => word(this.LA(1)) === 'prepared' && isString(this.LA(2)),
      DEF: () => {
        const t = this.consume(0, T.Identifier)
        this.ACTION(() => this.fail(SqlState.featureNotSupported, 'two-phase commit is not supported', t.startOffset))
      },
    })
  })

  /** `EXPLAIN [VERBOSE] [LOGICAL|OPTIMIZED|DELTA|PHYSICAL] [PLAN] [FOR] statement`.
   *  `EXPLAIN [VERBOSE] MATERIALIZED VIEW v` is represented as stage 'view' with statement
   *  `SELECT * FROM v` (every synthetic node carries the span of the name `v`); the planner
   *  explains the view's own plan for that stage, and print.ts prints it back in this form. */
  explainStmt = this.RULE('explainStmt', (): A.ExplainStmt => {
    const start = this.start()
    this.consume(0, T.EXPLAIN)
    let verbose = false
    this.option(0, () => {
      this.consume(1, T.VERBOSE)
      verbose = true
    })
    // EXPLAIN ANALYZE MATERIALIZED VIEW v: the plan with each operator's state size now
    let analyze = false
    this.option(5, {
      GATE: () => word(this.LA(1)) === 'analyze' && is(this.LA(2), T.MATERIALIZED),
      DEF: () => {
        this.consume(12, T.Identifier)
        analyze = true
      },
    })
    return this.or(0, [
      {
        GATE: () => is(this.LA(1), T.MATERIALIZED) && is(this.LA(2), T.VIEW),
        ALT: (): A.ExplainStmt => {
          this.consume(2, T.MATERIALIZED)
          this.consume(3, T.VIEW)
          const name = this.subrule(0, this.qualifiedName)
          const span = name.span
          const statement: A.SelectStmt = {
            kind: 'select',
            query: {
              kind: 'query',
              with: [],
              recursive: false,
              body: {
                kind: 'select',
                distinct: false,
                distinctOn: undefined,
                items: [{ expr: { kind: 'star', qualifier: undefined, span }, alias: undefined, span }],
                from: { kind: 'table', name, alias: undefined, asOf: undefined, span },
                where: undefined,
                groupBy: [],
                having: undefined,
                span,
              },
              orderBy: [],
              limit: undefined,
              withTies: false,
              offset: undefined,
              emitOnWindowClose: false,
              span,
            },
            span,
          }
          return { kind: 'explain', stage: analyze ? 'analyze' : 'view', verbose, statement, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.ExplainStmt => {
          let stage: string | undefined
          this.option(1, () => {
            stage = word(
              this.or(1, [
                { ALT: () => this.consume(4, T.LOGICAL) },
                { ALT: () => this.consume(5, T.OPTIMIZED) },
                { ALT: () => this.consume(6, T.DELTA) },
                { ALT: () => this.consume(7, T.PHYSICAL) },
              ]),
            )
          })
          this.option(2, () => this.consume(8, T.PLAN))
          this.option(3, () => this.consume(9, T.FOR))
          const statement = this.subrule(1, this.statement)
          return { kind: 'explain', stage, verbose, statement, span: this.sp(start) }
        },
      },
    ])
  })

  showStmt = this.RULE('showStmt', (): A.ShowStmt => {
    const start = this.start()
    this.consume(0, T.SHOW)
    return this.or(0, [
      {
        ALT: (): A.ShowStmt => {
          this.consume(1, T.CREATE)
          const what = ['create']
          this.or(1, [
            { ALT: () => (this.consume(2, T.TABLE), what.push('table')) },
            { ALT: () => (this.consume(3, T.VIEW), what.push('view')) },
            {
              ALT: () => {
                this.consume(4, T.MATERIALIZED)
                this.consume(5, T.VIEW)
                what.push('materialized', 'view')
              },
            },
            { ALT: () => (this.consume(6, T.STREAM), what.push('stream')) },
            { ALT: () => (this.consume(7, T.INDEX), what.push('index')) },
            { ALT: () => (this.consume(8, T.SOURCE), what.push('source')) },
            { ALT: () => (this.consume(9, T.SINK), what.push('sink')) },
          ])
          const target = this.subrule(0, this.qualifiedName)
          return { kind: 'show', what, target, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.ShowStmt => {
          const what: string[] = []
          this.atLeastOne(0, () => {
            what.push(
              this.or(2, [
                { ALT: () => this.subrule(1, this.ident) },
                { ALT: () => word(this.consume(10, T.ALL)) },
              ]),
            )
          })
          let target: A.Name | undefined
          this.option(0, () => {
            what.push(
              word(
                this.or(3, [
                  { ALT: () => this.consume(11, T.FROM) },
                  { ALT: () => this.consume(12, T.IN) },
                  { ALT: () => this.consume(13, T.ON) },
                ]),
              ),
            )
            target = this.subrule(2, this.qualifiedName)
          })
          return { kind: 'show', what, target, span: this.sp(start) }
        },
      },
    ])
  })

  /** `SET [SESSION|LOCAL] name {=|TO} value[, …]` / `SET TIME ZONE value`. The value is kept
   *  as text: string literals unquoted, words lower-cased, numbers as written, lists joined
   *  with ', '. */
  setStmt = this.RULE('setStmt', (): A.SetStmt => {
    const start = this.start()
    this.consume(0, T.SET)
    this.option(0, {
      GATE: () => !is(this.LA(2), T.Equals) && !is(this.LA(2), T.TO),
      DEF: () => {
        this.or(0, [{ ALT: () => this.consume(1, T.SESSION) }, { ALT: () => this.consume(2, T.LOCAL) }])
      },
    })
    return this.or(1, [
      {
        GATE: () => is(this.LA(1), T.TIME) && is(this.LA(2), T.ZONE),
        ALT: (): A.SetStmt => {
          this.consume(3, T.TIME)
          this.consume(4, T.ZONE)
          const value = this.or(3, [
            {
              // SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE: kept as `INTERVAL '+02:00'`
              GATE: () => is(this.LA(1), T.INTERVAL),
              ALT: () => {
                const i = this.subrule(7, this.intervalExpr)
                return `INTERVAL '${i.value}'`
              },
            },
            { ALT: () => this.subrule(0, this.setValueOrDefault) },
          ])
          return { kind: 'set', name: 'timezone', value, span: this.sp(start) }
        },
      },
      {
        // SET TRANSACTION …, SET SESSION CHARACTERISTICS AS TRANSACTION …, SET ROLE …,
        // SET SESSION AUTHORIZATION …: the leading words name it, the rest is its value
        GATE: () => SET_PHRASES.has(word(this.LA(1))) && !is(this.LA(2), T.Equals) && !is(this.LA(2), T.TO),
        ALT: (): A.SetStmt => {
          const name = this.subrule(6, this.label)
          const value = this.ACTION(() => this.restOfStatement())
          const phrase = name === 'characteristics' ? 'session characteristics' : name === 'authorization' ? 'session authorization' : name
          return { kind: 'set', name: phrase, value, span: this.sp(start) }
        },
      },
      {
        GATE: () => word(this.LA(1)) === 'names' && !is(this.LA(2), T.Equals) && !is(this.LA(2), T.TO),
        ALT: (): A.SetStmt => {
          this.consume(10, T.Identifier)
          const value = this.subrule(5, this.setValueOrDefault)
          return { kind: 'set', name: 'client_encoding', value, span: this.sp(start) }
        },
      },
      {
        ALT: (): A.SetStmt => {
          const parts = [this.subrule(1, this.label)]
          this.many(0, () => {
            this.consume(5, T.Dot)
            parts.push(this.subrule(2, this.label))
          })
          this.or(2, [{ ALT: () => this.consume(6, T.Equals) }, { ALT: () => this.consume(7, T.TO) }])
          const value = this.subrule(3, this.setValueOrDefault)
          return { kind: 'set', name: parts.join('.'), value, span: this.sp(start) }
        },
      },
    ])
  })

  setValueOrDefault = this.RULE('setValueOrDefault', (): string | undefined =>
    this.or(0, {
      IGNORE_AMBIGUITIES: true, // DEFAULT is also a label: the first alternative takes it
      DEF: [{ ALT: () => (this.consume(0, T.DEFAULT), undefined) }, { ALT: () => this.subrule(0, this.setValueList) }],
    }),
  )

  setValueList = this.RULE('setValueList', (): string => {
    const out = [this.subrule(0, this.setValue)]
    this.many(0, () => {
      this.consume(0, T.Comma)
      out.push(this.subrule(1, this.setValue))
    })
    return out.join(', ')
  })

  setValue = this.RULE('setValue', (): string =>
    this.or(0, [
      { ALT: () => stringValue(this.consume(0, T.StringLiteral)) },
      { ALT: () => stringValue(this.consume(1, T.EString)) },
      { ALT: () => this.consume(2, T.IntegerLiteral).image },
      { ALT: () => this.consume(3, T.DecimalLiteral).image },
      {
        ALT: () => {
          this.consume(4, T.Minus)
          const n = this.or(1, [
            { ALT: () => this.consume(5, T.IntegerLiteral) },
            { ALT: () => this.consume(6, T.DecimalLiteral) },
          ])
          return '-' + n.image
        },
      },
      { ALT: () => this.subrule(0, this.label) },
    ]),
  )

  checkpointStmt = this.RULE('checkpointStmt', (): A.CheckpointStmt => {
    const start = this.start()
    this.consume(0, T.CHECKPOINT)
    return { kind: 'checkpoint', span: this.sp(start) }
  })

  /** `REINDEX [INDEX | TABLE] name`, SQLite's `REINDEX name`, and bare `REINDEX`. `INDEX` is a
   *  name when nothing follows it (`REINDEX index`). */
  reindexStmt = this.RULE('reindexStmt', (): A.ReindexStmt => {
    const start = this.start()
    this.consume(0, T.REINDEX)
    let object: A.ReindexStmt['object']
    let name: A.Name | undefined
    this.option(0, () => {
      this.or(0, [
        {
          GATE: () => is(this.LA(1), T.INDEX) && isIdentLike(this.LA(2)),
          ALT: () => {
            this.consume(1, T.INDEX)
            object = 'index'
            name = this.subrule(0, this.qualifiedName)
          },
        },
        {
          ALT: () => {
            this.consume(2, T.TABLE)
            object = 'table'
            name = this.subrule(1, this.qualifiedName)
          },
        },
        { ALT: () => (name = this.subrule(2, this.qualifiedName)) },
      ])
    })
    return { kind: 'reindex', object, name, span: this.sp(start) }
  })

  /** `COPY t [(cols)] FROM | TO 'file' | STDIN | STDOUT [[WITH] options]`, `COPY (query) TO …`
   *  (ast.ts CopyStmt). Options: `(name [[=] value], …)` or the old bare forms (CSV, HEADER,
   *  DELIMITER 'c', …), not both. */
  copyStmt = this.RULE('copyStmt', (): A.CopyStmt => {
    const start = this.start()
    this.consume(0, T.COPY)
    let table: A.Name | undefined
    let query: A.Query | undefined
    let subscribe: A.SubscribeStmt | undefined
    let columns: string[] | undefined
    const direction = this.or(0, [
      {
        ALT: (): 'from' | 'to' => {
          this.consume(1, T.LParen)
          this.or(2, [
            { ALT: () => (subscribe = this.subrule(6, this.subscribeStmt)) },
            { ALT: () => (query = this.subrule(0, this.query)) },
          ])
          this.consume(2, T.RParen)
          this.consume(3, T.TO)
          return 'to'
        },
      },
      {
        ALT: (): 'from' | 'to' => {
          table = this.subrule(1, this.qualifiedName)
          this.option(0, () => {
            columns = this.subrule(2, this.parenIdentList)
          })
          return this.or(1, [
            { ALT: () => (this.consume(4, T.FROM), 'from' as const) },
            { ALT: () => (this.consume(5, T.TO), 'to' as const) },
          ])
        },
      },
    ])
    const file = this.subrule(3, this.copyFile)
    let withWord: IToken | undefined
    this.option(1, () => {
      withWord = this.consume(6, T.WITH)
    })
    let list: A.CopyOption[] | undefined
    this.option(2, () => {
      list = this.subrule(4, this.copyOptionList)
    })
    const legacy: A.CopyOption[] = []
    this.many(0, () => {
      legacy.push(this.subrule(5, this.copyLegacyOption))
    })
    this.ACTION(() => {
      if (list !== undefined && legacy.length > 0) this.fail(SqlState.syntaxError, 'syntax error: COPY options are either a parenthesized list or the old bare forms, not both', legacy[0]!.span.start)
      if (withWord !== undefined && list === undefined && legacy.length === 0) this.fail(SqlState.syntaxError, 'syntax error at end of input', withWord.startOffset + withWord.image.length)
    })
    return { kind: 'copy', table, query, subscribe, columns, direction, file, options: list ?? legacy, span: this.sp(start) }
  })

  /** A file name, or STDIN / STDOUT (undefined). */
  copyFile = this.RULE('copyFile', (): string | undefined =>
    this.or(0, [
      { ALT: () => this.subrule(0, this.copyString) },
      {
        GATE: () => word(this.LA(1)) === 'stdin' || word(this.LA(1)) === 'stdout',
        ALT: () => {
          this.consume(0, T.Identifier)
          return undefined
        },
      },
    ]),
  )

  copyString = this.RULE('copyString', (): string =>
    this.or(0, [{ ALT: () => stringValue(this.consume(0, T.StringLiteral)) }, { ALT: () => stringValue(this.consume(1, T.EString)) }]),
  )

  copyOptionList = this.RULE('copyOptionList', (): A.CopyOption[] => {
    this.consume(0, T.LParen)
    const out = [this.subrule(0, this.copyOption)]
    this.many(0, () => {
      this.consume(1, T.Comma)
      out.push(this.subrule(1, this.copyOption))
    })
    this.consume(2, T.RParen)
    return out
  })

  /** `name [[=] value]` (Postgres writes no `=`; `max_rejected = 10` reads better). */
  copyOption = this.RULE('copyOption', (): A.CopyOption => {
    const start = this.start()
    const name = this.subrule(0, this.label)
    let value: A.CopyOption['value']
    this.option(0, () => {
      this.option(1, () => this.consume(0, T.Equals))
      value = this.subrule(1, this.copyOptionValue)
    })
    return { name, value, span: this.sp(start) }
  })

  copyOptionValue = this.RULE('copyOptionValue', (): NonNullable<A.CopyOption['value']> =>
    this.or(0, [
      { ALT: () => ({ kind: 'string' as const, text: this.subrule(0, this.copyString) }) },
      {
        ALT: () => {
          let sign = ''
          this.option(0, () => {
            this.consume(0, T.Minus)
            sign = '-'
          })
          const n = this.or(1, [{ ALT: () => this.consume(1, T.IntegerLiteral) }, { ALT: () => this.consume(2, T.DecimalLiteral) }])
          return { kind: 'number' as const, text: sign + n.image }
        },
      },
      { ALT: () => ({ kind: 'word' as const, text: this.subrule(1, this.label) }) },
    ]),
  )

  /** One of the old bare options: CSV, BINARY, HEADER, DELIMITER [AS] 'c', NULL [AS] 's',
   *  QUOTE [AS] 'c', ESCAPE [AS] 'c'. */
  copyLegacyOption = this.RULE('copyLegacyOption', (): A.CopyOption => {
    const start = this.start()
    return this.or(0, [
      {
        GATE: () => ['csv', 'binary', 'header'].includes(word(this.LA(1))),
        ALT: (): A.CopyOption => {
          const w = word(this.consume(0, T.Identifier))
          const span = this.sp(start)
          return w === 'header' ? { name: 'header', value: undefined, span } : { name: 'format', value: { kind: 'word', text: w }, span }
        },
      },
      {
        GATE: () => word(this.LA(1)) === 'delimiter' || word(this.LA(1)) === 'quote' || !is(this.LA(1), T.Identifier),
        ALT: (): A.CopyOption => {
          const t = this.or(1, [
            { ALT: () => this.consume(1, T.NULL) },
            { ALT: () => this.consume(2, T.ESCAPE) },
            { ALT: () => this.consume(3, T.Identifier) },
          ])
          this.option(0, () => this.consume(4, T.AS))
          const text = this.subrule(0, this.copyString)
          return { name: word(t), value: { kind: 'string', text }, span: this.sp(start) }
        },
      },
    ])
  })

  // ============================================================================ session

  /** The statements of a client session (see A.SessionStmt); savepoints, SQL-level PREPARE /
   *  EXECUTE and LISTEN / NOTIFY are recognized to be refused with 0A000. */
  sessionStmt = this.RULE('sessionStmt', (): A.SessionStmt => {
    const start = this.start()
    const command = this.or(0, [
      { GATE: () => word(this.LA(1)) === 'declare', ALT: () => this.subrule(0, this.declareCommand) },
      { ALT: () => this.subrule(1, this.fetchCommand) },
      {
        ALT: (): A.SessionCommand => {
          this.consume(0, T.CLOSE)
          return { type: 'close', name: this.subrule(2, this.nameOrAll) }
        },
      },
      {
        GATE: () => word(this.LA(1)) === 'reset',
        ALT: (): A.SessionCommand => {
          this.consume(1, T.Identifier)
          return this.or(1, {
            IGNORE_AMBIGUITIES: true, // ALL is also a label: the first alternative takes it
            DEF: [
            { ALT: () => (this.consume(2, T.ALL), { type: 'reset' as const, name: undefined }) },
            {
              GATE: () => is(this.LA(1), T.TIME) && is(this.LA(2), T.ZONE),
              ALT: () => {
                this.consume(3, T.TIME)
                this.consume(4, T.ZONE)
                return { type: 'reset' as const, name: 'timezone' }
              },
            },
            {
              ALT: () => {
                const parts = [this.subrule(3, this.label)]
                this.many(0, () => {
                  this.consume(5, T.Dot)
                  parts.push(this.subrule(4, this.label))
                })
                const name = parts.join('.')
                return { type: 'reset' as const, name: name === 'session' || name === 'role' ? 'session_authorization' : name }
              },
            },
          ]})
        },
      },
      {
        GATE: () => word(this.LA(1)) === 'deallocate',
        ALT: (): A.SessionCommand => {
          this.consume(6, T.Identifier)
          this.option(0, { GATE: () => word(this.LA(1)) === 'prepare', DEF: () => this.consume(7, T.Identifier) })
          return { type: 'deallocate', name: this.subrule(5, this.nameOrAll) }
        },
      },
      {
        GATE: () => word(this.LA(1)) === 'discard',
        ALT: (): A.SessionCommand => {
          this.consume(8, T.Identifier)
          const what = this.subrule(6, this.label)
          if (what !== 'all') this.ACTION(() => this.fail(SqlState.featureNotSupported, `DISCARD ${what.toUpperCase()} is not supported (DISCARD ALL is)`, start))
          return { type: 'discard' }
        },
      },
      {
        GATE: () => word(this.LA(1)) === 'unlisten',
        ALT: (): A.SessionCommand => {
          this.consume(9, T.Identifier)
          this.or(2, [{ ALT: () => this.consume(10, T.Star) }, { ALT: () => this.subrule(7, this.ident) }])
          return { type: 'unlisten' }
        },
      },
      {
        ALT: (): A.SessionCommand => {
          const t = this.consume(11, T.Identifier)
          const w = word(t)
          return this.ACTION(() => {
            const what = w === 'savepoint' || w === 'release' ? 'savepoints are' : w === 'listen' || w === 'notify' ? `${w.toUpperCase()} is` : `SQL-level ${w.toUpperCase()} is`
            const hint = w === 'prepare' || w === 'execute' ? '; use the extended query protocol (Parse/Bind/Execute)' : ''
            return this.fail(SqlState.featureNotSupported, `${what} not supported${hint}`, t.startOffset)
          })
        },
      },
    ])
    return { kind: 'session', command, span: this.sp(start) }
  })

  nameOrAll = this.RULE('nameOrAll', (): string | undefined =>
    this.or(0, [{ ALT: () => (this.consume(0, T.ALL), undefined) }, { ALT: () => this.subrule(0, this.ident) }]),
  )

  declareCommand = this.RULE('declareCommand', (): A.SessionCommand => {
    this.consume(0, T.Identifier)
    const name = this.subrule(0, this.ident)
    this.many(0, {
      GATE: () => word(this.LA(1)) !== 'cursor',
      DEF: () => {
        const t = this.consume(1, T.Identifier)
        const w = word(t)
        if (w === 'no' && word(this.LA(1)) === 'scroll') this.consume(2, T.Identifier)
        else if (w === 'binary') this.ACTION(() => this.fail(SqlState.featureNotSupported, 'binary cursors are not supported', t.startOffset))
        else if (w === 'scroll') this.ACTION(() => this.fail(SqlState.featureNotSupported, 'scrollable cursors are not supported', t.startOffset))
        else if (w !== 'insensitive' && w !== 'asensitive') this.ACTION(() => this.fail(SqlState.syntaxError, `syntax error at or near "${t.image}"`, t.startOffset))
      },
    })
    this.consume(3, T.Identifier) // CURSOR
    this.option(0, () => {
      this.or(0, [
        {
          ALT: () => {
            const w = this.consume(4, T.WITH)
            this.ACTION(() => this.fail(SqlState.featureNotSupported, 'WITH HOLD cursors are not supported', w.startOffset))
          },
        },
        { ALT: () => this.consume(5, T.WITHOUT) },
      ])
      this.consume(6, T.Identifier) // HOLD
    })
    this.consume(7, T.FOR)
    let query: A.Query | undefined
    let subscribe: A.SubscribeStmt | undefined
    this.or(1, [{ ALT: () => (subscribe = this.subrule(1, this.subscribeStmt)) }, { ALT: () => (query = this.subrule(2, this.query)) }])
    return { type: 'declare', name, query, subscribe }
  })

  fetchCommand = this.RULE('fetchCommand', (): A.SessionCommand => {
    this.consume(0, T.FETCH)
    this.option(0, {
      GATE: () => ['backward', 'prior', 'absolute', 'relative'].includes(word(this.LA(1))) || is(this.LA(1), T.FIRST) || is(this.LA(1), T.LAST),
      DEF: () => {
        const t = this.LA(1)
        this.ACTION(() => this.fail(SqlState.featureNotSupported, 'cursors can only fetch forward', t.startOffset))
      },
    })
    this.option(1, {
      GATE: () => is(this.LA(1), T.NEXT) || (word(this.LA(1)) === 'forward' && (is(this.LA(2), T.IntegerLiteral) || is(this.LA(2), T.ALL) || is(this.LA(2), T.FROM) || is(this.LA(2), T.IN) || isIdentLike(this.LA(2)))),
      DEF: () => this.or(0, [{ ALT: () => this.consume(1, T.NEXT) }, { ALT: () => this.consume(2, T.Identifier) }]),
    })
    let count: number | undefined = 1
    this.option(2, () => {
      this.or(1, [
        { ALT: () => (this.consume(3, T.ALL), (count = undefined)) },
        { ALT: () => (count = Number(this.consume(4, T.IntegerLiteral).image)) },
      ])
    })
    this.option(3, () => this.or(2, [{ ALT: () => this.consume(5, T.FROM) }, { ALT: () => this.consume(6, T.IN) }]))
    const name = this.subrule(0, this.ident)
    let options: A.WithOption[] = []
    this.option(4, () => {
      this.consume(7, T.WITH)
      options = this.subrule(1, this.withOptionList)
    })
    return { type: 'fetch', name, count, options }
  })

  flushStmt = this.RULE('flushStmt', (): A.FlushStmt => {
    const start = this.start()
    this.consume(0, T.FLUSH)
    return { kind: 'flush', span: this.sp(start) }
  })

  subscribeStmt = this.RULE('subscribeStmt', (): A.SubscribeStmt => {
    const start = this.start()
    this.consume(0, T.SUBSCRIBE)
    this.option(0, () => this.consume(1, T.TO))
    let target: A.Name | undefined
    let query: A.Query | undefined
    this.or(0, [
      {
        ALT: () => {
          this.consume(2, T.LParen)
          query = this.subrule(0, this.query)
          this.consume(3, T.RParen)
        },
      },
      {
        ALT: () => {
          target = this.subrule(1, this.qualifiedName)
        },
      },
    ])
    let withOptions: A.WithOption[] = []
    this.option(1, () => {
      this.consume(4, T.WITH)
      withOptions = this.subrule(2, this.withOptionList)
    })
    return { kind: 'subscribe', target, query, with: withOptions, span: this.sp(start) }
  })
}
