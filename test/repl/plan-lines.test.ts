import { describe, expect, it } from 'vitest'
import { fitPlanLines } from '../../src/repl/plan-lines.js'

const plan = [
  'Materialize  [op 14: view: reads the groups of Reduce#13]',
  '  Reduce key=[#2, #1] aggs=[max(#0), count_rows()]  // state: accumulators per group; unbounded  [op 13: groups keyed by [#2, #1]: 0 groups (max, countRows)]',
  '    Mfp map=[#1, #2, #4]  [op 12]',
  '      Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded  [op 10: arrangement keyed by [#0]: 0 rows in 0 keys]',
]

describe('EXPLAIN lines on a terminal', () => {
  it('puts the annotations of a line too wide for the terminal on lines of their own', () => {
    expect(fitPlanLines(plan, 80)).toEqual([
      'Materialize  [op 14: view: reads the groups of Reduce#13]',
      '  Reduce key=[#2, #1] aggs=[max(#0), count_rows()]',
      '    // state: accumulators per group; unbounded',
      '    [op 13: groups keyed by [#2, #1]: 0 groups (max, countRows)]',
      '    Mfp map=[#1, #2, #4]  [op 12]',
      '      Arrange key=[#0]',
      '        // state: arrangement of input rows by [#0]; unbounded',
      '        [op 10: arrangement keyed by [#0]: 0 rows in 0 keys]',
    ])
  })

  it('leaves lines that fit, and a wide line without annotations, as they are', () => {
    expect(fitPlanLines(plan, 400)).toEqual(plan)
    const wide = `Mfp filter=(${'#1 > 10 AND '.repeat(10)}true)`
    expect(fitPlanLines([wide], 40)).toEqual([wide])
  })

  it('does not split at brackets that are part of the operator (key=[#0])', () => {
    expect(fitPlanLines(['Arrange key=[#0]  // state: arrangement of input rows by [#0]; unbounded'], 30)).toEqual(['Arrange key=[#0]', '  // state: arrangement of input rows by [#0]; unbounded'])
  })
})
