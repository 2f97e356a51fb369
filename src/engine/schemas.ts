// Schemas: CREATE SCHEMA / DROP SCHEMA, and what a (possibly qualified) name of a relation
// means in DDL — the catalog key a new relation gets (its schema must exist and may hold it),
// and the key an existing one is looked up by (3F000 for a schema that does not exist, as in
// PostgreSQL). The catalog keeps the schemas and the keys (catalog.ts: `s.name`, or the bare
// name in public); queries and DML look names up through it directly.

import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'
import type { StatementResult } from '../types.js'
import { lastPart } from './names.js'
import type { EngineInternals, StatementContext } from './internals.js'

export class Schemas {
  constructor(private readonly engine: EngineInternals) {}

  /** The key a relation created under `n` gets (checking its schema exists and may hold it). */
  createKey(n: ast.Name, ctx: StatementContext): string {
    const at = positionAt(ctx.text, n.span.start)
    if (n.parts.length > 2) throw new RivuletError(SqlState.featureNotSupported, `cross-database references are not implemented: ${n.parts.join('.')}`, at)
    const name = lastPart(n)
    const schema = n.parts.length === 2 ? n.parts[0]! : 'public'
    if (schema === 'pg_catalog' || schema === 'information_schema') throw new RivuletError('42501', `permission denied to create "${n.parts.join('.')}"`, at, 'System catalog modifications are currently disallowed.')
    // a public name that reads as another schema's key would be that schema's relation
    if (schema === 'public' && this.engine.catalog.splitKey(name).schema !== 'public') throw new RivuletError(SqlState.invalidName, `a relation of schema public cannot be named "${name}": rivulet names the relations of schema "${this.engine.catalog.splitKey(name).schema}" so`, at)
    const key = this.engine.catalog.keyOf(schema, name)
    if (key === undefined) throw new RivuletError(SqlState.undefinedSchema, `schema "${schema}" does not exist`, at)
    return key
  }

  /** The key of an existing relation named `n` for DDL: a schema that does not exist is 3F000,
   *  as in PostgreSQL (undefined with IF EXISTS). */
  existingKey(n: ast.Name, ctx: StatementContext, ifExists: boolean): string | undefined {
    if (this.engine.catalog.schemaExists(n.parts)) return this.engine.catalog.lookup(n.parts)
    if (ifExists) return undefined
    throw new RivuletError(SqlState.undefinedSchema, `schema "${n.parts[n.parts.length - 2]}" does not exist`, positionAt(ctx.text, n.span.start))
  }

  create(s: ast.CreateSchemaStmt, ctx: StatementContext): StatementResult {
    const result = { command: 'CREATE SCHEMA', rowCount: 0 }
    const at = positionAt(ctx.text, s.span.start)
    if (s.name === 'public' || s.name === 'pg_catalog' || s.name === 'information_schema' || this.engine.catalog.schemas.has(s.name)) {
      if (s.ifNotExists) return { ...result, notice: `schema "${s.name}" already exists, skipping` }
      throw new RivuletError(SqlState.duplicateSchema, `schema "${s.name}" already exists`, at)
    }
    if (s.name.startsWith('pg_')) throw new RivuletError('42939', `unacceptable schema name "${s.name}"`, at, 'The prefix "pg_" is reserved for system schemas.')
    const clash = [...this.engine.catalog.entries.keys()].find((k) => k.startsWith(`${s.name}.`))
    if (clash !== undefined) throw new RivuletError(SqlState.duplicateSchema, `schema "${s.name}" cannot be created: relation "${clash}" of schema public has the name its relation "${clash.slice(s.name.length + 1)}" would have`, at)
    this.engine.catalog.schemas.add(s.name)
    return result
  }

  /** DROP SCHEMA: with CASCADE its relations go (and what reads them); without, it must be
   *  empty (2BP01). */
  drop(s: ast.DropStmt, ctx: StatementContext): StatementResult {
    const result = { command: 'DROP SCHEMA', rowCount: 0 }
    const skipped: string[] = []
    const dropping: string[] = []
    for (const n of s.names) {
      const name = lastPart(n)
      const at = positionAt(ctx.text, n.span.start)
      if (n.parts.length > 1) throw new RivuletError(SqlState.syntaxError, `improper qualified name (too many dotted names): ${n.parts.join('.')}`, at)
      if (name === 'pg_catalog' || name === 'information_schema') throw new RivuletError(SqlState.dependentObjectsStillExist, `cannot drop schema ${name} because it is required by the database system`, at)
      if (name === 'public') throw new RivuletError(SqlState.featureNotSupported, 'schema public cannot be dropped (it holds every relation named without a schema)', at)
      if (!this.engine.catalog.schemas.has(name)) {
        if (!s.ifExists) throw new RivuletError(SqlState.undefinedSchema, `schema "${name}" does not exist`, at)
        skipped.push(`schema "${name}" does not exist, skipping`)
        continue
      }
      const members = [...this.engine.catalog.entries.values()].filter((e) => this.engine.catalog.splitKey(e.name).schema === name)
      if (members.length > 0 && !s.cascade) {
        throw new RivuletError(SqlState.dependentObjectsStillExist, `cannot drop schema ${name} because other objects depend on it`, at, members.map((e) => `${e.kind} ${e.name} depends on schema ${name}`).join('\n'))
      }
      dropping.push(name)
    }
    for (const name of dropping) {
      for (const e of [...this.engine.catalog.entries.values()]) {
        if (this.engine.catalog.entries.get(e.name) === e && this.engine.catalog.splitKey(e.name).schema === name) this.engine.ddl.dropCascade(e, true, ctx, s.span.start)
      }
      this.engine.catalog.schemas.delete(name)
    }
    return skipped.length > 0 ? { ...result, notice: skipped.join('\n') } : result
  }
}
