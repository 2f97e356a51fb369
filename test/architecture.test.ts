// Fails when an import goes against the directions of the layers and of src/'s rooms.
// Layers: grammar and ivm import nothing of ours; planner imports grammar and ivm; src imports
// all three; sqllogictest imports src/index only; bench imports the engine's layers.
// Rooms of src/: each folder's README.md says, on its "May import:" line, which rooms it may
// import; the test reads that line, so the README and the rule cannot drift apart, and it also
// holds the directions here, so a README cannot loosen them alone. src/types.ts (the public
// types) imports no room; src/index.ts (the package entry) and the other rooms see the engine
// only through src/engine/index.ts.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))

const LAYERS = ['grammar', 'planner', 'ivm', 'src', 'sqllogictest', 'bench'] as const
type Layer = (typeof LAYERS)[number]
const LAYER_IMPORTS: Record<Layer, readonly Layer[]> = {
  grammar: ['grammar'],
  ivm: ['ivm'],
  planner: ['planner', 'grammar', 'ivm'],
  src: ['src', 'planner', 'grammar', 'ivm'],
  sqllogictest: ['sqllogictest', 'src'],
  bench: ['bench', 'src', 'ivm', 'planner', 'grammar'],
}

/** The rooms of src/ and the rooms each may import (besides itself). `types` is src/types.ts,
 *  `entry` is src/index.ts. */
const ROOM_IMPORTS = {
  types: [],
  'sql-runtime': ['types'],
  connectors: ['types', 'sql-runtime'],
  storage: ['types', 'sql-runtime'],
  engine: ['types', 'sql-runtime', 'connectors', 'storage'],
  server: ['types', 'sql-runtime', 'engine'],
  repl: ['types', 'sql-runtime', 'engine'],
  cli: ['types', 'sql-runtime', 'connectors', 'engine', 'server', 'repl', 'storage', 'sqllogictest'],
  entry: ['types', 'sql-runtime', 'engine'],
} as const satisfies Record<string, readonly string[]>
type Room = keyof typeof ROOM_IMPORTS
const FOLDER_ROOMS = Object.keys(ROOM_IMPORTS).filter((r) => r !== 'types' && r !== 'entry') as Room[]

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

function files(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

function exists(p: string): boolean {
  try {
    statSync(p)
    return true
  } catch {
    return false
  }
}

function layerOf(root: string, file: string): Layer | undefined {
  const rel = path.relative(root, file).split(path.sep)[0]
  return LAYERS.find((l) => l === rel)
}

/** The room of a file under src/ (undefined outside src/). */
function roomOf(root: string, file: string): Room | 'unplaced' | undefined {
  const parts = path.relative(path.join(root, 'src'), file).split(path.sep)
  if (parts[0] === '..') return undefined
  if (parts.length === 1) return parts[0] === 'types.ts' ? 'types' : parts[0] === 'index.ts' ? 'entry' : 'unplaced'
  return (FOLDER_ROOMS as string[]).includes(parts[0]!) ? (parts[0] as Room) : 'unplaced'
}

/** Every import in the tree at `root` that breaks a direction, as "file → specifier (why)". */
function violations(root: string): string[] {
  const bad: string[] = []
  for (const layer of LAYERS) {
    if (!exists(path.join(root, layer))) continue
    for (const f of files(path.join(root, layer))) {
      const from = path.relative(root, f)
      const fromRoom = roomOf(root, f)
      if (fromRoom === 'unplaced') bad.push(`${from} (a file of src/ outside every room)`)
      for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2]!
        if (!spec.startsWith('.')) continue
        const target = path.resolve(path.dirname(f), spec)
        const targetLayer = layerOf(root, target)
        if (!targetLayer) continue
        if (!LAYER_IMPORTS[layer].includes(targetLayer)) {
          if (!(fromRoom === 'cli' && targetLayer === 'sqllogictest')) bad.push(`${from} → ${spec} (${layer} may not import ${targetLayer})`)
          continue
        }
        if (layer === 'sqllogictest' && targetLayer === 'src' && path.relative(root, target) !== path.join('src', 'index.js')) bad.push(`${from} → ${spec} (only src/index.js)`)
        if (!fromRoom || targetLayer !== 'src') continue
        const toRoom = roomOf(root, target)
        if (!toRoom || toRoom === 'unplaced' || toRoom === fromRoom) continue
        if (!(ROOM_IMPORTS[fromRoom] as readonly string[]).includes(toRoom)) {
          bad.push(`${from} → ${spec} (${fromRoom} may not import ${toRoom})`)
        } else if (toRoom === 'engine' && path.relative(root, target) !== path.join('src', 'engine', 'index.js')) {
          bad.push(`${from} → ${spec} (the engine is seen through src/engine/index.js only)`)
        }
      }
    }
  }
  return bad
}

describe('architecture', () => {
  it('no import goes against the directions of the layers and rooms', () => {
    expect(violations(repoRoot)).toEqual([])
  })

  it("each room's README says what it owns and the rooms it may import, as held here", () => {
    for (const room of FOLDER_ROOMS) {
      const readme = readFileSync(path.join(repoRoot, 'src', room, 'README.md'), 'utf8')
      expect(readme, room).toMatch(/^Owns: /m)
      const line = /^May import: (.*)$/m.exec(readme)?.[1]
      expect(line, `${room}/README.md has a "May import:" line`).toBeDefined()
      const listed = line!.replace(/\.$/, '').split(/,\s*/).map((s) => s.trim()).filter((s) => s && s !== 'nothing')
      expect(new Set(listed), room).toEqual(new Set(ROOM_IMPORTS[room]))
    }
  })

  it('the scanner reads every form of import (guards against one that matches nothing)', () => {
    const sample = `import { parse } from '../grammar/index.js'\nexport { x } from "./y.js"\nconst m = await import('../src/cli.js')`
    expect([...sample.matchAll(IMPORT)].map((m) => m[1] ?? m[2])).toEqual(['../grammar/index.js', './y.js', '../src/cli.js'])
  })

  it('the check fails on forbidden imports (a test of the test, on a scratch tree)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'rivulet-arch-'))
    try {
      const write = (rel: string, text: string) => {
        mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
        writeFileSync(path.join(root, rel), text)
      }
      write('ivm/index.ts', 'export const a = 1\n')
      write('src/types.ts', 'export type T = number\n')
      write('src/engine/index.ts', "export { Engine } from './engine.js'\n")
      write('src/engine/engine.ts', "import type { T } from '../types.js'\nexport class Engine {}\n")
      write('src/server/index.ts', "import { Engine } from '../engine/index.js'\n")
      expect(violations(root)).toEqual([])

      write('ivm/bad.ts', "import { x } from '../planner/index.js'\n")
      write('src/sql-runtime/values.ts', "import { Engine } from '../engine/index.js'\n")
      write('src/connectors/source.ts', "import { Engine } from '../engine/engine.js'\n")
      write('src/server/deep.ts', "import { Engine } from '../engine/engine.js'\n")
      write('src/loose.ts', 'export const x = 1\n')
      expect(violations(root).sort()).toEqual([
        'ivm/bad.ts → ../planner/index.js (ivm may not import planner)',
        'src/connectors/source.ts → ../engine/engine.js (connectors may not import engine)',
        'src/loose.ts (a file of src/ outside every room)',
        'src/server/deep.ts → ../engine/engine.js (the engine is seen through src/engine/index.js only)',
        'src/sql-runtime/values.ts → ../engine/index.js (sql-runtime may not import engine)',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
