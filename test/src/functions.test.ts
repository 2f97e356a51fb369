// Implementations of the overload ids. Expected values/errors were checked in PostgreSQL 15.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError } from '../../grammar/errors.js'
import { overloadIds, resolveFunction } from '../../planner/expr/functions.js'
import { FUNCTIONS } from '../../src/sql-runtime/functions.js'
import { prepareRegex } from '../../src/sql-runtime/regex.js'
import { Interval, parseInterval } from '../../src/sql-runtime/interval.js'
import { formatFloat8, parseNumeric } from '../../src/sql-runtime/number-text.js'
import { formatTimestamp, parseTimestamp, clock } from '../../src/sql-runtime/datetime.js'
import { UTC } from '../../src/sql-runtime/time-zone.js'
import { numericText, type NumericValue } from '../../planner/index.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const F = FUNCTIONS as Record<string, (...a: any[]) => any>

function sqlError(f: () => unknown): { code: string; message: string } {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(RivuletError)
    return { code: (e as RivuletError).code, message: (e as RivuletError).message }
  }
  throw new Error('expected an error')
}
const T = (s: string) => parseTimestamp(s)
const I = (s: string) => parseInterval(s)
const fts = (x: unknown) => formatTimestamp(x as number)
/** A numeric value from its text, and a numeric result as its text. */
const N = (s: string) => parseNumeric(s)
const NT = (v: unknown) => numericText(v as NumericValue)

describe('catalog coverage', () => {
  it('every overload id has an implementation', () => {
    const missing = overloadIds().filter((id) => typeof FUNCTIONS[id] !== 'function')
    expect(missing).toEqual([])
  })
})

describe('integer arithmetic', () => {
  it('overflow is an error against the result type', () => {
    expect(sqlError(() => F.int4_add(2147483647, 1))).toEqual({ code: '22003', message: 'integer out of range' })
    expect(sqlError(() => F.int2_add(32767, 1))).toEqual({ code: '22003', message: 'smallint out of range' })
    expect(F.int8_add(Number.MAX_SAFE_INTEGER, 1)).toBe(2n ** 53n)
    expect(F.int8_sub(2n ** 53n, 1)).toBe(Number.MAX_SAFE_INTEGER)
    expect(sqlError(() => F.int8_add(2n ** 63n - 1n, 1))).toEqual({ code: '22003', message: 'bigint out of range' })
    expect(sqlError(() => F.int8_neg(-(2n ** 63n)))).toEqual({ code: '22003', message: 'bigint out of range' })
    expect(sqlError(() => F.int8_div(-(2n ** 63n), -1))).toEqual({ code: '22003', message: 'bigint out of range' })
    expect(F.int8_mod(-(2n ** 63n), -1)).toBe(0)
    expect(sqlError(() => F.int4_mul(46341, 46341)).message).toBe('integer out of range')
    expect(sqlError(() => F.int4_sub(-2147483648, 1)).message).toBe('integer out of range')
    expect(sqlError(() => F.int4_neg(-2147483648)).message).toBe('integer out of range')
    expect(sqlError(() => F.int2_neg(-32768)).message).toBe('smallint out of range')
    expect(sqlError(() => F.int4_abs(-2147483648)).message).toBe('integer out of range')
    expect(sqlError(() => F.int4_div(-2147483648, -1)).message).toBe('integer out of range')
    expect(F.int4_mod(-2147483648, -1)).toBe(0)
    expect(F.int8_mul(2 ** 27, 2 ** 27)).toBe(2n ** 54n)
    expect(sqlError(() => F.int8_mul(2 ** 32, 2 ** 31)).message).toBe('bigint out of range')
    expect(F.int8_mul(-(2 ** 32), 2 ** 31)).toBe(-(2n ** 63n))
    expect(F.int8_mul(2 ** 26, 2 ** 26)).toBe(2 ** 52)
  })
  it('division truncates toward zero; modulo has the sign of the dividend', () => {
    expect(F.int4_div(-7, 2)).toBe(-3)
    expect(F.int4_div(7, -2)).toBe(-3)
    expect(F.int4_div(7, 2)).toBe(3)
    expect(F.int4_mod(-7, 2)).toBe(-1)
    expect(F.int4_mod(7, -2)).toBe(1)
    expect(Object.is(F.int4_mod(-4, 2), 0)).toBe(true)
    expect(Object.is(F.int4_div(-1, 2), 0)).toBe(true)
    expect(F.int8_div(9007199254740991, 2)).toBe(4503599627370495)
    expect(F.int8_div(-9007199254740991, 10)).toBe(-900719925474099)
  })
  it('int8 division is exact on large operands', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }), fc.bigInt({ min: 1n, max: 2n ** 40n }), (a, b) => {
      return F.int8_div(Number(a), Number(b)) === Number(a / b) && F.int8_mod(Number(a), Number(b)) === Number(a % b)
    }))
  })
  it('division by zero', () => {
    for (const id of ['int2_div', 'int4_div', 'int8_div', 'int4_mod', 'num_div', 'num_mod', 'float8_div', 'float4_div']) {
      expect(sqlError(() => F[id]!(1, 0)), id).toEqual({ code: '22012', message: 'division by zero' })
    }
    expect(F.float8_div(NaN, 0)).toBeNaN() // PG: 'NaN'::float8 / 0 = NaN
  })
  it('bitwise operators and shifts wrap like C', () => {
    expect(F.int4_and(12, 10)).toBe(8)
    expect(F.int8_xor(5, 3)).toBe(6)
    expect(F.int2_not(5)).toBe(-6)
    expect(F.int4_shl(1, 31)).toBe(-2147483648)
    expect(F.int4_shl(1, 33)).toBe(2)
    expect(F.int4_shr(-8, 1)).toBe(-4)
  })
})

describe('float arithmetic', () => {
  it('overflow / underflow errors', () => {
    expect(sqlError(() => F.float8_mul(1e308, 10))).toEqual({ code: '22003', message: 'value out of range: overflow' })
    expect(sqlError(() => F.float8_mul(1e-300, 1e-300))).toEqual({ code: '22003', message: 'value out of range: underflow' })
    expect(sqlError(() => F.float8_add(1.7e308, 1.7e308)).message).toBe('value out of range: overflow')
    expect(sqlError(() => F.float4_mul(Math.fround(3e38), 10)).message).toBe('value out of range: overflow')
    expect(F.float8_add(Infinity, 1)).toBe(Infinity)
    expect(F.float8_sub(Infinity, Infinity)).toBeNaN()
  })
  it('real arithmetic rounds to float4', () => {
    expect(F.float4_add(Math.fround(0.1), Math.fround(0.2))).toBe(Math.fround(Math.fround(0.1) + Math.fround(0.2)))
  })
  it('pow', () => {
    expect(F.float8_pow(2, 3)).toBe(8)
    expect(F.float8_pow(7, -2)).toBe(1 / 49) // correctly rounded, as glibc
    expect(formatFloat8(F.float8_pow(1e-7, -2))).toBe('100000000000000.02')
    expect(F.float8_pow(1, NaN)).toBe(1)
    expect(F.float8_pow(NaN, 0)).toBe(1)
    expect(sqlError(() => F.float8_pow(0, -1))).toEqual({ code: '2201F', message: 'zero raised to a negative power is undefined' })
    expect(sqlError(() => F.float8_pow(-8, 0.5))).toEqual({ code: '2201F', message: 'a negative number raised to a non-integer power yields a complex result' })
    expect(sqlError(() => F.float8_pow(2, 10000)).message).toBe('value out of range: overflow')
    expect(sqlError(() => F.float8_pow(0.5, 10000)).message).toBe('value out of range: underflow')
    expect(NT(F.num_pow(2, N('0.5')))).toBe('1.4142135623730950')
  })
})

describe('numeric', () => {
  it('add/sub/mul are exact at the operands\' decimal scale', () => {
    expect(NT(F.num_add(N('0.1'), N('0.2')))).toBe('0.3')
    expect(NT(F.num_sub(N('0.3'), N('0.1')))).toBe('0.2')
    expect(NT(F.num_mul(N('0.1'), N('0.2')))).toBe('0.02')
    expect(NT(F.num_mul(N('1.1'), N('1.1')))).toBe('1.21')
    expect(NT(F.num_mod(N('-7.5'), 2))).toBe('-1.5')
    expect(NT(F.num_mod(1, N('0.1')))).toBe('0.0')
    expect(NT(F.num_mod(N('2.5'), N('0.1')))).toBe('0.0')
    expect(NT(F.num_div(1, 3))).toBe('0.33333333333333333333')
    expect(NT(F.num_mul(N('12345678901234567890.5'), 3))).toBe('37037036703703703671.5')
  })
  it('rounding', () => {
    expect(F.round_num(N('2.5'))).toBe(3)
    expect(F.round_num(N('-2.5'))).toBe(-3)
    expect(F.round_float8(2.5)).toBe(2)
    expect(F.round_float8(3.5)).toBe(4)
    expect(Object.is(F.round_float8(-0.4), -0)).toBe(true)
    expect(NT(F.round_num_int(N('1.005'), 2))).toBe('1.01')
    expect(NT(F.round_num_int(N('99.995'), 2))).toBe('100.00')
    expect(NT(F.round_num_int(N('1234.5678'), -2))).toBe('1200')
    expect(NT(F.round_num_int(N('-1.5'), 0))).toBe('-2')
    expect(NT(F.round_num_int(N('42.4'), 3))).toBe('42.400')
    expect(NT(F.trunc_num_int(N('1.789'), 2))).toBe('1.78')
    expect(NT(F.trunc_num_int(N('-1.789'), 1))).toBe('-1.7')
    expect(F.trunc_num(N('-1.7'))).toBe(-1)
    expect(F.ceil_num(N('-0.5'))).toBe(0)
    expect(Object.is(F.ceil_float8(-0.5), -0)).toBe(true)
    expect(F.floor_num(N('-0.5'))).toBe(-1)
  })
  it('math errors', () => {
    expect(sqlError(() => F.sqrt_float8(-1))).toEqual({ code: '2201F', message: 'cannot take square root of a negative number' })
    expect(sqlError(() => F.ln_num(0))).toEqual({ code: '2201E', message: 'cannot take logarithm of zero' })
    expect(sqlError(() => F.log10_float8(-1))).toEqual({ code: '2201E', message: 'cannot take logarithm of a negative number' })
    expect(sqlError(() => F.log_num_num(1, 8)).code).toBe('22012')
    expect(NT(F.log_num_num(2, 8))).toBe('3.0000000000000000')
    expect(F.sign_num(-3)).toBe(-1)
    expect(sqlError(() => F.exp_float8(1000)).message).toBe('value out of range: overflow')
  })
})

describe('comparisons', () => {
  it('PG semantics for NaN and text order', () => {
    expect(F.eq(NaN, NaN)).toBe(true)
    expect(F.gt(NaN, Infinity)).toBe(true)
    expect(F.lt(1, NaN)).toBe(true)
    expect(F.ne(1, 2)).toBe(true)
    expect(F.lt('\uffff', '😀')).toBe(true)
    expect(F.le('a', 'a')).toBe(true)
    expect(F.gt(true, false)).toBe(true)
    expect(F.ge(20000, 19999)).toBe(true)
  })
  it('interval comparisons normalize (1 day = 24 hours, 1 mon = 30 days)', () => {
    expect(F.interval_eq(I('1 day'), I('24 hours'))).toBe(true)
    expect(F.interval_eq(I('1 mon'), I('30 days'))).toBe(true)
    expect(F.interval_gt(I('1 year'), I('360 days'))).toBe(false)
    expect(F.interval_lt(I('-1 day'), I('1 second'))).toBe(true)
    expect(F.interval_ne(I('1 day'), I('25 hours'))).toBe(true)
  })
})

describe('LIKE', () => {
  const like = (s: string, p: string, e?: string) => (e === undefined ? F.like(s, p) : F.like_escape(s, p, e))
  it('% and _ wildcards', () => {
    expect(like('abc', 'a%')).toBe(true)
    expect(like('abc', '_b_')).toBe(true)
    expect(like('abc', 'A%')).toBe(false)
    expect(like('', '%')).toBe(true)
    expect(like('', '_')).toBe(false)
    expect(like('a\nb', 'a_b')).toBe(true)
    expect(like('abc', '%%%c')).toBe(true)
    expect(like('日本語', '日_語')).toBe(true)
    expect(like('😀x', '_x')).toBe(true)
  })
  it('regex metacharacters are literal', () => {
    expect(like('a.c', 'a.c')).toBe(true)
    expect(like('abc', 'a.c')).toBe(false)
    expect(like('a*c', 'a*c')).toBe(true)
    expect(like('x[y]', 'x[y]')).toBe(true)
    expect(like('a(b', 'a(%')).toBe(true)
    expect(like('$^', '$^')).toBe(true)
  })
  it('escapes', () => {
    expect(like('a%c', 'a\\%c')).toBe(true)
    expect(like('abc', 'a\\%c')).toBe(false)
    expect(like('a_c', 'a!_c', '!')).toBe(true)
    expect(like('abc', 'a!_c', '!')).toBe(false)
    expect(like('a\\c', 'a\\c', '')).toBe(true)
    expect(sqlError(() => like('abc', 'a%', 'xy'))).toEqual({ code: '22025', message: 'invalid escape string' })
    expect(like('ab', 'ab\\')).toBe(false) // PG only fails when matching reaches the escape
    expect(sqlError(() => like('abx', 'ab\\'))).toEqual({ code: '22025', message: 'LIKE pattern must not end with escape character' })
  })
  it('ILIKE', () => {
    expect(F.ilike('ABC', 'a%')).toBe(true)
    expect(F.ilike('ÄBC', 'äbc')).toBe(true)
    expect(F.ilike_escape('A_C', 'a!_c', '!')).toBe(true)
  })
  it('agrees with a reference matcher on random patterns', () => {
    const ref = (s: string, p: string): boolean => {
      // straightforward recursive LIKE (no escapes)
      const go = (i: number, j: number): boolean => {
        if (j === p.length) return i === s.length
        if (p[j] === '%') return go(i, j + 1) || (i < s.length && go(i + 1, j))
        if (i === s.length) return false
        return (p[j] === '_' || p[j] === s[i]) && go(i + 1, j + 1)
      }
      return go(0, 0)
    }
    const str = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*') , maxLength: 8 })
    const pat = fc.string({ unit: fc.constantFrom('a', 'b', '%', '_', '.', '*'), maxLength: 6 })
    fc.assert(fc.property(str, pat, (s, p) => F.like(s, p) === ref(s, p)), { numRuns: 3000 })
  })
})

describe('strings', () => {
  it('length counts characters', () => {
    expect(F.length('héllo')).toBe(5)
    expect(F.length('a😀b')).toBe(3)
    expect(F.octet_length('a😀b')).toBe(6)
  })
  it('substring', () => {
    expect(F.substring2('hello', 2)).toBe('ello')
    expect(F.substring2('hello', -3)).toBe('hello')
    expect(F.substring3('hello', 2, 3)).toBe('ell')
    expect(F.substring3('hello', 0, 2)).toBe('h')
    expect(F.substring3('hello', -3, 2)).toBe('')
    expect(F.substring3('a😀b', 2, 1)).toBe('😀')
    expect(sqlError(() => F.substring3('hello', 1, -1))).toEqual({ code: '22011', message: 'negative substring length not allowed' })
  })
  it('position / strpos', () => {
    expect(F.position('hello', 'lo')).toBe(4) // grammar: POSITION('lo' IN 'hello')
    expect(F.strpos('hello', 'lo')).toBe(4)
    expect(F.strpos('a😀b', 'b')).toBe(3)
    expect(F.strpos('hello', 'x')).toBe(0)
    expect(F.position('abc', '')).toBe(1)
  })
  it('trim family trims spaces (1 arg) or a character set', () => {
    expect(F.btrim1('  pad  ')).toBe('pad')
    expect(F.btrim1('\tpad\n')).toBe('\tpad\n')
    expect(F.ltrim1('  pad  ')).toBe('pad  ')
    expect(F.rtrim1('  pad  ')).toBe('  pad')
    expect(F.btrim2('xxhixx', 'x')).toBe('hi')
    expect(F.rtrim2('xxhi xx', 'x ')).toBe('xxhi')
  })
  it('pads truncate when longer, like PG', () => {
    expect(F.lpad2('hi', 5)).toBe('   hi')
    expect(F.lpad3('hello', 2, 'x')).toBe('he')
    expect(F.rpad3('hi', 7, 'ab')).toBe('hiababa')
    expect(F.lpad3('hi', 5, '')).toBe('hi')
    expect(F.lpad2('hi', -1)).toBe('')
  })
  it('left / right with negative counts', () => {
    expect(F.left('hello', 2)).toBe('he')
    expect(F.left('hello', -2)).toBe('hel')
    expect(F.right('hello', 2)).toBe('lo')
    expect(F.right('hello', -2)).toBe('llo')
    expect(F.left('hello', -10)).toBe('')
  })
  it('split_part', () => {
    expect(F.split_part('one,two,,three', ',', 2)).toBe('two')
    expect(F.split_part('one,two,,three', ',', 3)).toBe('')
    // several fields of one string, then another string, then the first with another delimiter
    expect([F.split_part('a/b/c', '/', 2), F.split_part('a/b/c', '/', 3), F.split_part('x/y', '/', 2), F.split_part('x/y', '/', 3), F.split_part('a/b/c', '-', 1), F.split_part('a/b/c', '/', 1)]).toEqual(['b', 'c', 'y', '', 'a/b/c', 'a'])
    expect(F.split_part('one,two,,three', ',', -1)).toBe('three')
    expect(F.split_part('one,two', ',', 5)).toBe('')
    expect(F.split_part('abc', '', 1)).toBe('abc')
    expect(F.split_part('abc', '', 2)).toBe('')
    expect(sqlError(() => F.split_part('a', ',', 0))).toEqual({ code: '22023', message: 'field position must not be zero' })
  })
  it('misc', () => {
    expect(F.replace('hello', 'l', 'L')).toBe('heLLo')
    expect(F.replace('hello', '', 'x')).toBe('hello')
    expect(F.replace('a-b-c', '-', '$&$1')).toBe('a$&$1b$&$1c') // no replacement patterns, unlike JS
    // every occurrence, left to right, of any text (regular-expression characters and `$`
    // patterns are literal), as splitting on it and joining with the replacement
    const unit = fc.constantFrom('a', 'b', '.', '*', '$', '&', '\\', '[', '(', '|', '^', '/', '-', '\ud83d\ude00')
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 20 }), fc.string({ unit, minLength: 1, maxLength: 3 }), fc.string({ unit, maxLength: 3 }), (str, from, to) => {
        expect(F.replace(str, from, to)).toBe(str.split(from).join(to))
      }),
      { numRuns: 2000 },
    )
    expect(F.repeat('ab', 3)).toBe('ababab')
    expect(F.repeat('ab', -1)).toBe('')
    expect(F.reverse('a😀b')).toBe('b😀a')
    expect(F.initcap('hELLO wORLD-foo_bar 9ab')).toBe('Hello World-Foo_Bar 9ab')
    expect(F.starts_with('hello', 'he')).toBe(true)
    expect(F.md5('hello')).toBe('5d41402abc4b2a76b9719d911017c592')
    expect(F.upper('straße')).toBe('STRASSE')
    expect(F.lower('ÄB')).toBe('äb')
    expect(F.ascii('A')).toBe(65)
    expect(F.chr(65)).toBe('A')
    expect(sqlError(() => F.chr(0)).code).toBe('54000')
    expect(F.translate('hello', 'lo', 'L')).toBe('heLL')
  })
  it('concat / concat_ws skip NULLs and render booleans as t/f', () => {
    expect(F.concat('a', null, true, '1.5', '2')).toBe('at1.52')
    expect(F.concat()).toBe('')
    expect(F.concat_ws(',', 'a', null, false, 'b')).toBe('a,f,b')
    expect(F.concat_ws(null, 'a')).toBeNull()
    expect(F.text_concat('a', 'b')).toBe('ab')
  })
  it('greatest / least ignore NULLs', () => {
    expect(F.greatest(1, 3, null, 2)).toBe(3)
    expect(F.least('b', 'a', null)).toBe('a')
    expect(F.greatest(null, null)).toBeNull()
    expect(F.greatest(I('1 day'), I('23 hours'), I('25 hours')).toString()).toBe('25:00:00')
    expect(F.least(NaN, 1)).toBe(1)
  })
})

describe('date/time operators', () => {
  it('date arithmetic', () => {
    expect(F.date_add_int(19723, 31)).toBe(19754)
    expect(F.int_add_date(1, 19723)).toBe(19724)
    expect(F.date_sub_int(19723, 1)).toBe(19722)
    expect(F.date_sub_date(19813, 19723)).toBe(90)
    expect(fts(F.date_add_interval(19753, I('1 month 1 hour')))).toBe('2024-02-29 01:00:00') // 2024-01-31
    expect(fts(F.date_sub_interval(19723, I('1 day')))).toBe('2023-12-31 00:00:00')
  })
  it('timestamp ± interval adds months with end-of-month clamping', () => {
    expect(fts(F.ts_add_interval(T('2024-01-31'), I('1 month')))).toBe('2024-02-29 00:00:00')
    expect(fts(F.ts_add_interval(T('2023-01-31 10:00'), I('1 month 1 day')))).toBe('2023-03-01 10:00:00')
    expect(fts(F.ts_sub_interval(T('2024-03-31'), I('1 month')))).toBe('2024-02-29 00:00:00')
    expect(fts(F.interval_add_ts(I('90 minutes'), T('2024-01-01 23:00')))).toBe('2024-01-02 00:30:00')
    expect(F.ts_add_interval(Infinity, I('1 day'))).toBe(Infinity)
    // subtracting is adding the negated interval, month clamping included
    fc.assert(
      fc.property(fc.integer({ min: -3e15, max: 3e15 }), fc.integer({ min: -30, max: 30 }), fc.integer({ min: -400, max: 400 }), fc.integer({ min: -1e11, max: 1e11 }), (ts, months, days, micros) => {
        const add = (() => {
          try {
            return F.ts_add_interval(ts, new Interval(-months, -days, -micros))
          } catch (e) {
            return (e as Error).message
          }
        })()
        const sub = (() => {
          try {
            return F.ts_sub_interval(ts, new Interval(months, days, micros))
          } catch (e) {
            return (e as Error).message
          }
        })()
        expect(sub).toBe(add)
      }),
      { numRuns: 2000 },
    )
    expect(sqlError(() => F.ts_add_interval(T('294276-12-31'), I('1 day'))).message).toBe('timestamp out of range')
  })
  it('timestamp − timestamp justifies hours into days', () => {
    expect(F.ts_sub_ts(T('2024-01-02 03:00'), T('2024-01-01')).toString()).toBe('1 day 03:00:00')
    expect(F.ts_sub_ts(T('2024-01-01'), T('2024-01-02 03:00')).toString()).toBe('-1 days -03:00:00')
    expect(F.ts_sub_ts(T('2024-03-01'), T('2024-01-01')).toString()).toBe('60 days')
    expect(sqlError(() => F.ts_sub_ts(Infinity, 0)).message).toBe('cannot subtract infinite timestamps')
  })
  it('interval arithmetic (PG cascading of fractions)', () => {
    expect(F.interval_add(I('1 day'), I('2 hours')).toString()).toBe('1 day 02:00:00')
    expect(F.interval_sub(I('1 day'), I('2 hours')).toString()).toBe('1 day -02:00:00')
    expect(F.interval_neg(I('1 day -2 hours')).toString()).toBe('-1 days +02:00:00')
    expect(F.interval_mul(I('1 mon'), 1.5).toString()).toBe('1 mon 15 days')
    expect(F.interval_mul(I('1 hour'), 0.333).toString()).toBe('00:19:58.8')
    expect(F.float8_mul_interval(2, I('1 day 1 hour')).toString()).toBe('2 days 02:00:00')
    expect(F.interval_div(I('1 day'), 3).toString()).toBe('08:00:00')
    expect(F.interval_div(I('1 year'), 7).toString()).toBe('1 mon 21 days 10:17:08.5344')
    expect(sqlError(() => F.interval_div(I('1 day'), 0)).code).toBe('22012')
  })
})

describe('date/time functions', () => {
  it('date_trunc', () => {
    const tr = (f: string, s: string) => fts(F.date_trunc_ts(f, T(s)))
    expect(tr('week', '2024-01-07 10:00')).toBe('2024-01-01 00:00:00')
    expect(tr('quarter', '2024-05-07 10:00')).toBe('2024-04-01 00:00:00')
    expect(tr('hour', '2024-05-07 10:59:59.9')).toBe('2024-05-07 10:00:00')
    expect(tr('minutes', '2024-05-07 10:59:59.9')).toBe('2024-05-07 10:59:00')
    expect(tr('milliseconds', '2024-05-07 10:59:59.123456')).toBe('2024-05-07 10:59:59.123')
    expect(tr('decade', '2024-05-07')).toBe('2020-01-01 00:00:00')
    expect(tr('century', '2024-05-07')).toBe('2001-01-01 00:00:00')
    expect(tr('millennium', '2024-05-07')).toBe('2001-01-01 00:00:00')
    expect(tr('DAY', '1969-12-31 23:00')).toBe('1969-12-31 00:00:00')
    expect(sqlError(() => F.date_trunc_ts('foo', 0))).toEqual({ code: '22023', message: 'unit "foo" not recognized for type timestamp without time zone' })
    expect(F.date_trunc_interval('hour', I('1 day 02:30')).toString()).toBe('1 day 02:00:00')
    expect(sqlError(() => F.date_trunc_interval('week', I('1 day'))).message).toBe('unit "week" not supported for type interval')
  })
  it('extract / date_part', () => {
    const d = 19729 // 2024-01-07, a Sunday
    expect(F.extract_date('dow', d)).toBe(0)
    expect(F.extract_date('isodow', d)).toBe(7)
    expect(F.extract_date('week', 19723)).toBe(1)
    expect(F.extract_date('doy', 20088)).toBe(366) // 2024-12-31
    expect(F.extract_date('quarter', 19844)).toBe(2) // 2024-05-01
    expect(F.extract_date('century', 10957)).toBe(20) // 2000-01-01
    expect(F.extract_date('millennium', 11323)).toBe(3) // 2001-01-01
    expect(F.extract_date('decade', 19723)).toBe(202)
    expect(F.extract_date('isoyear', 18628)).toBe(2020) // 2021-01-01
    expect(F.extract_date('julian', 19723)).toBe(2460311)
    expect(F.extract_date('epoch', 19723)).toBe(1704067200)
    expect(sqlError(() => F.extract_date('hour', 19723))).toEqual({ code: '0A000', message: 'unit "hour" not supported for type date' })
    expect(NT(F.extract_ts('second', T('2024-01-01 10:00:05.25')))).toBe('5.250000')
    expect(NT(F.extract_ts('epoch', T('2024-01-01 10:00:00.5')))).toBe('1704103200.500000')
    expect(F.extract_ts('year', T('0001-06-01 BC'))).toBe(-1)
    expect(F.date_part_ts('milliseconds', T('2095-07-28 23:51:01.479582'))).toBe(1479.5819999999999) // PG's float formula
    expect(F.date_part_ts('hour', 19723 * 86400e6)).toBe(0)
    expect(NT(F.extract_interval('epoch', I('1 year 1 mon 1 day')))).toBe('34236000.000000')
    expect(F.extract_interval('hour', I('25 hours'))).toBe(25)
    expect(F.extract_interval('day', I('1 mon 40 days'))).toBe(40)
    expect(F.extract_interval('month', I('14 months'))).toBe(2)
    expect(F.extract_interval('year', I('-14 months'))).toBe(-1)
    expect(Object.is(F.extract_interval('decade', I('-7 years')), 0)).toBe(true)
  })
  it('to_timestamp / make_* / date_bin / justify / age', () => {
    expect(fts(F.to_timestamp(1704103200.5))).toBe('2024-01-01 10:00:00.5')
    expect(sqlError(() => F.to_timestamp(NaN)).message).toBe('timestamp cannot be NaN')
    expect(F.make_date(2024, 2, 29)).toBe(19782)
    expect(sqlError(() => F.make_date(2024, 2, 30))).toEqual({ code: '22008', message: 'date field value out of range: 2024-02-30' })
    expect(fts(F.make_timestamp(2024, 2, 3, 4, 5, 6.5))).toBe('2024-02-03 04:05:06.5')
    expect(F.make_interval(1, 2, 3, 4, 5, 6, 7.5).toString()).toBe('1 year 2 mons 25 days 05:06:07.5')
    expect(F.make_interval(0, 0, 0, 3).toString()).toBe('3 days')
    expect(fts(F.date_bin(I('15 minutes'), T('2024-01-01 10:17:00'), T('2000-01-01')))).toBe('2024-01-01 10:15:00')
    expect(fts(F.date_bin(I('15 minutes'), T('1999-12-31 23:50:00'), T('2000-01-01')))).toBe('1999-12-31 23:45:00')
    expect(sqlError(() => F.date_bin(I('1 month'), 0, 0)).code).toBe('0A000')
    expect(F.justify_hours(I('27 hours')).toString()).toBe('1 day 03:00:00')
    expect(F.justify_days(I('35 days')).toString()).toBe('1 mon 5 days')
    expect(F.justify_interval(I('1 mon -1 hour')).toString()).toBe('29 days 23:00:00')
    expect(F.age(T('2024-03-15'), T('2023-01-31 12:00')).toString()).toBe('1 year 1 mon 14 days 12:00:00')
    expect(F.ts_to_date(T('2024-01-01 10:00'))).toBe(19723)
    // an untyped literal is a timestamptz, PostgreSQL's preferred date/time type
    expect(resolveFunction('date', ['unknown'])?.overload.id).toBe('tstz_to_date')
    expect(resolveFunction('date', ['timestamp'])?.overload.id).toBe('ts_to_date')
  })
  it('to_char reuses a result only within the finest unit its format prints', () => {
    const ts = (t: string) => parseTimestamp(t)
    // every format, over a run of timestamps crossing seconds, minutes, hours, days
    const times = ['2015-07-15 23:59:59.4', '2015-07-15 23:59:59.9', '2015-07-16 00:00:00', '2015-07-16 00:00:00.5', '2015-07-16 00:00:59', '2015-07-16 00:01:00', '2015-07-16 01:00:00', '1969-12-31 23:59:59.999999', '1970-01-01 00:00:00'].map(ts)
    const formats = ['YYYY-MM-DD', 'HH24:MI', 'HH24:MI:SS', 'HH12 AM', 'SS.US', 'FF3', '"MI" DD', 'DDD J', 'YYYY-MM-DD HH24:MI:SS.US']
    for (const f of formats) {
      const inSequence = times.map((t) => F.to_char_ts(t, f))
      // reference: each formatted right after a timestamp a century away (nothing to reuse)
      const alone = times.map((t) => (F.to_char_ts(ts('2100-01-01 12:34:56.789'), f), F.to_char_ts(t, f)))
      expect(inSequence).toEqual(alone)
    }
    expect(F.to_char_ts(ts('2015-07-15 23:59:59.9'), 'HH24:MI:SS')).toBe('23:59:59')
    expect(F.to_char_ts(ts('2015-07-16 00:00:00'), 'HH24:MI:SS')).toBe('00:00:00')
    expect(F.to_char_ts(ts('2015-07-16 00:00:00.5'), 'SS.US')).toBe('00.500000')
  })

  it('to_char(timestamp, text) with PG template patterns', () => {
    const ts = T('2024-01-07 15:04:05.123456')
    expect(F.to_char_ts(ts, 'YYYY-MM-DD HH24:MI:SS.MS US')).toBe('2024-01-07 15:04:05.123 123456')
    expect(F.to_char_ts(ts, 'HH HH12 AM am A.M. p.m.')).toBe('03 03 PM pm P.M. p.m.')
    expect(F.to_char_ts(ts, 'Month|Mon|MONTH|month|mon')).toBe('January  |Jan|JANUARY  |january  |jan')
    expect(F.to_char_ts(ts, 'DAY Day day DY Dy dy D ID DDD IDDD')).toBe('SUNDAY    Sunday    sunday    SUN Sun sun 1 7 007 007')
    expect(F.to_char_ts(ts, 'W WW IW IYYY IYY IY I CC J Q RM rm SSSS')).toBe('1 01 01 2024 024 24 4 21 2460317 1 I    i    54245')
    expect(F.to_char_ts(ts, 'Y,YYY YYY YY Y BC b.c. TZ FF3 "quoted YYYY" \\"x')).toBe('2,024 024 24 4 AD a.d.  123 quoted YYYY "x')
    const mid = T('2024-01-07 00:04:05')
    expect(F.to_char_ts(mid, 'FMDD FMMonth FMHH12 DDth DDTH FMDDth Dth HH24th fmMM MMfm FMYYYY-FMMM')).toBe('7 January 12 07th 07TH 7th 1st 00th 1 01 2024-1')
    expect(F.to_char_ts(T('2024-01-22'), 'FMDDth')).toBe('22nd')
    expect(F.to_char_ts(T('2024-01-11'), 'FMDDth')).toBe('11th')
    expect(F.to_char_ts(T('0044-03-15 BC'), 'YYYY BC AD')).toBe('0044 BC BC')
    expect(F.to_char_ts(mid, 'Dayth FMfmDD THPM')).toBe('Sunday    fm07 THAM')
    expect(F.to_char_ts(Infinity, 'YYYY')).toBeNull()
    // a date promotes to timestamptz, PostgreSQL's preferred date/time type
    expect(resolveFunction('to_char', ['date', 'unknown'])?.overload.id).toBe('to_char_tstz')
    expect(resolveFunction('to_char', ['timestamp', 'unknown'])?.overload.id).toBe('to_char_ts')
  })
  it('now / current_date use the clock', () => {
    const saved = clock.nowMicros
    clock.nowMicros = () => 1704103200_000000
    try {
      expect(fts(F.now())).toBe('2024-01-01 10:00:00')
      expect(F.current_date(UTC)).toBe(19723)
      expect(F.current_date({ name: 'Asia/Tokyo', iana: 'Asia/Tokyo' })).toBe(19723)
      expect(F.age_now(T('2023-12-25 12:00')).toString()).toBe('6 days 12:00:00')
    } finally {
      clock.nowMicros = saved
    }
    expect(resolveFunction('now', [])?.overload.volatile).toBe(true)
  })
  it('interval values are Interval objects', () => {
    expect(F.interval_add(new Interval(1, 0, 0), new Interval(0, 1, 0))).toBeInstanceOf(Interval)
  })
})

describe('regular expressions (PG ARE semantics on JS RegExp)', () => {
  it('operators and substring(s FROM pattern)', () => {
    expect(F.regex_match('abcd', 'a.c')).toBe(true)
    expect(F.regex_match('thomas', 'T.*ma')).toBe(false)
    expect(F.regex_imatch('thomas', 'T.*ma')).toBe(true)
    expect(F.regex_nmatch('thomas', 't.*max')).toBe(true)
    expect(F.regex_inmatch('thomas', 'T.*ma')).toBe(false)
    expect(F.substring_regex('foobar', 'o.b')).toBe('oob')
    expect(F.substring_regex('foobar', 'o(.)b')).toBe('o')
    expect(F.substring_regex('x?a=1&channel_id=UC42&b=2', '(?:&|^)channel_id=([^&]*)')).toBe('UC42')
    expect(F.substring_regex('foo', 'foo(bar)?')).toBeNull() // the group took no part
    expect(F.substring_regex('abc', 'x')).toBeNull()
  })
  it('PG-only syntax: classes, word boundaries, \\b is a backspace, options, newlines', () => {
    expect(F.regex_match('abc123', '^[[:alpha:]]+[[:digit:]]+$')).toBe(true)
    expect(F.regex_imatch('aBc', '^[[:upper:]]+$')).toBe(true) // with i, upper means alpha
    expect(F.regex_match('a]b', 'a[]]b')).toBe(true)
    expect(F.regex_match('foo bar', '\\mbar\\M')).toBe(true)
    expect(F.regex_match('foobar', '\\ybar')).toBe(false)
    expect(F.regex_match('foobar', 'o\\Yb')).toBe(true)
    expect(F.regex_match('Howard Cole', '[[:<:]]Cole[[:>:]]')).toBe(true)
    expect(F.regex_match('foo', '\\bfoo')).toBe(false)
    expect(F.regex_match('x\bfoo', '\\bfoo')).toBe(true)
    expect(F.regex_match('ABC', '(?i)abc')).toBe(true)
    expect(F.regex_imatch('ABC', '(?c)abc')).toBe(false)
    expect(F.regex_match('abc', '(?x) a b  c # comment')).toBe(true)
    expect(F.regex_match('a.c', '***=a.c')).toBe(true)
    expect(F.regex_match('abc', '***=a.c')).toBe(false)
    expect(F.regex_match('a\nb', 'a.b')).toBe(true)
    expect(F.regex_match('a\nb', '(?n)a.b')).toBe(false)
    expect(F.regex_match('a\nb', '(?n)^b$')).toBe(true)
    expect(F.regex_match('a\nb', '^b')).toBe(false)
    expect(F.regex_match('aa', '^(a)\\1$')).toBe(true)
    expect(F.regex_match('a\u0008', 'a\\10')).toBe(true) // \10 with one group is octal 010
    expect(F.regex_match('x{', 'x{')).toBe(true)
    expect(F.regex_match('😀', '^.$')).toBe(true)
  })
  it('regexp_replace: \\1 \\& \\\\, g, start and N', () => {
    expect(F.regexp_replace('foobarbaz', 'b(..)', 'X\\1Y', 'g')).toBe('fooXarYXazY')
    expect(F.regexp_replace('foobarbaz', 'b..', 'X')).toBe('fooXbaz')
    expect(F.regexp_replace('abc', 'b', '[\\&]\\\\\\q')).toBe('a[b]\\\\qc')
    expect(F.regexp_replace('abc', '', 'X', 'g')).toBe('XaXbXcX')
    expect(F.regexp_replace_at('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 3, 'i')).toBe('A PostgrXSQL function')
    expect(F.regexp_replace_at('A PostgreSQL function', 'a|e|i|o|u', 'X', 7, 0, 'i')).toBe('A PostgrXSQL fXnctXXn')
    expect(sqlError(() => F.regexp_replace('abc', 'b', 'x', '1'))).toEqual({ code: '22023', message: 'invalid regular expression option: "1"' })
    expect(sqlError(() => F.regexp_replace_at('abc', 'b', 'x', 0))).toEqual({ code: '22023', message: 'invalid value for parameter "start": 0' })
  })
  it('regexp_like / regexp_count / regexp_substr / regexp_instr (PG 15 doc examples)', () => {
    expect(F.regexp_like('Hello World', 'world')).toBe(false)
    expect(F.regexp_like('Hello World', 'world', 'i')).toBe(true)
    expect(F.regexp_count('ABCABCAXYaxy', 'A.')).toBe(3)
    expect(F.regexp_count('ABCABCAXYaxy', 'A.', 1, 'i')).toBe(4)
    expect(F.regexp_count('123456789012', '\\d\\d\\d', 2)).toBe(3)
    expect(F.regexp_substr('number of your street, town zip, FR', '[^,]+', 1, 2)).toBe(' town zip')
    expect(F.regexp_substr('ABCDEFGHI', '(c..)(...)', 1, 1, 'i', 2)).toBe('FGH')
    expect(F.regexp_instr('number of your street, town zip, FR', '[^,]+', 1, 2)).toBe(23)
    expect(F.regexp_instr('ABCDEFGHI', '(c..)(...)', 1, 1, 0, 'i', 2)).toBe(6)
    expect(F.regexp_instr('😀a😀b', 'b')).toBe(4) // characters, not UTF-16 units
    expect(sqlError(() => F.regexp_like('a', 'a', 'g'))).toEqual({ code: '22023', message: 'regexp_like() does not support the "global" option' })
    expect(sqlError(() => F.regexp_count('a', 'a', 1, 'y'))).toEqual({ code: '22023', message: 'invalid regular expression option: "y"' })
  })
  it('invalid patterns are 2201B with PostgreSQL messages', () => {
    const bad = (p: string) => sqlError(() => F.regex_match('x', p))
    expect(bad('(')).toEqual({ code: '2201B', message: 'invalid regular expression: parentheses () not balanced' })
    expect(bad('[a').message).toBe('invalid regular expression: brackets [] not balanced')
    expect(bad('*').message).toBe('invalid regular expression: quantifier operand invalid')
    expect(bad('a**').message).toBe('invalid regular expression: quantifier operand invalid')
    expect(bad('^*').message).toBe('invalid regular expression: quantifier operand invalid')
    expect(bad('a{2,1}').message).toBe('invalid regular expression: invalid repetition count(s)')
    expect(bad('a{256}').message).toBe('invalid regular expression: invalid repetition count(s)')
    expect(bad('a{1').message).toBe('invalid regular expression: braces {} not balanced')
    expect(bad('[z-a]').message).toBe('invalid regular expression: invalid character range')
    expect(bad('\\q').message).toBe('invalid regular expression: invalid escape \\ sequence')
    expect(bad('[\\D]').message).toBe('invalid regular expression: invalid escape \\ sequence') // PG 15
    expect(bad('[[:nope:]]').message).toBe('invalid regular expression: invalid character class')
    expect(bad('(a)\\2').message).toBe('invalid regular expression: invalid backreference number')
    expect(bad('(a\\1)').message).toBe('invalid regular expression: invalid backreference number')
    expect(bad('(?z)a').message).toBe('invalid regular expression: invalid embedded option')
  })
  it('a constant pattern is compiled once and passed compiled', () => {
    const re = prepareRegex('regexp_count', 'a.', 'i')!
    expect(re).toBe(prepareRegex('regexp_count', 'a.', 'i')) // cached
    expect(F.regexp_count('ABab', re, 1, 'i')).toBe(2)
    expect(F.regex_imatch('XaY', prepareRegex('regex_imatch', 'A', undefined))).toBe(true)
    expect(prepareRegex('regex_match', '(', undefined)).toBeUndefined() // raised at run time instead
    expect(prepareRegex('regexp_like', 'a', 'z')).toBeUndefined()
    expect(prepareRegex('lower', 'a', undefined)).toBeUndefined()
  })
})
