/**
 * A reset link stops working when the account's credentials change after it was made: a password
 * change, an email change once verified, a second factor enabled or removed, new backup codes, the
 * account disabled by an administrator or deprovisioned by SCIM. A password change racing the use
 * of a link: exactly one of the two sets the password, never both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  uniqueEmail,
} from '../../../test/helpers/factories.js'
import { authenticatorFor, registerPasskey } from '../../../test/helpers/passkeys.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'
import { scimClient, USER_SCHEMA, PATCH_OP } from '../../../test/helpers/scim.js'
import { SMTP_PASSWORD, SMTP_USERNAME } from '../../../test/helpers/secret-scan.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'
import { useSmtpStandIn } from '../../../test/helpers/smtp-settings.js'
import { createResetLinkForOperator } from './service.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

let smtp: SmtpStandIn
let ipCounter = 0
/** A fresh client address per call, so the per-IP limit of the public routes decides nothing. */
const freshIp = () => `192.0.2.${++ipCounter % 250}`
beforeAll(async () => {
  smtp = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
  })
})
afterAll(async () => {
  await smtp?.close()
})

const RESET_PASSWORD = 'the reset link passphrase 1'
const CHANGED_PASSWORD = 'the owner changed passphrase 2'

/** A handed-over link (24 h) for the account: its token. */
async function resetTokenFor(email: string): Promise<string> {
  const link = await createResetLinkForOperator(t.deps, email)
  return new URL(link!.url).searchParams.get('token')!
}
const complete = (token: string, password = RESET_PASSWORD) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset/complete',
    payload: { token, new_password: password },
    remoteAddress: freshIp(),
  })
const inspect = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset/inspect',
    payload: { token },
    remoteAddress: freshIp(),
  })
const post = (token: string, url: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: bearer(token), payload })

async function expectLinkRefused(token: string): Promise<void> {
  const inspected = await inspect(token)
  expect(inspected.statusCode).toBe(400)
  expect(inspected.json().reason).toBe('RESET_LINK_INVALID')
  const used = await complete(token)
  expect(used.statusCode).toBe(400)
  expect(used.json().reason).toBe('RESET_LINK_INVALID')
}

describe('a credential change ends the reset links made before it', () => {
  it('a link made before the account still works when nothing changed (the control)', async () => {
    const alice = await createSignedInUser(t)
    const token = await resetTokenFor(alice.email)
    expect((await complete(token)).statusCode).toBe(200)
  })

  it('password change → the link is refused, and the changed password stays', async () => {
    const alice = await createSignedInUser(t)
    const token = await resetTokenFor(alice.email)
    const changed = await post(alice.token, '/api/users/me/password', {
      current_password: DEFAULT_PASSWORD,
      new_password: CHANGED_PASSWORD,
    })
    expect(changed.statusCode).toBe(204)
    await expectLinkRefused(token)
    await login(t, alice.email, CHANGED_PASSWORD)
  })

  it('email change, verified → the link (in the old mailbox) is refused', async () => {
    await useSmtpStandIn(t, smtp)
    const alice = await createSignedInUser(t)
    const token = await resetTokenFor(alice.email)
    const newEmail = uniqueEmail('alice.moved')
    const asked = await post(alice.token, '/api/users/me/email', {
      email: newEmail,
      password: DEFAULT_PASSWORD,
    })
    expect(asked.statusCode).toBe(202)
    // Only asking changes nothing yet: the old address is still the account's.
    expect((await inspect(token)).statusCode).toBe(200)
    const mail = smtp.received.filter((m) => m.to.includes(newEmail)).at(-1)!
    const verification = /verify-email\?token=([A-Za-z0-9_-]+)/.exec(textOf(mail))![1]!
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/users/email/verify',
      payload: { token: verification },
    })
    expect(verified.statusCode).toBe(200)
    await expectLinkRefused(token)
    await login(t, newEmail, DEFAULT_PASSWORD)
  })

  it('TOTP enabled → refused; backup codes regenerated → refused; TOTP disabled → refused', async () => {
    const alice = await createSignedInUser(t)
    const beforeEnable = await resetTokenFor(alice.email)
    const { secret } = await enableMfa(t, alice)
    await expectLinkRefused(beforeEnable)

    const beforeRegenerate = await resetTokenFor(alice.email)
    const regenerated = await post(alice.token, '/api/auth/mfa/backup/regenerate', {
      password: DEFAULT_PASSWORD,
      code: totpCode(secret, t.clock.now()),
    })
    expect(regenerated.statusCode).toBe(200)
    await expectLinkRefused(beforeRegenerate)
    t.clock.advance(30)

    const beforeDisable = await resetTokenFor(alice.email)
    const disabled = await post(alice.token, '/api/auth/mfa/disable', {
      password: DEFAULT_PASSWORD,
      code: totpCode(secret, t.clock.now()),
    })
    expect(disabled.statusCode).toBe(204)
    await expectLinkRefused(beforeDisable)
  })

  it('passkey added → refused; passkey removed → refused', async () => {
    const alice = await createSignedInUser(t)
    const beforeAdd = await resetTokenFor(alice.email)
    const id = await registerPasskey(t, alice, authenticatorFor(t))
    await expectLinkRefused(beforeAdd)

    const beforeRemove = await resetTokenFor(alice.email)
    // Inside the sign-in's re-authentication window: the password is the only proof asked.
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/passkeys/${id}`,
      headers: bearer(alice.token),
      payload: { password: DEFAULT_PASSWORD },
    })
    expect(removed.statusCode).toBe(204)
    await expectLinkRefused(beforeRemove)
  })

  it('disabled by an administrator → refused, and re-enabling does not revive it', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const bob = await createSignedInUser(t)
    const token = await resetTokenFor(bob.email)
    const put = (disabled: boolean) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/admin/users/${bob.user.id}`,
        headers: bearer(admin.token),
        payload: { disabled, current_password: DEFAULT_PASSWORD },
      })
    expect((await put(true)).statusCode).toBe(200)
    expect((await put(false)).statusCode).toBe(200)
    await expectLinkRefused(token)
  })

  it('deprovisioned by SCIM (active false) → refused', async () => {
    const scim = await scimClient(t)
    const email = uniqueEmail('carol')
    const created = await scim.request('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: email,
      name: { givenName: 'Carol', familyName: 'Example' },
      emails: [{ value: email, primary: true }],
      active: true,
    })
    expect(created.statusCode).toBe(201)
    const token = await resetTokenFor(email)
    expect((await inspect(token)).statusCode).toBe(200)
    const patched = await scim.request('PATCH', `/Users/${created.json().id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    })
    expect(patched.statusCode).toBe(200)
    await expectLinkRefused(token)
    const rows = await t.deps.db
      .selectFrom('password_resets')
      .select('id')
      .where('user_id', '=', created.json().id)
      .execute()
    expect(rows).toEqual([])
  })
})

describe('a password change racing the use of a reset link', () => {
  it('exactly one of the two sets the password, every round', async () => {
    for (let round = 0; round < 6; round++) {
      const alice = await createSignedInUser(t)
      const token = await resetTokenFor(alice.email)
      const [changed, reset] = await Promise.all([
        post(alice.token, '/api/users/me/password', {
          current_password: DEFAULT_PASSWORD,
          new_password: CHANGED_PASSWORD,
        }),
        complete(token),
      ])
      const statuses = [changed.statusCode, reset.statusCode].sort()
      expect(
        statuses.filter((s) => s < 300),
        `round ${round}: ${statuses.join(', ')}`,
      ).toHaveLength(1)
      expect([401, 400]).toContain(statuses[1])
      const winner = changed.statusCode === 204 ? CHANGED_PASSWORD : RESET_PASSWORD
      const loser = winner === CHANGED_PASSWORD ? RESET_PASSWORD : CHANGED_PASSWORD
      await login(t, alice.email, winner)
      await expect(login(t, alice.email, loser)).rejects.toThrow('login failed: 401')
    }
  })
})
