// jsonb values: input and output as PostgreSQL 15 has them (normalized keys, exact numbers,
// escapes, its error details), the btree order (checked against an order PostgreSQL printed),
// equality and hash keys, and properties over random JSON: text round trips, the order is a
// total order that agrees with equality and the hash key.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError } from '../../grammar/errors.js'
import { parseJsonb, parseStoredJsonb } from '../../src/sql-runtime/jsonb-parse.js'
import { compareJsonb, equalJsonb, jsonbContains } from '../../src/sql-runtime/jsonb-order.js'
import { JsonbValue, prettyNode } from '../../src/sql-runtime/jsonb-value.js'
import { jsonbOfJs } from '../../src/sql-runtime/jsonb-functions.js'

const j = parseJsonb

function errorOf(text: string): { code: string; message: string; detail: string | undefined } {
  try {
    parseJsonb(text)
  } catch (e) {
    const r = e as RivuletError
    return { code: r.code, message: r.message, detail: r.detail }
  }
  throw new Error(`${text} parsed`)
}

describe('jsonb text', () => {
  it('prints as jsonb_out: keys by length then bytes, the last duplicate, exact numbers', () => {
    expect(String(j('{"b": [1, 2.50, 1e3], "a": null, "aa": "x\\u00e9\\n\\u0001", "a": true}'))).toBe('{"a": true, "b": [1, 2.50, 1000], "aa": "xé\\n\\u0001"}')
    expect(String(j(' [ -0 , -0.0 , 1E+2 , 1e-3 , "\\/\\b\\"" ] '))).toBe('[0, 0.0, 100, 0.001, "/\\b\\""]')
    expect(String(j('{}'))).toBe('{}')
    expect(String(j('"\\ud83d\\ude00"'))).toBe('"😀"')
    // keys by UTF-8 length (é is 2 bytes, as ab), then bytes (PostgreSQL 15 printed this)
    expect(String(j('{"é": 1, "z": 2, "ab": 3}'))).toBe('{"z": 2, "ab": 3, "é": 1}')
  })

  it('refuses invalid input with PostgreSQL details', () => {
    const cases: [string, string][] = [
      ['x', 'Token "x" is invalid.'],
      ['{"a":', 'The input string ended unexpectedly.'],
      ['[1,]', 'Expected JSON value, but found "]".'],
      ['01', 'Token "01" is invalid.'],
      ['1.', 'Token "1." is invalid.'],
      ['.5', 'Token "." is invalid.'],
      ['-', 'Token "-" is invalid.'],
      ['+1', 'Token "+" is invalid.'],
      ['tru', 'Token "tru" is invalid.'],
      ['1ea', 'Token "1ea" is invalid.'],
      ['[1 2]', 'Expected "," or "]", but found "2".'],
      ['["a" "b"]', 'Expected "," or "]", but found ""b"".'],
      ['{1:2}', 'Expected string or "}", but found "1".'],
      ['{"a" 2}', 'Expected ":", but found "2".'],
      ['{"a":2,}', 'Expected string, but found "}".'],
      ['{"a":1 "b"}', 'Expected "," or "}", but found ""b"".'],
      ['[1] x', 'Token "x" is invalid.'],
      ['"abc', 'Token ""abc" is invalid.'],
      ['"a\\xb"', 'Escape sequence "\\x" is invalid.'],
      ['"a\\u12"', '"\\u" must be followed by four hexadecimal digits.'],
      ['"a\nb"', 'Character with value 0x0a must be escaped.'],
      ['"\\ud800"', 'Unicode low surrogate must follow a high surrogate.'],
      ['', 'The input string ended unexpectedly.'],
    ]
    for (const [text, detail] of cases) expect(errorOf(text), text).toEqual({ code: '22P02', message: 'invalid input syntax for type json', detail })
    expect(errorOf('"\\u0000"')).toMatchObject({ code: '22P05', message: 'unsupported Unicode escape sequence' })
  })

  it('refuses nesting past the limit on input, not when read back from storage', () => {
    const deep = '['.repeat(1001) + ']'.repeat(1001)
    expect(errorOf(deep).code).toBe('54001')
    expect(String(parseStoredJsonb(deep))).toBe(deep)
  })

  it('pretty-prints as jsonb_pretty', () => {
    expect(prettyNode(j('{"a": [1, {"b": null}], "c": {}, "d": []}').root)).toBe('{\n    "a": [\n        1,\n        {\n            "b": null\n        }\n    ],\n    "c": {\n    },\n    "d": [\n    ]\n}')
  })

  it('reads JS values of the API', () => {
    expect(String(jsonbOfJs({ b: [1, 2.5, null], a: { c: true } }))).toBe('{"a": {"c": true}, "b": [1, 2.5, null]}')
    expect(String(jsonbOfJs(12345678901234567890n))).toBe('12345678901234567890')
    expect(jsonbOfJs(undefined)).toBeUndefined()
  })
})

describe('jsonb order and equality', () => {
  it('sorts as PostgreSQL 15 sorted these values', () => {
    // SELECT j FROM (VALUES …) v(j) ORDER BY j, j::text on PostgreSQL 15
    // (the empty array first: a top-level scalar is a one-element array to the order)
    const pg = ['[]', 'null', '"a"', '"b"', '1.0', '2', '10', 'false', 'true', '[1]', '[0, 0]', '{}', '{"aa": 1}', '{"b": 1}', '{"a": 1, "b": 2}']
    const shuffled = [...pg].reverse().map((t) => j(t))
    const sorted = shuffled.sort((a, b) => compareJsonb(a, b) || (String(a) < String(b) ? -1 : 1)).map(String)
    expect(sorted).toEqual(pg)
    // raw scalars against arrays, as compareJsonbContainers has them
    expect(compareJsonb(j('1'), j('[]'))).toBe(1)
    expect(compareJsonb(j('1'), j('[1]'))).toBe(-1)
    expect(compareJsonb(j('1'), j('[1, 2]'))).toBe(-1)
    expect(compareJsonb(j('[[1]]'), j('[2]'))).toBe(1)
  })

  it('equates numbers by value: 1.0 = 1, and their hash keys agree', () => {
    expect(equalJsonb(j('[1.0, {"a": 2.50}]'), j('[1, {"a": 2.5}]'))).toBe(true)
    expect(j('[1.0, {"a": 2.50}]').hashKey).toBe(j('[1, {"a": 2.5}]').hashKey)
    expect(String(j('1.0'))).not.toBe(String(j('1')))
    expect(equalJsonb(j('"1"'), j('1'))).toBe(false)
  })

  it('contains as @> does', () => {
    expect(jsonbContains(j('{"a": 1, "b": [1, 2]}'), j('{"b": [2]}'))).toBe(true)
    expect(jsonbContains(j('[1, 2]'), j('1'))).toBe(true)
    expect(jsonbContains(j('1'), j('[1]'))).toBe(false)
    expect(jsonbContains(j('[1, [2, 3]]'), j('[[2]]'))).toBe(true)
    expect(jsonbContains(j('[1, 2]'), j('[[1]]'))).toBe(false)
    expect(jsonbContains(j('{"a": [1, 2]}'), j('{"a": 1}'))).toBe(false)
    expect(jsonbContains(j('[1.0]'), j('[1]'))).toBe(true)
  })
})

/** Random JSON text, with numbers spelled in several ways. */
const numberText = fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.constantFrom('1.0', '2.50', '-0', '0.001', '1e3', '12345678901234567890.5'))
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberText,
    fc.constantFrom('null', 'true', 'false'),
    fc.string({ maxLength: 4 }).map((s) => JSON.stringify(s)),
    fc.array(tie('value'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    fc.array(fc.tuple(fc.constantFrom('a', 'b', 'aa', 'é', ''), tie('value')), { maxLength: 3 }).map((ps) => `{${ps.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).value

describe('jsonb properties', () => {
  it('text round trips: parse(print(x)) prints the same, and is equal with the same hash key', () => {
    fc.assert(
      fc.property(jsonText, (t) => {
        const a = j(t)
        const b = j(String(a))
        expect(String(b)).toBe(String(a))
        expect(b.hashKey).toBe(a.hashKey)
        expect(compareJsonb(a, b)).toBe(0)
      }),
      { numRuns: 500 },
    )
  })

  it('the order is total and agrees with equality and the hash key', () => {
    fc.assert(
      fc.property(jsonText, jsonText, jsonText, (x, y, z) => {
        const [a, b, c] = [j(x), j(y), j(z)]
        const ab = compareJsonb(a, b)
        expect(Math.sign(compareJsonb(b, a)) + Math.sign(ab)).toBe(0)
        expect(ab === 0).toBe(a.hashKey === b.hashKey)
        expect(ab === 0).toBe(equalJsonb(a, b))
        if (ab <= 0 && compareJsonb(b, c) <= 0) expect(compareJsonb(a, c)).toBeLessThanOrEqual(0)
        // a value contains itself
        expect(jsonbContains(a, a)).toBe(true)
        expect(a).toBeInstanceOf(JsonbValue)
      }),
      { numRuns: 1000 },
    )
  })
})
