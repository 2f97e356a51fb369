// The jsonb functions of PostgreSQL 15 and the conversions between jsonb and the other types:
// to_jsonb (any SQL value as JSON: numbers as numbers, NaN and the infinities as strings,
// dates and timestamps as ISO 8601 strings, intervals by their text, arrays as arrays),
// jsonb_build_object / jsonb_build_array, jsonb_typeof, jsonb_array_length,
// jsonb_strip_nulls, jsonb_pretty, the casts out of jsonb (to numbers and boolean, with
// PostgreSQL's 22023 "cannot cast jsonb string to type integer"), and the expansions the
// set-returning functions in FROM unnest (jsonb_array_elements[_text], jsonb_object_keys,
// jsonb_each[_text]: the planner unnests the array these return).
//
// to_jsonb and the build functions take a value with its SQL type (the binder passes the type
// as a constant argument, since a date and an integer are both JS numbers at run time).

import { RivuletError } from '../../grammar/errors.js'
import { ArrayValue } from '../../planner/array-value.js'
import { numericFromInteger, parseNumericText, type NumericValue } from '../../planner/numeric.js'
import { elementType, isArrayType, type SqlType } from '../../planner/types.js'
import { formatDate, formatTimestamp } from './datetime.js'
import type { Interval } from './interval.js'
import { formatFloat4, formatFloat8 } from './number-text.js'
import { JsonObject, JsonbValue, isJsonArray, isJsonNumber, jsonTypeName, prettyNode, printNode, type JsonNode } from './jsonb-value.js'
import { compareJsonb, equalJsonb, jsonbContains } from './jsonb-order.js'
import { JSONB_OPERATORS, nodeText } from './jsonb-operators.js'
import { JSONB_PATH_EDITS } from './jsonb-path-edit.js'

// ---------------------------------------------------------------------------------- to_jsonb

/** A number's text as a JSON number, or as a string when JSON has no such number. */
function numberNode(text: string): JsonNode {
  const n = parseNumericText(text)
  return n === undefined || (typeof n === 'number' && !Number.isFinite(n)) ? text : n
}

/** The JSON of a non-null SQL value of type t. */
export function toJsonNode(v: unknown, t: SqlType): JsonNode {
  if (v === null || v === undefined) return null
  if (isArrayType(t)) {
    const e = elementType(t)
    return (v as ArrayValue).items.map((x) => toJsonNode(x, e))
  }
  switch (t) {
    case 'jsonb':
      return (v as JsonbValue).root
    case 'boolean':
      return v as boolean
    case 'smallint':
    case 'integer':
    case 'bigint':
      return numericFromInteger(v as number | bigint)
    case 'numeric': {
      const n = v as NumericValue
      return typeof n === 'number' && !Number.isFinite(n) ? (n !== n ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity') : n
    }
    case 'real':
      return numberNode(formatFloat4(v as number))
    case 'double':
      return numberNode(formatFloat8(v as number))
    case 'date':
      return formatDate(v as number)
    case 'timestamp':
      return formatTimestamp(v as number).replace(' ', 'T')
    case 'interval':
      return (v as Interval).toString()
    default:
      return v as string
  }
}

function toJsonb(v: unknown, t: SqlType): JsonbValue {
  return v instanceof JsonbValue ? v : new JsonbValue(toJsonNode(v, t))
}

/** jsonb_build_object(k1, v1, …): arguments as [value, type] pairs flattened. */
function buildObject(...args: unknown[]): JsonbValue {
  const n = args.length / 2
  if (n % 2 !== 0) throw new RivuletError('22023', 'argument list must have even number of elements', undefined, 'The arguments of jsonb_build_object() must consist of alternating keys and values.')
  const pairs: [string, JsonNode][] = []
  for (let i = 0; i < n; i += 2) {
    const k = args[2 * i]
    const kt = args[2 * i + 1] as SqlType
    if (k === null || k === undefined) throw new RivuletError('22023', `argument ${i + 1}: key must not be null`)
    if (isArrayType(kt) || kt === 'jsonb') throw new RivuletError('22023', 'key value must be scalar, not array, composite, or json')
    const key = toJsonNode(k, kt)
    pairs.push([typeof key === 'string' ? key : printNode(key), toJsonNode(args[2 * i + 2], args[2 * i + 3] as SqlType)])
  }
  return new JsonbValue(JsonObject.of(pairs))
}

/** jsonb_build_array(v1, …): arguments as [value, type] pairs flattened. */
function buildArray(...args: unknown[]): JsonbValue {
  const items: JsonNode[] = []
  for (let i = 0; i < args.length; i += 2) items.push(toJsonNode(args[i], args[i + 1] as SqlType))
  return new JsonbValue(items)
}

/** A JS value of the API (db.insert) as jsonb: objects, arrays, numbers, booleans, null inside;
 *  undefined for what JSON cannot hold. */
export function jsonbOfJs(v: unknown): JsonbValue | undefined {
  if (v instanceof JsonbValue) return v
  const node = (x: unknown): JsonNode => {
    if (x === null) return null
    switch (typeof x) {
      case 'boolean':
      case 'string':
        return x
      case 'number':
        return numberNode(formatFloat8(x))
      case 'bigint':
        return numericFromInteger(x)
      case 'object':
        if (Array.isArray(x)) return x.map(node)
        return JsonObject.of(Object.entries(x as object).map(([k, e]) => [k, node(e)] as const))
      default:
        throw new RivuletError('42804', `cannot use JavaScript ${typeof x} value as jsonb`)
    }
  }
  return typeof v === 'object' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? new JsonbValue(node(v)) : undefined
}

// ---------------------------------------------------------------------------------- casts out

const KIND_NAMES: Readonly<Record<string, string>> = { object: 'object', array: 'array', string: 'string', number: 'numeric', boolean: 'boolean', null: 'null' }

/** The numeric or boolean a jsonb holds, for a cast to `to` (22023 when it holds another kind). */
export function jsonbCastSource(j: JsonbValue, to: SqlType, toName: string): { value: unknown; type: SqlType } {
  const r = j.root
  if (to === 'boolean' ? typeof r === 'boolean' : isJsonNumber(r)) return { value: r, type: to === 'boolean' ? 'boolean' : 'numeric' }
  throw new RivuletError('22023', `cannot cast jsonb ${KIND_NAMES[jsonTypeName(r)]} to type ${toName}`)
}

// ---------------------------------------------------------------------------------- the rest

function arrayLength(j: JsonbValue): number {
  const r = j.root
  if (isJsonArray(r)) return r.length
  throw new RivuletError('22023', r instanceof JsonObject ? 'cannot get array length of a non-array' : 'cannot get array length of a scalar')
}

function stripNulls(n: JsonNode): JsonNode {
  if (n instanceof JsonObject) {
    const kept = n.keys.flatMap((_, i) => (n.values[i] === null ? [] : [i]))
    return new JsonObject(kept.map((i) => n.keys[i]!), kept.map((i) => stripNulls(n.values[i]!)))
  }
  if (isJsonArray(n)) return n.map(stripNulls)
  return n
}

function arrayItems(j: JsonbValue): readonly JsonNode[] {
  const r = j.root
  if (isJsonArray(r)) return r
  throw new RivuletError('22023', r instanceof JsonObject ? 'cannot extract elements from an object' : 'cannot extract elements from a scalar')
}

function objectOf(j: JsonbValue, fn: string): JsonObject {
  const r = j.root
  if (r instanceof JsonObject) return r
  if (fn === 'jsonb_object_keys') throw new RivuletError('22023', `cannot call jsonb_object_keys on ${isJsonArray(r) ? 'an array' : 'a scalar'}`)
  throw new RivuletError('22023', `cannot call ${fn} on a non-object`)
}

/** The array jsonb_agg builds of its values (jsonb or NULL), in the aggregate's order. */
export function jsonbArrayOf(values: readonly unknown[]): JsonbValue {
  return new JsonbValue(values.map((v) => (v === null || v === undefined ? null : (v as JsonbValue).root)))
}

/** The object jsonb_object_agg builds of its [key, value] pairs, in the aggregate's order
 *  (of duplicate keys the last wins). */
export function objectOfPairs(pairs: readonly unknown[]): JsonbValue {
  return new JsonbValue(JsonObject.of(pairs.map((p) => {
    const [k, v] = (p as JsonbValue).root as readonly JsonNode[]
    return [k as string, v!] as const
  })))
}

/** A value of jsonb_object_agg: its key (never NULL) and value as one [key, value] array. */
export function objectAggPair(key: unknown, keyType: SqlType, value: unknown, valueType: SqlType): JsonbValue {
  if (key === null || key === undefined) throw new RivuletError('22023', 'field name must not be null')
  const k = toJsonNode(key, keyType)
  return new JsonbValue([typeof k === 'string' ? k : printNode(k), toJsonNode(value, valueType)])
}

export const JSONB_FUNCTIONS = {
  ...JSONB_OPERATORS,
  ...JSONB_PATH_EDITS,
  jsonb_contains: jsonbContains,
  jsonb_contained: (a: JsonbValue, b: JsonbValue) => jsonbContains(b, a),
  jsonb_eq: equalJsonb,
  jsonb_cmp: compareJsonb,
  to_jsonb: toJsonb,
  jsonb_build_object: buildObject,
  jsonb_build_array: buildArray,
  jsonb_typeof: (j: JsonbValue) => jsonTypeName(j.root),
  jsonb_array_length: arrayLength,
  jsonb_strip_nulls: (j: JsonbValue) => new JsonbValue(stripNulls(j.root)),
  jsonb_pretty: (j: JsonbValue) => prettyNode(j.root),
  jsonb_array_elements: (j: JsonbValue) => new ArrayValue(arrayItems(j).map((n) => new JsonbValue(n))),
  jsonb_array_elements_text: (j: JsonbValue) => new ArrayValue(arrayItems(j).map(nodeText)),
  jsonb_object_keys: (j: JsonbValue) => new ArrayValue(objectOf(j, 'jsonb_object_keys').keys),
  jsonb_each_keys: (j: JsonbValue) => new ArrayValue(objectOf(j, 'jsonb_each').keys),
  jsonb_each_text_keys: (j: JsonbValue) => new ArrayValue(objectOf(j, 'jsonb_each_text').keys),
}

