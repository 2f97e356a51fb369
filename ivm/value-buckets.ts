// Buckets of state by one column's value, for the operators that free state once a watermark
// makes a value final (Reduce and Arrange with `expire`): the end of a tick visits only the
// buckets of final values — numbers (the usual window ends) from the smallest up, in a sorted
// array, while other values (text, NaN, …) are few and checked one by one.

import { valueKey, type RowKey } from './key.js'
import { lowerBound } from './sorted.js'

/** What a bucket must carry: its value and that value's key. */
export interface ValueBucket {
  readonly value: unknown
  readonly vk: RowKey
}

/** An ordered value: a number other than NaN (its order is the watermark's). */
function ordered(v: unknown): v is number {
  return typeof v === 'number' && v === v
}

export class ValueBuckets<B extends ValueBucket> {
  readonly #byValue = new Map<RowKey, B>()
  /** Distinct ordered values, ascending. */
  #values: number[] = []
  /** Buckets of the other values. */
  #others: B[] = []
  /** The bucket looked up last (consecutive rows mostly share a window). */
  #last: B | null = null
  readonly #make: (value: unknown, vk: RowKey) => B

  constructor(make: (value: unknown, vk: RowKey) => B) {
    this.#make = make
  }

  /** The bucket of value v, made when v is new. */
  get(v: unknown): B {
    let b = this.#last
    const vk = valueKey(v)
    if (b !== null && b.vk === vk) return b
    b = this.#byValue.get(vk) ?? null
    if (b === null) {
      b = this.#make(v, vk)
      this.#byValue.set(vk, b)
      if (ordered(v)) {
        const values = this.#values
        // window ends mostly arrive in order: check the end first
        if (values.length === 0 || values[values.length - 1]! < v) values.push(v)
        else values.splice(lowerBound(values, v), 0, v)
      } else this.#others.push(b)
    }
    this.#last = b
    return b
  }

  /** Visits the buckets whose value is final (`isFinal` must be downward closed over
   *  numbers); a visit returning false takes its bucket out of the index. */
  sweep(isFinal: (v: unknown) => boolean, visit: (b: B) => boolean): void {
    const values = this.#values
    let n = 0
    while (n < values.length && isFinal(values[n])) n++
    if (n !== 0) {
      let kept = 0
      for (let i = 0; i < n; i++) {
        const v = values[i]!
        const b = this.#byValue.get(v === 0 ? 0 : v)!
        if (visit(b)) values[kept++] = v
        else this.#forget(b)
      }
      if (kept !== n) values.splice(kept, n - kept)
    }
    const others = this.#others
    for (let i = 0; i < others.length; i++) {
      const b = others[i]!
      if (isFinal(b.value) && !visit(b)) {
        this.#forget(b)
        others.splice(i--, 1)
      }
    }
  }

  /** Takes b out of the index (its value holds nothing any more). */
  delete(b: B): void {
    this.#forget(b)
    const v = b.value
    if (ordered(v)) this.#values.splice(lowerBound(this.#values, v), 1)
    else this.#others.splice(this.#others.indexOf(b), 1)
  }

  #forget(b: B): void {
    this.#byValue.delete(b.vk)
    if (this.#last === b) this.#last = null
  }
}
