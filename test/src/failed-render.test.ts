// A statement that fails while its dataflow is being built (a VALUES row that raises, an
// expression that does not compile) leaves the circuit as it was: no operator it added, no
// shared arrangement that a later query would find (and read as empty, never backfilled).
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/index.js'

describe('a render that fails', () => {
  it('takes back the arrangements it made, for ad hoc queries and views', () => {
    const db = Engine.open()
    db.execute('CREATE TABLE jt (id INT PRIMARY KEY, x INT)')
    db.execute('INSERT INTO jt VALUES (1, 2), (2, 3)')
    const selfJoin = 'SELECT jt.id, j.k FROM jt JOIN (SELECT id AS k FROM jt) j ON jt.id = j.k ORDER BY 1'
    const failing = 'SELECT jt.id FROM jt JOIN (VALUES (1, 1 / 0)) v(a, b) ON jt.id = v.a'
    expect(() => db.query(failing)).toThrow(expect.objectContaining({ code: '22012' }))
    expect(db.query(selfJoin).rows).toEqual([[1, 1], [2, 2]])
    expect(() => db.execute(`CREATE MATERIALIZED VIEW bad AS ${failing}`)).toThrow(expect.objectContaining({ code: '22012' }))
    expect(db.query(selfJoin).rows).toEqual([[1, 1], [2, 2]])
    // and a view made afterwards sees every row, then and later
    db.execute(`CREATE MATERIALIZED VIEW good AS ${selfJoin.replace(' ORDER BY 1', '')}`)
    db.execute('INSERT INTO jt VALUES (3, 4)')
    expect(db.query('SELECT * FROM good ORDER BY 1').rows).toEqual([[1, 1], [2, 2], [3, 3]])
  })
})
