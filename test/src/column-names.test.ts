// Result column names of unaliased expressions, as PostgreSQL 15 names them
// (FigureColnameInternal): a cast takes its operand's own name (a column's, a function's, a
// subquery's), else the catalog name of its type (int4, float8, bool, ...).
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'

describe('column names', () => {
  it('names casts and typed literals as PostgreSQL does', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (id INT PRIMARY KEY, s TEXT)')
    const names = (sql: string) => db.query(sql).columns.map((c) => c.name)
    // expected: psql 15 on the same statement
    expect(
      names(
        "SELECT CAST((1::boolean) AS TEXT), CAST(CAST(1 AS real) AS text), 1::int8, 1::float8, 1::double precision, 1::float4, 1::int2, 1::bool, 1::decimal, 1::varchar, 'a'::char(2), CAST(CASE WHEN true THEN 1 END AS text), DATE '2020-01-01', TIMESTAMP '2020-01-01', INTERVAL '1 day', CAST(DATE '2020-01-01' AS text), CAST((SELECT 1 AS z) AS text), CAST(abs(1) AS int8), CAST(1 + 1 AS int2)",
      ),
    ).toEqual(['text', 'text', 'int8', 'float8', 'float8', 'float4', 'int2', 'bool', 'numeric', 'varchar', 'bpchar', 'text', 'date', 'timestamp', 'interval', 'text', 'z', 'abs', 'int2'])
    expect(names('SELECT CAST(CAST(id AS text) AS int), id::boolean::text, s::int, 1::integer, 1 FROM t')).toEqual(['id', 'id', 's', 'int4', '?column?'])
    expect(names("SELECT CASE WHEN true THEN id ELSE id END, CASE WHEN true THEN id END, CASE WHEN true THEN 1 ELSE 2 END, CASE WHEN true THEN 1 ELSE abs(id) END, CAST(CASE WHEN true THEN 1 ELSE s::int END AS int) FROM t")).toEqual(['id', 'case', 'case', 'abs', 's'])
  })
})
