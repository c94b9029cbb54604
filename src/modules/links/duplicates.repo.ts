/** The links a user sees whose URL has this duplicate key, answered from links_url_key_idx. */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { visibleTo } from './visibility.js'

export interface DuplicateRow {
  id: string
  slug: string | null
  title: string | null
  organization_id: string | null
  owner_name: string
}

export const MAX_DUPLICATES = 20

function duplicateColumns(ex: Executor, userId: string) {
  return ex
    .selectFrom('links')
    .leftJoin('organizations', 'organizations.id', 'links.organization_id')
    .leftJoin('users', 'users.id', 'links.user_id')
    .select([
      'links.id',
      'links.slug',
      'links.title',
      'links.organization_id',
      sql<string>`coalesce(organizations.name, users.name, '')`.as('owner_name'),
    ])
    .where(visibleTo(userId))
}

export async function findVisibleByUrlKey(
  ex: Executor,
  userId: string,
  key: string,
): Promise<DuplicateRow[]> {
  return duplicateColumns(ex, userId)
    .where('links.url_key', '=', key)
    .orderBy('links.created_at')
    .orderBy('links.id')
    .limit(MAX_DUPLICATES)
    .execute()
}

/** The same for several keys at once (at most a few hundred), with each row's key. */
export async function findVisibleByUrlKeys(
  ex: Executor,
  userId: string,
  keys: readonly string[],
): Promise<Array<DuplicateRow & { url_key: string | null }>> {
  if (keys.length === 0) return []
  return duplicateColumns(ex, userId)
    .select('links.url_key')
    .where('links.url_key', 'in', keys)
    .orderBy('links.created_at')
    .orderBy('links.id')
    .execute()
}
