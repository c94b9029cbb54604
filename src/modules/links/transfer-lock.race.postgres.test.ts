/**
 * Two transfers of one link at once, on PostgreSQL where they run side by side: the second reads
 * the link only once the first has committed (the transfer locks the link before it reads it),
 * so it checks the caller's right against the link's new owner and audits where the link really
 * came from. Read before the lock, both would check and audit the link's first owner.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  createSignedInUser,
  requestAs,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, linkTransfers } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'
import { holdOpen, raceAgainst } from '../../../test/helpers/row-locks.js'
import { lockLinksInIdOrder } from './repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let alice: TestUser & SignedIn
let bob: TestUser & SignedIn
let orgA: string
let orgB: string

beforeAll(async () => {
  ;[alice, bob] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
  orgA = (await createOrganization(t, alice.token)).id
  orgB = (await createOrganization(t, bob.token)).id
  // Bob may share into both organizations; in orgA he is a plain member, who may not move an
  // organization's link out of it.
  await addOrgMember(t, alice.token, orgA, bob, 'member')
})

describe('two transfers of one link at once', () => {
  it('the second sees the first’s new owner: it checks its right against it and audits it', async () => {
    // Bob's own link, given to orgA and to orgB at once while another writer holds it.
    const link = await createLink(t, bob.token, { url: 'https://race-transfer.example/' })
    const holder = holdOpen(t.deps.db, (tx) => lockLinksInIdOrder(tx, [link.id]))
    const { waited, answer } = await raceAgainst(holder, () =>
      Promise.all(
        [orgA, orgB].map((organization) =>
          requestAs(t, bob, 'POST', `/api/links/${link.id}/transfer`, {
            organization_id: organization,
          }),
        ),
      ),
    )
    expect(waited).toBe(true)
    // Whichever gets the lock first moves the link; the other then finds it in that organization.
    // Into orgB (Bob's own) and then out of it would be allowed, into orgA and out again is not:
    // so either both moves happen in that order, or one is refused.
    const statuses = answer.map((response) => response.statusCode)
    const stored = await t.deps.db
      .selectFrom('links')
      .select(['user_id', 'organization_id'])
      .where('id', '=', link.id)
      .executeTakeFirstOrThrow()
    const personal = { user_id: bob.user.id }
    if (statuses[0] === 200 && statuses[1] === 200) {
      // orgB first (Bob owns it), then orgB → orgA.
      expect(stored).toEqual({ user_id: null, organization_id: orgA })
      expect(await linkTransfers(t, link.id)).toEqual([
        [bob.user.id, personal, { organization_id: orgB }],
        [bob.user.id, { organization_id: orgB }, { organization_id: orgA }],
      ])
    } else {
      // orgA first; then Bob, a plain member there, may not move it to orgB.
      expect(statuses).toEqual([200, 403])
      expect(answer[1]!.json().reason).toBe('FORBIDDEN')
      expect(stored).toEqual({ user_id: null, organization_id: orgA })
      expect(await linkTransfers(t, link.id)).toEqual([
        [bob.user.id, personal, { organization_id: orgA }],
      ])
    }
  })
})
