// OVER clauses: frames, named windows, and the words a frame uses staying plain identifiers.
import { describe, expect, it } from 'vitest'
import { parse, printStatement } from '../../grammar/index.js'

const roundTrip = (sql: string): string => printStatement(parse(sql)[0]!.statement)

describe('window frames and named windows', () => {
  it('parses ROWS and RANGE frames', () => {
    expect(roundTrip('SELECT sum(x) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM s')).toBe(
      'SELECT sum(x) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM s',
    )
    expect(roundTrip("SELECT sum(x) OVER (ORDER BY t RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) FROM s")).toContain('RANGE BETWEEN')
    expect(roundTrip('SELECT count(*) OVER (ORDER BY t ROWS UNBOUNDED PRECEDING) FROM s')).toContain('ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW')
    expect(roundTrip('SELECT last_value(x) OVER (ORDER BY t RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM s')).toContain('RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING')
  })

  it('parses named windows', () => {
    const sql = roundTrip('SELECT lag(x) OVER w, rank() OVER (w ROWS 1 PRECEDING) FROM s WINDOW w AS (PARTITION BY k ORDER BY t)')
    expect(sql).toBe('SELECT lag(x) OVER w, rank() OVER (w ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM s WINDOW w AS (PARTITION BY k ORDER BY t)')
  })

  it('keeps frame words usable as names', () => {
    expect(roundTrip('SELECT range, current, preceding, following, unbounded FROM t')).toBe('SELECT range, current, preceding, following, unbounded FROM t')
  })
})
