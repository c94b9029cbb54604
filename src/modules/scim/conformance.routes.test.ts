/**
 * SCIM details that conformance probes check: the trailing-slash collection path, `name.formatted`
 * kept apart from `displayName`, `externalId` scoped per credential, and `/Schemas` uniqueness
 * agreeing with what the server refuses.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { uniqueEmail } from '../../../test/helpers/factories.js'
import {
  expectScimError,
  PATCH_OP,
  SCIM_MEDIA,
  scimClient,
  USER_SCHEMA,
  type ScimClient,
} from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

function userBody(extra: Record<string, unknown> = {}) {
  const userName = uniqueEmail()
  return {
    schemas: [USER_SCHEMA],
    userName,
    emails: [{ value: userName, primary: true }],
    ...extra,
  }
}

async function create(client: ScimClient, extra: Record<string, unknown> = {}) {
  const response = await client.request('POST', '/Users', userBody(extra))
  if (response.statusCode !== 201)
    throw new Error(`create failed: ${response.statusCode} ${response.body}`)
  return response.json<{ id: string; userName: string }>()
}

const externalFilter = (id: string) =>
  `/Users?filter=${encodeURIComponent(`externalId eq "${id}"`)}`

describe('the trailing slash', () => {
  it('/Users/ and /Groups/ answer as /Users and /Groups (list and create), never a 400', async () => {
    const client = await scimClient(t)
    const list = await client.request('GET', '/Users/?count=1')
    expect(list.statusCode).toBe(200)
    expect(String(list.headers['content-type']).startsWith(SCIM_MEDIA)).toBe(true)
    expect(list.json()).toMatchObject({ itemsPerPage: 1 })
    const created = await client.request('POST', '/Users/', userBody())
    expect(created.statusCode).toBe(201)
    expect((await client.request('GET', '/Groups/')).statusCode).toBe(200)
    const group = await client.request('POST', '/Groups/', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: `Slash ${Math.random().toString(36).slice(2, 8)}`,
    })
    expect(group.statusCode).toBe(201)
    for (const path of ['/Schemas/', '/ResourceTypes/'])
      expect((await client.request('GET', path)).json().totalResults, path).toBeGreaterThan(0)
    expectScimError(await client.request('PUT', '/Users/', userBody()), 404)
  })
})

describe('name.formatted', () => {
  it('is kept apart from displayName, read back, and a PATCH of it alone changes it', async () => {
    const client = await scimClient(t)
    const user = await create(client, {
      displayName: 'Ada L.',
      name: { formatted: 'Ms. Ada Lovelace', givenName: 'Ada', familyName: 'Lovelace' },
    })
    const read = (await client.request('GET', `/Users/${user.id}`)).json()
    expect(read).toMatchObject({
      displayName: 'Ada L.',
      name: { formatted: 'Ms. Ada Lovelace', givenName: 'Ada' },
    })
    const patched = await client.request('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'name.formatted', value: 'Lady Lovelace' }],
    })
    expect(patched.statusCode).toBe(200)
    expect(patched.json()).toMatchObject({
      displayName: 'Ada L.',
      name: { formatted: 'Lady Lovelace', familyName: 'Lovelace' },
    })
    const again = (await client.request('GET', `/Users/${user.id}`)).json()
    expect(again.name.formatted).toBe('Lady Lovelace')
    const found = await client.request(
      'GET',
      `/Users?filter=${encodeURIComponent('name.formatted eq "lady lovelace"')}`,
    )
    expect(found.json().Resources.map((r: { id: string }) => r.id)).toEqual([user.id])
  })

  it('without name.formatted, it reads as displayName (and follows it)', async () => {
    const client = await scimClient(t)
    const user = await create(client, { displayName: 'Grace' })
    expect((await client.request('GET', `/Users/${user.id}`)).json().name.formatted).toBe('Grace')
  })
})

describe('externalId is scoped to the credential (RFC 7643 §3.1)', () => {
  it('a second credential may use an externalId the first uses; each sees and finds its own', async () => {
    const first = await scimClient(t)
    const second = await scimClient(t)
    const externalId = `00u${Math.random().toString(36).slice(2, 12)}`
    const a = await create(first, { externalId })
    const b = await create(second, { externalId })
    expect(b.id).not.toBe(a.id)
    // Within one credential it stays unique.
    expectScimError(
      await first.request('POST', '/Users', userBody({ externalId })),
      409,
      'uniqueness',
    )
    for (const [client, id] of [
      [first, a.id],
      [second, b.id],
    ] as const) {
      const found = (await client.request('GET', externalFilter(externalId))).json()
      expect(found.Resources.map((r: { id: string }) => r.id)).toEqual([id])
      const general = await client.request(
        'GET',
        `/Users?filter=${encodeURIComponent(`externalId eq "${externalId}" and active eq true`)}`,
      )
      expect(general.json().Resources.map((r: { id: string }) => r.id)).toEqual([id])
    }
    // Another credential's externalId is not shown, and its PATCH does not erase it.
    const seen = (await second.request('GET', `/Users/${a.id}`)).json()
    expect(seen).not.toHaveProperty('externalId')
    const patch = await second.request('PATCH', `/Users/${a.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Renamed' }],
    })
    expect(patch.statusCode).toBe(200)
    expect((await first.request('GET', `/Users/${a.id}`)).json().externalId).toBe(externalId)
  })
})

describe('/Schemas uniqueness agrees with what is refused', () => {
  it('userName, emails and externalId are declared server-unique, and duplicates are 409', async () => {
    const client = await scimClient(t)
    const schema = (
      await client.request('GET', `/Schemas/${encodeURIComponent(USER_SCHEMA)}`)
    ).json<{ attributes: Array<{ name: string; uniqueness: string; subAttributes?: unknown[] }> }>()
    const uniqueness = Object.fromEntries(schema.attributes.map((a) => [a.name, a.uniqueness]))
    expect(uniqueness).toMatchObject({
      userName: 'server',
      emails: 'server',
      externalId: 'server',
      displayName: 'none',
    })
    const user = await create(client, { externalId: 'dup-ext', displayName: 'Same' })
    const email = user.userName
    expectScimError(
      await client.request('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: uniqueEmail(),
        emails: [{ value: email, primary: true }],
      }),
      409,
      'uniqueness',
    )
    expectScimError(
      await client.request('POST', '/Users', userBody({ externalId: 'dup-ext' })),
      409,
      'uniqueness',
    )
    // displayName is declared "none": a second account may carry it.
    expect(
      (await client.request('POST', '/Users', userBody({ displayName: 'Same' }))).statusCode,
    ).toBe(201)
  })
})
