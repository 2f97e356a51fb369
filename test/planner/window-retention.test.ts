// What an Over node over an append-only stream keeps of the rows the watermark passed
// (planner/lower/window-retention.ts): reaches back and forward add up; frames reaching
// UNBOUNDED FOLLOWING, values from UNBOUNDED PRECEDING and ROWS mixed with RANGE offsets free
// nothing.
import { describe, expect, it } from 'vitest'
import type { FrameSpec, WindowFunctionCall } from '../../planner/index.js'
import { windowRetention } from '../../planner/lower/window-retention.js'

const RUNNING: FrameSpec = { mode: 'range', start: { kind: 'unboundedPreceding' }, end: { kind: 'currentRow' } }
const call = (fn: WindowFunctionCall['fn'], frame: FrameSpec = RUNNING, offset = 0): WindowFunctionCall => ({ fn, args: [], offset, frame, type: 'bigint' })
const rows = (back: number, forward: number): FrameSpec => ({ mode: 'rows', start: { kind: 'preceding', offset: back }, end: { kind: 'following', offset: forward } })
const range = (back: number, forward: number): FrameSpec => ({ mode: 'range', start: { kind: 'preceding', offset: back }, end: { kind: 'following', offset: forward } })

describe('window-retention', () => {
  it('ranks and running aggregates keep nothing: they count freed rows', () => {
    expect(windowRetention([call('row_number'), call('rank'), call('dense_rank'), call('sum')])).toEqual({ rows: 0, distance: 0 })
  })

  it('LAG and LEAD: the rows within the offsets, back and forward added', () => {
    expect(windowRetention([call('lag', RUNNING, 2), call('lead', RUNNING, 1)])).toEqual({ rows: 3, distance: 0 })
  })

  it('ROWS and RANGE frames: their offsets; an aggregate from UNBOUNDED PRECEDING to n PRECEDING keeps n', () => {
    expect(windowRetention([call('sum', rows(2, 1)), call('max', { mode: 'rows', start: { kind: 'unboundedPreceding' }, end: { kind: 'preceding', offset: 3 } })])).toEqual({ rows: 4, distance: 0 })
    expect(windowRetention([call('count', range(600, 60))])).toEqual({ rows: 0, distance: 660 })
  })

  it('frees nothing for UNBOUNDED FOLLOWING, FIRST_VALUE from UNBOUNDED PRECEDING, or ROWS mixed with RANGE offsets', () => {
    expect(windowRetention([call('sum', { mode: 'rows', start: { kind: 'currentRow' }, end: { kind: 'unboundedFollowing' } })])).toBeUndefined()
    expect(windowRetention([call('first_value')])).toBeUndefined()
    expect(windowRetention([call('lag', RUNNING, 1), call('sum', range(10, 0))])).toBeUndefined()
  })
})
