/** SQL for the TOTP factor, pending enrollments, backup codes and sign-in challenges. */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../../db/schema.js'
import { secondFactorExists } from '../../identity/second-factor.js'

export interface TotpFactor {
  secret_encrypted: string
  enabled_at: Timestamp
}

export async function findTotpFactor(ex: Executor, userId: string): Promise<TotpFactor | null> {
  const row = await ex
    .selectFrom('mfa_totp')
    .select(['secret_encrypted', 'enabled_at'])
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return row ?? null
}

export async function insertTotpFactor(
  ex: Executor,
  userId: string,
  secretEncrypted: string,
  enabledAt: Timestamp,
  step: number,
): Promise<void> {
  await ex
    .insertInto('mfa_totp')
    .values({
      user_id: userId,
      secret_encrypted: secretEncrypted,
      enabled_at: enabledAt,
      last_used_step: step,
    })
    .execute()
}

/**
 * Records `step` as the last accepted time step, only if it is later than the one stored. One
 * conditional UPDATE: of two uses of a code (or of two codes for older steps), at most one wins —
 * also across instances sharing the database.
 */
export async function advanceTotpStep(
  ex: Executor,
  userId: string,
  step: number,
): Promise<boolean> {
  const result = await ex
    .updateTable('mfa_totp')
    .set({ last_used_step: step })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function hasSecondFactor(ex: Executor, userId: string): Promise<boolean> {
  const row = await ex
    .selectFrom('users')
    .select(secondFactorExists(sql.ref('users.id')).as('on'))
    .where('users.id', '=', userId)
    .executeTakeFirst()
  return Boolean(row?.on)
}

/**
 * Every second factor and what belongs to it (the administrator's reset): TOTP, backup codes,
 * passkeys.
 */
export async function deleteMfaState(ex: Executor, userId: string): Promise<number> {
  let removed = 0
  for (const table of [
    'mfa_totp',
    'mfa_pending',
    'mfa_backup_codes',
    'mfa_challenges',
    'passkeys',
    'passkey_challenges',
  ] as const) {
    removed += Number(
      (await ex.deleteFrom(table).where('user_id', '=', userId).executeTakeFirst()).numDeletedRows,
    )
  }
  return removed
}

export async function upsertPendingEnrollment(
  ex: Executor,
  pending: {
    user_id: string
    secret_encrypted: string
    created_at: Timestamp
    expires_at: Timestamp
  },
): Promise<void> {
  await ex
    .insertInto('mfa_pending')
    .values(pending)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        secret_encrypted: pending.secret_encrypted,
        created_at: pending.created_at,
        expires_at: pending.expires_at,
      }),
    )
    .execute()
}

export async function findPendingEnrollment(
  ex: Executor,
  userId: string,
  now: Timestamp,
): Promise<{ secret_encrypted: string } | null> {
  const row = await ex
    .selectFrom('mfa_pending')
    .select('secret_encrypted')
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row ?? null
}

/**
 * Removes the pending enrollment that was read (by its ciphertext), so a replaced one is not
 * consumed.
 */
export async function takePendingEnrollment(
  ex: Executor,
  userId: string,
  secretEncrypted: string,
): Promise<boolean> {
  const result = await ex
    .deleteFrom('mfa_pending')
    .where('user_id', '=', userId)
    .where('secret_encrypted', '=', secretEncrypted)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function deletePendingEnrollment(ex: Executor, userId: string): Promise<void> {
  await ex.deleteFrom('mfa_pending').where('user_id', '=', userId).execute()
}

export async function replaceBackupCodes(
  ex: Executor,
  userId: string,
  rows: Array<{ id: string; code_hash: string; selector: string; created_at: Timestamp }>,
): Promise<void> {
  await ex.deleteFrom('mfa_backup_codes').where('user_id', '=', userId).execute()
  await ex
    .insertInto('mfa_backup_codes')
    .values(rows.map((row) => ({ ...row, user_id: userId, used_at: null })))
    .execute()
}

/**
 * The unused codes an attempt can match: the one with its selector, and any made before selectors
 * existed.
 */
export async function listBackupCodeCandidates(
  ex: Executor,
  userId: string,
  selector: string,
): Promise<Array<{ id: string; code_hash: string }>> {
  return ex
    .selectFrom('mfa_backup_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where((eb) => eb.or([eb('selector', '=', selector), eb('selector', 'is', null)]))
    .execute()
}

/** Marks a code used only if it still is unused: of two concurrent uses exactly one succeeds. */
export async function consumeBackupCode(
  ex: Executor,
  codeId: string,
  now: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('mfa_backup_codes')
    .set({ used_at: now })
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function insertChallenge(
  ex: Executor,
  challenge: {
    id: string
    user_id: string
    token_hash: string
    method: string
    created_at: Timestamp
    expires_at: Timestamp
  },
): Promise<void> {
  await ex
    .insertInto('mfa_challenges')
    .values({ ...challenge, used_at: null })
    .execute()
}

export interface LiveChallenge {
  id: string
  user_id: string
  method: string
}

export async function findLiveChallenge(
  ex: Executor,
  tokenHash: string,
  now: Timestamp,
): Promise<LiveChallenge | null> {
  const row = await ex
    .selectFrom('mfa_challenges')
    .select(['id', 'user_id', 'method'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row ?? null
}

/** Uses up the challenge; false when another request already did (it is single-use). */
export async function consumeChallenge(
  ex: Executor,
  challengeId: string,
  now: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('mfa_challenges')
    .set({ used_at: now })
    .where('id', '=', challengeId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Challenges are short-lived; old ones are removed when a new one is made for the user. */
export async function deleteStaleChallenges(
  ex: Executor,
  userId: string,
  now: Timestamp,
): Promise<void> {
  await ex
    .deleteFrom('mfa_challenges')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now)]))
    .execute()
}
