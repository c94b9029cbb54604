/**
 * OIDC sign-in (docs/API.md#identity-providers), public: the provider list for a login page, and
 * the two browser routes of the authorization code flow, which always answer with a redirect
 * (sign-in.responses.ts). Those two are limited per client IP: each costs calls to the provider
 * and, on the callback, database writes.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { PageQuery } from '../../lib/schema-types.js'
import { contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp } from '../../plugins/rate-limit.js'
import { readCookie } from '../../identity/cookies.js'
import { answerCallback, answerFailure } from './sign-in.responses.js'
import { CallbackQuery, ProviderKeyParams, ProviderLinkPage, Redirect } from './sign-in.schemas.js'
import { finishOidcSignIn, listSignInProviders, startOidcSignIn } from './sign-in.service.js'
import { STATE_COOKIE, stateCookie } from './sign-in.state.js'

const tags = ['authentication: OIDC']
export const BROWSER_ROUTE_LIMIT = { max: 100, minutes: 15 }
const browser = {
  auth: 'public',
  rateLimit: perIp(BROWSER_ROUTE_LIMIT.max, BROWSER_ROUTE_LIMIT.minutes),
} as const
const limited = errorResponse('RATE_LIMITED: 100 requests per 15 minutes per IP')

function queryStringOf(url: string): string {
  const start = url.indexOf('?')
  return start === -1 ? '' : url.slice(start + 1)
}

export function oidcSignInRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/providers',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'listSignInProviders',
          summary: 'The enabled identity providers, for a login page, by provider_key',
          querystring: PageQuery,
          response: { 200: ProviderLinkPage },
        },
      },
      async (request) => listSignInProviders(deps, request.query),
    )

    app.get(
      '/oidc/:provider_key/login',
      {
        config: browser,
        schema: {
          tags,
          operationId: 'startOidcSignIn',
          summary:
            "302 to the provider's authorization endpoint (PKCE S256, state, nonce); failures: 302 to {PUBLIC_URL}/login?error=<code>",
          params: ProviderKeyParams,
          response: { 302: Redirect, 429: limited },
        },
      },
      async (request, reply) => {
        const outcome = await startOidcSignIn(deps, request.params.provider_key, contextOf(request))
        if (outcome.kind === 'failure') return answerFailure(request, reply, deps, outcome.failure)
        reply.header('set-cookie', stateCookie(deps, outcome.sealedState))
        return reply.redirect(outcome.location, 302)
      },
    )

    app.get(
      '/oidc/:provider_key/callback',
      {
        config: browser,
        schema: {
          tags,
          operationId: 'completeOidcSignIn',
          summary:
            'The redirect URI: 302 to {PUBLIC_URL}/ signed in, to /login/mfa#mfa_token=… for the second factor, or to /login?error=<code>',
          params: ProviderKeyParams,
          querystring: CallbackQuery,
          response: { 302: Redirect, 429: limited },
        },
      },
      async (request, reply) => {
        const input = {
          providerKey: request.params.provider_key,
          query: queryStringOf(request.url),
          state: request.query.state,
          error: request.query.error,
          stateCookie: readCookie(request, deps, STATE_COOKIE),
        }
        return answerCallback(
          request,
          reply,
          deps,
          await finishOidcSignIn(deps, input, contextOf(request)),
        )
      },
    )
  }
}
