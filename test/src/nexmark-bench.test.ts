// `rivulet bench nexmark` end to end on a small run: the children run, the table is printed
// and the JSON holds every query measured, the generator first.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { heapFlat, resultsTable, runNexmarkBench, type QueryResultRow } from '../../src/cli/nexmark-bench.js'

describe('rivulet bench nexmark', () => {
  it('runs from the built command as well (its children are found beside it)', () => {
    const cli = fileURLToPath(new URL('../../dist/src/cli/cli.js', import.meta.url))
    const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rivulet-bench-')), 'r.json')
    const r = spawnSync(process.execPath, [cli, 'bench', 'nexmark', '--query', 'q0', '--events', '2000', '--json', json], { encoding: 'utf8', timeout: 60_000 })
    expect(r.status, r.stdout + r.stderr).toBe(0)
    const results = (JSON.parse(fs.readFileSync(json, 'utf8')) as { results: QueryResultRow[] }).results
    expect(results.map((x) => x.error ?? 'ok')).toEqual(['ok', 'ok'])
  })

  it('measures the generator and each query in a child process, as a table and as JSON', async () => {
    const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rivulet-bench-')), 'r.json')
    let out = ''
    const code = await runNexmarkBench({ queries: ['q0', 'q5', 'q13'], events: 20_000, json, out: (s) => (out += s) })
    expect(code).toBe(0)
    const r = JSON.parse(fs.readFileSync(json, 'utf8')) as { events: number; results: QueryResultRow[] }
    expect(r.events).toBe(20_000)
    expect(r.results.map((x) => x.query)).toEqual(['generator', 'q0', 'q5', 'q13'])
    for (const x of r.results) {
      expect(x.error).toBeUndefined()
      expect(x.eventsPerSecond).toBeGreaterThan(0)
      expect(x.peakRssMB).toBeGreaterThan(10)
    }
    // q0 passes every bid through; q13 looks each one up in the 10,000-row side table
    expect(r.results[1]!.sinkInserted).toBe(18_400)
    expect(r.results[3]!.state).toBe(10_000)
    expect(r.results[1]!.heapAfterGcMB.length).toBe(10) // a full GC at every tenth of the run
    // each query's tenths are paired with the generator over the same events
    for (const x of r.results.slice(1)) expect(x.generatorShareMedian).toBeGreaterThan(0)
    expect(out).toMatch(/generator alone: [\d,]+ events\/s/)
    expect(out).toMatch(/ query +\| events\/s +\| ev\/CPU-s/)
    expect(out).toContain(`written: ${json}`)
  }, 120_000)

  it('calls a heap flat only within 10% (or 8 MB) of its second checkpoint', () => {
    const row = (heap: number[]): QueryResultRow => ({ query: 'q', events: 1, seconds: 1, eventsPerSecond: 1, cpuMicrosPerEvent: 1, eventsPerCpuSecond: 1, peakHeapMB: 1, peakRssMB: 1, state: 0, heapAfterGcMB: heap, sinkInserted: 0, sinkRetracted: 0 })
    expect(heapFlat(row([90, 50, 52, 55]))).toBe(true)
    expect(heapFlat(row([40, 200, 210, 218]))).toBe(true)
    expect(heapFlat(row([40, 200, 215, 221]))).toBe(false)
    expect(heapFlat(row([40, 50, 60, 90]))).toBe(false)
    expect(heapFlat(row([40, 50]))).toBeUndefined()
    expect(resultsTable([row([40, 50, 60, 90])], 2)).toMatch(/no \(50 → 90\)/)
  })

  it('shows the median of the paired tenths as "% of gen", else the whole run against the generator', () => {
    const base: QueryResultRow = { query: 'q', events: 1, seconds: 1, eventsPerSecond: 400, cpuMicrosPerEvent: 1, eventsPerCpuSecond: 1, peakHeapMB: 1, peakRssMB: 1, state: 0, heapAfterGcMB: [], sinkInserted: 0, sinkRetracted: 0 }
    expect(resultsTable([{ ...base, generatorEventsPerSecond: 1000, generatorShareMedian: 0.514 }], 2000)).toMatch(/\| 51% +\|/)
    expect(resultsTable([{ ...base, generatorEventsPerSecond: 1000 }], 2000)).toMatch(/\| 40% +\|/)
    expect(resultsTable([base], 2000)).toMatch(/\| 20% +\|/)
  })
})
