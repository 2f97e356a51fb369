// `rivulet demo`: the built-in scenario. Customers and orders feed three materialized views
// (a join + GROUP BY, a top-N, a count); a deterministic sequence of ticks (seeded PRNG: new
// orders, shipments, cancellations, a deleted order, customers moving region, a transaction)
// changes the tables, and every tick prints its SQL and each view's changes, retractions
// included. It ends with each view's contents as psql tables. No sleeping by default, so it
// finishes at once; `intervalMs` paces it.
import { Engine } from './engine.js'
import { formatAligned, formatValue } from './format.js'
import type { ChangeBatch, ColumnInfo, ResultValue } from './types.js'

export interface DemoOptions {
  /** Number of ticks to run (default 12). */
  readonly ticks?: number
  /** Pause between ticks in milliseconds (default 0). */
  readonly intervalMs?: number
  /** Where output goes, a line or more at a time, newlines included (default stdout). */
  readonly out?: (s: string) => void
  /** PRNG seed (default 42): the same seed prints the same run. */
  readonly seed?: number
}

const SETUP = [
  'CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, region TEXT)',
  'CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, amount INT, status TEXT)',
  "INSERT INTO customers VALUES (1, 'alice', 'US'), (2, 'bob', 'US'), (3, 'carol', 'EU'), (4, 'dave', 'APAC'), (5, 'erin', 'EU')",
]

interface DemoView {
  readonly name: string
  readonly query: string
  readonly orderBy: string
}

const VIEWS: readonly DemoView[] = [
  {
    name: 'revenue_by_region',
    query:
      'SELECT c.region, SUM(o.amount) AS revenue, COUNT(*) AS n_orders FROM orders o JOIN customers c ON o.customer_id = c.id ' +
      "WHERE o.status <> 'cancelled' GROUP BY c.region",
    orderBy: 'region',
  },
  {
    name: 'top_customers',
    query:
      'SELECT c.name, SUM(o.amount) AS spend FROM orders o JOIN customers c ON o.customer_id = c.id ' +
      "WHERE o.status <> 'cancelled' GROUP BY c.name ORDER BY spend DESC, c.name LIMIT 3",
    orderBy: 'spend DESC, name',
  },
  {
    name: 'orders_by_status',
    query: 'SELECT status, COUNT(*) AS n_orders FROM orders GROUP BY status',
    orderBy: 'status',
  },
]

const REGIONS = ['US', 'EU', 'APAC'] as const

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Action = 'insert' | 'insert2' | 'ship' | 'move' | 'cancel' | 'transaction' | 'delete' | 'amend' | 'newCustomer'

/** The first ticks show each kind of change once; later ones are drawn at random. */
const PLAN: readonly Action[] = [
  'insert2',
  'insert',
  'insert2',
  'move',
  'ship',
  'cancel',
  'transaction',
  'delete',
  'newCustomer',
  'amend',
  'insert',
  'move',
]
const RANDOM_MIX: readonly Action[] = ['insert', 'insert', 'insert2', 'ship', 'ship', 'cancel', 'move', 'amend', 'delete', 'transaction']

interface Order {
  customer: number
  amount: number
  status: string
}

/** The scenario's state, mirrored so that every generated statement is valid. */
class Scenario {
  private readonly rand: () => number
  private readonly customers = new Map<number, { name: string; region: string }>([
    [1, { name: 'alice', region: 'US' }],
    [2, { name: 'bob', region: 'US' }],
    [3, { name: 'carol', region: 'EU' }],
    [4, { name: 'dave', region: 'APAC' }],
    [5, { name: 'erin', region: 'EU' }],
  ])
  private readonly orders = new Map<number, Order>()
  private nextOrder = 1
  private readonly newNames = ['frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia']

  constructor(seed: number) {
    this.rand = prng(seed)
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)]!
  }

  private amount(): number {
    return 10 * (2 + Math.floor(this.rand() * 49))
  }

  /** The SQL of the next tick (one statement, or a BEGIN … COMMIT transaction). */
  next(tick: number): string {
    let action = PLAN[tick - 1] ?? this.pick(RANDOM_MIX)
    const open = [...this.orders].filter(([, o]) => o.status === 'placed').map(([id]) => id)
    const live = [...this.orders].filter(([, o]) => o.status !== 'cancelled').map(([id]) => id)
    if ((action === 'ship' || action === 'cancel') && open.length === 0) action = 'insert'
    if ((action === 'delete' || action === 'amend') && live.length === 0) action = 'insert'
    switch (action) {
      case 'insert':
        return `INSERT INTO orders VALUES ${this.newOrder()}`
      case 'insert2':
        return `INSERT INTO orders VALUES ${this.newOrder()}, ${this.newOrder()}`
      case 'ship':
        return this.setStatus(this.pick(open), 'shipped')
      case 'cancel':
        return this.setStatus(this.pick(open), 'cancelled')
      case 'move': {
        const id = this.pick([...this.customers.keys()])
        const customer = this.customers.get(id)!
        const region = this.pick(REGIONS.filter((r) => r !== customer.region))
        customer.region = region
        return `UPDATE customers SET region = '${region}' WHERE id = ${id}`
      }
      case 'amend': {
        const id = this.pick(live)
        const delta = 10 * (1 + Math.floor(this.rand() * 10))
        this.orders.get(id)!.amount += delta
        return `UPDATE orders SET amount = amount + ${delta} WHERE id = ${id}`
      }
      case 'delete': {
        const id = this.pick(live)
        this.orders.delete(id)
        return `DELETE FROM orders WHERE id = ${id}`
      }
      case 'newCustomer': {
        const id = this.customers.size + 1
        const name = this.newNames[(id - 6) % this.newNames.length]! + (id > 5 + this.newNames.length ? String(id) : '')
        const region = this.pick(REGIONS)
        this.customers.set(id, { name, region })
        return `BEGIN; INSERT INTO customers VALUES (${id}, '${name}', '${region}'); INSERT INTO orders VALUES ${this.newOrder(id)}; COMMIT`
      }
      case 'transaction': {
        const first = this.newOrder()
        const second = this.newOrder()
        const ship = open.length > 0 ? `; ${this.setStatus(this.pick(open), 'shipped')}` : ''
        return `BEGIN; INSERT INTO orders VALUES ${first}; INSERT INTO orders VALUES ${second}${ship}; COMMIT`
      }
    }
  }

  private newOrder(customer = 1 + Math.floor(this.rand() * this.customers.size)): string {
    const id = this.nextOrder++
    const amount = this.amount()
    this.orders.set(id, { customer, amount, status: 'placed' })
    return `(${id}, ${customer}, ${amount}, 'placed')`
  }

  private setStatus(id: number, status: string): string {
    this.orders.get(id)!.status = status
    return `UPDATE orders SET status = '${status}' WHERE id = ${id}`
  }
}

function tuple(row: readonly ResultValue[], columns: readonly ColumnInfo[]): string {
  return `(${row.map((v, j) => (v === null ? 'NULL' : formatValue(v, columns[j]?.type ?? 'unknown'))).join(', ')})`
}

/** Sums a tick's changes per row and renders them, retractions first: `- (US, 420)   + (EU, 120)`. */
function renderChanges(batches: readonly ChangeBatch[]): string | undefined {
  const net = new Map<string, { row: ResultValue[]; diff: number; text: string }>()
  for (const batch of batches) {
    for (const [row, diff] of batch.changes) {
      const text = tuple(row, batch.columns)
      const key = JSON.stringify(row)
      const entry = net.get(key)
      if (entry) entry.diff += diff
      else net.set(key, { row, diff, text })
    }
  }
  const changes = [...net.values()].filter((c) => c.diff !== 0)
  if (changes.length === 0) return undefined
  changes.sort((a, b) => Math.sign(a.diff) - Math.sign(b.diff) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
  return changes
    .map((c) => `${c.diff < 0 ? '-' : '+'} ${c.text}${Math.abs(c.diff) > 1 ? ` x${Math.abs(c.diff)}` : ''}`)
    .join('   ')
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs the demo scenario on a fresh in-memory engine. */
export async function runDemo(opts: DemoOptions = {}): Promise<void> {
  const ticks = opts.ticks ?? 12
  const intervalMs = opts.intervalMs ?? 0
  const out = opts.out ?? ((s: string) => void process.stdout.write(s))
  const engine = Engine.open()
  const pending = new Map<string, ChangeBatch[]>(VIEWS.map((v) => [v.name, []]))
  const stops: (() => void)[] = []
  try {
    out(`rivulet demo: ${VIEWS.length} materialized views over customers and orders, ${ticks} ticks\n\nsetup:\n`)
    for (const sql of SETUP) {
      engine.execute(sql)
      out(`  ${sql}\n`)
    }
    for (const view of VIEWS) {
      const sql = `CREATE MATERIALIZED VIEW ${view.name} AS ${view.query}`
      engine.execute(sql)
      out(`  ${sql}\n`)
      stops.push(engine.subscribe(view.name, (batch) => pending.get(view.name)!.push(batch), { snapshot: false }))
    }
    out('\n')

    const width = Math.max(...VIEWS.map((v) => v.name.length))
    const scenario = new Scenario(opts.seed ?? 42)
    for (let tick = 1; tick <= ticks; tick++) {
      if (intervalMs > 0 && tick > 1) await sleep(intervalMs)
      const sql = scenario.next(tick)
      engine.execute(sql)
      // Subscribers are told at the end of the tick; let any asynchronous delivery land too.
      await new Promise<void>((resolve) => setImmediate(resolve))
      out(`tick ${tick}: ${sql}\n`)
      let changed = false
      for (const view of VIEWS) {
        const batches = pending.get(view.name)!
        const line = renderChanges(batches)
        batches.length = 0
        if (line === undefined) continue
        changed = true
        out(`  ${view.name.padEnd(width)}  ${line}\n`)
      }
      if (!changed) out('  (no view changed)\n')
    }

    out('\nfinal contents:\n\n')
    for (const view of VIEWS) {
      const { columns, rows } = engine.query(`SELECT * FROM ${view.name} ORDER BY ${view.orderBy}`)
      out(`${view.name}\n${formatAligned(columns, rows)}`)
    }
  } finally {
    for (const stop of stops) stop()
    engine.close()
  }
}
