// The crash campaign: a worker process (crash-worker.mjs) runs a seeded workload (workload.mjs) on a data
// directory and is killed with SIGKILL at random moments — while it recovers, inside appends,
// inside sink writes — then started again, many times. Each life must recover every step it
// acknowledged (printed) before it died, and at the end every table, stream, view, late event and
// sink equals an uncrashed in-memory run of the same workload: 0 rows lost, 0 duplicated.
//   RIVULET_CRASH_KILLS=500 (the soak; default 12)   RIVULET_SEED=n (replays a failure)
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../dist/src/index.js'
import { CLOCK, prng, RELATIONS, runStep, schema, steps } from './workload.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const KILLS = Number(process.env.RIVULET_CRASH_KILLS ?? 12)
const SEED = Number(process.env.RIVULET_SEED ?? Math.floor(Math.random() * 2 ** 31))
const STEPS = Number(process.env.RIVULET_CRASH_STEPS ?? 300)

interface Life {
  recovered: number
  /** Recovery started from a checkpoint (not the start of the log). */
  fromCheckpoint: boolean
  acknowledged: number
  /** A checkpoint was in flight after the last step acknowledged. */
  inFlight: boolean
  exitCode: number | null
  signal: string | null
  stderr: string
}

/** Runs one life of the worker; kills it `killAfterMs` after it starts (undefined: never). */
function life(dir: string, out: string, seed: number, killAfterMs: number | undefined, duringRecovery: boolean, truncate: boolean): Promise<Life> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(here, 'crash-worker.mjs'), dir, out, String(seed), String(STEPS), truncate ? 'truncate' : 'keep'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const result: Life = { fromCheckpoint: false, recovered: -1, acknowledged: -1, inFlight: false, exitCode: null, signal: null, stderr: '' }
    let buffer = ''
    let timer: NodeJS.Timeout | undefined
    const arm = () => {
      if (killAfterMs !== undefined && timer === undefined) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    }
    if (duringRecovery) arm()
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString()
      let nl: number
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        const m = /^(recovered|step) (\d+)\b/.exec(line)
        if (!m) continue
        if (m[1] === 'recovered') {
          result.recovered = Number(m[2])
          result.fromCheckpoint = line.includes('the checkpoint at tick')
          arm()
        } else {
          result.acknowledged = Number(m[2])
          result.inFlight = line.endsWith(' in flight')
        }
      }
    })
    child.stderr.on('data', (d: Buffer) => (result.stderr += d.toString()))
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      result.exitCode = code
      result.signal = signal
      resolve(result)
    })
  })
}

const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort()

function relationsOf(db: Engine): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const r of RELATIONS) out[r] = sorted(db.query(`SELECT * FROM ${r}`).rows as unknown[][])
  return out
}

function sinksOf(out: string): Record<string, string[]> {
  const db = new Database(path.join(out, 'sink.db'), { readonly: true })
  try {
    const table = (name: string) => sorted(db.prepare(`SELECT * FROM ${name}`).raw().all() as unknown[][])
    const lines = (file: string) => readFileSync(path.join(out, file), 'utf8').split('\n').filter((l) => l !== '')
    return { by_owner: table('by_owner'), joined_changes: table('joined_changes'), 'win.jsonl': lines('win.jsonl'), 'joined.jsonl': lines('joined.jsonl') }
  } finally {
    db.close()
  }
}

/** Kills per round: one seeded workload on one data directory, then compared. */
const KILLS_PER_ROUND = 12

/** One round: workload `seed` on a fresh directory, killed `kills` times, then compared with an
 *  uncrashed in-memory run. */
async function round(seed: number, kills: number): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'rivulet-crash-'))
  const dir = path.join(root, 'data')
  const out = path.join(root, 'out')
  const refOut = path.join(root, 'ref')
  mkdirSync(out)
  mkdirSync(refOut)
  const random = prng(seed ^ 0x5bd1e995)
  try {
    let killed = 0
    let acknowledged = 0
    let finished = false
    let lives = 0
    let fromCheckpoints = 0
    /** Recoveries at step 20 or later, when the worker has checkpointed (every tenth step). */
    let pastCheckpoints = 0
    /** Per life: where it recovered from, steps acknowledged, how it ended (for a failure's message). */
    const story: string[] = []
    while (!finished) {
      lives++
      expect(lives, `seed ${seed}: the campaign makes progress`).toBeLessThan(kills * 4 + 20)
      const kill = killed < kills
      // most kills land while steps run, some while the worker recovers
      const duringRecovery = kill && random() < 0.2
      const delay = kill ? Math.floor(duringRecovery ? 30 + random() * 300 : random() * 250) : undefined
      // every other life truncates the log at its checkpoints
      const l = await life(dir, out, seed, delay, duringRecovery, lives % 2 === 0)
      if (l.recovered >= 0) {
        // every acknowledged step survived; at most the one in flight committed unseen
        expect(l.recovered, `seed ${seed}, life ${lives}: recovered step (acknowledged ${acknowledged})`).toBeGreaterThanOrEqual(acknowledged)
        expect(l.recovered).toBeLessThanOrEqual(acknowledged + 1)
        acknowledged = Math.max(acknowledged, l.recovered, l.acknowledged)
        if (l.fromCheckpoint) fromCheckpoints++
        if (l.recovered >= 20) pastCheckpoints++
      }
      const killedInFlight = l.signal === 'SIGKILL' && !duringRecovery && l.inFlight
      story.push(`life ${lives}: recovered ${l.recovered} from ${l.fromCheckpoint ? 'a checkpoint' : 'the log start'}, acknowledged ${l.acknowledged}, ${l.signal ?? `exit ${l.exitCode}`}${duringRecovery ? ' (killed during recovery)' : ''}${killedInFlight ? ' (a checkpoint in flight)' : ''}`)
      if (killedInFlight) inFlightKills++
      if (l.signal === 'SIGKILL') killed++
      else {
        expect(l.stderr, `seed ${seed}`).toBe('')
        expect(l.exitCode).toBe(0)
        // finished before all kills landed: the rest go to the next round
        finished = acknowledged === STEPS
      }
    }

    // the worker checkpoints every tenth step: recoveries past the first ones start there (a
    // round whose kills all land early — or in recoveries — recovers from the log start only)
    if (pastCheckpoints > 0) expect(fromCheckpoints, `seed ${seed}: recoveries from a checkpoint\n${story.join('\n')}`).toBeGreaterThan(0)

    const ref = Engine.open({ sources: 'manual', clock: CLOCK })
    for (const s of schema(refOut)) ref.execute(s)
    steps(seed, STEPS).forEach((s, i) => runStep(ref, i + 1, s))
    const expected = relationsOf(ref)
    const expectedTick = ref.tick
    ref.close()

    const meta = new Database(path.join(dir, 'rivulet.db'), { readonly: true })
    const logStart = Number((meta.prepare("SELECT value FROM meta WHERE key = 'log_start'").get() as { value: string } | undefined)?.value ?? 1)
    meta.close()
    if (logStart > 1) truncatedRounds++
    const db = Engine.open({ dir, sources: 'manual', clock: CLOCK })
    try {
      expect(db.tick, `seed ${seed}`).toBe(expectedTick)
      expect(relationsOf(db), `seed ${seed}`).toEqual(expected)
      // the counters too (rivulet_late_events keeps the stream's and the versioned table's)
      expect(db.lateEvents('ev')).toBe(expected.rivulet_late_events!.filter((r) => r.startsWith('["ev"')).length)
    } finally {
      db.close()
    }
    expect(sinksOf(out), `seed ${seed}`).toEqual(sinksOf(refOut))
    totalKills += killed
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

let totalKills = 0
/** Rounds whose log was truncated behind checkpoints (recovered from a truncated log). */
let truncatedRounds = 0
/** Kills that landed while a checkpoint was in flight (see crash-worker.mjs). */
let inFlightKills = 0

describe('crash campaign', () => {
  it(`SIGKILL ≥ ${KILLS} times at random moments: nothing acknowledged is lost, nothing is duplicated (seed ${SEED})`, { timeout: 60_000 + KILLS * 5_000 }, async () => {
    console.log(`crash campaign: RIVULET_SEED=${SEED} RIVULET_CRASH_KILLS=${KILLS} RIVULET_CRASH_STEPS=${STEPS}`)
    for (let r = 0; totalKills < KILLS; r++) await round(SEED + r, Math.min(KILLS_PER_ROUND, KILLS - totalKills))
    console.log(`crash campaign: ${totalKills} kills, every round equal to its uncrashed run; ${truncatedRounds} rounds with the log truncated behind checkpoints; ${inFlightKills} kills with a checkpoint in flight`)
    expect(totalKills).toBeGreaterThanOrEqual(KILLS)
    expect(inFlightKills, 'kills landed while a checkpoint was in flight').toBeGreaterThan(0)
    expect(truncatedRounds, 'lives that truncate the log reached a checkpoint').toBeGreaterThan(0)
  })
})
