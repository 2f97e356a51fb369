// Which rows an Over node over an append-only stream must keep once the watermark has passed
// them. New rows then only arrive after every passed row (the first ORDER BY key is the
// watermarked column, ascending, NULLs last), so a passed row's own result changes only
// through functions that look forward (LEAD, frames ending after the current row), and new
// rows read passed rows only through functions that look back (LAG, frames starting or ending
// before the current row). A passed row is freed unless it is within the rows a kept row could
// still need: the last `rows` passed rows, and the passed rows within `distance` (RANGE
// offsets, in the column's unit) of the watermark. Looking forward and back add up (a row
// whose LEAD can change is recomputed, and reads its LAG). Ranks keep counting from the freed
// rows (their number and peer groups are kept), and running aggregates start from the
// partition total, so neither needs the freed rows.

import type { FrameBoundSpec, WindowFunctionCall } from '../logical/plan.js'

export interface WindowRetention {
  /** Passed rows kept at the end of the passed region (ROWS offsets, LAG / LEAD). */
  readonly rows: number
  /** Passed rows kept within this distance below the watermark (RANGE offsets). */
  readonly distance: number
}

/** The retention of an Over node's functions, or undefined when passed rows cannot be freed
 *  (a frame reaching UNBOUNDED FOLLOWING, FIRST/NTH_VALUE from UNBOUNDED PRECEDING, relative
 *  ranks, or ROWS and RANGE offsets mixed, whose reaches do not add up). */
export function windowRetention(functions: readonly WindowFunctionCall[]): WindowRetention | undefined {
  let back = 0
  let forward = 0
  let backValue = 0
  let forwardValue = 0
  for (const f of functions) {
    switch (f.fn) {
      case 'row_number':
      case 'rank':
      case 'dense_rank':
        continue
      case 'percent_rank':
      case 'cume_dist':
      case 'ntile':
        // divided by the partition's size, which every new row changes
        return undefined
      case 'lag':
        back = Math.max(back, f.offset)
        continue
      case 'lead':
        forward = Math.max(forward, f.offset)
        continue
    }
    const aggregate = f.fn !== 'first_value' && f.fn !== 'last_value' && f.fn !== 'nth_value'
    const { mode, start, end } = f.frame
    if (end.kind === 'unboundedFollowing') return undefined
    if (start.kind === 'unboundedPreceding' && !aggregate) return undefined
    const reach = (b: FrameBoundSpec): void => {
      if (b.kind !== 'preceding' && b.kind !== 'following') return
      if (b.kind === 'preceding') {
        if (mode === 'rows') back = Math.max(back, b.offset)
        else backValue = Math.max(backValue, b.offset)
      } else if (mode === 'rows') forward = Math.max(forward, b.offset)
      else forwardValue = Math.max(forwardValue, b.offset)
    }
    reach(start)
    reach(end)
  }
  if ((back > 0 || forward > 0) && (backValue > 0 || forwardValue > 0)) return undefined
  return { rows: back + forward, distance: backValue + forwardValue }
}
