/**
 * Resolving the credential of a request to a Caller: the hot path of every authenticated request.
 * A JWT costs one signature check and one indexed lookup (session joined to user by primary key);
 * `last_seen_at` is written at most once a minute per session, after the answer, never awaited.
 */
import type { Deps } from '../../deps.js'
import type { Caller } from './caller.js'
import { findLiveSession, touchSession } from './repo.js'

const TOUCH_INTERVAL_MS = 60_000

export async function authenticateBearer(deps: Deps, token: string): Promise<Caller | null> {
  const claims = await deps.accessTokens.verify(token)
  if (claims === null) return null
  const now = deps.clock.now()
  const found = await findLiveSession(deps.db, claims.sid, now.toISOString())
  if (found === null || found.user.id !== claims.sub) return null
  if (now.getTime() - Date.parse(found.lastSeenAt) >= TOUCH_INTERVAL_MS) {
    const staleBefore = new Date(now.getTime() - TOUCH_INTERVAL_MS).toISOString()
    touchSession(deps.db, claims.sid, now.toISOString(), staleBefore).catch((error: Error) =>
      deps.logger.warn({ error: { message: error.message } }, 'could not record session activity'),
    )
  }
  return { user: found.user, credential: 'session', sessionId: claims.sid, tokenId: null }
}
