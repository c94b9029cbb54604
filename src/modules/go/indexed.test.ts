/**
 * At scale, the go redirect (by session and by sb_ token), its details page and the miss
 * page find a person's links by index probes (links/visibility.ts forwardingWithSlugKey), not by
 * reading every link that has the slug, nor every link of the person's teams. With 3,000 other
 * people each owning a go/wiki shared with one of 300 teams, and the person's team sharing 300
 * links of other slugs, each
 * statement these pages send to the database — caught where it leaves the process — is explained
 * on its engine: on PostgreSQL it touches a few index pages and drops no rows (6–20 buffers;
 * before, 48–59 and 3,000 rows dropped), and on SQLite it reaches links and memberships only
 * through an index (it scanned links before).
 */
import { CompiledQuery } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { createOrganizationMember } from '../../../test/helpers/organizations.js'
import {
  expectIndexed as expectIndexedOn,
  insertStrangersWithLinks,
  statementsOf,
} from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const caught = (action: () => Promise<unknown>) => statementsOf(/"links"/, action)
// The chooser's statement also joins organizations and memberships: 20 buffers in one CI run,
// against 48–59 and 3,000 rows dropped before.
const expectIndexed = (statements: Awaited<ReturnType<typeof caught>>) =>
  expectIndexedOn(t, statements, 40)
const OTHERS = 3000
const TEAMS = 300

let user: TestUser & SignedIn
let token: string

beforeAll(async () => {
  // The user is in an organization, which has a go-link of its own (the membership branch).
  const { member, owner, organizationId } = await createOrganizationMember(t)
  user = member
  token = (await createApiTokenFor(t, user.token, 'indexed', { permissions: ['links:read'] })).token
  await createLink(t, user.token, { slug: 'wiki', url: 'https://mine.example/wiki' })
  await createLink(t, owner.token, {
    slug: 'team',
    url: 'https://team.example/',
    organization_id: organizationId,
  })
  // Everyone else's go/wiki: what visibleTo as a filter had to read on every redirect.
  await insertStrangersWithLinks(t, 'indexed', OTHERS, 'wiki')
  await insertTeamsSharing(user.user.id)
  if (t.database.engine === 'postgres') await t.deps.db.executeQuery(CompiledQuery.raw('analyze'))
}, 120_000)

/**
 * 300 teams of strangers, each sharing ten of the strangers' go/wiki; and the person's team, which
 * shares 300 links of other slugs and one go/handbook.
 */
async function insertTeamsSharing(userId: string): Promise<void> {
  const now = new Date().toISOString()
  const teams = Array.from({ length: TEAMS }, (_, n) => ({
    id: `indexed-team-${n}`,
    name: `indexed team ${n}`,
    name_key: `indexed team ${n}`,
    created_at: now,
    updated_at: now,
  }))
  await t.deps.db.insertInto('teams').values(teams).execute()
  const members = [
    ...Array.from({ length: OTHERS }, (_, n) => ({
      team_id: `indexed-team-${n % TEAMS}`,
      user_id: `indexed-${n}`,
      added_at: now,
    })),
    { team_id: 'indexed-team-0', user_id: userId, added_at: now },
  ]
  for (let start = 0; start < members.length; start += 500)
    await t.deps.db
      .insertInto('team_members')
      .values(members.slice(start, start + 500))
      .execute()
  const shares = Array.from({ length: OTHERS }, (_, n) => ({
    link_id: `indexed-${n}-link`,
    // Never the person's team (0).
    team_id: `indexed-team-${1 + (n % (TEAMS - 1))}`,
    slug_key: 'wiki',
    shared_at: now,
  }))
  for (let start = 0; start < shares.length; start += 500)
    await t.deps.db
      .insertInto('link_teams')
      .values(shares.slice(start, start + 500))
      .execute()
  const owner = 'indexed-0'
  const links = Array.from({ length: TEAMS + 1 }, (_, n) => ({
    id: `indexed-team-link-${n}`,
    user_id: owner,
    url: n === TEAMS ? 'https://handbook.example/' : `https://other-${n}.example/`,
    slug: n === TEAMS ? 'handbook' : `other-${n}`,
    slug_key: n === TEAMS ? 'handbook' : `other-${n}`,
    forwarding_enabled: true,
    created_at: now,
    updated_at: now,
  }))
  await t.deps.db.insertInto('links').values(links).execute()
  await t.deps.db
    .insertInto('link_teams')
    .values(
      links.map((link) => ({
        link_id: link.id,
        team_id: 'indexed-team-0',
        slug_key: link.slug_key,
        shared_at: now,
      })),
    )
    .execute()
}

describe('go-link reads with 3,000 other go/wiki links', () => {
  it('the redirect by session finds the link by index, and still opens it', async () => {
    const statements = await caught(async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/go/wiki/page',
        headers: bearer(user.token),
      })
      expect(response.headers.location).toBe('https://mine.example/wiki/page')
      // A team's link: by (team, slug), not among the team's 300 other links.
      const shared = await t.app.inject({
        method: 'GET',
        url: '/go/handbook',
        headers: bearer(user.token),
      })
      expect(shared.headers.location).toBe('https://handbook.example/')
    })
    await expectIndexed(statements)
    const team = await t.app.inject({ method: 'GET', url: '/go/team', headers: bearer(user.token) })
    expect(team.headers.location).toBe('https://team.example/')
  })

  it('the redirect by sb_ token finds the link by index', async () => {
    const statements = await caught(async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/go/team',
        headers: bearer(token),
      })
      expect(response.headers.location).toBe('https://team.example/')
    })
    await expectIndexed(statements)
  })

  it('the details page and the miss page read by index', async () => {
    const details = await caught(async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/go/wiki+',
        headers: bearer(user.token),
      })
      expect(response.statusCode).toBe(200)
      expect(response.body).toContain('https://mine.example/wiki')
      expect(response.body).not.toContain('elsewhere.example')
    })
    await expectIndexed(details)
    const miss = await caught(async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/go/wikk',
        headers: bearer(user.token),
      })
      expect(response.statusCode).toBe(404)
      // The closest slugs are the user's own and their organization's, never a stranger's.
      expect(response.body).toContain('go/wiki')
    })
    // The miss page reads every slug the person sees — here also their team's 301 links, a few
    // buffers each — and still none of the strangers'.
    await expectIndexedOn(t, miss, 40 + 4 * (TEAMS + 1))
  })
})
