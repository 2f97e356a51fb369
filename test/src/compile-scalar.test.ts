// Compiled expressions share a call that occurs more than once: computed at its first
// evaluation in a row, reused after, never across rows, never for volatile functions, and
// never evaluated where the expression as written would not evaluate it.
import { describe, expect, it } from 'vitest'
import type { ScalarExpr } from '../../planner/index.js'
import { compilePredicate, compileProjection, compileScalar } from '../../src/compile-scalar.js'
import { Engine } from '../../src/index.js'

const col = (index: number): ScalarExpr => ({ kind: 'column', index, type: 'integer' })
const lit = (value: unknown, type: ScalarExpr['type'] = 'integer'): ScalarExpr => ({ kind: 'literal', value, type })
const call = (fn: string, args: ScalarExpr[], type: ScalarExpr['type'] = 'integer'): ScalarExpr => ({ kind: 'call', fn, args, type })

describe('shared calls in compiled expressions', () => {
  it('computes a repeated call once per row, and anew for every row', () => {
    const twice = call('int4_mul', [col(0), lit(2)])
    const f = compileProjection([twice, call('int4_add', [twice, lit(1)]), twice])
    expect(f.toString()).toMatch(/m0 = RT\.U/)
    expect(f([3])).toEqual([6, 7, 6])
    expect(f([5])).toEqual([10, 11, 10])
    expect(f([null])).toEqual([null, null, null])
    // a call written once is not memoized
    expect(compileScalar(call('int4_add', [col(0), lit(1)])).toString()).not.toMatch(/m0/)
  })

  it('never shares volatile calls, nor literals JSON would confuse', () => {
    const r = call('random', [], 'double')
    const f = compileProjection([r, r])
    expect(f.toString()).not.toMatch(/m0/)
    const [a, b] = f([]) as number[]
    expect(a).not.toBe(b)
    const nan = call('float8_mul', [{ kind: 'column', index: 0, type: 'double' }, lit(NaN, 'double')], 'double')
    const inf = call('float8_mul', [{ kind: 'column', index: 0, type: 'double' }, lit(Infinity, 'double')], 'double')
    const g = compileProjection([nan, inf])
    expect(g([2])).toEqual([NaN, Infinity])
  })

  it('keeps laziness: a shared call in an untaken branch is not evaluated', () => {
    const div = call('int4_div', [lit(10), col(0)])
    const isZero = call('eq', [col(0), lit(0)], 'boolean')
    const caseExpr = (zero: number): ScalarExpr => ({ kind: 'case', whens: [{ when: isZero, then: lit(zero) }], else: div, type: 'integer' })
    const f = compileScalar(call('int4_add', [caseExpr(0), caseExpr(1)]))
    expect(f([0])).toBe(1)
    expect(f([5])).toBe(4)
    // a shared call that raises, raises where it is first evaluated
    const p = compilePredicate({ kind: 'and', args: [call('gt', [col(0), lit(0)], 'boolean'), call('gt', [div, lit(1)], 'boolean'), call('lt', [div, lit(6)], 'boolean')], type: 'boolean' })
    expect(p([0])).toBe(false)
    expect(p([2])).toBe(true)
    expect(p([9])).toBe(false)
  })

  it('Nexmark q14 through SQL: the converted price and the hour, shared, give the same rows', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE b (price BIGINT, ts TIMESTAMP, extra TEXT)')
    db.execute("INSERT INTO b VALUES (2000000, '2015-07-15 09:00:00', 'ccx'), (10, '2015-07-15 21:00:00', 'c'), (3000000, '2015-07-15 07:00:00', NULL), (60000000, '2015-07-15 02:00:00', 'x')")
    const q = `SELECT 0.908 * price AS p, CASE WHEN EXTRACT(HOUR FROM ts) >= 8 AND EXTRACT(HOUR FROM ts) <= 18 THEN 'dayTime' WHEN EXTRACT(HOUR FROM ts) <= 6 OR EXTRACT(HOUR FROM ts) >= 20 THEN 'nightTime' ELSE 'otherTime' END AS t, length(extra) - length(replace(extra, 'c', '')) AS c FROM b WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000`
    expect(db.query(`${q} ORDER BY p`).rows).toEqual([
      [1816000, 'dayTime', 2],
      [2724000, 'otherTime', null],
    ])
    db.execute(`CREATE MATERIALIZED VIEW v AS ${q}`)
    db.execute("INSERT INTO b VALUES (5000000, '2015-07-15 23:30:00', 'cc')")
    expect(db.query('SELECT * FROM v ORDER BY p').rows).toEqual([
      [1816000, 'dayTime', 2],
      [2724000, 'otherTime', null],
      [4540000, 'nightTime', 2],
    ])
  })
})
