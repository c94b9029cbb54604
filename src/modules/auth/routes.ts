import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { NoContent } from '../../lib/schema-types.js'
import { callerOf, contextOf } from './hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp } from '../../plugins/rate-limit.js'
import { clearSessionCookies, readCookie, setCsrfCookie } from './cookies.js'
import { DEVICE_COOKIE } from './known-clients.js'
import { answerSignIn, answerSignInOutcome } from './responses.js'
import { CsrfView, LoginBody, LoginResponse, SetupBody, SetupStatus, SignInView } from './schemas.js'
import { assertLoginAllowed, completeSetup, getSetupStatus, loginWithPassword, logout } from './service.js'
import { csrfTokenFor } from './session-issuer.js'
import { isLoopbackRequest } from './setup-code.js'

const tags = ['authentication']

export function authRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/setup',
      {
        config: { auth: 'public' },
        schema: { tags, operationId: 'getSetupStatus', summary: 'Whether first-run setup has been done', response: { 200: SetupStatus } },
      },
      async (request) => getSetupStatus(deps, isLoopbackRequest(request.socket.remoteAddress, request.headers, deps.config.trustProxy)),
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
        const fromLoopback = isLoopbackRequest(request.socket.remoteAddress, request.headers, deps.config.trustProxy)
        const signIn = await completeSetup(deps, request.body, { ...contextOf(request), fromLoopback })
        return reply.code(201).send(answerSignIn(reply, deps, signIn))
      },
    )

    app.post(
      '/login',
      {
        config: { auth: 'public' },
        // The failure budgets apply before the body is validated (CONTRACT.md §2.1).
        preValidation: async (request) => {
          const email = (request.body as { email?: unknown } | undefined)?.email
          await assertLoginAllowed(deps, typeof email === 'string' ? email : null, request.ip)
        },
        schema: {
          tags,
          operationId: 'login',
          summary: 'Sign in with email and password (users with MFA get an mfa_token for the second step)',
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
        return answerSignInOutcome(reply, deps, await loginWithPassword(deps, request.body, { ...contextOf(request), device }))
      },
    )

    app.post(
      '/logout',
      {
        config: { allowedDuringEnrollment: true },
        schema: { tags, operationId: 'logout', summary: 'End the current session and clear the cookies', response: { 204: NoContent } },
      },
      async (request, reply) => {
        await logout(deps, callerOf(request), contextOf(request))
        clearSessionCookies(reply, deps)
        return reply.code(204).send(null)
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
