// The Nexmark event generator: persons, auctions and bids as the engine's row arrays.
//
// Why it exists: Nexmark is the benchmark we measure the engine with, so the generator must be
// (1) faithful to the reference semantics — Beam's generator, with the Flink suite's bid
// channel/url columns — so that our numbers compare with
// published ones, (2) deterministic — every event is a pure function of (options, event
// number), seeded per event, so runs are reproducible and any range of events can be
// regenerated alone — and (3) much faster than the engine it feeds (≥ 3 M events/s on a
// core), so that a benchmark measures the engine and not the generator. Hence the shapes
// below: a small 32-bit PRNG reseeded per event, tables built once (channel names and urls,
// card digit groups, names), bid extras sliced out of one long pre-generated string, and one
// fixed-length array literal per row kind.
//
// Deliberate differences from Beam (same distributions, different bytes): the PRNG is
// xoroshiro64** instead of java.util.Random; random strings draw one 32-bit number per
// character (space with probability ≈ 1/13, else a lower-case letter); extras are substrings
// of a pre-generated string (as the Flink suite does); timestamps are µs, not ms.
//
// A leaf module: it imports nothing from the rest of the repository.

import { Buffer } from 'node:buffer'

/** Options of a generator run. Every field has a default; see `NexmarkGenerator.options`. */
export interface NexmarkOptions {
  /** How many events the run generates in total; default Infinity (unbounded). */
  events?: number
  /** Events per second of event time; default 10_000 (100 µs between events). */
  rate?: number
  /** The seed every event's randomness derives from; a safe integer, default 0. */
  seed?: number
  /** Events are shuffled within groups of this many positions (Beam's out-of-order option); default 1 (in order). */
  outOfOrderGroupSize?: number
  /** Event time of event number 0, in epoch µs; default 2015-07-15T00:00:00Z. */
  baseTime?: number
}

/** One column of a generated row: its SQL name and type. */
type NexmarkColumnType = 'bigint' | 'text' | 'timestamp'

/** The column names and types of the three row kinds, in row order. `bid.p_time` is the
 *  processing time passed to `fill()`, not generated. */
export const NEXMARK_SCHEMAS: {
  readonly person: readonly { name: string; type: NexmarkColumnType }[]
  readonly auction: readonly { name: string; type: NexmarkColumnType }[]
  readonly bid: readonly { name: string; type: NexmarkColumnType }[]
} = {
  person: [
    { name: 'id', type: 'bigint' },
    { name: 'name', type: 'text' },
    { name: 'email_address', type: 'text' },
    { name: 'credit_card', type: 'text' },
    { name: 'city', type: 'text' },
    { name: 'state', type: 'text' },
    { name: 'date_time', type: 'timestamp' },
    { name: 'extra', type: 'text' },
  ],
  auction: [
    { name: 'id', type: 'bigint' },
    { name: 'item_name', type: 'text' },
    { name: 'description', type: 'text' },
    { name: 'initial_bid', type: 'bigint' },
    { name: 'reserve', type: 'bigint' },
    { name: 'date_time', type: 'timestamp' },
    { name: 'expires', type: 'timestamp' },
    { name: 'seller', type: 'bigint' },
    { name: 'category', type: 'bigint' },
    { name: 'extra', type: 'text' },
  ],
  bid: [
    { name: 'auction', type: 'bigint' },
    { name: 'bidder', type: 'bigint' },
    { name: 'price', type: 'bigint' },
    { name: 'channel', type: 'text' },
    { name: 'url', type: 'text' },
    { name: 'date_time', type: 'timestamp' },
    { name: 'extra', type: 'text' },
    { name: 'p_time', type: 'timestamp' },
  ],
}

// ---- Constants of the Nexmark model (Beam's NexmarkConfiguration and generator) ----

/** Of every 50 events, 1 is a person, 3 are auctions and 46 are bids: r = e mod 50. */
const EVENTS_PER_EPOCH = 50
/** r ≥ FIRST_BID_OFFSET is a bid; 1 ≤ r < FIRST_BID_OFFSET an auction; r = 0 a person. */
const FIRST_BID_OFFSET = 4
const AUCTIONS_PER_EPOCH = 3
const FIRST_PERSON_ID = 1000
const FIRST_AUCTION_ID = 1000
const FIRST_CATEGORY_ID = 10
const NUM_CATEGORIES = 5
/** Random persons are drawn among the last 1000 persons … */
const NUM_ACTIVE_PEOPLE = 1000
/** … random auctions among the last 100 auctions … */
const NUM_IN_FLIGHT_AUCTIONS = 100
/** … both up to 10 ids ahead of the last one created (references to the future, on purpose). */
const ID_LEAD = 10
/** Hot sellers/bidders/auctions are the first (bidders: second) id of the current block of 100. */
const HOT_BLOCK = 100
/** "1 in k is not hot": nextInt(k) > 0 ⇒ hot. */
const HOT_SELLER_RATIO = 4
const HOT_AUCTION_RATIO = 2
const HOT_BIDDER_RATIO = 4
const HOT_CHANNEL_RATIO = 2
/** Events needed to create 100 more auctions (100·50/3): the mean auction length is the event time they span. */
const EVENTS_PER_100_AUCTIONS = 1666
/** Expires is at least 1 ms after date_time (Beam's `+ 1` in ms). */
const MIN_AUCTION_LENGTH_MICROS = 1000
/** Average record sizes the extra column pads to, and the sizes counted before it (Beam's heuristics). */
const PERSON_AVERAGE_SIZE = 200
const AUCTION_AVERAGE_SIZE = 500
const BID_AVERAGE_SIZE = 100
const BID_SIZE_BEFORE_EXTRA = 32
const AUCTION_FIXED_SIZE = 48 // 8 (id) + 40 (the five other numeric columns)
const PERSON_FIXED_SIZE = 8
/** Max lengths of random strings (the generated length is 3..max−1 before trimming). */
const EMAIL_USER_MAX = 7
const EMAIL_DOMAIN_MAX = 5
const ITEM_NAME_MAX = 20
const DESCRIPTION_MAX = 100
const URL_SEGMENT_MAX = 5
/** Out-of-order shuffle multiplier (Beam): position n holds event floor(n/g)·g + (n·953 mod g). */
const OUT_OF_ORDER_MULTIPLIER = 953
/** 2015-07-15T00:00:00Z in epoch µs (Beam's base time). */
const DEFAULT_BASE_TIME = 1_436_918_400_000_000
const NUM_CHANNELS = 10_000
/** Length of the pre-generated string extras are sliced from (1 MiB). */
const EXTRA_POOL_LENGTH = 1 << 20

const FIRST_NAMES = ['Peter', 'Paul', 'Luke', 'John', 'Saul', 'Vicky', 'Kate', 'Julie', 'Sarah', 'Deiter', 'Walter']
const LAST_NAMES = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris']
const US_STATES = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY']
const US_CITIES = ['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne']
const HOT_CHANNELS = ['Google', 'Facebook', 'Baidu', 'Apple']

/** "first last" for first-name index i and last-name index j at i·9 + j. */
const FULL_NAMES: readonly string[] = FIRST_NAMES.flatMap((first) => LAST_NAMES.map((last) => `${first} ${last}`))
/** '0000' … '9999': the credit-card digit groups. */
const CARD_GROUPS: readonly string[] = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0'))
/** 'channel-0' … 'channel-9999'. */
const CHANNEL_NAMES: readonly string[] = Array.from({ length: NUM_CHANNELS }, (_, i) => `channel-${i}`)
/** 'a' … 'z' as one-character strings. */
const LETTERS: readonly string[] = Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i))

// ---- Random numbers ----

/** 10^(6u) for a 32-bit u = x/2^32, as the product of three table entries (bits 31..21, 20..10
 *  and 9..0 of x): three loads from 40 KB of tables are about three times faster than Math.exp,
 *  and the rounded prices come out the same. */
const LN_1E6 = Math.log(1e6)
const PRICE_FACTOR_HIGH = Float64Array.from({ length: 2048 }, (_, i) => Math.exp(i * 2 ** -11 * LN_1E6))
const PRICE_FACTOR_MIDDLE = Float64Array.from({ length: 2048 }, (_, i) => Math.exp(i * 2 ** -22 * LN_1E6))
const PRICE_FACTOR_LOW = Float64Array.from({ length: 1024 }, (_, i) => Math.exp(i * 2 ** -32 * LN_1E6))

const TWO_POW_32 = 4294967296
const TWO_POW_MINUS_32 = 1 / TWO_POW_32
const TWO_POW_MINUS_53 = 2 ** -53

/** murmur3's 32-bit finalizer: a bijective avalanche of a 32-bit word. */
function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

function rotateLeft32(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k))
}

/** Bit-reverses a 32-bit word (bit 0 ↔ bit 31); the result as a signed int32, like Java's Integer.reverse. */
function reverseBits32(x: number): number {
  x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1)
  x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2)
  x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4)
  x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8)
  return (x >>> 16) | (x << 16)
}

/** xoroshiro64** (Blackman & Vigna): 64 bits of state in two int32 fields, 32-bit outputs.
 *  Small and inlinable; reseeded for every event. */
class Xoroshiro64 {
  s0 = 1
  s1 = 0

  /** Sets the state; the all-zero state (a fixed point) is replaced by a non-zero one. */
  reseed(word0: number, word1: number): void {
    if ((word0 | word1) === 0) word0 = 0x9e3779b9
    this.s0 = word0 | 0
    this.s1 = word1 | 0
  }

  /** A uniform integer in [0, 2^32). */
  nextU32(): number {
    const s0 = this.s0
    const s1 = this.s1 ^ s0
    const result = Math.imul(rotateLeft32(Math.imul(s0, 0x9e3779bb), 5), 5)
    this.s0 = rotateLeft32(s0, 26) ^ s1 ^ (s1 << 9)
    this.s1 = rotateLeft32(s1, 13)
    return result >>> 0
  }

  /** A uniform integer in [0, bound), bound ≤ 2^21 (multiply-shift; the bias is below 2^-11). */
  nextInt(bound: number): number {
    return Math.floor(this.nextU32() * bound * TWO_POW_MINUS_32)
  }

  /** A uniform integer in [0, bound) for any bound ≤ 2^53 (53 random bits). */
  nextLong(bound: number): number {
    const high = this.nextU32()
    const low = this.nextU32() >>> 11
    const value = Math.floor((high * 2097152 + low) * TWO_POW_MINUS_53 * bound)
    return value < bound ? value : bound - 1
  }

  /** A price in cents, log-uniform in [100, 100_000_000]: round(10^(6u)·100), u uniform in [0, 1). */
  nextPrice(): number {
    const x = this.nextU32()
    return Math.round(PRICE_FACTOR_HIGH[x >>> 21]! * PRICE_FACTOR_MIDDLE[(x >>> 10) & 2047]! * PRICE_FACTOR_LOW[x & 1023]! * 100)
  }

  /** Beam's random string of max length m: 3..m−1 characters, each a space with probability
   *  ≈ 1/13 (replaced by `space`) else a lower-case letter, then trimmed of spaces. One 32-bit
   *  draw per character: low 16 bits decide the space, high 16 bits the letter. */
  nextString(maxLength: number, space = ' '): string {
    const length = 3 + this.nextInt(maxLength - 3)
    let text = ''
    for (let i = 0; i < length; i++) {
      const u = this.nextU32()
      text += (u & 0xffff) * 13 < 0x10000 ? space : LETTERS[((u >>> 16) * 26) >>> 16]!
    }
    return space === ' ' ? text.trim() : text
  }
}

/** A sequential PRNG for the per-generator tables, seeded from (seed, salt). */
function tableRandom(seedLow: number, seedHigh: number, salt: number): Xoroshiro64 {
  const random = new Xoroshiro64()
  random.reseed(mix32(seedLow ^ mix32(salt)), mix32(seedHigh + Math.imul(salt, 0x9e3779b9)))
  for (let i = 0; i < 8; i++) random.nextU32() // let the state settle
  return random
}

// ---- The generator ----

/** Generates the Nexmark event stream. Position n (0, 1, 2, …) holds event number
 *  floor(n/g)·g + (n·953 mod g) (g = outOfOrderGroupSize; = n when g = 1); event number e is a
 *  person when e mod 50 = 0, an auction when it is 1..3, a bid otherwise, and its timestamp is
 *  baseTime + floor(e·10^6 / rate) µs. Each event is a pure function of (options, e). */
export class NexmarkGenerator {
  /** The options with their defaults filled in. */
  readonly options: Required<NexmarkOptions>

  /** Per-event PRNG, reseeded from (seed, event number) before each event. */
  readonly #random = new Xoroshiro64()
  /** Feistel round keys derived from the seed: they turn an event number into a PRNG state. */
  readonly #roundKeys: readonly [number, number, number, number]
  /** µs between consecutive events when 10^6/rate is an integer (exact multiply), else 0. */
  readonly #microsPerEvent: number
  /** Random lower-case text that extras are sliced from (a slice of a flat string costs O(1)). */
  readonly #extraPool: string
  /** Channel i's url (`channel-i` is CHANNEL_NAMES[i]). */
  readonly #channelUrls: readonly string[]
  /** The url of each hot channel (HOT_CHANNELS[i]). */
  readonly #hotChannelUrls: readonly string[]

  #position = 0
  #maxEventTime = -Infinity

  constructor(options: NexmarkOptions = {}) {
    const { events = Infinity, rate = 10_000, seed = 0, outOfOrderGroupSize = 1, baseTime = DEFAULT_BASE_TIME } = options
    if (!(events === Infinity || (Number.isSafeInteger(events) && events >= 0))) throw new RangeError(`Nexmark events must be a non-negative integer or Infinity, not ${events}`)
    if (!(Number.isFinite(rate) && rate > 0)) throw new RangeError(`Nexmark rate must be a positive number of events per second, not ${rate}`)
    if (!Number.isSafeInteger(seed)) throw new RangeError(`Nexmark seed must be a safe integer, not ${seed}`)
    if (!(Number.isSafeInteger(outOfOrderGroupSize) && outOfOrderGroupSize >= 1)) throw new RangeError(`Nexmark outOfOrderGroupSize must be a positive integer, not ${outOfOrderGroupSize}`)
    // n ↦ n·953 mod g permutes a group only when 953 (a prime) does not divide g; otherwise
    // every position of a group would repeat one event.
    if (outOfOrderGroupSize % OUT_OF_ORDER_MULTIPLIER === 0) throw new RangeError(`Nexmark outOfOrderGroupSize must not be a multiple of ${OUT_OF_ORDER_MULTIPLIER}, not ${outOfOrderGroupSize}`)
    if (!Number.isSafeInteger(baseTime)) throw new RangeError(`Nexmark baseTime must be an integer number of epoch µs, not ${baseTime}`)
    this.options = { events, rate, seed, outOfOrderGroupSize, baseTime }

    const step = 1e6 / rate
    this.#microsPerEvent = Number.isInteger(step) && step * rate === 1e6 ? step : 0

    const seedLow = seed >>> 0
    const seedHigh = Math.floor(seed / TWO_POW_32) >>> 0
    const key0 = mix32(seedLow ^ 0x2545f491)
    const key1 = mix32(seedHigh ^ 0x6a09e667 ^ key0)
    this.#roundKeys = [key0, key1, mix32(key1 + 0x3c6ef372), mix32(key0 + 0x510e527f)]

    // The pool extras are sliced from: one flat one-byte string of random lower-case letters.
    const poolRandom = tableRandom(seedLow, seedHigh, 1)
    const poolBytes = Buffer.allocUnsafe(EXTRA_POOL_LENGTH)
    for (let i = 0; i < EXTRA_POOL_LENGTH; i += 2) {
      const u = poolRandom.nextU32() // two letters per draw, from its low and high 16 bits
      poolBytes[i] = 97 + (((u & 0xffff) * 26) >>> 16)
      poolBytes[i + 1] = 97 + (((u >>> 16) * 26) >>> 16)
    }
    this.#extraPool = poolBytes.toString('latin1')

    // Channel urls (Flink suite), from the seed rather than an unseeded RNG.
    const urlRandom = tableRandom(seedLow, seedHigh, 2)
    const baseUrl = (): string =>
      `https://www.nexmark.com/${urlRandom.nextString(URL_SEGMENT_MAX, '_')}/${urlRandom.nextString(URL_SEGMENT_MAX, '_')}/${urlRandom.nextString(URL_SEGMENT_MAX, '_')}/item.htm?query=1`
    this.#hotChannelUrls = HOT_CHANNELS.map(() => baseUrl())
    const channelUrls: string[] = []
    for (let i = 0; i < NUM_CHANNELS; i++) {
      const url = baseUrl()
      channelUrls.push(urlRandom.nextInt(10) > 0 ? `${url}&channel_id=${Math.abs(reverseBits32(i))}` : url)
    }
    this.#channelUrls = channelUrls
  }

  /** Events emitted so far (the next position). */
  get position(): number {
    return this.#position
  }

  /** True once a bounded run has emitted all its events. */
  get done(): boolean {
    return this.#position >= this.options.events
  }

  /** Largest event time (µs) among positions < position (the high-water mark of emitted
   *  event time); -Infinity before the first event. */
  get maxEventTime(): number {
    return this.#maxEventTime
  }

  /** Generates up to `count` events from the current position, pushing each row onto
   *  out.person/out.auction/out.bid; returns how many were generated (fewer at the end of a
   *  bounded run). Bids get `pTime` (processing time, or null) as their p_time. */
  fill(count: number, out: { person: (readonly unknown[])[]; auction: (readonly unknown[])[]; bid: (readonly unknown[])[] }, pTime: number | null = null): number {
    if (!(Number.isSafeInteger(count) && count >= 0)) throw new RangeError(`fill count must be a non-negative integer, not ${count}`)
    const start = this.#position
    const end = Math.min(start + count, this.options.events)
    if (end <= start) return 0
    const { person, auction, bid } = out
    const groupSize = this.options.outOfOrderGroupSize
    let maxEventTime = this.#maxEventTime
    for (let n = start; n < end; n++) {
      const eventNumber = groupSize === 1 ? n : this.#eventNumberAt(n)
      const epoch = Math.floor(eventNumber / EVENTS_PER_EPOCH)
      const offset = eventNumber - epoch * EVENTS_PER_EPOCH
      const dateTime = this.#timestampOf(eventNumber)
      if (offset >= FIRST_BID_OFFSET) bid.push(this.#bid(eventNumber, epoch, dateTime, pTime))
      else if (offset === 0) person.push(this.#person(eventNumber, epoch, dateTime))
      else auction.push(this.#auction(eventNumber, epoch, offset, dateTime))
      if (dateTime > maxEventTime) maxEventTime = dateTime
    }
    this.#position = end
    this.#maxEventTime = maxEventTime
    return end - start
  }

  /** Continues from position n, whose events before it had `maxEventTime` as their largest
   *  event time (a source resuming from its logged offset). */
  seek(n: number, maxEventTime: number): void {
    if (!(Number.isSafeInteger(n) && n >= 0 && n <= this.options.events)) throw new RangeError(`Nexmark position must be an integer in [0, ${this.options.events}], not ${n}`)
    this.#position = n
    this.#maxEventTime = maxEventTime
  }

  /** The event at position n alone (for tests and random access); does not move the position. */
  eventAt(n: number, pTime: number | null = null): { kind: 'person' | 'auction' | 'bid'; row: unknown[] } {
    if (!(Number.isSafeInteger(n) && n >= 0 && n < this.options.events)) throw new RangeError(`Nexmark position must be an integer in [0, ${this.options.events}), not ${n}`)
    const eventNumber = this.#eventNumberAt(n)
    const epoch = Math.floor(eventNumber / EVENTS_PER_EPOCH)
    const offset = eventNumber - epoch * EVENTS_PER_EPOCH
    const dateTime = this.#timestampOf(eventNumber)
    if (offset >= FIRST_BID_OFFSET) return { kind: 'bid', row: this.#bid(eventNumber, epoch, dateTime, pTime) }
    if (offset === 0) return { kind: 'person', row: this.#person(eventNumber, epoch, dateTime) }
    return { kind: 'auction', row: this.#auction(eventNumber, epoch, offset, dateTime) }
  }

  /** The event number emitted at position n (Beam's out-of-order shuffle within groups). */
  #eventNumberAt(n: number): number {
    const g = this.options.outOfOrderGroupSize
    return g === 1 ? n : Math.floor(n / g) * g + ((n * OUT_OF_ORDER_MULTIPLIER) % g)
  }

  /** Event time of event number e, µs: baseTime + floor(e·10^6 / rate) (exact while e·10^6 < 2^53). */
  #timestampOf(eventNumber: number): number {
    const step = this.#microsPerEvent
    return this.options.baseTime + (step !== 0 ? eventNumber * step : Math.floor((eventNumber * 1e6) / this.options.rate))
  }

  /** Reseeds the PRNG for event number e: a 4-round Feistel network keyed by the seed maps
   *  (e's low word, e's high word) to the 64-bit state, so distinct events get distinct states. */
  #seedEvent(eventNumber: number): Xoroshiro64 {
    const keys = this.#roundKeys
    let left = eventNumber | 0
    let right = (eventNumber / TWO_POW_32) | 0
    left ^= mix32(right ^ keys[0])
    right ^= mix32(left ^ keys[1])
    left ^= mix32(right ^ keys[2])
    right ^= mix32(left ^ keys[3])
    const random = this.#random
    random.reseed(left, right)
    return random
  }

  /** A random active person, base 0: among the last 1000 persons or up to 10 ahead of the last. */
  #randomPerson(random: Xoroshiro64, lastPerson: number): number {
    const created = lastPerson + 1
    const active = created < NUM_ACTIVE_PEOPLE ? created : NUM_ACTIVE_PEOPLE
    return created - active + random.nextInt(active + ID_LEAD)
  }

  /** `extra`: padding to about averageSize − currentSize characters (±20 %), sliced from the pool. */
  #extra(random: Xoroshiro64, currentSize: number, averageSize: number): string {
    if (currentSize >= averageSize) return ''
    const deficit = averageSize - currentSize
    const jitter = Math.round(deficit * 0.2)
    const length = deficit - jitter + (jitter === 0 ? 0 : random.nextInt(2 * jitter))
    const start = random.nextInt(EXTRA_POOL_LENGTH - length + 1)
    return this.#extraPool.substring(start, start + length)
  }

  #person(eventNumber: number, epoch: number, dateTime: number): unknown[] {
    const random = this.#seedEvent(eventNumber)
    const firstName = random.nextInt(FIRST_NAMES.length)
    const name = FULL_NAMES[firstName * LAST_NAMES.length + random.nextInt(LAST_NAMES.length)]!
    const emailUser = random.nextString(EMAIL_USER_MAX)
    const email = `${emailUser}@${random.nextString(EMAIL_DOMAIN_MAX)}.com`
    const group1 = CARD_GROUPS[random.nextInt(10_000)]!
    const group2 = CARD_GROUPS[random.nextInt(10_000)]!
    const group3 = CARD_GROUPS[random.nextInt(10_000)]!
    const creditCard = `${group1} ${group2} ${group3} ${CARD_GROUPS[random.nextInt(10_000)]!}`
    const city = US_CITIES[random.nextInt(US_CITIES.length)]!
    const state = US_STATES[random.nextInt(US_STATES.length)]!
    const currentSize = PERSON_FIXED_SIZE + name.length + email.length + creditCard.length + city.length + state.length
    const extra = this.#extra(random, currentSize, PERSON_AVERAGE_SIZE)
    return [FIRST_PERSON_ID + epoch, name, email, creditCard, city, state, dateTime, extra]
  }

  #auction(eventNumber: number, epoch: number, offset: number, dateTime: number): unknown[] {
    const random = this.#seedEvent(eventNumber)
    const id = AUCTIONS_PER_EPOCH * epoch + offset - 1
    const seller = random.nextInt(HOT_SELLER_RATIO) > 0 ? Math.floor(epoch / HOT_BLOCK) * HOT_BLOCK : this.#randomPerson(random, epoch)
    const category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES)
    const initialBid = random.nextPrice()
    // Auction length: uniform in [1 ms, 1 ms + 2H), H = event time of the next 1666 events (≈ 100 auctions).
    const span = this.#timestampOf(eventNumber + EVENTS_PER_100_AUCTIONS) - dateTime
    const expires = dateTime + MIN_AUCTION_LENGTH_MICROS + random.nextLong(span > 0 ? 2 * span : 1)
    const itemName = random.nextString(ITEM_NAME_MAX)
    const description = random.nextString(DESCRIPTION_MAX)
    const reserve = initialBid + random.nextPrice()
    const extra = this.#extra(random, AUCTION_FIXED_SIZE + itemName.length + description.length, AUCTION_AVERAGE_SIZE)
    return [FIRST_AUCTION_ID + id, itemName, description, initialBid, reserve, dateTime, expires, FIRST_PERSON_ID + seller, category, extra]
  }

  #bid(eventNumber: number, epoch: number, dateTime: number, pTime: number | null): unknown[] {
    const random = this.#seedEvent(eventNumber)
    const lastAuction = AUCTIONS_PER_EPOCH * epoch + AUCTIONS_PER_EPOCH - 1
    let auction: number
    if (random.nextInt(HOT_AUCTION_RATIO) > 0) {
      auction = Math.floor(lastAuction / HOT_BLOCK) * HOT_BLOCK
    } else {
      const oldest = lastAuction > NUM_IN_FLIGHT_AUCTIONS ? lastAuction - NUM_IN_FLIGHT_AUCTIONS : 0
      auction = oldest + random.nextInt(lastAuction - oldest + 1 + ID_LEAD)
    }
    const bidder = random.nextInt(HOT_BIDDER_RATIO) > 0 ? Math.floor(epoch / HOT_BLOCK) * HOT_BLOCK + 1 : this.#randomPerson(random, epoch)
    const price = random.nextPrice()
    let channel: string
    let url: string
    if (random.nextInt(HOT_CHANNEL_RATIO) > 0) {
      const hot = random.nextInt(HOT_CHANNELS.length)
      channel = HOT_CHANNELS[hot]!
      url = this.#hotChannelUrls[hot]!
    } else {
      const index = random.nextInt(NUM_CHANNELS)
      channel = CHANNEL_NAMES[index]!
      url = this.#channelUrls[index]!
    }
    const extra = this.#extra(random, BID_SIZE_BEFORE_EXTRA, BID_AVERAGE_SIZE)
    return [FIRST_AUCTION_ID + auction, FIRST_PERSON_ID + bidder, price, channel, url, dateTime, extra, pTime]
  }
}
