/** SQL for security notifications: the outbox, the known devices and the one preference. */
import type { Executor, MailOutboxTable, Timestamp } from '../../db/schema.js'

export interface NotificationRecipient {
  email: string
  language: string
  notify_new_sign_in: boolean
}

export async function findRecipient(
  ex: Executor,
  userId: string,
): Promise<NotificationRecipient | null> {
  const row = await ex
    .selectFrom('users')
    .select(['email', 'language', 'notify_new_sign_in'])
    .where('id', '=', userId)
    .executeTakeFirst()
  return row === undefined ? null : { ...row, notify_new_sign_in: Boolean(row.notify_new_sign_in) }
}

/** Every active administrator but `exceptId` (the one who made the change). */
export async function findOtherAdministrators(
  ex: Executor,
  exceptId: string | null,
): Promise<Array<{ id: string; email: string; language: string }>> {
  let query = ex
    .selectFrom('users')
    .select(['id', 'email', 'language'])
    .where('is_admin', '=', true)
    .where('disabled', '=', false)
  if (exceptId !== null) query = query.where('id', '!=', exceptId)
  return query.execute()
}

export async function setNewSignInPreference(
  ex: Executor,
  userId: string,
  enabled: boolean,
): Promise<void> {
  await ex
    .updateTable('users')
    .set({ notify_new_sign_in: enabled })
    .where('id', '=', userId)
    .execute()
}

/**
 * Records a sign-in's device class for the account. Returns whether it is new (this transaction
 * inserted it; of two concurrent first sign-ins one inserts, the other finds it) and whether the
 * account had any device before.
 */
export async function rememberDevice(
  ex: Executor,
  userId: string,
  deviceHash: string,
  now: Timestamp,
): Promise<{ isNew: boolean; hadOthers: boolean }> {
  const inserted = await ex
    .insertInto('known_devices')
    .values({ user_id: userId, device_hash: deviceHash, first_seen_at: now, last_seen_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'device_hash']).doNothing())
    .executeTakeFirst()
  const isNew = (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n
  if (!isNew) {
    await ex
      .updateTable('known_devices')
      .set({ last_seen_at: now })
      .where('user_id', '=', userId)
      .where('device_hash', '=', deviceHash)
      .execute()
    return { isNew, hadOthers: true }
  }
  const other = await ex
    .selectFrom('known_devices')
    .select('device_hash')
    .where('user_id', '=', userId)
    .where('device_hash', '!=', deviceHash)
    .limit(1)
    .executeTakeFirst()
  return { isNew, hadOthers: other !== undefined }
}

export type OutboxRow = Pick<
  MailOutboxTable,
  'id' | 'user_id' | 'recipient' | 'kind' | 'language' | 'params' | 'attempts' | 'next_attempt_at'
>

export async function insertOutboxRow(
  ex: Executor,
  row: Omit<OutboxRow, 'attempts'> & { created_at: Timestamp },
): Promise<void> {
  await ex
    .insertInto('mail_outbox')
    .values({ ...row, status: 'pending', attempts: 0 })
    .execute()
}

/** Pending rows whose time has come, oldest first. */
export async function findDueRows(
  ex: Executor,
  now: Timestamp,
  limit: number,
): Promise<OutboxRow[]> {
  return ex
    .selectFrom('mail_outbox')
    .select([
      'id',
      'user_id',
      'recipient',
      'kind',
      'language',
      'params',
      'attempts',
      'next_attempt_at',
    ])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute()
}

/**
 * Claims a row for one delivery attempt: a conditional update on the time this instance read, so
 * of several instances (or a restart) exactly one proceeds; the lease pushes the next attempt out
 * in case this one dies mid-way.
 */
export async function claimRow(
  ex: Executor,
  row: OutboxRow,
  leaseUntil: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('mail_outbox')
    .set({ next_attempt_at: leaseUntil, attempts: row.attempts + 1 })
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '=', row.next_attempt_at)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function finishRow(
  ex: Executor,
  id: string,
  status: 'sent' | 'failed' | 'skipped',
  now: Timestamp,
  error: string | null,
): Promise<void> {
  await ex
    .updateTable('mail_outbox')
    .set({ status, finished_at: now, last_error: error })
    .where('id', '=', id)
    .execute()
}

export async function retryRowAt(
  ex: Executor,
  id: string,
  at: Timestamp,
  error: string,
): Promise<void> {
  await ex
    .updateTable('mail_outbox')
    .set({ next_attempt_at: at, last_error: error })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute()
}
