import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Deps } from '../../deps.js'
import { NoContent } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { clearSessionCookies } from '../../identity/cookies.js'
import {
  ChangePasswordBody,
  DeleteMeBody,
  PasswordStatusView,
  UpdateMeBody,
  UserView,
} from './schemas.js'
import {
  changePassword,
  deleteCurrentUser,
  getPasswordStatus,
  updateCurrentUser,
} from './service.js'
import { toUserView } from './view.js'

const tags = ['current user']
const User = Type.Ref(UserView)

export function userRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/me',
      {
        // The console's enrolment page needs it (open during enrolment, identity/mfa-policy.ts).
        config: { allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'getCurrentUser',
          summary: 'The current user',
          response: { 200: User },
        },
      },
      async (request) => toUserView(callerOf(request).user),
    )

    app.patch(
      '/me',
      {
        schema: {
          tags,
          operationId: 'updateCurrentUser',
          summary: 'Update your name, language, theme or AI-suggestion preference',
          body: UpdateMeBody,
          response: { 200: User },
        },
      },
      async (request) =>
        toUserView(
          await updateCurrentUser(deps, callerOf(request), request.body, contextOf(request)),
        ),
    )

    app.get(
      '/me/password',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'getPasswordStatus',
          summary: 'Whether you have a password, and when it was last set',
          response: { 200: PasswordStatusView },
        },
      },
      async (request) => getPasswordStatus(deps, callerOf(request)),
    )

    app.post(
      '/me/password',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'changePassword',
          summary: 'Change your password; your other sessions are signed out',
          description:
            "The proof fields may be left out inside the session's re-authentication window (POST /api/auth/reauthenticate); a proof sent is checked.",
          body: ChangePasswordBody,
          response: {
            204: NoContent,
            400: errorResponse(
              'VALIDATION_FAILED (new_password rules), PASSWORD_REQUIRED, INVALID_PASSWORD',
            ),
            429: errorResponse('RATE_LIMITED: too many wrong passwords'),
          },
        },
      },
      async (request, reply) => {
        await changePassword(deps, callerOf(request), request.body, contextOf(request))
        return reply.code(204).send(null)
      },
    )

    app.delete(
      '/me',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'deleteCurrentUser',
          summary: 'Delete your account (password, and a TOTP or backup code when MFA is on)',
          description:
            "The proof fields may be left out inside the session's re-authentication window (POST /api/auth/reauthenticate); a proof sent is checked.",
          body: DeleteMeBody,
          response: {
            204: NoContent,
            400: errorResponse(
              'VALIDATION_FAILED, PASSWORD_REQUIRED, INVALID_PASSWORD, INVALID_CODE',
            ),
            409: errorResponse('LAST_ADMIN: you are the last active administrator'),
            429: errorResponse('RATE_LIMITED: too many wrong passwords'),
          },
        },
      },
      async (request, reply) => {
        await deleteCurrentUser(deps, callerOf(request), request.body, contextOf(request))
        clearSessionCookies(reply, deps)
        return reply.code(204).send(null)
      },
    )
  }
}
