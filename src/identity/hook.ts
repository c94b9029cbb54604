/**
 * Authentication once, authorization declared (docs/ARCHITECTURE.md, convention 6). One onRequest
 * hook resolves the caller from `Authorization: Bearer …` (which wins) or the `token` cookie,
 * enforces CSRF for cookie-authenticated unsafe requests, and applies the route's declared
 * requirement:
 *
 *   config: { auth: 'public' }   no credentials needed
 *   (default)                    any signed-in user, by session or API token
 *   config: { auth: 'session' }  an interactive session only
 *                                (docs/API.md#what-an-api-token-may-not-do)
 *   config: { auth: 'admin' }    an administrator (docs/API.md#who-may-do-what)
 *
 * An API token is further held to the table of permissions.ts: 403
 * SESSION_REQUIRED on an operation that manages account security (or that the table does not
 * list), 403 INSUFFICIENT_SCOPE naming the permission it lacks, and 404 for an organization outside
 * its boundary. Everything it needs came with the token row: no query is added.
 *
 * A caller whom the two-factor policy restricts to enrolment (mfa-policy.ts) gets 403
 * MFA_ENROLLMENT_REQUIRED — after authentication and CSRF, before the role checks — on every route
 * that does not declare `config: { allowedDuringEnrollment: true }`.
 *
 * It runs before the body is read, so unauthenticated requests cost no parsing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Deps } from '../deps.js'
import { AppError } from '../errors.js'
import { safeEqual } from '../lib/crypto.js'
import type { AuthRequirement } from '../plugins/route-auth.js'
import { reachesOrganization, type RequestContext, type Caller } from './caller.js'
import type { AccessTokenClaims } from './access-tokens.js'
import { admitSession, authenticateBearer } from './authenticate.js'
import { enrollmentRequired } from './mfa-policy.js'
import { API_TOKEN_PREFIX } from './token-format.js'
import {
  isAdminPermission,
  legacyTokenHolds,
  operationAccess,
  ORGANIZATION_IN_PATH,
  type OperationAccess,
} from './permissions.js'
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, cookieName, readCookies } from './cookies.js'
import { csrfTokenFor } from './session-issuer.js'
import type { LiveSession } from './sessions.repo.js'
import { chargeFailedAuthentication } from '../plugins/rate-limit.js'

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const BEARER = /^Bearer +([\x21-\x7e]+)$/i

interface Credential {
  token: string | null
  source: 'header' | 'cookie'
  cookies: Record<string, string | undefined>
}

function readCredential(deps: Deps, request: FastifyRequest): Credential | null {
  const header = request.headers.authorization
  if (header !== undefined)
    return { token: BEARER.exec(header.trim())?.[1] ?? null, source: 'header', cookies: {} }
  const cookies = readCookies(request)
  const token = cookies[cookieName(deps, SESSION_COOKIE)]
  if (!token) return null
  // The cookie only ever carries the access JWT; an API token belongs in the Authorization header.
  return { token: token.startsWith(API_TOKEN_PREFIX) ? null : token, source: 'cookie', cookies }
}

function assertCsrf(
  deps: Deps,
  request: FastifyRequest,
  caller: Caller,
  cookies: Record<string, string | undefined>,
): void {
  const sent = request.headers[CSRF_HEADER]
  const cookie = cookies[cookieName(deps, CSRF_COOKIE)]
  const ok =
    typeof sent === 'string' &&
    cookie !== undefined &&
    caller.sessionId !== null &&
    safeEqual(sent, cookie) &&
    safeEqual(sent, csrfTokenFor(deps, caller.sessionId))
  if (!ok) throw new AppError('CSRF_FAILED')
}

/** What a route declares about its callers, read once when it registers. */
interface RouteAccess {
  requirement: AuthRequirement
  allowedDuringEnrollment: boolean
  /** What an API token needs here (undefined: the table has no entry, so no token may). */
  token: OperationAccess | undefined
  /** The path parameter `id` names an organization (the token's boundary applies to it). */
  organizationInPath: boolean
  /** The route shows the MFA status: the authentication query reads its columns too. */
  readsMfaStatus: boolean
}

/** What an API token may do here, from the grant that came with its row. */
function assertTokenMay(request: FastifyRequest, caller: Caller, access: RouteAccess): void {
  const grant = caller.grant!
  const needed = access.token
  if (needed === undefined || needed === 'session' || needed === 'public')
    throw new AppError('SESSION_REQUIRED')
  // A legacy token has every permission but account.security; admin.* lapse with the owner's
  // administrator rights, read from the user row loaded with the token (so a demotion applies at
  // the next request).
  const granted =
    grant.permissions === null ? legacyTokenHolds(needed) : grant.permissions.has(needed)
  if (!granted || (isAdminPermission(needed) && !caller.user.is_admin)) {
    throw new AppError('INSUFFICIENT_SCOPE', {
      message: `This API token lacks the permission ${needed}.`,
      details: { required: needed },
    })
  }
  if (access.organizationInPath) {
    const { id } = request.params as { id?: string }
    if (id !== undefined && !reachesOrganization(caller, id))
      throw new AppError('NOT_FOUND', { message: 'No such organization.' })
  }
}

/**
 * Whether a body schema has an `organization_id` property (in any branch of a union): the token's
 * boundary applies to the organization it names, as to one in the path.
 */
export function bodyNamesOrganization(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false
  const { properties, anyOf, oneOf, allOf } = schema as Record<string, unknown>
  if (typeof properties === 'object' && properties !== null && 'organization_id' in properties)
    return true
  return [anyOf, oneOf, allOf].some(
    (branches) => Array.isArray(branches) && branches.some(bodyNamesOrganization),
  )
}

/**
 * After validation: an organization named in the body outside an API token's boundary is 404, as
 * a non-member's (before any other check could answer differently, e.g. 503 for billing).
 */
async function assertBodyOrganizationReachable(request: FastifyRequest): Promise<void> {
  const caller = request.caller
  if (caller?.grant == null) return
  const body = request.body as { organization_id?: unknown } | null | undefined
  const id = body?.organization_id
  if (typeof id === 'string' && !reachesOrganization(caller, id))
    throw new AppError('NOT_FOUND', { message: 'No such organization.' })
}

async function resolveCaller(
  deps: Deps,
  request: FastifyRequest,
  access: RouteAccess,
): Promise<Caller> {
  const { requirement } = access
  const credential = readCredential(deps, request)
  if (credential?.token == null) throw new AppError('UNAUTHORIZED')
  const caller = await authenticateBearer(deps, credential.token, request.ip, access.readsMfaStatus)
  if (caller === null) throw new AppError('UNAUTHORIZED')
  if (credential.source === 'cookie' && UNSAFE_METHODS.has(request.method))
    assertCsrf(deps, request, caller, credential.cookies)
  if (!access.allowedDuringEnrollment && enrollmentRequired(caller)) {
    throw new AppError('MFA_ENROLLMENT_REQUIRED')
  }
  if (requirement === 'session' && caller.credential !== 'session')
    throw new AppError('SESSION_REQUIRED')
  if (requirement === 'admin' && !caller.user.is_admin) throw new AppError('FORBIDDEN')
  if (caller.grant !== null) assertTokenMay(request, caller, access)
  return caller
}

/**
 * The caller when the request carries valid credentials, else null: for public pages that adapt to
 * a signed-in user (GET /go/{slug}). No CSRF check — such a route checks its own form token.
 */
export async function optionalCaller(deps: Deps, request: FastifyRequest): Promise<Caller | null> {
  const credential = readCredential(deps, request)
  const caller =
    credential?.token == null ? null : await authenticateBearer(deps, credential.token, request.ip)
  return admittedOptional(caller)
}

/** The access JWT the request carries (header or cookie); null for none, or for an sb_ token. */
export function accessTokenOf(deps: Deps, request: FastifyRequest): string | null {
  const token = readCredential(deps, request)?.token ?? null
  return token === null || token.startsWith(API_TOKEN_PREFIX) ? null : token
}

/**
 * optionalCaller for an access JWT whose session row the page read in a statement of its own (the
 * go redirect joins its links to sessions.repo.ts liveSessionQuery): the same rules, from the same
 * functions — the session's (authenticate.ts admitSession: expiry, the token's user, the idle
 * timeout; revoked sessions and disabled users are not read) and the pages' (admittedOptional).
 */
export function admitPageSession(
  deps: Deps,
  claims: AccessTokenClaims,
  session: LiveSession | null,
  now: Date,
): Caller | null {
  return admittedOptional(admitSession(deps, claims, session, now))
}

function admittedOptional(caller: Caller | null): Caller | null {
  // A caller restricted to enrolment is treated as signed out here (sent to the sign-in page, which
  // takes them on to enrolment); so is an API token without links:read (these pages show links).
  if (caller?.grant?.permissions != null && !caller.grant.permissions.has('links:read')) return null
  return caller !== null && enrollmentRequired(caller) ? null : caller
}

/** The caller of a route that requires authentication. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new AppError('UNAUTHORIZED')
  return request.caller
}

export function contextOf(request: FastifyRequest): RequestContext & { ip: string } {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? null }
}

export const authentication = fp(
  async (app: FastifyInstance, options: { deps: Deps }) => {
    const { deps } = options
    app.decorateRequest('caller', null)
    // One hook per route, made when the route is registered: its requirements are known then, so a
    // request does not read them back (Fastify builds a new routeOptions object on every read), and
    // public routes get no hook at all. Added first, so the rate limits that key on the caller run
    // after.
    app.addHook('onRoute', (route) => {
      const requirement = route.config?.auth ?? 'user'
      if (requirement === 'public') return
      const operationId = route.schema?.operationId
      const access: RouteAccess = {
        requirement,
        allowedDuringEnrollment: route.config?.allowedDuringEnrollment === true,
        token: operationAccess(operationId),
        organizationInPath: operationId !== undefined && ORGANIZATION_IN_PATH.has(operationId),
        readsMfaStatus: route.config?.readsMfaStatus === true,
      }
      const authenticate = async (request: FastifyRequest) => {
        try {
          request.caller = await resolveCaller(deps, request, access)
        } catch (error) {
          // Failed authentication is counted against the IP's general limit (429 once spent).
          if (error instanceof AppError && error.reason === 'UNAUTHORIZED') {
            await chargeFailedAuthentication(
              deps.counters,
              request.ip,
              deps.config.rateLimitGeneral,
            )
          }
          throw error
        }
      }
      route.onRequest = [authenticate, ...[route.onRequest ?? []].flat()]
      if (bodyNamesOrganization(route.schema?.body))
        route.preHandler = [assertBodyOrganizationReachable, ...[route.preHandler ?? []].flat()]
    })
  },
  { name: 'authentication' },
)
