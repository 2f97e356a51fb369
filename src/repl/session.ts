// The REPL's core, independent of terminals: it is fed input lines and writes results through
// two callbacks, so tests drive it with plain strings. It keeps psql's query buffer (statements
// end with `;` outside quotes, comments and parentheses; several per line or one over many
// lines), runs backslash commands (meta.ts, describe.ts), prints results, errors and timings
// exactly as `rivulet -c/-f` do (format.ts), and streams SUBSCRIBE until interrupted.
// repl.ts wraps it in node:readline for prompts, history, completion and Ctrl-C.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, resolve } from 'node:path'
import { RivuletError } from '../../grammar/index.js'
import type { Engine } from '../engine/index.js'
import { displayWidth, formatError, formatNotice, formatResult } from './format.js'
import { fitPlanLines } from './plan-lines.js'
import { splitStatements } from '../sql-runtime/split.js'
import type { ColumnInfo, StatementResult } from '../types.js'
import { INITIAL_STATE, promptChar, scan, type LexState } from './buffer.js'
import { ChangePrinter } from './changes.js'
import { complete, type Completion } from './complete.js'
import { ClientCopyError, clientCopy } from './copy.js'
import { describeRelations, listDatabases, listRelations, type MetaOutput } from './describe.js'
import { SHORT_HELP, helpText, parseMeta } from './meta.js'
import { ProgressBar } from './progress.js'
import { sqlHelp } from './sql-help.js'

export interface SessionOptions {
  readonly engine: Engine
  /** Results (stdout). */
  readonly out: (s: string) => void
  /** Errors and diagnostics (stderr). */
  readonly err: (s: string) => void
  /** A person at a terminal: prompts are shown and SUBSCRIBE streams until interrupt();
   *  otherwise (piped input) SUBSCRIBE prints the current rows and returns. */
  readonly interactive: boolean
  /** Output is a terminal: progress bars may be drawn (and are otherwise never). */
  readonly tty?: boolean
  /** Terminal width (for `\x auto` and progress bars); default 80. */
  readonly columns?: () => number
  /** Start in expanded mode (`rivulet -x`). */
  readonly expanded?: boolean
  /** While a SUBSCRIBE runs: call engine.refresh() this often, in ms (default 1000), so views
   *  over NOW() move with time. */
  readonly refreshMs?: number
  /** Told when a SUBSCRIBE starts streaming (true) and stops (false): the terminal loop hands
   *  Ctrl-C to the subscription meanwhile. */
  readonly onStreaming?: (streaming: boolean) => void
  /** Milliseconds clock for \timing and progress (default performance.now). */
  readonly now?: () => number
  /** `\i` progress bar: show it after this long (ms; default 300). */
  readonly progressDelayMs?: number
  /** The engine's data directory (`rivulet --data DIR`), for \conninfo; in memory if unset. */
  readonly dataDir?: string
}

export type Outcome = 'continue' | 'quit'

/** Where lines come from: the terminal / stdin, or a file run by \i (errors then name it). */
interface Source {
  /** The file as named in `\i` (undefined for the top level). */
  readonly file: string | undefined
  /** Directory for `\ir`. */
  readonly dir: string
  /** The unfinished statement text (lines joined with '\n'). */
  buffer: string
  /** The lexical state at the end of `buffer`. */
  state: LexState
  /** Lines read so far (the current line's number). */
  lineNo: number
  /** Statements run from this source (progress). */
  done: number
}

type ExpandedMode = 'on' | 'off' | 'auto'

export class ReplSession {
  readonly #engine: Engine
  readonly #opts: SessionOptions
  readonly #now: () => number
  readonly #top: Source = { file: undefined, dir: process.cwd(), buffer: '', state: INITIAL_STATE, lineNo: 0, done: 0 }
  #expanded: ExpandedMode
  #timing = false
  /** The transaction block failed: statements are refused until ROLLBACK (psql's `!`). */
  #txFailed = false
  /** The previous query (for `\g` on an empty buffer). */
  #lastQuery: string | undefined
  /** Ends the running SUBSCRIBE. */
  #stopStreaming: (() => void) | undefined
  /** The `\i` progress bar (output is printed above it). */
  #bar: ProgressBar | undefined
  /** psql variables (`\set`), interpolated as :name, :'name', :"name". */
  readonly #vars = new Map<string, string>()

  constructor(opts: SessionOptions) {
    this.#engine = opts.engine
    this.#opts = opts
    this.#now = opts.now ?? (() => performance.now())
    this.#expanded = opts.expanded ? 'on' : 'off'
  }

  // ------------------------------------------------------------------------------ state

  /** psql's PROMPT1 / PROMPT2 `%/%R%x%# `: `rivulet=> `, `rivulet-> ` while a statement
   *  continues (`'` `"` `$` inside quotes, `*` in a comment, `(` in parentheses), with `*`
   *  inside a transaction block and `!` in a failed one. */
  prompt(): string {
    const state = this.#top.state
    const continuing = state.content || state.mode !== 'normal'
    const tx = this.#txFailed ? '!' : this.#engine.inTransaction ? '*' : ''
    return `rivulet${continuing ? promptChar(state) : '='}${tx}> `
  }

  /** The unfinished statement (the query buffer). */
  get buffer(): string {
    return this.#top.buffer
  }

  /** A SUBSCRIBE is streaming. */
  get streaming(): boolean {
    return this.#stopStreaming !== undefined
  }

  get expanded(): ExpandedMode {
    return this.#expanded
  }

  get timing(): boolean {
    return this.#timing
  }

  /** Ctrl-C: stops a streaming SUBSCRIBE (returns true), else clears the query buffer. */
  interrupt(): boolean {
    if (this.#stopStreaming) {
      this.#stopStreaming()
      return true
    }
    this.#reset(this.#top)
    return false
  }

  /** Tab completion of `line` (the text before the cursor). */
  complete(line: string): Completion {
    try {
      return complete(line, this.#top.buffer, this.#engine.relations())
    } catch {
      return [[], '']
    }
  }

  // ------------------------------------------------------------------------------ input

  /** Handles one input line. Resolves when everything it started has finished (a SUBSCRIBE:
   *  when interrupted). */
  feedLine(line: string): Promise<Outcome> {
    return this.#line(this.#top, line)
  }

  /** End of input. Piped input runs a last statement left without `;`, as psql does; at a
   *  terminal (Ctrl-D) the unfinished statement is dropped. */
  async endOfInput(): Promise<Outcome> {
    if (this.#opts.interactive) return 'continue'
    return this.#flush(this.#top)
  }

  async #line(src: Source, input: string): Promise<Outcome> {
    src.lineNo++
    if (this.#opts.interactive && src.file === undefined) {
      const assisted = this.#assistance(src, input)
      if (assisted !== undefined) return assisted
    }
    // the line is scanned from where the buffer ends (state kept, so long statements cost
    // linear time); variables are interpolated as it is scanned
    const { backslash, state, terminated, text: line } = scan(input, src.state, this.#vars)
    const sql = backslash >= 0 ? line.slice(0, backslash) : line
    // a blank line inside a statement is part of it (LINE numbers count it); the part of a line
    // before a backslash command is added only if it holds something
    if (sql.trim() !== '' || (src.buffer !== '' && backslash < 0)) src.buffer = src.buffer === '' ? sql : `${src.buffer}\n${sql}`
    src.state = state
    if (terminated && (await this.#runTerminated(src)) === 'quit') return 'quit'
    if (backslash >= 0) return this.#meta(src, line.slice(backslash + 1))
    return 'continue'
  }

  /** psql's (mainloop.c) words for people at a terminal: `help`, `quit` and `exit` alone on a
   *  line (no space before, an optional `;` after). On an empty query buffer `help` prints the
   *  short help and `quit` / `exit` leave; otherwise they only say how, and the line goes into
   *  the buffer as usual (as does a `\q` typed inside a quoted string). */
  #assistance(src: Source, line: string): Outcome | undefined {
    const empty = !src.state.content && src.state.mode === 'normal'
    const word = /^(help|quit|exit)\s*;?\s*$/i.exec(line)?.[1]?.toLowerCase()
    if (word === 'help') {
      if (empty) {
        this.#out(SHORT_HELP)
        return 'continue'
      }
      this.#out('Use \\? for help or press control-C to clear the input buffer.\n')
    } else if (word !== undefined) {
      if (empty) return 'quit'
      this.#out(src.state.mode === 'normal' ? 'Use \\q to quit.\n' : 'Use control-D to quit.\n')
    } else if (line.startsWith('\\q') && !empty && src.state.mode !== 'normal') this.#out('Use control-D to quit.\n')
    return undefined
  }

  /** Runs the buffer's complete statements; keeps the rest. */
  async #runTerminated(src: Source): Promise<Outcome> {
    const stmts = splitStatements(src.buffer)
    let end = 0
    for (const s of stmts) {
      if (!s.terminated) break
      end = s.offset + s.text.length
    }
    const rest = src.buffer.slice(end)
    const state = scan(rest).state
    // (split.ts may hold a statement open past a `;`: a CREATE TRIGGER body)
    const open = stmts.some((s) => !s.terminated)
    if (open || state.content || state.mode !== 'normal') {
      src.buffer = rest.replace(/^\s*\n/, '')
      src.state = open ? { ...state, content: true } : state
    } else this.#reset(src)
    for (const s of stmts) {
      if (!s.terminated) break
      if ((await this.#statement(src, s.text)) === 'quit') return 'quit'
    }
    return 'continue'
  }

  /** Runs what is left in the buffer as the last statement(s) (end of a file, `\g`). */
  async #flush(src: Source): Promise<Outcome> {
    const text = src.buffer
    this.#reset(src)
    for (const s of splitStatements(text)) if ((await this.#statement(src, s.text)) === 'quit') return 'quit'
    return 'continue'
  }

  #reset(src: Source): void {
    src.buffer = ''
    src.state = INITIAL_STATE
  }

  // ------------------------------------------------------------------------------ output

  #out(s: string): void {
    if (this.#bar) this.#bar.print(s, this.#opts.out)
    else this.#opts.out(s)
  }

  #err(s: string): void {
    if (this.#bar) this.#bar.print(s, this.#opts.err)
    else this.#opts.err(s)
  }

  /** psql's `psql:FILE:LINE: ` before diagnostics from a file run by \i. */
  #where(src: Source): string {
    return src.file === undefined ? '' : `rivulet:${src.file}:${src.lineNo}: `
  }

  #format(result: StatementResult): string {
    // EXPLAIN on a terminal: a line too wide for it has its annotations on lines of their own
    const r = this.#opts.tty && result.command === 'EXPLAIN' && result.rows ? { ...result, rows: fitPlanLines(result.rows.map((row) => String(row[0])), this.#opts.columns?.() ?? 80).map((l) => [l]) } : result
    if (this.#expanded === 'auto' && r.columns) {
      const aligned = formatResult(r)
      const width = this.#opts.columns?.() ?? 80
      return aligned.split('\n').some((l) => displayWidth(l) > width) ? formatResult(r, { expanded: true }) : aligned
    }
    return formatResult(r, { expanded: this.#expanded === 'on' })
  }

  // ------------------------------------------------------------------------------ SQL

  async #statement(src: Source, text: string): Promise<Outcome> {
    src.done++
    this.#lastQuery = text
    if (/^subscribe\b/i.test(text)) {
      await this.#subscribe(src, text)
      return 'continue'
    }
    const start = this.#now()
    let results: StatementResult[] | undefined
    let error: unknown
    // long work inside the statement shows its progress on a terminal: a COPY the KiB of its
    // file read, a large view backfill the input rows delivered
    let workBar: ProgressBar | undefined
    const stopProgress = this.#opts.tty && !this.#bar
      ? this.#engine.onProgress((p) => {
          const copy = p.task === 'copy'
          workBar ??= new ProgressBar(this.#opts.out, copy ? Math.ceil(p.total / 1024) : p.total, {
            enabled: true,
            unit: copy ? 'KiB' : 'rows',
            label: copy ? `COPY ${p.relation}` : `backfill ${p.relation}`,
            columns: this.#opts.columns?.() ?? 80,
            now: this.#now,
            ...(this.#opts.progressDelayMs !== undefined ? { delayMs: this.#opts.progressDelayMs } : {}),
          })
          workBar.update(copy ? Math.floor(p.done / 1024) : p.done)
        })
      : undefined
    try {
      results = this.#engine.execute(text)
    } catch (e) {
      error = e
    } finally {
      stopProgress?.()
      workBar?.clear()
    }
    const elapsed = this.#now() - start
    this.#trackTransaction(error !== undefined)
    if (results) {
      for (const r of results) {
        if (r.notice !== undefined) this.#err(formatNotice(r.notice))
        this.#out(this.#format(r))
      }
    } else this.#err(this.#where(src) + renderError(error, text))
    if (this.#timing) this.#out(formatTiming(elapsed))
    return 'continue'
  }

  #trackTransaction(failed: boolean): void {
    if (!this.#engine.inTransaction) this.#txFailed = false
    else if (failed) this.#txFailed = true
  }

  /** SUBSCRIBE: the column header, then one line per change (`tick | diff | columns…`) as it
   *  happens; at a terminal until interrupt() (Ctrl-C), with engine.refresh() every second so
   *  views over NOW() move; with piped input only the current rows. */
  async #subscribe(src: Source, text: string): Promise<void> {
    const printer = new ChangePrinter((s) => this.#out(s))
    let sub: { columns: ColumnInfo[]; stop: () => void }
    try {
      sub = this.#engine.subscribeStatement(text, (batch) => printer.batch(batch))
    } catch (e) {
      // SUBSCRIBE fails before or inside the engine's statement machinery; whether it aborted an
      // open transaction block shows in whether a plain read is still accepted
      let aborted = false
      if (this.#engine.inTransaction) {
        try {
          this.#engine.execute('SELECT 1')
        } catch {
          aborted = true
        }
      }
      this.#trackTransaction(aborted)
      this.#err(this.#where(src) + renderError(e, text))
      return
    }
    printer.header(sub.columns, [])
    if (this.#opts.interactive && src.file === undefined) {
      const refresh = setInterval(() => {
        try {
          this.#engine.refresh()
        } catch {
          // an aborted transaction block: time stands still until ROLLBACK
        }
      }, this.#opts.refreshMs ?? 1000)
      this.#opts.onStreaming?.(true)
      try {
        await new Promise<void>((resolveStop) => (this.#stopStreaming = resolveStop))
      } finally {
        this.#stopStreaming = undefined
        clearInterval(refresh)
        this.#opts.onStreaming?.(false)
      }
      if (this.#opts.tty) this.#out('\n') // after the terminal's ^C
    }
    sub.stop()
    this.#out(printer.footer())
  }

  // ------------------------------------------------------------------------------ meta-commands

  async #meta(src: Source, text: string): Promise<Outcome> {
    const { name, args, rest } = parseMeta(text, this.#vars)
    const base = name.replace(/[S+]+$/, '')
    const show = (r: MetaOutput): void => {
      if (r.out) this.#out(r.out)
      if (r.err) this.#err(this.#where(src) + r.err)
    }
    switch (base) {
      case 'q':
        return 'quit'
      case '?':
        this.#out(helpText(this.#expanded, this.#timing))
        return 'continue'
      case 'x':
        return this.#setExpanded(src, args[0])
      case 'timing':
        return this.#setTiming(src, args[0])
      case 'd':
        show(args[0] === undefined ? listRelations(this.#engine, undefined, undefined) : describeRelations(this.#engine, args[0]))
        return 'continue'
      case 'dt':
      case 'ds':
      case 'dv':
      case 'dm': {
        const kind = ({ dt: 'table', ds: 'stream', dv: 'view', dm: 'materialized view' } as const)[base]
        show(listRelations(this.#engine, [kind], args[0]))
        return 'continue'
      }
      case 'i':
      case 'ir':
        return this.#include(src, args[0], base === 'ir')
      case 'r':
        this.#reset(src)
        if (this.#opts.interactive) this.#out('Query buffer reset (cleared).\n')
        return 'continue'
      case 'p':
        this.#out(src.buffer.trim() !== '' ? `${src.buffer}\n` : 'Query buffer is empty.\n')
        return 'continue'
      case 'g':
        if (src.state.content) return this.#flush(src)
        if (this.#lastQuery !== undefined) return this.#statement(src, this.#lastQuery)
        return 'continue'
      case 'h':
      case 'help':
        this.#out(sqlHelp(rest, this.#opts.columns?.() ?? 80))
        return 'continue'
      case 'copy':
        this.#clientCopy(src, rest)
        return 'continue'
      case 'echo': {
        const noNewline = args[0] === '-n'
        this.#out(`${(noNewline ? args.slice(1) : args).join(' ')}${noNewline ? '' : '\n'}`)
        return 'continue'
      }
      case 'set':
        this.#set(src, args)
        return 'continue'
      case 'unset':
        if (args[0] === undefined) this.#err(`${this.#where(src)}\\unset: missing required argument\n`)
        else this.#vars.delete(args[0])
        return 'continue'
      case 'conninfo':
        this.#out(`You are connected to the embedded rivulet engine (${this.#opts.dataDir === undefined ? 'in memory' : `data directory "${this.#opts.dataDir}"`}).\n`)
        return 'continue'
      case 'l':
        show(listDatabases(this.#engine))
        return 'continue'
      default:
        this.#err(src.file === undefined ? `invalid command \\${name}\nTry \\? for help.\n` : `${this.#where(src)}error: invalid command \\${name}\n`)
        return 'continue'
    }
  }

  /** `\set`: no arguments lists the variables (`name = 'value'`, by name); `\set name [value…]`
   *  sets one to its values joined (empty without). */
  #set(src: Source, args: readonly string[]): void {
    const [name, ...values] = args
    if (name === undefined) {
      const names = [...this.#vars.keys()].sort()
      this.#out(names.map((n) => `${n} = '${this.#vars.get(n)!}'\n`).join(''))
      return
    }
    if (!/^[A-Za-z0-9_\u0080-\uffff]+$/.test(name)) {
      this.#err(`${this.#where(src)}invalid variable name: "${name}"\n`)
      return
    }
    this.#vars.set(name, values.join(''))
  }

  /** `\copy …`: copy.ts runs it; errors of the COPY itself are reported like a statement's. */
  #clientCopy(src: Source, rest: string): void {
    let failed = false
    try {
      const r = clientCopy(this.#engine, rest)
      if ('message' in r) this.#err(this.#where(src) + r.message)
      else {
        for (const x of r.results) {
          if (x.notice !== undefined) this.#err(formatNotice(x.notice))
          this.#out(this.#format(x))
        }
      }
    } catch (e) {
      failed = true
      if (e instanceof ClientCopyError) this.#err(this.#where(src) + renderError(e.error, e.sql))
      else this.#err(this.#where(src) + renderError(e, rest))
    }
    this.#trackTransaction(failed)
  }

  #setExpanded(src: Source, arg: string | undefined): Outcome {
    const v = arg?.toLowerCase()
    if (v === undefined) this.#expanded = this.#expanded === 'on' ? 'off' : 'on'
    else if (v === 'auto') this.#expanded = 'auto'
    else {
      const b = parseBoolean(v)
      if (b === undefined) {
        this.#err(`${this.#where(src)}unrecognized value "${arg}" for "\\x": Boolean expected\n`)
        return 'continue'
      }
      this.#expanded = b ? 'on' : 'off'
    }
    this.#out(this.#expanded === 'auto' ? 'Expanded display is used automatically.\n' : `Expanded display is ${this.#expanded}.\n`)
    return 'continue'
  }

  #setTiming(src: Source, arg: string | undefined): Outcome {
    if (arg === undefined) this.#timing = !this.#timing
    else {
      const b = parseBoolean(arg.toLowerCase())
      if (b === undefined) {
        this.#err(`${this.#where(src)}unrecognized value "${arg}" for "\\timing": Boolean expected\n`)
        return 'continue'
      }
      this.#timing = b
    }
    this.#out(`Timing is ${this.#timing ? 'on' : 'off'}.\n`)
    return 'continue'
  }

  /** `\i FILE` / `\ir FILE`: the file's lines run as if typed (meta-commands included);
   *  errors are reported as `rivulet:FILE:LINE: ERROR: …` and do not stop it. On a terminal a
   *  progress bar counts the statements of a file that takes a while. */
  async #include(src: Source, arg: string | undefined, relative: boolean): Promise<Outcome> {
    if (arg === undefined) {
      this.#err(`${this.#where(src)}\\${relative ? 'ir' : 'i'}: missing required argument\n`)
      return 'continue'
    }
    const expanded = arg === '~' ? homedir() : arg.startsWith('~/') ? homedir() + arg.slice(1) : arg
    const path = relative ? resolve(src.dir, expanded) : resolve(expanded)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      const reason = code === 'ENOENT' ? 'No such file or directory' : code === 'EISDIR' ? 'Is a directory' : code === 'EACCES' ? 'Permission denied' : e instanceof Error ? e.message : String(e)
      this.#err(`${this.#where(src)}${arg}: ${reason}\n`)
      return 'continue'
    }
    const lines = text.split(/\r?\n/)
    if (lines[lines.length - 1] === '') lines.pop()
    const child: Source = { file: arg, dir: dirname(path), buffer: '', state: INITIAL_STATE, lineNo: 0, done: 0 }
    const outer = this.#bar
    let bar: ProgressBar | undefined
    if (!outer && this.#opts.tty) {
      // statements in the file (backslash lines left out), for "done / total"
      const total = splitStatements(lines.filter((l) => !/^\s*\\/.test(l)).join('\n')).length
      const write = this.#opts.out
      bar = new ProgressBar(write, total, {
        enabled: true,
        unit: 'statements',
        label: `\\i ${arg}`,
        columns: this.#opts.columns?.() ?? 80,
        now: this.#now,
        ...(this.#opts.progressDelayMs !== undefined ? { delayMs: this.#opts.progressDelayMs } : {}),
      })
      this.#bar = bar
    }
    try {
      for (const line of lines) {
        if ((await this.#line(child, line)) === 'quit') return 'quit'
        bar?.update(child.done)
      }
      return await this.#flush(child)
    } finally {
      bar?.clear()
      this.#bar = outer
    }
  }
}

function parseBoolean(v: string): boolean | undefined {
  if (['on', 'true', 'yes', '1', 't', 'y'].includes(v)) return true
  if (['off', 'false', 'no', '0', 'f', 'n'].includes(v)) return false
  return undefined
}

/** psql's report of an error: `ERROR:  message`, then for errors at a position in the
 *  statement the `LINE n:` excerpt and a caret under it, then `DETAIL:` when there is one. */
export function renderError(e: unknown, text: string): string {
  const message = e instanceof Error ? e.message : String(e)
  if (!(e instanceof RivuletError)) return formatError(message)
  const offset = e.position !== undefined && e.position.offset >= 0 && e.position.offset <= text.length ? e.position.offset : undefined
  return formatError(message, text, offset, e.detail)
}

/** psql's `\timing` line: `Time: 0.123 ms`, with (mm:ss.sss) etc. from one second on. */
export function formatTiming(ms: number): string {
  if (ms < 1000) return `Time: ${ms.toFixed(3)} ms\n`
  let seconds = ms / 1000
  let minutes = Math.floor(seconds / 60)
  seconds -= 60 * minutes
  const sec = seconds.toFixed(3).padStart(6, '0')
  const two = (n: number): string => String(n).padStart(2, '0')
  if (minutes < 60) return `Time: ${ms.toFixed(3)} ms (${two(minutes)}:${sec})\n`
  let hours = Math.floor(minutes / 60)
  minutes -= 60 * hours
  if (hours < 24) return `Time: ${ms.toFixed(3)} ms (${two(hours)}:${two(minutes)}:${sec})\n`
  const days = Math.floor(hours / 24)
  hours -= 24 * days
  return `Time: ${ms.toFixed(3)} ms (${days} d ${two(hours)}:${two(minutes)}:${sec})\n`
}
