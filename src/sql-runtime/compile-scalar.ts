// ScalarExpr → JS function, once per operator (never an AST walked per row). Expressions
// become JS source with SQL three-valued logic and NULL propagation written out inline;
// hot primitive operators (comparisons, integer/float arithmetic) are inlined, everything
// else calls the function library. CASE, COALESCE, AND and OR evaluate lazily, so
// `COALESCE(x, 1/0)` never divides when x is not NULL, as in Postgres. A function call that
// occurs more than once in one compiled function (`0.908 * price` in a WHERE and its SELECT,
// `EXTRACT(HOUR FROM ts)` in each branch of a CASE) is computed at its first evaluation and
// reused after: memoized per row rather than hoisted, so laziness and errors stay as written.
// A filter and its projection compile into one function, so WHERE and SELECT share those
// calls too. A text function of one varying text (`substring(url FROM '…')`) reads through a
// TextMemo of its call site (src/sql-runtime/text-memo.ts), and split_part calls of one string share one
// split. Constants (function implementations, compiled regexes, IN sets) are closure
// constants, so V8 sees fixed callees. The casts and functions that depend on the TimeZone get
// the zone current at compile time as a constant (time-zone.ts): a view compiled in UTC keeps
// UTC whichever session's write maintains it.

import type { Row } from '../../ivm/index.js'
import type { ScalarExpr, SqlType } from '../../planner/index.js'
import { INTEGER_BOUNDS, NULL_SAFE_KEY, isIntegerType, isStrictFunction, isVolatileFunction, isZoneDependentCast, isZoneDependentFunction, mapExpr, numericCompare, setConstantEvaluator, visitExpr } from '../../planner/index.js'
import { rowKey } from '../../ivm/index.js'
import { RivuletError, SqlState } from '../../grammar/index.js'
import { FUNCTIONS } from './functions.js'
import { REGEX_CALLS, prepareRegex } from './regex.js'
import { castValue } from './values.js'
import { compareText } from './value-order.js'
import { TextMemo } from './text-memo.js'
import { currentTimeZone } from './time-zone.js'

export type RowFn = (row: Row) => unknown

interface Gen {
  temps: number
  consts: unknown[]
  /** How a column reference reads its value (default `row[i]`). */
  column?: (index: number) => string
  /** Calls that occur more than once, by structural key → their memo variable (`m0`, …),
   *  assigned when first generated. */
  repeated?: Map<string, string | null>
  memos: number
  /** Set while compiling the body a TextMemo wraps (so it does not wrap itself). */
  noTextMemo?: boolean
  /** The TextMemo constant of each memoized call, by its structural key. */
  textMemos?: Map<string, string>
}

/** Functions the compiler introduces itself (never bound from SQL): split_part calls of one
 *  string and delimiter share one split (see shareSplits). */
const SPLIT_FIELDS = '__split_fields'
const FIELD = '__field'
const REMOVED_CHARS = '__removed_chars'
const INTERNAL_FUNCTIONS: Readonly<Record<string, (...args: never[]) => unknown>> = {
  [SPLIT_FIELDS]: splitFields,
  [REMOVED_CHARS]: removedChars,
}

/** Builders of `{ f0, f1, … }` objects by field count: one object shape per count, its
 *  fields in the object itself, so reading the fields a TextMemo cached for a text is one
 *  memory access where an array (header, then elements) is two. */
const fieldObjectBuilders: ((...fields: string[]) => object)[] = []

/** The fields `ns` (1-based, all > 0) of `s` split at `delim`, as an object `{ f0, f1, … }`
 *  (a field past the end is '', as split_part has it). */
function splitFields(s: string, delim: string, ...ns: number[]): object {
  const parts = s.split(delim)
  const names = ns.map((_, i) => `f${i}`)
  const build = (fieldObjectBuilders[ns.length] ??= new Function(...names, `return { ${names.join(', ')} }`) as (...fields: string[]) => object)
  return build(...ns.map((n) => parts[n - 1] ?? ''))
}

const charLength = FUNCTIONS.length as (s: string) => number

/** `length(s) - length(replace(s, p, ''))` for a non-empty p: the number of occurrences of p
 *  (left to right, without overlaps, as replace finds them) times p's length. It is exact
 *  for any text because `length` counts UTF-16 units that are not low surrogates, a count
 *  that adds up over concatenation. */
function removedChars(s: string, p: string): number {
  let n = 0
  for (let i = s.indexOf(p); i >= 0; i = s.indexOf(p, i + p.length)) n++
  return n * charLength(p)
}

/** `split_part(x, d, n)` calls with the same x and constant d (and constant n > 0), when
 *  there are two or more of them (Nexmark q22 asks for three directories of one URL), become
 *  field i of one `__split_fields(x, d, n1, n2, …)` (the field numbers asked for): a call the
 *  per-row memo computes once and a TextMemo keeps per distinct text, so each row costs one
 *  lookup, not one per field, and reads the fields from one small object. */
function shareSplits(exprs: readonly ScalarExpr[]): readonly ScalarExpr[] {
  const splitArgs = (e: ScalarExpr): [ScalarExpr, string, number] | undefined => {
    if (e.kind !== 'call' || e.fn !== 'split_part') return undefined
    const [x, d, n] = e.args
    // SQL's `'/'` arrives as an unknown literal cast to text
    const delimiter = constantText(d)
    const field = n === undefined ? undefined : constantValue(n)?.value
    if (typeof delimiter !== 'string' || delimiter === '' || typeof field !== 'number' || !(field > 0)) return undefined
    return [x!, delimiter, field]
  }
  const splitKey = (a: [ScalarExpr, string, number]): string => JSON.stringify([a[0], a[1]], keyValue)
  // per (x, d): how many calls, and the field numbers they ask for
  const groups = new Map<string, { calls: number; fields: number[] }>()
  for (const e of exprs) {
    visitExpr(e, (x) => {
      const a = splitArgs(x)
      if (!a) return
      const group = groups.get(splitKey(a)) ?? { calls: 0, fields: [] }
      group.calls++
      if (!group.fields.includes(a[2])) group.fields.push(a[2])
      groups.set(splitKey(a), group)
    })
  }
  if (![...groups.values()].some((g) => g.calls > 1)) return exprs
  for (const g of groups.values()) g.fields.sort((a, b) => a - b)
  return exprs.map((e) =>
    mapExpr(e, (x) => {
      const a = splitArgs(x)
      const group = a && groups.get(splitKey(a))
      if (!a || !group || group.calls < 2) return x
      const numbers = group.fields.map((n): ScalarExpr => ({ kind: 'literal', value: n, type: 'integer' }))
      const fields: ScalarExpr = { kind: 'call', fn: SPLIT_FIELDS, args: [a[0], { kind: 'literal', value: a[1], type: 'text' }, ...numbers], type: 'text' }
      return { kind: 'call', fn: FIELD, args: [fields, { kind: 'literal', value: group.fields.indexOf(a[2]), type: 'integer' }], type: 'text' }
    }),
  )
}

/** `length(x) - length(replace(x, p, ''))`, SQL's idiom for counting the occurrences of p
 *  in x (Nexmark q14 counts the 'c's of each bid's extra), becomes `__removed_chars(x, p)`:
 *  a count of indexOf hits, where the idiom builds the replaced string and scans both for
 *  surrogates. p must be a non-empty constant (a NULL p keeps the idiom's NULL). */
function countRemovals(exprs: readonly ScalarExpr[]): readonly ScalarExpr[] {
  const removal = (e: ScalarExpr): ScalarExpr | undefined => {
    if (e.kind !== 'call' || e.fn !== 'int4_sub') return undefined
    const [whole, rest] = e.args
    if (whole?.kind !== 'call' || whole.fn !== 'length' || rest?.kind !== 'call' || rest.fn !== 'length') return undefined
    const replaced = rest.args[0]
    if (replaced?.kind !== 'call' || replaced.fn !== 'replace') return undefined
    const [x, p, to] = replaced.args
    const pattern = constantText(p)
    if (typeof pattern !== 'string' || pattern === '' || constantText(to) !== '') return undefined
    if (JSON.stringify(x, keyValue) !== JSON.stringify(whole.args[0], keyValue)) return undefined
    return { kind: 'call', fn: REMOVED_CHARS, args: [x!, { kind: 'literal', value: pattern, type: 'text' }], type: 'integer' }
  }
  let found = false
  for (const e of exprs) visitExpr(e, (x) => void (found ||= removal(x) !== undefined))
  return found ? exprs.map((e) => mapExpr(e, (x) => removal(x) ?? x)) : exprs
}

/** Calls that never raise, whatever their (non-NULL) arguments: comparisons of one type, and
 *  the case and length functions. */
const NEVER_RAISING_FUNCTIONS: ReadonlySet<string> = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'lower', 'upper', 'length'])

/** True when evaluating `e` can raise no error and calls nothing volatile, so evaluating it
 *  earlier or not at all changes nothing but time. A regular-expression call counts when
 *  its pattern is a constant that compiles (else it raises when evaluated). */
export function neverRaises(e: ScalarExpr): boolean {
  switch (e.kind) {
    case 'column':
    case 'literal':
      return true
    case 'isNull':
    case 'not':
      return neverRaises(e.arg)
    case 'and':
    case 'or':
    case 'coalesce':
      return e.args.every(neverRaises)
    case 'case':
      return e.whens.every((w) => neverRaises(w.when) && neverRaises(w.then)) && neverRaises(e.else)
    case 'inList':
      return neverRaises(e.arg) && e.list.every((x) => x.type === e.arg.type && constantValue(x) !== undefined)
    case 'cast':
      return e.arg.kind === 'literal' ? constantValue(e) !== undefined : e.arg.type === e.type && neverRaises(e.arg)
    case 'call': {
      if (!e.args.every(neverRaises)) return false
      if (NEVER_RAISING_FUNCTIONS.has(e.fn)) return e.args.every((a) => a.type === e.args[0]!.type)
      const regex = REGEX_CALLS[e.fn]
      if (regex === undefined || e.args.length !== 2) return false
      const pattern = constantText(e.args[1])
      return typeof pattern === 'string' && prepareRegex(e.fn, pattern, undefined) !== undefined
    }
    default:
      return false
  }
}

/** A rough per-row cost: an inline operation 1, a library call 4, a text function that
 *  scans or builds a string (a TextMemo lookup at best, a cache miss in a large table) 20. */
function evaluationCost(e: ScalarExpr): number {
  switch (e.kind) {
    case 'column':
    case 'literal':
      return 0
    case 'cast':
      return e.arg.kind === 'literal' ? 0 : 1 + evaluationCost(e.arg)
    case 'isNull':
    case 'not':
      return 1 + evaluationCost(e.arg)
    case 'and':
    case 'or':
    case 'coalesce':
      return e.args.reduce((n, a) => n + evaluationCost(a), 0)
    case 'case':
      return e.whens.reduce((n, w) => n + evaluationCost(w.when) + evaluationCost(w.then), evaluationCost(e.else))
    case 'inList':
      return 1 + evaluationCost(e.arg) + e.list.reduce((n, x) => n + evaluationCost(x), 0)
    case 'call': {
      const own = CMP[e.fn] !== undefined ? 1 : MEMO_TEXT_FUNCTIONS.has(e.fn) || REGEX_CALLS[e.fn] !== undefined ? 20 : 4
      return e.args.reduce((n, a) => n + evaluationCost(a), own)
    }
    default:
      return 4
  }
}

/** The operands of an AND or OR, cheapest first, when none of them can raise: the result is
 *  the same in any order (three-valued logic commutes), and the first FALSE (AND) or TRUE
 *  (OR) skips the rest. In q21's `substring(url FROM '…') IS NOT NULL OR lower(channel) IN
 *  (…)`, half the bids are settled by the channel alone. Operands that can raise keep their
 *  written order, so `x <> 0 AND 10 / x > 1` never divides by zero. */
function orderByCost(exprs: readonly ScalarExpr[]): readonly ScalarExpr[] {
  const reorder = (e: ScalarExpr): ScalarExpr => {
    if ((e.kind !== 'and' && e.kind !== 'or') || !e.args.every(neverRaises)) return e
    const costs = e.args.map(evaluationCost)
    const order = e.args.map((_, i) => i).sort((a, b) => costs[a]! - costs[b]! || a - b)
    return order.every((k, i) => k === i) ? e : { ...e, args: order.map((i) => e.args[i]!) }
  }
  let found = false
  for (const e of exprs) visitExpr(e, (x) => void (found ||= reorder(x) !== x))
  return found ? exprs.map((e) => mapExpr(e, reorder)) : exprs
}

/** The compiler's own rewrites of the expressions it compiles together. */
function rewriteForCompile(exprs: readonly ScalarExpr[]): readonly ScalarExpr[] {
  return orderByCost(countRemovals(shareSplits(exprs)))
}

/** Text functions worth a TextMemo when their only varying argument is the text: each scans
 *  or builds a string, where a cache hit is one Map lookup. */
const MEMO_TEXT_FUNCTIONS: ReadonlySet<string> = new Set([
  'initcap', 'reverse', 'md5', 'translate', 'replace', 'split_part', SPLIT_FIELDS,
  'btrim1', 'btrim2', 'ltrim1', 'ltrim2', 'rtrim1', 'rtrim2',
  'substring_regex', 'regexp_replace', 'regexp_replace_at', 'regexp_like', 'regexp_count', 'regexp_substr', 'regexp_instr',
  'regex_match', 'regex_imatch', 'regex_nmatch', 'regex_inmatch',
])

/** Result types whose run-time values are JS primitives (a shared cached value cannot be
 *  mutated by whoever reads it). */
function primitiveValued(t: SqlType): boolean {
  return t !== 'interval' && t !== 'numeric' && t !== 'unknown'
}

/** True when `e` reads no column and calls nothing volatile: the same value in every row. */
export function isRowConstant(e: ScalarExpr): boolean {
  let constant = true
  visitExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'outerColumn' || x.kind === 'subquery' || (x.kind === 'call' && isVolatileFunction(x.fn))) constant = false
  })
  return constant
}

/** A call of a memoizable text function that varies only with its first argument is
 *  compiled as a lookup in its own TextMemo, the call itself compiled once as the memo's
 *  function of that argument. */
function genTextMemoCall(e: Extract<ScalarExpr, { kind: 'call' }>, g: Gen): string | undefined {
  if (g.noTextMemo || !MEMO_TEXT_FUNCTIONS.has(e.fn) || !isStrictFunction(e.fn) || !primitiveValued(e.type)) return undefined
  const [first, ...rest] = e.args
  if (first === undefined || first.type !== 'text' || isRowConstant(first) || !rest.every(isRowConstant)) return undefined
  const inner: ScalarExpr = { ...e, args: [{ kind: 'column', index: 0, type: 'text' }, ...rest] }
  // one memo per distinct call (a shared call may be generated at each of its places)
  const key = JSON.stringify(inner, keyValue)
  let memo = g.textMemos?.get(key)
  if (memo === undefined) {
    const ig: Gen = { temps: 0, consts: [], memos: 0, column: () => 's', noTextMemo: true }
    const compute = buildWith<(s: string) => unknown>('s', genCall(inner, ig), ig)
    memo = constant(g, new TextMemo(compute))
    ;(g.textMemos ??= new Map()).set(key, memo)
  }
  const t = temp(g)
  return `((${t} = ${gen(first, g)}) === null ? null : ${memo}.get(${t}))`
}

/** `lower(c)` or `upper(c)` of a text column c compared with constant texts (`=`, `<>`,
 *  `IN`): a value of c longer than every constant is answered `unequal` without mapping its
 *  case (which allocates), because case mapping never shortens a text (a test checks every
 *  code point). A NULL c still gives NULL. `compared` is the comparison as compiled. */
function caseMappingGuard(mapped: ScalarExpr, constants: readonly unknown[], unequal: string, compared: string, g: Gen): string {
  if (mapped.kind !== 'call' || (mapped.fn !== 'lower' && mapped.fn !== 'upper') || mapped.args[0]?.kind !== 'column') return compared
  if (!constants.every((v) => v === null || typeof v === 'string')) return compared
  const longest = Math.max(0, ...constants.map((v) => (typeof v === 'string' ? v.length : 0)))
  const c = temp(g)
  return `((${c} = ${gen(mapped.args[0], g)}) === null ? null : ${c}.length > ${longest} ? ${unequal} : ${compared})`
}

/** Generated code of a constant that is not NULL: a number, a string, a boolean or a closure
 *  constant (see `constant`). */
const NON_NULL_CONSTANT_CODE = /^(?:-?(?:\d[\d.e+-]*|Infinity)|NaN|"(?:[^"\\]|\\.)*"|true|false|k\d+)$/

const CMP: Record<string, string> = { eq: '===', ne: '!==', lt: '<', le: '<=', gt: '>', ge: '>=' }

/** `a <op> b` over JS numbers with NaN greatest and equal to itself (-0 = 0, as `===`). */
function nanAwareComparison(fn: string, a: string, b: string): string {
  const eq = `(${a} === ${b} || (${a} !== ${a} && ${b} !== ${b}))`
  switch (fn) {
    case 'eq':
      return eq
    case 'ne':
      return `!${eq}`
    case 'lt':
      return `(${a} < ${b} || (${b} !== ${b} && ${a} === ${a}))`
    case 'le':
      return `(${a} <= ${b} || ${b} !== ${b})`
    case 'gt':
      return `(${a} > ${b} || (${a} !== ${a} && ${b} === ${b}))`
    default: // ge
      return `(${a} >= ${b} || ${a} !== ${a})`
  }
}

/** Types whose run-time values are JS primitives ordered by `<` the way SQL orders them
 *  (floats are not: Postgres orders NaN above everything and NaN = NaN). */
function primitiveOrdered(t: SqlType): boolean {
  return t !== 'interval' && t !== 'unknown' && t !== 'real' && t !== 'double' && t !== 'numeric' && t !== 'bpchar' && t !== 'jsonb'
}

function overflow(t: SqlType): never {
  throw new RivuletError(SqlState.numericValueOutOfRange, `${t === 'smallint' ? 'smallint' : t === 'bigint' ? 'bigint' : 'integer'} out of range`)
}

function divisionByZero(): never {
  throw new RivuletError(SqlState.divisionByZero, 'division by zero')
}

/** "Not computed yet in this row" for a memoized call (a value no expression yields). */
const UNSET: unique symbol = Symbol('unset')

/** Helpers referenced by generated code. */
const RT = {
  U: UNSET,
  F: FUNCTIONS as Record<string, (...args: unknown[]) => unknown>,
  cast: castValue,
  compareText,
  overflow,
  divisionByZero,
  raise(e: unknown): never {
    throw e
  },
  B: INTEGER_BOUNDS,
  rowKey,
  numericCompare,
}

function temp(g: Gen): string {
  return `t${g.temps++}`
}

function constant(g: Gen, v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'number') return Number.isFinite(v) ? (Object.is(v, -0) ? '-0' : String(v)) : v > 0 ? 'Infinity' : v < 0 ? '-Infinity' : 'NaN'
  if (typeof v === 'boolean') return String(v)
  if (typeof v === 'string') return JSON.stringify(v)
  g.consts.push(v)
  return `k${g.consts.length - 1}`
}

function gen(e: ScalarExpr, g: Gen): string {
  switch (e.kind) {
    case 'column':
      return g.column ? g.column(e.index) : `row[${e.index}]`
    case 'literal':
      return constant(g, e.value)
    case 'outerColumn':
    case 'subquery':
      throw new RivuletError(SqlState.internalError, 'internal error: subquery survived decorrelation')
    case 'isNull':
      return `(${gen(e.arg, g)} ${e.negated ? '!==' : '==='} null)`
    case 'not': {
      const t = temp(g)
      return `((${t} = ${gen(e.arg, g)}) === null ? null : !${t})`
    }
    case 'and':
    case 'or': {
      // false (AND) / true (OR) dominates, then NULL, then the other value
      const dom = e.kind === 'and' ? 'false' : 'true'
      const other = e.kind === 'and' ? 'true' : 'false'
      const n = temp(g)
      const t = temp(g)
      let code = `(${n} ? null : ${other})`
      for (let i = e.args.length - 1; i >= 0; i--) {
        code = `((${t} = ${gen(e.args[i]!, g)}) === ${dom} ? ${dom} : (${t} === null && (${n} = true), ${code}))`
      }
      return `(${n} = false, ${code})`
    }
    case 'case': {
      let code = gen(e.else, g)
      for (let i = e.whens.length - 1; i >= 0; i--) code = `(${gen(e.whens[i]!.when, g)} === true ? ${gen(e.whens[i]!.then, g)} : ${code})`
      return code
    }
    case 'coalesce': {
      const t = temp(g)
      let code = gen(e.args[e.args.length - 1]!, g)
      for (let i = e.args.length - 2; i >= 0; i--) code = `((${t} = ${gen(e.args[i]!, g)}) !== null ? ${t} : ${code})`
      return code
    }
    case 'cast': {
      const from = e.arg.type
      const to = e.type
      if (from === to) return gen(e.arg, g)
      // widening between integer types, and smallint/integer → double or numeric, are
      // identities at run time (a bigint beyond 2^53 is a JS bigint, which they are not)
      if (isIntegerType(from) && ((isIntegerType(to) && rank(to) >= rank(from)) || (from !== 'bigint' && (to === 'double' || to === 'numeric')))) return gen(e.arg, g)
      if (from === 'real' && to === 'double') return gen(e.arg, g)
      // constant operands are cast once, at compile time
      // (a literal that is not valid input for the type raises when the cast is evaluated,
      // not when it is compiled: `'x' IN (SELECT int_col FROM empty)` is FALSE)
      if (e.arg.kind === 'literal') {
        let v: unknown
        try {
          v = e.arg.value === null ? null : castValue(e.arg.value, from === 'unknown' ? 'text' : from, to)
        } catch (err) {
          if (!(err instanceof RivuletError)) throw err
          return `RT.raise(${constant(g, err)})`
        }
        return constant(g, v)
      }
      const t = temp(g)
      const zone = isZoneDependentCast(from, to) ? `, ${constant(g, currentTimeZone())}` : ''
      const cast = `RT.cast(${t}, ${JSON.stringify(from === 'unknown' ? 'text' : from)}, ${JSON.stringify(to)}${zone})`
      // a bigint that is a JS number is the same number as a numeric or a double
      if (from === 'bigint' && (to === 'numeric' || to === 'double')) return `((${t} = ${gen(e.arg, g)}) === null ? null : typeof ${t} === 'number' ? ${t} : ${cast})`
      return `((${t} = ${gen(e.arg, g)}) === null ? null : ${cast})`
    }
    case 'inList': {
      // x IN () is FALSE and x NOT IN () is TRUE, even for a NULL x
      if (e.list.length === 0) return e.negated ? 'true' : 'false'
      const a = temp(g)
      const constants = e.list.map(constantValue)
      if (constants.every((c) => c !== undefined) && primitiveOrdered(e.arg.type)) {
        const values = constants.map((c) => c!.value)
        const hasNull = values.some((v) => v === null)
        const set = new Set(values.filter((v) => v !== null))
        const s = constant(g, set)
        const miss = hasNull ? 'null' : e.negated ? 'true' : 'false'
        const lookup = `((${a} = ${gen(e.arg, g)}) === null ? null : ${s}.has(${a}) ? ${e.negated ? 'false' : 'true'} : ${miss})`
        return caseMappingGuard(e.arg, values, miss, lookup, g)
      }
      // general form: OR of equalities (NOT IN = NOT of it), same three-valued result
      const eqs: ScalarExpr = { kind: 'or', args: e.list.map((x) => ({ kind: 'call', fn: 'eq', args: [e.arg, x], type: 'boolean' }) as ScalarExpr), type: 'boolean' }
      return gen(e.negated ? { kind: 'not', arg: eqs, type: 'boolean' } : eqs, g)
    }
    case 'call': {
      const key = g.repeated === undefined ? undefined : callKey(e)
      if (key === undefined || !g.repeated!.has(key)) return genCall(e, g)
      let m = g.repeated!.get(key)!
      if (m === null) {
        m = `m${g.memos++}`
        g.repeated!.set(key, m)
      }
      return `(${m} !== RT.U ? ${m} : (${m} = ${genCall(e, g)}))`
    }
  }
}

/** A structural key of a deterministic call (undefined for volatile ones and for values
 *  JSON cannot spell, which are then simply not shared). */
function callKey(e: Extract<ScalarExpr, { kind: 'call' }>): string | undefined {
  if (isVolatileFunction(e.fn)) return undefined
  try {
    return JSON.stringify(e, keyValue)
  } catch {
    return undefined
  }
}

/** JSON spells NaN, ±Infinity and null alike, and -0 as 0: keep them apart. */
function keyValue(_key: string, v: unknown): unknown {
  if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return `#number:${Object.is(v, -0) ? '-0' : String(v)}`
  if (typeof v === 'bigint') return `#bigint:${v}`
  return v
}

/** Marks the calls of `exprs` that occur at least twice (counting nested calls too). */
function findRepeatedCalls(exprs: readonly ScalarExpr[], g: Gen): void {
  const seen = new Map<string, number>()
  const visit = (x: ScalarExpr): void => {
    if (x.kind === 'call') {
      const k = callKey(x)
      if (k !== undefined) {
        const n = (seen.get(k) ?? 0) + 1
        seen.set(k, n)
        // the arguments of a repeated call are computed once with it: count them once
        if (n > 1) return
      }
      for (const a of x.args) visit(a)
      return
    }
    switch (x.kind) {
      case 'isNull':
      case 'not':
      case 'cast':
        return visit(x.arg)
      case 'and':
      case 'or':
      case 'coalesce':
        return x.args.forEach(visit)
      case 'case':
        for (const w of x.whens) {
          visit(w.when)
          visit(w.then)
        }
        return visit(x.else)
      case 'inList':
        visit(x.arg)
        return x.list.forEach(visit)
      default:
        return
    }
  }
  exprs.forEach(visit)
  const repeated = new Map<string, string | null>()
  for (const [k, n] of seen) if (n > 1) repeated.set(k, null)
  if (repeated.size > 0) g.repeated = repeated
}

/** bigint + − × inline on numbers, when the result is a safe integer (then it is exact);
 *  anything else (a bigint operand, a larger result) goes to the library's exact path. */
function bigintArithmetic(fn: string, a: string, b: string, g: Gen): string | undefined {
  const op = { int8_add: '+', int8_sub: '-', int8_mul: '*' }[fn]
  if (op === undefined) return undefined
  const r = temp(g)
  return `(typeof ${a} === 'number' && typeof ${b} === 'number' && Number.isSafeInteger(${r} = ${a} ${op} ${b}) ? ${r} + 0 : RT.F.${fn}(${a}, ${b}))`
}

function rank(t: SqlType): number {
  return t === 'smallint' ? 1 : t === 'integer' ? 2 : 3
}

function genCall(e: Extract<ScalarExpr, { kind: 'call' }>, g: Gen): string {
  const memoized = genTextMemoCall(e, g)
  if (memoized !== undefined) return memoized
  // field i of a shared split (see shareSplits) is a property of its fields object
  if (e.fn === FIELD) {
    const t = temp(g)
    return `((${t} = ${gen(e.args[0]!, g)}) === null ? null : ${t}.f${(e.args[1] as { value: number }).value})`
  }
  const args = e.args.map((a) => gen(a, g))
  // a constant regular expression is compiled here, once, and passed instead of its text
  if (REGEX_CALLS[e.fn] !== undefined) {
    const pattern = constantText(e.args[1])
    const flagsAt = REGEX_CALLS[e.fn]!.flagsArg(e.args.length)
    const flags = flagsAt === undefined ? undefined : constantText(e.args[flagsAt])
    if (typeof pattern === 'string' && (flagsAt === undefined || typeof flags === 'string')) {
      const re = prepareRegex(e.fn, pattern, flags ?? undefined)
      if (re !== undefined) args[1] = constant(g, re)
    }
  }
  // composite encoding (a trailing 0 forces it), so the key is a string even for NULLs
  if (e.fn === NULL_SAFE_KEY) return `RT.rowKey([${args.join(', ')}, 0])`
  // a constant argument is used as it is: it needs no temporary and is never NULL
  const temps = args.map((c) => (NON_NULL_CONSTANT_CODE.test(c) ? c : temp(g)))
  const checked = args.flatMap((c, i) => (temps[i] === c ? [] : [`(${temps[i]} = ${c}) === null`]))
  const strict = (body: string) => (checked.length === 0 ? body : `(${checked.join(' || ')} ? null : ${body})`)
  const [a, b] = temps
  const argType = e.args[0]?.type
  // comparisons of primitive-valued types
  const cmp = CMP[e.fn]
  if (cmp && e.args.length === 2 && argType !== undefined && primitiveOrdered(argType)) {
    // JS orders strings by UTF-16 code unit, SQL ("C" collation) by code point: they differ
    // for astral characters against U+E000..U+FFFF, so text orders through compareText
    const ordersText = argType === 'text' && e.fn !== 'eq' && e.fn !== 'ne'
    const compared = strict(ordersText ? `RT.compareText(${a}, ${b}) ${cmp} 0` : `${a} ${cmp} ${b}`)
    if (e.fn !== 'eq' && e.fn !== 'ne') return compared
    const unequal = e.fn === 'eq' ? 'false' : 'true'
    const right = constantText(e.args[1])
    if (typeof right === 'string') return caseMappingGuard(e.args[0]!, [right], unequal, compared, g)
    const left = constantText(e.args[0])
    return typeof left === 'string' ? caseMappingGuard(e.args[1]!, [left], unequal, compared, g) : compared
  }
  // floats: Postgres orders NaN above every number and makes NaN = NaN
  if (cmp && e.args.length === 2 && (argType === 'real' || argType === 'double')) return strict(nanAwareComparison(e.fn, a!, b!))
  // numerics: plain numbers compare inline, decimals through the library's total order
  if (cmp && e.args.length === 2 && argType === 'numeric') {
    return strict(`(typeof ${a} === 'number' && typeof ${b} === 'number' ? ${nanAwareComparison(e.fn, a!, b!)} : RT.numericCompare(${a}, ${b}) ${cmp === '===' ? '===' : cmp === '!==' ? '!==' : cmp} 0)`)
  }
  const t = e.type
  if (t === 'bigint' && argType === 'bigint') {
    const inline = bigintArithmetic(e.fn, a!, b!, g)
    if (inline !== undefined) return strict(inline)
  }
  if ((t === 'smallint' || t === 'integer') && argType !== undefined && isIntegerType(argType)) {
    const bounds = `RT.B.${t}`
    const check = (expr: string) => {
      const r = temp(g)
      return strict(`((${r} = ${expr}) < ${bounds}[0] || ${r} > ${bounds}[1] ? RT.overflow(${JSON.stringify(t)}) : ${r})`)
    }
    switch (baseOp(e.fn)) {
      case 'add':
        return check(`${a} + ${b}`)
      case 'sub':
        return check(`${a} - ${b}`)
      case 'mul':
        return check(`${a} * ${b}`)
      case 'div':
        return check(`(${b} === 0 ? RT.divisionByZero() : Math.trunc(${a} / ${b}))`)
      case 'mod':
        return strict(`(${b} === 0 ? RT.divisionByZero() : (${a} % ${b}) + 0)`)
      case 'neg':
        return check(`-(${a}) + 0`)
    }
  }
  const fn = RT.F[e.fn] ?? INTERNAL_FUNCTIONS[e.fn]
  if (!fn) throw new RivuletError(SqlState.internalError, `internal error: no implementation for function ${e.fn}`)
  // a function of the TimeZone gets the zone compiled in (see time-zone.ts) as its last argument
  const zone = isZoneDependentFunction(e.fn) ? [constant(g, currentTimeZone())] : []
  const call = `${constant(g, fn)}(${[...temps, ...zone].join(', ')})`
  if (isStrictFunction(e.fn)) return strict(call)
  const assigned = args.flatMap((c, i) => (temps[i] === c ? [] : [`${temps[i]} = ${c}`]))
  return `(${[...assigned, call].join(', ')})`
}

/** The value of a literal, or of a literal cast to another type (cast here, once), or
 *  undefined when `e` is neither or its cast would raise. */
function constantValue(e: ScalarExpr): { value: unknown } | undefined {
  if (e.kind === 'literal') return { value: e.value }
  if (e.kind !== 'cast' || e.arg.kind !== 'literal') return undefined
  if (e.arg.value === null) return { value: null }
  try {
    return { value: castValue(e.arg.value, e.arg.type === 'unknown' ? 'text' : e.arg.type, e.type) }
  } catch (err) {
    if (err instanceof RivuletError) return undefined
    throw err
  }
}

/** The value of a constant text argument (a literal, or a literal cast to text), NULL as
 *  null; undefined when the argument is not constant. */
function constantText(e: ScalarExpr | undefined): string | null | undefined {
  const v = e === undefined || (e.type !== 'text' && e.type !== 'unknown') ? undefined : constantValue(e)?.value
  return typeof v === 'string' || v === null ? v : undefined
}

/** 'int4_add' / 'int_add' / 'float_add' → 'add' (the id scheme names the operation last). */
function baseOp(id: string): string {
  const i = id.lastIndexOf('_')
  return i < 0 ? id : id.slice(i + 1)
}

/** Overload ids that are called even with NULL arguments. */
function build(body: string, g: Gen): (row: Row) => unknown {
  return buildWith<(row: Row) => unknown>('row', body, g)
}

/** Builds `function compiled(<params>) { return <body> }` over the run-time helpers. */
function buildWith<F>(params: string, body: string, g: Gen): F {
  const temps = Array.from({ length: g.temps }, (_, i) => `t${i}`)
  // memo variables start each row unset
  const memos = Array.from({ length: g.memos }, (_, i) => `m${i} = RT.U`)
  const all = [...temps, ...memos]
  const decl = all.length > 0 ? `let ${all.join(', ')};` : ''
  // constants (function implementations, compiled regexes, IN sets) are bound once to
  // closure constants, so V8 sees a fixed callee and can inline it
  const consts = g.consts.length > 0 ? `const ${g.consts.map((_, i) => `k${i} = K[${i}]`).join(', ')};` : ''
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function('RT', 'K', `"use strict"; ${consts} return function compiled(${params}) { ${decl} return ${body}; };`) as (rt: typeof RT, k: unknown[]) => F
  return factory(RT, g.consts)
}

/** Compiles one expression. */
export function compileScalar(e: ScalarExpr): RowFn {
  const g: Gen = { temps: 0, consts: [], memos: 0 }
  e = rewriteForCompile([e])[0]!
  findRepeatedCalls([e], g)
  return build(gen(e, g), g)
}

/** Compiles a predicate: true keeps the row; false and NULL drop it. */
export function compilePredicate(e: ScalarExpr): (row: Row) => boolean {
  const g: Gen = { temps: 0, consts: [], memos: 0 }
  e = rewriteForCompile([e])[0]!
  findRepeatedCalls([e], g)
  return build(`${gen(e, g)} === true`, g) as (row: Row) => boolean
}

/** Compiles a projection to one function building the output row. */
export function compileProjection(exprs: readonly ScalarExpr[]): (row: Row) => Row {
  const g: Gen = { temps: 0, consts: [], memos: 0 }
  exprs = rewriteForCompile(exprs)
  findRepeatedCalls(exprs, g)
  const parts = exprs.map((e) => gen(e, g))
  return build(`[${parts.join(', ')}]`, g) as (row: Row) => Row
}

/** Compiles a filter and the projection after it into one function: the projected row, or
 *  undefined when the predicate is not TRUE. A call in both (`0.908 * price` in WHERE and
 *  SELECT) is computed once per row. */
export function compileFilterProjection(pred: ScalarExpr, exprs: readonly ScalarExpr[]): (row: Row) => Row | undefined {
  const g: Gen = { temps: 0, consts: [], memos: 0 }
  const shared = rewriteForCompile([pred, ...exprs])
  pred = shared[0]!
  exprs = shared.slice(1)
  findRepeatedCalls([pred, ...exprs], g)
  const test = gen(pred, g)
  const parts = exprs.map((e) => gen(e, g))
  return build(`${test} === true ? [${parts.join(', ')}] : undefined`, g) as (row: Row) => Row | undefined
}

/** Compiles a projection over the concatenation of two rows, `l` (its first `leftWidth`
 *  columns) then `r`, without building the concatenated row: a join followed by a
 *  projection allocates only the projected row. */
export function compileJoinProjection(exprs: readonly ScalarExpr[], leftWidth: number): (l: Row, r: Row) => Row {
  const g: Gen = { temps: 0, consts: [], memos: 0, column: (i) => (i < leftWidth ? `l[${i}]` : `r[${i - leftWidth}]`) }
  exprs = rewriteForCompile(exprs)
  findRepeatedCalls(exprs, g)
  return buildWith<(l: Row, r: Row) => Row>('l, r', `[${exprs.map((e) => gen(e, g)).join(', ')}]`, g)
}

/** Evaluates a constant expression (no column references). */
export function evaluateConstant(e: ScalarExpr): unknown {
  return compileScalar(e)([])
}

// The planner's constant folding evaluates row-constant CASE conditions and quals with the
// same compiler (so an arm behind `WHEN <constant FALSE>` is dropped, as PostgreSQL does while
// planning); an expression that raises is left for the run time.
setConstantEvaluator((e) => {
  try {
    return { value: evaluateConstant(e) }
  } catch (err) {
    if (err instanceof RivuletError) return undefined
    throw err
  }
})
