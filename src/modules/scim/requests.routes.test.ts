/**
 * The SCIM request log: each SCIM request is one row — method, path without its query,
 * status, scimType, duration, credential, and on a 409 uniqueness the userName or displayName
 * that collided — bounded to the newest 50, readable by administrators only, and holding no body,
 * query string or secret.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { PATCH_OP, scimClient, USER_SCHEMA } from '../../../test/helpers/scim.js'
import { SCIM_REQUEST_LOG_SIZE, UNAUTHENTICATED_KEPT } from './requests.service.js'

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

interface Logged {
  method: string
  path: string
  status: number
  scim_type: string | null
  duration_ms: number
  credential_id: string | null
  credential_name: string | null
  created_at: string
  subject: string | null
}

async function log(adminToken: string): Promise<Logged[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: '/api/admin/scim/requests',
    headers: bearer(adminToken),
  })
  expect(response.statusCode).toBe(200)
  return response.json().items
}

/** The log is written after the answer went out: wait until it holds `count` rows matching. */
async function until(
  adminToken: string,
  predicate: (items: Logged[]) => boolean,
): Promise<Logged[]> {
  let items: Logged[] = []
  await expect
    .poll(async () => predicate((items = await log(adminToken))), { timeout: 10_000 })
    .toBe(true)
  return items
}

describe('the SCIM request log', () => {
  it('records method, path (no query), status, scimType, duration and credential; never a body, filter or secret', async () => {
    const client = await scimClient(t, 'Entra production')
    const secretPassword = 'pw-that-must-not-be-logged-9'
    const userName = `logged-${Date.now()}@example.com`
    const created = await client.request('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName,
      password: secretPassword,
    })
    expect(created.statusCode).toBe(201)
    const id = created.json().id as string
    expect(
      (
        await client.request(
          'GET',
          `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`,
        )
      ).statusCode,
    ).toBe(200)
    const bad = await client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Move', path: 'active' }],
    })
    expect(bad.statusCode).toBe(400)
    const unauthenticated = await t.app.inject({
      method: 'GET',
      url: '/scim/v2/Users?filter=x',
      headers: bearer('scim_wrong'),
    })
    expect(unauthenticated.statusCode).toBe(401)

    // Each row is written after its answer went out, so they may land in any order: wait for all.
    const items = await until(
      client.adminToken,
      (all) =>
        all.some((r) => r.status === 401 && r.path === '/scim/v2/Users') &&
        all.filter((r) => r.credential_id === client.credentialId).length === 3,
    )
    const mine = items.filter((r) => r.credential_id === client.credentialId)
    expect(mine.map((r) => [r.method, r.path, r.status, r.scim_type])).toEqual([
      ['PATCH', `/scim/v2/Users/${id}`, 400, 'invalidSyntax'],
      ['GET', '/scim/v2/Users', 200, null],
      ['POST', '/scim/v2/Users', 201, null],
    ])
    expect(
      mine.every(
        (r) =>
          r.credential_name === 'Entra production' &&
          r.duration_ms >= 0 &&
          !Number.isNaN(Date.parse(r.created_at)),
      ),
    ).toBe(true)
    expect(items.every((r) => r.subject === null)).toBe(true)
    const refused = items.find((r) => r.status === 401)!
    expect(refused).toMatchObject({ credential_id: null, credential_name: null, method: 'GET' })
    const text = JSON.stringify(await t.deps.db.selectFrom('scim_requests').selectAll().execute())
    for (const secret of [secretPassword, userName, client.token, 'scim_wrong', 'filter'])
      expect(text).not.toContain(secret)
  })

  it('names the userName or displayName a 409 uniqueness collided on, and only there', async () => {
    const client = await scimClient(t)
    const userName = `taken-${Date.now()}@example.com`
    const user = { schemas: [USER_SCHEMA], userName, password: 'pw-not-in-the-log-9' }
    expect((await client.request('POST', '/Users', user)).statusCode).toBe(201)
    const duplicate = await client.request('POST', '/Users', user)
    expect(duplicate.statusCode).toBe(409)
    expect(duplicate.json()).not.toHaveProperty('subject')
    const displayName = `Taken team ${Date.now()}`
    const group = { schemas: [GROUP_SCHEMA], displayName }
    expect((await client.request('POST', '/Groups', group)).statusCode).toBe(201)
    expect((await client.request('POST', '/Groups', group)).statusCode).toBe(409)

    const items = await until(
      client.adminToken,
      (all) => all.filter((r) => r.credential_id === client.credentialId).length === 4,
    )
    const mine = items.filter((r) => r.credential_id === client.credentialId)
    expect(mine.map((r) => [r.method, r.path, r.status, r.scim_type, r.subject])).toEqual([
      ['POST', '/scim/v2/Groups', 409, 'uniqueness', displayName],
      ['POST', '/scim/v2/Groups', 201, null, null],
      ['POST', '/scim/v2/Users', 409, 'uniqueness', userName],
      ['POST', '/scim/v2/Users', 201, null, null],
    ])
    const text = JSON.stringify(await t.deps.db.selectFrom('scim_requests').selectAll().execute())
    expect(text).not.toContain('pw-not-in-the-log-9')
  })

  it('keeps only the newest 50, also under a burst of concurrent requests', async () => {
    const client = await scimClient(t)
    await Promise.all(
      Array.from({ length: 70 }, () => client.request('GET', '/ServiceProviderConfig')),
    )
    await client.request('GET', '/ResourceTypes')
    const items = await until(client.adminToken, (all) => all[0]?.path === '/scim/v2/ResourceTypes')
    expect(items).toHaveLength(50)
    // The ring's rows are fixed: the table itself never grows, not only the answer (the requests
    // without a credential are kept apart: requests.flood.routes.test.ts).
    const count = async (where: 'written' | 'all') => {
      let query = t.deps.db.selectFrom('scim_requests').select((eb) => eb.fn.countAll().as('n'))
      if (where === 'written') query = query.where('credential_id', 'is not', null)
      return Number((await query.executeTakeFirstOrThrow()).n)
    }
    await expect.poll(() => count('written')).toBe(SCIM_REQUEST_LOG_SIZE)
    expect(await count('all')).toBe(SCIM_REQUEST_LOG_SIZE + UNAUTHENTICATED_KEPT)
  })

  it('is for administrators only', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/admin/scim/requests',
      headers: bearer(user.token),
    })
    expect(response.statusCode).toBe(403)
  })
})
