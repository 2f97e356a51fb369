// Tab completion for the REPL (node:readline's completer): SQL keywords by context, relation
// names where a relation goes (after FROM, JOIN, TABLE, INTO, UPDATE, SUBSCRIBE [TO], DROP
// TABLE …, and for \d), column names of the statement's relations elsewhere, meta-commands
// after `\`, and file names after \i. Keywords follow psql's COMP_KEYWORD_CASE=preserve-upper:
// lower case when the word typed so far starts in lower case, else upper case. A single match is
// completed with a trailing space, as psql does.
import { readdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { RelationInfo, RelationKind } from '../types.js'

/** Keywords that begin a statement. */
export const STATEMENT_KEYWORDS = [
  'ALTER TABLE',
  'BEGIN',
  'COMMIT',
  'COPY',
  'CREATE',
  'DELETE FROM',
  'DROP',
  'EXPLAIN',
  'FLUSH',
  'INSERT INTO',
  'ROLLBACK',
  'SELECT',
  'SET',
  'SHOW',
  'SUBSCRIBE',
  'TABLE',
  'TRUNCATE',
  'UPDATE',
  'VALUES',
  'WITH',
]

/** Keywords offered inside a statement. */
const CLAUSE_KEYWORDS = [
  'ALL', 'AND', 'APPEND ONLY', 'AS', 'ASC', 'AVG', 'BETWEEN', 'BY', 'CASE', 'CAST', 'COALESCE', 'COUNT', 'DESC',
  'DESCRIPTOR', 'DISTINCT', 'ELSE', 'EMIT ON WINDOW CLOSE', 'END', 'EXCEPT', 'EXISTS', 'FALSE', 'FROM', 'FULL', 'GROUP BY',
  'HAVING', 'HOP', 'IN', 'INNER', 'INTERSECT', 'INTERVAL', 'IS', 'JOIN', 'LEFT', 'LIKE', 'LIMIT', 'MAX', 'MIN', 'NOT',
  'NOW()', 'NULL', 'NULLIF', 'OFFSET', 'ON', 'OR', 'ORDER BY', 'OUTER', 'OVER', 'PARTITION BY', 'PRIMARY KEY', 'RIGHT',
  'ROW_NUMBER()', 'SESSION', 'SET', 'STRING_AGG', 'SUM', 'THEN', 'TRUE', 'TUMBLE', 'UNION', 'USING', 'VALUES',
  'WATERMARK FOR', 'WHEN', 'WHERE', 'WINDOW', 'WITH',
]

const OBJECT_KINDS = ['INDEX', 'MATERIALIZED VIEW', 'SCHEMA', 'SINK', 'SOURCE', 'STREAM', 'TABLE', 'VIEW']

const TYPES = ['BIGINT', 'BOOLEAN', 'DATE', 'DOUBLE PRECISION', 'INT', 'INTEGER', 'INTERVAL', 'JSONB', 'NUMERIC', 'REAL', 'SMALLINT', 'TEXT', 'TIMESTAMP', 'VARCHAR']

/** Meta-commands offered after `\`. */
export const META_COMMANDS = ['\\?', '\\conninfo', '\\copy', '\\d', '\\dm', '\\ds', '\\dt', '\\dv', '\\echo', '\\g', '\\h', '\\i', '\\ir', '\\l', '\\p', '\\q', '\\r', '\\set', '\\timing', '\\unset', '\\x']

/** Words that, right before the cursor, call for a relation name. */
const RELATION_AFTER = new Set(['from', 'join', 'table', 'into', 'update', 'subscribe', 'describe'])

/** Words that are not aliases after a relation name. */
const NOT_ALIAS = new Set([
  'where', 'join', 'left', 'right', 'full', 'inner', 'outer', 'cross', 'on', 'using', 'group', 'order', 'having',
  'limit', 'offset', 'union', 'intersect', 'except', 'set', 'values', 'select', 'window', 'emit', 'for', 'natural', 'as',
])

export type Completion = [string[], string]

/** Completes `line` (the text before the cursor) given the unfinished statement text before it
 *  (`buffer`, earlier lines) and the catalog. Returns readline's [candidates, word]. */
export function complete(line: string, buffer: string, relations: readonly RelationInfo[]): Completion {
  const meta = /^\s*(\\\S*)(\s+(.*))?$/.exec(line)
  if (meta) return completeMeta(meta[1]!, meta[3], relations)

  const m = /((?:[A-Za-z_][A-Za-z0-9_$]*\.)?)([A-Za-z0-9_$]*)$/.exec(line)!
  const qualifier = m[1]!.slice(0, -1)
  const word = m[2]!
  const before = `${buffer}\n${line.slice(0, line.length - m[0].length)}`
  const words = statementWords(before)
  const prev = words[words.length - 1]
  const prev2 = words[words.length - 2]
  const rels = relations.filter((r) => r.kind !== 'system')

  if (qualifier) {
    // alias.col or table.col
    const q = qualifier.toLowerCase()
    const target = rels.find((r) => r.name === q) ?? rels.find((r) => r.name === aliasesOf(before + line)[q])
    const cols = target ? target.columns.map((c) => c.name) : []
    return finish(cols, word, qualifier + '.', false)
  }
  if (prev === undefined) return finish(STATEMENT_KEYWORDS, word, '', true)
  const names = (kinds?: readonly RelationKind[]): string[] => rels.filter((r) => !kinds || kinds.includes(r.kind)).map((r) => r.name)
  if (prev === 'create' || prev === 'drop') return finish(prev === 'create' ? [...OBJECT_KINDS, 'OR REPLACE'] : OBJECT_KINDS, word, '', true)
  if (prev === 'materialized') return finish(['VIEW'], word, '', true)
  if (prev === 'insert') return finish(['INTO'], word, '', true)
  if (prev === 'delete') return finish(['FROM'], word, '', true)
  if (prev === 'order' || prev === 'group' || prev === 'partition') return finish(['BY'], word, '', true)
  if (prev === 'subscribe') return finish([...names(), ...(word === '' || 'to'.startsWith(word.toLowerCase()) ? ['TO'] : [])], word, '', true)
  const dropKind = words.length >= 2 && (words[words.length - 2] === 'drop' || (words[words.length - 3] === 'drop' && prev2 === 'materialized'))
  if (dropKind) {
    const kind = prev === 'view' && prev2 === 'materialized' ? 'materialized view' : prev
    if (kind === 'table' || kind === 'stream' || kind === 'view' || kind === 'materialized view') return finish(names([kind]), word, '', false)
  }
  if (prev === 'to' && prev2 === 'subscribe') return finish(names(), word, '', false)
  if (RELATION_AFTER.has(prev) && !(prev === 'table' && prev2 === 'create')) return finish(names(), word, '', false)
  if (prev2 === 'create' || (prev2 === 'view' && words[words.length - 3] === 'materialized')) return finish([], word, '', false) // a new name
  // inside CREATE TABLE/STREAM (…): a new column name, then its type
  const joined = words.join(' ')
  if (/^create (table|stream)\b/.test(joined) && !/\bas\b/.test(joined) && words.includes('(')) {
    if (prev === '(' || prev === ',') return finish([], word, '', false)
    if (/^[a-z_][a-z0-9_$]*$/.test(prev) && (prev2 === '(' || prev2 === ',')) return finish(TYPES, word, '', true)
  }

  // elsewhere: the columns of the statement's relations (all relations' if it names none), and keywords
  const mentioned = mentionedRelations(before + line, rels)
  const cols = new Set<string>()
  for (const r of mentioned.length > 0 ? mentioned : rels) for (const c of r.columns) cols.add(c.name)
  const nameCandidates = [...cols]
  const kw = finish(CLAUSE_KEYWORDS, word, '', true)[0]
  const nm = finish(nameCandidates, word, '', false)[0]
  const all = [...new Set([...nm, ...kw].map((s) => s.trimEnd()))].sort()
  return single(all, word)
}

function completeMeta(cmd: string, arg: string | undefined, relations: readonly RelationInfo[]): Completion {
  if (arg === undefined) return single(META_COMMANDS.filter((c) => c.startsWith(cmd)), cmd)
  const base = cmd.replace(/\+$/, '')
  const argWord = /(\S*)$/.exec(arg)![1]!
  const kinds: Record<string, readonly RelationKind[] | undefined> = { '\\d': undefined, '\\dt': ['table'], '\\ds': ['stream'], '\\dv': ['view'], '\\dm': ['materialized view'] }
  if (base in kinds) {
    const k = kinds[base]
    return finish(
      relations.filter((r) => r.kind !== 'system' && (!k || k.includes(r.kind))).map((r) => r.name),
      argWord,
      '',
      false,
    )
  }
  // \copy TABLE …: the table first
  if (base === '\\copy' && /^\s*\S*$/.test(arg)) return finish(relations.filter((r) => r.kind === 'table' || r.kind === 'stream').map((r) => r.name), argWord, '', false)
  if (base === '\\x') return finish(['on', 'off', 'auto'], argWord, '', false)
  if (base === '\\timing') return finish(['on', 'off'], argWord, '', false)
  if (base === '\\i' || base === '\\ir') return [completeFile(argWord), argWord]
  return [[], argWord]
}

/** File names for `\i`: entries of the typed directory starting with the typed name;
 *  directories end in `/`. */
function completeFile(partial: string): string[] {
  const slash = partial.lastIndexOf('/')
  const dirPart = slash >= 0 ? partial.slice(0, slash + 1) : ''
  const namePart = slash >= 0 ? partial.slice(slash + 1) : partial
  const dir = dirPart === '' ? '.' : dirPart.startsWith('~/') ? join(homedir(), dirPart.slice(2)) : dirPart
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return []
  }
  const out = entries
    .filter((e) => e.startsWith(namePart) && (namePart.startsWith('.') || !e.startsWith('.')))
    .sort()
    .map((e) => {
      let isDir = false
      try {
        isDir = statSync(join(dir, e)).isDirectory()
      } catch {
        // a dangling link completes as a file
      }
      return dirPart + e + (isDir ? '/' : '')
    })
  return out.length === 1 && !out[0]!.endsWith('/') ? [`${out[0]} `] : out
}

/** Candidates matching `word` (case-insensitively), written with the typed prefix kept;
 *  keywords in the case of the word typed. */
function finish(candidates: readonly string[], word: string, prefix: string, keywords: boolean): Completion {
  const lower = word.toLowerCase()
  const upperCase = word === '' || !/^[a-z]/.test(word)
  const out: string[] = []
  for (const c of candidates) {
    if (!c.toLowerCase().startsWith(lower)) continue
    const shown = keywords ? (upperCase ? c.toUpperCase() : c.toLowerCase()) : c
    out.push(prefix + word + shown.slice(word.length))
  }
  return single([...new Set(out)].sort(), prefix + word)
}

/** A lone candidate gets psql's trailing space. */
function single(candidates: string[], word: string): Completion {
  if (candidates.length === 1 && !candidates[0]!.endsWith(' ') && !candidates[0]!.endsWith('/') && !candidates[0]!.endsWith('(')) return [[`${candidates[0]} `], word]
  return [candidates, word]
}

/** The words and punctuation of the current statement (after the last `;`), lower-cased, with
 *  strings, quoted identifiers and comments left out. */
export function statementWords(text: string): string[] {
  const stripped = text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ')
    .replace(/'(?:[^']|'')*('|$)/g, " '' ")
    .replace(/"(?:[^"]|"")*("|$)/g, ' "" ')
  const last = stripped.lastIndexOf(';')
  const stmt = last >= 0 ? stripped.slice(last + 1) : stripped
  return (stmt.match(/[A-Za-z_][A-Za-z0-9_$]*|[(),=<>*+\-/]|''|""|\d+/g) ?? []).map((w) => w.toLowerCase())
}

/** Relations named after FROM / JOIN / UPDATE / INTO / TABLE in the statement. */
function mentionedRelations(text: string, rels: readonly RelationInfo[]): RelationInfo[] {
  const words = statementWords(text)
  const out: RelationInfo[] = []
  for (let i = 1; i < words.length; i++) {
    const prevWord = words[i - 1]!
    if (!RELATION_AFTER.has(prevWord) && prevWord !== ',') continue
    const r = rels.find((x) => x.name === words[i])
    if (r && !out.includes(r)) out.push(r)
  }
  return out
}

/** alias → relation name, from `FROM name [AS] alias` and `JOIN name [AS] alias`. */
function aliasesOf(text: string): Record<string, string> {
  const words = statementWords(text)
  const out: Record<string, string> = {}
  for (let i = 1; i + 1 < words.length; i++) {
    const prevWord = words[i - 1]!
    if (!RELATION_AFTER.has(prevWord) && prevWord !== ',') continue
    let j = i + 1
    if (words[j] === 'as') j++
    const alias = words[j]
    if (alias && /^[a-z_]/.test(alias) && !NOT_ALIAS.has(alias)) out[alias] = words[i]!
  }
  return out
}
