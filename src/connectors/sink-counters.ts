// What a sink has written, for sinkStatus(): rows inserted and retracted, and ticks.

import type { SinkStats } from './sources.js'

/** What a sink has written (its `stats`): rows inserted and retracted, ticks. */
export class SinkCounters {
  #inserted = 0
  #retracted = 0
  #ticks = 0

  /** Counts one written tick's weights. */
  count(weights: readonly number[]): void {
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i]!
      if (w > 0) this.#inserted += w
      else this.#retracted -= w
    }
    this.#ticks++
  }

  get stats(): SinkStats {
    return { inserted: this.#inserted, retracted: this.#retracted, ticks: this.#ticks }
  }
}
