// The `rivulet serve` command: opens the engine, starts the server, prints where it listens
// and runs until SIGINT / SIGTERM, then closes every session and the engine.

import { Engine } from '../engine.js'
import { startServer } from './index.js'

export interface ServeOptions {
  readonly port?: string
  readonly host?: string
  readonly data?: string
  readonly password?: string
  readonly allowServerFiles?: boolean
  readonly auth?: string
}

export interface ServeIo {
  stdout(s: string): void
  stderr(s: string): void
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
  if (opts.auth !== undefined && opts.password === undefined) {
    io.stderr('rivulet serve: --auth needs --password\n')
    return 1
  }
  const host = opts.host ?? '127.0.0.1'
  let engine: Engine
  try {
    engine = Engine.open(opts.data !== undefined ? { dir: opts.data } : {})
  } catch (e) {
    io.stderr(`rivulet serve: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
  let server
  try {
    server = await startServer({ engine, host, port, allowServerFiles: opts.allowServerFiles === true, ...(opts.password !== undefined ? { password: opts.password, auth: auth as (typeof AUTH_METHODS)[number] } : {}) })
  } catch (e) {
    engine.close()
    io.stderr(`rivulet serve: cannot listen on ${host}:${port}: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
  const shown = host.includes(':') ? `[${host}]` : host
  io.stdout(`rivulet: listening on ${shown}:${server.port}\n`)
  if (opts.password === undefined && !/^(127\.|::1$|localhost$)/.test(host)) io.stderr(`rivulet: warning: no --password, and ${host} is not a loopback address: anyone who can reach it can connect\n`)
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
