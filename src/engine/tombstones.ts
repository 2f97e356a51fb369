// Tombstones: a table's log is compacted by primary key — what a checkpoint keeps of a table is
// the latest row per key — and a table declared `WITH (tombstone_retention = '1 hour')` also
// keeps, for that long, a tombstone per deleted key in the system relation rivulet_tombstones:
// the relation, the key and the deleted row as record text, the tick that deleted it and its
// time. A key inserted again loses its tombstone (its latest row is live). So a program that
// mirrors a table elsewhere, or audits it, can ask which keys went in the last hour, also of
// rows the log no longer holds.
//
// Derived, like rivulet_late_events: made at each tick's commit from the net change of the
// tables' stores (their journals: a key present when the tick began and absent now was
// deleted), at the tick's committed time, and not logged — replay makes them again from the
// same ticks at the same times. They expire at commits too: a tombstone goes once its time is
// older than the retention, checked in steps of a sixteenth of it (at least a second), so a
// commit scans the tombstones only once per step. Whether one has gone is a function of its time
// and the tick's time alone, so a recovered engine holds the same tombstones as one that never
// stopped.
//
// State kept: rivulet_tombstones' store (keyed by relation and key, the first two columns; saved by checkpoints like
// any store), and per table the last expiry step taken (reset on rollback: the next commit
// scans again).

import * as ivm from '../../ivm/index.js'
import type { Column } from '../../planner/index.js'
import type { TableEntry } from './catalog.js'
import type { EngineInternals } from './internals.js'
import { recordText } from './event-time.js'

export const TOMBSTONES = 'rivulet_tombstones'

export const TOMBSTONE_COLUMNS: readonly Column[] = [
  { name: 'relation', type: 'text' },
  { name: 'key', type: 'text' },
  { name: 'row', type: 'text' },
  { name: 'tick', type: 'bigint' },
  { name: 'deleted_at', type: 'timestamp' },
]

const RELATION = 0
const DELETED_AT = 4

export class Tombstones {
  /** Per table, the cutoff (µs) its tombstones were last expired up to. */
  readonly #expiredTo = new Map<string, number>()
  /** The relations whose tombstones the last scan kept (a relation dropped since is cleared). */
  #kept = ''

  constructor(private readonly engine: EngineInternals) {}

  /** At a tick's commit, before its seal (`now`: its time, µs): the tombstones of the keys its
   *  tables deleted, the removal of those of keys it inserted again and of expired ones. */
  atCommit(now: number): void {
    const engine = this.engine
    const system = engine.tombstonesTable
    const tables = engine.catalog.withTombstones
    if (tables.size === 0 && system.store.rows.size === 0) return
    const delta = new ivm.ZSet()
    const tick = engine.ticks.committed + 1
    const store = system.store
    for (const t of tables) {
      if (!engine.ticks.touched.has(t.store)) continue
      const keyColumns = t.primaryKey.map((i) => t.columns[i]!)
      for (const [, before, after] of t.store.netChanges()) {
        const row = (after ?? before)!
        const key = recordText(t.primaryKey.map((i) => row[i]), keyColumns)
        const existing = store.rows.get(store.keyOf!([t.name, key]))
        if (existing !== undefined) delta.push(existing, -1)
        if (after === undefined && before !== undefined) delta.push([t.name, key, recordText(before, t.columns), tick, now], 1)
      }
    }
    // expiry, in steps of a sixteenth of each retention
    let scan = false
    const cutoffs = new Map<string, number>()
    for (const t of tables) {
      const retention = t.tombstoneRetention!
      const step = Math.max(1_000_000, Math.floor(retention / 16))
      const cutoff = Math.floor(now / step) * step - retention
      cutoffs.set(t.name, cutoff)
      if (cutoff > (this.#expiredTo.get(t.name) ?? -Infinity)) scan = true
    }
    const kept = [...tables].map((t) => t.name).join('\u0000')
    if (kept !== this.#kept) scan = true
    if (scan && store.rows.size !== 0) {
      for (const row of store.rows.values()) {
        const cutoff = cutoffs.get(row[RELATION] as string)
        // (a relation without retention now: dropped, or created again without it)
        if (cutoff === undefined || (row[DELETED_AT] as number) <= cutoff) delta.push(row, -1)
      }
    }
    if (scan) {
      for (const [name, cutoff] of cutoffs) this.#expiredTo.set(name, cutoff)
      this.#kept = kept
    }
    const net = delta.consolidate()
    if (net.length !== 0) engine.ticks.stageDerived(system, net)
  }

  /** A rolled-back tick may have expired tombstones it no longer did: the next commit scans. */
  rollback(): void {
    this.#expiredTo.clear()
    this.#kept = ''
  }
}
