// The jsonb operators of PostgreSQL 15 (the functions are jsonb-functions.ts, the order and
// @> jsonb-order.ts, path edits jsonb-path-edit.ts):
//   ->  int | text    the element / field as jsonb (NULL when absent; a negative index counts
//                     from the end; a top-level scalar is its own element 0, as in PostgreSQL)
//   ->> int | text    the same as text (a JSON null is SQL NULL, a string unquoted)
//   #>  text[]        the value at a path (array steps are integers; anything else: NULL)
//   #>> text[]        the same as text
//   ?  ?|  ?&         a key (or string element) exists; any of / all of a text[] (NULLs skipped)
//   ||                concatenation: objects merge (the right wins), anything else makes an array
//   -  text | int | text[]   delete a key (or matching string elements), an element, keys
// Each takes JsonbValues parsed once, never text.

import { RivuletError } from '../../grammar/errors.js'
import type { ArrayValue } from '../../planner/array-value.js'
import { JsonObject, JsonbValue, isJsonArray, printNode, type JsonNode } from './jsonb-value.js'

function isScalarRoot(n: JsonNode): boolean {
  return !(n instanceof JsonObject) && !Array.isArray(n)
}

/** The element at a 0-based index of an array (negative from the end), or undefined. */
function elementAt(a: readonly JsonNode[], index: number): JsonNode | undefined {
  const i = index < 0 ? a.length + index : index
  return i >= 0 && i < a.length ? a[i] : undefined
}

/** The text of a node as ->> gives it: NULL for a JSON null, a string unquoted. */
export function nodeText(n: JsonNode | undefined): string | null {
  if (n === undefined || n === null) return null
  return typeof n === 'string' ? n : printNode(n)
}

function wrap(n: JsonNode | undefined): JsonbValue | null {
  return n === undefined ? null : new JsonbValue(n)
}

function fieldNode(j: JsonbValue, key: string): JsonNode | undefined {
  return j.root instanceof JsonObject ? j.root.get(key) : undefined
}

function elementNode(j: JsonbValue, index: number): JsonNode | undefined {
  const r = j.root
  if (isJsonArray(r)) return elementAt(r, index)
  // a raw scalar is a one-element array to -> (PostgreSQL's JB_ROOT_IS_ARRAY)
  return isScalarRoot(r) ? elementAt([r], index) : undefined
}

/** The integer a path step names (strtol on the whole text), or undefined. */
export function pathIndex(step: string): number | undefined {
  if (!/^\s*[+-]?\d+$/.test(step)) return undefined
  const n = Number(step)
  return n >= -2147483648 && n <= 2147483647 ? n : undefined
}

function pathNode(j: JsonbValue, path: readonly unknown[]): JsonNode | undefined {
  let n: JsonNode = j.root
  if (path.length > 0 && isScalarRoot(n)) return undefined
  for (const step of path) {
    if (step === null) return undefined
    let next: JsonNode | undefined
    if (n instanceof JsonObject) next = n.get(step as string)
    else if (Array.isArray(n)) {
      const i = pathIndex(step as string)
      next = i === undefined ? undefined : elementAt(n as readonly JsonNode[], i)
    }
    if (next === undefined) return undefined
    n = next
  }
  return n
}

function hasKey(j: JsonbValue, key: string): boolean {
  const r = j.root
  if (r instanceof JsonObject) return r.indexOf(key) >= 0
  if (Array.isArray(r)) return (r as readonly JsonNode[]).some((e) => e === key)
  return r === key
}

function deleteFromScalar(): RivuletError {
  return new RivuletError('22023', 'cannot delete from scalar')
}

/** `a || b`: objects merge; otherwise both as arrays (a non-array is one element). */
function concat(a: JsonbValue, b: JsonbValue): JsonbValue {
  const x = a.root
  const y = b.root
  if (x instanceof JsonObject && y instanceof JsonObject) {
    const pairs: [string, JsonNode][] = x.keys.map((k, i) => [k, x.values[i]!])
    for (let i = 0; i < y.size; i++) pairs.push([y.keys[i]!, y.values[i]!])
    return new JsonbValue(JsonObject.of(pairs))
  }
  const asItems = (n: JsonNode): readonly JsonNode[] => (Array.isArray(n) ? (n as readonly JsonNode[]) : [n])
  return new JsonbValue([...asItems(x), ...asItems(y)])
}

/** `j - key` and `j - keys`: without those keys (objects) or string elements (arrays). */
function deleteKeys(j: JsonbValue, keys: ReadonlySet<string>): JsonbValue {
  const r = j.root
  if (r instanceof JsonObject) {
    if (!r.keys.some((k) => keys.has(k))) return j
    const kept = r.keys.flatMap((k, i) => (keys.has(k) ? [] : [i]))
    return new JsonbValue(new JsonObject(kept.map((i) => r.keys[i]!), kept.map((i) => r.values[i]!)))
  }
  if (Array.isArray(r)) return new JsonbValue((r as readonly JsonNode[]).filter((e) => typeof e !== 'string' || !keys.has(e)))
  throw deleteFromScalar()
}

function deleteIndex(j: JsonbValue, index: number): JsonbValue {
  const r = j.root
  if (r instanceof JsonObject) throw new RivuletError('22023', 'cannot delete from object using integer index')
  if (!Array.isArray(r)) throw deleteFromScalar()
  const a = r as readonly JsonNode[]
  const i = index < 0 ? a.length + index : index
  if (i < 0 || i >= a.length) return j
  return new JsonbValue([...a.slice(0, i), ...a.slice(i + 1)])
}

function textItems(keys: ArrayValue): string[] {
  return keys.items.filter((k): k is string => k !== null) as string[]
}

export const JSONB_OPERATORS = {
  jsonb_field: (j: JsonbValue, key: string) => wrap(fieldNode(j, key)),
  jsonb_field_text: (j: JsonbValue, key: string) => nodeText(fieldNode(j, key)),
  jsonb_element: (j: JsonbValue, index: number) => wrap(elementNode(j, index)),
  jsonb_element_text: (j: JsonbValue, index: number) => nodeText(elementNode(j, index)),
  jsonb_path: (j: JsonbValue, path: ArrayValue) => wrap(pathNode(j, path.items)),
  jsonb_path_text: (j: JsonbValue, path: ArrayValue) => nodeText(pathNode(j, path.items)),
  jsonb_extract_path: (j: JsonbValue, ...path: string[]) => wrap(pathNode(j, path)),
  jsonb_extract_path_text: (j: JsonbValue, ...path: string[]) => nodeText(pathNode(j, path)),
  jsonb_exists: hasKey,
  jsonb_exists_any: (j: JsonbValue, keys: ArrayValue) => textItems(keys).some((k) => hasKey(j, k)),
  jsonb_exists_all: (j: JsonbValue, keys: ArrayValue) => textItems(keys).every((k) => hasKey(j, k)),
  jsonb_concat: concat,
  jsonb_delete_key: (j: JsonbValue, key: string) => deleteKeys(j, new Set([key])),
  jsonb_delete_keys: (j: JsonbValue, keys: ArrayValue) => deleteKeys(j, new Set(textItems(keys))),
  jsonb_delete_index: deleteIndex,
}
