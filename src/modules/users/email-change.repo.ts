/** SQL for pending email changes: one live verification per user, consumed once. */
import type { Executor, Timestamp } from '../../db/schema.js'

export interface NewEmailVerification {
  id: string
  userId: string
  email: string
  tokenHash: string
  createdAt: Timestamp
  expiresAt: Timestamp
}

/**
 * Inserts the verification, deleting the user's earlier unused ones: only the newest link works.
 */
export async function replaceEmailVerification(
  ex: Executor,
  verification: NewEmailVerification,
): Promise<void> {
  await ex
    .deleteFrom('email_verifications')
    .where('user_id', '=', verification.userId)
    .where('used_at', 'is', null)
    .execute()
  await ex
    .insertInto('email_verifications')
    .values({
      id: verification.id,
      user_id: verification.userId,
      email: verification.email,
      token_hash: verification.tokenHash,
      created_at: verification.createdAt,
      expires_at: verification.expiresAt,
    })
    .execute()
}

/**
 * Marks the verification with this token hash used, if it is unused and unexpired, in one
 * conditional UPDATE: of two concurrent uses of one link exactly one gets the row.
 */
export async function consumeEmailVerification(
  ex: Executor,
  tokenHash: string,
  now: Timestamp,
): Promise<{ user_id: string; email: string } | null> {
  const row = await ex
    .updateTable('email_verifications')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'email'])
    .executeTakeFirst()
  return row ?? null
}

/**
 * Takes back a request whose mail could not be sent: its verification goes, and the user's
 * email_pending is cleared — unless a newer request has replaced it meanwhile.
 */
export async function withdrawEmailVerification(
  ex: Executor,
  verification: NewEmailVerification,
  now: Timestamp,
): Promise<void> {
  const deleted = await ex
    .deleteFrom('email_verifications')
    .where('id', '=', verification.id)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  if (deleted.numDeletedRows === 0n) return
  await ex
    .updateTable('users')
    .set({ email_pending: null, updated_at: now })
    .where('id', '=', verification.userId)
    .where('email_pending', '=', verification.email)
    .execute()
}
