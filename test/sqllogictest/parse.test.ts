import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expandGlob, loadSlt, parseDuration, parseErrorMatcher, parseSlt } from '../../sqllogictest/parse.js'
import type { QueryRecord, StatementRecord, UnsupportedRecord } from '../../sqllogictest/parse.js'

describe('parseSlt', () => {
  it('parses classic statements and queries, stripping comments inside records', () => {
    const recs = parseSlt(
      [
        'hash-threshold 8',
        '',
        '# a comment',
        'statement ok',
        'CREATE TABLE t(a INTEGER,',
        '# comment inside a record',
        '  b INTEGER)',
        '',
        'skipif mysql # not compatible',
        'onlyif postgresql',
        'query II rowsort label-7',
        'SELECT a, b',
        'FROM t',
        '----',
        '1',
        'NULL',
        '',
        'query I nosort',
        'SELECT 1 WHERE false',
        '',
      ].join('\n'),
      'x.test',
    )
    expect(recs.map((r) => r.kind)).toEqual(['hash-threshold', 'statement', 'query', 'query'])
    const st = recs[1] as StatementRecord
    expect(st.sql).toBe('CREATE TABLE t(a INTEGER,\n  b INTEGER)')
    expect(st.line).toBe(4)
    const q = recs[2] as QueryRecord
    expect(q.conditions).toEqual([
      { kind: 'skipif', engine: 'mysql' },
      { kind: 'onlyif', engine: 'postgresql' },
    ])
    expect(q).toMatchObject({ types: 'II', sortMode: 'rowsort', label: 'label-7', sql: 'SELECT a, b\nFROM t', expected: ['1', 'NULL'], line: 11, startLine: 9 })
    const empty = recs[3] as QueryRecord
    expect(empty.expected).toEqual([])
    expect(empty.sortMode).toBe('nosort')
  })

  it('handles CRLF line endings', () => {
    const recs = parseSlt('statement ok\r\nSELECT 1\r\n\r\nquery I\r\nSELECT 1\r\n----\r\n1\r\n')
    expect(recs.length).toBe(2)
    expect((recs[1] as QueryRecord).expected).toEqual(['1'])
    expect((recs[1] as QueryRecord).sortMode).toBeUndefined()
  })

  it('parses statement error forms', () => {
    const recs = parseSlt(
      [
        'statement error',
        'SELECT 1/0',
        '',
        'statement error (22012)',
        'SELECT 1/0',
        '',
        'statement error division by zero',
        'SELECT 1/0',
        '',
        'statement error',
        'SELECT 1/0',
        '----',
        'division by zero',
        '',
        '',
        'statement count 2',
        'INSERT INTO t VALUES (1), (2)',
        '',
        'statement error pgcode 23505 duplicate key',
        'INSERT INTO t VALUES (1)',
      ].join('\n'),
    )
    const ex = recs.map((r) => (r as StatementRecord).expect)
    expect(ex[0]).toEqual({ kind: 'error', error: {} })
    expect(ex[1]).toEqual({ kind: 'error', error: { sqlstate: '22012' } })
    expect(ex[2]).toEqual({ kind: 'error', error: { regex: 'division by zero' } })
    expect(ex[3]).toEqual({ kind: 'error', error: { exact: 'division by zero' } })
    expect(ex[4]).toEqual({ kind: 'count', count: 2 })
    expect(ex[5]).toEqual({ kind: 'error', error: { sqlstate: '23505', regex: 'duplicate key' } })
    expect((recs[3] as StatementRecord).sql).toBe('SELECT 1/0')
  })

  it('parses query error, options and delta', () => {
    const recs = parseSlt(
      [
        'query error by zero',
        'SELECT 1/0',
        '',
        'query IT rowsort,colnames',
        'SELECT 1 AS a, 2 AS b',
        '----',
        'a b',
        '1 2',
        '',
        'query I rowsort retry 3 backoff 5s',
        'SELECT 1',
        '----',
        '1',
        '',
        'query II delta S',
        '----',
        '1 15 1',
        '',
        'query T multiline',
        'EXPLAIN SELECT 1',
        '----',
        'Project',
        '',
        '  Values',
        'EOF',
        '',
        'query I partialsort(1) weird',
        'SELECT 1',
      ].join('\n'),
    )
    expect(recs.map((r) => r.kind)).toEqual(['query', 'query', 'query', 'query', 'query', 'query'])
    const [e, c, retry, d, m, p] = recs as QueryRecord[]
    expect(e!.error).toEqual({ regex: 'by zero' })
    expect(c).toMatchObject({ colnames: true, sortMode: 'rowsort', expected: ['a b', '1 2'] })
    expect(retry).toMatchObject({ sortMode: 'rowsort', label: undefined })
    expect(d).toMatchObject({ delta: 's', types: 'II', sql: '', expected: ['1 15 1'] })
    expect(m).toMatchObject({ multiline: true, expected: ['Project', '', '  Values'] })
    expect(p).toMatchObject({ sortMode: 'rowsort', label: 'weird' })
  })

  it('parses directives and counts unknown directives as unsupported', () => {
    const recs = parseSlt(
      ['onlyif mssql', 'halt', '', 'sleep 1s', '', 'include foo/*.slt.part', '', 'control resultmode valuewise', '', 'mode cockroach', '', 'system ok', 'echo hi', '', 'frobnicate', '', 'subtest x'].join('\n'),
    )
    expect(recs.map((r) => r.kind)).toEqual(['halt', 'sleep', 'include', 'control', 'mode', 'unsupported', 'unsupported', 'ignored'])
    expect(recs.filter((r): r is UnsupportedRecord => r.kind === 'unsupported').map((r) => r.directive)).toEqual(['system', 'frobnicate'])
    expect(recs[0]!.conditions).toEqual([{ kind: 'onlyif', engine: 'mssql' }])
  })

  it('reads sleep durations (the clock moves on by them); one it cannot read is ignored', () => {
    expect(['500ms', '2s', '1h30m', '1 day', '1.5s'].map(parseDuration)).toEqual([500, 2000, 5_400_000, 86_400_000, 1500])
    expect(['', '5', 'soon', '2 fortnights'].map(parseDuration)).toEqual([undefined, undefined, undefined, undefined])
    expect(parseSlt('sleep 2h\n\nsleep forever\n').map((r) => (r.kind === 'sleep' ? r.ms : r.kind))).toEqual([7_200_000, 'ignored'])
  })

  it('parses error matchers', () => {
    expect(parseErrorMatcher('')).toEqual({})
    expect(parseErrorMatcher(' (42p01) ')).toEqual({ sqlstate: '42P01' })
    expect(parseErrorMatcher('relation "x" does not exist')).toEqual({ regex: 'relation "x" does not exist' })
  })
})

describe('loadSlt', () => {
  it('expands includes relative to the including file, in sorted order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slt-'))
    mkdirSync(join(dir, 'parts'))
    writeFileSync(join(dir, 'parts', 'b.slt.part'), 'statement ok\nSELECT 2\n')
    writeFileSync(join(dir, 'parts', 'a.slt.part'), 'statement ok\nSELECT 1\n')
    writeFileSync(join(dir, 'main.slt'), 'include parts/*.slt.part\n\nstatement ok\nSELECT 3\n\ninclude nothing/*.part\n')
    const recs = loadSlt(join(dir, 'main.slt'))
    expect(recs.map((r) => (r.kind === 'statement' ? r.sql : r.kind))).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3', 'invalid'])
    expect(recs[0]!.file).toBe(join(dir, 'parts', 'a.slt.part'))
    expect(expandGlob('**/*.part', dir)).toEqual([join(dir, 'parts', 'a.slt.part'), join(dir, 'parts', 'b.slt.part')])
  })
})
