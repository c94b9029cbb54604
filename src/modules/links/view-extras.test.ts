/**
 * What a link view adds to the link's row, read for a whole page at once (view-extras.repo.ts):
 * each reader's own tags by name ignoring case, the last 30 days' clicks, the teams the link is
 * shared with by name, the reader's teams that see it (shared directly or by a collection, each
 * named once) and the reader's pins — the same on a page, on its own and for another reader.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { requestAs, type SignedIn, type TestUser } from '../../../test/helpers/factories.js'
import { createLink, createTag, type LinkJson } from '../../../test/helpers/links.js'
import { addTeamMember, createTeam, createTeamWithPeople } from '../../../test/helpers/teams.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let owner: TestUser & SignedIn
let reader: TestUser & SignedIn
const teams: Record<string, { id: string; name: string }> = {}
let links: LinkJson[]
const tags: Record<string, string> = {}

const call = (user: SignedIn, method: 'GET' | 'POST' | 'PUT', url: string, body?: object) =>
  requestAs(t, user, method, url, body)

function daysAgo(days: number): string {
  return new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
}

beforeAll(async () => {
  const {
    admin,
    people,
    team: first,
  } = await createTeamWithPeople(t, {
    count: 2,
    members: [0, 1],
    name: 'platform ops',
  })
  ;[owner, reader] = people as [TestUser & SignedIn, TestUser & SignedIn]
  teams.platform = first
  for (const name of ['Zeta', 'alpha', 'Beta crew']) {
    const team = await createTeam(t, admin.token, name)
    for (const person of [owner, reader])
      await addTeamMember(t, admin.token, team.id, person.user.id)
    teams[name] = team
  }
  const shared = [teams.Zeta!.id, teams.platform.id, teams.alpha!.id]
  const one = await createLink(t, owner.token, { url: 'https://one.example/', team_ids: shared })
  const two = await createLink(t, owner.token, { url: 'https://two.example/', team_ids: shared })
  const three = await createLink(t, reader.token, { url: 'https://three.example/' })
  links = [one, two, three]
  // `one` is also in a collection shared with alpha, and `two` in one shared with Beta crew only.
  for (const [team, link] of [
    ['alpha', one],
    ['Beta crew', two],
  ] as const) {
    const collection = await call(owner, 'POST', '/api/collections', {
      name: `For ${team}`,
      team_ids: [teams[team]!.id],
    })
    const put = await call(owner, 'PUT', `/api/collections/${collection.json().id}/links`, {
      link_ids: [link.id],
    })
    expect(put.statusCode).toBe(200)
  }
  // Tagged in another order than their names'; the owner's tag is the owner's alone.
  const tagging: Array<[SignedIn, string, string[]]> = [
    [reader, 'gamma', [one.id]],
    [reader, 'beta', [one.id, three.id]],
    [reader, 'Alpha', [one.id]],
    [owner, 'Mine', [one.id]],
  ]
  for (const [person, name, linkIds] of tagging) {
    tags[name] = (await createTag(t, person.token, name)).id
    const added = await call(person, 'POST', '/api/links/bulk', {
      action: 'add_tag',
      tag_id: tags[name],
      link_ids: linkIds,
    })
    expect(added.statusCode).toBe(200)
  }
  expect((await call(reader, 'PUT', `/api/links/${two.id}/pin`)).statusCode).toBe(204)
  await t.deps.db
    .insertInto('link_clicks')
    .values([
      { link_id: one.id, day: daysAgo(0), clicks: 2 },
      { link_id: one.id, day: daysAgo(29), clicks: 5 },
      { link_id: one.id, day: daysAgo(30), clicks: 7 },
      { link_id: two.id, day: daysAgo(40), clicks: 3 },
    ])
    .execute()
})

describe('a page of links with their extras', () => {
  it('shows each reader their own tags, pins and teams, in order, on the page and alone', async () => {
    const [one, two, three] = links as [LinkJson, LinkJson, LinkJson]
    const page = (await call(reader, 'GET', '/api/links?limit=50')).json<{ items: LinkJson[] }>()
    const teamNames = ['alpha', 'platform ops', 'Zeta']
    const sharedIds = [teams.alpha!.id, teams.platform!.id, teams.Zeta!.id]
    expect(page.items.map((item) => item.id)).toEqual([three.id, two.id, one.id])
    const [third, second, first] = page.items as [LinkJson, LinkJson, LinkJson]
    expect(first).toMatchObject({
      tag_ids: [tags.Alpha, tags.beta, tags.gamma],
      clicks_30d: 7,
      team_ids: sharedIds,
      shared_via: { organization: null, teams: teamNames },
      pinned: false,
      can_change: false,
    })
    expect(second).toMatchObject({
      tag_ids: [],
      clicks_30d: 0,
      team_ids: sharedIds,
      shared_via: { organization: null, teams: ['alpha', 'Beta crew', 'platform ops', 'Zeta'] },
      pinned: true,
    })
    expect(third).toMatchObject({
      tag_ids: [tags.beta],
      clicks_30d: 0,
      team_ids: [],
      shared_via: null,
      pinned: false,
      can_change: true,
    })
    for (const item of page.items)
      expect((await call(reader, 'GET', `/api/links/${item.id}`)).json()).toEqual(item)
  })

  it('shows the owner their own tags and no pins on the same links', async () => {
    const [one] = links as [LinkJson]
    const page = (await call(owner, 'GET', '/api/links?q=one.example')).json<{
      items: LinkJson[]
    }>()
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({
      id: one.id,
      tag_ids: [tags.Mine],
      clicks_30d: 7,
      shared_via: null,
      pinned: false,
      can_change: true,
    })
  })
})
