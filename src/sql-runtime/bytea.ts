// bytea: binary strings, held as their hex output text ('\x0102ff', lower-case), so string
// order is PostgreSQL's byte order and string equality is byte equality. The input formats
// (hex and escape), encode/decode (hex, base64, escape) and the functions over bytes.

import { createHash } from 'node:crypto'
import { sqlError, invalidSyntax } from './sql-errors.js'

/** The bytes of a bytea value. */
export function bytesOf(v: string): Buffer {
  return Buffer.from(v.slice(2), 'hex')
}

/** The bytea value of some bytes. */
export function byteaOf(b: Uint8Array): string {
  return '\\x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')
}

function parseHex(text: string, from: number): Buffer {
  const out: number[] = []
  let i = from
  while (i < text.length) {
    const c = text[i]!
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++
      continue
    }
    const hi = hexDigit(c)
    if (i + 1 >= text.length) throw sqlError('22023', 'invalid hexadecimal data: odd number of digits')
    const lo = hexDigit(text[i + 1]!)
    out.push(hi * 16 + lo)
    i += 2
  }
  return Buffer.from(out)
}

function hexDigit(c: string): number {
  const d = parseInt(c, 16)
  if (Number.isNaN(d) || c.length !== 1) throw sqlError('22023', `invalid hexadecimal digit: "${c}"`)
  return d
}

/** The escape format: `\\` is a backslash, `\ooo` an octal byte, anything else its UTF-8. */
function parseEscape(text: string, error: () => Error): Buffer {
  const parts: Buffer[] = []
  let run = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== '\\') {
      run += c
      continue
    }
    if (text[i + 1] === '\\') {
      run += '\\'
      i++
      continue
    }
    const oct = text.slice(i + 1, i + 4)
    if (!/^[0-3][0-7][0-7]$/.test(oct)) throw error()
    parts.push(Buffer.from(run, 'utf8'), Buffer.from([parseInt(oct, 8)]))
    run = ''
    i += 3
  }
  parts.push(Buffer.from(run, 'utf8'))
  return Buffer.concat(parts)
}

/** PostgreSQL's bytea input: `\x` then hex digits (spaces between pairs allowed), else the
 *  escape format. */
export function parseBytea(text: string): string {
  if (text.startsWith('\\x') || text.startsWith('\\X')) return byteaOf(parseHex(text, 2))
  return byteaOf(parseEscape(text, () => invalidSyntax('bytea', text)))
}

/** encode(bytes, format): 'hex', 'base64' (lines of 76 characters, as PostgreSQL), 'escape'. */
export function encode(v: string, format: string): string {
  const b = bytesOf(v)
  switch (format.toLowerCase()) {
    case 'hex':
      return b.toString('hex')
    case 'base64':
      return (b.toString('base64').match(/.{1,76}/g) ?? []).join('\n')
    case 'escape': {
      let out = ''
      for (const x of b) {
        if (x === 92) out += '\\\\'
        else if (x === 0 || x >= 0x80) out += '\\' + x.toString(8).padStart(3, '0')
        else out += String.fromCharCode(x)
      }
      return out
    }
    default:
      throw sqlError('22023', `unrecognized encoding: "${format}"`)
  }
}

/** decode(text, format): the inverse of encode. */
export function decode(s: string, format: string): string {
  switch (format.toLowerCase()) {
    case 'hex':
      return byteaOf(parseHex(s, 0))
    case 'base64': {
      const clean = s.replace(/[ \t\n\r]/g, '')
      if (/[^A-Za-z0-9+/=]/.test(clean)) throw sqlError('22023', `invalid symbol "${/[^A-Za-z0-9+/=]/.exec(clean)![0]}" found while decoding base64 sequence`)
      if (/=[^=]/.test(clean) || clean.length % 4 === 1) throw sqlError('22023', 'invalid base64 end sequence')
      return byteaOf(Buffer.from(clean, 'base64'))
    }
    case 'escape':
      return byteaOf(parseEscape(s, () => invalidSyntax('bytea', s)))
    default:
      throw sqlError('22023', `unrecognized encoding: "${format}"`)
  }
}

/** length / octet_length of a bytea. */
export function byteaLength(v: string): number {
  return (v.length - 2) / 2
}

/** bytea || bytea. */
export function byteaConcat(a: string, b: string): string {
  return a + b.slice(2)
}

/** substring(bytes from start [for count]), 1-based as PostgreSQL's. */
export function byteaSubstring(v: string, start: number, count?: number): string {
  if (count !== undefined && count < 0) throw sqlError('22011', 'negative substring length not allowed')
  const n = byteaLength(v)
  const from = Math.max(start, 1)
  const to = count === undefined ? n + 1 : Math.min(start + count, n + 1)
  if (to <= from) return '\\x'
  return '\\x' + v.slice(2 + (from - 1) * 2, 2 + (to - 1) * 2)
}

/** md5(bytea): the hex digest. */
export function byteaMd5(v: string): string {
  return createHash('md5').update(bytesOf(v)).digest('hex')
}

/** sha256(bytea) and friends: the digest as a bytea. */
export function byteaDigest(v: string, algorithm: 'sha224' | 'sha256' | 'sha384' | 'sha512'): string {
  return byteaOf(createHash(algorithm).update(bytesOf(v)).digest())
}

/** get_byte(bytes, n): the n-th byte (0-based). */
export function getByte(v: string, n: number): number {
  const len = byteaLength(v)
  if (n < 0 || n >= len) throw sqlError('2202E', `index ${n} out of valid range, 0..${len - 1}`)
  return parseInt(v.slice(2 + n * 2, 4 + n * 2), 16)
}
