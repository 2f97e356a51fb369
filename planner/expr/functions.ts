// The catalog of scalar functions and operators: overloads (types only — implementations
// live in src/sql-runtime/functions.ts, keyed by the same ids) and Postgres-style overload resolution,
// implicit/assignment/explicit cast rules, and common-supertype selection.
//
// ================================================================ OVERLOAD ID SCHEME
// Every overload has an `id`; src/sql-runtime/functions.ts FUNCTIONS[id] implements it. Several overloads
// may share one id when one JS implementation is right for all of them (e.g. `eq`).
// Run-time values follow planner/types.ts (ints/floats/numeric = JS numbers, date = days,
// timestamp = micros, interval = Interval object from src/sql-runtime/interval.ts).
//
// Arithmetic ids encode the RESULT type, so an implementation knows its bounds/rounding:
//   prefix  result type     ops
//   int2_   smallint        add sub mul div mod neg abs (div truncates toward zero;
//   int4_   integer         every op checks the result against INTEGER_BOUNDS[type] and
//   int8_   bigint          throws 22003 'smallint|integer|bigint out of range'; div/mod by 0
//                           throws 22012 'division by zero'); and bitwise: and or xor shl shr not
//   float4_ real            add sub mul div neg abs (result Math.fround'ed; overflow →
//   float8_ double          22003 'value out of range: overflow', underflow on mul/div →
//                           'value out of range: underflow'; x/0 → 22012 unless x is NaN)
//                           float8_pow (^ / power on doubles). No % for floats (as PG).
//   num_    numeric         add sub mul div mod neg abs pow (numeric is a JS double here; add/
//                           sub/mul round to the decimal scale of the operands as PG would)
// Operands of an arithmetic overload are both of the result type after the binder applies
// Resolved.argTypes (all number→number casts between numeric types are value-preserving at run
// time except to real (Math.fround) and to integer types (rounding + range check); widening
// casts int2→int4→int8→numeric→double are no-ops, so the code generator may skip them).
//
// Inlining guide for the code generator (a, b non-null):
//   intN_add/sub/mul : r = a op b; if (r < LO || r > HI) throw 22003 '<type> out of range'
//                      (exact for int8 too: a true result beyond ±(2^53−1) rounds to ≥ 2^53)
//   intN_div         : b === 0 → 22012; r = Math.trunc(a / b) then bounds check (min / −1);
//                      Math.trunc(a / b) is the exact quotient for all safe integers
//   intN_mod         : b === 0 → 22012; r = a % b (sign of dividend; -0 → 0 via `r + 0` or `|| 0`)
//   intN_neg         : r = -a, bounds check (−(−2^31) overflows)
//   float8_add/sub/mul/div: see FUNCTIONS (overflow/underflow checks); NaN/Infinity legal values
//   comparisons `eq ne lt le gt ge` (all comparable types except interval): arg types equal.
//     For smallint/integer/bigint/date/timestamp/boolean inline as === !== < <= > >= .
//     real/double/numeric: PG says NaN = NaN and NaN sorts above everything; JS operators do
//     not — inline only if NaN can be ignored, otherwise call FUNCTIONS.eq/lt/... .
//     text: === / !== are exact; < etc. on JS strings compare UTF-16 code units, which differs
//     from PG "C" collation (code points) for astral characters vs U+E000..U+FFFF, so order
//     texts with compareText (src/sql-runtime/value-order.ts), as FUNCTIONS.lt etc. do.
//   interval comparisons: interval_eq interval_ne interval_lt interval_le interval_gt
//     interval_ge (PG semantics: 1 mon = 30 days, 1 day = 24 h; '1 day' = '24:00:00').
//
// Other operator ids:
//   text_concat (||: text||text; a non-text operand is cast to text, bool → 'true'/'false')
//   like, ilike (text, pattern) and like_escape, ilike_escape (text, pattern, escape);
//     NOT LIKE is NOT(like). Default escape is backslash; '' disables escaping.
//   regex_match regex_imatch regex_nmatch regex_inmatch: the POSIX regular expression
//     operators ~ ~* !~ !~* (text, pattern) → boolean (PG textregexeq etc.).
//   date_add_int (date+int→date), int_add_date (int+date), date_sub_int, date_sub_date
//   (date−date → integer days), date_add_interval / interval_add_date / date_sub_interval
//   (→ timestamp), ts_add_interval / interval_add_ts / ts_sub_interval, ts_sub_ts (→ interval,
//   hours justified into days like PG), interval_add interval_sub interval_neg, interval_mul
//   (interval * double), float8_mul_interval (double * interval), interval_div (interval / double).
//   jsonb (src/sql-runtime/jsonb-*.ts): jsonb_field / jsonb_element (->), jsonb_field_text /
//   jsonb_element_text (->>), jsonb_path / jsonb_path_text (#> #>>), jsonb_contains /
//   jsonb_contained (@> <@), jsonb_exists[_any|_all] (? ?| ?&), jsonb_concat (||, with an
//   unknown side read as jsonb), jsonb_delete_key / _index / _keys (-), jsonb_delete_path (#-).
//
// Function ids: `<name>` when there is one overload, else `<name>_<type tag>` with tags
// int2 int4 int8 float4 float8 num ts date interval (e.g. round_num, round_float8, ceil_num),
// or `<name><arity>` for text functions with optional args (btrim1, btrim2, lpad3). abs and
// mod belong to the arithmetic family (int4_abs, float8_abs, num_abs, int4_mod, num_mod).
// The full list is the def(...) table below; every id has an implementation in
// src/sql-runtime/functions.ts (test/src/functions.test.ts checks this).
//
// Variadic/polymorphic: greatest, least (common supertype of the args; non-strict: NULLs
// ignored, NULL only if all are NULL; intervals compared by PG semantics), concat
// (non-strict, NULLs skipped), concat_ws (NULL separator → NULL, NULL args skipped). For
// concat/concat_ws Resolved.argTypes casts every non-text argument to text EXCEPT boolean,
// which stays boolean: PG's concat renders booleans with the output function ('t'/'f'),
// while a boolean → text cast gives 'true'/'false'. The implementations handle booleans.
//
// EXTRACT(field FROM x) is bound as a call to 'extract' with args (text literal field, x):
// extract_ts / extract_date / extract_interval → numeric (PG 14+). date_part(text, x) is the
// double precision variant (date_part_ts / date_part_interval; a date is cast to timestamp).
// POSITION(sub IN s) is parsed as position(s, sub) — PG's internal order, the same as strpos.
// TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) binds to btrim/ltrim/rtrim(s[, chars]).
// SUBSTRING(s FROM a FOR b) binds to substring(s, a, b); substring(s FROM pattern) with a text
// pattern is substring_regex (an unknown literal resolves to it, as in PG: '3' is a pattern).
// Regular expression functions (PG 15; argument 1 is always the pattern, see src/sql-runtime/regex.ts):
// regexp_replace (s, p, r [, flags]), regexp_replace_at (s, p, r, start [, N [, flags]]),
// regexp_like (s, p [, flags]), regexp_count (s, p [, start [, flags]]),
// regexp_substr (s, p [, start [, N [, flags [, subexpr]]]]),
// regexp_instr (s, p [, start [, N [, endoption [, flags [, subexpr]]]]]).
//
// Volatile functions (now, current_timestamp, localtimestamp, current_date, clock_timestamp,
// random) are marked `volatile: true`; NULLIF and COALESCE are handled by the binder.

import { arrayOf, elementType, isArrayType, type ArrayType, type SqlType } from '../types.js'

export interface Overload {
  readonly id: string
  readonly name: string
  readonly args: readonly SqlType[]
  /** Trailing variadic parameter type (any number ≥ 0 of extra args of this type). */
  readonly variadic?: SqlType
  readonly returns: SqlType
  /** true: any NULL argument → NULL result without calling the implementation. */
  readonly strict: boolean
  /** Non-deterministic (now(), random()): never constant-fold, never part of a key. */
  readonly volatile?: boolean
  /** Its result depends on the session's TimeZone (PostgreSQL's STABLE timestamptz
   *  functions): the implementation takes the zone as one more, last argument. */
  readonly zone?: boolean
}

export interface Resolved {
  readonly overload: Overload
  /** The type each actual argument must be cast to (same length as the actual args). */
  readonly argTypes: readonly SqlType[]
}

// ---------------------------------------------------------------------------------- casts

/** PostgreSQL's type categories; 'X' is its 'U' (user-defined: uuid, bytea) and 'J' jsonb's
 *  (also 'U' there), as 'U' is taken here by the unknown type. */
type Category = 'N' | 'S' | 'B' | 'D' | 'T' | 'U' | 'A' | 'X' | 'J'

export function typeCategory(t: SqlType): Category {
  if (isArrayType(t)) return 'A'
  switch (t) {
    case 'smallint':
    case 'integer':
    case 'bigint':
    case 'numeric':
    case 'real':
    case 'double':
      return 'N'
    case 'text':
    case 'bpchar':
      return 'S'
    case 'boolean':
      return 'B'
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
      return 'D'
    case 'interval':
      return 'T'
    case 'uuid':
    case 'bytea':
      return 'X'
    case 'jsonb':
      return 'J'
    case 'unknown':
      return 'U'
  }
}

/** Preferred type of its category (PG typispreferred). */
export function isPreferredType(t: SqlType): boolean {
  return t === 'double' || t === 'text' || t === 'timestamptz' || t === 'interval' || t === 'boolean'
}

const NUM_RANK: Partial<Record<SqlType, number>> = { smallint: 1, integer: 2, bigint: 3, numeric: 4, real: 5, double: 6 }

/** PG implicit casts (usable in expressions without CAST): numeric promotions
 *  smallint→integer→bigint→numeric→real→double, date→timestamp→timestamptz, time→interval,
 *  unknown→anything. */
export function canImplicitCast(from: SqlType, to: SqlType): boolean {
  if (from === to || from === 'unknown') return true
  // an array converts as its elements do (PostgreSQL's array coercion)
  if (isArrayType(from) || isArrayType(to)) return isArrayType(from) && isArrayType(to) && canImplicitCast(elementType(from), elementType(to))
  const a = NUM_RANK[from]
  const b = NUM_RANK[to]
  if (a !== undefined && b !== undefined) return a < b
  // CHAR(n) reads as text without its trailing spaces
  if (from === 'bpchar' && to === 'text') return true
  if (from === 'date') return to === 'timestamp' || to === 'timestamptz'
  if (from === 'timestamp') return to === 'timestamptz'
  return from === 'time' && to === 'interval'
}

/** PG assignment casts (INSERT/UPDATE targets) on top of the implicit ones: numeric narrowing
 *  (with rounding and range checks), timestamp[tz]→date, timestamp[tz]→time, timestamptz→
 *  timestamp, interval→time, and anything→text. */
export function canAssignmentCast(from: SqlType, to: SqlType): boolean {
  if (canImplicitCast(from, to)) return true
  if (isArrayType(from) && isArrayType(to)) return canAssignmentCast(elementType(from), elementType(to))
  if (to === 'text' || to === 'bpchar') return true
  if (NUM_RANK[from] !== undefined && NUM_RANK[to] !== undefined) return true
  if (from === 'timestamp' || from === 'timestamptz') return to === 'date' || to === 'time' || to === 'timestamp'
  return from === 'interval' && to === 'time'
}

/** Casts whose result depends on the session's TimeZone (PostgreSQL's STABLE casts): between
 *  timestamptz and a local time or its text. */
export function isZoneDependentCast(from: SqlType, to: SqlType): boolean {
  if (from === to) return false
  const local = (t: SqlType) => t === 'text' || t === 'unknown' || t === 'bpchar' || t === 'date' || t === 'timestamp' || t === 'time'
  return (from === 'timestamptz' && local(to)) || (to === 'timestamptz' && local(from)) || (isArrayType(from) && isArrayType(to) && isZoneDependentCast(elementType(from), elementType(to)))
}

/** `explicit` true: CAST / `::` rules. false: the rules for storing a value into a column of
 *  type `to` (PG assignment context, a superset of the implicit promotions — use
 *  canImplicitCast for the narrower expression context). */
export function canCast(from: SqlType, to: SqlType, explicit: boolean): boolean {
  if (!explicit) return canAssignmentCast(from, to)
  if (canAssignmentCast(from, to)) return true
  if (isArrayType(from) && isArrayType(to)) return canCast(elementType(from), elementType(to), true)
  if (isArrayType(from)) return false
  if (from === 'text' || from === 'bpchar') return to !== 'unknown' // I/O conversion: text → any type
  // jsonb → the number or boolean it holds (22023 at run time when it holds another kind)
  if (from === 'jsonb') return NUM_RANK[to] !== undefined || to === 'boolean'
  if (from === 'boolean') return to === 'integer'
  if (to === 'boolean') return from === 'integer'
  if (from === 'date' && to === 'timestamp') return true
  // bytea, uuid and the date/time types convert to text and back through their text forms
  return false
}

/** Common type for CASE/COALESCE/UNION/IN/VALUES (PG select_common_type): all unknown → text;
 *  unknowns adopt the others' type; within one category the type every other one implicitly
 *  casts to (preferred type wins); mixed categories → undefined. */
export function commonSupertype(types: readonly SqlType[]): SqlType | undefined {
  let p: SqlType | undefined
  for (const t of types) {
    if (t === 'unknown') continue
    if (p === undefined) {
      p = t
      continue
    }
    if (t === p) continue
    if (typeCategory(t) !== typeCategory(p)) return undefined
    if (isPreferredType(p)) continue
    if (canImplicitCast(p, t) && (isPreferredType(t) || !canImplicitCast(t, p))) p = t
  }
  if (p === undefined) return types.length === 0 ? undefined : 'text'
  // every input must be implicitly castable to the winner
  for (const t of types) if (!canImplicitCast(t, p)) return undefined
  return p
}

// ---------------------------------------------------------------------------------- catalog

const OVERLOADS: Overload[] = []
const BY_NAME = new Map<string, Overload[]>()

function def(
  id: string,
  names: string | readonly string[],
  args: readonly SqlType[],
  returns: SqlType,
  opts: { strict?: boolean; variadic?: SqlType; volatile?: boolean; zone?: boolean } = {},
): void {
  for (const name of typeof names === 'string' ? [names] : names) {
    const o: Overload = {
      id,
      name,
      args,
      returns,
      // zero-argument functions have nothing to be NULL: marked non-strict so callers can skip
      // the NULL check entirely
      strict: opts.strict ?? (args.length > 0 || opts.variadic !== undefined),
      ...(opts.variadic !== undefined ? { variadic: opts.variadic } : {}),
      ...(opts.volatile ? { volatile: true } : {}),
      ...(opts.zone ? { zone: true } : {}),
    }
    OVERLOADS.push(o)
    let list = BY_NAME.get(name)
    if (list === undefined) BY_NAME.set(name, (list = []))
    list.push(o)
  }
}

type Num = 'smallint' | 'integer' | 'bigint' | 'numeric' | 'real' | 'double'
const NUM_TAG: Record<Num, string> = { smallint: 'int2', integer: 'int4', bigint: 'int8', numeric: 'num', real: 'float4', double: 'float8' }
const INTS = ['smallint', 'integer', 'bigint'] as const
const ALL_NUM: readonly Num[] = ['smallint', 'integer', 'bigint', 'numeric', 'real', 'double']
const COMPARABLE: readonly SqlType[] = ['boolean', 'smallint', 'integer', 'bigint', 'numeric', 'real', 'double', 'text', 'date', 'timestamp', 'timestamptz', 'time', 'uuid', 'bytea', 'jsonb']

// arithmetic operators
for (const t of ALL_NUM) {
  const g = NUM_TAG[t]
  def(`${g}_add`, '+', [t, t], t)
  def(`${g}_sub`, '-', [t, t], t)
  def(`${g}_mul`, '*', [t, t], t)
  def(`${g}_div`, '/', [t, t], t)
  if (t !== 'real' && t !== 'double') def(`${g}_mod`, ['%', 'mod'], [t, t], t)
  def(`${g}_neg`, 'u-', [t], t)
  def(`${g}_pos`, 'u+', [t], t)
  def(`${g}_abs`, ['abs', '@'], [t], t)
}
// PG's float48/float84 cross operators: real op double → double (so int + real → double)
for (const op of ['add', 'sub', 'mul', 'div'] as const) {
  const sym = { add: '+', sub: '-', mul: '*', div: '/' }[op]
  def(`float8_${op}`, sym, ['real', 'double'], 'double')
  def(`float8_${op}`, sym, ['double', 'real'], 'double')
}
for (const t of INTS) {
  const g = NUM_TAG[t]
  def(`${g}_and`, '&', [t, t], t)
  def(`${g}_or`, '|', [t, t], t)
  def(`${g}_xor`, '#', [t, t], t)
  def(`${g}_shl`, '<<', [t, 'integer'], t)
  def(`${g}_shr`, '>>', [t, 'integer'], t)
  def(`${g}_not`, 'u~', [t], t)
}
def('float8_pow', ['^', 'power', 'pow'], ['double', 'double'], 'double')
def('num_pow', ['^', 'power', 'pow'], ['numeric', 'numeric'], 'numeric')

// comparisons
const CMP = [
  ['eq', '='],
  ['ne', '<>'],
  ['lt', '<'],
  ['le', '<='],
  ['gt', '>'],
  ['ge', '>='],
] as const
for (const [id, op] of CMP) {
  for (const t of COMPARABLE) def(id, op, [t, t], 'boolean')
  def(`interval_${id}`, op, ['interval', 'interval'], 'boolean')
  def(`bpchar_${id}`, op, ['bpchar', 'bpchar'], 'boolean')
}
// cross-type comparisons PG has (int vs bigint etc. are exact after widening; these keep
// real vs double comparisons in double)
for (const [id, op] of CMP) {
  def(id, op, ['real', 'double'], 'boolean')
  def(id, op, ['double', 'real'], 'boolean')
}

// text operators
def('text_concat', '||', ['text', 'text'], 'text')
def('like', ['~~', 'like'], ['text', 'text'], 'boolean')
def('like_escape', 'like', ['text', 'text', 'text'], 'boolean')
def('ilike', ['~~*', 'ilike'], ['text', 'text'], 'boolean')
def('ilike_escape', 'ilike', ['text', 'text', 'text'], 'boolean')
def('regex_match', '~', ['text', 'text'], 'boolean')
def('regex_imatch', '~*', ['text', 'text'], 'boolean')
def('regex_nmatch', '!~', ['text', 'text'], 'boolean')
def('regex_inmatch', '!~*', ['text', 'text'], 'boolean')

// jsonb operators and functions (src/sql-runtime/jsonb-*.ts); `||` is resolveJsonbConcat's
def('jsonb_field', '->', ['jsonb', 'text'], 'jsonb')
def('jsonb_element', '->', ['jsonb', 'integer'], 'jsonb')
def('jsonb_field_text', '->>', ['jsonb', 'text'], 'text')
def('jsonb_element_text', '->>', ['jsonb', 'integer'], 'text')
def('jsonb_path', '#>', ['jsonb', 'text[]'], 'jsonb')
def('jsonb_path_text', '#>>', ['jsonb', 'text[]'], 'text')
def('jsonb_contains', '@>', ['jsonb', 'jsonb'], 'boolean')
def('jsonb_contained', '<@', ['jsonb', 'jsonb'], 'boolean')
def('jsonb_exists', '?', ['jsonb', 'text'], 'boolean')
def('jsonb_exists_any', '?|', ['jsonb', 'text[]'], 'boolean')
def('jsonb_exists_all', '?&', ['jsonb', 'text[]'], 'boolean')
def('jsonb_delete_key', '-', ['jsonb', 'text'], 'jsonb')
def('jsonb_delete_index', '-', ['jsonb', 'integer'], 'jsonb')
def('jsonb_delete_keys', '-', ['jsonb', 'text[]'], 'jsonb')
def('jsonb_delete_path', '#-', ['jsonb', 'text[]'], 'jsonb')
def('jsonb_concat', 'jsonb_concat', ['jsonb', 'jsonb'], 'jsonb')
def('jsonb_extract_path', 'jsonb_extract_path', ['jsonb'], 'jsonb', { variadic: 'text' })
def('jsonb_extract_path_text', 'jsonb_extract_path_text', ['jsonb'], 'text', { variadic: 'text' })
def('jsonb_set', 'jsonb_set', ['jsonb', 'text[]', 'jsonb'], 'jsonb')
def('jsonb_set', 'jsonb_set', ['jsonb', 'text[]', 'jsonb', 'boolean'], 'jsonb')
def('jsonb_insert', 'jsonb_insert', ['jsonb', 'text[]', 'jsonb'], 'jsonb')
def('jsonb_insert', 'jsonb_insert', ['jsonb', 'text[]', 'jsonb', 'boolean'], 'jsonb')
def('jsonb_typeof', 'jsonb_typeof', ['jsonb'], 'text')
def('jsonb_array_length', 'jsonb_array_length', ['jsonb'], 'integer')
def('jsonb_strip_nulls', 'jsonb_strip_nulls', ['jsonb'], 'jsonb')
def('jsonb_pretty', 'jsonb_pretty', ['jsonb'], 'text')

// date/time operators
def('date_add_int', '+', ['date', 'integer'], 'date')
def('int_add_date', '+', ['integer', 'date'], 'date')
def('date_sub_int', '-', ['date', 'integer'], 'date')
def('date_sub_date', '-', ['date', 'date'], 'integer')
def('date_add_interval', '+', ['date', 'interval'], 'timestamp')
def('interval_add_date', '+', ['interval', 'date'], 'timestamp')
def('date_sub_interval', '-', ['date', 'interval'], 'timestamp')
def('ts_add_interval', '+', ['timestamp', 'interval'], 'timestamp')
def('interval_add_ts', '+', ['interval', 'timestamp'], 'timestamp')
def('ts_sub_interval', '-', ['timestamp', 'interval'], 'timestamp')
def('ts_sub_ts', '-', ['timestamp', 'timestamp'], 'interval')
def('interval_add', '+', ['interval', 'interval'], 'interval')
def('interval_sub', '-', ['interval', 'interval'], 'interval')
def('interval_neg', 'u-', ['interval'], 'interval')
def('interval_mul', '*', ['interval', 'double'], 'interval')
def('float8_mul_interval', '*', ['double', 'interval'], 'interval')
def('interval_div', '/', ['interval', 'double'], 'interval')

// math functions
for (const t of ['numeric', 'double'] as const) {
  const g = NUM_TAG[t]
  def(`ceil_${g}`, ['ceil', 'ceiling'], [t], t)
  def(`floor_${g}`, 'floor', [t], t)
  def(`round_${g}`, 'round', [t], t)
  def(`trunc_${g}`, 'trunc', [t], t)
  def(`sign_${g}`, 'sign', [t], t)
  def(`sqrt_${g}`, 'sqrt', [t], t)
  def(`exp_${g}`, 'exp', [t], t)
  def(`ln_${g}`, 'ln', [t], t)
  def(`log10_${g}`, ['log', 'log10'], [t], t)
}
def('round_num_int', 'round', ['numeric', 'integer'], 'numeric')
def('trunc_num_int', 'trunc', ['numeric', 'integer'], 'numeric')
def('log_num_num', 'log', ['numeric', 'numeric'], 'numeric')
def('pi', 'pi', [], 'double')
def('random', 'random', [], 'double', { volatile: true })
for (const f of ['sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'degrees', 'radians'] as const) def(f, f, ['double'], 'double')
def('atan2', 'atan2', ['double', 'double'], 'double')
def('div_num', 'div', ['numeric', 'numeric'], 'numeric')

// string functions
def('length', ['length', 'char_length', 'character_length'], ['text'], 'integer')
def('octet_length', 'octet_length', ['text'], 'integer')
def('bit_length', 'bit_length', ['text'], 'integer')
def('lower', 'lower', ['text'], 'text')
def('upper', 'upper', ['text'], 'text')
def('substring2', ['substring', 'substr'], ['text', 'integer'], 'text')
def('substring3', ['substring', 'substr'], ['text', 'integer', 'integer'], 'text')
def('substring_regex', 'substring', ['text', 'text'], 'text')
def('position', 'position', ['text', 'text'], 'integer')
def('strpos', 'strpos', ['text', 'text'], 'integer')
def('replace', 'replace', ['text', 'text', 'text'], 'text')
def('btrim1', ['btrim', 'trim'], ['text'], 'text')
def('btrim2', ['btrim', 'trim'], ['text', 'text'], 'text')
def('ltrim1', 'ltrim', ['text'], 'text')
def('ltrim2', 'ltrim', ['text', 'text'], 'text')
def('rtrim1', 'rtrim', ['text'], 'text')
def('rtrim2', 'rtrim', ['text', 'text'], 'text')
def('lpad2', 'lpad', ['text', 'integer'], 'text')
def('lpad3', 'lpad', ['text', 'integer', 'text'], 'text')
def('rpad2', 'rpad', ['text', 'integer'], 'text')
def('rpad3', 'rpad', ['text', 'integer', 'text'], 'text')
def('left', 'left', ['text', 'integer'], 'text')
def('right', 'right', ['text', 'integer'], 'text')
def('split_part', 'split_part', ['text', 'text', 'integer'], 'text')
def('repeat', 'repeat', ['text', 'integer'], 'text')
def('reverse', 'reverse', ['text'], 'text')
def('initcap', 'initcap', ['text'], 'text')
def('starts_with', 'starts_with', ['text', 'text'], 'boolean')
def('md5', 'md5', ['text'], 'text')
// format_type(type oid, typmod): the name of a type as pg_catalog spells it (a NULL typmod is
// none: non-strict)
def('format_type', 'format_type', ['bigint', 'integer'], 'text', { strict: false })
// string_to_array(s, delimiter [, null string]): non-strict (a NULL delimiter splits into
// characters)
def('string_to_array', 'string_to_array', ['text', 'text'], 'text[]', { strict: false })
def('string_to_array_null', 'string_to_array', ['text', 'text', 'text'], 'text[]', { strict: false })
def('ascii', 'ascii', ['text'], 'integer')
def('pg_size_pretty', 'pg_size_pretty', ['bigint'], 'text')
def('chr', 'chr', ['integer'], 'text')
def('translate', 'translate', ['text', 'text', 'text'], 'text')

// regular expression functions (PG 15)
{
  const T3: SqlType[] = ['text', 'text', 'text']
  def('regexp_replace', 'regexp_replace', T3, 'text')
  def('regexp_replace', 'regexp_replace', [...T3, 'text'], 'text')
  def('regexp_replace_at', 'regexp_replace', [...T3, 'integer'], 'text')
  def('regexp_replace_at', 'regexp_replace', [...T3, 'integer', 'integer'], 'text')
  def('regexp_replace_at', 'regexp_replace', [...T3, 'integer', 'integer', 'text'], 'text')
  def('regexp_like', 'regexp_like', ['text', 'text'], 'boolean')
  def('regexp_like', 'regexp_like', T3, 'boolean')
  const opt = (id: string, required: SqlType[], optional: SqlType[], returns: SqlType) => {
    for (let k = 0; k <= optional.length; k++) def(id, id, [...required, ...optional.slice(0, k)], returns)
  }
  opt('regexp_count', ['text', 'text'], ['integer', 'text'], 'integer')
  opt('regexp_substr', ['text', 'text'], ['integer', 'integer', 'text', 'integer'], 'text')
  opt('regexp_instr', ['text', 'text'], ['integer', 'integer', 'integer', 'text', 'integer'], 'integer')
}

// date/time functions
def('now', ['now', 'current_timestamp', 'transaction_timestamp', 'statement_timestamp'], [], 'timestamptz', { volatile: true })
def('localtimestamp', 'localtimestamp', [], 'timestamp', { volatile: true, zone: true })
def('localtime', 'localtime', [], 'time', { volatile: true, zone: true })
def('clock_timestamp', 'clock_timestamp', [], 'timestamptz', { volatile: true })
def('current_date', 'current_date', [], 'date', { volatile: true, zone: true })
def('date_trunc_ts', 'date_trunc', ['text', 'timestamp'], 'timestamp')
def('date_trunc_interval', 'date_trunc', ['text', 'interval'], 'interval')
def('date_part_ts', 'date_part', ['text', 'timestamp'], 'double')
def('date_part_interval', 'date_part', ['text', 'interval'], 'double')
def('extract_ts', 'extract', ['text', 'timestamp'], 'numeric')
def('extract_date', 'extract', ['text', 'date'], 'numeric')
def('extract_interval', 'extract', ['text', 'interval'], 'numeric')
def('to_timestamp', 'to_timestamp', ['double'], 'timestamptz')
def('date_bin', 'date_bin', ['interval', 'timestamp', 'timestamp'], 'timestamp')
def('make_date', 'make_date', ['integer', 'integer', 'integer'], 'date')
def('make_timestamp', 'make_timestamp', ['integer', 'integer', 'integer', 'integer', 'integer', 'double'], 'timestamp')
{
  const mi: SqlType[] = ['integer', 'integer', 'integer', 'integer', 'integer', 'integer', 'double']
  for (let k = 0; k <= mi.length; k++) def('make_interval', 'make_interval', mi.slice(0, k), 'interval')
}
def('justify_days', 'justify_days', ['interval'], 'interval')
def('justify_hours', 'justify_hours', ['interval'], 'interval')
def('justify_interval', 'justify_interval', ['interval'], 'interval')
def('age', 'age', ['timestamp', 'timestamp'], 'interval')
def('age_now', 'age', ['timestamp'], 'interval', { volatile: true })
def('ts_to_date', 'date', ['timestamp'], 'date') // function-style cast date(x)
def('isfinite_ts', 'isfinite', ['timestamp'], 'boolean')
def('isfinite_date', 'isfinite', ['date'], 'boolean')
def('isfinite_interval', 'isfinite', ['interval'], 'boolean')
def('cbrt', 'cbrt', ['double'], 'double')
def('to_char_ts', 'to_char', ['timestamp', 'text'], 'text')

// timestamp with time zone (src/sql-runtime/timestamptz-functions.ts). Those marked `zone`
// work in the session's TimeZone (PostgreSQL's STABLE ones): calendar units in local time.
def('tstz_add_interval', '+', ['timestamptz', 'interval'], 'timestamptz', { zone: true })
def('interval_add_tstz', '+', ['interval', 'timestamptz'], 'timestamptz', { zone: true })
def('tstz_sub_interval', '-', ['timestamptz', 'interval'], 'timestamptz', { zone: true })
def('tstz_sub_tstz', '-', ['timestamptz', 'timestamptz'], 'interval')
def('date_trunc_tstz', 'date_trunc', ['text', 'timestamptz'], 'timestamptz', { zone: true })
def('date_trunc_tstz_at', 'date_trunc', ['text', 'timestamptz', 'text'], 'timestamptz')
def('date_part_tstz', 'date_part', ['text', 'timestamptz'], 'double', { zone: true })
def('extract_tstz', 'extract', ['text', 'timestamptz'], 'numeric', { zone: true })
def('timezone_tstz', 'timezone', ['text', 'timestamptz'], 'timestamp')
def('timezone_ts', 'timezone', ['text', 'timestamp'], 'timestamptz')
def('timezone_interval_tstz', 'timezone', ['interval', 'timestamptz'], 'timestamp')
def('timezone_interval_ts', 'timezone', ['interval', 'timestamp'], 'timestamptz')
def('age_tstz', 'age', ['timestamptz', 'timestamptz'], 'interval', { zone: true })
def('tstz_to_date', 'date', ['timestamptz'], 'date', { zone: true })
def('isfinite_tstz', 'isfinite', ['timestamptz'], 'boolean')
def('to_char_tstz', 'to_char', ['timestamptz', 'text'], 'text', { zone: true })
def('date_bin_tstz', 'date_bin', ['interval', 'timestamptz', 'timestamptz'], 'timestamptz')
def('make_timestamptz', 'make_timestamptz', ['integer', 'integer', 'integer', 'integer', 'integer', 'double'], 'timestamptz', { zone: true })
def('make_timestamptz_at', 'make_timestamptz', ['integer', 'integer', 'integer', 'integer', 'integer', 'double', 'text'], 'timestamptz')

// time without time zone (src/sql-runtime/time-of-day.ts)
def('time_add_interval', '+', ['time', 'interval'], 'time')
def('interval_add_time', '+', ['interval', 'time'], 'time')
def('time_sub_interval', '-', ['time', 'interval'], 'time')
def('time_sub_time', '-', ['time', 'time'], 'interval')
def('date_add_time', '+', ['date', 'time'], 'timestamp')
def('time_add_date', '+', ['time', 'date'], 'timestamp')
def('date_part_time', 'date_part', ['text', 'time'], 'double')
def('extract_time', 'extract', ['text', 'time'], 'numeric')
def('make_time', 'make_time', ['integer', 'integer', 'double'], 'time')

// uuid (src/sql-runtime/uuid.ts)
def('gen_random_uuid', 'gen_random_uuid', [], 'uuid', { volatile: true })

// bytea (src/sql-runtime/bytea.ts)
def('bytea_concat', '||', ['bytea', 'bytea'], 'bytea')
def('bytea_length', ['length', 'octet_length'], ['bytea'], 'integer')
def('bytea_substring2', ['substring', 'substr'], ['bytea', 'integer'], 'bytea')
def('bytea_substring3', ['substring', 'substr'], ['bytea', 'integer', 'integer'], 'bytea')
def('encode', 'encode', ['bytea', 'text'], 'text')
def('decode', 'decode', ['text', 'text'], 'bytea')
def('md5_bytea', 'md5', ['bytea'], 'text')
def('sha224', 'sha224', ['bytea'], 'bytea')
def('sha256', 'sha256', ['bytea'], 'bytea')
def('sha384', 'sha384', ['bytea'], 'bytea')
def('sha512', 'sha512', ['bytea'], 'bytea')
def('get_byte', 'get_byte', ['bytea', 'integer'], 'integer')

// Polymorphic (resolved specially in resolveFunction; listed here so ALL_OVERLOADS shows their
// ids and non-strictness). 'unknown' as the variadic type stands for "any type".
const POLYMORPHIC: readonly Overload[] = [
  { id: 'greatest', name: 'greatest', args: [], variadic: 'unknown', returns: 'unknown', strict: false },
  { id: 'least', name: 'least', args: [], variadic: 'unknown', returns: 'unknown', strict: false },
  { id: 'concat', name: 'concat', args: [], variadic: 'unknown', returns: 'text', strict: false },
  { id: 'concat_ws', name: 'concat_ws', args: ['text'], variadic: 'unknown', returns: 'text', strict: false },
  // arrays (src/sql-runtime/array-functions.ts): 'text[]' stands for any array type, 'unknown' for its
  // element type; resolved by resolveArrayFunction
  ...['eq', 'ne', 'lt', 'le', 'gt', 'ge'].map((op): Overload => ({ id: `array_${op}`, name: `array_${op}`, args: ['text[]', 'text[]'], returns: 'boolean', strict: true })),
  { id: 'array_construct', name: 'array', args: [], variadic: 'unknown', returns: 'text[]', strict: false },
  { id: 'array_subscript', name: 'array_subscript', args: ['text[]', 'integer'], returns: 'unknown', strict: true },
  { id: 'array_any', name: 'array_any', args: ['text', 'unknown', 'text[]'], returns: 'boolean', strict: false },
  { id: 'array_all', name: 'array_all', args: ['text', 'unknown', 'text[]'], returns: 'boolean', strict: false },
  { id: 'array_cat', name: 'array_cat', args: ['text[]', 'text[]'], returns: 'text[]', strict: false },
  { id: 'array_append', name: 'array_append', args: ['text[]', 'unknown'], returns: 'text[]', strict: false },
  { id: 'array_prepend', name: 'array_prepend', args: ['unknown', 'text[]'], returns: 'text[]', strict: false },
  { id: 'array_length', name: 'array_length', args: ['text[]', 'integer'], returns: 'integer', strict: true },
  { id: 'array_lower', name: 'array_lower', args: ['text[]', 'integer'], returns: 'integer', strict: true },
  { id: 'array_upper', name: 'array_upper', args: ['text[]', 'integer'], returns: 'integer', strict: true },
  { id: 'cardinality', name: 'cardinality', args: ['text[]'], returns: 'integer', strict: true },
  { id: 'array_to_string', name: 'array_to_string', args: ['text[]', 'text'], returns: 'text', strict: true },
  { id: 'array_to_string_null', name: 'array_to_string', args: ['text[]', 'text', 'text'], returns: 'text', strict: false },
  { id: 'array_position', name: 'array_position', args: ['text[]', 'unknown'], returns: 'integer', strict: false },
  { id: 'array_remove', name: 'array_remove', args: ['text[]', 'unknown'], returns: 'text[]', strict: false },
  // generate_series in FROM (resolveSeries): the array of the series' values
  { id: 'generate_series_int', name: 'generate_series', args: ['integer', 'integer'], variadic: 'integer', returns: 'integer[]', strict: true },
  { id: 'generate_series_int8', name: 'generate_series', args: ['bigint', 'bigint'], variadic: 'bigint', returns: 'bigint[]', strict: true },
  { id: 'generate_series_num', name: 'generate_series', args: ['numeric', 'numeric'], variadic: 'numeric', returns: 'numeric[]', strict: true },
  { id: 'generate_series_ts', name: 'generate_series', args: ['timestamp', 'timestamp', 'interval'], returns: 'timestamp[]', strict: true },
  { id: 'generate_series_tstz', name: 'generate_series', args: ['timestamptz', 'timestamptz', 'interval'], returns: 'timestamptz[]', strict: true, zone: true },
  // jsonb of any value (planner/bind/bind-jsonb.ts): each argument beside its type's name;
  // 'unknown' stands for any type
  { id: 'to_jsonb', name: 'to_jsonb', args: ['unknown', 'text'], returns: 'jsonb', strict: true },
  { id: 'jsonb_build_object', name: 'jsonb_build_object', args: [], variadic: 'unknown', returns: 'jsonb', strict: false },
  { id: 'jsonb_build_array', name: 'jsonb_build_array', args: [], variadic: 'unknown', returns: 'jsonb', strict: false },
  // the set-returning jsonb functions in FROM (resolveJsonbSetFunction): the array unnested
  { id: 'jsonb_array_elements', name: 'jsonb_array_elements', args: ['jsonb'], returns: 'jsonb[]', strict: true },
  { id: 'jsonb_array_elements_text', name: 'jsonb_array_elements_text', args: ['jsonb'], returns: 'text[]', strict: true },
  { id: 'jsonb_object_keys', name: 'jsonb_object_keys', args: ['jsonb'], returns: 'text[]', strict: true },
  { id: 'jsonb_each_keys', name: 'jsonb_each', args: ['jsonb'], returns: 'text[]', strict: true },
  { id: 'jsonb_each_text_keys', name: 'jsonb_each_text', args: ['jsonb'], returns: 'text[]', strict: true },
]

const ARRAY_TEMPLATES = new Map(POLYMORPHIC.filter((o) => o.id.startsWith('array_') || o.id === 'cardinality').map((o) => [o.id, o]))

/** An array function's overload for actual types (its 'text[]' and 'unknown' placeholders
 *  made the array type and its element type). */
function arrayOverload(id: string, array: ArrayType, argTypes: readonly SqlType[]): Resolved {
  const o = ARRAY_TEMPLATES.get(id)!
  const elem = elementType(array)
  const subst = (t: SqlType): SqlType => (t === 'text[]' ? array : t === 'unknown' ? elem : t)
  const overload: Overload = { ...o, args: o.args.map(subst), returns: subst(o.returns) }
  return { overload, argTypes: argTypes.map((_, i) => overload.args[i] ?? elem) }
}

/** The one array type of array (and unknown) arguments, or undefined: as PostgreSQL's
 *  anyarray, two arrays must have the same type (int[] = numeric[] does not exist). */
function commonArray(types: readonly SqlType[]): ArrayType | undefined {
  const known = types.filter((t) => t !== 'unknown')
  const t = known[0]
  return t !== undefined && isArrayType(t) && known.every((k) => k === t) ? t : undefined
}

/** The array type whose elements `element` and an array's elements `array` share. */
function arrayWithElement(array: SqlType, element: SqlType): ArrayType | undefined {
  if (!isArrayType(array)) return undefined
  const e = commonSupertype([elementType(array), element])
  return e === undefined || isArrayType(e) ? undefined : arrayOf(e)
}

/** Resolves the array functions (anyarray in PostgreSQL), or undefined for other names. */
export function resolveArrayFunction(name: string, argTypes: readonly SqlType[]): Resolved | undefined {
  const [a, b] = argTypes
  switch (name) {
    case 'array_length':
    case 'array_lower':
    case 'array_upper':
      return argTypes.length === 2 && a !== undefined && isArrayType(a) && canImplicitCast(b!, 'integer') ? arrayOverload(name, a, argTypes) : undefined
    case 'cardinality':
      return argTypes.length === 1 && isArrayType(a!) ? arrayOverload(name, a, argTypes) : undefined
    case 'array_to_string': {
      if ((argTypes.length !== 2 && argTypes.length !== 3) || !isArrayType(a!)) return undefined
      if (!argTypes.slice(1).every((t) => canImplicitCast(t, 'text'))) return undefined
      // the elements as their text, by a cast of the array to text[]
      return arrayOverload(argTypes.length === 2 ? 'array_to_string' : 'array_to_string_null', 'text[]', argTypes)
    }
    case 'array_cat': {
      const t = argTypes.length === 2 ? commonArray(argTypes) : undefined
      return t === undefined ? undefined : arrayOverload(name, t, argTypes)
    }
    case 'array_append':
    case 'array_position':
    case 'array_remove': {
      const t = argTypes.length === 2 ? arrayWithElement(a!, b!) : undefined
      return t === undefined ? undefined : arrayOverload(name, t, argTypes)
    }
    case 'array_prepend': {
      const t = argTypes.length === 2 ? arrayWithElement(b!, a!) : undefined
      return t === undefined ? undefined : arrayOverload(name, t, argTypes)
    }
  }
  return undefined
}

/** generate_series(start, stop [, step]) in FROM: the function building the array of its
 *  values (integers, bigints, numerics; timestamps by an interval). */
export function resolveSeries(argTypes: readonly SqlType[]): { fn: string; args: SqlType[]; returns: ArrayType } | undefined {
  if (argTypes.length !== 2 && argTypes.length !== 3) return undefined
  const [a, b, c] = argTypes
  const time = (x: SqlType | undefined) => x === 'timestamp' || x === 'date' || x === 'timestamptz'
  if (argTypes.length === 3 && (a === 'timestamptz' || b === 'timestamptz') && (c === 'interval' || c === 'unknown')) return { fn: 'generate_series_tstz', args: ['timestamptz', 'timestamptz', 'interval'], returns: 'timestamptz[]' }
  if (argTypes.length === 3 && (time(a) || time(b)) && (c === 'interval' || c === 'unknown')) return { fn: 'generate_series_ts', args: ['timestamp', 'timestamp', 'interval'], returns: 'timestamp[]' }
  if (time(a) || time(b)) return undefined
  const t = commonSupertype(argTypes.map((x) => (x === 'unknown' ? 'integer' : x)))
  if (t === 'smallint' || t === 'integer') return { fn: 'generate_series_int', args: argTypes.map(() => 'integer'), returns: 'integer[]' }
  if (t === 'bigint') return { fn: 'generate_series_int8', args: argTypes.map(() => 'bigint'), returns: 'bigint[]' }
  if (t === 'numeric') return { fn: 'generate_series_num', args: argTypes.map(() => 'numeric'), returns: 'numeric[]' }
  return undefined
}

/** `a op b` where one side is an array: comparisons of two arrays, and `||` (array_cat,
 *  array_append, array_prepend; an untyped literal beside an array is an array, as in
 *  PostgreSQL). */
function resolveArrayOperator(op: string, l: SqlType, r: SqlType): Resolved | undefined {
  if (op === '||') {
    if (isArrayType(l) && (isArrayType(r) || r === 'unknown')) return resolveArrayFunction('array_cat', [l, r])
    if (isArrayType(r) && l === 'unknown') return resolveArrayFunction('array_cat', [l, r])
    if (isArrayType(l)) return resolveArrayFunction('array_append', [l, r])
    if (isArrayType(r)) return resolveArrayFunction('array_prepend', [l, r])
    return undefined
  }
  const cmp = ({ '=': 'eq', '<>': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' } as Record<string, string>)[op]
  if (cmp === undefined) return undefined
  const t = commonArray([l, r])
  return t === undefined ? undefined : arrayOverload(`array_${cmp}`, t, [l, r])
}

/** The element comparison `x op ANY|ALL (array)`: the array type both sides are cast to. */
export function resolveQuantified(operand: SqlType, array: SqlType): ArrayType | undefined {
  if (array === 'unknown') return operand === 'unknown' ? 'text[]' : isArrayType(operand) ? undefined : arrayOf(operand)
  return arrayWithElement(array, operand)
}

/** All overloads, including the polymorphic templates (for listings, and for the code
 *  generator to learn which ids are non-strict). */
export const ALL_OVERLOADS: readonly Overload[] = [...OVERLOADS, ...POLYMORPHIC]

const NON_STRICT_IDS: ReadonlySet<string> = new Set(ALL_OVERLOADS.filter((o) => !o.strict).map((o) => o.id))

/** True when a call of overload `id` is NULL whenever any argument is NULL. */
export function isStrictFunction(id: string): boolean {
  return !NON_STRICT_IDS.has(id)
}

const VOLATILE_IDS: ReadonlySet<string> = new Set(ALL_OVERLOADS.filter((o) => o.volatile).map((o) => o.id))

/** True for non-deterministic functions (random(), now(), …): two calls may differ. */
export function isVolatileFunction(id: string): boolean {
  return VOLATILE_IDS.has(id)
}

const ZONE_IDS: ReadonlySet<string> = new Set(ALL_OVERLOADS.filter((o) => o.zone).map((o) => o.id))

/** True for functions whose result depends on the session's TimeZone: their implementation
 *  takes the zone as one more, last argument (the compiler passes the zone it compiles in). */
export function isZoneDependentFunction(id: string): boolean {
  return ZONE_IDS.has(id)
}

/** The sign of a call that shifts a timestamp or timestamptz by an interval (`ts ± i`,
 *  `i + ts`), or undefined for any other function. */
export function timeShiftSign(id: string): 1 | -1 | undefined {
  if (id === 'ts_add_interval' || id === 'interval_add_ts' || id === 'tstz_add_interval' || id === 'interval_add_tstz') return 1
  if (id === 'ts_sub_interval' || id === 'tstz_sub_interval') return -1
  return undefined
}

/** Every distinct overload id (src/sql-runtime/functions.ts must implement each). */
export function overloadIds(): string[] {
  return [...new Set<string>(ALL_OVERLOADS.map((o) => o.id))]
}

/** True when `name` is a scalar function known to the catalog (any arity). */
export function isScalarFunctionName(name: string): boolean {
  return BY_NAME.has(name) || name === 'greatest' || name === 'least' || name === 'concat' || name === 'concat_ws' || ARRAY_TEMPLATES.has(name)
}

// ---------------------------------------------------------------------------------- resolution

interface Candidate {
  readonly overload: Overload
  readonly params: readonly SqlType[]
}

function expandParams(o: Overload, n: number): SqlType[] | undefined {
  if (o.variadic === undefined) return o.args.length === n ? [...o.args] : undefined
  if (n < o.args.length) return undefined
  const p = [...o.args]
  while (p.length < n) p.push(o.variadic)
  return p
}

/** Postgres func_select_candidate / oper_select_candidate, for our type system. */
function selectCandidate(list: readonly Overload[], argTypes: readonly SqlType[], isBinaryOp: boolean): Resolved | undefined {
  const n = argTypes.length
  const all: Candidate[] = []
  for (const o of list) {
    const params = expandParams(o, n)
    if (params !== undefined) all.push({ overload: o, params })
  }
  if (all.length === 0) return undefined
  const done = (c: Candidate): Resolved => ({ overload: c.overload, argTypes: c.params })

  // exact match (unknowns never match exactly)
  for (const c of all) if (c.params.every((p, i) => p === argTypes[i])) return done(c)

  // binary operator with one unknown side: assume it has the other side's type
  if (isBinaryOp && n === 2) {
    const [l, r] = argTypes as [SqlType, SqlType]
    const t = l === 'unknown' ? r : r === 'unknown' ? l : undefined
    if (t !== undefined && t !== 'unknown') {
      for (const c of all) if (c.params[0] === t && c.params[1] === t) return done(c)
    }
  }

  // viable by implicit casts
  let cands = all.filter((c) => c.params.every((p, i) => canImplicitCast(argTypes[i]!, p)))
  if (cands.length === 0) return undefined
  if (cands.length === 1) return done(cands[0]!)

  // most exact matches
  const exact = (c: Candidate) => c.params.reduce((k, p, i) => k + (p === argTypes[i] ? 1 : 0), 0)
  cands = keepMax(cands, exact)
  if (cands.length === 1) return done(cands[0]!)

  // most preferred types at positions needing a conversion
  const pref = (c: Candidate) =>
    c.params.reduce((k, p, i) => k + (p !== argTypes[i] && argTypes[i] !== 'unknown' && isPreferredType(p) ? 1 : 0), 0)
  cands = keepMax(cands, pref)
  if (cands.length === 1) return done(cands[0]!)

  // unknown positions: prefer the string category, else the single category all accept
  if (argTypes.includes('unknown')) {
    let kept = cands
    let failed = false
    for (let i = 0; i < n; i++) {
      if (argTypes[i] !== 'unknown') continue
      const cats = new Set(kept.map((c) => typeCategory(c.params[i]!)))
      let cat: Category | undefined
      if (cats.has('S')) cat = 'S'
      else if (cats.size === 1) cat = [...cats][0]
      if (cat === undefined) {
        failed = true
        break
      }
      let next = kept.filter((c) => typeCategory(c.params[i]!) === cat)
      if (next.some((c) => isPreferredType(c.params[i]!))) next = next.filter((c) => isPreferredType(c.params[i]!))
      kept = next
    }
    if (!failed && kept.length > 0) cands = kept
    if (cands.length === 1) return done(cands[0]!)

    // known args all of one category: assume the unknowns are of it too
    const known = argTypes.filter((t) => t !== 'unknown')
    if (known.length > 0) {
      const t0 = known[0]!
      if (known.every((t) => t === t0)) {
        const ok = cands.filter((c) => c.params.every((p, i) => argTypes[i] !== 'unknown' || p === t0))
        if (ok.length === 1) return done(ok[0]!)
      }
    }
  }
  return undefined // ambiguous (PG: "is not unique")
}

function keepMax(cands: Candidate[], score: (c: Candidate) => number): Candidate[] {
  let best = -1
  for (const c of cands) best = Math.max(best, score(c))
  return cands.filter((c) => score(c) === best)
}

/** Resolves a function call by name (lower case) and actual argument types. */
export function resolveFunction(name: string, argTypes: readonly SqlType[]): Resolved | undefined {
  switch (name) {
    case 'greatest':
    case 'least': {
      if (argTypes.length === 0) return undefined
      const t = commonSupertype(argTypes)
      if (t === undefined) return undefined
      return { overload: { id: name, name, args: [], variadic: t, returns: t, strict: false }, argTypes: argTypes.map(() => t) }
    }
    case 'concat':
      return {
        overload: { id: 'concat', name, args: [], variadic: 'text', returns: 'text', strict: false },
        argTypes: argTypes.map(concatArgType),
      }
    case 'concat_ws':
      if (argTypes.length === 0) return undefined
      if (!canImplicitCast(argTypes[0]!, 'text')) return undefined
      return {
        overload: { id: 'concat_ws', name, args: ['text'], variadic: 'text', returns: 'text', strict: false },
        argTypes: argTypes.map((t, i) => (i === 0 ? 'text' : concatArgType(t))),
      }
    case 'extract':
    case 'date_part':
      // PG: extract(field from date) has its own overload; date_part(text, date) casts to timestamp
      if (name === 'date_part' && argTypes.length === 2 && argTypes[1] === 'date' && canImplicitCast(argTypes[0]!, 'text')) {
        const o = BY_NAME.get('date_part')!.find((x) => x.id === 'date_part_ts')!
        return { overload: o, argTypes: ['text', 'timestamp'] }
      }
      break
  }
  const list = BY_NAME.get(name)
  if (list === undefined) return resolveArrayFunction(name, argTypes)
  return selectCandidate(list, argTypes, false)
}

function concatArgType(t: SqlType): SqlType {
  return t === 'boolean' ? 'boolean' : 'text'
}

const BINARY_OPS = new Set(['+', '-', '*', '/', '%', '^', '||', '=', '<>', '!=', '<', '<=', '>', '>=', 'like', 'ilike', '&', '|', '#', '<<', '>>', '~', '~*', '!~', '!~*', '->', '->>', '#>', '#>>', '@>', '<@', '?', '?|', '?&', '#-'])

/** Resolves a binary operator: + - * / % ^ || = <> < <= > >= like ilike & | # << >> ~ ~* !~ !~*. */
export function resolveBinaryOperator(op: string, left: SqlType, right: SqlType): Resolved | undefined {
  if (!BINARY_OPS.has(op)) return undefined
  if (op === '!=') op = '<>'
  if (op === '||' && (left === 'jsonb' || right === 'jsonb') && (left === 'jsonb' || left === 'unknown') && (right === 'jsonb' || right === 'unknown')) return resolveFunction('jsonb_concat', ['jsonb', 'jsonb'])
  if ((isArrayType(left) || isArrayType(right)) && left !== 'jsonb') return resolveArrayOperator(op, left, right)
  if (op === '||') return resolveConcat(left, right)
  const list = BY_NAME.get(op)
  if (list === undefined) return undefined
  return selectCandidate(list, [left, right], true)
}

const TEXT_CONCAT = BY_NAME.get('||')![0]!

const BYTEA_CONCAT = BY_NAME.get('||')!.find((o) => o.id === 'bytea_concat')!

/** PG: bytea || bytea (an unknown beside a bytea is one), text || text, anynonarray || text,
 *  text || anynonarray (non-text side cast to text). */
function resolveConcat(left: SqlType, right: SqlType): Resolved | undefined {
  if ((left === 'bytea' && (right === 'bytea' || right === 'unknown')) || (right === 'bytea' && left === 'unknown')) return { overload: BYTEA_CONCAT, argTypes: ['bytea', 'bytea'] }
  const l = left === 'unknown' ? 'text' : left
  const r = right === 'unknown' ? 'text' : right
  if (l !== 'text' && r !== 'text') return undefined
  return { overload: TEXT_CONCAT, argTypes: ['text', 'text'] }
}

/** Resolves a prefix operator: - + ~. */
export function resolveUnaryOperator(op: '-' | '+' | '~', t: SqlType): Resolved | undefined {
  const list = BY_NAME.get('u' + op)
  if (list === undefined) return undefined
  return selectCandidate(list, [t], false)
}

/** The overloads registered under a name (operators under their symbol; prefix operators as
 *  'u-', 'u+', 'u~'). */
export function overloadsNamed(name: string): readonly Overload[] {
  return BY_NAME.get(name) ?? []
}
