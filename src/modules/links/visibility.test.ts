/**
 * The three statements of who sees which link (visibility.ts) give the same answer: over random
 * owners, organization and team memberships, links shared with teams, collections shared with
 * teams, slugs and forwarding switches, on each engine, visibleToIndexed lets the user see exactly
 * the links visibleTo does, and forwardingWithSlugKey finds exactly the forwarding links with the
 * key among them, each once (and ownForwardingWithSlugKey all of them for someone in no team).
 * Then the readers themselves, through the API (below).
 */
import type { RawBuilder } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bareUserRow, bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { seededRandom } from '../../../test/helpers/seeded-random.js'
import {
  forwardingWithSlugKey,
  inSomeTeam,
  ownForwardingWithSlugKey,
  visibleTo,
  visibleToIndexed,
} from './visibility.js'

const t = useTestApp()
const USERS = 6
const ORGS = 3
const TEAMS = 3
const COLLECTIONS = 3
const SLUGS = ['wiki', 'docs', 'team']

describe('visibleToIndexed and forwardingWithSlugKey', () => {
  it('find what visibleTo allows, for every user (and slug) of 20 random worlds', async () => {
    const now = new Date().toISOString()
    let outsideTeams = 0
    for (let world = 0; world < 20; world++) {
      const random = seededRandom(world + 1)
      const id = (kind: string, n: number) => `vis-${world}-${kind}-${n}`
      const users = Array.from({ length: USERS }, (_, n) => id('user', n))
      const orgs = Array.from({ length: ORGS }, (_, n) => id('org', n))
      await t.deps.db
        .insertInto('users')
        .values(users.map((user) => bareUserRow(user, now)))
        .execute()
      await t.deps.db
        .insertInto('organizations')
        .values(
          orgs.map((org) => ({ id: org, name: org, slug: org, created_at: now, updated_at: now })),
        )
        .execute()
      const memberships = users.flatMap((user) =>
        orgs
          .filter(() => random() < 0.4)
          .map((org) => ({ organization_id: org, user_id: user, role: 'member', joined_at: now })),
      )
      if (memberships.length > 0)
        await t.deps.db.insertInto('organization_members').values(memberships).execute()
      // Each owner (a user or an organization) has at most one link per slug, as the unique indexes
      // hold.
      const owners = [
        ...users.map((user) => ({ user_id: user, organization_id: null })),
        ...orgs.map((org) => ({ user_id: null, organization_id: org })),
      ]
      const links = owners.flatMap((owner, o) =>
        SLUGS.filter(() => random() < 0.6).map((slug) => ({
          id: id(`link-${o}`, SLUGS.indexOf(slug)),
          ...owner,
          url: `https://${slug}.example/${o}`,
          slug,
          slug_key: slug,
          forwarding_enabled: random() < 0.8,
          created_at: now,
          updated_at: now,
        })),
      )
      await t.deps.db.insertInto('links').values(links).execute()
      await insertTeamsAndShares(world, random, users, links, now)

      for (const user of users) {
        const seen = async (filter: (user: string) => RawBuilder<boolean>) =>
          (
            await t.deps.db
              .selectFrom('links')
              .select('links.id')
              .where('links.id', 'like', `vis-${world}-%`)
              .where(filter(user))
              .execute()
          )
            .map((row) => row.id)
            .sort()
        expect(
          await seen((id) => visibleToIndexed(t.deps.db, id)),
          `world ${world}, ${user}: every link`,
        ).toEqual(await seen(visibleTo))
        const inTeam = Boolean(
          (await t.deps.db.selectNoFrom(inSomeTeam(user).as('in_team')).executeTakeFirstOrThrow())
            .in_team,
        )
        expect(inTeam, `world ${world}, ${user}: in a team`).toBe(
          (
            await t.deps.db
              .selectFrom('team_members')
              .select('team_id')
              .where('user_id', '=', user)
              .execute()
          ).length > 0,
        )
        for (const slug of SLUGS) {
          const byFilter = await t.deps.db
            .selectFrom('links')
            .select('links.id')
            .where('links.slug_key', '=', slug)
            .where('links.forwarding_enabled', '=', true)
            .where(visibleTo(user))
            .execute()
          const byProbes = await t.deps.db
            .selectFrom(forwardingWithSlugKey(t.deps.db, user, slug).as('found'))
            .select('found.id')
            .execute()
          // Each link once (a link seen two ways, say one's own shared with one's team).
          expect(
            byProbes.map((row) => row.id).sort(),
            `world ${world}, ${user}, go/${slug}`,
          ).toEqual(byFilter.map((row) => row.id).sort())
          // Someone in no team sees no more than their own probes find.
          if (!inTeam) {
            outsideTeams++
            const byOwnProbes = await t.deps.db
              .selectFrom(ownForwardingWithSlugKey(t.deps.db, user, slug).as('found'))
              .select('found.id')
              .execute()
            expect(
              byOwnProbes.map((row) => row.id).sort(),
              `world ${world}, ${user}, go/${slug} in no team`,
            ).toEqual(byFilter.map((row) => row.id).sort())
          }
        }
      }
    }
    expect(outsideTeams).toBeGreaterThan(0)
  })
})

/**
 * Random teams and memberships, links shared with teams, and collections of random links shared
 * with teams — each slug key copied as the
 * application keeps it.
 */
async function insertTeamsAndShares(
  world: number,
  random: () => number,
  users: string[],
  links: Array<{ id: string; slug_key: string; user_id: string | null }>,
  now: string,
): Promise<void> {
  const id = (kind: string, n: number) => `vis-${world}-${kind}-${n}`
  const teams = Array.from({ length: TEAMS }, (_, n) => id('team', n))
  await t.deps.db
    .insertInto('teams')
    .values(
      teams.map((team) => ({
        id: team,
        name: team,
        name_key: team,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute()
  const members = users.flatMap((user) =>
    teams
      .filter(() => random() < 0.35)
      .map((team) => ({ team_id: team, user_id: user, added_at: now })),
  )
  if (members.length > 0) await t.deps.db.insertInto('team_members').values(members).execute()
  const shares = links.flatMap((link) =>
    teams
      .filter(() => random() < 0.15)
      .map((team) => ({
        link_id: link.id,
        team_id: team,
        slug_key: link.slug_key,
        shared_at: now,
      })),
  )
  if (shares.length > 0) await t.deps.db.insertInto('link_teams').values(shares).execute()
  const collections = Array.from({ length: COLLECTIONS }, (_, n) => ({
    id: id('collection', n),
    user_id: users[Math.floor(random() * users.length)]!,
    name: `collection ${n}`,
    created_at: now,
    updated_at: now,
  }))
  await t.deps.db.insertInto('collections').values(collections).execute()
  const entries = collections.flatMap((collection) =>
    links
      .filter(() => random() < 0.2)
      .map((link, position) => ({
        collection_id: collection.id,
        link_id: link.id,
        position,
        slug_key: link.slug_key,
      })),
  )
  if (entries.length > 0) await t.deps.db.insertInto('collection_links').values(entries).execute()
  const collectionShares = collections.flatMap((collection) =>
    teams
      .filter(() => random() < 0.3)
      .map((team) => ({ collection_id: collection.id, team_id: team })),
  )
  if (collectionShares.length > 0)
    await t.deps.db.insertInto('collection_teams').values(collectionShares).execute()
}

/**
 * The rule as every reader answers it, over random worlds: people in organizations and teams,
 * personal and organization links shared with teams, and collections (a person's or an
 * organization's, holding its owner's links) shared with teams. For each person, the list, a
 * search, scope=shared, /go/<slug> for each slug, the JSON export (links and collections) and
 * GET /api/collections agree with the rule worked out here, in plain code.
 */
describe('list, search, /go and export agree on who sees what', () => {
  it('for every person of 4 random worlds', async () => {
    const now = new Date().toISOString()
    for (let world = 0; world < 4; world++) {
      const random = seededRandom(100 + world)
      const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!
      const id = (kind: string, n: number) => `api-${world}-${kind}-${n}`
      const people = await Promise.all(Array.from({ length: 4 }, () => createSignedInUser(t)))
      const users = people.map((person) => person.user.id)
      const orgs = [id('org', 0), id('org', 1)]
      await t.deps.db
        .insertInto('organizations')
        .values(
          orgs.map((org) => ({ id: org, name: org, slug: org, created_at: now, updated_at: now })),
        )
        .execute()
      const orgMembers = users.flatMap((user) =>
        orgs.filter(() => random() < 0.4).map((org) => ({ org, user })),
      )
      if (orgMembers.length > 0)
        await t.deps.db
          .insertInto('organization_members')
          .values(
            orgMembers.map(({ org, user }) => ({
              organization_id: org,
              user_id: user,
              role: 'member',
              joined_at: now,
            })),
          )
          .execute()
      const owners = [
        ...users.map((user) => ({ user_id: user, organization_id: null })),
        ...orgs.map((org) => ({ user_id: null, organization_id: org })),
      ]
      const links = owners.flatMap((owner, o) =>
        SLUGS.filter(() => random() < 0.6).map((slug, n) => ({
          id: id(`link-${o}`, n),
          ...owner,
          url: `https://${slug}.example/${world}/${o}`,
          title: `${random() < 0.5 ? 'Alpha' : 'Beta'} ${world} ${o} ${slug}`,
          slug,
          slug_key: slug,
          forwarding_enabled: random() < 0.8,
          created_at: now,
          updated_at: now,
        })),
      )
      await t.deps.db.insertInto('links').values(links).execute()
      const teams = [id('team', 0), id('team', 1), id('team', 2)]
      await t.deps.db
        .insertInto('teams')
        .values(
          teams.map((team) => ({
            id: team,
            name: team,
            name_key: team,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute()
      const teamMembers = users.flatMap((user) =>
        teams.filter(() => random() < 0.4).map((team) => ({ team, user })),
      )
      if (teamMembers.length > 0)
        await t.deps.db
          .insertInto('team_members')
          .values(
            teamMembers.map(({ team, user }) => ({ team_id: team, user_id: user, added_at: now })),
          )
          .execute()
      const linkShares = links.flatMap((link) =>
        teams.filter(() => random() < 0.2).map((team) => ({ link, team })),
      )
      if (linkShares.length > 0)
        await t.deps.db
          .insertInto('link_teams')
          .values(
            linkShares.map(({ link, team }) => ({
              link_id: link.id,
              team_id: team,
              slug_key: link.slug_key,
              shared_at: now,
            })),
          )
          .execute()
      const collections = Array.from({ length: 4 }, (_, n) => {
        const owner = pick(owners)
        return {
          id: id('collection', n),
          ...owner,
          name: `Collection ${world}-${n}`,
          created_at: now,
          updated_at: now,
        }
      })
      await t.deps.db.insertInto('collections').values(collections).execute()
      const entries = collections.flatMap((collection) =>
        links
          .filter(
            (link) =>
              link.user_id === collection.user_id &&
              link.organization_id === collection.organization_id &&
              random() < 0.6,
          )
          .map((link) => ({ collection, link })),
      )
      if (entries.length > 0)
        await t.deps.db
          .insertInto('collection_links')
          .values(
            entries.map(({ collection, link }, position) => ({
              collection_id: collection.id,
              link_id: link.id,
              position,
              slug_key: link.slug_key,
            })),
          )
          .execute()
      const collectionShares = collections.flatMap((collection) =>
        teams.filter(() => random() < 0.35).map((team) => ({ collection, team })),
      )
      if (collectionShares.length > 0)
        await t.deps.db
          .insertInto('collection_teams')
          .values(
            collectionShares.map(({ collection, team }) => ({
              collection_id: collection.id,
              team_id: team,
            })),
          )
          .execute()

      // The rule, in plain code.
      const inOrg = (user: string, org: string | null) =>
        orgMembers.some((m) => m.user === user && m.org === org)
      const teamsOf = (user: string) =>
        new Set(teamMembers.filter((m) => m.user === user).map((m) => m.team))
      const throughTeam = (user: string, link: (typeof links)[number]) => {
        const mine = teamsOf(user)
        return (
          linkShares.some((s) => s.link.id === link.id && mine.has(s.team)) ||
          entries.some(
            (e) =>
              e.link.id === link.id &&
              collectionShares.some((s) => s.collection.id === e.collection.id && mine.has(s.team)),
          )
        )
      }
      const sees = (user: string, link: (typeof links)[number]) =>
        link.user_id === user || inOrg(user, link.organization_id) || throughTeam(user, link)
      const seesCollection = (user: string, collection: (typeof collections)[number]) =>
        collection.user_id === user ||
        inOrg(user, collection.organization_id) ||
        collectionShares.some((s) => s.collection.id === collection.id && teamsOf(user).has(s.team))

      for (const person of people) {
        const user = person.user.id
        const label = `world ${world}, ${user}`
        const get = (url: string) =>
          t.app.inject({ method: 'GET', url, headers: bearer(person.token) })
        const ids = async (query: string) =>
          (await get(`/api/links?limit=200${query}`))
            .json<{ items: Array<{ id: string }> }>()
            .items.map((item) => item.id)
            .sort()
        const visible = links.filter((link) => sees(user, link))
        const idsOf = (some: typeof links) => some.map((link) => link.id).sort()
        expect(await ids(''), `${label}: list`).toEqual(idsOf(visible))
        expect(await ids('&q=alpha'), `${label}: search`).toEqual(
          idsOf(visible.filter((link) => link.title.startsWith('Alpha'))),
        )
        expect(await ids('&scope=shared'), `${label}: scope=shared`).toEqual(
          idsOf(links.filter((link) => throughTeam(user, link))),
        )
        for (const slug of SLUGS) {
          const targets = visible.filter((link) => link.slug === slug && link.forwarding_enabled)
          const response = await get(`/go/${slug}`)
          if (targets.length === 0) expect(response.statusCode, `${label}: go/${slug}`).toBe(404)
          else if (targets.length === 1)
            expect(response.headers.location, `${label}: go/${slug}`).toBe(targets[0]!.url)
          else {
            expect(response.statusCode, `${label}: go/${slug} chooser`).toBe(200)
            for (const target of targets) expect(response.body).toContain(target.title)
            for (const other of links.filter((link) => !targets.includes(link)))
              expect(response.body).not.toContain(other.title)
          }
        }
        const exported = (await get('/api/links/export?format=json')).json<{
          links: Array<{ url: string }>
          collections: Array<{ name: string; links: number[] }>
        }>()
        expect(exported.links.map((link) => link.url).sort(), `${label}: export`).toEqual(
          visible.map((link) => link.url).sort(),
        )
        const visibleCollections = collections.filter((c) => seesCollection(user, c))
        expect(
          exported.collections.map((c) => [c.name, c.links.map((n) => exported.links[n]!.url)]),
          `${label}: exported collections`,
        ).toEqual(
          visibleCollections.map((c) => [
            c.name,
            entries.filter((e) => e.collection.id === c.id).map((e) => e.link.url),
          ]),
        )
        expect(
          (await get('/api/collections'))
            .json<{ items: Array<{ id: string }> }>()
            .items.map((c) => c.id),
          `${label}: collections`,
        ).toEqual(visibleCollections.map((c) => c.id))
      }
    }
  }, 120_000)
})
