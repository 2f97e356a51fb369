// Compiled expressions share a call that occurs more than once: computed at its first
// evaluation in a row, reused after, never across rows, never for volatile functions, and
// never evaluated where the expression as written would not evaluate it.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ScalarExpr } from '../../planner/index.js'
import { compileFilterProjection, compilePredicate, compileProjection, compileScalar } from '../../src/sql-runtime/compile-scalar.js'
import { FUNCTIONS } from '../../src/sql-runtime/functions.js'
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
      ['1816000.000', 'dayTime', 2],
      ['2724000.000', 'otherTime', null],
    ])
    db.execute(`CREATE MATERIALIZED VIEW v AS ${q}`)
    db.execute("INSERT INTO b VALUES (5000000, '2015-07-15 23:30:00', 'cc')")
    expect(db.query('SELECT * FROM v ORDER BY p').rows).toEqual([
      ['1816000.000', 'dayTime', 2],
      ['2724000.000', 'otherTime', null],
      ['4540000.000', 'nightTime', 2],
    ])
  })
})

const text = (index: number): ScalarExpr => ({ kind: 'column', index, type: 'text' })
/** A SQL string literal as the binder leaves it: an unknown literal cast to text. */
const sqlText = (value: string | null): ScalarExpr => ({ kind: 'cast', arg: { kind: 'literal', value, type: 'unknown' }, type: 'text' })

describe('length(x) - length(replace(x, p, \'\')) as a count of p', () => {
  const idiom = (x: ScalarExpr, p: ScalarExpr): ScalarExpr =>
    call('int4_sub', [call('length', [x]), call('length', [call('replace', [x, p, sqlText('')], 'text')])])
  const len = FUNCTIONS.length as (s: string) => number
  const replace = FUNCTIONS.replace as (s: string, f: string, t: string) => string

  it('compiles to one call, with the value the idiom has, surrogates and overlaps included', () => {
    const patterns = ['c', 'aa', 'ab', '\u{1F600}', 'a\u{1F600}', '\ud83d', '\ude00c']
    const compiled = patterns.map((p) => compileScalar(idiom(text(0), sqlText(p))))
    // one library call: the replace and both lengths are gone
    for (const f of compiled) expect(f.toString().match(/\bk\d+\(/g)).toHaveLength(1)
    const unit = fc.constantFrom('a', 'b', 'c', '\u{1F600}', '\ud83d', '\ude00', 'é')
    fc.assert(
      fc.property(fc.option(fc.string({ unit, maxLength: 12 }), { nil: null }), (x) => {
        patterns.forEach((p, i) => expect(compiled[i]!([x])).toBe(x === null ? null : len(x) - len(replace(x, p, ''))))
      }),
      { numRuns: 400 },
    )
  })

  it('keeps the idiom for a pattern that is empty, NULL or not constant, or two texts', () => {
    for (const p of [sqlText(''), sqlText(null), text(1)]) {
      const f = compileScalar(idiom(text(0), p))
      expect(f.toString().match(/\bk\d+\(/g)!.length).toBeGreaterThan(1)
    }
    const mixed = compileScalar(call('int4_sub', [call('length', [text(0)]), call('length', [call('replace', [text(1), sqlText('c'), sqlText('')], 'text')])]))
    expect(mixed(['ccc', 'c'])).toBe(3)
    expect(compileScalar(idiom(text(0), sqlText(null)))(['abc'])).toBe(null)
    expect(compileScalar(idiom(text(0), sqlText('')))(['abc'])).toBe(0)
  })
})

describe('AND and OR operands, cheapest first when none can raise', () => {
  const url = text(1)
  const channelId = call('substring_regex', [url, sqlText('(?:&|^)channel_id=([^&]*)')], 'text')
  const costly: ScalarExpr = { kind: 'isNull', arg: channelId, negated: true, type: 'boolean' }
  const cheap: ScalarExpr = { kind: 'inList', arg: call('lower', [text(0)], 'text'), list: [sqlText('apple'), sqlText('google')], negated: false, type: 'boolean' }

  it('tests the cheap operand first, with the result as written', () => {
    for (const kind of ['or', 'and'] as const) {
      const f = compilePredicate({ kind, args: [costly, cheap], type: 'boolean' })
      const src = f.toString()
      // the channel's set lookup comes before the url's memo lookup
      expect(src.indexOf('.has(')).toBeGreaterThan(-1)
      expect(src.indexOf('.has(')).toBeLessThan(src.indexOf('.get('))
      const channels = fc.constantFrom(null, 'Apple', 'google', 'x')
      const urls = fc.constantFrom(null, 'a?q=1', 'a?q=1&channel_id=7', 'channel_id=')
      fc.assert(
        fc.property(channels, urls, (channel, u) => {
          const id = u === null ? null : /(?:&|^)channel_id=([^&]*)/.exec(u)?.[1] ?? null
          const a = u === null ? null : id !== null
          const b = channel === null ? null : ['apple', 'google'].includes(channel.toLowerCase())
          const expected = kind === 'or' ? a === true || b === true || (a !== null && b !== null ? false : null) : a === false || b === false ? false : a === null || b === null ? null : true
          expect(f([channel, u])).toBe(expected === true)
        }),
      )
    }
  })

  it('keeps the written order when an operand can raise', () => {
    const x = col(0)
    const div = call('int4_div', [lit(10), x])
    // x <> 0 AND 10 / x > 1: the division is cheap, but it may raise
    const f = compilePredicate({ kind: 'and', args: [call('ne', [x, lit(0)], 'boolean'), call('gt', [div, lit(1)], 'boolean')], type: 'boolean' })
    expect(f([0])).toBe(false)
    expect(f([5])).toBe(true)
    const g = compilePredicate({ kind: 'or', args: [{ kind: 'isNull', arg: channelId, negated: true, type: 'boolean' }, call('gt', [call('int4_div', [lit(10), col(2)]), lit(1)], 'boolean')], type: 'boolean' })
    expect(g(['c', 'channel_id=1', 0])).toBe(true)
  })

  it('a list of SQL literals is a set lookup, NULLs and casts as SQL has them', () => {
    const inList = (negated: boolean, items: ScalarExpr[]): ScalarExpr => ({ kind: 'inList', arg: text(0), list: items, negated, type: 'boolean' })
    const f = compileScalar(inList(false, [sqlText('a'), sqlText(null)]))
    expect(f.toString()).toMatch(/\.has\(/)
    expect([f(['a']), f(['b']), f([null])]).toEqual([true, null, null])
    const g = compileScalar(inList(true, [sqlText('a'), sqlText('b')]))
    expect([g(['a']), g(['c']), g([null])]).toEqual([false, true, null])
    // an integer list from text literals: cast once, when compiled
    const ints = compileScalar({ kind: 'inList', arg: col(0), list: [{ kind: 'cast', arg: { kind: 'literal', value: '7', type: 'unknown' }, type: 'integer' }], negated: false, type: 'boolean' })
    expect([ints([7]), ints([8])]).toEqual([true, false])
    // a literal that is no integer raises when evaluated, as the comparison would
    const bad = compileScalar({ kind: 'inList', arg: col(0), list: [{ kind: 'cast', arg: { kind: 'literal', value: 'x', type: 'unknown' }, type: 'integer' }], negated: false, type: 'boolean' })
    expect(() => bad([7])).toThrow(/invalid input syntax/)
  })

  it('split_part of SQL literals shares one split', () => {
    const sp = (n: number): ScalarExpr => call('split_part', [text(0), sqlText('/'), { kind: 'literal', value: n, type: 'integer' }], 'text')
    const f = compileFilterProjection(call('ne', [text(0), sqlText('')], 'boolean'), [sp(4), sp(5), sp(6)])
    expect(new Set(f.toString().match(/k\d+\.get\(/g)).size).toBe(1)
    expect(f(['https://h/a/b/c/item'])).toEqual(['a', 'b', 'c'])
    expect(f(['https://h'])).toEqual(['', '', ''])
  })
})

describe('lower(c) or upper(c) compared with constants skips texts longer than them', () => {
  it('relies on case mapping never shortening a text, for every code point', () => {
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue
      const s = String.fromCodePoint(c)
      if (s.toLowerCase().length < s.length || s.toUpperCase().length < s.length) throw new Error(`U+${c.toString(16)} shortens`)
    }
  })

  it('answers as the comparison does, NULLs and growing mappings included', () => {
    const lower = call('lower', [text(0)], 'text')
    const upper = call('upper', [text(0)], 'text')
    const exprs: [ScalarExpr, (x: string) => boolean | null][] = [
      [call('eq', [lower, sqlText('i̇x')], 'boolean'), (x) => x.toLowerCase() === 'i̇x'],
      [call('ne', [sqlText('ab'), lower], 'boolean'), (x) => x.toLowerCase() !== 'ab'],
      [{ kind: 'inList', arg: upper, list: [sqlText('SS'), sqlText('A')], negated: false, type: 'boolean' }, (x) => ['SS', 'A'].includes(x.toUpperCase())],
      [{ kind: 'inList', arg: lower, list: [sqlText('ab'), sqlText(null)], negated: true, type: 'boolean' }, (x) => (x.toLowerCase() === 'ab' ? false : null)],
    ]
    const compiled = exprs.map(([e]) => compileScalar(e))
    for (const f of compiled) expect(f.toString()).toMatch(/\.length > \d+ \?/)
    const unit = fc.constantFrom('a', 'A', 'b', 'B', 'İ', 'I', 'x', 'ß', 's', 'S', '\u0307')
    fc.assert(
      fc.property(fc.option(fc.string({ unit, maxLength: 5 }), { nil: null }), (x) => {
        exprs.forEach(([, direct], i) => expect(compiled[i]!([x])).toBe(x === null ? null : direct(x)))
      }),
      { numRuns: 500 },
    )
  })
})
