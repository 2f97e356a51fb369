// Edits at a text[] path, as PostgreSQL 15's setPath does them: jsonb_set (replace, or create
// the last step when create_missing), jsonb_insert (before or after an array element, or a
// new key), and `#-` (delete). Steps through arrays are integers (negative from the end; one
// that is not is 22P02); a path through a missing key or past a scalar changes nothing; a NULL
// step reached is 22004. In arrays, a position past the end appends and one before the start
// prepends (when creating).

import { RivuletError } from '../../grammar/errors.js'
import type { ArrayValue } from '../../planner/array-value.js'
import { JsonObject, JsonbValue, type JsonNode } from './jsonb-value.js'
import { pathIndex } from './jsonb-operators.js'

type Edit = 'create' | 'replace' | 'insertBefore' | 'insertAfter' | 'delete'

function inserts(e: Edit): boolean {
  return e === 'create' || e === 'insertBefore' || e === 'insertAfter'
}

interface PathEdit {
  readonly path: readonly unknown[]
  readonly value: JsonNode
  readonly edit: Edit
}

function editNode(n: JsonNode, level: number, p: PathEdit): JsonNode {
  const step = p.path[level]
  if (step === null || step === undefined) throw new RivuletError('22004', `path element at position ${level + 1} is null`)
  if (n instanceof JsonObject) return editObject(n, step as string, level, p)
  if (Array.isArray(n)) return editArray(n as readonly JsonNode[], step as string, level, p)
  return n
}

function editObject(o: JsonObject, key: string, level: number, p: PathEdit): JsonNode {
  const last = level === p.path.length - 1
  const i = o.indexOf(key)
  if (i < 0) {
    if (!last || !inserts(p.edit)) return o
    return JsonObject.of([...o.keys.map((k, j): [string, JsonNode] => [k, o.values[j]!]), [key, p.value]])
  }
  const values = o.values.slice()
  if (last) {
    if (p.edit === 'insertBefore' || p.edit === 'insertAfter') throw new RivuletError('22023', 'cannot replace existing key', undefined, 'Try using the function jsonb_set to replace key value.')
    if (p.edit === 'delete') return new JsonObject([...o.keys.slice(0, i), ...o.keys.slice(i + 1)], [...values.slice(0, i), ...values.slice(i + 1)])
    values[i] = p.value
  } else {
    values[i] = editNode(values[i]!, level + 1, p)
  }
  return new JsonObject(o.keys, values)
}

function editArray(a: readonly JsonNode[], step: string, level: number, p: PathEdit): JsonNode {
  const last = level === p.path.length - 1
  let idx = pathIndex(step)
  if (idx === undefined) throw new RivuletError('22P02', `path element at position ${level + 1} is not an integer: "${step}"`)
  const n = a.length
  let before = false
  if (idx < 0) {
    if (-idx > n) before = true
    else idx = n + idx
  } else if (idx > n) idx = n
  if ((before || n === 0) && last && inserts(p.edit)) return [p.value, ...a]
  if (before || idx >= n) return last && inserts(p.edit) ? [...a, p.value] : a
  const out = a.slice(0, idx)
  if (!last) out.push(editNode(a[idx]!, level + 1, p))
  else if (p.edit === 'insertBefore') out.push(p.value, a[idx]!)
  else if (p.edit === 'insertAfter') out.push(a[idx]!, p.value)
  else if (p.edit !== 'delete') out.push(p.value)
  out.push(...a.slice(idx + 1))
  return out
}

function edit(j: JsonbValue, path: ArrayValue, value: JsonNode, e: Edit, scalarMessage: string): JsonbValue {
  const r = j.root
  if (!(r instanceof JsonObject) && !Array.isArray(r)) throw new RivuletError('22023', scalarMessage)
  if (path.items.length === 0) return j
  return new JsonbValue(editNode(r, 0, { path: path.items, value, edit: e }))
}

export const JSONB_PATH_EDITS = {
  jsonb_set: (j: JsonbValue, path: ArrayValue, v: JsonbValue, createMissing = true) => edit(j, path, v.root, createMissing ? 'create' : 'replace', 'cannot set path in scalar'),
  jsonb_insert: (j: JsonbValue, path: ArrayValue, v: JsonbValue, after = false) => edit(j, path, v.root, after ? 'insertAfter' : 'insertBefore', 'cannot set path in scalar'),
  jsonb_delete_path: (j: JsonbValue, path: ArrayValue) => edit(j, path, null, 'delete', 'cannot delete path in scalar'),
}
