// uuid: held as its canonical text (32 lower-case hex digits in groups 8-4-4-4-12), so string
// order is PostgreSQL's byte order and string equality is uuid equality. Input in the forms
// PostgreSQL accepts; gen_random_uuid() (version 4).

import { randomUUID } from 'node:crypto'
import { invalidSyntax } from './sql-errors.js'

const HEX = /^[0-9a-f]$/i

/** PostgreSQL's uuid input: 32 hex digits, upper or lower case, optionally in braces, with an
 *  optional hyphen after any group of four digits. */
export function parseUuid(text: string): string {
  let s = text
  if (s.startsWith('{')) {
    if (!s.endsWith('}')) throw invalidSyntax('uuid', text)
    s = s.slice(1, -1)
  }
  let digits = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (HEX.test(c)) digits += c
    else if (c === '-' && digits.length % 4 === 0 && digits.length > 0 && digits.length < 32 && s[i - 1] !== '-') continue
    else throw invalidSyntax('uuid', text)
  }
  if (digits.length !== 32) throw invalidSyntax('uuid', text)
  const d = digits.toLowerCase()
  return `${d.slice(0, 8)}-${d.slice(8, 12)}-${d.slice(12, 16)}-${d.slice(16, 20)}-${d.slice(20)}`
}

/** gen_random_uuid(): a random (version 4) uuid. */
export function randomUuid(): string {
  return randomUUID()
}
