// `CREATE SOURCE name WITH (connector = 'nexmark', …)`: the Nexmark generator as a source.
// It creates the streams person, auction and bid (event time `date_time`, watermark 4 s
// behind it, as in the Flink suite) and feeds them one micro-batch per tick. bid also has
// `p_time`, the processing time of the tick that ingested it (Nexmark q12).

import type { Row } from '../../../ivm/index.js'
import { RivuletError, SqlState } from '../../../grammar/index.js'
import type { ConnectorOptions, SourceConnector, SourceRelation } from '../sources.js'
import { NexmarkGenerator } from './generator.js'

export const NEXMARK_SOURCE_OPTIONS = ['connector', 'events', 'rate', 'seed', 'out_of_order', 'batch', 'pace', 'retention', 'history'] as const

/** The streams' definitions (column order is the generator's row layout). They keep their
 *  history as streams do, `retention` of it, or none (`history = false`). */
export function nexmarkStreamsDdl(retention: string | undefined, history: boolean): SourceRelation[] {
  const watermark = "WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND"
  const withRetention = !history ? ' WITH (history = false)' : retention === undefined ? '' : ` WITH (retention = '${retention.replace(/'/g, "''")}')`
  return [
    {
      name: 'person',
      ddl: `CREATE STREAM person (id BIGINT, name TEXT, email_address TEXT, credit_card TEXT, city TEXT, state TEXT, date_time TIMESTAMP, extra TEXT, ${watermark})${withRetention}`,
    },
    {
      name: 'auction',
      ddl: `CREATE STREAM auction (id BIGINT, item_name TEXT, description TEXT, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, category BIGINT, extra TEXT, ${watermark})${withRetention}`,
    },
    {
      name: 'bid',
      ddl: `CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel TEXT, url TEXT, date_time TIMESTAMP, extra TEXT, p_time TIMESTAMP, ${watermark})${withRetention}`,
    },
  ]
}

export class NexmarkSource implements SourceConnector {
  readonly relations: readonly SourceRelation[]
  readonly pace: number
  readonly batchSize: number
  readonly generator: NexmarkGenerator

  constructor(options: ConnectorOptions) {
    const events = options.number('events', Infinity, { min: 0, integer: true, what: 'how many events to generate; unbounded when absent' })
    const rate = options.number('rate', 10_000, { min: 1e-3, max: 1e9, what: 'events per second of event time' })
    const seed = options.number('seed', 0, { min: 0, max: 2 ** 32 - 1, integer: true })
    const outOfOrderGroupSize = options.number('out_of_order', 1, { min: 1, max: 1e6, integer: true, what: 'events are shuffled within groups of this size' })
    this.batchSize = options.number('batch', 1000, { min: 1, max: 1e7, integer: true, what: 'events per tick' })
    this.pace = options.number('pace', Infinity, { min: 1e-3, what: 'at most this many events per second of wall-clock time' })
    const retention = options.text('retention', undefined)
    const history = options.boolean('history', true)
    if (!history && retention !== undefined) throw new RivuletError(SqlState.invalidParameterValue, 'a source with history = false keeps nothing to retain: give retention or history = false, not both')
    options.finish(NEXMARK_SOURCE_OPTIONS)
    this.relations = nexmarkStreamsDdl(retention, history)
    this.generator = new NexmarkGenerator({ events, rate, seed, outOfOrderGroupSize })
  }

  get emitted(): number {
    return this.generator.position
  }

  get total(): number {
    return this.generator.options.events
  }

  get done(): boolean {
    return this.generator.done
  }

  /** The generator's position (events emitted) and its event-time high-water mark. */
  get offset(): { position: number; maxEventTime: number } {
    return { position: this.generator.position, maxEventTime: this.generator.maxEventTime }
  }

  resume(offset: unknown): void {
    const o = offset as { position: number; maxEventTime: number }
    this.generator.seek(o.position, o.maxEventTime)
  }

  next(max: number, processingTime: number, out: Row[][]): number {
    return this.generator.fill(max, { person: out[0]!, auction: out[1]!, bid: out[2]! }, processingTime)
  }
}
