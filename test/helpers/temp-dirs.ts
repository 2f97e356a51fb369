// Temporary directories for a test file: `tempDir()` makes one under the OS's temporary
// directory, and every one made is removed after each test.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach } from 'vitest'

export function tempDirs(prefix: string): () => string {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  return () => {
    const d = mkdtempSync(path.join(tmpdir(), `rivulet-${prefix}-`))
    dirs.push(d)
    return d
  }
}
