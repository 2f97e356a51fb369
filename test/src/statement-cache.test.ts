// The statement cache may only ever return what a full parse of the same text would. The
// differential property: for random statement texts (valid ones with their numbers replaced by
// anything numeric-looking, and mutated ones), parsing through a cache warmed with a sibling
// statement (the same text with other plain numbers) gives exactly what a fresh parse gives —
// the same ASTs, spans and statement texts included, or the same error (code and position).

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError, parse, type ParsedStatement } from '../../grammar/index.js'
import { Engine } from '../../src/engine/engine.js'
import { StatementCache } from '../../src/engine/statement-cache.js'
import { BUILT_IN, sltStatements } from '../fuzz/statement-corpus.js'
import { PLAIN_NUMBERS, mutate, mutationArb, replaceNumbers } from '../fuzz/statement-mutate.js'

const SEED = process.env.RIVULET_SEED === undefined ? undefined : Number(process.env.RIVULET_SEED)
const RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || 3000

type Outcome = { ok: ParsedStatement[] } | { code: string; message: string; offset: number | undefined }

function outcome(f: () => ParsedStatement[]): Outcome {
  try {
    return { ok: f() }
  } catch (e) {
    if (!(e instanceof RivuletError)) throw e
    return { code: e.code, message: e.message, offset: e.position?.offset }
  }
}

const CORPUS = [...BUILT_IN, ...sltStatements()].filter((s) => /\d/.test(s))

describe('statement cache', () => {
  it('the corpus parses', () => {
    for (const s of BUILT_IN) expect(() => parse(s), s).not.toThrow()
  })

  it('refuses what the parser refuses (issue 16)', () => {
    const db = new Engine()
    db.execute('CREATE TABLE p (id int primary key, x numeric not null)')
    db.execute('INSERT INTO p VALUES (2, 10.5)')
    expect(() => db.execute('INSERT INTO p VALUES (3, 19.99.5)')).toThrow(expect.objectContaining({ code: '42601' }))
    expect(db.execute('SELECT count(*) FROM p')[0]!.rows).toEqual([[1]])
    db.execute('SELECT 1')
    expect(() => db.execute('SELECT 1.2.3')).toThrow(expect.objectContaining({ code: '42601' }))
  })

  it('keeps ordinals, typmods and counts as written, substitutes values, moves spans', () => {
    const c = new StatementCache()
    c.parse('SELECT k FROM t ORDER BY 1')
    expect(c.parse('SELECT k FROM t ORDER BY 2').fromTemplate).toBe(false)
    c.parse('SELECT CAST(x AS NUMERIC(10,2)) FROM t WHERE k = 1')
    expect(c.parse('SELECT CAST(x AS NUMERIC(12,2)) FROM t WHERE k = 1').fromTemplate).toBe(false)
    expect(c.parse('SELECT CAST(x AS NUMERIC(12,2)) FROM t WHERE k = 3').fromTemplate).toBe(true)
    const hit = c.parse('SELECT   CAST(x AS NUMERIC(10,2))  FROM t WHERE k = 12345')
    expect(hit.fromTemplate).toBe(true)
    expect(hit.statements).toEqual(parse('SELECT   CAST(x AS NUMERIC(10,2))  FROM t WHERE k = 12345'))
    // a different kind of number (int8-sized, numeric) is another key
    expect(c.parse('SELECT CAST(x AS NUMERIC(10,2)) FROM t WHERE k = 2147483648').fromTemplate).toBe(false)
    expect(c.parse('SELECT CAST(x AS NUMERIC(10,2)) FROM t WHERE k = 1.5').fromTemplate).toBe(false)
  })

  it('texts cut from a copy (a default as relations() lists it) come from the text itself', () => {
    const db = new Engine()
    db.execute('CREATE TABLE a (k INT PRIMARY KEY, v INT DEFAULT 1)')
    db.execute('DROP TABLE a')
    // the old cache sliced this text at the template's spans: DEFAULT "2"
    db.execute('CREATE TABLE a (k INT PRIMARY KEY, v INT DEFAULT 22222)')
    db.execute('INSERT INTO a (k) VALUES (1)')
    expect(db.execute('SELECT v FROM a')[0]!.rows).toEqual([[22222]])
    expect(db.relations().find((r) => r.name === 'a')?.defaults).toEqual({ v: '22222' })
  })

  it('a warm cache answers exactly as a fresh parse (differential)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CORPUS),
        fc.array(fc.constantFrom(...PLAIN_NUMBERS), { minLength: 1, maxLength: 8 }),
        fc.array(mutationArb(), { minLength: 1, maxLength: 2 }),
        (base, plain, mutations) => {
          const sibling = replaceNumbers(base, (i) => plain[i % plain.length]!)
          const text = mutations.reduce(mutate, base)
          const cache = new StatementCache()
          outcome(() => cache.parse(base).statements)
          outcome(() => cache.parse(sibling).statements)
          // a text with the sibling's numbers but the target's mutations: the same key, mostly
          outcome(() => cache.parse(mutations.filter((m) => m.kind !== 'numbers').reduce(mutate, sibling)).statements)
          expect(outcome(() => cache.parse(text).statements)).toEqual(outcome(() => parse(text)))
        },
      ),
      { seed: SEED, numRuns: RUNS },
    )
  })
})
