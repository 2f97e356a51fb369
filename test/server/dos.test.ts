// Statements that would hold the server: pathological LIKE and regular-expression patterns,
// a statement past statement_timeout, one cancelled with a CancelRequest, one past the memory
// limit, a result past the size limit. Each ends (with its result or its error) within its
// limit, changes nothing when it fails, and a second client keeps getting answers.

import { execFile } from 'node:child_process'
import fc from 'fast-check'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { regexBudget } from '../../src/sql-runtime/regex-guard.js'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { memoryInUse } from '../../src/sql-runtime/statement-limits.js'

let engine: Engine
let server: RunningServer
let attacker: pg.Client
let witness: pg.Client

async function client(port = server.port): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'u', database: 'db' })
  c.on('error', () => undefined)
  await c.connect()
  return c
}

beforeAll(async () => {
  regexBudget.ms = 300
  engine = Engine.open()
  engine.execute('CREATE TABLE t (x INT)')
  engine.execute('INSERT INTO t VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)')
  engine.execute('CREATE TABLE big (x INT)')
  engine.execute('INSERT INTO big SELECT a.x * 100 + b.x * 10 + c.x FROM t a, t b, t c')
  engine.execute('CREATE TABLE sink (x INT)')
  server = await startServer({ engine, port: 0, maxResultBytes: 1 << 20 })
  attacker = await client()
  witness = await client()
  await witness.query('SELECT 1')
})

afterAll(async () => {
  regexBudget.ms = 1000
  await attacker.end()
  await witness.end()
  await server.close()
  engine.close()
})

/** Runs `sql` on the attacker while the witness asks every 20 ms; returns the attacker's
 *  outcome, its time, and the witness's slowest answer. */
async function underLoad(sql: string, during?: () => Promise<void>): Promise<{ code: string | undefined; value: unknown; ms: number; endedAt: number; witnessMs: number }> {
  let stop = false
  let witnessMs = 0
  const asking = (async () => {
    while (!stop) {
      const t = Date.now()
      await witness.query('SELECT 1')
      witnessMs = Math.max(witnessMs, Date.now() - t)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  const t = Date.now()
  const run = attacker.query(sql).then(
    (r) => ({ code: undefined, value: r.rows[0] ? Object.values(r.rows[0] as object)[0] : undefined, endedAt: Date.now() }),
    (e: { code?: string }) => ({ code: e.code, value: undefined, endedAt: Date.now() }),
  )
  await during?.()
  const r = await run
  const ms = r.endedAt - t
  stop = true
  await asking
  return { ...r, ms, witnessMs }
}

/** Sends a CancelRequest for `c`'s session from another process after `afterMs` (this
 *  process is busy running the statement, as the server would be); resolves to the time it
 *  was sent. */
function cancelLater(c: pg.Client, afterMs: number): Promise<number> {
  const { processID, secretKey } = c as unknown as { processID: number; secretKey: number }
  const script = `setTimeout(() => { const s = require('node:net').connect(${server.port}, '127.0.0.1', () => { const b = Buffer.alloc(16); b.writeInt32BE(16, 0); b.writeInt32BE(80877102, 4); b.writeInt32BE(${processID}, 8); b.writeInt32BE(${secretKey}, 12); console.log(Date.now()); s.end(b) }) }, ${afterMs})`
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script], (err, stdout) => (err ? reject(err) : resolve(Number(stdout.trim()))))
  })
}

const SLOW = 'SELECT count(*) FROM big a, big b, big c'

describe('pathological patterns', () => {
  it("LIKE: repeat('a', 3000) LIKE '%a%a%ab' and friends answer at once", async () => {
    for (const sql of ["SELECT repeat('a', 3000) LIKE '%a%a%ab'", "SELECT repeat('a', 100000) ILIKE '%a%a%a%a%a%a%a%a%ab'", "SELECT repeat('ab', 50000) LIKE '%' || repeat('a_', 200) || 'c%'"]) {
      const r = await underLoad(sql)
      expect(r.value).toBe(false)
      expect(r.ms).toBeLessThan(500)
      expect(r.witnessMs).toBeLessThan(500)
    }
  })

  it("a regex that backtracks exponentially runs on the linear engine: 'a'×26 || '!' ~ '^(a+)+$'", async () => {
    for (const n of [26, 10_000]) {
      const r = await underLoad(`SELECT repeat('a', ${n}) || '!' ~ '^(a+)+$'`)
      expect(r.value).toBe(false)
      expect(r.ms).toBeLessThan(500)
    }
  })

  it('one the linear engine cannot take (case-insensitive, a back reference, astral text) ends with 54001 within its budget', async () => {
    for (const sql of ["SELECT repeat('a', 40) || '!' ~* '^(a+)+$'", "SELECT repeat('a', 40) ~ '^(a+)+\\1b$'", "SELECT repeat('a', 40) || '😀' ~ '^(a|a)+$'"]) {
      const r = await underLoad(sql)
      expect(r.code, sql).toBe('54001')
      expect(r.ms).toBeLessThan(regexBudget.ms + 500)
      expect(r.witnessMs).toBeLessThan(regexBudget.ms + 500)
    }
  })

  it('random nested-quantifier patterns: every LIKE and regex answers within its limit', async () => {
    const atom = fc.constantFrom('a', 'a?', 'a*', '(a|aa)', '(a+)', '(a*)*', '[ab]', '.', '(a|a?)+')
    const regex = fc.array(atom, { minLength: 1, maxLength: 5 }).map((a) => `^(${a.join('')})+$`)
    const like = fc.array(fc.constantFrom('%', '_', 'a', 'b', '%a', 'a_'), { minLength: 1, maxLength: 12 }).map((a) => a.join('') + 'c')
    const samples = [...fc.sample(regex, { numRuns: 12, seed: 7 }).map((p) => [`SELECT repeat('a', 30) || '!' ~ '${p}'`, `SELECT repeat('a', 30) || '!' ~* '${p}'`]).flat(), ...fc.sample(like, { numRuns: 12, seed: 7 }).map((p) => `SELECT repeat('a', 20000) LIKE '${p}'`)]
    for (const sql of samples) {
      const r = await underLoad(sql)
      expect([undefined, '54001'], sql).toContain(r.code)
      expect(r.ms, sql).toBeLessThan(regexBudget.ms + 700)
      expect(r.witnessMs, sql).toBeLessThan(regexBudget.ms + 700)
    }
  }, 120_000)
})

describe('statement limits', () => {
  it('statement_timeout ends a long statement with 57014, and the session goes on', async () => {
    await attacker.query("SET statement_timeout = '200ms'")
    const r = await underLoad(SLOW)
    expect(r.code).toBe('57014')
    expect(r.ms).toBeLessThan(600)
    expect(r.witnessMs).toBeLessThan(600)
    await attacker.query('RESET statement_timeout')
    expect((await attacker.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
  })

  it('a timed-out INSERT changes nothing', async () => {
    await attacker.query('SET statement_timeout = 150')
    const r = await underLoad('INSERT INTO sink SELECT a.x FROM big a, big b, big c')
    expect(r.code).toBe('57014')
    await attacker.query('SET statement_timeout = 0')
    expect(engine.query('SELECT count(*) FROM sink').rows).toEqual([[0]])
  })

  it('a CancelRequest cancels the running statement within 100 ms (57014), changing nothing', async () => {
    // the best of three tries (a loaded machine may not schedule the server at once)
    let best = Infinity
    for (let i = 0; i < 3 && best >= 100; i++) {
      const sent = cancelLater(attacker, 400)
      const r = await underLoad('INSERT INTO sink SELECT a.x FROM big a, big b, big c')
      expect(r.code).toBe('57014')
      // from the moment the other process sent it to the moment the client had the error
      best = Math.min(best, r.endedAt - (await sent))
      expect(engine.query('SELECT count(*) FROM sink').rows).toEqual([[0]])
    }
    expect(best).toBeLessThan(100)
    expect((await attacker.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }])
  }, 30_000)

  it('a statement past --max-memory fails with 53200 and the server goes on', async () => {
    const srv = await startServer({ engine, port: 0, maxMemoryBytes: memoryInUse() + 64 * (1 << 20) })
    const c = await client(srv.port)
    try {
      const e = await c.query("SELECT a.x, repeat('x', 1000) AS pad FROM big a, big b").then(
        () => undefined,
        (x: { code?: string }) => x.code,
      )
      expect(e).toBe('53200')
      expect((await c.query('SELECT 3 AS three')).rows).toEqual([{ three: 3 }])
    } finally {
      await c.end()
      await srv.close()
    }
  })

  it('a result past the size limit ends with 54000', async () => {
    const e = await attacker.query("SELECT repeat('x', 10000) FROM big").then(
      () => undefined,
      (x: { code?: string }) => x.code,
    )
    expect(e).toBe('54000')
    expect((await attacker.query('SELECT 4 AS four')).rows).toEqual([{ four: 4 }])
  })
})
