// AST expression → typed ScalarExpr: name resolution (with correlation to enclosing
// scopes), operator/function overload resolution, implicit casts, NULL typing, and the
// collection of aggregate and window calls for the query binder.

import type * as ast from '../../grammar/index.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { lit } from '../expr/scalar.js'
import { JSONB_ANY_FUNCTIONS, JSONB_SET_FUNCTIONS, bindJsonbAnyCall, objectAggKey, toJsonbExpr } from './bind-jsonb.js'
import { canCast, commonSupertype, resolveBinaryOperator, resolveFunction, resolveQuantified, resolveUnaryOperator, type Resolved } from '../expr/functions.js'
import type { AggregateCall, AggregateFunction, Column, LogicalPlan, SortKey } from '../logical/plan.js'
import { INT8_MAX, INT8_MIN, arrayOf, elementType, isArrayType, isIntegerType, isNumericType, typeDisplayName, typeFromName, unknownTypeError, type SqlType } from '../types.js'
import { EMPTY_ARRAY } from '../array-value.js'
import { isNumeric, numericFromInteger, numericNeg, numericToDouble, parseNumericText, type NumericValue } from '../numeric.js'
import { RivuletError } from '../../grammar/index.js'
import { jsonReplacer, referencedColumns } from '../logical/tree.js'
import { planError, SqlState, unsupported, type ErrorContext } from '../errors.js'
import type { Scope } from './scope.js'
import type { Catalog, RegType } from '../catalog.js'
import { typeModifierOf, withTypeModifier } from './type-modifier.js'

/** Collects aggregate calls met while binding a post-aggregation expression. */
export interface AggregateCollector {
  readonly inputScope: Scope
  readonly calls: AggregateCall[]
}

/** Binds the window calls (`f(...) OVER (...)`) met in a select list (bind-window.ts). */
export interface WindowCollector {
  /** The placeholder standing for the call's result until the query binder plans it. */
  bind(e: ast.FuncCall, name: string, ctx: ExprContext): ScalarExpr
}

export interface ExprContext {
  readonly err: ErrorContext
  readonly scope: Scope
  readonly aggregates?: AggregateCollector
  readonly windows?: WindowCollector
  /** Binds a subquery with `scope` as its enclosing scope. */
  readonly bindSubquery: (q: ast.Query, outer: Scope) => { plan: LogicalPlan; columns: readonly Column[] }
  /** What the expression is for, for error messages ("WHERE", "JOIN/ON", ...). */
  readonly clause: string
  /** For the functions and casts answered from the catalog (current_user, ::regclass, …);
   *  without it they do not exist. */
  readonly catalog?: Catalog
}

/** Words that are function calls without parentheses in SQL (PostgreSQL's SQLValueFunction):
 *  a column of that name, if the scope has one, comes first here (they are not reserved). */
const BARE_FUNCTIONS = new Set(['current_user', 'session_user', 'current_role', 'user', 'current_catalog', 'current_schema'])

/** The object-identifier types: integers here (bigint: PostgreSQL's oid is unsigned 32-bit). */
const OID_TYPES = new Set(['oid', 'regclass', 'regtype', 'regproc', 'regprocedure', 'regnamespace', 'regrole', 'xid'])

/** Placeholder call ids used between binding and aggregate/window resolution. */
export const AGG_PLACEHOLDER = '__agg'
export const WINDOW_PLACEHOLDER = '__window'
/** `grouping(a, b)`: a call whose arguments are the grouping expressions it tests, replaced
 *  after GROUP BY by the column holding its value (bind-query.ts). */
export const GROUPING_PLACEHOLDER = '__grouping'

const AGGREGATES = new Set([
  'count', 'sum', 'avg', 'min', 'max', 'string_agg', 'array_agg', 'bool_and', 'bool_or', 'every',
  'stddev', 'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop', 'bit_and', 'bit_or', 'bit_xor',
  'approx_count_distinct', 'approx_percentile', 'percentile_cont', 'percentile_disc', 'mode',
  'jsonb_agg', 'jsonb_object_agg',
])

/** Aggregates that take WITHIN GROUP (ORDER BY x) (approx_percentile also takes x as its first
 *  argument, without it). */
const ORDERED_SET_AGGREGATES = new Set(['percentile_cont', 'percentile_disc', 'mode', 'approx_percentile'])

/** Aggregates whose DISTINCT form differs from the plain one and is kept in the call. */
const DISTINCT_SENSITIVE = new Set<AggregateFunction>(['string_agg', 'var_samp', 'var_pop', 'stddev_samp', 'stddev_pop', 'bit_xor'])

export function isAggregateName(name: string): boolean {
  return AGGREGATES.has(name)
}

export function bindExpr(e: ast.Expr, ctx: ExprContext): ScalarExpr {
  switch (e.kind) {
    case 'literal':
      return bindLiteral(e, ctx)
    case 'typedLiteral': {
      const t = typeFromName(e.type.name)
      if (!t) throw planError(ctx.err, unknownTypeError(e.type.name).code, unknownTypeError(e.type.name).message, e.span)
      return withTypeModifier({ kind: 'cast', arg: lit(e.value, 'unknown'), type: t }, typeModifierOf(e.type, t, ctx.err), true)
    }
    case 'interval': {
      const text = e.unit ? `${e.value} ${e.unit}${e.toUnit ? ' to ' + e.toUnit : ''}` : e.value
      return { kind: 'cast', arg: lit(text, 'unknown'), type: 'interval' }
    }
    case 'column':
      return bindColumn(e, ctx)
    case 'star':
      throw planError(ctx.err, SqlState.syntaxError, `"*" is not allowed here`, e.span)
    case 'param':
      throw unsupported(ctx.err, 'query parameters', e.span)
    case 'unary':
      return bindUnary(e, ctx)
    case 'binary':
      return bindBinary(e, ctx)
    case 'is':
      return bindIs(e, ctx)
    case 'between': {
      const operand = bindExpr(e.operand, ctx)
      const low = bindExpr(e.low, ctx)
      const high = bindExpr(e.high, ctx)
      const ge = comparison('>=', operand, low, ctx, e.span)
      const le = comparison('<=', operand, high, ctx, e.span)
      let r: ScalarExpr = { kind: 'and', args: [ge, le], type: 'boolean' }
      if (e.symmetric) {
        const ge2 = comparison('>=', operand, high, ctx, e.span)
        const le2 = comparison('<=', operand, low, ctx, e.span)
        r = { kind: 'or', args: [r, { kind: 'and', args: [ge2, le2], type: 'boolean' }], type: 'boolean' }
      }
      return e.negated ? { kind: 'not', arg: r, type: 'boolean' } : r
    }
    case 'inList': {
      const arg = bindExpr(e.operand, ctx)
      const list = e.list.map((x) => bindExpr(x, ctx))
      const t = commonSupertype([arg.type, ...list.map((x) => x.type)])
      if (t === undefined) throw planError(ctx.err, SqlState.datatypeMismatch, `IN types ${typeDisplayName(arg.type)} and ${typeDisplayName(list.find((x) => x.type !== arg.type)?.type ?? arg.type)} cannot be matched`, e.span)
      const target = t === 'unknown' ? 'text' : t
      return { kind: 'inList', arg: coerce(arg, target, ctx, e.span), list: list.map((x) => coerce(x, target, ctx, e.span)), negated: e.negated, type: 'boolean' }
    }
    case 'inSubquery': {
      const operands = e.operand.kind === 'row' ? e.operand.items.map((x) => bindExpr(x, ctx)) : [bindExpr(e.operand, ctx)]
      const sub = ctx.bindSubquery(e.query, ctx.scope)
      if (sub.columns.length !== operands.length) throw planError(ctx.err, SqlState.syntaxError, `subquery has ${sub.columns.length > operands.length ? 'too many' : 'too few'} columns`, e.span)
      const ops: ScalarExpr[] = []
      for (let i = 0; i < operands.length; i++) {
        const t = commonSupertype([operands[i]!.type, sub.columns[i]!.type])
        if (t === undefined) throw planError(ctx.err, SqlState.undefinedFunction, `operator does not exist: ${typeDisplayName(operands[i]!.type)} = ${typeDisplayName(sub.columns[i]!.type)}`, e.span)
        ops.push(coerce(operands[i]!, t === 'unknown' ? 'text' : t, ctx, e.span))
      }
      const plan = castPlanColumns(sub.plan, sub.columns, ops.map((o) => o.type))
      const r: ScalarExpr = { kind: 'subquery', mode: 'in', plan, operands: ops, type: 'boolean' }
      return e.negated ? { kind: 'not', arg: r, type: 'boolean' } : r
    }
    case 'exists': {
      const sub = ctx.bindSubquery(e.query, ctx.scope)
      return { kind: 'subquery', mode: 'exists', plan: sub.plan, operands: [], type: 'boolean' }
    }
    case 'subquery': {
      const sub = ctx.bindSubquery(e.query, ctx.scope)
      if (sub.columns.length !== 1) throw planError(ctx.err, SqlState.syntaxError, 'subquery must return only one column', e.span)
      return { kind: 'subquery', mode: 'scalar', plan: sub.plan, operands: [], type: sub.columns[0]!.type }
    }
    case 'like': {
      const operand = bindExpr(e.operand, ctx)
      const pattern = bindExpr(e.pattern, ctx)
      const args = [operand, pattern]
      if (e.escape) args.push(bindExpr(e.escape, ctx))
      const name = e.caseInsensitive ? 'ilike' : 'like'
      const r = callResolved(name, resolveFunction(name, args.map((a) => a.type)) ?? resolveBinaryOperator(name, operand.type, pattern.type), args, ctx, e.span)
      return e.negated ? { kind: 'not', arg: r, type: 'boolean' } : r
    }
    case 'case':
      return bindCase(e, ctx)
    case 'cast': {
      if ((e.type.arrayDimensions ?? 0) > 0) {
        // oid[], name[] and "char"[]: the catalog's arrays, of bigints and texts here
        const name = OID_TYPES.has(e.type.name) ? 'bigint' : e.type.name === 'name' ? 'text' : e.type.name
        const t = typeFromName(name, e.type.arrayDimensions)
        if (!t) throw planError(ctx.err, '42704', `type "${e.type.name}[]" does not exist`, e.type.span)
        return explicitCast(e.operand.kind === 'array' ? bindArray(e.operand, ctx, t) : bindExpr(e.operand, ctx), t, ctx, e.span)
      }
      const named = regName(e, ctx)
      if (named !== undefined) return named
      const arg = bindExpr(e.operand, ctx)
      if (OID_TYPES.has(e.type.name)) return oidCast(arg, e, ctx)
      // name and "char": PostgreSQL's catalog string types, text here
      if (e.type.name === 'name') return explicitCast(arg, 'text', ctx, e.span)
      const t = typeFromName(e.type.name)
      if (!t) throw planError(ctx.err, unknownTypeError(e.type.name).code, unknownTypeError(e.type.name).message, e.type.span)
      return withTypeModifier(explicitCast(arg, t, ctx, e.span), typeModifierOf(e.type, t, ctx.err), true)
    }
    case 'extract': {
      const arg = bindExpr(e.operand, ctx)
      const args = [lit(e.field.toLowerCase(), 'text'), arg]
      return callResolved('extract', resolveFunction('extract', args.map((a) => a.type)), args, ctx, e.span)
    }
    case 'func':
      return bindFunc(e, ctx)
    case 'row':
      throw unsupported(ctx.err, 'row constructors in this position', e.span)
    case 'array':
      return bindArray(e, ctx, undefined)
    case 'arraySubquery':
      return bindArraySubquery(e, ctx)
    case 'subscript': {
      const arr = bindExpr(e.operand, ctx)
      if (!isArrayType(arr.type)) throw planError(ctx.err, SqlState.datatypeMismatch, `cannot subscript type ${typeDisplayName(arr.type)} because it does not support subscripting`, e.operand.span)
      const index = coerce(bindExpr(e.index, ctx), 'integer', ctx, e.index.span, 'array subscript')
      return { kind: 'call', fn: 'array_subscript', args: [arr, index], type: elementType(arr.type) }
    }
    case 'quantified':
      return bindQuantified(e, ctx)
  }
}

/** `ARRAY[a, b]`: the items' common type, as PostgreSQL's ARRAY[] types them (untyped
 *  literals: text); `as`, from a cast around the constructor, types an empty ARRAY[]. */
function bindArray(e: ast.ArrayExpr, ctx: ExprContext, as: SqlType | undefined): ScalarExpr {
  if (e.items.some((i) => i.kind === 'array')) throw unsupported(ctx.err, 'multidimensional arrays', e.span)
  const items = e.items.map((i) => bindExpr(i, ctx))
  if (items.length === 0) {
    if (as === undefined || !isArrayType(as)) throw planError(ctx.err, '42P18', 'cannot determine type of empty array (cast it, for example ARRAY[]::integer[])', e.span)
    return lit(EMPTY_ARRAY, as)
  }
  const t0 = commonSupertype(items.map((i) => i.type))
  if (t0 === undefined) throw planError(ctx.err, SqlState.datatypeMismatch, `ARRAY types ${items.map((x) => typeDisplayName(x.type)).filter((v, i, a) => a.indexOf(v) === i).join(' and ')} cannot be matched`, e.span)
  if (isArrayType(t0)) throw unsupported(ctx.err, 'multidimensional arrays', e.span)
  const t = t0 === 'unknown' ? 'text' : t0
  return { kind: 'call', fn: 'array_construct', args: items.map((i) => coerce(i, t, ctx, e.span)), type: arrayOf(t) }
}

/** `ARRAY(SELECT x … ORDER BY …)` is `(SELECT array_agg(x ORDER BY …) …)`, with `'{}'` for no
 *  rows: the subquery's ORDER BY keys become the aggregate's, its rows the aggregate's input. */
function bindArraySubquery(e: ast.ArraySubqueryExpr, ctx: ExprContext): ScalarExpr {
  const q = e.query
  const body = q.body
  const span = e.span
  const plain = body.kind === 'select' && !body.distinct && body.distinctOn === undefined && body.groupBy.length === 0 && body.having === undefined && q.limit === undefined && q.offset === undefined && q.with.length === 0
  let inner: ast.Query
  if (plain && body.kind === 'select') {
    if (body.items.length !== 1 || body.items[0]!.expr.kind === 'star') throw planError(ctx.err, SqlState.syntaxError, 'subquery must return only one column', span)
    const item = body.items[0]!
    // ORDER BY 1 or the item's alias is the item itself
    const orderBy = q.orderBy.map((o): ast.OrderItem => {
      const x = o.expr
      if (x.kind === 'literal' && x.value.type === 'integer') {
        if (x.value.text !== '1') throw planError(ctx.err, SqlState.invalidColumnReference, `ORDER BY position ${x.value.text} is not in select list`, x.span)
        return { ...o, expr: item.expr }
      }
      if (x.kind === 'column' && x.parts.length === 1 && x.parts[0] === item.alias) return { ...o, expr: item.expr }
      return o
    })
    const agg: ast.FuncCall = { kind: 'func', name: ['array_agg'], args: [item.expr], distinct: false, orderBy, filter: undefined, over: undefined, span }
    inner = { ...q, body: { ...body, items: [{ expr: agg, alias: item.alias, span: item.span }] }, orderBy: [] }
  } else {
    // anything else: the rows of the query as a derived table, aggregated in no set order
    // (LIMIT keeps its ORDER BY inside)
    const v: ast.ColumnRef = { kind: 'column', parts: ['__array_rows', '__array_value'], span }
    const agg: ast.FuncCall = { kind: 'func', name: ['array_agg'], args: [v], distinct: false, orderBy: [], filter: undefined, over: undefined, span }
    const from: ast.SubqueryTableRef = { kind: 'subquery', query: q, alias: { name: '__array_rows', columns: ['__array_value'] }, lateral: false, span }
    inner = { kind: 'query', with: [], recursive: false, body: { kind: 'select', distinct: false, distinctOn: undefined, items: [{ expr: agg, alias: undefined, span }], from, where: undefined, groupBy: [], having: undefined, span }, orderBy: [], limit: undefined, withTies: false, offset: undefined, emitOnWindowClose: false, span }
  }
  const sub = ctx.bindSubquery(inner, ctx.scope)
  if (sub.columns.length !== 1) throw planError(ctx.err, SqlState.syntaxError, 'subquery must return only one column', span)
  const t = sub.columns[0]!.type
  const scalar: ScalarExpr = { kind: 'subquery', mode: 'scalar', plan: sub.plan, operands: [], type: t }
  return { kind: 'coalesce', args: [scalar, lit(EMPTY_ARRAY, t)], type: t }
}

/** `x op ANY (array)` / `x op ALL (array)`; with a subquery, `= ANY` is IN and `<> ALL` is
 *  NOT IN. */
function bindQuantified(e: ast.QuantifiedExpr, ctx: ExprContext): ScalarExpr {
  if (e.query !== undefined) {
    if ((e.op === '=' && e.quantifier === 'any') || (e.op === '<>' && e.quantifier === 'all')) {
      return bindExpr({ kind: 'inSubquery', operand: e.operand, query: e.query, negated: e.quantifier === 'all', span: e.span }, ctx)
    }
    throw unsupported(ctx.err, `${e.op} ${e.quantifier.toUpperCase()} (subquery) (= ANY and <> ALL are supported)`, e.span)
  }
  const x = bindExpr(e.operand, ctx)
  const arr = e.array!.kind === 'array' ? bindArray(e.array!, ctx, undefined) : bindExpr(e.array!, ctx)
  const t = resolveQuantified(x.type, arr.type)
  if (t === undefined) {
    if (!isArrayType(arr.type) && arr.type !== 'unknown') throw planError(ctx.err, SqlState.wrongObjectType, `op ANY/ALL (array) requires array on right side`, e.array!.span)
    throw planError(ctx.err, SqlState.undefinedFunction, `operator does not exist: ${typeDisplayName(x.type)} ${e.op} ${typeDisplayName(arr.type)}`, e.span)
  }
  const elem = elementType(t)
  if (compareFnCheck(elem) === false) throw planError(ctx.err, SqlState.undefinedFunction, `operator does not exist: ${typeDisplayName(elem)} ${e.op} ${typeDisplayName(elem)}`, e.span)
  return { kind: 'call', fn: e.quantifier === 'any' ? 'array_any' : 'array_all', args: [lit(e.op, 'text'), coerce(x, elem, ctx, e.span), coerce(arr, t, ctx, e.span)], type: 'boolean' }
}

/** Whether the element type has the comparison operators. */
function compareFnCheck(t: SqlType): boolean {
  return resolveBinaryOperator('=', t, t) !== undefined
}

function bindLiteral(e: ast.LiteralExpr, ctx: ExprContext): ScalarExpr {
  const v = e.value
  switch (v.type) {
    case 'null':
      return lit(null, 'unknown')
    case 'boolean':
      return lit(v.value, 'boolean')
    case 'string':
      // PostgreSQL's text cannot hold a NUL character (E'\x00', U&'\0000')
      if (v.value.includes('\u0000')) throw planError(ctx.err, SqlState.characterNotInRepertoire, 'invalid byte sequence for encoding "UTF8": 0x00', e.span)
      return lit(v.value, 'unknown')
    case 'integer': {
      // as PostgreSQL types an integer constant: int4, else int8, else numeric
      const n = Number(v.text)
      if (n <= 2147483647) return lit(n, 'integer')
      if (Number.isSafeInteger(n)) return lit(n, 'bigint')
      const exact = BigInt(v.text)
      if (exact <= INT8_MAX) return lit(exact, 'bigint')
      return lit(parseDecimalLiteral(v.text, ctx, e.span), 'numeric')
    }
    case 'decimal':
      return lit(parseDecimalLiteral(v.text, ctx, e.span), 'numeric')
  }
}

/** A decimal constant's exact value (a constant beyond numeric's range is 22003). */
function parseDecimalLiteral(text: string, ctx: ExprContext, span: ast.Span): NumericValue {
  try {
    return parseNumericText(text)!
  } catch (err) {
    if (err instanceof RivuletError) throw planError(ctx.err, err.code, err.message, span)
    throw err
  }
}

/** The literal −v, typed as PostgreSQL types the negated constant; undefined when the minus
 *  stays an operator (a typed literal such as a float). */
function negatedLiteral(v: unknown, type: SqlType): ScalarExpr | 'overflow' | undefined {
  if (typeof v === 'number' && (type === 'integer' || type === 'bigint' || type === 'smallint')) {
    const n = -v + 0
    if (type === 'bigint' && n === -2147483648) return lit(n, 'integer')
    if ((type === 'integer' && n > 2147483647) || (type === 'smallint' && n > 32767)) return 'overflow'
    return lit(n, type)
  }
  // a bigint-valued bigint is beyond ±(2^53 − 1), and so is its negation
  if (typeof v === 'bigint' && type === 'bigint') return -v > INT8_MAX ? 'overflow' : lit(-v, 'bigint')
  if (type === 'numeric' && (typeof v === 'number' || isNumeric(v))) {
    const n = numericNeg(v as NumericValue)
    // -9223372036854775808 is the least bigint
    if (isNumeric(n) && n.scale === 0 && n.coef === INT8_MIN) return lit(n.coef, 'bigint')
    return lit(n, 'numeric')
  }
  return undefined
}

function bindColumn(e: ast.ColumnRef, ctx: ExprContext): ScalarExpr {
  let scope: Scope | undefined = ctx.scope
  let depth = 0
  while (scope) {
    const r = scope.resolveLocal(e.parts)
    if (r.kind === 'ambiguous') throw planError(ctx.err, SqlState.ambiguousColumn, `column reference "${e.parts.join('.')}" is ambiguous`, e.span)
    if (r.kind === 'found') return depth === 0 ? { kind: 'column', index: r.index, type: r.type } : { kind: 'outerColumn', depth, index: r.index, type: r.type }
    scope = scope.parent
    depth++
  }
  if (e.parts.length > 1) {
    const q = e.parts[e.parts.length - 2]!
    let s: Scope | undefined = ctx.scope
    let known = false
    while (s) {
      if (s.hasTable(q)) known = true
      s = s.parent
    }
    if (!known) throw planError(ctx.err, SqlState.undefinedTable, `missing FROM-clause entry for table "${q}"`, e.span)
  }
  if (e.parts.length === 1 && BARE_FUNCTIONS.has(e.parts[0]!)) {
    const f = ctx.catalog?.systemFunction?.(e.parts[0]!, [])
    if (f) return f
  }
  throw planError(ctx.err, SqlState.undefinedColumn, `column "${e.parts.join('.')}" does not exist`, e.span)
}

/** `x::oid`, `'t'::regclass`, …: OIDs are bigints; a relation name cast to regclass is the
 *  relation's OID (42P01 if there is none), as PostgreSQL resolves it when the cast is
 *  evaluated (here: bound, so only a constant name can be cast). */
function oidCast(arg: ScalarExpr, e: ast.CastExpr, ctx: ExprContext): ScalarExpr {
  if (isIntegerType(arg.type) || isNumericType(arg.type)) return explicitCast(arg, 'bigint', ctx, e.span)
  const reg = REG_TYPES[e.type.name]
  if (reg !== undefined && arg.kind === 'literal' && typeof arg.value === 'string') {
    if (/^\d+$/.test(arg.value)) return lit(Number(arg.value), 'bigint')
    const oid = ctx.catalog?.objectOid?.(reg.type, arg.value)
    if (oid === undefined) throw planError(ctx.err, reg.missing, `${reg.what} "${arg.value}" does not exist`, e.span)
    return lit(oid, 'bigint')
  }
  if (reg !== undefined && (arg.type === 'text' || arg.type === 'unknown')) throw unsupported(ctx.err, `a cast to ${e.type.name} of a value that is not a constant name`, e.span)
  return explicitCast(arg, 'bigint', ctx, e.span)
}

/** The OID types that name objects: what a name is looked up as, and the error for none. */
const REG_TYPES: Readonly<Record<string, { type: RegType; what: string; missing: string }>> = {
  regclass: { type: 'regclass', what: 'relation', missing: SqlState.undefinedTable },
  regnamespace: { type: 'regnamespace', what: 'schema', missing: '3F000' },
  regtype: { type: 'regtype', what: 'type', missing: '42704' },
  regproc: { type: 'regproc', what: 'function', missing: SqlState.undefinedFunction },
  regprocedure: { type: 'regprocedure', what: 'function', missing: SqlState.undefinedFunction },
  regrole: { type: 'regrole', what: 'role', missing: '42704' },
}

/** `x::regclass::text` (and the other name types): the object's name, as PostgreSQL prints a
 *  regclass value; undefined when `e` is not such a cast. */
function regName(e: ast.CastExpr, ctx: ExprContext): ScalarExpr | undefined {
  const inner = e.operand
  if (inner.kind !== 'cast' || (inner.type.arrayDimensions ?? 0) > 0 || (e.type.name !== 'text' && e.type.name !== 'varchar' && e.type.name !== 'name')) return undefined
  const reg = REG_TYPES[inner.type.name]
  if (reg === undefined) return undefined
  const oid = oidCast(bindExpr(inner.operand, ctx), inner, ctx)
  return ctx.catalog?.objectName?.(reg.type, oid)
}

/** A number literal as written, with minus signs before it (not a cast or other expression). */
function isSignedLiteral(e: ast.Expr): boolean {
  return e.kind === 'literal' || (e.kind === 'unary' && e.op === '-' && isSignedLiteral(e.operand))
}

function bindUnary(e: ast.UnaryExpr, ctx: ExprContext): ScalarExpr {
  const arg = bindExpr(e.operand, ctx)
  if (e.op === 'not') return { kind: 'not', arg: coerce(arg, 'boolean', ctx, e.operand.span, 'argument of NOT'), type: 'boolean' }
  // unary plus is the identity on every typed value (SQLite's corpus writes `+ textcol`)
  if (e.op === '+' && arg.type !== 'unknown') return arg
  // fold a minus into a numeric literal so -2147483648 is an integer and -9223372036854775808
  // a bigint, as in Postgres
  if (e.op === '-' && arg.kind === 'literal' && arg.value !== null && isNumericType(arg.type)) {
    // Postgres folds a chain of minus signs into the literal as written and types the
    // result by its range: `- -2147483648` is the bigint 2147483648
    if (arg.type === 'integer' && arg.value === -2147483648 && isSignedLiteral(e.operand)) return lit(2147483648, 'bigint')
    const folded = negatedLiteral(arg.value, arg.type)
    if (folded === 'overflow') throw planError(ctx.err, SqlState.numericValueOutOfRange, `${arg.type} out of range`, e.span)
    if (folded !== undefined) return folded
  }
  const t = arg.type === 'unknown' ? 'numeric' : arg.type
  const r = resolveUnaryOperator(e.op, t)
  if (!r) throw planError(ctx.err, SqlState.undefinedFunction, `operator does not exist: ${e.op} ${typeDisplayName(arg.type)}`, e.span)
  return callResolved(e.op, r, [arg], ctx, e.span)
}

function bindBinary(e: ast.BinaryExpr, ctx: ExprContext): ScalarExpr {
  if (e.op === 'and' || e.op === 'or') {
    const l = coerce(bindExpr(e.left, ctx), 'boolean', ctx, e.left.span, `argument of ${e.op.toUpperCase()}`)
    const r = coerce(bindExpr(e.right, ctx), 'boolean', ctx, e.right.span, `argument of ${e.op.toUpperCase()}`)
    const flat = (x: ScalarExpr) => (x.kind === e.op ? (x as { args: readonly ScalarExpr[] }).args : [x])
    return { kind: e.op, args: [...flat(l), ...flat(r)], type: 'boolean' }
  }
  if (e.op === 'is distinct from' || e.op === 'is not distinct from') {
    const l = bindExpr(e.left, ctx)
    const r = bindExpr(e.right, ctx)
    const eq = comparison('=', l, r, ctx, e.span)
    // a IS NOT DISTINCT FROM b  ≡  (a IS NULL AND b IS NULL) OR COALESCE(a = b, false)
    const bothNull: ScalarExpr = { kind: 'and', args: [{ kind: 'isNull', arg: l, negated: false, type: 'boolean' }, { kind: 'isNull', arg: r, negated: false, type: 'boolean' }], type: 'boolean' }
    const same: ScalarExpr = { kind: 'or', args: [bothNull, { kind: 'coalesce', args: [eq, lit(false, 'boolean')], type: 'boolean' }], type: 'boolean' }
    return e.op === 'is not distinct from' ? same : { kind: 'not', arg: same, type: 'boolean' }
  }
  const l = bindExpr(e.left, ctx)
  const r = bindExpr(e.right, ctx)
  if (e.op === '=' || e.op === '<>' || e.op === '<' || e.op === '<=' || e.op === '>' || e.op === '>=') return comparison(e.op, l, r, ctx, e.span)
  const lt = l.type
  const rt = r.type
  // untyped literals: numeric context for arithmetic, text for ||
  const res = resolveBinaryOperator(e.op, lt, rt)
  if (!res) throw planError(ctx.err, SqlState.undefinedFunction, `operator does not exist: ${typeDisplayName(lt)} ${e.op} ${typeDisplayName(rt)}`, e.span)
  return callResolved(e.op, res, [l, r], ctx, e.span)
}

export function comparison(op: string, l: ScalarExpr, r: ScalarExpr, ctx: ExprContext, span: ast.Span): ScalarExpr {
  const res = resolveBinaryOperator(op, l.type, r.type)
  if (!res) throw planError(ctx.err, SqlState.undefinedFunction, `operator does not exist: ${typeDisplayName(l.type)} ${op} ${typeDisplayName(r.type)}`, span)
  return callResolved(op, res, [l, r], ctx, span)
}

function bindIs(e: ast.IsExpr, ctx: ExprContext): ScalarExpr {
  const arg = bindExpr(e.operand, ctx)
  let r: ScalarExpr
  switch (e.test) {
    case 'null':
      return { kind: 'isNull', arg, negated: e.negated, type: 'boolean' }
    case 'unknown':
      return { kind: 'isNull', arg: coerce(arg, 'boolean', ctx, e.span), negated: e.negated, type: 'boolean' }
    case 'true':
    case 'false': {
      // x IS TRUE ≡ COALESCE(x = true, false); never NULL
      const b = coerce(arg, 'boolean', ctx, e.span)
      const test: ScalarExpr = e.test === 'true' ? b : { kind: 'not', arg: b, type: 'boolean' }
      r = { kind: 'coalesce', args: [test, lit(false, 'boolean')], type: 'boolean' }
      return e.negated ? { kind: 'not', arg: r, type: 'boolean' } : r
    }
  }
}

function bindCase(e: ast.CaseExpr, ctx: ExprContext): ScalarExpr {
  const operand = e.operand ? bindExpr(e.operand, ctx) : undefined
  const whens = e.whens.map((w) => {
    const when = operand ? comparison('=', operand, bindExpr(w.when, ctx), ctx, w.when.span) : coerce(bindExpr(w.when, ctx), 'boolean', ctx, w.when.span, 'argument of CASE/WHEN')
    return { when, then: bindExpr(w.then, ctx) }
  })
  const els = e.else ? bindExpr(e.else, ctx) : lit(null, 'unknown')
  const results = [...whens.map((w) => w.then), els]
  const t0 = commonSupertype(results.map((x) => x.type))
  if (t0 === undefined) throw planError(ctx.err, SqlState.datatypeMismatch, `CASE types ${results.map((x) => typeDisplayName(x.type)).filter((v, i, a) => a.indexOf(v) === i).join(' and ')} cannot be matched`, e.span)
  const t = t0 === 'unknown' ? 'text' : t0
  return { kind: 'case', whens: whens.map((w) => ({ when: w.when, then: coerce(w.then, t, ctx, e.span) })), else: coerce(els, t, ctx, e.span), type: t }
}

function bindFunc(e: ast.FuncCall, ctx: ExprContext): ScalarExpr {
  const name = e.name[e.name.length - 1]!
  if (e.over) {
    if (!ctx.windows) throw planError(ctx.err, SqlState.windowingError, `window functions are not allowed in ${ctx.clause}`, e.span)
    return ctx.windows.bind(e, name, ctx)
  }
  if (isAggregateName(name) && e.name.length === 1) return bindAggregate(e, name, ctx)
  if (name === 'grouping' && e.name.length === 1) return bindGrouping(e, ctx)
  if (e.withinGroup !== undefined) throw planError(ctx.err, SqlState.wrongObjectType, `WITHIN GROUP specified, but ${name} is not an aggregate function`, e.span)
  if (e.distinct || e.orderBy.length > 0 || e.filter) throw planError(ctx.err, SqlState.wrongObjectType, `DISTINCT, ORDER BY or FILTER specified, but ${name} is not an aggregate function`, e.span)
  if (e.args.some((a) => a.kind === 'star')) throw planError(ctx.err, SqlState.syntaxError, `"*" is only allowed in COUNT(*)`, e.span)
  const args = e.args.map((a) => bindExpr(a, ctx))
  // catalog and session functions (pg_catalog's: a call qualified with another schema is no
  // such call)
  if (e.name.length === 1 || (e.name.length === 2 && e.name[0] === 'pg_catalog')) {
    const f = ctx.catalog?.systemFunction?.(name, args)
    if (f) return f
  }
  switch (name) {
    case 'coalesce': {
      const t0 = commonSupertype(args.map((a) => a.type))
      if (t0 === undefined) throw planError(ctx.err, SqlState.datatypeMismatch, `COALESCE types cannot be matched`, e.span)
      const t = t0 === 'unknown' ? 'text' : t0
      return { kind: 'coalesce', args: args.map((a) => coerce(a, t, ctx, e.span)), type: t }
    }
    case 'nullif': {
      if (args.length !== 2) throw planError(ctx.err, SqlState.undefinedFunction, 'function nullif requires 2 arguments', e.span)
      const [a, b] = args as [ScalarExpr, ScalarExpr]
      const t = a.type === 'unknown' ? (b.type === 'unknown' ? 'text' : b.type) : a.type
      const eq = comparison('=', a, b, ctx, e.span)
      return { kind: 'case', whens: [{ when: eq, then: lit(null, t) }], else: coerce(a, t, ctx, e.span), type: t }
    }
    case 'pg_typeof': {
      // the argument's type, known when binding (PostgreSQL returns it as regtype, which
      // prints as the type's name; here it is that name as text)
      if (args.length !== 1) throw planError(ctx.err, SqlState.undefinedFunction, 'function pg_typeof requires 1 argument', e.span)
      return lit(typeDisplayName(args[0]!.type), 'text')
    }
  }
  if (JSONB_ANY_FUNCTIONS.has(name)) return bindJsonbAnyCall(name, args, ctx, e.span)
  if (JSONB_SET_FUNCTIONS.has(name)) throw unsupported(ctx.err, `${name} in an expression (use it in FROM)`, e.span)
  const res = resolveFunction(name, args.map((a) => a.type))
  if (!res) throw planError(ctx.err, SqlState.undefinedFunction, `function ${name}(${args.map((a) => typeDisplayName(a.type === 'unknown' ? 'text' : a.type)).join(', ')}) does not exist`, e.span)
  return callResolved(name, res, args, ctx, e.span)
}

/** `grouping(a, …)`: where aggregates may be (it is answered per group), over the FROM scope;
 *  whether its arguments are grouping expressions is checked once GROUP BY is bound. */
function bindGrouping(e: ast.FuncCall, ctx: ExprContext): ScalarExpr {
  const coll = ctx.aggregates
  if (!coll) throw planError(ctx.err, SqlState.groupingError, `grouping operations are not allowed in ${ctx.clause}`, e.span)
  if (e.distinct || e.orderBy.length > 0 || e.filter || e.withinGroup !== undefined) throw planError(ctx.err, SqlState.wrongObjectType, 'DISTINCT, ORDER BY or FILTER specified, but grouping is not an aggregate function', e.span)
  if (e.args.length === 0 || e.args.some((a) => a.kind === 'star')) throw planError(ctx.err, SqlState.syntaxError, 'grouping takes one or more grouping expressions', e.span)
  if (e.args.length > 31) throw planError(ctx.err, SqlState.tooManyArguments, 'GROUPING must have fewer than 32 arguments', e.span)
  const argCtx: ExprContext = { ...ctx, scope: coll.inputScope, aggregates: undefined, windows: undefined, clause: 'arguments of GROUPING' }
  return { kind: 'call', fn: GROUPING_PLACEHOLDER, args: e.args.map((a) => bindExpr(a, argCtx)), type: 'integer' }
}

function bindAggregate(e: ast.FuncCall, name: string, ctx: ExprContext): ScalarExpr {
  const coll = ctx.aggregates
  if (!coll) throw planError(ctx.err, SqlState.groupingError, `aggregate functions are not allowed in ${ctx.clause}`, e.span)
  // aggregate arguments are bound in the FROM scope and may not nest aggregates
  const argCtx: ExprContext = { ...ctx, scope: coll.inputScope, aggregates: undefined, windows: undefined, clause: 'aggregate function calls' }
  if (e.withinGroup !== undefined || (ORDERED_SET_AGGREGATES.has(name) && name !== 'approx_percentile')) return bindOrderedSetAggregate(e, name, ctx, argCtx, coll)
  const star = e.args.length === 1 && e.args[0]!.kind === 'star'
  const args = star ? [] : e.args.map((a) => bindExpr(a, argCtx))
  const filter = e.filter ? coerce(bindExpr(e.filter, argCtx), 'boolean', argCtx, e.filter.span, 'FILTER') : undefined
  const orderBy: SortKey[] = e.orderBy.map((o) => ({ expr: bindExpr(o.expr, argCtx), desc: o.desc, nullsFirst: o.nullsFirst ?? o.desc }))
  const { fn, type, args: finalArgs, value } = aggregateSignature(name, args, star, e.distinct, ctx, e.span)
  if (value !== undefined) orderBy.push(value)
  if (e.distinct && fn === 'string_agg' && orderBy.some((o) => !finalArgs.some((a) => sameExprShape(a, o.expr)))) {
    throw planError(ctx.err, SqlState.invalidColumnReference, 'in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list', e.span)
  }
  const index = coll.calls.length
  // DISTINCT is idempotent for the others (MIN, MAX, BOOL_AND, BIT_AND, APPROX_COUNT_DISTINCT, …)
  coll.calls.push({ fn, args: finalArgs, orderBy, filter, type, ...(e.distinct && DISTINCT_SENSITIVE.has(fn) ? { distinct: true } : {}) })
  return { kind: 'call', fn: AGG_PLACEHOLDER, args: [lit(index, 'integer')], type }
}

/** The aggregate function, result type and coerced arguments of `name(args)` (also for
 *  aggregates used as window functions); `value`: the key the call orders its values by, for
 *  approx_percentile(x, q) (x, as in its WITHIN GROUP form). */
export function aggregateSignature(name: string, args: readonly ScalarExpr[], star: boolean, distinct: boolean, ctx: ExprContext, span: ast.Span): { fn: AggregateFunction; type: SqlType; args: ScalarExpr[]; value?: SortKey } {
  let fn: AggregateFunction
  let type: SqlType
  let finalArgs: ScalarExpr[] = args.slice()
  let value: SortKey | undefined
  const arg0 = args[0]
  const need = (n: number) => {
    if (args.length !== n) throw planError(ctx.err, SqlState.undefinedFunction, `function ${name} takes ${n} argument${n === 1 ? '' : 's'}`, span)
  }
  switch (name) {
    case 'count':
      if (star) {
        if (distinct) throw planError(ctx.err, SqlState.syntaxError, 'COUNT(DISTINCT *) is not valid', span)
        fn = 'count_rows'
      } else {
        need(1)
        fn = distinct ? 'count_distinct' : 'count'
      }
      type = 'bigint'
      break
    case 'sum': {
      need(1)
      const t = arg0!.type === 'unknown' ? 'numeric' : arg0!.type
      if (!isNumericType(t) && t !== 'interval') throw planError(ctx.err, SqlState.undefinedFunction, `function sum(${typeDisplayName(t)}) does not exist`, span)
      fn = distinct ? 'sum_distinct' : 'sum'
      type = t === 'smallint' || t === 'integer' ? 'bigint' : t === 'bigint' ? 'numeric' : t === 'real' ? 'real' : t
      finalArgs = [coerce(arg0!, t, ctx, span)]
      break
    }
    case 'avg': {
      need(1)
      const t = arg0!.type === 'unknown' ? 'numeric' : arg0!.type
      if (!isNumericType(t) && t !== 'interval') throw planError(ctx.err, SqlState.undefinedFunction, `function avg(${typeDisplayName(t)}) does not exist`, span)
      fn = distinct ? 'avg_distinct' : 'avg'
      type = isIntegerType(t) || t === 'numeric' ? 'numeric' : t === 'interval' ? 'interval' : 'double'
      finalArgs = [coerce(arg0!, t, ctx, span)]
      break
    }
    case 'min':
    case 'max': {
      need(1)
      fn = name
      type = arg0!.type === 'unknown' ? 'text' : arg0!.type
      // PostgreSQL 15 has no min/max of uuid or bytea (nor of boolean)
      if (type === 'uuid' || type === 'bytea' || type === 'boolean') throw planError(ctx.err, SqlState.undefinedFunction, `function ${name}(${typeDisplayName(type)}) does not exist`, span)
      finalArgs = [coerce(arg0!, type, ctx, span)]
      break
    }
    case 'string_agg': {
      need(2)
      fn = 'string_agg'
      type = 'text'
      finalArgs = [coerce(arg0!, 'text', ctx, span), coerce(args[1]!, 'text', ctx, span)]
      break
    }
    case 'array_agg': {
      need(1)
      const t = arg0!.type === 'unknown' ? 'text' : arg0!.type
      if (isArrayType(t)) throw unsupported(ctx.err, 'array_agg of arrays (multidimensional arrays)', span)
      if (distinct) throw unsupported(ctx.err, 'array_agg(DISTINCT …)', span)
      fn = 'array_agg'
      type = arrayOf(t)
      finalArgs = [coerce(arg0!, t, ctx, span)]
      break
    }
    case 'jsonb_agg':
      // each value as jsonb (a NULL is JSON null in the array)
      need(1)
      if (distinct) throw unsupported(ctx.err, 'jsonb_agg(DISTINCT …)', span)
      fn = 'jsonb_agg'
      type = 'jsonb'
      finalArgs = [toJsonbExpr(arg0!, ctx, span)]
      break
    case 'jsonb_object_agg':
      need(2)
      if (distinct) throw unsupported(ctx.err, 'jsonb_object_agg(DISTINCT …)', span)
      fn = 'jsonb_object_agg'
      type = 'jsonb'
      finalArgs = [objectAggKey(arg0!, ctx, span), toJsonbExpr(args[1]!, ctx, span)]
      break
    case 'bool_and':
    case 'every':
    case 'bool_or':
      need(1)
      fn = name === 'bool_or' ? 'bool_or' : 'bool_and'
      type = 'boolean'
      finalArgs = [coerce(arg0!, 'boolean', ctx, span)]
      break
    case 'stddev':
    case 'stddev_samp':
    case 'stddev_pop':
    case 'variance':
    case 'var_samp':
    case 'var_pop': {
      need(1)
      const t = arg0!.type === 'unknown' ? 'numeric' : arg0!.type
      if (!isNumericType(t)) throw planError(ctx.err, SqlState.undefinedFunction, `function ${name}(${typeDisplayName(t)}) does not exist`, span)
      fn = name === 'stddev' ? 'stddev_samp' : name === 'variance' ? 'var_samp' : name
      type = t === 'real' || t === 'double' ? 'double' : 'numeric'
      finalArgs = [coerce(arg0!, t, ctx, span)]
      break
    }
    case 'bit_and':
    case 'bit_or':
    case 'bit_xor': {
      need(1)
      const t = arg0!.type === 'unknown' ? 'integer' : arg0!.type
      if (!isIntegerType(t)) throw planError(ctx.err, SqlState.undefinedFunction, `function ${name}(${typeDisplayName(t)}) does not exist`, span)
      fn = name
      type = t
      finalArgs = [coerce(arg0!, t, ctx, span)]
      break
    }
    case 'approx_count_distinct': {
      need(1)
      const t = arg0!.type === 'unknown' ? 'text' : arg0!.type
      fn = 'approx_count_distinct'
      type = 'bigint'
      finalArgs = [coerce(arg0!, t, ctx, span)]
      break
    }
    case 'approx_percentile': {
      // approx_percentile(x, q [, relative error]): the WITHIN GROUP form with x moved out
      if (args.length !== 2 && args.length !== 3) throw planError(ctx.err, SqlState.undefinedFunction, `function ${name} takes 2 or 3 arguments`, span)
      fn = 'approx_percentile'
      type = 'double'
      finalArgs = args.slice(1).map((a) => constantDirectArgument(a, 'double', ctx, span))
      value = { expr: coerceToDouble(arg0!, name, ctx, span), desc: false, nullsFirst: false }
      break
    }
    default:
      throw unsupported(ctx.err, `aggregate ${name}`, span)
  }
  return { fn, type, args: finalArgs, ...(value !== undefined ? { value } : {}) }
}

/** `f(direct args) WITHIN GROUP (ORDER BY x)`: the call's args are the direct arguments (as
 *  constants), its one ORDER BY key the aggregated value. */
function bindOrderedSetAggregate(e: ast.FuncCall, name: string, ctx: ExprContext, argCtx: ExprContext, coll: AggregateCollector): ScalarExpr {
  const within = e.withinGroup
  if (e.distinct) throw planError(ctx.err, SqlState.syntaxError, 'cannot use DISTINCT with WITHIN GROUP', e.span)
  if (e.orderBy.length > 0) throw planError(ctx.err, SqlState.syntaxError, 'cannot use multiple ORDER BY clauses with WITHIN GROUP', e.span)
  const direct = e.args.map((a) => bindExpr(a, argCtx))
  const keys = (within ?? []).map((o) => bindExpr(o.expr, argCtx))
  // as in PostgreSQL, a call that does not fit (a plain aggregate with WITHIN GROUP, an
  // ordered-set one without) is no such function: the direct and the ordered arguments' types
  const signature = () => `function ${name}(${[...direct, ...keys].map((a) => typeDisplayName(a.type === 'unknown' ? 'text' : a.type)).join(', ')}) does not exist`
  const directCount = name === 'mode' ? [0] : name === 'approx_percentile' ? [1, 2] : [1]
  if (within === undefined || !ORDERED_SET_AGGREGATES.has(name) || keys.length !== 1 || !directCount.includes(direct.length)) throw planError(ctx.err, SqlState.undefinedFunction, signature(), e.span)
  const item = within[0]!
  let x = keys[0]!
  const fraction = direct[0]
  const arrayForm = fraction !== undefined && isArrayType(fraction.type) && name !== 'approx_percentile'
  let type: SqlType
  switch (name) {
    case 'mode':
    case 'percentile_disc':
      type = x.type === 'unknown' ? 'text' : x.type
      x = coerce(x, type, ctx, e.span)
      break
    case 'percentile_cont':
      if (x.type === 'interval') type = 'interval'
      else if (isNumericType(x.type) || x.type === 'unknown') {
        type = 'double'
        x = coerce(x, 'double', ctx, e.span)
      } else throw planError(ctx.err, SqlState.undefinedFunction, signature(), e.span)
      break
    default:
      type = 'double'
      x = coerceToDouble(x, name, ctx, e.span)
  }
  const args = direct.map((d, i) => constantDirectArgument(d, i === 0 && arrayForm ? arrayOf('double') : 'double', ctx, e.span))
  const index = coll.calls.length
  let resultType: SqlType = type
  if (arrayForm) {
    if (isArrayType(type)) throw unsupported(ctx.err, `${name} of arrays with an array of fractions (multidimensional arrays)`, e.span)
    resultType = arrayOf(type)
  }
  const filter = e.filter ? coerce(bindExpr(e.filter, argCtx), 'boolean', argCtx, e.filter.span, 'FILTER') : undefined
  coll.calls.push({ fn: name as AggregateFunction, args, orderBy: [{ expr: x, desc: item.desc, nullsFirst: item.nullsFirst ?? item.desc }], filter, type: resultType })
  return { kind: 'call', fn: AGG_PLACEHOLDER, args: [lit(index, 'integer')], type: resultType }
}

/** An ordered-set aggregate's direct argument: evaluated once, so it may not read the rows. */
function constantDirectArgument(d: ScalarExpr, t: SqlType, ctx: ExprContext, span: ast.Span): ScalarExpr {
  if (referencedColumns(d).size > 0) throw unsupported(ctx.err, 'a direct argument of an ordered-set aggregate that reads the rows (only constants)', span)
  return coerce(d, t, ctx, span)
}

function coerceToDouble(x: ScalarExpr, name: string, ctx: ExprContext, span: ast.Span): ScalarExpr {
  if (!isNumericType(x.type) && x.type !== 'unknown') throw planError(ctx.err, SqlState.undefinedFunction, `function ${name}(${typeDisplayName(x.type)}) does not exist`, span)
  return coerce(x, 'double', ctx, span)
}

function sameExprShape(a: ScalarExpr, b: ScalarExpr): boolean {
  const strip = (x: ScalarExpr): ScalarExpr => (x.kind === 'cast' ? strip(x.arg) : x)
  return JSON.stringify(strip(a), jsonReplacer) === JSON.stringify(strip(b), jsonReplacer)
}

function callResolved(name: string, res: Resolved | undefined, args: readonly ScalarExpr[], ctx: ExprContext, span: ast.Span): ScalarExpr {
  if (!res) throw planError(ctx.err, SqlState.undefinedFunction, `function ${name}(${args.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, span)
  const cast: ScalarExpr[] = []
  for (let i = 0; i < args.length; i++) {
    const want = res.argTypes[i] ?? res.overload.variadic ?? res.overload.args[res.overload.args.length - 1]
    cast.push(want ? coerce(args[i]!, want, ctx, span) : args[i]!)
  }
  return { kind: 'call', fn: res.overload.id, args: cast, type: res.overload.returns }
}

/** Implicit conversion of `e` to type `t` (untyped literals adopt any type). */
export function coerce(e: ScalarExpr, t: SqlType, ctx: ExprContext | { err: ErrorContext }, span: ast.Span | undefined, what?: string): ScalarExpr {
  if (e.type === t || t === 'unknown') return e
  if (e.type === 'unknown') {
    if (e.kind === 'literal' && e.value === null) return lit(null, t)
    return { kind: 'cast', arg: e, type: t }
  }
  if (e.kind === 'literal') {
    const folded = widenLiteral(e.value, e.type, t)
    if (folded) return folded
  }
  if (!canCast(e.type, t, false)) {
    const err = 'err' in ctx ? ctx.err : (ctx as ExprContext).err
    throw planError(err, SqlState.datatypeMismatch, what ? `${what} must be type ${typeDisplayName(t)}, not type ${typeDisplayName(e.type)}` : `cannot convert type ${typeDisplayName(e.type)} to ${typeDisplayName(t)} implicitly`, span)
  }
  return { kind: 'cast', arg: e, type: t }
}

export function explicitCast(e: ScalarExpr, t: SqlType, ctx: { err: ErrorContext }, span: ast.Span): ScalarExpr {
  if (e.type === t) return e
  if (e.type === 'unknown') {
    if (e.kind === 'literal' && e.value === null) return lit(null, t)
    return { kind: 'cast', arg: e, type: t }
  }
  if (!canCast(e.type, t, true)) throw planError(ctx.err, SqlState.cannotCoerce, `cannot cast type ${typeDisplayName(e.type)} to ${typeDisplayName(t)}`, span)
  return { kind: 'cast', arg: e, type: t }
}

/** A numeric literal widened to a wider numeric type is the same number: fold the cast
 *  (so `bigint_col IN (1, 2)` compares with literals, which point reads and rules can use). */
function widenLiteral(value: unknown, from: SqlType, to: SqlType): ScalarExpr | undefined {
  if (value === null) return lit(null, to)
  const rank: Partial<Record<SqlType, number>> = { smallint: 1, integer: 2, bigint: 3, numeric: 4, double: 6 }
  const a = rank[from]
  const b = rank[to]
  if (a === undefined || b === undefined || b < a) return undefined
  // a JS number is the same value as a wider type's number (a safe integer, or a double)
  if (typeof value === 'number') return lit(value, to)
  // exact values beyond a number: a bigint widens to numeric exactly, and to double rounded
  if (typeof value === 'bigint') return to === 'double' ? lit(Number(value), to) : lit(numericFromInteger(value), to)
  if (isNumeric(value) && to === 'double') return lit(numericToDouble(value), to)
  return undefined
}

/** Wraps a subquery plan in a projection casting its columns to `types` when they differ. */
export function castPlanColumns(plan: LogicalPlan, columns: readonly Column[], types: readonly SqlType[]): LogicalPlan {
  if (columns.every((c, i) => c.type === types[i])) return plan
  if (plan.kind === 'values') {
    const rows = plan.rows.map((r) => r.map((e, i) => (e.type === types[i] ? e : e.kind === 'literal' ? widenLiteral(e.value, e.type, types[i]!) ?? ({ kind: 'cast', arg: e, type: types[i]! } as ScalarExpr) : ({ kind: 'cast', arg: e, type: types[i]! } as ScalarExpr))))
    return { kind: 'values', rows, columns: columns.map((c, i) => ({ name: c.name, type: types[i]! })) }
  }
  const exprs: ScalarExpr[] = columns.map((c, i) => (c.type === types[i] ? { kind: 'column', index: i, type: c.type } : { kind: 'cast', arg: { kind: 'column', index: i, type: c.type }, type: types[i]! }))
  return { kind: 'project', input: plan, exprs, columns: columns.map((c, i) => ({ name: c.name, type: types[i]! })) }
}
