// Error goldens: message, SQLSTATE and 1-based line/column of syntax errors, rendered with a
// caret the way the REPL shows them.

import { describe, expect, it } from 'vitest'
import { RivuletError, parse, parseExpression } from '../../grammar/index.js'

function caught(fn: () => unknown): RivuletError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(RivuletError)
    return e as RivuletError
  }
  throw new Error('expected an error')
}

/** `message (line:column)` followed by the offending line and a caret under the column. */
function render(sql: string): string {
  const e = caught(() => parse(sql))
  expect(e.code).toBe('42601')
  expect(e.position).toBeDefined()
  const pos = e.position!
  const line = sql.split('\n')[pos.line - 1] ?? ''
  return `${e.message} (${pos.line}:${pos.column})\n${line}\n${' '.repeat(pos.column - 1)}^`
}

describe('syntax errors', () => {
  const cases: [string, string][] = [
    ['SELECT 1 FROM', 'Expected a table name, subquery or table function, found end of input (1:14)\nSELECT 1 FROM\n             ^'],
    ['SELECT a FROM t WHERE', 'Expected an expression, found end of input (1:22)\nSELECT a FROM t WHERE\n                     ^'],
    ['SELECT (1', 'Expected ")", found end of input (1:10)\nSELECT (1\n         ^'],
    ['SELEC 1', 'syntax error at or near "SELEC" (1:1)\nSELEC 1\n^'],
    ['SELECT 1 2', 'syntax error at or near "2" (1:10)\nSELECT 1 2\n         ^'],
    ['SELECT FROM t', 'Expected an expression, found "FROM" (1:8)\nSELECT FROM t\n       ^'],
    ['SELECT a FROM t WHERE a = = 1', 'Expected an expression, found "=" (1:27)\nSELECT a FROM t WHERE a = = 1\n                          ^'],
    ['INSERT INTO t VALUES (1', 'Expected ")", found end of input (1:24)\nINSERT INTO t VALUES (1\n                       ^'],
    ['CREATE TABLE (a INT)', 'Expected an identifier, found "(" (1:14)\nCREATE TABLE (a INT)\n             ^'],
    ['CREATE TABLE t (a INT', 'Expected ")", found end of input (1:22)\nCREATE TABLE t (a INT\n                     ^'],
    ['DROP t', 'Expected one of TABLE, STREAM, VIEW, MATERIALIZED, INDEX, SOURCE, SINK, TRIGGER, SCHEMA, found "t" (1:6)\nDROP t\n     ^'],
    ['CREATE TRIGGER r UPDATE ON t BEGIN END', 'syntax error at or near "END": a trigger body needs at least one statement (1:36)\nCREATE TRIGGER r UPDATE ON t BEGIN END\n                                   ^'],
    ['CREATE TRIGGER r UPDATE ON t BEGIN SELECT 1 END', 'Expected ";", found "END" (1:45)\nCREATE TRIGGER r UPDATE ON t BEGIN SELECT 1 END\n                                            ^'],
    ['INSERT OR t INTO t VALUES (1)', 'Expected one of REPLACE, IGNORE, found "t" (1:11)\nINSERT OR t INTO t VALUES (1)\n          ^'],
    ['SELECT CAST(x AS) FROM t', 'Expected an identifier, found ")" (1:17)\nSELECT CAST(x AS) FROM t\n                ^'],
    ['SELECT a FROM t JOIN u', 'Expected one of ON, USING, found end of input (1:23)\nSELECT a FROM t JOIN u\n                      ^'],
    ['SELECT 1; SELECT (', 'Expected an expression, found end of input (1:19)\nSELECT 1; SELECT (\n                  ^'],
    ['SELECT a,\n  b\n  FROM t WHERE )', 'Expected an expression, found ")" (3:16)\n  FROM t WHERE )\n               ^'],
    ['SELECT a\nFROM t\nWHERE x IN (1, 2\nORDER BY a', 'Expected ")", found "ORDER" (4:1)\nORDER BY a\n^'],
    ['SELECT count(* FROM t', 'Expected ")", found "FROM" (1:16)\nSELECT count(* FROM t\n               ^'],
    ['SELECT a FROM t WHERE a IN 1', 'Expected "(", found "1" (1:28)\nSELECT a FROM t WHERE a IN 1\n                           ^'],
    ['CREATE TABLE t (a INT,)', 'Expected a column definition, found ")" (1:23)\nCREATE TABLE t (a INT,)\n                      ^'],
    ['CREATE VIEW v SELECT 1', 'Expected AS, found "SELECT" (1:15)\nCREATE VIEW v SELECT 1\n              ^'],
    ['UPDATE t SET a 1', 'Expected "=", found "1" (1:16)\nUPDATE t SET a 1\n               ^'],
    ['EXPLAIN', 'Expected a statement, found end of input (1:8)\nEXPLAIN\n       ^'],
    ["SELECT 'abc", 'unterminated quoted string at or near "\'abc" (1:8)\nSELECT \'abc\n       ^'],
    ['SELECT "abc', 'unterminated quoted identifier at or near ""abc" (1:8)\nSELECT "abc\n       ^'],
    ['SELECT 1 /* never closed', 'unterminated /* comment at or near "/* never closed" (1:10)\nSELECT 1 /* never closed\n         ^'],
    ['SELECT a @ b', 'syntax error at or near "@" (1:10)\nSELECT a @ b\n         ^'],
    ['SELECT "" FROM t', 'zero-length delimited identifier (1:8)\nSELECT "" FROM t\n       ^'],
    ['SELECT 1\n;\nSELECT 2 SELECT 3', 'syntax error at or near "SELECT" (3:10)\nSELECT 2 SELECT 3\n         ^'],
  ]
  it.each(cases)('%j', (sql, expected) => {
    expect(render(sql)).toBe(expected)
  })

  it('positions are offsets into the whole input', () => {
    const e = caught(() => parse('SELECT 1;\n  SELECT 2 +;'))
    expect(e.position).toEqual({ line: 2, column: 13, offset: 22 })
  })

  it('parseExpression reports trailing input', () => {
    const e = caught(() => parseExpression('a + b c'))
    expect(e.code).toBe('42601')
    expect(e.message).toBe('syntax error at or near "c"')
    expect(e.position).toEqual({ line: 1, column: 7, offset: 6 })
  })

  it('the nesting limit is fixed: the same text parses (or not) however deep the caller is', () => {
    const nest = (d: number): string => `SELECT ${'('.repeat(d)}1${')'.repeat(d)}`
    const sub = (d: number): string => `SELECT ${'(SELECT '.repeat(d)}1${')'.repeat(d)}`
    // from a caller that has used up much of the stack already
    const deep = <T>(n: number, f: () => T): T => (n === 0 ? f() : deep(n - 1, f))
    for (const at of [0, 2000]) {
      expect(deep(at, () => parse(nest(98))).length).toBe(1)
      expect(deep(at, () => parse(sub(49))).length).toBe(1)
      const e = caught(() => deep(at, () => parse(nest(99))))
      expect(e.code).toBe('54001')
      expect(e.message).toBe('statement is too deeply nested')
      expect(e.position?.offset).toBe(7 + 99)
      expect(caught(() => deep(at, () => parse(sub(50)))).code).toBe('54001')
      expect(caught(() => deep(at, () => parse(`SELECT ${'NOT '.repeat(500)}TRUE`))).code).toBe('54001')
    }
  })

  it('deep nesting is an error, not a crash', () => {
    const depth = 100_000
    const e = caught(() => parse(`SELECT ${'('.repeat(depth)}1${')'.repeat(depth)}`))
    expect(e).toBeInstanceOf(RivuletError)
    expect(e.code).toBe('54001')
    // and the parser still works afterwards
    expect(parse('SELECT 1').length).toBe(1)
  })
})
