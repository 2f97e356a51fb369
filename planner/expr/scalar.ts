// Bound, typed scalar expressions: plain data (no closures) that EXPLAIN prints and
// src/sql-runtime/compile-scalar.ts turns into a JS function once per operator. Column references are
// positions in the input row of the plan node that owns the expression.

import type { SqlType } from '../types.js'
import type { LogicalPlan } from '../logical/plan.js'

export type ScalarExpr =
  | ColumnExpr
  | LiteralExpr
  | CallExpr
  | AndExpr
  | OrExpr
  | NotExpr
  | IsNullExpr
  | CaseExpr
  | CastExpr
  | CoalesceExpr
  | InListExpr
  | SubqueryExpr
  | OuterColumnExpr

export interface ColumnExpr {
  readonly kind: 'column'
  readonly index: number
  readonly type: SqlType
}

/** A constant in run-time representation (see planner/types.ts). */
export interface LiteralExpr {
  readonly kind: 'literal'
  readonly value: unknown
  readonly type: SqlType
}

/** A function or operator call, by overload id from planner/expr/functions.ts (e.g.
 *  'int_add', 'text_concat', 'lower'). `strict` calls return NULL when any argument is NULL. */
export interface CallExpr {
  readonly kind: 'call'
  readonly fn: string
  readonly args: readonly ScalarExpr[]
  readonly type: SqlType
}

/** Three-valued AND / OR over any number of operands. */
export interface AndExpr {
  readonly kind: 'and'
  readonly args: readonly ScalarExpr[]
  readonly type: 'boolean'
}
export interface OrExpr {
  readonly kind: 'or'
  readonly args: readonly ScalarExpr[]
  readonly type: 'boolean'
}
export interface NotExpr {
  readonly kind: 'not'
  readonly arg: ScalarExpr
  readonly type: 'boolean'
}
/** IS [NOT] NULL */
export interface IsNullExpr {
  readonly kind: 'isNull'
  readonly arg: ScalarExpr
  readonly negated: boolean
  readonly type: 'boolean'
}
/** Searched CASE (the simple form is bound into this one). Branches evaluate lazily. */
export interface CaseExpr {
  readonly kind: 'case'
  readonly whens: readonly { readonly when: ScalarExpr; readonly then: ScalarExpr }[]
  readonly else: ScalarExpr
  readonly type: SqlType
}
export interface CastExpr {
  readonly kind: 'cast'
  readonly arg: ScalarExpr
  readonly type: SqlType
}
/** COALESCE: first non-NULL argument, evaluated lazily left to right. */
export interface CoalesceExpr {
  readonly kind: 'coalesce'
  readonly args: readonly ScalarExpr[]
  readonly type: SqlType
}
/** `arg [NOT] IN (list)`, SQL semantics: NULL when no match and a NULL is involved. */
export interface InListExpr {
  readonly kind: 'inList'
  readonly arg: ScalarExpr
  readonly list: readonly ScalarExpr[]
  readonly negated: boolean
  readonly type: 'boolean'
}
/** A subquery inside an expression. Exists only between binding and the
 *  decorrelate-subqueries rule, which replaces every one of them with joins. */
export interface SubqueryExpr {
  readonly kind: 'subquery'
  readonly mode: 'scalar' | 'exists' | 'in'
  readonly plan: LogicalPlan
  /** For mode 'in': the left operand(s), compared with the subquery's columns. */
  readonly operands: readonly ScalarExpr[]
  readonly type: SqlType
}
/** A reference to a column of an enclosing query's row (correlation). `depth` 1 = the
 *  immediately enclosing query. Only inside SubqueryExpr plans. */
export interface OuterColumnExpr {
  readonly kind: 'outerColumn'
  readonly depth: number
  readonly index: number
  readonly type: SqlType
}

export function col(index: number, type: SqlType): ColumnExpr {
  return { kind: 'column', index, type }
}

export function lit(value: unknown, type: SqlType): LiteralExpr {
  return { kind: 'literal', value, type }
}

export const TRUE: LiteralExpr = { kind: 'literal', value: true, type: 'boolean' }

/** Internal function id: a NULL-safe, never-NULL encoding of its arguments (a text key), used
 *  where rows must be matched on values that may be NULL (decorrelation, outer theta joins). */
export const NULL_SAFE_KEY = '__null_safe_key'

export function nullSafeKey(args: readonly ScalarExpr[]): ScalarExpr {
  return { kind: 'call', fn: NULL_SAFE_KEY, args, type: 'text' }
}
