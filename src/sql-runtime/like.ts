// LIKE and ILIKE in linear time. A pattern is cut at its `%` wildcards into segments of
// literal code points and `_` (any one code point); without `%` the text must be exactly one
// segment. With `%` only between segments, the leftmost match of each segment after the
// previous one is as good as any other (a later start leaves less text for the rest), so
// matching never backtracks: the first segment is checked at the start, the last at the end,
// each middle one found by a left-to-right search. The search is bit-parallel (Shift-And:
// one word of state per 32 pattern positions), so a match costs O(text × segment length / 32)
// whatever the pattern; a literal segment of a case-sensitive match uses String#indexOf.
//
// Semantics (PostgreSQL's): `_` matches one code point; the escape character (default `\`,
// '' for none) makes the next character literal; a pattern ending with the escape character
// fails with 22025 when matching reaches it with text left over (as PG's MatchText does),
// otherwise it does not match. ILIKE compares code points under simple case folding, as the
// regex-based implementation this replaces did (JS /iu).

import { RivuletError } from '../../grammar/errors.js'

const ANY = -1

/** A compiled pattern. */
export interface LikePattern {
  /** Segments between `%`s: code points (folded for ILIKE), ANY for `_`. */
  readonly segments: readonly (readonly number[])[]
  /** The pattern starts / ends with `%`. */
  readonly openStart: boolean
  readonly openEnd: boolean
  readonly caseInsensitive: boolean
  /** The pattern ended with an unpaired escape character (then `segments` are the part
   *  before it, and openEnd is false). */
  readonly trailingEscape: boolean
  /** Each segment as a string, when it has no `_` (for indexOf). */
  readonly literals: readonly (string | undefined)[]
  /** Each segment's Shift-And tables. */
  readonly searchers: readonly Searcher[]
}

/** Shift-And tables of a segment: for each code point in it, the positions it matches
 *  (ANY positions included), in 32-bit words. */
interface Searcher {
  readonly words: number
  readonly masks: ReadonlyMap<number, Uint32Array>
  readonly anyMask: Uint32Array
}

function searcher(seg: readonly number[]): Searcher {
  const m = seg.length
  const words = Math.max(1, (m + 31) >>> 5)
  const anyMask = new Uint32Array(words)
  for (let j = 0; j < m; j++) if (seg[j] === ANY) anyMask[j >>> 5]! |= 1 << (j & 31)
  const masks = new Map<number, Uint32Array>()
  for (let j = 0; j < m; j++) {
    const c = seg[j]!
    if (c === ANY || masks.has(c)) continue
    const mask = anyMask.slice()
    for (let k = 0; k < m; k++) if (seg[k] === c) mask[k >>> 5]! |= 1 << (k & 31)
    masks.set(c, mask)
  }
  return { words, masks, anyMask }
}

const caches = new Map<string, Map<string, LikePattern>>()

/** Compiles (and caches) a LIKE pattern. */
export function compileLike(pattern: string, escape: string, caseInsensitive: boolean): LikePattern {
  const key = (caseInsensitive ? 'i' : 's') + escape
  let cache = caches.get(key)
  if (cache === undefined) caches.set(key, (cache = new Map()))
  let p = cache.get(pattern)
  if (p !== undefined) return p
  if (escape.length > 0 && [...escape].length !== 1) throw new RivuletError('22025', 'invalid escape string')
  const esc = escape.length > 0 ? escape.codePointAt(0)! : undefined
  const segments: number[][] = [[]]
  let trailingEscape = false
  const cps = [...pattern].map((c) => c.codePointAt(0)!)
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!
    const seg = segments[segments.length - 1]!
    if (c === esc) {
      const n = cps[++i]
      if (n === undefined) {
        trailingEscape = true
        break
      }
      seg.push(caseInsensitive ? fold(n) : n)
    } else if (c === 0x25 /* % */) {
      if (seg.length > 0 || segments.length === 1) segments.push([])
    } else if (c === 0x5f /* _ */) {
      seg.push(ANY)
    } else {
      seg.push(caseInsensitive ? fold(c) : c)
    }
  }
  const openStart = segments.length > 1 && segments[0]!.length === 0
  if (openStart) segments.shift()
  const openEnd = !trailingEscape && segments.length > 1 && segments[segments.length - 1]!.length === 0
  if (openEnd) segments.pop()
  // a run of % between segments collapses; a lone "%" leaves one empty open segment
  const literals = segments.map((s) => (caseInsensitive || s.includes(ANY) ? undefined : String.fromCodePoint(...s)))
  p = { segments, openStart, openEnd, caseInsensitive, trailingEscape, literals, searchers: segments.map(searcher) }
  if (cache.size > 10_000) cache.clear()
  cache.set(pattern, p)
  return p
}

/** Whether `text` matches; throws 22025 for a trailing escape reached with text left. */
export function likeMatch(text: string, p: LikePattern): boolean {
  const t = codePoints(text, p.caseInsensitive)
  const n = t.length
  const segs = p.segments
  if (p.trailingEscape) {
    // does a prefix of the text match the pattern before the escape, with text left over?
    const end = prefixEnd(t, p, text)
    if (end !== -1 && end < n) throw new RivuletError('22025', 'LIKE pattern must not end with escape character')
    return false
  }
  if (segs.length === 1 && !p.openStart && !p.openEnd) return segs[0]!.length === n && matchesAt(t, segs[0]!, 0)
  let pos = 0
  let first = 0
  let last = segs.length
  if (!p.openStart) {
    const s = segs[0]!
    if (s.length > n || !matchesAt(t, s, 0)) return false
    pos = s.length
    first = 1
  }
  let tail = n
  if (!p.openEnd && last > first) {
    const s = segs[last - 1]!
    if (s.length > n - pos || !matchesAt(t, s, n - s.length)) return false
    tail = n - s.length
    last--
  }
  for (let k = first; k < last; k++) {
    const at = find(t, segs[k]!, pos, tail, p, k, text)
    if (at < 0) return false
    pos = at + segs[k]!.length
  }
  return pos <= tail
}

/** For a pattern ending with its escape character: where the shortest match of the part
 *  before it as a prefix of the text ends (-1: none). */
function prefixEnd(t: Text, p: LikePattern, text: string): number {
  const segs = p.segments
  let pos = 0
  for (let k = 0; k < segs.length; k++) {
    const s = segs[k]!
    if (k === 0 && !p.openStart) {
      if (s.length > t.length || !matchesAt(t, s, 0)) return -1
      pos = s.length
      continue
    }
    const at = find(t, s, pos, t.length, p, k, text)
    if (at < 0) return -1
    pos = at + s.length
  }
  return pos
}

/** Text as code points (folded for ILIKE); a string itself when it has no surrogates and
 *  needs no folding (code units are then code points). */
type Text = string | Int32Array

const SURROGATE = /[\ud800-\udfff]/

function codePoints(s: string, caseInsensitive: boolean): Text {
  if (!caseInsensitive && !SURROGATE.test(s)) return s
  const out = new Int32Array(s.length)
  let n = 0
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000
        i++
      }
    }
    out[n++] = caseInsensitive ? fold(c) : c
  }
  return out.subarray(0, n)
}

function at(t: Text, i: number): number {
  return typeof t === 'string' ? t.charCodeAt(i) : t[i]!
}

function matchesAt(t: Text, seg: readonly number[], start: number): boolean {
  for (let j = 0; j < seg.length; j++) {
    const c = seg[j]!
    if (c !== ANY && at(t, start + j) !== c) return false
  }
  return true
}

/** The leftmost start ≥ from of segment k (`seg`) ending at or before `end`, or -1. */
function find(t: Text, seg: readonly number[], from: number, end: number, p: LikePattern, k: number, original: string): number {
  const m = seg.length
  if (m === 0) return from <= end ? from : -1
  const literal = p.literals[k]
  if (literal !== undefined && typeof t === 'string') {
    const i = original.indexOf(literal, from)
    return i >= 0 && i + m <= end ? i : -1
  }
  // Shift-And: bit j of the state says "seg[0..j] matches ending here"
  const { words, masks, anyMask } = p.searchers[k]!
  const state = new Uint32Array(words)
  const lastWord = (m - 1) >>> 5
  const lastBit = 1 << ((m - 1) & 31)
  for (let i = from; i < end; i++) {
    const mask = masks.get(at(t, i)) ?? anyMask
    let carry = 1 // a match may start at every position
    for (let w = 0; w < words; w++) {
      const s = state[w]!
      state[w] = ((s << 1) | carry) & mask[w]!
      carry = s >>> 31
    }
    if ((state[lastWord]! & lastBit) !== 0) return i - m + 1
  }
  return -1
}

const folded = new Map<number, number>()

/** A code point's representative under simple case folding (what /iu compares): the lower
 *  case of its upper case when that is one code point, with the dotless i kept apart. */
export function fold(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c
  const known = folded.get(c)
  if (known !== undefined) return known
  let f = c
  if (c !== 0x131) {
    const ch = String.fromCodePoint(c)
    const up = ch.toUpperCase()
    const viaUpper = up.length <= 2 && [...up].length === 1 ? up.toLowerCase() : ch.toLowerCase()
    if ([...viaUpper].length === 1) f = viaUpper.codePointAt(0)!
  }
  if (folded.size > 65_536) folded.clear()
  folded.set(c, f)
  return f
}
