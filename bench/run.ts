// Benchmark CLI: `npm run bench -- core [--rows N] [--groups N] [--changes N] [--quick]`.
// Re-spawns itself with --expose-gc (memory numbers need global.gc()).

import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { memoryChild, runCore, type CoreOptions, type MemoryKind } from './core.js'
import { machine } from './lib.js'
import { runTime, timeChild, TIME_VIEWS, type TimeView } from './time.js'
import { formatSummary, summarize } from './profile.js'
import { joinsChild, runJoins } from './joins.js'
import { crashChild, MODES, type Mode, runDurable } from './durable.js'
import { checkpointsChild, runCheckpoints } from './checkpoints.js'
import { HISTORY_MODES, historyChild, runHistory, type HistoryMode } from './history.js'
import { runWindows, windowsChild, WINDOWS_PARTS, type WindowQuery, type WindowsPart } from './windows.js'
import { percentileChild } from './percentiles.js'

const script = fileURLToPath(import.meta.url)

function usage(): never {
  process.stderr.write(
    [
      'usage: npm run bench -- <suite> [options]',
      '',
      'suites:',
      '  core        GROUP BY per-change latency vs better-sqlite3 recompute, insert throughput',
      '              (filter/project, join/aggregate), memory per arranged row',
      '  time        event time: 10M events through EMIT ON WINDOW CLOSE views over TUMBLE and',
      '              SESSION with a watermark; state, heap and throughput every --report events',
      '              (--events N, --batch N, --report N, --only tumble,session; --quick: 200k)',
      '  joins       a temporal join at scale: 10M orders converted by the rate valid at their',
      '              event time from a 100k-row versioned table, per 10 s window, EMIT ON WINDOW',
      '              CLOSE; state, heap and throughput every --report orders (--events N,',
      '              --keys N, --batch N, --report N; --quick: 200k orders)',
      '  durable     the durable log: Nexmark ingest in memory vs a data directory (durability',
      "              process and power), bytes on disk per event, reopening time (--events N,",
      '              --queries q0,q5,q7,w2, --modes memory,process,power, --rounds N,',
      '              --max-replay MS; --quick: 20k events, 1 round)',
      '  checkpoints how long a checkpoint stops ticks as state grows: the first one (every',
      '              base) and, after ticks of --changes updates, incremental ones; reopening',
      '              (--sizes 100000,1000000 rows, --changes N, --rounds N; --quick: 50k rows)',
      '  windows     window functions over a stream: LAG/LEAD and a 10-minute RANGE frame per key',
      '              over 10M events (events/s, p99 and longest tick, heap after GC every --report',
      '              events), each verified on a prefix against the ad hoc query; and the median',
      '              per group (percentile_cont) of a --rows table kept under ticks of 1,000',
      '              updates, against sorting the changed groups and an ad hoc SELECT (--events N,',
      '              --verify N, --keys N, --rate N events per second of event time, --rows N,',
      '              --groups N, --ticks N, --recomputes N, --only lag,range,percentile;',
      '              --quick: 30k events at 20 per second, 20k rows, < 10 s)',
      "  history     a stream's history kept in the heap, spilled, in the log, or not kept, in",
      "              W3's shape: events/s, insert p50/p99, heap, peak RSS, each in its own process",
      '              (--events N, --only heap,spilled,durable,none; --quick: 100k events)',
      '',
      'options:',
      '  --rows N       rows loaded (default 1,000,000; --quick: 20,000)',
      '  --groups N     groups / join keys (default 10,000; --quick: 200)',
      '  --changes N    measured single-row changes (default 2000; --quick: 200)',
      '  --recomputes N better-sqlite3 full recomputes timed (default 30; --quick: 10)',
      '  --only a,b     sections: groupby, filter, join, memory (default all)',
      '  --seed N       PRNG seed (default 42)',
      '  --quick        small smoke run (< 20 s)',
      '  --profile DIR  CPU-profile the measured phases into DIR and print the hot spots',
      '',
      '  profile FILE.cpuprofile... [--top N]   hot spots of any V8 CPU profile, mapped to TS file:line',
      '',
      'peers comparison (rivulet vs db-ivm, pg_ivm, sqlite, ...): see bench/peers/README.md',
      '',
    ].join('\n'),
  )
  process.exit(2)
}

function parse(argv: readonly string[]): { suite: string; args: Map<string, string>; flags: Set<string>; rest: string[] } {
  const args = new Map<string, string>()
  const flags = new Set<string>()
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--quick' || a === '--help' || a === '-h') flags.add(a.replace(/^-+/, ''))
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      if (eq > 0) args.set(a.slice(2, eq), a.slice(eq + 1))
      else {
        const v = argv[++i]
        if (v === undefined) usage()
        args.set(a.slice(2), v)
      }
    } else rest.push(a)
  }
  return { suite: rest[0] ?? '', args, flags, rest: rest.slice(1) }
}

function num(args: Map<string, string>, name: string, dflt: number): number {
  const v = args.get(name)
  if (v === undefined) return dflt
  const n = Number(v.replace(/[_,]/g, ''))
  if (!Number.isFinite(n) || n < 0) {
    process.stderr.write(`--${name}: not a number: ${v}\n`)
    process.exit(2)
  }
  return Math.floor(n)
}

async function main(): Promise<void> {
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
    const r = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, script, ...process.argv.slice(2)], { stdio: 'inherit' })
    process.exit(r.status ?? 1)
  }
  const { suite, args, flags, rest } = parse(process.argv.slice(2))
  if (flags.has('help') || flags.has('h') || suite === '') usage()
  const quick = flags.has('quick')
  const rows = num(args, 'rows', quick ? 20_000 : 1_000_000)
  const groups = num(args, 'groups', quick ? 200 : 10_000)
  const seed = num(args, 'seed', 42)

  if (suite === '_mem') {
    // internal: one memory configuration in a fresh process (spawned by core)
    const r = memoryChild(rest[0] as MemoryKind, rows, groups, seed)
    process.stdout.write(JSON.stringify(r) + '\n')
    return
  }
  if (suite === '_time') {
    // internal: one event-time view in a fresh process (spawned by time)
    const r = timeChild(rest[0] as TimeView, { events: num(args, 'events', 1_000_000), batch: num(args, 'batch', 1000), report: num(args, 'report', 1_000_000), seed })
    process.stdout.write(JSON.stringify(r) + '\n')
    return
  }
  if (suite === '_joins') {
    // internal: the temporal join in a fresh process (spawned by joins)
    const r = joinsChild({ events: num(args, 'events', 1_000_000), batch: num(args, 'batch', 1000), report: num(args, 'report', 1_000_000), keys: num(args, 'keys', 100_000), seed })
    process.stdout.write(JSON.stringify(r) + '\n')
    return
  }
  if (suite === 'joins') {
    const events = num(args, 'events', quick ? 200_000 : 10_000_000)
    const rel = path.relative(process.cwd(), script) || script
    process.stdout.write(`## rivulet bench: joins\n\ncommand: \`node ${rel} ${process.argv.slice(2).join(' ')}\` (npm run bench -- ${process.argv.slice(2).join(' ')})\n`)
    process.stdout.write(`date: ${nowIso()}; machine: ${machine()}\n\n`)
    const t0 = performance.now()
    runJoins({ events, batch: num(args, 'batch', 1000), report: num(args, 'report', quick ? 50_000 : 1_000_000), keys: num(args, 'keys', 100_000), seed }, script)
    process.stdout.write(`total ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
    return
  }
  if (suite === '_windows') {
    // internal: one part of the windows suite in a fresh process (spawned by windows)
    const part = rest[0] as WindowsPart
    const r =
      part === 'percentile'
        ? percentileChild({ rows, groups: num(args, 'groups', 1000), ticks: num(args, 'ticks', 200), recomputes: num(args, 'recomputes', 20), seed })
        : windowsChild(part as WindowQuery, { events: num(args, 'events', 1_000_000), verify: num(args, 'verify', 100_000), keys: num(args, 'keys', 1000), rate: num(args, 'rate', 100), report: num(args, 'report', 1_000_000), seed })
    process.stdout.write(JSON.stringify(r) + '\n')
    return
  }
  if (suite === 'windows') {
    const parts = (args.get('only')?.split(',').map((x) => x.trim()) ?? [...WINDOWS_PARTS]) as WindowsPart[]
    for (const p of parts) if (!WINDOWS_PARTS.includes(p)) usage()
    const events = num(args, 'events', quick ? 30_000 : 10_000_000)
    const rel = path.relative(process.cwd(), script) || script
    process.stdout.write(`## rivulet bench: windows\n\ncommand: \`node ${rel} ${process.argv.slice(2).join(' ')}\` (npm run bench -- ${process.argv.slice(2).join(' ')})\n`)
    process.stdout.write(`date: ${nowIso()}; machine: ${machine()}\n\n`)
    const t0 = performance.now()
    runWindows(
      { events, verify: num(args, 'verify', quick ? 15_000 : 100_000), keys: num(args, 'keys', 1000), rate: num(args, 'rate', quick ? 20 : 100), report: num(args, 'report', quick ? 10_000 : 1_000_000), seed },
      { rows, groups: num(args, 'groups', quick ? 100 : 1000), ticks: num(args, 'ticks', quick ? 20 : 200), recomputes: num(args, 'recomputes', quick ? 4 : 20) },
      script,
      parts,
    )
    process.stdout.write(`total ${((performance.now() - t0) / 1000).toFixed(1)} s; machine at the end: ${machine()}\n`)
    return
  }
  if (suite === '_history') {
    // internal: one way of keeping a stream's history in a fresh process (spawned by history)
    process.stdout.write(JSON.stringify(historyChild(rest[0] as HistoryMode, num(args, 'events', 1_000_000), seed)) + '\n')
    return
  }
  if (suite === 'history') {
    const modes = (args.get('only')?.split(',').map((x) => x.trim()) ?? [...HISTORY_MODES]) as HistoryMode[]
    for (const m of modes) if (!HISTORY_MODES.includes(m)) usage()
    const rel = path.relative(process.cwd(), script) || script
    process.stdout.write(`## rivulet bench: history\n\ncommand: \`node ${rel} ${process.argv.slice(2).join(' ')}\` (npm run bench -- ${process.argv.slice(2).join(' ')})\n`)
    process.stdout.write(`date: ${nowIso()}; machine: ${machine()}\n\n`)
    runHistory({ events: num(args, 'events', quick ? 100_000 : 1_000_000), seed, modes }, script)
    return
  }
  if (suite === '_checkpoints') {
    // internal: one state size in a fresh process with a large heap (spawned by checkpoints)
    process.stdout.write(JSON.stringify(checkpointsChild({ rows: num(args, 'rows', 100_000), changes: num(args, 'changes', 1000), rounds: num(args, 'rounds', 10), seed })) + '\n')
    return
  }
  if (suite === 'checkpoints') {
    const rel = path.relative(process.cwd(), script) || script
    process.stdout.write(`## rivulet bench: checkpoints\n\ncommand: \`node ${rel} ${process.argv.slice(2).join(' ')}\` (npm run bench -- ${process.argv.slice(2).join(' ')})\n`)
    process.stdout.write(`date: ${nowIso()}; machine: ${machine()}\n\n`)
    const sizes = (args.get('sizes') ?? (quick ? '50000' : '100000,1000000,4000000')).split(',').map((x) => Number(x.trim()))
    runCheckpoints(sizes, { changes: num(args, 'changes', 1000), rounds: num(args, 'rounds', quick ? 5 : 20), seed }, script)
    return
  }
  if (suite === '_durable-crash') {
    // internal: an ingest killed with SIGKILL (spawned by durable)
    crashChild({ dir: args.get('dir')!, query: args.get('query')!, events: num(args, 'events', 0), killAt: num(args, 'kill-at', 0), repoRoot: path.resolve(path.dirname(script), '..', '..') })
    return
  }
  if (suite === 'durable') {
    const rel = path.relative(process.cwd(), script) || script
    process.stdout.write(`## rivulet bench: durable\n\ncommand: \`node ${rel} ${process.argv.slice(2).join(' ')}\` (npm run bench -- ${process.argv.slice(2).join(' ')})\n`)
    process.stdout.write(`date: ${nowIso()}; machine: ${machine()}\n\n`)
    const t0 = performance.now()
    const queries = args.get('queries')?.split(',').map((x) => x.trim()) ?? ['q0', 'q5', 'q7']
    const modes = (args.get('modes')?.split(',').map((x) => x.trim()) ?? MODES) as Mode[]
    for (const m of modes) if (!MODES.includes(m)) usage()
    runDurable({ events: num(args, 'events', quick ? 20_000 : 500_000), queries, rounds: num(args, 'rounds', quick ? 1 : 3), modes, repoRoot: path.resolve(path.dirname(script), '..', '..'), script, maxReplay: args.has('max-replay') ? num(args, 'max-replay', 1000) : undefined })
    process.stdout.write(`total ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
    return
  }
  if (suite === 'time') {
    const events = num(args, 'events', quick ? 200_000 : 10_000_000)
    const views = (args.get('only')?.split(',').map((x) => x.trim()) ?? Object.keys(TIME_VIEWS)) as TimeView[]
    for (const v of views) if (!(v in TIME_VIEWS)) usage()
    const rel = path.relative(process.cwd(), script) || script
    process.stdout.write(`## rivulet bench: time\n\ncommand: \`node ${rel} ${process.argv.slice(2).join(' ')}\` (npm run bench -- ${process.argv.slice(2).join(' ')})\n`)
    process.stdout.write(`date: ${nowIso()}; machine: ${machine()}\n\n`)
    const t0 = performance.now()
    runTime({ events, batch: num(args, 'batch', 1000), report: num(args, 'report', quick ? 50_000 : 1_000_000), seed }, script, views)
    process.stdout.write(`total ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
    return
  }
  if (suite === 'profile') {
    if (rest.length === 0) usage()
    const top = num(args, 'top', 25)
    for (const f of rest) process.stdout.write(formatSummary(f, summarize(f, top), top) + '\n\n')
    return
  }
  if (suite !== 'core') usage()
  const o: CoreOptions = {
    rows,
    groups,
    seed,
    quick,
    changes: num(args, 'changes', quick ? 200 : 2000),
    recomputes: num(args, 'recomputes', quick ? 10 : 30),
    only: args.get('only')?.split(',').map((s) => s.trim()),
    profile: args.get('profile'),
  }
  const rel = path.relative(process.cwd(), script) || script
  const cmd = ['node', ...process.execArgv, rel, ...process.argv.slice(2)].join(' ')
  const started = nowIso()
  const t0 = performance.now()
  process.stdout.write(`## rivulet bench: core\n\n`)
  process.stdout.write(`command: \`${cmd}\` (npm run bench -- ${process.argv.slice(2).join(' ')})\n`)
  process.stdout.write(`date: ${started}; machine: ${machine()}\n\n`)
  await runCore(o, script)
  process.stdout.write(`total ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
}

function nowIso(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z')
}

await main()
