// The system relations with many relations: the catalog functions bound as lookups over the
// catalog (pg_table_is_visible, pg_get_indexdef, …) must not grow one CASE branch per relation
// into a stack overflow (54001) — psql's \dt on a catalog of thousands of tables.

import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'

describe('system catalog', () => {
  it('answers psql-style catalog queries over 1500 tables', () => {
    const e = Engine.open()
    for (let i = 0; i < 1500; i++) e.execute(`CREATE TABLE t${i} (id INT PRIMARY KEY, a TEXT)`)
    const list = e.execute(
      `SELECT c.relname, pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r','p','') AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' AND pg_catalog.pg_table_is_visible(c.oid)`,
    )[0]!
    expect(list.rows).toHaveLength(1500)
    const defs = e.execute('SELECT pg_catalog.pg_get_indexdef(i.indexrelid, 0, true) FROM pg_catalog.pg_index i')[0]!
    expect(defs.rows).toHaveLength(1500)
    expect(e.execute("SELECT pg_catalog.pg_get_indexdef(i.indexrelid, 0, true) FROM pg_catalog.pg_index i WHERE i.indrelid = 't1499'::regclass")[0]!.rows).toEqual([['CREATE UNIQUE INDEX t1499_pkey ON public.t1499 USING btree (id)']])
    e.close()
  }, 60_000)
})
