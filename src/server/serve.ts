// The `rivulet serve` command: opens the engine, starts the server, prints where it listens
// and runs until SIGINT / SIGTERM, then closes every session and the engine.

import { readFileSync } from 'node:fs'
import { Engine, recoveryLine } from '../engine/index.js'
import { parseMilliseconds } from './commands.js'
import { startServer, type ServerOptions } from './index.js'

export interface ServeOptions {
  readonly port?: string
  readonly host?: string
  readonly data?: string
  /** Refused: a password on the command line is visible to every user of the machine (ps). */
  readonly password?: string
  readonly passwordFile?: string
  readonly allowServerFiles?: boolean
  readonly auth?: string
  readonly maxConnections?: string
  readonly statementTimeout?: string
  readonly maxMemory?: string
  readonly tlsCert?: string
  readonly tlsKey?: string
}

export interface ServeIo {
  stdout(s: string): void
  stderr(s: string): void
  /** The environment (RIVULET_PASSWORD); default process.env. */
  readonly env?: NodeJS.ProcessEnv
}

/** The password from --password-file (its first line) or RIVULET_PASSWORD; undefined for
 *  none; a string starting with "error:" when it cannot be had. */
function readPassword(opts: ServeOptions, env: NodeJS.ProcessEnv): { password: string | undefined } | { error: string } {
  if (opts.password !== undefined) return { error: '--password is not accepted: a password on the command line is visible to every user of this machine (ps). Put it in a file for --password-file, or in the environment variable RIVULET_PASSWORD.' }
  if (opts.passwordFile !== undefined) {
    let text: string
    try {
      text = readFileSync(opts.passwordFile, 'utf8')
    } catch (e) {
      return { error: `cannot read --password-file ${opts.passwordFile}: ${e instanceof Error ? e.message : String(e)}` }
    }
    const password = text.split(/\r?\n/, 1)[0] ?? ''
    if (password === '') return { error: `--password-file ${opts.passwordFile} is empty` }
    return { password }
  }
  const fromEnv = env.RIVULET_PASSWORD
  return { password: fromEnv === undefined || fromEnv === '' ? undefined : fromEnv }
}

function positiveInteger(text: string | undefined, name: string): number | undefined | Error {
  if (text === undefined) return undefined
  const n = Number(text)
  return Number.isInteger(n) && n > 0 ? n : new Error(`invalid ${name} ${text} (a positive integer)`)
}

const AUTH_METHODS = ['scram-sha-256', 'scram', 'md5', 'password'] as const

/** Runs the server until a signal; resolves to the exit code. */
export async function serve(opts: ServeOptions, io: ServeIo): Promise<number> {
  const port = Number(opts.port ?? '6875')
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr(`rivulet serve: invalid port: ${opts.port}\n`)
    return 1
  }
  const auth = (opts.auth ?? 'scram-sha-256').toLowerCase()
  if (!(AUTH_METHODS as readonly string[]).includes(auth)) {
    io.stderr(`rivulet serve: invalid --auth ${opts.auth} (scram-sha-256, md5 or password)\n`)
    return 1
  }
  const pw = readPassword(opts, io.env ?? process.env)
  if ('error' in pw) {
    io.stderr(`rivulet serve: ${pw.error}\n`)
    return 1
  }
  const password = pw.password
  if (opts.auth !== undefined && password === undefined) {
    io.stderr('rivulet serve: --auth needs a password (--password-file or RIVULET_PASSWORD)\n')
    return 1
  }
  const maxConnections = positiveInteger(opts.maxConnections, '--max-connections')
  const maxMemoryMib = positiveInteger(opts.maxMemory, '--max-memory')
  let statementTimeoutMs = 0
  try {
    if (opts.statementTimeout !== undefined) statementTimeoutMs = parseMilliseconds(opts.statementTimeout, 'statement_timeout')
  } catch (e) {
    io.stderr(`rivulet serve: invalid --statement-timeout ${opts.statementTimeout} (ms, or with a unit: 5s, 1min)\n`)
    return 1
  }
  let tls: ServerOptions['tls']
  if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) {
    io.stderr('rivulet serve: --tls-cert and --tls-key go together\n')
    return 1
  }
  if (opts.tlsCert !== undefined && opts.tlsKey !== undefined) {
    try {
      tls = { cert: readFileSync(opts.tlsCert), key: readFileSync(opts.tlsKey) }
    } catch (e) {
      io.stderr(`rivulet serve: cannot read the TLS certificate or key: ${e instanceof Error ? e.message : String(e)}\n`)
      return 1
    }
  }
  for (const v of [maxConnections, maxMemoryMib]) {
    if (v instanceof Error) {
      io.stderr(`rivulet serve: ${v.message}\n`)
      return 1
    }
  }
  const host = opts.host ?? '127.0.0.1'
  let engine: Engine
  try {
    engine = Engine.open(opts.data !== undefined ? { dir: opts.data } : {})
  } catch (e) {
    io.stderr(`rivulet serve: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
  if (engine.recovery !== undefined) io.stderr(`rivulet serve: ${recoveryLine(engine.recovery)}\n`)
  let server
  try {
    const options: ServerOptions = {
      engine,
      host,
      port,
      allowServerFiles: opts.allowServerFiles === true,
      ...(maxConnections !== undefined ? { maxConnections: maxConnections as number } : {}),
      ...(maxMemoryMib !== undefined ? { maxMemoryBytes: (maxMemoryMib as number) * (1 << 20) } : {}),
      statementTimeoutMs,
      ...(tls !== undefined ? { tls } : {}),
      ...(password !== undefined ? { password, auth: auth as (typeof AUTH_METHODS)[number] } : {}),
    }
    server = await startServer(options)
  } catch (e) {
    engine.close()
    io.stderr(`rivulet serve: cannot listen on ${host}:${port}: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
  const shown = host.includes(':') ? `[${host}]` : host
  io.stdout(`rivulet: listening on ${shown}:${server.port}\n`)
  if (password === undefined && !/^(127\.|::1$|localhost$)/.test(host)) io.stderr(`rivulet: warning: no --password, and ${host} is not a loopback address: anyone who can reach it can connect\n`)
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  io.stdout('rivulet: shutting down\n')
  await server.close()
  engine.close()
  return 0
}
