/**
 * How a completed sign-in is answered over HTTP: the body of docs/API.md#password-sign-in and the
 * cookies.
 */
import type { FastifyReply } from 'fastify'
import type { Deps } from '../../deps.js'
import { toUserView } from '../users/view.js'
import { setSessionCookies } from '../../identity/cookies.js'
import { rememberClient } from './known-clients.js'
import type { SignInOutcome } from './service.js'
import { csrfTokenFor, type SignIn } from '../../identity/session-issuer.js'

export function signInBody(signIn: SignIn) {
  return { user: toUserView(signIn.user), token: signIn.token, expires_at: signIn.expiresAt }
}

/**
 * The `token` and `csrf_token` cookies of a completed sign-in, and the `device` cookie that makes
 * its client known.
 */
export function setSignInCookies(reply: FastifyReply, deps: Deps, signIn: SignIn): void {
  setSessionCookies(reply, deps, {
    token: signIn.token,
    csrfToken: csrfTokenFor(deps, signIn.sessionId),
  })
  rememberClient(reply, deps, signIn.user.id)
}

/** Sets the `token` and `csrf_token` cookies and returns the response body. */
export function answerSignIn(reply: FastifyReply, deps: Deps, signIn: SignIn) {
  setSignInCookies(reply, deps, signIn)
  return signInBody(signIn)
}

/**
 * A first factor's answer: signed in, or `{ mfa_required, mfa_token, expires_at }` without cookies.
 */
export function answerSignInOutcome(reply: FastifyReply, deps: Deps, outcome: SignInOutcome) {
  if (outcome.kind === 'session') return answerSignIn(reply, deps, outcome.signIn)
  return {
    mfa_required: true as const,
    mfa_token: outcome.challenge.mfaToken,
    expires_at: outcome.challenge.expiresAt,
  }
}
