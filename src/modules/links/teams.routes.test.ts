/**
 * Links shared with teams (docs/API.md#links): members see them everywhere, read-only; only the
 * teams one is in (any, for an administrator) may be added; a membership change counts at the next
 * request; sharing is audited and in the owner's activity. And pins, per person.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  requestAs,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, tagAll, tagOwnersOn, type LinkJson } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'
import {
  addTeamMember,
  createTeam,
  createTeamWithPeople,
  removeTeamMember,
} from '../../../test/helpers/teams.js'
import { visibleTo } from './visibility.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let admin: TestUser & SignedIn
let owner: TestUser & SignedIn
let member: TestUser & SignedIn
let outsider: TestUser & SignedIn
let team: { id: string; name: string }
let otherTeam: { id: string; name: string }

beforeAll(async () => {
  let people: Array<TestUser & SignedIn>
  ;({ admin, people, team } = await createTeamWithPeople(t, {
    count: 3,
    members: [0, 1],
    name: 'Platform',
  }))
  ;[owner, member, outsider] = people as [
    TestUser & SignedIn,
    TestUser & SignedIn,
    TestUser & SignedIn,
  ]
  otherTeam = await createTeam(t, admin.token, 'Support')
})

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'
const call = (user: SignedIn, method: Method, url: string, payload?: object) =>
  requestAs(t, user, method, `/api/links${url}`, payload)
const ids = (response: { json(): { items: Array<{ id: string }> } }) =>
  response.json().items.map((item) => item.id)
const go = (user: SignedIn, slug: string) =>
  t.app.inject({ method: 'GET', url: `/go/${slug}`, headers: bearer(user.token) })

describe('sharing a link with teams', () => {
  let link: LinkJson
  beforeAll(async () => {
    link = await createLink(t, owner.token, {
      url: 'https://runbook.example/',
      slug: 'runbook',
      team_ids: [team.id],
    })
  })

  it('shows it to the team, read-only, in the list, the link, the search and /go', async () => {
    expect(link.team_ids).toEqual([team.id])
    expect(link.shared_via).toBeNull()
    expect(link.can_change).toBe(true)
    const seen = await call(member, 'GET', `/${link.id}`)
    expect(seen.statusCode).toBe(200)
    expect(seen.json()).toMatchObject({
      can_change: false,
      team_ids: [team.id],
      shared_via: { organization: null, teams: ['Platform'] },
    })
    expect(ids(await call(member, 'GET', ''))).toContain(link.id)
    expect(ids(await call(member, 'GET', '?q=runbook'))).toEqual([link.id])
    expect(ids(await call(member, 'GET', '?scope=shared'))).toEqual([link.id])
    expect((await go(member, 'runbook')).headers.location).toBe('https://runbook.example/')
    expectReason(await call(member, 'PATCH', `/${link.id}`, { title: 'Mine' }), 403, 'FORBIDDEN')
    expectReason(await call(member, 'DELETE', `/${link.id}`), 403, 'FORBIDDEN')

    expectReason(await call(outsider, 'GET', `/${link.id}`), 404, 'NOT_FOUND')
    expect(ids(await call(outsider, 'GET', '?q=runbook'))).toEqual([])
    expect((await go(outsider, 'runbook')).statusCode).toBe(404)
  })

  it('follows a slug change at /go for the team', async () => {
    const renamed = await createLink(t, owner.token, {
      url: 'https://old-name.example/',
      slug: 'old-name',
      team_ids: [team.id],
    })
    expect((await call(owner, 'PATCH', `/${renamed.id}`, { slug: 'new-name' })).statusCode).toBe(
      200,
    )
    expect((await go(member, 'new-name')).headers.location).toBe('https://old-name.example/')
    expect((await go(member, 'old-name')).statusCode).toBe(404)
  })

  it('lets a person add only their own teams (404 otherwise); an administrator any team', async () => {
    const refused = await call(owner, 'POST', '', {
      url: 'https://other.example/',
      team_ids: [otherTeam.id],
    })
    expectReason(refused, 404, 'NOT_FOUND')
    expect(refused.json().details).toBe('team_ids')
    expectReason(
      await call(owner, 'PATCH', `/${link.id}`, { team_ids: [team.id, 'no-such-team'] }),
      404,
      'NOT_FOUND',
    )
    const own = await createLink(t, admin.token, { url: 'https://admin.example/' })
    const shared = await call(admin, 'PATCH', `/${own.id}`, { team_ids: [otherTeam.id] })
    expect(shared.json().team_ids).toEqual([otherTeam.id])
  })

  it('hides the links of a team at the next request after leaving it', async () => {
    const leaver = await createSignedInUser(t)
    await addTeamMember(t, admin.token, team.id, leaver.user.id)
    expect((await call(leaver, 'GET', `/${link.id}`)).statusCode).toBe(200)
    expect((await go(leaver, 'runbook')).statusCode).toBe(302)
    await removeTeamMember(t, admin.token, team.id, leaver.user.id)
    expect((await call(leaver, 'GET', `/${link.id}`)).statusCode).toBe(404)
    expect(ids(await call(leaver, 'GET', ''))).not.toContain(link.id)
    expect((await go(leaver, 'runbook')).statusCode).toBe(404)
  })

  it('opens a team’s link at the next redirect after joining one’s first team', async () => {
    const joiner = await createSignedInUser(t)
    // In no team yet: the redirect reads no team shares
    // (docs/decisions/0043-go-team-shares-only-for-team-members.md).
    expect((await go(joiner, 'runbook')).statusCode).toBe(404)
    await addTeamMember(t, admin.token, team.id, joiner.user.id)
    expect((await go(joiner, 'runbook')).headers.location).toBe(link.url)
    await removeTeamMember(t, admin.token, team.id, joiner.user.id)
    expect((await go(joiner, 'runbook')).statusCode).toBe(404)
  })

  it("audits sharing and unsharing, naming the teams, in the owner's activity", async () => {
    const audited = await createLink(t, owner.token, { url: 'https://audited.example/' })
    await call(owner, 'PATCH', `/${audited.id}`, { team_ids: [team.id] })
    const unshared = await call(owner, 'PATCH', `/${audited.id}`, { team_ids: [] })
    expect(unshared.json().team_ids).toEqual([])
    expect((await call(member, 'GET', `/${audited.id}`)).statusCode).toBe(404)
    const events = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/security-events',
      headers: bearer(owner.token),
    })
    expect(
      events
        .json()
        .items.filter((e: { action: string }) => e.action.startsWith('link.'))
        .map((e: { action: string; name: string }) => [e.action, e.name]),
    ).toEqual(
      expect.arrayContaining([
        ['link.unshare', 'Platform'],
        ['link.share', 'Platform'],
      ]),
    )
    const rows = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', audited.id)
      .orderBy('id')
      .execute()
    expect(rows.map((row) => [row.action, JSON.parse(row.metadata).team_ids])).toEqual([
      ['link.share', [team.id]],
      ['link.unshare', [team.id]],
    ])
  })
})

describe('unsharing from a team', () => {
  let teams: Array<{ id: string }>
  let gone: TestUser & SignedIn
  let both: TestUser & SignedIn
  let inOrg: TestUser & SignedIn
  let viaCollection: TestUser & SignedIn
  beforeAll(async () => {
    teams = []
    for (let n = 0; n < 3; n += 1) teams.push(await createTeam(t, admin.token))
    ;[gone, both, inOrg, viaCollection] = await Promise.all([
      createSignedInUser(t),
      createSignedInUser(t),
      createSignedInUser(t),
      createSignedInUser(t),
    ])
    const [first, second, third] = teams.map((team) => team.id) as [string, string, string]
    const memberships: Array<[string, Array<TestUser & SignedIn>]> = [
      [first, [owner, gone, both, inOrg, viaCollection]],
      [second, [owner, both]],
      [third, [owner, viaCollection]],
    ]
    for (const [teamId, people] of memberships)
      for (const person of people) await addTeamMember(t, admin.token, teamId, person.user.id)
  })

  it('takes the tags of the removed team’s members who no longer see the link off it', async () => {
    const [first, second, third] = teams.map((team) => team.id) as [string, string, string]
    const org = (await createOrganization(t, owner.token)).id
    await addOrgMember(t, owner.token, org, inOrg, 'member')
    const link = await createLink(t, owner.token, {
      url: 'https://unshared.example/',
      organization_id: org,
      team_ids: [first, second],
    })
    const collection = await requestAs(t, owner, 'POST', '/api/collections', {
      name: 'Third team',
      organization_id: org,
      team_ids: [third],
    })
    expect(collection.statusCode).toBe(201)
    const put = await requestAs(t, owner, 'PUT', `/api/collections/${collection.json().id}/links`, {
      link_ids: [link.id],
    })
    expect(put.statusCode).toBe(200)
    await tagAll(t, [owner, gone, both, inOrg, viaCollection], [link.id])
    const unshared = await call(owner, 'PATCH', `/${link.id}`, { team_ids: [second] })
    expect(unshared.statusCode).toBe(200)
    expect((await call(gone, 'GET', `/${link.id}`)).statusCode).toBe(404)
    // The others see it still: through the second team, the organization, the third team's
    // collection (and the owner as the organization's).
    expect(await tagOwnersOn(t, link.id)).toEqual(
      [owner, both, inOrg, viaCollection].map((person) => person.user.id).sort(),
    )
    const audited = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', link.id)
      .where('action', '=', 'link.unshare')
      .execute()
    expect(audited.map((row) => JSON.parse(row.metadata).team_ids)).toEqual([[first]])
  })

  it('takes them off the links of a collection whose team is removed, too', async () => {
    const [first, second, third] = teams.map((team) => team.id) as [string, string, string]
    const [direct, only] = await Promise.all([
      createLink(t, owner.token, { url: 'https://in-collection.example/', team_ids: [second] }),
      createLink(t, owner.token, { url: 'https://only-collection.example/' }),
    ])
    const collection = async (teamIds: string[], links: string[]) => {
      const created = await requestAs(t, owner, 'POST', '/api/collections', {
        name: 'Shared',
        team_ids: teamIds,
      })
      expect(created.statusCode).toBe(201)
      const id: string = created.json().id
      const put = await requestAs(t, owner, 'PUT', `/api/collections/${id}/links`, {
        link_ids: links,
      })
      expect(put.statusCode).toBe(200)
      return id
    }
    const unsharing = await collection([first], [direct.id, only.id])
    await collection([third], [only.id])
    await tagAll(t, [owner, gone, both, viaCollection], [direct.id, only.id])
    const updated = await requestAs(t, owner, 'PATCH', `/api/collections/${unsharing}`, {
      team_ids: [],
    })
    expect(updated.statusCode).toBe(200)
    expect(updated.json().team_ids).toEqual([])
    // `direct` stays shared with the second team, `only` is in the third team's collection.
    const ids = (people: Array<TestUser & SignedIn>) => people.map((p) => p.user.id).sort()
    expect(await tagOwnersOn(t, direct.id)).toEqual(ids([owner, both]))
    expect(await tagOwnersOn(t, only.id)).toEqual(ids([owner, viaCollection]))
    const audited = await t.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', unsharing)
      .orderBy('id')
      .execute()
    expect(audited.map((row) => row.action)).toEqual(['collection.share', 'collection.unshare'])
  })
})

describe('pins', () => {
  it('pins a link for the caller alone; ?pinned=true lists them', async () => {
    const shared = await createLink(t, owner.token, {
      url: 'https://pinned.example/',
      team_ids: [team.id],
    })
    const put = await call(member, 'PUT', `/${shared.id}/pin`)
    expect(put.statusCode).toBe(204)
    expect((await call(member, 'PUT', `/${shared.id}/pin`)).statusCode).toBe(204)
    expect((await call(member, 'GET', `/${shared.id}`)).json().pinned).toBe(true)
    expect((await call(owner, 'GET', `/${shared.id}`)).json().pinned).toBe(false)
    expect(ids(await call(member, 'GET', '?pinned=true'))).toEqual([shared.id])
    expect(ids(await call(member, 'GET', '?pinned=false'))).not.toContain(shared.id)
    expect(ids(await call(owner, 'GET', '?pinned=true'))).toEqual([])
    expect((await call(member, 'DELETE', `/${shared.id}/pin`)).statusCode).toBe(204)
    expect(ids(await call(member, 'GET', '?pinned=true'))).toEqual([])
    expectReason(await call(outsider, 'PUT', `/${shared.id}/pin`), 404, 'NOT_FOUND')
  })
})

describe('the teams one may share with', () => {
  it("lists the caller's teams by name; an administrator every team", async () => {
    const names = async (user: SignedIn) =>
      (await call(user, 'GET', '/shareable-teams'))
        .json()
        .items.map((item: { name: string }) => item.name)
    expect(await names(member)).toEqual(['Platform'])
    expect(await names(outsider)).toEqual([])
    const everyTeam = await names(admin)
    expect(everyTeam).toEqual(expect.arrayContaining(['Platform', 'Support']))
    expect(everyTeam).toEqual(
      [...everyTeam].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
    )
  })
})

describe('the Links list of someone in a team', () => {
  it('pages through their own links and those shared with their teams, each once, newest first', async () => {
    const paging = await createTeamWithPeople(t, { count: 2, members: [0, 1], name: 'Paging' })
    const [sharer, reader] = paging.people as [TestUser & SignedIn, TestUser & SignedIn]
    for (let i = 0; i < 12; i++)
      await createLink(t, sharer.token, {
        url: `https://paging.example/shared/${i}`,
        team_ids: i % 2 === 0 ? [paging.team.id] : [],
      })
    // Some of the reader's own links are shared with the team too: listed once.
    for (let i = 0; i < 7; i++)
      await createLink(t, reader.token, {
        url: `https://paging.example/own/${i}`,
        team_ids: i % 3 === 0 ? [paging.team.id] : [],
      })
    const reference = await sql<{ id: string }>`select links.id from links
      where ${visibleTo(reader.user.id)} order by links.created_at desc, links.id desc`.execute(
      t.deps.db,
    )
    const expected = reference.rows.map((row) => row.id)
    expect(expected).toHaveLength(13)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const query = new URLSearchParams({ limit: '4', ...(cursor !== null && { cursor }) })
      const page = await call(reader, 'GET', `?${query.toString()}`)
      expect(page.statusCode).toBe(200)
      seen.push(...ids(page))
      cursor = page.json().next_cursor
    } while (cursor !== null)
    expect(seen).toEqual(expected)
  })
})

describe('the owner filters of someone in a team', () => {
  it("keep their own links or their organizations', never another's shared with their team", async () => {
    const { team: filterTeam, people } = await createTeamWithPeople(t, {
      count: 2,
      members: [0, 1],
      name: 'Filters',
    })
    const [sharer, reader] = people as [TestUser & SignedIn, TestUser & SignedIn]
    const theirs = await createOrganization(t, sharer.token, 'Sharer Org')
    const ours = await createOrganization(t, reader.token, 'Reader Org')
    const word = 'ownerfilter'
    const make = (user: SignedIn, path: string, extra: object) =>
      createLink(t, user.token, { url: `https://${word}.example/${path}`, ...extra })
    const sharedPersonal = await make(sharer, 'a', { team_ids: [filterTeam.id] })
    const sharedOrg = await make(sharer, 'b', {
      organization_id: theirs.id,
      team_ids: [filterTeam.id],
    })
    const own = await make(reader, 'c', {})
    const ownOrg = await make(reader, 'd', { organization_id: ours.id })
    // The page, the search (every link holds the word) and the count agree.
    const listed = async (filter: string) => {
      const page = ids(await call(reader, 'GET', `?limit=50&${filter}`))
      const searched = ids(await call(reader, 'GET', `?limit=50&q=${word}&${filter}`))
      const counted = await call(reader, 'GET', `/count?${filter}`)
      expect(searched, `search ${filter}`).toEqual(page)
      expect(counted.json().total, `count ${filter}`).toBe(page.length)
      return page
    }
    expect(await listed('')).toEqual([ownOrg.id, own.id, sharedOrg.id, sharedPersonal.id])
    expect(await listed('owner=personal')).toEqual([own.id])
    expect(await listed('owner=organization')).toEqual([ownOrg.id])
    expect(await listed(`organization_id=${ours.id}`)).toEqual([ownOrg.id])
    expect(await listed(`organization_id=${theirs.id}`)).toEqual([])
    expect(await listed('scope=shared')).toEqual([sharedOrg.id, sharedPersonal.id])
  })
})
