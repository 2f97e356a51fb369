import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  compareResult,
  detectLayout,
  formatFixed3,
  formatFloat,
  hashValues,
  renderRows,
  renderValue,
  sortedValues,
} from '../../sqllogictest/compare.js'
import type { RenderOptions } from '../../sqllogictest/compare.js'

const classic: RenderOptions = { flavour: 'classic', floatFormat: 'fixed3' }
const modern: RenderOptions = { flavour: 'modern', floatFormat: 'shortest' }

describe('rendering', () => {
  it('renders NULL and empty strings', () => {
    for (const o of [classic, modern]) {
      expect(renderValue(null, 'I', 'integer', o)).toBe('NULL')
      expect(renderValue('', 'T', 'text', o)).toBe('(empty)')
    }
    expect(renderValue('', 'I', 'text', classic)).toBe('0')
  })

  it('renders classic I like sqlite3_column_int', () => {
    expect(renderValue(7, 'I', 'integer', classic)).toBe('7')
    expect(renderValue(-7.9, 'I', 'double precision', classic)).toBe('-7')
    expect(renderValue(-0.5, 'I', 'double precision', classic)).toBe('0')
    expect(renderValue('12abc', 'I', 'text', classic)).toBe('12')
    expect(renderValue('abc', 'I', 'text', classic)).toBe('0')
    expect(renderValue(true, 'I', 'boolean', classic)).toBe('1')
  })

  it('renders classic R as %.3f with round-half-even ties', () => {
    expect(renderValue(2, 'R', 'integer', classic)).toBe('2.000')
    expect(renderValue(1 / 3, 'R', 'double precision', classic)).toBe('0.333')
    expect(formatFixed3(0.0625)).toBe('0.062')
    expect(formatFixed3(0.1875)).toBe('0.188')
    expect(formatFixed3(-0.0625)).toBe('-0.062')
    expect(formatFixed3(-0.0001)).toBe('-0.000')
    expect(formatFixed3(2.5)).toBe('2.500')
    expect(formatFixed3(-9223372036854775808)).toBe('-9223372036854776000.000')
    expect(formatFixed3(-18446744073709551616)).toBe('-18446744073709550000.000')
    expect(formatFixed3(12345678901234.567)).toBe('12345678901234.570')
  })

  it('renders classic text with @ for control and non-ASCII bytes', () => {
    expect(renderValue('a\tb', 'T', 'text', classic)).toBe('a@b')
    expect(renderValue('é', 'T', 'text', classic)).toBe('@@')
    expect(renderValue('é', 'T', 'text', modern)).toBe('é')
    expect(renderValue(2, 'T', 'double precision', classic)).toBe('2.0')
    expect(renderValue(2.5, 'T', 'double precision', classic)).toBe('2.5')
  })

  it('renders modern values in Postgres text form', () => {
    expect(renderValue(true, 'B', 'boolean', modern)).toBe('t')
    expect(renderValue(false, 'T', 'boolean', modern)).toBe('f')
    expect(renderValue(2.5, 'I', 'numeric', modern)).toBe('2.5')
    expect(renderValue(0.1 + 0.2, 'R', 'double precision', modern)).toBe('0.30000000000000004')
    expect(renderValue('2024-01-01 10:00:00', 'P', 'timestamp', modern)).toBe('2024-01-01 10:00:00')
    expect(renderValue(1.5, 'R', 'double precision', { flavour: 'modern', floatFormat: 'fixed3' })).toBe('1.500')
  })

  it('formats floats as Postgres float8out/float4out', () => {
    expect(formatFloat(1e15)).toBe('1e+15')
    expect(formatFloat(1e14)).toBe('100000000000000')
    expect(formatFloat(123456789012345.6)).toBe('123456789012345.6')
    expect(formatFloat(0.0001)).toBe('0.0001')
    expect(formatFloat(0.00001)).toBe('1e-05')
    expect(formatFloat(1.5e-5)).toBe('1.5e-05')
    expect(formatFloat(1e301)).toBe('1e+301')
    expect(formatFloat(1)).toBe('1')
    expect(formatFloat(NaN)).toBe('NaN')
    expect(formatFloat(-Infinity)).toBe('-Infinity')
    expect(formatFloat(0.1, true)).toBe('0.1')
    expect(formatFloat(1e6, true)).toBe('1e+06')
    expect(formatFloat(1234567, true)).toBe('1.234567e+06')
    expect(formatFloat(0.0001, true)).toBe('0.0001')
  })
})

describe('sorting and hashing', () => {
  it('rowsort compares rendered strings column by column (strcmp)', () => {
    const rows = [
      ['9', 'a'],
      ['10', 'b'],
      ['NULL', 'c'],
      ['10', 'a'],
    ]
    expect(sortedValues(rows, 'rowsort')).toEqual(['10', 'a', '10', 'b', '9', 'a', 'NULL', 'c'])
    expect(sortedValues(rows, 'valuesort')).toEqual(['10', '10', '9', 'NULL', 'a', 'a', 'b', 'c'])
    expect(sortedValues(rows, 'nosort')).toEqual(['9', 'a', '10', 'b', 'NULL', 'c', '10', 'a'])
  })

  it('hashes values each followed by a newline', () => {
    const want = createHash('md5').update('1\n2\n').digest('hex')
    expect(hashValues(['1', '2'])).toBe(want)
    expect(compareResult([['2'], ['1']], { expected: [`2 values hashing to ${want}`], ncols: 1, sort: 'rowsort', layout: 'auto' })).toEqual({ ok: true, hash: want })
    const bad = compareResult([['2'], ['1']], { expected: [`2 values hashing to ${want}`], ncols: 1, sort: 'nosort', layout: 'auto' })
    expect(bad.ok).toBe(false)
  })
})

describe('comparing', () => {
  const spec = (expected: string[], ncols: number, sort: 'nosort' | 'rowsort' | 'valuesort' = 'nosort') => ({ expected, ncols, sort, layout: 'auto' as const })

  it('accepts value-wise and row-wise layouts', () => {
    const rows = [
      ['1', 'a'],
      ['2', 'NULL'],
    ]
    expect(compareResult(rows, spec(['1', 'a', '2', 'NULL'], 2)).ok).toBe(true)
    expect(compareResult(rows, spec(['1 a', '2\tNULL'], 2)).ok).toBe(true)
    expect(compareResult(rows, spec(['1  a', '2 b'], 2)).ok).toBe(false)
  })

  it('detects the layout from the expected block', () => {
    expect(detectLayout(['1', 'a'], 2, 'auto')).toBe('valuewise')
    expect(detectLayout(['1 a'], 2, 'auto')).toBe('rowwise')
    expect(detectLayout(['1 a'], 2, 'valuewise')).toBe('valuewise')
    expect(detectLayout(['a b c'], 1, 'auto')).toBe('rowwise')
  })

  it('handles values containing spaces in row-wise layout', () => {
    const rows = [
      ['2024-01-01 10:00:00', '1'],
      ['2024-01-01 09:00:00', '2'],
    ]
    expect(compareResult(rows, spec(['2024-01-01 09:00:00   2', '2024-01-01 10:00:00 1'], 2, 'rowsort')).ok).toBe(true)
    expect(compareResult(rows, spec(['2024-01-01 09:00:00 2', '2024-01-01 10:00:00 1'], 2, 'nosort')).ok).toBe(false)
    expect(compareResult(rows, spec(['1 2', '2024-01-01 09:00:00 2024-01-01 10:00:00'], 2, 'valuesort')).ok).toBe(true)
  })

  it('sorts the expected side for rowsort and valuesort', () => {
    const rows = [
      ['1', 'x'],
      ['2', 'y'],
    ]
    expect(compareResult(rows, spec(['2', 'y', '1', 'x'], 2, 'rowsort')).ok).toBe(true)
    expect(compareResult(rows, spec(['2', 'y', '1', 'x'], 2, 'nosort')).ok).toBe(false)
    expect(compareResult(rows, spec(['x', 'y', '2', '1'], 2, 'valuesort')).ok).toBe(true)
  })

  it('reports counts and compact rows on mismatch', () => {
    const out = compareResult([['1']], spec(['1', '2'], 1))
    expect(out).toMatchObject({ ok: false, reason: 'expected 2 rows, got 1', expected: ['1', '2'], actual: ['1'] })
    const vw = compareResult(
      [
        ['1', 'a'],
        ['2', 'b'],
      ],
      spec(['1', 'a', '2', 'c'], 2),
    )
    expect(vw).toMatchObject({ ok: false, reason: 'result mismatch', expected: ['1 a', '2 c'], actual: ['1 a', '2 b'] })
  })

  it('treats an empty expected block as an empty result', () => {
    expect(compareResult([], spec([], 3)).ok).toBe(true)
    expect(compareResult([['1', '2', '3']], spec([], 3)).ok).toBe(false)
  })
})
