/**
 * The access JWT of CONTRACT.md §4.3: HS256 over a key derived from JWT_SECRET, carrying `sub`
 * (user id), `sid` (session id), `iat`, `exp` and `iss` (the public URL). A valid signature is
 * necessary but not sufficient: the session it names must also still be live (see authenticate).
 */
import { createSecretKey, type KeyObject } from 'node:crypto'
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose'
import { deriveKey } from '../../lib/crypto.js'
import type { Clock } from '../../lib/time.js'

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

export function createAccessTokens(options: { secret: string; issuer: string; clock: Clock }): AccessTokens {
  const key: KeyObject = createSecretKey(deriveKey(options.secret, 'access-jwt'))
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
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: options.issuer,
          requiredClaims: ['sub', 'sid', 'iat', 'exp'],
          currentDate: options.clock.now(),
        })
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null
        return { sub: payload.sub, sid: payload.sid }
      } catch (error) {
        if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null
        throw error
      }
    },
  }
}
