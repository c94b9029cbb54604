/**
 * SQL for sharing links with teams (link_teams) and the per-person pins. link_teams and
 * collection_links repeat each link's slug_key, so /go/{slug} probes them by (owner, key)
 * (visibility.ts): every write of a link's slug_key calls syncSlugKeys in its transaction.
 */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../../db/schema.js'

export interface TeamRef {
  id: string
  name: string
}

/** The teams each link is shared with, by name. */
export async function findTeamsOfLinks(
  ex: Executor,
  linkIds: readonly string[],
): Promise<Map<string, TeamRef[]>> {
  const byLink = new Map<string, TeamRef[]>(linkIds.map((id) => [id, []]))
  if (linkIds.length === 0) return byLink
  const rows = await ex
    .selectFrom('link_teams')
    .innerJoin('teams', 'teams.id', 'link_teams.team_id')
    .select(['link_teams.link_id', 'teams.id', 'teams.name'])
    .where('link_teams.link_id', 'in', linkIds)
    .orderBy('teams.name_key')
    .execute()
  for (const row of rows) byLink.get(row.link_id)?.push({ id: row.id, name: row.name })
  return byLink
}

/** The teams among `teamIds` that exist (all of them) or that the user is a member of. */
export async function findShareableTeams(
  ex: Executor,
  userId: string | null,
  teamIds: readonly string[],
): Promise<TeamRef[]> {
  if (teamIds.length === 0) return []
  let query = ex
    .selectFrom('teams')
    .select(['teams.id', 'teams.name'])
    .where('teams.id', 'in', teamIds)
  if (userId !== null)
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('team_members')
          .select('team_members.team_id')
          .whereRef('team_members.team_id', '=', 'teams.id')
          .where('team_members.user_id', '=', userId),
      ),
    )
  return query.execute()
}

/**
 * The teams a person may share with, by name: those they are a member of, or (`userId` null, for an
 * administrator) every team. Teams are few; the first `limit` are enough for a picker.
 */
export async function listShareableTeams(
  ex: Executor,
  userId: string | null,
  limit: number,
): Promise<TeamRef[]> {
  let query = ex.selectFrom('teams').select(['teams.id', 'teams.name'])
  if (userId !== null)
    query = query
      .innerJoin('team_members', 'team_members.team_id', 'teams.id')
      .where('team_members.user_id', '=', userId)
  return query.orderBy('teams.name_key').orderBy('teams.id').limit(limit).execute()
}

/** The teams by id (those that exist), by name. */
export async function findTeamsByIds(ex: Executor, teamIds: readonly string[]): Promise<TeamRef[]> {
  return findShareableTeams(ex, null, teamIds)
}

/** Shares the link with the teams, with the link's slug key as it is in this transaction. */
export async function addLinkTeams(
  ex: Executor,
  linkId: string,
  teamIds: readonly string[],
  now: Timestamp,
): Promise<void> {
  if (teamIds.length === 0) return
  const slugKey = sql<string | null>`(select links.slug_key from links where links.id = ${linkId})`
  await ex
    .insertInto('link_teams')
    .values(
      teamIds.map((teamId) => ({
        link_id: linkId,
        team_id: teamId,
        slug_key: slugKey,
        shared_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['link_id', 'team_id']).doNothing())
    .execute()
}

export async function removeLinkTeams(
  ex: Executor,
  linkId: string,
  teamIds: readonly string[],
): Promise<void> {
  if (teamIds.length === 0) return
  await ex
    .deleteFrom('link_teams')
    .where('link_id', '=', linkId)
    .where('team_id', 'in', teamIds)
    .execute()
}

/** Copies the links' slug_key to their shares and collection entries (after any slug change). */
export async function syncSlugKeys(ex: Executor, linkIds?: readonly string[]): Promise<void> {
  if (linkIds !== undefined && linkIds.length === 0) return
  const key = (table: 'link_teams' | 'collection_links') =>
    sql<
      string | null
    >`(select links.slug_key from links where links.id = ${sql.ref(`${table}.link_id`)})`
  let shares = ex.updateTable('link_teams').set({ slug_key: key('link_teams') })
  let entries = ex.updateTable('collection_links').set({ slug_key: key('collection_links') })
  if (linkIds !== undefined) {
    shares = shares.where('link_teams.link_id', 'in', linkIds)
    entries = entries.where('collection_links.link_id', 'in', linkIds)
  }
  await shares.execute()
  await entries.execute()
}

export async function insertPin(
  ex: Executor,
  userId: string,
  linkId: string,
  now: Timestamp,
): Promise<void> {
  await ex
    .insertInto('link_pins')
    .values({ user_id: userId, link_id: linkId, pinned_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'link_id']).doNothing())
    .execute()
}

export async function deletePin(ex: Executor, userId: string, linkId: string): Promise<void> {
  await ex
    .deleteFrom('link_pins')
    .where('user_id', '=', userId)
    .where('link_id', '=', linkId)
    .execute()
}
