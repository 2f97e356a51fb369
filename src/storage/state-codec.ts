// The bytes of a checkpoint: the engine's state as plain data (operators' saveState, stores,
// watermarks) through V8's structured serializer, which keeps Maps, Sets, shared references
// and every number exactly. The engine's value classes (NUMERIC, INTERVAL, arrays) lose their
// prototype there, so a walk replaces each by a tagged object first and puts it back on
// decoding; an object seen twice is copied once, so the structure's sharing survives.
// Any other class instance is a bug in a saveState (it would come back without its methods)
// and fails the checkpoint loudly.
// A state with no tagged value at all (most keyed parts: rows of numbers and strings) is stored
// wrapped as plain, so decoding it skips the walk: recovery reads it as the serializer gives it.

import { serialize, deserialize } from 'node:v8'
import { Numeric } from '../../planner/numeric.js'
import { ArrayValue } from '../../planner/array-value.js'
import { Interval } from '../sql-runtime/interval.js'
import { JsonbValue } from '../sql-runtime/jsonb-value.js'
import { parseStoredJsonb } from '../sql-runtime/jsonb-parse.js'

/** Marks a tagged value class (a key no state of ours uses). */
const TAG = '\u0000rivulet'

type Tagged = { readonly [TAG]: 'n'; readonly v: [number | bigint, number] } | { readonly [TAG]: 'i'; readonly v: [number, number, number] } | { readonly [TAG]: 'a'; readonly v: unknown[] } | { readonly [TAG]: 'j'; readonly v: string }

/** The wrapper of a state that holds no tagged value. */
type Plain = { readonly [TAG]: 'p'; readonly v: unknown }

/** Tagged values the encoding in progress has made (encoding is synchronous). */
let taggedCount = 0

function needsWalk(v: unknown): v is object {
  return v !== null && typeof v === 'object'
}

function encode(v: unknown, seen: Map<object, unknown>): unknown {
  if (!needsWalk(v)) return v
  const done = seen.get(v)
  if (done !== undefined) return done
  if (v instanceof Numeric || v instanceof Interval || v instanceof ArrayValue || v instanceof JsonbValue) taggedCount++
  if (v instanceof Numeric) return { [TAG]: 'n', v: [v.coef, v.scale] }
  if (v instanceof Interval) return { [TAG]: 'i', v: [v.months, v.days, v.micros] }
  if (v instanceof ArrayValue) return { [TAG]: 'a', v: v.items.map((x) => encode(x, seen)) }
  if (v instanceof JsonbValue) return { [TAG]: 'j', v: v.toString() }
  if (Array.isArray(v)) {
    // most arrays are rows of primitives: serialized as they are, no copy
    let plain = true
    for (let i = 0; i < v.length && plain; i++) plain = !needsWalk(v[i])
    if (plain) {
      seen.set(v, v)
      return v
    }
    const out = new Array<unknown>(v.length)
    seen.set(v, out)
    for (let i = 0; i < v.length; i++) out[i] = encode(v[i], seen)
    return out
  }
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>()
    seen.set(v, out)
    for (const [k, x] of v) out.set(encode(k, seen), encode(x, seen))
    return out
  }
  if (v instanceof Set) {
    const out = new Set<unknown>()
    seen.set(v, out)
    for (const x of v) out.add(encode(x, seen))
    return out
  }
  const proto = Object.getPrototypeOf(v) as unknown
  if (proto !== Object.prototype && proto !== null) throw new Error(`a checkpoint cannot store an instance of ${(v as object).constructor?.name ?? 'a class'}`)
  const out: Record<string, unknown> = {}
  seen.set(v, out)
  for (const k of Object.keys(v)) out[k] = encode((v as Record<string, unknown>)[k], seen)
  return out
}

function decode(v: unknown, seen: Set<object>): unknown {
  if (!needsWalk(v)) return v
  if (seen.has(v)) return v
  if (Array.isArray(v)) {
    seen.add(v)
    for (let i = 0; i < v.length; i++) {
      const x = v[i]
      if (needsWalk(x)) v[i] = decode(x, seen)
    }
    return v
  }
  if (v instanceof Map) {
    seen.add(v)
    for (const [k, x] of v) if (needsWalk(x)) v.set(k, decode(x, seen))
    return v
  }
  if (v instanceof Set) {
    seen.add(v)
    return v
  }
  const t = v as Partial<Tagged> & Record<string, unknown>
  switch (t[TAG]) {
    case 'n':
      return new Numeric((t.v as [number | bigint, number])[0], (t.v as [number | bigint, number])[1])
    case 'i': {
      const [months, days, micros] = t.v as [number, number, number]
      return new Interval(months, days, micros)
    }
    case 'a':
      return new ArrayValue((t.v as unknown[]).map((x) => decode(x, seen)))
    case 'j':
      return parseStoredJsonb(t.v as string)
  }
  seen.add(v)
  for (const k of Object.keys(t)) if (needsWalk(t[k])) t[k] = decode(t[k], seen)
  return v
}

export function encodeState(state: unknown): Buffer {
  taggedCount = 0
  const encoded = encode(state, new Map())
  return serialize(taggedCount === 0 ? wrapPlain(encoded) : encoded)
}

export function decodeState(bytes: Buffer): unknown {
  return fromSerialized(deserialize(bytes))
}

/** A state from what the serializer gave back for encodeState's bytes. */
export function fromSerialized(serialized: unknown): unknown {
  const raw = unwrapPlain(serialized)
  return raw.plain ? raw.value : decode(raw.value, new Set())
}

/** Marks an encoded state as holding no tagged value. */
function wrapPlain(value: unknown): Plain {
  return { [TAG]: 'p', v: value }
}

/** A deserialized state and whether it was stored as plain (else it may hold tagged values). */
function unwrapPlain(raw: unknown): { value: unknown; plain: boolean } {
  if (needsWalk(raw) && (raw as Partial<Plain>)[TAG] === 'p') return { value: (raw as Plain).v, plain: true }
  return { value: raw, plain: false }
}
