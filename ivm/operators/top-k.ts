// TopKOperator — ORDER BY … LIMIT/OFFSET per partition, optionally with ROW_NUMBER().
//
// Semantics:  per partition p (rows with equal partition columns), order the integrated
//             multiset by `compare`, ties broken by a total order on row values (compareRows)
//             so the result depends only on the multiset; a row of weight w occupies w
//             consecutive positions. Output = the rows at positions [offset, offset + limit)
//             (limit undefined = to the end). Per step, for each touched partition:
//             out = window_new − window_old (a row-by-row merge of two sorted lists, so rows
//             that stay in the window emit nothing). With `rowNumber`, output rows get an
//             extra last column = 1-based position in the partition; a row whose position
//             changes is retracted and re-inserted with its new number.
//             limit undefined without rowNumber: out = Δin(p) − (prefix_new − prefix_old),
//             the prefix being positions [0, offset) — O(offset), not O(partition).
//             With `withTies` (FETCH FIRST n ROWS WITH TIES), the window also holds every row
//             after position offset + limit − 1 that `compare` finds equal to the row there
//             (they follow it in the order, `compare` then the whole row); so a change to the
//             row at the boundary brings in or takes out all its ties at once.
// State kept: per partition a chunked sorted list (ChunkedRows, ivm/chunked-rows.ts): chunks
//             of ≤ CHUNK_MAX distinct rows with their counts, each chunk knowing its number of
//             positions. An update is a binary search over chunks, one inside the chunk and a
//             splice of ≤ CHUNK_MAX entries, so a change in a 1M-row partition never moves the
//             whole partition. Reading a window skips whole chunks: O(offset/CHUNK + limit).
//             With `appendOnly` (the input never retracts) and a limit, a row pushed to a
//             position ≥ offset + limit can never move back into the window, so at each
//             commit every partition the tick touched is cut to its first offset + limit
//             positions (not before: a rollback undoes the tick by retracting its rows).
//             With ties, the cut is after the ties of the row at offset + limit − 1: a later
//             row can only move that boundary to a lesser row, which nothing past its ties
//             can tie with.
//             Saved (checkpoint): per partition its sorted rows and counts (chunks joined);
//             the chunks are cut again on load. Incremental checkpoints save the partitions
//             changed since the last (ivm/keyed-state.ts).
// Linear:     no.
// Retracts:   yes.
//
// Cost per step and touched partition: O(log n) per delta row + O(offset/CHUNK_MAX + limit)
// to read the old and new windows (+ the number of ties, with ties). (ROW_NUMBER without limit
// is O(partition) per change, which is inherent: every later row is renumbered.) `compare` must
// not throw.

import type { Circuit } from '../circuit.js'
import { compareRows, keyFunction, type RowKey } from '../key.js'
import { BaseOperator, Journal, type Operator } from '../operator.js'
import { ZSet, type Row } from '../zset.js'
import { Chunk, CHUNK_MAX, ChunkedRows, RowRun } from '../chunked-rows.js'
import { ALL_CHANGED, fuzzyKeyedBase, KeyChanges, type ChangeShares, saveKeyedPart, snapshotKeyedPart, type KeyedEntries, type KeyedPart, type KeyedSnapshot } from '../keyed-state.js'

class Partition extends ChunkedRows {
  readonly key: RowKey
  stamp = 0
  old: RowRun | null = null

  constructor(key: RowKey) {
    super()
    this.key = key
  }
}

/** A TopKOperator's state as plain data: per partition, its distinct rows in sort order and
 *  their counts (parallel). */
export interface TopKState {
  readonly rows: Row[][]
  readonly counts: number[][]
}

export interface TopKOptions {
  /** Append the 1-based position in the partition as a last column. */
  rowNumber?: boolean
  /** The input never retracts: with a limit, partitions keep only offset + limit positions. */
  appendOnly?: boolean
  /** FETCH FIRST n ROWS WITH TIES: with a limit, the window also holds the rows after it that
   *  `compare` finds equal to its last row. */
  withTies?: boolean
}

export class TopKOperator extends BaseOperator {
  readonly name = 'TopK'
  readonly partitionColumns: readonly number[]
  readonly compare: (a: Row, b: Row) => number
  readonly limit: number | undefined
  readonly offset: number
  readonly rowNumber: boolean
  readonly appendOnly: boolean
  readonly withTies: boolean
  readonly #cmp: (a: Row, b: Row) => number
  /** `compare` with ties, else undefined (what Partition.read extends the window by). */
  readonly #ties: ((a: Row, b: Row) => number) | undefined
  readonly #partOf: (row: Row) => RowKey
  readonly #parts = new Map<RowKey, Partition>()
  readonly #journal = new Journal<ZSet>()
  #stamp = 0
  /** Partitions this tick touched, to cut at commit (append-only mode). */
  #touchedInTick: Partition[] = []
  /** The partitions changed since the last incremental checkpoint (null until one asks). */
  #changes: KeyChanges | null = null

  constructor(
    input: Operator,
    partitionColumns: readonly number[],
    compare: (a: Row, b: Row) => number,
    limit: number | undefined,
    offset: number,
    options: TopKOptions = {},
  ) {
    super([input])
    this.partitionColumns = partitionColumns.slice()
    this.compare = compare
    this.limit = limit
    this.offset = offset
    this.rowNumber = options.rowNumber === true
    this.withTies = options.withTies === true && limit !== undefined
    this.appendOnly = options.appendOnly === true && limit !== undefined
    this.#cmp = (a, b) => compare(a, b) || compareRows(a, b)
    this.#ties = this.withTies ? compare : undefined
    this.#partOf = keyFunction(this.partitionColumns)
  }

  step(): void {
    const d = this.inputs[0]!.out
    const out = new ZSet()
    this.out = out
    const rows = d.rows
    if (rows.length === 0) return
    this.#journal.record(d)
    const ws = d.weights
    const stamp = ++this.#stamp
    const cmp = this.#cmp
    const partOf = this.#partOf
    const parts = this.#parts
    const touched: Partition[] = []
    const prefixMode = this.limit === undefined && !this.rowNumber
    const from = prefixMode ? 0 : this.offset
    const to = prefixMode ? this.offset : this.limit === undefined ? Infinity : this.offset + this.limit
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      const k = partOf(r)
      let p = parts.get(k)
      if (p === undefined) {
        p = new Partition(k)
        parts.set(k, p)
        this.#changes?.inserted(k)
      }
      if (p.stamp !== stamp) {
        this.#changes?.changed(k)
        p.stamp = stamp
        p.old = p.read(from, to, this.#ties)
        touched.push(p)
        if (this.appendOnly) this.#touchedInTick.push(p)
      }
      if (this.appendOnly && ws[i]! < 0) throw new Error(`${this.name}#${this.id}: the input was declared append-only but deletes a row`)
      p.apply(r, ws[i]!, cmp)
      if (prefixMode) out.push(r, ws[i]!)
    }
    for (let t = 0; t < touched.length; t++) {
      const p = touched[t]!
      const old = p.old!
      p.old = null
      const now = p.read(from, to, this.#ties)
      if (this.rowNumber) this.#diffNumbered(old, now, out)
      else this.#diff(old, now, prefixMode ? -1 : 1, out)
      if (p.size === 0) {
        this.#changes?.deleted(p.key)
        parts.delete(p.key)
      }
    }
  }

  /** out += sign · (now − old), both sorted by #cmp. */
  #diff(old: RowRun, now: RowRun, sign: number, out: ZSet): void {
    const cmp = this.#cmp
    const or = old.rows
    const oc = old.counts
    const nr = now.rows
    const nc = now.counts
    let i = 0
    let j = 0
    while (i < or.length || j < nr.length) {
      if (i === or.length) {
        out.push(nr[j]!, sign * nc[j]!)
        j++
      } else if (j === nr.length) {
        out.push(or[i]!, -sign * oc[i]!)
        i++
      } else {
        const c = or[i] === nr[j] ? 0 : cmp(or[i]!, nr[j]!)
        if (c === 0) {
          const dw = nc[j]! - oc[i]!
          if (dw !== 0) out.push(nr[j]!, sign * dw)
          i++
          j++
        } else if (c < 0) {
          out.push(or[i]!, -sign * oc[i]!)
          i++
        } else {
          out.push(nr[j]!, sign * nc[j]!)
          j++
        }
      }
    }
  }

  /** Position-by-position diff of two windows starting at `offset`, numbering the rows. */
  #diffNumbered(old: RowRun, now: RowRun, out: ZSet): void {
    const cmp = this.#cmp
    let oi = 0
    let oLeft = old.counts.length > 0 ? old.counts[0]! : 0
    let ni = 0
    let nLeft = now.counts.length > 0 ? now.counts[0]! : 0
    let pos = this.offset + 1
    while (oi < old.rows.length || ni < now.rows.length) {
      const o = oi < old.rows.length ? old.rows[oi]! : null
      const n = ni < now.rows.length ? now.rows[ni]! : null
      if (o === null || n === null || (o !== n && cmp(o, n) !== 0)) {
        if (o !== null) out.push(numbered(o, pos), -1)
        if (n !== null) out.push(numbered(n, pos), 1)
      }
      pos++
      if (o !== null && --oLeft === 0) {
        oi++
        oLeft = oi < old.counts.length ? old.counts[oi]! : 0
      }
      if (n !== null && --nLeft === 0) {
        ni++
        nLeft = ni < now.counts.length ? now.counts[ni]! : 0
      }
    }
  }

  override commit(): void {
    this.#journal.commit()
    if (this.#touchedInTick.length === 0) return
    const keep = this.offset + this.limit!
    const ties = this.#ties
    for (const p of this.#touchedInTick) p.truncate(ties === undefined ? keep : p.tiedEnd(keep, ties))
    this.#touchedInTick = []
  }

  override rollback(): void {
    this.#touchedInTick = []
    const cmp = this.#cmp
    const partOf = this.#partOf
    const parts = this.#parts
    this.#journal.undo((d) => {
      const rows = d.rows
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!
        const k = partOf(r)
        let p = parts.get(k)
        const changes = this.#changes
        if (p === undefined) {
          p = new Partition(k)
          parts.set(k, p)
          changes?.inserted(k)
        } else changes?.changed(k)
        p.apply(r, -d.weights[i]!, cmp)
        if (p.size === 0) {
          changes?.deleted(k)
          parts.delete(k)
        }
      }
    })
  }

  /** Between ticks (nothing journaled, nothing left to cut). */
  saveState(): TopKState {
    const rows: Row[][] = []
    const counts: number[][] = []
    for (const p of this.#parts.values()) {
      const [pr, pc] = partitionEntry(p)
      rows.push(pr)
      counts.push(pc)
    }
    return { rows, counts }
  }

  /** Rebuilds the partitions in chunks of half the maximum (room to grow on both sides);
   *  the chunking never shows in the output, which is read by position. */
  loadState(state: unknown): void {
    const s = state as TopKState
    this.#startLoad()
    for (let i = 0; i < s.rows.length; i++) {
      const rows = s.rows[i]!
      if (rows.length !== 0) this.#loadPartition(this.#partOf(rows[0]!), rows, s.counts[i]!)
    }
  }

  /** Incremental checkpoints: a partition's entry is [its sorted rows, their counts]. */
  saveKeyed(all: boolean): KeyedPart {
    const changes = all || this.#changes === null ? null : this.#changes.take()
    if (changes === null) this.#changes = new KeyChanges((k) => this.#parts.has(k), () => this.#parts.size)
    return saveKeyedPart(null, this.#parts, changes, partitionEntry)
  }

  /** saveKeyed's part, fixed now and read in chunks while ticks go on (KeyedSnapshot): a
   *  partition's entry is a copy of its rows already. */
  snapshotKeyed(all: boolean): KeyedSnapshot {
    const changes = all || this.#changes === null ? null : this.#changes.take()
    if (changes === null) this.#changes = new KeyChanges((k) => this.#parts.has(k), () => this.#parts.size)
    return snapshotKeyedPart(null, this.#parts, changes, this.#changes!, partitionEntry, partitionEntry)
  }

  changeShares(): ChangeShares {
    return this.#changes?.shares ?? ALL_CHANGED
  }

  /** A base read while ticks go on (fuzzyKeyedBase), recording changes afresh from here. */
  fuzzyBaseKeyed(): KeyedSnapshot {
    this.#changes = new KeyChanges((k) => this.#parts.has(k), () => this.#parts.size)
    return fuzzyKeyedBase(null, this.#parts, partitionEntry)
  }

  loadKeyed(_whole: unknown, entries: KeyedEntries): void {
    this.#startLoad()
    const { keys, values } = entries
    for (let i = 0; i < keys.length; i++) {
      const [rows, counts] = values[i] as [Row[], number[]]
      this.#loadPartition(keys[i]!, rows, counts)
    }
    this.#changes = new KeyChanges((k) => this.#parts.has(k), () => this.#parts.size)
  }

  #startLoad(): void {
    this.#changes?.settle()
    this.#parts.clear()
    this.#changes = null
    this.#journal.commit()
    this.#touchedInTick = []
  }

  #loadPartition(key: RowKey, rows: Row[], counts: number[]): void {
    const size = CHUNK_MAX >>> 1
    const p = new Partition(key)
    for (let j = 0; j < rows.length; j += size) p.chunks.push(new Chunk(rows.slice(j, j + size), counts.slice(j, j + size)))
    p.size = rows.length
    this.#parts.set(key, p)
  }

  override stateSize(): number {
    let n = 0
    for (const p of this.#parts.values()) n += p.size
    return n
  }

  override describeState(): string {
    const win = this.limit === undefined ? `offset ${this.offset}` : `limit ${this.limit}${this.withTies ? ' with ties' : ''} offset ${this.offset}${this.appendOnly ? ', append-only: the first ' + (this.offset + this.limit) + (this.withTies ? ' and their ties' : '') + ' kept' : ''}`
    return `partitions keyed by [${this.partitionColumns.map((c) => '#' + c).join(', ')}]: ${this.#parts.size} partitions, ${this.stateSize()} rows (${win})`
  }
}

/** A partition's rows and counts, its chunks joined. */
function partitionEntry(p: Partition): [Row[], number[]] {
  const pr: Row[] = []
  const pc: number[] = []
  for (const c of p.chunks) {
    for (let i = 0; i < c.rows.length; i++) {
      pr.push(c.rows[i]!)
      pc.push(c.counts[i]!)
    }
  }
  return [pr, pc]
}

/** `row` with its 1-based position appended (ROW_NUMBER's column). */
export function numbered(row: Row, pos: number): Row {
  const n = row.length
  const r = new Array<unknown>(n + 1)
  for (let i = 0; i < n; i++) r[i] = row[i]
  r[n] = pos
  return r
}

export function topK(
  circuit: Circuit,
  input: Operator,
  partitionColumns: readonly number[],
  compare: (a: Row, b: Row) => number,
  limit: number | undefined,
  offset: number,
  options: TopKOptions = {},
): TopKOperator {
  return circuit.add(new TopKOperator(input, partitionColumns, compare, limit, offset, options))
}
