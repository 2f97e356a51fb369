#!/usr/bin/env node
// The `rivulet` command. `main(argv, io)` does the work and returns the exit code, so
// tests run it in-process with captured output; the bottom of the file calls it when this file
// is run as a script (the package's bin).
import { readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Command, CommanderError, Option } from 'commander'
import { RivuletError } from '../../grammar/index.js'
import { runDemo } from './demo.js'
import { Engine } from '../engine/index.js'
import { formatError, formatNotice, formatResult } from '../repl/format.js'
import { splitStatements, type ScriptStatement } from '../sql-runtime/split.js'

/** Where the CLI writes; injectable for tests. */
export interface CliIo {
  stdout(s: string): void
  stderr(s: string): void
}

const processIo: CliIo = {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
}

type ScriptAction = { readonly kind: 'command'; readonly sql: string } | { readonly kind: 'file'; readonly path: string }

interface RootOptions {
  readonly data?: string
  readonly expanded?: boolean
}

/** Runs the rivulet command line (`argv` without node and the script path); resolves to the
 *  process exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode = 0
  const actions: ScriptAction[] = [] // -c and -f in command-line order, as psql runs them

  const program = new Command('rivulet')
  program
    .description('rivulet: a streaming SQL engine with incremental view maintenance')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show this help and exit')
    .enablePositionalOptions() // options after a command name belong to that command
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .option('-c, --command <sql>', 'run SQL statement(s), print the results as psql does, and exit (repeatable)', (sql: string) => {
      actions.push({ kind: 'command', sql })
      return sql
    })
    .option('-f, --file <file>', 'run the statements in FILE ("-" = standard input) and exit (repeatable)', (path: string) => {
      actions.push({ kind: 'file', path })
      return path
    })
    .option('--data <dir>', 'durable state: input log and checkpoints live in DIR (SQLite files)')
    .option('-x, --expanded', 'expanded table output (psql \\x)')
    .action(async (opts: RootOptions) => {
      if (actions.length === 0) {
        // the REPL (src/repl), loaded only when needed so -c/-f start fast
        const { startRepl } = await import('../repl/repl.js')
        exitCode = await startRepl({ ...(opts.data !== undefined ? { data: opts.data } : {}), expanded: opts.expanded === true, version: packageVersion(), out: io.stdout, err: io.stderr })
        return
      }
      exitCode = runScripts(actions, opts, io)
    })

  program
    .command('slt')
    .description('run sqllogictest files (folders recursively); last line: N passed, N failed, N skipped')
    .usage('[--mode batch|ivm|both] [--verbose] [--fail-fast] PATH[:LINE]...')
    .argument('[args...]')
    .helpOption(false) // `rivulet slt --help` is the runner's own usage
    .allowUnknownOption()
    .action(async (_args: string[], _opts: unknown, cmd: Command) => {
      // The CLI is the composition root: the one module of src/ that may import the
      // sqllogictest runner, which is built on src/ (not the other way round). Loaded lazily.
      const { runSltCli } = await import('../../sqllogictest/cli.js')
      exitCode = await runSltCli([...cmd.args], { out: (l) => io.stdout(`${l}\n`), err: (l) => io.stderr(`${l}\n`) })
    })

  program
    .command('demo')
    .description('the main job: the Nexmark auction generator feeding live views (hot items per HOP window, top bidding sessions, average price per category); redrawn in place on a terminal, printed as changes when piped')
    .option('--events <n>', 'events to generate (default 200,000)', parseCount)
    .option('--pace <n>', 'at most this many events per second of wall-clock time (default 40,000 on a terminal, unpaced when piped)', parseCount)
    .option('--seed <n>', 'generator seed', parseCount)
    .option('--report <n>', 'when piped: print the changes every N events (default 50,000)', parseCount)
    .action(async (opts: { events?: number; pace?: number; seed?: number; report?: number }) => {
      await runDemo({
        ...(opts.events !== undefined ? { events: opts.events } : {}),
        ...(opts.pace !== undefined && opts.pace > 0 ? { pace: opts.pace } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...(opts.report !== undefined && opts.report > 0 ? { report: opts.report } : {}),
        tty: process.stdout.isTTY === true,
        out: (s) => io.stdout(s),
      })
    })

  program
    .command('serve')
    .description('Postgres wire-protocol server: psql -h 127.0.0.1 -p 6875 works; runs until SIGINT/SIGTERM')
    .option('--port <port>', 'port to listen on (0 = any free port, printed)', '6875')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data <dir>', 'durable data directory')
    .option('--password-file <file>', 'require the password on the first line of this file from clients (default: RIVULET_PASSWORD, else trust)')
    .addOption(new Option('--password <password>', 'refused: use --password-file or RIVULET_PASSWORD').hideHelp())
    .option('--auth <method>', 'password check: scram-sha-256 (default), md5 or password (cleartext)')
    .option('--max-connections <n>', 'most client connections at once (default 100; one more: 53300)')
    .option('--statement-timeout <ms>', 'default statement_timeout: ms, or with a unit (5s, 1min); 0 = none (default)')
    .option('--max-memory <mib>', 'fail a statement with 53200 once the heap in use passes this many MiB (default: 80% of the V8 heap limit)')
    .option('--tls-cert <file>', 'serve TLS (sslmode=require) with this PEM certificate chain (needs --tls-key)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .option('--allow-server-files', "let COPY t FROM 'file' read files on this machine (default: refused, 42501)")
    .action(async (opts: { port: string; host: string; data?: string; password?: string; passwordFile?: string; auth?: string; maxConnections?: string; statementTimeout?: string; maxMemory?: string; tlsCert?: string; tlsKey?: string; allowServerFiles?: boolean }) => {
      const { serve } = await import('../server/serve.js')
      exitCode = await serve(opts, io)
    })

  program
    .command('bench')
    .description('Nexmark benchmark: q0–q22 fed by the built-in generator, one process per query; events/s, CPU, memory, state')
    .argument('<suite>', 'benchmark suite: nexmark')
    .option('--query <list>', 'queries to run, e.g. q5,q7 (default all)')
    .option('--events <n>', 'events per query (default 10,000,000; --verify: 50,000)', parseCount)
    .option('--rate <n>', 'events per second of event time (default 10,000)', parseCount)
    .option('--batch <n>', 'events per tick (default 1,000)', parseCount)
    .option('--json <file>', 'write the results here (default nexmark-results.json)')
    .option('--verify', 'check each query: its incremental result equals a from-scratch evaluation of its SQL, at several points of a small run')
    .option('--generate <dir>', 'write the generated events to DIR as person/auction/bid files (with --format) instead of benchmarking')
    .option('--format <format>', 'file format for --generate: jsonl (default) or csv', 'jsonl')
    .option('--seed <n>', 'generator seed for --generate (default 0)', parseCount)
    .option('--child <name>', 'internal: measure one query in this process')
    .action(async (suite: string, opts: { query?: string; events?: number; rate?: number; batch?: number; json?: string; verify?: boolean; child?: string; generate?: string; format: string; seed?: number }) => {
      if (suite !== 'nexmark') {
        io.stderr(`rivulet bench: unknown suite "${suite}" (known: nexmark)\n`)
        exitCode = 2
        return
      }
      if (opts.generate !== undefined) {
        if (opts.format !== 'jsonl' && opts.format !== 'csv') {
          io.stderr(`rivulet bench nexmark: --format must be jsonl or csv, not "${opts.format}"\n`)
          exitCode = 2
          return
        }
        const { writeNexmarkFiles } = await import('../connectors/nexmark/files.js')
        const events = opts.events ?? 1_000_000
        const r = await writeNexmarkFiles(opts.generate, { format: opts.format, events, ...(opts.rate !== undefined ? { rate: opts.rate } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) })
        io.stdout(`${events.toLocaleString('en-US')} events: ${r.person} person, ${r.auction} auction, ${r.bid} bid rows\n${r.files.map((f) => `  ${f}\n`).join('')}`)
        return
      }
      const bench = await import('./nexmark-bench.js')
      if (opts.child !== undefined) {
        bench.runNexmarkChild(opts.child, opts.events ?? 10_000_000, opts.rate ?? 10_000, opts.batch ?? 1000)
        return
      }
      exitCode = await bench.runNexmarkBench({
        ...(opts.query !== undefined ? { queries: opts.query.split(',').map((q) => q.trim().toLowerCase()) } : {}),
        ...(opts.events !== undefined ? { events: opts.events } : {}),
        ...(opts.rate !== undefined ? { rate: opts.rate } : {}),
        ...(opts.batch !== undefined ? { batch: opts.batch } : {}),
        ...(opts.json !== undefined ? { json: opts.json } : {}),
        verify: opts.verify === true,
        out: (s) => io.stdout(s),
      })
    })

  try {
    await program.parseAsync([...argv], { from: 'user' })
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode
    io.stderr(`rivulet: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
  return exitCode
}

function parseCount(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new CommanderError(1, 'rivulet.invalidArgument', `error: not a non-negative integer: ${value}`)
  return n
}

/** Runs -c / -f scripts in order on one engine; stops at the first error (exit 1). */
function runScripts(actions: readonly ScriptAction[], opts: RootOptions, io: CliIo): number {
  let engine: Engine
  try {
    engine = Engine.open(opts.data !== undefined ? { dir: opts.data } : {})
  } catch (e) {
    io.stderr(formatError(errorMessage(e)))
    return 1
  }
  try {
    for (const action of actions) {
      let text: string
      if (action.kind === 'command') {
        text = action.sql
      } else {
        try {
          text = readFileSync(action.path === '-' ? 0 : action.path, 'utf8')
        } catch (e) {
          const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : errorMessage(e)
          io.stderr(`rivulet: error: ${action.path}: ${reason}\n`)
          return 1
        }
      }
      if (!runScript(engine, text, action, opts, io)) return 1
    }
    return 0
  } finally {
    try {
      engine.close()
    } catch {
      // closing after a failure must not hide the failure
    }
  }
}

/** Runs a script statement by statement, printing each result as it completes. */
function runScript(engine: Engine, text: string, action: ScriptAction, opts: RootOptions, io: CliIo): boolean {
  for (const stmt of splitStatements(text)) {
    let results
    try {
      results = engine.execute(stmt.text)
    } catch (e) {
      io.stderr(renderError(e, text, stmt, action))
      return false
    }
    for (const r of results) {
      if (r.notice !== undefined) io.stderr(formatNotice(r.notice))
      io.stdout(formatResult(r, { expanded: opts.expanded === true }))
    }
  }
  return true
}

/** psql's error report. With -c the whole command string is the query (psql sends it as one),
 *  so LINE numbers count from its start; with -f each statement is a query of its own and the
 *  report is prefixed with `rivulet:FILE:LINE:`, LINE being where the statement ends. */
function renderError(e: unknown, script: string, stmt: ScriptStatement, action: ScriptAction): string {
  const offset = errorOffset(e, stmt.text)
  const detail = errorDetail(e)
  if (action.kind === 'command') {
    return formatError(errorMessage(e), script, offset === undefined ? undefined : stmt.offset + offset, detail)
  }
  const name = action.path === '-' ? '<stdin>' : action.path
  return `rivulet:${name}:${stmt.endLine}: ` + formatError(errorMessage(e), stmt.text, offset, detail)
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

function errorDetail(e: unknown): string | undefined {
  return e instanceof RivuletError ? e.detail : undefined
}

/** The 0-based offset of a RivuletError's position in the statement text, if it has one. */
function errorOffset(e: unknown, text: string): number | undefined {
  if (!(e instanceof RivuletError) || e.position === undefined) return undefined
  const { offset } = e.position
  return offset >= 0 && offset <= text.length ? offset : undefined
}

/** The version in package.json (found walking up from this file: src/ or dist/src/). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let k = 0; k < 4; k++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'rivulet' && pkg.version) return pkg.version
    } catch {
      // not here; look one folder up
    }
    dir = dirname(dir)
  }
  return 'unknown'
}

function isMainModule(): boolean {
  const script = process.argv[1]
  if (!script) return false
  try {
    // npm's bin is a symlink; the module URL is the real path.
    return import.meta.url === pathToFileURL(realpathSync(script)).href
  } catch {
    return false
  }
}

if (isMainModule()) {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0) // output piped into `head` and the like
    throw e
  })
  process.exitCode = await main(process.argv.slice(2))
}
