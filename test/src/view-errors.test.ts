// Errors are data (src/engine/view-errors.ts): a view whose maintenance raises goes into error and
// fails no write; subscribers and sinks hold and resume; a subscriber's callback that throws
// changes nothing; db.insert / db.delete refuse unknown keys. The sqllogictest files in
// sqllogictest/test/errors/ cover the SQL side; these cover the API and the engine's state.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { Engine, RivuletError } from '../../src/index.js'
import type { ChangeBatch, ResultValue } from '../../src/index.js'

function thrown(f: () => unknown): RivuletError {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(RivuletError)
    return e as RivuletError
  }
  throw new Error('expected an error')
}

function sorted(db: Engine, sql: string): ResultValue[][] {
  return db.query(sql).rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
}

/** The integral of a subscriber's batches, as sorted JSON rows (weights expanded). */
function integral(batches: readonly ChangeBatch[]): string[] {
  const w = new Map<string, number>()
  for (const b of batches) for (const [row, d] of b.changes) w.set(JSON.stringify(row), (w.get(JSON.stringify(row)) ?? 0) + d)
  const out: string[] = []
  for (const [k, n] of w) {
    expect(n).toBeGreaterThanOrEqual(0)
    for (let i = 0; i < n; i++) out.push(k)
  }
  return out.sort()
}

/** A batch's changes in a canonical order. */
function changes(b: ChangeBatch): [ResultValue[], number][] {
  return [...b.changes].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))
}

function viewRows(db: Engine, view: string): string[] {
  return db
    .query(`SELECT * FROM ${view}`)
    .rows.map((r) => JSON.stringify(r))
    .sort()
}

function sumDb(): Engine {
  const db = Engine.open()
  db.execute(`
    CREATE TABLE t (k INT PRIMARY KEY, v INT);
    INSERT INTO t VALUES (1, 10), (2, 20);
    CREATE MATERIALIZED VIEW inv AS SELECT 600 / sum(v) AS r FROM t;
    CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM t;
  `)
  return db
}

describe('a view in error', () => {
  it('fails no write; reads raise with the SQLSTATE and the name until the rows are gone', () => {
    const db = sumDb()
    const tick = db.tick
    expect(db.insert('t', [{ k: 3, v: -30 }])).toBe(1)
    expect(db.tick).toBe(tick + 1)
    const e = thrown(() => db.query('SELECT * FROM inv'))
    expect(e.code).toBe('22012')
    expect(e.message).toBe('materialized view "inv" is in error: division by zero')
    expect(e.detail).toContain(`since tick ${tick + 1}`)
    expect(db.query('SELECT * FROM n').rows).toEqual([[3]])
    expect(db.query('SELECT * FROM rivulet_view_errors').rows).toEqual([['inv', '22012', 'division by zero', tick + 1]])
    expect(db.stateSize('inv')).toBe(0) // it drops its state
    expect(thrown(() => db.subscribe('inv', () => {})).code).toBe('22012')
    expect(thrown(() => db.execute('EXPLAIN MATERIALIZED VIEW inv')).code).toBe('22012')
    expect(thrown(() => db.subscribeStatement('SUBSCRIBE inv', () => {})).code).toBe('22012')
    // still in error after writes that leave the sum at 0, with the same `since`
    db.execute('INSERT INTO t VALUES (4, 0); UPDATE t SET v = 0 WHERE k = 4')
    db.execute('DELETE FROM t WHERE k = 4; UPDATE t SET v = -30 WHERE k = 3')
    expect(db.query('SELECT since FROM rivulet_view_errors').rows).toEqual([[tick + 1]])
    expect(db.delete('t', [{ k: 3 }])).toBe(1)
    expect(db.query('SELECT * FROM inv').rows).toEqual([[20]])
    expect(db.query('SELECT * FROM rivulet_view_errors').rows).toEqual([])
    expect(db.stateSize('inv')).toBeGreaterThan(0)
  })

  it('its subscribers hold at the last good tick and get the difference when the error clears', () => {
    const db = sumDb()
    const got: ChangeBatch[] = []
    db.subscribe('inv', (b) => got.push(b))
    db.insert('t', [{ k: 3, v: -30 }])
    db.insert('t', [{ k: 4, v: 0 }])
    expect(got.length).toBe(1) // only the snapshot
    db.insert('t', [{ k: 5, v: 20 }])
    expect(got.map((b) => [b.tick, changes(b)])).toEqual([
      [got[0]!.tick, [[[20], 1]]],
      [
        db.tick,
        [
          [[20], -1],
          [[30], 1],
        ],
      ],
    ])
    expect(integral(got)).toEqual(viewRows(db, 'inv'))
  })

  it('its subscribers get one consolidated difference (a view whose value comes back unchanged sends nothing)', () => {
    const db = sumDb()
    const got: ChangeBatch[] = []
    db.subscribe('inv', (b) => got.push(b), { snapshot: false })
    db.insert('t', [{ k: 3, v: -30 }])
    db.delete('t', [{ k: 3 }])
    expect(got).toEqual([])
    db.insert('t', [{ k: 3, v: -30 }])
    db.execute('UPDATE t SET v = -20 WHERE k = 3')
    expect(got.map(changes)).toEqual([
      [
        [[20], -1],
        [[60], 1],
      ],
    ])
  })

  it('within one tick: an error on rows the tick takes out again leaves no trace; a rollback undoes it', () => {
    const db = sumDb()
    const got: ChangeBatch[] = []
    db.subscribe('inv', (b) => got.push(b), { snapshot: false })
    const tick = db.tick
    db.execute('BEGIN; INSERT INTO t VALUES (3, -30)')
    // in the block the view is in error (and the read aborts the block, as any error does)
    expect(thrown(() => db.query('SELECT * FROM inv')).code).toBe('22012')
    db.execute('ROLLBACK')
    expect(db.tick).toBe(tick)
    expect(db.query('SELECT * FROM inv').rows).toEqual([[20]])
    db.execute('BEGIN; INSERT INTO t VALUES (3, -30); DELETE FROM t WHERE k = 3; INSERT INTO t VALUES (4, 30); COMMIT')
    expect(db.query('SELECT * FROM inv').rows).toEqual([[10]])
    expect(db.query('SELECT * FROM rivulet_view_errors').rows).toEqual([])
    expect(got.map(changes)).toEqual([
      [
        [[10], 1],
        [[20], -1],
      ],
    ])
  })

  it('shares arrangements with healthy views without harming them', () => {
    const db = Engine.open()
    db.execute(`
      CREATE TABLE a (x INT, y INT);
      CREATE TABLE b (x INT, z INT);
      INSERT INTO a VALUES (1, 10), (2, 20);
      INSERT INTO b VALUES (1, 5), (2, 7);
      CREATE MATERIALIZED VIEW joined AS SELECT a.x, a.y, b.z FROM a JOIN b ON a.x = b.x;
      CREATE MATERIALIZED VIEW ratio AS SELECT a.x, a.y / (b.z - 6) AS q FROM a JOIN b ON a.x = b.x;
    `)
    const arrangements = (v: string): string[] =>
      db
        .query(`EXPLAIN MATERIALIZED VIEW ${v}`)
        .rows.map((r) => String(r[0]))
        .filter((l) => l.includes('Arrange'))
        .map((l) => /\[op (\d+)/.exec(l)![1]!)
    const shared = arrangements('joined')
    expect(arrangements('ratio')).toEqual(shared)
    db.execute('INSERT INTO b VALUES (1, 6)') // a.x = 1 now meets z = 6: ratio divides by zero
    expect(thrown(() => db.query('SELECT * FROM ratio')).code).toBe('22012')
    db.execute('INSERT INTO a VALUES (1, 11), (3, 30); INSERT INTO b VALUES (3, 8); DELETE FROM a WHERE y = 20')
    expect(sorted(db, 'SELECT * FROM joined')).toEqual(sorted(db, 'SELECT a.x, a.y, b.z FROM a JOIN b ON a.x = b.x'))
    expect(arrangements('joined')).toEqual(shared)
    db.execute('DELETE FROM b WHERE z = 6')
    expect(sorted(db, 'SELECT * FROM ratio')).toEqual([
      [1, -10],
      [1, -11],
      [3, 15],
    ])
    // rebuilt, it shares the healthy view's arrangements again
    expect(arrangements('ratio')).toEqual(shared)
    db.execute('INSERT INTO a VALUES (2, 1)')
    expect(sorted(db, 'SELECT * FROM joined')).toEqual(sorted(db, 'SELECT a.x, a.y, b.z FROM a JOIN b ON a.x = b.x'))
    expect(sorted(db, 'SELECT * FROM ratio')).toEqual(sorted(db, 'SELECT a.x, a.y / (b.z - 6) AS q FROM a JOIN b ON a.x = b.x'))
  })

  it('an ad hoc read in a block does not borrow an arrangement cut off by a failure', () => {
    const db = Engine.open()
    db.execute(`
      CREATE TABLE a (x INT, y INT);
      CREATE TABLE b (x INT, z INT);
      INSERT INTO a VALUES (1, 10);
      INSERT INTO b VALUES (1, 5);
      CREATE MATERIALIZED VIEW ratio AS SELECT a.x, a.y / (b.z - 6) AS q FROM a JOIN b ON a.x = b.x;
    `)
    db.execute('BEGIN; INSERT INTO a VALUES (1, 20); INSERT INTO b VALUES (1, 6)')
    // the same join's arrangements, behind by this block: a fresh read builds its own
    expect(sorted(db, 'SELECT a.x, a.y, b.z FROM a JOIN b ON a.x = b.x')).toEqual([
      [1, 10, 5],
      [1, 10, 6],
      [1, 20, 5],
      [1, 20, 6],
    ])
    db.execute('ROLLBACK')
    expect(sorted(db, 'SELECT * FROM ratio')).toEqual([[1, -10]])
    db.execute('INSERT INTO a VALUES (1, 30)')
    expect(sorted(db, 'SELECT * FROM ratio')).toEqual([
      [1, -10],
      [1, -30],
    ])
  })

  it('a time-driven view ages into an error and out of it as the clock moves (refresh)', () => {
    let now = Date.UTC(2024, 0, 1, 12)
    const db = Engine.open({ clock: () => now })
    db.execute(`
      CREATE TABLE ev (id INT PRIMARY KEY, v INT, ts TIMESTAMP);
      CREATE TABLE other (x INT);
      INSERT INTO ev VALUES (1, 0, '2024-01-01 12:30:00'), (2, 4, '2024-01-01 11:59:00');
      CREATE MATERIALIZED VIEW recent AS SELECT id, 100 / v AS r FROM ev WHERE ts <= NOW() AND ts > NOW() - INTERVAL '1' HOUR;
    `)
    expect(db.query('SELECT * FROM recent').rows).toEqual([[2, 25]])
    now = Date.UTC(2024, 0, 1, 12, 45)
    expect(db.refresh()).toBe(true)
    expect(thrown(() => db.query('SELECT * FROM recent')).code).toBe('22012')
    // every later commit goes on
    for (let i = 0; i < 3; i++) db.execute(`INSERT INTO other VALUES (${i})`)
    now = Date.UTC(2024, 0, 1, 13, 29)
    expect(db.refresh()).toBe(false) // still in error: nothing changed
    now = Date.UTC(2024, 0, 1, 13, 31)
    expect(db.refresh()).toBe(true)
    expect(db.query('SELECT * FROM recent').rows).toEqual([])
    expect(db.query('SELECT * FROM rivulet_view_errors').rows).toEqual([])
  })

  it('a sink from a view in error holds at its last good tick and resumes with the difference', () => {
    const db = sumDb()
    db.execute("CREATE MATERIALIZED VIEW per AS SELECT k, 100 / v AS q FROM t; CREATE SINK out FROM per WITH (connector = 'blackhole')")
    expect(db.sinkStatus('out')).toEqual({ inserted: 2, retracted: 0, ticks: 1 })
    db.insert('t', [{ k: 3, v: 0 }])
    db.insert('t', [{ k: 4, v: 50 }])
    expect(db.sinkStatus('out')).toEqual({ inserted: 2, retracted: 0, ticks: 1, error: 'division by zero (from materialized view "per")' })
    db.execute('UPDATE t SET v = 100 WHERE k = 1; DELETE FROM t WHERE k = 3')
    // + (4, 2) + (1, 1) − (1, 10): what the view changed by while the sink held
    expect(db.sinkStatus('out')).toEqual({ inserted: 4, retracted: 1, ticks: 2 })
    expect(db.query('SELECT count(*) FROM per').rows).toEqual([[3]])
  })

  it('a sink whose own query raises holds too, and resumes from what it had written', () => {
    const db = sumDb()
    db.execute("CREATE SINK q AS SELECT k, 100 / v AS q FROM t WITH (connector = 'blackhole')")
    db.execute('BEGIN; UPDATE t SET v = 5 WHERE k = 1; INSERT INTO t VALUES (3, 0); COMMIT')
    expect(db.sinkStatus('q').error).toBe('division by zero')
    expect(db.query('SHOW SINKS').rows).toEqual([['q', 2, 0, 1, 'division by zero']])
    db.execute('UPDATE t SET v = 1 WHERE k = 3')
    // what it had written: (1, 10), (2, 5); now (1, 20), (2, 5), (3, 100)
    expect(db.sinkStatus('q')).toEqual({ inserted: 4, retracted: 1, ticks: 2 })
  })

  it('CREATE over data that already raises fails and changes nothing', () => {
    const db = sumDb()
    db.insert('t', [{ k: 3, v: -30 }])
    const before = db.relations().map((r) => r.name)
    expect(thrown(() => db.execute('CREATE MATERIALIZED VIEW again AS SELECT 600 / sum(v) AS r FROM t')).code).toBe('22012')
    expect(thrown(() => db.execute('CREATE MATERIALIZED VIEW over AS SELECT r FROM inv')).code).toBe('22012')
    expect(thrown(() => db.execute("CREATE SINK s FROM inv WITH (connector = 'blackhole')")).code).toBe('22012')
    expect(db.relations().map((r) => r.name)).toEqual(before)
  })

  it('DROP of a view in error takes it out of rivulet_view_errors, in a tick of its own', () => {
    const db = sumDb()
    db.execute('CREATE MATERIALIZED VIEW alarms AS SELECT count(*) AS n FROM rivulet_view_errors')
    const got: ChangeBatch[] = []
    db.subscribe('alarms', (b) => got.push(b), { snapshot: false })
    db.insert('t', [{ k: 3, v: -30 }])
    expect(db.query('SELECT * FROM alarms').rows).toEqual([[1]])
    const tick = db.tick
    db.execute('DROP MATERIALIZED VIEW inv')
    expect(db.tick).toBe(tick + 1)
    expect(db.query('SELECT * FROM alarms').rows).toEqual([[0]])
    expect(got.map((b) => [b.tick, changes(b)])).toEqual([
      [
        tick,
        [
          [[0], -1],
          [[1], 1],
        ],
      ],
      [
        tick + 1,
        [
          [[0], 1],
          [[1], -1],
        ],
      ],
    ])
  })
})

describe('a subscriber that throws', () => {
  it('changes nothing: the write commits, later subscribers get the batch, onError hears of it', () => {
    const db = sumDb()
    const heard: [unknown, unknown][] = []
    const stop = db.onError((e, context) => heard.push([e, context]))
    const boom = new Error('boom')
    db.subscribe('n', () => {
      throw boom
    }, { snapshot: false })
    const got: ChangeBatch[] = []
    db.subscribe('n', (b) => got.push(b), { snapshot: false })
    expect(db.insert('t', [{ k: 3, v: 30 }])).toBe(1)
    expect(db.query('SELECT * FROM n').rows).toEqual([[3]])
    expect(got.map(changes)).toEqual([
      [
        [[2], -1],
        [[3], 1],
      ],
    ])
    expect(heard).toEqual([[boom, { view: 'n', tick: db.tick }]])
    // SUBSCRIBE statements too, and a listener that throws is ignored
    db.onError(() => {
      throw new Error('listener')
    })
    const sub = db.subscribeStatement('SUBSCRIBE (SELECT k FROM t) WITH (SNAPSHOT = false)', () => {
      throw boom
    })
    db.execute('INSERT INTO t VALUES (4, 40)')
    expect(heard.length).toBe(3)
    expect((heard[2]![1] as { view: string }).view).toMatch(/^__rivulet_subscribe_/)
    sub.stop()
    stop()
  })

  it('without an onError listener is rethrown outside the engine call (an uncaught exception)', () => {
    const script = `
      import { Engine } from ${JSON.stringify(new URL('../../dist/src/index.js', import.meta.url).pathname)}
      const db = Engine.open()
      db.execute('CREATE TABLE t (k INT); CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM t')
      db.subscribe('c', () => { throw new Error('callback failed') }, { snapshot: false })
      db.insert('t', [[1]])
      console.log('insert returned', db.query('SELECT * FROM c').rows[0][0])
    `
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(r.stdout).toContain('insert returned 1')
    expect(r.stderr).toContain('callback failed')
    expect(r.status).not.toBe(0)
  })

  it('in its first (snapshot) batch makes subscribe() throw, and nothing is subscribed', () => {
    const db = sumDb()
    expect(() =>
      db.subscribe('n', () => {
        throw new Error('no')
      }),
    ).toThrow('no')
    db.insert('t', [{ k: 3, v: 30 }]) // nobody is left subscribed to throw
  })
})

describe('db.insert / db.delete with an unknown key', () => {
  it('fail with 42703 naming the column and change nothing', () => {
    const db = sumDb()
    const tick = db.tick
    const before = viewRows(db, 't')
    const e = thrown(() => db.insert('t', [{ k: 5, v: 1 }, { k: 6, vv: 'typo' }]))
    expect(e.code).toBe('42703')
    expect(e.message).toBe('column "vv" of relation "t" does not exist')
    expect(thrown(() => db.delete('t', [{ k: 1, x: 1 }])).code).toBe('42703')
    expect(db.tick).toBe(tick)
    expect(viewRows(db, 't')).toEqual(before)
    // an explicit undefined is still a key; one named like a column is fine
    expect(thrown(() => db.insert('t', [{ k: 7, v: 1, w: undefined }])).code).toBe('42703')
    expect(db.insert('t', [{ k: 7, v: undefined }])).toBe(1)
    expect(db.query('SELECT v FROM t WHERE k = 7').rows).toEqual([[null]])
  })

  it('read only own properties (a column named like an Object member)', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE o ("constructor" INT, "toString" TEXT)')
    db.insert('o', [{}, { constructor: 1 }])
    expect(sorted(db, 'SELECT * FROM o')).toEqual([
      [1, null],
      [null, null],
    ])
  })
})
