/** SCIM Groups (= teams) against Okta's and Entra's documented group requests. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { createUser } from '../../../test/helpers/factories.js'
import {
  expectScimError,
  PATCH_OP,
  scimClient,
  type ScimClient,
} from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'

async function push(client: ScimClient, displayName: string, members: string[] = []) {
  const response = await client.request('POST', '/Groups', {
    schemas: [GROUP],
    displayName,
    members: members.map((value) => ({ value })),
  })
  if (response.statusCode !== 201)
    throw new Error(`group create failed: ${response.statusCode} ${response.body}`)
  return response.json<{ id: string; displayName: string }>()
}

async function memberIds(client: ScimClient, id: string): Promise<string[]> {
  return (await client.request('GET', `/Groups/${id}`))
    .json<{ members: Array<{ value: string }> }>()
    .members.map((m) => m.value)
    .sort()
}

const uniqueName = (label: string) => `${label} ${Math.random().toString(36).slice(2, 8)}`

describe('Okta group push', () => {
  it('creates a team (201), a duplicate displayName is 409 uniqueness, audited as SCIM (name)', async () => {
    const client = await scimClient(t, 'Okta')
    const name = uniqueName('Test SCIMv2')
    const group = await push(client, name)
    expect(group).toMatchObject({ schemas: [GROUP], displayName: name })
    const team = await t.deps.db
      .selectFrom('teams')
      .select('name')
      .where('id', '=', group.id)
      .executeTakeFirstOrThrow()
    expect(team.name).toBe(name)
    expectScimError(
      await client.request('POST', '/Groups', {
        schemas: [GROUP],
        displayName: name.toUpperCase(),
        members: [],
      }),
      409,
      'uniqueness',
    )
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'actor_email'])
      .where('target_id', '=', group.id)
      .execute()
    expect(audit).toEqual([{ action: 'scim.group_create', actor_email: 'SCIM (Okta)' }])
  })

  it('rename: a path-less replace carrying id and displayName answers 204', async () => {
    const client = await scimClient(t)
    const group = await push(client, uniqueName('Before'))
    const renamed = uniqueName('After')
    const response = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: group.id, displayName: renamed } }],
    })
    expect(response.statusCode).toBe(204)
    expect((await client.request('GET', `/Groups/${group.id}`)).json().displayName).toBe(renamed)
  })

  it('membership: add with value only, remove by members[value eq "…"], replace all', async () => {
    const client = await scimClient(t)
    const [a, b, c] = await Promise.all([createUser(t), createUser(t), createUser(t)])
    const group = await push(client, uniqueName('Members'))
    const add = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'add', path: 'members', value: [{ value: a.user.id }, { value: b.user.id }] },
      ],
    })
    expect(add.statusCode).toBe(204)
    expect(await memberIds(client, group.id)).toEqual([a.user.id, b.user.id].sort())
    await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${a.user.id}"]` }],
    })
    expect(await memberIds(client, group.id)).toEqual([b.user.id])
    await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'members', value: [{ value: c.user.id }] }],
    })
    expect(await memberIds(client, group.id)).toEqual([c.user.id])
  })

  it('PATCH with ?attributes= answers 200 with the projected resource (RFC 7644 §3.5.2)', async () => {
    const client = await scimClient(t)
    const member = await createUser(t)
    const group = await push(client, uniqueName('Asked'))
    const response = await client.request('PATCH', `/Groups/${group.id}?attributes=members`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: member.user.id }] }],
    })
    expect(response.statusCode).toBe(200)
    expect(String(response.headers['content-type'])).toMatch(/^application\/scim\+json/)
    expect(response.json()).toEqual({
      schemas: [GROUP],
      id: group.id,
      members: [expect.objectContaining({ value: member.user.id }) as unknown],
    })
    const excluded = await client.request(
      'PATCH',
      `/Groups/${group.id}?excludedAttributes=members`,
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'members', value: [] }] },
    )
    expect(excluded.statusCode).toBe(200)
    expect(excluded.json()).toMatchObject({ id: group.id, displayName: group.displayName })
    expect(excluded.json()).not.toHaveProperty('members')
    expect(await memberIds(client, group.id)).toEqual([])
  })

  it('DELETE removes the team; then 404', async () => {
    const client = await scimClient(t)
    const group = await push(client, uniqueName('Gone'))
    expect((await client.request('DELETE', `/Groups/${group.id}`)).statusCode).toBe(204)
    expectScimError(await client.request('GET', `/Groups/${group.id}`), 404)
  })
})

describe('Microsoft Entra ID groups', () => {
  it('filter displayName eq with excludedAttributes=members', async () => {
    const client = await scimClient(t, uniqueName('Entra'))
    const member = await createUser(t)
    const name = uniqueName('Group1')
    const group = await push(client, name, [member.user.id])
    const response = await client.request(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`displayName eq "${name}"`)}`,
    )
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ totalResults: 1, itemsPerPage: 1 })
    expect(response.json().Resources[0]).toEqual({
      schemas: [GROUP],
      id: group.id,
      displayName: name,
      meta: expect.objectContaining({ resourceType: 'Group' }) as unknown,
    })
    const none = await client.request(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "no such group"')}`,
    )
    expect(none.json()).toMatchObject({ totalResults: 0, Resources: [] })
  })

  it('capitalised Add, and Remove by a value list: {"op":"Remove","path":"members","value":[{"value":"…"}]}', async () => {
    const client = await scimClient(t, uniqueName('Entra'))
    const [a, b] = await Promise.all([createUser(t), createUser(t)])
    const group = await push(client, uniqueName('Entra'))
    const add = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'members', value: [{ value: a.user.id }, { value: b.user.id }] },
      ],
    })
    expect(add.statusCode).toBe(204)
    const remove = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: a.user.id }] }],
    })
    expect(remove.statusCode).toBe(204)
    expect(await memberIds(client, group.id)).toEqual([b.user.id])
  })

  it('a member that is not a User is 400 invalidValue and changes nothing', async () => {
    const client = await scimClient(t, uniqueName('Entra'))
    const group = await push(client, uniqueName('Strict'))
    const response = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: 'no-such-user' }] }],
    })
    expectScimError(response, 400, 'invalidValue')
    const nul = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: 'a\u0000b' }] }],
    })
    expectScimError(nul, 400, 'invalidValue')
    expect(await memberIds(client, group.id)).toEqual([])
  })
})
