/**
 * Joining from an invitation without an account (docs/API.md#invitations): the link is the proof
 * of the address, so its holder creates the account for the invited address — name and password,
 * under the same password rules — and joins in one transaction, with no verification mail. On by
 * default; an administrator switches it off (`sign_up.through_invitation`), and then a person
 * without an account needs one before the link works.
 */
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import { sha256Hex } from '../../lib/crypto.js'
import { recordAudit, recordAudits } from '../audit/service.js'
import type { Caller, RequestContext } from '../../identity/caller.js'
import { issueSignIn, openSession, type SignIn } from '../../identity/session-issuer.js'
import { findUserByEmail } from '../users/repo.js'
import { insertNewUser, prepareNewUser } from '../users/service.js'
import {
  consumeInvitation,
  findInvitationByToken,
  type InvitationByTokenRecord,
} from './invitations.repo.js'
import { insertMembership } from './members.service.js'
import { findOrganizationOfMember, type OrganizationRecord } from './repo.js'
import { readSignUpRow, SIGN_UP_SETTING, writeSignUpRow } from './sign-up.repo.js'

export interface SignUpSettings {
  through_invitation: boolean
  updated_at: string | null
}

export async function getSignUpSettings(deps: Deps): Promise<SignUpSettings> {
  const row = await readSignUpRow(deps.db)
  const stored = row === null ? {} : (JSON.parse(row.value) as { through_invitation?: boolean })
  return {
    through_invitation: stored.through_invitation !== false,
    updated_at: row?.updated_at ?? null,
  }
}

export async function updateSignUpSettings(
  deps: Deps,
  caller: Caller,
  body: { through_invitation: boolean },
  ctx: RequestContext,
): Promise<SignUpSettings> {
  const now = deps.clock.now().toISOString()
  await deps.db.transaction().execute(async (tx) => {
    const value = JSON.stringify({ through_invitation: body.through_invitation })
    await writeSignUpRow(tx, value, now, caller.user.id)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'settings.sign_up',
      actor: caller.user,
      target: { type: 'setting', id: SIGN_UP_SETTING },
      metadata: { through_invitation: body.through_invitation },
    })
  })
  return getSignUpSettings(deps)
}

const invalidToken = () => invalidField('token', 'is invalid, expired or already used')

/** What the link's holder sees before answering: who invites them where, and how to go on. */
export interface InvitationPreview {
  email: string
  organization_name: string
  organization_slug: string
  role: InvitationByTokenRecord['role']
  invited_by_name: string | null
  expires_at: string
  has_account: boolean
  sign_up: boolean
}

export async function previewInvitation(deps: Deps, token: string): Promise<InvitationPreview> {
  const found = await findInvitationByToken(
    deps.db,
    sha256Hex(token),
    deps.clock.now().toISOString(),
  )
  if (found === null) throw invalidToken()
  const [account, settings] = await Promise.all([
    findUserByEmail(deps.db, found.email),
    getSignUpSettings(deps),
  ])
  return {
    email: found.email,
    organization_name: found.organization_name,
    organization_slug: found.organization_slug,
    role: found.role,
    invited_by_name: found.invited_by_name,
    expires_at: found.expires_at,
    has_account: account !== null,
    sign_up: settings.through_invitation,
  }
}

function accountExists(): AppError {
  return new AppError('ALREADY_EXISTS', {
    message: 'An account with this address exists: sign in to accept the invitation.',
    details: 'email',
  })
}

/**
 * Checks, in order: sign-up through invitations on (403), the link pending (400), no account with
 * the invited address (409), the password rules (400). The account, its membership and its session
 * are made in one transaction that also spends the link, so a second use asks to sign in.
 */
export async function signUpWithInvitation(
  deps: Deps,
  input: { token: string; name: string; password: string },
  ctx: RequestContext,
): Promise<{ signIn: SignIn; organization: OrganizationRecord }> {
  if (!(await getSignUpSettings(deps)).through_invitation) {
    throw new AppError('FORBIDDEN', {
      message: 'Accounts cannot be created from an invitation here: ask for an account first.',
    })
  }
  const tokenHash = sha256Hex(input.token)
  const found = await findInvitationByToken(deps.db, tokenHash, deps.clock.now().toISOString())
  if (found === null) throw invalidToken()
  if ((await findUserByEmail(deps.db, found.email)) !== null) throw accountExists()
  // Hashed outside the transaction: on SQLite an open transaction holds the only connection.
  const row = await prepareNewUser(deps, {
    email: found.email,
    name: input.name,
    password: input.password,
    isAdmin: false,
  })
  const done = await deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now().toISOString()
    const invitation = await consumeInvitation(tx, tokenHash, now)
    if (invitation === null) throw invalidToken()
    const user = await insertNewUser(tx, { ...row, last_login_at: now }).catch((error) => {
      throw error instanceof AppError && error.reason === 'ALREADY_EXISTS' ? accountExists() : error
    })
    await insertMembership(tx, invitation.organization_id, user.id, invitation.role, now)
    const session = await openSession(deps, tx, user.id, ctx, { method: 'invitation' })
    // Read before the audit append, which holds the audit tree's head until the commit.
    const organization = await findOrganizationOfMember(tx, invitation.organization_id, user.id)
    await recordAudits(tx, deps.clock, ctx, [
      {
        action: 'user.sign_up',
        actor: user,
        target: { type: 'user', id: user.id },
        metadata: { via: 'invitation', invitation_id: invitation.id, session_id: session.id },
      },
      {
        action: 'org.invitation_accept',
        actor: user,
        target: { type: 'organization', id: invitation.organization_id },
        metadata: { invitation_id: invitation.id, user_id: user.id, role: invitation.role },
      },
    ])
    return { user, session, organization: organization! }
  })
  return {
    signIn: await issueSignIn(deps, done.user, done.session),
    organization: done.organization,
  }
}
