// Upserts (REPLACE / INSERT OR REPLACE / INSERT OR IGNORE / ON CONFLICT DO NOTHING | DO UPDATE),
// REINDEX and SQLite-style triggers, at the engine level: the deltas upserts produce (seen
// through materialized views, which must equal a recompute after every statement), their
// errors, and the catalog rules of triggers.
import { describe, expect, it } from 'vitest'
import { Engine, RivuletError } from '../../src/index.js'
import type { ChangeBatch, ResultValue } from '../../src/index.js'
import { main } from '../../src/cli/cli.js'
import { splitStatements } from '../../src/sql-runtime/split.js'

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

const canon = (rs: ResultValue[][]): ResultValue[][] => [...rs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))

function sorted(db: Engine, sql: string): ResultValue[][] {
  return canon(db.query(sql).rows)
}

/** A batch's changes in a canonical order. */
function changes(b: ChangeBatch): [ResultValue[], number][] {
  return [...b.changes].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))
}

/** Everything observable about the data. */
function state(db: Engine): string {
  return JSON.stringify(db.relations().map((r) => [r.name, r.kind, sorted(db, `SELECT * FROM ${r.name}`)]))
}

const VIEWS: Record<string, string> = {
  by_g: 'SELECT g, count(*) AS c, sum(n) AS s, max(k) AS mk FROM t GROUP BY g',
  pos: 'SELECT k, g, n FROM t WHERE n IS NULL OR n >= 0',
  joined: 'SELECT t.k, t.n, l.label FROM t JOIN labels AS l ON l.g = t.g',
}

function upsertDb(): Engine {
  const db = Engine.open()
  db.execute(`
    CREATE TABLE t (k INT PRIMARY KEY, g TEXT NOT NULL DEFAULT 'dflt', n INT);
    CREATE TABLE labels (g TEXT, label TEXT);
    INSERT INTO labels VALUES ('a', 'A'), ('b', 'B'), ('b', 'B2'), ('dflt', 'D');
  `)
  for (const [name, sql] of Object.entries(VIEWS)) db.execute(`CREATE MATERIALIZED VIEW ${name} AS ${sql}`)
  return db
}

/** Every view equals its query run from scratch. */
function expectViewsCurrent(db: Engine, context: string): void {
  for (const [name, sql] of Object.entries(VIEWS)) expect(sorted(db, `SELECT * FROM ${name}`), `${name} after ${context}`).toEqual(sorted(db, sql))
}

describe('REPLACE / INSERT OR REPLACE', () => {
  it('replaces the stored row in one tick: the view sees −old +new', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
    const batches: ChangeBatch[] = []
    db.subscribe('pos', (b) => batches.push(b), { snapshot: false })
    const tick = db.tick
    expect(db.execute("REPLACE INTO t VALUES (1, 'b', 11)")[0]).toMatchObject({ command: 'INSERT 0 1', rowCount: 1 })
    expect(batches.length).toBe(1)
    expect(batches[0]!.tick).toBe(tick + 1)
    expect(changes(batches[0]!)).toEqual([
      [[1, 'a', 10], -1],
      [[1, 'b', 11], 1],
    ])
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'b', 11],
      [2, 'b', 20],
    ])
    expect(sorted(db, 'SELECT * FROM by_g')).toEqual([['b', 2, 31, 2]])
    expectViewsCurrent(db, 'REPLACE')
  })

  it('INSERT OR REPLACE is the same statement; a new key is a plain insert', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10)")
    const batches: ChangeBatch[] = []
    db.subscribe('pos', (b) => batches.push(b), { snapshot: false })
    db.execute("INSERT OR REPLACE INTO t (k, g, n) VALUES (1, 'a', 12), (3, 'b', 30)")
    expect(changes(batches[0]!)).toEqual([
      [[1, 'a', 10], -1],
      [[1, 'a', 12], 1],
      [[3, 'b', 30], 1],
    ])
    expectViewsCurrent(db, 'INSERT OR REPLACE')
  })

  it('of several rows for one key the last one wins; identical replacement changes nothing', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10)")
    const batches: ChangeBatch[] = []
    db.subscribe('pos', (b) => batches.push(b), { snapshot: false })
    expect(db.execute("REPLACE INTO t VALUES (1, 'a', 1), (1, 'b', 2), (4, 'a', 4), (4, 'b', 5)")[0]!.rowCount).toBe(4)
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'b', 2],
      [4, 'b', 5],
    ])
    expect(changes(batches[0]!)).toEqual([
      [[1, 'a', 10], -1],
      [[1, 'b', 2], 1],
      [[4, 'b', 5], 1],
    ])
    db.execute("REPLACE INTO t VALUES (1, 'b', 2)")
    expect(batches.length).toBe(1) // no change, no batch
    expectViewsCurrent(db, 'REPLACE with duplicates')
  })

  it('REPLACE … SELECT', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
    db.execute('REPLACE INTO t SELECT k + 1, g, n * 2 FROM t')
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'a', 10],
      [2, 'a', 20],
      [3, 'b', 40],
    ])
    expectViewsCurrent(db, 'REPLACE SELECT')
  })

  it('on a table without a primary key it is a plain insert', () => {
    const db = upsertDb()
    db.execute("REPLACE INTO labels VALUES ('a', 'A'), ('a', 'A')")
    expect(sorted(db, "SELECT * FROM labels WHERE g = 'a'")).toEqual([
      ['a', 'A'],
      ['a', 'A'],
      ['a', 'A'],
    ])
    expectViewsCurrent(db, 'REPLACE into a bag')
  })

  it('NULL in a NOT NULL column takes the default (SQLite), or fails without one', () => {
    const db = upsertDb()
    db.execute("REPLACE INTO t VALUES (1, NULL, 5)")
    expect(sorted(db, 'SELECT * FROM t')).toEqual([[1, 'dflt', 5]])
    db.execute('CREATE TABLE s (k INT PRIMARY KEY, v TEXT NOT NULL)')
    const before = state(db)
    expect(thrown(() => db.execute('REPLACE INTO s VALUES (1, NULL)')).code).toBe('23502')
    expect(state(db)).toBe(before)
  })

  it('a failing REPLACE changes nothing; inside a transaction ROLLBACK undoes it', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10)")
    const before = state(db)
    expect(thrown(() => db.execute("REPLACE INTO t VALUES (1, 'b', 11), (2, 'b', 'x')")).code).toBe('22P02')
    expect(state(db)).toBe(before)
    db.execute("BEGIN; REPLACE INTO t VALUES (1, 'b', 11); INSERT OR REPLACE INTO t VALUES (2, 'a', 1)")
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'b', 11],
      [2, 'a', 1],
    ])
    db.execute('ROLLBACK')
    expect(state(db)).toBe(before)
    expectViewsCurrent(db, 'ROLLBACK')
  })

  it('a stream accepts REPLACE of a new key but not one that would replace a row', () => {
    const db = Engine.open()
    db.execute('CREATE STREAM s (k INT PRIMARY KEY, v TEXT)')
    db.execute("REPLACE INTO s VALUES (1, 'a')")
    const e = thrown(() => db.execute("REPLACE INTO s VALUES (1, 'b')"))
    expect(e.code).toBe('0A000')
    expect(db.query('SELECT * FROM s').rows).toEqual([[1, 'a']])
  })
})

describe('INSERT OR IGNORE and ON CONFLICT DO NOTHING', () => {
  it('skip rows whose key is stored or proposed earlier in the statement', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10)")
    const batches: ChangeBatch[] = []
    db.subscribe('pos', (b) => batches.push(b), { snapshot: false })
    expect(db.execute("INSERT OR IGNORE INTO t VALUES (1, 'b', 1), (2, 'b', 2), (2, 'a', 3)")[0]).toMatchObject({ command: 'INSERT 0 1' })
    expect(changes(batches[0]!)).toEqual([[[2, 'b', 2], 1]])
    expect(db.execute("INSERT INTO t VALUES (2, 'x', 0), (3, 'a', 3), (3, 'x', 0) ON CONFLICT (k) DO NOTHING")[0]!.rowCount).toBe(1)
    expect(db.execute("INSERT INTO t VALUES (3, 'x', 0), (4, 'a', 4) ON CONFLICT DO NOTHING")[0]!.rowCount).toBe(1)
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'a', 10],
      [2, 'b', 2],
      [3, 'a', 3],
      [4, 'a', 4],
    ])
    expectViewsCurrent(db, 'OR IGNORE / DO NOTHING')
  })

  it('OR IGNORE also skips a row with NULL in a NOT NULL column (SQLite); DO NOTHING does not', () => {
    const db = upsertDb()
    expect(db.execute("INSERT OR IGNORE INTO t VALUES (1, NULL, 1), (2, 'a', 2)")[0]!.rowCount).toBe(1)
    expect(sorted(db, 'SELECT k FROM t')).toEqual([[2]])
    expect(thrown(() => db.execute('INSERT INTO t VALUES (3, NULL, 1) ON CONFLICT DO NOTHING')).code).toBe('23502')
  })

  it('DO NOTHING on a table without a key inserts everything; a conflict target there is 42P10', () => {
    const db = upsertDb()
    expect(db.execute("INSERT INTO labels VALUES ('a', 'A') ON CONFLICT DO NOTHING")[0]!.rowCount).toBe(1)
    const e = thrown(() => db.execute("INSERT INTO labels VALUES ('a', 'A') ON CONFLICT (g) DO NOTHING"))
    expect(e.code).toBe('42P10')
    expect(e.message).toBe('there is no unique or exclusion constraint matching the ON CONFLICT specification')
  })
})

describe('INSERT … ON CONFLICT (key) DO UPDATE', () => {
  it('updates the stored row from its columns (bare or qualified) and EXCLUDED', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
    const batches: ChangeBatch[] = []
    db.subscribe('by_g', (b) => batches.push(b), { snapshot: false })
    const r = db.execute("INSERT INTO t VALUES (1, 'b', 5), (3, 'a', 30) ON CONFLICT (k) DO UPDATE SET n = n + excluded.n, g = t.g || excluded.g")
    expect(r[0]).toMatchObject({ command: 'INSERT 0 2', rowCount: 2 })
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'ab', 15],
      [2, 'b', 20],
      [3, 'a', 30],
    ])
    expect(batches.length).toBe(1)
    expect(changes(batches[0]!)).toEqual([
      [['a', 1, 10, 1], -1],
      [['a', 1, 30, 3], 1],
      [['ab', 1, 15, 1], 1],
    ])
    expectViewsCurrent(db, 'DO UPDATE')
  })

  it('WHERE decides per row; a row it rejects stays and is not counted', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'a', NULL)")
    const r = db.execute("INSERT INTO t VALUES (1, 'x', 1), (2, 'x', 2), (3, 'x', 3) ON CONFLICT (k) DO UPDATE SET n = excluded.n WHERE t.n < 15 AND excluded.g = 'x'")
    expect(r[0]!.rowCount).toBe(1)
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'a', 1],
      [2, 'b', 20],
      [3, 'a', null],
    ])
    expectViewsCurrent(db, 'DO UPDATE WHERE')
  })

  it('the conflict target may list the key columns in any order', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE p (a INT, b INT, v INT, PRIMARY KEY (a, b))')
    db.execute('CREATE MATERIALIZED VIEW pv AS SELECT a, sum(v) AS s FROM p GROUP BY a')
    db.execute('INSERT INTO p VALUES (1, 1, 1), (1, 2, 2)')
    db.execute('INSERT INTO p VALUES (1, 2, 5), (2, 1, 7) ON CONFLICT (b, a) DO UPDATE SET v = p.v * 10 + excluded.v')
    expect(sorted(db, 'SELECT * FROM p')).toEqual([
      [1, 1, 1],
      [1, 2, 25],
      [2, 1, 7],
    ])
    expect(sorted(db, 'SELECT * FROM pv')).toEqual(sorted(db, 'SELECT a, sum(v) AS s FROM p GROUP BY a'))
    expect(thrown(() => db.execute('INSERT INTO p VALUES (1, 1, 1) ON CONFLICT (a) DO UPDATE SET v = 0')).code).toBe('42P10')
  })

  it('may change the key; moving onto a stored key is 23505 and changes nothing', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
    db.execute("INSERT INTO t VALUES (1, 'a', 0) ON CONFLICT (k) DO UPDATE SET k = t.k + 100")
    expect(sorted(db, 'SELECT k FROM t')).toEqual([[101], [2]])
    const before = state(db)
    const e = thrown(() => db.execute("INSERT INTO t VALUES (2, 'a', 0) ON CONFLICT (k) DO UPDATE SET k = 101"))
    expect(e.code).toBe('23505')
    expect(e.detail).toBe('Key (k)=(101) already exists.')
    expect(state(db)).toBe(before)
    expectViewsCurrent(db, 'key change')
  })

  it('a row proposed twice for one key is 21000 and the statement changes nothing', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10)")
    const before = state(db)
    for (const sql of [
      "INSERT INTO t VALUES (1, 'a', 1), (1, 'b', 2) ON CONFLICT (k) DO UPDATE SET n = excluded.n",
      "INSERT INTO t VALUES (5, 'a', 1), (6, 'a', 1), (5, 'b', 2) ON CONFLICT (k) DO UPDATE SET n = excluded.n",
      // the first row moves key 1 to 7, the second conflicts with the moved row
      "INSERT INTO t VALUES (1, 'a', 1), (7, 'b', 2) ON CONFLICT (k) DO UPDATE SET k = 7",
    ]) {
      const e = thrown(() => db.execute(sql))
      expect(e.code, sql).toBe('21000')
      expect(e.message).toBe('ON CONFLICT DO UPDATE command cannot affect row a second time')
      expect(state(db)).toBe(before)
    }
    // a key an update moved away from is free again: the later row is an insert
    db.execute("INSERT INTO t VALUES (1, 'a', 1), (1, 'b', 2) ON CONFLICT (k) DO UPDATE SET k = 8")
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'b', 2],
      [8, 'a', 10],
    ])
    expectViewsCurrent(db, '21000')
  })

  it('a subquery in SET reads the tables as they were before the statement', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
    db.execute("INSERT INTO t VALUES (1, 'a', 0), (3, 'a', 99), (2, 'b', 0) ON CONFLICT (k) DO UPDATE SET n = (SELECT max(n) FROM t) + excluded.k")
    expect(sorted(db, 'SELECT * FROM t')).toEqual([
      [1, 'a', 21],
      [2, 'b', 22],
      [3, 'a', 99],
    ])
    db.execute("INSERT INTO t VALUES (1, 'a', 0) ON CONFLICT (k) DO UPDATE SET n = 0 WHERE t.k IN (SELECT k FROM t WHERE n > 90)")
    expect(sorted(db, 'SELECT n FROM t WHERE k = 1')).toEqual([[21]])
    expectViewsCurrent(db, 'subquery in SET')
  })

  it('errors: conflict target, missing target, columns, NOT NULL, types, combinations', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 10)")
    const before = state(db)
    const cases: [string, string, string | undefined][] = [
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (g) DO UPDATE SET n = 1", '42P10', 'there is no unique or exclusion constraint matching the ON CONFLICT specification'],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k, g) DO NOTHING", '42P10', undefined],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (nope) DO NOTHING", '42703', 'column "nope" does not exist'],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT DO UPDATE SET n = 1", '42601', 'ON CONFLICT DO UPDATE requires inference specification or constraint name'],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET nope = 1", '42703', undefined],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET n = excluded.nope", '42703', undefined],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET n = u.n", '42P01', undefined],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET n = 1, n = 2", '42601', 'multiple assignments to same column "n"'],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET g = NULL", '23502', undefined],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET n = 'x'", '22P02', undefined],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET n = 1 WHERE excluded.n", '42804', undefined],
      ["INSERT OR REPLACE INTO t VALUES (1, 'a', 1) ON CONFLICT DO NOTHING", '0A000', undefined],
      ["INSERT INTO t VALUES (1, 'a', 1) ON CONFLICT (k) DO UPDATE SET n = t.n / 0", '22012', undefined],
    ]
    for (const [sql, code, message] of cases) {
      const e = thrown(() => db.execute(sql))
      expect(e.code, sql).toBe(code)
      if (message !== undefined) expect(e.message, sql).toBe(message)
      expect(state(db), sql).toBe(before)
    }
    // the conflict clause is checked before the rows are computed (as in Postgres)
    expect(thrown(() => db.execute("INSERT INTO t VALUES (1 / 0, 'a', 1) ON CONFLICT (g) DO NOTHING")).code).toBe('42P10')
    // positions point into the statement
    const p = thrown(() => db.execute("INSERT INTO t VALUES (1, 'a', 1)\n  ON CONFLICT (g) DO NOTHING"))
    expect(p.position).toMatchObject({ line: 2, column: 3 })
  })

  it('matches a model over a seeded sequence of upserts, deletes and inserts; views stay current', () => {
    const db = upsertDb()
    type MRow = [number, string, number | null]
    let model = new Map<number, MRow>()
    let seed = 20261129
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return Math.floor((seed / 2147483648) * n)
    }
    const lit = (r: MRow): string => `(${r[0]}, '${r[1]}', ${r[2] === null ? 'NULL' : r[2]})`
    const add = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b)
    let failures = 0
    for (let step = 0; step < 250; step++) {
      const rows: MRow[] = Array.from({ length: 1 + rand(3) }, () => [rand(8), ['a', 'b', 'c', 'dflt'][rand(4)]!, rand(6) === 0 ? null : rand(40) - 5])
      const values = rows.map(lit).join(', ')
      const next = new Map(model)
      let sql: string
      let expectCode: string | undefined
      const kind = rand(7)
      if (kind === 0) {
        sql = `REPLACE INTO t VALUES ${values}`
        for (const r of rows) next.set(r[0], r)
      } else if (kind === 1) {
        sql = `INSERT OR IGNORE INTO t VALUES ${values}`
        for (const r of rows) if (!next.has(r[0])) next.set(r[0], r)
      } else if (kind === 2) {
        sql = `INSERT INTO t VALUES ${values} ON CONFLICT ${rand(2) === 0 ? '(k) ' : ''}DO NOTHING`
        for (const r of rows) if (!next.has(r[0])) next.set(r[0], r)
      } else if (kind === 3) {
        sql = `INSERT INTO t VALUES ${values} ON CONFLICT (k) DO UPDATE SET n = t.n + excluded.n, g = excluded.g WHERE t.n < 20`
        const written = new Set<number>()
        for (const r of rows) {
          const stored = next.get(r[0])
          if (stored === undefined) next.set(r[0], r)
          else if (written.has(r[0])) {
            expectCode = '21000'
            break
          } else if (stored[2] !== null && stored[2] < 20) next.set(r[0], [r[0], r[1], add(stored[2], r[2])])
          else continue
          written.add(r[0])
        }
      } else if (kind === 4) {
        const k = rows[0]![0]
        sql = `DELETE FROM t WHERE k = ${k}`
        next.delete(k)
      } else if (kind === 5) {
        sql = `INSERT INTO t VALUES ${values}`
        const seen = new Set<number>()
        for (const r of rows) {
          if (next.has(r[0]) || seen.has(r[0])) expectCode = '23505'
          seen.add(r[0])
          next.set(r[0], r)
        }
      } else {
        sql = `UPDATE t SET n = n + 1 WHERE g = '${rows[0]![1]}'`
        for (const [k, r] of next) if (r[1] === rows[0]![1]) next.set(k, [k, r[1], add(r[2], 1)])
      }
      if (expectCode !== undefined) {
        failures++
        expect(thrown(() => db.execute(sql)).code, sql).toBe(expectCode)
      } else {
        db.execute(sql)
        model = next
      }
      expect(sorted(db, 'SELECT * FROM t'), `step ${step}: ${sql}`).toEqual(canon([...model.values()]))
      expectViewsCurrent(db, `step ${step}: ${sql}`)
    }
    expect(failures).toBeGreaterThan(5) // the sequence exercised the error paths too
  })
})

describe('REINDEX', () => {
  it('is a no-op for an index or a table and checks the name', () => {
    const db = upsertDb()
    db.execute("INSERT INTO t VALUES (1, 'a', 1)")
    db.execute('CREATE INDEX t_g ON t (g)')
    db.execute('CREATE VIEW plain AS SELECT k FROM t')
    const before = state(db)
    for (const sql of ['REINDEX', 'REINDEX t_g', 'REINDEX t', 'REINDEX INDEX t_g', 'REINDEX TABLE t', 'REINDEX TABLE by_g', 'reindex by_g']) {
      expect(db.execute(sql)[0], sql).toMatchObject({ command: 'REINDEX', rowCount: 0 })
    }
    expect(state(db)).toBe(before)
    const cases: [string, string, string][] = [
      ['REINDEX nope', '42704', 'unable to identify the object to be reindexed: no index or table named "nope"'],
      ['REINDEX INDEX nope', '42P01', 'relation "nope" does not exist'],
      ['REINDEX TABLE nope', '42P01', 'relation "nope" does not exist'],
      ['REINDEX INDEX t', '42809', '"t" is not an index'],
      ['REINDEX TABLE t_g', '42809', '"t_g" is not a table or materialized view'],
      ['REINDEX TABLE plain', '42809', '"plain" is not a table or materialized view'],
    ]
    for (const [sql, code, message] of cases) {
      const e = thrown(() => db.execute(sql))
      expect([e.code, e.message], sql).toEqual([code, message])
      expect(e.position?.offset, sql).toBe(sql.lastIndexOf(' ') + 1)
    }
    db.execute('DROP INDEX t_g')
    expect(thrown(() => db.execute('REINDEX t_g')).code).toBe('42704')
  })
})

describe('CREATE TRIGGER / DROP TRIGGER', () => {
  const body = 'BEGIN SELECT 1; END'

  it('stores SELECT-only triggers with unique names; DROP removes them', () => {
    const db = upsertDb()
    const forms = ['UPDATE ON t', 'DELETE ON t', 'INSERT ON t', 'AFTER DELETE ON t', 'AFTER INSERT ON t FOR EACH ROW', 'AFTER UPDATE OF n, g ON t', 'BEFORE DELETE ON t', 'BEFORE INSERT ON t', 'BEFORE UPDATE ON t FOR EACH ROW WHEN new.n > old.n']
    for (const [i, form] of forms.entries()) {
      expect(db.execute(`CREATE TRIGGER r${i} ${form} ${body}`)[0]).toMatchObject({ command: 'CREATE TRIGGER', rowCount: 0 })
    }
    const dup = thrown(() => db.execute(`CREATE TRIGGER r1 UPDATE ON labels ${body}`))
    expect([dup.code, dup.message]).toEqual(['42710', 'trigger "r1" already exists'])
    expect(dup.position).toMatchObject({ line: 1, column: 16 })
    expect(db.execute(`CREATE TRIGGER IF NOT EXISTS r1 UPDATE ON labels ${body}`)[0]!.command).toBe('CREATE TRIGGER')
    expect(db.execute('DROP TRIGGER r1')[0]).toMatchObject({ command: 'DROP TRIGGER', rowCount: 0 })
    const gone = thrown(() => db.execute('DROP TRIGGER r1'))
    expect([gone.code, gone.message]).toEqual(['42704', 'trigger "r1" does not exist'])
    expect(thrown(() => db.execute('DROP TRIGGER never_was')).code).toBe('42704')
    expect(db.execute('DROP TRIGGER IF EXISTS r1')[0]!.command).toBe('DROP TRIGGER')
    // the name is free again
    db.execute(`CREATE TRIGGER r1 INSERT ON labels ${body}`)
    // a DROP naming a missing trigger drops none of them
    expect(thrown(() => db.execute('DROP TRIGGER r2, nope')).code).toBe('42704')
    expect(thrown(() => db.execute(`CREATE TRIGGER r2 INSERT ON t ${body}`)).code).toBe('42710')
  })

  it('a SELECT-only trigger changes no result: DML and views behave as without it', () => {
    const db = upsertDb()
    const plain = upsertDb()
    db.execute(`CREATE TRIGGER ai AFTER INSERT ON t BEGIN SELECT new.k; SELECT count(*) FROM labels; END;
                CREATE TRIGGER bu BEFORE UPDATE ON t WHEN old.n IS NOT NULL BEGIN SELECT old.n, new.n; END`)
    for (const sql of ["INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)", 'UPDATE t SET n = n + 1', "REPLACE INTO t VALUES (1, 'b', 7)", 'DELETE FROM t WHERE k = 2']) {
      expect(db.execute(sql)).toEqual(plain.execute(sql))
      expect(state(db), sql).toBe(state(plain))
    }
  })

  it('the table must exist and be a table; triggers go with their table', () => {
    const db = upsertDb()
    const missing = thrown(() => db.execute(`CREATE TRIGGER r UPDATE ON nope ${body}`))
    expect([missing.code, missing.message]).toEqual(['42P01', 'relation "nope" does not exist'])
    expect(missing.position).toMatchObject({ column: 28 })
    expect(thrown(() => db.execute(`CREATE TRIGGER r AFTER INSERT ON by_g ${body}`)).code).toBe('42809')
    expect(thrown(() => db.execute(`CREATE TRIGGER r INSTEAD OF INSERT ON t ${body}`)).code).toBe('42809')
    expect(thrown(() => db.execute(`CREATE TRIGGER r INSTEAD OF INSERT ON by_g ${body}`)).code).toBe('0A000')
    expect(thrown(() => db.execute(`CREATE TRIGGER r UPDATE OF nope ON t ${body}`)).code).toBe('42703')
    db.execute(`CREATE TRIGGER r UPDATE ON labels ${body}; CREATE TRIGGER keep UPDATE ON t ${body}`)
    db.execute('DROP TABLE labels CASCADE')
    expect(thrown(() => db.execute('DROP TRIGGER r')).code).toBe('42704')
    db.execute('DROP TRIGGER keep')
  })

  it('refuses bodies that would change data (0A000) and stores nothing', () => {
    const db = upsertDb()
    const cases = [
      "CREATE TRIGGER r AFTER INSERT ON t BEGIN INSERT INTO labels VALUES (new.g, 'x'); END",
      'CREATE TRIGGER r AFTER INSERT ON t BEGIN SELECT 1; UPDATE labels SET label = new.g; END',
      'CREATE TRIGGER r AFTER DELETE ON t BEGIN DELETE FROM labels WHERE g = old.g; END',
      'CREATE TRIGGER r AFTER DELETE ON t BEGIN CREATE TABLE x (a INT); END',
      "CREATE TRIGGER r BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'negative') WHERE new.n < 0; END",
      "CREATE TRIGGER r BEFORE INSERT ON t WHEN RAISE(IGNORE) BEGIN SELECT 1; END",
    ]
    const before = state(db)
    for (const sql of cases) {
      const e = thrown(() => db.execute(sql))
      expect(e.code, sql).toBe('0A000')
      expect(e.message, sql).toMatch(/^triggers that modify data are not supported/)
      expect(e.position, sql).toBeDefined()
    }
    expect(thrown(() => db.execute(cases[1]!)).position).toMatchObject({ column: 52 })
    expect(state(db)).toBe(before)
    // none of them was stored: the name is free
    db.execute(`CREATE TRIGGER r AFTER INSERT ON t ${body}`)
  })

  it('is DDL: refused inside a transaction block', () => {
    const db = upsertDb()
    db.execute('BEGIN')
    expect(thrown(() => db.execute(`CREATE TRIGGER r UPDATE ON t ${body}`)).code).toBe('25001')
    db.execute('ROLLBACK')
    db.execute(`CREATE TRIGGER r UPDATE ON t ${body}`)
    db.execute('BEGIN')
    expect(thrown(() => db.execute('DROP TRIGGER r')).code).toBe('25001')
    db.execute('ROLLBACK')
    db.execute('DROP TRIGGER r')
  })

  it('script splitting keeps BEGIN … END together (psql-style splitter and the CLI)', async () => {
    const script = [
      'CREATE TABLE t1 (x INT);',
      'CREATE TRIGGER r1 UPDATE ON t1 BEGIN SELECT 1; SELECT CASE WHEN new.x > 0 THEN 1 END; END;',
      'create temp trigger r2 delete on t1 when (select 1) begin',
      '  select old.x; select t1.end from t1;',
      'end; SELECT 2',
    ].join('\n')
    expect(splitStatements(script).map((s) => s.text)).toEqual([
      'CREATE TABLE t1 (x INT);',
      'CREATE TRIGGER r1 UPDATE ON t1 BEGIN SELECT 1; SELECT CASE WHEN new.x > 0 THEN 1 END; END;',
      'create temp trigger r2 delete on t1 when (select 1) begin\n  select old.x; select t1.end from t1;\nend;',
      'SELECT 2',
    ])
    let out = ''
    let err = ''
    const code = await main(['-c', 'CREATE TABLE t1 (x INT); CREATE TRIGGER r1 UPDATE ON t1 BEGIN SELECT 1; SELECT 2; END; DROP TRIGGER r1; REINDEX t1'], {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
    })
    expect([code, err]).toEqual([0, ''])
    expect(out).toBe('CREATE TABLE\nCREATE TRIGGER\nDROP TRIGGER\nREINDEX\n')
  })
})
