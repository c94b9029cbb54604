/** GET/PUT /api/admin/settings/sign-up: whether invited people may create their account. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { SignUpSettingsView, UpdateSignUpSettingsBody } from './schemas.js'
import { getSignUpSettings, updateSignUpSettings } from './sign-up.js'

const tags = ['settings: sign-up']

export function signUpSettingsRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/sign-up',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getSignUpSettings',
          summary: 'Who may create an account: people invited to an organization, or nobody',
          response: { 200: SignUpSettingsView },
        },
      },
      async () => getSignUpSettings(deps),
    )
    app.put(
      '/sign-up',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'updateSignUpSettings',
          summary: 'Let invited people create their account from the link, or not',
          body: UpdateSignUpSettingsBody,
          response: {
            200: SignUpSettingsView,
            403: errorResponse('FORBIDDEN: administrators only'),
          },
        },
      },
      async (request) =>
        updateSignUpSettings(deps, callerOf(request), request.body, contextOf(request)),
    )
  }
}
