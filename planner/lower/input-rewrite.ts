// Delta plans over a relation whose shape changed (ALTER TABLE): which of its columns a plan
// reads, and the plan with its reads of the relation replaced (by a projection of the new
// shape back onto the old one, or an input of the renamed relation). Plans are immutable and
// share nodes; a rewrite keeps the sharing (one copy per node).

import type { DeltaPlan, InputDelta } from './delta-plan.js'
import { deltaChildren } from './delta-plan.js'
import { referencedColumns, substituteColumns } from '../logical/tree.js'

/** Columns of a node's output something needs: some, or all of them. */
type Need = ReadonlySet<number> | 'all'

/** The columns of `relation` that `plan` reads, followed from the plan's output down to each
 *  input of the relation: a map-filter-project reads what its kept expressions and its filter
 *  name, a GROUP BY's reduce its keys and aggregate arguments, a join what its output needs
 *  of each side and the keys; any other node all of its input ('all': the whole relation). */
export function inputColumnsRead(plan: DeltaPlan, relation: string): Need {
  // parents before children (a node shared by several is reached once, with every need)
  const order: DeltaPlan[] = []
  const seen = new Set<DeltaPlan>()
  const visit = (p: DeltaPlan): void => {
    if (seen.has(p)) return
    seen.add(p)
    for (const c of deltaChildren(p)) visit(c)
    order.push(p)
  }
  visit(plan)
  order.reverse()
  const needs = new Map<DeltaPlan, Need>([[plan, 'all']])
  const add = (p: DeltaPlan, n: Need): void => {
    const had = needs.get(p)
    if (had === 'all') return
    if (n === 'all') return void needs.set(p, 'all')
    const merged = new Set(had ?? [])
    for (const i of n) merged.add(i)
    needs.set(p, merged)
  }
  const read = new Set<number>()
  for (const p of order) {
    const need = needs.get(p) ?? new Set<number>()
    if (p.kind === 'input') {
      if (p.relation !== relation || p.versions !== undefined) continue
      if (need === 'all') return 'all'
      for (const i of need) read.add(i)
      continue
    }
    for (const [child, n] of childNeeds(p, need)) add(child, n)
  }
  return read
}

/** What a node needs of each child to give `need` of its output. */
function childNeeds(p: DeltaPlan, need: Need): [DeltaPlan, Need][] {
  const each = (n: Need): [DeltaPlan, Need][] => deltaChildren(p).map((c) => [c, n])
  switch (p.kind) {
    case 'mfp': {
      const out = new Set<number>()
      if (p.predicate !== undefined) referencedColumns(p.predicate, out)
      if (p.projection === undefined) {
        if (need === 'all') return [[p.input, 'all']]
        for (const i of need) out.add(i)
      } else p.projection.forEach((e, i) => (need === 'all' || need.has(i) ? referencedColumns(e, out) : undefined))
      return [[p.input, out]]
    }
    case 'reduce': {
      const out = new Set<number>(p.key)
      for (const a of p.aggregates) {
        for (const e of a.args) referencedColumns(e, out)
        for (const k of a.orderBy) referencedColumns(k.expr, out)
        if (a.filter !== undefined) referencedColumns(a.filter, out)
      }
      return [[p.input, out]]
    }
    case 'arrange': {
      if (need === 'all') return [[p.input, 'all']]
      const out = new Set<number>([...need, ...p.key])
      if (p.freeBy !== undefined) out.add(p.freeBy.column)
      return [[p.input, out]]
    }
    case 'join': {
      if (need === 'all') return each('all')
      const left = new Set<number>()
      const right = new Set<number>()
      for (const i of need) {
        if (i < p.leftWidth) left.add(i)
        else if (p.joinType !== 'semi' && p.joinType !== 'anti') right.add(i - p.leftWidth)
      }
      return [[p.left, left], [p.right, right]]
    }
    case 'union':
    case 'negate':
      return each(need)
    default:
      return each('all')
  }
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
