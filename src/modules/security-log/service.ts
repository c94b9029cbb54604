/**
 * The personal security log: the caller's own sign-ins (successful and failed,
 * with IP and browser), second-factor, passkey, password, email, session and API-token changes,
 * and the teams they shared their links with or stopped sharing with —
 * read from the audit trail by `subject_user_id` (whose account an event concerns;
 * audit/service.ts) and an allow-list of actions, newest first, keyset-paged. Only the owner's id
 * is ever queried: failed sign-ins against an existing account's email appear for that account
 * alone, and nothing about any other account can be reached. Metadata is projected to a few named
 * fields, never passed through (a failed sign-in's typed email, an administrator's id stay out).
 */
import type { Deps } from '../../deps.js'
import { pageWindow } from '../../db/keyset.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import type { Caller } from '../../identity/caller.js'
import { listSecurityEvents, type SecurityEventRow } from './repo.js'
import type { SecurityEventView } from './schemas.js'

export const SECURITY_LOG_ACTIONS = [
  'auth.setup',
  'auth.login',
  'auth.login_failed',
  'auth.mfa_verify_failed',
  'auth.oidc_failed',
  'auth.passkey_failed',
  'auth.logout',
  'session.revoke',
  'user.password_change',
  'user.password_reset_requested',
  'user.password_reset',
  'user.email_change_requested',
  'user.email_verified',
  'user.oidc_link',
  'user.oidc_unlink',
  'mfa.enable',
  'mfa.disable',
  'mfa.backup_regenerate',
  'mfa.reset',
  'passkey.register',
  'passkey.rename',
  'passkey.delete',
  'token.create',
  'token.revoke',
  'admin.user_update',
  'link.share',
  'link.unshare',
] as const

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
/** A link's sharing change names its teams. */
const teamNames = (value: unknown): string | null =>
  Array.isArray(value) ? value.filter((name) => typeof name === 'string').join(', ') : null

function toView(row: SecurityEventRow, ownerId: string): SecurityEventView {
  const metadata = JSON.parse(row.metadata) as Record<string, unknown>
  return {
    id: row.id,
    at: row.at,
    action: row.action,
    ip: row.ip,
    user_agent: row.user_agent,
    method: text(metadata.method),
    name: text(metadata.name) ?? teamNames(metadata.teams),
    by_administrator: row.actor_id !== null && row.actor_id !== ownerId,
  }
}

export async function listOwnSecurityEvents(
  deps: Deps,
  caller: Caller,
  query: PageQuery,
): Promise<Page<SecurityEventView>> {
  const window = pageWindow(query)
  const userId = caller.user.id
  const rows = await listSecurityEvents(deps.db, userId, SECURITY_LOG_ACTIONS, window)
  return toPage(
    rows,
    window.limit,
    (row) => toView(row, userId),
    (row) => [row.at, row.id],
  )
}
