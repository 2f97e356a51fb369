// SUBSCRIBE over the wire, as Materialize serves it: streamed as COPY data
// (`COPY (SUBSCRIBE …) TO STDOUT`, or a bare SUBSCRIBE), or pulled through a cursor
// (`DECLARE c CURSOR FOR SUBSCRIBE …` + `FETCH`). Rows are `tick, diff, columns…`.
//
// The engine calls a subscriber synchronously, inside whichever session's statement commits
// the tick. The callbacks here only append to a per-subscription buffer; the socket is written
// later (setImmediate), and only while the socket drains. The buffer is capped in bytes: a
// client that does not read (or FETCH) fast enough has its subscription ended with an error
// (54000) instead of growing the server's memory without bound.

import { escapeCopyText } from '../sql-runtime/copy-format.js'
import { RivuletError } from '../../grammar/index.js'
import type { ChangeBatch, ColumnInfo, ResultValue } from '../types.js'
import type { EngineGate } from './gate.js'
import { copyData } from './protocol.js'
import type { Field } from './pg-types.js'
import { textValue } from './pg-types.js'

/** The columns a subscription adds in front of the relation's (Materialize calls them
 *  mz_timestamp and mz_diff; calls them tick and diff). */
export const TICK_FIELD: Field = { name: 'tick', type: 'bigint' }
export const DIFF_FIELD: Field = { name: 'diff', type: 'bigint' }

function overflowError(limit: number, how: string): RivuletError {
  return new RivuletError('54000', `subscription ended: more than ${limit} bytes of changes were waiting for the client`, undefined, `The client is not reading the subscription fast enough (${how}).`)
}

/** Rough size of a row in memory / on the wire, for the buffer cap. */
function rowBytes(row: readonly ResultValue[]): number {
  let n = 16
  for (const v of row) n += typeof v === 'string' ? v.length : 8
  return n
}

function fieldsOf(columns: readonly ColumnInfo[]): Field[] {
  return [TICK_FIELD, DIFF_FIELD, ...columns.map((c): Field => ({ name: c.name, type: c.type }))]
}

/** Common part: the engine subscription and its stop, deferred past any open transaction.
 *  Subclasses call open() at the end of their constructor (the snapshot batch arrives inside
 *  subscribeStatement, before it returns, and needs their fields initialized). */
abstract class Subscription {
  fields: Field[] = []
  #stop: (() => void) | undefined
  #ended = false

  protected constructor(readonly gate: EngineGate) {}

  protected open(sql: string): void {
    const { columns, stop } = this.gate.engine.subscribeStatement(sql, (b) => {
      // called inside another session's commit: must never throw into the engine
      try {
        if (this.fields.length === 0) this.fields = fieldsOf(b.columns)
        if (!this.#ended) this.onBatch(b)
      } catch (e) {
        this.fail(e instanceof Error ? e : new Error(String(e)))
      }
    })
    this.fields = fieldsOf(columns)
    if (this.#ended) this.gate.whenFree(stop) // ended by an overflow inside the snapshot
    else this.#stop = stop
  }

  protected abstract onBatch(b: ChangeBatch): void

  /** Ends the subscription with an error for its reader. */
  protected abstract fail(e: Error): void

  get ended(): boolean {
    return this.#ended
  }

  /** Stops delivery at once; the engine's unsubscribe (which drops a hidden view) runs when
   *  no session has a transaction open. Idempotent. */
  end(): void {
    this.#ended = true
    const stop = this.#stop
    if (!stop) return
    this.#stop = undefined
    this.gate.whenFree(stop)
  }
}

/** A subscription read with FETCH. */
export class CursorSubscription extends Subscription {
  #rows: ResultValue[][] = []
  #bytes = 0
  #failure: Error | undefined
  #wake: (() => void) | undefined

  constructor(
    gate: EngineGate,
    sql: string,
    readonly maxBytes: number,
  ) {
    super(gate)
    this.open(sql)
  }

  protected onBatch(b: ChangeBatch): void {
    for (const [row, diff] of b.changes) {
      const r: ResultValue[] = [b.tick, diff, ...row]
      this.#rows.push(r)
      this.#bytes += rowBytes(r)
    }
    if (this.#bytes > this.maxBytes) this.fail(overflowError(this.maxBytes, 'FETCH more often, or in larger counts'))
    else this.#wake?.()
  }

  protected fail(e: Error): void {
    this.#failure = e
    this.#rows = []
    this.#bytes = 0
    this.end()
    this.#wake?.()
  }

  /** Up to `count` pending rows. With none pending: waits for the first (forever when
   *  `timeoutMs` is undefined, as Materialize's FETCH does without a timeout), or returns
   *  none after `timeoutMs`. `cancel` registers the waiter with the session's cancellation. */
  async fetch(count: number, timeoutMs: number | undefined, onCancel: (h: (e: Error) => void) => () => void): Promise<ResultValue[][]> {
    if (this.#failure) throw this.#failure
    if (this.#rows.length === 0 && timeoutMs !== 0 && !this.ended) {
      await new Promise<void>((resolve, reject) => {
        let unCancel = (): void => undefined
        const done = (): void => {
          if (timer) clearTimeout(timer)
          this.#wake = undefined
          unCancel()
        }
        const timer = timeoutMs === undefined ? undefined : setTimeout(() => (done(), resolve()), timeoutMs)
        this.#wake = () => (done(), resolve())
        unCancel = onCancel((e) => (done(), reject(e)))
      })
    }
    if (this.#failure) throw this.#failure
    const out = this.#rows.splice(0, count)
    for (const r of out) this.#bytes -= rowBytes(r)
    return out
  }

  close(): void {
    this.end()
    this.#rows = []
    this.#bytes = 0
    this.#wake?.()
  }
}

/** Why a COPY subscription stopped. */
export type CopyEnd = { readonly kind: 'error'; readonly error: Error } | { readonly kind: 'closed' }

/** Where a COPY subscription writes. */
export interface CopyTarget {
  /** Queues bytes for the socket. */
  send(b: Buffer): void
  /** Bytes queued but not yet handed to the kernel. */
  readonly backlog: number
  /** Calls `f` once the socket drained (or at once when it has no backlog). */
  onDrain(f: () => void): void
}

/** A subscription streamed as COPY data (text format, one line per change). */
export class CopySubscription extends Subscription {
  #lines: string[] = []
  #bytes = 0
  #started = false
  #scheduled = false
  #waitingForDrain = false
  #resolve: ((e: CopyEnd) => void) | undefined
  readonly done: Promise<CopyEnd>

  constructor(
    gate: EngineGate,
    sql: string,
    readonly target: CopyTarget,
    readonly maxBytes: number,
    readonly encodeLine: (fields: readonly Field[], row: readonly ResultValue[]) => string,
  ) {
    super(gate)
    this.done = new Promise((resolve) => (this.#resolve = resolve))
    this.open(sql)
  }

  protected onBatch(b: ChangeBatch): void {
    for (const [row, diff] of b.changes) {
      const line = this.encodeLine(this.fields, [b.tick, diff, ...row])
      this.#lines.push(line)
      this.#bytes += line.length
    }
    if (this.#bytes + this.target.backlog > this.maxBytes) {
      this.finish({ kind: 'error', error: overflowError(this.maxBytes, 'it does not read its connection') })
      return
    }
    this.#schedule()
  }

  protected fail(e: Error): void {
    this.finish({ kind: 'error', error: e })
  }

  /** Starts writing (after the CopyOutResponse went out). */
  start(): void {
    this.#started = true
    this.#schedule()
  }

  finish(e: CopyEnd): void {
    this.end()
    this.#lines = []
    this.#bytes = 0
    const r = this.#resolve
    this.#resolve = undefined
    r?.(e)
  }

  #schedule(): void {
    if (!this.#started || this.#scheduled || this.ended) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#flush()
    })
  }

  #flush(): void {
    if (this.ended || this.#lines.length === 0) return
    if (this.target.backlog > 1 << 20) {
      // the client is behind: wait for the socket to drain, keep buffering (capped)
      if (!this.#waitingForDrain) {
        this.#waitingForDrain = true
        this.target.onDrain(() => {
          this.#waitingForDrain = false
          this.#schedule()
        })
      }
      return
    }
    const lines = this.#lines
    this.#lines = []
    this.#bytes = 0
    for (const l of lines) this.target.send(copyData(l))
  }
}

/** One row in COPY's text format: tab-separated, `\N` for NULL, backslash escapes. */
export function copyTextLine(fields: readonly Field[], row: readonly ResultValue[]): string {
  let out = ''
  for (let i = 0; i < row.length; i++) {
    if (i > 0) out += '\t'
    const f = fields[i] ?? { name: '', type: 'text' as const }
    const t = textValue(row[i]!, f)
    out += t === null ? '\\N' : escapeCopyText(t)
  }
  return out + '\n'
}


/** One row in COPY's CSV format (NULL unquoted empty; values with a delimiter, quote, CR/LF
 *  or an empty string quoted). */
export function copyCsvLine(fields: readonly Field[], row: readonly ResultValue[]): string {
  const parts = row.map((v, i) => {
    const t = textValue(v, fields[i] ?? { name: '', type: 'text' })
    if (t === null) return ''
    return t === '' || /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t
  })
  return parts.join(',') + '\n'
}
