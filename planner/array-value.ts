// The run-time value of an SQL array (`integer[]`, `text[]`, …): its elements' values in
// order, NULL as null, indexed from 1 in SQL. One dimension only: PostgreSQL's arrays of
// arrays (`'{{1,2},{3,4}}'`) are refused where they would be built.
//
// Values are immutable. Two keys, as for numerics (ivm/key.ts reads them by duck typing):
//   - toString(): the exact representation (row identity), element by element;
//   - hashKey: equality for grouping and joining, which follows the elements' SQL equality
//     (an element with a hashKey of its own, a numeric 2.50, counts as that key: 2.5).

export class ArrayValue {
  readonly items: readonly unknown[]
  #identity: string | undefined
  #hash: string | undefined

  constructor(items: readonly unknown[]) {
    this.items = items
  }

  get length(): number {
    return this.items.length
  }

  toString(): string {
    return (this.#identity ??= encode(this.items, false))
  }

  get hashKey(): string {
    return (this.#hash ??= encode(this.items, true))
  }
}

export function isArrayValue(v: unknown): v is ArrayValue {
  return v instanceof ArrayValue
}

export const EMPTY_ARRAY = new ArrayValue([])

/** A self-delimiting encoding of the elements: a length-prefixed token per element, tagged by
 *  its JS kind, so that no two different arrays share one. */
function encode(items: readonly unknown[], byHash: boolean): string {
  let s = '['
  for (const v of items) {
    switch (typeof v) {
      case 'number':
        s += 'n' + (v === 0 ? '0' : String(v)) + ';'
        break
      case 'bigint':
        s += byHash ? 'n' + String(v) + ';' : 'b' + String(v) + ';'
        break
      case 'string':
        s += 's' + v.length + ':' + v
        break
      case 'boolean':
        s += v ? 'T' : 'F'
        break
      default: {
        if (v === null || v === undefined) {
          s += 'N'
          break
        }
        const k = byHash ? (v as { hashKey?: number | string }).hashKey : undefined
        const t = k === undefined ? String(v) : typeof k === 'number' ? (k === 0 ? '0' : String(k)) : k
        s += (k !== undefined && typeof k === 'number' ? 'n' + t + ';' : 'o' + t.length + ':' + t)
      }
    }
  }
  return s + ']'
}
