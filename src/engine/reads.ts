// Reads: SELECT as an ad hoc dataflow (rendered, backfilled, read, released), point reads of a
// view or table by key without a dataflow, binding statements against the catalog (with
// pg_catalog's relations), the render and lowering contexts, and relations() / stateSize().

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { QueryBinder, Scope, jsonReplacer, lower, lowerEmitOnWindowClose, optimize, typeWithModifier, hasSubquery, type Catalog, type Column, type LogicalPlan, type LowerOptions, type ScalarExpr, type SortKey } from '../../planner/index.js'
import { isView, type Entry, type TableEntry, type ViewEntry } from './catalog.js'
import { AppendLog } from './stream-history.js'
import { compileProjection, evaluateConstant, neverRaises } from '../sql-runtime/compile-scalar.js'
import { render, rowComparator } from './render.js'
import type { RelationInfo, ResultValue, StatementResult } from '../types.js'
import { withSystemCatalog } from './system-catalog.js'
import { toResultValue } from '../sql-runtime/values.js'
import type { StatementContext } from './internals.js'
import { HIDDEN_PREFIX, foldName, columnInfo } from './names.js'
import type { EngineInternals } from './internals.js'

/** NOT NULL columns, defaults and watermark of a table or stream, as relations() lists them. */
function relationDetails(e: Entry): Pick<RelationInfo, 'notNull' | 'defaults' | 'watermark' | 'versioned' | 'declaredTypes'> {
  if (isView(e)) return { notNull: [], defaults: {} }
  const defaults: Record<string, string> = {}
  e.source?.defaults.forEach((d, i) => {
    if (d !== undefined) defaults[e.columns[i]!.name] = d
  })
  const w = e.watermark
  return {
    notNull: e.columns.filter((_, i) => e.notNull[i]).map((c) => c.name),
    defaults,
    ...(w ? { watermark: { column: e.columns[w.column]!.name, expression: e.source?.watermark ?? e.columns[w.column]!.name } } : {}),
    ...(e.versions ? { versioned: true } : {}),
    ...(e.modifiers ? { declaredTypes: Object.fromEntries(e.columns.flatMap((c, i) => (e.modifiers![i] ? [[c.name, typeWithModifier(c.type, e.modifiers![i])]] : []))) } : {}),
  }
}
/** "Not a constant" for the primary-key read (NULL is a constant). */
const NO_VALUE = Symbol('no value')

export class Reads {
  constructor(private readonly engine: EngineInternals) {}

  stateSize(relation: string): number {
    this.engine.checkOpen()
    const e = this.engine.catalog.entries.get(foldName(relation)) ?? this.engine.connectors.sinks.get(foldName(relation))
    if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${relation}" does not exist`)
    if (!('operators' in e)) return e.versions ? e.versions.size : e.store.size
    const own = 'sink' in e ? e.sink : undefined
    let n = 0
    for (const op of new Set(e.operators.values())) if (!(op instanceof ivm.InputOperator) && !(op instanceof ivm.IntegrateOperator && op !== own)) n += op.stateSize()
    return n
  }

  relationOid(name: string): number {
    return this.engine.catalog.oidOf(name)
  }

  relations(): RelationInfo[] {
    const out: RelationInfo[] = []
    for (const e of this.engine.catalog.entries.values()) {
      // system relations (rivulet_late_events) are read by name, not listed; nor are the
      // hidden views behind SUBSCRIBE statements
      if (e.kind === 'system' || e.name.startsWith(HIDDEN_PREFIX)) continue
      const { schema } = this.engine.catalog.splitKey(e.name)
      out.push({
        name: e.name,
        ...(schema !== 'public' ? { schema } : {}),
        kind: e.kind,
        columns: columnInfo(e.columns),
        primaryKey: e.kind === 'table' || e.kind === 'stream' ? e.primaryKey.map((i) => e.columns[i]!.name) : [],
        ...(e.kind === 'view' || e.kind === 'materialized view' ? { definition: e.definition } : {}),
        ...relationDetails(e),
      })
    }
    return out
  }

  // ------------------------------------------------------------------------- reads

  select(q: ast.Query, ctx: StatementContext): StatementResult {
    const { plan, columns } = this.bindQuery(q, ctx, true)
    // an EMIT ON WINDOW CLOSE that no watermark can serve is refused at the query's position
    if (q.emitOnWindowClose) this.lowerAt(() => lowerEmitOnWindowClose(optimize(plan), this.lowerOptions), ctx, q.span.start)
    const { rows } = this.evaluateOrdered(plan, q.emitOnWindowClose)
    const out = rows.map((r) => r.map((v, i) => toResultValue(v, columns[i]!.type)))
    return { command: `SELECT ${out.length}`, rowCount: out.length, columns: columnInfo(columns), rows: out }
  }

  /** Evaluates a plan with the dataflow operators; rows in presentation order when the plan
   *  ends in ORDER BY. */
  evaluateOrdered(plan: LogicalPlan, emitOnWindowClose = false): { rows: Row[] } {
    // Peel the presentation order: [project of leading columns] over sort/topK.
    let proj: number | undefined
    let inner = plan
    if (inner.kind === 'project' && (inner.input.kind === 'sort' || inner.input.kind === 'topK') && inner.exprs.every((e, i) => e.kind === 'column' && e.index === i)) {
      proj = inner.exprs.length
      inner = inner.input
    }
    const order: readonly SortKey[] = inner.kind === 'sort' || (inner.kind === 'topK' && inner.partitionBy.length === 0 && !inner.rowNumber) ? inner.orderBy : []
    const result = this.evaluate(inner.kind === 'sort' ? inner.input : inner, emitOnWindowClose)
    const rows: Row[] = []
    for (let i = 0; i < result.rows.length; i++) for (let w = result.weights[i]!; w > 0; w--) rows.push(result.rows[i]!)
    if (order.length > 0) rows.sort(rowComparator(order))
    return { rows: proj === undefined ? rows : rows.map((r) => r.slice(0, proj)) }
  }

  /** Renders `plan` into the circuit, backfills it, reads the result and releases it. */
  evaluate(plan: LogicalPlan, emitOnWindowClose = false): ivm.ZSet {
    // a point read as bound (`SELECT … FROM view WHERE key IN (…)`) needs no rewriting: the
    // rules would cost more than the lookup
    const direct = this.pointRead(plan)
    if (direct) return direct
    const optimized = optimize(plan)
    const point = this.pointRead(optimized)
    if (point) return point
    const lowerOptions = this.lowerOptions
    const delta = emitOnWindowClose ? lowerEmitOnWindowClose(optimized, lowerOptions) : lower(optimized, lowerOptions)
    const { output, fresh } = render(delta, this.renderContext())
    const sink = this.engine.circuit.add(new ivm.IntegrateOperator(output))
    fresh.push(sink)
    this.engine.circuit.retain(sink)
    try {
      this.engine.circuit.backfill(fresh)
      // EMIT ON WINDOW CLOSE read ad hoc: the windows closed at the current watermark
      if (emitOnWindowClose) {
        this.engine.circuit.advance(fresh)
        this.engine.circuit.endStep()
        this.engine.circuit.commitOnly(fresh)
      }
      return sink.contents()
    } finally {
      this.engine.circuit.release(sink)
      // fresh operators nobody else reads were released transitively; drop dead cache entries
      this.engine.ddl.dropDeadArrangements()
    }
  }

  /** Answers `[Project] Filter(view, key = c | key IN (…))` and `view ⋉ VALUES` on key
   *  columns from an index of the view (built on first use, then maintained), instead of
   *  running the view's whole contents through a filter. Undefined when the plan has
   *  another shape. */
  pointRead(plan: LogicalPlan): ivm.ZSet | undefined {
    let projection: readonly ScalarExpr[] | undefined
    let p = plan
    if (p.kind === 'project') {
      projection = p.exprs
      p = p.input
    }
    // the plan is read as bound: a subquery (not decorrelated yet) goes the general way
    if (projection?.some(hasSubquery) || (p.kind === 'filter' && hasSubquery(p.predicate))) return undefined
    let view: ViewEntry | undefined
    let columns: number[] = []
    let keys: unknown[][] = []
    if (p.kind === 'filter' && p.input.kind === 'scan') {
      const v = this.engine.catalog.entries.get(p.input.relation)
      if (!v) return undefined
      if (!isView(v)) return this.primaryKeyRead(v, p.predicate, projection)
      this.checkReadable(v)
      const conj = p.predicate.kind === 'and' ? p.predicate.args : [p.predicate]
      const byColumn = new Map<number, unknown[]>()
      for (const c of conj) {
        if (c.kind === 'call' && c.fn === 'eq' && c.args[0]!.kind === 'column' && c.args[1]!.kind === 'literal') byColumn.set(c.args[0]!.index, [c.args[1]!.value])
        else if (c.kind === 'call' && c.fn === 'eq' && c.args[1]!.kind === 'column' && c.args[0]!.kind === 'literal') byColumn.set(c.args[1]!.index, [c.args[0]!.value])
        else if (c.kind === 'inList' && !c.negated && c.arg.kind === 'column' && c.list.every((x) => x.kind === 'literal')) byColumn.set(c.arg.index, c.list.map((x) => (x as { value: unknown }).value))
        else return undefined
        if (byColumn.size !== conj.indexOf(c) + 1) return undefined // the same column twice
      }
      view = v
      columns = [...byColumn.keys()]
      const lists = columns.map((col) => byColumn.get(col)!)
      keys = lists.reduce<unknown[][]>((acc, list) => acc.flatMap((k) => list.map((x) => [...k, x])), [[]])
    } else if (p.kind === 'join' && p.joinType === 'semi' && p.left.kind === 'scan' && p.right.kind === 'values' && p.condition) {
      const v = this.engine.catalog.entries.get(p.left.relation)
      if (!v || !isView(v)) return undefined
      this.checkReadable(v)
      const nl = p.left.columns.length
      const conj = p.condition.kind === 'and' ? p.condition.args : [p.condition]
      const pairs: [number, number][] = []
      for (const c of conj) {
        if (c.kind !== 'call' || c.fn !== 'eq' || c.args[0]!.kind !== 'column' || c.args[1]!.kind !== 'column') return undefined
        const a = c.args[0]!.index
        const b = c.args[1]!.index
        if (a < nl && b >= nl) pairs.push([a, b - nl])
        else if (b < nl && a >= nl) pairs.push([b, a - nl])
        else return undefined
      }
      if (p.right.rows.some((r) => r.some((e) => e.kind !== 'literal'))) return undefined
      view = v
      columns = pairs.map(([a]) => a)
      keys = p.right.rows.map((r) => pairs.map(([, b]) => (r[b] as { value: unknown }).value))
    } else return undefined
    if (keys.some((k) => k.some((x) => x === null))) return undefined
    const index = view.sink.index(columns)
    const out = new ivm.ZSet()
    const seen = new Set<ivm.RowKey>()
    const project = projection ? this.compiledProjection(projection) : undefined
    for (const k of keys) {
      const key = index.keyOfValues(k)
      if (seen.has(key)) continue
      seen.add(key)
      const b = view.sink.lookup(index, key)
      if (!b) continue
      for (let i = 0; i < b.rows.length; i++) out.push(project ? project(b.rows[i]!) : b.rows[i]!, b.weights[i]!)
    }
    return out
  }

  /** `SELECT … FROM t WHERE pk = literal [AND …]` (or `pk IN (literals)`) on a table with a
   *  primary key: the rows are looked up by key instead of scanned. Undefined when the
   *  predicate is not exactly equalities (or IN lists) on every key column. */
  primaryKeyRead(t: TableEntry, predicate: ScalarExpr, projection: readonly ScalarExpr[] | undefined): ivm.ZSet | undefined {
    const keyOf = t.store.keyOf
    if (keyOf === undefined || t.store instanceof AppendLog) return undefined
    const conj = predicate.kind === 'and' ? predicate.args : [predicate]
    if (conj.length !== t.primaryKey.length) return undefined
    const lists = new Map<number, unknown[]>()
    /** The value of a constant expression (a literal, or a cast of one: `'5'::int4` as a
     *  driver sends a parameter), or NO_VALUE. */
    const constant = (e: ScalarExpr): unknown => {
      if (e.kind === 'literal') return e.value
      if (e.kind !== 'cast' || e.arg.kind !== 'literal') return NO_VALUE
      try {
        return evaluateConstant(e)
      } catch {
        return NO_VALUE
      }
    }
    for (const c of conj) {
      let column: number | undefined
      let values: unknown[] | undefined
      if (c.kind === 'call' && c.fn === 'eq' && c.args[0]!.kind === 'column' && constant(c.args[1]!) !== NO_VALUE) [column, values] = [c.args[0]!.index, [constant(c.args[1]!)]]
      else if (c.kind === 'call' && c.fn === 'eq' && c.args[1]!.kind === 'column' && constant(c.args[0]!) !== NO_VALUE) [column, values] = [c.args[1]!.index, [constant(c.args[0]!)]]
      else if (c.kind === 'inList' && !c.negated && c.arg.kind === 'column' && c.list.every((x) => constant(x) !== NO_VALUE)) [column, values] = [c.arg.index, c.list.map(constant)]
      // a literal of another type than the column (compared after a cast) is scanned
      if (column === undefined || !t.primaryKey.includes(column) || lists.has(column) || c.kind === 'call' && c.args.some((a) => a.type !== t.columns[column!]!.type)) return undefined
      if (c.kind === 'inList' && (c.arg.type !== t.columns[column]!.type || c.list.some((x) => x.type !== c.arg.type))) return undefined
      lists.set(column, values!)
    }
    const out = new ivm.ZSet()
    const project = projection ? this.compiledProjection(projection) : undefined
    const probe = new Array<unknown>(t.columns.length).fill(null)
    const seen = new Set<ivm.RowKey>()
    const visit = (i: number): void => {
      if (i === t.primaryKey.length) {
        const k = keyOf(probe)
        if (seen.has(k)) return
        seen.add(k)
        const row = t.store.rows.get(k)
        if (row !== undefined) out.push(project ? project(row) : row, 1)
        return
      }
      const col = t.primaryKey[i]!
      for (const v of lists.get(col)!) {
        if (v === null) continue
        probe[col] = v
        visit(i + 1)
      }
    }
    visit(0)
    return out
  }

  readonly projections = new Map<string, (row: Row) => Row>()

  compiledProjection(exprs: readonly ScalarExpr[]): (row: Row) => Row {
    // a projection of plain columns (a point read's SELECT list) is keyed by their positions
    const k = exprs.every((e) => e.kind === 'column') ? exprs.map((e) => (e as { index: number }).index).join(',') : JSON.stringify(exprs, jsonReplacer)
    let f = this.projections.get(k)
    if (!f) {
      if (this.projections.size > 256) this.projections.clear()
      f = compileProjection(exprs)
      this.projections.set(k, f)
    }
    return f
  }

  // ------------------------------------------------------------------------- helpers

  /** `once`: the statement reads the query once (a SELECT, INSERT … SELECT), so WITH
   *  RECURSIVE can be computed while binding; a view's query is maintained, and cannot. */
  bindQuery(q: ast.Query, ctx: StatementContext, once = false): { plan: LogicalPlan; columns: readonly Column[] } {
    const catalog = this.bindingCatalog(ctx)
    const binder = new QueryBinder(once ? { ...catalog, evaluate: (plan) => this.evaluateOrdered(plan).rows } : catalog, ctx)
    return binder.bindQuery(q, undefined)
  }

  exprCtx(scope: Scope, ctx: StatementContext, clause: string) {
    const catalog = this.bindingCatalog(ctx)
    const binder = new QueryBinder(catalog, ctx)
    return { err: ctx, scope, clause, catalog, bindSubquery: (q: ast.Query, outer: Scope) => binder.bindQuery(q, outer) }
  }

  /** The catalog a statement is bound against: the engine's relations, and the system
   *  relations and functions of pg_catalog / information_schema over them. */
  bindingCatalog(ctx: StatementContext): Catalog {
    const catalog = this.engine.catalog
    return withSystemCatalog(catalog, { relations: () => this.relations(), schemas: () => [...this.engine.catalog.schemas], oidOf: (key) => catalog.oidOf(key), identity: ctx.session ?? {}, log: () => this.engine.log.rows(), checkpoints: () => this.engine.checkpoints.rows() })
  }

  /** The context of an expression evaluated once, as a constant (a DEFAULT, a WITH option, a
   *  WATERMARK bound): no subqueries, as in PostgreSQL ("cannot use subquery in DEFAULT
   *  expression", 0A000). The constant evaluators cannot run one: `DEFAULT (SELECT 1)` and
   *  `WITH (events = (SELECT 2000))` were internal errors. */
  constantExprCtx(scope: Scope, ctx: StatementContext, clause: 'DEFAULT' | 'WITH' | 'WATERMARK') {
    const what = clause === 'WITH' ? 'a WITH option' : `${clause} expression`
    return {
      ...this.exprCtx(scope, ctx, clause),
      bindSubquery: (q: ast.Query): never => {
        throw new RivuletError(SqlState.featureNotSupported, `cannot use subquery in ${what}`, positionAt(ctx.text, q.span.start))
      },
    }
  }

  renderContext() {
    return {
      circuit: this.engine.circuit,
      arrangements: this.engine.arrangements,
      source: (relation: string, versions?: boolean): ivm.Operator => {
        const e = this.engine.catalog.entries.get(relation)
        if (!e) throw new RivuletError(SqlState.undefinedTable, `relation "${relation}" does not exist`)
        if (versions) {
          if (isView(e) || !e.versionInput) throw new RivuletError(SqlState.internalError, `internal error: "${relation}" has no version history`)
          return e.versionInput
        }
        if (!isView(e)) return e.input
        this.checkReadable(e)
        return e.sink
      },
      watermark: (sources: readonly string[]) => this.engine.eventTime.watermarkOf(sources),
      now: () => this.engine.ticks.now(),
    }
  }

  readonly lowerOptions: LowerOptions = {
    watermarks: (relation) => this.engine.eventTime.relationWatermarks(relation),
    intervalMicros: (e) => this.engine.catalog.intervalMicros(e),
    isAppendOnly: (relation) => this.engine.catalog.entries.get(relation)?.kind === 'stream',
    neverRaises,
  }

  /** Reading a view in error (or failing in the open tick) raises its error. */
  checkReadable(v: ViewEntry): void {
    const e = this.engine.errors.readError(v)
    if (e !== undefined) throw e
  }

  /** Runs a lowering step, giving its error the statement's position. */
  lowerAt<T>(f: () => T, ctx: StatementContext, at: number): T {
    try {
      return f()
    } catch (e) {
      if (e instanceof RivuletError && !e.position) throw new RivuletError(e.code, e.message, positionAt(ctx.text, at))
      throw e
    }
  }

  resultChanges(z: ivm.ZSet, columns: readonly Column[]): [ResultValue[], number][] {
    const out: [ResultValue[], number][] = []
    for (let i = 0; i < z.rows.length; i++) out.push([z.rows[i]!.map((v, j) => toResultValue(v, columns[j]!.type)), z.weights[i]!])
    return out
  }
}
