// Fails when a layer imports against the direction in DEVELOPERS.md / STYLE §6:
// grammar and ivm import nothing of ours; planner imports grammar (and ivm types);
// src imports all three; sqllogictest imports src/index only. The CLI (src/cli.ts) may load
// the sqllogictest runner: it is the composition root.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const LAYERS = ['grammar', 'planner', 'ivm', 'src', 'sqllogictest', 'bench'] as const
type Layer = (typeof LAYERS)[number]

const ALLOWED: Record<Layer, readonly Layer[]> = {
  grammar: ['grammar'],
  ivm: ['ivm'],
  planner: ['planner', 'grammar', 'ivm'],
  src: ['src', 'planner', 'grammar', 'ivm'],
  sqllogictest: ['sqllogictest', 'src'],
  bench: ['bench', 'src', 'ivm', 'planner', 'grammar'],
}

function files(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

function layerOf(file: string): Layer | undefined {
  const rel = path.relative(root, file).split(path.sep)[0]
  return LAYERS.find((l) => l === rel)
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

describe('architecture', () => {
  for (const layer of LAYERS) {
    it(`${layer} imports only ${ALLOWED[layer].join(', ')}`, () => {
      const bad: string[] = []
      let dirExists = true
      try {
        statSync(path.join(root, layer))
      } catch {
        dirExists = false
      }
      if (!dirExists) return
      for (const f of files(path.join(root, layer))) {
        const text = readFileSync(f, 'utf8')
        for (const m of text.matchAll(IMPORT)) {
          const spec = m[1] ?? m[2]!
          if (!spec.startsWith('.')) continue
          const target = layerOf(path.resolve(path.dirname(f), spec))
          if (!target) continue
          if (ALLOWED[layer].includes(target)) {
            if (layer === 'sqllogictest' && target === 'src' && !/src\/index\.js$/.test(spec)) bad.push(`${path.relative(root, f)} → ${spec} (only src/index.js)`)
            continue
          }
          if (layer === 'src' && target === 'sqllogictest' && path.relative(root, f) === path.join('src', 'cli.ts')) continue
          bad.push(`${path.relative(root, f)} → ${spec}`)
        }
      }
      expect(bad).toEqual([])
    })
  }

  it('the check sees a forbidden import (guards against a scanner that matches nothing)', () => {
    const sample = `import { parse } from '../grammar/index.js'\nexport { x } from "./y.js"\nconst m = await import('../src/cli.js')`
    const specs = [...sample.matchAll(IMPORT)].map((m) => m[1] ?? m[2])
    expect(specs).toEqual(['../grammar/index.js', './y.js', '../src/cli.js'])
  })
})
