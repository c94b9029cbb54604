/**
 * `switchboard rotate-keys` re-encrypts the providers' client secrets: sign-in works on under the
 * new key.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { decrypt } from '../../lib/crypto.js'
import { startPeerInstance, useTestApp } from '../../../test/helpers/app.js'
import { createSignedInUser, uniqueEmail } from '../../../test/helpers/factories.js'
import {
  callbackUrlFor,
  createProvider,
  sessionTokenOf,
  signInWithOidc,
} from '../../../test/helpers/oidc-flow.js'
import { startOidcProvider, type OidcProviderStandIn } from '../../../test/helpers/oidc-provider.js'
import { OIDC_CLIENT_SECRET, scanResponsesForSecrets } from '../../../test/helpers/secret-scan.js'
import { reencryptSecrets } from '../keys/service.js'
import { ENCRYPTED_STORES } from '../../cli.js'

const t = useTestApp()
scanResponsesForSecrets(t, [OIDC_CLIENT_SECRET])

let idp: OidcProviderStandIn
beforeAll(async () => {
  idp = await startOidcProvider({ redirectUris: [callbackUrlFor('acme')], claimsInIdToken: true })
})
afterAll(async () => idp?.close())

it('rewraps every stored client secret; an instance on the new key signs in through the provider', async () => {
  const admin = await createSignedInUser(t, { isAdmin: true })
  const provider = await createProvider(t, admin.token, idp, {
    provider_key: 'acme',
    auto_create_users: true,
  })
  await createProvider(t, admin.token, idp, { provider_key: 'public-client', client_secret: null })

  const newKey = randomBytes(32)
  expect(await reencryptSecrets(t.deps, newKey, ENCRYPTED_STORES)).toMatchObject({
    oidc_client_secrets: 1,
  })
  const row = await t.deps.db
    .selectFrom('oidc_providers')
    .select('client_secret_encrypted')
    .where('id', '=', provider.id)
    .executeTakeFirstOrThrow()
  expect(
    decrypt(newKey, row.client_secret_encrypted!, `oidc_providers.client_secret:${provider.id}`),
  ).toBe(OIDC_CLIENT_SECRET)

  const peer = await startPeerInstance(t, { ENCRYPTION_KEY: newKey.toString('hex') })
  try {
    idp.accounts.set('rotated', { email: uniqueEmail('rotated'), email_verified: true })
    sessionTokenOf(
      await signInWithOidc({ ...t, app: peer.app, deps: peer.deps }, idp, 'acme', 'rotated'),
    )
  } finally {
    await peer.close()
  }
})
