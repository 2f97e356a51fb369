// generate_series builds its values inside one call. A series too long to build (over 2^24
// values, known up front from start, stop and step) is refused at once, whatever its numbers'
// width; a long one within the cap still ends at its statement's deadline. (The statement
// fuzzer found a series of wide numerics that ran for minutes.)
import { describe, expect, it } from 'vitest'
import { Engine, RivuletError } from '../../src/index.js'

function outcome(db: Engine, sql: string, deadlineMs: number): { code: string | undefined; ms: number } {
  const started = performance.now()
  try {
    db.execute(sql, { limits: { deadline: Date.now() + deadlineMs } })
    return { code: undefined, ms: performance.now() - started }
  } catch (e) {
    expect(e).toBeInstanceOf(RivuletError)
    return { code: (e as RivuletError).code, ms: performance.now() - started }
  }
}

describe('generate_series: long series', () => {
  it('a numeric series over the cap is refused at once (54000), from a row too', () => {
    const db = new Engine()
    db.execute('CREATE TABLE t (step NUMERIC)')
    db.execute('INSERT INTO t VALUES (0.0000000000000000000000000000001)')
    const r = outcome(db, 'SELECT count(*) FROM t, generate_series(0::numeric, 1::numeric, t.step) AS g', 60_000)
    expect(r.code).toBe('54000')
    expect(r.ms).toBeLessThan(2_000)
    const wide = outcome(db, `SELECT count(*) FROM generate_series(${'9'.repeat(270)}, 1, -3) AS g`, 60_000)
    expect(wide.code).toBe('54000')
    expect(wide.ms).toBeLessThan(2_000)
  })
  it('a long series within the cap ends with 57014 soon after the deadline, and the engine goes on', () => {
    const db = new Engine()
    db.execute('CREATE TABLE t (step NUMERIC)')
    db.execute('INSERT INTO t VALUES (0.0000001)')
    const r = outcome(db, 'SELECT count(*) FROM t, generate_series(0::numeric, 1::numeric, t.step) AS g', 200)
    expect(r.code).toBe('57014')
    expect(r.ms).toBeLessThan(2_000)
    expect(db.query('SELECT count(*) FROM generate_series(1, 10)').rows).toEqual([[10]])
  })
})
