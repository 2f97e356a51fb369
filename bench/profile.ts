// CPU profiles: record a phase in-process (node:inspector) and summarise a .cpuprofile with
// positions mapped back to the TypeScript sources through dist/**/*.js.map.
//
//   npm run bench -- core --quick --profile /tmp/prof      # profiles of the measured phases
//   npm run bench -- profile /tmp/prof/core-groupby.cpuprofile [--top 25]
//   node --cpu-prof --cpu-prof-dir=/tmp/p script.js && npm run bench -- profile /tmp/p/*.cpuprofile

import fs from 'node:fs'
import { Session } from 'node:inspector'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
  columnNumber: number
}
interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
  positionTicks?: { line: number; ticks: number }[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

let session: Session | undefined

/** Starts the V8 sampling profiler in this process (synchronous for a same-thread session). */
export function startProfile(intervalUs = 200): void {
  session = new Session()
  session.connect()
  session.post('Profiler.enable')
  session.post('Profiler.setSamplingInterval', { interval: intervalUs })
  session.post('Profiler.start')
}

/** Stops the profiler and writes the profile to `file`. */
export function stopProfile(file: string): void {
  if (!session) throw new Error('profiler not started')
  const s = session
  session = undefined
  s.post('Profiler.stop', (err, res) => {
    if (err) throw err
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, JSON.stringify(res.profile))
  })
  s.disconnect()
}

// ---------------------------------------------------------------------------- source maps

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]))

/** Per generated line: sorted [genCol, sourceIndex, srcLine, srcCol] segments. */
type Mappings = number[][][]

function decodeMappings(s: string): Mappings {
  const lines: number[][][] = []
  let src = 0
  let srcLine = 0
  let srcCol = 0
  for (const line of s.split(';')) {
    const segs: number[][] = []
    let genCol = 0
    if (line.length > 0) {
      for (const seg of line.split(',')) {
        const vals: number[] = []
        let value = 0
        let shift = 0
        for (const ch of seg) {
          const d = B64_INDEX.get(ch)!
          value += (d & 31) << shift
          if (d & 32) shift += 5
          else {
            vals.push(value & 1 ? -(value >>> 1) : value >>> 1)
            value = 0
            shift = 0
          }
        }
        genCol += vals[0]!
        if (vals.length >= 4) {
          src += vals[1]!
          srcLine += vals[2]!
          srcCol += vals[3]!
          segs.push([genCol, src, srcLine, srcCol])
        }
      }
    }
    lines.push(segs)
  }
  return lines
}

interface SourceMap {
  sources: string[]
  mappings: Mappings
}

const mapCache = new Map<string, SourceMap | null>()

function loadMap(jsFile: string): SourceMap | null {
  if (mapCache.has(jsFile)) return mapCache.get(jsFile)!
  let m: SourceMap | null = null
  try {
    const raw = JSON.parse(fs.readFileSync(jsFile + '.map', 'utf8')) as { sources: string[]; sourceRoot?: string; mappings: string }
    const dir = path.dirname(jsFile)
    m = { sources: raw.sources.map((s) => path.resolve(dir, raw.sourceRoot ?? '', s)), mappings: decodeMappings(raw.mappings) }
  } catch {
    m = null
  }
  mapCache.set(jsFile, m)
  return m
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

function rel(file: string): string {
  const r = path.relative(root, file)
  if (r.startsWith('node_modules')) return r.replace(/^node_modules\/(\.pnpm\/)?/, '')
  return r.startsWith('..') ? file : r
}

/** `file:line` (1-based) of a generated position, mapped to the TS source when possible. */
function locate(url: string, line0: number, col0: number): string {
  if (!url) return '(native)'
  let file = url
  if (url.startsWith('file://')) file = fileURLToPath(url)
  else if (!url.startsWith('/')) return `${url}:${line0 + 1}`
  const m = file.endsWith('.js') ? loadMap(file) : null
  if (m) {
    const segs = m.mappings[line0]
    if (segs && segs.length > 0) {
      let best = segs[0]!
      for (const s of segs) if (s[0]! <= col0) best = s
      return `${rel(m.sources[best[1]!]!)}:${best[2]! + 1}`
    }
  }
  return `${rel(file)}:${line0 + 1}`
}

// ---------------------------------------------------------------------------- summary

export interface HotSpot {
  readonly pct: number
  readonly ms: number
  readonly what: string
}

export interface ProfileSummary {
  readonly totalMs: number
  readonly self: HotSpot[]
  readonly inclusive: HotSpot[]
  readonly lines: HotSpot[]
}

export function summarize(file: string, top = 25): ProfileSummary {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const selfUs = new Map<number, number>()
  let total = 0
  for (let i = 0; i < p.samples.length; i++) {
    const d = p.timeDeltas[i + 1] ?? p.timeDeltas[i] ?? 0
    total += d
    selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + d)
  }
  const label = (n: ProfileNode): string => {
    const cf = n.callFrame
    const name = cf.functionName || '(anonymous)'
    if (!cf.url) return name
    return `${name} ${locate(cf.url, cf.lineNumber, cf.columnNumber)}`
  }
  const self = new Map<string, number>()
  const incl = new Map<string, number>()
  const lines = new Map<string, number>()
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!
    const l = label(n)
    self.set(l, (self.get(l) ?? 0) + us)
    // hottest lines: spread the node's self time over its position ticks
    const pt = n.positionTicks
    if (pt && pt.length > 0 && n.callFrame.url) {
      const sum = pt.reduce((a, b) => a + b.ticks, 0)
      for (const t of pt) {
        const k = `${locate(n.callFrame.url, t.line - 1, 0)} (${n.callFrame.functionName || 'anonymous'})`
        lines.set(k, (lines.get(k) ?? 0) + (us * t.ticks) / sum)
      }
    }
    const seen = new Set<string>()
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const k = label(byId.get(x)!)
      if (seen.has(k)) continue
      seen.add(k)
      incl.set(k, (incl.get(k) ?? 0) + us)
    }
  }
  const topOf = (m: Map<string, number>, skip?: (k: string) => boolean): HotSpot[] =>
    [...m]
      .filter(([k]) => !skip?.(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([what, us]) => ({ what, ms: us / 1000, pct: (100 * us) / total }))
  const boring = (k: string): boolean => /^\((root|program|idle)\)/.test(k) || k.startsWith('run node:internal') || k.startsWith('evaluate') || k.includes('node:internal/modules')
  return { totalMs: total / 1000, self: topOf(self), inclusive: topOf(incl, boring), lines: topOf(lines) }
}

export function formatSummary(title: string, s: ProfileSummary, top = 15): string {
  const fmt = (h: HotSpot): string => `  ${h.pct.toFixed(1).padStart(5)}%  ${h.what}`
  return [
    `${title}: ${s.totalMs.toFixed(0)} ms sampled`,
    ' self time (function, TS file:line of its start):',
    ...s.self.slice(0, top).map(fmt),
    ' hottest lines (self time):',
    ...s.lines.slice(0, top).map(fmt),
    ' inclusive time:',
    ...s.inclusive.slice(0, top).map(fmt),
  ].join('\n')
}
