// One client connection: startup (SSL/GSS refusal, protocol version, authentication), then the
// simple and extended query protocols over the shared engine, with the session's own
// transaction state, settings, prepared statements, portals and cursors.
//
// Messages are handled one at a time, in order, by an async loop (a statement may wait: for
// another session's transaction, for a FETCH's rows, for a COPY subscription to end); what
// arrives meanwhile queues, and reading from the socket pauses when too much has queued.
// Output is gathered and written once per turn of the event loop.

import { allocationLimitError } from '../sql-runtime/text-limit.js'
import { randomInt } from 'node:crypto'
import type { Socket } from 'node:net'
import { TLSSocket, type SecureContext } from 'node:tls'
import { parse, RivuletError, type ParsedStatement } from '../../grammar/index.js'
import type { ResultValue, SessionIdentity } from '../types.js'
import { createAuthenticator, type AuthMethod, type Authenticator } from './auth.js'
import type { AuthThrottle } from './throttle.js'
import { SETTINGS } from './settings.js'
import { Cancellation, cancelledError, type EngineGate } from './gate.js'
import type { EngineSession } from '../engine/index.js'
import { castNameForOid, decodeBinaryParameter, describeFields, encodeValue, OID, resultFormats, type Field } from './pg-types.js'
import {
  backendKeyData,
  bindComplete,
  CANCEL_REQUEST,
  closeComplete,
  commandComplete,
  copyData,
  copyDone,
  copyInResponse,
  copyOutResponse,
  dataRow,
  decodeUtf8,
  emptyQueryResponse,
  errorResponse,
  Framer,
  GSSENC_REQUEST,
  MAX_STARTUP_PACKET,
  negotiateProtocolVersion,
  noData,
  parameterDescription,
  parameterStatus,
  parseComplete,
  portalSuspended,
  ProtocolError,
  Reader,
  readyForQuery,
  rowDescription,
  SSL_REQUEST,
  type ErrorFields,
  type Frame,
} from './protocol.js'
import { timeoutError, type StatementLimits } from '../sql-runtime/statement-limits.js'
import { parseMilliseconds, sessionAction, type SessionAction } from './commands.js'
import { bindParameters, codePointOffset, mapOffsetBack, parameterSites, quoteLiteral, type ParameterSite, type Substitution } from './parameters.js'
import { copyCsvLine, copyTextLine, CopySubscription, CursorSubscription, type CopyTarget } from './subscriptions.js'

/** What a session needs from its server. */
export interface ServerContext {
  readonly gate: EngineGate
  readonly auth: AuthMethod
  readonly password: string | undefined
  readonly maxMessageBytes: number
  readonly subscriptionBufferBytes: number
  /** Whether `COPY t FROM 'file'` may read the server's files (as Postgres allows only to
   *  pg_read_server_files). */
  readonly allowServerFiles: boolean
  readonly serverVersion: string
  oidOf(name: string): number
  nextPid(): number
  register(s: Session): void
  unregister(s: Session): void
  /** Routes a CancelRequest to the session it names. */
  cancel(pid: number, key: number): void
  /** Spaces password checks of client addresses that failed before. */
  readonly throttle: AuthThrottle
  /** The default statement_timeout (ms, 0 = none). */
  readonly statementTimeoutMs: number
  /** The certificate and key for TLS (--tls-cert / --tls-key), if configured. */
  readonly tls: SecureContext | undefined
  /** --max-memory in bytes (undefined: none). */
  readonly maxMemoryBytes: number | undefined
  /** Largest result (bytes of DataRows) one statement may send (54000 past it). */
  readonly maxResultBytes: number
  /** Handles the CancelRequests that arrived while the event loop was busy (the relay sees
   *  them even while the engine runs a long statement): polled at batch boundaries. */
  drainCancels(): void
}

/** The result of running one statement. */
type Outcome =
  | { readonly kind: 'rows'; readonly fields: readonly Field[]; readonly rows: ResultValue[][]; readonly command: string }
  | { readonly kind: 'command'; readonly tag: string }
  | { readonly kind: 'empty' }
  /** COPY … TO STDOUT / SUBSCRIBE: writes CopyOutResponse and the data itself; resolves to
   *  the command tag (or rejects, e.g. when cancelled). */
  | { readonly kind: 'copy'; readonly run: (op: Cancellation) => Promise<string> }

interface Prepared {
  readonly text: string
  readonly paramTypes: readonly number[]
  readonly sites: readonly ParameterSite[]
}

interface Portal {
  readonly statement: Prepared
  readonly text: string
  readonly edits: readonly Substitution[]
  readonly resultCodes: readonly number[]
  outcome: Outcome | undefined
  /** Rows already sent (Execute with a row limit). */
  position: number
}

type Cursor = { readonly kind: 'subscription'; readonly sub: CursorSubscription } | { readonly kind: 'rows'; readonly fields: readonly Field[]; readonly rows: ResultValue[][] }

/** An error ending the connection (FATAL). */
class FatalError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** Raised into a statement's waits when its connection is gone. */
class ConnectionClosed extends Error {}

/** An error of an extended-protocol statement, with the text its position refers to. */
class InStatement extends Error {
  constructor(
    readonly error: unknown,
    readonly sql: string,
    readonly edits: readonly Substitution[],
  ) {
    super(errorMessage(error))
  }
}

/** An error whose position is in a text that starts at `at` in the query string (undefined:
 *  a text the server made, whose positions mean nothing to the client). */
class InText extends Error {
  constructor(
    readonly error: RivuletError,
    readonly at: number | undefined,
  ) {
    super(error.message)
  }
}

const MAX_QUEUED_MESSAGES = 256
const STARTUP_TIMEOUT_MS = 60_000
/** Before authentication: the largest message accepted (a password or SASL message is small;
 *  Postgres caps the startup packet at 10 000 bytes) and how many may queue. */
const PRE_AUTH_MAX_MESSAGE = MAX_STARTUP_PACKET
const PRE_AUTH_MAX_QUEUED = 4

export class Session {
  readonly pid: number
  readonly secret = randomInt(1, 2 ** 31 - 1)
  /** The client's socket; a TLSSocket over it after an SSLRequest when TLS is configured. */
  #socket: Socket
  readonly #ctx: ServerContext
  readonly #framer: Framer
  readonly #inbox: Frame[] = []
  #pumping = false
  #closed = false
  #phase: 'startup' | 'auth' | 'ready' = 'startup'
  #auth: Authenticator | undefined
  user = ''
  database = ''
  readonly #settings = new Map<string, string>()
  readonly #reportedChanges = new Set<string>()
  #tx: 'I' | 'T' | 'E' = 'I'
  /** This connection's session of the engine: its transaction block is its own, and never
   *  waits for another connection's (src/engine/transactions.ts). */
  readonly #engine: EngineSession
  readonly #statements = new Map<string, Prepared>()
  readonly #portals = new Map<string, Portal>()
  readonly #cursors = new Map<string, Cursor>()
  readonly #copies = new Set<CopySubscription>()
  /** Extended protocol: after an error, messages are skipped until Sync. */
  #skipTillSync = false
  /** The operation a CancelRequest would cancel. */
  #op: Cancellation | undefined
  #out: Buffer[] = []
  #outBytes = 0
  #flushQueued = false

  /** `refuse`: the server is full; the session answers an SSLRequest or a CancelRequest but
   *  refuses a startup with 53300. */
  constructor(
    socket: Socket,
    ctx: ServerContext,
    /** The client's address (for the password throttle). */
    readonly address: string,
    readonly refuse = false,
  ) {
    this.#socket = socket
    this.#ctx = ctx
    this.#engine = ctx.gate.engine.session()
    this.pid = ctx.nextPid()
    this.#framer = new Framer(PRE_AUTH_MAX_MESSAGE)
    for (const s of SETTINGS) this.#settings.set(s.name.toLowerCase(), s.value)
    this.#settings.set('server_version', ctx.serverVersion)
    this.#settings.set('statement_timeout', String(ctx.statementTimeoutMs))
    if (typeof socket.setNoDelay === 'function') socket.setNoDelay(true)
    this.#listen(socket)
    // a connection that does not complete startup and authentication in time is closed (as
    // Postgres's authentication_timeout does)
    this.#startupTimer = setTimeout(() => this.#fatal('08006', 'startup and authentication did not complete within 60 s'), STARTUP_TIMEOUT_MS)
    this.#startupTimer.unref()
  }

  readonly #startupTimer: NodeJS.Timeout

  #listen(socket: Socket): void {
    socket.on('data', (chunk: Buffer) => this.#onData(chunk))
    socket.on('error', () => this.#destroy())
    socket.on('close', () => this.#destroy())
    socket.on('end', () => this.#destroy())
  }

  /** Answers an SSLRequest with 'S' and goes on over TLS. Bytes the client sent after its
   *  SSLRequest in the clear would be read as if encrypted (CVE-2021-23214): refused. */
  #startTls(context: SecureContext): void {
    if (this.#framer.buffered > 0 || this.#inbox.length > 0) throw new FatalError('08P01', 'received unencrypted data after SSL request')
    const raw = this.#socket
    raw.removeAllListeners('data')
    raw.write(Buffer.from('S'))
    const secure = new TLSSocket(raw, { isServer: true, secureContext: context })
    this.#socket = secure
    this.#tls = true
    this.#listen(secure)
  }

  #tls = false

  get closed(): boolean {
    return this.#closed
  }

  /** A CancelRequest for this session: cancels the running statement, if any. */
  cancelCurrent(): void {
    this.#op?.cancel(cancelledError())
  }

  /** Ends the session from the server side (shutdown). */
  terminate(message: string): void {
    if (this.#closed) return
    if (this.#phase !== 'ready') {
      this.#socket.destroy()
      this.#destroy()
      return
    }
    this.#send(errorResponse({ severity: 'FATAL', code: '57P01', message }))
    this.#flush()
    this.#socket.end()
    this.#destroy()
  }

  // ---------------------------------------------------------------------------- input

  #onData(chunk: Buffer): void {
    if (this.#closed) return
    if (this.#idleTimer !== undefined) {
      clearTimeout(this.#idleTimer)
      this.#idleTimer = undefined
    }
    this.#framer.push(chunk)
    try {
      for (let f = this.#framer.next(); f; f = this.#framer.next()) {
        if (f.type === 0) {
          // after SSLRequest / GSSENCRequest comes another startup packet; after anything else,
          // typed messages
          const code = f.body.readInt32BE(0)
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.#framer.startup = false
        } else if (this.#copyIn !== undefined && (f.type === 0x64 || f.type === 0x63 || f.type === 0x66)) {
          // CopyData / CopyDone / CopyFail of a COPY FROM STDIN: the statement waits for them
          this.#copyIn.take(f)
          continue
        } else if (f.type === 0x58 && this.#pumping) {
          // Terminate while a statement runs (a COPY stream, a FETCH wait): end now
          this.#socket.end()
          this.#destroy()
          return
        }
        this.#inbox.push(f)
      }
    } catch (e) {
      this.#fatal(e instanceof ProtocolError ? e.code : '08P01', errorMessage(e))
      return
    }
    if (this.#phase !== 'ready' && this.#inbox.length > PRE_AUTH_MAX_QUEUED) {
      this.#fatal('08P01', 'too many messages before authentication')
      return
    }
    if (this.#inbox.length > MAX_QUEUED_MESSAGES) this.#socket.pause()
    void this.#pump()
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return
    this.#pumping = true
    try {
      while (!this.#closed && this.#inbox.length > 0) {
        const f = this.#inbox.shift()!
        try {
          await this.#handle(f)
        } catch (e) {
          if (e instanceof FatalError) this.#fatal(e.code, e.message)
          else if (e instanceof ProtocolError) this.#fatal(e.code, e.message)
          else if (!(e instanceof ConnectionClosed)) this.#fatal('XX000', `internal error: ${errorMessage(e)}`)
        }
        if (this.#inbox.length < MAX_QUEUED_MESSAGES / 2 && this.#socket.isPaused() && !this.#closed) this.#socket.resume()
      }
    } finally {
      this.#pumping = false
      this.#flush()
    }
  }

  async #handle(f: Frame): Promise<void> {
    if (this.#phase === 'startup') return this.#startupPacket(f)
    if (this.#phase === 'auth') return this.#password(f)
    const type = String.fromCharCode(f.type)
    if (this.#skipTillSync && type !== 'S' && type !== 'X') return
    switch (type) {
      case 'Q':
        return this.#simpleQuery(f.body)
      case 'P':
        return this.#extended(() => this.#parse(f.body))
      case 'B':
        return this.#extended(() => this.#bind(f.body))
      case 'D':
        return this.#extended(() => this.#describe(f.body))
      case 'E':
        return this.#extended(() => this.#execute(f.body))
      case 'C':
        return this.#extended(() => this.#close(f.body))
      case 'H':
        return this.#flush()
      case 'S':
        this.#skipTillSync = false
        return this.#readyForQuery()
      case 'X':
        this.#socket.end()
        return this.#destroy()
      case 'd':
      case 'c':
      case 'f':
        return // COPY messages outside COPY FROM: ignored, as Postgres does after a failed COPY
      case 'F':
        this.#sendError({ severity: 'ERROR', code: '0A000', message: 'function calls (the FunctionCall message) are not supported' })
        return this.#readyForQuery()
      default:
        throw new FatalError('08P01', `invalid frontend message type ${f.type}`)
    }
  }

  // ---------------------------------------------------------------------------- startup

  #startupPacket(f: Frame): void {
    const r = new Reader(f.body)
    const code = r.int32()
    if (code === SSL_REQUEST && this.#ctx.tls !== undefined && !this.#tls) return this.#startTls(this.#ctx.tls)
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      // no TLS configured (or GSSAPI encryption asked): 'N', and the client goes on in the clear
      this.#send(Buffer.from('N'))
      return
    }
    if (code === CANCEL_REQUEST) {
      if (f.body.length === 12) this.#ctx.cancel(r.int32(), r.int32())
      this.#socket.end()
      this.#destroy()
      return
    }
    const major = code >>> 16
    const minor = code & 0xffff
    if (major !== 3) throw new FatalError('0A000', `unsupported frontend protocol ${major}.${minor}: server supports 3.0 to 3.0`)
    if (this.refuse) throw new FatalError('53300', 'sorry, too many clients already')
    const params = new Map<string, string>()
    for (;;) {
      const name = r.cstring()
      if (name === '') break
      params.set(name, r.cstring())
    }
    if (r.remaining !== 0) throw new FatalError('08P01', 'invalid startup packet layout: expected terminator as last byte')
    const user = params.get('user')
    if (!user) throw new FatalError('28000', 'no PostgreSQL user name specified in startup packet')
    const replication = params.get('replication')
    if (replication !== undefined && !['false', 'off', 'no', '0'].includes(replication.toLowerCase())) throw new FatalError('0A000', 'replication connections are not supported')
    this.user = user
    this.database = params.get('database') || user
    const protocolOptions: string[] = []
    for (const [name, value] of params) {
      if (name.startsWith('_pq_.')) protocolOptions.push(name)
      else if (name === 'client_encoding') this.#settings.set('client_encoding', clientEncoding(value))
      else if (name !== 'user' && name !== 'database' && name !== 'options' && name !== 'replication') this.#settings.set(name.toLowerCase(), value)
    }
    this.#settings.set('session_authorization', user)
    if (minor > 0 || protocolOptions.length > 0) this.#send(negotiateProtocolVersion(0, protocolOptions))
    this.#phase = 'auth'
    this.#auth = createAuthenticator(this.#ctx.auth, user, this.#ctx.password)
    this.#send(this.#auth.start())
    if (this.#auth.done) this.#startSession()
  }

  async #password(f: Frame): Promise<void> {
    if (f.type !== 0x70) throw new FatalError('08P01', `expected password response, got message type ${f.type}`)
    const address = this.address
    if (!this.#throttled) {
      // an address that failed before waits for its turn (see throttle.ts)
      this.#throttled = true
      const wait = this.#ctx.throttle.reserve(address)
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      if (this.#closed) return
    }
    const step = this.#auth!.step(f.body)
    if (step.kind === 'continue') return void this.#send(step.send)
    this.#ctx.throttle.record(address, step.kind === 'ok')
    if (step.kind === 'fail') throw new FatalError('28P01', `password authentication failed for user "${this.user}"`)
    for (const b of step.send) this.#send(b)
    this.#startSession()
  }

  #throttled = false

  #startSession(): void {
    this.#phase = 'ready'
    this.#framer.maxMessage = this.#ctx.maxMessageBytes
    clearTimeout(this.#startupTimer)
    for (const s of SETTINGS) if (s.report) this.#send(parameterStatus(s.name, this.#settings.get(s.name.toLowerCase()) ?? ''))
    this.#send(backendKeyData(this.pid, this.secret))
    this.#ctx.register(this)
    this.#readyForQuery()
  }

  // ---------------------------------------------------------------------------- simple query

  async #simpleQuery(body: Buffer): Promise<void> {
    let sql: string
    try {
      const r = new Reader(body)
      sql = r.cstring()
    } catch (e) {
      this.#sendError(this.#errorFields(e))
      return this.#readyForQuery()
    }
    // the whole query string is parsed first (a syntax error anywhere runs nothing, as in
    // Postgres); each statement then runs by what the parser made of it
    let statements: ParsedStatement[]
    try {
      statements = parse(sql)
    } catch (e) {
      this.#failed(e, sql, 0, [])
      return this.#readyForQuery()
    }
    if (statements.length === 0) {
      this.#send(emptyQueryResponse())
      return this.#readyForQuery()
    }
    const op = this.#begin()
    try {
      for (const st of statements) {
        try {
          const outcome = await this.#run(st, sql, op)
          await this.#sendOutcome(outcome, op, { describe: true, codes: [], limit: 0 })
        } catch (e) {
          if (e instanceof ConnectionClosed || this.#closed) return
          if (e instanceof InText) this.#failed(e.error, sql, e.at, [])
          else this.#failed(e, sql, 0, [])
          break
        }
      }
    } finally {
      this.#end(op)
    }
    this.#readyForQuery()
  }

  // ---------------------------------------------------------------------------- extended query

  /** Runs an extended-protocol step; an error is reported and everything up to Sync skipped. */
  async #extended(step: () => void | Promise<void>): Promise<void> {
    try {
      await step()
    } catch (e) {
      if (e instanceof FatalError || e instanceof ConnectionClosed || this.#closed) throw e
      if (e instanceof InStatement && e.error instanceof InText) this.#failed(e.error.error, e.sql, e.error.at, e.edits)
      else if (e instanceof InStatement) this.#failed(e.error, e.sql, 0, e.edits)
      else this.#failed(e, undefined, 0, [])
      this.#skipTillSync = true
    }
  }

  #parse(body: Buffer): void {
    const r = new Reader(body)
    const name = r.cstring()
    const text = r.cstring()
    const n = r.int16()
    if (n < 0) throw new ProtocolError('invalid number of parameter types')
    const types: number[] = []
    for (let i = 0; i < n; i++) types.push(r.int32() >>> 0)
    r.end()
    if (name !== '' && this.#statements.has(name)) throw new RivuletError('42P05', `prepared statement "${name}" already exists`)
    const parsed = parse(text)
    if (parsed.length > 1) throw new RivuletError('42601', 'cannot insert multiple commands into a prepared statement')
    const sites = parameterSites(parsed)
    const count = Math.max(types.length, ...sites.map((p) => p.index))
    if (count > 65535) throw new RivuletError('54000', 'too many parameters')
    const paramTypes = Array.from({ length: count }, (_, i) => types[i] ?? 0)
    this.#statements.set(name, { text, paramTypes, sites })
    this.#send(parseComplete())
  }

  #bind(body: Buffer): void {
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
    const statement = this.#statements.get(statementName)
    if (!statement) throw new RivuletError('26000', statementName === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${statementName}" does not exist`)
    if (portalName !== '' && this.#portals.has(portalName)) throw new RivuletError('42P03', `portal "${portalName}" already exists`)
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
    const { text, edits } = bindParameters(statement.text, statement.sites, (n, count) => {
      if (n < 1 || n > values.length) throw new RivuletError('42P02', `there is no parameter $${n}`)
      const v = values[n - 1]!
      const cast = castNameForOid(statement.paramTypes[n - 1]!)
      if (v === null) return cast ? `NULL::${cast}` : 'NULL'
      if (count && /^\s*\d+\s*$/.test(v)) return v.trim()
      return cast ? `${quoteLiteral(v)}::${cast}` : quoteLiteral(v)
    })
    this.#portals.set(portalName, { statement, text, edits, resultCodes, outcome: undefined, position: 0 })
    this.#send(bindComplete())
  }

  async #describe(body: Buffer): Promise<void> {
    const r = new Reader(body)
    const kind = String.fromCharCode(r.byte())
    const name = r.cstring()
    r.end()
    if (kind === 'S') {
      const st = this.#statements.get(name)
      if (!st) throw new RivuletError('26000', name === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${name}" does not exist`)
      this.#send(parameterDescription(st.paramTypes.map((t) => (t === 0 ? OID.text : t))))
      // columns without parameter values: run a read with NULLs in their place
      const { text, edits } = bindParameters(st.text, st.sites, () => 'NULL')
      const fields = await this.#fieldsOf(text, undefined).catch((e: unknown) => {
        throw new InStatement(e, st.text, edits)
      })
      this.#send(fields ? rowDescription(describeFields(fields)) : noData())
    } else if (kind === 'P') {
      const portal = this.#portals.get(name)
      if (!portal) throw new RivuletError('34000', `portal "${name}" does not exist`)
      const fields = await this.#fieldsOf(portal.text, portal).catch((e: unknown) => {
        throw new InStatement(e, portal.statement.text, portal.edits)
      })
      this.#send(fields ? rowDescription(describeFields(fields, resultFormats(fields, portal.resultCodes))) : noData())
    } else throw new ProtocolError(`invalid DESCRIBE message subtype ${kind.charCodeAt(0)}`)
  }

  /** The columns a statement returns, or undefined (NoData). A read is run to learn them;
   *  for a portal the outcome is kept for its Execute (a read never runs twice). */
  async #fieldsOf(text: string, portal: Portal | undefined): Promise<readonly Field[] | undefined> {
    if (portal?.outcome) return portal.outcome.kind === 'rows' ? portal.outcome.fields : undefined
    const st = parse(text)[0]
    if (st === undefined) return undefined
    const action = sessionAction(st, text)
    if (action.kind === 'fetch') {
      const c = this.#cursor(action.name)
      return c.kind === 'rows' ? c.fields : c.sub.fields
    }
    if (action.kind === 'show') return [{ name: action.name === 'all' ? 'name' : this.#settingDisplayName(action.name), type: 'text' }, ...(action.name === 'all' ? [{ name: 'setting', type: 'text' as const }, { name: 'description', type: 'text' as const }] : [])]
    if (action.kind !== 'engine' || !action.read) return undefined
    const op = this.#begin()
    try {
      const outcome = await this.#run(st, text, op)
      if (portal) portal.outcome = outcome
      return outcome.kind === 'rows' ? outcome.fields : undefined
    } finally {
      this.#end(op)
    }
  }

  async #execute(body: Buffer): Promise<void> {
    const r = new Reader(body)
    const name = r.cstring()
    const limit = r.int32()
    r.end()
    const portal = this.#portals.get(name)
    if (!portal) throw new RivuletError('34000', `portal "${name}" does not exist`)
    const op = this.#begin()
    try {
      if (!portal.outcome) {
        try {
          const st = parse(portal.text)[0]
          portal.outcome = st === undefined ? { kind: 'empty' } : await this.#run(st, portal.text, op)
        } catch (e) {
          throw new InStatement(e, portal.statement.text, portal.edits)
        }
      }
      await this.#sendOutcome(portal.outcome, op, { describe: false, codes: portal.resultCodes, limit: limit > 0 ? limit : 0, portal })
    } finally {
      this.#end(op)
    }
  }

  #close(body: Buffer): void {
    const r = new Reader(body)
    const kind = String.fromCharCode(r.byte())
    const name = r.cstring()
    r.end()
    if (kind === 'S') this.#statements.delete(name)
    else if (kind === 'P') this.#portals.delete(name)
    else throw new ProtocolError(`invalid CLOSE message subtype ${kind.charCodeAt(0)}`)
    this.#send(closeComplete())
  }

  // ---------------------------------------------------------------------------- statements

  #begin(): Cancellation {
    const op = new Cancellation()
    this.#op = op
    return op
  }

  #end(op: Cancellation): void {
    if (this.#op === op) this.#op = undefined
  }

  /** Runs one parsed statement of `sql`; an error inside a transaction block aborts the
   *  block. */
  async #run(st: ParsedStatement, sql: string, op: Cancellation): Promise<Outcome> {
    let action: SessionAction | undefined
    // statement_timeout applies to each statement (of a multi-statement query too): its
    // waits are cut by a timer, its work in the engine by the deadline
    const timeoutMs = this.#statementTimeoutMs()
    const stmt = new Cancellation()
    const unlink = op.on((e) => stmt.cancel(e))
    const timer = timeoutMs > 0 ? setTimeout(() => stmt.cancel(timeoutError()), timeoutMs) : undefined
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : undefined
    try {
      action = sessionAction(st, sql)
      return await this.#runAction(action, stmt, deadline)
    } catch (e) {
      if (this.#tx === 'T') this.#abortTransaction()
      const at = action !== undefined && 'at' in action ? action.at : undefined
      if (e instanceof RivuletError && e.position !== undefined) throw new InText(e, at)
      throw e
    } finally {
      if (timer !== undefined) clearTimeout(timer)
      unlink()
    }
  }

  async #runAction(action: SessionAction, op: Cancellation, deadline: number | undefined): Promise<Outcome> {
    if (action.kind === 'begin' || action.kind === 'commit' || action.kind === 'rollback') return this.#transactionCommand(action.kind)
    if (this.#tx === 'E') throw new RivuletError('25P02', 'current transaction is aborted, commands ignored until end of transaction block')
    this.#deadline = deadline
    if (action.kind === 'engine') return await this.#engineStatement(action.text, action.read, op)
    return this.#serverCommand(action, op)
  }

  /** The running statement's deadline (statement_timeout), for the engine's checks. */
  #deadline: number | undefined

  /** statement_timeout of this session, in ms. */
  #statementTimeoutMs(): number {
    const v = this.#settings.get('statement_timeout')
    return v === undefined ? this.#ctx.statementTimeoutMs : parseMilliseconds(v, 'statement_timeout')
  }

  /** A statement for the engine, run as this connection's engine session. */
  async #engineStatement(text: string, _read: boolean, op: Cancellation, stdin?: Buffer): Promise<Outcome> {
    this.#ctx.gate.ready(op)
    if (this.#closed) throw new ConnectionClosed()
    const deadline = this.#deadline
    const maxMemoryBytes = this.#ctx.maxMemoryBytes
    const limits: StatementLimits = {
      ...(deadline !== undefined ? { deadline } : {}),
      ...(maxMemoryBytes !== undefined ? { maxMemoryBytes } : {}),
      cancelled: () => {
        this.#ctx.drainCancels()
        return op.reason !== undefined
      },
    }
    const results = this.#engine.execute(text, { serverFiles: this.#ctx.allowServerFiles, limits, session: this.#identity(), ...(stdin ? { stdin } : {}) })
    const r = results[results.length - 1]
    if (!r) return { kind: 'empty' }
    // a notice (COPY's rejected records) goes to the client as psql shows it: NOTICE:  …
    for (const x of results) if (x.notice !== undefined) this.#send(errorResponse({ severity: 'NOTICE', code: '00000', message: x.notice }, 'N'))
    if (r.columns) return { kind: 'rows', fields: r.columns, rows: r.rows ?? [], command: r.command }
    return { kind: 'command', tag: r.command }
  }

  #transactionCommand(kind: 'begin' | 'commit' | 'rollback'): Outcome {
    if (kind === 'begin') {
      if (this.#tx !== 'I') this.#notice('25001', 'there is already a transaction in progress')
      else {
        this.#engine.execute('BEGIN')
        this.#tx = 'T'
      }
      return { kind: 'command', tag: 'BEGIN' }
    }
    if (this.#tx === 'I') {
      this.#notice('25P01', 'there is no transaction in progress')
      return { kind: 'command', tag: kind === 'commit' ? 'COMMIT' : 'ROLLBACK' }
    }
    try {
      // COMMIT of an aborted block answers ROLLBACK; a conflicting one fails with 40001
      const r = this.#engine.execute(kind === 'commit' ? 'COMMIT' : 'ROLLBACK')
      return { kind: 'command', tag: r[0]?.command ?? 'ROLLBACK' }
    } finally {
      this.#endTransaction()
    }
  }

  /** An error inside a transaction block: the engine has aborted the block (its writes are
   *  undone), and it stays aborted until the client ends it (25P02 for anything else, COMMIT
   *  reports ROLLBACK), as in Postgres. */
  #abortTransaction(): void {
    this.#tx = 'E'
    this.#closeCursors()
  }

  #endTransaction(): void {
    this.#tx = 'I'
    if (this.#engine.inTransaction) {
      try {
        this.#engine.execute('ROLLBACK')
      } catch {
        // engine closed: nothing to roll back
      }
    }
    this.#closeCursors()
  }

  #closeCursors(): void {
    for (const c of this.#cursors.values()) if (c.kind === 'subscription') c.sub.close()
    this.#cursors.clear()
  }

  #cursor(name: string): Cursor {
    const c = this.#cursors.get(name)
    if (!c) throw new RivuletError('34000', `cursor "${name}" does not exist`)
    return c
  }

  async #serverCommand(cmd: Exclude<SessionAction, { kind: 'begin' | 'commit' | 'rollback' | 'engine' }>, op: Cancellation): Promise<Outcome> {
    switch (cmd.kind) {
      case 'set':
        return this.#set(cmd.name, cmd.value)
      case 'setIgnored':
        return { kind: 'command', tag: 'SET' }
      case 'reset':
        if (cmd.name === undefined) for (const s of SETTINGS) this.#set(s.name.toLowerCase(), undefined)
        else this.#set(cmd.name, undefined)
        return { kind: 'command', tag: 'RESET' }
      case 'show':
        return this.#show(cmd.name)
      case 'declare':
        return this.#declare(cmd.name, cmd.query, cmd.subscribe, op)
      case 'fetch':
        return this.#fetch(cmd.name, cmd.count, cmd.timeoutMs, op)
      case 'close':
        if (cmd.name === undefined) {
          this.#closeCursors()
          return { kind: 'command', tag: 'CLOSE CURSOR ALL' }
        } else {
          const c = this.#cursor(cmd.name)
          if (c.kind === 'subscription') c.sub.close()
          this.#cursors.delete(cmd.name)
          return { kind: 'command', tag: 'CLOSE CURSOR' }
        }
      case 'copyOut':
        return cmd.subscribe ? this.#subscribeCopy(cmd.query, cmd.format.csv, cmd.format.header) : this.#copyQuery(cmd.query, cmd.format.csv, cmd.format.header, op)
      case 'copyIn':
        return this.#copyFromStdin(cmd.text, cmd.table, cmd.columns, op)
      case 'subscribe':
        return this.#subscribeCopy(cmd.query, false, false)
      case 'deallocate':
        if (cmd.name === undefined) {
          this.#statements.clear()
          return { kind: 'command', tag: 'DEALLOCATE ALL' }
        }
        if (!this.#statements.delete(cmd.name)) throw new RivuletError('26000', `prepared statement "${cmd.name}" does not exist`)
        return { kind: 'command', tag: 'DEALLOCATE' }
      case 'discard':
        if (this.#tx !== 'I') throw new RivuletError('25001', 'DISCARD ALL cannot run inside a transaction block')
        this.#statements.clear()
        this.#portals.clear()
        this.#closeCursors()
        for (const s of SETTINGS) this.#set(s.name.toLowerCase(), undefined)
        return { kind: 'command', tag: 'DISCARD ALL' }
      case 'unlisten':
        return { kind: 'command', tag: 'UNLISTEN' }
    }
  }

  #set(name: string, value: string | undefined): Outcome {
    const def = SETTINGS.find((s) => s.name.toLowerCase() === name)
    let v = value ?? (name === 'server_version' ? this.#ctx.serverVersion : name === 'session_authorization' ? this.user : name === 'statement_timeout' ? String(this.#ctx.statementTimeoutMs) : (def?.value ?? ''))
    if (name === 'client_encoding') v = clientEncoding(v, true)
    if (name === 'statement_timeout' || name === 'idle_in_transaction_session_timeout') parseMilliseconds(v, name)
    if (['server_version', 'server_encoding', 'integer_datetimes', 'server_version_num', 'lc_collate', 'lc_ctype', 'max_identifier_length', 'is_superuser', 'in_hot_standby'].includes(name) && value !== undefined) {
      throw new RivuletError('55P02', `parameter "${name}" cannot be changed`)
    }
    if (name === 'standard_conforming_strings' && value !== undefined && !['on', 'true', '1', 'yes'].includes(v.toLowerCase())) throw new RivuletError('0A000', 'standard_conforming_strings is always on here')
    if (this.#settings.get(name) !== v) {
      this.#settings.set(name, v)
      if (def?.report) this.#reportedChanges.add(name)
    }
    return { kind: 'command', tag: 'SET' }
  }

  #settingDisplayName(name: string): string {
    return SETTINGS.find((s) => s.name.toLowerCase() === name)?.name ?? name
  }

  #show(name: string): Outcome {
    if (name === 'all') {
      const rows = [...this.#settings].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]): ResultValue[] => [this.#settingDisplayName(k), v, null])
      return { kind: 'rows', fields: [{ name: 'name', type: 'text' }, { name: 'setting', type: 'text' }, { name: 'description', type: 'text' }], rows, command: 'SHOW' }
    }
    const v = this.#settings.get(name)
    if (v === undefined) throw new RivuletError('42704', `unrecognized configuration parameter "${name}"`)
    return { kind: 'rows', fields: [{ name: this.#settingDisplayName(name), type: 'text' }], rows: [[v]], command: 'SHOW' }
  }

  /** A read's rows: answered locally or by the engine. */
  async #queryRows(text: string, op: Cancellation): Promise<{ fields: readonly Field[]; rows: ResultValue[][] }> {
    const o = await this.#engineStatement(text, true, op)
    if (o.kind !== 'rows') throw new RivuletError('42601', 'expected a query that returns rows')
    return o
  }

  async #declare(name: string, query: string, subscribe: boolean, op: Cancellation): Promise<Outcome> {
    if (this.#tx === 'I') throw new RivuletError('25P01', 'DECLARE CURSOR can only be used in transaction blocks')
    if (this.#cursors.has(name)) throw new RivuletError('42P03', `cursor "${name}" already exists`)
    if (subscribe) {
      this.#ctx.gate.ready(op)
      if (this.#closed) throw new ConnectionClosed()
      this.#cursors.set(name, { kind: 'subscription', sub: new CursorSubscription(this.#ctx.gate, query, this.#ctx.subscriptionBufferBytes) })
    } else {
      const { fields, rows } = await this.#queryRows(query, op)
      this.#cursors.set(name, { kind: 'rows', fields, rows: [...rows] })
    }
    return { kind: 'command', tag: 'DECLARE CURSOR' }
  }

  async #fetch(name: string, count: number, timeoutMs: number | undefined, op: Cancellation): Promise<Outcome> {
    const c = this.#cursor(name)
    if (c.kind === 'rows') {
      const rows = c.rows.splice(0, count)
      return { kind: 'rows', fields: c.fields, rows, command: `FETCH ${rows.length}` }
    }
    const rows = await c.sub.fetch(count, timeoutMs, (h) => op.on(h))
    if (this.#closed) throw new ConnectionClosed()
    return { kind: 'rows', fields: c.sub.fields, rows, command: `FETCH ${rows.length}` }
  }

  /** COPY t FROM STDIN: CopyInResponse, then the client's CopyData until CopyDone (at most
   *  maxCopyInBytes; CopyFail or a cancel ends it with an error), then the engine loads it
   *  as it loads a file: one tick, rejected records into rivulet_rejected and a NOTICE. */
  async #copyFromStdin(text: string, table: string, columns: number | undefined, op: Cancellation): Promise<Outcome> {
    const rel = this.#ctx.gate.engine.relations().find((r) => r.name === table)
    if (rel === undefined) throw new RivuletError('42P01', `relation "${table}" does not exist`)
    const limit = this.#ctx.maxResultBytes
    const data = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = []
      let bytes = 0
      let failed: RivuletError | undefined
      const unCancel = op.on((e) => finish(e))
      const finish = (e?: Error): void => {
        this.#copyIn = undefined
        unCancel()
        if (e) reject(e)
        else resolve(Buffer.concat(chunks, bytes))
      }
      this.#copyIn = {
        take: (f) => {
          if (f.type === 0x64) {
            bytes += f.body.length
            if (bytes > limit) failed ??= new RivuletError('54000', `COPY data too large: more than ${limit} bytes`)
            else if (failed === undefined) chunks.push(f.body)
          } else if (f.type === 0x63) finish(failed)
          else finish(new RivuletError('57014', `COPY from stdin failed: ${new Reader(f.body).cstring()}`))
        },
      }
      this.#send(copyInResponse(columns ?? rel.columns.length))
      this.#flush()
    })
    return this.#engineStatement(text, false, op, data)
  }

  /** The COPY FROM STDIN waiting for its data. */
  #copyIn: { take(f: Frame): void } | undefined

  /** COPY (query) TO STDOUT: the rows as COPY data. */
  async #copyQuery(query: string, csv: boolean, header: boolean, op: Cancellation): Promise<Outcome> {
    const { fields, rows } = await this.#queryRows(query, op)
    return {
      kind: 'copy',
      run: async () => {
        const line = csv ? copyCsvLine : copyTextLine
        this.#send(copyOutResponse(fields.length))
        if (header) this.#send(copyData(csvHeader(fields)))
        for (const row of rows) this.#send(copyData(line(fields, row)))
        this.#send(copyDone())
        return `COPY ${rows.length}`
      },
    }
  }

  /** COPY (SUBSCRIBE …) TO STDOUT and bare SUBSCRIBE: changes streamed as COPY data until
   *  the client cancels or disconnects. */
  #subscribeCopy(query: string, csv: boolean, header: boolean): Outcome {
    return {
      kind: 'copy',
      run: async (op) => {
        this.#ctx.gate.ready(op)
        if (this.#closed) throw new ConnectionClosed()
        const session = this
        const target: CopyTarget = {
          send: (b) => session.#send(b),
          get backlog() {
            return session.#socket.writableLength + session.#outBytes
          },
          onDrain: (f) => session.#onDrain(f),
        }
        const sub = new CopySubscription(this.#ctx.gate, query, target, this.#ctx.subscriptionBufferBytes, csv ? copyCsvLine : copyTextLine)
        this.#copies.add(sub)
        const unCancel = op.on((e) => sub.finish({ kind: 'error', error: e }))
        try {
          this.#send(copyOutResponse(sub.fields.length))
          if (header) this.#send(copyData(csvHeader(sub.fields)))
          this.#flush()
          sub.start()
          const end = await sub.done
          if (end.kind === 'closed' || this.#closed) throw new ConnectionClosed()
          throw end.error
        } finally {
          unCancel()
          sub.end()
          this.#copies.delete(sub)
        }
      },
    }
  }

  #onDrain(f: () => void): void {
    if (this.#closed) return
    if (this.#socket.writableLength === 0 && this.#outBytes === 0) setImmediate(f)
    else this.#socket.once('drain', f)
  }

  // ---------------------------------------------------------------------------- output

  async #sendOutcome(outcome: Outcome, op: Cancellation, how: { describe: boolean; codes: readonly number[]; limit: number; portal?: Portal }): Promise<void> {
    switch (outcome.kind) {
      case 'empty':
        this.#send(emptyQueryResponse())
        return
      case 'command':
        this.#send(commandComplete(outcome.tag))
        return
      case 'copy': {
        const tag = await outcome.run(op)
        this.#send(commandComplete(tag))
        return
      }
      case 'rows': {
        const formats = resultFormats(outcome.fields, how.codes)
        if (how.describe) this.#send(rowDescription(describeFields(outcome.fields, formats)))
        const start = how.portal?.position ?? 0
        const end = how.limit > 0 ? Math.min(outcome.rows.length, start + how.limit) : outcome.rows.length
        let bytes = 0
        for (let i = start; i < end; i++) {
          const row = outcome.rows[i]!
          const message = dataRow(row.map((v, j) => encodeValue(v, outcome.fields[j]!, formats[j]!)))
          bytes += message.length
          if (bytes > this.#ctx.maxResultBytes) throw new RivuletError('54000', `result too large: more than ${this.#ctx.maxResultBytes} bytes`, undefined, 'Fetch it in parts (LIMIT / OFFSET, a cursor, or a row limit on Execute).')
          this.#send(message)
        }
        if (how.portal) how.portal.position = end
        if (end < outcome.rows.length) {
          this.#send(portalSuspended())
          return
        }
        const sent = end - start
        const tag = /^(SELECT|FETCH) \d+$/.test(outcome.command) ? `${outcome.command.split(' ')[0]} ${sent}` : outcome.command
        this.#send(commandComplete(tag))
        return
      }
    }
  }

  #readyForQuery(): void {
    for (const name of this.#reportedChanges) this.#send(parameterStatus(this.#settingDisplayName(name), this.#settings.get(name) ?? ''))
    this.#reportedChanges.clear()
    this.#send(readyForQuery(this.#tx))
    this.#flush()
    this.#armIdleTimer()
  }

  /** idle_in_transaction_session_timeout: a session idle inside a transaction block for that
   *  long is closed (FATAL 25P03), which rolls its transaction back and frees the engine. */
  #armIdleTimer(): void {
    clearTimeout(this.#idleTimer)
    this.#idleTimer = undefined
    if (this.#tx === 'I' || this.#closed) return
    let ms = 0
    try {
      ms = parseMilliseconds(this.#settings.get('idle_in_transaction_session_timeout') ?? '0', 'idle_in_transaction_session_timeout')
    } catch {
      return
    }
    if (ms <= 0) return
    this.#idleTimer = setTimeout(() => {
      if (!this.#pumping && this.#inbox.length === 0) this.#fatal('25P03', 'terminating connection due to idle-in-transaction timeout')
    }, ms)
    this.#idleTimer.unref()
  }

  #idleTimer: NodeJS.Timeout | undefined

  #notice(code: string, message: string): void {
    this.#send(errorResponse({ severity: 'WARNING', code, message }, 'N'))
  }

  #sendError(fields: ErrorFields): void {
    this.#send(errorResponse(fields))
  }

  /** Reports a statement's error; `sql` is the whole query string (position counted in it),
   *  `offset` where the statement starts in it. */
  #failed(e: unknown, sql: string | undefined, offset: number | undefined, edits: readonly Substitution[]): void {
    if (this.#tx === 'T') this.#abortTransaction()
    this.#sendError(this.#errorFields(e, sql, offset, edits))
  }

  #errorFields(e: unknown, sql?: string, offset: number | undefined = 0, edits: readonly Substitution[] = []): ErrorFields {
    if (e instanceof RivuletError) {
      let position: number | undefined
      if (e.position && sql !== undefined && offset !== undefined && e.position.offset >= 0) {
        const at = mapOffsetBack(offset + e.position.offset, edits)
        if (at <= sql.length) position = codePointOffset(sql, at) + 1
      }
      return { severity: 'ERROR', code: e.code, message: e.message, detail: e.detail, position }
    }
    if (e instanceof ProtocolError) return { severity: 'ERROR', code: e.code, message: e.message }
    // a too-large string or array (V8's RangeError) is the statement's limit, not a bug
    const limit = allocationLimitError(e)
    if (limit !== undefined) return { severity: 'ERROR', code: limit.code, message: limit.message, detail: limit.detail }
    return { severity: 'ERROR', code: 'XX000', message: `internal error: ${errorMessage(e)}` }
  }

  #fatal(code: string, message: string): void {
    if (this.#closed) return
    this.#send(errorResponse({ severity: 'FATAL', code, message }))
    this.#flush()
    this.#socket.end()
    this.#destroy(true)
  }

  #send(b: Buffer): void {
    if (this.#closed) return
    this.#out.push(b)
    this.#outBytes += b.length
    if (this.#outBytes > 1 << 20) return this.#flush() // a large result goes out in pieces
    if (!this.#flushQueued) {
      this.#flushQueued = true
      queueMicrotask(() => this.#flush())
    }
  }

  #flush(): void {
    this.#flushQueued = false
    if (this.#out.length === 0) return
    const data = this.#out.length === 1 ? this.#out[0]! : Buffer.concat(this.#out, this.#outBytes)
    this.#out = []
    this.#outBytes = 0
    if (this.#socket.destroyed || !this.#socket.writable) return
    this.#socket.write(data)
  }

  // ---------------------------------------------------------------------------- teardown

  /** Releases everything the session holds; idempotent. */
  /** Ends the session. `lingering`: the socket was ended after a FATAL message, and stays open
   *  (reading and dropping what the peer still sends) until the peer closes or 2 s pass —
   *  closing it at once while the peer's bytes arrive makes the kernel answer them with a
   *  reset, which can discard the FATAL message before the client reads it. */
  #destroy(lingering = false): void {
    if (this.#closed) return
    this.#flush()
    this.#closed = true
    clearTimeout(this.#startupTimer)
    clearTimeout(this.#idleTimer)
    this.#op?.cancel(new ConnectionClosed('connection closed'))
    for (const sub of [...this.#copies]) sub.finish({ kind: 'closed' })
    this.#copies.clear()
    this.#closeCursors()
    // an open block is rolled back with the session
    this.#engine.close()
    this.#statements.clear()
    this.#portals.clear()
    this.#inbox.length = 0
    this.#ctx.unregister(this)
    // a peer that stopped reading must not keep the socket (and its buffers) alive
    if (this.#socket.writableLength > 0) setTimeout(() => this.#socket.destroy(), 5000).unref()
    else if (lingering) {
      this.#socket.resume()
      setTimeout(() => this.#socket.destroy(), 2000).unref()
    }
    else this.#socket.destroy()
  }

  /** Who this connection is, for the engine's catalog functions and pg_settings. */
  #identity(): SessionIdentity {
    return { user: this.user, database: this.database, pid: this.pid, settings: this.#settings, serverVersion: this.#ctx.serverVersion }
  }

}

/** The client encodings accepted: UTF-8 (the server's) and SQL_ASCII (no conversion). */
function clientEncoding(value: string, strict = false): string {
  const v = value.toUpperCase().replace(/[-_]/g, '')
  if (v === 'UTF8' || v === 'UNICODE') return 'UTF8'
  if (v === 'SQLASCII') return 'SQL_ASCII'
  if (strict) throw new RivuletError('0A000', `client encoding "${value}" is not supported: the server speaks UTF8 (or SQL_ASCII)`)
  return 'UTF8'
}

function csvHeader(fields: readonly Field[]): string {
  return fields.map((f) => (/[",\r\n]/.test(f.name) || f.name === '' ? `"${f.name.replace(/"/g, '""')}"` : f.name)).join(',') + '\n'
}

function isUtf8Safe(b: Buffer): boolean {
  try {
    decodeUtf8(b)
    return true
  } catch {
    return false
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
