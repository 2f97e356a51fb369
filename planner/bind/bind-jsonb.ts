// Binding the jsonb calls that take values of any type, and the jsonb set-returning functions:
//   - to_jsonb(x), jsonb_build_object(k, v, …), jsonb_build_array(v, …): each argument is
//     passed beside its type's name (a constant), since a date and an integer are both JS
//     numbers at run time; an untyped literal is text (to_jsonb's own argument must be typed,
//     as in PostgreSQL);
//   - the aggregates' arguments: jsonb_agg's value as jsonb (to_jsonb), jsonb_object_agg's
//     key (a scalar) and value;
//   - jsonb_array_elements[_text], jsonb_object_keys, jsonb_each[_text] in FROM: the array an
//     unnest expands (src/sql-runtime/jsonb-functions.ts builds it), and for jsonb_each the
//     value column, read back from the object by its key.

import type * as ast from '../../grammar/index.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { col, lit } from '../expr/scalar.js'
import type { LogicalPlan } from '../logical/plan.js'
import { isArrayType, typeDisplayName, type SqlType } from '../types.js'
import { planError, SqlState, type ErrorContext } from '../errors.js'
import { coerce, type ExprContext } from './bind-expr.js'
import type { ScopeColumn } from './scope.js'

/** Calls bound here (to_jsonb and the build functions). */
export const JSONB_ANY_FUNCTIONS: ReadonlySet<string> = new Set(['to_jsonb', 'jsonb_build_object', 'jsonb_build_array'])

/** A value of any type as jsonb (NULL stays NULL). */
export function toJsonbExpr(e: ScalarExpr, ctx: ExprContext, span: ast.Span): ScalarExpr {
  if (e.type === 'jsonb') return e
  const typed = e.type === 'unknown' ? coerce(e, 'text', ctx, span) : e
  return { kind: 'call', fn: 'to_jsonb', args: [typed, lit(typed.type, 'text')], type: 'jsonb' }
}

/** The arguments of a build function: each value beside its type's name. */
function typedArgs(args: readonly ScalarExpr[], ctx: ExprContext, span: ast.Span): ScalarExpr[] {
  return args.flatMap((a) => {
    const typed = a.type === 'unknown' ? coerce(a, 'text', ctx, span) : a
    return [typed, lit(typed.type, 'text')]
  })
}

export function bindJsonbAnyCall(name: string, args: readonly ScalarExpr[], ctx: ExprContext, span: ast.Span): ScalarExpr {
  if (name === 'to_jsonb') {
    if (args.length !== 1) throw planError(ctx.err, SqlState.undefinedFunction, `function to_jsonb(${args.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, span)
    if (args[0]!.type === 'unknown') throw planError(ctx.err, SqlState.datatypeMismatch, 'could not determine polymorphic type because input has type unknown', span)
    return toJsonbExpr(args[0]!, ctx, span)
  }
  return { kind: 'call', fn: name, args: typedArgs(args, ctx, span), type: 'jsonb' }
}

/** jsonb_object_agg's key: a scalar, as text (an untyped literal is text). */
export function objectAggKey(k: ScalarExpr, ctx: ExprContext, span: ast.Span): ScalarExpr {
  if (isArrayType(k.type) || k.type === 'jsonb') throw planError(ctx.err, SqlState.invalidParameterValue, 'key value must be scalar, not array, composite, or json', span)
  return k.type === 'unknown' ? coerce(k, 'text', ctx, span) : k
}

/** The set-returning jsonb functions FROM accepts. */
export const JSONB_SET_FUNCTIONS: ReadonlySet<string> = new Set(['jsonb_array_elements', 'jsonb_array_elements_text', 'jsonb_object_keys', 'jsonb_each', 'jsonb_each_text'])

interface JsonbExpansion {
  /** The array the unnest expands (elements, or an object's keys). */
  readonly array: ScalarExpr
  /** The column of the elements (its default name and type). */
  readonly element: { readonly name: string; readonly type: SqlType }
  /** jsonb_each[_text]: the value column, computed from the object and the key column. */
  readonly value?: { readonly name: string; readonly type: SqlType; readonly of: (key: ScalarExpr) => ScalarExpr }
}

/** The expansion of `fn(j)` in FROM. */
function jsonbExpansion(fn: string, args: readonly ScalarExpr[], ctx: Pick<ExprContext, 'err'>, span: ast.Span): JsonbExpansion {
  if (args.length !== 1 || !(args[0]!.type === 'jsonb' || args[0]!.type === 'unknown')) {
    throw planError(ctx.err, SqlState.undefinedFunction, `function ${fn}(${args.map((a) => typeDisplayName(a.type === 'unknown' ? 'text' : a.type)).join(', ')}) does not exist`, span)
  }
  const j = coerce(args[0]!, 'jsonb', ctx, span)
  const call = (id: string, type: SqlType): ScalarExpr => ({ kind: 'call', fn: id, args: [j], type })
  switch (fn) {
    case 'jsonb_array_elements':
      return { array: call(fn, 'jsonb[]'), element: { name: 'value', type: 'jsonb' } }
    case 'jsonb_array_elements_text':
      return { array: call(fn, 'text[]'), element: { name: 'value', type: 'text' } }
    case 'jsonb_object_keys':
      return { array: call(fn, 'text[]'), element: { name: fn, type: 'text' } }
    default: {
      const text = fn === 'jsonb_each_text'
      const valueType: SqlType = text ? 'text' : 'jsonb'
      return {
        array: call(text ? 'jsonb_each_text_keys' : 'jsonb_each_keys', 'text[]'),
        element: { name: 'key', type: 'text' },
        value: { name: 'value', type: valueType, of: (key) => ({ kind: 'call', fn: text ? 'jsonb_field_text' : 'jsonb_field', args: [j, key], type: valueType }) },
      }
    }
  }
}

/** `fn(j)` in FROM over the rows of `input` (`padded`: LEFT JOIN LATERAL … ON TRUE): the unnest
 *  of the elements (or keys) of the jsonb; jsonb_each's value column is read from the object by
 *  the key, in a projection above. Named as in PostgreSQL: `value`, `key`, or the function's
 *  name (jsonb_object_keys, which an alias renames); `AS t(a, b)` renames them. The plan and
 *  the columns it adds to the scope. */
export function bindJsonbExpansion(ref: ast.FunctionTableRef, fn: string, args: readonly ScalarExpr[], input: LogicalPlan, padded: boolean, err: ErrorContext): { plan: LogicalPlan; columns: ScopeColumn[] } {
  const x = jsonbExpansion(fn, args, { err }, ref.span)
  const defaults = x.value ? [x.element.name, x.value.name] : [fn === 'jsonb_object_keys' ? (ref.alias?.name ?? fn) : x.element.name]
  const aliases = ref.alias?.columns ?? []
  if (aliases.length > defaults.length) throw planError(err, SqlState.syntaxError, `too many column aliases for ${fn} (it returns ${defaults.length === 1 ? 'one column' : 'two columns'})`, ref.span)
  const names = defaults.map((d, i) => aliases[i] ?? d)
  const table = ref.alias?.name ?? fn
  const width = input.columns.length
  const key = col(width, x.element.type)
  let plan: LogicalPlan = { kind: 'unnest', input, array: x.array, columns: [...input.columns, { name: names[0]!, type: x.element.type }], ...(padded ? { padded } : {}) }
  const columns: ScopeColumn[] = [{ table, name: names[0]!, type: x.element.type, hidden: false }]
  const appended = (p: LogicalPlan, e: ScalarExpr, name: string): LogicalPlan => ({ kind: 'project', input: p, exprs: [...p.columns.map((c, i) => col(i, c.type)), e], columns: [...p.columns, { name, type: e.type }] })
  if (x.value) {
    plan = appended(plan, x.value.of(key), names[1]!)
    columns.push({ table, name: names[1]!, type: x.value.type, hidden: false })
  } else if (aliases.length === 0 && table !== names[0]) {
    // PostgreSQL reads the table name of a one-column function (`SELECT e FROM t,
    // jsonb_array_elements(t.j) e`) as its value: a hidden copy of the column by that name
    plan = appended(plan, key, table)
    columns.push({ table, name: table, type: x.element.type, hidden: true, mergedUsing: true })
  }
  return { plan, columns }
}
