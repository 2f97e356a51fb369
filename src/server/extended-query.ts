// The Parse and Bind messages of the extended query protocol: reading them, and making from
// them a prepared statement (its parameter sites and types) and a portal's text (the
// parameter values put in as literals). Apart from the session because none of this needs
// the connection: the session checks the names against its statements and portals, these
// do the rest, in the order PostgreSQL reports the errors.

import { parse, RivuletError } from '../../grammar/index.js'
import { castNameForOid, decodeBinaryParameter, OID } from './pg-types.js'
import { decodeUtf8, ProtocolError, Reader } from './protocol.js'
import { bindParameters, parameterSites, quoteLiteral, type Substitution } from './parameters.js'
import type { Prepared } from './statement-runner.js'

/** A Parse message: the statement's name, its text and the parameter types given. */
export function readParse(body: Buffer): { name: string; text: string; types: number[] } {
  const r = new Reader(body)
  const name = r.cstring()
  const text = r.cstring()
  const n = r.int16()
  if (n < 0) throw new ProtocolError('invalid number of parameter types')
  const types: number[] = []
  for (let i = 0; i < n; i++) types.push(r.int32() >>> 0)
  r.end()
  return { name, text, types }
}

/** A prepared statement of `text`: one statement, its parameter sites, a type for each
 *  parameter (0, unspecified, where the client gave none). */
export function prepare(text: string, types: readonly number[]): Prepared {
  const parsed = parse(text)
  if (parsed.length > 1) throw new RivuletError('42601', 'cannot insert multiple commands into a prepared statement')
  const sites = parameterSites(parsed)
  const count = Math.max(types.length, ...sites.map((p) => p.index))
  if (count > 65535) throw new RivuletError('54000', 'too many parameters')
  const paramTypes = Array.from({ length: count }, (_, i) => types[i] ?? 0)
  return { text, paramTypes, sites }
}

/** A Bind message, as sent (the counts as the message gives them, even negative). */
export interface BindMessage {
  readonly portalName: string
  readonly statementName: string
  readonly nFormats: number
  readonly formats: readonly number[]
  readonly nParams: number
  readonly raw: readonly (Buffer | null)[]
  readonly resultCodes: readonly number[]
}

export function readBind(body: Buffer): BindMessage {
  const r = new Reader(body)
  const portalName = r.cstring()
  const statementName = r.cstring()
  const nFormats = r.int16()
  const formats: number[] = []
  for (let i = 0; i < nFormats; i++) formats.push(r.int16())
  const nParams = r.int16()
  const raw: (Buffer | null)[] = []
  for (let i = 0; i < nParams; i++) {
    const len = r.int32()
    raw.push(len === -1 ? null : r.bytes(len))
  }
  const nResult = r.int16()
  const resultCodes: number[] = []
  for (let i = 0; i < nResult; i++) resultCodes.push(r.int16())
  r.end()
  return { portalName, statementName, nFormats, formats, nParams, raw, resultCodes }
}

/** The text a portal runs: the statement's with the Bind message's values in place of its
 *  parameters (checked: their number, formats and encoding). */
export function bindStatement(statement: Prepared, message: BindMessage): { text: string; edits: readonly Substitution[] } {
  const { statementName, nFormats, formats, nParams, raw, resultCodes } = message
  if (nParams !== statement.paramTypes.length) throw new ProtocolError(`bind message supplies ${nParams} parameters, but prepared statement "${statementName}" requires ${statement.paramTypes.length}`)
  if (nFormats > 1 && nFormats !== nParams) throw new ProtocolError(`bind message has ${nFormats} parameter formats but ${nParams} parameters`)
  for (const c of [...formats, ...resultCodes]) if (c !== 0 && c !== 1) throw new ProtocolError(`invalid format code: ${c}`)
  const values = raw.map((b, i): string | null => {
    if (b === null) return null
    const format = nFormats === 0 ? 0 : nFormats === 1 ? formats[0]! : formats[i]!
    const type = statement.paramTypes[i]!
    let v: string | undefined
    if (format === 0) v = decodeUtf8(b)
    else {
      if ((type === OID.text || type === OID.varchar || type === 0) && !isUtf8Safe(b)) throw new RivuletError('22021', 'invalid byte sequence for encoding "UTF8"')
      v = decodeBinaryParameter(b, type)
    }
    if (v === undefined) throw new RivuletError('22P03', `unsupported binary format for parameter $${i + 1} (type ${type}); send it in text format`)
    if (v.includes('\0')) throw new RivuletError('22021', 'invalid byte sequence for encoding "UTF8": 0x00')
    return v
  })
  return bindParameters(statement.text, statement.sites, (n, count) => {
    if (n < 1 || n > values.length) throw new RivuletError('42P02', `there is no parameter $${n}`)
    const v = values[n - 1]!
    const cast = castNameForOid(statement.paramTypes[n - 1]!)
    if (v === null) return cast ? `NULL::${cast}` : 'NULL'
    if (count && /^\s*\d+\s*$/.test(v)) return v.trim()
    return cast ? `${quoteLiteral(v)}::${cast}` : quoteLiteral(v)
  })
}

function isUtf8Safe(b: Buffer): boolean {
  try {
    decodeUtf8(b)
    return true
  } catch {
    return false
  }
}

