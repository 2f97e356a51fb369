// TextMemo: a per-call-site cache of a text function's results. A cached call must give
// exactly what the function gives (NULLs, errors, after the cache clears or steps aside),
// and the compiler must use it only where the result depends on the text alone.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ScalarExpr } from '../../planner/index.js'
import { compileFilterProjection, compileProjection, compileScalar } from '../../src/sql-runtime/compile-scalar.js'
import { FUNCTIONS } from '../../src/sql-runtime/functions.js'
import { Engine } from '../../src/index.js'
import { TextMemo } from '../../src/sql-runtime/text-memo.js'

const text = (index: number): ScalarExpr => ({ kind: 'column', index, type: 'text' })
const lit = (value: unknown, type: ScalarExpr['type']): ScalarExpr => ({ kind: 'literal', value, type })
const call = (fn: string, args: ScalarExpr[], type: ScalarExpr['type']): ScalarExpr => ({ kind: 'call', fn, args, type })
const F = FUNCTIONS as unknown as Record<string, (...a: unknown[]) => unknown>

describe('TextMemo', () => {
  it('computes each distinct text once while values repeat', () => {
    let calls = 0
    const m = new TextMemo((s) => (calls++, s.length > 2 ? s.toUpperCase() : null))
    const inputs = ['abc', 'x', 'abc', 'x', 'abc', 'defg']
    expect(inputs.map((s) => m.get(s))).toEqual(['ABC', null, 'ABC', null, 'ABC', 'DEFG'])
    expect(calls).toBe(3) // NULL results are cached too
    expect(m.size).toBe(3)
  })

  it('steps aside twice as long after each generation that did not pay', () => {
    const m = new TextMemo((s) => s.length)
    let i = 0
    const next = () => m.get(`x${i++}`)
    const stepAside = (): number => {
      while (!m.bypassing) next()
      let calls = 0
      while (m.bypassing) {
        next()
        calls++
      }
      return calls
    }
    expect(stepAside()).toBe(1 << 18)
    expect(stepAside()).toBe(1 << 19)
  })

  it('caches nothing for a call that throws: it throws again', () => {
    let calls = 0
    const m = new TextMemo((s) => {
      calls++
      if (s === 'bad') throw new Error('no')
      return s
    })
    expect(() => m.get('bad')).toThrow('no')
    expect(() => m.get('bad')).toThrow('no')
    expect(calls).toBe(2)
    expect(m.get('ok')).toBe('ok')
  })

  it('clears when full, and steps aside while it does not pay', () => {
    let calls = 0
    const m = new TextMemo((s) => (calls++, s + '!'))
    // all distinct: the first generation ends with no hits, so the memo steps aside
    for (let i = 0; i <= 16_384; i++) expect(m.get(`u${i}`)).toBe(`u${i}!`)
    expect(m.bypassing).toBe(true)
    expect(m.size).toBe(1)
    calls = 0
    for (let i = 0; i < 1000; i++) expect(m.get('same')).toBe('same!')
    expect(calls).toBe(1000) // while bypassing, every call computes
    // repeated values: a full generation with hits keeps caching after it clears
    const r = new TextMemo((s) => s.length)
    for (let i = 0; i <= 16_384; i++) {
      r.get(`k${i}`)
      r.get(`k${i}`)
    }
    expect(r.bypassing).toBe(false)
    // long texts: the characters held (keys and text results) bound it, not the entry count
    const long = new TextMemo((s) => s.toUpperCase())
    for (let i = 0; i < 40; i++) {
      const text = String.fromCharCode(97 + (i % 26)).repeat(100_000) + i
      expect(long.get(text)).toBe(text.toUpperCase())
      expect(long.size).toBeLessThanOrEqual(11) // 2^21 characters / 200,000 a text
    }
  })
})

describe('compiled calls through a TextMemo', () => {
  it('are used only for a memoizable function whose other arguments are constants', () => {
    const split = (n: ScalarExpr): ScalarExpr => call('split_part', [text(0), lit('/', 'text'), n], 'text')
    expect(compileScalar(split(lit(2, 'integer'))).toString()).toMatch(/\.get\(/)
    // the field number varies per row: no memo
    expect(compileScalar(split({ kind: 'column', index: 1, type: 'integer' })).toString()).not.toMatch(/\.get\(/)
    // lower() is cheaper than a lookup
    expect(compileScalar(call('lower', [text(0)], 'text')).toString()).not.toMatch(/\.get\(/)
    // a constant first argument is folded, not memoized
    expect(compileScalar(call('split_part', [lit('a/b', 'text'), lit('/', 'text'), lit(2, 'integer')], 'text')).toString()).not.toMatch(/\.get\(/)
  })

  it('give what the functions give, for repeated and distinct texts alike', () => {
    const exprs: [ScalarExpr, (s: string) => unknown][] = [
      [call('split_part', [text(0), lit('/', 'text'), lit(2, 'integer')], 'text'), (s) => F.split_part!(s, '/', 2)],
      [call('replace', [text(0), lit('a', 'text'), lit('$&', 'text')], 'text'), (s) => F.replace!(s, 'a', '$&')],
      [call('substring_regex', [text(0), lit('(?:&|^)id=([^&]*)', 'text')], 'text'), (s) => /(?:&|^)id=([^&]*)/.exec(s)?.[1] ?? null],
      [call('regex_match', [text(0), lit('^a.*b$', 'text')], 'boolean'), (s) => /^a.*b$/s.test(s)],
    ]
    const f = compileProjection(exprs.map((e) => e[0]))
    const alphabet = fc.constantFrom('a', 'b', '/', '&', 'i', 'd', '=', 'x')
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ unit: alphabet, maxLength: 12 }), { nil: null }), { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), (values, repeat) => {
        for (let k = 0; k < repeat; k++) {
          for (const v of values) {
            const row = f([v])
            expect(row).toEqual(exprs.map(([, direct]) => (v === null ? null : direct(v))))
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('share one split among split_part calls of the same text and delimiter', () => {
    const sp = (x: ScalarExpr, d: string, n: number): ScalarExpr => call('split_part', [x, lit(d, 'text'), lit(n, 'integer')], 'text')
    const exprs = [sp(text(0), '/', 1), sp(text(0), '/', 3), sp(text(0), '/', 9), sp(text(0), '//', 2), sp(text(0), '//', 1), sp(text(1), '/', 2), sp(text(0), '/', -1)]
    const f = compileProjection(exprs)
    // the three of (text 0, '/') and the two of (text 0, '//') each read one memo
    const memos = new Set(f.toString().match(/k\d+\.get\(/g))
    expect(memos.size).toBe(4)
    const unit = fc.constantFrom('a', 'b', '/', '//')
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.option(fc.string({ unit, maxLength: 8 }), { nil: null }), fc.string({ unit, maxLength: 6 })), { maxLength: 40 }), (rows) => {
        for (const [a, b] of [...rows, ...rows]) {
          const ofA = (d: string, n: number) => (a === null ? null : F.split_part!(a, d, n))
          expect(f([a, b])).toEqual([ofA('/', 1), ofA('/', 3), ofA('/', 9), ofA('//', 2), ofA('//', 1), F.split_part!(b, '/', 2), ofA('/', -1)])
        }
      }),
      { numRuns: 300 },
    )
  })

  it('raise as the function raises, row after row', () => {
    const f = compileScalar(call('split_part', [text(0), lit('/', 'text'), lit(0, 'integer')], 'text'))
    expect(() => f(['a/b'])).toThrow(/field position must not be zero/)
    expect(() => f(['a/b'])).toThrow(/field position must not be zero/)
    expect(f([null])).toBe(null)
  })
})

describe('a filter and its projection compiled as one', () => {
  it('returns the projected row for TRUE, undefined for FALSE and NULL', () => {
    const gt = call('gt', [{ kind: 'column', index: 0, type: 'integer' }, lit(1, 'integer')], 'boolean')
    const f = compileFilterProjection(gt, [call('int4_mul', [{ kind: 'column', index: 0, type: 'integer' }, lit(10, 'integer')], 'integer')])
    expect(f([2])).toEqual([20])
    expect(f([1])).toBeUndefined()
    expect(f([null])).toBeUndefined()
  })

  it('computes a call of both once, and the projection only for kept rows', () => {
    const div = call('int4_div', [lit(100, 'integer'), { kind: 'column', index: 0, type: 'integer' }], 'integer')
    const nonZero = call('ne', [{ kind: 'column', index: 0, type: 'integer' }, lit(0, 'integer')], 'boolean')
    const pred: ScalarExpr = { kind: 'and', args: [nonZero, call('gt', [div, lit(10, 'integer')], 'boolean')], type: 'boolean' }
    const f = compileFilterProjection(pred, [div])
    expect(f.toString()).toMatch(/m0 = RT\.U/)
    expect(f([5])).toEqual([20])
    expect(f([50])).toBeUndefined()
    // the division by zero in the projection is never reached: the filter drops the row first
    expect(f([0])).toBeUndefined()
  })

  it('Nexmark q21 through SQL: a view equals the query after changes', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE bid (id INT PRIMARY KEY, channel TEXT, url TEXT)')
    const q = `SELECT id, channel, CASE WHEN lower(channel) = 'apple' THEN '0' ELSE substring(url FROM '(?:&|^)channel_id=([^&]*)') END AS channel_id
      FROM bid WHERE substring(url FROM '(?:&|^)channel_id=([^&]*)') IS NOT NULL OR lower(channel) IN ('apple', 'google')`
    db.execute(`CREATE MATERIALIZED VIEW v AS ${q}`)
    db.execute("INSERT INTO bid VALUES (1, 'Apple', 'https://x/a?q=1'), (2, 'c-1', 'https://x/b?q=1&channel_id=7'), (3, 'c-2', 'https://x/c?q=1'), (4, 'Google', 'channel_id=9')")
    db.execute("UPDATE bid SET url = 'q=1&channel_id=8' WHERE id = 3")
    db.execute('DELETE FROM bid WHERE id = 2')
    const rows = db.query('SELECT * FROM v ORDER BY id').rows
    expect(rows).toEqual([
      [1, 'Apple', '0'],
      [3, 'c-2', '8'],
      [4, 'Google', '9'],
    ])
    expect(db.query(`${q} ORDER BY id`).rows).toEqual(rows)
  })
})
