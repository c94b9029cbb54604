/**
 * A search for a common term or a short one, read through the person's newest links owner by
 * owner — walked on SQLite (search-walk.repo.ts), filtered on PostgreSQL (search-by-owner.repo.ts)
 * — lists exactly what a full read lists: every page by cursor, with the filters on the owner, the
 * links shared with the person's team among them, and ties in creation time between owners.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bareUserRow,
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, listAllLinks } from '../../../test/helpers/links.js'
import { createOrganizationMember } from '../../../test/helpers/organizations.js'
import {
  analyzeIfPostgres,
  insertLinksInBulk,
  statementsOf,
} from '../../../test/helpers/query-plans.js'
import { addTeamMember, createTeam } from '../../../test/helpers/teams.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

let person: TestUser & SignedIn
let organizationId: string
let teamId: string

interface Row {
  id: string
  title: string
  url: string
  user_id: string | null
  organization_id: string | null
}

beforeAll(async () => {
  ;({ member: person, organizationId } = await createOrganizationMember(t))
  const admin = await createSignedInUser(t, { isAdmin: true })
  const colleague = await createSignedInUser(t)
  teamId = (await createTeam(t, admin.token)).id
  for (const member of [person, colleague])
    await addTeamMember(t, admin.token, teamId, member.user.id)
  const stranger = bareUserRow('walk-stranger', new Date().toISOString())
  await t.deps.db.insertInto('users').values(stranger).execute()
  // Every 3rd (the person's), 5th (their organization's) and 2nd (a stranger's) link is titled
  // "Kiwi <i>", the others "Link <i>": the i-th of each created i seconds ago, so that the
  // owners' links tie in time.
  await insertLinksInBulk(t, {
    prefix: 'mine',
    count: 1500,
    owner: { userId: person.user.id },
    word: { every: 3, text: 'Kiwi' },
  })
  await insertLinksInBulk(t, {
    prefix: 'team',
    count: 1500,
    owner: { organizationId },
    word: { every: 5, text: 'Kiwi' },
  })
  await insertLinksInBulk(t, {
    prefix: 'other',
    count: 1500,
    owner: { userId: stranger.id },
    word: { every: 2, text: 'Kiwi' },
  })
  for (const n of [1, 2, 3])
    await createLink(t, colleague.token, {
      url: `https://shared.example/${n}`,
      title: `Link shared ${n}`,
      team_ids: [teamId],
    })
  // Pinned by the person: their links, their organization's and one shared with the team.
  for (const id of ['mine-3', 'mine-10', 'team-5', 'team-700', 'mine-1499']) {
    const pinned = await t.app.inject({
      method: 'PUT',
      url: `/api/links/${id}/pin`,
      headers: bearer(person.token),
    })
    expect(pinned.statusCode, pinned.body).toBe(204)
  }
  await analyzeIfPostgres(t)
}, 120_000)

/** The ids the person pinned, read plainly. */
async function pinnedIds(): Promise<Set<string>> {
  const rows = await sql<{ link_id: string }>`select link_id from link_pins
    where user_id = ${person.user.id}`.execute(t.deps.db)
  return new Set(rows.rows.map((row) => row.link_id))
}

/** Every page of the search, 50 links at a time. */
async function searchAll(q: string, extra = ''): Promise<string[]> {
  const pages = await listAllLinks(t, person.token, `q=${encodeURIComponent(q)}${extra}`)
  return pages.map((item) => item.id)
}

/** The links the person sees, in the list's order, read plainly. */
async function visibleInOrder(): Promise<Row[]> {
  const rows = await sql<Row>`select id, title, url, user_id, organization_id from links
    where user_id = ${person.user.id} or organization_id = ${organizationId}
      or id in (select link_id from link_teams where team_id = ${teamId})
    order by created_at desc, id desc`.execute(t.deps.db)
  return rows.rows
}

const containing = (q: string) => (row: Row) =>
  `${row.title}\n${row.url}`.toLowerCase().includes(q.toLowerCase())

describe('a walked search at a few thousand links', () => {
  it.each(['link', 'kiwi', 'ki', 'k', 'shared'])(
    'lists every page of %s as a full read does',
    async (q) => {
      const expected = (await visibleInOrder()).filter(containing(q)).map((row) => row.id)
      expect(expected.length).toBeGreaterThan(0)
      expect(await searchAll(q)).toEqual(expected)
      // The count agrees, up to 1,000.
      const counted = await t.app.inject({
        method: 'GET',
        url: `/api/links/count?q=${encodeURIComponent(q)}`,
        headers: bearer(person.token),
      })
      expect(counted.json()).toEqual({
        total: Math.min(expected.length, 1000),
        capped: expected.length > 1000,
      })
    },
  )

  it.each(['link', 'kiwi', 'k'])(
    'lists the pinned links with %s, and the others, as the Links screen asks',
    async (q) => {
      const pins = await pinnedIds()
      const matching = (await visibleInOrder()).filter(containing(q)).map((row) => row.id)
      const pinned = matching.filter((id) => pins.has(id))
      expect(pinned.length).toBeGreaterThan(0)
      expect(await searchAll(q, '&pinned=true')).toEqual(pinned)
      expect(await searchAll(q, '&pinned=false')).toEqual(matching.filter((id) => !pins.has(id)))
    },
  )

  it('reads common and short terms owner by owner on PostgreSQL, a rare one from its index', async () => {
    if (t.database.engine !== 'postgres') return
    const byOwner = async (q: string) => {
      const statements = await statementsOf(/"search_lower" like/, () => searchAll(q))
      expect(statements.length).toBeGreaterThan(0)
      // The owners' branches (the person's, their organization's, their team's) and their newest.
      return statements.every((statement) => /owners_first/.test(statement.text))
    }
    // "link" is in about 2 titles of 3, "kiwi" in 1 of 3: common by the statistics' sample.
    for (const q of ['link', 'kiwi', 'ki', 'k']) expect(await byOwner(q), q).toBe(true)
    expect(await byOwner('shared')).toBe(false)
  })

  it('keeps the filters on the owner', async () => {
    const visible = await visibleInOrder()
    const personal = visible.filter(
      (row) => row.user_id === person.user.id && containing('kiwi')(row),
    )
    expect(await searchAll('kiwi', '&owner=personal')).toEqual(personal.map((row) => row.id))
    const organization = visible.filter(
      (row) => row.organization_id === organizationId && containing('link')(row),
    )
    expect(await searchAll('link', `&organization_id=${organizationId}`)).toEqual(
      organization.map((row) => row.id),
    )
  })
})
