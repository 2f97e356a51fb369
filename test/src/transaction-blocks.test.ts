// Transaction blocks as in Postgres: any error aborts the block (its changes are undone at
// once, later statements and insert()/delete() fail with 25P02 until ROLLBACK, COMMIT reports
// ROLLBACK), and DDL is refused inside a block (as in Materialize).
import { describe, expect, it } from 'vitest'
import { Engine, RivuletError } from '../../src/index.js'

function codeOf(f: () => unknown): string | undefined {
  try {
    f()
  } catch (e) {
    return e instanceof RivuletError ? e.code : 'not a RivuletError'
  }
  return undefined
}

describe('transaction blocks', () => {
  it('refuse DDL, so a view can never be built from rows that are rolled back', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT)')
    db.execute('BEGIN')
    db.execute('INSERT INTO t VALUES (1)')
    expect(codeOf(() => db.execute('CREATE MATERIALIZED VIEW v AS SELECT k FROM t'))).toBe('25001')
    expect(codeOf(() => db.execute('SELECT 1'))).toBe('25P02')
    expect(db.execute('ROLLBACK')[0]!.command).toBe('ROLLBACK')
    expect(db.query('SELECT * FROM t').rows).toEqual([])
    expect(db.relations().map((r) => r.name)).toEqual(['t'])
  })

  it('abort on a failed read or a syntax error, undoing earlier changes of the block', () => {
    for (const bad of ['SELECT nope FROM t', 'SELEC 1', 'SELECT 1 / 0']) {
      const db = Engine.open()
      db.execute('CREATE TABLE t (k INT PRIMARY KEY)')
      db.execute('CREATE MATERIALIZED VIEW v AS SELECT COUNT(*) AS n FROM t')
      db.execute('BEGIN; INSERT INTO t VALUES (1)')
      expect(db.query('SELECT n FROM v').rows).toEqual([[1]])
      expect(codeOf(() => db.execute(bad))).toBeDefined()
      expect(codeOf(() => db.execute('INSERT INTO t VALUES (2)'))).toBe('25P02')
      expect(db.execute('COMMIT')[0]!.command).toBe('ROLLBACK')
      expect(db.query('SELECT * FROM t').rows).toEqual([])
      expect(db.query('SELECT n FROM v').rows).toEqual([[0]])
    }
  })

  it('make insert() and delete() fail while aborted, and keep nothing after ROLLBACK', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k INT PRIMARY KEY)')
    db.execute('BEGIN')
    db.execute('INSERT INTO t VALUES (1)')
    expect(codeOf(() => db.execute('INSERT INTO t VALUES (1)'))).toBe('23505')
    expect(codeOf(() => db.insert('t', [[5]]))).toBe('25P02')
    expect(codeOf(() => db.delete('t', [[1]]))).toBe('25P02')
    db.execute('ROLLBACK')
    expect(db.query('SELECT * FROM t').rows).toEqual([])
    expect(db.insert('t', [[5]])).toBe(1)
    expect(db.query('SELECT * FROM t').rows).toEqual([[5]])
  })
})
