/**
 * A flood of SCIM requests without a valid credential (anyone on the network can send them) and
 * the shared request log (requests.service.ts): at most UNAUTHENTICATED_PER_MINUTE of them are
 * written per minute, they are kept in a ring of their own of UNAUTHENTICATED_KEPT rows, so the
 * table stays bounded and the credentialed requests an administrator looks for are never evicted
 * — and the per-IP limit on failed authentication still answers 429 as a SCIM Error with
 * Retry-After.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer } from '../../../test/helpers/factories.js'
import { expectScimError, scimClient } from '../../../test/helpers/scim.js'
import { UNAUTHENTICATED_KEPT, UNAUTHENTICATED_PER_MINUTE } from './requests.service.js'

const GENERAL_LIMIT = 20
const t = useTestApp({ env: { RATE_LIMIT_GENERAL: String(GENERAL_LIMIT) } })

/** The log's written rows. */
async function rows(): Promise<
  Array<{ credential_id: string | null; status: number | null; path: string | null }>
> {
  return t.deps.db
    .selectFrom('scim_requests')
    .select(['credential_id', 'status', 'path'])
    .where('created_at', 'is not', null)
    .execute()
}

/** The log is written after each answer: wait until every write of the burst has happened. */
async function settled(): Promise<void> {
  let last = -1
  await expect
    .poll(
      async () => {
        const now = (await rows()).length
        const stable = now === last
        last = now
        return stable
      },
      { interval: 200, timeout: 10_000 },
    )
    .toBe(true)
}

describe('SCIM requests without a valid credential, in a flood', () => {
  it('leave the request log bounded and the credentialed requests in it; the per-IP limit answers 429 as a SCIM error', async () => {
    const client = await scimClient(t)
    for (const path of ['/ServiceProviderConfig', '/ResourceTypes', '/Schemas'])
      expect((await client.request('GET', path)).statusCode).toBe(200)
    await settled()

    // One address, many wrong tokens at once: the first GENERAL_LIMIT are 401, the rest 429.
    const flood = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        t.app.inject({
          method: 'GET',
          url: `/scim/v2/Users?n=${i}`,
          headers: bearer(`scim_${'x'.repeat(42)}${i % 10}`),
          remoteAddress: '203.0.113.7',
        }),
      ),
    )
    const statuses = flood.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 401)).toHaveLength(GENERAL_LIMIT)
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - GENERAL_LIMIT)
    for (const response of flood) {
      expectScimError(response, response.statusCode)
      if (response.statusCode === 429)
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0)
    }
    // Many addresses (no per-IP limit reached), no Authorization at all.
    const spread = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/scim/v2/Users',
          remoteAddress: `198.51.100.${i + 1}`,
        }),
      ),
    )
    for (const response of spread) expectScimError(response, 401)
    await settled()

    const logged = await rows()
    const anonymous = logged.filter((r) => r.credential_id === null)
    expect(anonymous.length).toBeGreaterThan(0)
    expect(anonymous.length).toBeLessThanOrEqual(
      Math.min(UNAUTHENTICATED_PER_MINUTE, UNAUTHENTICATED_KEPT),
    )
    // The provider's own requests are all still there, and shown.
    expect(
      logged
        .filter((r) => r.credential_id === client.credentialId)
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/scim/v2/ResourceTypes', '/scim/v2/Schemas', '/scim/v2/ServiceProviderConfig'])
    const shown = await t.app.inject({
      method: 'GET',
      url: '/api/admin/scim/requests',
      headers: bearer(client.adminToken),
    })
    expect(
      shown
        .json()
        .items.filter(
          (r: { credential_id: string | null }) => r.credential_id === client.credentialId,
        ),
    ).toHaveLength(3)

    // A credentialed request still answers (the flood spent only its addresses' budget) and is
    // logged.
    expect((await client.request('GET', '/ServiceProviderConfig')).statusCode).toBe(200)
    await expect
      .poll(
        async () => (await rows()).filter((r) => r.credential_id === client.credentialId).length,
      )
      .toBe(4)
  })
})
