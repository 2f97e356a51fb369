// Tombstones (src/engine/tombstones.ts): a table WITH (tombstone_retention = …) keeps each key
// it deleted in rivulet_tombstones for that long — not an update's, a key inserted again loses
// its tombstone, a rolled-back block leaves none — and they expire by processing time; a view
// over them is maintained; with a data directory they survive a crash and a checkpoint exactly
// as a run that never stopped has them; the option's errors.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { rivuletError } from '../helpers/errors.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const tempDir = tempDirs('tombstones')
const T0 = Date.UTC(2024, 0, 1)

function tombstones(db: Engine): unknown[][] {
  return db.query('SELECT relation, key, row, tick, deleted_at FROM rivulet_tombstones ORDER BY relation, key').rows
}

/** Runs the same statements against an engine, moving its clock. */
function workload(db: Engine, clock: { ms: number }, part: 1 | 2): void {
  if (part === 1) {
    db.execute("CREATE TABLE IF NOT EXISTS t (k INT PRIMARY KEY, v TEXT) WITH (tombstone_retention = '1 minute')")
    db.execute('CREATE TABLE IF NOT EXISTS plain (k INT PRIMARY KEY)')
    db.execute('CREATE MATERIALIZED VIEW IF NOT EXISTS dels AS SELECT relation, count(*) AS n FROM rivulet_tombstones GROUP BY relation')
    db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    db.execute('INSERT INTO plain VALUES (1), (2)')
    clock.ms += 1000
    db.execute('DELETE FROM t WHERE k = 2')
    db.execute('DELETE FROM plain WHERE k = 1')
    db.execute("UPDATE t SET v = 'c2' WHERE k = 3")
    clock.ms += 1000
    db.execute('UPDATE t SET k = 10 WHERE k = 1')
  } else {
    clock.ms += 20_000
    db.execute('DELETE FROM t WHERE k = 4')
    db.execute("INSERT INTO t VALUES (2, 'b again')")
  }
}

describe('tombstones', () => {
  it('keep the deleted keys of a table for its tombstone_retention, in rivulet_tombstones', () => {
    const clock = { ms: T0 }
    const db = Engine.open({ clock: () => clock.ms })
    workload(db, clock, 1)
    // the delete, and the key an UPDATE moved away from; not the update in place, not `plain`
    expect(tombstones(db)).toEqual([
      ['t', '(1)', '(1,a)', 6, '2024-01-01 00:00:02'],
      ['t', '(2)', '(2,b)', 3, '2024-01-01 00:00:01'],
    ])
    workload(db, clock, 2)
    // (2) was inserted again: it is live, its tombstone is gone
    expect(tombstones(db).map((r) => r[1])).toEqual(['(1)', '(4)'])
    expect(db.query('SELECT * FROM dels').rows).toEqual([['t', 2]])
    // a minute after each delete (and up to a sixteenth of it more), at the next tick, they go
    clock.ms = T0 + 2000 + 60_000 + 3_750
    db.refresh()
    expect(tombstones(db).map((r) => r[1])).toEqual(['(4)'])
    clock.ms = T0 + 22_000 + 60_000 + 3_750
    db.execute('INSERT INTO plain VALUES (9)')
    expect(tombstones(db)).toEqual([])
    expect(db.query('SELECT * FROM dels').rows).toEqual([])
    db.close()
  })

  it('are made from the net change of a transaction; a rolled-back one leaves none', () => {
    const db = Engine.open({ clock: () => T0 })
    db.execute("CREATE TABLE t (k INT PRIMARY KEY) WITH (tombstone_retention = '1 hour')")
    db.execute('INSERT INTO t VALUES (1), (2), (3)')
    db.execute('BEGIN')
    db.execute('DELETE FROM t WHERE k = 1')
    db.execute('ROLLBACK')
    db.execute('BEGIN')
    db.execute('DELETE FROM t WHERE k = 2')
    db.execute('INSERT INTO t VALUES (2)')
    db.execute('DELETE FROM t WHERE k = 3')
    db.execute('COMMIT')
    expect(tombstones(db).map((r) => r[1])).toEqual(['(3)'])
    expect(rivuletError(() => db.execute('DELETE FROM rivulet_tombstones'))).toBeDefined()
    db.close()
  })

  it('survive a crash and a checkpoint as a run that never stopped has them', () => {
    const ref = { ms: T0 }
    const mem = Engine.open({ clock: () => ref.ms })
    workload(mem, ref, 1)
    workload(mem, ref, 2)
    const data = path.join(tempDir(), 'data')
    const clock = { ms: T0 }
    let db = Engine.open({ dir: data, clock: () => clock.ms, checkpointInterval: 0 })
    workload(db, clock, 1)
    db.execute('CHECKPOINT')
    workload(db, clock, 2)
    // killed: no checkpoint at close; reopening loads the checkpoint and replays the rest
    internalsOf(db).checkpoints.onCloseEnabled = false
    db.close()
    db = Engine.open({ dir: data, clock: () => clock.ms, checkpointInterval: 0 })
    expect(db.recovery!.checkpoint).not.toBeNull()
    expect(tombstones(db)).toEqual(tombstones(mem))
    expect(db.query('SELECT * FROM dels').rows).toEqual(mem.query('SELECT * FROM dels').rows)
    // and they expire alike
    clock.ms = ref.ms = T0 + 2000 + 60_000 + 3_750
    db.refresh()
    mem.refresh()
    expect(tombstones(db)).toEqual(tombstones(mem))
    db.close()
    db = Engine.open({ dir: data, clock: () => clock.ms, checkpointInterval: 0 })
    expect(tombstones(db)).toEqual(tombstones(mem))
    db.close()
    mem.close()
  })

  it('need a table with a primary key and a fixed-length interval', () => {
    const db = Engine.open()
    expect(rivuletError(() => db.execute("CREATE STREAM s (k INT, ts TIMESTAMP) WITH (tombstone_retention = '1 hour')"))).toMatchObject({ code: '22023' })
    expect(rivuletError(() => db.execute("CREATE TABLE bag (k INT) WITH (tombstone_retention = '1 hour')"))).toMatchObject({ code: '22023', message: expect.stringMatching(/primary key/) })
    expect(rivuletError(() => db.execute("CREATE TABLE t (k INT PRIMARY KEY) WITH (tombstone_retention = '1 month')"))).toMatchObject({ code: '22023' })
    expect(rivuletError(() => db.execute("CREATE TABLE t (k INT PRIMARY KEY) WITH (tombstone_retention = 'soon')"))).toBeDefined()
    expect(db.relations().map((r) => r.name)).toEqual([])
    db.close()
  })
})
