// Overload resolution, casts and common supertypes; expectations checked against PostgreSQL 15
// (pg_typeof / error behaviour) where noted.
import { describe, expect, it } from 'vitest'
import {
  ALL_OVERLOADS,
  canCast,
  canImplicitCast,
  commonSupertype,
  resolveBinaryOperator,
  resolveFunction,
  resolveUnaryOperator,
} from '../../planner/expr/functions.js'
import type { Resolved } from '../../planner/expr/functions.js'
import type { SqlType } from '../../planner/types.js'

function show(r: Resolved | undefined): string | undefined {
  return r && `${r.overload.id}(${r.argTypes.join(',')})->${r.overload.returns}`
}
const bin = (op: string, l: SqlType, r: SqlType) => show(resolveBinaryOperator(op, l, r))
const fn = (name: string, ...args: SqlType[]) => show(resolveFunction(name, args))

describe('binary operators', () => {
  it('integer arithmetic picks the wider integer type (PG int2+int2→int2, int2+int4→int4)', () => {
    expect(bin('+', 'integer', 'integer')).toBe('int4_add(integer,integer)->integer')
    expect(bin('+', 'smallint', 'smallint')).toBe('int2_add(smallint,smallint)->smallint')
    expect(bin('-', 'smallint', 'integer')).toBe('int4_sub(integer,integer)->integer')
    expect(bin('*', 'integer', 'bigint')).toBe('int8_mul(bigint,bigint)->bigint')
    expect(bin('/', 'smallint', 'bigint')).toBe('int8_div(bigint,bigint)->bigint')
    expect(bin('%', 'integer', 'integer')).toBe('int4_mod(integer,integer)->integer')
  })
  it('mixed numeric types follow PG (int+real → double, numeric+real → double)', () => {
    expect(bin('+', 'integer', 'numeric')).toBe('num_add(numeric,numeric)->numeric')
    expect(bin('+', 'integer', 'double')).toBe('float8_add(double,double)->double')
    expect(bin('+', 'integer', 'real')).toBe('float8_add(double,real)->double')
    expect(bin('+', 'numeric', 'real')).toBe('float8_add(double,real)->double')
    expect(bin('*', 'real', 'real')).toBe('float4_mul(real,real)->real')
    expect(bin('+', 'real', 'numeric')).toBe('float8_add(real,double)->double')
    expect(bin('+', 'numeric', 'double')).toBe('float8_add(double,double)->double')
  })
  it('no % for floats (PG: operator does not exist: double precision % integer)', () => {
    expect(bin('%', 'double', 'integer')).toBeUndefined()
    expect(bin('%', 'numeric', 'integer')).toBe('num_mod(numeric,numeric)->numeric')
  })
  it('^ is double for integers and numeric when a numeric is involved', () => {
    expect(bin('^', 'integer', 'integer')).toBe('float8_pow(double,double)->double')
    expect(bin('^', 'numeric', 'integer')).toBe('num_pow(numeric,numeric)->numeric')
  })
  it('unknown literals adopt the other operand type', () => {
    expect(bin('<', 'timestamp', 'unknown')).toBe('lt(timestamp,timestamp)->boolean')
    expect(bin('=', 'unknown', 'date')).toBe('eq(date,date)->boolean')
    expect(bin('+', 'unknown', 'integer')).toBe('int4_add(integer,integer)->integer')
    expect(bin('=', 'unknown', 'unknown')).toBe('eq(text,text)->boolean')
    expect(bin('=', 'boolean', 'unknown')).toBe('eq(boolean,boolean)->boolean')
    expect(bin('-', 'date', 'unknown')).toBe('date_sub_date(date,date)->integer')
    expect(bin('+', 'timestamp', 'unknown')).toBe('ts_add_interval(timestamp,interval)->timestamp')
  })
  it('ambiguous or impossible operators are undefined, as PG errors', () => {
    expect(bin('+', 'date', 'unknown')).toBeUndefined() // PG: operator is not unique: date + unknown
    expect(bin('+', 'unknown', 'unknown')).toBeUndefined() // PG: operator is not unique
    expect(bin('=', 'text', 'integer')).toBeUndefined()
    expect(bin('+', 'text', 'integer')).toBeUndefined()
    expect(bin('<', 'interval', 'timestamp')).toBeUndefined()
    expect(bin('like', 'integer', 'text')).toBeUndefined()
    expect(bin('??', 'integer', 'integer')).toBeUndefined()
  })
  it('comparisons across numeric types widen', () => {
    expect(bin('=', 'integer', 'bigint')).toBe('eq(bigint,bigint)->boolean')
    expect(bin('<', 'integer', 'numeric')).toBe('lt(numeric,numeric)->boolean')
    expect(bin('>=', 'numeric', 'double')).toBe('ge(double,double)->boolean')
    expect(bin('=', 'date', 'timestamp')).toBe('eq(timestamp,timestamp)->boolean')
    expect(bin('<>', 'text', 'text')).toBe('ne(text,text)->boolean')
    expect(bin('!=', 'integer', 'integer')).toBe('ne(integer,integer)->boolean')
  })
  it('intervals compare with their own ids', () => {
    expect(bin('=', 'interval', 'interval')).toBe('interval_eq(interval,interval)->boolean')
    expect(bin('<', 'interval', 'unknown')).toBe('interval_lt(interval,interval)->boolean')
  })
  it('|| concatenates text with anything non-text cast to text', () => {
    expect(bin('||', 'text', 'text')).toBe('text_concat(text,text)->text')
    expect(bin('||', 'unknown', 'integer')).toBe('text_concat(text,text)->text')
    expect(bin('||', 'boolean', 'text')).toBe('text_concat(text,text)->text')
    expect(bin('||', 'integer', 'integer')).toBeUndefined()
  })
  it('date/time arithmetic', () => {
    expect(bin('+', 'date', 'integer')).toBe('date_add_int(date,integer)->date')
    expect(bin('+', 'integer', 'date')).toBe('int_add_date(integer,date)->date')
    expect(bin('-', 'date', 'integer')).toBe('date_sub_int(date,integer)->date')
    expect(bin('-', 'date', 'date')).toBe('date_sub_date(date,date)->integer')
    expect(bin('+', 'date', 'interval')).toBe('date_add_interval(date,interval)->timestamp')
    expect(bin('-', 'date', 'interval')).toBe('date_sub_interval(date,interval)->timestamp')
    expect(bin('+', 'timestamp', 'interval')).toBe('ts_add_interval(timestamp,interval)->timestamp')
    expect(bin('+', 'interval', 'timestamp')).toBe('interval_add_ts(interval,timestamp)->timestamp')
    expect(bin('-', 'timestamp', 'interval')).toBe('ts_sub_interval(timestamp,interval)->timestamp')
    expect(bin('-', 'timestamp', 'timestamp')).toBe('ts_sub_ts(timestamp,timestamp)->interval')
    expect(bin('-', 'date', 'timestamp')).toBe('ts_sub_ts(timestamp,timestamp)->interval')
    expect(bin('+', 'interval', 'interval')).toBe('interval_add(interval,interval)->interval')
    expect(bin('*', 'interval', 'integer')).toBe('interval_mul(interval,double)->interval')
    expect(bin('*', 'numeric', 'interval')).toBe('float8_mul_interval(double,interval)->interval')
    expect(bin('/', 'interval', 'integer')).toBe('interval_div(interval,double)->interval')
  })
  it('like / ilike', () => {
    expect(bin('like', 'text', 'unknown')).toBe('like(text,text)->boolean')
    expect(bin('ilike', 'unknown', 'text')).toBe('ilike(text,text)->boolean')
    expect(fn('like', 'text', 'text', 'unknown')).toBe('like_escape(text,text,text)->boolean')
  })
  it('regular expression operators take text', () => {
    expect(bin('~', 'text', 'unknown')).toBe('regex_match(text,text)->boolean')
    expect(bin('~*', 'unknown', 'unknown')).toBe('regex_imatch(text,text)->boolean')
    expect(bin('!~', 'text', 'text')).toBe('regex_nmatch(text,text)->boolean')
    expect(bin('!~*', 'text', 'text')).toBe('regex_inmatch(text,text)->boolean')
    expect(bin('~', 'integer', 'unknown')).toBeUndefined()
  })
  it('bitwise integer operators', () => {
    expect(bin('&', 'integer', 'integer')).toBe('int4_and(integer,integer)->integer')
    expect(bin('<<', 'bigint', 'integer')).toBe('int8_shl(bigint,integer)->bigint')
    expect(resolveUnaryOperator('~', 'smallint')?.overload.id).toBe('int2_not')
  })
})

describe('unary operators', () => {
  it('negation per type', () => {
    expect(show(resolveUnaryOperator('-', 'integer'))).toBe('int4_neg(integer)->integer')
    expect(show(resolveUnaryOperator('-', 'numeric'))).toBe('num_neg(numeric)->numeric')
    expect(show(resolveUnaryOperator('-', 'interval'))).toBe('interval_neg(interval)->interval')
    expect(show(resolveUnaryOperator('+', 'double'))).toBe('float8_pos(double)->double')
    expect(resolveUnaryOperator('-', 'text')).toBeUndefined()
  })
})

describe('functions', () => {
  it('math overloads match pg_typeof', () => {
    expect(fn('round', 'integer')).toBe('round_float8(double)->double') // PG: double precision
    expect(fn('round', 'numeric')).toBe('round_num(numeric)->numeric')
    expect(fn('round', 'integer', 'integer')).toBe('round_num_int(numeric,integer)->numeric')
    expect(fn('round', 'double', 'integer')).toBeUndefined() // PG: function does not exist
    expect(fn('ceil', 'integer')).toBe('ceil_float8(double)->double')
    expect(fn('ceiling', 'numeric')).toBe('ceil_num(numeric)->numeric')
    expect(fn('abs', 'smallint')).toBe('int2_abs(smallint)->smallint')
    expect(fn('abs', 'real')).toBe('float4_abs(real)->real')
    expect(fn('mod', 'integer', 'bigint')).toBe('int8_mod(bigint,bigint)->bigint')
    expect(fn('power', 'integer', 'integer')).toBe('float8_pow(double,double)->double')
    expect(fn('sqrt', 'integer')).toBe('sqrt_float8(double)->double')
    expect(fn('log', 'integer', 'integer')).toBe('log_num_num(numeric,numeric)->numeric')
  })
  it('string functions accept untyped literals', () => {
    expect(fn('length', 'unknown')).toBe('length(text)->integer')
    expect(fn('char_length', 'text')).toBe('length(text)->integer')
    expect(fn('substring', 'text', 'integer')).toBe('substring2(text,integer)->text')
    expect(fn('substr', 'text', 'integer', 'smallint')).toBe('substring3(text,integer,integer)->text')
    expect(fn('trim', 'text')).toBe('btrim1(text)->text')
    expect(fn('lpad', 'text', 'integer', 'unknown')).toBe('lpad3(text,integer,text)->text')
    expect(fn('upper', 'integer')).toBeUndefined() // no implicit int → text
    expect(fn('lower', 'text', 'text')).toBeUndefined()
  })
  it('substring with a text or untyped second argument is the regular expression form, as in PG', () => {
    expect(fn('substring', 'text', 'unknown')).toBe('substring_regex(text,text)->text')
    expect(fn('substring', 'unknown', 'unknown')).toBe('substring_regex(text,text)->text')
    expect(fn('substring', 'text', 'text')).toBe('substring_regex(text,text)->text')
    expect(fn('substring', 'text', 'smallint')).toBe('substring2(text,integer)->text')
    expect(fn('substr', 'text', 'unknown')).toBe('substring2(text,integer)->text') // substr has no regex form
  })
  it('regexp_* overloads (PG 15)', () => {
    expect(fn('regexp_replace', 'text', 'unknown', 'unknown')).toBe('regexp_replace(text,text,text)->text')
    // an untyped 4th argument is flags; an integer one is the start position
    expect(fn('regexp_replace', 'text', 'unknown', 'unknown', 'unknown')).toBe('regexp_replace(text,text,text,text)->text')
    expect(fn('regexp_replace', 'text', 'unknown', 'unknown', 'integer')).toBe('regexp_replace_at(text,text,text,integer)->text')
    expect(fn('regexp_replace', 'text', 'unknown', 'unknown', 'integer', 'integer', 'unknown')).toBe('regexp_replace_at(text,text,text,integer,integer,text)->text')
    expect(fn('regexp_like', 'text', 'unknown', 'unknown')).toBe('regexp_like(text,text,text)->boolean')
    expect(fn('regexp_count', 'text', 'unknown', 'integer', 'unknown')).toBe('regexp_count(text,text,integer,text)->integer')
    expect(fn('regexp_substr', 'text', 'unknown', 'integer', 'integer', 'unknown', 'integer')).toBe('regexp_substr(text,text,integer,integer,text,integer)->text')
    expect(fn('regexp_instr', 'text', 'unknown', 'integer', 'integer', 'integer', 'unknown', 'integer')).toBe('regexp_instr(text,text,integer,integer,integer,text,integer)->integer')
    expect(fn('regexp_count', 'text', 'unknown', 'unknown')).toBe('regexp_count(text,text,integer)->integer')
    expect(fn('regexp_like', 'integer', 'unknown')).toBeUndefined()
  })
  it('polymorphic greatest/least use the common supertype and are non-strict', () => {
    const r = resolveFunction('greatest', ['integer', 'numeric', 'unknown'])!
    expect(r.overload.returns).toBe('numeric')
    expect(r.overload.strict).toBe(false)
    expect(r.argTypes).toEqual(['numeric', 'numeric', 'numeric'])
    expect(fn('least', 'integer', 'text')).toBeUndefined()
    expect(fn('least')).toBeUndefined()
  })
  it('concat keeps booleans (rendered t/f) and casts the rest to text', () => {
    const r = resolveFunction('concat', ['unknown', 'boolean', 'integer'])!
    expect(r.overload.id).toBe('concat')
    expect(r.overload.strict).toBe(false)
    expect(r.argTypes).toEqual(['text', 'boolean', 'text'])
    expect(resolveFunction('concat_ws', ['unknown', 'date'])!.argTypes).toEqual(['text', 'text'])
  })
  it('extract / date_part / date_trunc', () => {
    expect(fn('extract', 'unknown', 'timestamp')).toBe('extract_ts(text,timestamp)->numeric')
    expect(fn('extract', 'text', 'date')).toBe('extract_date(text,date)->numeric')
    expect(fn('extract', 'text', 'interval')).toBe('extract_interval(text,interval)->numeric')
    expect(fn('date_part', 'unknown', 'date')).toBe('date_part_ts(text,timestamp)->double')
    // a date promotes to timestamptz, the preferred date/time type (PostgreSQL: pg_typeof is
    // timestamp with time zone)
    expect(fn('date_trunc', 'unknown', 'date')).toBe('date_trunc_tstz(text,timestamptz)->timestamptz')
    expect(fn('date_trunc', 'unknown', 'timestamp')).toBe('date_trunc_ts(text,timestamp)->timestamp')
    expect(fn('date_trunc', 'unknown', 'interval')).toBe('date_trunc_interval(text,interval)->interval')
    expect(fn('to_timestamp', 'integer')).toBe('to_timestamp(double)->timestamptz')
  })
  it('volatile functions are flagged', () => {
    for (const name of ['now', 'current_timestamp', 'localtimestamp', 'current_date', 'random']) {
      expect(resolveFunction(name, [])?.overload.volatile, name).toBe(true)
    }
    expect(resolveFunction('lower', ['text'])?.overload.volatile).toBeUndefined()
  })
  it('make_interval accepts 0..7 positional args', () => {
    expect(fn('make_interval')).toBe('make_interval()->interval')
    expect(fn('make_interval', 'integer', 'integer', 'integer', 'integer', 'integer', 'integer', 'integer')).toBe(
      'make_interval(integer,integer,integer,integer,integer,integer,double)->interval',
    )
  })
  it('unknown functions', () => {
    expect(fn('no_such_function', 'integer')).toBeUndefined()
  })
  it('every overload is internally consistent', () => {
    for (const o of ALL_OVERLOADS) {
      expect(o.id.length).toBeGreaterThan(0)
      expect(typeof o.strict).toBe('boolean')
    }
  })
})

describe('casts', () => {
  it('implicit casts are PG promotions', () => {
    expect(canImplicitCast('smallint', 'bigint')).toBe(true)
    expect(canImplicitCast('integer', 'real')).toBe(true)
    expect(canImplicitCast('numeric', 'double')).toBe(true)
    expect(canImplicitCast('double', 'numeric')).toBe(false)
    expect(canImplicitCast('bigint', 'integer')).toBe(false)
    expect(canImplicitCast('date', 'timestamp')).toBe(true)
    expect(canImplicitCast('timestamp', 'date')).toBe(false)
    expect(canImplicitCast('integer', 'text')).toBe(false)
    expect(canImplicitCast('unknown', 'interval')).toBe(true)
  })
  it('assignment casts (explicit = false) allow narrowing and anything → text', () => {
    expect(canCast('double', 'integer', false)).toBe(true)
    expect(canCast('numeric', 'smallint', false)).toBe(true)
    expect(canCast('timestamp', 'date', false)).toBe(true)
    expect(canCast('integer', 'text', false)).toBe(true)
    expect(canCast('text', 'integer', false)).toBe(false)
    expect(canCast('boolean', 'integer', false)).toBe(false)
    expect(canCast('interval', 'timestamp', false)).toBe(false)
  })
  it('explicit casts', () => {
    expect(canCast('text', 'integer', true)).toBe(true)
    expect(canCast('text', 'interval', true)).toBe(true)
    expect(canCast('boolean', 'integer', true)).toBe(true)
    expect(canCast('integer', 'boolean', true)).toBe(true)
    expect(canCast('bigint', 'boolean', true)).toBe(false) // PG: cannot cast type bigint to boolean
    expect(canCast('date', 'integer', true)).toBe(false)
    expect(canCast('interval', 'text', true)).toBe(true)
    expect(canCast('timestamp', 'interval', true)).toBe(false)
  })
})

describe('commonSupertype', () => {
  it('follows PG select_common_type', () => {
    expect(commonSupertype(['integer', 'numeric'])).toBe('numeric')
    expect(commonSupertype(['integer', 'double'])).toBe('double')
    expect(commonSupertype(['smallint', 'integer', 'unknown'])).toBe('integer')
    expect(commonSupertype(['text', 'unknown'])).toBe('text')
    expect(commonSupertype(['unknown', 'unknown'])).toBe('text')
    expect(commonSupertype(['unknown', 'date'])).toBe('date')
    expect(commonSupertype(['date', 'timestamp'])).toBe('timestamp')
    expect(commonSupertype(['numeric', 'real'])).toBe('real')
    expect(commonSupertype(['interval', 'interval'])).toBe('interval')
    expect(commonSupertype(['boolean'])).toBe('boolean')
  })
  it('mismatched categories have none', () => {
    expect(commonSupertype(['integer', 'text'])).toBeUndefined()
    expect(commonSupertype(['boolean', 'integer'])).toBeUndefined()
    expect(commonSupertype(['date', 'interval'])).toBeUndefined()
    expect(commonSupertype([])).toBeUndefined()
  })
})
