// Differential: random array expressions — literals with quotes, spaces and NULLs, ARRAY[…],
// subscripts, ||, comparisons, op ANY / ALL, the array functions, unnest and array_agg — are
// evaluated by rivulet and by a real PostgreSQL 15 started for the test; both give the same
// text (every expression is cast to text), or both fail with the same SQLSTATE.

import fc from 'fast-check'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RivuletError } from '../../grammar/index.js'
import { Engine } from '../../src/engine/engine.js'
import { startPostgres, type TestPostgres } from '../helpers/postgres.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || 2000

let server: TestPostgres
let client: pg.Client
const db = new Engine()

beforeAll(async () => {
  server = await startPostgres()
  client = await server.client()
}, 60_000)

afterAll(async () => {
  await client?.end()
  await server?.stop()
  db.close()
})

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`

// integer and text arrays, as SQL text
const intItem = fc.oneof({ arbitrary: fc.integer({ min: -5, max: 9 }).map(String), weight: 6 }, { arbitrary: fc.constant('NULL'), weight: 1 })
const textItem = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'b', 'B', 'a b', '', 'NULL', 'null', 'q"x', 'back\\slash', '{x}', 'a,b', ' pad ', 'é'), weight: 6 },
  { arbitrary: fc.constant(null), weight: 1 },
)
const intArray: fc.Arbitrary<string> = fc.oneof(
  fc.array(intItem, { maxLength: 4 }).map((xs) => (xs.length === 0 ? "ARRAY[]::int[]" : `ARRAY[${xs.join(', ')}]::int[]`)),
  fc.array(intItem, { maxLength: 4 }).map((xs) => `${quote(`{${xs.join(',')}}`)}::int[]`),
  fc.constant('NULL::int[]'),
)
const textArray: fc.Arbitrary<string> = fc.oneof(
  fc.array(textItem, { maxLength: 4 }).map((xs) => (xs.length === 0 ? "ARRAY[]::text[]" : `ARRAY[${xs.map((x) => (x === null ? 'NULL' : quote(x))).join(', ')}]::text[]`)),
  fc.array(textItem, { maxLength: 4 }).map((xs) => `${quote(`{${xs.map((x) => (x === null ? 'NULL' : `"${x.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`)}::text[]`),
)
const int = fc.oneof(fc.integer({ min: -2, max: 6 }).map(String), fc.constant('NULL::int'))
const text = fc.oneof(textItem.map((x) => (x === null ? 'NULL::text' : quote(x))))
const cmp = fc.constantFrom('=', '<>', '<', '<=', '>', '>=')

/** An expression whose value is cast to text. */
const expr: fc.Arbitrary<string> = fc.oneof(
  intArray,
  textArray,
  fc.tuple(intArray, intArray).map(([a, b]) => `${a} || ${b}`),
  fc.tuple(intArray, int).map(([a, x]) => `${a} || ${x}`),
  fc.tuple(int, intArray).map(([x, a]) => `${x} || ${a}`),
  fc.tuple(textArray, text).map(([a, x]) => `array_append(${a}, ${x})`),
  fc.tuple(intArray, fc.integer({ min: -1, max: 5 })).map(([a, i]) => `(${a})[${i}]`),
  fc.tuple(textArray, fc.integer({ min: 0, max: 4 })).map(([a, i]) => `(${a})[${i}]`),
  fc.tuple(intArray, cmp, intArray).map(([a, op, b]) => `${a} ${op} ${b}`),
  fc.tuple(textArray, cmp, textArray).map(([a, op, b]) => `${a} ${op} ${b}`),
  fc.tuple(int, cmp, fc.constantFrom('ANY', 'ALL', 'SOME'), intArray).map(([x, op, q, a]) => `${x} ${op} ${q} (${a})`),
  fc.tuple(text, fc.constantFrom('=', '<>'), fc.constantFrom('ANY', 'ALL'), textArray).map(([x, op, q, a]) => `${x} ${op} ${q} (${a})`),
  intArray.map((a) => `array_length(${a}, 1)`),
  intArray.map((a) => `cardinality(${a})`),
  fc.tuple(intArray, fc.integer({ min: 0, max: 2 })).map(([a, d]) => `array_upper(${a}, ${d})`),
  fc.tuple(textArray, fc.constantFrom("','", "', '", "''")).map(([a, s]) => `array_to_string(${a}, ${s})`),
  fc.tuple(intArray, fc.constantFrom("'*'", 'NULL')).map(([a, n]) => `array_to_string(${a}, ',', ${n})`),
  fc.tuple(intArray, int).map(([a, x]) => `array_position(${a}, ${x})`),
  fc.tuple(intArray, int).map(([a, x]) => `array_remove(${a}, ${x})`),
  fc.tuple(textArray, textArray).map(([a, b]) => `array_cat(${a}, ${b})`),
  fc.tuple(fc.constantFrom("'a,b,,c'", "''", "'abc'", "'x y'", 'NULL'), fc.constantFrom("','", "''", 'NULL', "' '"), fc.constantFrom('', ", ''", ", 'b'")).map(([s, d, n]) => `string_to_array(${s}, ${d}${n})`),
  intArray.map((a) => `(SELECT count(*) FROM unnest(${a}) AS x)`),
  intArray.map((a) => `(SELECT string_agg(x::text, ',' ORDER BY x) FROM unnest(${a}) AS x)`),
  intArray.map((a) => `(SELECT array_agg(x ORDER BY x DESC NULLS LAST) FROM unnest(${a}) AS x)`),
  intArray.map((a) => `ARRAY(SELECT x * 2 FROM unnest(${a}) AS x WHERE x > 0 ORDER BY 1)`),
)

type Outcome = { ok: true; value: string | null } | { ok: false; code: string }

async function inPostgres(sql: string): Promise<Outcome> {
  try {
    const r = await client.query({ text: sql, rowMode: 'array' })
    return { ok: true, value: (r.rows[0] as unknown[])[0] as string | null }
  } catch (e) {
    return { ok: false, code: (e as { code?: string }).code ?? '?' }
  }
}

function inRivulet(sql: string): Outcome {
  try {
    const r = db.execute(sql)[0]!
    return { ok: true, value: r.rows![0]![0] as string | null }
  } catch (e) {
    if (e instanceof RivuletError) return { ok: false, code: e.code }
    throw e
  }
}

describe('array expressions: rivulet = PostgreSQL 15', () => {
  it('the same text, or the same SQLSTATE', async () => {
    await fc.assert(
      fc.asyncProperty(expr, async (e) => {
        const sql = `SELECT (${e})::text`
        const want = await inPostgres(sql)
        const got = inRivulet(sql)
        expect(got, sql).toEqual(want)
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    )
  }, 120_000)
})
