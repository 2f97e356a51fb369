// One client connection: startup (SSL/GSS refusal, protocol version, authentication), then the
// simple and extended query protocols over the shared engine, and the output. The statements
// run in the session's StatementRunner (statement-runner.ts: its own transaction state,
// settings, prepared statements, portals, cursors and COPY streams); Parse and Bind messages
// are read and bound by extended-query.ts.
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
import type { SessionIdentity } from '../types.js'
import { createAuthenticator, type AuthMethod, type Authenticator } from './auth.js'
import type { AuthThrottle } from './throttle.js'
import { SETTINGS } from './settings.js'
import { Cancellation, cancelledError, type EngineGate } from './gate.js'
import { describeFields, encodeValue, OID, resultFormats, type Field } from './pg-types.js'
import {
  backendKeyData,
  bindComplete,
  CANCEL_REQUEST,
  closeComplete,
  commandComplete,
  dataRow,
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
import { parseMilliseconds, sessionAction } from './commands.js'
import { bindParameters, codePointOffset, mapOffsetBack, type Substitution } from './parameters.js'
import { bindStatement, prepare, readBind, readParse } from './extended-query.js'
import { clientEncoding, ConnectionClosed, InText, StatementRunner, type Outcome, type Portal } from './statement-runner.js'

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


/** An error ending the connection (FATAL). */
class FatalError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}


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
  /** Runs the statements; keeps the transaction block, settings, cursors, prepared
   *  statements and portals. */
  readonly #runner: StatementRunner
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
    const session = this
    this.#runner = new StatementRunner(ctx, {
      get closed() {
        return session.#closed
      },
      get user() {
        return session.user
      },
      send: (b) => session.#send(b),
      flush: () => session.#flush(),
      notice: (code, message) => session.#notice(code, message),
      identity: () => session.#identity(),
      get backlog() {
        return session.#socket.writableLength + session.#outBytes
      },
      onDrain: (f) => session.#onDrain(f),
    })
    this.pid = ctx.nextPid()
    this.#framer = new Framer(PRE_AUTH_MAX_MESSAGE)
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
        } else if (this.#runner.copyIn !== undefined && (f.type === 0x64 || f.type === 0x63 || f.type === 0x66)) {
          // CopyData / CopyDone / CopyFail of a COPY FROM STDIN: the statement waits for them
          this.#runner.copyIn.take(f)
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
      else if (name === 'client_encoding') this.#runner.settings.set('client_encoding', clientEncoding(value))
      else if (name.toLowerCase() === 'timezone') this.#runner.settings.set('timezone', this.#startupTimeZone(value))
      else if (name !== 'user' && name !== 'database' && name !== 'options' && name !== 'replication') this.#runner.settings.set(name.toLowerCase(), value)
    }
    this.#runner.settings.set('session_authorization', user)
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
    for (const s of SETTINGS) if (s.report) this.#send(parameterStatus(s.name, this.#runner.settings.get(s.name.toLowerCase()) ?? ''))
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
          const outcome = await this.#runner.run(st, sql, op)
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
    const { name, text, types } = readParse(body)
    if (name !== '' && this.#runner.statements.has(name)) throw new RivuletError('42P05', `prepared statement "${name}" already exists`)
    this.#runner.statements.set(name, prepare(text, types))
    this.#send(parseComplete())
  }

  #bind(body: Buffer): void {
    const message = readBind(body)
    const { portalName, statementName } = message
    const statement = this.#runner.statements.get(statementName)
    if (!statement) throw new RivuletError('26000', statementName === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${statementName}" does not exist`)
    if (portalName !== '' && this.#runner.portals.has(portalName)) throw new RivuletError('42P03', `portal "${portalName}" already exists`)
    const { text, edits } = bindStatement(statement, message)
    this.#runner.portals.set(portalName, { statement, text, edits, resultCodes: message.resultCodes, outcome: undefined, position: 0 })
    this.#send(bindComplete())
  }

  async #describe(body: Buffer): Promise<void> {
    const r = new Reader(body)
    const kind = String.fromCharCode(r.byte())
    const name = r.cstring()
    r.end()
    if (kind === 'S') {
      const st = this.#runner.statements.get(name)
      if (!st) throw new RivuletError('26000', name === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${name}" does not exist`)
      this.#send(parameterDescription(st.paramTypes.map((t) => (t === 0 ? OID.text : t))))
      // columns without parameter values: run a read with NULLs in their place
      const { text, edits } = bindParameters(st.text, st.sites, () => 'NULL')
      const fields = await this.#fieldsOf(text, undefined).catch((e: unknown) => {
        throw new InStatement(e, st.text, edits)
      })
      this.#send(fields ? rowDescription(describeFields(fields)) : noData())
    } else if (kind === 'P') {
      const portal = this.#runner.portals.get(name)
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
      const c = this.#runner.cursor(action.name)
      return c.kind === 'rows' ? c.fields : c.sub.fields
    }
    if (action.kind === 'show') return [{ name: action.name === 'all' ? 'name' : this.#runner.settingDisplayName(action.name), type: 'text' }, ...(action.name === 'all' ? [{ name: 'setting', type: 'text' as const }, { name: 'description', type: 'text' as const }] : [])]
    if (action.kind !== 'engine' || !action.read) return undefined
    const op = this.#begin()
    try {
      const outcome = await this.#runner.run(st, text, op)
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
    const portal = this.#runner.portals.get(name)
    if (!portal) throw new RivuletError('34000', `portal "${name}" does not exist`)
    const op = this.#begin()
    try {
      if (!portal.outcome) {
        try {
          const st = parse(portal.text)[0]
          portal.outcome = st === undefined ? { kind: 'empty' } : await this.#runner.run(st, portal.text, op)
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
    if (kind === 'S') this.#runner.statements.delete(name)
    else if (kind === 'P') this.#runner.portals.delete(name)
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
    for (const name of this.#runner.reportedChanges) this.#send(parameterStatus(this.#runner.settingDisplayName(name), this.#runner.settings.get(name) ?? ''))
    this.#runner.reportedChanges.clear()
    this.#send(readyForQuery(this.#runner.tx))
    this.#flush()
    this.#armIdleTimer()
  }

  /** idle_in_transaction_session_timeout: a session idle inside a transaction block for that
   *  long is closed (FATAL 25P03), which rolls its transaction back and frees the engine. */
  #armIdleTimer(): void {
    clearTimeout(this.#idleTimer)
    this.#idleTimer = undefined
    if (this.#runner.tx === 'I' || this.#closed) return
    let ms = 0
    try {
      ms = parseMilliseconds(this.#runner.settings.get('idle_in_transaction_session_timeout') ?? '0', 'idle_in_transaction_session_timeout')
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
    if (this.#runner.tx === 'T') this.#runner.abortTransaction()
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
    this.#runner.close()
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

  /** A TimeZone sent in the startup packet (PGTZ): this session's; an unknown one ends the
   *  connection, as PostgreSQL's invalid startup setting does. */
  #startupTimeZone(value: string): string {
    try {
      return this.#runner.setTimeZone(value)
    } catch (e) {
      throw new FatalError('22023', e instanceof Error ? e.message : String(e))
    }
  }

  /** Who this connection is, for the engine's catalog functions and pg_settings. */
  #identity(): SessionIdentity {
    return { user: this.user, database: this.database, pid: this.pid, settings: this.#runner.settings, serverVersion: this.#ctx.serverVersion }
  }

}



function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
