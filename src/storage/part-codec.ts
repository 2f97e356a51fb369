// The bytes of a keyed checkpoint part (ivm/keyed-state.ts), in columns. A big part is a
// million entries, most of them rows of SQL values (a table's rows, an arrangement's rows and
// buckets). Through V8's serializer each row is an object it tags, writes value by value and
// notes in its identity map, and the state codec's walk visits each once more: that was most
// of a big checkpoint's time and, decoding, of recovery's. Here the keys stay one array (of
// strings or numbers, which the serializer writes quickly), every entry's rows one RowBatch (typed columns, row-batch.ts), a bucket's weights one Float64Array,
// and only entries of another shape (a group's accumulators, a top-k partition) go through
// the state codec. Exact: a row comes back with the same values (row-batch.ts keeps −0, NaN,
// bigints, texts and the value classes); an entry that is not such a row is not taken for one.
// Parts of format 3 (the state codec's bytes of the whole part) still decode.
//
// A part read from a snapshot while ticks go on (ivm/keyed-state.ts: KeyedSnapshot) is written
// in chunks as they are handed out: CHUNKED, then per chunk its length (4 bytes, little-endian)
// and its bytes, each chunk a part of its own (the part's `whole` in the first); decoding
// concatenates their entries, which is the part. (Data directory format 6.)

import { deserialize, serialize } from 'node:v8'
import type { KeyedPart } from '../../ivm/keyed-state.js'
import type { RowKey } from '../../ivm/key.js'
import { Numeric } from '../../planner/numeric.js'
import { ArrayValue } from '../../planner/array-value.js'
import { Interval } from '../sql-runtime/interval.js'
import { JsonbValue } from '../sql-runtime/jsonb-value.js'
import { decodeBatch, encodeBatch, encodeBatchExactly, type RowBatch } from './row-batch.js'
import { decodeState, encodeState, fromSerialized } from './state-codec.js'

/** Marks the columnar envelope (a key no state of ours uses). */
const COLUMNAR = '\u0000rivulet-columns'

/** How each entry is stored. */
const GONE = 0
const ROW = 1
const BUCKET = 2
const OTHER = 3
/** Rows appended to the entry before (AppendedRows): its rows and weights as a bucket's, and
 *  how many rows it appends to in `afters`. */
const APPEND = 4

interface Envelope {
  readonly [COLUMNAR]: 1
  readonly n: number
  readonly whole: Uint8Array
  readonly moved: Uint8Array | null
  /** As they are: an array of strings or numbers is quick to serialize, no objects in it. */
  readonly keys: readonly RowKey[]
  readonly kinds: Uint8Array
  /** Per BUCKET and APPEND entry, its number of rows. */
  readonly counts: Int32Array
  /** Per APPEND entry, the rows of the entry before it (absent in parts without any). */
  readonly afters?: Int32Array
  /** The BUCKET and APPEND entries' weights, in order. */
  readonly weights: Float64Array
  /** The rows of the ROW and BUCKET entries, in order. */
  readonly rows: RowBatch
  /** The OTHER entries, in order, through the state codec. */
  readonly others: Uint8Array
}

/** Whether every value of the array is one a row-batch column keeps exactly: NULL, a number,
 *  text, boolean, bigint or a value class (undefined or a hole would come back NULL). */
function isRow(v: unknown): v is unknown[] {
  if (!Array.isArray(v) || Object.getPrototypeOf(v) !== Array.prototype) return false
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i]
    const t = typeof x
    if (t === 'object') {
      if (x !== null && !(x instanceof Numeric || x instanceof Interval || x instanceof ArrayValue || x instanceof JsonbValue)) return false
    } else if (t === 'undefined' || t === 'function' || t === 'symbol') return false
  }
  return true
}

/** An arrangement's bucket as its part stores it: {r: rows, w: weights}, nothing else — or
 *  {after, r, w} (AppendedRows) with a whole number `after`; `checkRows`: its rows are rows
 *  (else the row batch checks them). */
function isBucket(v: unknown, checkRows: boolean): v is { r: unknown[][]; w: number[]; after?: number } {
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false
  const b = v as { r?: unknown; w?: unknown; after?: unknown }
  if (!Array.isArray(b.r) || !Array.isArray(b.w) || b.r.length !== b.w.length) return false
  let fields = 2
  if (b.after !== undefined) {
    if (!(typeof b.after === 'number' && Number.isInteger(b.after) && b.after >= 0 && b.after <= 0x7fffffff)) return false
    fields = 3
  }
  let n = 0
  for (const _ in v) n++
  if (n !== fields) return false
  for (let i = 0; i < b.r.length; i++) if (typeof b.w[i] !== 'number' || (checkRows && !isRow(b.r[i]))) return false
  return true
}

function bytesOf(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength)
}

/** A part's entries sorted by how they are stored, their rows in one list. */
interface Sorted {
  readonly kinds: Uint8Array
  readonly rows: unknown[][]
  readonly counts: number[]
  readonly weights: number[]
  readonly afters: number[]
  readonly others: unknown[]
}

/** Sorts the entries by shape; `checkRows`: a row must hold only values a row batch keeps
 *  exactly (else it is another entry), where without it the row batch finds such a value. */
function sortEntries(values: readonly unknown[], checkRows: boolean): Sorted {
  const n = values.length
  const sorted: Sorted = { kinds: new Uint8Array(n), rows: [], counts: [], weights: [], afters: [], others: [] }
  const { kinds, rows, counts, weights, afters, others } = sorted
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (v === undefined) kinds[i] = GONE
    else if (checkRows ? isRow(v) : Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype) {
      kinds[i] = ROW
      rows.push(v as unknown[])
    } else if (isBucket(v, checkRows)) {
      const after = v.after
      kinds[i] = after === undefined ? BUCKET : APPEND
      if (after !== undefined) afters.push(after)
      counts.push(v.r.length)
      for (let j = 0; j < v.r.length; j++) {
        rows.push(v.r[j]!)
        weights.push(v.w[j]!)
      }
    } else {
      kinds[i] = OTHER
      others.push(v)
    }
  }
  return sorted
}

export function encodeKeyedPart(part: KeyedPart): Buffer {
  const { keys, values, moved } = part
  const n = keys.length
  // Entries are taken for rows by their shape and the row batch checks their values in the
  // pass that encodes them (one pass over the rows, not two: reading a row is most of the
  // cost); if one is not a row after all (an owner whose entries are arrays of other things),
  // they are sorted again, each row checked first.
  let sorted = sortEntries(values, false)
  let batch = encodeBatchExactly(sorted.rows)
  if (batch === null) {
    sorted = sortEntries(values, true)
    batch = encodeBatch(sorted.rows)
  }
  let movedBytes: Uint8Array | null = null
  if (moved !== null) {
    movedBytes = new Uint8Array(n)
    for (let i = 0; i < n; i++) movedBytes[i] = moved[i] ? 1 : 0
  }
  const envelope: Envelope = {
    [COLUMNAR]: 1,
    n,
    whole: encodeState(part.whole),
    moved: movedBytes,
    keys,
    kinds: sorted.kinds,
    counts: new Int32Array(sorted.counts),
    ...(sorted.afters.length > 0 ? { afters: new Int32Array(sorted.afters) } : {}),
    weights: new Float64Array(sorted.weights),
    rows: batch,
    others: encodeState(sorted.others),
  }
  return serialize(envelope)
}

/** Begins a part written in chunks (see the header). */
export const CHUNKED = Buffer.from('RVCHUNK1', 'latin1')

/** A chunk of a part written in chunks: its length, then its bytes. */
export function framedChunk(chunk: KeyedPart): Buffer[] {
  const bytes = encodeKeyedPart(chunk)
  const length = Buffer.allocUnsafe(4)
  length.writeUInt32LE(bytes.length, 0)
  return [length, bytes]
}

export function decodeKeyedPart(bytes: Buffer): KeyedPart {
  if (bytes.length >= CHUNKED.length && bytes.compare(CHUNKED, 0, CHUNKED.length, 0, CHUNKED.length) === 0) return decodeChunked(bytes)
  return decodeOne(bytes)
}

function decodeChunked(bytes: Buffer): KeyedPart {
  let at = CHUNKED.length
  let whole: unknown = null
  let keys: RowKey[] = []
  let values: unknown[] = []
  let moved: boolean[] | null = null
  for (let n = 0; at < bytes.length; n++) {
    if (at + 4 > bytes.length) throw new Error('a chunked checkpoint part ends inside a chunk length')
    const length = bytes.readUInt32LE(at)
    at += 4
    if (at + length > bytes.length) throw new Error('a chunked checkpoint part ends inside a chunk')
    const c = decodeOne(bytes.subarray(at, at + length))
    at += length
    if (n === 0) {
      whole = c.whole
      keys = c.keys as RowKey[]
      values = c.values as unknown[]
      moved = c.moved as boolean[] | null
      continue
    }
    if ((c.moved === null) !== (moved === null)) throw new Error('a chunked checkpoint part mixes base and delta chunks')
    for (let i = 0; i < c.keys.length; i++) {
      keys.push(c.keys[i]!)
      values.push(c.values[i])
    }
    if (moved !== null) for (let i = 0; i < c.moved!.length; i++) moved.push(c.moved![i]!)
  }
  return { whole, keys, values, moved }
}

function decodeOne(bytes: Buffer): KeyedPart {
  const raw = deserialize(bytes) as Partial<Envelope>
  if (raw === null || typeof raw !== 'object' || raw[COLUMNAR] !== 1) return fromSerialized(raw) as KeyedPart
  const e = raw as Envelope
  const n = e.n
  const rows = decodeBatch(e.rows)
  const others = decodeState(bytesOf(e.others)) as unknown[]
  const values = new Array<unknown>(n)
  let r = 0
  let b = 0
  let w = 0
  let o = 0
  let a = 0
  for (let i = 0; i < n; i++) {
    switch (e.kinds[i]) {
      case GONE:
        values[i] = undefined
        break
      case ROW:
        values[i] = rows[r++]
        break
      case BUCKET:
      case APPEND: {
        const c = e.counts[b++]!
        const bucketRows = new Array<readonly unknown[]>(c)
        const bucketWeights = new Array<number>(c)
        for (let j = 0; j < c; j++) {
          bucketRows[j] = rows[r++]!
          bucketWeights[j] = e.weights[w++]!
        }
        values[i] = e.kinds[i] === BUCKET ? { r: bucketRows, w: bucketWeights } : { after: e.afters![a++]!, r: bucketRows, w: bucketWeights }
        break
      }
      default:
        values[i] = others[o++]
    }
  }
  let moved: boolean[] | null = null
  if (e.moved !== null) {
    moved = new Array<boolean>(n)
    for (let i = 0; i < n; i++) moved[i] = e.moved[i] === 1
  }
  return { whole: decodeState(bytesOf(e.whole)), keys: e.keys, values, moved }
}
