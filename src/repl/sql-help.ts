// `\h [NAME]`: help on the syntax of the SQL statements rivulet's parser accepts (grammar/
// parser.ts), laid out as psql 15's \h prints its own: with no argument the list of commands in
// columns, with a name `Command:` / `Description:` / `Syntax:`. Lookup follows psql's helpSQL:
// a command whose name is the topic, else every command whose name starts with it, else those
// starting with its first word; `*` shows them all.

interface SqlHelp {
  readonly cmd: string
  readonly description: string
  readonly syntax: string
}

const TRANSACTION_MODE = `

where transaction_mode is one of (accepted; transactions run one at a time):

    ISOLATION LEVEL { SERIALIZABLE | REPEATABLE READ | READ COMMITTED | READ UNCOMMITTED }
    READ WRITE | READ ONLY
    [ NOT ] DEFERRABLE`

const QUERY = `[ WITH [ RECURSIVE ] with_query [, ...] ]
SELECT [ ALL | DISTINCT [ ON ( expression [, ...] ) ] ]
    [ * | expression [ [ AS ] output_name ] [, ...] ]
    [ FROM from_item [, ...] ]
    [ WHERE condition ]
    [ GROUP BY expression [, ...] ]
    [ HAVING condition ]
    [ { UNION | INTERSECT | EXCEPT } [ ALL | DISTINCT ] select ]
    [ ORDER BY expression [ ASC | DESC ] [ NULLS { FIRST | LAST } ] [, ...] ]
    [ LIMIT { count | ALL } ]
    [ OFFSET start [ ROW | ROWS ] ]
    [ FETCH { FIRST | NEXT } [ count ] { ROW | ROWS } ONLY ]
    [ EMIT ON WINDOW CLOSE ]

where from_item can be one of:

    table_name [ FOR SYSTEM_TIME AS OF expression ] [ [ AS ] alias [ ( column_alias [, ...] ) ] ]
    [ LATERAL ] ( select ) [ AS ] alias [ ( column_alias [, ...] ) ]
    ( VALUES ( expression [, ...] ) [, ...] ) [ AS ] alias [ ( column_alias [, ...] ) ]
    [ LATERAL ] function_name ( [ argument [, ...] ] ) [ [ AS ] alias ]
    TUMBLE ( TABLE name, DESCRIPTOR ( time_column ), size [, offset ] )
    HOP ( TABLE name, DESCRIPTOR ( time_column ), slide, size [, offset ] )
    SESSION ( TABLE name [ PARTITION BY key ], DESCRIPTOR ( time_column ), gap )
    from_item [ NATURAL ] [ join_type ] JOIN from_item [ ON join_condition | USING ( join_column [, ...] ) ]
    from_item ASOF [ LEFT [ OUTER ] ] JOIN from_item ON join_condition
    from_item CROSS JOIN from_item

and join_type is one of:

    INNER | LEFT [ OUTER ] | RIGHT [ OUTER ] | FULL [ OUTER ]

and with_query is:

    with_query_name [ ( column_name [, ...] ) ] AS ( select )`

const DROP = (what: string): SqlHelp => ({
  cmd: `DROP ${what}`,
  description: `remove a ${what.toLowerCase()}`,
  syntax: `DROP ${what} [ IF EXISTS ] name [, ...] [ CASCADE | RESTRICT ]`,
})

const VIEW_SYNTAX = (materialized: boolean): string =>
  `CREATE [ OR REPLACE ] ${materialized ? 'MATERIALIZED ' : ''}VIEW [ IF NOT EXISTS ] name [ ( column_name [, ...] ) ]
    AS query`

/** The commands, sorted by name (as psql lists them). */
const HELP: readonly SqlHelp[] = [
  { cmd: 'ABORT', description: 'abort the current transaction', syntax: 'ABORT [ WORK | TRANSACTION ]' },
  { cmd: 'BEGIN', description: 'start a transaction block', syntax: `BEGIN [ WORK | TRANSACTION ] [ transaction_mode [, ...] ]${TRANSACTION_MODE}` },
  { cmd: 'CHECKPOINT', description: 'force a checkpoint of a durable engine (--data)', syntax: 'CHECKPOINT' },
  { cmd: 'COMMIT', description: 'commit the current transaction', syntax: 'COMMIT [ WORK | TRANSACTION ]' },
  {
    cmd: 'COPY',
    description: 'copy data between a file and a table',
    syntax: `COPY table_name [ ( column_name [, ...] ) ]
    FROM { 'filename' | STDIN }
    [ [ WITH ] ( option [, ...] ) ]

COPY { table_name [ ( column_name [, ...] ) ] | ( query ) | ( SUBSCRIBE ... ) }
    TO STDOUT
    [ [ WITH ] ( option [, ...] ) ]

where option can be one of:

    FORMAT { text | csv }
    HEADER [ boolean | MATCH ]
    DELIMITER 'delimiter_character'
    NULL 'null_string'
    QUOTE 'quote_character'
    ESCAPE 'escape_character'
    ON_ERROR { stop | ignore }
    MAX_REJECTED [ = ] count

FROM STDIN and TO STDOUT need a client: psql against rivulet serve, or \\copy here.`,
  },
  {
    cmd: 'CREATE INDEX',
    description: 'define a new index',
    syntax: `CREATE [ UNIQUE ] INDEX [ IF NOT EXISTS ] [ name ] ON table_name [ USING method ]
    [ ( expression [ ASC | DESC ] [ NULLS { FIRST | LAST } ] [, ...] ) ]
CREATE DEFAULT INDEX ON table_name`,
  },
  { cmd: 'CREATE MATERIALIZED VIEW', description: 'define a new materialized view, maintained incrementally', syntax: VIEW_SYNTAX(true) },
  {
    cmd: 'CREATE SINK',
    description: "define a sink: a query whose changes go to a connector",
    syntax: `CREATE SINK [ IF NOT EXISTS ] name { FROM relation_name | AS query }
    WITH ( connector = 'blackhole' [, option = value ...] )`,
  },
  {
    cmd: 'CREATE SOURCE',
    description: 'define a source: a connector that feeds streams',
    syntax: `CREATE SOURCE [ IF NOT EXISTS ] name
    WITH ( connector = 'nexmark' [, option = value ...] )

where the nexmark options are:

    events, rate, seed, out_of_order, batch, pace, retention, history`,
  },
  {
    cmd: 'CREATE STREAM',
    description: 'define a new stream (an append-only table with event time)',
    syntax: `CREATE STREAM [ IF NOT EXISTS ] name ( [
  { column_name data_type [ column_constraint [ ... ] ]
    | WATERMARK FOR column_name AS expression }
    [, ... ]
] ) [ WITH ( option [ = value ] [, ...] ) ] [ AS query ]

CREATE TABLE name ( ... ) APPEND ONLY is the same.
Options: retention = 'interval', retention_bytes = bytes, history = boolean, late_events_kept = count`,
  },
  {
    cmd: 'CREATE TABLE',
    description: 'define a new table',
    syntax: `CREATE TABLE [ IF NOT EXISTS ] table_name [ ( [
  { column_name data_type [ column_constraint [ ... ] ]
    | [ CONSTRAINT constraint_name ] PRIMARY KEY ( column_name [, ...] )
    | WATERMARK FOR column_name AS expression }
    [, ... ]
] ) ] [ APPEND ONLY ] [ WITH ( option [ = value ] [, ...] ) ] [ AS query ]

where column_constraint is:

[ CONSTRAINT constraint_name ]
{ NOT NULL | NULL | PRIMARY KEY | UNIQUE | DEFAULT expression }

Options: tombstone_retention = 'interval' (with a primary key: deleted keys kept that long in
rivulet_tombstones); with WATERMARK FOR: retention = 'interval', late_events_kept = count`,
  },
  {
    cmd: 'CREATE TRIGGER',
    description: 'define a new trigger (SQLite form)',
    syntax: `CREATE TRIGGER [ IF NOT EXISTS ] name [ BEFORE | AFTER | INSTEAD OF ]
    { INSERT | UPDATE [ OF column_name [, ...] ] | DELETE } ON table_name
    [ FOR EACH ROW ] [ WHEN condition ]
    BEGIN statement; [ ... ] END`,
  },
  { cmd: 'CREATE VIEW', description: 'define a new view', syntax: VIEW_SYNTAX(false) },
  { cmd: 'DELETE', description: 'delete rows of a table', syntax: 'DELETE FROM table_name [ [ AS ] alias ]\n    [ WHERE condition ]' },
  DROP('INDEX'),
  DROP('MATERIALIZED VIEW'),
  DROP('SINK'),
  DROP('SOURCE'),
  DROP('STREAM'),
  DROP('TABLE'),
  DROP('TRIGGER'),
  DROP('VIEW'),
  { cmd: 'END', description: 'commit the current transaction', syntax: 'END [ WORK | TRANSACTION ]' },
  {
    cmd: 'EXPLAIN',
    description: 'show the plan of a statement',
    syntax: `EXPLAIN [ VERBOSE ] [ LOGICAL | OPTIMIZED | DELTA | PHYSICAL ] [ PLAN ] [ FOR ] statement
EXPLAIN [ VERBOSE ] [ ANALYZE ] MATERIALIZED VIEW name`,
  },
  { cmd: 'FLUSH', description: 'run the bounded sources to their end', syntax: 'FLUSH' },
  {
    cmd: 'INSERT',
    description: 'create new rows in a table',
    syntax: `{ INSERT [ OR { REPLACE | IGNORE } ] | REPLACE } INTO table_name [ ( column_name [, ...] ) ]
    { VALUES ( expression [, ...] ) [, ...] | query }
    [ ON CONFLICT [ ( column_name [, ...] ) ] DO { NOTHING | UPDATE SET column_name = expression [, ...] [ WHERE condition ] } ]
    [ RETURNING * | output_expression [ [ AS ] output_name ] [, ...] ]`,
  },
  { cmd: 'REINDEX', description: 'rebuild indexes', syntax: 'REINDEX [ INDEX | TABLE ] [ name ]' },
  { cmd: 'ROLLBACK', description: 'abort the current transaction', syntax: 'ROLLBACK [ WORK | TRANSACTION ]' },
  { cmd: 'SELECT', description: 'retrieve rows from a table or view', syntax: QUERY },
  {
    cmd: 'SET',
    description: 'change a run-time parameter',
    syntax: `SET [ SESSION | LOCAL ] configuration_parameter { TO | = } { value | 'value' | DEFAULT } [, ...]
SET TIME ZONE { value | 'value' | LOCAL | DEFAULT }`,
  },
  {
    cmd: 'SHOW',
    description: 'show relations, columns, or the value of a run-time parameter',
    syntax: `SHOW { TABLES | STREAMS | VIEWS | MATERIALIZED VIEWS | SOURCES | SINKS }
SHOW COLUMNS FROM relation_name
SHOW name`,
  },
  { cmd: 'START TRANSACTION', description: 'start a transaction block', syntax: `START TRANSACTION [ transaction_mode [, ...] ]${TRANSACTION_MODE}` },
  {
    cmd: 'SUBSCRIBE',
    description: 'stream the rows of a relation or query, then every change as it happens',
    syntax: `SUBSCRIBE [ TO ] { relation_name | ( query ) } [ WITH ( SNAPSHOT [ = boolean ] ) ]

Each change is a row: tick | diff | columns... (diff +1 inserted, -1 retracted).`,
  },
  {
    cmd: 'UPDATE',
    description: 'update rows of a table',
    syntax: `UPDATE table_name [ [ AS ] alias ]
    SET column_name = expression [, ...]
    [ FROM from_item [, ...] ]
    [ WHERE condition ]`,
  },
  {
    cmd: 'VALUES',
    description: 'compute a set of rows',
    syntax: `VALUES ( expression [, ...] ) [, ...]
    [ ORDER BY sort_expression [ ASC | DESC ] [, ...] ]
    [ LIMIT { count | ALL } ]
    [ OFFSET start [ ROW | ROWS ] ]`,
  },
  { cmd: 'WITH', description: 'retrieve rows from a table or view', syntax: QUERY },
]

/** The command names \h knows (for completion and tests). */
export const SQL_HELP_COMMANDS: readonly string[] = HELP.map((h) => h.cmd)

function entry(h: SqlHelp): string {
  return `Command:     ${h.cmd}\nDescription: ${h.description}\nSyntax:\n${h.syntax}\n\n`
}

/** The command names in columns, column by column, as psql's helpSQL lays them out. */
function listing(width: number): string {
  const names = SQL_HELP_COMMANDS
  const maxLen = Math.max(...names.map((n) => n.length))
  const ncols = Math.max(1, Math.floor((width - 3) / (maxLen + 1)))
  const nrows = Math.ceil(names.length / ncols)
  let out = 'Available help:\n'
  for (let r = 0; r < nrows; r++) {
    let line = '  '
    for (let c = 0; c < ncols - 1; c++) line += (names[r + c * nrows] ?? '').padEnd(maxLen + 1)
    line += names[r + (ncols - 1) * nrows] ?? ''
    out += `${line}\n`
  }
  return `${out}\n`
}

/** `\h`: the list of commands, or help on the topic (the rest of the line). As psql: the
 *  topic, then its first two words, then its first word, each as a prefix of command names;
 *  a command named exactly so is shown alone. */
export function sqlHelp(topicText: string, width = 80): string {
  const topic = topicText.trim().replace(/\s+/g, ' ').replace(/\s*;$/, '')
  if (topic === '') return listing(width)
  if (topic === '*') return HELP.map(entry).join('')
  const words = topic.toUpperCase().split(' ')
  for (const n of new Set([words.length, Math.min(2, words.length), 1])) {
    const prefix = words.slice(0, n).join(' ')
    const exact = HELP.find((h) => h.cmd === prefix)
    if (exact) return entry(exact)
    const found = HELP.filter((h) => h.cmd.startsWith(prefix))
    if (found.length > 0) return found.map(entry).join('')
  }
  return `No help available for "${topic}".\nTry \\h with no arguments to see available help.\n`
}
