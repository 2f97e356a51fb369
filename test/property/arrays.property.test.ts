// Property: materialized views over arrays (array_agg, unnest in FROM beside the table,
// ARRAY(SELECT … FROM unnest(…)), = ANY, GROUP BY an array) equal, after every tick of random
// inserts, updates and deletes, both a recompute of their query and a plain JavaScript model
// of what the query means (written here from the rows, not from the engine).

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
const RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || 120

interface Doc {
  readonly k: number
  readonly g: number
  readonly tags: (string | null)[] | null
  readonly xs: (number | null)[] | null
}

type Change = { kind: 'upsert'; doc: Doc } | { kind: 'delete'; k: number }

const tagArb = fc.oneof({ arbitrary: fc.constantFrom('a', 'b', 'c', 'b c', '', 'NULL', 'q"'), weight: 5 }, { arbitrary: fc.constant(null), weight: 1 })
const docArb: fc.Arbitrary<Doc> = fc.record({
  k: fc.integer({ min: 1, max: 8 }),
  g: fc.integer({ min: 0, max: 2 }),
  tags: fc.option(fc.array(tagArb, { maxLength: 4 }), { nil: null, freq: 6 }),
  xs: fc.option(fc.array(fc.option(fc.integer({ min: -3, max: 5 }), { nil: null, freq: 6 }), { maxLength: 4 }), { nil: null, freq: 6 }),
})
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { arbitrary: docArb.map((doc): Change => ({ kind: 'upsert', doc })), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 8 }).map((k): Change => ({ kind: 'delete', k })), weight: 1 },
)

/** An array as PostgreSQL prints it (what the API returns). */
function text(items: readonly (string | number | null)[]): string {
  const q = (s: string) => (s !== '' && !/[{},"\\\s]/.test(s) && s.toUpperCase() !== 'NULL' ? s : `"${s.replace(/["\\]/g, '\\$&')}"`)
  return `{${items.map((v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : q(v))).join(',')}}`
}

const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** PostgreSQL's array order over integer elements (NULL last, then shorter first). */
function cmpIntArrays(a: readonly (number | null)[], b: readonly (number | null)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!
    const y = b[i]!
    if (x === y) continue
    if (x === null) return 1
    if (y === null) return -1
    return x - y
  }
  return a.length - b.length
}

const VIEWS: Record<string, { sql: string; model: (docs: readonly Doc[]) => unknown[][] }> = {
  by_group: {
    sql: 'SELECT g, array_agg(k ORDER BY k DESC) AS ks, array_agg(tags[1] ORDER BY k) AS firsts FROM docs GROUP BY g',
    model: (docs) =>
      [...new Set(docs.map((d) => d.g))].map((g) => {
        const ds = docs.filter((d) => d.g === g)
        return [g, text(ds.map((d) => d.k).sort((a, b) => b - a)), text([...ds].sort((a, b) => a.k - b.k).map((d) => d.tags?.[0] ?? null))]
      }),
  },
  tag_counts: {
    sql: 'SELECT tag, count(*) AS n FROM docs, unnest(tags) AS tag GROUP BY tag',
    model: (docs) => {
      const n = new Map<string | null, number>()
      for (const d of docs) for (const t of d.tags ?? []) n.set(t, (n.get(t) ?? 0) + 1)
      return [...n].map(([t, c]) => [t, c])
    },
  },
  positive: {
    sql: 'SELECT k, ARRAY(SELECT x FROM unnest(docs.xs) x WHERE x > 0 ORDER BY x) AS pos, cardinality(xs) AS n FROM docs',
    model: (docs) => docs.map((d) => [d.k, text((d.xs ?? []).filter((x): x is number => x !== null && x > 0).sort((a, b) => a - b)), d.xs === null ? null : d.xs.length]),
  },
  has_three: {
    sql: 'SELECT k, 3 = ANY (xs) AS three FROM docs',
    model: (docs) => docs.map((d) => [d.k, d.xs === null ? null : d.xs.includes(3) ? true : d.xs.includes(null) ? null : false]),
  },
  by_xs: {
    sql: 'SELECT xs, count(*) AS n FROM docs GROUP BY xs',
    model: (docs) => {
      const groups: { xs: (number | null)[] | null; n: number }[] = []
      for (const d of docs) {
        const g = groups.find((x) => (x.xs === null ? d.xs === null : d.xs !== null && cmpIntArrays(x.xs, d.xs) === 0))
        if (g) g.n++
        else groups.push({ xs: d.xs, n: 1 })
      }
      return groups.map((g) => [g.xs === null ? null : text(g.xs), g.n])
    },
  },
}

const sortRows = (rows: unknown[][]): unknown[][] => [...rows].sort((a, b) => cmpText(JSON.stringify(a), JSON.stringify(b)))

describe('views over arrays = recompute = a JavaScript model, after every tick', () => {
  it('array_agg, unnest beside a table, ARRAY(SELECT … unnest), = ANY, GROUP BY an array', () => {
    fc.assert(
      fc.property(fc.array(fc.array(changeArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 10 }), (ticks) => {
        const db = new Engine()
        try {
          db.execute('CREATE TABLE docs (k INT PRIMARY KEY, g INT, tags TEXT[], xs INT[])')
          for (const [name, v] of Object.entries(VIEWS)) db.execute(`CREATE MATERIALIZED VIEW ${name} AS ${v.sql}`)
          const model = new Map<number, Doc>()
          for (const tick of ticks) {
            db.execute('BEGIN')
            for (const c of tick) {
              if (c.kind === 'delete') {
                db.execute(`DELETE FROM docs WHERE k = ${c.k}`)
                model.delete(c.k)
              } else {
                const d = c.doc
                const lit = (a: readonly (string | number | null)[] | null) => (a === null ? 'NULL' : `'${text(a).replace(/'/g, "''")}'`)
                db.execute(`INSERT INTO docs VALUES (${d.k}, ${d.g}, ${lit(d.tags)}, ${lit(d.xs)}) ON CONFLICT (k) DO UPDATE SET g = excluded.g, tags = excluded.tags, xs = excluded.xs`)
                model.set(d.k, d)
              }
            }
            db.execute('COMMIT')
            const docs = [...model.values()]
            for (const [name, v] of Object.entries(VIEWS)) {
              const view = sortRows(db.execute(`SELECT * FROM ${name}`)[0]!.rows!)
              const recompute = sortRows(db.execute(v.sql)[0]!.rows!)
              expect(view, `${name} vs recompute`).toEqual(recompute)
              expect(view, `${name} vs the model`).toEqual(sortRows(v.model(docs)))
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
