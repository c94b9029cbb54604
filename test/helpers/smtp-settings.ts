/**
 * Points the instance at the SMTP stand-in as an administrator would: a session with the
 * administrator's proof (the SMTP server is credential-equivalent), the stand-in's credentials,
 * plain authentication allowed on loopback.
 */
import { expect } from 'vitest'
import type { TestContext } from './app.js'
import { bearer, createSignedInUser, DEFAULT_PASSWORD } from './factories.js'
import { SMTP_PASSWORD, SMTP_USERNAME } from './secret-scan.js'
import type { SmtpStandIn } from './smtp-server.js'

export async function useSmtpStandIn(t: TestContext, smtp: SmtpStandIn): Promise<void> {
  const admin = await createSignedInUser(t, { isAdmin: true })
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(admin.token),
    payload: {
      enabled: true,
      host: smtp.host,
      port: smtp.port,
      username: SMTP_USERNAME,
      password: SMTP_PASSWORD,
      plaintext_auth_on_loopback: true,
      from_address: 'no-reply@example.com',
      current_password: DEFAULT_PASSWORD,
    },
  })
  expect(response.statusCode, response.body).toBe(200)
}
