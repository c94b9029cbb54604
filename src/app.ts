/**
 * buildApp(deps) → the Fastify application. Read top to bottom, this is the table of contents of
 * the API: shared conventions first, then every module under its prefix.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { redisSettled, type Deps } from './deps.js'
import { authentication } from './identity/hook.js'
import { cookieName, SESSION_COOKIE } from './identity/cookies.js'
import { ErrorEnvelope } from './plugins/error-envelope.js'
import {
  clientErrorHandler,
  frameworkErrorHandler,
  installErrorHandling,
} from './plugins/errors.js'
import {
  installHttpConventions,
  requestIdFor,
  setResponseHeaders,
  trustProxyOption,
} from './plugins/http.js'
import { installMetrics, recordRequestMetrics } from './plugins/metrics.js'
import { DEFAULT_CONSOLE_DIR, installConsole } from './plugins/console.js'
import { installOpenApi } from './plugins/openapi.js'
import { installRateLimits } from './plugins/rate-limit.js'
import { deferredChildLoggerFactory } from './plugins/request-logger.js'
import { installRouteTable } from './plugins/route-table.js'
import { lazySerializerFactory } from './plugins/serialization.js'
import { installValidation } from './plugins/validation.js'
import { adminTeamRoutes } from './modules/admin/teams.routes.js'
import { adminUserRoutes } from './modules/admin/users.routes.js'
import { scimCredentialRoutes } from './modules/scim/credentials.routes.js'
import { scimRequestRoutes } from './modules/scim/requests.routes.js'
import { scimRoutes } from './modules/scim/routes.js'
import { installAuditRetention } from './modules/audit/retention.js'
import { installCheckpointer } from './modules/audit/checkpoints.js'
import { installAuditMonitor } from './modules/audit/monitor.js'
import { auditTransparencyRoutes } from './modules/audit/transparency.routes.js'
import { installNotificationSender } from './modules/notifications/sender.js'
import { installStatisticsKeeper } from './modules/ops/statistics.js'
import { notificationPreferenceRoutes } from './modules/notifications/routes.js'
import { securityLogRoutes } from './modules/security-log/routes.js'
import { collectionRoutes } from './modules/collections/routes.js'
import { twoFactorPolicyRoutes } from './modules/settings/two-factor-policy.routes.js'
import { checklistRoutes } from './modules/checklist/routes.js'
import { auditRoutes } from './modules/audit/routes.js'
import { billingRoutes } from './modules/billing/routes.js'
import { authRoutes } from './modules/auth/routes.js'
import { sessionRoutes } from './modules/auth/sessions.routes.js'
import { goBrowserRoutes } from './modules/go/browser.routes.js'
import { goPreferenceRoutes } from './modules/go/routes.js'
import { openSearchRoutes } from './modules/go/opensearch.routes.js'
import { installShortHost, shortHostMatcher } from './modules/go/short-host.js'
import { healthRoutes } from './modules/health/routes.js'
import { linkRoutes } from './modules/links/routes.js'
import { suggestionRoutes } from './modules/suggestions/routes.js'
import { goLinkSettingsRoutes } from './modules/links/slug-matching.routes.js'
import { signUpSettingsRoutes } from './modules/organizations/sign-up.routes.js'
import { invitationSignUpRoutes } from './modules/auth/invitation-sign-up.routes.js'
import { mfaAdminRoutes, mfaRoutes } from './modules/mfa/routes.js'
import { passkeyRoutes } from './modules/passkeys/routes.js'
import { invitationAcceptRoutes } from './modules/organizations/invitations.routes.js'
import { organizationRoutes } from './modules/organizations/routes.js'
import { oidcProviderRoutes } from './modules/oidc/providers.routes.js'
import { identityRoutes } from './modules/oidc/identities.routes.js'
import { oidcSignInRoutes } from './modules/oidc/sign-in.routes.js'
import { ApiTokenView } from './modules/tokens/schemas.js'
import { apiTokenSettingsRoutes, tokenRoutes } from './modules/tokens/routes.js'
import { operationAccess } from './identity/permissions.js'
import { configRoutes } from './modules/settings/config.routes.js'
import { settingsRoutes } from './modules/settings/routes.js'
import { tagRoutes } from './modules/tags/routes.js'
import { emailChangeRoutes } from './modules/users/email-change.routes.js'
import { adminPasswordResetRoutes, passwordResetRoutes } from './modules/password-reset/routes.js'
import { UserView } from './modules/users/schemas.js'
import { userRoutes } from './modules/users/routes.js'

export const BODY_LIMIT_BYTES = 64 * 1024

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const headerOptions = {
    hsts: deps.config.secureCookies,
    withoutHsts: shortHostMatcher(deps.config.goHosts),
  }
  const app = Fastify({
    // It is what makes the instance's logger type FastifyBaseLogger, the type every plugin is
    // written against.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // The request's child logger is made by the first line it writes (plugins/request-logger.ts).
    childLoggerFactory: deferredChildLoggerFactory,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // No path parameter can outgrow the 16 KiB request head Node accepts: the route schemas, not
    // the router, decide what is too long (a 400 or 404 the document lists, never the router's bare
    // 404).
    routerOptions: { maxParamLength: 16 * 1024 },
    return503OnClosing: true,
    // Serializers are compiled per route on first use, not all at start-up
    // (plugins/serialization.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
    // Slow clients cannot hold connections: the whole request must arrive within
    // REQUEST_TIMEOUT_SECONDS (its headers within HEADERS_TIMEOUT_SECONDS), and an idle keep-alive
    // connection closes after KEEP_ALIVE_TIMEOUT_SECONDS. Node checks the first two every second.
    requestTimeout: deps.config.httpTimeouts.requestMs,
    connectionTimeout: deps.config.httpTimeouts.requestMs,
    keepAliveTimeout: deps.config.httpTimeouts.keepAliveMs,
    http: { headersTimeout: deps.config.httpTimeouts.headersMs, connectionsCheckingInterval: 1000 },
    // Routing errors skip the hooks, so they get the response headers here.
    frameworkErrors: (error, request, reply) => {
      setResponseHeaders(request, reply, headerOptions)
      frameworkErrorHandler(error, request, reply)
    },
    clientErrorHandler,
  })
  // Before every other hook: a short go host is answered without sessions, cookies or the console.
  installShortHost(app, { hosts: deps.config.goHosts, publicUrl: deps.config.publicUrl })
  // Shared limits from the first request (deps.ts redisSettled).
  const redis = deps.redis
  if (redis !== null) app.addHook('onReady', async () => redisSettled(redis, 3000))

  installValidation(app)
  const errorHandling = installErrorHandling(app, installRouteTable(app))
  installHttpConventions(app, headerOptions)
  // Before any route registers: each route gets its own recording hook as it does.
  recordRequestMetrics(app, deps.metrics)
  app.addSchema(ErrorEnvelope)
  app.addSchema(UserView)
  app.addSchema(ApiTokenView)
  await installOpenApi(app, {
    publicUrl: deps.config.publicUrl,
    sessionCookie: cookieName(deps, SESSION_COOKIE),
    tokenAccess: operationAccess,
  })
  installMetrics(app, {
    metrics: deps.metrics,
    ...(deps.config.metricsToken !== undefined && { token: deps.config.metricsToken }),
    ...(deps.config.metricsPort !== undefined && { port: deps.config.metricsPort }),
  })

  installAuditRetention(app, deps)
  // Signed checkpoints of the audit Merkle tree.
  installCheckpointer(app, deps)
  installAuditMonitor(app, deps)
  installNotificationSender(app, deps)
  installStatisticsKeeper(app, deps)

  await app.register(async (api) => {
    await api.register(authentication, { deps })
    await installRateLimits(api, {
      counters: deps.counters,
      generalPerMinute: deps.config.rateLimitGeneral,
    })

    await api.register(healthRoutes(deps), { prefix: '/api/health' })
    await api.register(authRoutes(deps), { prefix: '/api/auth' })
    await api.register(userRoutes(deps), { prefix: '/api/users' })
    await api.register(sessionRoutes(deps), { prefix: '/api/users/me/sessions' })
    await api.register(mfaRoutes(deps), { prefix: '/api/auth/mfa' })
    await api.register(passkeyRoutes(deps), { prefix: '/api/auth/passkeys' })
    await api.register(tokenRoutes(deps), { prefix: '/api/tokens' })
    await api.register(mfaAdminRoutes(deps), { prefix: '/api/admin/users' })
    await api.register(adminUserRoutes(deps), { prefix: '/api/admin/users' })
    await api.register(adminTeamRoutes(deps), { prefix: '/api/admin/teams' })
    await api.register(auditRoutes(deps), { prefix: '/api/admin/audit-log' })
    await api.register(auditTransparencyRoutes(deps), { prefix: '/api/admin/audit-log' })
    await api.register(emailChangeRoutes(deps), { prefix: '/api/users' })
    await api.register(settingsRoutes(deps), { prefix: '/api/admin/settings' })
    await api.register(configRoutes(deps), { prefix: '/api/config' })
    await api.register(organizationRoutes(deps), { prefix: '/api/organizations' })
    await api.register(invitationAcceptRoutes(deps), { prefix: '/api/invitations' })
    await api.register(invitationSignUpRoutes(deps), { prefix: '/api/invitations' })
    await api.register(oidcProviderRoutes(deps), { prefix: '/api/oidc-providers' })
    await api.register(oidcSignInRoutes(deps), { prefix: '/api/auth' })
    await api.register(identityRoutes(deps), { prefix: '/api/users/me/identities' })
    await api.register(tagRoutes(deps), { prefix: '/api/tags' })
    await api.register(linkRoutes(deps), { prefix: '/api/links' })
    await api.register(suggestionRoutes(deps), { prefix: '/api/links' })
    await api.register(collectionRoutes(deps), { prefix: '/api/collections' })
    await api.register(goPreferenceRoutes(deps), { prefix: '/api/go/preferences' })
    // For browsers, outside /api; inside this context so authentication and rate limits apply.
    await api.register(goBrowserRoutes(deps), { prefix: '/go' })
    await api.register(openSearchRoutes(deps))
    await api.register(billingRoutes(deps), { prefix: '/api/billing' })
    // The two-factor policy, notification preferences, the personal security log.
    await api.register(twoFactorPolicyRoutes(deps), { prefix: '/api/admin/settings' })
    await api.register(goLinkSettingsRoutes(deps), { prefix: '/api/admin/settings' })
    await api.register(signUpSettingsRoutes(deps), { prefix: '/api/admin/settings' })
    await api.register(checklistRoutes(deps), { prefix: '/api/admin/checklist' })
    await api.register(notificationPreferenceRoutes(deps), {
      prefix: '/api/users/me/notifications',
    })
    await api.register(securityLogRoutes(deps), { prefix: '/api/users/me/security-events' })
    await api.register(passwordResetRoutes(deps), { prefix: '/api/auth/password-reset' })
    await api.register(adminPasswordResetRoutes(deps), { prefix: '/api/admin/users' })
    // The instance's API token policy (maximum lifetime, legacy tokens).
    await api.register(apiTokenSettingsRoutes(deps), { prefix: '/api/admin/settings' })
    // The SCIM credentials, managed by administrators.
    await api.register(scimCredentialRoutes(deps), { prefix: '/api/admin/scim/credentials' })
    await api.register(scimRequestRoutes(deps), { prefix: '/api/admin/scim/requests' })
  })

  // SCIM 2.0 for identity providers — its own context, credential, media type and errors.
  await app.register(scimRoutes(deps), { prefix: '/scim/v2' })

  // The web console: its pages and assets, outside the API's authentication and rate limits.
  await installConsole(app, {
    root: DEFAULT_CONSOLE_DIR,
    setPageNotFound: errorHandling.setPageNotFound,
  })

  return app
}
