import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { toUserView } from '../users/view.js'
import type { AdminUserRecord } from './users.repo.js'
import {
  AdminUserPage,
  AdminUserQuery,
  AdminUserView,
  CreateAdminUserBody,
  CreatedAdminUserView,
  UpdateAdminUserBody,
} from './users.schemas.js'
import { welcomeNewUser } from '../password-reset/service.js'
import { createUser, deleteUser, getUser, listUsers, updateUser } from './users.service.js'

const tags = ['administration']
const NO_SUCH_USER = errorResponse('NOT_FOUND: no such user')
const EMAIL_TAKEN = 'ALREADY_EXISTS: the email belongs to another user (details: email)'

function toAdminUserView(user: AdminUserRecord): AdminUserView {
  return {
    ...toUserView(user),
    created_at: user.created_at,
    updated_at: user.updated_at,
    disabled: user.disabled,
    mfa_enabled: user.mfa_enabled,
    last_login_at: user.last_login_at,
  }
}

/** /api/admin/users — every route needs an administrator (docs/API.md#who-may-do-what). */
export function adminUserRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'listUsers',
          summary: 'Users, newest first; q matches part of the email or name, ignoring case',
          querystring: AdminUserQuery,
          response: { 200: AdminUserPage },
        },
      },
      async (request) => {
        const page = await listUsers(deps, request.query)
        return { ...page, items: page.items.map(toAdminUserView) }
      },
    )

    app.post(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'createUser',
          summary: 'Create a user, with or without a password',
          description:
            'Without a password the answer carries `welcome`: a set-your-password link, valid 7 days, mailed when SMTP works, else in the answer to pass on. ' +
            "Creating an administrator (is_admin: true) needs an interactive session (403 SESSION_REQUIRED for API tokens) and the acting administrator's current_password (when they have one) and code (when their MFA is on).",
          body: CreateAdminUserBody,
          response: {
            201: CreatedAdminUserView,
            400: errorResponse(
              "VALIDATION_FAILED; PASSWORD_REQUIRED, INVALID_PASSWORD, INVALID_CODE: the administrator's own proof",
            ),
            403: errorResponse('SESSION_REQUIRED: an administrator created with an API token'),
            409: errorResponse(EMAIL_TAKEN),
            429: errorResponse(
              'RATE_LIMITED: 10 wrong passwords or codes per administrator per 15 minutes',
            ),
          },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request)
        const user = await createUser(deps, caller, request.body, contextOf(request))
        // Without a password, the person gets a link to choose one: mailed, or to pass on.
        const welcome = user.has_password
          ? null
          : await welcomeNewUser(deps, caller, user, contextOf(request))
        return reply.code(201).send({ ...toAdminUserView(user), welcome })
      },
    )

    app.get(
      '/:id',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getUser',
          summary: 'One user',
          params: IdParams,
          response: { 200: AdminUserView, 404: NO_SUCH_USER },
        },
      },
      async (request) => toAdminUserView(await getUser(deps, request.params.id)),
    )

    app.put(
      '/:id',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'updateUser',
          summary: 'Change any of email, name, is_admin, disabled, language, theme, password',
          description:
            'Disabling signs the user out everywhere and revokes their API tokens; setting a password does too. The last active administrator cannot be demoted or disabled. ' +
            "Changing password, email, is_admin or disabled needs an interactive session (403 SESSION_REQUIRED for API tokens) and the acting administrator's current_password (when they have one) and code (when their MFA is on); on your own account it answers 409 SELF_SERVICE_REQUIRED naming the self-service route.",
          params: IdParams,
          body: UpdateAdminUserBody,
          response: {
            200: AdminUserView,
            400: errorResponse(
              "VALIDATION_FAILED; PASSWORD_REQUIRED, INVALID_PASSWORD, INVALID_CODE: the administrator's own proof",
            ),
            403: errorResponse(
              'SESSION_REQUIRED: credentials or privileges changed with an API token',
            ),
            404: NO_SUCH_USER,
            409: errorResponse(
              `${EMAIL_TAKEN}; LAST_ADMIN: the last active administrator; SELF_SERVICE_REQUIRED: your own credentials or privileges`,
            ),
            429: errorResponse(
              'RATE_LIMITED: 10 wrong passwords or codes per administrator per 15 minutes',
            ),
          },
        },
      },
      async (request) =>
        toAdminUserView(
          await updateUser(
            deps,
            callerOf(request),
            request.params.id,
            request.body,
            contextOf(request),
          ),
        ),
    )

    app.delete(
      '/:id',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'deleteUser',
          summary: "Delete a user's account",
          params: IdParams,
          response: {
            204: NoContent,
            404: NO_SUCH_USER,
            409: errorResponse(
              'SELF_DELETION: your own account (use DELETE /api/users/me); LAST_ADMIN: the last active administrator; LAST_OWNER: the only owner of an organization',
            ),
          },
        },
      },
      async (request, reply) => {
        await deleteUser(deps, callerOf(request), request.params.id, contextOf(request))
        return reply.code(204).send(null)
      },
    )
  }
}
