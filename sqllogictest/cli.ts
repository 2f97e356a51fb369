// `rivulet slt [--mode batch|ivm|both] [--summary] [--churn] [--verbose] [--fail-fast] PATH[:LINE]...`
// Runs sqllogictest files (folders are searched recursively for *.slt and *.test) and prints
// failures as `file:line: ...`; the last line is `N passed, N failed, N skipped`.

import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { addCounts, DEFAULT_CHURN_SEED, emptyCounts, runFile } from './runner.js'
import type { Counts, RunMode, SltEngine } from './runner.js'

const USAGE = 'usage: rivulet slt [--mode batch|ivm|both] [--summary] [--churn] [--verbose] [--fail-fast] PATH[:LINE]...'

/** `N passed, N failed, N skipped (C by condition, U unsupported)` (+ `, F not run` after --fail-fast). */
export function countsText(c: Counts): string {
  const notRun = c.notRun > 0 ? `, ${c.notRun} not run` : ''
  return `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (${c.condition} by condition, ${c.unsupported} unsupported${notRun})`
}

export interface SltCliIo {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
  readonly openEngine: () => SltEngine
  /** Environment (RIVULET_SEED); default process.env. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** Lists test files under a folder (recursively, sorted); `*.slt.part` files are only included. */
export function collectFiles(path: string): string[] {
  const st = statSync(path)
  if (!st.isDirectory()) return [path]
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.slt') || e.name.endsWith('.test')) out.push(p)
    }
  }
  walk(path)
  return out
}

interface Target {
  readonly path: string
  readonly line: number | undefined
}

function parseTarget(arg: string): Target {
  const m = /^(.*):(\d+)$/.exec(arg)
  if (m !== null) {
    try {
      statSync(m[1]!)
      return { path: m[1]!, line: Number(m[2]) }
    } catch {
      /* a path that really ends in :digits */
    }
  }
  return { path: arg, line: undefined }
}

/** Entry point for `rivulet slt ...`; returns the exit code. `argv` is what follows `slt`. */
export async function runSltCli(argv: string[], io?: Partial<SltCliIo>): Promise<number> {
  const out = io?.out ?? ((l: string) => process.stdout.write(`${l}\n`))
  const err = io?.err ?? ((l: string) => process.stderr.write(`${l}\n`))
  const args = argv[0] === 'slt' ? argv.slice(1) : argv
  let mode: RunMode = 'batch'
  let verbose = false
  let failFast = false
  let summary = false
  let churn = false
  const targets: Target[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '--mode' || a.startsWith('--mode=')) {
      const v = a === '--mode' ? args[++i] : a.slice('--mode='.length)
      if (v !== 'batch' && v !== 'ivm' && v !== 'both') {
        err(`rivulet slt: --mode must be batch, ivm or both (got ${v ?? 'nothing'})`)
        return 2
      }
      mode = v
    } else if (a === '--verbose' || a === '-v') verbose = true
    else if (a === '--fail-fast' || a === '-x') failFast = true
    else if (a === '--summary') summary = true
    else if (a === '--churn') churn = true
    else if (a === '--help' || a === '-h') {
      out(USAGE)
      return 0
    } else if (a.startsWith('-') && a !== '-') {
      err(`rivulet slt: unknown option ${a}`)
      err(USAGE)
      return 2
    } else targets.push(parseTarget(a))
  }
  if (targets.length === 0) {
    err(USAGE)
    return 2
  }
  if (churn && mode === 'batch') {
    err('rivulet slt: --churn needs --mode ivm or --mode both')
    return 2
  }
  let churnSeed = DEFAULT_CHURN_SEED
  const seedText = (io?.env ?? process.env)['RIVULET_SEED']
  if (churn && seedText !== undefined && seedText.trim() !== '') {
    churnSeed = Number(seedText)
    if (!Number.isSafeInteger(churnSeed)) {
      err(`rivulet slt: RIVULET_SEED must be an integer (got ${seedText})`)
      return 2
    }
  }
  let openEngine = io?.openEngine
  if (openEngine === undefined) {
    // Loaded here, not at the top, so the runner's pieces load without the engine.
    const { Engine } = await import('../src/index.js')
    // `sleep` moves a file's clock on without waiting: the wall clock plus what it slept
    openEngine = (): SltEngine => {
      let slept = 0
      const db = Engine.open({ clock: () => Date.now() + slept })
      return Object.assign(db, { advanceClock: (ms: number) => void (slept += ms) })
    }
  }

  const total: Counts = emptyCounts()
  const started = performance.now()
  let stop = false
  for (const t of targets) {
    let files: string[]
    try {
      files = collectFiles(t.path)
    } catch (e) {
      out(`${t.path}:0: cannot read: ${(e as Error).message}`)
      total.failed++
      if (summary) out(`${t.path}: ${countsText({ ...emptyCounts(), failed: 1 })}, 0.00 s`)
      continue
    }
    for (const f of files) {
      const t0 = performance.now()
      const c = await runFile(f, {
        mode,
        openEngine,
        report: out,
        verbose,
        failFast,
        stopAtLine: t.line,
        churn,
        churnSeed,
      })
      addCounts(total, c)
      const ms = performance.now() - t0
      if (verbose) out(`${f}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (${Math.round(ms)} ms)`)
      if (summary) out(`${f}: ${countsText(c)}, ${(ms / 1000).toFixed(2)} s`)
      if (failFast && c.failed > 0) {
        stop = true
        break
      }
    }
    if (stop) break
  }
  const seconds = (performance.now() - started) / 1000
  if (verbose) out(`mode ${mode}, ${seconds.toFixed(1)} s`)
  if (summary) {
    // records/s counts the records that ran (passed + failed), not the skipped ones.
    const rate = seconds > 0 ? Math.round((total.passed + total.failed) / seconds) : 0
    const extra = churn ? `, churn seed ${churnSeed}` : ''
    out(`total: ${countsText(total)}, ${seconds.toFixed(2)} s, ${rate} records/s (mode ${mode}${extra})`)
  }
  out(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`)
  return total.failed > 0 ? 1 : 0
}
