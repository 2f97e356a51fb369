// `npm run bench -- windows --quick` end to end from the built dist/: LAG/LEAD and the
// 10-minute RANGE frame over a stream, each verified against the ad hoc query on a prefix long
// enough for the watermark to free rows, and the per-group median against sorting.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

describe('npm run bench -- windows --quick', () => {
  it('runs every part, verified, with the window state freed by the watermark', () => {
    const script = fileURLToPath(new URL('../../dist/bench/run.js', import.meta.url))
    const r = spawnSync(process.execPath, ['--expose-gc', script, 'windows', '--quick'], { encoding: 'utf8', timeout: 60_000 })
    expect(r.status, r.stdout + r.stderr).toBe(0)
    const out = r.stdout
    expect(out).not.toMatch(/WRONG|failed/)
    expect(out.match(/^verification: OK/gm)).toHaveLength(3)
    expect(out.match(/sink: OK/g)).toHaveLength(2)
    // both windows are bounded, and the prefix's views have freed rows
    const freed = [...out.matchAll(/bounded: rows are freed once watermark\(ev\) passes.*?([\d,]+) passed by the watermark freed/g)].map((m) => Number(m[1]!.replace(/,/g, '')))
    expect(freed).toHaveLength(2)
    for (const n of freed) expect(n).toBeGreaterThan(0)
    expect(out).toMatch(/\| JS: sort each changed group +\| +20 \|/)
    expect(out).toMatch(/\| ad hoc SELECT \(recompute all groups\) +\| +4 \|/)
  }, 60_000)
})
