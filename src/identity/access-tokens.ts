/**
 * The access JWT of docs/API.md#access-jwt-and-sessions: HS256 over a key derived from JWT_SECRET,
 * carrying `sub` (user id), `sid` (session id), `iat`, `exp` and `iss` (the public URL). A valid
 * signature is necessary but not sufficient: the session it names must also still be live (see
 * authenticate).
 *
 * Verified tokens are remembered (keyed by the whole token, signature included, until their `exp`):
 * WebCrypto runs HMAC on the thread pool, and that round trip cost more than the rest of an
 * authenticated request. Revocation is unaffected — it is checked in the database on every request.
 */
import { createSecretKey, type KeyObject } from 'node:crypto'
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose'
import { deriveKey } from '../lib/crypto.js'
import type { Clock } from '../lib/time.js'

export interface AccessTokenClaims {
  sub: string
  sid: string
}

export interface AccessTokens {
  issue(claims: AccessTokenClaims, issuedAt: Date, expiresAt: Date): Promise<string>
  /** The claims of a token this service signed and that has not expired; null for anything else. */
  verify(token: string): Promise<AccessTokenClaims | null>
}

const ALGORITHM = 'HS256'
const VERIFIED_CACHE_SIZE = 10_000

export function createAccessTokens(options: {
  secret: string
  issuer: string
  clock: Clock
}): AccessTokens {
  const key: KeyObject = createSecretKey(deriveKey(options.secret, 'access-jwt'))
  const verified = new Map<string, { claims: AccessTokenClaims; expiresAtMs: number }>()
  return {
    async issue(claims, issuedAt, expiresAt) {
      return new SignJWT({ sid: claims.sid })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(claims.sub)
        .setIssuer(options.issuer)
        .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(key)
    },
    async verify(token) {
      const now = options.clock.now().getTime()
      const known = verified.get(token)
      if (known !== undefined) {
        if (known.expiresAtMs > now) return known.claims
        verified.delete(token)
        return null
      }
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: options.issuer,
          requiredClaims: ['sub', 'sid', 'iat', 'exp'],
          currentDate: new Date(now),
        })
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null
        const claims = { sub: payload.sub, sid: payload.sid }
        if (verified.size >= VERIFIED_CACHE_SIZE)
          verified.delete(verified.keys().next().value as string)
        verified.set(token, { claims, expiresAtMs: payload.exp! * 1000 })
        return claims
      } catch (error) {
        if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null
        throw error
      }
    },
  }
}
