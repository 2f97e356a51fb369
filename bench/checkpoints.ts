// `npm run bench -- checkpoints [--rows N] [--changes N] [--rounds N] [--quick]`: how long a
// checkpoint stops ticks as the state grows. A table of --rows accounts (a primary key, two
// integers and a 40-character text) with two views over it — its rows by owner (GROUP BY, one
// group per 20 accounts) and the accounts in credit (a materialized filter: a second copy of
// most rows) — in a data directory.
// - In flight, as the engine takes them: the first checkpoint (every owner's base, the whole
//   state) begins, and ticks of --changes random updates run back to back until it commits;
//   each tick's time includes the slice of the checkpoint written after it. The longest tick
//   then, against the longest tick without a checkpoint; the longest step of the checkpoint
//   (fixing it, a slice, its commit). Then --rounds times a checkpoint of the changes since
//   the last (a delta) begins the same way.
// - Whole, as CHECKPOINT takes them (it finishes the checkpoint at once): after each of --rounds
//   ticks, a CHECKPOINT, which saves only the changed keys.
// Then reopening from the chain of deltas. Runs in a child process with a large heap
// (--max-old-space-size).

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Engine } from '../src/index.js'
import { internalsOf } from '../src/engine/engine.js'

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
  /** In flight: the first checkpoint (bases) — its wall time, the ticks it spanned, the
   *  longest of them — and the longest tick of the deltas in flight after it. */
  readonly firstInFlightMs: number
  readonly firstInFlightTicks: number
  readonly longestTickFirst: number
  readonly longestTickDeltas: number
  readonly longestTickWithout: number
  readonly longestSteps: { begin: number; slice: number; commit: number }
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
    let x = o.seed >>> 0
    const next = (): number => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0
      return x
    }
    const tick = (): number => {
      const ids = Array.from({ length: o.changes }, () => 1 + (next() % o.rows))
      const t = performance.now()
      db.execute(`UPDATE acct SET balance = balance + ${(next() % 21) - 10} WHERE id IN (${ids.join(', ')})`)
      return performance.now() - t
    }
    // in flight: ticks until the checkpoint begun commits (each with the slice written after it)
    const checkpoints = internalsOf(db).checkpoints
    const inFlight = (): { ms: number; ticks: number; longest: number } => {
      const t = performance.now()
      checkpoints.beginNow()
      checkpoints.longest.begin = Math.max(checkpoints.longest.begin, performance.now() - t)
      let ticks = 0
      let longest = 0
      while (checkpoints.inFlight) {
        longest = Math.max(longest, tick())
        ticks++
      }
      return { ms: performance.now() - t, ticks, longest }
    }
    const first = inFlight()
    // as many ticks again with no checkpoint (the heap's own pauses, a garbage collection among
    // them, show there too)
    let longestTickWithout = 0
    for (let i = 0; i < first.ticks; i++) longestTickWithout = Math.max(longestTickWithout, tick())
    let longestTickDeltas = 0
    for (let r = 0; r < o.rounds; r++) {
      for (let i = 0; i < 5; i++) longestTickWithout = Math.max(longestTickWithout, tick())
      longestTickDeltas = Math.max(longestTickDeltas, inFlight().longest)
    }
    // whole: a CHECKPOINT after every key changed saves bases again (an owner that churned every
    // key does), what the first checkpoint costs when CHECKPOINT takes it at once
    db.execute('UPDATE acct SET balance = balance + 1')
    let t = performance.now()
    db.execute('CHECKPOINT')
    const baseMs = performance.now() - t
    const baseMB = newestCheckpoint(db).bytes / 2 ** 20
    const deltaMs: number[] = []
    const deltaKB: number[] = []
    const tickMs: number[] = []
    for (let r = 0; r < o.rounds; r++) {
      tickMs.push(tick())
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
    return {
      rows: o.rows,
      heapMB: heap,
      loadSeconds,
      baseMs,
      baseMB,
      deltaMs,
      deltaKB,
      tickMs,
      firstInFlightMs: first.ms,
      firstInFlightTicks: first.ticks,
      longestTickFirst: first.longest,
      longestTickDeltas,
      longestTickWithout,
      longestSteps: { ...checkpoints.longest },
      reopenSeconds,
      reopenRecords,
    }
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
  const results: CheckpointBenchResult[] = []
  process.stdout.write('Whole (CHECKPOINT, which finishes a checkpoint at once):\n\n| rows | heap after load | CHECKPOINT after every key changed (bases) | its size | CHECKPOINT after a tick of ' + o.changes + ' updates: p50 / max | its size p50 | the tick itself p50 | reopen (from the chain of deltas) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n')
  for (const rows of sizes) {
    const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=16000', script, '_checkpoints', '--rows', String(rows), '--changes', String(o.changes), '--rounds', String(o.rounds), '--seed', String(o.seed)], { encoding: 'utf8', maxBuffer: 1 << 26 })
    if (child.status !== 0) throw new Error(`checkpoints child failed: ${child.stderr}`)
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as CheckpointBenchResult
    results.push(r)
    process.stdout.write(
      `| ${r.rows.toLocaleString('en-US')} | ${r.heapMB.toFixed(0)} MB | ${r.baseMs.toFixed(0)} ms | ${r.baseMB.toFixed(1)} MB | ${pct(r.deltaMs, 50).toFixed(1)} / ${Math.max(...r.deltaMs).toFixed(1)} ms | ${pct(r.deltaKB, 50).toFixed(0)} KB | ${pct(r.tickMs, 50).toFixed(1)} ms | ${r.reopenSeconds.toFixed(2)} s (${r.reopenRecords} records replayed) |\n`,
    )
  }
  process.stdout.write(
    `\nIn flight (as the engine takes them), ticks of ${o.changes} updates back to back, each followed by a slice of the checkpoint:\n\n| rows | first checkpoint (bases of the whole state): wall / ticks it spanned | longest tick meanwhile | longest tick during the deltas in flight | longest tick with no checkpoint (as many ticks) | longest step: fixing one / a slice / its commit |\n|---:|---:|---:|---:|---:|---:|\n`,
  )
  for (const r of results) {
    const s = r.longestSteps
    process.stdout.write(
      `| ${r.rows.toLocaleString('en-US')} | ${(r.firstInFlightMs / 1000).toFixed(1)} s / ${r.firstInFlightTicks} | ${r.longestTickFirst.toFixed(1)} ms | ${r.longestTickDeltas.toFixed(1)} ms | ${r.longestTickWithout.toFixed(1)} ms | ${s.begin.toFixed(1)} / ${s.slice.toFixed(1)} / ${s.commit.toFixed(1)} ms |\n`,
    )
  }
}
