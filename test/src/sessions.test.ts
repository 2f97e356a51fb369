// Sessions never wait for each other: a read sees the last committed tick, a block's writes
// become one tick at COMMIT, the later of two conflicting blocks fails with 40001, and no
// acknowledged write is ever lost or joins another session's block. Unit cases for each rule,
// and a property: random interleavings of sessions end in exactly the state that running the
// committed work serially, in commit order, gives.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError } from '../../grammar/index.js'
import { Engine } from '../../src/engine/engine.js'
import type { EngineSession } from '../../src/engine/transactions.js'

const SEED = process.env.RIVULET_SEED === undefined ? undefined : Number(process.env.RIVULET_SEED)

function code(f: () => unknown): string | undefined {
  try {
    f()
    return undefined
  } catch (e) {
    if (e instanceof RivuletError) return e.code
    throw e
  }
}

const rows = (s: EngineSession | Engine, sql: string) => s.query(sql).rows

function setUp(): { db: Engine; a: EngineSession; b: EngineSession; c: EngineSession } {
  const db = Engine.open()
  db.execute('CREATE TABLE t (k INT PRIMARY KEY, v INT)')
  db.execute('CREATE MATERIALIZED VIEW total AS SELECT count(*) AS n, sum(v) AS s FROM t')
  return { db, a: db.session(), b: db.session(), c: db.session() }
}

describe('sessions', () => {
  it('a block’s writes are invisible to others until COMMIT, then one tick', () => {
    const { db, a, b } = setUp()
    const ticks: number[] = []
    db.subscribe('total', (batch) => ticks.push(batch.tick), { snapshot: false })
    a.execute('BEGIN')
    a.execute('INSERT INTO t VALUES (1, 10)')
    a.execute('INSERT INTO t VALUES (2, 20)')
    expect(rows(b, 'SELECT * FROM t')).toEqual([])
    expect(rows(b, 'SELECT * FROM total')).toEqual([[0, null]])
    // the block still sees its own writes after another session ran
    expect(rows(a, 'SELECT k FROM t ORDER BY k')).toEqual([[1], [2]])
    expect(rows(a, 'SELECT * FROM total')).toEqual([[2, 30]])
    const before = db.tick
    a.execute('COMMIT')
    expect(db.tick).toBe(before + 1)
    expect(ticks).toEqual([before + 1])
    expect(rows(b, 'SELECT * FROM total')).toEqual([[2, 30]])
  })

  it('an autocommitted write is never lost when another block rolls back (the probe’s case)', () => {
    const { db, a, b, c } = setUp()
    a.execute('BEGIN')
    a.execute('INSERT INTO t VALUES (1, 1)')
    b.execute('BEGIN')
    b.execute('INSERT INTO t VALUES (2, 2)')
    expect(c.execute('INSERT INTO t VALUES (3, 3)')[0]!.command).toBe('INSERT 0 1')
    a.execute('COMMIT')
    b.execute('ROLLBACK')
    expect(rows(db, 'SELECT k FROM t ORDER BY k')).toEqual([[1], [3]])
  })

  it('the later of two blocks writing the same row fails with 40001 and changes nothing', () => {
    const { db, a, b } = setUp()
    db.execute('INSERT INTO t VALUES (1, 0)')
    a.execute('BEGIN')
    a.execute('UPDATE t SET v = v + 1 WHERE k = 1')
    b.execute('BEGIN')
    b.execute('UPDATE t SET v = v + 10 WHERE k = 1')
    b.execute('INSERT INTO t VALUES (2, 2)')
    a.execute('COMMIT')
    expect(code(() => b.execute('COMMIT'))).toBe('40001')
    expect(b.inTransaction).toBe(false)
    expect(rows(db, 'SELECT * FROM t ORDER BY k')).toEqual([[1, 1]])
  })

  it('a key taken by an autocommitted insert makes the block that inserted it first fail', () => {
    const { db, a, b } = setUp()
    a.execute('BEGIN')
    a.execute('INSERT INTO t VALUES (5, 1)')
    expect(b.execute('INSERT INTO t VALUES (5, 2)')[0]!.command).toBe('INSERT 0 1')
    // the conflict shows at the block's next statement: it is aborted until ROLLBACK
    expect(code(() => a.execute('SELECT * FROM t'))).toBe('40001')
    expect(code(() => a.execute('SELECT 1'))).toBe('25P02')
    expect(a.execute('COMMIT')[0]!.command).toBe('ROLLBACK')
    expect(rows(db, 'SELECT * FROM t')).toEqual([[5, 2]])
  })

  it('blocks that touch different rows both commit', () => {
    const { db, a, b } = setUp()
    db.execute('INSERT INTO t VALUES (1, 0), (2, 0)')
    a.execute('BEGIN')
    b.execute('BEGIN')
    a.execute('UPDATE t SET v = 1 WHERE k = 1')
    b.execute('UPDATE t SET v = 2 WHERE k = 2')
    a.execute('COMMIT')
    b.execute('COMMIT')
    expect(rows(db, 'SELECT * FROM t ORDER BY k')).toEqual([[1, 1], [2, 2]])
  })

  it('NOW() in a block is the block’s start, so its writes redo alike', () => {
    let ms = Date.UTC(2026, 0, 1)
    const db = Engine.open({ clock: () => (ms += 1000) })
    db.execute('CREATE TABLE e (k INT PRIMARY KEY, at TIMESTAMP)')
    const a = db.session()
    const b = db.session()
    a.execute('BEGIN')
    a.execute('INSERT INTO e VALUES (1, NOW())')
    b.execute('SELECT * FROM e')
    a.execute('INSERT INTO e VALUES (2, NOW())')
    b.execute('SELECT * FROM e')
    expect(a.execute('COMMIT')[0]!.command).toBe('COMMIT')
    const at = rows(db, 'SELECT DISTINCT at FROM e')
    expect(at.length).toBe(1)
  })

  it('an idle open block blocks nobody; closing its session rolls it back', () => {
    const { db, a, b } = setUp()
    a.execute('BEGIN')
    a.execute('INSERT INTO t VALUES (1, 1)')
    for (let i = 2; i < 50; i++) b.execute(`INSERT INTO t VALUES (${i}, ${i})`)
    expect(rows(b, 'SELECT count(*) FROM t')).toEqual([[48]])
    a.close()
    expect(rows(db, 'SELECT count(*) FROM t')).toEqual([[48]])
    expect(code(() => a.execute('SELECT 1'))).toBe('55000')
  })

  it('db.insert and db.delete are writes of the default session’s block', () => {
    const { db, a } = setUp()
    db.execute('BEGIN')
    db.insert('t', [{ k: 1, v: 1 }])
    expect(rows(a, 'SELECT count(*) FROM t')).toEqual([[0]])
    db.delete('t', [{ k: 1, v: 1 }])
    db.insert('t', [{ k: 2, v: 2 }])
    db.execute('COMMIT')
    expect(rows(a, 'SELECT * FROM t')).toEqual([[2, 2]])
  })
})

// ---- property: interleavings equal serial execution in commit order

type Op =
  | { kind: 'begin' }
  | { kind: 'commit' }
  | { kind: 'rollback' }
  | { kind: 'insert'; k: number; v: number }
  | { kind: 'update'; k: number; d: number }
  | { kind: 'delete'; k: number }
  | { kind: 'read' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'begin' } as Op) },
  { weight: 2, arbitrary: fc.constant({ kind: 'commit' } as Op) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rollback' } as Op) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('insert' as const), k: fc.integer({ min: 0, max: 4 }), v: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), k: fc.integer({ min: 0, max: 4 }), d: fc.integer({ min: 1, max: 9 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), k: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'read' } as Op) },
)

function sqlOf(op: Op): string {
  switch (op.kind) {
    case 'begin':
      return 'BEGIN'
    case 'commit':
      return 'COMMIT'
    case 'rollback':
      return 'ROLLBACK'
    case 'insert':
      return `INSERT INTO t VALUES (${op.k}, ${op.v})`
    case 'update':
      return `UPDATE t SET v = v + ${op.d} WHERE k = ${op.k}`
    case 'delete':
      return `DELETE FROM t WHERE k = ${op.k}`
    case 'read':
      return 'SELECT * FROM total'
  }
}

describe('sessions: interleavings', () => {
  it('end in the state serial execution of the committed work in commit order gives', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), opArb), { minLength: 1, maxLength: 40 }), (steps) => {
        const { db } = setUp()
        const sessions = [db.session(), db.session(), db.session()]
        // per session: the writes of its open block, in order; committed work in commit order
        const pending: string[][] = [[], [], []]
        const committed: string[][] = []
        for (const [i, op] of steps) {
          const s = sessions[i]!
          const sql = sqlOf(op)
          const inBlock = s.inTransaction
          let failed: string | undefined
          let command: string | undefined
          try {
            command = s.execute(sql)[0]!.command
          } catch (e) {
            if (!(e instanceof RivuletError)) throw e
            failed = e.code
          }
          expect(failed === undefined || ['23505', '40001', '25P02'].includes(failed), `${sql}: ${failed}`).toBe(true)
          if (op.kind === 'begin' || op.kind === 'read') continue
          if (op.kind === 'rollback') {
            pending[i] = []
            continue
          }
          if (op.kind === 'commit') {
            if (failed === undefined && command === 'COMMIT' && pending[i]!.length > 0) committed.push(pending[i]!)
            pending[i] = []
            continue
          }
          if (failed !== undefined) {
            // a failed write aborts the block it was in (its writes are gone)
            if (inBlock) pending[i] = []
            continue
          }
          if (inBlock) pending[i]!.push(sql)
          else committed.push([sql])
        }
        for (const s of sessions) s.close()
        // the serial run: each committed unit in order, each must succeed
        const serial = Engine.open()
        serial.execute('CREATE TABLE t (k INT PRIMARY KEY, v INT)')
        for (const unit of committed) {
          serial.execute('BEGIN')
          for (const sql of unit) serial.execute(sql)
          serial.execute('COMMIT')
        }
        expect(rows(db, 'SELECT * FROM t ORDER BY k')).toEqual(rows(serial, 'SELECT * FROM t ORDER BY k'))
        expect(rows(db, 'SELECT * FROM total')).toEqual(rows(serial, 'SELECT count(*), sum(v) FROM t'))
      }),
      { numRuns: 300, ...(SEED !== undefined ? { seed: SEED } : {}) },
    )
  })
})
