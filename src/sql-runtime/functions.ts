// Implementations of every overload id of planner/expr/functions.ts (see the id scheme at the
// top of that file). Each receives run-time values (planner/types.ts) — never NULL for strict
// overloads — and returns a run-time value; errors are RivuletErrors with Postgres SQLSTATEs.
//
// FUNCTIONS gathers the families: arithmetic-functions.ts (integers, floats, math),
// text-functions.ts (strings, LIKE, regular expressions), datetime-functions.ts and
// to-char.ts (dates, timestamps, intervals), timestamptz-functions.ts (timestamptz, time, uuid,
// bytea), numeric-functions.ts (exact NUMERIC, PostgreSQL's
// result scales), array-functions.ts, series-functions.ts, jsonb-functions.ts (with its
// operators, jsonb-operators.ts and jsonb-path-edit.ts); the comparisons, type modifiers
// and CHAR(n) operators, which serve every type, are here. Each family notes its deviations
// from PostgreSQL.
//
// Checked against PostgreSQL 15 by differential tests (formatting, interval arithmetic,
// date_part/date_trunc, age, justify_*, to_char, LIKE, string functions, overflow errors).

import { Interval, compareInterval } from './interval.js'
import { applyTypeModifier } from './values.js'
import { compareBpchar, compareScalars, equalScalars } from './value-order.js'
import { NUMERIC_FUNCTIONS } from './numeric-functions.js'
import { applyNumericTypmod } from '../../planner/index.js'
import { ARRAY_FUNCTIONS } from './array-functions.js'
import { seriesFunctions } from './series-functions.js'
import { ARITHMETIC_FUNCTIONS } from './arithmetic-functions.js'
import { TEXT_FUNCTIONS } from './text-functions.js'
import { DATETIME_FUNCTIONS, tsAddInterval } from './datetime-functions.js'
import { toCharMemo } from './to-char.js'
import { TIMESTAMPTZ_FUNCTIONS } from './timestamptz-functions.js'
import { JSONB_FUNCTIONS } from './jsonb-functions.js'

type Fn = (...args: any[]) => unknown

// ---------------------------------------------------------------------------------- comparisons

/** SQL order of two non-NULL values of one type (a numeric may be a number or a Numeric). */
const cmp = compareScalars
const eq = equalScalars

function greatest(...args: unknown[]): unknown {
  let best: unknown = null
  for (const a of args) if (a !== null && a !== undefined && (best === null || cmp(a, best) > 0)) best = a
  return best
}
function least(...args: unknown[]): unknown {
  let best: unknown = null
  for (const a of args) if (a !== null && a !== undefined && (best === null || cmp(a, best) < 0)) best = a
  return best
}

// ---------------------------------------------------------------------------------- registry

const intervalCmp = (f: (c: number) => boolean) => (a: Interval, b: Interval) => f(compareInterval(a, b))

export const FUNCTIONS: Readonly<Record<string, Fn>> = {
  ...ARITHMETIC_FUNCTIONS,

  eq,
  ne: (a: unknown, b: unknown) => !eq(a, b),
  lt: (a: unknown, b: unknown) => cmp(a, b) < 0,
  le: (a: unknown, b: unknown) => cmp(a, b) <= 0,
  gt: (a: unknown, b: unknown) => cmp(a, b) > 0,
  ge: (a: unknown, b: unknown) => cmp(a, b) >= 0,
  interval_eq: intervalCmp((c) => c === 0),
  interval_ne: intervalCmp((c) => c !== 0),
  interval_lt: intervalCmp((c) => c < 0),
  interval_le: intervalCmp((c) => c <= 0),
  interval_gt: intervalCmp((c) => c > 0),
  interval_ge: intervalCmp((c) => c >= 0),

  ...TEXT_FUNCTIONS,
  ...DATETIME_FUNCTIONS,
  ...TIMESTAMPTZ_FUNCTIONS,
  ...NUMERIC_FUNCTIONS,
  ...ARRAY_FUNCTIONS,
  ...seriesFunctions(tsAddInterval),
  ...JSONB_FUNCTIONS,
  typmod_numeric: applyNumericTypmod,
  typmod_varchar: (v: string, length: number, explicit: boolean) => applyTypeModifier(v, { kind: 'varchar', length }, explicit),
  typmod_char: (v: string, length: number, explicit: boolean) => applyTypeModifier(v, { kind: 'char', length }, explicit),
  bpchar_eq: (a: string, b: string) => compareBpchar(a, b) === 0,
  bpchar_ne: (a: string, b: string) => compareBpchar(a, b) !== 0,
  bpchar_lt: (a: string, b: string) => compareBpchar(a, b) < 0,
  bpchar_le: (a: string, b: string) => compareBpchar(a, b) <= 0,
  bpchar_gt: (a: string, b: string) => compareBpchar(a, b) > 0,
  bpchar_ge: (a: string, b: string) => compareBpchar(a, b) >= 0,
  greatest,
  least,
  to_char_ts: toCharMemo,
}
