// Lowering goldens: EXPLAIN (delta plan) of queries as the engine plans them,
// explainDelta(lower(optimize(bind(sql)))). Checks which columns joins key on, which helper
// columns are computed for keys, where filters land, and how set operations, top-N and
// outer joins with non-equality conditions become delta operators.
import { describe, expect, it } from 'vitest'
import { explainDelta, lower } from '../../planner/index.js'
import { RivuletError } from '../../grammar/index.js'
import { col, eq, gt, join, scan, showDelta } from './helpers.js'

describe('join keys', () => {
  it('keys an inner join on every equality between the two sides', () => {
    // a.x = b.x and b.y = a.y: two key columns, in condition order, left and right aligned
    expect(showDelta('SELECT a.z, b.w FROM a JOIN b ON a.x = b.x AND b.y = a.y')).toMatchInlineSnapshot(`
      "Mfp map=[#2, #5]
        Join inner on left[#0, #1] = right[#0, #1]  // state: reads both arrangements
          Arrange key=[#0, #1]  // state: arrangement of input rows by [#0, #1]; unbounded
            Input a
          Arrange key=[#0, #1]  // state: arrangement of input rows by [#0, #1]; unbounded
            Input b"
    `)
  })

  it('keys a comma join on its WHERE equality (pushdown turns it into the join condition)', () => {
    // no cross product
    expect(showDelta('SELECT a.z, c.k FROM a, c WHERE c.x = a.x')).toMatchInlineSnapshot(`
      "Mfp map=[#2, #4]
        Join inner on left[#0] = right[#0]  // state: reads both arrangements
          Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
            Input a
          Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
            Input c"
    `)
  })

  it('computes key columns for equalities between expressions', () => {
    // a.x + 1 = c.k: the left side gets a helper column with a.x + 1, keyed on it
    expect(showDelta('SELECT a.z, c.k FROM a JOIN c ON a.x + 1 = c.k')).toMatchInlineSnapshot(`
      "Mfp map=[#2, #4]
        Join inner on left[#3] = right[#1]  // state: reads both arrangements
          Arrange key=[#3]  // state: arrangement of input rows by [#3]; unbounded
            Mfp map=[#0, #1, #2, int4_add(#0, 1)]
              Input a
          Arrange key=[#1]  // state: arrangement of input rows by [#1]; unbounded
            Input c"
    `)
  })

  it('keeps a non-equality between the sides as a filter after an inner join', () => {
    // a.y < b.y cannot be a key: it filters the joined rows
    expect(showDelta('SELECT a.z, b.w FROM a JOIN b ON a.x = b.x AND a.y < b.y')).toMatchInlineSnapshot(`
      "Mfp filter=(#1 < #4) map=[#2, #5]
        Join inner on left[#0] = right[#0]  // state: reads both arrangements
          Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
            Input a
          Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
            Input b"
    `)
  })

  it('joins on no key (one arrangement per side keyed on []) for a cross join', () => {
    // every pair matches
    expect(showDelta('SELECT a.x, c.k FROM a CROSS JOIN c')).toMatchInlineSnapshot(`
      "Mfp map=[#0, #4]
        Join inner on left[] = right[]  // state: reads both arrangements
          Arrange key=[]  // state: arrangement of input rows by []; unbounded
            Input a
          Arrange key=[]  // state: arrangement of input rows by []; unbounded
            Input c"
    `)
  })

  it('filters the inner side of a LEFT JOIN with its one-sided ON conjunct', () => {
    // b.y > 1 only removes candidate matches; unmatched rows of a are still padded
    expect(showDelta('SELECT * FROM a LEFT JOIN b ON a.x = b.x AND b.y > 1')).toMatchInlineSnapshot(`
      "Join left on left[#0] = right[#0]  // state: reads both arrangements
        Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
          Input a
        Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
          Mfp filter=(#1 > 1)
            Input b"
    `)
  })

  it('keys a LEFT JOIN on a one-sided ON conjunct of the preserved side (TRUE or NULL key)', () => {
    // a.y > 1 decides matching but must not drop rows of a: key CASE WHEN a.y > 1 THEN TRUE
    // END (NULL never matches) against the constant TRUE on the right
    expect(showDelta('SELECT * FROM a LEFT JOIN b ON a.x = b.x AND a.y > 1')).toMatchInlineSnapshot(`
      "Join left on left[#0, #3] = right[#0, #3]  // state: reads both arrangements
        Arrange key=[#0, #3]  // state: arrangement of input rows by [#0, #3]; unbounded
          Mfp map=[#0, #1, #2, CASE WHEN (#1 > 1) THEN true ELSE NULL END]
            Input a
        Arrange key=[#0, #3]  // state: arrangement of input rows by [#0, #3]; unbounded
          Mfp map=[#0, #1, #2, true]
            Input b"
    `)
  })

  it('keys a FULL JOIN on one-sided ON conjuncts of both sides', () => {
    // both sides are preserved: each one-sided conjunct becomes a TRUE/NULL key column
    expect(showDelta('SELECT * FROM a FULL JOIN b ON a.x = b.x AND a.y > 1 AND b.y < 5')).toMatchInlineSnapshot(`
      "Join full on left[#0, #3, #4] = right[#0, #3, #4]  // state: reads both arrangements
        Arrange key=[#0, #3, #4]  // state: arrangement of input rows by [#0, #3, #4]; unbounded
          Mfp map=[#0, #1, #2, CASE WHEN (#1 > 1) THEN true ELSE NULL END, true]
            Input a
        Arrange key=[#0, #3, #4]  // state: arrangement of input rows by [#0, #3, #4]; unbounded
          Mfp map=[#0, #1, #2, true, CASE WHEN (#1 < 5) THEN true ELSE NULL END]
            Input b"
    `)
  })

  it('keys semi and anti joins from IN / NOT EXISTS on the correlation equality', () => {
    // semi join a.x = c.k; anti join a.y = d.v
    expect(showDelta('SELECT z FROM a WHERE x IN (SELECT k FROM c) AND NOT EXISTS (SELECT 1 FROM d WHERE d.v = a.y)')).toMatchInlineSnapshot(`
      "Mfp map=[#2]
        Join anti on left[#1] = right[#1]  // state: reads both arrangements
          Arrange key=[#1]  // state: arrangement of input rows by [#1]; unbounded
            Join semi on left[#0] = right[#0]  // state: reads both arrangements
              Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
                Input a
              Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
                Mfp map=[#1]
                  Input c
          Arrange key=[#1]  // state: arrangement of input rows by [#1]; unbounded
            Input d"
    `)
  })

  it('keys a null-aware anti join (NOT IN) on the single operand', () => {
    // NOT IN: a NULL on the right empties the result, a NULL operand never qualifies
    expect(showDelta('SELECT z FROM a WHERE x NOT IN (SELECT k FROM c)')).toMatchInlineSnapshot(`
      "Mfp map=[#2]
        Join anti null-aware on left[#0] = right[#0]  // state: reads both arrangements
          Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
            Input a
          Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
            Mfp map=[#1]
              Input c"
    `)
  })
})

describe('outer joins with non-equality conditions', () => {
  it('lowers a LEFT JOIN with a residual as inner join ∪ padded anti join of the unmatched rows', () => {
    // the anti join matches whole rows by a NULL-safe key, so duplicates and NULLs are exact
    expect(showDelta('SELECT * FROM a LEFT JOIN b ON a.x = b.x AND a.y < b.y')).toMatchInlineSnapshot(`
      "Union
        Mfp filter=(#1 < #4)
          Join inner on left[#0] = right[#0]  // state: reads both arrangements
            Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
              Input a
            Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
              Input b
        Mfp map=[#0, #1, #2, NULL, NULL, NULL]
          Join anti on left[#3] = right[#3]  // state: reads both arrangements
            Arrange key=[#3]  // state: arrangement of input rows by [#3]; unbounded
              Mfp map=[#0, #1, #2, __null_safe_key(#0, #1, #2)]
                Input a
            Arrange key=[#3]  // state: arrangement of input rows by [#3]; unbounded
              Mfp filter=(#1 < #4) map=[#0, #1, #2, __null_safe_key(#0, #1, #2)]
                Join inner on left[#0] = right[#0]  // state: reads both arrangements
                  Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
                    Input a
                  Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
                    Input b"
    `)
  })

  it('lowers a FULL JOIN on a pure non-equality with both sides padded', () => {
    // inner join ∪ unmatched a padded right ∪ unmatched b padded left
    expect(showDelta('SELECT a.x, b.x FROM a FULL JOIN b ON a.y < b.y')).toMatchInlineSnapshot(`
      "Mfp map=[#0, #3]
        Union
          Mfp filter=(#1 < #4)
            Join inner on left[] = right[]  // state: reads both arrangements
              Arrange key=[]  // state: arrangement of input rows by []; unbounded
                Input a
              Arrange key=[]  // state: arrangement of input rows by []; unbounded
                Input b
          Mfp map=[#0, #1, #2, NULL, NULL, NULL]
            Join anti on left[#3] = right[#3]  // state: reads both arrangements
              Arrange key=[#3]  // state: arrangement of input rows by [#3]; unbounded
                Mfp map=[#0, #1, #2, __null_safe_key(#0, #1, #2)]
                  Input a
              Arrange key=[#3]  // state: arrangement of input rows by [#3]; unbounded
                Mfp filter=(#1 < #4) map=[#0, #1, #2, __null_safe_key(#0, #1, #2)]
                  Join inner on left[] = right[]  // state: reads both arrangements
                    Arrange key=[]  // state: arrangement of input rows by []; unbounded
                      Input a
                    Arrange key=[]  // state: arrangement of input rows by []; unbounded
                      Input b
          Mfp map=[NULL, NULL, NULL, #0, #1, #2]
            Join anti on left[#3] = right[#3]  // state: reads both arrangements
              Arrange key=[#3]  // state: arrangement of input rows by [#3]; unbounded
                Mfp map=[#0, #1, #2, __null_safe_key(#0, #1, #2)]
                  Input b
              Arrange key=[#3]  // state: arrangement of input rows by [#3]; unbounded
                Mfp filter=(#1 < #4) map=[#3, #4, #5, __null_safe_key(#3, #4, #5)]
                  Join inner on left[] = right[]  // state: reads both arrangements
                    Arrange key=[]  // state: arrangement of input rows by []; unbounded
                      Input a
                    Arrange key=[]  // state: arrangement of input rows by []; unbounded
                      Input b"
    `)
  })

  it('refuses a semi join with a non-equality that is not routed through a domain', () => {
    // the decorrelation never builds this; a hand-built one is refused, not mis-lowered
    let err: unknown
    try {
      lower(join('semi', scan('c'), scan('d'), gt(col(1), col(2))))
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(RivuletError)
    expect((err as RivuletError).code).toBe('0A000')
  })
})

describe('set operations', () => {
  it('EXCEPT is threshold(distinct(l) − distinct(r))', () => {
    // a row is in the result when it is in l and not in r, once
    expect(showDelta('SELECT x FROM a EXCEPT SELECT k FROM c')).toMatchInlineSnapshot(`
      "Threshold  // state: weight per row; unbounded
        Union
          Distinct  // state: weight per row; unbounded
            Mfp map=[#0]
              Input a
          Negate
            Distinct  // state: weight per row; unbounded
              Mfp map=[#1]
                Input c"
    `)
  })

  it('EXCEPT ALL is threshold(l − r)', () => {
    // max(count_l − count_r, 0) copies
    expect(showDelta('SELECT x FROM a EXCEPT ALL SELECT k FROM c')).toMatchInlineSnapshot(`
      "Threshold  // state: weight per row; unbounded
        Union
          Mfp map=[#0]
            Input a
          Negate
            Mfp map=[#1]
              Input c"
    `)
  })

  it('INTERSECT is distinct(l) − threshold(distinct(l) − distinct(r))', () => {
    // min(1, 1) for rows in both
    expect(showDelta('SELECT x FROM a INTERSECT SELECT k FROM c')).toMatchInlineSnapshot(`
      "Union
        Distinct  // state: weight per row; unbounded
          Mfp map=[#0]
            Input a
        Negate
          Threshold  // state: weight per row; unbounded
            Union
              Distinct  // state: weight per row; unbounded
                Mfp map=[#0]
                  Input a
              Negate
                Distinct  // state: weight per row; unbounded
                  Mfp map=[#1]
                    Input c"
    `)
  })

  it('INTERSECT ALL is l − threshold(l − r)', () => {
    // min(count_l, count_r) = count_l − max(count_l − count_r, 0)
    expect(showDelta('SELECT x FROM a INTERSECT ALL SELECT k FROM c')).toMatchInlineSnapshot(`
      "Union
        Mfp map=[#0]
          Input a
        Negate
          Threshold  // state: weight per row; unbounded
            Union
              Mfp map=[#0]
                Input a
              Negate
                Mfp map=[#1]
                  Input c"
    `)
  })

  it('UNION is distinct over a union, UNION ALL a plain union', () => {
    // UNION ALL is linear: no state
    expect(showDelta('SELECT x FROM a UNION SELECT k FROM c UNION ALL SELECT v FROM d')).toMatchInlineSnapshot(`
      "Union
        Distinct  // state: weight per row; unbounded
          Union
            Mfp map=[#0]
              Input a
            Mfp map=[#1]
              Input c
        Mfp map=[#1]
          Input d"
    `)
  })
})

describe('aggregates, top-N and row_number', () => {
  it('computes a group key expression into a helper column before the reduce', () => {
    // GROUP BY x + y: the reduce keys on input columns only
    expect(showDelta('SELECT x + y AS s, count(*), sum(x) FROM a GROUP BY x + y')).toMatchInlineSnapshot(`
      "Reduce key=[#3] aggs=[count_rows(), sum(#0)]  // state: accumulators per group; unbounded
        Mfp map=[#0, #1, #2, int4_add(#0, #1)]
          Input a"
    `)
  })

  it('lowers ORDER BY … LIMIT to a top-N', () => {
    // the top-N keeps the ordered rows; LIMIT 3 OFFSET 1
    expect(showDelta('SELECT x, y FROM a ORDER BY y DESC, x LIMIT 3 OFFSET 1')).toMatchInlineSnapshot(`
      "TopK order=[#1 DESC, #0] limit=3 offset=1  // state: ordered rows per partition; unbounded
        Mfp map=[#0, #1]
          Input a"
    `)
  })

  it('lowers ROW_NUMBER() … <= N to a per-partition TopK with a row number column and a filter', () => {
    // PARTITION BY x ORDER BY y (the partition key is copied into a helper column); the
    // rn <= 2 filter becomes the TopK's limit (limit-row-number), so only the first two rows
    // of each partition are numbered
    expect(showDelta('SELECT * FROM (SELECT x, y, ROW_NUMBER() OVER (PARTITION BY x ORDER BY y) AS rn FROM a) s WHERE rn <= 2')).toMatchInlineSnapshot(`
      "Mfp map=[#0, #1, #4]
        TopK partition=[#3] order=[#1] limit=2 row_number  // state: ordered rows per partition; unbounded
          Mfp map=[#0, #1, #2, #0]
            Input a"
    `)
  })

  it('drops ORDER BY without LIMIT (a maintained view is a set; reads sort at presentation)', () => {
    // no operator for the sort
    expect(showDelta('SELECT x FROM a ORDER BY x')).toMatchInlineSnapshot(`
      "Mfp map=[#0]
        Input a"
    `)
  })

  it('fuses stacked filters and projections into one map-filter-project', () => {
    // filter and projection over a scan: one Mfp
    expect(showDelta('SELECT x * 2 AS d FROM (SELECT x, y FROM a WHERE y > 0) s WHERE x < 10')).toMatchInlineSnapshot(`
      "Mfp filter=((#1 > 0) AND (#0 < 10)) map=[int4_mul(#0, 2)]
        Input a"
    `)
  })
})

describe('hand-built plans', () => {
  it('lowers an equi-join written as a plan literal', () => {
    // c.k = d.k
    expect(explainDelta(lower(join('inner', scan('c'), scan('d'), eq(col(1), col(2)))))).toMatchInlineSnapshot(`
      "Join inner on left[#1] = right[#0]  // state: reads both arrangements
        Arrange key=[#1]  // state: arrangement of input rows by [#1]; unbounded
          Input c
        Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded
          Input d"
    `)
  })
})

describe('window functions', () => {
  it('lowers the calls of one window to one Over node, each other window to another on top', () => {
    // lag and the running sum share (PARTITION BY a.x ORDER BY a.y); rank orders by a.z alone
    expect(showDelta('SELECT lag(a.y) OVER w, sum(a.y) OVER w, rank() OVER (ORDER BY a.z) FROM a WINDOW w AS (PARTITION BY a.x ORDER BY a.y)')).toMatchInlineSnapshot(`
      "Mfp map=[#3, #4, #5]
        Over order=[#2] fns=[rank()]  // state: rows per partition in order; a change recomputes only the rows it reaches; unbounded (not freed: the input retracts, or no watermark bounds the first ORDER BY column or a PARTITION BY column)
          Over partition=[#0] order=[#1] fns=[lag(#1, 1), sum(#1) range unbounded preceding..current row]  // state: rows per partition in order, 1 partition total (frames reaching a partition edge); a change recomputes only the rows it reaches; unbounded (not freed: the input retracts, or no watermark bounds the first ORDER BY column or a PARTITION BY column)
            Input a"
    `)
  })

  it('projects expressions a window reads into columns first', () => {
    expect(showDelta('SELECT a.z, max(a.y * 2) OVER (PARTITION BY a.x + 1 ORDER BY a.y ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM a')).toMatchInlineSnapshot(`
      "Mfp map=[#2, #5]
        Over partition=[#3] order=[#1] fns=[max(#4) rows 1 preceding..current row]  // state: rows per partition in order; a change recomputes only the rows it reaches; unbounded (not freed: the input retracts, or no watermark bounds the first ORDER BY column or a PARTITION BY column)
          Mfp map=[#0, #1, #2, int4_add(#0, 1), int4_mul(#1, 2)]
            Input a"
    `)
  })
})
