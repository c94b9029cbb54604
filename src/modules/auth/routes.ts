import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { NoContent } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp } from '../../plugins/rate-limit.js'
import { clearSessionCookies, readCookie, setCsrfCookie } from '../../identity/cookies.js'
import { DEVICE_COOKIE } from './known-clients.js'
import { answerSignIn, answerSignInOutcome } from './responses.js'
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import {
  CsrfView,
  LoginBody,
  LoginResponse,
  ReauthenticateBody,
  ReauthenticationView,
  SetupBody,
  SetupStatus,
  SignInView,
} from './schemas.js'
import { reauthenticate } from './reauthenticate.js'
import {
  assertLoginAllowed,
  completeSetup,
  getSetupStatus,
  loginWithPassword,
  logout,
} from './service.js'
import { csrfTokenFor } from '../../identity/session-issuer.js'
import { isLoopbackRequest } from './setup-code.js'

const tags = ['authentication']

export function authRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/setup',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'getSetupStatus',
          summary: 'Whether first-run setup has been done',
          response: { 200: SetupStatus },
        },
      },
      async (request) =>
        getSetupStatus(
          deps,
          isLoopbackRequest(request.socket.remoteAddress, request.headers, deps.config.trustProxy),
        ),
    )

    app.post(
      '/setup',
      {
        config: { auth: 'public', rateLimit: perIp(10, 15) },
        schema: {
          tags,
          operationId: 'completeSetup',
          summary: 'Create the first user (an administrator) and sign in',
          body: SetupBody,
          response: {
            201: SignInView,
            403: errorResponse(
              'SETUP_CODE_REQUIRED: not from the machine itself (a loopback peer, TRUST_PROXY off, no proxy header), and setup_code is missing or wrong',
            ),
            409: errorResponse('ALREADY_INITIALIZED: a user exists'),
            429: errorResponse('RATE_LIMITED: 10 setup attempts per 15 minutes per IP'),
          },
        },
      },
      async (request, reply) => {
        const fromLoopback = isLoopbackRequest(
          request.socket.remoteAddress,
          request.headers,
          deps.config.trustProxy,
        )
        const signIn = await completeSetup(deps, request.body, {
          ...contextOf(request),
          fromLoopback,
        })
        return reply.code(201).send(answerSignIn(reply, deps, signIn))
      },
    )

    app.post(
      '/login',
      {
        config: { auth: 'public' },
        // The failure budgets apply before the body is validated (docs/API.md#status-rules).
        preValidation: async (request) => {
          const email = (request.body as { email?: unknown } | undefined)?.email
          await assertLoginAllowed(deps, typeof email === 'string' ? email : null, request.ip)
        },
        schema: {
          tags,
          operationId: 'login',
          summary:
            'Sign in with email and password (users with MFA get an mfa_token for the second step)',
          body: LoginBody,
          response: {
            200: LoginResponse,
            401: errorResponse('INVALID_CREDENTIALS: unknown email or wrong password'),
            429: errorResponse('RATE_LIMITED: too many failed sign-ins'),
          },
        },
      },
      async (request, reply) => {
        const device = readCookie(request, deps, DEVICE_COOKIE)
        return answerSignInOutcome(
          reply,
          deps,
          await loginWithPassword(deps, request.body, { ...contextOf(request), device }),
        )
      },
    )

    app.post(
      '/logout',
      {
        config: { allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'logout',
          summary: 'End the current session and clear the cookies',
          response: { 204: NoContent },
        },
      },
      async (request, reply) => {
        await logout(deps, callerOf(request), contextOf(request))
        clearSessionCookies(reply, deps)
        return reply.code(204).send(null)
      },
    )

    app.post(
      '/reauthenticate',
      {
        // Open to a session the two-factor policy restricts to enrolment: enrolling asks for the
        // proof too.
        config: { auth: 'session', allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'reauthenticate',
          summary:
            'Confirm it is you: opens a 10-minute window in which sensitive changes of this session need no proof',
          description:
            'Needs the password and, when the account has a second factor, that factor now: `code` (TOTP or backup code) or `passkey` ' +
            '(an answer to POST /api/auth/passkeys/proof/options). Within the window, the password and second-factor fields of the ' +
            'operations listed in docs/API.md#re-authentication-window may be left out. A sign-in opens the window too; an ' +
            'account without a password signs in again instead (403 RECENT_SIGN_IN_REQUIRED). Recorded as session.reauthenticate.',
          body: ReauthenticateBody,
          response: {
            200: ReauthenticationView,
            400: errorResponse(
              'VALIDATION_FAILED, PASSWORD_REQUIRED, INVALID_PASSWORD, SECOND_FACTOR_REQUIRED, INVALID_CODE, PASSKEY_VERIFICATION_FAILED',
            ),
            403: errorResponse(
              'RECENT_SIGN_IN_REQUIRED: the account has no password; sign in again; SESSION_REQUIRED: an API token',
            ),
            409: errorResponse(
              'PASSKEY_CHALLENGE_EXPIRED: the proof challenge is unknown, used or expired',
            ),
            429: errorResponse(
              'RATE_LIMITED: 10 wrong passwords (or codes, or passkey answers) per account per 15 minutes',
            ),
          },
        },
      },
      async (request) => {
        const { password, code, passkey } = request.body
        return reauthenticate(
          deps,
          callerOf(request),
          { password, code, passkey: passkey as unknown as AuthenticationResponseJSON | undefined },
          contextOf(request),
        )
      },
    )

    app.get(
      '/csrf',
      {
        config: { auth: 'session', allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'getCsrfToken',
          summary: 'The CSRF token of the current session (also set as a cookie)',
          response: { 200: CsrfView },
        },
      },
      async (request, reply) => {
        const csrfToken = csrfTokenFor(deps, callerOf(request).sessionId!)
        setCsrfCookie(reply, deps, csrfToken)
        return { csrf_token: csrfToken }
      },
    )
  }
}
