// jsonb_in: JSON text → a JsonbValue, with PostgreSQL's errors: 22P02 "invalid input syntax
// for type json" and its DETAIL (`Token "x" is invalid.`, `Expected "," or "]", but found
// "2".`, `The input string ended unexpectedly.`), 22P05 for \u0000 (text cannot hold it).
// As PostgreSQL: numbers are exact decimals (1e3 is 1000, 2.50 keeps its scale), of duplicate
// keys the last wins, and nesting deeper than MAX_JSON_DEPTH is refused (54001), where
// PostgreSQL's limit is its stack.

import { RivuletError } from '../../grammar/errors.js'
import { parseNumericText } from '../../planner/numeric.js'
import { JsonObject, JsonbValue, type JsonNode } from './jsonb-value.js'

/** The deepest nesting of arrays and objects a value may have. */
export const MAX_JSON_DEPTH = 1000

function syntaxError(detail: string): RivuletError {
  return new RivuletError('22P02', 'invalid input syntax for type json', undefined, detail)
}

/** Letters, digits, _ and non-ASCII: the characters PostgreSQL's JSON lexer runs together into
 *  one (invalid) token. */
function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c >= 128
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

/** A token: its kind, its text (for messages) and, for strings and numbers, its value. */
interface Token {
  kind: 'punct' | 'string' | 'number' | 'true' | 'false' | 'null' | 'end'
  text: string
  value: JsonNode
}

class JsonParser {
  #pos = 0
  #depth = 0
  constructor(
    readonly src: string,
    readonly maxDepth: number,
  ) {}

  parse(): JsonNode {
    const v = this.#value(this.#next())
    const t = this.#next()
    if (t.kind !== 'end') throw syntaxError(`Expected end of input, but found "${t.text}".`)
    return v
  }

  #value(t: Token): JsonNode {
    switch (t.kind) {
      case 'string':
      case 'number':
        return t.value
      case 'true':
        return true
      case 'false':
        return false
      case 'null':
        return null
      case 'end':
        throw syntaxError('The input string ended unexpectedly.')
      default:
        if (t.text === '[') return this.#array()
        if (t.text === '{') return this.#object()
        throw syntaxError(`Expected JSON value, but found "${t.text}".`)
    }
  }

  #enter(): void {
    if (++this.#depth > this.maxDepth) throw new RivuletError('54001', 'stack depth limit exceeded', undefined, `JSON values nest at most ${MAX_JSON_DEPTH} levels deep here.`)
  }

  #array(): JsonNode[] {
    this.#enter()
    const items: JsonNode[] = []
    let t = this.#next()
    if (!(t.kind === 'punct' && t.text === ']')) {
      for (;;) {
        items.push(this.#value(t))
        t = this.#next()
        if (t.kind === 'punct' && t.text === ']') break
        if (!(t.kind === 'punct' && t.text === ',')) throw this.#expected('"," or "]"', t)
        t = this.#next()
      }
    }
    this.#depth--
    return items
  }

  #object(): JsonObject {
    this.#enter()
    const pairs: [string, JsonNode][] = []
    let t = this.#next()
    if (!(t.kind === 'punct' && t.text === '}')) {
      for (;;) {
        if (t.kind !== 'string') throw this.#expected(pairs.length === 0 ? 'string or "}"' : 'string', t)
        const key = t.value as string
        t = this.#next()
        if (!(t.kind === 'punct' && t.text === ':')) throw this.#expected('":"', t)
        pairs.push([key, this.#value(this.#next())])
        t = this.#next()
        if (t.kind === 'punct' && t.text === '}') break
        if (!(t.kind === 'punct' && t.text === ',')) throw this.#expected('"," or "}"', t)
        t = this.#next()
      }
    }
    this.#depth--
    return JsonObject.of(pairs)
  }

  #expected(what: string, t: Token): RivuletError {
    if (t.kind === 'end') return syntaxError('The input string ended unexpectedly.')
    return syntaxError(`Expected ${what}, but found "${t.text}".`)
  }

  /** The next token (lexical errors are raised here, before any expectation is checked). */
  #next(): Token {
    const s = this.src
    let i = this.#pos
    while (i < s.length) {
      const c = s.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13) i++
      else break
    }
    if (i >= s.length) {
      this.#pos = i
      return { kind: 'end', text: '', value: null }
    }
    const c = s.charCodeAt(i)
    const start = i
    if (c === 123 || c === 125 || c === 91 || c === 93 || c === 44 || c === 58) {
      this.#pos = i + 1
      return { kind: 'punct', text: s[i]!, value: null }
    }
    if (c === 34) return this.#string(start)
    if (c === 45 || isDigit(c)) return this.#number(start)
    if (isWordChar(c)) {
      while (i < s.length && isWordChar(s.charCodeAt(i))) i++
      const word = s.slice(start, i)
      this.#pos = i
      if (word === 'true' || word === 'false' || word === 'null') return { kind: word, text: word, value: null }
      throw syntaxError(`Token "${word}" is invalid.`)
    }
    throw syntaxError(`Token "${String.fromCodePoint(s.codePointAt(i)!)}" is invalid.`)
  }

  /** A number as JSON writes it: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?, and no word character
   *  right after it. */
  #number(start: number): Token {
    const s = this.src
    let i = start
    let ok = true
    if (s.charCodeAt(i) === 45) i++
    if (s.charCodeAt(i) === 48) i++
    else if (isDigit(s.charCodeAt(i))) while (isDigit(s.charCodeAt(i))) i++
    else ok = false
    if (ok && s.charCodeAt(i) === 46) {
      i++
      if (!isDigit(s.charCodeAt(i))) ok = false
      while (isDigit(s.charCodeAt(i))) i++
    }
    if (ok && (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69)) {
      i++
      if (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45) i++
      if (!isDigit(s.charCodeAt(i))) ok = false
      while (isDigit(s.charCodeAt(i))) i++
    }
    let end = i
    while (end < s.length && isWordChar(s.charCodeAt(end))) end++
    const text = s.slice(start, end)
    if (!ok || end !== i) throw syntaxError(`Token "${text}" is invalid.`)
    this.#pos = end
    return { kind: 'number', text, value: parseNumericText(text)! }
  }

  #string(start: number): Token {
    const s = this.src
    let i = start + 1
    let out = ''
    let run = i
    for (;;) {
      if (i >= s.length) throw syntaxError(`Token "${s.slice(start)}" is invalid.`)
      const c = s.charCodeAt(i)
      if (c === 34) break
      if (c < 0x20) throw syntaxError(`Character with value 0x${c.toString(16).padStart(2, '0')} must be escaped.`)
      if (c !== 92) {
        i++
        continue
      }
      out += s.slice(run, i)
      const e = s[i + 1]
      if (e === undefined) throw syntaxError(`Token "${s.slice(start)}" is invalid.`)
      if (e === 'u') {
        const [unit, next] = this.#unicodeEscape(i)
        out += unit
        i = next
      } else {
        const simple = SIMPLE_ESCAPES[e]
        if (simple === undefined) throw syntaxError(`Escape sequence "\\${String.fromCodePoint(s.codePointAt(i + 1)!)}" is invalid.`)
        out += simple
        i += 2
      }
      run = i
    }
    out += s.slice(run, i)
    this.#pos = i + 1
    return { kind: 'string', text: s.slice(start, i + 1), value: out }
  }

  /** `\uXXXX` at i (and the low surrogate's `\uXXXX` after a high one): the character and the
   *  position after it. */
  #unicodeEscape(i: number): [string, number] {
    const code = this.#hex4(i)
    if (code === 0) throw new RivuletError('22P05', 'unsupported Unicode escape sequence', undefined, '\\u0000 cannot be converted to text.')
    if (code >= 0xdc00 && code <= 0xdfff) throw syntaxError('Unicode low surrogate must follow a high surrogate.')
    if (code < 0xd800 || code > 0xdbff) return [String.fromCharCode(code), i + 6]
    const s = this.src
    if (s[i + 6] !== '\\' || s[i + 7] !== 'u') throw syntaxError('Unicode low surrogate must follow a high surrogate.')
    const low = this.#hex4(i + 6)
    if (low >= 0xd800 && low <= 0xdbff) throw syntaxError('Unicode high surrogate must not follow a high surrogate.')
    if (low < 0xdc00 || low > 0xdfff) throw syntaxError('Unicode low surrogate must follow a high surrogate.')
    return [String.fromCharCode(code, low), i + 12]
  }

  #hex4(i: number): number {
    const h = this.src.slice(i + 2, i + 6)
    if (!/^[0-9a-fA-F]{4}$/.test(h)) throw syntaxError('"\\u" must be followed by four hexadecimal digits.')
    return parseInt(h, 16)
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/** Parses JSON text into a jsonb tree. */
export function parseJsonNode(text: string): JsonNode {
  return new JsonParser(text, MAX_JSON_DEPTH).parse()
}

/** A jsonb as the log and checkpoints keep it, its text (a value built by the functions may
 *  nest deeper than input may). */
export function parseStoredJsonb(text: string): JsonbValue {
  return new JsonbValue(new JsonParser(text, Infinity).parse())
}

/** jsonb_in. */
export function parseJsonb(text: string): JsonbValue {
  return new JsonbValue(parseJsonNode(text))
}
