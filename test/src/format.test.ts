// Goldens for psql-compatible output. Every expected string below was copied from psql 15
// (`psql -X -c ...` against PostgreSQL 15, UTF8 database), so the formatting is psql's, byte for byte.
import { describe, expect, it } from 'vitest'
import { formatAligned, formatError, formatResult } from '../../src/repl/format.js'
import { formatValue } from '../../src/sql-runtime/value-text.js'
import type { ColumnInfo, SqlTypeName } from '../../src/types.js'

const col = (name: string, type: SqlTypeName): ColumnInfo => ({ name, type })

describe('formatValue', () => {
  it('prints double precision like float8out (shortest round-trip, exponent outside [-4, 15))', () => {
    const cases: [number, string][] = [
      [1e15, '1e+15'],
      [123456789012345, '123456789012345'],
      [1e14, '100000000000000'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1e20, '1e+20'],
      [1e21, '1e+21'],
      [1e100, '1e+100'],
      [1e-300, '1e-300'],
      [1.5e-7, '1.5e-07'],
      [0.1, '0.1'],
      [0.1 + 0.2, '0.30000000000000004'],
      [1.5, '1.5'],
      [-0.5, '-0.5'],
      [100, '100'],
      [0, '0'],
      [-0, '-0'],
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [-Infinity, '-Infinity'],
      [1234567.125, '1234567.125'],
      [1.2345678901234567e15, '1.2345678901234568e+15'],
      [5e-324, '5e-324'],
      [Number.MAX_VALUE, '1.7976931348623157e+308'],
    ]
    for (const [v, s] of cases) expect(formatValue(v, 'double precision'), String(v)).toBe(s)
  })

  it('prints real like float4out (float32 shortest digits, exponent outside [-4, 6))', () => {
    const cases: [number, string][] = [
      [1e6, '1e+06'],
      [1e5, '100000'],
      [123456, '123456'],
      [1234567, '1.234567e+06'],
      [0.1, '0.1'],
      [Math.fround(0.1), '0.1'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [3.4e38, '3.4e+38'],
      [1.17549435e-38, '1.1754944e-38'],
      [16777216, '1.6777216e+07'],
      [1.5, '1.5'],
      [-0, '-0'],
      [NaN, 'NaN'],
    ]
    for (const [v, s] of cases) expect(formatValue(v, 'real'), String(v)).toBe(s)
  })

  it('prints numeric as the text it arrives in, and bigints beyond 2^53 exactly', () => {
    expect(formatValue('1.50', 'numeric')).toBe('1.50')
    expect(formatValue('-0.0000001', 'numeric')).toBe('-0.0000001')
    expect(formatValue(-3, 'numeric')).toBe('-3')
    expect(formatValue(2n ** 63n - 1n, 'bigint')).toBe('9223372036854775807')
  })

  it('prints integers, booleans, text, NULL and date/time strings', () => {
    expect(formatValue(42, 'integer')).toBe('42')
    expect(formatValue(-9007199254740991, 'bigint')).toBe('-9007199254740991')
    expect(formatValue(true, 'boolean')).toBe('t')
    expect(formatValue(false, 'boolean')).toBe('f')
    expect(formatValue('hello', 'text')).toBe('hello')
    expect(formatValue('', 'text')).toBe('')
    expect(formatValue(null, 'integer')).toBe('')
    expect(formatValue('2024-01-01 10:00:00', 'timestamp')).toBe('2024-01-01 10:00:00')
    expect(formatValue('1 day 02:00:00', 'interval')).toBe('1 day 02:00:00')
  })
})

describe('formatAligned (psql aligned format)', () => {
  it('two integer columns', () => {
    expect(formatAligned([col('a', 'integer'), col('b', 'integer')], [[1, 2]])).toBe(' a | b \n---+---\n 1 | 2\n(1 row)\n\n')
  })

  it('mixed types: numbers right-aligned, the rest left-aligned, NULL empty', () => {
    const columns = [
      col('id', 'integer'),
      col('name', 'text'),
      col('ok', 'boolean'),
      col('f', 'double precision'),
      col('n', 'numeric'),
      col('note', 'text'),
    ]
    const rows = [
      [1, 'alice', true, 1.5, '10.25', null],
      [-22, 'bob', false, 1e20, 3, 'x'],
    ]
    expect(formatAligned(columns, rows)).toBe(
      ' id  | name  | ok |   f   |   n   | note \n-----+-------+----+-------+-------+------\n   1 | alice | t  |   1.5 | 10.25 | \n -22 | bob   | f  | 1e+20 |     3 | x\n(2 rows)\n\n',
    )
  })

  it('numeric types', () => {
    const columns = [col('s', 'smallint'), col('b', 'bigint'), col('r', 'real'), col('nan', 'double precision'), col('neg', 'double precision')]
    expect(formatAligned(columns, [[5, 123456789012, 0.1, NaN, -0.5]])).toBe(
      ' s |      b       |  r  | nan | neg  \n---+--------------+-----+-----+------\n 5 | 123456789012 | 0.1 | NaN | -0.5\n(1 row)\n\n',
    )
  })

  it('no rows, no columns', () => {
    expect(formatAligned([col('a', 'integer')], [])).toBe(' a \n---\n(0 rows)\n\n')
    expect(formatAligned([], [[]])).toBe('--\n(1 row)\n\n')
  })

  it('multi-line values get + continuation marks', () => {
    const columns = [col('t', 'text'), col('n', 'integer'), col('z', 'text')]
    expect(formatAligned(columns, [['a\nbcd', 1, 'q']])).toBe(
      '  t  | n | z \n-----+---+---\n a  +| 1 | q\n bcd |   | \n(1 row)\n\n',
    )
  })

  it('multi-line headers and wide characters', () => {
    const columns = [col('multi\nline', 'integer'), col('w', 'text'), col('long header', 'text')]
    expect(formatAligned(columns, [[12, 'é日本', 'x']])).toBe(
      ' multi+|   w   | long header \n line  |       |             \n-------+-------+-------------\n    12 | é日本 | x\n(1 row)\n\n',
    )
  })

  it('tabs expand, control characters are escaped', () => {
    const columns = [col('t', 'text'), col('u', 'text'), col('v', 'text'), col('z', 'text')]
    expect(formatAligned(columns, [['a\tb', 'c\rd', 'e\x01f', 'x\n\n']])).toBe(
      '     t     |  u   |   v    | z \n-----------+------+--------+---\n a       b | c\\rd | e\\x01f | x+\n           |      |        |  +\n           |      |        | \n(1 row)\n\n',
    )
  })
})

describe('formatAligned expanded (psql \\x)', () => {
  it('records with multi-line values', () => {
    const columns = [col('a', 'integer'), col('bb', 'text'), col('c', 'text')]
    const rows = [
      [1, 'hello', null],
      [2, 'x\nyy', 'z'],
    ]
    expect(formatAligned(columns, rows, { expanded: true })).toBe(
      '-[ RECORD 1 ]\na  | 1\nbb | hello\nc  | \n-[ RECORD 2 ]\na  | 2\nbb | x    +\n   | yy\nc  | z\n\n',
    )
  })

  it('record header dashes fill the width', () => {
    const columns = [col('a', 'text'), col('bbbbbbbbbb', 'integer')]
    expect(formatAligned(columns, [['abcdefghijklmnopqrstuv', 1]], { expanded: true })).toBe(
      '-[ RECORD 1 ]----------------------\na          | abcdefghijklmnopqrstuv\nbbbbbbbbbb | 1\n\n',
    )
    const long = [col('a very long column name here', 'integer'), col('two\nlines', 'integer')]
    expect(formatAligned(long, [[1, 2]], { expanded: true })).toBe(
      '-[ RECORD 1 ]----------------+--\na very long column name here | 1\ntwo                         +| 2\nlines                        |\n\n',
    )
  })

  it('no rows', () => {
    expect(formatAligned([col('a', 'integer')], [], { expanded: true })).toBe('(0 rows)\n\n')
  })
})

describe('formatResult', () => {
  it('prints command tags for statements without rows', () => {
    expect(formatResult({ command: 'CREATE TABLE', rowCount: 0 })).toBe('CREATE TABLE\n')
    expect(formatResult({ command: 'INSERT 0 2', rowCount: 2 })).toBe('INSERT 0 2\n')
  })
  it('prints a table for statements with rows', () => {
    expect(formatResult({ command: 'SELECT 1', rowCount: 1, columns: [col('a', 'integer')], rows: [[1]] })).toBe(' a \n---\n 1\n(1 row)\n\n')
  })
})

describe('formatError (libpq error position report)', () => {
  it('prints the message alone without a position', () => {
    expect(formatError('relation "t" does not exist')).toBe('ERROR:  relation "t" does not exist\n')
  })
  it('prints DETAIL after the position', () => {
    expect(formatError('duplicate key value violates unique constraint "t_pkey"', undefined, undefined, 'Key (a)=(1) already exists.')).toBe(
      'ERROR:  duplicate key value violates unique constraint "t_pkey"\nDETAIL:  Key (a)=(1) already exists.\n',
    )
  })
  it('marks the position with a caret', () => {
    expect(formatError('syntax error at or near "selec"', 'selec 1', 0)).toBe(
      'ERROR:  syntax error at or near "selec"\nLINE 1: selec 1\n        ^\n',
    )
    expect(formatError('syntax error at end of input', 'select 1 +', 10)).toBe(
      'ERROR:  syntax error at end of input\nLINE 1: select 1 +\n                  ^\n',
    )
    const q = 'select 1 as a; select nosuch; select 2'
    expect(formatError('column "nosuch" does not exist', q, q.indexOf('nosuch'))).toBe(
      'ERROR:  column "nosuch" does not exist\nLINE 1: select 1 as a; select nosuch; select 2\n                              ^\n',
    )
  })
  it('counts lines and shows only the line of the error', () => {
    const q = 'select\n  2 as b,\n  nosuch as c;'
    expect(formatError('column "nosuch" does not exist', q, q.indexOf('nosuch'))).toBe(
      'ERROR:  column "nosuch" does not exist\nLINE 3:   nosuch as c;\n          ^\n',
    )
  })
  it('replaces tabs with spaces', () => {
    const q = 'select\t1\t+\tnosuch'
    expect(formatError('column "nosuch" does not exist', q, q.indexOf('nosuch'))).toBe(
      'ERROR:  column "nosuch" does not exist\nLINE 1: select 1 + nosuch\n                   ^\n',
    )
  })
  it('truncates long lines around the position like libpq', () => {
    const nums = (from: number, to: number): string =>
      Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).join(', ')
    const msg = 'ERROR:  column "nosuch" does not exist\n'
    const middle = `select ${nums(1, 24)}, nosuch, ${nums(25, 35)}`
    expect(formatError('column "nosuch" does not exist', middle, middle.indexOf('nosuch'))).toBe(
      msg +
        'LINE 1: ..., 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, nosuch, 25...\n' +
        '                                                             ^\n',
    )
    const early = `select 1, nosuch, ${nums(3, 35)}`
    expect(formatError('column "nosuch" does not exist', early, early.indexOf('nosuch'))).toBe(
      msg + 'LINE 1: select 1, nosuch, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 1...\n' + '                  ^\n',
    )
    const late = `select 1, ${nums(3, 35)}, nosuch`
    expect(formatError('column "nosuch" does not exist', late, late.indexOf('nosuch'))).toBe(
      msg +
        'LINE 1: ..., 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, nosuch\n' +
        '                                                                 ^\n',
    )
  })
})
