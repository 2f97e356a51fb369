// Every token type of the SQL dialect.
//
// Keywords are not matched by the lexer itself: every word is lexed as an `Identifier` and then
// re-typed through one Map lookup (see lexer.ts). This keeps the lexer to a handful of patterns
// (fast first-character dispatch) instead of ~150 case-insensitive keyword regexes with
// `longer_alt`. Keyword token types therefore have `pattern: Lexer.NA`; they are part of the
// parser vocabulary only.
//
// Categories:
// - `Keyword`     every keyword. Accepted wherever Postgres accepts a ColLabel (after `AS`, after
//                 a `.` in a qualified name, option names, EXTRACT fields).
// - `NonReserved` keywords that are also plain identifiers (column/table/alias/function names).
//                 Grammar positions where such a word has a special meaning resolve it with
//                 gates on the following token (e.g. `ROW (` is a row constructor, `ROW` alone
//                 a column; `INTERVAL '…'` a literal, `interval` alone a column).
// - Reserved keywords are only usable as identifiers when double-quoted.

import { createToken, Lexer, type TokenType } from 'chevrotain'

// ---------------------------------------------------------------------------------- categories

export const Keyword = createToken({ name: 'Keyword', pattern: Lexer.NA, label: 'keyword' })
export const NonReserved = createToken({ name: 'NonReserved', pattern: Lexer.NA, label: 'identifier' })
export const Reserved = createToken({ name: 'Reserved', pattern: Lexer.NA, label: 'reserved keyword' })

// ---------------------------------------------------------------------------------- trivia

export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /[ \t\n\r\f\v]+/,
  group: Lexer.SKIPPED,
})

export const LineComment = createToken({
  name: 'LineComment',
  pattern: /--[^\n\r]*/,
  group: Lexer.SKIPPED,
})

/** Block comments nest, as in Postgres: `/* a /* b *\/ c *\/`. */
function matchBlockComment(text: string, offset: number): RegExpExecArray | null {
  if (text.charCodeAt(offset) !== 47 /* / */ || text.charCodeAt(offset + 1) !== 42 /* * */) return null
  let depth = 1
  let i = offset + 2
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 42 && text.charCodeAt(i + 1) === 47) {
      depth--
      i += 2
      if (depth === 0) {
        const result = [text.slice(offset, i)] as unknown as RegExpExecArray
        return result
      }
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      depth++
      i += 2
    } else {
      i++
    }
  }
  return null // unterminated: reported as a lexing error
}

export const BlockComment = createToken({
  name: 'BlockComment',
  pattern: { exec: matchBlockComment },
  line_breaks: true,
  start_chars_hint: ['/'],
  group: Lexer.SKIPPED,
})

/** `/*` without its `*\/`: matched only so the lexer can report it (lexer.ts throws). */
export const UnterminatedComment = createToken({
  name: 'UnterminatedComment',
  pattern: /\/\*[\s\S]*/,
  line_breaks: true,
})

// ---------------------------------------------------------------------------------- literals

/** `E'…'` string with backslash escapes (must come before Identifier). */
export const EString = createToken({
  name: 'EString',
  pattern: /[eE]'(?:[^'\\]|''|\\[\s\S])*'/,
  line_breaks: true,
  label: 'string literal',
})

export const StringLiteral = createToken({
  name: 'StringLiteral',
  pattern: /'(?:[^']|'')*'/,
  line_breaks: true,
  label: 'string literal',
})

/** `$$…$$` / `$tag$…$tag$` (the tag: identifier characters without `$`, not starting with a
 *  digit): a string literal whose body is taken as is. It counts as a StringLiteral in the
 *  grammar. */
function matchDollarString(text: string, offset: number): RegExpExecArray | null {
  const m = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(text.slice(offset, offset + 256))
  if (!m) return null
  const tag = m[0]
  const close = text.indexOf(tag, offset + tag.length)
  if (close < 0) return null // unterminated: a lexing error
  return [text.slice(offset, close + tag.length)] as unknown as RegExpExecArray
}

export const DollarString = createToken({
  name: 'DollarString',
  pattern: { exec: matchDollarString },
  line_breaks: true,
  start_chars_hint: ['$'],
  categories: [StringLiteral],
  label: 'string literal',
})

export const QuotedIdentifier = createToken({
  name: 'QuotedIdentifier',
  pattern: /"(?:[^"]|"")*"/,
  line_breaks: true,
  label: 'quoted identifier',
})

export const DecimalLiteral = createToken({
  name: 'DecimalLiteral',
  pattern: /(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+/,
  label: 'number',
})

export const IntegerLiteral = createToken({ name: 'IntegerLiteral', pattern: /\d+/, label: 'integer' })

export const Param = createToken({ name: 'Param', pattern: /\$\d+/, label: 'parameter' })

export const Identifier = createToken({
  name: 'Identifier',
  pattern: /[a-zA-Z_\u00c0-\uffff][a-zA-Z0-9_$\u00c0-\uffff]*/,
  start_chars_hint: [
    ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_',
    ...Array.from({ length: 0x100 - 0xc0 }, (_, i) => 0xc0 + i),
    // chevrotain buckets char codes >= 256 in groups of 255: one representative per group
    ...Array.from({ length: 258 }, (_, k) => Math.min(0xffff, Math.max(0x100, 255 * k))),
  ],
  label: 'identifier',
})

// ---------------------------------------------------------------------------------- punctuation

function punct(name: string, pattern: string, label?: string): TokenType {
  return createToken({ name, pattern, label: label ?? `"${pattern}"` })
}

export const ColonColon = punct('ColonColon', '::')
export const LessEq = punct('LessEq', '<=')
export const GreaterEq = punct('GreaterEq', '>=')
export const NotEqual = punct('NotEqual', '<>')
export const BangEqual = punct('BangEqual', '!=')
// regular expression match operators (`~` alone is Tilde: binary match or unary bitwise not)
export const BangTildeStar = punct('BangTildeStar', '!~*')
export const BangTilde = punct('BangTilde', '!~')
export const TildeStar = punct('TildeStar', '~*')
export const ShiftLeft = punct('ShiftLeft', '<<')
export const ShiftRight = punct('ShiftRight', '>>')
export const Concat = punct('Concat', '||')
// the jsonb operators (PostgreSQL lexes any run of operator characters as one operator; these
// are the runs rivulet has operators for)
export const ArrowText = punct('ArrowText', '->>')
export const Arrow = punct('Arrow', '->')
export const HashArrowText = punct('HashArrowText', '#>>')
export const HashArrow = punct('HashArrow', '#>')
export const HashMinus = punct('HashMinus', '#-')
export const AtGreater = punct('AtGreater', '@>')
export const LessAt = punct('LessAt', '<@')
export const QuestionPipe = punct('QuestionPipe', '?|')
export const QuestionAmp = punct('QuestionAmp', '?&')
export const Question = punct('Question', '?')
export const Equals = punct('Equals', '=')
export const Less = punct('Less', '<')
export const Greater = punct('Greater', '>')
export const Plus = punct('Plus', '+')
export const Minus = punct('Minus', '-')
export const Star = punct('Star', '*')
export const Slash = punct('Slash', '/')
export const Percent = punct('Percent', '%')
export const Caret = punct('Caret', '^')
export const Ampersand = punct('Ampersand', '&')
export const Pipe = punct('Pipe', '|')
export const Hash = punct('Hash', '#')
export const Tilde = punct('Tilde', '~')
export const LParen = punct('LParen', '(')
export const RParen = punct('RParen', ')')
export const Comma = punct('Comma', ',')
export const Semicolon = punct('Semicolon', ';')
export const Dot = punct('Dot', '.')
export const LBracket = punct('LBracket', '[')
export const RBracket = punct('RBracket', ']')
export const Colon = punct('Colon', ':')

// ---------------------------------------------------------------------------------- keywords

/** Lower-case keyword → token type. Filled below. */
export const keywordMap = new Map<string, TokenType>()
/** Lower-case reserved words (need quoting to be used as identifiers). */
export const reservedWords = new Set<string>()

function kw(word: string, reserved: boolean): TokenType {
  const upper = word.toUpperCase()
  const t = createToken({
    name: `KW_${upper}`,
    pattern: Lexer.NA,
    categories: reserved ? [Keyword, Reserved] : [Keyword, NonReserved],
    label: upper,
  })
  keywordMap.set(word, t)
  if (reserved) reservedWords.add(word)
  return t
}
const R = (w: string): TokenType => kw(w, true)
const N = (w: string): TokenType => kw(w, false)

// Reserved (roughly Postgres' reserved + type_func_name keywords we need).
export const ALL = R('all')
export const AND = R('and')
export const AS = R('as')
export const ASC = R('asc')
export const BETWEEN = R('between')
export const BOTH = R('both')
export const CASE = R('case')
export const CAST = R('cast')
export const CONSTRAINT = R('constraint')
export const CREATE = R('create')
export const CROSS = R('cross')
export const CURRENT_DATE = R('current_date')
export const CURRENT_TIME = R('current_time')
export const CURRENT_TIMESTAMP = R('current_timestamp')
export const DEFAULT = R('default')
export const DESC = R('desc')
export const DISTINCT = R('distinct')
export const DO = R('do')
export const ELSE = R('else')
export const END = R('end')
export const EXCEPT = R('except')
export const EXISTS = R('exists')
export const FALSE = R('false')
export const FETCH = R('fetch')
export const FOR = R('for')
export const FROM = R('from')
export const FULL = R('full')
export const GROUP = R('group')
export const HAVING = R('having')
export const ILIKE = R('ilike')
export const IN = R('in')
export const INNER = R('inner')
export const INTERSECT = R('intersect')
export const INTO = R('into')
export const IS = R('is')
export const JOIN = R('join')
export const LATERAL = R('lateral')
export const LEADING = R('leading')
export const LEFT = R('left')
export const LIKE = R('like')
export const LIMIT = R('limit')
export const LOCALTIME = R('localtime')
export const LOCALTIMESTAMP = R('localtimestamp')
export const NATURAL = R('natural')
export const NOT = R('not')
export const NULL = R('null')
export const OFFSET = R('offset')
export const ON = R('on')
export const OR = R('or')
export const ORDER = R('order')
export const OUTER = R('outer')
export const PRIMARY = R('primary')
export const RETURNING = R('returning')
export const RIGHT = R('right')
export const SELECT = R('select')
export const SYMMETRIC = R('symmetric')
export const TABLE = R('table')
export const THEN = R('then')
export const TO = R('to')
export const TRAILING = R('trailing')
export const TRUE = R('true')
export const UNION = R('union')
export const UNIQUE = R('unique')
export const USING = R('using')
export const VALUES = R('values')
export const WHEN = R('when')
export const WHERE = R('where')
export const WITH = R('with')

// Non-reserved: keywords that still work as identifiers.
export const ABORT = N('abort')
export const AFTER = N('after')
export const APPEND = N('append')
export const BEFORE = N('before')
export const BEGIN = N('begin')
export const BY = N('by')
export const CASCADE = N('cascade')
export const CLOSE = N('close')
export const CURRENT = N('current')
export const COMMIT = N('commit')
export const CONFLICT = N('conflict')
export const COPY = N('copy')
export const DATE = N('date')
export const DAY = N('day')
export const DELETE = N('delete')
export const DELTA = N('delta')
export const DESCRIPTOR = N('descriptor')
export const DROP = N('drop')
export const EACH = N('each')
export const EMIT = N('emit')
export const ESCAPE = N('escape')
export const EXPLAIN = N('explain')
export const EXTRACT = N('extract')
export const FILTER = N('filter')
export const FIRST = N('first')
export const FLUSH = N('flush')
export const FOLLOWING = N('following')
export const HOUR = N('hour')
export const IF = N('if')
export const IGNORE = N('ignore')
export const INDEX = N('index')
export const INSERT = N('insert')
export const INSTEAD = N('instead')
export const INTERVAL = N('interval')
export const KEY = N('key')
export const LAST = N('last')
export const LOCAL = N('local')
export const LOGICAL = N('logical')
export const MATERIALIZED = N('materialized')
export const MINUTE = N('minute')
export const MONTH = N('month')
export const NEXT = N('next')
export const NOTHING = N('nothing')
export const NULLS = N('nulls')
export const OF = N('of')
export const ONLY = N('only')
export const OPTIMIZED = N('optimized')
export const OVER = N('over')
export const PARTITION = N('partition')
export const PHYSICAL = N('physical')
export const PLAN = N('plan')
export const POSITION = N('position')
export const PRECEDING = N('preceding')
export const RANGE = N('range')
export const RECURSIVE = N('recursive')
export const REINDEX = N('reindex')
export const CHECKPOINT = N('checkpoint')
export const REPLACE = N('replace')
export const RESTRICT = N('restrict')
export const ROLLBACK = N('rollback')
export const ROW = N('row')
export const ROWS = N('rows')
export const SECOND = N('second')
export const SCHEMA = N('schema')
export const SESSION = N('session')
export const SET = N('set')
export const SHOW = N('show')
export const SINK = N('sink')
export const SOURCE = N('source')
export const START = N('start')
export const STREAM = N('stream')
export const SUBSCRIBE = N('subscribe')
export const SUBSTRING = N('substring')
export const SYSTEM_TIME = N('system_time')
export const TIES = N('ties')
export const TIME = N('time')
export const TIMESTAMP = N('timestamp')
export const TRANSACTION = N('transaction')
export const TRIGGER = N('trigger')
export const TRIM = N('trim')
export const UNBOUNDED = N('unbounded')
export const UNKNOWN = N('unknown')
export const UPDATE = N('update')
export const VERBOSE = N('verbose')
export const VIEW = N('view')
export const WATERMARK = N('watermark')
export const WINDOW = N('window')
export const WITHIN = N('within')
export const WITHOUT = N('without')
export const WORK = N('work')
export const YEAR = N('year')
export const ZONE = N('zone')

// ---------------------------------------------------------------------------------- vocabularies

/** Token types the lexer matches, in priority order (first match wins). */
export const lexerTokens: TokenType[] = [
  WhiteSpace,
  LineComment,
  BlockComment,
  UnterminatedComment,
  EString,
  StringLiteral,
  DollarString,
  QuotedIdentifier,
  DecimalLiteral,
  IntegerLiteral,
  Param,
  Identifier,
  ColonColon,
  LessEq,
  GreaterEq,
  NotEqual,
  BangEqual,
  BangTildeStar,
  BangTilde,
  TildeStar,
  ShiftLeft,
  ShiftRight,
  Concat,
  ArrowText,
  Arrow,
  HashArrowText,
  HashArrow,
  HashMinus,
  AtGreater,
  LessAt,
  QuestionPipe,
  QuestionAmp,
  Question,
  Equals,
  Less,
  Greater,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Caret,
  Ampersand,
  Pipe,
  Hash,
  Tilde,
  LParen,
  RParen,
  Comma,
  Semicolon,
  Dot,
  LBracket,
  RBracket,
  Colon,
]

/** Everything the parser may see: lexer tokens, keywords and categories. */
export const allTokens: TokenType[] = [Keyword, NonReserved, Reserved, ...lexerTokens, ...keywordMap.values()]
