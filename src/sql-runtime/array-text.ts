// The text form of SQL arrays, as PostgreSQL's array_out and array_in spell it (one
// dimension): `{1,2,NULL}`, `{"a b","",NULL,"NULL","q\"uote"}`. The element's own text is
// given by the caller (its type's output or input function), so this file knows only the
// array syntax.

import { RivuletError } from '../../grammar/index.js'
import { ArrayValue } from '../../planner/index.js'

/** `{a,b}`: each element's text, quoted when array_out would quote it. */
export function formatArray(a: ArrayValue, formatElement: (v: unknown) => string): string {
  let s = '{'
  const items = a.items
  for (let i = 0; i < items.length; i++) {
    if (i > 0) s += ','
    const v = items[i]
    s += v === null || v === undefined ? 'NULL' : quoteElement(formatElement(v))
  }
  return s + '}'
}

function quoteElement(t: string): string {
  if (t !== '' && !/[{},"\\\s]/.test(t) && t.toUpperCase() !== 'NULL') return t
  return '"' + t.replace(/["\\]/g, '\\$&') + '"'
}

function malformed(text: string, detail: string): RivuletError {
  return new RivuletError('22P02', `malformed array literal: "${text}"`, undefined, detail)
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f'

/** Parses `{…}` into an array whose elements are parsed by `parseElement` (an unquoted NULL is
 *  NULL). Arrays of arrays are refused (0A000): one dimension is what the engine holds. */
export function parseArray(text: string, parseElement: (s: string) => unknown): ArrayValue {
  let i = 0
  const n = text.length
  while (isSpace(text[i])) i++
  if (text[i] === '[') throw new RivuletError('0A000', `array dimensions ("${text.slice(0, 20)}") are not supported: arrays here start at 1`)
  if (text[i] !== '{') throw malformed(text, 'Array value must start with "{" or dimension information.')
  i++
  const items: unknown[] = []
  while (isSpace(text[i])) i++
  if (text[i] === '}') {
    i++
  } else {
    for (;;) {
      while (isSpace(text[i])) i++
      if (text[i] === '{') throw new RivuletError('0A000', 'multidimensional arrays are not supported')
      let element = ''
      let quoted = false
      let sawAny = false
      // the element's text: quoted parts and unquoted parts (unquoted whitespace at the ends
      // does not count), backslash escaping one character anywhere
      let trailingSpace = 0
      for (;;) {
        if (i >= n) throw malformed(text, 'Unexpected end of input.')
        const c = text[i]!
        if (c === '"') {
          quoted = true
          sawAny = true
          trailingSpace = 0
          i++
          for (;;) {
            if (i >= n) throw malformed(text, 'Unexpected end of input.')
            const q = text[i]!
            if (q === '\\') {
              if (i + 1 >= n) throw malformed(text, 'Unexpected end of input.')
              element += text[i + 1]
              i += 2
            } else if (q === '"') {
              i++
              break
            } else {
              element += q
              i++
            }
          }
          continue
        }
        if (c === '\\') {
          if (i + 1 >= n) throw malformed(text, 'Unexpected end of input.')
          element += text[i + 1]
          sawAny = true
          trailingSpace = 0
          i += 2
          continue
        }
        if (c === ',' || c === '}') break
        if (c === '{') throw malformed(text, 'Unexpected "{" character.')
        if (isSpace(c)) {
          if (sawAny) {
            element += c
            trailingSpace++
          }
          i++
          continue
        }
        element += c
        sawAny = true
        trailingSpace = 0
        i++
      }
      if (!sawAny) throw malformed(text, `Unexpected "${text[i]}" character.`)
      if (trailingSpace > 0) element = element.slice(0, element.length - trailingSpace)
      items.push(!quoted && element.toUpperCase() === 'NULL' ? null : parseElement(element))
      const sep = text[i]
      i++
      if (sep === '}') break
    }
  }
  while (isSpace(text[i])) i++
  if (i < n) throw malformed(text, 'Junk after closing right brace.')
  return new ArrayValue(items)
}
