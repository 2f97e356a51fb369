// Password authentication for the server: cleartext, MD5 and SCRAM-SHA-256 (RFC 5802 with
// SHA-256, RFC 7677; Postgres's flavour: the user name comes from the startup packet and the
// SCRAM `n=` attribute is ignored; no channel binding, so only the `SCRAM-SHA-256` mechanism is
// offered). node:crypto provides every primitive.

import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto'
import { authCleartext, authMd5, authOk, authSasl, authSaslContinue, authSaslFinal, Reader } from './protocol.js'

export type AuthMethod = 'trust' | 'password' | 'md5' | 'scram-sha-256'

/** What the session does after a password message. */
export type AuthStep =
  | { readonly kind: 'continue'; readonly send: Buffer }
  | { readonly kind: 'ok'; readonly send: readonly Buffer[] }
  | { readonly kind: 'fail'; readonly reason: string }

/** One connection's authentication exchange. */
export interface Authenticator {
  /** The first message to send (AuthenticationOk for trust). */
  start(): Buffer
  /** Handles the body of a PasswordMessage / SASLInitialResponse / SASLResponse ('p'). */
  step(body: Buffer): AuthStep
  readonly done: boolean
}

export function createAuthenticator(method: AuthMethod, user: string, password: string | undefined): Authenticator {
  if (method === 'trust' || password === undefined) return new Trust()
  if (method === 'password') return new Cleartext(password)
  if (method === 'md5') return new Md5(user, password)
  return new Scram(password)
}

class Trust implements Authenticator {
  done = true
  start(): Buffer {
    return authOk()
  }
  step(): AuthStep {
    return { kind: 'fail', reason: 'unexpected password message' }
  }
}

class Cleartext implements Authenticator {
  done = false
  constructor(readonly password: string) {}
  start(): Buffer {
    return authCleartext()
  }
  step(body: Buffer): AuthStep {
    this.done = true
    const given = new Reader(body).cstring()
    return safeEqual(given, this.password) ? { kind: 'ok', send: [authOk()] } : { kind: 'fail', reason: 'password does not match' }
  }
}

class Md5 implements Authenticator {
  done = false
  readonly #salt = randomBytes(4)
  constructor(
    readonly user: string,
    readonly password: string,
  ) {}
  start(): Buffer {
    return authMd5(this.#salt)
  }
  step(body: Buffer): AuthStep {
    this.done = true
    const given = new Reader(body).cstring()
    // md5(md5(password || user) || salt), hex, prefixed with "md5"
    const inner = createHash('md5').update(this.password + this.user, 'utf8').digest('hex')
    const expected = 'md5' + createHash('md5').update(Buffer.concat([Buffer.from(inner, 'utf8'), this.#salt])).digest('hex')
    return safeEqual(given, expected) ? { kind: 'ok', send: [authOk()] } : { kind: 'fail', reason: 'password does not match' }
  }
}

const ITERATIONS = 4096

/** A SCRAM verifier, as Postgres keeps in pg_authid: salt, StoredKey, ServerKey. */
interface Verifier {
  readonly salt: Buffer
  readonly storedKey: Buffer
  readonly serverKey: Buffer
}

/** Verifiers by password: derived once per process with a random salt (PBKDF2 with 4096
 *  rounds costs milliseconds, too much to spend on every connection). */
const verifiers = new Map<string, Verifier>()

function verifierFor(password: string): Verifier {
  let v = verifiers.get(password)
  if (!v) {
    const salt = randomBytes(16)
    const salted = pbkdf2Sync(Buffer.from(saslPrep(password), 'utf8'), salt, ITERATIONS, 32, 'sha256')
    v = { salt, storedKey: createHash('sha256').update(hmac(salted, 'Client Key')).digest(), serverKey: hmac(salted, 'Server Key') }
    if (verifiers.size > 16) verifiers.clear()
    verifiers.set(password, v)
  }
  return v
}

/** SCRAM-SHA-256, server side. */
class Scram implements Authenticator {
  done = false
  #state: 'initial' | 'continue' = 'initial'
  #clientFirstBare = ''
  #serverFirst = ''
  #nonce = ''
  #gs2Header = ''
  readonly #salt: Buffer
  readonly #storedKey: Buffer
  readonly #serverKey: Buffer

  constructor(password: string) {
    const v = verifierFor(password)
    this.#salt = v.salt
    this.#storedKey = v.storedKey
    this.#serverKey = v.serverKey
  }

  start(): Buffer {
    return authSasl(['SCRAM-SHA-256'])
  }

  step(body: Buffer): AuthStep {
    const r = new Reader(body)
    if (this.#state === 'initial') {
      const mechanism = r.cstring()
      if (mechanism !== 'SCRAM-SHA-256') return this.#fail(`client selected an invalid SASL authentication mechanism`)
      const len = r.int32()
      const data = len < 0 ? '' : r.bytes(len).toString('utf8')
      // client-first-message = gs2-header client-first-message-bare; gs2-header = (n|y|p=…) "," [authzid] ","
      const m = /^([ny]),(?:a=[^,]*)?,(.*)$/s.exec(data)
      if (!m) return this.#fail('malformed SCRAM message (client-first-message)')
      this.#gs2Header = data.slice(0, data.length - m[2]!.length)
      this.#clientFirstBare = m[2]!
      const attrs = parseAttributes(this.#clientFirstBare)
      const clientNonce = attrs.get('r')
      if (!clientNonce || !/^[\x21-\x2b\x2d-\x7e]+$/.test(clientNonce)) return this.#fail('malformed SCRAM message (nonce)')
      this.#nonce = clientNonce + randomBytes(18).toString('base64')
      this.#serverFirst = `r=${this.#nonce},s=${this.#salt.toString('base64')},i=${ITERATIONS}`
      this.#state = 'continue'
      return { kind: 'continue', send: authSaslContinue(this.#serverFirst) }
    }
    this.done = true
    const data = r.rest().toString('utf8')
    const proofAt = data.lastIndexOf(',p=')
    if (proofAt < 0) return this.#fail('malformed SCRAM message (client-final-message)')
    const withoutProof = data.slice(0, proofAt)
    const attrs = parseAttributes(withoutProof)
    if (attrs.get('c') !== Buffer.from(this.#gs2Header, 'utf8').toString('base64')) return this.#fail('SCRAM channel binding check failed')
    if (attrs.get('r') !== this.#nonce) return this.#fail('SCRAM nonce mismatch')
    const proof = Buffer.from(data.slice(proofAt + 3), 'base64')
    if (proof.length !== 32) return this.#fail('malformed SCRAM message (proof)')
    const authMessage = `${this.#clientFirstBare},${this.#serverFirst},${withoutProof}`
    const signature = hmac(this.#storedKey, authMessage)
    const clientKey = Buffer.alloc(32)
    for (let i = 0; i < 32; i++) clientKey[i] = proof[i]! ^ signature[i]!
    const check = createHash('sha256').update(clientKey).digest()
    if (!timingSafeEqual(check, this.#storedKey)) return { kind: 'fail', reason: 'password does not match' }
    const serverSignature = hmac(this.#serverKey, authMessage).toString('base64')
    return { kind: 'ok', send: [authSaslFinal(`v=${serverSignature}`), authOk()] }
  }

  #fail(reason: string): AuthStep {
    this.done = true
    return { kind: 'fail', reason }
  }
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest()
}

function parseAttributes(s: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of s.split(',')) {
    const eq = part.indexOf('=')
    if (eq === 1) out.set(part[0]!, part.slice(2))
  }
  return out
}

/** The parts of SASLprep (RFC 4013) that matter for real passwords: non-ASCII spaces map to a
 *  space, "commonly mapped to nothing" characters are removed, then NFKC. (libpq does the same
 *  before hashing; an ASCII password is unchanged.) */
function saslPrep(password: string): string {
  if (/^[\x20-\x7e]*$/.test(password)) return password
  return password
    .replace(/[\u00a0\u1680\u2000-\u200b\u202f\u205f\u3000]/g, ' ')
    .replace(/[\u00ad\u034f\u1806\u180b-\u180d\u200c\u200d\u2060\ufe00-\ufe0f\ufeff]/g, '')
    .normalize('NFKC')
}

function safeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a, 'utf8').digest()
  const y = createHash('sha256').update(b, 'utf8').digest()
  return timingSafeEqual(x, y)
}
