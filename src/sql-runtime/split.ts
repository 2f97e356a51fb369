// Splits SQL script text into statements the way psql does before sending them: at `;` outside
// quotes ('…', E'…', "…", $tag$…$tag$), comments (-- …, nested /* … */) and parentheses, and
// outside the BEGIN … END body of a CREATE TRIGGER (whose statements end in `;` too; a CASE …
// END inside the body does not close it), as sqlite3_complete() does.
// Used by `rivulet -c/-f` (and later the REPL) so that statements run — and print — one at a
// time, and a syntax error in a later statement does not stop the earlier ones.

export interface ScriptStatement {
  /** The statement text, from its first token through its `;` (when it has one). Leading
   *  whitespace and comments are not part of it, as psql drops them. */
  readonly text: string
  /** Offset of `text` in the script. */
  readonly offset: number
  /** 1-based line of the script on which the statement ends (its `;`, or the end of input). */
  readonly endLine: number
  /** False for a trailing statement without `;` at the end of the input. */
  readonly terminated: boolean
}

const isIdentStart = (c: string): boolean => /[A-Za-z_\u0080-\uffff]/.test(c)
const isIdentChar = (c: string): boolean => /[A-Za-z0-9_$\u0080-\uffff]/.test(c)

/** Splits `script` into statements; empty statements (a lone `;`) are dropped. */
export function splitStatements(script: string): ScriptStatement[] {
  const out: ScriptStatement[] = []
  const n = script.length
  let i = 0
  let line = 1
  let start = -1 // offset of the current statement's first token, -1 before it
  let depth = 0
  // CREATE [TEMP | TEMPORARY] TRIGGER: the first words of the statement, and where it is
  let firstWords: string[] = []
  let trigger: 'no' | 'header' | 'body' | 'done' = 'no'
  let caseDepth = 0

  const advanceTo = (j: number): void => {
    for (; i < j && i < n; i++) if (script.charCodeAt(i) === 10) line++
  }

  while (i < n) {
    const c = script[i]!
    const next = script[i + 1]
    // Whitespace and comments before a statement are dropped; inside one they are kept.
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      advanceTo(i + 1)
      continue
    }
    if (c === '-' && next === '-') {
      const eol = script.indexOf('\n', i)
      advanceTo(eol < 0 ? n : eol)
      continue
    }
    if (c === '/' && next === '*') {
      let nest = 0
      let j = i
      while (j < n) {
        if (script[j] === '/' && script[j + 1] === '*') {
          nest++
          j += 2
        } else if (script[j] === '*' && script[j + 1] === '/') {
          nest--
          j += 2
          if (nest === 0) break
        } else j++
      }
      advanceTo(j)
      continue
    }
    if (start < 0) {
      if (c === ';') {
        advanceTo(i + 1)
        continue
      }
      start = i
      firstWords = []
      trigger = 'no'
    }
    if (c === ';' && depth === 0 && trigger !== 'body') {
      out.push({ text: script.slice(start, i + 1), offset: start, endLine: line, terminated: true })
      advanceTo(i + 1)
      start = -1
      continue
    }
    if (c === '(') depth++
    else if (c === ')') depth = Math.max(0, depth - 1)
    if (c === "'") {
      // E'…' (backslash escapes) when the quote follows a lone E/e.
      const prev = i > 0 ? script[i - 1]! : ''
      const escapes = (prev === 'E' || prev === 'e') && !(i > 1 && isIdentChar(script[i - 2]!))
      advanceTo(skipQuoted(script, i, "'", escapes))
      continue
    }
    if (c === '"') {
      advanceTo(skipQuoted(script, i, '"', false))
      continue
    }
    if (c === '$') {
      const m = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(script.slice(i, i + 200))
      if (m) {
        const tag = m[0]
        const close = script.indexOf(tag, i + tag.length)
        advanceTo(close < 0 ? n : close + tag.length)
        continue
      }
    }
    if (isIdentStart(c)) {
      // Consume the identifier so that `$` inside it (a$b) is not read as a dollar quote.
      let j = i + 1
      while (j < n && isIdentChar(script[j]!)) j++
      const w = script.slice(i, j).toLowerCase()
      if (firstWords.length < 3 && trigger === 'no') {
        firstWords.push(w)
        const f = firstWords.join(' ')
        if (f === 'create trigger' || f === 'create temp trigger' || f === 'create temporary trigger') trigger = 'header'
      } else if (depth === 0 && !afterDot(script, i)) {
        if (trigger === 'header' && w === 'begin') {
          trigger = 'body'
          caseDepth = 0
        } else if (trigger === 'body' && w === 'case') caseDepth++
        else if (trigger === 'body' && w === 'end') {
          if (caseDepth > 0) caseDepth--
          else trigger = 'done'
        }
      }
      advanceTo(j)
      continue
    }
    advanceTo(i + 1)
  }
  if (start >= 0) {
    let end = n
    while (end > start && /\s/.test(script[end - 1]!)) end--
    let endLine = 1
    for (let j = 0; j < end; j++) if (script.charCodeAt(j) === 10) endLine++
    out.push({ text: script.slice(start, end), offset: start, endLine, terminated: false })
  }
  return out
}

/** True when the word at `i` follows a `.` (a qualified name's part, not a keyword). */
function afterDot(s: string, i: number): boolean {
  let j = i - 1
  while (j >= 0 && /\s/.test(s[j]!)) j--
  return j >= 0 && s[j] === '.'
}

/** Index just past the closing quote of the quoted token starting at `i` (or the end). */
function skipQuoted(s: string, i: number, quote: string, backslashEscapes: boolean): number {
  let j = i + 1
  while (j < s.length) {
    const c = s[j]
    if (backslashEscapes && c === '\\') {
      j += 2
      continue
    }
    if (c === quote) {
      if (s[j + 1] === quote) {
        j += 2
        continue
      }
      return j + 1
    }
    j++
  }
  return s.length
}
