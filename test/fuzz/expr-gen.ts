// Random, well-typed SQL scalar expressions over the columns of one small table (EXPR_TABLE),
// for the differential expression test (test/fuzz/expressions.test.ts). Generation is type
// directed: `expr(type)` only builds expressions the binder accepts with that result type, so
// almost nothing is rejected at bind time. Everything is fast-check combinators over SQL text
// (oneof / tuple / map, no chain), so a failing expression shrinks toward a column or literal.
//
// Rendering keeps precedence explicit: an operand that is not an atom (column, literal,
// call, CASE, parenthesized expression) or a prefix operation gets parentheses, and prefix
// operators apply to atoms or other prefix operations unparenthesized, so the generator
// writes `- - c`, `- + - NULLIF(...)`, `- CASE ... END`, `NOT NOT b` exactly as the SQLite
// corpus does (prefix minus followed by a minus always has a space: `--` starts a comment).
//
// `sqliteExpr(type)` is the subset where SQLite and PostgreSQL agree (see its comment).

import fc from 'fast-check'

export type ExprType = 'smallint' | 'integer' | 'bigint' | 'numeric' | 'real' | 'double' | 'text' | 'boolean' | 'date' | 'timestamp' | 'interval'

export const EXPR_TYPES: readonly ExprType[] = ['smallint', 'integer', 'bigint', 'numeric', 'real', 'double', 'text', 'boolean', 'date', 'timestamp', 'interval']
const NUMERIC_TYPES: readonly ExprType[] = ['smallint', 'integer', 'bigint', 'numeric', 'real', 'double']
const INT_TYPES: readonly ExprType[] = ['smallint', 'integer', 'bigint']

/** An expression as SQL text, with its type and whether it needs parentheses as an operand. */
export interface Expr {
  readonly sql: string
  readonly type: ExprType
  /** 'atom': never needs parentheses; 'prefix': a prefix operation (- + NOT ~); 'op': anything else. */
  readonly form: 'atom' | 'prefix' | 'op'
}

// ------------------------------------------------------------------------------ the table

const SQL_TYPE: Record<ExprType, string> = {
  smallint: 'SMALLINT', integer: 'INTEGER', bigint: 'BIGINT', numeric: 'NUMERIC', real: 'REAL', double: 'DOUBLE PRECISION',
  text: 'TEXT', boolean: 'BOOLEAN', date: 'DATE', timestamp: 'TIMESTAMP', interval: 'INTERVAL',
}

/** Columns of the table `t` by type (`sa` holds ASCII text only, for the SQLite subset). */
export const COLUMNS: Readonly<Record<ExprType, readonly string[]>> = {
  smallint: ['i2'], integer: ['i4', 'id'], bigint: ['i8'], numeric: ['n'], real: ['f4'], double: ['f8'],
  text: ['s', 'sa'], boolean: ['b'], date: ['d'], timestamp: ['ts'], interval: ['iv'],
}

const COLUMN_ORDER = ['id', 'i2', 'i4', 'i8', 'n', 'f4', 'f8', 's', 'sa', 'b', 'd', 'ts', 'iv'] as const
const COLUMN_TYPE: Record<string, ExprType> = Object.fromEntries(Object.entries(COLUMNS).flatMap(([t, cs]) => cs.map((c) => [c, t as ExprType])))

/** Rows of `t` as SQL literals, in COLUMN_ORDER: NULLs, bounds, zeros, -0, NaN, infinities,
 *  empty and non-ASCII text (astral characters and ones in U+E000..U+FFFF, which UTF-16
 *  orders the other way round from code points). */
const ROWS: readonly (readonly string[])[] = [
  ['1', '0', '0', '0', '0', "'0'", "'-0'", "''", "''", 'false', "'1970-01-01'", "'1970-01-01 00:00:00'", "'0'"],
  ['2', '1', '1', '1', '1.5', "'1.5'", "'0.1'", "'abc'", "'abc'", 'true', "'2024-02-29'", "'2024-02-29 12:34:56.789'", "'1 day'"],
  ['3', '-1', '-7', '-3', '-2.25', "'-2.5'", "'-1e-300'", "'ABC'", "'a%b_c'", 'true', "'1999-12-31'", "'1999-12-31 23:59:59.999999'", "'-1 mon 2 days 03:04:05'"],
  ['4', '32767', '2147483647', '9007199254740991', '12345.678', "'3.4e38'", "'1.7976931348623157e308'", "'é日本'", "'hello world'", 'false', "'infinity'", "'infinity'", "'1 year 36 hours'"],
  ['5', '-32768', '-2147483648', '-9007199254740991', "'NaN'", "'NaN'", "'NaN'", "'😀x'", "' a b '", 'true', "'-infinity'", "'-infinity'", "'-178000000 years'"],
  ['6', '7', '42', '2147483648', '-0.001', "'Infinity'", "'Infinity'", "'ｘ a%b_c '", "'XyZ'", 'false', "'0044-03-15 BC'", "'2000-01-01 00:00:00'", "'00:00:00.000001'"],
  ['7', '-3', '100', '10', '10000000000', "'-Infinity'", "'-Infinity'", "'a.b(c'", "'0'", 'false', "'2000-02-28'", "'1900-03-01 01:02:03'", "'-5 days'"],
  ['8', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL'],
]

export const EXPR_TABLE = {
  create: (name: string): string => `CREATE TABLE ${name} (${COLUMN_ORDER.map((c) => `${c} ${SQL_TYPE[COLUMN_TYPE[c]!]}${c === 'id' ? ' PRIMARY KEY' : ''}`).join(', ')})`,
  insert: (name: string): string => `INSERT INTO ${name} VALUES ${ROWS.map((r) => `(${r.join(', ')})`).join(', ')}`,
  columns: COLUMN_ORDER,
  /** The rows as SQL literals, in column order. */
  literals: ROWS,
  /** The subset of columns the SQLite table has (integers, ASCII text, boolean as 0/1). */
  sqliteColumns: ['id', 'i2', 'i4', 'i8', 'sa', 'b'] as const,
  rowCount: ROWS.length,
}

/** The SQLite table: the same rows, its columns only. */
export function sqliteTable(name: string): { create: string; insert: string } {
  const keep = EXPR_TABLE.sqliteColumns.map((c) => COLUMN_ORDER.indexOf(c))
  const lit = (s: string) => (s === 'true' ? '1' : s === 'false' ? '0' : s)
  return {
    create: `CREATE TABLE ${name} (${EXPR_TABLE.sqliteColumns.map((c) => `${c} ${c === 'sa' ? 'TEXT' : 'INTEGER'}`).join(', ')})`,
    insert: `INSERT INTO ${name} VALUES ${ROWS.map((r) => `(${keep.map((i) => lit(r[i]!)).join(', ')})`).join(', ')}`,
  }
}

// ------------------------------------------------------------------------------ rendering

const atom = (sql: string, type: ExprType): Expr => ({ sql, type, form: 'atom' })
const op = (sql: string, type: ExprType): Expr => ({ sql, type, form: 'op' })
/** An operand of a binary operator or postfix form: parenthesized unless an atom. */
const operand = (e: Expr): string => (e.form === 'atom' ? e.sql : `(${e.sql})`)
/** The operand of a prefix operator: atoms and prefix operations as they are. */
const prefixOperand = (e: Expr): string => (e.form === 'op' ? `(${e.sql})` : e.sql)
const prefix = (symbol: string, e: Expr, type: ExprType): Expr => ({ sql: `${symbol} ${prefixOperand(e)}`, type, form: 'prefix' })
const binary = (l: Expr, symbol: string, r: Expr, type: ExprType): Expr => op(`${operand(l)} ${symbol} ${operand(r)}`, type)
const fn = (name: string, args: readonly (Expr | string)[], type: ExprType): Expr => atom(`${name}(${args.map((a) => (typeof a === 'string' ? a : a.sql)).join(', ')})`, type)

// ------------------------------------------------------------------------------ literals

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs)
/** One of `f(k)` for the given keys (a oneof rather than a chain, so it shrinks well). */
const over = <K, T>(keys: readonly K[], f: (k: K) => fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof(...keys.map(f))

const INT_LITERALS: Record<string, readonly string[]> = {
  smallint: ['0', '1', '-1', '2', '32767', '-32768', '100'],
  integer: ['0', '1', '-1', '3', '2147483647', '-2147483648', '-2147483647', '1000', '65536'],
  bigint: ['0', '1', '-1', '2147483648', '-2147483649', '9007199254740991', '-9007199254740991', '4294967296', '3037000499'],
}

/** A literal of `t`, in one of the spellings SQL has for it (typed literals, CAST, ::). */
function literal(t: ExprType): fc.Arbitrary<Expr> {
  const cast = (text: string, form: number): Expr => {
    const name = SQL_TYPE[t]
    return form === 0 ? atom(`CAST(${text} AS ${name})`, t) : atom(`${text}::${name.toLowerCase()}`, t)
  }
  const spelled = (texts: readonly string[]) => fc.tuple(pick(texts), fc.integer({ min: 0, max: 1 })).map(([x, f]) => cast(x, f))
  switch (t) {
    case 'smallint':
      return spelled(INT_LITERALS.smallint!)
    case 'integer':
      // bare integer literals are integers (a minus folds into them)
      return fc.oneof(pick(INT_LITERALS.integer!).map((x) => atom(x, t)), spelled(INT_LITERALS.integer!))
    case 'bigint':
      return spelled(INT_LITERALS.bigint!)
    case 'numeric':
      return fc.oneof(pick(['0.5', '1.25', '-3.75', '0.001', '100.0', '123456789.123']).map((x) => atom(x, t)), spelled(["'NaN'", '0', '-0.0', '1e10', "'-12.5'", '2.5']))
    case 'real':
      return spelled(["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '0', '1.5', "'3.4e38'", "'1e-45'", '0.1'])
    case 'double':
      return spelled(["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '0', '0.1', '1e308', "'5e-324'", "'2.5'", '-1'])
    case 'text':
      return pick(["''", "'abc'", "'ABC'", "'a'", "'é'", "'日本'", "'😀'", "'ｘ'", "'\uFFFD'", "'a b'", "' x '", "'%'", "'_'", "'\\'", "'a.c'", "'123'", "'-5'", "'true'"]).map((x) => atom(x, t))
    case 'boolean':
      return fc.oneof(pick(['TRUE', 'FALSE']).map((x) => atom(x, t)), spelled(["'t'", "'no'", "'on'"]))
    case 'date':
      return fc.oneof(
        pick(["DATE '2024-02-29'", "DATE '1970-01-01'", "DATE 'infinity'", "DATE '2000-12-31'", "DATE '0001-01-01'"]).map((x) => atom(x, t)),
        spelled(["'2023-03-31'", "'-infinity'", "'1999-01-01'"]),
      )
    case 'timestamp':
      return fc.oneof(
        pick(["TIMESTAMP '2024-02-29 23:59:59.5'", "TIMESTAMP '1970-01-01 00:00:00'", "TIMESTAMP 'infinity'", "TIMESTAMP '2000-01-31 12:00:00'"]).map((x) => atom(x, t)),
        spelled(["'2021-06-15 08:30:00'", "'-infinity'", "'1960-05-05 05:05:05.123456'"]),
      )
    case 'interval':
      return fc.oneof(
        pick(["INTERVAL '1 day'", "INTERVAL '1 month'", "INTERVAL '-2 hours'", "INTERVAL '1 year 2 months 3 days 04:05:06.789'", "INTERVAL '0'", "INTERVAL '30 days'"]).map((x) => atom(x, t)),
        spelled(["'24 hours'", "'-1 mon'", "'1.5 days'"]),
      )
  }
}

const nullOf = (t: ExprType): fc.Arbitrary<Expr> => fc.integer({ min: 0, max: 1 }).map((f) => (f === 0 ? atom(`CAST(NULL AS ${SQL_TYPE[t]})`, t) : atom(`NULL::${SQL_TYPE[t].toLowerCase()}`, t)))
const column = (t: ExprType): fc.Arbitrary<Expr> => pick(COLUMNS[t]).map((c) => atom(c, t))

// ------------------------------------------------------------------------------ types

const RANK: Partial<Record<ExprType, number>> = { smallint: 1, integer: 2, bigint: 3, numeric: 4, real: 5, double: 6 }
/** The result type of + - * / on two numeric types (PG: the wider one). */
const wider = (a: ExprType, b: ExprType): ExprType => (RANK[a]! >= RANK[b]! ? a : b)
/** Numeric type pairs whose wider type is `t`. */
const pairsFor = (t: ExprType): [ExprType, ExprType][] =>
  NUMERIC_TYPES.flatMap((a) => NUMERIC_TYPES.map((b): [ExprType, ExprType] => [a, b])).filter(([a, b]) => wider(a, b) === t && (a === t || b === t))

/** Types castable to `t` with CAST (PG's explicit casts among ours). */
function castSources(t: ExprType): ExprType[] {
  const all = EXPR_TYPES.filter((f) => f !== t)
  if (t === 'text') return all
  if (RANK[t] !== undefined) return ['text', ...NUMERIC_TYPES.filter((f) => f !== t), ...(t === 'integer' ? ['boolean' as const] : [])]
  if (t === 'boolean') return ['text', 'integer']
  if (t === 'date') return ['text', 'timestamp']
  if (t === 'timestamp') return ['text', 'date']
  return ['text']
}

// ------------------------------------------------------------------------------ expressions

export interface GenOptions {
  /** Maximum nesting depth. */
  readonly depth: number
}

/** Generators of expressions of each type at each depth (built lazily, shared). */
class Grammar {
  readonly #cache = new Map<string, fc.Arbitrary<Expr>>()

  expr(t: ExprType, depth: number): fc.Arbitrary<Expr> {
    const key = `${t}:${depth}`
    let a = this.#cache.get(key)
    if (a === undefined) {
      const leaves = fc.oneof({ withCrossShrink: true }, { arbitrary: column(t), weight: 4 }, { arbitrary: literal(t), weight: 3 }, { arbitrary: nullOf(t), weight: 1 })
      // cross shrinking: a failing compound expression shrinks to a leaf where it still fails
      a = depth <= 0 ? leaves : fc.oneof({ withCrossShrink: true }, { arbitrary: leaves, weight: 3 }, { arbitrary: this.#compound(t, depth - 1), weight: 7 })
      this.#cache.set(key, a)
    }
    return a
  }

  readonly #compounds = new Map<string, fc.Arbitrary<Expr>>()

  #compound(t: ExprType, d: number): fc.Arbitrary<Expr> {
    const key = `${t}:${d}`
    let a = this.#compounds.get(key)
    if (a === undefined) {
      const shared = [...this.#generic(t, d)]
      const own = RANK[t] !== undefined ? this.#numeric(t, d) : t === 'text' ? this.#text(d) : t === 'boolean' ? this.#boolean(d) : this.#temporal(t, d)
      a = fc.oneof(...shared, ...own)
      this.#compounds.set(key, a)
    }
    return a
  }

  /** Forms of every type: CASE (both forms), COALESCE, NULLIF, casts, parentheses, greatest/least. */
  #generic(t: ExprType, d: number): fc.Arbitrary<Expr>[] {
    const e = this.expr(t, d)
    const b = this.expr('boolean', d)
    const searched = fc
      .tuple(fc.array(fc.tuple(b, e), { minLength: 1, maxLength: 3 }), fc.option(e, { nil: undefined }))
      .map(([whens, els]) => atom(`CASE ${whens.map(([w, x]) => `WHEN ${w.sql} THEN ${x.sql}`).join(' ')}${els ? ` ELSE ${els.sql}` : ''} END`, t))
    const simpleOperand = over(['integer', 'text', 'boolean', 'double'] as const, (k) => {
      const o = this.expr(k, d)
      return fc.tuple(o, fc.array(fc.tuple(o, e), { minLength: 1, maxLength: 3 }), fc.option(e, { nil: undefined }))
    })
    const simple = simpleOperand.map(([x, whens, els]) => atom(`CASE ${x.sql} ${whens.map(([w, r]) => `WHEN ${w.sql} THEN ${r.sql}`).join(' ')}${els ? ` ELSE ${els.sql}` : ''} END`, t))
    const coalesce = fc.array(e, { minLength: 1, maxLength: 4 }).map((xs) => fn('COALESCE', xs, t))
    const nullif = fc.tuple(e, e).map(([x, y]) => fn('NULLIF', [x, y], t))
    const paren = e.map((x) => atom(`(${x.sql})`, t))
    const casts = over(castSources(t), (from) => fc.tuple(this.expr(from, d), fc.integer({ min: 0, max: 1 })))
    const cast = casts.map(([x, form]) => (form === 0 ? atom(`CAST(${x.sql} AS ${SQL_TYPE[t]})`, t) : atom(`${operand(x)}::${SQL_TYPE[t].toLowerCase()}`, t)))
    const out = [searched, simple, coalesce, nullif, paren, cast]
    if (t !== 'boolean') out.push(fc.tuple(pick(['GREATEST', 'LEAST']), fc.array(e, { minLength: 1, maxLength: 3 })).map(([f, xs]) => fn(f, xs, t)))
    return out
  }

  /** A constant of `t` as written, or in a form constant folding reduces to one. */
  #constant(t: ExprType): fc.Arbitrary<Expr> {
    const l = literal(t)
    return fc.oneof(
      l,
      fc.tuple(l, column(t)).map(([x, c]) => fn('COALESCE', [x, c], t)),
      l.map((x) => atom(`CASE WHEN TRUE THEN ${x.sql} END`, t)),
      fc.tuple(l, column(t)).map(([x, c]) => atom(`CASE WHEN FALSE THEN ${c.sql} ELSE ${x.sql} END`, t)),
    )
  }

  #numeric(t: ExprType, d: number): fc.Arbitrary<Expr>[] {
    const e = this.expr(t, d)
    const pairs = pairsFor(t)
    const arith = over(pairs, ([a, b]) => fc.tuple(this.expr(a, d), pick(['+', '-', '*', '/']), this.expr(b, d)))
    const out: fc.Arbitrary<Expr>[] = [
      arith.map(([l, o, r]) => binary(l, o, r, t)),
      fc.tuple(pick(['-', '+']), e).map(([s, x]) => prefix(s, x, t)),
      // nested prefix operators, the shape that once compiled to `--x`
      fc.tuple(fc.array(pick(['-', '+']), { minLength: 2, maxLength: 4 }), e).map(([ss, x]) => ss.reduceRight((acc, s) => prefix(s, acc, t), x)),
      // prefix operators over constants the planner folds (a literal, a CASE or COALESCE that
      // folds to one): the operand compiles to a constant, perhaps negative
      fc.tuple(fc.array(pick(['-', '+']), { minLength: 1, maxLength: 3 }), this.#constant(t)).map(([ss, x]) => ss.reduceRight((acc, s) => prefix(s, acc, t), x)),
      e.map((x) => fn('abs', [x], t)),
      // one subexpression twice (the compiler computes a repeated call once per row)
      fc.tuple(e, pick(['+', '-', '*'])).map(([x, o]) => binary(x, o, x, t)),
    ]
    if (INT_TYPES.includes(t)) {
      out.push(
        over(pairs.filter(([a, b]) => INT_TYPES.includes(a) && INT_TYPES.includes(b)), ([a, b]) => fc.tuple(this.expr(a, d), pick(['%', '&', '|', '#']), this.expr(b, d))).map(([l, o, r]) => binary(l, o, r, t)),
        fc.tuple(e, pick(['<<', '>>']), this.expr('integer', d)).map(([l, o, r]) => binary(l, o, r, t)),
        e.map((x) => prefix('~', x, t)),
        fc.tuple(e, e).map(([x, y]) => fn('mod', [x, y], t)),
      )
    }
    if (t === 'integer') {
      const s = this.expr('text', d)
      out.push(
        fc.tuple(pick(['length', 'char_length', 'octet_length', 'ascii']), s).map(([f, x]) => fn(f, [x], t)),
        fc.tuple(s, s).map(([x, y]) => fn('strpos', [x, y], t)),
        fc.tuple(s, s).map(([x, y]) => atom(`POSITION(${operand(y)} IN ${operand(x)})`, t)),
        fc.tuple(this.expr('date', d), this.expr('date', d)).map(([x, y]) => binary(x, '-', y, t)),
        fc.tuple(s, s).map(([x, y]) => fn('regexp_count', [x, y], t)),
        fc.tuple(pick(['regexp_count', 'regexp_instr']), s, pick(["'b'", "'[a-c]'", "'x|é'", "'('"]), pick(['1', '2', '0', '-1'])).map(([f, x, p, n]) => fn(f, [x, p, n], t)),
        s.map((x) => fn('bit_length', [x], t)),
        // the count idiom the compiler rewrites to a count of indexOf hits
        fc.tuple(s, pick(["'a'", "'b'", "''", "'é'", "'ab'", "' '"])).map(([x, p]) => op(`length(${x.sql}) - length(replace(${x.sql}, ${p}, ''))`, t)),
      )
    }
    if (t === 'numeric' || t === 'double') {
      out.push(
        fc.tuple(pick(['round', 'ceil', 'floor', 'trunc', 'sign', 'sqrt', 'exp', 'ln', 'log']), e).map(([f, x]) => fn(f, [x], t)),
        fc.tuple(e, e).map(([x, y]) => binary(x, '^', y, t)),
        fc.tuple(e, e).map(([x, y]) => fn('power', [x, y], t)),
      )
    }
    if (t === 'numeric') {
      const f = pick(['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'EPOCH', 'DOW', 'QUARTER', 'JULIAN', 'ISODOW', 'WEEK', 'ISOYEAR', 'MILLISECONDS', 'MICROSECONDS', 'CENTURY', 'DECADE', 'DOY', 'MILLENNIUM'])
      out.push(
        fc.tuple(e, this.expr('integer', d)).map(([x, n]) => fn('round', [x, n], t)),
        fc.tuple(e, e).map(([x, y]) => binary(x, '%', y, t)),
        fc.tuple(e, e).map(([x, y]) => fn('div', [x, y], t)),
        fc.tuple(e, e).map(([x, y]) => fn('log', [x, y], t)),
        fc.tuple(e, this.expr('integer', d)).map(([x, n]) => fn('trunc', [x, n], t)),
        fc.tuple(f, over(['timestamp', 'date', 'interval'] as const, (k) => this.expr(k, d))).map(([field, x]) => atom(`EXTRACT(${field} FROM ${x.sql})`, t)),
      )
    }
    if (t === 'double') {
      out.push(
        fc.tuple(pick(['sin', 'cos', 'atan', 'cbrt', 'degrees', 'radians', 'asin']), e).map(([f, x]) => fn(f, [x], t)),
        fc.tuple(pick(["'year'", "'hour'", "'epoch'", "'day'", "'dow'", "'microseconds'", "'week'"]), over(['timestamp', 'date', 'interval'] as const, (k) => this.expr(k, d))).map(([f, x]) => fn('date_part', [f, x], t)),
        fc.tuple(e, e).map(([x, y]) => fn('atan2', [x, y], t)),
        fc.constant(fn('pi', [], t)),
      )
    }
    return out
  }

  #text(d: number): fc.Arbitrary<Expr>[] {
    const s = this.expr('text', d)
    const small = fc.oneof(pick(['0', '1', '2', '3', '-1', '5']).map((x) => atom(x, 'integer')), this.expr('smallint', 0).map((x) => atom(`(${x.sql} % 8)`, 'integer')))
    const pattern = pick(["'b'", "'[a-c]+'", "'(x'", "'^a'", "'.'", "''", "'\\d'"]).map((x) => atom(x, 'text'))
    const anyType = over(EXPR_TYPES, (k) => this.expr(k, d))
    return [
      fc.tuple(s, s).map(([x, y]) => binary(x, '||', y, 'text')),
      fc.tuple(s, anyType, fc.boolean()).map(([x, y, left]) => (left ? binary(x, '||', y, 'text') : binary(y, '||', x, 'text'))),
      fc.tuple(pick(['lower', 'upper', 'reverse', 'initcap', 'md5', 'btrim', 'ltrim', 'rtrim']), s).map(([f, x]) => fn(f, [x], 'text')),
      fc.tuple(pick(['btrim', 'ltrim', 'rtrim']), s, s).map(([f, x, y]) => fn(f, [x, y], 'text')),
      fc.tuple(s, small, fc.option(small, { nil: undefined })).map(([x, a, b]) => fn('substr', b ? [x, a, b] : [x, a], 'text')),
      fc.tuple(s, small, small).map(([x, a, b]) => atom(`SUBSTRING(${x.sql} FROM ${a.sql} FOR ${b.sql})`, 'text')),
      fc.tuple(s, pattern).map(([x, p]) => atom(`SUBSTRING(${x.sql} FROM ${p.sql})`, 'text')),
      fc.tuple(s, s, s).map(([x, y, z]) => fn('replace', [x, y, z], 'text')),
      fc.tuple(s, s, s).map(([x, y, z]) => fn('translate', [x, y, z], 'text')),
      fc.tuple(pick(['lpad', 'rpad']), s, small, fc.option(s, { nil: undefined })).map(([f, x, n, fill]) => fn(f, fill ? [x, n, fill] : [x, n], 'text')),
      fc.tuple(pick(['left', 'right', 'repeat']), s, small).map(([f, x, n]) => fn(f, [x, n], 'text')),
      fc.tuple(s, pick(["' '", "'b'", "''", "'%'"]), small).map(([x, y, n]) => fn('split_part', [x, y, n], 'text')),
      // split_part calls of one text and delimiter (the compiler shares one split)
      fc.tuple(s, pick(["' '", "'b'", "'/'", "'a'"]), pick(['1', '2', '3', '0', '-1'])).map(([x, y, n]) => binary(fn('split_part', [x, y, n], 'text'), '||', fn('split_part', [x, y, '2'], 'text'), 'text')),
      fc.tuple(pick(['LEADING', 'TRAILING', 'BOTH']), s, s).map(([w, c, x]) => atom(`TRIM(${w} ${c.sql} FROM ${x.sql})`, 'text')),
      fc.array(anyType, { minLength: 1, maxLength: 3 }).map((xs) => fn('concat', xs, 'text')),
      fc.tuple(s, fc.array(anyType, { minLength: 1, maxLength: 3 })).map(([sep, xs]) => fn('concat_ws', [sep, ...xs], 'text')),
      fc.tuple(s, fc.oneof(pattern, s), s).map(([x, p, r]) => fn('regexp_replace', [x, p, r], 'text')),
      fc.tuple(s, pattern, pick(["'X'", "''", "'\\&'", "'<\\1>'"]), pick(["'g'", "'i'", "'gi'", "'z'"])).map(([x, p, r, f]) => fn('regexp_replace', [x, p, r, f], 'text')),
      fc.tuple(s, pattern).map(([x, p]) => fn('regexp_substr', [x, p], 'text')),
      pick(['65', '0', '233', '128512', '-1', '1114112']).map((n) => fn('chr', [n], 'text')),
      fc.tuple(this.expr('timestamp', d), pick(["'YYYY-MM-DD HH24:MI:SS'", "'Day DD Mon'", "'Q'", "'US'", "'HH12:MI AM'", "'FMDay FMMonth'", "'J WW IW'", "'YYYY BC'", "'\"text\" MS'"])).map(([x, f]) => fn('to_char', [x, f], 'text')),
    ]
  }

  #boolean(d: number): fc.Arbitrary<Expr>[] {
    const b = this.expr('boolean', d)
    const s = this.expr('text', d)
    const same = over(EXPR_TYPES, (k) => fc.tuple(this.expr(k, d), this.expr(k, d)))
    // mixed numeric types compare after promotion
    const mixed = fc.tuple(over(NUMERIC_TYPES, (k) => this.expr(k, d)), over(NUMERIC_TYPES, (k) => this.expr(k, d)))
    const cmp = pick(['=', '<>', '<', '<=', '>', '>=', '!='])
    const likePattern = fc.oneof(pick(["'a%'", "'%b%'", "'_'", "'%'", "''", "'A_C'", "'a\\%b'", "'%\\'"]).map((x) => atom(x, 'text')), s)
    return [
      fc.tuple(fc.oneof(same, mixed), cmp).map(([[x, y], o]) => binary(x, o, y, 'boolean')),
      fc.tuple(b, pick(['AND', 'OR']), b).map(([x, o, y]) => binary(x, o, y, 'boolean')),
      // a chain of AND / OR without parentheses (precedence decides the grouping)
      fc.tuple(b, fc.array(fc.tuple(pick(['AND', 'OR']), b), { minLength: 2, maxLength: 4 })).map(([x, rest]) => op([operand(x), ...rest.map(([o, y]) => `${o} ${operand(y)}`)].join(' '), 'boolean')),
      fc.tuple(fc.integer({ min: 1, max: 3 }), b).map(([n, x]) => Array.from({ length: n }).reduce<Expr>((acc) => prefix('NOT', acc, 'boolean'), x)),
      fc.tuple(over(EXPR_TYPES, (k) => this.expr(k, d)), pick(['IS NULL', 'IS NOT NULL'])).map(([x, t]) => op(`${operand(x)} ${t}`, 'boolean')),
      fc.tuple(b, pick(['IS TRUE', 'IS NOT TRUE', 'IS FALSE', 'IS NOT FALSE', 'IS UNKNOWN', 'IS NOT UNKNOWN'])).map(([x, t]) => op(`${operand(x)} ${t}`, 'boolean')),
      fc.tuple(same, pick(['IS DISTINCT FROM', 'IS NOT DISTINCT FROM'])).map(([[x, y], o]) => binary(x, o, y, 'boolean')),
      over(EXPR_TYPES, (k) => fc.tuple(this.expr(k, d), fc.array(this.expr(k, d), { minLength: 1, maxLength: 5 }), fc.boolean()))
        .map(([x, xs, not]) => op(`${operand(x)} ${not ? 'NOT IN' : 'IN'} (${xs.map((y) => y.sql).join(', ')})`, 'boolean')),
      over(EXPR_TYPES.filter((k) => k !== 'boolean'), (k) => fc.tuple(this.expr(k, d), this.expr(k, d), this.expr(k, d), pick(['BETWEEN', 'NOT BETWEEN', 'BETWEEN SYMMETRIC'])))
        .map(([x, lo, hi, w]) => op(`${operand(x)} ${w} ${operand(lo)} AND ${operand(hi)}`, 'boolean')),
      fc.tuple(s, pick(['LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE']), likePattern, fc.option(pick(["'#'", "''", "'\\'", "'ab'"]), { nil: undefined })).map(([x, o, p, esc]) =>
        op(`${operand(x)} ${o} ${operand(p)}${esc !== undefined ? ` ESCAPE ${esc}` : ''}`, 'boolean'),
      ),
      fc.tuple(s, pick(['~', '~*', '!~', '!~*']), fc.oneof(pick(["'b'", "'^[a-c]'", "'(x'", "'.*'", "'\\w+'", "'A|é'"]).map((x) => atom(x, 'text')), s)).map(([x, o, p]) => binary(x, o, p, 'boolean')),
      fc.tuple(s, s).map(([x, y]) => fn('starts_with', [x, y], 'boolean')),
      // lower/upper of a column compared with constants (the compiler skips longer values)
      fc.tuple(pick(['lower', 'upper']), pick(COLUMNS.text), pick(['=', '<>']), pick(["'abc'", "'ABC'", "''", "'é日本'", "'a%b_c'"])).map(([f, c, o, l]) => op(`${f}(${c}) ${o} ${l}`, 'boolean')),
      fc.tuple(pick(['lower', 'upper']), pick(COLUMNS.text), fc.boolean(), fc.array(pick(["'abc'", "'ABC'", "''", "'hello world'", 'NULL', "'XYZ'"]), { minLength: 1, maxLength: 3 })).map(([f, c, not, ls]) =>
        op(`${f}(${c}) ${not ? 'NOT IN' : 'IN'} (${ls.join(', ')})`, 'boolean'),
      ),
      // one operand twice
      over(EXPR_TYPES, (k) => fc.tuple(this.expr(k, d), cmp)).map(([x, o]) => binary(x, o, x, 'boolean')),
      fc.tuple(s, s).map(([x, y]) => fn('regexp_like', [x, y], 'boolean')),
      fc.tuple(s, pick(["'B'", "'^A'", "'é'"]), pick(["'i'", "'c'", "''"])).map(([x, p, f]) => fn('regexp_like', [x, p, f], 'boolean')),
      // a date compared with a timestamp (promoted)
      fc.tuple(this.expr('date', d), cmp, this.expr('timestamp', d)).map(([x, o, y]) => binary(x, o, y, 'boolean')),
      over(['timestamp', 'date', 'interval'] as const, (k) => this.expr(k, d)).map((x) => fn('isfinite', [x], 'boolean')),
    ]
  }

  #temporal(t: ExprType, d: number): fc.Arbitrary<Expr>[] {
    const iv = this.expr('interval', d)
    const ts = this.expr('timestamp', d)
    const date = this.expr('date', d)
    const num = this.expr('double', d)
    const small = pick(['0', '1', '-1', '2', '12', '31', '2000', '-5'])
    if (t === 'date') {
      return [
        fc.tuple(date, pick(['+', '-']), this.expr('integer', d)).map(([x, o, n]) => binary(x, o, n, t)),
        fc.tuple(this.expr('integer', d), date).map(([n, x]) => binary(n, '+', x, t)),
        ts.map((x) => fn('date', [x], t)),
        fc.tuple(small, small, small).map(([y, m, dd]) => fn('make_date', [y, m, dd], t)),
      ]
    }
    if (t === 'timestamp') {
      return [
        fc.tuple(ts, pick(['+', '-']), iv).map(([x, o, i]) => binary(x, o, i, t)),
        fc.tuple(iv, ts).map(([i, x]) => binary(i, '+', x, t)),
        fc.tuple(date, pick(['+', '-']), iv).map(([x, o, i]) => binary(x, o, i, t)),
        fc.tuple(pick(["'year'", "'month'", "'week'", "'day'", "'hour'", "'millennium'", "'quarter'"]), ts).map(([f, x]) => fn('date_trunc', [f, x], t)),
        num.map((x) => fn('to_timestamp', [x], t)),
        fc.tuple(pick(["'day'", "'month'", "'year'"]), date).map(([f, x]) => fn('date_trunc', [f, x], t)),
        fc.tuple(small, small, small, small, small, pick(['0', '59.999999', '1.5', '60'])).map((xs) => fn('make_timestamp', xs, t)),
        fc.tuple(iv, ts, ts).map(([a, b, c]) => fn('date_bin', [a, b, c], t)),
      ]
    }
    return [
      fc.tuple(iv, pick(['+', '-']), iv).map(([x, o, y]) => binary(x, o, y, t)),
      iv.map((x) => prefix('-', x, t)),
      fc.tuple(fc.array(pick(['-', '+']), { minLength: 2, maxLength: 3 }), iv).map(([ss, x]) => ss.reduceRight((acc, s) => prefix(s, acc, t), x)),
      fc.tuple(iv, pick(['*', '/']), num).map(([x, o, y]) => binary(x, o, y, t)),
      fc.tuple(num, iv).map(([y, x]) => binary(y, '*', x, t)),
      fc.tuple(iv, pick(['*', '/']), this.expr('integer', d)).map(([x, o, y]) => binary(x, o, y, t)),
      fc.tuple(ts, ts).map(([x, y]) => binary(x, '-', y, t)),
      fc.tuple(pick(['justify_days', 'justify_hours', 'justify_interval']), iv).map(([f, x]) => fn(f, [x], t)),
      fc.tuple(ts, ts).map(([x, y]) => fn('age', [x, y], t)),
      fc.array(small, { minLength: 0, maxLength: 4 }).map((xs) => fn('make_interval', xs, t)),
      fc.tuple(pick(["'year'", "'day'", "'hour'", "'month'"]), iv).map(([f, x]) => fn('date_trunc', [f, x], t)),
    ]
  }
}

const GRAMMAR = new Grammar()

/** An expression of type `t` nested at most `depth` deep. */
export function expr(t: ExprType, depth: number): fc.Arbitrary<Expr> {
  return GRAMMAR.expr(t, depth)
}

/** An expression of any of our types. */
export function anyExpr(depth: number): fc.Arbitrary<Expr> {
  return over(EXPR_TYPES, (t) => GRAMMAR.expr(t, depth))
}

// ------------------------------------------------------------------------------ the SQLite subset

// Where SQLite (better-sqlite3) and PostgreSQL agree, over the integer columns i2 i4 i8 id,
// the ASCII text column sa and the boolean column b (stored as 0/1 in SQLite):
//   integer + - * / % (both truncate toward zero; SQLite's division by zero gives NULL and it
//   promotes overflowing results to REAL where PostgreSQL raises, so an expression is compared
//   only when rivulet's answer is one value on every row, never an error), prefix - and +
//   (nested), abs; comparisons = <> < <= > >= on
//   integers, ASCII texts and booleans; AND OR NOT; IS [NOT] NULL; IS [NOT] DISTINCT FROM
//   (SQLite spells it IS NOT / IS); x [NOT] IN (list); BETWEEN; CASE (both forms); COALESCE;
//   NULLIF; || of texts; length lower upper on ASCII; substr(s, a, b) with a ≥ 1 and b ≥ 0;
//   LIKE and ILIKE on ASCII patterns without escapes (SQLite runs with case_sensitive_like;
//   ILIKE becomes `lower(x) LIKE lower(p)`); CAST(integer AS TEXT). NULLs are typed
//   (`CAST(NULL AS INTEGER)`): PostgreSQL resolves `abs(NULL)` to abs(double precision).
// Booleans compare as 0/1. Each expression is rendered twice: for rivulet and for SQLite.

export interface DualExpr {
  readonly pg: string
  readonly lite: string
  readonly type: 'integer' | 'text' | 'boolean'
  readonly form: Expr['form']
}

type LiteType = DualExpr['type']
const dual = (pg: string, lite: string, type: LiteType, form: Expr['form'] = 'atom'): DualExpr => ({ pg, lite, type, form })
const dOperand = (e: DualExpr, which: 'pg' | 'lite') => (e.form === 'atom' ? e[which] : `(${e[which]})`)
const dPrefixOperand = (e: DualExpr, which: 'pg' | 'lite') => (e.form === 'op' ? `(${e[which]})` : e[which])
const dBinary = (l: DualExpr, o: string, r: DualExpr, type: LiteType, liteOp = o): DualExpr =>
  dual(`${dOperand(l, 'pg')} ${o} ${dOperand(r, 'pg')}`, `${dOperand(l, 'lite')} ${liteOp} ${dOperand(r, 'lite')}`, type, 'op')
const dFn = (name: string, args: readonly DualExpr[], type: LiteType): DualExpr => dual(`${name}(${args.map((a) => a.pg).join(', ')})`, `${name}(${args.map((a) => a.lite).join(', ')})`, type)
const same = (sql: string, type: LiteType, form: Expr['form'] = 'atom') => dual(sql, sql, type, form)

class LiteGrammar {
  readonly #cache = new Map<string, fc.Arbitrary<DualExpr>>()

  expr(t: LiteType, depth: number): fc.Arbitrary<DualExpr> {
    const key = `${t}:${depth}`
    let a = this.#cache.get(key)
    if (a === undefined) {
      const leaves = this.#leaf(t)
      a = depth <= 0 ? leaves : fc.oneof({ withCrossShrink: true }, { arbitrary: leaves, weight: 3 }, { arbitrary: fc.oneof(...this.#compound(t, depth - 1)), weight: 7 })
      this.#cache.set(key, a)
    }
    return a
  }

  #leaf(t: LiteType): fc.Arbitrary<DualExpr> {
    switch (t) {
      case 'integer':
        return fc.oneof(pick(['i2', 'i4', 'i8', 'id']).map((c) => same(c, t)), pick(['0', '1', '-1', '7', '-32768', '2147483647', '-2147483648', '100']).map((x) => same(x, t)), fc.constant(same('CAST(NULL AS INTEGER)', t)))
      case 'text':
        return fc.oneof(fc.constant(same('sa', t)), pick(["''", "'abc'", "'ABC'", "'a%'", "'b_c'", "' x '", "'hello'"]).map((x) => same(x, t)), fc.constant(same('CAST(NULL AS TEXT)', t)))
      case 'boolean':
        return fc.oneof(fc.constant(same('b', t)), pick(['TRUE', 'FALSE']).map((x) => same(x, t)))
    }
  }

  #compound(t: LiteType, d: number): fc.Arbitrary<DualExpr>[] {
    const e = this.expr(t, d)
    const b = this.expr('boolean', d)
    const i = this.expr('integer', d)
    const s = this.expr('text', d)
    const generic: fc.Arbitrary<DualExpr>[] = [
      fc.tuple(fc.array(fc.tuple(b, e), { minLength: 1, maxLength: 3 }), fc.option(e, { nil: undefined })).map(([ws, els]) => {
        const r = (w: 'pg' | 'lite') => `CASE ${ws.map(([c, x]) => `WHEN ${c[w]} THEN ${x[w]}`).join(' ')}${els ? ` ELSE ${els[w]}` : ''} END`
        return dual(r('pg'), r('lite'), t)
      }),
      fc.tuple(i, fc.array(fc.tuple(i, e), { minLength: 1, maxLength: 3 }), fc.option(e, { nil: undefined })).map(([x, ws, els]) => {
        const r = (w: 'pg' | 'lite') => `CASE ${x[w]} ${ws.map(([c, y]) => `WHEN ${c[w]} THEN ${y[w]}`).join(' ')}${els ? ` ELSE ${els[w]}` : ''} END`
        return dual(r('pg'), r('lite'), t)
      }),
      // SQLite's COALESCE takes two or more arguments
      fc.array(e, { minLength: 2, maxLength: 3 }).map((xs) => dFn('COALESCE', xs, t)),
      fc.tuple(e, e).map(([x, y]) => dFn('NULLIF', [x, y], t)),
      e.map((x) => dual(`(${x.pg})`, `(${x.lite})`, t)),
    ]
    if (t === 'integer') {
      return [
        ...generic,
        fc.tuple(i, pick(['+', '-', '*', '/', '%']), i).map(([x, o, y]) => dBinary(x, o, y, t)),
        fc.tuple(fc.array(pick(['-', '+']), { minLength: 1, maxLength: 4 }), i).map(([ss, x]) =>
          ss.reduceRight((acc, sym) => dual(`${sym} ${dPrefixOperand(acc, 'pg')}`, `${sym} ${dPrefixOperand(acc, 'lite')}`, t, 'prefix'), x),
        ),
        i.map((x) => dFn('abs', [x], t)),
        s.map((x) => dFn('length', [x], t)),
      ]
    }
    if (t === 'text') {
      const pos = pick(['1', '2', '3'])
      const len = pick(['0', '1', '2', '5'])
      return [
        ...generic,
        fc.tuple(s, s).map(([x, y]) => dBinary(x, '||', y, t)),
        fc.tuple(pick(['lower', 'upper']), s).map(([f, x]) => dFn(f, [x], t)),
        fc.tuple(s, pos, len).map(([x, a, n]) => dual(`substr(${x.pg}, ${a}, ${n})`, `substr(${x.lite}, ${a}, ${n})`, t)),
        i.map((x) => dual(`CAST(${x.pg} AS TEXT)`, `CAST(${x.lite} AS TEXT)`, t)),
      ]
    }
    const cmp = pick(['=', '<>', '<', '<=', '>', '>='])
    const pair = fc.oneof(fc.tuple(i, i), fc.tuple(s, s), fc.tuple(b, b))
    return [
      ...generic,
      fc.tuple(pair, cmp).map(([[x, y], o]) => dBinary(x, o, y, t)),
      fc.tuple(b, pick(['AND', 'OR']), b).map(([x, o, y]) => dBinary(x, o, y, t)),
      fc.tuple(fc.integer({ min: 1, max: 3 }), b).map(([n, x]) =>
        Array.from({ length: n }).reduce<DualExpr>((acc) => dual(`NOT ${dPrefixOperand(acc, 'pg')}`, `NOT ${dPrefixOperand(acc, 'lite')}`, t, 'prefix'), x),
      ),
      fc.tuple(fc.oneof(i, s, b), pick(['IS NULL', 'IS NOT NULL'])).map(([x, o]) => dual(`${dOperand(x, 'pg')} ${o}`, `${dOperand(x, 'lite')} ${o}`, t, 'op')),
      fc.tuple(pair, fc.boolean()).map(([[x, y], distinct]) => dBinary(x, distinct ? 'IS DISTINCT FROM' : 'IS NOT DISTINCT FROM', y, t, distinct ? 'IS NOT' : 'IS')),
      fc
        .tuple(fc.oneof(fc.tuple(i, fc.array(i, { minLength: 1, maxLength: 4 })), fc.tuple(s, fc.array(s, { minLength: 1, maxLength: 4 }))), fc.boolean())
        .map(([[x, xs], not]) => {
          const r = (w: 'pg' | 'lite') => `${dOperand(x, w)} ${not ? 'NOT IN' : 'IN'} (${xs.map((y) => y[w]).join(', ')})`
          return dual(r('pg'), r('lite'), t, 'op')
        }),
      fc.tuple(i, i, i).map(([x, lo, hi]) => dual(`${dOperand(x, 'pg')} BETWEEN ${dOperand(lo, 'pg')} AND ${dOperand(hi, 'pg')}`, `${dOperand(x, 'lite')} BETWEEN ${dOperand(lo, 'lite')} AND ${dOperand(hi, 'lite')}`, t, 'op')),
      // ILIKE on ASCII is LIKE of the lower-cased operands (SQLite's LIKE is case-sensitive here)
      fc.tuple(s, fc.boolean(), fc.oneof(pick(["'a%'", "'%b%'", "'_'", "'%'", "''", "'A_C'", "'h%o'"]).map((x) => same(x, 'text')), s)).map(([x, ci, p]) =>
        dual(`${dOperand(x, 'pg')} ${ci ? 'ILIKE' : 'LIKE'} ${dOperand(p, 'pg')}`, ci ? `lower(${x.lite}) LIKE lower(${p.lite})` : `${dOperand(x, 'lite')} LIKE ${dOperand(p, 'lite')}`, t, 'op'),
      ),
    ]
  }
}

const LITE = new LiteGrammar()

/** An expression of the SQLite subset, rendered for both engines (SQLite with
 *  `PRAGMA case_sensitive_like = ON`). */
export function sqliteExpr(t: LiteType, depth: number): fc.Arbitrary<DualExpr> {
  return LITE.expr(t, depth)
}
