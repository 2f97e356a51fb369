// Runs a session's statements and keeps what they change: the transaction block (I/T/E),
// statement_timeout, the engine session, the settings (SET/RESET/SHOW), cursors
// (DECLARE/FETCH/CLOSE), COPY FROM STDIN / TO STDOUT and SUBSCRIBE streams, and the prepared
// statements and portals (DEALLOCATE/DISCARD). Apart from session.ts, which owns the
// connection (socket, message loop, protocol messages, output): this needs of it only what
// StatementConnection names.

import { RivuletError, type ParsedStatement } from '../../grammar/index.js'
import type { ResultValue, SessionIdentity } from '../types.js'
import { SETTINGS } from './settings.js'
import { Cancellation } from './gate.js'
import type { EngineSession } from '../engine/index.js'
import { checkSearchPath } from '../engine/index.js'
import { type Field } from './pg-types.js'
import {
  copyData,
  copyDone,
  copyInResponse,
  copyOutResponse,
  errorResponse,
  Reader,
  type Frame,
} from './protocol.js'
import { timeoutError, type StatementLimits } from '../sql-runtime/statement-limits.js'
import { parseTimeZoneSetting } from '../sql-runtime/time-zone.js'
import { parseMilliseconds, sessionAction, type SessionAction } from './commands.js'
import { type ParameterSite, type Substitution } from './parameters.js'
import { copyCsvLine, copyTextLine, CopySubscription, CursorSubscription, type CopyTarget } from './subscriptions.js'
import type { ServerContext } from './session.js'

/** The result of running one statement. */
export type Outcome =
  | { readonly kind: 'rows'; readonly fields: readonly Field[]; readonly rows: ResultValue[][]; readonly command: string }
  | { readonly kind: 'command'; readonly tag: string }
  | { readonly kind: 'empty' }
  /** COPY … TO STDOUT / SUBSCRIBE: writes CopyOutResponse and the data itself; resolves to
   *  the command tag (or rejects, e.g. when cancelled). */
  | { readonly kind: 'copy'; readonly run: (op: Cancellation) => Promise<string> }

export interface Prepared {
  readonly text: string
  readonly paramTypes: readonly number[]
  readonly sites: readonly ParameterSite[]
}

export interface Portal {
  readonly statement: Prepared
  readonly text: string
  readonly edits: readonly Substitution[]
  readonly resultCodes: readonly number[]
  outcome: Outcome | undefined
  /** Rows already sent (Execute with a row limit). */
  position: number
}

type Cursor = { readonly kind: 'subscription'; readonly sub: CursorSubscription } | { readonly kind: 'rows'; readonly fields: readonly Field[]; readonly rows: ResultValue[][] }

/** Raised into a statement's waits when its connection is gone. */
export class ConnectionClosed extends Error {}

/** An error whose position is in a text that starts at `at` in the query string (undefined:
 *  a text the server made, whose positions mean nothing to the client). */
export class InText extends Error {
  constructor(
    readonly error: RivuletError,
    readonly at: number | undefined,
  ) {
    super(error.message)
  }
}

/** What the statement runner needs of its connection (a COPY stream writes to it too). */
export interface StatementConnection extends CopyTarget {
  readonly closed: boolean
  /** The session's user (the default of session_authorization). */
  readonly user: string
  flush(): void
  notice(code: string, message: string): void
  identity(): SessionIdentity
}

export class StatementRunner {
  readonly #ctx: ServerContext
  readonly #connection: StatementConnection
  readonly settings = new Map<string, string>()
  readonly reportedChanges = new Set<string>()
  #tx: 'I' | 'T' | 'E' = 'I'
  /** This connection's session of the engine: its transaction block is its own, and never
   *  waits for another connection's (src/engine/transactions.ts). */
  readonly #engine: EngineSession
  readonly statements = new Map<string, Prepared>()
  readonly portals = new Map<string, Portal>()
  readonly #cursors = new Map<string, Cursor>()
  readonly #copies = new Set<CopySubscription>()

  constructor(ctx: ServerContext, connection: StatementConnection) {
    this.#ctx = ctx
    this.#connection = connection
    this.#engine = ctx.gate.engine.session()
    for (const s of SETTINGS) this.settings.set(s.name.toLowerCase(), s.value)
    this.settings.set('server_version', ctx.serverVersion)
    this.settings.set('statement_timeout', String(ctx.statementTimeoutMs))
  }

  /** The transaction status ReadyForQuery reports: idle, in a block, in a failed block. */
  get tx(): 'I' | 'T' | 'E' {
    return this.#tx
  }

  /** The COPY FROM STDIN waiting for its data, if any. */
  get copyIn(): { take(f: Frame): void } | undefined {
    return this.#copyIn
  }

  /** Runs one parsed statement of `sql`; an error inside a transaction block aborts the
   *  block. */
  async run(st: ParsedStatement, sql: string, op: Cancellation): Promise<Outcome> {
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
      if (this.#tx === 'T') this.abortTransaction()
      const at = action !== undefined && 'at' in action ? action.at : undefined
      if (e instanceof RivuletError && e.position !== undefined) throw new InText(e, at)
      throw e
    } finally {
      if (timer !== undefined) clearTimeout(timer)
      unlink()
    }
  }

  async #runAction(action: SessionAction, op: Cancellation, deadline: number | undefined): Promise<Outcome> {
    const outcome = await this.#runActionUnsynced(action, op, deadline)
    // group commit: a write is acknowledged once the log's fsync covers it, one fsync for
    // every session's commits since the last (durable engines; at once otherwise)
    await this.#engine.syncLog()
    return outcome
  }

  async #runActionUnsynced(action: SessionAction, op: Cancellation, deadline: number | undefined): Promise<Outcome> {
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
    const v = this.settings.get('statement_timeout')
    return v === undefined ? this.#ctx.statementTimeoutMs : parseMilliseconds(v, 'statement_timeout')
  }

  /** A statement for the engine, run as this connection's engine session. */
  async #engineStatement(text: string, _read: boolean, op: Cancellation, stdin?: Buffer): Promise<Outcome> {
    this.#ctx.gate.ready(op)
    if (this.#connection.closed) throw new ConnectionClosed()
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
    const results = this.#engine.execute(text, { serverFiles: this.#ctx.allowServerFiles, limits, session: this.#connection.identity(), deferSync: true, ...(stdin ? { stdin } : {}) })
    const r = results[results.length - 1]
    if (!r) return { kind: 'empty' }
    // a notice (COPY's rejected records) goes to the client as psql shows it: NOTICE:  …
    for (const x of results) if (x.notice !== undefined) this.#connection.send(errorResponse({ severity: 'NOTICE', code: '00000', message: x.notice }, 'N'))
    if (r.columns) return { kind: 'rows', fields: r.columns, rows: r.rows ?? [], command: r.command }
    return { kind: 'command', tag: r.command }
  }

  #transactionCommand(kind: 'begin' | 'commit' | 'rollback'): Outcome {
    if (kind === 'begin') {
      if (this.#tx !== 'I') this.#connection.notice('25001', 'there is already a transaction in progress')
      else {
        this.#engine.execute('BEGIN')
        this.#tx = 'T'
      }
      return { kind: 'command', tag: 'BEGIN' }
    }
    if (this.#tx === 'I') {
      this.#connection.notice('25P01', 'there is no transaction in progress')
      return { kind: 'command', tag: kind === 'commit' ? 'COMMIT' : 'ROLLBACK' }
    }
    try {
      // COMMIT of an aborted block answers ROLLBACK; a conflicting one fails with 40001
      const r = this.#engine.execute(kind === 'commit' ? 'COMMIT' : 'ROLLBACK', { deferSync: true })
      return { kind: 'command', tag: r[0]?.command ?? 'ROLLBACK' }
    } finally {
      this.#endTransaction()
    }
  }

  /** An error inside a transaction block: the engine has aborted the block (its writes are
   *  undone), and it stays aborted until the client ends it (25P02 for anything else, COMMIT
   *  reports ROLLBACK), as in Postgres. */
  abortTransaction(): void {
    this.#tx = 'E'
    this.closeCursors()
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
    this.closeCursors()
  }

  closeCursors(): void {
    for (const c of this.#cursors.values()) if (c.kind === 'subscription') c.sub.close()
    this.#cursors.clear()
  }

  cursor(name: string): Cursor {
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
          this.closeCursors()
          return { kind: 'command', tag: 'CLOSE CURSOR ALL' }
        } else {
          const c = this.cursor(cmd.name)
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
          this.statements.clear()
          return { kind: 'command', tag: 'DEALLOCATE ALL' }
        }
        if (!this.statements.delete(cmd.name)) throw new RivuletError('26000', `prepared statement "${cmd.name}" does not exist`)
        return { kind: 'command', tag: 'DEALLOCATE' }
      case 'discard':
        if (this.#tx !== 'I') throw new RivuletError('25001', 'DISCARD ALL cannot run inside a transaction block')
        this.statements.clear()
        this.portals.clear()
        this.closeCursors()
        for (const s of SETTINGS) this.#set(s.name.toLowerCase(), undefined)
        return { kind: 'command', tag: 'DISCARD ALL' }
      case 'unlisten':
        return { kind: 'command', tag: 'UNLISTEN' }
    }
  }

  #set(name: string, value: string | undefined): Outcome {
    const def = SETTINGS.find((s) => s.name.toLowerCase() === name)
    let v = value ?? (name === 'server_version' ? this.#ctx.serverVersion : name === 'session_authorization' ? this.#connection.user : name === 'statement_timeout' ? String(this.#ctx.statementTimeoutMs) : (def?.value ?? ''))
    if (name === 'client_encoding') v = clientEncoding(v, true)
    // the TimeZone is the engine session's (timestamptz input, output and local-time arithmetic)
    if (name === 'timezone') v = this.setTimeZone(value)
    if (name === 'search_path') checkSearchPath(value)
    if (name === 'statement_timeout' || name === 'idle_in_transaction_session_timeout') parseMilliseconds(v, name)
    if (['server_version', 'server_encoding', 'integer_datetimes', 'server_version_num', 'lc_collate', 'lc_ctype', 'max_identifier_length', 'is_superuser', 'in_hot_standby'].includes(name) && value !== undefined) {
      throw new RivuletError('55P02', `parameter "${name}" cannot be changed`)
    }
    if (name === 'standard_conforming_strings' && value !== undefined && !['on', 'true', '1', 'yes'].includes(v.toLowerCase())) throw new RivuletError('0A000', 'standard_conforming_strings is always on here')
    if (this.settings.get(name) !== v) {
      this.settings.set(name, v)
      if (def?.report) this.reportedChanges.add(name)
    }
    return { kind: 'command', tag: 'SET' }
  }

  /** Makes `value` (a SET TIME ZONE value; undefined: the default) this session's TimeZone;
   *  returns its name as SHOW prints it. Throws 22023 for a zone there is none of. */
  setTimeZone(value: string | undefined): string {
    const zone = parseTimeZoneSetting(value)
    this.#engine.timeZone = zone
    return zone.name
  }

  settingDisplayName(name: string): string {
    return SETTINGS.find((s) => s.name.toLowerCase() === name)?.name ?? name
  }

  #show(name: string): Outcome {
    if (name === 'all') {
      const rows = [...this.settings].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]): ResultValue[] => [this.settingDisplayName(k), v, null])
      return { kind: 'rows', fields: [{ name: 'name', type: 'text' }, { name: 'setting', type: 'text' }, { name: 'description', type: 'text' }], rows, command: 'SHOW' }
    }
    const v = this.settings.get(name)
    if (v === undefined) throw new RivuletError('42704', `unrecognized configuration parameter "${name}"`)
    return { kind: 'rows', fields: [{ name: this.settingDisplayName(name), type: 'text' }], rows: [[v]], command: 'SHOW' }
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
      if (this.#connection.closed) throw new ConnectionClosed()
      this.#cursors.set(name, { kind: 'subscription', sub: new CursorSubscription(this.#ctx.gate, query, this.#ctx.subscriptionBufferBytes) })
    } else {
      const { fields, rows } = await this.#queryRows(query, op)
      this.#cursors.set(name, { kind: 'rows', fields, rows: [...rows] })
    }
    return { kind: 'command', tag: 'DECLARE CURSOR' }
  }

  async #fetch(name: string, count: number, timeoutMs: number | undefined, op: Cancellation): Promise<Outcome> {
    const c = this.cursor(name)
    if (c.kind === 'rows') {
      const rows = c.rows.splice(0, count)
      return { kind: 'rows', fields: c.fields, rows, command: `FETCH ${rows.length}` }
    }
    const rows = await c.sub.fetch(count, timeoutMs, (h) => op.on(h))
    if (this.#connection.closed) throw new ConnectionClosed()
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
      this.#connection.send(copyInResponse(columns ?? rel.columns.length))
      this.#connection.flush()
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
        this.#connection.send(copyOutResponse(fields.length))
        if (header) this.#connection.send(copyData(csvHeader(fields)))
        for (const row of rows) this.#connection.send(copyData(line(fields, row)))
        this.#connection.send(copyDone())
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
        if (this.#connection.closed) throw new ConnectionClosed()
        const sub = new CopySubscription(this.#ctx.gate, query, this.#connection, this.#ctx.subscriptionBufferBytes, csv ? copyCsvLine : copyTextLine)
        this.#copies.add(sub)
        const unCancel = op.on((e) => sub.finish({ kind: 'error', error: e }))
        try {
          this.#connection.send(copyOutResponse(sub.fields.length))
          if (header) this.#connection.send(copyData(csvHeader(sub.fields)))
          this.#connection.flush()
          sub.start()
          const end = await sub.done
          if (end.kind === 'closed' || this.#connection.closed) throw new ConnectionClosed()
          throw end.error
        } finally {
          unCancel()
          sub.end()
          this.#copies.delete(sub)
        }
      },
    }
  }

  /** Ends the COPY streams, the cursors and the engine session; forgets the prepared
   *  statements and portals. */
  close(): void {
    for (const sub of [...this.#copies]) sub.finish({ kind: 'closed' })
    this.#copies.clear()
    this.closeCursors()
    // an open block is rolled back with the session
    this.#engine.close()
    this.statements.clear()
    this.portals.clear()
  }
}

/** The client encodings accepted: UTF-8 (the server's) and SQL_ASCII (no conversion). */
export function clientEncoding(value: string, strict = false): string {
  const v = value.toUpperCase().replace(/[-_]/g, '')
  if (v === 'UTF8' || v === 'UNICODE') return 'UTF8'
  if (v === 'SQLASCII') return 'SQL_ASCII'
  if (strict) throw new RivuletError('0A000', `client encoding "${value}" is not supported: the server speaks UTF8 (or SQL_ASCII)`)
  return 'UTF8'
}

function csvHeader(fields: readonly Field[]): string {
  return fields.map((f) => (/[",\r\n]/.test(f.name) || f.name === '' ? `"${f.name.replace(/"/g, '""')}"` : f.name)).join(',') + '\n'
}
