/**
 * OIDC sign-in (docs/API.md#identity-providers): the authorization code flow with PKCE, `state` and
 * `nonce`. `startOidcSignIn` sends the browser to the provider; `finishOidcSignIn` checks what
 * comes back, redeems the code, finds the account and ends like every first factor, through
 * beginSignIn — so the audit, last_login_at and the second factor behave exactly as for a password.
 *
 * Both answer every failure as a SignInFailure outcome instead of throwing: these are browser
 * routes, which redirect to the app's login page rather than show an error document. Every
 * failure is audited (`auth.oidc_failed`).
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { decrypt, DecryptionError, safeEqual, sha256Hex } from '../../lib/crypto.js'
import {
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  toPage,
  type Page,
  type PageQuery,
} from '../../lib/pagination.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { beginSignIn, type SignInOutcome } from '../auth/service.js'
import { oauthErrorCode, OidcProviderError, type OidcConnection } from './client.js'
import {
  findProviderForSignIn,
  listProviderRows,
  type ProviderCredentials,
} from './providers.repo.js'
import { PROVIDER_KEY_PATTERN } from './providers.schemas.js'
import { clientSecretContext } from './providers.service.js'
import { linkToSignedInAccount, resolveAccount } from './sign-in.accounts.js'
import { SignInFailure } from './sign-in.failure.js'
import { codeChallengeOf, newSignInState, openState, sealState } from './sign-in.state.js'
import { callbackUrl, loginUrl } from './urls.js'

export interface ProviderLink {
  provider_key: string
  name: string
  login_url: string
}

type Failed = { kind: 'failure'; failure: SignInFailure; forLink?: boolean }
export type StartOutcome = { kind: 'redirect'; location: string; sealedState: string } | Failed
export type CallbackOutcome = SignInOutcome | Failed | { kind: 'linked'; providerKey: string }

/**
 * RFC 8176 method references that mean more than a password: `mfa` itself, one-time passwords,
 * proof of possession of a key (hardware, software, smart card) and biometrics (which a provider
 * only uses as part of such a key).
 */
const SECOND_FACTOR_AMR = new Set([
  'mfa',
  'otp',
  'hwk',
  'swk',
  'sc',
  'fpt',
  'face',
  'iris',
  'retina',
])

export function reportsSecondFactor(amr: readonly string[]): boolean {
  return amr.some((method) => SECOND_FACTOR_AMR.has(method))
}

/** OIDC Core §2: a subject is at most 255 ASCII characters. */
const MAX_SUB_LENGTH = 255
const WELL_FORMED_KEY = new RegExp(PROVIDER_KEY_PATTERN)

/** The enabled providers, for a login page's buttons, by provider_key. */
export async function listSignInProviders(
  deps: Deps,
  query: PageQuery,
): Promise<Page<ProviderLink>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  const afterKey = decodeCursor(query.cursor)?.[0] ?? null
  const rows = await listProviderRows(deps.db, { limit, afterKey, enabledOnly: true })
  return toPage(
    rows,
    limit,
    (row) => ({
      provider_key: row.provider_key,
      name: row.name,
      login_url: loginUrl(deps.config.publicUrl, row.provider_key),
    }),
    (row) => [row.provider_key, ''],
  )
}

async function enabledProvider(deps: Deps, providerKey: string): Promise<ProviderCredentials> {
  const provider = await findProviderForSignIn(deps.db, providerKey)
  if (provider === null)
    throw new SignInFailure('PROVIDER_NOT_FOUND', 'no enabled provider has this key')
  return provider
}

function connectionOf(deps: Deps, provider: ProviderCredentials): OidcConnection {
  let clientSecret: string | null = null
  if (provider.client_secret_encrypted !== null) {
    try {
      clientSecret = decrypt(
        deps.secrets.encryptionKey,
        provider.client_secret_encrypted,
        clientSecretContext(provider.id),
      )
    } catch (error) {
      if (!(error instanceof DecryptionError)) throw error
      throw new SignInFailure(
        'PROVIDER_ERROR',
        'the stored client secret cannot be decrypted with the current ENCRYPTION_KEY; an administrator must set it again',
      )
    }
  }
  return {
    providerId: provider.id,
    // Whatever the connection depends on: a change (on any instance) retires the cached discovery.
    version: sha256Hex(
      [
        provider.updated_at,
        provider.issuer_url,
        provider.client_id,
        provider.client_secret_encrypted ?? '',
      ].join('\n'),
    ),
    issuerUrl: provider.issuer_url,
    clientId: provider.client_id,
    clientSecret,
    redirectUri: callbackUrl(deps.config.publicUrl, provider.provider_key),
  }
}

/** Runs one step with the provider; its failures are the provider's. */
async function withProvider<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof OidcProviderError) throw new SignInFailure('PROVIDER_ERROR', error.message)
    throw error
  }
}

async function failed(
  deps: Deps,
  providerKey: string,
  error: unknown,
  ctx: RequestContext,
): Promise<Failed> {
  if (!(error instanceof SignInFailure)) throw error
  await recordAudit(deps.db, deps.clock, ctx, {
    action: 'auth.oidc_failed',
    actor: null,
    ...(error.userId !== null && { target: { type: 'user', id: error.userId } }),
    // The key comes from the URL: recorded only when it is one a provider could have.
    metadata: {
      provider_key: WELL_FORMED_KEY.test(providerKey) ? providerKey : null,
      error: error.code,
    },
  })
  return { kind: 'failure', failure: error }
}

export async function startOidcSignIn(
  deps: Deps,
  providerKey: string,
  ctx: RequestContext,
): Promise<StartOutcome> {
  try {
    const provider = await enabledProvider(deps, providerKey)
    const state = newSignInState(provider.provider_key)
    const location = await withProvider(
      deps.oidc.authorizationUrl(connectionOf(deps, provider), {
        scope: provider.scopes,
        state: state.state,
        nonce: state.nonce,
        codeChallenge: codeChallengeOf(state.codeVerifier),
      }),
    )
    return { kind: 'redirect', location, sealedState: sealState(deps, state) }
  } catch (error) {
    return failed(deps, providerKey, error, ctx)
  }
}

export interface CallbackInput {
  providerKey: string
  /** The callback's query string as received (without `?`): openid-client verifies it whole. */
  query: string
  state: string | undefined
  error: string | undefined
  stateCookie: string | undefined
}

async function finish(
  deps: Deps,
  input: CallbackInput,
  ctx: RequestContext,
  linking: { value: boolean },
): Promise<CallbackOutcome> {
  const provider = await enabledProvider(deps, input.providerKey)
  const saved = openState(deps, input.stateCookie, provider.provider_key)
  if (saved === null)
    throw new SignInFailure(
      'INVALID_STATE',
      'the state cookie is missing, altered, expired or for another provider',
    )
  linking.value = saved.linkFor !== undefined
  // Checked before anything is sent to the provider, so a forged callback never spends a code.
  if (input.state === undefined || !safeEqual(input.state, saved.state)) {
    throw new SignInFailure('INVALID_STATE', 'the state parameter does not match the state cookie')
  }
  if (input.error !== undefined) {
    const code = input.error === 'access_denied' ? 'ACCESS_DENIED' : 'PROVIDER_ERROR'
    throw new SignInFailure(
      code,
      `the provider answered error=${oauthErrorCode(input.error) ?? '(not an OAuth error code)'}`,
    )
  }
  const connection = connectionOf(deps, provider)
  const callback = new URL(`${connection.redirectUri}?${input.query}`)
  const identity = await withProvider(deps.oidc.completeAuthorization(connection, callback, saved))
  if (identity.sub.length > MAX_SUB_LENGTH)
    throw new SignInFailure('PROVIDER_ERROR', 'the subject is longer than 255 characters')

  if (saved.linkFor !== undefined) {
    await linkToSignedInAccount(deps, provider, identity, saved.linkFor, ctx)
    return { kind: 'linked', providerKey: provider.provider_key }
  }
  const user = await resolveAccount(deps, provider, identity, ctx)
  // A provider marked `trusts_mfa_amr` vouches for a second factor through `amr`; the
  // session remembers it, so the two-factor policy is met without a factor here.
  const idpMfa = provider.trusts_mfa_amr && reportsSecondFactor(identity.amr)
  try {
    return await beginSignIn(deps, user.id, provider.provider_key, ctx, { idpMfa })
  } catch (error) {
    // Disabled between the two transactions.
    if (error instanceof AppError && error.reason === 'INVALID_CREDENTIALS')
      throw new SignInFailure('ACCOUNT_DISABLED', 'the account is disabled', user.id)
    throw error
  }
}

export async function finishOidcSignIn(
  deps: Deps,
  input: CallbackInput,
  ctx: RequestContext,
): Promise<CallbackOutcome> {
  const linking = { value: false }
  try {
    return await finish(deps, input, ctx, linking)
  } catch (error) {
    return { ...(await failed(deps, input.providerKey, error, ctx)), forLink: linking.value }
  }
}

/**
 * Starts linking a provider to the signed-in account, from its profile: the same flow
 * as a sign-in, whose sealed state names the account and the session that asked — the callback
 * links the identity to that account only while that session is live. Needs a session (not an
 * API token); an account already linked to an identity is 409.
 */
export async function startOidcLink(
  deps: Deps,
  caller: Caller,
  providerKey: string,
): Promise<{ location: string; sealedState: string }> {
  if (caller.sessionId === null) throw new AppError('SESSION_REQUIRED')
  const provider = await findProviderForSignIn(deps.db, providerKey)
  if (provider === null)
    throw new AppError('NOT_FOUND', { message: 'No enabled identity provider has this key.' })
  if (caller.user.oidc_sub !== null) {
    throw new AppError('ALREADY_EXISTS', {
      message: 'Your account is linked to an identity provider already; unlink it first.',
      details: 'provider_key',
    })
  }
  const state = newSignInState(provider.provider_key, {
    userId: caller.user.id,
    sessionId: caller.sessionId,
  })
  try {
    const location = await withProvider(
      deps.oidc.authorizationUrl(connectionOf(deps, provider), {
        scope: provider.scopes,
        state: state.state,
        nonce: state.nonce,
        codeChallenge: codeChallengeOf(state.codeVerifier),
      }),
    )
    return { location, sealedState: sealState(deps, state) }
  } catch (error) {
    if (error instanceof SignInFailure) {
      deps.logger.warn(
        { oidc: { error: error.code, detail: error.detail } },
        'OIDC link could not start',
      )
      throw new AppError('UPSTREAM_FAILED', {
        message: 'The identity provider could not be reached.',
      })
    }
    throw error
  }
}
