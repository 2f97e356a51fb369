// Name scopes: the columns visible at a point of a query, with the table alias each came
// from, and the enclosing query's scope for correlated references.

import type { SqlType } from '../types.js'

export interface ScopeColumn {
  /** Table alias (or relation name) the column belongs to; undefined for derived columns. */
  readonly table: string | undefined
  readonly name: string
  readonly type: SqlType
  /** Not expanded by `*` (e.g. the right copy of a USING column). */
  readonly hidden: boolean
  /** Also reachable unqualified under this name even when hidden (USING merged columns, the
   *  table name of a one-column function read as its value). */
  readonly mergedUsing?: boolean
}

export type Resolution =
  | { readonly kind: 'found'; readonly index: number; readonly type: SqlType }
  | { readonly kind: 'ambiguous' }
  | { readonly kind: 'missing' }

export class Scope {
  readonly columns: readonly ScopeColumn[]
  readonly parent: Scope | undefined

  constructor(columns: readonly ScopeColumn[], parent?: Scope) {
    this.columns = columns
    this.parent = parent
  }

  withParent(parent: Scope | undefined): Scope {
    return new Scope(this.columns, parent)
  }

  /** Resolves `name` or `table.name` in this scope only. */
  resolveLocal(parts: readonly string[]): Resolution {
    const name = parts[parts.length - 1]!
    const qualifier = parts.length > 1 ? parts[parts.length - 2] : undefined
    let found = -1
    let count = 0
    for (let i = 0; i < this.columns.length; i++) {
      const c = this.columns[i]!
      if (c.name !== name) continue
      if (qualifier !== undefined) {
        if (c.table !== qualifier) continue
      } else if (c.hidden && !c.mergedUsing) {
        // the hidden side of a USING pair is only reachable qualified
        continue
      }
      if (found === -1) found = i
      count++
    }
    if (count === 0) return { kind: 'missing' }
    if (count > 1) return { kind: 'ambiguous' }
    return { kind: 'found', index: found, type: this.columns[found]!.type }
  }

  hasTable(name: string): boolean {
    return this.columns.some((c) => c.table === name)
  }

  concat(other: Scope): Scope {
    return new Scope([...this.columns, ...other.columns], this.parent)
  }
}
