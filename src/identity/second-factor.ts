/**
 * The caller's second factors, as the two-factor requirement and the MFA status need them: SQL
 * fragments that the authentication query reads with the credential (identity/sessions.repo.ts,
 * identity/api-tokens.repo.ts), so that neither costs a query of its own.
 */
import { sql, type Expression, type RawBuilder } from 'kysely'
import type { Timestamp } from '../db/schema.js'
import { epochMs } from '../lib/time.js'

/**
 * THE definition of "this user has a second factor": TOTP is on, or at least one passkey
 * is registered. Sign-in (isMfaEnabled), the administrators' `mfa_enabled` and anything else that
 * asks reads it from here, so no place can forget a kind of factor.
 */
export function secondFactorExists(userId: Expression<string>): RawBuilder<boolean | 0 | 1> {
  return sql<
    boolean | 0 | 1
  >`(exists (select 1 from mfa_totp where mfa_totp.user_id = ${userId}) or exists (select 1 from passkeys where passkeys.user_id = ${userId}))`
}

/**
 * A user's second factors as far as a request may need them, read by the
 * authentication query itself so that neither the two-factor policy's check nor GET
 * /api/auth/mfa/status costs a query of its own: whether the policy is met (every request:
 * MFA_POLICY_COLUMNS), and what the status shows (only the status route: MFA_STATUS_COLUMNS).
 * Scalar subqueries by the user's key, each an index lookup, usable in any query that has `users`
 * in scope. No clock value in them: on SQLite the rows of the authentication query are kept until
 * the database changes (db/sqlite.ts ReadCache).
 */
export interface MfaState {
  /** TOTP or a passkey: THE "has a second factor" (secondFactorExists). */
  hasSecondFactor: boolean
  /** What the MFA status shows; null unless the route declared `readsMfaStatus`. */
  status: MfaStatusState | null
}

export interface MfaStatusState {
  totpEnabledAt: Timestamp | null
  /** A TOTP enrolment begun and not confirmed; compare pendingExpiresMs with the clock. */
  pendingExpiresAt: Timestamp | null
  pendingExpiresMs: number | null
  backupCodesRemaining: number
}

export const MFA_POLICY_COLUMNS = [
  secondFactorExists(sql.ref('users.id')).as('mfa_second_factor'),
] as const

export const MFA_STATUS_COLUMNS = [
  ...MFA_POLICY_COLUMNS,
  sql<Timestamp | null>`(select enabled_at from mfa_totp where mfa_totp.user_id = ${sql.ref('users.id')})`.as(
    'mfa_totp_enabled_at',
  ),
  sql<Timestamp | null>`(select expires_at from mfa_pending where mfa_pending.user_id = ${sql.ref('users.id')})`.as(
    'mfa_pending_expires_at',
  ),
  sql<number>`(select count(*) from mfa_backup_codes b where b.user_id = ${sql.ref('users.id')} and b.used_at is null)`.as(
    'mfa_backup_codes_remaining',
  ),
] as const

/**
 * Built field by field (see toUserRecord): one hidden class, no slow spread of a node:sqlite row.
 */
export function toMfaState(row: { mfa_second_factor: boolean | 0 | 1 }): MfaState {
  return { hasSecondFactor: Boolean(row.mfa_second_factor), status: null }
}

export function toMfaStatusState(row: {
  mfa_second_factor: boolean | 0 | 1
  mfa_totp_enabled_at: Timestamp | null
  mfa_pending_expires_at: Timestamp | null
  mfa_backup_codes_remaining: number | string
}): MfaState {
  return {
    hasSecondFactor: Boolean(row.mfa_second_factor),
    status: {
      totpEnabledAt: row.mfa_totp_enabled_at,
      pendingExpiresAt: row.mfa_pending_expires_at,
      pendingExpiresMs: epochMs(row.mfa_pending_expires_at),
      backupCodesRemaining: Number(row.mfa_backup_codes_remaining),
    },
  }
}
