/** GET/PUT /api/admin/settings/two-factor-policy: a static route, preferred to `/:key`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { TwoFactorPolicyView, UpdateTwoFactorPolicyBody } from './two-factor-policy.schemas.js'
import { getTwoFactorPolicy, updateTwoFactorPolicy } from './two-factor-policy.js'

const tags = ['settings: two-factor policy']

export function twoFactorPolicyRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/two-factor-policy',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getTwoFactorPolicy',
          summary: 'Who must use two-factor authentication: off, admins or everyone',
          response: { 200: TwoFactorPolicyView },
        },
      },
      async () => getTwoFactorPolicy(deps),
    )

    app.put(
      '/two-factor-policy',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'updateTwoFactorPolicy',
          summary:
            'Require two-factor authentication of administrators or everyone (re-authentication required)',
          body: UpdateTwoFactorPolicyBody,
          response: {
            200: TwoFactorPolicyView,
            400: errorResponse(
              'VALIDATION_FAILED, PASSWORD_REQUIRED, INVALID_PASSWORD, INVALID_CODE (also: code missing while your MFA is on)',
            ),
            403: errorResponse(
              'FORBIDDEN: administrators only; SESSION_REQUIRED: an API token cannot change the policy',
            ),
            409: errorResponse(
              'MFA_NOT_ENABLED: you must have a second factor yourself before requiring one',
            ),
            429: errorResponse(
              'RATE_LIMITED: 10 wrong passwords or codes per account per 15 minutes',
            ),
          },
        },
      },
      async (request) =>
        updateTwoFactorPolicy(deps, callerOf(request), request.body, contextOf(request)),
    )
  }
}
