// Rendering of result values, sorting, hashing and comparison of a result against an expected
// block. Pure functions, no engine: unit tested in test/sqllogictest/compare.test.ts.
// The rules are documented in sqllogictest/README.md ("Rendering" and "Comparing").

import { createHash } from 'node:crypto'
import type { ResultValue, SqlTypeName } from '../src/index.js'
import type { SortMode } from './parse.js'

/** classic = SQLite `.test` files (slt_sqlite.c rules); modern = sqllogictest-rs/Postgres text. */
export type Flavour = 'classic' | 'modern'
/** How `R` columns print: `%.3f` or the shortest Postgres form. */
export type FloatFormat = 'fixed3' | 'shortest'
export type Layout = 'auto' | 'valuewise' | 'rowwise'

export interface RenderOptions {
  readonly flavour: Flavour
  readonly floatFormat: FloatFormat
}

// ---------------------------------------------------------------------------------------------
// Number formatting

/** Writes a decimal string without exponent (for numbers that JS would print with one). */
function plainDecimal(v: number): string {
  const s = String(v)
  if (!/e/i.test(s)) return s
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(v.toExponential())
  if (m === null) return s
  const sign = m[1]!
  const digits = m[2]! + (m[3] ?? '')
  const exp = Number(m[4])
  const point = 1 + exp // position of the decimal point within digits
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length)
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

/** Shortest digits of v as mantissa digits + decimal exponent (v = 0.d1d2... × 10^(exp+1)). */
function shortestDigits(v: number, single: boolean): { neg: boolean; digits: string; exp: number } {
  let text: string
  if (single) {
    // Smallest precision that round-trips through float4.
    const f = Math.fround(v)
    text = f.toExponential()
    for (let p = 1; p <= 9; p++) {
      const t = f.toExponential(p - 1)
      if (Math.fround(Number(t)) === f) {
        text = t
        break
      }
    }
  } else {
    text = v.toExponential()
  }
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (m === null) return { neg: v < 0, digits: String(Math.abs(v)), exp: 0 }
  let digits = m[2]! + (m[3] ?? '')
  digits = digits.replace(/0+$/, '')
  if (digits === '') digits = '0'
  return { neg: m[1] === '-', digits, exp: Number(m[4]) }
}

/** Postgres float8out / float4out (extra_float_digits = 1): shortest round-trip digits,
 *  exponent form when the decimal exponent is < -4 or >= 15 (float8) / 6 (float4). */
export function formatFloat(v: number, single = false): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return 'Infinity'
  if (v === -Infinity) return '-Infinity'
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  const { neg, digits, exp } = shortestDigits(v, single)
  const sign = neg ? '-' : ''
  const maxExp = single ? 6 : 15
  if (exp < -4 || exp >= maxExp) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    const e = Math.abs(exp)
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  if (digits.length <= exp + 1) return sign + digits + '0'.repeat(exp + 1 - digits.length)
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`
}

/** C `%.3f`: round half to even on exact ties (JS toFixed rounds them away from zero). */
export function formatFixed3(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return 'Infinity'
  if (v === -Infinity) return '-Infinity'
  if (Math.abs(v) >= 1e13) {
    // SQLite's printf keeps at most 16 significant digits and pads with zeros:
    // -9223372036854775808 prints as -9223372036854776000.000.
    const m = /^(-?)(\d)\.(\d+)e\+(\d+)$/.exec(v.toExponential(15))
    if (m !== null) {
      const digits = m[2]! + m[3]!
      const exp = Number(m[4])
      const int = exp + 1 >= digits.length ? digits + '0'.repeat(exp + 1 - digits.length) : digits.slice(0, exp + 1)
      const frac = (exp + 1 >= digits.length ? '' : digits.slice(exp + 1)).padEnd(3, '0').slice(0, 3)
      return `${m[1]}${int}.${frac}`
    }
  }
  const y = v * 1000
  if (Number.isInteger(y * 2) && !Number.isInteger(y) && Math.abs(y) < 2 ** 52) {
    // Exact tie: pick the even neighbour.
    let r = Math.floor(y)
    if (r % 2 !== 0) r += 1
    const s = (Math.abs(r) / 1000).toFixed(3)
    return (v < 0 ? '-' : '') + s
  }
  return v.toFixed(3)
}

/** SQLite's `%!.15g` for REAL values printed as text (always shows a decimal point). */
function sqliteReal(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? 'Inf' : v < 0 ? '-Inf' : 'NaN'
  let s = v.toPrecision(15)
  if (s.includes('e')) {
    const [m, e] = s.split('e') as [string, string]
    let mant = m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '.0') : `${m}.0`
    const en = Number(e)
    mant = mant.endsWith('.') ? `${mant}0` : mant
    return `${mant}e${en < 0 ? '-' : '+'}${Math.abs(en) < 10 ? '0' : ''}${Math.abs(en)}`
  }
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '.0')
  else s += '.0'
  return s
}

const INTEGER_TYPES: ReadonlySet<string> = new Set(['smallint', 'integer', 'bigint'])

/** The value's own text form, as Postgres would print it (numbers by column type). */
export function naturalText(v: ResultValue, type?: SqlTypeName): string {
  if (v === null) return 'NULL'
  if (typeof v === 'boolean') return v ? 't' : 'f'
  if (typeof v === 'string') return v
  if (typeof v === 'bigint') return String(v)
  if (type === 'real') return formatFloat(v, true)
  if (type === 'double precision') return formatFloat(v)
  if (Number.isInteger(v) && !Object.is(v, -0)) return plainDecimal(v)
  if (type === 'numeric') return Number.isFinite(v) ? plainDecimal(v) : formatFloat(v)
  if (type !== undefined && INTEGER_TYPES.has(type) && Object.is(v, -0)) return '0'
  return formatFloat(v)
}

/** The integer part of a decimal text ('-12.7' → '-12', '-0.5' → '0'). */
function plainInteger(text: string): string {
  const whole = text.split('.')[0]!
  return whole === '-0' ? '0' : whole
}

/** Leading numeric prefix of a text, as SQLite converts text to a number (0 when none). */
function numericPrefix(s: string): number {
  const m = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(s)
  return m === null ? 0 : Number(m[0])
}

function classicNumber(v: ResultValue): number {
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string') return numericPrefix(v)
  return 0
}

/** Classic text rendering: control and non-ASCII characters become `@`, one per UTF-8 byte. */
function classicText(s: string): string {
  // Fast path: plain printable ASCII.
  if (/^[\x20-\x7e]*$/.test(s)) return s
  let out = ''
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (c >= 0x20 && c <= 0x7e) out += ch
    else out += '@'.repeat(c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4)
  }
  return out
}

/** Renders one value for a column of type letter `letter` (see README "Rendering"). */
export function renderValue(v: ResultValue, letter: string, type: SqlTypeName | undefined, opts: RenderOptions): string {
  if (v === null) return 'NULL'
  if (opts.flavour === 'classic') {
    switch (letter) {
      case 'I': {
        // integers beyond 2^53 (bigint values, numeric text) keep every digit
        if (typeof v === 'bigint') return String(v)
        if (typeof v === 'string' && type === 'numeric' && /^-?\d+(\.\d*)?$/.test(v)) return plainInteger(v)
        const n = Math.trunc(classicNumber(v))
        return Number.isFinite(n) ? plainDecimal(n === 0 ? 0 : n) : formatFloat(n)
      }
      case 'R': {
        const n = classicNumber(v)
        return opts.floatFormat === 'fixed3' ? formatFixed3(n) : naturalText(n, type === 'real' ? 'real' : 'double precision')
      }
      default:
        if (typeof v === 'string') return v === '' ? '(empty)' : type === 'numeric' && v.includes('.') ? sqliteReal(Number(v)) : classicText(v)
        if (typeof v === 'boolean') return letter === 'B' ? (v ? 't' : 'f') : v ? '1' : '0'
        if (typeof v === 'bigint') return String(v)
        if (type === 'real' || type === 'double precision' || (type === 'numeric' && !Number.isInteger(v))) {
          return sqliteReal(v)
        }
        return naturalText(v, type)
    }
  }
  if (typeof v === 'string') return v === '' ? '(empty)' : v
  if (typeof v === 'boolean') return v ? 't' : 'f'
  if (typeof v === 'bigint') return String(v)
  if (letter === 'R' && opts.floatFormat === 'fixed3') return formatFixed3(v)
  return naturalText(v, type)
}

/** Renders a result: one string array per row. Columns without a letter use the natural form. */
export function renderRows(
  rows: readonly (readonly ResultValue[])[],
  letters: string,
  types: readonly (SqlTypeName | undefined)[],
  opts: RenderOptions,
): string[][] {
  const out: string[][] = new Array<string[]>(rows.length)
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    const rendered = new Array<string>(row.length)
    for (let c = 0; c < row.length; c++) rendered[c] = renderValue(row[c]!, letters[c] ?? '?', types[c], opts)
    out[r] = rendered
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Sorting and hashing

/** strcmp on strings (code unit order, equal to byte order for ASCII). */
export function strcmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Compares rows column by column with strcmp, as the classic driver's rowsort does. */
export function compareRows(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const c = strcmp(a[i]!, b[i]!)
    if (c !== 0) return c
  }
  return a.length - b.length
}

/** The values in sort-mode order, flattened row-major (what the classic driver hashes). */
export function sortedValues(rows: readonly (readonly string[])[], sort: SortMode): string[] {
  if (sort === 'rowsort') return [...rows].sort(compareRows).flat()
  const flat = rows.flat()
  if (sort === 'valuesort') flat.sort(strcmp)
  return flat
}

/** md5 (lowercase hex) of the values, each followed by "\n". */
export function hashValues(values: readonly string[]): string {
  const h = createHash('md5')
  // Batch the updates: one update per value is slow for big results.
  let buf = ''
  for (const v of values) {
    buf += v
    buf += '\n'
    if (buf.length > 65536) {
      h.update(buf)
      buf = ''
    }
  }
  h.update(buf)
  return h.digest('hex')
}

const HASH_LINE = /^\s*(\d+)\s+values\s+hashing\s+to\s+([0-9a-fA-F]{32})\s*$/

/** Parses `N values hashing to <md5>`. */
export function parseHashLine(lines: readonly string[]): { count: number; hash: string } | undefined {
  if (lines.length !== 1) return undefined
  const m = HASH_LINE.exec(lines[0]!)
  return m === null ? undefined : { count: Number(m[1]), hash: m[2]!.toLowerCase() }
}

// ---------------------------------------------------------------------------------------------
// Comparing

/** Trims and collapses whitespace runs to one space. */
export function normalizeWs(s: string): string {
  return s.replace(/\s+/g, ' ').trim()
}

function tokenCount(normalized: string): number {
  if (normalized === '') return 0
  let n = 1
  for (let i = 0; i < normalized.length; i++) if (normalized.charCodeAt(i) === 32) n++
  return n
}

/** Decides the layout of an expected block for a result with `ncols` columns. */
export function detectLayout(expected: readonly string[], ncols: number, layout: Layout): 'valuewise' | 'rowwise' {
  if (ncols <= 1) return 'rowwise'
  if (layout !== 'auto') return layout
  if (expected.length === 0) return 'rowwise'
  for (const l of expected) if (tokenCount(normalizeWs(l)) < ncols) return 'valuewise'
  return 'rowwise'
}

export interface CompareSpec {
  /** Expected lines after `----` (without a colnames line). */
  readonly expected: readonly string[]
  readonly ncols: number
  readonly sort: SortMode
  readonly layout: Layout
}

export type CompareOutcome =
  | { readonly ok: true; readonly hash?: string }
  | { readonly ok: false; readonly reason: string; readonly expected: string[]; readonly actual: string[] }

/** Compares rendered rows with an expected block (values, rows or a hash line). */
export function compareResult(rows: readonly (readonly string[])[], spec: CompareSpec): CompareOutcome {
  const { expected, ncols, sort } = spec
  const hashLine = parseHashLine(expected)
  if (hashLine !== undefined) {
    const values = sortedValues(rows, sort)
    const hash = hashValues(values)
    if (values.length === hashLine.count && hash === hashLine.hash) return { ok: true, hash }
    return {
      ok: false,
      reason: 'hash mismatch',
      expected: [expected[0]!.trim()],
      actual: [`${values.length} values hashing to ${hash}`],
    }
  }
  const layout = detectLayout(expected, ncols, spec.layout)
  let exp: string[]
  let act: string[]
  if (layout === 'valuewise') {
    exp = expected.map(normalizeWs)
    const actRows = rows.map((r) => r.map(normalizeWs))
    if (sort === 'rowsort') {
      const expRows: string[][] = []
      for (let i = 0; i < exp.length; i += ncols) expRows.push(exp.slice(i, i + ncols))
      exp = expRows.sort(compareRows).flat()
      act = actRows.sort(compareRows).flat()
    } else {
      act = actRows.flat()
      if (sort === 'valuesort') {
        exp.sort(strcmp)
        act.sort(strcmp)
      }
    }
  } else {
    exp = expected.map(normalizeWs)
    act = rows.map((r) => normalizeWs(r.join(' ')))
    if (sort === 'rowsort') {
      exp.sort(strcmp)
      act.sort(strcmp)
    } else if (sort === 'valuesort') {
      // Values may contain spaces, so compare the sorted whitespace-separated tokens.
      exp = exp.flatMap((l) => (l === '' ? [] : l.split(' '))).sort(strcmp)
      act = act.flatMap((l) => (l === '' ? [] : l.split(' '))).sort(strcmp)
    }
  }
  if (exp.length === act.length) {
    let same = true
    for (let i = 0; i < exp.length; i++) {
      if (exp[i] !== act[i]) {
        same = false
        break
      }
    }
    if (same) return { ok: true }
  }
  // Report in the expected block's layout, rows one per line.
  const show = (vals: string[]): string[] => {
    if (layout === 'rowwise' || sort === 'valuesort') return vals
    const out: string[] = []
    for (let i = 0; i < vals.length; i += ncols) out.push(vals.slice(i, i + ncols).join(' '))
    return out
  }
  const what = layout === 'valuewise' || sort === 'valuesort' ? 'values' : 'rows'
  return {
    ok: false,
    reason: exp.length === act.length ? 'result mismatch' : `expected ${exp.length} ${what}, got ${act.length}`,
    expected: show(exp),
    actual: show(act),
  }
}
