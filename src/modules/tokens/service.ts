/**
 * Personal API tokens (CONTRACT.md §5.2): created only from an interactive session, shown once,
 * stored as a hash, at most 100 active per user.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { pageWindow } from '../../db/keyset.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit, type RequestContext } from '../audit/service.js'
import type { Caller } from '../auth/caller.js'
import { lockUser } from '../users/repo.js'
import { apiTokenPrefix, generateApiToken, hashApiToken } from './format.js'
import { countActiveApiTokens, insertApiToken, listActiveApiTokens, revokeApiToken, type ApiTokenRow } from './repo.js'
import type { CreateApiTokenBody } from './schemas.js'

export const MAX_ACTIVE_TOKENS = 100

export async function createApiToken(
  deps: Deps,
  caller: Caller,
  input: CreateApiTokenBody,
  ctx: RequestContext,
): Promise<ApiTokenRow & { token: string }> {
  const token = generateApiToken()
  const now = deps.clock.now()
  return deps.db.transaction().execute(async (tx) => {
    // The user row is locked so that concurrent creations cannot both pass the quota check.
    await lockUser(tx, caller.user.id)
    if ((await countActiveApiTokens(tx, caller.user.id, now.toISOString())) >= MAX_ACTIVE_TOKENS) {
      throw new AppError('LIMIT_REACHED', {
        message: `You already have ${MAX_ACTIVE_TOKENS} active API tokens; revoke one first.`,
        details: `at most ${MAX_ACTIVE_TOKENS} active API tokens per user`,
      })
    }
    const row = await insertApiToken(tx, {
      id: newId(),
      user_id: caller.user.id,
      name: input.name,
      prefix: apiTokenPrefix(token),
      token_hash: hashApiToken(token),
      created_at: now.toISOString(),
      last_used_at: null,
      expires_at: input.expires_in_days === undefined ? null : addSeconds(now, input.expires_in_days * 86400).toISOString(),
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'token.create',
      actor: caller.user,
      target: { type: 'api_token', id: row.id },
      metadata: { name: row.name, prefix: row.prefix, expires_at: row.expires_at },
    })
    return { ...row, token }
  })
}

export async function listApiTokens(deps: Deps, caller: Caller, query: PageQuery): Promise<Page<ApiTokenRow>> {
  const window = pageWindow(query)
  const rows = await listActiveApiTokens(deps.db, caller.user.id, deps.clock.now().toISOString(), window)
  return toPage(
    rows,
    window.limit,
    (row) => row,
    (row) => [row.created_at, row.id],
  )
}

/** Revokes one of the caller's active tokens; the next request with it is refused. */
export async function revokeOwnApiToken(deps: Deps, caller: Caller, tokenId: string, ctx: RequestContext): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    if (!(await revokeApiToken(tx, caller.user.id, tokenId, deps.clock.now().toISOString()))) {
      throw new AppError('NOT_FOUND', { message: 'No such API token.' })
    }
    await recordAudit(tx, deps.clock, ctx, {
      action: 'token.revoke',
      actor: caller.user,
      target: { type: 'api_token', id: tokenId },
    })
  })
}
