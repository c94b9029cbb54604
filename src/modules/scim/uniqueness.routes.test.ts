/**
 * The uniqueness a SCIM write is held to, each rule on its own: a userName that another account
 * has as its SCIM userName or (untouched by SCIM) as its email, an externalId that the credential
 * or no credential set (one set before externalIds were scoped), and a replace keeping its own.
 * The check reads all of them in one statement (findUniquenessHolders); each rule must still name
 * its own collision. A create answers what a read of the new User answers.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { createUser, uniqueEmail } from '../../../test/helpers/factories.js'
import {
  expectScimError,
  scimClient,
  USER_SCHEMA,
  type ScimClient,
} from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

function userBody(userName: string, email = userName, externalId?: string) {
  return {
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ primary: true, value: email, type: 'work' }],
    ...(externalId !== undefined && { externalId }),
    active: true,
  }
}

const newExternalId = () => `ext-${Math.random().toString(36).slice(2, 12)}`

/** A new User with `externalId` is refused as a collision on it. */
async function expectExternalIdTaken(client: ScimClient, externalId: string) {
  const response = await client.request(
    'POST',
    '/Users',
    userBody(uniqueEmail('again'), undefined, externalId),
  )
  expectScimError(response, 409, 'uniqueness')
  expect(response.json().detail).toBe('A user with this externalId already exists.')
}

describe('SCIM uniqueness', () => {
  it("refuses a userName that is another User's userName, naming the userName", async () => {
    const client = await scimClient(t)
    const taken = uniqueEmail('taken')
    expect((await client.request('POST', '/Users', userBody(taken))).statusCode).toBe(201)
    const response = await client.request('POST', '/Users', userBody(taken, uniqueEmail('other')))
    expectScimError(response, 409, 'uniqueness')
    expect(response.json().detail).toBe('A user with this userName already exists.')
  })

  it('refuses a userName that is the email of an account SCIM has not touched', async () => {
    const client = await scimClient(t)
    const local = await createUser(t)
    const response = await client.request(
      'POST',
      '/Users',
      userBody(local.email.toUpperCase(), uniqueEmail('other')),
    )
    expectScimError(response, 409, 'uniqueness')
    expect(response.json().detail).toBe('A user with this userName already exists.')
  })

  it('refuses an externalId the credential set, and one set before externalIds were scoped', async () => {
    const client = await scimClient(t)
    const scoped = newExternalId()
    expect(
      (await client.request('POST', '/Users', userBody(uniqueEmail('a'), undefined, scoped)))
        .statusCode,
    ).toBe(201)
    await expectExternalIdTaken(client, scoped)

    const legacy = await client.request('POST', '/Users', userBody(uniqueEmail('c')))
    const unscoped = newExternalId()
    await t.deps.db
      .updateTable('scim_users')
      .set({ external_id: unscoped, external_id_scope: null })
      .where('user_id', '=', legacy.json().id)
      .execute()
    await expectExternalIdTaken(client, unscoped)
  })

  it('lets a replace keep its own userName and externalId', async () => {
    const client = await scimClient(t)
    const userName = uniqueEmail('keep')
    const externalId = newExternalId()
    const created = await client.request('POST', '/Users', userBody(userName, userName, externalId))
    const replaced = await client.request('PUT', `/Users/${created.json().id}`, {
      ...userBody(userName.toUpperCase(), userName, externalId),
      name: { givenName: 'Augusta', familyName: 'King' },
    })
    expect(replaced.statusCode).toBe(200)
    expect(replaced.json().name.givenName).toBe('Augusta')
  })

  it('answers a create with what a read of the new User answers', async () => {
    const client = await scimClient(t)
    const created = await client.request('POST', '/Users', {
      ...userBody(uniqueEmail('read'), undefined, newExternalId()),
      name: { givenName: 'Grace', familyName: 'Hopper', formatted: 'Rear Admiral Grace Hopper' },
      active: false,
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': {
        employeeNumber: '1906',
        department: 'Navy',
      },
    })
    expect(created.statusCode).toBe(201)
    const read = await client.request('GET', `/Users/${created.json().id}`)
    expect(read.statusCode).toBe(200)
    expect(created.json()).toEqual(read.json())
  })
})
