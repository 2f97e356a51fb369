// `npm run bench -- checkpoints [--rows N] [--changes N] [--rounds N] [--quick]`: how long a
// checkpoint stops ticks as the state grows. A table of --rows accounts (a primary key, two
// integers and a 40-character text) with two views over it — its rows by owner (GROUP BY, one
// group per 20 accounts) and the accounts in credit (a materialized filter: a second copy of
// most rows) — in a data directory. The first CHECKPOINT saves every owner's base (what every
// checkpoint cost before they were incremental); then --rounds times a tick of --changes
// random updates and a CHECKPOINT, which saves only the changed keys. Then reopening from the
// chain of deltas. Runs in a child process with a large heap (--max-old-space-size).

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Engine } from '../src/index.js'

export interface CheckpointBenchOptions {
  readonly rows: number
  readonly changes: number
  readonly rounds: number
  readonly seed: number
}

export interface CheckpointBenchResult {
  readonly rows: number
  readonly heapMB: number
  readonly loadSeconds: number
  readonly baseMs: number
  readonly baseMB: number
  readonly deltaMs: number[]
  readonly deltaKB: number[]
  readonly tickMs: number[]
  readonly reopenSeconds: number
  readonly reopenRecords: number
}

function heapMB(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}

function newestCheckpoint(db: Engine): { bytes: number } {
  const r = db.query('SELECT bytes FROM rivulet_checkpoints ORDER BY log_seq DESC LIMIT 1').rows[0]!
  return { bytes: Number(r[0]) }
}

/** The measurement, in this process (the child). */
export function checkpointsChild(o: CheckpointBenchOptions): CheckpointBenchResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'rivulet-bench-checkpoints-'))
  try {
    const open = (): Engine => Engine.open({ dir, checkpointInterval: 0, durability: 'process', sources: 'manual' })
    const db = open()
    db.execute('CREATE TABLE acct (id INT PRIMARY KEY, owner INT, balance INT, note TEXT)')
    db.execute('CREATE MATERIALIZED VIEW by_owner AS SELECT owner, count(*) AS n, sum(balance) AS total FROM acct GROUP BY owner')
    db.execute('CREATE MATERIALIZED VIEW in_credit AS SELECT id, owner, balance FROM acct WHERE balance >= 0')
    const t0 = performance.now()
    const batch = 200_000
    for (let from = 1; from <= o.rows; from += batch) {
      const to = Math.min(o.rows, from + batch - 1)
      db.execute(`INSERT INTO acct SELECT i, i % ${Math.max(1, Math.floor(o.rows / 20))}, ((i % 1000) * 7) % 1000 - 100, md5(i::text) || 'acct' FROM generate_series(${from}, ${to}) AS g(i)`)
    }
    const loadSeconds = (performance.now() - t0) / 1000
    const heap = heapMB()
    let t = performance.now()
    db.execute('CHECKPOINT')
    const baseMs = performance.now() - t
    const baseMB = newestCheckpoint(db).bytes / 2 ** 20
    let x = o.seed >>> 0
    const next = (): number => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0
      return x
    }
    const deltaMs: number[] = []
    const deltaKB: number[] = []
    const tickMs: number[] = []
    for (let r = 0; r < o.rounds; r++) {
      const ids = Array.from({ length: o.changes }, () => 1 + (next() % o.rows))
      t = performance.now()
      db.execute(`UPDATE acct SET balance = balance + ${(next() % 21) - 10} WHERE id IN (${ids.join(', ')})`)
      tickMs.push(performance.now() - t)
      t = performance.now()
      db.execute('CHECKPOINT')
      deltaMs.push(performance.now() - t)
      deltaKB.push(newestCheckpoint(db).bytes / 1024)
    }
    db.execute('UPDATE acct SET balance = 0 WHERE id = 1')
    db.close()
    t = performance.now()
    const back = open()
    const reopenSeconds = (performance.now() - t) / 1000
    const reopenRecords = back.recovery?.records ?? -1
    back.close()
    return { rows: o.rows, heapMB: heap, loadSeconds, baseMs, baseMB, deltaMs, deltaKB, tickMs, reopenSeconds, reopenRecords }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

/** Runs each size in a fresh child process and prints a table. */
export function runCheckpoints(sizes: readonly number[], o: Omit<CheckpointBenchOptions, 'rows'>, script: string): void {
  process.stdout.write('| rows | heap after load | first checkpoint (bases) | its size | checkpoint after a tick of ' + o.changes + ' updates: p50 / max | its size p50 | the tick itself p50 | reopen (from the chain of deltas) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n')
  for (const rows of sizes) {
    const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=16000', script, '_checkpoints', '--rows', String(rows), '--changes', String(o.changes), '--rounds', String(o.rounds), '--seed', String(o.seed)], { encoding: 'utf8', maxBuffer: 1 << 26 })
    if (child.status !== 0) throw new Error(`checkpoints child failed: ${child.stderr}`)
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as CheckpointBenchResult
    process.stdout.write(
      `| ${r.rows.toLocaleString('en-US')} | ${r.heapMB.toFixed(0)} MB | ${r.baseMs.toFixed(0)} ms | ${r.baseMB.toFixed(1)} MB | ${pct(r.deltaMs, 50).toFixed(1)} / ${Math.max(...r.deltaMs).toFixed(1)} ms | ${pct(r.deltaKB, 50).toFixed(0)} KB | ${pct(r.tickMs, 50).toFixed(1)} ms | ${r.reopenSeconds.toFixed(2)} s (${r.reopenRecords} records replayed) |\n`,
    )
  }
}
