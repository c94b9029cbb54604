/**
 * `switchboard rotate-keys` re-encrypts the pending invitations' tokens: their links still show
 * under the new key.
 */
import { randomBytes } from 'node:crypto'
import { expect, it } from 'vitest'
import { startPeerInstance, useTestApp } from '../../../test/helpers/app.js'
import { bearer, uniqueEmail } from '../../../test/helpers/factories.js'
import { createOrgWithRoles } from '../../../test/helpers/organizations.js'
import { reencryptSecrets } from '../keys/service.js'
import { ENCRYPTED_STORES } from '../../cli.js'

const t = useTestApp()

it('rewraps every pending invitation token; an instance on the new key lists the same links', async () => {
  const org = await createOrgWithRoles(t)
  const before = await t.app.inject({
    method: 'GET',
    url: `/api/organizations/${org.id}/invitations`,
    headers: bearer(org.owner.token),
  })
  const invited = await t.app.inject({
    method: 'POST',
    url: `/api/organizations/${org.id}/invitations`,
    headers: bearer(org.owner.token),
    payload: { email: uniqueEmail(), role: 'member' },
  })
  expect(invited.statusCode).toBe(201)
  const pending = before.json().items.length + 1

  const newKey = randomBytes(32)
  expect(await reencryptSecrets(t.deps, newKey, ENCRYPTED_STORES)).toMatchObject({
    invitation_tokens: pending,
  })
  const peer = await startPeerInstance(t, { ENCRYPTION_KEY: newKey.toString('hex') })
  try {
    const listed = await peer.app.inject({
      method: 'GET',
      url: `/api/organizations/${org.id}/invitations`,
      headers: bearer(org.owner.token),
    })
    expect(listed.json().items.find((i: { id: string }) => i.id === invited.json().id).link).toBe(
      invited.json().link,
    )
  } finally {
    await peer.close()
  }
})
