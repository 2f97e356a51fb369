// The one text limit (src/sql-runtime/text-limit.ts): functions that build long texts refuse past it with
// 54000 before allocating, and a V8 RangeError for a too-long string is a 54000 too, never an
// internal error.

import { describe, expect, it } from 'vitest'
import { RivuletError } from '../../grammar/index.js'
import { Engine } from '../../src/engine/engine.js'
import { FUNCTIONS } from '../../src/sql-runtime/functions.js'
import { MAX_TEXT_LENGTH, allocationLimitError, checkTextLength } from '../../src/sql-runtime/text-limit.js'

function code(f: () => unknown): string | undefined {
  try {
    f()
    return undefined
  } catch (e) {
    return e instanceof RivuletError ? `${e.code} ${e.message}` : `thrown ${String(e)}`
  }
}

describe('text limit', () => {
  it('is 2^28 code units, half what V8 can build', () => {
    expect(MAX_TEXT_LENGTH).toBe(268435456)
    expect(() => checkTextLength(MAX_TEXT_LENGTH)).not.toThrow()
    expect(code(() => checkTextLength(MAX_TEXT_LENGTH, 1))).toBe('54000 out of memory')
  })

  it('V8 RangeErrors for too-large values become 54000, others stay', () => {
    let v8error: unknown
    try {
      'x'.repeat(2 ** 30)
    } catch (e) {
      v8error = e
    }
    expect(allocationLimitError(v8error)?.code).toBe('54000')
    expect(allocationLimitError(new RangeError('Maximum call stack size exceeded'))).toBeUndefined()
    expect(allocationLimitError(new TypeError('x'))).toBeUndefined()
  })

  it('each function refuses before allocating', () => {
    const f = FUNCTIONS as Record<string, (...a: unknown[]) => unknown>
    const big = 'ab'.repeat(2 ** 26) // 2^27 units, a rope: nothing is flattened
    expect(code(() => f.repeat!('ab', 2 ** 27 + 1))).toBe('54000 requested length too large')
    expect(code(() => f.lpad2!('x', 2147483647))).toBe('54000 requested length too large')
    expect(code(() => f.rpad3!('x', MAX_TEXT_LENGTH, '😀'))).toBe('54000 requested length too large')
    expect(code(() => f.text_concat!(big + big, 'x'))).toBe('54000 out of memory')
    expect(code(() => f.concat!(big, big, 'x'))).toBe('54000 out of memory')
    expect(code(() => f.concat_ws!('-', big, big))).toBe('54000 out of memory')
    expect(code(() => f.replace!('a'.repeat(2 ** 27), 'a', 'aaa'))).toBe('54000 out of memory')
    expect(code(() => f.upper!('ß'.repeat(2 ** 27 + 1)))).toBe('54000 out of memory')
    // at the limit exactly: fine
    expect((f.repeat!('ab', 2 ** 27) as string).length).toBe(MAX_TEXT_LENGTH)
  })

  it('through the engine: repeat(…, 200000000) and friends are statement errors', () => {
    const db = new Engine()
    expect(code(() => db.execute("SELECT repeat('ab', 200000000)"))).toBe('54000 requested length too large')
    expect(code(() => db.execute("SELECT repeat('ab', 134217728) || 'x'"))).toBe('54000 out of memory')
    expect(code(() => db.execute("SELECT regexp_replace(repeat('a', 100000000), 'a', 'bcd', 'g')"))).toBe('54000 out of memory')
    db.execute('CREATE TABLE big (s TEXT)')
    db.execute("INSERT INTO big VALUES (repeat('x', 100000000)), (repeat('y', 100000000)), (repeat('z', 100000000))")
    expect(code(() => db.execute("SELECT string_agg(s, ',') FROM big"))).toBe('54000 out of memory')
    expect(db.execute('SELECT count(*) FROM big')[0]!.rows).toEqual([[3]])
  })
})
