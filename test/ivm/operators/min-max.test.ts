// MIN / MAX accumulators: the flat and the chunked representation must hold exactly the
// sorted entries (value, count) of the simple sorted-array algorithm, through growth past the
// chunk threshold, shrinking back, duplicates, transient negative counts and values that
// compare equal without being identical.
import { describe, expect, it } from 'vitest'
import { max, min, type MinMaxAcc } from '../../../ivm/index.js'
import { CHUNK_ABOVE, CHUNK_MAX, FLAT_AT } from '../../../ivm/aggregators/min-max.js'

type Cmp = (a: unknown, b: unknown) => number

/** The reference: one sorted array of [value, count], extreme last; the entry of a value keeps
 *  the representative that created it. */
class Reference {
  readonly v: unknown[] = []
  readonly c: number[] = []
  constructor(readonly cmp: Cmp) {}
  add(value: unknown, w: number): void {
    if (value === null || value === undefined || w === 0) return
    let i = 0
    while (i < this.v.length && this.cmp(this.v[i], value) < 0) i++
    if (i < this.v.length && this.cmp(this.v[i], value) === 0) {
      this.c[i]! += w
      if (this.c[i] === 0) {
        this.v.splice(i, 1)
        this.c.splice(i, 1)
      }
    } else {
      this.v.splice(i, 0, value)
      this.c.splice(i, 0, w)
    }
  }
  result(): unknown {
    for (let i = this.v.length - 1; i >= 0; i--) if (this.c[i]! > 0) return this.v[i]
    return null
  }
}

/** Flattens an accumulator, checking the representation invariants. */
function entries(acc: MinMaxAcc, cmp: Cmp): [unknown[], number[]] {
  let v: unknown[]
  let c: number[]
  if (acc.big === null) {
    expect(acc.v.length).toBeLessThanOrEqual(CHUNK_ABOVE)
    v = acc.v
    c = acc.c
  } else {
    expect(acc.v.length).toBe(0)
    expect(acc.big.n).toBeGreaterThan(FLAT_AT)
    v = []
    c = []
    for (let k = 0; k < acc.big.v.length; k++) {
      const cv = acc.big.v[k]!
      expect(cv.length).toBeGreaterThan(0)
      expect(cv.length).toBeLessThanOrEqual(CHUNK_MAX)
      expect(acc.big.c[k]!.length).toBe(cv.length)
      v.push(...cv)
      c.push(...acc.big.c[k]!)
    }
    expect(acc.big.n).toBe(v.length)
  }
  expect(c.length).toBe(v.length)
  for (let i = 1; i < v.length; i++) expect(cmp(v[i - 1], v[i])).toBeLessThan(0)
  for (const x of c) expect(x).not.toBe(0)
  return [v, c]
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const num = (a: number, b: number): number => a - b

/** An interval-like object: equal lengths compare equal whatever the representation. */
class Span {
  constructor(readonly days: number, readonly hours: number) {}
  get total(): number {
    return this.days * 24 + this.hours
  }
  toString(): string {
    return `${this.days}d${this.hours}h`
  }
}
const spanCmp = (a: Span, b: Span): number => a.total - b.total

describe('min / max accumulators', { timeout: 120_000 }, () => {
  for (const [label, which] of [['max', max], ['min', min]] as const) {
    for (const range of [5, 100, 300, 3000]) {
      it(`${label}: random adds and retractions over ${range} distinct values match the reference`, () => {
        const agg = which<number>(num)
        const cmp: Cmp = label === 'max' ? (num as Cmp) : (a, b) => num(b as number, a as number)
        const rand = rng(range * 31 + (label === 'max' ? 1 : 2))
        let acc = agg.create()
        const ref = new Reference(cmp)
        const held: number[] = []
        let chunked = false
        let flattened = false
        for (let step = 0; step < 7000; step++) {
          // phases: grow, then mostly shrink (below the threshold), then grow again
          const shrinking = step >= 2000 && step < 4500
          const r = rand()
          let value: number | null
          let w: number
          if (held.length !== 0 && (shrinking ? r < 0.9 : r < 0.2)) {
            const at = Math.floor(rand() * held.length)
            value = held[at]!
            held[at] = held[held.length - 1]!
            held.pop()
            w = -1
          } else if (r > 0.995) {
            value = null
            w = 1
          } else {
            // ascending runs half of the time (new extremes), else anywhere
            value = rand() < 0.5 ? Math.floor(rand() * range) : Math.floor(step / 7000 * range)
            w = rand() < 0.1 ? 2 : 1
            for (let k = 0; k < w; k++) held.push(value)
            if (w === 2) {
              acc = agg.add(acc, value, 1)
              ref.add(value, 1)
              w = 1
            }
          }
          acc = agg.add(acc, value, w)
          ref.add(value, w)
          if (acc.big !== null) chunked = true
          else if (chunked) flattened = true
          expect(agg.result(acc)).toBe(ref.result())
          if (step % 97 === 0 || step > 6900) {
            const [v, c] = entries(acc, cmp)
            expect(v).toEqual(ref.v)
            expect(c).toEqual(ref.c)
          }
        }
        if (range >= 3000) {
          expect(chunked).toBe(true)
          expect(flattened).toBe(true)
        }
        for (const x of held) acc = agg.add(acc, x, -1)
        expect(agg.result(acc)).toBe(null)
        expect(entries(acc, cmp)[0]).toEqual([])
      })
    }
  }

  it('transient negative counts: the result skips them, in both representations', () => {
    for (const n of [10, 1000]) {
      const agg = max<number>(num)
      let acc = agg.create()
      for (let i = 0; i < n; i++) acc = agg.add(acc, i, 1)
      expect(acc.big !== null).toBe(n > CHUNK_ABOVE)
      // retract the top values before their insertion (negative counts on top)
      for (let i = n; i < n + 300; i++) acc = agg.add(acc, i, -1)
      expect(agg.result(acc)).toBe(n - 1)
      for (let i = n - 1; i >= 0; i--) acc = agg.add(acc, i, -1)
      expect(agg.result(acc)).toBe(null)
      for (let i = n; i < n + 300; i++) acc = agg.add(acc, i, 1)
      expect(agg.result(acc)).toBe(null)
      expect(entries(acc, num as Cmp)[0]).toEqual([])
    }
  })

  it('ascending and descending loads (new extremes past a full chunk, inserts at the front)', () => {
    for (const which of [max, min]) {
      const agg = which<number>(num)
      const cmp: Cmp = which === max ? (num as Cmp) : (a, b) => num(b as number, a as number)
      let acc = agg.create()
      const ref = new Reference(cmp)
      for (let i = 0; i < 2000; i++) {
        acc = agg.add(acc, i, 1)
        ref.add(i, 1)
        expect(agg.result(acc)).toBe(which === max ? i : 0)
      }
      for (let i = -1; i > -1000; i--) {
        acc = agg.add(acc, i, 1)
        ref.add(i, 1)
      }
      expect(acc.big).not.toBe(null)
      // the part loaded as new extremes is in full chunks
      expect(acc.big!.v.filter((ch) => ch.length === CHUNK_MAX).length).toBeGreaterThanOrEqual(Math.floor((which === max ? 2000 : 999) / CHUNK_MAX) - 1)
      let [v, c] = entries(acc, cmp)
      expect(v).toEqual(ref.v)
      expect(c).toEqual(ref.c)
      // retract every other value, then the rest (merges, emptied chunks, back to flat)
      for (let i = -999; i < 2000; i += 2) {
        acc = agg.add(acc, i, -1)
        ref.add(i, -1)
      }
      ;[v, c] = entries(acc, cmp)
      expect(v).toEqual(ref.v)
      expect(c).toEqual(ref.c)
      for (let i = 1998; i > -1000; i -= 2) {
        acc = agg.add(acc, i, -1)
        ref.add(i, -1)
        if (i % 101 === 0) expect(entries(acc, cmp)).toEqual([ref.v, ref.c])
        expect(agg.result(acc)).toBe(ref.result())
      }
      expect(acc.big).toBe(null)
      expect(agg.result(acc)).toBe(null)
    }
  })

  it('a chunk between two full ones empties without merging, then leaves', () => {
    const agg = max<number>(num)
    const cmp = num as Cmp
    let acc = agg.create()
    const ref = new Reference(cmp)
    for (let i = 0; i < 4 * CHUNK_MAX; i++) {
      acc = agg.add(acc, i, 1)
      ref.add(i, 1)
    }
    const chunks = acc.big!.v.length
    for (let i = CHUNK_MAX; i < 2 * CHUNK_MAX; i++) {
      acc = agg.add(acc, i, -1)
      ref.add(i, -1)
      expect(entries(acc, cmp)).toEqual([ref.v, ref.c])
    }
    expect(acc.big!.v.length).toBe(chunks - 1)
    expect(agg.result(acc)).toBe(4 * CHUNK_MAX - 1)
  })

  it('weights: counts add up, an entry leaves only at 0', () => {
    const agg = min<number>(num)
    let acc = agg.create()
    for (let i = 0; i < 500; i++) acc = agg.add(acc, i, 3)
    acc = agg.add(acc, 0, -2)
    expect(agg.result(acc)).toBe(0)
    acc = agg.add(acc, 0, -1)
    expect(agg.result(acc)).toBe(1)
    acc = agg.add(acc, 1, 0)
    expect(agg.result(acc)).toBe(1)
    acc = agg.add(acc, 1, -3)
    expect(agg.result(acc)).toBe(2)
  })

  it('values comparing equal share one entry (objects), chunked or not', () => {
    const agg = max<Span>(spanCmp)
    const cmp = spanCmp as Cmp
    let acc = agg.create()
    const ref = new Reference(cmp)
    for (let j = 0; j < 200; j++) {
      for (const s of [new Span(j, 0), new Span(j - 1, 24)]) {
        acc = agg.add(acc, s, 1)
        ref.add(s, 1)
      }
    }
    const [v, c] = entries(acc, cmp)
    expect(v.length).toBe(ref.v.length)
    expect(v.map(String)).toEqual(ref.v.map(String))
    expect(c).toEqual(ref.c)
    expect(v.length).toBe(200)
    expect(String(agg.result(acc))).toBe('199d0h')
    // retract with the other representation
    acc = agg.add(acc, new Span(198, 24), -2)
    expect(String(agg.result(acc))).toBe('198d0h')
    expect(agg.result(max<Span>(spanCmp).create())).toBe(null)
  })

  it('the accumulator stays plain data (JSON round trip keeps the result)', () => {
    const agg = max<number>(num)
    let acc = agg.create()
    for (let i = 0; i < 1000; i++) acc = agg.add(acc, (i * 7919) % 1000, 1)
    const copy = JSON.parse(JSON.stringify(acc)) as MinMaxAcc
    expect(agg.result(copy)).toBe(999)
    expect(agg.result(agg.add(copy, 999, -1))).toBe(998)
  })
})
