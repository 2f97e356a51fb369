// TRUNCATE, ALTER TABLE and schemas through Engine.open({ dir }): the log replays them where they
// ran (TRUNCATE as its tick's retractions, ALTER TABLE / CREATE SCHEMA as DDL text), checkpoints
// taken after an ALTER hold the rewritten rows and the views' operators as the replay renders
// them again, and a process killed with SIGKILL right after acknowledging them recovers all of
// it: every relation equals an in-memory run of the same statements.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import Database from 'better-sqlite3'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const tempDir = tempDirs('alter')

/** Closes without the closing checkpoint: the directory as a crash leaves it. */
function crashClose(db: Engine): void {
  internalsOf(db).checkpoints.onCloseEnabled = false
  db.close()
}

const all = (db: Engine, relation: string) => db.query(`SELECT * FROM ${relation}`).rows.map((r) => JSON.stringify(r)).sort()

/** Statements before and after the point where a test may take a checkpoint. */
const BEFORE = [
  'CREATE SCHEMA shop',
  'CREATE TABLE shop.items (id INT PRIMARY KEY, name TEXT, price INT)',
  'CREATE TABLE bag (grp TEXT, n INT)',
  "INSERT INTO shop.items VALUES (1, 'apple', 3), (2, 'pear', 5), (3, 'plum', 7)",
  "INSERT INTO bag VALUES ('a', 1), ('a', 1), ('b', 2)",
  'CREATE MATERIALIZED VIEW star AS SELECT * FROM shop.items',
  'CREATE MATERIALIZED VIEW shop.totals AS SELECT count(*) AS n, sum(price) AS s FROM shop.items',
  'CREATE MATERIALIZED VIEW names AS SELECT id, name FROM shop.items WHERE price > 1',
  'CREATE MATERIALIZED VIEW bag_sums AS SELECT grp, sum(n) AS s FROM bag GROUP BY grp',
  'TRUNCATE bag',
  "INSERT INTO bag VALUES ('c', 3)",
  "ALTER TABLE shop.items ADD COLUMN stock INT DEFAULT 10, ADD COLUMN note TEXT",
  "INSERT INTO shop.items VALUES (4, 'fig', 2, 1, 'new')",
  'CREATE MATERIALIZED VIEW stocked AS SELECT id, stock FROM shop.items WHERE stock > 5',
  'ALTER TABLE shop.items DROP COLUMN note',
  "BEGIN; TRUNCATE bag; INSERT INTO bag VALUES ('d', 4); COMMIT",
]
const AFTER = [
  "UPDATE shop.items SET price = 9, stock = 20 WHERE id = 1",
  'ALTER TABLE shop.items RENAME COLUMN name TO title',
  'ALTER TABLE bag ADD COLUMN tag TEXT DEFAULT \'t\'',
  "INSERT INTO bag VALUES ('d', 1, 'u')",
  'ALTER TABLE shop.items RENAME TO goods',
  "INSERT INTO shop.goods VALUES (5, 'kiwi', 4, 6)",
  'DELETE FROM shop.goods WHERE id = 2',
  'TRUNCATE bag',
  "INSERT INTO bag VALUES ('e', 5, 'v')",
]
const RELATIONS = ['shop.goods', 'bag', 'star', 'shop.totals', 'names', 'bag_sums', 'stocked']

function reference(): Engine {
  const mem = Engine.open()
  for (const s of [...BEFORE, ...AFTER]) mem.execute(s)
  return mem
}

describe('TRUNCATE, ALTER TABLE and schemas in a data directory', () => {
  it.each(['the whole log', 'a checkpoint after the ALTERs', 'a checkpoint at the end'])('replay from %s gives the state of an in-memory run', (from) => {
    const dir = path.join(tempDir(), 'data')
    const db = Engine.open({ dir })
    for (const s of BEFORE) db.execute(s)
    if (from === 'a checkpoint after the ALTERs') db.execute('CHECKPOINT')
    for (const s of AFTER) db.execute(s)
    if (from === 'a checkpoint at the end') db.execute('CHECKPOINT')
    const tick = db.tick
    crashClose(db)
    const again = Engine.open({ dir })
    const mem = reference()
    for (const r of RELATIONS) expect(all(again, r), r).toEqual(all(mem, r))
    expect(again.tick).toBe(tick)
    expect(again.recovery!.checkpoint === null).toBe(from === 'the whole log')
    expect(again.relations().find((r) => r.name === 'shop.goods')).toMatchObject({ schema: 'shop', columns: [{ name: 'id' }, { name: 'title' }, { name: 'price' }, { name: 'stock' }] })
    // and it goes on from there: the views are maintained over the altered tables
    for (const e of [again, mem]) {
      e.execute("INSERT INTO shop.goods VALUES (6, 'lime', 8, 30)")
      e.execute("INSERT INTO bag VALUES ('e', 1, 'w')")
    }
    for (const r of RELATIONS) expect(all(again, r), r).toEqual(all(mem, r))
    // a checkpoint of the reopened engine, and a reopen from it
    again.execute('CHECKPOINT')
    crashClose(again)
    const third = Engine.open({ dir })
    for (const r of RELATIONS) expect(all(third, r), r).toEqual(all(mem, r))
    third.close()
  })

  it('a sink FROM a view made before its table was renamed keys its rows by the view\'s GROUP BY', () => {
    const root = tempDir()
    const dir = path.join(root, 'data')
    const target = path.join(root, 'out.db')
    const db = Engine.open({ dir })
    db.execute('CREATE TABLE t (a INT, b INT); INSERT INTO t VALUES (1, 2), (1, 3), (2, 1)')
    db.execute('CREATE MATERIALIZED VIEW v AS SELECT a, sum(b) AS s FROM t GROUP BY a')
    db.execute('ALTER TABLE t RENAME TO u; ALTER TABLE u RENAME COLUMN a TO k')
    db.execute(`CREATE SINK out FROM v WITH (connector = 'sqlite', path = '${target}', table = 'v', mode = 'upsert')`)
    db.execute('INSERT INTO u VALUES (1, 10); TRUNCATE u; INSERT INTO u VALUES (3, 3)')
    crashClose(db)
    const again = Engine.open({ dir })
    again.execute('INSERT INTO u VALUES (3, 4)')
    again.close()
    expect(new Database(target, { readonly: true }).prepare('SELECT a, s FROM v ORDER BY a').raw().all()).toEqual([[3, 7]])
  })

  it('survives SIGKILL right after the statements are acknowledged', () => {
    const dir = path.join(tempDir(), 'data')
    const script = [
      `import { Engine } from ${JSON.stringify(path.join(here, '..', '..', 'dist', 'src', 'index.js'))}`,
      `const db = Engine.open({ dir: ${JSON.stringify(dir)} })`,
      `for (const s of ${JSON.stringify(BEFORE)}) db.execute(s)`,
      "db.execute('CHECKPOINT')",
      `for (const s of ${JSON.stringify(AFTER)}) db.execute(s)`,
      "process.stdout.write('acknowledged\\n', () => process.kill(process.pid, 'SIGKILL'))",
    ].join('\n')
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(child.stdout).toBe('acknowledged\n')
    expect(child.signal).toBe('SIGKILL')
    const again = Engine.open({ dir })
    const mem = reference()
    for (const r of RELATIONS) expect(all(again, r), r).toEqual(all(mem, r))
    expect(again.recovery!.checkpoint).not.toBeNull()
    again.close()
  })
})
