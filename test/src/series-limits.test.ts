// generate_series builds its values inside one call: a long series (wide numerics, millions of
// values before its 2^24 cap) must still end at its statement's deadline, as every other long
// statement does (found by the statement fuzzer, whose mutated series ran for minutes).
import { describe, expect, it } from 'vitest'
import { Engine, RivuletError } from '../../src/index.js'

describe('generate_series under a deadline', () => {
  it('a long numeric series ends with 57014 soon after the deadline, and the engine goes on', () => {
    const db = new Engine()
    // the step from a row: the series is built per row, at run time
    db.execute('CREATE TABLE t (step NUMERIC)')
    db.execute('INSERT INTO t VALUES (0.0000000000000000000000000000001)')
    const started = performance.now()
    let error: unknown
    try {
      db.execute('SELECT count(*) FROM t, generate_series(0::numeric, 1::numeric, t.step) AS g', { limits: { deadline: Date.now() + 200 } })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(RivuletError)
    expect((error as RivuletError).code).toBe('57014')
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(db.query('SELECT count(*) FROM generate_series(1, 10)').rows).toEqual([[10]])
  })
})
