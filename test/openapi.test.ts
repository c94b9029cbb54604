/** The OpenAPI document is generated from the routes: every route, every status, the envelope. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from './helpers/app.js'
import { createSignedInUser } from './helpers/factories.js'

const t = useTestApp()
const METRICS_TOKEN = 'scrape-secret-0123456789'
const metricsApp = useTestApp({ env: { METRICS_TOKEN } })

interface Response {
  $ref?: string
  description?: string
  content?: Record<string, { schema: unknown }>
  headers?: Record<string, unknown>
}

interface Operation {
  operationId?: string
  summary?: string
  responses: Record<string, Response>
  security?: unknown[]
  parameters?: Array<{
    in: string
    name: string
    required?: boolean
    schema?: Record<string, unknown>
  }>
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> }
}

type Document = {
  paths: Record<string, Record<string, Operation>>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walked generically by the tests
  components: any
  openapi: string
}

function resolveResponse(doc: Document, response: Response): Response {
  if (response.$ref === undefined) return response
  return doc.components.responses[response.$ref.replace('#/components/responses/', '')]
}

function operationsOf(
  doc: Document,
): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  )
}

/**
 * The operationIds clients are generated with. Renaming or removing one breaks every generated
 * client, so they are pinned here; a new operation adds its own.
 */
const STABLE_OPERATION_IDS =
  `getMetrics getHealth getReadiness getSetupStatus completeSetup login logout getCsrfToken
  getCurrentUser updateCurrentUser deleteCurrentUser changePassword listSessions revokeSession getMfaStatus
  beginMfaEnrollment confirmMfaEnrollment cancelMfaEnrollment disableMfa regenerateBackupCodes verifyMfa
  createApiToken listApiTokens revokeApiToken resetUserMfa listUsers createUser getUser updateUser deleteUser
  listTeams createTeam getTeam updateTeam deleteTeam listTeamMembers addTeamMember removeTeamMember
  listAuditEvents exportAuditEvents requestEmailChange verifyEmailChange getSmtpSettings updateSmtpSettings sendSmtpTestMail
  getAiSettings updateAiSettings listAiModels listSettings getSetting putSetting deleteSetting
  getAiSuggestionsConfig listOrganizations createOrganization getOrganization updateOrganization
  deleteOrganization listOrganizationMembers addOrganizationMember changeOrganizationMemberRole
  removeOrganizationMember createInvitation listInvitations resendInvitation revokeInvitation acceptInvitation
  listOidcProviders createOidcProvider getOidcProvider updateOidcProvider updateOidcProviderByPut
  deleteOidcProvider listSignInProviders startOidcSignIn completeOidcSignIn listTags createTag getTag
  updateTag updateTagByPut deleteTag listLinks createLink getLink updateLink deleteLink checkLinkSlug
  importLinks exportLinks listGoPreferences
  setGoPreference deleteGoPreference listBillingPlans createCheckoutSession receiveStripeWebhook
  listMyInvitations acceptMyInvitation declineMyInvitation listMyIdentities linkMyIdentity unlinkMyIdentity
  listPasskeys beginPasskeyRegistration completePasskeyRegistration renamePasskey deletePasskey beginPasskeyMfa
  verifyPasskeyMfa beginPasskeySignIn signInWithPasskey  getTwoFactorPolicy updateTwoFactorPolicy getNotificationPreferences updateNotificationPreferences
  listSecurityEvents`.split(/\s+/)

async function documentOf(): Promise<Document> {
  const response = await t.app.inject({ method: 'GET', url: '/api/openapi.json' })
  expect(response.statusCode).toBe(200)
  return response.json()
}

describe('GET /api/openapi.json', () => {
  it('is OpenAPI 3.1 with the error envelope as a component', async () => {
    const doc = await documentOf()
    expect(doc.openapi).toBe('3.1.0')
    const envelope = doc.components.schemas.Error
    expect(envelope.required).toEqual(
      expect.arrayContaining(['error', 'message', 'code', 'reason']),
    )
    expect(Object.keys(envelope.properties)).toEqual(
      expect.arrayContaining(['details', 'retryAfter']),
    )
    expect(doc.components.schemas.User).toBeTruthy()
  })

  it('documents every API route with its declared and shared error statuses', async () => {
    const doc = await documentOf()
    const expected: Array<[string, string, string[]]> = [
      ['get', '/api/health', ['200', '500']],
      ['get', '/api/health/ready', ['200', '503', '500']],
      ['get', '/api/auth/setup', ['200', '500']],
      ['post', '/api/auth/setup', ['201', '400', '409', '413', '415', '500']],
      ['post', '/api/auth/login', ['200', '400', '401', '413', '415', '429', '500']],
      ['post', '/api/auth/logout', ['204', '401', '403', '500']],
      ['get', '/api/auth/csrf', ['200', '401', '403', '500']],
      ['get', '/api/users/me', ['200', '401', '500']],
      ['patch', '/api/users/me', ['200', '400', '401', '403', '413', '415', '500']],
      ['delete', '/api/users/me', ['204', '400', '401', '403', '409', '429', '500']],
      ['post', '/api/users/me/password', ['204', '400', '401', '403', '429', '500']],
      ['get', '/api/users/me/sessions', ['200', '400', '401', '500']],
      ['delete', '/api/users/me/sessions/{id}', ['204', '400', '401', '403', '404', '500']],
    ]
    for (const [method, path, statuses] of expected) {
      const operation = doc.paths[path]?.[method]
      expect(operation, `${method.toUpperCase()} ${path}`).toBeTruthy()
      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(statuses))
      for (const [status, response] of Object.entries(operation!.responses)) {
        if (Number(status) >= 400) {
          const resolved = resolveResponse(doc, response)
          expect(JSON.stringify(resolved.content), `${method} ${path} ${status}`).toContain(
            '#/components/schemas/Error',
          )
        }
      }
    }
  })

  it('covers every route the application serves under /api', async () => {
    const doc = await documentOf()
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    )
    const served = t.app.routeTable.entries
      .filter(
        (r) =>
          r.url.startsWith('/api/') &&
          !r.url.startsWith('/api/docs') &&
          r.url !== '/api/openapi.json' &&
          r.method !== 'HEAD',
      )
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
    expect(served.length).toBeGreaterThan(10)
    for (const route of served) expect(documented, route).toContain(route)
  })

  it('marks public routes as needing no credentials and the others as bearer or cookie', async () => {
    const doc = await documentOf()
    expect(doc.paths['/api/auth/login']!.post!.security).toEqual([])
    // The bearer scope names the permission an API token needs; none means a session only.
    expect(doc.paths['/api/users/me']!.get!.security).toEqual([
      { bearerAuth: ['profile:read'] },
      { cookieAuth: [] },
    ])
    expect(doc.paths['/api/users/me/sessions']!.get!.security).toEqual([
      { bearerAuth: [] },
      { cookieAuth: [] },
    ])
  })
})

describe('operations', () => {
  it('every operation has a summary and a unique operationId in lowerCamelCase', async () => {
    const doc = await documentOf()
    const seen = new Map<string, string>()
    for (const { method, path, operation } of operationsOf(doc)) {
      const name = `${method.toUpperCase()} ${path}`
      expect(operation.summary, `${name} has no summary`).toMatch(/\S/)
      expect(operation.operationId, `${name} has no operationId`).toMatch(/^[a-z][A-Za-z0-9]+$/)
      expect(
        seen.get(operation.operationId!),
        `${name} repeats the operationId ${operation.operationId}`,
      ).toBeUndefined()
      seen.set(operation.operationId!, name)
    }
    expect(seen.size).toBeGreaterThanOrEqual(STABLE_OPERATION_IDS.length)
  })

  it('keeps every published operationId (generated clients call them by name)', async () => {
    const ids = new Set(
      operationsOf(await documentOf()).map(({ operation }) => operation.operationId),
    )
    for (const id of STABLE_OPERATION_IDS) expect(ids, id).toContain(id)
  })

  it('documents a success for every operation: a 2xx, or the 302 of a browser sign-in', async () => {
    for (const { method, path, operation } of operationsOf(await documentOf())) {
      const statuses = Object.keys(operation.responses)
      const redirectOnly = path.startsWith('/api/auth/oidc/')
      expect(
        statuses.some((s) => (redirectOnly ? s === '302' : s.startsWith('2'))),
        `${method} ${path}`,
      ).toBe(true)
    }
  })
})

describe('shared error responses', () => {
  it('are components, referenced from the operations rather than copied', async () => {
    const doc = await documentOf()
    expect(Object.keys(doc.components.responses)).toEqual(
      expect.arrayContaining([
        'ValidationFailed',
        'Unauthorized',
        'NotFound',
        'RateLimited',
        'Internal',
        'ServiceUnavailable',
        'AdminRequired',
      ]),
    )
    const me = doc.paths['/api/users/me']!.get!.responses
    expect(me['401']).toEqual({ $ref: '#/components/responses/Unauthorized' })
    expect(me['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' })
    expect(doc.components.responses.Unauthorized.headers).toHaveProperty('WWW-Authenticate')
    expect(doc.components.responses.RateLimited.headers).toHaveProperty('Retry-After')
    // No operation carries a copy of a shared answer.
    const shared = new Set(
      Object.values(doc.components.responses as Record<string, { description?: string }>).map(
        (r) => r.description,
      ),
    )
    for (const { method, path, operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (response.$ref === undefined)
          expect(
            shared.has(response.description),
            `${method} ${path} ${status} copies a shared response`,
          ).toBe(false)
      }
    }
  })

  it('every operation that needs the database documents 503 SERVICE_UNAVAILABLE; only liveness, metrics and OpenSearch do not', async () => {
    const withoutDatabase: string[] = []
    for (const { method, path, operation } of operationsOf(await documentOf())) {
      const answer = operation.responses['503']
      if (answer === undefined) withoutDatabase.push(`${method.toUpperCase()} ${path}`)
      else if (answer.$ref === undefined)
        expect(answer.description, `${method} ${path}`).toMatch(/SERVICE_UNAVAILABLE/)
      else expect(answer.$ref).toBe('#/components/responses/ServiceUnavailable')
    }
    expect(withoutDatabase.sort()).toEqual([
      'GET /api/health',
      'GET /api/metrics',
      'GET /opensearch.xml',
    ])
  })

  it('every operation with credentials documents 401, with input 400, with a path parameter 404, with a body 413 and 415, and every limited one 429', async () => {
    const doc = await documentOf()
    for (const { method, path, operation } of operationsOf(doc)) {
      const statuses = Object.keys(operation.responses)
      const name = `${method.toUpperCase()} ${path}`
      if ((operation.security ?? []).length > 0) expect(statuses, name).toContain('401')
      if ((operation.parameters ?? []).length > 0 || operation.requestBody)
        expect(statuses, name).toContain('400')
      if (operation.requestBody) expect(statuses, name).toContain('413')
      // The file upload reads any media type as the file (docs/API.md#import-and-export): it has no
      // 415 to answer.
      if (operation.requestBody && name !== 'POST /api/links/import/file')
        expect(statuses, name).toContain('415')
      if (path.includes('{'))
        expect(statuses, `${name}: a path parameter holding a control character is 404`).toContain(
          '404',
        )
    }
    const unlimited = operationsOf(doc)
      .filter(({ operation }) => operation.responses['429'] === undefined)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
    expect(unlimited.sort()).toEqual([
      'GET /api/health',
      'GET /api/health/ready',
      'GET /api/metrics',
      'POST /api/billing/webhook',
    ])
  })
})

describe('documented as sent', () => {
  it('GET /api/metrics: Prometheus text, not JSON', async () => {
    const doc = await documentOf()
    expect(Object.keys(doc.paths['/api/metrics']!.get!.responses['200']!.content!)).toEqual([
      'text/plain; version=0.0.4',
    ])
    const response = await metricsApp.app.inject({
      method: 'GET',
      url: '/api/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
  })

  it('every 204 (DELETE /api/admin/settings/{key} included) has no content', async () => {
    const doc = await documentOf()
    let count = 0
    for (const { method, path, operation } of operationsOf(doc)) {
      const noContent = operation.responses['204']
      if (noContent === undefined) continue
      count++
      expect(noContent.content, `${method} ${path}`).toBeUndefined()
    }
    expect(count).toBeGreaterThan(10)
    expect(
      doc.paths['/api/admin/settings/{key}']!.delete!.responses['204']!.content,
    ).toBeUndefined()
  })

  it('POST /api/billing/webhook: the Stripe event as the request body and the Stripe-Signature header, both required', async () => {
    const operation = (await documentOf()).paths['/api/billing/webhook']!.post!
    expect(operation.requestBody?.required).toBe(true)
    const body = operation.requestBody!.content['application/json']!.schema as {
      required: string[]
    }
    expect(body.required).toEqual(expect.arrayContaining(['id', 'type', 'created', 'data']))
    expect(operation.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'header', name: 'stripe-signature', required: true }),
      ]),
    )
  })

  it('a body whose fields are all optional is an optional body (the service reads none as {})', async () => {
    const doc = await documentOf()
    expect(doc.paths['/api/users/me']!.delete!.requestBody?.required).toBe(false)
    expect(doc.paths['/api/auth/login']!.post!.requestBody?.required).toBe(true)
  })
})

describe('over-long path parameters are answered by the schemas, not the router', () => {
  it('a settings key or provider key of 300 characters is 400 VALIDATION_FAILED like any invalid key; an id of 400 is not found', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const headers = { authorization: `Bearer ${admin.token}` }
    const long = 'a'.repeat(300)
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/settings/${long}`,
      headers,
      payload: { value: 1 },
    })
    expect(put.statusCode).toBe(400)
    expect(put.json()).toMatchObject({ reason: 'VALIDATION_FAILED', details: [{ field: 'key' }] })
    for (const suffix of ['login', 'callback']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/auth/oidc/${long}/${suffix}`,
      })
      expect(response.statusCode, suffix).toBe(400)
      expect(response.json()).toMatchObject({
        reason: 'VALIDATION_FAILED',
        details: [{ field: 'provider_key' }],
      })
    }
    // Reading a key that cannot exist, or naming an id that cannot exist, is simply not found.
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/admin/settings/${long}`, headers }))
        .statusCode,
    ).toBe(404)
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/tokens/${'a'.repeat(400)}`, headers }))
        .statusCode,
    ).toBe(404)
  })
})

describe('GET /api/docs', () => {
  it('serves the interactive explorer', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/text\/html/)
  })
})
