// ALTER TABLE: ADD COLUMN, DROP COLUMN, RENAME COLUMN, RENAME TO, with PostgreSQL's rules and
// errors. The actions of one statement are checked one after another against the table as the
// earlier ones left it, and then done at once: the table gets a new store (every row rewritten:
// an added column's default, or NULL, appended; a dropped one taken out) and a new input, and
// every view and sink that reads it, directly or through views, is rendered again over it. A
// view keeps the columns it had (one defined with `SELECT *` does not gain an added column, as
// in PostgreSQL): its plan reads the new rows through a projection back onto the old ones. A
// view that reads a dropped column makes the DROP fail (2BP01) unless CASCADE drops it.
//
// Durability needs nothing of its own: the statement is logged as DDL text and replayed at the
// same place (on an empty table when a checkpoint follows: the checkpoint holds the rewritten
// rows, and the views' operators are named as the replay renders them again).

import * as ivm from '../../ivm/index.js'
import type { Row } from '../../ivm/index.js'
import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import { Scope, bindExpr, coerce, inputColumnsRead, lit, replaceInputs, typeFromName, typeModifierOf, withTypeModifier, type Column, type DeltaPlan, type ScalarExpr, type TypeModifier } from '../../planner/index.js'
import { TableStore, isView, relationKey, type TableEntry, type ViewEntry } from './catalog.js'
import { evaluateConstant } from '../sql-runtime/compile-scalar.js'
import type { StatementResult } from '../types.js'
import type { SinkEntry } from './sources-and-sinks.js'
import { HIDDEN_PREFIX, lastPart } from './names.js'
import type { EngineInternals, StatementContext } from './internals.js'

/** A column of the table as the actions so far leave it. */
interface WorkingColumn {
  readonly column: Column
  readonly modifier: TypeModifier | undefined
  readonly notNull: boolean
  readonly default: ScalarExpr | undefined
  readonly defaultText: string | undefined
  /** Its position in the table before the statement; undefined for an added column. */
  readonly from: number | undefined
  /** An added column: the value existing rows get. */
  readonly fill?: unknown
}

export class AlterTable {
  constructor(private readonly engine: EngineInternals) {}

  alter(s: ast.AlterTableStmt, ctx: StatementContext): StatementResult {
    const result = { command: 'ALTER TABLE', rowCount: 0 }
    const at = positionAt(ctx.text, s.table.span.start)
    const key = this.engine.schemas.existingKey(s.table, ctx, s.ifExists)
    const e = key === undefined ? undefined : this.engine.catalog.entries.get(key)
    const shown = lastPart(s.table)
    if (e === undefined) {
      if (s.ifExists) return { ...result, notice: `relation "${shown}" does not exist, skipping` }
      throw new RivuletError(SqlState.undefinedTable, `relation "${s.table.parts.join('.')}" does not exist`, at)
    }
    const first = s.actions[0]!
    if (isView(e)) {
      const what = first.kind === 'addColumn' ? 'ADD COLUMN' : first.kind === 'dropColumn' ? 'DROP COLUMN' : undefined
      if (what !== undefined) throw new RivuletError(SqlState.wrongObjectType, `ALTER action ${what} cannot be performed on relation "${shown}"`, at, 'This operation is not supported for views.')
      throw new RivuletError(SqlState.featureNotSupported, `renaming view "${shown}" or its columns is not supported`, at)
    }
    if (e.kind === 'system') throw new RivuletError('42501', `permission denied: "${shown}" is a system table`, at)
    if (e.kind === 'stream') throw new RivuletError(SqlState.featureNotSupported, `ALTER TABLE is not supported on stream "${shown}": its history in the log keeps the columns it was written with`, at)
    if (e.versions) throw new RivuletError(SqlState.featureNotSupported, `ALTER TABLE is not supported on versioned table "${shown}" (it has a version history)`, at)
    if (first.kind === 'renameTable') return this.renameTable(e, first.to, ctx, at)

    let columns: WorkingColumn[] = e.columns.map((column, i) => ({ column, modifier: e.modifiers?.[i], notNull: e.notNull[i]!, default: e.defaults[i], defaultText: e.source?.defaults[i], from: i }))
    let primaryKey = e.primaryKey.map((i) => e.columns[i]!.name)
    const notices: string[] = []
    const dropped: number[] = []
    let cascade = false
    for (const a of s.actions) {
      const where = positionAt(ctx.text, a.span.start)
      const index = (name: string): number => columns.findIndex((c) => c.column.name === name)
      switch (a.kind) {
        case 'addColumn': {
          const c = a.column
          if (index(c.name) >= 0) {
            if (a.ifNotExists) {
              notices.push(`column "${c.name}" of relation "${shown}" already exists, skipping`)
              continue
            }
            throw new RivuletError(SqlState.duplicateColumn, `column "${c.name}" of relation "${shown}" already exists`, where)
          }
          if (c.primaryKey) throw new RivuletError(SqlState.featureNotSupported, 'ALTER TABLE … ADD COLUMN … PRIMARY KEY is not supported (a table keeps the primary key it was created with)', where)
          const type = typeFromName(c.type.name, c.type.arrayDimensions)
          if (!type) throw new RivuletError(SqlState.undefinedObject, `type "${c.type.name}" does not exist`, positionAt(ctx.text, c.type.span.start))
          const modifier = typeModifierOf(c.type, type, { text: ctx.text })
          const dflt = c.default ? withTypeModifier(coerce(bindExpr(c.default, this.engine.reads.constantExprCtx(new Scope([]), ctx, 'DEFAULT')), type, { err: ctx }, c.default.span), modifier, false) : undefined
          // existing rows get the default, evaluated once (PostgreSQL does so for a
          // non-volatile default), or NULL
          const fill = dflt === undefined ? null : evaluateConstant(dflt)
          if (c.notNull && fill === null && e.store.size > 0) throw new RivuletError(SqlState.notNullViolation, `null value in column "${c.name}" of relation "${shown}" violates not-null constraint`, where)
          const text = c.default && ctx.text ? ctx.text.slice(c.default.span.start, c.default.span.end) : undefined
          columns = [...columns, { column: { name: c.name, type }, modifier, notNull: c.notNull, default: dflt, defaultText: text, from: undefined, fill }]
          break
        }
        case 'dropColumn': {
          const i = index(a.column)
          if (i < 0) {
            if (a.ifExists) {
              notices.push(`column "${a.column}" of relation "${shown}" does not exist, skipping`)
              continue
            }
            throw new RivuletError(SqlState.undefinedColumn, `column "${a.column}" of relation "${shown}" does not exist`, where)
          }
          if (columns.length === 1) throw new RivuletError(SqlState.featureNotSupported, `cannot drop column "${a.column}": it is the last column of table "${shown}"`, where)
          if (primaryKey.includes(a.column)) {
            // as in PostgreSQL, the primary key goes with its column
            if (e.tombstoneRetention !== undefined) throw new RivuletError(SqlState.featureNotSupported, `cannot drop primary-key column "${a.column}" of table "${shown}": its tombstone_retention needs the key`, where)
            primaryKey = []
          }
          const from = columns[i]!.from
          if (from !== undefined) {
            dropped.push(from)
            cascade ||= a.cascade
            this.#refuseDependents(e, from, a.cascade, ctx, where)
          }
          columns = columns.filter((_, k) => k !== i)
          break
        }
        case 'renameColumn': {
          const i = index(a.column)
          if (i < 0) throw new RivuletError(SqlState.undefinedColumn, `column "${a.column}" does not exist`, where)
          if (index(a.to) >= 0) throw new RivuletError(SqlState.duplicateColumn, `column "${a.to}" of relation "${shown}" already exists`, where)
          primaryKey = primaryKey.map((n) => (n === a.column ? a.to : n))
          columns = columns.map((c, k) => (k === i ? { ...c, column: { ...c.column, name: a.to } } : c))
          break
        }
        case 'renameTable':
          throw new RivuletError(SqlState.syntaxError, 'RENAME TO cannot be combined with other ALTER TABLE actions', where)
      }
    }
    if (cascade) for (const from of dropped) this.#dropDependents(e, from, ctx, s.table.span.start)
    this.#replace(e, columns, primaryKey)
    return notices.length > 0 ? { ...result, notice: notices.join('\n') } : result
  }

  /** The views and sinks reading column `from` of `t` directly: without CASCADE, 2BP01. */
  #refuseDependents(t: TableEntry, from: number, cascade: boolean, ctx: StatementContext, at: ReturnType<typeof positionAt>): void {
    if (cascade) return
    const readers = this.#readersOf(t, from)
    if (readers.length === 0) return
    const name = t.columns[from]!.name
    const bare = this.engine.catalog.splitKey(t.name).name
    throw new RivuletError(SqlState.dependentObjectsStillExist, `cannot drop column ${name} of table ${bare} because other objects depend on it`, at, readers.map((m) => `${m.kind === 'sink' ? `sink ${m.name}` : m.name.startsWith(HIDDEN_PREFIX) ? 'a SUBSCRIBE' : `view ${m.name}`} depends on column ${name} of table ${bare}`).join('\n'))
  }

  #readersOf(t: TableEntry, from: number): (ViewEntry | SinkEntry)[] {
    const out: (ViewEntry | SinkEntry)[] = []
    for (const m of this.engine.ddl.maintained()) {
      if (!m.dependsOn.has(t.name)) continue
      const read = inputColumnsRead(m.plan, t.name)
      if (read === 'all' || read.has(from)) out.push(m)
    }
    return out
  }

  /** DROP COLUMN … CASCADE: the views (and what reads them) and sinks reading the column go. */
  #dropDependents(t: TableEntry, from: number, ctx: StatementContext, at: number): void {
    for (const m of this.#readersOf(t, from)) {
      if (m.kind === 'sink') {
        if (this.engine.connectors.sinks.get(m.name) === m) this.engine.connectors.dropSink(m)
      } else if (this.engine.catalog.entries.get(m.name) === m) this.engine.ddl.dropCascade(m, true, ctx, at)
    }
  }

  /** Puts a new table in place of `t` with `columns` (its rows rewritten), and renders what
   *  reads it again. */
  #replace(t: TableEntry, columns: readonly WorkingColumn[], primaryKeyNames: readonly string[]): void {
    const primaryKey = primaryKeyNames.map((n) => columns.findIndex((c) => c.column.name === n))
    const store = new TableStore(primaryKey)
    const rows = t.store.snapshot()
    const rewritten = new ivm.ZSet()
    for (let r = 0; r < rows.length; r++) {
      const row = rows.rows[r]!
      const out: unknown[] = new Array(columns.length)
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i]!
        out[i] = c.from === undefined ? c.fill : row[c.from]
      }
      rewritten.push(out as Row, rows.weights[r]!)
    }
    store.apply(rewritten)
    store.commit()
    const input = this.engine.circuit.add(new ivm.InputOperator(() => store.snapshot()))
    this.engine.circuit.retain(input)
    const modifiers = columns.map((c) => c.modifier)
    const entry: TableEntry = {
      kind: 'table',
      name: t.name,
      columns: columns.map((c) => c.column),
      primaryKey,
      notNull: columns.map((c, i) => c.notNull || primaryKey.includes(i)),
      defaults: columns.map((c) => c.default),
      ...(modifiers.some((m) => m !== undefined) ? { modifiers } : {}),
      store,
      input,
      source: { defaults: columns.map((c) => c.defaultText), watermark: undefined },
      ...(t.tombstoneRetention !== undefined ? { tombstoneRetention: t.tombstoneRetention } : {}),
    }
    // the readers' plans read the new rows projected back onto the columns they were made for
    const position = new Map(columns.flatMap((c, i) => (c.from === undefined ? [] : [[c.from, i] as const])))
    const rewrite = (plan: DeltaPlan): DeltaPlan =>
      replaceInputs(plan, t.name, (old) => ({
        kind: 'mfp',
        input: { kind: 'input', relation: t.name, columns: entry.columns },
        predicate: undefined,
        // a dropped column no reader reads (else it was refused or dropped): NULL in its place
        projection: old.columns.map((c, i) => {
          const to = position.get(i)
          return to === undefined ? lit(null, c.type) : { kind: 'column' as const, index: to, type: c.type }
        }),
        columns: old.columns,
      }))
    this.#rerender(t.name, () => {
      this.engine.catalog.remove(t)
      this.engine.circuit.release(t.input)
      this.engine.catalog.add(entry)
    }, rewrite)
  }

  /** ALTER TABLE … RENAME TO: the table keeps its rows under the new name, in its schema. */
  renameTable(t: TableEntry, to: string, ctx: StatementContext, at: ReturnType<typeof positionAt>): StatementResult {
    const { schema } = this.engine.catalog.splitKey(t.name)
    const key = relationKey(schema, to)
    if (this.engine.catalog.entries.has(key)) throw new RivuletError(SqlState.duplicateTable, `relation "${to}" already exists`, at)
    if (schema === 'public' && this.engine.catalog.splitKey(to).schema !== 'public') throw new RivuletError(SqlState.invalidName, `a relation of schema public cannot be named "${to}": rivulet names the relations of schema "${this.engine.catalog.splitKey(to).schema}" so`, at)
    const from = t.name
    const entry: TableEntry = { ...t, name: key }
    const rewrite = (plan: DeltaPlan): DeltaPlan => replaceInputs(plan, from, (old) => ({ ...old, relation: key }))
    this.#rerender(from, () => {
      this.engine.catalog.remove(t)
      this.engine.catalog.add(entry)
      this.engine.catalog.renameReads(from, key)
      for (const k of this.engine.connectors.sinks.values()) {
        if (k.dependsOn.delete(from)) k.dependsOn.add(key)
      }
      for (const [i, table] of this.engine.ddl.indexes) if (table === from) this.engine.ddl.indexes.set(i, key)
      for (const [n, trigger] of this.engine.ddl.triggers) if (trigger.table === from) this.engine.ddl.triggers.set(n, { ...trigger, table: key })
      const logged = this.engine.log.relations.get(from)
      if (logged !== undefined) {
        this.engine.log.relations.delete(from)
        this.engine.log.relations.set(key, logged)
      }
      this.engine.catalog.renameOid(from, key)
    }, rewrite)
    void ctx
    return { command: 'ALTER TABLE', rowCount: 0 }
  }

  /** Takes every view and sink reading `relation` (directly or through views) out of the
   *  circuit, runs `swap`, and renders them again with their plans rewritten, each after what
   *  it reads (views in error stay out: they are rebuilt when their inputs next change). */
  #rerender(relation: string, swap: () => void, rewrite: (plan: DeltaPlan) => DeltaPlan): void {
    const affected = new Set<string>([relation])
    const redo: (ViewEntry | SinkEntry)[] = []
    for (const m of this.engine.ddl.maintained()) {
      if (![...m.dependsOn].some((d) => affected.has(d))) continue
      redo.push(m)
      if (m.kind !== 'sink') affected.add(m.name)
    }
    for (const m of [...redo].reverse()) if (m.error === undefined) this.engine.ddl.detach(m)
    swap()
    for (const m of redo) {
      m.plan = rewrite(m.plan)
      this.engine.ddl.basesOf.delete(m)
      if (m.error === undefined) this.engine.ddl.rebuild(m)
    }
  }
}
