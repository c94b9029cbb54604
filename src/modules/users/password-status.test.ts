/**
 * The Security page's "password last changed" (migration 0032): every path that writes a
 * password records when — setup, the create-admin command, an administrator's new user and new
 * password, SCIM, the account's own change, and a reset link (mailed or printed by the CLI) — and
 * GET /api/users/me/password reports it. Runs on both engines like the rest of the suite.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  login,
  uniqueEmail,
} from '../../../test/helpers/factories.js'
import { scimClient, USER_SCHEMA, PATCH_OP } from '../../../test/helpers/scim.js'
import { completePasswordReset, createResetLinkForOperator } from '../password-reset/service.js'
import { findPasswordStatus } from './repo.js'
import { createAdministrator } from './service.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const status = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/users/me/password', headers: bearer(token) })

/** The time the test's clock shows now, for bracketing a write. */
const now = () => t.clock.now().toISOString()

/** Reads the stored status and checks it was written between `before` and now. */
async function expectChangedSince(userId: string, before: string): Promise<string> {
  const stored = await findPasswordStatus(t.deps.db, userId)
  expect(stored?.has_password).toBe(true)
  const changedAt = stored!.changed_at
  expect(changedAt).not.toBeNull()
  expect(changedAt! >= before && changedAt! <= now()).toBe(true)
  return changedAt!
}

describe('password_changed_at', () => {
  // First: setup needs an empty instance.
  it('first-run setup records it with the administrator', async () => {
    const before = now()
    const email = uniqueEmail('setup')
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { email, name: 'First', password: 'a first passphrase 1' },
    })
    expect(response.statusCode).toBe(201)
    const changedAt = await expectChangedSince(response.json().user.id, before)
    expect((await status(response.json().token)).json()).toEqual({
      has_password: true,
      changed_at: changedAt,
    })
  })

  it('the create-admin command records it; a user without a password has none', async () => {
    const before = now()
    const admin = await createAdministrator(t.deps, {
      email: uniqueEmail('cli'),
      name: 'Operator',
      password: 'an operator passphrase 2',
    })
    await expectChangedSince(admin.id, before)
    const { user } = await createUser(t, { password: null })
    expect(await findPasswordStatus(t.deps.db, user.id)).toEqual({
      has_password: false,
      changed_at: null,
    })
  })

  it('changing it moves the time forward, and GET /api/users/me/password reports it', async () => {
    const person = await createSignedInUser(t)
    const first = await expectChangedSince(person.user.id, '1970-01-01T00:00:00.000Z')
    t.clock.advance(3600)
    const before = now()
    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/users/me/password',
      headers: bearer(person.token),
      payload: { current_password: DEFAULT_PASSWORD, new_password: 'a second passphrase 3' },
    })
    expect(changed.statusCode).toBe(204)
    const second = await expectChangedSince(person.user.id, before)
    expect(second > first).toBe(true)
    expect((await status(person.token)).json()).toEqual({ has_password: true, changed_at: second })
  })

  it('a refused change leaves it as it was', async () => {
    const person = await createSignedInUser(t)
    const before = (await status(person.token)).json().changed_at
    t.clock.advance(60)
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/users/me/password',
      headers: bearer(person.token),
      payload: { current_password: 'not the password', new_password: 'a second passphrase 3' },
    })
    expect(refused.statusCode).toBe(400)
    expect((await status(person.token)).json().changed_at).toBe(before)
  })

  it('a reset link (here the CLI reset-password one) records it', async () => {
    const person = await createUser(t)
    t.clock.advance(60)
    const link = await createResetLinkForOperator(t.deps, person.email)
    const token = new URL(link!.url).searchParams.get('token')!
    const before = now()
    await completePasswordReset(
      t.deps,
      { token, new_password: 'a reset passphrase 4' },
      { ip: null, userAgent: null },
    )
    await expectChangedSince(person.user.id, before)
  })

  it("an administrator's new user and new password record it", async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const before = now()
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/users',
      headers: bearer(admin.token),
      payload: { email: uniqueEmail('made'), name: 'Made', password: 'a made passphrase 5' },
    })
    expect(created.statusCode).toBe(201)
    await expectChangedSince(created.json().id, before)

    const { user } = await createUser(t, { password: null })
    const later = now()
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${user.id}`,
      headers: bearer(admin.token),
      payload: { password: 'set by the admin 6', current_password: DEFAULT_PASSWORD },
    })
    expect(put.statusCode).toBe(200)
    await expectChangedSince(user.id, later)
  })

  it('SCIM records it when it sets a password, and not when it sends the same one again', async () => {
    const client = await scimClient(t)
    const userName = uniqueEmail('scim')
    const before = now()
    const created = await client.request('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName,
      emails: [{ value: userName, primary: true }],
      password: 'scim pass 7',
    })
    expect(created.statusCode).toBe(201)
    const id = created.json().id as string
    const first = await expectChangedSince(id, before)
    t.clock.advance(60)
    const same = await client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'password', value: 'scim pass 7' }],
    })
    expect(same.statusCode).toBe(200)
    expect((await findPasswordStatus(t.deps.db, id))?.changed_at).toBe(first)
    const later = now()
    const other = await client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'password', value: 'scim pass 8' }],
    })
    expect(other.statusCode).toBe(200)
    await expectChangedSince(id, later)
    await login(t, userName, 'scim pass 8')
  })

  it('a password set before the time was recorded reads as set, without a date', async () => {
    const person = await createSignedInUser(t)
    await t.deps.db
      .updateTable('users')
      .set({ password_changed_at: null })
      .where('id', '=', person.user.id)
      .execute()
    expect((await status(person.token)).json()).toEqual({ has_password: true, changed_at: null })
  })

  it('is an account-security read: an API token is refused', async () => {
    const person = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, person.token)
    const response = await status(token)
    expect(response.statusCode).toBe(403)
    expect(response.json().reason).toBe('SESSION_REQUIRED')
  })
})
