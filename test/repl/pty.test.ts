// The real `rivulet` binary (dist/src/cli/cli.js; run `npm run build` first) in a pseudo-terminal:
// what a person at the keyboard sees. Also piped stdin through child_process.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pty, { type IPty } from 'node-pty'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const cli = join(root, 'dist/src/cli/cli.js')
const dir = mkdtempSync(join(tmpdir(), 'rivulet-pty-'))
const historyFile = join(dir, 'history')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeAll(() => {
  if (!existsSync(join(root, 'dist/src/repl/repl.js'))) throw new Error('dist/ is not built with the REPL: run `npm run build` first')
})

/** Terminal output without colours, cursor movement and carriage returns. */
const strip = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\x1b[=>]/g, '').replace(/\r/g, '')

class Terminal {
  readonly #p: IPty
  #raw = ''
  #mark = 0
  readonly exited: Promise<number>

  constructor(history = historyFile, opts: { args?: readonly string[]; cols?: number; rows?: number } = {}) {
    this.#p = pty.spawn(process.execPath, [cli, ...(opts.args ?? [])], {
      name: 'xterm',
      cols: opts.cols ?? 120,
      rows: opts.rows ?? 40,
      cwd: root,
      env: { ...process.env, RIVULET_HISTORY: history, TERM: 'xterm' } as Record<string, string>,
    })
    this.#p.onData((d) => (this.#raw += d))
    this.exited = new Promise((resolve) => this.#p.onExit((e) => resolve(e.exitCode)))
  }

  /** Everything written to the terminal, escapes included. */
  get raw(): string {
    return this.#raw
  }

  /** Everything shown so far. */
  get screen(): string {
    return strip(this.#raw)
  }

  /** What was shown since the last type(). */
  get recent(): string {
    return strip(this.#raw.slice(this.#mark))
  }

  type(keys: string): void {
    this.#mark = this.#raw.length
    this.#p.write(keys)
  }

  /** Waits until the output since the last type() matches. */
  async waitFor(pattern: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const seen = this.recent
      if (typeof pattern === 'string' ? seen.includes(pattern) : pattern.test(seen)) return seen
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pattern)}; screen since last input:\n${seen}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  /** Types a line (Enter) and waits for what it should show. */
  async run(line: string, expect: string | RegExp): Promise<string> {
    this.type(`${line}\r`)
    return this.waitFor(expect)
  }

  kill(): void {
    try {
      this.#p.kill()
    } catch {
      // already gone
    }
  }
}

describe('rivulet REPL in a terminal', () => {
  it('a whole session: continuation, errors with carets, \\d, \\x, completion, history, SUBSCRIBE and Ctrl-C, \\q', async () => {
    const t = new Terminal()
    try {
      t.type('')
      await t.waitFor('rivulet=> ')
      expect(t.screen).toMatch(/^rivulet \(\d+\.\d+\.\d+\)\nType "\\\?" for help\.\n\nrivulet=> $/)

      // a statement over three lines: continuation prompts (inside parentheses: `(`), then the result
      await t.run('CREATE TABLE orders', 'rivulet-> ')
      await t.run('  (id INT PRIMARY KEY,', 'rivulet(> ')
      await t.run('   amount INT);', 'CREATE TABLE\nrivulet=> ')
      expect(t.screen).toContain('rivulet=> CREATE TABLE orders\nrivulet->   (id INT PRIMARY KEY,\nrivulet(>    amount INT);\nCREATE TABLE\n')
      await t.run('INSERT INTO orders VALUES (1, 10), (2, 20);', 'INSERT 0 2\nrivulet=> ')

      // an error: LINE and a caret under the offending token; the session continues
      await t.run('SELECT amount', 'rivulet-> ')
      const err = await t.run('  FROM nope;', 'rivulet=> ')
      expect(err).toContain('ERROR:  relation "nope" does not exist\nLINE 2:   FROM nope;\n               ^\nrivulet=> ')

      // \d and \d NAME
      expect(await t.run('\\d', 'rivulet=> ')).toContain(' Schema |  Name  | Type  |  Owner  \n--------+--------+-------+---------\n public | orders | table | rivulet\n(1 row)\n')
      const d = await t.run('\\d orders', 'rivulet=> ')
      expect(d).toContain('Table "public.orders"\n Column |  Type   | Collation | Nullable | Default \n')
      expect(d).toContain(' id     | integer |           | not null | \n amount | integer |           |          | \nIndexes:\n    "orders_pkey" PRIMARY KEY (id)\n')

      // \x
      await t.run('\\x', 'Expanded display is on.\nrivulet=> ')
      expect(await t.run('SELECT * FROM orders WHERE id = 1;', 'rivulet=> ')).toContain('-[ RECORD 1 ]\nid     | 1\namount | 10\n')
      await t.run('\\x', 'Expanded display is off.\nrivulet=> ')

      // tab completion: a keyword, then a table name after FROM
      t.type('SEL\t')
      await t.waitFor('SELECT ')
      t.type('* FROM ord\t')
      await t.waitFor('orders ')
      const completed = await t.run('WHERE id = 2;', 'rivulet=> ')
      expect(completed).toContain(' id | amount \n----+--------\n  2 |     20\n(1 row)')
      expect(t.screen).toContain('rivulet=> SELECT * FROM orders WHERE id = 2;\n')

      // up-arrow recalls the previous line; Enter runs it again
      t.type('\x1b[A')
      await t.waitFor('SELECT * FROM orders WHERE id = 2;')
      expect(await t.run('', 'rivulet=> ')).toContain('  2 |     20\n(1 row)')

      // SUBSCRIBE streams until Ctrl-C, which returns to the prompt; the session goes on
      await t.run('CREATE MATERIALIZED VIEW total AS SELECT sum(amount) AS s FROM orders;', 'CREATE MATERIALIZED VIEW\nrivulet=> ')
      await t.run('SUBSCRIBE total;', ' tick | diff | s  \n------+------+----\n    1 |    1 | 30\n')
      await new Promise((r) => setTimeout(r, 300))
      expect(t.recent).not.toContain('rivulet=> ') // still streaming
      t.type('\x03')
      await t.waitFor(/\(1 row\)\n\nrivulet=> $/)
      expect(await t.run('SELECT 1 AS after;', 'rivulet=> ')).toContain(' after \n-------\n     1\n(1 row)')

      // Ctrl-C at the prompt throws away the unfinished statement
      await t.run('SELECT (1,', 'rivulet(> ')
      t.type('\x03')
      await t.waitFor(/\^C\nrivulet=> $/)
      expect(await t.run('SELECT 2 AS two;', 'rivulet=> ')).toContain(' two \n-----\n   2\n(1 row)')

      t.type('\\q\r')
      expect(await t.exited).toBe(0)
      // every line entered is in the history file, oldest first
      const saved = readFileSync(historyFile, 'utf8').split('\n')
      expect(saved.slice(0, 2)).toEqual(['CREATE TABLE orders', '  (id INT PRIMARY KEY,'])
      expect(saved).toContain('SUBSCRIBE total;')
      expect(saved.slice(-3)).toEqual(['SELECT 2 AS two;', '\\q', ''])
    } finally {
      t.kill()
    }
  })

  it('history is saved to $RIVULET_HISTORY and loaded by the next session; Ctrl-D quits', async () => {
    const file = join(dir, 'history-2')
    const first = new Terminal(file)
    try {
      first.type('')
      await first.waitFor('rivulet=> ')
      await first.run("SELECT 'from before' AS x;", 'rivulet=> ')
      await first.run('SELECT 2 AS two;', 'rivulet=> ')
      first.type('\x04')
      await first.waitFor('\\q\n')
      expect(await first.exited).toBe(0)
    } finally {
      first.kill()
    }
    expect(readFileSync(file, 'utf8')).toBe("SELECT 'from before' AS x;\nSELECT 2 AS two;\n")
    const second = new Terminal(file)
    try {
      second.type('')
      await second.waitFor('rivulet=> ')
      second.type('\x1b[A\x1b[A')
      await second.waitFor("SELECT 'from before' AS x;")
      expect(await second.run('', 'rivulet=> ')).toContain('      x      \n-------------\n from before\n(1 row)')
      second.type('\x04')
      await second.waitFor('\\q\n')
      expect(await second.exited).toBe(0)
    } finally {
      second.kill()
    }
  })

  it('piped stdin: no prompts, results on stdout, errors on stderr, exit 0', () => {
    const r = spawnSync(process.execPath, [cli], {
      cwd: root,
      input: "CREATE TABLE t (k INT, v TEXT);\nINSERT INTO t VALUES (1, 'a');\nSELECT nope FROM t;\nSELECT * FROM t;\n\\d t\nSELECT count(*) AS n FROM t",
      encoding: 'utf8',
      env: { ...process.env, RIVULET_HISTORY: join(dir, 'unused') },
    })
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(
      [
        'CREATE TABLE',
        'INSERT 0 1',
        ' k | v ',
        '---+---',
        ' 1 | a',
        '(1 row)',
        '',
        '                 Table "public.t"',
        ' Column |  Type   | Collation | Nullable | Default ',
        '--------+---------+-----------+----------+---------',
        ' k      | integer |           |          | ',
        ' v      | text    |           |          | ',
        '',
        ' n ',
        '---',
        ' 1',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    )
    expect(r.stderr).toBe('ERROR:  column "nope" does not exist\nLINE 1: SELECT nope FROM t;\n               ^\n')
    expect(existsSync(join(dir, 'unused'))).toBe(false) // no history without a terminal
  })

  it('help, quit and exit typed at the prompt, as psql 15 answers them', async () => {
    const t = new Terminal(join(dir, 'history-words'))
    try {
      t.type('')
      await t.waitFor('rivulet=> ')
      const help = await t.run('help', /to quit\nrivulet=> $/)
      expect(help).toContain('help\nYou are using rivulet, the command-line interface to rivulet.\nType:  \\h for help with SQL commands\n')
      await t.run('SELECT 1 AS one', 'rivulet-> ')
      expect(await t.run('quit', 'rivulet-> ')).toContain('quit\nUse \\q to quit.\nrivulet-> ')
      t.type('\x03')
      await t.waitFor(/\^C\nrivulet=> $/)
      await t.run("SELECT 'open", "rivulet'> ")
      expect(await t.run('exit', "rivulet'> ")).toContain('exit\nUse control-D to quit.\n')
      t.type('\x03')
      await t.waitFor(/\^C\nrivulet=> $/)
      expect(await t.run('\\conninfo', 'rivulet=> ')).toContain('You are connected to the embedded rivulet engine (in memory).\n')
      t.type('exit;\r')
      expect(await t.exited).toBe(0)
    } finally {
      t.kill()
    }
  })

  it('SUBSCRIBE at the terminal: the header comes again, wider, when a wider value arrives', async () => {
    const t = new Terminal(join(dir, 'history-sub'))
    try {
      t.type('')
      await t.waitFor('rivulet=> ')
      // a paced source in the background moves the count while the subscription streams
      await t.run("CREATE SOURCE nx WITH (connector = 'nexmark', events = 20000, batch = 50, pace = 2000);", 'rivulet=> ')
      t.type('SUBSCRIBE (SELECT count(*) AS n FROM bid);\r')
      const seen = await t.waitFor(/ tick \| diff \| +n +\n-+\+-+\+-+\n(.*\n)* tick \| diff \| +n +\n/)
      const headers = seen.match(/^ tick \| diff \| +n +$/gm)!
      expect(headers.length).toBeGreaterThanOrEqual(2)
      expect(headers[1]!.length).toBeGreaterThan(headers[0]!.length)
      // every row below a header is as wide as that header's separator
      let width = 0
      for (const line of seen.split('\n')) {
        if (/^-+\+/.test(line)) width = line.length
        else if (/^ +\d+ \| +-?1 \| +\d+$/.test(line)) expect(line.length).toBe(width - 1 + (line.endsWith(' ') ? 1 : 0))
      }
      t.type('\x03')
      await t.waitFor(/rows?\)\n\nrivulet=> $/)
      t.type('\\q\r')
      expect(await t.exited).toBe(0)
    } finally {
      t.kill()
    }
  })

  it('rivulet demo in an 80×24 terminal: frames redrawn in place, none taller or wider than the screen; it ends by itself', async () => {
    const t = new Terminal(join(dir, 'history-demo'), { args: ['demo', '--events', '8000', '--pace', '1000000000'], cols: 80, rows: 24 })
    try {
      expect(await t.exited).toBe(0)
      const frames = t.raw.split('\x1b[H\x1b[J').slice(1)
      expect(frames.length).toBe(4) // a frame per 2,000 events
      for (const f of frames) {
        const lines = strip(f).replace(/done: .*\n$/, '').split('\n').slice(0, -1)
        expect(lines.length).toBeLessThanOrEqual(23)
        for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80)
      }
      expect(strip(frames[3]!)).toMatch(/^Nexmark: 8,000 of 8,000 events · [\d,]+ events\/s\nauction time 2015-07-1\d [\d:.]+ \(watermark\)\n\nhot_items: /)
      expect(strip(frames[3]!)).toMatch(/\ndone: 8,000 events in [\d.]+ s\n$/)
    } finally {
      t.kill()
    }
  })
})
