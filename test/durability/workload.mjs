// The crash campaign's workload (test/durability/crash-campaign.test.ts): a seeded sequence of
// steps over tables with upserts and deletes, a stream with a watermark and late events, views
// (GROUP BY, stream-table join, TUMBLE with EMIT ON WINDOW CLOSE, interval joins), a versioned table and a
// temporal join, a Nexmark source resuming from its offset, and both kinds of sink. The same
// steps run in the crashing worker and in the uncrashed reference run.

import { Rng } from '../../dist/bench/lib.js'

/** A seeded PRNG (the benchmarks' mulberry32), so a seed names the whole workload. */
export function prng(seed) {
  const rng = new Rng(seed)
  return () => rng.next()
}

const q = (p) => `'${p.replace(/'/g, "''")}'`

/** The schema, declared at every start (IF NOT EXISTS). `out` is the folder of the sinks. */
export function schema(out) {
  return [
    'CREATE TABLE IF NOT EXISTS acct (id INT PRIMARY KEY, owner TEXT, balance BIGINT)',
    "CREATE STREAM IF NOT EXISTS ev (id INT, acct INT, amount INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)",
    'CREATE TABLE IF NOT EXISTS progress (k INT PRIMARY KEY, step INT)',
    'CREATE TABLE IF NOT EXISTS rate (acct INT PRIMARY KEY, r INT, at TIMESTAMP, WATERMARK FOR at AS at)',
    // notes: TRUNCATE now and then inside a step's block, and an ALTER TABLE at ALTER_STEP (the
    // view made with SELECT * before it keeps its columns)
    'CREATE TABLE IF NOT EXISTS notes (id INT PRIMARY KEY, acct INT, score INT)',
    'CREATE MATERIALIZED VIEW IF NOT EXISTS note_star AS SELECT * FROM notes',
    'CREATE MATERIALIZED VIEW IF NOT EXISTS note_scores AS SELECT acct, count(*) AS n, sum(score) AS s FROM notes GROUP BY acct',
    'CREATE MATERIALIZED VIEW IF NOT EXISTS priced AS SELECT e.id, r.r FROM ev e JOIN rate FOR SYSTEM_TIME AS OF e.ts AS r ON e.acct = r.acct',
    `CREATE SOURCE IF NOT EXISTS nx WITH (connector = 'nexmark', events = 1000000, batch = ${SOURCE_EVENTS_PER_STEP})`,
    'CREATE MATERIALIZED VIEW IF NOT EXISTS bids_per_auction AS SELECT auction, count(*) AS n, max(price) AS top FROM bid GROUP BY auction',
    'CREATE MATERIALIZED VIEW IF NOT EXISTS by_owner AS SELECT owner, count(*) AS n, sum(balance) AS total FROM acct GROUP BY owner',
    'CREATE MATERIALIZED VIEW IF NOT EXISTS joined AS SELECT e.acct, a.owner, sum(e.amount) AS s, count(*) AS c FROM ev e JOIN acct a ON e.acct = a.id GROUP BY e.acct, a.owner',
    // interval joins: their stream sides are rebuilt from the history on recovery
    "CREATE MATERIALIZED VIEW IF NOT EXISTS near AS SELECT a.acct, count(*) AS n, sum(b.amount) AS s FROM ev a JOIN ev b ON a.acct = b.acct AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '3' SECOND GROUP BY a.acct",
    "CREATE MATERIALIZED VIEW IF NOT EXISTS top_bids AS SELECT b.auction, b.price, b.date_time FROM bid b JOIN (SELECT max(price) AS maxprice, window_end AS wend FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end) m ON b.price = m.maxprice WHERE b.date_time BETWEEN m.wend - INTERVAL '10' SECOND AND m.wend",
    "CREATE MATERIALIZED VIEW IF NOT EXISTS win AS SELECT window_start, count(*) AS n, sum(amount) AS s FROM TUMBLE(ev, ts, INTERVAL '10' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE",
    `CREATE SINK IF NOT EXISTS owners_out FROM by_owner WITH (connector = 'sqlite', path = ${q(`${out}/sink.db`)}, table = 'by_owner', mode = 'upsert')`,
    `CREATE SINK IF NOT EXISTS joined_out FROM joined WITH (connector = 'sqlite', path = ${q(`${out}/sink.db`)}, table = 'joined_changes')`,
    `CREATE SINK IF NOT EXISTS win_out FROM win WITH (connector = 'file', path = ${q(`${out}/win.jsonl`)}, format = 'changes')`,
    `CREATE SINK IF NOT EXISTS joined_dbz FROM joined WITH (connector = 'file', path = ${q(`${out}/joined.jsonl`)}, format = 'debezium')`,
  ]
}

const BASE = Date.UTC(2024, 0, 1) / 1000
const ts = (sec) => `'${new Date((BASE + sec) * 1000).toISOString().replace('T', ' ').slice(0, 19)}'`

/** Step i's statements (i ≥ 1), one transaction block with the step's progress marker, so a
 *  step is acknowledged exactly when its effect is. */
export function steps(seed, count) {
  const r = prng(seed)
  const int = (n) => Math.floor(r() * n)
  const out = []
  let clock = 0
  let id = 0
  for (let i = 1; i <= count; i++) {
    const body = []
    const kind = r()
    if (kind < 0.35) {
      const k = int(12)
      body.push(`INSERT INTO acct VALUES (${k}, 'o${int(4)}', ${int(1000)}) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, balance = excluded.balance`)
    } else if (kind < 0.45) {
      body.push(`DELETE FROM acct WHERE id = ${int(12)}`)
    } else if (kind < 0.55) {
      body.push(`UPDATE acct SET balance = balance + ${int(50) - 25} WHERE id % 3 = ${int(3)}`)
    } else if (kind < 0.65) {
      // a new rate version, now and then one behind the table's watermark (late)
      body.push(`INSERT INTO rate VALUES (${int(12)}, ${int(100)}, ${ts(clock - (r() < 0.2 ? 30 : int(3)))}) ON CONFLICT (acct) DO UPDATE SET r = excluded.r, at = excluded.at`)
    } else if (kind < 0.72) {
      body.push(`INSERT INTO notes VALUES (${int(30)}, ${int(12)}, ${int(10)}${i > ALTER_STEP ? `, 'n${int(5)}'` : ''}) ON CONFLICT (id) DO UPDATE SET score = excluded.score`)
    } else if (kind < 0.74) {
      body.push('TRUNCATE notes')
    } else {
      const rows = []
      for (let n = 1 + int(6); n > 0; n--) {
        clock += int(3)
        // now and then an event far behind the watermark: late, kept in rivulet_late_events
        const at = r() < 0.1 ? clock - 20 - int(20) : clock - int(4)
        rows.push(`(${++id}, ${int(12)}, ${int(100)}, ${ts(at)})`)
      }
      body.push(`INSERT INTO ev VALUES ${rows.join(', ')}`)
    }
    // the ALTER runs before the step's block: a life killed between them runs it again (a
    // no-op then: IF NOT EXISTS)
    const alter = i === ALTER_STEP ? "ALTER TABLE notes ADD COLUMN IF NOT EXISTS tag TEXT DEFAULT 'old'; " : ''
    out.push(`${alter}BEGIN; ${body.join('; ')}; INSERT INTO progress VALUES (0, ${i}) ON CONFLICT (k) DO UPDATE SET step = excluded.step; COMMIT`)
  }
  return out
}

/** The step before whose block notes gains a column. */
export const ALTER_STEP = 40

/** Processing time, the same in every run (bids carry it as p_time). */
export const CLOCK = () => Date.UTC(2024, 0, 1)

/** Nexmark events each step's source batch brings (one tick). */
export const SOURCE_EVENTS_PER_STEP = 40

/** Runs step i (1-based): the source's batch for it — once: a step run again after a crash
 *  finds the source already there — then the step's block. */
export function runStep(db, i, sql) {
  const have = db.sourceStatus('nx').events
  const want = i * SOURCE_EVENTS_PER_STEP
  if (have < want) db.stepSource('nx', want - have)
  db.execute(sql)
}

/** What the campaign compares: every relation's rows, sorted. */
export const RELATIONS = ['acct', 'ev', 'progress', 'notes', 'note_star', 'note_scores', 'by_owner', 'joined', 'win', 'rate', 'priced', 'person', 'bids_per_auction', 'near', 'top_bids', 'rivulet_late_events']
