/**
 * Removing a team from a collection drops its members' tags on the collection's links; it locks
 * the collection, then those links in id order, first (PostgreSQL), as every writer of several
 * links does (db/row-locks.ts): a link locked by another writer makes it wait, not interleave.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { requestAs, type SignedIn, type TestUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { raceAgainst, shareLockOnLink } from '../../../test/helpers/row-locks.js'
import { createTeamWithPeople } from '../../../test/helpers/teams.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let owner: TestUser & SignedIn
let team: { id: string }

beforeAll(async () => {
  let people: Array<TestUser & SignedIn>
  ;({ people, team } = await createTeamWithPeople(t, { count: 1, members: [0] }))
  owner = people[0]!
})

describe('removing a team from a collection', () => {
  it('waits for a lock another writer holds on one of its links', async () => {
    const created = await requestAs(t, owner, 'POST', '/api/collections', {
      name: 'Locked',
      team_ids: [team.id],
    })
    const id: string = created.json().id
    const links = [
      await createLink(t, owner.token, { url: 'https://locked-a.example/' }),
      await createLink(t, owner.token, { url: 'https://locked-b.example/' }),
    ].map((link) => link.id)
    const put = await requestAs(t, owner, 'PUT', `/api/collections/${id}/links`, {
      link_ids: links,
    })
    expect(put.statusCode).toBe(200)
    const holder = shareLockOnLink(t.deps.db, links[1]!)
    const { waited, answer } = await raceAgainst(holder, () =>
      requestAs(t, owner, 'PATCH', `/api/collections/${id}`, { team_ids: [] }),
    )
    expect(waited).toBe(true)
    expect(answer.statusCode).toBe(200)
    expect(answer.json().team_ids).toEqual([])
  })
})
