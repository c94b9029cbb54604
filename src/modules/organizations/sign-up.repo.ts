/**
 * SQL for the instance's sign-up rule: one row of the settings table under its reserved key, read
 * and written here because invitations decide by it (the settings module sits above this one).
 */
import type { Executor, Timestamp } from '../../db/schema.js'

export const SIGN_UP_SETTING = 'sign_up'

export async function readSignUpRow(
  ex: Executor,
): Promise<{ value: string; updated_at: Timestamp } | null> {
  return (
    (await ex
      .selectFrom('settings')
      .select(['value', 'updated_at'])
      .where('key', '=', SIGN_UP_SETTING)
      .executeTakeFirst()) ?? null
  )
}

export async function writeSignUpRow(
  ex: Executor,
  value: string,
  now: Timestamp,
  by: string,
): Promise<void> {
  const values = { value, updated_at: now, updated_by: by }
  await ex
    .insertInto('settings')
    .values({ key: SIGN_UP_SETTING, ...values })
    .onConflict((oc) => oc.column('key').doUpdateSet(values))
    .execute()
}
