// `rivulet serve`: a Postgres v3 wire-protocol server over one Engine, shared by every session.
// psql, node-postgres and other libpq-style clients connect to it.
//
//   const srv = await startServer({ engine: Engine.open(), port: 0 })
//   // psql -h 127.0.0.1 -p ${srv.port}
//   await srv.close()

import type { Socket } from 'node:net'
import { createSecureContext } from 'node:tls'
import type { Engine } from '../engine/index.js'
import type { AuthMethod } from './auth.js'
import { EngineGate } from './gate.js'
import { Session, type ServerContext } from './session.js'
import { defaultMemoryLimit } from '../sql-runtime/statement-limits.js'
import { startRelay, type Relay } from './relay.js'
import { AuthThrottle } from './throttle.js'

export interface ServerOptions {
  readonly engine: Engine
  /** Address to listen on (default 127.0.0.1). */
  readonly host?: string
  /** Port (default 6875; 0 picks a free one). */
  readonly port?: number
  /** Require this password from every client (default: none, trust). */
  readonly password?: string
  /** How the password is checked: 'scram-sha-256' (default; 'scram' also), 'md5', or
   *  'password' (cleartext). Ignored without a password. */
  readonly auth?: 'scram-sha-256' | 'scram' | 'md5' | 'password'
  /** Largest frontend message accepted (default 64 MiB); a larger one ends the connection. */
  readonly maxMessageBytes?: number
  /** Most bytes of changes a subscription may hold for a client that does not read them
   *  (default 16 MiB); past that the subscription ends with an error (54000). */
  readonly subscriptionBufferBytes?: number
  /** Most client connections at once (default 100); one more is refused with 53300 after
   *  its startup packet (a CancelRequest still gets through). */
  readonly maxConnections?: number
  /** First delay (ms) after a failed password from an address, doubling with each further
   *  failure up to 5 s (default 250; 0 turns throttling off). */
  readonly authFailureDelayMs?: number
  /** Default statement_timeout in ms (default 0: none); sessions may SET their own. */
  readonly statementTimeoutMs?: number
  /** Memory limit in bytes: a statement fails with 53200 once the process's heap in use
   *  passes it (checked at batch boundaries; default 80% of V8's heap limit). */
  readonly maxMemoryBytes?: number
  /** Largest result one statement may send, in bytes of DataRow messages (default 1 GiB;
   *  54000 past it). */
  readonly maxResultBytes?: number
  /** TLS: the server's certificate chain and private key (PEM). A client's SSLRequest is then
   *  answered 'S' and the session goes on encrypted (else 'N', in the clear). */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer }
  /** Let `COPY t FROM 'file'` read files on the server's machine (default false: 42501). */
  readonly allowServerFiles?: boolean
  /** How often processing time is advanced for views with temporal filters (default 1000 ms;
   *  0 = never). */
  readonly refreshIntervalMs?: number
}

export interface RunningServer {
  readonly host: string
  readonly port: number
  /** Open sessions. */
  readonly sessions: number
  /** Stops listening, ends every session (FATAL 57P01 to each client), resolves when all
   *  connections are closed. The engine is left open. */
  close(): Promise<void>
}

/** The version the server reports (server_version); psql reads the major version from it. */
export const SERVER_VERSION = '15.0 (rivulet)'

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  const auth: AuthMethod = options.password === undefined ? 'trust' : options.auth === 'md5' ? 'md5' : options.auth === 'password' ? 'password' : 'scram-sha-256'
  const gate = new EngineGate(options.engine)
  const sessions = new Map<number, Session>() // by pid, once started (for CancelRequest)
  const connections = new Map<Socket, Session>()
  const maxConnections = options.maxConnections ?? 100
  let pid = 0
  const ctx: ServerContext & { drainCancels: () => void } = {
    gate,
    auth,
    password: options.password,
    maxMessageBytes: options.maxMessageBytes ?? 64 * 1024 * 1024,
    subscriptionBufferBytes: options.subscriptionBufferBytes ?? 16 * 1024 * 1024,
    allowServerFiles: options.allowServerFiles === true,
    throttle: new AuthThrottle(options.authFailureDelayMs ?? 250, 5000),
    statementTimeoutMs: options.statementTimeoutMs ?? 0,
    tls: options.tls === undefined ? undefined : createSecureContext({ cert: options.tls.cert, key: options.tls.key }),
    maxMemoryBytes: options.maxMemoryBytes ?? defaultMemoryLimit(),
    maxResultBytes: options.maxResultBytes ?? 1 << 30,
    drainCancels: () => undefined,
    serverVersion: SERVER_VERSION,
    oidOf: (name) => options.engine.relationOid(name),
    nextPid: () => (pid = (pid % 0x7ffffffe) + 1) + 1000,
    register: (s) => void sessions.set(s.pid, s),
    unregister: (s) => {
      if (sessions.get(s.pid) === s) sessions.delete(s.pid)
    },
    cancel(p, key) {
      const s = sessions.get(p)
      if (s && s.secret === key) s.cancelCurrent()
    },
  }

  const accept = (socket: Socket, address: string): void => {
    try {
      // past the cap a connection is still read (to say why it is refused); past twice the
      // cap (plus some) it is cut at once
      if (connections.size >= maxConnections * 2 + 16) {
        socket.destroy()
        return
      }
      connections.set(socket, new Session(socket, ctx, address, connections.size >= maxConnections))
      socket.on('close', () => connections.delete(socket))
    } catch {
      socket.destroy()
    }
  }

  const refreshMs = options.refreshIntervalMs ?? 1000
  const timer =
    refreshMs > 0
      ? setInterval(() => {
          try {
            options.engine.refresh()
          } catch {
            // a closed engine; the server is being shut down
          }
        }, refreshMs)
      : undefined
  timer?.unref()

  let relay: Relay
  try {
    relay = await startRelay(host, options.port ?? 6875, accept, (p, key) => ctx.cancel(p, key))
  } catch (e) {
    if (timer) clearInterval(timer)
    throw e
  }
  ctx.drainCancels = () => relay.drain()
  let closing: Promise<void> | undefined
  return {
    host,
    port: relay.port,
    get sessions() {
      return connections.size
    },
    close() {
      closing ??= (async () => {
        if (timer) clearInterval(timer)
        for (const s of [...connections.values()]) s.terminate('terminating connection due to administrator command')
        // connections that do not close after their FATAL message are cut
        const cut = setTimeout(() => {
          for (const socket of connections.keys()) socket.destroy()
        }, 1000)
        while (connections.size > 0) await new Promise((r) => setTimeout(r, 10))
        clearTimeout(cut)
        await relay.close()
      })()
      return closing
    },
  }
}
