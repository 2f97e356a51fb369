// The statement fuzzer: mutations of valid statements (truncated at token boundaries, tokens
// swapped, repeated, deleted, inserted; numbers replaced by look-alikes such as 19.99.5; huge
// literals, parentheses 10,000 deep, unicode, NUL bytes) go to an Engine holding tables, views
// and a stream, once with the statement cache warmed by a sibling (the same statement with
// other plain numbers) and once cold. Whatever happens:
//   - no internal error: nothing but a RivuletError comes out, and never XX000;
//   - every error has a SQLSTATE, and every syntax error (42601) a position;
//   - nothing the fresh parser refuses is accepted through the cache (warm or cold), and a
//     refused text fails with the parser's own code.
//
// Each statement has a 5 s deadline (57014 past it: asking for endless work is allowed).
// Budget: RIVULET_FUZZ_STATEMENTS statements (default sized for ≤ 30 s on a loaded 2-core
// machine); RIVULET_FUZZ_STATEMENTS=1000000 for a long run. RIVULET_SEED=<n> replays a run.

import { writeFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError, parse } from '../../grammar/index.js'
import { Engine } from '../../src/engine/engine.js'
import { BUILT_IN, SETUP, sltStatements } from './statement-corpus.js'
import { PLAIN_NUMBERS, mutate, mutationArb, replaceNumbers, type Mutation } from './statement-mutate.js'

const SEED = process.env.RIVULET_SEED === undefined ? undefined : Number(process.env.RIVULET_SEED)
const COUNT = Number(process.env.RIVULET_FUZZ_STATEMENTS ?? 0) || 4000
/** A fresh world every so many cases (mutated DROPs and DELETEs wear the old one down). */
const WORLD_LIFETIME = 150
/** RIVULET_FUZZ_TRACE=<file>: each case's text is written there before it runs (to find the
 *  statement that crashed or hung a run). */
const TRACE = process.env.RIVULET_FUZZ_TRACE

/** Every statement runs under a deadline, as a server's statement_timeout would: a mutation
 *  can ask for real work without end (FLUSH of a source of 2^53 events) or for seconds of it
 *  (a series of ten million values), which is no bug. A case runs its statement up to four
 *  times; at 5 s a run of the fuzzer once took 423 s. */
const STATEMENT_MS = 1_000
const limited = () => ({ limits: { deadline: Date.now() + STATEMENT_MS } })

type Outcome = { ok: true } | { ok: false; error: unknown }

function run(f: () => unknown): Outcome {
  try {
    f()
    return { ok: true }
  } catch (error) {
    return { ok: false, error }
  }
}

function world(): Engine {
  const db = new Engine()
  for (const s of SETUP) db.execute(s)
  return db
}

/** What is wrong with an outcome of `text` (undefined when nothing is). */
function problem(text: string, got: Outcome, fresh: Outcome): string | undefined {
  if (got.ok) {
    if (!fresh.ok) return `accepted although the parser refuses it (${(fresh.error as RivuletError).code})`
    return undefined
  }
  const e = got.error
  if (!(e instanceof RivuletError)) return `internal: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`
  if (e.code === 'XX000') return `internal XX000: ${e.message}`
  if (!/^[0-9A-Z]{5}$/.test(e.code)) return `not a SQLSTATE: ${e.code}`
  if (e.code === '42601' && e.position === undefined) return `syntax error without a position: ${e.message}`
  if (e.position !== undefined && (e.position.offset < 0 || e.position.offset > text.length)) return `position ${e.position.offset} outside the text`
  if (!fresh.ok) {
    const f = fresh.error as RivuletError
    if (e.code !== f.code) return `the parser says ${f.code} (${f.message}), the engine ${e.code} (${e.message})`
  }
  return undefined
}

const CORPUS = [...BUILT_IN, ...BUILT_IN, ...sltStatements()]

describe('statement fuzzer', () => {
  it(`${COUNT} mutated statements: no internal errors, nothing invalid accepted, SQLSTATEs and positions`, () => {
    let warm = world()
    let cold = world()
    let cases = 0
    const codes = new Map<string, number>()
    const failures = new Map<string, { text: string; mutations: Mutation[] }>()
    const started = performance.now()
    fc.assert(
      fc.property(
        fc.constantFrom(...CORPUS),
        fc.array(fc.constantFrom(...PLAIN_NUMBERS), { minLength: 1, maxLength: 8 }),
        fc.array(mutationArb(), { minLength: 1, maxLength: 2 }),
        (base, plain, mutations) => {
          if (++cases % WORLD_LIFETIME === 0) {
            warm.close()
            cold.close()
            warm = world()
            cold = world()
          }
          const text = mutations.reduce(mutate, base)
          if (TRACE) writeFileSync(TRACE, JSON.stringify({ base, plain, mutations, text }))
          const fresh = run(() => parse(text))
          // the parser's own refusal must be a clean RivuletError too
          const parseProblem = fresh.ok ? undefined : problem(text, fresh, { ok: true })
          if (parseProblem !== undefined) failures.set(`parse: ${parseProblem}`, { text, mutations })
          run(() => warm.execute(replaceNumbers(base, (i) => plain[i % plain.length]!), limited()))
          run(() => warm.execute(mutations.filter((m) => m.kind !== 'numbers').reduce(mutate, replaceNumbers(base, (i) => plain[i % plain.length]!)), limited()))
          for (const [name, db] of [['warm', warm], ['cold', cold]] as const) {
            const got = run(() => db.execute(text, limited()))
            const code = got.ok ? 'ok' : got.error instanceof RivuletError ? got.error.code : 'thrown'
            codes.set(code, (codes.get(code) ?? 0) + 1)
            const p = problem(text, got, fresh)
            if (p !== undefined && !failures.has(`${name}: ${p}`)) failures.set(`${name}: ${p}`, { text, mutations })
            if (db.inTransaction) run(() => db.execute('ROLLBACK'))
          }
        },
      ),
      { seed: SEED, numRuns: COUNT },
    )
    const seconds = (performance.now() - started) / 1000
    console.log(`statement fuzzer: ${cases} cases (${cases * 4} statements) in ${seconds.toFixed(1)} s, ${Math.round((cases * 4) / seconds)} statements/s; outcomes ${JSON.stringify(Object.fromEntries([...codes].sort((a, b) => b[1] - a[1])))}`)
    const report = [...failures].slice(0, 30).map(([p, { text }]) => `${p}\n    ${JSON.stringify(text.length > 300 ? text.slice(0, 300) + '…' : text)}`)
    expect(report).toEqual([])
  }, Math.max(120_000, COUNT * 40))
})
