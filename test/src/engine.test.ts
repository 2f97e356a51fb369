// The Engine API (src/index.ts) beyond what the sqllogictest files cover: shared arrangements
// as EXPLAIN MATERIALIZED VIEW shows them, subscriptions, failed statements, transactions,
// db.insert / db.delete, error codes and positions, DROP with dependents, streams, views over
// views, relations().
import { describe, expect, it } from 'vitest'
import { Engine, RivuletError } from '../../src/index.js'
import type { ChangeBatch, ResultValue } from '../../src/index.js'

/** The error `f` throws (fails the test when it returns). */
function thrown(f: () => unknown): RivuletError {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(RivuletError)
    return e as RivuletError
  }
  throw new Error('expected an error')
}

function rows(db: Engine, sql: string): ResultValue[][] {
  return db.query(sql).rows
}

/** Rows in a canonical order (views and unordered reads have none). */
function sorted(db: Engine, sql: string): ResultValue[][] {
  return rows(db, sql).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
}

function explainView(db: Engine, view: string): string {
  return rows(db, `EXPLAIN MATERIALIZED VIEW ${view}`)
    .map((r) => r[0])
    .join('\n')
}

/** Operator ids of the arrangements a view reads, in plan order. */
function arrangementIds(db: Engine, view: string): number[] {
  return explainView(db, view)
    .split('\n')
    .filter((l) => l.includes('Arrange key='))
    .map((l) => Number(/\[op (\d+)/.exec(l)![1]))
}

/** A batch's changes in a canonical order. */
function changes(b: ChangeBatch): [ResultValue[], number][] {
  return [...b.changes].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))
}

/** Everything observable about the data: relations, table and view contents. */
function state(db: Engine): string {
  return JSON.stringify(db.relations().map((r) => [r.name, r.kind, sorted(db, `SELECT * FROM ${r.name}`)]))
}

function joinDb(): Engine {
  const db = Engine.open()
  db.execute(`
    CREATE TABLE a (x INT, y INT);
    CREATE TABLE b (x INT, w TEXT);
    INSERT INTO a VALUES (1, 10), (2, 20);
    INSERT INTO b VALUES (1, 'one'), (3, 'three');
  `)
  return db
}

const JOIN_VIEW = 'SELECT a.y, b.w FROM a JOIN b ON a.x = b.x'
const JOIN_AGG_VIEW = 'SELECT a.x, count(*) AS n FROM a JOIN b ON a.x = b.x GROUP BY a.x'

describe('execute and query', () => {
  it('execute returns one result per statement, with Postgres command tags and row counts', () => {
    const db = Engine.open()
    const results = db.execute(`
      CREATE TABLE t (k INT PRIMARY KEY, v INT);
      INSERT INTO t VALUES (1, 10), (2, 20), (3, 30);
      UPDATE t SET v = v + 1 WHERE k > 1;
      DELETE FROM t WHERE k = 3;
      CREATE MATERIALIZED VIEW m AS SELECT k FROM t;
      SELECT k, v FROM t ORDER BY k;
      BEGIN; COMMIT
    `)
    expect(results.map((r) => [r.command, r.rowCount])).toEqual([
      ['CREATE TABLE', 0],
      ['INSERT 0 3', 3],
      ['UPDATE 2', 2],
      ['DELETE 1', 1],
      ['CREATE MATERIALIZED VIEW', 0],
      ['SELECT 2', 2],
      ['BEGIN', 0],
      ['COMMIT', 0],
    ])
    expect(results[5]!.columns).toEqual([
      { name: 'k', type: 'integer' },
      { name: 'v', type: 'integer' },
    ])
    expect(results[5]!.rows).toEqual([
      [1, 10],
      [2, 21],
    ])
  })

  it('query returns the columns and rows of the last statement', () => {
    const db = Engine.open()
    expect(db.query("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x'); SELECT a, length(a) AS n FROM t")).toEqual({
      columns: [
        { name: 'a', type: 'text' },
        { name: 'n', type: 'integer' },
      ],
      rows: [['x', 1]],
    })
  })
})

describe('shared arrangements', () => {
  it('two views over the same join input read the same arrangements', () => {
    const db = joinDb()
    db.execute(`CREATE MATERIALIZED VIEW v1 AS ${JOIN_VIEW}; CREATE MATERIALIZED VIEW v2 AS ${JOIN_AGG_VIEW}`)
    const ids = arrangementIds(db, 'v1')
    expect(ids).toHaveLength(2)
    expect(arrangementIds(db, 'v2')).toEqual(ids)
    // the annotation shows the live state of the shared arrangement
    expect(explainView(db, 'v2')).toMatch(new RegExp(`\\[op ${ids[0]}: arrangement keyed by \\[#0\\]: 2 rows in 2 keys\\]`))
  })

  it('dropping one view keeps the other working on the same arrangements', () => {
    const db = joinDb()
    db.execute(`CREATE MATERIALIZED VIEW v1 AS ${JOIN_VIEW}; CREATE MATERIALIZED VIEW v2 AS ${JOIN_AGG_VIEW}`)
    const ids = arrangementIds(db, 'v2')
    db.execute('DROP MATERIALIZED VIEW v1')
    db.execute("INSERT INTO a VALUES (3, 30); INSERT INTO b VALUES (1, 'uno')")
    expect(sorted(db, 'SELECT * FROM v2')).toEqual([
      [1, 2],
      [3, 1],
    ])
    expect(arrangementIds(db, 'v2')).toEqual(ids)
    expect(explainView(db, 'v2')).toMatch(new RegExp(`\\[op ${ids[0]}: arrangement keyed by \\[#0\\]: 3 rows in 3 keys\\]`))
  })

  it('dropping both views frees the arrangements: a new view builds new ones', () => {
    const db = joinDb()
    db.execute(`CREATE MATERIALIZED VIEW v1 AS ${JOIN_VIEW}; CREATE MATERIALIZED VIEW v2 AS ${JOIN_AGG_VIEW}`)
    const old = arrangementIds(db, 'v1')
    db.execute('DROP MATERIALIZED VIEW v1; DROP MATERIALIZED VIEW v2')
    db.execute(`CREATE MATERIALIZED VIEW v3 AS ${JOIN_VIEW}`)
    const fresh = arrangementIds(db, 'v3')
    expect(fresh).toHaveLength(2)
    for (const id of fresh) expect(old).not.toContain(id)
    expect(sorted(db, 'SELECT * FROM v3')).toEqual([[10, 'one']])
  })

  it('a view created while another holds the arrangements shares them', () => {
    const db = joinDb()
    db.execute(`CREATE MATERIALIZED VIEW v1 AS ${JOIN_VIEW}`)
    db.execute("INSERT INTO a VALUES (3, 30); INSERT INTO b VALUES (3, 'tres')")
    // the late view is backfilled from the shared state and agrees with a fresh read
    db.execute(`CREATE MATERIALIZED VIEW v2 AS ${JOIN_AGG_VIEW}`)
    expect(arrangementIds(db, 'v2')).toEqual(arrangementIds(db, 'v1'))
    expect(sorted(db, 'SELECT * FROM v2')).toEqual(sorted(db, JOIN_AGG_VIEW))
  })

  it('an ad hoc read over the same join borrows the arrangements and leaves them to the view', () => {
    const db = joinDb()
    db.execute(`CREATE MATERIALIZED VIEW v1 AS ${JOIN_VIEW}`)
    const ids = arrangementIds(db, 'v1')
    expect(sorted(db, JOIN_AGG_VIEW)).toEqual([[1, 1]])
    db.execute('INSERT INTO a VALUES (3, 30)')
    expect(arrangementIds(db, 'v1')).toEqual(ids)
    expect(sorted(db, 'SELECT * FROM v1')).toEqual([
      [10, 'one'],
      [30, 'three'],
    ])
  })

  it('views with other join keys do not share', () => {
    const db = joinDb()
    db.execute(`CREATE MATERIALIZED VIEW v1 AS ${JOIN_VIEW}; CREATE MATERIALIZED VIEW v2 AS SELECT a.x FROM a JOIN b ON a.y = b.x`)
    const [l1, r1] = arrangementIds(db, 'v1')
    const [l2, r2] = arrangementIds(db, 'v2')
    // a is arranged by x in v1 and by y in v2; b by x in both
    expect(l2).not.toBe(l1)
    expect(r2).toBe(r1)
  })
})

describe('subscribe', () => {
  function subDb(): Engine {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v INT); INSERT INTO t VALUES (1, 10), (2, 20)')
    db.execute('CREATE MATERIALIZED VIEW big AS SELECT k, v FROM t WHERE v > 15')
    return db
  }

  it('delivers the current contents first, then one batch per tick that changes the view', () => {
    const db = subDb()
    const got: ChangeBatch[] = []
    db.subscribe('big', (b) => got.push(b))
    expect(got).toHaveLength(1)
    expect(got[0]!.tick).toBe(db.tick)
    expect(got[0]!.columns).toEqual([
      { name: 'k', type: 'integer' },
      { name: 'v', type: 'integer' },
    ])
    expect(changes(got[0]!)).toEqual([[[2, 20], 1]])
    db.execute('INSERT INTO t VALUES (3, 30)')
    db.execute('INSERT INTO t VALUES (4, 1)') // does not change the view: no batch
    db.execute('UPDATE t SET v = 25 WHERE k = 2')
    expect(got).toHaveLength(3)
    expect(got[1]!.tick).toBe(got[0]!.tick + 1)
    expect(changes(got[1]!)).toEqual([[[3, 30], 1]])
    // an update is a retraction and an insertion in the same batch
    expect(got[2]!.tick).toBe(db.tick)
    expect(changes(got[2]!)).toEqual([
      [[2, 20], -1],
      [[2, 25], 1],
    ])
  })

  it('with snapshot: false delivers only later changes', () => {
    const db = subDb()
    const got: ChangeBatch[] = []
    db.subscribe('big', (b) => got.push(b), { snapshot: false })
    expect(got).toHaveLength(0)
    db.execute('DELETE FROM t WHERE k = 2')
    expect(got.map(changes)).toEqual([[[[2, 20], -1]]])
  })

  it('delivers a snapshot batch even for an empty view', () => {
    const db = subDb()
    db.execute('CREATE MATERIALIZED VIEW none AS SELECT k FROM t WHERE v > 100')
    const got: ChangeBatch[] = []
    db.subscribe('none', (b) => got.push(b))
    expect(got.map((b) => b.changes)).toEqual([[]])
  })

  it('stops after unsubscribing; other subscribers go on', () => {
    const db = subDb()
    const first: ChangeBatch[] = []
    const second: ChangeBatch[] = []
    const { stop } = db.subscribe('big', (b) => first.push(b), { snapshot: false })
    db.subscribe('big', (b) => second.push(b), { snapshot: false })
    db.execute('INSERT INTO t VALUES (5, 50)')
    stop()
    stop() // a second call is harmless
    db.execute('INSERT INTO t VALUES (6, 60)')
    expect(first.map(changes)).toEqual([[[[5, 50], 1]]])
    expect(second.map(changes)).toEqual([[[[5, 50], 1]], [[[6, 60], 1]]])
  })

  it('subscribes to plain views too, and refuses tables and unknown names (42P01)', () => {
    const db = subDb()
    db.execute('CREATE VIEW small AS SELECT k FROM t WHERE v < 15')
    const got: ChangeBatch[] = []
    db.subscribe('small', (b) => got.push(b))
    db.execute('INSERT INTO t VALUES (7, 7)')
    expect(got.map(changes)).toEqual([[[[1], 1]], [[[7], 1]]])
    expect(thrown(() => db.subscribe('t', () => {})).code).toBe('42P01')
    expect(thrown(() => db.subscribe('nope', () => {})).code).toBe('42P01')
  })
})

describe('a failed statement changes nothing', () => {
  function failDb(): { db: Engine; got: ChangeBatch[] } {
    const db = Engine.open()
    db.execute(`
      CREATE TABLE t (k INT PRIMARY KEY, v INT);
      INSERT INTO t VALUES (1, 10), (2, 20);
      CREATE MATERIALIZED VIEW inv AS SELECT k, 100 / v AS r FROM t;
      CREATE MATERIALIZED VIEW total AS SELECT sum(v) AS s, count(*) AS n FROM t;
    `)
    const got: ChangeBatch[] = []
    db.subscribe('total', (b) => got.push(b), { snapshot: false })
    return { db, got }
  }

  const failing: [string, string, string][] = [
    // [why, statement, SQLSTATE]
    ['a duplicate key in the middle of a multi-row INSERT', 'INSERT INTO t VALUES (3, 30), (1, 11), (4, 40)', '23505'],
    ['an UPDATE that makes two rows share a key', 'UPDATE t SET k = 1', '23505'],
    ['a NOT NULL violation', 'INSERT INTO t VALUES (NULL, 1)', '23502'],
    ['an INSERT ... SELECT that fails while computing its rows', 'INSERT INTO t SELECT k + 10, v / 0 FROM t', '22012'],
    ['a CREATE VIEW whose backfill fails', 'CREATE MATERIALIZED VIEW bad AS SELECT k, v / (k - 1) FROM t', '22012'],
    ['a CREATE VIEW over an unknown column', 'CREATE MATERIALIZED VIEW bad AS SELECT nope FROM t', '42703'],
    ['a CREATE TABLE over an existing name', 'CREATE TABLE inv (z INT)', '42P07'],
    ['a DROP TABLE with dependent views', 'DROP TABLE t', '2BP01'],
  ]
  for (const [why, sql, code] of failing) {
    it(why, () => {
      const { db, got } = failDb()
      const before = state(db)
      const tick = db.tick
      expect(thrown(() => db.execute(sql)).code).toBe(code)
      expect(state(db)).toBe(before)
      expect(db.tick).toBe(tick)
      expect(got).toEqual([])
      // and the engine goes on normally
      db.execute('INSERT INTO t VALUES (5, 50)')
      expect(rows(db, 'SELECT * FROM total')).toEqual([[80, 3]])
      expect(got.map(changes)).toEqual([
        [
          [[30, 2], -1],
          [[80, 3], 1],
        ],
      ])
    })
  }

  it('a view that failed to build leaves shared arrangements intact', () => {
    const db = joinDb()
    db.execute(`CREATE MATERIALIZED VIEW v1 AS ${JOIN_VIEW}`)
    const ids = arrangementIds(db, 'v1')
    expect(thrown(() => db.execute('CREATE MATERIALIZED VIEW bad AS SELECT a.y / (a.x - 1) FROM a JOIN b ON a.x = b.x')).code).toBe('22012')
    db.execute("INSERT INTO a VALUES (3, 30); INSERT INTO b VALUES (3, 'tres')")
    expect(sorted(db, 'SELECT * FROM v1')).toEqual([
      [10, 'one'],
      [30, 'three'],
      [30, 'tres'],
    ])
    expect(arrangementIds(db, 'v1')).toEqual(ids)
    expect(db.relations().map((r) => r.name)).toEqual(['a', 'b', 'v1'])
  })
})

describe('transactions', () => {
  function txDb(): { db: Engine; got: ChangeBatch[] } {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v INT); INSERT INTO t VALUES (1, 10)')
    db.execute('CREATE MATERIALIZED VIEW s AS SELECT sum(v) AS total, count(*) AS n FROM t')
    const got: ChangeBatch[] = []
    db.subscribe('s', (b) => got.push(b), { snapshot: false })
    return { db, got }
  }

  it('BEGIN … COMMIT is one tick with the consolidated changes of the block', () => {
    const { db, got } = txDb()
    const tick = db.tick
    db.execute('BEGIN')
    expect(db.inTransaction).toBe(true)
    db.execute('INSERT INTO t VALUES (2, 5)')
    db.execute('UPDATE t SET v = 11 WHERE k = 1')
    db.execute('INSERT INTO t VALUES (3, 100)')
    db.execute('DELETE FROM t WHERE k = 3')
    // reads inside the block see its changes; subscribers hear nothing before COMMIT
    expect(rows(db, 'SELECT * FROM s')).toEqual([[16, 2]])
    expect(got).toEqual([])
    expect(db.execute('COMMIT')[0]!.command).toBe('COMMIT')
    expect(db.inTransaction).toBe(false)
    expect(db.tick).toBe(tick + 1)
    expect(got).toHaveLength(1)
    expect(got[0]!.tick).toBe(tick + 1)
    // the intermediate states (15, 2), (26, 3), ... cancel out
    expect(changes(got[0]!)).toEqual([
      [[10, 1], -1],
      [[16, 2], 1],
    ])
  })

  it('a block whose changes cancel out is a tick that delivers nothing', () => {
    const { db, got } = txDb()
    const tick = db.tick
    db.execute('BEGIN; INSERT INTO t VALUES (2, 5); DELETE FROM t WHERE k = 2; COMMIT')
    expect(got).toEqual([])
    expect(db.tick).toBe(tick + 1)
  })

  it('ROLLBACK restores tables and views and delivers nothing', () => {
    const { db, got } = txDb()
    const before = state(db)
    const tick = db.tick
    db.execute('BEGIN; INSERT INTO t VALUES (2, 5); UPDATE t SET v = 0; DELETE FROM t WHERE k = 1')
    expect(rows(db, 'SELECT * FROM s')).toEqual([[0, 1]])
    expect(db.execute('ROLLBACK')[0]!.command).toBe('ROLLBACK')
    expect(state(db)).toBe(before)
    expect(db.tick).toBe(tick)
    expect(got).toEqual([])
    // and the next tick starts from the restored state
    db.execute('INSERT INTO t VALUES (2, 5)')
    expect(got.map(changes)).toEqual([
      [
        [[10, 1], -1],
        [[15, 2], 1],
      ],
    ])
  })

  it('an error inside a block aborts it: 25P02 until ROLLBACK, which undoes the whole block', () => {
    const { db, got } = txDb()
    const before = state(db)
    db.execute('BEGIN; INSERT INTO t VALUES (2, 5)')
    expect(thrown(() => db.execute('INSERT INTO t VALUES (1, 1)')).code).toBe('23505')
    expect(db.inTransaction).toBe(true)
    const aborted = thrown(() => db.execute('INSERT INTO t VALUES (3, 3)'))
    expect(aborted.code).toBe('25P02')
    expect(aborted.message).toBe('current transaction is aborted, commands ignored until end of transaction block')
    expect(thrown(() => db.execute('SELECT 1')).code).toBe('25P02')
    db.execute('ROLLBACK')
    expect(db.inTransaction).toBe(false)
    expect(state(db)).toBe(before)
    expect(got).toEqual([])
    db.execute('INSERT INTO t VALUES (3, 3)')
    expect(rows(db, 'SELECT * FROM s')).toEqual([[13, 2]])
  })

  it('COMMIT of an aborted block rolls it back (command tag ROLLBACK)', () => {
    const { db, got } = txDb()
    const before = state(db)
    db.execute('BEGIN; UPDATE t SET v = 99')
    expect(thrown(() => db.execute('INSERT INTO t VALUES (NULL, 1)')).code).toBe('23502')
    expect(db.execute('COMMIT')[0]!.command).toBe('ROLLBACK')
    expect(db.inTransaction).toBe(false)
    expect(state(db)).toBe(before)
    expect(got).toEqual([])
  })

  it('db.insert inside a block joins the block', () => {
    const { db, got } = txDb()
    db.execute('BEGIN')
    db.insert('t', [[2, 2]])
    expect(got).toEqual([])
    db.execute('ROLLBACK')
    expect(rows(db, 'SELECT * FROM t')).toEqual([[1, 10]])
    db.execute('BEGIN')
    db.insert('t', [[2, 2]])
    db.delete('t', [[1, 10]])
    db.execute('COMMIT')
    expect(got.map(changes)).toEqual([
      [
        [[10, 1], -1],
        [[2, 1], 1],
      ],
    ])
  })
})

describe('db.insert and db.delete', () => {
  function apiDb(): Engine {
    const db = Engine.open()
    db.execute("CREATE TABLE t (k INT PRIMARY KEY, v TEXT DEFAULT 'dv', f DOUBLE PRECISION); CREATE TABLE bag (a INT, b TEXT)")
    return db
  }

  it('insert takes arrays in column order and objects by column name (missing → DEFAULT or NULL)', () => {
    const db = apiDb()
    expect(db.insert('t', [[1, 'a', 1.5], { k: 2 }, { f: 2, k: 3, v: null }])).toBe(3)
    expect(rows(db, 'SELECT * FROM t ORDER BY k')).toEqual([
      [1, 'a', 1.5],
      [2, 'dv', null],
      [3, null, 2],
    ])
  })

  it('each call is one tick', () => {
    const db = apiDb()
    const tick = db.tick
    db.insert('t', [[1, 'a', 1], [2, 'b', 2]])
    db.delete('t', [[1, 'a', 1]])
    expect(db.tick).toBe(tick + 2)
  })

  it('delete on a keyed table removes the rows with the given keys', () => {
    const db = apiDb()
    db.insert('t', [[1, 'a', 1], [2, 'b', 2], [3, 'c', 3]])
    // only the key decides: the other values need not match
    expect(db.delete('t', [{ k: 2 }, [3, 'other', 0], { k: 9 }])).toBe(2)
    expect(rows(db, 'SELECT k FROM t')).toEqual([[1]])
  })

  it('insert keeps duplicates in a bag; delete removes at most as many copies as exist', () => {
    const db = apiDb()
    expect(db.insert('bag', [[1, 'x'], [1, 'x'], { a: 2 }])).toBe(3)
    expect(db.delete('bag', [[1, 'x'], { a: 1, b: 'x' }, [1, 'x'], [9, 'z']])).toBe(2)
    expect(rows(db, 'SELECT * FROM bag')).toEqual([[2, null]])
  })

  it('views see the changes like SQL DML', () => {
    const db = apiDb()
    db.execute('CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n, sum(f) AS s FROM t')
    db.insert('t', [[1, 'a', 1.5], [2, 'b', 2.5]])
    db.delete('t', [{ k: 1 }])
    expect(rows(db, 'SELECT * FROM c')).toEqual([[1, 2.5]])
  })

  it('refuses bad rows and bad targets with SQLSTATEs, changing nothing', () => {
    const db = apiDb()
    db.insert('t', [[1, 'a', 1]])
    const before = state(db)
    expect(thrown(() => db.insert('t', [[2, 'b']])).code).toBe('42601') // wrong arity
    expect(thrown(() => db.insert('t', [{ k: 'abc' }])).code).toBe('22P02') // not an integer
    expect(thrown(() => db.insert('t', [[2, 'b', 2], [1, 'dup', 0]])).code).toBe('23505')
    expect(thrown(() => db.insert('t', [{ v: 'no key' }])).code).toBe('23502')
    expect(thrown(() => db.insert('nope', [[1]])).code).toBe('42P01')
    db.execute('CREATE MATERIALIZED VIEW mv AS SELECT k FROM t')
    expect(thrown(() => db.insert('mv', [[1]])).code).toBe('42809')
    expect(thrown(() => db.delete('mv', [[1]])).code).toBe('42809')
    db.execute('DROP MATERIALIZED VIEW mv')
    expect(state(db)).toBe(before)
  })
})

describe('errors', () => {
  it('are RivuletErrors with a SQLSTATE and a 1-based position into the SQL text', () => {
    const db = joinDb()
    // WHER is taken as an alias of a, so the error is at y (as in PostgreSQL)
    const syntax = thrown(() => db.execute('SELECT x\nFROM a\nWHER y > 1'))
    expect(syntax.code).toBe('42601')
    expect(syntax.message).toBe('syntax error at or near "y"')
    expect(syntax.position).toEqual({ line: 3, column: 6, offset: 21 })
    const column = thrown(() => db.execute('SELECT x,\n  nope FROM a'))
    expect(column.code).toBe('42703')
    expect(column.message).toBe('column "nope" does not exist')
    expect(column.position).toEqual({ line: 2, column: 3, offset: 12 })
    const table = thrown(() => db.query('SELECT * FROM missing'))
    expect(table.code).toBe('42P01')
    expect(table.position).toEqual({ line: 1, column: 15, offset: 14 })
  })

  it('point into the statement that failed within a multi-statement text', () => {
    const db = joinDb()
    const e = thrown(() => db.execute('SELECT 1;\nSELECT nope FROM a'))
    expect(e.code).toBe('42703')
    expect(e.position).toEqual({ line: 2, column: 8, offset: 17 })
  })

  it('carry no position when they are about data, not text', () => {
    const db = joinDb()
    const e = thrown(() => db.query('SELECT y / (x - 1) FROM a'))
    expect(e.code).toBe('22012')
    expect(e.position).toBeUndefined()
  })

  it('after close(), every call fails with 55000', () => {
    const db = joinDb()
    db.close()
    expect(thrown(() => db.query('SELECT 1')).code).toBe('55000')
    expect(thrown(() => db.insert('a', [[1, 1]])).code).toBe('55000')
    expect(thrown(() => db.subscribe('a', () => {})).code).toBe('55000')
  })
})

describe('DROP with dependents', () => {
  function depDb(): Engine {
    const db = Engine.open()
    db.execute(`
      CREATE TABLE t (k INT, v INT);
      CREATE TABLE other (z INT);
      INSERT INTO t VALUES (1, 10), (2, 20);
      CREATE MATERIALIZED VIEW m AS SELECT k, v FROM t WHERE v > 5;
      CREATE VIEW w AS SELECT count(*) AS n FROM m;
      CREATE MATERIALIZED VIEW alone AS SELECT z FROM other;
    `)
    return db
  }

  it('DROP TABLE with dependent views fails with 2BP01 naming them', () => {
    const db = depDb()
    const e = thrown(() => db.execute('DROP TABLE t'))
    expect(e.code).toBe('2BP01')
    expect(e.message).toMatch(/view m/)
    expect(thrown(() => db.execute('DROP MATERIALIZED VIEW m')).code).toBe('2BP01')
    expect(db.relations().map((r) => r.name)).toEqual(['t', 'other', 'm', 'w', 'alone'])
  })

  it('CASCADE drops the views over the table, transitively, and nothing else', () => {
    const db = depDb()
    expect(db.execute('DROP TABLE t CASCADE')[0]!.command).toBe('DROP TABLE')
    expect(db.relations().map((r) => r.name)).toEqual(['other', 'alone'])
    expect(thrown(() => db.query('SELECT * FROM w')).code).toBe('42P01')
    // the name is free again, and unrelated views keep working
    db.execute('CREATE TABLE t (k INT); INSERT INTO other VALUES (7)')
    expect(rows(db, 'SELECT * FROM alone')).toEqual([[7]])
  })

  it('dropping the views first, top down, needs no CASCADE', () => {
    const db = depDb()
    db.execute('DROP VIEW w; DROP MATERIALIZED VIEW m; DROP TABLE t')
    expect(db.relations().map((r) => r.name)).toEqual(['other', 'alone'])
  })

  it('DROP of the wrong kind fails with 42809; IF EXISTS skips missing names', () => {
    const db = depDb()
    expect(thrown(() => db.execute('DROP VIEW t')).code).toBe('42809')
    expect(thrown(() => db.execute('DROP TABLE m')).code).toBe('42809')
    expect(thrown(() => db.execute('DROP VIEW m')).code).toBe('42809') // m is materialized
    expect(thrown(() => db.execute('DROP TABLE nope')).code).toBe('42P01')
    expect(db.execute('DROP TABLE IF EXISTS nope')[0]!.command).toBe('DROP TABLE')
  })
})

describe('streams', () => {
  it('accept inserts and refuse UPDATE and DELETE (SQL and db.delete) with 0A000', () => {
    const db = Engine.open()
    db.execute("CREATE STREAM s (a INT, b TEXT); CREATE TABLE ap (a INT) APPEND ONLY; INSERT INTO s VALUES (1, 'x')")
    db.insert('s', [[2, 'y']])
    expect(thrown(() => db.execute('UPDATE s SET a = 3')).code).toBe('0A000')
    expect(thrown(() => db.execute('DELETE FROM s WHERE a = 1')).code).toBe('0A000')
    expect(thrown(() => db.delete('s', [[1, 'x']])).code).toBe('0A000')
    expect(thrown(() => db.execute('DELETE FROM ap')).code).toBe('0A000')
    expect(sorted(db, 'SELECT * FROM s')).toEqual([
      [1, 'x'],
      [2, 'y'],
    ])
    expect(db.relations().map((r) => [r.name, r.kind])).toEqual([
      ['s', 'stream'],
      ['ap', 'stream'],
    ])
  })

  it('a statement that carried late events says so in a notice, naming the count and the stream', () => {
    const db = Engine.open()
    db.execute("CREATE STREAM s (ts TIMESTAMP, v INT, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)")
    const first = db.execute("INSERT INTO s VALUES ('2024-01-01 10:00:00', 1)")[0]!
    expect(first.notice).toBeUndefined()
    const [r] = db.execute("INSERT INTO s VALUES ('2024-01-01 09:00:00', 2), ('2024-01-01 10:00:30', 3), ('2024-01-01 08:00:00', 4)")
    expect(r!.command).toBe('INSERT 0 1')
    expect(r!.notice).toBe('2 late events on stream "s" not applied (event time below the watermark): see rivulet_late_events')
    // the next statement has none of its own
    expect(db.execute("INSERT INTO s VALUES ('2024-01-01 10:01:00', 5)")[0]!.notice).toBeUndefined()
    expect(db.query('SELECT count(*) FROM rivulet_late_events').rows).toEqual([[2]])
    // in a transaction block too, and once: not again when another session's statement
    // parks the block and this session's next statement redoes it
    const a = db.session()
    const b = db.session()
    a.execute('BEGIN')
    expect(a.execute("INSERT INTO s VALUES ('2024-01-01 07:00:00', 6)")[0]!.notice).toBe('1 late event on stream "s" not applied (event time below the watermark): see rivulet_late_events')
    expect(b.execute('SELECT count(*) FROM s')[0]!.notice).toBeUndefined()
    expect(a.execute("INSERT INTO s VALUES ('2024-01-01 10:02:00', 7)")[0]!.notice).toBeUndefined()
    a.execute('COMMIT')
  })

  it('a view over a stream created later is backfilled from its history', () => {
    const db = Engine.open()
    db.execute('CREATE STREAM s (a INT); INSERT INTO s VALUES (1), (2), (2)')
    db.execute('CREATE MATERIALIZED VIEW c AS SELECT a, count(*) AS n FROM s GROUP BY a')
    db.insert('s', [[2]])
    expect(sorted(db, 'SELECT * FROM c')).toEqual([
      [1, 1],
      [2, 3],
    ])
  })
})

describe('views over views', () => {
  it('are maintained through every layer, in one tick', () => {
    const db = Engine.open()
    db.execute(`
      CREATE TABLE t (g TEXT, v INT);
      CREATE MATERIALIZED VIEW per_g AS SELECT g, sum(v) AS s FROM t GROUP BY g;
      CREATE MATERIALIZED VIEW top AS SELECT g, s FROM per_g ORDER BY s DESC LIMIT 1;
      CREATE VIEW names AS SELECT upper(g) AS u FROM top;
    `)
    const got: ChangeBatch[] = []
    db.subscribe('names', (b) => got.push(b), { snapshot: false })
    db.execute("INSERT INTO t VALUES ('a', 1), ('b', 2)")
    expect(rows(db, 'SELECT * FROM names')).toEqual([['B']])
    db.execute("INSERT INTO t VALUES ('a', 5)")
    expect(rows(db, 'SELECT * FROM top')).toEqual([['a', 6]])
    expect(got.map(changes)).toEqual([
      [[['B'], 1]],
      [
        [['A'], 1],
        [['B'], -1],
      ],
    ])
    // EXPLAIN MATERIALIZED VIEW reads the view below as an input
    expect(explainView(db, 'top')).toMatch(/Input per_g/)
  })
})

describe('relations()', () => {
  it('lists every relation with its kind, columns (Postgres type names), key and definition', () => {
    const db = Engine.open()
    db.execute(`
      CREATE TABLE t (k INT PRIMARY KEY, name VARCHAR NOT NULL DEFAULT 'anon', score DOUBLE PRECISION, at TIMESTAMP);
      CREATE STREAM s (id BIGINT, ok BOOLEAN);
      CREATE STREAM e (ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND);
      CREATE TABLE r (cur TEXT PRIMARY KEY, vf TIMESTAMP, WATERMARK FOR vf AS vf);
      CREATE MATERIALIZED VIEW m AS SELECT k, score * 2 AS double_score FROM t;
      CREATE VIEW v AS SELECT count(*) AS n FROM s WHERE ok;
    `)
    expect(db.relations()).toEqual([
      {
        name: 't',
        kind: 'table',
        columns: [
          { name: 'k', type: 'integer' },
          { name: 'name', type: 'text' },
          { name: 'score', type: 'double precision' },
          { name: 'at', type: 'timestamp' },
        ],
        primaryKey: ['k'],
        notNull: ['k', 'name'],
        defaults: { name: "'anon'" },
      },
      { name: 's', kind: 'stream', columns: [{ name: 'id', type: 'bigint' }, { name: 'ok', type: 'boolean' }], primaryKey: [], notNull: [], defaults: {} },
      { name: 'e', kind: 'stream', columns: [{ name: 'ts', type: 'timestamp' }], primaryKey: [], notNull: ['ts'], defaults: {}, watermark: { column: 'ts', expression: "ts - INTERVAL '5' SECOND" } },
      {
        name: 'r',
        kind: 'table',
        columns: [
          { name: 'cur', type: 'text' },
          { name: 'vf', type: 'timestamp' },
        ],
        primaryKey: ['cur'],
        notNull: ['cur', 'vf'],
        defaults: {},
        watermark: { column: 'vf', expression: 'vf' },
        versioned: true,
      },
      {
        name: 'm',
        kind: 'materialized view',
        columns: [
          { name: 'k', type: 'integer' },
          { name: 'double_score', type: 'double precision' },
        ],
        primaryKey: [],
        definition: 'SELECT k, score * 2 AS double_score FROM t',
        notNull: [],
        defaults: {},
      },
      { name: 'v', kind: 'view', columns: [{ name: 'n', type: 'bigint' }], primaryKey: [], definition: 'SELECT count(*) AS n FROM s WHERE ok', notNull: [], defaults: {} },
    ])
  })
})

describe('subscribeStatement (SUBSCRIBE as a statement)', () => {
  it('streams a table, a view or a query: snapshot, then changes; stop() drops the hidden view', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v INT)')
    db.execute('CREATE VIEW s AS SELECT sum(v) AS total FROM t')
    db.execute('INSERT INTO t VALUES (1, 10)')
    const seen: string[] = []
    const onTable = db.subscribeStatement('SUBSCRIBE TO t', (b) => seen.push(`t ${b.tick} ${JSON.stringify(b.changes)}`))
    const onView = db.subscribeStatement('SUBSCRIBE s WITH (SNAPSHOT = false)', (b) => seen.push(`s ${b.tick} ${JSON.stringify(b.changes)}`))
    const onQuery = db.subscribeStatement('SUBSCRIBE (SELECT k FROM t WHERE v > 15)', (b) => seen.push(`q ${b.tick} ${JSON.stringify(b.changes)}`))
    expect(onQuery.columns).toEqual([{ name: 'k', type: 'integer' }])
    db.execute('UPDATE t SET v = 20')
    expect(seen).toEqual([
      't 1 [[[1,10],1]]',
      'q 1 []',
      't 2 [[[1,10],-1],[[1,20],1]]',
      's 2 [[[10],-1],[[20],1]]',
      'q 2 [[[1],1]]',
    ])
    expect(db.relations().map((r) => r.name)).toEqual(['t', 's'])
    onTable.stop()
    onView.stop()
    onQuery.stop()
    onQuery.stop()
    db.execute('INSERT INTO t VALUES (2, 1)')
    expect(seen).toHaveLength(5)
    expect(() => db.subscribeStatement('SUBSCRIBE nope', () => {})).toThrow(/does not exist/)
    expect(() => db.subscribeStatement('SUBSCRIBE t WITH (PROGRESS)', () => {})).toThrow(/unrecognized SUBSCRIBE option/)
    expect(() => db.execute('SUBSCRIBE t')).toThrow(/subscribeStatement/)
  })
})

describe('primary-key reads', () => {
  it('look rows up by key (literals, casts, IN lists, composite keys) with the same results as a scan', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, v TEXT)')
    db.execute('CREATE TABLE u (a TEXT, b INT, x INT, PRIMARY KEY (a, b))')
    db.insert('t', [[1, 'one'], [2, 'two'], [5, 'five']])
    db.insert('u', [['p', 1, 10], ['p', 2, 20], ['q', 1, 30]])
    const rows = (sql: string) => db.query(sql).rows
    expect(rows('SELECT * FROM t WHERE k = 5')).toEqual([[5, 'five']])
    expect(rows("SELECT v FROM t WHERE k = '5'::int4")).toEqual([['five']])
    expect(rows("SELECT v FROM t WHERE '2' = k")).toEqual([['two']])
    expect(rows('SELECT k FROM t WHERE k IN (1, 1, 5, 7, NULL) ORDER BY k')).toEqual([[1], [5]])
    expect(rows('SELECT * FROM t WHERE k = NULL')).toEqual([])
    expect(rows('SELECT * FROM t WHERE k = 5.0')).toEqual([[5, 'five']])
    expect(rows("SELECT x FROM u WHERE b = 1 AND a IN ('p', 'q') ORDER BY x")).toEqual([[10], [30]])
    expect(rows("SELECT x FROM u WHERE a = 'p'")).toEqual([[10], [20]])
    expect(() => db.query("SELECT * FROM t WHERE k = 'x'")).toThrow(/invalid input syntax for type integer/)
    db.execute("UPDATE t SET v = 'FIVE' WHERE k = 5")
    expect(rows('SELECT v FROM t WHERE k = 5')).toEqual([['FIVE']])
  })
})

describe('INSERT … VALUES with subqueries (found by the statement fuzzer)', () => {
  it('computes the row through the dataflow, typed by the target columns, reading the table as before the statement', () => {
    const db = new Engine()
    db.execute('CREATE TABLE r (a INT, b INT, c TEXT, d DATE)')
    db.execute("INSERT INTO r VALUES ((SELECT 11), 1, 'x', '2024-01-01')")
    db.execute("INSERT INTO r VALUES ((SELECT (SELECT (SELECT 12))), NULL, NULL, NULL), (13, (SELECT max(a) FROM r), 'y', '2024-01-02')")
    expect(db.query('SELECT a, b, d FROM r ORDER BY a').rows).toEqual([[11, 1, '2024-01-01'], [12, null, null], [13, 11, '2024-01-02']])
    expect(() => db.execute('INSERT INTO r (a) VALUES ((SELECT a FROM r))')).toThrow(expect.objectContaining({ code: '21000' }))
    expect(() => db.execute('INSERT INTO r (a) VALUES ((SELECT 1 / 0))')).toThrow(expect.objectContaining({ code: '22012' }))
    expect(db.query('SELECT count(*) FROM r').rows).toEqual([[3]])
  })
})

describe('constant expressions refuse subqueries (found by the statement fuzzer)', () => {
  it('DEFAULT and WITH options: 0A000 with a position, not an internal error', () => {
    const db = new Engine()
    for (const [sql, message] of [
      ['CREATE TABLE d1 (a INT DEFAULT (SELECT 1))', 'cannot use subquery in DEFAULT expression'],
      ['CREATE TABLE d1 (a INT DEFAULT 1 + (SELECT 1))', 'cannot use subquery in DEFAULT expression'],
      ["CREATE SOURCE n2 WITH (connector = 'nexmark', events = (SELECT 2000))", 'cannot use subquery in a WITH option'],
    ] as const) {
      let e: unknown
      try {
        db.execute(sql)
      } catch (x) {
        e = x
      }
      expect(e).toBeInstanceOf(RivuletError)
      expect((e as RivuletError).code).toBe('0A000')
      expect((e as RivuletError).message).toBe(message)
      expect((e as RivuletError).position).toBeDefined()
    }
    expect(db.relations().map((r) => r.name)).not.toContain('d1')
  })
})
