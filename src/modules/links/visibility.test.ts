/**
 * The three statements of who sees which link (visibility.ts) give the same answer: over random
 * owners, organization and team memberships, links shared with teams, collections shared with
 * teams, slugs and forwarding switches, on each engine, visibleToIndexed lets the user see exactly
 * the links visibleTo does, and forwardingWithSlugKey finds exactly the forwarding links with the
 * key among them, each once.
 */
import type { RawBuilder } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bareUserRow } from '../../../test/helpers/factories.js'
import { seededRandom } from '../../../test/helpers/seeded-random.js'
import { forwardingWithSlugKey, visibleTo, visibleToIndexed } from './visibility.js'

const t = useTestApp()
const USERS = 6
const ORGS = 3
const TEAMS = 3
const COLLECTIONS = 3
const SLUGS = ['wiki', 'docs', 'team']

describe('visibleToIndexed and forwardingWithSlugKey', () => {
  it('find what visibleTo allows, for every user (and slug) of 20 random worlds', async () => {
    const now = new Date().toISOString()
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
        }
      }
    }
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
