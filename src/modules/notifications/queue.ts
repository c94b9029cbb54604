/**
 * Queuing a security notification in the transaction that makes the change (a transactional
 * outbox): the mail exists exactly when the change does, and is sent only after commit, by the
 * background sender (sender.ts), so the request never waits for SMTP.
 *
 * New sign-in: an account's devices are known by the class of their user agent — browser and
 * system ("Firefox on Linux") — hashed with the account id (known_devices). Neither the user agent
 * nor any other fingerprint is kept there. The first device an account is seen with is its
 * baseline and is not announced (a new account, or the first sign-in after this was introduced);
 * every later new class is, unless the person switched that mail off.
 */
import type { Executor } from '../../db/schema.js'
import { sha256Hex } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import type { Clock } from '../../lib/time.js'
import { deviceClassOf } from '../../lib/user-agent.js'
import {
  administrationChangeOf,
  notificationKindOf,
  type AdministrationChange,
  type NotificationKind,
  type NotificationParams,
} from './kinds.js'
import { findOtherAdministrators, findRecipient, insertOutboxRow, rememberDevice } from './repo.js'

/** What an audited change says, as far as a notification needs it (audit/service.ts passes it). */
export interface AuditedChange {
  action: string
  subjectUserId: string | null
  actorId: string | null
  ip: string | null
  userAgent: string | null
  metadata: Record<string, unknown>
}

/** `jane.doe@example.com` → `j•••@e•••.com`: enough to recognise, not enough to use. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at < 1) return '•••'
  const domain = email.slice(at + 1)
  const dot = domain.lastIndexOf('.')
  const host = dot > 0 ? domain.slice(0, dot) : domain
  const tld = dot > 0 ? domain.slice(dot) : ''
  return `${email[0]}•••@${host[0] ?? ''}•••${tld}`
}

function deviceHash(userId: string, userAgent: string | null): string {
  const { browser, system } = deviceClassOf(userAgent)
  return sha256Hex(`known-device\n${userId}\n${browser ?? '?'}\n${system ?? '?'}`)
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

function languageOf(preference: string): string {
  return preference.toLowerCase().startsWith('de') ? 'de' : 'en'
}

/** One mail to every other active administrator (kinds.ts administrationChangeOf). */
async function queueAdministrationNotices(
  ex: Executor,
  clock: Clock,
  change: AuditedChange,
  what: AdministrationChange,
): Promise<void> {
  const now = clock.now().toISOString()
  const { browser, system } = deviceClassOf(change.userAgent)
  const actor = change.actorId === null ? null : await findRecipient(ex, change.actorId)
  const params: NotificationParams = { at: now, ip: change.ip, browser, system, change: what }
  const name = text(change.metadata.name) ?? text(change.metadata.provider_key)
  if (name !== undefined) params.name = name
  if (actor !== null) params.actor_email_masked = maskEmail(actor.email)
  for (const admin of await findOtherAdministrators(ex, change.actorId)) {
    await insertOutboxRow(ex, {
      id: newId(),
      user_id: admin.id,
      recipient: admin.email,
      kind: 'administration_trust_changed',
      language: languageOf(admin.language),
      params: JSON.stringify(params),
      created_at: now,
      next_attempt_at: now,
    })
  }
}

export async function queueSecurityNotification(
  ex: Executor,
  clock: Clock,
  change: AuditedChange,
): Promise<void> {
  const administration = administrationChangeOf(change.action, change.metadata)
  if (administration !== null) await queueAdministrationNotices(ex, clock, change, administration)
  const kind: NotificationKind | null = notificationKindOf(change.action)
  if (kind === null || change.subjectUserId === null) return
  const userId = change.subjectUserId
  const recipient = await findRecipient(ex, userId)
  if (recipient === null) return
  const now = clock.now().toISOString()

  if (kind === 'new_sign_in') {
    const device = await rememberDevice(ex, userId, deviceHash(userId, change.userAgent), now)
    if (!device.isNew || !device.hadOthers || !recipient.notify_new_sign_in) return
  }

  const { browser, system } = deviceClassOf(change.userAgent)
  const params: NotificationParams = { at: now, ip: change.ip, browser, system }
  const name = text(change.metadata.name)
  if (name !== undefined) params.name = name
  let to = recipient.email
  if (kind === 'email_change_requested') {
    const newEmail = text(change.metadata.new_email)
    if (newEmail !== undefined) params.new_email_masked = maskEmail(newEmail)
  }
  // The change is done: the old address hears of it (the new one just proved itself).
  if (kind === 'email_changed') to = text(change.metadata.previous_email) ?? to
  if (kind === 'two_factor_reset') params.by_administrator = change.actorId !== null

  await insertOutboxRow(ex, {
    id: newId(),
    user_id: userId,
    recipient: to,
    kind,
    language: languageOf(recipient.language),
    params: JSON.stringify(params),
    created_at: now,
    next_attempt_at: now,
  })
}
