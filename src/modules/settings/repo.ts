/** SQL for the settings table: generic keys and the typed sections' rows alike. */
import type { Executor, Timestamp } from '../../db/schema.js'

export interface SettingRow {
  key: string
  /** JSON text. */
  value: string
  updated_at: Timestamp
}

export interface SettingWrite {
  key: string
  value: string
  updatedAt: Timestamp
  updatedBy: string | null
}

const COLUMNS = ['key', 'value', 'updated_at'] as const

/** Rows in key order, `limit + 1` of them after `afterKey`. */
export async function listSettingRows(
  ex: Executor,
  page: { limit: number; afterKey: string | null },
): Promise<SettingRow[]> {
  let query = ex
    .selectFrom('settings')
    .select(COLUMNS)
    .orderBy('key')
    .limit(page.limit + 1)
  if (page.afterKey !== null) query = query.where('key', '>', page.afterKey)
  return query.execute()
}

export async function findSettingRow(ex: Executor, key: string): Promise<SettingRow | null> {
  return (
    (await ex.selectFrom('settings').select(COLUMNS).where('key', '=', key).executeTakeFirst()) ??
    null
  )
}

export async function upsertSettingRow(ex: Executor, row: SettingWrite): Promise<SettingRow> {
  const values = { value: row.value, updated_at: row.updatedAt, updated_by: row.updatedBy }
  return ex
    .insertInto('settings')
    .values({ key: row.key, ...values })
    .onConflict((oc) => oc.column('key').doUpdateSet(values))
    .returning(COLUMNS)
    .executeTakeFirstOrThrow()
}

export async function deleteSettingRow(ex: Executor, key: string): Promise<boolean> {
  const result = await ex.deleteFrom('settings').where('key', '=', key).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/**
 * The row of `key`, locked until the transaction ends, created from `initial` when absent. Creating
 * first means even the very first writes of a section queue on one row (PostgreSQL; SQLite
 * serialises writers), so two concurrent partial updates cannot lose each other's fields.
 */
export async function lockSettingRow(ex: Executor, initial: SettingWrite): Promise<SettingRow> {
  await ex
    .insertInto('settings')
    .values({
      key: initial.key,
      value: initial.value,
      updated_at: initial.updatedAt,
      updated_by: initial.updatedBy,
    })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute()
  return ex
    .selectFrom('settings')
    .select(COLUMNS)
    .where('key', '=', initial.key)
    .forUpdate()
    .executeTakeFirstOrThrow()
}
