// Arrays through the engine API: JS arrays in (db.insert), PostgreSQL's text out (as the other
// non-JS types), column types, EXPLAIN, and what is refused.

import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { rivuletError } from '../helpers/errors.js'

const fails = rivuletError

describe('arrays through the API', () => {
  it('takes JS arrays (and array text) in, and returns the PostgreSQL text form', () => {
    const db = new Engine()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, tags TEXT[], xs BIGINT[], ds DATE[])')
    db.insert('t', [
      { k: 1, tags: ['a', 'b c', null], xs: [1, 9007199254740993n], ds: ['2024-01-02'] },
      { k: 2, tags: '{x}', xs: [], ds: null },
    ])
    const r = db.execute('SELECT * FROM t ORDER BY k')[0]!
    expect(r.columns).toEqual([
      { name: 'k', type: 'integer' },
      { name: 'tags', type: 'text[]' },
      { name: 'xs', type: 'bigint[]' },
      { name: 'ds', type: 'date[]' },
    ])
    expect(r.rows).toEqual([
      [1, '{a,"b c",NULL}', '{1,9007199254740993}', '{2024-01-02}'],
      [2, '{x}', '{}', null],
    ])
    expect(db.execute('SELECT xs[2] FROM t WHERE k = 1')[0]!.rows).toEqual([[9007199254740993n]])
    expect(fails(() => db.insert('t', [{ k: 3, tags: [['nested']] }])).code).toBe('0A000')
    expect(fails(() => db.insert('t', [{ k: 3, xs: ['x'] }])).code).toBe('22P02')
    expect(fails(() => db.insert('t', [{ k: 3, tags: 5 }])).code).toBe('42804')
    db.close()
  })

  it('prints array expressions in EXPLAIN and keeps views over arrays incremental', () => {
    const db = new Engine()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, xs INT[])')
    const plan = db.execute('EXPLAIN SELECT k, x FROM t, unnest(xs) AS x WHERE k = ANY (ARRAY[1, 2])')[0]!.rows!.map((r) => r[0]).join('\n')
    expect(plan).toContain('Unnest #1')
    expect(plan).toContain('array_any')
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT x, count(*) AS n FROM t, unnest(xs) AS x GROUP BY x')
    db.execute("INSERT INTO t VALUES (1, '{1,2,2}'), (2, '{2}')")
    expect(db.execute('SELECT * FROM v ORDER BY x')[0]!.rows).toEqual([[1, 1], [2, 3]])
    db.execute('DELETE FROM t WHERE k = 1')
    expect(db.execute('SELECT * FROM v ORDER BY x')[0]!.rows).toEqual([[2, 1]])
    db.close()
  })
})
