/** SQL for link suggestions: the person's tags, the answer cache and the hourly model budget. */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'

/** The person's own tags, most used first (ties by name), at most `limit`. */
export async function listTagNamesByUse(
  ex: Executor,
  userId: string,
  limit: number,
): Promise<string[]> {
  const rows = await ex
    .selectFrom('tags')
    .leftJoin('link_tags', 'link_tags.tag_id', 'tags.id')
    .select(['tags.name', sql<number | string>`count(link_tags.link_id)`.as('uses')])
    .where('tags.user_id', '=', userId)
    .groupBy(['tags.id', 'tags.name'])
    .orderBy('uses', 'desc')
    .orderBy('tags.name')
    .limit(limit)
    .execute()
  return rows.map((row) => row.name)
}

/**
 * The person's tags on their own links (personal, or created by them) whose URL starts with
 * `prefix` (an origin and `/`), most used first.
 */
export async function listTagNamesOnSite(
  ex: Executor,
  userId: string,
  prefix: string,
  limit: number,
): Promise<string[]> {
  const rows = await ex
    .selectFrom('link_tags')
    .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
    .innerJoin('links', 'links.id', 'link_tags.link_id')
    .select(['tags.name', sql<number | string>`count(*)`.as('uses')])
    .where('tags.user_id', '=', userId)
    .where((eb) => eb.or([eb('links.user_id', '=', userId), eb('links.created_by', '=', userId)]))
    .where(sql<boolean>`substr(links.url, 1, ${prefix.length}) = ${prefix}`)
    .groupBy(['tags.id', 'tags.name'])
    .orderBy('uses', 'desc')
    .orderBy('tags.name')
    .limit(limit)
    .execute()
  return rows.map((row) => row.name)
}

export async function findCachedAnswer(
  ex: Executor,
  userId: string,
  cacheKey: string,
  now: string,
): Promise<string | null> {
  const row = await ex
    .selectFrom('link_suggestion_cache')
    .select('answer')
    .where('user_id', '=', userId)
    .where('cache_key', '=', cacheKey)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row?.answer ?? null
}

/** Stores an answer (replacing an expired one), and sweeps the person's expired answers. */
export async function storeCachedAnswer(
  ex: Executor,
  entry: { userId: string; cacheKey: string; answer: string; expiresAt: string; now: string },
): Promise<void> {
  await ex
    .deleteFrom('link_suggestion_cache')
    .where('user_id', '=', entry.userId)
    .where('expires_at', '<=', entry.now)
    .execute()
  await ex
    .insertInto('link_suggestion_cache')
    .values({
      user_id: entry.userId,
      cache_key: entry.cacheKey,
      answer: entry.answer,
      expires_at: entry.expiresAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'cache_key'])
        .doUpdateSet({ answer: entry.answer, expires_at: entry.expiresAt }),
    )
    .execute()
}

/**
 * Takes one model call from the person's budget for this hour: one conditional upsert, so
 * concurrent requests never take more than `limit`. False when the hour's calls are spent.
 */
export async function reserveModelCall(
  ex: Executor,
  userId: string,
  hour: string,
  limit: number,
): Promise<boolean> {
  if (limit <= 0) return false
  await ex
    .deleteFrom('link_suggestion_calls')
    .where('user_id', '=', userId)
    .where('hour', '<', hour)
    .execute()
  const row = await ex
    .insertInto('link_suggestion_calls')
    .values({ user_id: userId, hour, calls: 1 })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'hour'])
        .doUpdateSet({ calls: sql`link_suggestion_calls.calls + 1` })
        .where('link_suggestion_calls.calls', '<', limit),
    )
    .returning('calls')
    .executeTakeFirst()
  return row !== undefined
}
