/**
 * Which account an identity from a provider signs in to (docs/API.md#oidc-sign-in), decided
 * in one transaction:
 *
 * 1. the account linked to (issuer, sub) through this provider — whatever its email is today;
 * 2. else, when the provider says the email is verified, the account with that email, which gets
 *    linked — only when an administrator marked the provider `trust_email`, never an
 *    administrator's account nor one with a second factor, and not when it is linked to another
 *    identity already (otherwise the person signs in and links the provider from their profile:
 *    LINK_REQUIRED);
 * 3. else a new account, when the provider creates users (`auto_create_users`), which needs a
 *    verified email: an unverified one could claim someone else's address (and with it, for
 *    example, their invitations);
 * 4. else the sign-in is refused.
 *
 * The unique indexes on users.email and (oidc_provider, oidc_sub) decide races: of two concurrent
 * first sign-ins one inserts, the other retries and finds that account.
 */
import type { Transaction } from 'kysely'
import type { Deps } from '../../deps.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import type { Database } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/client.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext } from '../../identity/caller.js'
import { findUserByEmail, insertUser, updateUser } from '../users/repo.js'
import type { UserRecord } from '../../identity/user.js'
import { normalizeEmail, prepareNewUser } from '../users/service.js'
import { findUserByOidcIdentity, isLiveSessionOf, linkOidcIdentity } from './accounts.repo.js'
import type { OidcIdentity } from './client.js'
import { SignInFailure } from './sign-in.failure.js'
import { isMfaEnabled } from '../mfa/service.js'

export interface SigningProvider {
  provider_key: string
  issuer_url: string
  trust_email: boolean
  auto_create_users: boolean
  default_role: 'user' | 'admin'
}

const MAX_EMAIL_LENGTH = 254
const MAX_NAME_LENGTH = 100
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/
const HAS_CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/
// Control, format (bidi, zero-width) and separator characters: display names refuse them.
const CONTROL_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * The provider's email claim, as this service stores emails; null when it is not a usable address.
 */
function emailOf(identity: OidcIdentity): string | null {
  const email = identity.email === null ? null : normalizeEmail(identity.email)
  return email !== null &&
    email.length <= MAX_EMAIL_LENGTH &&
    EMAIL_SHAPE.test(email) &&
    !HAS_CONTROL_CHARACTER.test(email)
    ? email
    : null
}

/**
 * The `name` claim made to fit the account's rules (single line, 1–100 characters), else the
 * email's local part.
 */
export function displayNameOf(name: string | null, email: string): string {
  const cleaned = (name ?? '').replace(LONE_SURROGATES, '').replace(CONTROL_CHARACTERS, ' ').trim()
  const chosen = cleaned === '' ? email.slice(0, email.lastIndexOf('@')) : cleaned
  return Array.from(chosen).slice(0, MAX_NAME_LENGTH).join('').trim() || 'user'
}

type Tx = Transaction<Database>

async function signInLinked(
  deps: Deps,
  tx: Tx,
  user: UserRecord,
  email: string | null,
  ctx: RequestContext,
): Promise<UserRecord> {
  if (user.disabled)
    throw new SignInFailure('ACCOUNT_DISABLED', 'the linked account is disabled', user.id)
  // The provider owns a linked account's address (docs/API.md#oidc-sign-in): follow a verified
  // change unless another account uses the new address.
  if (email === null || email === user.email || (await findUserByEmail(tx, email)) !== null)
    return user
  const updated =
    (await updateUser(tx, user.id, { email, updated_at: deps.clock.now().toISOString() })) ?? user
  await deleteUnusedResetLinks(tx, user.id)
  await recordAudit(tx, deps.clock, ctx, {
    action: 'user.oidc_email_update',
    actor: updated,
    target: { type: 'user', id: user.id },
    metadata: { provider_key: user.oidc_provider, previous_email: user.email, new_email: email },
  })
  return updated
}

async function linkByEmail(
  deps: Deps,
  tx: Tx,
  provider: SigningProvider,
  user: UserRecord,
  sub: string,
  ctx: RequestContext,
): Promise<UserRecord> {
  if (user.oidc_sub !== null)
    throw new SignInFailure(
      'EMAIL_IN_USE',
      'the account with this email is linked to another identity',
      user.id,
    )
  if (!provider.trust_email)
    throw new SignInFailure(
      'LINK_REQUIRED',
      'the provider is not trusted to link accounts by email',
      user.id,
    )
  if (user.is_admin)
    throw new SignInFailure(
      'LINK_REQUIRED',
      'an administrator account is never linked by email',
      user.id,
    )
  // The second factor would be skipped by whoever controls the provider (or, with trusts_mfa_amr,
  // vouched for by it): such an account links from its own profile only.
  if (await isMfaEnabled(tx, user.id))
    throw new SignInFailure(
      'LINK_REQUIRED',
      'an account with a second factor is never linked by email',
      user.id,
    )
  if (user.disabled)
    throw new SignInFailure('ACCOUNT_DISABLED', 'the account with this email is disabled', user.id)
  const linked = await linkOidcIdentity(tx, user.id, {
    providerKey: provider.provider_key,
    issuer: provider.issuer_url,
    sub,
    at: deps.clock.now().toISOString(),
  })
  if (linked === null)
    throw new SignInFailure(
      'EMAIL_IN_USE',
      'the account with this email was linked meanwhile',
      user.id,
    )
  await recordAudit(tx, deps.clock, ctx, {
    action: 'user.oidc_link',
    actor: linked,
    target: { type: 'user', id: user.id },
    metadata: { provider_key: provider.provider_key, via: 'email' },
  })
  return linked
}

async function createAccount(
  deps: Deps,
  tx: Tx,
  provider: SigningProvider,
  identity: OidcIdentity,
  email: string,
  ctx: RequestContext,
): Promise<UserRecord> {
  const isAdmin = provider.default_role === 'admin'
  const row = await prepareNewUser(deps, {
    email,
    name: displayNameOf(identity.name, email),
    password: null,
    isAdmin,
  })
  const created = await insertUser(tx, {
    ...row,
    oidc_provider: provider.provider_key,
    oidc_issuer: provider.issuer_url,
    oidc_sub: identity.sub,
  })
  await recordAudit(tx, deps.clock, ctx, {
    action: 'user.create',
    actor: created,
    target: { type: 'user', id: created.id },
    metadata: { via: 'oidc', provider_key: provider.provider_key, is_admin: isAdmin },
  })
  return created
}

async function resolveOnce(
  deps: Deps,
  provider: SigningProvider,
  identity: OidcIdentity,
  ctx: RequestContext,
): Promise<UserRecord> {
  const email = identity.emailVerified ? emailOf(identity) : null
  return deps.db.transaction().execute(async (tx) => {
    const linked = await findUserByOidcIdentity(tx, {
      providerKey: provider.provider_key,
      issuer: provider.issuer_url,
      sub: identity.sub,
    })
    if (linked !== null) return signInLinked(deps, tx, linked, email, ctx)
    const owner = email === null ? null : await findUserByEmail(tx, email)
    // A concurrent first sign-in of this same identity may have committed between the two reads.
    if (
      owner !== null &&
      owner.oidc_provider === provider.provider_key &&
      owner.oidc_sub === identity.sub
    ) {
      return signInLinked(deps, tx, owner, email, ctx)
    }
    if (owner !== null) return linkByEmail(deps, tx, provider, owner, identity.sub, ctx)
    if (!provider.auto_create_users)
      throw new SignInFailure(
        'ACCOUNT_NOT_FOUND',
        'no linked account and the provider does not create users',
      )
    if (email === null)
      throw new SignInFailure(
        'EMAIL_NOT_VERIFIED',
        'the provider gave no verified email to create the account with',
      )
    return createAccount(deps, tx, provider, identity, email, ctx)
  })
}

/**
 * Links the identity to the account whose session started the link from its profile:
 * the session must still be live, the account must have no identity yet, and the identity must
 * belong to no other account (the unique index decides a race).
 */
export async function linkToSignedInAccount(
  deps: Deps,
  provider: SigningProvider,
  identity: OidcIdentity,
  linkFor: { userId: string; sessionId: string },
  ctx: RequestContext,
): Promise<UserRecord> {
  const now = deps.clock.now().toISOString()
  try {
    return await deps.db.transaction().execute(async (tx) => {
      if (!(await isLiveSessionOf(tx, linkFor.sessionId, linkFor.userId, now))) {
        throw new SignInFailure(
          'SESSION_ENDED',
          'the session that started the link has ended',
          linkFor.userId,
        )
      }
      const holder = await findUserByOidcIdentity(tx, {
        providerKey: provider.provider_key,
        issuer: provider.issuer_url,
        sub: identity.sub,
      })
      if (holder !== null && holder.id !== linkFor.userId)
        throw new SignInFailure(
          'IDENTITY_IN_USE',
          'the identity is linked to another account',
          linkFor.userId,
        )
      if (holder !== null) return holder
      const linked = await linkOidcIdentity(tx, linkFor.userId, {
        providerKey: provider.provider_key,
        issuer: provider.issuer_url,
        sub: identity.sub,
        at: now,
      })
      if (linked === null)
        throw new SignInFailure(
          'IDENTITY_IN_USE',
          'the account is linked to an identity already',
          linkFor.userId,
        )
      await recordAudit(tx, deps.clock, ctx, {
        action: 'user.oidc_link',
        actor: linked,
        target: { type: 'user', id: linked.id },
        metadata: { provider_key: provider.provider_key, via: 'profile' },
      })
      return linked
    })
  } catch (error) {
    if (isUniqueViolation(error))
      throw new SignInFailure(
        'IDENTITY_IN_USE',
        'the identity is linked to another account',
        linkFor.userId,
      )
    throw error
  }
}

export async function resolveAccount(
  deps: Deps,
  provider: SigningProvider,
  identity: OidcIdentity,
  ctx: RequestContext,
): Promise<UserRecord> {
  try {
    return await resolveOnce(deps, provider, identity, ctx)
  } catch (error) {
    // A concurrent sign-in created or linked the account first: the second look finds it.
    if (isUniqueViolation(error)) return resolveOnce(deps, provider, identity, ctx)
    throw error
  }
}
