// jsonb values survive Engine.open({ dir }) close and reopen exactly: in a table, a stream, views
// holding jsonb_agg / jsonb_object_agg state and jsonb_array_elements' expansions, read back
// from the log alone (a crash) and from a checkpoint; the views go on being maintained, and
// COPY reads jsonb as its text.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'
import { internalsOf } from '../../src/engine/engine.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const tempDir = tempDirs('jsonb')

const VIEWS = {
  per_type: `SELECT payload->>'type' AS t, jsonb_agg(payload->'n' ORDER BY id) AS ns, jsonb_object_agg(id, payload->'tags') AS tags FROM ev GROUP BY 1`,
  elements: `SELECT id, e FROM ev, jsonb_array_elements(payload->'tags') AS e`,
  by_n: `SELECT payload->'n' AS n, count(*) AS c FROM ev GROUP BY 1`,
}

function setUp(db: Engine): void {
  db.execute('CREATE TABLE ev (id INT PRIMARY KEY, payload JSONB)')
  db.execute('CREATE STREAM raw (body JSONB, ts TIMESTAMP, WATERMARK FOR ts AS ts)')
  for (const [name, sql] of Object.entries(VIEWS)) db.execute(`CREATE MATERIALIZED VIEW ${name} AS ${sql}`)
  db.execute(`INSERT INTO ev VALUES (1, '{"type": "a", "n": 1.50, "tags": ["x", {"deep": [null, true]}]}'), (2, '{"type": "b", "n": 12345678901234567890.25, "tags": []}'), (3, '{"type": "a", "n": -0.0, "tags": ["\\u00e9\\n"]}')`)
  db.execute(`UPDATE ev SET payload = jsonb_set(payload, '{tags}', '["y"]') WHERE id = 2`)
  db.execute('DELETE FROM ev WHERE id = 3')
  db.execute(`INSERT INTO raw VALUES ('{"k": [1, 2.0]}', '2024-01-01 00:00:00')`)
}

const sorted = (db: Engine, sql: string) => db.query(sql).rows.map((r) => JSON.stringify(r)).sort()

function snapshot(db: Engine): Record<string, string[]> {
  const out: Record<string, string[]> = { ev: sorted(db, 'SELECT * FROM ev'), raw: sorted(db, 'SELECT * FROM raw') }
  for (const name of Object.keys(VIEWS)) out[name] = sorted(db, `SELECT * FROM ${name}`)
  return out
}

describe('jsonb durability', () => {
  for (const how of ['crash (log only)', 'close (checkpoint)'] as const) {
    it(`round-trips through ${how}, and the views go on`, () => {
      const dir = tempDir()
      const db = Engine.open({ dir, checkpointInterval: 0 })
      setUp(db)
      const before = snapshot(db)
      expect(before.ev).toContain(JSON.stringify([1, '{"n": 1.50, "tags": ["x", {"deep": [null, true]}], "type": "a"}']))
      if (how === 'crash (log only)') {
        internalsOf(db).checkpoints.onCloseEnabled = false
      }
      db.close()
      const again = Engine.open({ dir })
      expect(again.recovery!.warnings).toEqual([])
      expect(snapshot(again)).toEqual(before)
      // maintained after the reopen as a recompute has it
      again.execute(`INSERT INTO ev VALUES (4, '{"type": "a", "n": 2, "tags": [1]}')`)
      again.execute('DELETE FROM ev WHERE id = 1')
      for (const [name, sql] of Object.entries(VIEWS)) expect(sorted(again, `SELECT * FROM ${name}`), name).toEqual(sorted(again, sql))
      again.close()
    })
  }

  it('COPY reads jsonb as its text (escapes as for text), and refuses a bad one', () => {
    const dir = tempDir()
    const db = Engine.open()
    db.execute('CREATE TABLE d (k INT, j JSONB)')
    const file = path.join(dir, 'd.tsv')
    writeFileSync(file, '1\t{"b": [1.0], "a": "tab\\\\tand"}\n2\t\\N\n')
    db.execute(`COPY d FROM '${file}'`)
    expect(db.query('SELECT k, j, j->>\'a\' FROM d ORDER BY k').rows).toEqual([
      [1, '{"a": "tab\\tand", "b": [1.0]}', 'tab\tand'],
      [2, null, null],
    ])
    writeFileSync(file, '3\t{"a": \n')
    expect(db.execute(`COPY d FROM '${file}'`)[0]!.notice).toMatch(/1 records? rejected/)
    db.close()
  })
})
