// Identity fixture: every line of test/fixtures/identity.sql is a statement in canonical form;
// print(parse(s)) must give s back, and re-parsing the printed text must give the same AST.

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse, printStatement } from '../../grammar/index.js'
import { stripSpans } from './helpers.js'

const fixture = fileURLToPath(new URL('../fixtures/identity.sql', import.meta.url))
const lines = readFileSync(fixture, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('--'))

describe('identity.sql', () => {
  it('has a good number of cases', () => {
    expect(lines.length).toBeGreaterThan(100)
  })

  it.each(lines)('%s', (line) => {
    const parsed = parse(line)
    const printed = parsed.map((p) => printStatement(p.statement)).join('; ')
    expect(printed).toBe(line)
    const reparsed = parse(printed)
    expect(stripSpans(reparsed.map((p) => p.statement))).toEqual(stripSpans(parsed.map((p) => p.statement)))
  })
})
