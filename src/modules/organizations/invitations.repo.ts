/**
 * SQL for organization invitations. A link is found by its token's SHA-256 only; the token itself
 * is kept encrypted for owners and admins to copy, and cleared once the invitation ends.
 */
import type { ExpressionBuilder } from 'kysely'
import type { Database, Executor, Timestamp } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import type { Role } from './roles.js'

export interface InvitationRecord {
  id: string
  email: string
  role: Role
  expires_at: Timestamp
  created_at: Timestamp
}

export interface NewInvitation extends InvitationRecord {
  organization_id: string
  token_hash: string
  token_encrypted: string
  invited_by: string
}

/**
 * A pending invitation with its encrypted token (null for invitations made before tokens were
 * kept).
 */
export interface PendingInvitationRecord extends InvitationRecord {
  token_encrypted: string | null
}

const INVITATION_COLUMNS = ['id', 'email', 'role', 'expires_at', 'created_at'] as const

function asRecord<T extends { role: string }>(row: T): T & { role: Role } {
  return row as T & { role: Role }
}

/**
 * Pending = neither accepted nor revoked, and not expired: the only state in which a link works.
 */
function isPending(now: Timestamp) {
  return (eb: ExpressionBuilder<Database, 'organization_invitations'>) =>
    eb.and([
      eb('accepted_at', 'is', null),
      eb('revoked_at', 'is', null),
      eb('expires_at', '>', now),
    ])
}

function pending(ex: Executor, organizationId: string, now: Timestamp) {
  return ex
    .selectFrom('organization_invitations')
    .where('organization_id', '=', organizationId)
    .where(isPending(now))
}

export async function insertInvitation(ex: Executor, invitation: NewInvitation): Promise<void> {
  await ex.insertInto('organization_invitations').values(invitation).execute()
}

/**
 * Revokes the pending invitations that match (one by id, or all to an address); their ids and
 * roles.
 */
export async function revokePendingInvitations(
  ex: Executor,
  organizationId: string,
  match: { id: string } | { email: string },
  now: Timestamp,
): Promise<Array<{ id: string; role: Role }>> {
  const rows = await ex
    .updateTable('organization_invitations')
    .set({ revoked_at: now, token_encrypted: null })
    .where('organization_id', '=', organizationId)
    .where((eb) => ('id' in match ? eb('id', '=', match.id) : eb('email', '=', match.email)))
    .where(isPending(now))
    .returning(['id', 'role'])
    .execute()
  return rows.map(asRecord)
}

export async function listPendingInvitations(
  ex: Executor,
  organizationId: string,
  now: Timestamp,
  window: PageWindow,
): Promise<PendingInvitationRecord[]> {
  return (
    await newestFirst(
      pending(ex, organizationId, now).select([...INVITATION_COLUMNS, 'token_encrypted']),
      window,
    ).execute()
  ).map(asRecord)
}

export async function findPendingInvitation(
  ex: Executor,
  organizationId: string,
  invitationId: string,
  now: Timestamp,
): Promise<InvitationRecord | null> {
  const row = await pending(ex, organizationId, now)
    .select(INVITATION_COLUMNS)
    .where('id', '=', invitationId)
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

/**
 * Marks the pending invitation with this token hash accepted, in one conditional UPDATE: of two
 * concurrent uses of one link exactly one gets the row.
 */
export async function consumeInvitation(
  ex: Executor,
  tokenHash: string,
  now: Timestamp,
): Promise<{ id: string; organization_id: string; email: string; role: Role } | null> {
  const row = await ex
    .updateTable('organization_invitations')
    .set({ accepted_at: now, token_encrypted: null })
    .where('token_hash', '=', tokenHash)
    .where(isPending(now))
    .returning(['id', 'organization_id', 'email', 'role'])
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

/** A pending invitation as its invitee sees it: which organization, which role, from whom. */
export interface ReceivedInvitationRecord {
  id: string
  organization_id: string
  organization_name: string
  organization_slug: string
  role: Role
  invited_by_name: string | null
  created_at: Timestamp
  expires_at: Timestamp
}

/** The pending invitations addressed to `email`, newest first. */
export async function listInvitationsTo(
  ex: Executor,
  email: string,
  now: Timestamp,
  window: PageWindow,
): Promise<ReceivedInvitationRecord[]> {
  const query = ex
    .selectFrom('organization_invitations')
    .innerJoin('organizations', 'organizations.id', 'organization_invitations.organization_id')
    .leftJoin('users', 'users.id', 'organization_invitations.invited_by')
    .where('organization_invitations.email', '=', email)
    .where('organization_invitations.accepted_at', 'is', null)
    .where('organization_invitations.revoked_at', 'is', null)
    .where('organization_invitations.expires_at', '>', now)
    .select([
      'organization_invitations.id',
      'organization_invitations.organization_id',
      'organizations.name as organization_name',
      'organizations.slug as organization_slug',
      'organization_invitations.role',
      'users.name as invited_by_name',
      'organization_invitations.created_at',
      'organization_invitations.expires_at',
    ])
  return (await newestFirst(query, window, 'organization_invitations').execute()).map(asRecord)
}

/**
 * Ends the pending invitation `id` addressed to `email` — accepted or declined — in one
 * conditional UPDATE: of two concurrent answers exactly one gets the row.
 */
export async function answerInvitation(
  ex: Executor,
  match: { id: string; email: string },
  answer: 'accept' | 'decline',
  now: Timestamp,
): Promise<{ id: string; organization_id: string; email: string; role: Role } | null> {
  const row = await ex
    .updateTable('organization_invitations')
    .set(
      answer === 'accept'
        ? { accepted_at: now, token_encrypted: null }
        : { revoked_at: now, token_encrypted: null },
    )
    .where('id', '=', match.id)
    .where('email', '=', match.email)
    .where(isPending(now))
    .returning(['id', 'organization_id', 'email', 'role'])
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

/** A pending invitation's link: what a resend replaces. */
export interface InvitationLink {
  token_hash: string
  token_encrypted: string
  expires_at: Timestamp
}

/**
 * The pending invitation with its current link, its row locked until the transaction ends: two
 * concurrent resends of one invitation take turns, each replacing the link the other left.
 */
export async function lockPendingInvitation(
  ex: Executor,
  organizationId: string,
  invitationId: string,
  now: Timestamp,
): Promise<InvitationRecord | null> {
  const row = await pending(ex, organizationId, now)
    .select(INVITATION_COLUMNS)
    .where('id', '=', invitationId)
    .forUpdate()
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

/** Gives the (locked, pending) invitation a new link: the earlier token stops working at once. */
export async function replaceInvitationLink(
  ex: Executor,
  invitationId: string,
  link: InvitationLink,
): Promise<void> {
  await ex
    .updateTable('organization_invitations')
    .set(link)
    .where('id', '=', invitationId)
    .execute()
}

/**
 * The encrypted tokens of pending invitations, rows locked (key rotation rewraps them in place).
 */
export async function lockInvitationTokens(
  ex: Executor,
): Promise<Array<{ id: string; token_encrypted: string }>> {
  const rows = await ex
    .selectFrom('organization_invitations')
    .select(['id', 'token_encrypted'])
    .where('token_encrypted', 'is not', null)
    .forUpdate()
    .execute()
  return rows.map((row) => ({ id: row.id, token_encrypted: row.token_encrypted! }))
}

export async function setInvitationTokenCiphertext(
  ex: Executor,
  invitationId: string,
  ciphertext: string,
): Promise<void> {
  await ex
    .updateTable('organization_invitations')
    .set({ token_encrypted: ciphertext })
    .where('id', '=', invitationId)
    .execute()
}

/** What the holder of a link sees before answering it: a pending invitation found by its token. */
export interface InvitationByTokenRecord extends ReceivedInvitationRecord {
  email: string
}

/** The pending invitation whose token has this SHA-256, with its organization and inviter. */
export async function findInvitationByToken(
  ex: Executor,
  tokenHash: string,
  now: Timestamp,
): Promise<InvitationByTokenRecord | null> {
  const row = await ex
    .selectFrom('organization_invitations')
    .innerJoin('organizations', 'organizations.id', 'organization_invitations.organization_id')
    .leftJoin('users', 'users.id', 'organization_invitations.invited_by')
    .where('organization_invitations.token_hash', '=', tokenHash)
    .where('organization_invitations.accepted_at', 'is', null)
    .where('organization_invitations.revoked_at', 'is', null)
    .where('organization_invitations.expires_at', '>', now)
    .select([
      'organization_invitations.id',
      'organization_invitations.email',
      'organization_invitations.organization_id',
      'organizations.name as organization_name',
      'organizations.slug as organization_slug',
      'organization_invitations.role',
      'users.name as invited_by_name',
      'organization_invitations.created_at',
      'organization_invitations.expires_at',
    ])
    .executeTakeFirst()
  return row ? asRecord(row) : null
}
