// The log's segment files (src/storage/log-segments.ts) against a model of them (fast-check): the
// class is where every acknowledged tick lives, so a record lost, reordered or altered across
// a roll, a reopen, a truncation behind a checkpoint or a crash is lost data, and damage taken
// for a torn write would cut off acknowledged records without a word.
//  - Random runs of appends (bodies of 0 to 3000 random bytes, seq rising by 1, processing time
//    never falling), rolls, reopens and dropBefore over one directory: after every reopen and at
//    the end, records() is exactly the model's records (seq, kind, tick, processing time, body)
//    in whole and for random bounds, lastSeq, bytes and the segment files are the model's, and
//    firstAt is a linear search of the model. The model keeps segments by their first seq as
//    the class does, and dropBefore deletes a segment only when the next one begins at or before
//    the seq given, i.e. when all its records precede it.
//  - A crash in the same runs: the last segment file cut inside its last record (header or
//    body), zero bytes after it, its body or the whole record zeroed (power losses). The reopen
//    gives every record before the torn one, reports the bytes cut off, and an append after it
//    reads back, across a further reopen too.
//  - Damage is not a tear: a byte flipped in a complete record's body is an error (XX001) when
//    it is read, while the records before it (and after it) still read; a byte flipped in a
//    record's magic is an error (XX001) on open (the last segment) or when read (an earlier one),
//    while the segments before it still read.
import { appendFileSync, closeSync, openSync, readdirSync, readSync, statSync, truncateSync, writeSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RivuletError } from '../../src/index.js'
import { HEADER_BYTES, LogSegments } from '../../src/storage/log-segments.js'
import type { SegmentRecord } from '../../src/storage/log-segments.js'
import { tempDirs } from '../helpers/temp-dirs.js'

const SEED = process.env.RIVULET_SEED !== undefined ? Number(process.env.RIVULET_SEED) : Math.floor(Math.random() * 2 ** 31)
const tempDir = tempDirs('segments')
const ALL = Number.MAX_SAFE_INTEGER

interface Rec {
  readonly seq: number
  readonly kind: 'tick' | 'ddl'
  readonly tick: number
  readonly now: number
  readonly body: Buffer
}

const fileName = (first: number): string => `${String(first).padStart(16, '0')}.seg`
const segFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.seg')).sort()

/** The segments as the class keeps them: each by the seq it was begun at, with its records. */
class Model {
  readonly segs: { first: number; recs: Rec[] }[] = []
  lastSeq = 0
  now = 0

  append(r: Rec): void {
    if (this.segs.length === 0) this.segs.push({ first: r.seq, recs: [] })
    this.segs.at(-1)!.recs.push(r)
    this.lastSeq = r.seq
  }

  roll(nextSeq: number): void {
    const last = this.segs.at(-1)
    if (last !== undefined && last.recs.length > 0) this.segs.push({ first: nextSeq, recs: [] })
  }

  /** The bytes freed. */
  dropBefore(seq: number): number {
    let freed = 0
    while (this.segs.length > 1 && this.segs[1]!.first <= seq) {
      const gone = this.segs.shift()!
      for (const r of gone.recs) if (r.seq >= seq) expect.fail(`dropBefore(${seq}) would delete record ${r.seq}`)
      freed += segBytes(gone.recs)
    }
    return freed
  }

  all(): Rec[] {
    return this.segs.flatMap((s) => s.recs)
  }

  bytes(): number {
    return this.segs.reduce((n, s) => n + segBytes(s.recs), 0)
  }
}

const segBytes = (recs: readonly Rec[]): number => recs.reduce((n, r) => n + HEADER_BYTES + r.body.length, 0)

function expectSame(got: readonly SegmentRecord[], want: readonly Rec[], where: string): void {
  const show = (rs: readonly { seq: number }[]) => rs.map((r) => r.seq).join(',')
  if (got.length !== want.length) expect.fail(`${where}: read seqs [${show(got)}], want [${show(want)}]`)
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!
    const w = want[i]!
    if (g.seq !== w.seq || g.kind !== w.kind || !Object.is(g.tick, w.tick) || !Object.is(g.now, w.now) || !g.body.equals(w.body)) {
      expect.fail(`${where}: record ${i} read as ${JSON.stringify({ ...g, body: g.body.toString('hex') })}, want ${JSON.stringify({ ...w, body: w.body.toString('hex') })}`)
    }
  }
}

type Probe = readonly [number, number, number]

/** Everything the class says about its records, against the model. */
function check(log: LogSegments, model: Model, probes: readonly Probe[], where: string): void {
  expect(log.lastSeq, `${where}: lastSeq`).toBe(model.lastSeq)
  expect(log.bytes, `${where}: bytes`).toBe(model.bytes())
  expect(segFiles(log.dir), `${where}: segment files`).toEqual(model.segs.map((s) => fileName(s.first)))
  const all = model.all()
  expectSame([...log.records(0, ALL)], all, `${where}: records(0, all)`)
  const span = model.lastSeq + 3
  const lastNow = all.at(-1)?.now ?? 0
  for (const [a, b, c] of probes) {
    const after = (a % span) - 1
    const upto = after + (b % span)
    expectSame([...log.records(after, upto)], all.filter((r) => r.seq > after && r.seq <= upto), `${where}: records(${after}, ${upto})`)
    const from = a % span
    const micros = c % (lastNow + 3)
    expect(log.firstAt(micros, from), `${where}: firstAt(${micros}, ${from})`).toBe(all.find((r) => r.seq >= from && r.now >= micros)?.seq)
  }
}

const bodyArb = fc.oneof({ weight: 6, arbitrary: fc.uint8Array({ maxLength: 48 }) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3000 }) })
const appendArb = fc.record({
  t: fc.constant('append' as const),
  kind: fc.constantFrom('tick' as const, 'ddl' as const),
  tick: fc.integer({ min: -5, max: 1_000_000 }),
  dNow: fc.oneof(fc.constant(0), fc.nat(1000)),
  body: bodyArb,
})
type AppendOp = typeof appendArb extends fc.Arbitrary<infer T> ? T : never
const probesArb = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 })
const opArb = fc.oneof(
  { weight: 10, arbitrary: appendArb },
  { weight: 2, arbitrary: fc.constant({ t: 'roll' as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('reopen' as const), probes: probesArb }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('drop' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('crash' as const),
      how: fc.constantFrom('cut' as const, 'zeros' as const, 'zero-body' as const, 'zero-record' as const),
      at: fc.nat(),
      zeros: fc.integer({ min: 1, max: 100 }),
      next: appendArb,
      probes: probesArb,
    }),
  },
)

/** Appends the model's next record. */
function appendNext(log: LogSegments, model: Model, op: AppendOp): void {
  model.now += op.dNow
  const r: Rec = { seq: model.lastSeq + 1, kind: op.kind, tick: op.tick, now: model.now, body: Buffer.from(op.body) }
  log.append(r.seq, r.kind, r.tick, r.now, Buffer.from(r.body))
  model.append(r)
}

function overwrite(file: string, at: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+')
  try {
    writeSync(fd, bytes, 0, bytes.length, at)
  } finally {
    closeSync(fd)
  }
}

function byteAt(file: string, at: number): number {
  const b = Buffer.alloc(1)
  const fd = openSync(file, 'r')
  try {
    readSync(fd, b, 0, 1, at)
  } finally {
    closeSync(fd)
  }
  return b[0]!
}

/** Where record `i` of a segment begins in its file. */
const offsetOf = (recs: readonly Rec[], i: number): number => segBytes(recs.slice(0, i))

function expectCorrupt(f: () => unknown, where: string): void {
  try {
    f()
  } catch (e) {
    if (e instanceof RivuletError && e.code === 'XX001') return
    throw e
  }
  expect.fail(`${where}: no error`)
}

describe('the log segments', () => {
  it('keep exactly what was appended across rolls, reopens, truncation and torn last writes (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), probesArb, (ops, finalProbes) => {
        const dir = path.join(tempDir(), 'log')
        const model = new Model()
        let log = new LogSegments(dir)
        try {
          for (const [n, op] of ops.entries()) {
            const where = `after op ${n} (${op.t})`
            if (op.t === 'append') appendNext(log, model, op)
            else if (op.t === 'roll') {
              log.roll(model.lastSeq + 1)
              model.roll(model.lastSeq + 1)
            } else if (op.t === 'drop') {
              const seq = op.at % (model.lastSeq + 3)
              expect(log.dropBefore(seq), `${where}: bytes freed by dropBefore(${seq})`).toBe(model.dropBefore(seq))
            } else if (op.t === 'reopen') {
              log.close()
              log = new LogSegments(dir)
              expect(log.tornBytes, `${where}: tornBytes`).toBe(0)
              check(log, model, op.probes, where)
            } else {
              log.close()
              const last = model.segs.at(-1)
              if (last === undefined) {
                log = new LogSegments(dir)
                continue
              }
              const file = path.join(dir, fileName(last.first))
              expect(segFiles(dir).at(-1)).toBe(fileName(last.first))
              const size = statSync(file).size
              expect(size).toBe(segBytes(last.recs))
              const rec = last.recs.at(-1)
              let how = op.how
              if (rec === undefined || (how === 'zero-body' && rec.body.every((b) => b === 0))) how = 'zeros'
              let torn: number
              if (how === 'zeros') {
                appendFileSync(file, Buffer.alloc(op.zeros))
                torn = op.zeros
              } else {
                const length = HEADER_BYTES + rec!.body.length
                const start = size - length
                if (how === 'cut') {
                  const cut = start + 1 + (op.at % (length - 1))
                  truncateSync(file, cut)
                  torn = cut - start
                } else if (how === 'zero-body') {
                  overwrite(file, start + HEADER_BYTES, Buffer.alloc(rec!.body.length))
                  torn = length
                } else {
                  overwrite(file, start, Buffer.alloc(length))
                  torn = length
                }
                last.recs.pop()
                model.lastSeq = rec!.seq - 1
              }
              const crash = `${where}: ${how}${rec === undefined ? '' : ` of record ${rec.seq}`} in ${fileName(last.first)}`
              log = new LogSegments(dir)
              expect(log.tornBytes, `${crash}: tornBytes`).toBe(torn)
              check(log, model, op.probes, crash)
              appendNext(log, model, op.next)
              log.close()
              log = new LogSegments(dir)
              expect(log.tornBytes, `${crash}, appended after: tornBytes`).toBe(0)
              check(log, model, op.probes, `${crash}, appended after and reopened`)
            }
          }
          check(log, model, finalProbes, 'at the end')
          log.close()
          log = new LogSegments(dir)
          check(log, model, finalProbes, 'at the end, reopened')
        } finally {
          log.close()
        }
      }),
      { numRuns: 100, seed: SEED },
    )
  })

  it('take a flipped byte for damage, never for a torn write (fast-check)', () => {
    const buildArb = fc.array(fc.oneof({ weight: 6, arbitrary: appendArb }, { weight: 1, arbitrary: fc.constant({ t: 'roll' as const }) }), { minLength: 2, maxLength: 25 })
    fc.assert(
      fc.property(buildArb, fc.constantFrom('body' as const, 'magic' as const), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), (ops, where, pick, pos, mask) => {
        const dir = path.join(tempDir(), 'log')
        const model = new Model()
        const log = new LogSegments(dir)
        for (const op of ops) {
          if (op.t === 'append') appendNext(log, model, op)
          else {
            log.roll(model.lastSeq + 1)
            model.roll(model.lastSeq + 1)
          }
        }
        log.close()
        const targets = model.segs.flatMap((s, si) => s.recs.map((r, i) => ({ si, i, r }))).filter(({ r }) => where === 'magic' || r.body.length > 0)
        fc.pre(targets.length > 0)
        const { si, i, r } = targets[pick % targets.length]!
        const seg = model.segs[si]!
        const file = path.join(dir, fileName(seg.first))
        const start = offsetOf(seg.recs, i)
        const at = where === 'body' ? start + HEADER_BYTES + (pos % r.body.length) : start + (pos % 4)
        const flipped = byteAt(file, at) ^ mask
        const lastRecord = si === model.segs.length - 1 && i === seg.recs.length - 1
        // the last record with its body all zero is what a power loss leaves: a tear, by design
        if (where === 'body' && lastRecord) fc.pre(r.body.some((b, k) => (k === pos % r.body.length ? flipped : b) !== 0))
        overwrite(file, at, Buffer.of(flipped))
        const all = model.all()
        const damage = `a flipped ${where} byte of record ${r.seq} (segment ${fileName(seg.first)}, byte ${at})`

        const inLast = si === model.segs.length - 1
        let reopened: LogSegments
        try {
          reopened = new LogSegments(dir)
        } catch (e) {
          if (!(e instanceof RivuletError) || e.code !== 'XX001') throw e
          // only the last segment is scanned on open, and only a header there fails it
          if (where === 'body' || !inLast) expect.fail(`${damage}: the open failed (${e.message})`)
          return
        }
        try {
          if (where === 'magic' && inLast) expect.fail(`${damage}: opened`)
          expect(reopened.tornBytes, `${damage}: tornBytes`).toBe(0)
          expect(reopened.lastSeq, `${damage}: lastSeq`).toBe(model.lastSeq)
          expectCorrupt(() => [...reopened.records(0, ALL)], damage)
          if (where === 'body') {
            expectSame([...reopened.records(0, r.seq - 1)], all.filter((x) => x.seq < r.seq), `${damage}: the records before it`)
            expectSame([...reopened.records(r.seq, ALL)], all.filter((x) => x.seq > r.seq), `${damage}: the records after it`)
          } else {
            expectSame([...reopened.records(0, seg.first - 1)], all.filter((x) => x.seq < seg.first), `${damage}: the segments before it`)
          }
        } finally {
          reopened.close()
        }
      }),
      { numRuns: 100, seed: SEED },
    )
  })
})
