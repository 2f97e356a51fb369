// Postgres v3 wire protocol: framing of frontend messages, reading their fields, and building
// backend messages (https://www.postgresql.org/docs/15/protocol-message-formats.html).
//
// Why our own framer: the maintained node-postgres package `pg-protocol` is client-side (its
// parser reads *backend* messages); `pg-gateway`, the one server-side package on npm, is a 0.x
// line whose 0.3 API exists only as pre-releases and which owns the whole connection (its own
// auth and TLS state machine over Web Streams), leaving no room for what the server needs here:
// a hard cap checked before a message is buffered, CancelRequest routing between connections
// and COPY streaming with backpressure. Framing is a 4-byte length and a type byte, so a small,
// careful framer with bounds checks on every read is the smaller risk.

import { isUtf8 } from 'node:buffer'

/** Protocol codes sent in place of a version in the first packet of a connection. */
export const PROTOCOL_3 = 196608 // 3.0
export const SSL_REQUEST = 80877103
export const GSSENC_REQUEST = 80877104
export const CANCEL_REQUEST = 80877102

/** Postgres's own limit for a startup packet. */
export const MAX_STARTUP_PACKET = 10_000

/** A protocol violation: the connection cannot continue in a known state. */
export class ProtocolError extends Error {
  constructor(
    message: string,
    readonly code = '08P01',
  ) {
    super(message)
    this.name = 'ProtocolError'
  }
}

/** One frontend message: `type` is the message's type byte, or 0 for the untyped packets of
 *  connection startup (StartupMessage, SSLRequest, GSSENCRequest, CancelRequest). */
export interface Frame {
  readonly type: number
  readonly body: Buffer
}

/** Cuts a byte stream into frames. Lengths are checked before anything is buffered: a length
 *  below the minimum or above the cap throws ProtocolError (the caller replies and closes),
 *  so a peer cannot make the server hold more than `maxMessage` bytes of one message. Chunks
 *  are kept as received and joined once per message (no quadratic copying of large ones). */
export class Framer {
  #chunks: Buffer[] = []
  #total = 0
  #startup = true

  /** `maxMessage`: the largest message body accepted (the session lowers it before
   *  authentication and raises it after). */
  constructor(public maxMessage: number) {}

  /** Whether the next frame is an untyped startup packet. */
  set startup(on: boolean) {
    this.#startup = on
  }

  get buffered(): number {
    return this.#total
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return
    this.#chunks.push(chunk)
    this.#total += chunk.length
  }

  /** The next complete frame, or undefined when more bytes are needed. */
  next(): Frame | undefined {
    if (this.#startup) {
      if (this.#total < 4) return undefined
      const len = this.#peek(4).readInt32BE(0)
      if (len < 8 || len > MAX_STARTUP_PACKET) throw new ProtocolError('invalid length of startup packet')
      if (this.#total < len) return undefined
      return { type: 0, body: this.#take(len).subarray(4) }
    }
    if (this.#total < 5) return undefined
    const head = this.#peek(5)
    const type = head[0]!
    const len = head.readInt32BE(1)
    if (len < 4) throw new ProtocolError(`invalid message length ${len}`)
    if (len - 4 > this.maxMessage) throw new ProtocolError(`message of ${len - 4} bytes exceeds the limit of ${this.maxMessage} bytes`, this.maxMessage < MAX_STARTUP_PACKET * 2 ? '08P01' : '54000')
    if (this.#total < len + 1) return undefined
    return { type, body: this.#take(len + 1).subarray(5) }
  }

  #peek(n: number): Buffer {
    const first = this.#chunks[0]!
    if (first.length >= n) return first
    return Buffer.concat(this.#chunks, Math.min(this.#total, Math.max(n, 16))).subarray(0, n)
  }

  #take(n: number): Buffer {
    const first = this.#chunks[0]!
    let out: Buffer
    if (first.length > n) {
      out = first.subarray(0, n)
      this.#chunks[0] = first.subarray(n)
    } else if (first.length === n) {
      out = first
      this.#chunks.shift()
    } else {
      out = Buffer.allocUnsafe(n)
      let filled = 0
      while (filled < n) {
        const c = this.#chunks[0]!
        const k = Math.min(c.length, n - filled)
        c.copy(out, filled, 0, k)
        filled += k
        if (k === c.length) this.#chunks.shift()
        else this.#chunks[0] = c.subarray(k)
      }
    }
    this.#total -= n
    return out
  }
}

/** Reads the fields of one message body; every read is bounds-checked and throws
 *  ProtocolError on a short or malformed body. */
export class Reader {
  #pos = 0
  constructor(readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.#pos
  }

  int16(): number {
    this.#need(2)
    const v = this.buf.readInt16BE(this.#pos)
    this.#pos += 2
    return v
  }

  int32(): number {
    this.#need(4)
    const v = this.buf.readInt32BE(this.#pos)
    this.#pos += 4
    return v
  }

  byte(): number {
    this.#need(1)
    return this.buf[this.#pos++]!
  }

  /** A NUL-terminated string (UTF-8; invalid sequences are a protocol error). */
  cstring(): string {
    const end = this.buf.indexOf(0, this.#pos)
    if (end < 0) throw new ProtocolError('invalid string in message')
    const bytes = this.buf.subarray(this.#pos, end)
    this.#pos = end + 1
    return decodeUtf8(bytes)
  }

  bytes(n: number): Buffer {
    if (n < 0) throw new ProtocolError('invalid length in message')
    this.#need(n)
    const b = this.buf.subarray(this.#pos, this.#pos + n)
    this.#pos += n
    return b
  }

  rest(): Buffer {
    const b = this.buf.subarray(this.#pos)
    this.#pos = this.buf.length
    return b
  }

  /** Throws when bytes are left over (a message longer than its fields). */
  end(): void {
    if (this.#pos !== this.buf.length) throw new ProtocolError('invalid message format')
  }

  #need(n: number): void {
    if (this.#pos + n > this.buf.length) throw new ProtocolError('insufficient data left in message')
  }
}

/** Decodes UTF-8, refusing invalid sequences as Postgres does (22021). */
export function decodeUtf8(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new ProtocolError('invalid byte sequence for encoding "UTF8"', '22021')
  return bytes.toString('utf8')
}

// ------------------------------------------------------------------------ backend messages

/** Builds one backend message: type byte, length, fields. */
class Builder {
  #buf: Buffer
  #len = 5

  constructor(type: string, size = 64) {
    this.#buf = Buffer.allocUnsafe(Math.max(size, 16))
    this.#buf[0] = type.charCodeAt(0)
  }

  #grow(n: number): void {
    if (this.#len + n <= this.#buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#len + n))
    this.#buf.copy(next, 0, 0, this.#len)
    this.#buf = next
  }

  int16(v: number): this {
    this.#grow(2)
    this.#buf.writeInt16BE(v, this.#len)
    this.#len += 2
    return this
  }

  int32(v: number): this {
    this.#grow(4)
    this.#buf.writeInt32BE(v, this.#len)
    this.#len += 4
    return this
  }

  byte(v: number): this {
    this.#grow(1)
    this.#buf[this.#len++] = v
    return this
  }

  cstring(text: string): this {
    const s = text.includes('\0') ? text.replace(/\0/g, '') : text // a NUL would end the field
    const n = Buffer.byteLength(s, 'utf8')
    this.#grow(n + 1)
    this.#buf.write(s, this.#len, 'utf8')
    this.#len += n
    this.#buf[this.#len++] = 0
    return this
  }

  bytes(b: Buffer): this {
    this.#grow(b.length)
    b.copy(this.#buf, this.#len)
    this.#len += b.length
    return this
  }

  finish(): Buffer {
    this.#buf.writeInt32BE(this.#len - 1, 1)
    return this.#buf.subarray(0, this.#len)
  }
}

export const authOk = (): Buffer => new Builder('R').int32(0).finish()
export const authCleartext = (): Buffer => new Builder('R').int32(3).finish()
export const authMd5 = (salt: Buffer): Buffer => new Builder('R').int32(5).bytes(salt).finish()
export const authSasl = (mechanisms: readonly string[]): Buffer => {
  const b = new Builder('R').int32(10)
  for (const m of mechanisms) b.cstring(m)
  return b.byte(0).finish()
}
export const authSaslContinue = (data: string): Buffer => new Builder('R').int32(11).bytes(Buffer.from(data, 'utf8')).finish()
export const authSaslFinal = (data: string): Buffer => new Builder('R').int32(12).bytes(Buffer.from(data, 'utf8')).finish()

export const parameterStatus = (name: string, value: string): Buffer => new Builder('S').cstring(name).cstring(value).finish()
export const backendKeyData = (pid: number, key: number): Buffer => new Builder('K').int32(pid).int32(key).finish()
export const readyForQuery = (status: 'I' | 'T' | 'E'): Buffer => new Builder('Z', 6).byte(status.charCodeAt(0)).finish()
export const commandComplete = (tag: string): Buffer => new Builder('C').cstring(tag).finish()
export const emptyQueryResponse = (): Buffer => new Builder('I').finish()
export const parseComplete = (): Buffer => new Builder('1').finish()
export const bindComplete = (): Buffer => new Builder('2').finish()
export const closeComplete = (): Buffer => new Builder('3').finish()
export const noData = (): Buffer => new Builder('n').finish()
export const portalSuspended = (): Buffer => new Builder('s').finish()
export const copyDone = (): Buffer => new Builder('c').finish()

export const parameterDescription = (oids: readonly number[]): Buffer => {
  const b = new Builder('t', 7 + 4 * oids.length).int16(oids.length)
  for (const o of oids) b.int32(o)
  return b.finish()
}

export const negotiateProtocolVersion = (minor: number, unrecognized: readonly string[]): Buffer => {
  const b = new Builder('v').int32(minor).int32(unrecognized.length)
  for (const o of unrecognized) b.cstring(o)
  return b.finish()
}

/** A column of a RowDescription. */
export interface FieldDescription {
  readonly name: string
  readonly typeOid: number
  readonly typeSize: number
  /** 0 text, 1 binary */
  readonly format: number
}

export const rowDescription = (fields: readonly FieldDescription[]): Buffer => {
  const b = new Builder('T', 7 + fields.length * 32).int16(fields.length)
  for (const f of fields) b.cstring(f.name).int32(0).int16(0).int32(f.typeOid).int16(f.typeSize).int32(-1).int16(f.format)
  return b.finish()
}

/** A DataRow from encoded values (null = SQL NULL). */
export function dataRow(values: readonly (Buffer | null)[]): Buffer {
  let size = 7
  for (const v of values) size += 4 + (v ? v.length : 0)
  const buf = Buffer.allocUnsafe(size)
  buf[0] = 0x44 // 'D'
  buf.writeInt32BE(size - 1, 1)
  buf.writeInt16BE(values.length, 5)
  let pos = 7
  for (const v of values) {
    if (v === null) {
      buf.writeInt32BE(-1, pos)
      pos += 4
    } else {
      buf.writeInt32BE(v.length, pos)
      v.copy(buf, pos + 4)
      pos += 4 + v.length
    }
  }
  return buf
}

/** CopyOutResponse: text format for the whole copy and for each of `columns` columns. */
export const copyOutResponse = (columns: number): Buffer => {
  const b = new Builder('H').byte(0).int16(columns)
  for (let i = 0; i < columns; i++) b.int16(0)
  return b.finish()
}

/** CopyInResponse: text format for the whole copy and for each of `columns` columns. */
export const copyInResponse = (columns: number): Buffer => {
  const b = new Builder('G').byte(0).int16(columns)
  for (let i = 0; i < columns; i++) b.int16(0)
  return b.finish()
}

export const copyData = (data: Buffer | string): Buffer => {
  const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  const buf = Buffer.allocUnsafe(5 + payload.length)
  buf[0] = 0x64 // 'd'
  buf.writeInt32BE(4 + payload.length, 1)
  payload.copy(buf, 5)
  return buf
}

/** The fields of an ErrorResponse / NoticeResponse. */
export interface ErrorFields {
  readonly severity: 'ERROR' | 'FATAL' | 'NOTICE' | 'WARNING'
  readonly code: string
  readonly message: string
  readonly detail?: string | undefined
  readonly hint?: string | undefined
  /** 1-based character position in the query string. */
  readonly position?: number | undefined
}

export function errorResponse(e: ErrorFields, type: 'E' | 'N' = 'E'): Buffer {
  const b = new Builder(type, 64 + Buffer.byteLength(e.message))
  b.byte(0x53).cstring(e.severity) // S
  b.byte(0x56).cstring(e.severity) // V
  b.byte(0x43).cstring(e.code) // C
  b.byte(0x4d).cstring(e.message) // M
  if (e.detail !== undefined) b.byte(0x44).cstring(e.detail) // D
  if (e.hint !== undefined) b.byte(0x48).cstring(e.hint) // H
  if (e.position !== undefined) b.byte(0x50).cstring(String(e.position)) // P
  return b.byte(0).finish()
}
