// Many real clients at once against a model of what was acknowledged: node-postgres clients
// mix autocommit inserts, transactions that commit and roll back, conflicting upserts of hot
// keys and reads. Afterwards the table holds exactly the acknowledged rows (nothing lost,
// nothing phantom), the hot counters equal the acknowledged increments, no statement failed
// with an internal error, and reads never waited for an open transaction (their latency is
// reported for the first half of the run, and for the second, with an idle open transaction
// held).
// Default: 50 clients for 8 s; RIVULET_SOAK=1: 50 clients for 60 s.

import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { startServer, type RunningServer } from '../../src/server/index.js'

const SOAK = process.env.RIVULET_SOAK === '1'
const CLIENTS = 50
const SECONDS = SOAK ? 60 : 8
const HOT_KEYS = 5

let engine: Engine
let server: RunningServer

beforeAll(async () => {
  engine = Engine.open()
  engine.execute('CREATE TABLE rows_ (k BIGINT PRIMARY KEY, owner INT)')
  engine.execute('CREATE TABLE hot (k INT PRIMARY KEY, n INT)')
  engine.execute(`INSERT INTO hot SELECT * FROM (VALUES ${Array.from({ length: HOT_KEYS }, (_, i) => `(${i}, 0)`).join(', ')}) v`)
  engine.execute('CREATE MATERIALIZED VIEW per_owner AS SELECT owner, count(*) AS n FROM rows_ GROUP BY owner')
  server = await startServer({ engine, port: 0 })
})

afterAll(async () => {
  await server.close()
  engine.close()
})

function code(e: unknown): string {
  return (e as { code?: string }).code ?? 'no code'
}

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? 0
}

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0
}

describe('50 concurrent clients', () => {
  it(
    'lose no acknowledged write, invent none, and never wait for each other',
    async () => {
      const acknowledged = new Set<string>()
      const increments = new Array<number>(HOT_KEYS).fill(0)
      const errors = new Map<string, number>()
      const readMs: number[] = []
      const readMsAlone: number[] = []
      const noteError = (e: unknown) => errors.set(code(e), (errors.get(code(e)) ?? 0) + 1)
      const until = Date.now() + SECONDS * 1000
      // from half time, one idle open transaction: it must block nobody
      const idle = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'idle', database: 'db' })
      await idle.connect()
      let idleOpen = false
      const opening = new Promise<void>((resolve) =>
        setTimeout(() => {
          void (async () => {
            await idle.query('BEGIN')
            await idle.query('INSERT INTO rows_ VALUES (-1, -1)')
            idleOpen = true
            resolve()
          })()
        }, (SECONDS * 1000) / 2),
      )
      let seq = 0
      const worker = async (id: number) => {
        const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: `c${id}`, database: 'db' })
        c.on('error', () => undefined)
        await c.connect()
        const next = () => String(id * 10_000_000 + ++seq)
        while (Date.now() < until) {
          const r = Math.random()
          try {
            if (r < 0.3) {
              const k = next()
              await c.query(`INSERT INTO rows_ VALUES (${k}, ${id})`)
              acknowledged.add(k)
            } else if (r < 0.55) {
              const keys = [next(), next()]
              const hotKey = Math.floor(Math.random() * HOT_KEYS)
              const commit = Math.random() < 0.7
              await c.query('BEGIN')
              try {
                for (const k of keys) await c.query(`INSERT INTO rows_ VALUES (${k}, ${id})`)
                await c.query(`UPDATE hot SET n = n + 1 WHERE k = ${hotKey}`)
                await c.query(commit ? 'COMMIT' : 'ROLLBACK')
                if (commit) {
                  for (const k of keys) acknowledged.add(k)
                  increments[hotKey]!++
                }
              } catch (e) {
                // a conflict ends the transaction; make sure it is over
                await c.query('ROLLBACK').catch(() => undefined)
                throw e
              }
            } else if (r < 0.75) {
              const hotKey = Math.floor(Math.random() * HOT_KEYS)
              await c.query(`INSERT INTO hot VALUES (${hotKey}, 1) ON CONFLICT (k) DO UPDATE SET n = hot.n + 1`)
              increments[hotKey]!++
            } else {
              const t0 = performance.now()
              const during = idleOpen
              await c.query('SELECT count(*) FROM rows_')
              ;(during ? readMs : readMsAlone).push(performance.now() - t0)
            }
          } catch (e) {
            noteError(e)
          }
        }
        await c.end()
      }
      await Promise.all(Array.from({ length: CLIENTS }, (_, i) => worker(i + 1)))
      await opening
      await idle.query('ROLLBACK')
      await idle.end()

      // the engine's own view of it, read directly
      const stored = new Set(engine.query('SELECT k FROM rows_').rows.map((r) => String(r[0])))
      const lost = [...acknowledged].filter((k) => !stored.has(k))
      const phantom = [...stored].filter((k) => !acknowledged.has(k))
      expect(lost).toEqual([])
      expect(phantom).toEqual([])
      const hot = engine.query('SELECT k, n FROM hot ORDER BY k').rows.map((r) => r[1])
      expect(hot).toEqual(increments)
      // the view agrees with the table
      const viewTotal = engine.query('SELECT sum(n) FROM per_owner').rows[0]![0]
      expect(Number(viewTotal ?? 0)).toBe(stored.size)
      // only conflicts, never an internal error
      for (const c of errors.keys()) expect(['40001'], `error ${c}`).toContain(c)
      const summary = `${CLIENTS} clients × ${SECONDS} s: ${acknowledged.size} rows acknowledged, ${increments.reduce((a, b) => a + b, 0)} hot increments, ${errors.get('40001') ?? 0} conflicts (40001), reads without an open transaction: ${readMsAlone.length}, p50 ${p50(readMsAlone).toFixed(2)} ms, p99 ${p99(readMsAlone).toFixed(2)} ms; with an idle open transaction held: ${readMs.length}, p50 ${p50(readMs).toFixed(2)} ms, p99 ${p99(readMs).toFixed(2)} ms`
      console.log(summary)
      expect(acknowledged.size).toBeGreaterThan(100)
      expect(readMs.length).toBeGreaterThan(10)
    },
    (SECONDS + 120) * 1000,
  )
})
