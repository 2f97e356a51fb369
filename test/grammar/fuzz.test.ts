// Fuzzing the parser with mutated valid statements (fast-check): whatever the input, parse()
// either returns statements or throws a RivuletError carrying a position inside the input;
// and whenever it returns, printing is a fixpoint that re-parses to the same AST.

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError, parse, printStatement, type ParsedStatement } from '../../grammar/index.js'
import { stripSpans } from './helpers.js'

const fixture = fileURLToPath(new URL('../fixtures/identity.sql', import.meta.url))
const seeds = readFileSync(fixture, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('--'))

const fragments = [
  ' ', '(', ')', ',', ';', "'", '"', '.', '*', '-', '--', '/*', '*/', '::', '$1', 'E\'', '\n',
  'SELECT', 'FROM', 'WHERE', 'NOT', 'NULL', 'IS', 'IN', 'AND', 'OR', 'AS', 'ON', 'JOIN', 'UNION',
  'VALUES', 'WITH', 'CASE', 'WHEN', 'END', 'INTERVAL', 'TABLE', 'ROW', 'OVER', 'FILTER', 'LIMIT',
  'BETWEEN', 'LIKE', 'CAST', '1', '1.5', 'x', 'é', '\u0000',
]

type Mutation =
  | { kind: 'delete'; at: number; len: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'swap'; at: number }
  | { kind: 'dupWord'; at: number }
  | { kind: 'truncate'; at: number }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(...fragments) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.string({ maxLength: 3 }) }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('dupWord' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
)

function apply(sql: string, m: Mutation): string {
  const at = sql.length === 0 ? 0 : m.at % (sql.length + 1)
  switch (m.kind) {
    case 'delete':
      return sql.slice(0, at) + sql.slice(at + m.len)
    case 'insert':
      return sql.slice(0, at) + m.text + sql.slice(at)
    case 'swap':
      return at + 1 < sql.length ? sql.slice(0, at) + sql[at + 1] + sql[at] + sql.slice(at + 2) : sql
    case 'dupWord': {
      const words = sql.split(' ')
      const i = m.at % words.length
      words.splice(i, 0, words[i]!)
      return words.join(' ')
    }
    case 'truncate':
      return sql.slice(0, at)
  }
}

function check(sql: string): void {
  let parsed: ParsedStatement[]
  try {
    parsed = parse(sql)
  } catch (e) {
    if (!(e instanceof RivuletError)) throw new Error(`non-RivuletError for ${JSON.stringify(sql)}: ${String(e)}`)
    if (e.code === '54001') return
    expect(['42601', '42P16']).toContain(e.code)
    expect(e.position, `position for ${JSON.stringify(sql)}`).toBeDefined()
    expect(e.position!.offset).toBeGreaterThanOrEqual(0)
    expect(e.position!.offset).toBeLessThanOrEqual(sql.length)
    expect(e.position!.line).toBeGreaterThanOrEqual(1)
    expect(e.position!.column).toBeGreaterThanOrEqual(1)
    return
  }
  for (const p of parsed) {
    expect(sql.slice(p.offset, p.offset + p.text.length)).toBe(p.text)
    const printed = printStatement(p.statement)
    let again: ParsedStatement[]
    try {
      again = parse(printed)
    } catch (e) {
      throw new Error(`printed form does not parse: ${JSON.stringify(sql)} → ${JSON.stringify(printed)}: ${String(e)}`)
    }
    expect(again.length, printed).toBe(1)
    expect(printStatement(again[0]!.statement), JSON.stringify(sql)).toBe(printed)
    expect(stripSpans(again[0]!.statement), JSON.stringify(sql)).toEqual(stripSpans(p.statement))
  }
}

// RIVULET_FUZZ_RUNS=100000 runs a longer campaign with a random seed.
const longRuns = process.env.RIVULET_FUZZ_RUNS === undefined ? undefined : Number(process.env.RIVULET_FUZZ_RUNS)
const options = (runs: number, seed: number): fc.Parameters<unknown> =>
  longRuns === undefined ? { numRuns: runs, seed } : { numRuns: longRuns }

describe('fuzz', () => {
  it('mutated statements parse or fail with a positioned RivuletError', () => {
    fc.assert(
      fc.property(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 4 }), (seed, ms) => {
        check(ms.reduce(apply, seed))
      }),
      options(3000, 20240601),
    )
  }, 600_000)

  it('random strings never crash the parser', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => check(s)),
      options(1000, 7),
    )
  }, 600_000)
})
