/**
 * Invitations (CONTRACT.md §7): an owner or admin invites an address with a role; the invitee gets
 * a mail with a single-use link, valid 7 days, which only the account with that address can accept.
 * The token is 256 random bits, kept only as its SHA-256. A new invitation to the same address
 * replaces the pending one, so only the newest link works.
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { sha256Hex } from '../../lib/crypto.js'
import { AppError, invalidField } from '../../errors.js'
import { pageWindow } from '../../db/keyset.js'
import { newId } from '../../lib/ids.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { randomToken } from '../../lib/random.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit, type RequestContext } from '../audit/service.js'
import type { Caller } from '../auth/caller.js'
import { withUserMail } from '../mail/limits.js'
import { assertMailConfigured, isMailConfigured, sendMail } from '../mail/service.js'
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
  restoreInvitationLink,
  revokePendingInvitations,
  withdrawInvitation,
  type InvitationRecord,
} from './invitations.repo.js'
import { findMemberByEmail } from './members.repo.js'
import { insertMembership } from './members.service.js'
import { findOrganizationOfMember, type OrganizationRecord } from './repo.js'
import { assertMayChangeRole } from './roles.js'
import type { CreateInvitationBody } from './schemas.js'

export const INVITATION_TTL_SECONDS = 7 * 24 * 60 * 60

/** The page of the web app that posts the token to POST /api/invitations/accept (docs/API.md). */
export function invitationLink(deps: Deps, token: string): string {
  return `${deps.config.publicUrl}/invitations/accept?token=${token}`
}

function invitationMail(deps: Deps, input: { organization: string; inviter: Caller['user']; email: string; role: string; token: string }) {
  return {
    // Names chosen by users stay out of the Subject (issue 26 item 5): a Subject is what a relay
    // abuser would write their message into. In the body they are quoted, as the inviter's words.
    subject: 'Invitation to join an organization on Switchboard',
    text:
      `"${input.inviter.name}" (${input.inviter.email}) invited you to join the organization "${input.organization}" ` +
      `on Switchboard as ${input.role}.\n\n` +
      `To accept, sign in as ${input.email} and open this link within 7 days:\n${invitationLink(deps, input.token)}\n\n` +
      'The link works once. Signed in, you also find the invitation under your pending invitations, where you can accept ' +
      'or decline it. If you do not want to join, ignore this message.\n',
  }
}

/**
 * Checks, in order: membership and role (404/403; inviting an owner needs an owner), SMTP
 * configured (503, nothing stored), the address already a member (409). The mail goes out after
 * the commit; when it cannot be delivered, the invitation is withdrawn (the ones it replaced come
 * back) and the answer is 502.
 */
export async function createInvitation(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  input: CreateInvitationBody,
  ctx: RequestContext,
  options: { mail: 'required' | 'when-configured' } = { mail: 'required' },
): Promise<InvitationRecord> {
  const { role: actorRole } = await requirePermission(deps.db, organizationId, caller.user.id, 'manage_invitations')
  assertMayChangeRole(actorRole, null, input.role, 'manage_invitations')
  // POST …/members invites too (issue 11): without SMTP the invitation still waits in the invitee's
  // GET /api/invitations — whether or not an account has the address, the answer is the same.
  let mailed = true
  if (options.mail === 'required') await assertMailConfigured(deps)
  else mailed = await isMailConfigured(deps)

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
  const store = () =>
    deps.db.transaction().execute(async (tx) => {
      const organization = await requirePermission(tx, organizationId, caller.user.id, 'manage_invitations')
      if ((await findMemberByEmail(tx, organizationId, email)) !== null) {
        throw new AppError('ALREADY_EXISTS', { message: 'This address belongs to a member already.', details: 'email' })
      }
      const replaced = await revokePendingInvitations(tx, organizationId, { email }, invitation.created_at)
      await insertInvitation(tx, { ...invitation, organization_id: organizationId, token_hash: sha256Hex(token), invited_by: caller.user.id })
      await recordAudit(tx, deps.clock, ctx, {
        action: 'org.invitation_create',
        actor: caller.user,
        target: { type: 'organization', id: organizationId },
        metadata: { invitation_id: invitation.id, email, role: input.role, replaced },
      })
      return { organization, replaced }
    })

  if (!mailed) {
    await store()
    return invitation
  }
  // The mail caps are taken before anything is stored, and given back when nothing was sent.
  await withUserMail(deps, email, async () => {
    const { organization, replaced } = await store()
    await mailInvitation(
      deps,
      email,
      invitationMail(deps, { organization: organization.name, inviter: caller.user, email, role: input.role, token }),
      async (tx) => {
        await withdrawInvitation(tx, invitation.id, replaced, invitation.created_at)
        await recordAudit(tx, deps.clock, ctx, {
          action: 'org.invitation_withdraw',
          actor: caller.user,
          target: { type: 'organization', id: organizationId },
          metadata: { invitation_id: invitation.id, reason: 'mail not delivered' },
        })
      },
    )
  })
  return invitation
}

/**
 * Sends the invitation mail after the invitation's transaction committed. When it cannot be
 * delivered, `undo` takes the change back in a transaction of its own, and the answer is 502 — the
 * SMTP server's reply is for the instance's administrators (it may name internal hosts).
 */
async function mailInvitation(deps: Deps, to: string, mail: { subject: string; text: string }, undo: (tx: Executor) => Promise<void>): Promise<void> {
  try {
    await sendMail(deps, { to, ...mail })
  } catch (error) {
    await deps.db.transaction().execute(undo)
    if (error instanceof AppError && error.reason === 'UPSTREAM_FAILED') {
      deps.logger.warn({ smtp: error.message }, 'the invitation mail could not be sent')
      throw new AppError('UPSTREAM_FAILED', { message: 'The invitation email could not be sent. Try again later.' })
    }
    throw error
  }
}

/**
 * Sends a pending invitation again: a new link, valid 7 days from now, replaces the earlier one
 * (which stops working) on the same invitation — same id, address and role. Checks, in order:
 * membership and role (404/403; an owner invitation needs an owner), SMTP configured (503,
 * nothing changed), the invitation pending (404). When the mail cannot be delivered, the earlier
 * link is put back and the answer is 502.
 */
export async function resendInvitation(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  invitationId: string,
  ctx: RequestContext,
): Promise<InvitationRecord> {
  await requirePermission(deps.db, organizationId, caller.user.id, 'manage_invitations')
  await assertMailConfigured(deps)
  const token = randomToken(32)
  const now = deps.clock.now()
  const link = { token_hash: sha256Hex(token), expires_at: addSeconds(now, INVITATION_TTL_SECONDS).toISOString() }
  // The recipient decides which mail cap applies, so it is read first (the transaction checks again).
  const pendingOne = await findPendingInvitation(deps.db, organizationId, invitationId, now.toISOString())
  if (pendingOne === null) throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' })
  return withUserMail(deps, pendingOne.email, async () => {
    const { organization, invitation, previous } = await deps.db.transaction().execute(async (tx) => {
      const organization = await requirePermission(tx, organizationId, caller.user.id, 'manage_invitations')
      const locked = await lockPendingInvitation(tx, organizationId, invitationId, now.toISOString())
      if (locked === null) throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' })
      assertMayChangeRole(organization.role, null, locked.role, 'manage_invitations')
      await replaceInvitationLink(tx, invitationId, link)
      await recordAudit(tx, deps.clock, ctx, {
        action: 'org.invitation_resend',
        actor: caller.user,
        target: { type: 'organization', id: organizationId },
        metadata: { invitation_id: invitationId, email: locked.email, role: locked.role },
      })
      const { token_hash, expires_at, ...invitation } = locked
      return { organization, invitation: { ...invitation, expires_at: link.expires_at }, previous: { token_hash, expires_at } }
    })

    await mailInvitation(
      deps,
      invitation.email,
      invitationMail(deps, { organization: organization.name, inviter: caller.user, email: invitation.email, role: invitation.role, token }),
      async (tx) => {
        await restoreInvitationLink(tx, invitationId, link.token_hash, previous)
        await recordAudit(tx, deps.clock, ctx, {
          action: 'org.invitation_resend_undo',
          actor: caller.user,
          target: { type: 'organization', id: organizationId },
          metadata: { invitation_id: invitationId, reason: 'mail not delivered' },
        })
      },
    )
    return invitation
  })
}

export async function listInvitations(deps: Deps, caller: Caller, organizationId: string, query: PageQuery): Promise<Page<InvitationRecord>> {
  const window = pageWindow(query)
  await requirePermission(deps.db, organizationId, caller.user.id, 'manage_invitations')
  const rows = await listPendingInvitations(deps.db, organizationId, deps.clock.now().toISOString(), window)
  return toPage(
    rows,
    window.limit,
    (row) => row,
    (row) => [row.created_at, row.id],
  )
}

/** Revokes a pending invitation; an invitation to become owner only an owner may revoke. */
export async function revokeInvitation(deps: Deps, caller: Caller, organizationId: string, invitationId: string, ctx: RequestContext): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const { role: actorRole } = await requirePermission(tx, organizationId, caller.user.id, 'manage_invitations')
    const now = deps.clock.now().toISOString()
    const invitation = await findPendingInvitation(tx, organizationId, invitationId, now)
    if (invitation === null) throw new AppError('NOT_FOUND', { message: 'No such pending invitation.' })
    assertMayChangeRole(actorRole, null, invitation.role, 'manage_invitations')
    if ((await revokePendingInvitations(tx, organizationId, { id: invitationId }, now)).length === 0)
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
export async function acceptInvitation(deps: Deps, caller: Caller, token: string, ctx: RequestContext): Promise<OrganizationRecord> {
  const now = deps.clock.now().toISOString()
  return deps.db.transaction().execute(async (tx) => {
    const invitation = await consumeInvitation(tx, sha256Hex(token), now)
    if (invitation === null) throw invalidToken()
    if (invitation.email !== caller.user.email) {
      throw new AppError('FORBIDDEN', { message: 'This invitation was sent to another email address: sign in with that address to accept it.' })
    }
    await insertMembership(tx, invitation.organization_id, caller.user.id, invitation.role, now)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_accept',
      actor: caller.user,
      target: { type: 'organization', id: invitation.organization_id },
      metadata: { invitation_id: invitation.id, user_id: caller.user.id, role: invitation.role },
    })
    return (await findOrganizationOfMember(tx, invitation.organization_id, caller.user.id))!
  })
}

/** The caller's pending invitations (addressed to their current email), newest first. */
export async function listMyInvitations(deps: Deps, caller: Caller, query: PageQuery): Promise<Page<ReceivedInvitationRecord>> {
  const window = pageWindow(query)
  const rows = await listInvitationsTo(deps.db, caller.user.email, deps.clock.now().toISOString(), window)
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
export async function acceptMyInvitation(deps: Deps, caller: Caller, invitationId: string, ctx: RequestContext): Promise<OrganizationRecord> {
  const now = deps.clock.now().toISOString()
  return deps.db.transaction().execute(async (tx) => {
    const invitation = await answerInvitation(tx, { id: invitationId, email: caller.user.email }, 'accept', now)
    if (invitation === null) throw noSuchInvitation()
    await insertMembership(tx, invitation.organization_id, caller.user.id, invitation.role, now)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_accept',
      actor: caller.user,
      target: { type: 'organization', id: invitation.organization_id },
      metadata: { invitation_id: invitation.id, user_id: caller.user.id, role: invitation.role },
    })
    return (await findOrganizationOfMember(tx, invitation.organization_id, caller.user.id))!
  })
}

/** Declines one of the caller's pending invitations: its link stops working, nobody joins. */
export async function declineMyInvitation(deps: Deps, caller: Caller, invitationId: string, ctx: RequestContext): Promise<void> {
  const now = deps.clock.now().toISOString()
  await deps.db.transaction().execute(async (tx) => {
    const invitation = await answerInvitation(tx, { id: invitationId, email: caller.user.email }, 'decline', now)
    if (invitation === null) throw noSuchInvitation()
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.invitation_decline',
      actor: caller.user,
      target: { type: 'organization', id: invitation.organization_id },
      metadata: { invitation_id: invitation.id, user_id: caller.user.id, role: invitation.role },
    })
  })
}
