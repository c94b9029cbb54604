/**
 * Deprovisioning across instances: a user deactivated through SCIM on one instance is
 * refused at the next request on another instance sharing the database — its session and its API
 * token both answer 401 there, with no cache to wait out.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp, type PeerInstance } from '../../../test/helpers/app.js'
import { bearer, createApiTokenFor, createSignedInUser } from '../../../test/helpers/factories.js'
import { PATCH_OP, scimClient } from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let peer: PeerInstance | undefined

afterAll(async () => {
  await peer?.close()
})

describe('deprovisioning on two instances', () => {
  it('active:false on instance A: the session and the API token answer 401 at the next request on instance B', async () => {
    peer = await startPeerInstance(t)
    const client = await scimClient(t)
    const person = await createSignedInUser(t)
    const token = await createApiTokenFor(t, person.token)
    const onPeer = (credential: string) =>
      peer!.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(credential) })
    // Both credentials are in use on the peer first, so anything it keeps about them is warm.
    expect((await onPeer(person.token)).statusCode).toBe(200)
    expect((await onPeer(token.token)).statusCode).toBe(200)
    const response = await client.request('PATCH', `/Users/${person.user.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    })
    expect(response.statusCode).toBe(200)
    expect((await onPeer(person.token)).statusCode).toBe(401)
    expect((await onPeer(token.token)).statusCode).toBe(401)
  })
})
