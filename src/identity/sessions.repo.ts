/**
 * SQL for the session a request presents: opening one at sign-in, the per-request lookup that
 * answers everything the request needs to know, its activity mark, its re-authentication mark, and
 * revoking all of a user's sessions (what every credential change does).
 */
import { precompiled } from '../db/precompiled.js'
import type { Executor, Timestamp } from '../db/schema.js'
import { USER_COLUMNS, toUserRecord, type UserRecord } from './user.js'
import {
  MFA_POLICY_COLUMNS,
  MFA_STATUS_COLUMNS,
  toMfaState,
  toMfaStatusState,
  type MfaState,
} from './second-factor.js'
import { settingValue } from './setting-value.js'
import { TWO_FACTOR_POLICY_KEY } from './two-factor-requirement.js'

export interface NewSession {
  id: string
  userId: string
  createdAt: Timestamp
  expiresAt: Timestamp
  userAgent: string | null
  ip: string | null
  /** A trusted identity provider reported a second factor (amr) for this sign-in. */
  idpMfa?: boolean
  /** A sign-in opens the re-authentication window (its time); absent, none is open. */
  reauthenticatedAt?: Timestamp
  /** How the person signed in (the auth.login event's `method`), shown in the list of sessions. */
  signInMethod?: string
}

export async function insertSession(ex: Executor, session: NewSession): Promise<void> {
  await ex
    .insertInto('sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      created_at: session.createdAt,
      last_seen_at: session.createdAt,
      expires_at: session.expiresAt,
      user_agent: session.userAgent,
      ip: session.ip,
      idp_mfa: session.idpMfa ?? false,
      reauthenticated_at: session.reauthenticatedAt ?? null,
      sign_in_method: session.signInMethod ?? null,
    })
    .execute()
}

export interface LiveSession {
  user: UserRecord
  /** last_seen_at and expires_at as epoch milliseconds, parsed once per row read. */
  lastSeenMs: number
  expiresMs: number
  /** A trusted identity provider reported a second factor for this sign-in (sessions.idp_mfa). */
  vouchedByProvider: boolean
  mfa: MfaState
  /** The two-factor policy's settings row (JSON text; null when never set). */
  twoFactorPolicy: string | null
  /** reauthenticated_at as epoch milliseconds (null: never), for the re-authentication window. */
  reauthenticatedMs: number | null
}

// ONE query answers everything an authenticated request may need to know: the session,
// its user, whether the user has a second factor, the two-factor policy itself — and, for the route
// that shows it (config.readsMfaStatus), the MFA status's columns. A session column more is one
// more entry in SESSION_COLUMNS and one field in toLiveSession.
// No clock value in the query: on SQLite its rows are kept until the database changes
// (db/sqlite.ts ReadCache), so the expiry is compared after it (unexpired).
const SESSION_COLUMNS = [
  ...USER_COLUMNS,
  'sessions.last_seen_at as session_last_seen_at',
  'sessions.expires_at as session_expires_at',
  'sessions.idp_mfa as session_idp_mfa',
  'sessions.reauthenticated_at as session_reauthenticated_at',
  settingValue(TWO_FACTOR_POLICY_KEY).as('two_factor_policy'),
] as const

type SessionRow = Parameters<typeof toUserRecord>[0] & {
  session_last_seen_at: Timestamp
  session_expires_at: Timestamp
  session_idp_mfa: boolean | 0 | 1
  session_reauthenticated_at: Timestamp | null
  two_factor_policy: string | null
}

function toLiveSession(row: SessionRow, mfa: MfaState): LiveSession {
  return {
    user: toUserRecord(row),
    lastSeenMs: Date.parse(row.session_last_seen_at),
    expiresMs: Date.parse(row.session_expires_at),
    vouchedByProvider: Boolean(row.session_idp_mfa),
    reauthenticatedMs:
      row.session_reauthenticated_at === null ? null : Date.parse(row.session_reauthenticated_at),
    mfa,
    twoFactorPolicy: row.two_factor_policy,
  }
}

function liveSessionBy(ex: Executor, sessionId: string) {
  return ex
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .where('sessions.id', '=', sessionId)
    .where('sessions.revoked_at', 'is', null)
    .where('users.disabled', '=', false)
}

const selectLiveSession = precompiled(
  ['sessionId'],
  (ex, p) => liveSessionBy(ex, p.sessionId).select([...SESSION_COLUMNS, ...MFA_POLICY_COLUMNS]),
  (row): LiveSession => toLiveSession(row, toMfaState(row)),
)

const selectLiveSessionWithMfaStatus = precompiled(
  ['sessionId'],
  (ex, p) => liveSessionBy(ex, p.sessionId).select([...SESSION_COLUMNS, ...MFA_STATUS_COLUMNS]),
  (row): LiveSession => toLiveSession(row, toMfaStatusState(row)),
)

/**
 * The per-request authentication lookup: one primary-key read of the session joined to its user
 * by primary key, with the user's MFA state (the status's columns too when asked) and the
 * two-factor policy. Revoked sessions and disabled users do not match; the expiry and the rest of
 * the session's rules are checked by authenticate.ts admitSession. The result may be shared with
 * other requests (frozen): read it, do not change it.
 */
export async function findSession(
  ex: Executor,
  sessionId: string,
  withMfaStatus = false,
): Promise<LiveSession | null> {
  const [found] = await (withMfaStatus ? selectLiveSessionWithMfaStatus : selectLiveSession)(ex, {
    sessionId,
  })
  return found ?? null
}

/**
 * The session unless it has expired by `now` (the query leaves the clock out; see SESSION_COLUMNS).
 */
export function unexpired(found: LiveSession | null, now: Date): LiveSession | null {
  return found === null || found.expiresMs <= now.getTime() ? null : found
}

/**
 * findSession's query (without the MFA status) to build on: a read that needs only the user's id
 * joins its tables and adds its columns to it, so that both are one statement — one round trip and
 * one statement's work for the database (the go redirect, go/repo.ts). Each row maps with
 * liveSessionOf; admit the session with authenticate.ts admitSession.
 */
export function liveSessionQuery(ex: Executor, sessionId: string) {
  return liveSessionBy(ex, sessionId).select([...SESSION_COLUMNS, ...MFA_POLICY_COLUMNS])
}

export function liveSessionOf(
  row: SessionRow & { mfa_second_factor: boolean | 0 | 1 },
): LiveSession {
  return toLiveSession(row, toMfaState(row))
}

/**
 * Moves last_seen_at forward only when it is older than `staleBefore`: at most one write a minute.
 */
export async function touchSession(
  ex: Executor,
  sessionId: string,
  now: Timestamp,
  staleBefore: Timestamp,
): Promise<void> {
  await ex
    .updateTable('sessions')
    .set({ last_seen_at: now })
    .where('id', '=', sessionId)
    .where('last_seen_at', '<', staleBefore)
    .execute()
}

/**
 * When the session was opened, i.e. when its sign-in happened (sessions are never renewed in
 * place).
 */
export async function findSessionStart(ex: Executor, sessionId: string): Promise<Timestamp | null> {
  const row = await ex
    .selectFrom('sessions')
    .select('created_at')
    .where('id', '=', sessionId)
    .executeTakeFirst()
  return row?.created_at ?? null
}

/** Opens the session's re-authentication window at `now`; false when the session is gone. */
export async function markSessionReauthenticated(
  ex: Executor,
  userId: string,
  sessionId: string,
  now: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('sessions')
    .set({ reauthenticated_at: now })
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Revokes every live session of the user except `keepSessionId` (null: all of them). */
export async function revokeUserSessions(
  ex: Executor,
  userId: string,
  keepSessionId: string | null,
  now: Timestamp,
): Promise<number> {
  let query = ex
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
  if (keepSessionId !== null) query = query.where('id', '!=', keepSessionId)
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * Whether the session is still live (not revoked, not expired): read inside a transaction that
 * changes a credential, after the account's row, so a change that lost a race to a reset (which
 * ended the session) stops.
 */
export async function isSessionLive(ex: Executor, sessionId: string, now: Timestamp) {
  const row = await ex
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row !== undefined
}
