/**
 * What a sign-in must remember between leaving for the provider and coming back: `state` (against
 * login CSRF, RFC 6749 §10.12), `nonce` (binds the ID token to this attempt, OIDC Core §3.1.2.1)
 * and the PKCE verifier (RFC 7636). It travels in a short-lived cookie instead of server storage,
 * so any instance can finish a sign-in another began. The cookie is HMAC-signed under a key
 * derived from JWT_SECRET and bound to the provider and an expiry of its own, so it can be
 * neither forged, nor moved to another provider, nor replayed after 10 minutes (Max-Age alone is
 * only a request to the browser).
 */
import { createHash } from 'node:crypto'
import type { Deps } from '../../deps.js'
import { hmacBase64Url, safeEqual } from '../../lib/crypto.js'
import { randomToken } from '../../lib/random.js'
import { cookie } from '../../identity/cookies.js'
import { signInCookiePath } from './urls.js'

export const STATE_COOKIE = 'oidc_state'
export const STATE_TTL_SECONDS = 10 * 60

export interface SignInState {
  providerKey: string
  state: string
  nonce: string
  codeVerifier: string
  /** Set when a signed-in person links this provider to their account from their profile. */
  linkFor?: { userId: string; sessionId: string }
}

interface Sealed {
  k: string
  s: string
  n: string
  v: string
  /** Linking: [user id, session id]. */
  l?: [string, string]
  /** Expiry, milliseconds since the epoch. */
  x: number
}

/**
 * Fresh values for one attempt: 256 bits each; the verifier is 43 characters, as RFC 7636 §4.1
 * asks.
 */
export function newSignInState(
  providerKey: string,
  linkFor?: { userId: string; sessionId: string },
): SignInState {
  return {
    providerKey,
    state: randomToken(32),
    nonce: randomToken(32),
    codeVerifier: randomToken(32),
    ...(linkFor !== undefined && { linkFor }),
  }
}

/** The S256 code challenge (RFC 7636 §4.2). */
export function codeChallengeOf(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier).digest('base64url')
}

function mac(deps: Deps, payload: string): string {
  return hmacBase64Url(deps.keys.oidcState, `oidc-state:${payload}`)
}

export function sealState(deps: Deps, value: SignInState): string {
  const sealed: Sealed = {
    k: value.providerKey,
    s: value.state,
    n: value.nonce,
    v: value.codeVerifier,
    ...(value.linkFor !== undefined && {
      l: [value.linkFor.userId, value.linkFor.sessionId] as [string, string],
    }),
    x: deps.clock.now().getTime() + STATE_TTL_SECONDS * 1000,
  }
  const payload = Buffer.from(JSON.stringify(sealed)).toString('base64url')
  return `${payload}.${mac(deps, payload)}`
}

/**
 * The state the cookie holds for this provider, or null when it is absent, altered, expired or
 * another's.
 */
export function openState(
  deps: Deps,
  cookieValue: string | undefined,
  providerKey: string,
): SignInState | null {
  const [payload, signature, extra] = (cookieValue ?? '').split('.')
  if (!payload || !signature || extra !== undefined || !safeEqual(signature, mac(deps, payload)))
    return null
  let sealed: Partial<Sealed>
  try {
    sealed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Sealed>
  } catch {
    return null
  }
  const { k, s, n, v, x, l } = sealed
  if (
    typeof k !== 'string' ||
    typeof s !== 'string' ||
    typeof n !== 'string' ||
    typeof v !== 'string' ||
    typeof x !== 'number'
  )
    return null
  if (k !== providerKey || x <= deps.clock.now().getTime()) return null
  const linkFor =
    Array.isArray(l) && l.length === 2 && l.every((part) => typeof part === 'string')
      ? { userId: l[0], sessionId: l[1] }
      : undefined
  return {
    providerKey: k,
    state: s,
    nonce: n,
    codeVerifier: v,
    ...(linkFor !== undefined && { linkFor }),
  }
}

/**
 * HttpOnly; SameSite=Lax, so the browser sends it on the provider's top-level redirect back;
 * Path limited to the sign-in routes, so no other request carries it.
 */
export function stateCookie(deps: Deps, sealed: string): string {
  return cookie(
    deps,
    STATE_COOKIE,
    sealed,
    true,
    STATE_TTL_SECONDS,
    signInCookiePath(deps.config.publicUrl),
  )
}

export function clearedStateCookie(deps: Deps): string {
  return cookie(deps, STATE_COOKIE, '', true, 0, signInCookiePath(deps.config.publicUrl))
}
