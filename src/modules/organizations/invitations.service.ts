/**
 * Invitations (docs/API.md#organizations-and-invitations): an owner or admin invites an address
 * with a role; the invitee gets a single-use link, valid 7 days, which only the account with that
 * address can accept. The token is 256 random bits, looked up by its SHA-256. A new invitation to
 * the same address replaces the pending one, so only the newest link works.
 *
 * Joining without mail: creating an invitation succeeds whether or not mail can be sent.
 * The link goes out by mail when SMTP works, and the answer and the pending list carry the same
 * link for the organization's owners and admins to pass on themselves. For that the token is also
 * kept encrypted with the instance's ENCRYPTION_KEY (AES-256-GCM bound to the invitation's id;
 * rewrapped by `rotate-keys`) and cleared when the invitation is accepted, declined or revoked.
 *
 * Mail caps: when SMTP is configured, an invitation or a new link takes one mail of
 * the per-recipient and hourly caps before anything is stored (429 otherwise), given back when the
 * mail does not go out; without SMTP nothing is mailed and nothing is taken.
 */
import type { Deps } from '../../deps.js'
import { decrypt, DecryptionError, encrypt, sha256Hex } from '../../lib/crypto.js'
import { AppError, invalidField } from '../../errors.js'
import { pageWindow } from '../../db/keyset.js'
import { newId } from '../../lib/ids.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { randomToken } from '../../lib/random.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { reserveUserMail } from '../mail/limits.js'
import { isMailConfigured, sendMail } from '../mail/service.js'
import { normalizeEmail } from '../users/service.js'
import { requirePermission } from './access.js'
import {
  answerInvitation,
  consumeInvitation,
  listInvitationsTo,
  type ReceivedInvitationRecord,
  findPendingInvitation,
  insertInvitation,
  listPendingInvitations,
  lockPendingInvitation,
  replaceInvitationLink,
  revokePendingInvitations,
  type InvitationRecord,
  type PendingInvitationRecord,
} from './invitations.repo.js'
import { findMemberByEmail } from './members.repo.js'
import { insertMembership } from './members.service.js'
import { findOrganizationOfMember, type OrganizationRecord } from './repo.js'
import { assertMayChangeRole } from './roles.js'
import type { CreateInvitationBody } from './schemas.js'
import { getSignUpSettings } from './sign-up.js'

export const INVITATION_TTL_SECONDS = 7 * 24 * 60 * 60

/**
 * The page of the web app that posts the token to POST /api/invitations/accept
 * (docs/API.md#organizations-and-invitations).
 */
export function invitationLink(deps: Deps, token: string): string {
  return `${deps.config.publicUrl}/invitations/accept?token=${token}`
}

function invitationMail(
  deps: Deps,
  input: {
    organization: string
    inviter: Caller['user']
    email: string
    role: string
    token: string
    signUp: boolean
  },
) {
  const how = input.signUp
    ? `sign in as ${input.email}, or create your account there if you have none`
    : `sign in as ${input.email}`
  return {
    // Names chosen by users stay out of the Subject: a Subject is what a relay
    // abuser would write their message into. In the body they are quoted, as the inviter's words.
    subject: 'Invitation to join an organization on Switchboard',
    text:
      `"${input.inviter.name}" (${input.inviter.email}) invited you to join the organization "${input.organization}" ` +
      `on Switchboard as ${input.role}.\n\n` +
      `To accept, open this link within 7 days and ${how}:\n${invitationLink(deps, input.token)}\n\n` +
      'The link works once. Signed in, you also find the invitation under your pending invitations, where you can accept ' +
      'or decline it. If you do not want to join, ignore this message.\n',
  }
}

/**
 * Whether the invitation mail went out: sent, not configured (no SMTP), or refused by the server.
 */
export type InvitationMailState = 'sent' | 'not_configured' | 'failed'

/**
 * What an owner or admin sees of a pending invitation: its link, to copy (null for an old
 * invitation until it is resent).
 */
export interface InvitationWithLink extends InvitationRecord {
  link: string | null
}

export interface CreatedInvitation extends InvitationWithLink {
  link: string
  mail: InvitationMailState
  /** Whether a person without an account can create one from the link (sign-up.ts). */
  sign_up: boolean
  /**
   * The pending invitation to the same address this one replaced, with its role; null when none.
   */
  replaced: { id: string; role: InvitationRecord['role'] } | null
}

/** AES-GCM's additional data: a ciphertext moved to another invitation's row does not open. */
export function invitationTokenContext(invitationId: string): string {
  return `organization_invitations.${invitationId}`
}

function sealToken(deps: Deps, invitationId: string, token: string): string {
  return encrypt(deps.secrets.encryptionKey, token, invitationTokenContext(invitationId))
}

/**
 * The link of a pending invitation, from its encrypted token; null when it has none or it does not
 * open.
 */
function openLink(deps: Deps, row: PendingInvitationRecord): string | null {
  if (row.token_encrypted === null) return null
  try {
    return invitationLink(
      deps,
      decrypt(deps.secrets.encryptionKey, row.token_encrypted, invitationTokenContext(row.id)),
    )
  } catch (error) {
    // Written under another key (restored from elsewhere): the invitation still works by mail or
    // GET /api/invitations; a resend gives it a link that opens.
    if (error instanceof DecryptionError) return null
    throw error
  }
}

/**
 * Checks, in order: membership and role (404/403; inviting an owner needs an owner), the address
 * already a member (409). The mail goes out after the commit when SMTP is configured; whether it
 * was sent is in the answer (`mail`), and the invitation stands either way — the answer's link is
 * the one the mail carries.
 */
export async function createInvitation(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  input: CreateInvitationBody,
  ctx: RequestContext,
): Promise<CreatedInvitation> {
  const { role: actorRole } = await requirePermission(
    deps.db,
    organizationId,
    caller.user.id,
    'manage_invitations',
  )
  assertMayChangeRole(actorRole, null, input.role, 'manage_invitations')

  const token = randomToken(32)
  const email = normalizeEmail(input.email)
  const now = deps.clock.now()
  const invitation: InvitationRecord = {
    id: newId(),
    email,
    role: input.role,
    created_at: now.toISOString(),
    expires_at: addSeconds(now, INVITATION_TTL_SECONDS).toISOString(),
  }
  // The mail caps are taken before anything is stored, and given back when no mail goes out.
  const reserved = (await isMailConfigured(deps)) ? await reserveUserMail(deps, email) : null
  const stored = deps.db.transaction().execute(async (tx) => {
    const organization = await requirePermission(
      tx,
      organizationId,
      caller.user.id,
      'manage_invitations',
    )
    if ((await findMemberByEmail(tx, organizationId, email)) !== null) {
      throw new AppError('ALREADY_EXISTS', {
        message: 'This address belongs to a member already.',
        details: 'email',
      })
    }
    const replaced = await revokePendingInvitations(
      tx,
      organizationId,
      { email },
      invitation.created_at,
    )
    await insertInvitation(tx, {
      ...invitation,
      organization_id: organizationId,
      token_hash: sha256Hex(token),
      token_encrypted: sealToken(deps, invitation.id, token),
      invited_by: caller.user.id,
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_create',
      actor: caller.user,
      target: { type: 'organization', id: organizationId },
      metadata: {
        invitation_id: invitation.id,
        email,
        role: input.role,
        replaced: replaced.map((r) => r.id),
      },
    })
    return { organization, replaced }
  })
  const { organization, replaced } = await releasingOnFailure(reserved, stored)

  const signUp = (await getSignUpSettings(deps)).through_invitation
  const mail = await mailInvitation(
    deps,
    email,
    invitationMail(deps, {
      organization: organization.name,
      inviter: caller.user,
      email,
      role: input.role,
      token,
      signUp,
    }),
  )
  if (mail !== 'sent') await reserved?.release()
  // At most one is pending per address (each invitation replaces the earlier one); the newest if
  // ever more.
  const earlier = replaced.at(-1)
  return {
    ...invitation,
    link: invitationLink(deps, token),
    mail,
    sign_up: signUp,
    replaced: earlier === undefined ? null : { id: earlier.id, role: earlier.role },
  }
}

/** Waits for `work`; when it fails, the reserved mail is given back before the error goes on. */
async function releasingOnFailure<T>(
  reserved: { release(): Promise<void> } | null,
  work: Promise<T>,
): Promise<T> {
  try {
    return await work
  } catch (error) {
    await reserved?.release()
    throw error
  }
}

/**
 * Sends the invitation mail after the invitation's transaction committed, when SMTP is configured.
 * A refusal leaves the invitation standing (its link can be copied) and is logged for the
 * administrators — the SMTP server's reply may name internal hosts, so the answer says only
 * `failed`.
 */
async function mailInvitation(
  deps: Deps,
  to: string,
  mail: { subject: string; text: string },
): Promise<InvitationMailState> {
  if (!(await isMailConfigured(deps))) return 'not_configured'
  try {
    await sendMail(deps, { to, ...mail })
    return 'sent'
  } catch (error) {
    if (
      error instanceof AppError &&
      (error.reason === 'UPSTREAM_FAILED' || error.reason === 'NOT_CONFIGURED')
    ) {
      deps.logger.warn({ smtp: error.message }, 'the invitation mail could not be sent')
      return 'failed'
    }
    throw error
  }
}

/**
 * A new link for a pending invitation, valid 7 days from now, replaces the earlier one (which stops
 * working) on the same invitation — same id, address and role — and is mailed when SMTP works.
 * Checks, in order: membership and role (404/403; an owner invitation needs an owner), the
 * invitation pending (404).
 */
export async function resendInvitation(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  invitationId: string,
  ctx: RequestContext,
): Promise<InvitationWithLink & { created_at: string; mail: InvitationMailState }> {
  await requirePermission(deps.db, organizationId, caller.user.id, 'manage_invitations')
  const token = randomToken(32)
  const now = deps.clock.now()
  const expiresAt = addSeconds(now, INVITATION_TTL_SECONDS).toISOString()
  // The recipient decides which mail cap applies, so it is read first (the transaction checks
  // again).
  const pendingOne = await findPendingInvitation(
    deps.db,
    organizationId,
    invitationId,
    now.toISOString(),
  )
  if (pendingOne === null)
    throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' })
  const reserved = (await isMailConfigured(deps))
    ? await reserveUserMail(deps, pendingOne.email)
    : null
  const stored = deps.db.transaction().execute(async (tx) => {
    const organization = await requirePermission(
      tx,
      organizationId,
      caller.user.id,
      'manage_invitations',
    )
    const locked = await lockPendingInvitation(tx, organizationId, invitationId, now.toISOString())
    if (locked === null) throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' })
    assertMayChangeRole(organization.role, null, locked.role, 'manage_invitations')
    await replaceInvitationLink(tx, invitationId, {
      token_hash: sha256Hex(token),
      token_encrypted: sealToken(deps, invitationId, token),
      expires_at: expiresAt,
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_resend',
      actor: caller.user,
      target: { type: 'organization', id: organizationId },
      metadata: { invitation_id: invitationId, email: locked.email, role: locked.role },
    })
    return { organization, invitation: { ...locked, expires_at: expiresAt } }
  })
  const { organization, invitation } = await releasingOnFailure(reserved, stored)

  const mail = await mailInvitation(
    deps,
    invitation.email,
    invitationMail(deps, {
      organization: organization.name,
      inviter: caller.user,
      email: invitation.email,
      role: invitation.role,
      token,
      signUp: (await getSignUpSettings(deps)).through_invitation,
    }),
  )
  if (mail !== 'sent') await reserved?.release()
  return { ...invitation, link: invitationLink(deps, token), mail }
}

/**
 * Pending invitations with their links: only for the organization's owners and admins
 * (manage_invitations).
 */
export async function listInvitations(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  query: PageQuery,
): Promise<Page<InvitationWithLink>> {
  const window = pageWindow(query)
  await requirePermission(deps.db, organizationId, caller.user.id, 'manage_invitations')
  const rows = await listPendingInvitations(
    deps.db,
    organizationId,
    deps.clock.now().toISOString(),
    window,
  )
  return toPage(
    rows,
    window.limit,
    (row) => {
      const { token_encrypted: _, ...view } = row
      return { ...view, link: openLink(deps, row) }
    },
    (row) => [row.created_at, row.id],
  )
}

/** Revokes a pending invitation; an invitation to become owner only an owner may revoke. */
export async function revokeInvitation(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  invitationId: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const { role: actorRole } = await requirePermission(
      tx,
      organizationId,
      caller.user.id,
      'manage_invitations',
    )
    const now = deps.clock.now().toISOString()
    const invitation = await findPendingInvitation(tx, organizationId, invitationId, now)
    if (invitation === null)
      throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' })
    assertMayChangeRole(actorRole, null, invitation.role, 'manage_invitations')
    if (
      (await revokePendingInvitations(tx, organizationId, { id: invitationId }, now)).length === 0
    )
      throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_revoke',
      actor: caller.user,
      target: { type: 'organization', id: organizationId },
      metadata: { invitation_id: invitationId, email: invitation.email, role: invitation.role },
    })
  })
}

const invalidToken = () => invalidField('token', 'is invalid, expired or already used')

/**
 * Accepts with the token from the mail: the caller joins with the invited role. The link is spent
 * only when the caller joins — a refusal (another account's invitation, already a member) rolls
 * the transaction back and leaves it pending.
 */
export async function acceptInvitation(
  deps: Deps,
  caller: Caller,
  token: string,
  ctx: RequestContext,
): Promise<OrganizationRecord> {
  const now = deps.clock.now().toISOString()
  return deps.db.transaction().execute(async (tx) => {
    const invitation = await consumeInvitation(tx, sha256Hex(token), now)
    if (invitation === null) throw invalidToken()
    if (invitation.email !== caller.user.email) {
      throw new AppError('FORBIDDEN', {
        message:
          'This invitation was sent to another email address: sign in with that address to accept it.',
      })
    }
    await insertMembership(tx, invitation.organization_id, caller.user.id, invitation.role, now)
    // Read before the audit append, which holds the audit tree's head until the commit.
    const joined = (await findOrganizationOfMember(tx, invitation.organization_id, caller.user.id))!
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_accept',
      actor: caller.user,
      target: { type: 'organization', id: invitation.organization_id },
      metadata: { invitation_id: invitation.id, user_id: caller.user.id, role: invitation.role },
    })
    return joined
  })
}

/** The caller's pending invitations (addressed to their current email), newest first. */
export async function listMyInvitations(
  deps: Deps,
  caller: Caller,
  query: PageQuery,
): Promise<Page<ReceivedInvitationRecord>> {
  const window = pageWindow(query)
  const rows = await listInvitationsTo(
    deps.db,
    caller.user.email,
    deps.clock.now().toISOString(),
    window,
  )
  return toPage(
    rows,
    window.limit,
    (row) => row,
    (row) => [row.created_at, row.id],
  )
}

function noSuchInvitation(): AppError {
  return new AppError('NOT_FOUND', { message: 'You have no such pending invitation.' })
}

/**
 * Accepts one of the caller's pending invitations by id (GET /api/invitations): the same as the
 * mailed link, without the token — being signed in with the invited address is the proof.
 */
export async function acceptMyInvitation(
  deps: Deps,
  caller: Caller,
  invitationId: string,
  ctx: RequestContext,
): Promise<OrganizationRecord> {
  const now = deps.clock.now().toISOString()
  return deps.db.transaction().execute(async (tx) => {
    const invitation = await answerInvitation(
      tx,
      { id: invitationId, email: caller.user.email },
      'accept',
      now,
    )
    if (invitation === null) throw noSuchInvitation()
    await insertMembership(tx, invitation.organization_id, caller.user.id, invitation.role, now)
    // Read before the audit append, which holds the audit tree's head until the commit.
    const joined = (await findOrganizationOfMember(tx, invitation.organization_id, caller.user.id))!
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_accept',
      actor: caller.user,
      target: { type: 'organization', id: invitation.organization_id },
      metadata: { invitation_id: invitation.id, user_id: caller.user.id, role: invitation.role },
    })
    return joined
  })
}

/** Declines one of the caller's pending invitations: its link stops working, nobody joins. */
export async function declineMyInvitation(
  deps: Deps,
  caller: Caller,
  invitationId: string,
  ctx: RequestContext,
): Promise<void> {
  const now = deps.clock.now().toISOString()
  await deps.db.transaction().execute(async (tx) => {
    const invitation = await answerInvitation(
      tx,
      { id: invitationId, email: caller.user.email },
      'decline',
      now,
    )
    if (invitation === null) throw noSuchInvitation()
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_decline',
      actor: caller.user,
      target: { type: 'organization', id: invitation.organization_id },
      metadata: { invitation_id: invitation.id, user_id: caller.user.id, role: invitation.role },
    })
  })
}
