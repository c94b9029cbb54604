/**
 * Ending an account's unused password-reset links: what every change of a credential does (the
 * password, the email address, a second factor, the disabled state, deprovisioning), inside the
 * transaction that makes the change. A link mailed or handed over before the change must not undo
 * it: the link in an old mailbox would otherwise take the account after its owner moved away.
 */
import type { Executor } from '../db/schema.js'

/** Deletes the account's unused links (used ones stay as the record of a reset); the count. */
export async function deleteUnusedResetLinks(ex: Executor, userId: string): Promise<number> {
  const result = await ex
    .deleteFrom('password_resets')
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
