/** The person's one notification preference: the "new sign-in" mail. */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { findRecipient, setNewSignInPreference } from './repo.js'
import type { NotificationPreferencesView, UpdateNotificationPreferencesBody } from './schemas.js'

export async function getNotificationPreferences(
  deps: Deps,
  caller: Caller,
): Promise<NotificationPreferencesView> {
  const recipient = await findRecipient(deps.db, caller.user.id)
  if (recipient === null) throw new AppError('UNAUTHORIZED')
  return { new_sign_in: recipient.notify_new_sign_in }
}

export async function updateNotificationPreferences(
  deps: Deps,
  caller: Caller,
  body: UpdateNotificationPreferencesBody,
  ctx: RequestContext,
): Promise<NotificationPreferencesView> {
  await deps.db.transaction().execute(async (tx) => {
    await setNewSignInPreference(tx, caller.user.id, body.new_sign_in)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.notifications_update',
      actor: caller.user,
      target: { type: 'user', id: caller.user.id },
      metadata: { new_sign_in: body.new_sign_in },
    })
  })
  return { new_sign_in: body.new_sign_in }
}
