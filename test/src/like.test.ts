// LIKE / ILIKE (src/sql-runtime/like.ts) against the regex-based implementation it replaced (kept here as
// the reference): random patterns and texts over an alphabet with the wildcards, the escape,
// case pairs, a character outside the BMP and the characters whose case folding is special;
// then the pathological patterns that made the regex backtrack, within a time limit.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileLike, fold, likeMatch } from '../../src/sql-runtime/like.js'

/** The former implementation: the pattern as an anchored JS RegExp (flags su / isu). */
function referenceLike(s: string, pattern: string, escape: string, ci: boolean): boolean | 'error' {
  const escapeRe = (c: string): string => (/[\\^$.*+?()[\]{}|/-]/.test(c) ? '\\' + c : c)
  let src = ''
  let trailing = false
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (escape.length > 0 && c === escape) {
      const n = chars[++i]
      if (n === undefined) {
        trailing = true
        break
      }
      src += escapeRe(n)
    } else if (c === '%') src += '.*'
    else if (c === '_') src += '.'
    else src += escapeRe(c)
  }
  const flags = ci ? 'isu' : 'su'
  if (trailing) return new RegExp('^' + src + '.', flags).test(s) ? 'error' : false
  return new RegExp('^' + src + '$', flags).test(s)
}

function ours(s: string, pattern: string, escape: string, ci: boolean): boolean | 'error' {
  try {
    return likeMatch(s, compileLike(pattern, escape, ci))
  } catch (e) {
    if ((e as { code?: string }).code === '22025') return 'error'
    throw e
  }
}

const ALPHABET = ['a', 'b', 'A', 'B', '%', '_', '\\', '#', 'é', 'É', '😀', 'ſ', 's', 'S', 'K', 'k', 'ß']

describe('LIKE and ILIKE', () => {
  it('agree with the regex-based implementation on random patterns and texts', () => {
    const str = (max: number) => fc.array(fc.constantFrom(...ALPHABET), { maxLength: max }).map((a) => a.join(''))
    fc.assert(
      fc.property(str(8), str(12), fc.constantFrom('\\', '#', ''), fc.boolean(), (pattern, text, escape, ci) => {
        expect(ours(text, pattern, escape, ci)).toBe(referenceLike(text, pattern, escape, ci))
      }),
      { numRuns: 20_000 },
    )
  })

  it('agree on texts built from the pattern (so that matches are common)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 8 }), fc.array(fc.constantFrom('', 'a', 'ab', '😀', 'ſS'), { minLength: 9, maxLength: 9 }), fc.boolean(), (pat, fills, ci) => {
        const pattern = pat.join('')
        const text = pat.map((c, i) => (c === '%' ? fills[i]! : c === '_' ? 'x' : c === '\\' ? '' : c)).join('')
        expect(ours(text, pattern, '\\', ci)).toBe(referenceLike(text, pattern, '\\', ci))
      }),
      { numRuns: 20_000 },
    )
  })

  it('folds case as /iu does: every BMP character matches its representative', () => {
    for (let c = 0; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue
      const f = fold(c)
      if (f === c) continue
      const esc = (x: number): string => '\\u' + x.toString(16).padStart(4, '0')
      expect(new RegExp(`^${esc(c)}$`, 'iu').test(String.fromCodePoint(f)), `U+${c.toString(16)} → U+${f.toString(16)}`).toBe(true)
    }
  })

  it('runs pathological patterns in linear time', () => {
    const text = 'a'.repeat(100_000)
    const cases: [string, string][] = [
      ['%a%a%ab', text],
      ['%a%a%a%a%a%a%a%a%a%a%b', text],
      ['%' + 'a_'.repeat(40) + 'b%', text],
      ['_%_%_%_%_%_%_%_%_%b', text],
      ['%' + 'a'.repeat(5000) + 'b', text],
    ]
    for (const [pattern, s] of cases) {
      const t = performance.now()
      expect(ours(s, pattern, '\\', false)).toBe(false)
      expect(ours(s.toUpperCase(), pattern, '\\', true)).toBe(false)
      expect(performance.now() - t, pattern.slice(0, 30)).toBeLessThan(1000)
    }
  })
})
