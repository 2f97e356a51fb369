// Delta plans over a relation whose shape changed (ALTER TABLE): which of its columns a plan
// reads, and the plan with its reads of the relation replaced (by a projection of the new
// shape back onto the old one, or an input of the renamed relation). Plans are immutable and
// share nodes; a rewrite keeps the sharing (one copy per node).

import type { DeltaPlan, InputDelta } from './delta-plan.js'
import { deltaChildren } from './delta-plan.js'
import { referencedColumns, substituteColumns } from '../logical/tree.js'

/** The columns of `relation` that `plan` reads: those its readers' expressions name when every
 *  reader is a map-filter-project or a GROUP BY's reduce, else all of them ('all': a join's
 *  arrangement or the view itself keeps the whole row). */
export function inputColumnsRead(plan: DeltaPlan, relation: string): ReadonlySet<number> | 'all' {
  const isInput = (p: DeltaPlan): p is InputDelta => p.kind === 'input' && p.relation === relation
  // a projection of the input's columns alone (what an earlier ALTER TABLE put in its place)
  // is looked through: its reader's columns are mapped back to the input's
  const adapter = (p: DeltaPlan): readonly number[] | undefined => {
    if (p.kind !== 'mfp' || p.predicate !== undefined || p.projection === undefined || !isInput(p.input)) return undefined
    const out: number[] = []
    for (const e of p.projection) {
      if (e.kind !== 'column') return undefined
      out.push(e.index)
    }
    return out
  }
  if (isInput(plan)) return 'all'
  const root = adapter(plan)
  if (root !== undefined) return new Set(root)
  const read = new Set<number>()
  const seen = new Set<DeltaPlan>()
  const stack: DeltaPlan[] = [plan]
  while (stack.length > 0) {
    const p = stack.pop()!
    if (seen.has(p)) continue
    seen.add(p)
    for (const c of deltaChildren(p)) {
      const through = adapter(c)
      if (!isInput(c) && through === undefined) {
        stack.push(c)
        continue
      }
      const cols = columnsReadOfChild(p)
      if (cols === 'all') {
        // all of the input, or all the projection passes on
        if (through === undefined) return 'all'
        for (const i of through) read.add(i)
      } else for (const i of cols) read.add(through === undefined ? i : through[i]!)
    }
  }
  return read
}

/** The columns of its input a map-filter-project or a GROUP BY's reduce reads ('all' for any
 *  other node). */
function columnsReadOfChild(p: DeltaPlan): ReadonlySet<number> | 'all' {
  const read = new Set<number>()
  if (p.kind === 'mfp' && p.projection !== undefined) {
    if (p.predicate !== undefined) referencedColumns(p.predicate, read)
    for (const e of p.projection) referencedColumns(e, read)
    return read
  }
  if (p.kind === 'reduce') {
    for (const k of p.key) read.add(k)
    for (const a of p.aggregates) {
      for (const e of a.args) referencedColumns(e, read)
      for (const k of a.orderBy) referencedColumns(k.expr, read)
      if (a.filter !== undefined) referencedColumns(a.filter, read)
    }
    return read
  }
  return 'all'
}

/** `p` with new children (in deltaChildren's order). */
export function withDeltaChildren(p: DeltaPlan, children: readonly DeltaPlan[]): DeltaPlan {
  switch (p.kind) {
    case 'input':
    case 'constant':
      return p
    case 'join':
      return { ...p, left: children[0] as typeof p.left, right: children[1] as typeof p.right }
    case 'asofJoin':
    case 'lookupJoin':
    case 'intervalJoin':
      return { ...p, left: children[0]!, right: children[1]! } as DeltaPlan
    case 'union':
      return { ...p, inputs: children }
    default:
      return { ...p, input: children[0]! } as DeltaPlan
  }
}

/** `plan` with every input of `relation` (its rows, not a version history) replaced by
 *  `replace(input)`; the same plan object when it reads no such input. */
export function replaceInputs(plan: DeltaPlan, relation: string, replace: (input: InputDelta) => DeltaPlan): DeltaPlan {
  const done = new Map<DeltaPlan, DeltaPlan>()
  const visit = (p: DeltaPlan): DeltaPlan => {
    const known = done.get(p)
    if (known !== undefined) return known
    let out: DeltaPlan
    if (p.kind === 'input') out = p.relation === relation && p.versions === undefined ? replace(p) : p
    else {
      const children = deltaChildren(p)
      const next = children.map(visit)
      out = next.every((c, i) => c === children[i]) ? p : withDeltaChildren(p, next)
      // a projection replacing the input fuses into the map-filter-project reading it, so the
      // plan still names only the columns it reads (what a later DROP COLUMN asks)
      const inner = p.kind === 'mfp' && p.input.kind === 'input' && out.kind === 'mfp' && out.input !== p.input && out.input.kind === 'mfp' && out.input.predicate === undefined ? out.input : undefined
      if (out.kind === 'mfp' && inner !== undefined && inner.projection !== undefined) {
        const over = inner.projection
        out = { kind: 'mfp', input: inner.input, predicate: out.predicate && substituteColumns(out.predicate, over), projection: out.projection === undefined ? over : out.projection.map((e) => substituteColumns(e, over)), columns: out.columns }
      }
    }
    done.set(p, out)
    return out
  }
  return visit(plan)
}
