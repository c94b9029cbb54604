/**
 * Links as one user sees them: with the reader's role in the link's organization and the
 * organization's name, and only through the visibility rule (visibility.ts) — a link of an
 * organization the user does not belong to is not found, exactly like one that does not exist.
 */
import type { Selectable } from 'kysely'
import type { Executor, LinksTable } from '../../db/schema.js'
import type { Role } from '../organizations/roles.js'
import { visibleToIndexed } from './visibility.js'

/**
 * A link row as the API reads it (`slug_key` is for matching only, `recent_clicks` for the
 * most-clicked order; booleans are booleans).
 */
export type LinkRecord = Omit<
  Selectable<LinksTable>,
  'slug_key' | 'url_key' | 'forwarding_enabled' | 'recent_clicks'
> & {
  forwarding_enabled: boolean
}

/** A link as one user sees it: with their role in its organization and the organization's name. */
export interface VisibleLink extends LinkRecord {
  /** The reader's role in the link's organization; null for a personal link. */
  role: Role | null
  organization_name: string | null
}

/**
 * A link's columns as one user sees it, for a query that has joined the link's organization and
 * the reader's membership of it.
 */
export const SEEN_COLUMNS = [
  'links.id',
  'links.user_id',
  'links.organization_id',
  'links.created_by',
  'links.url',
  'links.title',
  'links.slug',
  'links.forwarding_enabled',
  'links.created_at',
  'links.updated_at',
  'organization_members.role',
  'organizations.name as organization_name',
] as const

/** Links with the reader's role and the organization's name, before any filter. */
export function linksAsSeenBy(ex: Executor, userId: string) {
  return ex
    .selectFrom('links')
    .leftJoin('organizations', 'organizations.id', 'links.organization_id')
    .leftJoin('organization_members', (join) =>
      join
        .onRef('organization_members.organization_id', '=', 'links.organization_id')
        .on('organization_members.user_id', '=', userId),
    )
    .select(SEEN_COLUMNS)
}

export function visibleLinks(ex: Executor, userId: string) {
  return linksAsSeenBy(ex, userId).where(visibleToIndexed(ex, userId))
}

export type VisibleRow = Omit<VisibleLink, 'forwarding_enabled' | 'role'> & {
  forwarding_enabled: unknown
  role: string | null
}

/**
 * SQLite answers booleans as 0/1. The fields are named one by one: a page maps 51 rows, and
 * spreading node:sqlite's rows costs several times more.
 */
export function asVisible(row: VisibleRow): VisibleLink {
  return {
    id: row.id,
    user_id: row.user_id,
    organization_id: row.organization_id,
    created_by: row.created_by,
    url: row.url,
    title: row.title,
    slug: row.slug,
    forwarding_enabled: Boolean(row.forwarding_enabled),
    created_at: row.created_at,
    updated_at: row.updated_at,
    role: row.role as Role | null,
    organization_name: row.organization_name,
  }
}

export async function findVisibleLink(
  ex: Executor,
  userId: string,
  linkId: string,
): Promise<VisibleLink | null> {
  const row = await visibleLinks(ex, userId).where('links.id', '=', linkId).executeTakeFirst()
  return row ? asVisible(row) : null
}

/** The links among `linkIds` the user sees (bulk actions), in no particular order. */
export async function findVisibleLinks(
  ex: Executor,
  userId: string,
  linkIds: readonly string[],
): Promise<VisibleLink[]> {
  if (linkIds.length === 0) return []
  return (await visibleLinks(ex, userId).where('links.id', 'in', linkIds).execute()).map(asVisible)
}
