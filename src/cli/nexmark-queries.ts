// The Nexmark queries q0–q22 as SQL files in bench/nexmark/queries/ (one query a file; the
// statements before the final SELECT are its setup), and how to set one up on an engine that
// has the nexmark source's streams.

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Engine } from '../engine/index.js'
import { splitStatements } from '../sql-runtime/split.js'

export interface NexmarkQuery {
  /** q0 … q22 */
  readonly name: string
  /** The file's leading comment, one line. */
  readonly description: string
  /** Statements to run before the query (q13's side table). */
  readonly setup: readonly string[]
  /** The query itself (a SELECT, no trailing `;`). */
  readonly select: string
}

/** bench/nexmark/queries, from src/nexmark (tests) or dist/src/nexmark (the built CLI). */
export function queriesDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url))
  for (const up of ['../..', '../../..']) {
    const dir = path.resolve(here, up, 'bench/nexmark/queries')
    if (fs.existsSync(dir)) return dir
  }
  throw new Error(`bench/nexmark/queries not found above ${here}`)
}

const order = (name: string): number => Number(name.slice(1))

/** All queries, q0 first. */
export function nexmarkQueries(dir = queriesDir()): NexmarkQuery[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^q\d+\.sql$/.test(f))
    .map((f) => parseQueryFile(f.slice(0, -4), fs.readFileSync(path.join(dir, f), 'utf8')))
    .sort((a, b) => order(a.name) - order(b.name))
}

export function parseQueryFile(name: string, text: string): NexmarkQuery {
  const statements = splitStatements(text).map((s) => s.text.replace(/;\s*$/, '').trim())
  const select = statements.pop()
  if (select === undefined) throw new Error(`${name}: no query`)
  const comment = text.split('\n').filter((l) => l.startsWith('--')).map((l) => l.slice(2).trim())
  return { name, description: (comment.join(' ').split(/(?<=\.)\s/)[0] ?? '').replace(/^q\d+\s+/, ''), setup: statements, select }
}

/** The side input of q13: (i, 'i') for i in 0..9999. */
export const SIDE_INPUT_ROWS = 10_000

/** Runs a query's setup on `db` (and fills q13's side table). */
export function setUpQuery(db: Engine, q: NexmarkQuery): void {
  for (const s of q.setup) db.execute(s)
  if (q.setup.some((s) => /\bside_input\b/i.test(s))) {
    const rows: [number, string][] = []
    for (let i = 0; i < SIDE_INPUT_ROWS; i++) rows.push([i, String(i)])
    db.insert('side_input', rows)
  }
}
