// CREATE SOURCE (the nexmark connector) and CREATE SINK (blackhole): the streams a source
// creates, how it is driven (by hand, FLUSH, in the background), its options and errors, and
// what a sink receives.
import { describe, expect, it } from 'vitest'
import { Engine, type RivuletError } from '../../src/index.js'

const NEXMARK = (opts = 'events = 5000') => `CREATE SOURCE nexmark WITH (connector = 'nexmark', ${opts})`

function error(f: () => unknown): RivuletError {
  try {
    f()
  } catch (e) {
    return e as RivuletError
  }
  throw new Error('expected an error')
}

const count = (db: Engine, sql: string): number => Number(db.query(sql).rows[0]![0])

describe('CREATE SOURCE … (connector = nexmark)', () => {
  it('creates person, auction and bid; FLUSH runs a bounded source to its end, 1:3:46', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute(NEXMARK())
    const rels = db.relations().map((r) => [r.name, r.kind, r.watermark?.expression])
    expect(rels).toEqual([
      ['person', 'stream', "date_time - INTERVAL '4' SECOND"],
      ['auction', 'stream', "date_time - INTERVAL '4' SECOND"],
      ['bid', 'stream', "date_time - INTERVAL '4' SECOND"],
    ])
    expect(db.relations().find((r) => r.name === 'bid')!.columns.map((c) => c.name)).toEqual(['auction', 'bidder', 'price', 'channel', 'url', 'date_time', 'extra', 'p_time'])
    expect(count(db, 'SELECT count(*) FROM bid')).toBe(0)
    db.execute('FLUSH')
    expect([count(db, 'SELECT count(*) FROM person'), count(db, 'SELECT count(*) FROM auction'), count(db, 'SELECT count(*) FROM bid')]).toEqual([100, 300, 4600])
    expect(db.sourceStatus('nexmark')).toEqual({ name: 'nexmark', events: 5000, done: true, streams: ['person', 'auction', 'bid'] })
    // event time: 10,000 events per second from 2015-07-15; the watermark 4 s behind
    expect(db.query('SELECT min(date_time), max(date_time) FROM bid').rows[0]).toEqual(['2015-07-15 00:00:00.0004', '2015-07-15 00:00:00.4999'])
    expect(db.watermark('bid')).toBe('2015-07-14 23:59:56.4999')
  })

  it('each micro-batch is one tick; stepSource runs by hand; the same seed gives the same data', () => {
    const a = Engine.open({ sources: 'manual' })
    a.execute(NEXMARK("events = 2500, batch = 1000, seed = 7"))
    a.execute('CREATE MATERIALIZED VIEW per_category AS SELECT category, count(*) AS n, max(initial_bid) AS top FROM auction GROUP BY category')
    const tick = a.tick
    expect(a.stepSource('nexmark', 1500)).toBe(1500)
    expect(a.tick - tick).toBe(2)
    expect(a.stepSource('nexmark')).toBe(1000)
    expect(a.stepSource('nexmark')).toBe(0)
    const b = Engine.open({ sources: 'manual' })
    b.execute(NEXMARK("events = 2500, batch = 100, seed = 7"))
    b.execute('CREATE MATERIALIZED VIEW per_category AS SELECT category, count(*) AS n, max(initial_bid) AS top FROM auction GROUP BY category')
    b.execute('FLUSH')
    const rows = (db: Engine) => db.query('SELECT * FROM per_category ORDER BY category').rows
    expect(rows(b)).toEqual(rows(a))
    const c = Engine.open({ sources: 'manual' })
    c.execute(NEXMARK("events = 2500, seed = 8"))
    c.execute('CREATE MATERIALIZED VIEW per_category AS SELECT category, count(*) AS n, max(initial_bid) AS top FROM auction GROUP BY category')
    c.execute('FLUSH')
    expect(rows(c)).not.toEqual(rows(a))
  })

  it('runs in the background by default; sourceDone resolves at its end', async () => {
    const db = Engine.open()
    db.execute(NEXMARK('events = 20000, batch = 500'))
    db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS bids FROM bid')
    await db.sourceDone('nexmark')
    expect(db.query('SELECT bids FROM n').rows).toEqual([[18400]])
    db.close()
  })

  it('paces itself with pace = events per second of wall-clock time', async () => {
    const db = Engine.open()
    db.execute(NEXMARK('events = 600, batch = 100, pace = 2000'))
    const t0 = Date.now()
    await db.sourceDone('nexmark')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200)
    db.close()
  })

  it('unbounded unless events is given; stepSource then needs a count', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute("CREATE SOURCE n WITH (connector = 'nexmark')")
    expect(error(() => db.stepSource('n')).message).toMatch(/unbounded/)
    expect(db.stepSource('n', 3000)).toBe(3000)
    db.execute('FLUSH') // leaves an unbounded source alone
    expect(db.sourceStatus('n').events).toBe(3000)
  })

  it('a FLUSH that would fill the heap fails with 53200 under the engine\'s memory limit, and the process goes on', () => {
    const limit = process.memoryUsage().heapUsed + 64 * 2 ** 20
    // the streams' history kept in the heap (by default it leaves the heap, which stays bounded)
    const db = Engine.open({ sources: 'manual', maxMemoryBytes: limit, historyInMemory: 1e9 })
    db.execute("CREATE SOURCE big WITH (connector = 'nexmark', events = 100000000)")
    const e = error(() => db.execute('FLUSH'))
    expect(e.code).toBe('53200')
    db.execute('DROP SOURCE big')
    expect(db.execute('SELECT 1')[0]!.rows).toEqual([[1]])
    db.close()
  })

  it('refuses bad options with the position and the reason, and changes nothing', () => {
    const db = Engine.open({ sources: 'manual' })
    let e = error(() => db.execute("CREATE SOURCE s WITH (connector = 'nexmark', evnts = 10)"))
    expect(e.code).toBe('22023')
    expect(e.message).toMatch(/unrecognized source option "evnts" \(known: .*events/)
    expect(e.position?.column).toBe(46)
    e = error(() => db.execute("CREATE SOURCE s WITH (connector = 'nexmark', events = -1)"))
    expect(e.message).toMatch(/"events" must be an integer in \[0, 9007199254740991\]/)
    // an integer option is exact: 2^63 − 1 events is refused, not rounded (it was a RangeError)
    e = error(() => db.execute("CREATE SOURCE s WITH (connector = 'nexmark', events = 9223372036854775807)"))
    expect(e.code).toBe('22023')
    e = error(() => db.execute("CREATE SOURCE s WITH (connector = 'nexmark', rate = 'fast')"))
    expect(e.message).toMatch(/"rate" must be a number/)
    e = error(() => db.execute("CREATE SOURCE s WITH (connector = 'kafka')"))
    expect(e.message).toMatch(/unknown source connector "kafka" \(known: nexmark\)/)
    e = error(() => db.execute('CREATE SOURCE s WITH (events = 1)'))
    expect(e.message).toMatch(/needs WITH \(connector = '…'\)/)
    expect(db.relations()).toEqual([])
    db.execute('CREATE TABLE bid (x INT)')
    e = error(() => db.execute(NEXMARK()))
    expect(e.code).toBe('42P07')
    expect(db.relations().map((r) => r.name)).toEqual(['bid'])
    db.execute('DROP TABLE bid')
    e = error(() => db.execute("CREATE SOURCE s WITH (connector = 'nexmark', history = false, retention = '1 second')"))
    expect(e.message).toMatch(/history = false, not both/)
    expect(db.relations()).toEqual([])
  })

  it('DROP SOURCE drops its streams, and needs CASCADE for what reads them', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute(NEXMARK())
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT count(*) FROM bid')
    expect(error(() => db.execute('DROP SOURCE nexmark')).code).toBe('2BP01')
    db.execute('DROP SOURCE nexmark CASCADE')
    expect(db.relations()).toEqual([])
    expect(error(() => db.sourceStatus('nexmark')).code).toBe('42704')
    db.execute('DROP SOURCE IF EXISTS nexmark')
    expect(error(() => db.execute('DROP SOURCE nexmark')).code).toBe('42704')
    db.execute(NEXMARK()) // the names are free again
  })

  it('history = false: views see the events, the streams keep none', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute(NEXMARK('events = 5000, history = false'))
    db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS bids, max(price) AS top FROM bid')
    db.execute('FLUSH')
    expect(db.query('SELECT bids FROM n').rows).toEqual([[4600]])
    expect(count(db, 'SELECT count(*) FROM bid')).toBe(0)
    expect(db.stateSize('bid')).toBe(0)
    // a view created now starts from nothing
    db.execute('CREATE MATERIALIZED VIEW later AS SELECT count(*) AS bids FROM bid')
    expect(db.query('SELECT bids FROM later').rows).toEqual([[0]])
  })

  it('a view whose expression raises goes into error; the source and the other views go on', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute(NEXMARK('events = 5000, batch = 1000'))
    db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS bids FROM bid')
    db.execute('CREATE MATERIALIZED VIEW bad AS SELECT 1 / (price - price) AS x FROM bid')
    expect(db.stepSource('nexmark')).toBe(5000)
    expect(db.query('SELECT bids FROM n').rows).toEqual([[4600]])
    expect(db.sourceStatus('nexmark').error).toBeUndefined()
    expect(error(() => db.query('SELECT * FROM bad')).code).toBe('22012')
    expect(db.query('SELECT view, code, message FROM rivulet_view_errors').rows).toEqual([['bad', '22012', 'division by zero']])
  })

  it('CREATE SOURCE runs outside transaction blocks', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute('BEGIN')
    expect(error(() => db.execute(NEXMARK())).code).toBe('25001')
  })
})

describe('CREATE SINK … (connector = blackhole)', () => {
  it('gets each tick’s changes, consolidated, and keeps no copy', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY, g TEXT, v INT)')
    db.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
    db.execute("CREATE SINK totals AS SELECT g, sum(v) AS s FROM t GROUP BY g WITH (connector = 'blackhole')")
    // the snapshot first: two groups
    expect(db.sinkStatus('totals')).toEqual({ inserted: 2, retracted: 0, ticks: 1 })
    db.execute("INSERT INTO t VALUES (3, 'a', 5)")
    expect(db.sinkStatus('totals')).toEqual({ inserted: 3, retracted: 1, ticks: 2 })
    // a change that cancels within its tick writes nothing
    db.execute('BEGIN')
    db.execute('UPDATE t SET v = 11 WHERE k = 1')
    db.execute('UPDATE t SET v = 10 WHERE k = 1')
    db.execute('COMMIT')
    expect(db.sinkStatus('totals').ticks).toBe(2)
    // a rolled-back tick writes nothing either
    db.execute('BEGIN')
    db.execute('DELETE FROM t')
    db.execute('ROLLBACK')
    expect(db.sinkStatus('totals')).toEqual({ inserted: 3, retracted: 1, ticks: 2 })
    expect(db.relations().map((r) => r.name)).toEqual(['t'])
  })

  it('FROM a relation, without its snapshot; dependencies and DROP', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT)')
    db.execute('INSERT INTO t VALUES (1), (2)')
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT k * 2 AS k2 FROM t')
    db.execute("CREATE SINK s FROM v WITH (connector = 'blackhole', snapshot = false)")
    expect(db.sinkStatus('s')).toEqual({ inserted: 0, retracted: 0, ticks: 0 })
    db.execute('INSERT INTO t VALUES (3)')
    expect(db.sinkStatus('s')).toEqual({ inserted: 1, retracted: 0, ticks: 1 })
    const e = error(() => db.execute('DROP MATERIALIZED VIEW v'))
    expect(e.code).toBe('2BP01')
    expect(e.message).toMatch(/sink s/)
    db.execute('DROP SINK s')
    db.execute('DROP MATERIALIZED VIEW v')
    expect(error(() => db.sinkStatus('s')).code).toBe('42704')
    db.execute("CREATE SINK s2 AS SELECT k FROM t WITH (connector = 'blackhole')")
    db.execute('DROP TABLE t CASCADE')
    expect(error(() => db.sinkStatus('s2')).code).toBe('42704')
  })

  it('refuses unknown connectors and options, duplicate names, and unknown relations', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT)')
    expect(error(() => db.execute("CREATE SINK s FROM t WITH (connector = 'kafka')")).message).toMatch(/unknown sink connector "kafka" \(known: blackhole, sqlite, file\)/)
    expect(error(() => db.execute("CREATE SINK s FROM t WITH (connector = 'blackhole', topic = 'x')")).message).toMatch(/unrecognized sink option "topic"/)
    expect(error(() => db.execute("CREATE SINK s FROM nope WITH (connector = 'blackhole')")).code).toBe('42P01')
    db.execute("CREATE SINK s FROM t WITH (connector = 'blackhole')")
    expect(error(() => db.execute("CREATE SINK s FROM t WITH (connector = 'blackhole')")).code).toBe('42710')
    db.execute("CREATE SINK IF NOT EXISTS s FROM t WITH (connector = 'blackhole')")
  })

  it('a sink over a source stream keeps only its operators’ state', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute(NEXMARK('events = 20000, history = false'))
    db.execute("CREATE SINK q2 AS SELECT auction, price FROM bid WHERE auction % 123 = 0 WITH (connector = 'blackhole')")
    db.execute("CREATE SINK per_window AS SELECT window_end, count(*) FROM TUMBLE(bid, date_time, INTERVAL '1' SECOND) GROUP BY window_start, window_end EMIT ON WINDOW CLOSE WITH (connector = 'blackhole')")
    db.execute('FLUSH')
    expect(db.sinkStatus('q2').inserted).toBeGreaterThan(0)
    expect(db.sinkStatus('q2').retracted).toBe(0)
    expect(db.stateSize('q2')).toBe(0)
    // 2 s of event time, watermark 4 s behind: no window has closed yet
    expect(db.sinkStatus('per_window').inserted).toBe(0)
    // two windows: their groups, and their rows waiting for the watermark
    expect(db.stateSize('per_window')).toBe(4)
  })
})
