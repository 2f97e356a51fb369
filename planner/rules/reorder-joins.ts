// reorder-joins: a tree of inner joins (comma joins, CROSS JOIN, INNER JOIN … ON) with its
// filters is flattened into relations and conjuncts and rebuilt left-deep so that each next
// relation is one connected to the ones already joined by an equality (a join key), and every
// conjunct sits at the first join where all its columns are present. Without it,
// `FROM a, b, c WHERE a.x = c.y AND …` starts with a cross product of a and b, whose state
// grows as |a|·|b|. The original column order is restored by a projection on top.
//
// Only applies when the tree has at least three relations or a cross product to remove, and
// only across inner joins (outer/semi/anti joins are kept as units).

import type { ScalarExpr } from '../expr/scalar.js'
import { col } from '../expr/scalar.js'
import type { LogicalPlan } from '../logical/plan.js'
import { conjoin, conjuncts, hasSubquery, jsonReplacer, referencedColumns, remapColumns, sameExpr, transformDown } from '../logical/tree.js'
import type { Rule } from './rule.js'

export const reorderJoins: Rule = {
  name: 'reorder-joins',
  apply(plan) {
    let changed = false
    const out = transformDown(plan, (p) => {
      if (!isInnerJoinTree(p)) return undefined
      const r = reorder(p)
      if (r) changed = true
      return r
    })
    return changed ? out : undefined
  },
}

function isInnerJoin(p: LogicalPlan): p is Extract<LogicalPlan, { kind: 'join' }> {
  return p.kind === 'join' && p.joinType === 'inner'
}

function isInnerJoinTree(p: LogicalPlan): boolean {
  if (isInnerJoin(p)) return true
  return p.kind === 'filter' && isInnerJoin(p.input)
}

interface Flat {
  readonly relations: LogicalPlan[]
  /** Conjuncts over the concatenated columns of `relations` (in their original order). */
  readonly conjuncts: ScalarExpr[]
}

/** Flattens filters and inner joins; column positions stay those of the original tree. */
function flatten(p: LogicalPlan, out: Flat): void {
  if (p.kind === 'filter' && (isInnerJoin(p.input) || p.input.kind === 'filter')) {
    const base = width(out)
    flatten(p.input, out)
    for (const c of conjuncts(p.predicate)) out.conjuncts.push(remapColumns(c, (i) => i + base))
    return
  }
  if (isInnerJoin(p)) {
    const base = width(out)
    flatten(p.left, out)
    flatten(p.right, out)
    if (p.condition) for (const c of conjuncts(p.condition)) out.conjuncts.push(remapColumns(c, (i) => i + base))
    return
  }
  out.relations.push(p)
}

function width(f: Flat): number {
  return f.relations.reduce((n, r) => n + r.columns.length, 0)
}

function reorder(p: LogicalPlan): LogicalPlan | undefined {
  const flat: Flat = { relations: [], conjuncts: [] }
  flatten(p, flat)
  const rels = flat.relations
  if (rels.length < 2) return undefined
  if (flat.conjuncts.some(hasSubquery)) return undefined
  // the relation each original column belongs to
  const offsets: number[] = []
  let w = 0
  for (const r of rels) {
    offsets.push(w)
    w += r.columns.length
  }
  const relOf = (c: number) => {
    let k = 0
    while (k + 1 < offsets.length && offsets[k + 1]! <= c) k++
    return k
  }
  const conj = flat.conjuncts.map((e) => ({ e, rels: new Set([...referencedColumns(e)].map(relOf)) }))
  const isEdge = (c: { e: ScalarExpr; rels: Set<number> }) => c.rels.size === 2 && c.e.kind === 'call' && c.e.fn === 'eq'
  // greedy order: start with relation 0, then always a relation joined by an equality to the
  // set so far (in original order), else the next one in original order
  const order: number[] = [0]
  const inSet = new Set([0])
  while (order.length < rels.length) {
    let next = -1
    for (let k = 0; k < rels.length && next < 0; k++) {
      if (inSet.has(k)) continue
      if (conj.some((c) => isEdge(c) && c.rels.has(k) && [...c.rels].some((r) => r !== k && inSet.has(r)))) next = k
    }
    if (next < 0) next = [...rels.keys()].find((k) => !inSet.has(k))!
    order.push(next)
    inSet.add(next)
  }
  const identity = order.every((k, i) => k === i)
  // rebuild: map original column → position in the new concatenation
  const newPos = new Map<number, number>()
  let at = 0
  for (const k of order) {
    for (let c = 0; c < rels[k]!.columns.length; c++) newPos.set(offsets[k]! + c, at + c)
    at += rels[k]!.columns.length
  }
  const placed = new Set<number>()
  let tree: LogicalPlan = rels[order[0]!]!
  const present = new Set([order[0]!])
  const takeReady = (): ScalarExpr[] => {
    const ready: ScalarExpr[] = []
    conj.forEach((c, i) => {
      if (placed.has(i) || ![...c.rels].every((r) => present.has(r))) return
      placed.add(i)
      ready.push(remapColumns(c.e, (x) => newPos.get(x)!))
    })
    return ready
  }
  const first = takeReady()
  if (first.length > 0) tree = { kind: 'filter', input: tree, predicate: conjoin(first)!, columns: tree.columns }
  for (let i = 1; i < order.length; i++) {
    const r = rels[order[i]!]!
    present.add(order[i]!)
    const cond = conjoin(takeReady())
    tree = { kind: 'join', joinType: 'inner', left: tree, right: r, condition: cond, nullAwareAnti: false, columns: [...tree.columns, ...r.columns] }
  }
  // a rebuilt tree identical in shape to the input would make the optimizer loop
  if (identity && sameShape(p, tree)) return undefined
  const restore: ScalarExpr[] = p.columns.map((c, i) => col(newPos.get(i)!, c.type))
  if (identity) return tree.columns.length === p.columns.length ? { kind: 'project', input: tree, exprs: restore, columns: p.columns } : undefined
  return { kind: 'project', input: tree, exprs: restore, columns: p.columns }
}

/** True when `a` is already a left-deep inner join tree with every conjunct at its lowest join
 *  (compared structurally, ignoring output columns: walking beats serializing deep trees). */
function sameShape(a: LogicalPlan, b: LogicalPlan): boolean {
  if (a === b) return true
  if (a.kind === 'join') return b.kind === 'join' && sameShape(a.left, b.left) && sameShape(a.right, b.right) && sameCondition(a.condition, b.condition)
  if (a.kind === 'filter') return b.kind === 'filter' && sameShape(a.input, b.input) && sameExpr(a.predicate, b.predicate)
  if (b.kind === 'join' || b.kind === 'filter') return false
  if (a.kind === 'scan' || b.kind === 'scan') return a.kind === 'scan' && b.kind === 'scan' && a.relation === b.relation
  return jsonLength(a) === jsonLength(b)
}

function sameCondition(a: ScalarExpr | undefined, b: ScalarExpr | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameExpr(a, b)
}

const JSON_LENGTH = new WeakMap<LogicalPlan, number>()

/** Size of a leaf's serialization (leaves other than scans are told apart by it). */
function jsonLength(p: LogicalPlan): number {
  let n = JSON_LENGTH.get(p)
  if (n === undefined) JSON_LENGTH.set(p, (n = JSON.stringify(p, jsonReplacer).length))
  return n
}
