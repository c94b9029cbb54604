/**
 * SQL for the oidc_providers table. Reads for responses select PROVIDER_COLUMNS, which carry
 * `client_secret_set` as a computed flag; only findProviderForSignIn reads the ciphertext.
 */
import { sql } from 'kysely'
import type { Executor, OidcProvidersTable, Timestamp } from '../../db/schema.js'

export interface ProviderRecord {
  id: string
  provider_key: string
  name: string
  issuer_url: string
  client_id: string
  client_secret_set: boolean
  /** Space-separated. */
  scopes: string
  auto_create_users: boolean
  default_role: 'user' | 'admin'
  enabled: boolean
  trust_email: boolean
  trusts_mfa_amr: boolean
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ProviderCredentials extends ProviderRecord {
  client_secret_encrypted: string | null
}

export type ProviderRow = Omit<
  OidcProvidersTable,
  'auto_create_users' | 'enabled' | 'trust_email' | 'trusts_mfa_amr'
> & {
  auto_create_users: boolean
  enabled: boolean
  trust_email: boolean
  trusts_mfa_amr: boolean
}
export type ProviderChanges = Partial<Omit<ProviderRow, 'id' | 'created_at'>>

const PROVIDER_COLUMNS = [
  'id',
  'provider_key',
  'name',
  'issuer_url',
  'client_id',
  'scopes',
  'auto_create_users',
  'default_role',
  'enabled',
  'trust_email',
  'trusts_mfa_amr',
  'created_at',
  'updated_at',
  sql<boolean | 0 | 1>`(${sql.ref('client_secret_encrypted')} is not null)`.as('client_secret_set'),
] as const

type RawProvider = Omit<
  ProviderRecord,
  'client_secret_set' | 'auto_create_users' | 'enabled' | 'trust_email' | 'trusts_mfa_amr'
> & {
  client_secret_set: unknown
  auto_create_users: unknown
  enabled: unknown
  trust_email: unknown
  trusts_mfa_amr: unknown
}

/** SQLite answers booleans as 0/1. */
function toRecord<R extends RawProvider>(row: R): R & ProviderRecord {
  return {
    ...row,
    client_secret_set: Boolean(row.client_secret_set),
    auto_create_users: Boolean(row.auto_create_users),
    enabled: Boolean(row.enabled),
    trust_email: Boolean(row.trust_email),
    trusts_mfa_amr: Boolean(row.trusts_mfa_amr),
  }
}

/** Rows in key order, `limit + 1` of them after `afterKey`. */
export async function listProviderRows(
  ex: Executor,
  page: { limit: number; afterKey: string | null; enabledOnly: boolean },
): Promise<ProviderRecord[]> {
  let query = ex
    .selectFrom('oidc_providers')
    .select(PROVIDER_COLUMNS)
    .orderBy('provider_key')
    .limit(page.limit + 1)
  if (page.afterKey !== null) query = query.where('provider_key', '>', page.afterKey)
  if (page.enabledOnly) query = query.where('enabled', '=', true)
  return (await query.execute()).map(toRecord)
}

export async function findProviderById(ex: Executor, id: string): Promise<ProviderRecord | null> {
  const row = await ex
    .selectFrom('oidc_providers')
    .select(PROVIDER_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirst()
  return row === undefined ? null : toRecord(row)
}

/** The one read of the client secret's ciphertext: for signing in through an enabled provider. */
export async function findProviderForSignIn(
  ex: Executor,
  providerKey: string,
): Promise<ProviderCredentials | null> {
  const row = await ex
    .selectFrom('oidc_providers')
    .select([...PROVIDER_COLUMNS, 'client_secret_encrypted'])
    .where('provider_key', '=', providerKey)
    .where('enabled', '=', true)
    .executeTakeFirst()
  return row === undefined ? null : toRecord(row)
}

export async function insertProvider(ex: Executor, row: ProviderRow): Promise<ProviderRecord> {
  return toRecord(
    await ex
      .insertInto('oidc_providers')
      .values(row)
      .returning(PROVIDER_COLUMNS)
      .executeTakeFirstOrThrow(),
  )
}

/**
 * The provider's key and issuer, its row locked until the transaction ends (PostgreSQL; SQLite
 * serialises writers).
 */
export async function lockProvider(
  ex: Executor,
  id: string,
): Promise<{ provider_key: string; issuer_url: string } | null> {
  const row = await ex
    .selectFrom('oidc_providers')
    .select(['provider_key', 'issuer_url'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
  return row ?? null
}

export async function updateProvider(
  ex: Executor,
  id: string,
  changes: ProviderChanges,
): Promise<ProviderRecord | null> {
  const row = await ex
    .updateTable('oidc_providers')
    .set(changes)
    .where('id', '=', id)
    .returning(PROVIDER_COLUMNS)
    .executeTakeFirst()
  return row === undefined ? null : toRecord(row)
}

/** Deletes the provider; returns its key, or null when there was none. */
export async function deleteProvider(ex: Executor, id: string): Promise<string | null> {
  const row = await ex
    .deleteFrom('oidc_providers')
    .where('id', '=', id)
    .returning('provider_key')
    .executeTakeFirst()
  return row?.provider_key ?? null
}

/** Every stored client secret, the rows locked until the transaction ends: for key rotation. */
export async function lockClientSecrets(
  ex: Executor,
): Promise<Array<{ id: string; client_secret_encrypted: string }>> {
  const rows = await ex
    .selectFrom('oidc_providers')
    .select(['id', 'client_secret_encrypted'])
    .where('client_secret_encrypted', 'is not', null)
    .forUpdate()
    .execute()
  return rows.map((row) => ({ id: row.id, client_secret_encrypted: row.client_secret_encrypted! }))
}

export async function setClientSecret(ex: Executor, id: string, ciphertext: string): Promise<void> {
  await ex
    .updateTable('oidc_providers')
    .set({ client_secret_encrypted: ciphertext })
    .where('id', '=', id)
    .execute()
}
