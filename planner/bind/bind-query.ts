// Query binding: FROM / JOIN / WHERE / GROUP BY / HAVING / window calls / select list /
// DISTINCT / set operations / VALUES / WITH / ORDER BY / LIMIT / OFFSET → LogicalPlan.

import type * as ast from '../../grammar/index.js'
import type { ScalarExpr } from '../expr/scalar.js'
import { col, lit } from '../expr/scalar.js'
import { commonSupertype, resolveSeries } from '../expr/functions.js'
import type { AggregateCall, AsOfMatch, Column, JoinType, LogicalPlan, SortKey, TimeJoinNode, WindowSpec } from '../logical/plan.js'
import { exprChildren, mapChildren, mapExpr, mapOuterRefs, sameExpr, visitExpr } from '../logical/tree.js'
import { elementType, isArrayType, typeDisplayName, type ArrayType, type SqlType } from '../types.js'
import type { Catalog } from '../catalog.js'
import { planError, SqlState, unsupported, type ErrorContext } from '../errors.js'
import { Scope, type ScopeColumn } from './scope.js'
import { evaluateRecursiveCte, isRecursive } from './recursive-cte.js'
import { AGG_PLACEHOLDER, GROUPING_PLACEHOLDER, WINDOW_PLACEHOLDER, bindExpr, coerce, comparison, type AggregateCollector, type ExprContext } from './bind-expr.js'
import { planWindows, WindowBinder } from './bind-window.js'
import { JSONB_SET_FUNCTIONS, bindJsonbExpansion } from './bind-jsonb.js'

export interface BoundQuery {
  readonly plan: LogicalPlan
  readonly columns: readonly Column[]
}

type Ctes = ReadonlyMap<string, BoundQuery>

interface BoundFrom {
  readonly plan: LogicalPlan
  readonly scope: Scope
}

export class QueryBinder {
  readonly #catalog: Catalog
  readonly #err: ErrorContext

  constructor(catalog: Catalog, err: ErrorContext) {
    this.#catalog = catalog
    this.#err = err
  }

  bindQuery(q: ast.Query, outer: Scope | undefined, ctes: Ctes = new Map()): BoundQuery {
    let scopeCtes = ctes
    if (q.with.length > 0) {
      const m = new Map(ctes)
      for (const cte of q.with) {
        if (q.recursive && isRecursive(cte)) {
          if (outer !== undefined) throw unsupported(this.#err, 'WITH RECURSIVE in a subquery', cte.span)
          const bindBody = (body: ast.QueryBody, working: BoundQuery | undefined): BoundQuery => {
            const inner = new Map(m)
            if (working) inner.set(cte.name, working)
            else inner.delete(cte.name)
            return this.bindQuery({ kind: 'query', with: [], recursive: false, body, orderBy: [], limit: undefined, withTies: false, offset: undefined, emitOnWindowClose: false, span: cte.query.span }, outer, inner)
          }
          m.set(cte.name, evaluateRecursiveCte(cte, bindBody, this.#catalog.evaluate?.bind(this.#catalog), this.#err))
          continue
        }
        const b = this.bindQuery(cte.query, outer, m)
        m.set(cte.name, cte.columns.length > 0 ? renameColumns(b, cte.columns, this.#err, cte.span) : b)
      }
      scopeCtes = m
    }
    const limit = q.limit ? this.#constInt(q.limit, 'LIMIT') : undefined
    const offset = (q.offset ? this.#constInt(q.offset, 'OFFSET') : 0) ?? 0
    let plan: LogicalPlan
    let columns: readonly Column[]
    let sortKeys: SortKey[] = []
    let visible: number
    if (q.body.kind === 'select') {
      const b = this.#bindSelect(q.body, outer, scopeCtes, q.orderBy)
      plan = b.plan
      columns = plan.kind === 'scan' ? b.columns : b.columns
      sortKeys = b.sortKeys
      visible = b.visible
    } else {
      const b = this.#bindBody(q.body, outer, scopeCtes)
      plan = b.plan
      columns = b.columns
      visible = columns.length
      sortKeys = q.orderBy.map((o) => this.#outputSortKey(o, columns))
    }
    const allColumns = outputColumns(plan)
    if (q.withTies) {
      // PostgreSQL's checks: ties are defined by ORDER BY, and there must be a count to tie at
      if (sortKeys.length === 0) throw planError(this.#err, SqlState.syntaxError, 'WITH TIES cannot be specified without ORDER BY clause', q.limit!.span)
      if (limit === undefined) throw planError(this.#err, SqlState.invalidRowCountInLimit, 'row count cannot be null in FETCH FIRST ... WITH TIES clause', q.limit!.span)
    }
    if (limit !== undefined || offset > 0) {
      plan = { kind: 'topK', input: plan, partitionBy: [], orderBy: sortKeys, limit, offset, rowNumber: false, withTies: q.withTies, columns: allColumns }
    } else if (sortKeys.length > 0) {
      plan = { kind: 'sort', input: plan, orderBy: sortKeys, columns: allColumns }
    }
    if (visible < allColumns.length) {
      const cols = allColumns.slice(0, visible)
      plan = { kind: 'project', input: plan, exprs: cols.map((c, i) => col(i, c.type)), columns: cols }
    }
    return { plan, columns: outputColumns(plan) }
  }

  #constInt(e: ast.Expr, what: string): number | undefined {
    const v = e.kind === 'literal' ? e.value : e.kind === 'unary' && e.op === '-' && e.operand.kind === 'literal' ? e.operand.value : undefined
    if (v?.type === 'null') return undefined
    if (v?.type === 'integer' || v?.type === 'decimal') {
      const n = Number(v.text) * (e.kind === 'unary' ? -1 : 1)
      if (n < 0) throw planError(this.#err, SqlState.invalidRowCountInLimit, `${what} must not be negative`, e.span)
      return Math.round(n)
    }
    throw unsupported(this.#err, `${what} with a non-constant expression`, e.span)
  }

  #outputSortKey(o: ast.OrderItem, columns: readonly Column[]): SortKey {
    const nullsFirst = o.nullsFirst ?? o.desc
    if (o.expr.kind === 'literal' && o.expr.value.type === 'integer') {
      const n = Number(o.expr.value.text)
      if (n < 1 || n > columns.length) throw planError(this.#err, SqlState.invalidColumnReference, `ORDER BY position ${n} is not in select list`, o.expr.span)
      return { expr: col(n - 1, columns[n - 1]!.type), desc: o.desc, nullsFirst }
    }
    if (o.expr.kind === 'column' && o.expr.parts.length === 1) {
      const name = o.expr.parts[0]
      const i = columns.findIndex((c) => c.name === name)
      if (i >= 0) return { expr: col(i, columns[i]!.type), desc: o.desc, nullsFirst }
    }
    const scope = new Scope(columns.map((c) => ({ table: undefined, name: c.name, type: c.type, hidden: false })))
    const e = bindExpr(o.expr, this.#ctx(scope, 'ORDER BY'))
    return { expr: e, desc: o.desc, nullsFirst }
  }

  #ctx(scope: Scope, clause: string, extra: Partial<ExprContext> = {}): ExprContext {
    return {
      err: this.#err,
      scope,
      clause,
      bindSubquery: (q, outerScope) => this.bindQuery(q, outerScope, this.#currentCtes),
      catalog: this.#catalog,
      ...extra,
    }
  }

  // CTEs visible to subqueries bound from expressions (set while binding a query body)
  #currentCtes: Ctes = new Map()

  #bindBody(body: ast.QueryBody, outer: Scope | undefined, ctes: Ctes): BoundQuery {
    switch (body.kind) {
      case 'select': {
        const b = this.#bindSelect(body, outer, ctes, [])
        return { plan: b.plan, columns: b.columns }
      }
      case 'nested':
        return this.bindQuery(body.query, outer, ctes)
      case 'values':
        return this.#bindValues(body, outer, ctes)
      case 'setOp':
        return this.#bindSetOp(body, outer, ctes)
    }
  }

  #bindValues(body: ast.ValuesBody, outer: Scope | undefined, ctes: Ctes): BoundQuery {
    const saved = this.#currentCtes
    this.#currentCtes = ctes
    try {
      const ctx = this.#ctx(new Scope([], outer), 'VALUES')
      const width = body.rows[0]?.length ?? 0
      const rows = body.rows.map((r) => {
        if (r.length !== width) throw planError(this.#err, SqlState.syntaxError, 'VALUES lists must all be the same length', body.span)
        return r.map((e) => bindExpr(e, ctx))
      })
      const types: SqlType[] = []
      for (let c = 0; c < width; c++) {
        const t = commonSupertype(rows.map((r) => r[c]!.type))
        if (t === undefined) throw planError(this.#err, SqlState.datatypeMismatch, `VALUES types ${rows.map((r) => typeDisplayName(r[c]!.type)).filter((v, i, a) => a.indexOf(v) === i).join(' and ')} cannot be matched`, body.span)
        types.push(t === 'unknown' ? 'text' : t)
      }
      const columns = types.map((type, i) => ({ name: `column${i + 1}`, type }))
      const coerced = rows.map((r) => r.map((e, i) => coerce(e, types[i]!, ctx, body.span)))
      return { plan: { kind: 'values', rows: coerced, columns }, columns }
    } finally {
      this.#currentCtes = saved
    }
  }

  #bindSetOp(body: ast.SetOpBody, outer: Scope | undefined, ctes: Ctes): BoundQuery {
    const l = this.#bindBody(body.left, outer, ctes)
    const r = this.#bindBody(body.right, outer, ctes)
    const opName = body.op.toUpperCase()
    if (l.columns.length !== r.columns.length) throw planError(this.#err, SqlState.syntaxError, `each ${opName} query must have the same number of columns`, body.span)
    const types: SqlType[] = l.columns.map((c, i) => {
      const t = commonSupertype([c.type, r.columns[i]!.type])
      if (t === undefined) throw planError(this.#err, SqlState.datatypeMismatch, `${opName} types ${typeDisplayName(c.type)} and ${typeDisplayName(r.columns[i]!.type)} cannot be matched`, body.span)
      return t === 'unknown' ? 'text' : t
    })
    const columns = l.columns.map((c, i) => ({ name: c.name, type: types[i]! }))
    const left = castTo(l, types)
    const right = castTo(r, types)
    if (body.op === 'union') {
      const u: LogicalPlan = { kind: 'union', inputs: [left, right], columns }
      return { plan: body.all ? u : { kind: 'distinct', input: u, columns }, columns }
    }
    return { plan: { kind: 'setOp', op: body.op, all: body.all, left, right, columns }, columns }
  }

  // ------------------------------------------------------------------------------- SELECT

  #bindSelect(s: ast.SelectBody, outer: Scope | undefined, ctes: Ctes, orderItems: readonly ast.OrderItem[]): { plan: LogicalPlan; columns: Column[]; sortKeys: SortKey[]; visible: number } {
    const saved = this.#currentCtes
    this.#currentCtes = ctes
    try {
      return this.#bindSelectInner(unnestInSelectList(s, this.#err), outer, ctes, orderItems)
    } finally {
      this.#currentCtes = saved
    }
  }

  #bindSelectInner(s: ast.SelectBody, outer: Scope | undefined, ctes: Ctes, orderItems: readonly ast.OrderItem[]) {
    // FROM
    let from: BoundFrom
    if (s.from) from = this.#bindFrom(s.from, outer, ctes)
    else from = { plan: { kind: 'values', rows: [[]], columns: [] }, scope: new Scope([], outer) }
    let plan = from.plan
    const scope = from.scope
    // WHERE
    if (s.where) {
      const pred = coerce(bindExpr(s.where, this.#ctx(scope, 'WHERE')), 'boolean', { err: this.#err }, s.where.span, 'argument of WHERE')
      plan = { kind: 'filter', input: plan, predicate: pred, columns: outputColumns(plan) }
    }
    // select list, HAVING and ORDER BY are bound in the FROM scope with aggregate and window
    // calls collected as placeholders, then resolved against the aggregate's output.
    const aggs: AggregateCollector = { inputScope: scope, calls: [] }
    const windows = new WindowBinder(s.windows, this.#err)
    const items: { expr: ScalarExpr; name: string }[] = []
    for (const item of s.items) {
      if (item.expr.kind === 'star') {
        const q = item.expr.qualifier
        const qual = q ? q[q.length - 1] : undefined
        let any = false
        scope.columns.forEach((c, i) => {
          if (c.hidden) return
          if (qual !== undefined && c.table !== qual) return
          any = true
          items.push({ expr: col(i, c.type), name: c.name })
        })
        // qualified star over the hidden side of USING still lists that table's columns
        if (qual !== undefined && !any) {
          scope.columns.forEach((c, i) => {
            if (c.table === qual) {
              any = true
              items.push({ expr: col(i, c.type), name: c.name })
            }
          })
        }
        if (!any && qual !== undefined) throw planError(this.#err, SqlState.undefinedTable, `missing FROM-clause entry for table "${qual}"`, item.expr.span)
        continue
      }
      const e = bindExpr(item.expr, this.#ctx(scope, 'SELECT', { aggregates: aggs, windows }))
      items.push({ expr: e.type === 'unknown' ? coerce(e, 'text', { err: this.#err }, item.span) : e, name: item.alias ?? deriveName(item.expr) })
    }
    const having = s.having ? coerce(bindExpr(s.having, this.#ctx(scope, 'HAVING', { aggregates: aggs })), 'boolean', { err: this.#err }, s.having.span, 'argument of HAVING') : undefined
    // ORDER BY: output position, output name, or an expression over the FROM scope
    type Pending = { kind: 'output'; index: number; item: ast.OrderItem } | { kind: 'expr'; expr: ScalarExpr; item: ast.OrderItem }
    // DISTINCT ON (exprs) names its expressions as ORDER BY does (position, output name or
    // expression), so both resolve to the same output columns and can be matched
    const pendingItem = (o: ast.OrderItem, clause: string): Pending => {
      if (o.expr.kind === 'literal' && o.expr.value.type === 'integer') {
        const n = Number(o.expr.value.text)
        if (n < 1 || n > items.length) throw planError(this.#err, SqlState.invalidColumnReference, `${clause} position ${n} is not in select list`, o.expr.span)
        return { kind: 'output', index: n - 1, item: o }
      }
      if (o.expr.kind === 'column' && o.expr.parts.length === 1) {
        const name = o.expr.parts[0]!
        const matches = items.map((it, i) => (it.name === name ? i : -1)).filter((i) => i >= 0)
        if (matches.length === 1 || (matches.length > 1 && matches.every((m) => sameExpr(items[m]!.expr, items[matches[0]!]!.expr)))) return { kind: 'output', index: matches[0]!, item: o }
        if (matches.length > 1) throw planError(this.#err, SqlState.ambiguousColumn, `${clause} "${name}" is ambiguous`, o.expr.span)
      }
      return { kind: 'expr', expr: bindExpr(o.expr, this.#ctx(scope, clause, { aggregates: aggs, windows })), item: o }
    }
    const pending: Pending[] = orderItems.map((o) => pendingItem(o, 'ORDER BY'))
    const distinctOn: Pending[] = (s.distinctOn ?? []).map((e) => pendingItem({ expr: e, desc: false, nullsFirst: undefined, span: e.span }, 'SELECT DISTINCT ON'))
    // GROUP BY
    const usesGrouping = items.some((it) => containsGrouping(it.expr)) || (having !== undefined && containsGrouping(having)) || [...pending, ...distinctOn].some((p) => p.kind === 'expr' && containsGrouping(p.expr)) || windows.calls.some((w) => w.partitionBy.some(containsGrouping) || w.orderBy.some((k) => containsGrouping(k.expr)) || w.call.args.some(containsGrouping))
    const grouped = s.groupBy.length > 0 || aggs.calls.length > 0 || having !== undefined || usesGrouping
    let groupExprs: ScalarExpr[] = []
    /** The grouping() calls met, as indexes into groupExprs, in the order of their columns. */
    const groupingCalls: number[][] = []
    if (grouped) {
      const expanded = this.#groupingSets(s, scope, items)
      groupExprs = expanded.exprs
      // one grouping set is a plain GROUP BY (its expressions, in order); several, or grouping()
      // calls to answer, are a union of one aggregate per set
      const single = expanded.sets.length === 1 && !usesGrouping
      if (single) groupExprs = expanded.sets[0]!.map((i) => expanded.exprs[i]!)
      const G = groupExprs.length
      const aggColumns: Column[] = [
        ...groupExprs.map((g, i) => ({ name: g.kind === 'column' ? scope.columns[g.index]!.name : `group${i + 1}`, type: g.type })),
        ...aggs.calls.map((a) => ({ name: a.fn, type: a.type })),
      ]
      const resolve = (e: ScalarExpr, span: ast.Span) => this.#resolvePostAgg(e, groupExprs, span, scope, groupingCalls, G + aggs.calls.length)
      for (const it of items) it.expr = resolve(it.expr, s.span)
      for (const p of [...pending, ...distinctOn]) if (p.kind === 'expr') p.expr = resolve(p.expr, p.item.span)
      const havingResolved = having ? resolve(having, s.having!.span) : undefined
      // (window calls are resolved below, and may add grouping() calls: resolve them first)
      for (const w of windows.calls) {
        w.partitionBy.forEach((e) => resolve(e, s.span))
        w.orderBy.forEach((k) => resolve(k.expr, s.span))
        w.call.args.forEach((e) => resolve(e, s.span))
      }
      if (single) plan = { kind: 'aggregate', input: plan, groupBy: groupExprs, aggregates: aggs.calls as AggregateCall[], global: G === 0, columns: aggColumns }
      else {
        const columns: Column[] = [...aggColumns, ...groupingCalls.map((_, k) => ({ name: `grouping${k + 1}`, type: 'integer' as const }))]
        plan = groupingSetsPlan(plan, groupExprs, expanded.sets, aggs.calls as AggregateCall[], groupingCalls, columns)
        aggColumns.push(...columns.slice(aggColumns.length))
      }
      if (havingResolved) plan = { kind: 'filter', input: plan, predicate: havingResolved, columns: aggColumns }
    }
    // window calls: a lone ROW_NUMBER() becomes a TopK that appends the row number (so a
    // filter on it can become a top-N, limit-row-number); anything else Over nodes
    if (windows.calls.length > 0) {
      const resolveW = (e: ScalarExpr) => (grouped ? this.#resolvePostAgg(e, groupExprs, s.span, scope, groupingCalls, groupExprs.length + aggs.calls.length) : e)
      const base = outputColumns(plan)
      const w = windows.calls[0]!
      let replaceW: (e: ScalarExpr) => ScalarExpr
      if (windows.calls.length === 1 && w.call.fn === 'row_number') {
        const partExprs = w.partitionBy.map(resolveW)
        const orderExprs = w.orderBy.map((k) => ({ ...k, expr: resolveW(k.expr) }))
        const extra = partExprs.map((e, i) => ({ e, name: `__part${i}` }))
        const projected: LogicalPlan = extra.length === 0 ? plan : {
          kind: 'project',
          input: plan,
          exprs: [...base.map((c, i) => col(i, c.type)), ...extra.map((x) => x.e)],
          columns: [...base, ...extra.map((x) => ({ name: x.name, type: x.e.type }))],
        }
        const cols = outputColumns(projected)
        const rnIndex = cols.length
        plan = {
          kind: 'topK',
          input: projected,
          partitionBy: extra.map((_, i) => base.length + i),
          orderBy: orderExprs,
          limit: undefined,
          offset: 0,
          rowNumber: true,
          withTies: false,
          columns: [...cols, { name: 'row_number', type: 'bigint' }],
        }
        replaceW = (e: ScalarExpr) => mapExpr(e, (x) => (x.kind === 'call' && x.fn === WINDOW_PLACEHOLDER ? col(rnIndex, 'bigint') : x))
      } else {
        const planned = planWindows(plan, base, windows.calls, resolveW)
        plan = planned.plan
        replaceW = planned.replace
      }
      for (const it of items) it.expr = replaceW(it.expr)
      for (const p of [...pending, ...distinctOn]) if (p.kind === 'expr') p.expr = replaceW(p.expr)
    }
    // projection (+ hidden ORDER BY columns)
    const exprs = items.map((i) => i.expr)
    const columns: Column[] = items.map((i) => ({ name: i.name, type: i.expr.type }))
    const visible = columns.length
    const plainDistinct = s.distinct && s.distinctOn === undefined
    // the output column of an ORDER BY or DISTINCT ON item, hidden when not in the select list
    const outputIndex = (p: Pending): number => {
      if (p.kind === 'output') return p.index
      let at = exprs.findIndex((e) => sameExpr(e, p.expr))
      if (at < 0) {
        if (plainDistinct) throw planError(this.#err, SqlState.invalidColumnReference, 'for SELECT DISTINCT, ORDER BY expressions must appear in select list', p.item.span)
        at = exprs.length
        exprs.push(p.expr)
        columns.push({ name: `__order${at}`, type: p.expr.type })
      }
      return at
    }
    const sortKeys: SortKey[] = []
    const sortColumns: number[] = []
    for (const p of pending) {
      const desc = p.item.desc
      const at = outputIndex(p)
      sortColumns.push(at)
      sortKeys.push({ expr: col(at, columns[at]!.type), desc, nullsFirst: p.item.nullsFirst ?? desc })
    }
    const distinctColumns: number[] = []
    const distinctSpans: ast.Span[] = []
    for (const p of distinctOn) {
      const at = outputIndex(p)
      if (distinctColumns.includes(at)) continue
      distinctColumns.push(at)
      distinctSpans.push(p.item.span)
    }
    if (s.distinctOn !== undefined && sortColumns.length > 0) checkDistinctOnOrder(distinctColumns, distinctSpans, sortColumns, this.#err)
    plan = { kind: 'project', input: plan, exprs, columns }
    if (plainDistinct) plan = { kind: 'distinct', input: plan, columns }
    // DISTINCT ON: the first row of each group of equal DISTINCT ON values in ORDER BY order,
    // ties (and the lack of an ORDER BY) broken by the whole row, so that the row kept depends
    // only on the rows, never on the order they arrived in
    if (s.distinctOn !== undefined) plan = { kind: 'topK', input: plan, partitionBy: distinctColumns, orderBy: sortKeys, limit: 1, offset: 0, rowNumber: false, withTies: false, columns }
    return { plan, columns, sortKeys, visible }
  }

  /** GROUP BY's grouping sets, as PostgreSQL expands them: each item is a list of sets (an
   *  expression: one set of it; ROLLUP (a, b): (a, b), (a), (); CUBE: every subset; GROUPING
   *  SETS: its elements' sets, one after another), and the items combine as a cross product
   *  (each set of one with each of the next, concatenated). Returns the distinct grouping
   *  expressions and each set as indexes into them. */
  #groupingSets(s: ast.SelectBody, scope: Scope, items: readonly { expr: ScalarExpr; name: string }[]): { exprs: ScalarExpr[]; sets: number[][] } {
    const exprs: ScalarExpr[] = []
    const indexOf = (g: ast.Expr): number => {
      const e = this.#bindGroupBy(g, scope, s.items, items)
      const i = exprs.findIndex((x) => sameExpr(x, e))
      return i >= 0 ? i : exprs.push(e) - 1
    }
    // `(a, b)` without ROW is its expressions (a list, not a row value)
    const element = (g: ast.Expr): number[] => (g.kind === 'row' && !g.explicit ? g.items.map(indexOf) : [indexOf(g)])
    const tooMany = (n: number, span: ast.Span): void => {
      if (n > MAX_GROUPING_SETS) throw planError(this.#err, SqlState.statementTooComplex, `too many grouping sets present (maximum ${MAX_GROUPING_SETS})`, span)
    }
    const expand = (g: ast.GroupByItem): number[][] => {
      if (g.kind !== 'groupingSets') return [element(g)]
      // (the parser gives ROLLUP and CUBE expressions only; GROUPING SETS nests the others)
      const parts = g.elements.map((x) => (x.kind === 'groupingSets' ? [] : element(x)))
      switch (g.form) {
        case 'rollup':
          return parts.map((_, n) => parts.slice(0, parts.length - n).flat()).concat([[]])
        case 'cube': {
          tooMany(2 ** parts.length, g.span)
          const out: number[][] = []
          for (let mask = (1 << parts.length) - 1; mask >= 0; mask--) out.push(parts.filter((_, i) => (mask & (1 << (parts.length - 1 - i))) !== 0).flat())
          return out
        }
        case 'sets':
          return g.elements.flatMap(expand)
      }
    }
    let sets: number[][] = [[]]
    for (const g of s.groupBy) {
      const next = expand(g)
      tooMany(sets.length * next.length, g.span)
      sets = sets.flatMap((a) => next.map((b) => [...a, ...b.filter((i) => !a.includes(i))]))
    }
    // a set names each expression once
    sets = sets.map((set) => set.filter((v, i) => set.indexOf(v) === i))
    // GROUP BY DISTINCT: a set that is another's expressions in another order is a duplicate
    if (s.groupByDistinct === true) {
      const seen = new Set<string>()
      sets = sets.filter((set) => {
        const k = [...set].sort((a, b) => a - b).join(',')
        return !seen.has(k) && seen.add(k) !== undefined
      })
    }
    return { exprs, sets }
  }

  #bindGroupBy(g: ast.Expr, scope: Scope, astItems: readonly ast.SelectItem[], items: readonly { expr: ScalarExpr; name: string }[]): ScalarExpr {
    if (g.kind === 'literal' && g.value.type === 'integer') {
      const n = Number(g.value.text)
      if (n < 1 || n > items.length) throw planError(this.#err, SqlState.invalidColumnReference, `GROUP BY position ${n} is not in select list`, g.span)
      const e = items[n - 1]!.expr
      if (containsPlaceholder(e)) throw planError(this.#err, SqlState.groupingError, 'aggregate functions are not allowed in GROUP BY', g.span)
      return e
    }
    // an input column wins over an output alias (Postgres rule); else try the alias
    if (g.kind === 'column' && g.parts.length === 1 && scope.resolveLocal(g.parts).kind === 'missing') {
      const i = items.findIndex((it, k) => it.name === g.parts[0] && astItems[k] !== undefined)
      if (i >= 0 && !containsPlaceholder(items[i]!.expr)) return items[i]!.expr
    }
    return bindExpr(g, this.#ctx(scope, 'GROUP BY'))
  }

  /** Rewrites an expression bound over the FROM scope so it reads the aggregate's output:
   *  group expressions → their column, aggregate placeholders → their column; any other
   *  column reference is an error (it is neither grouped nor aggregated). */
  #resolvePostAgg(e: ScalarExpr, groupExprs: readonly ScalarExpr[], span: ast.Span, scope: Scope, groupingCalls: number[][], groupingAt: number): ScalarExpr {
    const G = groupExprs.length
    const walk = (x: ScalarExpr): ScalarExpr => {
      if (x.kind === 'call' && x.fn === GROUPING_PLACEHOLDER) {
        // grouping(a, b): a column after the aggregates' (one per distinct call), a constant
        // in each grouping set's branch
        const args = x.args.map((a) => {
          const i = groupExprs.findIndex((g) => sameExpr(g, a))
          if (i < 0) throw planError(this.#err, SqlState.groupingError, 'arguments to GROUPING must be grouping expressions of the associated query level', span)
          return i
        })
        let k = groupingCalls.findIndex((c) => c.length === args.length && c.every((v, j) => v === args[j]))
        if (k < 0) k = groupingCalls.push(args) - 1
        return col(groupingAt + k, 'integer')
      }
      for (let i = 0; i < G; i++) if (sameExpr(x, groupExprs[i]!)) return col(i, x.type)
      if (x.kind === 'call' && x.fn === AGG_PLACEHOLDER) return col(G + ((x.args[0] as { value: number }).value), x.type)
      if (x.kind === 'column') {
        const c = scope.columns[x.index]
        const name = c ? (c.table ? `${c.table}.${c.name}` : c.name) : `#${x.index}`
        throw planError(this.#err, SqlState.groupingError, `column "${name}" must appear in the GROUP BY clause or be used in an aggregate function`, span)
      }
      if (x.kind === 'subquery') {
        // after GROUP BY the enclosing row is the aggregate's output: a correlated reference
        // must be to a grouped column, and now points at its group column
        const operands = x.operands.map(walk)
        const plan = mapOuterRefs(x.plan, 1, (ref) => {
          const g = groupExprs.findIndex((ge) => ge.kind === 'column' && ge.index === ref.index)
          if (g < 0) {
            const c = scope.columns[ref.index]
            const name = c ? (c.table ? `${c.table}.${c.name}` : c.name) : `#${ref.index}`
            throw planError(this.#err, SqlState.groupingError, `subquery uses ungrouped column "${name}" from outer query`, span)
          }
          return { ...ref, index: g }
        })
        return { ...x, operands, plan }
      }
      if (exprChildren(x).length === 0) return x
      return mapChildren(x, walk)
    }
    return walk(e)
  }

  // ------------------------------------------------------------------------------- FROM

  #bindFrom(ref: ast.TableRef, outer: Scope | undefined, ctes: Ctes): BoundFrom {
    switch (ref.kind) {
      case 'table': {
        if (ref.asOf) throw unsupported(this.#err, 'FOR SYSTEM_TIME AS OF (temporal joins arrive with the stream-join issue)', ref.span)
        const name = ref.name.parts[ref.name.parts.length - 1]!
        const alias = ref.alias?.name ?? name
        let bound = this.#relation(ref.name, ctes)
        if (ref.alias && ref.alias.columns.length > 0) bound = renameColumns(bound, ref.alias.columns, this.#err, ref.span)
        return { plan: bound.plan, scope: new Scope(bound.columns.map((c) => ({ table: alias, name: c.name, type: c.type, hidden: false })), outer) }
      }
      case 'subquery': {
        let b = this.bindQuery(ref.query, ref.lateral ? outer : outer, ctes)
        if (ref.alias && ref.alias.columns.length > 0) b = renameColumns(b, ref.alias.columns, this.#err, ref.span)
        const alias = ref.alias?.name
        return { plan: b.plan, scope: new Scope(b.columns.map((c) => ({ table: alias, name: c.name, type: c.type, hidden: false })), outer) }
      }
      case 'values': {
        let b = this.#bindValues(ref.values, outer, ctes)
        if (ref.alias && ref.alias.columns.length > 0) b = renameColumns(b, ref.alias.columns, this.#err, ref.span)
        const alias = ref.alias?.name
        return { plan: b.plan, scope: new Scope(b.columns.map((c) => ({ table: alias, name: c.name, type: c.type, hidden: false })), outer) }
      }
      case 'function':
        if (isSetFunction(ref)) return this.#bindUnnest(ref, undefined, outer)
        return this.#bindWindow(ref, outer, ctes)
      case 'join':
        return this.#bindJoin(ref, outer, ctes)
    }
  }

  /** `unnest(array)` or `generate_series(start, stop [, step])` in FROM, `[AS] alias
   *  [(column)]`, over the rows of `input` (the FROM items before it) or over one empty row.
   *  A series is the unnest of the array of its values. `padded`: LEFT JOIN LATERAL … ON
   *  TRUE (a row with nothing to expand is kept once, with NULL). */
  #bindUnnest(ref: ast.FunctionTableRef, input: BoundFrom | undefined, outer: Scope | undefined, padded = false): BoundFrom {
    const fn = ref.name[ref.name.length - 1]!
    const scope = input?.scope ?? new Scope([], outer)
    const inputPlan: LogicalPlan = input?.plan ?? { kind: 'values', rows: [[]], columns: [] }
    const args = ref.args.map((a) => {
      if (a.kind !== 'expr') throw planError(this.#err, SqlState.syntaxError, `${fn} takes expressions`, a.span)
      return { bound: bindExpr(a.expr, this.#ctx(scope, 'FROM')), span: a.expr.span }
    })
    if (JSONB_SET_FUNCTIONS.has(fn)) {
      const x = bindJsonbExpansion(ref, fn, args.map((a) => a.bound), inputPlan, padded, this.#err)
      return { plan: x.plan, scope: new Scope([...scope.columns, ...x.columns], outer) }
    }
    let array: ScalarExpr
    if (fn === 'unnest') {
      if (args.length !== 1) throw planError(this.#err, SqlState.featureNotSupported, args.length === 0 ? 'unnest takes an array' : 'unnest with more than one array is not supported', ref.span)
      array = args[0]!.bound
      if (!isArrayType(array.type)) throw planError(this.#err, SqlState.undefinedFunction, `function unnest(${typeDisplayName(array.type === 'unknown' ? 'text' : array.type)}) does not exist`, args[0]!.span)
    } else {
      const types = args.map((a) => a.bound.type)
      const series = resolveSeries(types)
      if (series === undefined) throw planError(this.#err, SqlState.undefinedFunction, `function generate_series(${types.map((t) => typeDisplayName(t === 'unknown' ? 'text' : t)).join(', ')}) does not exist`, ref.span)
      array = { kind: 'call', fn: series.fn, args: args.map((a, i) => coerce(a.bound, series.args[i]!, { err: this.#err }, a.span)), type: series.returns }
    }
    if (ref.alias && ref.alias.columns.length > 1) throw planError(this.#err, SqlState.syntaxError, `too many column aliases for ${fn} (it returns one column)`, ref.span)
    const name = ref.alias?.columns[0] ?? ref.alias?.name ?? fn
    const type = elementType(array.type as ArrayType)
    const columns = [...inputPlan.columns, { name, type }]
    const plan: LogicalPlan = { kind: 'unnest', input: inputPlan, array, columns, ...(padded ? { padded } : {}) }
    const own: ScopeColumn = { table: ref.alias?.name ?? fn, name, type, hidden: false }
    return { plan, scope: new Scope([...scope.columns, own], outer) }
  }


  /** TUMBLE / HOP / SESSION in FROM, in the Flink form `TUMBLE(TABLE t,
   *  DESCRIPTOR(ts), size [, offset])` and the short form `TUMBLE(t, ts, size [, offset])`,
   *  where `t` may also be a CTE or a parenthesized subquery. */
  #bindWindow(ref: ast.FunctionTableRef, outer: Scope | undefined, ctes: Ctes): BoundFrom {
    const fn = ref.name[ref.name.length - 1]!
    if (ref.name.length > 1 || (fn !== 'tumble' && fn !== 'hop' && fn !== 'session')) throw planError(this.#err, SqlState.undefinedFunction, `table function ${ref.name.join('.')} does not exist (FROM accepts the window functions TUMBLE, HOP and SESSION)`, ref.span)
    const upper = fn.toUpperCase()
    const usage = fn === 'tumble' ? 'TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset])' : fn === 'hop' ? 'HOP(TABLE t, DESCRIPTOR(ts), slide, size [, offset])' : 'SESSION(TABLE t [PARTITION BY k, …], DESCRIPTOR(ts), gap)'
    const [source, time, ...rest] = ref.args
    if (source === undefined || time === undefined) throw planError(this.#err, SqlState.undefinedFunction, `${upper} needs a relation, a time column and ${fn === 'session' ? 'a gap' : 'a size'}: ${usage}`, ref.span)
    // the input relation
    let input: BoundQuery
    let inputName: string | undefined
    let partitionBy: readonly ast.Expr[] = []
    if (source.kind === 'table') {
      input = this.#relation(source.name, ctes)
      inputName = source.name.parts[source.name.parts.length - 1]
      partitionBy = source.partitionBy
    } else if (source.kind === 'expr' && source.expr.kind === 'column') {
      input = this.#relation({ parts: source.expr.parts, span: source.expr.span }, ctes)
      inputName = source.expr.parts[source.expr.parts.length - 1]
    } else if (source.kind === 'expr' && source.expr.kind === 'subquery') {
      input = this.bindQuery(source.expr.query, outer, ctes)
    } else throw planError(this.#err, SqlState.datatypeMismatch, `the first argument of ${upper} must be a table, view, stream or subquery: ${usage}`, source.kind === 'expr' ? source.expr.span : source.span)
    if (partitionBy.length > 0 && fn !== 'session') throw planError(this.#err, SqlState.syntaxError, `PARTITION BY is only allowed in SESSION`, ref.span)
    const inputScope = new Scope(input.columns.map((c) => ({ table: inputName, name: c.name, type: c.type, hidden: false })), outer)
    // the time column
    let timeName: string
    let timeSpan: ast.Span
    if (time.kind === 'descriptor') {
      if (time.columns.length !== 1) throw planError(this.#err, SqlState.syntaxError, `DESCRIPTOR of ${upper} must name exactly one time column`, time.span)
      timeName = time.columns[0]!
      timeSpan = time.span
    } else if (time.kind === 'expr' && time.expr.kind === 'column' && time.expr.parts.length === 1) {
      timeName = time.expr.parts[0]!
      timeSpan = time.expr.span
    } else throw planError(this.#err, SqlState.syntaxError, `the second argument of ${upper} must be the time column (DESCRIPTOR(ts) or ts): ${usage}`, time.kind === 'expr' ? time.expr.span : time.span)
    const found = inputScope.resolveLocal([timeName])
    if (found.kind !== 'found') throw planError(this.#err, SqlState.undefinedColumn, `column "${timeName}" does not exist in the input of ${upper}`, timeSpan)
    const timeType = input.columns[found.index]!.type
    if (timeType !== 'timestamp' && timeType !== 'timestamptz') throw planError(this.#err, SqlState.datatypeMismatch, `the time column of ${upper} must be of type timestamp or timestamptz, but "${timeName}" is ${typeDisplayName(timeType)}`, timeSpan)
    // the durations
    const durations = rest.map((a, i) => {
      const what = fn === 'tumble' ? ['size', 'offset'][i] : fn === 'hop' ? ['slide', 'size', 'offset'][i] : ['gap'][i]
      if (what === undefined) throw planError(this.#err, SqlState.undefinedFunction, `too many arguments for ${upper}: ${usage}`, a.kind === 'expr' ? a.expr.span : a.span)
      if (a.kind !== 'expr') throw planError(this.#err, SqlState.syntaxError, `the ${what} of ${upper} must be an interval: ${usage}`, a.span)
      const bound = bindExpr(a.expr, this.#ctx(new Scope([]), upper))
      const us = bound.type === 'interval' ? this.#catalog.intervalMicros?.(bound) : undefined
      if (us === undefined) throw planError(this.#err, SqlState.invalidParameterValue, `the ${what} of ${upper} must be a constant interval of fixed length (days, hours, minutes, seconds; not months or years)`, a.expr.span)
      if (what === 'offset' ? us < 0 : us <= 0) throw planError(this.#err, SqlState.invalidParameterValue, `the ${what} of ${upper} must be ${what === 'offset' ? 'zero or positive' : 'positive'}`, a.expr.span)
      return us
    })
    const needed = fn === 'hop' ? 2 : 1
    if (durations.length < needed) throw planError(this.#err, SqlState.undefinedFunction, `${upper} needs ${fn === 'hop' ? 'a slide and a size' : fn === 'session' ? 'a gap' : 'a size'}: ${usage}`, ref.span)
    let spec: WindowSpec
    if (fn === 'tumble') spec = { kind: 'tumble', size: durations[0]!, offset: durations[1] ?? 0 }
    else if (fn === 'hop') {
      spec = { kind: 'hop', slide: durations[0]!, size: durations[1]!, offset: durations[2] ?? 0 }
      if (spec.size / spec.slide > 10000) throw planError(this.#err, SqlState.invalidParameterValue, `HOP size / slide is ${Math.ceil(spec.size / spec.slide)}: each row would fall in that many windows (at most 10000)`, ref.span)
    } else {
      const keys = partitionBy.map((e) => {
        const k = bindExpr(e, this.#ctx(inputScope, 'PARTITION BY'))
        if (k.kind !== 'column') throw unsupported(this.#err, 'SESSION PARTITION BY an expression (name columns)', e.span)
        return k.index
      })
      spec = { kind: 'session', gap: durations[0]!, partitionBy: keys }
    }
    const columns: Column[] = [...input.columns, { name: 'window_start', type: timeType }, { name: 'window_end', type: timeType }]
    let plan: LogicalPlan = { kind: 'window', input: input.plan, spec, timeColumn: found.index, columns }
    let bound: BoundQuery = { plan, columns }
    if (ref.alias && ref.alias.columns.length > 0) {
      bound = renameColumns(bound, ref.alias.columns, this.#err, ref.span)
      plan = bound.plan
    }
    const alias = ref.alias?.name ?? inputName
    return { plan, scope: new Scope(bound.columns.map((c) => ({ table: alias, name: c.name, type: c.type, hidden: false })), outer) }
  }

  /** A named relation in FROM: a CTE or a catalog relation. */
  /** ASOF [LEFT] JOIN and `JOIN t FOR SYSTEM_TIME AS OF …`: the ON condition is
   *  split into equi-keys, the time comparison (ASOF) and a residual condition. */
  #bindTimeJoin(ref: ast.JoinTableRef, outer: Scope | undefined, ctes: Ctes): BoundFrom {
    const asofJoin = ref.type === 'asof' || ref.type === 'asof left'
    const rightRef = ref.right
    const asOf = rightRef.kind === 'table' ? rightRef.asOf : undefined
    if (asofJoin && asOf) throw planError(this.#err, SqlState.syntaxError, 'ASOF JOIN cannot be combined with FOR SYSTEM_TIME AS OF', ref.span)
    if (!asofJoin && ref.type !== 'inner' && ref.type !== 'left') throw planError(this.#err, SqlState.featureNotSupported, `FOR SYSTEM_TIME AS OF is allowed in JOIN and LEFT JOIN, not ${ref.type.toUpperCase()} JOIN`, ref.span)
    if (!ref.on) throw planError(this.#err, SqlState.syntaxError, `${asofJoin ? 'ASOF JOIN' : 'a join FOR SYSTEM_TIME AS OF'} needs an ON condition`, ref.span)
    const l = this.#bindFrom(ref.left, outer, ctes)
    const r = this.#bindFrom(rightRef.kind === 'table' ? { ...rightRef, asOf: undefined } : rightRef, outer, ctes)
    const nl = l.scope.columns.length
    const combined = new Scope([...l.scope.columns, ...r.scope.columns], outer)
    const columns = [...l.plan.columns, ...r.plan.columns]
    const proctime = asOf !== undefined && asOf.kind === 'func' && asOf.name.length === 1 && asOf.name[0] === 'proctime' && asOf.args.length === 0
    const mode: TimeJoinNode['mode'] = asofJoin ? 'asof' : proctime ? 'lookup' : 'temporal'
    // the versioned table of a temporal join: its key and version time
    let versionTime: number | undefined
    let primaryKey: readonly number[] = []
    if (mode === 'temporal') {
      const name = rightRef.kind === 'table' ? rightRef.name : undefined
      const rel = name && !(name.parts.length === 1 && ctes.has(name.parts[0]!)) ? this.#catalog.getRelation(name.parts[name.parts.length - 1]!, name.parts[name.parts.length - 2]) : undefined
      const what = name ? `"${name.parts.join('.')}"` : 'the right side'
      if (!rel || rel.versionTime === undefined) {
        const why = !rel ? 'it is not a table' : rel.primaryKey.length === 0 ? 'it has no primary key' : 'it has no version time (declare one with WATERMARK FOR valid_from AS …)'
        throw planError(this.#err, SqlState.featureNotSupported, `FOR SYSTEM_TIME AS OF an event time needs a versioned table (a PRIMARY KEY and a WATERMARK FOR its version-time column), but ${what} is not one: ${why}`, rightRef.span)
      }
      versionTime = rel.versionTime
      primaryKey = rel.primaryKey
    }
    let leftTime: ScalarExpr | undefined
    if (mode === 'temporal') {
      const t = bindExpr(asOf!, this.#ctx(l.scope, 'FOR SYSTEM_TIME AS OF'))
      if (t.type !== 'timestamp' && t.type !== 'timestamptz') throw planError(this.#err, SqlState.datatypeMismatch, `FOR SYSTEM_TIME AS OF needs a timestamp of the left side (its event time) or PROCTIME(), not ${typeDisplayName(t.type)}`, asOf!.span)
      if (sidesOf(t, nl).outer) throw unsupported(this.#err, 'FOR SYSTEM_TIME AS OF with a subquery or an outer reference', asOf!.span)
      leftTime = t
    }
    const condition = coerce(bindExpr(ref.on, this.#ctx(combined, 'JOIN/ON')), 'boolean', { err: this.#err }, ref.on.span, 'argument of JOIN/ON')
    const leftKeys: ScalarExpr[] = []
    const rightKeys: ScalarExpr[] = []
    const residual: ScalarExpr[] = []
    let rightTime: ScalarExpr | undefined = versionTime === undefined ? undefined : col(versionTime, r.plan.columns[versionTime]!.type)
    let match: AsOfMatch = '>='
    const conjuncts = condition.kind === 'and' ? condition.args : [condition]
    for (const c of conjuncts) {
      const pair = c.kind === 'call' && c.args.length === 2 ? c.args.map((a) => sidesOf(a, nl)) : undefined
      const split = pair && !pair[0]!.outer && !pair[1]!.outer && ((pair[0]!.left && !pair[0]!.right && pair[1]!.right && !pair[1]!.left) || (pair[0]!.right && !pair[0]!.left && pair[1]!.left && !pair[1]!.right))
      if (c.kind === 'call' && split) {
        const leftFirst = pair![0]!.left
        const lhs = leftFirst ? c.args[0]! : c.args[1]!
        const rhs = shiftColumns(leftFirst ? c.args[1]! : c.args[0]!, -nl)
        if (c.fn === 'eq') {
          // temporal joins pick a version per primary key; other equalities check the version
          const keyed = mode !== 'temporal' || (rhs.kind === 'column' && primaryKey.includes(rhs.index) && !rightKeys.some((k) => k.kind === 'column' && k.index === rhs.index))
          if (keyed) {
            leftKeys.push(lhs)
            rightKeys.push(rhs)
            continue
          }
        }
        const m = MATCH_OF[c.fn]
        if (mode === 'asof' && m && rightTime === undefined) {
          leftTime = lhs
          rightTime = rhs
          match = leftFirst ? m : FLIP[m]
          continue
        }
      }
      if (sidesOf(c, nl).outer) throw unsupported(this.#err, 'a subquery or outer reference in the ON condition of a time join', ref.on.span)
      residual.push(c)
    }
    if (mode === 'asof') {
      if (rightTime === undefined) throw planError(this.#err, SqlState.syntaxError, 'ASOF JOIN needs an inequality between a left and a right time in ON, such as l.ts >= r.ts', ref.on.span)
      if (residual.length > 0) throw planError(this.#err, SqlState.featureNotSupported, 'the ON condition of an ASOF JOIN may hold only equalities between the two sides and one inequality', ref.on.span)
    }
    if (mode === 'temporal') {
      const missing = primaryKey.filter((k) => !rightKeys.some((e) => e.kind === 'column' && e.index === k))
      if (missing.length > 0) throw planError(this.#err, SqlState.featureNotSupported, `a temporal join must equate every primary key column of the versioned table in ON; missing: ${missing.map((k) => r.plan.columns[k]!.name).join(', ')}`, ref.on.span)
    }
    const node: TimeJoinNode = {
      kind: 'timeJoin',
      mode,
      outer: ref.type === 'left' || ref.type === 'asof left',
      left: l.plan,
      right: r.plan,
      leftKeys,
      rightKeys,
      leftTime,
      rightTime,
      match,
      residual: residual.length === 0 ? undefined : residual.length === 1 ? residual[0] : { kind: 'and', args: residual, type: 'boolean' },
      columns,
    }
    return { plan: node, scope: combined }
  }

  #relation(name: ast.Name, ctes: Ctes): BoundQuery {
    const last = name.parts[name.parts.length - 1]!
    const cte = name.parts.length === 1 ? ctes.get(last) : undefined
    if (cte) return cte
    // pg_catalog is first on the search path (as in PostgreSQL); information_schema is read
    // qualified; `public.x` is a user relation
    const schema = name.parts.length > 1 ? name.parts[name.parts.length - 2]! : undefined
    if (schema === undefined || schema === 'pg_catalog' || schema === 'information_schema') {
      const sys = this.#catalog.systemRelation?.(schema, last)
      if (sys) {
        // one literal per distinct value of a column (plans are immutable and share nodes): a
        // relation of thousands of rows repeats few values, and the optimizer walks each node
        const pools = sys.columns.map(() => new Map<unknown, ScalarExpr>())
        const cell = (v: unknown, i: number): ScalarExpr => {
          if (typeof v === 'object' && v !== null) return lit(v, sys.columns[i]!.type)
          if (Object.is(v, -0)) return lit(v, sys.columns[i]!.type)
          let e = pools[i]!.get(v)
          if (e === undefined) pools[i]!.set(v, (e = lit(v, sys.columns[i]!.type)))
          return e
        }
        const rows = sys.rows.map((r) => sys.columns.map((_, i) => cell(r[i] ?? null, i)))
        const plan: LogicalPlan = { kind: 'values', rows, columns: sys.columns, systemRelation: sys.name }
        return { plan, columns: sys.columns }
      }
      if (schema !== undefined) throw planError(this.#err, SqlState.undefinedTable, `relation "${name.parts.join('.')}" does not exist`, name.span)
    }
    const rel = this.#catalog.getRelation(last, schema)
    if (!rel) throw planError(this.#err, SqlState.undefinedTable, `relation "${name.parts.join('.')}" does not exist`, name.span)
    return { plan: { kind: 'scan', relation: rel.name, columns: rel.columns }, columns: rel.columns }
  }

  #bindJoin(ref: ast.JoinTableRef, outer: Scope | undefined, ctes: Ctes): BoundFrom {
    if (ref.type === 'asof' || ref.type === 'asof left' || (ref.right.kind === 'table' && ref.right.asOf)) return this.#bindTimeJoin(ref, outer, ctes)
    const l = this.#bindFrom(ref.left, outer, ctes)
    if (ref.right.kind === 'function' && isSetFunction(ref.right)) {
      // a function in FROM is LATERAL: `t, unnest(t.tags)` reads t's row for each element
      const fn = ref.right.name[ref.right.name.length - 1]!
      // LEFT JOIN LATERAL f(…) ON TRUE: a row whose expansion is empty is kept, padded with NULLs
      const leftOnTrue = ref.type === 'left' && ref.on?.kind === 'literal' && ref.on.value.type === 'boolean' && ref.on.value.value
      if ((ref.type !== 'inner' && ref.type !== 'cross' && !leftOnTrue) || ref.using !== undefined || ref.natural) throw unsupported(this.#err, `${ref.type.toUpperCase()} JOIN with ${fn}${ref.type === 'left' ? ' on another condition than TRUE' : ''} (an inner or comma join is, and LEFT JOIN … ON TRUE)`, ref.span)
      const u = this.#bindUnnest(ref.right, l, outer, leftOnTrue)
      if (ref.on === undefined || leftOnTrue) return u
      const predicate = coerce(bindExpr(ref.on, this.#ctx(u.scope, 'JOIN/ON')), 'boolean', { err: this.#err }, ref.on.span, 'argument of JOIN/ON')
      return { plan: { kind: 'filter', input: u.plan, predicate, columns: u.plan.columns }, scope: u.scope }
    }
    const r = this.#bindFrom(ref.right, outer, ctes)
    const nl = l.scope.columns.length
    const combined = new Scope([...l.scope.columns, ...r.scope.columns], outer)
    const joinType: JoinType = ref.type === 'cross' ? 'inner' : ref.type
    const lcols = outputColumns(l.plan)
    const rcols = outputColumns(r.plan)
    const columns = [...lcols, ...rcols]
    let using: string[] | undefined = ref.using ? [...ref.using] : undefined
    if (ref.natural) using = l.scope.columns.filter((c) => !c.hidden && r.scope.columns.some((d) => !d.hidden && d.name === c.name)).map((c) => c.name)
    if (using) {
      const conds: ScalarExpr[] = []
      const pairs: [number, number][] = []
      for (const name of using) {
        const li = l.scope.resolveLocal([name])
        const ri = r.scope.resolveLocal([name])
        if (li.kind !== 'found' || ri.kind !== 'found') throw planError(this.#err, SqlState.undefinedColumn, `column "${name}" specified in USING clause does not exist in ${li.kind !== 'found' ? 'left' : 'right'} table`, ref.span)
        pairs.push([li.index, nl + ri.index])
        conds.push(comparison('=', col(li.index, li.type), col(nl + ri.index, ri.type), this.#ctx(combined, 'JOIN/USING'), ref.span))
      }
      const condition = conds.length === 0 ? undefined : conds.length === 1 ? conds[0] : { kind: 'and' as const, args: conds, type: 'boolean' as const }
      const join: LogicalPlan = { kind: 'join', joinType, left: l.plan, right: r.plan, condition, nullAwareAnti: false, columns }
      // Output: merged USING columns first (COALESCE for FULL), then the rest; the
      // original columns stay reachable by qualified name (hidden from *).
      const exprs: ScalarExpr[] = []
      const scopeCols: ScopeColumn[] = []
      for (const [li, ri] of pairs) {
        const lc = combined.columns[li]!
        const rc = combined.columns[ri]!
        const t = commonSupertype([lc.type, rc.type]) ?? lc.type
        const e: ScalarExpr = joinType === 'right' ? col(ri, rc.type) : joinType === 'full' ? { kind: 'coalesce', args: [coerce(col(li, lc.type), t, { err: this.#err }, ref.span), coerce(col(ri, rc.type), t, { err: this.#err }, ref.span)], type: t } : col(li, lc.type)
        exprs.push(e)
        scopeCols.push({ table: undefined, name: lc.name, type: e.type, hidden: false, mergedUsing: true })
      }
      const usingIdx = new Set(pairs.flat())
      combined.columns.forEach((c, i) => {
        exprs.push(col(i, c.type))
        scopeCols.push({ ...c, hidden: c.hidden || usingIdx.has(i) })
      })
      const projColumns = scopeCols.map((c) => ({ name: c.name, type: c.type }))
      // qualified references to USING columns resolve to the side copies, unqualified to the merged one
      return { plan: { kind: 'project', input: join, exprs, columns: projColumns }, scope: new Scope(scopeCols, outer) }
    }
    let condition: ScalarExpr | undefined
    if (ref.on) condition = coerce(bindExpr(ref.on, this.#ctx(combined, 'JOIN/ON')), 'boolean', { err: this.#err }, ref.on.span, 'argument of JOIN/ON')
    if (!ref.on && ref.type !== 'cross' && !ref.comma) throw planError(this.#err, SqlState.syntaxError, `${ref.type.toUpperCase()} JOIN requires an ON or USING clause`, ref.span)
    return { plan: { kind: 'join', joinType, left: l.plan, right: r.plan, condition, nullAwareAnti: false, columns }, scope: combined }
  }
}

// ---------------------------------------------------------------------------------- helpers

const FLIP: Record<AsOfMatch, AsOfMatch> = { '>=': '<=', '>': '<', '<=': '>=', '<': '>' }
const MATCH_OF: Partial<Record<string, AsOfMatch>> = { ge: '>=', gt: '>', le: '<=', lt: '<' }

/** Which sides of a join (left columns below `nl`) an expression reads. */
function sidesOf(e: ScalarExpr, nl: number): { left: boolean; right: boolean; outer: boolean } {
  let left = false
  let right = false
  let outer = false
  visitExpr(e, (x) => {
    if (x.kind === 'column') {
      if (x.index < nl) left = true
      else right = true
    } else if (x.kind === 'outerColumn' || x.kind === 'subquery') outer = true
  })
  return { left, right, outer }
}

function shiftColumns(e: ScalarExpr, by: number): ScalarExpr {
  return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: x.index + by } : x))
}

export function outputColumns(p: LogicalPlan): readonly Column[] {
  return p.columns
}

function castTo(b: BoundQuery, types: readonly SqlType[]): LogicalPlan {
  if (b.columns.every((c, i) => c.type === types[i])) return b.plan
  const exprs: ScalarExpr[] = b.columns.map((c, i) => (c.type === types[i] ? col(i, c.type) : { kind: 'cast', arg: col(i, c.type), type: types[i]! }))
  return { kind: 'project', input: b.plan, exprs, columns: b.columns.map((c, i) => ({ name: c.name, type: types[i]! })) }
}

function renameColumns(b: BoundQuery, names: readonly string[], err: ErrorContext, span: ast.Span): BoundQuery {
  if (names.length > b.columns.length) throw planError(err, SqlState.invalidColumnReference, `table has ${b.columns.length} columns available but ${names.length} columns specified`, span)
  const columns = b.columns.map((c, i) => ({ name: names[i] ?? c.name, type: c.type }))
  return { plan: { kind: 'project', input: b.plan, exprs: columns.map((c, i) => col(i, c.type)), columns }, columns }
}

/** PostgreSQL's rule: with ORDER BY, the DISTINCT ON expressions are its leftmost items (in
 *  any order among themselves); an ORDER BY made only of DISTINCT ON expressions may name
 *  fewer of them. Otherwise "which row is first" would not be what ORDER BY says. */
function checkDistinctOnOrder(distinctColumns: readonly number[], spans: readonly ast.Span[], sortColumns: readonly number[], err: ErrorContext): void {
  let skipped = false
  for (const c of sortColumns) {
    if (!distinctColumns.includes(c)) skipped = true
    else if (skipped) throw planError(err, SqlState.invalidColumnReference, 'SELECT DISTINCT ON expressions must match initial ORDER BY expressions', spans[distinctColumns.indexOf(c)]!)
  }
  if (!skipped) return
  const missing = distinctColumns.findIndex((c) => !sortColumns.includes(c))
  if (missing >= 0) throw planError(err, SqlState.invalidColumnReference, 'SELECT DISTINCT ON expressions must match initial ORDER BY expressions', spans[missing]!)
}

/** PostgreSQL's limit on the grouping sets of one GROUP BY. */
const MAX_GROUPING_SETS = 4096

function containsGrouping(e: ScalarExpr): boolean {
  let found = false
  visitExpr(e, (x) => {
    if (x.kind === 'call' && x.fn === GROUPING_PLACEHOLDER) found = true
  })
  return found
}

/** GROUP BY with several grouping sets: one aggregate per set, each projected to the same
 *  columns (every grouping expression, NULL where the set does not group by it; the
 *  aggregates; the value of each grouping() call, a constant per set), their UNION ALL. A
 *  plain plan of plain operators, each maintained as it always is: the cost is one aggregate's
 *  state per set. */
function groupingSetsPlan(input: LogicalPlan, groupExprs: readonly ScalarExpr[], sets: readonly (readonly number[])[], aggregates: readonly AggregateCall[], groupingCalls: readonly (readonly number[])[], columns: readonly Column[]): LogicalPlan {
  const G = groupExprs.length
  const branches = sets.map((set): LogicalPlan => {
    const aggColumns: Column[] = [...set.map((i) => columns[i]!), ...aggregates.map((_, k) => columns[G + k]!)]
    const agg: LogicalPlan = { kind: 'aggregate', input, groupBy: set.map((i) => groupExprs[i]!), aggregates, global: set.length === 0, columns: aggColumns }
    const exprs: ScalarExpr[] = [
      ...groupExprs.map((g, i) => {
        const at = set.indexOf(i)
        return at >= 0 ? col(at, g.type) : lit(null, g.type)
      }),
      ...aggregates.map((a, k) => col(set.length + k, a.type)),
      // grouping(a, b, …): bit n−1−j is set when the j-th argument is not grouped in this set
      ...groupingCalls.map((args) => lit(args.reduce((bits, g, j) => (set.includes(g) ? bits : bits | (1 << (args.length - 1 - j))), 0), 'integer')),
    ]
    return { kind: 'project', input: agg, exprs, columns }
  })
  if (branches.length === 1) return branches[0]!
  const names = (set: readonly number[]): string => `(${set.map((i) => columns[i]!.name).join(', ')})`
  return { kind: 'union', inputs: branches, columns, groupingSets: sets.map(names).join(', ') }
}

function containsPlaceholder(e: ScalarExpr): boolean {
  let found = false
  visitExpr(e, (x) => {
    if (x.kind === 'call' && (x.fn === AGG_PLACEHOLDER || x.fn === WINDOW_PLACEHOLDER)) found = true
  })
  return found
}


/** Postgres-style default output column name. */
export function deriveName(e: ast.Expr): string {
  return figureName(e)?.name ?? '?column?'
}

/** PG's FigureColnameInternal: a name and whether it is strong (a column's, a function's, a
 *  subquery's own) or a fallback (a type's, 'case'). A cast takes its operand's strong name,
 *  else its type's: `CAST(CAST(id AS text) AS int)` is "id", `CAST(CASE ... END AS text)` is
 *  "text"; a CASE its ELSE's strong name, else "case". undefined: no name ("?column?"). */
function figureName(e: ast.Expr): { name: string; strong: boolean } | undefined {
  switch (e.kind) {
    case 'column':
      return { name: e.parts[e.parts.length - 1]!, strong: true }
    case 'func':
      return { name: e.name[e.name.length - 1]!, strong: true }
    case 'cast': {
      const inner = figureName(e.operand)
      return inner?.strong ? inner : { name: internalTypeName(e.type.name), strong: false }
    }
    case 'case': {
      // a CASE is named after its ELSE when that has a name of its own
      const els = e.else === undefined ? undefined : figureName(e.else)
      return els?.strong ? els : { name: 'case', strong: false }
    }
    case 'exists':
      return { name: 'exists', strong: true }
    case 'subquery': {
      const b = e.query.body
      if (b.kind === 'select' && b.items.length === 1) return { name: b.items[0]!.alias ?? deriveName(b.items[0]!.expr), strong: true }
      return undefined
    }
    case 'typedLiteral':
      return { name: internalTypeName(e.type.name), strong: false }
    case 'interval':
      return { name: 'interval', strong: false }
    case 'extract':
      return { name: 'extract', strong: true }
    default:
      return undefined
  }
}

/** The name PG's catalog gives a type (what a cast's column is called): int4 for integer. */
function internalTypeName(name: string): string {
  const internal: Record<string, string> = { boolean: 'bool', smallint: 'int2', integer: 'int4', bigint: 'int8', real: 'float4', double: 'float8', char: 'bpchar' }
  return internal[name] ?? name
}

export { lit }

/** `unnest(…)`, `generate_series(…)` or a jsonb expansion (or pg_catalog's) in FROM. */
function isSetFunction(ref: ast.FunctionTableRef): boolean {
  const n = ref.name
  const last = n[n.length - 1]!
  return (last === 'unnest' || last === 'generate_series' || JSONB_SET_FUNCTIONS.has(last)) && (n.length === 1 || (n.length === 2 && n[0] === 'pg_catalog'))
}

/** The set-returning functions of one column a select list may call. */
const SELECT_LIST_SET_FUNCTIONS: ReadonlySet<string> = new Set(['unnest', 'jsonb_array_elements', 'jsonb_array_elements_text', 'jsonb_object_keys'])

/** `SELECT k, unnest(tags) FROM t` is `SELECT k, u FROM t, unnest(tags) AS u`: a select item
 *  that is an unnest call becomes a LATERAL unnest in FROM (one per query: PostgreSQL zips
 *  several, and evaluates them after grouping, which this rewrite does not). */
function unnestInSelectList(s: ast.SelectBody, err: ErrorContext): ast.SelectBody {
  const isCall = (e: ast.Expr): e is ast.FuncCall => e.kind === 'func' && e.over === undefined && SELECT_LIST_SET_FUNCTIONS.has(e.name[e.name.length - 1]!) && (e.name.length === 1 || (e.name.length === 2 && e.name[0] === 'pg_catalog'))
  const at = s.items.flatMap((it, i) => (isCall(it.expr) ? [i] : []))
  if (at.length === 0) return s
  const call = s.items[at[0]!]!.expr as ast.FuncCall
  const fn = call.name[call.name.length - 1]!
  if (at.length > 1) throw unsupported(err, 'more than one set-returning function (unnest, jsonb_array_elements, …) in a select list', s.items[at[1]!]!.span)
  if (s.groupBy.length > 0 || s.having !== undefined || s.distinct || s.distinctOn !== undefined) throw unsupported(err, `${fn} in the select list of a query with GROUP BY, HAVING or DISTINCT (${fn} in FROM is)`, call.span)
  if (call.distinct || call.orderBy.length > 0 || call.filter !== undefined) throw planError(err, SqlState.wrongObjectType, `DISTINCT, ORDER BY or FILTER specified, but ${fn} is not an aggregate function`, call.span)
  const item = s.items[at[0]!]!
  const name = item.alias ?? fn
  const alias = '__unnest'
  const setFn: ast.FunctionTableRef = { kind: 'function', name: call.name, args: call.args.map((expr) => ({ kind: 'expr', expr })), alias: { name: alias, columns: [name] }, span: call.span }
  const from: ast.TableRef = s.from === undefined ? setFn : { kind: 'join', type: 'cross', left: s.from, right: setFn, on: undefined, using: undefined, natural: false, comma: true, span: s.span }
  const ref: ast.ColumnRef = { kind: 'column', parts: [alias, name], span: call.span }
  const items = s.items.map((it, i) => (i === at[0] ? { ...it, expr: ref, alias: name } : it))
  return { ...s, from, items }
}
