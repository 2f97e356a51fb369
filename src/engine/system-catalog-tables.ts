// The rows of the system relations of pg_catalog and information_schema (SYSTEM_TABLES): each
// table's PostgreSQL 15 columns and the function computing its rows from the engine's catalog
// (SystemCatalogSource), with the OIDs, owner and settings they show. Apart from
// system-catalog.ts, which binds these tables and the catalog functions into the planner's
// catalog, because the table definitions are data-like and make up most of the code.

import type { Column, ScalarType, SqlType } from '../../planner/index.js'
import { arrayOf } from '../../planner/index.js'
import type { RelationInfo, SessionIdentity, SqlTypeName } from '../types.js'
import { sqlTypeName } from '../types.js'
import { PG_ARRAY_TYPES, PG_TYPES, PG_TYPE_BY_OID, typeOidOf } from '../sql-runtime/type-oids.js'

/** What the system relations are computed from. */
export interface SystemCatalogSource {
  relations(): RelationInfo[]
  /** The schemas made by CREATE SCHEMA (public and the system's apart). */
  schemas(): readonly string[]
  /** The relation's OID (stable while it exists: given when it was created). */
  oidOf(key: string): number
  readonly identity: SessionIdentity
  /** The durable log per relation (rivulet_log): empty in memory. */
  log(): readonly LogRelationRow[]
  /** The checkpoints kept (rivulet_checkpoints): empty in memory. */
  checkpoints(): readonly CheckpointRow[]
}

/** A row of rivulet_checkpoints: the tick and log record a checkpoint covers, the next log
 *  offset of each relation (JSON), its size, how long it took and when. */
export interface CheckpointRow {
  readonly tick: number
  readonly log_seq: number
  readonly offsets: string
  readonly bytes: number
  readonly millis: number
  readonly taken_at: string
}

/** A row of rivulet_log: a relation's first and last offset in the log, rows and bytes. */
export interface LogRelationRow {
  readonly relation: string
  readonly first_offset: number
  readonly last_offset: number
  readonly rows: number
  readonly bytes: number
}

/** The owner of every object (the engine has no roles) and its OID (PostgreSQL's bootstrap
 *  superuser's). */
export const OWNER = 'rivulet'
export const OWNER_OID = 10
const DATABASE_OID = 5
export const NS = { pg_catalog: 11, public: 2200, information_schema: 13000 } as const
const DEFAULT_COLLATION = 100

// ---------------------------------------------------------------------------------- columns

/** A PostgreSQL column type, as `format_type` spells it in the specs below, → the engine's. */
function columnType(pg: string): SqlType {
  // arrays, and the vectors (int2vector, oidvector: arrays here, from 1, printed '{1,2}')
  if (pg.endsWith('[]')) return arrayOf(elementColumnType(pg.slice(0, -2)))
  if (pg === 'int2vector') return 'smallint[]'
  if (pg === 'oidvector') return 'bigint[]'
  return elementColumnType(pg)
}

function elementColumnType(pg: string): ScalarType {
  switch (pg) {
    case 'oid':
    case 'regproc':
    case 'xid':
      return 'bigint'
    case 'integer':
      return 'integer'
    case 'bigint':
      return 'bigint'
    case 'smallint':
      return 'smallint'
    case 'real':
      return 'real'
    case 'double precision':
      return 'double'
    case 'boolean':
      return 'boolean'
    case 'timestamp with time zone':
      return 'timestamp'
    default:
      return 'text' // name, "char", text, character varying, aclitem, pg_node_tree, anyarray
  }
}

/** `name:type name:type …` (from PostgreSQL 15's pg_attribute) → columns. */
function columns(spec: string): Column[] {
  return spec
    .trim()
    .split(/\s+(?=[a-z_]+:)/)
    .map((item) => {
      const i = item.indexOf(':')
      return { name: item.slice(0, i), type: columnType(item.slice(i + 1)) }
    })
}

type RowObject = Record<string, unknown>

interface SystemTable {
  readonly schema: 'pg_catalog' | 'information_schema'
  readonly name: string
  readonly oid: number
  readonly columns: readonly Column[]
  readonly rows: (s: SystemCatalogSource) => RowObject[]
}

// ---------------------------------------------------------------------------------- types

/** A column's type OID and typmod, from its declared type ('numeric(10,2)',
 *  'character varying(20)', 'character(3)') when it has a modifier. */
function columnTypeOf(type: SqlTypeName, declared: string | undefined): { oid: number; typmod: number } {
  if (declared !== undefined) {
    const d = /^(numeric|character varying|character)\((\d+)(?:,\s*(-?\d+))?\)$/.exec(declared)
    if (d) {
      const n = Number(d[2])
      if (d[1] === 'numeric') return { oid: 1700, typmod: ((n << 16) | (Number(d[3] ?? 0) & 0xffff)) + 4 }
      return { oid: d[1] === 'character' ? 1042 : 1043, typmod: n + 4 }
    }
  }
  return { oid: typeOidOf(type), typmod: -1 }
}

/** information_schema.columns' numeric_precision / radix / scale and datetime_precision. */
function precisionOf(oid: number, typmod: number): RowObject {
  switch (oid) {
    case 21:
      return { numeric_precision: 16, numeric_precision_radix: 2, numeric_scale: 0 }
    case 23:
      return { numeric_precision: 32, numeric_precision_radix: 2, numeric_scale: 0 }
    case 20:
      return { numeric_precision: 64, numeric_precision_radix: 2, numeric_scale: 0 }
    case 700:
      return { numeric_precision: 24, numeric_precision_radix: 2 }
    case 701:
      return { numeric_precision: 53, numeric_precision_radix: 2 }
    case 1700:
      return typmod < 0 ? { numeric_precision_radix: 10 } : { numeric_precision: ((typmod - 4) >> 16) & 0xffff, numeric_precision_radix: 10, numeric_scale: (typmod - 4) & 0xffff }
    case 1082:
      return { datetime_precision: 0 }
    case 1114:
    case 1184:
    case 1186:
      return { datetime_precision: 6 }
    case 1042:
    case 1043:
      return typmod < 0 ? { character_octet_length: 1073741824 } : { character_maximum_length: typmod - 4, character_octet_length: (typmod - 4) * 4 }
    case 25:
      return { character_octet_length: 1073741824 }
    default:
      return {}
  }
}

const isTextType = (oid: number): boolean => oid === 25 || oid === 1042 || oid === 1043

// ---------------------------------------------------------------------------------- relations

/** The kinds of user relation, as pg_class.relkind: streams are tables (psql and drivers
 *  know no other kind); views and materialized views are PostgreSQL's. */
function relkindOf(r: RelationInfo): string {
  return r.kind === 'view' ? 'v' : r.kind === 'materialized view' ? 'm' : 'r'
}

/** A relation's name within its schema. */
export const bareName = (r: RelationInfo): string => (r.schema === undefined ? r.name : r.name.slice(r.schema.length + 1))
export const schemaName = (r: RelationInfo): string => r.schema ?? 'public'
/** A schema's OID: the system's fixed ones, or given at CREATE SCHEMA (kept while it exists). */
export const schemaOid = (s: SystemCatalogSource, schema: string): number => (schema in NS ? NS[schema as keyof typeof NS] : s.oidOf(`\u0000schema ${schema}`))
/** Every schema, by name and OID. */
export const allSchemas = (s: SystemCatalogSource): [string, number][] => [...Object.entries(NS), ...s.schemas().map((n): [string, number] => [n, schemaOid(s, n)])]
export const pkeyName = (r: RelationInfo): string => `${bareName(r)}_pkey`
export const indexKey = (r: RelationInfo): string => `\u0000index ${r.name}`
export const constraintKey = (r: RelationInfo): string => `\u0000constraint ${r.name}`

interface ClassRow {
  readonly oid: number
  readonly name: string
  readonly namespace: number
  readonly kind: string
  readonly columns: number
  readonly info?: RelationInfo
}

export function userRelations(s: SystemCatalogSource): RelationInfo[] {
  return s.relations()
}

export function classRows(s: SystemCatalogSource): ClassRow[] {
  const out: ClassRow[] = SYSTEM_TABLES.map((t) => ({ oid: t.oid, name: t.name, namespace: NS[t.schema], kind: 'v', columns: t.columns.length }))
  for (const r of userRelations(s)) {
    const namespace = schemaOid(s, schemaName(r))
    out.push({ oid: s.oidOf(r.name), name: bareName(r), namespace, kind: relkindOf(r), columns: r.columns.length, info: r })
    if (r.primaryKey.length > 0) out.push({ oid: s.oidOf(indexKey(r)), name: pkeyName(r), namespace, kind: 'i', columns: r.primaryKey.length })
  }
  return out
}

interface AttributeRow {
  readonly relation: ClassRow
  readonly num: number
  readonly name: string
  readonly typid: number
  readonly typmod: number
  readonly notNull: boolean
  readonly default: string | undefined
}

function attributeRows(s: SystemCatalogSource): AttributeRow[] {
  const out: AttributeRow[] = []
  for (const c of classRows(s)) {
    if (c.info) {
      const r = c.info
      r.columns.forEach((col, i) => {
        const t = columnTypeOf(col.type, r.declaredTypes?.[col.name])
        out.push({ relation: c, num: i + 1, name: col.name, typid: t.oid, typmod: t.typmod, notNull: r.notNull.includes(col.name) || r.primaryKey.includes(col.name), default: r.defaults[col.name] })
      })
    } else if (c.kind === 'v') {
      const t = SYSTEM_BY_OID.get(c.oid)!
      t.columns.forEach((col, i) => out.push({ relation: c, num: i + 1, name: col.name, typid: typeOidOf(sqlTypeName(col.type)), typmod: -1, notNull: false, default: undefined }))
    }
  }
  return out
}

const yesNo = (b: boolean): string => (b ? 'YES' : 'NO')

// PostgreSQL 15's columns of each relation (attname:format_type, in attnum order).
export const SYSTEM_TABLES: readonly SystemTable[] = [
  {
    schema: 'pg_catalog',
    name: 'pg_namespace',
    oid: 2615,
    columns: columns('oid:oid nspname:name nspowner:oid nspacl:aclitem[]'),
    rows: (s) => allSchemas(s).map(([nspname, oid]) => ({ oid, nspname, nspowner: OWNER_OID })),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_class',
    oid: 1259,
    columns: columns(
      'oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid relfilenode:oid reltablespace:oid relpages:integer reltuples:real relallvisible:integer reltoastrelid:oid relhasindex:boolean relisshared:boolean relpersistence:"char" relkind:"char" relnatts:smallint relchecks:smallint relhasrules:boolean relhastriggers:boolean relhassubclass:boolean relrowsecurity:boolean relforcerowsecurity:boolean relispopulated:boolean relreplident:"char" relispartition:boolean relrewrite:oid relfrozenxid:xid relminmxid:xid relacl:aclitem[] reloptions:text[] relpartbound:pg_node_tree',
    ),
    rows: (s) =>
      classRows(s).map((c) => ({
        oid: c.oid,
        relname: c.name,
        relnamespace: c.namespace,
        reltype: 0,
        reloftype: 0,
        relowner: OWNER_OID,
        relam: c.kind === 'r' || c.kind === 'm' ? 2 : c.kind === 'i' ? 403 : 0,
        relfilenode: c.kind === 'v' ? 0 : c.oid,
        reltablespace: 0,
        relpages: 0,
        reltuples: -1,
        relallvisible: 0,
        reltoastrelid: 0,
        relhasindex: (c.info?.primaryKey.length ?? 0) > 0,
        relisshared: false,
        relpersistence: 'p',
        relkind: c.kind,
        relnatts: c.columns,
        relchecks: 0,
        relhasrules: c.kind === 'v',
        relhastriggers: false,
        relhassubclass: false,
        relrowsecurity: false,
        relforcerowsecurity: false,
        relispopulated: true,
        relreplident: c.kind === 'r' || c.kind === 'm' ? 'd' : 'n',
        relispartition: false,
        relrewrite: 0,
        relfrozenxid: 0,
        relminmxid: 0,
      })),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_attribute',
    oid: 1249,
    columns: columns(
      'attrelid:oid attname:name atttypid:oid attstattarget:integer attlen:smallint attnum:smallint attndims:integer attcacheoff:integer atttypmod:integer attbyval:boolean attalign:"char" attstorage:"char" attcompression:"char" attnotnull:boolean atthasdef:boolean atthasmissing:boolean attidentity:"char" attgenerated:"char" attisdropped:boolean attislocal:boolean attinhcount:integer attcollation:oid attacl:aclitem[] attoptions:text[] attfdwoptions:text[] attmissingval:anyarray',
    ),
    rows: (s) =>
      attributeRows(s).map((a) => {
        const t = PG_TYPE_BY_OID.get(a.typid)
        const len = t?.typlen ?? -1
        return {
          attrelid: a.relation.oid,
          attname: a.name,
          atttypid: a.typid,
          attstattarget: -1,
          attlen: len,
          attnum: a.num,
          attndims: 0,
          attcacheoff: -1,
          atttypmod: a.typmod,
          attbyval: len > 0 && len <= 8,
          attalign: len === 8 ? 'd' : len === 2 ? 's' : len === 1 ? 'c' : 'i',
          attstorage: len === -1 ? 'x' : 'p',
          attcompression: '',
          attnotnull: a.notNull,
          atthasdef: a.default !== undefined,
          atthasmissing: false,
          attidentity: '',
          attgenerated: '',
          attisdropped: false,
          attislocal: true,
          attinhcount: 0,
          attcollation: isTextType(a.typid) ? DEFAULT_COLLATION : 0,
        }
      }),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_attrdef',
    oid: 2604,
    columns: columns('oid:oid adrelid:oid adnum:smallint adbin:pg_node_tree'),
    // adbin is the default's expression as written (pg_get_expr returns it)
    rows: (s) => attributeRows(s).flatMap((a) => (a.default === undefined ? [] : [{ oid: s.oidOf(`\u0000default ${a.relation.name}.${a.num}`), adrelid: a.relation.oid, adnum: a.num, adbin: a.default }])),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_type',
    oid: 1247,
    columns: columns(
      'oid:oid typname:name typnamespace:oid typowner:oid typlen:smallint typbyval:boolean typtype:"char" typcategory:"char" typispreferred:boolean typisdefined:boolean typdelim:"char" typrelid:oid typsubscript:regproc typelem:oid typarray:oid typinput:regproc typoutput:regproc typreceive:regproc typsend:regproc typmodin:regproc typmodout:regproc typanalyze:regproc typalign:"char" typstorage:"char" typnotnull:boolean typbasetype:oid typtypmod:integer typndims:integer typcollation:oid typdefaultbin:pg_node_tree typdefault:text typacl:aclitem[]',
    ),
    rows: () =>
      [...PG_TYPES, ...PG_ARRAY_TYPES].map((t) => ({
        oid: t.oid,
        typname: t.typname,
        typnamespace: NS.pg_catalog,
        typowner: OWNER_OID,
        typlen: t.typlen,
        typbyval: t.typlen > 0 && t.typlen <= 8,
        typtype: t.oid === 705 ? 'p' : 'b',
        typcategory: t.typcategory,
        typispreferred: t.oid === 25 || t.oid === 701 || t.oid === 16 || t.oid === 1184 || t.oid === 1186 || t.oid === 26,
        typisdefined: true,
        typdelim: ',',
        typrelid: 0,
        typelem: 'typelem' in t ? t.typelem : 0,
        typarray: PG_ARRAY_TYPES.find((a) => a.typelem === t.oid)?.oid ?? 0,
        typalign: t.typlen === 8 ? 'd' : t.typlen === 2 ? 's' : t.typlen === 1 ? 'c' : 'i',
        typstorage: t.typlen === -1 ? 'x' : 'p',
        typnotnull: false,
        typbasetype: 0,
        typtypmod: -1,
        typndims: 0,
        typcollation: isTextType(t.oid) || t.oid === 19 ? DEFAULT_COLLATION : 0,
      })),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_database',
    oid: 1262,
    columns: columns(
      'oid:oid datname:name datdba:oid encoding:integer datlocprovider:"char" datistemplate:boolean datallowconn:boolean datconnlimit:integer datfrozenxid:xid datminmxid:xid dattablespace:oid datcollate:text datctype:text daticulocale:text datcollversion:text datacl:aclitem[]',
    ),
    rows: (s) => [{ oid: DATABASE_OID, datname: databaseOf(s), datdba: OWNER_OID, encoding: 6, datlocprovider: 'c', datistemplate: false, datallowconn: true, datconnlimit: -1, datfrozenxid: 0, datminmxid: 1, dattablespace: 1663, datcollate: 'C', datctype: 'C' }],
  },
  {
    schema: 'pg_catalog',
    name: 'pg_roles',
    oid: 12000,
    columns: columns(
      'rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolconnlimit:integer rolpassword:text rolvaliduntil:timestamp with time zone rolbypassrls:boolean rolconfig:text[] oid:oid',
    ),
    rows: (s) => {
      const role = (rolname: string, oid: number): RowObject => ({ rolname, rolsuper: true, rolinherit: true, rolcreaterole: true, rolcreatedb: true, rolcanlogin: true, rolreplication: false, rolconnlimit: -1, rolpassword: '********', rolbypassrls: true, oid })
      const user = userOf(s)
      return user === OWNER ? [role(OWNER, OWNER_OID)] : [role(OWNER, OWNER_OID), role(user, s.oidOf(`\u0000role ${user}`))]
    },
  },
  {
    schema: 'pg_catalog',
    name: 'pg_index',
    oid: 2610,
    columns: columns(
      'indexrelid:oid indrelid:oid indnatts:smallint indnkeyatts:smallint indisunique:boolean indnullsnotdistinct:boolean indisprimary:boolean indisexclusion:boolean indimmediate:boolean indisclustered:boolean indisvalid:boolean indcheckxmin:boolean indisready:boolean indislive:boolean indisreplident:boolean indkey:int2vector indcollation:oidvector indclass:oidvector indoption:int2vector indexprs:pg_node_tree indpred:pg_node_tree',
    ),
    rows: (s) =>
      userRelations(s)
        .filter((r) => r.primaryKey.length > 0)
        .map((r) => ({
          indexrelid: s.oidOf(indexKey(r)),
          indrelid: s.oidOf(r.name),
          indnatts: r.primaryKey.length,
          indnkeyatts: r.primaryKey.length,
          indisunique: true,
          indnullsnotdistinct: false,
          indisprimary: true,
          indisexclusion: false,
          indimmediate: true,
          indisclustered: false,
          indisvalid: true,
          indcheckxmin: false,
          indisready: true,
          indislive: true,
          indisreplident: false,
          indkey: keyNumbers(r).join(' '),
          indoption: r.primaryKey.map(() => '0').join(' '),
        })),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_constraint',
    oid: 2606,
    columns: columns(
      'oid:oid conname:name connamespace:oid contype:"char" condeferrable:boolean condeferred:boolean convalidated:boolean conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid confupdtype:"char" confdeltype:"char" confmatchtype:"char" conislocal:boolean coninhcount:integer connoinherit:boolean conkey:smallint[] confkey:smallint[] conpfeqop:oid[] conppeqop:oid[] conffeqop:oid[] confdelsetcols:smallint[] conexclop:oid[] conbin:pg_node_tree',
    ),
    // primary keys only (the engine has no other constraints)
    rows: (s) =>
      userRelations(s)
        .filter((r) => r.primaryKey.length > 0)
        .map((r) => ({
          oid: s.oidOf(constraintKey(r)),
          conname: pkeyName(r),
          connamespace: schemaOid(s, schemaName(r)),
          contype: 'p',
          condeferrable: false,
          condeferred: false,
          convalidated: true,
          conrelid: s.oidOf(r.name),
          contypid: 0,
          conindid: s.oidOf(indexKey(r)),
          conparentid: 0,
          confrelid: 0,
          confupdtype: ' ',
          confdeltype: ' ',
          confmatchtype: ' ',
          conislocal: true,
          coninhcount: 0,
          connoinherit: true,
          conkey: `{${keyNumbers(r).join(',')}}`,
        })),
  },
  { schema: 'pg_catalog', name: 'pg_description', oid: 2609, columns: columns('objoid:oid classoid:oid objsubid:integer description:text'), rows: () => [] },
  // rivulet's own: the durable log, per relation (src/engine/durable-log.ts)
  { schema: 'pg_catalog', name: 'rivulet_log', oid: 16001, columns: columns('relation:text first_offset:bigint last_offset:bigint rows:bigint bytes:bigint'), rows: (s) => s.log().map((r) => ({ ...r })) },
  { schema: 'pg_catalog', name: 'rivulet_checkpoints', oid: 16002, columns: columns('tick:bigint log_seq:bigint offsets:text bytes:bigint millis:double precision taken_at:timestamp with time zone'), rows: (s) => s.checkpoints().map((r) => ({ ...r, taken_at: Date.parse(r.taken_at) * 1000 })) },
  {
    schema: 'pg_catalog',
    name: 'pg_settings',
    oid: 12104,
    columns: columns(
      'name:text setting:text unit:text category:text short_desc:text extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text[] boot_val:text reset_val:text sourcefile:text sourceline:integer pending_restart:boolean',
    ),
    rows: (s) => [...(s.identity.settings ?? DEFAULT_SETTINGS)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, setting]) => ({ name, setting, category: 'Ungrouped', context: 'user', vartype: 'string', source: 'default', boot_val: setting, reset_val: setting, pending_restart: false })),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_proc',
    oid: 1255,
    columns: columns(
      'oid:oid proname:name pronamespace:oid proowner:oid prolang:oid procost:real prorows:real provariadic:oid prosupport:regproc prokind:"char" prosecdef:boolean proleakproof:boolean proisstrict:boolean proretset:boolean provolatile:"char" proparallel:"char" pronargs:smallint pronargdefaults:smallint prorettype:oid proargtypes:oidvector proallargtypes:oid[] proargmodes:"char"[] proargnames:text[] proargdefaults:pg_node_tree protrftypes:oid[] prosrc:text probin:text prosqlbody:pg_node_tree proconfig:text[] proacl:aclitem[]',
    ),
    // the catalog functions of this file (the engine's other functions are not listed)
    rows: (s) =>
      CATALOG_FUNCTIONS.map(([proname, args, ret]) => ({ oid: procOid(s, proname), proname, pronamespace: NS.pg_catalog, proowner: OWNER_OID, prolang: 12, procost: 1, prorows: 0, provariadic: 0, prosupport: 0, prokind: 'f', prosecdef: false, proleakproof: false, proisstrict: true, proretset: false, provolatile: 's', proparallel: 's', pronargs: args.length, pronargdefaults: 0, prorettype: ret, proargtypes: args.join(' '), prosrc: proname })),
  },
  { schema: 'pg_catalog', name: 'pg_am', oid: 2601, columns: columns('oid:oid amname:name amhandler:regproc amtype:"char"'), rows: () => [{ oid: 2, amname: 'heap', amtype: 't' }, { oid: 403, amname: 'btree', amtype: 'i' }] },
  // the default collation only, which pg_attribute.attcollation names as pg_type's own: no row
  // is ever looked up (psql's \d shows a collation only when it differs from the type's)
  { schema: 'pg_catalog', name: 'pg_collation', oid: 3456, columns: columns('oid:oid collname:name collnamespace:oid collowner:oid collprovider:"char" collisdeterministic:boolean collencoding:integer collcollate:text collctype:text colliculocale:text collversion:text'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_inherits', oid: 2611, columns: columns('inhrelid:oid inhparent:oid inhseqno:integer inhdetachpending:boolean'), rows: () => [] },
  // what psql's \d NAME reads besides: no policies, extended statistics, publications,
  // triggers or rules; one role, who is a member of none; no tablespaces but the defaults
  { schema: 'pg_catalog', name: 'pg_policy', oid: 3256, columns: columns('oid:oid polname:name polrelid:oid polcmd:"char" polpermissive:boolean polroles:oid[] polqual:pg_node_tree polwithcheck:pg_node_tree'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_statistic_ext', oid: 3381, columns: columns('oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid stxstattarget:integer stxkeys:int2vector stxkind:"char"[] stxexprs:pg_node_tree'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_publication', oid: 6104, columns: columns('oid:oid pubname:name pubowner:oid puballtables:boolean pubinsert:boolean pubupdate:boolean pubdelete:boolean pubtruncate:boolean pubviaroot:boolean'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_publication_rel', oid: 6106, columns: columns('oid:oid prpubid:oid prrelid:oid prqual:pg_node_tree prattrs:int2vector'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_publication_namespace', oid: 6237, columns: columns('oid:oid pnpubid:oid pnnspid:oid'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_trigger', oid: 2620, columns: columns('oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:smallint tgenabled:"char" tgisinternal:boolean tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid tgdeferrable:boolean tginitdeferred:boolean tgnargs:smallint tgattr:int2vector tgargs:text tgqual:pg_node_tree tgoldtable:name tgnewtable:name'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_rewrite', oid: 2618, columns: columns('oid:oid rulename:name ev_class:oid ev_type:"char" ev_enabled:"char" is_instead:boolean ev_qual:pg_node_tree ev_action:pg_node_tree'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_auth_members', oid: 1261, columns: columns('roleid:oid member:oid grantor:oid admin_option:boolean'), rows: () => [] },
  {
    schema: 'pg_catalog',
    name: 'pg_language',
    oid: 2612,
    columns: columns('oid:oid lanname:name lanowner:oid lanispl:boolean lanpltrusted:boolean lanplcallfoid:oid laninline:oid lanvalidator:oid lanacl:aclitem[]'),
    rows: () => ['internal', 'c', 'sql'].map((lanname, i) => ({ oid: 12 + i, lanname, lanowner: OWNER_OID, lanispl: false, lanpltrusted: lanname === 'sql', lanplcallfoid: 0, laninline: 0, lanvalidator: 0 })),
  },
  {
    schema: 'pg_catalog',
    name: 'pg_tablespace',
    oid: 1213,
    columns: columns('oid:oid spcname:name spcowner:oid spcacl:aclitem[] spcoptions:text[]'),
    rows: () => [{ oid: 1663, spcname: 'pg_default', spcowner: OWNER_OID }, { oid: 1664, spcname: 'pg_global', spcowner: OWNER_OID }],
  },
  // no enum types, and no extensions (PostgreSQL's plpgsql among them)
  { schema: 'pg_catalog', name: 'pg_enum', oid: 3501, columns: columns('oid:oid enumtypid:oid enumsortorder:real enumlabel:name'), rows: () => [] },
  { schema: 'pg_catalog', name: 'pg_extension', oid: 3079, columns: columns('oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:boolean extversion:text extconfig:oid[] extcondition:text[]'), rows: () => [] },
  {
    schema: 'information_schema',
    name: 'schemata',
    oid: 13001,
    columns: columns('catalog_name:name schema_name:name schema_owner:name default_character_set_catalog:name default_character_set_schema:name default_character_set_name:name sql_path:character varying'),
    rows: (s) => allSchemas(s).map(([schema_name]) => ({ catalog_name: databaseOf(s), schema_name, schema_owner: OWNER })),
  },
  {
    schema: 'information_schema',
    name: 'tables',
    oid: 13002,
    columns: columns(
      'table_catalog:name table_schema:name table_name:name table_type:character varying self_referencing_column_name:name reference_generation:character varying user_defined_type_catalog:name user_defined_type_schema:name user_defined_type_name:name is_insertable_into:character varying is_typed:character varying commit_action:character varying',
    ),
    // as in PostgreSQL, materialized views are not listed (the standard has no such thing)
    rows: (s) => [
      ...SYSTEM_TABLES.map((t) => ({ table_catalog: databaseOf(s), table_schema: t.schema, table_name: t.name, table_type: 'VIEW', is_insertable_into: 'NO', is_typed: 'NO' })),
      ...userRelations(s)
        .filter((r) => r.kind !== 'materialized view')
        .map((r) => ({ table_catalog: databaseOf(s), table_schema: schemaName(r), table_name: bareName(r), table_type: r.kind === 'view' ? 'VIEW' : 'BASE TABLE', is_insertable_into: yesNo(r.kind !== 'view'), is_typed: 'NO' })),
    ],
  },
  {
    schema: 'information_schema',
    name: 'columns',
    oid: 13003,
    columns: columns(
      'table_catalog:name table_schema:name table_name:name column_name:name ordinal_position:integer column_default:character varying is_nullable:character varying data_type:character varying character_maximum_length:integer character_octet_length:integer numeric_precision:integer numeric_precision_radix:integer numeric_scale:integer datetime_precision:integer interval_type:character varying interval_precision:integer character_set_catalog:name character_set_schema:name character_set_name:name collation_catalog:name collation_schema:name collation_name:name domain_catalog:name domain_schema:name domain_name:name udt_catalog:name udt_schema:name udt_name:name scope_catalog:name scope_schema:name scope_name:name maximum_cardinality:integer dtd_identifier:name is_self_referencing:character varying is_identity:character varying identity_generation:character varying identity_start:character varying identity_increment:character varying identity_maximum:character varying identity_minimum:character varying identity_cycle:character varying is_generated:character varying generation_expression:character varying is_updatable:character varying',
    ),
    rows: (s) =>
      attributeRows(s)
        .filter((a) => a.relation.info !== undefined || a.relation.kind === 'v')
        .map((a) => {
          const t = PG_TYPE_BY_OID.get(a.typid)!
          const system = a.relation.info === undefined
          return {
            table_catalog: databaseOf(s),
            table_schema: system ? SYSTEM_BY_OID.get(a.relation.oid)!.schema : schemaName(a.relation.info!),
            table_name: a.relation.name,
            column_name: a.name,
            ordinal_position: a.num,
            column_default: a.default ?? null,
            is_nullable: yesNo(!a.notNull),
            data_type: t.display === '"char"' ? '"char"' : t.display,
            ...precisionOf(a.typid, a.typmod),
            ...(a.typid === 1186 ? { interval_type: null } : {}),
            udt_catalog: databaseOf(s),
            udt_schema: 'pg_catalog',
            udt_name: t.typname,
            dtd_identifier: String(a.num),
            is_self_referencing: 'NO',
            is_identity: 'NO',
            identity_cycle: 'NO',
            is_generated: 'NEVER',
            is_updatable: yesNo(a.relation.info !== undefined && a.relation.kind === 'r'),
          }
        }),
  },
  {
    schema: 'information_schema',
    name: 'views',
    oid: 13004,
    columns: columns(
      'table_catalog:name table_schema:name table_name:name view_definition:character varying check_option:character varying is_updatable:character varying is_insertable_into:character varying is_trigger_updatable:character varying is_trigger_deletable:character varying is_trigger_insertable_into:character varying',
    ),
    rows: (s) =>
      userRelations(s)
        .filter((r) => r.kind === 'view')
        .map((r) => ({ table_catalog: databaseOf(s), table_schema: schemaName(r), table_name: bareName(r), view_definition: r.definition ?? null, check_option: 'NONE', is_updatable: 'NO', is_insertable_into: 'NO', is_trigger_updatable: 'NO', is_trigger_deletable: 'NO', is_trigger_insertable_into: 'NO' })),
  },
  {
    schema: 'information_schema',
    name: 'key_column_usage',
    oid: 13005,
    columns: columns('constraint_catalog:name constraint_schema:name constraint_name:name table_catalog:name table_schema:name table_name:name column_name:name ordinal_position:integer position_in_unique_constraint:integer'),
    rows: (s) =>
      userRelations(s).flatMap((r) =>
        r.primaryKey.map((column_name, i) => ({ constraint_catalog: databaseOf(s), constraint_schema: schemaName(r), constraint_name: pkeyName(r), table_catalog: databaseOf(s), table_schema: schemaName(r), table_name: bareName(r), column_name, ordinal_position: i + 1 })),
      ),
  },
]

const SYSTEM_BY_OID = new Map(SYSTEM_TABLES.map((t) => [t.oid, t]))

/** The primary key's column numbers (attnum). */
function keyNumbers(r: RelationInfo): number[] {
  return r.primaryKey.map((k) => r.columns.findIndex((c) => c.name === k) + 1)
}

/** Settings shown by pg_settings for a session that passes none (the engine API). */
export const DEFAULT_SETTINGS: ReadonlyMap<string, string> = new Map([
  ['client_encoding', 'UTF8'],
  ['datestyle', 'ISO, MDY'],
  ['search_path', '"$user", public'],
  ['server_encoding', 'UTF8'],
  ['server_version', '15.0'],
  ['standard_conforming_strings', 'on'],
  ['timezone', 'UTC'],
])

export const userOf = (s: SystemCatalogSource): string => s.identity.user ?? OWNER
export const databaseOf = (s: SystemCatalogSource): string => s.identity.database ?? OWNER

// ---------------------------------------------------------------------------------- functions

/** The catalog functions of this file as pg_proc lists them: name, argument types and result
 *  type (type OIDs; one overload each, the one tools call). */
export const CATALOG_FUNCTIONS: readonly (readonly [string, readonly number[], number])[] = [
  ['col_description', [26, 23], 25],
  ['current_database', [], 19],
  ['current_schema', [], 19],
  ['current_setting', [25], 25],
  ['current_user', [], 19],
  ['format_type', [26, 23], 25],
  ['has_database_privilege', [25, 25], 16],
  ['has_schema_privilege', [25, 25], 16],
  ['has_table_privilege', [25, 25], 16],
  ['obj_description', [26, 19], 25],
  ['pg_backend_pid', [], 23],
  ['pg_encoding_to_char', [23], 19],
  ['pg_function_is_visible', [26], 16],
  ['pg_get_constraintdef', [26], 25],
  ['pg_get_expr', [194, 26], 25],
  ['pg_get_function_arguments', [26], 25],
  ['pg_get_function_identity_arguments', [26], 25],
  ['pg_get_function_result', [26], 25],
  ['pg_get_indexdef', [26], 25],
  ['pg_get_serial_sequence', [25, 25], 25],
  ['pg_get_statisticsobjdef_columns', [26], 25],
  ['pg_get_function_sqlbody', [26], 25],
  ['pg_tablespace_location', [26], 25],
  ['pg_get_ruledef', [26, 16], 25],
  ['pg_get_triggerdef', [26, 16], 25],
  ['pg_get_userbyid', [26], 19],
  ['pg_get_viewdef', [26], 25],
  ['pg_is_in_recovery', [], 16],
  ['pg_relation_is_publishable', [2205], 16],
  ['pg_database_size', [26], 20],
  ['pg_indexes_size', [2205], 20],
  ['pg_relation_size', [2205], 20],
  ['pg_table_size', [2205], 20],
  ['pg_tablespace_size', [26], 20],
  ['pg_total_relation_size', [2205], 20],
  ['pg_table_is_visible', [26], 16],
  ['pg_type_is_visible', [26], 16],
  ['quote_ident', [25], 25],
  ['session_user', [], 19],
  ['shobj_description', [26, 19], 25],
  ['version', [], 25],
]

export const procOid = (s: SystemCatalogSource, name: string): number => s.oidOf(`\u0000proc ${name}`)
