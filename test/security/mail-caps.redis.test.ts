/** Mail caps with REDIS_URL: the per-recipient mail cap is one count for every instance. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import { bearer, createSignedInUser, uniqueEmail, withAdminProof } from '../helpers/factories.js'
import { createOrganization } from '../helpers/organizations.js'
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-server.js'

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

describe('mail caps shared through Redis', () => {
  const t = useTestApp({ env: { REDIS_URL: redisUrl, RATE_LIMIT_GENERAL: '0' } })
  let smtp: SmtpStandIn
  beforeAll(async () => {
    smtp = await startSmtpStandIn()
  })
  afterAll(async () => smtp?.close())

  it('two instances: two invitations on one, one on the other, the fourth is 429 RECIPIENT_MAIL_LIMIT on both', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const smtpSettings = {
      enabled: true,
      host: smtp.host,
      port: smtp.port,
      secure: false,
      from_address: 'switchboard@example.com',
      from_name: 'Switchboard',
    }
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: '/api/admin/settings/smtp',
          headers: bearer(admin.token),
          payload: withAdminProof(smtpSettings),
        })
      ).statusCode,
    ).toBe(200)
    const peer = await startPeerInstance(t)
    try {
      // Redis outlives test runs and is shared by both engines' runs: an address of this run's own.
      const target = uniqueEmail('shared')
      const owner = await createSignedInUser(t)
      const orgs = await Promise.all([1, 2, 3, 4].map(() => createOrganization(t, owner.token)))
      const invite = (app: typeof t.app, orgId: string) =>
        app.inject({
          method: 'POST',
          url: `/api/organizations/${orgId}/invitations`,
          headers: bearer(owner.token),
          payload: { email: target, role: 'member' },
        })
      expect((await invite(t.app, orgs[0]!.id)).statusCode).toBe(201)
      expect((await invite(t.app, orgs[1]!.id)).statusCode).toBe(201)
      expect((await invite(peer.app, orgs[2]!.id)).statusCode).toBe(201)
      expectReason(await invite(peer.app, orgs[3]!.id), 429, 'RECIPIENT_MAIL_LIMIT')
      expectReason(await invite(t.app, orgs[3]!.id), 429, 'RECIPIENT_MAIL_LIMIT')
      expect(smtp.received.filter((mail) => mail.to.includes(target))).toHaveLength(3)
    } finally {
      await peer.close()
    }
  })
})
