// A one-line progress bar for long work in the REPL (`\i` of a large file): drawn on a terminal
// only, after the work has run for a moment (short work never shows it), redrawn at most every
// `intervalMs`; results and errors printed meanwhile scroll above it (print()).
//
//   \i big.sql [##########..........]  5000/10000 statements  50%  ETA 3s

export interface ProgressOptions {
  /** Draw at all (a terminal); when false every method is a no-op. */
  readonly enabled: boolean
  /** What is counted, e.g. 'statements'. */
  readonly unit: string
  /** Text before the bar. */
  readonly label?: string
  /** Terminal width, to keep the bar on one line. */
  readonly columns?: number
  /** Show nothing before the work has run this long (default 300 ms). */
  readonly delayMs?: number
  /** Minimum time between redraws (default 100 ms). */
  readonly intervalMs?: number
  /** Milliseconds clock (tests inject one). */
  readonly now?: () => number
}

export class ProgressBar {
  readonly #write: (s: string) => void
  readonly #total: number
  readonly #opts: ProgressOptions
  readonly #now: () => number
  readonly #start: number
  #lastDraw = -Infinity
  #visible = false
  #text = ''
  #done = 0

  constructor(write: (s: string) => void, total: number, opts: ProgressOptions) {
    this.#write = write
    this.#total = Math.max(0, total)
    this.#opts = opts
    this.#now = opts.now ?? (() => performance.now())
    this.#start = this.#now()
  }

  /** True while the bar is on screen. */
  get visible(): boolean {
    return this.#visible
  }

  /** Records progress; draws when due. */
  update(done: number): void {
    this.#done = Math.min(done, this.#total)
    if (!this.#opts.enabled) return
    const t = this.#now()
    if (t - this.#start < (this.#opts.delayMs ?? 300)) return
    if (t - this.#lastDraw < (this.#opts.intervalMs ?? 100)) return
    this.#lastDraw = t
    this.#text = this.render(t)
    this.#write(`\r\x1b[K${this.#text}`)
    this.#visible = true
  }

  /** Prints `s` (a whole line or more) above the bar, with `write` (default: the bar's own
   *  writer): the bar is erased, `s` written, and the bar drawn again below it. */
  print(s: string, write: (s: string) => void = this.#write): void {
    if (!this.#visible) write(s)
    else if (write === this.#write) this.#write(`\r\x1b[K${s}${this.#text}`)
    else {
      this.#write('\r\x1b[K')
      write(s)
      this.#write(this.#text)
    }
  }

  /** Erases the bar for good (the work is done). */
  clear(): void {
    if (!this.#visible) return
    this.#write('\r\x1b[K')
    this.#visible = false
  }

  /** The bar's text at time `t`. */
  render(t: number = this.#now()): string {
    const total = this.#total
    const done = this.#done
    const fraction = total === 0 ? 1 : done / total
    const pct = `${Math.floor(fraction * 100)}%`.padStart(4)
    const elapsed = t - this.#start
    const eta = done > 0 && done < total ? `  ETA ${formatDuration((elapsed / done) * (total - done))}` : ''
    const counts = `${String(done).padStart(String(total).length)}/${total} ${this.#opts.unit}`
    const label = this.#opts.label ? `${this.#opts.label} ` : ''
    const columns = this.#opts.columns ?? 80
    const rest = `  ${counts}  ${pct}${eta}`
    const width = Math.max(10, Math.min(40, columns - 1 - label.length - rest.length - 2))
    const filled = Math.round(fraction * width)
    const line = `${label}[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]${rest}`
    return line.length > columns - 1 ? line.slice(0, Math.max(0, columns - 1)) : line
  }
}

/** 3s, 1m05s, 2h03m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`
}
