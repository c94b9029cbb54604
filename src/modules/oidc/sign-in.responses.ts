/**
 * How the browser routes of OIDC sign-in answer: always a 302 to the web app — signed in, on to
 * the second factor, or back to the login page with `?error=<code>`. The cause of a failure goes
 * to the log under the request id, never into the URL.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../deps.js'
import { setSignInCookies } from '../auth/responses.js'
import type { SignInFailure } from './sign-in.failure.js'
import type { CallbackOutcome } from './sign-in.service.js'
import { clearedStateCookie } from './sign-in.state.js'
import { appHomeUrl, loginErrorUrl, mfaStepUrl, profileUrl } from './urls.js'

export function answerFailure(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: Deps,
  failure: SignInFailure,
): FastifyReply {
  request.log.warn({ oidc: { error: failure.code, detail: failure.detail } }, 'OIDC sign-in failed')
  return reply.redirect(loginErrorUrl(deps.config.publicUrl, failure.code), 302)
}

/** The callback's answer; the state cookie is spent whatever the outcome. */
export function answerCallback(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: Deps,
  outcome: CallbackOutcome,
): FastifyReply {
  reply.header('set-cookie', clearedStateCookie(deps))
  switch (outcome.kind) {
    case 'session':
      setSignInCookies(reply, deps, outcome.signIn)
      return reply.redirect(appHomeUrl(deps.config.publicUrl), 302)
    case 'mfa':
      return reply.redirect(mfaStepUrl(deps.config.publicUrl, outcome.challenge), 302)
    case 'linked':
      return reply.redirect(profileUrl(deps.config.publicUrl, { linked: outcome.providerKey }), 302)
    case 'failure':
      if (outcome.forLink === true) {
        request.log.warn(
          { oidc: { error: outcome.failure.code, detail: outcome.failure.detail } },
          'OIDC link failed',
        )
        return reply.redirect(
          profileUrl(deps.config.publicUrl, { link_error: outcome.failure.code }),
          302,
        )
      }
      return answerFailure(request, reply, deps, outcome.failure)
  }
}
