// A deliberately simple reference evaluator for bound (UNOPTIMIZED) logical plans: nested
// loops over plain JS arrays, bag semantics, SQL three-valued logic, subqueries evaluated per
// outer row. It shares nothing with the optimizer rules, lowering, rendering or the delta
// operators; only the semantics of individual function calls and casts come from
// compileScalar (those are cross-checked against SQLite separately).
//
//   const ref = new Reference(db.relations(), tables)   // tables: name → rows (column order)
//   ref.query('SELECT ...') → { columns, rows }

import { parse } from '../../grammar/index.js'
import { QueryBinder, col } from '../../planner/index.js'
import type { AggregateCall, Catalog, CatalogRelation, Column, LogicalPlan, ScalarExpr, SortKey, SqlType } from '../../planner/index.js'
import { compileScalar } from '../../src/sql-runtime/compile-scalar.js'
import { INT8_MAX, INT8_MIN, isNumeric, numericAdd, numericCompare, numericDiv, numericFromInteger, type NumericValue } from '../../planner/index.js'
import { valueKey } from '../../ivm/index.js'
import { toResultValue } from '../../src/sql-runtime/values.js'
import type { RelationInfo, ResultValue, SqlTypeName } from '../../src/types.js'

export type Value = unknown
export type Row = readonly Value[]

/** Thrown when the query has no defined answer (e.g. a scalar subquery with two rows). */
export class ReferenceError_ extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export function sqlType(t: SqlTypeName): SqlType {
  return t === 'double precision' ? 'double' : t === 'character' ? 'bpchar' : t
}

/** The planner's Catalog over `relations()` output. */
export class ReferenceCatalog implements Catalog {
  readonly #rels = new Map<string, CatalogRelation>()

  constructor(relations: readonly RelationInfo[]) {
    for (const r of relations) {
      const columns: Column[] = r.columns.map((c) => ({ name: c.name, type: sqlType(c.type) }))
      this.#rels.set(r.name, { name: r.name, kind: r.kind, columns, primaryKey: r.primaryKey.map((n) => columns.findIndex((c) => c.name === n)) })
    }
  }

  getRelation(name: string): CatalogRelation | undefined {
    return this.#rels.get(name)
  }
}

/** Binds `sql` (one SELECT / query) against `catalog`, without any optimization. */
export function bindSql(catalog: Catalog, sql: string): { plan: LogicalPlan; columns: readonly Column[] } {
  const stmts = parse(sql)
  if (stmts.length !== 1) throw new Error(`expected one statement, got ${stmts.length}`)
  const s = stmts[0]!.statement
  const query = s.kind === 'select' ? s.query : s.kind === 'createView' ? s.query : undefined
  if (!query) throw new Error(`not a query: ${s.kind}`)
  return new QueryBinder(catalog, { text: sql }).bindQuery(query, undefined)
}

export interface ReferenceOptions {
  /** Query text of views (overrides RelationInfo.definition). */
  readonly viewSql?: ReadonlyMap<string, string>
  /** Bound plans by SQL text, shared between evaluations over the same catalog. */
  readonly bindCache?: Map<string, { plan: LogicalPlan; columns: readonly Column[] }>
}

export class Reference {
  readonly catalog: ReferenceCatalog
  readonly #relations: Map<string, RelationInfo>
  readonly #tables: ReadonlyMap<string, readonly Row[]>
  readonly #viewSql: ReadonlyMap<string, string>
  readonly #viewCache = new Map<string, Row[]>()
  readonly #bindCache: Map<string, { plan: LogicalPlan; columns: readonly Column[] }>

  constructor(relations: readonly RelationInfo[], tables: ReadonlyMap<string, readonly Row[]>, options: ReferenceOptions = {}) {
    this.catalog = new ReferenceCatalog(relations)
    this.#relations = new Map(relations.map((r) => [r.name, r]))
    this.#tables = tables
    this.#viewSql = options.viewSql ?? new Map()
    this.#bindCache = options.bindCache ?? new Map()
  }

  #bind(sql: string): { plan: LogicalPlan; columns: readonly Column[] } {
    let b = this.#bindCache.get(sql)
    if (!b) this.#bindCache.set(sql, (b = bindSql(this.catalog, sql)))
    return b
  }

  query(sql: string): { columns: readonly Column[]; rows: ResultValue[][] } {
    const { plan, columns } = this.#bind(sql)
    // as the API returns values (numeric as its exact text, bigint beyond 2^53 as a bigint)
    return { columns, rows: this.evaluate(plan).map((r) => r.map((v, i) => toResultValue(v, columns[i]!.type))) }
  }

  evaluate(plan: LogicalPlan): Row[] {
    return this.#plan(plan, [])
  }

  // ------------------------------------------------------------------------------ plans

  #scan(name: string): Row[] {
    const t = this.#tables.get(name)
    if (t) return [...t]
    const cached = this.#viewCache.get(name)
    if (cached) return [...cached]
    const rel = this.#relations.get(name)
    const sql = this.#viewSql.get(name) ?? rel?.definition
    if (!rel || sql === undefined) throw new Error(`reference: no contents for relation ${name}`)
    const rows = this.#plan(this.#bind(sql).plan, [])
    this.#viewCache.set(name, rows)
    return [...rows]
  }

  /** `env[0]` is the row of the immediately enclosing query (outerColumn depth 1). */
  #plan(p: LogicalPlan, env: readonly Row[]): Row[] {
    switch (p.kind) {
      case 'scan':
        return this.#scan(p.relation)
      case 'values':
        return p.rows.map((r) => r.map((e) => this.#expr(e, [], env)))
      case 'filter': {
        const out: Row[] = []
        for (const r of this.#plan(p.input, env)) if (this.#expr(p.predicate, r, env) === true) out.push(r)
        return out
      }
      case 'project':
        return this.#plan(p.input, env).map((r) => p.exprs.map((e) => this.#expr(e, r, env)))
      case 'join':
        return this.#join(p, env)
      case 'aggregate':
        return this.#aggregate(p, env)
      case 'distinct': {
        const seen = new Set<string>()
        const out: Row[] = []
        for (const r of this.#plan(p.input, env)) {
          const k = key(r)
          if (!seen.has(k)) {
            seen.add(k)
            out.push(r)
          }
        }
        return out
      }
      case 'union':
        return p.inputs.flatMap((i) => this.#plan(i, env))
      case 'setOp':
        return this.#setOp(p.op, p.all, this.#plan(p.left, env), this.#plan(p.right, env))
      case 'topK':
        return this.#topK(p.input, p.partitionBy, p.orderBy, p.limit, p.offset, p.rowNumber, env)
      case 'sort':
        // a multiset: presentation order is not part of the answer
        return this.#plan(p.input, env)
    }
  }

  #join(p: Extract<LogicalPlan, { kind: 'join' }>, env: readonly Row[]): Row[] {
    const left = this.#plan(p.left, env)
    const right = this.#plan(p.right, env)
    const lw = p.left.columns.length
    const rw = p.right.columns.length
    const nullsL: Row = new Array(lw).fill(null)
    const nullsR: Row = new Array(rw).fill(null)
    const cond = (l: Row, r: Row): Value => (p.condition === undefined ? true : this.#expr(p.condition, [...l, ...r], env))
    const out: Row[] = []
    const rightMatched = new Array<boolean>(right.length).fill(false)
    for (const l of left) {
      let matched = false
      let unknown = false
      for (let j = 0; j < right.length; j++) {
        const r = right[j]!
        const c = cond(l, r)
        if (c === true) {
          matched = true
          rightMatched[j] = true
          if (p.joinType !== 'semi' && p.joinType !== 'anti') out.push([...l, ...r])
        } else if (c === null) unknown = true
      }
      if (p.joinType === 'semi' && matched) out.push(l)
      if (p.joinType === 'anti' && !matched && !(p.nullAwareAnti && unknown)) out.push(l)
      if ((p.joinType === 'left' || p.joinType === 'full') && !matched) out.push([...l, ...nullsR])
    }
    if (p.joinType === 'right' || p.joinType === 'full') {
      for (let j = 0; j < right.length; j++) if (!rightMatched[j]) out.push([...nullsL, ...right[j]!])
    }
    return out
  }

  #aggregate(p: Extract<LogicalPlan, { kind: 'aggregate' }>, env: readonly Row[]): Row[] {
    const groups = new Map<string, { keys: Row; rows: Row[] }>()
    for (const r of this.#plan(p.input, env)) {
      const keys = p.groupBy.map((g) => this.#expr(g, r, env))
      const k = key(keys)
      let g = groups.get(k)
      if (!g) groups.set(k, (g = { keys, rows: [] }))
      g.rows.push(r)
    }
    if (p.global && groups.size === 0) groups.set('', { keys: [], rows: [] })
    const out: Row[] = []
    for (const g of groups.values()) out.push([...g.keys, ...p.aggregates.map((a) => this.#aggregateCall(a, g.rows, env))])
    return out
  }

  #aggregateCall(a: AggregateCall, rows: readonly Row[], env: readonly Row[]): Value {
    const input = a.filter ? rows.filter((r) => this.#expr(a.filter!, r, env) === true) : rows
    if (a.fn === 'count_rows') return input.length
    let values = input.map((r) => ({ v: this.#expr(a.args[0]!, r, env), r }))
    if (a.fn === 'string_agg' && a.orderBy.length > 0) {
      const cmp = this.#sortComparator(a.orderBy, env)
      values = values.sort((x, y) => cmp(x.r, y.r))
    }
    let nonNull = values.filter((x) => x.v !== null).map((x) => x.v)
    if (a.fn === 'count_distinct' || a.fn === 'sum_distinct' || a.fn === 'avg_distinct') {
      const seen = new Map<string, Value>()
      for (const v of nonNull) seen.set(key([v]), v)
      nonNull = [...seen.values()]
    }
    switch (a.fn) {
      case 'count':
      case 'count_distinct':
        return nonNull.length
      case 'sum':
      case 'sum_distinct':
        if (a.type === 'interval') throw new Error('reference: SUM(interval) not supported')
        return nonNull.length === 0 ? null : exactSum(nonNull, a.type)
      case 'avg':
      case 'avg_distinct':
        if (a.type === 'interval') throw new Error('reference: AVG(interval) not supported')
        if (nonNull.length === 0) return null
        // avg of integers and numerics is numeric: the exact sum divided as numerics
        if (a.type === 'numeric') return numericDiv(exactSum(nonNull, 'numeric') as NumericValue, nonNull.length)
        return nonNull.reduce((s: number, v) => s + (v as number), 0) / nonNull.length
      case 'min':
      case 'max': {
        if (nonNull.length === 0) return null
        let best = nonNull[0]
        for (const v of nonNull) {
          const c = compareValues(v, best)
          if (a.fn === 'min' ? c < 0 : c > 0) best = v
        }
        return best
      }
      case 'string_agg': {
        const parts = input
          .map((r) => ({ v: this.#expr(a.args[0]!, r, env), d: this.#expr(a.args[1]!, r, env), r }))
          .sort(a.orderBy.length > 0 ? (x, y) => this.#sortComparator(a.orderBy, env)(x.r, y.r) : () => 0)
          .filter((x) => x.v !== null)
        if (parts.length === 0) return null
        let s = String(parts[0]!.v)
        for (let i = 1; i < parts.length; i++) s += String(parts[i]!.d ?? '') + String(parts[i]!.v)
        return s
      }
      case 'bool_and':
        return nonNull.length === 0 ? null : nonNull.every((v) => v === true)
      case 'bool_or':
        return nonNull.length === 0 ? null : nonNull.some((v) => v === true)
      case 'single_value':
        if (values.length > 1) throw new ReferenceError_('21000', 'more than one row returned by a subquery used as an expression')
        return values[0]?.v ?? null
    }
  }

  #setOp(op: 'intersect' | 'except', all: boolean, left: Row[], right: Row[]): Row[] {
    const count = (rows: Row[]) => {
      const m = new Map<string, { row: Row; n: number }>()
      for (const r of rows) {
        const k = key(r)
        const e = m.get(k)
        if (e) e.n++
        else m.set(k, { row: r, n: 1 })
      }
      return m
    }
    const l = count(left)
    const r = count(right)
    const out: Row[] = []
    for (const [k, { row, n }] of l) {
      const m = r.get(k)?.n ?? 0
      let times: number
      if (op === 'intersect') times = all ? Math.min(n, m) : m > 0 ? 1 : 0
      else times = all ? Math.max(0, n - m) : m > 0 ? 0 : 1
      for (let i = 0; i < times; i++) out.push(row)
    }
    return out
  }

  #topK(input: LogicalPlan, partitionBy: readonly number[], orderBy: readonly SortKey[], limit: number | undefined, offset: number, rowNumber: boolean, env: readonly Row[]): Row[] {
    const parts = new Map<string, Row[]>()
    for (const r of this.#plan(input, env)) {
      const k = key(partitionBy.map((i) => r[i]))
      let list = parts.get(k)
      if (!list) parts.set(k, (list = []))
      list.push(r)
    }
    const cmp = this.#sortComparator(orderBy, env)
    const out: Row[] = []
    for (const rows of parts.values()) {
      rows.sort(cmp)
      const end = limit === undefined ? rows.length : Math.min(rows.length, offset + limit)
      for (let i = offset; i < end; i++) out.push(rowNumber ? [...rows[i]!, i + 1] : rows[i]!)
    }
    return out
  }

  #sortComparator(keys: readonly SortKey[], env: readonly Row[]): (a: Row, b: Row) => number {
    return (a, b) => {
      for (const k of keys) {
        const x = this.#expr(k.expr, a, env)
        const y = this.#expr(k.expr, b, env)
        if (x === null && y === null) continue
        if (x === null) return k.nullsFirst ? -1 : 1
        if (y === null) return k.nullsFirst ? 1 : -1
        const c = compareValues(x, y)
        if (c !== 0) return k.desc ? -c : c
      }
      return 0
    }
  }

  // ------------------------------------------------------------------------------ scalars

  #expr(e: ScalarExpr, row: Row, env: readonly Row[]): Value {
    switch (e.kind) {
      case 'column':
        if (e.index >= row.length) throw new Error(`reference: column ${e.index} out of range (row width ${row.length})`)
        return row[e.index]
      case 'outerColumn': {
        const r = env[e.depth - 1]
        if (!r) throw new Error(`reference: no outer row at depth ${e.depth}`)
        return r[e.index]
      }
      case 'literal':
        return e.value
      case 'and': {
        let sawNull = false
        for (const a of e.args) {
          const v = this.#expr(a, row, env)
          if (v === false) return false
          if (v === null) sawNull = true
        }
        return sawNull ? null : true
      }
      case 'or': {
        let sawNull = false
        for (const a of e.args) {
          const v = this.#expr(a, row, env)
          if (v === true) return true
          if (v === null) sawNull = true
        }
        return sawNull ? null : false
      }
      case 'not': {
        const v = this.#expr(e.arg, row, env)
        return v === null ? null : !v
      }
      case 'isNull': {
        const v = this.#expr(e.arg, row, env)
        return e.negated ? v !== null : v === null
      }
      case 'case': {
        for (const w of e.whens) if (this.#expr(w.when, row, env) === true) return this.#expr(w.then, row, env)
        return this.#expr(e.else, row, env)
      }
      case 'coalesce': {
        for (const a of e.args) {
          const v = this.#expr(a, row, env)
          if (v !== null) return v
        }
        return null
      }
      case 'inList': {
        const v = this.#expr(e.arg, row, env)
        if (v === null) return null
        let sawNull = false
        let found = false
        for (const x of e.list) {
          const w = this.#expr(x, row, env)
          const eq = this.#equal(v, w, e.arg.type)
          if (eq === true) {
            found = true
            break
          }
          if (eq === null) sawNull = true
        }
        const r = found ? true : sawNull ? null : false
        return e.negated ? (r === null ? null : !r) : r
      }
      case 'subquery':
        return this.#subquery(e, row, env)
      case 'call':
      case 'cast': {
        const args = e.kind === 'call' ? e.args.map((a) => this.#expr(a, row, env)) : [this.#expr(e.arg, row, env)]
        return callFn(e)(args)
      }
    }
  }

  #equal(a: Value, b: Value, type: SqlType): boolean | null {
    if (a === null || b === null) return null
    if (typeof a !== 'object') return a === b
    return eqFn(type)([a, b]) as boolean | null
  }

  #subquery(e: Extract<ScalarExpr, { kind: 'subquery' }>, row: Row, env: readonly Row[]): Value {
    const rows = this.#plan(e.plan, [row, ...env])
    switch (e.mode) {
      case 'exists':
        return rows.length > 0
      case 'scalar':
        if (rows.length > 1) throw new ReferenceError_('21000', 'more than one row returned by a subquery used as an expression')
        return rows.length === 0 ? null : rows[0]![0]
      case 'in': {
        const ops = e.operands.map((o) => this.#expr(o, row, env))
        let sawNull = false
        for (const r of rows) {
          let all: boolean | null = true
          for (let i = 0; i < ops.length; i++) {
            const eq = this.#equal(ops[i], r[i], e.operands[i]!.type)
            if (eq === false) {
              all = false
              break
            }
            if (eq === null) all = null
          }
          if (all === true) return true
          if (all === null) sawNull = true
        }
        return sawNull ? null : false
      }
    }
  }
}

// --------------------------------------------------------------------------------- helpers

const fnCache = new WeakMap<ScalarExpr, (args: readonly Value[]) => Value>()

/** The scalar semantics of one call/cast node, applied to already evaluated arguments. */
function callFn(e: Extract<ScalarExpr, { kind: 'call' | 'cast' }>): (args: readonly Value[]) => Value {
  let f = fnCache.get(e)
  if (!f) {
    const shell: ScalarExpr = e.kind === 'call' ? { ...e, args: e.args.map((a, i) => col(i, a.type)) } : { ...e, arg: col(0, e.arg.type) }
    const compiled = compileScalar(shell)
    f = (args) => compiled(args as unknown[])
    fnCache.set(e, f)
  }
  return f
}

const eqCache = new Map<SqlType, (args: readonly Value[]) => Value>()
function eqFn(t: SqlType): (args: readonly Value[]) => Value {
  let f = eqCache.get(t)
  if (!f) {
    const compiled = compileScalar({ kind: 'call', fn: 'eq', args: [col(0, t), col(1, t)], type: 'boolean' })
    f = (args) => compiled(args as unknown[])
    eqCache.set(t, f)
  }
  return f
}

/** The sum of non-NULL values as SQL types it: integers exactly (a bigint sum is 22003 past
 *  the 64-bit range), numerics exactly (one decimal addition after another), floats as JS
 *  adds them (the comparison tolerates rounding). */
function exactSum(values: readonly Value[], type: SqlType): Value {
  if (type === 'numeric') return values.reduce((s: NumericValue, v) => numericAdd(s, typeof v === 'bigint' ? numericFromInteger(v) : (v as NumericValue)), 0)
  if (type === 'bigint') {
    const s = values.reduce((t: bigint, v) => t + BigInt(v as number | bigint), 0n)
    if (s > INT8_MAX || s < INT8_MIN) throw new ReferenceError_('22003', 'bigint out of range')
    return s >= -BigInt(Number.MAX_SAFE_INTEGER) && s <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(s) : s
  }
  return values.reduce((s: number, v) => s + (v as number), 0)
}

/** SQL ordering of two non-NULL values of the same type. */
export function compareValues(a: Value, b: Value): number {
  if (isNumeric(a) || isNumeric(b)) return numericCompare(a as NumericValue, b as NumericValue)
  if (typeof a === 'bigint' || typeof b === 'bigint') return a! < b! ? -1 : a! > b! ? 1 : 0
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1
    if (Number.isNaN(b)) return -1
    return a < b ? -1 : a > b ? 1 : 0
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1
  const x = String(a)
  const y = String(b)
  return x < y ? -1 : x > y ? 1 : 0
}

/** Grouping / DISTINCT key (SQL: NULLs group together). */
export function key(r: readonly Value[]): string {
  return JSON.stringify(r.map((v) => (typeof v === 'object' && v !== null ? valueKey(v) : typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && Object.is(v, -0) ? 0 : v)))
}

// ----------------------------------------------------------------------------- comparison

/** A numeric result's text ('2.5000') as a number, to compare with an engine (SQLite) that
 *  returns numbers; anything else as it is. */
function asNumber(v: unknown): unknown {
  return typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : typeof v === 'bigint' ? Number(v) : v
}

function valuesClose(a: unknown, b: unknown, tol: number): boolean {
  if (a === b) return true
  if (typeof a !== typeof b) {
    a = asNumber(a)
    b = asNumber(b)
  }
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) && Number.isNaN(b)) return true
    return Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b))
  }
  return false
}

function rowsClose(a: readonly unknown[], b: readonly unknown[], tol: number): boolean {
  return a.length === b.length && a.every((v, i) => valuesClose(v, b[i], tol))
}

function bigintText(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v
}

/** Multiset comparison with a relative tolerance for numbers. Returns undefined when equal,
 *  else a description of the difference. */
export function multisetDiff(actual: readonly (readonly unknown[])[], expected: readonly (readonly unknown[])[], tol = 1e-9): string | undefined {
  const sa = actual.map((r) => JSON.stringify(r, bigintText)).sort()
  const se = expected.map((r) => JSON.stringify(r, bigintText)).sort()
  if (sa.length === se.length && sa.every((x, i) => x === se[i])) return undefined
  // tolerant greedy matching
  const rest = [...actual]
  const missing: (readonly unknown[])[] = []
  for (const e of expected) {
    const i = rest.findIndex((a) => rowsClose(a, e, tol))
    if (i < 0) missing.push(e)
    else rest.splice(i, 1)
  }
  if (missing.length === 0 && rest.length === 0) return undefined
  const fmt = (rows: readonly (readonly unknown[])[]) => rows.map((r) => JSON.stringify(r, bigintText)).sort().join(' ')
  return `expected but missing: ${fmt(missing) || '-'}\n  unexpected: ${fmt(rest) || '-'}\n  expected: ${se.join(' ')}\n  actual:   ${sa.join(' ')}`
}
