// Backslash (meta) commands of the REPL: parsing a `\cmd args` line and the `\?` help text.
// The commands themselves run in session.ts.

export interface MetaCommand {
  /** The command name without the backslash, e.g. `d+`, `dt`, `x`, `?`. */
  readonly name: string
  /** Whitespace-separated arguments; "double quoted" and 'single quoted' words keep their
   *  spaces ("…" keeps its quotes, as psql passes patterns on). */
  readonly args: readonly string[]
}

/** Parses the text after a `\` up to the end of the line. */
export function parseMeta(text: string): MetaCommand {
  const m = /^([A-Za-z]+\+?|[^\sA-Za-z])/.exec(text)
  const name = m ? m[1]! : ''
  const rest = text.slice(name.length)
  const args: string[] = []
  const re = /\s*((?:"(?:[^"]|"")*"|'(?:[^']|'')*'|[^\s"']+)+)/gy
  let a: RegExpExecArray | null
  while ((a = re.exec(rest)) !== null) {
    const word = a[1]!
    // 'single quoted' arguments (file names with spaces) lose their quotes, as in psql
    args.push(/^'.*'$/s.test(word) ? word.slice(1, -1).replace(/''/g, "'") : word)
  }
  return { name, args }
}

/** `\?`: the commands, laid out like psql's help. */
export function helpText(expanded: 'on' | 'off' | 'auto', timing: boolean): string {
  return `General
  \\q                     quit rivulet (also Ctrl-D)
  \\g                     execute the query buffer (or the previous query if it is empty);
                         \\g with no arguments is equivalent to a semicolon

Help
  \\?                     show help on backslash commands

Query Buffer
  \\p                     show the contents of the query buffer
  \\r                     reset (clear) the query buffer

Input/Output
  \\i FILE                execute commands from file
  \\ir FILE               as \\i, but relative to location of current script

Informational
  \\d                     list tables, streams, views and materialized views
  \\d      NAME           describe table, stream, view or materialized view
  \\dt     [PATTERN]      list tables
  \\ds     [PATTERN]      list streams
  \\dv     [PATTERN]      list views
  \\dm     [PATTERN]      list materialized views

Formatting
  \\x [on|off|auto]       toggle expanded output (currently ${expanded})

Operating System
  \\timing [on|off]       toggle timing of commands (currently ${timing ? 'on' : 'off'})

Streaming
  SUBSCRIBE [TO] view | (query) [WITH (SNAPSHOT = false)];
                         print the current rows, then every change as it happens
                         (tick | diff | columns), until Ctrl-C
`
}
