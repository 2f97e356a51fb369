// Test helpers for planner tests: a small in-memory Catalog, SQL → bound logical plan, plan
// builders for hand-written inputs, and a one-rule driver that checks what every rule must
// guarantee (the input is not mutated, the output columns are unchanged).

import { expect } from 'vitest'
import { parse } from '../../grammar/index.js'
import { QueryBinder, children, explainDelta, explainLogical, jsonReplacer, lower, optimize } from '../../planner/index.js'
import type { Catalog, CatalogRelation, Column, LogicalPlan, Rule, ScalarExpr, SqlType } from '../../planner/index.js'

function rel(name: string, columns: [string, SqlType][], primaryKey: number[] = []): CatalogRelation {
  return { name, kind: 'table', columns: columns.map(([n, type]) => ({ name: n, type })), primaryKey }
}

/** The tables every planner test can use. Small on purpose: plans print columns by
 *  position, so a golden is easiest to check against few, distinct columns.
 *    a(x int, y int, z text)   b(x int, y int, w text)   c(x int, k int)
 *    d(k int, v int)           e(v int, q int)           p(id int primary key, g int, s text) */
export const TABLES: ReadonlyMap<string, CatalogRelation> = new Map(
  [
    rel('a', [['x', 'integer'], ['y', 'integer'], ['z', 'text']]),
    rel('b', [['x', 'integer'], ['y', 'integer'], ['w', 'text']]),
    rel('c', [['x', 'integer'], ['k', 'integer']]),
    rel('d', [['k', 'integer'], ['v', 'integer']]),
    rel('e', [['v', 'integer'], ['q', 'integer']]),
    rel('p', [['id', 'integer'], ['g', 'integer'], ['s', 'text']], [0]),
  ].map((r) => [r.name, r]),
)

/** The planner's Catalog interface over TABLES (or another map). */
export class TestCatalog implements Catalog {
  constructor(readonly relations: ReadonlyMap<string, CatalogRelation> = TABLES) {}
  getRelation(name: string): CatalogRelation | undefined {
    return this.relations.get(name)
  }
}

const catalog = new TestCatalog()

/** Binds one SELECT-shaped statement to its logical plan (no rule applied). */
export function bind(sql: string): LogicalPlan {
  const parsed = parse(sql)
  if (parsed.length !== 1) throw new Error(`expected one statement, got ${parsed.length}`)
  const s = parsed[0]!.statement
  if (s.kind !== 'select') throw new Error(`expected a SELECT, got ${s.kind}`)
  return new QueryBinder(catalog, { text: sql }).bindQuery(s.query, undefined).plan
}

export function show(p: LogicalPlan): string {
  return explainLogical(p)
}

/** EXPLAIN (delta plan) of a query as the engine plans it: bind, optimize, lower. */
export function showDelta(sql: string): string {
  return explainDelta(lower(optimize(bind(sql))))
}

/** Freezes a plan (and its expressions) deeply, so a rule that mutates its input throws. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) deepFreeze(x)
  }
  return v
}

/** Applies one rule once. Returns the rewritten plan's EXPLAIN text, or undefined when the rule
 *  does not apply. Checks that the input is left untouched (rules are pure) and, when the
 *  rule fires, that the output columns (names and types) are those of the input. */
export function applyRule(rule: Rule, plan: LogicalPlan): string | undefined {
  const before = JSON.stringify(plan, jsonReplacer)
  deepFreeze(plan)
  const out = rule.apply(plan)
  expect(JSON.stringify(plan, jsonReplacer)).toBe(before)
  if (out === undefined) return undefined
  expect(out.columns).toEqual(plan.columns)
  // a rewritten expression keeps the type of the column it computes
  if (typeProblems(plan).length === 0) expect(typeProblems(out)).toEqual([])
  return explainLogical(out)
}

/** Projections whose expression types differ from their column types, and non-boolean
 *  predicates, as `node: what` strings. */
export function typeProblems(p: LogicalPlan, out: string[] = []): string[] {
  if (p.kind === 'project') p.exprs.forEach((e, i) => e.type !== p.columns[i]!.type && out.push(`project #${i}: ${e.type} for ${p.columns[i]!.type}`))
  if (p.kind === 'filter' && p.predicate.type !== 'boolean') out.push(`filter: ${p.predicate.type}`)
  if (p.kind === 'join' && p.condition && p.condition.type !== 'boolean') out.push(`join: ${p.condition.type}`)
  for (const c of children(p)) typeProblems(c, out)
  return out
}

/** Binds `sql` and applies one rule (see applyRule). */
export function applySql(rule: Rule, sql: string): string | undefined {
  return applyRule(rule, bind(sql))
}

// ------------------------------------------------------------------------ plan builders

export const int: SqlType = 'integer'

export function col(index: number, type: SqlType = 'integer'): ScalarExpr {
  return { kind: 'column', index, type }
}

export function lit(value: unknown, type: SqlType = 'integer'): ScalarExpr {
  return { kind: 'literal', value, type }
}

export function call(fn: string, args: ScalarExpr[], type: SqlType = 'boolean'): ScalarExpr {
  return { kind: 'call', fn, args, type }
}

export const eq = (l: ScalarExpr, r: ScalarExpr): ScalarExpr => call('eq', [l, r])
export const gt = (l: ScalarExpr, r: ScalarExpr): ScalarExpr => call('gt', [l, r])
export const and = (...args: ScalarExpr[]): ScalarExpr => ({ kind: 'and', args, type: 'boolean' })
export const or = (...args: ScalarExpr[]): ScalarExpr => ({ kind: 'or', args, type: 'boolean' })
export const not = (arg: ScalarExpr): ScalarExpr => ({ kind: 'not', arg, type: 'boolean' })

export function scan(name: string): LogicalPlan {
  const r = TABLES.get(name)
  if (!r) throw new Error(`no test table ${name}`)
  return { kind: 'scan', relation: name, columns: r.columns }
}

export function filter(input: LogicalPlan, predicate: ScalarExpr): LogicalPlan {
  return { kind: 'filter', input, predicate, columns: input.columns }
}

/** Project with output names c0, c1, … unless given. */
export function project(input: LogicalPlan, exprs: ScalarExpr[], names?: string[]): LogicalPlan {
  const columns: Column[] = exprs.map((e, i) => ({ name: names?.[i] ?? `c${i}`, type: e.type }))
  return { kind: 'project', input, exprs, columns }
}

export function join(joinType: Extract<LogicalPlan, { kind: 'join' }>['joinType'], left: LogicalPlan, right: LogicalPlan, condition?: ScalarExpr): LogicalPlan {
  const columns = joinType === 'semi' || joinType === 'anti' ? left.columns : [...left.columns, ...right.columns]
  return { kind: 'join', joinType, left, right, condition, nullAwareAnti: false, columns }
}
