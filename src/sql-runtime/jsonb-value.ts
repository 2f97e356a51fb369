// The run-time value of a JSONB: a parsed tree, normalized as PostgreSQL's jsonb is, and its
// text as jsonb_out prints it. A value is parsed once (at a cast or in a function) and every
// operator reads the tree; nothing re-parses text.
//
// Tree nodes (JsonNode):
//   null → JS null; true/false → JS booleans; a string → a JS string; a number → an exact
//   decimal (planner/numeric.ts: a JS number for integers, a Numeric otherwise, its text kept
//   as written in scale: 2.50 stays 2.50); an array → a JS array of nodes; an object → a
//   JsonObject, its keys unique (the last of duplicate keys wins) and in PostgreSQL's storage
//   order: shorter keys (in UTF-8 bytes) first, then by bytes. That order is the order jsonb
//   prints, iterates (jsonb_each, jsonb_object_keys) and compares keys in.
//
// Values are immutable. As for numerics, two keys (ivm/key.ts reads them by duck typing):
//   - toString(): the text (row identity: 1.0 and 1 are different rows);
//   - hashKey: equality for grouping and joining, the text with each number stripped of
//     trailing zeros ('[1.0]' and '[1]' are equal jsonb values, as in PostgreSQL).

import { Numeric, numericText, type NumericValue } from '../../planner/numeric.js'
import { compareText } from './value-order.js'

export type JsonNode = null | boolean | string | NumericValue | readonly JsonNode[] | JsonObject

/** A JSON object: keys unique and in storage order, values beside them. */
export class JsonObject {
  constructor(
    readonly keys: readonly string[],
    readonly values: readonly JsonNode[],
  ) {}

  get size(): number {
    return this.keys.length
  }

  /** The value of a key, or undefined (binary search in storage order). */
  get(key: string): JsonNode | undefined {
    const i = this.indexOf(key)
    return i < 0 ? undefined : this.values[i]
  }

  /** The index of a key, or −(insertion point) − 1. */
  indexOf(key: string): number {
    let lo = 0
    let hi = this.keys.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const c = compareKeys(this.keys[mid]!, key)
      if (c === 0) return mid
      if (c < 0) lo = mid + 1
      else hi = mid - 1
    }
    return -lo - 1
  }

  /** An object of key/value pairs in any order; of duplicate keys the last one wins. */
  static of(pairs: Iterable<readonly [string, JsonNode]>): JsonObject {
    const byKey = new Map<string, JsonNode>()
    for (const [k, v] of pairs) {
      byKey.delete(k)
      byKey.set(k, v)
    }
    const keys = [...byKey.keys()].sort(compareKeys)
    return new JsonObject(keys, keys.map((k) => byKey.get(k)!))
  }
}

export const EMPTY_OBJECT = new JsonObject([], [])

/** Bytes of a string in UTF-8. */
function utf8Length(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) continue
    // a surrogate pair (4 bytes) counts 2 units, each adding 1 here
    n += c < 0x800 ? 1 : c >= 0xd800 && c <= 0xdfff ? 1 : 2
  }
  return n
}

/** PostgreSQL's key order in a jsonb object: by length in bytes, then bytewise (code points). */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0
  const la = utf8Length(a)
  const lb = utf8Length(b)
  if (la !== lb) return la < lb ? -1 : 1
  return compareText(a, b)
}

export function isJsonObject(n: JsonNode): n is JsonObject {
  return n instanceof JsonObject
}

export function isJsonArray(n: JsonNode): n is readonly JsonNode[] {
  return Array.isArray(n)
}

export function isJsonNumber(n: JsonNode): n is NumericValue {
  return typeof n === 'number' || n instanceof Numeric
}

export class JsonbValue {
  readonly root: JsonNode
  #text: string | undefined
  #hash: string | undefined

  constructor(root: JsonNode) {
    this.root = root
  }

  /** The text, as jsonb_out prints it. */
  toString(): string {
    return (this.#text ??= printNode(this.root, false))
  }

  /** The identity for grouping and joining: equal values (1.0 = 1) share it. */
  get hashKey(): string {
    if (this.#hash === undefined) {
      const h = printNode(this.root, true)
      this.#hash = h === this.toString() ? this.#text! : h
    }
    return this.#hash
  }
}

export function isJsonbValue(v: unknown): v is JsonbValue {
  return v instanceof JsonbValue
}

// ---------------------------------------------------------------------------------- text

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** A string as a JSON string literal (PostgreSQL's escape_json: other control characters as
 *  \u00XX, everything else as is). */
export function quoteJsonString(s: string): string {
  let needs = false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c === 34 || c === 92) {
      needs = true
      break
    }
  }
  if (!needs) return '"' + s + '"'
  let out = '"'
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch]
    if (short !== undefined) out += short
    else if (ch.charCodeAt(0) < 0x20) out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0')
    else out += ch
  }
  return out + '"'
}

/** A number's text; `normalized`: without trailing fractional zeros (the equality key). */
function numberText(n: NumericValue, normalized: boolean): string {
  if (!normalized || typeof n === 'number') return numericText(n)
  const k = n.hashKey
  return typeof k === 'number' ? String(k) : k
}

/** jsonb_out's text of a node (`{"a": 1, "b": [1, 2]}`). */
export function printNode(n: JsonNode, normalized = false): string {
  if (n === null) return 'null'
  switch (typeof n) {
    case 'boolean':
      return n ? 'true' : 'false'
    case 'string':
      return quoteJsonString(n)
    case 'number':
      return numericText(n)
  }
  if (n instanceof Numeric) return numberText(n, normalized)
  if (n instanceof JsonObject) {
    let s = '{'
    for (let i = 0; i < n.keys.length; i++) s += (i === 0 ? '' : ', ') + quoteJsonString(n.keys[i]!) + ': ' + printNode(n.values[i]!, normalized)
    return s + '}'
  }
  const a = n as readonly JsonNode[]
  let s = '['
  for (let i = 0; i < a.length; i++) s += (i === 0 ? '' : ', ') + printNode(a[i]!, normalized)
  return s + ']'
}

/** jsonb_pretty: one item a line, indented by four spaces a level. */
export function prettyNode(n: JsonNode, indent = ''): string {
  const inner = indent + '    '
  if (n instanceof JsonObject) {
    if (n.size === 0) return '{\n' + indent + '}'
    const items = n.keys.map((k, i) => inner + quoteJsonString(k) + ': ' + prettyNode(n.values[i]!, inner))
    return '{\n' + items.join(',\n') + '\n' + indent + '}'
  }
  if (Array.isArray(n)) {
    const a = n as readonly JsonNode[]
    if (a.length === 0) return '[\n' + indent + ']'
    return '[\n' + a.map((x) => inner + prettyNode(x, inner)).join(',\n') + '\n' + indent + ']'
  }
  return printNode(n)
}

/** The JSON type name of a node (jsonb_typeof). */
export function jsonTypeName(n: JsonNode): 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null' {
  if (n === null) return 'null'
  if (typeof n === 'boolean') return 'boolean'
  if (typeof n === 'string') return 'string'
  if (n instanceof JsonObject) return 'object'
  if (Array.isArray(n)) return 'array'
  return 'number'
}
