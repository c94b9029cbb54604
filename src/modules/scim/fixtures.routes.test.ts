/**
 * The identity providers' documented requests, each exactly as the document shows it (ids, names
 * and addresses swapped for fresh ones where the server must not see a duplicate), named after the
 * document and its section:
 *
 * - OKTA: Okta Developer, "SCIM 2.0 Protocol Reference" (okta/okta-developer-docs,
 *   docs/reference/scim/scim-20/index.md).
 * - TUTORIAL: Microsoft Learn, "Tutorial: Develop and plan provisioning for a SCIM endpoint in
 *   Microsoft Entra ID", section "SCIM protocol requests and responses" (MicrosoftDocs/entra-docs,
 *   docs/identity/app-provisioning/use-scim-to-provision-users-and-groups.md).
 * - COMPLIANCE: Microsoft Learn, "Known issues and resolutions with SCIM 2.0 protocol compliance of
 *   the Microsoft Entra user provisioning service", section "Flags to alter the SCIM behavior"
 *   (…/application-provisioning-config-problem-scim-compatibility.md).
 *
 * docs/API.md#scim (its client fixtures) lists which test
 * covers which documented request.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { createUser, uniqueEmail } from '../../../test/helpers/factories.js'
import {
  ENTERPRISE,
  PATCH_OP,
  scimClient,
  USER_SCHEMA,
  type ScimClient,
} from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'
// The account's email is stored lower-cased (docs/API.md#scim), so an address sent
// with capitals (the documents' "updatedEmail@…", "TestMhvaes@…") comes back lower-cased.
const unique = (label: string) => `${label}_${Math.random().toString(36).slice(2, 10)}`

/** TUTORIAL "Create User": a userName that is not an address, the address in emails, roles: []. */
async function tutorialCreateUser(client: ScimClient) {
  const userName = unique('Test_User')
  const response = await client.request('POST', '/Users', {
    schemas: [USER_SCHEMA, ENTERPRISE],
    externalId: crypto.randomUUID(),
    userName,
    active: true,
    emails: [{ primary: true, type: 'work', value: `${userName}@testuser.com` }],
    meta: { resourceType: 'User' },
    name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
    roles: [],
  })
  return { response, userName }
}

async function pushGroup(client: ScimClient): Promise<{ id: string; displayName: string }> {
  const response = await client.request('POST', '/Groups', {
    schemas: [GROUP],
    displayName: unique('Test SCIMv2'),
    members: [],
  })
  expect(response.statusCode).toBe(201)
  return response.json()
}

async function memberIds(client: ScimClient, id: string): Promise<string[]> {
  return ((await client.request('GET', `/Groups/${id}`)).json().members as Array<{ value: string }>)
    .map((m) => m.value)
    .sort()
}

describe('Okta, SCIM 2.0 Protocol Reference', () => {
  it('"Update the User" (PUT): the whole profile with middleName, emails[].display, groups and meta; 200 with the User', async () => {
    const client = await scimClient(t)
    const userName = uniqueEmail('okta.put')
    const created = (
      await client.request('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName,
        name: { givenName: 'Test', familyName: 'User' },
        emails: [{ primary: true, value: userName, type: 'work' }],
        displayName: 'Test User',
        locale: 'en-US',
        externalId: unique('00u'),
        groups: [],
        active: true,
      })
    ).json()
    const response = await client.request('PUT', `/Users/${created.id}`, {
      schemas: [USER_SCHEMA],
      id: created.id,
      userName,
      name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
      emails: [{ primary: true, value: userName, type: 'work', display: userName }],
      active: true,
      groups: [],
      meta: { resourceType: 'User' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      id: created.id,
      userName,
      active: true,
      name: { givenName: 'Another', familyName: 'User' },
    })
  })

  it('"Update specific Group membership": remove by members[value eq …] and add {value, display} in one PATCH', async () => {
    const client = await scimClient(t)
    const [leaver, joiner] = await Promise.all([createUser(t), createUser(t)])
    const group = await pushGroup(client)
    await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: leaver.user.id }] }],
    })
    const response = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'remove', path: `members[value eq "${leaver.user.id}"]` },
        { op: 'add', path: 'members', value: [{ value: joiner.user.id, display: joiner.email }] },
      ],
    })
    expect(response.statusCode).toBe(204)
    expect(await memberIds(client, group.id)).toEqual([joiner.user.id])
    // "…a full push of the membership … using the replace operation", display included.
    const replace = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'replace',
          path: 'members',
          value: [
            { value: leaver.user.id, display: leaver.email },
            { value: joiner.user.id, display: joiner.email },
          ],
        },
      ],
    })
    expect(replace.statusCode).toBe(204)
    expect(await memberIds(client, group.id)).toEqual([leaver.user.id, joiner.user.id].sort())
  })

  it('"Retrieve Users" and "Retrieve Groups": GET ?startIndex=1&count=100 are ListResponses with integer figures', async () => {
    const client = await scimClient(t)
    for (const path of ['/Users?startIndex=1&count=100', '/Groups?startIndex=1&count=100']) {
      const body = (await client.request('GET', path)).json()
      expect(body.schemas).toEqual([LIST])
      for (const figure of ['totalResults', 'startIndex', 'itemsPerPage'])
        expect(Number.isInteger(body[figure]), `${path} ${figure}`).toBe(true)
    }
  })
})

describe('Microsoft Entra ID, "Tutorial: Develop and plan provisioning for a SCIM endpoint"', () => {
  it('"Create User": 201 with the User; "Get User by query" finds it; "… - Zero results" is an empty ListResponse', async () => {
    const client = await scimClient(t)
    const { response, userName } = await tutorialCreateUser(client)
    expect(response.statusCode).toBe(201)
    expect(response.json()).toMatchObject({
      userName,
      active: true,
      name: { familyName: 'familyName', givenName: 'givenName' },
      emails: [{ value: `${userName}@testuser.com`.toLowerCase(), type: 'work', primary: true }],
    })
    const found = (
      await client.request(
        'GET',
        `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`,
      )
    ).json()
    expect(found).toMatchObject({ schemas: [LIST], totalResults: 1, startIndex: 1 })
    expect(found.Resources[0].id).toBe(response.json().id)
    const none = (
      await client.request(
        'GET',
        `/Users?filter=${encodeURIComponent('userName eq "non-existent user"')}`,
      )
    ).json()
    expect(none).toEqual({
      schemas: [LIST],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    })
  })

  it('"Update User [Multi-valued properties]": Replace emails[type eq "work"].value and Replace name.familyName; 200', async () => {
    const client = await scimClient(t)
    const id = (await tutorialCreateUser(client)).response.json().id as string
    const updated = uniqueEmail('updatedEmail')
    const response = await client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: updated },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      name: { familyName: 'updatedFamilyName', givenName: 'givenName' },
      emails: [{ value: updated.toLowerCase(), type: 'work' }],
    })
  })

  it('"Update User [Single-valued properties]": Replace userName; 200', async () => {
    const client = await scimClient(t)
    const id = (await tutorialCreateUser(client)).response.json().id as string
    const userName = `${crypto.randomUUID()}@testuser.com`
    const response = await client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'userName', value: userName }],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().userName).toBe(userName)
  })

  it('"Disable User": Replace active with the boolean false (Operations before schemas); 200, still readable; "Delete User" 204', async () => {
    const client = await scimClient(t)
    const id = (await tutorialCreateUser(client)).response.json().id as string
    const response = await client.request('PATCH', `/Users/${id}`, {
      Operations: [{ op: 'Replace', path: 'active', value: false }],
      schemas: [PATCH_OP],
    })
    expect(response.statusCode).toBe(200)
    expect((await client.request('GET', `/Users/${id}`)).json().active).toBe(false)
    expect((await client.request('DELETE', `/Users/${id}`)).statusCode).toBe(204)
  })

  it('"Create Group" with the ADSCIM schema URN, externalId and meta; "Get Group" with excludedAttributes=members', async () => {
    const client = await scimClient(t)
    const displayName = unique('displayName')
    const response = await client.request('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: crypto.randomUUID(),
      displayName,
      meta: { resourceType: 'Group' },
    })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toMatchObject({ schemas: [GROUP], displayName, members: [] })
    const read = await client.request(
      'GET',
      `/Groups/${response.json().id}?excludedAttributes=members`,
    )
    expect(read.statusCode).toBe(200)
    expect(read.json().members).toBeUndefined()
    expect(read.json().displayName).toBe(displayName)
  })

  it('"Update Group [Non-member attributes]", "[Add Members]" and "[Remove Members]" with "$ref": null; each 204', async () => {
    const client = await scimClient(t)
    const member = await createUser(t)
    const group = await pushGroup(client)
    const renamed = `${unique('x')}updatedDisplayName`
    const rename = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'displayName', value: renamed }],
    })
    expect(rename.statusCode).toBe(204)
    expect((await client.request('GET', `/Groups/${group.id}`)).json().displayName).toBe(renamed)
    const add = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: member.user.id }] }],
    })
    expect(add.statusCode).toBe(204)
    expect(await memberIds(client, group.id)).toEqual([member.user.id])
    const remove = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Remove', path: 'members', value: [{ $ref: null, value: member.user.id }] },
      ],
    })
    expect(remove.statusCode).toBe(204)
    expect(await memberIds(client, group.id)).toEqual([])
    expect((await client.request('DELETE', `/Groups/${group.id}`)).statusCode).toBe(204)
  })

  it('"Discover schema": GET /Schemas is a ListResponse holding the User, Group and enterprise User schemas', async () => {
    const client = await scimClient(t)
    const body = (await client.request('GET', '/Schemas')).json()
    expect(body.schemas).toEqual([LIST])
    expect(body.Resources.map((schema: { id: string }) => schema.id).sort()).toEqual(
      [GROUP, USER_SCHEMA, ENTERPRISE].sort(),
    )
  })
})

describe('Microsoft Entra ID, "Known issues … SCIM 2.0 protocol compliance" (with and without aadOptscim062020)', () => {
  it('"Requests to replace multiple attributes", with the flag: a filtered-path replace and a path-less replace with dotted and URN keys', async () => {
    const client = await scimClient(t)
    const id = (await tutorialCreateUser(client)).response.json().id as string
    const email = uniqueEmail('TestMhvaes')
    const response = await client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'emails[type eq "work"].value', value: email },
        {
          op: 'replace',
          value: {
            displayName: 'Bjfe',
            'name.givenName': 'Kkom',
            'name.familyName': 'Unua',
            [`${ENTERPRISE}:employeeNumber`]: 'Aklq',
          },
        },
      ],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      displayName: 'Bjfe',
      name: { givenName: 'Kkom', familyName: 'Unua' },
      emails: [{ value: email.toLowerCase() }],
      [ENTERPRISE]: { employeeNumber: 'Aklq' },
    })
  })

  it('"Requests to replace multiple attributes", without the flag: six capitalised Replace operations by path', async () => {
    const client = await scimClient(t)
    const id = (await tutorialCreateUser(client)).response.json().id as string
    const email = uniqueEmail('TestBcwqnm')
    const externalId = unique('Eqpj')
    const response = await client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Pvlo' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: email },
        { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
        { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
        { op: 'Replace', path: 'externalId', value: externalId },
        { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: 'Eqpj' },
      ],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      displayName: 'Pvlo',
      externalId,
      name: { givenName: 'Gtfd', familyName: 'Pkqf' },
      emails: [{ value: email.toLowerCase() }],
      [ENTERPRISE]: { employeeNumber: 'Eqpj' },
    })
  })

  it('"Requests made to add a single-value string attribute" (Add nickName, both forms): accepted, the attribute not stored', async () => {
    const client = await scimClient(t)
    const id = (await tutorialCreateUser(client)).response.json().id as string
    for (const op of ['Add', 'add']) {
      const response = await client.request('PATCH', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op, path: 'nickName', value: 'Babs' }],
      })
      expect(response.statusCode, op).toBe(200)
      expect(response.json().nickName).toBeUndefined()
    }
  })

  it('"Requests made to disable users", both forms: "False" with Replace, false with replace', async () => {
    const client = await scimClient(t)
    for (const value of ['False', false]) {
      const id = (await tutorialCreateUser(client)).response.json().id as string
      const op = value === false ? 'replace' : 'Replace'
      const response = await client.request('PATCH', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op, path: 'active', value }],
      })
      expect(response.statusCode, String(value)).toBe(200)
      expect(response.json().active).toBe(false)
    }
  })

  it('"Requests made to remove a group member", both forms: a value list with Remove, a filter with remove', async () => {
    const client = await scimClient(t)
    const [a, b] = await Promise.all([createUser(t), createUser(t)])
    const group = await pushGroup(client)
    await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'members', value: [{ value: a.user.id }, { value: b.user.id }] },
      ],
    })
    const byList = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: a.user.id }] }],
    })
    expect(byList.statusCode).toBe(204)
    const byFilter = await client.request('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${b.user.id}"]` }],
    })
    expect(byFilter.statusCode).toBe(204)
    expect(await memberIds(client, group.id)).toEqual([])
  })
})
