// Throttles password guessing. Each client address that failed authentication has a delay,
// doubling with every failure (from `baseMs`, at most `maxMs`), and its password checks are
// spaced by it: an attempt waits for the address's next free slot before its password is
// checked, so opening many connections at once does not let a client guess faster. A
// successful login clears the address's record; records of addresses idle for longer than
// the longest delay are dropped (the map stays small under a flood of addresses).

interface AddressRecord {
  failures: number
  /** Epoch ms before which the next check of this address does not run. */
  nextSlot: number
  lastSeen: number
}

export class AuthThrottle {
  readonly #records = new Map<string, AddressRecord>()

  constructor(
    readonly baseMs: number,
    readonly maxMs: number,
  ) {}

  /** The delay after `failures` failures (0 for none). */
  delayFor(failures: number): number {
    if (failures <= 0 || this.baseMs <= 0) return 0
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(failures - 1, 30))
  }

  /** How long an attempt from `address` must wait before its password is checked (ms);
   *  reserves the slot. */
  reserve(address: string, now = Date.now()): number {
    this.#sweep(now)
    const r = this.#records.get(address)
    if (r === undefined || r.failures === 0) return 0
    const slot = Math.max(now, r.nextSlot)
    r.nextSlot = slot + this.delayFor(r.failures)
    r.lastSeen = now
    return slot - now
  }

  /** Records the outcome of a password check from `address`. */
  record(address: string, ok: boolean, now = Date.now()): void {
    if (ok) {
      this.#records.delete(address)
      return
    }
    const r = this.#records.get(address) ?? { failures: 0, nextSlot: now, lastSeen: now }
    r.failures++
    r.nextSlot = Math.max(r.nextSlot, now + this.delayFor(r.failures))
    r.lastSeen = now
    this.#records.set(address, r)
  }

  /** Failures recorded for `address`. */
  failures(address: string): number {
    return this.#records.get(address)?.failures ?? 0
  }

  #sweep(now: number): void {
    if (this.#records.size < 1024) return
    for (const [a, r] of this.#records) if (now - r.lastSeen > 2 * this.maxMs && now > r.nextSlot) this.#records.delete(a)
  }
}
