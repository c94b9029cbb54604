/**
 * SQL for the sessions page (the list, revoking one) and the instance's once-only flags. A
 * session's life otherwise (opened, looked up, marked, revoked) is identity/sessions.repo.ts.
 */
import type { Executor, Timestamp } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'

/** Revokes one live session of the user; false when there is none with that id (or not theirs). */
export async function revokeSession(
  ex: Executor,
  userId: string,
  sessionId: string,
  now: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export interface SessionListing {
  id: string
  created_at: Timestamp
  last_seen_at: Timestamp
  user_agent: string | null
  ip: string | null
  sign_in_method: string | null
}

/** Live sessions of the user, newest first. */
/** Live = not revoked, not expired, and seen since `idleSince` (the idle timeout). */
export async function listLiveSessions(
  ex: Executor,
  userId: string,
  now: Timestamp,
  idleSince: Timestamp,
  window: PageWindow,
): Promise<SessionListing[]> {
  const query = ex
    .selectFrom('sessions')
    .select(['id', 'created_at', 'last_seen_at', 'user_agent', 'ip', 'sign_in_method'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>=', idleSince)
  return newestFirst(query, window).execute()
}

/** Sets a once-only flag; false when it was already set (by this or a concurrent transaction). */
export async function setInstanceFlag(
  ex: Executor,
  name: string,
  now: Timestamp,
): Promise<boolean> {
  const result = await ex
    .insertInto('instance_flags')
    .values({ name, set_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst()
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n
}
