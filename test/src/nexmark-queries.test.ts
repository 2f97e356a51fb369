// Nexmark q0–q22 (bench/nexmark/queries) are correct, two ways:
// - incrementally maintained, each equals a from-scratch evaluation of the same SQL at
//   several points of a generated run (verifyQuery: a view and a sink, as `rivulet bench
//   nexmark --verify` runs them), with windows and sessions closing along the way;
// - the plain-SQL ones equal better-sqlite3 running the same query (translated where the
//   dialects differ) over the same generated events.
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { NexmarkGenerator } from '../../src/connectors/nexmark/generator.js'
import { nexmarkQueries } from '../../src/cli/nexmark-queries.js'
import { firstDifference, verifyQuery } from '../../src/cli/nexmark-verify.js'
import { formatTimestamp } from '../../src/sql-runtime/datetime.js'

const queries = nexmarkQueries()

describe('Nexmark queries: incremental = recompute', () => {
  it('has q0 … q22', () => {
    expect(queries.map((q) => q.name)).toEqual(Array.from({ length: 23 }, (_, i) => `q${i}`))
    for (const q of queries) expect(q.description.length).toBeGreaterThan(10)
  })

  // 20,000 events at 1,000 a second: 20 s of auction time, so 10 s windows and sessions close
  for (const q of queries) {
    it(q.name, () => {
      const r = verifyQuery(q, { events: 20_000, rate: 1000, batch: 500, checkpoints: 4, out: () => undefined })
      expect(r.problem).toBeUndefined()
      expect(r.ok).toBe(true)
      // a comparison of empty results would prove nothing
      expect(r.rows[r.rows.length - 1]).toBeGreaterThan(0)
    })
  }

  it('the comparison catches a missing, extra or duplicated row', () => {
    expect(firstDifference([[1, 'a'], [2, 'b']], [[2, 'b'], [1, 'a']])).toBeUndefined()
    expect(firstDifference([[1, 'a']], [[1, 'a'], [2, 'b']])).toMatch(/the recompute has 1× \[2,"b"\], the view none/)
    expect(firstDifference([[1, 'a'], [1, 'a']], [[1, 'a']])).toMatch(/view has 2×/)
    expect(firstDifference([[0.1 + 0.2]], [[0.3]])).toBeUndefined() // sums added up in another order
  })
})

describe('Nexmark queries: rivulet = SQLite', () => {
  const EVENTS = 30_000
  const RATE = 1000
  const engine = (() => {
    const db = Engine.open({ sources: 'manual' })
    db.execute(`CREATE SOURCE nexmark WITH (connector = 'nexmark', events = ${EVENTS}, rate = ${RATE})`)
    db.execute('FLUSH')
    return db
  })()
  const sqlite = (() => {
    const s = new Database(':memory:')
    s.exec('CREATE TABLE person (id INTEGER, name TEXT, email_address TEXT, credit_card TEXT, city TEXT, state TEXT, date_time INTEGER, extra TEXT)')
    s.exec('CREATE TABLE auction (id INTEGER, item_name TEXT, description TEXT, initial_bid INTEGER, reserve INTEGER, date_time INTEGER, expires INTEGER, seller INTEGER, category INTEGER, extra TEXT)')
    s.exec('CREATE TABLE bid (auction INTEGER, bidder INTEGER, price INTEGER, channel TEXT, url TEXT, date_time INTEGER, extra TEXT, p_time INTEGER)')
    const g = new NexmarkGenerator({ events: EVENTS, rate: RATE })
    const out = { person: [] as unknown[][], auction: [] as unknown[][], bid: [] as unknown[][] }
    g.fill(EVENTS, out, 0)
    for (const [table, rows] of Object.entries(out)) {
      const insert = s.prepare(`INSERT INTO ${table} VALUES (${rows[0]!.map(() => '?').join(', ')})`)
      s.transaction(() => {
        for (const r of rows) insert.run(...r)
      })()
    }
    return s
  })()
  /** SQLite rows with the µs timestamp columns rendered as rivulet renders them. */
  const lite = (sql: string, timestampColumns: number[] = []): unknown[][] =>
    (sqlite.prepare(sql).raw().all() as unknown[][]).map((r) => r.map((v, i) => (timestampColumns.includes(i) && typeof v === 'number' ? formatTimestamp(v) : v)))
  /** Our rows, numeric columns (exact text) as numbers like SQLite's. */
  const ours = (name: string): unknown[][] => {
    const r = engine.query(queries.find((q) => q.name === name)!.select)
    return r.rows.map((row) => row.map((v, i) => (r.columns[i]!.type === 'numeric' && typeof v === 'string' ? Number(v) : v)))
  }
  const sorted = (rows: unknown[][]): string[] => rows.map((r) => JSON.stringify(r.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(10)) : v)))).sort()

  it('the engine holds the generator’s events', () => {
    expect(lite('SELECT count(*) FROM bid')).toEqual([[27_600]])
    expect(engine.query('SELECT count(*) FROM bid').rows).toEqual([[27_600]])
  })

  it('q2, q3, q20: filters and unwindowed joins', () => {
    expect(sorted(ours('q2'))).toEqual(sorted(lite('SELECT auction, price FROM bid WHERE auction % 123 = 0')))
    const q3 = lite("SELECT P.name, P.city, P.state, A.id FROM auction AS A JOIN person AS P ON A.seller = P.id WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')")
    expect(q3.length).toBeGreaterThan(10)
    expect(sorted(ours('q3'))).toEqual(sorted(q3))
    const q20 = lite(
      'SELECT B.auction, B.bidder, B.price, B.channel, B.url, B.date_time, B.extra, A.item_name, A.description, A.initial_bid, A.reserve, A.date_time, A.expires, A.seller, A.category FROM bid AS B JOIN auction AS A ON B.auction = A.id WHERE A.category = 10',
      [5, 11, 12],
    )
    expect(q20.length).toBeGreaterThan(100)
    expect(sorted(ours('q20'))).toEqual(sorted(q20))
  })

  it('q4 and q9: the time-range join, its maxima and winning bids', () => {
    const q4 = lite('SELECT Q.category, AVG(Q.final) FROM (SELECT MAX(B.price) AS final, A.category FROM auction AS A, bid AS B WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires GROUP BY A.id, A.category) AS Q GROUP BY Q.category')
    expect(q4.length).toBe(5)
    expect(sorted(ours('q4'))).toEqual(sorted(q4))
    // winning bids: the price is what must agree (equal prices at equal times may pick either bid)
    const q9 = lite('SELECT id, MAX(B.price) FROM auction AS A, bid AS B WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires GROUP BY A.id')
    expect(q9.length).toBeGreaterThan(100)
    expect(sorted(ours('q9').map((r) => [r[0], r[11]]))).toEqual(sorted(q9))
  })

  it('q15 and q17: per-day statistics with FILTER and DISTINCT', () => {
    const day = "strftime('%Y-%m-%d', date_time / 1000000, 'unixepoch')"
    const bands = ['price < 10000', 'price >= 10000 AND price < 1000000', 'price >= 1000000']
    const q15 = lite(
      `SELECT ${day}, COUNT(*), ${bands.map((b) => `COUNT(*) FILTER (WHERE ${b})`).join(', ')}, COUNT(DISTINCT bidder), ${bands.map((b) => `COUNT(DISTINCT bidder) FILTER (WHERE ${b})`).join(', ')}, COUNT(DISTINCT auction), ${bands.map((b) => `COUNT(DISTINCT auction) FILTER (WHERE ${b})`).join(', ')} FROM bid GROUP BY 1`,
    )
    expect(sorted(ours('q15'))).toEqual(sorted(q15))
    const q17 = lite(`SELECT auction, ${day}, COUNT(*), ${bands.map((b) => `COUNT(*) FILTER (WHERE ${b})`).join(', ')}, MIN(price), MAX(price), AVG(price), SUM(price) FROM bid GROUP BY auction, 2`)
    expect(q17.length).toBeGreaterThan(100)
    expect(sorted(ours('q17'))).toEqual(sorted(q17))
  })

  it('q18 and q19: latest bid per (bidder, auction), top 10 prices per auction', () => {
    // ranks agree on their order keys (ties may pick different rows, as in any engine)
    const q18 = lite('SELECT bidder, auction, MAX(date_time) FROM bid GROUP BY bidder, auction', [2])
    expect(sorted(ours('q18').map((r) => [r[1], r[0], r[5]]))).toEqual(sorted(q18))
    const q19 = lite('SELECT auction, price, rn FROM (SELECT auction, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bid) WHERE rn <= 10')
    expect(q19.length).toBeGreaterThan(1000)
    expect(sorted(ours('q19').map((r) => [r[0], r[2], r[8]]))).toEqual(sorted(q19))
  })
})
