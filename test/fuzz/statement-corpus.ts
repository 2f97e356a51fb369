// Valid statements to mutate: a built-in list over the SETUP world (DDL, DML, SELECT with
// joins, aggregates, windows, subqueries, materialized views, streams) plus every statement of
// the sqllogictest files (parsed or not by the engine's world, they are valid SQL to the parser).

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Tables, views and a stream the built-in statements run against. */
export const SETUP = [
  'CREATE TABLE t (k INT PRIMARY KEY, v TEXT, n INT)',
  'CREATE TABLE u (a INT, b TEXT)',
  'CREATE TABLE p (id INT PRIMARY KEY, x NUMERIC NOT NULL, d NUMERIC(10,2), s VARCHAR(5))',
  "INSERT INTO t VALUES (1, 'x', 10), (2, 'y', NULL), (3, NULL, 30)",
  "INSERT INTO u VALUES (1, 'p'), (1, 'p'), (2, NULL), (NULL, 'q')",
  'INSERT INTO p VALUES (1, 1.5, 2.25, \'ab\')',
  'CREATE MATERIALIZED VIEW mv AS SELECT v, count(*) AS c, sum(n) AS s FROM t GROUP BY v',
  'CREATE MATERIALIZED VIEW jv AS SELECT t.k, u.b FROM t JOIN u ON t.k = u.a',
  'CREATE VIEW pv AS SELECT k FROM t WHERE n > 5',
  "CREATE STREAM s (k INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (late_events_kept = 10)",
  "INSERT INTO s VALUES (1, '2024-01-01 00:00:30'), (2, '2024-01-01 00:00:01')",
]

export const BUILT_IN = [
  'SELECT 1',
  'SELECT 1.5, -2, 2147483648, 1e5, .5, 007',
  'SELECT -2147483648, -9223372036854775808, 9223372036854775808',
  'SELECT k, v FROM t WHERE k IN (1, 2, 3) ORDER BY 1 DESC',
  'SELECT k FROM t ORDER BY 1 LIMIT 2 OFFSET 1',
  'SELECT v, count(*) FROM t GROUP BY 1 HAVING count(*) > 0',
  'SELECT DISTINCT ON (1) k, v FROM t ORDER BY 1, 2',
  'SELECT k FROM t FETCH FIRST 2 ROWS ONLY',
  'SELECT t.k, u.b FROM t LEFT JOIN u ON t.k = u.a AND u.a > 0 WHERE t.n BETWEEN 5 AND 25',
  'SELECT k, sum(n) OVER (PARTITION BY v ORDER BY k) FROM t',
  'SELECT k, row_number() OVER (ORDER BY n DESC) FROM t',
  'SELECT k FROM t WHERE n > (SELECT avg(a) FROM u) AND EXISTS (SELECT 1 FROM u WHERE u.a = t.k)',
  'SELECT CASE WHEN n > 10 THEN 1.5 WHEN n > 5 THEN 2 ELSE -3 END FROM t',
  'SELECT substring(v FROM 1 FOR 2), substring(v, 2), position(\'x\' IN v) FROM t',
  "SELECT CAST(1.25 AS NUMERIC(10,2)), 3.5::numeric(5,1), '12'::int + 1",
  "SELECT INTERVAL '1' DAY, INTERVAL '2 hours', TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '3' MINUTE",
  'SELECT round(2.567, 2), abs(-3), mod(10, 3), power(2, 10), 10 / 3, 10 % 3, 2 ^ 3',
  'SELECT k FROM t UNION ALL SELECT a FROM u UNION SELECT 42',
  'WITH w AS (SELECT k, n * 2 AS m FROM t) SELECT m + 1 FROM w WHERE m > 4',
  'SELECT coalesce(n, 0), nullif(k, 2), greatest(1, 2, 3), least(4.5, 2) FROM t',
  "SELECT repeat('ab', 3), lpad('x', 5, '-'), rpad('y', 4), 'a' || 'b' || 1, concat('a', 2, 3.5)",
  "SELECT string_agg(v, ',' ORDER BY v) FROM t",
  'SELECT count(DISTINCT n), max(n) FILTER (WHERE k > 1) FROM t',
  "INSERT INTO t VALUES (10, 'ten', 100)",
  'INSERT INTO p VALUES (2, 10.5, 3.14, NULL)',
  'INSERT INTO p (id, x) VALUES (3, 19.99), (4, -0.5)',
  "INSERT INTO u SELECT k + 100, v FROM t WHERE n > 1",
  'UPDATE t SET n = n + 1 WHERE k = 1',
  'UPDATE p SET x = x * 1.5, d = 2.5 WHERE id > 1',
  'DELETE FROM u WHERE a = 2 OR b IS NULL',
  "INSERT INTO t VALUES (1, 'dup', 5) ON CONFLICT (k) DO UPDATE SET n = excluded.n + 7",
  'CREATE TABLE q (a INT, b NUMERIC(12, 3) DEFAULT 1.5, c BIGINT DEFAULT -1)',
  'CREATE TABLE r (a INT PRIMARY KEY, b VARCHAR(10) NOT NULL DEFAULT \'z\')',
  'CREATE MATERIALIZED VIEW mv2 AS SELECT k, n * 2 + 1 AS m FROM t WHERE n > 3',
  'CREATE MATERIALIZED VIEW mv3 AS SELECT v, sum(n) FROM t GROUP BY v HAVING sum(n) > 10',
  'CREATE MATERIALIZED VIEW top2 AS SELECT k, n FROM t ORDER BY n DESC LIMIT 2',
  "CREATE MATERIALIZED VIEW wv AS SELECT k, window_end, count(*) AS c FROM TUMBLE(s, ts, INTERVAL '10' SECOND) GROUP BY k, window_end",
  "CREATE STREAM s2 (k INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)",
  "INSERT INTO s VALUES (3, '2024-01-01 00:01:00')",
  'CREATE VIEW v2 AS SELECT k + 1 AS k1 FROM t',
  'DROP VIEW IF EXISTS v2',
  'DROP TABLE IF EXISTS q',
  'EXPLAIN SELECT k FROM t WHERE k = 5',
  'SHOW TABLES',
  'BEGIN; INSERT INTO u VALUES (7, \'s\'); COMMIT',
  'SELECT 1; SELECT 2.5; SELECT -3',
  'SELECT (((1 + 2) * 3) - 4) / 5',
  'SELECT (SELECT (SELECT max(n) + 1 FROM t) + 2)',
  'SELECT k FROM t WHERE k IN (SELECT a FROM u WHERE a IN (SELECT k FROM t WHERE n > 5))',
  'SELECT k, (SELECT count(*) FROM u WHERE u.a = t.k) FROM t',
  "SELECT repeat(v, 3), lpad(v, 10), rpad(v, 2, 'xy'), replace(v, 'x', 'yy'), regexp_replace(v, 'x', 'zz', 'g') FROM t",
  "SELECT string_agg(repeat(v, 2), '--') FROM t",
  "SELECT upper(v) || lower(v) || initcap(v), concat_ws('-', k, n, v), translate(v, 'x', 'yz') FROM t",
  'SELECT exp(1::numeric), ln(2.5), power(2.5, 3), sqrt(2::numeric), log(10, 1000)',
  'SELECT k FROM t WHERE v LIKE \'x%\' AND v NOT ILIKE \'%Y\'',
  'SELECT $$dollar$$, E\'a\\tb\', U&\'\\0041\'',
]

const SLT_DIR = fileURLToPath(new URL('../../sqllogictest/test', import.meta.url))

function sltFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...sltFiles(p))
    else if (name.endsWith('.slt')) out.push(p)
  }
  return out
}

/** The SQL of every `statement ok` / `query` record in the sqllogictest files. */
export function sltStatements(): string[] {
  const out: string[] = []
  for (const file of sltFiles(SLT_DIR)) {
    const lines = readFileSync(file, 'utf8').split('\n')
    for (let i = 0; i < lines.length; i++) {
      const head = lines[i]!
      if (!(head.startsWith('statement ok') || (head.startsWith('query ') && !head.startsWith('query error')))) continue
      const sql: string[] = []
      for (i++; i < lines.length && lines[i]!.trim() !== '' && lines[i] !== '----' && !lines[i]!.startsWith('#'); i++) sql.push(lines[i]!)
      if (sql.length > 0) out.push(sql.join('\n'))
    }
  }
  return out
}
