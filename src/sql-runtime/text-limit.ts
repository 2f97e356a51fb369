// The one limit on the length of a text value, and the errors past it.
//
// PostgreSQL caps a value at 1 GB (MaxAllocSize) and raises 54000 (program_limit_exceeded):
// "requested length too large" from repeat/lpad/rpad, "out of memory" (Cannot enlarge string
// buffer …) from everything built in a StringInfo (concat, replace, regexp_replace,
// string_agg, …). A JS string is UTF-16 and V8 refuses one longer than 2^29 − 24 code units
// with a RangeError ("Invalid string length"), which would surface as an internal error, and
// long before that a few such values exhaust the heap. So rivulet's limit is 2^28 code units
// (256 Mi, up to 512 MB of heap for one value): half V8's maximum, so even `a || b` of two
// values at the limit is refused by our check before V8 is ever asked, and within PG's 1 GB.
// Every function that builds a longer text than its inputs computes the result's length first
// and calls checkTextLength before allocating anything.

import { RivuletError } from '../../grammar/index.js'

export const MAX_TEXT_LENGTH = 2 ** 28

const PROGRAM_LIMIT_EXCEEDED = '54000'

/** repeat/lpad/rpad past the limit, as PostgreSQL words it. */
export function requestedLengthTooLarge(): RivuletError {
  return new RivuletError(PROGRAM_LIMIT_EXCEEDED, 'requested length too large')
}

/** A text being built past the limit (PostgreSQL's enlargeStringInfo). */
export function textOutOfMemory(have: number, more: number): RivuletError {
  return new RivuletError(PROGRAM_LIMIT_EXCEEDED, 'out of memory', undefined, `Cannot enlarge string buffer containing ${have} characters by ${more} more characters.`)
}

/** Throws 54000 "out of memory" when a text of `have` + `more` code units would pass the limit. */
export function checkTextLength(have: number, more = 0): void {
  if (!(have + more <= MAX_TEXT_LENGTH)) throw textOutOfMemory(have, more)
}

/** The RivuletError for a RangeError V8 raises when asked for a too-large string or array
 *  (a path that missed its checkTextLength must still be a statement error, never an
 *  internal one); undefined for any other error. */
export function allocationLimitError(e: unknown): RivuletError | undefined {
  if (!(e instanceof RangeError)) return undefined
  const m = e.message
  if (m.startsWith('Invalid string length') || m.startsWith('Invalid array length') || m.startsWith('Invalid typed array length') || m.startsWith('Array buffer allocation failed')) {
    return new RivuletError(PROGRAM_LIMIT_EXCEEDED, 'out of memory', undefined, `${m} (a value passed the ${MAX_TEXT_LENGTH}-character limit)`)
  }
  return undefined
}
