// timestamptz, time, uuid and bytea values survive the log and checkpoints: a table, a stream
// with a timestamptz watermark and TUMBLE windows over it, and views over each type are the
// same after Engine.open({ dir }) reopens the directory, from the log alone (a crash) and from
// a checkpoint (a clean close). The session's TimeZone is not stored: a reopened engine's
// sessions start in UTC, and timestamptz values are the same instants.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const tempDir = tempDirs('datetime-types')

const rows = (db: Engine, sql: string) => db.query(sql).rows

function workload(db: Engine): void {
  db.execute("SET TIME ZONE 'Europe/Paris'")
  db.execute('CREATE TABLE t (id INT PRIMARY KEY, at TIMESTAMPTZ, tm TIME, u UUID, b BYTEA)')
  db.execute("INSERT INTO t VALUES (1, '2024-03-31 02:30', '12:34:56.789', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '\\x00ff'), (2, '2024-10-27 02:30+01', '24:00', '{00000000-0000-0000-0000-000000000001}', 'a\\000b'), (3, NULL, NULL, NULL, NULL)")
  db.execute("UPDATE t SET b = b || '\\x01'::bytea WHERE id = 1")
  db.execute('CREATE MATERIALIZED VIEW by_b AS SELECT b, count(*) AS n FROM t GROUP BY b')
  db.execute('CREATE MATERIALIZED VIEW by_u AS SELECT u, tm, at FROM t WHERE u IS NOT NULL')
  db.execute("SET TIME ZONE 'UTC'")
  db.execute('CREATE MATERIALIZED VIEW days AS SELECT at::date AS d, date_trunc(\'hour\', at) AS h FROM t WHERE at IS NOT NULL')
  db.execute("CREATE STREAM clicks (at TIMESTAMPTZ, url TEXT, WATERMARK FOR at AS at - INTERVAL '5' SECOND)")
  db.execute("CREATE MATERIALIZED VIEW per_minute AS SELECT window_start, window_end, count(*) AS n FROM TUMBLE(clicks, at, INTERVAL '1' MINUTE) GROUP BY window_start, window_end")
  db.execute("INSERT INTO clicks VALUES ('2024-01-01 10:00:01+01', 'a'), ('2024-01-01 09:00:30Z', 'b'), ('2024-01-01 09:01:10+00', 'c')")
}

const READS = ['SELECT * FROM t ORDER BY id', 'SELECT * FROM by_b ORDER BY b', 'SELECT * FROM by_u ORDER BY u', 'SELECT * FROM days ORDER BY d', 'SELECT * FROM per_minute ORDER BY window_start']

describe('timestamptz, time, uuid and bytea durability', () => {
  for (const how of ['crash', 'close'] as const) {
    it(`round-trips through reopen after a ${how}`, () => {
      const dir = path.join(tempDir(), 'data')
      const db = Engine.open({ dir })
      workload(db)
      const before = READS.map((q) => rows(db, q))
      expect(before[0]).toEqual([
        [1, '2024-03-31 01:30:00+00', '12:34:56.789', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff01'],
        [2, '2024-10-27 01:30:00+00', '24:00:00', '00000000-0000-0000-0000-000000000001', '\\x610062'],
        [3, null, null, null, null],
      ])
      expect(before[4]).toEqual([['2024-01-01 09:00:00+00', '2024-01-01 09:01:00+00', 2], ['2024-01-01 09:01:00+00', '2024-01-01 09:02:00+00', 1]])
      if (how === 'crash') internalsOf(db).checkpoints.onCloseEnabled = false
      db.close()
      const again = Engine.open({ dir })
      expect(READS.map((q) => rows(again, q))).toEqual(before)
      expect(again.watermark('clicks')).toBe('2024-01-01 09:01:05+00')
      // the views go on being maintained after the reopen
      again.execute("INSERT INTO t VALUES (4, '2024-06-01 12:00+02', '01:00', '00000000-0000-0000-0000-000000000001', '\\x00ff01')")
      expect(rows(again, 'SELECT * FROM by_b ORDER BY b')).toEqual([['\\x00ff01', 2], ['\\x610062', 1], [null, 1]])
      expect(rows(again, 'SELECT d, h FROM days ORDER BY d')).toEqual([['2024-03-31', '2024-03-31 01:00:00+00'], ['2024-06-01', '2024-06-01 10:00:00+00'], ['2024-10-27', '2024-10-27 01:00:00+00']])
      again.close()
    })
  }
})
