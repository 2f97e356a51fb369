// Temporal filters (WHERE ts > NOW() - INTERVAL …) with an injected clock: rows enter and
// leave views as processing time passes, with retractions; after every tick (data or a bare
// refresh) the view equals the same query run ad hoc at that instant, and the subscriber's
// changes sum to the view.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Engine, RivuletError } from '../../src/index.js'
import type { ResultValue } from '../../src/index.js'

const BASE = Date.UTC(2024, 0, 1, 12, 0, 0)
const MIN = 60_000

function ts(minutes: number): string {
  return new Date(BASE + minutes * MIN).toISOString().replace('T', ' ').replace('.000Z', '')
}

function sorted(rows: readonly (readonly ResultValue[])[]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort()
}

describe('temporal filters', () => {
  it('admit rows when their time comes and retract them when it passes', () => {
    let now = BASE
    const db = Engine.open({ clock: () => now })
    db.execute('CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMP)')
    db.execute("CREATE MATERIALIZED VIEW recent AS SELECT id FROM ev WHERE ts > NOW() - INTERVAL '1' HOUR AND ts <= NOW()")
    const changes: string[] = []
    db.subscribe('recent', (b) => {
      for (const [row, diff] of b.changes) changes.push(`${b.tick}:${diff > 0 ? '+' : '-'}${row[0]}`)
    })
    db.execute(`INSERT INTO ev VALUES (1, '${ts(-30)}'), (2, '${ts(-61)}'), (3, '${ts(30)}'), (4, '${ts(-60)}'), (5, '${ts(0)}')`)
    expect(sorted(db.query('SELECT * FROM recent').rows)).toEqual(['[1]', '[5]'])
    now = BASE + 20 * MIN
    expect(db.refresh()).toBe(false) // nothing enters or leaves between 12:00 and 12:20
    now = BASE + 30 * MIN // 3 enters (ts ≤ now is inclusive); 1 leaves (ts > now − 1 h is strict)
    expect(db.refresh()).toBe(true)
    expect(sorted(db.query('SELECT * FROM recent').rows)).toEqual(['[3]', '[5]'])
    now = BASE + 200 * MIN
    db.execute('DELETE FROM ev WHERE id = 2') // a data tick also lets time pass
    expect(db.query('SELECT * FROM recent').rows).toEqual([])
    expect(changes.sort()).toEqual(['1:+1', '1:+5', '2:+3', '2:-1', '3:-3', '3:-5'])
    // a deleted row's scheduled changes go with it
    now = BASE + 300 * MIN
    db.execute(`INSERT INTO ev VALUES (6, '${ts(330)}')`)
    db.execute('DELETE FROM ev WHERE id = 6')
    now = BASE + 340 * MIN
    db.refresh()
    expect(db.query('SELECT * FROM recent').rows).toEqual([])
  })

  it('NOW() reads the injected clock in ad hoc reads and DML, one instant per tick', () => {
    const db = Engine.open({ clock: () => new Date(BASE) })
    // now() is a timestamptz, shown in the session's TimeZone (UTC)
    expect(db.query('SELECT now(), current_date').rows).toEqual([['2024-01-01 12:00:00+00', '2024-01-01']])
    db.execute('CREATE TABLE t (k INT, at TIMESTAMP DEFAULT now())')
    db.execute('INSERT INTO t (k) VALUES (1)')
    db.execute("INSERT INTO t VALUES (2, 'now')")
    expect(db.query('SELECT at FROM t').rows).toEqual([['2024-01-01 12:00:00'], ['2024-01-01 12:00:00']])
  })

  it('refuses NOW() a view cannot maintain, with the statement position', () => {
    const db = Engine.open({ clock: () => BASE })
    db.execute('CREATE TABLE ev (id INT, ts TIMESTAMP)')
    for (const sql of [
      'CREATE MATERIALIZED VIEW v AS SELECT id, now() FROM ev',
      "CREATE MATERIALIZED VIEW v AS SELECT id FROM ev WHERE ts > now() - INTERVAL '1' MONTH",
      'CREATE MATERIALIZED VIEW v AS SELECT id FROM ev WHERE ts::date = current_date',
    ]) {
      let err: unknown
      try {
        db.execute(sql)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(RivuletError)
      expect((err as RivuletError).code).toBe('0A000')
      expect((err as RivuletError).position).toBeDefined()
    }
    expect(db.relations().map((r) => r.name)).toEqual(['ev'])
  })

  it('view == ad hoc recompute at every tick under random data and clock moves', () => {
    type Op = { kind: 'insert'; id: number; at: number } | { kind: 'delete'; id: number } | { kind: 'time'; by: number } | { kind: 'tx'; ids: number[]; at: number }
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), id: fc.integer({ min: 0, max: 12 }), at: fc.integer({ min: -90, max: 90 }) }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant('time' as const), by: fc.integer({ min: 0, max: 45 }) }),
      fc.record({ kind: fc.constant('tx' as const), ids: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 3 }), at: fc.integer({ min: -90, max: 90 }) }),
    )
    const views = [
      "SELECT id, ts FROM ev WHERE ts > NOW() - INTERVAL '30' MINUTE",
      'SELECT id FROM ev WHERE ts <= NOW() AND id % 2 = 0',
      "SELECT count(*) AS n FROM ev WHERE NOW() BETWEEN ts AND ts + INTERVAL '20' MINUTE",
      "SELECT id FROM ev WHERE ts + INTERVAL '10' MINUTE >= NOW() AND ts < NOW() + INTERVAL '5' MINUTE",
    ]
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) => {
        let now = BASE
        const db = Engine.open({ clock: () => now })
        db.execute('CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMP)')
        views.forEach((q, i) => db.execute(`CREATE MATERIALIZED VIEW v${i} AS ${q}`))
        const sums = views.map(() => new Map<string, number>())
        views.forEach((_, i) =>
          db.subscribe(`v${i}`, (b) => {
            for (const [row, diff] of b.changes) {
              const k = JSON.stringify(row)
              sums[i]!.set(k, (sums[i]!.get(k) ?? 0) + diff)
            }
          }),
        )
        const present = new Set<number>()
        for (const o of ops) {
          if (o.kind === 'insert') {
            if (present.has(o.id)) db.execute(`UPDATE ev SET ts = '${ts(o.at + (now - BASE) / MIN)}' WHERE id = ${o.id}`)
            else db.execute(`INSERT INTO ev VALUES (${o.id}, '${ts(o.at + (now - BASE) / MIN)}')`)
            present.add(o.id)
          } else if (o.kind === 'delete') {
            db.execute(`DELETE FROM ev WHERE id = ${o.id}`)
            present.delete(o.id)
          } else if (o.kind === 'time') {
            now += o.by * MIN
            db.refresh()
          } else {
            db.execute('BEGIN')
            for (const id of new Set(o.ids)) {
              if (present.has(id)) db.execute(`DELETE FROM ev WHERE id = ${id}`)
              else db.execute(`INSERT INTO ev VALUES (${id}, '${ts(o.at + (now - BASE) / MIN)}')`)
              if (present.has(id)) present.delete(id)
              else present.add(id)
            }
            now += 7 * MIN // the clock moves during the transaction; its tick reads it once
            db.execute('COMMIT')
          }
          views.forEach((q, i) => {
            const view = sorted(db.query(`SELECT * FROM v${i}`).rows)
            expect(view).toEqual(sorted(db.query(q).rows))
            const fromChanges: string[] = []
            for (const [k, n] of sums[i]!) for (let c = 0; c < n; c++) fromChanges.push(k)
            expect(fromChanges.sort()).toEqual(view)
          })
        }
      }),
      { numRuns: 150 },
    )
  })
})
