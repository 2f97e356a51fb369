// A bounded cache of a pure text function's results, one per call site of a compiled
// expression. Streams repeat their text values: a channel, a URL, a country, a status comes
// back row after row, so `split_part(url, '/', 4)` or `substring(url FROM '…')` computes the
// same answer again and again. A JS Map finds a string by its hash, which V8 computes once
// and keeps in the string, so a hit costs a lookup and allocates nothing (the cached string
// is returned), where a miss costs what the call did anyway plus an insertion.
//
// It pays only when values repeat, so the cache watches itself: it is cleared when it holds
// MAX_ENTRIES keys or MAX_CHARS characters of keys and results (a few MB at most per call
// site, whatever the texts' sizes), and when fewer than half of the calls since the last
// clearing were hits, it steps aside for a while before trying again: BYPASS_CALLS calls, twice
// as many after each further generation that did not pay (up to MAX_BYPASS_CALLS), so input
// whose values never repeat (a per-event description) soon costs almost nothing, and never
// unbounded memory.
//
// Only deterministic functions of their one varying text argument are cached (the compiler
// checks this: the other arguments are constants), and only primitive results, which no
// reader can mutate. A call that throws caches nothing and throws again on the next row.

const MAX_ENTRIES = 16_384
const MAX_CHARS = 1 << 21
const BYPASS_CALLS = 1 << 18
const MAX_BYPASS_CALLS = 1 << 24

export class TextMemo {
  readonly #compute: (s: string) => unknown
  readonly #cache = new Map<string, unknown>()
  #hits = 0
  #chars = 0
  #bypass = 0
  /** How long the next step aside lasts. */
  #nextBypass = BYPASS_CALLS

  constructor(compute: (s: string) => unknown) {
    this.#compute = compute
  }

  get(s: string): unknown {
    if (this.#bypass > 0) {
      this.#bypass--
      return this.#compute(s)
    }
    const cached = this.#cache.get(s)
    if (cached !== undefined) {
      this.#hits++
      return cached
    }
    const value = this.#compute(s)
    if (this.#cache.size >= MAX_ENTRIES || this.#chars >= MAX_CHARS) {
      // the end of a generation: keep caching only if it paid
      if (this.#hits < this.#cache.size) {
        this.#bypass = this.#nextBypass
        this.#nextBypass = Math.min(2 * this.#nextBypass, MAX_BYPASS_CALLS)
      } else this.#nextBypass = BYPASS_CALLS
      this.#cache.clear()
      this.#hits = 0
      this.#chars = 0
    }
    this.#cache.set(s, value)
    // a text result counts its own length; any other result (a split's fields) the key's
    this.#chars += s.length + (typeof value === 'string' ? value.length : s.length)
    return value
  }

  /** Entries held now (for tests). */
  get size(): number {
    return this.#cache.size
  }

  /** True while the cache steps aside (for tests). */
  get bypassing(): boolean {
    return this.#bypass > 0
  }
}
