/**
 * /api/users/me/identities — the signed-in person's identity-provider link:
 * seen, started from the profile (the only way to link an existing account through a provider not
 * marked `trust_email`, and the only way ever for an administrator), and removed.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { NoContent, PageOf } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { assertReauthenticated } from '../../identity/reauth.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { recordAudit } from '../audit/service.js'
import { unlinkOidcIdentity } from './accounts.repo.js'
import { findProviderForSignIn } from './providers.repo.js'
import { ProviderKeyParams } from './sign-in.schemas.js'
import { startOidcLink } from './sign-in.service.js'
import { stateCookie } from './sign-in.state.js'

const tags = ['current user']
const IdentityView = Type.Object({ provider_key: Type.String(), name: providerName() })
function providerName() {
  return Type.Union([Type.String(), Type.Null()], {
    description: "The provider's name; null when it is disabled",
  })
}

export function identityRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listMyIdentities',
          summary: 'Your identity-provider link (at most one)',
          response: { 200: PageOf(IdentityView) },
        },
      },
      async (request) => {
        const { user } = callerOf(request)
        if (user.oidc_provider === null) return { items: [], next_cursor: null }
        const provider = await findProviderForSignIn(deps.db, user.oidc_provider)
        return {
          items: [{ provider_key: user.oidc_provider, name: provider?.name ?? null }],
          next_cursor: null,
        }
      },
    )

    app.post(
      '/:provider_key/link',
      {
        config: { auth: 'session', rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'linkMyIdentity',
          summary:
            "Start linking a provider to your account: answers the provider's authorization URL (and the state cookie); " +
            'after the provider, the browser comes back to {PUBLIC_URL}/account?linked=<key> or ?link_error=<code>',
          params: ProviderKeyParams,
          response: {
            200: Type.Object({ authorization_url: Type.String() }),
            400: errorResponse(
              'PASSWORD_REQUIRED: outside the re-authentication window (POST /api/auth/reauthenticate first)',
            ),
            403: errorResponse(
              'RECENT_SIGN_IN_REQUIRED: outside the window, for an account without a password (sign in again)',
            ),
            404: errorResponse('NOT_FOUND: no enabled provider has this key'),
            409: errorResponse('ALREADY_EXISTS: your account is linked to a provider already'),
            429: errorResponse('RATE_LIMITED: 10 per 15 minutes'),
            502: errorResponse('UPSTREAM_FAILED: the provider could not be reached'),
          },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request)
        // A stolen session must not bind the thief's provider account (a way in without the
        // password).
        assertReauthenticated(deps, caller)
        const started = await startOidcLink(deps, caller, request.params.provider_key)
        reply.header('set-cookie', stateCookie(deps, started.sealedState))
        return { authorization_url: started.location }
      },
    )

    app.delete(
      '/:provider_key',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'unlinkMyIdentity',
          summary:
            'Unlink the provider from your account (you need a password to sign in afterwards)',
          params: ProviderKeyParams,
          response: {
            204: NoContent,
            400: errorResponse(
              'PASSWORD_REQUIRED: set a password first (it would be your only way to sign in), or — outside the re-authentication window — POST /api/auth/reauthenticate first',
            ),
            404: errorResponse('NOT_FOUND: your account is not linked to this provider'),
          },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request)
        if (caller.user.oidc_provider !== request.params.provider_key)
          throw new AppError('NOT_FOUND', {
            message: 'Your account is not linked to this provider.',
          })
        if (!caller.user.has_password)
          throw new AppError('PASSWORD_REQUIRED', {
            message: 'Set a password first: without the provider it is your only way to sign in.',
          })
        assertReauthenticated(deps, caller)
        await deps.db.transaction().execute(async (tx) => {
          if (
            !(await unlinkOidcIdentity(
              tx,
              caller.user.id,
              request.params.provider_key,
              deps.clock.now().toISOString(),
            ))
          ) {
            throw new AppError('NOT_FOUND', {
              message: 'Your account is not linked to this provider.',
            })
          }
          await recordAudit(tx, deps.clock, contextOf(request), {
            action: 'user.oidc_unlink',
            actor: caller.user,
            target: { type: 'user', id: caller.user.id },
            metadata: { provider_key: request.params.provider_key },
          })
        })
        return reply.code(204).send(null)
      },
    )
  }
}
