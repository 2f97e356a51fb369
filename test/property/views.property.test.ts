// Property: every materialized view equals the reference evaluation of its query after every
// tick, subscribers integrate to the view, failed / rolled-back ticks change nothing.

import fc from 'fast-check'
import { afterAll, describe, it } from 'vitest'
import { ALL_FEATURES, initialLoadArb, queryArb, schemaArb, tickArb, withView, type Features, type QueryKind } from './gen.js'
import { STATS, runCase, type Case, type ViewDef } from './harness.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : undefined
if (process.env.RIVULET_STATS) afterAll(() => console.log(STATS))
/** Log cases slower than this (RIVULET_SLOW_MS), to keep generated work bounded. */
const SLOW_MS = process.env.RIVULET_SLOW_MS !== undefined ? Number(process.env.RIVULET_SLOW_MS) : undefined
const NUM_RUNS = Number(process.env.RIVULET_PROPERTY_RUNS ?? 0) || undefined

function caseArb(f: Features, maxTicks: number, budget: number): fc.Arbitrary<Case> {
  return schemaArb.chain((schema) =>
    queryArb(schema, f, { budget }).chain((q) =>
      fc.record({
        schema: fc.constant(schema),
        v: fc.constant(q),
        vAt: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 1 }),
        // a view over v (w) and sometimes a view over w (x)
        w: fc.option(
          queryArb(withView(schema, 'v', q.types), { ...f, kinds: f.kinds?.filter((k) => k !== 'setop') }, { first: 'v', budget: 0 }).chain((w) =>
            fc.tuple(fc.constant(w), fc.option(queryArb(withView(withView(schema, 'v', q.types), 'w', w.types), { ...f, kinds: ['spj', 'agg'] }, { first: 'w', budget: 0 }), { nil: undefined, freq: 3 })),
          ),
          { nil: undefined, freq: 4 },
        ),
        wAt: fc.integer({ min: 0, max: 4 }),
        wMat: fc.boolean(),
        initial: initialLoadArb(schema),
        ticks: fc.array(tickArb(schema, { oracle: false, subqueries: f.dmlSubqueries, pkArithmetic: true, runtimeErrors: true }), { minLength: 1, maxLength: maxTicks }),
      }).map(({ schema, v, vAt, w: wx, wAt, wMat, initial, ticks: later }): Case => {
        const [w, x] = wx ?? [undefined, undefined]
        const ticks = [...initial, ...later]
        const views: ViewDef[] = [{ name: 'v', sql: v.sql, types: v.types, createAt: vAt, materialized: true }]
        if (w) views.push({ name: 'w', sql: w.sql, types: w.types, createAt: Math.max(vAt, wAt), materialized: wMat })
        if (x) views.push({ name: 'x', sql: x.sql, types: x.types, createAt: Math.max(vAt, wAt), materialized: true })
        return { schema, views: views.filter((x) => x.createAt <= ticks.length), ticks }
      }),
    ),
  )
}

function check(kinds: readonly QueryKind[] | undefined, numRuns: number, maxTicks = 12, budget = 1) {
  fc.assert(
    fc.property(caseArb({ ...ALL_FEATURES, kinds }, maxTicks, budget), (c) => {
      const t0 = performance.now()
      runCase(c, { reference: true })
      const ms = performance.now() - t0
      if (SLOW_MS !== undefined && ms > SLOW_MS) console.log(`slow case (${Math.round(ms)} ms, ${c.ticks.length} ticks):\n${c.views.map((v) => `  ${v.name}: ${v.sql}`).join('\n')}`)
    }),
    { numRuns: NUM_RUNS ?? numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) },
  )
}

describe('materialized views = reference evaluation, after every tick', () => {
  it('select / project / filter / joins', () => check(['spj'], 370))
  it('aggregates, GROUP BY, HAVING', () => check(['agg'], 370))
  it('set operations', () => check(['setop', 'agg'], 220))
  it('ORDER BY ... LIMIT (top-N)', () => check(['topn', 'agg'], 220))
  it('ROW_NUMBER() OVER (...) <= k', () => check(['rownumber'], 220))
  it('derived tables', () => check(['derived', 'spj', 'agg'], 220))
  it('WITH (CTEs)', () => check(['cte', 'spj', 'agg'], 150))
  it('nested subqueries', () => check(['spj', 'agg'], 220, 8, 2))
  it('long tick sequences', () => check(undefined, 90, 40))
  it('everything mixed', () => check(undefined, 370))
})
