/** SQL for passkeys (WebAuthn credentials) and their ceremony challenges. */
import type { Executor, PasskeyChallengesTable, Timestamp } from '../../db/schema.js'

export interface PasskeyRecord {
  id: string
  user_id: string
  credential_id: string
  public_key: Uint8Array
  counter: number
  transports: string[]
  backup_eligible: boolean
  backed_up: boolean
  name: string
  created_at: Timestamp
  last_used_at: Timestamp | null
}

const PASSKEY_COLUMNS = [
  'id',
  'user_id',
  'credential_id',
  'public_key',
  'counter',
  'transports',
  'backup_eligible',
  'backed_up',
  'name',
  'created_at',
  'last_used_at',
] as const

type PasskeyRow = Omit<
  PasskeyRecord,
  'transports' | 'backup_eligible' | 'backed_up' | 'counter'
> & {
  transports: string
  backup_eligible: boolean | 0 | 1
  backed_up: boolean | 0 | 1
  counter: number | bigint
}

function toRecord(row: PasskeyRow): PasskeyRecord {
  return {
    ...row,
    counter: Number(row.counter),
    transports: JSON.parse(row.transports) as string[],
    backup_eligible: Boolean(row.backup_eligible),
    backed_up: Boolean(row.backed_up),
  }
}

export async function listPasskeys(ex: Executor, userId: string): Promise<PasskeyRecord[]> {
  const rows = await ex
    .selectFrom('passkeys')
    .select(PASSKEY_COLUMNS)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()
  return rows.map(toRecord)
}

export async function countPasskeys(ex: Executor, userId: string): Promise<number> {
  const row = await ex
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number | bigint>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** Owner-scoped: another user's passkey id is simply not found. */
export async function findOwnPasskey(
  ex: Executor,
  userId: string,
  id: string,
): Promise<PasskeyRecord | null> {
  const row = await ex
    .selectFrom('passkeys')
    .select(PASSKEY_COLUMNS)
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toRecord(row) : null
}

export async function findPasskeyByCredentialId(
  ex: Executor,
  credentialId: string,
): Promise<PasskeyRecord | null> {
  const row = await ex
    .selectFrom('passkeys')
    .select(PASSKEY_COLUMNS)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
  return row ? toRecord(row) : null
}

export interface NewPasskey {
  id: string
  user_id: string
  credential_id: string
  public_key: Uint8Array
  counter: number
  transports: string[]
  backup_eligible: boolean
  backed_up: boolean
  aaguid: string
  name: string
  created_at: Timestamp
}

export async function insertPasskey(ex: Executor, passkey: NewPasskey): Promise<void> {
  await ex
    .insertInto('passkeys')
    .values({ ...passkey, transports: JSON.stringify(passkey.transports), last_used_at: null })
    .execute()
}

export async function renamePasskey(
  ex: Executor,
  userId: string,
  id: string,
  name: string,
): Promise<boolean> {
  const result = await ex
    .updateTable('passkeys')
    .set({ name })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function deletePasskey(ex: Executor, userId: string, id: string): Promise<boolean> {
  const result = await ex
    .deleteFrom('passkeys')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

/**
 * Records a verified use: the new signature counter and backup state. Conditional on the counter
 * read before the verification, so of two concurrent uses that both passed the counter check only
 * one is recorded (the other is a clone or a replay and is refused).
 */
export async function recordPasskeyUse(
  ex: Executor,
  id: string,
  use: { previousCounter: number; counter: number; backedUp: boolean; at: Timestamp },
): Promise<boolean> {
  const result = await ex
    .updateTable('passkeys')
    .set({ counter: use.counter, backed_up: use.backedUp, last_used_at: use.at })
    .where('id', '=', id)
    .where('counter', '=', use.previousCounter)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export type ChallengePurpose = PasskeyChallengesTable['purpose']

/** Stores the binding's one live challenge; a new one replaces the previous (used or not). */
export async function putChallenge(
  ex: Executor,
  row: {
    id: string
    purpose: ChallengePurpose
    binding: string
    user_id: string | null
    challenge: string
    created_at: Timestamp
    expires_at: Timestamp
  },
): Promise<void> {
  // Expired challenges of every binding go at the same time, so the table holds only live ones.
  await ex.deleteFrom('passkey_challenges').where('expires_at', '<=', row.created_at).execute()
  await ex
    .insertInto('passkey_challenges')
    .values({ ...row, used_at: null })
    .onConflict((oc) =>
      oc.columns(['purpose', 'binding']).doUpdateSet({
        id: row.id,
        user_id: row.user_id,
        challenge: row.challenge,
        created_at: row.created_at,
        expires_at: row.expires_at,
        used_at: null,
      }),
    )
    .execute()
}

/**
 * Takes the binding's live challenge: one conditional UPDATE … RETURNING, so of two requests using
 * it exactly one gets it (single use, also across instances); null when unknown, used or expired.
 */
export async function consumeChallenge(
  ex: Executor,
  purpose: ChallengePurpose,
  binding: string,
  now: Timestamp,
): Promise<{ challenge: string; user_id: string | null } | null> {
  const row = await ex
    .updateTable('passkey_challenges')
    .set({ used_at: now })
    .where('purpose', '=', purpose)
    .where('binding', '=', binding)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['challenge', 'user_id'])
    .executeTakeFirst()
  return row ?? null
}

/**
 * Whether the binding has a live challenge (read only: a cheap check before budgets are charged).
 */
export async function hasLiveChallenge(
  ex: Executor,
  purpose: ChallengePurpose,
  binding: string,
  now: Timestamp,
): Promise<boolean> {
  const row = await ex
    .selectFrom('passkey_challenges')
    .select('id')
    .where('purpose', '=', purpose)
    .where('binding', '=', binding)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row !== undefined
}
