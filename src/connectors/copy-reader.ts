// COPY's input: a file or the data of COPY … FROM STDIN read as records in PostgreSQL's text
// or CSV format, and the WITH options that say how (format, header, delimiter, null, quote,
// escape, on_error, max_rejected). What a record's fields become is the engine's part
// (src/engine/copy.ts: conversion, checks, rejects, the tick).
// - The data is read and split into records in chunks (copyReadChunk), at the byte level: the
//   special characters (delimiter, quote, escape, newline, backslash) are single bytes, which
//   never occur inside a UTF-8 multi-byte sequence, so fields are found without decoding the
//   data and the byte offset of every record is exact. Only one chunk (plus the record that
//   straddles it) is held.
// - Lines: `line` is the 1-based physical line where a record starts (a CSV record with
//   quoted newlines spans several); line ends are \n or \r\n (a lone \r is data).

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import path from 'node:path'
import * as ivm from '../../ivm/index.js'
import { RivuletError, SqlState, positionAt } from '../../grammar/index.js'
import type * as ast from '../../grammar/index.js'

/** A record's text kept in rivulet_rejected is cut at this many characters. */
const MAX_RECORD_TEXT = 1000

/** Bytes read from the file at a time (tests make it tiny to cross every boundary). */
export const copyReadChunk = { bytes: 1 << 20 }

/** A COPY's WITH options, read. */
export interface CopyOptions {
  readonly csv: boolean
  readonly header: boolean | 'match'
  readonly delimiter: number
  readonly nullBytes: Buffer
  readonly quote: number
  readonly escape: number
  readonly maxRejected: number | undefined
  readonly stop: boolean
}

export function copyOptions(options: readonly ast.CopyOption[], sql: string): CopyOptions {
  const seen = new Map<string, ast.CopyOption>()
  for (const o of options) {
    const at = positionAt(sql, o.span.start)
    if (!KNOWN_OPTIONS.has(o.name)) throw new RivuletError(SqlState.syntaxError, `option "${o.name}" not recognized (known: ${[...KNOWN_OPTIONS].join(', ')})`, at)
    if (seen.has(o.name)) throw new RivuletError(SqlState.syntaxError, 'conflicting or redundant options', at)
    seen.set(o.name, o)
  }
  const fail = (o: ast.CopyOption, code: string, message: string): never => {
    throw new RivuletError(code, message, positionAt(sql, o.span.start))
  }
  const text = (o: ast.CopyOption | undefined): string | undefined => {
    if (o === undefined) return undefined
    if (o.value === undefined) fail(o, SqlState.syntaxError, `${o.name} requires a parameter`)
    return o.value!.text
  }
  const bool = (o: ast.CopyOption | undefined, extra?: string): boolean | string | undefined => {
    if (o === undefined) return undefined
    if (o.value === undefined) return true
    const v = o.value.text.toLowerCase()
    if (['true', 'on', '1'].includes(v)) return true
    if (['false', 'off', '0'].includes(v)) return false
    if (extra !== undefined && v === extra) return v
    return fail(o, SqlState.invalidParameterValue, `${o.name} requires a Boolean value${extra === undefined ? '' : ` or "${extra}"`}`)
  }

  const formatOpt = seen.get('format')
  const format = (text(formatOpt) ?? 'text').toLowerCase()
  if (format === 'binary') fail(formatOpt!, SqlState.featureNotSupported, 'COPY format "binary" is not supported (text, csv)')
  if (format !== 'text' && format !== 'csv') fail(formatOpt!, SqlState.invalidParameterValue, `COPY format "${format}" not recognized`)
  const csv = format === 'csv'
  const header = bool(seen.get('header'), 'match') as boolean | 'match' | undefined
  bool(seen.get('freeze'))

  const oneByte = (o: ast.CopyOption | undefined, what: string, dflt: string): number => {
    const v = text(o) ?? dflt
    if (v.length !== 1 || v.charCodeAt(0) > 127) fail(o!, SqlState.featureNotSupported, `COPY ${what} must be a single one-byte character`)
    return v.charCodeAt(0)
  }
  const delimOpt = seen.get('delimiter')
  const delimiter = oneByte(delimOpt, 'delimiter', csv ? ',' : '\t')
  if (delimiter === LF || delimiter === CR) fail(delimOpt!, SqlState.invalidParameterValue, 'COPY delimiter cannot be newline or carriage return')
  if (!csv && '\\.abcdefghijklmnopqrstuvwxyz0123456789'.includes(String.fromCharCode(delimiter))) fail(delimOpt!, SqlState.invalidParameterValue, `COPY delimiter cannot be "${String.fromCharCode(delimiter)}"`)
  const nullOpt = seen.get('null')
  const nullText = text(nullOpt) ?? (csv ? '' : '\\N')
  if (/[\r\n]/.test(nullText)) fail(nullOpt!, SqlState.invalidParameterValue, 'COPY null representation cannot use newline or carriage return')
  if (nullText.includes(String.fromCharCode(delimiter))) fail(nullOpt ?? delimOpt!, SqlState.invalidParameterValue, 'COPY delimiter must not appear in the NULL specification')
  const quoteOpt = seen.get('quote')
  const escapeOpt = seen.get('escape')
  if (!csv && quoteOpt) fail(quoteOpt, SqlState.featureNotSupported, 'COPY QUOTE requires CSV mode')
  if (!csv && escapeOpt) fail(escapeOpt, SqlState.featureNotSupported, 'COPY ESCAPE requires CSV mode')
  const quote = oneByte(quoteOpt, 'quote', '"')
  const escape = oneByte(escapeOpt, 'escape', String.fromCharCode(quote))
  if (csv && delimiter === quote) fail(quoteOpt ?? delimOpt!, SqlState.invalidParameterValue, 'COPY delimiter and quote must be different')
  if (csv && nullText.includes(String.fromCharCode(quote))) fail(nullOpt ?? quoteOpt!, SqlState.invalidParameterValue, 'CSV quote character must not appear in the NULL specification')

  const encodingOpt = seen.get('encoding')
  const encoding = text(encodingOpt)
  if (encoding !== undefined && !['utf8', 'utf-8', 'unicode'].includes(encoding.toLowerCase())) fail(encodingOpt!, SqlState.featureNotSupported, `COPY encoding "${encoding}" is not supported (UTF8 only)`)

  const maxOpt = seen.get('max_rejected')
  let maxRejected: number | undefined
  if (maxOpt) {
    const v = maxOpt.value
    maxRejected = v?.kind === 'number' || v?.kind === 'string' ? Number(v.text) : NaN
    if (!Number.isSafeInteger(maxRejected) || maxRejected < 0) fail(maxOpt, SqlState.invalidParameterValue, 'max_rejected requires a non-negative integer (how many records may be rejected before the load fails)')
  }
  const onErrorOpt = seen.get('on_error')
  const onError = (text(onErrorOpt) ?? 'ignore').toLowerCase()
  if (onError !== 'stop' && onError !== 'ignore') fail(onErrorOpt!, SqlState.invalidParameterValue, `COPY ON_ERROR "${onError}" not recognized (stop, ignore)`)

  return { csv, header: header ?? false, delimiter, nullBytes: Buffer.from(nullText, 'utf8'), quote, escape, maxRejected, stop: onError === 'stop' }
}

const KNOWN_OPTIONS = new Set(['format', 'header', 'delimiter', 'null', 'quote', 'escape', 'encoding', 'freeze', 'on_error', 'max_rejected'])

const LF = 10
const CR = 13
const BACKSLASH = 92
const DOT = 46

/** The decoder that tells invalid UTF-8 apart from a genuine U+FFFD in the data. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export function openReader(file: string, opts: CopyOptions, progress: ((done: number, total: number) => void) | undefined): RecordReader {
  const full = path.resolve(process.cwd(), file)
  let fd: number
  try {
    fd = openSync(full, 'r')
  } catch (e) {
    throw fileError(e, file)
  }
  let size: number
  try {
    const stat = fstatSync(fd)
    if (stat.isDirectory()) throw new RivuletError(SqlState.wrongObjectType, `"${file}" is a directory`)
    size = stat.size
  } catch (e) {
    closeSync(fd)
    throw e instanceof RivuletError ? e : fileError(e, file)
  }
  const source: ByteSource = {
    read: (buf, at, length) => {
      try {
        return readSync(fd, buf, at, length, null)
      } catch (e) {
        throw fileError(e, file)
      }
    },
    close: () => closeSync(fd),
  }
  return new RecordReader(source, opts, progress ? (done) => progress(done, size) : undefined)
}

/** Where a COPY's bytes come from: a file, or the data a client sent. */
interface ByteSource {
  /** Reads up to `length` bytes into buf at `at`; 0 at the end. */
  read(buf: Buffer, at: number, length: number): number
  close(): void
}

export function bufferSource(data: Buffer): ByteSource {
  let pos = 0
  return {
    read: (buf, at, length) => {
      const n = Math.min(length, data.length - pos)
      data.copy(buf, at, pos, pos + n)
      pos += n
      return n
    },
    close: () => undefined,
  }
}

function fileError(e: unknown, file: string): RivuletError {
  const code = (e as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return new RivuletError('58P01', `could not open file "${file}" for reading: No such file or directory`)
  if (code === 'EACCES' || code === 'EPERM') return new RivuletError('42501', `could not open file "${file}" for reading: Permission denied`)
  if (code === 'EISDIR') return new RivuletError(SqlState.wrongObjectType, `"${file}" is a directory`)
  return new RivuletError('58030', `could not read file "${file}": ${e instanceof Error ? e.message : String(e)}`)
}

/** Splits the file into records, one at a time: after next(), the record's line, byte
 *  offset, fields and raw text are readable until the following next(). */
export class RecordReader {
  readonly #source: ByteSource
  readonly #csv: boolean
  readonly #delim: number
  readonly #quote: number
  readonly #escape: number
  readonly #null: Buffer
  #buf: Buffer = Buffer.alloc(0)
  /** Valid bytes in #buf, and the file offset of #buf[0]. */
  #end = 0
  #base = 0
  #eof = false
  /** Where the next record starts (index into #buf), and its line. */
  #pos = 0
  #nextLine = 1
  /** The current record: [start, end) of its bytes without the line end. */
  #recStart = 0
  #recEnd = 0
  /** Its fields: [start, end) and whether it needs unescaping (text: a backslash; CSV: a
   *  quote). */
  #starts: number[] = []
  #ends: number[] = []
  #special: boolean[] = []
  #scratch = Buffer.alloc(256)
  line = 0
  offset = 0
  fieldCount = 0
  /** CSV: the record ran to the end of the file inside quotes. */
  unterminated = false

  readonly #progress: ((done: number) => void) | undefined

  constructor(source: ByteSource, opts: CopyOptions, progress: ((done: number) => void) | undefined) {
    this.#source = source
    this.#progress = progress
    this.#csv = opts.csv
    this.#delim = opts.delimiter
    this.#quote = opts.quote
    this.#escape = opts.escape
    this.#null = opts.nullBytes
  }

  close(): void {
    this.#source.close()
  }

  /** Advances to the next record; undefined at the end of the data. */
  next(): this | undefined {
    for (;;) {
      if (this.#pos >= this.#end && this.#eof) return undefined
      const next = this.#csv ? this.#scanCsv(this.#pos) : this.#scanText(this.#pos)
      if (next < 0) {
        this.#fill()
        continue
      }
      // text format: `\.` alone on a line ends the data
      if (!this.#csv && this.#recEnd - this.#recStart === 2 && this.#buf[this.#recStart] === BACKSLASH && this.#buf[this.#recStart + 1] === DOT) {
        this.#pos = this.#end
        this.#eof = true
        return undefined
      }
      this.line = this.#nextLine
      this.offset = this.#base + this.#recStart
      this.fieldCount = this.#starts.length
      let lines = 0
      for (let i = this.#recStart; i < next; i++) if (this.#buf[i] === LF) lines++
      this.#nextLine += lines
      this.#pos = next
      return this
    }
  }

  /** Keeps the bytes from #pos on and reads more (at least as much again as is kept, so a
   *  huge record is re-scanned a logarithmic number of times). */
  #fill(): void {
    const keep = this.#end - this.#pos
    const want = Math.max(copyReadChunk.bytes, keep)
    let buf = this.#buf
    if (buf.length < keep + want) {
      buf = Buffer.allocUnsafe(keep + want)
      this.#buf.copy(buf, 0, this.#pos, this.#end)
    } else if (this.#pos > 0) {
      buf.copyWithin(0, this.#pos, this.#end)
    }
    this.#buf = buf
    this.#base += this.#pos
    this.#pos = 0
    this.#end = keep
    while (this.#end < buf.length) {
      const n = this.#source.read(buf, this.#end, buf.length - this.#end)
      if (n === 0) {
        this.#eof = true
        break
      }
      this.#end += n
    }
    this.#progress?.(this.#base + this.#end)
    ivm.checkInterrupt() // a chunk is a batch boundary: a deadline or cancel ends the load
  }

  #startRecord(pos: number): void {
    this.#recStart = pos
    this.#starts.length = 0
    this.#ends.length = 0
    this.#special.length = 0
    this.unterminated = false
  }

  #field(start: number, end: number, special: boolean): void {
    this.#starts.push(start)
    this.#ends.push(end)
    this.#special.push(special)
  }

  /** Text format: finds the record at `pos`; returns where the next one starts, or −1 when
   *  more bytes are needed. */
  #scanText(pos: number): number {
    const buf = this.#buf
    const end = this.#end
    const eof = this.#eof
    const delim = this.#delim
    this.#startRecord(pos)
    let fieldStart = pos
    let escaped = false
    let i = pos
    for (;;) {
      if (i >= end) {
        if (!eof) return -1
        this.#field(fieldStart, end, escaped)
        this.#recEnd = end
        return end
      }
      const c = buf[i]!
      if (c === BACKSLASH) {
        if (i + 1 >= end && !eof) return -1
        escaped = true
        i += 2
      } else if (c === delim) {
        this.#field(fieldStart, i, escaped)
        fieldStart = i + 1
        escaped = false
        i++
      } else if (c === LF) {
        this.#field(fieldStart, i, escaped)
        this.#recEnd = i
        return i + 1
      } else if (c === CR) {
        if (i + 1 >= end && !eof) return -1
        if (buf[i + 1] === LF) {
          this.#field(fieldStart, i, escaped)
          this.#recEnd = i
          return i + 2
        }
        i++
      } else i++
    }
  }

  /** CSV: finds the record at `pos` (quotes may hold delimiters and line ends); returns where
   *  the next one starts, or −1 when more bytes are needed. */
  #scanCsv(pos: number): number {
    const buf = this.#buf
    const end = this.#end
    const eof = this.#eof
    const delim = this.#delim
    const quote = this.#quote
    const escape = this.#escape
    this.#startRecord(pos)
    let fieldStart = pos
    let quoted = false
    let inQuotes = false
    let i = pos
    for (;;) {
      if (i >= end) {
        if (!eof) return -1
        this.#field(fieldStart, end, quoted)
        this.unterminated = inQuotes
        // an unterminated record runs to the end of the file: its text without the last line end
        let recEnd = end
        if (inQuotes && recEnd > pos && buf[recEnd - 1] === LF) recEnd -= recEnd - 1 > pos && buf[recEnd - 2] === CR ? 2 : 1
        this.#recEnd = recEnd
        return end
      }
      const c = buf[i]!
      if (inQuotes) {
        if (c === escape && escape !== quote) {
          if (i + 1 >= end && !eof) return -1
          const n = buf[i + 1]
          i += n === quote || n === escape ? 2 : 1
        } else if (c === quote) {
          if (escape === quote) {
            if (i + 1 >= end && !eof) return -1
            if (buf[i + 1] === quote) {
              i += 2
              continue
            }
          }
          inQuotes = false
          i++
        } else i++
      } else if (c === quote) {
        inQuotes = true
        quoted = true
        i++
      } else if (c === delim) {
        this.#field(fieldStart, i, quoted)
        fieldStart = i + 1
        quoted = false
        i++
      } else if (c === LF) {
        this.#field(fieldStart, i, quoted)
        this.#recEnd = i
        return i + 1
      } else if (c === CR) {
        if (i + 1 >= end && !eof) return -1
        if (buf[i + 1] === LF) {
          this.#field(fieldStart, i, quoted)
          this.#recEnd = i
          return i + 2
        }
        i++
      } else i++
    }
  }

  /** Field `f` of the current record: its text, or null for the NULL marker. Throws 22021
   *  for bytes that are not UTF-8. */
  field(f: number): string | null {
    const buf = this.#buf
    const start = this.#starts[f]!
    const end = this.#ends[f]!
    const special = this.#special[f]!
    // the NULL marker is matched on the raw field (a quoted field never is NULL)
    if (!(this.#csv && special) && end - start === this.#null.length && buf.compare(this.#null, 0, this.#null.length, start, end) === 0) return null
    if (!special) return decode(buf, start, end)
    const out = this.#scratchFor(end - start)
    const n = this.#csv ? this.#unquote(start, end, out) : this.#unescape(start, end, out)
    return decode(out, 0, n)
  }

  #scratchFor(n: number): Buffer {
    if (this.#scratch.length < n) this.#scratch = Buffer.allocUnsafe(Math.max(n, this.#scratch.length * 2))
    return this.#scratch
  }

  /** Text format backslash sequences: \b \f \n \r \t \v, \digits (octal), \xhh, and any
   *  other character stands for itself. */
  #unescape(start: number, end: number, out: Buffer): number {
    const buf = this.#buf
    let j = 0
    for (let i = start; i < end; i++) {
      const c = buf[i]!
      if (c !== BACKSLASH || i + 1 >= end) {
        out[j++] = c
        continue
      }
      const n = buf[++i]!
      switch (n) {
        case 98: // b
          out[j++] = 8
          break
        case 102: // f
          out[j++] = 12
          break
        case 110: // n
          out[j++] = LF
          break
        case 114: // r
          out[j++] = CR
          break
        case 116: // t
          out[j++] = 9
          break
        case 118: // v
          out[j++] = 11
          break
        case 120: {
          // x: one or two hex digits, else a plain x
          let v = 0
          let k = 0
          while (k < 2 && i + 1 < end && isHex(buf[i + 1]!)) {
            v = v * 16 + hexValue(buf[++i]!)
            k++
          }
          out[j++] = k === 0 ? n : v
          break
        }
        default:
          if (n >= 48 && n <= 55) {
            // octal: up to three digits
            let v = n - 48
            for (let k = 0; k < 2 && i + 1 < end && buf[i + 1]! >= 48 && buf[i + 1]! <= 55; k++) v = v * 8 + (buf[++i]! - 48)
            out[j++] = v & 0xff
          } else out[j++] = n
      }
    }
    return j
  }

  /** CSV quoting: quotes removed, a doubled quote (or escape + quote / escape + escape)
   *  inside quotes is the character itself. */
  #unquote(start: number, end: number, out: Buffer): number {
    const buf = this.#buf
    const quote = this.#quote
    const escape = this.#escape
    let j = 0
    let inQuotes = false
    for (let i = start; i < end; i++) {
      const c = buf[i]!
      if (!inQuotes) {
        if (c === quote) inQuotes = true
        else out[j++] = c
      } else if (c === escape && escape !== quote && i + 1 < end && (buf[i + 1] === quote || buf[i + 1] === escape)) {
        out[j++] = buf[++i]!
      } else if (c === quote) {
        if (escape === quote && i + 1 < end && buf[i + 1] === quote) out[j++] = buf[++i]!
        else inQuotes = false
      } else out[j++] = c
    }
    return j
  }

  /** The current record as written (lossy UTF-8), at most 1000 characters. */
  text(): string {
    const end = Math.min(this.#recEnd, this.#recStart + MAX_RECORD_TEXT * 4)
    let s = this.#buf.toString('utf8', this.#recStart, end)
    if (s.length > MAX_RECORD_TEXT) {
      s = s.slice(0, MAX_RECORD_TEXT)
      const last = s.charCodeAt(s.length - 1)
      if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1)
    }
    return s
  }
}

function decode(buf: Buffer, start: number, end: number): string {
  const s = buf.toString('utf8', start, end)
  if (s.includes('\uFFFD')) {
    try {
      strictUtf8.decode(buf.subarray(start, end))
    } catch {
      throw new RivuletError('22021', 'invalid byte sequence for encoding "UTF8"')
    }
  }
  return s
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
}

function hexValue(c: number): number {
  return c <= 57 ? c - 48 : (c | 32) - 87
}
