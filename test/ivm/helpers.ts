// Test helpers for ivm: Z-set literals, consolidation to a canonical sorted form, and a
// driver that pushes deltas through a circuit and collects an operator's outputs.

import { Circuit, compareRows, InputOperator, rowKey, ZSet, type Operator, type Row, type RowKey } from '../../ivm/index.js'

/** zs([row, w], …) */
export function zs(...pairs: [Row, number][]): ZSet {
  return ZSet.of(pairs)
}

/** Inserts of the given rows (weight 1 each). */
export function ins(...rows: Row[]): ZSet {
  return ZSet.of(rows.map((r) => [r, 1] as [Row, number]))
}

/** Deletes of the given rows (weight −1 each). */
export function del(...rows: Row[]): ZSet {
  return ZSet.of(rows.map((r) => [r, -1] as [Row, number]))
}

/** Consolidated, sorted [row, weight] pairs (order-independent comparison). */
export function norm(z: ZSet | readonly ZSet[]): [Row, number][] {
  const acc = new Accumulator()
  if (z instanceof ZSet) acc.add(z)
  else for (const d of z) acc.add(d)
  return acc.entries()
}

/** A running integral of Z-sets. */
export class Accumulator {
  readonly #m = new Map<RowKey, [Row, number]>()
  add(z: ZSet, scale = 1): void {
    for (let i = 0; i < z.rows.length; i++) {
      const r = z.rows[i]!
      const k = rowKey(r)
      const e = this.#m.get(k)
      if (e === undefined) this.#m.set(k, [r, z.weights[i]! * scale])
      else {
        e[1] += z.weights[i]! * scale
        if (e[1] === 0) this.#m.delete(k)
      }
    }
  }
  entries(): [Row, number][] {
    const res = [...this.#m.values()].filter(([, w]) => w !== 0).map(([r, w]) => [r, w] as [Row, number])
    res.sort((a, b) => compareRows(a[0], b[0]))
    return res
  }
  toZSet(): ZSet {
    return ZSet.of(this.entries())
  }
}

/** Normalizes an expected list of [row, weight] pairs the same way as norm(). */
export function expected(...pairs: [Row, number][]): [Row, number][] {
  return norm(ZSet.of(pairs))
}

/** A circuit with N inputs whose contents are tracked (for snapshot/backfill). */
export class Driver {
  readonly circuit = new Circuit()
  readonly inputs: InputOperator[] = []
  readonly tables: Accumulator[] = []

  constructor(nInputs = 1) {
    for (let i = 0; i < nInputs; i++) {
      const table = new Accumulator()
      this.tables.push(table)
      this.inputs.push(this.circuit.add(new InputOperator(() => table.toZSet())))
    }
  }

  get input(): InputOperator {
    return this.inputs[0]!
  }

  /** Pushes the deltas (one per input, undefined = no change), steps, and returns the
   *  outputs of `watch` for this step (consolidated), then ends the step. */
  tick(deltas: (ZSet | undefined)[] | ZSet, watch: Operator[]): ZSet[] {
    const ds = deltas instanceof ZSet ? [deltas] : deltas
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i]
      if (d === undefined || d.rows.length === 0) continue
      this.tables[i]!.add(d)
      this.inputs[i]!.push(d)
    }
    this.circuit.step()
    const outs = watch.map((op) => op.out)
    this.circuit.endStep()
    return outs
  }

  /** One tick watching a single operator; returns its normalized output. */
  step(deltas: (ZSet | undefined)[] | ZSet, op: Operator): [Row, number][] {
    return norm(this.tick(deltas, [op])[0]!)
  }

  commit(): void {
    this.circuit.commit()
  }

  /** Rolls the circuit back and the tracked tables with it (to `saved`). */
  rollback(saved: Accumulator[]): void {
    this.circuit.rollback()
    for (let i = 0; i < saved.length; i++) {
      const t = this.tables[i]!
      t.add(t.toZSet(), -1)
      t.add(saved[i]!.toZSet())
    }
  }

  saveTables(): Accumulator[] {
    return this.tables.map((t) => {
      const c = new Accumulator()
      c.add(t.toZSet())
      return c
    })
  }
}
