// Backslash (meta) commands of the REPL: parsing a `\cmd args` line and the `\?` help text.
// The commands themselves run in session.ts.
import { quoteIdentifier, quoteLiteral, type Variables } from './buffer.js'

export interface MetaCommand {
  /** The command name without the backslash, e.g. `d+`, `dt`, `x`, `?`. */
  readonly name: string
  /** The arguments, read as psql reads them (OT_NORMAL): separated by whitespace; 'single
   *  quoted' parts lose their quotes ('' is a quote; \n \t \b \r \f, octal \digits and \xHH
   *  are escapes); "double quoted" parts keep theirs (psql passes patterns on so); outside
   *  quotes `:name`, `:'name'`, `:"name"` are replaced by the variable's value (quoted as a
   *  literal / an identifier). */
  readonly args: readonly string[]
  /** The text after the name as typed (for the whole-line commands \copy and \h). */
  readonly rest: string
}

const VARIABLE_NAME = /^[A-Za-z0-9_\u0080-\uffff]+/

/** Parses the text after a `\` up to the end of the line; `vars` are interpolated. */
export function parseMeta(text: string, vars: Variables = new Map()): MetaCommand {
  const m = /^([A-Za-z]+\+?|[^\sA-Za-z])/.exec(text)
  const name = m ? m[1]! : ''
  const rest = text.slice(name.length)
  const args: string[] = []
  let i = 0
  const n = rest.length
  for (;;) {
    while (i < n && /\s/.test(rest[i]!)) i++
    if (i >= n) break
    let word = ''
    while (i < n && !/\s/.test(rest[i]!)) {
      const c = rest[i]!
      if (c === "'") {
        i++
        while (i < n) {
          const q = rest[i]!
          if (q === "'") {
            if (rest[i + 1] === "'") {
              word += "'"
              i += 2
              continue
            }
            i++
            break
          }
          if (q === '\\' && i + 1 < n) {
            const e = rest.slice(i + 1)
            const octal = /^[0-7]{1,3}/.exec(e)
            const hex = /^x([0-9A-Fa-f]{1,2})/.exec(e)
            if (octal) {
              word += String.fromCharCode(parseInt(octal[0], 8) & 0xff)
              i += 1 + octal[0].length
            } else if (hex) {
              word += String.fromCharCode(parseInt(hex[1]!, 16))
              i += 1 + hex[0].length
            } else {
              const esc = rest[i + 1]!
              word += ({ n: '\n', t: '\t', b: '\b', r: '\r', f: '\f' } as Record<string, string>)[esc] ?? esc
              i += 2
            }
            continue
          }
          word += q
          i++
        }
      } else if (c === '"') {
        const close = /^"(?:[^"]|"")*"?/.exec(rest.slice(i))![0]
        word += close
        i += close.length
      } else if (c === ':' && i + 1 < n) {
        const after = rest.slice(i + 1)
        const quote = after[0] === "'" || after[0] === '"' ? after[0] : ''
        const v = VARIABLE_NAME.exec(quote ? after.slice(1) : after)
        const value = v && (!quote || after[1 + v[0].length] === quote) ? vars.get(v[0]) : undefined
        if (v && value !== undefined) {
          word += quote === "'" ? quoteLiteral(value).trimStart() : quote === '"' ? quoteIdentifier(value) : value
          i += 1 + v[0].length + (quote ? 2 : 0)
        } else {
          word += c
          i++
        }
      } else {
        word += c
        i++
      }
    }
    args.push(word)
  }
  return { name, args, rest }
}

/** `\?`: the commands, laid out like psql's help. */
export function helpText(expanded: 'on' | 'off' | 'auto', timing: boolean): string {
  return `General
  \\q                     quit rivulet (also Ctrl-D, or quit / exit on an empty line)
  \\g                     execute the query buffer (or the previous query if it is empty);
                         \\g with no arguments is equivalent to a semicolon

Help
  \\?                     show help on backslash commands
  \\h [NAME]              help on syntax of SQL commands, * for all commands

Query Buffer
  \\p                     show the contents of the query buffer
  \\r                     reset (clear) the query buffer

Input/Output
  \\copy ...              perform SQL COPY with data stream to the client host:
                         \\copy TABLE [(COLUMNS)] FROM 'FILE' [WITH (OPTIONS)]
                         \\copy {TABLE [(COLUMNS)] | (QUERY)} TO 'FILE' [WITH (OPTIONS)]
  \\echo [-n] [STRING]    write string to standard output (-n for no newline)
  \\i FILE                execute commands from file
  \\ir FILE               as \\i, but relative to location of current script

Informational
  \\d                     list tables, streams, views and materialized views
  \\d      NAME           describe table, stream, view or materialized view
  \\dt     [PATTERN]      list tables
  \\ds     [PATTERN]      list streams
  \\dv     [PATTERN]      list views
  \\dm     [PATTERN]      list materialized views
  \\l                     list databases

Formatting
  \\x [on|off|auto]       toggle expanded output (currently ${expanded})

Connection
  \\conninfo              display information about current connection

Operating System
  \\timing [on|off]       toggle timing of commands (currently ${timing ? 'on' : 'off'})

Variables
  \\set [NAME [VALUE]]    set internal variable, or list all if no parameters
  \\unset NAME            unset (delete) internal variable
                         in SQL, :NAME is replaced by the value, :'NAME' by the value
                         as a string literal and :"NAME" as a quoted identifier

Streaming
  SUBSCRIBE [TO] view | (query) [WITH (SNAPSHOT = false)];
                         print the current rows, then every change as it happens
                         (tick | diff | columns), until Ctrl-C; the header is printed
                         again when wider values arrive
`
}

/** What `help` on an empty query buffer prints (psql's, for rivulet). */
export const SHORT_HELP = `You are using rivulet, the command-line interface to rivulet.
Type:  \\h for help with SQL commands
       \\? for help with rivulet commands
       \\g or terminate with semicolon to execute query
       \\q to quit
`
