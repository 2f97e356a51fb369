// Property: materialized views over jsonb (jsonb_array_elements and jsonb_each in FROM beside
// the table, and as LEFT JOIN LATERAL … ON TRUE; jsonb_agg and jsonb_object_agg with ORDER BY;
// GROUP BY a jsonb value where 1.0 and 1 are one group; a filter on @> and ?) equal a
// recompute of their query after every tick of random inserts, updates and deletes. A group of
// equal jsonb values spelled differently shows one of its spellings (which one is not
// specified, as for numerics and in PostgreSQL), so group keys are compared by their JSON
// value.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || 100

type Change = { kind: 'upsert'; k: number; payload: string | null } | { kind: 'delete'; k: number }

/** JSON texts of elements, with equal values spelled differently (1, 1.0; 2.50, 2.5). */
const elementArb = fc.constantFrom('1', '1.0', '2.50', '2.5', '-0', '"x"', '"y"', 'null', 'true', '{"a": 1}', '{"a": 1.0}', '[1]', '[]')
const payloadArb: fc.Arbitrary<string | null> = fc.option(
  fc
    .record({
      g: fc.constantFrom('1', '1.0', '2', '"g"'),
      items: fc.option(fc.array(elementArb, { maxLength: 4 }), { nil: null, freq: 5 }),
      meta: fc.option(elementArb, { nil: undefined, freq: 3 }),
    })
    .map(({ g, items, meta }) => `{"g": ${g}${items === null ? ', "items": 7' : `, "items": [${items.join(', ')}]`}${meta === undefined ? '' : `, "meta": ${meta}`}}`),
  { nil: null, freq: 8 },
)
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { arbitrary: fc.record({ k: fc.integer({ min: 1, max: 6 }), payload: payloadArb }).map((c): Change => ({ kind: 'upsert', ...c })), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 6 }).map((k): Change => ({ kind: 'delete', k })), weight: 1 },
)

/** Columns holding a group key of equal values possibly spelled differently, by view. */
const GROUP_KEYS: Record<string, number> = { per_element: 0, per_group: 0 }

const normalized = (rows: unknown[][], key: number | undefined): unknown[][] =>
  key === undefined ? rows : rows.map((r) => r.map((v, i) => (i === key && typeof v === 'string' ? JSON.stringify(JSON.parse(v)) : v)))

const VIEWS: Record<string, string> = {
  elements: `SELECT k, e FROM docs, jsonb_array_elements(payload->'items') AS e WHERE jsonb_typeof(payload->'items') = 'array'`,
  per_element: `SELECT e, count(*) AS n, jsonb_agg(k ORDER BY k DESC) AS ks FROM docs, jsonb_array_elements(CASE WHEN jsonb_typeof(payload->'items') = 'array' THEN payload->'items' END) AS e GROUP BY e`,
  per_group: `SELECT payload->'g' AS g, jsonb_agg(payload->'items' ORDER BY k) AS items, jsonb_object_agg(k, payload->'meta' ORDER BY k) AS metas, count(*) AS n FROM docs GROUP BY 1`,
  fields: `SELECT k, key, value FROM docs, jsonb_each(payload) WHERE payload ? 'meta'`,
  padded: `SELECT k, e FROM docs LEFT JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(payload->'items') = 'array' THEN payload->'items' END) AS e ON TRUE`,
  matching: `SELECT k, payload #>> '{items,0}' AS first FROM docs WHERE payload @> '{"items": [1]}'`,
}

const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const sortRows = (rows: unknown[][]): unknown[][] => [...rows].sort((a, b) => cmpText(JSON.stringify(a), JSON.stringify(b)))

describe('views over jsonb = recompute, after every tick', () => {
  it('jsonb_array_elements / jsonb_each in FROM, jsonb_agg, jsonb_object_agg, GROUP BY jsonb, @> and ?', () => {
    fc.assert(
      fc.property(fc.array(fc.array(changeArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 10 }), (ticks) => {
        const db = new Engine()
        try {
          db.execute('CREATE TABLE docs (k INT PRIMARY KEY, payload JSONB)')
          for (const [name, sql] of Object.entries(VIEWS)) db.execute(`CREATE MATERIALIZED VIEW ${name} AS ${sql}`)
          for (const tick of ticks) {
            db.execute('BEGIN')
            for (const c of tick) {
              if (c.kind === 'delete') db.execute(`DELETE FROM docs WHERE k = ${c.k}`)
              else {
                const p = c.payload === null ? 'NULL' : `'${c.payload}'`
                db.execute(`INSERT INTO docs VALUES (${c.k}, ${p}) ON CONFLICT (k) DO UPDATE SET payload = excluded.payload`)
              }
            }
            db.execute('COMMIT')
            for (const [name, sql] of Object.entries(VIEWS)) {
              const view = sortRows(normalized(db.execute(`SELECT * FROM ${name}`)[0]!.rows!, GROUP_KEYS[name]))
              const recompute = sortRows(normalized(db.execute(sql)[0]!.rows!, GROUP_KEYS[name]))
              expect(view, `${name} vs recompute`).toEqual(recompute)
            }
          }
        } finally {
          db.close()
        }
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    )
  })
})
