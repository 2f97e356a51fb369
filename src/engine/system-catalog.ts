// The system relations of pg_catalog and information_schema, as read-only relations over the
// engine's catalog: each is computed from the relations that exist when a statement reading
// it is bound, and then queried by the ordinary planner like any other rows (so a filter, a
// join or a string literal that happens to name a catalog is just SQL). Their columns are
// PostgreSQL 15's, by name and order; the types are the engine's nearest: oid (and regproc,
// xid) → bigint, name and "char" → text, arrays → arrays of those, int2vector and oidvector
// → smallint[] and bigint[] (from 1, printed '{1,2}'; PostgreSQL's vectors count from 0 and
// print '1 2'). The functions that tools call on them (current_user, format_type, pg_get_viewdef,
// …) are bound here too, from the same catalog. The tables and their rows are
// system-catalog-tables.ts; this module binds them (and the functions) into the planner's
// catalog.

import type { Catalog, RegType, ScalarExpr, SqlType, SystemRelation } from '../../planner/index.js'
import { isArrayType, lit } from '../../planner/index.js'
import { parseText } from '../sql-runtime/values.js'
import type { RelationInfo } from '../types.js'
import { PG_ARRAY_TYPES, PG_TYPES, formatType } from '../sql-runtime/type-oids.js'
import { CATALOG_FUNCTIONS, allSchemas, bareName, classRows, schemaName, schemaOid, constraintKey, databaseOf, DEFAULT_SETTINGS, indexKey, NS, OWNER, OWNER_OID, pkeyName, procOid, SYSTEM_TABLES, type SystemCatalogSource, userOf, userRelations } from './system-catalog-tables.js'

/** Whether `name` (unqualified) is a relation of pg_catalog: such names are the system's, as
 *  pg_catalog is first on PostgreSQL's search path (writes to them are refused). */
export function isSystemRelationName(name: string): boolean {
  return SYSTEM_TABLES.some((t) => t.schema === 'pg_catalog' && t.name === name)
}

/** A system relation with its rows, by schema (undefined: pg_catalog, by the search path). */
export function systemRelation(s: SystemCatalogSource, schema: string | undefined, name: string): SystemRelation | undefined {
  const t = SYSTEM_TABLES.find((x) => x.name === name && x.schema === (schema ?? 'pg_catalog'))
  if (!t) return undefined
  // an array column's value is given in its text form: '{1,2}', or a vector's '1 2'
  const arrays = t.columns.flatMap((c, i) => (isArrayType(c.type) ? [i] : []))
  const rows = t.rows(s).map((o) => {
    const row: unknown[] = t.columns.map((c) => o[c.name] ?? null)
    for (const i of arrays) {
      const v = row[i]
      if (typeof v === 'string') row[i] = parseText(v.startsWith('{') ? v : `{${v.trim().split(/\s+/).filter((x) => x !== '').join(',')}}`, t.columns[i]!.type)
    }
    return row
  })
  return { name: `${t.schema}.${t.name}`, columns: t.columns, rows }
}

/** The OID of a relation named as `'x'::regclass` takes it: `[schema.]name`. */
export function relationOid(s: SystemCatalogSource, text: string): number | undefined {
  const parts = splitName(text)
  if (parts === undefined || parts.length > 2) return undefined
  const [schema, name] = parts.length === 2 ? parts : [undefined, parts[0]!]
  const sys = SYSTEM_TABLES.find((t) => t.name === name && (schema === undefined ? t.schema === 'pg_catalog' : t.schema === schema))
  if (sys) return sys.oid
  const ns = schema === undefined || schema === 'public' ? NS.public : s.schemas().includes(schema) ? schemaOid(s, schema) : undefined
  const c = classRows(s).find((x) => x.namespace === ns && x.name === name)
  return c?.oid
}

/** `a.b`, `"A".b` → parts, folded as identifiers are; undefined if malformed. */
function splitName(text: string): string[] | undefined {
  const parts: string[] = []
  const re = /\s*(?:"((?:[^"]|"")*)"|([^."\s]+))\s*(\.|$)/y
  let at = 0
  while (at < text.length) {
    re.lastIndex = at
    const m = re.exec(text)
    if (!m) return undefined
    parts.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.toLowerCase())
    at = re.lastIndex
    if (m[3] === '') break
  }
  return parts.length > 0 ? parts : undefined
}

/** An OID argument as bigint (a quoted '16384' is one). */
function asOid(e: ScalarExpr): ScalarExpr {
  return e.type === 'bigint' ? e : { kind: 'cast', arg: e, type: 'bigint' }
}

/** `CASE arg WHEN k THEN v … ELSE otherwise END` over constant pairs, NULL for a NULL arg; a
 *  constant arg is looked up now. Many pairs are split into CASEs of at most CHUNK pairs under
 *  an `arg IN (their keys)` (the compiled CASE evaluates its branches by recursion: one flat
 *  CASE per relation would overflow the stack with thousands of relations). */
function lookup(arg: ScalarExpr, pairs: readonly (readonly [number, unknown])[], type: SqlType, otherwise: unknown = null): ScalarExpr {
  if (arg.kind === 'literal') {
    if (arg.value === null) return lit(null, type)
    const k = Number(arg.value)
    const hit = pairs.find(([p]) => p === k)
    return lit(hit ? hit[1] : Number.isInteger(k) ? otherwise : null, type)
  }
  const key = asOid(arg)
  const flat = (ps: readonly (readonly [number, unknown])[], otherwise: ScalarExpr): ScalarExpr => ({
    kind: 'case',
    whens: ps.map(([k, v]) => ({ when: { kind: 'call' as const, fn: 'eq', args: [key, lit(k, 'bigint')], type: 'boolean' as const }, then: lit(v, type) })),
    else: otherwise,
    type,
  })
  let body: ScalarExpr
  if (pairs.length <= CHUNK) body = flat(pairs, lit(otherwise, type))
  else {
    const whens = []
    for (let i = 0; i < pairs.length; i += CHUNK) {
      const chunk = pairs.slice(i, i + CHUNK)
      whens.push({ when: { kind: 'inList' as const, arg: key, list: chunk.map(([k]) => lit(k, 'bigint')), negated: false, type: 'boolean' as const }, then: flat(chunk, lit(otherwise, type)) })
    }
    body = { kind: 'case', whens, else: lit(otherwise, type), type }
  }
  return { kind: 'case', whens: [{ when: { kind: 'isNull', arg: key, negated: false, type: 'boolean' }, then: lit(null, type) }], else: body, type }
}

const CHUNK = 64

/** pg_table_is_visible: every relation but information_schema's and those of schemas made by
 *  CREATE SCHEMA (`others`): neither is on the search path. */
function visible(arg: ScalarExpr, others: readonly number[]): ScalarExpr {
  const key = asOid(arg)
  const hidden = [...SYSTEM_TABLES.filter((t) => t.schema === 'information_schema').map((t) => t.oid), ...others].map((oid) => lit(oid, 'bigint'))
  return { kind: 'inList', arg: key, list: hidden, negated: true, type: 'boolean' }
}

/** The keywords PostgreSQL 15's quote_ident quotes: every one but the unreserved (reserved,
 *  column-name and type-or-function-name keywords, from its parser's kwlist.h). */
const QUOTED_KEYWORDS = new Set(
  (
    'all analyse analyze and any array as asc asymmetric authorization between bigint binary bit boolean both case cast char character check coalesce collate collation column concurrently constraint create cross ' +
    'current_catalog current_date current_role current_schema current_time current_timestamp current_user dec decimal default deferrable desc distinct do else end except exists extract false fetch float for ' +
    'foreign freeze from full grant greatest group grouping having ilike in initially inner inout int integer intersect interval into is isnull join lateral leading least left like limit localtime ' +
    'localtimestamp national natural nchar none normalize not notnull null nullif numeric offset on only or order out outer overlaps overlay placing position precision primary real references returning right row ' +
    'select session_user setof similar smallint some substring symmetric table tablesample then time timestamp to trailing treat trim true union unique user using values varchar variadic verbose when where ' +
    'window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable'
  ).split(' '),
)

/** quote_ident(text) as PostgreSQL's quote_identifier: unchanged when it is a lower-case
 *  identifier that is no such keyword, else double-quoted with its quotes doubled. (A string
 *  function, bound here from the existing operators until src/sql-runtime/functions.ts has it.) */
function quoteIdent(arg: ScalarExpr): ScalarExpr {
  const quoted = (x: string): string => (/^[a-z_][a-z0-9_]*$/.test(x) && !QUOTED_KEYWORDS.has(x) ? x : `"${x.replace(/"/g, '""')}"`)
  if (arg.kind === 'literal') return lit(arg.value === null ? null : quoted(String(arg.value)), 'text')
  const x: ScalarExpr = arg.type === 'text' ? arg : { kind: 'cast', arg, type: 'text' }
  const call = (fn: string, args: ScalarExpr[], type: SqlType): ScalarExpr => ({ kind: 'call', fn, args, type })
  const safe: ScalarExpr = { kind: 'and', args: [call('regex_match', [x, lit('^[a-z_][a-z0-9_]*$', 'text')], 'boolean'), { kind: 'inList', arg: x, list: [...QUOTED_KEYWORDS].map((k) => lit(k, 'text')), negated: true, type: 'boolean' }], type: 'boolean' }
  const wrapped = call('text_concat', [call('text_concat', [lit('"', 'text'), call('replace', [x, lit('"', 'text'), lit('""', 'text')], 'text')], 'text'), lit('"', 'text')], 'text')
  return { kind: 'case', whens: [{ when: { kind: 'isNull', arg: x, negated: false, type: 'boolean' }, then: lit(null, 'text') }, { when: safe, then: x }], else: wrapped, type: 'text' }
}

/** The catalog's functions, bound: constants of the session, or lookups over the catalog as it
 *  is when the statement is bound (as the system relations are read then). */
export function systemFunction(s: SystemCatalogSource, name: string, args: readonly ScalarExpr[]): ScalarExpr | undefined {
  const n = args.length
  switch (name) {
    case 'current_user':
    case 'session_user':
    case 'current_role':
    case 'user':
      return n === 0 ? lit(userOf(s), 'text') : undefined
    case 'current_database':
    case 'current_catalog':
      return n === 0 ? lit(databaseOf(s), 'text') : undefined
    case 'current_schema':
      return n === 0 ? lit('public', 'text') : undefined
    case 'version':
      return n === 0 ? lit(`PostgreSQL ${s.identity.serverVersion ?? '15.0 (rivulet)'} on Node.js ${process.version}`, 'text') : undefined
    case 'pg_backend_pid':
      return n === 0 ? lit(s.identity.pid ?? process.pid, 'integer') : undefined
    case 'pg_encoding_to_char':
      return n === 1 ? lookup(args[0]!, [[6, 'UTF8'], [0, 'SQL_ASCII']], 'text', '') : undefined
    case 'pg_is_in_recovery':
      return n === 0 ? lit(false, 'boolean') : undefined
    case 'current_setting': {
      const a = args[0]
      if ((n !== 1 && n !== 2) || a?.kind !== 'literal' || typeof a.value !== 'string') return undefined
      const v = (s.identity.settings ?? DEFAULT_SETTINGS).get(a.value.toLowerCase())
      return v === undefined ? undefined : lit(v, 'text')
    }
    case 'pg_get_userbyid':
      return n === 1 ? lookup(args[0]!, [[OWNER_OID, OWNER], ...(userOf(s) === OWNER ? [] : [[s.oidOf(`\u0000role ${userOf(s)}`), userOf(s)] as const])], 'text', 'unknown') : undefined
    case 'pg_table_is_visible':
      // pg_catalog and public are on the search path; information_schema is not
      return n === 1 ? visible(args[0]!, userRelations(s).filter((r) => r.schema !== undefined).map((r) => s.oidOf(r.name))) : undefined
    case 'pg_get_viewdef':
      // as PostgreSQL prints it: the query text, with a leading space and a final semicolon
      return n === 1 || n === 2 ? lookup(args[0]!, userRelations(s).flatMap((r) => (r.definition === undefined ? [] : [[s.oidOf(r.name), ` ${r.definition};`] as const])), 'text') : undefined
    case 'pg_get_indexdef': {
      // the primary key's index, as PostgreSQL prints it
      if (n !== 1 && n !== 3) return undefined
      const keyed = userRelations(s).filter((r) => r.primaryKey.length > 0)
      return lookup(args[0]!, keyed.map((r) => [s.oidOf(indexKey(r)), `CREATE UNIQUE INDEX ${pkeyName(r)} ON ${schemaName(r)}.${bareName(r)} USING btree (${r.primaryKey.join(', ')})`] as const), 'text')
    }
    case 'pg_get_constraintdef': {
      if (n !== 1 && n !== 2) return undefined
      const keyed = userRelations(s).filter((r) => r.primaryKey.length > 0)
      return lookup(args[0]!, keyed.map((r) => [s.oidOf(constraintKey(r)), `PRIMARY KEY (${r.primaryKey.join(', ')})`] as const), 'text')
    }
    case 'pg_function_is_visible':
      // every function is pg_catalog's, which is on the search path; NULL for no function
      return n === 1 ? lookup(args[0]!, CATALOG_FUNCTIONS.map(([name]) => [procOid(s, name), true] as const), 'boolean') : undefined
    case 'pg_type_is_visible':
      // every type is pg_catalog's too
      return n === 1 ? lookup(args[0]!, PG_TYPES.map((t) => [t.oid, true] as const), 'boolean') : undefined
    case 'pg_get_function_result':
      return n === 1 ? lookup(args[0]!, CATALOG_FUNCTIONS.map(([name, , ret]) => [procOid(s, name), formatType(ret, -1)] as const), 'text') : undefined
    case 'pg_get_function_arguments':
    case 'pg_get_function_identity_arguments':
      // unnamed arguments: their types
      return n === 1 ? lookup(args[0]!, CATALOG_FUNCTIONS.map(([name, argTypes]) => [procOid(s, name), argTypes.map((t) => formatType(t, -1)).join(', ')] as const), 'text') : undefined
    case 'pg_get_serial_sequence':
      // the engine has no sequences: no column owns one
      return n === 2 ? lit(null, 'text') : undefined
    case 'pg_tablespace_location':
      // the default tablespaces are the data directory's: PostgreSQL prints ''
      return n === 1 ? lit('', 'text') : undefined
    case 'pg_get_function_sqlbody':
    case 'pg_get_statisticsobjdef_columns':
    case 'pg_get_ruledef':
    case 'pg_get_triggerdef':
      // there are no SQL-bodied functions, extended statistics, rules (but views' own) or
      // triggers
      return n === 1 || n === 2 ? lit(null, 'text') : undefined
    case 'pg_table_size':
    case 'pg_relation_size':
    case 'pg_total_relation_size':
    case 'pg_indexes_size':
    case 'pg_database_size':
    case 'pg_tablespace_size':
      // the engine keeps its data in memory, not in pages of files: no relation has a size on
      // disk (psql's \dt+, \l+ print 0 bytes)
      return n === 1 || (name === 'pg_relation_size' && n === 2) ? { kind: 'case', whens: [{ when: { kind: 'isNull', arg: args[0]!, negated: false, type: 'boolean' }, then: lit(null, 'bigint') }], else: lit(0, 'bigint'), type: 'bigint' } : undefined
    case 'pg_relation_is_publishable':
      // nothing is published (there is no logical replication out of the engine)
      return n === 1 ? lit(false, 'boolean') : undefined
    case 'quote_ident':
      return n === 1 ? quoteIdent(args[0]!) : undefined
    case 'pg_get_expr':
      // adbin holds the expression's text already
      return n === 2 || n === 3 ? (args[0]!.type === 'text' ? args[0]! : { kind: 'cast', arg: args[0]!, type: 'text' }) : undefined
    case 'has_table_privilege':
    case 'has_schema_privilege':
    case 'has_database_privilege':
    case 'has_column_privilege':
      // one role, owner of everything
      return n >= 2 && n <= 4 ? lit(true, 'boolean') : undefined
    case 'obj_description':
    case 'col_description':
    case 'shobj_description':
      // no comments (pg_description is empty)
      return n >= 1 && n <= 3 ? lit(null, 'text') : undefined
    default:
      return undefined
  }
}

/** The binder's catalog: the engine's relations plus the system relations and functions. */
export function withSystemCatalog(base: Catalog, source: SystemCatalogSource): Catalog {
  // one statement is bound against it: the engine's relations are listed once, and a system
  // relation named twice (pg_class c JOIN pg_class c2) is computed once
  let relations: RelationInfo[] | undefined
  const s: SystemCatalogSource = { relations: () => (relations ??= source.relations()), schemas: () => source.schemas(), oidOf: (key) => source.oidOf(key), identity: source.identity, log: () => source.log(), checkpoints: () => source.checkpoints() }
  const computed = new Map<string, SystemRelation | undefined>()
  return {
    getRelation: (name, schema) => base.getRelation(name, schema),
    ...(base.intervalMicros ? { intervalMicros: (e: ScalarExpr) => base.intervalMicros!(e) } : {}),
    systemRelation: (schema, name) => {
      const key = `${schema ?? ''}.${name}`
      if (!computed.has(key)) computed.set(key, systemRelation(s, schema, name))
      return computed.get(key)
    },
    systemFunction: (name, args) => systemFunction(s, name, args),
    objectOid: (type, name) => objectOid(s, type, name),
    objectName: (type, oid) => objectName(s, type, oid),
  }
}

/** The roles there are: the owner of everything, and the session's user. */
function roles(s: SystemCatalogSource): (readonly [number, string])[] {
  const user = userOf(s)
  return user === OWNER ? [[OWNER_OID, OWNER]] : [[OWNER_OID, OWNER], [s.oidOf(`\u0000role ${user}`), user]]
}

/** `'name'::regclass` (…): the OID of the named object. */
function objectOid(s: SystemCatalogSource, type: RegType, text: string): number | undefined {
  if (type === 'regclass') return relationOid(s, text)
  const parts = splitName(text.replace(/\(.*\)$/, ''))
  if (parts === undefined) return undefined
  const name = parts[parts.length - 1]!
  switch (type) {
    case 'regnamespace':
      return parts.length === 1 ? allSchemas(s).find(([n]) => n === name)?.[1] : undefined
    case 'regtype':
      return [...PG_TYPES, ...PG_ARRAY_TYPES].find((t) => t.typname === name || t.display === text.trim().toLowerCase())?.oid
    case 'regproc':
    case 'regprocedure':
      return CATALOG_FUNCTIONS.some(([f]) => f === name) ? procOid(s, name) : undefined
    case 'regrole':
      return roles(s).find(([, r]) => r === name)?.[0]
  }
}

/** `x::regclass::text` (…): the object's name (a relation outside the search path with its
 *  schema). */
function objectName(s: SystemCatalogSource, type: RegType, oid: ScalarExpr): ScalarExpr {
  let pairs: (readonly [number, string])[]
  switch (type) {
    case 'regclass': {
      const schemaOf = new Map(allSchemas(s).map(([k, v]) => [v, k]))
      pairs = classRows(s).map((c) => [c.oid, c.namespace === NS.public || c.namespace === NS.pg_catalog ? c.name : `${schemaOf.get(c.namespace)}.${c.name}`])
      break
    }
    case 'regnamespace':
      pairs = allSchemas(s).map(([k, v]) => [v, k])
      break
    case 'regtype':
      pairs = [...PG_TYPES, ...PG_ARRAY_TYPES].map((t) => [t.oid, t.display])
      break
    case 'regproc':
    case 'regprocedure':
      pairs = CATALOG_FUNCTIONS.map(([f]) => [procOid(s, f), f])
      break
    case 'regrole':
      pairs = roles(s)
      break
  }
  // an OID that names nothing prints as the number, as in PostgreSQL
  const key = asOid(oid)
  return { kind: 'coalesce', args: [lookup(key, pairs, 'text'), { kind: 'cast', arg: key, type: 'text' }], type: 'text' }
}
