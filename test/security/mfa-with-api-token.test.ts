/**
 * The specification's MFA endpoints called exactly as it describes them, with an `sb_` personal
 * API token as the Bearer value: the status with `profile:read`; enrolment confirmation, new
 * backup codes and disabling with `account.security:write` (which a legacy token never holds) and
 * their proofs. New backup codes and disabling always need the code, and the password when the
 * account has one — inside the session's re-authentication window too.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  enableMfa,
  openSessionFor,
  type MfaEnrolled,
  type SignedIn,
  type TestUser,
} from '../helpers/factories.js'
import { totpCode } from '../helpers/rfc6238.js'
import { newId } from '../../src/lib/ids.js'
import { apiTokenPrefix, generateApiToken, hashApiToken } from '../../src/identity/token-format.js'
import { TOKEN_PERMISSIONS } from '../../src/identity/permissions.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const json = { 'content-type': 'application/json' }

function call(method: 'GET' | 'POST', url: string, token: string, payload?: object) {
  return t.app.inject({
    method,
    url,
    headers: { ...bearer(token), ...(payload !== undefined && json) },
    ...(payload !== undefined && { payload }),
  })
}

/** A token made before permissions existed: full access, no boundary. */
async function legacyTokenOf(userId: string): Promise<string> {
  const token = generateApiToken()
  await t.deps.db
    .insertInto('api_tokens')
    .values({
      id: newId(),
      user_id: userId,
      name: 'legacy',
      prefix: apiTokenPrefix(token),
      token_hash: hashApiToken(token),
      created_at: t.clock.now().toISOString(),
    })
    .execute()
  return token
}

/** A fresh code: the clock moves one step on, so the last accepted one is not replayed. */
function nextCode(secret: string): string {
  t.clock.advance(30)
  return totpCode(secret, t.clock.now())
}

const ALL_BUT_SECURITY = TOKEN_PERMISSIONS.filter(
  (p) => p !== 'account.security:write' && !p.startsWith('admin.'),
)

describe('GET /api/auth/mfa/status (endpoint 4)', () => {
  let person: TestUser & SignedIn

  beforeAll(async () => {
    person = await createSignedInUser(t)
  })

  it('answers an sb_ token holding profile:read, and a legacy token', async () => {
    const { token } = await createApiTokenFor(t, person.token, 'status', {
      permissions: ['profile:read'],
    })
    expect(token.startsWith('sb_')).toBe(true)
    const response = await call('GET', '/api/auth/mfa/status', token)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ enabled: false })
    expect(response.json()).not.toHaveProperty('secret')

    const legacy = await call('GET', '/api/auth/mfa/status', await legacyTokenOf(person.user.id))
    expect(legacy.statusCode).toBe(200)
  })

  it('refuses a token without profile:read (403 INSUFFICIENT_SCOPE)', async () => {
    const { token } = await createApiTokenFor(t, person.token, 'links only', {
      permissions: ['links:write'],
    })
    const response = await call('GET', '/api/auth/mfa/status', token)
    expect(response.statusCode).toBe(403)
    expect(response.json()).toMatchObject({
      reason: 'INSUFFICIENT_SCOPE',
      details: { required: 'profile:read' },
    })
  })
})

describe('account.security:write', () => {
  let person: TestUser & SignedIn
  let mfa: MfaEnrolled
  let securityToken: string

  beforeAll(async () => {
    person = await createSignedInUser(t)
    mfa = await enableMfa(t, person)
    securityToken = (
      await createApiTokenFor(t, person.token, 'security', {
        permissions: ['account.security:write'],
      })
    ).token
  })

  it('regenerates backup codes with the spec request (code and password): 200, old codes dead', async () => {
    const response = await call('POST', '/api/auth/mfa/backup/regenerate', securityToken, {
      code: nextCode(mfa.secret),
      password: person.password,
    })
    expect(response.statusCode).toBe(200)
    const codes: string[] = response.json().backup_codes
    expect(codes).toHaveLength(10)
    const old = await call('POST', '/api/auth/mfa/backup/regenerate', securityToken, {
      code: mfa.backupCodes[0],
      password: person.password,
    })
    expect(old.statusCode).toBe(400)
    expect(old.json().reason).toBe('INVALID_CODE')
    mfa = { ...mfa, backupCodes: codes }
  })

  it('regenerate without code is 400, without password (the account has one) 400 PASSWORD_REQUIRED', async () => {
    const noCode = await call('POST', '/api/auth/mfa/backup/regenerate', securityToken, {
      password: person.password,
    })
    expect(noCode.statusCode).toBe(400)
    expect(noCode.json().reason).toBe('VALIDATION_FAILED')
    expect(noCode.json().details).toEqual([expect.objectContaining({ field: 'code' })])

    const noPassword = await call('POST', '/api/auth/mfa/backup/regenerate', securityToken, {
      code: nextCode(mfa.secret),
    })
    expect(noPassword.statusCode).toBe(400)
    expect(noPassword.json().reason).toBe('PASSWORD_REQUIRED')
  })

  it('is never held by a legacy token, nor by a token with every other permission', async () => {
    const others = await createApiTokenFor(t, person.token, 'others', {
      permissions: ALL_BUT_SECURITY,
    })
    const legacy = await legacyTokenOf(person.user.id)
    for (const token of [others.token, legacy]) {
      for (const url of ['/api/auth/mfa/backup/regenerate', '/api/auth/mfa/disable']) {
        const response = await call('POST', url, token, {
          code: nextCode(mfa.secret),
          password: person.password,
        })
        expect(response.statusCode, url).toBe(403)
        expect(response.json(), url).toMatchObject({
          reason: 'INSUFFICIENT_SCOPE',
          details: { required: 'account.security:write' },
        })
      }
    }
  })

  it('disables MFA with the code and the password (204), and not without them', async () => {
    const noCode = await call('POST', '/api/auth/mfa/disable', securityToken, {
      password: person.password,
    })
    expect(noCode.statusCode).toBe(400)
    const wrongPassword = await call('POST', '/api/auth/mfa/disable', securityToken, {
      code: nextCode(mfa.secret),
      password: 'not the password',
    })
    expect(wrongPassword.statusCode).toBe(400)
    expect(wrongPassword.json().reason).toBe('INVALID_PASSWORD')

    const response = await call('POST', '/api/auth/mfa/disable', securityToken, {
      code: nextCode(mfa.secret),
      password: person.password,
    })
    expect(response.statusCode).toBe(204)
    const status = await call('GET', '/api/auth/mfa/status', await legacyTokenOf(person.user.id))
    expect(status.json().enabled).toBe(false)
  })

  it('confirms an enrolment begun in a session with the spec request { code } (endpoint 2)', async () => {
    const session = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, session.token, 'security', {
      permissions: ['account.security:write'],
    })
    const begin = await call('POST', '/api/auth/mfa/enroll/begin', session.token, {
      password: session.password,
    })
    expect(begin.statusCode).toBe(200)
    const refused = await call('POST', '/api/auth/mfa/enroll/begin', token, {
      password: session.password,
    })
    expect(refused.json().reason).toBe('SESSION_REQUIRED')
    const confirm = await call('POST', '/api/auth/mfa/enroll/confirm', token, {
      code: totpCode(begin.json().secret, t.clock.now()),
    })
    expect(confirm.statusCode).toBe(200)
    expect(confirm.json().backup_codes).toHaveLength(10)
  })
})

describe('the proofs of regenerate and disable, inside the re-authentication window', () => {
  let person: TestUser & SignedIn
  let mfa: MfaEnrolled

  beforeAll(async () => {
    person = await createSignedInUser(t)
    mfa = await enableMfa(t, person)
  })

  it('a fresh session (its window open) still gets 400 without code or without password', async () => {
    for (const url of ['/api/auth/mfa/backup/regenerate', '/api/auth/mfa/disable']) {
      const nothing = await call('POST', url, person.token, {})
      expect(nothing.statusCode, url).toBe(400)
      expect(nothing.json().reason, url).toBe('VALIDATION_FAILED')
      const codeOnly = await call('POST', url, person.token, { code: nextCode(mfa.secret) })
      expect(codeOnly.statusCode, url).toBe(400)
      expect(codeOnly.json().reason, url).toBe('PASSWORD_REQUIRED')
      const passwordOnly = await call('POST', url, person.token, { password: person.password })
      expect(passwordOnly.statusCode, url).toBe(400)
    }
    const status = await call('GET', '/api/auth/mfa/status', person.token)
    expect(status.json()).toMatchObject({ enabled: true, backup_codes_remaining: 10 })
  })

  it('the access JWT as Bearer value regenerates with both proofs', async () => {
    const response = await call('POST', '/api/auth/mfa/backup/regenerate', person.token, {
      code: nextCode(mfa.secret),
      password: person.password,
    })
    expect(response.statusCode).toBe(200)
  })

  it('an account without a password (OIDC only) sends the code alone', async () => {
    const oidcOnly = await createUser(t, { password: null })
    const session = await openSessionFor(t, oidcOnly.user.id)
    const enrolled = await enableMfa(t, { token: session, password: null })
    const { token } = await createApiTokenFor(t, session, 'security', {
      permissions: ['account.security:write'],
    })
    const response = await call('POST', '/api/auth/mfa/backup/regenerate', token, {
      code: nextCode(enrolled.secret),
    })
    expect(response.statusCode).toBe(200)
  })
})
