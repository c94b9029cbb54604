import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { ENTERPRISE, expectScimError, scimClient, USER_SCHEMA } from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

describe('SCIM discovery', () => {
  it('ServiceProviderConfig: patch and filter with its maximum, no bulk, sort or etag, the bearer scheme', async () => {
    const client = await scimClient(t)
    const response = await client.request('GET', '/ServiceProviderConfig')
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/scim\+json/)
    expect(response.json()).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken', primary: true }],
    })
  })

  it('ResourceTypes: User with the enterprise extension and Group, as a ListResponse and by id', async () => {
    const client = await scimClient(t)
    const list = await client.request('GET', '/ResourceTypes')
    expect(list.json()).toMatchObject({ totalResults: 2, startIndex: 1, itemsPerPage: 2 })
    expect(list.json().Resources[0]).toMatchObject({
      id: 'User',
      endpoint: '/Users',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE }],
    })
    expect((await client.request('GET', '/ResourceTypes/User')).json().name).toBe('User')
    expectScimError(await client.request('GET', '/ResourceTypes/Printer'), 404)
  })

  it('Schemas: the core User, the enterprise extension and Group, each with its attributes', async () => {
    const client = await scimClient(t)
    const list = await client.request('GET', '/Schemas')
    const ids = list.json().Resources.map((s: { id: string }) => s.id)
    expect(ids).toEqual([USER_SCHEMA, ENTERPRISE, 'urn:ietf:params:scim:schemas:core:2.0:Group'])
    const user = await client.request('GET', `/Schemas/${USER_SCHEMA}`)
    expect(user.json().attributes.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(['userName', 'active', 'emails', 'externalId']),
    )
    const enterprise = await client.request('GET', `/Schemas/${ENTERPRISE}`)
    expect(enterprise.json().attributes.map((a: { name: string }) => a.name)).toEqual([
      'employeeNumber',
      'department',
      'manager',
    ])
  })
})
