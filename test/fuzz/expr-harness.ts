// Runs generated expressions (test/fuzz/expr-gen.ts) three ways and compares them:
//   the reference: each expression bound alone (QueryBinder, no optimizer) and interpreted
//     per row by test/reference/scalar-outcomes.ts — a set of acceptable outcomes per row;
//   the engine, compiled: a SELECT of many expressions at once, a WHERE per boolean (as a
//     UNION ALL of filters, and as a filter with the whole batch as its projection), and a
//     materialized view of the batch maintained through an insert and a delete;
//   SQLite, for the subset where it and PostgreSQL agree (see expr-gen.ts).
// Expressions that can raise for some row are run one at a time (an error ends a query);
// a batch that raises where the reference says none can is re-run one at a time to find the
// culprit. A disagreement is thrown as an Error naming the expression, row and outcomes.

import type Database from 'better-sqlite3'
import { RivuletError } from '../../grammar/index.js'
import { isIntegerType, type ScalarExpr, type SqlType } from '../../planner/index.js'
import { Engine } from '../../src/index.js'
import type { ResultValue, SqlTypeName } from '../../src/types.js'
import { toResultValue } from '../../src/sql-runtime/values.js'
import { ReferenceCatalog, bindSql, sqlType } from '../reference/evaluate.js'
import { TooManyOutcomes, isError, outcomes, type Outcome } from '../reference/scalar-outcomes.js'
import { EXPR_TABLE, sqliteTable, type DualExpr, type Expr } from './expr-gen.js'

/** What one expression did in the reference, per row of the table. */
interface Expected {
  readonly sql: string
  readonly type: SqlType
  /** Acceptable outcomes per row (index = row position in `rows`). */
  readonly rows: readonly Outcome[][]
  readonly canRaise: boolean
}

export const STATS = { expressions: 0, rejected: 0, raising: 0, ambiguous: 0, skipped: 0, sqlite: 0, sqliteCompared: 0, retries: 0 }

export const TIMES = { reference: 0, single: 0, select: 0, where: 0, view: 0 }

/** A disagreement (carries what to print). */
export class Mismatch extends Error {}

function describeOutcomes(list: readonly Outcome[], t: SqlType): string {
  return list.map((o) => (isError(o) ? `error ${o.error}` : JSON.stringify(render(o.value, t)))).join(' | ')
}

/** A reference value as the engine's API returns it (so both sides compare in one form,
 *  whatever JS representation a type has inside). */
function render(v: unknown, t: SqlType): ResultValue {
  return toResultValue(v, t)
}

const TYPE_NAME: Record<SqlType, string> = {
  smallint: 'smallint', integer: 'integer', bigint: 'bigint', numeric: 'numeric', real: 'real', double: 'double precision',
  text: 'text', boolean: 'boolean', date: 'date', timestamp: 'timestamp', interval: 'interval', unknown: 'text',
}

const printable = (e: ScalarExpr): string => JSON.stringify(e)

function sameResult(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b))
  return a === b
}

/** True when `actual` (an API result) is one of the value outcomes. */
function accepts(list: readonly Outcome[], actual: unknown, t: SqlType): boolean {
  return list.some((o) => !isError(o) && sameResult(render(o.value, t), actual))
}

function codeOf(err: unknown): string {
  if (err instanceof RivuletError && err.code !== 'XX000') return err.code
  throw new Mismatch(`not a clean error: ${err instanceof Error ? `${err.name}: ${err.message}\n${err.stack}` : String(err)}`)
}

function textHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h >>> 0
}

/** The expressions as a select list with distinct names (c0, c1, ...). */
const aliased = (xs: readonly Expected[]): string => xs.map((x, k) => `${x.sql} AS c${k}`).join(', ')

export class ExprHarness {
  readonly db: Engine
  readonly #catalog: ReferenceCatalog
  readonly #types: readonly SqlType[]
  /** Rows of `t` in run-time representation, in id order. */
  readonly rows: readonly (readonly unknown[])[]
  #views = 0
  /** Which variant of each path this batch takes (0..3), from its text: the same batch always
   *  takes the same paths, so a failure replays and shrinks. */
  #variant = 0

  constructor() {
    this.db = Engine.open()
    this.db.execute(EXPR_TABLE.create('t'))
    this.db.execute(EXPR_TABLE.insert('t'))
    this.db.execute(EXPR_TABLE.create('u'))
    const rel = this.db.relations().find((r) => r.name === 't')!
    this.#types = rel.columns.map((c) => sqlType(c.type))
    this.#catalog = new ReferenceCatalog(this.db.relations())
    // the run-time rows: the table's literals cast to the column types by the reference
    // (the API's values lose distinctions such as -0), then checked against what the API reads
    this.rows = EXPR_TABLE.literals.map((r) => this.#constantRow(r))
    const api = this.db.query('SELECT * FROM t ORDER BY id').rows
    for (let i = 0; i < api.length; i++) {
      const again = this.rows[i]!.map((v, j) => render(v, this.#types[j]!))
      if (!again.every((v, j) => sameResult(v, api[i]![j]))) throw new Error(`table rows do not round-trip: ${JSON.stringify(api[i])} vs ${JSON.stringify(again)}`)
    }
  }

  #constantRow(literals: readonly string[]): unknown[] {
    const { plan } = bindSql(this.#catalog, `SELECT ${literals.map((l, i) => `CAST(${l} AS ${TYPE_NAME[this.#types[i]!]})`).join(', ')}`)
    if (plan.kind !== 'project') throw new Error(`expected a projection, got ${plan.kind}`)
    return plan.exprs.map((e) => {
      const [o, ...more] = outcomes(e, [])
      if (o === undefined || isError(o) || more.length > 0) throw new Error(`table literal ${printable(e)} has no single value`)
      return o.value
    })
  }

  close(): void {
    this.db.close()
  }

  /** Binds the batch (in one statement when it binds, else each alone) and interprets each
   *  expression over every row; undefined for an expression the binder rejects (then the
   *  engine must reject it with the same code, checked here). */
  expectAll(batch: readonly Expr[]): (Expected | undefined)[] {
    let bound: readonly ScalarExpr[] | undefined
    try {
      const { plan } = bindSql(this.#catalog, `SELECT ${batch.map((e, k) => `${e.sql} AS c${k}`).join(', ')} FROM t`)
      if (plan.kind === 'project' && plan.exprs.length === batch.length) bound = plan.exprs
    } catch (err) {
      codeOf(err)
    }
    return batch.map((e, k) => (bound === undefined ? this.expect(e) : this.#interpret(e, bound[k]!)))
  }

  /** The bound form of one expression, or undefined when the binder rejects it. */
  bindOne(sql: string): ScalarExpr | undefined {
    try {
      const { plan } = bindSql(this.#catalog, `SELECT ${sql} FROM t`)
      return plan.kind === 'project' ? plan.exprs[0] : undefined
    } catch (err) {
      codeOf(err)
      return undefined
    }
  }

  /** Binds one expression alone and interprets it (see expectAll). */
  expect(e: Expr): Expected | undefined {
    const sql = `SELECT ${e.sql} FROM t`
    let bound: ScalarExpr
    try {
      const { plan } = bindSql(this.#catalog, sql)
      if (plan.kind !== 'project') throw new Error(`expected a projection, got ${plan.kind}`)
      bound = plan.exprs[0]!
    } catch (err) {
      const code = codeOf(err)
      STATS.rejected++
      let engineCode: string | undefined
      try {
        this.db.query(sql)
      } catch (e2) {
        engineCode = codeOf(e2)
      }
      if (engineCode !== code) throw new Mismatch(`${sql}\n  the binder rejects it (${code}: ${(err as Error).message}), the engine ${engineCode === undefined ? 'accepts it' : `raises ${engineCode}`}`)
      return undefined
    }
    return this.#interpret(e, bound)
  }

  #interpret(e: Expr, bound: ScalarExpr): Expected | undefined {
    let rows: Outcome[][]
    try {
      rows = this.rows.map((r) => outcomes(bound, r))
    } catch (err) {
      if (err instanceof TooManyOutcomes) {
        STATS.skipped++
        return undefined
      }
      throw err
    }
    const canRaise = rows.some((l) => l.some(isError))
    if (canRaise) STATS.raising++
    if (rows.some((l) => l.length > 1)) STATS.ambiguous++
    return { sql: e.sql, type: bound.type, rows, canRaise }
  }

  /** Checks a batch of expressions on the compiled paths (with `everyVariant`, on every
   *  variant of each: plain or joined input, filtered projection or view; else on the
   *  batch's own, chosen by its text). */
  check(batch: readonly Expr[], everyVariant = false): void {
    const own = textHash(batch.map((e) => e.sql).join('\n')) & 3
    for (const v of everyVariant ? [0, 1, 2, 3] : [own]) {
      this.#variant = v
      this.#checkVariant(batch)
    }
  }

  #checkVariant(batch: readonly Expr[]): void {
    const t0 = performance.now()
    const expected = this.expectAll(batch).filter((x): x is Expected => x !== undefined)
    STATS.expressions += batch.length
    const clean = expected.filter((x) => !x.canRaise)
    const t1 = performance.now()
    for (const x of expected.filter((y) => y.canRaise)) this.#single(x)
    const t2 = performance.now()
    TIMES.reference += t1 - t0
    TIMES.single += t2 - t1
    if (clean.length === 0) return
    this.#select(clean)
    const t3 = performance.now()
    // the filters every time; a filtered projection and a materialized view take turns
    this.#where(clean, (this.#variant & 1) === 0)
    const t4 = performance.now()
    if ((this.#variant & 1) === 1) this.#view(clean)
    const t5 = performance.now()
    TIMES.select += t3 - t2
    TIMES.where += t4 - t3
    TIMES.view += t5 - t4
  }

  /** One expression alone: the query raises an acceptable error or gives acceptable values. */
  #single(x: Expected): void {
    const sql = `SELECT id, ${x.sql} AS c0 FROM t ORDER BY 1`
    let rows: ResultValue[][]
    try {
      rows = this.db.query(sql).rows
    } catch (err) {
      const code = codeOf(err)
      if (!x.rows.some((l) => l.some((o) => isError(o) && o.error === code))) {
        throw new Mismatch(`${sql}\n  the engine raises ${code} (${(err as Error).message}); the reference, per row:\n${x.rows.map((l, i) => `    row ${i + 1}: ${describeOutcomes(l, x.type)}`).join('\n')}`)
      }
      return
    }
    this.#compareColumn(sql, x, rows.map((r) => r[1]))
  }

  #compareColumn(sql: string, x: Expected, values: readonly unknown[]): void {
    if (values.length !== this.rows.length) throw new Mismatch(`${sql}\n  ${values.length} rows, expected ${this.rows.length}`)
    for (let i = 0; i < values.length; i++) {
      if (!accepts(x.rows[i]!, values[i], x.type)) {
        throw new Mismatch(`${sql}\n  expression: ${x.sql}\n  row ${i + 1} (${JSON.stringify(this.rows[i]!.map((v, j) => render(v, this.#types[j]!)))}):\n    engine:    ${JSON.stringify(values[i])}\n    reference: ${describeOutcomes(x.rows[i]!, x.type)}`)
      }
    }
  }

  /** Runs a query over the whole clean batch; on an error, finds the expression that raised. */
  #batchQuery(sql: string, clean: readonly Expected[], alone: (x: Expected) => void): ResultValue[][] | undefined {
    try {
      return this.db.query(sql).rows
    } catch (err) {
      const code = codeOf(err)
      STATS.retries++
      for (const x of clean) alone(x)
      throw new Mismatch(`${sql}\n  raises ${code} (${(err as Error).message}), though every expression alone is fine and none can raise`)
    }
  }

  /** Every other batch reads t through a join with its own keys, so the projection compiles
   *  over the join's two input rows (compileJoinProjection) instead of one. */
  #select(clean: readonly Expected[]): void {
    const from = (this.#variant & 2) === 0 ? 't' : 't JOIN (SELECT id AS k FROM t) j ON id = k'
    const sql = `SELECT id, ${aliased(clean)} FROM ${from} ORDER BY 1`
    const rows = this.#batchQuery(sql, clean, (x) => this.#single(x))!
    clean.forEach((x, k) => this.#compareColumn(sql, x, rows.map((r) => r[k + 1])))
  }

  /** Each boolean expression as a filter, all in one UNION ALL (`(e) IS NOT NULL` for one
   *  other expression, so there is one at least); then the batch projected under the first
   *  boolean's filter. */
  #where(clean: readonly Expected[], withProjection: boolean): void {
    const test = (x: Expected) => (x.type === 'boolean' ? x.sql : `(${x.sql}) IS NOT NULL`)
    const kept = (x: Expected, i: number): 'yes' | 'no' | 'either' => {
      const l = x.rows[i]!
      const yes = l.some((o) => !isError(o) && (x.type === 'boolean' ? o.value === true : o.value !== null))
      const no = l.some((o) => !isError(o) && (x.type === 'boolean' ? o.value !== true : o.value === null))
      return yes && no ? 'either' : yes ? 'yes' : 'no'
    }
    const filterAlone = (x: Expected) => {
      const sql = `SELECT id FROM t WHERE ${test(x)}`
      let ids: number[]
      try {
        ids = this.db.query(sql).rows.map((r) => r[0] as number)
      } catch (err) {
        throw new Mismatch(`${sql}\n  raises ${codeOf(err)} (${(err as Error).message}); the reference raises for no row`)
      }
      this.#compareFilter(sql, x, ids, kept)
    }
    const filters = [...clean.filter((x) => x.type === 'boolean'), ...clean.filter((x) => x.type !== 'boolean').slice(0, 1)]
    const sql = filters.map((x, k) => `SELECT ${k} AS k, id FROM t WHERE ${test(x)}`).join(' UNION ALL ')
    const rows = this.#batchQuery(sql, filters, filterAlone)!
    filters.forEach((x, k) => this.#compareFilter(sql, x, rows.filter((r) => r[0] === k).map((r) => r[1] as number), kept))

    // filter and projection compiled together (they share repeated calls)
    const p = clean.find((x) => x.type === 'boolean')
    if (p === undefined || !withProjection) return
    const fp = `SELECT id, ${aliased(clean)} FROM t WHERE ${p.sql} ORDER BY 1`
    const fpRows = this.#batchQuery(fp, clean, filterAlone)!
    const ids = fpRows.map((r) => r[0] as number)
    this.#compareFilter(fp, p, ids, kept)
    clean.forEach((x, k) => {
      fpRows.forEach((r, j) => {
        const i = ids[j]! - 1
        if (!accepts(x.rows[i]!, r[k + 1], x.type)) throw new Mismatch(`${fp}\n  expression: ${x.sql}\n  row ${i + 1}: engine ${JSON.stringify(r[k + 1])}, reference ${describeOutcomes(x.rows[i]!, x.type)}`)
      })
    })
  }

  #compareFilter(sql: string, x: Expected, ids: readonly number[], kept: (x: Expected, i: number) => 'yes' | 'no' | 'either'): void {
    const got = new Set(ids)
    if (got.size !== ids.length) throw new Mismatch(`${sql}\n  duplicate rows ${JSON.stringify(ids)}`)
    for (let i = 0; i < this.rows.length; i++) {
      const k = kept(x, i)
      const id = i + 1 // ids are 1..n in row order
      if ((k === 'yes' && !got.has(id)) || (k === 'no' && got.has(id))) {
        throw new Mismatch(`${sql}\n  expression: ${x.sql}\n  row ${id} ${got.has(id) ? 'kept' : 'dropped'}; the reference: ${describeOutcomes(x.rows[i]!, x.type)}`)
      }
    }
  }

  /** A materialized view of the batch over the empty table u, maintained through inserting
   *  t's rows (the delta path) and deleting them again (retractions evaluate it too). */
  #view(clean: readonly Expected[]): void {
    const name = `v${this.#views++}`
    // every other view joins u with t's keys (a join's projection, maintained)
    const from = (this.#variant & 2) === 0 ? 'u' : 'u JOIN (SELECT id AS k FROM t) j ON id = k'
    const body = `SELECT id, ${aliased(clean)} FROM ${from}`
    this.db.execute(`CREATE MATERIALIZED VIEW ${name} AS ${body}`)
    try {
      try {
        this.db.execute('INSERT INTO u SELECT * FROM t')
      } catch (err) {
        throw new Mismatch(`${body}\n  as a materialized view: inserting the rows raises ${codeOf(err)} (${(err as Error).message}); the reference raises for no row`)
      }
      const rows = this.db.query(`SELECT * FROM ${name} ORDER BY 1`).rows
      clean.forEach((x, k) => this.#compareColumn(`${body} (materialized view)`, x, rows.map((r) => r[k + 1])))
      try {
        this.db.execute('DELETE FROM u')
      } catch (err) {
        throw new Mismatch(`${body}\n  as a materialized view: deleting the rows raises ${codeOf(err)} (${(err as Error).message})`)
      }
      const left = this.db.query(`SELECT count(*) FROM ${name}`).rows[0]![0]
      if (left !== 0) throw new Mismatch(`${body}\n  as a materialized view: ${String(left)} rows left after deleting every input row`)
    } finally {
      this.db.execute(`DROP MATERIALIZED VIEW ${name}`)
      this.db.execute('DELETE FROM u')
    }
  }

  // ---------------------------------------------------------------------------- SQLite

  /** Compares the SQLite subset: each expression whose reference answer is one value on every
   *  row must have that value in SQLite too (booleans as 0/1); all go through check() too. */
  checkSqlite(batch: readonly DualExpr[], lite: Database.Database, everyVariant = false): void {
    STATS.sqlite += batch.length
    this.check(batch.map((d) => ({ sql: d.pg, type: d.type, form: d.form })), everyVariant)
    const expected = this.expectAll(batch.map((d) => ({ sql: d.pg, type: d.type, form: d.form })))
    const comparable = batch.flatMap((d, k) => {
      const x = expected[k]
      return x && x.rows.every((l) => l.length === 1 && !isError(l[0]!)) ? [{ d, x }] : []
    })
    if (comparable.length === 0) return
    STATS.sqliteCompared += comparable.length
    const sql = `SELECT id, ${comparable.map(({ d }) => d.lite).join(', ')} FROM t ORDER BY 1`
    let rows: unknown[][]
    try {
      // exact 64-bit integers (a JS number would round past 2^53)
      rows = lite.prepare(sql).safeIntegers(true).raw(true).all() as unknown[][]
    } catch (err) {
      throw new Mismatch(`SQLite: ${sql}\n  raises ${(err as Error).message}`)
    }
    comparable.forEach(({ d, x }, k) => {
      rows.forEach((r, i) => {
        const ref = x.rows[i]![0]!.value
        // integers (and booleans, 0/1 in SQLite) compare by their decimal text
        const want = ref === null ? null : x.type === 'boolean' ? (ref ? '1' : '0') : isIntegerType(x.type) ? String(render(ref, x.type)) : render(ref, x.type)
        const got = typeof r[k + 1] === 'bigint' || typeof r[k + 1] === 'number' ? String(r[k + 1]) : r[k + 1]
        if (want !== got) throw new Mismatch(`SQLite: ${d.lite}\n  rivulet: ${d.pg}\n  row ${i + 1}: SQLite ${JSON.stringify(got)}, reference ${JSON.stringify(want)}`)
      })
    })
  }
}

/** A SQLite database with the subset's table (LIKE case-sensitive, as PostgreSQL's). */
export function openSqlite(DatabaseCtor: typeof Database): Database.Database {
  const lite = new DatabaseCtor(':memory:')
  lite.pragma('case_sensitive_like = ON')
  const t = sqliteTable('t')
  lite.exec(t.create)
  lite.exec(t.insert)
  return lite
}

export type { SqlTypeName }
