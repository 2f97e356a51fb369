// PostgreSQL's jsonb btree order (compareJsonbContainers), equality, and containment (@>).
//
// Order: Object > Array > Boolean > Number > String > Null; an object with more pairs is
// greater, then pairs compare in storage order, key (as text) then value; an array with more
// elements is greater, then elements in order; numbers as numerics (1.0 = 1), strings
// bytewise (the "C" collation rivulet has everywhere). A top-level scalar is, to PostgreSQL, an
// array of one element marked raw: it sorts below an array of one element and, like it, above
// the empty array and below longer arrays ('1' > '[]', '1' < '[0]').
//
// Containment (JsonbDeepContains): an object contains another when each of the other's keys is
// in it with a value that contains (containers of the same kind) or equals (scalars) the other's;
// an array contains another when each of the other's elements is equal to (scalars) or
// contained in (containers) some element of it, multiplicity ignored; a top-level array
// contains a top-level scalar it has as an element, a scalar no array.

import { numericCompare, type NumericValue } from '../../planner/numeric.js'
import { compareText } from './value-order.js'
import { JsonObject, isJsonNumber, type JsonNode, type JsonbValue } from './jsonb-value.js'

/** Rank of a node's kind in PostgreSQL's order of kinds. */
function rank(n: JsonNode): number {
  if (n === null) return 0
  switch (typeof n) {
    case 'string':
      return 1
    case 'number':
      return 2
    case 'boolean':
      return 3
  }
  if (n instanceof JsonObject) return 5
  return Array.isArray(n) ? 4 : 2
}

function compareNodes(a: JsonNode, b: JsonNode): number {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra < rb ? -1 : 1
  switch (ra) {
    case 0:
      return 0
    case 1:
      return compareText(a as string, b as string)
    case 2:
      return numericCompare(a as NumericValue, b as NumericValue)
    case 3:
      return a === b ? 0 : a ? 1 : -1
    case 4:
      return compareArrays(a as readonly JsonNode[], b as readonly JsonNode[])
    default: {
      const x = a as JsonObject
      const y = b as JsonObject
      if (x.size !== y.size) return x.size < y.size ? -1 : 1
      for (let i = 0; i < x.size; i++) {
        const k = compareText(x.keys[i]!, y.keys[i]!)
        if (k !== 0) return k
        const v = compareNodes(x.values[i]!, y.values[i]!)
        if (v !== 0) return v
      }
      return 0
    }
  }
}

function compareArrays(a: readonly JsonNode[], b: readonly JsonNode[]): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1
  for (let i = 0; i < a.length; i++) {
    const c = compareNodes(a[i]!, b[i]!)
    if (c !== 0) return c
  }
  return 0
}

function isScalar(n: JsonNode): boolean {
  return !(n instanceof JsonObject) && !Array.isArray(n)
}

/** The jsonb order of two values (see the header for the raw scalars). */
export function compareJsonb(a: JsonbValue, b: JsonbValue): number {
  if (a === b) return 0
  const x = a.root
  const y = b.root
  const sx = isScalar(x)
  const sy = isScalar(y)
  if (sx === sy) return compareNodes(x, y)
  // a raw scalar against an array: the one-element pseudo-array against the array's length
  const arr = (sx ? y : x) as readonly JsonNode[] | JsonObject
  if (arr instanceof JsonObject) return sx ? -1 : 1
  const c = arr.length === 1 ? -1 : arr.length === 0 ? 1 : -1
  return sx ? c : -c
}

export function equalJsonb(a: JsonbValue, b: JsonbValue): boolean {
  return a === b || a.hashKey === b.hashKey
}

/** Scalars equal as jsonb values (numbers numerically). */
function sameScalar(a: JsonNode, b: JsonNode): boolean {
  if (a === b) return true
  return isJsonNumber(a) && isJsonNumber(b) && numericCompare(a, b) === 0
}

function containsNode(a: JsonNode, b: JsonNode): boolean {
  if (a instanceof JsonObject) {
    if (!(b instanceof JsonObject)) return false
    if (b.size > a.size) return false
    for (let i = 0; i < b.size; i++) {
      const have = a.get(b.keys[i]!)
      if (have === undefined) return false
      const want = b.values[i]!
      if (isScalar(want)) {
        if (!isScalar(have) || !sameScalar(have, want)) return false
      } else if (!containsNode(have, want)) return false
    }
    return true
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false
    const items = a as readonly JsonNode[]
    for (const want of b as readonly JsonNode[]) {
      if (isScalar(want)) {
        if (!items.some((x) => isScalar(x) && sameScalar(x, want))) return false
      } else if (!items.some((x) => !isScalar(x) && containsNode(x, want))) return false
    }
    return true
  }
  return isScalar(b) && sameScalar(a, b)
}

/** `a @> b`. */
export function jsonbContains(a: JsonbValue, b: JsonbValue): boolean {
  const x = a.root
  const y = b.root
  // an array contains a raw scalar it has as an element; a raw scalar contains no array
  if (isScalar(y) && Array.isArray(x)) return (x as readonly JsonNode[]).some((e) => isScalar(e) && sameScalar(e, y))
  return containsNode(x, y)
}
