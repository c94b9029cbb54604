/** SQL for password reset links: inserted hashed, looked up and consumed by the token's hash. */
import type { Executor, Timestamp } from '../../db/schema.js'

export interface NewPasswordReset {
  id: string
  userId: string
  tokenHash: string
  via: ResetVia
  createdAt: Timestamp
  expiresAt: Timestamp
}

/**
 * Who asked for a link: the person (forgot page), an administrator (mailed or copied), the
 * operator.
 */
export type ResetVia = 'self' | 'admin_mail' | 'admin_link' | 'cli' | 'welcome'

export async function insertPasswordReset(ex: Executor, reset: NewPasswordReset): Promise<void> {
  await ex
    .insertInto('password_resets')
    .values({
      id: reset.id,
      user_id: reset.userId,
      token_hash: reset.tokenHash,
      via: reset.via,
      created_at: reset.createdAt,
      expires_at: reset.expiresAt,
    })
    .execute()
}

/** The link with this hash if it is still usable (unused, unexpired): one indexed lookup. */
export async function findLivePasswordReset(
  ex: Executor,
  tokenHash: string,
  now: Timestamp,
): Promise<{ id: string; user_id: string; via: string; expires_at: Timestamp } | null> {
  const row = await ex
    .selectFrom('password_resets')
    .select(['id', 'user_id', 'via', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row ?? null
}

/**
 * Marks the link used if it is still unused and unexpired, in one conditional UPDATE: of two
 * concurrent uses of one link exactly one gets the row (docs/ARCHITECTURE.md, convention 4).
 */
export async function consumePasswordReset(
  ex: Executor,
  id: string,
  now: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

export async function deletePasswordReset(ex: Executor, id: string): Promise<void> {
  await ex.deleteFrom('password_resets').where('id', '=', id).where('used_at', 'is', null).execute()
}

/** The display name of the identity provider an account signs in with (null when it is gone). */
export async function findProviderName(ex: Executor, providerKey: string): Promise<string | null> {
  const row = await ex
    .selectFrom('oidc_providers')
    .select('name')
    .where('provider_key', '=', providerKey)
    .executeTakeFirst()
  return row?.name ?? null
}
