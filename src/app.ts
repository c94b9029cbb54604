/**
 * buildApp(deps) → the Fastify application. Read top to bottom, this is the table of contents of
 * the API: shared conventions first, then every module under its prefix.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Deps } from './deps.js'
import { authentication } from './plugins/authentication.js'
import { ErrorEnvelope } from './plugins/error-envelope.js'
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './plugins/errors.js'
import { installHttpConventions, requestIdFor, setResponseHeaders } from './plugins/http.js'
import { installMetrics } from './plugins/metrics.js'
import { DEFAULT_CONSOLE_DIR, installConsole } from './plugins/console.js'
import { installOpenApi } from './plugins/openapi.js'
import { installRateLimits } from './plugins/rate-limit.js'
import { installRouteTable } from './plugins/route-table.js'
import { installValidation } from './plugins/validation.js'
import { adminTeamRoutes } from './modules/admin/teams.routes.js'
import { adminUserRoutes } from './modules/admin/users.routes.js'
import { auditRoutes } from './modules/audit/routes.js'
import { billingRoutes } from './modules/billing/routes.js'
import { authRoutes } from './modules/auth/routes.js'
import { sessionRoutes } from './modules/auth/sessions.routes.js'
import { goBrowserRoutes } from './modules/go/browser.routes.js'
import { goPreferenceRoutes } from './modules/go/routes.js'
import { healthRoutes } from './modules/health/routes.js'
import { linkRoutes } from './modules/links/routes.js'
import { mfaAdminRoutes, mfaRoutes } from './modules/mfa/routes.js'
import { invitationAcceptRoutes } from './modules/organizations/invitations.routes.js'
import { organizationRoutes } from './modules/organizations/routes.js'
import { oidcProviderRoutes } from './modules/oidc/providers.routes.js'
import { oidcSignInRoutes } from './modules/oidc/sign-in.routes.js'
import { ApiTokenView } from './modules/tokens/schemas.js'
import { tokenRoutes } from './modules/tokens/routes.js'
import { configRoutes } from './modules/settings/config.routes.js'
import { settingsRoutes } from './modules/settings/routes.js'
import { tagRoutes } from './modules/tags/routes.js'
import { emailChangeRoutes } from './modules/users/email-change.routes.js'
import { UserView } from './modules/users/schemas.js'
import { userRoutes } from './modules/users/routes.js'

export const BODY_LIMIT_BYTES = 64 * 1024

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Fastify accepts a hop count at run time though its types omit it.
    trustProxy: deps.config.trustProxy as boolean | string,
    routerOptions: { maxParamLength: 256 },
    return503OnClosing: true,
    // Routing errors skip the hooks, so they get the response headers here.
    frameworkErrors: (error, request, reply) => {
      setResponseHeaders(request, reply, { hsts: deps.config.secureCookies })
      frameworkErrorHandler(error, request, reply)
    },
    clientErrorHandler,
  })

  installValidation(app)
  installErrorHandling(app, installRouteTable(app))
  installHttpConventions(app, { hsts: deps.config.secureCookies })
  app.addSchema(ErrorEnvelope)
  app.addSchema(UserView)
  app.addSchema(ApiTokenView)
  await installOpenApi(app, { publicUrl: deps.config.publicUrl })
  installMetrics(app, { metrics: deps.metrics, ...(deps.config.metricsToken !== undefined && { token: deps.config.metricsToken }) })

  await app.register(async (api) => {
    await api.register(authentication, { deps })
    await installRateLimits(api, { counters: deps.counters, generalPerMinute: deps.config.rateLimitGeneral })

    await api.register(healthRoutes(deps), { prefix: '/api/health' })
    await api.register(authRoutes(deps), { prefix: '/api/auth' })
    await api.register(userRoutes(deps), { prefix: '/api/users' })
    await api.register(sessionRoutes(deps), { prefix: '/api/users/me/sessions' })
    await api.register(mfaRoutes(deps), { prefix: '/api/auth/mfa' })
    await api.register(tokenRoutes(deps), { prefix: '/api/tokens' })
    await api.register(mfaAdminRoutes(deps), { prefix: '/api/admin/users' })
    await api.register(adminUserRoutes(deps), { prefix: '/api/admin/users' })
    await api.register(adminTeamRoutes(deps), { prefix: '/api/admin/teams' })
    await api.register(auditRoutes(deps), { prefix: '/api/admin/audit-log' })
    await api.register(emailChangeRoutes(deps), { prefix: '/api/users' })
    await api.register(settingsRoutes(deps), { prefix: '/api/admin/settings' })
    await api.register(configRoutes(deps), { prefix: '/api/config' })
    await api.register(organizationRoutes(deps), { prefix: '/api/organizations' })
    await api.register(invitationAcceptRoutes(deps), { prefix: '/api/invitations' })
    await api.register(oidcProviderRoutes(deps), { prefix: '/api/oidc-providers' })
    await api.register(oidcSignInRoutes(deps), { prefix: '/api/auth' })
    await api.register(tagRoutes(deps), { prefix: '/api/tags' })
    await api.register(linkRoutes(deps), { prefix: '/api/links' })
    await api.register(goPreferenceRoutes(deps), { prefix: '/api/go/preferences' })
    // For browsers, outside /api; inside this context so authentication and rate limits apply.
    await api.register(goBrowserRoutes(deps), { prefix: '/go' })
    await api.register(billingRoutes(deps), { prefix: '/api/billing' })
  })

  // The web console: its pages and assets, outside the API's authentication and rate limits.
  await installConsole(app, { root: DEFAULT_CONSOLE_DIR })

  return app
}
