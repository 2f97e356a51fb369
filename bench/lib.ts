// Shared helpers for the benchmarks: seeded PRNG, timing, percentiles, memory, tables.

import os from 'node:os'
import { PerformanceObserver, performance, constants } from 'node:perf_hooks'

/** mulberry32: small, fast, deterministic. */
export class Rng {
  #s: number
  constructor(seed: number) {
    this.#s = seed >>> 0
  }
  next(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
}

/** Monotonic clock in milliseconds (float), on the performance timeline (GC entries use it). */
export function nowMs(): number {
  return performance.now()
}

export interface GcEntry {
  readonly start: number
  readonly duration: number
  readonly major: boolean
}

/** Collects the GC pauses of a phase (entries arrive asynchronously: `await stop()`). */
export function trackGc(): { stop(): Promise<GcEntry[]> } {
  const entries: GcEntry[] = []
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0
      entries.push({ start: e.startTime, duration: e.duration, major: (kind & constants.NODE_PERFORMANCE_GC_MAJOR) !== 0 })
    }
  })
  obs.observe({ entryTypes: ['gc'] })
  return {
    async stop() {
      await new Promise((r) => setTimeout(r, 20))
      obs.disconnect()
      return entries
    },
  }
}

/** GC summary of a phase whose steps ran in [starts[i], ends[i]]. */
export function gcSummary(entries: readonly GcEntry[], starts: readonly number[], ends: readonly number[]): string {
  if (starts.length === 0) return 'no steps'
  const lo = starts[0]!
  const hi = ends[ends.length - 1]!
  const inPhase = entries.filter((e) => e.start >= lo && e.start <= hi)
  const major = inPhase.filter((e) => e.major)
  const pause = inPhase.reduce((a, e) => a + e.duration, 0)
  const majorPause = major.reduce((a, e) => a + e.duration, 0)
  // steps overlapping a GC pause
  let hit = 0
  let j = 0
  const sorted = inPhase.slice().sort((a, b) => a.start - b.start)
  for (let i = 0; i < starts.length; i++) {
    while (j < sorted.length && sorted[j]!.start + sorted[j]!.duration < starts[i]!) j++
    if (j < sorted.length && sorted[j]!.start <= ends[i]!) hit++
  }
  return `${inPhase.length} GCs (${major.length} major) paused ${pause.toFixed(0)} ms (major ${majorPause.toFixed(0)} ms) of ${(hi - lo).toFixed(0)} ms; ${hit}/${starts.length} steps overlap a GC`
}

export interface Stats {
  readonly n: number
  readonly mean: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

export function stats(samples: readonly number[]): Stats {
  const s = samples.slice().sort((a, b) => a - b)
  const n = s.length
  if (n === 0) return { n: 0, mean: NaN, p50: NaN, p99: NaN, max: NaN }
  const q = (p: number): number => s[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]!
  return { n, mean: s.reduce((a, b) => a + b, 0) / n, p50: q(0.5), p99: q(0.99), max: s[n - 1]! }
}

/** Runs the garbage collector (when exposed) a few times so heap numbers settle. */
export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc
  if (!g) return
  for (let i = 0; i < 3; i++) g()
}

export function mb(bytes: number): string {
  return (bytes / 1048576).toFixed(0)
}

/** Formats a duration in ms with a sensible number of digits. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return '-'
  if (x >= 100) return x.toFixed(0)
  if (x >= 10) return x.toFixed(1)
  if (x >= 1) return x.toFixed(2)
  return x.toFixed(3)
}

export function int(x: number): string {
  if (!Number.isFinite(x)) return '-'
  return Math.round(x).toLocaleString('en-US')
}

/** A Markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (r: readonly string[]): string => '| ' + r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join(' | ') + ' |'
  return [line(header), '| ' + w.map((x, i) => (i === 0 ? '-'.repeat(x) : '-'.repeat(x - 1) + ':')).join(' | ') + ' |', ...rows.map(line)].join('\n')
}

export function machine(): string {
  const cpus = os.cpus()
  return `${cpus[0]?.model ?? '?'} x${cpus.length}, ${mb(os.totalmem())} MB RAM, node ${process.version}, ${os.platform()} ${os.release()}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`
}
