/** SCIM bursts: the invariants hold when an identity provider sends the same change at once. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { createUser, uniqueEmail } from '../../../test/helpers/factories.js'
import { PATCH_OP, scimClient, USER_SCHEMA } from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

describe('SCIM races', () => {
  it('eight simultaneous creates of one userName: exactly one 201, the others 409 uniqueness', async () => {
    const client = await scimClient(t)
    const userName = uniqueEmail('race')
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        client.request('POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName,
          emails: [{ value: userName, primary: true }],
        }),
      ),
    )
    const statuses = responses.map((r) => r.statusCode).sort()
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409])
    for (const r of responses.filter((r) => r.statusCode === 409))
      expect(r.json().scimType).toBe('uniqueness')
    const count = await t.deps.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('email', '=', userName)
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(1)
  })

  it('deactivating every active administrator at once leaves exactly one active (the rest 200, one 409 mutability)', async () => {
    const client = await scimClient(t)
    await createUser(t, { isAdmin: true })
    await createUser(t, { isAdmin: true })
    const admins = await t.deps.db
      .selectFrom('users')
      .select('id')
      .where('is_admin', '=', true)
      .where('disabled', '=', false)
      .execute()
    expect(admins.length).toBeGreaterThanOrEqual(3)
    const responses = await Promise.all(
      admins.map((admin) =>
        client.request('PATCH', `/Users/${admin.id}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'replace', path: 'active', value: false }],
        }),
      ),
    )
    const refused = responses.filter((r) => r.statusCode === 409)
    expect(refused).toHaveLength(1)
    expect(refused[0]!.json().scimType).toBe('mutability')
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(admins.length - 1)
    const active = await t.deps.db
      .selectFrom('users')
      .select('id')
      .where('is_admin', '=', true)
      .where('disabled', '=', false)
      .execute()
    expect(active).toHaveLength(1)
  })
})
