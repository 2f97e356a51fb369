// The interactive REPL (SPEC §1.2): `rivulet` without -c/-f. node:readline does the line
// editing, history (~/.rivulet_history, or $RIVULET_HISTORY) and tab completion; session.ts does
// the rest. With piped input (stdin or stdout not a terminal) it behaves like psql fed a script:
// no banner, no prompts, results printed, errors on stderr, exit code 0.
//
// Ctrl-C at the prompt clears the line and the query buffer (psql). While a SUBSCRIBE streams,
// readline is paused and the terminal is put back in cooked mode, so typed text waits (echoed by
// the terminal, read after the subscription, as psql reads type-ahead) and Ctrl-C arrives as
// SIGINT, which stops the subscription only. Ctrl-D (end of input) quits.
import { readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { Engine, recoveryLine } from '../engine/index.js'
import { formatError } from './format.js'
import { ReplSession } from './session.js'

export interface ReplOptions {
  readonly engine: Engine
  readonly input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown }
  readonly output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }
  /** Where results go (default: output). */
  readonly out?: (s: string) => void
  /** Where errors go (default: process.stderr). */
  readonly err?: (s: string) => void
  /** Prompts, banner, SUBSCRIBE until Ctrl-C. Default: input and output are terminals. */
  readonly interactive?: boolean
  /** readline terminal mode (line editing, history, completion). Default: input and output
   *  are terminals. */
  readonly terminal?: boolean
  /** History file (read at start, rewritten as lines are entered); none when undefined. */
  readonly historyFile?: string
  readonly historySize?: number
  /** Start in expanded mode (`rivulet -x`). */
  readonly expanded?: boolean
  /** Printed first when interactive. */
  readonly banner?: string
  /** SUBSCRIBE: engine.refresh() period in ms (default 1000). */
  readonly refreshMs?: number
  /** `\i` progress bar delay in ms (default 300). */
  readonly progressDelayMs?: number
  /** The engine's data directory (`--data`), for \conninfo. */
  readonly dataDir?: string
  /** Called with the session once it exists (tests use it to interrupt a SUBSCRIBE). */
  readonly onSession?: (session: ReplSession) => void
}

/** The history file: $RIVULET_HISTORY, else ~/.rivulet_history. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['RIVULET_HISTORY']
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.rivulet_history')
}

/** Reads a history file (oldest entry first, one per line) as readline wants it: newest first. */
export function loadHistory(file: string, size: number): string[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .reverse()
      .slice(0, size)
  } catch {
    return []
  }
}

function saveHistory(file: string, newestFirst: readonly string[]): void {
  try {
    writeFileSync(file, newestFirst.length === 0 ? '' : `${[...newestFirst].reverse().join('\n')}\n`, { mode: 0o600 })
  } catch {
    // an unwritable history file must not break the session (psql warns once; we stay quiet)
  }
}

/** Runs the REPL until \q or end of input; resolves to the exit code (0). */
export function runRepl(opts: ReplOptions): Promise<number> {
  const { input, output, engine } = opts
  const ttys = input.isTTY === true && output.isTTY === true
  const interactive = opts.interactive ?? ttys
  const terminal = opts.terminal ?? ttys
  const out = opts.out ?? ((s: string) => void output.write(s))
  const err = opts.err ?? ((s: string) => void process.stderr.write(s))
  const historySize = opts.historySize ?? 500

  let rl: Interface | undefined
  const onSigint = (): void => {
    session.interrupt()
  }
  const session = new ReplSession({
    engine,
    out,
    err,
    interactive,
    tty: output.isTTY === true,
    columns: () => output.columns ?? 80,
    ...(opts.expanded !== undefined ? { expanded: opts.expanded } : {}),
    ...(opts.refreshMs !== undefined ? { refreshMs: opts.refreshMs } : {}),
    ...(opts.progressDelayMs !== undefined ? { progressDelayMs: opts.progressDelayMs } : {}),
    ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
    onStreaming: (streaming) => {
      if (streaming) {
        rl?.pause()
        if (terminal && input.isTTY && input.setRawMode) {
          // cooked mode: Ctrl-C is SIGINT again, typed text waits in the terminal
          input.setRawMode(false)
          process.on('SIGINT', onSigint)
        }
      } else {
        process.off('SIGINT', onSigint)
        if (terminal && input.isTTY && input.setRawMode) input.setRawMode(true)
      }
    },
  })
  opts.onSession?.(session)

  if (interactive && opts.banner) out(opts.banner)
  const history = terminal && opts.historyFile !== undefined ? loadHistory(opts.historyFile, historySize) : []
  const rli = createInterface({
    input,
    ...(interactive ? { output } : {}),
    terminal,
    history,
    historySize,
    prompt: session.prompt(),
    tabSize: 4,
    ...(terminal ? { completer: (line: string) => session.complete(line) } : {}),
  })
  rl = rli
  if (terminal && opts.historyFile !== undefined) {
    const file = opts.historyFile
    rli.on('history', (h: string[]) => saveHistory(file, h))
  }

  return new Promise<number>((resolveExit) => {
    const queue: string[] = []
    let busy = false
    let closed = false
    let quit = false
    let finished = false

    const finish = async (): Promise<void> => {
      if (finished) return
      finished = true
      if (!quit) {
        if (interactive) out('\\q\n') // psql echoes the \q that Ctrl-D stands for
        await session.endOfInput()
      }
      resolveExit(0)
    }

    const pump = async (): Promise<void> => {
      if (busy) return
      busy = true
      try {
        while (queue.length > 0 && !quit) {
          const line = queue.shift()!
          let outcome
          try {
            outcome = await session.feedLine(line)
          } catch (e) {
            // a bug in the REPL itself: report it and carry on, as the session does for SQL errors
            err(formatError(e instanceof Error ? e.message : String(e)))
            outcome = 'continue'
          }
          if (outcome === 'quit') {
            quit = true
            queue.length = 0
            rli.close()
          }
        }
      } finally {
        busy = false
      }
      if (closed) await finish()
      else if (interactive) {
        rli.setPrompt(session.prompt())
        rli.prompt()
      }
    }

    rli.on('line', (line) => {
      queue.push(line)
      void pump()
    })
    rli.on('close', () => {
      closed = true
      if (!busy) void finish()
    })
    rli.on('SIGINT', () => {
      if (session.interrupt()) return // stopped a SUBSCRIBE
      // psql: ^C, a new line, and a fresh prompt with the query buffer cleared
      rli.write('', { ctrl: true, name: 'e' })
      output.write('^C')
      const clear = (rli as Interface & { clearLine?: () => void }).clearLine
      if (typeof clear === 'function') clear.call(rli)
      else output.write('\n')
      rli.setPrompt(session.prompt())
      rli.prompt()
    })

    if (interactive) rli.prompt()
  })
}

/** `rivulet [--data DIR] [-x]` with no -c/-f: the REPL on this process's terminal. */
export async function startRepl(options: { data?: string; expanded?: boolean; version: string; out: (s: string) => void; err: (s: string) => void }): Promise<number> {
  let engine: Engine
  try {
    engine = Engine.open(options.data !== undefined ? { dir: options.data } : {})
  } catch (e) {
    options.err(formatError(e instanceof Error ? e.message : String(e)))
    return 1
  }
  if (engine.recovery !== undefined) options.err(recoveryLine(engine.recovery) + '\n')
  try {
    return await runRepl({
      engine,
      input: process.stdin,
      output: process.stdout,
      out: options.out,
      err: options.err,
      historyFile: historyPath(),
      ...(options.data !== undefined ? { dataDir: options.data } : {}),
      ...(options.expanded !== undefined ? { expanded: options.expanded } : {}),
      banner: `rivulet (${options.version})\nType "\\?" for help.\n\n`,
    })
  } finally {
    engine.close()
  }
}
