// The \d family of REPL meta-commands, printed as psql 15 prints them:
//   \d            List of relations (Schema | Name | Type | Owner)
//   \dt \ds \dv \dm   the same, only tables / streams / views / materialized views
//   \d NAME       the relation's columns (Column | Type | Collation | Nullable | Default) and,
//                 below, its primary key (tables), watermark (streams), definition (views) and
//                 state size (materialized views)
// Patterns follow psql: `*` and `?` are wildcards, unquoted names fold to lower case.
import type { Engine } from '../engine/index.js'
import { formatAligned } from './format.js'
import type { ColumnInfo, RelationInfo, RelationKind, ResultValue, SqlTypeName } from '../types.js'

/** Output of a meta-command: text for stdout and for stderr. */
export interface MetaOutput {
  out: string
  err: string
}

const OWNER = 'rivulet'

/** A relation's schema and its name in it (relations() qualifies those outside public). */
function schemaOf(r: RelationInfo): { schema: string; name: string } {
  return r.schema === undefined ? { schema: 'public', name: r.name } : { schema: r.schema, name: r.name.slice(r.schema.length + 1) }
}

const KIND_TITLE: Record<Exclude<RelationKind, 'system'>, string> = {
  table: 'Table',
  stream: 'Stream',
  view: 'View',
  'materialized view': 'Materialized view',
}

/** psql's pattern: `*` any text, `?` one character, "quoted" parts exact, the rest folded to
 *  lower case; an optional `schema.` prefix matches the schema, without one a relation is
 *  matched in public (the search path) only. */
export function patternMatcher(pattern: string): (schema: string, name: string) => boolean {
  let source = ''
  let schemaSource: string | undefined
  let quoted = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '"') {
      if (quoted && pattern[i + 1] === '"') {
        source += '"'
        i++
      } else quoted = !quoted
    } else if (!quoted && c === '*') source += '.*'
    else if (!quoted && c === '?') source += '.'
    else if (!quoted && c === '.') {
      schemaSource = source
      source = ''
    } else source += (quoted ? c : c.toLowerCase()).replace(/[\\^$+.()|{}[\]]/g, '\\$&')
  }
  const re = new RegExp(`^(?:${source})$`, 's')
  const schemaRe = schemaSource === undefined ? /^public$/ : new RegExp(`^(?:${schemaSource})$`, 's')
  return (schema, name) => schemaRe.test(schema) && re.test(name)
}

/** Aligned table with psql's centred title above it; `footer` keeps the `(N rows)` line. */
function titled(title: string, columns: readonly ColumnInfo[], rows: ResultValue[][], footer: boolean): string {
  let table = formatAligned(columns, rows)
  if (!footer) table = table.replace(/\(\d+ rows?\)\n\n$/, '')
  const lines = table.split('\n')
  const width = lines.find((l) => /^-+(\+-+)*$/.test(l))?.length ?? 0
  const pad = width >= title.length ? ' '.repeat((width - title.length) >> 1) : ''
  return `${pad}${title}\n${table}`
}

const textCol = (name: string): ColumnInfo => ({ name, type: 'text' })

function listed(relations: readonly RelationInfo[]): RelationInfo[] {
  return relations.filter((r) => r.kind !== 'system').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** `\d`, `\dt`, `\ds`, `\dv`, `\dm` without a name, or with a pattern (for the \dX forms). */
export function listRelations(engine: Engine, kinds: readonly RelationKind[] | undefined, pattern: string | undefined): MetaOutput {
  const match = patternMatcher(pattern ?? '*')
  const rows = listed(engine.relations())
    .filter((r) => (kinds === undefined || kinds.includes(r.kind)) && match(schemaOf(r).schema, schemaOf(r).name))
    .map((r) => [schemaOf(r).schema, schemaOf(r).name, r.kind, OWNER] as ResultValue[])
  if (rows.length === 0) return { out: '', err: pattern === undefined ? 'Did not find any relations.\n' : `Did not find any relation named "${pattern}".\n` }
  return { out: titled('List of relations', [textCol('Schema'), textCol('Name'), textCol('Type'), textCol('Owner')], rows, true), err: '' }
}

/** psql's spelling of a type in \d. */
export function describeType(t: SqlTypeName): string {
  return t === 'timestamp' ? 'timestamp without time zone' : t === 'timestamptz' ? 'timestamp with time zone' : t === 'time' ? 'time without time zone' : t
}

/** `\d NAME`: each relation matching the pattern, described. */
export function describeRelations(engine: Engine, pattern: string): MetaOutput {
  const match = patternMatcher(pattern)
  const found = listed(engine.relations()).filter((r) => match(schemaOf(r).schema, schemaOf(r).name))
  if (found.length === 0) return { out: '', err: `Did not find any relation named "${pattern}".\n` }
  return { out: found.map((r) => describeRelation(engine, r)).join(''), err: '' }
}

function describeRelation(engine: Engine, r: RelationInfo): string {
  if (r.kind === 'system') return ''
  const notNull = new Set(r.notNull)
  const rows = r.columns.map((c) => [c.name, r.declaredTypes?.[c.name] ?? describeType(c.type), '', notNull.has(c.name) ? 'not null' : '', r.defaults[c.name] ?? ''] as ResultValue[])
  const { schema, name } = schemaOf(r)
  let out = titled(`${KIND_TITLE[r.kind]} "${schema}.${name}"`, [textCol('Column'), textCol('Type'), textCol('Collation'), textCol('Nullable'), textCol('Default')], rows, false)
  if (r.primaryKey.length > 0) out += `Indexes:\n    "${name}_pkey" PRIMARY KEY (${r.primaryKey.join(', ')})\n`
  if (r.watermark) {
    let current: string | null = null
    try {
      current = engine.watermark(r.name)
    } catch {
      // not a stream any more
    }
    out += `${r.versioned ? 'Version time' : 'Watermark'}: ${r.watermark.column} AS ${r.watermark.expression}\n`
    out += `Current watermark: ${current ?? '(none: no event yet)'}\n`
  }
  if ((r.kind === 'view' || r.kind === 'materialized view') && r.definition !== undefined) {
    out += `View definition:\n${r.definition
      .split('\n')
      .map((l) => ` ${l}`)
      .join('\n')};\n`
  }
  if (r.kind === 'materialized view') {
    let size: number | undefined
    try {
      size = engine.stateSize(r.name)
    } catch {
      size = undefined
    }
    if (size !== undefined) out += `State size: ${size} ${size === 1 ? 'entry' : 'entries'}\n`
  }
  return `${out}\n`
}

/** psql 15's query for \l, which the engine's pg_database answers. */
const LIST_DATABASES = `SELECT d.datname AS "Name",
  pg_catalog.pg_get_userbyid(d.datdba) AS "Owner",
  pg_catalog.pg_encoding_to_char(d.encoding) AS "Encoding",
  d.datcollate AS "Collate",
  d.datctype AS "Ctype",
  d.daticulocale AS "ICU Locale",
  CASE d.datlocprovider WHEN 'c' THEN 'libc' WHEN 'i' THEN 'icu' END AS "Locale Provider",
  pg_catalog.array_to_string(d.datacl, E'\\n') AS "Access privileges"
FROM pg_catalog.pg_database d
ORDER BY 1`

/** `\l`: List of databases (psql 15's columns); rivulet has one. */
export function listDatabases(engine: Engine): MetaOutput {
  const r = engine.query(LIST_DATABASES)
  return { out: titled('List of databases', r.columns, r.rows, true), err: '' }
}
