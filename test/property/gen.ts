// Random schemas, queries and DML for the view property tests and the SQLite oracle.
// Everything is built from fast-check combinators over SQL text (shrinkable); generation is
// type directed: every expression generator is asked for a type (int, text, bool).

import fc from 'fast-check'

export type ColType = 'int' | 'text'
/** Output column types: 'num' is AVG's numeric (compared with a tolerance, never reused in
 *  expressions), 'bool' only where booleans may be output. */
export type OutType = ColType | 'bool' | 'num'

export interface TableDef {
  readonly name: string
  readonly columns: readonly { readonly name: string; readonly type: ColType }[]
  /** Primary key on the first column. */
  readonly pk: boolean
}

export interface Schema {
  readonly tables: readonly TableDef[]
}

export interface Features {
  /** Restrict to where SQLite and Postgres agree. */
  readonly oracle: boolean
  /** Allowed query kinds (see QueryKind); all when undefined. */
  readonly kinds?: readonly QueryKind[]
  readonly subqueries: boolean
  readonly outerJoins: boolean
  readonly setOps: boolean
  /** Non-equi residual in outer join ON clauses. */
  readonly outerResidual: boolean
  /** Subqueries inside DML WHERE clauses. */
  readonly dmlSubqueries: boolean
}

/** Engine bugs / limitations the generator currently steers around (see the report); flip
 *  one to true to generate the construct again. */
export const KNOWN_BUGS_FIXED = {
  /** INSERT ... VALUES whose column is NULL in every row: 42804 "column is of type integer
   *  but expression is of type text" (the VALUES column defaults to text). */
  insertAllNullColumn: true,
  /** 0A000 "a correlated NOT IN subquery (use NOT EXISTS) is not supported yet". */
  correlatedNotIn: true,
  /** 0A000 "this form of correlated subquery (correlation outside its WHERE clause)" for
   *  `x IN (SELECT DISTINCT ... WHERE corr)`. */
  correlatedInDistinct: true,
  /** 0A000 "EXISTS / IN over a correlated aggregate subquery is not supported yet":
   *  `x IN (SELECT q.a FROM t q WHERE q.b = x.b GROUP BY q.a)`. */
  correlatedGroupedSubquery: true,
  /** 0A000 "a subquery nested in a correlated condition is not supported yet": any subquery
   *  inside a correlated subquery, or correlated to the query two levels out:
   *  `EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND EXISTS (SELECT 1 FROM w WHERE w.a = u.b))`. */
  subqueryInCorrelatedSubquery: true,
  /** Correlated subqueries in the select list / HAVING of a grouped query, referencing a
   *  grouped column: the binder leaves the outer reference pointing at the FROM row, so
   *  `SELECT x.b, (SELECT COUNT(*) FROM u WHERE u.a = x.b) FROM t x GROUP BY x.b` gives wrong
   *  rows (and `... GROUP BY x.a` with the subquery on x.b throws a TypeError instead of 42803). */
  subqueryOverGroupedColumns: true,
  /** 0A000 "a correlated IN (subquery) outside a top-level WHERE condition is not supported
   *  yet": `WHERE a = 1 OR a IN (SELECT u.a FROM u WHERE u.b = t.b)`, or in a select list.
   *  (Uncorrelated ones work there since f31c9bd.) */
  correlatedInSubqueryAnywhere: true,
  /** `1 NOT IN (SELECT a FROM u)` or `NOT ('a' IN (SELECT ...))` (constant operand): plain
   *  Error "internal: null-aware anti-join needs exactly one key column". */
  constantNotIn: true,
  /** 0A000 "LEFT/RIGHT/FULL JOIN with a condition that is not an equality between the two
   *  sides": residuals over both sides, or constant residuals (`AND FALSE`), in outer joins. */
  outerJoinCrossResidual: true,
  /** `(SELECT a AS c1 FROM t1) x0 LEFT JOIN t2 x1 ON x0.c1 = x1.a AND FALSE` (a constant
   *  conjunct in an outer join over a derived table or view): 0A000 "a correlated subquery whose
   *  correlation is not an equality ..." although there is no subquery. */
  outerJoinConstantConjunct: true,
  /** INSERT ... VALUES with two identical rows into a bag table inserts one. */
  insertDuplicateRows: true,
  /** Anti-joins (NOT IN / NOT EXISTS) evaluate the SELECT list / SET expressions on the rows
   *  they filter out: `SELECT c / 0 FROM t WHERE NOT EXISTS (...)` fails with 22012 though no
   *  row qualifies. */
  antiJoinEvaluatesFilteredRows: true,
  /** db.delete(t, rows) on a keyed table with the same key twice in `rows`: the deletion
   *  reaches the dataflow with weight -2 (`count(*)` views drop by 2) and the call returns 2. */
  apiDeleteDuplicateKeys: true,
}

export const ALL_FEATURES: Features = { oracle: false, subqueries: true, outerJoins: true, setOps: true, outerResidual: true, dmlSubqueries: true }

export type QueryKind = 'spj' | 'agg' | 'setop' | 'topn' | 'rownumber' | 'derived' | 'cte'

export interface Col {
  readonly sql: string
  readonly type: ColType
}
export type Scope = readonly Col[]

export interface Q {
  readonly sql: string
  readonly types: readonly OutType[]
  /** Ends in ORDER BY over every output column: an ad hoc read has one right row order. */
  readonly ordered?: boolean
}

interface Ctx {
  readonly schema: Schema
  readonly f: Features
  /** Subquery nesting level (aliases q1, q2, ...). */
  readonly level: number
  /** Remaining query nesting budget (derived tables, subqueries). */
  readonly budget: number
  /** Columns of the queries enclosing the current one beyond the immediate one (correlation
   *  from a nested subquery to an outer-outer query). */
  readonly outerChain?: Scope
}

// -------------------------------------------------------------------------------- schema

const COLUMN_NAMES = ['a', 'b', 'c', 'd']

export const colTypeArb: fc.Arbitrary<ColType> = fc.constantFrom<ColType>('int', 'text')

export const schemaArb: fc.Arbitrary<Schema> = fc
  .array(fc.record({ pk: fc.boolean(), types: fc.array(colTypeArb, { minLength: 2, maxLength: 4 }) }), { minLength: 2, maxLength: 3 })
  .map((ts) => ({
    tables: ts.map((t, i) => ({ name: `t${i}`, pk: t.pk, columns: t.types.map((type, j) => ({ name: COLUMN_NAMES[j]!, type })) })),
  }))

export function createTableSql(t: TableDef, sqlite = false): string {
  const cols = t.columns.map((c, i) => `${c.name} ${c.type === 'int' ? 'INT' : 'TEXT'}${t.pk && i === 0 ? (sqlite ? ' NOT NULL PRIMARY KEY' : ' PRIMARY KEY') : ''}`)
  return `CREATE TABLE ${t.name} (${cols.join(', ')})`
}

// -------------------------------------------------------------------------------- values

/** A cell: a small integer or NULL, read as a letter for TEXT columns. */
export type Cell = number | null
export const TEXT_DOMAIN = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']

export const cellArb: fc.Arbitrary<Cell> = fc.option(fc.integer({ min: -2, max: 4 }), { nil: null, freq: 5 })
/** The first column (the key of keyed tables) has a wider domain and is rarely NULL, so not
 *  every insert collides. */
const firstCellArb: fc.Arbitrary<Cell> = fc.option(fc.integer({ min: -2, max: 9 }), { nil: null, freq: 20 })
export const rowCellsArb: fc.Arbitrary<Cell[]> = fc.tuple(firstCellArb, cellArb, cellArb, cellArb).map((r) => [...r])

export function cellValue(c: Cell, t: ColType): number | string | null {
  if (c === null) return null
  return t === 'int' ? c : TEXT_DOMAIN[c + 2]!
}

export function rowValues(t: TableDef, cells: readonly Cell[]): (number | string | null)[] {
  return t.columns.map((c, i) => cellValue(cells[i] ?? null, c.type))
}

export function sqlLiteral(v: unknown): string {
  if (v === null) return 'NULL'
  if (typeof v === 'number') return String(v)
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE'
  throw new Error(`literal of ${typeof v}`)
}

// ---------------------------------------------------------------------------- expressions

const intLit = fc.integer({ min: -2, max: 4 }).map(String)
const textLit = fc.constantFrom("'a'", "'b'", "'c'", "'d'", "'e'")

function isIntLiteral(x: string): boolean {
  return /^-?\d+$/.test(x)
}

function litArb(t: ColType): fc.Arbitrary<string> {
  return t === 'int' ? intLit : textLit
}

function nullOf(t: ColType): string {
  return t === 'int' ? 'CAST(NULL AS INT)' : 'CAST(NULL AS TEXT)'
}

function colsOf(scope: Scope, t: ColType): string[] {
  return scope.filter((c) => c.type === t).map((c) => c.sql)
}

function leafArb(scope: Scope, t: ColType): fc.Arbitrary<string> {
  const cols = colsOf(scope, t)
  const arbs: fc.WeightedArbitrary<string>[] = []
  if (cols.length > 0) arbs.push({ arbitrary: fc.constantFrom(...cols), weight: 12 })
  arbs.push({ arbitrary: litArb(t), weight: 4 })
  arbs.push({ arbitrary: fc.constant(nullOf(t)), weight: 1 })
  return fc.oneof(...arbs)
}

interface ExprOpts {
  readonly ctx: Ctx
  /** Subquery predicates allowed (WHERE / ON of a query with a schema at hand). */
  readonly sub: boolean
}

/** Arbitraries are immutable: build each (scope, type, depth, options) one once, so nested
 *  generators stay linear instead of exponential in the depth. */
const memo = new WeakMap<Scope, Map<string, fc.Arbitrary<string>>>()
function memoized(scope: Scope, k: string, build: () => fc.Arbitrary<string>): fc.Arbitrary<string> {
  let m = memo.get(scope)
  if (!m) memo.set(scope, (m = new Map()))
  let a = m.get(k)
  if (!a) m.set(k, (a = build()))
  return a
}

function optsKey(o: ExprOpts): string {
  return `${o.sub}:${o.ctx.level}:${o.ctx.budget}:${o.ctx.f.oracle}:${o.ctx.f.subqueries}`
}

export function valueExpr(o: ExprOpts, scope: Scope, t: ColType, depth: number): fc.Arbitrary<string> {
  return memoized(scope, `v:${t}:${depth}:${optsKey(o)}`, () => valueExprUncached(o, scope, t, depth))
}

function valueExprUncached(o: ExprOpts, scope: Scope, t: ColType, depth: number): fc.Arbitrary<string> {
  const leaf = leafArb(scope, t)
  if (depth <= 0) return leaf
  const sub = (tt: ColType = t) => valueExpr(o, scope, tt, depth - 1)
  const b = () => boolExpr(o, scope, depth - 1)
  const arbs: fc.WeightedArbitrary<string>[] = [{ arbitrary: leaf, weight: 8 }]
  if (t === 'int') {
    arbs.push({ arbitrary: fc.tuple(sub(), fc.constantFrom('+', '-'), sub()).map(([x, op, y]) => `(${x} ${op} ${y})`), weight: 2 })
    arbs.push({ arbitrary: fc.tuple(sub(), fc.integer({ min: -2, max: 3 })).map(([x, k]) => `(${x} * ${k})`), weight: 1 })
    arbs.push({ arbitrary: sub().map((x) => `ABS(${x})`), weight: 1 })
    arbs.push({ arbitrary: sub('text').map((x) => `LENGTH(${x})`), weight: 1 })
    // integer division / modulo by a nonzero constant (both truncate toward zero)
    arbs.push({ arbitrary: fc.tuple(sub(), fc.constantFrom('/', '%'), fc.constantFrom(2, 3, -2)).map(([x, op, k]) => `(${x} ${op} ${k})`), weight: 1 })
  } else {
    arbs.push({ arbitrary: sub('int').map((x) => `CAST(${x} AS TEXT)`), weight: 1 })
    arbs.push({ arbitrary: fc.tuple(sub(), sub()).map(([x, y]) => `(${x} || ${y})`), weight: 1 })
    arbs.push({ arbitrary: sub().map((x) => `UPPER(${x})`), weight: o.ctx.f.oracle ? 0 : 1 })
  }
  arbs.push({ arbitrary: fc.tuple(b(), sub(), sub()).map(([c, x, y]) => `CASE WHEN ${c} THEN ${x} ELSE ${y} END`), weight: 2 })
  arbs.push({ arbitrary: fc.tuple(sub(), sub(), sub()).map(([x, w, y]) => `CASE ${x} WHEN ${w} THEN ${y} END`), weight: 1 })
  arbs.push({ arbitrary: fc.tuple(sub(), sub()).map(([x, y]) => `COALESCE(${x}, ${y})`), weight: 2 })
  arbs.push({ arbitrary: fc.tuple(sub(), sub()).map(([x, y]) => `NULLIF(${x}, ${y})`), weight: 1 })
  return fc.oneof(...arbs.filter((a) => a.weight > 0))
}

const CMP_OPS = ['=', '<>', '<', '<=', '>', '>='] as const

export function boolExpr(o: ExprOpts, scope: Scope, depth: number): fc.Arbitrary<string> {
  return memoized(scope, `b:${depth}:${optsKey(o)}`, () => boolExprUncached(o, scope, depth))
}

function boolExprUncached(o: ExprOpts, scope: Scope, depth: number): fc.Arbitrary<string> {
  const d = Math.max(0, depth - 1)
  const typed = (t: ColType) => valueExpr(o, scope, t, Math.min(d, 1))
  // the tested side is mostly a column (constant-only conditions make most views empty)
  const subject = (t: ColType) => {
    const cols = colsOf(scope, t)
    return cols.length === 0 ? typed(t) : fc.oneof({ arbitrary: fc.constantFrom(...cols), weight: 3 }, { arbitrary: typed(t), weight: 2 })
  }
  const cmp = (t: ColType) =>
    fc
      .tuple(subject(t), fc.constantFrom(...CMP_OPS), typed(t))
      .filter(([x, , y]) => x !== y)
      .map(([x, op, y]) => `(${x} ${op} ${y})`)
  const isNull = (t: ColType) => fc.tuple(subject(t), fc.boolean()).map(([x, n]) => `(${x} IS ${n ? 'NOT ' : ''}NULL)`)
  const inList = (t: ColType) =>
    fc
      .tuple(subject(t), fc.boolean(), fc.array(fc.oneof({ arbitrary: litArb(t), weight: 6 }, { arbitrary: fc.constant('NULL'), weight: 1 }, { arbitrary: typed(t), weight: 2 }), { minLength: 1, maxLength: 3 }))
      .map(([x, n, l]) => `(${x} ${n ? 'NOT ' : ''}IN (${l.join(', ')}))`)
  const between = (t: ColType) => fc.tuple(subject(t), fc.boolean(), typed(t), typed(t)).map(([x, n, lo, hi]) => `(${x} ${n ? 'NOT ' : ''}BETWEEN ${lo} AND ${hi})`)
  const types: ColType[] = ['int', 'text']
  const atoms: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.oneof(...types.map(cmp)), weight: 8 },
    { arbitrary: fc.oneof(...types.map(isNull)), weight: 2 },
    { arbitrary: fc.oneof(...types.map(inList)), weight: 2 },
    { arbitrary: fc.oneof(...types.map(between)), weight: 1 },
    { arbitrary: fc.constantFrom('TRUE', 'TRUE', 'TRUE', 'FALSE'), weight: 1 },
  ]
  if (!o.ctx.f.oracle) {
    // SQLite's LIKE ignores case and it has no IS DISTINCT FROM
    atoms.push({ arbitrary: fc.tuple(typed('text'), fc.boolean(), fc.constantFrom("'a%'", "'%b'", "'_'", "'%'", "'a_'", "'%a%'")).map(([x, n, p]) => `(${x} ${n ? 'NOT ' : ''}LIKE ${p})`), weight: 1 })
    atoms.push({ arbitrary: fc.oneof(...types.map((t) => fc.tuple(typed(t), fc.boolean(), typed(t)).map(([x, n, y]) => `(${x} IS ${n ? 'NOT ' : ''}DISTINCT FROM ${y})`))), weight: 1 })
  }
  if (o.sub && o.ctx.budget > 0 && o.ctx.f.subqueries) {
    atoms.push({ arbitrary: subqueryPredicate(o.ctx, scope, 'other'), weight: 2 })
    // IN (subquery) anywhere (under OR, NOT, CASE, in select lists): uncorrelated ones; correlated
    // ones only as top-level WHERE conjuncts (KNOWN_BUGS_FIXED.correlatedInSubqueryAnywhere)
    atoms.push({ arbitrary: subqueryPredicate(o.ctx, scope, 'in', KNOWN_BUGS_FIXED.correlatedInSubqueryAnywhere, true), weight: 1 })
  }
  if (depth <= 0) return fc.oneof(...atoms)
  const rec = () => boolExpr(o, scope, depth - 1)
  return fc.oneof(
    ...atoms,
    { arbitrary: fc.tuple(rec(), rec()).map(([x, y]) => `(${x} AND ${y})`), weight: 3 },
    { arbitrary: fc.tuple(rec(), rec()).map(([x, y]) => `(${x} OR ${y})`), weight: 2 },
    { arbitrary: rec().map((x) => `(NOT ${x})`), weight: 1 },
  )
}

// ---------------------------------------------------------------------------- subqueries

/** Scope of table `t` under `alias`. */
export function tableScope(t: TableDef, alias: string): Scope {
  return t.columns.map((c) => ({ sql: `${alias}.${c.name}`, type: c.type }))
}

function pairsOfSameType(a: Scope, b: Scope): [string, string][] {
  const out: [string, string][] = []
  for (const x of a) for (const y of b) if (x.type === y.type) out.push([x.sql, y.sql])
  return out
}

/** IN / NOT IN (`mode` 'in') or EXISTS / NOT EXISTS / scalar-subquery comparisons (`mode`
 *  'other'), uncorrelated or correlated by an equality with `outer`. */
function subqueryPredicate(ctx: Ctx, outer: Scope, mode: 'in' | 'other', correlate = true, mayBeNegated = false): fc.Arbitrary<string> {
  const level = ctx.level + 1
  const alias = `q${level}`
  const inner: Ctx = { ...ctx, level, budget: ctx.budget - 1, outerChain: [...outer, ...(ctx.outerChain ?? [])] }
  const tables = ctx.schema.tables
  return fc.integer({ min: 0, max: tables.length - 1 }).chain((ti) => {
    const t = tables[ti]!
    const scope = tableScope(t, alias)
    // correlation: one or two equalities with the enclosing query (or one further out)
    // (beyond the immediate query only while KNOWN_BUGS_FIXED.subqueryInCorrelatedSubquery is false)
    const corrPairs = correlate ? pairsOfSameType(scope, [...outer, ...(KNOWN_BUGS_FIXED.subqueryInCorrelatedSubquery ? (ctx.outerChain ?? []) : [])]) : []
    const correlation: fc.Arbitrary<string | undefined> =
      corrPairs.length === 0 ? fc.constant(undefined) : fc.option(fc.uniqueArray(fc.constantFrom(...corrPairs), { minLength: 1, maxLength: 2 }).map((ps) => ps.map(([i, o]) => `${i} = ${o}`).join(' AND ')), { nil: undefined })
    // a correlated subquery's WHERE has no subqueries of its own (0A000, KNOWN_BUGS_FIXED.subqueryInCorrelatedSubquery)
    const innerPredFor = (c: string | undefined) =>
      fc.option(whereConjuncts(c === undefined || KNOWN_BUGS_FIXED.subqueryInCorrelatedSubquery ? inner : { ...inner, budget: 0 }, scope, 1), { nil: undefined, freq: 2 })
    const corrAndPred = correlation.chain((c) => innerPredFor(c).map((p) => [c, p] as const))
    const whereOf = (c: string | undefined, p: string | undefined) => {
      const parts = [c, p].filter((x): x is string => x !== undefined)
      return parts.length === 0 ? '' : ` WHERE ${parts.join(' AND ')}`
    }
    // EXISTS / scalar subqueries: the correlation may also be a non-equality
    const where = fc.tuple(corrAndPred, fc.constantFrom('=', '=', '=', '<', '<>')).map(([[c, p], op]) => whereOf(c?.replace(/ = /g, ` ${op} `), p))
    const from = `FROM ${t.name} AS ${alias}`
    const o: ExprOpts = { ctx, sub: false }
    const arbs: fc.Arbitrary<string>[] = []
    if (mode === 'in') {
      for (const ty of ['int', 'text'] as ColType[]) {
        const innerCols = colsOf(scope, ty)
        if (innerCols.length === 0) continue
        const outerCols = colsOf(outer, ty)
        arbs.push(
          fc
            .tuple(valueExpr(o, outer, ty, 1), fc.boolean(), fc.constantFrom(...innerCols), corrAndPred, fc.boolean())
            .chain(([x, neg0, c, [corr, p], dist0]) => {
              const neg = neg0 && (corr === undefined || KNOWN_BUGS_FIXED.correlatedNotIn)
              const dist = dist0 && (corr === undefined || KNOWN_BUGS_FIXED.correlatedInDistinct)
              // NOT IN with a constant operand: internal error (KNOWN_BUGS_FIXED.constantNotIn)
              // (an expression can fold to a constant, e.g. COALESCE(0, x): NOT IN takes a bare column)
              // (inside a boolean expression a NOT may come from outside: same rule)
              const operand = (neg || mayBeNegated) && !KNOWN_BUGS_FIXED.constantNotIn && !outerCols.includes(x) ? (outerCols.length > 0 ? fc.constantFrom(...outerCols) : undefined) : fc.constant(x)
              // sometimes grouped: IN (SELECT c ... GROUP BY c HAVING COUNT(*) > 1)
              // (correlated and grouped: 0A000, KNOWN_BUGS_FIXED.correlatedGroupedSubquery)
              const tail = corr !== undefined && !KNOWN_BUGS_FIXED.correlatedGroupedSubquery ? fc.constant('') : fc.constantFrom('', '', '', ` GROUP BY ${c} HAVING COUNT(*) > 1`, ` GROUP BY ${c}`)
              if (operand === undefined) return fc.constant(mayBeNegated && !KNOWN_BUGS_FIXED.constantNotIn ? 'TRUE' : `(${x} IN (SELECT ${dist ? 'DISTINCT ' : ''}${c} ${from}${whereOf(corr, p)}))`)
              return fc.tuple(operand, tail).map(([y, g]) => `(${y} ${neg ? 'NOT ' : ''}IN (SELECT ${dist ? 'DISTINCT ' : ''}${c} ${from}${whereOf(corr, p)}${g}))`)
            }),
        )
      }
      if (arbs.length === 0) return fc.constant('TRUE')
      return fc.oneof(...arbs)
    }
    arbs.push(fc.tuple(fc.boolean(), where).map(([neg, w]) => `(${neg ? 'NOT ' : ''}EXISTS (SELECT 1 ${from}${w}))`))
    // scalar subqueries: aggregates always return one row
    const intCols = colsOf(scope, 'int')
    const aggs: fc.Arbitrary<{ sql: string; type: ColType }>[] = [fc.constant({ sql: 'COUNT(*)', type: 'int' as ColType })]
    if (intCols.length > 0) aggs.push(fc.tuple(fc.constantFrom('SUM', 'MAX', 'MIN'), fc.constantFrom(...intCols)).map(([f, c]) => ({ sql: `${f}(${c})`, type: 'int' as ColType })))
    const textCols = colsOf(scope, 'text')
    if (textCols.length > 0) aggs.push(fc.tuple(fc.constantFrom('MAX', 'MIN'), fc.constantFrom(...textCols)).map(([f, c]) => ({ sql: `${f}(${c})`, type: 'text' as ColType })))
    arbs.push(
      fc.tuple(fc.oneof(...aggs), fc.constantFrom(...CMP_OPS), where).chain(([agg, op, w]) =>
        valueExpr(o, outer, agg.type, 1).map((x) => `(${x} ${op} (SELECT ${agg.sql} ${from}${w}))`),
      ),
    )
    return fc.oneof(...arbs)
  })
}

/** A WHERE condition: a boolean expression (EXISTS / scalar subqueries anywhere), ANDed with
 *  an IN / NOT IN subquery as a top-level conjunct (correlated ones only there). */
export function whereConjuncts(ctx: Ctx, scope: Scope, depth: number): fc.Arbitrary<string> {
  const plain = boolExpr({ ctx, sub: true }, scope, depth)
  if (!ctx.f.subqueries || ctx.budget <= 0) return plain
  const inSub = subqueryPredicate(ctx, scope, 'in')
  return fc.oneof(
    { arbitrary: plain, weight: 4 },
    { arbitrary: inSub, weight: 1 },
    { arbitrary: fc.tuple(plain, inSub).map(([p, i]) => `${p} AND ${i}`), weight: 1 },
  )
}

/** A correlated scalar subquery usable as a select-list item. */
function scalarSubqueryItem(ctx: Ctx, outer: Scope, t: ColType): fc.Arbitrary<string> | undefined {
  const level = ctx.level + 1
  const alias = `q${level}`
  const candidates: fc.Arbitrary<string>[] = []
  for (const table of ctx.schema.tables) {
    const scope = tableScope(table, alias)
    const pairs = pairsOfSameType(scope, outer)
    // correlated mostly by equality, sometimes by another comparison
    const where = pairs.length === 0 ? fc.constant('') : fc.tuple(fc.constantFrom(...pairs), fc.constantFrom('=', '=', '=', '<', '>=', '<>')).map(([[i, o], op]) => ` WHERE ${i} ${op} ${o}`)
    const from = `FROM ${table.name} AS ${alias}`
    if (t === 'int') {
      const ic = colsOf(scope, 'int')
      const agg = ic.length === 0 ? fc.constant('COUNT(*)') : fc.oneof(fc.constant('COUNT(*)'), fc.tuple(fc.constantFrom('SUM', 'MAX', 'MIN', 'COUNT'), fc.constantFrom(...ic)).map(([f, c]) => `${f}(${c})`))
      candidates.push(fc.tuple(agg, where).map(([a, w]) => `(SELECT ${a} ${from}${w})`))
    } else {
      const tc = colsOf(scope, 'text')
      if (tc.length > 0) candidates.push(fc.tuple(fc.constantFrom('MAX', 'MIN'), fc.constantFrom(...tc), where).map(([f, c, w]) => `(SELECT ${f}(${c}) ${from}${w})`))
    }
  }
  return candidates.length === 0 ? undefined : fc.oneof(...candidates)
}

// -------------------------------------------------------------------------------- FROM

interface From {
  readonly sql: string
  readonly scope: Scope
  /** Join equalities of comma joins, to AND into WHERE. */
  readonly whereEqs: readonly string[]
  /** A comma join happened (later items are comma-joined too). */
  readonly comma: boolean
}

type FromItem = { readonly sql: string; readonly scope: Scope }

function fromItemArb(ctx: Ctx, alias: string, first: string | undefined): fc.Arbitrary<FromItem> {
  const tables = ctx.schema.tables
  const byName = first !== undefined ? tables.find((t) => t.name === first) : undefined
  if (byName) return fc.constant({ sql: `${byName.name} AS ${alias}`, scope: tableScope(byName, alias) })
  const plain = fc.constantFrom(...tables).map((t) => ({ sql: `${t.name} AS ${alias}`, scope: tableScope(t, alias) }))
  const allowDerived = ctx.budget > 0 && (ctx.f.kinds === undefined || ctx.f.kinds.includes('derived'))
  if (!allowDerived) return plain
  const inner: Ctx = { ...ctx, budget: ctx.budget - 1 }
  const derived = fc.oneof({ arbitrary: simpleSelect(inner, undefined), weight: 3 }, { arbitrary: topNArb(inner), weight: 1 }).map((q) => ({
    sql: `(${q.sql}) AS ${alias}`,
    scope: q.types.flatMap((t, i) => (t === 'int' || t === 'text' ? [{ sql: `${alias}.c${i}`, type: t }] : [])),
  }))
  return fc.oneof({ arbitrary: plain, weight: 6 }, { arbitrary: derived, weight: 1 })
}

const JOIN_KINDS = ['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN', 'comma'] as const
type JoinKind = (typeof JOIN_KINDS)[number]

function fromArb(ctx: Ctx, first?: string): fc.Arbitrary<From> {
  const kinds: JoinKind[] = ctx.f.outerJoins ? [...JOIN_KINDS] : ['JOIN', 'LEFT JOIN', 'comma']
  const n = fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.constant(2), weight: 3 }, { arbitrary: fc.constant(3), weight: 1 })
  return n.chain((count) =>
    fc.tuple(...Array.from({ length: count }, (_, i) => fromItemArb(ctx, `x${i}`, i === 0 ? first : undefined)), fc.array(fc.constantFrom(...kinds), { minLength: count, maxLength: count })).chain((parts) => {
      const items = parts.slice(0, count) as FromItem[]
      const joinKinds = parts[count] as JoinKind[]
      let acc: fc.Arbitrary<From> = fc.constant({ sql: items[0]!.sql, scope: items[0]!.scope, whereEqs: [], comma: false })
      for (let i = 1; i < count; i++) {
        const item = items[i]!
        const kind = joinKinds[i]!
        acc = acc.chain((left): fc.Arbitrary<From> => {
          const pairs = pairsOfSameType(left.scope, item.scope)
          const scope = [...left.scope, ...item.scope]
          // one or two equalities (a multi-column key)
          const eq = pairs.length === 0 ? fc.constant<string | undefined>(undefined) : fc.uniqueArray(fc.constantFrom(...pairs), { minLength: 1, maxLength: 2 }).map((ps): string | undefined => ps.map(([x, y]) => `${x} = ${y}`).join(' AND '))
          // a comma binds looser than JOIN: once a comma join appears, the rest are commas too
          if (kind === 'comma' || pairs.length === 0 || left.comma) {
            return eq.map((e) => ({ sql: `${left.sql}, ${item.sql}`, scope, whereEqs: e ? [...left.whereEqs, e] : left.whereEqs, comma: true }))
          }
          // outer joins: residuals over one side only (KNOWN_BUGS_FIXED.outerJoinCrossResidual)
          // (simple `column op literal` ones: constant conjuncts fail the same way)
          const sides = [left.scope, item.scope].filter((x) => x.length > 0)
          const simple = (rs: Scope) => fc.constantFrom(...rs).chain((c) => fc.tuple(fc.constantFrom(...CMP_OPS), litArb(c.type)).map(([op, l]) => `(${c.sql} ${op} ${l})`))
          // (a constant residual such as `AND FALSE` with a derived table on the left: 0A000,
          // KNOWN_BUGS_FIXED.outerJoinConstantConjunct)
          const referencesColumn = (r: string) => kind === 'JOIN' || KNOWN_BUGS_FIXED.outerJoinConstantConjunct || rs0(r)
          const rs0 = (r: string) => scope.some((c) => r.includes(c.sql))
          const residualOf = (rs: Scope) => (kind === 'JOIN' || KNOWN_BUGS_FIXED.outerJoinCrossResidual ? boolExpr({ ctx, sub: false }, rs, 0).filter(referencesColumn) : simple(rs))
          const residualScope = kind === 'JOIN' || KNOWN_BUGS_FIXED.outerJoinCrossResidual ? fc.constant(scope) : fc.constantFrom(...sides)
          const residual = (ctx.f.outerResidual || kind === 'JOIN') && sides.length > 0 ? fc.option(residualScope.chain(residualOf), { nil: undefined, freq: 2 }) : fc.constant(undefined)
          const on = fc.tuple(eq, residual).map(([e, r]) => ({
            sql: `${left.sql} ${kind} ${item.sql} ON ${e}${r ? ` AND ${r}` : ''}`,
            scope,
            whereEqs: left.whereEqs,
            comma: false,
          }))
          const variants: fc.WeightedArbitrary<From>[] = [{ arbitrary: on, weight: 6 }]
          // USING (same name and type on both sides; the left side a single item)
          const nameOf = (c: Col) => c.sql.slice(c.sql.lastIndexOf('.') + 1)
          const usable = i === 1 ? item.scope.filter((c) => left.scope.some((l) => nameOf(l) === nameOf(c) && l.type === c.type)).map(nameOf) : []
          if (usable.length > 0) {
            variants.push({ arbitrary: fc.constantFrom(...usable).map((n) => ({ sql: `${left.sql} ${kind} ${item.sql} USING (${n})`, scope, whereEqs: left.whereEqs, comma: false })), weight: 2 })
          }
          if (kind === 'JOIN') {
            // theta join (no equality) and CROSS JOIN (the equality goes to WHERE)
            variants.push({ arbitrary: boolExpr({ ctx, sub: false }, scope, 1).map((c) => ({ sql: `${left.sql} JOIN ${item.sql} ON ${c}`, scope, whereEqs: left.whereEqs, comma: false })), weight: 1 })
            variants.push({ arbitrary: eq.map((e) => ({ sql: `${left.sql} CROSS JOIN ${item.sql}`, scope, whereEqs: e ? [...left.whereEqs, e] : left.whereEqs, comma: false })), weight: 1 })
          }
          return fc.oneof(...variants)
        })
      }
      return acc
    }),
  )
}

// -------------------------------------------------------------------------------- queries

function typedItem(ctx: Ctx, scope: Scope, t: OutType, allowSub: boolean): fc.Arbitrary<string> {
  const o: ExprOpts = { ctx, sub: false }
  // EXISTS / scalar subqueries inside select-list expressions (CASE WHEN EXISTS ...)
  const withSub: ExprOpts = { ctx, sub: allowSub }
  if (t === 'bool') return fc.oneof({ arbitrary: boolExpr(o, scope, 1), weight: 3 }, { arbitrary: boolExpr(withSub, scope, 1), weight: 1 })
  if (t === 'num') return valueExpr(o, scope, 'int', 1)
  const base = fc.oneof({ arbitrary: valueExpr(o, scope, t, 2), weight: 4 }, { arbitrary: valueExpr(withSub, scope, t, 2), weight: 1 })
  if (allowSub && ctx.f.subqueries && ctx.budget > 0) {
    const s = scalarSubqueryItem(ctx, scope, t)
    if (s) return fc.oneof({ arbitrary: base, weight: 5 }, { arbitrary: s, weight: 1 })
  }
  return base
}

function outTypeArb(f: Features): fc.Arbitrary<OutType> {
  return f.oracle ? fc.constantFrom<OutType>('int', 'text') : fc.oneof({ arbitrary: fc.constantFrom<OutType>('int', 'text'), weight: 6 }, { arbitrary: fc.constant<OutType>('bool'), weight: 1 })
}

function whereArb(ctx: Ctx, from: From): fc.Arbitrary<string> {
  return fc.option(whereConjuncts(ctx, from.scope, 1), { nil: undefined, freq: 3 }).map((p) => {
    const parts = [...from.whereEqs, ...(p ? [p] : [])]
    return parts.length === 0 ? '' : ` WHERE ${parts.join(' AND ')}`
  })
}

function aliasItems(items: readonly string[]): string {
  return items.map((e, i) => `${e} AS c${i}`).join(', ')
}

/** SELECT [DISTINCT] items FROM ... [WHERE ...], output types `sig` (random when undefined). */
function spjArb(ctx: Ctx, sig: readonly OutType[] | undefined, first?: string): fc.Arbitrary<Q> {
  const sigArb = sig ? fc.constant(sig) : fc.array(outTypeArb(ctx.f), { minLength: 1, maxLength: 4 })
  return fc.tuple(fromArb(ctx, first), sigArb).chain(([from, types]) =>
    fc.tuple(fc.tuple(...types.map((t) => typedItem(ctx, from.scope, t, true))), whereArb(ctx, from), fc.boolean()).map(([items, where, distinct]) => ({
      sql: `SELECT ${distinct ? 'DISTINCT ' : ''}${aliasItems(items)} FROM ${from.sql}${where}`,
      types,
    })),
  )
}

interface AggItem {
  readonly sql: string
  readonly type: OutType
}

function aggregateCalls(ctx: Ctx, scope: Scope, allowAvg: boolean): fc.Arbitrary<AggItem> {
  const o: ExprOpts = { ctx, sub: false }
  const intE = valueExpr(o, scope, 'int', 1)
  const anyE = fc.oneof(intE.map((x) => ({ x, t: 'int' as ColType })), valueExpr(o, scope, 'text', 1).map((x) => ({ x, t: 'text' as ColType })))
  const arbs: fc.WeightedArbitrary<AggItem>[] = [
    { arbitrary: fc.constant({ sql: 'COUNT(*)', type: 'int' as OutType }), weight: 3 },
    { arbitrary: anyE.map(({ x }) => ({ sql: `COUNT(${x})`, type: 'int' as OutType })), weight: 2 },
    { arbitrary: anyE.map(({ x }) => ({ sql: `COUNT(DISTINCT ${x})`, type: 'int' as OutType })), weight: 1 },
    { arbitrary: intE.map((x) => ({ sql: `SUM(${x})`, type: 'int' as OutType })), weight: 2 },
    { arbitrary: fc.tuple(fc.constantFrom('MIN', 'MAX'), anyE).map(([f, { x, t }]) => ({ sql: `${f}(${x})`, type: t as OutType })), weight: 3 },
  ]
  if (allowAvg) arbs.push({ arbitrary: fc.tuple(fc.boolean(), intE).map(([d, x]) => ({ sql: `AVG(${d ? 'DISTINCT ' : ''}${x})`, type: 'num' as OutType })), weight: 1 })
  arbs.push({ arbitrary: intE.map((x) => ({ sql: `SUM(DISTINCT ${x})`, type: 'int' as OutType })), weight: 1 })
  // FILTER (WHERE ...)
  const filter = boolExpr(o, scope, 0)
  arbs.push({
    arbitrary: fc.tuple(fc.constantFrom('COUNT(*)', 'COUNT', 'SUM', 'MAX'), intE, filter).map(([f, x, w]) => ({ sql: `${f === 'COUNT(*)' ? f : `${f}(${x})`} FILTER (WHERE ${w})`, type: 'int' as OutType })),
    weight: 1,
  })
  // STRING_AGG ordered by its own value (ties are equal strings, so the result is determined)
  const textE = valueExpr(o, scope, 'text', 1)
  arbs.push({ arbitrary: fc.tuple(textE, fc.boolean()).map(([x, desc]) => ({ sql: `STRING_AGG(${x}, ',' ORDER BY ${x}${desc ? ' DESC' : ''})`, type: 'text' as OutType })), weight: 1 })
  if (!ctx.f.oracle) arbs.push({ arbitrary: fc.tuple(fc.constantFrom('BOOL_AND', 'BOOL_OR'), boolExpr(o, scope, 0)).map(([f, x]) => ({ sql: `${f}(${x})`, type: 'bool' as OutType })), weight: 1 })
  return fc.oneof(...arbs)
}

/** SELECT group cols + aggregates FROM ... [WHERE] [GROUP BY] [HAVING]. */
function aggArb(ctx: Ctx, sig: readonly OutType[] | undefined, first?: string): fc.Arbitrary<Q> {
  return fromArb(ctx, first).chain((from) => {
    const o: ExprOpts = { ctx, sub: false }
    const groupExpr = fc.oneof(
      ...(from.scope.length > 0 ? [{ arbitrary: fc.constantFrom(...from.scope).map((c) => ({ sql: c.sql, type: c.type })), weight: 4 }] : []),
      // an integer literal would be a GROUP BY position
      { arbitrary: valueExpr(o, from.scope, 'int', 1).filter((x) => !isIntLiteral(x)).map((x) => ({ sql: x, type: 'int' as ColType })), weight: 1 },
    )
    return fc.tuple(fc.array(groupExpr, { minLength: 0, maxLength: 2 }), whereArb(ctx, from)).chain(([groups, where]) => {
      const uniq = groups.filter((g, i) => groups.findIndex((h) => h.sql === g.sql) === i)
      const aggScope: Col[] = uniq.map((g) => ({ sql: g.sql, type: g.type }))
      const aggs = aggregateCalls(ctx, from.scope, sig === undefined)
      let itemsArb: fc.Arbitrary<AggItem[]>
      if (sig) {
        // each output column: a grouped expression or an aggregate of the wanted type
        itemsArb = fc.tuple(...sig.map((t) => aggOfType(ctx, from.scope, aggScope, t)))
      } else {
        itemsArb = fc.tuple(fc.subarray(aggScope.map((g): AggItem => ({ sql: g.sql, type: g.type }))), fc.array(aggs, { minLength: 1, maxLength: 3 }), fc.boolean()).chain(([gs, as, wrap]) => {
          const items = [...gs, ...as]
          if (!wrap) return fc.constant(items)
          // arithmetic over aggregates and group columns
          const scope: Col[] = [...aggScope, ...as.filter((a) => a.type === 'int').map((a) => ({ sql: a.sql, type: 'int' as ColType }))]
          return valueExpr(o, scope, 'int', 1).map((x) => [...items, { sql: x, type: 'int' as OutType }])
        })
      }
      const havingScope = aggs.chain((a) => {
        const scope: Col[] = [...aggScope]
        if (a.type === 'int' || a.type === 'text') scope.push({ sql: a.sql, type: a.type })
        const plain = boolExpr(o, scope, 1)
        if (!ctx.f.subqueries || ctx.budget <= 0) return plain
        // subqueries in HAVING: uncorrelated, or (KNOWN_BUGS_FIXED.subqueryOverGroupedColumns)
        // correlated to the grouped columns
        const groupCols = KNOWN_BUGS_FIXED.subqueryOverGroupedColumns ? aggScope.filter((g) => from.scope.some((c) => c.sql === g.sql)) : []
        return fc.oneof(
          { arbitrary: plain, weight: 4 },
          { arbitrary: fc.tuple(plain, subqueryPredicate({ ...ctx, budget: 1 }, groupCols, 'other')).map(([x, y]) => `(${x} AND ${y})`), weight: 1 },
          { arbitrary: subqueryPredicate({ ...ctx, budget: 1 }, groupCols, 'other'), weight: 1 },
        )
      })
      // a scalar subquery among the items (uncorrelated, or correlated to grouped columns)
      const subItem = (t: ColType) => scalarSubqueryItem({ ...ctx, budget: 1 }, KNOWN_BUGS_FIXED.subqueryOverGroupedColumns ? aggScope.filter((g) => from.scope.some((c) => c.sql === g.sql)) : [], t)
      const withSubItem: fc.Arbitrary<AggItem[]> =
        sig || !ctx.f.subqueries || ctx.budget <= 0
          ? itemsArb
          : fc.tuple(itemsArb, fc.option(fc.constantFrom<ColType>('int', 'text'), { nil: undefined, freq: 4 })).chain(([items, t]) => {
              const s = t === undefined ? undefined : subItem(t)
              return s === undefined ? fc.constant(items) : s.map((x) => [...items, { sql: x, type: t as OutType }])
            })
      return fc.tuple(withSubItem, fc.option(havingScope, { nil: undefined, freq: 3 })).map(([items, having]) => {
        const groupBy = uniq.length > 0 ? ` GROUP BY ${uniq.map((g) => g.sql).join(', ')}` : ''
        return {
          sql: `SELECT ${aliasItems(items.map((i) => i.sql))} FROM ${from.sql}${where}${groupBy}${having ? ` HAVING ${having}` : ''}`,
          types: items.map((i) => i.type),
        }
      })
    })
  })
}

/** An aggregate-query output column of type `t`: a grouped expression or an aggregate. */
function aggOfType(ctx: Ctx, scope: Scope, groups: Scope, t: OutType): fc.Arbitrary<AggItem> {
  const o: ExprOpts = { ctx, sub: false }
  const g = groups.filter((c) => c.type === t).map((c) => c.sql)
  const arbs: fc.Arbitrary<string>[] = []
  if (g.length > 0) arbs.push(fc.constantFrom(...g))
  switch (t) {
    case 'int':
    case 'num': {
      const intE = valueExpr(o, scope, 'int', 1)
      arbs.push(fc.constant('COUNT(*)'), intE.map((x) => `SUM(${x})`), fc.tuple(fc.constantFrom('MIN', 'MAX', 'COUNT'), intE).map(([f, x]) => `${f}(${x})`))
      break
    }
    case 'text':
      arbs.push(fc.tuple(fc.constantFrom('MIN', 'MAX'), valueExpr(o, scope, 'text', 1)).map(([f, x]) => `${f}(${x})`))
      break
    case 'bool':
      arbs.push(boolExpr(o, [...groups, { sql: 'COUNT(*)', type: 'int' }], 1))
      break
  }
  return fc.oneof(...arbs).map((sql) => ({ sql, type: t }))
}

/** A SELECT (SPJ or aggregate). */
function simpleSelect(ctx: Ctx, sig: readonly OutType[] | undefined, first?: string): fc.Arbitrary<Q> {
  const allowAgg = ctx.f.kinds === undefined || ctx.f.kinds.includes('agg')
  return allowAgg ? fc.oneof({ arbitrary: spjArb(ctx, sig, first), weight: 3 }, { arbitrary: aggArb(ctx, sig, first), weight: 2 }) : spjArb(ctx, sig, first)
}

function setOpArb(ctx: Ctx, first?: string): fc.Arbitrary<Q> {
  const ops = ctx.f.oracle ? ['UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT'] : ['UNION', 'UNION ALL', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL']
  const sigCtx: Features = ctx.f
  return fc
    .array(sigCtx.oracle ? fc.constantFrom<OutType>('int', 'text') : outTypeArb(ctx.f), { minLength: 1, maxLength: 3 })
    .chain((sig) =>
      fc.tuple(
        simpleSelect(ctx, sig, first),
        fc.constantFrom(...ops),
        simpleSelect(ctx, sig),
        // sometimes a third operand: SQLite has one precedence for all and no parentheses, so
        // the oracle chains only UNION [ALL] / EXCEPT (left-associative in both)
        fc.option(fc.tuple(ctx.f.oracle ? fc.constantFrom('UNION', 'UNION ALL', 'EXCEPT') : fc.constantFrom(...ops), simpleSelect(ctx, sig), fc.boolean()), { nil: undefined, freq: 3 }),
      ),
    )
    .map(([l, op, r, third]) => {
      if (third === undefined) return { sql: `${l.sql} ${op} ${r.sql}`, types: l.types }
      const [op2, r2, parenRight] = third
      if (ctx.f.oracle) {
        const chainable = op !== 'INTERSECT' && op2 !== 'INTERSECT'
        return { sql: chainable ? `${l.sql} ${op} ${r.sql} ${op2} ${r2.sql}` : `${l.sql} ${op} ${r.sql}`, types: l.types }
      }
      // Postgres: INTERSECT binds tighter; parentheses either way
      return { sql: parenRight ? `${l.sql} ${op} (${r.sql} ${op2} ${r2.sql})` : `(${l.sql} ${op} ${r.sql}) ${op2} ${r2.sql}`, types: l.types }
    })
}

function orderAll(n: number, oracle: boolean): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(fc.boolean(), fc.option(fc.boolean(), { nil: undefined })), { minLength: n, maxLength: n })
    .chain((dirs) => fc.shuffledSubarray(dirs.map((_, i) => i), { minLength: n, maxLength: n }).map((perm) => perm.map((i) => {
      const [desc, nf] = dirs[i]!
      const nulls = nf === undefined ? (oracle ? (desc ? ' NULLS FIRST' : ' NULLS LAST') : '') : nf ? ' NULLS FIRST' : ' NULLS LAST'
      return `${i + 1}${desc ? ' DESC' : ''}${nulls}`
    }).join(', ')))
}

function topNArb(ctx: Ctx, first?: string): fc.Arbitrary<Q> {
  const base = ctx.f.setOps ? fc.oneof({ arbitrary: simpleSelect(ctx, undefined, first), weight: 4 }, { arbitrary: setOpArb(ctx, first), weight: 1 }) : simpleSelect(ctx, undefined, first)
  return base.chain((q) =>
    fc.tuple(orderAll(q.types.length, ctx.f.oracle), fc.integer({ min: 0, max: 4 }), fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined, freq: 3 })).map(([order, limit, offset]) => ({
      sql: `${q.sql} ORDER BY ${order} LIMIT ${limit}${offset !== undefined ? ` OFFSET ${offset}` : ''}`,
      types: q.types,
      ordered: true,
    })),
  )
}

/** SELECT ... FROM (SELECT p, o.., ROW_NUMBER() OVER (PARTITION BY p ORDER BY o..) AS rn ...) WHERE rn <= k.
 *  Only partition and order columns are output, so ties never show. */
function rowNumberArb(ctx: Ctx, first?: string): fc.Arbitrary<Q> {
  return fromArb(ctx, first).chain((from) => {
    const o: ExprOpts = { ctx, sub: false }
    const typedE = fc.oneof(
      ...(from.scope.length > 0 ? [{ arbitrary: fc.constantFrom(...from.scope), weight: 4 }] : []),
      { arbitrary: valueExpr(o, from.scope, 'int', 1).filter((x) => !isIntLiteral(x)).map((x): Col => ({ sql: x, type: 'int' })), weight: 1 },
    )
    return fc
      .tuple(
        fc.array(typedE, { minLength: 0, maxLength: 2 }),
        fc.array(fc.tuple(typedE, fc.boolean(), fc.option(fc.boolean(), { nil: undefined })), { minLength: 1, maxLength: 2 }),
        whereArb(ctx, from),
        fc.constantFrom('<= 1', '<= 2', '< 3', '= 1', '<= 3', '= 2', 'BETWEEN 2 AND 3', '> 1'),
      )
      .map(([parts, orders, where, cond]) => {
        const cols = [...parts.map((p) => p.sql), ...orders.map(([e]) => e.sql)]
        const types: OutType[] = [...parts.map((p) => p.type), ...orders.map(([e]) => e.type), 'int']
        const over = `${parts.length > 0 ? `PARTITION BY ${parts.map((p) => p.sql).join(', ')} ` : ''}ORDER BY ${orders
          .map(([e, desc, nf]) => `${e.sql}${desc ? ' DESC' : ''}${nf === undefined ? (ctx.f.oracle ? (desc ? ' NULLS FIRST' : ' NULLS LAST') : '') : nf ? ' NULLS FIRST' : ' NULLS LAST'}`)
          .join(', ')}`
        const inner = `SELECT ${cols.map((c, i) => `${c} AS w${i}`).join(', ')}, ROW_NUMBER() OVER (${over}) AS rn FROM ${from.sql}${where}`
        const outer = [...cols.map((_, i) => `r.w${i}`), 'r.rn']
        return { sql: `SELECT ${aliasItems(outer)} FROM (${inner}) AS r WHERE r.rn ${cond}`, types }
      })
  })
}

export interface GenOptions {
  readonly budget?: number
  /** Name of a relation (a view) the query must read first. */
  readonly first?: string
}

/** A query for a materialized view. */
export function queryArb(schema: Schema, f: Features, opts: GenOptions = {}): fc.Arbitrary<Q> {
  const ctx: Ctx = { schema, f, level: 0, budget: opts.budget ?? 1 }
  const allowed = (k: QueryKind) => f.kinds === undefined || f.kinds.includes(k)
  const arbs: fc.WeightedArbitrary<Q>[] = [{ arbitrary: spjArb(ctx, undefined, opts.first), weight: 4 }]
  if (allowed('agg')) arbs.push({ arbitrary: aggArb(ctx, undefined, opts.first), weight: 4 })
  if (allowed('setop') && f.setOps) arbs.push({ arbitrary: setOpArb(ctx, opts.first), weight: 2 })
  if (allowed('topn')) arbs.push({ arbitrary: topNArb(ctx, opts.first), weight: 2 })
  if (allowed('rownumber')) arbs.push({ arbitrary: rowNumberArb(ctx, opts.first), weight: 1 })
  if (allowed('cte') && opts.first === undefined) arbs.push({ arbitrary: cteArb(ctx), weight: 1 })
  return fc.oneof(...arbs)
}

/** WITH d AS (SELECT ...) SELECT ... FROM d ... (d read once or twice). */
function cteArb(ctx: Ctx): fc.Arbitrary<Q> {
  return simpleSelect({ ...ctx, budget: Math.max(0, ctx.budget - 1) }, undefined).chain((d) => {
    const schema = withView(ctx.schema, 'd', d.types)
    if (schema.tables[schema.tables.length - 1]!.columns.length === 0) return fc.constant(d)
    const body = ctx.f.kinds === undefined || ctx.f.kinds.includes('agg') ? fc.oneof(spjArb({ ...ctx, schema }, undefined, 'd'), aggArb({ ...ctx, schema }, undefined, 'd')) : spjArb({ ...ctx, schema }, undefined, 'd')
    return body.map((q) => ({ sql: `WITH d AS (${d.sql}) ${q.sql}`, types: q.types }))
  })
}

/** The schema seen by a view over view `name` with output types `types`. */
export function withView(schema: Schema, name: string, types: readonly OutType[]): Schema {
  const columns = types.flatMap((t, i) => (t === 'int' || t === 'text' ? [{ name: `c${i}`, type: t }] : []))
  return { tables: [...schema.tables, { name, pk: false, columns }] }
}

// -------------------------------------------------------------------------------- DML

export type Stmt =
  | { readonly kind: 'insert'; readonly table: number; readonly rows: readonly Cell[][]; readonly onConflictDoNothing?: boolean }
  /** INSERT INTO t SELECT ... (a query over the tables, typed to t's columns). */
  | { readonly kind: 'insertSelect'; readonly table: number; readonly select: string }
  /** INSERT of a row whose key copies an existing row's (resolved at run time). */
  | { readonly kind: 'insertDup'; readonly table: number; readonly pick: number; readonly row: readonly Cell[] }
  | { readonly kind: 'delete'; readonly table: number; readonly where: string | undefined }
  | { readonly kind: 'update'; readonly table: number; readonly sets: readonly (readonly [number, string])[]; readonly where: string | undefined }

export type Tick =
  | { readonly kind: 'stmt'; readonly stmt: Stmt }
  | { readonly kind: 'txn'; readonly stmts: readonly Stmt[]; readonly end: 'commit' | 'rollback'; readonly oneString: boolean }
  | { readonly kind: 'apiInsert'; readonly table: number; readonly rows: readonly Cell[][] }
  | { readonly kind: 'apiDelete'; readonly table: number; readonly picks: readonly number[]; readonly extra: readonly Cell[][] }

export interface DmlFeatures {
  readonly oracle: boolean
  readonly subqueries: boolean
  /** UPDATE of the primary key by arithmetic (SQLite checks keys row by row). */
  readonly pkArithmetic: boolean
  /** Statements that fail at run time (division by zero, NULL keys). */
  readonly runtimeErrors: boolean
}

function stmtArb(schema: Schema, f: DmlFeatures): fc.Arbitrary<Stmt> {
  const ctx: Ctx = { schema, f: { ...ALL_FEATURES, oracle: f.oracle, subqueries: f.subqueries }, level: 0, budget: 1 }
  const perTable = schema.tables.map((t, ti) => {
    const scope: Scope = t.columns.map((c) => ({ sql: `${t.name}.${c.name}`, type: c.type }))
    const where = fc.option(f.subqueries ? whereConjuncts(ctx, scope, 1) : boolExpr({ ctx, sub: false }, scope, 1), { nil: undefined, freq: 6 })
    const setExpr = (ci: number): fc.Arbitrary<string> => {
      const c = t.columns[ci]!
      // SQLite checks keys row by row (a key permutation fails there): keys get literals
      const keyLiteralOnly = ci === 0 && t.pk && !f.pkArithmetic
      const arbs: fc.WeightedArbitrary<string>[] = [{ arbitrary: keyLiteralOnly ? litArb(c.type) : valueExpr({ ctx, sub: false }, scope, c.type, 1), weight: 5 }]
      if (ci === 0 && t.pk && c.type === 'int' && f.pkArithmetic) arbs.push({ arbitrary: fc.integer({ min: -1, max: 2 }).map((k) => `${t.name}.${c.name} + ${k}`), weight: 3 })
      if (f.runtimeErrors && c.type === 'int') arbs.push({ arbitrary: fc.constant(`${t.name}.${c.name} / 0`), weight: 1 })
      return fc.oneof(...arbs)
    }
    const colIdx = fc.integer({ min: 0, max: t.columns.length - 1 })
    const sets = fc.uniqueArray(colIdx, { minLength: 1, maxLength: 2 }).chain((cols) => fc.tuple(...cols.map((ci) => setExpr(ci).map((e) => [ci, e] as const))))
    const update = fc.tuple(sets, where).map(([s, w]): Stmt => {
      // division by zero under a subquery WHERE: KNOWN_BUGS_FIXED.antiJoinEvaluatesFilteredRows
      const guard = !KNOWN_BUGS_FIXED.antiJoinEvaluatesFilteredRows && w !== undefined && /SELECT/.test(w)
      return { kind: 'update', table: ti, sets: guard ? s.map(([ci, e]) => [ci, e.replace(' / 0', ' * 0')] as const) : s, where: w }
    })
    const rows = fc.array(rowCellsArb, { minLength: 1, maxLength: 4 })
    const arbs: fc.WeightedArbitrary<Stmt>[] = [
      { arbitrary: rows.map((r): Stmt => ({ kind: 'insert', table: ti, rows: t.pk || KNOWN_BUGS_FIXED.insertDuplicateRows ? r : uniqueRows(t, r) })), weight: 6 },
      { arbitrary: insertSelectArb(ctx, t).map((sel): Stmt => ({ kind: 'insertSelect', table: ti, select: sel })), weight: 1 },
      { arbitrary: where.map((w): Stmt => ({ kind: 'delete', table: ti, where: w })), weight: 2 },
      { arbitrary: update, weight: 3 },
    ]
    if (t.pk) {
      arbs.push({ arbitrary: fc.tuple(fc.nat(), rowCellsArb).map(([pick, row]): Stmt => ({ kind: 'insertDup', table: ti, pick, row })), weight: 1 })
      arbs.push({ arbitrary: rows.map((r): Stmt => ({ kind: 'insert', table: ti, rows: r, onConflictDoNothing: true })), weight: 1 })
    }
    return fc.oneof(...arbs)
  })
  return fc.oneof(...perTable)
}

/** Ticks that fill every table with a few rows (keys unique and not NULL), one INSERT or
 *  db.insert per table. */
export function initialLoadArb(schema: Schema, maxRows = 10): fc.Arbitrary<Tick[]> {
  return fc.tuple(
    ...schema.tables.map((t, ti) =>
      fc.tuple(fc.array(rowCellsArb, { minLength: 2, maxLength: maxRows }), fc.boolean()).map(([rows, api]): Tick | undefined => {
        const seen = new Set<string>()
        const kept = rows.filter((r) => {
          const v = rowValues(t, r)
          const k = JSON.stringify(t.pk ? [v[0]] : v)
          if ((t.pk && v[0] === null) || (seen.has(k) && (t.pk || !KNOWN_BUGS_FIXED.insertDuplicateRows))) return false
          seen.add(k)
          return true
        })
        if (kept.length === 0) return undefined
        return api ? { kind: 'apiInsert', table: ti, rows: kept } : { kind: 'stmt', stmt: { kind: 'insert', table: ti, rows: kept } }
      }),
    ),
  ).map((ts) => ts.filter((t): t is Tick => t !== undefined))
}

export function tickArb(schema: Schema, f: DmlFeatures): fc.Arbitrary<Tick> {
  const stmt = stmtArb(schema, f)
  const table = fc.integer({ min: 0, max: schema.tables.length - 1 })
  return fc.oneof(
    { arbitrary: stmt.map((s): Tick => ({ kind: 'stmt', stmt: s })), weight: 8 },
    {
      arbitrary: fc.tuple(fc.array(stmt, { minLength: 1, maxLength: 4 }), fc.constantFrom<'commit' | 'rollback'>('commit', 'commit', 'rollback'), fc.boolean()).map(([stmts, end, oneString]): Tick => ({ kind: 'txn', stmts, end, oneString })),
      weight: 2,
    },
    { arbitrary: fc.tuple(table, fc.array(rowCellsArb, { minLength: 1, maxLength: 3 })).map(([t, rows]): Tick => ({ kind: 'apiInsert', table: t, rows })), weight: 2 },
    {
      arbitrary: fc.tuple(table, fc.array(fc.nat(), { minLength: 0, maxLength: 3 }), fc.array(rowCellsArb, { minLength: 0, maxLength: 1 })).map(([t, picks, extra]): Tick => ({ kind: 'apiDelete', table: t, picks, extra })),
      weight: 1,
    },
  )
}

/** SELECT over a table producing `t`'s column types (DISTINCT for bags while
 *  KNOWN_BUGS_FIXED.insertDuplicateRows is false: duplicates in one INSERT collapse). */
function insertSelectArb(ctx: Ctx, t: TableDef): fc.Arbitrary<string> {
  return fc.constantFrom(...ctx.schema.tables).chain((src) => {
    const scope = tableScope(src, 's')
    const o: ExprOpts = { ctx, sub: false }
    return fc
      .tuple(fc.tuple(...t.columns.map((c) => valueExpr(o, scope, c.type, 1))), fc.option(boolExpr(o, scope, 1), { nil: undefined }))
      .map(([items, w]) => `SELECT ${!t.pk && !KNOWN_BUGS_FIXED.insertDuplicateRows ? 'DISTINCT ' : ''}${items.join(', ')} FROM ${src.name} AS s${w ? ` WHERE ${w}` : ''}`)
  })
}

/** SQL text of a statement, given the rows it needs resolved (insertDup). */
export function stmtSql(schema: Schema, s: Stmt, resolvedRows?: readonly (readonly unknown[])[]): string {
  const t = schema.tables[s.table]!
  switch (s.kind) {
    case 'insert':
    case 'insertDup': {
      const rows = resolvedRows ?? (s.kind === 'insert' ? s.rows.map((r) => rowValues(t, r)) : [])
      return `${insertSql(t, rows)}${s.kind === 'insert' && s.onConflictDoNothing ? ' ON CONFLICT DO NOTHING' : ''}`
    }
    case 'insertSelect':
      return `INSERT INTO ${t.name} ${s.select}`
    case 'delete':
      return `DELETE FROM ${t.name}${s.where ? ` WHERE ${s.where}` : ''}`
    case 'update':
      return `UPDATE ${t.name} SET ${s.sets.map(([ci, e]) => `${t.columns[ci]!.name} = ${e}`).join(', ')}${s.where ? ` WHERE ${s.where}` : ''}`
  }
}

/** INSERT ... VALUES; a column NULL in every row is written as a typed NULL while the engine
 *  types it as text (KNOWN_BUGS_FIXED.insertAllNullColumn). */
export function insertSql(t: TableDef, rows: readonly (readonly unknown[])[]): string {
  const allNull = t.columns.map((_, i) => !KNOWN_BUGS_FIXED.insertAllNullColumn && rows.every((r) => r[i] === null))
  const lit = (v: unknown, i: number) => (v === null && allNull[i] ? nullOf(t.columns[i]!.type) : sqlLiteral(v))
  return `INSERT INTO ${t.name} VALUES ${rows.map((r) => `(${r.map(lit).join(', ')})`).join(', ')}`
}

/** Drops rows equal (in `t`'s columns) to an earlier one. */
function uniqueRows(t: TableDef, rows: readonly Cell[][]): Cell[][] {
  const seen = new Set<string>()
  return rows.filter((r) => {
    const k = JSON.stringify(rowValues(t, r))
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}
