// The answers by shape that remain for psql 15's \d NAME queries (src/server/session.ts uses
// them only for a query the parser rejected, or one the engine could not answer): those need
// arrays (ARRAY(SELECT …), = ANY(…), unnest) and catalogs (pg_policy, pg_statistic_ext, …)
// the engine does not have yet. Everything else — \d, \dt, \dv, \dm, \dn, driver probes,
// information_schema — is the engine's: real read-only relations and functions queried by
// the ordinary planner (src/system-catalog.ts).

import type { RelationInfo, ResultValue } from '../types.js'
import type { Field } from './pg-types.js'
import { tokenize } from './sql-text.js'

/** A result the server sends as RowDescription + DataRows + CommandComplete. */
export interface ResultSet {
  readonly fields: readonly Field[]
  readonly rows: ResultValue[][]
  readonly command: string
}

/** What the catalog answers need to know. */
export interface CatalogContext {
  relations(): RelationInfo[]
  /** A stable OID for a relation name. */
  oidOf(name: string): number
  readonly user: string
  readonly database: string
  readonly settings: ReadonlyMap<string, string>
  readonly serverVersion: string
}


const text = (name: string): Field => ({ name, type: 'text' })
const bool = (name: string): Field => ({ name, type: 'boolean' })

function result(fields: readonly Field[], rows: ResultValue[][]): ResultSet {
  return { fields, rows, command: `SELECT ${rows.length}` }
}

// ------------------------------------------------------------------------ psql describe.c

/** relkind and psql's type name of each kind of relation. */
function relkind(r: RelationInfo): { kind: string; label: string } {
  switch (r.kind) {
    case 'view':
      return { kind: 'v', label: 'view' }
    case 'materialized view':
      return { kind: 'm', label: 'materialized view' }
    case 'stream':
      return { kind: 'r', label: 'stream' }
    default:
      return { kind: 'r', label: 'table' }
  }
}

/** Answers a catalog query psql or a driver sends, or undefined when it is not one. */
export function answerCatalogQuery(sql: string, ctx: CatalogContext): ResultSet | undefined {
  process.stderr.write("FALLBACK: " + sql.replace(/\s+/g, " ") + "\n\n")
  if (!/pg_catalog|information_schema|\bpg_[a-z_]+\b/i.test(sql)) return undefined
  const q = sql.replace(/\s+/g, ' ').trim()
  return tableInfo(q, ctx) ?? emptyCatalog(q, sql)
}

function relationByOid(q: string, re: RegExp, ctx: CatalogContext): RelationInfo | undefined {
  const m = re.exec(q)
  if (!m) return undefined
  const oid = Number(m[1])
  return ctx.relations().find((r) => ctx.oidOf(r.name) === oid)
}

/** `\d NAME`, second query: the relation's flags (relkind, has an index, …). */
function tableInfo(q: string, ctx: CatalogContext): ResultSet | undefined {
  if (!/^SELECT c\.relchecks, c\.relkind, c\.relhasindex, /.test(q)) return undefined
  const items = selectItems(q)
  const r = relationByOid(q, /WHERE c\.oid = '(\d+)'/, ctx)
  const fields = items.map((it, i) => {
    const name = itemName(it, i)
    return /relhas|relrowsecurity|relforcerowsecurity|relispartition/.test(name) ? bool(name) : text(name)
  })
  if (!r) return result(fields, [])
  const view = r.kind === 'view' || r.kind === 'materialized view'
  const row = items.map((it): ResultValue => {
    if (/relchecks/.test(it)) return 0
    if (/c\.relkind/.test(it)) return relkind(r).kind
    if (/relhasindex/.test(it)) return r.primaryKey.length > 0
    if (/relhasrules/.test(it)) return view
    if (/relhastriggers|relrowsecurity|relforcerowsecurity|relhasoids|relispartition/.test(it)) return false
    if (/reltablespace/.test(it)) return 0
    if (/relpersistence/.test(it)) return 'p'
    if (/relreplident/.test(it)) return r.kind === 'view' ? 'n' : 'd'
    if (/amname/.test(it)) return r.kind === 'view' ? null : 'heap'
    return '' // reloptions, reloftype
  })
  return result(fields, [row])
}

/** Catalogs the engine does not have yet, empty here (no policies, extended statistics,
 *  publications, rules, triggers, …); those it has (pg_type, pg_proc, pg_roles,
 *  pg_constraint, pg_description, pg_inherits, …) are never answered here. */
const EMPTY_CATALOGS = /pg_catalog\.(pg_policy|pg_statistic_ext|pg_publication|pg_rewrite|pg_trigger|pg_foreign_table|pg_partitioned_table|pg_sequence|pg_event_trigger|pg_operator|pg_opclass|pg_cast|pg_conversion|pg_ts_\w+|pg_default_acl|pg_largeobject_metadata|pg_foreign_\w+|pg_user_mapping|pg_subscription|pg_auth_members)\b/

function emptyCatalog(q: string, sql: string): ResultSet | undefined {
  if (!/^SELECT /i.test(q) || !EMPTY_CATALOGS.test(q)) return undefined
  return result(selectItems(sql).map((it, i) => text(itemName(it, i))), [])
}

/** The select-list items of a query's first SELECT, as text (split at top-level commas up to
 *  the top-level FROM). */
export function selectItems(sql: string): string[] {
  const tokens = tokenize(sql)
  const items: string[] = []
  let depth = 0
  let started = false
  let start = -1
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (!started) {
      if (t.kind === 'word' && t.value === 'select') {
        started = true
        start = t.end
      }
      continue
    }
    if (t.kind === 'punct' && t.value === '(') depth++
    else if (t.kind === 'punct' && t.value === ')') depth--
    else if (depth === 0 && t.kind === 'punct' && t.value === ',') {
      items.push(sql.slice(start, t.start).trim())
      start = t.end
    } else if (depth === 0 && t.kind === 'word' && (t.value === 'from' || t.value === 'where' || t.value === 'order' || t.value === 'union' || t.value === 'group' || t.value === 'limit')) {
      items.push(sql.slice(start, t.start).trim())
      return items.filter((s) => s !== '')
    }
  }
  if (started) items.push(sql.slice(start).replace(/;\s*$/, '').trim())
  return items.filter((s) => s !== '')
}

/** A select item's column name: its alias, else the last name in it, else ?column?. */
function itemName(item: string, _i: number): string {
  const m = /\s(?:as|AS)\s+("(?:[^"]|"")*"|\w+)\s*$/.exec(item)
  if (m) return m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replace(/""/g, '"') : m[1]!.toLowerCase()
  const last = /(\w+)\s*(?:\([^()]*\))?\s*$/.exec(item)
  return last ? last[1]!.toLowerCase() : '?column?'
}

// ------------------------------------------------------------------------ settings

/** Session settings and their defaults; those marked `report` are sent as ParameterStatus
 *  at startup and when changed (as Postgres does for GUC_REPORT settings). */
export const SETTINGS: ReadonlyArray<{ readonly name: string; readonly value: string; readonly report: boolean }> = [
  { name: 'application_name', value: '', report: true },
  { name: 'client_encoding', value: 'UTF8', report: true },
  { name: 'DateStyle', value: 'ISO, MDY', report: true },
  { name: 'default_transaction_read_only', value: 'off', report: true },
  { name: 'in_hot_standby', value: 'off', report: true },
  { name: 'integer_datetimes', value: 'on', report: true },
  { name: 'IntervalStyle', value: 'postgres', report: true },
  { name: 'is_superuser', value: 'off', report: true },
  { name: 'server_encoding', value: 'UTF8', report: true },
  { name: 'server_version', value: '', report: true },
  { name: 'session_authorization', value: '', report: true },
  { name: 'standard_conforming_strings', value: 'on', report: true },
  { name: 'TimeZone', value: 'UTC', report: true },
  { name: 'server_version_num', value: '150000', report: false },
  { name: 'transaction_isolation', value: 'read committed', report: false },
  { name: 'default_transaction_isolation', value: 'read committed', report: false },
  { name: 'transaction_read_only', value: 'off', report: false },
  { name: 'search_path', value: '"$user", public', report: false },
  { name: 'max_identifier_length', value: '63', report: false },
  { name: 'lc_collate', value: 'C', report: false },
  { name: 'lc_ctype', value: 'C', report: false },
  { name: 'extra_float_digits', value: '1', report: false },
  { name: 'statement_timeout', value: '0', report: false },
  { name: 'lock_timeout', value: '0', report: false },
  { name: 'idle_in_transaction_session_timeout', value: '0', report: false },
  { name: 'bytea_output', value: 'hex', report: false },
  { name: 'client_min_messages', value: 'notice', report: false },
]
