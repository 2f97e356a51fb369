// The README's commands, run verbatim against the built package (dist/: `npm run build` first;
// `npm test` builds before vitest), and the documents' links.
//
// Convention: a fenced block of README.md is run when the line just before it is an HTML
// comment `<!-- test: KIND -->`. Its output is compared with the next block marked
// `<!-- test: output -->` (exactly) or `<!-- test: output excerpt -->` (its lines appear in
// the output, in order, as whole lines). KINDs:
//   install      ```sh   the install/test lines; asserted, not run (npm ci is too slow here):
//                        exactly `npm ci && npx rivulet demo` and `npm test`
//   repl         ```sql  every repl block, in README order, piped into one `rivulet` REPL
//                        (the package's bin, dist/src/cli/cli.js, which `npx rivulet` runs);
//                        stdout and stderr together equal the repl blocks' outputs, concatenated
//   run          ```sh   each line run verbatim by `sh -c` in the repository (`npx rivulet …`
//                        resolves to the package's own bin); exit code 0
//   run excerpt  ```sh   the same, compared with an `output excerpt` block
//   psql         ```sh   `npx rivulet serve &` is replaced by `rivulet serve --port 0` started
//                        by the test; each `psql` line runs verbatim with the real psql, its
//                        `-p 6875` replaced by the server's port
//   node         ```js   written to a temporary .mjs file inside the repository, so
//                        `import … from 'rivulet'` resolves through the package's `exports`
//                        (Node's self-reference by package name), and run with node
// Every ```sh, ```sql and ```js block of the README must carry a marker, so none goes untested.
//
// Also: README.md is at most 300 lines; every relative link (and #anchor) in README.md,
// docs/*.md and bench/RESULTS.md resolves; none of them cites a document outside the
// repository; every scalar function the planner declares is listed in docs/sql.md.

import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const cli = path.join(root, 'dist/src/cli/cli.js')
const readme = readFileSync(path.join(root, 'README.md'), 'utf8')

interface Block {
  readonly marker: string | undefined
  readonly info: string
  readonly body: string
  readonly line: number
}

/** The fenced blocks of a Markdown text, each with the `<!-- test: … -->` marker before it. */
function blocks(md: string): Block[] {
  const lines = md.split('\n')
  const out: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const start = i
    const body: string[] = []
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!)
    const m = start > 0 ? /^<!-- test: (.+?) -->$/.exec(lines[start - 1]!) : null
    out.push({ marker: m?.[1], info: open[1]!, body: body.map((l) => l + '\n').join(''), line: start + 1 })
  }
  return out
}

const all = blocks(readme)

/** The output block after block `b` (the next marked block, which must be an output). */
function outputOf(b: Block): { text: string; excerpt: boolean } {
  const next = all[all.indexOf(b) + 1]
  if (!next || !next.marker?.startsWith('output')) throw new Error(`README.md:${b.line}: no output block follows`)
  return { text: next.body, excerpt: next.marker === 'output excerpt' }
}

function expectOutput(actual: string, expected: { text: string; excerpt: boolean }, where: string): void {
  if (!expected.excerpt) {
    expect(actual, where).toBe(expected.text)
    return
  }
  const got = actual.split('\n')
  let at = 0
  for (const want of expected.text.split('\n').filter((l) => l !== '')) {
    const found = got.indexOf(want, at)
    expect(found, `${where}: line ${JSON.stringify(want)} (in order) in:\n${actual}`).toBeGreaterThanOrEqual(0)
    at = found + 1
  }
}

function sh(command: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    // stderr into the same pipe, so notices and errors stay in order with the results; npx
    // offline, so it finds the package's own bin without asking the registry (a loaded
    // machine makes npx itself take seconds: the timeout is generous)
    execFile('sh', ['-c', `${command} 2>&1`], { cwd: root, env: { ...process.env, npm_config_offline: 'true', ...env }, timeout: 240_000, maxBuffer: 64 << 20 }, (err, stdout) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0
      resolve({ code, out: stdout })
    })
  })
}

function byMarker(marker: string): Block[] {
  return all.filter((b) => b.marker === marker)
}

describe('README.md', () => {
  it('is at most 300 lines', () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(300)
  })

  it('marks every sh, sql and js block for this test', () => {
    const unmarked = all.filter((b) => ['sh', 'sql', 'js'].includes(b.info) && b.marker === undefined)
    expect(unmarked.map((b) => `README.md:${b.line}`)).toEqual([])
    for (const b of all) if (b.marker !== undefined) expect(['install', 'repl', 'run', 'run excerpt', 'psql', 'node', 'output', 'output excerpt'], `README.md:${b.line}`).toContain(b.marker)
  })

  it('starts with the install and test commands: npm ci (which builds through prepare), the demo, npm test', () => {
    const [install] = byMarker('install')
    expect(install, 'an install block').toBeDefined()
    expect(all[0]).toBe(install)
    const commands = install!.body.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '')
    expect(commands).toEqual(['npm ci && npx rivulet demo', 'npm test'])
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> }
    expect(pkg.scripts.prepare).toBe('npm run build')
    expect(pkg.scripts.test).toMatch(/^npm run build && vitest run/)
    expect(pkg.bin.rivulet).toBe('./dist/src/cli/cli.js')
    expect(existsSync(path.join(root, 'package-lock.json'))).toBe(true)
  })

  it('the tour: the sql blocks piped into the rivulet REPL print the outputs shown', () => {
    const tour = byMarker('repl')
    expect(tour.length).toBeGreaterThan(0)
    const input = tour.map((b) => b.body).join('')
    const expected = tour.map((b) => outputOf(b).text).join('')
    const r = spawnSync('sh', ['-c', `exec "${process.execPath}" "${cli}" 2>&1`], { cwd: root, input, encoding: 'utf8', timeout: 60_000 })
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(expected)
  })

  describe.concurrent('commands', () => {
    for (const b of [...byMarker('run'), ...byMarker('run excerpt')]) {
      for (const command of b.body.split('\n').filter((l) => l.trim() !== '')) {
        it(`runs ${command}`, async () => {
          const r = await sh(command)
          expect(r.code, r.out).toBe(0)
          expectOutput(r.out, outputOf(b), `README.md:${b.line}: ${command}`)
        }, 300_000)
      }
    }

    it('the library example runs with `rivulet` and `rivulet/server` imported by name', async () => {
      const [example] = byMarker('node')
      expect(example).toBeDefined()
      expect(example!.body).toContain("from 'rivulet'")
      expect(example!.body).toContain("from 'rivulet/server'")
      const dir = mkdtempSync(path.join(root, '.readme-test-'))
      try {
        const file = path.join(dir, 'example.mjs')
        writeFileSync(file, example!.body)
        const r = await sh(`"${process.execPath}" "${file}"`)
        expect(r.code, r.out).toBe(0)
        expectOutput(r.out, outputOf(example!), `README.md:${example!.line}`)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
})

describe('README.md: psql against rivulet serve', () => {
  let server: ChildProcess
  let port: number

  beforeAll(async () => {
    server = spawn(process.execPath, [cli, 'serve', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    port = await new Promise<number>((resolve, reject) => {
      let out = ''
      server.stdout!.setEncoding('utf8')
      server.stdout!.on('data', (d: string) => {
        out += d
        const m = /rivulet: listening on 127\.0\.0\.1:(\d+)\n/.exec(out)
        if (m) resolve(Number(m[1]))
      })
      server.on('exit', (code) => reject(new Error(`rivulet serve exited (${code}): ${out}`)))
    })
  })

  afterAll(() => {
    server?.kill('SIGTERM')
  })

  it('runs the README psql commands with the real psql', async () => {
    const [block] = byMarker('psql')
    expect(block).toBeDefined()
    const lines = block!.body.split('\n').filter((l) => l.trim() !== '')
    expect(lines[0]).toMatch(/^npx rivulet serve &\s+# rivulet: listening on 127\.0\.0\.1:6875$/)
    let out = ''
    for (const line of lines.slice(1)) {
      expect(line).toMatch(/^psql -h 127\.0\.0\.1 -p 6875 /)
      const r = await sh(line.replace('-p 6875', `-p ${port}`), { PSQLRC: '/dev/null', PGCONNECT_TIMEOUT: '5' })
      expect(r.code, r.out).toBe(0)
      out += r.out
    }
    expectOutput(out, outputOf(block!), `README.md:${block!.line}`)
  })
})

// ------------------------------------------------------------------------- the documents

const documents = ['README.md', 'bench/RESULTS.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

/** GitHub's anchors of a Markdown file's headings (outside code blocks). */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  let fenced = false
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const h = !fenced && /^#{1,6} (.+)$/.exec(line)
    if (!h) continue
    const base = h[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

/** Markdown links [text](target) outside code blocks and inline code. */
function links(md: string): string[] {
  const out: string[] = []
  let fenced = false
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    if (fenced) continue
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) out.push(m[1]!)
  }
  return out
}

describe('the documents', () => {
  it('link only to files (and headings) that exist', () => {
    const broken: string[] = []
    for (const doc of documents) {
      for (const target of links(readFileSync(path.join(root, doc), 'utf8'))) {
        if (/^[a-z]+:/.test(target)) continue
        const [file, anchor] = target.split('#') as [string, string | undefined]
        const resolved = file === '' ? path.join(root, doc) : path.resolve(path.dirname(path.join(root, doc)), file)
        if (!resolved.startsWith(root) || !existsSync(resolved)) {
          broken.push(`${doc}: ${target}`)
          continue
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })

  it('cite no document outside the repository', () => {
    const outside = ['../shared', 'SPEC.md', 'SPEC §', 'STYLE.md', 'ANCHORS.md', 'NEXMARK.md', 'SLT-DIALECTS', 'DEVELOPERS.md', '/work/']
    const found: string[] = []
    for (const doc of documents) {
      const text = readFileSync(path.join(root, doc), 'utf8')
      for (const s of outside) if (text.includes(s)) found.push(`${doc}: ${s}`)
    }
    expect(found).toEqual([])
  })

  it('docs/sql.md lists every scalar function the planner declares', async () => {
    const { ALL_OVERLOADS } = (await import(pathToFileURL(path.join(root, 'dist/planner/expr/functions.js')).href)) as { ALL_OVERLOADS: readonly { name: string }[] }
    // operators and the binder's internal forms (ARRAY[…], subscripts, array comparisons, ANY/ALL)
    const internal = /^(array|array_(eq|ne|lt|le|gt|ge|subscript|any|all))$/
    const names = [...new Set(ALL_OVERLOADS.map((o) => o.name))].filter((n) => /^[a-z][a-z0-9_]*$/.test(n) && !internal.test(n))
    expect(names.length).toBeGreaterThan(50)
    const sql = readFileSync(path.join(root, 'docs/sql.md'), 'utf8')
    expect(names.filter((n) => !sql.includes(`\`${n}\``))).toEqual([])
  })
})
