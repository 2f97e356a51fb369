// The Nexmark generator (src/connectors/nexmark/generator.ts) and its file writer (src/connectors/nexmark/files.ts):
// determinism (per-event seeding, chunking, random access), Beam's event mix, ids, hot keys,
// timestamps and the out-of-order shuffle, value ranges and string shapes, bounded runs, and
// JSONL/CSV files read back against fill()'s rows. Statistical checks use loose bounds that a
// wrong distribution still fails (e.g. a hot-key rate of 1/2 where 3/4 is expected).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeNexmarkFiles } from '../../src/connectors/nexmark/files.js'
import { NEXMARK_SCHEMAS, NexmarkGenerator, type NexmarkOptions } from '../../src/connectors/nexmark/generator.js'
import { formatTimestamp } from '../../src/sql-runtime/datetime.js'

type Kind = 'person' | 'auction' | 'bid'
type Rows = Record<Kind, unknown[][]>
interface PositionedEvent {
  kind: Kind
  row: unknown[]
}

const BASE_TIME = 1_436_918_400_000_000 // 2015-07-15T00:00:00Z in µs

function emptyRows(): Rows {
  return { person: [], auction: [], bid: [] }
}

/** Index of a column in a row kind's layout. */
function col(kind: Kind, name: string): number {
  const i = NEXMARK_SCHEMAS[kind].findIndex((c) => c.name === name)
  if (i < 0) throw new Error(`no column ${kind}.${name}`)
  return i
}

/** One big fill of `count` events from a fresh generator. */
function fillAll(options: NexmarkOptions, count: number, pTime: number | null = null): Rows {
  const out = emptyRows()
  new NexmarkGenerator(options).fill(count, out, pTime)
  return out
}

/** The first `count` events in position order (fill(1) at a time, noting which kind grew). */
function inOrder(generator: NexmarkGenerator, count: number): PositionedEvent[] {
  const out = emptyRows()
  const events: PositionedEvent[] = []
  for (let i = 0; i < count; i++) {
    const sizes = [out.person.length, out.auction.length, out.bid.length]
    if (generator.fill(1, out) === 0) break
    const kind: Kind = out.person.length > sizes[0]! ? 'person' : out.auction.length > sizes[1]! ? 'auction' : 'bid'
    events.push({ kind, row: out[kind].at(-1)! })
  }
  return events
}

const num = (row: unknown[], index: number): number => row[index] as number
const str = (row: unknown[], index: number): string => row[index] as string
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

// 50,000 in-order events of the default configuration, shared by the read-only checks below.
const sample = inOrder(new NexmarkGenerator(), 50_000)
const sampleRows = emptyRows()
for (const e of sample) sampleRows[e.kind].push(e.row)

describe('schemas', () => {
  it('lists the columns of each row kind in row order', () => {
    expect(NEXMARK_SCHEMAS.person.map((c) => `${c.name}:${c.type}`)).toEqual([
      'id:bigint', 'name:text', 'email_address:text', 'credit_card:text', 'city:text', 'state:text', 'date_time:timestamp', 'extra:text',
    ])
    expect(NEXMARK_SCHEMAS.auction.map((c) => `${c.name}:${c.type}`)).toEqual([
      'id:bigint', 'item_name:text', 'description:text', 'initial_bid:bigint', 'reserve:bigint', 'date_time:timestamp', 'expires:timestamp', 'seller:bigint', 'category:bigint', 'extra:text',
    ])
    expect(NEXMARK_SCHEMAS.bid.map((c) => `${c.name}:${c.type}`)).toEqual([
      'auction:bigint', 'bidder:bigint', 'price:bigint', 'channel:text', 'url:text', 'date_time:timestamp', 'extra:text', 'p_time:timestamp',
    ])
  })

  it('rows have exactly the schema length, with the types it says', () => {
    for (const kind of ['person', 'auction', 'bid'] as const) {
      for (const row of sampleRows[kind].slice(0, 500)) {
        expect(row.length).toBe(NEXMARK_SCHEMAS[kind].length)
        NEXMARK_SCHEMAS[kind].forEach((c, i) => {
          if (kind === 'bid' && c.name === 'p_time') expect(row[i]).toBeNull()
          else if (c.type === 'text') expect(typeof row[i]).toBe('string')
          else expect(Number.isSafeInteger(row[i])).toBe(true)
        })
      }
    }
  })
})

describe('determinism', () => {
  it('the same options give the same events; another seed gives other ones', () => {
    const a = fillAll({ seed: 7 }, 20_000)
    expect(fillAll({ seed: 7 }, 20_000)).toEqual(a)
    const b = fillAll({ seed: 8 }, 20_000)
    // ids and timestamps do not depend on the seed; the random columns do
    expect(b.person.map((r) => r[0])).toEqual(a.person.map((r) => r[0]))
    const samePrice = a.bid.filter((r, i) => r[col('bid', 'price')] === b.bid[i]![col('bid', 'price')]).length
    expect(samePrice).toBeLessThan(a.bid.length / 100)
    const sameEmail = a.person.filter((r, i) => r[2] === b.person[i]![2]).length
    expect(sameEmail).toBeLessThan(a.person.length / 10)
    // the channel url table is drawn from the seed too
    const urlsOf = (rows: Rows) => new Map(rows.bid.map((r) => [r[col('bid', 'channel')], r[col('bid', 'url')]]))
    const urlsA = urlsOf(a)
    const urlsB = urlsOf(b)
    expect([...urlsA.keys()].filter((channel) => urlsB.has(channel) && urlsB.get(channel) === urlsA.get(channel))).toEqual([])
  })

  it('large and negative seeds are accepted and distinct', () => {
    const big = fillAll({ seed: 2 ** 40 + 3 }, 200)
    const bigNeighbour = fillAll({ seed: 3 }, 200) // same low 32 bits
    const negative = fillAll({ seed: -1 }, 200)
    expect(big.bid.map((r) => r[2])).not.toEqual(bigNeighbour.bid.map((r) => r[2]))
    expect(negative.bid.map((r) => r[2])).not.toEqual(big.bid.map((r) => r[2]))
  })

  for (const outOfOrderGroupSize of [1, 50]) {
    it(`filling in chunks of 1, 7 or 1000 equals one big fill (group size ${outOfOrderGroupSize})`, () => {
      const total = 5_003
      const options = { seed: 3, outOfOrderGroupSize }
      const whole = emptyRows()
      const reference = new NexmarkGenerator(options)
      expect(reference.fill(total, whole, 5)).toBe(total)
      for (const chunk of [1, 7, 1000]) {
        const generator = new NexmarkGenerator(options)
        const parts = emptyRows()
        let made = 0
        while (made < total) made += generator.fill(Math.min(chunk, total - made), parts, 5)
        expect(parts).toEqual(whole)
        expect(generator.position).toBe(total)
        expect(generator.maxEventTime).toBe(reference.maxEventTime)
      }
    })
  }

  it('eventAt(n) is position n of a fill, and leaves the position alone', () => {
    for (const outOfOrderGroupSize of [1, 50]) {
      const ordered = inOrder(new NexmarkGenerator({ outOfOrderGroupSize, seed: 11 }), 3_000)
      const random = new NexmarkGenerator({ outOfOrderGroupSize, seed: 11 })
      for (const n of [0, 1, 2, 3, 4, 49, 50, 51, 999, 1_234, 2_999]) expect(random.eventAt(n, null)).toEqual(ordered[n])
      expect(random.position).toBe(0)
    }
    const generator = new NexmarkGenerator()
    const far = 12_345_678_910 // beyond 2^32: the high word of the event number feeds the seed
    expect(generator.eventAt(far)).toEqual(new NexmarkGenerator().eventAt(far))
    // same low word, both bids: the random columns (price, channel, extra) must still differ
    const randomColumns = (row: unknown[]) => [row[col('bid', 'price')], row[col('bid', 'channel')], row[col('bid', 'extra')]]
    const aliased = generator.eventAt(far - 2 ** 33)
    expect([generator.eventAt(far).kind, aliased.kind]).toEqual(['bid', 'bid'])
    expect(randomColumns(aliased.row)).not.toEqual(randomColumns(generator.eventAt(far).row))
    expect(generator.eventAt(far).row[col('bid', 'date_time')]).toBe(BASE_TIME + far * 100)
  })

  it('bids carry the p_time given to fill() as is (null by default)', () => {
    expect(new Set(fillAll({}, 200).bid.map((r) => r[col('bid', 'p_time')]))).toEqual(new Set([null]))
    expect(new Set(fillAll({}, 200, 1_700_000_000_000_000).bid.map((r) => r[col('bid', 'p_time')]))).toEqual(new Set([1_700_000_000_000_000]))
    expect(new NexmarkGenerator().eventAt(10, 42).row[col('bid', 'p_time')]).toBe(42)
  })
})

describe('event mix and ids', () => {
  it('has exactly 1 person, 3 auctions and 46 bids per 50 events, starting with a person', () => {
    expect([sampleRows.person.length, sampleRows.auction.length, sampleRows.bid.length]).toEqual([1000, 3000, 46000])
    expect(sample.slice(0, 6).map((e) => e.kind)).toEqual(['person', 'auction', 'auction', 'auction', 'bid', 'bid'])
    expect(sample.slice(49, 54).map((e) => e.kind)).toEqual(['bid', 'person', 'auction', 'auction', 'auction'])
  })

  it('person and auction ids are dense and increasing from 1000', () => {
    expect(sampleRows.person.map((r) => r[col('person', 'id')])).toEqual(Array.from({ length: 1000 }, (_, i) => 1000 + i))
    expect(sampleRows.auction.map((r) => r[col('auction', 'id')])).toEqual(Array.from({ length: 3000 }, (_, i) => 1000 + i))
  })

  it('references point at recent ids (at most 10 ahead); the hot keys take their share', () => {
    let lastPerson = -1
    let lastAuction = -1
    let hotAuctionBids = 0
    let hotBidderBids = 0
    let hotSellers = 0
    const bad: string[] = []
    for (const { kind, row } of sample) {
      if (kind === 'person') lastPerson = num(row, col('person', 'id'))
      else if (kind === 'auction') {
        lastAuction = num(row, col('auction', 'id'))
        const seller = num(row, col('auction', 'seller'))
        if (seller < 1000 || seller > lastPerson + 10 || seller < lastPerson - 999) bad.push(`seller ${seller} after person ${lastPerson}`)
        if (seller === Math.floor((lastPerson - 1000) / 100) * 100 + 1000) hotSellers++
      } else {
        const auction = num(row, col('bid', 'auction'))
        const bidder = num(row, col('bid', 'bidder'))
        if (auction < 1000 || auction > lastAuction + 10 || auction < lastAuction - 100) bad.push(`auction ${auction} after auction ${lastAuction}`)
        if (bidder < 1000 || bidder > lastPerson + 10 || bidder < lastPerson - 999) bad.push(`bidder ${bidder} after person ${lastPerson}`)
        if (auction === Math.floor((lastAuction - 1000) / 100) * 100 + 1000) hotAuctionBids++
        if (bidder === Math.floor((lastPerson - 1000) / 100) * 100 + 1001) hotBidderBids++
      }
    }
    expect(bad.slice(0, 5)).toEqual([])
    const bids = sampleRows.bid.length
    // hot share + the random draws that happen to hit the hot id (a few %)
    expect(hotAuctionBids / bids).toBeGreaterThan(0.48)
    expect(hotAuctionBids / bids).toBeLessThan(0.56)
    expect(hotBidderBids / bids).toBeGreaterThan(0.73)
    expect(hotBidderBids / bids).toBeLessThan(0.78)
    expect(hotSellers / sampleRows.auction.length).toBeGreaterThan(0.71)
    expect(hotSellers / sampleRows.auction.length).toBeLessThan(0.8)
    // and the non-hot references spread out: many distinct auctions and bidders
    expect(new Set(sampleRows.bid.map((r) => r[col('bid', 'auction')])).size).toBeGreaterThan(2500)
    expect(new Set(sampleRows.bid.map((r) => r[col('bid', 'bidder')])).size).toBeGreaterThan(900)
  })
})

describe('time', () => {
  it('event n is at baseTime + floor(n·10^6/rate) µs; in order, time never goes back', () => {
    const times = sample.map(({ kind, row }) => num(row, col(kind, 'date_time')))
    expect(times[0]).toBe(BASE_TIME)
    expect(times[1]).toBe(BASE_TIME + 100)
    expect(times[49_999]).toBe(BASE_TIME + 49_999 * 100)
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true)
    const odd = inOrder(new NexmarkGenerator({ rate: 3, baseTime: 1_000_000 }), 5)
    expect(odd.map(({ kind, row }) => num(row, col(kind, 'date_time')))).toEqual([1_000_000, 1_333_333, 1_666_666, 2_000_000, 2_333_333])
  })

  it('maxEventTime is the high-water mark of emitted event time', () => {
    const generator = new NexmarkGenerator({ outOfOrderGroupSize: 50 })
    expect(generator.maxEventTime).toBe(-Infinity)
    const events = inOrder(generator, 75)
    const times = events.map(({ kind, row }) => num(row, col(kind, 'date_time')))
    expect(generator.maxEventTime).toBe(Math.max(...times))
    expect(generator.maxEventTime).toBeGreaterThan(times.at(-1)!)
  })

  it('with group size 50, each group of 50 positions is a shuffle of the same 50 events', () => {
    const shuffled = inOrder(new NexmarkGenerator({ outOfOrderGroupSize: 50 }), 5_000)
    const byEventNumber = new Map<number, PositionedEvent>()
    for (const e of sample.slice(0, 5_000)) byEventNumber.set((num(e.row, col(e.kind, 'date_time')) - BASE_TIME) / 100, e)
    let displaced = 0
    for (let group = 0; group < 100; group++) {
      const numbers: number[] = []
      for (let n = group * 50; n < group * 50 + 50; n++) {
        const { kind, row } = shuffled[n]!
        const time = num(row, col(kind, 'date_time'))
        expect(Math.abs(time - (BASE_TIME + n * 100))).toBeLessThan(50 * 100)
        const eventNumber = (time - BASE_TIME) / 100
        numbers.push(eventNumber)
        if (eventNumber !== n) displaced++
        // the same event as in the in-order run (each event is a function of its number)
        expect(shuffled[n]).toEqual(byEventNumber.get(eventNumber))
      }
      expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => group * 50 + i))
    }
    expect(displaced).toBeGreaterThan(4_000)
  })

  it('auctions expire after they start, on average after the time of 1666 events', () => {
    const lengths = sampleRows.auction.map((r) => num(r, col('auction', 'expires')) - num(r, col('auction', 'date_time')))
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(1000)
    expect(Math.max(...lengths)).toBeLessThan(1000 + 2 * 1666 * 100)
    expect(Math.abs(mean(lengths) - (1000 + 1666 * 100))).toBeLessThan(8_000)
    const fast = fillAll({ rate: 1e9 }, 2_000).auction.map((r) => num(r, col('auction', 'expires')) - num(r, col('auction', 'date_time')))
    expect(Math.min(...fast)).toBeGreaterThanOrEqual(1000)
    expect(Math.max(...fast)).toBeLessThan(1000 + 2 * 2)
  })
})

describe('values', () => {
  it('prices, reserves and categories are in range', () => {
    const prices = [...sampleRows.bid.map((r) => num(r, col('bid', 'price'))), ...sampleRows.auction.map((r) => num(r, col('auction', 'initial_bid')))]
    expect(prices.every((p) => Number.isInteger(p) && p >= 100 && p <= 100_000_000)).toBe(true)
    // rounded, not truncated or ceiled: 10^(6u)·100 < 100.5 for u < 0.00036, ≈ 18 of 49,000 prices
    expect(prices.filter((p) => p === 100).length).toBeGreaterThan(3)
    // log-uniform: the median is about 10^3·100
    const sorted = [...prices].sort((a, b) => a - b)
    expect(sorted[sorted.length >> 1]).toBeGreaterThan(60_000)
    expect(sorted[sorted.length >> 1]).toBeLessThan(160_000)
    expect(sampleRows.auction.every((r) => num(r, col('auction', 'reserve')) > num(r, col('auction', 'initial_bid')))).toBe(true)
    const categories = sampleRows.auction.map((r) => num(r, col('auction', 'category')))
    expect(new Set(categories)).toEqual(new Set([10, 11, 12, 13, 14]))
  })

  it('extras pad records to their average sizes', () => {
    const bidExtras = sampleRows.bid.map((r) => str(r, col('bid', 'extra')).length)
    expect(Math.abs(mean(bidExtras) - 67.5)).toBeLessThan(3)
    expect(Math.min(...bidExtras)).toBe(54)
    expect(Math.max(...bidExtras)).toBe(81)
    const personSizes = sampleRows.person.map((r) => 8 + r.filter((v) => typeof v === 'string').reduce((a: number, v) => a + (v as string).length, 0))
    // size before extra + extra = average − δ + uniform{0..2δ−1}: mean average − 0.5
    expect(Math.abs(mean(personSizes) - 199.5)).toBeLessThan(2)
    const auctionSizes = sampleRows.auction.map((r) => 48 + str(r, 1).length + str(r, 2).length + str(r, col('auction', 'extra')).length)
    expect(Math.abs(mean(auctionSizes) - 499.5)).toBeLessThan(3)
    const allExtras = (['person', 'auction', 'bid'] as const).flatMap((kind) => sampleRows[kind].slice(0, 300).map((r) => str(r, col(kind, 'extra'))))
    expect(allExtras.every((e) => /^[a-z]+$/.test(e))).toBe(true)
    expect(new Set(allExtras).size).toBe(allExtras.length)
    // uniform letters: each of the 26 within 8 % of 1/26 over ~135,000 characters
    const letters = sampleRows.bid.slice(0, 2000).map((r) => str(r, col('bid', 'extra'))).join('')
    const counts = new Map<string, number>()
    for (const c of letters) counts.set(c, (counts.get(c) ?? 0) + 1)
    expect(counts.size).toBe(26)
    expect([...counts.values()].every((n) => Math.abs(n / letters.length - 1 / 26) < 0.08 / 26)).toBe(true)
  })

  it('person strings have their documented shapes', () => {
    const firstNames = ['Peter', 'Paul', 'Luke', 'John', 'Saul', 'Vicky', 'Kate', 'Julie', 'Sarah', 'Deiter', 'Walter']
    const lastNames = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris']
    const cities = ['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne']
    const trimmed = (max: number) => `(?:[a-z](?:[a-z ]{0,${max - 2}}[a-z])?)?`
    const email = new RegExp(`^${trimmed(6)}@${trimmed(4)}\\.com$`)
    const bad: unknown[] = []
    for (const r of sampleRows.person) {
      const [first, last, ...more] = str(r, col('person', 'name')).split(' ')
      if (!firstNames.includes(first!) || !lastNames.includes(last!) || more.length > 0) bad.push(r[1])
      if (!email.test(str(r, col('person', 'email_address')))) bad.push(r[2])
      if (!/^\d{4} \d{4} \d{4} \d{4}$/.test(str(r, col('person', 'credit_card')))) bad.push(r[3])
      if (!cities.includes(str(r, col('person', 'city')))) bad.push(r[4])
      if (!['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'].includes(str(r, col('person', 'state')))) bad.push(r[5])
    }
    expect(bad).toEqual([])
    expect(new Set(sampleRows.person.map((r) => r[col('person', 'state')])).size).toBe(6)
    expect(new Set(sampleRows.person.map((r) => r[col('person', 'city')])).size).toBe(10)
    expect(new Set(sampleRows.person.map((r) => r[col('person', 'name')])).size).toBeGreaterThan(90)
    expect(sampleRows.person.some((r) => str(r, col('person', 'credit_card')).startsWith('0'))).toBe(true) // zero padded
  })

  it('auction strings are random lower-case text with about 1 space in 13', () => {
    const items = sampleRows.auction.map((r) => str(r, col('auction', 'item_name')))
    const descriptions = sampleRows.auction.map((r) => str(r, col('auction', 'description')))
    expect(items.every((s) => /^(?:[a-z](?:[a-z ]{0,17}[a-z])?)?$/.test(s))).toBe(true)
    expect(descriptions.every((s) => /^(?:[a-z](?:[a-z ]{0,97}[a-z])?)?$/.test(s))).toBe(true)
    expect(Math.max(...descriptions.map((s) => s.length))).toBeGreaterThan(90)
    expect(Math.min(...items.map((s) => s.length))).toBeLessThan(4)
    const text = descriptions.join('')
    const spaces = text.split(' ').length - 1
    // 1/13 of the characters, a little less once the ends are trimmed (1/12 would give ≈ 0.082)
    expect(spaces / text.length).toBeGreaterThan(0.07)
    expect(spaces / text.length).toBeLessThan(0.079)
    expect(new Set(text.replace(/ /g, '')).size).toBe(26)
  })

  it('bid channels: half hot with fixed urls, else channel-i with its own url and channel_id = |reverse bits of i|', () => {
    /** Bit-reversal of a 32-bit i as a signed int, made non-negative (computed independently of the generator). */
    const reversedId = (i: number) => Math.abs(Number.parseInt(i.toString(2).padStart(32, '0').split('').reverse().join(''), 2) | 0)
    const urlShape = /^https:\/\/www\.nexmark\.com\/[a-z_]{3,4}\/[a-z_]{3,4}\/[a-z_]{3,4}\/item\.htm\?query=1(?:&channel_id=(\d+))?$/
    const hotUrls = new Map<string, Set<string>>()
    const channelUrls = new Map<string, Set<string>>()
    let hot = 0
    const bad: unknown[] = []
    for (const r of sampleRows.bid) {
      const channel = str(r, col('bid', 'channel'))
      const url = str(r, col('bid', 'url'))
      const match = urlShape.exec(url)
      if (!match) bad.push(url)
      if (['Google', 'Facebook', 'Baidu', 'Apple'].includes(channel)) {
        hot++
        if (match?.[1] !== undefined) bad.push(`hot ${url}`)
        if (!hotUrls.has(channel)) hotUrls.set(channel, new Set())
        hotUrls.get(channel)!.add(url)
      } else {
        const m = /^channel-(\d{1,4})$/.exec(channel)
        if (!m) bad.push(channel)
        else if (match?.[1] !== undefined && Number(match[1]) !== reversedId(Number(m[1]))) bad.push(`${channel} ${url}`)
        if (!channelUrls.has(channel)) channelUrls.set(channel, new Set())
        channelUrls.get(channel)!.add(url)
      }
    }
    expect(bad.slice(0, 5)).toEqual([])
    expect(hot / sampleRows.bid.length).toBeGreaterThan(0.48)
    expect(hot / sampleRows.bid.length).toBeLessThan(0.52)
    expect([...hotUrls.keys()].sort()).toEqual(['Apple', 'Baidu', 'Facebook', 'Google'])
    expect([...hotUrls.values()].every((urls) => urls.size === 1)).toBe(true)
    expect(new Set([...hotUrls.values()].flatMap((urls) => [...urls])).size).toBe(4)
    expect(channelUrls.size).toBeGreaterThan(8_000) // ~23,000 draws over 10,000 channels
    expect([...channelUrls.values()].every((urls) => urls.size === 1)).toBe(true)
    const withId = [...channelUrls.values()].filter((urls) => [...urls][0]!.includes('&channel_id=')).length
    expect(withId / channelUrls.size).toBeGreaterThan(0.87)
    expect(withId / channelUrls.size).toBeLessThan(0.93)
    expect(reversedId(1)).toBe(2 ** 31) // the test's own helper: bit 0 → bit 31
  })
})

describe('bounded runs and options', () => {
  it('stops after `events`', () => {
    const generator = new NexmarkGenerator({ events: 1234 })
    const out = emptyRows()
    expect(generator.done).toBe(false)
    expect(generator.fill(1000, out)).toBe(1000)
    expect(generator.done).toBe(false)
    expect(generator.fill(1000, out)).toBe(234)
    expect(generator.done).toBe(true)
    expect(generator.fill(1000, out)).toBe(0)
    expect(generator.position).toBe(1234)
    expect(out.person.length + out.auction.length + out.bid.length).toBe(1234)
    expect(() => generator.eventAt(1234)).toThrow(RangeError)
    expect(new NexmarkGenerator({ events: 0 }).done).toBe(true)
  })

  it('fills in defaults and rejects invalid options', () => {
    expect(new NexmarkGenerator().options).toEqual({ events: Infinity, rate: 10_000, seed: 0, outOfOrderGroupSize: 1, baseTime: BASE_TIME })
    expect(() => new NexmarkGenerator({ rate: 0 })).toThrow(RangeError)
    expect(() => new NexmarkGenerator({ events: -1 })).toThrow(RangeError)
    expect(() => new NexmarkGenerator({ events: 1.5 })).toThrow(RangeError)
    expect(() => new NexmarkGenerator({ outOfOrderGroupSize: 0 })).toThrow(RangeError)
    expect(() => new NexmarkGenerator({ outOfOrderGroupSize: 953 })).toThrow(RangeError)
    expect(() => new NexmarkGenerator({ seed: 0.5 })).toThrow(RangeError)
    expect(() => new NexmarkGenerator().fill(-1, emptyRows())).toThrow(RangeError)
  })
})

describe('files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rivulet-nexmark-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const options = { events: 5_000, seed: 5, rate: 3_000 } // 333⅓ µs apart: fractional seconds
  const expected = fillAll(options, 5_000)

  /** RFC 4180 records (a small independent parser: quoted fields, doubled quotes, \n records). */
  function parseCsv(text: string): string[][] {
    const records: string[][] = []
    let field = ''
    let record: string[] = []
    let quoted = false
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') (field += '"'), i++
        else if (c === '"') quoted = false
        else field += c
      } else if (c === '"') quoted = true
      else if (c === ',') record.push(field), (field = '')
      else if (c === '\n') record.push(field), records.push(record), (record = []), (field = '')
      else field += c
    }
    expect(field).toBe('')
    expect(record).toEqual([])
    return records
  }

  /** A generated row as its file text: p_time dropped, timestamps as Postgres prints them. */
  function asText(kind: Kind, row: unknown[]): (string | number)[] {
    return NEXMARK_SCHEMAS[kind].flatMap((c, i) => (c.name === 'p_time' ? [] : [c.type === 'timestamp' ? formatTimestamp(row[i] as number) : (row[i] as string | number)]))
  }

  it('writes CSV with a header line that reads back as the generated rows', async () => {
    const result = await writeNexmarkFiles(path.join(dir, 'csv'), { ...options, format: 'csv' })
    expect(result).toEqual({ person: 100, auction: 300, bid: 4600, files: ['person', 'auction', 'bid'].map((k) => path.join(dir, 'csv', `${k}.csv`)) })
    for (const kind of ['person', 'auction', 'bid'] as const) {
      const [header, ...records] = parseCsv(readFileSync(path.join(dir, 'csv', `${kind}.csv`), 'utf8'))
      expect(header).toEqual(NEXMARK_SCHEMAS[kind].map((c) => c.name).filter((name) => name !== 'p_time'))
      expect(records).toEqual(expected[kind].map((row) => asText(kind, row).map(String)))
    }
    expect(readFileSync(path.join(dir, 'csv', 'bid.csv'), 'utf8')).toMatch(/^auction,.*\n1\d{3},1\d{3},\d+,/)
  })

  it('writes JSONL objects keyed by column name that read back as the generated rows', async () => {
    const result = await writeNexmarkFiles(path.join(dir, 'jsonl'), { ...options, format: 'jsonl' })
    expect([result.person, result.auction, result.bid]).toEqual([100, 300, 4600])
    for (const kind of ['person', 'auction', 'bid'] as const) {
      const lines = readFileSync(path.join(dir, 'jsonl', `${kind}.jsonl`), 'utf8').split('\n')
      expect(lines.pop()).toBe('')
      const names = NEXMARK_SCHEMAS[kind].map((c) => c.name).filter((name) => name !== 'p_time')
      const objects = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(objects).toEqual(expected[kind].map((row) => Object.fromEntries(asText(kind, row).map((v, i) => [names[i]!, v]))))
      expect(Object.keys(objects[0]!)).toEqual(names)
    }
    const firstBid = JSON.parse(readFileSync(path.join(dir, 'jsonl', 'bid.jsonl'), 'utf8').split('\n')[0]!) as { date_time: string }
    expect(firstBid.date_time).toBe('2015-07-15 00:00:00.001333') // event 4 at rate 3000: 4·10^6/3000 µs
  })

  it('refuses an unbounded run', async () => {
    await expect(writeNexmarkFiles(path.join(dir, 'never'), { format: 'csv' })).rejects.toThrow(RangeError)
  })
})
