import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { answerSignIn } from '../auth/responses.js'
import { SignInView } from '../auth/schemas.js'
import { AppError } from '../../errors.js'
import { assertAdminProof } from '../admin/reauth.js'
import { findUserById } from '../users/repo.js'
import { AdminProofBody } from '../admin/users.schemas.js'
import { completeMfaSignIn } from './challenge.js'
import {
  BackupCodesView,
  BeginBody,
  ConfirmBody,
  EnrollmentView,
  MfaStatusView,
  TrustedBody,
  VerifyBody,
} from './schemas.js'
import {
  beginEnrollment,
  cancelEnrollment,
  confirmEnrollment,
  disableMfa,
  getMfaStatus,
  regenerateBackupCodes,
  resetMfa,
} from './service.js'

const tags = ['two-factor authentication']
const REAUTH = 'PASSWORD_REQUIRED, INVALID_PASSWORD'
const BUDGET = errorResponse(
  'RATE_LIMITED: 10 wrong codes (or passwords) per account per 15 minutes',
)

/**
 * The proofs of disable and regenerate, asked of every caller, inside the re-authentication window
 * too: a token (with account.security:write) or a stolen session alone changes nothing.
 */
const PROOFS_ALWAYS =
  'Always needs a current TOTP or unused backup code, and the password when the account has one — inside the re-authentication window too. An API token needs the permission account.security:write (never held by a legacy token).'

/**
 * /api/auth/mfa — starting and cancelling an enrolment need an interactive session; confirming it,
 * disabling and new backup codes take a token with account.security:write, and their proofs
 * (docs/API.md#what-an-api-token-may-not-do).
 */
export function mfaRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/status',
      {
        config: { allowedDuringEnrollment: true, readsMfaStatus: true },
        schema: {
          tags,
          operationId: 'getMfaStatus',
          summary: 'Whether MFA is enabled (never a secret)',
          response: { 200: MfaStatusView },
        },
      },
      async (request) => getMfaStatus(deps, callerOf(request)),
    )

    app.post(
      '/enroll/begin',
      {
        config: { auth: 'session', allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'beginMfaEnrollment',
          summary: 'Start enrollment: a new secret, valid 10 minutes until confirmed',
          body: BeginBody,
          response: {
            200: EnrollmentView,
            400: errorResponse(`VALIDATION_FAILED, ${REAUTH}`),
            409: errorResponse('MFA_ALREADY_ENABLED'),
            429: BUDGET,
          },
        },
      },
      async (request) =>
        beginEnrollment(deps, callerOf(request), request.body.password, contextOf(request)),
    )

    app.post(
      '/enroll/confirm',
      {
        config: { allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'confirmMfaEnrollment',
          summary:
            'Confirm with a 6-digit code: MFA is enabled, other sessions end, backup codes are returned once',
          body: ConfirmBody,
          response: {
            200: BackupCodesView,
            400: errorResponse('VALIDATION_FAILED, INVALID_CODE'),
            409: errorResponse('MFA_ALREADY_ENABLED, MFA_NO_PENDING'),
            429: BUDGET,
          },
        },
      },
      async (request) =>
        confirmEnrollment(deps, callerOf(request), request.body.code, contextOf(request), {
          revokeApiTokens: request.body.revoke_api_tokens === true,
        }),
    )

    app.post(
      '/enroll/cancel',
      {
        config: { auth: 'session', allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'cancelMfaEnrollment',
          summary: 'Abandon a pending enrollment',
          response: { 204: NoContent, 409: errorResponse('MFA_ALREADY_ENABLED') },
        },
      },
      async (request, reply) => {
        await cancelEnrollment(deps, callerOf(request), contextOf(request))
        return reply.code(204).send(null)
      },
    )

    app.post(
      '/disable',
      {
        schema: {
          tags,
          operationId: 'disableMfa',
          summary: 'Disable MFA with a current code (and the password, if the account has one)',
          description: PROOFS_ALWAYS,
          body: TrustedBody,
          response: {
            204: NoContent,
            400: errorResponse(`VALIDATION_FAILED (no code), ${REAUTH}, INVALID_CODE`),
            409: errorResponse('MFA_NOT_ENABLED'),
            429: BUDGET,
          },
        },
      },
      async (request, reply) => {
        await disableMfa(deps, callerOf(request), request.body, contextOf(request))
        return reply.code(204).send(null)
      },
    )

    app.post(
      '/backup/regenerate',
      {
        schema: {
          tags,
          operationId: 'regenerateBackupCodes',
          summary: 'Replace every backup code with a new set',
          description: PROOFS_ALWAYS,
          body: TrustedBody,
          response: {
            200: BackupCodesView,
            400: errorResponse(`VALIDATION_FAILED (no code), ${REAUTH}, INVALID_CODE`),
            409: errorResponse('MFA_NOT_ENABLED'),
            429: BUDGET,
          },
        },
      },
      async (request) =>
        regenerateBackupCodes(deps, callerOf(request), request.body, contextOf(request)),
    )

    app.post(
      '/verify',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'verifyMfa',
          summary: 'Sign-in second step: the mfa_token from login and a TOTP or backup code',
          body: VerifyBody,
          response: {
            200: SignInView,
            401: errorResponse('MFA_PENDING_INVALID, INVALID_CODE'),
            429: errorResponse(
              'RATE_LIMITED: 5 wrong codes per mfa_token, 10 per account per 15 minutes',
            ),
          },
        },
      },
      async (request, reply) =>
        answerSignIn(reply, deps, await completeMfaSignIn(deps, request.body, contextOf(request))),
    )
  }
}

/** /api/admin/users/{id}/mfa/reset — for a user who lost their authenticator. */
export function mfaAdminRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/:id/mfa/reset',
      {
        config: { auth: 'admin' },
        schema: {
          tags: ['administration'],
          operationId: 'resetUserMfa',
          summary:
            "Remove a user's MFA (factor, backup codes, pending enrollment) and end their sessions",
          description:
            "Needs an interactive session (403 SESSION_REQUIRED for API tokens) and the acting administrator's current_password (when they have one) and code (when their MFA is on). Your own account → 409 SELF_SERVICE_REQUIRED (use POST /api/auth/mfa/disable).",
          params: IdParams,
          body: AdminProofBody,
          response: {
            204: NoContent,
            400: errorResponse(
              `${REAUTH}, INVALID_CODE, VALIDATION_FAILED (code): the administrator's own proof`,
            ),
            403: errorResponse('SESSION_REQUIRED: an API token'),
            404: errorResponse('NOT_FOUND: no such user'),
            409: errorResponse(
              'SELF_SERVICE_REQUIRED: your own account (use POST /api/auth/mfa/disable)',
            ),
            429: BUDGET,
          },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request)
        if ((await findUserById(deps.db, request.params.id)) === null)
          throw new AppError('NOT_FOUND', { message: 'No such user.' })
        await assertAdminProof(
          deps,
          caller,
          request.params.id,
          request.body ?? {},
          'POST /api/auth/mfa/disable',
        )
        await resetMfa(deps, caller.user, request.params.id, contextOf(request), 'admin')
        return reply.code(204).send(null)
      },
    )
  }
}
