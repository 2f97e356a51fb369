// Targeted parser behaviour: the AST shapes other layers rely on (precedence, folding,
// normalization, special forms, spans) for inputs that are not in canonical form.

import { describe, expect, it } from 'vitest'
import { SqlParser } from '../../grammar/parser.js'
import {
  RivuletError,
  parse,
  parseExpression,
  printExpr,
  printStatement,
  printTypeName,
  type CreateTableStmt,
  type Expr,
  type ExplainStmt,
  type Query,
  type SelectBody,
  type Statement,
} from '../../grammar/index.js'
import { stripSpans } from './helpers.js'

const one = (sql: string): Statement => {
  const r = parse(sql)
  expect(r.length).toBe(1)
  return r[0]!.statement
}
const query = (sql: string): Query => {
  const s = one(sql)
  if (s.kind !== 'select') throw new Error(`not a select: ${s.kind}`)
  return s.query
}
const select = (sql: string): SelectBody => {
  const b = query(sql).body
  if (b.kind !== 'select') throw new Error(`not a select body: ${b.kind}`)
  return b
}
const expr = (sql: string): unknown => stripSpans(parseExpression(sql))
const col = (...parts: string[]) => ({ kind: 'column', parts })
const int = (text: string) => ({ kind: 'literal', value: { type: 'integer', text } })

describe('grammar definition', () => {
  it('passes chevrotain grammar validation', () => {
    expect(() => new SqlParser({ validate: true })).not.toThrow()
  })
})

describe('expressions: precedence', () => {
  const cases: [string, string][] = [
    ['NOT a IS NULL', 'NOT a IS NULL'],
    ['NOT NULL IS NOT NULL', 'NOT NULL IS NOT NULL'],
    ['a OR b AND c', 'a OR b AND c'],
    ['(a OR b) AND c', '(a OR b) AND c'],
    ['1 + 2 * 3', '1 + 2 * 3'],
    ['(1 + 2) * 3', '(1 + 2) * 3'],
    ['a - b - c', 'a - b - c'],
    ['a - (b - c)', 'a - (b - c)'],
    ['-2 ^ 2', '-2 ^ 2'],
    ['-(2 ^ 2)', '-(2 ^ 2)'],
    ['a = b IS NULL', 'a = b IS NULL'],
    ['a = (b IS NULL)', 'a = (b IS NULL)'],
    ['a || b + c', 'a || b + c'],
    ['(a || b) + c', '(a || b) + c'],
    ['a < b = TRUE', 'a < b = TRUE'],
    ['x BETWEEN 1 AND 2 AND y', 'x BETWEEN 1 AND 2 AND y'],
    ['x BETWEEN a + 1 AND b * 2', 'x BETWEEN a + 1 AND b * 2'],
    ['NOT x BETWEEN 1 AND 2', 'NOT x BETWEEN 1 AND 2'],
    ['x NOT IN (1, 2) OR y', 'x NOT IN (1, 2) OR y'],
    ['-x::int', '-x::INTEGER'],
    ['(-x)::int', '(-x)::INTEGER'],
    ['1 = NOT TRUE', '1 = (NOT TRUE)'],
    ['NOT NOT x', 'NOT NOT x'],
    ['- - + 5', '- - +5'],
    ['a != b', 'a <> b'],
    ['x NOT NULL', 'x IS NOT NULL'],
    // regular expression operators: binary ~ ~* !~ !~* at the "other operator" level; a ~ in
    // prefix position stays bitwise NOT
    ['a ~ b', 'a ~ b'],
    ['a~*b', 'a ~* b'],
    ['a!~b', 'a !~ b'],
    ["a!~*'x'", "a !~* 'x'"],
    ['a!=b', 'a <> b'],
    ['a ~ b = TRUE', 'a ~ b = TRUE'],
    ['a || b ~ c', 'a || b ~ c'],
    ['a ~ (b || c)', 'a ~ (b || c)'],
    ['NOT a ~ b', 'NOT a ~ b'],
    ['~a ~ ~b', '~a ~ ~b'],
    ['a ~ b + c', 'a ~ b + c'],
    // the jsonb operators, at the same level, left to right
    ["j->'a'->>0", "j -> 'a' ->> 0"],
    ["j#>'{a,b}'#>>'{c}'", "j #> '{a,b}' #>> '{c}'"],
    ["j@>'{}' = a<@b", "j @> '{}' = a <@ b"],
    ["j?'k' AND j?|a OR j?&b", "j ? 'k' AND j ?| a OR j ?& b"],
    ["j#-'{a}' - 'b' || k", "j #- '{a}' - 'b' || k"],
    ["j->-1", 'j -> -1'],
    ["(j->>'a')::int + 1", "(j ->> 'a')::INTEGER + 1"],
  ]
  it.each(cases)('%s', (input, printed) => {
    expect(printExpr(parseExpression(input))).toBe(printed)
  })

  it('builds the expected trees', () => {
    expect(expr('NOT a IS NULL')).toEqual({
      kind: 'unary',
      op: 'not',
      operand: { kind: 'is', operand: col('a'), test: 'null', negated: false },
    })
    expect(expr('NOT NULL IS NOT NULL')).toEqual({
      kind: 'unary',
      op: 'not',
      operand: { kind: 'is', operand: { kind: 'literal', value: { type: 'null' } }, test: 'null', negated: true },
    })
    expect(expr('1 + 2 * 3')).toEqual({
      kind: 'binary',
      op: '+',
      left: int('1'),
      right: { kind: 'binary', op: '*', left: int('2'), right: int('3') },
    })
    expect(expr('- - + 5')).toEqual({
      kind: 'unary',
      op: '-',
      operand: { kind: 'unary', op: '-', operand: { kind: 'unary', op: '+', operand: int('5') } },
    })
    expect(expr('2 ^ 3 ^ 2')).toEqual({
      kind: 'binary',
      op: '^',
      left: { kind: 'binary', op: '^', left: int('2'), right: int('3') },
      right: int('2'),
    })
    expect(expr('a IS NOT DISTINCT FROM b')).toEqual({ kind: 'binary', op: 'is not distinct from', left: col('a'), right: col('b') })
    expect(expr('~a ~ b')).toEqual({ kind: 'binary', op: '~', left: { kind: 'unary', op: '~', operand: col('a') }, right: col('b') })
    expect(expr('a!~*b')).toEqual({ kind: 'binary', op: '!~*', left: col('a'), right: col('b') })
  })

  it('SQLite test-suite style expressions parse', () => {
    for (const sql of [
      'SELECT - col2 * + col1 FROM tab0 WHERE NOT ( col0 ) NOT IN ( 1, 2 )',
      'SELECT ALL + - 93 * col2 + CAST ( NULL AS SIGNED ) FROM tab1 AS cor0',
      'SELECT DISTINCT - ( + + MIN ( ALL + - 41 ) ) FROM tab0',
      'SELECT * FROM tab1 WHERE NOT + col0 BETWEEN NULL AND ( - 36 )',
      'SELECT COUNT ( * ) FROM tab2 AS cor0 CROSS JOIN tab0 WHERE NULL IS NULL',
      'SELECT 1 FROM t1 WHERE 1 IN ()',
      'SELECT group_concat(x) FROM t1 NOT INDEXED',
    ]) {
      expect(() => parse(sql), sql).not.toThrow()
    }
  })
})

describe('expressions: literals and names', () => {
  it('numbers keep their text', () => {
    expect(expr('42')).toEqual(int('42'))
    expect(expr('9223372036854775808')).toEqual(int('9223372036854775808'))
    expect(expr('1.50')).toEqual({ kind: 'literal', value: { type: 'decimal', text: '1.50' } })
    expect(expr('2e3')).toEqual({ kind: 'literal', value: { type: 'decimal', text: '2e3' } })
    expect(expr('.5')).toEqual({ kind: 'literal', value: { type: 'decimal', text: '.5' } })
  })

  it('strings: quote escapes, E-strings, newlines', () => {
    expect(expr("'it''s'")).toEqual({ kind: 'literal', value: { type: 'string', value: "it's" } })
    expect(expr("E'a\\nb\\'c\\\\'")).toEqual({ kind: 'literal', value: { type: 'string', value: "a\nb'c\\" } })
    expect(expr("'two\nlines'")).toEqual({ kind: 'literal', value: { type: 'string', value: 'two\nlines' } })
    expect(expr('TRUE')).toEqual({ kind: 'literal', value: { type: 'boolean', value: true } })
  })

  it('identifiers fold unless quoted', () => {
    expect(expr('Foo.BAR')).toEqual(col('foo', 'bar'))
    expect(expr('"Foo"."a""b"')).toEqual(col('Foo', 'a"b'))
    expect(expr('t.*')).toEqual({ kind: 'star', qualifier: ['t'] })
    expect(expr('$3')).toEqual({ kind: 'param', index: 3 })
  })

  it('non-reserved keywords work as names', () => {
    const words = [
      'window', 'start', 'size', 'key', 'value', 'text', 'date', 'timestamp', 'time', 'interval', 'first', 'last',
      'count', 'sum', 'min', 'max', 'avg', 'filter', 'over', 'partition', 'rows', 'row', 'replace', 'index',
      'source', 'sink', 'stream', 'view', 'show', 'tables', 'columns', 'descriptor', 'tumble', 'hop', 'session',
      'emit', 'watermark', 'data', 'name', 'type', 'year', 'month', 'day', 'hour', 'minute', 'second', 'position',
      'substring', 'trim', 'extract', 'if', 'set', 'delete', 'update', 'insert', 'begin', 'commit', 'nulls', 'of',
    ]
    for (const w of words) {
      const b = select(`SELECT ${w}, ${w} AS ${w} FROM ${w} AS ${w} WHERE ${w}.${w} = 1`)
      expect(stripSpans(b.items[0]!.expr), w).toEqual(col(w))
      expect(b.items[1]!.alias, w).toBe(w)
    }
    const t = one('CREATE TABLE window (start TIMESTAMP, "end" TIMESTAMP, size INT, key TEXT, value TEXT)') as CreateTableStmt
    expect(t.columns.map((c) => c.name)).toEqual(['start', 'end', 'size', 'key', 'value'])
  })

  it('aliases without AS', () => {
    const b = select('SELECT a b, c + 1 total FROM t x, u AS y(p, q)')
    expect(b.items.map((i) => i.alias)).toEqual(['b', 'total'])
    expect(stripSpans(b.from)).toEqual({
      kind: 'join',
      type: 'cross',
      left: { kind: 'table', name: { parts: ['t'] }, alias: { name: 'x', columns: [] } },
      right: { kind: 'table', name: { parts: ['u'] }, alias: { name: 'y', columns: ['p', 'q'] } },
      natural: false,
      comma: true,
    })
  })

  it('comma lists fold left', () => {
    const from = stripSpans(select('SELECT 1 FROM a, b, c').from) as { left: { kind: string; comma: boolean }; right: unknown }
    expect(from.left.kind).toBe('join')
    expect(from.left.comma).toBe(true)
    expect(from.right).toEqual({ kind: 'table', name: { parts: ['c'] } })
  })
})

describe('expressions: special forms', () => {
  it('POSITION / SUBSTRING / TRIM become plain calls', () => {
    const call = (name: string, ...args: unknown[]) => ({ kind: 'func', name: [name], args, distinct: false, orderBy: [] })
    const s = (v: string) => ({ kind: 'literal', value: { type: 'string', value: v } })
    expect(expr("POSITION('b' IN s)")).toEqual(call('position', col('s'), s('b')))
    expect(expr('SUBSTRING(s FROM 2 FOR 3)')).toEqual(call('substring', col('s'), int('2'), int('3')))
    expect(expr('SUBSTRING(s FOR 3)')).toEqual(call('substring', col('s'), int('1'), int('3')))
    expect(expr('substring(s, 2)')).toEqual(call('substring', col('s'), int('2')))
    expect(expr("SUBSTRING(s FROM '(a)b')")).toEqual(call('substring', col('s'), s('(a)b')))
    expect(expr("TRIM(BOTH 'x' FROM s)")).toEqual(call('btrim', col('s'), s('x')))
    expect(expr('TRIM(LEADING FROM s)')).toEqual(call('ltrim', col('s')))
    expect(expr("TRIM(TRAILING 'y' FROM s)")).toEqual(call('rtrim', col('s'), s('y')))
    expect(expr('TRIM(s)')).toEqual(call('btrim', col('s')))
    expect(expr('CURRENT_TIMESTAMP')).toEqual(call('current_timestamp'))
    expect(expr('left(s, 2)')).toEqual(call('left', col('s'), int('2')))
  })

  it('aggregates and windows', () => {
    expect(expr('COUNT(*)')).toMatchObject({ kind: 'func', name: ['count'], args: [{ kind: 'star' }] })
    expect(expr('count(DISTINCT x)')).toMatchObject({ distinct: true, args: [col('x')] })
    expect(expr('SUM(ALL x)')).toMatchObject({ distinct: false, args: [col('x')] })
    expect(expr("string_agg(x, ',' ORDER BY y DESC)")).toMatchObject({
      orderBy: [{ expr: col('y'), desc: true }],
    })
    expect(expr('f(x) FILTER (WHERE x > 0)')).toMatchObject({ filter: { kind: 'binary', op: '>' } })
    expect(expr('row_number() OVER (PARTITION BY a ORDER BY b NULLS FIRST)')).toMatchObject({
      over: { partitionBy: [col('a')], orderBy: [{ expr: col('b'), desc: false, nullsFirst: true }] },
    })
  })

  it('typed literals and intervals', () => {
    expect(expr("TIMESTAMP '2024-01-01 00:00:00'")).toMatchObject({
      kind: 'typedLiteral',
      type: { name: 'timestamp', args: [] },
      value: '2024-01-01 00:00:00',
    })
    expect(expr("TIMESTAMP WITH TIME ZONE '2024-01-01 00:00:00+00'")).toMatchObject({
      kind: 'typedLiteral',
      type: { name: 'timestamptz' },
    })
    expect(expr("DOUBLE PRECISION '1.5'")).toMatchObject({ kind: 'typedLiteral', type: { name: 'double' } })
    expect(expr("DATE '2024-01-01'")).toMatchObject({ kind: 'typedLiteral', type: { name: 'date' } })
    expect(expr("INTERVAL '5' SECOND")).toEqual({ kind: 'interval', value: '5', unit: 'second', toUnit: undefined } as never)
    expect(stripSpans(parseExpression("INTERVAL '1 hour'"))).toEqual({ kind: 'interval', value: '1 hour' })
    expect(stripSpans(parseExpression("INTERVAL '1' DAY TO SECOND"))).toEqual({
      kind: 'interval',
      value: '1',
      unit: 'day',
      toUnit: 'second',
    })
  })

  it('parenthesized forms', () => {
    expect(expr('(a, b)')).toMatchObject({ kind: 'row', explicit: false, items: [col('a'), col('b')] })
    expect(expr('ROW(a)')).toMatchObject({ kind: 'row', explicit: true, items: [col('a')] })
    expect(expr('(SELECT 1)')).toMatchObject({ kind: 'subquery' })
    expect(expr('((SELECT 1) UNION (SELECT 2))')).toMatchObject({
      kind: 'subquery',
      query: { body: { kind: 'setOp', op: 'union', left: { kind: 'nested' }, right: { kind: 'nested' } } },
    })
    expect(expr('x IN (SELECT 1)')).toMatchObject({ kind: 'inSubquery' })
    expect(expr('x IN ((SELECT 1))')).toMatchObject({ kind: 'inSubquery' })
    expect(expr('x IN ((SELECT 1), 2)')).toMatchObject({ kind: 'inList' })
    expect(expr('(a, b) IN (SELECT 1, 2)')).toMatchObject({ kind: 'inSubquery', operand: { kind: 'row' } })
    expect(expr('EXISTS (SELECT 1)')).toMatchObject({ kind: 'exists' })
  })
})

describe('types', () => {
  const cases: [string, string, number[]][] = [
    ['BOOL', 'boolean', []],
    ['int2', 'smallint', []],
    ['INT', 'integer', []],
    ['int4', 'integer', []],
    ['INT8', 'bigint', []],
    ['float4', 'real', []],
    ['FLOAT', 'double', []],
    ['float8', 'double', []],
    ['DOUBLE PRECISION', 'double', []],
    ['DECIMAL(10, 2)', 'numeric', [10, 2]],
    ['NUMERIC', 'numeric', []],
    ['TEXT', 'text', []],
    ['VARCHAR(20)', 'varchar', [20]],
    ['CHARACTER VARYING(5)', 'varchar', [5]],
    ['CHARACTER(3)', 'char', [3]],
    ['CHAR', 'char', []],
    ['DATE', 'date', []],
    ['TIMESTAMP', 'timestamp', []],
    ['TIMESTAMP WITHOUT TIME ZONE', 'timestamp', []],
    ['TIMESTAMP WITH TIME ZONE', 'timestamptz', []],
    ['timestamptz', 'timestamptz', []],
    ['INTERVAL', 'interval', []],
    ['SIGNED', 'bigint', []],
    ['UNSIGNED INTEGER', 'bigint', []],
  ]
  it.each(cases)('%s', (written, name, args) => {
    const e = parseExpression(`CAST(x AS ${written})`)
    if (e.kind !== 'cast') throw new Error('not a cast')
    expect(e.type.name).toBe(name)
    expect(e.type.args).toEqual(args)
    expect(printTypeName(e.type)).toMatch(/^[A-Z]/)
  })
})

describe('statements', () => {
  it('splits statements and reports their text and offsets', () => {
    const sql = ';  SELECT 1 ; ;\n-- note\nINSERT INTO t VALUES (1);'
    const r = parse(sql)
    expect(r.map((p) => [p.text, p.offset])).toEqual([
      ['SELECT 1', 3],
      ['INSERT INTO t VALUES (1)', 24],
    ])
    // spans are offsets into the whole input
    expect(r[1]!.statement.span).toEqual({ start: 24, end: 48 })
    const ins = r[1]!.statement
    if (ins.kind !== 'insert') throw new Error()
    expect(sql.slice(ins.table.span.start, ins.table.span.end)).toBe('t')
    expect(parse('')).toEqual([])
    expect(parse(' ; -- nothing\n')).toEqual([])
  })

  it('expression spans cover the expression text', () => {
    const sql = 'SELECT (a + b) * 2 AS x FROM t'
    const item = select(sql).items[0]!
    expect(sql.slice(item.expr.span.start, item.expr.span.end)).toBe('(a + b) * 2')
    expect(sql.slice(item.span.start, item.span.end)).toBe('(a + b) * 2 AS x')
  })

  it('comments are skipped', () => {
    const s = one('SELECT /* a /* nested */ comment */ 1 -- trailing\n + 2')
    expect(printStatement(s)).toBe('SELECT 1 + 2')
  })

  it('CREATE TABLE details', () => {
    const t = one(
      "CREATE TABLE IF NOT EXISTS t (a INT PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x', c INT NULL UNIQUE, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (retention = '1 hour', 'connector' = kafka)",
    ) as CreateTableStmt
    expect(stripSpans(t)).toMatchObject({
      kind: 'createTable',
      name: { parts: ['t'] },
      ifNotExists: true,
      stream: false,
      appendOnly: false,
      columns: [
        { name: 'a', type: { name: 'integer' }, primaryKey: true, notNull: false, unique: false },
        { name: 'b', type: { name: 'text' }, notNull: true, default: { kind: 'literal' } },
        { name: 'c', notNull: false, unique: true },
        { name: 'ts', type: { name: 'timestamp' } },
      ],
      watermark: { column: 'ts', expr: { kind: 'binary', op: '-' } },
      with: [
        { name: 'retention', value: { kind: 'literal', value: { type: 'string', value: '1 hour' } } },
        { name: 'connector', value: { kind: 'column', parts: ['kafka'] } },
      ],
    })
    expect(one('CREATE STREAM s (a INT)')).toMatchObject({ stream: true, appendOnly: false })
    expect(one('CREATE TABLE s (a INT) APPEND ONLY')).toMatchObject({ stream: true, appendOnly: true })
    expect(one('CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b))')).toMatchObject({ primaryKey: ['a', 'b'] })
    expect(() => parse('CREATE TABLE t (a INT, PRIMARY KEY (a), PRIMARY KEY (a))')).toThrow(RivuletError)
  })

  it('views, indexes, drops', () => {
    expect(one('CREATE MATERIALIZED VIEW v AS SELECT 1')).toMatchObject({ kind: 'createView', materialized: true, orReplace: false })
    expect(stripSpans(one('CREATE DEFAULT INDEX ON v'))).toEqual({
      kind: 'createIndex',
      table: { parts: ['v'] },
      columns: [],
      unique: false,
      ifNotExists: false,
    })
    expect(one('CREATE INDEX i ON t USING btree (a DESC, b)')).toMatchObject({ name: 'i', columns: [col('a'), col('b')] })
    expect(one('DROP MATERIALIZED VIEW IF EXISTS a, b RESTRICT')).toMatchObject({
      object: 'materialized view',
      ifExists: true,
      cascade: false,
      names: [{ parts: ['a'] }, { parts: ['b'] }],
    })
  })

  it('DML', () => {
    expect(one('INSERT INTO t (a, b) VALUES (1, 2)')).toMatchObject({
      kind: 'insert',
      columns: ['a', 'b'],
      source: { body: { kind: 'values', rows: [[int('1'), int('2')]] } },
    })
    expect(one('INSERT INTO t VALUES (1) ON CONFLICT (a) DO UPDATE SET b = excluded.b')).toMatchObject({
      onConflict: { target: ['a'], set: [{ column: 'b', value: col('excluded', 'b') }] },
    })
    expect(one('INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING')).toMatchObject({
      onConflict: { target: [], set: undefined },
    })
    expect(one('UPDATE t x SET a = 1 WHERE x.b = 2')).toMatchObject({ kind: 'update', alias: 'x' })
    expect(one('DELETE FROM t WHERE a = 1')).toMatchObject({ kind: 'delete', alias: undefined })
  })

  it('SQLite upserts: INSERT OR REPLACE | OR IGNORE, REPLACE INTO', () => {
    expect(one('insert into t values (1)')).toMatchObject({ kind: 'insert', or: undefined, replaceInto: false })
    expect(one('insert or replace into t values (1)')).toMatchObject({ kind: 'insert', or: 'replace', replaceInto: false })
    expect(one('Insert Or Ignore Into t (a) select 1')).toMatchObject({ kind: 'insert', or: 'ignore', replaceInto: false, columns: ['a'] })
    expect(one('replace into t values (1)')).toMatchObject({ kind: 'insert', or: 'replace', replaceInto: true })
    // replace stays a function name
    expect(stripSpans(one("SELECT replace('ab', 'a', 'c')"))).toMatchObject({ kind: 'select' })
  })

  it('REINDEX', () => {
    expect(stripSpans(one('REINDEX'))).toEqual({ kind: 'reindex' })
    expect(stripSpans(one('reindex t1i1'))).toEqual({ kind: 'reindex', name: { parts: ['t1i1'] } })
    expect(stripSpans(one('reindex index i'))).toEqual({ kind: 'reindex', object: 'index', name: { parts: ['i'] } })
    expect(stripSpans(one('reindex index'))).toEqual({ kind: 'reindex', name: { parts: ['index'] } })
    expect(stripSpans(one('reindex table s.t'))).toEqual({ kind: 'reindex', object: 'table', name: { parts: ['s', 't'] } })
  })

  it('CREATE TRIGGER keeps its body statements; `;` inside BEGIN … END does not end it', () => {
    const r = parse('CREATE TRIGGER r1 UPDATE OF a, b ON t BEGIN SELECT 1; SELECT CASE WHEN new.a THEN 1 END; END; SELECT 2')
    expect(r.map((p) => p.statement.kind)).toEqual(['createTrigger', 'select'])
    expect(r[0]!.text).toBe('CREATE TRIGGER r1 UPDATE OF a, b ON t BEGIN SELECT 1; SELECT CASE WHEN new.a THEN 1 END; END')
    expect(r[0]!.statement).toMatchObject({ timing: undefined, event: 'update', columns: ['a', 'b'], forEachRow: false, when: undefined, ifNotExists: false })
    const t = one('create trigger if not exists r instead of delete on v for each row when old.k > 0 begin delete from t; end')
    expect(stripSpans(t)).toMatchObject({
      kind: 'createTrigger',
      name: { parts: ['r'] },
      ifNotExists: true,
      timing: 'instead of',
      event: 'delete',
      columns: [],
      table: { parts: ['v'] },
      forEachRow: true,
      when: { kind: 'binary', op: '>' },
      body: [{ kind: 'delete', table: { parts: ['t'] } }],
    })
    expect(one('CREATE TRIGGER r BEFORE INSERT ON t BEGIN SELECT 1; END')).toMatchObject({ timing: 'before', event: 'insert' })
    expect(one('CREATE TRIGGER r AFTER INSERT ON t BEGIN SELECT 1; END')).toMatchObject({ timing: 'after' })
    expect(one('DROP TRIGGER IF EXISTS r')).toMatchObject({ kind: 'drop', object: 'trigger', ifExists: true })
  })

  it('query clauses', () => {
    expect(query('SELECT * FROM t FETCH FIRST 5 ROWS ONLY')).toMatchObject({ limit: int('5') })
    expect(query('SELECT * FROM t OFFSET 2 ROWS FETCH NEXT ROW ONLY')).toMatchObject({ limit: int('1'), offset: int('2') })
    expect(query('SELECT * FROM t LIMIT ALL')).toMatchObject({ limit: undefined })
    expect(query('SELECT * FROM t OFFSET 1 LIMIT 2')).toMatchObject({ limit: int('2'), offset: int('1') })
    expect(query('SELECT * FROM t EMIT ON WINDOW CLOSE')).toMatchObject({ emitOnWindowClose: true })
    const q = query('SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT ALL SELECT 4')
    expect(stripSpans(q.body)).toMatchObject({
      kind: 'setOp',
      op: 'except',
      all: true,
      left: { kind: 'setOp', op: 'union', right: { kind: 'setOp', op: 'intersect' } },
    })
    expect(query('WITH RECURSIVE r (n) AS (SELECT 1) SELECT * FROM r')).toMatchObject({
      recursive: true,
      with: [{ name: 'r', columns: ['n'] }],
    })
    expect(query('WITH recursive AS (SELECT 1) SELECT * FROM recursive')).toMatchObject({
      recursive: false,
      with: [{ name: 'recursive' }],
    })
  })

  it('FROM forms', () => {
    expect(select('SELECT * FROM (VALUES (1, 2)) AS v(a, b)').from).toMatchObject({
      kind: 'values',
      alias: { name: 'v', columns: ['a', 'b'] },
    })
    expect(select('SELECT * FROM t, LATERAL (SELECT t.a) s').from).toMatchObject({
      right: { kind: 'subquery', lateral: true, alias: { name: 's' } },
    })
    expect(select("SELECT * FROM TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)").from).toMatchObject({
      kind: 'function',
      name: ['tumble'],
      args: [
        { kind: 'table', name: { parts: ['bids'] }, partitionBy: [] },
        { kind: 'descriptor', columns: ['ts'] },
        { kind: 'expr', expr: { kind: 'interval' } },
      ],
    })
    expect(select('SELECT * FROM SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), x)').from).toMatchObject({
      args: [{ kind: 'table', partitionBy: [col('bidder')] }, { kind: 'descriptor' }, { kind: 'expr' }],
    })
    expect(select('SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts r ON o.k = r.k').from).toMatchObject({
      kind: 'join',
      type: 'inner',
      right: { kind: 'table', asOf: col('o', 'ts'), alias: { name: 'r' } },
    })
    expect(select('SELECT * FROM t ASOF JOIN q ON t.k = q.k AND t.ts >= q.ts').from).toMatchObject({ kind: 'join', type: 'asof', right: { kind: 'table', name: { parts: ['q'] } } })
    expect(select('SELECT * FROM t AS a ASOF LEFT OUTER JOIN q ON a.ts > q.ts').from).toMatchObject({ type: 'asof left', left: { alias: { name: 'a' } } })
    // `asof` is an alias unless JOIN or LEFT JOIN follows
    expect(select('SELECT * FROM t asof').from).toMatchObject({ kind: 'table', alias: { name: 'asof' } })
    expect(select('SELECT * FROM t asof JOIN q ON true').from).toMatchObject({ type: 'asof', left: { alias: undefined } })
    expect(select('SELECT * FROM t, LATERAL generate_series(1, t.n) AS g(i)').from).toMatchObject({
      right: { kind: 'function', name: ['generate_series'], alias: { name: 'g', columns: ['i'] } },
    })
    expect(select('SELECT * FROM a NATURAL LEFT JOIN b').from).toMatchObject({ type: 'left', natural: true })
    expect(select('SELECT * FROM a RIGHT OUTER JOIN b USING (k)').from).toMatchObject({ type: 'right', using: ['k'] })
    expect(select('SELECT * FROM a CROSS JOIN b').from).toMatchObject({ type: 'cross', comma: false, on: undefined })
  })

  it('utility statements', () => {
    expect(parse('BEGIN; START TRANSACTION; COMMIT; END; ROLLBACK; ABORT').map((p) => p.statement)).toMatchObject([
      { action: 'begin' },
      { action: 'begin' },
      { action: 'commit' },
      { action: 'commit' },
      { action: 'rollback' },
      { action: 'rollback' },
    ])
    expect(one('EXPLAIN VERBOSE OPTIMIZED PLAN FOR SELECT 1')).toMatchObject({ kind: 'explain', stage: 'optimized', verbose: true })
    const ev = one('EXPLAIN MATERIALIZED VIEW s.v') as ExplainStmt
    expect(ev.stage).toBe('view')
    expect(printStatement(ev.statement)).toBe('SELECT * FROM s.v')
    expect(one('SHOW COLUMNS FROM t')).toMatchObject({ what: ['columns', 'from'], target: { parts: ['t'] } })
    expect(one('SHOW CREATE VIEW v')).toMatchObject({ what: ['create', 'view'], target: { parts: ['v'] } })
    expect(one('SHOW search_path')).toMatchObject({ what: ['search_path'], target: undefined })
    expect(one('SET x TO 5')).toMatchObject({ kind: 'set', name: 'x', value: '5' })
    expect(one("SET SESSION search_path = 'a', b")).toMatchObject({ name: 'search_path', value: 'a, b' })
    expect(one("SET TIME ZONE 'UTC'")).toMatchObject({ name: 'timezone', value: 'UTC' })
    expect(one("SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE")).toMatchObject({ name: 'timezone', value: "INTERVAL '+02:00'" })
    expect(one('SET TIME ZONE LOCAL')).toMatchObject({ name: 'timezone', value: 'local' })
    // x AT TIME ZONE z is timezone(z, x), binding tighter than * and looser than unary minus
    expect(expr("ts AT TIME ZONE 'UTC'")).toMatchObject({ kind: 'func', name: ['timezone'], args: [{ kind: 'literal' }, { kind: 'column', parts: ['ts'] }] })
    expect(expr("2 * ts AT TIME ZONE 'UTC'")).toMatchObject({ kind: 'binary', op: '*', right: { kind: 'func', name: ['timezone'] } })
    expect(expr("ts AT TIME ZONE 'UTC' AT TIME ZONE 'Asia/Tokyo'")).toMatchObject({ kind: 'func', args: [{ kind: 'literal' }, { kind: 'func', name: ['timezone'] }] })
    expect(one('FLUSH')).toMatchObject({ kind: 'flush' })
    expect(one('SUBSCRIBE TO v WITH (SNAPSHOT = false)')).toMatchObject({
      kind: 'subscribe',
      target: { parts: ['v'] },
      query: undefined,
      with: [{ name: 'snapshot', value: { kind: 'literal', value: { type: 'boolean', value: false } } }],
    })
    expect(one('SUBSCRIBE (SELECT 1)')).toMatchObject({ target: undefined, query: { kind: 'query' } })
  })
})

describe('errors never escape as anything but RivuletError', () => {
  it.each(['', 'SELECT', "SELECT '", 'SELECT ((', 'CREATE', '\u0000', 'SELECT 1 FROM t WHERE a IN'])('%j', (sql) => {
    try {
      parse(sql)
    } catch (e) {
      expect(e).toBeInstanceOf(RivuletError)
    }
  })

  it('parseExpression of an empty string', () => {
    expect(() => parseExpression('')).toThrow(RivuletError)
  })

  it('keeps Expr typing usable', () => {
    const e: Expr = parseExpression('1')
    expect(e.kind).toBe('literal')
  })
})
