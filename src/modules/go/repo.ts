/** SQL for go-link preferences: one chosen link per (user, slug ignoring case). */
import { sql, type ExpressionBuilder } from 'kysely'
import type { Database, Executor, Timestamp } from '../../db/schema.js'
import type { PageWindow } from '../../db/keyset.js'
import { precompiled } from '../../db/precompiled.js'
import { liveSessionOf, liveSessionQuery, type LiveSession } from '../../identity/sessions.repo.js'
import { preferredLinkColumn, type GoCandidate } from '../links/repo.js'
import {
  forwardingWithSlugKey,
  inSomeTeam,
  ownForwardingWithSlugKey,
  visibleTo,
} from '../links/visibility.js'

export interface PreferenceRecord {
  slug_key: string
  slug: string
  link_id: string
  title: string | null
  url: string
  organization_name: string | null
  updated_at: Timestamp
}

/**
 * The preference still names a link that the user sees, that forwards and that carries the slug —
 * anything else (the link moved away, stopped forwarding, was renamed) makes the preference stale.
 * A deleted link takes its preferences with it (foreign key).
 */
const stillValid = sql<boolean>`exists (select 1 from links where links.id = ${sql.ref('go_preferences.link_id')} and links.forwarding_enabled = ${true} and links.slug_key = ${sql.ref('go_preferences.slug_key')} and ${visibleTo(sql.ref('go_preferences.user_id'))})`

/**
 * The link is personal or of an organization in `reachable` (an API token's boundary); always
 * true without one.
 */
function withinReach(reachable: ReadonlySet<string> | null) {
  return (eb: ExpressionBuilder<Database, 'links'>) => {
    if (reachable === null) return eb.lit(true)
    const ids = [...reachable]
    return ids.length === 0
      ? eb('links.organization_id', 'is', null)
      : eb.or([eb('links.organization_id', 'is', null), eb('links.organization_id', 'in', ids)])
  }
}

/** The user's valid preferences by slug, after the cursor's slug. */
export async function listPreferences(
  ex: Executor,
  userId: string,
  window: PageWindow,
  reachable: ReadonlySet<string> | null = null,
): Promise<PreferenceRecord[]> {
  let query = ex
    .selectFrom('go_preferences')
    .innerJoin('links', 'links.id', 'go_preferences.link_id')
    .leftJoin('organizations', 'organizations.id', 'links.organization_id')
    .select([
      'go_preferences.slug_key',
      sql<string>`${sql.ref('links.slug')}`.as('slug'),
      'go_preferences.link_id',
      'links.title',
      'links.url',
      'organizations.name as organization_name',
      'go_preferences.updated_at',
    ])
    .where('go_preferences.user_id', '=', userId)
    .where(stillValid)
    .where(withinReach(reachable))
  // Each user has one preference per slug, so the slug alone orders them totally.
  if (window.after !== null) query = query.where('go_preferences.slug_key', '>', window.after[0])
  return query
    .orderBy('go_preferences.slug_key')
    .limit(window.limit + 1)
    .execute()
}

export async function findPreferredLinkId(
  ex: Executor,
  userId: string,
  slugKey: string,
): Promise<string | null> {
  const row = await ex
    .selectFrom('go_preferences')
    .select('link_id')
    .where('user_id', '=', userId)
    .where('slug_key', '=', slugKey)
    .executeTakeFirst()
  return row?.link_id ?? null
}

export async function upsertPreference(
  ex: Executor,
  preference: { user_id: string; slug_key: string; link_id: string; updated_at: Timestamp },
): Promise<void> {
  await ex
    .insertInto('go_preferences')
    .values(preference)
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'slug_key'])
        .doUpdateSet({ link_id: preference.link_id, updated_at: preference.updated_at }),
    )
    .execute()
}

/**
 * Deletes the preference; with `linkId`, only while it still names that link (not a newer choice).
 */
export async function deletePreference(
  ex: Executor,
  userId: string,
  slugKey: string,
  linkId?: string,
  reachable: ReadonlySet<string> | null = null,
): Promise<boolean> {
  let query = ex
    .deleteFrom('go_preferences')
    .where('user_id', '=', userId)
    .where('slug_key', '=', slugKey)
  if (linkId !== undefined) query = query.where('link_id', '=', linkId)
  if (reachable !== null) {
    query = query.where('link_id', 'in', (eb) =>
      eb.selectFrom('links').select('links.id').where(withinReach(reachable)),
    )
  }
  return (await query.executeTakeFirst()).numDeletedRows > 0n
}

/** Removes the user's stale preferences (see stillValid). */
export async function deleteStalePreferences(ex: Executor, userId: string): Promise<void> {
  await ex
    .deleteFrom('go_preferences')
    .where('user_id', '=', userId)
    .where(sql<boolean>`not ${stillValid}`)
    .execute()
}

/** Bounds the miss page's work for a person who sees very many links. */
const SLUG_SCAN_LIMIT = 5000

export interface VisibleSlug {
  slug: string
  title: string | null
  url: string
  organization_id: string | null
}

/**
 * The slugs of forwarding links the user sees (for the miss page's suggestions), with their title,
 * destination and organization.
 */
export async function findVisibleSlugs(ex: Executor, userId: string): Promise<VisibleSlug[]> {
  // A branch per way of seeing a link, each walking an owner's index (visibility.ts: visibleTo as
  // a filter would read every link).
  const personal = ex
    .selectFrom('links')
    .select(['links.slug', 'links.title', 'links.url', 'links.organization_id'])
    .where('links.user_id', '=', userId)
    .where('links.slug', 'is not', null)
    .where('links.forwarding_enabled', '=', true)
  const shared = ex
    .selectFrom('organization_members')
    .innerJoin('links', 'links.organization_id', 'organization_members.organization_id')
    .select(['links.slug', 'links.title', 'links.url', 'links.organization_id'])
    .where('organization_members.user_id', '=', userId)
    .where('links.slug', 'is not', null)
    .where('links.forwarding_enabled', '=', true)
  const teams = ex
    .selectFrom('team_members')
    .innerJoin('link_teams', 'link_teams.team_id', 'team_members.team_id')
    .innerJoin('links', 'links.id', 'link_teams.link_id')
    .select(['links.slug', 'links.title', 'links.url', 'links.organization_id'])
    .where('team_members.user_id', '=', userId)
    .where('links.slug', 'is not', null)
    .where('links.forwarding_enabled', '=', true)
  const collections = ex
    .selectFrom('team_members')
    .innerJoin('collection_teams', 'collection_teams.team_id', 'team_members.team_id')
    .innerJoin(
      'collection_links',
      'collection_links.collection_id',
      'collection_teams.collection_id',
    )
    .innerJoin('links', 'links.id', 'collection_links.link_id')
    .select(['links.slug', 'links.title', 'links.url', 'links.organization_id'])
    .where('team_members.user_id', '=', userId)
    .where('links.slug', 'is not', null)
    .where('links.forwarding_enabled', '=', true)
  const rows = await ex
    .selectFrom(personal.unionAll(shared).unionAll(teams).unionAll(collections).as('visible'))
    .selectAll()
    .limit(SLUG_SCAN_LIMIT)
    .execute()
  return rows.map((row) => ({
    slug: row.slug!,
    title: row.title,
    url: row.url,
    organization_id: row.organization_id,
  }))
}

/** What a go statement's row holds beside the session. */
interface CandidateRow {
  link_id: string | null
  link_url: string | null
  link_organization_id: string | null
  preferred_link_id: string | null
}

function candidateOf(row: CandidateRow) {
  return {
    link:
      row.link_id === null
        ? null
        : { id: row.link_id, url: row.link_url!, organization_id: row.link_organization_id },
    preferred: row.preferred_link_id,
  }
}

/**
 * The go redirect's one statement (a redirect costs about what /api/users/me does): the
 * session's lookup (identity/sessions.repo.ts liveSessionQuery) with the slug's forwarding links
 * the user sees left-joined to it (found by index probes: `candidates`, from links/visibility.ts),
 * only as much of each as a redirect needs, and on every row the link the user chose for the slug.
 * One row per link, or one row without a link; none when the session is not live. Compiled once
 * and prepared on PostgreSQL: one statement, without the organization joins or sort that only the
 * chooser needs (it reads the links whole; docs/decisions/0012-go-redirect-one-statement.md).
 * With `askInTeam`, each row also says whether the user is in a team (`inTeam`; null when not
 * asked).
 */
function goStatement(
  candidates: typeof forwardingWithSlugKey | typeof ownForwardingWithSlugKey,
  askInTeam: boolean,
) {
  return precompiled(
    ['sessionId', 'userId', 'slugKey'],
    (ex, p) =>
      liveSessionQuery(ex, p.sessionId)
        .leftJoin(candidates(ex, p.userId, p.slugKey).as('candidates'), (join) => join.onTrue())
        .select([
          'candidates.id as link_id',
          'candidates.url as link_url',
          'candidates.organization_id as link_organization_id',
          preferredLinkColumn(p.userId, p.slugKey),
        ])
        .$if(askInTeam, (query) => query.select(inSomeTeam(p.userId).as('in_team'))),
    (row) => ({
      session: liveSessionOf(row),
      ...candidateOf(row),
      inTeam: askInTeam ? Boolean(row.in_team) : null,
    }),
  )
}

/** Every forwarding link with the slug that the user sees, team shares included. */
const selectSessionWithGoCandidates = goStatement(forwardingWithSlugKey, false)

/**
 * The same for a user in no team: the personal and the organizations' links only, and whether the
 * user is in a team after all — then the answer is incomplete and the statement above is asked
 * (docs/decisions/0043-go-team-shares-only-for-team-members.md).
 */
const selectSessionWithOwnGoCandidates = goStatement(ownForwardingWithSlugKey, true)

/**
 * The users of this database found in a team, in the order found: the redirect asks for their team
 * shares at once. Only a guess of which statement answers in one go — each statement reads the
 * memberships itself — so a wrong guess costs a second statement, never a link; bounded, the
 * first found forgotten first.
 */
const inTeamGuesses = new WeakMap<Executor, Set<string>>()
const GUESSES_KEPT = 10_000

function guessesOf(ex: Executor): Set<string> {
  let guesses = inTeamGuesses.get(ex)
  if (guesses === undefined) inTeamGuesses.set(ex, (guesses = new Set()))
  return guesses
}

function rememberInTeam(guesses: Set<string>, userId: string): void {
  guesses.delete(userId)
  guesses.add(userId)
  if (guesses.size > GUESSES_KEPT) guesses.delete(guesses.values().next().value!)
}

export interface SessionWithGoCandidates {
  /** The session as identity's lookup reads it, its expiry not yet checked; null: not live. */
  session: LiveSession | null
  links: GoCandidate[]
  /** The link the user chose for the slug (null: none, or no link matched). */
  preferred: string | null
}

/**
 * One statement: with team shares for a user found in a team before, without them for anyone else
 * (who, found in a team now, gets the full statement as a second one).
 */
export async function findSessionWithGoCandidates(
  ex: Executor,
  sessionId: string,
  userId: string,
  slugKey: string,
): Promise<SessionWithGoCandidates> {
  const guesses = guessesOf(ex)
  const values = { sessionId, userId, slugKey }
  if (guesses.has(userId)) return collected(await selectSessionWithGoCandidates(ex, values))
  const own = await selectSessionWithOwnGoCandidates(ex, values)
  if (own[0]?.inTeam !== true) return collected(own)
  rememberInTeam(guesses, userId)
  return collected(await selectSessionWithGoCandidates(ex, values))
}

function collected(
  rows: Array<{ session: LiveSession; link: GoCandidate | null; preferred: string | null }>,
): SessionWithGoCandidates {
  const links: GoCandidate[] = []
  for (const row of rows) if (row.link !== null) links.push(row.link)
  return {
    session: rows[0]?.session ?? null,
    links,
    preferred: links.length === 0 ? null : rows[0]!.preferred,
  }
}
