// The SQL abstract syntax tree: what the parser produces and the binder consumes. Plain data,
// a `kind` discriminant on every node, and a source span on every node so later layers can
// point at the offending text. Identifiers are already case-folded (unquoted → lower case).

/** Half-open character range [start, end) into the statement text, 0-based offsets. */
export interface Span {
  readonly start: number
  readonly end: number
}

// ---------------------------------------------------------------------------------- names

/** A possibly qualified name, e.g. `t`, `s.t`. Parts are case-folded unless quoted. */
export interface Name {
  readonly parts: readonly string[]
  readonly span: Span
}

// ---------------------------------------------------------------------------------- types

/** A type as written: name lower-cased and normalized (`int4`→`integer`, `varchar`…). */
export interface TypeName {
  /** One of: boolean, smallint, integer, bigint, real, double, numeric, text, varchar, char,
   *  date, timestamp, timestamptz, interval; also `time` (TIME '…' literals, TIME columns).
   *  Any other name is passed through lower-cased, as written (the binder rejects it). */
  readonly name: string
  /** Modifiers, e.g. NUMERIC(10, 2) → [10, 2], VARCHAR(20) → [20]. */
  readonly args: readonly number[]
  /** `integer[]`, `text[][]`, `int[3]`: the number of `[…]` after the name (absent: 0). */
  readonly arrayDimensions?: number
  readonly span: Span
}

// ---------------------------------------------------------------------------------- expressions

export type Expr =
  | LiteralExpr
  | ColumnRef
  | StarExpr
  | ParamExpr
  | UnaryExpr
  | BinaryExpr
  | IsExpr
  | BetweenExpr
  | InListExpr
  | InSubqueryExpr
  | ExistsExpr
  | SubqueryExpr
  | LikeExpr
  | CaseExpr
  | CastExpr
  | FuncCall
  | RowExpr
  | IntervalExpr
  | TypedLiteralExpr
  | ExtractExpr
  | ArrayExpr
  | ArraySubqueryExpr
  | SubscriptExpr
  | QuantifiedExpr

export type LiteralValue =
  | { readonly type: 'null' }
  | { readonly type: 'boolean'; readonly value: boolean }
  /** Integer literal as written (digits), so the binder can pick INT/BIGINT/NUMERIC. */
  | { readonly type: 'integer'; readonly text: string }
  /** Decimal or exponent literal as written, e.g. `1.5`, `2e3`. */
  | { readonly type: 'decimal'; readonly text: string }
  | { readonly type: 'string'; readonly value: string }

export interface LiteralExpr {
  readonly kind: 'literal'
  readonly value: LiteralValue
  readonly span: Span
}

/** `TIMESTAMP '2024-01-01 00:00:00'`, `DATE '2024-01-01'`: a string literal with a type prefix. */
export interface TypedLiteralExpr {
  readonly kind: 'typedLiteral'
  readonly type: TypeName
  readonly value: string
  readonly span: Span
}

/** `INTERVAL '5' SECOND`, `INTERVAL '1 hour'`, `INTERVAL '1' DAY TO HOUR` (unit optional). */
export interface IntervalExpr {
  readonly kind: 'interval'
  /** The quoted text, e.g. '5' or '1 hour 30 minutes'. */
  readonly value: string
  /** Lower-case unit keyword if one follows: year, month, day, hour, minute, second. */
  readonly unit: string | undefined
  /** For `DAY TO SECOND` style qualifiers, the trailing unit. */
  readonly toUnit: string | undefined
  readonly span: Span
}

/** `col`, `t.col`, `s.t.col`. */
export interface ColumnRef {
  readonly kind: 'column'
  /** Qualifier parts (may be empty) followed by the column name as the last part. */
  readonly parts: readonly string[]
  readonly span: Span
}

/** `*` or `t.*` in a select list or COUNT(*). */
export interface StarExpr {
  readonly kind: 'star'
  readonly qualifier: readonly string[] | undefined
  readonly span: Span
}

/** `$1` positional parameter (wire protocol, later). */
export interface ParamExpr {
  readonly kind: 'param'
  readonly index: number
  readonly span: Span
}

export type UnaryOp = 'not' | '-' | '+' | '~'

export interface UnaryExpr {
  readonly kind: 'unary'
  readonly op: UnaryOp
  readonly operand: Expr
  readonly span: Span
}

export type BinaryOp =
  | 'or'
  | 'and'
  | '='
  | '<>'
  | '<'
  | '<='
  | '>'
  | '>='
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '^'
  | '||'
  | '&'
  | '|'
  | '#'
  | '<<'
  | '>>'
  | '~'
  | '~*'
  | '!~'
  | '!~*'
  | '->'
  | '->>'
  | '#>'
  | '#>>'
  | '#-'
  | '@>'
  | '<@'
  | '?'
  | '?|'
  | '?&'
  | 'is distinct from'
  | 'is not distinct from'

export interface BinaryExpr {
  readonly kind: 'binary'
  readonly op: BinaryOp
  readonly left: Expr
  readonly right: Expr
  readonly span: Span
}

/** `x IS [NOT] NULL | TRUE | FALSE | UNKNOWN` (also SQLite's postfix `x NOT NULL`). */
export interface IsExpr {
  readonly kind: 'is'
  readonly operand: Expr
  readonly test: 'null' | 'true' | 'false' | 'unknown'
  readonly negated: boolean
  readonly span: Span
}

export interface BetweenExpr {
  readonly kind: 'between'
  readonly operand: Expr
  readonly low: Expr
  readonly high: Expr
  readonly negated: boolean
  /** BETWEEN SYMMETRIC */
  readonly symmetric: boolean
  readonly span: Span
}

export interface InListExpr {
  readonly kind: 'inList'
  readonly operand: Expr
  readonly list: readonly Expr[]
  readonly negated: boolean
  readonly span: Span
}

/** `x [NOT] IN (SELECT ...)`; `operand` may be a RowExpr for `(a, b) IN (SELECT ...)`. */
export interface InSubqueryExpr {
  readonly kind: 'inSubquery'
  readonly operand: Expr
  readonly query: Query
  readonly negated: boolean
  readonly span: Span
}

export interface ExistsExpr {
  readonly kind: 'exists'
  readonly query: Query
  readonly span: Span
}

/** Scalar subquery `(SELECT ...)` in expression position. */
export interface SubqueryExpr {
  readonly kind: 'subquery'
  readonly query: Query
  readonly span: Span
}

export interface LikeExpr {
  readonly kind: 'like'
  readonly operand: Expr
  readonly pattern: Expr
  readonly escape: Expr | undefined
  readonly negated: boolean
  /** ILIKE */
  readonly caseInsensitive: boolean
  readonly span: Span
}

export interface CaseExpr {
  readonly kind: 'case'
  /** `CASE x WHEN ...` form; undefined for searched CASE. */
  readonly operand: Expr | undefined
  readonly whens: readonly { readonly when: Expr; readonly then: Expr }[]
  readonly else: Expr | undefined
  readonly span: Span
}

/** `CAST(x AS t)` and `x::t`. */
export interface CastExpr {
  readonly kind: 'cast'
  readonly operand: Expr
  readonly type: TypeName
  /** true for the `::` spelling (printed back the same way). */
  readonly shorthand: boolean
  readonly span: Span
}

/** `EXTRACT(field FROM x)`. */
export interface ExtractExpr {
  readonly kind: 'extract'
  readonly field: string
  readonly operand: Expr
  readonly span: Span
}

export interface OrderItem {
  readonly expr: Expr
  readonly desc: boolean
  /** undefined = default (NULLS LAST for ASC, NULLS FIRST for DESC, as Postgres). */
  readonly nullsFirst: boolean | undefined
  readonly span: Span
}

/** `OVER (PARTITION BY ... ORDER BY ... [frame])`, `OVER w` or `OVER (w ORDER BY ...)`. */
export interface WindowSpec {
  /** The named window (`WINDOW w AS (...)`) this one copies and extends. */
  readonly base?: string | undefined
  readonly partitionBy: readonly Expr[]
  readonly orderBy: readonly OrderItem[]
  readonly frame?: WindowFrame | undefined
  readonly span: Span
}

/** `ROWS | RANGE BETWEEN start AND end`; `ROWS start` alone ends at CURRENT ROW. */
export interface WindowFrame {
  readonly mode: 'rows' | 'range'
  readonly start: FrameBound
  readonly end: FrameBound
  readonly span: Span
}

export type FrameBound =
  | { readonly kind: 'unboundedPreceding' | 'unboundedFollowing' | 'currentRow'; readonly span: Span }
  | { readonly kind: 'preceding' | 'following'; readonly offset: Expr; readonly span: Span }

/** `WINDOW name AS (...)` in a SELECT. */
export interface NamedWindow {
  readonly name: string
  readonly spec: WindowSpec
  readonly span: Span
}

/** Function or aggregate call, e.g. `COUNT(DISTINCT x)`, `STRING_AGG(s, ',' ORDER BY s)`,
 *  `ROW_NUMBER() OVER (...)`, `COALESCE(a, b)`, `NULLIF(a, b)`. `COUNT(*)` has a StarExpr arg.
 *  Special syntax is normalized to plain calls: `POSITION(a IN b)` → position(b, a) (Postgres'
 *  argument order, as strpos); `SUBSTRING(s FROM a [FOR n])` → substring(s, a[, n]) and
 *  `SUBSTRING(s FOR n)` → substring(s, 1, n); `TRIM([BOTH|LEADING|TRAILING] [c] FROM s)` →
 *  btrim/ltrim/rtrim(s[, c]); CURRENT_DATE, CURRENT_TIMESTAMP, CURRENT_TIME, LOCALTIMESTAMP,
 *  LOCALTIME → a call with no args. */
export interface FuncCall {
  readonly kind: 'func'
  /** Lower-case, possibly qualified name (e.g. ['count'] or ['pg_catalog', 'now']). */
  readonly name: readonly string[]
  readonly args: readonly Expr[]
  readonly distinct: boolean
  /** ORDER BY inside the argument list (STRING_AGG). */
  readonly orderBy: readonly OrderItem[]
  /** `WITHIN GROUP (ORDER BY …)` of an ordered-set aggregate (percentile_cont, mode, …); the
   *  arguments are then its direct arguments (the fraction). */
  readonly withinGroup?: readonly OrderItem[]
  readonly filter: Expr | undefined
  readonly over: WindowSpec | undefined
  readonly span: Span
}

/** `ARRAY[a, b, …]`: an array of the items (`ARRAY[[1, 2], [3, 4]]` nests ArrayExprs). */
export interface ArrayExpr {
  readonly kind: 'array'
  readonly items: readonly Expr[]
  readonly span: Span
}

/** `ARRAY(SELECT …)`: the subquery's one column as an array, in the subquery's order. */
export interface ArraySubqueryExpr {
  readonly kind: 'arraySubquery'
  readonly query: Query
  readonly span: Span
}

/** `a[i]`: the element at subscript i (1-based). */
export interface SubscriptExpr {
  readonly kind: 'subscript'
  readonly operand: Expr
  readonly index: Expr
  readonly span: Span
}

/** `x op ANY (array)`, `x op SOME (…)`, `x op ALL (…)`, with an array expression or a
 *  subquery. */
export interface QuantifiedExpr {
  readonly kind: 'quantified'
  readonly op: '=' | '<>' | '<' | '>' | '<=' | '>='
  readonly quantifier: 'any' | 'all'
  readonly operand: Expr
  /** The array, or undefined when `query` is given. */
  readonly array: Expr | undefined
  readonly query: Query | undefined
  readonly span: Span
}

/** `(a, b)` / `ROW(a, b)` row constructor. */
export interface RowExpr {
  readonly kind: 'row'
  readonly items: readonly Expr[]
  readonly explicit: boolean
  readonly span: Span
}

// ---------------------------------------------------------------------------------- queries

export interface SelectItem {
  readonly expr: Expr
  /** Alias (with or without AS). */
  readonly alias: string | undefined
  readonly span: Span
}

export type TableRef = NamedTableRef | SubqueryTableRef | JoinTableRef | FunctionTableRef | ValuesTableRef

export interface TableAlias {
  readonly name: string
  /** Optional column aliases `AS t(a, b)`. */
  readonly columns: readonly string[]
}

export interface NamedTableRef {
  readonly kind: 'table'
  readonly name: Name
  readonly alias: TableAlias | undefined
  /** `FOR SYSTEM_TIME AS OF expr` (temporal joins; later issue). */
  readonly asOf: Expr | undefined
  readonly span: Span
}

export interface SubqueryTableRef {
  readonly kind: 'subquery'
  readonly query: Query
  readonly alias: TableAlias | undefined
  readonly lateral: boolean
  readonly span: Span
}

/** `(VALUES (1, 2), (3, 4)) AS t(a, b)` in FROM. */
export interface ValuesTableRef {
  readonly kind: 'values'
  readonly values: ValuesBody
  readonly alias: TableAlias | undefined
  readonly span: Span
}

/** Table function in FROM, e.g. `TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)`
 *  (windows are a later issue; the parser accepts the call form now). Args that are
 *  `TABLE x` or `DESCRIPTOR(c)` are represented with the dedicated arg kinds. */
export interface FunctionTableRef {
  readonly kind: 'function'
  readonly name: readonly string[]
  readonly args: readonly TableFunctionArg[]
  readonly alias: TableAlias | undefined
  readonly span: Span
}

export type TableFunctionArg =
  | { readonly kind: 'expr'; readonly expr: Expr }
  | { readonly kind: 'table'; readonly name: Name; readonly partitionBy: readonly Expr[]; readonly span: Span }
  | { readonly kind: 'descriptor'; readonly columns: readonly string[]; readonly span: Span }

/** `asof` / `asof left`: ASOF [LEFT] JOIN (the nearest right row in time). */
export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'cross' | 'asof' | 'asof left'

export interface JoinTableRef {
  readonly kind: 'join'
  readonly type: JoinType
  readonly left: TableRef
  readonly right: TableRef
  /** ON condition (undefined for CROSS / comma / NATURAL / USING). */
  readonly on: Expr | undefined
  readonly using: readonly string[] | undefined
  readonly natural: boolean
  /** true when written as a comma in FROM (printed back as a comma). */
  readonly comma: boolean
  readonly span: Span
}

/** `ROLLUP (…)`, `CUBE (…)` and `GROUPING SETS (…)` in GROUP BY, each a list of grouping
 *  sets. A parenthesized list `(a, b)` among the elements (an implicit row) is one element of
 *  several expressions, `()` (an implicit row of none) the empty set. The elements of ROLLUP
 *  and CUBE are expressions; GROUPING SETS also nests ROLLUP, CUBE and GROUPING SETS. */
export interface GroupingSetsItem {
  readonly kind: 'groupingSets'
  readonly form: 'rollup' | 'cube' | 'sets'
  readonly elements: readonly GroupByItem[]
  readonly span: Span
}

/** A GROUP BY item: an expression (an implicit row `(a, b)` is its expressions, as in
 *  PostgreSQL) or a list of grouping sets. */
export type GroupByItem = Expr | GroupingSetsItem

export interface SelectBody {
  readonly kind: 'select'
  readonly distinct: boolean
  /** `DISTINCT ON (exprs)` */
  readonly distinctOn: readonly Expr[] | undefined
  readonly items: readonly SelectItem[]
  /** Empty when there is no FROM. A comma list is folded into `join` nodes with comma=true. */
  readonly from: TableRef | undefined
  readonly where: Expr | undefined
  readonly groupBy: readonly GroupByItem[]
  /** `GROUP BY DISTINCT`: duplicate grouping sets are removed (PostgreSQL 14). */
  readonly groupByDistinct?: boolean
  readonly having: Expr | undefined
  /** `WINDOW w AS (...), ...` */
  readonly windows?: readonly NamedWindow[] | undefined
  readonly span: Span
}

export interface ValuesBody {
  readonly kind: 'values'
  readonly rows: readonly (readonly Expr[])[]
  readonly span: Span
}

export type SetOp = 'union' | 'intersect' | 'except'

export interface SetOpBody {
  readonly kind: 'setOp'
  readonly op: SetOp
  /** UNION ALL etc.; false = DISTINCT semantics. */
  readonly all: boolean
  readonly left: QueryBody
  readonly right: QueryBody
  readonly span: Span
}

/** A parenthesised query used as a set-operation operand, e.g. `(SELECT ... LIMIT 1) UNION ...`. */
export interface NestedQueryBody {
  readonly kind: 'nested'
  readonly query: Query
  readonly span: Span
}

export type QueryBody = SelectBody | ValuesBody | SetOpBody | NestedQueryBody

export interface Cte {
  readonly name: string
  readonly columns: readonly string[]
  readonly query: Query
  readonly span: Span
}

/** A full query: WITH + body + ORDER BY / LIMIT / OFFSET. */
export interface Query {
  readonly kind: 'query'
  readonly with: readonly Cte[]
  readonly recursive: boolean
  readonly body: QueryBody
  readonly orderBy: readonly OrderItem[]
  readonly limit: Expr | undefined
  /** `FETCH FIRST n ROWS WITH TIES`: `limit` is n, and the rows tied with the n-th in ORDER BY
   *  come too. */
  readonly withTies: boolean
  readonly offset: Expr | undefined
  /** `EMIT ON WINDOW CLOSE` after the query (later issue; parsed now). */
  readonly emitOnWindowClose: boolean
  readonly span: Span
}

// ---------------------------------------------------------------------------------- DDL

export interface ColumnDef {
  readonly name: string
  readonly type: TypeName
  readonly notNull: boolean
  readonly primaryKey: boolean
  readonly unique: boolean
  readonly default: Expr | undefined
  readonly span: Span
}

/** `WATERMARK FOR ts AS ts - INTERVAL '5' SECOND` inside a column list. */
export interface WatermarkDef {
  readonly column: string
  readonly expr: Expr
  readonly span: Span
}

/** `WITH (key = value, ...)` options. `name` is lower-cased (dotted names joined with '.',
 *  a quoted 'key' taken as is); `value` is the parsed expression (a bare word is a ColumnRef). */
export interface WithOption {
  readonly name: string
  readonly value: Expr | undefined
  readonly span: Span
}

/** `CREATE SOURCE [IF NOT EXISTS] name WITH (connector = '…', …)`: a connector that feeds
 *  relations it creates (the nexmark generator creates person, auction and bid). */
export interface CreateSourceStmt {
  readonly kind: 'createSource'
  readonly name: Name
  readonly ifNotExists: boolean
  readonly with: readonly WithOption[]
  readonly span: Span
}

/** `CREATE SINK [IF NOT EXISTS] name { FROM relation | AS query } WITH (connector = '…', …)`:
 *  a query whose changes go to a connector tick by tick; unlike a materialized view it keeps
 *  no copy of its result. */
export interface CreateSinkStmt {
  readonly kind: 'createSink'
  readonly name: Name
  readonly ifNotExists: boolean
  readonly from: Name | undefined
  readonly query: Query | undefined
  readonly with: readonly WithOption[]
  readonly span: Span
}

export interface CreateTableStmt {
  readonly kind: 'createTable'
  readonly name: Name
  readonly columns: readonly ColumnDef[]
  /** Table-level `PRIMARY KEY (a, b)`; column-level PRIMARY KEY appears in ColumnDef. */
  readonly primaryKey: readonly string[] | undefined
  readonly watermark: WatermarkDef | undefined
  /** CREATE STREAM or CREATE TABLE ... APPEND ONLY */
  readonly stream: boolean
  /** APPEND ONLY was written (then `stream` is true as well). */
  readonly appendOnly: boolean
  readonly ifNotExists: boolean
  readonly with: readonly WithOption[]
  /** CREATE TABLE t AS query (optional) */
  readonly asQuery: Query | undefined
  readonly span: Span
}

export interface CreateViewStmt {
  readonly kind: 'createView'
  readonly name: Name
  readonly columns: readonly string[]
  readonly materialized: boolean
  readonly orReplace: boolean
  readonly ifNotExists: boolean
  readonly query: Query
  readonly span: Span
}

export interface CreateIndexStmt {
  readonly kind: 'createIndex'
  readonly name: string | undefined
  readonly table: Name
  readonly columns: readonly Expr[]
  readonly unique: boolean
  readonly ifNotExists: boolean
  readonly span: Span
}

export type DropObjectKind = 'table' | 'stream' | 'view' | 'materialized view' | 'index' | 'source' | 'sink' | 'trigger' | 'schema'

/** `CREATE SCHEMA [IF NOT EXISTS] name`. */
export interface CreateSchemaStmt {
  readonly kind: 'createSchema'
  readonly name: string
  readonly ifNotExists: boolean
  readonly span: Span
}

/** One action of ALTER TABLE. */
export type AlterTableAction =
  /** `ADD [COLUMN] [IF NOT EXISTS] column_def` */
  | { readonly kind: 'addColumn'; readonly column: ColumnDef; readonly ifNotExists: boolean; readonly span: Span }
  /** `DROP [COLUMN] [IF EXISTS] name [CASCADE | RESTRICT]` */
  | { readonly kind: 'dropColumn'; readonly column: string; readonly ifExists: boolean; readonly cascade: boolean; readonly span: Span }
  /** `RENAME [COLUMN] name TO new_name` */
  | { readonly kind: 'renameColumn'; readonly column: string; readonly to: string; readonly span: Span }
  /** `RENAME TO new_name` */
  | { readonly kind: 'renameTable'; readonly to: string; readonly span: Span }

/** `ALTER TABLE [IF EXISTS] [ONLY] name action [, action …]` (a RENAME is the only action). */
export interface AlterTableStmt {
  readonly kind: 'alterTable'
  readonly table: Name
  readonly ifExists: boolean
  readonly actions: readonly AlterTableAction[]
  readonly span: Span
}

/** `TRUNCATE [TABLE] [ONLY] name [, …] [CONTINUE IDENTITY | RESTART IDENTITY] [CASCADE | RESTRICT]`. */
export interface TruncateStmt {
  readonly kind: 'truncate'
  readonly tables: readonly Name[]
  readonly span: Span
}

export interface DropStmt {
  readonly kind: 'drop'
  readonly object: DropObjectKind
  readonly names: readonly Name[]
  readonly ifExists: boolean
  readonly cascade: boolean
  readonly span: Span
}

// ---------------------------------------------------------------------------------- DML

export interface InsertStmt {
  readonly kind: 'insert'
  /** SQLite's conflict clause: `INSERT OR REPLACE` / `REPLACE INTO` ('replace': a row whose
   *  primary key exists replaces the stored row) and `INSERT OR IGNORE` ('ignore': such a row
   *  is skipped). Undefined for a plain INSERT. */
  readonly or: 'replace' | 'ignore' | undefined
  /** Written `REPLACE INTO` (then `or` is 'replace'); printed back the same way. */
  readonly replaceInto: boolean
  readonly table: Name
  readonly columns: readonly string[] | undefined
  /** VALUES or SELECT (a VALUES body is wrapped in a Query). */
  readonly source: Query
  /** `ON CONFLICT (cols) DO UPDATE SET ... | DO NOTHING` upserts. */
  readonly onConflict: OnConflict | undefined
  readonly returning: readonly SelectItem[] | undefined
  readonly span: Span
}

export interface OnConflict {
  readonly target: readonly string[]
  /** undefined = DO NOTHING */
  readonly set: readonly Assignment[] | undefined
  readonly where: Expr | undefined
  readonly span: Span
}

export interface Assignment {
  readonly column: string
  readonly value: Expr
  readonly span: Span
}

export interface UpdateStmt {
  readonly kind: 'update'
  readonly table: Name
  readonly alias: string | undefined
  readonly set: readonly Assignment[]
  readonly from: TableRef | undefined
  readonly where: Expr | undefined
  readonly span: Span
}

export interface DeleteStmt {
  readonly kind: 'delete'
  readonly table: Name
  readonly alias: string | undefined
  readonly where: Expr | undefined
  readonly span: Span
}

// ---------------------------------------------------------------------------------- other

export interface SelectStmt {
  readonly kind: 'select'
  readonly query: Query
  readonly span: Span
}

export interface TransactionStmt {
  readonly kind: 'transaction'
  readonly action: 'begin' | 'commit' | 'rollback'
  readonly span: Span
}

export interface ExplainStmt {
  readonly kind: 'explain'
  /** Optional stage word: logical | optimized | delta | physical (default: delta plan).
   *  `view` for `EXPLAIN [VERBOSE] MATERIALIZED VIEW v`: then `statement` is the synthetic
   *  `SELECT * FROM v` (all its spans are the span of the name `v`); `analyze` for
   *  `EXPLAIN ANALYZE MATERIALIZED VIEW v` (the same, with state sizes instead of operator
   *  ids). */
  readonly stage: string | undefined
  readonly verbose: boolean
  readonly statement: Statement
  readonly span: Span
}

/** `SHOW TABLES | VIEWS | MATERIALIZED VIEWS | COLUMNS FROM t | CREATE ... | <variable>`. */
export interface ShowStmt {
  readonly kind: 'show'
  /** Words after SHOW, lower-cased, e.g. ['tables'] or ['columns', 'from']. */
  readonly what: readonly string[]
  readonly target: Name | undefined
  readonly span: Span
}

/** `SET name = value` / `SET name TO value | DEFAULT` (the engine accepts and ignores it; a
 *  server session keeps it). `SET NAMES x` is `client_encoding`, `SET TIME ZONE x` is
 *  `timezone`; `SET [SESSION] TRANSACTION …`, `SET SESSION CHARACTERISTICS …`, `SET ROLE …` and
 *  `SET SESSION AUTHORIZATION …` have those words as their name (lower-cased, space-separated)
 *  and the rest of the statement's words as the value. */
export interface SetStmt {
  readonly kind: 'set'
  readonly name: string
  /** undefined for DEFAULT */
  readonly value: string | undefined
  readonly span: Span
}

/** `CHECKPOINT`: a checkpoint of the engine's state now (PostgreSQL's statement). */
export interface CheckpointStmt {
  readonly kind: 'checkpoint'
  readonly span: Span
}

/** `REINDEX [INDEX | TABLE] name`, SQLite's `REINDEX name` and bare `REINDEX` (a no-op that
 *  checks the name: indexes never change a result). */
export interface ReindexStmt {
  readonly kind: 'reindex'
  /** The object word as written; undefined for SQLite's bare `REINDEX name` / `REINDEX`. */
  readonly object: 'index' | 'table' | undefined
  readonly name: Name | undefined
  readonly span: Span
}

/** SQLite's `CREATE TRIGGER [IF NOT EXISTS] name [BEFORE | AFTER | INSTEAD OF]
 *  {INSERT | UPDATE [OF col, …] | DELETE} ON table [FOR EACH ROW] [WHEN expr]
 *  BEGIN stmt; … END`. */
export interface CreateTriggerStmt {
  readonly kind: 'createTrigger'
  readonly name: Name
  readonly ifNotExists: boolean
  /** As written; undefined when omitted (SQLite's default is BEFORE). */
  readonly timing: 'before' | 'after' | 'instead of' | undefined
  readonly event: 'insert' | 'update' | 'delete'
  /** `UPDATE OF a, b`; empty for any column (and for INSERT / DELETE). */
  readonly columns: readonly string[]
  readonly table: Name
  readonly forEachRow: boolean
  readonly when: Expr | undefined
  /** The statements between BEGIN and END (at least one). */
  readonly body: readonly Statement[]
  readonly span: Span
}

/** `FLUSH` */
export interface FlushStmt {
  readonly kind: 'flush'
  readonly span: Span
}

/** `SUBSCRIBE [TO] name | (query) [WITH (SNAPSHOT = false)]` (later issue; parsed now). */
export interface SubscribeStmt {
  readonly kind: 'subscribe'
  readonly target: Name | undefined
  readonly query: Query | undefined
  readonly with: readonly WithOption[]
  readonly span: Span
}

/** `COPY t [(col, …)] FROM 'file' | STDIN [[WITH] (option [value], …)]` and `COPY t [(col, …)] |
 *  (query) TO 'file' | STDOUT …` (the engine loads files; STDIN / STDOUT belong to the server).
 *  Postgres' older option spellings after the file (`CSV`, `HEADER`, `BINARY`, `DELIMITER [AS]
 *  'c'`, `NULL [AS] 's'`, `QUOTE [AS] 'c'`, `ESCAPE [AS] 'c'`, optionally after WITH) are parsed
 *  into the same option list: `CSV` → `FORMAT csv`, `BINARY` → `FORMAT binary`. */
export interface CopyStmt {
  readonly kind: 'copy'
  /** The table (undefined for `COPY (query) TO …`). */
  readonly table: Name | undefined
  readonly query: Query | undefined
  /** The column list, if written. */
  readonly columns: readonly string[] | undefined
  readonly direction: 'from' | 'to'
  /** `COPY (SUBSCRIBE …) TO STDOUT`: the changes of a subscription as COPY data. */
  readonly subscribe: SubscribeStmt | undefined
  /** The file name as written; undefined for STDIN / STDOUT. */
  readonly file: string | undefined
  readonly options: readonly CopyOption[]
  readonly span: Span
}

/** One COPY option: `FORMAT csv`, `HEADER`, `DELIMITER ';'`, `max_rejected = 10`. `name` is
 *  lower-cased (a quoted name taken as is). */
export interface CopyOption {
  readonly name: string
  /** A string literal, a number as written (`-1`, `2.5`) or a word (lower-cased unless
   *  quoted); undefined when only the name is given. */
  readonly value: { readonly kind: 'string' | 'number' | 'word'; readonly text: string } | undefined
  readonly span: Span
}

/** A statement of a client session, run by the server around the engine (the engine refuses
 *  it): cursors (DECLARE, FETCH, CLOSE), RESET, DEALLOCATE, DISCARD ALL, UNLISTEN. */
export interface SessionStmt {
  readonly kind: 'session'
  readonly command: SessionCommand
  readonly span: Span
}

export type SessionCommand =
  /** `DECLARE name [NO SCROLL | INSENSITIVE | ASENSITIVE]… CURSOR [WITHOUT HOLD] FOR query |
   *  SUBSCRIBE …` */
  | { readonly type: 'declare'; readonly name: string; readonly query: Query | undefined; readonly subscribe: SubscribeStmt | undefined }
  /** `FETCH [FORWARD | NEXT] [n | ALL] [FROM | IN] name [WITH (timeout = '1s')]`; count
   *  undefined for ALL */
  | { readonly type: 'fetch'; readonly name: string; readonly count: number | undefined; readonly options: readonly WithOption[] }
  /** `CLOSE name | ALL` (undefined: ALL) */
  | { readonly type: 'close'; readonly name: string | undefined }
  /** `RESET name | ALL` (undefined: ALL) */
  | { readonly type: 'reset'; readonly name: string | undefined }
  /** `DEALLOCATE [PREPARE] name | ALL` (undefined: ALL) */
  | { readonly type: 'deallocate'; readonly name: string | undefined }
  | { readonly type: 'discard' }
  | { readonly type: 'unlisten' }

export type Statement =
  | SessionStmt
  | SelectStmt
  | InsertStmt
  | UpdateStmt
  | DeleteStmt
  | CreateTableStmt
  | CreateViewStmt
  | CreateIndexStmt
  | DropStmt
  | TransactionStmt
  | ExplainStmt
  | ShowStmt
  | SetStmt
  | FlushStmt
  | SubscribeStmt
  | ReindexStmt
  | CheckpointStmt
  | CreateTriggerStmt
  | CopyStmt
  | CreateSourceStmt
  | CreateSinkStmt
  | CreateSchemaStmt
  | AlterTableStmt
  | TruncateStmt

/** One parsed statement plus the text it came from (for error carets and EXPLAIN). */
export interface ParsedStatement {
  readonly statement: Statement
  /** The source text of this statement alone (without the trailing `;`). */
  readonly text: string
  /** Offset of `text` within the whole input passed to parse(). */
  readonly offset: number
}
