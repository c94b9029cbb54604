/**
 * SQL for the first-run checklist: a few existence checks, each one indexed lookup or a tiny table.
 */
import type { Executor, Timestamp } from '../../db/schema.js'

export async function hasIdentityProvider(ex: Executor): Promise<boolean> {
  return (
    (await ex.selectFrom('oidc_providers').select('id').limit(1).executeTakeFirst()) !== undefined
  )
}

/** Whether any invitation was ever made, or a second account exists: the team has been asked in. */
export async function hasInvitedAnyone(ex: Executor): Promise<boolean> {
  if (
    (await ex.selectFrom('organization_invitations').select('id').limit(1).executeTakeFirst()) !==
    undefined
  )
    return true
  return (await ex.selectFrom('users').select('id').limit(2).execute()).length > 1
}

/** The newest audit event with this action (on the (action, at) index), with its metadata. */
export async function latestAuditEvent(
  ex: Executor,
  action: string,
): Promise<{ at: Timestamp; metadata: string } | null> {
  const row = await ex
    .selectFrom('audit_events')
    .select(['at', 'metadata'])
    .where('action', '=', action)
    .orderBy('at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ?? null
}
