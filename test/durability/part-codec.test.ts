// A keyed checkpoint part through the columnar part codec (src/storage/part-codec.ts) comes back
// exactly: keys, each entry whatever its shape — a row of any SQL values, a bucket of rows and
// weights, rows appended to a bucket (AppendedRows), anything else (accumulators, nested arrays,
// arrays holding undefined, objects that look almost like a bucket) — gone entries, the moved
// flags and the whole part (fast-check against the part itself); so does a part written in
// chunks (a checkpoint in flight writes one chunk at a time), cut anywhere. A part in the
// previous format (the state codec's bytes of the whole part) decodes too.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { KeyedPart } from '../../ivm/keyed-state.js'
import { Numeric } from '../../planner/numeric.js'
import { CHUNKED, decodeKeyedPart, encodeKeyedPart, framedChunk } from '../../src/storage/part-codec.js'
import { encodeState } from '../../src/storage/state-codec.js'
import { sameValue, sqlValue } from '../helpers/sql-values.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : Math.floor(Math.random() * 2 ** 31)

const rowOf = (width: number) => fc.array(sqlValue, { minLength: width, maxLength: width })

/** Entries of other shapes, some of them one step from a row or a bucket. */
const other: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ n: fc.integer(), sum: sqlValue, seen: fc.array(fc.string(), { maxLength: 3 }).map((xs) => new Map(xs.map((x, i) => [x, i]))) }, { noNullPrototype: true }),
  fc.array(fc.oneof(sqlValue, fc.array(fc.integer(), { maxLength: 2 })), { maxLength: 4 }),
  fc.array(fc.oneof(fc.integer(), fc.constant(undefined)), { minLength: 1, maxLength: 3 }),
  fc.tuple(fc.array(rowOf(2), { maxLength: 2 }), fc.array(fc.integer(), { maxLength: 2 })).map(([r, w]) => ({ r, w, extra: 1 })),
  fc.array(rowOf(2), { minLength: 1, maxLength: 2 }).map((r) => ({ r, w: r.map(() => 'one') })),
  // a bucket but for one row value (undefined, a plain object) or its `after`
  fc.tuple(rowOf(2), fc.constantFrom(undefined, {}, new Map([[1, 2]]))).map(([r, bad]) => ({ r: [r, [bad, 1]], w: [1, 2] })),
  fc.tuple(rowOf(2), fc.constantFrom(-1, 1.5, '2')).map(([r, after]) => ({ after, r: [r], w: [1] })),
  sqlValue.filter((v) => v !== null),
  fc.constant(null),
)

const partArb = fc.integer({ min: 1, max: 4 }).chain((width) => {
  const entry = fc.oneof(
    { arbitrary: rowOf(width), weight: 4 },
    { arbitrary: rowOf(width + 1), weight: 1 },
    // a row of the width but for one undefined (not a row: it would come back NULL)
    { arbitrary: fc.tuple(rowOf(width), fc.nat({ max: width - 1 })).map(([r, i]) => r.map((v, j) => (j === i ? undefined : v))), weight: 1 },
    {
      arbitrary: fc.array(fc.tuple(rowOf(width), fc.oneof(fc.integer({ min: -3, max: 5 }), fc.double({ noNaN: true }))), { minLength: 1, maxLength: 3 }).map((rw) => ({ r: rw.map(([r]) => r), w: rw.map(([, w]) => w) })),
      weight: 2,
    },
    {
      arbitrary: fc.tuple(fc.nat({ max: 9 }), fc.array(rowOf(width), { minLength: 1, maxLength: 3 })).map(([after, r]) => ({ after, r, w: r.map((_, i) => i + 1) })),
      weight: 1,
    },
    { arbitrary: other, weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  )
  const key = fc.oneof(fc.string(), fc.integer(), fc.constant(-0), fc.boolean(), fc.constant(null), fc.bigInt())
  return fc.record({
    whole: fc.oneof(fc.constant(null), fc.record({ watermark: fc.integer(), total: fc.bigInt().map((c) => new Numeric(c, 2)) }, { noNullPrototype: true })),
    entries: fc.uniqueArray(fc.tuple(key, entry, fc.boolean()), { maxLength: 25, selector: ([k]) => (typeof k === 'number' && Object.is(k, -0) ? '-0' : `${typeof k}:${String(k)}`) }),
    delta: fc.boolean(),
  }, { noNullPrototype: true })
})

function deepSame(a: unknown, b: unknown, at: string): void {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || b.length !== a.length) expect.fail(`${at}: an array of ${a.length} became ${String(b)}`)
    a.forEach((x, i) => deepSame(x, b[i], `${at}[${i}]`))
  } else if (a instanceof Map) {
    if (!(b instanceof Map) || b.size !== a.size) expect.fail(`${at}: a Map became ${String(b)}`)
    for (const [k, v] of a) deepSame(v, b.get(k), `${at}.get(${String(k)})`)
  } else if (a !== null && typeof a === 'object' && Object.getPrototypeOf(a) === Object.prototype) {
    if (b === null || typeof b !== 'object' || Object.getPrototypeOf(b) !== Object.prototype) expect.fail(`${at}: an object became ${String(b)}`)
    expect(Object.keys(b as object).sort()).toEqual(Object.keys(a).sort())
    for (const k of Object.keys(a)) deepSame((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`)
  } else if (!sameValue(a, b)) expect.fail(`${at}: ${String(a)} became ${String(b)}`)
}

function expectSamePart(got: KeyedPart, want: KeyedPart): void {
  deepSame(want.whole, got.whole, 'whole')
  deepSame(want.keys, got.keys, 'keys')
  deepSame(want.values, got.values, 'values')
  deepSame(want.moved, got.moved, 'moved')
}

describe('the part codec', () => {
  it('gives back every part exactly (fast-check)', () => {
    fc.assert(
      fc.property(partArb, ({ whole, entries, delta }) => {
        const part: KeyedPart = { whole, keys: entries.map(([k]) => k), values: entries.map(([, v]) => v), moved: delta ? entries.map(([, , m]) => m) : null }
        expectSamePart(decodeKeyedPart(encodeKeyedPart(part)), part)
      }),
      { numRuns: 400, seed: SEED },
    )
  })

  it('gives back a part written in chunks, cut anywhere, exactly (fast-check)', () => {
    fc.assert(
      fc.property(partArb, fc.array(fc.nat(), { maxLength: 4 }), ({ whole, entries, delta }, cuts) => {
        const part: KeyedPart = { whole, keys: entries.map(([k]) => k), values: entries.map(([, v]) => v), moved: delta ? entries.map(([, , m]) => m) : null }
        const at = [0, ...cuts.map((c) => c % (entries.length + 1)).sort((a, b) => a - b), entries.length]
        const bytes: Buffer[] = [CHUNKED]
        for (let i = 0; i + 1 < at.length; i++) {
          const [from, to] = [at[i]!, at[i + 1]!]
          // the part's whole in the first chunk (what a later one holds is not read)
          bytes.push(...framedChunk({ whole: i === 0 ? whole : 'not this one', keys: part.keys.slice(from, to), values: part.values.slice(from, to), moved: part.moved === null ? null : part.moved.slice(from, to) }))
        }
        expectSamePart(decodeKeyedPart(Buffer.concat(bytes)), part)
      }),
      { numRuns: 300, seed: SEED },
    )
  })

  it('refuses a part cut inside a chunk', () => {
    const part: KeyedPart = { whole: null, keys: ['a', 'b'], values: [[1], [2]], moved: null }
    const bytes = Buffer.concat([CHUNKED, ...framedChunk(part)])
    expect(() => decodeKeyedPart(bytes.subarray(0, bytes.length - 3))).toThrow(/ends inside a chunk/)
    expect(() => decodeKeyedPart(bytes.subarray(0, CHUNKED.length + 2))).toThrow(/ends inside a chunk length/)
  })

  it('reads a part of the previous format', () => {
    const part: KeyedPart = { whole: { n: new Numeric(5n, 1) }, keys: ['a', 2], values: [[1, 'x', new Numeric(12n, 1)], { r: [[1]], w: [2] }], moved: [true, false] }
    expectSamePart(decodeKeyedPart(encodeState(part)), part)
  })
})
