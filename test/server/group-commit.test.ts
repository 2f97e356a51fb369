// Group commit on a durable server: concurrent sessions' commits are acknowledged after one
// fsync of the log covers them (src/storage/data-dir.ts sync(), awaited by the statement
// runner before CommandComplete), so there are fewer fsyncs than commits, and every
// acknowledged commit is in the log when the directory is reopened.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { Engine, internalsOf } from '../../src/engine/engine.js'
import { startServer } from '../../src/server/index.js'

describe('group commit', () => {
  it('concurrent sessions share fsyncs; every acknowledged commit survives reopening', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rivulet-group-commit-'))
    try {
      const engine = Engine.open({ dir })
      engine.execute('CREATE TABLE t (client INT, n INT, PRIMARY KEY (client, n))')
      const storage = internalsOf(engine).log.dir!
      const server = await startServer({ engine, port: 0 })
      const CLIENTS = 12
      const COMMITS = 25
      const before = storage.syncs
      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'u' })
          await c.connect()
          return c
        }),
      )
      let acknowledged = 0
      await Promise.all(
        clients.map(async (c, i) => {
          for (let n = 0; n < COMMITS; n++) {
            // half auto-committed statements, half blocks (their COMMIT is the write)
            if (n % 2 === 0) await c.query(`INSERT INTO t VALUES (${i}, ${n})`)
            else await c.query(`BEGIN; INSERT INTO t VALUES (${i}, ${n}); COMMIT`)
            acknowledged++
          }
        }),
      )
      const fsyncs = storage.syncs - before
      console.log(`group commit: ${acknowledged} commits by ${CLIENTS} sessions, ${fsyncs} fsyncs`)
      for (const c of clients) await c.end()
      await server.close()
      engine.close()
      expect(acknowledged).toBe(CLIENTS * COMMITS)
      expect(fsyncs).toBeGreaterThan(0)
      expect(fsyncs).toBeLessThan(acknowledged)
      const again = Engine.open({ dir })
      expect(again.query('SELECT count(*) FROM t').rows).toEqual([[CLIENTS * COMMITS]])
      again.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
