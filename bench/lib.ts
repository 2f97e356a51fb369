// Shared helpers for the benchmarks: seeded PRNG, timing, percentiles, memory, tables.

import os from 'node:os'

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

/** Monotonic clock in milliseconds (float). */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
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
