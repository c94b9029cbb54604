/**
 * A person's passkeys: registration (options → the authenticator's attestation), the list, rename
 * and delete. Every change needs an interactive session and re-authentication: the password, when
 * the account has one. Adding a passkey and removing the last second factor need more (
 * proof.ts): an account without a password proves a recent sign-in, and an account with a second
 * factor proves that factor now. The first second factor added and the last one removed end the
 * user's other sessions, as enabling and disabling TOTP do.
 */
import type {
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { provePasswordOrWindow } from '../../identity/reauth.js'
import { revokeUserSessions } from '../../identity/sessions.repo.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import { findTotpFactor } from '../mfa/repo.js'
import { isMfaEnabled } from '../mfa/service.js'
import { lockUser } from '../users/repo.js'
import {
  proveForNewFactor,
  proveSecondFactorOrWindow,
  type FactorProof,
  type ProvenFactor,
} from './proof.js'
import {
  consumeChallenge,
  countPasskeys,
  deletePasskey,
  findOwnPasskey,
  insertPasskey,
  listPasskeys,
  putChallenge,
  renamePasskey,
  type PasskeyRecord,
} from './repo.js'
import {
  CHALLENGE_TTL_SECONDS,
  failureMessage,
  relyingParty,
  SUPPORTED_ALGORITHMS,
  verificationFailed,
  webauthn,
} from './webauthn.js'

/** Enough for every device a person owns; keeps the list (and excludeCredentials) bounded. */
export const MAX_PASSKEYS_PER_USER = 20
const DEFAULT_NAME = 'Passkey'

export interface PasskeyView {
  id: string
  name: string
  created_at: string
  last_used_at: string | null
  backup_eligible: boolean
  backed_up: boolean
}

export function toPasskeyView(passkey: PasskeyRecord): PasskeyView {
  const { id, name, created_at, last_used_at, backup_eligible, backed_up } = passkey
  return { id, name, created_at, last_used_at, backup_eligible, backed_up }
}

export async function listOwnPasskeys(
  deps: Deps,
  caller: Caller,
): Promise<{ items: PasskeyView[]; next_cursor: null }> {
  // At most MAX_PASSKEYS_PER_USER: one page.
  return {
    items: (await listPasskeys(deps.db, caller.user.id)).map(toPasskeyView),
    next_cursor: null,
  }
}

/** The registration challenge is bound to the session that asked for it. */
function sessionBinding(caller: Caller): string {
  return caller.sessionId!
}

/**
 * Begins a registration after the proof (proof.ts): the password or a recent sign-in, and the
 * account's second factor when it has one. The proof is asked for here, where the challenge is
 * made; the completion is bound to this session's challenge. (A factor added by the owner between
 * the two ends every other session, so an intruder's challenge cannot outlive it.)
 */
export async function beginRegistration(
  deps: Deps,
  caller: Caller,
  proof: FactorProof,
  ctx: RequestContext,
): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; expires_at: string }> {
  const userId = caller.user.id
  const existing = await listPasskeys(deps.db, userId)
  if (existing.length >= MAX_PASSKEYS_PER_USER)
    throw new AppError('LIMIT_REACHED', { details: `at most ${MAX_PASSKEYS_PER_USER} passkeys` })
  await proveForNewFactor(deps, caller, proof, ctx)
  const rp = relyingParty(deps.config)
  const { generateRegistrationOptions } = await webauthn()
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    // The user handle is the account id (not the email): it names the account in a passwordless
    // sign-in.
    userID: new TextEncoder().encode(userId),
    userName: caller.user.email,
    userDisplayName: caller.user.name,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: 'none',
    // The same authenticator is not registered twice.
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    // Discoverable, so it can sign in without a password; verification is demanded at that sign-in.
    authenticatorSelection: {
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'preferred',
    },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  })
  const now = deps.clock.now()
  const expiresAt = addSeconds(now, CHALLENGE_TTL_SECONDS).toISOString()
  await putChallenge(deps.db, {
    id: newId(),
    purpose: 'register',
    binding: sessionBinding(caller),
    user_id: userId,
    challenge: options.challenge,
    created_at: now.toISOString(),
    expires_at: expiresAt,
  })
  return { options, expires_at: expiresAt }
}

async function verifyAttestation(
  deps: Deps,
  challenge: string,
  credential: RegistrationResponseJSON,
) {
  const rp = relyingParty(deps.config)
  const { verifyRegistrationResponse } = await webauthn()
  try {
    const result = await verifyRegistrationResponse({
      response: credential,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    })
    if (!result.verified) throw verificationFailed('The passkey could not be verified.', 400)
    return result.registrationInfo
  } catch (error) {
    if (error instanceof AppError) throw error
    throw verificationFailed(failureMessage(error), 400)
  }
}

/**
 * Completes a registration with the authenticator's answer. Taking the session's challenge is the
 * atomic step: of two completions only one finds it. Registration refusals are not budgeted — there
 * is nothing to guess, and each try needs a new challenge, which needs the password (budgeted).
 */
export async function completeRegistration(
  deps: Deps,
  caller: Caller,
  input: { name?: string | undefined; credential: RegistrationResponseJSON },
  ctx: RequestContext,
): Promise<PasskeyView> {
  const userId = caller.user.id
  const now = deps.clock.now().toISOString()
  const taken = await consumeChallenge(deps.db, 'register', sessionBinding(caller), now)
  if (taken === null || taken.user_id !== userId) throw new AppError('PASSKEY_CHALLENGE_EXPIRED')
  const info = await verifyAttestation(deps, taken.challenge, input.credential)

  const passkey = {
    id: newId(),
    user_id: userId,
    credential_id: info.credential.id,
    public_key: info.credential.publicKey,
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    backup_eligible: info.credentialDeviceType === 'multiDevice',
    backed_up: info.credentialBackedUp,
    aaguid: info.aaguid,
    name: input.name ?? DEFAULT_NAME,
    created_at: now,
  }
  try {
    await deps.db.transaction().execute(async (tx) => {
      // Registrations of one account take turns (each with its own challenge, so the challenge does
      // not order them): the cap and "is this the first factor" are then decided on settled counts.
      await lockUser(tx, userId)
      const hadSecondFactor = await isMfaEnabled(tx, userId)
      if ((await countPasskeys(tx, userId)) >= MAX_PASSKEYS_PER_USER) {
        throw new AppError('LIMIT_REACHED', {
          details: `at most ${MAX_PASSKEYS_PER_USER} passkeys`,
        })
      }
      await insertPasskey(tx, passkey)
      await deleteUnusedResetLinks(tx, userId)
      // The first second factor changes how the account signs in: other sessions end (as TOTP
      // enable).
      const revoked = hadSecondFactor
        ? 0
        : await revokeUserSessions(tx, userId, caller.sessionId, now)
      await recordAudit(tx, deps.clock, ctx, {
        action: 'passkey.register',
        actor: caller.user,
        target: { type: 'passkey', id: passkey.id },
        metadata: {
          name: passkey.name,
          backup_eligible: passkey.backup_eligible,
          first_factor: !hadSecondFactor,
          sessions_revoked: revoked,
        },
      })
    })
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('ALREADY_EXISTS', {
        details: 'credential',
        message: 'This passkey is already registered.',
      })
    throw error
  }
  return toPasskeyView({ ...passkey, last_used_at: null })
}

async function ownPasskey(deps: Deps, caller: Caller, id: string): Promise<PasskeyRecord> {
  const passkey = await findOwnPasskey(deps.db, caller.user.id, id)
  if (passkey === null) throw new AppError('NOT_FOUND', { message: 'No such passkey.' })
  return passkey
}

export async function renameOwnPasskey(
  deps: Deps,
  caller: Caller,
  id: string,
  input: { name: string },
  ctx: RequestContext,
): Promise<PasskeyView> {
  // A name changes nothing about who can sign in: no proof.
  const passkey = await ownPasskey(deps, caller, id)
  await deps.db.transaction().execute(async (tx) => {
    if (!(await renamePasskey(tx, caller.user.id, id, input.name)))
      throw new AppError('NOT_FOUND', { message: 'No such passkey.' })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'passkey.rename',
      actor: caller.user,
      target: { type: 'passkey', id },
      metadata: { name: input.name },
    })
  })
  return toPasskeyView({ ...passkey, name: input.name })
}

/** Whether deleting this passkey would leave the account without a second factor. */
async function isLastFactor(deps: Deps, userId: string): Promise<boolean> {
  return (
    (await countPasskeys(deps.db, userId)) <= 1 && (await findTotpFactor(deps.db, userId)) === null
  )
}

/**
 * Deletes a passkey. Removing the account's last second factor is disabling two-factor sign-in, so
 * it needs the same proof as disabling TOTP: the password (when the account has one) and
 * the factor now — an answer of this passkey (or a code) — and it ends every other session. Whether
 * it was the last is decided again in the transaction, with the account locked: two concurrent
 * deletions of its last two passkeys cannot both pass as "not the last" without the proof.
 */
export async function deleteOwnPasskey(
  deps: Deps,
  caller: Caller,
  id: string,
  input: FactorProof,
  ctx: RequestContext,
): Promise<void> {
  const passkey = await ownPasskey(deps, caller, id)
  await provePasswordOrWindow(deps, caller, input.password)
  const proven: ProvenFactor | null = (await isLastFactor(deps, caller.user.id))
    ? await proveSecondFactorOrWindow(deps, caller, input, ctx)
    : null
  await deps.db.transaction().execute(async (tx) => {
    await lockUser(tx, caller.user.id)
    if (!(await deletePasskey(tx, caller.user.id, id)))
      throw new AppError('NOT_FOUND', { message: 'No such passkey.' })
    const lastFactor = !(await isMfaEnabled(tx, caller.user.id))
    await deleteUnusedResetLinks(tx, caller.user.id)
    if (lastFactor && proven === null) throw new AppError('SECOND_FACTOR_REQUIRED')
    const revoked = lastFactor
      ? await revokeUserSessions(
          tx,
          caller.user.id,
          caller.sessionId,
          deps.clock.now().toISOString(),
        )
      : 0
    await recordAudit(tx, deps.clock, ctx, {
      action: 'passkey.delete',
      actor: caller.user,
      target: { type: 'passkey', id },
      // The name lets the security mail and the person's activity say which passkey went.
      metadata: {
        name: passkey.name,
        last_factor: lastFactor,
        sessions_revoked: revoked,
        ...(proven !== null && { proof: proven }),
      },
    })
  })
}
