// The REPL loop (src/repl/repl.ts) on in-memory streams: piped input like psql's (no prompts,
// a last statement without `;` runs at the end), and readline's terminal mode (prompts,
// history file, up-arrow recall, tab completion, Ctrl-C, Ctrl-D) without a real terminal.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { historyPath, loadHistory, runRepl } from '../../src/repl/repl.js'
import type { ReplSession } from '../../src/repl/session.js'

const dir = mkdtempSync(join(tmpdir(), 'rivulet-repl-loop-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const strip = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '')
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 15))

function streams() {
  const input = new PassThrough()
  const output = new PassThrough()
  let screen = ''
  output.on('data', (d: Buffer) => (screen += d.toString()))
  return { input, output, screen: () => screen, write: (s: string) => (screen += s) }
}

describe('runRepl', () => {
  it('piped input: results only, no banner or prompts, errors on err, exit 0', async () => {
    const io = streams()
    let err = ''
    const done = runRepl({ engine: Engine.open(), input: io.input, output: io.output, out: io.write, err: (s) => (err += s), banner: 'BANNER\n' })
    io.input.end('CREATE TABLE t (k INT);\nINSERT INTO t VALUES (1);\nSELECT nope FROM t;\n\\x\nSELECT k\nFROM t')
    expect(await done).toBe(0)
    expect(io.screen()).toBe('CREATE TABLE\nINSERT 0 1\nExpanded display is on.\n-[ RECORD 1 ]\nk | 1\n\n')
    expect(err).toBe('ERROR:  column "nope" does not exist\nLINE 1: SELECT nope FROM t;\n               ^\n')
  })

  it('\\q ends the loop at once; the rest of the input is not read', async () => {
    const io = streams()
    const done = runRepl({ engine: Engine.open(), input: io.input, output: io.output, out: io.write, err: io.write })
    io.input.write('SELECT 1 AS a;\n\\q\nSELECT 2 AS b;\n')
    expect(await done).toBe(0)
    expect(io.screen()).toBe(' a \n---\n 1\n(1 row)\n\n')
  })

  it('interactive: quit on an empty buffer ends the loop like \\q; piped, it is SQL', async () => {
    const io = streams()
    const done = runRepl({ engine: Engine.open(), input: io.input, output: io.output, out: io.write, err: io.write, interactive: true, terminal: false })
    io.input.write('SELECT 1 AS a;\nquit\nSELECT 2 AS b;\n')
    expect(await done).toBe(0)
    expect(io.screen()).toContain(' a \n---\n 1\n(1 row)\n\n')
    expect(io.screen()).not.toContain(' b \n')
    const piped = streams()
    const ran = runRepl({ engine: Engine.open(), input: piped.input, output: piped.output, out: piped.write, err: piped.write })
    piped.input.end('quit;\nSELECT 2 AS b;\n')
    expect(await ran).toBe(0)
    expect(piped.screen()).toBe('ERROR:  syntax error at or near "quit"\nLINE 1: quit;\n        ^\n b \n---\n 2\n(1 row)\n\n')
  })

  it('terminal mode: prompts, continuation, history file, up-arrow, tab completion, Ctrl-C, Ctrl-D', async () => {
    const historyFile = join(dir, 'history')
    writeFileSync(historyFile, 'SELECT 40 + 2 AS old;\n')
    const io = streams()
    let session: ReplSession | undefined
    const engine = Engine.open()
    engine.execute('CREATE TABLE orders (id INT)')
    const done = runRepl({
      engine,
      input: io.input,
      output: io.output,
      err: io.write,
      interactive: true,
      terminal: true,
      historyFile,
      banner: 'rivulet (test)\n',
      onSession: (s) => (session = s),
    })
    await tick()
    expect(strip(io.screen())).toBe('rivulet (test)\nrivulet=> ')
    io.input.write('SELECT 1\r')
    await tick()
    expect(strip(io.screen())).toMatch(/rivulet-> $/)
    io.input.write('  AS one;\r')
    await tick()
    expect(strip(io.screen())).toContain(' one \n-----\n   1\n(1 row)\n\n')
    // the history file has both lines, oldest first, after the one loaded
    expect(readFileSync(historyFile, 'utf8')).toBe('SELECT 40 + 2 AS old;\nSELECT 1\n  AS one;\n')
    // up-arrow three times reaches the entry loaded from the file
    io.input.write('\x1b[A\x1b[A\x1b[A\r')
    await tick()
    expect(strip(io.screen())).toContain(' old \n-----\n  42\n(1 row)')
    // tab completion: keyword, then a table name after FROM
    io.input.write('SEL\t')
    await tick()
    io.input.write(' * FROM ord\t')
    await tick()
    io.input.write(';\r')
    await tick()
    expect(strip(io.screen())).toContain('rivulet=> SELECT  * FROM orders ;\n id \n----\n(0 rows)')
    // Ctrl-C drops the line and the query buffer
    io.input.write('SELECT (1,\r')
    await tick()
    expect(session!.prompt()).toBe('rivulet(> ')
    io.input.write('2\x03')
    await tick()
    expect(strip(io.screen())).toMatch(/rivulet\(> 2\^C\nrivulet=> $/)
    expect(session!.buffer).toBe('')
    // Ctrl-D quits, echoing \q as psql does
    io.input.write('\x04')
    expect(await done).toBe(0)
    expect(strip(io.screen()).endsWith('rivulet=> \\q\n')).toBe(true)
  })

  it('SUBSCRIBE in the loop: input waits while it streams; interrupt returns to the prompt', async () => {
    const io = streams()
    let session: ReplSession | undefined
    const done = runRepl({ engine: Engine.open(), input: io.input, output: io.output, err: io.write, interactive: true, terminal: false, onSession: (s) => (session = s) })
    io.input.write("CREATE TABLE t (k INT); INSERT INTO t VALUES (1);\nSUBSCRIBE t;\nSELECT 'after' AS x;\n")
    await tick()
    expect(session!.streaming).toBe(true)
    expect(io.screen()).not.toContain('after')
    session!.interrupt()
    await tick()
    expect(io.screen()).toContain(' tick | diff | k \n------+------+---\n    1 |    1 | 1\n(1 row)\n\n   x   \n-------\n after\n(1 row)\n\nrivulet=> ')
    io.input.end()
    expect(await done).toBe(0)
  })

  it('history path: $RIVULET_HISTORY, else ~/.rivulet_history; loading keeps newest first', () => {
    expect(historyPath({ RIVULET_HISTORY: '/tmp/h' })).toBe('/tmp/h')
    expect(historyPath({})).toMatch(/\.rivulet_history$/)
    const f = join(dir, 'h2')
    writeFileSync(f, 'a\nb\n\nc\n')
    expect(loadHistory(f, 2)).toEqual(['c', 'b'])
    expect(loadHistory(join(dir, 'missing'), 10)).toEqual([])
  })
})
