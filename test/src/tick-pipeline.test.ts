// The tick pipeline (src/engine/tick.ts) is the one place every write goes through: each write
// path — a statement, a transaction block, insert()/delete(), COPY, a source's micro-batch —
// seals exactly one tick carrying its input, numbered as it then commits; reads and DDL seal
// nothing; a failed statement seals nothing; a seal that fails (the durable log's seam
// refusing) rolls the tick back and changes nothing.
import { describe, expect, it } from 'vitest'
import { Engine, internalsOf } from '../../src/engine/engine.js'
import type { SealedTick } from '../../src/engine/tick.js'

function watch(db: Engine): SealedTick[] {
  const seen: SealedTick[] = []
  internalsOf(db).ticks.onSeal((t) => seen.push(t))
  return seen
}

/** A sealed tick's input as [relation, [row, weight]…] pairs, rows sorted. */
const rowsOf = (t: SealedTick) => t.ops.flatMap((o) => (o.op === 'rows' ? [o] : []))
const inputOf = (t: SealedTick) =>
  rowsOf(t).map((i) => [i.relation, i.delta.rows.map((r, k) => [r, i.delta.weights[k]] as const).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))] as const)

describe('the tick pipeline', () => {
  it('seals one tick per write path, with its input, numbered as it commits', () => {
    const db = Engine.open({ sources: 'manual' })
    db.execute('CREATE TABLE t (k int PRIMARY KEY, v text)')
    db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM t')
    const seals = watch(db)

    db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    expect(seals.map(inputOf)).toEqual([[['t', [[[1, 'a'], 1], [[2, 'b'], 1]]]]])
    expect(seals[0]!.tick).toBe(db.tick)

    db.execute("BEGIN; INSERT INTO t VALUES (3, 'c'); UPDATE t SET v = 'z' WHERE k = 1; COMMIT")
    expect(seals).toHaveLength(2)
    expect(inputOf(seals[1]!)).toEqual([
      ['t', [[[3, 'c'], 1]]],
      ['t', [[[1, 'a'], -1], [[1, 'z'], 1]]],
    ])
    expect(seals[1]!.tick).toBe(db.tick)

    db.insert('t', [{ k: 4, v: 'd' }])
    db.delete('t', [{ k: 2 }])
    db.execute('COPY t FROM STDIN', { stdin: Buffer.from('5\te\n6\tf\n') })
    expect(seals.slice(2).map(inputOf)).toEqual([
      [['t', [[[4, 'd'], 1]]]],
      [['t', [[[2, 'b'], -1]]]],
      [['t', [[[5, 'e'], 1], [[6, 'f'], 1]]]],
    ])

    // reads and DDL seal nothing; a failed statement seals nothing
    db.query('SELECT * FROM n')
    db.execute('CREATE TABLE u (x int)')
    expect(() => db.execute('INSERT INTO t VALUES (1, NULL), (1, NULL)')).toThrow()
    expect(seals).toHaveLength(5)
    expect(seals.map((s) => s.tick)).toEqual([1, 2, 3, 4, 5].map((i) => seals[0]!.tick + i - 1))

    // a source's micro-batch is a tick of its own
    db.execute("CREATE SOURCE nx WITH (connector = 'nexmark', events = 100, batch = 40)")
    const before = seals.length
    db.stepSource('nx', 100)
    const batches = seals.slice(before)
    expect(batches).toHaveLength(3)
    expect(batches.map((b) => rowsOf(b).reduce((n, i) => n + i.delta.length, 0))).toEqual([40, 40, 20])
    // with the source's position after each batch
    expect(batches.map((b) => b.ops.find((o) => o.op === 'source'))).toEqual([40, 80, 100].map((position) => ({ op: 'source', source: 'nx', offset: { position, maxEventTime: expect.any(Number) } })))
    expect(new Set(batches.flatMap((b) => rowsOf(b).map((i) => i.relation)))).toEqual(new Set(['person', 'auction', 'bid']))
  })

  it('a seal that fails rolls the tick back: nothing changes, and the next write goes on', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE t (k int PRIMARY KEY)')
    db.execute('CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM t')
    db.execute('INSERT INTO t VALUES (1)')
    const tick = db.tick
    const stop = internalsOf(db).ticks.onSeal(() => {
      throw new Error('the log is full')
    })
    expect(() => db.execute('INSERT INTO t VALUES (2)')).toThrow('the log is full')
    expect(() => db.insert('t', [{ k: 3 }])).toThrow('the log is full')
    expect(() => db.execute('BEGIN; INSERT INTO t VALUES (4); COMMIT')).toThrow('the log is full')
    expect(db.inTransaction).toBe(false)
    expect(db.tick).toBe(tick)
    expect(db.query('SELECT c FROM n').rows).toEqual([[1]])
    expect(db.query('SELECT k FROM t').rows).toEqual([[1]])
    stop()
    db.execute('INSERT INTO t VALUES (2)')
    expect(db.query('SELECT c FROM n').rows).toEqual([[2]])
  })

  it('a versioned table seals the versions it adds to its history', () => {
    const db = Engine.open()
    db.execute("CREATE TABLE rates (cur text PRIMARY KEY, rate int, at timestamp, WATERMARK FOR at AS at - INTERVAL '1' SECOND)")
    const seals = watch(db)
    db.execute("INSERT INTO rates VALUES ('eur', 1, '2024-01-01 00:00:00')")
    expect(seals).toHaveLength(1)
    expect(seals[0]!.ops).toHaveLength(1)
    expect(seals[0]!.ops[0]).toMatchObject({ op: 'versions', relation: 'rates' })
    expect(seals[0]!.ops[0]!.op === 'versions' && seals[0]!.ops[0]!.rows.length).toBe(1)
  })
})
