// =============================================================================
//  Adapter for rivulet in the peers harness (a separate project). Copy this
//  file over adapters/engine.mjs in a scratch copy of the harness (see
//  bench/peers/README.md) and point ENGINE_PATH at the built package entry:
//
//    ENGINE_PATH=/path/to/rivulet/dist/src/index.js node run.mjs --workload W1 --peers engine,dbivm,pgivm
//
//  Engine API used (src/engine/engine.ts):
//    Engine.open()                       (or new Engine())
//    e.execute(sql)                      DDL: CREATE TABLE, CREATE INDEX (accepted, no-op),
//                                        CREATE MATERIALIZED VIEW v AS <select>; BEGIN / COMMIT
//    e.insert(table, rows)               rows: arrays in column order (cheaper than objects)
//    e.delete(table, rows)               full rows, matched by primary key
//    e.query(sql) -> {columns, rows}     rows are arrays in select order
//  W3's bids table is declared APPEND ONLY (a stream: the workload is one) without the
//  primary key the SQL peers get.
//  Every insert()/delete() call is one tick. One apply() is grouped into ONE tick:
//  e.batch(fn) when the engine has it, else BEGIN ... COMMIT around the calls when
//  the step needs more than one call (an update = delete(old) + insert(new)).
//
//  Reads: SELECT <cols> FROM v WHERE <key> IN (...) (W3: (auction, win) IN (VALUES
//  (..), ..)). ENGINE_READ=all reads SELECT <cols> FROM v and filters in JS (the
//  fallback if the engine cannot plan the keyed read).
//
//  ENGINE_DATA=<dir>: run durable: Engine.open({ dir }) in a new directory under <dir> (removed
//  on close), at ENGINE_DURABILITY (power, the default, or process).
//
//  ENGINE_CPU_PROFILE=<dir>: CPU-profile this peer from its first apply() to close()
//  (measured steps + untimed catch-up + final read) into <dir>/engine-<W>.cpuprofile;
//  summarise with `npm run bench -- profile <file>` in the rivulet repo.
// =============================================================================
import fs from 'node:fs'
import { Session } from 'node:inspector'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { SqlPeer } from '../lib/sqlpeer.mjs'
import { TABLES } from '../lib/workloads.mjs'

export const peers = {
  engine: { mode: 'ivm', describe: 'rivulet via ENGINE_PATH (skipped when ENGINE_PATH is unset)' },
}

const LOAD_CHUNK = 10_000

class EnginePeer extends SqlPeer {
  constructor(opts) {
    super(opts, 'postgres', 'ivm')
    this.name = opts.peer
  }
  async available() {
    if (!process.env.ENGINE_PATH) return 'ENGINE_PATH is not set (stub adapter for our own engine)'
    try {
      const url = pathToFileURL(path.resolve(process.env.ENGINE_PATH)).href
      const mod = await import(url)
      this.Engine = mod.Engine ?? mod.default
      if (typeof this.Engine !== 'function') return `ENGINE_PATH module exports neither Engine nor a default class`
      this.version = `rivulet ${mod.version ?? ''} (${process.env.ENGINE_PATH}${process.env.ENGINE_READ ? `, ENGINE_READ=${process.env.ENGINE_READ}` : ''})`.replace('  ', ' ')
      return true
    } catch (e) {
      return `cannot import ENGINE_PATH=${process.env.ENGINE_PATH}: ${e.message}`
    }
  }
  async init() {
    const parent = process.env.ENGINE_DATA
    if (parent) {
      this.dataDir = fs.mkdtempSync(path.join(parent, 'rivulet-peer-'))
      this.e = this.Engine.open({ dir: this.dataDir, durability: process.env.ENGINE_DURABILITY ?? 'power' })
      return
    }
    this.e = typeof this.Engine.open === 'function' ? this.Engine.open() : new this.Engine()
  }
  async exec(sql) {
    // W3 is an append-only stream of bids: declare it as one (no primary key to check, rows
    // kept in an append-only log) where the SQL peers get a table keyed on id
    if (this.spec.id === 'W3' && /^CREATE TABLE bids \(/.test(sql)) sql = sql.replace(' PRIMARY KEY', ' NOT NULL') + ' APPEND ONLY'
    this.e.execute(sql)
  }
  async rows(sql) {
    const res = this.e.query(sql)
    const rows = Array.isArray(res) ? res : res?.rows ?? []
    const cols = this.spec.viewCols
    return rows.map((r) => (Array.isArray(r) ? r : cols.map((c) => r[c])))
  }
  async createIvmView(viewSql) {
    this.e.execute(`CREATE MATERIALIZED VIEW v AS ${viewSql}`)
  }
  async bulkLoad(table, data) {
    const cols = TABLES[table].cols.map((c) => data[c])
    const nc = cols.length
    for (let lo = 0; lo < data.n; lo += LOAD_CHUNK) {
      const hi = Math.min(data.n, lo + LOAD_CHUNK)
      const rows = new Array(hi - lo)
      for (let i = lo; i < hi; i++) {
        const r = new Array(nc)
        for (let j = 0; j < nc; j++) r[j] = cols[j][i]
        rows[i - lo] = r
      }
      this.e.insert(table, rows)
    }
  }
  /** The engine calls of one apply(): consecutive inserts into one table share a call. */
  calls(changes) {
    const out = []
    let last = null
    for (const c of changes) {
      if (c.op === 'insert') {
        if (last && last.op === 'insert' && last.table === c.table) last.rows.push(c.row)
        else out.push((last = { op: 'insert', table: c.table, rows: [c.row] }))
        continue
      }
      if (c.op === 'delete') {
        if (last && last.op === 'delete' && last.table === c.table) last.rows.push(c.row)
        else out.push((last = { op: 'delete', table: c.table, rows: [c.row] }))
        continue
      }
      // update: delete the old row, insert the new one (same primary key)
      out.push({ op: 'delete', table: c.table, rows: [c.old] })
      out.push((last = { op: 'insert', table: c.table, rows: [c.row] }))
    }
    return out
  }
  async applyChanges(changes) {
    if (process.env.ENGINE_CPU_PROFILE && !this.prof) {
      this.prof = new Session()
      this.prof.connect()
      this.prof.post('Profiler.enable')
      this.prof.post('Profiler.setSamplingInterval', { interval: 200 })
      this.prof.post('Profiler.start')
    }
    const calls = this.calls(changes)
    const run = () => {
      for (const c of calls) {
        if (c.op === 'insert') this.e.insert(c.table, c.rows)
        else this.e.delete(c.table, c.rows)
      }
    }
    if (typeof this.e.batch === 'function') await this.e.batch(run)
    else if (calls.length > 1) {
      this.e.execute('BEGIN')
      try {
        run()
        this.e.execute('COMMIT')
      } catch (err) {
        this.e.execute('ROLLBACK')
        throw err
      }
    } else run()
  }
  async read(keys) {
    if (process.env.ENGINE_READ === 'all' && keys) {
      const all = await super.read(undefined)
      const out = new Map()
      for (const k of keys) {
        const ks = k.join('|')
        if (all.has(ks)) out.set(ks, all.get(ks))
      }
      return out
    }
    return super.read(keys)
  }
  async close() {
    if (this.prof) {
      const dir = process.env.ENGINE_CPU_PROFILE
      this.prof.post('Profiler.stop', (err, res) => {
        if (err) throw err
        fs.mkdirSync(dir, { recursive: true })
        fs.writeFileSync(path.join(dir, `engine-${this.spec.id}.cpuprofile`), JSON.stringify(res.profile))
      })
      this.prof.disconnect()
      this.prof = null
    }
    this.e?.close?.()
    if (this.dataDir) fs.rmSync(this.dataDir, { recursive: true, force: true })
  }
}

export default function create(opts) {
  return new EnginePeer(opts)
}
